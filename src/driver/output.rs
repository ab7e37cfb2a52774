//! Writing a result: stdout, or a file written atomically.
//!
//! The `-o FILE` contract (stated once, in `--help` and the README): FILE is either the
//! complete new text or untouched. The text goes to a temporary file in FILE's folder, is
//! flushed to disk, then renamed over FILE. A new FILE gets the mode of any new file
//! (0666 less the umask, as `>` in a shell would give it); an existing FILE keeps its mode.
//! The caller writes only after the job succeeded (the driver decides what a failure
//! writes: nothing, except the analysis reports of a structurally singular model).

use super::DriverError;
use std::io::Write;
use std::path::Path;

pub fn write(path: Option<&Path>, text: &str) -> Result<(), DriverError> {
    write_with(path, &|w| w.write_all(text.as_bytes()))
}

/// [`write`] of the text that `print` writes (buffered: the text need not be held whole).
pub fn write_with(
    path: Option<&Path>,
    print: &dyn Fn(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), DriverError> {
    let buffered = |w: &mut dyn Write| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        print(&mut w)?;
        w.flush()
    };
    let Some(path) = path else {
        let mut out = std::io::stdout().lock();
        return buffered(&mut out)
            .and_then(|()| out.flush())
            .map_err(|source| DriverError::Io { path: "<stdout>".into(), source });
    };
    let name = path.display().to_string();
    let io = |source| DriverError::Io { path: name.clone(), source };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let existing = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.permissions());
    let mut tmp = temp_file(dir).map_err(io)?;
    if let Some(mode) = existing {
        tmp.as_file().set_permissions(mode).map_err(io)?;
    }
    buffered(tmp.as_file_mut()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// A temporary file in `dir` created with mode 0666 (the kernel applies the umask), not
/// tempfile's private 0600: after the rename it is the new file.
#[cfg(unix)]
fn temp_file(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new().prefix(".mdae-rimis").permissions(std::fs::Permissions::from_mode(0o666)).tempfile_in(dir)
}

#[cfg(not(unix))]
fn temp_file(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new().prefix(".mdae-rimis").tempfile_in(dir)
}
