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

/// The pages of the mapped inputs, to give back what the link has copied: once a section's
/// bytes are in the output module, keeping its pages would count them twice in the link's
/// memory. Bytes that are not in a mapped file (a fatbin's decompressed member) are left
/// alone. What is read again after comes back from the file.
pub struct Pages<'f> {
    /// (first byte's address, length) of each mapped file, by address.
    spans: Vec<(usize, usize)>,
    page: usize,
    _files: std::marker::PhantomData<&'f [MappedFile]>,
}

impl<'f> Pages<'f> {
    pub fn of(files: &'f [MappedFile]) -> Pages<'f> {
        let mut spans: Vec<(usize, usize)> = files
            .iter()
            .filter_map(|f| f.map.as_deref())
            .map(|b| (b.as_ptr() as usize, b.len()))
            .collect();
        spans.sort_unstable();
        // SAFETY: a plain query.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Pages {
            spans,
            page: usize::try_from(page).unwrap_or(4096).max(1),
            _files: std::marker::PhantomData,
        }
    }

    /// The page size ranges are rounded to.
    pub fn page_size(&self) -> usize {
        self.page
    }

    /// Gives back the whole pages inside `start..end` (addresses), if a mapped file holds them.
    pub fn give_back(&self, start: usize, end: usize) {
        let at = self.spans.partition_point(|&(s, _)| s <= start);
        let Some(&(s, len)) = at.checked_sub(1).and_then(|i| self.spans.get(i)) else {
            return;
        };
        if end > s + len {
            return;
        }
        let first = start.next_multiple_of(self.page);
        let last = end - end % self.page;
        if first < last {
            // SAFETY: whole pages of a read-only file mapping that the borrowed files keep
            // alive; dropping them loses nothing (see `MappedFile::release_pages`).
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_DONTNEED,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_given_back_read_the_same_after() {
        let dir = std::env::temp_dir().join(format!("cubin-ld-pages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("input.o");
        let bytes: Vec<u8> = (0..5 * 4096u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let files = [MappedFile::open(&path).unwrap()];
        assert_eq!(files[0].bytes(), &bytes[..]);
        let pages = Pages::of(&files);
        let start = files[0].bytes().as_ptr() as usize;
        pages.give_back(start + 100, start + bytes.len() - 100);
        assert_eq!(files[0].bytes(), &bytes[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bytes_outside_the_mapped_files_are_left_alone() {
        // (Heap memory given back would read as zeros.)
        let files: [MappedFile; 0] = [];
        let pages = Pages::of(&files);
        let heap = vec![7u8; 3 * 65536];
        let start = heap.as_ptr() as usize;
        pages.give_back(start, start + heap.len());
        assert!(heap.iter().all(|&b| b == 7));
    }
}
