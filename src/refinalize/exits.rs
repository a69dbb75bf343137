//! sm_100+ links under `-g` (`-r` too): the barriers nvlink's finalizer puts before every
//! exit of a kernel compiled without `-G`, for the debugger.
//!
//! Black-box (docs/research/debug-exits.md; testdata/src/debug_exits): before each
//! `[@P] EXIT` come `[@P] MEMBAR.SC.VC`, `[@P] ERRBAR`, `[@P] CGAERRBAR` (the exit's guard),
//! which `-G` code has from ptxas; every later instruction moves down, as the fence
//! clean-up's moves up (`super`): branch targets (an exit's place starts at its first
//! barrier), `.nv.info` offsets (the exit itself), relocations, the frame, the kernel's size
//! (padded again). In the capsule the exit, carried by the SASS before, gets a record: the
//! `51 02` prefix (the three barriers) and `01 11 00 0a`, its guard and its predicate
//! operand. Nothing else changes (`.nv.merc.*` included); nvlink also re-schedules the
//! kernel, which cubin-ld does not (docs/differences.md).

use super::{flow, instructions, retarget, words, Edit, Mode, Result, NOP};
use crate::elf::read::{Cubin, Section};
use crate::reloc::capsule::trailing_nops;

/// `EXIT`'s opcode (low 12 bits).
const EXIT: u64 = 0x94d;
/// The barriers, in order, as nvlink writes them with the `PT` guard (bits 12–15 of the
/// low word), scheduling bits included.
const BARRIERS: [(u64, u64); 3] = [
    (0x7992, 0x000f_c000_0000_5000), // MEMBAR.SC.VC
    (0x79ab, 0x000f_c000_0000_0000), // ERRBAR
    (0x75ab, 0x000f_ec00_0000_0000), // CGAERRBAR
];
/// The operand bits of an exit's high word that are not its predicate operand (bits 23–26).
const OTHER_OPERANDS: u64 = ((1 << 41) - 1) & !(0xf << 23);
/// The prefix of the exit's record: three SASS instructions before it.
const PREFIX: [u8; 2] = [0x51, 0x02];

pub(super) fn is_exit(lo: u64) -> bool {
    lo & 0xfff == EXIT
}

/// Whether `lo` is the first barrier (`MEMBAR.SC.VC`, any guard).
pub(super) fn is_barrier(lo: u64) -> bool {
    lo & !0xf000 == BARRIERS[0].0 & !0xf000
}

/// What a release link (no -g) takes from an exit's barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// Outside debug links (no input compiled with -G) code that has them (a `-r -g`
    /// output) loses all three, in every function, and the exit its capsule record: the
    /// code is ptxas's again.
    Strip,
    /// In a debug link a kernel that calls nothing loses the `MEMBAR.SC.VC` (the record's
    /// prefix then counts two instructions: `d1 01`).
    Membar,
}

impl Change {
    /// The instructions that go, for the exit at `exit`.
    pub(super) fn dropped(self, exit: usize) -> std::ops::Range<usize> {
        match self {
            Change::Strip => exit - 3..exit,
            Change::Membar => exit - 3..exit - 2,
        }
    }
}

/// The exits a release link changes (black-box: docs/research/debug-exits.md, "Without -g").
pub(super) fn release_changes(
    code: &[[u8; 16]],
    debug_link: bool,
    leaf_kernel: bool,
) -> Vec<(usize, Change)> {
    let change = match (debug_link, leaf_kernel) {
        (false, _) => Change::Strip,
        (true, true) => Change::Membar,
        (true, false) => return Vec::new(),
    };
    (0..code.len())
        .filter(|&k| is_exit(words(&code[k]).0) && guarded(code, k))
        .map(|k| (k, change))
        .collect()
}

/// The capsule edits of a release link's exit changes: byte ranges replaced (the exit's
/// record gone, or its prefix rewritten) and the Mercury instructions the SASS alone carries
/// again. The debugger's exit records (`51 02 01 11 00 0a …`) pair with the exits in order
/// (the alignment of -G capsules with their SASS is not known; this needs none).
pub(super) fn release_splices(
    capsule: &[u8],
    exits: &[(usize, Change)],
) -> Result<(Vec<super::Splice>, Vec<usize>)> {
    if exits.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let spans = crate::reloc::capsule::record_spans(capsule).map_err(|w| {
        let (crate::reloc::capsule::CapsuleError::Damaged(w)
        | crate::reloc::capsule::CapsuleError::Unknown(w)) = w;
        w
    })?;
    let records: Vec<_> = spans
        .into_iter()
        .filter(|s| {
            capsule[s.start..s.body] == PREFIX
                && capsule.get(s.body..s.body + 4) == Some(&[1, 0x11, 0, 0x0a])
        })
        .collect();
    if records.len() != exits.len() {
        return Err(format!(
            "its capsule ({} exit record(s) of the debugger's for {} exit(s))",
            records.len(),
            exits.len()
        ));
    }
    let (mut splices, mut carried) = (Vec::new(), Vec::new());
    for (&(_, change), span) in exits.iter().zip(records) {
        match change {
            Change::Strip => {
                splices.push((span.start, span.end, Vec::new()));
                carried.push(span.mercury);
            }
            Change::Membar => splices.push((span.start, span.body, vec![0xd1, 0x01])),
        }
    }
    Ok((splices, carried))
}

/// Whether instruction `k` is an exit the barriers already stand before (as in -G code).
fn guarded(code: &[[u8; 16]], k: usize) -> bool {
    let guard = words(&code[k]).0 & 0xf000;
    k >= 3
        && (0..3).all(|j| {
            let (lo, hi) = words(&code[k - 3 + j]);
            let (blo, bhi) = BARRIERS[j];
            lo & !0xf000 == blo & !0xf000 && lo & 0xf000 == guard && hi & OPERANDS == bhi & OPERANDS
        })
}

const OPERANDS: u64 = (1 << 41) - 1;

/// The edit of one kernel's code, `None` when every exit has its barriers.
pub(super) fn edit_code(text: &[u8]) -> Result<Option<Edit>> {
    let code = instructions(text);
    let before: Vec<u8> = (0..code.len())
        .map(|k| u8::from(is_exit(words(&code[k]).0) && !guarded(&code, k)) * 3)
        .collect();
    if before.iter().all(|&b| b == 0) {
        return Ok(None);
    }
    for i in &code {
        flow(words(i).0)?;
    }
    for (k, &b) in before.iter().enumerate() {
        if b > 0 {
            record(words(&code[k])).map_err(|w| format!("an exit at {:#x} {w}", 16 * k))?;
        }
    }
    let mut moved = Vec::with_capacity(code.len() + 1);
    let mut at = 0u64;
    for &b in &before {
        moved.push(at);
        at += 16 * (u64::from(b) + 1);
    }
    moved.push(at);
    let mut e = Edit {
        mode: Mode::Debug,
        code: Vec::new(),
        moved,
        before,
        old_size: text.len() as u64,
        runs: Vec::new(),
        exits: Vec::new(),
        old_padding: trailing_nops(text),
    };
    e.code = new_code(&code, &e)?;
    Ok(Some(e))
}

/// The code with the barriers before its exits, branches retargeted, padded as the
/// finalizer pads.
fn new_code(code: &[[u8; 16]], e: &Edit) -> Result<Vec<u8>> {
    let mut out: Vec<[u8; 16]> = Vec::with_capacity(code.len() + 8);
    for (k, ins) in code.iter().enumerate() {
        let (lo, hi) = words(ins);
        if e.before[k] > 0 {
            out.extend(BARRIERS.map(|(blo, bhi)| join((blo & !0xf000) | (lo & 0xf000), bhi)));
        }
        let (lo, hi) = retarget((lo, hi), k, e)?;
        out.push(join(lo, hi));
    }
    let real = out.len() - trailing_nops(out.as_flattened());
    out.truncate(real);
    out.resize((real + 8).div_ceil(8) * 8, NOP);
    Ok(out.concat())
}

fn join(lo: u64, hi: u64) -> [u8; 16] {
    let mut i = [0u8; 16];
    i[..8].copy_from_slice(&lo.to_le_bytes());
    i[8..].copy_from_slice(&hi.to_le_bytes());
    i
}

/// A predicate register as the capsule writes it: times 8, `PT` 0xf8 (register 31).
fn register(reg: u64) -> u8 {
    if reg == 7 {
        0xf8
    } else {
        (reg as u8) << 3
    }
}

/// The capsule entry of an exit once the barriers stand before it: after the prefix,
/// `01 11 00 0a`, the guard (+1 when negated), a byte that is 1 when the predicate operand
/// is negated, and at +11 the operand's register (black-box: nvlink -g on every guard and
/// operand, P0–P6 and PT, plain and negated).
fn record((lo, hi): (u64, u64)) -> Result<[u8; 18]> {
    if lo & !0xf000 != EXIT || hi & OTHER_OPERANDS != 0 {
        return Err("of a form not seen (operands other than a predicate)".into());
    }
    let mut r = [0u8; 18];
    r[..2].copy_from_slice(&PREFIX);
    r[2..6].copy_from_slice(&[0x01, 0x11, 0x00, 0x0a]);
    r[6] = register((lo >> 12) & 7) | ((lo >> 15) & 1) as u8;
    r[8] = ((hi >> 26) & 1) as u8;
    r[13] = register((hi >> 23) & 7);
    Ok(r)
}

/// `.nv.capmerc.text.<kernel>`: each exit's record, and the closing token for the new
/// padding.
pub(super) fn capsule(
    cubin: &Cubin<'_>,
    text: &Section<'_>,
    e: &Edit,
    out: &mut Vec<u8>,
) -> Result<()> {
    let name = [b".nv.capmerc".as_slice(), text.name].concat();
    let Some(c) = cubin.section_named(&name) else {
        return Ok(());
    };
    let old = text.bytes();
    let code = instructions(old);
    let added: Vec<(u64, [u8; 18])> = (0..code.len())
        .filter(|&k| e.before[k] > 0)
        .map(|k| Ok((k as u64, record(words(&code[k]))?)))
        .collect::<Result<_>>()?;
    let added: Vec<(u64, &[u8])> = added.iter().map(|(k, r)| (*k, &r[..])).collect();
    let bytes = c.bytes();
    if bytes.len() < 2 || bytes[bytes.len() - 2..] != super::closing_token(e.old_padding) {
        return Err("its capsule (a closing token not for its padding)".into());
    }
    let mut new = crate::reloc::capsule::with_entries(bytes, old, &added).map_err(|w| {
        let (crate::reloc::capsule::CapsuleError::Damaged(w)
        | crate::reloc::capsule::CapsuleError::Unknown(w)) = w;
        format!("its capsule ({w})")
    })?;
    let l = new.len();
    new[l - 2..].copy_from_slice(&super::closing_token(trailing_nops(&e.code)));
    super::put_section(cubin, c.index, &new, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LDG: [u8; 16] = [0x81, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x0f, 0];

    fn ins(lo: u64, hi: u64) -> [u8; 16] {
        join(lo, hi)
    }

    fn exit(guard: u64, operand: u64) -> [u8; 16] {
        ins(EXIT | guard << 12, operand << 23 | 0x000f_ea00_0000_0000)
    }

    const SELF_LOOP: (u64, u64) = (0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff);

    #[test]
    fn each_exit_gets_the_three_barriers_with_its_guard() {
        let code = [
            LDG,
            exit(0x8, 7),
            LDG,
            exit(7, 7),
            ins(SELF_LOOP.0, SELF_LOOP.1),
        ]
        .concat();
        let e = edit_code(&code).unwrap().unwrap();
        let ops: Vec<(u64, u64)> = e
            .code
            .chunks_exact(16)
            .take(11)
            .map(|i| (words(i).0 & 0xfff, (words(i).0 >> 12) & 0xf))
            .collect();
        assert_eq!(
            ops,
            [
                (0x981, 7),
                (0x992, 8),
                (0x9ab, 8),
                (0x5ab, 8),
                (EXIT, 8),
                (0x981, 7),
                (0x992, 7),
                (0x9ab, 7),
                (0x5ab, 7),
                (EXIT, 7),
                (0x947, 7)
            ]
        );
        assert_eq!(
            e.code.len(),
            16 * 24,
            "11 instructions, at least 8 NOPs, whole 128 bytes"
        );
    }

    #[test]
    fn an_exits_place_starts_at_its_first_barrier_and_the_exit_moves_past_them() {
        let code = [LDG, exit(7, 7), ins(SELF_LOOP.0, SELF_LOOP.1)].concat();
        let e = edit_code(&code).unwrap().unwrap();
        assert_eq!(
            e.at(16, true).unwrap(),
            16,
            "a branch to the exit runs the barriers"
        );
        assert_eq!(
            e.at(16, false).unwrap(),
            64,
            "EXIT_INSTR_OFFSETS names the exit"
        );
        let (lo, hi) = words(&e.code[80..96]);
        assert_eq!(
            super::super::split_field(lo, hi),
            -4,
            "the closing branch still loops"
        );
    }

    #[test]
    fn exits_with_their_barriers_are_left_alone() {
        let mut code: Vec<[u8; 16]> = BARRIERS.iter().map(|&(l, h)| ins(l, h)).collect();
        code.push(exit(7, 7));
        code.push(ins(SELF_LOOP.0, SELF_LOOP.1));
        assert!(edit_code(&code.concat()).unwrap().is_none());
    }

    #[test]
    fn the_exit_record_holds_its_guard_and_predicate_operand() {
        // nvlink -g: `@!P0 EXIT P1` → 01 … 08; `@P1 EXIT P3` → 08 … 18; `EXIT` → f8 … f8;
        // `@!P5 EXIT !P1` → 29, 01, 08; `@!PT EXIT !P0` → f9, 01, 00.
        let cases = [
            ((0x8, 1), (0x01, 0, 0x08)),
            ((1, 3), (0x08, 0, 0x18)),
            ((7, 7), (0xf8, 0, 0xf8)),
            ((0xd, 0x9), (0x29, 1, 0x08)),
            ((0xf, 0x8), (0xf9, 1, 0x00)),
        ];
        for ((guard, operand), want) in cases {
            let r = record(words(&exit(guard, operand))).unwrap();
            assert_eq!(r[..6], [0x51, 0x02, 0x01, 0x11, 0x00, 0x0a]);
            assert_eq!(
                (r[6], r[8], r[13]),
                want,
                "guard {guard:#x} operand {operand:#x}"
            );
        }
    }

    fn guarded_exit() -> Vec<[u8; 16]> {
        let mut code: Vec<[u8; 16]> = vec![LDG];
        code.extend(BARRIERS.iter().map(|&(l, h)| ins(l, h)));
        code.push(exit(7, 7));
        code
    }

    #[test]
    fn without_g_code_compiled_without_g_loses_all_three_barriers() {
        let code = guarded_exit();
        let changes = release_changes(&code, false, false);
        assert_eq!(changes, [(4, Change::Strip)], "in calling code too");
        assert_eq!(Change::Strip.dropped(4), 1..4);
    }

    #[test]
    fn without_g_a_g_kernel_that_calls_nothing_loses_the_membar_only() {
        let code = guarded_exit();
        assert_eq!(release_changes(&code, true, true), [(4, Change::Membar)]);
        assert_eq!(Change::Membar.dropped(4), 1..2);
        assert!(
            release_changes(&code, true, false).is_empty(),
            "a -G kernel that calls"
        );
    }

    #[test]
    fn exits_with_other_operands_are_refused() {
        assert!(record((EXIT | 0x7000, 1 << 30)).is_err());
    }
}
