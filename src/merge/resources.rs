//! Texture, surface and sampler references: the slots the link gives them in the kernels'
//! parameter banks (with the relocations the driver fills them through), and which bank a
//! piece of code's references go to.

use super::Builder;
use crate::diag::Result;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::object::{InputObject, SectionKind};
use crate::output::*;
use crate::reloc::table;
use crate::resolve::Resolution;
use hashbrown::HashMap;

/// Texture/surface slots in the kernels' parameter banks.
#[derive(Default)]
pub(crate) struct Slots {
    /// The module has texture/surface references that get slots.
    pub wanted: bool,
    /// (relocation section, parameter bank) of every kernel, for texture/surface slots
    /// (sm_100+ makes the relocation section when it adds the slots: `None` until then).
    pub banks: Vec<(Option<OutSec>, OutSec)>,
    /// Per parameter bank: the slot offset of each texture/surface reference symbol.
    pub slots: HashMap<(OutSec, OutSym), u64>,
    /// Where each parameter bank's texture/surface slots start.
    pub base: HashMap<OutSec, u64>,
}

impl Slots {
    /// -r leaves texture/surface references to the final link: no slots, fields kept;
    /// references no code makes, as in nvlink's -r output, get no slots either.
    pub(super) fn new(
        objects: &[InputObject<'_>],
        res: &Resolution<'_>,
        opts: &super::Options,
    ) -> Self {
        let wanted = !opts.policy.relocatable()
            && res
                .globals
                .iter()
                .any(|g| g.is_resource && g.def.is_none() && is_texture_like(objects, res, g.name))
            && code_references_a_resource(objects, res);
        Slots {
            wanted,
            ..Default::default()
        }
    }
}

/// Whether an undefined global is a texture, surface or sampler reference.
fn is_texture_like(objects: &[InputObject<'_>], res: &Resolution<'_>, name: &[u8]) -> bool {
    let Some(&g) = res.by_name.get(name) else {
        return false;
    };
    objects.iter().any(|o| {
        res.sym_global[o.id].iter().enumerate().any(|(i, x)| {
            *x == Some(g)
                && matches!(
                    o.symbols()[i].st_type,
                    STT_CUDA_TEXTURE | STT_CUDA_SAMPLER | STT_CUDA_SURFACE
                )
        })
    })
}

/// Whether some code relocation refers to a texture, surface or sampler reference.
fn code_references_a_resource(objects: &[InputObject<'_>], res: &Resolution<'_>) -> bool {
    objects.iter().any(|o| {
        o.cubin.sections.iter().any(|s| {
            let code = o
                .cubin
                .sections
                .get(s.info as usize)
                .is_some_and(|t| o.kind(t) == SectionKind::Text);
            o.kind(s) == SectionKind::Reloc
                && code
                && o.cubin.relocations(s).is_ok_and(|rs| {
                    rs.iter().any(|r| {
                        res.global_of(o.id, r.sym)
                            .is_some_and(|g| res.globals[g].is_resource)
                    })
                })
        })
    })
}

impl Builder<'_, '_> {
    /// Appends one 4-byte slot per texture/surface reference of the module to every kernel's
    /// parameter bank (in the reverse of the references' symbol order) and records a driver
    /// relocation for each slot (in symbol order).
    pub(super) fn resource_slots(&mut self) -> Result<()> {
        let resources: Vec<OutSym> = self
            .m
            .symbols
            .ids()
            .filter(|&i| {
                let s = &self.m.symbols[i];
                s.section.is_none()
                    && matches!(
                        s.st_type,
                        STT_CUDA_TEXTURE | STT_CUDA_SAMPLER | STT_CUDA_SURFACE
                    )
            })
            .collect();
        for k in 0..self.p.resources.banks.len() {
            let (rel, bank) = self.p.resources.banks[k];
            let rel = match rel {
                Some(r) => r,
                None => self.slot_relocations(bank),
            };
            self.p.resources.banks[k].0 = Some(rel);
            if self.m.mercury {
                self.m.slotted_param_banks.insert(bank);
            }
            let Content::Bytes(bytes) = &mut self.m.sections[bank].content else {
                continue;
            };
            // (sm_100+ starts them 16-aligned; its Mercury half indexes them from there, see
            // `mercury::image_header_indices`.)
            let base = align_up(bytes.len() as u64, if self.m.mercury { 16 } else { 4 });
            self.p.resources.base.insert(bank, base);
            bytes.resize((base + 4 * resources.len() as u64) as usize, 0);
            let mut entries = Vec::new();
            for (k, &r) in resources.iter().enumerate() {
                let slot = base + 4 * (resources.len() - 1 - k) as u64;
                self.p.resources.slots.insert((bank, r), slot);
                let r_type = match self.m.symbols[r].st_type {
                    STT_CUDA_TEXTURE => table::cuda::TEX_HEADER_INDEX,
                    STT_CUDA_SAMPLER => table::cuda::SAMP_HEADER_INDEX,
                    _ => table::cuda::SURF_HEADER_INDEX,
                };
                entries.push(OutReloc {
                    offset: slot,
                    r_type,
                    sym: Some(r),
                    addend: 0,
                });
            }
            self.m.sections[rel].content = Content::Relocs {
                rela: self.m.mercury,
                entries,
            };
        }
        Ok(())
    }

    /// The relocation section of a parameter bank's texture/surface slots (sm_100+: RELA).
    pub(super) fn slot_relocations(&mut self, bank: OutSec) -> OutSec {
        let rela = self.m.mercury;
        let name = &self.m.sections[bank].name;
        let rel_name = [if rela { &b".rela"[..] } else { b".rel" }, &name[..]].concat();
        self.m.named_section(&rel_name.clone(), || {
            let mut s = crate::output::reloc_section(
                rel_name,
                if rela { SHT_RELA } else { SHT_REL },
                bank,
                vec![],
            );
            // (sm_75–sm_90 write the REL one without SHF_INFO_LINK, as nvlink.)
            if !rela {
                s.flags = 0;
            }
            s
        })
    }
}

impl super::Placement<'_, '_> {
    /// The slot of texture/surface reference `sym` in the parameter bank of the kernel whose
    /// code is text section `target` of object `oi`.
    pub(crate) fn resource_slot(
        &self,
        m: &Module,
        oi: ObjectId,
        target: usize,
        sym: u32,
    ) -> Option<u64> {
        // (Most links have no texture or surface references: no bank name to make.)
        if self.resources.slots.is_empty() {
            return None;
        }
        let out = self.out_sym(oi, sym)?;
        let bank = self.resource_bank(m, oi, target)?;
        self.resources.slots.get(&(bank, out)).copied()
    }

    /// The parameter bank of the kernel whose code is text section `target` of object `oi`.
    pub(crate) fn resource_bank(&self, m: &Module, oi: ObjectId, target: usize) -> Option<OutSec> {
        let o = &self.objects[oi];
        let bank_name = [
            b".nv.constant0.",
            crate::elf::names::text_tail(o.cubin.sections[target].name),
        ]
        .concat();
        m.section_named(&bank_name)
    }
}
