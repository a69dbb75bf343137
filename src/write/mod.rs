//! The writer: serializes a laid-out [`Module`] into ELF bytes, and puts them on disk through
//! a temporary file renamed at the end, so a failed link never leaves an output behind.

mod file;
mod symtab;

pub use file::write_file;

use crate::layout::Layout;
use crate::output::{Content, Info, Link, Module};

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

/// The output index of `.note.nv.cuinfo`, where the driver and nvlink look for the module's
/// toolkit note (see [`crate::arch::EFlags`]).
fn cuinfo_index(m: &Module, l: &Layout) -> Option<u32> {
    m.sections
        .iter()
        .position(|s| s.name == crate::arch::EFlags::CUINFO)
        .map(|i| l.sec_index[i])
}

pub fn to_bytes(m: &Module, l: &Layout) -> Vec<u8> {
    let mut out = vec![0u8; l.file_size as usize];
    // ELF header.
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
    let shnum = l.order.len() as u64 + 1;
    // Past 0xff00 sections the counts move to section 0 (e_shnum = 0, SHN_XINDEX).
    let big = shnum >= 0xff00;
    put16(&mut h, if big { 0 } else { shnum as u16 });
    // The output index of the (single) section with the given content, 0 when there is none.
    let index_of = |want: fn(&Content) -> bool| {
        m.sections
            .iter()
            .position(|s| want(&s.content))
            .map(|i| l.sec_index[i])
            .unwrap_or(0)
    };
    let shstrndx = index_of(|c| matches!(c, Content::Shstrtab));
    put16(
        &mut h,
        if shstrndx >= 0xff00 {
            0xffff
        } else {
            shstrndx as u16
        },
    );
    out[..64].copy_from_slice(&h);

    let symtab_index = index_of(|c| matches!(c, Content::Symtab));
    let strtab_index = index_of(|c| matches!(c, Content::Strtab));
    let sym_idx = |id: u32| l.sym_index[id as usize];

    // Section contents.
    for &sid in &l.order {
        let id = sid as usize;
        let s = &m.sections[id];
        let off = l.offset[id] as usize;
        let bytes: Vec<u8> = match &s.content {
            Content::Bytes(b) => b.clone(),
            Content::WithSymbols { bytes, slots } => {
                let mut b = bytes.clone();
                for &(at, sym) in slots {
                    b[at..at + 4].copy_from_slice(&sym_idx(sym).to_le_bytes());
                }
                b
            }
            Content::NoBits(_) | Content::Alias(_) => continue,
            Content::MercCode { bytes, text } => {
                let mut b = bytes.clone();
                if let Some(first) = b.get_mut(..4) {
                    first.copy_from_slice(&l.sec_index[*text as usize].to_le_bytes());
                }
                b
            }
            Content::MercSymtab => symtab::merc_symtab(m, l),
            Content::Relocs { rela, entries } => {
                let mut b = Vec::with_capacity(entries.len() * 24);
                for r in entries {
                    put64(&mut b, r.offset);
                    let sym = r.sym.map(sym_idx).unwrap_or(0) as u64;
                    put64(&mut b, (sym << 32) | r.r_type as u64);
                    if *rela {
                        put64(&mut b, r.addend as u64);
                    }
                }
                b
            }
            Content::Strtab => l.strtab.clone(),
            Content::Shstrtab => l.shstrtab.clone(),
            Content::SymtabShndx => symtab::symtab_shndx(m, l),
            Content::Symtab => symtab::symtab(m, l),
        };
        out[off..off + bytes.len()].copy_from_slice(&bytes);
    }
    if l.prototype_shift != 0 {
        for &(sec, at) in &m.prototype_fields {
            let at = l.offset[sec as usize] as usize + at;
            let v = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
            // 0 means no prototype.
            if v != 0 {
                out[at..at + 4].copy_from_slice(&(v + l.prototype_shift).to_le_bytes());
            }
        }
    }

    // Section headers.
    let mut sh = Vec::with_capacity((l.order.len() + 1) * 64);
    sh.extend_from_slice(&[0u8; 64]);
    if big {
        sh[32..40].copy_from_slice(&(shnum).to_le_bytes());
        if shstrndx >= 0xff00 {
            sh[40..44].copy_from_slice(&shstrndx.to_le_bytes());
        }
    }
    for &id in &l.order {
        let s = &m.sections[id as usize];
        put32(&mut sh, l.sec_name_offset[id as usize]);
        put32(&mut sh, s.sh_type);
        put64(&mut sh, s.flags);
        put64(&mut sh, 0);
        put64(&mut sh, l.offset[id as usize]);
        put64(&mut sh, l.size[id as usize]);
        put32(
            &mut sh,
            match s.link {
                Link::None => 0,
                Link::Symtab => symtab_index,
                Link::Strtab => strtab_index,
                Link::Section(x) => l.sec_index[x as usize],
            },
        );
        put32(
            &mut sh,
            match s.info {
                Info::None => 0,
                Info::Section(x) => l.sec_index[x as usize],
                Info::Symbol(x, high) => sym_idx(x) | (high as u32) << 24,
                Info::FirstGlobal => l.first_global,
                Info::MercFirstGlobal => l.merc_first_global,
            },
        );
        put64(&mut sh, s.align);
        put64(&mut sh, s.entsize);
    }
    let so = l.shoff as usize;
    out[so..so + sh.len()].copy_from_slice(&sh);

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
    let po = l.phoff as usize;
    out[po..po + ph.len()].copy_from_slice(&ph);
    out
}
