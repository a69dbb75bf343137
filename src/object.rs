//! One input object: its parsed cubin, its name as messages print it, and its SM.

use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::{Cubin, Section, Symbol, STB_LOCAL, STO_CUDA_ENTRY, STT_FUNC, STT_SECTION};
pub use crate::ids::ObjectId;

pub struct InputObject<'data> {
    /// Position in the input list; also the tie-breaking priority in resolution.
    pub id: ObjectId,
    /// The name nvlink would print ('a.o', 'lib.a:m.o').
    pub name: String,
    pub cubin: Cubin<'data>,
    /// SM number from e_flags.
    pub sm: u32,
    /// Each section's kind, by section index, decided once at parse time.
    kinds: Vec<SectionKind>,
}

/// Kinds of section a link treats differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    Null,
    StrTab,
    SymTab,
    /// `.text.<fn>`
    Text,
    /// `.nv.info.<fn>`
    InfoFn,
    /// global `.nv.info`
    Info,
    Compat,
    Callgraph,
    Prototype,
    Note,
    /// `.rel.*` / `.rela.*`
    Reloc,
    /// `.nv.constant0.<k>`: a kernel's parameter bank.
    KernelConstant,
    /// Sections concatenated by name across objects (`.debug_*`, `.nv.global*`, `.nv.constant3`, …).
    Merged,
    /// What the executable link does not understand yet.
    Other,
}

/// e_ident[EI_ABIVERSION] of the objects of CUDA 12.0 to 12.9 (ptxas 12.4 and 12.9 from PyPI,
/// sm_75 and sm_90), which nvlink 13.5 links with its own.
const CUDA_12_ABI_VERSION: u8 = 7;

impl<'data> InputObject<'data> {
    pub fn new(id: ObjectId, name: String, bytes: &'data [u8]) -> Result<InputObject<'data>> {
        let cubin = Cubin::parse(bytes).map_err(|e| e.context(format!("'{name}'")))?;
        if cubin.header.e_type != 1 {
            return Err(Error::new(format!(
                "'{name}' is not a relocatable object (ET_REL)"
            )));
        }
        if cubin.header.abi_version == CUDA_12_ABI_VERSION {
            return Err(Error::not_implemented(format!(
                "'{name}': CUDA ELF ABI version 7 (an object of CUDA 12, without \
                 .note.nv.cuinfo and .nv.compat, its e_flags in the older layout, which nvlink \
                 13.5 links): linking CUDA 12 objects; rebuild it with CUDA 13, or link it with \
                 nvlink"
            )));
        }
        if cubin.header.abi_version != crate::elf::CUDA_ABI_VERSION {
            return Err(Error::new(format!(
                "'{name}': CUDA ELF ABI version {} is not supported (expected {})",
                cubin.header.abi_version,
                crate::elf::CUDA_ABI_VERSION
            )));
        }
        if cubin
            .symtabs
            .iter()
            .all(|t| cubin.sections[t.section as usize].sh_type != crate::elf::SHT_SYMTAB)
        {
            return Err(Error::new(format!("'{name}' has no symbol table")));
        }
        let flags = crate::arch::EFlags {
            raw: cubin.header.e_flags,
        };
        // nvlink finds the toolkit note through e_flags and refuses an object whose top byte
        // does not point at it (0xff says "look it up"), as made by toolkits before 12.0.
        let cuinfo = cubin
            .sections
            .iter()
            .position(|s| {
                s.sh_type == crate::elf::SHT_NOTE
                    && crate::elf::notes::parse_notes(s.bytes()).is_ok_and(|n| {
                        n.iter()
                            .any(|n| n.n_type == crate::elf::notes::NT_CUDA_CUINFO)
                    })
            })
            .map(|i| i as u32);
        if !flags.cuinfo_index_matches(cuinfo) {
            return Err(Error::new(format!(
                "Input file '{name}' must be recompiled with toolkit >= Cuda 12.0 (its e_flags \
                 {:#010x} name section {} as its CUDA information note{})",
                flags.raw,
                flags.cuinfo_index(),
                cuinfo.map_or_else(
                    || ", and it has none".into(),
                    |i| format!(", which is section {i}")
                )
            )));
        }
        // nvlink 13.5 links objects of toolkits 12.0 (0x78) to its own (0x87).
        let toolkit = cuinfo.and_then(|i| {
            let bytes = cubin.sections[i as usize].bytes();
            let at = crate::elf::notes::cuinfo_toolkit_offset(bytes)?;
            Some(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
        });
        match toolkit {
            Some(v) if v < crate::elf::notes::CUINFO_OLDEST_TOOLKIT => {
                return Err(Error::new(format!(
                    "Input file '{name}' must be recompiled with toolkit >= Cuda 12.0 (its \
                     CUDA information note names toolkit {v:#x})"
                )))
            }
            Some(v) if v > crate::elf::notes::CUINFO_TOOLKIT_VERSION => {
                return Err(Error::new(format!(
                    "Input file '{name}' newer than toolkit ({v} vs {})",
                    crate::elf::notes::CUINFO_TOOLKIT_VERSION
                )))
            }
            _ => {}
        }
        let sm = flags.sm();
        // The low byte says which layout the flags follow (0x04 up to sm_90, 0x02 from
        // sm_100 on); another value is damage, which NVIDIA's readers refuse in the output.
        let expected_low = if sm >= 100 { 0x02 } else { 0x04 };
        if flags.low() != expected_low {
            return Err(Error::new(format!(
                "'{name}': e_flags {:#010x} are damaged (the low byte is {:#04x}, where an \
                 sm_{sm} object has {expected_low:#04x})",
                flags.raw,
                flags.low()
            )));
        }
        let kinds: Vec<SectionKind> = cubin.sections.iter().map(classify).collect();
        // Symbols name code, data, constants and shared memory; one "defined" in a table, a
        // note or the link's records is damage, and would take a place in the output that
        // section does not give it.
        let holds_no_symbols = |k: SectionKind| {
            use SectionKind::*;
            matches!(
                k,
                Null | StrTab
                    | SymTab
                    | Info
                    | InfoFn
                    | Compat
                    | Callgraph
                    | Prototype
                    | Note
                    | Reloc
            )
        };
        if let Some(table) = cubin.symtabs.first() {
            for (i, sym) in table.symbols.iter().enumerate() {
                let SymSection::Index(si) = sym.section else {
                    continue;
                };
                let kind = kinds.get(si as usize).copied().unwrap_or(SectionKind::Null);
                // A function reaching past its code would have the driver run what follows.
                let code = cubin
                    .sections
                    .get(si as usize)
                    .filter(|_| kind == SectionKind::Text);
                if let Some(code) = code {
                    if sym
                        .value
                        .checked_add(sym.size)
                        .is_none_or(|end| end > code.size)
                    {
                        return Err(Error::new(format!(
                            "'{name}': symbol {i} '{}' ({:#x} bytes at {:#x}) reaches past the \
                             end of its section '{}' ({:#x} bytes) (damaged)",
                            String::from_utf8_lossy(sym.name),
                            sym.size,
                            sym.value,
                            code.name_str(),
                            code.size
                        )));
                    }
                }
                if sym.st_type != crate::elf::STT_SECTION && si != 0 && holds_no_symbols(kind) {
                    return Err(Error::new(format!(
                        "'{name}': symbol {i} '{}' is defined in section '{}', which holds no \
                         symbols (damaged)",
                        String::from_utf8_lossy(sym.name),
                        cubin.sections[si as usize].name_str()
                    )));
                }
            }
        }
        // A symbol with a size starts inside its section (shared memory's may reach past its
        // end in nvcc's objects, but none starts there): one that does not is damage, which
        // would otherwise reach the output with the section it claims sized under it.
        for table in &cubin.symtabs {
            for (i, sym) in table.symbols.iter().enumerate() {
                let (SymSection::Index(si), true) = (sym.section, sym.size > 0) else {
                    continue;
                };
                let Some(sec) = cubin.sections.get(si as usize) else {
                    continue;
                };
                if sym.st_type != crate::elf::STT_SECTION && sym.value >= sec.size {
                    return Err(Error::new(format!(
                        "'{name}': {} symbol {i} '{}' ({:#x} bytes at {:#x}) starts past the end \
                         of its section '{}' ({:#x} bytes) (damaged)",
                        cubin.sections[table.section as usize].name_str(),
                        String::from_utf8_lossy(sym.name),
                        sym.size,
                        sym.value,
                        sec.name_str(),
                        sec.size
                    )));
                }
            }
        }
        // The link cuts and rebases frame entries: a frame table whose entries do not run to
        // its end is damage (nvlink rebuilds sm_100+'s from the Mercury half instead).
        if let Some(s) = cubin.sections.iter().find(|s| {
            matches!(s.name, b".debug_frame" | b".nv.merc.debug_frame")
                && !crate::elf::frames::frame_entries_cover(s.bytes())
        }) {
            return Err(Error::new(format!(
                "'{name}': section '{}': its entries do not run to its end (damaged)",
                s.name_str()
            )));
        }
        // The link takes a section for what its type says, nvlink and the driver for what
        // its name says: one whose two disagree is damage.
        if let Some((s, t)) = cubin.sections.iter().find_map(|s| {
            crate::elf::names::type_for_name(s.name)
                .filter(|&t| t != s.sh_type)
                .map(|t| (s, t))
        }) {
            return Err(Error::new(format!(
                "'{name}': section '{}' has type {:#x}, where the toolkit gives that name type \
                 {t:#x} (damaged)",
                s.name_str(),
                s.sh_type
            )));
        }
        // The link's records are read where they are merged, or copied (`.nv.compat`): one
        // that does not parse is damage, refused here before any of it is copied.
        for (s, k) in cubin.sections.iter().zip(&kinds) {
            if matches!(
                k,
                SectionKind::Compat | SectionKind::Info | SectionKind::InfoFn
            ) {
                check_records(&name, &cubin, s, *k)?;
            }
        }
        // A relocation type outside the vocabulary is damage or a newer toolkit's: neither
        // may be passed on to the driver unread.
        for s in &cubin.sections {
            if !crate::elf::type_is_rela(s.sh_type) && s.sh_type != crate::elf::SHT_REL {
                continue;
            }
            let relocs = cubin
                .relocations(s)
                .map_err(|e| e.context(format!("'{name}'")))?;
            if let Some((i, r)) = relocs
                .iter()
                .enumerate()
                .find(|(_, r)| crate::reloc::table::name(r.r_type).is_none())
            {
                return Err(Error::new(format!(
                    "'{name}': relocation section '{}' entry {i}: type {:#x} is not one this \
                     linker knows",
                    s.name_str(),
                    r.r_type
                )));
            }
            check_code_relocations(&name, &cubin, &kinds, s, relocs)?;
            check_frame_relocations(&name, &cubin, s, relocs)?;
        }
        check_mercury_mirror(&name, &cubin)?;
        check_mercury_twins(&name, &cubin)?;
        for s in cubin
            .sections
            .iter()
            .filter(|s| crate::elf::type_is_rela(s.sh_type) || s.sh_type == crate::elf::SHT_REL)
        {
            check_relocation_name(&name, &cubin, s)?;
        }
        check_capsule_code(&name, &cubin, &kinds)?;
        check_frame_twin(&name, &cubin)?;
        check_mirrored_records(&name, &cubin)?;
        for (s, _) in cubin
            .sections
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == SectionKind::Prototype)
        {
            check_prototypes(&name, &cubin, s)?;
        }
        Ok(InputObject {
            id,
            name,
            cubin,
            sm,
            kinds,
        })
    }

    /// Whether the object was compiled for an 'a' target (`sm_90a`, `sm_100a`): its
    /// `.nv.compat` sets EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET.
    pub fn is_accelerated(&self) -> bool {
        self.compat_sections()
            .filter_map(|s| crate::elf::nvinfo::parse_records(s.bytes()).ok())
            .flatten()
            .any(|r| {
                r.attr == crate::elf::nvinfo::EICOMPAT_ACCELERATOR_TARGET
                    // (Exactly 1, as nvlink reads it: 2 or 0xa5 links as plain code.)
                    && matches!(r.value, crate::elf::nvinfo::Value::Byte(1))
            })
    }

    /// Whether the object holds any function's code.
    pub fn has_code(&self) -> bool {
        self.kinds.contains(&SectionKind::Text)
    }

    /// This object's sections of one kind, with their indices, in table order. (The passes
    /// that look for one kind scan the kinds, a byte a section, and read only the headers
    /// they want: a hundred bytes each, two hundred thousand in a large link, read from all
    /// over memory by every pass that looked at each one's kind.)
    pub fn sections_of(
        &self,
        kind: SectionKind,
    ) -> impl Iterator<Item = (usize, &Section<'data>)> + '_ {
        self.kinds
            .iter()
            .enumerate()
            .filter(move |&(_, &k)| k == kind)
            .map(|(si, _)| (si, &self.cubin.sections[si]))
    }

    /// How many sections of this kind the object has (room for what is made of each).
    pub fn count_of(&self, kind: SectionKind) -> usize {
        self.kinds.iter().filter(|&&k| k == kind).count()
    }

    /// Whether the object has a section of this name (`.debug_info`: compiled with -G).
    pub fn has_section(&self, name: &[u8]) -> bool {
        self.cubin.sections.iter().any(|s| s.name == name)
    }

    /// Whether the object has `.nv.compat` records (objects for sm_80 and older have none).
    pub fn has_compat_info(&self) -> bool {
        self.compat_sections().next().is_some()
    }

    /// The object's `.nv.compat` sections (one in what nvcc writes).
    pub fn compat_sections(&self) -> impl Iterator<Item = &Section<'data>> {
        self.cubin
            .sections
            .iter()
            .filter(|s| s.sh_type == crate::elf::SHT_CUDA_COMPAT_INFO)
    }

    /// sm_100+: the Mercury symbol table, which mirrors `symbols()` index for index.
    pub fn merc_symbols(&self) -> Option<&[Symbol<'data>]> {
        self.cubin
            .symtabs
            .iter()
            .find(|t| {
                self.cubin.sections[t.section as usize].sh_type == crate::elf::SHT_CUDA_MERC_SYMTAB
            })
            .map(|t| t.symbols.as_slice())
    }

    pub fn symbols(&self) -> &[Symbol<'data>] {
        &self.cubin.symtabs[0].symbols
    }

    pub fn symtab_index(&self) -> u32 {
        self.cubin.symtabs[0].section
    }

    /// A copy of the object with some sections renamed (`merge::local_names`' aliases), their
    /// kinds decided again.
    pub fn with_section_names<'n>(
        &self,
        names: impl IntoIterator<Item = (usize, &'n [u8])>,
    ) -> InputObject<'n>
    where
        'data: 'n,
    {
        let mut cubin: Cubin<'n> = self.cubin.clone();
        for (si, name) in names {
            cubin.sections[si].name = name;
        }
        let kinds = cubin.sections.iter().map(classify).collect();
        InputObject {
            id: self.id,
            name: self.name.clone(),
            cubin,
            sm: self.sm,
            kinds,
        }
    }

    /// The kind of one of this object's sections (decided at parse time by [`classify`]).
    pub fn kind(&self, s: &Section<'_>) -> SectionKind {
        debug_assert!(std::ptr::eq(
            self.cubin.sections[s.index as usize].name,
            s.name
        ));
        self.kinds[s.index as usize]
    }

    /// Whether a linker made this object (a partial link's output: its tool notes name
    /// nvlink or cubin-ld).
    pub fn made_by_linker(&self) -> bool {
        // (Found among the notes by their one-byte kinds: placing asks this of every object
        // that adds `__constant__` data after another's, and a search by name read every
        // section header.)
        let Some((_, s)) = self
            .sections_of(SectionKind::Note)
            .find(|(_, s)| s.name == b".note.nv.tkinfo")
        else {
            return false;
        };
        crate::elf::notes::parse_notes(s.bytes())
            .unwrap_or_default()
            .iter()
            .filter_map(|n| crate::elf::notes::parse_tkinfo(n.desc).ok())
            .any(|t| matches!(t.strings[1], b"nvlink" | b"cubin-ld"))
    }

    /// The function symbol a `.text.<fn>` section holds (sh_info).
    pub fn text_function(&self, s: &Section<'_>) -> Option<u32> {
        // The low 24 bits; sm_75–sm_89 keep the register count in the top byte.
        let i = s.info & 0xff_ffff;
        let sym = self.symbols().get(i as usize)?;
        (sym.st_type == STT_FUNC && sym.section == SymSection::Index(s.index)).then_some(i)
    }

    /// The function whose code a per-function section (`.nv.info.<fn>`, `.rela.text.<fn>`,
    /// `.nv.constant0.<fn>`) belongs to, through its sh_info.
    pub fn info_function(&self, s: &Section<'_>) -> Option<u32> {
        self.cubin
            .sections
            .get(s.info as usize)
            .and_then(|t| self.text_function(t))
    }

    pub fn is_entry(sym: &Symbol<'_>) -> bool {
        sym.st_type == STT_FUNC && sym.other & STO_CUDA_ENTRY != 0
    }

    pub fn is_global(sym: &Symbol<'_>) -> bool {
        sym.bind != STB_LOCAL && sym.st_type != STT_SECTION
    }
}

/// What kind of section the link takes `s` for, from its type, flags and name.
pub fn classify(s: &Section<'_>) -> SectionKind {
    use crate::elf::*;
    let name = s.name;
    // sm_100+'s Mercury copy is built apart from the main half (`mercury`).
    if crate::elf::names::is_mercury_section(name) {
        return SectionKind::Other;
    }
    match s.sh_type {
        SHT_NULL => SectionKind::Null,
        SHT_STRTAB => SectionKind::StrTab,
        SHT_SYMTAB => SectionKind::SymTab,
        SHT_REL | SHT_RELA => SectionKind::Reloc,
        SHT_NOTE => SectionKind::Note,
        SHT_CUDA_INFO if name == b".nv.info" => SectionKind::Info,
        SHT_CUDA_INFO => SectionKind::InfoFn,
        SHT_CUDA_COMPAT_INFO => SectionKind::Compat,
        SHT_CUDA_CALLGRAPH => SectionKind::Callgraph,
        SHT_CUDA_PROTOTYPE => SectionKind::Prototype,
        SHT_CUDA_CONSTANT_B0 if name.starts_with(b".nv.constant0.") => SectionKind::KernelConstant,
        _ if s.flags & SHF_EXECINSTR != 0 && name.starts_with(b".text.") => SectionKind::Text,
        // A unified function's jump slot: code, with its stub function.
        SHT_CUDA_UFT if name.starts_with(b".nv.uft.rel.") => SectionKind::Text,
        SHT_PROGBITS | SHT_CUDA_GLOBAL | SHT_CUDA_GLOBAL_INIT | SHT_CUDA_UDT => SectionKind::Merged,
        t if (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&t) => SectionKind::Merged,
        _ => SectionKind::Other,
    }
}

/// Objects are indexed by their ids (dense, in input order).
impl<'data> std::ops::Index<ObjectId> for [InputObject<'data>] {
    type Output = InputObject<'data>;
    fn index(&self, id: ObjectId) -> &InputObject<'data> {
        &self[id.index()]
    }
}

/// The objects' ids, in input order.
pub fn ids(objects: &[InputObject<'_>]) -> impl DoubleEndedIterator<Item = ObjectId> + 'static {
    (0..objects.len()).map(ObjectId::from_index)
}

/// `f` of each object's id, run in parallel, the results in input order.
pub fn par_map<T: Send>(
    objects: &[InputObject<'_>],
    f: impl Fn(ObjectId) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    (0..objects.len())
        .into_par_iter()
        .map(|i| f(ObjectId::from_index(i)))
        .collect()
}

/// The objects with their ids, in input order.
pub fn enumerated<'a, 'data>(
    objects: &'a [InputObject<'data>],
) -> impl DoubleEndedIterator<Item = (ObjectId, &'a InputObject<'data>)> + 'a {
    objects
        .iter()
        .enumerate()
        .map(|(i, o)| (ObjectId::from_index(i), o))
}

/// sm_100+: `.nv.merc.symtab` mirrors `.symtab` entry for entry (the main table may have more
/// section symbols at its end), and what the link takes from one half it applies to the other.
/// An entry that says another name, binding, type or definedness than its twin is damage:
/// nvlink's finalizer refuses it ("unsupported elf type"), so the link refuses it here, naming
/// it, rather than write a Mercury half that disagrees with the code.
fn check_mercury_mirror(name: &str, cubin: &Cubin<'_>) -> Result<()> {
    let table = |ty: u32| {
        cubin
            .symtabs
            .iter()
            .find(|t| cubin.sections[t.section as usize].sh_type == ty)
    };
    let (Some(main), Some(merc)) = (
        table(crate::elf::SHT_SYMTAB),
        table(crate::elf::SHT_CUDA_MERC_SYMTAB),
    ) else {
        return Ok(());
    };
    let damaged = |what: String| {
        Err(Error::new(format!(
            "'{name}': symbol table '{}': {what}, where '{}' says otherwise (damaged)",
            cubin.sections[merc.section as usize].name_str(),
            cubin.sections[main.section as usize].name_str(),
        )))
    };
    if merc.symbols.len() > main.symbols.len() {
        return damaged(format!(
            "{} symbols, more than the {} it mirrors",
            merc.symbols.len(),
            main.symbols.len()
        ));
    }
    for (i, (s, m)) in main.symbols.iter().zip(&merc.symbols).enumerate() {
        let defined = |x: &Symbol<'_>| x.section != SymSection::Undefined;
        let disagrees = s.st_type != m.st_type
            || (s.st_type != crate::elf::STT_SECTION
                && (s.name != m.name || s.bind != m.bind || defined(s) != defined(m)));
        // A function's twin is its capsule, `.nv.capmerc` + its code section's name, at
        // the same value (its size is the capsule's own; true of every sm_100+ object nvcc
        // and nvlink write).
        let capsule_of = |x: &Symbol<'_>| match x.section {
            SymSection::Index(si) => cubin.sections.get(si as usize).map(|c| c.name),
            _ => None,
        };
        let misplaced = s.st_type == crate::elf::STT_FUNC
            && defined(s)
            && (m.value != s.value
                || capsule_of(m)
                    .zip(capsule_of(s))
                    .is_none_or(|(mc, sc)| mc.strip_prefix(&b".nv.capmerc"[..]) != Some(sc)));
        if misplaced {
            return damaged(format!(
                "function {i} '{}' at {:#x} in {}, not at {:#x} in its code's capsule",
                String::from_utf8_lossy(m.name),
                m.value,
                match capsule_of(m) {
                    Some(n) => format!("'{}'", String::from_utf8_lossy(n)),
                    None => format!("section index {:?}", m.section),
                },
                s.value
            ));
        }
        if disagrees {
            return damaged(format!(
                "symbol {i} '{}' ({}, {})",
                String::from_utf8_lossy(m.name),
                if defined(m) { "defined" } else { "undefined" },
                bind_name(m.bind)
            ));
        }
    }
    Ok(())
}

/// Frame relocations patch an FDE's fields (its CIE pointer and address range), never a
/// CIE or an entry's length, in every toolkit object: one elsewhere is damage that the link
/// would apply to the output's frame table (nvlink rebuilds sm_100+'s from the Mercury half
/// and never sees it), leaving one NVIDIA's readers refuse.
fn check_frame_relocations(
    name: &str,
    cubin: &Cubin<'_>,
    s: &Section<'_>,
    relocs: crate::elf::read::Relocs<'_>,
) -> Result<()> {
    let Some(frames) = cubin
        .section(s.info)
        .filter(|t| matches!(t.name, b".debug_frame" | b".nv.merc.debug_frame"))
    else {
        return Ok(());
    };
    let fdes: Vec<(usize, usize)> = crate::elf::frames::frame_entries(frames.bytes())
        .into_iter()
        .filter(|e| !e.2)
        .map(|e| (e.0, e.1))
        .collect();
    let inside_an_fde = |at: u64| {
        let at = usize::try_from(at).unwrap_or(usize::MAX);
        let k = fdes.partition_point(|e| e.0 <= at);
        k > 0 && at >= fdes[k - 1].0 + 4 && at.saturating_add(4) <= fdes[k - 1].1
    };
    match relocs
        .iter()
        .enumerate()
        .find(|(_, r)| !inside_an_fde(r.offset))
    {
        Some((i, r)) => Err(Error::new(format!(
            "'{name}': relocation section '{}' entry {i}: offset {:#x} is not inside a frame \
             description entry's fields (damaged)",
            s.name_str(),
            r.offset
        ))),
        None => Ok(()),
    }
}

/// A relocation section is named after the section it relocates: `.rela` (`.rel`) and its
/// name, or in the Mercury half `.nv.merc.rela` and the name after `.nv.merc` or
/// `.nv.capmerc` (63,000 sections of the corpus, testdata/programs and nvlink's outputs).
/// The link finds a relocation section's output by its target; one whose name says another
/// section is damage that would be applied where its name points.
fn check_relocation_name(name: &str, cubin: &Cubin<'_>, s: &Section<'_>) -> Result<()> {
    let Some(target) = cubin.sections.get(s.info as usize) else {
        return Ok(());
    };
    let t = target.name;
    let mercury = |prefix: &[u8]| {
        t.strip_prefix(prefix).is_some_and(|rest| {
            s.name
                .strip_prefix(&b".nv.merc.rel"[..])
                .is_some_and(|r| r.strip_prefix(b"a").unwrap_or(r) == rest)
        })
    };
    let main = s
        .name
        .strip_prefix(&b".rel"[..])
        .is_some_and(|r| r.strip_prefix(b"a").unwrap_or(r) == t);
    if main || mercury(b".nv.merc") || mercury(b".nv.capmerc") {
        return Ok(());
    }
    Err(Error::new(format!(
        "'{name}': relocation section '{}' relocates section '{}', which its name does not \
         name (damaged)",
        s.name_str(),
        target.name_str()
    )))
}

/// Where code relocations may point, as every toolkit object has them (testdata/, and
/// libcudadevrt for sm_75 to sm_121): a type the toolkit writes in code, on an instruction
/// it writes that type on (`table::unlike_code`), at the start of a 16-byte instruction,
/// and, against a function, inside that function's code section. An entry elsewhere is
/// damage that, on sm_100+, nvlink never sees (it rebuilds the code from the Mercury
/// capsule), so it is refused rather than passed on.
fn check_code_relocations(
    name: &str,
    cubin: &Cubin<'_>,
    kinds: &[SectionKind],
    s: &Section<'_>,
    relocs: crate::elf::read::Relocs<'_>,
) -> Result<()> {
    let of_code = kinds.get(s.info as usize) == Some(&SectionKind::Text);
    let table = cubin
        .symtab_for(s)
        .filter(|t| cubin.sections[t.section as usize].sh_type == crate::elf::SHT_SYMTAB);
    let (true, Some(table)) = (of_code, table) else {
        return Ok(());
    };
    let damaged = |i: usize, what: String| {
        Err(Error::new(format!(
            "'{name}': relocation section '{}' entry {i}: {what} (damaged)",
            s.name_str()
        )))
    };
    let code = cubin.sections[s.info as usize].bytes();
    for (i, r) in relocs.iter().enumerate() {
        if r.offset % 16 != 0 {
            return damaged(
                i,
                format!(
                    "offset {:#x} is not at the start of an instruction",
                    r.offset
                ),
            );
        }
        let instruction = code.get(r.offset as usize..).unwrap_or_default();
        if let Some(what) = crate::reloc::table::unlike_code(r.r_type, instruction) {
            return damaged(i, what);
        }
        let (Some(addend), Some(sym)) = (r.addend, table.symbols.get(r.sym as usize)) else {
            continue;
        };
        // (A function another object defines is called or taken at its start.)
        if sym.section == SymSection::Undefined && sym.st_type == crate::elf::STT_FUNC {
            if addend != 0 {
                return damaged(
                    i,
                    format!(
                        "'{}'{addend:+#x}, past the start of a function another object defines",
                        String::from_utf8_lossy(sym.name)
                    ),
                );
            }
            continue;
        }
        let SymSection::Index(si) = sym.section else {
            continue;
        };
        let code = cubin.sections.get(si as usize);
        if let (crate::elf::STT_FUNC, Some(code)) = (sym.st_type, code) {
            let at = (sym.value as i128) + (addend as i128);
            if !(0..=code.size as i128).contains(&at) {
                return damaged(
                    i,
                    format!(
                        "'{}'{}{:#x} lies outside its code section '{}' ({:#x} bytes)",
                        String::from_utf8_lossy(sym.name),
                        if addend < 0 { '-' } else { '+' },
                        addend.unsigned_abs(),
                        code.name_str(),
                        code.size
                    ),
                );
            }
        }
    }
    Ok(())
}

/// sm_100+: nvlink rebuilds each function's code from its Mercury capsule and never reads
/// the SASS half's code or relocations, so damage there is refused rather than passed on.
/// Each code section with a capsule ends as every toolkit function ends (its closing branch,
/// then ptxas's padding `NOP`s), has the opcodes its capsule entries stand for (where the
/// capsule's key is known), and each of its relocated instructions is one the capsule
/// describes as the type needs (`check_relocated_entries`).
fn check_capsule_code(name: &str, cubin: &Cubin<'_>, kinds: &[SectionKind]) -> Result<()> {
    // (Keyed by the code's name and function symbol: a partial link's output holds a local
    // function's copies under one name, each capsule naming its own copy's symbol.)
    let capsules: hashbrown::HashMap<(&[u8], u32), &Section<'_>> = cubin
        .sections
        .iter()
        .filter_map(|c| Some(((c.name.strip_prefix(&b".nv.capmerc"[..])?, c.info), c)))
        .collect();
    if capsules.is_empty() {
        return Ok(());
    }
    let capsule_of = |code: &Section<'_>| capsules.get(&(code.name, code.info)).copied();
    let code_with_capsule = cubin
        .sections
        .iter()
        .zip(kinds)
        .filter(|(_, k)| **k == SectionKind::Text)
        .filter_map(|(code, _)| Some((code, capsule_of(code)?)));
    for (code, capsule) in code_with_capsule {
        let unlike = crate::reloc::capsule::unlike_closing(code.bytes()).or_else(|| {
            crate::reloc::capsule::unlike_capsule(capsule.bytes(), code.bytes())
                .ok()
                .flatten()
        });
        if let Some(what) = unlike {
            return Err(Error::new(format!(
                "'{name}': code section '{}': {what} (damaged: nvlink rebuilds the code from \
                 its Mercury capsule)",
                code.name_str()
            )));
        }
    }
    for s in &cubin.sections {
        if !crate::elf::type_is_rela(s.sh_type) {
            continue;
        }
        let Some(code) = cubin.sections.get(s.info as usize) else {
            continue;
        };
        if kinds.get(s.info as usize) == Some(&SectionKind::Text) {
            if let Some(capsule) = capsule_of(code) {
                check_relocated_entries(name, cubin, s, code, capsule)?;
            }
        }
    }
    Ok(())
}

/// sm_100+ code from a ptxas before 13.4 (13.0 to 13.3: their `.nv.compat` has no
/// EICOMPAT_ATTR_FINALIZER_VERSION, which 13.4's and 13.5's ptxas write) is re-finalized by
/// nvlink 13.5 in every mode, `-r` included, and that re-selects instructions: black-box, on
/// one source compiled by each ptxas from PyPI, nvlink puts a `NOP` before every
/// `BSYNC.RECONVERGENT` of 13.0 and 13.1 code (as 13.5's ptxas does, with
/// EIATTR_NVSAL_SW_WAR), writes other code for `__cuda_sm20_div_u64` on sm_120 from 13.0 to
/// 13.3, and adds EIATTR_PREEXIT_USED records and the finalizer version to all of them; code
/// from 13.4 (finalizer version 0x400) links as it came (docs/research/capsule-numbering.md).
/// What the finalizer will re-select is not knowable from outside, so such objects are
/// refused. Neither the finalizer version, the cuinfo toolkit, the tool note, the ISA class
/// nor the opportunistic-finalization flag alone is what makes nvlink do it (each patched to
/// 13.5's value, NVSHMEM's 13.0 object is still re-finalized), so the refusal keys on what sets
/// such objects apart, and names the ptxas the tool note gives.
/// sm_100+ code from a ptxas before 13.4: a capsule, and no EICOMPAT_ATTR_FINALIZER_VERSION
/// in `.nv.compat` (`compat`). nvlink's finalizer compiles such code again in every link;
/// the ptxas the object's note names.
fn finalized_before_13_4(cubin: &Cubin<'_>, compat: &Section<'_>) -> Option<String> {
    let has_capsule = cubin
        .sections
        .iter()
        .any(|s| s.sh_type == crate::elf::SHT_CUDA_CAPMERC_TEXT);
    let versioned = crate::elf::nvinfo::parse_records(compat.bytes())
        .map(|rs| {
            rs.iter()
                .any(|r| r.attr == crate::elf::nvinfo::EICOMPAT_FINALIZER_VERSION)
        })
        .unwrap_or(true);
    (has_capsule && !versioned)
        .then(|| tool_version(cubin).unwrap_or_else(|| "an older ptxas".into()))
}

/// An input whose code nvlink's finalizer compiles again (sm_100+ code from a ptxas before
/// 13.4): cubin-ld does not link it itself; a final link goes through the toolkit's nvJitLink.
#[derive(Debug, Clone)]
pub struct Refinalized {
    pub object: String,
    /// Its `.nv.compat`.
    pub section: String,
    /// The ptxas that made it, as its note names it.
    pub ptxas: String,
}

impl Refinalized {
    /// The object in `bytes` (named `name`), if its code is such code.
    pub fn of(name: &str, bytes: &[u8]) -> Option<Refinalized> {
        let cubin = Cubin::parse(bytes).ok()?;
        let compat = cubin
            .sections
            .iter()
            .find(|s| s.sh_type == crate::elf::SHT_CUDA_COMPAT_INFO)?;
        Some(Refinalized {
            object: name.to_string(),
            section: compat.name_str().to_string(),
            ptxas: finalized_before_13_4(&cubin, compat)?,
        })
    }

    /// The refusal of a link cubin-ld cannot hand to nvJitLink (`why`).
    pub fn refusal(&self, why: &str) -> Error {
        Error::not_implemented(format!(
            "'{}': section '{}': no EICOMPAT_ATTR_FINALIZER_VERSION (sm_100+ code from {}): \
             nvlink 13.5 re-finalizes code from a ptxas before 13.4 in every mode, \
             re-selecting instructions; cubin-ld links such code through the toolkit's \
             nvJitLink only, {why}; rebuild it with CUDA 13.4 or later, or link it with nvlink",
            self.object, self.section, self.ptxas
        ))
    }
}

/// The tool and version the object's `.note.nv.tkinfo` names (`ptxas 13.0, V13.0.100`).
fn tool_version(cubin: &Cubin<'_>) -> Option<String> {
    let note = cubin.section_named(b".note.nv.tkinfo")?;
    let notes = crate::elf::notes::parse_notes(note.bytes()).ok()?;
    let info = crate::elf::notes::parse_tkinfo(notes.first()?.desc).ok()?;
    let version = String::from_utf8_lossy(info.strings[2]);
    let short = version.rsplit(", ").next().unwrap_or(&version).to_string();
    Some(format!(
        "{} {short}",
        String::from_utf8_lossy(info.strings[1])
    ))
}

/// Each relocation of `s` (relocating `code`) patches an instruction `capsule` describes as
/// its type needs: an immediate carried by the SASS, a call or constant load with its record
/// (`capsule::required_entry`). (Expanded code, whose numbering is not the SASS's, is not
/// checked.)
fn check_relocated_entries(
    name: &str,
    cubin: &Cubin<'_>,
    s: &Section<'_>,
    code: &Section<'_>,
    capsule: &Section<'_>,
) -> Result<()> {
    use crate::reloc::capsule::{described, required_entry, Described};
    let Ok(Some(entries)) = described(capsule.bytes(), code.bytes()) else {
        return Ok(());
    };
    let show = |d: Option<Described>| match d {
        None => "a NOP the finalizer added".to_string(),
        Some(Described::Carried) => "carried by the SASS alone".to_string(),
        Some(Described::Token) => "a 2-byte token".to_string(),
        Some(Described::Record(k, sub)) => format!("a record of kind {k:02x} {sub:02x}"),
    };
    let relocs = cubin
        .relocations(s)
        .map_err(|e| e.context(format!("'{name}'")))?;
    for (i, r) in relocs.iter().enumerate() {
        let Some(need) = required_entry(r.r_type) else {
            continue;
        };
        let at = (r.offset / 16) as usize;
        let has = entries.get(at).copied().flatten();
        if has == Some(need) {
            continue;
        }
        return Err(Error::new(format!(
            "'{name}': relocation section '{}' entry {i}: {} at {:#x} patches an instruction \
             its Mercury capsule '{}' describes as {}, not {} (damaged)",
            s.name_str(),
            crate::reloc::table::name(r.r_type).unwrap_or("?"),
            r.offset,
            capsule.name_str(),
            if at >= entries.len() {
                "past its last instruction".to_string()
            } else {
                show(has)
            },
            show(Some(need))
        )));
    }
    Ok(())
}

/// The type pairs of `.rela.debug_frame` and its Mercury twin's entries in every sm_100+
/// object of the corpus and testdata/programs (17,464 entries): R_CUDA_64 with
/// R_MERCURY_ABS64 or type 0x3d, R_CUDA_UNUSED_CLEAR64 with R_MERCURY_UNUSED_CLEAR64.
const FRAME_TWIN_TYPES: &[(u32, u32)] = &[
    (
        crate::reloc::table::cuda::R_64,
        crate::reloc::table::mercury::ABS64,
    ),
    (
        crate::reloc::table::cuda::R_64,
        crate::reloc::table::MERCURY_BASE + 0x3d,
    ),
    (
        crate::reloc::table::cuda::UNUSED_CLEAR64,
        crate::reloc::table::mercury::UNUSED_CLEAR64,
    ),
];

/// sm_100+: `.rela.debug_frame` and its twin `.nv.merc.rela.debug_frame` list the same
/// entries in the same order: the same symbol, paired types (`FRAME_TWIN_TYPES`), and the
/// same addend, but for code offsets (non-zero in both halves, each in its own code's
/// numbering, the main one inside the function's code). nvlink builds the frames from the
/// Mercury half; an entry of the main half that differs is damage it would not pass on.
fn check_frame_twin(name: &str, cubin: &Cubin<'_>) -> Result<()> {
    let (Some(main), Some(twin)) = (
        cubin.section_named(b".rela.debug_frame"),
        cubin.section_named(b".nv.merc.rela.debug_frame"),
    ) else {
        return Ok(());
    };
    let context = |e: Error| e.context(format!("'{name}'"));
    let ours = cubin.relocations(main).map_err(context)?;
    let theirs = cubin.relocations(twin).map_err(context)?;
    let damaged = |what: String| {
        Err(Error::new(format!(
            "'{name}': relocation section '.rela.debug_frame' {what}, where its Mercury twin \
             '.nv.merc.rela.debug_frame' says otherwise (damaged)"
        )))
    };
    if ours.len() != theirs.len() {
        return damaged(format!("has {} entries, not {}", ours.len(), theirs.len()));
    }
    let symbols = cubin.symtab_for(main).map_or(&[][..], |t| &t.symbols[..]);
    let code_size = |sym: u32| match symbols.get(sym as usize).map(|s| s.section) {
        Some(SymSection::Index(si)) => cubin.sections.get(si as usize).map(|c| c.size),
        _ => None,
    };
    for (i, (r, m)) in ours.iter().zip(theirs.iter()).enumerate() {
        let (a, b) = (r.addend.unwrap_or(0), m.addend.unwrap_or(0));
        let offset_in_code =
            a != 0 && b != 0 && code_size(r.sym).is_some_and(|n| (0..=n as i64).contains(&a));
        if r.sym != m.sym || !FRAME_TWIN_TYPES.contains(&(r.r_type, m.r_type)) {
            return damaged(format!(
                "entry {i} (type {:#x} against symbol {}) pairs with type {:#x} against symbol {}",
                r.r_type, r.sym, m.r_type, m.sym
            ));
        }
        if a != b && !offset_in_code {
            return damaged(format!("entry {i} has addend {a:#x}, not {b:#x}"));
        }
    }
    Ok(())
}

/// sm_100+: the Mercury half's sections are named and flagged as such (`.nv.merc.*`,
/// `.nv.capmerc.*`, SHF_CUDA_MERCURY: the one goes with the other), its relocation sections
/// relocate its own sections, and each `.nv.merc<X>` is the twin of the main half's `<X>`
/// (but for the constant banks, which the Mercury half names its own way: `.nv.merc.nv.
/// constant.user` for `.nv.constant3`) — as in every toolkit object and libcudadevrt. A
/// damaged name would have a section linked as one of another half or kind.
fn check_mercury_twins(name: &str, cubin: &Cubin<'_>) -> Result<()> {
    use crate::elf::names::is_mercury_section;
    let damaged = |what: String| Err(Error::new(format!("'{name}': {what} (damaged)")));
    for s in &cubin.sections {
        let flagged = s.flags & crate::elf::SHF_CUDA_MERCURY != 0;
        if flagged != is_mercury_section(s.name) {
            return damaged(format!(
                "section '{}' is {} but {} named as one",
                s.name_str(),
                if flagged {
                    "of the Mercury half"
                } else {
                    "not of the Mercury half"
                },
                if flagged { "not" } else { "is" }
            ));
        }
        let target = cubin.sections.get(s.info as usize);
        if s.name.starts_with(b".nv.merc.rel") {
            if let Some(t) = target.filter(|t| !is_mercury_section(t.name)) {
                return damaged(format!(
                    "Mercury relocation section '{}' relocates '{}', not a Mercury section",
                    s.name_str(),
                    t.name_str()
                ));
            }
        }
    }
    // (Objects for sm_90 and older have no Mercury half: no table of names to make.)
    if !cubin.sections.iter().any(|s| is_mercury_section(s.name)) {
        return Ok(());
    }
    let named: hashbrown::HashSet<&[u8]> = cubin.sections.iter().map(|s| s.name).collect();
    for s in &cubin.sections {
        let Some(twin) = s.name.strip_prefix(&b".nv.merc"[..]) else {
            continue;
        };
        let own_name =
            twin.starts_with(b".nv.constant.") || twin.starts_with(b".rela.nv.constant.");
        if !own_name && !named.contains(twin) {
            return damaged(format!(
                "Mercury section '{}' has no twin '{}' in the main half",
                s.name_str(),
                String::from_utf8_lossy(twin)
            ));
        }
    }
    Ok(())
}

fn bind_name(bind: u8) -> String {
    match bind {
        crate::elf::STB_LOCAL => "local".into(),
        crate::elf::STB_GLOBAL => "global".into(),
        crate::elf::STB_WEAK => "weak".into(),
        b => format!("binding {b}"),
    }
}

/// Records nvlink takes from a function's Mercury `.nv.info` (sm_100+), which toolkits write
/// the same in both halves (every corpus object): one that differs is damage that cubin-ld,
/// reading the main half, would pass on where nvlink does not.
const MIRRORED_RECORDS: &[u8] = &[crate::elf::nvinfo::EIATTR_KPARAM_INFO];

fn check_mirrored_records(name: &str, cubin: &Cubin<'_>) -> Result<()> {
    let mirrored = |s: &Section<'_>| -> Vec<(u8, Vec<u8>)> {
        crate::elf::nvinfo::records(s.bytes())
            .filter_map(|r| r.ok())
            .filter(|r| MIRRORED_RECORDS.contains(&r.attr))
            .map(|r| match r.value {
                crate::elf::nvinfo::Value::Bytes(p) => (r.attr, p.to_vec()),
                _ => (r.attr, Vec::new()),
            })
            .collect()
    };
    // (By name: an object holds a pair of these per function.)
    let twins: hashbrown::HashMap<&[u8], &Section<'_>> = cubin
        .sections
        .iter()
        .filter_map(|t| Some((t.name.strip_prefix(&b".nv.merc"[..])?, t)))
        .filter(|(n, _)| n.starts_with(b".nv.info."))
        .collect();
    // (The module-wide `.nv.info` equals its twin byte for byte in every sm_100+ object of
    // the corpus, testdata/programs and nvlink's outputs: 2,482 pairs.)
    if let (Some(main), Some(twin)) = (
        cubin.section_named(b".nv.info"),
        cubin.section_named(b".nv.merc.nv.info"),
    ) {
        if main.bytes() != twin.bytes() {
            return Err(Error::new(format!(
                "'{name}': section '.nv.info' differs from its Mercury twin '.nv.merc.nv.info', \
                 which nvlink reads instead (damaged)"
            )));
        }
    }
    if twins.is_empty() {
        return Ok(());
    }
    for s in cubin
        .sections
        .iter()
        .filter(|s| s.name.starts_with(b".nv.info."))
    {
        let Some(twin) = twins.get(s.name) else {
            continue;
        };
        if mirrored(s) != mirrored(twin) {
            return Err(Error::new(format!(
                "'{name}': section '{}': its parameter records (EIATTR_KPARAM_INFO) differ from \
                 those of its Mercury twin '{}' (damaged)",
                s.name_str(),
                twin.name_str()
            )));
        }
    }
    Ok(())
}

/// A `.nv.prototype` section's entries (function symbol, offset of the prototype's string in
/// the symbol names' table) name a symbol and a string that exist: the output rewrites both.
fn check_prototypes(name: &str, cubin: &Cubin<'_>, s: &Section<'_>) -> Result<()> {
    let nsyms = cubin.symtab_for(s).map_or(0, |t| t.symbols.len());
    let names: &[u8] = cubin
        .symtab_for(s)
        .and_then(|t| cubin.sections.get(t.section as usize))
        .and_then(|t| cubin.section(t.link))
        .map_or(&[], |st| st.bytes());
    let strings = names.len();
    // (A string runs to a NUL inside the table.)
    let is_string = |id: u32| names.get(id as usize..).is_some_and(|r| r.contains(&0));
    let bad = s.bytes().chunks(8).enumerate().find_map(|(i, e)| {
        let word = |k: usize| {
            e.get(k..k + 4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        };
        match (word(0), word(4)) {
            (Some(sym), Some(id)) if (sym as usize) < nsyms && is_string(id) => None,
            (Some(sym), Some(_)) if sym as usize >= nsyms => Some(format!(
                "entry {i} names symbol {sym}, which does not exist"
            )),
            (Some(_), Some(id)) => Some(format!(
                "entry {i}'s prototype string at {id:#x} does not end inside the names' \
                 table ({strings:#x} bytes)"
            )),
            _ => Some(format!("entry {i} is cut short")),
        }
    });
    match bad {
        Some(what) => Err(Error::new(format!(
            "'{name}': section '{}': {what} (damaged)",
            s.name_str()
        ))),
        None => Ok(()),
    }
}

/// A `.nv.info` section's records all parse, name symbols that exist, and (a function's own)
/// hold only what a function's may. One pass over the records; a record that does not parse
/// is the error, wherever it is, before any refusal of one that does.
fn check_records(name: &str, cubin: &Cubin<'_>, s: &Section<'_>, kind: SectionKind) -> Result<()> {
    let symbols = cubin.symtab_for(s).map_or(&[][..], |t| &t.symbols[..]);
    let mut refusal = None;
    for r in crate::elf::nvinfo::records(s.bytes()) {
        // (Matched, not `with_context`: a result the size of an `Error` made each record's
        // check twice as long.)
        let r = match r {
            Ok(r) => r,
            Err(d) => {
                return Err(Error::from(d)
                    .context(format!("'{name}': section '{}' (damaged)", s.name_str())))
            }
        };
        if refusal.is_none() && kind != SectionKind::Compat {
            refusal = check_record_contents(kind, symbols, &r).err();
        }
    }
    match refusal {
        Some(what) => Err(Error::new(format!(
            "'{name}': section '{}': {what}",
            s.name_str()
        ))),
        None => Ok(()),
    }
}

/// What is wrong with one record of a `.nv.info` section of kind `kind` whose symbol table
/// is `symbols`, if anything.
fn check_record_contents(
    kind: SectionKind,
    symbols: &[Symbol<'_>],
    r: &crate::elf::nvinfo::Record<'_>,
) -> std::result::Result<(), String> {
    let nsyms = symbols.len();
    use crate::elf::nvinfo::{self, Payload, Value};
    if !r.loads_plainly(kind == SectionKind::InfoFn) {
        return Err(why_not_loaded(kind, r));
    }
    let Value::Bytes(p) = r.value else {
        return Ok(());
    };
    let word = |k: usize| u32::from_le_bytes(p[4 * k..4 * k + 4].try_into().unwrap());
    let named = match nvinfo::payload_kind(r.attr, p.len()) {
        Payload::SymbolValue | Payload::ParamCbank => 0..1,
        Payload::Symbols => 0..p.len() / 4,
        Payload::Words => 0..0,
    };
    // (A parameter's first word is an index no toolkit sets and nvlink writes as 0;
    // nvdisasm reads it as a symbol's.)
    if r.attr == nvinfo::EIATTR_KPARAM_INFO && word(0) != 0 {
        return Err(format!(
            "record at {:#x} (EIATTR_KPARAM_INFO) has index {:#x}, where every toolkit \
             writes 0 (damaged)",
            r.offset,
            word(0)
        ));
    }
    if let Some(bad) = named.clone().map(word).find(|&i| i as usize >= nsyms) {
        return Err(format!(
            "record at {:#x} ({}) names symbol {bad}, which does not exist (damaged)",
            r.offset,
            nvinfo::attr_name(r.attr).unwrap_or("?")
        ));
    }
    check_record_function(symbols, r, named.map(word))
}

/// A function's resource record (`EIATTR_REGCOUNT`, `EIATTR_FRAME_SIZE`, the stack sizes)
/// names a function, as in all 50,000 such records of the toolkit's objects (the stack
/// sizes also a `STT_CUDA_OBJECT`); nvdisasm refuses one that names anything else.
fn check_record_function(
    symbols: &[Symbol<'_>],
    r: &crate::elf::nvinfo::Record<'_>,
    mut named: impl Iterator<Item = u32>,
) -> std::result::Result<(), String> {
    use crate::elf::{nvinfo, STT_CUDA_OBJECT, STT_FUNC};
    let may_be_object = match r.attr {
        nvinfo::EIATTR_REGCOUNT | nvinfo::EIATTR_FRAME_SIZE => false,
        nvinfo::EIATTR_MIN_STACK_SIZE | nvinfo::EIATTR_MAX_STACK_SIZE => true,
        _ => return Ok(()),
    };
    let Some(i) = named.next() else {
        return Ok(());
    };
    let st_type = symbols[i as usize].st_type;
    if st_type == STT_FUNC || (may_be_object && st_type == STT_CUDA_OBJECT) {
        return Ok(());
    }
    Err(format!(
        "record at {:#x} ({}) names symbol {i} '{}', which is not a function (damaged)",
        r.offset,
        nvinfo::attr_name(r.attr).unwrap_or("?"),
        String::from_utf8_lossy(symbols[i as usize].name)
    ))
}

/// Why a record that does not load plainly (`Record::loads_plainly`) is refused.
#[cold]
#[inline(never)]
fn why_not_loaded(kind: SectionKind, r: &crate::elf::nvinfo::Record<'_>) -> String {
    use crate::elf::nvinfo;
    let Some(attr) = nvinfo::attr_name(r.attr) else {
        return format!(
            "record at {:#x} has attribute {:#x}, which cubin-ld does not know",
            r.offset, r.attr
        );
    };
    if !nvinfo::is_linked(r.attr) {
        // (Named by cuobjdump, but no toolkit object was seen to hold one, so what nvlink
        // does with it was never probed.)
        return crate::diag::Error::not_implemented(format!(
            "linking a record of {attr} ({:#x}, at {:#x})",
            r.attr, r.offset
        ))
        .to_string();
    }
    if let Some(why) = nvinfo::not_reproduced(r.attr) {
        return format!(
            "record at {:#x} is {attr}, which cubin-ld does not link as nvlink does ({why})",
            r.offset
        );
    }
    if kind == SectionKind::InfoFn {
        if let Some(why) = nvinfo::not_in_function_info(r.attr) {
            return format!("record at {:#x} is {attr}: {why} (damaged)", r.offset);
        }
    }
    // (The shape is what is left; `Record::loads_plainly` and the checks above agree on
    // every attribute, a unit test says, so the fallback words are never read.)
    let what = r
        .misshapen()
        .unwrap_or_else(|| "not a record cubin-ld reads".into());
    format!("record at {:#x} ({attr}): {what} (damaged)", r.offset)
}
