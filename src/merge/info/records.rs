//! Records as the output holds them: bytes with symbol slots filled in at write time.

use crate::elf::nvinfo::{self, Payload, Value};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::Builder;
use crate::output::*;

/// Records in the order a list of them is put together, kept in one buffer (no allocation
/// per record): each is a stretch of `all`'s bytes and of its slots.
#[derive(Default)]
pub(super) struct Recs {
    all: RecordBytes,
    /// Each record's bytes and slots, in the list's order.
    list: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
}

impl Recs {
    /// Room for about `bytes` bytes of records, `records` of them.
    pub fn with_capacity(bytes: usize, records: usize) -> Recs {
        Recs {
            all: RecordBytes::with_capacity(bytes, 0),
            list: Vec::with_capacity(records),
        }
    }

    /// Appends what `add` appends to the buffer as one record, if it says it added one.
    pub fn push_with(&mut self, add: impl FnOnce(&mut RecordBytes) -> bool) {
        let (b0, s0) = (self.all.bytes.len(), self.all.slots.len());
        if add(&mut self.all) {
            self.list
                .push((b0..self.all.bytes.len(), s0..self.all.slots.len()));
        }
    }

    /// Appends a record of these bytes, with no symbol slots.
    pub fn push_plain(&mut self, bytes: &[u8]) {
        self.push_with(|all| {
            all.bytes.extend_from_slice(bytes);
            true
        });
    }

    /// The place in the list of the first record of `attr`.
    pub fn find(&self, attr: u8) -> Option<usize> {
        self.list
            .iter()
            .position(|(b, _)| self.all.bytes[b.start + 1] == attr)
    }

    /// The bytes of the record at `k`.
    pub fn bytes_mut(&mut self, k: usize) -> &mut [u8] {
        &mut self.all.bytes[self.list[k].0.clone()]
    }

    /// Puts the record `add` appends in the place of the one at `k`.
    pub fn replace_with(&mut self, k: usize, add: impl FnOnce(&mut RecordBytes)) {
        let (b0, s0) = (self.all.bytes.len(), self.all.slots.len());
        add(&mut self.all);
        self.list[k] = (b0..self.all.bytes.len(), s0..self.all.slots.len());
    }

    /// The records laid end to end in the list's order (the buffer as it is, where no record
    /// was replaced).
    pub fn into_content(self) -> Content {
        let in_order = self
            .list
            .iter()
            .try_fold(0, |end, (b, _)| (b.start == end).then_some(b.end))
            == Some(self.all.bytes.len());
        if in_order {
            return self.all.into_content();
        }
        let mut out = RecordBytes::default();
        for (b, s) in &self.list {
            out.extend_from(&self.all, b.clone(), s.clone());
        }
        out.into_content()
    }
}

pub(super) fn encode(format: u8, attr: u8, value: &Value<'_>) -> Vec<u8> {
    let payload = match value {
        Value::Bytes(p) => p.len(),
        _ => 0,
    };
    let mut b = Vec::with_capacity(4 + payload);
    put(&mut b, format, attr, value);
    b
}

/// Appends one record's bytes to `b`.
fn put(b: &mut Vec<u8>, format: u8, attr: u8, value: &Value<'_>) {
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
}

pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Appends a copy of a record to `out`, the symbol indices in it mapped; false, and nothing
/// appended, when a symbol it names is gone.
pub(super) fn map_record(
    bld: &Builder<'_, '_>,
    oi: ObjectId,
    r: &nvinfo::Record<'_>,
    out: &mut RecordBytes,
) -> bool {
    if let Value::Bytes(p) = r.value {
        match nvinfo::payload_kind(r.attr, p.len()) {
            Payload::SymbolValue | Payload::ParamCbank => {
                let Some(sym) = bld.p.out_sym(oi, u32_at(p, 0)) else {
                    return false;
                };
                out.slots.push((out.bytes.len() + 4, sym));
            }
            Payload::Symbols => {
                let start = out.bytes.len();
                out.bytes.extend_from_slice(&[r.format, r.attr, 0, 0]);
                for k in 0..p.len() / 4 {
                    if let Some(s) = bld.p.out_sym(oi, u32_at(p, 4 * k)) {
                        out.slots.push((out.bytes.len(), s));
                        out.bytes.extend_from_slice(&[0; 4]);
                    }
                }
                let n = (out.bytes.len() - start - 4) as u16;
                out.bytes[start + 2..start + 4].copy_from_slice(&n.to_le_bytes());
                return true;
            }
            Payload::Words => {}
        }
    }
    put(&mut out.bytes, r.format, r.attr, &r.value);
    true
}

/// Records laid end to end as the output holds them, appended one by one (no allocation per
/// record).
#[derive(Default)]
pub(super) struct RecordBytes {
    pub bytes: Vec<u8>,
    pub slots: Vec<(usize, OutSym)>,
}

impl RecordBytes {
    /// Room for `bytes` bytes of records and `slots` symbol slots.
    pub fn with_capacity(bytes: usize, slots: usize) -> Self {
        RecordBytes {
            bytes: Vec::with_capacity(bytes),
            slots: Vec::with_capacity(slots),
        }
    }

    /// A `{symbol, value}` record (FRAME_SIZE, REGCOUNT, MIN_STACK_SIZE …).
    pub fn symbol_value(&mut self, format: u8, attr: u8, sym: OutSym, v: u32) {
        self.bytes.extend_from_slice(&[format, attr, 8, 0]);
        self.slots.push((self.bytes.len(), sym));
        self.bytes.extend_from_slice(&[0; 4]);
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn append(&mut self, other: RecordBytes) {
        self.extend_from(&other, 0..other.bytes.len(), 0..other.slots.len());
    }

    /// Appends `from`'s records in `bytes`, whose symbol slots are `from.slots[slots]`.
    fn extend_from(
        &mut self,
        from: &RecordBytes,
        bytes: std::ops::Range<usize>,
        slots: std::ops::Range<usize>,
    ) {
        let base = self.bytes.len();
        self.slots.extend(
            from.slots[slots]
                .iter()
                .map(|&(at, s)| (at - bytes.start + base, s)),
        );
        self.bytes.extend_from_slice(&from.bytes[bytes]);
    }

    pub fn into_content(self) -> Content {
        Content::WithSymbols {
            bytes: self.bytes,
            slots: self.slots,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn with_symbol(bytes: &[u8], sym: usize) -> impl FnOnce(&mut RecordBytes) -> bool + '_ {
        move |all: &mut RecordBytes| {
            all.slots
                .push((all.bytes.len() + 4, OutSym::from_index(sym)));
            all.bytes.extend_from_slice(bytes);
            true
        }
    }

    fn laid_out(c: Content) -> (Vec<u8>, Vec<(usize, OutSym)>) {
        match c {
            Content::WithSymbols { bytes, slots } => (bytes, slots),
            _ => panic!("records are bytes with symbol slots"),
        }
    }

    #[test]
    fn records_are_laid_out_in_the_order_they_were_added_with_their_slots() {
        let mut recs = Recs::default();
        recs.push_plain(&[2, 0x4c, 3, 0]);
        recs.push_with(with_symbol(&[4, 0x2f, 8, 0, 9, 9, 9, 9, 7, 0, 0, 0], 5));
        recs.push_with(|_| false);
        let (bytes, slots) = laid_out(recs.into_content());
        assert_eq!(
            bytes,
            [2, 0x4c, 3, 0, 4, 0x2f, 8, 0, 9, 9, 9, 9, 7, 0, 0, 0]
        );
        assert_eq!(slots, [(8, OutSym::from_index(5))]);
    }

    #[test]
    fn a_replaced_record_takes_the_place_of_the_one_it_replaces() {
        let mut recs = Recs::default();
        recs.push_with(with_symbol(&[4, 0x2f, 8, 0, 9, 9, 9, 9, 7, 0, 0, 0], 5));
        recs.push_plain(&[2, 0x4c, 3, 0]);
        recs.push_with(with_symbol(&[4, 0x11, 8, 0, 9, 9, 9, 9, 1, 0, 0, 0], 6));
        let k = recs.find(0x4c).unwrap();
        recs.replace_with(k, |all| all.bytes.extend_from_slice(&[2, 0x4c, 5, 0]));
        recs.bytes_mut(recs.find(0x4c).unwrap())[2] += 1;
        let (bytes, slots) = laid_out(recs.into_content());
        assert_eq!(
            bytes,
            [
                4, 0x2f, 8, 0, 9, 9, 9, 9, 7, 0, 0, 0, 2, 0x4c, 6, 0, 4, 0x11, 8, 0, 9, 9, 9, 9, 1,
                0, 0, 0
            ]
        );
        assert_eq!(
            slots,
            [(4, OutSym::from_index(5)), (20, OutSym::from_index(6))]
        );
    }
}
