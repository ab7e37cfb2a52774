//! Command-line arguments (clap).

use clap::{Parser, ValueEnum};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  mdae-rimis fixtures/WaterTank.mo                 print the RIMIS model (the main job)
  mdae-rimis --emit canonical flat.mo              print the canonical form, untransformed
  mdae-rimis --out-dir fixed/ models/              transform every .mo under models/
  omc -i=WaterTank WaterTank.mo | mdae-rimis -     read the model from stdin
  mdae-rimis flat.mo -o fixed.mo                   write atomically to fixed.mo
  mdae-rimis --check fixtures/WaterTank.mo         multimode structural analysis report
  mdae-rimis --report json flat.mo > cdg.json      the same as JSON
  mdae-rimis --check --dot cdg.dot flat.mo         also write the CDG for Graphviz

Output (-o FILE): written atomically (a temporary file renamed over FILE), so FILE is
either the complete new result or untouched; a new FILE gets the usual mode of a new
file (the umask's), an existing FILE keeps its mode. When the input is rejected nothing
is written. The analysis reports (--check, --report, --dot) are the diagnosis of a
structurally singular model: for one they are still written, and the exit code is 1.

Exit codes: 0 success, 1 input rejected (syntax error, unsupported construct, invalid
model, structurally singular model), 2 usage or I/O error. Diagnostics go to stderr only.";

/// Exact multimode structural analysis and RIMIS transformation of flattened Modelica.
#[derive(Debug, Parser)]
#[command(name = "mdae-rimis", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// The flattened Modelica file (omc -i output, Base Modelica or a single-class
    /// model); `-` or nothing reads stdin. With --out-dir: files and folders.
    #[arg(value_name = "FILE")]
    pub paths: Vec<PathBuf>,

    /// Batch mode: transform every `.mo` file of the PATHs (folders walked, symbolic links
    /// followed) into DIR, mirroring their folders (PATH/a/m.mo -> DIR/a/m.mo); one line per
    /// file, unreadable ones included, and a summary; exit 1 if any failed. Two inputs with
    /// one output, an output replacing an input, or DIR inside an input folder: exit 2, nothing
    /// written.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Write the result to this file, atomically (see "Output" below): a rejected input
    /// leaves it untouched.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// What to print.
    #[arg(long, value_enum, default_value_t = Emit::Rimis)]
    pub emit: Emit,

    /// Run the multimode structural analysis and print a readable report (with --report
    /// json, the JSON alone is printed).
    #[arg(long)]
    pub check: bool,

    /// Run the multimode structural analysis and print this report to stdout.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub report: Option<Report>,

    /// Run the multimode structural analysis and write the conditional dependency graph
    /// (Graphviz dot) to FILE.
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,

    /// How the analysis covers the modes: all at once with BDDs (implicit), one mode at a
    /// time (explicit), or the faster of the two for this model (auto).
    #[arg(long, value_enum, default_value_t = StrategyArg::Auto)]
    pub strategy: StrategyArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Report {
    /// The JSON schema of the README.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    Implicit,
    Explicit,
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The RIMIS model: the input rewritten so that every mode simulates (paper 000 §4).
    Rimis,
    /// The canonical form of the input, untransformed.
    Canonical,
}

impl Cli {
    /// The single input file (`None`: stdin).
    pub fn file(&self) -> Option<&std::path::Path> {
        self.paths.first().map(PathBuf::as_path)
    }
}
