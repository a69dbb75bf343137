//! Links the way build systems call the device linker: host objects from `nvcc -dc`, static
//! libraries of them, fatbins, libcudadevrt. Every link nvlink made in
//! testdata/out/*/*/host/links.tsv is redone with cubin-ld in that folder (the names in
//! messages and registration ids are relative) and must give nvlink's exit status, the same
//! output (semantically, the linker's own note aside), the same messages (nvlink's prefix for
//! cubin-ld's) and a byte-identical `--register-link-binaries` file.
//!
//! Links that name `@CUDA_LIB@` need the toolkit's libcudadevrt.a (never committed), those
//! that name `@CUDA_NVVM@` (-dlto) its nvJitLink and ptxas; they run when
//! scripts/cuda-toolkit.sh has installed the toolkit and are skipped otherwise.
//! `cargo test --test host_links -- --nocapture status` prints one line per link.

mod common;
use common::{matches, report_skipped, toolkit, Toolkit};
use cubin_ld::compare::{compare_dumps, CompareOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Links cubin-ld refuses as not implemented yet, as `case/sm_XX/name` patterns (a trailing
/// `*` in a part matches any rest), each with the reason.
const NOT_IMPLEMENTED_YET: &[(&str, &str)] = &[];

/// Links known to differ from nvlink's, as patterns, with the reason (see link_equiv.rs).
const KNOWN_DIFFERENT: &[(&str, &str)] = &[
    (
        "weak_strong/sm_1*/*",
        "nvlink gives the strong winner's main-half frame the Mercury CIE and an empty FDE",
    ),
    (
        "weak_fewer_registers/sm_1*/*",
        "nvlink gives a later weak winner's main-half frame the Mercury CIE and an empty FDE",
    ),
];

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out")
}

struct HostLink {
    /// `case/sm_XX`
    case_arch: String,
    name: String,
    args: String,
}

fn host_links() -> Vec<HostLink> {
    let mut v = Vec::new();
    let mut cases: Vec<_> = std::fs::read_dir(out_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    for case in cases {
        let mut archs: Vec<_> = std::fs::read_dir(out_dir().join(&case))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        archs.sort();
        for arch in archs {
            let case_arch = format!("{case}/{arch}");
            let Ok(t) = std::fs::read_to_string(out_dir().join(&case_arch).join("host/links.tsv"))
            else {
                continue;
            };
            for line in t.lines() {
                let (name, args) = line.split_once('\t').unwrap_or((line, ""));
                v.push(HostLink {
                    case_arch: case_arch.clone(),
                    name: name.to_string(),
                    args: args.to_string(),
                });
            }
        }
    }
    assert!(
        v.len() >= 90,
        "the corpus looks incomplete: {} host links",
        v.len()
    );
    v
}

enum Outcome {
    Same,
    Skipped,
    Refused(String),
    Differs(Vec<String>),
}

/// nvlink's messages in a form both linkers share: the tool name in the prefix, and what
/// cubin-ld adds to an error: the referencing function and its chain from a root (undefined
/// references), the call chain (launch bounds). -report-arch's target stays.
fn normalize(log: &str, tool: &str) -> String {
    // (cubin-ld's hints, advice on lines of their own, are nvlink's silence.)
    log.lines()
        .filter(|l| !common::cubin_lds_own_line(l))
        .map(|l| {
            let l = l.replacen(tool, "LINKER", 1);
            if !l.starts_with("LINKER error") {
                return l;
            }
            let (body, target) = match l.rfind(" (target: ") {
                Some(i) => (&l[..i], &l[i..]),
                None => (&l[..], ""),
            };
            let mut body = body.to_string();
            for added in ["; kept by ", "; call chain: "] {
                if let Some(i) = body.find(added) {
                    body.truncate(i);
                }
            }
            if let Some(i) = body.find("' (from '") {
                let rest = &body[i + 9..];
                let end = rest.find("')").map_or(rest.len(), |e| e + 2);
                body = format!("{}'{}", &body[..i], &rest[end..]);
            }
            body + target
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A registration file with the ids of inputs without host code (made from the current
/// directory, which differs between the machine that recorded the corpus and this one) cut
/// down to their part after the corpus folder.
fn registrations(p: &Path) -> Option<String> {
    let text = std::fs::read_to_string(p).ok()?;
    Some(
        text.lines()
            .map(|l| match l.find("_testdata_out_") {
                Some(i) if l.starts_with("DEFINE_REGISTER_FUNC(") => {
                    format!("DEFINE_REGISTER_FUNC(<cwd>{}", &l[i..])
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn link_one(l: &HostLink, tk: Option<&Toolkit>) -> Outcome {
    let dir = out_dir().join(&l.case_arch).join("host");
    let rescheduled = common::rescheduled_by_nvlink(&l.case_arch);
    let needs_toolkit = l.args.contains("@CUDA_LIB@") || l.args.contains("@CUDA_NVVM@");
    let args = match (needs_toolkit, tk) {
        (true, None) => return Outcome::Skipped,
        (true, Some(tk)) => l
            .args
            .replace("@CUDA_LIB@", &tk.lib.to_string_lossy())
            .replace("@CUDA_NVVM@", &tk.nvvm().to_string_lossy()),
        (false, _) => l.args.clone(),
    };
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!("cubin-ld-host-{}-{n}", std::process::id()));
    let (out, reg) = (tmp.with_extension("cubin"), tmp.with_extension("reg.c"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cubin-ld"));
    // PTX entries are compiled with the pinned toolkit's ptxas; without it cubin-ld says it
    // needs one and the link is skipped (never another version's ptxas from PATH).
    cmd.env(
        "CUBIN_LD_PTXAS",
        tk.map_or_else(
            || Path::new("/nonexistent/ptxas").into(),
            |t| t.bin.join("ptxas"),
        ),
    );
    let o = cmd
        .current_dir(&dir)
        .args(args.split_whitespace())
        .arg("-o")
        .arg(&out)
        .arg(format!("--register-link-binaries={}", reg.display()))
        .output()
        .unwrap();
    let read = |p: &Path| std::fs::read(p).ok();
    let nv_rc: i32 = std::fs::read_to_string(dir.join(format!("{}.rc", l.name)))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    if stderr.contains("which needs ptxas") && tk.is_none() {
        return Outcome::Skipped;
    }
    let mut diffs = Vec::new();
    if o.status.code() != Some(nv_rc) {
        if nv_rc == 0 && stderr.contains("not implemented yet") {
            let _ = std::fs::remove_file(&reg);
            return Outcome::Refused(stderr);
        }
        diffs.push(format!(
            "exit status {nv_rc} (nvlink) vs {:?} (cubin-ld): {stderr}",
            o.status.code()
        ));
    }
    let nv_log = std::fs::read_to_string(dir.join(format!("{}.log", l.name))).unwrap();
    if normalize(&nv_log, "nvlink") != normalize(&stderr, "cubin-ld") {
        diffs.push(format!(
            "messages differ:\nnvlink:\n{nv_log}cubin-ld:\n{stderr}"
        ));
    }
    if registrations(&dir.join(format!("{}.reg.c", l.name))) != registrations(&reg) {
        diffs.push("the registration files differ".into());
    }
    match (read(&dir.join(format!("{}.cubin", l.name))), read(&out)) {
        (Some(theirs), Some(ours)) if nv_rc == 0 => {
            let t = cubin_ld::dump::dump_bytes(&theirs).unwrap().text;
            let m = cubin_ld::dump::dump_bytes(&ours)
                .unwrap_or_else(|e| panic!("{}: output does not parse: {e}", l.case_arch))
                .text;
            diffs.extend(compare_dumps(
                &t,
                &m,
                &CompareOptions {
                    ignore_linker_note: true,
                    ignore_scoreboards: rescheduled,
                    ..Default::default()
                },
            ));
        }
        (_, Some(_)) if nv_rc != 0 => diffs.push("a failed link left an output file".into()),
        // (compute_XX targets write no output, as nvlink.)
        (Some(_), None) if o.status.success() && nv_rc == 0 => diffs.push("no output file".into()),
        _ => {}
    }
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&reg);
    if diffs.is_empty() {
        Outcome::Same
    } else {
        Outcome::Differs(diffs)
    }
}

#[test]
fn every_host_link_matches_nvlinks() {
    let tk = toolkit();
    let mut failures = Vec::new();
    let (mut same, mut skipped) = (0, 0);
    for l in host_links() {
        let key = format!("{}/{}", l.case_arch, l.name);
        let expected_refusal = NOT_IMPLEMENTED_YET.iter().any(|(p, _)| matches(p, &key));
        let known = KNOWN_DIFFERENT.iter().any(|(p, _)| matches(p, &key));
        match link_one(&l, tk.as_ref()) {
            Outcome::Same if known => failures.push(format!(
                "{key}: now matches; remove it from KNOWN_DIFFERENT"
            )),
            Outcome::Differs(_) if known => {}
            Outcome::Same if expected_refusal => failures.push(format!(
                "{key}: now links; remove it from NOT_IMPLEMENTED_YET"
            )),
            Outcome::Same => same += 1,
            Outcome::Skipped => skipped += 1,
            Outcome::Refused(_) if expected_refusal => {}
            Outcome::Refused(e) => failures.push(format!("{key}: cubin-ld refuses: {e}")),
            Outcome::Differs(d) => failures.push(format!("{key} [{}]: {}", l.args, d.join("\n"))),
        }
    }
    report_skipped(
        "every_host_link_matches_nvlinks",
        skipped,
        "they need the pinned CUDA toolkit (libcudadevrt.a or ptxas); run scripts/cuda-toolkit.sh",
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(same >= 90, "only {same} host links compared");
}

#[test]
fn status() {
    let tk = toolkit();
    for l in host_links() {
        let s = match link_one(&l, tk.as_ref()) {
            Outcome::Same => "same".to_string(),
            Outcome::Skipped => "skipped (no toolkit)".into(),
            Outcome::Refused(e) => format!("refused: {}", e.lines().next().unwrap_or("")),
            Outcome::Differs(d) => format!(
                "{} difference(s): {}",
                d.len(),
                d[0].lines().next().unwrap_or("")
            ),
        };
        println!("{:40} {s}", format!("{}/{}", l.case_arch, l.name));
    }
}
