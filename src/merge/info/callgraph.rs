//! The call graph: read from the inputs' `.nv.callgraph` sections over output symbols, and
//! written back as the output's `.nv.callgraph` and `.nv.prototype`.

use super::lists::SymLists;
use super::records::*;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::{Builder, Options, Prototype};
use crate::object::SectionKind;
use crate::output::*;
use hashbrown::{HashMap, HashSet};

/// The four blocks of `.nv.callgraph` over output symbols, in the inputs' order (entries of
/// removed functions left out).
#[derive(Default)]
pub(super) struct Blocks {
    /// (caller, callee)
    pub calls: Vec<(OutSym, OutSym)>,
    /// (function, prototype id)
    pub address_taken: Vec<(OutSym, u32)>,
    /// Indirect call sites: (caller, prototype id).
    pub indirect_sites: Vec<(OutSym, u32)>,
    /// The indirect targets the compiler listed: (caller, target).
    pub indirect_targets: Vec<(OutSym, OutSym)>,
}

/// The link's call graph over output function symbols.
pub(super) struct CallGraph {
    /// The inputs' four blocks, merged.
    pub blocks: Blocks,
    /// Where each function's `.nv.info.<fn>` is among the inputs (object, section).
    pub info_place: InfoPlaces,
    /// The address-taken functions in the order of their `.nv.info.<fn>` sections among the
    /// inputs: the order nvlink gathers their externs in (whatever the call graph's order).
    pub taken_by_info: Vec<OutSym>,
    /// The address-taken functions of each prototype, in that order.
    pub by_prototype: HashMap<u32, Vec<OutSym>>,
    /// Each indirect call site of a function, as the prototype it calls through.
    pub indirect_sites: SymLists<u32>,
    /// The possible targets of each function's indirect calls.
    pub indirect_targets: Adjacency,
    /// What each function calls: directly, and through pointers (the possible targets).
    pub callees: Adjacency,
    /// What each function calls directly.
    pub direct_callees: Adjacency,
}

/// Where each function's `.nv.info.<fn>` is among the inputs (object, section), by symbol.
pub(super) type InfoPlaces = crate::ids::IdVec<OutSym, Option<(ObjectId, usize)>>;

/// Reads the inputs' call graphs (and registers the prototypes they name).
pub(super) fn read(b: &mut Builder<'_, '_>) -> CallGraph {
    let n = b.m.symbols.len();
    // (The blocks and the places are each read from every object in parallel and joined on
    // one thread: read side by side.)
    let (graph_blocks, info_place) = {
        let shared: &Builder<'_, '_> = &*b;
        let (per_object, info_place) =
            rayon::join(|| read_object_blocks(shared), || info_places(shared, n));
        (join_blocks(b, per_object), info_place)
    };
    // The address-taken functions in the order of their `.nv.info.<fn>` sections among the
    // inputs: the order nvlink gathers their externs in (whatever the call graph's order).
    let mut taken_by_info: Vec<OutSym> = graph_blocks.address_taken.iter().map(|e| e.0).collect();
    taken_by_info.sort_by_key(|&f| place_of(&info_place, f).unwrap_or((ObjectId::MAX, 0)));
    let mut taken_seen: HashSet<OutSym> = HashSet::new();
    taken_by_info.retain(|&f| taken_seen.insert(f));
    // The possible targets of an indirect call, for registers, stack and externs, are every
    // function of the link whose address is taken with the call's prototype — not only those the
    // compiler listed for its own translation unit (nvlink gives a kernel the registers of a
    // same-prototype function another object puts in a table); in that order.
    let mut prototypes_of: HashMap<OutSym, Vec<u32>> = HashMap::new();
    for &(f, id) in &graph_blocks.address_taken {
        prototypes_of.entry(f).or_default().push(id);
    }
    let mut by_prototype: HashMap<u32, Vec<OutSym>> = HashMap::new();
    for &f in &taken_by_info {
        for &id in crate::merge::list(&prototypes_of, &f) {
            by_prototype.entry(id).or_default().push(f);
        }
    }
    let targets_of = |id: &u32| by_prototype.get(id).map(Vec::as_slice).unwrap_or(&[]);
    // Each indirect call site of a function, as the prototype it calls through.
    let indirect_sites = SymLists::grouped(n, &graph_blocks.indirect_sites);
    let mut calls: Vec<(OutSym, OutSym)> = graph_blocks.calls.clone();
    for &(f, id) in &graph_blocks.indirect_sites {
        calls.extend(targets_of(&id).iter().map(|&t| (f, t)));
    }
    let target_pairs: Vec<(OutSym, OutSym)> = indirect_sites
        .iter()
        .flat_map(|(f, sites)| {
            sites
                .iter()
                .flat_map(move |id| targets_of(id).iter().map(move |&t| (f, t)))
        })
        .collect();
    // (Three lists of the whole graph, each made on one thread: side by side.)
    let (indirect_targets, (callees, direct_callees)) = rayon::join(
        || SymLists::grouped_unique(n, &target_pairs),
        || {
            rayon::join(
                || SymLists::grouped_unique(n, &calls),
                || SymLists::grouped_unique(n, &graph_blocks.calls),
            )
        },
    );
    CallGraph {
        info_place,
        taken_by_info,
        indirect_sites,
        indirect_targets,
        callees,
        direct_callees,
        by_prototype,
        blocks: graph_blocks,
    }
}

/// Where function `f`'s `.nv.info.<fn>` is among the inputs.
pub(super) fn place_of(places: &InfoPlaces, f: OutSym) -> Option<(ObjectId, usize)> {
    places.get(f).copied().flatten()
}

/// Where each function's `.nv.info.<fn>` is among the inputs: the first one, in input order
/// (each object's read in parallel).
fn info_places(b: &Builder<'_, '_>, n: usize) -> InfoPlaces {
    let objects = b.p.objects();
    let per_object: Vec<Vec<(OutSym, usize)>> = crate::object::par_map(objects, |oi| {
        let o = &objects[oi];
        o.sections_of(SectionKind::InfoFn)
            .filter(|&(si, _)| b.p.is_live(oi, si))
            .filter_map(|(si, s)| Some((o.info_function(s).and_then(|f| b.p.out_sym(oi, f))?, si)))
            .collect()
    });
    let mut places = InfoPlaces::filled(None, n);
    for (oi, list) in crate::object::ids(objects).zip(per_object) {
        for (f, si) in list {
            let p = &mut places[f];
            if p.is_none() {
                *p = Some((oi, si));
            }
        }
    }
    places
}

/// One input `.nv.callgraph` over output symbols, its prototypes read but not yet interned.
#[derive(Default)]
struct SectionBlocks<'data> {
    calls: Vec<(OutSym, OutSym)>,
    indirect_targets: Vec<(OutSym, OutSym)>,
    indirect_sites: Vec<(OutSym, Prototype<'data>)>,
    address_taken: Vec<(OutSym, Prototype<'data>)>,
}

/// An object's `.nv.callgraph` sections over output symbols, entries of removed functions
/// dropped (only reads: each object's in parallel).
fn object_blocks<'data>(b: &Builder<'_, 'data>, oi: ObjectId) -> Vec<SectionBlocks<'data>> {
    let o = &b.p.objects()[oi];
    let mut out = Vec::new();
    // (Read once, and only for a losing copy's address-taken entry: rare.)
    let code_taken: std::cell::OnceCell<HashSet<u32>> = std::cell::OnceCell::new();
    for (_, s) in o.sections_of(SectionKind::Callgraph) {
        let mut blocks = SectionBlocks::default();
        let live_sym = |sym: u32| b.p.out_sym(oi, sym).filter(|_| def_is_live(b, oi, sym));
        let mut taken_in: Vec<(u32, u32)> = Vec::new();
        for (block, first, second) in crate::elf::callgraph_entries(s.bytes()) {
            if block == 1 {
                taken_in.push((first, second));
                continue;
            }
            let Some(a) = live_sym(first) else {
                continue;
            };
            match block {
                0 | 3 => {
                    let Some(c) = b.p.out_sym(oi, second) else {
                        continue;
                    };
                    if block == 0 {
                        blocks.calls.push((a, c));
                    } else {
                        blocks.indirect_targets.push((a, c));
                    }
                }
                _ => blocks.indirect_sites.push((a, b.prototype(oi, second))),
            }
        }
        // (A weak function's address taken by code where its copy lost to another object's
        // is still taken: nvlink lists it while some copy is kept. Black-box, sm_100:
        // fuzz-equiv seeds 58, 73; testdata address_taken_replaced_weak. Taken by the
        // object's data alone, it is not: nvlink lists it in .nv.prototype instead, sm_75-
        // sm_120: fuzz-equiv seeds 140, 248; testdata weak_copy_in_function_table,
        // weak_copy_in_device_table.)
        let taken = |sym: u32| {
            b.p.out_sym(oi, sym).filter(|&a| {
                def_is_live(b, oi, sym)
                    || (b.m.symbols[a].section.is_some()
                        && code_taken
                            .get_or_init(|| code_taken_symbols(o))
                            .contains(&sym))
            })
        };
        for (sym, proto) in taken_in {
            if let Some(a) = taken(sym) {
                blocks.address_taken.push((a, b.prototype(oi, proto)));
            }
        }
        out.push(blocks);
    }
    out
}

/// The symbols whose address some code of `o` takes (relocations from code that are not
/// calls).
fn code_taken_symbols(o: &crate::object::InputObject<'_>) -> HashSet<u32> {
    let from_code = |r: &crate::elf::Section<'_>| {
        o.cubin
            .sections
            .get(r.info as usize)
            .is_some_and(|t| o.kind(t) == SectionKind::Text)
    };
    o.sections_of(SectionKind::Reloc)
        .filter(|(_, r)| from_code(r))
        .filter_map(|(_, r)| o.cubin.relocations(r).ok())
        .flat_map(|rs| rs.iter())
        .filter(|x| crate::reloc::table::kind(x.r_type) == crate::reloc::table::Kind::Value)
        .map(|x| x.sym)
        .collect()
}

/// Each object's call-graph blocks over output function symbols, entries of removed
/// functions dropped (read in parallel).
fn read_object_blocks<'data>(b: &Builder<'_, 'data>) -> Vec<Vec<SectionBlocks<'data>>> {
    crate::object::par_map(b.p.objects(), |oi| object_blocks(b, oi))
}

/// The objects' blocks (`read_object_blocks`) joined in input order, address-taken functions
/// once each; the prototypes interned in input order (their ids are their order of first
/// use), each section's indirect call sites' before its address-taken functions'.
fn join_blocks<'data>(
    b: &mut Builder<'_, 'data>,
    per_object: Vec<Vec<SectionBlocks<'data>>>,
) -> Blocks {
    let mut address_taken_seen: HashSet<(OutSym, u32)> = HashSet::new();
    let mut graph_blocks = Blocks::default();
    for sections in per_object {
        for blocks in sections {
            graph_blocks.calls.extend(blocks.calls);
            graph_blocks
                .indirect_targets
                .extend(blocks.indirect_targets);
            for (a, p) in blocks.indirect_sites {
                let id = b.intern_prototype(p);
                graph_blocks.indirect_sites.push((a, id));
            }
            for (a, p) in blocks.address_taken {
                let id = b.intern_prototype(p);
                if address_taken_seen.insert((a, id)) {
                    graph_blocks.address_taken.push((a, id));
                }
            }
        }
    }
    // nvlink lists address-taken functions in the order their symbols first appear among the
    // inputs (an undefined reference in an earlier object counts), whatever order the
    // compiler wrote the call-graph entries in.
    let first_seen =
        b.p.first_appearance(graph_blocks.address_taken.iter().map(|e| e.0));
    graph_blocks
        .address_taken
        .sort_by_key(|e| first_seen.get(&e.0).copied().unwrap_or(usize::MAX));
    graph_blocks
}

/// The contents of `.nv.callgraph` (`contents`), to be added by `emit_callgraph`.
pub(super) struct GraphSection {
    bytes: Vec<u8>,
    slots: Vec<(usize, OutSym)>,
    /// Where its prototype ids are.
    prototypes: Vec<usize>,
}

/// `.nv.callgraph`, its contents made (read only: beside other work) by `contents`.
pub(super) fn emit_callgraph(b: &mut Builder<'_, '_>, made: GraphSection) -> OutSec {
    let cg_id = b.add_graph_section(
        b".nv.callgraph",
        SHT_CUDA_CALLGRAPH,
        4,
        8,
        Content::WithSymbols {
            bytes: made.bytes,
            slots: made.slots,
        },
    );
    b.m.sections[cg_id].link = Link::Symtab;
    b.m.prototype_fields
        .extend(made.prototypes.into_iter().map(|p| (cg_id, p)));
    cg_id
}

/// `.nv.callgraph`'s contents for a module of `n` symbols: direct edges grouped by caller (in
/// output symbol order), each caller's callees newest first; then the other three blocks.
pub(super) fn contents(graph: &CallGraph, n: usize) -> GraphSection {
    let graph_blocks = &graph.blocks;
    let indirect_sites = SymLists::grouped(n, &graph_blocks.indirect_sites);
    let indirect_targets = SymLists::grouped(n, &graph_blocks.indirect_targets);
    // (Room made once: a large link's graph is megabytes, and each doubling is fresh pages
    // on the one thread that writes it.)
    let (direct, taken) = (
        graph.direct_callees.total(),
        graph_blocks.address_taken.len(),
    );
    let (sites, targets) = (indirect_sites.total(), indirect_targets.total());
    let mut cg: Vec<u8> = Vec::with_capacity(8 * (4 + direct + taken + sites + targets));
    let mut slots: Vec<(usize, OutSym)> =
        Vec::with_capacity(2 * direct + taken + sites + 2 * targets);
    // Positions of prototype ids (blocks 1 and 2), which sm_100+ shifts once `.strtab` is laid out.
    let mut cg_protos: Vec<usize> = Vec::with_capacity(taken + sites);
    let push_pair = |cg: &mut Vec<u8>,
                     slots: &mut Vec<(usize, OutSym)>,
                     a: Option<OutSym>,
                     bv: (u32, Option<OutSym>)| {
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
    // Each block opens with its marker. Calls, indirect call sites and indirect targets are
    // grouped by caller in symbol order, each caller's entries newest first; address-taken
    // functions keep their input order.
    let marker = |k: u32| (0xffff_ffff - k, None);
    push_pair(&mut cg, &mut slots, None, marker(0));
    for (a, list) in graph.direct_callees.iter() {
        for &v in list.iter().rev() {
            push_pair(&mut cg, &mut slots, Some(a), (0, Some(v)));
        }
    }
    push_pair(&mut cg, &mut slots, None, marker(1));
    for &(a, v) in &graph_blocks.address_taken {
        cg_protos.push(cg.len() + 4);
        push_pair(&mut cg, &mut slots, Some(a), (v, None));
    }
    push_pair(&mut cg, &mut slots, None, marker(2));
    for (a, list) in indirect_sites.iter() {
        for &v in list.iter().rev() {
            cg_protos.push(cg.len() + 4);
            push_pair(&mut cg, &mut slots, Some(a), (v, None));
        }
    }
    push_pair(&mut cg, &mut slots, None, marker(3));
    for (a, list) in indirect_targets.iter() {
        for &v in list.iter().rev() {
            push_pair(&mut cg, &mut slots, Some(a), (0, Some(v)));
        }
    }
    GraphSection {
        bytes: cg,
        slots,
        prototypes: cg_protos,
    }
}

/// `.nv.prototype`: one entry per function that has one, first seen wins.
pub(super) fn emit_prototypes(
    b: &mut Builder<'_, '_>,
    opts: &Options,
    graph: &CallGraph,
) -> Option<OutSec> {
    let objects = b.p.objects();
    let graph_blocks = &graph.blocks;
    // (by symbol: called directly, address taken, has its entry)
    let n = b.m.symbols.len();
    let mut direct_callees = vec![false; n];
    for e in &graph_blocks.calls {
        direct_callees[e.1.index()] = true;
    }
    let mut address_taken = vec![false; n];
    for e in &graph_blocks.address_taken {
        address_taken[e.0.index()] = true;
    }
    // .nv.prototype: one entry per function that has one, first seen wins.
    let mut proto: Vec<(OutSym, u32)> = Vec::new();
    let mut proto_seen = vec![false; n];
    for (oi, o) in crate::object::enumerated(objects) {
        for (_, s) in o.sections_of(SectionKind::Prototype) {
            for p in s.bytes().chunks_exact(8) {
                let sym = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                let id = u32::from_le_bytes([p[4], p[5], p[6], p[7]]);
                if let Some(out) = b.p.out_sym(oi, sym) {
                    // Entries stay for functions the driver provides and for those called
                    // directly; address-taken functions lose theirs (the call graph's
                    // address-taken block holds their prototype), called directly or not.
                    // Under -preserve-relocs every other function keeps its entry,
                    // reachable or not.
                    let wanted = !address_taken[out.index()]
                        && (b.m.symbols[out].section.is_none()
                            || direct_callees[out.index()]
                            || !opts.policy.removes_dead_code());
                    if wanted && !std::mem::replace(&mut proto_seen[out.index()], true) {
                        let id = b.prototype_id(oi, id);
                        proto.push((out, id));
                    }
                }
            }
        }
    }
    if proto.is_empty() {
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
        b.m.sections[id].link = Link::Symtab;
        b.m.prototype_fields
            .extend(fields.into_iter().map(|p| (id, p)));
        Some(id)
    }
}
