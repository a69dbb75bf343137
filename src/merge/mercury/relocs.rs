//! The Mercury relocations, and the values the link writes into the Mercury half.
//!
//! These come last because each one is decided as its main-half twin was: the main half's
//! relocation pass has already applied, dropped or kept it, and left behind the values it
//! wrote into SASS (`capsule_values`) and the slot relocations of the parameter banks
//! (`resource_banks`). What is left here is to do the same to the Mercury copy.

use super::{main_name, mercury_name, not_yet};
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::merge::literal_banks::MERC_PREFIX;
use crate::merge::{is_undefined_local, local_names, shared, Builder, UNIFIED_PLACEHOLDERS};
use crate::output::*;
use crate::reloc::table::{
    self,
    mercury::{
        ABS32, ABS32_HI, ABS32_LO, ABS64, PROG_REL32, UNIFIED, UNIFIED32_HI, UNIFIED32_LO,
        UNUSED_CLEAR64,
    },
};
use hashbrown::HashMap;

impl Builder<'_, '_> {
    /// A main relocation section the link emptied is written when its twin is not.
    pub(super) fn keep_emptied_main_relocs(&mut self, twin: &[Option<SecId>]) {
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
    }

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

    /// The driver relocations of the image-header index tables: the main half's slot
    /// relocations, counted from the first slot.
    pub(super) fn image_header_indices(&mut self, twin: &[Option<SecId>]) {
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
    pub(super) fn patch_capsules(&mut self, placed: &[HashMap<usize, (SecId, u64)>]) -> Result<()> {
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
    pub(super) fn relocate_mercury(
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
                    resolved_by_target.insert(local_names::real_name(name).to_vec(), t);
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
                    if UNIFIED_PLACEHOLDERS.contains(&name)
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
                        .then(|| shared::classify(objects, self.res, oi, r.sym))
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
                            || main_sym.is_some_and(is_undefined_local)
                            || (!self.relocatable
                                && main_sym.is_some_and(|m| {
                                    matches!(m.st_type, STT_CUDA_TEXTURE | 11 | STT_CUDA_SURFACE)
                                })));
                    if applied_here {
                        // -preserve-relocs records shared-memory references in both halves
                        // (extern ones in neither, but under -g), as the main pass does.
                        // (-g defines the extern ones: recorded too.)
                        let recorded = match shared_ref {
                            Some(shared::SharedRef::Object(_)) => true,
                            Some(shared::SharedRef::Extern) => self.debug,
                            None => false,
                        };
                        if let (true, true, Some(&rr)) = (
                            self.preserve_relocs,
                            recorded,
                            resolved_by_target
                                .get(local_names::real_name(&self.m.sections[tout as usize].name)),
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
