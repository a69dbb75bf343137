//! Capsule Mercury code (`.nv.capmerc.text.<fn>`, sm_100 and later): where a relocated
//! instruction's value lives, so that the link can write into the capsule what it writes into
//! the SASS.
//!
//! What black-box experiments (objects compiled from our own sources, linked by nvlink,
//! compared byte for byte) show of the layout, and all this module relies on:
//! - a 12-byte header: the main-half `.text` section index (u32, fixed by the writer), a u32
//!   of flags, and `n`, the number of Mercury instructions: the SASS's, but for the `NOP`s the
//!   finalizer added (and, where it expanded instructions, fewer: see
//!   `docs/research/capsule-numbering.md`);
//! - a bitmap of `n` bits (in whole u32 words): bit `i` set means instruction `i` is carried
//!   by the SASS alone; a clear bit means the capsule holds an entry for it. The entries
//!   follow the bitmap, one per clear bit in instruction order;
//! - an entry is a 2-byte token (first byte with bit 0x10 set and a clear low nibble: `50 xx`,
//!   `d0 xx`; the closing branch is always one, and the finalizer's scoreboard waits
//!   (`DEPBAR.LE`) are too), or a record, which may start with 2-byte prefixes (bit 0x10 set,
//!   low nibble not clear: `51 xx`, `d1 xx`, `31 xx`): 4 bytes when its first byte is 0x4_,
//!   or `first byte` × 16 bytes when its top two bits are clear (1,502 capsules of the
//!   corpus and of programs written elsewhere: the entries are exactly the clear bits);
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

mod numbering;
pub use numbering::Numbering;
use numbering::Slot;

/// Whether a relocation of type `r_type` may need its value written into the capsule:
/// immediates never do, whatever the numbering (the SASS alone carries them).
pub fn needs_capsule(r_type: u32) -> bool {
    Field::of(r_type) != Field::Immediate
}

/// Where in capsule `code` the value of a relocation on SASS instruction `instr` (its byte
/// offset in `.text` / 16) goes: `Ok(None)` when the instruction has no capsule record.
/// `numbering` pairs the function's SASS with the capsule, `r_type` is the relocation's type.
pub fn value_field(
    code: &[u8],
    numbering: &Numbering,
    instr: u64,
    r_type: u32,
) -> Result<Option<usize>> {
    let class = Field::of(r_type);
    if class == Field::Immediate {
        return Ok(None);
    }
    let k = match numbering.slot(instr)? {
        Slot::Mercury(k) => u64::from(k),
        Slot::Nop => {
            return Err(Damaged(format!(
                "relocated instruction {instr} is a NOP the finalizer added, not one the \
                 capsule describes"
            )))
        }
        Slot::Added => {
            return Err(Unknown(format!(
                "relocated instruction {instr} is one the finalizer added in expanding the \
                 code, which no capsule entry describes"
            )))
        }
    };
    match (numbering.entry(k), class) {
        (None, Field::ConstantLoad) => Err(Unknown(format!(
            "instruction {instr} loads a constant but has no capsule record"
        ))),
        (None, _) => Ok(None),
        (Some(Entry::Record(body)), _) => match (code[body], code.get(body + 1)) {
            (2, Some(0x22)) => Ok(Some(body + 0x1c)),
            (kind, sub) => Err(Unknown(format!(
                "instruction {instr} has a capsule record of a kind whose value field is not \
                 known ({kind:#04x} {:#04x})",
                sub.copied().unwrap_or(0)
            ))),
        },
        (Some(Entry::Token(token)), _) => Err(Unknown(format!(
            "instruction {instr} is a 2-byte capsule token ({token:#06x}) with no value field"
        ))),
    }
}

/// What a capsule holds for one Mercury instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Described {
    /// Nothing: the SASS alone carries it (its bitmap bit is set).
    Carried,
    /// A 2-byte token.
    Token,
    /// A record, by its first two bytes (kind, sub-kind).
    Record(u8, u8),
}

/// What the capsule must hold for an instruction a relocation of each type patches, as in
/// every sm_100+ object of the corpus and testdata/programs (and nvlink's partial links of
/// them): 70,000 relocations, no exception. Immediates are carried by the SASS, calls have
/// a `42 0a` record, constant loads a `02 22` one. Types not listed were not seen in code.
const RELOCATED_ENTRIES: &[(&str, Described)] = &[
    ("R_CUDA_ABS32_32", Described::Carried),
    ("R_CUDA_ABS32_LO_32", Described::Carried),
    ("R_CUDA_ABS32_HI_32", Described::Carried),
    ("R_CUDA_ABS16_32", Described::Carried),
    ("R_CUDA_FUNC_DESC32_LO_32", Described::Carried),
    ("R_CUDA_FUNC_DESC32_HI_32", Described::Carried),
    ("R_CUDA_UNIFIED32_LO_32", Described::Carried),
    ("R_CUDA_UNIFIED32_HI_32", Described::Carried),
    ("R_CUDA_ABS56_16_34", Described::Carried),
    ("R_CUDA_ABS55_16_34", Described::Record(0x42, 0x0a)),
    ("R_CUDA_CONST_FIELD21_38", Described::Record(0x02, 0x22)),
    ("R_CUDA_CONST_FIELD22_37", Described::Record(0x02, 0x22)),
];

/// What the capsule holds for the instruction a relocation of type `r_type` patches, where
/// the toolkit's objects all agree (`None`: no rule).
pub fn required_entry(r_type: u32) -> Option<Described> {
    let name = crate::reloc::table::name(r_type)?;
    RELOCATED_ENTRIES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, d)| d)
}

/// What capsule `code` holds for each SASS instruction of `sass` (the function's `.text`):
/// `None` for the `NOP`s the finalizer added, which are not Mercury instructions. `Ok(None)`
/// where the capsule counts other instructions than the SASS has (expanded code: the
/// numbering is not known).
pub fn described(code: &[u8], sass: &[u8]) -> Result<Option<Vec<Option<Described>>>> {
    let mut out = Vec::new();
    let paired = each_instruction(code, sass, |_, held| {
        out.push(match held {
            Held::Added => None,
            Held::Carried => Some(Described::Carried),
            Held::Entry(Entry::Token(_)) => Some(Described::Token),
            Held::Entry(Entry::Record(body)) => Some(Described::Record(
                code[body],
                code.get(body + 1).copied().unwrap_or(0),
            )),
        });
    })?;
    Ok(paired.then_some(out))
}

/// Where `sass` (a function's `.text`) has another instruction than capsule `code`
/// describes: the first instruction whose opcode is not one ptxas writes beside its record
/// or token (`capsule_opcodes`). `None` where all agree, where the entry's key is not in the
/// table, or where the numbering is not known.
pub fn unlike_capsule(code: &[u8], sass: &[u8]) -> Result<Option<String>> {
    use super::capsule_opcodes::{RECORDS, TOKENS};
    let mut found = None;
    let mut at = 0;
    each_instruction(code, sass, |ins, held| {
        let offset = at;
        at += 16;
        if found.is_some() {
            return;
        }
        // (The key is copied into the message only where the opcode differs: this runs on
        // every entry of every sm_100+ input.)
        let (known, key) = match held {
            Held::Entry(Entry::Token(token)) => {
                let key = token.to_be_bytes();
                (lookup(TOKENS, &key), KeyOf::Token(key))
            }
            Held::Entry(Entry::Record(body)) => match code.get(body..body + 3) {
                Some(&[a, b, c]) => (lookup(RECORDS, &[a, b, c]), KeyOf::Record([a, b, c])),
                _ => return,
            },
            Held::Added | Held::Carried => return,
        };
        let (Some(opcodes), Some(opcode)) = (known, super::opcode(ins)) else {
            return;
        };
        if !opcodes.contains(&opcode) {
            found = Some(format!(
                "the instruction at {offset:#x} has opcode {opcode:#05x} where its capsule \
                 entry ({}) stands for {}",
                key.show(),
                super::show_opcodes(opcodes)
            ));
        }
    })?;
    Ok(found)
}

/// An entry's key in `capsule_opcodes`.
#[derive(Debug, Clone, Copy)]
enum KeyOf {
    Token([u8; 2]),
    Record([u8; 3]),
}

impl KeyOf {
    /// The key's bytes in hex (`02 22 0e`).
    fn show(self) -> String {
        let bytes: &[u8] = match &self {
            KeyOf::Token(k) => k,
            KeyOf::Record(k) => k,
        };
        bytes
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The opcodes `table` lists for `key`.
fn lookup<const N: usize>(
    table: &[([u8; N], &'static [u16])],
    key: &[u8; N],
) -> Option<&'static [u16]> {
    table
        .binary_search_by(|(k, _)| k.cmp(key))
        .ok()
        .map(|i| table[i].1)
}

/// What a capsule holds for one SASS instruction.
#[derive(Debug, Clone, Copy)]
enum Held {
    /// Nothing: a `NOP` the finalizer added, not a Mercury instruction.
    Added,
    /// Nothing: the SASS alone carries it.
    Carried,
    Entry(Entry),
}

/// Calls `f` for each SASS instruction of `sass` up to its closing branch, with what capsule
/// `code` holds for it. `Ok(false)`, calling nothing, where the capsule counts other
/// instructions than the SASS has.
fn each_instruction(code: &[u8], sass: &[u8], mut f: impl FnMut(&[u8], Held)) -> Result<bool> {
    let n = instruction_count(code)?;
    let instructions = sass.chunks_exact(16).take(sass_instructions(sass) as usize);
    if instructions.clone().filter(|i| i[..8] != NOP).count() as u64 != n {
        return Ok(false);
    }
    let (bitmap, mut at) = bitmap(code, n)?;
    let mut mercury = 0u64;
    for ins in instructions {
        if ins[..8] == NOP {
            f(ins, Held::Added);
            continue;
        }
        let i = mercury;
        mercury += 1;
        if bitmap[(i / 8) as usize] & (1 << (i % 8)) != 0 {
            f(ins, Held::Carried);
            continue;
        }
        let (entry, next) = entry_at(code, at)?;
        at = next;
        f(ins, Held::Entry(entry));
    }
    Ok(true)
}

/// Where one Mercury instruction's entry lies in a capsule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntrySpan {
    pub mercury: usize,
    /// Its first byte (prefixes included), its record's body, and its end.
    pub start: usize,
    pub body: usize,
    pub end: usize,
}

/// Every record entry of capsule `code`, in instruction order.
pub fn record_spans(code: &[u8]) -> Result<Vec<EntrySpan>> {
    let n = instruction_count(code)?;
    let (bitmap, mut at) = bitmap(code, n)?;
    let mut spans = Vec::new();
    for i in 0..n as usize {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            continue;
        }
        let (entry, next) = entry_at(code, at)?;
        if let Entry::Record(body) = entry {
            spans.push(EntrySpan {
                mercury: i,
                start: at,
                body,
                end: next,
            });
        }
        at = next;
    }
    Ok(spans)
}

/// Capsule `code` with an entry for each of `added`'s SASS instructions (an index into
/// `sass`, the function's `.text`, and the entry's bytes, prefixes included): the Mercury
/// instruction each is, carried by the SASS alone before, gets its bit cleared and its entry
/// in instruction order. The closing token is left as it was.
pub fn with_entries(code: &[u8], sass: &[u8], added: &[(u64, &[u8])]) -> Result<Vec<u8>> {
    let numbering = Numbering::new(code, sass)?;
    let n = instruction_count(code)?;
    let (bitmap, start) = bitmap(code, n)?;
    // Where each Mercury instruction's entry starts, or would.
    let mut places = Vec::with_capacity(n as usize);
    let mut at = start;
    for i in 0..n as usize {
        places.push(at);
        if bitmap[i / 8] & (1 << (i % 8)) == 0 {
            at = entry_at(code, at)?.1;
        }
    }
    let mut mercury = Vec::with_capacity(added.len());
    for &(instr, bytes) in added {
        match numbering.slot(instr)? {
            numbering::Slot::Mercury(k) if numbering.entry(u64::from(k)).is_none() => {
                mercury.push((k as usize, bytes))
            }
            _ => {
                return Err(Unknown(format!(
                    "instruction {instr} is not one the SASS alone carries"
                )))
            }
        }
    }
    mercury.sort_unstable_by_key(|m| m.0);
    let mut out = code[..start].to_vec();
    let mut from = start;
    for (k, bytes) in mercury {
        out[12 + k / 8] &= !(1 << (k % 8));
        out.extend_from_slice(&code[from..places[k]]);
        out.extend_from_slice(bytes);
        from = places[k];
    }
    out.extend_from_slice(&code[from..]);
    Ok(out)
}

/// The offsets of every 2-byte prefix in capsule `code` (its entries walked in order), and
/// where the entries end.
pub fn prefixes(code: &[u8]) -> Result<(Vec<usize>, usize)> {
    let n = instruction_count(code)?;
    let (bitmap, mut at) = bitmap(code, n)?;
    let mut found = Vec::new();
    for i in 0..n as usize {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            continue;
        }
        let (entry, next) = entry_at(code, at)?;
        if let Entry::Record(body) = entry {
            found.extend((at..body).step_by(2));
        }
        at = next;
    }
    Ok((found, at))
}

/// The header's count of Mercury instructions (`n`).
fn instruction_count(code: &[u8]) -> Result<u64> {
    code.get(8..12)
        .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .ok_or_else(|| Damaged("capsule code is truncated".into()))
}

/// The bitmap of `n` instructions (whole u32 words) and where the entries after it start.
fn bitmap(code: &[u8], n: u64) -> Result<(&[u8], usize)> {
    let end = 12 + 4 * n.div_ceil(32) as usize;
    let bitmap = code
        .get(12..end)
        .ok_or_else(|| Damaged("capsule code is truncated".into()))?;
    Ok((bitmap, end))
}

/// One instruction's entry in the capsule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// A 2-byte token (its two bytes, first in the high byte).
    Token(u16),
    /// A record whose body (after any prefixes) starts here.
    Record(usize),
}

/// What a relocated field is, for the capsule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// An instruction's immediate operand (`MOV R, imm`: shared-memory and constant
    /// addresses): the SASS alone carries such instructions, in every link tried, so the
    /// capsule needs nothing whatever its instruction numbering.
    Immediate,
    /// The constant-bank offset of a constant load: always has a record.
    ConstantLoad,
    Other,
}

impl Field {
    fn of(r_type: u32) -> Field {
        match crate::reloc::table::name(r_type).unwrap_or("") {
            "R_CUDA_ABS32_32" | "R_CUDA_ABS16_32" => Field::Immediate,
            name if name.starts_with("R_CUDA_CONST_FIELD") => Field::ConstantLoad,
            _ => Field::Other,
        }
    }
}

/// A count as the capsule writes it in a prefix or a token: the kind byte, with 0x80 where
/// the count is even, then half the count rounded up (`51 02`: three instructions the
/// finalizer added; the closing token `d0 04`: eight padding NOPs).
pub fn counted(kind: u8, n: usize) -> [u8; 2] {
    let even = if n % 2 == 0 { 0x80 } else { 0 };
    [kind | even, n.div_ceil(2) as u8]
}

/// The SASS instructions the finalizer added that prefix `p` counts (`51 k`: 2k − 1,
/// `d1 k`: 2k; `counted`'s inverse), `None` for a prefix of another kind.
pub fn prefix_count(p: [u8; 2]) -> Option<usize> {
    let k = 2 * usize::from(p[1]);
    match p[0] {
        0x51 => Some(k.saturating_sub(1)),
        0xd1 => Some(k),
        _ => None,
    }
}

/// The first word of `@!PT LDS RZ, [RZ]`, the dummy load the finalizer puts before fences
/// and asynchronous copies.
pub const DUMMY_LOAD: u64 = 0xffff_f984;

/// The kind of a 16-byte record for a capsule instruction the SASS does not have (its first
/// byte, which is not a prefix though bit 0x10 is set): every capsule of the corpus and
/// testdata/programs parses to its bitmap's count with it, eight CUTLASS/CuTe GEMMs hold
/// them, and their capsules count as many instructions more than their SASS, less the
/// instructions the prefixes say the finalizer added (docs/research/capsule-numbering.md).
pub(crate) const ABSENT: u8 = 0x31;

/// The low half of a SASS `NOP` (the high half holds its scheduling bits).
const NOP: [u8; 8] = [0x18, 0x79, 0, 0, 0, 0, 0, 0];

/// The number of SASS instructions in `sass`, up to and including the closing branch: the
/// padding `NOP`s after it are not counted.
fn sass_instructions(sass: &[u8]) -> u64 {
    (sass.len() / 16 - trailing_nops(sass)) as u64
}

/// The padding `NOP`s after a function's closing branch (`sass`: its `.text`).
pub fn trailing_nops(sass: &[u8]) -> usize {
    sass.chunks_exact(16)
        .rev()
        .take_while(|i| i[..8] == NOP)
        .count()
}

/// ptxas's padding instruction, whole (a `NOP` with its scheduling bits): what follows a
/// function's closing branch, in all 320,000 padding slots of the corpus and
/// testdata/programs on every target.
pub const PADDING_NOP: [u8; 16] = [0x18, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x0f, 0];

/// Where `sass` (a function's `.text`) departs from how every toolkit function ends: its
/// last instruction but padding is the closing branch (`BRA` to itself, low bytes `47 79`),
/// and the padding is `PADDING_NOP` exactly. `None` when it ends so (or is empty).
pub fn unlike_closing(sass: &[u8]) -> Option<String> {
    let n = sass.len() / 16;
    let instruction = |i: usize| &sass[16 * i..16 * i + 16];
    let last = n.checked_sub(trailing_nops(sass) + 1)?;
    if !instruction(last).starts_with(&[0x47, 0x79]) {
        return Some(format!(
            "its last instruction before the padding, at {:#x}, is not the closing branch",
            16 * last
        ));
    }
    let odd = (last + 1..n).find(|&i| instruction(i) != PADDING_NOP)?;
    Some(format!(
        "the padding instruction at {:#x} is not ptxas's NOP",
        16 * odd
    ))
}

/// The entry starting at `at` (a token, or a record: where its body starts, after any
/// prefixes), and where the next one starts.
fn entry_at(code: &[u8], mut at: usize) -> Result<(Entry, usize)> {
    let byte = |at: usize| {
        code.get(at)
            .copied()
            .ok_or_else(|| Damaged("capsule code ends inside its records".into()))
    };
    while byte(at)? & 0x10 != 0 && byte(at)? != ABSENT {
        if byte(at)? & 0x0f == 0 {
            let token = u16::from_be_bytes([byte(at)?, byte(at + 1)?]);
            return Ok((Entry::Token(token), at + 2));
        }
        at += 2;
    }
    let kind = byte(at)?;
    let size = match kind {
        ABSENT => 16,
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
    Ok((Entry::Record(at), at + size))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `super::value_field` with the numbering made for the one call.
    fn value_field(code: &[u8], sass: &[u8], instr: u64, r_type: u32) -> Result<Option<usize>> {
        if !needs_capsule(r_type) {
            return Ok(None);
        }
        super::value_field(code, &Numbering::new(code, sass)?, instr, r_type)
    }

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

    /// R_CUDA_CONST_FIELD22_37, the constant offset of an sm_100 `LDC`.
    const LDC: u32 = 115;
    /// R_CUDA_ABS32_32, an immediate (`MOV R, imm32`).
    const MOV: u32 = 55;

    /// SASS of as many instructions as capsule `c` describes, then padding.
    fn sass_for(c: &[u8]) -> Vec<u8> {
        sass(u32::from_le_bytes([c[8], c[9], c[10], c[11]]) as usize)
    }

    fn sass(instructions: usize) -> Vec<u8> {
        let mut s = vec![0x47u8; 16 * instructions];
        for _ in 0..3 {
            s.extend([0x18, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        }
        s
    }

    fn unit(kind: u8, sub: u8, units: usize) -> Vec<u8> {
        let mut r = vec![0u8; 16 * units];
        r[0] = kind;
        r[1] = sub;
        r
    }

    /// `sass` with instruction `i`'s opcode bytes set to `op` (little-endian, as in SASS).
    fn with_opcode(mut sass: Vec<u8>, i: usize, op: [u8; 2]) -> Vec<u8> {
        sass[16 * i..16 * i + 2].copy_from_slice(&op);
        sass
    }

    /// An `LDC`'s record (`02 22 0e`) beside a carried instruction, then the closing branch's
    /// token.
    fn ldc_capsule() -> Vec<u8> {
        let mut ldc = unit(2, 0x22, 2);
        ldc[2] = 0x0e;
        capsule(3, &[0], &[&ldc])
    }

    #[test]
    fn an_instruction_with_its_records_opcode_is_like_the_capsule() {
        let c = ldc_capsule();
        let s = with_opcode(with_opcode(sass_for(&c), 1, [0x82, 0x7b]), 2, [0x47, 0x79]);
        assert_eq!(unlike_capsule(&c, &s).unwrap(), None);
    }

    #[test]
    fn an_instruction_with_another_opcode_than_its_record_is_unlike_the_capsule() {
        let c = ldc_capsule();
        let s = with_opcode(with_opcode(sass_for(&c), 1, [0x4a, 0x7b]), 2, [0x47, 0x79]);
        assert_eq!(
            unlike_capsule(&c, &s).unwrap().as_deref(),
            Some("the instruction at 0x10 has opcode 0xb4a where its capsule entry (02 22 0e) stands for 0xb82")
        );
        let s = with_opcode(with_opcode(sass_for(&c), 1, [0x82, 0x7b]), 2, [0x48, 0x79]);
        assert!(unlike_capsule(&c, &s)
            .unwrap()
            .unwrap()
            .contains("(50 08) stands for 0x947"));
    }

    #[test]
    fn a_record_kind_not_in_the_table_says_nothing_of_the_opcode() {
        let mut c = ldc_capsule();
        c[16 + 2] = 0xee; // the record's third byte: a key no toolkit object showed
        let s = with_opcode(with_opcode(sass_for(&c), 1, [0x4a, 0x7b]), 2, [0x47, 0x79]);
        assert_eq!(unlike_capsule(&c, &s).unwrap(), None);
    }

    #[test]
    fn the_opcode_tables_are_sorted_for_binary_search() {
        use crate::reloc::capsule_opcodes::{RECORDS, TOKENS};
        assert!(RECORDS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(TOKENS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn expanded_code_is_not_compared_with_its_capsule() {
        let c = ldc_capsule();
        assert_eq!(unlike_capsule(&c, &sass(5)).unwrap(), None);
    }

    #[test]
    fn constant_load_record_keeps_its_offset_at_0x1c() {
        let ldc = unit(2, 0x22, 2);
        let c = capsule(4, &[2], &[&unit(1, 0x0b, 1), &ldc, &unit(2, 0x38, 2)]);
        // Instruction 1 is the second record, after the header, bitmap and one 16-byte record.
        assert_eq!(
            value_field(&c, &sass_for(&c), 1, LDC).unwrap(),
            Some(16 + 16 + 0x1c)
        );
    }

    #[test]
    fn instructions_carried_by_the_sass_need_no_capsule_change() {
        let c = capsule(4, &[0, 2], &[&unit(2, 0x22, 2), &unit(2, 0x38, 2)]);
        let other = 56; // R_CUDA_ABS32_LO_32
        assert_eq!(value_field(&c, &sass_for(&c), 2, other).unwrap(), None);
        assert_eq!(value_field(&c, &sass_for(&c), 0, other).unwrap(), None);
    }

    #[test]
    fn a_constant_load_the_capsule_has_no_record_for_is_refused() {
        let c = capsule(2, &[0], &[&unit(2, 0x22, 2)]);
        assert!(matches!(
            value_field(&c, &sass_for(&c), 0, LDC),
            Err(Unknown(_))
        ));
    }

    #[test]
    fn immediates_need_nothing_whatever_the_numbering() {
        // More SASS than capsule instructions: the numbering is not known.
        let c = capsule(2, &[], &[&unit(2, 0x22, 2)]);
        assert_eq!(value_field(&c, &sass(5), 3, MOV).unwrap(), None);
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
        assert_eq!(
            value_field(&c, &sass_for(&c), 2, LDC).unwrap(),
            Some(16 + 4 + 18 + 0x1c)
        );
        let mut prefixed_ldc = vec![0xd1, 0x04];
        prefixed_ldc.extend(unit(2, 0x22, 2));
        let c = capsule(2, &[], &[&prefixed_ldc]);
        assert_eq!(
            value_field(&c, &sass_for(&c), 0, LDC).unwrap(),
            Some(16 + 2 + 0x1c)
        );
    }

    #[test]
    fn a_two_byte_token_is_an_instruction_of_its_own() {
        // (ptxas's texture kernels on sm_100: each `DEPBAR.LE` the finalizer added is a `d0 00`
        // token before the next record.) 0: record, 1: token, 2: the constant load.
        let c = capsule(
            4,
            &[],
            &[&unit(1, 0x0b, 1), &[0xd0, 0x00], &unit(2, 0x22, 2)],
        );
        assert_eq!(
            value_field(&c, &sass_for(&c), 2, LDC).unwrap(),
            Some(16 + 16 + 2 + 0x1c)
        );
        assert!(matches!(
            value_field(&c, &sass_for(&c), 1, LDC),
            Err(Unknown(_))
        ));
    }

    #[test]
    fn prefixes_are_listed_in_entry_order() {
        let mut fence = vec![0xd1, 0x04, 0x51, 0x01];
        fence.extend(unit(1, 0x49, 1));
        let c = capsule(3, &[1], &[&unit(1, 0x0b, 1), &fence]);
        let (found, end) = prefixes(&c).unwrap();
        assert_eq!(found, [16 + 16, 16 + 18]);
        assert_eq!(
            end,
            c.len() - 2,
            "the closing token is not one of the 3 instructions"
        );
    }

    #[test]
    fn records_of_unknown_kinds_are_refused() {
        let c = capsule(2, &[], &[&unit(1, 0x0b, 1)]);
        assert!(matches!(
            value_field(&c, &sass_for(&c), 0, LDC),
            Err(Unknown(_))
        ));
        let c = capsule(2, &[], &[&[0x80, 0, 0, 0]]);
        assert!(matches!(
            value_field(&c, &sass_for(&c), 0, LDC),
            Err(Unknown(_))
        ));
    }

    #[test]
    fn padding_nops_after_the_closing_branch_are_not_instructions() {
        assert_eq!(sass_instructions(&sass(5)), 5);
        assert_eq!(sass_instructions(&[]), 0);
    }

    #[test]
    fn nops_the_finalizer_added_are_not_capsule_instructions() {
        // Mercury: 0 (record), 1 (LDC, record); SASS: 0, NOP, 1.
        let c = capsule(2, &[], &[&unit(1, 0x0b, 1), &unit(2, 0x22, 2)]);
        let mut s = sass(1);
        s.splice(
            16..16,
            [0x18, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        );
        s.splice(32..32, [0x47; 16]);
        assert_eq!(value_field(&c, &s, 2, LDC).unwrap(), Some(16 + 16 + 0x1c));
        assert!(matches!(value_field(&c, &s, 1, LDC), Err(Damaged(_))));
    }

    #[test]
    fn a_31_record_is_a_record_not_a_prefix() {
        // Mercury: 0 (a `31` record), 1 (LDC record); then the closing token.
        let mut absent = unit(1, 0x02, 1);
        absent[0] = ABSENT;
        let c = capsule(2, &[], &[&absent, &unit(2, 0x22, 2)]);
        let spans = record_spans(&c).unwrap();
        assert_eq!(spans.len(), 2);
        assert_eq!((spans[0].start, spans[0].body, spans[0].end), (16, 16, 32));
    }

    #[test]
    fn a_capsule_instruction_with_a_31_record_has_no_sass_instruction() {
        // Mercury: 0 absent, 1 LDC, 2 closing branch; SASS: LDC, closing branch.
        let mut absent = unit(1, 0x02, 1);
        absent[0] = ABSENT;
        let c = capsule(3, &[], &[&absent, &unit(2, 0x22, 2)]);
        let n = Numbering::new(&c, &sass(2)).unwrap();
        assert_eq!(n.capsule_instruction(0), Some(1));
        assert_eq!(n.capsule_instruction(1), Some(2));
    }

    #[test]
    fn a_capsule_counting_fewer_instructions_than_the_sass_is_refused() {
        // (Expanded instructions: the SASS numbering is not the bitmap's.)
        let c = capsule(2, &[], &[&unit(2, 0x22, 2)]);
        assert!(matches!(value_field(&c, &sass(3), 0, LDC), Err(Unknown(_))));
    }

    #[test]
    fn each_sass_instruction_is_described_by_its_entry_and_nops_by_none() {
        // Mercury: 0 carried, 1 LDC record, 2 token; SASS: 0, NOP, 1, 2.
        let c = capsule(3, &[0], &[&unit(2, 0x22, 2), &[0xd0, 0x00]]);
        let mut s = sass(3);
        s.splice(
            16..16,
            [0x18, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        );
        assert_eq!(
            described(&c, &s).unwrap(),
            Some(vec![
                Some(Described::Carried),
                None,
                Some(Described::Record(2, 0x22)),
                Some(Described::Token),
            ])
        );
    }

    #[test]
    fn expanded_code_has_no_known_description() {
        let c = capsule(2, &[], &[&unit(2, 0x22, 2)]);
        assert_eq!(described(&c, &sass(3)).unwrap(), None);
    }

    #[test]
    fn immediates_calls_and_constant_loads_need_their_entries() {
        assert_eq!(required_entry(MOV), Some(Described::Carried));
        assert_eq!(required_entry(56), Some(Described::Carried));
        assert_eq!(required_entry(75), Some(Described::Record(0x42, 0x0a)));
        assert_eq!(required_entry(LDC), Some(Described::Record(0x02, 0x22)));
        assert_eq!(required_entry(0), None, "no rule for R_CUDA_NONE");
    }

    #[test]
    fn functions_end_with_their_closing_branch_and_ptxas_padding() {
        let mut code = vec![0x47u8; 16]; // an instruction
        code.extend([
            0x47, 0x79, 0, 0, 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0x83, 0x03, 0, 0, 0, 0,
        ]);
        code.extend(PADDING_NOP.repeat(6));
        assert_eq!(unlike_closing(&code), None);
        assert_eq!(unlike_closing(&[]), None);
        let mut odd = code.clone();
        odd[16 * 3 + 15] = 1;
        assert!(unlike_closing(&odd)
            .unwrap()
            .contains("at 0x30 is not ptxas's NOP"));
        let mut cut = code.clone();
        cut[16 * 7 + 1] = 0x56;
        assert!(unlike_closing(&cut)
            .unwrap()
            .contains("at 0x70, is not the closing branch"));
    }

    #[test]
    fn damaged_capsules_are_errors_not_panics() {
        assert!(matches!(value_field(&[], &[], 0, LDC), Err(Damaged(_))));
        assert!(matches!(
            value_field(&[0; 12], &[], 0, LDC),
            Err(Damaged(_))
        ));
        let mut c = capsule(40, &[], &[&unit(2, 0x22, 2)]);
        c.truncate(30);
        assert!(matches!(
            value_field(&c, &sass_for(&c), 3, LDC),
            Err(Damaged(_))
        ));
    }
}
