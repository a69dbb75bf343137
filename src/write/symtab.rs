//! The symbol tables: `.symtab`, sm_100+'s `.nv.merc.symtab`, and `.symtab_shndx`.

use super::{put16, put32, put64};
use crate::layout::Layout;
use crate::output::{Module, OutSymbol};

/// `.symtab`: the null entry, then every symbol in layout's order.
pub(super) fn symtab(m: &Module, l: &Layout) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    for &sid in &l.sym_order {
        put_symbol(&mut b, &m.symbols[sid], l.sym_name_offset[sid], l);
    }
    b
}

/// `.nv.merc.symtab`: the null entry, then the Mercury symbols of the symbol order's prefix
/// that layout counted.
pub(super) fn merc_symtab(m: &Module, l: &Layout) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    for &sid in &l.sym_order[..l.merc_count] {
        let Some(sym) = &m.merc_symbols[sid] else {
            continue;
        };
        put_symbol(&mut b, sym, l.merc_sym_name_offset[sid], l);
    }
    b
}

/// `.symtab_shndx`: the section index of every symbol (0 for none), as nvlink writes it;
/// readers look only at those whose entry says SHN_XINDEX (index 0xff00 and up).
pub(super) fn symtab_shndx(m: &Module, l: &Layout) -> Vec<u8> {
    let mut b = vec![0u8; 4];
    for &sid in &l.sym_order {
        put32(&mut b, m.symbols[sid].section.map_or(0, |s| l.sec_index[s]));
    }
    b
}

/// One ELF symbol entry.
fn put_symbol(b: &mut Vec<u8>, sym: &OutSymbol, name: u32, l: &Layout) {
    put32(b, name);
    b.push((sym.bind << 4) | (sym.st_type & 0xf));
    b.push(sym.other);
    let shndx = sym.section.map(|s| l.sec_index[s]).unwrap_or(0);
    put16(
        b,
        if shndx >= 0xff00 {
            0xffff
        } else {
            shndx as u16
        },
    );
    put64(b, sym.value);
    put64(b, sym.size);
}
