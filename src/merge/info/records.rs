//! Records as the output holds them: bytes with symbol slots filled in at write time.

use crate::elf::nvinfo::{self, Payload, Value};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::Builder;
use crate::output::*;

/// Encodes one record with symbol slots.
pub(super) struct Rec {
    pub bytes: Vec<u8>,
    pub slots: Vec<(usize, OutSym)>,
}

pub(super) fn encode(format: u8, attr: u8, value: &Value<'_>) -> Vec<u8> {
    let payload = match value {
        Value::Bytes(p) => p.len(),
        _ => 0,
    };
    let mut b = Vec::with_capacity(4 + payload);
    b.extend_from_slice(&[format, attr]);
    match value {
        Value::None => b.extend_from_slice(&[0, 0]),
        Value::Byte(x) => b.extend_from_slice(&[*x, 0]),
        Value::Half(h) => b.extend_from_slice(&h.to_le_bytes()),
        Value::Bytes(p) => {
            b.extend_from_slice(&(p.len() as u16).to_le_bytes());
            b.extend_from_slice(p);
        }
    }
    b
}

pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Copies a record, mapping the symbol indices in it. `None` when a symbol it names is gone.
pub(super) fn map_record(
    bld: &Builder<'_, '_>,
    oi: ObjectId,
    r: &nvinfo::Record<'_>,
) -> Option<Rec> {
    let mut slots = Vec::new();
    if let Value::Bytes(p) = r.value {
        match nvinfo::payload_kind(r.attr, p.len()) {
            Payload::SymbolValue | Payload::ParamCbank => {
                slots.push((4, bld.p.out_sym(oi, u32_at(p, 0))?));
            }
            Payload::Symbols => {
                let mut out = Vec::with_capacity(p.len() + 4);
                out.extend_from_slice(&[r.format, r.attr, 0, 0]);
                for k in 0..p.len() / 4 {
                    if let Some(s) = bld.p.out_sym(oi, u32_at(p, 4 * k)) {
                        slots.push((out.len(), s));
                        out.extend_from_slice(&[0; 4]);
                    }
                }
                let n = (out.len() - 4) as u16;
                out[2..4].copy_from_slice(&n.to_le_bytes());
                return Some(Rec { bytes: out, slots });
            }
            Payload::Words => {}
        }
    }
    Some(Rec {
        bytes: encode(r.format, r.attr, &r.value),
        slots,
    })
}

/// Records laid end to end as the output holds them, appended one by one (no allocation per
/// record).
#[derive(Default)]
pub(super) struct RecordBytes {
    pub bytes: Vec<u8>,
    pub slots: Vec<(usize, OutSym)>,
}

impl RecordBytes {
    /// A `{symbol, value}` record (FRAME_SIZE, REGCOUNT, MIN_STACK_SIZE …).
    pub fn symbol_value(&mut self, format: u8, attr: u8, sym: OutSym, v: u32) {
        self.bytes.extend_from_slice(&[format, attr, 8, 0]);
        self.slots.push((self.bytes.len(), sym));
        self.bytes.extend_from_slice(&[0; 4]);
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn push(&mut self, r: Rec) {
        let base = self.bytes.len();
        self.slots
            .extend(r.slots.into_iter().map(|(at, s)| (base + at, s)));
        self.bytes.extend_from_slice(&r.bytes);
    }

    pub fn append(&mut self, other: RecordBytes) {
        let base = self.bytes.len();
        self.slots
            .extend(other.slots.into_iter().map(|(at, s)| (base + at, s)));
        self.bytes.extend_from_slice(&other.bytes);
    }

    pub fn into_content(self) -> Content {
        Content::WithSymbols {
            bytes: self.bytes,
            slots: self.slots,
        }
    }
}

pub(super) fn concat(recs: Vec<Rec>) -> Content {
    let mut bytes = Vec::with_capacity(recs.iter().map(|r| r.bytes.len()).sum());
    let mut slots = Vec::with_capacity(recs.iter().map(|r| r.slots.len()).sum());
    for r in recs {
        let base = bytes.len();
        slots.extend(r.slots.into_iter().map(|(at, s)| (base + at, s)));
        bytes.extend_from_slice(&r.bytes);
    }
    Content::WithSymbols { bytes, slots }
}

/// Whether the symbol (as seen from object `oi`) is a function this link keeps.
pub(super) fn def_is_live(b: &Builder<'_, '_>, oi: ObjectId, sym: u32) -> bool {
    let objects = b.p.objects();
    let Some(s) = objects[oi].symbols().get(sym as usize) else {
        return false;
    };
    if s.st_type != STT_FUNC {
        return true;
    }
    match s.section {
        SymSection::Index(si) => b.p.is_live(oi, si as usize),
        _ => true,
    }
}

/// An output `.nv.info.<fn>` section.
pub(super) fn function_info_section(name: &[u8], info: Info, content: Content) -> OutSection {
    OutSection {
        name: name.to_vec(),
        sh_type: SHT_CUDA_INFO,
        flags: SHF_INFO_LINK,
        align: 4,
        entsize: 0,
        link: Link::Symtab,
        info,
        content,
        group: Group::InfoFn,
        section_symbol: None,
    }
}

/// Per function, a list of functions or names (callees, EXTERNS).
pub(super) type Adjacency = super::lists::SymLists<OutSym>;

pub(super) fn is_kernel(s: &OutSymbol) -> bool {
    s.st_type == STT_FUNC && s.other & STO_CUDA_ENTRY != 0
}

pub(super) fn list_of(adj: &Adjacency, f: OutSym) -> Vec<OutSym> {
    adj.get(f).to_vec()
}
