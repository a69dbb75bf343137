//! Final links of sm_100+ code from a ptxas before 13.4, which nvlink's finalizer compiles
//! again: cubin-ld hands them to the toolkit's nvJitLink (src/jitlink.rs), and the output must
//! be nvlink's, the linker's own note aside. Needs the toolkit (skipped, and said so, without
//! it); the refusals without it are in tests/inputs.rs. scripts/programs links NVSHMEM's
//! prebuilt device library (ptxas 13.0 code) this way.

mod common;
use common::{report_skipped, toolkit, Toolkit};
use cubin_ld::compare::{compare_dumps, CompareOptions};
use std::path::Path;
use std::process::Command;

/// `a.o` of a corpus case for sm_100, its `.nv.compat` FINALIZER_VERSION record (13.5's
/// 0x440) turned into another attribute, as ptxas 13.0 to 13.3 write no such record.
fn without_finalizer_version(case: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(case)
        .join("sm_100/a.o");
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

/// Links `inputs` (in `dir`) with `flags` by nvlink and by cubin-ld; the semantic differences.
fn differences(tk: &Toolkit, dir: &Path, flags: &[&str], inputs: &[&str]) -> Vec<String> {
    let run = |tool: &Path, out: &str| {
        let o = Command::new(tool)
            .current_dir(dir)
            .env("PATH", &tk.bin)
            .args(flags)
            .args(inputs)
            .args(["-o", out])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}: {}",
            tool.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let bytes = std::fs::read(dir.join(out)).unwrap();
        cubin_ld::dump::dump_bytes(&bytes).unwrap().text
    };
    let theirs = run(&tk.bin.join("nvlink"), "nvlink.cubin");
    let ours = run(Path::new(env!("CARGO_BIN_EXE_cubin-ld")), "cubin-ld.cubin");
    compare_dumps(
        &theirs,
        &ours,
        &CompareOptions {
            ignore_linker_note: true,
            ..Default::default()
        },
    )
}

#[test]
fn a_final_link_of_code_nvlink_refinalizes_goes_through_nvjitlink_and_is_nvlinks() {
    let Some(tk) = toolkit() else {
        return report_skipped(
            "a_final_link_of_code_nvlink_refinalizes_goes_through_nvjitlink_and_is_nvlinks",
            3,
            "no CUDA toolkit (scripts/cuda-toolkit.sh)",
        );
    };
    let d = common::Scratch::new("jitlink", "final");
    std::fs::write(d.join("old.o"), without_finalizer_version("xtu_call")).unwrap();
    std::fs::write(
        d.join("fence.o"),
        without_finalizer_version("fence_nanosleep"),
    )
    .unwrap();
    for o in ["b.o", "c.o"] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out/xtu_call/sm_100");
        std::fs::copy(from.join(o), d.join(o)).unwrap();
    }
    for (flags, inputs) in [
        (&["-arch=sm_100"][..], &["old.o", "b.o", "c.o"][..]),
        (&["-arch=sm_100", "-g"], &["b.o", "old.o", "c.o"]),
        (&["-arch=sm_100"], &["fence.o"]),
    ] {
        let diffs = differences(&tk, &d, flags, inputs);
        assert!(
            diffs.is_empty(),
            "{flags:?} {inputs:?}: {}",
            diffs.join("\n")
        );
    }
}
