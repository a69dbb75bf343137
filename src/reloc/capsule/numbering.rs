//! Which Mercury instruction of a capsule each SASS instruction of its function is.
//!
//! Where the finalizer only added `NOP`s, the capsule's instructions are the SASS's non-`NOP`
//! ones in order. Where it expanded instructions (grid syncs gain dummy loads and
//! out-of-line slow paths; NVSHMEM's collectives), the SASS has more, and the two sequences
//! are aligned by opcode: each record or token stands for the SASS opcodes
//! `capsule_opcodes` lists, and an instruction the SASS alone carries stands for any. On
//! NVSHMEM's reduction (56,488 capsule and 56,851 SASS instructions) this pairs every one of
//! the 1,047 relocated constant loads with a `02 22` record, and those are exactly the records
//! nvlink's `-r` writes into (docs/research/capsule-numbering.md, "Aligning by opcode").

use super::{bitmap, entry_at, instruction_count, lookup, sass_instructions, Entry, Result};
use super::{prefix_count, record_spans, Damaged, Unknown, ABSENT, DUMMY_LOAD, NOP};
use crate::reloc::capsule_opcodes::{RECORDS, TOKENS};

/// How far the alignment may stray beyond the shifts the two counts force. NVSHMEM's
/// reduction needs shifts 0 to 363 where the counts force 0 to 363; a path that reaches the
/// band's edge is refused, as it might have gone further.
const BAND: isize = 64;

/// The most cells (capsule instructions × band width) one alignment may take: 256 MiB of
/// traceback, far beyond any toolkit function seen (NVSHMEM's largest: 28 M).
const MAX_CELLS: usize = 1 << 28;

/// Scores: a record or token matched with one of its opcodes, an instruction either may be
/// (carried, or a key the table does not list) matched, and one left out of either sequence.
const KNOWN: i32 = 3;
const ANY: i32 = 1;
const GAP: i32 = -1;
const MISMATCH: i32 = -4;

/// Where each SASS instruction's Mercury instruction and capsule entry are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbering {
    /// Per SASS instruction up to the closing branch.
    sass: Vec<Slot>,
    /// Per Mercury instruction: its entry, `None` where the SASS alone carries it.
    entries: Vec<Option<Entry>>,
}

impl Numbering {
    /// The numbering of SASS `sass` (the function's `.text`) by capsule `code`.
    pub fn new(code: &[u8], sass: &[u8]) -> Result<Numbering> {
        let entries = entries(code)?;
        let instructions: Vec<&[u8]> = sass
            .chunks_exact(16)
            .take(sass_instructions(sass) as usize)
            .collect();
        let nop = |i: &[u8]| i[..8] == NOP;
        let nops = instructions.iter().filter(|i| nop(i)).count();
        let mut slots: Vec<Slot> = (instructions.iter())
            .map(|&i| if nop(i) { Slot::Nop } else { Slot::Added })
            .collect();
        // (A `31` record stands for a capsule instruction the SASS does not have: CUTLASS's
        // tensor-core GEMMs, where the capsule counts that many more instructions.)
        let present: Vec<usize> = (0..entries.len())
            .filter(|&k| !is_absent(code, entries[k]))
            .collect();
        let added = instructions.len().checked_sub(present.len());
        // Before each capsule instruction, at least as many SASS instructions were added as
        // the records before it announce (a fence's barriers after its record come before
        // the next instruction; an exit's slow path before the record that announces it).
        let floor: Option<Vec<usize>> = match (announced(code)?, added) {
            (Some(counts), Some(added)) if counts.iter().sum::<usize>() == added => {
                let mut before = 0;
                let all: Vec<usize> = (counts.iter())
                    .map(|c| {
                        before += c;
                        before - c
                    })
                    .collect();
                Some(present.iter().map(|&k| all[k]).collect())
            }
            _ => None,
        };
        let announced = floor.is_some();
        if added == Some(nops) || (!announced && instructions.len() - nops == present.len()) {
            // Only NOPs were added (or, where the prefixes do not tell, as many instructions
            // as NOPs): the capsule's instructions are the other ones, in order.
            let real = (0..instructions.len()).filter(|&i| !nop(instructions[i]));
            for (k, i) in real.enumerate() {
                slots[i] = Slot::Mercury(present[k] as u32);
            }
            return Ok(Numbering {
                sass: slots,
                entries,
            });
        }
        let wants: Vec<Wants> = (present.iter())
            .map(|&k| Wants::of(code, entries[k]))
            .collect();
        // Where the prefixes count every instruction the finalizer added, every capsule
        // instruction is one of the SASS's and NOPs may be ptxas's; else NOPs are left out
        // and the capsule may describe instructions the SASS lacks (NVSHMEM's 13.0 code).
        let kept: Vec<usize> = (0..instructions.len())
            .filter(|&i| announced || !nop(instructions[i]))
            .collect();
        let ops: Vec<Op> = (kept.iter()).map(|&i| Op::of(instructions[i])).collect();
        for (k, j) in align(&wants, &ops, floor.as_deref())? {
            slots[kept[j]] = Slot::Mercury(present[k] as u32);
        }
        Ok(Numbering {
            sass: slots,
            entries,
        })
    }

    /// What SASS instruction `instr` is to the capsule (`Err` past the closing branch).
    pub(super) fn slot(&self, instr: u64) -> Result<Slot> {
        self.sass.get(instr as usize).copied().ok_or_else(|| {
            Damaged(format!(
                "relocated instruction {instr} is past the function's closing branch"
            ))
        })
    }

    /// The capsule instruction SASS instruction `instr` is, if it is one.
    pub fn capsule_instruction(&self, instr: usize) -> Option<usize> {
        match self.sass.get(instr) {
            Some(Slot::Mercury(k)) => Some(*k as usize),
            _ => None,
        }
    }

    /// Mercury instruction `k`'s capsule entry (`None`: the SASS alone carries it).
    pub(super) fn entry(&self, k: u64) -> Option<Entry> {
        self.entries.get(k as usize).copied().flatten()
    }
}

/// What one SASS instruction is to the capsule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// Mercury instruction `k`.
    Mercury(u32),
    /// A `NOP` the finalizer added.
    Nop,
    /// Another instruction the finalizer added (expanded code), which no capsule entry
    /// describes.
    Added,
}

/// Per Mercury instruction, the SASS instructions the finalizer added for it, as its
/// record's prefixes count them (`prefix_count`); `None` where a prefix of another kind
/// says nothing.
fn announced(code: &[u8]) -> Result<Option<Vec<usize>>> {
    let mut counts = vec![0usize; instruction_count(code)? as usize];
    for span in record_spans(code)? {
        for p in (span.start..span.body).step_by(2) {
            match prefix_count([code[p], code[p + 1]]) {
                Some(c) => counts[span.mercury] += c,
                None => return Ok(None),
            }
        }
    }
    Ok(Some(counts))
}

/// Whether an entry is a `31` record: a capsule instruction without a SASS one.
fn is_absent(code: &[u8], entry: Option<Entry>) -> bool {
    matches!(entry, Some(Entry::Record(body)) if code.get(body) == Some(&ABSENT))
}

/// Each Mercury instruction's entry, walked once.
fn entries(code: &[u8]) -> Result<Vec<Option<Entry>>> {
    let n = instruction_count(code)?;
    let (bitmap, mut at) = bitmap(code, n)?;
    (0..n as usize)
        .map(|i| {
            if bitmap[i / 8] & (1 << (i % 8)) != 0 {
                return Ok(None);
            }
            let (entry, next) = entry_at(code, at)?;
            at = next;
            Ok(Some(entry))
        })
        .collect()
}

/// What a Mercury instruction may be paired with.
#[derive(Debug, Clone, Copy)]
enum Wants {
    Opcodes(&'static [u16]),
    Any,
}

impl Wants {
    fn of(code: &[u8], entry: Option<Entry>) -> Wants {
        let listed = match entry {
            None => None,
            Some(Entry::Token(t)) => lookup(TOKENS, &t.to_be_bytes()),
            Some(Entry::Record(body)) => match code.get(body..body + 3) {
                Some(&[a, b, c]) => lookup(RECORDS, &[a, b, c]),
                _ => None,
            },
        };
        listed.map_or(Wants::Any, Wants::Opcodes)
    }

    /// The score of pairing with an instruction of opcode `op`, `None` where it may not be.
    fn score(self, op: u16) -> Option<i32> {
        match self {
            Wants::Any => Some(ANY),
            Wants::Opcodes(ops) => ops.contains(&op).then_some(KNOWN),
        }
    }
}

/// A SASS instruction as the alignment sees it: its opcode, and what leaving it out costs.
#[derive(Debug, Clone, Copy)]
struct Op {
    opcode: u16,
    gap: i32,
}

impl Op {
    fn of(instruction: &[u8]) -> Op {
        // NOPs and `@!PT LDS RZ, [RZ]` are what the finalizer adds most (after calls, before
        // fences and async copies): leaving one out is free, so an instruction the SASS
        // carries pairs with another where it can.
        let lo = u64::from_le_bytes(instruction[..8].try_into().unwrap());
        let filler = instruction[..8] == NOP || lo == DUMMY_LOAD;
        Op {
            opcode: crate::reloc::opcode(instruction).unwrap_or(0),
            gap: if filler { 0 } else { GAP },
        }
    }

    #[cfg(test)]
    fn plain(opcode: u16) -> Op {
        Op { opcode, gap: GAP }
    }
}

/// Traceback moves.
const PAIR: u8 = 0;
const SKIP_MERCURY: u8 = 1;
const SKIP_SASS: u8 = 2;

/// The best global alignment of `wants` (Mercury instructions) with `ops` (SASS
/// instructions) in a band around the shifts the counts force: the pairs (Mercury, SASS
/// position), in order. With a `floor` every Mercury instruction `k` is paired, with at
/// least `floor[k]` SASS instructions left out before it.
fn align(wants: &[Wants], ops: &[Op], floor: Option<&[usize]>) -> Result<Vec<(usize, usize)>> {
    let mercury_gaps = floor.is_none();
    let (n, m) = (wants.len() as isize, ops.len() as isize);
    let lo = (m - n).min(0) - BAND;
    let hi = (m - n).max(0) + BAND;
    let width = (hi - lo + 1) as usize;
    let cells = (n as usize + 1).saturating_mul(width);
    if cells > MAX_CELLS {
        return Err(Unknown(format!(
            "aligning its {n} capsule instructions with the SASS's {m} would take {cells} cells"
        )));
    }
    const NONE: i32 = i32::MIN / 2;
    let mut trace = vec![SKIP_SASS; cells];
    let mut prev = vec![NONE; width];
    let mut cur = vec![NONE; width];
    for i in 0..=n {
        for w in 0..width {
            let j = i + lo + w as isize;
            if j < 0 || j > m {
                cur[w] = NONE;
                continue;
            }
            let (mut best, mut mv) = (if i == 0 && j == 0 { 0 } else { NONE }, PAIR);
            if i > 0 && j > 0 && prev[w] > NONE {
                let want = wants[i as usize - 1];
                let low = floor.is_some_and(|f| ((j - i) as usize) < f[i as usize - 1]);
                let s = if low {
                    None
                } else {
                    want.score(ops[j as usize - 1].opcode)
                };
                // (Where every capsule instruction is the SASS's, one whose opcode is not
                // the one its record stands for elsewhere still pairs, at a cost.)
                let s = if mercury_gaps || low {
                    s
                } else {
                    s.or(Some(MISMATCH))
                };
                if let Some(s) = s {
                    (best, mv) = (prev[w] + s, PAIR);
                }
            }
            if mercury_gaps
                && i > 0
                && w + 1 < width
                && prev[w + 1] > NONE
                && prev[w + 1] + GAP > best
            {
                (best, mv) = (prev[w + 1] + GAP, SKIP_MERCURY);
            }
            // (Where the prefixes place the added instructions, ties leave out the later
            // SASS instruction: a carried instruction pairs with the first it may, as an
            // exit before its out-of-line slow path. Elsewhere the earlier, as the
            // alignment checked on NVSHMEM's 13.0 code does.)
            if w > 0 && cur[w - 1] > NONE {
                let gap = ops[j as usize - 1].gap;
                let score = cur[w - 1] + gap;
                if score > best || (score == best && !mercury_gaps) {
                    (best, mv) = (score, SKIP_SASS);
                }
            }
            cur[w] = best;
            trace[i as usize * width + w] = mv;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let end = (m - n - lo) as usize;
    if prev[end] <= NONE {
        return Err(Unknown(format!(
            "its {n} capsule instructions do not align with the SASS's {m}"
        )));
    }
    let (mut i, mut w) = (n as usize, end);
    let mut pairs = Vec::new();
    while i > 0 || i as isize + lo + w as isize > 0 {
        if w == 0 || w == width - 1 {
            return Err(Unknown(format!(
                "aligning its {n} capsule instructions with the SASS's {m} strays more than \
                 {BAND} instructions from the counts"
            )));
        }
        let j = (i as isize + lo + w as isize) as usize;
        match trace[i * width + w] {
            PAIR if i > 0 => {
                pairs.push((i - 1, j - 1));
                i -= 1;
            }
            SKIP_MERCURY => {
                i -= 1;
                w += 1;
            }
            _ => w -= 1,
        }
    }
    pairs.reverse();
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LDC: u16 = 0xb82;
    const ADD: u16 = 0x210;

    fn ops(opcodes: &[u16]) -> Vec<Op> {
        opcodes.iter().map(|&o| Op::plain(o)).collect()
    }

    #[test]
    fn sass_instructions_the_capsule_lacks_are_left_out() {
        // Capsule: any, LDC, any; SASS: x, two added, LDC, y.
        let wants = [Wants::Any, Wants::Opcodes(&[LDC]), Wants::Any];
        let pairs = align(&wants, &ops(&[ADD, 0x947, 0x947, LDC, ADD]), None).unwrap();
        assert!(pairs.contains(&(1, 3)), "{pairs:?}");
        assert_eq!(pairs.len(), 3);
    }

    #[test]
    fn a_record_pairs_only_with_its_opcodes() {
        let wants = [Wants::Opcodes(&[LDC])];
        assert_eq!(
            align(&wants, &ops(&[ADD, LDC, ADD]), None).unwrap(),
            [(0, 1)]
        );
    }

    #[test]
    fn equal_sequences_pair_one_to_one() {
        let wants = [Wants::Any, Wants::Opcodes(&[LDC]), Wants::Any];
        assert_eq!(
            align(&wants, &ops(&[ADD, LDC, ADD]), None).unwrap(),
            [(0, 0), (1, 1), (2, 2)]
        );
    }

    #[test]
    fn an_alignment_reaching_the_bands_edge_is_refused() {
        // Every record's partner lies 70 instructions off the diagonal the counts force.
        let k = BAND as usize + 6;
        let mut wants = vec![Wants::Opcodes(&[LDC]); k];
        wants.extend(vec![Wants::Opcodes(&[ADD]); k]);
        let mut plain = ops(&[ADD]).repeat(k);
        plain.extend(ops(&[LDC]).repeat(k));
        assert!(matches!(align(&wants, &plain, None), Err(Unknown(_))));
    }

    #[test]
    fn empty_sequences_align_to_nothing() {
        assert_eq!(align(&[], &[], None).unwrap(), []);
        assert_eq!(align(&[], &ops(&[ADD]), None).unwrap(), []);
    }

    const EXIT: u16 = 0x94d;

    #[test]
    fn where_prefixes_place_the_added_instructions_a_carried_one_pairs_with_the_first_it_may() {
        // Capsule: any (the exit), any, record; SASS: exit, x, two added, record's opcode.
        let wants = [Wants::Any, Wants::Any, Wants::Opcodes(&[LDC])];
        let sass = ops(&[EXIT, ADD, ADD, ADD, LDC]);
        let pairs = align(&wants, &sass, Some(&[0, 0, 0])).unwrap();
        assert_eq!(pairs, [(0, 0), (1, 1), (2, 4)]);
    }

    #[test]
    fn instructions_a_record_announces_come_before_the_next_capsule_instruction() {
        // Capsule: record announcing one added instruction, any, any; SASS: LDC, x, y, z.
        // The added one is x (right after the record), not z as ties alone would have it.
        let wants = [Wants::Opcodes(&[LDC]), Wants::Any, Wants::Any];
        let pairs = align(&wants, &ops(&[LDC, ADD, ADD, ADD]), Some(&[0, 1, 1])).unwrap();
        assert_eq!(pairs, [(0, 0), (1, 2), (2, 3)]);
    }

    #[test]
    fn a_dummy_load_is_left_out_before_any_other_instruction() {
        let dummy = Op::of(&[0x84, 0xf9, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let sass = [Op::plain(ADD), dummy, Op::plain(ADD)];
        let pairs = align(&[Wants::Any, Wants::Any], &sass, Some(&[0, 0])).unwrap();
        assert_eq!(pairs, [(0, 0), (1, 2)]);
    }

    #[test]
    fn prefixes_count_added_instructions_odd_and_even() {
        // Three instructions: carried; a record with `51 02` (3) and `d1 01` (2); a token.
        let mut code = vec![0u8; 8];
        code.extend(3u32.to_le_bytes());
        code.extend([0b001, 0, 0, 0]);
        code.extend([0x51, 0x02, 0xd1, 0x01]);
        code.extend([0x01, 0x09].iter().chain([0u8; 14].iter()));
        code.extend([0x50, 0x08]);
        assert_eq!(announced(&code).unwrap(), Some(vec![0, 5, 0]));
    }
}
