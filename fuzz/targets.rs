//! The bodies of the fuzz targets. Two harnesses run them: cargo-fuzz
//! (`fuzz/fuzz_targets/*.rs`, nightly, coverage-guided: `cargo +nightly fuzz run <target>`
//! in `fuzz/`), and the stable replay `tests/fuzz_targets.rs`, which `cargo test` runs over
//! each target's seeds, byte-level variants of them, and every input cargo-fuzz ever found
//! (`fuzz/regressions/<target>/`).
//!
//! A body returns what a linker must never do with the input as an error: a panic is left
//! to the harness (libFuzzer reports it; the replay catches it).

#![allow(dead_code)] // (each cargo-fuzz binary uses one body)

use std::path::Path;

/// The device ELF reader and the object checks after it.
pub fn elf_reader(data: &[u8]) -> Result<(), String> {
    if cubin_ld::elf::Cubin::parse(data).is_ok() {
        let _ = cubin_ld::object::InputObject::new(
            cubin_ld::ids::ObjectId::new(0),
            "fuzz.o".into(),
            data,
        );
    }
    Ok(())
}

/// The fatbin container reader and the decompressors, under a small budget (a bomb must be
/// refused, not allocated).
pub fn fatbin(data: &[u8]) -> Result<(), String> {
    let budget = cubin_ld::input::fatbin::Budget::new(64 << 20);
    if let Ok(entries) = cubin_ld::input::fatbin::first_container(data) {
        for e in &entries {
            let _ = e.describe();
            if let Ok(bytes) = cubin_ld::input::fatbin::payload(e, &budget) {
                elf_reader(&bytes)?;
            }
        }
    }
    Ok(())
}

/// Host objects (what `nvcc -dc` writes) and the fatbin they carry.
pub fn host_object(data: &[u8]) -> Result<(), String> {
    if let Ok(host) = cubin_ld::input::host::parse("fuzz.o", data) {
        if let Some(f) = host.relfatbin {
            fatbin(f)?;
        }
    }
    Ok(())
}

/// Static libraries: GNU, BSD and thin archive headers.
pub fn archive(data: &[u8]) -> Result<(), String> {
    let dir = std::env::temp_dir();
    if let Ok(members) = cubin_ld::input::archive::members(&dir.join("fuzz.a"), "fuzz.a", data) {
        for m in &members.read {
            host_object(&m.bytes)?;
        }
    }
    Ok(())
}

/// Whether a failed link's messages (`all`) name the damaged file `bad_name`, or are what the
/// damage made of a valid object: an undefined reference, or one of nvlink's refusals that
/// name no file (code for an 'a' target, a kernel's register limit below its callees', a
/// function that is a kernel in one object and not in another), kept in nvlink's words.
pub fn names_the_damage(all: &str, bad_name: &str) -> bool {
    all.contains(bad_name)
        || all.contains("Undefined reference")
        || all.contains("cannot link accelerated arch to non-accelerated")
        || all.contains("with max regcount of")
        || all.contains("not declared __global__ in all source files")
}

/// A whole link of the input, as a device object, with healthy partners from `corpus`
/// (`testdata/out`): the first byte picks the partners and the mode. A failed link leaves
/// no output and names the input (or an undefined reference the damage caused, or one of
/// nvlink's refusals that name no file); a link that succeeds writes a cubin that reads back.
pub fn link_one(data: &[u8], corpus: &Path, dir: &Path) -> Result<(), String> {
    const SETUPS: &[(&str, &[&str], &[&str])] = &[
        ("sm_90", &["xtu_call/sm_90/b.o", "xtu_call/sm_90/c.o"], &[]),
        ("sm_90", &["static_shared/sm_90/b.o"], &["-r"]),
        ("sm_75", &["globals/sm_75/b.o"], &["-preserve-relocs"]),
        ("sm_120", &["weak_inline/sm_120/a.o"], &[]),
        (
            "sm_100",
            &["xtu_call/sm_100/b.o", "xtu_call/sm_100/c.o"],
            &[],
        ),
    ];
    let Some((&pick, object)) = data.split_first() else {
        return Ok(());
    };
    let (arch, partners, flags) = SETUPS[pick as usize % SETUPS.len()];
    let bad = dir.join("bad.o");
    let out = dir.join("out.cubin");
    std::fs::write(&bad, object).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out);
    let mut args = vec![
        format!("-arch={arch}"),
        "-o".into(),
        out.display().to_string(),
    ];
    args.extend(flags.iter().map(|f| f.to_string()));
    args.push(bad.display().to_string());
    args.extend(
        partners
            .iter()
            .map(|p| corpus.join(p).display().to_string()),
    );
    let parsed = cubin_ld::cli::parse(&args).map_err(|e| e.to_string())?;
    match cubin_ld::link(&parsed) {
        Ok(_) => {
            let bytes = std::fs::read(&out).map_err(|_| "linked but wrote nothing".to_string())?;
            cubin_ld::elf::Cubin::parse(&bytes)
                .map_err(|e| format!("the output does not read back: {e}"))?;
        }
        Err(f) => {
            if out.exists() {
                return Err("failed but left an output".into());
            }
            let all = format!("{:?} {:?}", f.errors, f.fatal);
            if !names_the_damage(&all, "bad.o") {
                return Err(format!(
                    "an error that does not name the damaged file: {all}"
                ));
            }
        }
    }
    Ok(())
}
