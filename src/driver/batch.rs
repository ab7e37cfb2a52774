//! Batch mode, `--out-dir DIR PATH…`: every `.mo` file under the PATHs is transformed
//! into DIR; one line per file (`ok`, or `failed` with the first line of the error) and a
//! summary; exit 1 if any failed.
//!
//! Contract (issue 16): no input is lost and no file is clobbered.
//! - Folders are walked in sorted order, symbolic links followed (a link that leads back to
//!   one of its own folders is a `failed` line, as is a dangling link); a file or folder that
//!   cannot be read gets its own `failed` line and the batch goes on. A file named as a PATH
//!   is taken whatever its extension.
//! - Outputs mirror the inputs: `PATH/a/m.mo` is written to `DIR/a/m.mo`, a file PATH to
//!   `DIR/<its name>`. Two inputs that would be written to the same file, or an output that
//!   would replace an input, stop the batch before anything is written (exit 2), as does an
//!   output folder that is an input folder or inside one.
//! - Each output is written atomically (`output::write`); a failed file writes nothing.
//! - The summary counts every file seen (transformed + failed, a dangling link or an
//!   unreadable file among the failed) and the folders that could not be read.

use super::{Cli, DriverError, read_input, rimis_output, strategy};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// What the walk found.
enum Seen {
    /// A model file and its output path relative to DIR.
    File { path: PathBuf, rel: PathBuf },
    /// A file or folder (`folder`: a folder, or a link to one that loops) that could not be
    /// read or followed, and why.
    Unreadable { path: PathBuf, why: String, folder: bool },
}

pub(super) fn run(cli: &Cli, dir: &Path) -> Result<(), DriverError> {
    if cli.paths.is_empty() {
        return Err(DriverError::Usage("--out-dir needs at least one input file or folder".into()));
    }
    refuse_output_inside_input(dir, &cli.paths)?;
    let seen = dedupe(walk(&cli.paths));
    check_targets(dir, &seen)?;
    std::fs::create_dir_all(dir).map_err(|source| DriverError::Io { path: dir.display().to_string(), source })?;
    let (mut ok, mut failed, mut folders) = (0, 0, 0);
    for item in &seen {
        match item {
            Seen::Unreadable { path, why, folder } => {
                if *folder {
                    folders += 1;
                } else {
                    failed += 1;
                }
                println!("failed  {}: {why}", path.display());
            }
            Seen::File { path, rel } => {
                let target = dir.join(rel);
                match transform(cli, path, &target) {
                    Ok(warnings) => {
                        ok += 1;
                        let suffix = if warnings > 0 { format!(" ({warnings} warnings)") } else { String::new() };
                        println!("ok      {} -> {}{suffix}", path.display(), target.display());
                    }
                    Err(e) => {
                        failed += 1;
                        let first = e.to_string().lines().next().unwrap_or("").to_string();
                        println!("failed  {}: {first}", path.display());
                    }
                }
            }
        }
    }
    let total = ok + failed;
    let unread = match folders {
        0 => String::new(),
        1 => "; 1 folder not read".to_string(),
        n => format!("; {n} folders not read"),
    };
    println!("{total} files: {ok} transformed, {failed} failed{unread}");
    if failed + folders > 0 {
        return Err(DriverError::Singular(format!("{failed} of {total} files failed{unread}\n")));
    }
    Ok(())
}

/// Transforms one file into `target` (its folder created); the number of warnings.
fn transform(cli: &Cli, path: &Path, target: &Path) -> Result<usize, DriverError> {
    let file = read_input(Some(path))?;
    let (out, messages) = rimis_output(&file, strategy(cli))?;
    drop(file);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|source| DriverError::Io { path: parent.display().to_string(), source })?;
    }
    out.write(Some(target))?;
    Ok(messages.iter().filter(|m| m.contains(": warning: ")).count())
}

/// Every model file under `paths` (links followed, sorted), and every entry that could not
/// be read. Inside folders only `.mo` files count; a PATH that is a file always does.
fn walk(paths: &[PathBuf]) -> Vec<Seen> {
    let mut out = Vec::new();
    for root in paths {
        for entry in WalkDir::new(root).follow_links(true).sort_by_file_name() {
            match entry {
                Ok(e) if e.file_type().is_dir() => {}
                Ok(e) => {
                    let named = e.depth() == 0;
                    if !named && !is_model(e.path()) {
                        continue;
                    }
                    let rel = if named {
                        PathBuf::from(e.path().file_name().unwrap_or(e.path().as_os_str()))
                    } else {
                        e.path().strip_prefix(root).unwrap_or(e.path()).to_path_buf()
                    };
                    out.push(Seen::File { path: e.path().to_path_buf(), rel });
                }
                Err(err) => {
                    let path = err.path().unwrap_or(root).to_path_buf();
                    // A dangling link or an unreadable file that is no model is not an input.
                    if err.depth() > 0 && err.loop_ancestor().is_none() && !path.is_dir() && !is_model(&path) {
                        continue;
                    }
                    let folder = err.loop_ancestor().is_some() || path.is_dir();
                    out.push(Seen::Unreadable { why: describe(&err, &path), path, folder });
                }
            }
        }
    }
    out
}

/// Drops a file met again with the same output (a PATH given twice, or a file named
/// beside its folder): it is one input.
fn dedupe(seen: Vec<Seen>) -> Vec<Seen> {
    let mut met = std::collections::BTreeSet::new();
    seen.into_iter()
        .filter(|item| match item {
            Seen::File { path, rel } => met.insert((absolute(path), rel.clone())),
            Seen::Unreadable { .. } => true,
        })
        .collect()
}

fn is_model(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "mo")
}

fn describe(err: &walkdir::Error, path: &Path) -> String {
    if let Some(ancestor) = err.loop_ancestor() {
        return format!("symbolic link loop: it leads back to {}", ancestor.display());
    }
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match err.io_error() {
        Some(io) if link && io.kind() == std::io::ErrorKind::NotFound => "dangling symbolic link".to_string(),
        Some(io) if path.is_dir() => format!("cannot read folder: {io}"),
        Some(io) => format!("cannot read: {io}"),
        None => err.to_string(),
    }
}

/// Refuses DIR when it is one of the input folders or inside one: its outputs would be
/// read back as inputs, and `--out-dir D D` would replace them.
fn refuse_output_inside_input(dir: &Path, paths: &[PathBuf]) -> Result<(), DriverError> {
    let out = absolute(dir);
    for p in paths.iter().filter(|p| p.is_dir()) {
        let input = absolute(p);
        if out.starts_with(&input) {
            let what = if out == input { "is" } else { "is inside" };
            return Err(DriverError::Usage(format!(
                "the output folder {} {what} the input folder {}: its outputs would replace or join the inputs; \
                 choose an output folder outside the inputs",
                dir.display(),
                p.display()
            )));
        }
    }
    Ok(())
}

/// Refuses, before anything is written, two inputs with the same output file and an
/// output that would replace an input.
fn check_targets(dir: &Path, seen: &[Seen]) -> Result<(), DriverError> {
    let mut inputs: BTreeMap<PathBuf, &Path> = BTreeMap::new();
    for item in seen {
        if let Seen::File { path, .. } = item {
            inputs.entry(absolute(path)).or_insert(path);
        }
    }
    let mut targets: BTreeMap<&Path, &Path> = BTreeMap::new();
    for item in seen {
        let Seen::File { path, rel } = item else { continue };
        if let Some(first) = targets.insert(rel, path) {
            return Err(DriverError::Usage(format!(
                "{} and {} would both be written to {}; transform them in separate runs",
                first.display(),
                path.display(),
                dir.join(rel).display()
            )));
        }
        if let Some(input) = inputs.get(&absolute(&dir.join(rel))) {
            return Err(DriverError::Usage(format!(
                "the output of {} would replace the input {}; choose another output folder",
                path.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// `p` made absolute with its links resolved, as far as it exists (an output folder may
/// not exist yet: its existing ancestor is resolved and the rest appended).
fn absolute(p: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = p;
    loop {
        let probe = if at.as_os_str().is_empty() { Path::new(".") } else { at };
        if let Ok(mut c) = std::fs::canonicalize(probe) {
            c.extend(rest.iter().rev());
            return c;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()),
        }
    }
}
