//! Structure-aware mutation of real inputs: device objects (ELF header, section headers,
//! symbols, relocations, `.nv.info` records, section bytes), host objects (the fatbin's
//! container and entry headers) and archives (member headers). Each variant is linked with
//! healthy partners, in process. It must never panic; a failed link leaves no output and
//! names the damaged file (or an undefined reference the damage caused); a link that
//! succeeds writes an output cubin-ld reads back.
//!
//! The RNG is seeded, so a variant is named by (target, seed) and found again exactly:
//! every finding goes into `FINDINGS` and is replayed on every run.
//!
//! `cargo test` runs a few thousand variants. For a campaign:
//! `CUBIN_LD_FUZZ_SECONDS=3600 cargo test --release --test mutate -- --nocapture campaign`
//! (`CUBIN_LD_FUZZ_START=N` to start at another seed; `CUBIN_LD_FUZZ_TOOLKIT=<toolkit root>`
//! to have cuobjdump and nvdisasm read every output that linked).

#[path = "../fuzz/targets.rs"]
mod targets;

use std::path::{Path, PathBuf};

/// Variants that once failed (a panic, an unnamed culprit): (target, seed).
const FINDINGS: &[(&str, u64)] = &[
    // A relocation running past its section: the message named no file.
    ("shared-sm90-r", 2051761),
    // Sections whose names say another kind than their type (a relocation section named
    // as a constant bank): outputs whose symbols lay past their sections.
    ("globals-sm75-pr", 2028796),
    ("globals-sm75-pr", 2053968),
    ("globals-sm75-pr", 2082495),
    ("shared-sm90-r", 2270718),
    ("shared-sm90-r", 2390241),
    ("globals-sm75-pr", 2441102),
    ("shared-sm90-r", 2557192),
    // A Mercury symbol table whose entry was undefined where `.symtab` defines it: its value
    // reached the output (nvlink's finalizer refuses it).
    ("weak-sm120", 2012150),
    // Shared memory renamed as a note: its symbols were placed in the note.
    ("shared-sm90-r", 2492444),
    // A `.text` moved by one byte: code read from inside an instruction (toolkit mode).
    ("weak-sm120", 5000009),
    // A relocation section retyped: an output NVIDIA's readers refuse (toolkit mode).
    ("shared-sm90-r", 5000005),
    // Outputs NVIDIA's readers refused where they read nvlink's (toolkit mode): an
    // R_CUDA_NONE kept (nvlink drops it), a relocation type outside the vocabulary, a
    // function reaching past its code, a cut note, a section 0 with a size, and
    // `.nv.compat` records running past their section, all copied into the output.
    ("xtu-sm90", 263),
    ("weak-sm120", 400),
    ("xtu-sm100", 128),
    ("xtu-sm90", 135),
    ("xtu-sm90", 204),
    ("xtu-sm90", 171),
    // Code renamed as something else ('text.f'): linked as data.
    ("weak-sm120", 198),
    // (toolkit mode) Shared memory sized 0 under its symbols: nvdisasm refused the symbol
    // sizes.
    ("shared-sm90-r", 224),
    // (toolkit mode) A parameter-bank record turned into EIATTR_SAMPLER_INIT, copied with
    // its input symbol index (nvlink drops the record).
    ("weak-sm120", 218),
    // (toolkit mode) `.debug_frame` moved by a byte: its entries were cut as if whole.
    ("xtu-sm100", 167),
    // (toolkit mode) sm_100+ code relocations moved inside an instruction, or pointing far
    // outside their function: nvlink rebuilds the code from the capsule and never sees them.
    ("weak-sm120", 140),
    ("weak-sm120", 194),
    ("weak-sm120", 211),
    ("xtu-sm100", 140),
    ("xtu-sm100", 194),
    // (toolkit mode) A prototype's string past the names' table, a prototype table of
    // another type, parameter records unlike their Mercury twins' (nvlink reads those).
    ("xtu-sm100", 7000034),
    ("xtu-sm100", 7000660),
    ("xtu-sm100", 7000822),
    ("xtu-sm100", 7000201),
    // (toolkit mode) Code not flagged executable or aligned below 128 bytes, a parameter
    // record with an index, `.nv.compat` of another type, a frame relocation inside a CIE,
    // a call past the start of another object's function.
    ("shared-sm90-r", 7000286),
    ("xtu-sm100", 7000605),
    ("globals-sm75-pr", 7001074),
    ("shared-sm90-r", 7000867),
    ("weak-sm120", 7000450),
    ("xtu-sm100", 7000783),
    // (toolkit mode) sm_100+ code relocations moved onto an instruction their capsule
    // describes otherwise, frame relocations unlike their Mercury twins' (a type, an
    // addend), and relocation sections whose names say another section than they relocate.
    ("weak-sm120", 8000603),
    ("xtu-sm100", 8000603),
    ("weak-sm120", 8000570),
    ("xtu-sm100", 8000570),
    ("weak-sm120", 8000600),
    ("xtu-sm100", 8000600),
    ("xtu-sm90", 8000558),
    ("host-fatbin", 8000085),
    ("host-fatbin", 8000194),
    ("shared-sm90-r", 8000505),
    // (toolkit mode) sm_100+ padding after a function's closing branch damaged (nvlink
    // writes it again from the capsule).
    ("weak-sm120", 8000009),
    ("weak-sm120", 8000610),
    ("xtu-sm100", 8000167),
    // (toolkit mode) Code sections with other flags, shared-memory symbols moved into code
    // or grown past their section.
    ("shared-sm90-r", 9000402),
    ("xtu-sm100", 9000402),
    ("shared-sm90-r", 9000008),
    ("extern-shared-sm90-pr", 9000863),
    ("extern-shared-sm90-r", 9000857),
    // (toolkit mode) sm_100+ `.nv.info` unlike its Mercury twin; code sizes not whole
    // 128-byte units.
    ("weak-sm120", 10000096),
    ("weak-sm120", 10000887),
    ("xtu-sm100", 10000131),
    ("weak-sm120", 10000957),
    // (toolkit mode) A kernel's `.nv.shared.<k>` smaller than its symbols (`-r`); an sm_120
    // instruction whose opcode is not the one its capsule record stands for.
    ("shared-sm90-r", 7000039),
    ("shared-sm90-r", 7000340),
    ("weak-sm120", 7000827),
    // (toolkit mode) Code relocations of data types or moved onto another instruction, a
    // relocation entry size of 25, a register count naming a section symbol, and a
    // `.nv.global.init` typed as `.nv.global`.
    ("weak-sm120", 11000846),
    ("weak-sm120", 11000886),
    ("xtu-sm100", 11000788),
    ("xtu-sm100", 11000846),
    ("xtu-sm100", 11000886),
    ("extern-shared-sm90-pr", 11000610),
    ("shared-sm90-r", 11000784),
    ("weak-sm120", 11000806),
];

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(rel)
}

/// A target: the seed file that gets damaged, its healthy partners, how the link is run.
struct Target {
    name: &'static str,
    seed: &'static str,
    partners: &'static [&'static str],
    arch: &'static str,
    flags: &'static [&'static str],
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Device,
    Host,
    Archive,
}

const TARGETS: &[Target] = &[
    Target {
        name: "xtu-sm90",
        seed: "xtu_call/sm_90/a.o",
        partners: &["xtu_call/sm_90/b.o", "xtu_call/sm_90/c.o"],
        arch: "sm_90",
        flags: &[],
        kind: Kind::Device,
    },
    Target {
        name: "shared-sm90-r",
        seed: "static_shared/sm_90/a.o",
        partners: &["static_shared/sm_90/b.o"],
        arch: "sm_90",
        flags: &["-r"],
        kind: Kind::Device,
    },
    Target {
        name: "globals-sm75-pr",
        seed: "globals/sm_75/a.o",
        partners: &["globals/sm_75/b.o"],
        arch: "sm_75",
        flags: &["-preserve-relocs"],
        kind: Kind::Device,
    },
    Target {
        name: "weak-sm120",
        seed: "weak_inline/sm_120/b.o",
        partners: &["weak_inline/sm_120/a.o"],
        arch: "sm_120",
        flags: &[],
        kind: Kind::Device,
    },
    Target {
        name: "xtu-sm100",
        seed: "xtu_call/sm_100/a.o",
        partners: &["xtu_call/sm_100/b.o", "xtu_call/sm_100/c.o"],
        arch: "sm_100",
        flags: &[],
        kind: Kind::Device,
    },
    Target {
        name: "extern-shared-sm90-r",
        seed: "extern_shared/sm_90/a.o",
        partners: &["extern_shared/sm_90/b.o"],
        arch: "sm_90",
        flags: &["-r"],
        kind: Kind::Device,
    },
    Target {
        name: "extern-shared-sm90-pr",
        seed: "extern_shared_r_pad/sm_90/b.o",
        partners: &["extern_shared_r_pad/sm_90/a.o"],
        arch: "sm_90",
        flags: &["-preserve-relocs"],
        kind: Kind::Device,
    },
    Target {
        name: "host-fatbin",
        seed: "xtu_call/sm_90/host/a.o",
        partners: &["xtu_call/sm_90/host/b.o", "xtu_call/sm_90/host/c.o"],
        arch: "sm_90",
        flags: &[],
        kind: Kind::Host,
    },
    Target {
        name: "archive",
        seed: "xtu_call/sm_90/host/libxtu_call.a",
        partners: &[],
        arch: "sm_90",
        flags: &[],
        kind: Kind::Archive,
    },
];

/// xorshift64*: small, fast, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// A value likely to matter to a field of `bytes` bytes whose sensible bound is `near`.
    fn interesting(&mut self, near: u64) -> u64 {
        match self.below(10) {
            0 => 0,
            1 => 1,
            2 => near.wrapping_sub(1),
            3 => near,
            4 => near.wrapping_add(1),
            5 => u64::MAX,
            6 => 0x8000_0000,
            7 => 0xffff,
            8 => self.next() & 0xff,
            _ => self.next(),
        }
    }
}

fn get(b: &[u8], at: usize, n: usize) -> u64 {
    let mut v = 0u64;
    for i in (0..n).rev() {
        v = (v << 8)
            | at.checked_add(i)
                .and_then(|k| b.get(k))
                .copied()
                .unwrap_or(0) as u64;
    }
    v
}

fn put(b: &mut [u8], at: usize, n: usize, v: u64) {
    for i in 0..n {
        if let Some(x) = at.checked_add(i).and_then(|k| b.get_mut(k)) {
            *x = (v >> (8 * i)) as u8;
        }
    }
}

/// An ELF's section headers: (header offset, type, data offset, size, entsize).
fn sections(b: &[u8]) -> Vec<(usize, u32, usize, usize, usize)> {
    // (Earlier changes may have made any of these absurd: no arithmetic may overflow.)
    let shoff = get(b, 0x28, 8) as usize;
    let mut n = get(b, 0x3c, 2) as usize;
    if n == 0 {
        n = get(b, shoff.wrapping_add(32), 8) as usize;
    }
    (0..n.min(1 << 17))
        .filter_map(|i| shoff.checked_add(64 * i))
        .filter(|&h| h.checked_add(64).is_some_and(|e| e <= b.len()))
        .map(|h| {
            (
                h,
                get(b, h + 4, 4) as u32,
                get(b, h + 24, 8) as usize,
                get(b, h + 32, 8) as usize,
                get(b, h + 56, 8) as usize,
            )
        })
        .collect()
}

/// One structure-aware change to a device ELF.
fn mutate_elf(b: &mut [u8], r: &mut Rng) {
    let secs = sections(b);
    let pick = |r: &mut Rng, want: &dyn Fn(u32) -> bool| {
        let c: Vec<_> = secs.iter().filter(|s| want(s.1)).collect();
        (!c.is_empty()).then(|| *c[r.below(c.len())])
    };
    match r.below(8) {
        // ELF header: a field of the fields that say where things are.
        0 => {
            let (at, n) = [
                (0x10, 2),
                (0x28, 8),
                (0x30, 4),
                (0x3c, 2),
                (0x3e, 2),
                (0x3a, 2),
            ][r.below(6)];
            let v = r.interesting(get(b, at, n));
            put(b, at, n, v);
        }
        // A section header field.
        1 | 2 => {
            if let Some((h, ..)) = pick(r, &|_| true) {
                let (at, n) = [
                    (0, 4),
                    (4, 4),
                    (8, 8),
                    (24, 8),
                    (32, 8),
                    (40, 4),
                    (44, 4),
                    (48, 8),
                    (56, 8),
                ][r.below(9)];
                let v = r.interesting(get(b, h + at, n));
                put(b, h + at, n, v);
            }
        }
        // A symbol field (either symbol table).
        3 => {
            if let Some((_, _, off, size, _)) = pick(r, &|t| t == 2 || t == 0x7000_0085) {
                let count = size.min(b.len()) / 24;
                let s = off.wrapping_add(24 * r.below(count));
                let (at, n) = [(0, 4), (4, 1), (5, 1), (6, 2), (8, 8), (16, 8)][r.below(6)];
                let v = r.interesting(get(b, s.wrapping_add(at), n));
                put(b, s.wrapping_add(at), n, v);
            }
        }
        // A relocation field.
        4 => {
            if let Some((_, t, off, size, _)) = pick(r, &|t| t == 4 || t == 9 || t == 0x7000_0082) {
                let width = if t == 9 { 16 } else { 24 };
                let e = off.wrapping_add(width * r.below(size.min(b.len()) / width));
                let (at, n) =
                    [(0, 8), (8, 4), (12, 4), (16, 8)][r.below(if t == 9 { 3 } else { 4 })];
                let v = r.interesting(get(b, e.wrapping_add(at), n));
                put(b, e.wrapping_add(at), n, v);
            }
        }
        // A `.nv.info` record: its format, attribute, size or first payload word.
        5 | 6 => {
            if let Some((_, _, off, size, _)) = pick(r, &|t| {
                t == 0x7000_0000 || t == 0x7000_0083 || t == 0x7000_0086
            }) {
                let mut starts = Vec::new();
                let mut i = 0;
                // (Earlier changes may have sent offset or size anywhere.)
                let size = size.min(b.len().saturating_sub(off));
                while i + 4 <= size {
                    starts.push(i);
                    let (fmt, half) = (get(b, off + i, 1), get(b, off + i + 2, 2) as usize);
                    i += 4 + if fmt == 4 { half } else { 0 };
                }
                if !starts.is_empty() {
                    let rec = off + starts[r.below(starts.len())];
                    let (at, n) = [(0, 1), (1, 1), (2, 2), (4, 4), (8, 4)][r.below(5)];
                    let v = r.interesting(get(b, rec + at, n));
                    put(b, rec + at, n, v);
                }
            }
        }
        // Any byte of any section's contents.
        _ => {
            if let Some((_, _, off, size, _)) = pick(r, &|t| t != 8) {
                if size > 0 {
                    let at = off.wrapping_add(r.below(size.min(b.len())));
                    let v = r.next() as u8;
                    put(b, at, 1, v as u64);
                }
            }
        }
    }
}

/// One change to a host object's fatbin: container or entry header fields, or payload.
fn mutate_host(b: &mut [u8], r: &mut Rng) {
    let Some(fat) = b.windows(4).position(|w| w == 0xBA55_ED50u32.to_le_bytes()) else {
        return mutate_elf(b, r);
    };
    match r.below(4) {
        0 => {
            let (at, n) = [(0, 4), (4, 2), (6, 2), (8, 8)][r.below(4)];
            let v = r.interesting(get(b, fat + at, n));
            put(b, fat + at, n, v);
        }
        1 | 2 => {
            // The first entry's header (kind, header size, payload size, compressed and
            // uncompressed sizes, SM, flags, options offset).
            let e = fat + 16;
            let (at, n) = [
                (0, 2),
                (4, 4),
                (8, 8),
                (0x10, 4),
                (0x14, 4),
                (0x1c, 4),
                (0x28, 8),
                (0x38, 8),
            ][r.below(8)];
            let v = r.interesting(get(b, e + at, n));
            put(b, e + at, n, v);
        }
        _ => {
            let at = fat + 16 + 0x40 + r.below(256);
            let v = r.next();
            put(b, at, 1, v);
        }
    }
}

/// One change to an archive: a member header's name, size or terminator, or the symbol
/// table's count.
fn mutate_archive(b: &mut [u8], r: &mut Rng) {
    let mut headers = Vec::new();
    let mut at = 8;
    while at + 60 <= b.len() {
        headers.push(at);
        let size: usize = std::str::from_utf8(&b[at + 48..at + 58])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(usize::MAX / 2);
        at = at.saturating_add(60 + size + (size & 1));
    }
    if headers.is_empty() {
        return;
    }
    let h = headers[r.below(headers.len())];
    match r.below(5) {
        0 => {
            let names: [&[u8]; 5] = [
                b"/0             ",
                b"//             ",
                b"#1/3           ",
                b"/999999        ",
                b"               ",
            ];
            let n = names[r.below(names.len())];
            b[h..h + n.len()].copy_from_slice(n);
        }
        1 | 2 => {
            let v = r.interesting(0).to_string();
            let v = v.as_bytes();
            let len = v.len().min(10);
            b[h + 48..h + 58].fill(b' ');
            b[h + 48..h + 48 + len].copy_from_slice(&v[..len]);
        }
        3 => {
            b[h + 58] = r.next() as u8;
        }
        _ => {
            let v = r.next() as u8;
            let at = h + 60 + r.below(64);
            put(b, at, 1, v as u64);
        }
    }
}

/// Makes variant `seed` of target `t`: one to three changes.
fn variant(t: &Target, good: &[u8], seed: u64) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let mut b = good.to_vec();
    for _ in 0..1 + r.below(3) {
        match t.kind {
            Kind::Device => mutate_elf(&mut b, &mut r),
            Kind::Host => mutate_host(&mut b, &mut r),
            Kind::Archive => mutate_archive(&mut b, &mut r),
        }
    }
    b
}

/// Links variant `seed` of `t` in `dir`; an error message when it breaks a rule.
fn check(t: &Target, good: &[u8], seed: u64, dir: &Path) -> Result<(), String> {
    let bad_name = if t.kind == Kind::Archive {
        "bad.a"
    } else {
        "bad.o"
    };
    let bad = dir.join(bad_name);
    let out = dir.join("out.cubin");
    std::fs::write(&bad, variant(t, good, seed)).unwrap();
    let _ = std::fs::remove_file(&out);
    let mut args: Vec<String> = vec![format!("-arch={}", t.arch), "-o".into()];
    args.push(out.display().to_string());
    args.extend(t.flags.iter().map(|f| f.to_string()));
    args.push(bad.display().to_string());
    args.extend(t.partners.iter().map(|p| corpus(p).display().to_string()));
    let parsed = cubin_ld::cli::parse(&args).map_err(|e| e.to_string())?;
    let linked = std::panic::catch_unwind(|| cubin_ld::link(&parsed))
        .map_err(|_| format!("{} seed {seed}: the link panicked", t.name))?;
    match linked {
        Ok(_) => {
            let bytes = std::fs::read(&out)
                .map_err(|_| format!("{} seed {seed}: linked but wrote nothing", t.name))?;
            cubin_ld::elf::Cubin::parse(&bytes).map_err(|e| {
                format!("{} seed {seed}: the output does not read back: {e}", t.name)
            })?;
            // With CUBIN_LD_FUZZ_TOOLKIT (a toolkit root), NVIDIA's readers must take the
            // output wherever they take nvlink's for the same inputs.
            if let Some(tk) = std::env::var_os("CUBIN_LD_FUZZ_TOOLKIT") {
                let tk = Path::new(&tk).join("bin");
                let reads = |file: &Path| -> Option<String> {
                    for (tool, args) in [("cuobjdump", &["-elf"][..]), ("nvdisasm", &[][..])] {
                        // (A reader looping on a file counts as refusing it.)
                        let o = std::process::Command::new("timeout")
                            .arg("20")
                            .arg(tk.join(tool))
                            .args(args)
                            .arg(file)
                            .output()
                            .ok()?;
                        if !o.status.success() {
                            return Some(format!(
                                "{tool}: {}",
                                String::from_utf8_lossy(&o.stderr).trim()
                            ));
                        }
                    }
                    None
                };
                if let Some(why) = reads(&out) {
                    let theirs = dir.join("nvlink.cubin");
                    let _ = std::fs::remove_file(&theirs);
                    let mut nv_args = args.clone();
                    let o = nv_args.iter().position(|a| a == "-o").unwrap() + 1;
                    nv_args[o] = theirs.display().to_string();
                    let nv = std::process::Command::new("timeout")
                        .arg("60")
                        .arg(tk.join("nvlink"))
                        .args(&nv_args)
                        .output()
                        .map_err(|e| format!("cannot run nvlink: {e}"))?;
                    if nv.status.success() && reads(&theirs).is_none() {
                        return Err(format!(
                            "{} seed {seed}: the output is refused ({why}) where nvlink's is read",
                            t.name
                        ));
                    }
                }
            }
        }
        Err(f) => {
            if out.exists() {
                return Err(format!("{} seed {seed}: failed but left an output", t.name));
            }
            let all = format!("{:?} {:?}", f.errors, f.fatal);
            if !targets::names_the_damage(&all, bad_name) {
                return Err(format!(
                    "{} seed {seed}: failed without naming the damaged file: {all}",
                    t.name
                ));
            }
        }
    }
    Ok(())
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cubin-ld-mutate-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Links seeds from `from` on, on every target, while `more(seeds run)`; what broke a rule,
/// and how many seeds ran.
fn run(tag: &str, from: u64, more: &mut dyn FnMut(u64) -> bool) -> (Vec<String>, u64) {
    let dir = scratch(tag);
    let goods: Vec<Vec<u8>> = TARGETS
        .iter()
        .map(|t| std::fs::read(corpus(t.seed)).unwrap())
        .collect();
    let mut broken = Vec::new();
    let mut seed = from;
    while more(seed - from) {
        for (t, good) in TARGETS.iter().zip(&goods) {
            if let Err(e) = check(t, good, seed, &dir) {
                broken.push(e);
            }
        }
        seed += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    (broken, seed - from)
}

#[test]
fn earlier_findings_stay_fixed() {
    let dir = scratch("findings");
    for &(name, seed) in FINDINGS {
        let t = TARGETS.iter().find(|t| t.name == name).unwrap();
        let good = std::fs::read(corpus(t.seed)).unwrap();
        check(t, &good, seed, &dir).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_inputs_of_every_kind_fail_cleanly_naming_the_damaged_file() {
    // 400 seeds × 7 targets.
    let (broken, _) = run("quick", 1, &mut |n| n < 400);
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The long campaign (see the module comment); without CUBIN_LD_FUZZ_SECONDS, nothing.
#[test]
fn campaign() {
    let Some(secs) = std::env::var("CUBIN_LD_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    else {
        return;
    };
    let from = std::env::var("CUBIN_LD_FUZZ_START")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let start = std::time::Instant::now();
    let mut last = 0;
    let (broken, seeds) = run("campaign", from, &mut |n| {
        if n > 0 && n % 1000 == 0 && n != last {
            last = n;
            eprintln!(
                "campaign: {n} seeds × {} targets, {:?}",
                TARGETS.len(),
                start.elapsed()
            );
        }
        start.elapsed().as_secs() < secs
    });
    eprintln!(
        "campaign: done in {:?}: seeds {from} to {}, {} variants ({} targets), {} finding(s)",
        start.elapsed(),
        from + seeds.saturating_sub(1),
        seeds * TARGETS.len() as u64,
        TARGETS.len(),
        broken.len()
    );
    for b in &broken {
        eprintln!("FINDING {b}");
    }
    assert!(broken.is_empty());
}

/// Writes one variant for a closer look: `CUBIN_LD_FUZZ_VARIANT=target:seed:path`.
#[test]
fn write_variant() {
    let Ok(spec) = std::env::var("CUBIN_LD_FUZZ_VARIANT") else {
        return;
    };
    let mut parts = spec.splitn(3, ':');
    let (name, seed, path) = (
        parts.next().unwrap(),
        parts.next().unwrap().parse::<u64>().unwrap(),
        parts.next().unwrap(),
    );
    let t = TARGETS.iter().find(|t| t.name == name).unwrap();
    let good = std::fs::read(corpus(t.seed)).unwrap();
    std::fs::write(path, variant(t, &good, seed)).unwrap();
    eprintln!(
        "{path}: {} with {:?} {:?}, -arch={}",
        t.seed, t.partners, t.flags, t.arch
    );
}
