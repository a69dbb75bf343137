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
    // (`.shstrtab` is made beside `.strtab`.)
    let ((shstrtab, sec_name_offset), (strtab, sym_name_offset, merc, prototype_shift)) =
        rayon::join(
            || section_names(m, order),
            || {
                let mut strtab = vec![0u8];
                if !m.mercury {
                    push_prototypes(m, &mut strtab);
                }
                let mut seen = HashMap::new();
                let sym_name_offset = symbol_names(m, sym_order, &mut strtab, &mut seen);
                let merc = merc_names(m, sym_order, &sym_name_offset, &mut strtab, &mut seen);
                let prototype_shift = if m.mercury {
                    let shift = strtab.len() as u32 - 1;
                    push_prototypes(m, &mut strtab);
                    shift
                } else {
                    0
                };
                (strtab, sym_name_offset, merc, prototype_shift)
            },
        );
    let (merc_count, merc_sym_name_offset, merc_first_global) = merc;
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

/// The name symbol `s` has in `.strtab`.
fn symbol_name(m: &Module, s: OutSym) -> &[u8] {
    let sym = &m.symbols[s];
    match (&sym.name[..], sym.section) {
        // Section symbols are named after their section (nvlink finds a partial link's
        // sections by these names when it finishes it).
        (b"", Some(sec)) if sym.st_type == STT_SECTION => &m.sections[sec].name[..],
        (n, _) => n,
    }
}

/// `.symtab`'s names, in symbol order. `seen` collects them for sm_100+, which stores each
/// name once (and shares them with `.nv.merc.symtab`); up to sm_90 each is written where it
/// comes, in parallel.
fn symbol_names<'a>(
    m: &'a Module,
    sym_order: &[OutSym],
    strtab: &mut Vec<u8>,
    seen: &mut HashMap<&'a [u8], u32>,
) -> IdVec<OutSym, u32> {
    use rayon::prelude::*;
    let mut sym_name_offset = IdVec::filled(0u32, m.symbols.len());
    if !m.mercury {
        let names: Vec<&[u8]> = sym_order.par_iter().map(|&s| symbol_name(m, s)).collect();
        let offsets = append_all(strtab, &names, Empty::Skipped);
        for (&s, at) in sym_order.iter().zip(offsets) {
            sym_name_offset[s] = at;
        }
        return sym_name_offset;
    }
    for &s in sym_order {
        let name = symbol_name(m, s);
        if name.is_empty() {
            continue;
        }
        if let Some(&at) = seen.get(name) {
            sym_name_offset[s] = at;
            continue;
        }
        seen.insert(name, strtab.len() as u32);
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

/// `.shstrtab` and each written section's name offset (by OutSec), in header order (an
/// empty name too gets its terminator).
fn section_names(m: &Module, order: &[OutSec]) -> (Vec<u8>, IdVec<OutSec, u32>) {
    use rayon::prelude::*;
    let mut shstrtab = vec![0u8];
    let mut sec_name_offset = IdVec::filled(0u32, m.sections.len());
    let names: Vec<&[u8]> = order.par_iter().map(|&s| &m.sections[s].name[..]).collect();
    let offsets = append_all(&mut shstrtab, &names, Empty::Written);
    for (&s, at) in order.iter().zip(offsets) {
        sec_name_offset[s] = at;
    }
    (shstrtab, sec_name_offset)
}

/// What `append_all` does with an empty name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Empty {
    /// Not written; its offset is 0 (the table's leading terminator).
    Skipped,
    /// Written as its terminator alone, like any other.
    Written,
}

/// Names appended in this many a task.
const NAMES_PER_TASK: usize = 4096;

/// Appends each of `names` and its terminator to `table`, in order; returns where each
/// starts. The same bytes as appending them one by one, made in parallel: each task's share
/// of the table is measured first, then filled (a large link has 200,000 names a table).
fn append_all(table: &mut Vec<u8>, names: &[&[u8]], empty: Empty) -> Vec<u32> {
    use rayon::prelude::*;
    let written = |n: &&[u8]| !n.is_empty() || empty == Empty::Written;
    let shares: Vec<usize> = names
        .par_chunks(NAMES_PER_TASK)
        .map(|c| c.iter().filter(|n| written(n)).map(|n| n.len() + 1).sum())
        .collect();
    let base = table.len();
    table.resize(base + shares.iter().sum::<usize>(), 0);
    let mut parts: Vec<(usize, &mut [u8])> = Vec::with_capacity(shares.len());
    let (mut rest, mut at) = (&mut table[base..], base);
    for &n in &shares {
        let (mine, after) = std::mem::take(&mut rest).split_at_mut(n);
        parts.push((at, mine));
        (rest, at) = (after, at + n);
    }
    let mut offsets = vec![0u32; names.len()];
    offsets
        .par_chunks_mut(NAMES_PER_TASK)
        .zip(names.par_chunks(NAMES_PER_TASK))
        .zip(parts)
        .for_each(|((offsets, names), (start, dst))| {
            let mut pos = 0;
            for (o, n) in offsets.iter_mut().zip(names) {
                if !written(n) {
                    continue;
                }
                *o = (start + pos) as u32;
                // (The terminator is there already: the table grew by zeros.)
                dst[pos..pos + n.len()].copy_from_slice(n);
                pos += n.len() + 1;
            }
        });
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What appending `names` one by one gives (`skip`: empty names are not written).
    fn one_by_one(names: &[&[u8]], skip: bool) -> (Vec<u8>, Vec<u32>) {
        let mut table = vec![0u8];
        let offsets = names
            .iter()
            .map(|n| {
                if skip && n.is_empty() {
                    0
                } else {
                    append(&mut table, n)
                }
            })
            .collect();
        (table, offsets)
    }

    fn names(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| match i % 5 {
                0 => Vec::new(),
                k => format!("name{i}").repeat(k).into_bytes(),
            })
            .collect()
    }

    #[test]
    fn names_appended_together_are_the_bytes_and_offsets_of_appending_them_one_by_one() {
        // (More names than one task takes, and a few.)
        for n in [0, 3, NAMES_PER_TASK + 7, 3 * NAMES_PER_TASK] {
            let owned = names(n);
            let names: Vec<&[u8]> = owned.iter().map(|v| &v[..]).collect();
            for (empty, skip) in [(Empty::Skipped, true), (Empty::Written, false)] {
                let mut table = vec![0u8];
                let offsets = append_all(&mut table, &names, empty);
                assert_eq!((table, offsets), one_by_one(&names, skip), "{n} names");
            }
        }
    }

    #[test]
    fn a_skipped_empty_name_points_at_the_leading_terminator() {
        let mut table = vec![0u8];
        let offsets = append_all(&mut table, &[b"a", b"", b"b"], Empty::Skipped);
        assert_eq!(offsets, [1, 0, 3]);
        assert_eq!(table, b"\0a\0b\0");
    }
}
