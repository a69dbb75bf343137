//! `-r` with unified functions and variables: the merged `.nv.uft.entry` / `.nv.udt.entry`
//! tables and the checks that keep the final link's tables unambiguous. (The merge itself is
//! compared with nvlink's output in link_equiv.rs: unified_ptx, sm_90.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(rel)
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("unified", name)
}

/// unified_ptx's b.o (sm_90) with its function's UUID (0x3333…, 0xcccc…) replaced.
fn b_with_uuid(dir: &Path, uuid1: u64, uuid2: u64) -> PathBuf {
    let mut bytes = std::fs::read(corpus("unified_ptx/sm_90/b.o")).unwrap();
    let mut old = 0x3333_3333_3333_3333u64.to_le_bytes().to_vec();
    old.extend(0xcccc_cccc_cccc_ccccu64.to_le_bytes());
    let at = bytes
        .windows(16)
        .position(|w| w == old)
        .expect("b.o's UFT record");
    bytes[at..at + 8].copy_from_slice(&uuid1.to_le_bytes());
    bytes[at + 8..at + 16].copy_from_slice(&uuid2.to_le_bytes());
    let p = dir.join("b.o");
    std::fs::write(&p, bytes).unwrap();
    p
}

fn partial_link(dir: &Path, b: &Path) -> (Output, PathBuf) {
    let out = dir.join("ab.o");
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg("-arch=sm_90")
        .arg("-r")
        .arg(corpus("unified_ptx/sm_90/a.o"))
        .arg(b)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    (o, out)
}

#[test]
fn partial_link_concatenates_the_tables_with_linked_flags() {
    let d = scratch("merge");
    let (o, out) = partial_link(&d, &corpus("unified_ptx/sm_90/b.o"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dump = cubin_ld::dump::dump_bytes(&std::fs::read(&out).unwrap())
        .unwrap()
        .text;
    let uft = dump
        .split("section .nv.uft.entry\n")
        .nth(1)
        .and_then(|s| s.split("\nsection ").next())
        .unwrap();
    // Two records, a.o's then b.o's, each with flags 7 and its UUID.
    assert!(uft.contains("size 0x40"), "{uft}");
    assert!(uft.contains("07 00 00 00 00 00 00 00 00 00 00 00"), "{uft}");
    let a_at = uft.find("11 11 11 11 11 11 11 11 aa aa").unwrap();
    let b_at = uft.find("33 33 33 33 33 33 33 33 cc cc").unwrap();
    assert!(a_at < b_at, "{uft}");
}

#[test]
fn one_id_on_two_unified_functions_is_refused() {
    let d = scratch("dup");
    let b = b_with_uuid(&d, 0x1111_1111_1111_1111, 0xaaaa_aaaa_aaaa_aaaa);
    let (o, out) = partial_link(&d, &b);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("duplicate unified function id"), "{err}");
    assert!(err.contains("ufn_a") && err.contains("ufn_b"), "{err}");
    assert!(!out.exists());
}

#[test]
fn two_ids_with_one_lookup_key_link_as_in_nvlink() {
    let d = scratch("key");
    // Different UUID, same uuid1 ^ uuid2 as a.o's function: nvlink links it (real programs
    // have such pairs), and so does cubin-ld.
    let flip = 0x0f0f_0000_0000_00ffu64;
    let b = b_with_uuid(
        &d,
        0x1111_1111_1111_1111 ^ flip,
        0xaaaa_aaaa_aaaa_aaaa ^ flip,
    );
    let (o, out) = partial_link(&d, &b);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.exists());
}

#[test]
fn an_executable_link_with_unified_symbols_needs_the_index_file_as_in_nvlink() {
    let d = scratch("exec");
    let out = d.join("a.cubin");
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg("-arch=sm_90")
        .arg(corpus("unified_ptx/sm_90/a.o"))
        .arg(corpus("unified_ptx/sm_90/b.o"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("Unified symbols found but index file not specified."));
    assert!(
        err.contains("unified_ptx/sm_90/a.o' holds unified"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn a_unified_function_table_whose_slots_and_entries_do_not_pair_names_the_input() {
    let d = scratch("unpaired");
    // b.o's jump slot `.nv.uft.rel.ufn_b` renamed (with its relocations) so that it is no
    // jump slot: its entry has no slot.
    let mut bytes = std::fs::read(corpus("unified_ptx/sm_90/b.o")).unwrap();
    let name = b".nv.uft.rel.ufn_b";
    let mut renamed = 0;
    for at in 0..bytes.len() - name.len() {
        if &bytes[at..at + name.len()] == name {
            bytes[at + 10] = b'X';
            renamed += 1;
        }
    }
    assert!(renamed > 0);
    let b = d.join("b.o");
    std::fs::write(&b, bytes).unwrap();
    let (o, out) = partial_link(&d, &b);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 jump slot(s)") && err.contains("b.o' has 0 and 1"),
        "{err}"
    );
    assert!(!out.exists());
}
