//! [`Diagnostic`]: what the validation found, with its kind (a code), its place, the other
//! places involved and a help line; rendered like every other diagnostic of the tool
//! (`file:line:column: error: …`, then the source with labels, codespan-reporting).

use crate::syntax::error::render_snippet;
use crate::syntax::{SourceFile, Span};
use codespan_reporting::diagnostic::{Diagnostic as Codespan, Label};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    /// What omc would only warn about: the model goes on.
    Warning,
}

/// What is wrong, one kind per check (the code names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Two declarations of one name.
    Duplicate,
    /// A built-in name (`time`) declared.
    Builtin,
    /// A name that is neither declared nor a built-in.
    Undeclared,
    /// A called function that is neither defined in the file nor a built-in.
    UndefinedFunction,
    /// `E.c` where the enumeration `E` has no literal `c`.
    NoSuchLiteral,
    /// A condition that is not Boolean, or two sides of different types.
    Type,
    /// A discrete variable defined twice, or both by an equation and by `when`.
    Discrete,
    /// A discrete variable that no equation defines.
    Undefined,
    /// Parameter bindings that depend on themselves.
    Cycle,
    /// The initial system is structurally overdetermined.
    Initial,
}

impl Kind {
    pub fn code(self) -> &'static str {
        match self {
            Kind::Duplicate => "V-duplicate",
            Kind::Builtin => "V-builtin",
            Kind::Undeclared => "V-undeclared",
            Kind::UndefinedFunction => "V-function",
            Kind::NoSuchLiteral => "V-literal",
            Kind::Type => "V-type",
            Kind::Discrete => "V-discrete",
            Kind::Undefined => "V-undefined",
            Kind::Cycle => "V-cycle",
            Kind::Initial => "V-initial",
        }
    }
}

/// One finding of the validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub kind: Kind,
    pub span: Span,
    pub message: String,
    /// Other places involved, each with what it is there.
    pub related: Vec<(Span, String)>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(kind: Kind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, kind, span, message: message.into(), related: Vec::new(), help: None }
    }

    pub fn warning(kind: Kind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(kind, span, message) }
    }

    pub fn with(mut self, span: Span, what: impl Into<String>) -> Diagnostic {
        self.related.push((span, what.into()));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    fn word(&self) -> &'static str {
        match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    /// `file:line:column: error: message`.
    pub fn short(&self, file: &SourceFile) -> String {
        let (l, c) = file.line_col(self.span.start as usize);
        format!("{}:{l}:{c}: {}: {}", file.name, self.word(), self.message)
    }

    /// The short form, then the source with the places involved and the help.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = self.short(file);
        out.push('\n');
        let base = match self.severity {
            Severity::Error => Codespan::error(),
            Severity::Warning => Codespan::warning(),
        };
        let mut labels = vec![Label::primary((), self.span.range()).with_message("here")];
        labels.extend(self.related.iter().map(|(s, what)| Label::secondary((), s.range()).with_message(what)));
        let diag = base
            .with_message(&self.message)
            .with_code(self.kind.code())
            .with_labels(labels)
            .with_notes(self.help.iter().map(|h| format!("help: {h}")).collect());
        out.push_str(&render_snippet(file, &diag));
        out
    }
}
