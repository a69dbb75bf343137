//! sm_100+ line tables: `.debug_line` and `.nv_debug_line_sass` (code compiled with
//! `-lineinfo` or `-G`).
//!
//! Observed from nvlink 13.5 (black-box, sm_100/sm_120; testdata line_table_order,
//! line_table_cut and line_table_cut_g, found by scripts/fuzz-equiv seeds 5 and 8):
//! - each object's line program is a list of sequences (each from a `DW_LNE_set_address`,
//!   relocated against its function, to its `DW_LNE_end_sequence`); nvlink copies them
//!   byte for byte, but
//! - cuts out the sequences of functions the link removes (unreachable ones in a final link,
//!   and in every link the copies of weak functions discarded for an earlier object's), and
//!   shortens the unit's length to match; a unit left with no sequence gets a lone
//!   `DW_LNE_end_sequence`;
//! - puts each unit's kept sequences in the order of their functions in the output symbol
//!   table (locals first), whatever order ptxas wrote them in (its is neither the symbols'
//!   nor the sections'), in final and `-r` links alike;
//! - keeps the relocations of what stays, in the order of their offsets.
//!
//! The Mercury halves (`.nv.merc.debug_line`, ...) are kept whole (a removed function's
//! sequence loses its relocation and keeps address 0), as are the line tables of sm_75–sm_90,
//! which nvlink neither cuts nor sorts. Anything in a line table this does not follow (other
//! DWARF versions, relocations outside `DW_LNE_set_address`, sequences of no function) is
//! refused.

use super::Builder;
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::object::{InputObject, SectionKind};
use crate::output::{Content, OutSym};

/// Whether sections of this name are line tables this module rewrites (sm_100+).
pub(crate) fn is_line_table(name: &[u8]) -> bool {
    matches!(name, b".debug_line" | b".nv_debug_line_sass")
}

/// An input line table as the output holds it.
#[derive(Debug, Clone)]
pub(crate) struct Rewrite {
    pub bytes: Vec<u8>,
    /// Kept pieces: (input start, input end, output start), by input start.
    pieces: Vec<(u64, u64, u64)>,
    /// Where `.debug_line` headers hold the unit's base in `.debug_str` (in `bytes`).
    str_bases: Vec<usize>,
}

impl Rewrite {
    /// Where input offset `off` went; `None` when it was cut out.
    pub(crate) fn new_offset(&self, off: u64) -> Option<u64> {
        let i = self.pieces.partition_point(|p| p.0 <= off);
        let &(start, end, to) = self.pieces.get(i.checked_sub(1)?)?;
        (off < end).then_some(to + (off - start))
    }
}

/// A DWARF line program's unit header fields this needs.
struct Unit {
    start: usize,
    /// Offset of the length field's value and its width (4 or 8 bytes).
    length_at: usize,
    length_width: usize,
    program: usize,
    end: usize,
    opcode_base: u8,
    standard_lengths: Vec<u8>,
    /// Bytes after the file table, before the program: ptxas's `.debug_line` headers end
    /// with 4, the unit's base in `.debug_str` (what its inlined-call records' names count
    /// from), when it has inlined calls.
    tail: usize,
}

fn le(b: &[u8], at: usize, width: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(width)?)?;
    let mut v = [0u8; 8];
    v[..width].copy_from_slice(s);
    Some(u64::from_le_bytes(v))
}

/// The end of the LEB128 number at `at`.
fn leb_end(b: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let x = *b.get(at)?;
        at += 1;
        if x & 0x80 == 0 {
            return Some(at);
        }
    }
}

fn uleb(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let end = leb_end(b, at)?;
    let mut v = 0u64;
    for (k, &x) in b[at..end].iter().enumerate() {
        if k < 10 {
            v |= u64::from(x & 0x7f) << (7 * k);
        }
    }
    Some((v, end))
}

fn units(b: &[u8]) -> std::result::Result<Vec<Unit>, String> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < b.len() {
        let bad = |what: &str| format!("unit at {at:#x}: {what}");
        let len32 = le(b, at, 4).ok_or_else(|| bad("truncated length"))?;
        let (length_at, w) = if len32 == 0xffff_ffff {
            (at + 4, 8)
        } else if len32 >= 0xffff_fff0 {
            return Err(bad("reserved length value"));
        } else {
            (at, 4)
        };
        let len = le(b, length_at, w).ok_or_else(|| bad("truncated length"))?;
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| (length_at + w).checked_add(l))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| bad("length past the section's end"))?;
        let version = le(b, length_at + w, 2).ok_or_else(|| bad("truncated header"))?;
        if !(2..=4).contains(&version) {
            return Err(bad(&format!("DWARF version {version}")));
        }
        let hl_at = length_at + w + 2;
        let header_length = le(b, hl_at, w).ok_or_else(|| bad("truncated header"))?;
        let fields = hl_at + w;
        let program = usize::try_from(header_length)
            .ok()
            .and_then(|h| fields.checked_add(h))
            .filter(|&p| p <= end)
            .ok_or_else(|| bad("header past the unit's end"))?;
        // minimum_instruction_length, (v4: maximum_operations_per_instruction),
        // default_is_stmt, line_base, line_range, opcode_base.
        let base_at = fields + if version >= 4 { 5 } else { 4 };
        // (a byte of the header, before the line program)
        let header_byte = |p: usize| {
            b.get(p)
                .copied()
                .filter(|_| p < program)
                .ok_or_else(|| bad("truncated header"))
        };
        let opcode_base = header_byte(base_at)?;
        let lengths = b
            .get(base_at + 1..base_at + usize::from(opcode_base.max(1)))
            .filter(|_| base_at + usize::from(opcode_base) <= program)
            .ok_or_else(|| bad("truncated header"))?;
        // include_directories: strings up to an empty one; file_names: (string, ULEB dir,
        // ULEB time, ULEB size) up to an empty string.
        let mut p = base_at + usize::from(opcode_base.max(1));
        let string_end = |p: usize| -> Option<usize> {
            let n = b.get(p..program)?.iter().position(|&x| x == 0)?;
            Some(p + n + 1)
        };
        while header_byte(p)? != 0 {
            p = string_end(p).ok_or_else(|| bad("truncated directory table"))?;
        }
        p += 1;
        while header_byte(p)? != 0 {
            p = string_end(p).ok_or_else(|| bad("truncated file table"))?;
            for _ in 0..3 {
                p = leb_end(b, p)
                    .filter(|&e| e <= program)
                    .ok_or_else(|| bad("truncated file table"))?;
            }
        }
        p += 1;
        out.push(Unit {
            start: at,
            length_at,
            length_width: w,
            program,
            end,
            opcode_base,
            standard_lengths: lengths.to_vec(),
            tail: program - p,
        });
        at = end;
    }
    Ok(out)
}

/// A sequence: its extent and where its `DW_LNE_set_address` operands are.
struct Sequence {
    start: usize,
    end: usize,
    addresses: Vec<usize>,
}

fn sequences(b: &[u8], u: &Unit) -> std::result::Result<Vec<Sequence>, String> {
    let mut out = Vec::new();
    let mut at = u.program;
    let mut cur = Sequence {
        start: at,
        end: at,
        addresses: Vec::new(),
    };
    let bad = |at: usize, what: &str| format!("line program op at {at:#x}: {what}");
    while at < u.end {
        let op = b[at];
        let next = if op >= u.opcode_base {
            at + 1
        } else if op == 0 {
            let (len, body) = uleb(b, at + 1).ok_or_else(|| bad(at, "truncated"))?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|l| body.checked_add(l))
                .filter(|&e| e <= u.end && len > 0)
                .ok_or_else(|| bad(at, "extended op past the unit's end"))?;
            match b[body] {
                // DW_LNE_end_sequence
                1 => {
                    cur.end = end;
                    out.push(std::mem::replace(
                        &mut cur,
                        Sequence {
                            start: end,
                            end,
                            addresses: Vec::new(),
                        },
                    ));
                }
                // DW_LNE_set_address
                2 => cur.addresses.push(body + 1),
                _ => {}
            }
            end
        } else if op == 9 {
            // DW_LNS_fixed_advance_pc: a uhalf.
            at + 3
        } else {
            let n = u.standard_lengths[usize::from(op) - 1];
            let mut p = at + 1;
            for _ in 0..n {
                p = leb_end(b, p).ok_or_else(|| bad(at, "truncated operand"))?;
            }
            p
        };
        if next > u.end {
            return Err(bad(at, "past the unit's end"));
        }
        at = next;
    }
    if cur.start != u.end {
        return Err(format!(
            "line program bytes {:#x}..{:#x} end no sequence",
            cur.start, u.end
        ));
    }
    Ok(out)
}

/// The relocations of line table `si` of `o`, (offset, symbol) by offset: R_CUDA_64
/// without addend, the one kind this knows (the address of a sequence's function).
fn line_table_relocs(
    o: &InputObject<'_>,
    si: usize,
) -> std::result::Result<Vec<(u64, u32)>, String> {
    let mut relocs: Vec<(u64, u32)> = Vec::new();
    for r in &o.cubin.sections {
        if o.kind(r) != SectionKind::Reloc || r.info as usize != si {
            continue;
        }
        let list = o.cubin.relocations(r).map_err(|e| e.to_string())?;
        for x in list {
            if x.addend.is_some_and(|a| a != 0) || x.r_type != crate::reloc::table::cuda::R_64 {
                return Err(format!(
                    "relocation at {:#x} of type {:#x} with addend {:?} (only R_CUDA_64 \
                     against a function is known)",
                    x.offset, x.r_type, x.addend
                ));
            }
            relocs.push((x.offset, x.sym));
        }
    }
    relocs.sort_unstable();
    Ok(relocs)
}

impl Rewrite {
    /// Appends unit `u` of input `b`: its header, then the `kept` sequences in order, with
    /// its length field made to match. A unit that had sequences and keeps none gets a lone
    /// `DW_LNE_end_sequence`, as nvlink leaves it.
    fn append_unit(
        &mut self,
        b: &[u8],
        u: &Unit,
        kept: &[((u8, OutSym), &Sequence)],
        had_sequences: bool,
    ) {
        let unit_at = self.bytes.len();
        self.pieces
            .push((u.start as u64, u.program as u64, unit_at as u64));
        self.bytes.extend_from_slice(&b[u.start..u.program]);
        for (_, q) in kept {
            self.pieces
                .push((q.start as u64, q.end as u64, self.bytes.len() as u64));
            self.bytes.extend_from_slice(&b[q.start..q.end]);
        }
        if kept.is_empty() && had_sequences {
            self.bytes.extend_from_slice(&[0, 1, 1]);
        }
        let at = unit_at + (u.length_at - u.start);
        let len = (self.bytes.len() - (at + u.length_width)) as u64;
        self.bytes[at..at + u.length_width].copy_from_slice(&len.to_le_bytes()[..u.length_width]);
    }
}

impl Builder<'_, '_> {
    /// sm_100+: the line tables of every object as the output holds them (see the module
    /// comment), by (object, section). Needs the output symbols and the sections kept.
    pub(crate) fn line_table_rewrites(
        &self,
    ) -> Result<hashbrown::HashMap<(ObjectId, usize), Rewrite>> {
        let mut out = hashbrown::HashMap::new();
        if !self.m.mercury {
            return Ok(out);
        }
        for (oi, o) in crate::object::enumerated(self.p.objects) {
            for (si, s) in o.cubin.sections.iter().enumerate() {
                if !is_line_table(s.name) || !self.p.live[oi][si] {
                    continue;
                }
                let rw = self.rewrite_line_table(oi, si).map_err(|what| {
                    Error::not_implemented(format!(
                        "'{}': section '{}': {what}; cutting and ordering such sm_100+ line \
                         tables",
                        o.name,
                        s.name_str()
                    ))
                })?;
                out.insert((oi, si), rw);
            }
        }
        Ok(out)
    }

    fn rewrite_line_table(&self, oi: ObjectId, si: usize) -> std::result::Result<Rewrite, String> {
        let o = &self.p.objects[oi];
        let b = o.cubin.sections[si].bytes();
        let relocs = line_table_relocs(o, si)?;
        let is_debug_line = o.cubin.sections[si].name == b".debug_line";
        let mut rw = Rewrite {
            bytes: Vec::with_capacity(b.len()),
            pieces: Vec::new(),
            str_bases: Vec::new(),
        };
        let mut used = 0usize;
        for u in units(b)? {
            match u.tail {
                0 => {}
                4 if is_debug_line => rw
                    .str_bases
                    .push(rw.bytes.len() + (u.program - 4 - u.start)),
                n => {
                    return Err(format!(
                        "the header of the unit at {:#x} ends with {n} unknown byte(s)",
                        u.start
                    ))
                }
            }
            let seqs = sequences(b, &u)?;
            // (sort key, sequence) of the kept ones.
            let mut kept: Vec<((u8, OutSym), &Sequence)> = Vec::new();
            for q in &seqs {
                let lo = relocs.partition_point(|r| r.0 < q.start as u64);
                let hi = relocs.partition_point(|r| r.0 < q.end as u64);
                let rs = &relocs[lo..hi];
                used += rs.len();
                if let Some(key) = self.sequence_key(oi, q, rs, seqs.len() == 1)? {
                    kept.push((key, q));
                }
            }
            kept.sort_by_key(|k| k.0);
            rw.append_unit(b, &u, &kept, !seqs.is_empty());
        }
        if used != relocs.len() {
            return Err("relocations outside every sequence".to_string());
        }
        rw.pieces.sort_unstable();
        Ok(rw)
    }

    /// Where sequence `q` of object `oi`, relocated by `rs`, goes among its unit's: the rank
    /// of its function's output symbol (the symbol table lists locals first, then locals
    /// listed as globals); `None` when the link removes the function. `only` says whether it
    /// is its unit's only sequence.
    fn sequence_key(
        &self,
        oi: ObjectId,
        q: &Sequence,
        rs: &[(u64, u32)],
        only: bool,
    ) -> std::result::Result<Option<(u8, OutSym)>, String> {
        let &[(off, sym)] = rs else {
            // A lone end (what nvlink leaves of a unit it emptied) stays as it is.
            if rs.is_empty() && q.addresses.is_empty() && only {
                return Ok(Some((0, OutSym::new(0))));
            }
            return Err(format!(
                "the sequence at {:#x} has {} relocation(s), not one",
                q.start,
                rs.len()
            ));
        };
        if q.addresses != [off as usize] {
            return Err(format!(
                "the sequence at {:#x} has its relocation at {off:#x}, not at its one \
                 DW_LNE_set_address",
                q.start
            ));
        }
        let is = self.p.objects[oi]
            .symbols()
            .get(sym as usize)
            .ok_or_else(|| format!("relocation at {off:#x}: no symbol {sym}"))?;
        let name = String::from_utf8_lossy(is.name);
        let (STT_FUNC, SymSection::Index(ts)) = (is.st_type, is.section) else {
            return Err(format!(
                "the sequence at {:#x} is for '{name}', not a function of the object",
                q.start
            ));
        };
        if self.p.replaced_by_later_definition(oi, ts as usize) {
            return Err(format!(
                "the sequence at {:#x} is for '{name}', replaced by a later object's \
                 definition",
                q.start
            ));
        }
        if self.p.removed_function(oi, sym, true) || self.p.discarded_copy(oi, sym, true) {
            return Ok(None);
        }
        let out = self
            .p
            .out_sym(oi, sym)
            .ok_or_else(|| format!("'{name}' has no output symbol"))?;
        let class = if self.m.listed_as_local(out) {
            0
        } else if self.m.is_local(out) {
            1
        } else {
            2
        };
        Ok(Some((class, out)))
    }

    /// sm_100+: a compiler's `.debug_line` header that holds its unit's base in
    /// `.debug_str` gets where the link put the object's `.debug_str` (a partial link's
    /// headers are left as they are, as nvlink leaves them).
    pub(crate) fn patch_line_string_bases(&mut self) -> Result<()> {
        let mut patches: Vec<(crate::output::OutSec, usize, u32)> = Vec::new();
        for (&(oi, si), rw) in &self.p.line_rewrites {
            let o = &self.p.objects[oi];
            if rw.str_bases.is_empty() || o.made_by_linker() {
                continue;
            }
            let Some(at) = self.p.placed[oi][si] else {
                continue;
            };
            let base = o
                .cubin
                .sections
                .iter()
                .position(|s| s.name == b".debug_str")
                .and_then(|ds| self.p.placed[oi][ds])
                .ok_or_else(|| {
                    Error::not_implemented(format!(
                        "'{}': '.debug_line' holds a base in '.debug_str', which the object \
                         has no kept section of; such line tables",
                        o.name
                    ))
                })?;
            for &f in &rw.str_bases {
                patches.push((at.sec, at.offset as usize + f, base.offset as u32));
            }
        }
        for (sec, at, v) in patches {
            if let Content::Bytes(b) = &mut self.m.sections[sec].content {
                if let Some(f) = b.get_mut(at..at + 4) {
                    let old = u32::from_le_bytes([f[0], f[1], f[2], f[3]]);
                    f.copy_from_slice(&old.wrapping_add(v).to_le_bytes());
                }
            }
        }
        Ok(())
    }
}

impl super::Placement<'_, '_> {
    /// The output offset of input offset `off` of a line table rewritten here (`None`:
    /// cut out); `off` itself for any other section.
    pub(crate) fn line_table_offset(&self, oi: ObjectId, si: usize, off: u64) -> Option<u64> {
        match self.line_rewrites.get(&(oi, si)) {
            Some(rw) => rw.new_offset(off),
            None => Some(off),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_pieces() {
        let rw = Rewrite {
            bytes: Vec::new(),
            pieces: vec![(0, 10, 0), (10, 20, 30), (30, 40, 10)],
            str_bases: Vec::new(),
        };
        assert_eq!(rw.new_offset(5), Some(5));
        assert_eq!(rw.new_offset(12), Some(32));
        assert_eq!(rw.new_offset(25), None);
        assert_eq!(rw.new_offset(39), Some(19));
        assert_eq!(rw.new_offset(40), None);
    }

    /// A v3 unit with two sequences of 17 bytes each, and where its program starts.
    fn two_sequence_unit() -> (Vec<u8>, usize) {
        // unit_length, version 3, header_length, min_inst 1, default_is_stmt 1,
        // line_base -5, line_range 14, opcode_base 13, standard lengths, no dirs/files.
        let mut u = vec![0, 0, 0, 0, 3, 0, 0, 0, 0, 0];
        let hdr = [
            1u8, 1, 0xfb, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0,
        ];
        u.extend_from_slice(&hdr);
        u[6] = hdr.len() as u8;
        let prog = u.len();
        // set_address 0, copy, advance_pc 16, end_sequence; twice.
        for _ in 0..2 {
            u.extend_from_slice(&[0, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 16, 0, 1, 1]);
        }
        let len = (u.len() - 4) as u32;
        u[..4].copy_from_slice(&len.to_le_bytes());
        (u, prog)
    }

    #[test]
    fn parses_a_v3_unit() {
        let (u, prog) = two_sequence_unit();
        let us = units(&u).unwrap();
        assert_eq!(us.len(), 1);
        assert_eq!(us[0].program, prog);
        let qs = sequences(&u, &us[0]).unwrap();
        assert_eq!(qs.len(), 2);
        assert_eq!(qs[0].addresses, vec![prog + 3]);
        assert_eq!(qs[1].start, prog + 17);
        assert_eq!(qs[1].end, u.len());
    }

    #[test]
    fn a_unit_is_rewritten_with_its_kept_sequences_in_the_order_given() {
        let (u, prog) = two_sequence_unit();
        let us = units(&u).unwrap();
        let qs = sequences(&u, &us[0]).unwrap();
        let mut rw = Rewrite {
            bytes: vec![0xaa; 5],
            pieces: Vec::new(),
            str_bases: Vec::new(),
        };
        rw.append_unit(
            &u,
            &us[0],
            &[((0, OutSym::new(1)), &qs[1]), ((0, OutSym::new(2)), &qs[0])],
            true,
        );
        let mut want = vec![0xaa; 5];
        want.extend_from_slice(&u[..prog]);
        want.extend_from_slice(&u[prog + 17..]);
        want.extend_from_slice(&u[prog..prog + 17]);
        // (The length field is unchanged: the same bytes, reordered.)
        assert_eq!(rw.bytes, want);
        let prog = prog as u64;
        let pieces = vec![
            (0, prog, 5),
            (prog + 17, prog + 34, 5 + prog),
            (prog, prog + 17, 5 + prog + 17),
        ];
        assert_eq!(rw.pieces, pieces);
    }

    #[test]
    fn a_unit_left_without_sequences_gets_a_lone_end_sequence() {
        let (u, prog) = two_sequence_unit();
        let us = units(&u).unwrap();
        let mut rw = Rewrite {
            bytes: Vec::new(),
            pieces: Vec::new(),
            str_bases: Vec::new(),
        };
        rw.append_unit(&u, &us[0], &[], true);
        let mut want = u[..prog].to_vec();
        want.extend_from_slice(&[0, 1, 1]);
        want[..4].copy_from_slice(&((prog + 3 - 4) as u32).to_le_bytes());
        assert_eq!(rw.bytes, want);
    }
}
