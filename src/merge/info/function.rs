//! `.nv.info.<fn>`: per object, kernels first (in symbol-table order: libcudadevrt lists
//! their records in the reverse order), then the other functions (in section order); each
//! function's records in the reverse of the input order, with the link's EXTERNS, the
//! records kernels inherit from their callees, and (sm_100+) the Mercury twin.

use super::callgraph::CallGraph;
use super::externs::ExternClosure;
use super::propagate::Propagated;
use super::records::*;
use crate::diag::{Error, Result};
use crate::elf::nvinfo::{self, Value};
use crate::elf::*;
use crate::ids::ObjectId;
use crate::liveness::named_by;
use crate::merge::{Builder, Options};
use crate::object::{InputObject, SectionKind};
use crate::output::*;
use hashbrown::HashSet;

/// Per-function records nvlink writes last on sm_100+ (in input order): CBANK_PARAM_SIZE,
/// PARAM_CBANK, SW_WAR, NVSAL_SW_WAR, PREEXIT_USED.
const MOVED_LAST_ON_SM100: [u8; 5] = [
    nvinfo::EIATTR_CBANK_PARAM_SIZE,
    nvinfo::EIATTR_PARAM_CBANK,
    nvinfo::EIATTR_SW_WAR,
    nvinfo::EIATTR_NVSAL_SW_WAR,
    nvinfo::EIATTR_PREEXIT_USED,
];

/// What the `.nv.info.<fn>` rules read.
pub(super) struct Context<'x> {
    pub opts: &'x Options,
    pub graph: &'x CallGraph,
    pub facts: &'x super::facts::Facts,
    pub prop: &'x Propagated,
    pub externs: &'x Adjacency,
    pub closure: &'x ExternClosure,
    pub kernel_set: HashSet<OutSym>,
    pub sole_kernel: Option<OutSym>,
}

/// Adds the `.nv.info.<fn>` sections; returns their Mercury copies (sm_100+).
///
/// Each function's records depend only on the finished symbols and the call graph, so they
/// are made in parallel; the sections are then added in nvlink's order, one thread.
pub(super) fn emit_function_infos(
    b: &mut Builder<'_, '_>,
    cx: &Context<'_>,
) -> Result<Vec<(Vec<u8>, Content)>> {
    use rayon::prelude::*;
    let orders: Vec<(ObjectId, Vec<InfoSlot>)> = {
        let b: &Builder<'_, '_> = b;
        crate::object::par_map(b.p.objects(), |oi| (oi, info_order(b, cx.opts, oi)))
    };
    // (Each with its name's hash: the names are long, and adding them is one thread's.)
    let made: Vec<Vec<Result<Hashed>>> = {
        let b: &Builder<'_, '_> = b;
        orders
            .par_iter()
            // (Each thread reads records into one list it reuses: a list made and freed per
            // function cost as much as the rest of reading them.)
            .map_init(Vec::new, |recs, (oi, order)| {
                order
                    .iter()
                    .map(|&(_, _, si)| {
                        let made = function_info(b, cx, *oi, si, recs)?;
                        Ok(made.map(|m| {
                            let hash = b.m.name_hash(&m.section.name);
                            (m, hash)
                        }))
                    })
                    .collect()
            })
            .collect()
    };
    // (Added on one thread, in input order, while the idle core faults in the module's
    // table of sections just ahead: each takes 128 bytes of fresh memory.)
    let room = [crate::prefault::Room::after(&b.m.sections)];
    crate::prefault::while_filling(&room, |progress| {
        let mut merc = Vec::new();
        for ((oi, order), made) in orders.into_iter().zip(made) {
            // -r: the unified tables come between the object's kernels and its other
            // functions.
            let first_function = order
                .iter()
                .position(|e| e.0 == Slot::Function)
                .unwrap_or(order.len());
            for (pos, made) in made.into_iter().enumerate() {
                if pos == first_function {
                    b.unified_tables(oi)?;
                }
                let Some((made, hash)) = made? else { continue };
                if let Some(twin) = made.merc {
                    merc.push((made.section.name.clone(), twin));
                }
                b.add_info_section_hashed(made.section, hash);
            }
            if first_function == order.len() {
                b.unified_tables(oi)?;
            }
            progress.filled(0, b.m.sections.len());
        }
        Ok(merc)
    })
}

/// One function's `.nv.info.<fn>` as made, and (sm_100+) its Mercury twin's contents; `None`
/// where the function's code was not placed.
type Made = Option<MadeInfo>;

struct MadeInfo {
    section: OutSection,
    merc: Option<Content>,
}

/// A [`Made`], with its section name's hash.
type Hashed = Option<(MadeInfo, u64)>;

/// What comes first among one object's `.nv.info.<fn>` sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Kernel,
    /// A kernel only other kernels launch, where host launches decide what is kept.
    LaunchedByKernels,
    Function,
}

/// (slot, kernel symbol or section index, section index): sorted, the order of one object's
/// `.nv.info.<fn>` sections.
type InfoSlot = (Slot, usize, usize);

/// The order of one object's `.nv.info.<fn>` sections.
fn info_order(b: &Builder<'_, '_>, opts: &Options, oi: ObjectId) -> Vec<InfoSlot> {
    let o = &b.p.objects()[oi];
    let mut order: Vec<InfoSlot> = Vec::with_capacity(o.count_of(SectionKind::InfoFn));
    for (si, s) in o.sections_of(SectionKind::InfoFn) {
        if !b.p.is_live(oi, si) {
            // A function replaced by a later definition keeps its slot (with the object's
            // kernels or its other functions, as it is one): the winner's records land there.
            if b.p.replaced_by_later_definition(oi, s.info as usize) {
                match o
                    .info_function(s)
                    .filter(|&f| InputObject::is_entry(&o.symbols()[f as usize]))
                {
                    Some(kernel) => order.push((Slot::Kernel, kernel as usize, si)),
                    None => order.push((Slot::Function, si, si)),
                }
            }
            continue;
        }
        // (Kernels -kernels-used does not name, kept by -preserve-relocs, come with the
        // functions; those host code does not launch stay in the kernels' places: black-box,
        // sm_75 and sm_100.)
        match o.info_function(s).filter(|&f| {
            let sym = &o.symbols()[f as usize];
            InputObject::is_entry(sym) && named_by(opts.kernels_used.as_deref(), sym.name)
        }) {
            Some(kernel)
                if b.p
                    .launched_by_kernels_only
                    .contains(&(oi, s.info as usize)) =>
            {
                order.push((Slot::LaunchedByKernels, kernel as usize, si))
            }
            Some(kernel) => order.push((Slot::Kernel, kernel as usize, si)),
            None => order.push((Slot::Function, si, si)),
        }
    }
    order.sort_unstable();
    order
}

/// One function's `.nv.info.<fn>` (empty for a function replaced by a later definition),
/// and on sm_100+ its Mercury twin, made by the same rules.
fn function_info<'data>(
    b: &Builder<'_, 'data>,
    cx: &Context<'_>,
    oi: ObjectId,
    si: usize,
    recs: &mut Vec<nvinfo::Record<'data>>,
) -> Result<Made> {
    let o = &b.p.objects()[oi];
    let s = &o.cubin.sections[si];
    if !b.p.is_live(oi, si) {
        return Ok(Some(MadeInfo {
            section: function_info_section(s.name, Info::None, Content::Bytes(Vec::new())),
            merc: None,
        }));
    }
    recs.clear();
    for r in nvinfo::records(s.bytes()) {
        // (Matched: `with_context` made every record a result the size of an `Error`.)
        match r {
            Ok(r) => recs.push(r),
            Err(d) => {
                return Err(Error::from(d).context(format!(
                    "'{}': section '{}'",
                    o.name,
                    s.name_str()
                )))
            }
        }
    }
    let recs: &[nvinfo::Record<'data>] = recs;
    let Some(text) = b.p.placed_text(oi, s.info) else {
        return Ok(None);
    };
    let func = o.info_function(s).and_then(|f| b.p.out_sym(oi, f));
    let (list, via_indirect) = link_externs(b, cx, func, recs);
    let f = FunctionRecords {
        oi,
        func,
        externs: &list,
        via_indirect,
    };
    let mut out = f.records(b, cx, recs);
    // sm_100+: kernels whose parameter bank got texture/surface slots say which
    // banks hold bindless textures and surfaces (0, the parameter bank).
    let slotted = func.is_some_and(|f| cx.kernel_set.contains(&f))
        && !b.p.resources.base.is_empty()
        && b.p
            .resource_bank(&b.m, oi, s.info as usize)
            .is_some_and(|k| b.p.resources.base.contains_key(&k));
    if b.m.mercury && slotted {
        for attr in [
            nvinfo::EIATTR_BINDLESS_TEXTURE_BANK,
            nvinfo::EIATTR_BINDLESS_SURFACE_BANK,
        ] {
            out.push_plain(&[nvinfo::EIFMT_BVAL, attr, 0, 0]);
        }
    }
    let merc = match b.p.merc_section(oi, &[b".nv.merc", s.name].concat()) {
        Some(m) => {
            let merc_recs = nvinfo::parse_records(m.bytes())
                .map_err(|e| e.context(format!("'{}': section '{}'", o.name, m.name_str())))?;
            Some(f.records(b, cx, &merc_recs).into_content())
        }
        None => None,
    };
    Ok(Some(MadeInfo {
        section: function_info_section(s.name, Info::Section(text), out.into_content()),
        merc,
    }))
}

/// The EXTERNS list a function's records get, and whether it goes in a record of its own at
/// the end (`true`) rather than in the place of the input's.
///
/// Records come out in the reverse of the input order; EXTERNS keeps only what is still
/// undefined, gathered over the callees. Externs that only the possible targets of indirect
/// calls need make nvlink write a new EXTERNS record at the end instead of updating the old
/// one. Functions without an EXTERNS record get none, except kernels (whose indirect calls
/// may reach another object's functions that have externs). -r keeps the inputs' EXTERNS
/// records as they are.
fn link_externs(
    b: &Builder<'_, '_>,
    cx: &Context<'_>,
    func: Option<OutSym>,
    recs: &[nvinfo::Record<'_>],
) -> (Vec<OutSym>, bool) {
    let kernel_set = &cx.kernel_set;
    let had_externs = cx.opts.policy.propagates_over_call_graph()
        && (recs.iter().any(|r| r.attr == nvinfo::EIATTR_EXTERNS)
            || func.is_some_and(|f| kernel_set.contains(&f)));
    match func {
        // Another function keeps only the names it lists itself that are still
        // undefined, and kernels (launch targets): nvlink gathers nothing from its
        // callees (a record left empty goes).
        Some(f) if had_externs && !kernel_set.contains(&f) => {
            let own: Vec<OutSym> = list_of(cx.externs, f)
                .into_iter()
                .filter(|&x| {
                    let s = &b.m.symbols[x];
                    s.section.is_none() || is_kernel(s)
                })
                .collect();
            (own, false)
        }
        Some(f) if had_externs => kernel_externs(b, cx, f, recs),
        _ => (Vec::new(), false),
    }
}

/// A kernel's EXTERNS: what it reaches, its own names first.
fn kernel_externs(
    b: &Builder<'_, '_>,
    cx: &Context<'_>,
    f: OutSym,
    recs: &[nvinfo::Record<'_>],
) -> (Vec<OutSym>, bool) {
    let own = list_of(cx.externs, f);
    let keep =
        |x: &OutSym| cx.kernel_set.contains(&f) || !is_kernel(&b.m.symbols[*x]) || own.contains(x);
    // What the function reaches, in `.nv.info` order (`ExternClosure`), then
    // reordered below: its own names as it lists them first.
    let mut all: Vec<OutSym> = cx.closure.get(f).into_iter().filter(keep).collect();
    // (A name the function lists itself stays among its own names, in its own
    // order, though an indirect target reaches it too; a kernel among others
    // lists its own names before those only indirect targets reach.)
    let sole = cx.sole_kernel == Some(f);
    if let Some(first_own) = all.iter().position(|x| own.contains(x)) {
        let mut keyed: Vec<((u8, usize), OutSym)> = all
            .iter()
            .enumerate()
            .map(|(i, &x)| match own.iter().position(|&o| o == x) {
                Some(p) => ((1, p), x),
                None if i < first_own && sole => ((0, i), x),
                None => ((2, i), x),
            })
            .collect();
        keyed.sort_by_key(|e| e.0);
        all = keyed.into_iter().map(|e| e.1).collect();
    }
    // (The rest stays in `.nv.info` order, launch targets among the other names: a kernel
    // reaching malloc through a callee in its own object and libcudadevrt's memset and memcpy
    // kernels through a launch lists malloc first; fuzz-equiv seed 17, sm_75–sm_120.)
    // (A kernel without a record of its own gets one at the end too; a kernel
    // among others gets what indirect targets reach in its own record.)
    let mut via = !recs.iter().any(|r| r.attr == nvinfo::EIATTR_EXTERNS);
    // The only kernel of a link also gets the names every address-taken
    // function reaches, after its own, in a new record (nvlink's, whether or
    // not it calls through a pointer; with two kernels neither does).
    // (So do names its callees reach: a new record whenever they add any.)
    // (And then what every other function the link keeps reaches, in `.nv.info` order:
    // -preserve-relocs keeps functions no kernel calls, and the only kernel lists their
    // externs, with or without an indirect call; with two kernels neither does. Black-box,
    // sm_100: fuzz-equiv seed 89, a dead function calling printf.)
    if sole {
        via |= all.iter().any(|x| !own.contains(x));
        let mut kept: Vec<(&(usize, u32), OutSym)> =
            cx.facts.iter().map(|(g, x)| (&x.info_place, g)).collect();
        kept.sort_unstable();
        let others = kept.into_iter().map(|(_, g)| g);
        // (With no names of its own, the list is the kept functions' in `.nv.info` order
        // from the start, callees and address-taken functions among them: under
        // -preserve-relocs a dead function's malloc before a callee's __assertfail.
        // Black-box, sm_75, sm_100, sm_120: fuzz-equiv seed 224; testdata
        // sole_kernel_externs_info_order.)
        let plain = !all.iter().any(|x| own.contains(x));
        if plain {
            all.clear();
        }
        let taken = cx.graph.taken_by_info.iter().copied().filter(|_| !plain);
        for t in taken.chain(others) {
            for x in cx.closure.get(t) {
                if keep(&x) && !all.contains(&x) {
                    all.push(x);
                    via = true;
                }
            }
        }
    }
    (all, via)
}

/// One function's record rules; the same rules make the Mercury copy (sm_100+).
struct FunctionRecords<'x> {
    oi: ObjectId,
    func: Option<OutSym>,
    /// The link's EXTERNS for it (`link_externs`).
    externs: &'x [OutSym],
    via_indirect: bool,
}

impl FunctionRecords<'_> {
    fn records(&self, b: &Builder<'_, '_>, cx: &Context<'_>, recs: &[nvinfo::Record<'_>]) -> Recs {
        let (opts, oi, list) = (cx.opts, self.oi, self.externs);
        // (about the input's records, and a few the link may add: EXTERNS, inherited ones)
        let size = |r: &nvinfo::Record<'_>| match r.value {
            Value::Bytes(p) => 4 + p.len(),
            _ => 4,
        };
        let mut out = Recs::with_capacity(
            recs.iter().map(size).sum::<usize>() + 4 * (list.len() + 8),
            recs.len() + 4,
        );
        // sm_100+ moves the parameter-bank and workaround records to the end, in input
        // order, after the records the link adds.
        let moved_last = |attr: u8| opts.policy.mercury() && MOVED_LAST_ON_SM100.contains(&attr);
        for r in recs.iter().rev() {
            if moved_last(r.attr) {
                continue;
            }
            if r.attr == nvinfo::EIATTR_EXTERNS && !opts.policy.propagates_over_call_graph() {
                // -r: the input's names that are still undefined, and kernels (a
                // launch, not a call, refers to them).
                if let Value::Bytes(p) = r.value {
                    let still: Vec<OutSym> = (0..p.len() / 4)
                        .filter_map(|k| b.p.out_sym(oi, u32_at(p, 4 * k)))
                        .filter(|&s| {
                            let sym = &b.m.symbols[s];
                            sym.section.is_none() || sym.other & STO_CUDA_ENTRY != 0
                        })
                        .collect();
                    if !still.is_empty() {
                        out.push_with(|all| externs_rec(all, &still));
                    }
                }
                continue;
            }
            if r.attr == nvinfo::EIATTR_EXTERNS {
                if !list.is_empty() && !self.via_indirect {
                    out.push_with(|all| externs_rec(all, list));
                }
                continue;
            }
            out.push_with(|all| map_record(b, oi, r, all));
        }
        // A kernel whose stack cannot be bounded gets CRS_STACK_SIZE = 0xffffffff (in
        // the place of its own record, if it has one).
        if let Some(f) = self.func {
            if matches!(cx.prop.min_stack.get(&f), Some(None)) {
                let bytes = [
                    nvinfo::EIFMT_SVAL,
                    nvinfo::EIATTR_CRS_STACK_SIZE,
                    4,
                    0,
                    0xff,
                    0xff,
                    0xff,
                    0xff,
                ];
                match out.find(nvinfo::EIATTR_CRS_STACK_SIZE) {
                    Some(k) => out.replace_with(k, |all| all.bytes.extend_from_slice(&bytes)),
                    None => out.push_plain(&bytes),
                }
            }
        }
        self.inherit(cx, &mut out);
        for r in recs.iter().filter(|r| moved_last(r.attr)) {
            out.push_with(|all| map_record(b, oi, r, all));
        }
        out
    }

    /// Kernels inherit their callees' barrier count, mbarriers, %ctaid.z use and EXTERNS
    /// (the record the link adds), after their own records, in the order nvlink meets
    /// them walking the callees (a partial link reverses each function's records);
    /// what no callee's records bring comes last: barriers, mbarriers, EXTERNS, %ctaid.z.
    /// A callee's EXTERNS record counts as met whatever it names (ptxas lists there a
    /// function of another object whose address the object's data holds); the only kernel
    /// of a link meets none: its EXTERNS is added after what the walk brings (black-box,
    /// sm_75–sm_120: testdata sole_kernel_externs_after_barriers,
    /// externs_indirect_target_lists_other_object; fuzz-equiv seeds 48, 49, 63).
    fn inherit(&self, cx: &Context<'_>, out: &mut Recs) {
        let list = self.externs;
        let added_externs = self.via_indirect && !list.is_empty();
        let Some(f) = self.func.filter(|f| cx.kernel_set.contains(f)) else {
            if added_externs {
                out.push_with(|all| externs_rec(all, list));
            }
            return;
        };
        let mut pending: Vec<u8> = Vec::new();
        let uses = cx.prop.inherited.get(&f).copied().unwrap_or_default();
        if uses.barriers() > 0 {
            pending.push(nvinfo::EIATTR_NUM_BARRIERS);
        }
        // (A walk over the kernel's callees: only where some function has mbarriers.)
        let mbars = if cx.facts.any_mbarriers && cx.opts.policy.propagates_over_call_graph() {
            callees_mbarriers(f, &cx.prop.succ, cx.facts)
        } else {
            0
        };
        if mbars > 0 {
            pending.push(nvinfo::EIATTR_NUM_MBARRIERS);
        }
        let inherited = Inherited {
            uses,
            mbars,
            externs: list,
        };
        if added_externs {
            pending.push(EIATTR_EXTERNS_ADDED);
        }
        pending.extend(uses.attrs().filter(|&a| a != nvinfo::EIATTR_NUM_BARRIERS));
        // (A record the kernel has is raised in place, wherever the walk would meet it: only
        // new records need the walk, which every sm_90+ kernel would otherwise take for the
        // SPARSE_MMA_MASK each of its callees has, on every call path below it.)
        pending.retain(|&attr| {
            let own = attr != EIATTR_EXTERNS_ADDED && out.find(attr).is_some();
            if own {
                inherit_record(out, attr, &inherited);
            }
            !own
        });
        let sole = cx.sole_kernel == Some(f);
        if !pending.is_empty() {
            for (attr, g) in inherited_events(f, &cx.prop.succ, cx.facts) {
                if attr == EIATTR_EXTERNS_ADDED && (sole || cx.facts[&g].externs.is_empty()) {
                    continue;
                }
                if let Some(k) = pending.iter().position(|&a| a == attr) {
                    pending.remove(k);
                    inherit_record(out, attr, &inherited);
                }
            }
        }
        for attr in pending {
            inherit_record(out, attr, &inherited);
        }
    }
}

/// Stands for the EXTERNS record a link adds, in the order of a kernel's added records.
pub(super) const EIATTR_EXTERNS_ADDED: u8 = 0;

/// An EXTERNS record naming `list` (the symbols' indexes written with the output).
fn externs_rec(all: &mut RecordBytes, list: &[OutSym]) -> bool {
    all.bytes
        .extend_from_slice(&[nvinfo::EIFMT_SVAL, nvinfo::EIATTR_EXTERNS]);
    all.bytes
        .extend_from_slice(&((list.len() * 4) as u16).to_le_bytes());
    for &x in list {
        all.slots.push((all.bytes.len(), x));
        all.bytes.extend_from_slice(&[0; 4]);
    }
    true
}

/// What a kernel takes from the functions it calls.
struct Inherited<'l> {
    /// The records of `nvinfo::INHERITED` (the largest barrier count, ...).
    uses: super::facts::Uses,
    /// The mbarriers of every function it reaches, added up (0xffff: not known).
    mbars: u16,
    /// The EXTERNS record the link adds.
    externs: &'l [OutSym],
}

/// The mbarriers (EIATTR_NUM_MBARRIERS) of the functions kernel `f` reaches, each counted
/// once, added up; 0xffff (not known statically) when one says so, or the sum does not fit.
/// nvlink gives a kernel its own count plus these (black-box, sm_80-sm_120; testdata
/// mbarrier_callees).
fn callees_mbarriers(f: OutSym, succ: &crate::graph::Succ, facts: &super::facts::Facts) -> u16 {
    let mut seen: HashSet<usize> = HashSet::new();
    seen.insert(f.index());
    let mut stack: Vec<usize> = succ.of(f.index()).collect();
    let mut sum = 0u16;
    while let Some(g) = stack.pop() {
        if !seen.insert(g) {
            continue;
        }
        stack.extend(succ.of(g));
        let n = facts.get(&OutSym::from_index(g)).map_or(0, |x| x.mbarriers);
        sum = add_mbarriers(sum, n);
    }
    sum
}

/// Two mbarrier counts added up, 0xffff (not known) taking over.
fn add_mbarriers(a: u16, b: u16) -> u16 {
    if a == u16::MAX || b == u16::MAX {
        u16::MAX
    } else {
        a.saturating_add(b)
    }
}

/// Gives a kernel an inherited record (`nvinfo::INHERITED`: its own raised by the
/// attribute's rule, or a new one), the mbarriers (NUM_MBARRIERS, added to its own) or the
/// EXTERNS record the link adds.
fn inherit_record(out: &mut Recs, attr: u8, from: &Inherited<'_>) {
    if attr == EIATTR_EXTERNS_ADDED {
        out.push_with(|all| externs_rec(all, from.externs));
        return;
    }
    if attr == nvinfo::EIATTR_NUM_MBARRIERS {
        match out.find(attr) {
            Some(k) => {
                let r = out.bytes_mut(k);
                // (Only a two-byte value is ptxas's; any other shape is left as it is.)
                if r[0] == nvinfo::EIFMT_HVAL {
                    let own = u16::from_le_bytes([r[2], r[3]]);
                    r[2..4].copy_from_slice(&add_mbarriers(own, from.mbars).to_le_bytes());
                }
            }
            None => {
                let [lo, hi] = from.mbars.to_le_bytes();
                out.push_plain(&[nvinfo::EIFMT_HVAL, attr, lo, hi])
            }
        }
        return;
    }
    let (Some(v), Some(&(_, _, format))) = (
        from.uses.get(attr),
        nvinfo::INHERITED.iter().find(|e| e.0 == attr),
    ) else {
        return;
    };
    match out.find(attr) {
        Some(k) => {
            let r = out.bytes_mut(k);
            // (Raised in the record's own format, as the inputs' shapes say; `Uses` joined the
            // kernel's value in.)
            match r[0] {
                nvinfo::EIFMT_BVAL => r[2] = r[2].max(v as u8),
                nvinfo::EIFMT_HVAL => {
                    let own = u16::from_le_bytes([r[2], r[3]]);
                    let joined = super::facts::Uses::default().with(attr, own).with(attr, v);
                    let w = joined.get(attr).unwrap_or(own);
                    r[2..4].copy_from_slice(&w.to_le_bytes());
                }
                _ => {}
            }
        }
        None => {
            // (A kernel without SPARSE_MMA_MASK reaching only zero masks: nvlink writes
            // 0x8000; `propagate` refuses a non-zero one.)
            let v = if attr == nvinfo::EIATTR_SPARSE_MMA_MASK && v == 0 {
                0x8000
            } else {
                v
            };
            let [lo, hi] = v.to_le_bytes();
            match format {
                nvinfo::EIFMT_NVAL => out.push_plain(&[format, attr, 0, 0]),
                nvinfo::EIFMT_BVAL => out.push_plain(&[format, attr, lo, 0]),
                _ => out.push_plain(&[format, attr, lo, hi]),
            }
        }
    }
}

/// The inherited records (`nvinfo::INHERITED`, NUM_MBARRIERS, EXTERNS) in the order nvlink
/// meets them for kernel `f`: the functions it reaches in the order of their `.nv.info.<fn>`
/// sections in the inputs (file, then section), not in the order of the calls, each
/// function's records in their order, each with the function it is met in. (Black-box,
/// nvlink 13.5 sm_75, sm_90 and sm_100: four callees in two files, each with another record,
/// called in random orders by three kernels: every kernel lists them alike, in the order of
/// the callees' sections, which is not their symbols' order; finishing a partial link, whose
/// `.nv.info.<fn>` come in another order than its code, in theirs: a grid-sync helper's
/// barriers before its caller's %ctaid.z use.)
fn inherited_events(
    f: OutSym,
    succ: &crate::graph::Succ,
    facts: &super::facts::Facts,
) -> Vec<(u8, OutSym)> {
    let mut seen: HashSet<usize> = HashSet::new();
    seen.insert(f.index());
    let mut stack: Vec<usize> = vec![f.index()];
    let mut reached: Vec<usize> = Vec::new();
    while let Some(g) = stack.pop() {
        for h in succ.of(g) {
            if seen.insert(h) {
                reached.push(h);
                stack.push(h);
            }
        }
    }
    let mut met: Vec<((usize, u32), OutSym, &super::facts::FunctionFacts)> = reached
        .into_iter()
        .filter_map(|g| {
            let g = OutSym::from_index(g);
            facts.get(&g).map(|x| (x.info_place, g, x))
        })
        .collect();
    met.sort_unstable_by_key(|&(place, g, _)| (place, g));
    met.into_iter()
        .flat_map(|(_, g, x)| x.inherited_order.iter().map(move |&a| (a, g)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbarrier_counts_add_up_and_saturate() {
        assert_eq!(add_mbarriers(1, 2), 3);
        assert_eq!(add_mbarriers(0xfff0, 0x20), 0xffff);
    }

    #[test]
    fn an_mbarrier_count_not_known_statically_takes_over() {
        assert_eq!(add_mbarriers(0xffff, 1), 0xffff);
        assert_eq!(add_mbarriers(3, 0xffff), 0xffff);
    }
}
