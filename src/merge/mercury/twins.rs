//! The twin sections: the Mercury section each main-half section has when the inputs carry
//! its counterpart, and what goes into them.
//!
//! Placing the inputs' Mercury sections is the one step the symbols and relocations depend on
//! (they need where each input section went), so it lives with the twins it fills.

use super::main_name;
use crate::diag::Result;
use crate::elf::names::is_mercury_section;
use crate::layout::align_up;
use crate::merge::literal_banks::MERC_PREFIX;
use crate::merge::Builder;
use crate::output::*;
use hashbrown::HashMap;

impl Builder<'_, '_> {
    /// Copies the Mercury code and debug sections of every live function and object; returns
    /// where each input section went, per object.
    pub(super) fn place_mercury(
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
}
