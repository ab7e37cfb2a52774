//! Writing the result: stdout, or a file written atomically (a temporary file in the
//! same directory, then renamed), so a failure never leaves a partial output.

use super::DriverError;
use std::io::Write;
use std::path::Path;

pub fn write(path: Option<&Path>, text: &str) -> Result<(), DriverError> {
    let Some(path) = path else {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|source| DriverError::Io { path: "<stdout>".into(), source });
    };
    let name = path.display().to_string();
    let io = |source| DriverError::Io { path: name.clone(), source };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}
