//! Command lines as nvlink treats them: every line nvlink ran in testdata/cli (recorded by
//! scripts/gen-cli-testdata.sh: each option of `nvlink --help` in its spellings, repeats, bad
//! values, and the device-link lines nvcc and CMake write) is run again with cubin-ld over the
//! same inputs, and must give nvlink's exit status, messages (nvlink's name for cubin-ld's),
//! standard output, and the same files: cubins equal by meaning with the same recorded
//! options, everything else byte for byte (registration ids of cubins made from the folder).

use cubin_ld::compare::{compare_dumps, CompareOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

/// Lines where cubin-ld deliberately differs, with the reason.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[
    (
        "astoolspatch",
        "tools-patch links are not implemented: refused (nvlink checks the inputs for \
         EIATTR_TOOLS_PATCH_FUNC first)",
    ),
    ("tools_patch_long", "as astoolspatch"),
    (
        "version",
        "cubin-ld names itself in one line (nvlink prints five)",
    ),
    ("version_short", "as version"),
    (
        "at_file",
        "cubin-ld reads @FILE as a response file, as GNU tools do (nvlink takes it for an \
         input it cannot open)",
    ),
    (
        "help_long",
        "cubin-ld's own help text (the same options, its own words)",
    ),
    ("help_short", "as help_long"),
    (
        "no_args",
        "cubin-ld says after nvlink's words that no -arch was given, with a usage line",
    ),
    (
        "short_empty_file",
        "cubin-ld warns that it skips the empty input (nvlink skips it without a word); \
         the output is the same",
    ),
];

/// The folder nvlink ran in when the corpus was recorded (registration ids name it).
const RECORDED_IN: &str = "/tmp/cubin-ld-cli";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A registration id's spelling of a path (every character but letters and digits is `_`).
fn mangled(p: &str) -> String {
    p.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The recorded options of a cubin's linker note.
fn recorded_args(dump: &str, tool: &str) -> Option<String> {
    dump.lines()
        .find(|l| l.contains(&format!("tool \"{tool}\"")))
        .and_then(|l| l.split(" args ").nth(1))
        .map(String::from)
}

fn same_outcome(name: &str, args: &str) -> Vec<String> {
    let recorded = root().join("testdata/cli/out").join(name);
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cubin-ld-cli-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let prep = Command::new("bash")
        .arg(root().join("scripts/cli-scratch.sh"))
        .arg(&dir)
        .status()
        .unwrap();
    assert!(prep.success());
    let inputs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // The arguments are split as the shell that recorded them split them.
    let o = Command::new("bash")
        .current_dir(&dir)
        .arg("-c")
        .arg(format!("exec \"$0\" {args}"))
        .arg(env!("CARGO_BIN_EXE_cubin-ld"))
        .output()
        .unwrap();
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let mut diffs = Vec::new();
    let rc: i32 = read(&recorded.join("rc")).trim().parse().unwrap();
    if o.status.code() != Some(rc) {
        diffs.push(format!(
            "exit status {rc} (nvlink) vs {:?}",
            o.status.code()
        ));
    }
    // (cubin-ld's hints, advice on lines of their own, and its warning for a library no -L
    // folder holds, are nvlink's silence.)
    let ours = |b: &[u8]| {
        let text = String::from_utf8_lossy(b);
        let kept = text
            .split_inclusive('\n')
            .filter(|l| !common::cubin_lds_own_line(l));
        kept.collect::<String>().replace("cubin-ld ", "nvlink ")
    };
    if read(&recorded.join("stderr")) != ours(&o.stderr) {
        diffs.push(format!(
            "messages:\nnvlink:\n{}cubin-ld:\n{}",
            read(&recorded.join("stderr")),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    if read(&recorded.join("stdout")) != ours(&o.stdout) {
        diffs.push("standard output differs".into());
    }
    let written = |d: &Path, skip: &[String]| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| !["rc", "stdout", "stderr"].contains(&f.as_str()) && !skip.contains(f))
            .collect();
        v.sort();
        v
    };
    let (theirs, mine) = (written(&recorded, &[]), written(&dir, &inputs));
    if theirs != mine {
        diffs.push(format!("files {theirs:?} (nvlink) vs {mine:?}"));
    }
    for f in theirs.iter().filter(|f| mine.contains(f)) {
        let (a, b) = (recorded.join(f), dir.join(f));
        if f.ends_with(".cubin") {
            let dump = |p: &Path| {
                cubin_ld::dump::dump_bytes(&std::fs::read(p).unwrap())
                    .unwrap()
                    .text
            };
            let (ta, tb) = (dump(&a), dump(&b));
            let opts = CompareOptions {
                ignore_linker_note: true,
                ..Default::default()
            };
            diffs.extend(compare_dumps(&ta, &tb, &opts));
            if recorded_args(&ta, "nvlink") != recorded_args(&tb, "cubin-ld") {
                diffs.push(format!(
                    "{f}: recorded options {:?} (nvlink) vs {:?}",
                    recorded_args(&ta, "nvlink"),
                    recorded_args(&tb, "cubin-ld")
                ));
            }
        } else {
            let here = mangled(&dir.display().to_string());
            let mine = read(&b).replace(&here, &mangled(RECORDED_IN));
            if read(&a) != mine {
                diffs.push(format!("{f} differs"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    diffs
}

fn lines() -> Vec<(String, String)> {
    std::fs::read_to_string(root().join("testdata/cli/lines.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (n, a) = l.split_once('\t').unwrap_or((l, ""));
            (n.to_string(), a.to_string())
        })
        .collect()
}

#[test]
fn every_recorded_command_line_behaves_as_with_nvlink() {
    let mut failures = Vec::new();
    let all = lines();
    assert!(all.len() >= 90, "the command-line corpus looks incomplete");
    for (name, args) in &all {
        let d = same_outcome(name, args);
        let known = KNOWN_DIFFERENT.iter().any(|(k, _)| k == name);
        match (d.is_empty(), known) {
            (true, true) => failures.push(format!(
                "{name}: now matches; remove it from KNOWN_DIFFERENT"
            )),
            (false, false) => failures.push(format!("{name} [{args}]: {}", d.join("\n"))),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_nvlink_option_is_in_the_command_line_corpus() {
    // Each long name of nvlink's --help, in at least one recorded line (either spelling).
    let text = std::fs::read_to_string(root().join("testdata/cli/lines.tsv")).unwrap();
    let help = String::from_utf8(
        Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
            .arg("--help")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    // (cubin-ld's own options are listed after nvlink's.)
    let nvlinks = help.split("cubin-ld's own options").next().unwrap();
    for line in nvlinks.lines().filter(|l| l.trim_start().starts_with("--")) {
        let long = line.trim_start()[2..].split([' ', '(']).next().unwrap();
        let short = line
            .split_once("(-")
            .map(|(_, r)| r.split(')').next().unwrap().to_string());
        let named = text.contains(&format!("--{long}"))
            || text.contains(&format!("-{long}"))
            || short.is_some_and(|s| {
                text.contains(&format!("-{s} ")) || text.contains(&format!("-{s}="))
            });
        assert!(named, "no recorded command line uses --{long}");
    }
}
