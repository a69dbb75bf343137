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
    /// A pipe's bytes (a FIFO, `<(…)`), read whole: a pipe cannot be mapped, and its size
    /// says nothing of what it holds.
    read: Vec<u8>,
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
                "Could not open input file '{}': {}",
                path.display(),
                crate::diag::reason(&e)
            )),
        })?;
        let meta = file.metadata().map_err(|e| {
            Error::new(format!(
                "Could not open input file '{}': {}",
                path.display(),
                crate::diag::reason(&e)
            ))
        })?;
        let len = meta.len();
        if meta.is_dir() {
            return Err(Error::new(format!(
                "Could not open input file '{}': it is a directory",
                path.display()
            )));
        }
        let cannot = |e: &dyn std::fmt::Display| {
            Error::new(format!(
                "Could not open input file '{}': {}",
                path.display(),
                crate::diag::reason(e)
            ))
        };
        // (Better than nvlink, which reads a pipe by its size, 0, and skips it as empty.)
        if is_pipe(&meta) {
            let mut read = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut read).map_err(|e| cannot(&e))?;
            return Ok(MappedFile {
                path: path.to_path_buf(),
                _region: None,
                map: None,
                read,
            });
        }
        let map = if len == 0 {
            None
        } else {
            let len = usize::try_from(len).map_err(|e| cannot(&e))?;
            // SAFETY: the map is read-only; a file changed underneath us while linking can
            // only produce wrong bytes, which every parser treats as untrusted input anyway.
            // (The length given: `Mmap::map` would ask the file for it again.)
            let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file) };
            Some(map.map_err(|e| cannot(&e))?)
        };
        Ok(MappedFile {
            path: path.to_path_buf(),
            _region: map
                .as_deref()
                .map(|b| crate::faults::MappedRegion::new(b, path)),
            map,
            read: Vec::new(),
        })
    }

    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&self.read)
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

/// A FIFO or a socket: bytes that can only be read in order, once.
fn is_pipe(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    t.is_fifo() || t.is_socket()
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

    /// Gives back every page of the mapped files holding these addresses.
    pub fn give_back_files(&self, at: &[usize]) {
        let mut files: Vec<(usize, usize)> = at
            .iter()
            .filter_map(|&a| {
                let k = self
                    .spans
                    .partition_point(|&(s, _)| s <= a)
                    .checked_sub(1)?;
                let (s, len) = self.spans[k];
                (a < s + len).then_some((s, s + len))
            })
            .collect();
        files.sort_unstable();
        files.dedup();
        self.give_back(&files);
    }

    /// Gives back the whole pages inside each `start..end` (addresses) that a mapped file
    /// holds.
    pub fn give_back(&self, ranges: &[(usize, usize)]) {
        let pages: Vec<(usize, usize)> = ranges
            .iter()
            .filter_map(|&(start, end)| {
                let at = self.spans.partition_point(|&(s, _)| s <= start);
                let &(s, len) = self.spans.get(at.checked_sub(1)?)?;
                let first = start.next_multiple_of(self.page);
                // (A range to the end of its file takes the file's last page, which the map
                // holds whole: past the end it reads as zeros, from the file or not.)
                let last = if end == s + len {
                    end.next_multiple_of(self.page)
                } else {
                    end - end % self.page
                };
                (end <= s + len && first < last).then(|| (first, last - first))
            })
            .collect();
        // SAFETY: whole pages of read-only file mappings that the borrowed files keep alive.
        unsafe { drop_pages(&pages) };
    }
}

/// Non-empty ranges, sorted, with those no more than `gap` apart made one.
pub fn joined(mut spans: Vec<(usize, usize)>, gap: usize) -> Vec<(usize, usize)> {
    use rayon::slice::ParallelSliceMut;
    spans.retain(|(a, e)| a < e);
    spans.par_sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, e) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 + gap => last.1 = last.1.max(e),
            _ => out.push((a, e)),
        }
    }
    out
}

/// Gives the pages of the mapped files read so far back to the system: what is read again
/// comes back from the file (the maps are private and read-only, so their contents are the
/// files').
pub fn release_pages(files: &[MappedFile]) {
    let maps: Vec<(usize, usize)> = files
        .iter()
        .filter_map(|f| f.map.as_deref())
        .filter(|m| !m.is_empty())
        .map(|m| (m.as_ptr() as usize, m.len()))
        .collect();
    // SAFETY: whole private read-only file mappings, which `files` keeps alive.
    unsafe { drop_pages(&maps) };
}

/// Drops the pages of `(address, length)` ranges. Each `madvise` call flushes the TLB of
/// every core the link's threads ran on (an interrupt each): one call per range was a tenth
/// of a large link's time, for a few thousand ranges. `process_madvise` takes a thousand
/// ranges a call, and recent kernels flush once for them all (measured on Linux 6.18); a
/// kernel or seccomp filter that refuses it gets a call a range.
///
/// # Safety
/// The ranges are page-aligned parts of private read-only file mappings that stay mapped:
/// dropping their pages loses nothing.
unsafe fn drop_pages(ranges: &[(usize, usize)]) {
    let done = batched_drop_pages(ranges);
    for &(a, n) in &ranges[done..] {
        // SAFETY: as the caller promises.
        unsafe { libc::madvise(a as *mut libc::c_void, n, libc::MADV_DONTNEED) };
    }
}

/// Drops the pages of as many of `ranges` as `process_madvise` takes, in order; returns how
/// many.
#[cfg(target_os = "linux")]
fn batched_drop_pages(ranges: &[(usize, usize)]) -> usize {
    // (IOV_MAX)
    const MAX_RANGES: usize = 1024;
    if ranges.len() < 2 {
        return 0;
    }
    // SAFETY: plain system calls; the ranges are the caller's to drop (`drop_pages`).
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0);
        if pidfd < 0 {
            return 0;
        }
        let mut done = 0;
        for chunk in ranges.chunks(MAX_RANGES) {
            let iov: Vec<libc::iovec> = chunk
                .iter()
                .map(|&(a, n)| libc::iovec {
                    iov_base: a as *mut libc::c_void,
                    iov_len: n,
                })
                .collect();
            let r = libc::syscall(
                libc::SYS_process_madvise,
                pidfd,
                iov.as_ptr(),
                iov.len(),
                libc::MADV_DONTNEED,
                0,
            );
            // (It may stop part way: the ranges it did add up to what it returns.)
            let mut left = if r < 0 { 0 } else { r as usize };
            let whole = chunk
                .iter()
                .take_while(|&&(_, n)| {
                    let took = left >= n;
                    left = left.saturating_sub(n);
                    took
                })
                .count();
            done += whole;
            if whole < chunk.len() {
                break;
            }
        }
        libc::close(pidfd as libc::c_int);
        done
    }
}

#[cfg(not(target_os = "linux"))]
fn batched_drop_pages(_: &[(usize, usize)]) -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_given_back_read_the_same_after() {
        let dir = std::env::temp_dir().join(format!("cubin-ld-pages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("input.o");
        // (Not a whole number of pages: the last range runs to the file's end.)
        let bytes: Vec<u8> = (0..5 * 4096u32 + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let files = [MappedFile::open(&path).unwrap()];
        assert_eq!(files[0].bytes(), &bytes[..]);
        let pages = Pages::of(&files);
        let start = files[0].bytes().as_ptr() as usize;
        // (Two ranges: the batched call.)
        pages.give_back(&[
            (start + 100, start + 8192),
            (start + 12288, start + bytes.len()),
        ]);
        assert_eq!(files[0].bytes(), &bytes[..]);
        // (Any address in the file gives back all of it.)
        pages.give_back_files(&[start + 5000, start + 9000]);
        assert_eq!(files[0].bytes(), &bytes[..]);
        release_pages(&files);
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
        pages.give_back(&[(start, start + heap.len()), (start, start + 65536)]);
        pages.give_back_files(&[start, start + 4096]);
        assert!(heap.iter().all(|&b| b == 7));
    }

    #[test]
    fn copied_ranges_a_page_or_less_apart_are_given_back_as_one() {
        let spans = vec![
            (9200, 9300),
            (0, 100),
            (4200, 5000),
            (200, 4100),
            (300, 400),
            (7, 7),
        ];
        assert_eq!(joined(spans, 4096), [(0, 5000), (9200, 9300)]);
        assert_eq!(joined(vec![(0, 10), (20, 30)], 5), [(0, 10), (20, 30)]);
    }
}
