//! The merged metadata: global `.nv.info` (REGCOUNT raised over callees, MIN_STACK_SIZE over call
//! paths), `.nv.info.<fn>`, `.nv.compat`, `.nv.callgraph`, `.nv.prototype`, `.nv.rel.action`.

use super::{list, Builder, Options};
use crate::diag::Result;
use crate::elf::nvinfo::{self, Payload, Value};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::liveness::named_by;
use crate::object::{InputObject, SectionKind};
use crate::output::*;
use hashbrown::{HashMap, HashSet};

/// Per-function records nvlink writes last on sm_100+ (in input order): CBANK_PARAM_SIZE,
/// PARAM_CBANK, SW_WAR, NVSAL_SW_WAR, PREEXIT_USED.
const MOVED_LAST_ON_SM100: [u8; 5] = [0x19, nvinfo::EIATTR_PARAM_CBANK, 0x36, 0x6b, 0x6d];

/// Encodes one record with symbol slots.
struct Rec {
    bytes: Vec<u8>,
    slots: Vec<(usize, SymId)>,
}

fn encode(format: u8, attr: u8, value: &Value<'_>) -> Vec<u8> {
    let mut b = vec![format, attr];
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

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Copies a record, mapping the symbol indices in it. `None` when a symbol it names is gone.
fn map_record(bld: &Builder<'_, '_>, oi: usize, r: &nvinfo::Record<'_>) -> Option<Rec> {
    let bytes = encode(r.format, r.attr, &r.value);
    let mut slots = Vec::new();
    if let Value::Bytes(p) = r.value {
        match nvinfo::payload_kind(r.attr, p.len()) {
            Payload::SymbolValue | Payload::ParamCbank => {
                slots.push((4, bld.out_sym(oi, u32_at(p, 0))?));
            }
            Payload::Symbols => {
                let mut out = vec![r.format, r.attr, 0, 0];
                for k in 0..p.len() / 4 {
                    if let Some(s) = bld.out_sym(oi, u32_at(p, 4 * k)) {
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
    Some(Rec { bytes, slots })
}

fn concat(recs: Vec<Rec>) -> Content {
    let mut bytes = Vec::new();
    let mut slots = Vec::new();
    for r in recs {
        let base = bytes.len();
        slots.extend(r.slots.into_iter().map(|(at, s)| (base + at, s)));
        bytes.extend_from_slice(&r.bytes);
    }
    Content::WithSymbols { bytes, slots }
}

pub(crate) fn build_info(b: &mut Builder<'_, '_>, opts: &Options) -> Result<()> {
    let objects = b.objects();

    // Per-function facts from the inputs' global .nv.info, by output function symbol.
    let mut frame: HashMap<SymId, u32> = HashMap::new();
    let mut regs: HashMap<SymId, u32> = HashMap::new();
    let mut global_recs: Vec<(usize, nvinfo::Record<'_>)> = Vec::new();
    for (oi, o) in objects.iter().enumerate() {
        for s in &o.cubin.sections {
            if o.kind(s) != SectionKind::Info {
                continue;
            }
            let recs = nvinfo::parse_records(s.bytes())
                .map_err(|e| e.context(format!("'{}': section '.nv.info'", o.name)))?;
            for r in recs {
                if let Value::Bytes(p) = r.value {
                    if nvinfo::payload_kind(r.attr, p.len()) == Payload::SymbolValue {
                        let sym = u32_at(p, 0);
                        // Records of functions this link dropped go with them.
                        let Some(out) = b.out_sym(oi, sym) else {
                            continue;
                        };
                        if !def_is_live(b, oi, sym) {
                            continue;
                        }
                        match r.attr {
                            nvinfo::EIATTR_FRAME_SIZE => {
                                frame.insert(out, u32_at(p, 4));
                            }
                            nvinfo::EIATTR_REGCOUNT => {
                                regs.insert(out, u32_at(p, 4));
                            }
                            _ => {}
                        }
                    }
                }
                global_recs.push((oi, r));
            }
        }
    }

    // The call graph over output function symbols.
    let mut calls: Vec<(SymId, SymId)> = Vec::new();
    let mut address_taken_seen: HashSet<(SymId, u32)> = HashSet::new();
    let mut graph_blocks: [Vec<(SymId, u32, bool)>; 4] = Default::default();
    for (oi, o) in objects.iter().enumerate() {
        for s in &o.cubin.sections {
            if o.kind(s) != SectionKind::Callgraph {
                continue;
            }
            let w: Vec<u32> = s
                .bytes()
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let mut block = 0usize;
            let mut taken_in: Vec<(u32, u32)> = Vec::new();
            for p in w.chunks_exact(2) {
                if p[0] == 0 && p[1] >= 0xffff_fffc {
                    block = (0xffff_ffff - p[1]) as usize;
                    continue;
                }
                if block == 1 {
                    taken_in.push((p[0], p[1]));
                    continue;
                }
                let Some(a) = b.out_sym(oi, p[0]).filter(|_| def_is_live(b, oi, p[0])) else {
                    continue;
                };
                match block {
                    0 | 3 => {
                        let Some(c) = b.out_sym(oi, p[1]) else {
                            continue;
                        };
                        if block == 0 {
                            calls.push((a, c));
                        }
                        graph_blocks[block].push((a, c, true));
                    }
                    _ => {
                        let id = b.prototype_id(oi, p[1]);
                        graph_blocks[block].push((a, id, false))
                    }
                }
            }
            for (sym, proto) in taken_in {
                let Some(a) = b.out_sym(oi, sym).filter(|_| def_is_live(b, oi, sym)) else {
                    continue;
                };
                let id = b.prototype_id(oi, proto);
                if address_taken_seen.insert((a, id)) {
                    graph_blocks[1].push((a, id, false));
                }
            }
        }
    }
    // nvlink lists address-taken functions in the order their symbols first appear among the
    // inputs (an undefined reference in an earlier object counts), whatever order the
    // compiler wrote the call-graph entries in.
    let first_seen = b.first_appearance(graph_blocks[1].iter().map(|e| e.0));
    graph_blocks[1].sort_by_key(|e| first_seen.get(&e.0).copied().unwrap_or(usize::MAX));
    // Where each function's `.nv.info.<fn>` is among the inputs.
    let mut info_place: HashMap<SymId, (usize, usize)> = HashMap::new();
    for (oi, o) in objects.iter().enumerate() {
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if o.kind(s) == SectionKind::InfoFn && b.is_live(oi, si) {
                if let Some(f) = o.info_function(s).and_then(|f| b.out_sym(oi, f)) {
                    info_place.entry(f).or_insert((oi, si));
                }
            }
        }
    }
    // The address-taken functions in the order of their `.nv.info.<fn>` sections among the
    // inputs: the order nvlink gathers their externs in (whatever the call graph's order).
    let mut taken_by_info: Vec<SymId> = graph_blocks[1].iter().map(|e| e.0).collect();
    taken_by_info.sort_by_key(|f| info_place.get(f).copied().unwrap_or((usize::MAX, 0)));
    let mut taken_seen: HashSet<SymId> = HashSet::new();
    taken_by_info.retain(|&f| taken_seen.insert(f));
    // The possible targets of an indirect call, for registers, stack and externs, are every
    // function of the link whose address is taken with the call's prototype — not only those the
    // compiler listed for its own translation unit (nvlink gives a kernel the registers of a
    // same-prototype function another object puts in a table); in that order.
    let mut prototypes_of: HashMap<SymId, Vec<u32>> = HashMap::new();
    for &(f, id, _) in &graph_blocks[1] {
        prototypes_of.entry(f).or_default().push(id);
    }
    let mut by_prototype: HashMap<u32, Vec<SymId>> = HashMap::new();
    for &f in &taken_by_info {
        for &id in crate::merge::list(&prototypes_of, &f) {
            by_prototype.entry(id).or_default().push(f);
        }
    }
    // Each indirect call site of a function, as the prototype it calls through.
    let mut indirect_sites: HashMap<SymId, Vec<u32>> = HashMap::new();
    for &(f, id, _) in &graph_blocks[2] {
        indirect_sites.entry(f).or_default().push(id);
        for &t in by_prototype.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
            calls.push((f, t));
        }
    }
    let mut indirect_targets: Adjacency = HashMap::new();
    for (&f, sites) in &indirect_sites {
        let v = indirect_targets.entry(f).or_default();
        for id in sites {
            for &t in by_prototype.get(id).map(Vec::as_slice).unwrap_or(&[]) {
                if !v.contains(&t) {
                    v.push(t);
                }
            }
        }
    }
    let mut callees: HashMap<SymId, Vec<SymId>> = HashMap::new();
    for &(a, c) in &calls {
        let v = callees.entry(a).or_default();
        if !v.contains(&c) {
            v.push(c);
        }
    }
    let mut direct_callees: HashMap<SymId, Vec<SymId>> = HashMap::new();
    for &(a, c, _) in &graph_blocks[0] {
        let v = direct_callees.entry(a).or_default();
        if !v.contains(&c) {
            v.push(c);
        }
    }

    // Kernels in output symbol order.
    // Kernels in symbol-table order: local ones (static kernels) first.
    let mut kernels: Vec<SymId> = (0..b.m.symbols.len() as SymId)
        .filter(|&i| {
            let s = &b.m.symbols[i as usize];
            s.st_type == STT_FUNC && s.other & STO_CUDA_ENTRY != 0 && s.section.is_some()
        })
        .collect();
    kernels.sort_by_key(|&k| (b.m.symbols[k as usize].bind != STB_LOCAL, k));

    // What each kept function's own `.nv.info.<fn>` says, read once.
    let facts = function_facts(b)?;
    // A kernel's register limit from its launch bounds (EIATTR_MAXREG_COUNT).
    let maxreg: HashMap<SymId, u32> = facts
        .iter()
        .filter_map(|(&f, x)| x.maxreg.map(|m| (f, m)))
        .collect();

    // Per function: its barrier count and whether it reads %ctaid.z.
    let own: HashMap<SymId, (u8, bool)> = facts
        .iter()
        .map(|(&f, x)| (f, (x.barriers, x.ctaidz)))
        .collect();
    let kernel_set: HashSet<SymId> = kernels.iter().copied().collect();
    let sole_kernel = match kernels.as_slice() {
        [k] => Some(*k),
        _ => None,
    };
    // Facts over everything a function reaches, in one pass over the call graph's strongly
    // connected components (sinks first): the register maximum (and the function holding it),
    // the deepest stack (None through recursion), barriers and %ctaid.z use.
    let n = b.m.symbols.len();
    let succ: Vec<Vec<usize>> = (0..n as SymId)
        .map(|f| {
            callees
                .get(&f)
                .map(|v| v.iter().map(|&c| c as usize).collect())
                .unwrap_or_default()
        })
        .collect();
    let graph = crate::graph::sccs(&succ);
    let nc = graph.comps.len();
    let mut c_regs: Vec<(u32, SymId)> = vec![(0, 0); nc];
    let mut c_depth: Vec<Option<u64>> = vec![Some(0); nc];
    let mut c_attrs: Vec<(u8, bool)> = vec![(0, false); nc];
    // What each component's callees reach (the component itself excluded unless it recurses).
    let mut below_regs: Vec<(u32, SymId)> = vec![(0, 0); nc];
    let mut below_attrs: Vec<(u8, bool)> = vec![(0, false); nc];
    for (c, comp) in graph.comps.iter().enumerate() {
        let cyclic = graph.is_cyclic(c, &succ);
        let mut regs_best = (0u32, 0 as SymId);
        let mut attrs = (0u8, false);
        let mut deepest = Some(0u64);
        let mut below_r = (0u32, 0 as SymId);
        let mut below_a = (0u8, false);
        for &f in comp {
            let r = regs.get(&(f as SymId)).copied().unwrap_or(0);
            if r > regs_best.0 {
                regs_best = (r, f as SymId);
            }
            let (nb, z) = own.get(&(f as SymId)).copied().unwrap_or((0, false));
            attrs = (attrs.0.max(nb), attrs.1 || z);
            for &g in &succ[f] {
                let gc = graph.comp_of[g];
                if gc == c {
                    continue;
                }
                if c_regs[gc].0 > below_r.0 {
                    below_r = c_regs[gc];
                }
                below_a = (below_a.0.max(c_attrs[gc].0), below_a.1 || c_attrs[gc].1);
                deepest = match (deepest, c_depth[gc]) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                };
            }
        }
        if cyclic {
            // Inside a cycle every member reaches every other.
            if regs_best.0 > below_r.0 {
                below_r = regs_best;
            }
            below_a = (below_a.0.max(attrs.0), below_a.1 || attrs.1);
        }
        below_regs[c] = below_r;
        below_attrs[c] = below_a;
        c_regs[c] = if regs_best.0 >= below_r.0 {
            regs_best
        } else {
            below_r
        };
        c_attrs[c] = (attrs.0.max(below_a.0), attrs.1 || below_a.1);
        c_depth[c] = if cyclic {
            None
        } else {
            deepest.map(|d| d + frame.get(&(comp[0] as SymId)).copied().unwrap_or(0) as u64)
        };
    }
    let mut reg_max: HashMap<SymId, u32> = HashMap::new();
    let mut over_limit: Option<String> = None;
    let mut min_stack: HashMap<SymId, Option<u64>> = HashMap::new();
    let mut inherited: HashMap<SymId, (u8, bool)> = HashMap::new();
    // (-preserve-relocs keeps the kernels -kernels-used does not name, but neither raises
    // their register counts, in the records or in -v's report, nor computes their stack, as
    // in nvlink.)
    let named = |k: SymId| named_by(opts.kernels_used.as_deref(), &b.m.symbols[k as usize].name);
    // -r propagates nothing over the call graph: callees may still be undefined.
    for &k in kernels.iter().filter(|_| !opts.relocatable) {
        let c = graph.comp_of[k as usize];
        let own_regs = regs.get(&k).copied().unwrap_or(0);
        let (callee_regs, heaviest) = if named(k) { below_regs[c] } else { (0, k) };
        if let Some(l) = maxreg.get(&k).copied() {
            if callee_regs > l && over_limit.is_none() {
                over_limit = Some(format!(
                    "entry function '{}' with max regcount of {l} calls function '{}' with regcount of {callee_regs}",
                    String::from_utf8_lossy(&b.m.symbols[k as usize].name),
                    String::from_utf8_lossy(&b.m.symbols[heaviest as usize].name)
                ));
            }
        }
        reg_max.insert(k, own_regs.max(callee_regs));
        inherited.insert(k, below_attrs[c]);
        let depth = c_depth[c];
        if depth.is_none() && !opts_suppress_stack_warning(opts) {
            // Once for each callee through which the stack is unbounded, and at each indirect
            // call site once for each such possible target.
            let unbounded = |g: SymId| c_depth[graph.comp_of[g as usize]].is_none();
            let direct = list(&direct_callees, &k)
                .iter()
                .filter(|&&g| unbounded(g))
                .count();
            let indirect: usize = list(&indirect_sites, &k)
                .iter()
                .map(|id| {
                    by_prototype
                        .get(id)
                        .map_or(0, |ts| ts.iter().filter(|&&t| unbounded(t)).count())
                })
                .sum();
            for _ in 0..(direct + indirect).max(1) {
                b.warnings.push(format!(
                    "Stack size for entry function '{}' cannot be statically determined",
                    String::from_utf8_lossy(&b.m.symbols[k as usize].name)
                ));
            }
        }
        min_stack.insert(k, depth);
        let bars = below_attrs[c].0.max(own.get(&k).map(|o| o.0).unwrap_or(0)) as u32;
        let frame_k = frame.get(&k).copied().unwrap_or(0);
        // An unknown stack size reports as 0.
        b.kernel_facts.push((
            k,
            own_regs.max(callee_regs),
            bars,
            depth.unwrap_or(0),
            frame_k,
        ));
    }
    if let Some(e) = over_limit {
        b.errors.push(e);
    }

    // Global .nv.info: the inputs' records in reverse reading order, MAX_STACK_SIZE dropped,
    // kernels' REGCOUNT raised; then MIN_STACK_SIZE per kernel.
    // -r keeps the inputs' MAX_STACK_SIZE records and computes nothing over the call graph.
    let mut out_recs: Vec<Rec> = Vec::new();
    for (oi, r) in global_recs.iter().rev() {
        if r.attr == nvinfo::EIATTR_MAX_STACK_SIZE && !opts.relocatable {
            continue;
        }
        if let Value::Bytes(p) = r.value {
            if nvinfo::payload_kind(r.attr, p.len()) == Payload::SymbolValue {
                let sym = u32_at(p, 0);
                let Some(out) = b.out_sym(*oi, sym) else {
                    continue;
                };
                if !def_is_live(b, *oi, sym) {
                    continue;
                }
                let mut v = u32_at(p, 4);
                if r.attr == nvinfo::EIATTR_REGCOUNT {
                    if let Some(&m) = reg_max.get(&out) {
                        v = m;
                    }
                }
                let mut bytes = vec![r.format, r.attr, 8, 0, 0, 0, 0, 0];
                bytes.extend_from_slice(&v.to_le_bytes());
                out_recs.push(Rec {
                    bytes,
                    slots: vec![(4, out)],
                });
                continue;
            }
        }
        if let Some(rec) = map_record(b, *oi, r) {
            out_recs.push(rec);
        }
    }
    for &k in kernels.iter().filter(|&&k| !opts.relocatable && named(k)) {
        let v = match min_stack[&k] {
            Some(d) => d as u32,
            None => 0xffff_ffff,
        };
        let mut bytes = vec![
            nvinfo::EIFMT_SVAL,
            nvinfo::EIATTR_MIN_STACK_SIZE,
            8,
            0,
            0,
            0,
            0,
            0,
        ];
        bytes.extend_from_slice(&v.to_le_bytes());
        out_recs.push(Rec {
            bytes,
            slots: vec![(4, k)],
        });
    }
    // A module left without functions has no `.nv.info` at all.
    if !out_recs.is_empty() {
        b.add_info_section(OutSection {
            name: b".nv.info".to_vec(),
            sh_type: SHT_CUDA_INFO,
            flags: 0,
            align: 4,
            entsize: 0,
            link: Link::Symtab,
            info: Info::None,
            content: concat(out_recs),
            group: Group::Info,
            section_symbol: None,
        });
    }

    // .nv.compat: the first input's records, with the attributes only later inputs have
    // inserted before FINALIZER_VERSION, the largest ISA class of any input, and
    // INST_TCGEN05_MMA (only 'a' objects have it) kept only when every input has it. Then for
    // the target: the accelerator flag says whether it is an 'a' target; code built for
    // another SM (sm_100 into sm_103) cannot take the finalizer's fast path, and an 'a' target with plain inputs keeps only the first
    // fast-path bit.
    let cross = objects.iter().any(|o| o.sm != opts.arch_sm);
    let any_plain = objects.iter().any(|o| !o.is_accelerated());
    let compat: Option<(Vec<u8>, u64)> =
        if objects.is_empty() && !opts.relocatable && opts.arch_sm >= 90 {
            // No code: the target's own records (the fast-path bits nvlink gives each SM).
            let mut bytes = vec![
                2,
                nvinfo::EICOMPAT_ACCELERATOR_TARGET,
                opts.accelerated as u8,
                0,
            ];
            if opts.mercury {
                let fastpath: u32 = match opts.arch_sm {
                    100 => 9,
                    120 => 0x50,
                    _ => 0,
                };
                bytes.extend_from_slice(&[4, nvinfo::EICOMPAT_CAN_FASTPATH_FINALIZE, 8, 0]);
                bytes.extend_from_slice(&fastpath.to_le_bytes());
                bytes.extend_from_slice(&[0; 4]);
                bytes.extend_from_slice(&[3, nvinfo::EICOMPAT_FINALIZER_VERSION, 0x40, 0x04]);
            }
            Some((bytes, 4))
        } else if let Some(c) = objects.iter().find_map(|o| o.compat_sections().next()) {
            let mut recs: Vec<(u8, Vec<u8>)> = Vec::new();
            let mut parsed_all = true;
            for o in objects {
                let Some(cs) = o.compat_sections().next() else {
                    continue;
                };
                let Ok(rs) = nvinfo::parse_records(cs.bytes()) else {
                    parsed_all = false;
                    continue;
                };
                let first = recs.is_empty();
                for r in &rs {
                    if r.attr == nvinfo::EICOMPAT_ISA_CLASS && !first {
                        let theirs = encode(r.format, r.attr, &r.value);
                        if let Some((_, ours)) = recs.iter_mut().find(|(a, _)| *a == r.attr) {
                            if ours.len() == theirs.len() && ours.len() >= 3 && theirs[2] > ours[2]
                            {
                                *ours = theirs;
                            }
                            continue;
                        }
                    }
                    if first || !recs.iter().any(|(a, _)| *a == r.attr) {
                        let at = if first {
                            recs.len()
                        } else {
                            recs.iter()
                                .position(|(a, _)| *a == nvinfo::EICOMPAT_FINALIZER_VERSION)
                                .unwrap_or(recs.len())
                        };
                        recs.insert(at, (r.attr, encode(r.format, r.attr, &r.value)));
                    }
                }
                if !rs
                    .iter()
                    .any(|r| r.attr == nvinfo::EICOMPAT_INST_TCGEN05_MMA)
                {
                    recs.retain(|(a, _)| *a != nvinfo::EICOMPAT_INST_TCGEN05_MMA);
                }
            }
            let mut bytes = Vec::with_capacity(c.bytes().len());
            if parsed_all {
                for (attr, mut rec) in recs {
                    if attr == nvinfo::EICOMPAT_ACCELERATOR_TARGET && rec.len() >= 3 {
                        rec[2] = opts.accelerated as u8;
                    }
                    if attr == nvinfo::EICOMPAT_CAN_FASTPATH_FINALIZE && rec.len() >= 8 {
                        let first = u32_at(&rec, 4);
                        let first = if cross {
                            0
                        } else if opts.accelerated && any_plain {
                            first & first.wrapping_neg()
                        } else {
                            first
                        };
                        rec[4..8].copy_from_slice(&first.to_le_bytes());
                        if cross {
                            rec[8..].fill(0);
                        }
                    }
                    bytes.extend_from_slice(&rec);
                }
            } else {
                bytes.extend_from_slice(c.bytes());
            }
            Some((bytes, c.align))
        } else {
            None
        };
    if let Some((bytes, align)) = compat {
        b.add_info_section(OutSection {
            name: b".nv.compat".to_vec(),
            sh_type: SHT_CUDA_COMPAT_INFO,
            flags: 0,
            align,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::Bytes(bytes),
            group: Group::Info,
            section_symbol: None,
        });
    }

    if let (Some(&ci), Some(&cp)) = (
        b.section_id(b".note.nv.cuinfo"),
        b.section_id(b".nv.compat"),
    ) {
        b.m.sections[ci as usize].info = Info::Section(cp);
    }

    // EXTERNS of each function, as the inputs list them (callees and undefined names), then
    // the callees the call graph adds (a partial link's output lists only what was still
    // undefined, its callees' externs are reached through the calls).
    // (A defined function an EXTERNS record names but the function does not call — ptxas
    // names one whose address only the object's data holds — leads nowhere: nvlink follows
    // calls.)
    let mut externs: Adjacency = facts
        .iter()
        .filter(|(_, x)| !x.externs.is_empty())
        .map(|(&f, x)| {
            let l: Vec<SymId> = x
                .externs
                .iter()
                .copied()
                .filter(|&c| {
                    let s = &b.m.symbols[c as usize];
                    s.section.is_none() || is_kernel(s) || list(&direct_callees, &f).contains(&c)
                })
                .collect();
            (f, l)
        })
        .collect();
    for &(f, c, _) in &graph_blocks[0] {
        if b.m.symbols[c as usize].section.is_some() && !list(&externs, &f).contains(&c) {
            externs.entry(f).or_default().push(c);
        }
    }

    // The still-undefined externs each function reaches, the possible targets of its indirect
    // calls included.
    // A kernel among the possible targets of an indirect call is a launch (the compiler
    // marks the child of a dynamic-parallelism launch so): its externs stay its own.
    let mut indirect_callees: Adjacency = indirect_targets
        .iter()
        .map(|(&f, l)| {
            let l: Vec<SymId> = l
                .iter()
                .copied()
                .filter(|&t| !is_kernel(&b.m.symbols[t as usize]))
                .collect();
            (f, l)
        })
        .collect();
    // A function with no indirect call site of its own (its calls were devirtualized) may
    // still list indirect targets in the call graph: nvlink gathers their externs too
    // (black-box, sm_75: a `delete` through a known type; testdata indirect_listed_targets).
    for &(f, t, _) in &graph_blocks[3] {
        let t = t as SymId;
        if is_kernel(&b.m.symbols[t as usize]) || indirect_sites.contains_key(&f) {
            continue;
        }
        let v = indirect_callees.entry(f).or_default();
        if !v.contains(&t) {
            v.push(t);
        }
    }
    let externs_all = ExternClosure::new(b, &externs, &indirect_callees, &info_place);

    // .nv.info.<fn>: per object, kernels first (in symbol-table order: libcudadevrt lists
    // their records in the reverse order), then the other functions (in section order).
    for (oi, o) in objects.iter().enumerate() {
        let mut order: Vec<(bool, usize, usize)> = Vec::new();
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if o.kind(s) != SectionKind::InfoFn {
                continue;
            }
            if !b.is_live(oi, si) {
                // A function replaced by a later strong definition keeps its slot (created
                // with the object's other non-kernel functions): the winner's records land there.
                if b.replaced_by_later_definition(oi, s.info as usize) {
                    order.push((true, si, si));
                }
                continue;
            }
            // (Kernels -kernels-used does not name, kept by -preserve-relocs, come with the
            // functions.)
            match o.info_function(s).filter(|&f| {
                let sym = &o.symbols()[f as usize];
                InputObject::is_entry(sym) && named_by(opts.kernels_used.as_deref(), sym.name)
            }) {
                Some(kernel) => order.push((false, kernel as usize, si)),
                None => order.push((true, si, si)),
            }
        }
        order.sort_unstable();
        // -r: the unified tables come between the object's kernels and its other functions.
        let functions = order.len();
        let first_function = order.iter().position(|e| e.0).unwrap_or(functions);
        for (pos, (_, _, si)) in order.into_iter().enumerate() {
            if pos == first_function {
                b.unified_tables(oi)?;
            }
            let s = &o.cubin.sections[si];
            if !b.is_live(oi, si) {
                b.add_info_section(function_info_section(
                    s.name,
                    Info::None,
                    Content::Bytes(Vec::new()),
                ));
                continue;
            }
            let recs = nvinfo::parse_records(s.bytes())
                .map_err(|e| e.context(format!("'{}': section '{}'", o.name, s.name_str())))?;
            let Some(text) = b.placed_text(oi, s.info) else {
                continue;
            };
            let func = o.info_function(s).and_then(|f| b.out_sym(oi, f));
            // Records come out in the reverse of the input order; EXTERNS keeps only what is
            // still undefined, gathered over the callees.
            // Externs that only the possible targets of indirect calls need make nvlink
            // write a new EXTERNS record at the end instead of updating the old one.
            // Functions without an EXTERNS record get none, except kernels (whose indirect
            // calls may reach another object's functions that have externs).
            // -r keeps the inputs' EXTERNS records as they are.
            let had_externs = !opts.relocatable
                && (recs.iter().any(|r| r.attr == nvinfo::EIATTR_EXTERNS)
                    || func.is_some_and(|f| kernel_set.contains(&f)));
            let (list, via_indirect) = match func {
                // Another function keeps only the names it lists itself that are still
                // undefined, and kernels (launch targets): nvlink gathers nothing from its
                // callees (a record left empty goes).
                Some(f) if had_externs && !kernel_set.contains(&f) => {
                    let own: Vec<SymId> = list_of(&externs, f)
                        .into_iter()
                        .filter(|&x| {
                            let s = &b.m.symbols[x as usize];
                            s.section.is_none() || is_kernel(s)
                        })
                        .collect();
                    (own, false)
                }
                Some(f) if had_externs => {
                    let own = list_of(&externs, f);
                    let keep = |x: &SymId| {
                        kernel_set.contains(&f)
                            || !is_kernel(&b.m.symbols[*x as usize])
                            || own.contains(x)
                    };
                    // What the function reaches, in `.nv.info` order (`ExternClosure`), then
                    // reordered below: its own names as it lists them, launch targets (kernels)
                    // first among the rest.
                    let mut all: Vec<SymId> = externs_all.get(f).into_iter().filter(keep).collect();
                    // (A name the function lists itself stays among its own names, in its own
                    // order, though an indirect target reaches it too; a kernel among others
                    // lists its own names before those only indirect targets reach.)
                    let sole = sole_kernel == Some(f);
                    if let Some(first_own) = all.iter().position(|x| own.contains(x)) {
                        let mut keyed: Vec<((u8, usize), SymId)> = all
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
                    let callees_part = all
                        .iter()
                        .rposition(|x| own.contains(x))
                        .map_or(0, |i| i + 1);
                    all[callees_part..].sort_by_key(|x| !is_kernel(&b.m.symbols[*x as usize]));
                    // (A kernel without a record of its own gets one at the end too; a kernel
                    // among others gets what indirect targets reach in its own record.)
                    let mut via = !recs.iter().any(|r| r.attr == nvinfo::EIATTR_EXTERNS);
                    // The only kernel of a link also gets the names every address-taken
                    // function reaches, after its own, in a new record (nvlink's, whether or
                    // not it calls through a pointer; with two kernels neither does).
                    // (So do names its callees reach: a new record whenever they add any.)
                    if sole_kernel == Some(f) {
                        via |= all.iter().any(|x| !own.contains(x));
                        for &t in &taken_by_info {
                            for x in externs_all.get(t) {
                                if keep(&x) && !all.contains(&x) {
                                    all.push(x);
                                    via = true;
                                }
                            }
                        }
                    }
                    (all, via)
                }
                _ => (Vec::new(), false),
            };
            // The same rules make the Mercury copy of the records (sm_100+).
            let transform = |recs: &[nvinfo::Record<'_>]| -> Vec<Rec> {
                let mut out = Vec::new();
                // sm_100+ moves the parameter-bank and workaround records to the end, in input
                // order, after the records the link adds.
                let moved_last = |attr: u8| opts.mercury && MOVED_LAST_ON_SM100.contains(&attr);
                for r in recs.iter().rev() {
                    if moved_last(r.attr) {
                        continue;
                    }
                    if r.attr == nvinfo::EIATTR_EXTERNS && opts.relocatable {
                        // -r: the input's names that are still undefined, and kernels (a
                        // launch, not a call, refers to them).
                        if let Value::Bytes(p) = r.value {
                            let still: Vec<SymId> = (0..p.len() / 4)
                                .filter_map(|k| b.out_sym(oi, u32_at(p, 4 * k)))
                                .filter(|&s| {
                                    let sym = &b.m.symbols[s as usize];
                                    sym.section.is_none() || sym.other & STO_CUDA_ENTRY != 0
                                })
                                .collect();
                            if !still.is_empty() {
                                out.push(externs_rec(&still));
                            }
                        }
                        continue;
                    }
                    if r.attr == nvinfo::EIATTR_EXTERNS {
                        if !list.is_empty() && !via_indirect {
                            out.push(externs_rec(&list));
                        }
                        continue;
                    }
                    if let Some(rec) = map_record(b, oi, r) {
                        out.push(rec);
                    }
                }
                // A kernel whose stack cannot be bounded gets CRS_STACK_SIZE = 0xffffffff (in
                // the place of its own record, if it has one).
                if let Some(f) = func {
                    if matches!(min_stack.get(&f), Some(None)) {
                        let mut bytes = vec![nvinfo::EIFMT_SVAL, 0x1e, 4, 0];
                        bytes.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
                        let rec = Rec {
                            bytes,
                            slots: Vec::new(),
                        };
                        match out.iter_mut().find(|r| r.bytes[1] == 0x1e) {
                            Some(old) => *old = rec,
                            None => out.push(rec),
                        }
                    }
                }
                // Kernels inherit their callees' barrier count, %ctaid.z use and EXTERNS (the
                // record the link adds), after their own records, in the order nvlink meets
                // them walking the callees (a partial link reverses each function's records);
                // what no callee's records bring comes last: barriers, EXTERNS, %ctaid.z.
                let added_externs = via_indirect && !list.is_empty();
                let mut pending: Vec<u8> = Vec::new();
                if let Some(f) = func.filter(|f| kernel_set.contains(f)) {
                    let (bars, ctaidz) = inherited.get(&f).copied().unwrap_or((0, false));
                    if bars > 0 {
                        pending.push(0x4c);
                    }
                    if added_externs {
                        pending.push(EIATTR_EXTERNS_ADDED);
                    }
                    if ctaidz {
                        pending.push(0x04);
                    }
                    if !pending.is_empty() {
                        for (attr, g) in inherited_events(f, &succ, &facts) {
                            // (a callee's EXTERNS counts when it names what the kernel's lists)
                            if attr == EIATTR_EXTERNS_ADDED
                                && !facts[&g].externs.iter().any(|e| list.contains(e))
                            {
                                continue;
                            }
                            if let Some(k) = pending.iter().position(|&a| a == attr) {
                                pending.remove(k);
                                inherit_record(&mut out, attr, bars, &list);
                            }
                        }
                    }
                    for attr in pending {
                        inherit_record(&mut out, attr, bars, &list);
                    }
                } else if added_externs {
                    out.push(externs_rec(&list));
                }
                for r in recs.iter().filter(|r| moved_last(r.attr)) {
                    if let Some(rec) = map_record(b, oi, r) {
                        out.push(rec);
                    }
                }
                out
            };
            let mut out = transform(&recs);
            // sm_100+: kernels whose parameter bank got texture/surface slots say which
            // banks hold bindless textures and surfaces (0, the parameter bank).
            let slotted = func.is_some_and(|f| kernel_set.contains(&f))
                && b.resource_bank(oi, s.info as usize)
                    .is_some_and(|k| b.resource_base.contains_key(&k));
            if b.m.mercury && slotted {
                for attr in [EIATTR_BINDLESS_TEXTURE_BANK, EIATTR_BINDLESS_SURFACE_BANK] {
                    out.push(Rec {
                        bytes: vec![nvinfo::EIFMT_BVAL, attr, 0, 0],
                        slots: Vec::new(),
                    });
                }
            }
            if let Some(m) = b.merc_section(oi, &[b".nv.merc", s.name].concat()) {
                let merc_recs = nvinfo::parse_records(m.bytes())
                    .map_err(|e| e.context(format!("'{}': section '{}'", o.name, m.name_str())))?;
                let merc = transform(&merc_recs);
                b.merc_function_info.push((s.name.to_vec(), concat(merc)));
            }
            let recs = out;
            b.add_info_section(function_info_section(
                s.name,
                Info::Section(text),
                concat(recs),
            ));
        }
        if first_function == functions {
            b.unified_tables(oi)?;
        }
    }

    // .nv.callgraph: direct edges grouped by caller (in output symbol order), each caller's
    // callees newest first; then the other three blocks.
    let mut cg: Vec<u8> = Vec::new();
    let mut slots: Vec<(usize, SymId)> = Vec::new();
    // Positions of prototype ids (blocks 1 and 2), which sm_100+ shifts once `.strtab` is laid out.
    let mut cg_protos: Vec<usize> = Vec::new();
    let push_pair = |cg: &mut Vec<u8>,
                     slots: &mut Vec<(usize, SymId)>,
                     a: Option<SymId>,
                     bv: (u32, Option<SymId>)| {
        match a {
            Some(s) => {
                slots.push((cg.len(), s));
                cg.extend_from_slice(&[0; 4]);
            }
            None => cg.extend_from_slice(&0u32.to_le_bytes()),
        }
        match bv.1 {
            Some(s) => {
                slots.push((cg.len(), s));
                cg.extend_from_slice(&[0; 4]);
            }
            None => cg.extend_from_slice(&bv.0.to_le_bytes()),
        }
    };
    for k in 0..4u32 {
        push_pair(&mut cg, &mut slots, None, (0xffff_ffff - k, None));
        let entries = &graph_blocks[k as usize];
        if k == 1 {
            // Address-taken functions keep their input order.
            for &(a, v, _) in entries {
                cg_protos.push(cg.len() + 4);
                push_pair(&mut cg, &mut slots, Some(a), (v, None));
            }
            continue;
        }
        // Calls, indirect call sites and indirect targets: grouped by caller in symbol
        // order, each caller's entries newest first.
        for (a, list) in grouped(entries, k == 0) {
            for (v, is_sym) in list {
                let second = if is_sym { (0, Some(v)) } else { (v, None) };
                if !is_sym {
                    cg_protos.push(cg.len() + 4);
                }
                push_pair(&mut cg, &mut slots, Some(a), second);
            }
        }
    }
    let cg_id = b.add_graph_section(
        b".nv.callgraph",
        SHT_CUDA_CALLGRAPH,
        4,
        8,
        Content::WithSymbols { bytes: cg, slots },
    );
    b.m.sections[cg_id as usize].link = Link::Symtab;
    b.m.prototype_fields
        .extend(cg_protos.into_iter().map(|p| (cg_id, p)));

    if opts.dump_callgraph {
        b.callgraph_report = callgraph_report(b, opts, &graph_blocks, &regs, &kernels);
    }

    let direct_callees: HashSet<SymId> = graph_blocks[0].iter().map(|e| e.1).collect();
    let address_taken: HashSet<SymId> = graph_blocks[1].iter().map(|e| e.0).collect();
    // .nv.prototype: one entry per function that has one, first seen wins.
    let mut proto: Vec<(SymId, u32)> = Vec::new();
    let mut proto_seen: HashSet<SymId> = HashSet::new();
    for (oi, o) in objects.iter().enumerate() {
        for s in &o.cubin.sections {
            if o.kind(s) != SectionKind::Prototype {
                continue;
            }
            for p in s.bytes().chunks_exact(8) {
                let sym = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                let id = u32::from_le_bytes([p[4], p[5], p[6], p[7]]);
                if let Some(out) = b.out_sym(oi, sym) {
                    // Entries stay for functions the driver provides and for those called
                    // directly; address-taken functions lose theirs (the call graph's
                    // address-taken block holds their prototype), called directly or not.
                    // Under -preserve-relocs every other function keeps its entry,
                    // reachable or not.
                    let wanted = !address_taken.contains(&out)
                        && (b.m.symbols[out as usize].section.is_none()
                            || direct_callees.contains(&out)
                            || opts.preserve_relocs
                            || opts.relocatable
                            || opts.debug);
                    if wanted && proto_seen.insert(out) {
                        let id = b.prototype_id(oi, id);
                        proto.push((out, id));
                    }
                }
            }
        }
    }
    let pr_id = if proto.is_empty() {
        None
    } else {
        proto.sort_by_key(|&(s, _)| s);
        let mut bytes = Vec::new();
        let mut slots = Vec::new();
        let mut fields = Vec::new();
        for (s, id) in proto {
            slots.push((bytes.len(), s));
            fields.push(bytes.len() + 4);
            bytes.extend_from_slice(&[0; 4]);
            bytes.extend_from_slice(&id.to_le_bytes());
        }
        let id = b.add_graph_section(
            b".nv.prototype",
            SHT_CUDA_PROTOTYPE,
            4,
            8,
            Content::WithSymbols { bytes, slots },
        );
        b.m.sections[id as usize].link = Link::Symtab;
        b.m.prototype_fields
            .extend(fields.into_iter().map(|p| (id, p)));
        Some(id)
    };

    // .nv.rel.action: the same 16 bytes in every sm_75–sm_90 executable nvlink writes.
    let ra = if opts.arch_sm < 100 && !opts.relocatable {
        let bytes = vec![
            0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36,
        ];
        Some(b.add_graph_section(
            b".nv.rel.action",
            SHT_CUDA_RELOCINFO,
            8,
            8,
            Content::Bytes(bytes),
        ))
    } else {
        None
    };
    b.make_section_symbol(cg_id);
    if let Some(p) = pr_id {
        b.make_section_symbol(p);
    }
    // (the kernels' literal banks the link made: `literal_banks`)
    b.literal_bank_symbols();
    if let Some(r) = ra {
        b.make_section_symbol(r);
    }
    Ok(())
}

fn opts_suppress_stack_warning(o: &Options) -> bool {
    o.suppress_stack_size_warning
}

/// Whether the symbol (as seen from object `oi`) is a function this link keeps.
fn def_is_live(b: &Builder<'_, '_>, oi: usize, sym: u32) -> bool {
    let objects = b.objects();
    let Some(s) = objects[oi].symbols().get(sym as usize) else {
        return false;
    };
    if s.st_type != STT_FUNC {
        return true;
    }
    match s.section {
        SymSection::Index(si) => b.is_live(oi, si as usize),
        _ => true,
    }
}

/// nvlink's `--dump-callgraph` text: every function the link met, numbered from 1 (removed
/// ones as empty lines), with `^` for kernels, `&` for address-taken functions, the function's
/// own register count, and the numbers of what it may call: the possible targets of its
/// indirect calls (address-taken functions of the call's prototype, newest first), then its
/// direct callees (newest first). Then, per kernel (last first), a line each time a function
/// met on a depth-first walk raises its register count. (Output identical to nvlink's on
/// every link of the corpus.)
fn callgraph_report(
    b: &Builder<'_, '_>,
    opts: &Options,
    blocks: &[Vec<(SymId, u32, bool)>; 4],
    regs: &HashMap<SymId, u32>,
    kernels: &[SymId],
) -> Vec<String> {
    use crate::demangle::demangle;
    let name = |s: SymId| demangle(&String::from_utf8_lossy(&b.m.symbols[s as usize].name));
    let nodes: Vec<Option<SymId>> = b.func_nodes.iter().map(|&n| b.node_symbol(n)).collect();
    let number: HashMap<SymId, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(k, s)| s.map(|s| (s, k + 1)))
        .collect();
    let address_taken: Vec<(SymId, u32)> = blocks[1].iter().map(|e| (e.0, e.1)).collect();
    let taken: HashSet<SymId> = address_taken.iter().map(|e| e.0).collect();
    let direct: HashMap<SymId, Vec<(u32, bool)>> = grouped(&blocks[0], true).into_iter().collect();
    let mut out = vec![
        // (the SM, without an 'a' or 'f' suffix)
        format!("callgraph for sm_{}:", opts.arch_sm),
        "# A: s -> B // s (number A) potentially calls B".to_string(),
        "# s [N]     // s uses N registers".to_string(),
        "# ^s        // s is entry point".to_string(),
        "# &s        // s has address taken".to_string(),
    ];
    for (k, s) in nodes.iter().enumerate() {
        let Some(s) = *s else {
            out.push(format!("{}: ", k + 1));
            continue;
        };
        let sym = &b.m.symbols[s as usize];
        let mut line = format!("{}: ", k + 1);
        if sym.other & STO_CUDA_ENTRY != 0 {
            line.push('^');
        }
        if taken.contains(&s) {
            line.push('&');
        }
        line.push_str(&name(s));
        if sym.section.is_some() {
            line.push_str(&format!(" [{}]", regs.get(&s).copied().unwrap_or(0)));
        }
        line.push_str(" ->");
        for &(caller, proto, _) in blocks[2].iter().filter(|e| e.0 == s) {
            let _ = caller;
            for &(t, p) in address_taken.iter().rev() {
                if p == proto {
                    if let Some(n) = number.get(&t) {
                        line.push_str(&format!(" {n}"));
                    }
                }
            }
        }
        for &(t, _) in list(&direct, &s) {
            if let Some(n) = number.get(&t) {
                line.push_str(&format!(" {n}"));
            }
        }
        out.push(line);
    }
    // Which functions each function may call, in the order nvlink walks them when it
    // propagates register counts: direct callees (newest first), then the possible targets of
    // each indirect call site (address-taken functions of its prototype, oldest first).
    let children = |f: SymId| -> Vec<SymId> {
        let mut v: Vec<SymId> = direct
            .get(&f)
            .map(|l| l.iter().map(|e| e.0).collect())
            .unwrap_or_default();
        for &(_, proto, _) in blocks[2].iter().filter(|e| e.0 == f) {
            v.extend(address_taken.iter().filter(|e| e.1 == proto).map(|e| e.0));
        }
        v
    };
    for &k in kernels.iter().rev() {
        // A depth-first walk from the kernel; every function whose own count exceeds what
        // the kernel has so far raises it, with a line.
        let mut current = regs.get(&k).copied().unwrap_or(0);
        let mut seen: HashSet<SymId> = HashSet::new();
        seen.insert(k);
        let mut stack: Vec<SymId> = children(k).into_iter().rev().collect();
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            let r = regs.get(&f).copied().unwrap_or(0);
            if r > current {
                current = r;
                out.push(format!(
                    "regcount {r} for {} propagated to entry {}",
                    name(f),
                    name(k)
                ));
            }
            stack.extend(children(f).into_iter().rev());
        }
    }
    out
}

const EIATTR_BINDLESS_TEXTURE_BANK: u8 = 0x15;
const EIATTR_BINDLESS_SURFACE_BANK: u8 = 0x16;

/// An output `.nv.info.<fn>` section.
fn function_info_section(name: &[u8], info: Info, content: Content) -> OutSection {
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

/// Stands for the EXTERNS record a link adds, in the order of a kernel's added records.
const EIATTR_EXTERNS_ADDED: u8 = 0;

/// An EXTERNS record naming `list` (the symbols' indexes written with the output).
fn externs_rec(list: &[SymId]) -> Rec {
    let mut bytes = vec![nvinfo::EIFMT_SVAL, nvinfo::EIATTR_EXTERNS];
    bytes.extend_from_slice(&((list.len() * 4) as u16).to_le_bytes());
    let mut slots = Vec::new();
    for &x in list {
        slots.push((bytes.len(), x));
        bytes.extend_from_slice(&[0; 4]);
    }
    Rec { bytes, slots }
}

/// Gives a kernel the inherited barrier count (`attr` 0x4c, raising its own), %ctaid.z use
/// (0x04) or the EXTERNS record the link adds, unless it has the record already.
fn inherit_record(out: &mut Vec<Rec>, attr: u8, bars: u8, externs: &[SymId]) {
    if attr == EIATTR_EXTERNS_ADDED {
        out.push(externs_rec(externs));
        return;
    }
    match (attr, out.iter_mut().find(|r| r.bytes[1] == attr)) {
        (0x4c, Some(r)) => r.bytes[2] = r.bytes[2].max(bars),
        (_, Some(_)) => {}
        (0x4c, None) => out.push(Rec {
            bytes: vec![nvinfo::EIFMT_BVAL, 0x4c, bars, 0],
            slots: Vec::new(),
        }),
        (_, None) => out.push(Rec {
            bytes: vec![nvinfo::EIFMT_NVAL, 0x04, 0, 0],
            slots: Vec::new(),
        }),
    }
}

/// The inherited records (0x4c barriers, 0x04 %ctaid.z, EXTERNS) in the order nvlink meets
/// them for kernel `f`: depth first through its callees in call-graph order, a function's own
/// records (in their order) after its callees', each with the function it is met in.
fn inherited_events(
    f: SymId,
    succ: &[Vec<usize>],
    facts: &HashMap<SymId, FunctionFacts>,
) -> Vec<(u8, SymId)> {
    let mut out = Vec::new();
    let mut seen: HashSet<usize> = HashSet::new();
    seen.insert(f as usize);
    // (function, index of its next callee)
    let mut stack: Vec<(usize, usize)> = vec![(f as usize, 0)];
    while let Some(top) = stack.last_mut() {
        let (g, next) = *top;
        if let Some(&h) = succ[g].get(next) {
            top.1 += 1;
            if seen.insert(h) {
                stack.push((h, 0));
            }
            continue;
        }
        stack.pop();
        if g != f as usize {
            if let Some(x) = facts.get(&(g as SymId)) {
                out.extend(x.inherited_order.iter().map(|&a| (a, g as SymId)));
            }
        }
    }
    out
}

/// What one function's `.nv.info.<fn>` records say, as far as the link needs it.
#[derive(Default)]
struct FunctionFacts {
    /// EIATTR_MAXREG_COUNT: the launch-bounds register limit.
    maxreg: Option<u32>,
    /// EIATTR_EXTERNS, as output symbols.
    externs: Vec<SymId>,
    /// EIATTR_NUM_BARRIERS.
    barriers: u8,
    /// EIATTR_CTAIDZ_USED.
    ctaidz: bool,
    /// The order of its EIATTR_NUM_BARRIERS (0x4c), EIATTR_CTAIDZ_USED (0x04) and EXTERNS
    /// records (a partial link reverses ptxas's).
    inherited_order: Vec<u8>,
}

/// Reads the `.nv.info.<fn>` records of every kept function once.
fn function_facts(b: &Builder<'_, '_>) -> Result<HashMap<SymId, FunctionFacts>> {
    let mut out: HashMap<SymId, FunctionFacts> = HashMap::new();
    for (oi, o) in b.objects().iter().enumerate() {
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if o.kind(s) != SectionKind::InfoFn || !b.is_live(oi, si) {
                continue;
            }
            let Some(f) = o.info_function(s) else {
                continue;
            };
            let Some(fo) = b.out_sym(oi, f) else { continue };
            let recs = nvinfo::parse_records(s.bytes())
                .map_err(|e| e.context(format!("'{}': section '{}'", o.name, s.name_str())))?;
            let x = out.entry(fo).or_default();
            for r in recs {
                match (r.attr, r.value) {
                    (0x1b, Value::Half(h)) => x.maxreg = Some(h as u32),
                    (0x4c, Value::Byte(n)) => {
                        x.inherited_order.push(0x4c);
                        x.barriers = x.barriers.max(n);
                    }
                    (0x04, _) => {
                        x.inherited_order.push(0x04);
                        x.ctaidz = true;
                    }
                    (nvinfo::EIATTR_EXTERNS, Value::Bytes(p)) => {
                        x.inherited_order.push(EIATTR_EXTERNS_ADDED);
                        x.externs.extend(
                            (0..p.len() / 4).filter_map(|k| b.out_sym(oi, u32_at(p, 4 * k))),
                        );
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(out)
}

/// Function → functions (callees, targets, externs), in a meaningful order.
type Adjacency = HashMap<SymId, Vec<SymId>>;

/// Entries grouped by their first symbol (in symbol order), each group newest first.
fn grouped(entries: &[(SymId, u32, bool)], dedup: bool) -> Vec<(SymId, Vec<(u32, bool)>)> {
    let mut by_caller: HashMap<SymId, Vec<(u32, bool)>> = HashMap::new();
    let mut seen: HashSet<(SymId, u32, bool)> = HashSet::new();
    for &(a, v, is_sym) in entries {
        if dedup && !seen.insert((a, v, is_sym)) {
            continue;
        }
        by_caller.entry(a).or_default().push((v, is_sym));
    }
    let mut out: Vec<(SymId, Vec<(u32, bool)>)> = by_caller.into_iter().collect();
    out.sort_by_key(|e| e.0);
    for (_, list) in out.iter_mut() {
        list.reverse();
    }
    out
}

fn is_kernel(s: &OutSymbol) -> bool {
    s.st_type == STT_FUNC && s.other & STO_CUDA_ENTRY != 0
}

fn list_of(adj: &Adjacency, f: SymId) -> Vec<SymId> {
    adj.get(&f).cloned().unwrap_or_default()
}

/// The still-undefined names (and launched kernels) each function reaches, for EXTERNS.
///
/// nvlink gathers them function by function in the order of the functions' `.nv.info.<fn>`
/// sections among the inputs, each function's own names in its record's order, over every
/// function reached through calls and the possible targets of indirect calls (black-box,
/// sm_75–sm_120: testdata virtual, externs_callee_before_indirect, indirect_listed_targets,
/// fuzz seeds 2, 18, 29). `externs_by_info` says it plainly; this computes the same once per
/// strongly connected component of the call graph, sinks first: each component keeps, per
/// name, the earliest place it is listed at among what the component reaches — so the work
/// is bounded by the names, not by the functions each kernel reaches.
struct ExternClosure {
    comp_of: Vec<usize>,
    /// Per component: each name reached, with its key (`.nv.info` place, index in the list).
    reached: Vec<HashMap<SymId, NameKey>>,
}

/// Where a name is first listed: the listing function's `.nv.info` place (object, section;
/// none: after all, by function id), then the name's index in that function's list.
type NameKey = (usize, usize, usize);

impl ExternClosure {
    fn new(
        b: &Builder<'_, '_>,
        externs: &Adjacency,
        indirect: &Adjacency,
        info_place: &HashMap<SymId, (usize, usize)>,
    ) -> Self {
        // Kernels stay in EXTERNS as they are named (a dynamic-parallelism launch needs the
        // child's handle), like undefined names; other defined functions are walked through.
        let defined: HashSet<SymId> = (0..b.m.symbols.len() as SymId)
            .filter(|&i| {
                let s = &b.m.symbols[i as usize];
                s.section.is_some() && !is_kernel(s)
            })
            .collect();
        Self::build(b.m.symbols.len(), externs, indirect, &defined, info_place)
    }

    fn build(
        n: usize,
        externs: &Adjacency,
        indirect: &Adjacency,
        defined: &HashSet<SymId>,
        info_place: &HashMap<SymId, (usize, usize)>,
    ) -> Self {
        let succ: Vec<Vec<usize>> = (0..n as SymId)
            .map(|f| {
                list(indirect, &f)
                    .iter()
                    .chain(list(externs, &f).iter().filter(|x| defined.contains(*x)))
                    .map(|&x| x as usize)
                    .collect()
            })
            .collect();
        let g = crate::graph::sccs(&succ);
        let mut reached: Vec<HashMap<SymId, NameKey>> = Vec::with_capacity(g.comps.len());
        for (c, comp) in g.comps.iter().enumerate() {
            // (each component it reaches merged once, however many edges lead there)
            let mut merged: HashSet<usize> = HashSet::new();
            let mut names: HashMap<SymId, NameKey> = HashMap::new();
            let mut merge = |x: SymId, key: NameKey| {
                names
                    .entry(x)
                    .and_modify(|k| *k = (*k).min(key))
                    .or_insert(key);
            };
            for &f in comp {
                let (o, s) = info_place
                    .get(&(f as SymId))
                    .copied()
                    .unwrap_or((usize::MAX, f));
                let own = list(externs, &(f as SymId)).iter();
                for (i, &x) in own.filter(|x| !defined.contains(*x)).enumerate() {
                    merge(x, (o, s, i));
                }
                for &t in &succ[f] {
                    let tc = g.comp_of[t];
                    if tc != c && merged.insert(tc) {
                        for (&x, &key) in &reached[tc] {
                            merge(x, key);
                        }
                    }
                }
            }
            reached.push(names);
        }
        ExternClosure {
            comp_of: g.comp_of,
            reached,
        }
    }

    fn get(&self, f: SymId) -> Vec<SymId> {
        let Some(names) = self.comp_of.get(f as usize).map(|&c| &self.reached[c]) else {
            return Vec::new();
        };
        let mut v: Vec<(NameKey, SymId)> = names.iter().map(|(&x, &k)| (k, x)).collect();
        v.sort_unstable();
        v.into_iter().map(|(_, x)| x).collect()
    }
}

/// The rule `ExternClosure` computes, said plainly (the tests hold the two equal).
/// What `f` reaches through the defined functions its EXTERNS adjacency names and through
/// `indirect` targets, gathered in `.nv.info` order (`info_place`; functions without one last,
/// by id): each reached function's names that are not `defined`, in its own order, once.
#[cfg(test)]
fn externs_by_info(
    f: SymId,
    externs: &Adjacency,
    indirect: &Adjacency,
    defined: &HashSet<SymId>,
    info_place: &HashMap<SymId, (usize, usize)>,
) -> Vec<SymId> {
    let mut seen: HashSet<SymId> = HashSet::new();
    let mut stack = vec![f];
    let mut reached = Vec::new();
    while let Some(g) = stack.pop() {
        if !seen.insert(g) {
            continue;
        }
        reached.push(g);
        stack.extend(list(indirect, &g).iter().copied());
        stack.extend(list(externs, &g).iter().filter(|x| defined.contains(*x)));
    }
    reached.sort_by_key(|g| {
        info_place
            .get(g)
            .copied()
            .unwrap_or((usize::MAX, *g as usize))
    });
    let mut out = Vec::new();
    let mut listed: HashSet<SymId> = HashSet::new();
    for g in reached {
        for &x in list(externs, &g) {
            if !defined.contains(&x) && listed.insert(x) {
                out.push(x);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn externs_are_gathered_in_info_order_over_everything_reached() {
        // f (0) calls g (1) and may call t (2) through a pointer; f names malloc (10), g names
        // vprintf (12) and free (11), t names free. Their `.nv.info` sections: t, g, f.
        let externs: Adjacency = [(0, vec![1, 10]), (1, vec![12, 11]), (2, vec![11])]
            .into_iter()
            .collect();
        let indirect: Adjacency = [(0, vec![2])].into_iter().collect();
        let defined: HashSet<SymId> = [0, 1, 2].into_iter().collect();
        let place: HashMap<SymId, (usize, usize)> = [(2, (0, 1)), (1, (0, 2)), (0, (1, 0))]
            .into_iter()
            .collect();
        assert_eq!(
            externs_by_info(0, &externs, &indirect, &defined, &place),
            vec![11, 12, 10]
        );
    }

    #[test]
    fn externs_of_a_cycle_are_gathered_once() {
        // f (0) and g (1) call each other; each names one undefined name.
        let externs: Adjacency = [(0, vec![1, 10]), (1, vec![0, 11])].into_iter().collect();
        let defined: HashSet<SymId> = [0, 1].into_iter().collect();
        let place: HashMap<SymId, (usize, usize)> =
            [(0, (0, 2)), (1, (0, 1))].into_iter().collect();
        let none = Adjacency::default();
        assert_eq!(
            externs_by_info(0, &externs, &none, &defined, &place),
            vec![11, 10]
        );
    }

    #[test]
    fn the_per_component_closure_equals_the_plain_walk() {
        // A small graph with a cycle (1 <-> 2), an indirect edge and shared callees.
        let externs: Adjacency = [
            (0, vec![1, 10, 3]),
            (1, vec![2, 11]),
            (2, vec![1, 12, 10]),
            (3, vec![13, 11]),
            (4, vec![12]),
        ]
        .into_iter()
        .collect();
        let indirect: Adjacency = [(0, vec![4]), (3, vec![4])].into_iter().collect();
        let defined: HashSet<SymId> = [0, 1, 2, 3, 4].into_iter().collect();
        let place: HashMap<SymId, (usize, usize)> =
            [(4, (0, 1)), (2, (0, 5)), (0, (1, 0)), (1, (1, 3))]
                .into_iter()
                .collect();
        let c = ExternClosure::build(14, &externs, &indirect, &defined, &place);
        for f in 0..5 {
            assert_eq!(
                c.get(f),
                externs_by_info(f, &externs, &indirect, &defined, &place),
                "function {f}"
            );
        }
    }

    #[test]
    fn kernels_named_stay_names() {
        // f (0) launches the kernel k (5): not walked through, listed.
        let externs: Adjacency = [(0, vec![5, 10])].into_iter().collect();
        let defined: HashSet<SymId> = [0].into_iter().collect();
        let none = Adjacency::default();
        assert_eq!(
            externs_by_info(0, &externs, &none, &defined, &HashMap::new()),
            vec![5, 10]
        );
    }
}
