//! Shared memory: static `__shared__` objects get offsets in one module-wide layout, and each
//! kernel gets a `.nv.shared.<kernel>` section sized for what it reaches; `extern __shared__`
//! arrays start after the static objects, at one offset per group of kernels connected
//! through functions that use them.
//!
//! Observed from nvlink 13.5 (testdata static_shared, extern_shared): objects are placed
//! largest first, each above every already-placed object some kernel also reaches (so objects
//! no kernel uses together may overlap); an object's symbol value in the input is its
//! alignment, not an offset; sm_90 and later reserve 0x400 bytes on top of every kernel's size.
//! Under `-preserve-relocs` the objects keep internal local symbols at their offsets: in the
//! `.nv.shared.<kernel>` of the one kernel using them directly, else in `.nv_debug.shared`.

use super::list;
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::layout::align_up;
use crate::liveness::{Liveness, Node};
use crate::object::{InputObject, SectionKind};
use crate::resolve::Resolution;
use hashbrown::{HashMap, HashSet};

/// A shared object: the defining (object, symbol).
pub type ObjKey = (usize, u32);

#[derive(Debug, Default)]
pub struct SharedLayout {
    /// Offset of each static shared object.
    pub offset: HashMap<ObjKey, u64>,
    /// Per kernel: the size and alignment of its `.nv.shared.<kernel>` section.
    pub kernel: HashMap<Node, (u64, u64)>,
    /// Offset of `extern __shared__` arrays as seen from each function that uses them.
    pub extern_offset: HashMap<Node, u64>,
    /// Per extern array (global id): the largest offset its users see it at, the value `-g`
    /// gives its symbol for the debugger.
    pub extern_symbol_offset: HashMap<u32, u64>,
    /// Alignment of the extern arrays in use (0 when none is used).
    pub extern_align: u64,
    /// The kernel that is the only one to reach an object, where there is one.
    pub home: HashMap<ObjKey, Node>,
    /// Bytes reserved below the static objects (sm_90 and later).
    pub reserve: u64,
    /// The largest alignment of the objects the inputs keep in `.nv_debug.shared` (functions'
    /// objects), which the output's `.nv_debug.shared` takes even when some of them end up
    /// in a kernel's section.
    pub debug_align: u64,
    /// Some function's object stays in `.nv_debug.shared` (several kernels reach it).
    pub debug_pool: bool,
    /// When some function's object of the inputs is in no kernel's section or in several:
    /// the largest alignment of all of them and of the extern arrays in use, which every
    /// kernel with static objects takes (1 otherwise).
    pub pool_align: u64,
    /// Functions with static objects that no kernel reaches (kept by -preserve-relocs).
    pub unreached_users: Vec<Node>,
    /// A kernel whose partial link's area without objects meets other static objects.
    pub mixed_partial_area: Option<Node>,
}

/// The alignment a shared object's (or extern array's) symbol value gives: the value is its
/// alignment, not an offset; damaged inputs get a sane 1.
/// The symbol nvlink's `-r` gives each kernel's extern shared area.
pub const INSTANCE: &[u8] = b"externsharedinstance";

pub fn alignment(value: u64) -> u64 {
    if value.is_power_of_two() && value <= 1 << 16 {
        value
    } else {
        1
    }
}

/// Whether an input keeps the object in `.nv_debug.shared` (a function's object, not a
/// kernel's own).
pub fn in_debug_shared(objects: &[InputObject<'_>], (oi, sym): ObjKey) -> bool {
    let o = &objects[oi];
    matches!(o.symbols()[sym as usize].section, SymSection::Index(si)
        if o.cubin.sections.get(si as usize).is_some_and(|x| x.name == b".nv_debug.shared"))
}

/// What a symbol reference means for shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedRef {
    Object(ObjKey),
    Extern,
}

/// Classifies the symbol `sym` of object `oi` (following resolution).
pub fn classify(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    oi: usize,
    sym: u32,
) -> Option<SharedRef> {
    let o = &objects[oi];
    let s = o.symbols().get(sym as usize)?;
    let (do_, ds) = match res.sym_global[oi].get(sym as usize).copied().flatten() {
        Some(g) => match res.globals[g as usize].def {
            Some(d) => (d.obj as usize, d.sym),
            None => {
                return (s.other & STO_CUDA_SHARED != 0 && s.st_type != STT_FUNC)
                    .then_some(SharedRef::Extern);
            }
        },
        // (a partial link's instance symbol, kept with its kernel)
        None if s.section == SymSection::Undefined => {
            return (s.other & STO_CUDA_SHARED != 0 && s.st_type != STT_FUNC)
                .then_some(SharedRef::Extern);
        }
        None => (oi, sym),
    };
    let def = &objects[do_].symbols()[ds as usize];
    match def.section {
        SymSection::Index(si) if def.st_type != STT_SECTION => {
            let sec = &objects[do_].cubin.sections[si as usize];
            if sec.sh_type != SHT_CUDA_SHARED {
                return None;
            }
            // A partial link defines the extern arrays, empty, in `.nv_debug.shared`.
            if sec.name == b".nv_debug.shared" && def.size == 0 && def.bind != STB_LOCAL {
                return Some(SharedRef::Extern);
            }
            Some(SharedRef::Object((do_, ds)))
        }
        _ => None,
    }
}

/// Per kernel: the `.nv.shared.<kernel>` of a partial link's output that defines no object
/// (its section symbol, size and alignment). One pass over each object's sections, and over
/// its symbols only where it has such a section (partial links' outputs).
fn partial_kernel_areas(
    objects: &[InputObject<'_>],
    lv: &Liveness,
) -> HashMap<Node, (ObjKey, u64, u64)> {
    let kernels: HashSet<Node> = lv.kernels.iter().copied().collect();
    let mut out = HashMap::new();
    for (oi, o) in objects.iter().enumerate() {
        // Each kernel's first such section (none when it is empty) → the kernel's text.
        let mut first: HashMap<usize, u32> = HashMap::new();
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if s.sh_type == SHT_CUDA_SHARED
                && s.flags & SHF_INFO_LINK != 0
                && s.name.starts_with(b".nv.shared.")
                && kernels.contains(&(oi, s.info as usize))
            {
                first.entry(s.info as usize).or_insert(si as u32);
            }
        }
        let areas: HashMap<u32, usize> = first
            .into_iter()
            .filter(|&(_, si)| o.cubin.sections[si as usize].size > 0)
            .map(|(ti, si)| (si, ti))
            .collect();
        if areas.is_empty() {
            continue;
        }
        let mut section_symbol: HashMap<u32, u32> = HashMap::new();
        let mut with_objects: HashSet<u32> = HashSet::new();
        for (i, x) in o.symbols().iter().enumerate() {
            let SymSection::Index(si) = x.section else {
                continue;
            };
            if !areas.contains_key(&si) {
                continue;
            }
            if x.st_type == STT_SECTION {
                section_symbol.entry(si).or_insert(i as u32);
            } else {
                with_objects.insert(si);
            }
        }
        for (si, ti) in areas {
            let (Some(&sym), false) = (section_symbol.get(&si), with_objects.contains(&si)) else {
                continue;
            };
            let sec = &o.cubin.sections[si as usize];
            out.insert((oi, ti), ((oi, sym), sec.size, sec.align.max(1)));
        }
    }
    out
}

/// The largest alignment of the extern arrays a partial link's output defines (in its
/// `.nv_debug.shared`, empty, valued at their alignment); 16 when it defines none.
fn partial_array_align(o: &InputObject<'_>) -> u64 {
    o.symbols()
        .iter()
        .filter(|x| {
            x.size == 0
                && x.bind != STB_LOCAL
                && x.other & STO_CUDA_SHARED != 0
                && matches!(x.section, SymSection::Index(si)
                    if o.cubin.sections.get(si as usize)
                        .is_some_and(|s| s.name == b".nv_debug.shared"))
        })
        .map(|x| alignment(x.value))
        .max()
        .unwrap_or(16)
}

/// What the live code refers to in shared memory.
pub struct CodeRefs {
    /// The shared objects each function (text section) uses.
    pub uses: HashMap<Node, Vec<ObjKey>>,
    /// The functions that use extern shared arrays.
    pub extern_users: HashSet<Node>,
    /// Per extern array (global id): the functions that use it.
    pub extern_users_of: HashMap<u32, Vec<Node>>,
    /// The largest alignment those arrays ask for.
    pub extern_align: u64,
    /// Per function using extern arrays: the largest alignment of those it uses.
    pub extern_align_of: HashMap<Node, u64>,
}

/// Scans the relocations of live code for shared-memory references.
pub fn code_refs(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    live: &[Vec<bool>],
) -> CodeRefs {
    let mut uses: HashMap<Node, Vec<ObjKey>> = HashMap::new();
    let mut extern_users: HashSet<Node> = HashSet::new();
    let mut extern_users_of: HashMap<u32, Vec<Node>> = HashMap::new();
    let mut extern_align = 1u64;
    let mut extern_align_of: HashMap<Node, u64> = HashMap::new();
    for (oi, o) in objects.iter().enumerate() {
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if o.kind(s) != SectionKind::Reloc || !live[oi][si] {
                continue;
            }
            let target = s.info as usize;
            if o.cubin.sections.get(target).map(|t| o.kind(t)) != Some(SectionKind::Text) {
                continue;
            }
            let Ok(relocs) = o.cubin.relocations(s) else {
                continue;
            };
            for r in relocs {
                match classify(objects, res, oi, r.sym) {
                    Some(SharedRef::Object(k)) => {
                        let v = uses.entry((oi, target)).or_default();
                        if !v.contains(&k) {
                            v.push(k);
                        }
                    }
                    Some(SharedRef::Extern) => {
                        extern_users.insert((oi, target));
                        if let Some(g) = res.sym_global[oi].get(r.sym as usize).copied().flatten() {
                            let v = extern_users_of.entry(g).or_default();
                            if !v.contains(&(oi, target)) {
                                v.push((oi, target));
                            }
                        }
                        // (A partial link's per-kernel instance symbol holds an offset,
                        // not an alignment: max(alignA(static), A) for arrays aligned A, so
                        // its lowest set bit bounds A, and is A for a kernel without static
                        // objects. Taken as their alignment, at least 16 and at most that of
                        // the arrays the partial link defines.)
                        let sym = &o.symbols()[r.sym as usize];
                        let align = if sym.name.starts_with(INSTANCE) {
                            let low = sym.value & sym.value.wrapping_neg();
                            alignment(low).min(partial_array_align(o)).max(16)
                        } else {
                            alignment(sym.value)
                        };
                        extern_align = extern_align.max(align);
                        let a = extern_align_of.entry((oi, target)).or_insert(1);
                        *a = (*a).max(align);
                    }
                    None => {}
                }
            }
        }
    }

    CodeRefs {
        uses,
        extern_users,
        extern_users_of,
        extern_align,
        extern_align_of,
    }
}

/// `debug` (`-g`): each extern array sits at one offset in every kernel (the largest its
/// users would give it), so that the debugger's symbol for it holds for all of them.
pub fn layout(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    lv: &Liveness,
    reserve: u64,
    debug: bool,
    arch_sm: u32,
) -> SharedLayout {
    let CodeRefs {
        uses,
        extern_users,
        extern_users_of,
        extern_align,
        extern_align_of,
    } = code_refs(objects, res, &lv.live);
    let mut blobs = partial_kernel_areas(objects, lv);
    if uses.is_empty() && extern_users.is_empty() && blobs.is_empty() {
        return SharedLayout::default(); // no shared memory in the module
    }
    // What each kernel reaches (a kernel it launches keeps its shared memory to itself:
    // black-box, sm_75–sm_100, testdata shared_launch).
    // (and what its calls through pointers may reach: testdata shared_indirect)
    let reach: Vec<(Node, Vec<Node>)> = lv
        .kernels
        .iter()
        .map(|&k| (k, lv.kernel_reach(k)))
        .collect();
    let mut uses = uses;
    // A partial link's kernel area with no object in it (nvlink's `-r` pads a kernel that
    // uses only extern arrays so: twice their alignment) stays whole in nvlink's final link,
    // the arrays after it (black-box, sm_75–sm_120; testdata partial_extern_only): taken as
    // one object, the kernel's first, named by its section symbol. Only where every kernel
    // with shared memory has such an area (testdata partial_extern_pair): next to kernels
    // with static objects, nvlink finishing its own partial link moves every kernel's arrays
    // to one offset (see tests/round_trip.rs, extern_shared), which cubin-ld does not follow.
    let all_areas = reach.iter().all(|(k, nodes)| {
        blobs.contains_key(k)
            || !nodes
                .iter()
                .any(|n| uses.contains_key(n) || extern_users.contains(n))
    });
    if !all_areas {
        blobs.clear();
    }
    for (&node, &(key, _, _)) in &blobs {
        uses.entry(node).or_default().insert(0, key);
    }
    if uses.is_empty() && extern_users.is_empty() {
        return SharedLayout::default(); // no shared memory in the module
    }

    // (Where such an area meets other objects of the kernel, where nvlink puts them is not
    // known: refused.)
    let mixed_partial_area = reach
        .iter()
        .find(|(k, nodes)| {
            blobs.get(k).is_some_and(|&(key, _, _)| {
                nodes.iter().flat_map(|n| list(&uses, n)).any(|&o| o != key)
            })
        })
        .map(|(k, _)| *k);
    let mut kernels_of: HashMap<ObjKey, Vec<usize>> = HashMap::new();
    let mut objs: Vec<ObjKey> = Vec::new();
    for (ki, (_, nodes)) in reach.iter().enumerate() {
        for n in nodes {
            for &o in list(&uses, n) {
                let ks = kernels_of.entry(o).or_default();
                if !ks.contains(&ki) {
                    ks.push(ki);
                }
                if !objs.contains(&o) {
                    objs.push(o);
                }
            }
        }
    }
    // Functions kept without a kernel reaching them (-preserve-relocs keeps them all) have
    // their objects laid out too, in no kernel's section (black-box, sm_75–sm_100: at offset
    // 0 of `.nv_debug.shared`; testdata shared_unreached).
    let mut unreached: Vec<&Node> = uses
        .keys()
        .filter(|n| !reach.iter().any(|(_, nodes)| nodes.contains(n)))
        .collect();
    unreached.sort_unstable();
    let unreached_users: Vec<Node> = unreached.iter().map(|n| **n).collect();
    for n in unreached {
        for &o in list(&uses, n) {
            kernels_of.entry(o).or_default();
            if !objs.contains(&o) {
                objs.push(o);
            }
        }
    }
    let blob_of: HashMap<ObjKey, (u64, u64)> = blobs
        .values()
        .map(|&(k, size, align)| (k, (size, align)))
        .collect();
    let size_of = |k: ObjKey| {
        blob_of
            .get(&k)
            .map_or_else(|| objects[k.0].symbols()[k.1 as usize].size, |b| b.0)
    };
    let align_of = |k: ObjKey| {
        blob_of.get(&k).map_or_else(
            || alignment(objects[k.0].symbols()[k.1 as usize].value),
            |b| b.1,
        )
    };
    // nvlink's order (black-box, sm_90): objects several kernels reach first, largest first;
    // then each kernel's own objects (those only it reaches), by alignment (largest first),
    // then size (smallest first), then where the kernel reaches them (its own code first).
    // Objects of different kernels may overlap (the floor below only counts kernels in
    // common).
    let (mut objs, own): (Vec<ObjKey>, Vec<ObjKey>) =
        objs.into_iter().partition(|o| kernels_of[o].len() != 1);
    objs.sort_by_key(|&k| (std::cmp::Reverse(size_of(k)), k));
    for ki in 0..reach.len() {
        let mut mine: Vec<ObjKey> = own
            .iter()
            .copied()
            .filter(|o| kernels_of[o][0] == ki)
            .collect();
        // (`own` is in reach order already: kernels in order, each's nodes in DFS order.)
        mine.sort_by_key(|&k| (std::cmp::Reverse(align_of(k)), size_of(k)));
        objs.extend(mine);
    }

    let mut out = SharedLayout {
        unreached_users,
        mixed_partial_area,
        extern_align: if extern_users.is_empty() {
            0
        } else {
            extern_align
        },
        reserve,
        ..Default::default()
    };
    // An object only one kernel reaches (directly or through callees) is that kernel's.
    for (o, ks) in &kernels_of {
        if let [k] = ks[..] {
            out.home.insert(*o, reach[k].0);
        }
    }
    out.debug_pool = objs
        .iter()
        .any(|k| in_debug_shared(objects, *k) && !out.home.contains_key(k));
    out.debug_align = objs
        .iter()
        .filter(|k| in_debug_shared(objects, **k))
        .map(|&k| align_of(k))
        .max()
        .unwrap_or(1);
    // Every function's object of the inputs, reached or not: when one of them is in no
    // kernel's section or in several (nvlink's pool), every kernel with static objects is
    // aligned for all of them and for the extern arrays in use; and when that asks for more
    // than 16 bytes, the link has no `.nv_debug.shared` (black-box, sm_75–sm_100, default
    // links; testdata shared_pool_align).
    let mut all_debug: Vec<ObjKey> = Vec::new();
    for (oi, o) in objects.iter().enumerate() {
        for (i, x) in o.symbols().iter().enumerate() {
            if x.st_type != STT_SECTION && x.size > 0 && in_debug_shared(objects, (oi, i as u32)) {
                all_debug.push((oi, i as u32));
            }
        }
    }
    if all_debug.iter().any(|k| !out.home.contains_key(k)) {
        let extern_in_use = if extern_users.is_empty() {
            1
        } else {
            extern_align
        };
        out.pool_align = all_debug
            .iter()
            .map(|&k| align_of(k))
            .max()
            .unwrap_or(1)
            .max(extern_in_use);
    }
    let mut placed: Vec<ObjKey> = Vec::new();
    for &o in &objs {
        let ks = &kernels_of[&o];
        let floor = placed
            .iter()
            .filter(|p| kernels_of[*p].iter().any(|k| ks.contains(k)))
            .map(|p| out.offset[p].saturating_add(size_of(*p)))
            .max()
            .unwrap_or(0);
        out.offset.insert(o, align_up(floor, align_of(o)));
        placed.push(o);
    }

    // Kernels connected through a function that uses extern shared memory share its offset.
    let n = reach.len();
    let mut group: Vec<usize> = (0..n).collect();
    fn find(g: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while g[r] != r {
            r = g[r];
        }
        g[x] = r;
        r
    }
    let mut first_user: HashMap<Node, usize> = HashMap::new();
    for (ki, (_, nodes)) in reach.iter().enumerate() {
        for nd in nodes.iter().filter(|nd| extern_users.contains(*nd)) {
            match first_user.get(nd) {
                Some(&other) => {
                    let (a, b) = (find(&mut group, ki), find(&mut group, other));
                    group[a] = b;
                }
                None => {
                    first_user.insert(*nd, ki);
                }
            }
        }
    }
    let mut static_end = vec![0u64; n];
    let mut align = vec![1u64; n];
    let mut uses_extern = vec![false; n];
    // (the alignment of the arrays each kernel reaches)
    let mut kernel_extern_align = vec![1u64; n];
    let mut any = vec![false; n];
    for (ki, (_, nodes)) in reach.iter().enumerate() {
        for nd in nodes {
            for &o in list(&uses, nd) {
                static_end[ki] = static_end[ki].max(out.offset[&o].saturating_add(size_of(o)));
                align[ki] = align[ki].max(align_of(o)).max(out.pool_align);
                any[ki] = true;
            }
            if extern_users.contains(nd) {
                uses_extern[ki] = true;
                any[ki] = true;
                let a = extern_align_of.get(nd).copied().unwrap_or(1);
                kernel_extern_align[ki] = kernel_extern_align[ki].max(a);
                align[ki] = align[ki].max(a);
            }
        }
    }
    let mut group_offset: HashMap<usize, u64> = HashMap::new();
    let mut dropped_kernels: Vec<Node> = Vec::new();
    for ki in 0..n {
        if uses_extern[ki] {
            let g = find(&mut group, ki);
            let v = align_up(static_end[ki], kernel_extern_align[ki]);
            let e = group_offset.entry(g).or_insert(0);
            *e = (*e).max(v);
        }
    }
    for ki in 0..n {
        if !any[ki] {
            continue;
        }
        // A kernel with no static objects whose arrays ask for more than 16-byte alignment
        // gets no `.nv.shared.<kernel>` of its own (unless `-g` gives it bytes), except on
        // sm_90 (black-box, sm_75–sm_120, default, -preserve-relocs and -g links; testdata
        // extern_shared_align).
        let no_static = !reach[ki].1.iter().any(|nd| !list(&uses, nd).is_empty());
        let dropped = no_static && kernel_extern_align[ki] > 16 && arch_sm != 90;
        let base = if uses_extern[ki] {
            group_offset[&find(&mut group, ki)]
        } else {
            static_end[ki]
        };
        if dropped {
            dropped_kernels.push(reach[ki].0);
        }
        // (A kernel with static objects that uses extern arrays too is sized up to its own
        // alignment, the pool's included; the arrays stay where they are.)
        let size = if uses_extern[ki] && static_end[ki] > 0 {
            align_up(base, align[ki])
        } else {
            base
        };
        out.kernel
            .insert(reach[ki].0, (size.saturating_add(reserve), align[ki]));
        if uses_extern[ki] {
            for nd in reach[ki].1.iter().filter(|nd| extern_users.contains(*nd)) {
                out.extern_offset.insert(*nd, base);
            }
        }
    }
    for (g, users) in &extern_users_of {
        let at = users.iter().filter_map(|n| out.extern_offset.get(n)).max();
        if let Some(&at) = at {
            out.extern_symbol_offset.insert(*g, at);
        }
    }
    if debug {
        // A kernel's area then ends where the furthest of its arrays starts.
        for (k, nodes) in &reach {
            let furthest = extern_users_of
                .iter()
                .filter(|(_, users)| users.iter().any(|u| nodes.contains(u)))
                .filter_map(|(g, _)| out.extern_symbol_offset.get(g))
                .max();
            if let (Some(&at), Some(entry)) = (furthest, out.kernel.get_mut(k)) {
                entry.0 = entry.0.max(at.saturating_add(reserve));
            }
        }
    }
    // With extern arrays in use and a pool, every kernel, shared memory or not, gets a
    // `.nv.shared.<kernel>` (the reserved bytes at least) aligned for the pool; those without
    // static objects then go when that alignment is above 16, as above (black-box, default
    // links, sm_75, sm_90, sm_100; testdata shared_pool_align, shared_pool_launch... see
    // shared_pool_all).
    if !extern_users.is_empty() && out.pool_align > 0 {
        for (k, nodes) in &reach {
            let e = out.kernel.entry(*k).or_insert((reserve, 1));
            e.1 = e.1.max(out.pool_align);
            let no_static = !nodes.iter().any(|nd| !list(&uses, nd).is_empty());
            if no_static && out.pool_align > 16 && arch_sm != 90 && !dropped_kernels.contains(k) {
                dropped_kernels.push(*k);
            }
        }
    }
    for k in dropped_kernels {
        if out.kernel.get(&k).is_some_and(|e| e.0 <= reserve) {
            out.kernel.remove(&k);
        }
    }
    out
}
