//! The twin sections: the Mercury section each main-half section has when the inputs carry
//! its counterpart, and what goes into them.
//!
//! A twin is decided from its main section alone (`Twin`: what the main half made of it, and
//! whether the inputs have a Mercury counterpart), then made; deciding and making are apart so
//! that the long list of kinds reads as one `match` in header order, as nvlink writes them.
//! Placing the inputs' Mercury sections is here too, since it only fills the twins; the
//! symbols and relocations depend on where it put each input section.

use super::Mercury;
use super::{main_name, mercury_name, Placements, Twins};
use crate::diag::{Error, Result};
use crate::elf::names::is_mercury_section;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::literal_banks::MERC_PREFIX;
use crate::output::align_up;
use crate::output::reloc_section;
use crate::output::*;
use hashbrown::HashMap;

/// What the Mercury half holds for one main-half section.
enum Twin {
    /// Nothing: the inputs have no Mercury counterpart (or the main section needs none).
    None,
    /// `.symtab`'s twin is `.nv.merc.symtab`, made before the others.
    Symtab,
    /// A relocation section of this type for `target` (until `point_info_at_twins` points it
    /// at the target's twin), filled by `relocate_mercury`.
    Relocs { target: OutSec, sh_type: u32 },
    /// A parameter bank with texture/surface slots: the kernel's image-header index table,
    /// one zeroed u32 per slot (this many bytes) for the driver's relocations.
    IndexTable(usize),
    /// A section of this type and first content, described like its first input section.
    Section(u32, Content),
}

/// What the inputs' Mercury sections say about the twins.
struct MercInputs<'a, 'data> {
    /// The first input section of each Mercury name: what the output copies describe.
    first: HashMap<&'data [u8], &'a Section<'data>>,
    /// The Mercury copy of each `.nv.info.<fn>`, by the main section's name.
    function_info: HashMap<Vec<u8>, Content>,
    /// Some input has a function's Mercury literal bank.
    any_literal_twin: bool,
    /// The inputs, for a refusal to name the one a section came from.
    objects: &'a [crate::object::InputObject<'data>],
}

impl<'a, 'data> MercInputs<'a, 'data> {
    fn new(
        objects: &'a [crate::object::InputObject<'data>],
        function_info: Vec<(Vec<u8>, Content)>,
    ) -> Self {
        let mut first: HashMap<&'data [u8], &'a Section<'data>> = HashMap::new();
        for s in objects.iter().flat_map(|o| o.cubin.sections.iter()) {
            if is_mercury_section(s.name) {
                first.entry(s.name).or_insert(s);
            }
        }
        let any_literal_twin = first.keys().any(|n| n.starts_with(MERC_PREFIX));
        MercInputs {
            first,
            objects,
            function_info: function_info.into_iter().collect(),
            any_literal_twin,
        }
    }

    fn has(&self, name: &[u8]) -> bool {
        self.first.contains_key(name)
    }

    /// The first input with a section of this name.
    fn origin(&self, name: &[u8]) -> &'a str {
        self.objects
            .iter()
            .find(|o| o.cubin.sections.iter().any(|s| s.name == name))
            .map_or("?", |o| o.name.as_str())
    }
}

/// `.nv.merc.symtab`, its entries made by `mercury_symbols`.
fn symtab_section() -> OutSection {
    OutSection {
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
    }
}

/// A Mercury relocation section for `target`, against the Mercury symbol table.
fn reloc_twin(name: Vec<u8>, sh_type: u32, target: OutSec, symtab: OutSec) -> OutSection {
    let mut sec = reloc_section(name, sh_type, target, Vec::new());
    sec.group = Group::Mercury;
    sec.flags |= SHF_CUDA_MERCURY;
    sec.link = Link::Section(symtab);
    sec
}

/// A kernel's image-header index table of `n` bytes (`info`: the parameter bank's).
fn index_table(name: Vec<u8>, info: Info, n: usize) -> OutSection {
    OutSection {
        name,
        sh_type: SHT_CUDA_MERC_IMAGE_HEADER_INDICES,
        flags: SHF_ALLOC | SHF_INFO_LINK | SHF_CUDA_MERCURY,
        align: 4,
        entsize: 0,
        link: Link::None,
        info,
        content: Content::Bytes(vec![0; n]),
        group: Group::Mercury,
        section_symbol: None,
    }
}

/// The twin of `main` with this type and content. Copied sections take their inputs' flags and
/// alignment, made ones (the records with symbol indices) the main twin's.
fn twin_section(
    main: &OutSection,
    name: Vec<u8>,
    sh_type: u32,
    content: Content,
    input: Option<&Section<'_>>,
    symtab: OutSec,
) -> OutSection {
    let (flags, align, entsize) = match input {
        Some(i) if !matches!(content, Content::WithSymbols { .. }) => (i.flags, i.align, i.entsize),
        _ => (main.flags | SHF_CUDA_MERCURY, main.align, main.entsize),
    };
    let link = match main.link {
        Link::Symtab => Link::Section(symtab),
        l => l,
    };
    OutSection {
        name,
        sh_type,
        flags,
        align,
        entsize,
        link,
        info: main.info,
        content,
        group: Group::Mercury,
        section_symbol: None,
    }
}

impl Mercury<'_, '_, '_> {
    /// Makes `.nv.merc.symtab` and the twin of every main-half section that has one, in the
    /// main half's final header order (which decides the Mercury sections' order); returns
    /// each main section's twin.
    pub(super) fn make_twins(&mut self, function_info: Vec<(Vec<u8>, Content)>) -> Result<Twins> {
        let order = crate::output::order::header_order_with_empty(self.m);
        let main_count = self.m.sections.len();
        let mut twin = Twins::filled(None, main_count);
        let symtab = self.m.add_section(symtab_section());
        let inputs = MercInputs::new(self.p.objects, function_info);
        for &id in &order {
            let name = mercury_name(&self.m.sections[id].name);
            let new = match self.twin_of(id, &name, &inputs)? {
                Twin::None => continue,
                Twin::Symtab => symtab,
                Twin::Relocs { target, sh_type } => self
                    .m
                    .add_section(reloc_twin(name, sh_type, target, symtab)),
                Twin::IndexTable(n) => {
                    let info = self.m.sections[id].info;
                    self.m.add_section(index_table(name, info, n))
                }
                Twin::Section(sh_type, content) => {
                    let input = inputs.first.get(&name[..]).copied();
                    let main = &self.m.sections[id];
                    let sec = twin_section(main, name, sh_type, content, input, symtab);
                    self.m.add_section(sec)
                }
            };
            twin[id] = Some(new);
        }
        self.point_info_at_twins(main_count, &twin);
        self.copy_prototype_fields(&twin);
        Ok(twin)
    }

    /// The twin main section `id` (named `name` in the Mercury half) has. One match over the
    /// main section's kind, in order: earlier arms take precedence.
    fn twin_of(&self, id: OutSec, name: &[u8], inputs: &MercInputs<'_, '_>) -> Result<Twin> {
        let s = &self.m.sections[id];
        Ok(match (&s.content, s.group) {
            (Content::Symtab, _) => Twin::Symtab,
            (Content::WithSymbols { .. }, Group::Info) if inputs.has(name) => {
                Twin::Section(SHT_CUDA_MERC_INFO, s.content.clone())
            }
            (Content::WithSymbols { .. }, Group::Graph) if s.sh_type == SHT_CUDA_CALLGRAPH => {
                Twin::Section(SHT_CUDA_MERC_CALLGRAPH, s.content.clone())
            }
            (Content::WithSymbols { .. }, Group::Graph) if s.sh_type == SHT_CUDA_PROTOTYPE => {
                Twin::Section(SHT_CUDA_MERC_PROTOTYPE, s.content.clone())
            }
            // The unified tables: the same records (the symbol indices mean the same
            // symbols in both tables).
            (Content::WithSymbols { .. }, Group::InfoFn)
                if matches!(s.sh_type, SHT_CUDA_UFT_ENTRY | SHT_CUDA_UDT_ENTRY)
                    && inputs.has(name) =>
            {
                Twin::Section(s.sh_type, s.content.clone())
            }
            (_, Group::InfoFn) => match inputs.function_info.get(&s.name) {
                Some(c) => Twin::Section(SHT_CUDA_MERC_INFO, c.clone()),
                None => Twin::None,
            },
            (Content::Relocs { .. }, Group::Relocs) => match s.info {
                Info::Section(target) => Twin::Relocs {
                    target,
                    sh_type: if s.sh_type == SHT_CUDA_RESOLVED_RELA {
                        SHT_CUDA_MERC_RESOLVED_RELA
                    } else {
                        SHT_CUDA_MERC_RELA
                    },
                },
                _ => Twin::None,
            },
            (Content::Bytes(b), _) if self.m.slotted_param_banks.contains(&id) => {
                let base = self.p.resources.base.get(&id).copied().unwrap_or(0);
                Twin::IndexTable((b.len() as u64).saturating_sub(base) as usize)
            }
            // A kernel's literal bank, its pieces filled in by `place_merc_literal_bank`.
            (Content::Bytes(b), _)
                if self.p.literal.out_banks.contains(&id) && inputs.any_literal_twin =>
            {
                Twin::Section(
                    SHT_CUDA_MERC_CONSTANT_OPTIMIZER,
                    Content::Bytes(vec![0; b.len()]),
                )
            }
            _ if !inputs.has(name) => Twin::None,
            // -r: a literal bank as it is.
            (Content::Bytes(_), _) if name.starts_with(MERC_PREFIX) => {
                Twin::Section(SHT_CUDA_MERC_CONSTANT_OPTIMIZER, Content::Bytes(Vec::new()))
            }
            (_, Group::Text) => Twin::Section(
                SHT_CUDA_CAPMERC_TEXT,
                Content::MercCode {
                    bytes: Vec::new(),
                    text: id,
                },
            ),
            // (These two share their main twin's bytes.)
            _ if name == b".nv.merc.nv.global.init" => {
                Twin::Section(SHT_CUDA_GLOBAL_INIT, Content::Alias(id))
            }
            _ if name == b".nv.merc.nv.constant.user" => {
                Twin::Section(SHT_CUDA_MERC_CONSTANT_USER, Content::Alias(id))
            }
            (Content::Bytes(_), Group::Debug) => {
                Twin::Section(s.sh_type, Content::Bytes(Vec::new()))
            }
            // -r: the unified variables' own copy.
            (Content::Bytes(_), _) if name == b".nv.merc.nv.udt" => {
                Twin::Section(s.sh_type, Content::Bytes(Vec::new()))
            }
            // sm_110's reserved shared memory: sized by its Mercury objects, from 0.
            (Content::NoBits(_), Group::ReservedShared) => Twin::Section(
                inputs.first.get(name).map_or(s.sh_type, |i| i.sh_type),
                Content::NoBits(0),
            ),
            // (A kind of section this version does not carry over, or a damaged one: a
            // known name with another type.)
            _ => {
                return Err(Error::new(format!(
                    "'{}': section '{}' (type {:#x}): cubin-ld cannot make its Mercury copy; \
                     it is of a kind this version does not link, or damaged",
                    inputs.origin(&s.name),
                    String::from_utf8_lossy(&s.name),
                    s.sh_type
                )))
            }
        })
    }

    /// The twins' `sh_info` links point at the twins of their main sections' targets.
    fn point_info_at_twins(&mut self, main_count: usize, twin: &Twins) {
        for id in self.m.sections.ids().skip(main_count) {
            if let Info::Section(t) = self.m.sections[id].info {
                if let Some(Some(tw)) = twin.get(t) {
                    self.m.sections[id].info = Info::Section(*tw);
                }
            }
        }
    }

    /// The callgraph's and prototype table's copies hold prototype ids too.
    fn copy_prototype_fields(&mut self, twin: &Twins) {
        let copied: Vec<(OutSec, usize)> = self
            .m
            .prototype_fields
            .iter()
            .filter_map(|&(s, at)| Some((twin.get(s).copied().flatten()?, at)))
            .collect();
        self.m.prototype_fields.extend(copied);
    }

    /// The merged Mercury `.debug_frame` holds every input's CIEs: each frame entry is pointed
    /// at the CIE before it, as in the main half.
    pub(super) fn merc_debug_frame(&mut self, twin: &Twins) {
        if let Some(Some(df)) = self
            .m
            .section_named(b".debug_frame")
            .map(|d| twin.get(d).copied().flatten())
        {
            if let Content::Bytes(bytes) = &mut self.m.sections[df].content {
                crate::merge::debug_frame::point_fdes_at_preceding_cie(bytes);
            }
        }
    }

    /// Copies the Mercury code and debug sections of every live function and object; returns
    /// where each input section went, per object.
    pub(super) fn place_mercury(
        &mut self,
        twin: &Twins,
    ) -> Result<crate::ids::IdVec<ObjectId, Placements>> {
        let objects = self.p.objects;
        let mut placed = crate::ids::IdVec::filled(HashMap::new(), objects.len());
        for (oi, o) in crate::object::enumerated(objects) {
            for (si, s) in o.cubin.sections.iter().enumerate() {
                if !is_mercury_section(s.name) {
                    continue;
                }
                if s.name.starts_with(MERC_PREFIX) && !self.p.policy.relocatable() {
                    if let Some(p) = self.place_merc_literal_bank(oi, si, twin)? {
                        placed[oi].insert(si, p);
                    }
                    continue;
                }
                let main_name = main_name(s.name);
                let Some(main_out) = self.m.section_named(&main_name) else {
                    continue;
                };
                // Only what the main half kept: the main twin's input section is live.
                let main_in = self.p.input_section_by_name(oi, &main_name);
                if main_in.is_some_and(|i| !self.p.live[oi][i]) {
                    continue;
                }
                let Some(out) = twin.get(main_out).copied().flatten() else {
                    continue;
                };
                let sec = &mut self.m.sections[out];
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
                    Content::Alias(_) => match main_in.and_then(|i| self.p.placed[oi][i]) {
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
}
