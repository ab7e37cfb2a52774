//! Parses every file of `../shared/corpus/{omc-flat,msl-flat}` and round-trips it
//! through the printer: `parse(print(parse(f))) == parse(f)` modulo spans, and the
//! printer is a fixpoint (`print(parse(print(ast))) == print(ast)`). All of them: omc's
//! own notations that are not Modelica (`f<function>(#Real u) => #Real`, `function
//! f(#(p))`, `return e;`, `stateMachine`) are read too.

mod common;

use mdae_rimis::syntax;
use std::path::{Path, PathBuf};

fn corpus_files(dir: &str) -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mo"))
        .collect();
    files.sort();
    Some(files)
}

/// Parses one file, checks its tree (see `common::check_tree`) and that nothing in
/// it is refused.
fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("read: {e}"))?;
    let file = syntax::SourceFile::new(path.display().to_string(), text);
    let ast = syntax::parse(&file.text).map_err(|e| format!("parse: {}", e.short(&file)))?;
    syntax::check::refuse_unsupported(&ast).map_err(|e| format!("refused: {}", e.short(&file)))?;
    common::check_tree(ast, &file.text).map(drop)
}

fn run_corpus(dir: &str) {
    let Some(files) = corpus_files(dir) else {
        println!("skipped: ../shared/corpus/{dir} not found");
        return;
    };
    let total = files.len();
    let (ok, failures): (usize, Vec<String>) = common::in_big_thread(move || {
        let mut ok = 0;
        let mut failures = Vec::new();
        for p in &files {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            match check_file(p) {
                Ok(()) => ok += 1,
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        (ok, failures)
    });
    println!("corpus {dir}: {ok}/{total} files parse and round-trip");
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} of {total} files failed in {dir}", failures.len());
}

#[test]
fn omc_flat_corpus_round_trips() {
    run_corpus("omc-flat");
}

#[test]
fn msl_flat_corpus_round_trips() {
    run_corpus("msl-flat");
}
