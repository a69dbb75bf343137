//! Symbol resolution: one table of global names over all objects. A strong definition beats
//! weak ones; among weak definitions of a function the copy with the fewest registers wins,
//! the first input's among equals (of data, the first's); two strong definitions and
//! references nothing defines are errors (reported all at once, in input order).

use crate::diag::Error;
use crate::elf::read::SymSection;
use crate::elf::{Symbol, STB_WEAK, STT_CUDA_SURFACE, STT_CUDA_TEXTURE};
pub use crate::ids::GlobalId;
use crate::ids::IdVec;
use crate::object::{InputObject, ObjectId};
use hashbrown::HashMap;

/// Placeholder symbols every sm_90+ object declares for the unified function/data tables;
/// they never reach an executable's symbol table.
pub const UNIFIED_PLACEHOLDERS: &[&[u8]] = &[
    b"__UFT_OFFSET",
    b"__UDT_OFFSET",
    b"__UFT_CANONICAL",
    b"__UDT_CANONICAL",
    b"__UFT",
    b"__UDT",
    b"__UFT_END",
    b"__UDT_END",
];

/// Names the CUDA driver provides at load time: references to them stay undefined in the
/// output instead of being errors. The set nvlink 13.5 leaves undefined, found by linking a
/// call to every `__cudart_builtin__` function of the toolkit's headers (and a few more
/// names) with nothing defining it, on sm_75, sm_90 and sm_100: exact names, but for the
/// `__cuda_syscall` prefix.
pub const DRIVER_FUNCTIONS: &[&[u8]] = &[
    b"vprintf",
    b"malloc",
    b"free",
    b"__assertfail",
    b"cudaFabricOpErrorStatusCount",
    b"cudaFabricOpErrorStatusGet",
    b"cudaGraphKernelNodeSetEnabled",
    b"cudaGraphKernelNodeSetGridDim",
    b"cudaGraphKernelNodeSetParam",
    b"cudaGraphKernelNodeUpdatesApply",
    b"cudaGraphLaunch",
    b"cudaGraphSetConditional",
    // The device runtime's own entry points into the driver: libcudadevrt's functions call
    // them, and -preserve-relocs (which keeps those functions) leaves them undefined. Found
    // in nvlink's -preserve-relocs output of a dynamic-parallelism link; another cnp name
    // is an undefined reference.
    b"cnpCtxSynchronize",
    b"cnpDeviceGetAttribute",
    b"cnpEventCreate",
    b"cnpEventDestroy",
    b"cnpEventRecord",
    b"cnpFuncGetAttribute",
    b"cnpGetCacheConfig",
    b"cnpGetDevice",
    b"cnpGetDeviceCount",
    b"cnpGetLastError",
    b"cnpGetLimit",
    b"cnpGetParameterBuffer",
    b"cnpGetParameterBufferV2",
    b"cnpGetSharedMemConfig",
    b"cnpLaunchDevice",
    b"cnpLaunchDeviceV2",
    b"cnpSetLastError",
    b"cnpStreamCreate",
    b"cnpStreamDestroy",
    b"cnpStreamWaitEvent",
];

pub fn provided_by_driver(name: &[u8]) -> bool {
    DRIVER_FUNCTIONS.contains(&name)
        || name.starts_with(b"__cuda_syscall")
        || name.starts_with(b".nv.reservedSmem.")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Def {
    pub obj: ObjectId,
    pub sym: u32,
    pub weak: bool,
}

#[derive(Debug, Clone)]
pub struct Global<'data> {
    pub name: &'data [u8],
    pub def: Option<Def>,
    /// The first object that mentions the name (for 'Undefined reference … in X').
    pub first_ref: ObjectId,
    /// Texture/surface references and `extern __shared__` arrays are undefined by design.
    pub is_resource: bool,
    /// Some object refers to the name as data (not a function): undefined, it is an error
    /// even when only dead code refers to it.
    pub data_ref: bool,
    /// For a function: whether its first mention is a kernel (`__global__`); every other
    /// mention must agree.
    pub entry: Option<bool>,
    /// For data: the size the first mention with one gave (0: none yet); every other sized
    /// mention, definition or declaration, must agree.
    pub size: u64,
    /// The first object to define the name, weakly or not (whichever definition won).
    pub first_def: Option<ObjectId>,
    /// For data: the memory space and managed bits of the first mention's `st_other`;
    /// every other mention must agree.
    pub space: Option<u8>,
}

pub struct Resolution<'data> {
    pub globals: IdVec<GlobalId, Global<'data>>,
    pub by_name: HashMap<&'data [u8], GlobalId>,
    /// For each object, for each symbol index: the global it names (None for locals).
    pub sym_global: IdVec<ObjectId, Vec<Option<GlobalId>>>,
    /// Definitions (object, symbol) that won when their object was resolved and lost to a
    /// later one (a strong definition, or a weak function with fewer registers). Their code
    /// fixes where the winner's goes, and their references mean the winner; a copy that lost
    /// when it came is discarded with its references.
    pub displaced: hashbrown::HashSet<(ObjectId, u32)>,
}

impl<'data> Global<'data> {
    /// A name no mention has said anything of yet but that `first_ref` mentions it.
    fn new(name: &'data [u8], first_ref: ObjectId) -> Self {
        Global {
            name,
            def: None,
            first_ref,
            is_resource: false,
            data_ref: false,
            entry: None,
            size: 0,
            first_def: None,
            space: None,
        }
    }

    /// Nothing defines it, and something should: not a driver-provided name, nor a
    /// resource (extern `__shared__` arrays, textures, surfaces: undefined by design), nor
    /// a unified-table placeholder (globals only under -r, where they stay undefined: no
    /// library defines them, so they pull none in; black-box, nvlink -r of a kernel alone
    /// with -lcudadevrt, sm_90-sm_120: fuzz-equiv seed 208; testdata devrt_not_needed_r).
    fn left_undefined(&self) -> bool {
        self.def.is_none()
            && !self.is_resource
            && !provided_by_driver(self.name)
            && !UNIFIED_PLACEHOLDERS.contains(&self.name)
    }
}

impl<'data> Resolution<'data> {
    /// The input symbol by which the first object to mention global `g` names it.
    pub fn first_reference<'o>(
        &self,
        objects: &'o [InputObject<'data>],
        g: GlobalId,
    ) -> Option<&'o Symbol<'data>> {
        let o = objects.get(self.globals.get(g)?.first_ref.index())?;
        let i = self.sym_global[o.id].iter().position(|x| *x == Some(g))?;
        o.symbols().get(i)
    }

    /// The global that symbol `sym` of object `obj` names (`None` for locals).
    pub fn global_of(&self, obj: ObjectId, sym: u32) -> Option<GlobalId> {
        self.sym_global[obj].get(sym as usize).copied().flatten()
    }

    /// Where symbol `sym` of object `obj` is defined, as (object, symbol): its global's
    /// winning definition, or the symbol itself for a local. `None` for a global nothing
    /// defines.
    pub fn definition(&self, obj: ObjectId, sym: u32) -> Option<(ObjectId, u32)> {
        match self.global_of(obj, sym) {
            Some(g) => self.globals[g].def.map(|d| (d.obj, d.sym)),
            None => Some((obj, sym)),
        }
    }

    /// The code section, as (object, section index), of the kept definition of the function
    /// whose own code is section `text` of object `obj`: the winner's for a weak copy that
    /// lost, the section itself for a local function or a definition that won. (What a
    /// losing copy's shared memory, parameter bank and slots go with.) `None` when `text`
    /// is no function's code section.
    pub fn kept_text(
        &self,
        objects: &[InputObject<'_>],
        obj: ObjectId,
        text: usize,
    ) -> Option<(ObjectId, usize)> {
        let o = &objects[obj];
        let f = o
            .cubin
            .sections
            .get(text)
            .and_then(|s| o.text_function(s))?;
        let (d_obj, d_sym) = self.definition(obj, f).unwrap_or((obj, f));
        match objects[d_obj].symbols().get(d_sym as usize)?.section {
            SymSection::Index(t) => Some((d_obj, t as usize)),
            _ => None,
        }
    }

    /// True when `(obj, sym)` is the definition that won for its name.
    pub fn is_winner(&self, obj: ObjectId, sym: u32) -> bool {
        match self.global_of(obj, sym) {
            Some(g) => {
                matches!(self.globals[g].def, Some(d) if d.obj == obj && d.sym == sym)
            }
            None => true,
        }
    }
}

/// The errors resolution found, in nvlink's words, grouped by how nvlink reports them.
#[derive(Debug, Default)]
pub struct ResolveErrors {
    pub duplicates: Vec<Error>,
    /// Undefined data, always an error: (global id, message).
    pub undefined: Vec<(GlobalId, Error)>,
    /// Undefined functions, by global id: errors only when live code calls them (nvlink
    /// ignores what dead functions call, e.g. libcudadevrt's unused entry points).
    pub undefined_functions: Vec<(GlobalId, Error)>,
}

/// Resolution over all of `objects` at once (what the link's `Resolver`, fed in steps,
/// gives as well).
pub fn resolve<'data>(
    objects: &[InputObject<'data>],
    policy: &crate::policy::Policy,
) -> (Resolution<'data>, ResolveErrors) {
    let mut r = Resolver::new(policy);
    r.add(objects, 0);
    r.finish(objects, policy)
}

/// Resolution in input order, fed the user's objects first and a system library's after
/// them, only if what the user's leave undefined calls for one: resolving an object looks
/// only at those before it, so adding the library later gives what resolving all at once
/// would have.
pub struct Resolver<'data> {
    r: Resolution<'data>,
    errors: ResolveErrors,
    relocatable: bool,
}

impl<'data> Resolver<'data> {
    pub fn new(policy: &crate::policy::Policy) -> Self {
        Resolver {
            r: Resolution {
                globals: IdVec::new(),
                by_name: HashMap::new(),
                sym_global: IdVec::new(),
                displaced: hashbrown::HashSet::new(),
            },
            errors: ResolveErrors::default(),
            relocatable: policy.relocatable(),
        }
    }

    /// Resolves `objects[from..]`, whose ids are their places in `objects`, after those
    /// added before (`objects[..from]`, named in messages).
    pub fn add(&mut self, objects: &[InputObject<'data>], from: usize) {
        let r = &mut self.r;
        debug_assert_eq!(r.sym_global.len(), from);
        let new = &objects[from..];
        // (Each object's map made in parallel: fresh pages, faulted in on both cores.)
        let maps = crate::object::par_map(new, |oi| vec![None; new[oi].symbols().len()]);
        for m in maps {
            r.sym_global.push(m);
        }
        // Room for a global per symbol at most: made once, not by doubling, and faulted in
        // by the idle core just ahead of the pass.
        r.globals
            .reserve(new.iter().map(|o| o.symbols().len()).sum());
        let room = [crate::prefault::Room::after(&r.globals)];
        let (relocatable, errors) = (self.relocatable, &mut self.errors);
        crate::prefault::while_filling(&room, |progress| {
            resolve_in_order(objects, from, relocatable, r, errors, progress)
        });
    }

    /// Whether some global the objects added so far name is left undefined (what
    /// `undefined_references` reports, `Global::left_undefined`): only then can a system
    /// library have something to contribute. The unified tables' placeholders are not
    /// globals of a final link. (Every sm_90+ object names the
    /// placeholders, and dynamic shared memory is an extern array: counted, they had every
    /// real link, which `nvcc -dlink` makes with libcudadevrt, decompress and parse it.)
    pub fn leaves_undefined(&self) -> bool {
        self.r.globals.iter().any(Global::left_undefined)
    }

    /// The resolution of every object added (`objects`), with the errors found, the
    /// undefined references among them when the policy reports those.
    pub fn finish(
        self,
        objects: &[InputObject<'data>],
        policy: &crate::policy::Policy,
    ) -> (Resolution<'data>, ResolveErrors) {
        let Resolver { r, mut errors, .. } = self;
        debug_assert_eq!(r.sym_global.len(), objects.len());
        if policy.reports_undefined() {
            undefined_references(objects, &r.globals, &mut errors);
        }
        (r, errors)
    }
}

/// Each object's global symbols in input order: the global each names, and its definition.
fn resolve_in_order<'data>(
    objects: &[InputObject<'data>],
    from: usize,
    relocatable: bool,
    r: &mut Resolution<'data>,
    errors: &mut ResolveErrors,
    progress: &crate::prefault::Progress,
) {
    let mut regs = RegisterCounts::default();
    for o in &objects[from..] {
        let mut map = std::mem::take(&mut r.sym_global[o.id]);
        // (nvlink merges object by object and stops after the first one whose symbols
        // disagree with those before it: only that object's errors are reported.)
        let mut found: Vec<Error> = Vec::new();
        for (i, s) in o.symbols().iter().enumerate().skip(1) {
            if !resolvable(s, relocatable) {
                continue;
            }
            let gid = r.global_id(s.name, o.id);
            map[i] = Some(gid);
            let g = &mut r.globals[gid];
            found.extend(mention(g, s));
            for what in space_mismatches(g, s) {
                found.push(Error::new(format!(
                    "{what} doesn't match for '{}' in '{}', first specified in '{}'",
                    s.name_str(),
                    o.name,
                    objects[g.first_ref].name
                )));
            }
            if !same_size(g, s) {
                found.push(Error::new(format!(
                    "Size doesn't match for '{}' in '{}', first specified in '{}'",
                    s.name_str(),
                    o.name,
                    objects[g.first_ref].name
                )));
            }
            if s.section == SymSection::Undefined {
                g.data_ref |= s.st_type != crate::elf::STT_FUNC;
                continue;
            }
            g.first_def.get_or_insert(o.id);
            let def = Def {
                obj: o.id,
                sym: i as u32,
                weak: s.bind == STB_WEAK || is_partial_extern_array(o, s),
            };
            match pick(g.def, def, |new, old| regs.fewer(objects, new, old)) {
                Ok(d) => {
                    if let Some(old) = g.def.filter(|&old| old != d) {
                        r.displaced.insert((old.obj, old.sym));
                    }
                    g.def = Some(d);
                }
                // (nvlink names, for data, the first object to mention the name, defining it
                // or declaring it; for a function, the first to define it, weakly or not.)
                Err(first) => found.push(Error::new(format!(
                    "Multiple definition of '{}' in '{}', first defined in '{}'",
                    s.name_str(),
                    o.name,
                    objects[if s.st_type == crate::elf::STT_FUNC {
                        g.first_def.unwrap_or(first.obj)
                    } else {
                        g.first_ref
                    }]
                    .name
                ))),
            }
        }
        r.sym_global[o.id] = map;
        if errors.duplicates.is_empty() {
            errors.duplicates = found;
        }
        progress.filled(0, r.globals.len());
    }
}

impl<'data> Resolution<'data> {
    /// The global named `name`, made when `first_ref` is the first object to mention it.
    fn global_id(&mut self, name: &'data [u8], first_ref: ObjectId) -> GlobalId {
        let globals = &mut self.globals;
        *self
            .by_name
            .entry(name)
            .or_insert_with(|| globals.push(Global::new(name, first_ref)))
    }
}

/// Whether symbol `s` takes part in resolution: globals do, but for the unified-table
/// placeholders, which resolve to nothing in an executable (a relocatable link keeps them
/// as the undefined symbols they are), and a partial link's per-kernel extern-shared
/// instance symbols (all named alike), which stay with their kernels in another partial
/// link.
fn resolvable(s: &Symbol<'_>, relocatable: bool) -> bool {
    let instance = relocatable
        && s.name == crate::elf::names::EXTERN_SHARED_INSTANCE
        && s.section == SymSection::Undefined;
    InputObject::is_global(s)
        && (relocatable || !UNIFIED_PLACEHOLDERS.contains(&s.name))
        && !instance
}

/// Records what a mention `s` says of its global `g`: a resource (undefined by design), and
/// for a function, whether it is a kernel. Gives the error when it disagrees with the first
/// mention on that (a function declared `__global__` in one file, `__device__` in another).
fn mention(g: &mut Global<'_>, s: &Symbol<'_>) -> Option<Error> {
    let extern_shared =
        s.section == SymSection::Undefined && s.other & crate::elf::STO_CUDA_SHARED != 0;
    if matches!(s.st_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE) || extern_shared {
        g.is_resource = true;
    }
    if s.st_type != crate::elf::STT_FUNC {
        return None;
    }
    let entry = InputObject::is_entry(s);
    match g.entry {
        None => g.entry = Some(entry),
        Some(e) if e != entry => {
            return Some(Error::new(format!(
                "Function '{}' not declared __global__ in all source files",
                String::from_utf8_lossy(s.name)
            )))
        }
        Some(_) => {}
    }
    None
}

/// What mention `s` of data says otherwise than the first mention of its name, in nvlink's
/// words: the memory space (global, shared, constant) and the managed attribute, defined
/// or declared alike. (Functions are not compared; other `st_other` bits do not count.)
fn space_mismatches(g: &mut Global<'_>, s: &Symbol<'_>) -> Vec<&'static str> {
    use crate::elf::{STO_CUDA_CONSTANT, STO_CUDA_GLOBAL, STO_CUDA_MANAGED, STO_CUDA_SHARED};
    const SPACE: u8 = STO_CUDA_GLOBAL | STO_CUDA_SHARED | STO_CUDA_CONSTANT;
    if s.st_type == crate::elf::STT_FUNC {
        return Vec::new();
    }
    let mine = s.other & (SPACE | STO_CUDA_MANAGED);
    let first = *g.space.get_or_insert(mine);
    let mut out = Vec::new();
    if (first ^ mine) & SPACE != 0 {
        out.push("Memory space");
    }
    if (first ^ mine) & STO_CUDA_MANAGED != 0 {
        out.push("Managed attribute");
    }
    out
}

/// Whether mention `s` agrees with the size its global's data has so far (and records it
/// where it is the first to give one). nvlink compares every sized mention of a data name,
/// a declaration's (`extern __device__ int g[7]`) as a definition's, weak or strong, with
/// the first: an inline variable of another size in two files is an error, not a weak copy
/// to drop. Functions (a weak template's copies may differ) and unsized mentions
/// (`extern __device__ int g[]`) do not count.
fn same_size(g: &mut Global<'_>, s: &Symbol<'_>) -> bool {
    if s.st_type == crate::elf::STT_FUNC || s.size == 0 {
        return true;
    }
    match g.size {
        0 => {
            g.size = s.size;
            true
        }
        n => n == s.size,
    }
}

/// An extern `__shared__` array a partial link defined (empty, in `.nv_debug.shared`): a
/// declaration, whichever partial links define it, so it counts as weak.
fn is_partial_extern_array(o: &InputObject<'_>, s: &Symbol<'_>) -> bool {
    s.size == 0
        && s.other & crate::elf::STO_CUDA_SHARED != 0
        && matches!(s.section, SymSection::Index(si)
            if o.cubin.sections.get(si as usize).is_some_and(|x| x.name == b".nv_debug.shared"))
}

/// Which definition a name keeps, `new` coming after `current`: a strong one beats weak
/// ones; among weak ones the first stays unless `lighter(new, current)`; two strong ones
/// are an error (`Err` with the first, which stays).
fn pick(
    current: Option<Def>,
    new: Def,
    lighter: impl FnOnce(Def, Def) -> bool,
) -> Result<Def, Def> {
    match current {
        None => Ok(new),
        Some(d) if d.weak && !new.weak => Ok(new),
        Some(d) if !d.weak && !new.weak => Err(d),
        Some(d) if d.weak && lighter(new, d) => Ok(new),
        Some(d) => Ok(d),
    }
}

/// The functions' register counts (`EIATTR_REGCOUNT` of each object's `.nv.info`), read
/// for an object the first time one of its weak functions meets another copy.
///
/// nvlink keeps the weak copy of a function or kernel that uses the fewest registers,
/// wherever it comes, and the first of those that tie (black-box, nvlink 13.5, sm_75,
/// sm_90, sm_100 and sm_120, default and `-r` links of hand-written PTX: 4 registers and
/// 0x2600 bytes of code beat 74 registers and 0x580 bytes in either order, as did
/// `-maxrregcount` copies of one code; testdata weak_fewer_registers).
#[derive(Default)]
struct RegisterCounts {
    of: HashMap<ObjectId, HashMap<u32, u32>>,
}

impl RegisterCounts {
    /// Whether weak definition `new` is a function with fewer registers than `old`'s.
    fn fewer(&mut self, objects: &[InputObject<'_>], new: Def, old: Def) -> bool {
        let is_function = |d: Def| {
            objects[d.obj]
                .symbols()
                .get(d.sym as usize)
                .is_some_and(|s| s.st_type == crate::elf::STT_FUNC)
        };
        if !is_function(new) || !is_function(old) {
            return false;
        }
        match (self.count(objects, new), self.count(objects, old)) {
            (Some(n), Some(o)) => n < o,
            _ => false,
        }
    }

    fn count(&mut self, objects: &[InputObject<'_>], d: Def) -> Option<u32> {
        let counts = self
            .of
            .entry(d.obj)
            .or_insert_with(|| register_counts(&objects[d.obj]));
        counts.get(&d.sym).copied()
    }
}

/// Function `sym`'s `EIATTR_REGCOUNT` in `o` (for reports: one walk of `.nv.info`).
pub fn register_count(o: &InputObject<'_>, sym: u32) -> Option<u32> {
    register_counts(o).get(&sym).copied()
}

/// Each function's `EIATTR_REGCOUNT` in `o` (by symbol index). (Loading checked that the
/// records parse.)
fn register_counts(o: &InputObject<'_>) -> HashMap<u32, u32> {
    use crate::elf::nvinfo;
    let mut out = HashMap::new();
    for (_, s) in o.sections_of(crate::object::SectionKind::Info) {
        for r in nvinfo::records(s.bytes()).flatten() {
            if let (nvinfo::EIATTR_REGCOUNT, nvinfo::Value::Bytes(p)) = (r.attr, r.value) {
                if let (Some(sym), Some(n)) = (p.get(0..4), p.get(4..8)) {
                    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    out.insert(word(sym), word(n));
                }
            }
        }
    }
    out
}

/// Final links: each global nothing defines, but resources and what the driver provides, is
/// an undefined reference, reported in the first object mentioning it.
fn undefined_references(
    objects: &[InputObject<'_>],
    globals: &IdVec<GlobalId, Global<'_>>,
    errors: &mut ResolveErrors,
) {
    for (gid, g) in globals.iter_enumerated() {
        if !g.left_undefined() {
            continue;
        }
        let o = &objects[g.first_ref];
        let mut msg = format!(
            "Undefined reference to '{}' in '{}'",
            String::from_utf8_lossy(g.name),
            o.name
        );
        // Better than nvlink: say which function refers to it.
        if let Some(f) = referencing_function(o, g.name) {
            msg.push_str(&format!(" (from '{}')", String::from_utf8_lossy(f)));
        }
        if g.data_ref {
            errors.undefined.push((gid, Error::new(msg)));
        } else {
            errors.undefined_functions.push((gid, Error::new(msg)));
        }
    }
}

/// The first function of `o` whose code refers to the global `name` (error reports only).
fn referencing_function<'data>(o: &InputObject<'data>, name: &[u8]) -> Option<&'data [u8]> {
    for (_, s) in o.sections_of(crate::object::SectionKind::Reloc) {
        let Some(f) = o.info_function(s) else {
            continue;
        };
        let Ok(relocs) = o.cubin.relocations(s) else {
            continue;
        };
        if relocs.iter().any(|r| {
            o.symbols()
                .get(r.sym as usize)
                .is_some_and(|x| x.name == name)
        }) {
            return Some(o.symbols()[f as usize].name);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(obj: u32, weak: bool) -> Def {
        Def {
            obj: ObjectId::new(obj),
            sym: 1,
            weak,
        }
    }

    const SAME: fn(Def, Def) -> bool = |_, _| false;
    const LIGHTER: fn(Def, Def) -> bool = |_, _| true;

    #[test]
    fn a_strong_definition_beats_weak_ones_before_and_after_it() {
        assert_eq!(
            pick(Some(def(0, true)), def(1, false), SAME),
            Ok(def(1, false))
        );
        assert_eq!(
            pick(Some(def(0, false)), def(1, true), LIGHTER),
            Ok(def(0, false))
        );
    }

    #[test]
    fn the_first_weak_definition_stays_among_equals() {
        assert_eq!(pick(None, def(0, true), SAME), Ok(def(0, true)));
        assert_eq!(
            pick(Some(def(0, true)), def(1, true), SAME),
            Ok(def(0, true))
        );
    }

    #[test]
    fn a_later_weak_definition_with_fewer_registers_wins() {
        assert_eq!(
            pick(Some(def(0, true)), def(1, true), LIGHTER),
            Ok(def(1, true))
        );
    }

    #[test]
    fn a_second_strong_definition_is_an_error_naming_the_first() {
        assert_eq!(
            pick(Some(def(0, false)), def(1, false), LIGHTER),
            Err(def(0, false))
        );
    }

    /// The corpus case's cubins `files` for `sm`.
    fn corpus(case: &str, sm: &str, files: &[&str]) -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/out")
            .join(case)
            .join(sm);
        files
            .iter()
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect()
    }

    /// The xtu_call case's sm_90 cubins: a.o calls b.o's and c.o's functions.
    fn xtu_call() -> Vec<Vec<u8>> {
        corpus("xtu_call", "sm_90", &["a.o", "b.o", "c.o"])
    }

    fn objects(bytes: &[Vec<u8>]) -> Vec<InputObject<'_>> {
        bytes
            .iter()
            .enumerate()
            .map(|(i, b)| InputObject::new(ObjectId::from_index(i), format!("o{i}"), b).unwrap())
            .collect()
    }

    fn final_link(sm: u32) -> crate::policy::Policy {
        crate::policy::Policy::new(sm, false, false, false)
    }

    #[test]
    fn objects_added_in_two_steps_resolve_as_all_at_once() {
        let bytes = xtu_call();
        let objects = objects(&bytes);
        let policy = final_link(90);
        let (all, all_errors) = resolve(&objects[..2], &policy);
        let mut r = Resolver::new(&policy);
        r.add(&objects[..1], 0);
        r.add(&objects[..2], 1);
        let (stepwise, stepwise_errors) = r.finish(&objects[..2], &policy);
        // (Every field of every global, and the errors: here c.o's function undefined.)
        assert_eq!(
            format!("{:?}", all.globals.iter().collect::<Vec<_>>()),
            format!("{:?}", stepwise.globals.iter().collect::<Vec<_>>())
        );
        assert_eq!(all.sym_global, stepwise.sym_global);
        assert_eq!(format!("{all_errors:?}"), format!("{stepwise_errors:?}"));
        assert!(!all_errors.undefined_functions.is_empty());
    }

    #[test]
    fn the_unified_tables_placeholders_leave_nothing_undefined_in_a_final_link() {
        // (Every sm_90 object names them; nothing defines them.)
        let bytes = xtu_call();
        let objects = objects(&bytes);
        let mut r = Resolver::new(&final_link(90));
        r.add(&objects, 0);
        assert!(!r.leaves_undefined());
    }

    #[test]
    fn the_unified_tables_placeholders_pull_no_library_into_a_partial_link() {
        // (A partial link keeps them as undefined globals, but no library defines them:
        // nvlink -r links no libcudadevrt member for them.)
        let bytes = xtu_call();
        let objects = objects(&bytes);
        let mut partial = Resolver::new(&crate::policy::Policy::new(90, true, false, false));
        partial.add(&objects, 0);
        assert!(!partial.leaves_undefined());
    }

    #[test]
    fn extern_shared_arrays_leave_nothing_undefined() {
        // (a.o and b.o name dynamic shared memory arrays, which nothing defines.)
        let bytes = corpus("extern_shared", "sm_90", &["a.o", "b.o"]);
        let objects = objects(&bytes);
        let mut r = Resolver::new(&final_link(90));
        r.add(&objects, 0);
        assert!(r.r.globals.iter().any(|g| g.def.is_none() && g.is_resource));
        assert!(!r.leaves_undefined());
    }

    /// weak_size_mismatch's sm_75 cubins: a.o and b.o give two data names and a template
    /// kernel's shared array other sizes; c.o declares one of them with a third; a.o's and
    /// b.o's weak helper function differ in size too.
    fn size_mismatch(files: &[&str]) -> Vec<String> {
        let bytes = corpus("weak_size_mismatch", "sm_75", files);
        let objects = objects(&bytes);
        let (_, errors) = resolve(&objects, &final_link(75));
        errors.duplicates.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn data_of_two_sizes_is_an_error_for_each_name() {
        assert_eq!(
            size_mismatch(&["a.o", "b.o"]),
            [
                "Size doesn't match for 'table' in 'o1', first specified in 'o0'",
                "Size doesn't match for 'coeff' in 'o1', first specified in 'o0'",
                "Size doesn't match for '_ZZ2tkILi3EEvPiE1s' in 'o1', first specified in 'o0'",
            ]
        );
    }

    #[test]
    fn weak_functions_copies_may_differ_in_size() {
        // (a.o's and b.o's helper differ; no error names it.)
        assert!(size_mismatch(&["a.o", "b.o"])
            .iter()
            .all(|e| !e.contains("helper")));
    }

    #[test]
    fn a_declarations_size_counts_as_a_definitions() {
        assert_eq!(
            size_mismatch(&["c.o", "a.o"]),
            ["Size doesn't match for 'table' in 'o1', first specified in 'o0'"]
        );
    }

    fn data(other: u8, st_type: u8) -> Symbol<'static> {
        Symbol {
            name: b"x",
            value: 0,
            size: 4,
            bind: crate::elf::STB_GLOBAL,
            st_type,
            other,
            section: SymSection::Undefined,
        }
    }

    /// What a second mention with `second` bits says after a first with `first`.
    fn space_after(first: u8, second: u8, st_type: u8) -> Vec<&'static str> {
        let mut g = Global::new(b"x", ObjectId::from_index(0));
        assert!(space_mismatches(&mut g, &data(first, st_type)).is_empty());
        space_mismatches(&mut g, &data(second, st_type))
    }

    #[test]
    fn data_declared_in_another_memory_space_than_first_mentioned_is_an_error() {
        use crate::elf::{STO_CUDA_CONSTANT, STO_CUDA_GLOBAL, STO_CUDA_SHARED, STT_CUDA_OBJECT};
        for (a, b) in [
            (STO_CUDA_GLOBAL, STO_CUDA_CONSTANT),
            (STO_CUDA_SHARED, STO_CUDA_GLOBAL),
            (STO_CUDA_GLOBAL, 0),
        ] {
            assert_eq!(space_after(a, b, STT_CUDA_OBJECT), ["Memory space"]);
        }
    }

    #[test]
    fn data_managed_in_one_mention_only_is_an_error() {
        use crate::elf::{STO_CUDA_GLOBAL, STO_CUDA_MANAGED, STT_CUDA_OBJECT};
        let managed = STO_CUDA_GLOBAL | STO_CUDA_MANAGED;
        assert_eq!(
            space_after(STO_CUDA_GLOBAL, managed, STT_CUDA_OBJECT),
            ["Managed attribute"]
        );
    }

    #[test]
    fn other_st_other_bits_and_functions_are_not_compared() {
        use crate::elf::{STO_CUDA_ENTRY, STO_CUDA_GLOBAL, STT_CUDA_OBJECT, STT_FUNC};
        assert!(space_after(STO_CUDA_GLOBAL, STO_CUDA_GLOBAL | 0x0b, STT_CUDA_OBJECT).is_empty());
        assert!(space_after(STO_CUDA_ENTRY, STO_CUDA_ENTRY | STO_CUDA_GLOBAL, STT_FUNC).is_empty());
    }

    #[test]
    fn only_the_first_object_that_clashes_is_reported() {
        // (c.o's declaration clashes with a.o's too; nvlink stops after b.o.)
        assert_eq!(size_mismatch(&["a.o", "b.o", "c.o"]).len(), 3);
    }

    #[test]
    fn a_function_no_object_defines_is_left_undefined() {
        let bytes = xtu_call();
        let objects = objects(&bytes[..2]); // a.o calls c.o's function
        let mut r = Resolver::new(&final_link(90));
        r.add(&objects, 0);
        assert!(r.leaves_undefined());
    }
}
