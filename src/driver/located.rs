//! Diagnostics as data: file, line, column, code, severity and message of every error a
//! run stops with ([`DriverError::located`]) and of every warning and note the main job
//! finds ([`Findings::located`]) — what the Python API (`python/`) raises and returns. The
//! text the command line prints is unchanged ([`DriverError::render`]).

use super::{DriverError, Findings};
use crate::syntax::{SourceFile, Span};
use crate::validate::{Diagnostic, Severity};

/// One diagnostic. `line` and `column` are 1-based, absent where the finding concerns the
/// whole run (an I/O error, a usage error, a rewrite's note).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Located {
    pub file: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The stage's code: `E-syntax`, `V-…` (the validation's kinds), `E-mdae`, `E-analysis`,
    /// `E-rimis`, `E-singular`, `E-io`, `E-usage`; `W-rimis` and `N-rimis` for the rewrite's
    /// warnings and notes.
    pub code: String,
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    pub message: String,
}

impl Located {
    fn at(file: &SourceFile, span: Span, code: &str, severity: &'static str, message: String) -> Located {
        let (line, column) = file.line_col(span.start as usize);
        Located {
            file: file.name.clone(),
            line: Some(line as u32),
            column: Some(column as u32),
            code: code.to_string(),
            severity,
            message,
        }
    }

    fn unlocated(file: &str, code: &str, severity: &'static str, message: String) -> Located {
        Located { file: file.to_string(), line: None, column: None, code: code.to_string(), severity, message }
    }

    fn of_validation(file: &SourceFile, d: &Diagnostic) -> Located {
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        Located::at(file, d.span, d.kind.code(), severity, d.message.clone())
    }

    /// `file:line:column: severity: message`, the first line of the command line's diagnostic.
    pub fn short(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}: {}: {}", self.file, self.severity, self.message),
            _ => format!("{}: {}: {}", self.file, self.severity, self.message),
        }
    }
}

impl DriverError {
    /// The error as located diagnostics, in source order (several for a model the
    /// validation refuses). `name` names the input where the error has no file of its own.
    pub fn located(&self, name: &str) -> Vec<Located> {
        match self {
            DriverError::Syntax { file, error } => {
                vec![Located::at(file, error.span, "E-syntax", "error", error.message(&file.text))]
            }
            DriverError::Invalid { file, errors } => errors.iter().map(|d| Located::of_validation(file, d)).collect(),
            DriverError::Lower { file, error } => {
                vec![Located::at(file, error.span, "E-mdae", "error", error.message.clone())]
            }
            DriverError::Rimis { file, error } => {
                vec![Located::at(file, error.span, "E-rimis", "error", error.message.clone())]
            }
            DriverError::Analysis { file, at, error } => vec![Located {
                file: file.clone(),
                line: at.map(|a| a.0),
                column: at.map(|a| a.1),
                code: "E-analysis".into(),
                severity: "error",
                message: format!("{error}{}", super::analysis_hint(error)),
            }],
            DriverError::Singular(message) => {
                vec![Located::unlocated(name, "E-singular", "error", message.trim_end().to_string())]
            }
            DriverError::Io { path, source } => vec![Located::unlocated(path, "E-io", "error", source.to_string())],
            DriverError::Usage(message) => vec![Located::unlocated(name, "E-usage", "error", message.clone())],
        }
    }
}

impl Findings {
    /// The validation's warnings (located), then the rewrite's warnings and notes.
    pub fn located(&self, file: &SourceFile) -> Vec<Located> {
        let validation = self.validation.iter().map(|d| Located::of_validation(file, d));
        let warnings = self.warnings.iter().map(|w| Located::unlocated(&file.name, "W-rimis", "warning", w.clone()));
        let notes = self.notes.iter().map(|n| Located::unlocated(&file.name, "N-rimis", "note", n.clone()));
        validation.chain(warnings).chain(notes).collect()
    }
}
