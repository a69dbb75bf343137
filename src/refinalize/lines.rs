//! `-lineinfo` line tables (`.debug_line`, `.nv_debug_line_sass`) of a re-finalized kernel.
//!
//! Black-box (fence_lineinfo, debug_exits_lineinfo, sm_100 and sm_120, every mode nvlink
//! re-finalizes in): each row moves with its instruction and the end of the sequence with
//! the end of the (re-padded) code; rows whose advance moves are written anew (`reencoded`),
//! the others keep their bytes; the units' lengths and the tables' relocations follow.
//! Nothing else in the tables changes, and their Mercury twins keep their bytes.

use super::{little_endian, uleb, Edit, Result};
use crate::elf::read::{Cubin, Section, SymSection};

/// The line program header fields the rows need.
struct Header {
    min_inst: u64,
    line_base: i8,
    line_range: u8,
    opcode_base: u8,
    /// Operand counts of the standard opcodes, from opcode 1.
    std_lengths: Vec<u8>,
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
                line_base: little_endian(b, f + 2 + extra, 1)? as u8 as i8,
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

/// The line tables of an object whose kernels `edits` moved (by text section): each
/// sequence of a moved kernel re-encoded (`reencoded`), the units' lengths and the tables'
/// relocations after it following.
pub(super) fn line_tables(
    cubin: &Cubin<'_>,
    edits: &[(u32, &Edit)],
    out: &mut Vec<u8>,
) -> Result<()> {
    for r in &cubin.sections {
        if matches!(r.name, b".rela.debug_line" | b".rela.nv_debug_line_sass") {
            grown_table(cubin, r, edits, out)
                .map_err(|w| format!("{w} in '{}'", r.name_str().trim_start_matches(".rela")))?;
        }
    }
    Ok(())
}

fn grown_table(
    cubin: &Cubin<'_>,
    r: &Section<'_>,
    edits: &[(u32, &Edit)],
    out: &mut Vec<u8>,
) -> Result<()> {
    let Some(t) = cubin.sections.get(r.info as usize) else {
        return Ok(());
    };
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    let b = t.bytes();
    let relocs = cubin.relocations(r).map_err(|x| x.to_string())?;
    // The sequences to re-encode: (where their program starts, their kernel's edit).
    let mut starts: Vec<(usize, &Edit)> = Vec::new();
    for rel in relocs.iter() {
        let Some(sym) = table.symbols.get(rel.sym as usize) else {
            continue;
        };
        let Some(&(_, e)) = edits
            .iter()
            .find(|(text, _)| sym.section == SymSection::Index(*text))
        else {
            continue;
        };
        let at = rel.offset as usize;
        if at < 3 || b.get(at - 3..at) != Some(&[0, 9, 2][..]) {
            return Err("a relocation that is not a sequence's start address".into());
        }
        if sym.value != 0 || rel.addend.unwrap_or(0) != 0 {
            return Err("a line sequence starting inside the code".into());
        }
        starts.push((at + 8, e));
    }
    if starts.is_empty() {
        return Ok(());
    }
    starts.sort_unstable_by_key(|s| s.0);
    // The new bytes, and for each re-encoded sequence (old start, old end, growth).
    let (mut new, mut from, mut spans) = (Vec::with_capacity(b.len() + 64), 0usize, Vec::new());
    for &(start, e) in &starts {
        let h = header_of(b, start)?;
        new.extend_from_slice(&b[from..start]);
        let (program, end) = reencoded(b, start, &h, e)?;
        spans.push((start, end, program.len() as i64 - (end - start) as i64));
        new.extend_from_slice(&program);
        from = end;
    }
    new.extend_from_slice(&b[from..]);
    let shift = |old: usize| -> i64 {
        spans
            .iter()
            .filter(|&&(_, end, _)| end <= old)
            .map(|s| s.2)
            .sum()
    };
    // Each unit's length: its old length plus what grew inside it.
    let mut unit = 0usize;
    while unit + 4 <= b.len() {
        let length = little_endian(b, unit, 4)? as usize;
        let end = unit + 4 + length;
        let grew: i64 = spans
            .iter()
            .filter(|s| s.0 > unit && s.1 <= end)
            .map(|s| s.2)
            .sum();
        let at = (unit as i64 + shift(unit)) as usize;
        let l = u32::try_from(length as i64 + grew).map_err(|_| "a damaged line table")?;
        new[at..at + 4].copy_from_slice(&l.to_le_bytes());
        if end <= unit {
            return Err("a damaged line table".into());
        }
        unit = end;
    }
    for (i, rel) in relocs.iter().enumerate() {
        let moved = (rel.offset as i64 + shift(rel.offset as usize)) as u64;
        super::put_u64(out, r.offset as usize + 24 * i, moved);
    }
    super::put_section(cubin, t.index, &new, out);
    Ok(())
}

/// One sequence's program from `at` to its end (inclusive), re-encoded for the moved code,
/// and where it ended. A row (the opcodes up to one that appends it: a special opcode,
/// `DW_LNS_copy`, `DW_LNE_end_sequence`) whose address advance does not move keeps its
/// bytes; one whose advance moves is written as nvlink writes it: its other opcodes, then a
/// special opcode where one holds the row's line and address advances, else
/// `DW_LNS_advance_line` (where the line moves), `DW_LNS_advance_pc`, `DW_LNS_copy` (the
/// end: `DW_LNS_advance_pc`, `DW_LNE_end_sequence`); the row's flags (`DW_LNS_set_prologue_end`
/// and the like) just before the opcode that appends it (black-box, sm_100 -G: `advance_pc
/// 0x380, set_prologue_end, end_sequence` of a kernel losing its `MEMBAR.SC.VC` stays in that
/// order, with 0x300). nvlink writes the advance's operand as
/// a signed LEB128 number (0x50 as `d0 00`, 0x30 as `30`), which reads as the unsigned one.
fn reencoded(b: &[u8], mut at: usize, h: &Header, e: &Edit) -> Result<(Vec<u8>, usize)> {
    let new = |old: u64| -> Result<u64> { super::address(e, old) };
    let (mut out, mut loc) = (Vec::new(), 0u64);
    let (mut row_start, mut advance, mut line, mut others) = (at, 0u64, 0i64, Vec::new());
    // The row's flag opcodes (basic_block, prologue_end, epilogue_begin): written just before
    // what appends the row.
    let mut flags = Vec::new();
    loop {
        let start = at;
        let op = *b.get(at).ok_or("a line sequence with no end")?;
        at += 1;
        // The row ends here (special opcodes, copy, end_sequence) with its advances.
        let mut ends: Option<Vec<u8>> = None;
        if op >= h.opcode_base {
            let adjusted = op - h.opcode_base;
            advance += u64::from(adjusted / h.line_range) * h.min_inst;
            line += i64::from(h.line_base) + i64::from(adjusted % h.line_range);
            ends = Some(Vec::new());
        } else {
            match op {
                0 => {
                    let (len, body) = uleb(b, at)?;
                    let sub = *b.get(body).ok_or("a damaged line table")?;
                    let end = body + len as usize;
                    let bytes = b.get(start..end).ok_or("a damaged line table")?;
                    at = end;
                    match sub {
                        1 => ends = Some(bytes.to_vec()),
                        2 => return Err("a second DW_LNE_set_address in one sequence".into()),
                        _ => others.extend_from_slice(bytes),
                    }
                }
                1 => ends = Some(vec![1]),
                2 => {
                    let (units, next) = uleb(b, at)?;
                    advance += units * h.min_inst;
                    at = next;
                }
                3 => {
                    let (v, next) = sleb(b, at)?;
                    line += v;
                    at = next;
                }
                8 | 9 => return Err("a DW_LNS_const_add_pc or fixed_advance_pc".into()),
                7 | 10 | 11 => flags.push(op),
                _ => {
                    let args = h.std_lengths.get(usize::from(op) - 1).copied().unwrap_or(0);
                    for _ in 0..args {
                        at = uleb(b, at)?.1;
                    }
                    others.extend_from_slice(&b[start..at]);
                }
            }
        }
        let Some(terminator) = ends else {
            continue;
        };
        let moved = new(loc + advance)? - new(loc)?;
        let end_sequence = terminator.len() > 1;
        if moved == advance {
            out.extend_from_slice(&b[row_start..at]);
        } else {
            if moved % h.min_inst != 0 {
                return Err("a row moved off the instruction grid".into());
            }
            out.extend_from_slice(&others);
            let units = moved / h.min_inst;
            let adjusted = line - i64::from(h.line_base);
            let special = (0..i64::from(h.line_range))
                .contains(&adjusted)
                .then(|| {
                    adjusted as u64 + u64::from(h.line_range) * units + u64::from(h.opcode_base)
                })
                .filter(|&op| op <= 255);
            match (end_sequence, special) {
                (false, Some(op)) => {
                    out.extend_from_slice(&flags);
                    out.push(op as u8);
                }
                _ => {
                    if line != 0 {
                        out.push(3);
                        push_sleb(&mut out, line);
                    }
                    if units != 0 || !end_sequence {
                        out.push(2);
                        push_sleb(&mut out, units as i64);
                    }
                    out.extend_from_slice(&flags);
                    out.extend_from_slice(if end_sequence { &terminator } else { &[1] });
                }
            }
        }
        loc += advance;
        if end_sequence {
            return Ok((out, at));
        }
        (row_start, advance, line) = (at, 0, 0);
        others.clear();
        flags.clear();
    }
}

fn sleb(b: &[u8], at: usize) -> Result<(i64, usize)> {
    let (mut v, mut shift, mut at) = (0i64, 0u32, at);
    loop {
        let byte = *b.get(at).ok_or("a damaged line table")?;
        at += 1;
        v |= i64::from(byte & 0x7f) << shift.min(63);
        shift += 7;
        if byte & 0x80 == 0 {
            if shift < 64 && byte & 0x40 != 0 {
                v |= -1i64 << shift;
            }
            return Ok((v, at));
        }
    }
}

fn push_sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
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
            line_base: -5,
            line_range: 14,
            opcode_base: 13,
            std_lengths: vec![0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1],
        }
    }

    #[test]
    fn rows_after_removed_instructions_move_up_and_the_end_stays_with_the_code() {
        // advance_pc 0xa0, copy; advance_pc 0x90 (to 0x130), copy; advance_pc 0x150 (to the
        // end), end_sequence. Moved advances are written as signed LEB128 (64: c0 00).
        let program = [2, 0xa0, 0x01, 1, 2, 0x90, 0x01, 1, 2, 0xd0, 0x02, 0, 1, 1];
        let (out, end) = reencoded(&program, 0, &header(), &edit()).unwrap();
        assert_eq!(end, program.len());
        assert_eq!(
            out,
            [2, 0xa0, 0x01, 1, 2, 0xc0, 0x00, 1, 2, 0xa0, 0x03, 0, 1, 1]
        );
    }

    #[test]
    fn a_moved_row_becomes_a_special_opcode_where_one_holds_it() {
        // advance_pc 0x90, copy; advance_line -2, advance_pc 0x60 (to 0xf0, past the removed
        // run: now 0x10 after 0x90), copy: special opcode (-2 + 5) + 14 × 0x10 + 13.
        let program = [2, 0x90, 0x01, 1, 3, 0x7e, 2, 0xe0, 0x00, 1, 0, 1, 1];
        let (out, _) = reencoded(&program, 0, &header(), &edit()).unwrap();
        assert_eq!(out[..5], [2, 0x90, 0x01, 1, 3 + 14 * 0x10 + 13]);
    }

    #[test]
    fn a_row_no_special_opcode_holds_becomes_line_pc_and_copy() {
        // advance_line -2, advance_pc 0x10 (0x90 → 0xa0, the first removed instruction), copy;
        // then advance_pc 0x90 to 0x130 (now 0xe0: 0x40 from 0xa0): no line move, no special
        // opcode of 0x40 fits (5 + 14 × 0x40 + 13 > 255): advance_pc c0 00, copy.
        let program = [2, 0x90, 0x01, 1, 2, 0x90, 0x01, 1, 0, 1, 1];
        let (out, _) = reencoded(&program, 0, &header(), &edit()).unwrap();
        assert_eq!(out[4..8], [2, 0xc0, 0x00, 1]);
        let mut bytes = Vec::new();
        push_sleb(&mut bytes, 0x30);
        push_sleb(&mut bytes, -2);
        assert_eq!(bytes, [0x30, 0x7e], "as nvlink writes 0x30 and -2");
    }

    #[test]
    fn a_moved_rows_flags_stay_just_before_what_appends_it() {
        // advance_pc 0x130 (now 0xe0), set_prologue_end, end_sequence.
        let program = [2, 0xb0, 0x02, 10, 0, 1, 1];
        let (out, _) = reencoded(&program, 0, &header(), &edit()).unwrap();
        assert_eq!(out, [2, 0xe0, 0x01, 10, 0, 1, 1]);
    }

    #[test]
    fn a_sequence_without_its_end_is_an_error_not_a_panic() {
        let program = [2, 0x90, 0x01, 1];
        assert!(reencoded(&program, 0, &header(), &edit()).is_err());
    }
}
