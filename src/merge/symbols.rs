//! The output symbols and sections in nvlink's creation order. Per object: its debug sections,
//! then four passes over its symbol table (`Pass`: functions with their code sections, local
//! data, section symbols, globals), each kind of symbol by its own function, then the output
//! relocation sections whose targets exist; and at the end, the symbols finished (values,
//! sections). The order here is what fixes the output's section and symbol order.

use super::*;
use crate::ids::ObjectId;

/// The order in which an object's section symbols name output sections: among the leading
/// local symbols (those before the first global), the memory sections' before the others
/// (debug sections) — nvlink's -r output lists a `.debug_frame` before later objects' data,
/// which its final link names after them — and, with `param_banks_last` (sm_90+ final
/// links), the kernels' parameter banks after both; then the rest in table order (sm_90+
/// objects put their parameter banks' after the globals). With it, where in the order a
/// partial link's `.nv_debug.shared` that no symbol names goes (its first variable's place).
fn section_symbol_order(
    o: &InputObject,
    param_banks_last: bool,
    relocatable: bool,
) -> (Vec<usize>, Option<usize>) {
    let syms = o.symbols();
    let lead = syms
        .iter()
        .skip(1)
        .position(|s| s.bind != STB_LOCAL)
        .map_or(syms.len(), |p| p + 1);
    // A final link names a data section where its first variable's symbol is (nvlink's -r
    // output lists .nv.global, .nv.constant3, then a later object's .nv.global.init; finished,
    // they follow their variables: .nv.global, .nv.global.init, .nv.constant3).
    let mut first_variable: HashMap<u32, usize> = HashMap::new();
    if !relocatable {
        for (i, s) in syms.iter().enumerate().skip(1) {
            if let SymSection::Index(si) = s.section {
                if s.st_type != STT_SECTION && s.st_type != STT_FUNC {
                    first_variable.entry(si).or_insert(i);
                }
            }
        }
    }
    let rank = |i: &usize| match syms[*i].section {
        SymSection::Index(si) => {
            let sec = &o.cubin.sections[si as usize];
            let kind = o.kind(sec);
            if param_banks_last && kind == SectionKind::KernelConstant {
                (2, *i)
            } else if sec.flags & SHF_ALLOC == 0 {
                (1, *i)
            } else if syms[*i].st_type == STT_SECTION
                && kind != SectionKind::KernelConstant
                && !is_text(o, sec)
            {
                (0, first_variable.get(&si).copied().unwrap_or(*i))
            } else {
                (0, *i)
            }
        }
        _ => (0, *i),
    };
    let mut order: Vec<usize> = (1..lead).collect();
    // A partial link's `.nv_debug.shared` has no section symbol but holds the extern arrays
    // it defined: it takes its place as if it had one, where its first variable is (made
    // there, before the data sections whose first variables come later: black-box, nvlink
    // -r outputs of up to four files finished, sm_75, sm_90, sm_100; fuzz-equiv seed 120;
    // testdata partial_debug_shared_order). Its first variable stands for it in the list
    // (ranked as a memory section's symbol would be).
    let unnamed_debug_shared = (!relocatable)
        .then(|| unnamed_debug_shared_variable(o, &first_variable))
        .flatten();
    order.extend(unnamed_debug_shared);
    // (Each key made once: making one looks at the section and its kind.)
    order.sort_by_cached_key(rank);
    let at = unnamed_debug_shared.and_then(|v| order.iter().position(|&i| i == v));
    order.extend(lead..syms.len());
    (order, at)
}

/// The first variable of an object's `.nv_debug.shared` that no section symbol names.
fn unnamed_debug_shared_variable(
    o: &InputObject,
    first_variable: &HashMap<u32, usize>,
) -> Option<usize> {
    // (Shared memory is of kind Other: the kinds are scanned, not every header read.)
    let (si, _) = o
        .sections_of(SectionKind::Other)
        .find(|(_, s)| s.name == b".nv_debug.shared")?;
    let si = si as u32;
    let named = o
        .symbols()
        .iter()
        .any(|s| s.st_type == STT_SECTION && s.section == SymSection::Index(si));
    (!named).then(|| first_variable.get(&si).copied()).flatten()
}

impl Pass {
    /// The pass that turns symbol `s` into output symbols and sections.
    fn of(s: &crate::elf::read::Symbol<'_>) -> Pass {
        if s.st_type == STT_FUNC {
            Pass::Code
        } else if s.st_type == STT_SECTION {
            Pass::SectionSymbols
        } else if s.bind == STB_LOCAL {
            Pass::Locals
        } else {
            Pass::Globals
        }
    }
}

/// The sections some input names with a section symbol: only those of the debug sections
/// get one in the output (`Builder::debug_group`), and -r names its `.nv_debug.shared` only
/// where some input does. Gathered once, each object's in parallel.
#[derive(Default)]
pub(crate) struct NamedSections {
    /// Names of sections outside memory (debug sections) some input has a section symbol for.
    pub debug: hashbrown::HashSet<Vec<u8>>,
    /// Some input has a section symbol for its `.nv_debug.shared`.
    pub debug_shared: bool,
}

impl NamedSections {
    pub(crate) fn of(objects: &[InputObject<'_>]) -> NamedSections {
        let per_object = crate::object::par_map(objects, |oi| {
            let o = &objects[oi];
            let mut debug: Vec<&[u8]> = Vec::new();
            let mut debug_shared = false;
            for sym in o.symbols().iter().filter(|x| x.st_type == STT_SECTION) {
                let SymSection::Index(si) = sym.section else {
                    continue;
                };
                let Some(x) = o.cubin.sections.get(si as usize) else {
                    continue;
                };
                if x.flags & SHF_ALLOC == 0 {
                    debug.push(x.name);
                }
                debug_shared |= x.name == b".nv_debug.shared";
            }
            (debug, debug_shared)
        });
        let mut out = NamedSections::default();
        for (debug, debug_shared) in per_object {
            out.debug.extend(debug.into_iter().map(<[u8]>::to_vec));
            out.debug_shared |= debug_shared;
        }
        out
    }
}

/// An object's symbols in the order each [`Pass`] meets them, and its debug sections.
/// Worked out for every object in parallel before the passes, which run on one thread in
/// object order, so that each pass visits only its own symbols and sorts nothing, and
/// reads no section header it has no use for.
pub(super) struct PassOrders {
    symbols: [Vec<u32>; 4],
    /// Its sections merged by name that take no memory (`.debug_*`), in table order.
    debug: Vec<u32>,
    /// Final links: where among the section symbols a partial link's unnamed
    /// `.nv_debug.shared` makes the output's (see `section_symbol_order`).
    debug_shared_at: Option<usize>,
}

impl PassOrders {
    pub(super) fn of(o: &InputObject, param_banks_last: bool, relocatable: bool) -> PassOrders {
        let syms = o.symbols();
        let mut lists: [Vec<u32>; 4] = Default::default();
        for (i, s) in syms.iter().enumerate().skip(1) {
            let pass = Pass::of(s);
            if pass != Pass::SectionSymbols {
                lists[pass as usize].push(i as u32);
            }
        }
        let (order, unnamed_debug_shared) = section_symbol_order(o, param_banks_last, relocatable);
        let mut debug_shared_at = None;
        for (at, i) in order.into_iter().enumerate() {
            let list = &mut lists[Pass::SectionSymbols as usize];
            if unnamed_debug_shared == Some(at) {
                debug_shared_at = Some(list.len());
            } else if Pass::of(&syms[i]) == Pass::SectionSymbols {
                list.push(i as u32);
            }
        }
        let debug = o
            .sections_of(SectionKind::Merged)
            .filter(|(_, s)| s.flags & SHF_ALLOC == 0)
            .map(|(si, _)| si as u32)
            .collect();
        PassOrders {
            symbols: lists,
            debug,
            debug_shared_at,
        }
    }

    fn of_pass(&self, pass: Pass) -> &[u32] {
        &self.symbols[pass as usize]
    }
}

impl Builder<'_, '_> {
    /// An object's debug sections take their places in the output in the object's own order,
    /// empty ones included (nvcc's host-only files have an empty `.debug_frame` first), before
    /// its symbols name any of them; their section symbols come later (`debug_group`).
    pub(super) fn debug_sections(&mut self, oi: ObjectId, orders: &PassOrders) {
        for si in orders.debug.iter().map(|&si| si as usize) {
            if self.p.live[oi][si] {
                self.out_section_for(oi, si);
            }
        }
    }

    /// A kernel that uses shared memory gets its `.nv.shared.<kernel>` right after its code
    /// (under -r: its own, as the input has it).
    pub(super) fn kernel_shared_sections(&mut self, oi: ObjectId, si: usize, out: OutSec) {
        let o = &self.p.objects[oi];
        if let Some(&(size, align)) = self.p.shared.kernel.get(&(oi, si)) {
            let name = [
                b".nv.shared.",
                crate::elf::names::text_tail(o.cubin.sections[si].name),
            ]
            .concat();
            let sh = self.m.named_section(&name.clone(), || OutSection {
                name,
                sh_type: SHT_NOBITS,
                flags: SHF_WRITE | SHF_ALLOC | SHF_INFO_LINK,
                align,
                entsize: 0,
                link: Link::None,
                info: Info::Section(out),
                content: Content::NoBits(size),
                group: Group::Shared,
                section_symbol: None,
            });
            // An empty one (sm_75–sm_89 kernels with only extern arrays) has no section
            // symbol; on sm_100+ neither has one holding only the reserved bytes.
            let reserved_only = if self.m.mercury {
                self.p.shared.reserve
            } else {
                0
            };
            if size > reserved_only {
                self.section_symbol(sh);
            }
            for id in self
                .pending_shared_symbols
                .remove(&(oi, si))
                .unwrap_or_default()
            {
                self.m.symbols[id].section = Some(sh);
            }
        }
        // -r: the kernel's own `.nv.shared.<kernel>`, as the input has it.
        if self.p.policy.relocatable() {
            let name = [
                b".nv.shared.",
                crate::elf::names::text_tail(o.cubin.sections[si].name),
            ]
            .concat();
            let own = self.p.input_section_by_name(oi, &name);
            match own.and_then(|k| Some((k, self.out_section_for(oi, k)?))) {
                Some((k, sh)) => {
                    // (as the input names it: a partial link's callee-only area has none)
                    let named = self.p.objects[oi].symbols().iter().any(|x| {
                        x.st_type == STT_SECTION && x.section == SymSection::Index(k as u32)
                    });
                    if named {
                        self.section_symbol(sh);
                    }
                    let size = self.p.objects[oi].cubin.sections[k].size;
                    let objects = self.p.objects[oi]
                        .symbols()
                        .iter()
                        .filter(|x| {
                            x.section == SymSection::Index(k as u32) && x.st_type != STT_SECTION
                        })
                        .map(|x| x.size)
                        .fold(0u64, u64::saturating_add);
                    self.p
                        .partial
                        .sections
                        .insert((oi, si), (sh, size, objects));
                }
                None => self.partial_kernel_shared((oi, si), out, name),
            }
        }
    }

    /// One pass over an object's symbols (see [`Pass`]), in the order `orders` gives.
    pub(super) fn symbols_pass(&mut self, oi: ObjectId, pass: Pass, orders: &PassOrders) {
        let o = &self.p.objects[oi];
        let mut debug_shared_due = false;
        let mut undefined_locals: Vec<usize> = Vec::new();
        let syms = o.symbols();
        // (The section symbols pass meets the object's memory sections' symbols first; the
        // debug group goes where they end: at the first symbol of a section that is not in
        // memory, past the leading locals, or of a parameter bank that comes after the debug
        // sections.)
        let lead = syms
            .iter()
            .skip(1)
            .position(|s| s.bind != STB_LOCAL)
            .map_or(syms.len(), |p| p + 1);
        let banks_last = self.p.policy.param_banks_after_debug();
        let mut group_done = pass != Pass::SectionSymbols;
        let debug_shared_at = orders
            .debug_shared_at
            .filter(|_| pass == Pass::SectionSymbols);
        for (at, &i) in orders.of_pass(pass).iter().enumerate() {
            let i = i as usize;
            if debug_shared_at == Some(at) {
                self.early_debug_shared(b".nv_debug.shared");
            }
            if !group_done {
                let o = &self.p.objects[oi];
                let boundary = i >= lead
                    || matches!(o.symbols()[i].section, SymSection::Index(si)
                    if o.cubin.sections.get(si as usize).is_some_and(|x| {
                        x.flags & SHF_ALLOC == 0
                            || (banks_last && o.kind(x) == SectionKind::KernelConstant)
                    }));
                if boundary {
                    group_done = true;
                    self.debug_group(oi, orders, &mut debug_shared_due);
                }
            }
            let o = &self.p.objects[oi];
            let syms = o.symbols();
            let s = &syms[i];
            let sec = match s.section {
                SymSection::Index(si) => Some(&o.cubin.sections[si as usize]),
                _ => None,
            };
            let in_text = sec.is_some_and(|x| is_text(o, x));
            if s.st_type == STT_FUNC && self.function_symbol(oi, i, in_text) {
                continue;
            }
            if s.st_type == STT_SECTION {
                if in_text {
                    self.text_section_symbol(oi, i, &mut debug_shared_due);
                } else {
                    self.data_section_symbol(oi, i, &mut debug_shared_due);
                }
                continue;
            }
            if let Some(g) = self.p.res.sym_global[oi][i] {
                self.global_symbol_of(oi, i, g);
                continue;
            }
            if InputObject::is_global(s) {
                continue; // unified placeholders
            }
            if is_undefined_local(s) {
                undefined_locals.push(i);
                continue;
            }
            self.local_symbol(oi, i);
        }
        if debug_shared_at == Some(orders.of_pass(pass).len()) {
            self.early_debug_shared(b".nv_debug.shared");
        }
        if !group_done {
            self.debug_group(oi, orders, &mut debug_shared_due);
        }
        // A partial link keeps an object's undefined locals after its other locals, as
        // objects with the value they resolve to (set by `relocate`): one per name, made with
        // the first object naming it (black-box, sm_75-sm_100: two -G objects' cp.async
        // name `.nv.ptx.const0.size`; testdata ptx_const0_size_r).
        for i in undefined_locals {
            if !self.p.policy.relocatable() {
                break;
            }
            let s = &self.p.objects[oi].symbols()[i];
            if let Some(&id) = self.undefined_locals.get(s.name) {
                self.p.sym_map[oi][i] = Some(id);
                continue;
            }
            let id = self.m.add_symbol(OutSymbol {
                name: s.name.to_vec(),
                value: u64::MAX,
                size: s.size,
                bind: STB_LOCAL,
                st_type: STT_CUDA_OBJECT,
                other: self.lower_other(s.other),
                section: None,
            });
            self.undefined_locals.insert(s.name.to_vec(), id);
            self.p.sym_map[oi][i] = Some(id);
        }
        if debug_shared_due {
            self.due_debug_shared();
        }
    }

    /// At the end of an object's memory sections' symbols (`symbols_pass`): `.nv_debug.shared`
    /// when it is due; under -r, for an object that uses extern shared arrays, the partial
    /// link's `.nv_debug.shared` and its symbol where some input names such a section; then
    /// the section symbols of all its debug sections in header order, whether the object
    /// names them or not, for every debug section some input names (black-box, nvlink 13.5,
    /// sm_75–sm_100, default, -r and -preserve-relocs, plain, -G and -lineinfo objects, a
    /// helper's 1,102 generated links and the programs of testdata/programs: an object of data
    /// alone gives its `[.debug_frame]` after its memory sections' symbols; a debug section no
    /// input names keeps its place but gets no symbol, as a host-only file's empty
    /// `.debug_frame`; testdata debug_symbol_order).
    fn debug_group(&mut self, oi: ObjectId, orders: &PassOrders, debug_shared_due: &mut bool) {
        if *debug_shared_due {
            self.due_debug_shared();
            *debug_shared_due = false;
        }
        if self.p.policy.relocatable()
            && !self.p.partial.uses.is_empty()
            && self.named_sections.debug_shared
            && self.p.objects[oi].symbols().iter().any(|s| {
                s.section == SymSection::Undefined
                    && s.other & STO_CUDA_SHARED != 0
                    && s.st_type != STT_FUNC
            })
        {
            let sec = self.partial_debug_shared();
            self.section_symbol(sec);
        }
        for &si in orders.debug.iter() {
            let si = si as usize;
            if !self.p.live[oi][si]
                || !self
                    .named_sections
                    .debug
                    .contains(self.p.objects[oi].cubin.sections[si].name)
            {
                continue;
            }
            if let Some(out) = self.out_section_for(oi, si) {
                self.section_symbol(out);
            }
        }
    }

    /// Functions create their code sections, in symbol-table order; a local function's
    /// symbol comes before its section's (`true`: the symbol is made).
    pub(super) fn function_symbol(&mut self, oi: ObjectId, i: usize, in_text: bool) -> bool {
        let s = &self.p.objects[oi].symbols()[i];
        self.note_function_node(oi, i);
        // Functions create their code sections, in symbol-table order. A text
        // section whose function lost to a later strong definition still fixes where
        // the winner's code goes.
        if let (SymSection::Index(si), true) = (s.section, in_text) {
            let si = si as usize;
            if self.p.live[oi][si] || self.p.replaced_by_later_definition(oi, si) {
                if let Some(out) = self.out_section_for(oi, si) {
                    if s.bind == STB_LOCAL && self.p.live[oi][si] {
                        // A local function's symbol comes before its section's.
                        let id = self.m.add_symbol(OutSymbol {
                            name: s.name.to_vec(),
                            value: s.value,
                            size: s.size,
                            bind: STB_LOCAL,
                            st_type: STT_FUNC,
                            other: self.lower_other(s.other),
                            section: None,
                        });
                        self.p.sym_map[oi][i] = Some(id);
                        self.section_symbol(out);
                        self.kernel_shared_sections(oi, si, out);
                        return true;
                    }
                    self.section_symbol(out);
                    // (The winner's shared memory comes where its code does.)
                    let (koi, ksi) = self.p.replacing_text(oi, si).unwrap_or((oi, si));
                    self.kernel_shared_sections(koi, ksi, out);
                }
            }
        }
        false
    }

    /// A code section's symbol (also for a function replaced by a later definition).
    pub(super) fn text_section_symbol(
        &mut self,
        oi: ObjectId,
        i: usize,
        debug_shared_due: &mut bool,
    ) {
        let s = &self.p.objects[oi].symbols()[i];
        let SymSection::Index(si) = s.section else {
            return;
        };
        let si = si as usize;
        if self.p.live[oi][si] || self.p.replaced_by_later_definition(oi, si) {
            if let Some(out) = self.out_section_for(oi, si) {
                self.p.sym_map[oi][i] = Some(self.section_symbol(out));
            }
        }
        // -preserve-relocs and -g: a function using extern shared arrays brings the
        // `.nv_debug.shared` that covers the reserved bytes, after the object's other
        // memory sections and before its debug ones; so does one no kernel reaches
        // (black-box, sm_90: its section symbol before the object's `.debug_frame`;
        // testdata uncalled_extern_shared).
        let shared = &self.p.shared;
        if self.p.policy.keeps_internal_symbols()
            && (shared.extern_offset.contains_key(&(oi, si))
                || shared.unreached_extern_users.contains(&(oi, si)))
        {
            *debug_shared_due = true;
        }
    }

    /// A data or metadata section's symbol; the notes' come from the notes made first.
    pub(super) fn data_section_symbol(
        &mut self,
        oi: ObjectId,
        i: usize,
        debug_shared_due: &mut bool,
    ) {
        let o = &self.p.objects[oi];
        let s = &o.symbols()[i];
        let SymSection::Index(si) = s.section else {
            return;
        };
        let si = si as usize;
        let sec = &o.cubin.sections[si];
        // -preserve-relocs: an input's own `[.nv_debug.shared]` names the output's, where the
        // link keeps it, even when the input's section is not kept.
        if sec.name == b".nv_debug.shared"
            && !self.p.policy.relocatable()
            && self.p.policy.keeps_internal_symbols()
        {
            self.named_debug_shared(b".nv_debug.shared");
            return;
        }
        // A final link's `.nv_debug.shared` that the extern arrays in use bring comes with
        // the first input's own, wherever that input's objects go.
        if !self.p.policy.relocatable() {
            self.early_debug_shared(sec.name);
        }
        if !self.p.live[oi][si] {
            if self.replaced_bank(oi, si) {
                if let Some(out) = self.out_section_for(oi, si) {
                    self.section_symbol(out);
                }
            }
            return;
        }
        if *debug_shared_due && sec.flags & SHF_ALLOC == 0 {
            self.due_debug_shared();
            *debug_shared_due = false;
        }
        if matches!(
            o.kind(sec),
            SectionKind::Callgraph | SectionKind::Prototype | SectionKind::Note
        ) {
            if sec.name == b".note.nv.tkinfo" || sec.name == b".note.nv.cuinfo" {
                let id = self
                    .m
                    .section_named(sec.name)
                    .expect("the notes are made first");
                self.p.sym_map[oi][i] = self.m.sections[id].section_symbol;
            }
            return;
        }
        // (-r: the unified tables' section symbols come before the parameter banks'.)
        if o.kind(sec) == SectionKind::KernelConstant {
            self.unified_table_symbols(oi);
        }
        if let Some(out) = self.out_section_for(oi, si) {
            self.p.sym_map[oi][i] = Some(self.section_symbol(out));
        }
    }

    /// A global's symbol, unless the link removed it or lays it out (shared memory).
    pub(super) fn global_symbol_of(&mut self, oi: ObjectId, i: usize, g: GlobalId) {
        // Functions this link removed (unreachable, or only a losing copy) lose their
        // symbol too.
        if self.p.is_dead_function(g) {
            return;
        }
        // Shared memory objects and extern shared arrays are laid out by the link
        // and leave no symbol behind; extern arrays in use leave an empty
        // `.nv_debug.shared` (aligned as they are), also those only removed code uses.
        let kind = if self.p.policy.relocatable() {
            None
        } else {
            self.p
                .shared
                .definitions
                .classify(self.p.objects, self.p.res, oi, i as u32)
        };
        let dead_only = !self.p.policy.relocatable() && self.p.undefined_dead_only.contains(&g);
        if dead_only && kind != Some(shared::SharedRef::Extern) {
            return;
        }
        match kind {
            Some(shared::SharedRef::Extern) => {
                // (none when nvlink's pool of functions' objects asks for more than
                // 16-byte alignment, in a link that drops them)
                let dropped =
                    self.p.shared.pool_align > 16 && !self.p.policy.keeps_internal_symbols();
                if self.p.shared.extern_align > 0 && !dropped {
                    // -preserve-relocs (and sm_100+) size it to cover the reserved
                    // bytes.
                    let size = if self.p.policy.keeps_internal_symbols() || self.m.mercury {
                        self.p.shared.reserve
                    } else {
                        0
                    };
                    // (The arrays align it to 16 at most, as nvlink's.)
                    let sec = self.debug_shared_section(self.extern_debug_align(), size);
                    // -g defines each array there for the debugger, at the largest
                    // offset a kernel sees it at; so does -preserve-relocs on sm_90 when
                    // a function no kernel calls has static objects (`arrays_beside_pool`).
                    if self.p.policy.debug() {
                        self.p.sym_map[oi][i] = self.debug_extern_symbol(g, sec);
                    } else if self.arrays_beside_pool() {
                        self.p.sym_map[oi][i] = Some(self.pool_extern_symbol(g, sec));
                    }
                }
                return;
            }
            Some(shared::SharedRef::Object(k)) => {
                // -preserve-relocs keeps file-scope ones, local but listed in place.
                if self.p.policy.keeps_internal_symbols() && k == (oi, i as u32) {
                    self.p.sym_map[oi][i] = self.preserved_shared_symbol(k);
                    // (One in no kernel's section keeps its binding, and its place.)
                    if let Some(id) = self.p.sym_map[oi][i] {
                        if self.m.symbols[id].bind == STB_LOCAL {
                            self.m.locals_listed_as_global.insert(id);
                        }
                    }
                }
                return;
            }
            None => {}
        }
        self.p.sym_map[oi][i] = Some(self.global_symbol(g));
    }

    /// Local data symbols: each brings its section's symbol along (even one that is itself
    /// left out, like sm_75's `_param`).
    pub(super) fn local_symbol(&mut self, oi: ObjectId, i: usize) {
        let o = &self.p.objects[oi];
        let s = &o.symbols()[i];
        let SymSection::Index(si) = s.section else {
            return;
        };
        let sec = &o.cubin.sections[si as usize];
        let shared = self.p.policy.lays_out_shared_memory()
            && (sec.sh_type == SHT_CUDA_SHARED || sec.name.starts_with(b".nv.shared."));
        // Static shared memory locals are laid out per kernel and not emitted, except under
        // -preserve-relocs, which keeps them at their laid-out offsets for its records.
        if shared && self.p.policy.keeps_internal_symbols() {
            self.p.sym_map[oi][i] = self.preserved_shared_symbol((oi, i as u32));
        } else if shared && s.st_type != STT_SECTION {
            self.early_debug_shared(sec.name);
        }
        let replaced = self.replaced_bank(oi, si as usize);
        if !self.p.live[oi][si as usize] && !replaced {
            if !shared {
                self.losing_copy_local(oi, i);
            }
            return;
        }
        let Some(out) = self.out_section_for(oi, si as usize) else {
            return;
        };
        self.section_symbol(out);
        if shared {
            return;
        }
        if s.other & 3 == 1 && !self.p.policy.preserve_relocs() && !self.p.policy.relocatable() {
            return; // STV_INTERNAL locals (`_param`, `_SREG`) do not reach the output
        }
        self.copy_local(oi, i, replaced.then_some(out));
    }

    /// A kernel's parameter bank whose kernel a later copy replaced (a weak kernel with
    /// fewer registers): like its code, the winner's bank and its symbol go where this first
    /// copy had them, and this copy's `_param` stays under -r (black-box, sm_75-sm_100,
    /// testdata weak_fewer_registers).
    fn replaced_bank(&self, oi: ObjectId, si: usize) -> bool {
        let o = &self.p.objects[oi];
        !self.p.live[oi][si]
            && o.cubin.sections.get(si).is_some_and(|sec| {
                o.kind(sec) == SectionKind::KernelConstant
                    && self.p.replaced_by_later_definition(oi, sec.info as usize)
            })
    }

    /// Makes input local `i` of object `oi` an output local, at its own value, in `section`
    /// (`None`: given by `finish_symbols` once the input's section is placed).
    fn copy_local(&mut self, oi: ObjectId, i: usize, section: Option<OutSec>) {
        let s = &self.p.objects[oi].symbols()[i];
        let id = self.m.add_symbol(OutSymbol {
            name: s.name.to_vec(),
            value: s.value,
            size: s.size,
            bind: STB_LOCAL,
            st_type: self.lower_symbol_type(s.st_type),
            other: self.lower_other(s.other),
            section,
        });
        self.p.sym_map[oi][i] = Some(id);
    }

    /// -r and -preserve-relocs: a local of a section the link drops because another object's
    /// copy of it won (a template kernel's `_param` in its `.nv.constant0.<kernel>`) stays, in
    /// the winner's section of that name at its own value, where this object's locals are
    /// listed, as nvlink keeps it (testdata shared_weak_copies).
    fn losing_copy_local(&mut self, oi: ObjectId, i: usize) {
        if !self.p.policy.relocatable() && !self.p.policy.preserve_relocs() {
            return;
        }
        let o = &self.p.objects[oi];
        let s = &o.symbols()[i];
        let SymSection::Index(si) = s.section else {
            return;
        };
        // (The winner came first, so its section is made; a copy that lost to a later
        // strong definition has none yet and keeps nothing.)
        let Some(out) = self.m.section_named(o.cubin.sections[si as usize].name) else {
            return;
        };
        self.copy_local(oi, i, Some(out));
    }

    /// Gives defined symbols their output section and rebased value. (What each object's
    /// symbols get is read in parallel, and given in input order: a large link's symbols are
    /// hundreds of thousands, each read with its section header from cold memory.)
    pub(super) fn finish_symbols(&mut self) {
        let p = &self.p;
        let per_object = crate::object::par_map(p.objects, |oi| finished_symbols(p, oi));
        for (oi, finished) in per_object.into_iter().enumerate() {
            let oi = ObjectId::from_index(oi);
            for f in finished {
                match f {
                    Finished::Placed {
                        out,
                        sec,
                        value,
                        text,
                    } => {
                        let sym = &mut self.m.symbols[out];
                        sym.section = Some(sec);
                        sym.value = value;
                        if let Some(top) = text {
                            self.m.sections[sec].info = Info::Symbol(out, top);
                        }
                    }
                    Finished::ReservedShared {
                        out,
                        sym: i,
                        input_size,
                        sec,
                    } => self.finish_reserved_shared(oi, i, input_size, out, sec),
                }
            }
        }
    }

    /// Reserved shared memory (sm_110): its objects are allocated like commons, the value
    /// giving the alignment, after the module's reserved shared bytes
    /// (`.nv.reservedSmem.offset0`); one section holds them all. (-r keeps them as they are,
    /// overlaid.)
    fn finish_reserved_shared(
        &mut self,
        oi: ObjectId,
        i: usize,
        input_size: u64,
        out: OutSym,
        p: OutSec,
    ) {
        let s = &self.p.objects[oi].symbols()[i];
        let value = if self.p.policy.relocatable() {
            s.value
        } else {
            align_up(self.p.reserved_smem_base, s.value.max(1))
        };
        if let Content::NoBits(n) = &mut self.m.sections[p].content {
            *n = (*n).max(if self.p.policy.relocatable() {
                input_size
            } else {
                value + s.size
            });
        }
        let sym = &mut self.m.symbols[out];
        sym.section = Some(p);
        sym.value = value;
    }

    /// Creates (empty) the output relocation sections of an object's relocation sections whose
    /// target section exists already: nvlink creates them as it finishes each object, which
    /// fixes their order. Sections that end up with no entries are not written.
    pub(super) fn reserve_relocation_sections(&mut self, oi: ObjectId) {
        let o = &self.p.objects[oi];
        let mut reserved = Vec::new();
        for (si, s) in o.sections_of(SectionKind::Reloc) {
            // (A copy of code a later definition replaced names the winner's relocation
            // sections where it had its own, as its code section: testdata
            // weak_kernel_shared.)
            let replaced =
                !self.p.live[oi][si] && self.p.replaced_by_later_definition(oi, s.info as usize);
            if !self.p.live[oi][si] && !replaced {
                continue;
            }
            let Some(t) = o.cubin.sections.get(s.info as usize) else {
                continue;
            };
            // (The target is usually code this object's passes just made or found: its
            // section is remembered, not looked up by name again.)
            let known = self.known_out_section(oi, s.info as usize).flatten();
            let Some(target) = known.or_else(|| self.m.section_named(t.name)) else {
                continue;
            };
            let (name, sh_type) = (s.name, s.sh_type);
            let tname = t.name;
            // (Most are met again, in later objects: the name is copied only when made.)
            let kept = self.m.named_section(name, || {
                crate::output::reloc_section(name.to_vec(), sh_type, target, Vec::new())
            });
            let recorded = self.p.policy.preserve_relocs().then(|| {
                // (One per name: the records of local functions' copies share their first
                // copy's, as in nvlink.)
                let rname = [b".nv.resolvedrela", local_names::real_name(tname)].concat();
                self.m.named_section(&rname, || {
                    crate::output::reloc_section(
                        rname.clone(),
                        SHT_CUDA_RESOLVED_RELA,
                        target,
                        Vec::new(),
                    )
                })
            });
            if !replaced {
                reserved.push(placement::ReservedRelocs {
                    input: si as u32,
                    kept,
                    recorded,
                });
            }
        }
        self.p.reserved_relocs[oi] = reserved;
    }
}

/// What `finish_symbols` gives one output symbol.
enum Finished {
    /// Its section and value; for a function's symbol, its code section's sh_info (the
    /// symbol, and the top byte the input's had).
    Placed {
        out: OutSym,
        sec: OutSec,
        value: u64,
        text: Option<u8>,
    },
    /// A reserved shared memory object (input symbol `sym`, in an input section of
    /// `input_size` bytes), allocated in order.
    ReservedShared {
        out: OutSym,
        sym: usize,
        input_size: u64,
        sec: OutSec,
    },
}

/// What object `oi`'s defined symbols give their output symbols, in symbol order.
fn finished_symbols(p: &placement::Placement<'_, '_>, oi: ObjectId) -> Vec<Finished> {
    let o = &p.objects[oi];
    let mut out = Vec::new();
    for (i, s) in o.symbols().iter().enumerate().skip(1) {
        let Some(sym) = p.sym_map[oi][i] else {
            continue;
        };
        if s.st_type == STT_SECTION {
            continue;
        }
        let SymSection::Index(si) = s.section else {
            continue;
        };
        if p.res.sym_global[oi][i].is_some() && !p.res.is_winner(oi, i as u32) {
            continue;
        }
        let Some(placed) = p.placed[oi][si as usize] else {
            continue;
        };
        let sec = &o.cubin.sections[si as usize];
        if sec.sh_type == SHT_CUDA_RESERVED_SHARED {
            out.push(Finished::ReservedShared {
                out: sym,
                sym: i,
                input_size: sec.size,
                sec: placed.sec,
            });
            continue;
        }
        // -r: a shared object's value is its alignment, as ptxas -c writes it, wherever
        // its section goes (a weak kernel's losing copy's, after the winner's: black-box,
        // sm_75 and sm_90; testdata weak_kernel_shared).
        let alignment_valued = p.policy.relocatable()
            && sec.sh_type == crate::elf::SHT_CUDA_SHARED
            && sec.name.starts_with(b".nv.shared.");
        out.push(Finished::Placed {
            out: sym,
            sec: placed.sec,
            value: s.value + if alignment_valued { 0 } else { placed.offset },
            text: (s.st_type == STT_FUNC && is_text(o, sec)).then_some((sec.info >> 24) as u8),
        });
    }
    out
}
