//! The files around a link, as a build system meets them: what the output path is (a device,
//! a FIFO, a link, a file with a mode, a directory), odd inputs, and failures that must leave
//! nothing behind and an earlier output as it was. nvlink 13.5 behaves the same way in each
//! case (checked by hand; see the note on issue 16), except where a test says otherwise.

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

const INPUTS: [&str; 3] = ["a.o", "b.o", "c.o"];

/// A folder holding the three objects of a corpus link that succeeds.
fn scratch(name: &str) -> common::Scratch {
    let d = common::Scratch::new("faults", name);
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out/xtu_call/sm_90");
    for f in INPUTS {
        std::fs::copy(from.join(f), d.join(f)).unwrap();
    }
    d
}

fn link_in(dir: &Path, out: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(dir)
        .args(["-arch", "sm_90", "-o", out])
        .args(INPUTS)
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The folder's names, sorted: no temporary file may be among them.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn is_root() -> bool {
    // SAFETY: a plain system call.
    unsafe { libc::geteuid() == 0 }
}

/// The bytes the link writes to a plain new file.
fn plain_output() -> &'static [u8] {
    static PLAIN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    PLAIN.get_or_init(|| {
        let d = scratch("plain");
        assert!(link_in(&d, "out.cubin", &[]).status.success());
        std::fs::read(d.join("out.cubin")).unwrap()
    })
}

/// (Not assert_eq: a difference would print every byte.)
fn assert_same(bytes: &[u8]) {
    assert!(bytes == plain_output(), "not the plain link's output");
}

/// A character device in `dir` (as root: a node like /dev/null's or /dev/full's, so the test
/// never touches the system's), else the system's own where writing it cannot harm it.
fn char_device(dir: &Path, name: &str, minor: u32) -> Option<PathBuf> {
    if !is_root() {
        return None;
    }
    let p = dir.join(name);
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a plain system call on a C string.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, minor)) };
    (made == 0).then_some(p)
}

#[test]
fn a_character_device_output_is_written_into_not_replaced() {
    let d = scratch("null");
    let Some(null) = char_device(&d, "null", 3) else {
        eprintln!("skipped: making a device node needs root");
        return;
    };
    let o = link_in(&d, "null", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = std::fs::symlink_metadata(&null).unwrap();
    assert!(
        m.file_type().is_char_device(),
        "the device node was replaced"
    );
    assert_eq!(names(&d), ["a.o", "b.o", "c.o", "null"]);
}

#[test]
fn a_full_device_is_an_error_saying_so() {
    let d = scratch("full");
    let full = char_device(&d, "full", 7).unwrap_or_else(|| PathBuf::from("/dev/full"));
    let o = link_in(&d, full.to_str().unwrap(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device") && stderr(&o).contains("full"),
        "{}",
        stderr(&o)
    );
    if full.starts_with(&d) {
        let m = std::fs::symlink_metadata(&full).unwrap();
        assert!(m.file_type().is_char_device());
    }
}

#[test]
fn a_fifo_output_receives_the_output() {
    let d = scratch("fifo");
    let fifo = d.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain system call on a C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = link_in(&d, "pipe", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&reader.join().unwrap());
    let m = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(m.file_type().is_fifo());
}

#[test]
fn a_symbolic_link_output_is_written_through_and_stays_a_link() {
    let d = scratch("symlink");
    std::fs::create_dir(d.join("real")).unwrap();
    std::fs::write(d.join("real/target.cubin"), b"old").unwrap();
    std::os::unix::fs::symlink("real/target.cubin", d.join("link.cubin")).unwrap();
    let o = link_in(&d, "link.cubin", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let link = std::fs::symlink_metadata(d.join("link.cubin")).unwrap();
    assert!(link.file_type().is_symlink());
    assert_same(&std::fs::read(d.join("real/target.cubin")).unwrap());
    assert_eq!(names(&d.join("real")), ["target.cubin"]);
}

#[test]
fn a_dangling_symbolic_link_output_makes_its_target() {
    let d = scratch("dangling");
    std::os::unix::fs::symlink("made.cubin", d.join("link.cubin")).unwrap();
    let o = link_in(&d, "link.cubin", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(d.join("made.cubin")).unwrap());
    assert!(std::fs::symlink_metadata(d.join("link.cubin"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_hard_linked_output_is_written_in_place_for_every_name() {
    let d = scratch("hardlink");
    std::fs::write(d.join("one.cubin"), b"old").unwrap();
    std::fs::hard_link(d.join("one.cubin"), d.join("two.cubin")).unwrap();
    let o = link_in(&d, "two.cubin", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(d.join("one.cubin")).unwrap());
    let (one, two) = (
        std::fs::metadata(d.join("one.cubin")).unwrap(),
        std::fs::metadata(d.join("two.cubin")).unwrap(),
    );
    assert_eq!((one.ino(), one.nlink()), (two.ino(), 2));
}

#[test]
fn a_hard_linked_output_longer_than_the_new_one_is_cut_to_it() {
    let d = scratch("hardlink-long");
    std::fs::write(d.join("one.cubin"), vec![0xAAu8; 100_000]).unwrap();
    std::fs::hard_link(d.join("one.cubin"), d.join("two.cubin")).unwrap();
    assert!(link_in(&d, "one.cubin", &[]).status.success());
    assert_same(&std::fs::read(d.join("two.cubin")).unwrap());
}

#[test]
fn an_existing_output_keeps_its_mode() {
    let d = scratch("mode");
    for mode in [0o755, 0o600, 0o640] {
        std::fs::write(d.join("out.cubin"), b"old").unwrap();
        std::fs::set_permissions(d.join("out.cubin"), std::fs::Permissions::from_mode(mode))
            .unwrap();
        let o = link_in(&d, "out.cubin", &[]);
        assert!(o.status.success(), "{}", stderr(&o));
        let m = std::fs::metadata(d.join("out.cubin")).unwrap();
        assert_eq!(m.mode() & 0o7777, mode);
        assert_same(&std::fs::read(d.join("out.cubin")).unwrap());
    }
}

#[test]
fn a_read_only_output_is_written_only_by_whom_open_would_let() {
    let d = scratch("readonly");
    let out = d.join("out.cubin");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let o = link_in(&d, "out.cubin", &[]);
    if is_root() {
        // (Root may open it for writing: nvlink overwrites it.)
        assert!(o.status.success(), "{}", stderr(&o));
        assert_same(&std::fs::read(&out).unwrap());
    } else {
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("Could not open output file 'out.cubin'"));
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
    }
    assert_eq!(std::fs::metadata(&out).unwrap().mode() & 0o777, 0o444);
    assert_eq!(names(&d), ["a.o", "b.o", "c.o", "out.cubin"]);
}

/// A tmpfs mounted read-only at a folder of `dir`, holding `files`; unmounted when dropped.
/// None, saying so, where this user may not mount (not root, or in a container that forbids it).
struct ReadOnlyMount(PathBuf);

impl ReadOnlyMount {
    fn new(dir: &Path, files: &[(&str, &[u8])]) -> Option<ReadOnlyMount> {
        let at = dir.join("ro");
        std::fs::create_dir(&at).unwrap();
        let mount = |opts: &str| {
            Command::new("mount")
                .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
                .arg(&at)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !mount("size=1m") {
            eprintln!("SKIPPED: a read-only file system: this user may not mount one");
            return None;
        }
        let m = ReadOnlyMount(at.clone());
        for (name, bytes) in files {
            std::fs::write(at.join(name), bytes).unwrap();
        }
        let remount = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&at)
            .status()
            .unwrap();
        assert!(remount.success());
        Some(m)
    }
}

impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn an_output_on_a_read_only_file_system_is_refused_naming_it_so() {
    let d = scratch("read-only-fs");
    let Some(ro) = ReadOnlyMount::new(&d, &[("out.cubin", b"old")]) else {
        return;
    };
    for out in ["ro/out.cubin", "ro/new.cubin"] {
        let o = link_in(&d, out, &[]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            stderr(&o),
            format!(
                "cubin-ld fatal   : Could not open output file '{out}': Read-only file system\n"
            )
        );
    }
    assert_eq!(std::fs::read(ro.0.join("out.cubin")).unwrap(), b"old");
    drop(ro);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_directory_as_output_is_refused_and_left_alone() {
    let d = scratch("dir");
    std::fs::create_dir(d.join("out")).unwrap();
    std::fs::write(d.join("out/inside"), b"x").unwrap();
    let o = link_in(&d, "out", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("Could not open output file 'out'"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&d.join("out")), ["inside"]);
}

/// The link in `dir` as a user who may not write `locked/` (nobody, where the tests run as
/// root); None, saying so, where that user cannot run the linker here.
fn link_as_other_user(dir: &Path, out: &str) -> Option<Output> {
    use std::os::unix::process::CommandExt;
    let command = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cubin-ld"));
        c.current_dir(dir);
        if is_root() {
            c.uid(65534).gid(65534);
        }
        c
    };
    let runs = command()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        eprintln!("skipped: user 'nobody' cannot run the linker from this checkout");
        return None;
    }
    Some(
        command()
            .args(["-arch", "sm_90", "-o", out])
            .args(INPUTS)
            .output()
            .unwrap(),
    )
}

fn locked_folder(name: &str, old: Option<&[u8]>) -> common::Scratch {
    let d = scratch(name);
    let locked = d.join("locked");
    std::fs::create_dir(&locked).unwrap();
    if let Some(old) = old {
        std::fs::write(locked.join("out.cubin"), old).unwrap();
        std::fs::set_permissions(locked.join("out.cubin"), PermissionsExt::from_mode(0o666))
            .unwrap();
    }
    std::fs::set_permissions(&locked, PermissionsExt::from_mode(0o555)).unwrap();
    d
}

#[test]
fn an_output_folder_the_user_may_not_write_is_an_error_naming_the_output() {
    let d = locked_folder("locked-new", None);
    let Some(o) = link_as_other_user(&d, "locked/out.cubin") else {
        return;
    };
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("Could not open output file 'locked/out.cubin': Permission denied"),
        "{}",
        stderr(&o)
    );
    assert!(names(&d.join("locked")).is_empty());
}

#[test]
fn a_writable_output_in_a_folder_the_user_may_not_write_is_written_in_place() {
    // (As nvlink writes it: no temporary file can be made beside it.)
    let d = locked_folder("locked-old", Some(b"old"));
    let Some(o) = link_as_other_user(&d, "locked/out.cubin") else {
        return;
    };
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(d.join("locked/out.cubin")).unwrap());
    assert_eq!(names(&d.join("locked")), ["out.cubin"]);
}

#[test]
fn a_missing_output_folder_is_an_error_naming_the_output() {
    let d = scratch("nodir");
    let o = link_in(&d, "no/such/out.cubin", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("'no/such/out.cubin'"), "{}", stderr(&o));
}

#[test]
fn an_output_that_is_also_an_input_is_replaced_after_it_was_read() {
    let d = scratch("self");
    let o = link_in(&d, "c.o", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(d.join("c.o")).unwrap());
}

#[test]
fn a_failed_link_leaves_the_earlier_output_and_no_temporary_file() {
    let d = scratch("failed");
    std::fs::write(d.join("out.cubin"), b"old").unwrap();
    std::fs::remove_file(d.join("c.o")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&d)
        .args(["-arch", "sm_90", "-o", "out.cubin", "a.o", "b.o"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(255));
    assert_eq!(std::fs::read(d.join("out.cubin")).unwrap(), b"old");
    assert_eq!(names(&d), ["a.o", "b.o", "out.cubin"]);
}

#[test]
fn a_directory_as_input_is_named() {
    let d = scratch("input-dir");
    std::fs::create_dir(d.join("lib.o")).unwrap();
    let o = link_in(&d, "out.cubin", &["lib.o"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("Could not open input file 'lib.o'"));
    assert!(!d.join("out.cubin").exists());
}

#[test]
fn an_empty_input_is_skipped_with_a_warning_naming_it() {
    // (nvlink skips it without a word.)
    let d = scratch("input-empty");
    std::fs::write(d.join("empty.o"), b"").unwrap();
    let o = link_in(&d, "out.cubin", &["empty.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning : input file 'empty.o' skipped: it is empty"),
        "{}",
        stderr(&o)
    );
    assert_same(&std::fs::read(d.join("out.cubin")).unwrap());
}

#[test]
fn an_input_that_is_not_an_object_is_skipped_with_a_warning_saying_why() {
    let d = scratch("input-text");
    std::fs::write(
        d.join("notes.o"),
        "not an object, just some text in a file\n".repeat(3),
    )
    .unwrap();
    let o = link_in(&d, "out.cubin", &["notes.o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("input file 'notes.o' skipped: it is not an object"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn warnings_about_skipped_inputs_are_silenced_by_w() {
    let d = scratch("input-w");
    std::fs::write(d.join("empty.o"), b"").unwrap();
    let o = link_in(&d, "out.cubin", &["empty.o", "-w"]);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
}

#[test]
fn a_device_as_input_reads_as_empty() {
    // As nvlink reads /dev/null and /dev/zero: by their size, which is 0.
    let d = scratch("input-dev");
    let o = link_in(&d, "out.cubin", &["/dev/null", "/dev/zero", "-w"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn a_fifo_input_is_read_whole() {
    // (nvlink reads a pipe by its size, 0, and skips it as empty; cubin-ld reads what comes
    // through it, as GNU ld and lld do, so `<(…)` inputs link.)
    let d = scratch("input-fifo");
    let fifo = d.join("pipe.o");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain system call on a C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let c_o = std::fs::read(d.join("c.o")).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .open(fifo)
                .and_then(|mut f| f.write_all(&c_o));
        })
    };
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&d)
        .args([
            "-arch",
            "sm_90",
            "-o",
            "piped.cubin",
            "a.o",
            "b.o",
            "pipe.o",
        ])
        .output()
        .unwrap();
    writer.join().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let plain = link_in(&d, "plain.cubin", &[]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let piped = std::fs::read(d.join("piped.cubin")).unwrap();
    let plain = std::fs::read(d.join("plain.cubin")).unwrap();
    // (The linker note records the inputs' names only under -g: the bytes are the same.)
    assert!(
        piped == plain,
        "a piped object links differently from the file"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_interrupted_link_leaves_the_old_output_or_the_new_one_never_a_temporary() {
    use std::os::unix::process::ExitStatusExt;
    let d = scratch("interrupted");
    let out = d.join("out.cubin");
    // (In one process, and in two: the caller's, which passes the signal on, and the link.)
    for fork in ["0", "1"] {
        for delay_us in (0..30).map(|k| k * 150) {
            std::fs::write(&out, b"old").unwrap();
            let mut child = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
                .current_dir(&d)
                .env("CUBIN_LD_FORK", fork)
                .args(["-arch", "sm_90", "-o", "out.cubin"])
                .args(INPUTS)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_micros(delay_us));
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let status = child.wait().unwrap();
            let now = std::fs::read(&out).unwrap();
            assert!(now == b"old" || now == plain_output(), "a partial output");
            assert!(
                status.signal() == Some(libc::SIGTERM) || status.success(),
                "{status:?}"
            );
            assert_eq!(
                names(&d),
                ["a.o", "b.o", "c.o", "out.cubin"],
                "a temporary was left (CUBIN_LD_FORK={fork}, {delay_us} µs, {status:?})"
            );
        }
    }
}

/// A link run as two processes, the caller's ending once the output is written
/// (`CUBIN_LD_FORK=1`, as a large link is run), or as one (`0`).
fn link_forked(dir: &Path, fork: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(dir)
        .env("CUBIN_LD_FORK", fork)
        .args(["-arch", "sm_90", "-o", "out.cubin"])
        .args(INPUTS)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_link_that_ends_early_for_its_caller_writes_says_and_exits_as_one_process_does() {
    let d = scratch("forked");
    let out = d.join("out.cubin");
    let cases: [&[&str]; 5] = [
        &[],
        &["-v", "--print-gc-sections"],
        &["--dump-callgraph"],
        &["missing.o"],
        &["-arch=sm_75"],
    ];
    for extra in cases {
        let _ = std::fs::remove_file(&out);
        let one = link_forked(&d, "0", extra);
        let one_out = std::fs::read(&out).ok();
        let _ = std::fs::remove_file(&out);
        let two = link_forked(&d, "1", extra);
        let two_out = std::fs::read(&out).ok();
        assert_eq!(
            (one.status.code(), &one.stdout, stderr(&one)),
            (two.status.code(), &two.stdout, stderr(&two)),
            "{extra:?}"
        );
        assert!(one_out == two_out, "{extra:?}: not the same output");
    }
}

/// A 64 KiB file system at `dir/mnt`, unmounted when dropped (None where this user may not
/// mount one).
struct TinyDisk(PathBuf);

impl TinyDisk {
    fn mount(dir: &Path) -> Option<TinyDisk> {
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        let ok = is_root()
            && Command::new("mount")
                .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
                .arg(&mnt)
                .output()
                .is_ok_and(|o| o.status.success());
        ok.then_some(TinyDisk(mnt))
    }

    /// Takes every free block with a file of its own.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        while f.write_all(&[0u8; 512]).is_ok() {}
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
    }
}

fn link_to(dir: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(dir)
        .args(["-arch", "sm_90", "-o"])
        .arg(out)
        .args(INPUTS)
        .output()
        .unwrap()
}

#[test]
fn a_disk_without_room_for_old_and_new_outputs_together_reuses_the_old_ones_room() {
    let d = scratch("tiny-reuse");
    let Some(disk) = TinyDisk::mount(&d) else {
        eprintln!("skipped: mounting a small file system needs root");
        return;
    };
    let out = disk.0.join("out.cubin");
    std::fs::write(&out, vec![b'o'; 12 << 10]).unwrap();
    disk.fill();
    let o = link_to(&d, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(&out).unwrap());
    assert_eq!(names(&disk.0), ["filler", "out.cubin"]);
}

#[test]
fn a_disk_without_room_for_the_output_is_an_error_leaving_the_old_one_whole() {
    let d = scratch("tiny-full");
    let Some(disk) = TinyDisk::mount(&d) else {
        eprintln!("skipped: mounting a small file system needs root");
        return;
    };
    let out = disk.0.join("out.cubin");
    std::fs::write(&out, b"old").unwrap();
    disk.fill();
    let o = link_to(&d, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert_eq!(names(&disk.0), ["filler", "out.cubin"]);
}

/// A `.fatbin` of one LZ4-compressed sm_90 cubin whose header claims `claimed` bytes, with a
/// payload of `stored` zero bytes (255 times smaller: as much as LZ4 can honestly grow).
fn lz4_bomb(claimed: u64, stored: usize) -> Vec<u8> {
    let mut h = vec![0u8; 0x40];
    h[0..2].copy_from_slice(&2u16.to_le_bytes()); // a cubin
    h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
    h[4..8].copy_from_slice(&0x40u32.to_le_bytes());
    h[8..16].copy_from_slice(&(stored as u64).to_le_bytes());
    h[0x10..0x14].copy_from_slice(&(stored as u32).to_le_bytes());
    h[0x1c..0x20].copy_from_slice(&90u32.to_le_bytes());
    h[0x28..0x30].copy_from_slice(&(0x2000u64 | 0x11).to_le_bytes()); // LZ4
    h[0x38..0x40].copy_from_slice(&claimed.to_le_bytes());
    let mut c = 0xBA55_ED50u32.to_le_bytes().to_vec();
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&16u16.to_le_bytes());
    c.extend_from_slice(&((0x40 + stored) as u64).to_le_bytes());
    c.extend_from_slice(&h);
    c.resize(c.len() + stored, 0);
    c
}

#[test]
fn an_lz4_fatbin_entry_claiming_more_memory_than_the_link_has_is_an_error_not_an_abort() {
    // (Under a 1 GiB address-space limit: cubin-ld used to abort allocating 1 GiB, exit 134.)
    let d = scratch("lz4-bomb");
    std::fs::write(
        d.join("bomb.fatbin"),
        lz4_bomb(1 << 30, (1 << 30) / 255 + 1),
    )
    .unwrap();
    let o = Command::new("sh")
        .current_dir(&d)
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576 && exec '{}' -arch sm_90 -o out.cubin a.o b.o c.o bomb.fatbin",
            env!("CARGO_BIN_EXE_cubin-ld")
        ))
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bomb.fatbin"), "{err}");
    assert!(
        err.contains("would decompress to 1073741824 bytes"),
        "{err}"
    );
    assert!(!d.join("out.cubin").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_closed_standard_error_ends_the_link_by_sigpipe_not_a_panic() {
    // (nvlink dies of SIGPIPE; cubin-ld used to panic, exit 101 with a backtrace.)
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    let d = scratch("closed-stderr");
    let mut fds = [0i32; 2];
    // (Close-on-exec: a process another test starts meanwhile must not inherit the read
    // end, which would keep the pipe open and the write from failing.)
    // SAFETY: pipe2 fills the two descriptors it is given.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors are fresh and owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&d)
        .args(["-arch", "sm_90", "-o", "out.cubin", "a.o", "missing.o"])
        .stderr(std::process::Stdio::from(write))
        .output()
        .unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{:?}", o.status);
    assert!(!d.join("out.cubin").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_killed_link_leaves_no_temporary_file() {
    // (SIGKILL cannot be caught: the output is made with no name until it is complete.)
    let d = scratch("killed");
    for fork in ["0", "1"] {
        for delay_us in (0..30).map(|k| k * 150) {
            let _ = std::fs::remove_file(d.join("out.cubin"));
            let mut child = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
                .current_dir(&d)
                .env("CUBIN_LD_FORK", fork)
                .args(["-arch", "sm_90", "-o", "out.cubin"])
                .args(INPUTS)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_micros(delay_us));
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
            child.wait().unwrap();
            // (A forked link's own process may still be finishing its write.)
            std::thread::sleep(std::time::Duration::from_millis(20));
            let left = names(&d);
            assert!(
                left == ["a.o", "b.o", "c.o"] || left == ["a.o", "b.o", "c.o", "out.cubin"],
                "{left:?} (CUBIN_LD_FORK={fork}, {delay_us} µs)"
            );
            if left.len() == 4 {
                assert_eq!(std::fs::read(d.join("out.cubin")).unwrap(), plain_output());
            }
        }
    }
}
