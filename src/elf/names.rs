//! Names for the numbers a cubin is made of. Sources: the names `cuobjdump -elf` prints for
//! our own test objects, and public tables (facts only). A `None` means the number is unknown
//! here; the dump then prints it in hex and reports it, so no unknown passes silently.

use super::*;

/// The symbol nvlink's `-r` gives each kernel's extern shared area (a partial link's output;
/// resolution, the shared layout and `-r` all read it).
pub const EXTERN_SHARED_INSTANCE: &[u8] = b"externsharedinstance";

/// The `<fn>` of `.text.<fn>`: the suffix a function's other sections carry
/// (`.nv.info.<fn>`, `.nv.constant0.<fn>`, `.nv.shared.<fn>`).
pub fn text_tail(name: &[u8]) -> &[u8] {
    name.strip_prefix(b".text.").unwrap_or(name)
}

/// Whether a section belongs to the Mercury half (sm_100+: `.nv.merc.*`, `.nv.capmerc.*`).
pub fn is_mercury_section(name: &[u8]) -> bool {
    name.starts_with(b".nv.merc.") || name.starts_with(b".nv.capmerc.")
}

/// The debug sections whose entries for a weak function keep their references when the
/// link discards that copy for an earlier object's: the references then mean the winner
/// (black-box, nvlink 13.5, sm_75–sm_120, every mode: `-G` template helpers instantiated in
/// several files, testdata debug_weak_copies). Line tables and frames drop them with the
/// copy's sequence or entry.
pub fn keeps_discarded_copy_references(name: &[u8]) -> bool {
    let name = name.strip_prefix(b".nv.merc").unwrap_or(name);
    name == b".debug_info" || name == b".debug_loc"
}

/// The type each section name the toolkit gives has, in every object of the corpus,
/// testdata/programs and scripts/programs (exact names, then `*`-ended prefixes); the
/// constant banks (`.nv.constant<N>[.<fn>]`) are `SHT_CUDA_CONSTANT_B0 + N`.
const TYPED_NAMES: &[(&[u8], u32)] = &[
    (b".nv.global", SHT_CUDA_GLOBAL),
    (b".nv.global.init", SHT_CUDA_GLOBAL_INIT),
    (b".nv.info", SHT_CUDA_INFO),
    (b".nv.info.*", SHT_CUDA_INFO),
    (b".nv.callgraph", SHT_CUDA_CALLGRAPH),
    (b".nv.prototype", SHT_CUDA_PROTOTYPE),
    (b".nv.compat", SHT_CUDA_COMPAT_INFO),
    (b".nv.capmerc.*", SHT_CUDA_CAPMERC_TEXT),
    (b".nv.shared.reserved.*", SHT_CUDA_RESERVED_SHARED),
    (b".nv.shared.*", SHT_CUDA_SHARED),
    (b".nv_debug.shared", SHT_CUDA_SHARED),
    (b".nv.uft.rel.*", SHT_CUDA_UFT),
    (b".nv.uft.entry", SHT_CUDA_UFT_ENTRY),
    (b".nv.udt", SHT_CUDA_UDT),
    (b".nv.udt.entry", SHT_CUDA_UDT_ENTRY),
];

/// The section type the toolkit gives a section named `name` (`None`: no rule).
pub fn type_for_name(name: &[u8]) -> Option<u32> {
    if let Some(bank) = name.strip_prefix(b".nv.constant") {
        let digits = bank.iter().take_while(|b| b.is_ascii_digit()).count();
        let rest = &bank[digits..];
        let n: u32 = std::str::from_utf8(&bank[..digits]).ok()?.parse().ok()?;
        return (rest.is_empty() || rest.starts_with(b"."))
            .then(|| SHT_CUDA_CONSTANT_B0 + n)
            .filter(|&t| t <= SHT_CUDA_CONSTANT_B17);
    }
    TYPED_NAMES.iter().find_map(|&(pattern, t)| {
        let matches = match pattern.strip_suffix(b"*") {
            Some(prefix) => name.starts_with(prefix),
            None => name == pattern,
        };
        matches.then_some(t)
    })
}

pub fn section_type(t: u32) -> Option<&'static str> {
    Some(match t {
        SHT_NULL => "NULL",
        SHT_PROGBITS => "PROGBITS",
        SHT_SYMTAB => "SYMTAB",
        SHT_STRTAB => "STRTAB",
        SHT_RELA => "RELA",
        5 => "HASH",
        6 => "DYNAMIC",
        SHT_NOTE => "NOTE",
        SHT_NOBITS => "NOBITS",
        SHT_REL => "REL",
        SHT_SYMTAB_SHNDX => "SYMTAB_SHNDX",
        SHT_CUDA_INFO => "CUDA_INFO",
        SHT_CUDA_CALLGRAPH => "CUDA_CALLGRAPH",
        SHT_CUDA_PROTOTYPE => "CUDA_PROTOTYPE",
        SHT_CUDA_RESOLVED_RELA => "CUDA_RESOLVED_RELA",
        0x7000_0004 => "CUDA_METADATA",
        0x7000_0006 => "CUDA_CONSTANT",
        SHT_CUDA_GLOBAL => "CUDA_GLOBAL",
        SHT_CUDA_GLOBAL_INIT => "CUDA_GLOBAL_INIT",
        0x7000_0009 => "CUDA_LOCAL",
        SHT_CUDA_SHARED => "CUDA_SHARED",
        SHT_CUDA_RELOCINFO => "CUDA_RELOCINFO",
        SHT_CUDA_UFT => "CUDA_UFT",
        0x7000_0010 => "CUDA_UFT_INDEX",
        SHT_CUDA_UFT_ENTRY => "CUDA_UFT_ENTRY",
        SHT_CUDA_UDT => "CUDA_UDT",
        SHT_CUDA_UDT_ENTRY => "CUDA_UDT_ENTRY",
        SHT_CUDA_RESERVED_SHARED => "CUDA_RESERVED_SHARED",
        // Names below are cubin-ld's own: cuobjdump prints these types as "UNKNOWN: n".
        SHT_CUDA_CAPMERC_TEXT => "CUDA_CAPMERC_TEXT",
        SHT_CUDA_MERC_IMAGE_HEADER_INDICES => "CUDA_MERC_ENTRY_IMAGE_HEADER_INDICES",
        SHT_CUDA_MERC_CONSTANT_USER => "CUDA_MERC_CONSTANT_USER",
        SHT_CUDA_MERC_CONSTANT_PIC => "CUDA_MERC_CONSTANT_PIC",
        SHT_CUDA_MERC_RELA => "CUDA_MERC_RELA",
        SHT_CUDA_MERC_CONSTANT_OPTIMIZER => "CUDA_MERC_CONSTANT_OPTIMIZER",
        SHT_CUDA_MERC_RESOLVED_RELA => "CUDA_MERC_RESOLVED_RELA",
        SHT_CUDA_MERC_INFO => "CUDA_MERC_INFO",
        SHT_CUDA_MERC_SYMTAB => "CUDA_MERC_SYMTAB",
        SHT_CUDA_COMPAT_INFO => "CUDA_COMPAT_INFO",
        SHT_CUDA_MERC_CALLGRAPH => "CUDA_MERC_CALLGRAPH",
        SHT_CUDA_MERC_PROTOTYPE => "CUDA_MERC_PROTOTYPE",
        t if (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&t) => {
            const BANKS: [&str; 18] = [
                "CUDA_CONSTANT_B0",
                "CUDA_CONSTANT_B1",
                "CUDA_CONSTANT_B2",
                "CUDA_CONSTANT_B3",
                "CUDA_CONSTANT_B4",
                "CUDA_CONSTANT_B5",
                "CUDA_CONSTANT_B6",
                "CUDA_CONSTANT_B7",
                "CUDA_CONSTANT_B8",
                "CUDA_CONSTANT_B9",
                "CUDA_CONSTANT_B10",
                "CUDA_CONSTANT_B11",
                "CUDA_CONSTANT_B12",
                "CUDA_CONSTANT_B13",
                "CUDA_CONSTANT_B14",
                "CUDA_CONSTANT_B15",
                "CUDA_CONSTANT_B16",
                "CUDA_CONSTANT_B17",
            ];
            BANKS[(t - SHT_CUDA_CONSTANT_B0) as usize]
        }
        _ => return None,
    })
}

pub fn symbol_type(t: u8) -> Option<&'static str> {
    Some(match t {
        STT_NOTYPE => "NOTYPE",
        STT_OBJECT => "OBJECT",
        STT_FUNC => "FUNC",
        STT_SECTION => "SECTION",
        4 => "FILE",
        5 => "COMMON",
        6 => "TLS",
        STT_CUDA_TEXTURE => "CUDA_TEXTURE",
        STT_CUDA_SAMPLER => "CUDA_SAMPLER",
        STT_CUDA_SURFACE => "CUDA_SURFACE",
        STT_CUDA_OBJECT => "CUDA_OBJECT",
        _ => return None,
    })
}

pub fn symbol_bind(b: u8) -> Option<&'static str> {
    Some(match b {
        STB_LOCAL => "LOCAL",
        STB_GLOBAL => "GLOBAL",
        STB_WEAK => "WEAK",
        _ => return None,
    })
}

/// st_other as words: visibility, then the CUDA bits that are set.
pub fn symbol_other(o: u8) -> String {
    let mut words = vec![match o & 3 {
        0 => "DEFAULT",
        1 => "INTERNAL",
        2 => "HIDDEN",
        _ => "PROTECTED",
    }
    .to_string()];
    for (bit, name) in [
        (STO_CUDA_MANAGED, "MANAGED"),
        (0x08, "0x08"),
        (STO_CUDA_ENTRY, "ENTRY"),
        (STO_CUDA_GLOBAL, "GLOBAL"),
        (STO_CUDA_SHARED, "SHARED"),
        (STO_CUDA_CONSTANT, "CONSTANT"),
    ] {
        if o & bit != 0 {
            words.push(name.to_string());
        }
    }
    words.join(" ")
}

pub fn section_flags(f: u64) -> String {
    let mut s = String::new();
    for (bit, c) in [
        (0x1u64, 'W'),
        (0x2, 'A'),
        (0x4, 'X'),
        (0x10, 'M'),
        (0x20, 'S'),
        (0x40, 'I'),
        (0x80, 'L'),
    ] {
        if f & bit != 0 {
            s.push(c);
        }
    }
    let rest = f & !0xf7;
    if rest != 0 {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&format!("{rest:#x}"));
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

pub fn elf_type(t: u16) -> Option<&'static str> {
    Some(match t {
        1 => "ET_REL",
        2 => "ET_EXEC",
        3 => "ET_DYN",
        _ => return None,
    })
}

pub fn segment_type(t: u32) -> Option<&'static str> {
    Some(match t {
        0 => "NULL",
        1 => "LOAD",
        4 => "NOTE",
        6 => "PHDR",
        _ => return None,
    })
}

pub fn segment_flags(f: u32) -> String {
    let mut s = String::new();
    s.push(if f & 4 != 0 { 'R' } else { '-' });
    s.push(if f & 2 != 0 { 'W' } else { '-' });
    s.push(if f & 1 != 0 { 'X' } else { '-' });
    if f & !7 != 0 {
        s.push_str(&format!(" {:#x}", f & !7));
    }
    s
}
