//! A link over damaged inputs reports an error naming the damaged file (or, for damage
//! nothing reads, links); it never panics, and a failed link leaves no output file.

use std::path::{Path, PathBuf};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(rel)
}

/// Links for the architecture the first file's corpus directory names (`…/sm_90/a.o`).
fn link(files: &[&Path], out: &Path, flags: &[&str]) -> Result<(), String> {
    let arch = files
        .first()
        .and_then(|f| f.parent())
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| d.starts_with("sm_"))
        .unwrap_or_else(|| "sm_90".into());
    let mut args: Vec<String> = vec![
        format!("-arch={arch}"),
        "-o".into(),
        out.display().to_string(),
    ];
    args.extend(flags.iter().map(|f| f.to_string()));
    args.extend(files.iter().map(|f| f.display().to_string()));
    let parsed = cubin_ld::cli::parse(&args).map_err(|e| e.to_string())?;
    cubin_ld::link(&parsed)
        .map(|_| ())
        .map_err(|f| format!("{:?} {:?}", f.errors, f.fatal))
}

fn damaged_links(seed: &str, partner: &str, tag: &str, flags: &[&str]) {
    let dir = std::env::temp_dir().join(format!("cubin-ld-hostile-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(corpus(seed)).unwrap();
    let partner = corpus(partner);
    let bad = dir.join("bad.o");
    let out = dir.join("out.cubin");
    let shoff = u64::from_le_bytes(good[0x28..0x30].try_into().unwrap()) as usize;
    let mut variants: Vec<Vec<u8>> = Vec::new();
    for len in (0..good.len()).step_by(37) {
        variants.push(good[..len].to_vec());
    }
    for i in (0..64).chain(shoff..good.len().min(shoff + 64 * 24)) {
        for v in [0x00u8, 0xff, 0x41] {
            let mut b = good.clone();
            b[i] = v;
            variants.push(b);
        }
    }
    // Damage inside the section contents (records, relocations, symbols).
    for i in (64..shoff).step_by(3) {
        let mut b = good.clone();
        b[i] ^= 0xa5;
        variants.push(b);
    }
    for (k, v) in variants.iter().enumerate() {
        std::fs::write(&bad, v).unwrap();
        let _ = std::fs::remove_file(&out);
        let r = std::panic::catch_unwind(|| link(&[&partner, &bad], &out, flags));
        match r {
            Err(_) => panic!("{seed}: variant {k} made the link panic"),
            Ok(Err(e)) => {
                assert!(
                    !out.exists(),
                    "{seed}: variant {k} failed but left an output"
                );
                // The damaged file is named, unless the damage only took a definition away
                // from the healthy partner (which the message then names).
                assert!(
                    e.contains("bad.o") || e.contains("Undefined reference"),
                    "{seed}: variant {k} failed without naming the damaged file: {e}"
                );
            }
            Ok(Ok(())) => {}
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_objects_never_panic_the_link() {
    damaged_links("xtu_call/sm_90/a.o", "xtu_call/sm_90/b.o", "xtu", &[]);
}

#[test]
fn damaged_sm100_objects_never_panic_the_link_of_both_halves() {
    damaged_links("xtu_call/sm_100/a.o", "xtu_call/sm_100/b.o", "xtu100", &[]);
    damaged_links(
        "weak_inline/sm_120/b.o",
        "weak_inline/sm_120/a.o",
        "weak120",
        &[],
    );
}

#[test]
fn damaged_objects_with_shared_memory_and_globals_never_panic_the_link() {
    damaged_links(
        "static_shared/sm_90/a.o",
        "static_shared/sm_90/b.o",
        "shared",
        &[],
    );
    damaged_links("globals/sm_90/a.o", "globals/sm_90/b.o", "globals", &[]);
}

#[test]
fn damaged_objects_never_panic_a_preserve_relocs_link() {
    damaged_links(
        "static_shared/sm_90/a.o",
        "static_shared/sm_90/b.o",
        "pr-shared",
        &["-preserve-relocs"],
    );
    damaged_links(
        "extern_shared/sm_90/a.o",
        "extern_shared/sm_90/b.o",
        "pr-extern",
        &["-preserve-relocs"],
    );
}

#[test]
fn a_relocation_past_the_end_of_its_section_is_an_error_naming_the_file() {
    use object::read::elf::{FileHeader, SectionHeader};
    use object::LittleEndian as LE;
    let mut bytes = std::fs::read(corpus("xtu_call/sm_90/a.o")).unwrap();
    // The first REL/RELA entry of the first relocation section gets a huge offset.
    let at = {
        let hdr = object::elf::FileHeader64::<LE>::parse(&*bytes).unwrap();
        let secs = hdr.sections(LE, &*bytes).unwrap();
        let rel = secs
            .iter()
            .find(|s| matches!(s.sh_type(LE), object::elf::SHT_REL | object::elf::SHT_RELA))
            .expect("a relocation section");
        rel.sh_offset(LE) as usize
    };
    bytes[at..at + 8].copy_from_slice(&0x00ff_0000u64.to_le_bytes());
    let dir = std::env::temp_dir().join(format!("cubin-ld-pastend-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.o");
    std::fs::write(&bad, &bytes).unwrap();
    let out = dir.join("out.cubin");
    let err = link(
        &[
            &bad,
            &corpus("xtu_call/sm_90/b.o"),
            &corpus("xtu_call/sm_90/c.o"),
        ],
        &out,
        &[],
    )
    .expect_err("the link must fail");
    assert!(
        err.contains("bad.o") && err.contains("past the end"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn code_aligned_to_no_power_of_two_is_refused_naming_file_and_section() {
    // (nvdisasm and cuobjdump reject a cubin whose code has such an alignment; a partial
    // link would keep it.)
    use object::read::elf::{FileHeader, SectionHeader};
    use object::LittleEndian as LE;
    let mut bytes = std::fs::read(corpus("xtu_call/sm_90/a.o")).unwrap();
    let at = {
        let hdr = object::elf::FileHeader64::<LE>::parse(&*bytes).unwrap();
        let secs = hdr.sections(LE, &*bytes).unwrap();
        let i = secs
            .iter()
            .position(|s| s.sh_flags(LE).0 & object::elf::SHF_EXECINSTR.0 != 0)
            .expect("a code section");
        hdr.e_shoff(LE) as usize + i * 64 + 48
    };
    bytes[at..at + 8].copy_from_slice(&6u64.to_le_bytes());
    let dir = std::env::temp_dir().join(format!("cubin-ld-align6-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.o");
    std::fs::write(&bad, &bytes).unwrap();
    let out = dir.join("out.cubin");
    let b = corpus("xtu_call/sm_90/b.o");
    let err = link(&[&bad, &b], &out, &["-r"]).expect_err("the link must fail");
    assert!(
        err.contains("bad.o")
            && err.contains("'.text.")
            && err.contains("aligned to 6, not a power of two"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The input's `.nv_debug.shared` resized to `size` (its header's sh_size).
fn with_debug_shared_size(rel: &str, size: u64) -> Vec<u8> {
    use object::read::elf::FileHeader;
    use object::LittleEndian as LE;
    let mut bytes = std::fs::read(corpus(rel)).unwrap();
    let at = {
        let hdr = object::elf::FileHeader64::<LE>::parse(&*bytes).unwrap();
        let secs = hdr.sections(LE, &*bytes).unwrap();
        let i = secs
            .iter()
            .position(|s| secs.section_name(LE, s) == Ok(&b".nv_debug.shared"[..]))
            .expect("a .nv_debug.shared");
        hdr.e_shoff(LE) as usize + i * 64 + 32
    };
    bytes[at..at + 8].copy_from_slice(&size.to_le_bytes());
    bytes
}

/// The input's `.nv_debug.shared` resized to `size`, its largest object to the rest of it.
fn with_debug_shared_object(rel: &str, size: u64) -> Vec<u8> {
    let mut bytes = with_debug_shared_size(rel, size);
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (shoff, shnum) = (u64_at(&bytes, 0x28) as usize, u16_at(&bytes, 0x3c) as usize);
    let header = |i: usize| shoff + i * 64;
    let strtab = u64_at(&bytes, header(u16_at(&bytes, 0x3e) as usize) + 24) as usize;
    let name = |b: &[u8], i: usize| {
        let at = strtab + u32_at(b, header(i)) as usize;
        b[at..].split(|&c| c == 0).next().unwrap().to_vec()
    };
    let shared = (0..shnum)
        .find(|&i| name(&bytes, i) == b".nv_debug.shared")
        .unwrap();
    let symtab = (0..shnum)
        .find(|&i| u32_at(&bytes, header(i) + 4) == 2) // SHT_SYMTAB
        .unwrap();
    let (syms, len) = (
        u64_at(&bytes, header(symtab) + 24) as usize,
        u64_at(&bytes, header(symtab) + 32) as usize,
    );
    // The largest object (not the section symbol) in `.nv_debug.shared`.
    let at = (syms..syms + len)
        .step_by(24)
        .filter(|&y| u16_at(&bytes, y + 6) as usize == shared && bytes[y + 4] & 0xf != 3)
        .max_by_key(|&y| u64_at(&bytes, y + 16))
        .unwrap();
    let value = u64_at(&bytes, at + 8);
    bytes[at + 16..at + 24].copy_from_slice(&(size - value).to_le_bytes());
    bytes
}

/// Each input's shared memory fits 32-bit addresses, but a partial link adds the objects of
/// the inputs' `.nv_debug.shared` up: past 4 GiB, the link fails rather than write what no
/// reader takes.
#[test]
fn shared_memory_adding_up_past_32_bit_addresses_fails_the_link() {
    let dir = std::env::temp_dir().join(format!("cubin-ld-shared4g-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b, out) = (dir.join("a.o"), dir.join("b.o"), dir.join("out.cubin"));
    let size = 0xc000_0000;
    std::fs::write(
        &a,
        with_debug_shared_object("static_shared/sm_90/a.o", size),
    )
    .unwrap();
    std::fs::write(
        &b,
        with_debug_shared_object("static_shared/sm_90/b.o", size),
    )
    .unwrap();
    let err = link(&[&a, &b], &out, &["-r"]).expect_err("the link must fail");
    // (a.o's objects: 0xbffffffc and 0x80 bytes; b.o's: 0xbffffffc.)
    assert!(
        err.contains("shared memory '.nv_debug.shared' adds up to 0x180000078 bytes")
            && err.contains("the largest part, 0xc0000000 bytes, is in '"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
