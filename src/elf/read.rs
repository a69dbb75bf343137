//! The validated, zero-copy view of one cubin. Every slice borrows the mapped input; every
//! index read from the file is checked before use, so malformed input yields an [`Error`],
//! never a panic.

use super::*;
use crate::bail;
use crate::diag::{Context, Error, Result};
use object::elf::{FileHeader64, ProgramHeader64, Rel64, Rela64, Sym64};
use object::read::elf::{
    FileHeader, ProgramHeader as _, Rel as _, Rela as _, SectionHeader as _, Sym as _,
};
use object::{LittleEndian as LE, U32};

#[derive(Debug, Clone)]
pub struct Header {
    pub e_type: u16,
    pub e_machine: u16,
    pub e_version: u32,
    pub e_entry: u64,
    pub e_flags: u32,
    pub os_abi: u8,
    pub abi_version: u8,
    pub e_phoff: u64,
    pub e_shoff: u64,
    pub e_phentsize: u16,
}

#[derive(Debug, Clone)]
pub struct Section<'data> {
    pub index: u32,
    pub name: &'data [u8],
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
    /// The section's bytes; `None` for sections that occupy no file space.
    pub data: Option<&'data [u8]>,
}

impl<'data> Section<'data> {
    pub fn name_str(&self) -> std::borrow::Cow<'data, str> {
        String::from_utf8_lossy(self.name)
    }
    pub fn bytes(&self) -> &'data [u8] {
        self.data.unwrap_or(&[])
    }
}

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymSection {
    Undefined,
    Absolute,
    Common,
    /// A section index (SHN_XINDEX already resolved).
    Index(u32),
    /// A reserved index this reader does not interpret.
    Reserved(u16),
}

#[derive(Debug, Clone)]
pub struct Symbol<'data> {
    pub name: &'data [u8],
    pub value: u64,
    pub size: u64,
    pub bind: u8,
    pub st_type: u8,
    pub other: u8,
    pub section: SymSection,
}

impl<'data> Symbol<'data> {
    pub fn name_str(&self) -> std::borrow::Cow<'data, str> {
        String::from_utf8_lossy(self.name)
    }
}

/// One symbol table: `.symtab`, or `.nv.merc.symtab` on sm_100+.
#[derive(Debug, Clone)]
pub struct SymbolTable<'data> {
    /// Index of the symbol table's own section.
    pub section: u32,
    pub symbols: Vec<Symbol<'data>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    pub offset: u64,
    pub r_type: u32,
    pub sym: u32,
    /// `None` for REL entries (the addend is implicit in the patched bits).
    pub addend: Option<i64>,
}

/// A relocation section's entries, read where they lie in the input (a link holds millions:
/// decoding them into a table would cost more memory than the entries themselves).
#[derive(Debug, Clone, Copy)]
pub enum Relocs<'data> {
    Rela(&'data [Rela64<LE>]),
    Rel(&'data [Rel64<LE>]),
}

impl<'data> Relocs<'data> {
    pub fn len(&self) -> usize {
        match self {
            Relocs::Rela(v) => v.len(),
            Relocs::Rel(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<Reloc> {
        let e = LE;
        match self {
            Relocs::Rela(v) => v.get(i).map(|r| Reloc {
                offset: r.r_offset(e),
                r_type: r.r_type(e, false).0,
                sym: r.r_sym(e, false),
                addend: Some(r.r_addend(e)),
            }),
            Relocs::Rel(v) => v.get(i).map(|r| Reloc {
                offset: r.r_offset(e),
                r_type: r.r_type(e).0,
                sym: r.r_sym(e),
                addend: None,
            }),
        }
    }

    pub fn iter(&self) -> RelocIter<'data> {
        RelocIter {
            relocs: *self,
            at: 0..self.len(),
        }
    }
}

impl<'data> IntoIterator for Relocs<'data> {
    type Item = Reloc;
    type IntoIter = RelocIter<'data>;
    fn into_iter(self) -> RelocIter<'data> {
        self.iter()
    }
}

#[derive(Debug, Clone)]
pub struct RelocIter<'data> {
    relocs: Relocs<'data>,
    at: std::ops::Range<usize>,
}

impl Iterator for RelocIter<'_> {
    type Item = Reloc;
    fn next(&mut self) -> Option<Reloc> {
        let i = self.at.next()?;
        self.relocs.get(i)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.at.size_hint()
    }
}

impl DoubleEndedIterator for RelocIter<'_> {
    fn next_back(&mut self) -> Option<Reloc> {
        let i = self.at.next_back()?;
        self.relocs.get(i)
    }
}

impl ExactSizeIterator for RelocIter<'_> {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub paddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

#[derive(Debug, Clone)]
pub struct Cubin<'data> {
    pub data: &'data [u8],
    pub header: Header,
    /// All section headers, indexed by ELF section index (index 0 is the null section).
    pub sections: Vec<Section<'data>>,
    pub symtabs: Vec<SymbolTable<'data>>,
    pub segments: Vec<Segment>,
    /// Every REL/RELA-shaped section's entries, checked once at parse time (by section
    /// index, ascending). A section that does not check keeps its error, reported to the
    /// pass that reads it, so a damaged relocation section nobody reads stops nothing.
    relocs: Vec<(u32, Result<Relocs<'data>>)>,
    /// Each section's place in `relocs` (`u32::MAX`: not a relocation section): found with
    /// one load, where a binary search per look-up was a hundredth of a large link's time
    /// (every pass that reads relocations looks each section up).
    reloc_at: Vec<u32>,
}

impl<'data> Cubin<'data> {
    /// The raw section header table, as the file holds it.
    pub fn section_header_table(&self) -> Option<&'data [u8]> {
        let entry = std::mem::size_of::<object::elf::SectionHeader64<LE>>() as u64;
        slice(
            self.data,
            self.header.e_shoff,
            entry * self.sections.len() as u64,
        )
    }
}

fn slice(data: &[u8], offset: u64, size: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let len = usize::try_from(size).ok()?;
    data.get(start..start.checked_add(len)?)
}

/// Whether `data` (a CUDA ELF file) has a section named `name`, reading only its section
/// headers; `false` for what does not parse (the loader reports it).
pub fn has_section(data: &[u8], name: &[u8]) -> bool {
    let Ok(h) = FileHeader64::<LE>::parse(data) else {
        return false;
    };
    let Ok(e) = h.endian() else {
        return false;
    };
    parse_sections(h, e, data).is_ok_and(|s| s.iter().any(|s| s.name == name))
}

impl<'data> Cubin<'data> {
    /// Parses and validates a CUDA ELF file. The error names what is wrong; callers add the
    /// file name as context.
    pub fn parse(data: &'data [u8]) -> Result<Cubin<'data>> {
        if data.len() < 4 || &data[..4] != b"\x7fELF" {
            bail!("not an ELF file");
        }
        if data.len() < 5 || data[4] != 2 {
            bail!("not a 64-bit ELF file (cubins are ELFCLASS64)");
        }
        let h = FileHeader64::<LE>::parse(data).context("bad ELF header")?;
        let e = h.endian().context("bad ELF header")?;
        let ident = h.e_ident();
        let header = Header {
            e_type: h.e_type(e).0,
            e_machine: h.e_machine(e).0,
            e_version: h.e_version(e),
            e_entry: h.e_entry(e),
            e_flags: h.e_flags(e).0,
            os_abi: ident.os_abi.0,
            abi_version: ident.abi_version,
            e_phoff: h.e_phoff(e),
            e_shoff: h.e_shoff(e),
            e_phentsize: h.e_phentsize(e),
        };
        if header.e_machine != EM_CUDA {
            bail!(
                "not a CUDA ELF file (e_machine {} instead of EM_CUDA {})",
                header.e_machine,
                EM_CUDA
            );
        }

        let sections = parse_sections(h, e, data)?;

        let mut cubin = Cubin {
            data,
            header,
            sections,
            symtabs: Vec::new(),
            segments: Vec::new(),
            relocs: Vec::new(),
            reloc_at: Vec::new(),
        };
        for idx in 0..cubin.sections.len() {
            let t = cubin.sections[idx].sh_type;
            if t == SHT_SYMTAB || t == SHT_CUDA_MERC_SYMTAB {
                let st = cubin.parse_symtab(idx as u32)?;
                cubin.symtabs.push(st);
            }
        }
        cubin.relocs = cubin
            .sections
            .iter()
            .filter(|s| s.sh_type == SHT_REL || type_is_rela(s.sh_type))
            .map(|s| (s.index, cubin.decode_relocations(s)))
            .collect();
        cubin.reloc_at = vec![u32::MAX; cubin.sections.len()];
        for (at, &(i, _)) in cubin.relocs.iter().enumerate() {
            cubin.reloc_at[i as usize] = at as u32;
        }

        let phdrs = h
            .program_headers(e, data)
            .context("bad program header table")?;
        cubin.segments = phdrs
            .iter()
            .map(|p: &ProgramHeader64<LE>| Segment {
                p_type: p.p_type(e).0,
                flags: p.p_flags(e).0,
                offset: p.p_offset(e),
                vaddr: p.p_vaddr(e),
                paddr: p.p_paddr(e),
                filesz: p.p_filesz(e),
                memsz: p.p_memsz(e),
                align: p.p_align(e),
            })
            .collect();
        Ok(cubin)
    }

    pub fn section(&self, index: u32) -> Option<&Section<'data>> {
        self.sections.get(index as usize)
    }

    /// The first section named `name`.
    pub fn section_named(&self, name: &[u8]) -> Option<&Section<'data>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The symbol table a section's sh_link names (for relocations, `.nv.info`, callgraph).
    pub fn symtab_for(&self, section: &Section<'_>) -> Option<&SymbolTable<'data>> {
        self.symtabs.iter().find(|t| t.section == section.link)
    }

    fn parse_symtab(&self, index: u32) -> Result<SymbolTable<'data>> {
        let sec = &self.sections[index as usize];
        let ctx = || format!("symbol table '{}'", sec.name_str());
        let bytes = sec.bytes();
        if sec.entsize != 0 && sec.entsize != 24 {
            return Err(Error::new(format!(
                "entry size {} instead of 24",
                sec.entsize
            )))
            .with_context(ctx);
        }
        let (syms, rest) = object::pod::slice_from_bytes::<Sym64<LE>>(bytes, bytes.len() / 24)
            .map_err(|_| Error::new("misaligned symbol data"))
            .with_context(ctx)?;
        let _ = rest;
        if bytes.len() % 24 != 0 {
            return Err(Error::new(format!(
                "size {:#x} is not a multiple of 24",
                bytes.len()
            )))
            .with_context(ctx);
        }
        let strtab = self
            .section(sec.link)
            .filter(|s| s.sh_type == SHT_STRTAB)
            .ok_or_else(|| Error::new(format!("sh_link {} is not a string table", sec.link)))
            .with_context(ctx)?
            .bytes();
        if strtab.first().is_some_and(|&b| b != 0) {
            return Err(Error::new(
                "its string table does not begin with an empty string: its offset is damaged",
            ))
            .with_context(ctx);
        }
        // Extended section indices live in a SHT_SYMTAB_SHNDX section linked to this table.
        let shndx: Option<&[U32<LE>]> = match self
            .sections
            .iter()
            .find(|s| s.sh_type == SHT_SYMTAB_SHNDX && s.link == index)
        {
            Some(x) => Some(
                object::pod::slice_from_bytes::<U32<LE>>(x.bytes(), x.bytes().len() / 4)
                    .map_err(|_| Error::new("misaligned SHT_SYMTAB_SHNDX data"))
                    .with_context(ctx)?
                    .0,
            ),
            None => None,
        };
        let e = LE;
        let mut symbols = Vec::with_capacity(syms.len());
        for (i, s) in syms.iter().enumerate() {
            let name = cstr_at(strtab, s.st_name(e))
                .ok_or_else(|| {
                    Error::new(format!(
                        "symbol {i}: name offset {:#x} is outside the string table",
                        s.st_name(e)
                    ))
                })
                .with_context(ctx)?;
            // (Only locals go without a name: sections, and ptxas's nameless temporaries.)
            if name.is_empty() && s.st_bind() != object::elf::STB_LOCAL {
                return Err(Error::new(format!(
                    "symbol {i} is global but has no name (its name offset {:#x} is damaged)",
                    s.st_name(e)
                )))
                .with_context(ctx);
            }
            let raw = s.st_shndx(e).0;
            let section = match raw {
                0 => SymSection::Undefined,
                0xfff1 => SymSection::Absolute,
                0xfff2 => SymSection::Common,
                0xffff => {
                    let x = shndx
                        .and_then(|t| t.get(i))
                        .ok_or_else(|| {
                            Error::new(format!(
                                "symbol {i} uses SHN_XINDEX but has no extended index"
                            ))
                        })
                        .with_context(ctx)?;
                    SymSection::Index(x.get(e))
                }
                r if r >= 0xff00 => SymSection::Reserved(r),
                r => SymSection::Index(r as u32),
            };
            // Processor- and OS-specific indices: no CUDA object uses one, and what it would
            // mean is not known.
            if let SymSection::Reserved(r) = section {
                return Err(Error::new(format!(
                    "symbol {i} '{}': section index {r:#x} is a reserved one no CUDA object uses",
                    String::from_utf8_lossy(name)
                )))
                .with_context(ctx);
            }
            // (Global and constant together is a toolkit's own: sm_110's reserved shared
            // memory variable. Shared memory with either is damage, which a partial link
            // placed as shared memory past its section.)
            let other = s.st_other().0;
            if other & STO_CUDA_SHARED != 0 && other & (STO_CUDA_GLOBAL | STO_CUDA_CONSTANT) != 0 {
                return Err(Error::new(format!(
                    "symbol {i} '{}': st_other {:#x} places it in shared memory and another \
                     memory space",
                    String::from_utf8_lossy(name),
                    s.st_other().0
                )))
                .with_context(ctx);
            }
            if section == SymSection::Undefined {
                // (A partial link's per-kernel `externsharedinstance` holds something else.)
                let extern_shared = s.st_other().0 & STO_CUDA_SHARED != 0
                    && s.st_bind() != object::elf::STB_LOCAL
                    && name != names::EXTERN_SHARED_INSTANCE;
                check_undefined(i, name, s.st_value(e), s.st_size(e), extern_shared)
                    .with_context(ctx)?;
            }
            if let SymSection::Index(si) = section {
                if si as usize >= self.sections.len() {
                    return Err(Error::new(format!(
                        "symbol {i} '{}': section index {si} does not exist",
                        String::from_utf8_lossy(name)
                    )))
                    .with_context(ctx);
                }
                check_shared_home(
                    i,
                    name,
                    (s.st_other().0, s.st_type().0, s.st_size(e)),
                    &self.sections[si as usize],
                    self.header.e_type == 1,
                )
                .with_context(ctx)?;
                // A symbol starts within its section's bytes (an end marker at its end); a
                // value past them is damaged, and would move whatever refers to it. (Not its
                // size: reserved shared memory's symbols reach past their section.)
                let target = &self.sections[si as usize];
                if s.st_size(e) > MAX_SYMBOL_SIZE {
                    return Err(Error::new(format!(
                        "symbol {i} '{}': size {:#x} is larger than any GPU memory",
                        String::from_utf8_lossy(name),
                        s.st_size(e)
                    )))
                    .with_context(ctx);
                }
                // (A whole program ptxas compiled (-dlto's output) gives the Mercury symbols
                // of its internal functions their offsets in the expanded code, past the
                // end of the capsule that holds them compressed.)
                let whole_program_capsule =
                    self.header.e_type == 2 && target.name_str().starts_with(".nv.capmerc");
                let past_end = if type_has_no_file_data(target.sh_type) || whole_program_capsule {
                    // (Shared memory: an ET_EXEC's `-g` symbols may lie past the section.)
                    s.st_value(e) > MAX_SYMBOL_SIZE
                } else {
                    s.st_value(e) > target.size
                };
                if si != 0 && past_end {
                    return Err(Error::new(format!(
                        "symbol {i} '{}': value {:#x} lies past the end of section '{}' ({:#x} \
                         bytes)",
                        String::from_utf8_lossy(name),
                        s.st_value(e),
                        target.name_str(),
                        target.size
                    )))
                    .with_context(ctx);
                }
                // (An executable ptxas compiled whole, -dlto's, keeps internal functions
                // inside their callers' code.)
                if self.header.e_type == 1 {
                    check_function_extent(
                        i,
                        name,
                        (s.st_type().0, s.st_value(e), s.st_size(e)),
                        &self.sections[si as usize],
                    )
                    .with_context(ctx)?;
                }
            }
            symbols.push(Symbol {
                name,
                value: s.st_value(e),
                size: s.st_size(e),
                bind: s.st_bind().0,
                st_type: s.st_type().0,
                other: s.st_other().0,
                section,
            });
        }
        Ok(SymbolTable {
            section: index,
            symbols,
        })
    }

    /// The relocation entries of a REL/RELA-shaped section, with symbol indices checked
    /// against the symbol table the section links to (decoded at parse time).
    pub fn relocations(&self, sec: &Section<'data>) -> Result<Relocs<'data>> {
        let at = self.reloc_at.get(sec.index as usize).copied();
        match at.and_then(|at| self.relocs.get(at as usize)) {
            Some((i, r)) if *i == sec.index => match r {
                Ok(v) => Ok(*v),
                Err(e) => Err(e.clone()),
            },
            _ => Err(Error::new("not a relocation section"))
                .with_context(|| format!("relocation section '{}'", sec.name_str())),
        }
    }

    fn decode_relocations(&self, sec: &Section<'data>) -> Result<Relocs<'data>> {
        let ctx = || format!("relocation section '{}'", sec.name_str());
        let bytes = sec.bytes();
        let nsyms = self.symtab_for(sec).map(|t| t.symbols.len()).unwrap_or(0);
        if sec.info as usize >= self.sections.len() {
            return Err(Error::new(format!(
                "it relocates section {}, which does not exist",
                sec.info
            )))
            .with_context(ctx);
        }
        let size = if type_is_rela(sec.sh_type) { 24 } else { 16 };
        // (Readers step by sh_entsize: nvdisasm and nvlink read another table than ours.)
        if sec.entsize != 0 && sec.entsize != size {
            return Err(Error::new(format!(
                "entry size {} instead of {size} (damaged)",
                sec.entsize
            )))
            .with_context(ctx);
        }
        let relocs = if type_is_rela(sec.sh_type) {
            if bytes.len() % 24 != 0 {
                return Err(Error::new(format!(
                    "size {:#x} is not a multiple of 24",
                    bytes.len()
                )))
                .with_context(ctx);
            }
            let (ents, _) = object::pod::slice_from_bytes::<Rela64<LE>>(bytes, bytes.len() / 24)
                .map_err(|_| Error::new("misaligned relocation data"))
                .with_context(ctx)?;
            Relocs::Rela(ents)
        } else if sec.sh_type == SHT_REL {
            if bytes.len() % 16 != 0 {
                return Err(Error::new(format!(
                    "size {:#x} is not a multiple of 16",
                    bytes.len()
                )))
                .with_context(ctx);
            }
            let (ents, _) = object::pod::slice_from_bytes::<Rel64<LE>>(bytes, bytes.len() / 16)
                .map_err(|_| Error::new("misaligned relocation data"))
                .with_context(ctx)?;
            Relocs::Rel(ents)
        } else {
            return Err(Error::new("not a relocation section")).with_context(ctx);
        };
        if let Some((i, r)) = relocs
            .iter()
            .enumerate()
            .find(|(_, r)| r.sym as usize >= nsyms.max(1))
        {
            return Err(Error::new(format!(
                "entry {i}: symbol index {} does not exist",
                r.sym
            )))
            .with_context(ctx);
        }
        Ok(relocs)
    }
}

/// The section headers, each with its name and bytes checked against the file.
fn parse_sections<'data>(
    h: &FileHeader64<LE>,
    e: LE,
    data: &'data [u8],
) -> Result<Vec<Section<'data>>> {
    let table = h.sections(e, data).context("bad section header table")?;
    // A string table begins with its empty string; one that does not was moved (a damaged
    // offset), and every name read from it would be another section's.
    let shstrndx = h.shstrndx(e, data).context("bad section header table")?;
    if shstrndx != 0 {
        let names = table
            .section(object::read::SectionIndex(shstrndx as usize))
            .ok()
            .and_then(|sh| sh.data(e, data).ok());
        if names.is_some_and(|n| n.first().is_some_and(|&b| b != 0)) {
            return Err(Error::new(format!(
                "the section-name table (section {shstrndx}) does not begin with an empty \
                 string: its offset is damaged"
            )));
        }
    }
    let mut sections = Vec::with_capacity(table.len());
    for (i, sh) in table.enumerate() {
        let index = i.0 as u32;
        let name = if i.0 == 0 {
            &[][..]
        } else {
            table.section_name(e, sh).map_err(|_| {
                Error::new(format!(
                    "section {index}: name offset {:#x} is outside .shstrtab",
                    sh.sh_name(e)
                ))
            })?
        };
        let sh_type = sh.sh_type(e).0;
        let (offset, size) = (sh.sh_offset(e), sh.sh_size(e));
        let data_slice = if i.0 == 0 || type_has_no_file_data(sh_type) {
            None
        } else {
            Some(slice(data, offset, size).ok_or_else(|| {
                Error::new(format!(
                    "section '{}': contents at {offset:#x}+{size:#x} run past the end of the file ({:#x} bytes)",
                    String::from_utf8_lossy(name),
                    data.len()
                ))
            })?)
        };
        let align = sh.sh_addralign(e);
        // (Not always a power of two: nvlink's final link of its own partial output with
        // extern shared arrays writes a `.nv.shared.<k>` aligned to 0x110.)
        if align > 1 << 20 {
            return Err(Error::new(format!(
                "section '{}': alignment {align:#x} is implausibly large",
                String::from_utf8_lossy(name)
            )));
        }
        // Code is aligned to a power of two in everything NVIDIA's tools write, and
        // cuobjdump and nvdisasm reject a cubin whose code is not: a damaged alignment would
        // reach the output (a partial link keeps it).
        let code = sh.sh_flags(e).0 & SHF_EXECINSTR != 0;
        if code && align > 1 && !align.is_power_of_two() {
            return Err(Error::new(format!(
                "section '{}': code aligned to {align}, not a power of two (damaged)",
                String::from_utf8_lossy(name)
            )));
        }
        // A function's code is executable and aligned to 128 bytes in every object and
        // cubin NVIDIA's tools write (nvdisasm expects it); a partial link would keep a
        // damaged flag or alignment, and a code section without the flag is linked as data.
        // (Nor do they set any flag but those two: 45,000 code sections of the corpus and
        // testdata/programs, every target; a partial link would copy a damaged one.)
        let flags = sh.sh_flags(e).0;
        if name.starts_with(b".text.") && code && flags != SHF_ALLOC | SHF_EXECINSTR {
            return Err(Error::new(format!(
                "section '{}': code flags {flags:#x}, where every toolkit writes ALLOC and \
                 EXECINSTR alone (0x6) (damaged)",
                String::from_utf8_lossy(name)
            )));
        }
        // (Their code is padded to whole 128 bytes, in all 45,000.)
        if name.starts_with(b".text.") && code && sh.sh_size(e) % CODE_ALIGN != 0 {
            return Err(Error::new(format!(
                "section '{}': code of {:#x} bytes, not whole 128-byte units as every toolkit \
                 pads it (damaged)",
                String::from_utf8_lossy(name),
                sh.sh_size(e)
            )));
        }
        if name.starts_with(b".text.") && (!code || align < CODE_ALIGN) {
            return Err(Error::new(format!(
                "section '{}': code {} (damaged)",
                String::from_utf8_lossy(name),
                if code {
                    format!(
                        "aligned to {align:#x}, where every toolkit aligns it to {CODE_ALIGN:#x}"
                    )
                } else {
                    "not flagged executable".to_string()
                }
            )));
        }
        // Bytes sit at a multiple of their alignment in everything NVIDIA's tools write; a
        // section that does not was moved (a damaged offset), and its code would be read
        // from the middle of an instruction.
        if data_slice.is_some_and(|d| !d.is_empty()) && align > 1 && offset % align != 0 {
            return Err(Error::new(format!(
                "section '{}': offset {offset:#x} is not a multiple of its alignment {align:#x} \
                 (damaged)",
                String::from_utf8_lossy(name)
            )));
        }
        // The tables the linker makes again are named for what they are; one of those
        // names on another section (a damaged name offset) would be taken for them.
        let named_as = match name {
            b".shstrtab" => Some(index == shstrndx && sh_type == SHT_STRTAB),
            b".strtab" => Some(sh_type == SHT_STRTAB),
            b".symtab" => Some(sh_type == SHT_SYMTAB),
            b".symtab_shndx" => Some(sh_type == SHT_SYMTAB_SHNDX),
            // Shared memory holds no bytes: one that does would be laid out as data.
            // (sm_100+ executables make it plain NOBITS.)
            b".nv_debug.shared" => Some(matches!(sh_type, SHT_CUDA_SHARED | SHT_NOBITS)),
            n if n.starts_with(b".nv.shared.") && !n.starts_with(b".nv.shared.reserved.") => {
                Some(matches!(sh_type, SHT_CUDA_SHARED | SHT_NOBITS))
            }
            // Code, constant banks and records are what their names say.
            n if n.starts_with(b".text.") => Some(sh_type == SHT_PROGBITS),
            // (Executables make constant banks plain PROGBITS.)
            n if n.starts_with(b".nv.constant") => Some(
                sh_type == SHT_PROGBITS
                    || (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&sh_type),
            ),
            b".nv.info" => Some(sh_type == SHT_CUDA_INFO),
            n if n.starts_with(b".nv.info.") => Some(sh_type == SHT_CUDA_INFO),
            b".nv.callgraph" => Some(sh_type == SHT_CUDA_CALLGRAPH),
            b".nv.prototype" => Some(sh_type == SHT_CUDA_PROTOTYPE),
            b".nv.compat" => Some(sh_type == SHT_CUDA_COMPAT_INFO),
            n if n.starts_with(b".note.") => Some(sh_type == SHT_NOTE),
            // (And a relocation section is named for one, and shared memory for its kind.)
            n if sh_type == SHT_CUDA_SHARED => {
                Some(n.starts_with(b".nv.shared.") || n == b".nv_debug.shared")
            }
            n if matches!(sh_type, SHT_REL | SHT_RELA) => {
                Some(n.starts_with(b".rel") || n.starts_with(b".nv.resolvedrela"))
            }
            _ => None,
        };
        // (Section 0's size is the section count only where e_shnum cannot hold it.)
        if i.0 == 0 && size != 0 && h.e_shnum.get(e) != 0 {
            return Err(Error::new(format!(
                "section 0 has size {size:#x}, but e_shnum holds the section count (damaged)"
            )));
        }
        // No section's bytes are the ELF header's.
        if data_slice.is_some_and(|d| !d.is_empty()) && offset < 64 {
            return Err(Error::new(format!(
                "section '{}' at offset {offset:#x} overlaps the ELF header (damaged)",
                String::from_utf8_lossy(name)
            )));
        }
        if let Some(d) = data_slice.filter(|_| sh_type == SHT_NOTE) {
            super::notes::parse_notes(d).map_err(|e| {
                e.context(format!(
                    "note section '{}' (damaged)",
                    String::from_utf8_lossy(name)
                ))
            })?;
        }
        if i.0 == 0 && sh_type != 0 {
            return Err(Error::new(format!(
                "section 0 is not the null section (type {sh_type:#x})"
            )));
        }
        // (Only extended section indices may go unnamed: the table is found by its type and
        // link, and nvlink links such an object as it is.)
        if i.0 != 0 && name.is_empty() && sh_type != SHT_SYMTAB_SHNDX {
            return Err(Error::new(format!(
                "section {index} has no name (its name offset or the section-name table's \
                 offset is damaged)"
            )));
        }
        if type_has_no_file_data(sh_type) && size > MAX_SYMBOL_SIZE {
            return Err(Error::new(format!(
                "section '{}': size {size:#x} is larger than any GPU memory",
                String::from_utf8_lossy(name)
            )));
        }
        // Shared memory is addressed with 32 bits; a larger section is damage (and several
        // of them would add up past what any reader takes).
        let shared = sh_type == SHT_CUDA_SHARED
            || (sh_type == SHT_NOBITS
                && (name.starts_with(b".nv.shared.") || name == b".nv_debug.shared"));
        if shared && size > u64::from(u32::MAX) {
            return Err(Error::new(format!(
                "shared-memory section '{}': size {size:#x} is past shared memory's 32-bit \
                 addresses (damaged)",
                String::from_utf8_lossy(name)
            )));
        }
        // Code is named for what it is: executable bytes under another name (a damaged
        // name offset) would be linked as data.
        let executable = sh.sh_flags(e).0 & SHF_EXECINSTR != 0;
        if executable && !(name.starts_with(b".text") || name.starts_with(b".nv.uft")) {
            return Err(Error::new(format!(
                "section {index} is executable but named '{}', which no code section is",
                String::from_utf8_lossy(name)
            )));
        }
        if named_as == Some(false) {
            return Err(Error::new(format!(
                "section {index} is named '{}' but has type {sh_type:#x}, which no section of \
                 that name has",
                String::from_utf8_lossy(name)
            )));
        }
        sections.push(Section {
            index,
            name,
            sh_type,
            flags: sh.sh_flags(e).0,
            addr: sh.sh_addr(e),
            offset,
            size,
            link: sh.sh_link(e),
            info: sh.sh_info(e),
            align: sh.sh_addralign(e),
            entsize: sh.sh_entsize(e),
            data: data_slice,
        });
    }
    Ok(sections)
}

/// An undefined symbol's size, and an extern `__shared__` array's value (its alignment),
/// within what any toolkit writes: damage there reached a partial link's output, whose
/// placed arrays NVIDIA's readers then refused.
fn check_undefined(
    i: usize,
    name: &[u8],
    value: u64,
    size: u64,
    extern_shared: bool,
) -> Result<()> {
    let name = String::from_utf8_lossy(name);
    if size > MAX_SYMBOL_SIZE {
        return Err(Error::new(format!(
            "symbol {i} '{name}': size {size:#x} is larger than any GPU memory"
        )));
    }
    // (Its size is the launch's: 0 in all 476 undefined shared symbols of the corpus,
    // testdata/programs and nvlink's partial links; a partial link that defines it would
    // give it the damaged size.)
    if extern_shared && size != 0 {
        return Err(Error::new(format!(
            "symbol {i} '{name}': an extern __shared__ array of size {size:#x}, where its size \
             is set at launch (0)"
        )));
    }
    if extern_shared && (value > MAX_SHARED_ALIGN || value.count_ones() > 1) {
        return Err(Error::new(format!(
            "symbol {i} '{name}': an extern __shared__ array aligned to {value:#x}, which is \
             not a power of two up to {MAX_SHARED_ALIGN:#x}"
        )));
    }
    Ok(())
}

/// A relocatable object's function defined in a code section (`.text.<name>`) is the whole
/// section: value 0, its size the section's (all 19,700 functions of the corpus' and
/// testdata/programs' objects and nvlink's partial links). A size that says otherwise is
/// damage: the code and its padding would be read past the function, or short of it.
fn check_function_extent(
    i: usize,
    name: &[u8],
    (st_type, value, size): (u8, u64, u64),
    target: &Section<'_>,
) -> Result<()> {
    if st_type != STT_FUNC || !target.name.starts_with(b".text.") {
        return Ok(());
    }
    if value == 0 && size == target.size {
        return Ok(());
    }
    Err(Error::new(format!(
        "symbol {i} '{}': function at {value:#x} of {size:#x} bytes in code section '{}' of \
         {:#x} bytes, which every toolkit function fills (damaged)",
        String::from_utf8_lossy(name),
        target.name_str(),
        target.size
    )))
}

/// A defined symbol marked as shared memory lies in a shared-memory section
/// (`.nv.shared.<kernel>`, `.nv_debug.shared`, or their Mercury twins) and, in a relocatable
/// object, is no larger than that section: as every one of the 3,361 in the corpus,
/// testdata/programs and nvlink's partial links. A partial link lays such symbols out in
/// their section; one pointing elsewhere (into code) or larger than its section is damage
/// NVIDIA's readers refuse in the output.
fn check_shared_home(
    i: usize,
    name: &[u8],
    (other, st_type, size): (u8, u8, u64),
    target: &Section<'_>,
    relocatable: bool,
) -> Result<()> {
    if other & STO_CUDA_SHARED == 0 || st_type == STT_SECTION {
        return Ok(());
    }
    let n = target
        .name
        .strip_prefix(&b".nv.merc"[..])
        .unwrap_or(target.name);
    let shared_section = n.starts_with(b".nv.shared.") || n == b".nv_debug.shared";
    let name = String::from_utf8_lossy(name);
    if !shared_section {
        return Err(Error::new(format!(
            "symbol {i} '{name}': marked as shared memory but defined in section '{}', which \
             is not a shared-memory section (damaged)",
            target.name_str()
        )));
    }
    if relocatable && size > target.size {
        return Err(Error::new(format!(
            "symbol {i} '{name}': {size:#x} bytes of shared memory in section '{}' of {:#x} \
             bytes (damaged)",
            target.name_str(),
            target.size
        )));
    }
    Ok(())
}

/// The alignment of every function's code section NVIDIA's tools write.
const CODE_ALIGN: u64 = 128;

/// No shared memory is larger, so no shared array is aligned further.
const MAX_SHARED_ALIGN: u64 = 1 << 32;

/// No object in device memory (global, constant, shared or code) is this large: a symbol
/// size past it is damage.
const MAX_SYMBOL_SIZE: u64 = 1 << 40;

/// The NUL-terminated string at `offset` in a string table.
pub fn cstr_at(table: &[u8], offset: u32) -> Option<&[u8]> {
    let rest = table.get(offset as usize..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    Some(&rest[..end])
}
