//! The Mercury half of functions' literal banks (`merge::literal_banks` lays out the main
//! half): each bank's Mercury twin copied into its kernels' banks, and its relocations.

use super::Mercury;
use crate::diag::{Error, Result};
use crate::elf::read::Reloc;
use crate::ids::ObjectId;
use crate::liveness::Node;
use crate::merge::literal_banks::*;
use crate::output::*;

/// The Mercury half's part: the literal banks' Mercury twins and their relocations.
impl Mercury<'_, '_, '_> {
    /// Mercury half: copies an input's `.nv.merc.nv.constant.optimizer.<fn>` into the twins of
    /// its kernels' banks. Returns where it went (the first kernel's), or None when the main
    /// bank is not laid out here.
    pub(crate) fn place_merc_literal_bank(
        &mut self,
        oi: ObjectId,
        si: usize,
        twin: &[Option<OutSec>],
    ) -> Result<Option<(OutSec, u64)>> {
        let o = &self.p.objects[oi];
        let s = &o.cubin.sections[si];
        let Some(fname) = s.name.strip_prefix(MERC_PREFIX) else {
            return Ok(None);
        };
        let main = [PREFIX, fname].concat();
        let Some(main_in) = self.p.input_section_by_name(oi, &main) else {
            return Err(Error::not_implemented(format!(
                "'{}': the Mercury section '{}' without its main twin '{}'",
                o.name,
                s.name_str(),
                String::from_utf8_lossy(&main)
            )));
        };
        let Some((off, kernels)) = self.p.literal.place.get(&(oi, main_in)).cloned() else {
            return Ok(None);
        };
        let ms = &o.cubin.sections[main_in];
        if s.size != ms.size {
            return Err(Error::not_implemented(format!(
                "'{}': the Mercury section '{}' whose size differs from its main twin's",
                o.name,
                s.name_str()
            )));
        }
        let bytes = s.bytes().to_vec();
        let mut first = None;
        for k in kernels {
            let Some(out) = self.kernel_bank_twin(k, twin) else {
                continue;
            };
            first.get_or_insert(out);
            if let Content::Bytes(b) = &mut self.m.sections[out].content {
                let end = off as usize + bytes.len();
                if b.len() < end {
                    b.resize(end, 0);
                }
                b[off as usize..end].copy_from_slice(&bytes);
            }
        }
        Ok(first.map(|f| (f, off)))
    }

    /// Mercury half: the literal banks' relocations (jump-table entries), once per kernel
    /// holding the bank, appended to the kernels' `.nv.merc.rela.nv.constant.optimizer.<k>`.
    pub(crate) fn relocate_merc_literal_banks(&mut self, twin: &[Option<OutSec>]) -> Result<()> {
        let objects = self.p.objects;
        let rela_of = merc_rela_of(&self.m.sections);
        for (oi, si) in self.p.literal.order.clone() {
            let o = &objects[oi];
            let Some((off, kernels)) = self.p.literal.place.get(&(oi, si)).cloned() else {
                continue;
            };
            let main = &o.cubin.sections[si];
            let merc_name = [MERC_PREFIX, &main.name[PREFIX.len()..]].concat();
            let Some(msi) = self.p.input_section_by_name(oi, &merc_name) else {
                continue;
            };
            let own = kernels.len() == 1 && kernels[0] == (oi, main.info as usize);
            let Some((rsi, entries)) = merc_bank_entries(o, si, msi, own)? else {
                continue;
            };
            for k in kernels {
                let Some(tw) = self.kernel_bank_twin(k, twin) else {
                    continue;
                };
                let Some(&rela) = rela_of.get(&tw) else {
                    return Err(rela_error(
                        o,
                        rsi,
                        "no relocation section for the kernel's bank",
                    ));
                };
                let add = self
                    .bank_relocs(oi, &entries, off)
                    .ok_or_else(|| rela_error(o, rsi, "a removed function"))?;
                if let Content::Relocs { entries: e, .. } = &mut self.m.sections[rela].content {
                    e.extend(add);
                }
            }
        }
        Ok(())
    }

    /// The Mercury twin of kernel `k`'s output bank, where the link made both.
    fn kernel_bank_twin(&self, k: Node, twin: &[Option<OutSec>]) -> Option<OutSec> {
        let kt = self.p.objects[k.0].cubin.sections[k.1].name;
        let main_out = self.m.section_named(&kernel_bank_name(kt))?;
        twin.get(main_out.index()).copied().flatten()
    }

    /// The output relocations of object `oi`'s bank entries, the bank placed at `off`; `None`
    /// when one's function is not in the output.
    fn bank_relocs(&self, oi: ObjectId, entries: &[Reloc], off: u64) -> Option<Vec<OutReloc>> {
        entries
            .iter()
            .map(|r| {
                Some(OutReloc {
                    offset: r.offset + off,
                    r_type: r.r_type,
                    sym: Some(self.p.out_sym(oi, r.sym)?),
                    addend: r.addend.unwrap_or(0),
                })
            })
            .collect()
    }
}
