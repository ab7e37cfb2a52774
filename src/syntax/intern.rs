//! Interned text: identifiers, literals and description strings of the AST.
//!
//! Owns [`Text`], an 8-byte handle to a string stored once per process, and the
//! process-wide table behind it. Invariants: equal strings have equal handles, so
//! equality is one pointer comparison; hashing and ordering go by the string, so they
//! agree with `str` (maps keyed by `Text` can be queried with a `&str`); stored text is
//! never freed.
//!
//! Why our own table (it replaced `ustr`): a flat model repeats long dotted names many
//! times, but its distinct names and numbers still number in the hundreds of thousands
//! (issue 15: 2·10^5 for a chain of 10^5 equations), and the table must stay proportional
//! to them. A string costs its bytes and a one-byte length (five bytes from 255 bytes on),
//! packed in leaked 64 KiB chunks; the table holds each string's place as a 4-byte id
//! (its chunk and offset), hashed by the string (hashbrown's table: 5 bytes a slot, where
//! a set of handles takes 9).

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash, Hasher};
use std::ptr::NonNull;
use std::sync::{LazyLock, Mutex, PoisonError};

/// An interned string: a thin pointer to its length (one byte, or the byte 255 and a
/// `u32`) followed by its bytes. Derefs to `&str`; equality is identity.
#[derive(Clone, Copy)]
pub struct Text(NonNull<u8>);

// SAFETY: a `Text` points to immutable bytes that live for the rest of the process.
unsafe impl Send for Text {}
unsafe impl Sync for Text {}

/// Interns `s`.
pub fn text(s: &str) -> Text {
    TABLE.lock().unwrap_or_else(PoisonError::into_inner).intern(s)
}

/// A length from this byte on is written as the byte and a `u32`.
const LONG: u8 = u8::MAX;

impl Text {
    pub fn as_str(&self) -> &'static str {
        let p = self.0.as_ptr();
        // SAFETY: `Table::store` wrote the length (one byte, or `LONG` and a `u32`) and then
        // that many bytes of a `str`, and never frees or changes them.
        unsafe {
            let (len, bytes) = match *p {
                LONG => (p.add(1).cast::<u32>().read_unaligned() as usize, p.add(5)),
                len => (len as usize, p.add(1)),
            };
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(bytes, len))
        }
    }
}

static TABLE: LazyLock<Mutex<Table>> = LazyLock::new(|| Mutex::new(Table::default()));

/// The low bits of an id, which hold the offset in a chunk; the bits above hold the
/// chunk's index.
const CHUNK_BITS: u32 = 16;

/// Bytes per storage chunk; a string's id is its chunk's index times this plus its offset.
const CHUNK: usize = 1 << CHUNK_BITS;

/// The interned strings: where they are stored, and a hash table of their ids.
#[derive(Default)]
struct Table {
    /// Ids (`chunk << CHUNK_BITS | offset`), hashed by their string.
    set: HashTable<u32>,
    /// The start of each chunk: shared chunks of [`CHUNK`] bytes for short strings, one of
    /// its own for a string longer than a quarter chunk.
    chunks: Vec<NonNull<u8>>,
    /// The shared chunk short strings go to, and the bytes left at its end.
    current: usize,
    left: usize,
}

// SAFETY: the chunks are leaked allocations only this table writes to.
unsafe impl Send for Table {}

impl Table {
    fn intern(&mut self, s: &str) -> Text {
        let hash = FxBuildHasher.hash_one(s);
        if let Some(&id) = self.set.find(hash, |&id| text_at(&self.chunks, id).as_str() == s) {
            return text_at(&self.chunks, id);
        }
        let id = self.store(s);
        let chunks = &self.chunks;
        self.set.insert_unique(hash, id, |&id| FxBuildHasher.hash_one(text_at(chunks, id).as_str()));
        text_at(&self.chunks, id)
    }

    /// Copies `s` (length first) into leaked storage; its id.
    fn store(&mut self, s: &str) -> u32 {
        let len = u32::try_from(s.len()).expect("interned text is shorter than 4 GiB");
        let head = if len < u32::from(LONG) { 1 } else { 5 };
        let size = head + s.len();
        let (chunk, offset) = if size > CHUNK / 4 {
            self.chunks.push(leak(size));
            (self.chunks.len() - 1, 0)
        } else {
            if size > self.left {
                self.chunks.push(leak(CHUNK));
                (self.current, self.left) = (self.chunks.len() - 1, CHUNK);
            }
            self.left -= size;
            (self.current, CHUNK - self.left - size)
        };
        // At most 2^(32 - CHUNK_BITS) = 65,536 chunks: 4 GiB of short strings, or as little
        // as ~1 GiB of distinct strings each longer than a quarter chunk (16 KiB, a chunk of
        // its own). No flat model comes near; past that, interning panics here.
        let id = u32::try_from(chunk << CHUNK_BITS | offset).expect("interned text fits in 2^16 chunks of 64 KiB");
        // SAFETY: the chunk has `size` bytes free at `offset`: the length, then the bytes.
        unsafe {
            let at = self.chunks[chunk].as_ptr().add(offset);
            if head == 1 {
                at.write(len as u8);
            } else {
                at.write(LONG);
                at.add(1).cast::<u32>().write_unaligned(len);
            }
            std::ptr::copy_nonoverlapping(s.as_ptr(), at.add(head), s.len());
        }
        id
    }
}

/// The string of id `id`.
fn text_at(chunks: &[NonNull<u8>], id: u32) -> Text {
    let (chunk, offset) = ((id >> CHUNK_BITS) as usize, id as usize & (CHUNK - 1));
    // SAFETY: `Table::store` made `id` from a chunk's index and an offset inside it.
    Text(unsafe { chunks[chunk].add(offset) })
}

/// A zeroed allocation of `n` bytes that is never freed.
fn leak(n: usize) -> NonNull<u8> {
    NonNull::from(Box::leak(vec![0u8; n].into_boxed_slice())).cast()
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.0 == other.0
    }
}

impl Eq for Text {}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl Default for Text {
    fn default() -> Text {
        text("")
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        text(s)
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        text(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        text(&s)
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.as_str().to_string()
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn equal_strings_share_one_handle() {
        let a = text("a.b.c");
        let b = text(&String::from("a.b.c"));
        assert_eq!(a.0, b.0);
        assert_eq!(a, "a.b.c");
        assert_ne!(a, text("a.b"));
        assert_eq!(text("").as_str(), "");
        let long = "x".repeat(CHUNK * 2);
        assert_eq!(text(&long).as_str(), long);
        assert_eq!(text("é'q'").as_str(), "é'q'");
    }

    #[test]
    fn lengths_and_chunks() {
        // Around the one-byte length, a quarter chunk (stored alone) and many chunks.
        for n in [0, 1, 254, 255, 256, CHUNK / 4 - 1, CHUNK / 4, CHUNK / 4 + 1, CHUNK] {
            let s = "y".repeat(n);
            assert_eq!(text(&s).as_str(), s);
            assert_eq!(text(&s), text(&s.clone()));
        }
        let many: Vec<String> = (0..50_000).map(|k| format!("intern_test_{k}")).collect();
        let texts: Vec<Text> = many.iter().map(|s| text(s)).collect();
        for (s, t) in many.iter().zip(&texts) {
            assert_eq!(t.as_str(), s);
            assert_eq!(text(s), *t);
        }
    }

    #[test]
    fn order_and_hash_go_by_the_string() {
        assert!(text("b") > text("a"));
        let set: HashSet<Text> = [text("k1"), text("k2")].into_iter().collect();
        assert!(set.contains("k2"));
    }
}
