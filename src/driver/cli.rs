//! Command-line arguments (clap).

use clap::{Parser, ValueEnum};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  mdae-rimis fixtures/WaterTank.mo                 print the canonical form
  omc -i=WaterTank WaterTank.mo | mdae-rimis -     read the model from stdin
  mdae-rimis flat.mo -o fixed.mo                   write atomically to fixed.mo

Exit codes: 0 success, 1 input rejected (syntax error, unsupported construct),
2 usage or I/O error. Diagnostics go to stderr only.";

/// Exact multimode structural analysis and RIMIS transformation of flattened Modelica.
#[derive(Debug, Parser)]
#[command(name = "mdae-rimis", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// The flattened Modelica file (omc -i output, Base Modelica or a single-class
    /// model); `-` or nothing reads stdin.
    pub file: Option<PathBuf>,

    /// Write the result to this file (atomically: a failed run leaves no file).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// What to print.
    #[arg(long, value_enum, default_value_t = Emit::Canonical)]
    pub emit: Emit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The canonical form of the input, untransformed.
    Canonical,
}
