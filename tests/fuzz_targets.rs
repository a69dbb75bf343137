//! The cargo-fuzz targets (`fuzz/`), run on stable: each target's body over its seeds from
//! `testdata/out`, byte-level variants of each seed (truncated, bytes flipped, fields
//! overwritten with boundary values), and every input cargo-fuzz found
//! (`fuzz/regressions/<target>/`, replayed for good). Coverage-guided runs need nightly:
//! `scripts/fuzz <target> <seconds>`.

#[path = "../fuzz/targets.rs"]
mod targets;

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `step`th file under `testdata/out` whose name ends in `ext` and that `keep` takes,
/// in a stable order.
fn seeds(ext: &str, step: usize, keep: impl Fn(&[u8]) -> bool) -> Vec<Vec<u8>> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("testdata/out"), &mut files);
    files.sort();
    files
        .iter()
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(ext)))
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| keep(b))
        .step_by(step)
        .collect()
}

fn device_elf(b: &[u8]) -> bool {
    cubin_ld::input::host::elf_machine(b).is_some_and(|(_, m)| m == cubin_ld::input::host::EM_CUDA)
}

/// `n` byte-level variants of `seed` (the first is the seed itself), the same on every run.
fn variants(seed: &[u8], n: u64) -> impl Iterator<Item = Vec<u8>> + '_ {
    (0..n).map(move |k| {
        let mut r = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed.len() as u64 | 1;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r
        };
        let mut b = seed.to_vec();
        if k == 0 || b.is_empty() {
            return b;
        }
        let at = next() as usize % b.len();
        match k % 4 {
            0 => b.truncate(at),
            1 => b[at] ^= 1 << (next() % 8),
            2 => {
                let v: [u64; 5] = [0, 1, 0x7f, u32::MAX as u64, u64::MAX];
                let v = v[next() as usize % v.len()].to_le_bytes();
                let end = (at + 8).min(b.len());
                b[at..end].copy_from_slice(&v[..end - at]);
            }
            _ => {
                for _ in 0..1 + next() % 8 {
                    let i = next() as usize % b.len();
                    b[i] = next() as u8;
                }
            }
        }
        b
    })
}

/// Runs `body` over the variants of every seed and the target's regressions; the panics and
/// errors, one line each.
fn replay(target: &str, seeds: &[Vec<u8>], n: u64, body: &dyn Fn(&[u8]) -> Result<(), String>) {
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        inputs.extend(
            variants(s, n)
                .enumerate()
                .map(|(k, v)| (format!("seed {i} variant {k}"), v)),
        );
    }
    if let Ok(rd) = std::fs::read_dir(root().join("fuzz/regressions").join(target)) {
        let mut found: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        found.sort();
        for p in found {
            inputs.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    assert!(!inputs.is_empty(), "{target}: no seeds under testdata/out");
    let broken: Vec<String> = inputs
        .iter()
        .filter_map(|(what, data)| {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(data))) {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(format!("{target} {what}: {e}")),
                Err(_) => Some(format!("{target} {what}: panicked")),
            }
        })
        .collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn elf_reader_takes_damaged_device_objects_without_panicking() {
    replay(
        "elf_reader",
        &seeds(".o", 16, device_elf),
        24,
        &targets::elf_reader,
    );
}

#[test]
fn fatbin_reader_takes_damaged_containers_without_panicking() {
    let mut s = seeds(".fatbin", 1, |_| true);
    for host in seeds(".o", 16, |b| !device_elf(b)) {
        if let Some(f) = cubin_ld::input::host::parse("seed.o", &host)
            .ok()
            .and_then(|h| h.relfatbin)
        {
            s.push(f.to_vec());
        }
    }
    replay("fatbin", &s, 24, &targets::fatbin);
}

#[test]
fn host_object_reader_takes_damaged_host_objects_without_panicking() {
    replay(
        "host_object",
        &seeds(".o", 16, |b| !device_elf(b)),
        24,
        &targets::host_object,
    );
}

#[test]
fn archive_reader_takes_damaged_archives_without_panicking() {
    replay("archive", &seeds(".a", 8, |_| true), 24, &targets::archive);
}

#[test]
fn a_link_of_one_damaged_object_fails_cleanly_naming_it() {
    let dir = std::env::temp_dir().join(format!("cubin-ld-fuzz-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = root().join("testdata/out");
    // The seed of each setup `link_one` knows, behind the byte that picks it.
    let objects = [
        "xtu_call/sm_90/a.o",
        "static_shared/sm_90/a.o",
        "globals/sm_75/a.o",
        "weak_inline/sm_120/b.o",
        "xtu_call/sm_100/a.o",
    ];
    let s: Vec<Vec<u8>> = objects
        .iter()
        .enumerate()
        .map(|(pick, o)| [&[pick as u8][..], &std::fs::read(corpus.join(o)).unwrap()].concat())
        .collect();
    // (Damage to the picking byte only changes the setup, and is harmless.)
    replay("link_one", &s, 40, &|d| targets::link_one(d, &corpus, &dir));
    let _ = std::fs::remove_dir_all(&dir);
}
