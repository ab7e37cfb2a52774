//! [`FlatError`]: why a parsed model cannot be read as a flat model (an unsupported construct
//! or an ill-formed array or record equation, refused by name), with its span.

use crate::syntax::SourceFile;
use crate::syntax::Span;
use crate::syntax::error::{render_located, short_located};

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
        short_located(file, self.span, &self.message)
    }

    /// The short form, then the source line with a caret.
    pub fn render(&self, file: &SourceFile) -> String {
        render_located(file, self.span, &self.message, "E-flat")
    }
}
