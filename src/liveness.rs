//! Liveness: which input sections the output keeps. Losing weak copies go, and so do device
//! functions no root reaches. The roots are the kernels the link keeps (all of them, those
//! `-kernels-used` names, or those host code launches), every function under `-r`,
//! `-preserve-relocs` and `-g`, and functions whose address data holds. Computed once, before
//! the undefined-reference check (only references from live code are errors), and read by every
//! later pass.

use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::GlobalId;
use crate::ids::ObjectId;
use crate::object::{InputObject, SectionKind};
use crate::resolve::Resolution;
use hashbrown::{HashMap, HashSet};

/// A function's code: (object, text section index).
pub type Node = (ObjectId, usize);

/// Calls and address references from code, kept by the object whose code makes them: an
/// object's part is its own, read in parallel and never joined into one table.
#[derive(Default)]
pub struct CodeEdges {
    by_object: crate::ids::IdVec<ObjectId, ObjectEdges>,
}

impl CodeEdges {
    /// What function `n`'s code refers to, in the order its relocations do (`None`: nothing).
    pub fn get(&self, n: &Node) -> Option<&[Node]> {
        self.by_object.get(n.0)?.get(n.1)
    }

    /// Every (function, what its code refers to) pair, object by object.
    pub fn pairs(&self) -> impl Iterator<Item = (Node, Node)> + '_ {
        self.by_object.iter_enumerated().flat_map(|(oi, e)| {
            e.start.windows(2).enumerate().flat_map(move |(si, w)| {
                e.targets[w[0] as usize..w[1] as usize]
                    .iter()
                    .map(move |&t| ((oi, si), t))
            })
        })
    }
}

/// One object's code references, grouped by the text section making them: one table of
/// targets, each section's a stretch of it (the walks look every function up, and a table
/// of lists by section was tens of thousands of small lists at wide-1600, found by hashing).
#[derive(Default)]
struct ObjectEdges {
    /// By section index: where its stretch of `targets` starts (one more, for the end).
    start: Vec<u32>,
    targets: Vec<Node>,
}

impl ObjectEdges {
    /// The (from section, target) pairs of an object of `sections` sections, each section's
    /// in the order given.
    fn of(sections: usize, pairs: &[(usize, Node)]) -> ObjectEdges {
        if pairs.is_empty() {
            return ObjectEdges::default();
        }
        let (targets, start) = crate::ids::grouped_by(sections, pairs, |p| p.0, |p| p.1);
        ObjectEdges { start, targets }
    }

    fn get(&self, si: usize) -> Option<&[Node]> {
        let (&from, &to) = (self.start.get(si)?, self.start.get(si + 1)?);
        (from < to).then(|| &self.targets[from as usize..to as usize])
    }
}

/// A set of functions' code sections: a flag per input section, by object (the walks over
/// the code graph test and mark each function many times).
#[derive(Clone)]
struct NodeSet {
    by_object: crate::ids::IdVec<ObjectId, Vec<bool>>,
}

impl NodeSet {
    fn new(objects: &[InputObject<'_>]) -> NodeSet {
        Self::with_sections(objects.iter().map(|o| o.cubin.sections.len()))
    }

    /// Empty, for objects with these numbers of sections.
    fn with_sections(counts: impl Iterator<Item = usize>) -> NodeSet {
        NodeSet {
            by_object: counts.map(|n| vec![false; n]).collect(),
        }
    }

    fn contains(&self, n: &Node) -> bool {
        self.by_object[n.0].get(n.1).copied().unwrap_or(false)
    }

    /// Marks `n`; `true` when it was not marked before.
    fn insert(&mut self, n: Node) -> bool {
        match self.by_object[n.0].get_mut(n.1) {
            Some(seen) => !std::mem::replace(seen, true),
            // (Not a section of the object: the graph holds none such.)
            None => false,
        }
    }
}

/// What liveness found: the kept sections, the code reference graph and the kernels.
pub struct Liveness {
    pub live: crate::ids::IdVec<ObjectId, Vec<bool>>,
    /// Calls and address references from each function's code.
    pub edges: CodeEdges,
    /// The possible targets of each function's indirect calls: the address-taken functions
    /// with a prototype one of its call sites calls through (in input order).
    pub indirect: HashMap<Node, Vec<Node>>,
    /// The link's kernels, in input order: those -kernels-used names and host code launches,
    /// and the kernels their code launches (dynamic parallelism); not those only
    /// -preserve-relocs or -r keeps.
    pub kernels: Vec<Node>,
    /// What reachability started from: the kept kernels, or every function where all are
    /// kept; and the functions whose address data holds (for `explain`).
    pub roots: Vec<Node>,
    pub data_roots: Vec<Node>,
    /// The same, for lookups.
    kernel_set: HashSet<Node>,
    /// The kernels among them only other kernels launch, where host code's launches decide
    /// the roots: their `.nv.info.<fn>` come after the launched kernels' (black-box: LTO
    /// code, testdata lto `lto_incomplete`).
    pub launched_by_kernels_only: HashSet<Node>,
    /// Undefined globals (by id) that live code refers to.
    pub undefined_from_live: HashSet<GlobalId>,
    /// For each of them, the first live function (in input order) whose code refers to it.
    pub undefined_referrer: HashMap<GlobalId, Node>,
    /// Undefined globals only removed code refers to: they leave the symbol table.
    pub undefined_dead_only: HashSet<GlobalId>,
    /// The kernels that are not the link's, with why (for `explain`): in input order.
    pub unwanted: Vec<(Node, Unwanted)>,
}

/// Why a kernel is not one the link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unwanted {
    /// `-kernels-used` names other kernels.
    NotNamed,
    /// `-variables-used` without `-kernels-used`: no kernel is named.
    NoneNamed,
    /// Host information: host code never launches it.
    NotLaunched,
}

impl Liveness {
    pub fn is_kernel(&self, n: Node) -> bool {
        self.kernel_set.contains(&n)
    }

    /// Whether a function's code calls anything: a function, a ptxas helper, or through a
    /// pointer (the address it takes of other functions aside).
    pub fn calls_anything(&self, n: Node) -> bool {
        self.edges.get(&n).is_some_and(|e| !e.is_empty()) || self.indirect.contains_key(&n)
    }

    /// The link's kernels (`kernels`), for lookups.
    pub fn kernel_set(&self) -> &HashSet<Node> {
        &self.kernel_set
    }

    /// The functions kernel `k` reaches, in depth-first order from it: through calls and
    /// address references from code, and what its calls through pointers may reach (live
    /// targets), not through other kernels (a launched kernel keeps its own).
    pub fn kernel_reach(&self, k: Node) -> Vec<Node> {
        let mut seen: HashSet<Node> = HashSet::new();
        let mut order = Vec::new();
        let mut st = vec![k];
        while let Some(n) = st.pop() {
            if n != k && self.kernel_set.contains(&n) {
                continue;
            }
            if seen.insert(n) {
                order.push(n);
                if let Some(es) = self.edges.get(&n) {
                    st.extend(es.iter().copied());
                }
                if let Some(es) = self.indirect.get(&n) {
                    st.extend(es.iter().copied().filter(|t| self.live[t.0][t.1]));
                }
            }
        }
        order
    }
}

/// The kernels host code launches, as the host objects' glob patterns; objects marked
/// `exempt` (a used system library) keep all their kernels.
#[derive(Debug, Clone, Default)]
pub struct HostKernels {
    pub patterns: Vec<Vec<u8>>,
    pub exempt: Vec<bool>,
}

impl HostKernels {
    pub fn launched(&self, object: ObjectId, name: &[u8]) -> bool {
        self.exempt.get(object.index()).copied().unwrap_or(false)
            || self
                .patterns
                .iter()
                .any(|p| crate::input::host::glob_match(p, name))
    }
}

/// What decides the roots and what stays whole.
pub struct Roots<'a> {
    /// `-kernels-used` (see `named_by`).
    pub kernels_used: Option<&'a [String]>,
    /// Host information (`.nvHRK*`): only the kernels host code launches are roots.
    pub host_kernels: Option<&'a HostKernels>,
    /// Every function is a root (-preserve-relocs, -r, -g).
    pub keep_all: bool,
    /// The inputs' shared-memory sections stay as they are (-r, which does not lay shared
    /// memory out), and so do every live function's literal banks.
    pub keep_shared: bool,
}

/// Whether the kernel filter keeps a kernel: `None` keeps every one; a list keeps those whose
/// mangled name contains one of its strings (`-kernels-used`), none when it is empty
/// (`-variables-used` alone).
pub fn named_by(kernels_used: Option<&[String]>, name: &[u8]) -> bool {
    kernels_used.is_none_or(|ks| {
        ks.iter()
            .any(|k| name.windows(k.len().max(1)).any(|w| w == k.as_bytes()))
    })
}

/// The text section (object, section index) each symbol's definition lies in, following
/// resolution. A global's is worked out once, in parallel, not at each of the scan's
/// references to it: most calls name another object's function, whose symbol and section
/// lie far from the calling object's (wide-400: 120,000 look-ups for 9,200 globals).
struct DefiningText<'o, 'data> {
    objects: &'o [InputObject<'data>],
    res: &'o Resolution<'data>,
    /// By global: its definition's text section, if it is a function defined in code.
    of_global: Vec<Option<Node>>,
}

impl<'o, 'data> DefiningText<'o, 'data> {
    fn new(objects: &'o [InputObject<'data>], res: &'o Resolution<'data>) -> Self {
        use rayon::prelude::*;
        let of_global = res
            .globals
            .par_iter()
            .map(|g| g.def.and_then(|d| text_of(objects, d.obj, d.sym)))
            .collect();
        DefiningText {
            objects,
            res,
            of_global,
        }
    }

    /// The text section that defines symbol `sym` of object `oi`.
    fn get(&self, oi: ObjectId, sym: u32) -> Option<Node> {
        match self.res.global_of(oi, sym) {
            Some(g) => self.of_global[g.index()],
            None => text_of(self.objects, oi, sym),
        }
    }
}

/// The text section symbol `s` of object `o` lies in, if it is a function in code.
fn text_of(objects: &[InputObject<'_>], o: ObjectId, s: u32) -> Option<Node> {
    let obj = &objects[o];
    let symbol = obj.symbols().get(s as usize)?;
    if symbol.st_type != STT_FUNC {
        return None;
    }
    match symbol.section {
        SymSection::Index(si)
            if obj.kind(&obj.cubin.sections[si as usize]) == SectionKind::Text =>
        {
            Some((o, si as usize))
        }
        _ => None,
    }
}

/// Which input sections the output keeps.
pub fn liveness(objects: &[InputObject<'_>], res: &Resolution<'_>, roots: &Roots<'_>) -> Liveness {
    // -kernels-used keeps the kernels whose mangled name contains one of the strings.
    let wanted = |oi: ObjectId, name: &[u8]| {
        named_by(roots.kernels_used, name)
            && roots.host_kernels.is_none_or(|h| h.launched(oi, name))
    };
    let mut g = CodeGraph::scan(objects, res, &wanted, roots.keep_all);
    // (The scan met the kept kernels: its entry roots, in input order.)
    let kernels = g.entry_roots.clone();
    let (code_roots, data_roots) = (g.roots.clone(), g.data_roots.clone());
    let live_text = g.reach(objects);
    let indirect = g.indirect_targets();
    // A function's literal bank stays only when a kernel reaches the function, through calls
    // or calls through pointers (nvlink drops the bank of a dead function -preserve-relocs
    // keeps, and of one only data points at; -r keeps them all).
    let reached_text = if roots.keep_shared {
        live_text.clone()
    } else {
        reached_from(objects, &g.entry_roots, &g.edges, &indirect, &live_text)
    };
    let live = crate::object::par_map(objects, |oi| {
        let o = &objects[oi];
        live_sections(oi, o, res, &live_text, &reached_text, roots.keep_shared)
    });
    // Kernels the kept ones launch (dynamic parallelism) are the link's kernels too: with
    // their own shared memory and literal banks, their registers raised and their stack
    // computed (black-box, host links: nvlink gives k_refine's child kernel, which host code
    // never launches, its own .nv.constant2 and MIN_STACK_SIZE; testdata
    // device_launched_kernel). Not those only -preserve-relocs or -r keeps.
    let launched_by_kernels = if roots.keep_shared {
        reached_from(objects, &g.entry_roots, &g.edges, &indirect, &live_text)
    } else {
        reached_text.clone()
    };
    let mut kernels = kernels;
    let by_kernels: Vec<Node> = g
        .other_entries
        .iter()
        .copied()
        .filter(|n| launched_by_kernels.contains(n))
        .collect();
    kernels.extend(&by_kernels);
    kernels.sort_unstable();
    let launched_by_kernels_only = match roots.keep_all {
        true => HashSet::new(),
        false => by_kernels.into_iter().collect(),
    };
    let undefined_from_live: HashSet<GlobalId> = g
        .undefined_refs
        .iter()
        .filter(|(from, _)| live_text.contains(from))
        .map(|(_, g)| *g)
        .collect();
    let mut undefined_referrer: HashMap<GlobalId, Node> = HashMap::new();
    for &(from, gid) in g
        .undefined_refs
        .iter()
        .filter(|(from, _)| live_text.contains(from))
    {
        undefined_referrer.entry(gid).or_insert(from);
    }
    let undefined_dead_only = g
        .undefined_refs
        .iter()
        .map(|(_, g)| *g)
        .filter(|g| !undefined_from_live.contains(g))
        .collect();
    let kernel_set: HashSet<Node> = kernels.iter().copied().collect();
    let unwanted = g
        .other_entries
        .iter()
        .filter(|&&n| !kernel_set.contains(&n))
        .map(|&n| (n, unwanted_because(objects, roots.kernels_used, n)))
        .collect();
    Liveness {
        live: live.into(),
        edges: g.edges,
        indirect,
        kernels,
        roots: code_roots,
        data_roots,
        kernel_set,
        launched_by_kernels_only,
        undefined_from_live,
        undefined_referrer,
        undefined_dead_only,
        unwanted,
    }
}

/// Why the roots leave out a kernel: the kernel filter, else host information.
fn unwanted_because(
    objects: &[InputObject<'_>],
    kernels_used: Option<&[String]>,
    n: Node,
) -> Unwanted {
    let o = &objects[n.0];
    let name = o
        .text_function(&o.cubin.sections[n.1])
        .and_then(|f| o.symbols().get(f as usize))
        .map_or(&[][..], |s| s.name);
    match kernels_used {
        Some([]) => Unwanted::NoneNamed,
        ks if !named_by(ks, name) => Unwanted::NotNamed,
        _ => Unwanted::NotLaunched,
    }
}

/// The code reference graph over text sections, as the inputs' relocations and call graphs
/// give it.
#[derive(Default)]
struct CodeGraph<'data> {
    /// Calls and address references from code.
    edges: CodeEdges,
    /// While one object is read: those from its code (from text section, target), then
    /// grouped by section.
    own_pairs: Vec<(usize, Node)>,
    own_edges: ObjectEdges,
    /// Kernels the link keeps, and every function when all are kept.
    roots: Vec<Node>,
    /// Functions whose address data holds: kept, but what they call only counts once a live
    /// indirect call could reach them (see `reach`).
    data_roots: Vec<Node>,
    /// The kernels alone, in input order: the kernels the link keeps (and what
    /// -preserve-relocs would keep if it removed dead code).
    entry_roots: Vec<Node>,
    /// The other kernels (-kernels-used does not name them or host code does not launch
    /// them), in input order.
    other_entries: Vec<Node>,
    /// From the call graphs: each address-taken function's prototypes, and each function's
    /// indirect call sites' prototypes (the prototype strings).
    taken_proto: HashMap<Node, Vec<&'data [u8]>>,
    calls_through: HashMap<Node, Vec<&'data [u8]>>,
    /// References from code to undefined globals: (function, global id).
    undefined_refs: Vec<(Node, GlobalId)>,
}

impl<'data> CodeGraph<'data> {
    /// Each object's part is read in parallel and joined in input order.
    fn scan(
        objects: &[InputObject<'data>],
        res: &Resolution<'_>,
        wanted: &(dyn Fn(ObjectId, &[u8]) -> bool + Sync),
        keep_all: bool,
    ) -> Self {
        let defs = DefiningText::new(objects, res);
        let mut parts: Vec<CodeGraph<'data>> = crate::object::par_map(objects, |oi| {
            Self::scan_object(objects, res, &defs, wanted, keep_all, oi)
        });
        let mut g = CodeGraph::default();
        // (Each object's edges leave its own sections: they stay its own.)
        g.edges.by_object = parts
            .iter_mut()
            .map(|p| std::mem::take(&mut p.own_edges))
            .collect();
        for part in parts {
            g.join(part);
        }
        g
    }

    fn scan_object(
        objects: &[InputObject<'data>],
        res: &Resolution<'_>,
        defs: &DefiningText<'_, '_>,
        wanted: &dyn Fn(ObjectId, &[u8]) -> bool,
        keep_all: bool,
        oi: ObjectId,
    ) -> Self {
        let mut g = CodeGraph::default();
        let o = &objects[oi];
        for (si, s) in o.cubin.sections.iter().enumerate() {
            match o.kind(s) {
                SectionKind::Callgraph => g.read_callgraph(objects, defs, oi, si),
                SectionKind::Text => {
                    if let Some(f) = o.text_function(s) {
                        let sym = &o.symbols()[f as usize];
                        // -preserve-relocs keeps every function (nothing is dead).
                        let entry = InputObject::is_entry(sym) && wanted(oi, sym.name);
                        if (entry || keep_all) && res.is_winner(oi, f) {
                            g.roots.push((oi, si));
                        }
                        if entry && res.is_winner(oi, f) {
                            g.entry_roots.push((oi, si));
                        } else if InputObject::is_entry(sym) && res.is_winner(oi, f) {
                            g.other_entries.push((oi, si));
                        }
                    }
                }
                SectionKind::Reloc => g.read_relocations(objects, res, defs, oi, si),
                _ => {}
            }
        }
        g.own_edges = ObjectEdges::of(o.cubin.sections.len(), &std::mem::take(&mut g.own_pairs));
        g
    }

    /// Adds the part read from a later object.
    fn join(&mut self, later: CodeGraph<'data>) {
        fn extend<K: std::hash::Hash + Eq, V>(
            into: &mut HashMap<K, Vec<V>>,
            from: HashMap<K, Vec<V>>,
        ) {
            for (k, v) in from {
                into.entry(k).or_default().extend(v);
            }
        }
        self.roots.extend(later.roots);
        self.data_roots.extend(later.data_roots);
        self.entry_roots.extend(later.entry_roots);
        self.other_entries.extend(later.other_entries);
        extend(&mut self.taken_proto, later.taken_proto);
        extend(&mut self.calls_through, later.calls_through);
        self.undefined_refs.extend(later.undefined_refs);
    }

    /// The prototypes of one `.nv.callgraph`'s address-taken functions (block 1) and
    /// indirect call sites (block 2).
    fn read_callgraph(
        &mut self,
        objects: &[InputObject<'data>],
        defs: &DefiningText<'_, '_>,
        oi: ObjectId,
        si: usize,
    ) {
        let o = &objects[oi];
        let s = &o.cubin.sections[si];
        let strtab = o
            .cubin
            .sections
            .get(o.symtab_index() as usize)
            .and_then(|st| o.cubin.section(st.link))
            .map(|t| t.bytes())
            .unwrap_or(&[]);
        for (block, sym, proto) in crate::elf::callgraph_entries(s.bytes()) {
            if block == 0 {
                self.read_call(objects, defs, oi, sym, proto);
                continue;
            }
            let (Some(f), Some(proto)) =
                (defs.get(oi, sym), crate::elf::read::cstr_at(strtab, proto))
            else {
                continue;
            };
            match block {
                1 => self.taken_proto.entry(f).or_default().push(proto),
                2 => self.calls_through.entry(f).or_default().push(proto),
                _ => {}
            }
        }
    }

    /// A call the call graph lists (block 0: caller, callee) keeps the callee as a call from
    /// code does, whether the code still calls it or not: ptxas lists the warp-level helpers
    /// it inlines (`__cuda_sm70_shflsync_down`, sm_75-sm_89) as called, and nvlink keeps them.
    fn read_call(
        &mut self,
        objects: &[InputObject<'data>],
        defs: &DefiningText<'_, '_>,
        oi: ObjectId,
        caller: u32,
        callee: u32,
    ) {
        let (Some((_, from)), Some(to)) = (text_of(objects, oi, caller), defs.get(oi, callee))
        else {
            return;
        };
        if to != (oi, from) {
            self.own_pairs.push((from, to));
        }
    }

    /// The edges one relocation section adds: from code, calls and address references (and
    /// references to undefined globals); from allocated data, roots.
    fn read_relocations(
        &mut self,
        objects: &[InputObject<'data>],
        res: &Resolution<'_>,
        defs: &DefiningText<'_, '_>,
        oi: ObjectId,
        si: usize,
    ) {
        let o = &objects[oi];
        let s = &o.cubin.sections[si];
        let mut target = s.info as usize;
        let Some(mut t) = o.cubin.sections.get(target) else {
            return;
        };
        // A function's own literal bank (`.nv.constant2.<fn>`, whose jump tables hold code
        // addresses) speaks for the function's code.
        if is_function_literal_bank(t) {
            if let Some(code) = o
                .cubin
                .sections
                .get(t.info as usize)
                .filter(|c| o.kind(c) == SectionKind::Text)
            {
                target = t.info as usize;
                t = code;
            }
        }
        let from_code = o.kind(t) == SectionKind::Text;
        if !from_code && t.flags & SHF_ALLOC == 0 {
            return; // debug information keeps nothing alive
        }
        let Ok(relocs) = o.cubin.relocations(s) else {
            return;
        };
        // The definition the code's own function resolves to: itself, or for a weak copy
        // that lost, the copy that won, whose address the loser's code takes only as its own
        // (return addresses of its calls): that keeps nothing, as in nvlink (thrust's
        // temporary_array destructors in several objects).
        let own = from_code
            .then(|| o.text_function(t).and_then(|f| defs.get(oi, f)))
            .flatten();
        for r in relocs {
            if from_code {
                if let Some(g) = res.global_of(oi, r.sym) {
                    if res.globals[g].def.is_none() {
                        self.undefined_refs.push(((oi, target), g));
                    }
                }
            }
            let Some(callee) = defs.get(oi, r.sym) else {
                continue;
            };
            // A function whose address code takes is kept as one whose address data holds
            // (`reach`), whether that code is kept or not: its callees count only when a live
            // indirect call could reach it (black-box, nvlink 13.5: a kernel storing `t`'s
            // address keeps `t` but not `t`'s callee; a removed function taking it keeps it
            // too; testdata taken_in_dead_code).
            // (A kernel's address is a launch from device code, which keeps what it calls.)
            let call = crate::reloc::table::kind(r.r_type) != crate::reloc::table::Kind::Value
                || is_kernel_code(objects, callee);
            // (Code naming its own function with an addend computes a return address; with
            // none it takes the function's address, which keeps it like any other taker:
            // black-box, sm_75-sm_120, a function storing its own address in a pointer it
            // calls through is kept with no indirect call site anywhere; fuzz-equiv seed 75;
            // testdata taken_by_itself.)
            let own_address = callee == (oi, target) || Some(callee) == own;
            let return_address = own_address && r.addend.unwrap_or(0) != 0;
            if from_code && call {
                if callee != (oi, target) {
                    self.own_pairs.push((target, callee));
                }
            } else if !from_code || !return_address {
                self.data_roots.push(callee);
            }
        }
    }

    /// What code reaches from the roots; then the functions data points at, whose callees
    /// count only when a live indirect call site has their prototype (nvlink keeps such a
    /// function but drops what it calls when nothing could call it; a function the call
    /// graphs say nothing about counts as callable).
    /// (Takes the roots: nothing reads them after.)
    fn reach(&mut self, objects: &[InputObject<'_>]) -> NodeSet {
        let mut live_text = NodeSet::new(objects);
        let mut stack = std::mem::take(&mut self.roots);
        let mut data_roots = std::mem::take(&mut self.data_roots);
        let mut pending: Vec<Node> = Vec::new();
        let mut live_protos: HashSet<&[u8]> = HashSet::new();
        loop {
            while let Some(n) = stack.pop() {
                if live_text.insert(n) {
                    if let Some(es) = self.edges.get(&n) {
                        stack.extend(es.iter().copied());
                    }
                    live_protos.extend(self.calls_through.get(&n).into_iter().flatten().copied());
                }
            }
            for n in data_roots.drain(..) {
                if !live_text.contains(&n) {
                    pending.push(n);
                }
            }
            let (now, later): (Vec<_>, Vec<_>) = pending.drain(..).partition(|n| {
                live_text.contains(n)
                    || self
                        .taken_proto
                        .get(n)
                        .is_none_or(|ps| ps.iter().any(|p| live_protos.contains(p)))
            });
            pending = later;
            if now.is_empty() {
                break;
            }
            stack.extend(now.into_iter().filter(|n| !live_text.contains(n)));
        }
        // (kept, not followed)
        for n in pending {
            live_text.insert(n);
        }
        live_text
    }

    /// Indirect call sites' possible targets, by prototype, in input order.
    fn indirect_targets(&self) -> HashMap<Node, Vec<Node>> {
        let mut taken_by_proto: HashMap<&[u8], Vec<Node>> = HashMap::new();
        let mut taken_nodes: Vec<&Node> = self.taken_proto.keys().collect();
        taken_nodes.sort_unstable();
        for n in taken_nodes {
            for p in &self.taken_proto[n] {
                let v = taken_by_proto.entry(p).or_default();
                if !v.contains(n) {
                    v.push(*n);
                }
            }
        }
        self.calls_through
            .iter()
            .map(|(n, ps)| {
                let mut v: Vec<Node> = Vec::new();
                for p in ps {
                    for t in taken_by_proto.get(p).map(Vec::as_slice).unwrap_or(&[]) {
                        if !v.contains(t) {
                            v.push(*t);
                        }
                    }
                }
                (*n, v)
            })
            .collect()
    }
}

/// What the kernels reach through calls and live possible targets of calls through pointers.
fn reached_from(
    objects: &[InputObject<'_>],
    kernels: &[Node],
    edges: &CodeEdges,
    indirect: &HashMap<Node, Vec<Node>>,
    live_text: &NodeSet,
) -> NodeSet {
    let mut seen = NodeSet::new(objects);
    let mut stack = kernels.to_vec();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            if let Some(es) = edges.get(&n) {
                stack.extend(es.iter().copied());
            }
            if let Some(es) = indirect.get(&n) {
                stack.extend(es.iter().copied().filter(|t| live_text.contains(t)));
            }
        }
    }
    seen
}

/// Whether a text section is a kernel's.
fn is_kernel_code(objects: &[InputObject<'_>], (oi, si): Node) -> bool {
    let o = &objects[oi];
    o.text_function(&o.cubin.sections[si])
        .and_then(|f| o.symbols().get(f as usize))
        .is_some_and(InputObject::is_entry)
}

/// A constant bank that belongs to one function (`.nv.constant2.<fn>`, linked to its code).
fn is_function_literal_bank(s: &crate::elf::read::Section<'_>) -> bool {
    s.flags & SHF_INFO_LINK != 0
        && (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&s.sh_type)
}

/// Which of one object's sections stay: a function's own sections go with its code.
fn live_sections(
    oi: ObjectId,
    o: &InputObject<'_>,
    res: &Resolution<'_>,
    live_text: &NodeSet,
    reached_text: &NodeSet,
    keep_shared: bool,
) -> Vec<bool> {
    let secs = &o.cubin.sections;
    let text_live = |si: usize| -> bool {
        match o.text_function(&secs[si]) {
            Some(f) => res.is_winner(oi, f) && live_text.contains(&(oi, si)),
            None => false,
        }
    };
    secs.iter()
        .enumerate()
        .map(|(si, s)| match o.kind(s) {
            SectionKind::Text => text_live(si),
            SectionKind::InfoFn | SectionKind::KernelConstant => {
                (s.info as usize) < secs.len()
                    && o.kind(&secs[s.info as usize]) == SectionKind::Text
                    && text_live(s.info as usize)
            }
            SectionKind::Reloc => match secs.get(s.info as usize) {
                Some(t) if o.kind(t) == SectionKind::Text => text_live(s.info as usize),
                Some(t) => !matches!(o.kind(t), SectionKind::Other | SectionKind::Null),
                None => false,
            },
            // (A function's own literal bank goes with it.)
            SectionKind::Merged
                if is_function_literal_bank(s)
                    && secs
                        .get(s.info as usize)
                        .is_some_and(|c| o.kind(c) == SectionKind::Text) =>
            {
                text_live(s.info as usize) && reached_text.contains(&(oi, s.info as usize))
            }
            SectionKind::Merged => true,
            _ => {
                (s.sh_type == SHT_CUDA_RESERVED_SHARED
                    && !crate::elf::names::is_mercury_section(s.name))
                    || (keep_shared && s.sh_type == SHT_CUDA_SHARED)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(o: usize, s: usize) -> Node {
        (ObjectId::from_index(o), s)
    }

    #[test]
    fn a_node_set_marks_each_function_once_and_only_in_its_own_object() {
        let mut set = NodeSet::with_sections([3, 2].into_iter());
        assert!(set.insert(node(1, 1)));
        assert!(!set.insert(node(1, 1)));
        assert!(set.contains(&node(1, 1)));
        assert!(!set.contains(&node(0, 1)));
        assert!(!set.contains(&node(1, 0)));
    }

    #[test]
    fn a_node_set_holds_no_section_an_object_does_not_have() {
        let mut set = NodeSet::with_sections([1].into_iter());
        assert!(!set.insert(node(0, 5)));
        assert!(!set.contains(&node(0, 5)));
    }

    #[test]
    fn code_edges_are_found_under_the_object_that_makes_them() {
        let edges = CodeEdges {
            by_object: vec![
                ObjectEdges::default(),
                ObjectEdges::of(6, &[(4, node(0, 2))]),
            ]
            .into_iter()
            .collect(),
        };
        assert_eq!(edges.get(&node(1, 4)), Some(&[node(0, 2)][..]));
        assert_eq!(edges.get(&node(1, 3)), None);
        assert_eq!(edges.get(&node(0, 4)), None);
        assert_eq!(edges.get(&node(7, 4)), None);
    }
}
