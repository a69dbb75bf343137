//! The Mercury relocations, and the values the link writes into the Mercury half.
//!
//! These come last because each one is decided as its main-half twin was: the main half's
//! relocation pass has already applied, dropped or kept it, and left behind the values it
//! wrote into SASS (`capsule_values`) and the slot relocations of the parameter banks
//! (`resource_banks`). What is left here is to do the same to the Mercury copy.

use super::Mercury;
use super::{main_name, mercury_name, not_yet, Placements, Twins};
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::literal_banks::MERC_PREFIX;
use crate::merge::{is_undefined_local, local_names, shared};
use crate::object::InputObject;
use crate::output::*;
use crate::reloc::table::{
    self,
    mercury::{
        ABS32, ABS32_HI, ABS32_LO, ABS64, PROG_REL32, UNIFIED, UNIFIED32_HI, UNIFIED32_LO,
        UNUSED_CLEAR64,
    },
};
use crate::resolve::UNIFIED_PLACEHOLDERS;
use hashbrown::HashMap;

/// One input Mercury relocation section, and the section it relocates.
struct Site<'a, 'data> {
    oi: ObjectId,
    o: &'a InputObject<'data>,
    /// The object's Mercury symbol table, which the relocations index.
    msyms: &'a [Symbol<'data>],
    /// Where the object's Mercury sections went (`place_mercury`).
    placed: &'a Placements,
    /// The relocation section.
    s: &'a Section<'data>,
    /// The section it relocates, and where that went.
    tsec: &'a Section<'data>,
    tout: OutSec,
    toff: u64,
    /// Capsule code.
    code: bool,
    /// Debug information.
    debug: bool,
}

impl Site<'_, '_> {
    /// Where relocation `r`'s field is in the output section.
    fn at(&self, r: &Reloc) -> u64 {
        r.offset + self.toff
    }
}

/// The Mercury relocation sections `make_twins` made, and the entries for them.
struct MercRelocs {
    /// The relocation section of each output section.
    by_target: HashMap<OutSec, OutSec>,
    /// -preserve-relocs keeps one record section per code section name, local functions'
    /// copies sharing the first's: found by the name.
    resolved_by_target: HashMap<Vec<u8>, OutSec>,
    /// Entries in reading order, per relocation section.
    pending: HashMap<OutSec, Vec<OutReloc>>,
}

impl MercRelocs {
    fn new(m: &Module, twin: &Twins) -> Self {
        let mut by_target: HashMap<OutSec, OutSec> = HashMap::new();
        let mut resolved_by_target: HashMap<Vec<u8>, OutSec> = HashMap::new();
        for &t in twin.iter().flatten() {
            let s = &m.sections[t];
            if let (Content::Relocs { .. }, Info::Section(target)) = (&s.content, s.info) {
                if s.sh_type == SHT_CUDA_MERC_RESOLVED_RELA {
                    let name = &m.sections[target].name;
                    resolved_by_target.insert(local_names::real_name(name).to_vec(), t);
                } else {
                    by_target.insert(target, t);
                }
            }
        }
        MercRelocs {
            by_target,
            resolved_by_target,
            pending: HashMap::new(),
        }
    }

    /// Into the sections, in reverse reading order, line tables included (unlike the main
    /// half's: `finish_sections`).
    fn finish(self, m: &mut Module) {
        for (rela, mut entries) in self.pending {
            entries.reverse();
            if let Content::Relocs { entries: e, .. } = &mut m.sections[rela].content {
                *e = entries;
            }
        }
    }
}

/// Without a unified table, unified addresses become plain ones: R_MERCURY_UNIFIED → ABS64,
/// UNIFIED32_LO/HI → ABS32_LO/HI. (Unlike the main half's `table::without_unified_table`,
/// R_MERCURY_UNIFIED becomes ABS64 in code too.)
fn without_unified_table(r_type: u32) -> u32 {
    match r_type {
        UNIFIED => ABS64,
        UNIFIED32_LO => ABS32_LO,
        UNIFIED32_HI => ABS32_HI,
        t => t,
    }
}

impl Mercury<'_, '_, '_> {
    /// A main relocation section the link emptied is written when its twin is not.
    pub(super) fn keep_emptied_main_relocs(&mut self, twin: &Twins) {
        for (main, t) in twin.iter_enumerated() {
            let has_entries = |id: OutSec| {
                matches!(&self.m.sections[id].content,
                    Content::Relocs { entries, .. } if !entries.is_empty())
            };
            if let Some(t) = t {
                if has_entries(*t) && !has_entries(main) {
                    self.m.empty_relocs_kept.insert(main);
                }
            }
        }
    }

    /// The driver relocations of the image-header index tables: the main half's slot
    /// relocations, counted from the first slot.
    pub(super) fn image_header_indices(&mut self, twin: &Twins) {
        for (rel, bank) in self.p.resources.banks.clone() {
            let Some(rel) = rel else { continue };
            let Some(Some(merc_rel)) = twin.get(rel) else {
                continue;
            };
            let base = self.p.resources.base.get(&bank).copied().unwrap_or(0);
            let Content::Relocs { entries, .. } = &self.m.sections[rel].content else {
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
            if let Content::Relocs { entries, .. } = &mut self.m.sections[*merc_rel].content {
                *entries = merc;
            }
        }
    }

    /// Writes into the capsule code the values the main pass wrote into the SASS of
    /// instructions the capsule keeps a record for (see `reloc::capsule`).
    pub(super) fn patch_capsules(
        &mut self,
        placed: &crate::ids::IdVec<ObjectId, Placements>,
        values: Vec<crate::relocate::CapsuleValue>,
    ) -> Result<()> {
        use crate::reloc::capsule::{needs_capsule, value_field, CapsuleError, Numbering};
        // (One numbering per function: aligning expanded code is the costly part.)
        let mut numberings: HashMap<(ObjectId, usize), Numbering> = HashMap::new();
        for (oi, text, offset, r_type, value) in values {
            if !needs_capsule(r_type) {
                continue;
            }
            let o = &self.p.objects[oi];
            let text_name = o.cubin.sections[text].name;
            let Some(cap) = self.p.input_section_by_name(oi, &mercury_name(text_name)) else {
                continue;
            };
            let Some(&(out, base)) = placed[oi].get(&cap) else {
                continue;
            };
            let context = |e: CapsuleError| {
                let e = match e {
                    CapsuleError::Damaged(m) => Error::new(m),
                    CapsuleError::Unknown(m) => {
                        not_yet(format!("writing a linked value into it ({m})"))
                    }
                };
                e.context(format!(
                    "'{}': capsule Mercury code of '{}'",
                    o.name,
                    String::from_utf8_lossy(text_name)
                ))
            };
            // The input's capsule: the numbering and the field's place are the same in the
            // output's copy, which starts at `base`.
            let input_code = o.cubin.sections[cap].bytes();
            let numbering = match numberings.entry((oi, text)) {
                hashbrown::hash_map::Entry::Occupied(e) => e.into_mut(),
                hashbrown::hash_map::Entry::Vacant(e) => {
                    let sass = o.cubin.sections[text].bytes();
                    e.insert(Numbering::new(input_code, sass).map_err(context)?)
                }
            };
            let Some(at) =
                value_field(input_code, numbering, offset / 16, r_type).map_err(context)?
            else {
                continue;
            };
            let Content::MercCode { bytes, .. } = &mut self.m.sections[out].content else {
                continue;
            };
            let Some(field) = bytes.get_mut(base as usize + at..base as usize + at + 4) else {
                continue;
            };
            let old = u32::from_le_bytes([field[0], field[1], field[2], field[3]]);
            field.copy_from_slice(&old.wrapping_add(value as u32).to_le_bytes());
        }
        Ok(())
    }

    /// The Mercury relocations: kept for the driver, dropped or applied as their main twins.
    pub(super) fn relocate_mercury(
        &mut self,
        twin: &Twins,
        placed: &crate::ids::IdVec<ObjectId, Placements>,
    ) -> Result<()> {
        let mut out = MercRelocs::new(self.m, twin);
        let objects = self.p.objects;
        for (oi, o) in crate::object::enumerated(objects) {
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
                if tsec.name.starts_with(MERC_PREFIX) && !self.p.policy.relocatable() {
                    continue;
                }
                let code = tsec.sh_type == SHT_CUDA_CAPMERC_TEXT;
                let site = Site {
                    oi,
                    o,
                    msyms,
                    placed: &placed[oi],
                    s,
                    tsec,
                    tout,
                    toff,
                    code,
                    // (Capsule code carries no SHF_ALLOC either.)
                    debug: !code && tsec.flags & SHF_ALLOC == 0,
                };
                self.relocate_merc_section(&site, &mut out)?;
            }
        }
        out.finish(self.m);
        Ok(())
    }

    fn relocate_merc_section(&mut self, site: &Site<'_, '_>, out: &mut MercRelocs) -> Result<()> {
        let (oi, o, s, tsec) = (site.oi, site.o, site.s, site.tsec);
        let relocs = o
            .cubin
            .relocations(s)
            .map_err(|e| e.context(format!("'{}'", o.name)))?;
        // The discarded copies of weak data, as in the main half (whose twin section
        // holds the same bytes).
        let main_twin = self.p.input_section_by_name(oi, &main_name(tsec.name));
        let discarded: Vec<(u64, u64)> = match main_twin {
            Some(mt) if !site.code && !site.debug => self.p.discarded_weak_data(oi, mt),
            _ => Vec::new(),
        };
        for r in relocs {
            if discarded.iter().any(|&(a, e)| (a..e).contains(&r.offset)) {
                continue;
            }
            let Some(isym) = site.msyms.get(r.sym as usize) else {
                continue;
            };
            // Capsule code offsets count expanded instructions, not bytes.
            if !site.code && r.offset >= tsec.size {
                return Err(Error::new(format!(
                    "'{}': relocation section '{}': offset {:#x} is past the end of '{}'",
                    o.name,
                    s.name_str(),
                    r.offset,
                    tsec.name_str()
                )));
            }
            self.relocate_merc_one(site, &r, isym, out)?;
        }
        Ok(())
    }

    /// One Mercury relocation: a field cleared, a value written into debug information, a
    /// value the main half applied (and -preserve-relocs records), or one the output keeps.
    fn relocate_merc_one(
        &mut self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
        out: &mut MercRelocs,
    ) -> Result<()> {
        // (The Mercury form of `table::Kind::UnusedClear`; Mercury has no YIELD types.)
        if r.r_type == UNUSED_CLEAR64 {
            self.merc_unused_clear(site, r, isym);
            return Ok(());
        }
        // References from a discarded weak copy's debug entries go with it, but in the
        // sections that keep them (`names::keeps_discarded_copy_references`).
        if site.debug
            && !names::keeps_discarded_copy_references(site.tsec.name)
            && self
                .p
                .discarded_copy(site.oi, r.sym, isym.section != SymSection::Undefined)
        {
            return Ok(());
        }
        let mut addend = r.addend.unwrap_or(0);
        if isym.st_type == STT_SECTION && site.debug {
            if r.r_type != PROG_REL32 {
                return self.merc_debug_section_value(site, r, isym);
            }
            addend = self.merc_prog_rel(site, r, isym);
        }
        // Unified placeholders resolve to nothing; -r keeps them but for calls (in capsule
        // code ABS64: the main half's `table::is_call_or_table_call`).
        if UNIFIED_PLACEHOLDERS.contains(&isym.name)
            && isym.bind != STB_LOCAL
            && (!self.p.policy.relocatable() || (site.code && r.r_type == ABS64))
        {
            return Ok(());
        }
        // (-r resolves constant-bank references too, but leaves shared memory and
        // texture references to the final link.)
        let shared_ref = (self.p.policy.lays_out_shared_memory())
            .then(|| {
                self.p
                    .shared
                    .definitions
                    .classify(self.p.objects, self.p.res, site.oi, r.sym)
            })
            .flatten();
        // Debug information's shared-memory addresses are applied as in the main half.
        if let (Some(sr), true) = (shared_ref, site.debug) {
            let Some(v) = self.p.shared_value(site.oi, None, r.sym, sr) else {
                return Ok(());
            };
            return self.write_debug_value(site, r, v.wrapping_add(addend as u64));
        }
        if self.applied_by_main_half(site, r, shared_ref) {
            self.record_merc_resolved(site, r, shared_ref, addend, out);
            return Ok(());
        }
        self.keep_merc(site, r, isym, addend, out)
    }

    /// The address range of a removed function's frame entry is cleared (frames of discarded
    /// weak copies keep theirs, as in the main half); the relocation goes either way.
    fn merc_unused_clear(&mut self, site: &Site<'_, '_>, r: &Reloc, isym: &Symbol<'_>) {
        if self.p.clears_unused_field(site.oi, r.sym, isym) {
            let at = site.at(r) as usize;
            if let Content::Bytes(bytes) = &mut self.m.sections[site.tout].content {
                if let Some(f) = bytes.get_mut(at..at + 8) {
                    f.fill(0);
                }
            }
        }
    }

    /// Section-relative references inside debug sections resolve here (the main half's rule
    /// for debug sections in `Relocator::value`); program-relative ones are `merc_prog_rel`'s.
    fn merc_debug_section_value(
        &mut self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
    ) -> Result<()> {
        let SymSection::Index(ss) = isym.section else {
            return Ok(());
        };
        let Some(&(_, base)) = site.placed.get(&(ss as usize)) else {
            return Ok(());
        };
        let v = base.wrapping_add(r.addend.unwrap_or(0) as u64);
        self.write_debug_value(site, r, v)
    }

    /// Writes a value the link resolves into a Mercury debug section (an ABS64 or ABS32
    /// field).
    fn write_debug_value(&mut self, site: &Site<'_, '_>, r: &Reloc, v: u64) -> Result<()> {
        let width = match r.r_type {
            ABS64 => 8,
            ABS32 => 4,
            t => {
                return Err(not_yet(format!(
                    "'{}': applying Mercury relocation {}",
                    site.o.name,
                    table::name(t).unwrap_or("?")
                )))
            }
        };
        let offset = site.at(r) as usize;
        if let Content::Bytes(bytes) = &mut self.m.sections[site.tout].content {
            if let Some(f) = bytes.get_mut(offset..offset + width) {
                f.copy_from_slice(&v.to_le_bytes()[..width]);
            }
        }
        Ok(())
    }

    /// Program-relative references between debug sections stay for the driver, rebased onto
    /// the merged section (the addend returned). The field gets the main half's value: the
    /// main twin's offset (-r leaves the field alone).
    fn merc_prog_rel(&mut self, site: &Site<'_, '_>, r: &Reloc, isym: &Symbol<'_>) -> i64 {
        let mut addend = r.addend.unwrap_or(0);
        let SymSection::Index(ss) = isym.section else {
            return addend;
        };
        if let Some(&(_, base)) = site.placed.get(&(ss as usize)) {
            addend = addend.wrapping_add(base as i64);
        }
        let value = self.main_twin_value(site, r, ss as usize);
        if let (Some(v), Content::Bytes(bytes), false) = (
            value,
            &mut self.m.sections[site.tout].content,
            self.p.policy.relocatable(),
        ) {
            let offset = site.at(r) as usize;
            if let Some(f) = bytes.get_mut(offset..offset + 4) {
                f.copy_from_slice(&v.to_le_bytes());
            }
        }
        addend
    }

    /// The value the main half's twin of a program-relative reference to Mercury section `ss`
    /// resolves to: where the main twin of `ss` went, plus the main twin relocation's addend
    /// (`None`: the main twin of `ss` was not placed).
    fn main_twin_value(&mut self, site: &Site<'_, '_>, r: &Reloc, ss: usize) -> Option<u32> {
        let (oi, o) = (site.oi, site.o);
        let main_si = match o.cubin.sections.get(ss) {
            Some(m) => self.p.input_section_by_name(oi, &main_name(m.name)),
            None => None,
        };
        let main_twin = main_si.and_then(|i| self.p.placed[oi][i]);
        // The main twin relocation's addend (a partial link's output has rebased the two
        // halves' addends differently).
        let main_rela = [b".rela", &main_name(site.tsec.name)[..]].concat();
        let main_addend = self
            .p
            .input_section_by_name(oi, &main_rela)
            .and_then(|i| o.cubin.relocations(&o.cubin.sections[i]).ok())
            .and_then(|rs| rs.iter().find(|m| m.offset == r.offset).map(|m| m.addend))
            .flatten()
            .unwrap_or(r.addend.unwrap_or(0));
        // (where the main twin's cut line table moved it)
        let main_addend = main_si
            .and_then(|i| self.p.line_table_offset(oi, i, main_addend as u64))
            .map_or(main_addend, |v| v as i64);
        main_twin.map(|p| p.offset.wrapping_add(main_addend as u64) as u32)
    }

    /// Constant banks, shared memory and texture slots are applied by the link: the main
    /// half's pass wrote the values into the SASS and noted those the capsule keeps too
    /// (`patch_capsules`); the Mercury relocation goes.
    fn applied_by_main_half(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        shared_ref: Option<shared::SharedRef>,
    ) -> bool {
        let main_sym = site.o.symbols().get(r.sym as usize);
        site.code
            && ((self.p.constant_bank(site.oi, r.sym).is_some()
                && !self.p.weak_kept_for_final_link(site.oi, r.sym))
                || shared_ref.is_some()
                || main_sym.is_some_and(is_undefined_local)
                || (!self.p.policy.relocatable()
                    && main_sym.is_some_and(|m| {
                        matches!(
                            m.st_type,
                            STT_CUDA_TEXTURE | STT_CUDA_SAMPLER | STT_CUDA_SURFACE
                        )
                    })))
    }

    /// -preserve-relocs records shared-memory references in both halves (extern ones in
    /// neither, but under -g, which defines them), as the main pass does
    /// (`record_applied`).
    fn record_merc_resolved(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        shared_ref: Option<shared::SharedRef>,
        addend: i64,
        out: &mut MercRelocs,
    ) {
        let recorded = match shared_ref {
            Some(shared::SharedRef::Object(_)) => true,
            Some(shared::SharedRef::Extern) => self.p.policy.debug(),
            None => false,
        };
        let target_name = local_names::real_name(&self.m.sections[site.tout].name);
        if let (true, true, Some(&rr)) = (
            self.p.policy.preserve_relocs(),
            recorded,
            out.resolved_by_target.get(target_name),
        ) {
            if let Some(sym) = self.p.out_sym(site.oi, r.sym) {
                out.pending.entry(rr).or_default().push(OutReloc {
                    offset: site.at(r),
                    r_type: r.r_type,
                    sym: Some(sym),
                    addend,
                });
            }
        }
    }

    /// A relocation the output keeps for the driver (under -r: for the final link), in the
    /// twin of the main half's relocation section for the same target.
    fn keep_merc(
        &mut self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
        addend: i64,
        out: &mut MercRelocs,
    ) -> Result<()> {
        // (-r: a kernel's own extern-shared references name its instance symbol,
        // as in the main half.)
        let instance = if site.code {
            self.p
                .input_section_by_name(site.oi, &main_name(site.tsec.name))
                .and_then(|t| self.p.partial_instance(site.oi, t, isym))
        } else {
            None
        };
        let sym = if r.sym == 0 {
            None
        } else {
            instance.or_else(|| self.p.out_sym(site.oi, r.sym))
        };
        if r.sym != 0 && sym.is_none() {
            return Ok(()); // against something removed
        }
        // (-r leaves unified references to the final link.)
        let r_type = if self.p.policy.relocatable() {
            r.r_type
        } else {
            without_unified_table(r.r_type)
        };
        let Some(&rela) = out.by_target.get(&site.tout) else {
            return Err(not_yet(format!(
                "'{}': Mercury relocations for '{}' without main-half twins",
                site.o.name,
                site.s.name_str()
            )));
        };
        out.pending.entry(rela).or_default().push(OutReloc {
            offset: site.at(r),
            r_type,
            sym,
            addend,
        });
        Ok(())
    }
}
