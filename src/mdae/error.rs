//! [`LowerError`]: why a parsed model cannot become an mDAE (an unsupported construct,
//! refused by name, or an ill-formed multimode equation), with its span.

use crate::syntax::SourceFile;
use crate::syntax::Span;
use crate::syntax::error::render_snippet;
use codespan_reporting::diagnostic::{Diagnostic, Label};

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
        let (l, c) = file.line_col(self.span.start as usize);
        format!("{}:{l}:{c}: error: {}", file.name, self.message)
    }

    /// The short form, then the source line with a caret.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = self.short(file);
        out.push('\n');
        let diag = Diagnostic::error()
            .with_message(&self.message)
            .with_code("E-mdae")
            .with_labels(vec![Label::primary((), self.span.range()).with_message("here")]);
        out.push_str(&render_snippet(file, &diag));
        out
    }
}
