//! Layout: fixes the final section order and indices, the symbol order (locals first), file
//! offsets and program headers. Nothing changes size after this pass.

mod segments;
mod strtab;

use crate::output::align_up;
use crate::output::order::{header_order, late_param_bank};

use crate::elf::*;
use crate::ids::{Id, IdVec};
use crate::output::{Content, Module, OutSec, OutSym};

pub struct Layout {
    /// Output sections in header order (index 0 of the ELF section table is the null
    /// section, so ELF index = position + 1).
    pub order: Vec<OutSec>,
    /// ELF section index of each output section.
    pub sec_index: IdVec<OutSec, u32>,
    /// Symbol ids in symbol-table order (ELF index = position + 1).
    pub sym_order: Vec<OutSym>,
    pub sym_index: IdVec<OutSym, u32>,
    pub first_global: u32,
    /// File offset of each output section (by OutSec).
    pub offset: IdVec<OutSec, u64>,
    /// Size of each output section (by OutSec), including derived tables.
    pub size: IdVec<OutSec, u64>,
    pub strtab: Vec<u8>,
    pub sym_name_offset: IdVec<OutSym, u32>,
    pub shstrtab: Vec<u8>,
    pub sec_name_offset: IdVec<OutSec, u32>,
    pub shoff: u64,
    pub phoff: u64,
    pub phdrs: Vec<Phdr>,
    pub file_size: u64,
    /// What to add to each prototype id (sm_100+: the prototype strings follow the names).
    pub prototype_shift: u32,
    /// sm_100+: how many symbols `.nv.merc.symtab` lists (a prefix of `sym_order`), their
    /// names' offsets (by OutSym), and its sh_info.
    pub merc_count: usize,
    pub merc_sym_name_offset: IdVec<OutSym, u32>,
    pub merc_first_global: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct Phdr {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub filesz: u64,
    pub memsz: u64,
}

pub fn layout(m: &Module) -> Layout {
    // The sections' order and the symbols' are worked out side by side (only sm_100+ orders
    // some symbols by their sections' indices), then the string tables beside the symbols'
    // indices: a large link has two hundred thousand of each.
    let ((order, sec_index), plain) = rayon::join(
        || {
            let order = header_order(m);
            let sec_index = elf_indices(&order, m.sections.len());
            (order, sec_index)
        },
        || (!m.mercury).then(|| plain_symbol_order(m)),
    );
    let (sym_order, first_global) = plain.unwrap_or_else(|| mercury_symbol_order(m, &sec_index));
    let (sym_index, names) = rayon::join(
        || elf_indices(&sym_order, m.symbols.len()),
        || strtab::names(m, &order, &sym_order),
    );
    let mut size = sizes(m, &names);
    let (offset, sections_end) = file_offsets(m, &order, &mut size);
    let shoff = align_up(sections_end, 8);
    let sh_end = shoff.saturating_add((order.len() as u64 + 1) * 64);
    let (phoff, phdrs) = if m.program_headers {
        let phoff = sh_end;
        (
            phoff,
            segments::program_headers(m, &order, &offset, &size, phoff),
        )
    } else {
        (0, Vec::new())
    };
    let file_size = if m.program_headers {
        phoff + phdrs.len() as u64 * 56
    } else {
        sh_end
    };
    Layout {
        order,
        sec_index,
        sym_order,
        sym_index,
        first_global,
        offset,
        size,
        strtab: names.strtab,
        sym_name_offset: names.sym_name_offset,
        shstrtab: names.shstrtab,
        sec_name_offset: names.sec_name_offset,
        shoff,
        phoff,
        phdrs,
        file_size,
        prototype_shift: names.prototype_shift,
        merc_count: names.merc_count,
        merc_sym_name_offset: names.merc_sym_name_offset,
        merc_first_global: names.merc_first_global,
    }
}

/// The ELF index of each id listed in `order` (entry 0 of an ELF table is the null entry),
/// 0 for those not listed.
fn elf_indices<I: Id>(order: &[I], n: usize) -> IdVec<I, u32> {
    let mut index = IdVec::filled(0u32, n);
    for (pos, &id) in order.iter().enumerate() {
        index[id] = pos as u32 + 1;
    }
    index
}

/// The symbol-table order and its sh_info (the index of the first global) up to sm_90:
/// locals first.
fn plain_symbol_order(m: &Module) -> (Vec<OutSym>, u32) {
    let mut order: Vec<OutSym> = m.symbols.ids().filter(|&i| m.listed_as_local(i)).collect();
    let first_global = order.len() as u32 + 1;
    order.extend(m.symbols.ids().filter(|&i| !m.listed_as_local(i)));
    (order, first_global)
}

/// sm_100+ lists the kernels' parameter-bank section symbols after the globals; sh_info
/// then counts up to the last local.
fn mercury_symbol_order(m: &Module, sec_index: &IdVec<OutSec, u32>) -> (Vec<OutSym>, u32) {
    let late = |i: OutSym| {
        let s = &m.symbols[i];
        s.st_type == STT_SECTION && s.section.is_some_and(|sec| late_param_bank(m, sec))
    };
    let all = || m.symbols.ids();
    let mut order: Vec<OutSym> = all()
        .filter(|&i| m.listed_as_local(i) && !late(i))
        .collect();
    // Parameter banks with texture/surface slots close the locals (in header order).
    let mut slotted_syms: Vec<OutSym> = order
        .iter()
        .copied()
        .filter(|&i| {
            let s = &m.symbols[i];
            s.st_type == STT_SECTION
                && s.section
                    .is_some_and(|sec| m.slotted_param_banks.contains(&sec))
        })
        .collect();
    order.retain(|i| !slotted_syms.contains(i));
    slotted_syms.sort_by_key(|&i| m.symbols[i].section.map(|s| sec_index[s]));
    order.extend(slotted_syms);
    // Locals listed among the globals come first there.
    order.extend(all().filter(|&i| m.locals_listed_as_global.contains(&i)));
    order.extend(
        all().filter(|&i| !m.listed_as_local(i) && !m.locals_listed_as_global.contains(&i)),
    );
    // (in their banks' header order)
    let mut late_syms: Vec<OutSym> = all().filter(|&i| m.listed_as_local(i) && late(i)).collect();
    late_syms.sort_by_key(|&i| m.symbols[i].section.map(|s| sec_index[s]));
    order.extend(late_syms);
    let last_local = order.iter().rposition(|&i| m.listed_as_local(i));
    (order, last_local.map_or(1, |p| p as u32 + 2))
}

/// Each section's size (by OutSec), the tables layout derives included.
fn sizes(m: &Module, names: &strtab::Names) -> IdVec<OutSec, u64> {
    use rayon::prelude::*;
    let sections: &[crate::output::OutSection] = &m.sections;
    let size: Vec<u64> = sections
        .par_iter()
        .with_min_len(4096)
        .map(|s| match &s.content {
            Content::Symtab => (m.symbols.len() as u64 + 1) * 24,
            Content::SymtabShndx => (m.symbols.len() as u64 + 1) * 4,
            Content::Strtab => names.strtab.len() as u64,
            Content::Shstrtab => names.shstrtab.len() as u64,
            Content::MercSymtab => (names.merc_count as u64 + 1) * 24,
            c => c.size(),
        })
        .collect();
    size.into()
}

/// Each section's file offset (by OutSec), after the ELF header in header order, and where
/// the last one ends. An alias takes the offset and size of the section it stands for (as
/// they are when it is reached), so `size` is completed here.
fn file_offsets(
    m: &Module,
    order: &[OutSec],
    size: &mut IdVec<OutSec, u64>,
) -> (IdVec<OutSec, u64>, u64) {
    use rayon::prelude::*;
    // What the walk below needs of each section, read in parallel first: the walk is in
    // header order, which visits the module's sections out of their order, one cache miss
    // each.
    enum Room {
        Bytes(u64),
        NoBits(u64),
        Alias(OutSec),
    }
    let rooms: Vec<Room> = order
        .par_iter()
        .with_min_len(4096)
        .map(|&s| {
            let sec = &m.sections[s];
            match sec.content {
                Content::Alias(of) => Room::Alias(of),
                Content::NoBits(_) => Room::NoBits(sec.align),
                _ => Room::Bytes(sec.align),
            }
        })
        .collect();
    let mut offset = IdVec::filled(0u64, m.sections.len());
    let mut pos = 64u64;
    for (&s, room) in order.iter().zip(rooms) {
        match room {
            Room::Alias(of) => {
                offset[s] = offset[of];
                size[s] = size[of];
            }
            // Zero-filled sections take no file space.
            Room::NoBits(align) => {
                pos = align_up(pos, align);
                offset[s] = pos;
            }
            Room::Bytes(align) => {
                pos = align_up(pos, align);
                offset[s] = pos;
                pos = pos.saturating_add(size[s]);
            }
        }
    }
    (offset, pos)
}
