//! `.debug_frame` as a list of entries (CIEs and FDEs), as far as a linker reads it.

/// The entries of a `.debug_frame`: (offset, end, is_cie). Stops at anything that does not
/// parse.
pub fn frame_entries(b: &[u8]) -> Vec<(usize, usize, bool)> {
    entries(b).collect()
}

/// Whether the entries run to the end of the section: anything else is a damaged frame
/// table (an entry's length pointing past the end, or bytes moved off their start).
/// (Every object's is checked as it is loaded: the entries are walked, not listed.)
pub fn frame_entries_cover(b: &[u8]) -> bool {
    entries(b).last().map_or(0, |e| e.1) == b.len()
}

/// [`frame_entries`], one at a time.
fn entries(b: &[u8]) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    let mut o = 0usize;
    std::iter::from_fn(move || {
        let (end, is_cie) = entry_at(b, o)?;
        let entry = (o, end, is_cie);
        o = end;
        Some(entry)
    })
}

/// The end of the entry at `o` and whether it is a CIE; `None` at the end or where it does
/// not parse.
fn entry_at(b: &[u8], o: usize) -> Option<(usize, bool)> {
    let u32_at = |o: usize| {
        b.get(o..o + 4)
            .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
    };
    let u64_at = |o: usize| Some(u32_at(o)? as u64 | (u32_at(o + 4)? as u64) << 32);
    if o >= b.len() {
        return None;
    }
    let len32 = u32_at(o)?;
    // 64-bit DWARF (what ptxas writes) or 32-bit.
    let (len, id_at, is_cie) = if len32 == 0xffff_ffff {
        let l = u64_at(o + 4)?;
        (l, o + 12, u64_at(o + 12) == Some(u64::MAX))
    } else {
        (len32 as u64, o + 4, u32_at(o + 4) == Some(u32::MAX))
    };
    let end = usize::try_from(len)
        .ok()
        .and_then(|l| l.checked_add(id_at))
        .filter(|&e| e > o && e <= b.len())?;
    Some((end, is_cie))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry64(id: u64, body: &[u8]) -> Vec<u8> {
        let mut v = vec![0xff; 4];
        v.extend_from_slice(&(8 + body.len() as u64).to_le_bytes());
        v.extend_from_slice(&id.to_le_bytes());
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn a_cie_and_its_fde_cover_the_section() {
        let mut b = entry64(u64::MAX, &[1, 2, 3, 4]);
        b.extend(entry64(0, &[5; 12]));
        assert_eq!(frame_entries(&b), [(0, 24, true), (24, 56, false)]);
        assert!(frame_entries_cover(&b));
    }

    #[test]
    fn a_frame_table_moved_by_a_byte_does_not_cover_its_section() {
        let mut b = vec![0];
        b.extend(entry64(u64::MAX, &[1, 2, 3, 4]));
        assert!(!frame_entries_cover(&b));
        assert!(frame_entries_cover(&[]));
    }
}
