//! The committed feature corpus (testdata/out, made by scripts/gen-testdata.sh) read through
//! cubin-ld's own input layer: every object and every nvlink output must parse and dump, with
//! every number named, and the compare mode must see what is (and is not) different.

use cubin_ld::compare::{compare_dumps, CompareOptions};
use cubin_ld::dump::dump_bytes;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// The architectures every case is built for (a few cases add sm_100a, sm_103, sm_110,
/// sm_120f, sm_121; arch_family adds sm_103f and sm_120a).
const ARCHS: [&str; 7] = [
    "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
];
const MODES: [&str; 3] = ["default", "r", "pr"];

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out")
}

fn sorted_dirs(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// Every (case, arch) folder.
fn case_arch_dirs() -> Vec<PathBuf> {
    sorted_dirs(&out_dir())
        .iter()
        .flat_map(|c| sorted_dirs(c))
        .collect()
}

/// Every committed object and nvlink output.
fn all_cubins() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in case_arch_dirs() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if matches!(p.extension().and_then(|x| x.to_str()), Some("o" | "cubin")) {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(
        v.len() > 500,
        "the corpus looks incomplete: {} files",
        v.len()
    );
    v
}

fn dump_file(p: &Path) -> cubin_ld::dump::Dump {
    let bytes = std::fs::read(p).unwrap();
    dump_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_committed_object_and_reference_parses_and_dumps() {
    all_cubins().par_iter().for_each(|p| {
        let d = dump_file(p);
        assert!(
            d.text.contains("\nsection .symtab\n"),
            "{}: no symbol table in the dump",
            p.display()
        );
    });
}

#[test]
fn dump_names_every_relocation_type_attribute_and_section_type_it_meets() {
    let unknown: Vec<String> = all_cubins()
        .par_iter()
        .flat_map_iter(|p| {
            let d = dump_file(p);
            d.unknowns
                .0
                .into_iter()
                .map(move |u| format!("{}: {u}", p.display()))
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "numbers without a name:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_reference_compares_equal_to_itself() {
    all_cubins().par_iter().for_each(|p| {
        let t = dump_file(p).text;
        let d = compare_dumps(&t, &t, &CompareOptions::default());
        assert!(d.is_empty(), "{}: {d:?}", p.display());
    });
}

#[test]
fn preserve_relocs_output_differs_from_default_by_resolvedrela_sections_and_the_note() {
    let dir = out_dir().join("static_shared/sm_90");
    let a = dump_file(&dir.join("default.cubin")).text;
    let b = dump_file(&dir.join("pr.cubin")).text;
    let diffs = compare_dumps(&a, &b, &CompareOptions::default());
    assert!(
        diffs
            .iter()
            .any(|d| d.starts_with("only in second: section .nv.resolvedrela.text.")),
        "{diffs:#?}"
    );
    assert!(
        diffs
            .iter()
            .any(|d| d.starts_with("section .note.nv.tkinfo:") && d.contains("-preserve-relocs")),
        "{diffs:#?}"
    );
    assert!(
        !diffs.iter().any(|d| d.starts_with("only in first:")),
        "{diffs:#?}"
    );
}

#[test]
fn the_linker_note_can_be_left_out_of_a_comparison() {
    let dir = out_dir().join("xtu_call/sm_90");
    let a = dump_file(&dir.join("default.cubin")).text;
    let b = a
        .replace("tool \"nvlink\"", "tool \"cubin-ld\"")
        .replace("size 0x298", "size 0x2a8");
    assert!(!compare_dumps(&a, &b, &CompareOptions::default()).is_empty());
    let opts = CompareOptions {
        ignore_linker_note: true,
        ..Default::default()
    };
    assert!(compare_dumps(&a, &b, &opts).is_empty());
}

#[test]
fn every_link_records_nvlinks_exit_status_and_output() {
    for d in case_arch_dirs() {
        let inputs = std::fs::read_to_string(d.join("inputs")).unwrap();
        assert!(!inputs.trim().is_empty(), "{}: no inputs", d.display());
        for obj in inputs.lines() {
            assert!(d.join(obj).is_file(), "{}: missing {obj}", d.display());
        }
        for m in MODES {
            let rc: i32 = std::fs::read_to_string(d.join(format!("{m}.rc")))
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            let out = d.join(format!("{m}.cubin"));
            let log = std::fs::read_to_string(d.join(format!("{m}.log"))).unwrap();
            if rc == 0 {
                assert!(
                    out.is_file(),
                    "{}: {m} succeeded without output",
                    d.display()
                );
            } else {
                assert!(
                    !out.exists(),
                    "{}: {m} failed but left an output",
                    d.display()
                );
                assert!(
                    log.contains("nvlink"),
                    "{}: {m} failed silently",
                    d.display()
                );
            }
        }
    }
}

#[test]
fn corpus_covers_every_target_arch_and_every_case() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/src");
    for case in sorted_dirs(&src) {
        let name = case.file_name().unwrap();
        let out = out_dir().join(name);
        assert!(
            out.is_dir(),
            "case {} has no references",
            name.to_string_lossy()
        );
    }
    for arch in ARCHS {
        let n = sorted_dirs(&out_dir())
            .iter()
            .filter(|c| c.join(arch).is_dir())
            .count();
        assert!(n >= 20, "{arch}: only {n} cases");
    }
}

fn log(case: &str, arch: &str, mode: &str) -> String {
    std::fs::read_to_string(out_dir().join(case).join(arch).join(format!("{mode}.log"))).unwrap()
}

#[test]
fn error_cases_record_the_messages_cubin_ld_must_match() {
    assert!(log("undefined", "sm_90", "default")
        .contains("Undefined reference to '_Z10missing_fni' in 'a.o'"));
    assert!(log("dup_function", "sm_90", "default")
        .contains("Multiple definition of '_Z6dup_fni' in 'b.o', first defined in 'a.o'"));
    assert!(log("dup_variable", "sm_75", "r").contains("Multiple definition of 'dup_var'"));
    assert!(log("arch_mismatch", "sm_75", "default")
        .contains("Input file 'b.o' arch does not match target 'sm_75'"));
    assert!(log("launch_bounds_error", "sm_90", "default")
        .contains("with max regcount of 32 calls function '_Z5heavyPKfi'"));
    assert!(log("launch_bounds_error", "sm_90", "r").is_empty());
    assert!(log("recursion", "sm_90", "default").contains("cannot be statically determined"));
    assert!(log("unified_ptx", "sm_90", "default")
        .contains("Unified symbols found but index file not specified"));
}
