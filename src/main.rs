//! The `mdae-rimis` binary: runs the command line ([`driver::cli_main`]: arguments,
//! the job, diagnostics to stderr) and exits with its code.
//!
//! Allocation: mimalloc. The analysis's BDD library allocates its tables on every
//! operation (millions of short-lived vectors and hash maps on the Westinghouse brake at
//! N = 1000); glibc's malloc/free were a fifth of the run (issue 32).

use mdae_rimis::driver;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(driver::cli_main(std::env::args_os()));
}
