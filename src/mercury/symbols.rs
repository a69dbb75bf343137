//! `.nv.merc.symtab`: one entry per `.symtab` entry (the kernels' parameter-bank section
//! symbols aside), so that a symbol index means the same symbol in both halves.
//!
//! Apart from the sections because an entry takes what it says from the input's Mercury
//! symbol table, not from the main half: each output symbol is traced back to the input symbol
//! it came from, and placed where `place_mercury` put that symbol's Mercury section.

use super::Mercury;
use super::{symbol_name, Placements, Twins};
use crate::diag::Result;
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::IdVec;
use crate::ids::ObjectId;
use crate::merge::is_undefined_local;
use crate::output::*;

impl Mercury<'_, '_, '_> {
    /// The Mercury symbol table: `.symtab`'s entries, each describing the Mercury copy of
    /// its symbol (the Mercury section, the input's Mercury value, size, type and st_other).
    pub(super) fn mercury_symbols(
        &mut self,
        twin: &Twins,
        placed: &crate::ids::IdVec<ObjectId, Placements>,
    ) -> Result<()> {
        let origin = self.symbol_origins();
        let mut merc = IdVec::new();
        for (id, &from) in origin.iter_enumerated() {
            merc.push(if self.m.symbols[id].st_type == STT_SECTION {
                self.merc_section_symbol(id, twin)
            } else {
                Some(self.merc_symbol(id, from, placed))
            });
        }
        self.m.merc_symbols = merc;
        Ok(())
    }

    /// Where each output symbol came from (object, input symbol): the definition, else the
    /// first reference. Its Mercury entry is the one at the same index of that object's
    /// Mercury symbol table.
    fn symbol_origins(&self) -> IdVec<OutSym, Option<(ObjectId, usize)>> {
        let objects = self.p.objects;
        let defines = |oi: ObjectId, i: usize| match self.p.res.sym_global[oi][i] {
            Some(g) => self.p.res.globals[g]
                .def
                .is_some_and(|d| d.obj == oi && d.sym as usize == i),
            None => objects[oi].symbols()[i].section != SymSection::Undefined,
        };
        let mut origin = IdVec::filled(None, self.m.symbols.len());
        for (oi, map) in self.p.sym_map.iter_enumerated() {
            for (i, out) in map.iter().enumerate() {
                let Some(out) = *out else { continue };
                let slot = &mut origin[out];
                let better = match *slot {
                    None => true,
                    Some((po, pi)) => defines(oi, i) && !defines(po, pi),
                };
                if better {
                    *slot = Some((oi, i));
                }
            }
        }
        origin
    }

    /// A section symbol names the twin, as nvlink names it, or else the main section both
    /// halves use. The kernels' parameter banks (the last section symbols) have none.
    fn merc_section_symbol(&self, id: OutSym, twin: &Twins) -> Option<OutSymbol> {
        let main = &self.m.symbols[id];
        let sec = main.section?;
        let s = &self.m.sections[sec];
        if crate::output::order::late_param_bank(self.m, sec) {
            return None;
        }
        let (section, name) = match twin.get(sec).copied().flatten() {
            Some(t) => (t, symbol_name(&self.m.sections[t].name).to_vec()),
            None => (sec, s.name.clone()),
        };
        Some(OutSymbol {
            name,
            section: Some(section),
            ..main.clone()
        })
    }

    /// The main half's symbol `id`, with what its input's Mercury entry says where there is
    /// one.
    fn merc_symbol(
        &mut self,
        id: OutSym,
        from: Option<(ObjectId, usize)>,
        placed: &crate::ids::IdVec<ObjectId, Placements>,
    ) -> OutSymbol {
        let objects = self.p.objects;
        let mut sym = self.m.symbols[id].clone();
        let Some((oi, i)) = from else { return sym };
        let Some(ms) = objects[oi].merc_symbols().and_then(|t| t.get(i)) else {
            return sym;
        };
        // -r writes an undefined global-memory variable and an undefined local (resolved
        // to -1) as the main half does.
        if self.p.policy.relocatable()
            && ms.section == SymSection::Undefined
            && (ms.other & STO_CUDA_GLOBAL != 0 || is_undefined_local(ms))
        {
            return sym;
        }
        self.take_merc_attributes(&mut sym, &self.m.symbols[id], (oi, i), ms);
        if let SymSection::Index(si) = ms.section {
            self.place_merc_symbol(&mut sym, id, (oi, si as usize), ms, placed);
        }
        sym
    }

    /// The Mercury value, size, type and st_other of input symbol `i` of object `oi`.
    fn take_merc_attributes(
        &self,
        sym: &mut OutSymbol,
        main: &OutSymbol,
        (oi, i): (ObjectId, usize),
        ms: &Symbol<'_>,
    ) {
        sym.value = ms.value;
        sym.size = ms.size;
        if ms.section != SymSection::Undefined {
            sym.st_type = ms.st_type;
            sym.other = ms.other;
            // -r: the st_other of the first occurrence, as in the main half.
            if let Some(g) = self.p.res.sym_global[oi][i] {
                if self.p.policy.relocatable() && self.p.res.globals[g].first_ref < oi {
                    sym.other = main.other;
                }
            }
        }
        // -g defines the extern shared arrays, undefined in every input, in
        // `.nv_debug.shared`: Mercury values without the reserve, Mercury types.
        let in_shared = main
            .section
            .is_some_and(|s| self.m.sections[s].group == Group::Shared);
        if ms.section == SymSection::Undefined && in_shared && !self.p.policy.relocatable() {
            sym.value = main.value.saturating_sub(self.p.shared.reserve);
            sym.st_type = ms.st_type;
            sym.other = ms.other | (main.other & 3);
        }
        // (-r -g writes the arrays' values, where the debugger finds them, in both halves.)
        if let Some(&v) =
            self.p.res.sym_global[oi][i].and_then(|g| self.p.partial.debug_value.get(&g))
        {
            sym.value = v;
        }
    }

    /// Places a symbol defined in Mercury section `si` of object `oi` where `place_mercury`
    /// put that section, or, for a main-half section both halves use, where the main half
    /// put the symbol (`id`).
    fn place_merc_symbol(
        &mut self,
        sym: &mut OutSymbol,
        id: OutSym,
        (oi, si): (ObjectId, usize),
        ms: &Symbol<'_>,
        placed: &crate::ids::IdVec<ObjectId, Placements>,
    ) {
        let reserved = self.p.objects[oi]
            .cubin
            .sections
            .get(si)
            .is_some_and(|t| t.sh_type == SHT_CUDA_RESERVED_SHARED);
        match placed[oi].get(&si) {
            // Reserved shared objects are allocated like commons from 0.
            Some(&(out, _)) if reserved => {
                sym.section = Some(out);
                sym.value = if self.p.policy.relocatable() {
                    ms.value
                } else {
                    0
                };
                if let Content::NoBits(n) = &mut self.m.sections[out].content {
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
                let main = &self.m.symbols[id];
                sym.value = main.value;
                let shared = main
                    .section
                    .is_some_and(|s| self.m.sections[s].group == Group::Shared);
                if shared {
                    sym.value = main.value.saturating_sub(self.p.shared.reserve);
                    sym.other = ms.other | (main.other & 3);
                }
            }
        }
    }
}
