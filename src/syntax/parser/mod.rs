//! The nom parser of flattened Modelica: omc `instantiateModel` / `omc -i` output,
//! Base Modelica, and hand-written single-class models.
//!
//! Input: the source text. Output: a [`StoredDefinition`] or one [`SyntaxError`]
//! (the furthest point reached, what was expected there). Invariants: never
//! panics; nesting is bounded by [`MAX_DEPTH`] and expression trees by
//! [`MAX_HEIGHT`], so every recursion over the tree has a bounded depth (parsing
//! and printing run on a large stack, see `syntax::stack`).

mod class;
mod element;
mod equation;
mod expr;
mod lex;
mod primary;

pub(crate) use equation::diverts_item;
pub(crate) use lex::is_keyword;

use super::ast::StoredDefinition;
use super::error::{Expected, SyntaxError, SyntaxErrorKind};
use super::span::Span;
use nom::Err;
use std::cell::Cell;

/// Deepest syntactic nesting (parentheses, calls, if-equations, modifications …).
pub const MAX_DEPTH: u32 = 200;
/// Highest expression tree (a chain `a + b + … ` of n terms has height n).
pub const MAX_HEIGHT: u32 = 2_000;

pub(crate) type PResult<'s, T> = nom::IResult<&'s str, T, PError>;

/// What went wrong, located by the length of the input that remained.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PError {
    /// Bytes of input left at the error: the offset is `src.len() - remaining`.
    remaining: usize,
    kind: SyntaxErrorKind,
}

impl PError {
    pub(crate) fn expected(i: &str, what: &'static str, token: bool) -> PError {
        let what = if token { Expected::Token(what) } else { Expected::Thing(what) };
        PError { remaining: i.len(), kind: SyntaxErrorKind::Expected(what) }
    }
    pub(crate) fn unterminated(i: &str, what: &'static str) -> PError {
        PError { remaining: i.len(), kind: SyntaxErrorKind::Unterminated(what) }
    }
    pub(crate) fn too_deep(i: &str, what: &'static str) -> PError {
        PError { remaining: i.len(), kind: SyntaxErrorKind::TooDeep(what) }
    }
    pub(crate) fn other(i: &str, msg: String) -> PError {
        PError { remaining: i.len(), kind: SyntaxErrorKind::Other(msg) }
    }
}

impl<'s> nom::error::ParseError<&'s str> for PError {
    fn from_error_kind(input: &'s str, _kind: nom::error::ErrorKind) -> Self {
        PError { remaining: input.len(), kind: SyntaxErrorKind::Expected(Expected::Thing("valid syntax")) }
    }
    fn append(_input: &'s str, _kind: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
    /// Of two alternatives that failed, report the one that got further.
    fn or(self, other: Self) -> Self {
        if other.remaining <= self.remaining { other } else { self }
    }
}

/// Parser state: the whole source (for offsets) and the current nesting depth.
pub(crate) struct Parser<'s> {
    src: &'s str,
    depth: Cell<u32>,
}

/// Leaves one level of nesting when dropped.
pub(crate) struct DepthGuard<'p>(&'p Cell<u32>);

impl Drop for DepthGuard<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl<'s> Parser<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Parser { src, depth: Cell::new(0) }
    }

    /// Enters one nesting level; fails once [`MAX_DEPTH`] is reached.
    pub(crate) fn enter(&self, i: &'s str) -> Result<DepthGuard<'_>, Err<PError>> {
        let d = self.depth.get() + 1;
        if d > MAX_DEPTH {
            return Err(Err::Failure(PError::too_deep(i, "nesting")));
        }
        self.depth.set(d);
        Ok(DepthGuard(&self.depth))
    }
}

impl<'s> Parser<'s> {
    /// Items parsed by `item` until a word for which `ends` holds (not consumed) or
    /// the end of the input: the elements, equations or statements of a section.
    pub(crate) fn section_items<T>(
        &self,
        mut i: &'s str,
        ends: fn(&str) -> bool,
        item: fn(&Self, &'s str) -> PResult<'s, T>,
    ) -> PResult<'s, Vec<T>> {
        let mut out = Vec::new();
        loop {
            let w = self.peek_word(i)?;
            if ends(w) || self.skip(i)?.is_empty() {
                out.shrink_to_fit();
                return Ok((i, out));
            }
            let (r, x) = item(self, i)?;
            out.push(x);
            i = r;
        }
    }
}

/// Parses a whole file. `src` must be at most 4 GiB (spans are 32-bit). Runs on a
/// thread with a large stack (see [`crate::syntax::stack`]).
pub fn parse(src: &str) -> Result<StoredDefinition, SyntaxError> {
    crate::syntax::stack::with_stack(|| parse_here(src))
}

fn parse_here(src: &str) -> Result<StoredDefinition, SyntaxError> {
    if src.len() > u32::MAX as usize {
        return Err(SyntaxError { span: Span::DUMMY, kind: SyntaxErrorKind::Other("file larger than 4 GiB".into()) });
    }
    let p = Parser::new(src);
    match p.stored_definition(src) {
        Ok((_, def)) => Ok(def),
        Err(Err::Error(e) | Err::Failure(e)) => {
            let mut at = src.len() - e.remaining;
            if matches!(e.kind, SyntaxErrorKind::Expected(_)) {
                // Point at the next token, not at the trivia before it.
                if let Ok((rest, ())) = p.ws(&src[at..]) {
                    at = src.len() - rest.len();
                }
            }
            let end = at + token_len(&src[at..]);
            Err(SyntaxError { span: Span::new(at, end), kind: e.kind })
        }
        Err(Err::Incomplete(_)) => Err(SyntaxError {
            span: Span::new(src.len(), src.len()),
            kind: SyntaxErrorKind::Other("unexpected end of input".into()),
        }),
    }
}

/// Length of the token at the start of `s` (for the caret under an error).
fn token_len(s: &str) -> usize {
    let b = s.as_bytes();
    match b.first() {
        None => 0,
        Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$' => {
            b.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'$').count()
        }
        // A control character (a line break in a quoted identifier): an empty span, so the
        // caret stays on its line.
        Some(c) if c.is_ascii_control() => 0,
        Some(_) => s.chars().next().map_or(1, char::len_utf8),
    }
}
