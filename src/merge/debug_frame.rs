//! `.debug_frame`: the entries of removed functions cut out (sm_100+), CIE pointers moved with
//! a partial link's frames and pointed at the CIE before each FDE.

use crate::elf::frames::frame_entries;
use crate::object::{InputObject, SectionKind};
use crate::output::*;

/// sm_100+: `.debug_frame` without the entries of removed functions (`cleared`: the fields
/// the relocation pass cleared), each FDE pointing at the CIE before it.
pub(crate) fn cut_dead_frames(m: &mut Module, cleared: &[(OutSec, u64)]) {
    if let Some(df) = m.section_named(b".debug_frame") {
        drop_dead_frames(m, df, cleared);
        if let Content::Bytes(bytes) = &mut m.sections[df].content {
            point_fdes_at_preceding_cie(bytes);
        }
    }
}

fn drop_dead_frames(m: &mut Module, df: OutSec, cleared: &[(OutSec, u64)]) {
    let mut dead: Vec<u64> = cleared.iter().filter(|c| c.0 == df).map(|c| c.1).collect();
    dead.sort_unstable();
    if dead.is_empty() {
        return;
    }
    let Content::Bytes(bytes) = &m.sections[df].content else {
        return;
    };
    let entries = frame_entries(bytes);
    let mut cuts: Vec<(u64, u64)> = Vec::new();
    for (k, &(start, end, is_cie)) in entries.iter().enumerate() {
        let first = dead.partition_point(|&d| d < start as u64);
        if is_cie || dead.get(first).is_none_or(|&d| d >= end as u64) {
            continue;
        }
        let mut from = start;
        // The CIE right before goes too when no other FDE follows it.
        if k > 0 && entries[k - 1].2 && entries.get(k + 1).is_none_or(|e| e.2) {
            from = entries[k - 1].0;
        }
        cuts.push((from as u64, end as u64));
    }
    // Cuts are in ascending order; `removed[i]` is the length of the first i.
    let mut removed = vec![0u64];
    for &(a, b) in &cuts {
        removed.push(removed.last().copied().unwrap_or(0) + (b - a));
    }
    let moved = |off: u64| -> Option<u64> {
        let i = cuts.partition_point(|&(_, b)| b <= off);
        match cuts.get(i) {
            Some(&(a, _)) if a <= off => None,
            _ => Some(off - removed[i]),
        }
    };
    if let Content::Bytes(bytes) = &mut m.sections[df].content {
        let mut kept = Vec::with_capacity(bytes.len());
        let mut at = 0usize;
        for &(a, b) in &cuts {
            kept.extend_from_slice(&bytes[at..a as usize]);
            at = b as usize;
        }
        kept.extend_from_slice(&bytes[at..]);
        *bytes = kept;
    }
    for sec in &mut m.sections {
        if sec.info != Info::Section(df) {
            continue;
        }
        if let Content::Relocs { entries, .. } = &mut sec.content {
            entries.retain_mut(|r| match moved(r.offset) {
                Some(o) => {
                    r.offset = o;
                    true
                }
                None => false,
            });
        }
    }
}

/// A partial link's `.debug_frame` holds CIE pointers counted from its own start with no
/// relocation left to rebase them (ptxas's carry one): moved to `base`, they move with it.
pub(super) fn rebase_unrelocated_cie_pointers(
    o: &InputObject<'_>,
    si: usize,
    b: &mut [u8],
    base: u64,
) {
    // (Sorted offsets: a set grown for each object's frames cost more than the rebasing.)
    let mut relocated: Vec<u64> = o
        .cubin
        .sections
        .iter()
        .filter(|r| o.kind(r) == SectionKind::Reloc && r.info as usize == si)
        .filter_map(|r| o.cubin.relocations(r).ok())
        .flatten()
        .map(|r| r.offset)
        .collect();
    relocated.sort_unstable();
    for (start, end, is_cie) in frame_entries(b) {
        if is_cie {
            continue;
        }
        let (at, width) = if b[start..end].starts_with(&[0xff; 4]) {
            (start + 12, 8)
        } else {
            (start + 4, 4)
        };
        if relocated.binary_search(&(at as u64)).is_ok() {
            continue;
        }
        if let Some(f) = b.get_mut(at..at + width) {
            let mut v = [0u8; 8];
            v[..width].copy_from_slice(f);
            let moved = u64::from_le_bytes(v).wrapping_add(base);
            f.copy_from_slice(&moved.to_le_bytes()[..width]);
        }
    }
}

/// sm_100+: nvlink points each FDE of `.debug_frame` at the CIE that precedes it, whatever
/// the input relocation said (ptxas' addends can be 8 past the CIE).
pub(crate) fn point_fdes_at_preceding_cie(b: &mut [u8]) {
    let mut cie: Option<usize> = None;
    for (start, end, is_cie) in frame_entries(b) {
        if is_cie {
            cie = Some(start);
            continue;
        }
        let Some(c) = cie else { continue };
        // The CIE pointer follows the length: 8 bytes after a 64-bit length, else 4.
        if b[start..end].starts_with(&[0xff; 4]) {
            if let Some(f) = b.get_mut(start + 12..start + 20) {
                f.copy_from_slice(&(c as u64).to_le_bytes());
            }
        } else if let Some(f) = b.get_mut(start + 4..start + 8) {
            f.copy_from_slice(&(c as u32).to_le_bytes());
        }
    }
}
