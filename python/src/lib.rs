//! The extension module `mdae_rimis._native` (PyO3) behind the Python package
//! (`python/mdae_rimis/`): the driver's entry points on a text — the main job
//! ([`driver::rewrite`]), the `--report json` report ([`driver::report`]), the canonical form
//! and the CDG as Graphviz dot — and the command line ([`driver::cli_main`]) for the
//! `mdae-rimis` command the wheel installs. Each call is independent (no state between
//! calls); the GIL is released while the pipeline runs, on a thread of its own with the
//! stack the pipeline is written for. Errors raise `NativeError(text, diagnostics)`: the
//! command line's rendering and the located diagnostics as JSON, which the Python layer
//! turns into `MdaeRimisError`.

use mdae_rimis::analysis::Strategy;
use mdae_rimis::driver::{self, DriverError, Located};
use mdae_rimis::syntax::SourceFile;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

/// The command's allocator (`src/main.rs`): the analysis allocates per BDD operation.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(_native, NativeError, PyException, "A run of mdae-rimis stopped: (rendered text, located diagnostics as JSON).");

/// The stack of the thread each call runs on (the command line's main thread has 8 MiB;
/// the parser and printer run on 64 MiB threads of their own, `syntax::stack`).
const STACK: usize = 64 << 20;

/// Runs `job` on a thread of its own with [`STACK`]; a panic goes on in the caller.
fn on_own_thread<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .name("mdae-rimis".into())
        .stack_size(STACK)
        .spawn(job)
        .expect("cannot start a thread for mdae-rimis");
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn strategy(name: &str) -> PyResult<Strategy> {
    match name {
        "auto" => Ok(Strategy::Auto),
        "implicit" => Ok(Strategy::Implicit),
        "explicit" => Ok(Strategy::Explicit),
        other => Err(PyValueError::new_err(format!(
            "strategy must be \"auto\", \"implicit\" or \"explicit\", not {other:?}"
        ))),
    }
}

/// A stopped run as the pieces of `NativeError`.
fn failure(e: &DriverError, name: &str) -> (String, String) {
    (e.render(), diagnostics_json(&e.located(name)))
}

fn diagnostics_json(d: &[Located]) -> String {
    serde_json::to_string(d).expect("diagnostics serialise")
}

fn raise<T>(r: Result<T, (String, String)>) -> PyResult<T> {
    r.map_err(|(text, json)| NativeError::new_err((text, json)))
}

/// Runs `job` on the file `name` with `text`, the GIL released, on a thread of its own;
/// its error raises `NativeError`.
fn on_text<T: Send + 'static>(
    py: Python<'_>,
    text: String,
    name: String,
    job: impl FnOnce(&SourceFile) -> Result<T, DriverError> + Send + 'static,
) -> PyResult<T> {
    raise(py.detach(move || {
        on_own_thread(move || {
            let file = SourceFile::new(name.clone(), text);
            job(&file).map_err(|e| failure(&e, &name))
        })
    }))
}

/// The main job on `text`: (the output text, whether the model was changed, the warnings
/// and notes as JSON).
#[pyfunction]
fn rewrite(py: Python<'_>, text: String, name: String, strategy: &str) -> PyResult<(String, bool, String)> {
    let strategy = self::strategy(strategy)?;
    on_text(py, text, name, move |file| {
        let (out, found) = driver::rewrite(file, strategy)?;
        let located = found.located(file);
        Ok((out.text(), found.changed, diagnostics_json(&located)))
    })
}

/// The `--report json` report of `text` as JSON, and the message of its structurally
/// singular modes (what `--check` exits 1 with), if any.
#[pyfunction]
fn check(py: Python<'_>, text: String, name: String, strategy: &str) -> PyResult<(String, Option<String>)> {
    let strategy = self::strategy(strategy)?;
    on_text(py, text, name, move |file| {
        let (report, message) = driver::report(file, strategy)?;
        Ok((serde_json::to_string(&report).expect("the report serialises"), message))
    })
}

/// The canonical form of `text` (`--emit canonical`).
#[pyfunction]
fn canonical(py: Python<'_>, text: String, name: String) -> PyResult<String> {
    on_text(py, text, name, driver::canonical)
}

/// The conditional dependency graph of `text` as Graphviz dot (`--dot`).
#[pyfunction]
fn dot(py: Python<'_>, text: String, name: String, strategy: &str) -> PyResult<String> {
    let strategy = self::strategy(strategy)?;
    on_text(py, text, name, move |file| driver::dot(file, strategy))
}

/// The command line on `argv` (the program's name first); returns its exit code. Prints
/// to the process's stdout and stderr as the binary does.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(move || on_own_thread(move || driver::cli_main(argv)))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rewrite, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(canonical, m)?)?;
    m.add_function(wrap_pyfunction!(dot, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
