//! What happens when the process is interrupted or an input shrinks under its map.
//!
//! Signals are process-wide, so this is the one module with process-wide state: two
//! fixed tables the signal handlers read without locks or allocation.
//! - The output's temporary files ([`PendingFile`]): SIGINT, SIGTERM, SIGHUP and SIGQUIT
//!   remove them, then end the process by the same signal, so an interrupted link leaves no
//!   partial file behind.
//! - The mapped inputs ([`MappedRegion`]): a file truncated while it is mapped makes reading
//!   past its new end raise SIGBUS; the handler names the file and ends the link with
//!   status 1 instead of a crash.
//!
//! The library only records; [`install`] (the binary calls it) sets the handlers, so a
//! program that embeds the linker keeps its own.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

const PENDING_SLOTS: usize = 64;
/// (A link of more inputs maps the rest without a slot: a bus error in one of those is not
/// caught, as without the handler.)
const REGION_SLOTS: usize = 16384;

/// Temporary output files, as C strings owned by their [`PendingFile`].
static PENDING: [AtomicPtr<libc::c_char>; PENDING_SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; PENDING_SLOTS];

/// One mapped input: its first byte's address (0: free), its length, and its name (a C
/// string owned by the [`MappedRegion`]).
struct Region {
    start: AtomicUsize,
    len: AtomicUsize,
    name: AtomicPtr<libc::c_char>,
}

/// Where the search for a free region slot starts: past the last one taken, so that mapping
/// n files takes n tries, not n²/2 (slots are taken and freed in about that order).
static NEXT_REGION: AtomicUsize = AtomicUsize::new(0);
/// How many region slots are taken: when all are, none is searched for.
static REGIONS_TAKEN: AtomicUsize = AtomicUsize::new(0);

static REGIONS: [Region; REGION_SLOTS] = [const {
    Region {
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        name: AtomicPtr::new(std::ptr::null_mut()),
    }
}; REGION_SLOTS];

/// Set by the first interrupt: no temporary file is made after it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Threads making a temporary file at this moment ([`make_pending`]). The handler waits for
/// them before it removes the files listed: a file made just after it looked would be left.
static MAKING: AtomicUsize = AtomicUsize::new(0);

/// Makes the temporary file `path` by `make` (which creates it), listed as a
/// [`PendingFile`], so that no interrupt, on whichever thread it lands, can leave it behind:
/// either the handler waits for `make` to finish and removes the file, or `make` is not
/// called (after an interrupt: the link is ending). Interrupts are held off this thread
/// meanwhile (the handler, waiting for it, must run on another).
pub fn make_pending<T>(
    path: &Path,
    make: impl FnOnce() -> std::io::Result<T>,
) -> (PendingFile, std::io::Result<T>) {
    let _held = HeldInterrupts::new();
    // (Sequentially consistent with the handler's store then load: either this sees the
    // interrupt, or the handler sees this thread making.)
    MAKING.fetch_add(1, Ordering::SeqCst);
    let made = if INTERRUPTED.load(Ordering::SeqCst) {
        (
            PendingFile::unlisted(path),
            Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted",
            )),
        )
    } else {
        let listed = PendingFile::new(path);
        (listed, make())
    };
    MAKING.fetch_sub(1, Ordering::SeqCst);
    made
}

/// The interrupts blocked on this thread while it lives.
struct HeldInterrupts(libc::sigset_t);

impl HeldInterrupts {
    fn new() -> HeldInterrupts {
        // SAFETY: a plain signal-mask call on sets made here.
        unsafe {
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, &interrupt_set(), &mut old);
            HeldInterrupts(old)
        }
    }
}

impl Drop for HeldInterrupts {
    fn drop(&mut self) {
        // SAFETY: restores the mask `new` saved.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
    }
}

/// A file to remove if the process is interrupted before [`PendingFile`] is dropped.
pub struct PendingFile {
    slot: Option<usize>,
    // (Kept alive while a handler may read it.)
    _path: CString,
}

impl PendingFile {
    pub fn new(path: &Path) -> PendingFile {
        use std::os::unix::ffi::OsStrExt;
        let path = CString::new(path.as_os_str().as_bytes()).unwrap_or_default();
        let ptr = path.as_ptr() as *mut libc::c_char;
        let slot = PENDING.iter().position(|s| {
            s.compare_exchange(
                std::ptr::null_mut(),
                ptr,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
        });
        PendingFile { slot, _path: path }
    }

    /// One not listed (not made).
    fn unlisted(path: &Path) -> PendingFile {
        use std::os::unix::ffi::OsStrExt;
        PendingFile {
            slot: None,
            _path: CString::new(path.as_os_str().as_bytes()).unwrap_or_default(),
        }
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            PENDING[i].store(std::ptr::null_mut(), Ordering::Release);
        }
    }
}

/// A mapped input, for the SIGBUS handler to name.
pub struct MappedRegion {
    slot: Option<usize>,
    _name: CString,
}

impl MappedRegion {
    pub fn new(bytes: &[u8], name: &Path) -> MappedRegion {
        use std::os::unix::ffi::OsStrExt;
        let name = CString::new(name.as_os_str().as_bytes()).unwrap_or_default();
        if bytes.is_empty() {
            return MappedRegion {
                slot: None,
                _name: name,
            };
        }
        let first = NEXT_REGION.fetch_add(1, Ordering::Relaxed);
        let full = REGIONS_TAKEN.load(Ordering::Relaxed) >= REGION_SLOTS;
        let take_if_free = |i: &usize| {
            REGIONS[*i]
                .len
                .compare_exchange(0, bytes.len(), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        };
        let slot = if full {
            None
        } else {
            (0..REGION_SLOTS)
                .map(|k| (first + k) % REGION_SLOTS)
                .find(take_if_free)
        };
        if let Some(i) = slot {
            NEXT_REGION.store(i + 1, Ordering::Relaxed);
            REGIONS_TAKEN.fetch_add(1, Ordering::Relaxed);
            let r = &REGIONS[i];
            r.name
                .store(name.as_ptr() as *mut libc::c_char, Ordering::Release);
            r.start.store(bytes.as_ptr() as usize, Ordering::Release);
        }
        MappedRegion { slot, _name: name }
    }
}

impl Drop for MappedRegion {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            let r = &REGIONS[i];
            r.start.store(0, Ordering::Release);
            r.name.store(std::ptr::null_mut(), Ordering::Release);
            r.len.store(0, Ordering::Release);
            REGIONS_TAKEN.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Sets the handlers: interrupts remove the pending temporary files, a bus error in a
/// mapped input is reported as a changed input. A signal the parent set to be ignored
/// (`nohup`) stays ignored.
pub fn install() {
    // SAFETY: the handler only makes async-signal-safe calls.
    unsafe { on_interrupts(on_interrupt) };
    // SAFETY: as above; SA_SIGINFO gives the faulting address.
    unsafe {
        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            on_bus_error;
        set_handler(libc::SIGBUS, handler as usize, libc::SA_SIGINFO)
    };
}

/// The signals that interrupt a link (a terminal's, a build system's, a hangup).
pub(crate) const INTERRUPTS: [libc::c_int; 4] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The set of [`INTERRUPTS`], for signal masks.
pub(crate) fn interrupt_set() -> libc::sigset_t {
    // SAFETY: a set made and filled here.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in INTERRUPTS {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// Sets `handler` for each of [`INTERRUPTS`] the process does not ignore: one the parent set
/// to be ignored (`nohup`) stays ignored.
///
/// # Safety
/// `handler` makes only async-signal-safe calls.
pub(crate) unsafe fn on_interrupts(handler: extern "C" fn(libc::c_int)) {
    for sig in INTERRUPTS {
        // SAFETY: querying, then setting, a handler the caller vouches for.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            set_handler(sig, handler as usize, 0);
        }
    }
}

unsafe fn set_handler(sig: libc::c_int, handler: usize, flags: libc::c_int) {
    let mut sa: libc::sigaction = std::mem::zeroed();
    sa.sa_sigaction = handler;
    sa.sa_flags = flags;
    libc::sigemptyset(&mut sa.sa_mask);
    libc::sigaction(sig, &sa, std::ptr::null_mut());
}

fn remove_pending_files() {
    // No file is made from here on; one being made now is waited for (its thread holds
    // interrupts off, so it is not this one).
    INTERRUPTED.store(true, Ordering::SeqCst);
    while MAKING.load(Ordering::SeqCst) != 0 {
        std::hint::spin_loop();
    }
    for s in &PENDING {
        let p = s.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: unlink is async-signal-safe; `p` is a live C string (see PendingFile).
            unsafe { libc::unlink(p) };
        }
    }
}

extern "C" fn on_interrupt(sig: libc::c_int) {
    remove_pending_files();
    // End as the signal would have: the parent (make, a shell) sees how the link ended.
    // SAFETY: async-signal-safe calls.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn on_bus_error(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let name = REGIONS.iter().find_map(|r| {
        let start = r.start.load(Ordering::Acquire);
        let len = r.len.load(Ordering::Acquire);
        (start != 0 && addr >= start && addr < start.saturating_add(len))
            .then(|| r.name.load(Ordering::Acquire))
    });
    let Some(name) = name.filter(|n| !n.is_null()) else {
        // Not an input's map: let it crash as it would have.
        // SAFETY: async-signal-safe calls.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
        }
        return;
    };
    remove_pending_files();
    let say = |bytes: &[u8]| {
        // SAFETY: write(2) is async-signal-safe.
        unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
    };
    say(b"cubin-ld fatal   : Input file '");
    // SAFETY: `name` is a live C string (see MappedRegion).
    say(unsafe { std::ffi::CStr::from_ptr(name) }.to_bytes());
    say(b"' changed while it was being linked (it is shorter than when it was opened)\n");
    // SAFETY: _exit is async-signal-safe; nothing else may run (the process state is
    // unknown).
    unsafe { libc::_exit(1) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Output};

    /// Runs `test` (one of the ignored tests below) in a child process with `CHILD_PATH`
    /// set to `path`: what it does ends the process.
    fn in_child(test: &str, path: &Path) -> Output {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                test,
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CHILD_PATH", path)
            .output()
            .unwrap()
    }

    fn child_path() -> Option<std::path::PathBuf> {
        std::env::var_os("CHILD_PATH").map(Into::into)
    }

    fn scratch_file(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("cubin-ld-faults-{}-{name}", std::process::id()));
        std::fs::write(&p, vec![7u8; 1 << 16]).unwrap();
        p
    }

    #[test]
    #[ignore = "a child of an_interrupt_removes_the_pending_file_and_ends_the_process_by_the_signal"]
    fn child_interrupted_while_a_file_is_pending() {
        let Some(path) = child_path() else { return };
        install();
        let _pending = PendingFile::new(&path);
        // SAFETY: raising a signal at this process.
        unsafe { libc::raise(libc::SIGTERM) };
        unreachable!("SIGTERM ends the process");
    }

    #[test]
    fn an_interrupt_removes_the_pending_file_and_ends_the_process_by_the_signal() {
        let path = scratch_file("pending");
        let o = in_child(
            "faults::tests::child_interrupted_while_a_file_is_pending",
            &path,
        );
        assert_eq!(o.status.signal(), Some(libc::SIGTERM), "{o:?}");
        assert!(!path.exists());
    }

    #[test]
    #[ignore = "a child of a_truncated_input_is_a_fatal_error_naming_it_not_a_crash"]
    fn child_reads_an_input_truncated_under_its_map() {
        let Some(path) = child_path() else { return };
        install();
        let f = crate::input::MappedFile::open(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        let byte = std::hint::black_box(f.bytes())[40_000];
        unreachable!("reading past the file's end raises SIGBUS ({byte})");
    }

    #[test]
    fn a_truncated_input_is_a_fatal_error_naming_it_not_a_crash() {
        let path = scratch_file("truncated.o");
        let o = in_child(
            "faults::tests::child_reads_an_input_truncated_under_its_map",
            &path,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        assert!(
            err.contains(&format!("Input file '{}' changed", path.display())),
            "{err}"
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_pending_file_is_listed_until_dropped() {
        let p = std::env::temp_dir().join("cubin-ld-faults-listed");
        let f = PendingFile::new(&p);
        let slot = f.slot.expect("a free slot");
        assert!(!PENDING[slot].load(Ordering::Acquire).is_null());
        drop(f);
        assert!(PENDING[slot].load(Ordering::Acquire).is_null());
    }

    #[test]
    fn a_region_is_listed_with_its_bounds_until_dropped() {
        let bytes = vec![0u8; 100];
        let r = MappedRegion::new(&bytes, Path::new("x.o"));
        let slot = r.slot.expect("a free slot");
        let entry = &REGIONS[slot];
        assert_eq!(entry.start.load(Ordering::Acquire), bytes.as_ptr() as usize);
        assert_eq!(entry.len.load(Ordering::Acquire), 100);
        drop(r);
        assert_eq!(entry.start.load(Ordering::Acquire), 0);
        assert_eq!(entry.len.load(Ordering::Acquire), 0);
    }
}
