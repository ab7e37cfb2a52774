//! [`FlatError`]: why a parsed model cannot be read as a flat model (an unsupported construct
//! or an ill-formed array or record equation, refused by name), with its span.

use crate::syntax::SourceFile;
use crate::syntax::Span;
use crate::syntax::error::render_snippet;
use codespan_reporting::diagnostic::{Diagnostic, Label};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FlatError {
    pub span: Span,
    pub message: String,
}

impl FlatError {
    pub fn new(span: Span, message: impl Into<String>) -> FlatError {
        FlatError { span, message: message.into() }
    }

    /// `file:line:column: error: message`.
    pub fn short(&self, file: &SourceFile) -> String {
        let (l, c) = file.line_col(self.span.start as usize);
        format!("{}:{l}:{c}: error: {}", file.name, self.message)
    }

    /// The short form, then the source line with a caret.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = self.short(file);
        out.push('\n');
        let diag = Diagnostic::error()
            .with_message(&self.message)
            .with_code("E-flat")
            .with_labels(vec![Label::primary((), self.span.range()).with_message("here")]);
        out.push_str(&render_snippet(file, &diag));
        out
    }
}
