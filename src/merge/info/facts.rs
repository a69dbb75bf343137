//! What the inputs' `.nv.info` records say about each kept function, read once.

use super::records::*;
use crate::diag::{Error, Result};
use crate::elf::nvinfo::{self, Payload, Value};
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::Builder;
use crate::object::SectionKind;
use crate::output::*;

/// What the inputs' global `.nv.info` says of each kept function: FRAME_SIZE and REGCOUNT,
/// by output symbol. (The records themselves are read again where they are written,
/// `global::emit_global_info`, rather than held through the pass: 180,000 of them, with
/// their objects, on a link of 1600 small-function objects.) Dense tables by symbol, 0 where
/// no record says (as a missing record reads): filled on one thread in input order, where
/// hash maps of the same took 5 ms at wide-1600 and every reader hashed.
pub(super) struct GlobalFacts {
    pub frame: PerSymbol,
    pub regs: PerSymbol,
}

/// A value by output symbol, 0 where there is none.
pub(super) type PerSymbol = crate::ids::IdVec<OutSym, u32>;

/// Symbol `f`'s value in `t` (0: none).
pub(super) fn value_of(t: &PerSymbol, f: OutSym) -> u32 {
    t.get(f).copied().unwrap_or(0)
}

const MAX_REGISTERS: u32 = 255;

/// Reads the inputs' global `.nv.info` sections (each object's in parallel, gathered in
/// input order).
pub(super) fn global_facts(b: &Builder<'_, '_>) -> Result<GlobalFacts> {
    let objects = b.p.objects();
    // Per-function facts from the inputs' global .nv.info, by output function symbol.
    let per_object: Vec<Result<Vec<(u8, OutSym, u32)>>> =
        crate::object::par_map(objects, |oi| object_global_facts(b, oi));
    let n = b.m.symbols.len();
    let (mut frame, mut regs) = (PerSymbol::filled(0, n), PerSymbol::filled(0, n));
    // (A later record of the same function's wins, as a later insert would.)
    for values in per_object {
        for (attr, out, v) in values? {
            match attr {
                nvinfo::EIATTR_FRAME_SIZE => frame[out] = v,
                _ => regs[out] = v,
            };
        }
    }
    Ok(GlobalFacts { frame, regs })
}

/// One object's FRAME_SIZE and REGCOUNT values of kept functions (attribute, function,
/// value), in reading order.
fn object_global_facts(b: &Builder<'_, '_>, oi: ObjectId) -> Result<Vec<(u8, OutSym, u32)>> {
    let o = &b.p.objects()[oi];
    let mut values = Vec::new();
    for (_, s) in o.sections_of(SectionKind::Info) {
        // (Read as they lie, not gathered into a list first: loading checked they parse.)
        for r in nvinfo::records(s.bytes()) {
            // (Matched: `with_context` made every record a result the size of an `Error`.)
            let r = match r {
                Ok(r) => r,
                Err(d) => {
                    return Err(Error::from(d).context(format!("'{}': section '.nv.info'", o.name)))
                }
            };
            if let Value::Bytes(p) = r.value {
                if nvinfo::payload_kind(r.attr, p.len()) == Payload::SymbolValue {
                    let sym = u32_at(p, 0);
                    // Records of functions this link dropped go with them.
                    let Some(out) = b.p.out_sym(oi, sym) else {
                        continue;
                    };
                    if !def_is_live(b, oi, sym) {
                        continue;
                    }
                    if let nvinfo::EIATTR_FRAME_SIZE | nvinfo::EIATTR_REGCOUNT = r.attr {
                        let v = u32_at(p, 4);
                        // (A thread has at most 255 registers: more is a damaged record.)
                        if r.attr == nvinfo::EIATTR_REGCOUNT && v > MAX_REGISTERS {
                            return Err(Error::new(format!(
                                "'{}': section '.nv.info': EIATTR_REGCOUNT of '{}' is {v}, more \
                                 than the {MAX_REGISTERS} registers a thread can have",
                                o.name,
                                String::from_utf8_lossy(
                                    o.symbols().get(sym as usize).map_or(&b"?"[..], |s| s.name)
                                )
                            )));
                        }
                        values.push((r.attr, out, v));
                    }
                }
            }
        }
    }
    Ok(values)
}

/// Kernels in symbol-table order: local ones (static kernels) first.
pub(super) fn kernels_in_symbol_order(b: &Builder<'_, '_>) -> Vec<OutSym> {
    let mut kernels: Vec<OutSym> =
        b.m.symbols
            .ids()
            .filter(|&i| {
                let s = &b.m.symbols[i];
                s.st_type == STT_FUNC && s.other & STO_CUDA_ENTRY != 0 && s.section.is_some()
            })
            .collect();
    kernels.sort_by_key(|&k| (b.m.symbols[k].bind != STB_LOCAL, k));
    kernels
}

/// The output symbols of the kernels the link is for (`Placement::root_kernels`): what
/// -preserve-relocs keeps besides them (kernels -kernels-used does not name or host code
/// does not launch) gets neither callees' registers nor a MIN_STACK_SIZE, as in nvlink
/// (black-box, sm_75 and sm_100, host objects linked -preserve-relocs).
pub(super) fn root_kernels(b: &Builder<'_, '_>) -> hashbrown::HashSet<OutSym> {
    b.p.root_kernels
        .iter()
        .filter_map(|&(oi, si)| {
            let o = &b.p.objects()[oi];
            b.p.out_sym(oi, o.text_function(&o.cubin.sections[si])?)
        })
        .collect()
}

/// What one function's `.nv.info.<fn>` records say, as far as the link needs it.
#[derive(Default)]
pub(super) struct FunctionFacts {
    /// EIATTR_MAXREG_COUNT: the launch-bounds register limit.
    pub maxreg: Option<u32>,
    /// EIATTR_EXTERNS, as output symbols.
    pub externs: Vec<OutSym>,
    /// The records kernels reaching it take on (NUM_BARRIERS, CTAIDZ_USED, ...).
    pub uses: Uses,
    /// EIATTR_NUM_MBARRIERS (0xffff: not known statically).
    pub mbarriers: u16,
    /// The order of its records of `nvinfo::INHERITED`, EIATTR_NUM_MBARRIERS and EXTERNS
    /// (a partial link reverses ptxas's).
    pub inherited_order: Vec<u8>,
    /// Where its `.nv.info.<fn>` is in the inputs (object, section): the order kernels take
    /// on its records in.
    pub info_place: (usize, u32),
}

/// A function's records of the attributes kernels take on from what they reach
/// (`nvinfo::INHERITED`), or what a kernel takes on: per attribute, whether there is one
/// and its value (a flag's is 1), joined by the attribute's rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Uses {
    /// Bit `i`: a record of `INHERITED[i]`.
    has: u16,
    value: [u16; nvinfo::INHERITED.len()],
}

impl Uses {
    /// With a record of `attr` (one of `INHERITED`) of value `v` joined in.
    pub fn with(mut self, attr: u8, v: u16) -> Uses {
        if let Some(i) = nvinfo::inherited_place(attr) {
            self.join_at(i, v);
        }
        self
    }

    fn join_at(&mut self, i: usize, v: u16) {
        let old = self.value[i];
        self.value[i] = match (self.has & 1 << i != 0, nvinfo::INHERITED[i].1) {
            (false, _) => v,
            (true, nvinfo::Inherit::Flag) => 1,
            (true, nvinfo::Inherit::Max) => old.max(v),
            (true, nvinfo::Inherit::Or) => old | v,
        };
        self.has |= 1 << i;
    }

    /// Both functions' records, joined attribute by attribute.
    pub fn join(mut self, o: Uses) -> Uses {
        // (Most joins bring nothing new: a function's SPARSE_MMA_MASK of 0 again.)
        if o.has == 0 || o == self {
            return self;
        }
        for i in (0..nvinfo::INHERITED.len()).filter(|&i| o.has & 1 << i != 0) {
            self.join_at(i, o.value[i]);
        }
        self
    }

    /// The value of the record of `attr`, where there is one.
    pub fn get(&self, attr: u8) -> Option<u16> {
        let i = nvinfo::inherited_place(attr)?;
        (self.has & 1 << i != 0).then_some(self.value[i])
    }

    /// EIATTR_NUM_BARRIERS (0: none).
    pub fn barriers(&self) -> u8 {
        self.get(nvinfo::EIATTR_NUM_BARRIERS).unwrap_or(0) as u8
    }

    /// The attributes it has records of, in `INHERITED`'s order.
    pub fn attrs(&self) -> impl Iterator<Item = u8> + '_ {
        (0..nvinfo::INHERITED.len())
            .filter(|&i| self.has & 1 << i != 0)
            .map(|i| nvinfo::INHERITED[i].0)
    }
}

/// Each kept function's facts, by its output symbol: a dense table of places in a list of
/// the facts, filled in input order (a hash map took a serial tenth of the `.nv.info` merge
/// at wide-1600 to fill, and every pass after it hashed to read it; a dense table of the
/// facts themselves, 64 bytes for every symbol, was 10 MB of fresh memory filled on one
/// thread).
pub(super) struct Facts {
    /// By symbol: its facts' place in `list`, plus one (0: none).
    at: crate::ids::IdVec<OutSym, u32>,
    list: Vec<FunctionFacts>,
    /// Some function uses mbarriers (only then do kernels add up their callees').
    pub any_mbarriers: bool,
}

impl Facts {
    pub(super) fn get(&self, f: &OutSym) -> Option<&FunctionFacts> {
        let k = self.at.get(*f)?.checked_sub(1)?;
        Some(&self.list[k as usize])
    }

    /// The functions with facts, in symbol order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (OutSym, &FunctionFacts)> + '_ {
        self.at
            .iter_enumerated()
            .filter_map(|(f, &k)| Some((f, &self.list[k.checked_sub(1)? as usize])))
    }
}

impl std::ops::Index<&OutSym> for Facts {
    type Output = FunctionFacts;
    fn index(&self, f: &OutSym) -> &FunctionFacts {
        self.get(f).expect("a function with facts")
    }
}

/// Reads the `.nv.info.<fn>` records of every kept function once (each object's in
/// parallel, gathered in input order).
pub(super) fn function_facts(b: &Builder<'_, '_>) -> Result<Facts> {
    let objects = b.p.objects();
    let per_object: Vec<Result<Vec<(OutSym, FunctionFacts)>>> =
        crate::object::par_map(objects, |oi| object_function_facts(b, oi));
    let listed = per_object.iter().flatten().map(Vec::len).sum();
    let mut out = Facts {
        at: crate::ids::IdVec::filled(0, b.m.symbols.len()),
        list: Vec::with_capacity(listed),
        any_mbarriers: false,
    };
    for facts in per_object {
        for (f, x) in facts? {
            out.any_mbarriers |= x.mbarriers > 0;
            match out.at[f] {
                0 => {
                    out.list.push(x);
                    out.at[f] = out.list.len() as u32;
                }
                k => out.list[k as usize - 1].add(x),
            }
        }
    }
    Ok(out)
}

impl FunctionFacts {
    /// What another `.nv.info.<fn>` of the same function says, read after this one's.
    fn add(&mut self, x: FunctionFacts) {
        self.maxreg = x.maxreg.or(self.maxreg);
        self.externs.extend(x.externs);
        self.uses = self.uses.join(x.uses);
        self.mbarriers = self.mbarriers.max(x.mbarriers);
        self.inherited_order.extend(x.inherited_order);
    }
}

/// One object's kept functions' facts, in section order.
fn object_function_facts(
    b: &Builder<'_, '_>,
    oi: ObjectId,
) -> Result<Vec<(OutSym, FunctionFacts)>> {
    let o = &b.p.objects()[oi];
    let mut out = Vec::with_capacity(o.count_of(SectionKind::InfoFn));
    for (si, s) in o.sections_of(SectionKind::InfoFn) {
        if !b.p.is_live(oi, si) {
            continue;
        }
        let Some(f) = o.info_function(s) else {
            continue;
        };
        let Some(fo) = b.p.out_sym(oi, f) else {
            continue;
        };
        let mut x = FunctionFacts {
            info_place: (oi.index(), si as u32),
            ..FunctionFacts::default()
        };
        for r in nvinfo::records(s.bytes()) {
            let r = match r {
                Ok(r) => r,
                Err(d) => {
                    return Err(Error::from(d).context(format!(
                        "'{}': section '{}'",
                        o.name,
                        s.name_str()
                    )))
                }
            };
            match (r.attr, r.value) {
                (nvinfo::EIATTR_MAXREG_COUNT, Value::Half(h)) => x.maxreg = Some(h as u32),
                (nvinfo::EIATTR_NUM_MBARRIERS, Value::Half(n)) => {
                    x.inherited_order.push(nvinfo::EIATTR_NUM_MBARRIERS);
                    x.mbarriers = x.mbarriers.max(n);
                }
                (a, v) if nvinfo::inherited_place(a).is_some() => {
                    x.inherited_order.push(a);
                    let v = match v {
                        Value::Byte(n) => u16::from(n),
                        Value::Half(n) => n,
                        _ => 1,
                    };
                    x.uses = x.uses.with(a, v);
                }
                (nvinfo::EIATTR_EXTERNS, Value::Bytes(p)) => {
                    x.inherited_order
                        .push(super::function::EIATTR_EXTERNS_ADDED);
                    x.externs
                        .extend((0..p.len() / 4).filter_map(|k| b.p.out_sym(oi, u32_at(p, 4 * k))));
                }
                _ => {}
            }
        }
        out.push((fo, x));
    }
    Ok(out)
}
