//! The validation pass (`src/validate/`): it refuses what is certainly wrong and nothing
//! else.
//!
//! - Conservative: zero errors on every model of `../shared/corpus/omc-flat` and
//!   `../shared/corpus/msl-flat` (1,901 files OpenModelica printed) and on every fixture.

mod common;

use mdae_rimis::syntax::{self, SourceFile};
use mdae_rimis::validate::{self, Severity};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn mo_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "mo")).collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The errors and warnings of the validation of every parsable file of `files`.
fn validate_all(files: &[PathBuf]) -> (usize, Vec<String>, Vec<String>) {
    let (mut checked, mut errors, mut warnings) = (0, Vec::new(), Vec::new());
    for p in files {
        let text = std::fs::read_to_string(p).unwrap();
        let file = SourceFile::new(p.display().to_string(), text);
        let Ok(def) = syntax::parse(&file.text) else { continue };
        checked += 1;
        for d in validate::validate(&def) {
            let line = format!("[{}] {}", d.kind.code(), d.short(&file));
            match d.severity {
                Severity::Error => errors.push(line),
                Severity::Warning => warnings.push(line),
            }
        }
    }
    (checked, errors, warnings)
}

fn summary(lines: &[String]) -> String {
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for l in lines {
        *by_code.entry(l.split(']').next().unwrap_or("")).or_default() += 1;
    }
    format!("{by_code:?}")
}

#[test]
fn no_error_on_any_model_openmodelica_printed_or_any_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in
        ["../shared/corpus/omc-flat", "../shared/corpus/msl-flat", "fixtures", "fixtures/omc-flat", "fixtures/scale"]
    {
        files.extend(mo_files(&root.join(dir)));
    }
    let (checked, errors, warnings) = common::in_big_thread(move || validate_all(&files));
    println!(
        "validated {checked} files: {} errors {}, {} warnings {}",
        errors.len(),
        summary(&errors),
        warnings.len(),
        summary(&warnings)
    );
    for w in &warnings {
        println!("  {w}");
    }
    assert!(errors.is_empty(), "{} errors:\n{}", errors.len(), errors.join("\n"));
}
