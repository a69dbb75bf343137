//! Putting the bytes on disk, so that a failed link never leaves an output behind.

use crate::diag::{Error, Result};
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, renamed over
/// the destination only once complete.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.cubin-ld-{}.tmp", std::process::id()));
    let fail = |e: std::io::Error| {
        Error::new(format!(
            "Could not write output file '{}': {e}",
            path.display()
        ))
    };
    std::fs::write(&tmp, bytes).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}
