//! cubin-ld against nvlink on the committed corpus: every (case, arch) link nvlink did is
//! redone with cubin-ld and compared semantically (the linker's own note aside). Links listed
//! in MATCHING must match exactly; links nvlink refused must be refused. The full status of
//! every link is printed by `cargo test --test link_equiv -- --nocapture status`.

use cubin_ld::compare::{compare_dumps, CompareOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Executable links (default mode) that cubin-ld reproduces today, as `case/sm_XX`.
/// Grow this list as features land; never shrink it.
const MATCHING: &[&str] = &[
    "arch_mismatch/sm_86",
    "arch_mismatch/sm_89",
    "callchain_stack/sm_75",
    "callchain_stack/sm_80",
    "callchain_stack/sm_86",
    "callchain_stack/sm_89",
    "callchain_stack/sm_90",
    "constant/sm_75",
    "constant/sm_80",
    "constant/sm_86",
    "constant/sm_89",
    "constant/sm_90",
    "coop_groups/sm_75",
    "coop_groups/sm_80",
    "coop_groups/sm_86",
    "coop_groups/sm_89",
    "coop_groups/sm_90",
    "dead_code/sm_75",
    "dead_code/sm_80",
    "dead_code/sm_86",
    "dead_code/sm_89",
    "dead_code/sm_90",
    "debug_g/sm_75",
    "debug_g/sm_80",
    "debug_g/sm_86",
    "debug_g/sm_89",
    "debug_g/sm_90",
    "extern_shared/sm_75",
    "extern_shared/sm_80",
    "extern_shared/sm_86",
    "extern_shared/sm_89",
    "extern_shared/sm_90",
    "funcptr/sm_75",
    "funcptr/sm_80",
    "funcptr/sm_86",
    "funcptr/sm_89",
    "funcptr/sm_90",
    "globals/sm_75",
    "globals/sm_80",
    "globals/sm_86",
    "globals/sm_89",
    "globals/sm_90",
    "ld_unified/sm_75",
    "ld_unified/sm_80",
    "ld_unified/sm_86",
    "ld_unified/sm_89",
    "ld_unified/sm_90",
    "managed/sm_75",
    "managed/sm_80",
    "managed/sm_86",
    "managed/sm_89",
    "managed/sm_90",
    "printf_malloc/sm_75",
    "printf_malloc/sm_80",
    "printf_malloc/sm_86",
    "printf_malloc/sm_89",
    "printf_malloc/sm_90",
    "recursion/sm_75",
    "recursion/sm_80",
    "recursion/sm_86",
    "recursion/sm_89",
    "recursion/sm_90",
    "regpressure/sm_75",
    "regpressure/sm_80",
    "regpressure/sm_86",
    "regpressure/sm_89",
    "regpressure/sm_90",
    "static_shared/sm_75",
    "static_shared/sm_80",
    "static_shared/sm_86",
    "static_shared/sm_89",
    "static_shared/sm_90",
    "texref_ptx/sm_75",
    "texref_ptx/sm_80",
    "texref_ptx/sm_86",
    "texref_ptx/sm_89",
    "texref_ptx/sm_90",
    "texture_surface/sm_75",
    "texture_surface/sm_80",
    "texture_surface/sm_86",
    "texture_surface/sm_89",
    "texture_surface/sm_90",
    "virtual/sm_75",
    "virtual/sm_80",
    "virtual/sm_86",
    "virtual/sm_89",
    "virtual/sm_90",
    "weak_inline/sm_75",
    "weak_inline/sm_80",
    "weak_inline/sm_86",
    "weak_inline/sm_89",
    "weak_inline/sm_90",
    "weak_strong/sm_75",
    "weak_strong/sm_80",
    "weak_strong/sm_86",
    "weak_strong/sm_89",
    "weak_strong/sm_90",
    "xtu_call/sm_75",
    "xtu_call/sm_80",
    "xtu_call/sm_86",
    "xtu_call/sm_89",
    "xtu_call/sm_90",
];

/// Links nvlink refuses that cubin-ld must refuse too (same exit status).
const REFUSED: &[&str] = &[
    "dup_function/sm_75",
    "dup_function/sm_90",
    "dup_kernel/sm_80",
    "dup_kernel/sm_90",
    "dup_variable/sm_86",
    "dup_variable/sm_90",
    "undefined/sm_75",
    "undefined/sm_90",
    "arch_mismatch/sm_75",
    "arch_mismatch/sm_80",
    "arch_mismatch/sm_90",
];

const EXEC_ARCHS: [&str; 5] = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"];

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out")
}

enum Outcome {
    Same,
    Differs(Vec<String>),
    BothRefused,
    OnlyNvlinkRefused,
    OnlyCubinLdRefused(String),
}

fn link_one(case_arch: &str) -> Outcome {
    let dir = out_dir().join(case_arch);
    let arch = case_arch.rsplit('/').next().unwrap();
    let inputs: Vec<PathBuf> = std::fs::read_to_string(dir.join("inputs"))
        .unwrap()
        .lines()
        .map(|l| dir.join(l))
        .collect();
    let nv_rc: i32 = std::fs::read_to_string(dir.join("default.rc"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let tmp = std::env::temp_dir().join(format!(
        "cubin-ld-equiv-{}-{}",
        std::process::id(),
        case_arch.replace('/', "-")
    ));
    let out = tmp.with_extension("cubin");
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg(format!("-arch={arch}"))
        .args(&inputs)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let ours_ok = o.status.success();
    let result = match (nv_rc == 0, ours_ok) {
        (false, false) => {
            assert_eq!(
                o.status.code(),
                Some(nv_rc),
                "{case_arch}: exit status differs from nvlink's"
            );
            Outcome::BothRefused
        }
        (false, true) => Outcome::OnlyNvlinkRefused,
        (true, false) => {
            Outcome::OnlyCubinLdRefused(String::from_utf8_lossy(&o.stderr).into_owned())
        }
        (true, true) => {
            let theirs =
                cubin_ld::dump::dump_bytes(&std::fs::read(dir.join("default.cubin")).unwrap())
                    .unwrap()
                    .text;
            let ours = cubin_ld::dump::dump_bytes(&std::fs::read(&out).unwrap())
                .unwrap_or_else(|e| panic!("{case_arch}: cubin-ld's output does not parse: {e}"))
                .text;
            let d = compare_dumps(
                &theirs,
                &ours,
                &CompareOptions {
                    ignore_linker_note: true,
                    ..Default::default()
                },
            );
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
            "{case_arch}: a failed link left an output file"
        );
    }
    let _ = std::fs::remove_file(&out);
    result
}

#[test]
fn matching_links_equal_nvlinks_output() {
    for ca in MATCHING {
        match link_one(ca) {
            Outcome::Same => {}
            Outcome::Differs(d) => panic!("{ca}: differs from nvlink:\n{}", d.join("\n")),
            Outcome::OnlyCubinLdRefused(e) => panic!("{ca}: cubin-ld refused: {e}"),
            _ => panic!("{ca}: nvlink refused this link; it does not belong in MATCHING"),
        }
    }
}

#[test]
fn links_nvlink_refuses_are_refused_with_the_same_status() {
    for ca in REFUSED {
        assert!(
            matches!(link_one(ca), Outcome::BothRefused),
            "{ca}: cubin-ld did not refuse it"
        );
    }
}

#[test]
fn status() {
    let mut same = 0;
    let mut total = 0;
    for case in std::fs::read_dir(out_dir()).unwrap() {
        let case = case.unwrap().file_name().to_string_lossy().into_owned();
        for arch in EXEC_ARCHS {
            let ca = format!("{case}/{arch}");
            if !out_dir().join(&ca).is_dir() {
                continue;
            }
            total += 1;
            let line = match link_one(&ca) {
                Outcome::Same => {
                    same += 1;
                    "same".to_string()
                }
                Outcome::BothRefused => {
                    same += 1;
                    "both refuse".to_string()
                }
                Outcome::Differs(d) => format!(
                    "{} difference(s), first: {}",
                    d.len(),
                    d[0].lines().next().unwrap_or("")
                ),
                Outcome::OnlyNvlinkRefused => "nvlink refuses, cubin-ld links".to_string(),
                Outcome::OnlyCubinLdRefused(e) => {
                    format!("cubin-ld refuses: {}", e.lines().next().unwrap_or(""))
                }
            };
            println!("{ca:32} {line}");
        }
    }
    println!("{same} of {total} executable links (sm_75–sm_90) equal nvlink's outcome");
}
