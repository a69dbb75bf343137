//! Malformed input is an error naming what is wrong, never a panic; and the reader handles
//! the ELF escape hatches (SHN_XINDEX, e_shnum = 0) that large modules need.

use cubin_ld::dump::dump_bytes;
use cubin_ld::elf::read::SymSection;
use cubin_ld::elf::Cubin;
use std::path::Path;

fn seed(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/out")
            .join(rel),
    )
    .unwrap()
}

const SEEDS: [&str; 4] = [
    "xtu_call/sm_75/a.o",
    "xtu_call/sm_90/default.cubin",
    "xtu_call/sm_100/a.o",
    "globals/sm_120/default.cubin",
];

#[test]
fn every_truncation_of_a_cubin_is_an_error_or_a_valid_prefix_never_a_panic() {
    for s in SEEDS {
        let bytes = seed(s);
        for len in 0..bytes.len() {
            // Ok is possible (trailing bytes nothing points at); a panic fails the test.
            let _ = dump_bytes(&bytes[..len]);
        }
        assert!(
            dump_bytes(&bytes[..bytes.len() / 2]).is_err(),
            "{s}: half a file parsed"
        );
    }
}

#[test]
fn corrupting_any_header_or_table_byte_never_panics() {
    for s in SEEDS {
        let bytes = seed(s);
        let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap()) as usize;
        let phoff = u64::from_le_bytes(bytes[0x20..0x28].try_into().unwrap()) as usize;
        let mut positions: Vec<usize> = (0..64).collect();
        positions.extend(shoff..bytes.len().min(shoff + 64 * 40));
        if phoff != 0 {
            positions.extend(phoff..bytes.len().min(phoff + 56 * 6));
        }
        for &i in &positions {
            for v in [0x00u8, 0xff, 0x7f, 0x80] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = dump_bytes(&b);
            }
        }
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let e = Cubin::parse(b"not an elf").unwrap_err();
    assert_eq!(e.to_string(), "not an ELF file");
    let mut b = seed("xtu_call/sm_90/a.o");
    b[4] = 1;
    assert!(Cubin::parse(&b).unwrap_err().to_string().contains("64-bit"));
    let mut b = seed("xtu_call/sm_90/a.o");
    b[18] = 62; // EM_X86_64
    assert!(Cubin::parse(&b)
        .unwrap_err()
        .to_string()
        .contains("not a CUDA ELF file"));
}

/// A minimal ELF64 writer for synthetic inputs: sections with names, types, links, data.
struct Elf {
    sections: Vec<(String, u32, u32, u32, u64, Vec<u8>)>, // name, type, link, info, entsize, data
}

impl Elf {
    fn build(&self, shnum_zero: bool, shstrndx_xindex: bool) -> Vec<u8> {
        let mut shstr = vec![0u8];
        let mut name_off = Vec::new();
        for (n, ..) in &self.sections {
            name_off.push(shstr.len() as u32);
            shstr.extend_from_slice(n.as_bytes());
            shstr.push(0);
        }
        let shstr_name = shstr.len() as u32;
        shstr.extend_from_slice(b".shstrtab\0");
        let shstr_index = self.sections.len() as u32 + 1;
        let mut out = vec![0u8; 64];
        let mut offs = Vec::new();
        for (name, .., data) in &self.sections {
            // (Code is aligned to 128 bytes, as every toolkit aligns it.)
            while name.starts_with(".text.") && out.len() % 128 != 0 {
                out.push(0);
            }
            offs.push(out.len() as u64);
            out.extend_from_slice(data);
        }
        let shstr_off = out.len() as u64;
        out.extend_from_slice(&shstr);
        while out.len() % 8 != 0 {
            out.push(0);
        }
        let shoff = out.len() as u64;
        let count = self.sections.len() as u32 + 2;
        let sh = |out: &mut Vec<u8>,
                  name: u32,
                  ty: u32,
                  off: u64,
                  size: u64,
                  link: u32,
                  info: u32,
                  ent: u64| {
            out.extend_from_slice(&name.to_le_bytes());
            out.extend_from_slice(&ty.to_le_bytes());
            out.extend_from_slice(&0u64.to_le_bytes());
            out.extend_from_slice(&0u64.to_le_bytes());
            out.extend_from_slice(&off.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&link.to_le_bytes());
            out.extend_from_slice(&info.to_le_bytes());
            out.extend_from_slice(&1u64.to_le_bytes());
            out.extend_from_slice(&ent.to_le_bytes());
        };
        // Section 0 carries the real count / shstrndx when the header cannot.
        sh(
            &mut out,
            0,
            0,
            0,
            if shnum_zero { count as u64 } else { 0 },
            if shstrndx_xindex { shstr_index } else { 0 },
            0,
            0,
        );
        for (i, (_, ty, link, info, ent, data)) in self.sections.iter().enumerate() {
            sh(
                &mut out,
                name_off[i],
                *ty,
                offs[i],
                data.len() as u64,
                *link,
                *info,
                *ent,
            );
        }
        sh(
            &mut out,
            shstr_name,
            3,
            shstr_off,
            shstr.len() as u64,
            0,
            0,
            0,
        );
        for (i, (name, ..)) in self.sections.iter().enumerate() {
            if name.starts_with(".text.") {
                let at = shoff as usize + (i + 1) * 64;
                out[at + 8..at + 16].copy_from_slice(&6u64.to_le_bytes()); // alloc, exec
                out[at + 48..at + 56].copy_from_slice(&128u64.to_le_bytes());
            }
        }
        let h = &mut out[..64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[6] = 1;
        h[7] = 0x41;
        h[8] = 8;
        h[16..18].copy_from_slice(&1u16.to_le_bytes());
        h[18..20].copy_from_slice(&190u16.to_le_bytes());
        h[20..24].copy_from_slice(&1u32.to_le_bytes());
        h[40..48].copy_from_slice(&shoff.to_le_bytes());
        h[48..52].copy_from_slice(&0x0600_5a04u32.to_le_bytes());
        h[52..54].copy_from_slice(&64u16.to_le_bytes());
        h[54..56].copy_from_slice(&56u16.to_le_bytes());
        h[58..60].copy_from_slice(&64u16.to_le_bytes());
        h[60..62].copy_from_slice(&(if shnum_zero { 0 } else { count as u16 }).to_le_bytes());
        h[62..64].copy_from_slice(
            &(if shstrndx_xindex {
                0xffff
            } else {
                shstr_index as u16
            })
            .to_le_bytes(),
        );
        out
    }
}

fn sym(name: u32, info: u8, shndx: u16) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&name.to_le_bytes());
    v.push(info);
    v.push(0);
    v.extend_from_slice(&shndx.to_le_bytes());
    v.extend_from_slice(&0u64.to_le_bytes());
    v.extend_from_slice(&4u64.to_le_bytes());
    v
}

#[test]
fn extended_section_indices_resolve_through_symtab_shndx() {
    // Sections: 1 .strtab, 2 .symtab, 3 .symtab_shndx, 4 .text.f, 5 .shstrtab.
    let strtab = b"\0f\0".to_vec();
    let mut symtab = sym(0, 0, 0);
    symtab.extend(sym_at(1, 0xffff, 0, 128)); // GLOBAL FUNC, index in .symtab_shndx
    let mut shndx = 0u32.to_le_bytes().to_vec();
    shndx.extend_from_slice(&4u32.to_le_bytes());
    let elf = Elf {
        sections: vec![
            (".strtab".into(), 3, 0, 0, 0, strtab),
            (".symtab".into(), 2, 1, 1, 24, symtab),
            (".symtab_shndx".into(), 18, 2, 0, 4, shndx),
            (".text.f".into(), 1, 2, 1, 0, vec![0; 128]),
        ],
    };
    for (zero, x) in [(false, false), (true, false), (false, true), (true, true)] {
        let bytes = elf.build(zero, x);
        let c = Cubin::parse(&bytes).unwrap_or_else(|e| panic!("shnum0={zero} xindex={x}: {e}"));
        assert_eq!(c.sections.len(), 6);
        assert_eq!(c.symtabs[0].symbols[1].section, SymSection::Index(4));
        let d = dump_bytes(&bytes).unwrap();
        assert!(
            d.text.contains(
                "symbol .symtab f\n  bind GLOBAL type FUNC other 0x00 (DEFAULT) section .text.f"
            ),
            "{}",
            d.text
        );
    }
}

#[test]
fn an_unnamed_symtab_shndx_is_read_as_a_named_one() {
    // (sh_name 0: nvlink links such an object as it is; so does cubin-ld.)
    let strtab = b"\0f\0".to_vec();
    let mut symtab = sym(0, 0, 0);
    symtab.extend(sym_at(1, 0xffff, 0, 128));
    let mut shndx = 0u32.to_le_bytes().to_vec();
    shndx.extend_from_slice(&4u32.to_le_bytes());
    let elf = Elf {
        sections: vec![
            (".strtab".into(), 3, 0, 0, 0, strtab),
            (".symtab".into(), 2, 1, 1, 24, symtab),
            ("".into(), 18, 2, 0, 4, shndx),
            (".text.f".into(), 1, 2, 1, 0, vec![0; 128]),
        ],
    };
    let bytes = elf.build(false, false);
    let c = Cubin::parse(&bytes).unwrap();
    assert_eq!(c.symtabs[0].symbols[1].section, SymSection::Index(4));
}

#[test]
fn a_symbol_pointing_past_the_section_table_is_an_error() {
    let strtab = b"\0f\0".to_vec();
    let mut symtab = sym(0, 0, 0);
    symtab.extend(sym(1, 0x12, 77));
    let elf = Elf {
        sections: vec![
            (".strtab".into(), 3, 0, 0, 0, strtab),
            (".symtab".into(), 2, 1, 1, 24, symtab),
        ],
    };
    let e = Cubin::parse(&elf.build(false, false)).unwrap_err();
    assert!(
        e.to_string().contains("section index 77 does not exist"),
        "{e}"
    );
}

/// A symbol table (`.strtab`, `.symtab`) and a 128-byte `.text.f`, with the function's
/// symbol as given.
fn one_function(strtab: &[u8], f: Vec<u8>) -> Vec<u8> {
    let mut symtab = sym(0, 0, 0);
    symtab.extend(f);
    Elf {
        sections: vec![
            (".strtab".into(), 3, 0, 0, 0, strtab.to_vec()),
            (".symtab".into(), 2, 1, 1, 24, symtab),
            (".text.f".into(), 1, 2, 1, 0, vec![0; 128]),
        ],
    }
    .build(false, false)
}

fn sym_at(name: u32, shndx: u16, value: u64, size: u64) -> Vec<u8> {
    let mut v = sym(name, 0x12, shndx);
    v[8..16].copy_from_slice(&value.to_le_bytes());
    v[16..24].copy_from_slice(&size.to_le_bytes());
    v
}

fn parse_error(bytes: &[u8]) -> String {
    Cubin::parse(bytes).unwrap_err().to_string()
}

/// The object checks' verdict on `bytes`, read as the input `name`.
fn read_object(name: &str, bytes: &[u8]) -> Result<(), String> {
    let id = cubin_ld::ids::ObjectId::new(0);
    cubin_ld::object::InputObject::new(id, name.into(), bytes)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Why the object checks refuse `bytes`, read as the input `name`.
fn object_error(name: &str, bytes: &[u8]) -> String {
    read_object(name, bytes).expect_err("refused")
}

/// Overwrites the field `field` bytes into section `index`'s header with `value`.
fn set_header_field(b: &mut [u8], index: usize, field: usize, value: &[u8]) {
    let shoff = u64::from_le_bytes(b[40..48].try_into().unwrap()) as usize;
    let at = shoff + index * 64 + field;
    b[at..at + value.len()].copy_from_slice(value);
}

#[test]
fn a_well_formed_function_symbol_parses() {
    assert!(Cubin::parse(&one_function(b"\0f\0", sym_at(1, 3, 0, 128))).is_ok());
}

#[test]
fn a_string_table_that_does_not_begin_with_an_empty_string_was_moved() {
    let e = parse_error(&one_function(b"xf\0", sym_at(1, 3, 0, 128)));
    assert!(e.contains("does not begin with an empty string"), "{e}");
}

#[test]
fn a_global_symbol_without_a_name_is_damaged() {
    let e = parse_error(&one_function(b"\0f\0", sym_at(0, 3, 0, 16)));
    assert!(e.contains("symbol 1 is global but has no name"), "{e}");
}

#[test]
fn a_symbol_starting_past_its_section_is_damaged() {
    let e = parse_error(&one_function(b"\0f\0", sym_at(1, 3, 0x100, 0)));
    assert!(
        e.contains("value 0x100 lies past the end of section '.text.f'"),
        "{e}"
    );
}

#[test]
fn a_symbol_larger_than_any_memory_is_damaged() {
    let e = parse_error(&one_function(b"\0f\0", sym_at(1, 3, 0, 0xa5 << 48)));
    assert!(e.contains("is larger than any GPU memory"), "{e}");
}

#[test]
fn an_undefined_symbol_larger_than_any_memory_is_damaged() {
    let e = parse_error(&one_function(b"\0f\0", sym_at(1, 0, 0, 0xa5 << 48)));
    assert!(e.contains("is larger than any GPU memory"), "{e}");
}

/// An undefined global `st_other` 0x40 (shared) symbol: an extern `__shared__` array, whose
/// value is its alignment.
fn extern_shared_array(align: u64) -> Vec<u8> {
    let mut s = sym_at(1, 0, align, 0);
    s[4] = 0x1d; // global, STT_CUDA_OBJECT
    s[5] = 0x40;
    one_function(b"\0f\0", s)
}

#[test]
fn an_extern_shared_array_aligned_to_no_power_of_two_is_damaged() {
    assert!(Cubin::parse(&extern_shared_array(0x10)).is_ok());
    for align in [0x30, 1 << 40, u64::MAX] {
        let e = parse_error(&extern_shared_array(align));
        assert!(e.contains("an extern __shared__ array aligned to"), "{e}");
    }
}

#[test]
fn an_extern_shared_array_with_a_size_is_damaged() {
    let mut b = extern_shared_array(0x10);
    let c = Cubin::parse(&b).unwrap();
    let t = &c.symtabs[0];
    let at = c.sections[t.section as usize].offset as usize + 24 + 16; // symbol 1's size
    b[at..at + 8].copy_from_slice(&0xaeu64.to_le_bytes());
    let e = parse_error(&b);
    assert!(
        e.contains("an extern __shared__ array of size 0xae, where its size is set at launch"),
        "{e}"
    );
}

#[test]
fn a_symbol_in_two_memory_spaces_is_damaged() {
    let mut s = sym_at(1, 0, 0x10, 0);
    s[5] = 0x60; // global and shared
    let e = parse_error(&one_function(b"\0f\0", s));
    assert!(
        e.contains("places it in shared memory and another memory space"),
        "{e}"
    );
}

#[test]
fn a_symbol_in_a_reserved_section_index_is_damaged() {
    let e = parse_error(&one_function(b"\0f\0", sym_at(1, 0xffde, 0, 16)));
    assert!(
        e.contains("section index 0xffde is a reserved one no CUDA object uses"),
        "{e}"
    );
}

#[test]
fn shared_memory_past_32_bit_addresses_is_damaged() {
    // Sections: 1 .strtab, 2 .symtab, 3 .nv.shared.k (no bytes), 4 .shstrtab.
    let mut b = Elf {
        sections: vec![
            (".strtab".into(), 3, 0, 0, 0, b"\0".to_vec()),
            (".symtab".into(), 2, 1, 1, 24, sym(0, 0, 0)),
            (".nv.shared.k".into(), 0x7000_000a, 0, 0, 0, vec![]),
        ],
    }
    .build(false, false);
    set_header_field(&mut b, 3, 32, &0xffff_ffffu64.to_le_bytes());
    assert!(Cubin::parse(&b).is_ok(), "4 GiB less a byte is addressable");
    set_header_field(&mut b, 3, 32, &0x1_0000_0000u64.to_le_bytes());
    let e = parse_error(&b);
    assert!(
        e.contains("'.nv.shared.k': size 0x100000000 is past shared memory's 32-bit addresses"),
        "{e}"
    );
}

/// sm_100+: where `.nv.merc.symtab` puts a function is its code's capsule, at the code's
/// value; a twin elsewhere is damage (nvlink's finalizer refuses it).
#[test]
fn a_mercury_function_away_from_its_capsule_is_damaged() {
    let good = seed("weak_inline/sm_120/b.o");
    let cubin = Cubin::parse(&good).unwrap();
    let merc = cubin
        .sections
        .iter()
        .find(|s| s.name == b".nv.merc.symtab")
        .unwrap();
    let table = cubin
        .symtabs
        .iter()
        .find(|t| t.section == merc.index)
        .unwrap();
    let i = table
        .symbols
        .iter()
        .position(|s| s.name == b"_Z4tsumIfET_S0_S0_")
        .unwrap();
    let value_at = merc.offset as usize + i * 24 + 8;
    let mut bad = good.clone();
    bad[value_at..value_at + 8].copy_from_slice(&0x10u64.to_le_bytes());
    assert!(read_object("b.o", &good).is_ok());
    let e = object_error("b.o", &bad);
    assert!(
        e.contains("function")
            && e.contains("at 0x10 in '.nv.capmerc.text._Z4tsumIfET_S0_S0_', not at 0x0"),
        "{e}"
    );
}

/// `xtu_call/sm_90/b.o` with its first parameter-bank record (EIATTR_PARAM_CBANK, an 8-byte
/// payload) given attribute `attr`, and the reader's error.
fn param_bank_record_as(attr: u8) -> String {
    use cubin_ld::elf::nvinfo;
    let mut b = seed("xtu_call/sm_90/b.o");
    let cubin = Cubin::parse(&b).unwrap();
    let at = cubin
        .sections
        .iter()
        .filter(|s| s.name.starts_with(b".nv.info."))
        .find_map(|s| {
            nvinfo::records(s.bytes())
                .flatten()
                .find(|r| r.attr == nvinfo::EIATTR_PARAM_CBANK)
                .map(|r| s.offset as usize + r.offset)
        })
        .expect("a parameter-bank record");
    b[at + 1] = attr;
    object_error("b.o", &b)
}

#[test]
fn a_record_of_an_attribute_cubin_ld_does_not_know_is_refused() {
    let e = param_bank_record_as(0x60);
    assert!(e.contains("'b.o': section '.nv.info."), "{e}");
    assert!(
        e.contains("has attribute 0x60, which cubin-ld does not know"),
        "{e}"
    );
}

/// cuobjdump names attributes no toolkit object was seen to hold; what nvlink does with one
/// was never probed, so a record of one is refused as not implemented, named.
#[test]
fn a_record_of_a_named_attribute_nvlink_was_not_probed_with_is_refused() {
    let e = param_bank_record_as(0x64);
    assert!(e.contains("'b.o': section '.nv.info."), "{e}");
    assert!(
        e.contains("linking a record of EIATTR_MIN_PER_CTA_MEMORY_SIZE (0x64, at 0x"),
        "{e}"
    );
    assert!(
        e.contains("is not implemented yet in this version of cubin-ld"),
        "{e}"
    );
}

/// nvlink drops these records where cubin-ld would copy them: refused, not linked otherwise.
#[test]
fn a_record_nvlink_drops_is_refused_rather_than_copied() {
    for attr in [0x26, 0x3b] {
        let e = param_bank_record_as(attr);
        assert!(
            e.contains("which cubin-ld does not link as nvlink does"),
            "{e}"
        );
    }
}

/// nvlink drops a KPARAM_INFO or LANGUAGE record of another size; the records the link reads
/// are of one shape each.
#[test]
fn a_record_of_another_shape_than_its_attribute_is_damaged() {
    let e = param_bank_record_as(0x17);
    assert!(
        e.contains("(EIATTR_KPARAM_INFO): 8 bytes, where it has 12 (damaged)"),
        "{e}"
    );
    let e = param_bank_record_as(0x66);
    assert!(
        e.contains("(EIATTR_LANGUAGE): 8 bytes, where it has 4"),
        "{e}"
    );
    // (nvlink drops an 8-byte KPARAM_INFO_V2 from an executable; it copies the 12-byte
    // records ptxas writes.)
    let e = param_bank_record_as(0x45);
    assert!(
        e.contains("(EIATTR_KPARAM_INFO_V2): 8 bytes, where it has 12 (damaged)"),
        "{e}"
    );
    let e = param_bank_record_as(0x1b);
    assert!(
        e.contains("(EIATTR_MAXREG_COUNT): SVAL, where it is HVAL"),
        "{e}"
    );
}

/// `weak_inline/sm_120/b.o` with one field (at `field` bytes into the entry) of the code
/// relocation against `_Z8k_weak_bPiPf+0x1d0` set to `value`, and the reader's verdict.
fn code_relocation_with(field: usize, value: u64) -> Result<(), String> {
    let mut b = seed("weak_inline/sm_120/b.o");
    let cubin = Cubin::parse(&b).unwrap();
    let rela = cubin
        .sections
        .iter()
        .find(|s| s.name == b".rela.text._Z8k_weak_bPiPf")
        .unwrap();
    let symtab = &cubin.symtabs[0];
    let i = cubin
        .relocations(rela)
        .unwrap()
        .iter()
        .position(|r| {
            r.addend == Some(0x1d0) && symtab.symbols[r.sym as usize].name == b"_Z8k_weak_bPiPf"
        })
        .expect("the relocation");
    let at = rela.offset as usize + i * 24 + field;
    b[at..at + 8].copy_from_slice(&value.to_le_bytes());
    read_object("b.o", &b)
}

/// Every code relocation a toolkit writes (sm_75 on) lies at the start of a 16-byte
/// instruction; nvlink rebuilds sm_100+ code from the capsule and never sees one elsewhere.
#[test]
fn a_code_relocation_inside_an_instruction_is_damaged() {
    assert!(code_relocation_with(0, 0x1b0).is_ok());
    let e = code_relocation_with(0, 0x1b4).unwrap_err();
    assert!(
        e.contains("'.rela.text._Z8k_weak_bPiPf' entry")
            && e.contains("offset 0x1b4 is not at the start of an instruction"),
        "{e}"
    );
}

/// A relocation against a function points into that function's code (a label: a return
/// address, a jump table's target).
#[test]
fn a_code_address_outside_its_function_is_damaged() {
    assert!(code_relocation_with(16, 0x300).is_ok(), "its end is inside");
    let e = code_relocation_with(16, 0x310).unwrap_err();
    assert!(
        e.contains("'_Z8k_weak_bPiPf'+0x310 lies outside its code section"),
        "{e}"
    );
    let e = code_relocation_with(16, (-16i64) as u64).unwrap_err();
    assert!(e.contains("'_Z8k_weak_bPiPf'-0x10 lies outside"), "{e}");
}

/// The object `rel` with the name of its section `from` changed to `to` (same length, in
/// place in the section-name table).
fn renamed_section(rel: &str, from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut b = seed(rel);
    let cubin = Cubin::parse(&b).unwrap();
    let names = cubin
        .sections
        .iter()
        .find(|s| s.name == b".shstrtab")
        .unwrap();
    let bytes = names.bytes();
    let at = (0..bytes.len())
        .find(|&i| bytes[i..].starts_with(from) && bytes.get(i + from.len()) == Some(&0))
        .filter(|&i| i == 0 || bytes[i - 1] == 0)
        .expect("the name");
    let at = names.offset as usize + at;
    b[at..at + to.len()].copy_from_slice(to);
    b
}

#[test]
fn a_mercury_section_without_its_main_half_twin_is_damaged() {
    let bad = renamed_section("xtu_call/sm_100/a.o", b".debug_frame", b".debug_frXme");
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("Mercury section '.nv.merc.debug_frame' has no twin '.debug_frame'"),
        "{e}"
    );
}

#[test]
fn a_relocation_section_for_a_section_that_does_not_exist_is_damaged() {
    let mut b = seed("xtu_call/sm_90/a.o");
    let cubin = Cubin::parse(&b).unwrap();
    let rela = cubin
        .sections
        .iter()
        .find(|s| s.name.starts_with(b".rela.text."))
        .unwrap();
    let index = rela.index as usize;
    set_header_field(&mut b, index, 44, &528u32.to_le_bytes());
    let e = object_error("a.o", &b);
    assert!(
        e.contains("it relocates section 528, which does not exist"),
        "{e}"
    );
}

#[test]
fn a_mercury_section_named_as_another_kind_is_damaged() {
    let bad = renamed_section(
        "xtu_call/sm_100/a.o",
        b".nv.merc.debug_frame",
        b".nv.constantug_frame",
    );
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("section '.nv.constantug_frame' is of the Mercury half but not named as one"),
        "{e}"
    );
}

/// Index, file offset and size of the section of `bytes` named `name`.
fn section_of(bytes: &[u8], name: &[u8]) -> (usize, usize, usize) {
    let c = Cubin::parse(bytes).unwrap();
    let i = c.sections.iter().position(|s| s.name == name).unwrap();
    let shoff = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    let h = shoff + i * 64;
    let word = |at: usize| u64::from_le_bytes(bytes[h + at..h + at + 8].try_into().unwrap());
    (i, word(24) as usize, word(32) as usize)
}

#[test]
fn a_prototype_string_past_the_names_table_is_damaged() {
    // xtu_call's sm_100 a.o: `.nv.prototype` entries are (symbol, string offset) pairs.
    let mut b = seed("xtu_call/sm_100/a.o");
    let (_, at, _) = section_of(&b, b".nv.prototype");
    b[at + 12..at + 16].copy_from_slice(&0x7000u32.to_le_bytes());
    let e = object_error("a.o", &b);
    assert!(
        e.contains("'.nv.prototype': entry 1's prototype string at 0x7000 does not end inside"),
        "{e}"
    );
}

#[test]
fn code_not_flagged_executable_or_aligned_below_128_bytes_is_damaged() {
    let b = seed("xtu_call/sm_90/a.o");
    let (i, _, _) = section_of(&b, b".text._Z7a_locali");
    let mut data = b.clone();
    set_header_field(&mut data, i, 8, &2u64.to_le_bytes()); // alloc only
    let e = parse_error(&data);
    assert!(e.contains("code not flagged executable"), "{e}");
    let mut loose = b;
    set_header_field(&mut loose, i, 48, &16u64.to_le_bytes());
    let e = parse_error(&loose);
    assert!(
        e.contains("code aligned to 0x10, where every toolkit"),
        "{e}"
    );
}

/// Where the payload of xtu_call's kernel's first EIATTR_KPARAM_INFO record starts in `b`.
fn kparam_payload(b: &[u8]) -> usize {
    let (_, at, size) = section_of(b, b".nv.info._Z5k_xtuPiPfi");
    let record = b[at..at + size]
        .windows(4)
        .position(|w| w == [0x04, 0x17, 0x0c, 0x00])
        .unwrap();
    at + record + 4
}

#[test]
fn a_parameter_record_with_an_index_is_damaged() {
    let mut b = seed("xtu_call/sm_90/a.o");
    let at = kparam_payload(&b);
    b[at] = 0x90; // the index
    let e = object_error("a.o", &b);
    assert!(e.contains("(EIATTR_KPARAM_INFO) has index 0x90"), "{e}");
}

#[test]
fn a_compat_table_of_another_type_is_damaged() {
    let mut b = seed("xtu_call/sm_90/a.o");
    let (i, _, _) = section_of(&b, b".nv.compat");
    set_header_field(&mut b, i, 4, &1u32.to_le_bytes());
    let e = parse_error(&b);
    assert!(e.contains("is named '.nv.compat' but has type 0x1"), "{e}");
}

/// `bytes` with the addend of entry `entry` of its relocation section `section` replaced.
fn with_addend(
    mut bytes: Vec<u8>,
    section: &[u8],
    entry: usize,
    at: Option<u64>,
    add: i64,
) -> Vec<u8> {
    let (_, off, _) = section_of(&bytes, section);
    let e = off + entry * 24;
    if let Some(at) = at {
        bytes[e..e + 8].copy_from_slice(&at.to_le_bytes());
    }
    bytes[e + 16..e + 24].copy_from_slice(&add.to_le_bytes());
    bytes
}

#[test]
fn a_call_past_the_start_of_another_objects_function_is_damaged() {
    // (xtu_call's a.o calls b.o's and c.o's functions; its first entry is such a call.)
    let b = seed("xtu_call/sm_90/a.o");
    let reloc = b".rela.text._Z5k_xtuPiPfi";
    let e = object_error("a.o", &with_addend(b, reloc, 0, None, 0x40 << 48));
    assert!(
        e.contains("past the start of a function another object defines"),
        "{e}"
    );
}

#[test]
fn a_frame_relocation_outside_a_frame_description_entry_is_damaged() {
    let b = seed("xtu_call/sm_90/a.o");
    let e = object_error("a.o", &with_addend(b, b".rela.debug_frame", 0, Some(1), 0));
    assert!(
        e.contains("offset 0x1 is not inside a frame description entry"),
        "{e}"
    );
}

#[test]
fn a_prototype_table_of_another_type_is_damaged() {
    let mut b = seed("xtu_call/sm_100/a.o");
    let (i, _, _) = section_of(&b, b".nv.prototype");
    set_header_field(&mut b, i, 4, &1u32.to_le_bytes());
    let e = parse_error(&b);
    assert!(
        e.contains("is named '.nv.prototype' but has type 0x1"),
        "{e}"
    );
}

#[test]
fn parameter_records_that_differ_from_their_mercury_twins_are_damaged() {
    // nvlink takes a kernel's EIATTR_KPARAM_INFO from the Mercury half; cubin-ld reads the
    // main half's, so the two must agree.
    let mut b = seed("xtu_call/sm_100/a.o");
    let at = kparam_payload(&b);
    b[at + 4] ^= 1; // the ordinal
    let e = object_error("a.o", &b);
    assert!(e.contains("differ from those of its Mercury twin"), "{e}");
}

/// sm_100+: a relocated instruction is one its capsule describes as the type needs (a call
/// has its `42 0a` record). Moved onto the function's first instruction (`LDC R1`, a `01 0b`
/// record), the call would be patched where nvlink, reading the Mercury half, patches none.
/// (The instruction is no `CALL` either, which is found first; the capsule rule stands
/// behind it where a record kind and the instruction's opcode both fit.)
#[test]
fn a_code_relocation_on_an_instruction_its_capsule_describes_otherwise_is_damaged() {
    let b = seed("xtu_call/sm_100/a.o");
    let (_, off, _) = section_of(&b, b".rela.text._Z5k_xtuPiPfi");
    let mut bad = b.clone();
    // (Entry 6 is the call to b.o's function.)
    bad[off + 6 * 24..off + 6 * 24 + 8].copy_from_slice(&0u64.to_le_bytes());
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("entry 6: type R_CUDA_ABS55_16_34 patches an instruction with opcode 0xb82, where the toolkit writes it only on 0x943"),
        "{e}"
    );
}

/// sm_100+: a constant-load relocation moved onto the function's first instruction, itself
/// an `LDC` (so the opcode fits) but one its capsule keeps as a `01 0b` record, not the
/// `02 22` record whose offset nvlink patches.
#[test]
fn a_constant_load_relocation_on_an_ldc_the_capsule_keeps_otherwise_is_damaged() {
    let mut b = seed("constant_address/sm_100/a.o");
    let (_, off, _) = section_of(&b, b".rela.text._Z10k_read_ptrPi");
    assert_eq!(b[off], 0x10, "the seed's relocation moved");
    b[off] = 0;
    let e = object_error("a.o", &b);
    assert!(
        e.contains("entry 0: R_CUDA_CONST_FIELD21_38 at 0x0 patches an instruction its Mercury capsule '.nv.capmerc.text._Z10k_read_ptrPi' describes as a record of kind 01 0b, not a record of kind 02 22"),
        "{e}"
    );
}

/// sm_100+: `.rela.debug_frame` lists what its Mercury twin lists, which nvlink reads.
#[test]
fn a_frame_relocation_unlike_its_mercury_twin_is_damaged() {
    let b = seed("xtu_call/sm_100/a.o");
    let e = object_error(
        "a.o",
        &with_addend(
            b.clone(),
            b".rela.debug_frame",
            1,
            None,
            0x12f9_0dcb_5d1a_597d,
        ),
    );
    assert!(
        e.contains("'.rela.debug_frame' entry 1 has addend 0x12f90dcb5d1a597d, not 0x0"),
        "{e}"
    );
    let mut bad = b;
    let (_, off, _) = section_of(&bad, b".rela.debug_frame");
    // R_CUDA_UNUSED_CLEAR64 (0x49) made R_CUDA_ABS55_16_34 (0x4b), a call's type.
    bad[off + 3 * 24 + 8] = 0x4b;
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("entry 3 (type 0x4b against symbol 8) pairs with type 0x1000e"),
        "{e}"
    );
}

/// A relocation section is named after the section it relocates; the link finds its output
/// by the name, so one that names another section would be applied there.
#[test]
fn a_relocation_section_whose_name_is_not_its_targets_is_damaged() {
    let bad = renamed_section("xtu_call/sm_90/a.o", b".debug_frame", b".debugXframe");
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("relocation section '.rela.debug_frame' relocates section '.debugXframe', which its name does not name"),
        "{e}"
    );
}

/// sm_100+: a function's code ends with its closing branch and ptxas's padding `NOP`s, which
/// nvlink writes again from the capsule; a damaged padding instruction is refused rather
/// than copied into an output nvdisasm cannot read.
#[test]
fn damaged_padding_after_the_closing_branch_is_damaged() {
    let b = seed("xtu_call/sm_100/a.o");
    let (_, off, _) = section_of(&b, b".text._Z7a_locali");
    let mut bad = b.clone();
    bad[off + 0x4f] = 0x71; // a scheduling byte of the first padding NOP
    let e = object_error("a.o", &bad);
    assert!(
        e.contains(
            "code section '.text._Z7a_locali': the padding instruction at 0x40 is not ptxas's NOP"
        ),
        "{e}"
    );
    let mut bad = b;
    bad[off + 0x41] = 0x56; // its opcode: no longer a NOP, so the code seems to end there
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("its last instruction before the padding, at 0x40, is not the closing branch"),
        "{e}"
    );
}

/// sm_100+: an instruction has the opcode its capsule entry stands for (nvlink writes the
/// instruction again from the entry); a damaged opcode is refused rather than copied into an
/// output nvdisasm cannot read.
#[test]
fn an_opcode_unlike_its_capsule_record_is_damaged() {
    let mut bad = seed("weak_inline/sm_120/b.o");
    let (_, off, _) = section_of(&bad, b".text._Z8k_weak_bPiPf");
    assert_eq!(bad[off + 0x140], 0x82, "the seed's LDC moved");
    bad[off + 0x140] = 0x4a;
    let e = object_error("b.o", &bad);
    assert!(
        e.contains(
            "code section '.text._Z8k_weak_bPiPf': the instruction at 0x140 has opcode 0xb4a \
             where its capsule entry (02 22 0e) stands for 0xb82"
        ),
        "{e}"
    );
}

/// A code relocation has a type the toolkit writes in code, on an instruction it writes
/// that type on; nvdisasm refuses any other ("relocator unhandled by instruction encoder").
#[test]
fn a_code_relocation_of_a_data_type_or_on_another_instruction_is_damaged() {
    let good = seed("xtu_call/sm_100/a.o");
    let (_, off, _) = section_of(&good, b".rela.text._Z5k_xtuPiPfi");
    let mut bad = good.clone();
    bad[off + 8 * 24 + 8] = 0x01; // entry 8, a call (R_CUDA_ABS55_16_34), made R_CUDA_32
    let e = object_error("a.o", &bad);
    assert!(
        e.contains("entry 8: type R_CUDA_32 (0x1) is not one the toolkit writes against code"),
        "{e}"
    );
    let mut bad = good;
    bad[off + 24..off + 26].copy_from_slice(&[0xf0, 0x00]); // entry 1's MOV moved to 0xf0
    let e = object_error("a.o", &bad);
    assert!(
        e.contains(
            "entry 1: type R_CUDA_ABS32_HI_32 patches an instruction with opcode 0x981, where \
             the toolkit writes it only on 0x802 or 0x882"
        ),
        "{e}"
    );
}

/// A relocation section's entries are as large as its type says (readers step by
/// sh_entsize, so another size would make them read another table).
#[test]
fn a_relocation_entry_size_other_than_its_types_is_damaged() {
    let mut b = seed("extern_shared_r_pad/sm_90/b.o");
    let (i, _, _) = section_of(&b, b".rela.text._Z8k_directPi");
    set_header_field(&mut b, i, 56, &25u64.to_le_bytes());
    let e = object_error("b.o", &b);
    assert!(
        e.contains("relocation section '.rela.text._Z8k_directPi': entry size 25 instead of 24"),
        "{e}"
    );
}

/// A function's resource records (`EIATTR_REGCOUNT` and the like) name a function.
#[test]
fn a_register_count_for_something_not_a_function_is_damaged() {
    let mut b = seed("static_shared/sm_90/a.o");
    let (_, off, _) = section_of(&b, b".nv.info");
    assert_eq!(&b[off + 0x6c..off + 0x71], &[0x04, 0x2f, 0x08, 0x00, 0x03]);
    b[off + 0x70] = 4; // symbol 4: a section symbol
    let e = object_error("a.o", &b);
    assert!(
        e.contains(
            "record at 0x6c (EIATTR_REGCOUNT) names symbol 4 '.text._Z7a_stagePKf$3', which \
             is not a function"
        ),
        "{e}"
    );
}

/// A section the toolkit names has the type the toolkit gives that name: the link reads a
/// section by its type, nvlink and the driver by its name.
#[test]
fn a_section_whose_type_is_not_its_names_is_damaged() {
    let mut b = seed("weak_inline/sm_120/b.o");
    let (i, _, _) = section_of(&b, b".nv.global.init");
    set_header_field(&mut b, i, 4, &0x7000_0007u32.to_le_bytes());
    let e = object_error("b.o", &b);
    assert!(
        e.contains(
            "section '.nv.global.init' has type 0x70000007, where the toolkit gives that name \
             type 0x70000008"
        ),
        "{e}"
    );
}

/// Code sections carry ALLOC and EXECINSTR alone in everything the toolkit writes.
#[test]
fn code_with_other_flags_is_damaged() {
    let mut b = seed("xtu_call/sm_90/a.o");
    let (i, _, _) = section_of(&b, b".text._Z7a_locali");
    set_header_field(&mut b, i, 8, &0x24u64.to_le_bytes());
    let e = parse_error(&b);
    assert!(
        e.contains("section '.text._Z7a_locali': code flags 0x24, where every toolkit writes ALLOC and EXECINSTR alone"),
        "{e}"
    );
}

/// A symbol marked as shared memory lies in a shared-memory section, no larger than it
/// (relocatable objects); a partial link lays it out there.
#[test]
fn a_shared_symbol_outside_shared_memory_or_larger_than_its_section_is_damaged() {
    let good = seed("static_shared/sm_90/a.o");
    let c = Cubin::parse(&good).unwrap();
    let table = &c.symtabs[0];
    let (i, _) = table
        .symbols
        .iter()
        .enumerate()
        .find(|(_, s)| s.name == b"file_sh")
        .expect("the shared object");
    let (_, symtab, _) = section_of(&good, b".symtab");
    let (code, _, _) = section_of(&good, b".text._Z7a_stagePKf");
    let mut moved = good.clone();
    moved[symtab + 24 * i + 6..symtab + 24 * i + 8].copy_from_slice(&(code as u16).to_le_bytes());
    let e = parse_error(&moved);
    assert!(
        e.contains(
            "'file_sh': marked as shared memory but defined in section '.text._Z7a_stagePKf'"
        ),
        "{e}"
    );
    let mut large = good;
    large[symtab + 24 * i + 16..symtab + 24 * i + 24].copy_from_slice(&0xffffu64.to_le_bytes());
    let e = parse_error(&large);
    assert!(
        e.contains("'file_sh': 0xffff bytes of shared memory in section"),
        "{e}"
    );
}

/// A function's code is whole 128-byte units, and its symbol spans its code section.
#[test]
fn code_cut_short_of_128_byte_units_or_unlike_its_function_is_damaged() {
    let good = seed("xtu_call/sm_90/a.o");
    let (i, _, size) = section_of(&good, b".text._Z7a_locali");
    let mut cut = good.clone();
    set_header_field(&mut cut, i, 32, &((size + 1) as u64).to_le_bytes());
    let e = parse_error(&cut);
    assert!(
        e.contains(&format!(
            "code of {:#x} bytes, not whole 128-byte units",
            size + 1
        )),
        "{e}"
    );
    let mut grown = good;
    set_header_field(&mut grown, i, 32, &((size + 128) as u64).to_le_bytes());
    let e = parse_error(&grown);
    assert!(
        e.contains(&format!(
            "'_Z7a_locali': function at 0x0 of {size:#x} bytes in code section \
             '.text._Z7a_locali' of {:#x} bytes",
            size + 128
        )),
        "{e}"
    );
}

/// sm_100+: the module-wide `.nv.info` equals its Mercury twin, which nvlink reads.
#[test]
fn a_module_info_unlike_its_mercury_twin_is_damaged() {
    let mut b = seed("xtu_call/sm_100/a.o");
    let (_, off, _) = section_of(&b, b".nv.info");
    b[off + 1] ^= 1; // the first record's attribute
    let e = object_error("a.o", &b);
    assert!(
        e.contains("section '.nv.info' differs from its Mercury twin '.nv.merc.nv.info'"),
        "{e}"
    );
}
