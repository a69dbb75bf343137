//! Dependencies point one way: each module imports only from modules below it in the
//! pipeline's layer order (a pass never reaches back up to a later pass), so the file tree
//! reads as the pipeline and the module graph has no cycle. `lib.rs` (the pass list) and the
//! binaries sit on top and may use anything.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top. A module may use the modules before it in this list, never one after it.
const LAYERS: &[&str] = &[
    // utilities
    "diag",
    "messages",
    "graph",
    "demangle",
    "timing",
    "trace",
    "progress",
    "faults",
    "early_exit",
    "ids",
    "prefault",
    // vocabulary: targets, the CUDA ELF format, SASS control bits, relocation types and
    // bit fields
    "arch",
    "elf",
    "control_bits",
    "reloc",
    // the output model and its ordering policy
    "output",
    "policy",
    // the passes, in pipeline order
    "input",
    "lto",
    "object",
    "refinalize",
    "resolve",
    "liveness",
    "explain",
    "merge",
    "relocate",
    "mercury",
    "layout",
    "write",
    "map",
    // the driver: command line, loading, nvlink's stopping points
    "cli",
    "host_script",
    "load",
    "jitlink",
    "reproduce",
    "checks",
    // the inspector (cubin-dump, the differential tests)
    "dump",
    "compare",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`merge` for `src/merge/info/mod.rs`); `None` for
/// lib.rs, main.rs and the binaries.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (!matches!(name.as_str(), "lib" | "main" | "bin")).then_some(name)
}

/// The top-level modules named after `crate::` in `text`: `crate::merge::shared`,
/// `use crate::{arch, cli::Args}` (unit tests at the end of a file excluded).
fn crate_imports(text: &str) -> BTreeSet<String> {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The items of the group at depth 0.
            let (mut depth, mut start) = (0usize, 0usize);
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.insert(ident(&group[start..k]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(&group[start..k]));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

#[test]
fn every_module_has_a_layer() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let missing: Vec<&String> = modules
        .iter()
        .filter(|m| !LAYERS.contains(&m.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "modules not placed in tests/tidy.rs LAYERS: {missing:?}"
    );
}

#[test]
fn imports_point_down_the_pipeline() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut wrong = Vec::new();
    for f in &files {
        let Some(module) = module_of(f) else { continue };
        let Some(own) = rank(&module) else { continue };
        let text = std::fs::read_to_string(f).unwrap();
        for dep in crate_imports(&text) {
            // (Names that are not modules: macros and items at the crate root.)
            let Some(theirs) = rank(&dep) else { continue };
            if theirs > own {
                wrong.push(format!(
                    "{} ({module}) uses {dep}, a later layer",
                    f.strip_prefix(src()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports pointing up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn crate_imports_are_read_from_paths_and_groups() {
    let t = "use crate::elf::*;\nuse crate::{arch, cli::Args,\n  merge::{a, b}};\nlet x = crate::layout::align_up(1, 2);";
    let got: Vec<String> = crate_imports(t).into_iter().collect();
    assert_eq!(got, ["arch", "cli", "elf", "layout", "merge"]);
}
