//! `-lineinfo` line tables (`.debug_line`, `.nv_debug_line_sass`) of a re-finalized kernel.
//!
//! Black-box (fence_lineinfo, sm_100 and sm_120, every mode nvlink re-finalizes in): nvlink
//! rewrites the address advances of the kernel's line sequence in place, each row moving
//! with its instruction and the end of the sequence with the end of the (re-padded) code; a
//! `DW_LNS_advance_pc` keeps its operand's width (64 written `c0 00` where it was 144,
//! `90 01`). Nothing else in the tables changes, and their Mercury twins keep their bytes.

use super::{little_endian, uleb, Edit, Result};
use crate::elf::read::{Cubin, Section, SymSection};

/// The line program header fields the rows need.
struct Header {
    min_inst: u64,
    line_range: u8,
    opcode_base: u8,
    /// Operand counts of the standard opcodes, from opcode 1.
    std_lengths: Vec<u8>,
}

/// Rewrites, in `out` (the object's bytes), the sequence of the kernel in section `text`
/// that the line-table relocation section `r` starts.
pub(super) fn line_tables(
    cubin: &Cubin<'_>,
    r: &Section<'_>,
    text: u32,
    e: &Edit,
    out: &mut [u8],
) -> Result<()> {
    let Some(table_section) = cubin.sections.get(r.info as usize) else {
        return Ok(());
    };
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    let bytes = table_section.bytes();
    for rel in cubin.relocations(r).map_err(|x| x.to_string())?.iter() {
        let Some(sym) = table.symbols.get(rel.sym as usize) else {
            continue;
        };
        if sym.section != SymSection::Index(text) {
            continue;
        }
        let at = rel.offset as usize;
        // A sequence starts `00 09 02 <address>`: DW_LNE_set_address, relocated.
        if at < 3 || bytes.get(at - 3..at) != Some(&[0, 9, 2][..]) {
            return Err(format!(
                "a relocation in '{}' that is not a sequence's start address",
                r.name_str()
            ));
        }
        if sym.value != 0 || rel.addend.unwrap_or(0) != 0 {
            return Err(format!(
                "a line sequence in '{}' starting inside the code",
                table_section.name_str()
            ));
        }
        let header = header_of(bytes, at)?;
        let base = table_section.offset as usize;
        sequence(
            bytes,
            at + 8,
            &header,
            e,
            &mut out[base..base + bytes.len()],
        )
        .map_err(|w| format!("{w} in '{}'", table_section.name_str()))?;
    }
    Ok(())
}

/// The header of the line program unit holding offset `at` (32-bit DWARF 2 to 4).
fn header_of(b: &[u8], at: usize) -> Result<Header> {
    let mut unit = 0usize;
    loop {
        let length = little_endian(b, unit, 4)? as usize;
        if length >= 0xffff_fff0 {
            return Err("a 64-bit DWARF line table".into());
        }
        let end = unit + 4 + length;
        if at < end {
            let version = little_endian(b, unit + 4, 2)?;
            // (DWARF 4 adds maximum_operations_per_instruction after min_inst_length.)
            let extra = usize::from(version >= 4);
            let f = unit + 10;
            let opcode_base = little_endian(b, f + 4 + extra, 1)? as u8;
            let lengths = b
                .get(f + 5 + extra..f + 5 + extra + usize::from(opcode_base.max(1) - 1))
                .ok_or("a damaged line table header")?;
            return Ok(Header {
                min_inst: little_endian(b, f, 1)?.max(1),
                line_range: (little_endian(b, f + 3 + extra, 1)? as u8).max(1),
                opcode_base,
                std_lengths: lengths.to_vec(),
            });
        }
        if end <= unit {
            return Err("a damaged line table".into());
        }
        unit = end;
    }
}

/// Walks one sequence's opcodes from `at` to its end, writing each address advance for the
/// moved code into `out` (the table's bytes).
fn sequence(b: &[u8], mut at: usize, h: &Header, e: &Edit, out: &mut [u8]) -> Result<()> {
    let mut loc = 0u64;
    // Old → new address: the end of the code moves to the end of the new (padded) code.
    let new = |old: u64| -> Result<u64> {
        if old == e.old_size {
            Ok(e.code.len() as u64)
        } else {
            e.at(old, true)
        }
    };
    loop {
        let op = *b.get(at).ok_or("a line sequence with no end")?;
        at += 1;
        if op >= h.opcode_base {
            let adjusted = op - h.opcode_base;
            let delta = u64::from(adjusted / h.line_range) * h.min_inst;
            let moved = new(loc + delta)? - new(loc)?;
            if moved != delta {
                let line = adjusted % h.line_range;
                let units = moved / h.min_inst;
                let re =
                    u64::from(line) + u64::from(h.line_range) * units + u64::from(h.opcode_base);
                if re > 255 || moved % h.min_inst != 0 {
                    return Err("a row whose special opcode cannot hold its moved address".into());
                }
                out[at - 1] = re as u8;
            }
            loc += delta;
            continue;
        }
        match op {
            0 => {
                let (len, body) = uleb(b, at)?;
                let sub = *b.get(body).ok_or("a damaged line table")?;
                if sub == 1 {
                    return Ok(()); // DW_LNE_end_sequence
                }
                if sub == 2 {
                    return Err("a second DW_LNE_set_address in one sequence".into());
                }
                at = body + len as usize;
            }
            2 => {
                let (units, next) = uleb(b, at)?;
                let delta = units * h.min_inst;
                let moved = new(loc + delta)? - new(loc)?;
                write_padded_uleb(&mut out[at..next], moved / h.min_inst)?;
                loc += delta;
                at = next;
            }
            8 => {
                let delta = u64::from((255 - h.opcode_base) / h.line_range) * h.min_inst;
                if new(loc + delta)? - new(loc)? != delta {
                    return Err("a DW_LNS_const_add_pc across removed instructions".into());
                }
                loc += delta;
            }
            9 => {
                let delta = little_endian(b, at, 2)?;
                let moved = new(loc + delta)? - new(loc)?;
                let moved = u16::try_from(moved).map_err(|_| "a damaged line table")?;
                out[at..at + 2].copy_from_slice(&moved.to_le_bytes());
                loc += delta;
                at += 2;
            }
            // (DW_LNS_advance_line's SLEB128 ends as a ULEB128 does.)
            3 => at = uleb(b, at)?.1,
            _ => {
                let args = h.std_lengths.get(usize::from(op) - 1).copied().unwrap_or(0);
                for _ in 0..args {
                    at = uleb(b, at)?.1;
                }
            }
        }
    }
}

/// Writes `v` as an unsigned LEB128 number of exactly `field.len()` bytes (continuation
/// bits on all but the last), as nvlink keeps an advance's width.
fn write_padded_uleb(field: &mut [u8], v: u64) -> Result<()> {
    let n = field.len();
    if n == 0 || (n < 10 && v >> (7 * n) != 0) {
        return Err("an address advance that no longer fits its operand".into());
    }
    for (i, byte) in field.iter_mut().enumerate() {
        let bits = ((v >> (7 * i).min(63)) & 0x7f) as u8;
        *byte = if i + 1 < n { bits | 0x80 } else { bits };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An edit of a 0x280-byte kernel whose instructions 0xa to 0xe (0xa0..0xf0) go; the
    /// new code is re-padded to the old size.
    fn edit() -> Edit {
        let mut moved = Vec::new();
        let mut at = 0;
        for k in 0..40u64 {
            moved.push(at);
            at += if (10..15).contains(&k) { 0 } else { 16 };
        }
        moved.push(at);
        Edit {
            mode: super::super::Mode::Release,
            code: vec![0; 0x280],
            moved,
            before: Vec::new(),
            old_size: 0x280,
            runs: Vec::new(),
            exits: Vec::new(),
            old_padding: 8,
        }
    }

    fn header() -> Header {
        Header {
            min_inst: 1,
            line_range: 14,
            opcode_base: 13,
            std_lengths: vec![0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1],
        }
    }

    #[test]
    fn rows_after_removed_instructions_move_up_and_the_end_stays_with_the_code() {
        // advance_pc 0xa0, copy; advance_pc 0x90 (to 0x130), copy; advance_pc 0x150 (to the
        // end), end_sequence.
        let program = [2, 0xa0, 0x01, 1, 2, 0x90, 0x01, 1, 2, 0xd0, 0x02, 0, 1, 1];
        let mut out = program;
        sequence(&program, 0, &header(), &edit(), &mut out).unwrap();
        assert_eq!(
            out,
            [2, 0xa0, 0x01, 1, 2, 0xc0, 0x00, 1, 2, 0xa0, 0x03, 0, 1, 1]
        );
    }

    #[test]
    fn a_special_opcode_over_removed_instructions_is_re_encoded() {
        // advance_pc 0x90 to 0x90, then a special opcode advancing 0x10 with line + 1: the
        // row at 0xa0 (the first instruction removed) moves to the next one kept (0xa0).
        // A second one from 0xa0 to 0xb0 (inside the removed run) advances by nothing.
        let special = |addr: u8, line: u8| 13 + line + 14 * addr;
        let program = [2, 0x90, 0x01, special(16, 6), special(16, 6), 0, 1, 1];
        let mut out = program;
        sequence(&program, 0, &header(), &edit(), &mut out).unwrap();
        assert_eq!(out[3], special(16, 6));
        assert_eq!(out[4], special(0, 6));
    }

    #[test]
    fn a_sequence_without_its_end_is_an_error_not_a_panic() {
        let program = [2, 0x90, 0x01, 1];
        let mut out = program;
        assert!(sequence(&program, 0, &header(), &edit(), &mut out).is_err());
    }

    #[test]
    fn an_advance_keeps_its_operands_width() {
        let mut f = [0x90, 0x01];
        write_padded_uleb(&mut f, 64).unwrap();
        assert_eq!(f, [0xc0, 0x00]);
        write_padded_uleb(&mut f, 272).unwrap();
        assert_eq!(f, [0x90, 0x02]);
    }

    #[test]
    fn an_advance_too_large_for_its_operand_is_refused() {
        let mut f = [0x10];
        assert!(write_padded_uleb(&mut f, 200).is_err());
    }
}
