//! The `mdae-rimis` binary: runs the command line ([`driver::cli_main`]: arguments,
//! the job, diagnostics to stderr) and exits with its code.

use mdae_rimis::driver;

fn main() {
    std::process::exit(driver::cli_main(std::env::args_os()));
}
