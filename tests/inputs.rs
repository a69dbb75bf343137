//! How inputs are found and read, one behaviour per test, with the committed host objects of
//! the xtu_call case (a.o calls b.o's and c.o's functions) and archives written here.

mod common;

use common::archive;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn host(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out/xtu_call/sm_90/host")
        .join(name)
}

fn scratch(tag: &str) -> common::Scratch {
    common::Scratch::new("inputs", tag)
}

fn cubin_ld(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The link failed with exit status `code` and its messages say each of `needles`.
fn assert_fails(o: &Output, code: i32, needles: &[&str]) {
    assert_eq!(o.status.code(), Some(code), "{}", stderr(o));
    for n in needles {
        assert!(stderr(o).contains(n), "{}", stderr(o));
    }
}

/// Writes `d/path`, a GNU archive of the named files of `d`.
fn write_archive(d: &Path, path: &str, members: &[&str]) {
    let members: Vec<(&str, Vec<u8>)> = members
        .iter()
        .map(|m| (*m, std::fs::read(d.join(m)).unwrap()))
        .collect();
    std::fs::write(d.join(path), archive(&members, false)).unwrap();
}

fn copy_objects(d: &Path) {
    for f in ["a.o", "b.o", "c.o"] {
        std::fs::copy(host(f), d.join(f)).unwrap();
    }
}

#[test]
fn host_objects_link_like_their_cubins() {
    let d = scratch("objects");
    copy_objects(&d);
    let o = cubin_ld(&d, &["-arch=sm_90", "a.o", "b.o", "c.o", "-o", "out.cubin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let theirs = std::fs::read(host("objects.cubin")).unwrap();
    let ours = std::fs::read(d.join("out.cubin")).unwrap();
    let d = cubin_ld::compare::compare_dumps(
        &cubin_ld::dump::dump_bytes(&theirs).unwrap().text,
        &cubin_ld::dump::dump_bytes(&ours).unwrap().text,
        &cubin_ld::compare::CompareOptions {
            ignore_linker_note: true,
            ..Default::default()
        },
    );
    assert!(d.is_empty(), "{}", d.join("\n"));
}

#[test]
fn a_library_is_found_with_l_and_loaded_whole() {
    let d = scratch("lflag");
    copy_objects(&d);
    std::fs::create_dir_all(d.join("lib")).unwrap();
    write_archive(&d, "lib/libbc.a", &["b.o", "c.o"]);
    // -l before -L works: all options are read before the inputs.
    let o = cubin_ld(
        &d,
        &["-arch=sm_90", "-lbc", "-Llib", "a.o", "-o", "out.cubin"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_library_that_is_not_found_is_skipped_with_a_warning() {
    let d = scratch("missing");
    copy_objects(&d);
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "a.o",
            "b.o",
            "c.o",
            "-L.",
            "-lnothere",
            "-o",
            "out.cubin",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // (nvlink says nothing; the link it makes is still made.)
    assert_eq!(
        stderr(&o),
        "cubin-ld warning : library -lnothere skipped: no libnothere.a found (searched .)\n"
    );
}

#[test]
fn libraries_alone_are_no_inputs() {
    let d = scratch("onlylib");
    let o = cubin_ld(&d, &["-arch=sm_90", "-L.", "-lfoo", "-o", "out.cubin"]);
    assert_fails(&o, 1, &["No input files specified"]);
}

#[test]
fn the_same_archive_named_twice_is_read_once_but_objects_are_not() {
    let d = scratch("twice");
    copy_objects(&d);
    write_archive(&d, "libb.a", &["b.o"]);
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "a.o",
            "c.o",
            "libb.a",
            "./libb.a",
            "-L.",
            "-lb",
            "-o",
            "o.cubin",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = cubin_ld(
        &d,
        &["-arch=sm_90", "a.o", "c.o", "b.o", "./b.o", "-o", "o.cubin"],
    );
    assert_fails(&o, 1, &["Multiple definition"]);
}

#[test]
fn archive_members_are_named_archive_colon_member() {
    let d = scratch("names");
    copy_objects(&d);
    write_archive(&d, "libdup.a", &["b.o"]);
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "a.o",
            "b.o",
            "c.o",
            "libdup.a",
            "-o",
            "o.cubin",
        ],
    );
    assert!(
        stderr(&o).contains("in 'libdup.a:b.o', first defined in 'b.o'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn thin_archive_members_are_found_next_to_the_archive() {
    let d = scratch("thin");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    copy_objects(&d);
    for f in ["b.o", "c.o"] {
        std::fs::copy(d.join(f), d.join("sub").join(f)).unwrap();
    }
    let t = archive(&[("b.o", Vec::new()), ("c.o", Vec::new())], true);
    std::fs::write(d.join("sub/libthin.a"), t).unwrap();
    let o = cubin_ld(
        &d,
        &["-arch=sm_90", "a.o", "sub/libthin.a", "-o", "o.cubin"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn files_nvlink_skips_are_skipped() {
    let d = scratch("skipped");
    copy_objects(&d);
    // A device ELF under a name nvlink does not read as one, a host object without an
    // extension or named like a shared library: all skipped, so c's function stays undefined.
    let cubin = host("../c.o");
    for (name, from) in [
        ("c.obj", &cubin),
        ("c", &d.join("c.o")),
        ("c.so", &d.join("c.o")),
    ] {
        std::fs::copy(from, d.join(name)).unwrap();
        let o = cubin_ld(&d, &["-arch=sm_90", "a.o", "b.o", name, "-o", "o.cubin"]);
        assert_eq!(o.status.code(), Some(255), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("Undefined reference to '_Z7c_scalef'"),
            "{name}"
        );
        // nvlink says nothing of them; cubin-ld warns, but not of a shared library.
        let warned = stderr(&o).contains(&format!("warning : input file '{name}' skipped"));
        assert_eq!(warned, name != "c.so", "{name}: {}", stderr(&o));
    }
}

#[test]
fn a_gnu_archive_member_with_a_bsd_style_name_is_linked_whole_as_nvlink_links_it() {
    // `#1/3` would be a BSD long name (3 bytes of name before the data); in a GNU archive
    // (one with a GNU symbol table, `/`) nvlink takes the member's data whole.
    let d = scratch("bsd-name");
    copy_objects(&d);
    let member = |m: &str| std::fs::read(d.join(m)).unwrap();
    let mut lib = archive(
        &[
            ("", vec![0; 4]), // the symbol table, named `/`, listing no symbols
            ("a.o", member("a.o")),
            ("b.o", member("b.o")),
            ("c.o", member("c.o")),
        ],
        false,
    );
    let at = lib
        .windows(16)
        .position(|w| w == b"b.o/            ")
        .unwrap();
    lib[at..at + 16].copy_from_slice(b"#1/3            ");
    std::fs::write(d.join("lib.a"), lib).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "lib.a", "-o", "out.cubin"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn an_archive_is_read_only_up_to_its_first_member_that_is_not_elf() {
    // nvlink 13.5 stops at text, PTX, a fatbin, an empty member or damaged ELF magic, and
    // says nothing; cubin-ld links as it does and names the member and what went unread.
    let d = scratch("not-elf-member");
    copy_objects(&d);
    for (i, stop) in [
        &b"hello\n"[..],
        b".version 8.0\n.target sm_90\n",
        b"",
        b"\x7fEL",
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::write(d.join("odd.o"), stop).unwrap();
        write_archive(&d, "lib.a", &["a.o", "odd.o", "b.o", "c.o"]);
        let o = cubin_ld(&d, &["-arch=sm_90", "lib.a", "-o", "o.cubin"]);
        assert_fails(
            &o,
            255,
            &[
                "Undefined reference to '_Z5b_addii' in 'lib.a:a.o'",
                "Undefined reference to '_Z7c_scalef' in 'lib.a:a.o'",
                "warning : archive 'lib.a': member 'odd.o' is not an ELF object; nvlink reads \
                 no member after it, so 'b.o', 'c.o' are not linked",
            ],
        );
        assert!(!d.join("o.cubin").exists(), "member {i}");
    }
}

#[test]
fn a_cubin_member_of_an_archive_is_skipped_and_reading_goes_on() {
    let d = scratch("cubin-member");
    copy_objects(&d);
    std::fs::copy(host("../b.o"), d.join("dev.o")).unwrap();
    write_archive(&d, "lib.a", &["a.o", "dev.o", "b.o", "c.o"]);
    let o = cubin_ld(&d, &["-arch=sm_90", "lib.a", "-o", "o.cubin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

#[test]
fn lto_ir_without_dlto_is_nvlinks_error() {
    let d = scratch("lto");
    let mut ltoir = b"\xedCN\x7f\x01\x43".to_vec();
    ltoir.resize(256, 0);
    std::fs::write(d.join("x.ltoir"), ltoir).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "x.ltoir", "-o", "o.cubin"]);
    assert_fails(&o, 1, &["fatal   : should only see nvvm files when -lto"]);
    assert!(!d.join("o.cubin").exists());
}

#[test]
fn a_cubin_named_input_must_be_a_device_elf() {
    let d = scratch("notcubin");
    std::fs::write(
        d.join("x.cubin"),
        "this is not an ELF file at all\n".repeat(4),
    )
    .unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "x.cubin", "-o", "o.cubin"]);
    assert_fails(&o, 1, &["cubin not an elf? ('x.cubin')"]);
}

#[test]
fn a_file_shorter_than_any_header_is_refused_whatever_its_name() {
    // (nvlink: 1 to 55 bytes cannot be opened; an empty file is skipped.)
    let d = scratch("tiny");
    copy_objects(&d);
    for name in ["k.cu", "x.cubin", "x.o", "x"] {
        std::fs::write(d.join(name), "int x;\n").unwrap();
        let o = cubin_ld(
            &d,
            &["-arch=sm_90", "a.o", "b.o", "c.o", name, "-o", "o.cubin"],
        );
        assert_fails(&o, 1, &[&format!("Could not open input file '{name}'")]);
    }
    std::fs::write(d.join("empty.o"), "").unwrap();
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "a.o",
            "b.o",
            "c.o",
            "empty.o",
            "-o",
            "o.cubin",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn the_registration_file_lists_each_module_once_in_link_order() {
    let d = scratch("regc");
    copy_objects(&d);
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "c.o",
            "a.o",
            "b.o",
            "-o",
            "o.cubin",
            "--register-link-binaries=r.c",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("r.c")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "#define NUM_PRELINKED_OBJECTS 3");
    assert!(
        lines[1].contains("_4_c_cu_")
            && lines[2].contains("_4_a_cu_")
            && lines[3].contains("_4_b_cu_"),
        "{text}"
    );
}

#[test]
fn a_link_without_device_code_writes_an_empty_module() {
    let d = scratch("nocode");
    // A plain host object (no CUDA sections): skipped, leaving nothing to link.
    let mut elf = std::fs::read(host("a.o")).unwrap();
    // Rename its fatbin sections so that the object carries no device code.
    let at = elf
        .windows(14)
        .position(|w| w == b"__nv_relfatbin")
        .unwrap();
    elf[at..at + 14].copy_from_slice(b"__nv_notfatbin");
    let at = elf
        .windows(16)
        .position(|w| w == b".nvFatBinSegment")
        .unwrap();
    elf[at..at + 16].copy_from_slice(b".notFatBinSegmnt");
    std::fs::write(d.join("plain.o"), elf).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "plain.o", "-o", "o.cubin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(d.join("o.cubin")).unwrap();
    // e_flags: top byte 0x05 marks a module without code.
    assert_eq!(
        u32::from_le_bytes(bytes[0x30..0x34].try_into().unwrap()),
        0x0500_5a04
    );
}

/// A host object whose first fatbin entry (compressed) has a payload that is not what its
/// header says: the device code cannot be read.
fn with_damaged_payload(host: &[u8]) -> Vec<u8> {
    let mut a = host.to_vec();
    let at = a
        .windows(4)
        .position(|w| w == [0x50, 0xed, 0x55, 0xba])
        .unwrap();
    let entry = at + 16;
    let hsize = u32::from_le_bytes(a[entry + 4..entry + 8].try_into().unwrap()) as usize;
    for b in &mut a[entry + hsize..entry + hsize + 16] {
        *b ^= 0x5a;
    }
    a
}

#[test]
fn a_damaged_fatbin_in_a_host_object_is_an_error_naming_the_object() {
    let d = scratch("damaged");
    copy_objects(&d);
    let mut a = std::fs::read(d.join("a.o")).unwrap();
    let at = a
        .windows(4)
        .position(|w| w == [0x50, 0xed, 0x55, 0xba])
        .unwrap();
    // The container claims far more entries than the section holds.
    a[at + 8..at + 16].copy_from_slice(&u64::MAX.to_le_bytes());
    std::fs::write(d.join("bad.o"), &a).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "bad.o", "b.o", "c.o", "-o", "o.cubin"]);
    assert_fails(&o, 1, &["'bad.o'", "damaged fatbin"]);
    assert!(!d.join("o.cubin").exists());
    // A compressed entry whose payload is not what its header says.
    let a = with_damaged_payload(&std::fs::read(d.join("a.o")).unwrap());
    std::fs::write(d.join("bad2.o"), &a).unwrap();
    let o = cubin_ld(
        &d,
        &["-arch=sm_90", "bad2.o", "b.o", "c.o", "-o", "o.cubin"],
    );
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("bad2.o"), "{}", stderr(&o));
    assert!(!d.join("o.cubin").exists());
}

#[test]
fn a_host_object_with_a_damaged_section_count_is_an_error_not_plain_host_code() {
    // e_shnum = 0 and no count in section 0: no sections at all, which no object has.
    let d = scratch("shnum0");
    copy_objects(&d);
    let mut a = std::fs::read(d.join("a.o")).unwrap();
    a[0x3c..0x3e].copy_from_slice(&0u16.to_le_bytes());
    std::fs::write(d.join("a.o"), a).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "a.o", "b.o", "c.o", "-o", "out.cubin"]);
    assert_fails(&o, 1, &["Could not find fatbin in 'a.o'"]);
    assert!(!d.join("out.cubin").exists());
}

#[test]
fn a_system_library_is_read_only_when_the_users_objects_leave_something_undefined() {
    // (a.o, b.o and c.o leave only the unified tables' placeholders undefined; a.o and b.o
    // leave c.o's function. nvlink 13.5, given the same files, reads the library in both:
    // it prints "Uncompress failed" as an error and goes on, linking the first with exit
    // status 0 and failing the second on c.o's function; docs/differences.md.)
    let d = scratch("system-unread");
    copy_objects(&d);
    let bad = with_damaged_payload(&std::fs::read(d.join("c.o")).unwrap());
    std::fs::write(d.join("bad.o"), bad).unwrap();
    write_archive(&d, "libcudadevrt.a", &["bad.o"]);
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "a.o",
            "b.o",
            "c.o",
            "-L.",
            "-lcudadevrt",
            "-o",
            "o.cubin",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = cubin_ld(
        &d,
        &[
            "-arch=sm_90",
            "a.o",
            "b.o",
            "-L.",
            "-lcudadevrt",
            "-o",
            "o2.cubin",
        ],
    );
    assert_fails(&o, 1, &["libcudadevrt.a:bad.o"]);
    assert!(!d.join("o2.cubin").exists());
}

/// `a.o` of a corpus case for sm_100 with its `.nv.compat` FINALIZER_VERSION record (13.5's
/// 0x440) turned into another attribute, as ptxas 13.0 to 13.3 write it.
fn without_finalizer_version() -> Vec<u8> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out/fence_nanosleep/sm_100/a.o");
    let mut bytes = std::fs::read(path).unwrap();
    let compat = cubin_ld::elf::read::Cubin::parse(&bytes)
        .unwrap()
        .section_named(b".nv.compat")
        .map(|s| s.offset as usize..(s.offset + s.size) as usize)
        .unwrap();
    let record = [0x03, 0x0e, 0x40, 0x04];
    let at = compat.start
        + bytes[compat]
            .windows(4)
            .position(|w| w == record)
            .expect("a FINALIZER_VERSION record");
    bytes[at + 1] = 0x07;
    bytes
}

#[test]
fn sm100_code_from_a_ptxas_before_13_4_is_refused_in_a_partial_link_naming_the_file_section_and_ptxas(
) {
    let d = scratch("old_ptxas");
    std::fs::write(d.join("old.o"), without_finalizer_version()).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_100", "-r", "old.o", "-o", "out.cubin"]);
    assert_fails(
        &o,
        1,
        &[
            "'old.o': section '.nv.compat'",
            "no EICOMPAT_ATTR_FINALIZER_VERSION",
            "ptxas V13.5.37",
            "through the toolkit's nvJitLink only, which has no -r",
            "rebuild it with CUDA 13.4 or later",
        ],
    );
    assert!(!d.join("out.cubin").exists());
}

#[test]
fn sm100_code_from_a_ptxas_before_13_4_needs_nvjitlink_for_a_final_link() {
    let d = scratch("old_ptxas_final");
    std::fs::write(d.join("old.o"), without_finalizer_version()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&d)
        .env("CUBIN_LD_NVJITLINK", "/nowhere/libnvJitLink.so")
        .args(["-arch=sm_100", "old.o", "-o", "out.cubin"])
        .output()
        .unwrap();
    assert_fails(
        &o,
        1,
        &[
            "'old.o' (sm_100+ code from ptxas V13.5.37, which nvlink's finalizer compiles again)",
            "needs the CUDA toolkit's nvJitLink library, which was not found",
            "/nowhere/libnvJitLink.so",
        ],
    );
    assert!(!d.join("out.cubin").exists());
}

#[test]
fn an_object_of_cuda_12_is_refused_as_not_implemented_yet_naming_the_file() {
    let d = scratch("cuda12");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out/xtu_call/sm_90/a.o");
    let mut bytes = std::fs::read(path).unwrap();
    bytes[8] = 7; // e_ident[EI_ABIVERSION], as CUDA 12's ptxas writes it
    std::fs::write(d.join("old.o"), bytes).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_90", "old.o", "-o", "out.cubin"]);
    assert_fails(
        &o,
        1,
        &[
            "'old.o': CUDA ELF ABI version 7 (an object of CUDA 12",
            "not implemented yet",
            "rebuild it with CUDA 13",
        ],
    );
    assert!(!d.join("out.cubin").exists());
}

#[test]
fn a_cuda_information_note_of_version_1_names_no_toolkit_to_refuse() {
    // CUDA 12.9's sm_100 objects carry version 1 of the note (`.note.nv.cuver`), whose words
    // after the SM are no toolkit version; nvlink links them (re-finalizing their code).
    let mut bytes = without_finalizer_version();
    let note = cubin_ld::elf::read::Cubin::parse(&bytes)
        .unwrap()
        .section_named(b".note.nv.cuinfo")
        .map(|s| s.offset as usize)
        .unwrap();
    let desc = note + 12 + "NVIDIA Corp\0".len();
    bytes[desc..desc + 8].copy_from_slice(&[1, 0, 100, 0, 1, 0, 0, 0]);
    let d = scratch("cuinfo_v1");
    std::fs::write(d.join("old.o"), bytes).unwrap();
    let o = cubin_ld(&d, &["-arch=sm_100", "-r", "old.o", "-o", "out.cubin"]);
    assert_fails(&o, 1, &["no EICOMPAT_ATTR_FINALIZER_VERSION"]);
    assert!(!stderr(&o).contains("must be recompiled"), "{}", stderr(&o));
}
