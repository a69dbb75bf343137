//! Functions' literal banks: ptxas's per-function `.nv.constant2.<fn>` (double constants,
//! sm_100+ switch jump tables; in the Mercury half `.nv.merc.nv.constant.optimizer.<fn>`).
//!
//! Constant bank 2 is per kernel, so a final link lays every function's literal bank out in
//! the `.nv.constant2.<kernel>` of each kernel that reaches the function, at one offset for
//! all of them (the code refers to its literals at a fixed place). Observed from nvlink 13.5
//! (black-box, sm_89–sm_120; testdata constant_optimizer):
//! - kernels' own banks come first (at 0), then functions' banks in the reverse of their
//!   order among the inputs (objects in link order, sections in header order);
//! - each goes above the end of every bank of the kernels that reach it, as laid out so far
//!   (gaps are not reused); a kernel's bank is as long as its last piece, the gaps zeroed;
//! - the function's own bank, its section symbol and its `<fn>.const_opt.*` symbols leave
//!   the output; a kernel that gets a bank only through its callees gets it (and its empty
//!   relocation section) where its first piece is placed; a piece several kernels reach
//!   makes their banks in the reverse of the kernels' output symbol order;
//! - the Mercury twin `.nv.merc.nv.constant.optimizer.<kernel>` holds the same pieces at the
//!   same offsets; each piece's `R_MERCURY_PROG_REL32` jump-table entries are kept for the
//!   driver, once per kernel, in placement order: a kernel's own bank's in reverse reading
//!   order, a function's one `const_opt` symbol at a time, the last symbol first.
//!
//! `-r` keeps the banks as they are.

use super::{Builder, Placed};
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::liveness::{Liveness, Node};
use crate::object::{InputObject, SectionKind};
use crate::output::align_up;
use crate::output::*;
use hashbrown::{HashMap, HashSet};

const BANK2: u32 = SHT_CUDA_CONSTANT_B0 + 2;
pub(crate) const PREFIX: &[u8] = b".nv.constant2.";
/// The Mercury twins' name prefix.
pub const MERC_PREFIX: &[u8] = b".nv.merc.nv.constant.optimizer.";

#[derive(Debug, Default)]
pub struct LiteralLayout {
    /// Per literal bank (object, section): its offset and the kernels (text nodes) holding it.
    pub place: HashMap<Node, (u64, Vec<Node>)>,
    /// Per literal bank: the alignment it was placed at (its own, or more: see `layout`),
    /// which its kernels' banks take.
    pub align: HashMap<Node, u64>,
    /// The banks in placement order.
    pub order: Vec<Node>,
    /// The output banks this layout made or filled.
    pub out_banks: HashSet<OutSec>,
    /// The banks it made, whose section symbols come after the call graph's.
    made: Vec<OutSec>,
    /// Whether the kernels' banks exist yet.
    banks_made: bool,
}

/// The text section a literal bank belongs to (`.nv.constant2.<fn>`, its sh_info naming the
/// function's code), if the section is one.
pub fn bank_function(o: &InputObject<'_>, s: &Section<'_>) -> Option<usize> {
    if s.sh_type != BANK2 || s.flags & SHF_INFO_LINK == 0 || !s.name.starts_with(PREFIX) {
        return None;
    }
    let t = o.cubin.sections.get(s.info as usize)?;
    (s.info != 0 && o.kind(t) == SectionKind::Text).then_some(s.info as usize)
}

/// The output bank's name for a kernel whose code is `text` (`.text.<k>`).
pub(crate) fn kernel_bank_name(text: &[u8]) -> Vec<u8> {
    [PREFIX, text.strip_prefix(b".text.").unwrap_or(text)].concat()
}

/// Lays the live literal banks out (final links only).
pub fn layout(objects: &[InputObject<'_>], lv: &Liveness) -> Result<LiteralLayout> {
    // (Banks are constant banks, sections of kind Merged: each object's found in parallel,
    // by its kinds, without reading every section header.)
    let banks: Vec<(Node, usize)> = crate::object::par_map(objects, |oi| {
        let o = &objects[oi];
        o.sections_of(SectionKind::Merged)
            .filter_map(|(si, s)| Some(((oi, si), bank_function(o, s)?)))
            .filter(|&((_, si), _)| lv.live[oi][si])
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    let mut out = LiteralLayout::default();
    if banks.is_empty() {
        return Ok(out);
    }
    // What each kernel reaches (not through other kernels).
    let kernel_set: HashSet<Node> = lv.kernels.iter().copied().collect();
    let mut reached_by: HashMap<Node, Vec<Node>> = HashMap::new();
    for &k in &lv.kernels {
        for n in lv.kernel_reach(k) {
            reached_by.entry(n).or_default().push(k);
        }
    }
    // Kernels' own banks first (each at 0), then functions' in reverse input order.
    let own = |&((oi, _), t): &(Node, usize)| kernel_set.contains(&(oi, t));
    let order: Vec<(Node, usize)> = banks
        .iter()
        .filter(|b| own(b))
        .chain(banks.iter().rev().filter(|b| !own(b)))
        .copied()
        .collect();
    let mut end: HashMap<Node, u64> = HashMap::new();
    // (Each kernel's bank so far: a piece starts aligned for every piece before it too, as
    // nvlink places them: a jump table after another kernel's doubles goes at a multiple of
    // 8. Black-box, sm_75-sm_89; testdata literal_bank_align.)
    let mut aligned: HashMap<Node, u64> = HashMap::new();
    for ((oi, si), t) in order {
        let s = &objects[oi].cubin.sections[si];
        let Some(kernels) = reached_by.get(&(oi, t)).filter(|k| !k.is_empty()) else {
            // (-preserve-relocs keeps functions no kernel reaches; nvlink drops their banks,
            // which the liveness pass already did.)
            return Err(Error::not_implemented(format!(
                "'{}': the literal bank '{}' of a function no kernel reaches",
                objects[oi].name,
                s.name_str()
            )));
        };
        let top = kernels
            .iter()
            .map(|k| end.get(k).copied().unwrap_or(0))
            .max();
        let align = kernels
            .iter()
            .map(|k| aligned.get(k).copied().unwrap_or(1))
            .fold(s.align.max(1), u64::max);
        let off = align_up(top.unwrap_or(0), align);
        for &k in kernels {
            end.insert(k, off + s.size);
            aligned.insert(k, align);
        }
        out.place.insert((oi, si), (off, kernels.clone()));
        out.align.insert((oi, si), align);
        out.order.push((oi, si));
    }
    Ok(out)
}

impl Builder<'_, '_> {
    /// The section symbols of the kernels' banks the layout made (after the call graph's).
    pub(crate) fn literal_bank_symbols(&mut self) {
        for id in std::mem::take(&mut self.p.literal.made) {
            self.section_symbol(id);
        }
    }

    /// The output bank of kernel `k` (made, with its relocation section and section symbol,
    /// on first use; `like` is an input bank to take the type from).
    fn kernel_literal_bank(&mut self, k: Node, like: (ObjectId, usize)) -> Option<OutSec> {
        let kt = self.p.objects[k.0].cubin.sections.get(k.1)?;
        let name = kernel_bank_name(kt.name);
        let text = self.out_section_for(k.0, k.1)?;
        if let Some(id) = self.m.section_named(&name) {
            // (a kernel's own bank: its sh_info names the kernel's code)
            let sec = &mut self.m.sections[id];
            sec.info = Info::Section(text);
            sec.flags |= SHF_INFO_LINK;
            return Some(id);
        }
        let s = &self.p.objects[like.0].cubin.sections[like.1];
        let (sh_type, flags) = self.lower_type(s.sh_type, s.flags);
        let id = self.m.named_section(&name.clone(), || OutSection {
            name: name.clone(),
            sh_type,
            flags: flags | SHF_INFO_LINK,
            align: s.align,
            entsize: s.entsize,
            link: Link::None,
            info: Info::Section(text),
            content: Content::Bytes(Vec::new()),
            group: Group::Constants,
            section_symbol: None,
        });
        self.p.literal.made.push(id);
        // (nvlink writes the kernel's relocation section, empty, for its Mercury twin.)
        if self.m.mercury {
            let rname = [b".rela", &name[..]].concat();
            self.m.named_section(&rname.clone(), || {
                crate::output::reloc_section(rname, SHT_RELA, id, Vec::new())
            });
        }
        Some(id)
    }

    /// The kernels a piece reaches in the order nvlink makes their banks: the reverse of
    /// their symbols' order in the output (not of their code's, which ptxas writes otherwise
    /// where a kernel names or launches another, nor of their objects': a kernel another
    /// object names first comes where that object names it). Black-box, sm_75-sm_120, one
    /// object and three in four orders: fuzz-equiv seeds 106, 191; testdata
    /// literal_bank_kernel_order, literal_bank_kernel_symbol_order.
    fn kernels_in_bank_order(&self, kernels: &[Node]) -> Vec<Node> {
        let mut ks = kernels.to_vec();
        ks.sort_by_key(|&(oi, t)| {
            let o = &self.p.objects[oi];
            let sym = o.text_function(&o.cubin.sections[t]);
            let out = sym.and_then(|i| self.p.sym_map[oi].get(i as usize).copied().flatten());
            std::cmp::Reverse(out.map(OutSym::index))
        });
        ks
    }

    /// Places a literal bank in its kernels' banks; false when it is no laid-out bank.
    pub(crate) fn place_literal_bank(&mut self, oi: ObjectId, si: usize) -> Result<bool> {
        let Some((off, kernels)) = self.p.literal.place.get(&(oi, si)).cloned() else {
            return Ok(false);
        };
        // The kernels' banks are made in placement order, when the first piece is placed.
        if !self.p.literal.banks_made {
            self.p.literal.banks_made = true;
            for b in self.p.literal.order.clone() {
                for k in self.kernels_in_bank_order(&self.p.literal.place[&b].1) {
                    self.kernel_literal_bank(k, b);
                }
            }
        }
        let s = &self.p.objects[oi].cubin.sections[si];
        // The main half's jump tables hold resolved offsets: relocations are not expected.
        for r in &self.p.objects[oi].cubin.sections {
            if r.info as usize == si && matches!(r.sh_type, SHT_REL | SHT_RELA) && r.size > 0 {
                return Err(Error::not_implemented(format!(
                    "'{}': relocations in the literal bank '{}' ('{}')",
                    self.p.objects[oi].name,
                    s.name_str(),
                    r.name_str()
                )));
            }
        }
        let bytes = s.bytes().to_vec();
        let align = self
            .p
            .literal
            .align
            .get(&(oi, si))
            .copied()
            .unwrap_or(s.align);
        let mut first = None;
        for k in kernels {
            let Some(out) = self.kernel_literal_bank(k, (oi, si)) else {
                continue;
            };
            first.get_or_insert(out);
            self.p.literal.out_banks.insert(out);
            let os = &mut self.m.sections[out];
            os.align = os.align.max(align);
            if let Content::Bytes(b) = &mut os.content {
                let end = off as usize + bytes.len();
                // (The bank ends at its alignment: NVSHMEM's 8-aligned pieces after the
                // kernel's own, 0x1dc bytes in all, make a bank of 0x1e0; sm_75.)
                let padded = align_up(end as u64, os.align.max(1)) as usize;
                if b.len() < padded {
                    b.resize(padded, 0);
                }
                b[off as usize..end].copy_from_slice(&bytes);
            }
        }
        if let Some(sec) = first {
            self.p.placed[oi][si] = Some(Placed { sec, offset: off });
        }
        Ok(true)
    }

    /// Whether an input section is a function's literal bank this link lays out in its
    /// kernels' banks (not a kernel's own, which keeps its section).
    pub(crate) fn is_callee_literal_bank(&self, oi: ObjectId, si: usize) -> bool {
        self.p.literal.place.get(&(oi, si)).is_some_and(|(_, ks)| {
            let o = &self.p.objects[oi];
            let t = bank_function(o, &o.cubin.sections[si]);
            !(ks.len() == 1 && t == Some(ks[0].1) && ks[0].0 == oi)
        })
    }
}

/// The Mercury relocation section of each output section that has one.
pub(crate) fn merc_rela_of(sections: &[OutSection]) -> HashMap<OutSec, OutSec> {
    let mut rela_of: HashMap<OutSec, OutSec> = HashMap::new();
    for (id, s) in sections.iter().enumerate() {
        if let (Content::Relocs { .. }, Info::Section(t), SHT_CUDA_MERC_RELA) =
            (&s.content, s.info, s.sh_type)
        {
            rela_of.insert(t, OutSec::from_index(id));
        }
    }
    rela_of
}

pub(crate) fn rela_error(o: &InputObject<'_>, rsi: usize, what: &str) -> Error {
    Error::not_implemented(format!(
        "'{}': relocation section '{}': {what}",
        o.name,
        o.cubin.sections[rsi].name_str()
    ))
}

/// The jump-table entries of bank `si`'s Mercury twin `msi` (of object `o`), in the order
/// nvlink writes them (see `bank_pieces`, `in_piece_order`), with the index of their
/// relocation section; `None` when the twin has none. `own`: the bank is a kernel's own.
/// Entries other than `R_MERCURY_PROG_REL32` to a function, or outside every piece, are
/// refused.
pub(crate) fn merc_bank_entries(
    o: &InputObject<'_>,
    si: usize,
    msi: usize,
    own: bool,
) -> Result<Option<(usize, Vec<Reloc>)>> {
    let Some(rsi) = o
        .cubin
        .sections
        .iter()
        .position(|r| r.sh_type == SHT_CUDA_MERC_RELA && r.info as usize == msi)
    else {
        return Ok(None);
    };
    let Some(msyms) = o.merc_symbols() else {
        return Ok(None);
    };
    let relocs = o
        .cubin
        .relocations(&o.cubin.sections[rsi])
        .map_err(|e| e.context(format!("'{}'", o.name)))?;
    let pieces = bank_pieces(msyms, msi, o.cubin.sections[si].size, own);
    // (Each entry must land in exactly one piece: overlapping pieces would count one twice
    // and could hide one outside every piece.)
    if overlapping(&pieces) {
        return Err(rela_error(o, rsi, "overlapping const_opt symbols"));
    }
    let entries = in_piece_order(&pieces, relocs.iter());
    for r in &entries {
        let isym = msyms
            .get(r.sym as usize)
            .ok_or_else(|| rela_error(o, rsi, "a bad symbol"))?;
        if r.r_type != crate::reloc::table::mercury::PROG_REL32 || isym.st_type != STT_FUNC {
            return Err(rela_error(
                o,
                rsi,
                &format!(
                    "{} to '{}'",
                    crate::reloc::table::name(r.r_type).unwrap_or("?"),
                    String::from_utf8_lossy(isym.name)
                ),
            ));
        }
    }
    if entries.len() != relocs.len() {
        return Err(rela_error(o, rsi, "entries outside its const_opt symbols"));
    }
    Ok(Some((rsi, entries)))
}

/// Whether two of the pieces (in placement order: starts descending) share bytes.
fn overlapping(pieces: &[(u64, u64)]) -> bool {
    pieces.windows(2).any(|w| w[1].1 > w[0].0)
}

/// The pieces (start, end) of a bank of `size` bytes whose Mercury twin is section `msi`
/// (its symbols `msyms`), in placement order: a kernel's own bank (`own`) goes as a whole,
/// a function's one `const_opt` symbol at a time, the last first (as a whole when it has
/// none).
fn bank_pieces(msyms: &[Symbol<'_>], msi: usize, size: u64, own: bool) -> Vec<(u64, u64)> {
    let mut pieces: Vec<(u64, u64)> = if own {
        vec![(0, size)]
    } else {
        let mut v: Vec<(u64, u64)> = msyms
            .iter()
            .filter(|m| {
                m.section == SymSection::Index(msi as u32)
                    && m.st_type != STT_SECTION
                    && m.name.windows(11).any(|w| w == b".const_opt.")
            })
            .map(|m| (m.value, m.value.saturating_add(m.size)))
            .collect();
        v.sort_unstable();
        v.reverse();
        v
    };
    if pieces.is_empty() {
        pieces.push((0, size));
    }
    pieces
}

/// The relocations of each piece in turn, each piece's in reverse reading order (a
/// relocation in several pieces comes once for each).
fn in_piece_order(
    pieces: &[(u64, u64)],
    relocs: impl DoubleEndedIterator<Item = Reloc> + Clone,
) -> Vec<Reloc> {
    pieces
        .iter()
        .flat_map(|&(a, e)| {
            relocs
                .clone()
                .rev()
                .filter(move |r| (a..e).contains(&r.offset))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn const_opt_pieces_that_share_bytes_are_seen() {
        assert!(!overlapping(&[(0x20, 0x30), (0x10, 0x20), (0, 0x10)]));
        assert!(overlapping(&[(0x20, 0x30), (0x10, 0x28)]));
    }

    use super::*;

    fn sym(name: &[u8], section: u32, st_type: u8, value: u64, size: u64) -> Symbol<'_> {
        Symbol {
            name,
            value,
            size,
            bind: STB_LOCAL,
            st_type,
            other: 0,
            section: SymSection::Index(section),
        }
    }

    #[test]
    fn a_functions_bank_goes_one_const_opt_symbol_at_a_time_the_last_first() {
        let syms = [
            sym(b"", 5, STT_SECTION, 0, 0),
            sym(b"f.const_opt.0", 5, STT_OBJECT, 0, 8),
            sym(b"f.const_opt.1", 5, STT_OBJECT, 16, 24),
            sym(b"f.const_opt.2", 5, STT_OBJECT, 8, 8),
            sym(b"g.const_opt.0", 6, STT_OBJECT, 0, 8), // another section's
            sym(b"f_other", 5, STT_OBJECT, 40, 8),      // not a const_opt symbol
        ];
        assert_eq!(
            bank_pieces(&syms, 5, 48, false),
            [(16, 40), (8, 16), (0, 8)]
        );
        // Without any, or for a kernel's own bank: the whole bank.
        assert_eq!(bank_pieces(&syms, 7, 48, false), [(0, 48)]);
        assert_eq!(bank_pieces(&syms, 5, 48, true), [(0, 48)]);
    }

    #[test]
    fn each_pieces_entries_come_in_reverse_reading_order() {
        let r = |offset| Reloc {
            offset,
            r_type: crate::reloc::table::mercury::PROG_REL32,
            sym: 1,
            addend: Some(0),
        };
        let relocs = [r(0), r(4), r(8), r(12), r(20)];
        let at = |v: Vec<Reloc>| v.iter().map(|x| x.offset).collect::<Vec<_>>();
        // (20 is in no piece: left out, for the caller to refuse.)
        assert_eq!(
            at(in_piece_order(&[(8, 16), (0, 8)], relocs.iter().copied())),
            [12, 8, 4, 0]
        );
        assert_eq!(
            at(in_piece_order(&[(0, 24)], relocs.iter().copied())),
            [20, 12, 8, 4, 0]
        );
    }
}
