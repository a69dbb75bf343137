//! The writer: serializes a laid-out [`Module`] into ELF bytes, and puts them on disk through
//! a temporary file renamed at the end, so a failed link never leaves an output behind.

mod file;
mod headers;
mod symtab;

pub use file::{write_file, write_with};

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

/// The ELF file as bytes.
pub fn to_bytes(m: &Module, l: &Layout) -> Vec<u8> {
    let mut out = vec![0u8; l.file_size as usize];
    fill(m, l, &mut out);
    out
}

/// Writes the ELF file into `out` (`l.file_size` zeroed bytes). The sections are disjoint
/// ranges of the file, filled in parallel.
pub fn fill(m: &Module, l: &Layout, out: &mut [u8]) {
    use rayon::prelude::*;
    out[..64].copy_from_slice(&headers::elf_header(m, l));
    // (Header order is file order; empty sections have nothing to write.)
    let mut slices: Vec<(OutSec, &mut [u8])> = Vec::with_capacity(l.order.len());
    let mut rest: &mut [u8] = out;
    let mut at = 0u64;
    for &sid in &l.order {
        let (off, size) = (l.offset[sid], l.size[sid]);
        if size == 0 || !has_file_bytes(&m.sections[sid].content) {
            continue;
        }
        let skipped = std::mem::take(&mut rest)
            .split_at_mut((off - at) as usize)
            .1;
        let (mine, after) = skipped.split_at_mut(size as usize);
        slices.push((sid, mine));
        rest = after;
        at = off + size;
    }
    slices
        .into_par_iter()
        .with_min_len(16)
        .for_each(|(sid, dst)| section_into(m, l, sid, dst));
    if l.prototype_shift != 0 {
        shift_prototypes(m, l, out);
    }
    let sh = headers::section_headers(m, l);
    let so = l.shoff as usize;
    out[so..so + sh.len()].copy_from_slice(&sh);
    let ph = headers::program_headers(l);
    let po = l.phoff as usize;
    out[po..po + ph.len()].copy_from_slice(&ph);
}

/// Whether a section has bytes of its own in the file.
fn has_file_bytes(c: &Content) -> bool {
    !matches!(c, Content::NoBits(_) | Content::Alias(_))
}

/// Writes a section's contents into its place in the file.
fn section_into(m: &Module, l: &Layout, sid: OutSec, dst: &mut [u8]) {
    let made = match &m.sections[sid].content {
        Content::Bytes(b) => return dst.copy_from_slice(b),
        Content::WithSymbols { bytes, slots } => {
            dst.copy_from_slice(bytes);
            for &(at, sym) in slots {
                dst[at..at + 4].copy_from_slice(&l.sym_index[sym].to_le_bytes());
            }
            return;
        }
        Content::MercCode { bytes, text } => {
            dst.copy_from_slice(bytes);
            if let Some(first) = dst.get_mut(..4) {
                first.copy_from_slice(&l.sec_index[*text].to_le_bytes());
            }
            return;
        }
        Content::NoBits(_) | Content::Alias(_) => return,
        Content::MercSymtab => symtab::merc_symtab(m, l),
        Content::Relocs { rela, entries } => relocs(l, *rela, entries),
        Content::Strtab => return dst.copy_from_slice(&l.strtab),
        Content::Shstrtab => return dst.copy_from_slice(&l.shstrtab),
        Content::SymtabShndx => symtab::symtab_shndx(m, l),
        Content::Symtab => symtab::symtab(m, l),
    };
    dst.copy_from_slice(&made);
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
