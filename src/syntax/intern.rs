//! Interned text: identifiers, literals and description strings of the AST.
//!
//! Owns [`Text`], an 8-byte handle to a string stored once per process, and the
//! process-wide table behind it. Invariants: equal strings have equal handles, so
//! equality is one pointer comparison; hashing and ordering go by the string, so they
//! agree with `str` (maps keyed by `Text` can be queried with a `&str`); stored text is
//! never freed.
//!
//! Why our own table (it replaced `ustr`): a flat model repeats long dotted names many
//! times, but its distinct names still number in the hundreds of thousands, and the
//! table must stay proportional to them. `ustr` starts with 2^20 slots of 8 bytes
//! (8 MiB, all touched once names are spread over them) and a 16-byte header per
//! string; here a string costs its bytes plus a 4-byte length, and the table grows
//! with the number of distinct strings (the parse bench: ≈ 7 MiB less on the generated
//! 11 MiB model).

use rustc_hash::FxBuildHasher;
use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ptr::NonNull;
use std::sync::{LazyLock, Mutex, PoisonError};

/// An interned string: a thin pointer to its length (`u32`) followed by its bytes.
/// Derefs to `&str`; equality is identity.
#[derive(Clone, Copy)]
pub struct Text(NonNull<u32>);

// SAFETY: a `Text` points to immutable bytes that live for the rest of the process.
unsafe impl Send for Text {}
unsafe impl Sync for Text {}

/// Interns `s`.
pub fn text(s: &str) -> Text {
    TABLE.lock().unwrap_or_else(PoisonError::into_inner).intern(s)
}

impl Text {
    pub fn as_str(&self) -> &'static str {
        // SAFETY: `Table::store` wrote the length and then that many bytes of a `str`,
        // and never frees or changes them.
        unsafe {
            let len = *self.0.as_ptr() as usize;
            let bytes = self.0.as_ptr().add(1).cast::<u8>();
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(bytes, len))
        }
    }
}

static TABLE: LazyLock<Mutex<Table>> = LazyLock::new(|| Mutex::new(Table::default()));

/// Words (`u32`) per storage chunk: 64 KiB.
const CHUNK_WORDS: usize = 1 << 14;

/// The set of interned strings and the chunk they are stored in.
struct Table {
    set: HashSet<Text, FxBuildHasher>,
    /// The unused end of the current chunk.
    free: *mut u32,
    left: usize,
}

// SAFETY: `free` points into a leaked chunk only this table writes to.
unsafe impl Send for Table {}

impl Default for Table {
    fn default() -> Table {
        Table { set: HashSet::default(), free: std::ptr::null_mut(), left: 0 }
    }
}

impl Table {
    fn intern(&mut self, s: &str) -> Text {
        if let Some(&t) = self.set.get(s) {
            return t;
        }
        let t = self.store(s);
        self.set.insert(t);
        t
    }

    /// Copies `s` (length first) into leaked storage.
    fn store(&mut self, s: &str) -> Text {
        let len = u32::try_from(s.len()).expect("interned text is shorter than 4 GiB");
        let words = 1 + s.len().div_ceil(4);
        let at = if words > CHUNK_WORDS / 4 {
            leak_words(words)
        } else {
            if words > self.left {
                self.free = leak_words(CHUNK_WORDS);
                self.left = CHUNK_WORDS;
            }
            let at = self.free;
            // SAFETY: `words <= left`, so this stays inside the chunk.
            self.free = unsafe { at.add(words) };
            self.left -= words;
            at
        };
        // SAFETY: `at` has room for `words` words: the length, then `s.len()` bytes.
        unsafe {
            at.write(len);
            std::ptr::copy_nonoverlapping(s.as_ptr(), at.add(1).cast::<u8>(), s.len());
            Text(NonNull::new_unchecked(at))
        }
    }
}

/// A zeroed allocation of `n` words that is never freed.
fn leak_words(n: usize) -> *mut u32 {
    Box::leak(vec![0u32; n].into_boxed_slice()).as_mut_ptr()
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

    #[test]
    fn equal_strings_share_one_handle() {
        let a = text("a.b.c");
        let b = text(&String::from("a.b.c"));
        assert_eq!(a.0, b.0);
        assert_eq!(a, "a.b.c");
        assert_ne!(a, text("a.b"));
        assert_eq!(text("").as_str(), "");
        let long = "x".repeat(CHUNK_WORDS * 2);
        assert_eq!(text(&long).as_str(), long);
        assert_eq!(text("é'q'").as_str(), "é'q'");
    }

    #[test]
    fn order_and_hash_go_by_the_string() {
        assert!(text("b") > text("a"));
        let set: HashSet<Text> = [text("k1"), text("k2")].into_iter().collect();
        assert!(set.contains("k2"));
    }
}
