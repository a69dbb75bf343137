//! `.nv.merc.symtab`: one entry per `.symtab` entry (the kernels' parameter-bank section
//! symbols aside), so that a symbol index means the same symbol in both halves.
//!
//! Apart from the sections because an entry takes what it says from the input's Mercury
//! symbol table, not from the main half: each output symbol is traced back to the input symbol
//! it came from, and placed where `place_mercury` put that symbol's Mercury section.

use super::symbol_name;
use crate::diag::Result;
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::merge::{is_undefined_local, Builder};
use crate::output::*;
use hashbrown::HashMap;

impl Builder<'_, '_> {
    /// The Mercury symbol table: `.symtab`'s entries, each describing the Mercury copy of
    /// its symbol (the Mercury section, the input's Mercury value, size, type and st_other).
    pub(super) fn mercury_symbols(
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
                        && (ms.other & STO_CUDA_GLOBAL != 0 || is_undefined_local(ms)))
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
}
