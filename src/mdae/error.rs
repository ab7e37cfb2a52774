//! [`LowerError`]: why a parsed model cannot become an mDAE (an unsupported construct,
//! refused by name, or an ill-formed multimode equation), with its span.

use crate::syntax::SourceFile;
use crate::syntax::Span;
use crate::syntax::error::{render_located, short_located};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LowerError {
    pub span: Span,
    pub message: String,
}

impl LowerError {
    pub fn new(span: Span, message: impl Into<String>) -> LowerError {
        LowerError { span, message: message.into() }
    }

    /// `file:line:column: error: message`.
    pub fn short(&self, file: &SourceFile) -> String {
        short_located(file, self.span, &self.message)
    }

    /// The short form, then the source line with a caret.
    pub fn render(&self, file: &SourceFile) -> String {
        render_located(file, self.span, &self.message, "E-mdae")
    }
}
