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
use crate::ids::GlobalId;
use crate::ids::ObjectId;
use crate::liveness::{Liveness, Node};
use crate::object::{InputObject, SectionKind};
use crate::output::align_up;
use crate::resolve::Resolution;
use hashbrown::{HashMap, HashSet};

/// A shared object: the defining (object, symbol).
pub type ObjKey = (ObjectId, u32);

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
    pub extern_symbol_offset: HashMap<GlobalId, u64>,
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
    /// Functions using extern arrays that no kernel reaches (kept by -preserve-relocs and
    /// -g): they have no kernel's area, so no `extern_offset`.
    pub unreached_extern_users: HashSet<Node>,
    /// What each global's definition is for shared memory (see [`Definitions`]).
    pub definitions: Definitions,
    /// Which symbols name shared memory (see [`NamesShared`]).
    pub names_shared: NamesShared,
}

pub use crate::elf::names::EXTERN_SHARED_INSTANCE as INSTANCE;

/// The alignment a shared object's (or extern array's) symbol value gives: the value is its
/// alignment, not an offset; damaged inputs get a sane 1.
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
    oi: ObjectId,
    sym: u32,
) -> Option<SharedRef> {
    let o = &objects[oi];
    let s = o.symbols().get(sym as usize)?;
    match res.global_of(oi, sym) {
        Some(g) => match res.globals[g].def {
            Some(d) => of_definition(objects, d.obj, d.sym),
            None => (s.other & STO_CUDA_SHARED != 0 && s.st_type != STT_FUNC)
                .then_some(SharedRef::Extern),
        },
        // (a partial link's instance symbol, kept with its kernel)
        None if s.section == SymSection::Undefined => {
            (s.other & STO_CUDA_SHARED != 0 && s.st_type != STT_FUNC).then_some(SharedRef::Extern)
        }
        None => of_definition(objects, oi, sym),
    }
}

/// What each defined global's definition is for shared memory and the constant banks,
/// worked out once per global (in parallel): a relocation or symbol that names a global
/// then costs one look-up in this table, not the walk from reference to definition to its
/// section through tables spread over memory (a million relocations in a large link, and
/// every symbol; the constant-bank walk alone was a tenth of relocation's time at
/// wide-1600, most references being calls into other objects).
#[derive(Debug, Default)]
pub struct Definitions(crate::ids::IdVec<GlobalId, Defined>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defined {
    /// Neither shared memory nor a user constant bank.
    Other,
    /// In user constant bank N (`definition_bank`).
    Constant(u32),
    Extern,
    /// A static object: the definition is the key.
    Object,
    /// No definition: each reference says what it is.
    Undefined,
}

impl Definitions {
    pub fn of(objects: &[InputObject<'_>], res: &Resolution<'_>) -> Definitions {
        use rayon::prelude::*;
        let v: Vec<Defined> = res
            .globals
            .par_iter()
            .map(|g| match g.def {
                None => Defined::Undefined,
                Some(d) => match of_definition(objects, d.obj, d.sym) {
                    None => match definition_bank(objects, d.obj, d.sym) {
                        Some(bank) => Defined::Constant(bank),
                        None => Defined::Other,
                    },
                    Some(SharedRef::Extern) => Defined::Extern,
                    Some(SharedRef::Object(_)) => Defined::Object,
                },
            })
            .collect();
        Definitions(v.into())
    }

    /// [`classify`], the globals' definitions taken from the table (where it has them).
    pub fn classify(
        &self,
        objects: &[InputObject<'_>],
        res: &Resolution<'_>,
        oi: ObjectId,
        sym: u32,
    ) -> Option<SharedRef> {
        let g = res.global_of(oi, sym);
        match g.and_then(|g| Some((g, *self.0.get(g)?))) {
            Some((_, Defined::Other | Defined::Constant(_))) => None,
            Some((_, Defined::Extern)) => Some(SharedRef::Extern),
            Some((g, Defined::Object)) => res.globals[g]
                .def
                .map(|d| SharedRef::Object((d.obj, d.sym))),
            Some((_, Defined::Undefined)) | None => classify(objects, res, oi, sym),
        }
    }

    /// The user constant bank of the definition of symbol `sym` of object `oi`, where the
    /// table knows it (a global's; `None`: a local, or no table, as in a partial link).
    pub fn constant_bank(
        &self,
        res: &Resolution<'_>,
        oi: ObjectId,
        sym: u32,
    ) -> Option<Option<u32>> {
        match *self.0.get(res.global_of(oi, sym)?)? {
            Defined::Constant(bank) => Some(Some(bank)),
            // (An undefined global's definition is in no bank.)
            Defined::Other | Defined::Extern | Defined::Object | Defined::Undefined => Some(None),
        }
    }
}

/// The constant bank (3 for `__constant__` data) that symbol `ds` of object `do_`, a
/// definition, lives in; `None` outside the user banks (bank 0 is the kernels' parameters).
pub fn definition_bank(objects: &[InputObject<'_>], do_: ObjectId, ds: u32) -> Option<u32> {
    let obj = &objects[do_];
    let SymSection::Index(si) = obj.symbols().get(ds as usize)?.section else {
        return None;
    };
    let t = obj.cubin.sections.get(si as usize)?.sh_type;
    (t != SHT_CUDA_CONSTANT_B0 && (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&t))
        .then(|| t - SHT_CUDA_CONSTANT_B0)
}

/// What the definition `(do_, ds)` is for shared memory.
fn of_definition(objects: &[InputObject<'_>], do_: ObjectId, ds: u32) -> Option<SharedRef> {
    let def = objects[do_].symbols().get(ds as usize)?;
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

/// Per kernel: its partial link's area (the key it is placed by, size, alignment).
type Areas = HashMap<Node, (ObjKey, u64, u64)>;

/// A function's own shared memory, `.nv.shared.<fn>` (its sh_info the function's code).
fn is_function_scope_shared(s: &crate::elf::read::Section<'_>) -> bool {
    s.sh_type == SHT_CUDA_SHARED
        && s.flags & SHF_INFO_LINK != 0
        && s.name.starts_with(b".nv.shared.")
}

/// Per kernel: the `.nv.shared.<kernel>` of a partial link's output that defines no object
/// (its section symbol, or the kernel's where no symbol names it, size and alignment). One
/// pass over each object's sections, and over its symbols only where it has such a section
/// (partial links' outputs).
fn partial_kernel_areas(objects: &[InputObject<'_>], lv: &Liveness) -> Areas {
    let kernels: HashSet<Node> = lv.kernels.iter().copied().collect();
    let mut out = HashMap::new();
    for (oi, o) in crate::object::enumerated(objects) {
        // Each kernel's first such section (none when it is empty) → the kernel's text.
        let mut first: HashMap<usize, u32> = HashMap::new();
        // (Shared memory is of kind Other: the kinds are scanned, not every header read.)
        for (si, s) in o.sections_of(SectionKind::Other) {
            if is_function_scope_shared(s) && kernels.contains(&(oi, s.info as usize)) {
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
            if with_objects.contains(&si) {
                continue;
            }
            // An area no symbol names (nvlink's `-r` gives one to a kernel that uses no
            // shared memory, beside kernels that use extern arrays; its final link keeps
            // it: scripts/programs, shfl_scan_dyn) is keyed by its kernel's symbol, which
            // no shared object is.
            let key = match section_symbol.get(&si) {
                Some(&sym) => Some(sym),
                None => o.text_function(&o.cubin.sections[ti]),
            };
            let Some(sym) = key else {
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
    pub extern_users_of: HashMap<GlobalId, Vec<Node>>,
    /// The largest alignment those arrays ask for.
    pub extern_align: u64,
    /// Per function using extern arrays: the largest alignment of those it uses.
    pub extern_align_of: HashMap<Node, u64>,
    /// The kernels whose code names a partial link's `externsharedinstance` symbol.
    pub instance_users: HashSet<Node>,
    /// Per function using extern arrays: the alignment of the array its first such
    /// relocation names (relocation sections and entries in file order).
    pub first_align_of: HashMap<Node, u64>,
    /// Which symbols of each object name shared memory.
    pub names_shared: NamesShared,
}

/// Which symbols of each object name shared memory (by object, by symbol index): worked out
/// once per symbol where the live code's references are scanned, so that relocation asks
/// [`Definitions::classify`] only of the relocations through such a symbol (a few, or none,
/// of a million in a large link).
#[derive(Debug, Default)]
pub struct NamesShared(crate::ids::IdVec<ObjectId, Vec<bool>>);

impl NamesShared {
    /// Whether symbol `sym` of object `oi` may name shared memory (`true` where the table
    /// does not say).
    pub fn may(&self, oi: ObjectId, sym: u32) -> bool {
        match self.0.get(oi) {
            Some(syms) => syms.get(sym as usize).copied().unwrap_or(false),
            None => true,
        }
    }
}

/// Scans the relocations of live code for shared-memory references: each object's in
/// parallel, joined in input order.
pub fn code_refs(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    defs: &Definitions,
    live: &crate::ids::IdVec<ObjectId, Vec<bool>>,
) -> CodeRefs {
    let parts =
        crate::object::par_map(objects, |oi| object_code_refs(objects, res, defs, live, oi));
    // (Each object's functions are its own: only the per-array lists gather several.)
    let mut all = CodeRefs {
        uses: HashMap::new(),
        extern_users: HashSet::new(),
        extern_users_of: HashMap::new(),
        extern_align: 1,
        extern_align_of: HashMap::new(),
        instance_users: HashSet::new(),
        first_align_of: HashMap::new(),
        names_shared: NamesShared::default(),
    };
    let mut names_shared = crate::ids::IdVec::new();
    for (part, named) in parts {
        names_shared.push(named);
        all.uses.extend(part.uses);
        all.extern_users.extend(part.extern_users);
        for (g, users) in part.extern_users_of {
            all.extern_users_of.entry(g).or_default().extend(users);
        }
        all.extern_align = all.extern_align.max(part.extern_align);
        all.extern_align_of.extend(part.extern_align_of);
        all.instance_users.extend(part.instance_users);
        all.first_align_of.extend(part.first_align_of);
    }
    all.names_shared = NamesShared(names_shared);
    all
}

/// One object's part of `code_refs`, and which of its symbols name shared memory.
fn object_code_refs(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    defs: &Definitions,
    live: &crate::ids::IdVec<ObjectId, Vec<bool>>,
    oi: ObjectId,
) -> (CodeRefs, Vec<bool>) {
    let mut uses: HashMap<Node, Vec<ObjKey>> = HashMap::new();
    let mut extern_users: HashSet<Node> = HashSet::new();
    let mut extern_users_of: HashMap<GlobalId, Vec<Node>> = HashMap::new();
    let mut extern_align = 1u64;
    let mut extern_align_of: HashMap<Node, u64> = HashMap::new();
    let mut instance_users: HashSet<Node> = HashSet::new();
    let mut first_align_of: HashMap<Node, u64> = HashMap::new();
    let o = &objects[oi];
    // Which of the object's symbols name shared memory: each classified once, not at each
    // relocation through it; an object with none has no relocation to read here (most
    // objects of a link: tens of thousands of relocations at wide-1600, none of them shared).
    let shared: Vec<bool> = (0..o.symbols().len())
        .map(|i| defs.classify(objects, res, oi, i as u32).is_some())
        .collect();
    let names_shared = |sym: u32| shared.get(sym as usize).copied().unwrap_or(false);
    let any = shared.contains(&true);
    let relocation_sections = o.sections_of(SectionKind::Reloc).filter(|_| any);
    for (si, s) in relocation_sections {
        if !live[oi][si] {
            continue;
        }
        let target = s.info as usize;
        if o.cubin.sections.get(target).map(|t| o.kind(t)) != Some(SectionKind::Text) {
            continue;
        }
        let Ok(relocs) = o.cubin.relocations(s) else {
            continue;
        };
        for r in relocs.into_iter().filter(|r| names_shared(r.sym)) {
            match defs.classify(objects, res, oi, r.sym) {
                Some(SharedRef::Object(k)) => {
                    let v = uses.entry((oi, target)).or_default();
                    if !v.contains(&k) {
                        v.push(k);
                    }
                }
                Some(SharedRef::Extern) => {
                    extern_users.insert((oi, target));
                    if let Some(g) = res.global_of(oi, r.sym) {
                        let v = extern_users_of.entry(g).or_default();
                        if !v.contains(&(oi, target)) {
                            v.push((oi, target));
                        }
                    }
                    // (A partial link's per-kernel instance symbol holds an offset,
                    // not an alignment: max(alignA(static), A) for arrays aligned A, so
                    // its lowest set bit bounds A, and is A for a kernel without static
                    // objects. Under -r taken as their alignment, at least 16 and at most
                    // that of the arrays the partial link defines; a final link resolves
                    // the instances as nvlink does: resolve_instances.)
                    let sym = &o.symbols()[r.sym as usize];
                    let align = if sym.name.starts_with(INSTANCE) {
                        instance_users.insert((oi, target));
                        let low = sym.value & sym.value.wrapping_neg();
                        alignment(low).min(partial_array_align(o)).max(16)
                    } else {
                        alignment(sym.value)
                    };
                    extern_align = extern_align.max(align);
                    let a = extern_align_of.entry((oi, target)).or_insert(1);
                    *a = (*a).max(align);
                    first_align_of.entry((oi, target)).or_insert(align);
                }
                None => {}
            }
        }
    }

    let part = CodeRefs {
        uses,
        extern_users,
        extern_users_of,
        extern_align,
        extern_align_of,
        instance_users,
        first_align_of,
        names_shared: NamesShared::default(),
    };
    (part, shared)
}

/// One static shared object in a kernel's `.nv.shared.<kernel>`, for `--resource-usage`.
#[derive(Debug, Clone)]
pub struct KernelObject {
    pub offset: u64,
    pub size: u64,
    /// The object's symbol and the function whose code uses it (as the inputs name them).
    pub name: String,
    pub user: String,
}

/// Per kernel (by its name): the static shared objects it reaches, each with the first
/// function (kernel first, then what it calls) that uses it, by offset; and the extern
/// arrays its functions use (sized at launch). Only for `--resource-usage`: it walks every
/// kernel's reach again.
pub fn kernel_objects(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    lv: &Liveness,
    layout: &SharedLayout,
) -> HashMap<Vec<u8>, (Vec<KernelObject>, Vec<String>)> {
    let refs = code_refs(objects, res, &layout.definitions, &lv.live);
    let fn_name = |(oi, si): Node| {
        let o = &objects[oi];
        let name = o
            .text_function(&o.cubin.sections[si])
            .and_then(|f| o.symbols().get(f as usize))
            .map_or(&b""[..], |s| s.name);
        String::from_utf8_lossy(name).into_owned()
    };
    let mut out = HashMap::new();
    for &k in &lv.kernels {
        let mut seen: HashSet<ObjKey> = HashSet::new();
        let mut list = Vec::new();
        let mut arrays = Vec::new();
        for n in lv.kernel_reach(k) {
            for &key in refs.uses.get(&n).into_iter().flatten() {
                let Some(&offset) = layout.offset.get(&key) else {
                    continue;
                };
                let sym = &objects[key.0].symbols()[key.1 as usize];
                // (A partial link's area keyed by its kernel holds no object to list.)
                if sym.st_type == STT_FUNC {
                    continue;
                }
                if seen.insert(key) {
                    list.push(KernelObject {
                        offset,
                        size: sym.size,
                        name: String::from_utf8_lossy(sym.name).into_owned(),
                        user: fn_name(n),
                    });
                }
            }
            if refs.extern_users.contains(&n) {
                arrays.push(fn_name(n));
            }
        }
        list.sort_by_key(|x| x.offset);
        let name = fn_name(k).into_bytes();
        out.insert(name, (list, arrays));
    }
    out
}

/// A kernel and the functions (text nodes) it reaches, itself first.
type Reach = (Node, Vec<Node>);

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
    let definitions = Definitions::of(objects, res);
    let mut refs = code_refs(objects, res, &definitions, &lv.live);
    adopt_function_scope_objects(objects, res, lv, &mut refs.uses);
    let blobs = partial_kernel_areas(objects, lv);
    // (No shared memory in the module: the symbols and relocations still ask.)
    let names_shared = std::mem::take(&mut refs.names_shared);
    let none = |definitions, names_shared| SharedLayout {
        definitions,
        names_shared,
        ..SharedLayout::default()
    };
    let dead = dead_code(objects, res, &definitions, lv, &refs.uses);
    if refs.uses.is_empty() && refs.extern_users.is_empty() && blobs.is_empty() && dead.is_empty() {
        return none(definitions, names_shared);
    }
    // What each kernel reaches (a kernel it launches keeps its shared memory to itself:
    // black-box, sm_75–sm_100, testdata shared_launch).
    // (and what its calls through pointers may reach: testdata shared_indirect)
    let reach: Vec<Reach> = lv
        .kernels
        .iter()
        .map(|&k| (k, lv.kernel_reach(k)))
        .collect();
    let debug_objects = debug_objects(objects, res);
    adopt_partial_areas(&mut refs.uses, &blobs);
    if !refs.instance_users.is_empty() {
        resolve_instances(objects, &mut refs);
    }
    if refs.uses.is_empty() && refs.extern_users.is_empty() && dead.is_empty() {
        return none(definitions, names_shared);
    }
    let m = Measure::new(objects, &blobs);
    let live_extern_align = if refs.extern_users.is_empty() {
        0
    } else {
        refs.extern_align
    };
    let mut out = SharedLayout {
        extern_align: live_extern_align.max(dead.extern_align),
        reserve,
        definitions,
        names_shared,
        ..static_layout(&reach, &refs.uses, &dead.objects, &debug_objects, &m)
    };
    // (`refs.extern_align` is at least 1: this is it, or 1 when no array is in use.)
    out.pool_align = pool_align(
        &debug_objects,
        &out.offset,
        &out.home,
        out.extern_align.max(1),
        &m,
    );
    layout_kernels(&mut out, &reach, &refs, &m, debug, arch_sm);
    out
}

/// A final link resolves the per-kernel `externsharedinstance` symbols of partial links
/// (undefined, all of one name) to one, the first the inputs hold, and takes its value (an
/// offset in the partial link) as the alignment of the arrays every kernel that names it
/// uses, as it takes an array's value; 0x110 as it is (black-box, sm_75–sm_120: testdata
/// extern_shared, extern_shared_r, extern_shared_align, extern_shared_r_pad, debug_constant;
/// fuzz-equiv seed 167). So a kernel whose partial link gave it 0x40 gets its arrays 16-aligned
/// after its area and objects when the first instance was 0x10, and 256-aligned when it was
/// 0x100. The alignment a pool takes from the arrays in use is the larger of the arrays' own
/// and that one (64 beside a first instance of 0x10: testdata partial_debug_shared_pair,
/// partial_first_instance; 0xc0 beside 64-aligned arrays: extern_shared_debug_r).
/// (Only kernels name the instances, and nothing else: a partial link retargets their
/// references to the arrays, not its functions'.)
fn resolve_instances(objects: &[InputObject<'_>], refs: &mut CodeRefs) {
    let first = objects
        .iter()
        .flat_map(|o| o.symbols().iter())
        .find(|x| {
            x.name == crate::elf::names::EXTERN_SHARED_INSTANCE
                && x.section == SymSection::Undefined
                && x.other & STO_CUDA_SHARED != 0
        })
        .map_or(16, |x| x.value.max(1));
    for n in &refs.instance_users {
        refs.extern_align_of.insert(*n, first);
        refs.first_align_of.insert(*n, first);
    }
    refs.extern_align = refs.extern_align.max(first);
}

/// What only code the link drops uses of shared memory (functions no kernel reaches, in a
/// link that removes them; not kernels -kernels-used or the host code leaves out, which
/// were not probed). Not a losing weak copy's: nvlink drops those before it lays memory
/// out.
#[derive(Debug, Default)]
struct DeadCode {
    /// Static objects no live code uses: they take part in nvlink's pool (sorted with the
    /// others, at 0, the pool objects after the first above them: see `place`), though no
    /// kernel has them.
    objects: Vec<ObjKey>,
    /// The largest alignment of the extern arrays dead code uses (0: none). nvlink counts
    /// them in use: they bring `.nv_debug.shared` and align a pool (black-box, sm_75-sm_100,
    /// default links: testdata dead_extern_shared).
    extern_align: u64,
}

impl DeadCode {
    fn is_empty(&self) -> bool {
        self.objects.is_empty() && self.extern_align == 0
    }
}

fn dead_code(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    defs: &Definitions,
    lv: &Liveness,
    live_uses: &HashMap<Node, Vec<ObjKey>>,
) -> DeadCode {
    // (The relocation sections of dead functions' code, as code_refs reads the live ones.)
    let dead_code: crate::ids::IdVec<ObjectId, Vec<bool>> = crate::object::par_map(objects, |oi| {
        let o = &objects[oi];
        let mut mask = vec![false; o.cubin.sections.len()];
        for (si, s) in o.sections_of(SectionKind::Reloc) {
            let t = s.info as usize;
            let dead_function = o
                .cubin
                .sections
                .get(t)
                .filter(|x| o.kind(x) == SectionKind::Text && !lv.live[oi][t])
                .and_then(|x| o.text_function(x))
                .is_some_and(|f| {
                    res.is_winner(oi, f) && !InputObject::is_entry(&o.symbols()[f as usize])
                });
            mask[si] = dead_function;
        }
        mask
    })
    .into();
    if dead_code.iter().all(|m| !m.contains(&true)) {
        return DeadCode::default();
    }
    let live: HashSet<ObjKey> = live_uses.values().flatten().copied().collect();
    let refs = code_refs(objects, res, defs, &dead_code);
    let extern_align = if refs.extern_users.is_empty() {
        0
    } else {
        refs.extern_align
    };
    let mut dead: Vec<ObjKey> = (refs.uses.into_values().flatten())
        .filter(|k| !live.contains(k))
        .collect();
    dead.sort_unstable();
    dead.dedup();
    DeadCode {
        objects: dead,
        extern_align,
    }
}

/// The functions' shared objects of the inputs (those in `.nv_debug.shared`, as the copy
/// that won), used or not, kept or dropped, by input file and symbol table order: the list
/// nvlink sorts before laying shared memory out (`placement_order`).
fn debug_objects(objects: &[InputObject<'_>], res: &Resolution<'_>) -> Vec<ObjKey> {
    let mut out = Vec::new();
    for (oi, o) in crate::object::enumerated(objects) {
        for (i, x) in o.symbols().iter().enumerate() {
            let k = (oi, i as u32);
            if x.st_type != STT_SECTION
                && x.size > 0
                && res.is_winner(oi, i as u32)
                && in_debug_shared(objects, k)
            {
                out.push(k);
            }
        }
    }
    out
}

/// The static objects' offsets, and what goes with them: which kernel each is private to,
/// the functions using them that no kernel reaches, and what `.nv_debug.shared` holds.
/// `dead`: objects only dropped code uses, placed with the pool but no kernel's.
fn static_layout(
    reach: &[Reach],
    uses: &HashMap<Node, Vec<ObjKey>>,
    dead: &[ObjKey],
    debug_objects: &[ObjKey],
    m: &Measure<'_, '_>,
) -> SharedLayout {
    let (mut kernels_of, mut objs, unreached_users) = object_kernels(reach, uses);
    for &k in dead {
        kernels_of.entry(k).or_default();
        objs.push(k);
    }
    let order = placement_order(
        objs,
        debug_objects,
        &kernels_of,
        reach.len(),
        |k| m.size(k),
        |k| m.align(k),
    );
    let home = homes(&kernels_of, reach);
    let dead: HashSet<ObjKey> = dead.iter().copied().collect();
    let in_debug: HashSet<ObjKey> = debug_objects.iter().copied().collect();
    let kept = || order.iter().filter(|k| !dead.contains(*k));
    SharedLayout {
        offset: place(&order, &kernels_of, |k| m.size(k), |k| m.align(k)),
        debug_pool: kept().any(|k| in_debug.contains(k) && !home.contains_key(k)),
        debug_align: kept()
            .filter(|k| in_debug.contains(*k))
            .map(|&k| m.align(k))
            .max()
            .unwrap_or(1),
        home,
        unreached_users,
        ..Default::default()
    }
}

/// Each kernel's `.nv.shared.<kernel>` and where the extern arrays start, the static
/// objects placed in `out` (and its pool alignment known).
fn layout_kernels(
    out: &mut SharedLayout,
    reach: &[Reach],
    refs: &CodeRefs,
    m: &Measure<'_, '_>,
    debug: bool,
    arch_sm: u32,
) {
    let mut needs: Vec<KernelNeeds> = reach
        .iter()
        .map(|(_, nodes)| kernel_needs(nodes, refs, out, m))
        .collect();
    // -g: a kernel's arrays start where its static objects end, aligned as the kernel is
    // (for a pool's alignment too: black-box, sm_75–sm_120, testdata extern_shared_debug_r:
    // k_static16's 16-aligned arrays at 0x40 beside a 64-aligned pool, 0x20 in a default
    // link).
    if debug {
        for need in needs.iter_mut().filter(|n| n.has_static && n.uses_extern) {
            need.start_align = need.start_align.max(need.align);
        }
    }
    let group = extern_groups(reach, &refs.extern_users);
    let group_offset = group_offsets(&needs, &group);
    let mut dropped_kernels = size_kernels(
        out,
        reach,
        &needs,
        &group,
        &group_offset,
        &refs.extern_users,
        arch_sm,
    );
    out.extern_symbol_offset =
        extern_symbol_offsets(&refs.extern_users_of, &out.extern_offset, debug);
    out.unreached_extern_users = (refs.extern_users.iter())
        .filter(|n| !out.extern_offset.contains_key(*n))
        .copied()
        .collect();
    if debug {
        extend_to_furthest_arrays(out, reach, &refs.extern_users_of);
    }
    if out.extern_align > 0 && out.pool_align > 0 {
        pool_kernels(out, reach, &needs, arch_sm, &mut dropped_kernels);
    }
    for k in dropped_kernels {
        if out.kernel.get(&k).is_some_and(|e| e.0 <= out.reserve) {
            out.kernel.remove(&k);
        }
    }
}

/// A partial link's kernel area with no object in it (nvlink's `-r` pads a kernel that
/// uses only extern arrays so: twice their alignment; one that uses none beside kernels that
/// do gets 16 bytes no symbol names) stays whole in nvlink's final link, as the kernel's
/// first object, the arrays and the kernel's static objects after it, whether or not the
/// other kernels have areas and whatever the partial link's `.nv_debug.shared` holds
/// (black-box, sm_75–sm_120; testdata partial_extern_only, partial_unnamed_area,
/// partial_extern_pair, debug_shared_first_input, debug_symbol_order, extern_shared_align,
/// partial_area_beside_static_kernel; fuzz-equiv seeds 45, 57, 167): taken as one object,
/// named by its section symbol or its kernel's. Where the arrays go then is
/// [`resolve_instances`]'s part.
fn adopt_partial_areas(uses: &mut HashMap<Node, Vec<ObjKey>>, blobs: &Areas) {
    for (&node, &(key, _, _)) in blobs.iter() {
        uses.entry(node).or_default().insert(0, key);
    }
}

/// Every object of a kernel's function-scope shared memory (its `.nv.shared.<kernel>` in
/// each input) is laid out, whether kept code uses it or not: a weak kernel's losing copies'
/// objects go into the winner's section, sorted with its own as if they were the winner's,
/// and so do those a partial link's output holds for them (black-box, nvlink 13.5, sm_75,
/// sm_90 and sm_100, default and -preserve-relocs links of hand-written PTX, and nvlink's
/// final link of its own -r output: 64 bytes of the winner's and 0x98 of a loser's make
/// 0xd8, the winner's 4-aligned object after the loser's 16- and 8-aligned ones; testdata
/// weak_kernel_shared).
fn adopt_function_scope_objects(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    lv: &Liveness,
    uses: &mut HashMap<Node, Vec<ObjKey>>,
) {
    let kernels: HashSet<Node> = lv.kernels.iter().copied().collect();
    for (oi, o) in crate::object::enumerated(objects) {
        // Each function-scope section → its kept kernel; then one pass over the symbols.
        let mut sections: HashMap<u32, Node> = HashMap::new();
        for (si, s) in o.sections_of(SectionKind::Other) {
            if is_function_scope_shared(s) {
                if let Some(node) = res
                    .kept_text(objects, oi, s.info as usize)
                    .filter(|n| kernels.contains(n))
                {
                    sections.insert(si as u32, node);
                }
            }
        }
        if sections.is_empty() {
            continue;
        }
        for (i, x) in o.symbols().iter().enumerate() {
            let SymSection::Index(si) = x.section else {
                continue;
            };
            let Some(&node) = sections.get(&si) else {
                continue;
            };
            let key = (oi, i as u32);
            let list = uses.entry(node).or_default();
            if x.st_type != STT_SECTION && x.size > 0 && !list.contains(&key) {
                list.push(key);
            }
        }
    }
}

/// Per object: the kernels (indices in `reach`) that reach it. With it, every object laid
/// out, in the order the kernels reach them, and the functions with objects that no kernel
/// reaches, sorted.
///
/// Functions kept without a kernel reaching them (-preserve-relocs keeps them all) have
/// their objects laid out too, in no kernel's section (black-box, sm_75–sm_100: at offset
/// 0 of `.nv_debug.shared`; testdata shared_unreached).
fn object_kernels(
    reach: &[Reach],
    uses: &HashMap<Node, Vec<ObjKey>>,
) -> (HashMap<ObjKey, Vec<usize>>, Vec<ObjKey>, Vec<Node>) {
    let mut kernels_of: HashMap<ObjKey, Vec<usize>> = HashMap::new();
    let mut objs: Vec<ObjKey> = Vec::new();
    for (ki, (_, nodes)) in reach.iter().enumerate() {
        for n in nodes {
            for &o in list(uses, n) {
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
    let mut unreached: Vec<&Node> = uses
        .keys()
        .filter(|n| !reach.iter().any(|(_, nodes)| nodes.contains(n)))
        .collect();
    unreached.sort_unstable();
    let unreached_users: Vec<Node> = unreached.iter().map(|n| **n).collect();
    for n in unreached {
        for &o in list(uses, n) {
            kernels_of.entry(o).or_default();
            if !objs.contains(&o) {
                objs.push(o);
            }
        }
    }
    (kernels_of, objs, unreached_users)
}

/// Sizes and alignments of the objects laid out: a partial link's kernel area (see
/// `adopt_partial_areas`) measures as its section, any other object as its symbol.
struct Measure<'a, 'data> {
    objects: &'a [InputObject<'data>],
    areas: HashMap<ObjKey, (u64, u64)>,
}

impl<'a, 'data> Measure<'a, 'data> {
    fn new(objects: &'a [InputObject<'data>], blobs: &HashMap<Node, (ObjKey, u64, u64)>) -> Self {
        let areas = blobs
            .values()
            .map(|&(k, size, align)| (k, (size, align)))
            .collect();
        Measure { objects, areas }
    }

    fn size(&self, k: ObjKey) -> u64 {
        self.areas
            .get(&k)
            .map_or_else(|| self.objects[k.0].symbols()[k.1 as usize].size, |b| b.0)
    }

    fn align(&self, k: ObjKey) -> u64 {
        self.areas.get(&k).map_or_else(
            || alignment(self.objects[k.0].symbols()[k.1 as usize].value),
            |b| b.1,
        )
    }
}

/// nvlink's order (black-box, nvlink 13.5, sm_75, sm_90 and sm_100; thousands of generated
/// links, docs/research/shared-order.md): every function's object of the inputs
/// (`debug_objects`: in `.nv_debug.shared`, used or not, in input order) is sorted once,
/// largest first (`list_merge_sort`, ties to the second half). The pool (objects several
/// kernels reach, or none) comes first, in that order. Then each kernel's own objects (those
/// only it reaches): the kernel's function-scope objects (its `.nv.shared.<kernel>` in each
/// input, in input order), then its own functions' objects in the sorted list's order, the
/// two sorted together by alignment (largest first), then size (smallest first), ties to
/// the first half. `objs` are the objects laid out, in the order the kernels reach them
/// (as `object_kernels` gives them).
fn placement_order(
    objs: Vec<ObjKey>,
    debug_objects: &[ObjKey],
    kernels_of: &HashMap<ObjKey, Vec<usize>>,
    kernels: usize,
    size: impl Fn(ObjKey) -> u64,
    align: impl Fn(ObjKey) -> u64,
) -> Vec<ObjKey> {
    let sorted = list_merge_sort(debug_objects.to_vec(), &|a, b| size(a) > size(b), false);
    let in_sorted: HashSet<ObjKey> = debug_objects.iter().copied().collect();
    let laid_out: HashSet<ObjKey> = objs.iter().copied().collect();
    let pool = |k: &ObjKey| kernels_of.get(k).is_some_and(|ks| ks.len() != 1);
    let mut order: Vec<ObjKey> = sorted
        .iter()
        .copied()
        .filter(|k| laid_out.contains(k) && pool(k))
        .collect();
    // (Not a function's object: a partial link's kernel area, `adopt_partial_areas`.)
    order.extend(objs.iter().filter(|k| pool(k) && !in_sorted.contains(*k)));
    let mut own: Vec<Vec<ObjKey>> = vec![Vec::new(); kernels];
    let mut functions_own: Vec<Vec<ObjKey>> = vec![Vec::new(); kernels];
    for &k in objs.iter().filter(|k| !pool(k) && !in_sorted.contains(*k)) {
        own[kernels_of[&k][0]].push(k);
    }
    for &k in sorted.iter().filter(|k| laid_out.contains(*k) && !pool(k)) {
        functions_own[kernels_of[&k][0]].push(k);
    }
    let key = |k: ObjKey| (std::cmp::Reverse(align(k)), size(k));
    for (mut mine, functions) in own.into_iter().zip(functions_own) {
        mine.sort_unstable();
        mine.extend(functions);
        order.extend(list_merge_sort(mine, &|a, b| key(a) < key(b), true));
    }
    order
}

/// nvlink's sort of a linked list, which is not stable (black-box: every order of 2 to 16
/// objects of one size, and of random sizes; testdata pool_tie_order): the list is split
/// into its even and odd places, each half built backwards, each sorted; the merge takes
/// from the first half while its head goes `before` the second's, or, `tie_first`, while
/// the second's does not go before it.
fn list_merge_sort(
    list: Vec<ObjKey>,
    before: &impl Fn(ObjKey, ObjKey) -> bool,
    tie_first: bool,
) -> Vec<ObjKey> {
    if list.len() <= 1 {
        return list;
    }
    let even: Vec<ObjKey> = list.iter().step_by(2).rev().copied().collect();
    let odd: Vec<ObjKey> = list.iter().skip(1).step_by(2).rev().copied().collect();
    let (x, y) = (
        list_merge_sort(even, before, tie_first),
        list_merge_sort(odd, before, tie_first),
    );
    let mut out = Vec::with_capacity(list.len());
    let (mut x, mut y) = (x.into_iter().peekable(), y.into_iter().peekable());
    while let (Some(&a), Some(&b)) = (x.peek(), y.peek()) {
        let take_first = if tie_first {
            !before(b, a)
        } else {
            before(a, b)
        };
        if take_first {
            out.push(a);
            x.next();
        } else {
            out.push(b);
            y.next();
        }
    }
    out.extend(x);
    out.extend(y);
    out
}

/// An object only one kernel reaches (directly or through callees) is that kernel's.
fn homes(kernels_of: &HashMap<ObjKey, Vec<usize>>, reach: &[Reach]) -> HashMap<ObjKey, Node> {
    let mut home = HashMap::new();
    for (o, ks) in kernels_of {
        if let [k] = ks[..] {
            home.insert(*o, reach[k].0);
        }
    }
    home
}

/// Every function's object of the inputs, reached or not: when one of those laid out is in
/// no kernel's section or in several (nvlink's pool; an object no code uses is not: a
/// probe's 104 links of kernels aligned for their own objects alone, testdata
/// unused_object_no_pool), every kernel with static objects is aligned for all of them and for the extern arrays in use (`extern_in_use`, 1 when none
/// is); and when that asks for more than 16 bytes, the link has no `.nv_debug.shared`
/// (black-box, sm_75–sm_100, default links; testdata shared_pool_align). 0 without a pool.
/// A weak object's losing copies (a template kernel's object, in every object that
/// instantiates it) are not objects of the link: nvlink neither counts them in the pool
/// nor aligns for them (testdata shared_weak_copies).
fn pool_align(
    all_debug: &[ObjKey],
    placed: &HashMap<ObjKey, u64>,
    home: &HashMap<ObjKey, Node>,
    extern_in_use: u64,
    m: &Measure<'_, '_>,
) -> u64 {
    if !all_debug
        .iter()
        .any(|k| placed.contains_key(k) && !home.contains_key(k))
    {
        return 0;
    }
    all_debug
        .iter()
        .map(|&k| m.align(k))
        .max()
        .unwrap_or(1)
        .max(extern_in_use)
}

/// Offsets. The pool first (objects several kernels reach, or none): one no kernel reaches
/// goes at 0; any other at the top of the kernels reaching it, where each kernel's top is
/// the end of everything placed so far when an object of its was last placed (so after the
/// first, a pool object goes above the unreached ones placed before it: black-box, nvlink
/// 13.5). Then each kernel's own objects, above every object placed before that shares a
/// kernel with it, aligned; objects no kernel uses together may overlap.
fn place(
    order: &[ObjKey],
    kernels_of: &HashMap<ObjKey, Vec<usize>>,
    size: impl Fn(ObjKey) -> u64,
    align: impl Fn(ObjKey) -> u64,
) -> HashMap<ObjKey, u64> {
    let mut offset: HashMap<ObjKey, u64> = HashMap::new();
    let (mut end, mut top) = (0u64, HashMap::<usize, u64>::new());
    for (i, &o) in order.iter().enumerate() {
        let ks = &kernels_of[&o];
        if ks.len() != 1 {
            let floor = ks.iter().map(|k| top.get(k).copied().unwrap_or(0)).max();
            let at = align_up(floor.unwrap_or(0), align(o));
            offset.insert(o, at);
            end = end.max(at.saturating_add(size(o)));
            for &k in ks {
                top.insert(k, end);
            }
            continue;
        }
        let floor = order[..i]
            .iter()
            .filter(|p| kernels_of[*p].iter().any(|k| ks.contains(k)))
            .map(|p| offset[p].saturating_add(size(*p)))
            .max()
            .unwrap_or(0);
        offset.insert(o, align_up(floor, align(o)));
    }
    offset
}

/// What one kernel's shared memory asks for, from the objects and arrays it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KernelNeeds {
    /// It reaches static objects.
    has_static: bool,
    /// The end of the furthest static object it reaches (0 without any).
    static_end: u64,
    /// Its section's alignment: its objects' (the pool's too, when it has objects) and its
    /// arrays'.
    align: u64,
    /// It reaches extern arrays.
    uses_extern: bool,
    /// The largest alignment of the arrays it reaches (1 without any).
    extern_align: u64,
    /// What its arrays' start is aligned to ([`kernel_extern_align`]; 1 without any).
    start_align: u64,
}

impl KernelNeeds {
    fn any(&self) -> bool {
        self.has_static || self.uses_extern
    }
}

/// The needs of the kernel reaching `nodes`, the static objects placed in `out`.
fn kernel_needs(
    nodes: &[Node],
    refs: &CodeRefs,
    out: &SharedLayout,
    m: &Measure<'_, '_>,
) -> KernelNeeds {
    let mut k = KernelNeeds {
        has_static: false,
        static_end: 0,
        align: 1,
        uses_extern: false,
        extern_align: 1,
        start_align: 1,
    };
    for nd in nodes {
        for &o in list(&refs.uses, nd) {
            k.has_static = true;
            k.static_end = k.static_end.max(out.offset[&o].saturating_add(m.size(o)));
            k.align = k.align.max(m.align(o)).max(out.pool_align);
        }
        if refs.extern_users.contains(nd) {
            k.uses_extern = true;
            let a = refs.extern_align_of.get(nd).copied().unwrap_or(1);
            k.extern_align = k.extern_align.max(a);
            k.align = k.align.max(a);
        }
    }
    if k.uses_extern {
        k.start_align = kernel_extern_align(nodes, refs);
    }
    k
}

/// The alignment a kernel's extern arrays start at (its section is aligned for the largest
/// still): not the largest of those it reaches but that of the array named by the first
/// relocation to one in the kernel's own code, or else in the first function it reaches
/// that has one (relocation sections and entries in file order; black-box, sm_75: a kernel,
/// or a function it calls, naming arrays aligned 16 and 64 in either order and section,
/// 20 probes; ptxas often names one array for several that alias).
fn kernel_extern_align(nodes: &[Node], refs: &CodeRefs) -> u64 {
    nodes
        .iter()
        .find_map(|n| refs.first_align_of.get(n).copied())
        .unwrap_or(1)
}

/// Kernels connected through a function that uses extern shared memory share its offset:
/// per kernel (index in `reach`), its group's id.
fn extern_groups(reach: &[Reach], extern_users: &HashSet<Node>) -> Vec<usize> {
    let mut group: Vec<usize> = (0..reach.len()).collect();
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
    (0..reach.len()).map(|ki| find(&mut group, ki)).collect()
}

/// Per group of kernels: where their extern arrays start, above the static objects of every
/// kernel of the group using them, aligned for that kernel's arrays.
fn group_offsets(needs: &[KernelNeeds], group: &[usize]) -> HashMap<usize, u64> {
    let mut offset: HashMap<usize, u64> = HashMap::new();
    for (need, &g) in needs.iter().zip(group) {
        if need.uses_extern {
            let v = align_up(need.static_end, need.start_align);
            let e = offset.entry(g).or_insert(0);
            *e = (*e).max(v);
        }
    }
    offset
}

/// Each kernel's `.nv.shared.<kernel>` (size, the reserved bytes included, and alignment)
/// and where its extern arrays start, in `out`; gives the kernels that lose the section
/// should it hold no more than the reserved bytes.
fn size_kernels(
    out: &mut SharedLayout,
    reach: &[Reach],
    needs: &[KernelNeeds],
    group: &[usize],
    group_offset: &HashMap<usize, u64>,
    extern_users: &HashSet<Node>,
    arch_sm: u32,
) -> Vec<Node> {
    let mut dropped_kernels: Vec<Node> = Vec::new();
    for (((k, nodes), need), g) in reach.iter().zip(needs).zip(group) {
        if !need.any() {
            continue;
        }
        // A kernel with no static objects whose arrays ask for more than 16-byte alignment
        // gets no `.nv.shared.<kernel>` of its own (unless `-g` gives it bytes), except on
        // sm_90 (black-box, sm_75–sm_120, default, -preserve-relocs and -g links; testdata
        // extern_shared_align).
        if !need.has_static && need.extern_align > 16 && arch_sm != 90 {
            dropped_kernels.push(*k);
        }
        let base = if need.uses_extern {
            group_offset[g]
        } else {
            need.static_end
        };
        // (A kernel with static objects that uses extern arrays too is sized up to its own
        // alignment, the pool's included; the arrays stay where they are.)
        let size = if need.uses_extern && need.static_end > 0 {
            align_up(base, need.align)
        } else {
            base
        };
        out.kernel
            .insert(*k, (size.saturating_add(out.reserve), need.align));
        if need.uses_extern {
            for nd in nodes.iter().filter(|nd| extern_users.contains(*nd)) {
                out.extern_offset.insert(*nd, base);
            }
        }
    }
    dropped_kernels
}

/// Per extern array: the largest offset its users see it at. `-g` also places an array only
/// functions no kernel reaches use, at 0 (black-box, sm_75-sm_120: its symbol at 0, or at the
/// reserve where the symbols count it, and the functions' references relocated to it;
/// testdata uncalled_extern_shared linked -g).
fn extern_symbol_offsets(
    extern_users_of: &HashMap<GlobalId, Vec<Node>>,
    extern_offset: &HashMap<Node, u64>,
    debug: bool,
) -> HashMap<GlobalId, u64> {
    let mut out = HashMap::new();
    for (g, users) in extern_users_of {
        let at = users.iter().filter_map(|n| extern_offset.get(n)).max();
        match at {
            Some(&at) => out.insert(*g, at),
            None if debug => out.insert(*g, 0),
            None => None,
        };
    }
    out
}

/// `-g`: a kernel's area ends no lower than where the furthest of its arrays starts.
fn extend_to_furthest_arrays(
    out: &mut SharedLayout,
    reach: &[Reach],
    extern_users_of: &HashMap<GlobalId, Vec<Node>>,
) {
    for (k, nodes) in reach {
        let furthest = extern_users_of
            .iter()
            .filter(|(_, users)| users.iter().any(|u| nodes.contains(u)))
            .filter_map(|(g, _)| out.extern_symbol_offset.get(g))
            .max();
        if let (Some(&at), Some(entry)) = (furthest, out.kernel.get_mut(k)) {
            entry.0 = entry.0.max(at.saturating_add(out.reserve));
        }
    }
}

/// With extern arrays in use and a pool, every kernel, shared memory or not, gets a
/// `.nv.shared.<kernel>` (the reserved bytes at least) aligned for the pool; those without
/// static objects then go when that alignment is above 16, as in `size_kernels` (black-box,
/// default links, sm_75, sm_90, sm_100; testdata shared_pool_align, shared_pool_launch...
/// see shared_pool_all).
fn pool_kernels(
    out: &mut SharedLayout,
    reach: &[Reach],
    needs: &[KernelNeeds],
    arch_sm: u32,
    dropped_kernels: &mut Vec<Node>,
) {
    for ((k, _), need) in reach.iter().zip(needs) {
        let e = out.kernel.entry(*k).or_insert((out.reserve, 1));
        e.1 = e.1.max(out.pool_align);
        if !need.has_static && out.pool_align > 16 && arch_sm != 90 && !dropped_kernels.contains(k)
        {
            dropped_kernels.push(*k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const O: ObjectId = ObjectId::new(0);

    /// Objects (0, sym) with the kernels reaching each.
    fn kernels_of(of: &[(u32, &[usize])]) -> HashMap<ObjKey, Vec<usize>> {
        of.iter().map(|&(s, ks)| ((O, s), ks.to_vec())).collect()
    }

    /// The places nvlink's largest-first sort gives `n` objects of one size.
    fn one_size_order(n: u32) -> Vec<u32> {
        let list = (0..n).map(|s| (O, s)).collect();
        list_merge_sort(list, &|_, _| false, false)
            .iter()
            .map(|k| k.1)
            .collect()
    }

    #[test]
    fn objects_of_one_size_come_in_the_order_nvlinks_sort_leaves_them() {
        // (nvlink 13.5's final links, sm_75: the offsets its code gives N pool objects.)
        assert_eq!(one_size_order(2), [1, 0]);
        assert_eq!(one_size_order(3), [1, 0, 2]);
        assert_eq!(one_size_order(4), [1, 3, 0, 2]);
        assert_eq!(one_size_order(5), [1, 3, 2, 4, 0]);
        assert_eq!(one_size_order(8), [5, 1, 7, 3, 4, 0, 6, 2]);
        assert_eq!(
            one_size_order(16),
            [5, 13, 1, 9, 7, 15, 3, 11, 4, 12, 0, 8, 6, 14, 2, 10]
        );
    }

    #[test]
    fn a_larger_object_comes_first_wherever_it_was() {
        let size = |k: ObjKey| [4, 8, 4, 32, 8][k.1 as usize];
        let list = (0..5).map(|s| (O, s)).collect();
        let sizes: Vec<u64> = list_merge_sort(list, &|a, b| size(a) > size(b), false)
            .iter()
            .map(|&k| size(k))
            .collect();
        assert_eq!(sizes, [32, 8, 8, 4, 4]);
    }

    #[test]
    fn a_kernels_own_objects_of_one_kind_tie_to_the_first_half() {
        // (nvlink 13.5, sm_90: a kernel's locals a, b, c in its symbol table's order, all
        // float[64], are laid out c, a, b.)
        let list = (0..3).map(|s| (O, s)).collect();
        let order: Vec<u32> = list_merge_sort(list, &|_, _| false, true)
            .iter()
            .map(|k| k.1)
            .collect();
        assert_eq!(order, [2, 0, 1]);
    }

    #[test]
    fn a_kernels_function_scope_objects_come_before_its_functions_objects_in_its_sort() {
        // (nvlink 13.5, sm_75–sm_100: a kernel's locals a, b, c (1, 2, 3) and its callee's q
        // (4), all float[32]: c, a, q, b.)
        let ko = kernels_of(&[(1, &[0]), (2, &[0]), (3, &[0]), (4, &[0])]);
        let objs = [4, 3, 2, 1].map(|s| (O, s)).to_vec();
        let order = placement_order(objs, &[(O, 4)], &ko, 1, |_| 128, |_| 4);
        assert_eq!(order, [3, 1, 4, 2].map(|s| (O, s)));
    }

    #[test]
    fn the_pool_takes_its_order_from_every_functions_object_sorted_once() {
        // 1, 2, 3: functions' objects of one size; 2 is kernel 0's own, 1 and 3 the pool's.
        // Sorted together the three go 2, 1, 3 (`one_size_order(3)` is [1, 0, 2]); the
        // pool keeps that order: 1, 3 (sorted alone they would go 3, 1).
        let ko = kernels_of(&[(1, &[0, 1]), (2, &[0]), (3, &[0, 1])]);
        let debug = [1, 2, 3].map(|s| (O, s));
        let objs = [1, 2, 3].map(|s| (O, s)).to_vec();
        let order = placement_order(objs, &debug, &ko, 2, |_| 16, |_| 4);
        assert_eq!(order, [1, 3, 2].map(|s| (O, s)));
    }

    #[test]
    fn own_objects_go_by_alignment_then_size() {
        // Kernel 0's locals: 1 (align 4, 16 bytes), 2 (align 8, 8), 3 (align 4, 4).
        let ko = kernels_of(&[(1, &[0]), (2, &[0]), (3, &[0])]);
        let size = |k: ObjKey| [0, 16, 8, 4][k.1 as usize];
        let align = |k: ObjKey| [0, 4, 8, 4][k.1 as usize];
        let objs = [1, 2, 3].map(|s| (O, s)).to_vec();
        let order = placement_order(objs, &[], &ko, 1, size, align);
        assert_eq!(order, [2, 3, 1].map(|s| (O, s)));
    }

    #[test]
    fn objects_go_above_those_sharing_a_kernel_aligned_and_others_overlap() {
        // 1: kernels 0 and 1; 2: kernel 0's; 3: kernel 1's; 4: no kernel's.
        let ko = kernels_of(&[(1, &[0, 1]), (2, &[0]), (3, &[1]), (4, &[])]);
        let size = |k: ObjKey| [0, 6, 4, 4, 8][k.1 as usize];
        let align = |k: ObjKey| [0, 2, 4, 2, 8][k.1 as usize];
        let order = [1, 2, 3, 4].map(|s| (O, s));
        let at = place(&order, &ko, size, align);
        assert_eq!(at[&(O, 1)], 0);
        assert_eq!(at[&(O, 2)], 8); // above 1 (0..6), aligned 4
        assert_eq!(at[&(O, 3)], 6); // above 1 only: overlaps 2 (8..12), of another kernel
        assert_eq!(at[&(O, 4)], 0); // shares no kernel with anything
    }

    #[test]
    fn after_the_first_a_pool_object_goes_above_the_unreached_ones_placed_before_it() {
        // (nvlink 13.5: D, which only code no kernel reaches uses, 20 bytes; P and Q, 16
        // bytes each, both kernels': P@0, Q@0x14.) 1: D; 2, 3: P, Q; 4: kernel 0's own.
        let ko = kernels_of(&[(1, &[]), (2, &[0, 1]), (3, &[0, 1]), (4, &[0])]);
        let size = |k: ObjKey| [0, 20, 16, 16, 4][k.1 as usize];
        let align = |k: ObjKey| [0, 4, 4, 4, 4][k.1 as usize];
        let at = place(&[1, 2, 3, 4].map(|s| (O, s)), &ko, size, align);
        assert_eq!([1, 2, 3, 4].map(|s| at[&(O, s)]), [0, 0, 0x14, 0x24]);
    }

    #[test]
    fn kernels_reaching_one_extern_array_user_share_a_group() {
        // Kernels 0 and 2 both reach function f, which uses extern arrays; kernel 1 uses
        // them in its own code only; kernel 3 not at all.
        let f: Node = (O, 9);
        let k: [Node; 4] = [(O, 1), (O, 2), (O, 3), (O, 4)];
        let reach: Vec<Reach> = vec![
            (k[0], vec![k[0], f]),
            (k[1], vec![k[1]]),
            (k[2], vec![k[2], f]),
            (k[3], vec![k[3]]),
        ];
        let users: HashSet<Node> = [f, k[1]].into_iter().collect();
        let g = extern_groups(&reach, &users);
        assert_eq!(g[0], g[2]);
        assert_ne!(g[0], g[1]);
        assert_ne!(g[0], g[3]);
        assert_ne!(g[1], g[3]);
    }

    #[test]
    fn a_groups_arrays_start_above_every_users_static_objects_aligned_for_its_arrays() {
        let need = |static_end, uses_extern, extern_align| KernelNeeds {
            has_static: static_end > 0,
            static_end,
            align: 1,
            uses_extern,
            extern_align,
            start_align: extern_align,
        };
        let needs = [
            need(20, true, 8),   // group 0: 24
            need(30, true, 4),   // group 0: 32
            need(100, false, 1), // group 0, no arrays: not counted
            need(0, true, 16),   // group 3: 0
            need(5, true, 16),   // group 4: 16
        ];
        let offsets = group_offsets(&needs, &[0, 0, 0, 3, 4]);
        let want: HashMap<usize, u64> = [(0, 32), (3, 0), (4, 16)].into_iter().collect();
        assert_eq!(offsets, want);
    }
}
