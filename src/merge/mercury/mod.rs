//! sm_100+: the Mercury half of the module.
//!
//! Objects for sm_100 and later carry a second copy of the module for the driver's
//! finalizer: `.nv.capmerc.text.<fn>` code, `.nv.merc.*` metadata and relocations, and a
//! `.nv.merc.symtab` whose entries mirror `.symtab` index for index. nvlink's output keeps
//! that shape: its Mercury symbol table is `.symtab` minus the kernels' parameter-bank section
//! symbols (which come last), entry for entry, so every symbol index the main half uses means
//! the same symbol in the Mercury half. This pass therefore runs after the main half is
//! built and mirrors it:
//! - capsule code starts with the section header index of its main-half `.text` (a u32);
//! - the Mercury sections follow the main half's header order, one per main section that has
//!   a Mercury counterpart in the inputs (`.text.f` ↔ `.nv.capmerc.text.f`, `.nv.constant3`
//!   ↔ `.nv.merc.nv.constant.user`, `X` ↔ `.nv.merc.X`);
//! - `.nv.merc.nv.info`, `.nv.merc.nv.callgraph` and `.nv.merc.nv.prototype` are copies of
//!   the main ones; `.nv.merc.nv.info.<fn>` go through the main records' rules (`info`);
//! - `.nv.merc.nv.global.init` and `.nv.merc.nv.constant.user` share their main twin's bytes;
//! - the Mercury relocations are kept, dropped or applied as their main twins are. The values
//!   the link writes into SASS (constant-bank offsets, shared-memory addresses, texture
//!   slots) go into the capsule code too where it keeps a record of the instruction
//!   (`reloc::capsule`); `-preserve-relocs` records the shared-memory ones in
//!   `.nv.merc.nv.resolvedrela<text>`, as the main half does.

use super::literal_banks::MERC_PREFIX;
use super::Builder;
use crate::diag::{Error, Result};
use crate::elf::names::is_mercury_section;
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::layout::align_up;
use crate::output::*;
use hashbrown::HashMap;

/// The Mercury counterpart's name of a main-half section name.
pub fn mercury_name(main: &[u8]) -> Vec<u8> {
    const BANK: &[u8] = b".nv.constant0.";
    const INDICES: &[u8] = b".nv.constant.entry_image_header_indices.";
    if main.starts_with(b".text.") || main.starts_with(b".nv.uft.rel.") {
        [b".nv.capmerc", main].concat()
    } else if let Some(k) = main.strip_prefix(BANK) {
        // A parameter bank's texture/surface slots: the kernel's image-header index table.
        [b".nv.merc", INDICES, k].concat()
    } else if let Some(k) = main.strip_prefix(b".rela.nv.constant0.") {
        [b".nv.merc.rela", INDICES, k].concat()
    } else if let Some(f) = main.strip_prefix(b".nv.constant2.") {
        // A function's (or kernel's) literal bank (`literal_banks`).
        [MERC_PREFIX, f].concat()
    } else if let Some(f) = main.strip_prefix(b".rela.nv.constant2.") {
        [b".nv.merc.rela", &MERC_PREFIX[b".nv.merc".len()..], f].concat()
    } else if main == b".nv.constant3" {
        b".nv.merc.nv.constant.user".to_vec()
    } else if main == b".rela.nv.constant3" {
        // (`__constant__` data holding addresses)
        b".nv.merc.rela.nv.constant.user".to_vec()
    } else {
        [b".nv.merc", main].concat()
    }
}

/// The main-half name of a Mercury section name (the inverse of `mercury_name`).
fn main_name(merc: &[u8]) -> Vec<u8> {
    if merc == b".nv.merc.nv.constant.user" {
        b".nv.constant3".to_vec()
    } else if merc == b".nv.merc.rela.nv.constant.user" {
        b".rela.nv.constant3".to_vec()
    } else if let Some(f) = merc.strip_prefix(MERC_PREFIX) {
        [b".nv.constant2.", f].concat()
    } else if let Some(f) = merc.strip_prefix(b".nv.merc.rela.nv.constant.optimizer.") {
        [b".rela.nv.constant2.", f].concat()
    } else {
        symbol_name(merc).to_vec()
    }
}

/// The name nvlink gives a Mercury section's symbol: the section name without its
/// `.nv.merc` / `.nv.capmerc` prefix (`.text.f`, `.debug_frame`, `.nv.constant.user`).
fn symbol_name(merc: &[u8]) -> &[u8] {
    merc.strip_prefix(b".nv.capmerc")
        .or_else(|| merc.strip_prefix(b".nv.merc"))
        .unwrap_or(merc)
}

use crate::reloc::table::{
    self,
    mercury::{
        ABS32, ABS32_HI, ABS32_LO, ABS64, PROG_REL32, UNIFIED, UNIFIED32_HI, UNIFIED32_LO,
        UNUSED_CLEAR64,
    },
};

/// Mercury-only inputs this pass understands; anything else is refused.
fn understood(name: &[u8]) -> bool {
    name == b".nv.merc.symtab"
        || name.starts_with(b".nv.capmerc.text.")
        // -r with unified functions and variables: jump slots, tables and data.
        || name.starts_with(b".nv.capmerc.nv.uft.rel.")
        || matches!(
            name,
            b".nv.merc.nv.uft.entry" | b".nv.merc.nv.udt.entry" | b".nv.merc.nv.udt"
        )
        || name.starts_with(b".nv.merc.rela")
        || name.starts_with(b".nv.merc.nv.info")
        || matches!(
            name,
            b".nv.merc.nv.callgraph"
                | b".nv.merc.nv.prototype"
                | b".nv.merc.nv.global.init"
                | b".nv.merc.nv.constant.user"
        )
        || name.starts_with(b".nv.merc.nv.shared.reserved.")
        // Functions' literal banks (`literal_banks`).
        || name.starts_with(MERC_PREFIX)
        || name.starts_with(b".nv.merc.debug_")
        || name.starts_with(b".nv.merc.nv_debug_")
}

fn not_yet(what: String) -> Error {
    Error::not_implemented(what)
}

impl Builder<'_, '_> {
    /// Writes a value the link resolves into a Mercury debug section (an ABS64 or ABS32
    /// field at `offset` of output section `tout`).
    fn write_debug_value(
        &mut self,
        input: &str,
        tout: SecId,
        offset: u64,
        r_type: u32,
        v: u64,
    ) -> Result<()> {
        let width = match r_type {
            ABS64 => 8,
            ABS32 => 4,
            t => {
                return Err(not_yet(format!(
                    "'{input}': applying Mercury relocation {}",
                    crate::reloc::table::name(t).unwrap_or("?")
                )))
            }
        };
        if let Content::Bytes(bytes) = &mut self.m.sections[tout as usize].content {
            if let Some(f) = bytes.get_mut(offset as usize..offset as usize + width) {
                f.copy_from_slice(&v.to_le_bytes()[..width]);
            }
        }
        Ok(())
    }

    /// Builds the Mercury half from the finished main half.
    pub(crate) fn build_mercury(&mut self) -> Result<()> {
        let objects = self.objects;
        for o in objects {
            for s in &o.cubin.sections {
                if is_mercury_section(s.name) && !understood(s.name) {
                    return Err(not_yet(format!(
                        "'{}': the Mercury section '{}'",
                        o.name,
                        s.name_str()
                    )));
                }
            }
        }
        // The main half's final header order decides the Mercury sections' order.
        let order = crate::layout::header_order_with_empty(&self.m);
        let main_count = self.m.sections.len();
        let mut twin: Vec<Option<SecId>> = vec![None; main_count];
        let symtab = self.m.add_section(OutSection {
            name: b".nv.merc.symtab".to_vec(),
            sh_type: SHT_CUDA_MERC_SYMTAB,
            flags: SHF_CUDA_MERCURY,
            align: 8,
            entsize: 24,
            link: Link::Strtab,
            info: Info::MercFirstGlobal,
            content: Content::MercSymtab,
            group: Group::Mercury,
            section_symbol: None,
        });
        let merc_info: HashMap<Vec<u8>, Content> = std::mem::take(&mut self.merc_function_info)
            .into_iter()
            .collect();
        // The first input section of each Mercury name: what the output copies describe.
        let mut first_input: HashMap<&[u8], &Section<'_>> = HashMap::new();
        for s in objects.iter().flat_map(|o| o.cubin.sections.iter()) {
            if is_mercury_section(s.name) {
                first_input.entry(s.name).or_insert(s);
            }
        }
        let any_literal_twin = first_input.keys().any(|n| n.starts_with(MERC_PREFIX));
        for &id in &order {
            let s = &self.m.sections[id as usize];
            let name = mercury_name(&s.name);
            let (sh_type, content) = match (&s.content, s.group) {
                (Content::Symtab, _) => {
                    twin[id as usize] = Some(symtab);
                    continue;
                }
                (Content::WithSymbols { .. }, Group::Info)
                    if first_input.contains_key(&name[..]) =>
                {
                    (SHT_CUDA_MERC_INFO, s.content.clone())
                }
                (Content::WithSymbols { .. }, Group::Graph) if s.sh_type == SHT_CUDA_CALLGRAPH => {
                    (SHT_CUDA_MERC_CALLGRAPH, s.content.clone())
                }
                (Content::WithSymbols { .. }, Group::Graph) if s.sh_type == SHT_CUDA_PROTOTYPE => {
                    (SHT_CUDA_MERC_PROTOTYPE, s.content.clone())
                }
                // The unified tables: the same records (the symbol indices mean the same
                // symbols in both tables).
                (Content::WithSymbols { .. }, Group::InfoFn)
                    if matches!(s.sh_type, SHT_CUDA_UFT_ENTRY | SHT_CUDA_UDT_ENTRY)
                        && first_input.contains_key(&name[..]) =>
                {
                    (s.sh_type, s.content.clone())
                }
                (_, Group::InfoFn) => match merc_info.get(&s.name) {
                    Some(c) => (SHT_CUDA_MERC_INFO, c.clone()),
                    None => continue,
                },
                (Content::Relocs { .. }, Group::Relocs) => {
                    // Filled by `relocate_mercury`; its target is fixed below.
                    let target = match s.info {
                        Info::Section(t) => t,
                        _ => continue,
                    };
                    let sh_type = if s.sh_type == SHT_CUDA_RESOLVED_RELA {
                        SHT_CUDA_MERC_RESOLVED_RELA
                    } else {
                        SHT_CUDA_MERC_RELA
                    };
                    let mut sec = super::relocate::reloc_section(name, sh_type, target, Vec::new());
                    sec.group = Group::Mercury;
                    sec.flags |= SHF_CUDA_MERCURY;
                    sec.link = Link::Section(symtab);
                    twin[id as usize] = Some(self.m.add_section(sec));
                    continue;
                }
                // A parameter bank with texture/surface slots: the kernel's image-header
                // index table, one zeroed u32 per slot for the driver's relocations.
                (Content::Bytes(b), _) if self.m.slotted_param_banks.contains(&id) => {
                    let base = self.resource_base.get(&id).copied().unwrap_or(0);
                    let n = (b.len() as u64).saturating_sub(base) as usize;
                    let new = self.m.add_section(OutSection {
                        name,
                        sh_type: SHT_CUDA_MERC_IMAGE_HEADER_INDICES,
                        flags: SHF_ALLOC | SHF_INFO_LINK | SHF_CUDA_MERCURY,
                        align: 4,
                        entsize: 0,
                        link: Link::None,
                        info: s.info,
                        content: Content::Bytes(vec![0; n]),
                        group: Group::Mercury,
                        section_symbol: None,
                    });
                    twin[id as usize] = Some(new);
                    continue;
                }
                // A kernel's literal bank, its pieces filled in by `place_merc_literal_bank`.
                (Content::Bytes(b), _)
                    if self.literal.out_banks.contains(&id) && any_literal_twin =>
                {
                    (
                        SHT_CUDA_MERC_CONSTANT_OPTIMIZER,
                        Content::Bytes(vec![0; b.len()]),
                    )
                }
                _ if !first_input.contains_key(&name[..]) => continue,
                // -r: a literal bank as it is.
                (Content::Bytes(_), _) if name.starts_with(MERC_PREFIX) => {
                    (SHT_CUDA_MERC_CONSTANT_OPTIMIZER, Content::Bytes(Vec::new()))
                }
                (_, Group::Text) => (
                    SHT_CUDA_CAPMERC_TEXT,
                    Content::MercCode {
                        bytes: Vec::new(),
                        text: id,
                    },
                ),
                _ if name == b".nv.merc.nv.global.init" => {
                    (SHT_CUDA_GLOBAL_INIT, Content::Alias(id))
                }
                _ if name == b".nv.merc.nv.constant.user" => {
                    (SHT_CUDA_MERC_CONSTANT_USER, Content::Alias(id))
                }
                (Content::Bytes(_), Group::Debug) => (s.sh_type, Content::Bytes(Vec::new())),
                // -r: the unified variables' own copy.
                (Content::Bytes(_), _) if name == b".nv.merc.nv.udt" => {
                    (s.sh_type, Content::Bytes(Vec::new()))
                }
                // sm_110's reserved shared memory: sized by its Mercury objects, from 0.
                (Content::NoBits(_), Group::ReservedShared) => (
                    first_input.get(&name[..]).map_or(s.sh_type, |i| i.sh_type),
                    Content::NoBits(0),
                ),
                _ => {
                    return Err(not_yet(format!(
                        "the Mercury copy of '{}'",
                        String::from_utf8_lossy(&s.name)
                    )))
                }
            };
            // Copied sections take their inputs' flags and alignment, made ones the main twin's.
            let input = first_input.get(&name[..]);
            let (flags, align, entsize) = match input {
                Some(i) if !matches!(content, Content::WithSymbols { .. }) => {
                    (i.flags, i.align, i.entsize)
                }
                _ => (s.flags | SHF_CUDA_MERCURY, s.align, s.entsize),
            };
            let link = match s.link {
                Link::Symtab => Link::Section(symtab),
                l => l,
            };
            let new = self.m.add_section(OutSection {
                name,
                sh_type,
                flags,
                align,
                entsize,
                link,
                info: s.info,
                content,
                group: Group::Mercury,
                section_symbol: None,
            });
            twin[id as usize] = Some(new);
        }
        // Section links point at the twins.
        for id in main_count..self.m.sections.len() {
            if let Info::Section(t) = self.m.sections[id].info {
                if let Some(Some(tw)) = twin.get(t as usize) {
                    self.m.sections[id].info = Info::Section(*tw);
                }
            }
        }
        // The callgraph's and prototype table's copies hold prototype ids too.
        let copied: Vec<(SecId, usize)> = self
            .m
            .prototype_fields
            .iter()
            .filter_map(|&(s, at)| Some((twin.get(s as usize).copied().flatten()?, at)))
            .collect();
        self.m.prototype_fields.extend(copied);

        let placed = self.place_mercury(&twin)?;
        self.mercury_symbols(&twin, &placed)?;
        self.relocate_mercury(&twin, &placed)?;
        self.relocate_merc_literal_banks(&twin)?;
        self.patch_capsules(&placed)?;
        self.image_header_indices(&twin);
        // A main relocation section the link emptied is written when its twin is not.
        for (main, t) in twin.iter().enumerate() {
            let has_entries = |id: usize| {
                matches!(&self.m.sections[id].content,
                    Content::Relocs { entries, .. } if !entries.is_empty())
            };
            if let Some(t) = t {
                if has_entries(*t as usize) && !has_entries(main) {
                    self.m.empty_relocs_kept.insert(main as SecId);
                }
            }
        }
        if let Some(Some(df)) = self
            .by_name
            .get(&b".debug_frame"[..])
            .map(|&d| twin.get(d as usize).copied().flatten())
        {
            if let Content::Bytes(bytes) = &mut self.m.sections[df as usize].content {
                super::point_fdes_at_preceding_cie(bytes);
            }
        }
        Ok(())
    }

    /// Copies the Mercury code and debug sections of every live function and object; returns
    /// where each input section went, per object.
    fn place_mercury(
        &mut self,
        twin: &[Option<SecId>],
    ) -> Result<Vec<HashMap<usize, (SecId, u64)>>> {
        let objects = self.objects;
        let mut placed = vec![HashMap::new(); objects.len()];
        for (oi, o) in objects.iter().enumerate() {
            for (si, s) in o.cubin.sections.iter().enumerate() {
                if !is_mercury_section(s.name) {
                    continue;
                }
                if s.name.starts_with(MERC_PREFIX) && !self.relocatable {
                    if let Some(p) = self.place_merc_literal_bank(oi, si, twin)? {
                        placed[oi].insert(si, p);
                    }
                    continue;
                }
                let main_name = main_name(s.name);
                let Some(&main_out) = self.by_name.get(&main_name) else {
                    continue;
                };
                // Only what the main half kept: the main twin's input section is live.
                let main_in = self.input_section_by_name(oi, &main_name);
                if main_in.is_some_and(|i| !self.live[oi][i]) {
                    continue;
                }
                let Some(out) = twin.get(main_out as usize).copied().flatten() else {
                    continue;
                };
                let sec = &mut self.m.sections[out as usize];
                sec.align = sec.align.max(s.align);
                let offset = match &mut sec.content {
                    Content::Bytes(bytes) | Content::MercCode { bytes, .. } => {
                        let off = align_up(bytes.len() as u64, s.align);
                        bytes.resize(off as usize, 0);
                        bytes.extend_from_slice(s.bytes());
                        off
                    }
                    // Shares the main section's bytes: the same layout.
                    // Reserved shared memory: sized by its objects (`mercury_symbols`).
                    Content::NoBits(_) => 0,
                    Content::Alias(_) => match main_in.and_then(|i| self.placed[oi][i]) {
                        Some(p) => p.offset,
                        None => continue,
                    },
                    _ => continue,
                };
                placed[oi].insert(si, (out, offset));
            }
        }
        Ok(placed)
    }

    /// The Mercury symbol table: `.symtab`'s entries, each describing the Mercury copy of
    /// its symbol (the Mercury section, the input's Mercury value, size, type and st_other).
    fn mercury_symbols(
        &mut self,
        twin: &[Option<SecId>],
        placed: &[HashMap<usize, (SecId, u64)>],
    ) -> Result<()> {
        let objects = self.objects;
        let n = self.m.symbols.len();
        // Where each output symbol came from: the definition, else the first reference.
        let defines = |oi: usize, i: usize| match self.res.sym_global[oi][i] {
            Some(g) => self.res.globals[g as usize]
                .def
                .is_some_and(|d| d.obj as usize == oi && d.sym as usize == i),
            None => objects[oi].symbols()[i].section != SymSection::Undefined,
        };
        let mut origin: Vec<Option<(usize, usize)>> = vec![None; n];
        for (oi, map) in self.sym_map.iter().enumerate() {
            for (i, out) in map.iter().enumerate() {
                let Some(out) = *out else { continue };
                let slot = &mut origin[out as usize];
                let better = match *slot {
                    None => true,
                    Some((po, pi)) => defines(oi, i) && !defines(po, pi),
                };
                if better {
                    *slot = Some((oi, i));
                }
            }
        }
        let mut merc: Vec<Option<OutSymbol>> = vec![None; n];
        for (id, m) in merc.iter_mut().enumerate() {
            let main = &self.m.symbols[id];
            if main.st_type == STT_SECTION {
                let Some(sec) = main.section else { continue };
                let s = &self.m.sections[sec as usize];
                if crate::layout::late_param_bank(&self.m, sec) {
                    continue;
                }
                let (section, name) = match twin.get(sec as usize).copied().flatten() {
                    Some(t) => (t, symbol_name(&self.m.sections[t as usize].name).to_vec()),
                    None => (sec, s.name.clone()),
                };
                *m = Some(OutSymbol {
                    name,
                    section: Some(section),
                    ..main.clone()
                });
                continue;
            }
            let mut sym = main.clone();
            if let Some((oi, i)) = origin[id] {
                let o = &objects[oi];
                let ms = o.merc_symbols().and_then(|t| t.get(i));
                if let Some(ms) = ms.filter(|ms| {
                    // -r writes an undefined global-memory variable and an undefined local
                    // (resolved to -1) as the main half does.
                    !(self.relocatable
                        && ms.section == SymSection::Undefined
                        && (ms.other & STO_CUDA_GLOBAL != 0 || super::is_undefined_local(ms)))
                }) {
                    sym.value = ms.value;
                    sym.size = ms.size;
                    if ms.section != SymSection::Undefined {
                        sym.st_type = ms.st_type;
                        sym.other = ms.other;
                        // -r: the st_other of the first occurrence, as in the main half.
                        if let Some(g) = self.res.sym_global[oi][i] {
                            if self.relocatable
                                && (self.res.globals[g as usize].first_ref as usize) < oi
                            {
                                sym.other = main.other;
                            }
                        }
                    }
                    // -g defines the extern shared arrays, undefined in every input, in
                    // `.nv_debug.shared`: Mercury values without the reserve, Mercury types.
                    let in_shared = main
                        .section
                        .is_some_and(|s| self.m.sections[s as usize].group == Group::Shared);
                    if ms.section == SymSection::Undefined && in_shared && !self.relocatable {
                        sym.value = main.value.saturating_sub(self.shared.reserve);
                        sym.st_type = ms.st_type;
                        sym.other = ms.other | (main.other & 3);
                    }
                    if let SymSection::Index(si) = ms.section {
                        let reserved = o
                            .cubin
                            .sections
                            .get(si as usize)
                            .is_some_and(|t| t.sh_type == SHT_CUDA_RESERVED_SHARED);
                        match placed[oi].get(&(si as usize)) {
                            // Reserved shared objects are allocated like commons from 0.
                            Some(&(out, _)) if reserved => {
                                sym.section = Some(out);
                                sym.value = if self.relocatable { ms.value } else { 0 };
                                if let Content::NoBits(n) =
                                    &mut self.m.sections[out as usize].content
                                {
                                    *n = (*n).max(ms.size);
                                }
                            }
                            Some(&(out, off)) => {
                                sym.section = Some(out);
                                sym.value = ms.value.wrapping_add(off);
                            }
                            // A main-half section both halves use (`.nv.global`, shared memory).
                            // The Mercury half counts shared memory from after the reserved
                            // bytes, and keeps the main half's visibility (-preserve-relocs
                            // makes shared objects internal).
                            None => {
                                sym.value = main.value;
                                let shared = main.section.is_some_and(|s| {
                                    self.m.sections[s as usize].group == Group::Shared
                                });
                                if shared {
                                    sym.value = main.value.saturating_sub(self.shared.reserve);
                                    sym.other = ms.other | (main.other & 3);
                                }
                            }
                        }
                    }
                }
            }
            *m = Some(sym);
        }
        self.m.merc_symbols = merc;
        Ok(())
    }

    /// The driver relocations of the image-header index tables: the main half's slot
    /// relocations, counted from the first slot.
    fn image_header_indices(&mut self, twin: &[Option<SecId>]) {
        for (rel, bank) in self.resource_banks.clone() {
            let Some(rel) = rel else { continue };
            let Some(Some(merc_rel)) = twin.get(rel as usize) else {
                continue;
            };
            let base = self.resource_base.get(&bank).copied().unwrap_or(0);
            let Content::Relocs { entries, .. } = &self.m.sections[rel as usize].content else {
                continue;
            };
            let merc: Vec<OutReloc> = entries
                .iter()
                .map(|e| OutReloc {
                    offset: e.offset - base,
                    // R_CUDA_TEX/SAMP/SURF_HEADER_INDEX → R_MERCURY_*_HEADER_INDEX
                    r_type: match e.r_type {
                        table::cuda::TEX_HEADER_INDEX => table::mercury::TEX_HEADER_INDEX,
                        table::cuda::SAMP_HEADER_INDEX => table::mercury::SAMP_HEADER_INDEX,
                        _ => table::mercury::SURF_HEADER_INDEX,
                    },
                    ..*e
                })
                .collect();
            if let Content::Relocs { entries, .. } =
                &mut self.m.sections[*merc_rel as usize].content
            {
                *entries = merc;
            }
        }
    }

    /// Writes into the capsule code the values the main pass wrote into the SASS of
    /// instructions the capsule keeps a record for (see `reloc::capsule`).
    fn patch_capsules(&mut self, placed: &[HashMap<usize, (SecId, u64)>]) -> Result<()> {
        let values = std::mem::take(&mut self.capsule_values);
        for (oi, text, offset, r_type, value) in values {
            let o = &self.objects[oi];
            let text_name = o.cubin.sections[text].name;
            let Some(cap) = self.input_section_by_name(oi, &mercury_name(text_name)) else {
                continue;
            };
            let Some(&(out, base)) = placed[oi].get(&cap) else {
                continue;
            };
            let Content::MercCode { bytes, .. } = &mut self.m.sections[out as usize].content else {
                continue;
            };
            let code = bytes.get_mut(base as usize..).unwrap_or_default();
            let context = |e: Error| {
                e.context(format!(
                    "'{}': capsule Mercury code of '{}'",
                    o.name,
                    String::from_utf8_lossy(text_name)
                ))
            };
            use crate::reloc::capsule::{value_field, CapsuleError};
            let sass = o.cubin.sections[text].bytes();
            let Some(at) = value_field(code, sass, offset / 16, r_type).map_err(|e| match e {
                CapsuleError::Damaged(m) => context(Error::new(m)),
                CapsuleError::Unknown(m) => {
                    context(not_yet(format!("writing a linked value into it ({m})")))
                }
            })?
            else {
                continue;
            };
            let field = &mut code[at..at + 4];
            let old = u32::from_le_bytes([field[0], field[1], field[2], field[3]]);
            field.copy_from_slice(&old.wrapping_add(value as u32).to_le_bytes());
        }
        Ok(())
    }

    /// The Mercury relocations: kept for the driver, dropped or applied as their main twins.
    fn relocate_mercury(
        &mut self,
        twin: &[Option<SecId>],
        placed: &[HashMap<usize, (SecId, u64)>],
    ) -> Result<()> {
        let objects = self.objects;
        let mut pending: HashMap<SecId, Vec<OutReloc>> = HashMap::new();
        let mut by_target: HashMap<SecId, SecId> = HashMap::new();
        // (-preserve-relocs keeps one record section per code section name, local
        // functions' copies sharing the first's: found by the name.)
        let mut resolved_by_target: HashMap<Vec<u8>, SecId> = HashMap::new();
        for &t in twin.iter().flatten() {
            let s = &self.m.sections[t as usize];
            if let (Content::Relocs { .. }, Info::Section(target)) = (&s.content, s.info) {
                if s.sh_type == SHT_CUDA_MERC_RESOLVED_RELA {
                    let name = &self.m.sections[target as usize].name;
                    resolved_by_target.insert(super::local_names::real_name(name).to_vec(), t);
                } else {
                    by_target.insert(target, t);
                }
            }
        }
        for (oi, o) in objects.iter().enumerate() {
            let Some(msyms) = o.merc_symbols() else {
                continue;
            };
            for s in &o.cubin.sections {
                if s.sh_type != SHT_CUDA_MERC_RELA {
                    continue;
                }
                let target = s.info as usize;
                let Some(&(tout, toff)) = placed[oi].get(&target) else {
                    continue;
                };
                let tsec = &o.cubin.sections[target];
                // (Literal banks' entries: `relocate_merc_literal_banks`.)
                if tsec.name.starts_with(MERC_PREFIX) && !self.relocatable {
                    continue;
                }
                let code = tsec.sh_type == SHT_CUDA_CAPMERC_TEXT;
                // Debug information (capsule code carries no SHF_ALLOC either).
                let debug = !code && tsec.flags & SHF_ALLOC == 0;
                let relocs = o
                    .cubin
                    .relocations(s)
                    .map_err(|e| e.context(format!("'{}'", o.name)))?;
                // The discarded copies of weak data, as in the main half (whose twin section
                // holds the same bytes).
                let main_twin = self.input_section_by_name(oi, &main_name(tsec.name));
                let discarded: Vec<(u64, u64)> = match main_twin {
                    Some(mt) if !code && !debug => self.discarded_weak_data(oi, mt),
                    _ => Vec::new(),
                };
                for r in relocs {
                    if discarded.iter().any(|&(a, e)| (a..e).contains(&r.offset)) {
                        continue;
                    }
                    let Some(isym) = msyms.get(r.sym as usize) else {
                        continue;
                    };
                    // Capsule code offsets count expanded instructions, not bytes.
                    if !code && r.offset >= tsec.size {
                        return Err(Error::new(format!(
                            "'{}': relocation section '{}': offset {:#x} is past the end of '{}'",
                            o.name,
                            s.name_str(),
                            r.offset,
                            tsec.name_str()
                        )));
                    }
                    // The address range of a removed function's frame entry is cleared (frames
                    // of discarded weak copies keep theirs, as in the main half).
                    if r.r_type == UNUSED_CLEAR64 {
                        if self.removed_function(oi, r.sym, isym.st_type == STT_FUNC) {
                            let at = (r.offset + toff) as usize;
                            if let Content::Bytes(bytes) =
                                &mut self.m.sections[tout as usize].content
                            {
                                if let Some(f) = bytes.get_mut(at..at + 8) {
                                    f.fill(0);
                                }
                            }
                        }
                        continue;
                    }
                    // References from a discarded weak copy's debug entries go with it.
                    if debug
                        && self.discarded_copy(oi, r.sym, isym.section != SymSection::Undefined)
                    {
                        continue;
                    }
                    let offset = r.offset + toff;
                    let mut addend = r.addend.unwrap_or(0);
                    // Program-relative references between debug sections stay for the driver,
                    // rebased onto the merged section.
                    // The field gets the main half's value: the main twin's offset.
                    if isym.st_type == STT_SECTION && debug && r.r_type == PROG_REL32 {
                        if let SymSection::Index(ss) = isym.section {
                            if let Some(&(_, base)) = placed[oi].get(&(ss as usize)) {
                                addend = addend.wrapping_add(base as i64);
                            }
                            let main_si = match o.cubin.sections.get(ss as usize) {
                                Some(m) => self.input_section_by_name(oi, &main_name(m.name)),
                                None => None,
                            };
                            let main_twin = main_si.and_then(|i| self.placed[oi][i]);
                            // The main twin relocation's addend (a partial link's output has
                            // rebased the two halves' addends differently).
                            let main_rela = [b".rela", &main_name(tsec.name)[..]].concat();
                            let main_addend = self
                                .input_section_by_name(oi, &main_rela)
                                .and_then(|i| o.cubin.relocations(&o.cubin.sections[i]).ok())
                                .and_then(|rs| {
                                    rs.iter().find(|m| m.offset == r.offset).map(|m| m.addend)
                                })
                                .flatten()
                                .unwrap_or(r.addend.unwrap_or(0));
                            // (where the main twin's cut line table moved it)
                            let main_addend = main_si
                                .and_then(|i| self.line_table_offset(oi, i, main_addend as u64))
                                .map_or(main_addend, |v| v as i64);
                            // (-r leaves the field alone.)
                            if let (Some(p), Content::Bytes(bytes), false) = (
                                main_twin,
                                &mut self.m.sections[tout as usize].content,
                                self.relocatable,
                            ) {
                                let v = p.offset.wrapping_add(main_addend as u64) as u32;
                                if let Some(f) = bytes.get_mut(offset as usize..offset as usize + 4)
                                {
                                    f.copy_from_slice(&v.to_le_bytes());
                                }
                            }
                        }
                    } else if isym.st_type == STT_SECTION && debug {
                        // Section-relative references inside debug sections resolve here.
                        let SymSection::Index(ss) = isym.section else {
                            continue;
                        };
                        let Some(&(_, base)) = placed[oi].get(&(ss as usize)) else {
                            continue;
                        };
                        let v = base.wrapping_add(addend as u64);
                        self.write_debug_value(&o.name, tout, offset, r.r_type, v)?;
                        continue;
                    }
                    let name = isym.name;
                    // Unified placeholders resolve to nothing; -r keeps them but for calls.
                    if super::UNIFIED_PLACEHOLDERS.contains(&name)
                        && isym.bind != STB_LOCAL
                        && (!self.relocatable || (code && r.r_type == ABS64))
                    {
                        continue;
                    }
                    // Constant banks, shared memory and texture slots are applied by the link:
                    // the main half's pass wrote the values into the SASS and noted those the
                    // capsule keeps too (`patch_capsules`); the Mercury relocation goes.
                    let main_sym = o.symbols().get(r.sym as usize);
                    // (-r resolves constant-bank references too, but leaves shared memory and
                    // texture references to the final link.)
                    let shared_ref = (!self.relocatable)
                        .then(|| super::shared::classify(objects, self.res, oi, r.sym))
                        .flatten();
                    // Debug information's shared-memory addresses are applied as in the main
                    // half.
                    if let (Some(sr), true) = (shared_ref, debug) {
                        let Some(v) = self.shared_value(oi, None, r.sym, sr) else {
                            continue;
                        };
                        let v = v.wrapping_add(addend as u64);
                        self.write_debug_value(&o.name, tout, offset, r.r_type, v)?;
                        continue;
                    }
                    let applied_here = code
                        && (self.constant_bank(oi, r.sym).is_some()
                            || shared_ref.is_some()
                            || main_sym.is_some_and(super::is_undefined_local)
                            || (!self.relocatable
                                && main_sym.is_some_and(|m| {
                                    matches!(m.st_type, STT_CUDA_TEXTURE | 11 | STT_CUDA_SURFACE)
                                })));
                    if applied_here {
                        // -preserve-relocs records shared-memory references in both halves
                        // (extern ones in neither, but under -g), as the main pass does.
                        // (-g defines the extern ones: recorded too.)
                        let recorded = match shared_ref {
                            Some(super::shared::SharedRef::Object(_)) => true,
                            Some(super::shared::SharedRef::Extern) => self.debug,
                            None => false,
                        };
                        if let (true, true, Some(&rr)) = (
                            self.preserve_relocs,
                            recorded,
                            resolved_by_target.get(super::local_names::real_name(
                                &self.m.sections[tout as usize].name,
                            )),
                        ) {
                            if let Some(sym) = self.out_sym(oi, r.sym) {
                                pending.entry(rr).or_default().push(OutReloc {
                                    offset,
                                    r_type: r.r_type,
                                    sym: Some(sym),
                                    addend,
                                });
                            }
                        }
                        continue;
                    }
                    // (-r: a kernel's own extern-shared references name its instance symbol,
                    // as in the main half.)
                    let instance = if code {
                        self.input_section_by_name(oi, &main_name(tsec.name))
                            .and_then(|t| self.partial_instance(oi, t, isym))
                    } else {
                        None
                    };
                    let sym = if r.sym == 0 {
                        None
                    } else {
                        instance.or_else(|| self.out_sym(oi, r.sym))
                    };
                    if r.sym != 0 && sym.is_none() {
                        continue;
                    }
                    // (-r leaves unified references to the final link.)
                    let r_type = match r.r_type {
                        t if self.relocatable => t,
                        UNIFIED => ABS64,
                        UNIFIED32_LO => ABS32_LO,
                        UNIFIED32_HI => ABS32_HI,
                        t => t,
                    };
                    let Some(&rela) = by_target.get(&tout) else {
                        return Err(not_yet(format!(
                            "'{}': Mercury relocations for '{}' without main-half twins",
                            o.name,
                            s.name_str()
                        )));
                    };
                    pending.entry(rela).or_default().push(OutReloc {
                        offset,
                        r_type,
                        sym,
                        addend,
                    });
                }
            }
        }
        // Reverse reading order, line tables included (unlike the main half's).
        for (rela, mut entries) in pending {
            entries.reverse();
            if let Content::Relocs { entries: e, .. } = &mut self.m.sections[rela as usize].content
            {
                *e = entries;
            }
        }
        Ok(())
    }
}
