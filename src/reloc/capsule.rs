//! Capsule Mercury code (`.nv.capmerc.text.<fn>`, sm_100 and later): where a relocated
//! instruction's value lives, so that the link can write into the capsule what it writes into
//! the SASS.
//!
//! What black-box experiments (objects compiled from our own sources, linked by nvlink,
//! compared byte for byte) show of the layout, and all this module relies on:
//! - a 12-byte header: the main-half `.text` section index (u32, fixed by the writer), a u32
//!   of flags, and `n`, the number of SASS instructions in the main `.text` (u32);
//! - a bitmap of `n` bits (in whole u32 words): bit `i` set means instruction `i` is carried
//!   by the SASS alone; a clear bit means the capsule holds a record for it. The records
//!   follow the bitmap, one per clear bit in instruction order (the last instruction, the
//!   closing branch, has none), then two trailing bytes;
//! - a record may start with 2-byte prefixes (first byte has bit 0x10 set); the record proper
//!   is 4 bytes when its first byte is 0x4_, or `first byte` × 16 bytes when its top two bits
//!   are clear;
//! - a two-unit record whose second byte is 0x22 (constant loads, `LDC`/`LDCU`) keeps the
//!   constant-bank offset as a u32 at record + 0x1c. nvlink adds there the value it writes
//!   into the SASS field (constant-bank offsets of `__constant__` data and texture
//!   references); instructions carried by the SASS alone (moves of shared-memory addresses)
//!   need nothing in the capsule. No other record kind held a linked value in any of the
//!   experiments, so other kinds are refused rather than guessed.

/// Why a capsule's value field could not be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapsuleError {
    /// The capsule is damaged (truncated, or it does not describe the instruction).
    Damaged(String),
    /// A layout these experiments have not shown (a record kind with no known value field).
    Unknown(String),
}

type Result<T> = std::result::Result<T, CapsuleError>;
use CapsuleError::{Damaged, Unknown};

/// Where in capsule `code` the value of a relocation on SASS instruction `instr` (its byte
/// offset in `.text` / 16) goes: `Ok(None)` when the instruction has no capsule record.
pub fn value_field(code: &[u8], instr: u64) -> Result<Option<usize>> {
    let u32_at = |at: usize| -> Result<u32> {
        code.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| Damaged("capsule code is truncated".into()))
    };
    let n = u64::from(u32_at(8)?);
    if instr >= n {
        return Err(Damaged(format!(
            "relocated instruction {instr} is past the {n} instructions the capsule describes"
        )));
    }
    let words = n.div_ceil(32) as usize;
    let bitmap = code
        .get(12..12 + 4 * words)
        .ok_or_else(|| Damaged("capsule code is truncated".into()))?;
    let has_record = |i: u64| bitmap[(i / 8) as usize] & (1 << (i % 8)) == 0;
    if !has_record(instr) {
        return Ok(None);
    }
    let index = (0..instr).filter(|&i| has_record(i)).count();
    let mut at = 12 + 4 * words;
    for k in 0..=index {
        let (body, size) = record_at(code, at)?;
        if k == index {
            return match (code[body], code.get(body + 1)) {
                (2, Some(0x22)) => Ok(Some(body + 0x1c)),
                (kind, sub) => Err(Unknown(format!(
                    "instruction {instr} has a capsule record of a kind whose value field is \
                     not known ({kind:#04x} {:#04x})",
                    sub.copied().unwrap_or(0)
                ))),
            };
        }
        at = body + size;
    }
    unreachable!("the loop returns at its last iteration")
}

/// The record starting at `at`: where its body starts (after any prefixes) and the body's size.
fn record_at(code: &[u8], mut at: usize) -> Result<(usize, usize)> {
    let byte = |at: usize| {
        code.get(at)
            .copied()
            .ok_or_else(|| Damaged("capsule code ends inside its records".into()))
    };
    while byte(at)? & 0x10 != 0 {
        at += 2;
    }
    let kind = byte(at)?;
    let size = match kind {
        0x40..=0x4f => 4,
        1..=0x3f => 16 * kind as usize,
        _ => {
            return Err(Unknown(format!(
                "unknown capsule record kind {kind:#04x} at offset {at:#x}"
            )))
        }
    };
    if at + size > code.len() {
        return Err(Damaged("capsule code ends inside its records".into()));
    }
    Ok((at, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capsule for `n` instructions whose records are `records` (bitmap from `carried`).
    fn capsule(n: u32, carried: &[u32], records: &[&[u8]]) -> Vec<u8> {
        let mut c = vec![0u8; 12];
        c[8..12].copy_from_slice(&n.to_le_bytes());
        let mut bitmap = vec![0u8; 4 * n.div_ceil(32) as usize];
        for &i in carried {
            bitmap[(i / 8) as usize] |= 1 << (i % 8);
        }
        c.extend(bitmap);
        for r in records {
            c.extend_from_slice(r);
        }
        c.extend([0x50, 0x08]);
        c
    }

    fn unit(kind: u8, sub: u8, units: usize) -> Vec<u8> {
        let mut r = vec![0u8; 16 * units];
        r[0] = kind;
        r[1] = sub;
        r
    }

    #[test]
    fn constant_load_record_keeps_its_offset_at_0x1c() {
        let ldc = unit(2, 0x22, 2);
        let c = capsule(4, &[2], &[&unit(1, 0x0b, 1), &ldc, &unit(2, 0x38, 2)]);
        // Instruction 1 is the second record, after the header, bitmap and one 16-byte record.
        assert_eq!(value_field(&c, 1).unwrap(), Some(16 + 16 + 0x1c));
    }

    #[test]
    fn instructions_carried_by_the_sass_need_no_capsule_change() {
        let c = capsule(4, &[0, 2], &[&unit(2, 0x22, 2), &unit(2, 0x38, 2)]);
        assert_eq!(value_field(&c, 2).unwrap(), None);
        assert_eq!(value_field(&c, 0).unwrap(), None);
    }

    #[test]
    fn short_records_and_prefixes_are_stepped_over() {
        let mut prefixed = vec![0x51, 0x01];
        prefixed.extend(unit(1, 0x09, 1));
        let c = capsule(
            5,
            &[],
            &[
                &[0x41, 0x0c, 0x40, 0x04],
                &prefixed,
                &unit(2, 0x22, 2),
                &[0x42, 0x33, 0, 0x0e],
            ],
        );
        assert_eq!(value_field(&c, 2).unwrap(), Some(16 + 4 + 18 + 0x1c));
        let mut prefixed_ldc = vec![0xd1, 0x04];
        prefixed_ldc.extend(unit(2, 0x22, 2));
        let c = capsule(2, &[], &[&prefixed_ldc]);
        assert_eq!(value_field(&c, 0).unwrap(), Some(16 + 2 + 0x1c));
    }

    #[test]
    fn records_of_unknown_kinds_are_refused() {
        let c = capsule(2, &[], &[&unit(1, 0x0b, 1)]);
        assert!(matches!(value_field(&c, 0), Err(Unknown(_))));
        let c = capsule(2, &[], &[&[0x80, 0, 0, 0]]);
        assert!(matches!(value_field(&c, 0), Err(Unknown(_))));
    }

    #[test]
    fn damaged_capsules_are_errors_not_panics() {
        assert!(matches!(value_field(&[], 0), Err(Damaged(_))));
        assert!(matches!(value_field(&[0; 12], 0), Err(Damaged(_))));
        let mut c = capsule(40, &[], &[&unit(2, 0x22, 2)]);
        c.truncate(30);
        assert!(matches!(value_field(&c, 3), Err(Damaged(_))));
    }
}
