//! The `mdae-rimis` binary: parses arguments, runs the driver, prints diagnostics
//! to stderr and maps errors to exit codes.

use clap::Parser;
use mdae_rimis::driver::{self, Cli};

fn main() {
    let cli = Cli::parse();
    let code = match driver::run(&cli) {
        Ok(()) => 0,
        Err(e) => {
            eprint!("{}", e.render());
            e.exit_code()
        }
    };
    std::process::exit(code);
}
