//! cubin-ld against nvlink on the committed corpus: every executable link nvlink made for
//! sm_75–sm_90, sm_100 and sm_120 (the `default` mode and each case's extra links, see testdata/out/*/*/links.tsv)
//! is redone with cubin-ld and compared semantically, the linker's own note aside. Where
//! nvlink succeeded the outputs must be equal; where it failed cubin-ld must fail with the
//! same status and leave no output. `cargo test --test link_equiv -- --nocapture status`
//! prints one line per link.

mod common;
use common::matches;
use cubin_ld::compare::{compare_dumps, CompareOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Links that are known to differ, as `case/sm_XX/mode` patterns (`*` matches any part),
/// each with the reason.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[
    ("weak_strong/sm_1*/default", WEAK_STRONG_FRAME),
    ("weak_strong/sm_1*/r", WEAK_STRONG_FRAME),
    ("weak_strong/sm_1*/pr", WEAK_STRONG_FRAME),
    (
        "weak_replaced_by_later_strong/sm_1*/default",
        WEAK_STRONG_FRAME,
    ),
    ("weak_replaced_by_later_strong/sm_1*/r", WEAK_STRONG_FRAME),
    ("weak_replaced_by_later_strong/sm_1*/pr", WEAK_STRONG_FRAME),
    ("weak_fewer_registers/sm_1*/default", WEAK_STRONG_FRAME),
    ("weak_fewer_registers/sm_1*/r", WEAK_STRONG_FRAME),
    ("weak_fewer_registers/sm_1*/pr", WEAK_STRONG_FRAME),
    ("weak_kernel_shared/sm_1*/default", WEAK_STRONG_FRAME),
    ("weak_kernel_shared/sm_1*/r", WEAK_STRONG_FRAME),
    ("weak_kernel_shared/sm_1*/pr", WEAK_STRONG_FRAME),
    ("texref_ptx/sm_7*/r", TEXREF_R),
    ("texref_ptx/sm_8*/r", TEXREF_R),
    ("texref_ptx/sm_90/r", TEXREF_R),
    ("unified_ptx/sm_1*/r", UNIFIED_R),
    ("constant_extern_partial/sm_*/r", CONSTANT_EXTERN_R),
    ("weak_copy_in_function_table/sm_*/default", WEAK_COPY_TABLE),
    ("weak_copy_in_function_table/sm_*/r", WEAK_COPY_TABLE),
    ("weak_copy_in_function_table/sm_*/pr", WEAK_COPY_TABLE),
    ("dead_extern_pool/sm_7*/pr", DELETED_SYMBOL),
    ("dead_extern_pool/sm_8*/pr", DELETED_SYMBOL),
    ("dead_extern_pool/sm_1*/pr", DELETED_SYMBOL),
    ("partial_instance_objects/sm_7*/pr", DELETED_SYMBOL),
    ("partial_instance_objects/sm_8*/pr", DELETED_SYMBOL),
    ("partial_instance_objects/sm_1*/pr", DELETED_SYMBOL),
    ("cp_async_shared/sm_75/pr", DELETED_SYMBOL),
];

const DELETED_SYMBOL: &str = "-preserve-relocs, a function no kernel calls naming an extern \
     __shared__ array (often the global copy of a function ptxas cloned for its callers) \
     beside a pool of functions' static objects, off sm_90: nvlink fails with \
     'Internal error: reference to deleted symbol' (on sm_90 it gives the arrays symbols and \
     records the reference); cubin-ld links it, writing -1 as nvlink does without a pool";

const WEAK_COPY_TABLE: &str = "a __constant__ table holding the address of its object's copy \
     of a weak function that loses to an earlier copy: nvlink drops the table's relocation in \
     every mode (the entry stays 0, a null function pointer the kernel calls; a __device__ \
     table keeps it); cubin-ld keeps the relocation, naming the kept copy";

const CONSTANT_EXTERN_R: &str = "-r with an extern __constant__ no input defines: nvlink \
     places it at -1 and applies its constant-bank relocations, so the final link reads \
     c[0x3][0x3] for table[1] (nvlink's two-step link differs from its one-step one); cubin-ld \
     keeps the relocations, and its two-step link equals nvlink's one-step link";

const UNIFIED_R: &str = "sm_100+ -r with unified functions: nvlink re-lays out each jump \
     slot (.nv.uft.rel.<fn> and its capsule) and writes a stale sh_link in the unified \
     tables; cubin-ld keeps ptxas's slots and links the tables to their symbol table";

const WEAK_STRONG_FRAME: &str = "a weak function replaced by a later object's definition \
     (a strong one, or a weak copy with fewer registers): nvlink gives the winner's main-half .debug_frame entry the Mercury CIE and an FDE without \
     call-frame instructions, whose address range is the Mercury code's (0x40 for a function of \
     0x100 bytes of SASS: the entry no longer covers the function); cubin-ld keeps the input's \
     main-half entry (the driver does not read .debug_frame)";

const TEXREF_R: &str = "nvlink's -r drops the texture/surface-reference relocations (and on \
     sm_90 overwrites their fields), so the final link cannot bind them; cubin-ld keeps them";

/// Links cubin-ld refuses as not implemented yet, as `case/sm_XX/mode` patterns.
const NOT_IMPLEMENTED_YET: &[(&str, &str)] = &[];

const EXEC_ARCHS: [&str; 14] = [
    "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_100a", "sm_103", "sm_103f",
    "sm_110", "sm_120", "sm_120a", "sm_120f", "sm_121",
];

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out")
}

enum Outcome {
    Same,
    Differs(Vec<String>),
    BothRefused,
    OnlyNvlinkRefused,
    OnlyCubinLdRefused(String),
    StatusDiffers(i32, Option<i32>),
}

/// Every executable link of the corpus: (case/sm, mode, flags).
fn exec_links() -> Vec<(String, String, Vec<String>)> {
    let mut v = Vec::new();
    let mut cases: Vec<_> = std::fs::read_dir(out_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    cases.sort();
    for case in cases {
        let case = case.to_string_lossy().into_owned();
        for arch in EXEC_ARCHS {
            let ca = format!("{case}/{arch}");
            let Ok(links) = std::fs::read_to_string(out_dir().join(&ca).join("links.tsv")) else {
                continue;
            };
            for line in links.lines() {
                let (mode, flags) = line.split_once('\t').unwrap_or((line, ""));
                v.push((
                    ca.clone(),
                    mode.to_string(),
                    flags.split_whitespace().map(String::from).collect(),
                ));
            }
        }
    }
    assert!(
        v.len() >= 136,
        "the corpus looks incomplete: {} links",
        v.len()
    );
    v
}

fn link_one(case_arch: &str, mode: &str, flags: &[String]) -> Outcome {
    let dir = out_dir().join(case_arch);
    let arch = case_arch.rsplit('/').next().unwrap();
    let inputs: Vec<PathBuf> = std::fs::read_to_string(dir.join("inputs"))
        .unwrap()
        .lines()
        .map(|l| dir.join(l))
        .collect();
    let nv_rc: i32 = std::fs::read_to_string(dir.join(format!("{mode}.rc")))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Unique per call: the tests of this file run in parallel.
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!(
        "cubin-ld-equiv-{}-{n}-{}-{mode}.cubin",
        std::process::id(),
        case_arch.replace('/', "-")
    ));
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg(format!("-arch={arch}"))
        .args(flags)
        .args(&inputs)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let ours_ok = o.status.success();
    let rescheduled = common::rescheduled_by_nvlink(case_arch);
    let result = match (nv_rc == 0, ours_ok) {
        (false, false) if o.status.code() == Some(nv_rc) => Outcome::BothRefused,
        (false, false) => Outcome::StatusDiffers(nv_rc, o.status.code()),
        (false, true) => Outcome::OnlyNvlinkRefused,
        (true, false) => {
            Outcome::OnlyCubinLdRefused(String::from_utf8_lossy(&o.stderr).into_owned())
        }
        (true, true) => {
            let theirs = cubin_ld::dump::dump_bytes(
                &std::fs::read(dir.join(format!("{mode}.cubin"))).unwrap(),
            )
            .unwrap()
            .text;
            let ours = cubin_ld::dump::dump_bytes(&std::fs::read(&out).unwrap())
                .unwrap_or_else(|e| panic!("{case_arch}: cubin-ld's output does not parse: {e}"))
                .text;
            let mut d = compare_dumps(
                &theirs,
                &ours,
                &CompareOptions {
                    ignore_linker_note: true,
                    ignore_scoreboards: rescheduled,
                    ..Default::default()
                },
            );
            // The warnings too, as nvlink words and orders them.
            let nv_log = std::fs::read_to_string(dir.join(format!("{mode}.log"))).unwrap();
            let our_log =
                String::from_utf8_lossy(&o.stderr).replace(&format!("{}/", dir.display()), "");
            if messages(&nv_log) != messages(&our_log) {
                d.push(format!(
                    "messages differ:\n  nvlink: {:?}\n  cubin-ld: {:?}",
                    messages(&nv_log),
                    messages(&our_log)
                ));
            }
            if d.is_empty() {
                Outcome::Same
            } else {
                Outcome::Differs(d)
            }
        }
    };
    if !ours_ok {
        assert!(
            !out.exists(),
            "{case_arch} {mode}: a failed link left an output file"
        );
    }
    let _ = std::fs::remove_file(&out);
    result
}

/// A linker's messages without its name.
fn messages(log: &str) -> Vec<String> {
    log.lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("nvlink ")
                .trim_start_matches("cubin-ld ")
                .to_string()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Same => "same".into(),
        Outcome::BothRefused => "both refuse".into(),
        Outcome::Differs(d) => format!("{} difference(s):\n{}", d.len(), d.join("\n")),
        Outcome::OnlyNvlinkRefused => "nvlink refuses, cubin-ld links".into(),
        Outcome::OnlyCubinLdRefused(e) => format!("cubin-ld refuses: {e}"),
        Outcome::StatusDiffers(a, b) => {
            format!("both refuse, nvlink with {a}, cubin-ld with {b:?}")
        }
    }
}

#[test]
fn every_executable_link_matches_nvlinks_outcome() {
    let mut failures = Vec::new();
    for (ca, mode, flags) in exec_links() {
        let key = format!("{ca}/{mode}");
        let o = link_one(&ca, &mode, &flags);
        if NOT_IMPLEMENTED_YET.iter().any(|(p, _)| matches(p, &key)) {
            // Links that fail for their own reasons fail as nvlink's do.
            let refused =
                matches!(&o, Outcome::OnlyCubinLdRefused(e) if e.contains("not implemented yet"));
            if !refused && !matches!(o, Outcome::BothRefused) {
                failures.push(format!(
                    "{key}: expected a 'not implemented yet' refusal, got {}",
                    describe(&o)
                ));
            }
            continue;
        }
        let ok = matches!(o, Outcome::Same | Outcome::BothRefused);
        let known = KNOWN_DIFFERENT.iter().any(|(p, _)| matches(p, &key));
        if ok == known {
            failures.push(format!(
                "{key} {flags:?}: {}",
                if ok {
                    "now matches; remove it from KNOWN_DIFFERENT".into()
                } else {
                    describe(&o)
                }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn status() {
    let links = exec_links();
    let mut same = 0;
    for (ca, mode, flags) in &links {
        let o = link_one(ca, mode, flags);
        if matches!(o, Outcome::Same | Outcome::BothRefused) {
            same += 1;
        }
        println!(
            "{:40} {}",
            format!("{ca}/{mode}"),
            describe(&o).lines().next().unwrap_or("")
        );
    }
    println!(
        "{same} of {} links (sm_75–sm_121, default, -r, -preserve-relocs and extra flags) equal nvlink's outcome",
        links.len()
    );
}
