//! The syntax stage's error type and its rendering with source context
//! (codespan-reporting): `file:line:column`, the message, the source line and a caret.

use super::span::{SourceFile, Span};
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

#[derive(Debug, Clone, PartialEq)]
pub enum SyntaxErrorKind {
    /// `expected …` (what was found is read off the source when rendering).
    Expected(Expected),
    Unterminated(&'static str),
    TooDeep(&'static str),
    NotUtf8,
    /// A construct the parser reads but mdae-rimis refuses, named.
    Unsupported(&'static str),
    Other(String),
}

/// What the parser expected: a token (printed in backquotes) or a description.
/// Static text, so that failing alternatives allocate nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    Token(&'static str),
    Thing(&'static str),
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Token(t) => write!(f, "`{t}`"),
            Expected::Thing(t) => f.write_str(t),
        }
    }
}

/// One located syntax error.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub span: Span,
    pub kind: SyntaxErrorKind,
}

impl SyntaxError {
    /// The one-line message, e.g. "expected `;`, found `end`".
    pub fn message(&self, src: &str) -> String {
        match &self.kind {
            SyntaxErrorKind::Expected(what) => format!("expected {what}, found {}", describe_found(src, self.span)),
            SyntaxErrorKind::Unterminated(what) => what.to_string(),
            SyntaxErrorKind::TooDeep("expression") => format!(
                "expression too tall: more than {} nested operators (a chain such as `a + b + …` counts each term); split it",
                super::parser::MAX_HEIGHT
            ),
            SyntaxErrorKind::TooDeep(what) => {
                format!("{what} too deep: more than {} levels", super::parser::MAX_DEPTH)
            }
            SyntaxErrorKind::NotUtf8 => "the file is not valid UTF-8".to_string(),
            SyntaxErrorKind::Unsupported(what) => format!("unsupported construct {what}"),
            SyntaxErrorKind::Other(m) => m.clone(),
        }
    }

    fn label(&self) -> &'static str {
        match &self.kind {
            SyntaxErrorKind::Expected(_) => "unexpected here",
            SyntaxErrorKind::Unterminated(_) => "starts here",
            SyntaxErrorKind::TooDeep(_) => "nesting limit reached here",
            SyntaxErrorKind::NotUtf8 => "invalid byte here",
            SyntaxErrorKind::Unsupported(_) => "refused here",
            SyntaxErrorKind::Other(_) => "here",
        }
    }

    /// `file:line:column: message` — the short form.
    pub fn short(&self, file: &SourceFile) -> String {
        let (l, c) = file.line_col(self.span.start as usize);
        format!("{}:{l}:{c}: error: {}", file.name, self.message(&file.text))
    }

    /// The full diagnostic: short form, then the source line with a caret.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = self.short(file);
        out.push('\n');
        let diag = Diagnostic::error()
            .with_message(self.message(&file.text))
            .with_code("E-syntax")
            .with_labels(vec![Label::primary((), self.span.range()).with_message(self.label())]);
        out.push_str(&render_snippet(file, &diag));
        out
    }
}

/// `file:line:column: error: message` for an error of a later stage at `span`.
pub fn short_located(file: &SourceFile, span: Span, message: &str) -> String {
    let (l, c) = file.line_col(span.start as usize);
    format!("{}:{l}:{c}: error: {message}", file.name)
}

/// The short form, then the source line with a caret, under the stage's `code`
/// (`E-flat`, `E-mdae`, `E-rimis`): every located error of the stages after the parser.
pub fn render_located(file: &SourceFile, span: Span, message: &str, code: &str) -> String {
    let mut out = short_located(file, span, message);
    out.push('\n');
    let diag = Diagnostic::error()
        .with_message(message)
        .with_code(code)
        .with_labels(vec![Label::primary((), span.range()).with_message("here")]);
    out.push_str(&render_snippet(file, &diag));
    out
}

/// Renders a codespan diagnostic (no colour) against `file`.
pub fn render_snippet(file: &SourceFile, diag: &Diagnostic<()>) -> String {
    let simple = SimpleFile::new(file.name.as_str(), file.text.as_str());
    let mut buf = String::new();
    let config = Config::default();
    match term::emit_into_string(&config, &simple, diag) {
        Ok(s) => buf.push_str(&s),
        Err(e) => buf.push_str(&format!("(could not render the source: {e})\n")),
    }
    buf
}

/// Names the token at `span` for "found …".
fn describe_found(src: &str, span: Span) -> String {
    let rest = src.get(span.start as usize..).unwrap_or("");
    let tok = src.get(span.range()).unwrap_or("");
    if rest.is_empty() {
        "end of file".into()
    } else if tok.is_empty() {
        format!("`{}`", rest.chars().next().unwrap_or(' '))
    } else if super::parser::is_keyword(tok) {
        format!("keyword `{tok}`")
    } else if tok.as_bytes()[0].is_ascii_digit() {
        format!("number `{tok}`")
    } else if tok.as_bytes()[0].is_ascii_alphabetic() || tok.starts_with(['_', '$']) {
        format!("identifier `{tok}`")
    } else {
        format!("`{tok}`")
    }
}
