//! Putting the bytes on disk, so that a failed or interrupted link never leaves an output
//! behind, and the output path keeps what it is.
//!
//! A regular file is made in a temporary file beside the destination and renamed over it
//! only once complete; it keeps the old file's mode and owner. Its blocks are reserved first
//! (so a full disk fails before anything is written), then the sections are written at their
//! offsets, in parallel, straight from the module: no buffer the size of the output in
//! between, and no map of it (whose pages would count as the link's memory).
//!
//! What must not be replaced is written through, as nvlink, GNU ld and lld do: a symbolic
//! link's target, a file with other hard links, and anything that is not a regular file
//! (`-o /dev/null`, a FIFO, a terminal), and a file the user may write in a folder they may
//! not (no temporary can be made beside it). A file the user may not write is refused, as
//! opening it for writing would be.

use crate::diag::{Error, Result};
use std::fs::{File, Metadata};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What goes into an output file.
pub trait Contents: Sync {
    fn size(&self) -> u64;
    /// Into `size()` zeroed bytes.
    fn fill(&self, out: &mut [u8]);
    /// Into `f`, already `size()` bytes long and zero, by positional writes.
    fn write_to(&self, f: &File) -> std::io::Result<()>;
}

impl Contents for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn fill(&self, out: &mut [u8]) {
        out.copy_from_slice(self)
    }
    fn write_to(&self, f: &File) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::write_all_at(f, self, 0)
    }
}

/// Writes `slices`, one after the other, at `offset` of `f` (a positional, vectored write:
/// `pwritev`), whatever the calls take at a time.
pub(super) fn write_all_vectored_at(
    f: &File,
    mut slices: &mut [std::io::IoSlice<'_>],
    mut offset: u64,
) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // (Empty slices first would make the call write nothing, which is not an end.)
    std::io::IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        let count = slices.len().min(1024) as libc::c_int;
        // SAFETY: IoSlice is an iovec on Unix (std guarantees the layout); the slices live
        // through the call.
        let n = unsafe {
            libc::pwritev(
                f.as_raw_fd(),
                slices.as_ptr().cast::<libc::iovec>(),
                count,
                offset as libc::off_t,
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        std::io::IoSlice::advance_slices(&mut slices, n as usize);
        offset += n as u64;
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, bytes)
}

/// Makes `path` a file holding `contents`.
pub fn write_with(path: &Path, contents: &(impl Contents + ?Sized)) -> Result<()> {
    let size = contents.size();
    let fill = contents;
    let open_failed = |e: &dyn std::fmt::Display| {
        Error::new(format!(
            "Could not open output file '{}': {}",
            path.display(),
            crate::diag::reason(e)
        ))
    };
    let write_failed = |e: std::io::Error| {
        Error::new(format!(
            "Could not write output file '{}': {}",
            path.display(),
            crate::diag::reason(&e)
        ))
    };
    let dest = through_symlinks(path).map_err(|e| open_failed(&e))?;
    let existing = match std::fs::metadata(&dest) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(open_failed(&e)),
    };
    let failed = |f: Failed| match f {
        Failed::Open(e) => open_failed(&e),
        Failed::Write(e) => write_failed(e),
    };
    match existing {
        None => replace(&dest, None, size, fill).map_err(failed),
        Some(m) if m.is_dir() => Err(open_failed(&"it is a directory")),
        Some(m) => {
            if let Err(e) = may_write(&dest) {
                return Err(open_failed(&e));
            }
            if m.is_file() && m.nlink() == 1 {
                replace(&dest, Some(&m), size, fill).map_err(failed)
            } else {
                write_through(&dest, &m, size, fill).map_err(write_failed)
            }
        }
    }
}

/// The file `path` names: symbolic links followed (a dangling one to the file it would
/// make).
fn through_symlinks(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    // (Linux's own limit on links followed in one lookup.)
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::from_raw_os_error(libc::ELOOP))
}

/// Whether this user may write the file (root may write a read-only one, as with open), and
/// if not, why.
fn may_write(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a plain system call on a C string.
    match unsafe { libc::access(c.as_ptr(), libc::W_OK) } {
        0 => Ok(()),
        // (Its own reason: a read-only file system is not a missing permission.)
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Where writing the output failed: opening it is what nvlink reports as "Could not open".
enum Failed {
    Open(std::io::Error),
    Write(std::io::Error),
}

impl From<std::io::Error> for Failed {
    fn from(e: std::io::Error) -> Failed {
        Failed::Write(e)
    }
}

/// Makes the file beside `dest` and renames it over `dest` once complete.
fn replace(
    dest: &Path,
    old: Option<&Metadata>,
    size: u64,
    fill: &(impl Contents + ?Sized),
) -> std::result::Result<(), Failed> {
    let tmp = temporary_name(dest);
    // (Listed as it is made: an interrupt at any moment, on any thread, removes it. Where
    // the file system allows, the file has no name until it is complete, so that even a
    // SIGKILL leaves nothing behind: `unnamed`.)
    let mut unnamed = true;
    let (_interrupted, made) = crate::faults::make_pending(&tmp, || {
        open_unnamed(&tmp).or_else(|_| {
            unnamed = false;
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)
        })
    });
    let mut f = match (made, old) {
        (Ok(f), _) => f,
        // A folder this user may not write, holding a file they may: nvlink writes the file
        // in place, and so does the link (no temporary can be made beside it).
        (Err(e), Some(old)) if is_denied(&e) => {
            return Ok(write_through(dest, old, size, fill)?);
        }
        (Err(e), _) => return Err(Failed::Open(e)),
    };
    let failed = Unfinished(&tmp);
    if let Some(old) = old {
        keep_owner_and_mode(&f, old);
    }
    let reserved = match reserve(&f, size) {
        // No room for old and new together: the old file's blocks are reused, as nvlink
        // (which writes in place) would (reserved first, so it stays whole if even that
        // does not fit).
        Err(e) if is_full(&e) && old.is_some() => {
            drop((f, failed));
            return Ok(write_through(dest, old.unwrap(), size, fill)?);
        }
        r => r?,
    };
    fill_file(&mut f, size, reserved, fill)?;
    if unnamed {
        // (A new output gets its name at once; one that exists is replaced by a rename.)
        if old.is_none() && give_name(&f, dest).is_ok() {
            std::mem::forget(failed);
            return Ok(());
        }
        give_name(&f, &tmp)?;
    }
    drop(f);
    let replaced = old
        .filter(|m| m.len() >= HELD_BYTES)
        .and_then(|_| hold(dest));
    std::fs::rename(&tmp, dest)?;
    std::mem::forget(failed);
    // (The old file's pages are dropped when the last hold on it goes: off this thread, or
    // on it if no thread can be started.)
    if let Some(h) = replaced {
        crate::early_exit::in_background(move || drop(h));
    }
    Ok(())
}

/// An old file this large is held across the rename (see `hold`).
const HELD_BYTES: u64 = 1 << 20;

/// A hold on the file at `path` (which reads nothing), so that renaming over it does not
/// also free it there and then: dropping the pages of a large output took `rename` 16 ms.
fn hold(path: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)
        .ok()
}

/// The new file gets the old one's owner (where this user may give it) and mode.
fn keep_owner_and_mode(f: &File, old: &Metadata) {
    use std::os::fd::AsRawFd;
    // SAFETY: plain system calls on an open descriptor. A failed chown leaves the file
    // this user's, as any new file is; the mode is set after it, as chown may clear bits.
    unsafe {
        libc::fchown(f.as_raw_fd(), old.uid(), old.gid());
        libc::fchmod(f.as_raw_fd(), old.mode() & 0o7777);
    }
}

/// Writes into the existing file itself: a device, a FIFO, or a file with other names.
/// The bytes are made first, so the file changes only once the output is complete.
fn write_through(
    dest: &Path,
    old: &Metadata,
    size: u64,
    fill: &(impl Contents + ?Sized),
) -> std::io::Result<()> {
    let mut bytes = vec![0u8; size as usize];
    fill.fill(&mut bytes);
    let mut f = std::fs::OpenOptions::new().write(true).open(dest)?;
    if old.is_file() {
        // Room first, so a full disk fails before the old contents are touched.
        // (Where the file system cannot reserve, the write says what went wrong.)
        if size > old.len() {
            reserve(&f, size)?;
        }
        f.write_all(&bytes)?;
        f.set_len(size)?;
        return Ok(());
    }
    f.write_all(&bytes)?;
    f.flush()
}

/// A file with no name yet in the folder `tmp` will be in (O_TMPFILE; an error where the
/// file system cannot make one).
fn open_unnamed(tmp: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tmp.parent().unwrap_or(Path::new("."));
    std::fs::OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
}

/// Links the complete unnamed file `f` in as `tmp` (through /proc, which needs no
/// privilege, where `AT_EMPTY_PATH` would).
fn give_name(f: &File, tmp: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", f.as_raw_fd()))?;
    let to = std::ffi::CString::new(tmp.as_os_str().as_bytes())?;
    // SAFETY: both paths are NUL-terminated strings that live across the call.
    let r = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
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

/// Fills the new file: made `size` long (its blocks reserved where the file system can, so
/// that a full disk fails before anything is written), then written at offsets, section by
/// section, from the module's own bytes — nothing mapped (the written pages stay the page
/// cache's, not the link's) and no buffer the size of the output in between.
fn fill_file(
    f: &mut File,
    size: u64,
    reserved: bool,
    fill: &(impl Contents + ?Sized),
) -> std::io::Result<()> {
    if !reserved {
        f.set_len(size)?;
    }
    fill.write_to(f)
}

fn is_denied(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS)
    )
}

fn is_full(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT))
}

/// Reserves `size` bytes of disk for the file (and makes it that long); `false` where the
/// file system cannot.
fn reserve(f: &File, size: u64) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    if size == 0 {
        return Ok(false);
    }
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

    /// A scratch folder, removed when the test is done with it (passed or failed).
    struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("cubin-ld-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    /// Contents made by a closure (into a buffer, for the file too).
    struct Filled<F>(u64, F);

    impl<F: Fn(&mut [u8]) + Sync> Contents for Filled<F> {
        fn size(&self) -> u64 {
            self.0
        }
        fn fill(&self, out: &mut [u8]) {
            (self.1)(out)
        }
        fn write_to(&self, f: &File) -> std::io::Result<()> {
            let mut b = vec![0; self.0 as usize];
            (self.1)(&mut b);
            std::os::unix::fs::FileExt::write_all_at(f, &b, 0)
        }
    }

    #[test]
    fn the_file_holds_what_fill_wrote_over_zeroed_bytes() {
        let d = scratch("fill");
        let out = d.join("out.cubin");
        let contents = Filled(10_000, |b: &mut [u8]| {
            assert!(b.iter().all(|&x| x == 0));
            b[..3].copy_from_slice(b"ELF");
            b[9_999] = 7;
        });
        write_with(&out, &contents).unwrap();
        let got = std::fs::read(&out).unwrap();
        assert_eq!((got.len(), &got[..3], got[9_999]), (10_000, &b"ELF"[..], 7));
        assert_eq!(leftovers(&d), ["out.cubin"]);
    }

    #[test]
    fn an_empty_output_replaces_the_old_file() {
        let d = scratch("empty");
        let out = d.join("out.cubin");
        std::fs::write(&out, b"old").unwrap();
        write_with(&out, &Filled(0, |b: &mut [u8]| assert!(b.is_empty()))).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"");
    }

    #[test]
    fn a_panic_while_filling_leaves_neither_a_temporary_nor_a_changed_output() {
        let d = scratch("panic");
        let out = d.join("out.cubin");
        std::fs::write(&out, b"old").unwrap();
        let r = std::panic::catch_unwind(|| {
            write_with(&out, &Filled(100, |_: &mut [u8]| panic!("fill failed")))
        });
        assert!(r.is_err());
        assert_eq!(leftovers(&d), ["out.cubin"]);
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
    }

    #[test]
    fn vectored_writes_skip_empty_slices_and_write_nothing_for_none() {
        use std::io::IoSlice;
        let d = scratch("vectored");
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(d.join("v"))
            .unwrap();
        let (e, ab, cd) = ([], *b"ab", *b"cd");
        write_all_vectored_at(&f, &mut [IoSlice::new(&e)], 9).unwrap();
        let mut slices = [
            IoSlice::new(&e),
            IoSlice::new(&ab),
            IoSlice::new(&e),
            IoSlice::new(&cd),
            IoSlice::new(&e),
        ];
        write_all_vectored_at(&f, &mut slices, 3).unwrap();
        assert_eq!(std::fs::read(d.join("v")).unwrap(), b"\0\0\0abcd");
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_output() {
        let d = scratch("missing");
        let out = d.join("no/such/out.cubin");
        let e = write_with(&out, &Filled(10, |_: &mut [u8]| {})).unwrap_err();
        assert!(e.to_string().contains("no/such/out.cubin"), "{e}");
    }
}
