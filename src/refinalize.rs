//! sm_100+ final links: the fence clean-up nvlink's re-finalization does, applied to the
//! input objects' bytes before any pass reads them.
//!
//! nvlink re-finalizes every kernel that calls nothing (not under `-r` or `-g`). Besides
//! re-scheduling (kept as ptxas wrote it: docs/differences.md), the finalizer then drops what
//! ptxas writes before a fence for code that might call out: the four `@!PT LDS RZ, [RZ]` and
//! the `MEMBAR.ALL.CTA` before `MEMBAR.SC.GPU`/`.SYS`/`MEMBAR.ALL.GPU`
//! (`__threadfence()`, `_block`, `_system`, `cuda::atomic_thread_fence`, seq_cst atomics,
//! proxy fences, grid sync, cub's decoupled look-back). Every later instruction moves up:
//! branch targets, `.nv.info` instruction offsets, relocations, the frame's address range
//! and advances, `-lineinfo` line tables (`lines`), the kernel's size (padded again to whole
//! 128 bytes with at least 8 NOPs after the closing branch), and the capsule's fence prefixes
//! and closing token follow.
//! Black-box rule and evidence: docs/research/fence-refinalization.md.
//!
//! The debugger's barriers before exits move the same way: `exits` adds them under -g and
//! takes them away again without (from a `-r -g` output, and the `MEMBAR.SC.VC` of a -G
//! kernel that calls nothing, whose debug sections' addresses move too).
//!
//! Where a kernel holds something whose offsets this pass does not know how to move (an
//! indirect branch, an attribute listing offsets in an unknown shape), the link is refused,
//! naming file, kernel and construct.

use crate::control_bits::{self, stall as stall_of, STALL_SHIFT, WAIT_MASK};
use crate::diag::Error;
use crate::elf::read::Cubin;
use crate::elf::read::SymSection;
use crate::elf::{SHT_CUDA_INFO, SHT_RELA};
use crate::reloc::capsule::trailing_nops;
use std::borrow::Cow;

mod exits;
mod lines;

type Result<T> = std::result::Result<T, String>;

/// One of the two edits of an object's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Final links without -g: kernels that call nothing lose their fence preambles, and
    /// the debugger's barriers go as `exits` says.
    Release,
    /// Debug links: the exits of code compiled without -G gain the debugger's barriers
    /// (`exits`).
    Debug,
}

/// What nvlink's finalizer does to the inputs' sm_100+ code in a link, from the policy and
/// the inputs: a link is a debug one under -g or when any input was compiled with -G
/// (black-box: docs/research/debug-exits.md, "Debug links").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The debugger's barriers before every exit (a debug link, `-r` too).
    pub barriers: bool,
    /// The release clean-up (final links without -g).
    pub release: bool,
}

impl Plan {
    /// `None` before sm_100 and where nothing changes (`-r` of code without -G, no -g);
    /// `any_compiled_with_g` is asked only on sm_100+ without -g.
    pub fn new(
        policy: &crate::policy::Policy,
        any_compiled_with_g: impl FnOnce() -> bool,
    ) -> Option<Plan> {
        if !policy.mercury() {
            return None;
        }
        let plan = Plan {
            barriers: policy.debug() || any_compiled_with_g(),
            release: !policy.debug() && !policy.relocatable(),
        };
        (plan.barriers || plan.release).then_some(plan)
    }

    fn modes(self) -> impl Iterator<Item = Mode> {
        let debug = self.barriers.then_some(Mode::Debug);
        let release = self.release.then_some(Mode::Release);
        debug.into_iter().chain(release)
    }
}

/// Whether any of the user's objects was compiled with -G (holds `.debug_info`).
pub fn any_compiled_with_g(units: &[crate::input::Unit<'_>]) -> bool {
    use rayon::prelude::*;
    units
        .par_iter()
        .filter(|u| u.pending.is_none() && !u.system)
        .any(|u| crate::elf::read::has_section(&u.bytes, b".debug_info"))
}

/// Edits each unit whose code changes; the others keep their bytes. (Pending system
/// entries are decompressed later, `apply_to_system`.)
pub fn apply(units: &mut [crate::input::Unit<'_>], plan: Plan) -> std::result::Result<(), Error> {
    use rayon::prelude::*;
    units.par_iter_mut().try_for_each(|u| {
        if u.pending.is_some() {
            return Ok(());
        }
        plan.modes()
            .try_for_each(|mode| edited(&mut u.bytes, &u.name, mode, plan.barriers))
    })
}

/// The system libraries' objects, once decompressed (libcudadevrt is compiled without -G).
pub fn apply_to_system(
    bytes: &mut [Cow<'_, [u8]>],
    units: &[crate::input::Unit<'_>],
    plan: Plan,
) -> std::result::Result<(), Error> {
    use rayon::prelude::*;
    let system = &units[units.len() - bytes.len()..];
    bytes
        .par_iter_mut()
        .zip(system.par_iter())
        .try_for_each(|(b, u)| {
            plan.modes()
                .try_for_each(|mode| edited(b, &u.name, mode, plan.barriers))
        })
}

fn edited(
    bytes: &mut Cow<'_, [u8]>,
    name: &str,
    mode: Mode,
    debug_link: bool,
) -> std::result::Result<(), Error> {
    match edit(bytes, mode, debug_link) {
        Ok(Some(new)) => {
            *bytes = Cow::Owned(new);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(what) => Err(Error::not_implemented(format!("'{name}': {what}"))),
    }
}

/// What a kernel's code still holds that re-finalization drops, `None` when it holds none
/// of it (for the merge, which refuses kernels this pass did not edit; `debug_link`: an
/// input was compiled with -G).
pub fn still_to_remove(text: &[u8], debug_link: bool, mbarriers: bool) -> Option<&'static str> {
    let code = instructions(text);
    let leaf = !calls_out(&code);
    if !exits::release_changes(&code, debug_link, leaf).is_empty() {
        return Some("MEMBAR.SC.VC, ERRBAR, CGAERRBAR");
    }
    if !leaf {
        return None;
    }
    let keep = Keeps {
        dummy_loads: keeps_dummy_loads(&code),
        cta_barriers: mbarriers,
    };
    let k = (0..code.len()).find(|&k| dropped(&code, k, keep))?;
    Some(if words(&code[k]).0 == DUMMY_LOAD.0 {
        "@!PT LDS RZ, [RZ]"
    } else {
        "MEMBAR.ALL.CTA"
    })
}

/// The 64-bit words of `@!PT LDS RZ, [RZ]`, the second without its scheduling bits.
const DUMMY_LOAD: (u64, u64) = (crate::reloc::capsule::DUMMY_LOAD, 0x800);
/// `MEMBAR.ALL.CTA` (any predicate: bits 12–15 masked) and the `MEMBAR` opcode.
const CTA_BARRIER: (u64, u64) = (0x0000_0000_0000_0992, 0x8000);
const MEMBAR: u64 = 0x992;
const OPERANDS: u64 = (1 << 41) - 1;
/// The padding `NOP` (ptxas's and nvlink's, scheduling bits included).
const NOP: [u8; 16] = crate::reloc::capsule::PADDING_NOP;

/// How an instruction's opcode (its low 12 bits) takes part in control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    /// A relative target: the low 8 bits of (target − next) / 4 at bit 16, the rest at 34–81.
    Split,
    /// A relative target in bytes, signed, at bits 32–63 (`BSSY`).
    Bytes,
    /// A call: the kernel is not re-finalized.
    Call,
    /// No target.
    Plain,
    /// An indirect branch (`BRX`): the register's target (from a jump table) plus a split
    /// relative field to the function's start.
    Indirect,
}

/// Control-flow opcodes of sm_100/sm_120 code (black-box: nvdisasm of every sm_100+ object
/// of the corpus and of scripts/programs; 1,261 targets decoded).
const FLOW: &[(u64, Flow, &str)] = &[
    (0x947, Flow::Split, "BRA"),
    (0x547, Flow::Split, "BRA.U"),
    (0x948, Flow::Split, "WARPSYNC"),
    (0x348, Flow::Split, "WARPSYNC.COLLECTIVE"),
    (0x945, Flow::Bytes, "BSSY"),
    (0x943, Flow::Call, "CALL.ABS"),
    (0x343, Flow::Call, "CALL.ABS"),
    (0x944, Flow::Call, "CALL.REL"),
    (0x344, Flow::Call, "CALL.REL"),
    (0x941, Flow::Plain, "BSYNC"),
    (0x942, Flow::Plain, "BREAK"),
    (0x946, Flow::Plain, "YIELD"),
    (0x94d, Flow::Plain, "EXIT"),
    (0x950, Flow::Plain, "RET"),
    (0x95c, Flow::Plain, "BPT"),
    // (Its operand is a duration: cub's decoupled look-back waits with it;
    // testdata/programs/thrust_pipeline.)
    (0x95d, Flow::Plain, "NANOSLEEP"),
    // (The register form, `NANOSLEEP RZ`: NCCL's LSA barriers; testdata/programs/nccl_lsa_reduce.)
    (0x35d, Flow::Plain, "NANOSLEEP"),
    (0x352, Flow::Plain, "RPCMOV"),
    (0x353, Flow::Plain, "RPCMOV"),
    (0x355, Flow::Plain, "BMOV"),
    (0x356, Flow::Plain, "BMOV"),
    (0x949, Flow::Indirect, "BRX"),
];

/// An instruction's control-flow class: `None` for ordinary ones, `Err` for an opcode of
/// the control-flow family this table does not know.
fn flow(lo: u64) -> Result<Option<Flow>> {
    let op = lo & 0xfff;
    if let Some(&(_, f, _)) = FLOW.iter().find(|e| e.0 == op) {
        return Ok(Some(f));
    }
    let family = matches!(op >> 8, 3 | 5 | 9) && (0x40..=0x5f).contains(&(op & 0xff));
    if family {
        return Err(format!("a control-flow instruction of opcode {op:#05x}"));
    }
    Ok(None)
}

/// A function's code as instructions.
fn instructions(text: &[u8]) -> Vec<[u8; 16]> {
    text.chunks_exact(16)
        .map(|c| c.try_into().unwrap())
        .collect()
}

/// Whether the code calls anything (a kernel that does is not re-finalized).
fn calls_out(code: &[[u8; 16]]) -> bool {
    code.iter()
        .any(|i| flow(words(i).0) == Ok(Some(Flow::Call)))
}

fn words(i: &[u8]) -> (u64, u64) {
    (
        u64::from_le_bytes(i[..8].try_into().unwrap()),
        u64::from_le_bytes(i[8..16].try_into().unwrap()),
    )
}

/// What of a fence preamble a kernel keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Keeps {
    /// Every dummy load (`keeps_dummy_loads`).
    dummy_loads: bool,
    /// The `MEMBAR.ALL.CTA` before a wider `MEMBAR`: kernels with mbarriers (black-box,
    /// sm_100/sm_120: `cuda::barrier`'s arrive_and_wait before a `__threadfence()`, a
    /// `cuda::pipeline` kernel; a kernel beside them without one loses it; testdata
    /// fence_mbarrier).
    cta_barriers: bool,
}

/// Whether a kernel has mbarriers (`EIATTR_NUM_MBARRIERS` in its `.nv.info.<kernel>`).
pub fn has_mbarriers(cubin: &Cubin<'_>, text_name: &[u8]) -> bool {
    let Some(function) = text_name.strip_prefix(b".text") else {
        return false;
    };
    let info = cubin.section_named(&[b".nv.info", function].concat());
    info.is_some_and(|info| {
        crate::elf::nvinfo::records(info.bytes())
            .map_while(|r| r.ok())
            .any(|r| r.attr == crate::elf::nvinfo::EIATTR_NUM_MBARRIERS)
    })
}

/// Whether instruction `k` of `code` is one re-finalization drops.
fn dropped(code: &[[u8; 16]], k: usize, keep: Keeps) -> bool {
    let (lo, hi) = words(&code[k]);
    let next_kept = || {
        code[k + 1..]
            .iter()
            .map(|i| words(i))
            .find(|&(l, h)| (l, h & OPERANDS) != DUMMY_LOAD)
    };
    if (lo, hi & OPERANDS) == DUMMY_LOAD {
        return !keep.dummy_loads && next_kept().is_some_and(|(l, _)| l & 0xfff == MEMBAR);
    }
    // A CTA barrier goes when the next instruction kept is a wider MEMBAR.
    !keep.cta_barriers
        && (lo & !0xf000, hi & OPERANDS) == CTA_BARRIER
        && next_kept().is_some_and(|(l, _)| l & 0xfff == MEMBAR)
}

/// Whether nvlink keeps every dummy load of a kernel: it does where some run of them stands
/// before something other than a `MEMBAR` (the three before each cp.async `LDGSTS`), those
/// before its fences included (black-box, sm_100/sm_120: a `cuda::pipeline` kernel keeps its
/// block fence's four; testdata cp_async_shared).
fn keeps_dummy_loads(code: &[[u8; 16]]) -> bool {
    let dummy = |i: &[u8; 16]| {
        let (l, h) = words(i);
        (l, h & OPERANDS) == DUMMY_LOAD
    };
    code.windows(2)
        .any(|w| dummy(&w[0]) && !dummy(&w[1]) && words(&w[1]).0 & 0xfff != MEMBAR)
}

/// The `MEMBAR` a run of dropped instructions stood before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fence {
    /// GPU or system scope (`MEMBAR.SC.GPU`, `.ALL.GPU`, `.SC.SYS`): the CTA barrier went too.
    Wide,
    /// `MEMBAR.SC.CTA` (`__threadfence_block`).
    Block,
    /// `MEMBAR.ALL.CTA`, kept (before `FENCE.VIEW.ASYNC`: cub's decoupled look-back).
    CtaKept,
}

impl Fence {
    /// (The scope is at bits 12–13 of the high word: 0 CTA, 2 GPU, 3 system; bit 15: ALL.)
    fn of((lo, hi): (u64, u64)) -> Option<Fence> {
        if lo & 0xfff != MEMBAR {
            return None;
        }
        match (hi & OPERANDS & 0x8000 != 0, (hi >> 12) & 3) {
            (_, 2 | 3) => Some(Fence::Wide),
            (false, 0) => Some(Fence::Block),
            (true, 0) => Some(Fence::CtaKept),
            _ => None,
        }
    }

    /// Whether `p` is the capsule prefix ptxas gives the record of such a fence: flagged
    /// (`d1 0N`) for the wide and block ones, `51 03` for a kept CTA barrier (which other
    /// records carry too). Black-box: every kernel nvlink re-finalized in the corpus, the
    /// fuzz seeds and the programs of testdata/programs.
    fn marks(self, p: [u8; 2]) -> bool {
        match self {
            Fence::Wide | Fence::Block => p[0] == 0xd1 && (2..=4).contains(&p[1]),
            Fence::CtaKept => p == [0x51, 3],
        }
    }
}

/// A run of dropped instructions: the fence it stood before, whether it held dummy loads,
/// and where it lies (its first instruction and how many).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    fence: Fence,
    loads: bool,
    start: usize,
    len: usize,
}

impl Run {
    /// nvlink's prefix for the fence's record once the run is gone: unflagged, its count
    /// two less where the loads went (`d1 04` → `51 02`, `d1 03` → `51 01`, `51 03` → `51 01`,
    /// `d1 02` → none; a lone CTA barrier: `d1 02` → `51 02`).
    fn prefix_after(self, p: [u8; 2]) -> Option<[u8; 2]> {
        let n = p[1] - if self.loads { 2 } else { 0 };
        (n > 0).then_some([0x51, n])
    }
}

/// A capsule edit: bytes `start..end` replaced by these.
type Splice = (usize, usize, Vec<u8>);

/// One kernel's new code and where each old instruction went.
struct Edit {
    mode: Mode,
    code: Vec<u8>,
    /// `moved[k]`: where old instruction `k`'s place starts in the new code (a dropped
    /// one's: the next kept one's; one with instructions inserted before it: the first of
    /// them); `moved[n]`: the end of the code.
    moved: Vec<u64>,
    /// `before[k]`: the instructions inserted before old instruction `k` (empty: none).
    before: Vec<u8>,
    old_size: u64,
    /// The runs of dropped instructions, in order.
    runs: Vec<Run>,
    /// The exits whose barriers a release link changes (old instruction, what goes).
    exits: Vec<(usize, exits::Change)>,
    /// The padding `NOP`s after the closing branch before the edit (after it: `code`'s).
    old_padding: usize,
}

impl Edit {
    /// The new place of old offset `off` (`dropped_ok`: a branch target or a row's address,
    /// where instructions inserted before it come first), or of the instruction there
    /// (`!dropped_ok`: `Err` for one re-finalization removes).
    fn at(&self, off: u64, dropped_ok: bool) -> Result<u64> {
        let k = (off / 16) as usize;
        if off % 16 != 0 || k >= self.moved.len() {
            return Err(format!(
                "an offset ({off:#x}) outside the kernel's instructions"
            ));
        }
        let here = self.moved[k];
        let gone = k + 1 < self.moved.len() && self.moved[k + 1] == here;
        if gone && !dropped_ok {
            return Err(format!(
                "an offset ({off:#x}) naming an instruction re-finalization removes"
            ));
        }
        if dropped_ok {
            return Ok(here);
        }
        Ok(here + 16 * u64::from(self.before.get(k).copied().unwrap_or(0)))
    }

    /// The new offset of old instruction `k` itself.
    fn own(&self, k: usize) -> u64 {
        self.moved[k] + 16 * u64::from(self.before.get(k).copied().unwrap_or(0))
    }
}

/// The edit of one function's code in a release link (`debug_info`: the object was compiled
/// with -G; `debug_link`: the link is a debug one), `None` when it keeps every instruction:
/// a kernel that calls nothing loses its fence preambles (and, in a debug link, the
/// `MEMBAR.SC.VC` before each exit); outside debug links code loses the debugger's barriers
/// a `-r -g` link gave it (`exits`).
fn edit_code(
    text: &[u8],
    debug_info: bool,
    debug_link: bool,
    kernel: bool,
    mbarriers: bool,
) -> Result<Option<Edit>> {
    let code = instructions(text);
    let leaf = kernel && !calls_out(&code);
    let keep = Keeps {
        dummy_loads: keeps_dummy_loads(&code),
        cta_barriers: mbarriers,
    };
    let fence: Vec<bool> = (0..code.len())
        .map(|k| leaf && dropped(&code, k, keep))
        .collect();
    if debug_info && fence.contains(&true) {
        return Err("-G code with a fence preamble".into());
    }
    let exits = exits::release_changes(&code, debug_link, leaf);
    let mut gone = fence.clone();
    for &(k, change) in &exits {
        for j in change.dropped(k) {
            gone[j] = true;
        }
    }
    if !gone.contains(&true) {
        return Ok(None);
    }
    for i in &code {
        flow(words(i).0)?;
    }
    let mut moved = Vec::with_capacity(code.len() + 1);
    let mut at = 0u64;
    for &g in &gone {
        moved.push(at);
        at += if g { 0 } else { 16 };
    }
    moved.push(at);
    let runs = fence
        .iter()
        .enumerate()
        .filter(|&(k, &g)| g && (k == 0 || !fence[k - 1]))
        .map(|(k, _)| {
            let end = fence[k..].iter().position(|g| !g).map(|p| k + p);
            let fence = end
                .and_then(|j| Fence::of(words(&code[j])))
                .ok_or_else(|| "dummy loads before something other than a MEMBAR".to_string())?;
            let end = end.unwrap_or(code.len());
            let loads = code[k..end].iter().any(|i| words(i).0 == DUMMY_LOAD.0);
            Ok(Run {
                fence,
                loads,
                start: k,
                len: end - k,
            })
        })
        .collect::<Result<_>>()?;
    let mut edit = Edit {
        mode: Mode::Release,
        code: Vec::new(),
        moved,
        before: Vec::new(),
        old_size: text.len() as u64,
        runs,
        exits,
        old_padding: trailing_nops(text),
    };
    edit.code = kept_code(&code, &gone, &fence, &edit)?;
    Ok(Some(edit))
}

/// The kept instructions, branches retargeted and the dropped fence instructions' waits and
/// stalls moved onto their neighbours (the debugger's barriers have their own, which go
/// with them), padded as the finalizer pads.
fn kept_code(code: &[[u8; 16]], gone: &[bool], fence: &[bool], e: &Edit) -> Result<Vec<u8>> {
    let mut out: Vec<[u8; 16]> = Vec::with_capacity(code.len());
    let (mut waits, mut stalls) = (0u64, 0u64);
    for (k, ins) in code.iter().enumerate() {
        let (lo, hi) = words(ins);
        if gone[k] && !fence[k] {
            continue;
        }
        if gone[k] {
            waits |= hi & WAIT_MASK;
            stalls += stall_of(hi);
            if !out.is_empty() {
                add_stall(&mut out, stalls);
                stalls = 0;
            }
            continue;
        }
        let (lo, hi) = retarget((lo, hi), k, e)?;
        let hi = hi | waits;
        waits = 0;
        let mut i = [0u8; 16];
        i[..8].copy_from_slice(&lo.to_le_bytes());
        i[8..].copy_from_slice(&hi.to_le_bytes());
        out.push(i);
    }
    let real = out.len() - trailing_nops(out.as_flattened());
    out.truncate(real);
    let total = (real + 8).div_ceil(8) * 8;
    out.resize(total, NOP);
    Ok(out.concat())
}

/// Adds `extra` cycles of stall before the instruction after `code`: on its last instruction,
/// and what that one cannot hold on the ones before it (a longer wait is always safe; what
/// one instruction holds: `control_bits::most_stall`).
fn add_stall(code: &mut [[u8; 16]], mut extra: u64) {
    for i in code.iter_mut().rev() {
        if extra == 0 {
            return;
        }
        let hi = u64::from_le_bytes(i[8..].try_into().unwrap());
        let most = control_bits::most_stall(hi);
        let stall = stall_of(hi);
        let added = extra.min(most - stall.min(most));
        extra -= added;
        let hi = (hi & !(0xf << STALL_SHIFT)) | ((stall + added) << STALL_SHIFT);
        i[8..].copy_from_slice(&hi.to_le_bytes());
    }
}

/// Old instruction `k`'s target and the new relative field for it.
fn new_relative(k: usize, relative: i64, unit: i64, e: &Edit) -> Result<i64> {
    let next = 16 * (k as i64 + 1);
    let target = next + relative * unit;
    if target < 0 {
        return Err(format!("a branch at {:#x} before the kernel", 16 * k));
    }
    let new_target = e.at(target as u64, true)? as i64;
    Ok((new_target - (e.own(k) as i64 + 16)) / unit)
}

/// Instruction `k`'s words with its relative target (if it has one) moved for the edit.
fn retarget((lo, hi): (u64, u64), k: usize, e: &Edit) -> Result<(u64, u64)> {
    match flow(lo)? {
        Some(Flow::Split) => {
            let new = new_relative(k, split_field(lo, hi), 4, e)?;
            Ok(with_split_field(lo, hi, new))
        }
        // (A `BRX`'s register holds a target's offset in the function, from its jump
        // table; its relative field points at the function's start: `jump_tables`.)
        Some(Flow::Indirect) => {
            let rel = split_field(lo, hi);
            if 16 * (k as i64 + 1) + 4 * rel != 0 {
                return Err(format!(
                    "an indirect branch at {:#x} not relative to the function's start",
                    16 * k
                ));
            }
            let new = new_relative(k, rel, 4, e)?;
            Ok(with_split_field(lo, hi, new))
        }
        Some(Flow::Bytes) => {
            let rel = (lo >> 32) as u32 as i32 as i64;
            let new = new_relative(k, rel, 1, e)?;
            let new = i32::try_from(new).map_err(|_| "a BSSY target out of range".to_string())?;
            Ok(((lo & 0xffff_ffff) | ((new as u32 as u64) << 32), hi))
        }
        _ => Ok((lo, hi)),
    }
}

/// The words with split relative field `v` written (`split_field`'s inverse): the low 8
/// bits at 16–23, the rest at 34–63 and 64–81 (the high word's part its sign).
fn with_split_field(lo: u64, hi: u64, v: i64) -> (u64, u64) {
    let v = v as u64;
    let lo = (lo & !(0xff << 16) & !(!0u64 << 34)) | ((v & 0xff) << 16) | ((v >> 8) << 34);
    let high_bits: u64 = (1 << 18) - 1;
    let hi = (hi & !high_bits) | if lo >> 63 == 1 { high_bits } else { 0 };
    (lo, hi)
}

/// A split relative field: the low 8 bits at 16–23, the rest at 34–81, signed (56 bits).
fn split_field(lo: u64, hi: u64) -> i64 {
    let high = (lo >> 34) | ((hi & ((1 << 18) - 1)) << 30);
    let v = ((lo >> 16) & 0xff) | (high << 8);
    ((v << 8) as i64) >> 8
}

/// The edited object, `None` when no kernel of it changes (`debug_link`: the link is a
/// debug one, whose code keeps the debugger's barriers).
fn edit(bytes: &[u8], mode: Mode, debug_link: bool) -> Result<Option<Vec<u8>>> {
    // (Most objects hold nothing to edit: one look at their bytes, no parse. Code sections
    // start at multiples of 128 bytes; one that did not and was missed here still meets the
    // merge's refusal.)
    let candidate = |c: &[u8]| {
        let lo = u64::from_le_bytes(c[..8].try_into().unwrap());
        match mode {
            Mode::Release => {
                lo == DUMMY_LOAD.0 || lo & !0xf000 == CTA_BARRIER.0 || exits::is_barrier(lo)
            }
            Mode::Debug => exits::is_exit(lo),
        }
    };
    if !bytes.chunks_exact(16).any(candidate) {
        return Ok(None);
    }
    let Ok(cubin) = Cubin::parse(bytes) else {
        return Ok(None); // (the loader reports what is wrong with it)
    };
    // (-G code has the debugger's barriers already.)
    let debug_info = cubin.section_named(b".debug_info").is_some();
    if mode == Mode::Debug && debug_info {
        return Ok(None);
    }
    let what = match mode {
        Mode::Release => "re-finalizing it as nvlink does (fence preambles and debug barriers go)",
        Mode::Debug => "adding the barriers before its exits as nvlink does under -g",
    };
    let mut out: Option<Vec<u8>> = None;
    let mut grown: Vec<(u32, Edit)> = Vec::new();
    for s in &cubin.sections {
        // (Device functions' exits get the barriers under -g too, `asm("exit;")`, and lose
        // them without.)
        let Some((fi, is_kernel)) = function_of(&cubin, s) else {
            continue;
        };
        let name = s.name_str();
        let kernel = name.trim_start_matches(".text.");
        let e = match mode {
            Mode::Release => {
                let mbarriers = has_mbarriers(&cubin, s.name);
                edit_code(s.bytes(), debug_info, debug_link, is_kernel, mbarriers)
            }
            Mode::Debug => exits::edit_code(s.bytes()),
        };
        let Some(e) =
            e.map_err(|w| format!("section '{name}': kernel '{kernel}' holds {w}; {what}"))?
        else {
            continue;
        };
        let out = out.get_or_insert_with(|| bytes.to_vec());
        apply_edit(&cubin, s.index, fi, &e, out).map_err(|w| {
            format!("section '{name}': moving {w} with kernel '{kernel}''s code ({what})")
        })?;
        grown.push((s.index, e));
    }
    if let Some(out) = out.as_mut() {
        let edits: Vec<(u32, &Edit)> = grown.iter().map(|(t, e)| (*t, e)).collect();
        lines::line_tables(&cubin, &edits, out).map_err(|w| format!("{w} ({what})"))?;
    }
    Ok(out)
}

/// The function symbol a `.text.<fn>` section holds, and whether it is a kernel's.
fn function_of(cubin: &Cubin<'_>, s: &crate::elf::read::Section<'_>) -> Option<(u32, bool)> {
    if !s.name.starts_with(b".text.") {
        return None;
    }
    let i = s.info & 0xff_ffff;
    let sym = cubin.symtabs.first()?.symbols.get(i as usize)?;
    let kernel = crate::object::InputObject::is_entry(sym);
    let wanted = kernel || sym.st_type == crate::elf::STT_FUNC;
    (wanted && sym.section == SymSection::Index(s.index)).then_some((i, kernel))
}

fn put_u32(out: &mut [u8], at: usize, v: u32) {
    out[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut [u8], at: usize, v: u64) {
    out[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Writes `e` into `out` (a copy of the object): the code, the section and symbol sizes,
/// and every offset into the code.
fn apply_edit(cubin: &Cubin<'_>, text: u32, func: u32, e: &Edit, out: &mut Vec<u8>) -> Result<()> {
    let s = &cubin.sections[text as usize];
    let debug_info = cubin.section_named(b".debug_info").is_some();
    put_section(cubin, text, &e.code, out);
    symbols(cubin, text, func, e, out)?;
    match e.mode {
        Mode::Release => capsule(cubin, s, e, out)?,
        Mode::Debug => exits::capsule(cubin, s, e, out)?,
    }
    for r in &cubin.sections {
        if r.sh_type == SHT_RELA && r.info == text {
            relocations(cubin, r, text, e, out)?;
        } else if r.sh_type == SHT_CUDA_INFO && r.info == text {
            info_offsets(r, e, out)?;
        } else if r.name == b".rela.debug_frame" {
            frames(cubin, r, text, e, out)?;
        } else if matches!(r.name, b".rela.debug_line" | b".rela.nv_debug_line_sass") {
            // (`lines::line_tables`, once all the object's kernels moved.)
        } else if debug_info && matches!(r.name, b".rela.debug_info" | b".rela.debug_loc") {
            debug_addresses(cubin, r, text, e, out)?;
        } else if r.sh_type == SHT_RELA {
            no_addend_into(cubin, r, text)?;
        }
    }
    if debug_info {
        reg_sass_ranges(cubin, func, e, out)?;
    }
    jump_tables(cubin, text, e, out)?;
    Ok(())
}

/// Where old code address `off` (a row, a range's bound) is in the new code: the end of the
/// code moves to the end of the new (padded) code.
fn address(e: &Edit, off: u64) -> Result<u64> {
    if off == e.old_size {
        Ok(e.code.len() as u64)
    } else {
        e.at(off, true)
    }
}

/// `-G`: the `.debug_info` and `.debug_loc` addresses in the code (relocations against the
/// function with the offset as addend: DW_AT_low_pc, high_pc, location list bounds).
fn debug_addresses(
    cubin: &Cubin<'_>,
    r: &crate::elf::read::Section<'_>,
    text: u32,
    e: &Edit,
    out: &mut [u8],
) -> Result<()> {
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    for (i, rel) in cubin
        .relocations(r)
        .map_err(|x| x.to_string())?
        .iter()
        .enumerate()
    {
        let inside = table
            .symbols
            .get(rel.sym as usize)
            .is_some_and(|s| s.section == SymSection::Index(text) && s.value == 0);
        let (true, Some(addend)) = (inside, rel.addend) else {
            continue;
        };
        let new = address(e, addend as u64)?;
        put_u64(out, r.offset as usize + 24 * i + 16, new);
    }
    Ok(())
}

/// `-G`: the function's record in `.nv_debug_info_reg_sass` (found by name: the section has
/// no relocations), each range's bounds moved with the code.
fn reg_sass_ranges(cubin: &Cubin<'_>, func: u32, e: &Edit, out: &mut [u8]) -> Result<()> {
    let Some(rs) = cubin.section_named(b".nv_debug_info_reg_sass") else {
        return Ok(());
    };
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    let name = table
        .symbols
        .get(func as usize)
        .ok_or("no function symbol")?
        .name;
    let records = crate::elf::reg_sass::records(rs.bytes())
        .map_err(|w| format!(".nv_debug_info_reg_sass ({w})"))?;
    for r in records.iter().filter(|r| r.name == name) {
        for &at in &r.ranges {
            for bound in [at, at + 4] {
                let old = little_endian(rs.bytes(), bound, 4)?;
                let new = address(e, old)?;
                put_u32(out, rs.offset as usize + bound, new as u32);
            }
        }
    }
    Ok(())
}

/// Writes section `index`'s new contents into `out` (the object's bytes): in place when
/// they fit (the rest zeroed), else after everything, at the section's alignment; its
/// header's offset and size follow.
fn put_section(cubin: &Cubin<'_>, index: u32, bytes: &[u8], out: &mut Vec<u8>) {
    let s = &cubin.sections[index as usize];
    let shdr = cubin.header.e_shoff as usize + 64 * index as usize;
    let mut at = s.offset as usize;
    if bytes.len() as u64 <= s.size {
        out[at..at + s.size as usize].fill(0);
    } else {
        let align = (s.align as usize).max(1);
        out.resize(out.len().div_ceil(align) * align, 0);
        at = out.len();
        out.resize(at + bytes.len(), 0);
        put_u64(out, shdr + 24, at as u64);
    }
    out[at..at + bytes.len()].copy_from_slice(bytes);
    put_u64(out, shdr + 32, bytes.len() as u64);
}

/// The capsule's closing token: the padding `NOP`s after the closing branch (black-box: 15
/// kernels before and after nvlink's re-finalization, 8 to 15 NOPs).
fn closing_token(nops: usize) -> [u8; 2] {
    crate::reloc::capsule::counted(0x50, nops)
}

/// The prefix edits where the fences' records are not the flagged ones (a fence fused
/// into an `ATOM` whose record carries `51 05`: cuda::atomic_ref's acq_rel fetch_add): each
/// run's record is the first capsule instruction after it whose record has a prefix, as
/// the capsule's numbering places it (docs/research/capsule-numbering.md), and its count of
/// added instructions loses the run's (`51 05`, nine, less five: `d1 02`; black-box, sm_100
/// and sm_120). `None` where a run has no such record, or one with another shape, or where
/// a fence record ptxas marked (`marked`: its prefixes' offsets) pairs with no run: a
/// `cuda::pipeline` kernel's block fence, whose preamble stays, beside a `__threadfence()`
/// whose CTA barrier nvlink keeps there (not understood: refused).
fn announcing_splices(
    code: &[u8],
    sass: &[u8],
    runs: &[Run],
    marked: &[usize],
) -> Option<Vec<Splice>> {
    use crate::reloc::capsule::{counted, prefix_count, record_spans, Numbering};
    let numbering = Numbering::new(code, sass).ok()?;
    let spans = record_spans(code).ok()?;
    let mut splices: Vec<Splice> = Vec::with_capacity(runs.len());
    for r in runs {
        let span = (r.start + r.len..sass.len() / 16)
            .filter_map(|i| numbering.capsule_instruction(i))
            .find_map(|k| spans.iter().find(|s| s.mercury == k && s.body > s.start))?;
        // (One prefix, for one run, counting at least the run.)
        if span.body != span.start + 2 || splices.iter().any(|s| s.0 == span.start) {
            return None;
        }
        let count = prefix_count([code[span.start], code[span.start + 1]])?;
        let by = match count.checked_sub(r.len)? {
            0 => Vec::new(),
            n => counted(0x51, n).to_vec(),
        };
        splices.push((span.start, span.start + 2, by));
    }
    let paired = |p: &usize| splices.iter().any(|s| s.0 == *p);
    marked.iter().all(paired).then_some(splices)
}

/// `.nv.capmerc.text.<kernel>`: each fence's record carries a prefix for the instructions
/// before it (`Fence::marks`), paired with the runs in order, which nvlink rewrites for the
/// code without them (`Run::prefix_after`); the closing token counts the new padding.
fn capsule(
    cubin: &Cubin<'_>,
    text: &crate::elf::read::Section<'_>,
    e: &Edit,
    out: &mut Vec<u8>,
) -> Result<()> {
    let name = [b".nv.capmerc".as_slice(), text.name].concat();
    let Some(c) = cubin.section_named(&name) else {
        return Ok(());
    };
    let code = c.bytes();
    let (prefixes, end) = crate::reloc::capsule::prefixes(code)
        .map_err(|_| "its capsule (a layout not understood)".to_string())?;
    let at_prefix = |p: usize| [code[p], code[p + 1]];
    // Flagged prefixes pair with the wide and block fences; `51 03` with kept CTA barriers,
    // where the kernel has any.
    let pairs = |kept: bool| -> Vec<usize> {
        let fence = if kept { Fence::CtaKept } else { Fence::Wide };
        prefixes
            .iter()
            .copied()
            .filter(|&p| fence.marks(at_prefix(p)))
            .collect()
    };
    let (flagged, kept) = (pairs(false), pairs(true));
    let is_kept = |r: &&Run| r.fence == Fence::CtaKept;
    let n_kept = e.runs.iter().filter(is_kept).count();
    if end != code.len() || code[end - 2..] != closing_token(e.old_padding) {
        return Err("its capsule (its closing token)".into());
    }
    // (A kernel that keeps its fences, one that calls, pairs none of them.)
    let mut splices: Vec<Splice> = if (!e.runs.is_empty() && flagged.len() != e.runs.len() - n_kept)
        || (n_kept > 0 && kept.len() != n_kept)
    {
        let marked: Vec<usize> = flagged.iter().chain(&kept).copied().collect();
        announcing_splices(code, text.bytes(), &e.runs, &marked).ok_or_else(|| {
            format!(
                "its capsule ({} fence record(s) for {} fence(s))",
                flagged.len() + kept.len(),
                e.runs.len()
            )
        })?
    } else {
        let (mut flagged, mut kept) = (flagged.into_iter(), kept.into_iter());
        (e.runs.iter())
            .map(|r| {
                let p = if is_kept(&r) {
                    kept.next()
                } else {
                    flagged.next()
                };
                let p = p.expect("counted above");
                let by = r.prefix_after(at_prefix(p));
                (p, p + 2, by.map_or(Vec::new(), |b| b.to_vec()))
            })
            .collect()
    };
    let (exit_splices, carried) = exits::release_splices(code, &e.exits)?;
    splices.extend(exit_splices);
    splices.sort_unstable_by_key(|s| s.0);
    let mut new = Vec::with_capacity(code.len());
    let mut from = 0;
    for (start, end, by) in splices {
        new.extend_from_slice(&code[from..start]);
        new.extend_from_slice(&by);
        from = end;
    }
    new.extend_from_slice(&code[from..]);
    for k in carried {
        new[12 + k / 8] |= 1 << (k % 8);
    }
    let l = new.len();
    new[l - 2..].copy_from_slice(&closing_token(trailing_nops(&e.code)));
    put_section(cubin, c.index, &new, out);
    Ok(())
}

/// The kernel's size; a symbol elsewhere in its code is refused.
fn symbols(cubin: &Cubin<'_>, text: u32, func: u32, e: &Edit, out: &mut [u8]) -> Result<()> {
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    let base = cubin.sections[table.section as usize].offset as usize;
    for (i, sym) in table.symbols.iter().enumerate() {
        if sym.section != SymSection::Index(text) {
            continue;
        }
        if sym.value != 0 {
            return Err(format!("symbol '{}' inside the code", sym.name_str()));
        }
        if i as u32 == func && sym.size == e.old_size {
            put_u64(out, base + 24 * i + 16, e.code.len() as u64);
        }
    }
    Ok(())
}

/// Relocations of the code: their offsets, and the addends of those naming a place in the
/// code itself (the return address a call through a pointer loads, `kernel+0x150`), which
/// move as branch targets do: to the first instruction put before the old one (black-box,
/// sm_100 `-r -g`: nvlink's return address names the first `MEMBAR.SC.VC` of the exit after
/// the call; testdata jump_tables' indirect-call kernel).
fn relocations(
    cubin: &Cubin<'_>,
    r: &crate::elf::read::Section<'_>,
    text: u32,
    e: &Edit,
    out: &mut [u8],
) -> Result<()> {
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    let relocs = cubin.relocations(r).map_err(|x| x.to_string())?;
    for (i, rel) in relocs.iter().enumerate() {
        let new = e.at(rel.offset - rel.offset % 16, false)? + rel.offset % 16;
        put_u64(out, r.offset as usize + 24 * i, new);
        let into_code = table
            .symbols
            .get(rel.sym as usize)
            .is_some_and(|s| s.section == SymSection::Index(text) && s.value == 0);
        if let (true, Some(addend @ 1..)) = (into_code, rel.addend) {
            let moved = address(e, addend as u64)?;
            put_u64(out, r.offset as usize + 24 * i + 16, moved);
        }
    }
    Ok(())
}

/// Other relocations may name the kernel, but not a place inside it.
fn no_addend_into(cubin: &Cubin<'_>, r: &crate::elf::read::Section<'_>, text: u32) -> Result<()> {
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    for rel in cubin.relocations(r).map_err(|x| x.to_string())?.iter() {
        let inside = table
            .symbols
            .get(rel.sym as usize)
            .is_some_and(|s| s.section == SymSection::Index(text));
        if inside && rel.addend.unwrap_or(0) != 0 {
            return Err(format!("a relocation in '{}' into the code", r.name_str()));
        }
    }
    Ok(())
}

/// How an EIATTR holds offsets of instructions in the function's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Offsets {
    /// Every word is one.
    Words,
    /// Records of `words` words whose word `at` is one: MBARRIER_INSTR_OFFSETS (offset,
    /// kind, 0, flags; black-box: cub's scans, moved by nvlink only in their first word),
    /// UNUSED_LOAD_BYTE_OFFSET (offset, byte mask; cub's select sweep under -g, moved as
    /// its load), ANNOTATIONS (1, offset; CUTLASS's tensor-op GEMMs under -g).
    InRecords { words: usize, at: usize },
    /// Records of a `BRX`'s offset, 0, a count and that many targets (INDIRECT_BRANCH_TARGETS).
    BranchTargets,
    /// Offsets in a shape not known (refused).
    Unknown,
}

fn offsets_in(attr: u8) -> Option<Offsets> {
    let name = crate::elf::nvinfo::attr_name(attr)?;
    match name {
        "EIATTR_MBARRIER_INSTR_OFFSETS" => Some(Offsets::InRecords { words: 4, at: 0 }),
        "EIATTR_UNUSED_LOAD_BYTE_OFFSET" => Some(Offsets::InRecords { words: 2, at: 0 }),
        "EIATTR_ANNOTATIONS" => Some(Offsets::InRecords { words: 2, at: 1 }),
        "EIATTR_SYSCALL_OFFSETS"
        | "EIATTR_STACK_CANARY_TRAP_OFFSETS"
        | "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS" => Some(Offsets::Words),
        "EIATTR_INDIRECT_BRANCH_TARGETS" => Some(Offsets::BranchTargets),
        "EIATTR_INSTR_REG_MAP"
        | "EIATTR_ATOM16_EMUL_INSTR_REG_MAP"
        | "EIATTR_COROUTINE_RESUME_ID_OFFSETS"
        | "EIATTR_JUMPTABLE_RELOCS" => Some(Offsets::Unknown),
        _ if name.ends_with("_INSTR_OFFSETS") => Some(Offsets::Words),
        _ => None,
    }
}

/// `.nv.info.<kernel>`: the instruction offsets its lists hold.
fn info_offsets(r: &crate::elf::read::Section<'_>, e: &Edit, out: &mut [u8]) -> Result<()> {
    let bytes = r.bytes();
    let mut at = 0usize;
    while at + 4 <= bytes.len() {
        let (format, attr) = (bytes[at], bytes[at + 1]);
        let len = u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
        let payload = if format == 0x04 { len } else { 0 };
        if at + 4 + payload > bytes.len() {
            return Err("a damaged .nv.info record".into());
        }
        match offsets_in(attr) {
            Some(shape @ (Offsets::Words | Offsets::InRecords { .. })) if format == 0x04 => {
                let (stride, first) = match shape {
                    Offsets::InRecords { words, at } => (4 * words, 4 * at),
                    _ => (4, 0),
                };
                for w in (at + 4 + first..at + 4 + payload).step_by(stride) {
                    let old = little_endian(bytes, w, 4)? as u32;
                    let new = e.at(u64::from(old), false)?;
                    put_u32(out, r.offset as usize + w, new as u32);
                }
            }
            Some(Offsets::BranchTargets) if format == 0x04 => {
                for (w, place) in branch_targets(&bytes[at + 4..at + 4 + payload])? {
                    let old = little_endian(bytes, at + 4 + w, 4)?;
                    let new = e.at(old, place)?;
                    put_u32(out, r.offset as usize + at + 4 + w, new as u32);
                }
            }
            Some(_) => {
                let name = crate::elf::nvinfo::attr_name(attr).unwrap_or("?");
                return Err(format!("the offsets of {name}"));
            }
            None => {}
        }
        at += 4 + payload;
    }
    Ok(())
}

/// The words of an INDIRECT_BRANCH_TARGETS payload that are code offsets: each record's
/// `BRX` (an instruction) and its targets (places: a target at an exit is its first
/// barrier), as (byte offset, is a place).
fn branch_targets(payload: &[u8]) -> Result<Vec<(usize, bool)>> {
    let word = |i: usize| little_endian(payload, 4 * i, 4);
    let (mut i, mut out) = (0usize, Vec::new());
    while 4 * i < payload.len() {
        let n = word(i + 2)? as usize;
        if word(i + 1)? != 0 || 4 * (i + 3 + n) > payload.len() {
            return Err("an INDIRECT_BRANCH_TARGETS record of a shape not seen".into());
        }
        out.push((4 * i, false));
        out.extend((0..n).map(|t| (4 * (i + 3 + t), true)));
        i += 3 + n;
    }
    Ok(out)
}

/// `.nv.constant2.<fn>` of a function with indirect branches: ptxas's jump tables, the
/// targets' offsets in the function in the order INDIRECT_BRANCH_TARGETS lists them (the
/// section holds nothing else in every object seen; refused otherwise), moved with the code
/// (black-box: docs/research/debug-exits.md, "Indirect branches").
fn jump_tables(cubin: &Cubin<'_>, text: u32, e: &Edit, out: &mut [u8]) -> Result<()> {
    let s = &cubin.sections[text as usize];
    let has_brx = s
        .bytes()
        .chunks_exact(16)
        .any(|i| flow(words(i).0) == Ok(Some(Flow::Indirect)));
    if !has_brx {
        return Ok(());
    }
    let name = [b".nv.constant2".as_slice(), &s.name[5..]].concat();
    let table = cubin.section_named(&name);
    let info = cubin
        .sections
        .iter()
        .find(|r| r.sh_type == SHT_CUDA_INFO && r.info == text)
        .ok_or("indirect branches with no .nv.info")?;
    let mut targets = Vec::new();
    let bytes = info.bytes();
    let mut at = 0usize;
    while at + 4 <= bytes.len() {
        let (format, attr) = (bytes[at], bytes[at + 1]);
        let len = u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
        let payload = if format == 0x04 { len } else { 0 };
        let body = bytes
            .get(at + 4..at + 4 + payload)
            .ok_or("a damaged .nv.info record")?;
        if format == 0x04 && offsets_in(attr) == Some(Offsets::BranchTargets) {
            for (w, place) in branch_targets(body)? {
                if place {
                    targets.push(little_endian(body, w, 4)?);
                }
            }
        }
        at += 4 + payload;
    }
    let table = table.ok_or("indirect branches with no jump table")?;
    let held: Vec<u64> = table
        .bytes()
        .chunks(4)
        .map(|c| little_endian(c, 0, 4))
        .collect::<Result<_>>()?;
    let relocated = cubin
        .sections
        .iter()
        .any(|r| r.sh_type == SHT_RELA && r.info == table.index && r.size > 0);
    if held != targets || relocated {
        return Err(format!(
            "'{}' (not only the jump tables INDIRECT_BRANCH_TARGETS lists)",
            table.name_str()
        ));
    }
    for (i, &old) in held.iter().enumerate() {
        let new = e.at(old, true)?;
        put_u32(out, table.offset as usize + 4 * i, new as u32);
    }
    Ok(())
}

/// `.debug_frame`: the FDE of the kernel (found by its relocation): its address range and
/// its advances.
fn frames(
    cubin: &Cubin<'_>,
    r: &crate::elf::read::Section<'_>,
    text: u32,
    e: &Edit,
    out: &mut [u8],
) -> Result<()> {
    let Some(df) = cubin.sections.get(r.info as usize) else {
        return Ok(());
    };
    let table = cubin.symtabs.first().ok_or("no symbol table")?;
    let bytes = df.bytes();
    let entries = crate::elf::frames::frame_entries(bytes);
    for rel in cubin.relocations(r).map_err(|x| x.to_string())?.iter() {
        let Some(sym) = table.symbols.get(rel.sym as usize) else {
            continue;
        };
        if sym.section != SymSection::Index(text) {
            continue;
        }
        let at = rel.offset as usize;
        let k = entries
            .iter()
            .position(|&(a, b, cie)| !cie && a <= at && at < b)
            .ok_or("a frame relocation outside every FDE")?;
        let fde = entries[k];
        // 64-bit FDE: ffffffff, length, CIE pointer, initial location, address range.
        if at != fde.0 + 20 {
            continue;
        }
        let range_at = fde.0 + 28;
        let range = little_endian(bytes, range_at, 8)?;
        if range == e.old_size {
            put_u64(out, df.offset as usize + range_at, e.code.len() as u64);
        }
        // (The CIE pointer is itself relocated in an object: the CIE before the FDE.)
        let cie = entries[..k]
            .iter()
            .rev()
            .find(|e| e.2)
            .ok_or("an FDE with no CIE")?;
        let factor = code_alignment(bytes, cie.0)?;
        advances(
            bytes,
            fde.0 + 36,
            fde.1,
            factor,
            e,
            &mut out[df.offset as usize..],
        )?;
    }
    Ok(())
}

/// The `width`-byte little-endian number at `at` of `b`, `Err` past its end (damaged input).
fn little_endian(b: &[u8], at: usize, width: usize) -> Result<u64> {
    let bytes = b
        .get(at..at.saturating_add(width))
        .ok_or("a damaged frame or attribute")?;
    Ok(bytes.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
}

/// A CIE's code alignment factor.
fn code_alignment(b: &[u8], cie: usize) -> Result<u64> {
    // ffffffff, length, id (8), version, augmentation string, code alignment (ULEB).
    let mut at = cie + 21;
    while *b.get(at).ok_or("a damaged CIE")? != 0 {
        at += 1;
    }
    Ok(uleb(b, at + 1)?.0)
}

fn uleb(b: &[u8], at: usize) -> Result<(u64, usize)> {
    let (mut v, mut shift, mut at) = (0u64, 0, at);
    loop {
        let byte = *b.get(at).ok_or("a damaged frame")?;
        at += 1;
        v |= u64::from(byte & 0x7f) << shift.min(63);
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok((v, at));
        }
    }
}

/// Walks an FDE's call frame instructions from `at` to `end`, rewriting each advance for
/// the moved code.
fn advances(
    b: &[u8],
    mut at: usize,
    end: usize,
    factor: u64,
    e: &Edit,
    out: &mut [u8],
) -> Result<()> {
    let mut loc = 0u64;
    let factor = factor.max(1);
    while at < end {
        let op = little_endian(b, at, 1)? as u8;
        at += 1;
        let (delta, width) = match op >> 6 {
            1 => (u64::from(op & 0x3f), 0),
            2 => {
                at = uleb(b, at)?.1;
                continue;
            }
            3 => continue,
            _ => match op {
                0x02 => (little_endian(b, at, 1)?, 1),
                0x03 => (little_endian(b, at, 2)?, 2),
                0x04 => (little_endian(b, at, 4)?, 4),
                0x00 | 0x0a | 0x0b => continue,
                0x06..=0x08 | 0x0d | 0x0e => {
                    at = uleb(b, at)?.1;
                    continue;
                }
                0x05 | 0x09 | 0x0c | 0x11 | 0x12 | 0x14 | 0x15 => {
                    at = uleb(b, uleb(b, at)?.1)?.1;
                    continue;
                }
                0x13 => {
                    at = uleb(b, at)?.1;
                    continue;
                }
                _ => return Err(format!("a call frame instruction {op:#04x}")),
            },
        };
        let new_from = e.at(loc, true)?;
        loc += delta * factor;
        let new_delta = (e.at(loc, true)? - new_from) / factor;
        let limit = match width {
            0 => 0x40,
            _ => 1u64 << (8 * width),
        };
        if new_delta >= limit {
            return Err("a call frame advance too long for its encoding".into());
        }
        let field = if width == 0 { at - 1 } else { at };
        match width {
            0 => out[field] = 0x40 | new_delta as u8,
            1 => out[field] = new_delta as u8,
            2 => out[field..field + 2].copy_from_slice(&(new_delta as u16).to_le_bytes()),
            _ => out[field..field + 4].copy_from_slice(&(new_delta as u32).to_le_bytes()),
        }
        at += width;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control_bits::YIELD;

    /// `@!PT LDS RZ, [RZ]`, `MEMBAR.ALL.CTA`, `MEMBAR.SC.GPU`, `EXIT`, the closing `BRA` to itself.
    const LDS: [u8; 16] = ins(DUMMY_LOAD.0, DUMMY_LOAD.1);
    const CTA: [u8; 16] = ins(0x7992, 0x8000);
    const GPU: [u8; 16] = ins(0x7992, 0x2000);
    const EXIT: [u8; 16] = ins(0x794d, 0x0380_0000);
    const SELF_LOOP: [u8; 16] = ins(0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff);
    const NOTHING_KEPT: Keeps = Keeps {
        dummy_loads: false,
        cta_barriers: false,
    };

    const fn ins(lo: u64, hi: u64) -> [u8; 16] {
        let (a, b) = (lo.to_le_bytes(), hi.to_le_bytes());
        let mut i = [0u8; 16];
        let mut k = 0;
        while k < 8 {
            i[k] = a[k];
            i[k + 8] = b[k];
            k += 1;
        }
        i
    }

    #[test]
    fn split_fields_decode_forward_and_backward_branches() {
        // nvdisasm: `@!P0 BRA` at 0xc0 to 0x590; `@P1 BRA` at 0x540 back to 0x140.
        assert_eq!(
            split_field(0x0000_0004_0030_8947, 0x000f_ea00_0380_0000),
            0x130
        );
        assert_eq!(
            split_field(0xffff_fff8_00fc_1947, 0x000f_f000_0383_ffff),
            -0x104
        );
        assert_eq!(
            split_field(0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff),
            -4
        );
    }

    #[test]
    fn dummy_loads_and_the_cta_barrier_before_a_gpu_fence_go() {
        let lds = ins(DUMMY_LOAD.0, DUMMY_LOAD.1 | 0x000f_e200_0000_0000);
        let cta = ins(0x7992, 0x8000 | 0x0005_ec00_0000_0000);
        let gpu = ins(0x7992, 0x2000 | 0x004f_ec00_0000_0000);
        let code = [EXIT, lds, lds, lds, lds, cta, gpu, EXIT];
        let gone: Vec<bool> = (0..code.len())
            .map(|k| dropped(&code, k, NOTHING_KEPT))
            .collect();
        assert_eq!(gone, [false, true, true, true, true, true, false, false]);
    }

    #[test]
    fn dummy_loads_stay_in_a_kernel_where_some_stand_before_an_async_copy() {
        let lds = ins(DUMMY_LOAD.0, DUMMY_LOAD.1 | 0x000f_e200_0000_0000);
        let ldgsts = ins(0x0000_0000_0205_7fae, 0x000f_e200_0000_0000);
        let block = ins(0x7992, 0x0003_ec00_0000_0000);
        let code = [lds, lds, lds, ldgsts, lds, lds, lds, lds, block, EXIT];
        assert!(keeps_dummy_loads(&code));
        let keep = Keeps {
            dummy_loads: true,
            ..NOTHING_KEPT
        };
        assert!((0..code.len()).all(|k| !dropped(&code, k, keep)));
        assert!(!keeps_dummy_loads(&code[4..]));
    }

    #[test]
    fn a_cta_barrier_alone_stays() {
        assert!(!dropped(&[CTA, EXIT], 0, NOTHING_KEPT));
    }

    #[test]
    fn branches_over_dropped_instructions_are_shortened_and_code_padded() {
        // 0: BRA +2 instructions (to 3); 1, 2: dropped; 3: MEMBAR; 4: EXIT; 5: BRA self.
        let bra = ins(0x0000_0000_0008_0947, 0x000f_ea00_0380_0000);
        let code: Vec<u8> = [bra, LDS, LDS, GPU, EXIT, SELF_LOOP].concat();
        let e = edit_code(&code, false, false, true, false)
            .unwrap()
            .unwrap();
        assert_eq!(e.moved, [0, 16, 16, 16, 32, 48, 64]);
        let (lo, hi) = words(&e.code[..16]);
        assert_eq!(split_field(lo, hi), 0);
        let (lo, hi) = words(&e.code[48..64]);
        assert_eq!(split_field(lo, hi), -4);
        assert_eq!(
            e.code.len(),
            16 * 16,
            "4 instructions, at least 8 NOPs, whole 128 bytes"
        );
    }

    #[test]
    fn the_capsules_closing_token_counts_the_padding() {
        // nvlink's outputs: 8, 10, 12 NOPs (even: 0xd0) and 9, 13, 15 (odd: 0x50).
        assert_eq!(closing_token(8), [0xd0, 4]);
        assert_eq!(closing_token(10), [0xd0, 5]);
        assert_eq!(closing_token(12), [0xd0, 6]);
        assert_eq!(closing_token(9), [0x50, 5]);
        assert_eq!(closing_token(13), [0x50, 7]);
        assert_eq!(closing_token(15), [0x50, 8]);
    }

    #[test]
    fn a_cta_barrier_run_is_told_apart_from_loads_alone() {
        let block = ins(0x7992, 0x0000);
        let code = [LDS, LDS, CTA, GPU, LDS, LDS, block, SELF_LOOP].concat();
        let e = edit_code(&code, false, false, true, false)
            .unwrap()
            .unwrap();
        let fences: Vec<Fence> = e.runs.iter().map(|r| r.fence).collect();
        assert_eq!(fences, [Fence::Wide, Fence::Block]);
        assert_eq!(
            (e.old_padding, trailing_nops(&e.code)),
            (0, 13),
            "3 kept: padded to 16"
        );
    }

    #[test]
    fn a_kernel_with_mbarriers_keeps_the_cta_barrier_before_a_wider_fence() {
        let code = [LDS, LDS, CTA, GPU, SELF_LOOP].concat();
        let e = edit_code(&code, false, false, true, true).unwrap().unwrap();
        let r = e.runs[0];
        assert_eq!(
            (r.fence, r.start, r.len),
            (Fence::CtaKept, 0, 2),
            "the loads alone"
        );
        let e = edit_code(&code, false, false, true, false)
            .unwrap()
            .unwrap();
        assert_eq!((e.runs[0].fence, e.runs[0].len), (Fence::Wide, 3));
    }

    #[test]
    fn a_dropped_instructions_wait_moves_to_the_next_and_its_stall_to_the_one_before() {
        let before = ins(0x7986, 2 << 41);
        let lds = ins(DUMMY_LOAD.0, DUMMY_LOAD.1 | (1 << 41) | (0x4 << 52));
        let gpu = ins(0x7992, 0x2000 | (6 << 41));
        let e = edit_code(
            &[before, lds, lds, gpu, SELF_LOOP].concat(),
            false,
            false,
            true,
            false,
        )
        .unwrap()
        .unwrap();
        let (_, hi) = words(&e.code[..16]);
        assert_eq!(stall_of(hi), 4, "2 cycles and the two loads' one each");
        let (_, hi) = words(&e.code[16..32]);
        assert_eq!((hi >> 52) & 0x3f, 0x4, "the loads' wait on scoreboard 2");
    }

    #[test]
    fn a_stall_the_instruction_before_cannot_hold_goes_on_the_ones_before_it() {
        let yielding = |stall: u64| ins(0x7947, YIELD | (stall << 41));
        let mut code = [yielding(5), yielding(5)];
        add_stall(&mut code, 10);
        let stalls = code.map(|i| stall_of(words(&i).1));
        assert_eq!(
            stalls,
            [9, 11],
            "a yielding instruction holds 11 cycles at most"
        );
    }

    #[test]
    fn damaged_frames_are_errors_not_panics() {
        let e = Edit {
            mode: Mode::Release,
            code: vec![0; 32],
            moved: vec![0, 16, 32],
            before: Vec::new(),
            old_size: 32,
            runs: Vec::new(),
            exits: Vec::new(),
            old_padding: 0,
        };
        // DW_CFA_advance_loc4 with two of its four bytes; a ULEB that never ends.
        for program in [&[0x04, 0x01, 0x00][..], &[0x0e, 0x80, 0x80][..]] {
            let mut out = program.to_vec();
            assert!(advances(program, 0, program.len(), 4, &e, &mut out).is_err());
        }
        assert!(little_endian(&[1, 2], 1, 4).is_err());
        assert_eq!(little_endian(&[0x34, 0x12], 0, 2).unwrap(), 0x1234);
    }

    #[test]
    fn kernels_that_call_keep_their_code() {
        let call = ins(0x7943, 0);
        assert!(edit_code(&[LDS, call].concat(), false, false, true, false)
            .unwrap()
            .is_none());
    }

    /// `BRX R6` at instruction `k`, relative to the function's start.
    fn brx(k: usize) -> [u8; 16] {
        let (lo, hi) = with_split_field(0x0600_7949, 0x000f_ea00_0380_0000, -(k as i64 + 1) * 4);
        ins(lo, hi)
    }

    #[test]
    fn an_indirect_branch_still_points_at_the_functions_start() {
        let code = [LDS, LDS, LDS, LDS, GPU, brx(5), EXIT, SELF_LOOP].concat();
        let e = edit_code(&code, false, false, true, false)
            .unwrap()
            .unwrap();
        let (lo, hi) = words(&e.code[16..32]);
        assert_eq!(split_field(lo, hi), -8, "BRX now second: 32 bytes back");
    }

    #[test]
    fn an_indirect_branch_relative_to_elsewhere_is_refused() {
        let odd = brx(3);
        let code = [LDS, LDS, LDS, LDS, GPU, odd, EXIT, SELF_LOOP].concat();
        assert!(edit_code(&code, false, false, true, false).is_err());
    }

    #[test]
    fn branch_target_records_name_the_brx_and_its_targets() {
        // nvlink's INDIRECT_BRANCH_TARGETS for a 3-way switch: BRX at 0xe0, 3 targets.
        let payload: Vec<u8> = [0xe0u32, 0, 3, 0x150, 0xf0, 0x330]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(
            branch_targets(&payload).unwrap(),
            [(0, false), (12, true), (16, true), (20, true)]
        );
        assert!(
            branch_targets(&payload[..20]).is_err(),
            "a truncated record"
        );
    }
}
