//! Tokens for the nom parser: whitespace and comments, keywords, punctuation,
//! identifiers (`x`, `$i1`, `'q.ident'`), dotted names, numbers and strings.
//!
//! Convention: every token function skips the whitespace and comments *before* its
//! token, so a node's span starts at its first token. Functions return nom's
//! `Err::Error` when the token is simply not there (alternatives may be tried) and
//! `Err::Failure` for malformed text (an unterminated comment or string).

use super::{PError, PResult, Parser};
use crate::syntax::ast::{Ident, StringLit, Text};
use crate::syntax::span::Span;
use nom::Err;

/// Modelica's reserved words (Modelica Language Spec. 3.6 §2.3.3), which are not identifiers.
/// `der`, `initial` and `pure` are reserved but also name built-in calls; see `expr.rs`.
pub(crate) fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "algorithm"
            | "and"
            | "annotation"
            | "block"
            | "break"
            | "class"
            | "connect"
            | "connector"
            | "constant"
            | "constrainedby"
            | "der"
            | "discrete"
            | "each"
            | "else"
            | "elseif"
            | "elsewhen"
            | "encapsulated"
            | "end"
            | "enumeration"
            | "equation"
            | "expandable"
            | "extends"
            | "external"
            | "false"
            | "final"
            | "flow"
            | "for"
            | "function"
            | "if"
            | "import"
            | "impure"
            | "in"
            | "initial"
            | "inner"
            | "input"
            | "loop"
            | "model"
            | "not"
            | "operator"
            | "or"
            | "outer"
            | "output"
            | "package"
            | "parameter"
            | "partial"
            | "protected"
            | "public"
            | "pure"
            | "record"
            | "redeclare"
            | "replaceable"
            | "return"
            | "stream"
            | "then"
            | "true"
            | "type"
            | "when"
            | "while"
            | "within"
    )
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

impl<'s> Parser<'s> {
    /// Skips white space, `// …` and `/* … */` comments.
    pub(crate) fn ws(&self, mut i: &'s str) -> PResult<'s, ()> {
        loop {
            let b = i.as_bytes();
            match b.first() {
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') => {
                    let n = b.iter().take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')).count();
                    i = &i[n..];
                }
                Some(b'/') if b.get(1) == Some(&b'/') => {
                    let n = i.find('\n').unwrap_or(i.len());
                    i = &i[n..];
                }
                Some(b'/') if b.get(1) == Some(&b'*') => match i[2..].find("*/") {
                    Some(n) => i = &i[n + 4..],
                    None => return Err(Err::Failure(PError::unterminated(i, "comment `/*` is never closed"))),
                },
                _ => return Ok((i, ())),
            }
        }
    }

    /// Byte offset of the start of `i` in the source.
    pub(crate) fn pos(&self, i: &str) -> usize {
        self.src.len() - i.len()
    }

    pub(crate) fn span_from(&self, start: usize, rest: &str) -> Span {
        Span::new(start, self.pos(rest))
    }

    /// The word at the start of `i` (after trivia), if any: a keyword or identifier.
    pub(crate) fn peek_word(&self, i: &'s str) -> Result<&'s str, Err<PError>> {
        let (i, ()) = self.ws(i)?;
        let b = i.as_bytes();
        if b.first().is_some_and(|&c| is_ident_start(c)) {
            let n = b.iter().take_while(|&&c| is_ident_char(c)).count();
            Ok(&i[..n])
        } else {
            Ok("")
        }
    }

    /// True if the next token is the keyword `k`.
    pub(crate) fn at_kw(&self, i: &'s str, k: &str) -> Result<bool, Err<PError>> {
        Ok(self.peek_word(i)? == k)
    }

    /// The keyword `k`, returning its span.
    pub(crate) fn kw(&self, i: &'s str, k: &'static str) -> PResult<'s, Span> {
        let (i, ()) = self.ws(i)?;
        let b = i.as_bytes();
        if i.starts_with(k) && !b.get(k.len()).is_some_and(|&c| is_ident_char(c)) {
            let start = self.pos(i);
            Ok((&i[k.len()..], Span::new(start, start + k.len())))
        } else {
            Err(Err::Error(PError::expected(i, k, true)))
        }
    }

    /// The keyword `k`, or a located failure.
    pub(crate) fn expect_kw(&self, i: &'s str, k: &'static str) -> PResult<'s, Span> {
        self.kw(i, k).map_err(cut)
    }

    /// The punctuation `p` (`;`, `(`, `:=` …).
    pub(crate) fn sym(&self, i: &'s str, p: &'static str) -> PResult<'s, Span> {
        let (i, ()) = self.ws(i)?;
        match i.strip_prefix(p) {
            Some(rest) => {
                let start = self.pos(i);
                Ok((rest, Span::new(start, start + p.len())))
            }
            None => Err(Err::Error(PError::expected(i, p, true))),
        }
    }

    pub(crate) fn expect_sym(&self, i: &'s str, p: &'static str) -> PResult<'s, Span> {
        self.sym(i, p).map_err(cut)
    }

    /// True if the next token starts with `p`.
    pub(crate) fn at_sym(&self, i: &'s str, p: &str) -> Result<bool, Err<PError>> {
        let (i, ()) = self.ws(i)?;
        Ok(i.starts_with(p))
    }

    /// One identifier: `IDENT` (with omc's `$`) or `Q-IDENT`; keywords are not identifiers.
    pub(crate) fn ident(&self, i: &'s str) -> PResult<'s, Ident> {
        let (i, ()) = self.ws(i)?;
        let (rest, text) = self.ident_text(i)?;
        let start = self.pos(i);
        Ok((rest, Ident { text: Text::from(text), span: Span::new(start, start + text.len()) }))
    }

    fn ident_text(&self, i: &'s str) -> PResult<'s, &'s str> {
        let b = i.as_bytes();
        match b.first() {
            Some(&c) if is_ident_start(c) => {
                let n = b.iter().take_while(|&&c| is_ident_char(c)).count();
                if is_keyword(&i[..n]) {
                    Err(Err::Error(PError::expected(i, "an identifier", false)))
                } else {
                    Ok((&i[n..], &i[..n]))
                }
            }
            Some(b'\'') => {
                let mut k = 1;
                loop {
                    match b.get(k) {
                        None => return Err(Err::Failure(PError::unterminated(i, "quoted identifier is never closed"))),
                        // Q-IDENT has no line break, tab or other control character
                        // (Modelica 3.6 §2.3.1, Q-CHAR), not even after a backslash.
                        Some(&c) if c.is_ascii_control() => return Err(Err::Failure(control_in_quoted(&i[k..]))),
                        Some(b'\\') if b.get(k + 1).is_some_and(u8::is_ascii_control) => {
                            return Err(Err::Failure(control_in_quoted(&i[k + 1..])));
                        }
                        Some(b'\\') => k += 2,
                        Some(b'\'') => break,
                        Some(_) => k += 1,
                    }
                }
                if k == 1 {
                    return Err(Err::Failure(PError::expected(i, "a non-empty quoted identifier", false)));
                }
                Ok((&i[k + 1..], &i[..k + 1]))
            }
            _ => Err(Err::Error(PError::expected(i, "an identifier", false))),
        }
    }

    /// A dotted name `A.B.c` (optionally with a leading `.`), kept as one [`Ident`].
    pub(crate) fn name(&self, i: &'s str) -> PResult<'s, Ident> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let mut rest = i
            .strip_prefix('.')
            .filter(|r| r.as_bytes().first().is_some_and(|&c| is_ident_start(c) || c == b'\''))
            .unwrap_or(i);
        let (r, _) = self.ident_text(rest)?;
        rest = r;
        while let Some(r) = rest.strip_prefix('.') {
            match self.ident_text(r) {
                Ok((r2, _)) => rest = r2,
                Err(Err::Error(_)) => break,
                Err(e) => return Err(e),
            }
        }
        let text = &i[..i.len() - rest.len()];
        Ok((rest, Ident { text: Text::from(text), span: Span::new(start, start + text.len()) }))
    }

    /// An unsigned number (`1`, `2.5`, `1.`, `1e-06`), returned as written.
    pub(crate) fn number(&self, i: &'s str) -> PResult<'s, &'s str> {
        let b = i.as_bytes();
        let digits = |k: usize| b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut k = digits(0);
        if k == 0 {
            return Err(Err::Error(PError::expected(i, "a number", false)));
        }
        if b.get(k) == Some(&b'.') && !b.get(k + 1).is_some_and(|&c| matches!(c, b'*' | b'/' | b'^' | b'+' | b'-')) {
            k += 1;
            k += digits(k);
        }
        if matches!(b.get(k), Some(b'e' | b'E')) {
            let mut m = k + 1;
            if matches!(b.get(m), Some(b'+' | b'-')) {
                m += 1;
            }
            let d = digits(m);
            if d == 0 {
                return Err(Err::Failure(PError::expected(&i[m..], "digits of the exponent", false)));
            }
            k = m + d;
        }
        Ok((&i[k..], &i[..k]))
    }

    /// A string literal `"…"` (escapes kept as written).
    pub(crate) fn string(&self, i: &'s str) -> PResult<'s, StringLit> {
        let (i, ()) = self.ws(i)?;
        let b = i.as_bytes();
        if b.first() != Some(&b'"') {
            return Err(Err::Error(PError::expected(i, "a string", false)));
        }
        let mut k = 1;
        loop {
            match b.get(k) {
                None => return Err(Err::Failure(PError::unterminated(i, "string literal is never closed"))),
                Some(b'\\') => k += 2,
                Some(b'"') => break,
                Some(_) => k += 1,
            }
        }
        let start = self.pos(i);
        let raw = &i[1..k];
        Ok((&i[k + 1..], StringLit { raw: raw.into(), span: Span::new(start, start + k + 1) }))
    }

    /// `"a" + "b" + …` — a description string.
    pub(crate) fn string_comment(&self, mut i: &'s str) -> PResult<'s, Box<[StringLit]>> {
        let mut out = Vec::new();
        match self.string(i) {
            Ok((r, s)) => {
                out.push(s);
                i = r;
            }
            Err(Err::Error(_)) => return Ok((i, Box::default())),
            Err(e) => return Err(e),
        }
        while let Ok((r, _)) = self.sym(i, "+") {
            let (r, s) = self.string(r).map_err(cut)?;
            out.push(s);
            i = r;
        }
        Ok((i, out.into_boxed_slice()))
    }

    /// `item {, item}`: a missing comma ends the list, a malformed item is an error.
    pub(crate) fn comma_list<T>(&self, i: &'s str, item: impl FnMut(&'s str) -> PResult<'s, T>) -> PResult<'s, Vec<T>> {
        self.separated(i, ",", item)
    }

    /// `item {sep item}` (nom's `separated_list1`), without spare capacity (the list
    /// is stored in the AST as it is).
    pub(crate) fn separated<T>(
        &self,
        i: &'s str,
        sep: &'static str,
        item: impl FnMut(&'s str) -> PResult<'s, T>,
    ) -> PResult<'s, Vec<T>> {
        use nom::Parser as _;
        let (i, mut list) = nom::multi::separated_list1(|i| self.sym(i, sep), item).parse(i)?;
        list.shrink_to_fit();
        Ok((i, list))
    }

    /// The input after trivia (to place an error on the next token).
    pub(crate) fn skip(&self, i: &'s str) -> Result<&'s str, Err<PError>> {
        Ok(self.ws(i)?.0)
    }
}

/// A control character (a line break, a tab…) inside a quoted identifier, at the start of `i`.
fn control_in_quoted(i: &str) -> PError {
    PError::other(
        i,
        "a quoted identifier cannot contain a line break or another control character (Q-IDENT, \
         Modelica 3.6 §2.3.1); write it as an escape such as `\\n`"
            .into(),
    )
}

/// Turns a recoverable error into a failure: the production is committed.
pub(crate) fn cut(e: Err<PError>) -> Err<PError> {
    match e {
        Err::Error(e) => Err::Failure(e),
        other => other,
    }
}
