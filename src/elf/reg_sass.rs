//! sm_100+ `.nv_debug_info_reg_sass` (code compiled with `-G`): where each function keeps
//! its PTX registers. One record per function: its name, a u32 count, then that many
//! entries (u32, register name, u16, u8, u8, u32 start, u32 end: a code range). The section
//! has no relocations: records are found by name.

/// A record: its function's name and where its entries' ranges are (offsets in the section).
pub struct Record<'b> {
    pub name: &'b [u8],
    pub ranges: Vec<usize>,
}

pub fn records(b: &[u8]) -> std::result::Result<Vec<Record<'_>>, String> {
    let string_end = |at: usize| -> Option<usize> {
        let n = b.get(at..)?.iter().position(|&x| x == 0)?;
        Some(at + n + 1)
    };
    let u32_at = |at: usize| -> Option<u32> {
        let x = b.get(at..at + 4)?;
        Some(u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
    };
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < b.len() {
        let bad = |what: &str| format!("record at {at:#x}: {what}");
        let end = string_end(at).ok_or_else(|| bad("unterminated name"))?;
        let name = &b[at..end - 1];
        let count = u32_at(end).ok_or_else(|| bad("truncated count"))?;
        let mut p = end + 4;
        let mut ranges = Vec::new();
        for _ in 0..count {
            let e = string_end(p + 4).ok_or_else(|| bad("truncated entry"))?;
            if e + 12 > b.len() {
                return Err(bad("truncated entry"));
            }
            ranges.push(e + 4);
            p = e + 12;
        }
        out.push(Record { name, ranges });
        at = p;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records() {
        let mut b = b"f\0".to_vec();
        b.extend_from_slice(&2u32.to_le_bytes());
        for r in [&b"%r1\0"[..], b"%rd12\0"] {
            b.extend_from_slice(&0u32.to_le_bytes());
            b.extend_from_slice(r);
            b.extend_from_slice(&[0, 0, 0, 5, 0x10, 0, 0, 0, 0x20, 0, 0, 0]);
        }
        b.extend_from_slice(b"g\0\0\0\0\0");
        let rs = records(&b).unwrap();
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].name, b"f");
        assert_eq!(rs[0].ranges, vec![18, 40]);
        assert_eq!(&b[18..26], &[0x10, 0, 0, 0, 0x20, 0, 0, 0]);
        assert!(rs[1].ranges.is_empty());
        assert!(records(b"f\0\x01\0\0\0").is_err());
    }
}
