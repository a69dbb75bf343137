//! Memory-mapped input files. Mapped bytes are only read, never copied.

use crate::diag::{Error, Result};
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// One opened input: its path as the user spelled it, and its bytes.
pub struct MappedFile {
    pub path: PathBuf,
    // (Dropped before the map: the SIGBUS handler must not name a file no longer mapped.)
    _region: Option<crate::faults::MappedRegion>,
    map: Option<Mmap>,
}

impl MappedFile {
    /// Maps a file read-only. Empty files are valid (mmap of length 0 is not).
    pub fn open(path: &Path) -> Result<MappedFile> {
        // (nvlink's words for a missing file; other failures say why.)
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                Error::new(format!("Could not open input file '{}'", path.display()))
            }
            _ => Error::new(format!(
                "Could not open input file '{}': {e}",
                path.display()
            )),
        })?;
        let len = file
            .metadata()
            .map_err(|e| {
                Error::new(format!(
                    "Could not open input file '{}': {e}",
                    path.display()
                ))
            })?
            .len();
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(Error::new(format!(
                "Could not open input file '{}': it is a directory",
                path.display()
            )));
        }
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the map is read-only; a file changed underneath us while linking can
            // only produce wrong bytes, which every parser treats as untrusted input anyway.
            Some(unsafe { Mmap::map(&file) }.map_err(|e| {
                Error::new(format!(
                    "Could not open input file '{}': {e}",
                    path.display()
                ))
            })?)
        };
        Ok(MappedFile {
            path: path.to_path_buf(),
            _region: map
                .as_deref()
                .map(|b| crate::faults::MappedRegion::new(b, path)),
            map,
        })
    }

    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// Gives the pages read so far back to the system: what is read again comes back from
    /// the file (the map is private and read-only, so its contents are the file's).
    pub fn release_pages(&self) {
        if let Some(map) = &self.map {
            // SAFETY: a private read-only file mapping: dropping its pages loses nothing.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// Device and inode, to read the same archive once however it is named.
    pub fn identity(&self) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(&self.path).ok()?;
        Some((m.dev(), m.ino()))
    }

    pub fn display_name(&self) -> String {
        self.path.display().to_string()
    }
}
