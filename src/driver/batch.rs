//! Batch mode, `--out-dir DIR PATH…`: every `.mo` file of the paths (folders walked
//! with walkdir, in sorted order) is transformed into DIR under its own file name; one
//! line per file (`ok`, or the first line of the error) and a summary; exit 1 if any
//! failed. A failed file writes nothing.

use super::{Cli, DriverError, output, read_input, rimis, strategy};
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

pub(super) fn run(cli: &Cli, dir: &Path) -> Result<(), DriverError> {
    if cli.paths.is_empty() {
        return Err(DriverError::Usage("--out-dir needs at least one input file or folder".into()));
    }
    std::fs::create_dir_all(dir).map_err(|source| DriverError::Io { path: dir.display().to_string(), source })?;
    let mut files: Vec<PathBuf> = Vec::new();
    for p in &cli.paths {
        for entry in WalkDir::new(p).sort_by_file_name() {
            let entry = entry.map_err(|e| DriverError::Usage(format!("{}: {e}", p.display())))?;
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|x| x == "mo") {
                files.push(entry.into_path());
            }
        }
    }
    let (mut ok, mut failed) = (0, 0);
    for f in &files {
        let result = read_input(Some(f)).and_then(|file| rimis(&file, strategy(cli)));
        let target = dir.join(f.file_name().unwrap_or_default());
        match result.and_then(|(text, messages)| output::write(Some(&target), &text).map(|()| messages)) {
            Ok(messages) => {
                ok += 1;
                let warn = messages.iter().filter(|m| m.contains(": warning: ")).count();
                let suffix = if warn > 0 { format!(" ({warn} warnings)") } else { String::new() };
                println!("ok      {} -> {}{suffix}", f.display(), target.display());
            }
            Err(e) => {
                failed += 1;
                let first = e.to_string().lines().next().unwrap_or("").to_string();
                println!("failed  {}: {first}", f.display());
            }
        }
    }
    println!("{} files: {ok} transformed, {failed} failed", files.len());
    if failed > 0 {
        return Err(DriverError::Singular(format!("{failed} of {} files failed\n", files.len())));
    }
    Ok(())
}
