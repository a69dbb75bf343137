//! The merge's record of what it decided about the inputs, read by the passes after it.

use super::{line_tables, literal_banks, partial_shared, resources, shared, unified, FuncNode};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::GlobalId;
use crate::ids::IdVec;
use crate::ids::ObjectId;
use crate::object::InputObject;
use crate::output::{OutSec, OutSym};
use crate::resolve::Resolution;
use hashbrown::{HashMap, HashSet};

/// Where an input section went.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placed {
    pub(crate) sec: OutSec,
    pub(crate) offset: u64,
}

/// What the merge decided about the inputs: where each input section went and what each
/// input symbol became, the memory plans, and the mode flags. The merge fills it; the passes
/// after it (relocation, the Mercury half) only read it.
pub(crate) struct Placement<'a, 'data> {
    pub(crate) objects: &'a [InputObject<'data>],
    pub(crate) res: &'a Resolution<'data>,
    /// Per object, per input section: where it went.
    pub(crate) placed: IdVec<ObjectId, Vec<Option<Placed>>>,
    /// Per object, per input symbol: what it became.
    pub(crate) sym_map: IdVec<ObjectId, Vec<Option<OutSym>>>,
    /// Output symbol of each global.
    pub(crate) global_sym: crate::ids::IdVec<GlobalId, Option<OutSym>>,
    /// Per object, per input section: is it kept (`liveness`).
    pub(crate) live: &'a IdVec<ObjectId, Vec<bool>>,
    /// The kernels the link is for (`Liveness::kernels`: those -kernels-used names and host
    /// code launches, and the kernels their code launches), by text section; -preserve-relocs
    /// keeps the others as plain functions.
    pub(crate) root_kernels: &'a hashbrown::HashSet<crate::liveness::Node>,
    /// Those only other kernels launch (`Liveness::launched_by_kernels_only`).
    pub(crate) launched_by_kernels_only: &'a hashbrown::HashSet<crate::liveness::Node>,
    /// Per global: a function whose definition this link does not keep (`dead_functions`).
    pub(crate) dead_function: IdVec<GlobalId, bool>,
    /// -r: the kernels' extern-shared areas (`partial_shared`).
    pub(crate) partial: partial_shared::PartialShared,
    /// Undefined globals only removed code refers to (left out of the symbol table).
    pub(crate) undefined_dead_only: &'a hashbrown::HashSet<GlobalId>,
    /// Shared memory offsets and per-kernel sizes.
    pub(crate) shared: shared::SharedLayout,
    /// Functions' literal banks in their kernels' banks (final links).
    pub(crate) literal: literal_banks::LiteralLayout,
    /// Texture/surface slots in the kernels' parameter banks (`resources`).
    pub(crate) resources: resources::Slots,
    /// The mode and target, and the rules that follow from them.
    pub(crate) policy: crate::policy::Policy,
    /// sm_100+: per object, its Mercury sections by name.
    pub(crate) merc_sections: IdVec<ObjectId, HashMap<&'data [u8], usize>>,
    /// Where sm_110's reserved shared objects start: the value of the undefined
    /// `.nv.reservedSmem.offset0`.
    pub(crate) reserved_smem_base: u64,
    /// Per object, its sections by name (built on first use, see `input_section_by_name`).
    pub(crate) input_names: IdVec<ObjectId, std::sync::OnceLock<HashMap<&'data [u8], usize>>>,
    /// -r: the unified function/data tables (`unified`).
    pub(crate) unified: unified::Tables,
    /// sm_100+: line tables as the output holds them, by (object, section) (`line_tables`).
    pub(crate) line_rewrites: HashMap<(ObjectId, usize), line_tables::Rewrite>,
    /// Per object, the output relocation sections the creation pass made or found for its
    /// input ones, by input section (ascending): relocation asks for one per input section
    /// whose relocations stay, and hashing their long names again was most of that.
    pub(crate) reserved_relocs: IdVec<ObjectId, Vec<ReservedRelocs>>,
}

/// The output sections one input relocation section's entries go to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReservedRelocs {
    /// The input relocation section's index.
    pub(crate) input: u32,
    /// The output relocation section of its name, and -preserve-relocs'
    /// `.nv.resolvedrela<target>`.
    pub(crate) kept: OutSec,
    pub(crate) recorded: Option<OutSec>,
}

/// Per global: whether it is a function whose definition the link does not keep. Worked out
/// once, in parallel: asked for every mention of a global, the answer was a walk from the
/// global to its defining object's symbol and section, through tables spread over memory.
pub(crate) fn dead_functions(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    live: &IdVec<ObjectId, Vec<bool>>,
) -> IdVec<GlobalId, bool> {
    use rayon::prelude::*;
    let dead: Vec<bool> = res
        .globals
        .par_iter()
        .map(|g| {
            let Some(d) = g.def else {
                return false;
            };
            let s = &objects[d.obj].symbols()[d.sym as usize];
            match s.section {
                SymSection::Index(si) if s.st_type == STT_FUNC => !live[d.obj][si as usize],
                _ => false,
            }
        })
        .collect();
    dead.into()
}

impl<'a, 'data> Placement<'a, 'data> {
    /// The output relocation sections the creation pass reserved for input relocation
    /// section `si` of object `oi`, if it did.
    pub(crate) fn reserved_relocs(&self, oi: ObjectId, si: u32) -> Option<ReservedRelocs> {
        let r = &self.reserved_relocs[oi];
        r.binary_search_by_key(&si, |x| x.input).ok().map(|i| r[i])
    }

    /// True when the function in text section `si` of object `oi` lost to a later definition
    /// (strong, or weak with fewer registers) that the link keeps, having won until then (nvlink then keeps this object's section slot
    /// and references; when the winner is removed as dead code, the slot goes too).
    pub(crate) fn replaced_by_later_definition(&self, oi: ObjectId, si: usize) -> bool {
        let o = &self.objects[oi];
        let Some(f) = o.cubin.sections.get(si).and_then(|s| o.text_function(s)) else {
            return false;
        };
        let Some(g) = self.res.sym_global[oi][f as usize] else {
            return false;
        };
        self.res.displaced.contains(&(oi, f)) && !self.is_dead_function(g)
    }

    /// For text section `si` of object `oi` that a later definition replaced
    /// (`replaced_by_later_definition`): the winner's text section.
    pub(crate) fn replacing_text(&self, oi: ObjectId, si: usize) -> Option<(ObjectId, usize)> {
        if !self.replaced_by_later_definition(oi, si) {
            return None;
        }
        self.res.kept_text(self.objects, oi, si)
    }

    /// The output symbol of a call-graph node, if the function is kept.
    pub(crate) fn node_symbol(&self, n: FuncNode) -> Option<OutSym> {
        match n {
            FuncNode::Global(g) => self.global_sym[g],
            FuncNode::Local(oi, i) => self.out_sym(oi, i),
        }
    }

    /// A global function whose definition this link does not keep.
    pub(crate) fn is_dead_function(&self, g: GlobalId) -> bool {
        self.dead_function[g]
    }

    pub(crate) fn out_sym(&self, oi: ObjectId, sym: u32) -> Option<OutSym> {
        self.sym_map[oi].get(sym as usize).copied().flatten()
    }

    /// Whether an UNUSED_CLEAR relocation against symbol `isym` (index `sym` of object `oi`)
    /// clears its field (the address range of a `.debug_frame` entry, in either half): the
    /// function was removed, and this is not a weak copy discarded for an earlier object's
    /// definition. Such a copy keeps its range even when the definition that won is itself
    /// removed (nvlink 13.5, every SM: testdata weak_dead_copy_frame).
    pub(crate) fn clears_unused_field(&self, oi: ObjectId, sym: u32, isym: &Symbol<'_>) -> bool {
        !self.discarded_copy(oi, sym, isym.section != SymSection::Undefined)
            && self.removed_function(oi, sym, isym.st_type == STT_FUNC)
    }

    /// Whether the function an input symbol names was removed by this link (unreachable, or
    /// a local function not kept).
    pub(crate) fn removed_function(&self, oi: ObjectId, sym: u32, is_func: bool) -> bool {
        self.res
            .global_of(oi, sym)
            .is_some_and(|g| self.is_dead_function(g))
            || (is_func && self.out_sym(oi, sym).is_none())
    }

    /// Whether an input symbol defined in object `oi` is a copy the link discards: another
    /// definition had won when its object came (black-box, sm_75: of weak copies before a
    /// later strong definition or one with fewer registers, nvlink keeps the `.debug_frame`
    /// references of those that won for a while, not of those that never did; testdata
    /// weak_fewer_registers).
    ///
    /// Below sm_100 a copy that won for a while is discarded too where its code has RELA
    /// relocations (black-box, sm_90: a weak function reading a `__device__` array, a weak
    /// kernel using its shared memory, lose their `.debug_frame` references, which copies
    /// without relocations or with REL ones keep; sm_75 and sm_89 keep them with REL ones;
    /// sm_100+ rewrites the frames as for a strong winner, docs/differences.md; testdata
    /// weak_kernel_shared, fuzz-equiv weak_regs seed 4).
    pub(crate) fn discarded_copy(&self, oi: ObjectId, sym: u32, defined_here: bool) -> bool {
        defined_here
            && self
                .res
                .global_of(oi, sym)
                .is_some_and(|g| self.res.globals[g].def.is_some_and(|d| d.obj != oi))
            && (!self.res.displaced.contains(&(oi, sym)) || self.displaced_with_rela(oi, sym))
    }

    fn displaced_with_rela(&self, oi: ObjectId, sym: u32) -> bool {
        let o = &self.objects[oi];
        let Some(SymSection::Index(text)) = o.symbols().get(sym as usize).map(|f| f.section) else {
            return false;
        };
        self.policy.sm() < 100
            && o.sections_of(crate::object::SectionKind::Reloc)
                .any(|(_, r)| r.sh_type == crate::elf::SHT_RELA && r.info == text)
    }

    pub(crate) fn placed_text(&self, oi: ObjectId, si: u32) -> Option<OutSec> {
        self.placed[oi]
            .get(si as usize)
            .copied()
            .flatten()
            .map(|p| p.sec)
    }

    /// The extents of the weak data objects in section `si` of object `oi` that this link
    /// discarded for another object's copy.
    pub(crate) fn discarded_weak_data(&self, oi: ObjectId, si: usize) -> Vec<(u64, u64)> {
        self.objects[oi]
            .symbols()
            .iter()
            .enumerate()
            .filter(|(i, x)| {
                x.section == SymSection::Index(si as u32)
                    && x.bind == STB_WEAK
                    && x.st_type != STT_FUNC
                    && x.size > 0
                    && !self.res.is_winner(oi, *i as u32)
            })
            .map(|(_, x)| (x.value, x.value + x.size))
            .collect()
    }

    /// Where each output symbol is defined among the inputs: (object, section), in input order.
    /// The rank of each of `syms` by where its symbol first appears among the inputs
    /// (object order, then symbol-table order; undefined references count).
    pub(crate) fn first_appearance(
        &self,
        syms: impl Iterator<Item = OutSym>,
    ) -> HashMap<OutSym, usize> {
        let wanted: HashSet<OutSym> = syms.collect();
        let mut out = HashMap::new();
        if wanted.is_empty() {
            return out;
        }
        for sym in self.sym_map.iter().flatten().flatten() {
            if wanted.contains(sym) && !out.contains_key(sym) {
                out.insert(*sym, out.len());
                if out.len() == wanted.len() {
                    break;
                }
            }
        }
        out
    }

    pub(crate) fn objects(&self) -> &'a [InputObject<'data>] {
        self.objects
    }

    pub(crate) fn is_live(&self, oi: ObjectId, si: usize) -> bool {
        self.live[oi][si]
    }

    /// An object's section of this name (`-r`'s `.nv.shared.<kernel>`, the Mercury sections'
    /// main twins): the per-object index is built on first use.
    pub(crate) fn input_section_by_name(&self, oi: ObjectId, name: &[u8]) -> Option<usize> {
        let objects = self.objects;
        self.input_names[oi]
            .get_or_init(|| {
                objects[oi]
                    .cubin
                    .sections
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.name, i))
                    .collect()
            })
            .get(name)
            .copied()
    }

    /// An object's Mercury section of this name (sm_100+).
    pub(crate) fn merc_section(&self, oi: ObjectId, name: &[u8]) -> Option<&'a Section<'data>> {
        let &i = self.merc_sections.get(oi)?.get(name)?;
        self.objects[oi].cubin.sections.get(i)
    }

    /// -r: a weak definition (C++17's `inline __constant__`, a template's static member)
    /// may lose to another object's in the final link, so references to it stay for that
    /// link, as nvlink keeps them, in both halves (black-box, sm_75-sm_120: testdata
    /// weak_constant_r).
    pub(crate) fn weak_kept_for_final_link(&self, oi: ObjectId, sym: u32) -> bool {
        self.policy.relocatable()
            && self
                .res
                .definition(oi, sym)
                .is_some_and(|(d, ds)| self.objects[d].symbols()[ds as usize].bind == STB_WEAK)
    }

    /// The constant bank (3 for `__constant__` data) a symbol lives in, following resolution;
    /// `None` outside the user banks.
    pub(crate) fn constant_bank(&self, oi: ObjectId, sym: u32) -> Option<u32> {
        if let Some(known) = self.shared.definitions.constant_bank(self.res, oi, sym) {
            return known;
        }
        let (o, s) = self.res.definition(oi, sym)?;
        shared::definition_bank(self.objects, o, s)
    }

    /// -preserve-relocs: the symbol of a static shared object, an internal local at its
    /// laid-out offset in the `.nv.shared.<kernel>` of the one kernel that uses it directly,
    /// or else in `.nv_debug.shared` (which then spans every such object). None for objects
    /// no kernel reaches.
    /// Where a reference to shared memory (`sr`, symbol `sym` of object `oi`) points, from
    /// the code of text section `text`, or from debug information (`None`).
    pub(crate) fn shared_value(
        &self,
        oi: ObjectId,
        text: Option<usize>,
        sym: u32,
        sr: shared::SharedRef,
    ) -> Option<u64> {
        let array = || {
            let g = self.res.global_of(oi, sym)?;
            self.shared.extern_symbol_offset.get(&g).copied()
        };
        match (sr, text) {
            (shared::SharedRef::Object(k), _) => self.shared.offset.get(&k).copied(),
            // -g gives each extern array one offset, for the debugger.
            (shared::SharedRef::Extern, _) if self.policy.debug() => array(),
            // Code no kernel reaches (-preserve-relocs keeps it) has no kernel's extern area,
            // and debug information cannot name one: nvlink writes -1 (plus the addend, which
            // holds sm_90's reserve) for both (black-box, sm_75–sm_100: an uncalled
            // function's `dyn[5]` is `[0x13]`).
            (shared::SharedRef::Extern, Some(t)) => Some(
                self.shared
                    .extern_offset
                    .get(&(oi, t))
                    .copied()
                    .unwrap_or(u64::MAX),
            ),
            (shared::SharedRef::Extern, None) => Some(u64::MAX),
        }
    }
}
