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

mod relocs;
mod symbols;
mod twins;

use super::literal_banks::MERC_PREFIX;
use super::Builder;
use crate::diag::{Error, Result};
use crate::elf::names::is_mercury_section;
use crate::elf::*;
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
}
