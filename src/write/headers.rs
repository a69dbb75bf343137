//! The ELF header and the section and program header tables.

use super::{put16, put32, put64};
use crate::layout::Layout;
use crate::output::{Content, Info, Link, Module};

/// The ELF header's 64 bytes.
pub(super) fn elf_header(m: &Module, l: &Layout) -> Vec<u8> {
    let mut h = Vec::with_capacity(64);
    h.extend_from_slice(b"\x7fELF\x02\x01\x01");
    h.push(crate::elf::ELFOSABI_CUDA);
    h.push(crate::elf::CUDA_ABI_VERSION);
    h.extend_from_slice(&[0; 7]);
    put16(&mut h, m.e_type);
    put16(&mut h, crate::elf::EM_CUDA);
    put32(&mut h, 1);
    put64(&mut h, 0);
    put64(&mut h, l.phoff);
    put64(&mut h, l.shoff);
    put32(
        &mut h,
        crate::arch::EFlags::with_cuinfo_index(m.e_flags, cuinfo_index(m, l)),
    );
    put16(&mut h, 64);
    // (sm_100+ writes 0 when there is no program header table, as in a partial link.)
    put16(
        &mut h,
        if m.mercury && l.phdrs.is_empty() {
            0
        } else {
            56
        },
    );
    put16(&mut h, l.phdrs.len() as u16);
    put16(&mut h, 64);
    let shnum = section_count(l);
    // Past 0xff00 sections the counts move to section 0 (e_shnum = 0, SHN_XINDEX).
    put16(&mut h, if shnum >= 0xff00 { 0 } else { shnum as u16 });
    let shstrndx = shstrndx(m, l);
    put16(
        &mut h,
        if shstrndx >= 0xff00 {
            0xffff
        } else {
            shstrndx as u16
        },
    );
    h
}

/// The section header table: the null section's header (which holds the counts the ELF
/// header cannot), then one per written section. (Made in parallel: a large link has
/// 200,000 headers.)
pub(super) fn section_headers(m: &Module, l: &Layout) -> Vec<u8> {
    use rayon::prelude::*;
    let shnum = section_count(l);
    let shstrndx = shstrndx(m, l);
    let symtab_index = index_of(m, l, |c| matches!(c, Content::Symtab));
    let strtab_index = index_of(m, l, |c| matches!(c, Content::Strtab));
    let mut sh = vec![0u8; (l.order.len() + 1) * 64];
    let (null, rest) = sh.split_at_mut(64);
    if shnum >= 0xff00 {
        null[32..40].copy_from_slice(&(shnum).to_le_bytes());
        if shstrndx >= 0xff00 {
            null[40..44].copy_from_slice(&shstrndx.to_le_bytes());
        }
    }
    rest.par_chunks_mut(64)
        .zip(&l.order)
        .with_min_len(4096)
        .for_each(|(h, &id)| {
            let s = &m.sections[id];
            let link = match s.link {
                Link::None => 0,
                Link::Symtab => symtab_index,
                Link::Strtab => strtab_index,
                Link::Section(x) => l.sec_index[x],
            };
            let info = match s.info {
                Info::None => 0,
                Info::Section(x) => l.sec_index[x],
                Info::Symbol(x, high) => l.sym_index[x] | (high as u32) << 24,
                Info::FirstGlobal => l.first_global,
                Info::MercFirstGlobal => l.merc_first_global,
            };
            h[0..4].copy_from_slice(&l.sec_name_offset[id].to_le_bytes());
            h[4..8].copy_from_slice(&s.sh_type.to_le_bytes());
            h[8..16].copy_from_slice(&s.flags.to_le_bytes());
            // (sh_addr 16..24 stays 0)
            h[24..32].copy_from_slice(&l.offset[id].to_le_bytes());
            h[32..40].copy_from_slice(&l.size[id].to_le_bytes());
            h[40..44].copy_from_slice(&link.to_le_bytes());
            h[44..48].copy_from_slice(&info.to_le_bytes());
            h[48..56].copy_from_slice(&s.align.to_le_bytes());
            h[56..64].copy_from_slice(&s.entsize.to_le_bytes());
        });
    sh
}

/// The program header table.
pub(super) fn program_headers(l: &Layout) -> Vec<u8> {
    let mut ph = Vec::new();
    for p in &l.phdrs {
        put32(&mut ph, p.p_type);
        put32(&mut ph, p.flags);
        put64(&mut ph, p.offset);
        put64(&mut ph, 0);
        put64(&mut ph, 0);
        put64(&mut ph, p.filesz);
        put64(&mut ph, p.memsz);
        put64(&mut ph, 8);
    }
    ph
}

/// How many section headers there are, the null section's included.
fn section_count(l: &Layout) -> u64 {
    l.order.len() as u64 + 1
}

fn shstrndx(m: &Module, l: &Layout) -> u32 {
    index_of(m, l, |c| matches!(c, Content::Shstrtab))
}

/// The output index of the (single) section with the given content, 0 when there is none.
fn index_of(m: &Module, l: &Layout, want: fn(&Content) -> bool) -> u32 {
    m.sections
        .position(|s| want(&s.content))
        .map(|i| l.sec_index[i])
        .unwrap_or(0)
}

/// The output index of `.note.nv.cuinfo`, where the driver and nvlink look for the module's
/// toolkit note (see [`crate::arch::EFlags`]).
fn cuinfo_index(m: &Module, l: &Layout) -> Option<u32> {
    m.sections
        .position(|s| s.name == crate::arch::EFlags::CUINFO)
        .map(|i| l.sec_index[i])
}
