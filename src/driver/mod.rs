//! The command-line job: read the input (file or stdin), run the requested stage,
//! write the result (stdout, or atomically to `-o`). Owns [`Cli`] (clap) and
//! [`DriverError`] with its exit code; `main.rs` only parses and maps.

mod cli;
mod output;

pub use cli::{Cli, Emit};

use crate::syntax::{self, SourceFile, Span, SyntaxError, SyntaxErrorKind};
use std::io::Read;

/// Everything that stops a run, with its exit code.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{}", .error.short(.file))]
    Syntax { file: Box<SourceFile>, error: SyntaxError },
    #[error("{0}")]
    Usage(String),
}

impl DriverError {
    /// 1: the input is rejected; 2: usage or I/O error.
    pub fn exit_code(&self) -> i32 {
        match self {
            DriverError::Syntax { .. } => 1,
            DriverError::Io { .. } | DriverError::Usage(_) => 2,
        }
    }

    /// The diagnostic for stderr, with source context where there is a source.
    pub fn render(&self) -> String {
        match self {
            DriverError::Syntax { file, error } => error.render(file),
            other => format!("error: {other}\n"),
        }
    }
}

/// Runs the job described by `cli`; on success the result has been written.
pub fn run(cli: &Cli) -> Result<(), DriverError> {
    let file = read_input(cli.file.as_deref())?;
    let out = match cli.emit {
        Emit::Canonical => canonical(&file)?,
    };
    output::write(cli.output.as_deref(), &out)
}

/// Parses and prints the canonical form.
pub fn canonical(file: &SourceFile) -> Result<String, DriverError> {
    let rejected = |error| DriverError::Syntax { file: Box::new(file.clone()), error };
    let def = syntax::parse(&file.text).map_err(rejected)?;
    syntax::check::refuse_unsupported(&def).map_err(rejected)?;
    Ok(syntax::print(&def))
}

/// Reads FILE, or stdin for `-` or no FILE. Invalid UTF-8 is a located syntax error.
pub fn read_input(path: Option<&std::path::Path>) -> Result<SourceFile, DriverError> {
    let (name, bytes) = match path {
        None => read_stdin()?,
        Some(p) if p.as_os_str() == "-" => read_stdin()?,
        Some(p) => {
            let name = p.display().to_string();
            let bytes = std::fs::read(p).map_err(|source| DriverError::Io { path: name.clone(), source })?;
            (name, bytes)
        }
    };
    source_from_bytes(name, bytes)
}

fn read_stdin() -> Result<(String, Vec<u8>), DriverError> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|source| DriverError::Io { path: "<stdin>".into(), source })?;
    Ok(("<stdin>".into(), bytes))
}

/// Decodes UTF-8; on failure the error points at the first invalid byte.
pub fn source_from_bytes(name: String, bytes: Vec<u8>) -> Result<SourceFile, DriverError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile::new(name, text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let error = SyntaxError { span: Span::new(at, at + 1), kind: SyntaxErrorKind::NotUtf8 };
            Err(DriverError::Syntax { file: Box::new(SourceFile::new(name, text)), error })
        }
    }
}
