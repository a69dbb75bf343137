//! The output does not depend on the number of threads: every link of the committed corpus
//! (every case, target and mode of testdata/out/*/*/links.tsv), made on 1, 2 and 8 threads
//! (`--threads`), gives the same bytes, the same outcome and the same messages.

use std::path::{Path, PathBuf};

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/out")
}

/// Every link of the corpus: (case/sm folder, mode, flags).
fn links() -> Vec<(PathBuf, String, Vec<String>)> {
    let mut v = Vec::new();
    for case in std::fs::read_dir(out_dir()).unwrap() {
        for arch in std::fs::read_dir(case.unwrap().path()).unwrap() {
            let dir = arch.unwrap().path();
            let Ok(links) = std::fs::read_to_string(dir.join("links.tsv")) else {
                continue;
            };
            for line in links.lines() {
                let (mode, flags) = line.split_once('\t').unwrap_or((line, ""));
                let flags = flags.split_whitespace().map(String::from).collect();
                v.push((dir.clone(), mode.to_string(), flags));
            }
        }
    }
    v.sort();
    v
}

/// What one link made: its bytes (or its errors) and its warnings.
fn link(dir: &Path, flags: &[String], threads: usize, out: &Path) -> (Vec<u8>, Vec<String>) {
    let arch = dir.file_name().unwrap().to_string_lossy();
    let mut argv = vec![format!("-arch={arch}"), format!("--threads={threads}")];
    argv.extend(flags.iter().cloned());
    for l in std::fs::read_to_string(dir.join("inputs")).unwrap().lines() {
        argv.push(dir.join(l).display().to_string());
    }
    argv.extend(["-o".to_string(), out.display().to_string()]);
    let args = cubin_ld::cli::parse(&argv).unwrap();
    match cubin_ld::link(&args) {
        Ok(o) => {
            let bytes = std::fs::read(out).unwrap();
            let _ = std::fs::remove_file(out);
            (bytes, o.warnings)
        }
        Err(f) => (Vec::new(), [f.warnings, f.errors].concat()),
    }
}

#[test]
fn every_corpus_link_is_the_same_on_1_2_and_8_threads() {
    let links = links();
    assert!(
        links.len() > 1000,
        "the corpus looks incomplete: {}",
        links.len()
    );
    let tmp = std::env::temp_dir().join(format!("cubin-ld-threads-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut differ = Vec::new();
    for (k, (dir, mode, flags)) in links.iter().enumerate() {
        let out = tmp.join(format!("{k}.cubin"));
        let one = link(dir, flags, 1, &out);
        for threads in [2, 8] {
            if link(dir, flags, threads, &out) != one {
                differ.push(format!("{} {mode}: {threads} threads", dir.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        differ.is_empty(),
        "outputs depend on the thread count:\n{}",
        differ.join("\n")
    );
}

#[test]
fn zero_threads_is_an_error() {
    let args = cubin_ld::cli::parse(&["-arch=sm_90".into(), "--threads=0".into()]).unwrap();
    let f = cubin_ld::link(&args).unwrap_err();
    assert!(
        f.errors
            .iter()
            .map(String::as_str)
            .chain(f.fatal.as_deref())
            .any(|e| e.contains("--threads")),
        "{:?} {:?}",
        f.errors,
        f.fatal
    );
}
