//! Partial links survive a second link. On the committed corpus (no toolkit needed):
//! - nvlink's `-r` output (`r.cubin`), finished by cubin-ld, equals nvlink's own executable link
//!   of it (`rfinal.cubin`), the linker's note aside;
//! - a partial link of partial links equals a one-step partial link of all the objects
//!   (section, symbol and entry order aside: they follow the inputs, which differ).
//!
//! The other direction (cubin-ld's `-r` output finished by nvlink) needs nvlink:
//! `scripts/oracle.sh` checks it.

mod common;
use cubin_ld::compare::{compare_dumps, CompareOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Round trips known to differ, as `case` prefixes of `case/sm_XX`, with the reason.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[];

/// Cases whose nvlink round trip is lossy, compared with the one-step link instead (the
/// tool notes aside: a partial link drops the inputs' ptxas records).
const ONE_STEP_REFERENCE: &[(&str, &str)] = &[];

/// Cases where nvlink's own partial link of partial links differs from its one-step partial
/// link, as cubin-ld's does (both match nvlink's), as `case/` prefixes.
const SEPARATE_DIFFERS_IN_NVLINK: &[(&str, &str)] = &[
    (
        "debug_exits_expanded/",
        "the 16-byte .nv.shared areas -r gives some_bytes and some_lanes (kernels without \
         shared memory, beside b.o's extern arrays) are padded again when the partial links \
         are joined (0x20; one step: 0x10), and the joined link names the areas with section \
         symbols and an externsharedinstance, by nvlink as by cubin-ld",
    ),
    (
        "shared_launch/",
        "a kernel's 16-byte .nv.shared that -r makes for an area reached only through callees \
         is padded again when the partial links are joined (0x20; one step: 0x10), by nvlink \
         as by cubin-ld",
    ),
    (
        "partial_unnamed_area/",
        "the 16-byte area -r gives a kernel that uses no shared memory is padded again when a \
         partial link is linked again with the extern arrays' object (0x20; one step: 0x10), \
         by nvlink as by cubin-ld",
    ),
    (
        "dead_extern_pool/",
        "k2's area, which -r of b.o alone makes (no 64-aligned array there), stays when the \
         partial links are joined (0x50, aligned 64; one step: none, as kernels without \
         static objects beside a pool aligned above 16), by nvlink as by cubin-ld",
    ),
    (
        "cp_async_fences/",
        "-lineinfo: a file-table entry's length in .debug_line (0x9d in the one-step partial \
         link) is 0 when the partial links are joined, by nvlink as by cubin-ld",
    ),
];

fn separate_differs_in_nvlink(dir: &Path) -> bool {
    SEPARATE_DIFFERS_IN_NVLINK
        .iter()
        .any(|(p, _)| label(dir).starts_with(p))
}

fn known(label: &str) -> bool {
    KNOWN_DIFFERENT.iter().any(|(p, _)| label.starts_with(p))
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out")
}

/// Every `case/sm_XX` folder whose file `name` exists, sorted.
fn dirs_with(name: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out_dir())
        .unwrap()
        .flat_map(|c| std::fs::read_dir(c.unwrap().path()).unwrap())
        .map(|d| d.unwrap().path())
        .filter(|d| d.join(name).is_file())
        .collect();
    v.sort();
    v
}

fn arch_of(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

fn label(dir: &Path) -> String {
    let arch = arch_of(dir);
    let case = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
    format!("{case}/{arch}")
}

fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cubin-ld-rt-{}-{tag}.cubin", std::process::id()))
}

/// Runs cubin-ld; Err with its messages when it fails.
fn cubin_ld(args: &[&std::ffi::OsStr]) -> Result<(), String> {
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .args(args)
        .output()
        .unwrap();
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

fn dump(p: &Path) -> String {
    cubin_ld::dump::dump_bytes(&std::fs::read(p).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .text
}

fn rc(dir: &Path, mode: &str) -> i32 {
    std::fs::read_to_string(dir.join(format!("{mode}.rc")))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn nvlink_partial_links_finish_with_cubin_ld_as_with_nvlink() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in dirs_with("rfinal.rc") {
        let out = scratch(&format!("final-{}", label(&dir).replace('/', "-")));
        let r = cubin_ld(&[
            format!("-arch={}", arch_of(&dir)).as_ref(),
            dir.join("r.cubin").as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        match (rc(&dir, "rfinal"), r) {
            (0, Ok(())) => {
                let one_step = ONE_STEP_REFERENCE
                    .iter()
                    .any(|(p, _)| label(&dir).starts_with(p));
                let (reference, ignore_sections) = if one_step {
                    ("default.cubin", vec![".note.nv.tkinfo".to_string()])
                } else {
                    ("rfinal.cubin", Vec::new())
                };
                let d = compare_dumps(
                    &dump(&dir.join(reference)),
                    &dump(&out),
                    &CompareOptions {
                        ignore_linker_note: true,
                        // (a one-step link's order follows other inputs)
                        ignore_order: one_step,
                        ignore_sections,
                        // (nvlink re-schedules sm_100+ kernels that call nothing; see docs/differences.md)
                        ignore_scoreboards: common::rescheduled_by_nvlink(&label(&dir)),
                        ..Default::default()
                    },
                );
                if d.is_empty() == known(&label(&dir)) {
                    failures.push(format!("{}: {}", label(&dir), d.join("\n")));
                }
                checked += 1;
            }
            (0, Err(e)) if e.contains("not implemented yet") => {}
            (0, Err(e)) => failures.push(format!("{}: cubin-ld fails: {e}", label(&dir))),
            (_, Ok(())) => {
                failures.push(format!("{}: nvlink refuses, cubin-ld links", label(&dir)))
            }
            (_, Err(_)) => {}
        }
        let _ = std::fs::remove_file(&out);
    }
    assert!(checked >= 100, "only {checked} round trips checked");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A case's objects, in link order.
fn inputs_of(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(dir.join("inputs"))
        .unwrap()
        .lines()
        .map(|l| dir.join(l))
        .collect()
}

/// `cubin-ld -arch=<arch> -r <inputs> -o <out>`.
fn partial_link(arch: &str, inputs: &[PathBuf], out: &Path) -> Result<(), String> {
    let arch = format!("-arch={arch}");
    let mut args: Vec<&std::ffi::OsStr> = vec![arch.as_ref(), "-r".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend(["-o".as_ref(), out.as_os_str()]);
    cubin_ld(&args)
}

/// What differs between two partial links of the same objects (order and tool notes aside).
fn partial_differences(one_step: &Path, other: &Path) -> Vec<String> {
    compare_dumps(
        &dump(one_step),
        &dump(other),
        &CompareOptions {
            ignore_order: true,
            ignore_sections: vec![".note.nv.tkinfo".into()],
            ..Default::default()
        },
    )
}

#[test]
fn a_partial_link_of_partial_links_equals_a_one_step_partial_link() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in dirs_with("r.cubin") {
        let inputs = inputs_of(&dir);
        if inputs.len() < 2 || separate_differs_in_nvlink(&dir) {
            continue;
        }
        let arch = arch_of(&dir);
        let tag = label(&dir).replace('/', "-");
        let (first, one_step, two_step) = (
            scratch(&format!("p1-{tag}")),
            scratch(&format!("r1-{tag}")),
            scratch(&format!("rr-{tag}")),
        );
        let rest: Vec<PathBuf> = [first.clone()]
            .into_iter()
            .chain(inputs[1..].to_vec())
            .collect();
        let result = partial_link(&arch, &inputs, &one_step)
            .and_then(|_| partial_link(&arch, &inputs[..1], &first))
            .and_then(|_| partial_link(&arch, &rest, &two_step));
        match result {
            Ok(()) => {
                let d = partial_differences(&one_step, &two_step);
                if !d.is_empty() {
                    failures.push(format!("{}: {}", label(&dir), d.join("\n")));
                }
                checked += 1;
            }
            Err(e) if e.contains("not implemented yet") => {}
            Err(e) => failures.push(format!("{}: {e}", label(&dir))),
        }
        for f in [&first, &one_step, &two_step] {
            let _ = std::fs::remove_file(f);
        }
    }
    assert!(
        checked >= 100,
        "only {checked} partial links of partial links checked"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every object partially linked alone, then the partial outputs linked together (sm_75–sm_90:
/// on sm_100+ the second link lists some code sections in another order, which the capsule
/// headers record): the same as one partial link of the objects. A partial output whose
/// `__constant__` data would move is refused (its code holds the resolved offsets). Left
/// out: -G objects, whose partial outputs keep `.debug_info`'s offsets into the other debug
/// sections without relocations (sm_75–sm_90 partial links resolve them, as nvlink's).
#[test]
fn a_partial_link_of_separate_partial_links_equals_a_one_step_partial_link() {
    let mut failures = Vec::new();
    let (mut checked, mut refused) = (0, 0);
    for dir in dirs_with("r.cubin") {
        let arch = arch_of(&dir);
        if arch.starts_with("sm_1")
            || [
                "debug_g/",
                "debug_symbol_order_g/",
                "debug_weak_copies/",
                "debug_local_names/",
                "ptx_const0_size_r/",
                "reg_sass_weak_copies_finished/",
            ]
            .iter()
            .any(|p| label(&dir).starts_with(p))
        {
            continue;
        }
        let inputs = inputs_of(&dir);
        if inputs.len() < 2 || separate_differs_in_nvlink(&dir) {
            continue;
        }
        let tag = label(&dir).replace('/', "-");
        let one_step = scratch(&format!("s1-{tag}"));
        let joined = scratch(&format!("sj-{tag}"));
        let parts: Vec<PathBuf> = (0..inputs.len())
            .map(|k| scratch(&format!("s{k}p-{tag}")))
            .collect();
        let mut result = partial_link(&arch, &inputs, &one_step);
        for (input, part) in inputs.iter().zip(&parts) {
            result = result.and_then(|_| partial_link(&arch, std::slice::from_ref(input), part));
        }
        match result.and_then(|_| partial_link(&arch, &parts, &joined)) {
            Ok(()) => {
                let d = partial_differences(&one_step, &joined);
                if !d.is_empty() {
                    failures.push(format!("{}: {}", label(&dir), d.join("\n")));
                }
                checked += 1;
            }
            Err(e) if e.contains("data would move") => refused += 1,
            Err(e) if e.contains("not implemented yet") => {}
            Err(e) => failures.push(format!("{}: {e}", label(&dir))),
        }
        for f in parts.iter().chain([&one_step, &joined]) {
            let _ = std::fs::remove_file(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked >= 50, "only {checked} joined partial links checked");
    // (constant, dead_code and the like put __constant__ data in a later object)
    assert!(refused >= 1, "no moved __constant__ data refused");
}
