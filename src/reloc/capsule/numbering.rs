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
use super::{Damaged, Unknown, NOP};
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
        let real: Vec<u32> = (0..instructions.len() as u32)
            .filter(|&i| instructions[i as usize][..8] != NOP)
            .collect();
        let mut sass: Vec<Slot> = instructions
            .iter()
            .map(|i| {
                if i[..8] == NOP {
                    Slot::Nop
                } else {
                    Slot::Added
                }
            })
            .collect();
        if real.len() == entries.len() {
            for (k, &i) in real.iter().enumerate() {
                sass[i as usize] = Slot::Mercury(k as u32);
            }
        } else {
            let wants: Vec<Wants> = entries.iter().map(|e| Wants::of(code, *e)).collect();
            let ops: Vec<u16> = real
                .iter()
                .map(|&i| crate::reloc::opcode(instructions[i as usize]).unwrap_or(0))
                .collect();
            for (k, j) in align(&wants, &ops)? {
                sass[real[j] as usize] = Slot::Mercury(k as u32);
            }
        }
        Ok(Numbering { sass, entries })
    }

    /// What SASS instruction `instr` is to the capsule (`Err` past the closing branch).
    pub(super) fn slot(&self, instr: u64) -> Result<Slot> {
        self.sass.get(instr as usize).copied().ok_or_else(|| {
            Damaged(format!(
                "relocated instruction {instr} is past the function's closing branch"
            ))
        })
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

/// Traceback moves.
const PAIR: u8 = 0;
const SKIP_MERCURY: u8 = 1;
const SKIP_SASS: u8 = 2;

/// The best global alignment of `wants` (Mercury instructions) with `ops` (the SASS's
/// non-`NOP` opcodes) in a band around the shifts the counts force: the pairs (Mercury,
/// SASS position), in order.
fn align(wants: &[Wants], ops: &[u16]) -> Result<Vec<(usize, usize)>> {
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
                if let Some(s) = wants[i as usize - 1].score(ops[j as usize - 1]) {
                    (best, mv) = (prev[w] + s, PAIR);
                }
            }
            if i > 0 && w + 1 < width && prev[w + 1] > NONE && prev[w + 1] + GAP > best {
                (best, mv) = (prev[w + 1] + GAP, SKIP_MERCURY);
            }
            if w > 0 && cur[w - 1] > NONE && cur[w - 1] + GAP > best {
                (best, mv) = (cur[w - 1] + GAP, SKIP_SASS);
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

    #[test]
    fn sass_instructions_the_capsule_lacks_are_left_out() {
        // Capsule: any, LDC, any; SASS: x, two added, LDC, y.
        let wants = [Wants::Any, Wants::Opcodes(&[LDC]), Wants::Any];
        let pairs = align(&wants, &[ADD, 0x947, 0x947, LDC, ADD]).unwrap();
        assert!(pairs.contains(&(1, 3)), "{pairs:?}");
        assert_eq!(pairs.len(), 3);
    }

    #[test]
    fn a_record_pairs_only_with_its_opcodes() {
        let wants = [Wants::Opcodes(&[LDC])];
        assert_eq!(align(&wants, &[ADD, LDC, ADD]).unwrap(), [(0, 1)]);
    }

    #[test]
    fn equal_sequences_pair_one_to_one() {
        let wants = [Wants::Any, Wants::Opcodes(&[LDC]), Wants::Any];
        assert_eq!(
            align(&wants, &[ADD, LDC, ADD]).unwrap(),
            [(0, 0), (1, 1), (2, 2)]
        );
    }

    #[test]
    fn an_alignment_reaching_the_bands_edge_is_refused() {
        // Every record's partner lies 70 instructions off the diagonal the counts force.
        let k = BAND as usize + 6;
        let mut wants = vec![Wants::Opcodes(&[LDC]); k];
        wants.extend(vec![Wants::Opcodes(&[ADD]); k]);
        let mut ops = vec![ADD; k];
        ops.extend(vec![LDC; k]);
        assert!(matches!(align(&wants, &ops), Err(Unknown(_))));
    }

    #[test]
    fn empty_sequences_align_to_nothing() {
        assert_eq!(align(&[], &[]).unwrap(), []);
        assert_eq!(align(&[], &[ADD]).unwrap(), []);
    }
}
