//! The writer: serializes a laid-out [`Module`] into ELF bytes, and puts them on disk through
//! a temporary file renamed at the end, so a failed link never leaves an output behind.

mod file;
mod headers;
mod symtab;

pub use file::write_file;

use crate::layout::Layout;
use crate::output::{Content, Module, OutReloc, OutSec};

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

pub fn to_bytes(m: &Module, l: &Layout) -> Vec<u8> {
    let mut out = vec![0u8; l.file_size as usize];
    out[..64].copy_from_slice(&headers::elf_header(m, l));
    for &sid in &l.order {
        let off = l.offset[sid] as usize;
        if let Some(bytes) = section_bytes(m, l, sid) {
            out[off..off + bytes.len()].copy_from_slice(&bytes);
        }
    }
    if l.prototype_shift != 0 {
        shift_prototypes(m, l, &mut out);
    }
    let sh = headers::section_headers(m, l);
    let so = l.shoff as usize;
    out[so..so + sh.len()].copy_from_slice(&sh);
    let ph = headers::program_headers(l);
    let po = l.phoff as usize;
    out[po..po + ph.len()].copy_from_slice(&ph);
    out
}

/// A section's contents as written; None for those with no bytes of their own in the file.
fn section_bytes(m: &Module, l: &Layout, sid: OutSec) -> Option<Vec<u8>> {
    Some(match &m.sections[sid].content {
        Content::Bytes(b) => b.clone(),
        Content::WithSymbols { bytes, slots } => {
            let mut b = bytes.clone();
            for &(at, sym) in slots {
                b[at..at + 4].copy_from_slice(&l.sym_index[sym].to_le_bytes());
            }
            b
        }
        Content::NoBits(_) | Content::Alias(_) => return None,
        Content::MercCode { bytes, text } => {
            let mut b = bytes.clone();
            if let Some(first) = b.get_mut(..4) {
                first.copy_from_slice(&l.sec_index[*text].to_le_bytes());
            }
            b
        }
        Content::MercSymtab => symtab::merc_symtab(m, l),
        Content::Relocs { rela, entries } => relocs(l, *rela, entries),
        Content::Strtab => l.strtab.clone(),
        Content::Shstrtab => l.shstrtab.clone(),
        Content::SymtabShndx => symtab::symtab_shndx(m, l),
        Content::Symtab => symtab::symtab(m, l),
    })
}

/// A relocation section's entries (`rela`: with addends).
fn relocs(l: &Layout, rela: bool, entries: &[OutReloc]) -> Vec<u8> {
    let mut b = Vec::with_capacity(entries.len() * 24);
    for r in entries {
        put64(&mut b, r.offset);
        let sym = r.sym.map(|id| l.sym_index[id]).unwrap_or(0) as u64;
        put64(&mut b, (sym << 32) | r.r_type as u64);
        if rela {
            put64(&mut b, r.addend as u64);
        }
    }
    b
}

/// sm_100+: the prototype strings follow the symbol names in `.strtab`, so the prototype
/// ids already written into the sections move by the names' length.
fn shift_prototypes(m: &Module, l: &Layout, out: &mut [u8]) {
    for &(sec, at) in &m.prototype_fields {
        let at = l.offset[sec] as usize + at;
        let v = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        // 0 means no prototype.
        if v != 0 {
            out[at..at + 4].copy_from_slice(&(v + l.prototype_shift).to_le_bytes());
        }
    }
}
