//! Putting the bytes on disk, so that a failed link never leaves an output behind.
//!
//! The output is made in a temporary file beside the destination, renamed over it only once
//! complete. Its blocks are reserved first (so a full disk is an error, not a SIGBUS on a
//! mapped page), then it is filled in place through a memory map: the sections go straight
//! into the page cache, in parallel, with no buffer the size of the output in between.
//! Where the file system cannot reserve or map, a buffer is filled and written instead.

use crate::diag::{Error, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, bytes.len() as u64, |out| out.copy_from_slice(bytes))
}

/// Makes a file of `size` bytes at `path` whose contents `fill` writes (into zeroed bytes),
/// atomically.
pub fn write_with(path: &Path, size: u64, fill: impl FnOnce(&mut [u8])) -> Result<()> {
    let tmp = temporary_name(path);
    let fail = |e: std::io::Error| {
        Error::new(format!(
            "Could not write output file '{}': {e}",
            path.display()
        ))
    };
    // (Read access too: a shared writable map needs it.)
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(fail)?;
    let guard = Unfinished(&tmp);
    fill_file(&mut f, size, fill).map_err(fail)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(fail)?;
    std::mem::forget(guard);
    Ok(())
}

/// The temporary file until it is renamed: removed on any way out, a panic included.
struct Unfinished<'p>(&'p Path);

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
    }
}

fn temporary_name(path: &Path) -> PathBuf {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    dir.join(format!(".{name}.cubin-ld-{}.tmp", std::process::id()))
}

fn fill_file(f: &mut File, size: u64, fill: impl FnOnce(&mut [u8])) -> std::io::Result<()> {
    if size > 0 && reserve(f, size)? {
        // SAFETY: the file is this process's own new temporary file, reserved to its full
        // size above; nothing else truncates it while it is mapped.
        if let Ok(mut map) = unsafe { memmap2::MmapMut::map_mut(&*f) } {
            fill(&mut map);
            return Ok(());
        }
    }
    let mut bytes = vec![0u8; size as usize];
    fill(&mut bytes);
    f.set_len(0)?;
    f.write_all(&bytes)
}

/// Reserves `size` bytes of disk for the file (and makes it that long); `false` where the
/// file system cannot.
fn reserve(f: &File, size: u64) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let Ok(len) = libc::off_t::try_from(size) else {
        return Ok(false);
    };
    // SAFETY: a plain system call on an open descriptor.
    match unsafe { libc::posix_fallocate(f.as_raw_fd(), 0, len) } {
        0 => Ok(true),
        libc::EOPNOTSUPP | libc::EINVAL | libc::ENODEV => Ok(false),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cubin-ld-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_file_holds_what_fill_wrote_over_zeroed_bytes() {
        let d = scratch("fill");
        let out = d.join("out.cubin");
        write_with(&out, 10_000, |b| {
            assert!(b.iter().all(|&x| x == 0));
            b[..3].copy_from_slice(b"ELF");
            b[9_999] = 7;
        })
        .unwrap();
        let got = std::fs::read(&out).unwrap();
        assert_eq!((got.len(), &got[..3], got[9_999]), (10_000, &b"ELF"[..], 7));
        assert_eq!(leftovers(&d), ["out.cubin"]);
    }

    #[test]
    fn an_empty_output_is_written_without_a_map() {
        let d = scratch("empty");
        let out = d.join("out.cubin");
        std::fs::write(&out, b"old").unwrap();
        write_with(&out, 0, |b| assert!(b.is_empty())).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"");
    }

    #[test]
    fn a_panic_while_filling_leaves_neither_a_temporary_nor_a_changed_output() {
        let d = scratch("panic");
        let out = d.join("out.cubin");
        std::fs::write(&out, b"old").unwrap();
        let r = std::panic::catch_unwind(|| write_with(&out, 100, |_| panic!("fill failed")));
        assert!(r.is_err());
        assert_eq!(leftovers(&d), ["out.cubin"]);
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_output() {
        let d = scratch("missing");
        let out = d.join("no/such/out.cubin");
        let e = write_with(&out, 10, |_| {}).unwrap_err();
        assert!(e.to_string().contains("no/such/out.cubin"), "{e}");
    }
}
