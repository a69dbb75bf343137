//! The string tables: `.strtab` (symbol names and prototype strings) and `.shstrtab`, with
//! where each name landed in them.

use crate::elf::{STB_LOCAL, STT_SECTION};
use crate::ids::IdVec;
use crate::output::{Module, OutSec, OutSym};
use hashbrown::HashMap;

/// The string tables and each name's offset in them.
pub(super) struct Names {
    pub strtab: Vec<u8>,
    /// By OutSym.
    pub sym_name_offset: IdVec<OutSym, u32>,
    pub shstrtab: Vec<u8>,
    /// By OutSec.
    pub sec_name_offset: IdVec<OutSec, u32>,
    /// What to add to each prototype id (sm_100+: the prototype strings follow the names).
    pub prototype_shift: u32,
    /// sm_100+: how many symbols `.nv.merc.symtab` lists (a prefix of the symbol order),
    /// their names' offsets (by OutSym), and its sh_info.
    pub merc_count: usize,
    pub merc_sym_name_offset: IdVec<OutSym, u32>,
    pub merc_first_global: u32,
}

pub(super) fn names(m: &Module, order: &[OutSec], sym_order: &[OutSym]) -> Names {
    // Prototype strings come first up to sm_90 and after the symbol names from sm_100 on,
    // where section symbols are named too.
    let mut strtab = vec![0u8];
    if !m.mercury {
        push_prototypes(m, &mut strtab);
    }
    let mut seen = HashMap::new();
    let sym_name_offset = symbol_names(m, sym_order, &mut strtab, &mut seen);
    let (merc_count, merc_sym_name_offset, merc_first_global) =
        merc_names(m, sym_order, &sym_name_offset, &mut strtab, &mut seen);
    let prototype_shift = if m.mercury {
        let shift = strtab.len() as u32 - 1;
        push_prototypes(m, &mut strtab);
        shift
    } else {
        0
    };
    let (shstrtab, sec_name_offset) = section_names(m, order);
    Names {
        strtab,
        sym_name_offset,
        shstrtab,
        sec_name_offset,
        prototype_shift,
        merc_count,
        merc_sym_name_offset,
        merc_first_global,
    }
}

/// Appends `name` and its terminator; returns where it starts.
fn append(table: &mut Vec<u8>, name: &[u8]) -> u32 {
    let at = table.len() as u32;
    table.extend_from_slice(name);
    table.push(0);
    at
}

fn push_prototypes(m: &Module, strtab: &mut Vec<u8>) {
    for p in m.strtab_prefix.keys() {
        append(strtab, p);
    }
}

/// `.symtab`'s names, in symbol order. `seen` collects them for sm_100+, which stores each
/// name once (and shares them with `.nv.merc.symtab`).
fn symbol_names<'a>(
    m: &'a Module,
    sym_order: &[OutSym],
    strtab: &mut Vec<u8>,
    seen: &mut HashMap<&'a [u8], u32>,
) -> IdVec<OutSym, u32> {
    let mut sym_name_offset = IdVec::filled(0u32, m.symbols.len());
    for &s in sym_order {
        let sym = &m.symbols[s];
        let name = match (&sym.name[..], sym.section) {
            // Section symbols are named after their section (nvlink finds a partial link's
            // sections by these names when it finishes it).
            (b"", Some(sec)) if sym.st_type == STT_SECTION => &m.sections[sec].name[..],
            (n, _) => n,
        };
        if name.is_empty() {
            continue;
        }
        if m.mercury {
            if let Some(&at) = seen.get(name) {
                sym_name_offset[s] = at;
                continue;
            }
            seen.insert(name, strtab.len() as u32);
        }
        sym_name_offset[s] = append(strtab, name);
    }
    sym_name_offset
}

/// sm_100+: `.nv.merc.symtab`'s symbol count, name offsets (by OutSym) and sh_info. The
/// Mercury symbols' names that `.symtab` does not use (`.nv.constant.user`) follow its names.
fn merc_names<'a>(
    m: &'a Module,
    sym_order: &[OutSym],
    sym_name_offset: &IdVec<OutSym, u32>,
    strtab: &mut Vec<u8>,
    seen: &mut HashMap<&'a [u8], u32>,
) -> (usize, IdVec<OutSym, u32>, u32) {
    let merc_count = if m.merc_symbols.is_empty() {
        0
    } else {
        sym_order
            .iter()
            .take_while(|&&s| m.merc_symbols[s].is_some())
            .count()
    };
    let mut merc_sym_name_offset = IdVec::filled(0u32, m.merc_symbols.len());
    let mut merc_first_global = 1;
    for (pos, &s) in sym_order[..merc_count].iter().enumerate() {
        let Some(sym) = &m.merc_symbols[s] else {
            continue;
        };
        if sym.bind == STB_LOCAL {
            merc_first_global = pos as u32 + 2;
        }
        let name = &sym.name[..];
        merc_sym_name_offset[s] = if name == m.symbols[s].name && !name.is_empty() {
            sym_name_offset[s]
        } else if name.is_empty() {
            0
        } else if let Some(&at) = seen.get(name) {
            at
        } else {
            let at = append(strtab, name);
            seen.insert(name, at);
            at
        };
    }
    (merc_count, merc_sym_name_offset, merc_first_global)
}

/// `.shstrtab` and each written section's name offset (by OutSec), in header order.
fn section_names(m: &Module, order: &[OutSec]) -> (Vec<u8>, IdVec<OutSec, u32>) {
    let mut shstrtab = vec![0u8];
    let mut sec_name_offset = IdVec::filled(0u32, m.sections.len());
    for &s in order {
        sec_name_offset[s] = append(&mut shstrtab, &m.sections[s].name);
    }
    (shstrtab, sec_name_offset)
}
