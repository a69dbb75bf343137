//! Pass 4, the merge: builds the output module from the resolved inputs. It decides where
//! each kept input section lands (output section, offset) and what each input symbol becomes
//! (the `Placement`), lays out memory (shared memory, literal banks, texture slots), and
//! produces the merged contents (sections and symbols in nvlink's creation order, `.nv.info`,
//! call graph, notes) with their relocation sections reserved. Applying the relocations is
//! the next pass (`relocate`), the sm_100+ Mercury half the one after (`mercury`); both read
//! the `Placement` and add to the `Module`.
//!
//! Orders follow what nvlink 13.5 was seen to do (see `testdata/` and the issue notes):
//! per object, code first (text section symbols and functions, in symbol-table order), then
//! everything else in symbol-table order; relocations and `.nv.info` records come out in the
//! reverse of the order they were read.

pub(crate) mod debug_frame;
pub mod info;
mod line_tables;
pub(crate) mod literal_banks;
pub(crate) mod local_names;
mod notes;
mod partial_shared;
mod placement;
mod refusals;
mod reg_sass;
mod report;
pub use report::UsageFormat;
mod resources;
mod sections;
pub mod shared;
mod symbols;
mod unified;

use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::GlobalId;
use crate::ids::ObjectId;
use crate::liveness::Liveness;
use crate::object::{InputObject, SectionKind};
use crate::output::align_up;
use crate::output::*;
use crate::resolve::Resolution;
use hashbrown::HashMap;
pub(crate) use placement::{Placed, Placement};

/// The order in which nvlink turns an object's symbols into output symbols and sections
/// (observed through the output's symbol and section order): code first (text sections and
/// functions); then local data symbols, each bringing its section's symbol along; then the
/// remaining section symbols; then the other globals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Pass {
    Code,
    Locals,
    SectionSymbols,
    Globals,
}

pub struct Options {
    /// The mode and target, and the rules that follow from them.
    pub policy: crate::policy::Policy,
    pub tool_args: String,
    /// The tkinfo entry's object field (the output name under -g).
    pub tool_file: String,
    /// `-kernels-used`: keep only kernels whose (mangled) name contains one of these (`None`:
    /// every kernel; an empty list: none, as `-variables-used` alone asks).
    pub kernels_used: Option<Vec<String>>,
    /// `-suppress-stack-size-warning`.
    pub suppress_stack_size_warning: bool,
    /// `--dump-callgraph`.
    pub dump_callgraph: bool,
    /// `--resource-usage[=json]`.
    pub resource_usage: Option<UsageFormat>,
    /// `-Map`/`--print-map`: keep where each input section went.
    pub map: bool,
    /// `-v`: the resource report (made only when asked: a line and a few look-ups per kernel).
    pub verbose: bool,
    /// The target as `-arch` named it (`sm_90a`).
    pub arch_name: String,
    /// The target is an 'a' architecture (`sm_90a`, `sm_100a`).
    pub accelerated: bool,
}

pub use crate::liveness::HostKernels;

/// A function as `--dump-callgraph` numbers it: a global name, or one object's local.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FuncNode {
    Global(GlobalId),
    Local(ObjectId, u32),
}

/// The merge result: the module, and the diagnostics nvlink would print for it.
pub struct Built {
    pub module: Module,
    pub warnings: Vec<String>,
    /// Link errors: when any, the link fails (status 255) and nothing is written.
    pub errors: Vec<String>,
    /// What `-v` prints: the module's global and constant memory, then each kernel's
    /// resources (nvlink's `info` lines, in its order); empty without `-v`.
    pub resource_report: Vec<String>,
    /// What `--dump-callgraph` prints.
    pub callgraph_report: Vec<String>,
    /// `--resource-usage`'s report (empty without it).
    pub resource_usage: String,
    /// `-Map`: what each output section holds, from which inputs (empty without it).
    pub origins: Vec<Origin>,
    /// Per kernel, after propagation: (symbol, registers, barriers, stack, frame).
    pub kernel_facts: Vec<info::KernelFacts>,
}

/// An input section's place in the output (`-Map`).
#[derive(Debug, Clone)]
pub struct Origin {
    pub out: OutSec,
    /// Where in the output section, and how many bytes.
    pub offset: u64,
    pub size: u64,
    /// The input (as named in messages: file, archive member) and its section.
    pub input: String,
    pub section: String,
}

/// The merge at work: the placement it fills, and the module it builds.
pub(crate) struct Builder<'a, 'data> {
    p: Placement<'a, 'data>,
    pub(crate) m: Module,
    /// -preserve-relocs: symbols of functions' objects whose kernel's `.nv.shared.<k>` is
    /// made later (the kernel is in a later object).
    pending_shared_symbols: HashMap<(ObjectId, usize), Vec<OutSym>>,
    pub(crate) warnings: Vec<String>,
    /// Link errors (nvlink's `error` lines; the link fails with status 255).
    pub(crate) errors: Vec<String>,
    /// Every function in the order the link met it (removed ones included): the nodes of
    /// `--dump-callgraph`, numbered from 1.
    pub(crate) func_nodes: Vec<FuncNode>,
    /// (by global: its node is numbered)
    func_node_seen: crate::ids::IdVec<GlobalId, bool>,
    /// `out_section_for`'s answers, by object and input section (`None`: not asked yet).
    out_of: crate::ids::IdVec<ObjectId, Vec<Option<Option<OutSec>>>>,
    /// Which sections some input names with a section symbol (`debug_group`).
    named_sections: symbols::NamedSections,
    /// -r: the one output symbol of each undefined local name (`.nv.ptx.const0.size`).
    undefined_locals: HashMap<Vec<u8>, OutSym>,
}

fn is_text(o: &InputObject<'_>, s: &Section<'_>) -> bool {
    o.kind(s) == SectionKind::Text
}

impl<'a, 'data> Builder<'a, 'data> {
    fn section_symbol(&mut self, sec: OutSec) -> OutSym {
        if let Some(s) = self.m.sections[sec].section_symbol {
            return s;
        }
        let id = self.new_section_symbol(Some(sec));
        self.m.sections[sec].section_symbol = Some(id);
        id
    }

    /// A local STT_SECTION symbol (`None`: for a section made later, which sets it).
    pub(crate) fn new_section_symbol(&mut self, sec: Option<OutSec>) -> OutSym {
        self.m.add_symbol(OutSymbol {
            name: Vec::new(),
            value: 0,
            size: 0,
            bind: STB_LOCAL,
            st_type: STT_SECTION,
            other: 0,
            section: sec,
        })
    }

    /// The output section an input section goes to (created on first use). Remembered per
    /// input section: the creation passes and the placing ask for most sections again, and
    /// the answer does not change (a section of that name, once made, stays that section).
    fn out_section_for(&mut self, oi: ObjectId, si: usize) -> Option<OutSec> {
        if let Some(known) = self.known_out_section(oi, si) {
            return known;
        }
        let found = self.find_or_make_out_section(oi, si);
        if let Some(slot) = self.out_of[oi].get_mut(si) {
            *slot = Some(found);
        }
        found
    }

    /// `out_section_for`'s answer for an input section it was asked about before (`None`:
    /// not asked yet).
    fn known_out_section(&self, oi: ObjectId, si: usize) -> Option<Option<OutSec>> {
        self.out_of[oi].get(si).copied().flatten()
    }

    fn find_or_make_out_section(&mut self, oi: ObjectId, si: usize) -> Option<OutSec> {
        let o = &self.p.objects[oi];
        let s = o.cubin.sections.get(si)?;
        // (A function's literal bank goes into its kernels' banks: `place_literal_bank`.)
        if self.is_callee_literal_bank(oi, si) {
            return None;
        }
        let kind = o.kind(s);
        let group = match kind {
            SectionKind::Text => Group::Text,
            SectionKind::KernelConstant => Group::Constants,
            SectionKind::Merged => match s.sh_type {
                SHT_CUDA_GLOBAL_INIT => Group::Data,
                SHT_CUDA_GLOBAL => Group::Bss,
                t if (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&t) => {
                    Group::Constants
                }
                _ if s.flags & SHF_ALLOC == 0 => Group::Debug,
                _ => Group::Data,
            },
            SectionKind::Other
                if self.p.policy.relocatable()
                    && (s.sh_type == SHT_CUDA_SHARED || s.name == b".nv_debug.shared") =>
            {
                Group::Shared
            }
            SectionKind::Other if s.sh_type == SHT_CUDA_SHARED => return None,
            // sm_110's reserved shared memory (`.nv.shared.reserved.<n>`).
            SectionKind::Other
                if s.sh_type == SHT_CUDA_RESERVED_SHARED
                    && !crate::elf::names::is_mercury_section(s.name) =>
            {
                Group::ReservedShared
            }
            _ => return None,
        };
        let (sh_type, flags) = self.lower_type(s.sh_type, s.flags);
        let info = match kind {
            SectionKind::Text => Info::None, // set when the function symbol exists
            _ => Info::None,
        };
        let link = if kind == SectionKind::Text {
            Link::Symtab
        } else {
            Link::None
        };
        let content = if type_has_no_file_data(s.sh_type) {
            Content::NoBits(0)
        } else {
            Content::Bytes(Vec::new())
        };
        let align = s.align;
        let entsize = s.entsize;
        // (Met again: a weak copy, a section merged by name, a later pass asking.)
        let mut made = false;
        let id = self.m.named_section(s.name, || OutSection {
            name: {
                made = true;
                s.name.to_vec()
            },
            sh_type,
            flags,
            align,
            entsize,
            link,
            info,
            content,
            group,
            section_symbol: None,
        });
        // Texture/surface references get slots in every kernel's parameter bank, with a
        // relocation section created along with the bank (filled once symbols exist; sm_100+
        // makes it, RELA, when it adds the slots).
        if made && kind == SectionKind::KernelConstant && self.p.resources.wanted {
            let rel = (!self.m.mercury).then(|| self.slot_relocations(id));
            self.p.resources.banks.push((rel, id));
        }
        Some(id)
    }

    fn global_symbol(&mut self, g: GlobalId) -> OutSym {
        if let Some(s) = self.p.global_sym[g] {
            return s;
        }
        let glob = &self.p.res.globals[g];
        let (bind, st_type, other, size, value) = match glob.def {
            Some(d) => {
                let s = &self.p.objects[d.obj].symbols()[d.sym as usize];
                // -r keeps the st_other of the symbol's first occurrence, a reference in an
                // earlier object included (nvlink's partial link; a unified function then
                // loses its 0x04 flag, as in nvlink's output).
                let first = (self.p.policy.relocatable() && glob.first_ref < d.obj)
                    .then(|| self.p.res.first_reference(self.p.objects, g))
                    .flatten();
                (
                    s.bind,
                    s.st_type,
                    self.lower_other(first.unwrap_or(s).other),
                    s.size,
                    s.value,
                )
            }
            None => {
                // Undefined: the first reference describes it.
                // (`.nv.reservedSmem.cap` keeps its value, the reserved size.)
                let (st_type, size, other, value) = self
                    .p
                    .res
                    .first_reference(self.p.objects, g)
                    .map(|s| (s.st_type, s.size, self.lower_other(s.other), s.value))
                    .unwrap_or((STT_NOTYPE, 0, 0, 0));
                // -r writes an undefined global-memory variable's value as all ones; -r -g
                // an extern shared array's as where the debugger finds it.
                let value = if let Some(&v) = self.p.partial.debug_value.get(&g) {
                    v
                } else if self.p.policy.relocatable()
                    && st_type == STT_CUDA_OBJECT
                    && other & STO_CUDA_GLOBAL != 0
                {
                    u64::MAX
                } else {
                    value
                };
                (STB_GLOBAL, st_type, other, size, value)
            }
        };
        // sm_100+ types undefined data symbols (`.nv.reservedSmem.*`, which objects declare
        // weak STT_OBJECT) as CUDA objects.
        let undefined = glob.def.is_none_or(|d| {
            self.p.objects[d.obj].symbols()[d.sym as usize].section == SymSection::Undefined
        });
        let st_type =
            if self.m.mercury && undefined && matches!(st_type, STT_OBJECT | STT_CUDA_OBJECT) {
                STT_CUDA_OBJECT
            } else {
                self.lower_symbol_type(st_type)
            };
        // -r with extern shared arrays defines them in `.nv_debug.shared`.
        let section = (self.p.policy.relocatable()
            && !self.p.partial.uses.is_empty()
            && glob.def.is_none()
            && other & STO_CUDA_SHARED != 0
            && st_type != STT_FUNC)
            .then(|| self.partial_debug_shared());
        let id = self.m.add_symbol(OutSymbol {
            name: glob.name.to_vec(),
            value,
            size,
            bind,
            st_type,
            other,
            section,
        });
        self.p.global_sym[g] = Some(id);
        id
    }
}

impl Builder<'_, '_> {
    /// `.nv_debug.shared`, at least `align`-aligned and `size` bytes long. It has a section
    /// symbol once it is not empty (on sm_100+, once it holds more than the reserved bytes).
    fn debug_shared_section(&mut self, align: u64, size: u64) -> OutSec {
        let id = self.m.named_section(b".nv_debug.shared", || OutSection {
            name: b".nv_debug.shared".to_vec(),
            sh_type: SHT_NOBITS,
            flags: SHF_WRITE | SHF_ALLOC,
            align: 1,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::NoBits(0),
            group: Group::Shared,
            section_symbol: None,
        });
        let sec = &mut self.m.sections[id];
        sec.align = sec.align.max(align);
        let reserved_only = if self.m.mercury {
            self.p.shared.reserve
        } else {
            0
        };
        if let Content::NoBits(n) = &mut sec.content {
            *n = (*n).max(size);
            if *n > reserved_only {
                self.section_symbol(id);
            }
        }
        id
    }

    /// -preserve-relocs and -g: the `.nv_debug.shared` a function using extern arrays brings
    /// (`Builder::text_section_symbol`), with its section symbol there when functions'
    /// objects will fill it (sm_75 and sm_100, where it has no reserved bytes of its own:
    /// black-box, a kernel with an extern array beside a dead function's static object;
    /// fuzz-equiv seed 217; testdata debug_shared_pool_named_early).
    fn due_debug_shared(&mut self) {
        let sec = self.debug_shared_section(self.extern_debug_align(), self.p.shared.reserve);
        if self.p.shared.debug_pool {
            self.section_symbol(sec);
        }
    }

    /// The alignment extern arrays give `.nv_debug.shared`: 16 at most, or that of nvlink's
    /// pool of functions' objects when there is one (which includes theirs).
    fn extern_debug_align(&self) -> u64 {
        self.p
            .shared
            .extern_align
            .min(16)
            .max(self.p.shared.pool_align)
    }

    /// A function's object (its input section `in_name`) makes the `.nv_debug.shared` that
    /// the extern arrays in use bring anyway, where nvlink makes it: with the first object
    /// that has one.
    pub(super) fn early_debug_shared(&mut self, in_name: &[u8]) {
        if self.p.policy.relocatable()
            || in_name != b".nv_debug.shared"
            || self.p.shared.extern_align == 0
            || (self.p.shared.pool_align > 16 && !self.p.policy.keeps_internal_symbols())
        {
            return;
        }
        let size = if self.p.policy.keeps_internal_symbols() || self.m.mercury {
            self.p.shared.reserve
        } else {
            0
        };
        self.debug_shared_section(self.extern_debug_align(), size);
    }

    /// sm_90 -g and -preserve-relocs, functions' static shared objects left in
    /// `.nv_debug.shared` (a function no kernel calls, or one several kernels reach) beside
    /// extern arrays in use: nvlink defines the arrays in `.nv_debug.shared` counting the
    /// reserved bytes in (black-box, sm_90 only; sm_75 and sm_100 do not: a
    /// `-preserve-relocs` link gets each array at 0x3ff, internal, a `-g` one at 0x400 plus
    /// its offset; testdata shared_pool_align, shared_pool_all, shared_pool_arrays_named;
    /// fuzz-equiv seed 256).
    fn arrays_beside_pool(&self) -> bool {
        self.p.policy.sm() == 90
            && (self.p.policy.debug() || self.p.policy.preserve_relocs())
            && (self.p.shared.debug_pool || !self.p.shared.unreached_users.is_empty())
    }

    /// `-preserve-relocs` (`arrays_beside_pool`): extern shared array `g`'s symbol in
    /// `.nv_debug.shared` (`sec`): internal, at the reserved bytes less one (-1, the offset of
    /// code no kernel reaches, plus the reserve).
    fn pool_extern_symbol(&mut self, g: GlobalId, sec: OutSec) -> OutSym {
        if let Some(s) = self.p.global_sym[g] {
            return s;
        }
        let id = self.m.add_symbol(OutSymbol {
            name: self.p.res.globals[g].name.to_vec(),
            value: self.p.shared.reserve.wrapping_sub(1),
            size: 0,
            bind: STB_GLOBAL,
            st_type: STT_OBJECT,
            other: STV_INTERNAL,
            section: Some(sec),
        });
        self.p.global_sym[g] = Some(id);
        id
    }

    /// `-g`: the symbol of extern shared array `g`, defined in `.nv_debug.shared` (`sec`).
    fn debug_extern_symbol(&mut self, g: GlobalId, sec: OutSec) -> Option<OutSym> {
        if let Some(s) = self.p.global_sym[g] {
            return Some(s);
        }
        // (sm_100+ counts the reserved bytes in, as for its other shared objects, and so
        // does sm_90 in `arrays_beside_pool`' links.)
        let reserve = if self.m.mercury || self.arrays_beside_pool() {
            self.p.shared.reserve
        } else {
            0
        };
        let value = self.p.shared.extern_symbol_offset.get(&g)? + reserve;
        let id = self.m.add_symbol(OutSymbol {
            name: self.p.res.globals[g].name.to_vec(),
            value,
            size: 0,
            bind: STB_GLOBAL,
            st_type: STT_OBJECT,
            other: 0,
            section: Some(sec),
        });
        self.p.global_sym[g] = Some(id);
        Some(id)
    }

    /// What naming input section `in_name` brings of `.nv_debug.shared` (final links).
    pub(crate) fn named_debug_shared(&mut self, in_name: &[u8]) {
        self.early_debug_shared(in_name);
        // (The first function's object brings `.nv_debug.shared` and its symbol, wherever
        // the object itself goes, when the section stays for others.)
        if in_name == b".nv_debug.shared" && self.p.shared.debug_pool {
            let sec = self.debug_shared_section(self.p.shared.debug_align, 0);
            self.section_symbol(sec);
        } else if in_name == b".nv_debug.shared"
            && self.p.shared.extern_align > 0
            && !self.m.mercury
            && self.p.shared.reserve > 0
        {
            // (So does it when extern arrays keep the section, with a symbol, for the
            // reserved bytes: sm_90.)
            self.debug_shared_section(self.extern_debug_align(), self.p.shared.reserve);
        }
    }

    fn preserved_shared_symbol(&mut self, k: shared::ObjKey) -> Option<OutSym> {
        let value = self
            .p
            .shared
            .offset
            .get(&k)?
            .saturating_add(self.p.shared.reserve);
        let o = &self.p.objects[k.0];
        let s = &o.symbols()[k.1 as usize];
        let SymSection::Index(si) = s.section else {
            return None;
        };
        let in_name = o.cubin.sections.get(si as usize)?.name;
        let (name, size) = (s.name.to_vec(), s.size);
        self.named_debug_shared(in_name);
        let align = shared::alignment(s.value);
        // (A kernel's function-scope object is in its section, made with its code; but a
        // weak kernel's first copy's, when a later copy wins, comes before it: pending.)
        let own_section = in_name
            .starts_with(b".nv.shared.")
            .then(|| self.m.section_named(in_name))
            .flatten();
        let out = if let Some(sec) = own_section {
            sec
        } else if let Some(&(koi, ksi)) = self.p.shared.home.get(&k) {
            let tail = crate::elf::names::text_tail(self.p.objects[koi].cubin.sections[ksi].name);
            match self.m.section_named(&[b".nv.shared.", tail].concat()) {
                Some(sec) => sec,
                None => {
                    // (The kernel comes in a later object: the symbol stays here, naming
                    // the kernel's section once it is made, as nvlink's does.)
                    let id = self.m.add_symbol(OutSymbol {
                        name,
                        value,
                        size,
                        bind: STB_LOCAL,
                        st_type: STT_OBJECT,
                        other: u8::from(!self.p.policy.debug()),
                        section: None,
                    });
                    self.pending_shared_symbols
                        .entry((koi, ksi))
                        .or_default()
                        .push(id);
                    return Some(id);
                }
            }
        } else {
            let align = align.max(self.p.shared.debug_align);
            self.debug_shared_section(align, value.saturating_add(size))
        };
        // Under -preserve-relocs an object in no kernel's section (several kernels', or
        // none's) keeps its binding there, global or weak, as nvlink keeps it; in a kernel's,
        // it is the kernel's alone. (-g: not probed; local, as before.)
        let bind = if self.p.policy.preserve_relocs()
            && self.m.sections[out].name == b".nv_debug.shared"
        {
            s.bind
        } else {
            STB_LOCAL
        };
        Some(self.m.add_symbol(OutSymbol {
            name,
            value,
            size,
            bind,
            st_type: STT_OBJECT,
            // (STV_INTERNAL under -preserve-relocs; -g keeps them visible to the debugger.)
            other: u8::from(!self.p.policy.debug()),
            section: Some(out),
        }))
    }
}

/// The list `map` holds for `key`, empty when it holds none.
pub(crate) fn list<'m, K: std::hash::Hash + Eq, V>(
    map: &'m HashMap<K, Vec<V>>,
    key: &K,
) -> &'m [V] {
    map.get(key).map(|v| v.as_slice()).unwrap_or(&[])
}

impl Builder<'_, '_> {
    /// ET_EXEC outputs turn the CUDA data section types into plain ones; `-r` keeps them.
    fn lower_type(&self, t: u32, flags: u64) -> (u32, u64) {
        if !self.p.policy.lowers_cuda_types() {
            return (t, flags);
        }
        match t {
            SHT_CUDA_GLOBAL | SHT_CUDA_RESERVED_SHARED => (SHT_NOBITS, flags),
            SHT_CUDA_GLOBAL_INIT => (SHT_PROGBITS, flags),
            t if (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&t) => {
                (SHT_PROGBITS, flags)
            }
            t => (t, flags),
        }
    }

    /// ET_EXEC outputs turn CUDA data objects into plain objects; `-r` keeps them.
    fn lower_symbol_type(&self, t: u8) -> u8 {
        if t == STT_CUDA_OBJECT && self.p.policy.lowers_cuda_types() {
            STT_OBJECT
        } else {
            t
        }
    }

    /// ET_EXEC outputs clear the memory-space bits of st_other (the managed bit stays);
    /// `-r` keeps them.
    fn lower_other(&self, o: u8) -> u8 {
        if !self.p.policy.lowers_cuda_types() {
            o
        } else {
            o & !(STO_CUDA_GLOBAL | STO_CUDA_SHARED | STO_CUDA_CONSTANT)
        }
    }
}

/// The merge's product: the module (its sections and symbols in nvlink's creation order,
/// relocations not yet applied) and the placement the passes after it read.
pub struct Merged<'a, 'data> {
    pub(crate) placement: Placement<'a, 'data>,
    pub module: Module,
    warnings: Vec<String>,
    errors: Vec<String>,
    info: info::InfoOutput,
    /// `--resource-usage`: each kernel's static shared objects and extern-array users.
    kernel_shared: HashMap<Vec<u8>, (Vec<shared::KernelObject>, Vec<String>)>,
}

impl Merged<'_, '_> {
    /// What sm_100+'s Mercury half takes over from the `.nv.info` pass: the Mercury copy of
    /// each `.nv.info.<fn>`.
    pub(crate) fn take_merc_function_info(&mut self) -> Vec<(Vec<u8>, Content)> {
        std::mem::take(&mut self.info.merc_function_info)
    }

    /// The finished module, with the diagnostics and reports of the link.
    /// Link errors the merge found (the link fails).
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    pub fn finish(self) -> Built {
        let resource_report = if self.info.verbose {
            report::resource_report(
                &self.module,
                self.placement.shared.reserve,
                &self.info.kernel_facts,
            )
        } else {
            Vec::new()
        };
        let resource_usage = match self.info.usage_format {
            Some(format) => report::resource_usage(
                &self.module,
                self.placement.shared.reserve,
                &self.info.usage,
                &self.kernel_shared,
                format,
            ),
            None => String::new(),
        };
        let origins = if self.info.map {
            let p = &self.placement;
            let mut v = Vec::new();
            for (oi, o) in crate::object::enumerated(p.objects) {
                for (si, placed) in p.placed[oi].iter().enumerate() {
                    let Some(placed) = placed else { continue };
                    let s = &o.cubin.sections[si];
                    v.push(Origin {
                        out: placed.sec,
                        offset: placed.offset,
                        size: s.size,
                        input: o.name.clone(),
                        section: s.name_str().into_owned(),
                    });
                }
            }
            v
        } else {
            Vec::new()
        };
        Built {
            module: self.module,
            warnings: self.warnings,
            errors: self.errors,
            resource_report,
            callgraph_report: self.info.callgraph_report,
            resource_usage,
            origins,
            kernel_facts: self.info.kernel_facts,
        }
    }
}

/// Merges the inputs into the output module: memory plans, notes, symbols and sections in
/// nvlink's creation order, texture/surface slots, `.nv.info` and the call graph.
pub fn build<'a, 'data>(
    objects: &'a [InputObject<'data>],
    res: &'a Resolution<'data>,
    liveness: &'a Liveness,
    opts: &Options,
    pages: &crate::input::files::Pages<'_>,
) -> Result<Merged<'a, 'data>> {
    // Code is read again only by relocation: the module names it rather than copies it
    // (`Content::Input`, up to sm_90), and its pages, which the kernel mapped with the rest of
    // each file as the file was read, are given back now, not held through the merge.
    if opts.policy.writes_code_from_input() {
        tracing::info_span!("code_pages")
            .in_scope(|| pages.give_back(&sections::code_spans(objects, pages.page_size())));
    }
    let tables = tracing::info_span!("tables").entered();
    let mut b = Builder::new(objects, res, liveness, opts);
    // (The module has at most about as many sections and symbols as its inputs: room made
    // once, not by doubling tables of a hundred thousand entries.)
    b.m.sections
        .reserve(objects.iter().map(|o| o.cubin.sections.len()).sum());
    b.m.symbols
        .reserve(objects.iter().map(|o| o.symbols().len()).sum());
    drop(tables);
    let _start = tracing::info_span!("start").entered();
    b.m.e_flags = notes::e_flags(objects, opts);
    // Fixed tables and notes come first.
    b.fixed_tables();
    refusals::refuse_refinalized_kernels(objects, liveness, opts)?;
    b.plan_memory(liveness, opts)?;
    b.create_notes(opts)?;
    drop(_start);
    tracing::info_span!("symbols").in_scope(|| b.symbols_and_sections(opts, pages))?;
    b.check_user_constant_size();
    if !opts.policy.relocatable() {
        b.check_kernel_shared_size(opts);
    }
    b.resource_slots()?;
    let info = tracing::info_span!("info").in_scope(|| info::build_info(&mut b, opts))?;
    if opts.policy.relocatable() {
        b.check_unified_tables()?;
    }
    let kernel_shared = if opts.resource_usage.is_some() {
        shared::kernel_objects(objects, res, liveness, &b.p.shared)
    } else {
        HashMap::new()
    };
    Ok(Merged {
        placement: b.p,
        module: b.m,
        warnings: b.warnings,
        errors: b.errors,
        info,
        kernel_shared,
    })
}

/// What the user constant bank (`.nv.constant3`, `__constant__` data) may hold.
const USER_CONSTANT_MAX: u64 = 0x10000;

/// The static shared memory a kernel may use.
const KERNEL_SHARED_MAX: u64 = 0xc000;

impl<'a, 'data> Builder<'a, 'data> {
    /// The link's `__constant__` data must fit its bank, in every mode (nvlink's error).
    fn check_user_constant_size(&mut self) {
        let Some(c) = self.m.section_named(b".nv.constant3") else {
            return;
        };
        let size = self.m.sections[c].content.size();
        if size > USER_CONSTANT_MAX {
            self.errors.push(format!(
                "File uses too much global constant data ({size:#x} bytes, \
                 {USER_CONSTANT_MAX:#x} max)"
            ));
        }
    }

    /// Each kernel's static shared memory (its `.nv.shared.<kernel>` less what sm_90 and later
    /// reserve) must fit 48 KiB in a final link, where the objects of callees in other files
    /// first meet the kernel's own (nvlink's error, black-box, sm_75–sm_120, default and
    /// -preserve-relocs; exactly 0xc000 links; testdata shared_over_limit).
    fn check_kernel_shared_size(&mut self, opts: &Options) {
        let reserve = opts.policy.shared_reserve();
        for sec in self.m.sections.iter() {
            let Some(kernel) = sec.name.strip_prefix(b".nv.shared.") else {
                continue;
            };
            if kernel.starts_with(b"reserved.") {
                continue;
            }
            let size = sec.content.size().saturating_sub(reserve);
            if size > KERNEL_SHARED_MAX {
                self.errors.push(format!(
                    "Entry function '{}' uses too much shared data ({size:#x} bytes, \
                     {KERNEL_SHARED_MAX:#x} max)",
                    String::from_utf8_lossy(kernel)
                ));
            }
        }
    }

    fn new(
        objects: &'a [InputObject<'data>],
        res: &'a Resolution<'data>,
        liveness: &'a Liveness,
        opts: &Options,
    ) -> Self {
        Builder {
            p: Placement {
                objects,
                res,
                // (Each object's tables made in parallel: fresh pages, faulted in on both
                // cores.)
                placed: crate::object::par_map(objects, |oi| {
                    vec![None; objects[oi].cubin.sections.len()]
                })
                .into(),
                sym_map: crate::object::par_map(objects, |oi| {
                    vec![None; objects[oi].symbols().len()]
                })
                .into(),
                global_sym: crate::ids::IdVec::filled(None, res.globals.len()),
                live: &liveness.live,
                root_kernels: liveness.kernel_set(),
                launched_by_kernels_only: &liveness.launched_by_kernels_only,
                dead_function: placement::dead_functions(objects, res, &liveness.live),
                undefined_dead_only: &liveness.undefined_dead_only,
                partial: partial_shared::PartialShared::default(),
                shared: shared::SharedLayout::default(),
                literal: literal_banks::LiteralLayout::default(),
                resources: resources::Slots::new(objects, res, opts),
                policy: opts.policy,
                unified: unified::Tables::default(),
                line_rewrites: HashMap::new(),
                reserved_relocs: crate::ids::IdVec::filled(Vec::new(), objects.len()),
                merc_sections: objects
                    .iter()
                    .map(|o| {
                        o.cubin
                            .sections
                            .iter()
                            .enumerate()
                            .filter(|_| opts.policy.mercury())
                            .filter(|(_, s)| crate::elf::names::is_mercury_section(s.name))
                            .map(|(i, s)| (s.name, i))
                            .collect()
                    })
                    .collect(),
                input_names: crate::ids::IdVec::filled(std::sync::OnceLock::new(), objects.len()),
                reserved_smem_base: res
                    .by_name
                    .get(&b".nv.reservedSmem.offset0"[..])
                    .and_then(|&g| res.first_reference(objects, g))
                    .map_or(0, |s| s.value),
            },
            m: Module {
                e_type: opts.policy.e_type(),
                e_flags: 0,
                program_headers: opts.policy.writes_program_headers(),
                mercury: opts.policy.mercury(),
                ..Default::default()
            },
            pending_shared_symbols: HashMap::new(),
            warnings: Vec::new(),
            errors: Vec::new(),
            func_nodes: Vec::new(),
            func_node_seen: crate::ids::IdVec::filled(false, res.globals.len()),
            out_of: crate::object::par_map(objects, |oi| {
                vec![None; objects[oi].cubin.sections.len()]
            })
            .into(),
            named_sections: symbols::NamedSections::of(objects),
            undefined_locals: HashMap::new(),
        }
    }

    /// `.shstrtab`, `.strtab`, `.symtab`: the first sections of every output.
    fn fixed_tables(&mut self) {
        let tables = [
            (&b".shstrtab"[..], SHT_STRTAB, Content::Shstrtab, 1),
            (b".strtab", SHT_STRTAB, Content::Strtab, 1),
            (b".symtab", SHT_SYMTAB, Content::Symtab, 8),
        ];
        for (name, t, c, align) in tables {
            let entsize = if t == SHT_SYMTAB { 24 } else { 0 };
            let link = if t == SHT_SYMTAB {
                Link::Strtab
            } else {
                Link::None
            };
            let info = if t == SHT_SYMTAB {
                Info::FirstGlobal
            } else {
                Info::None
            };
            self.m.named_section(name, || OutSection {
                name: name.to_vec(),
                sh_type: t,
                flags: 0,
                align,
                entsize,
                link,
                info,
                content: c,
                group: Group::Tables,
                section_symbol: None,
            });
        }
    }

    /// Memory laid out before any symbol is made: shared memory (final links; -r leaves
    /// it as the inputs have it: sections merged by name, references kept), functions'
    /// literal banks in their kernels' banks, and -r's extern-shared areas.
    fn plan_memory(&mut self, liveness: &'a Liveness, opts: &Options) -> Result<()> {
        let (objects, res) = (self.p.objects, self.p.res);
        let reserve = opts.policy.shared_reserve();
        if opts.policy.lays_out_shared_memory() {
            self.p.shared = tracing::info_span!("shared").in_scope(|| {
                shared::layout(
                    objects,
                    res,
                    liveness,
                    reserve,
                    opts.policy.debug(),
                    opts.policy.sm(),
                )
            });
        }
        if !opts.policy.relocatable() {
            self.p.literal = literal_banks::layout(objects, liveness)?;
        }
        if !opts.policy.lays_out_shared_memory() {
            // (The live code's shared-memory references, scanned once for the three.)
            let refs = shared::code_refs(objects, res, &self.p.shared.definitions, &liveness.live);
            self.p.partial.uses =
                partial_shared::kernel_uses(&refs, &liveness.kernels, &liveness.edges);
            (
                self.p.partial.extern_align,
                self.p.partial.debug_align,
                self.p.partial.debug_objects,
                self.p.partial.extern_align_of,
            ) = partial_shared::alignments(self, &refs);
            if opts.policy.debug() && !self.p.partial.uses.is_empty() {
                (self.p.partial.debug_value, self.p.partial.debug_start) =
                    partial_shared::debug_offsets(self, &refs);
            }
        }
        Ok(())
    }

    /// Output symbols and sections in nvlink's creation order, per object: debug sections,
    /// then the symbol passes (code, locals, section symbols, globals), then relocation
    /// sections reserved; then the input sections placed, and the symbols finished.
    fn symbols_and_sections(
        &mut self,
        opts: &Options,
        pages: &crate::input::files::Pages<'_>,
    ) -> Result<()> {
        let orders = tracing::info_span!("pass_orders").in_scope(|| {
            let (policy, objects) = (self.p.policy, self.p.objects);
            crate::object::par_map(objects, |oi| {
                symbols::PassOrders::of(
                    &objects[oi],
                    policy.param_banks_after_debug(),
                    policy.relocatable(),
                )
            })
        });
        // (The tables' reserved room is faulted in by the idle core, just ahead of the pass.)
        let rooms = [
            crate::prefault::Room::after(&self.m.sections),
            crate::prefault::Room::after(&self.m.symbols),
        ];
        tracing::info_span!("made").in_scope(|| {
            crate::prefault::while_filling(&rooms, |progress| {
                for oi in crate::object::ids(self.p.objects) {
                    self.debug_sections(oi, &orders[oi.index()]);
                    for pass in [
                        Pass::Code,
                        Pass::Locals,
                        Pass::SectionSymbols,
                        Pass::Globals,
                    ] {
                        self.symbols_pass(oi, pass, &orders[oi.index()]);
                        if pass == Pass::SectionSymbols {
                            self.unified_table_symbols(oi);
                        }
                    }
                    self.reserve_relocation_sections(oi);
                    progress.filled(0, self.m.sections.len());
                    progress.filled(1, self.m.symbols.len());
                }
            })
        });
        self.p.line_rewrites =
            tracing::info_span!("line_tables").in_scope(|| self.line_table_rewrites())?;
        let pending = tracing::info_span!("place").in_scope(|| -> Result<_> {
            // (A copy per kept input section at most: room made once.)
            let kept = self
                .p
                .live
                .iter()
                .map(|l| l.iter().filter(|&&k| k).count())
                .sum();
            let mut pending = sections::Pending::with_room(kept);
            for oi in crate::object::ids(self.p.objects) {
                self.place_sections(oi, &mut pending)?;
            }
            Ok(pending)
        })?;
        tracing::info_span!("copy").in_scope(|| self.copy_placed(pending, pages));
        let _finish = tracing::info_span!("finish").entered();
        self.patch_line_string_bases()?;
        self.clear_removed_reg_sass()?;
        self.finish_symbols();
        if opts.policy.relocatable() {
            self.size_weak_kernel_shared();
            self.align_partial_kernel_shared();
        }
        self.finish_partial_shared();
        Ok(())
    }
}

impl<'a, 'data> Builder<'a, 'data> {
    fn note_function_node(&mut self, oi: ObjectId, i: usize) {
        match self.p.res.sym_global[oi][i] {
            Some(g) => {
                if !std::mem::replace(&mut self.func_node_seen[g], true) {
                    self.func_nodes.push(FuncNode::Global(g));
                }
            }
            None => self.func_nodes.push(FuncNode::Local(oi, i as u32)),
        }
    }

    pub(crate) fn add_graph_section(
        &mut self,
        name: &[u8],
        sh_type: u32,
        align: u64,
        entsize: u64,
        content: Content,
    ) -> OutSec {
        let name_v = name.to_vec();
        self.m.named_section(name, || OutSection {
            name: name_v,
            sh_type,
            flags: 0,
            align,
            entsize,
            link: Link::None,
            info: Info::None,
            content,
            group: Group::Graph,
            section_symbol: None,
        })
    }

    pub(crate) fn section_id(&self, name: &[u8]) -> Option<OutSec> {
        self.m.section_named(name)
    }

    /// Maps an input prototype id (an offset into the object's `.strtab`, where the prototype
    /// string lives) to the output one (the same string's offset in the output `.strtab`).
    pub(crate) fn prototype_id(&mut self, oi: ObjectId, id: u32) -> u32 {
        let p = self.prototype(oi, id);
        self.intern_prototype(p)
    }

    /// What input prototype id `id` of object `oi` stands for (read only: worked out for
    /// many objects in parallel, then interned in input order by `intern_prototype`).
    pub(crate) fn prototype(&self, oi: ObjectId, id: u32) -> Prototype<'data> {
        // 0: no prototype (a kernel's address taken for a launch). sm_100+ writes 0; up to
        // sm_90 it is the empty string's offset among the prototypes, like any other.
        if id == 0 && self.m.mercury {
            return Prototype::None;
        }
        let o = &self.p.objects[oi];
        let strtab_idx = o.cubin.sections[o.symtab_index() as usize].link;
        let Some(st) = o.cubin.section(strtab_idx) else {
            return Prototype::Unnamed(id);
        };
        match crate::elf::read::cstr_at(st.bytes(), id) {
            Some(s) => Prototype::Named(s),
            None => Prototype::Unnamed(id),
        }
    }

    /// The output id of a prototype (its string added to the `.strtab` prefix the first time).
    pub(crate) fn intern_prototype(&mut self, p: Prototype<'_>) -> u32 {
        match p {
            Prototype::None => 0,
            Prototype::Named(s) => self.m.prefix_string(s),
            Prototype::Unnamed(id) => id,
        }
    }

    pub(crate) fn make_section_symbol(&mut self, sec: OutSec) -> OutSym {
        self.section_symbol(sec)
    }

    /// Adds a metadata section, or fills the slot an earlier object reserved under its name.
    pub(crate) fn add_info_section(&mut self, s: OutSection) -> OutSec {
        let hash = self.m.name_hash(&s.name);
        self.add_info_section_hashed(s, hash)
    }

    /// [`Builder::add_info_section`], the name's hash known (`Module::name_hash`).
    pub(crate) fn add_info_section_hashed(&mut self, s: OutSection, hash: u64) -> OutSec {
        let (id, existing) = self.m.add_named_section_hashed(s, hash);
        if let Some(s) = existing {
            let slot = &mut self.m.sections[id];
            slot.content = s.content;
            slot.info = s.info;
        }
        id
    }
}

/// An input prototype id, read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Prototype<'data> {
    /// sm_100+'s 0: none.
    None,
    /// The prototype string.
    Named(&'data [u8]),
    /// An id naming no string of its object: passed on as it is.
    Unnamed(u32),
}

/// A named local symbol no section defines (libcudadevrt's `.nv.ptx.const0.size`).
pub(crate) fn is_undefined_local(s: &crate::elf::read::Symbol<'_>) -> bool {
    s.bind == STB_LOCAL
        && s.section == SymSection::Undefined
        && s.st_type != STT_SECTION
        && !s.name.is_empty()
}
