//! `-r` and shared memory, as nvlink's partial link writes it (observed on sm_75, sm_90,
//! sm_100 and sm_120, which agree; testdata extern_shared_r, extern_shared_r_pad).
//!
//! Let A be the alignment of the extern `__shared__` arrays the code uses (at least 16) and D
//! that of the output's `.nv_debug.shared` (the largest of A and of the inputs'
//! `.nv_debug.shared`, which hold device functions' static objects):
//! - the arrays are defined in `.nv_debug.shared`, at value A; it is at least A-aligned and
//!   follows the rule of kernels below: M bytes of the inputs' objects become D + (their
//!   sizes added up) when M <= D (D bytes when there are none);
//! - each kernel whose own code refers to an extern array gets an `externsharedinstance`
//!   symbol (WEAK, undefined, INTERNAL|SHARED) whose value is where its extern area starts,
//!   x = `max(alignA'(static), A')` with A' the alignment of the arrays its own code uses and
//!   static its objects' sizes added up, and its own references are retargeted to it (device
//!   functions keep the array's name); its `.nv.shared.<k>` is y = alignD(x) bytes, or 2D
//!   when y <= D;
//! - every other kernel's own `.nv.shared.<k>` of S input bytes is D + (the sizes of its
//!   objects) bytes when S <= D, else S (with or without extern arrays: a function's
//!   `__align__(64)` object makes a kernel's 64 bytes 128);
//! - a kernel without static objects that reaches the arrays only through callees, or not at
//!   all, gets a 16-byte `.nv.shared.<k>` when D is 16, and none otherwise;
//! - every kernel's `.nv.shared.<k>` is at least D-aligned (16 with extern arrays).
//!
//! `-r -g` differs (black-box, sm_75–sm_120: [`debug_offsets`]): no instance symbols (the
//! kernels keep the arrays' names), and an array's value is where the debugger finds it.

use super::{shared, Builder};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::ids::ObjectId;
use crate::output::align_up;
use crate::output::*;
use hashbrown::{HashMap, HashSet};

type Node = (ObjectId, usize);

/// -r with extern shared arrays: what the partial link knows of each kernel's area.
#[derive(Default)]
pub(crate) struct PartialShared {
    /// How each kernel uses the arrays.
    pub uses: HashMap<(ObjectId, usize), Use>,
    /// Each kernel's `.nv.shared.<k>`, with its input size and the sizes of its objects
    /// added up.
    pub sections: HashMap<(ObjectId, usize), (OutSec, u64, u64)>,
    /// The alignment of the extern arrays (at least 16; 0 when none is used) and that of
    /// the output's `.nv_debug.shared` (0 when there is none), with the size of the objects
    /// it holds.
    pub extern_align: u64,
    pub debug_align: u64,
    pub debug_objects: u64,
    pub extern_align_of: HashMap<(ObjectId, usize), u64>,
    /// Each kernel's instance symbol.
    pub instances: HashMap<(ObjectId, usize), OutSym>,
    /// `-r -g` (no instance symbols): per extern array, its value, and per kernel whose own
    /// code refers to arrays, where they start in it (see [`debug_offsets`]).
    pub debug_value: HashMap<crate::ids::GlobalId, u64>,
    pub debug_start: HashMap<(ObjectId, usize), u64>,
}

/// How a kernel uses extern shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// Its own code refers to an extern array.
    Direct,
    /// Only functions it calls do.
    ThroughCallees,
    /// Neither (other kernels of the module do).
    Unused,
}

/// Which kernels (by text section) use extern arrays, and how: one walk up the code graph
/// from the functions that refer to them, which stops at kernels (a kernel another launches
/// keeps its own), so every kernel is answered at once, in time linear in the graph.
pub(crate) fn kernel_uses(
    refs: &shared::CodeRefs,
    kernels: &[Node],
    edges: &crate::liveness::CodeEdges,
) -> HashMap<Node, Use> {
    let direct = &refs.extern_users;
    if direct.is_empty() {
        return HashMap::new();
    }
    let is_kernel: HashSet<Node> = kernels.iter().copied().collect();
    let mut callers: HashMap<Node, Vec<Node>> = HashMap::new();
    for (from, to) in edges.pairs().filter(|(from, to)| from != to) {
        callers.entry(to).or_default().push(from);
    }
    // Functions (not kernels) that refer to the arrays or reach one that does; a kernel
    // reaching one of them uses the arrays through its callees.
    let mut through: HashSet<Node> = HashSet::new();
    let mut reaching: HashSet<Node> = HashSet::new();
    let mut stack: Vec<Node> = direct
        .iter()
        .copied()
        .filter(|n| !is_kernel.contains(n))
        .collect();
    reaching.extend(stack.iter().copied());
    while let Some(n) = stack.pop() {
        for &caller in callers.get(&n).into_iter().flatten() {
            if is_kernel.contains(&caller) {
                through.insert(caller);
            } else if reaching.insert(caller) {
                stack.push(caller);
            }
        }
    }
    kernels
        .iter()
        .map(|&k| {
            let how = if direct.contains(&k) {
                Use::Direct
            } else if through.contains(&k) {
                Use::ThroughCallees
            } else {
                Use::Unused
            };
            (k, how)
        })
        .collect()
}

/// A and D (see the module's notes): the extern arrays' alignment (0 when none is used) and
/// the output `.nv_debug.shared`'s (0 when there is none); and M, the sizes of its objects
/// added up. Its objects are the link's, not the inputs': a weak object (a template's, in
/// every object that instantiates it) counts once, as the copy that won; locals each count.
/// Each input object's value is its alignment, and D is the largest (an input section's
/// own alignment, which a losing copy may have raised, does not count; testdata
/// shared_weak_copies).
pub(crate) fn alignments(
    b: &Builder<'_, '_>,
    refs: &shared::CodeRefs,
) -> (u64, u64, u64, HashMap<Node, u64>) {
    let (extern_align, of) = if b.p.partial.uses.is_empty() {
        (0, HashMap::new())
    } else {
        // (A kernel's own A' is that of the array its first relocation to one names, as in
        // a final link: shared::kernel_extern_align; testdata extern_arrays_first_named.)
        (refs.extern_align.max(16), refs.first_align_of.clone())
    };
    let (mut debug, mut objects) = (0u64, 0u64);
    for (oi, o) in crate::object::enumerated(b.p.objects()) {
        for (i, x) in o.symbols().iter().enumerate() {
            if let SymSection::Index(si) = x.section {
                if x.st_type != STT_SECTION
                    && o.cubin.sections.get(si as usize).map(|s| s.name)
                        == Some(&b".nv_debug.shared"[..])
                    && b.p.res.is_winner(oi, i as u32)
                {
                    debug = debug.max(shared::alignment(x.value));
                    objects = objects.saturating_add(x.size);
                }
            }
        }
    }
    (extern_align, extern_align.max(debug), objects, of)
}

/// `-r -g`: nvlink places each extern array at one offset for every kernel, as a `-g` link
/// does, and writes it as the array's value: the largest of alignD(S) over the kernels whose
/// own code refers to it, S being a kernel's own static bytes (0 for a kernel without any);
/// a kernel's arrays start at the largest value of those it refers to, and a kernel whose
/// arrays start at 0 is sized as one that refers to none (black-box, sm_75, sm_90, sm_100,
/// sm_120: probes of one kernel with A in 16, 64 and S in 0, 4, 100; testdata extern_shared,
/// extern_shared_align, extern_shared_r_pad, partial_extern_only and the other extern-array
/// cases linked `-r -g`).
pub(crate) fn debug_offsets(
    b: &Builder<'_, '_>,
    refs: &shared::CodeRefs,
) -> (HashMap<crate::ids::GlobalId, u64>, HashMap<Node, u64>) {
    let d = b.p.partial.debug_align.max(1);
    let direct = |n: &Node| b.p.partial.uses.get(n) == Some(&Use::Direct);
    let own_static = |(oi, ti): Node| {
        let o = &b.p.objects()[oi];
        o.sections_of(crate::object::SectionKind::Other)
            .find(|(_, s)| {
                s.sh_type == SHT_CUDA_SHARED
                    && s.flags & SHF_INFO_LINK != 0
                    && s.info as usize == ti
                    && s.name.starts_with(b".nv.shared.")
            })
            .map_or(0, |(_, s)| s.size)
    };
    let mut value: HashMap<crate::ids::GlobalId, u64> = HashMap::new();
    for (&g, users) in &refs.extern_users_of {
        let v = users
            .iter()
            .filter(|n| direct(n))
            .map(|&n| align_up(own_static(n), d))
            .max()
            .unwrap_or(0);
        value.insert(g, v);
    }
    let mut start: HashMap<Node, u64> = HashMap::new();
    for (&g, users) in &refs.extern_users_of {
        for n in users.iter().filter(|n| direct(n)) {
            let e = start.entry(*n).or_insert(0);
            *e = (*e).max(value[&g]);
        }
    }
    (value, start)
}

/// The `.nv.shared.<k>` of a kernel whose own code refers to extern arrays, which start at
/// `x` in it: `x` rounded up to D, or 2D when that is no more than D.
fn direct_size(x: u64, debug_align: u64) -> u64 {
    let y = align_up(x, debug_align.max(1));
    if y <= debug_align {
        debug_align.saturating_mul(2)
    } else {
        y
    }
}

impl Builder<'_, '_> {
    /// A kernel without a `.nv.shared.<k>` of its own that uses extern arrays gets one.
    pub(crate) fn partial_kernel_shared(&mut self, node: Node, text: OutSec, name: Vec<u8>) {
        let Some(&u) = self.p.partial.uses.get(&node) else {
            return;
        };
        let d = self.p.partial.debug_align;
        let debug_start = self
            .p
            .policy
            .debug()
            .then(|| self.p.partial.debug_start.get(&node).copied().unwrap_or(0));
        // (-r -g: a kernel whose arrays start at 0 is sized, and left unnamed, as one that
        // refers to none.)
        let u = match debug_start {
            Some(0) if u == Use::Direct => Use::ThroughCallees,
            _ => u,
        };
        let size = if let (Use::Direct, Some(x)) = (u, debug_start) {
            direct_size(x, d)
        } else if u == Use::Direct {
            let own = self
                .p
                .partial
                .extern_align_of
                .get(&node)
                .copied()
                .unwrap_or(1);
            direct_size(own.max(16), d)
        } else if d == 16 {
            0x10
        } else {
            return;
        };
        let sh = self.m.named_section(&name.clone(), || OutSection {
            name,
            sh_type: SHT_CUDA_SHARED,
            flags: SHF_WRITE | SHF_ALLOC | SHF_INFO_LINK,
            align: d,
            entsize: 0,
            link: Link::None,
            info: Info::Section(text),
            content: Content::NoBits(size),
            group: Group::Shared,
            section_symbol: None,
        });
        // (nvlink names the section of a kernel that refers to the arrays itself.)
        if u == Use::Direct {
            self.section_symbol(sh);
        }
        self.p.partial.sections.insert(node, (sh, 0, 0));
    }

    /// The `.nv_debug.shared` that defines the extern arrays (A bytes, A-aligned).
    pub(crate) fn partial_debug_shared(&mut self) -> OutSec {
        let a = self.p.partial.extern_align.max(16);
        let id = self.m.named_section(b".nv_debug.shared", || OutSection {
            name: b".nv_debug.shared".to_vec(),
            sh_type: SHT_CUDA_SHARED,
            flags: SHF_WRITE | SHF_ALLOC,
            align: a,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::NoBits(0),
            group: Group::Shared,
            section_symbol: None,
        });
        let sec = &mut self.m.sections[id];
        sec.align = sec.align.max(a);
        id
    }

    /// `-r`: a kernel's `.nv.shared.<k>` made of several inputs' (a weak kernel's copies)
    /// holds all their objects unpadded, by the rule of a kernel's section: M bytes of
    /// objects, D the largest alignment, take D + M when M <= D, else M (black-box, sm_90:
    /// 0x40 for two copies of one 16-byte 32-aligned object, 0xe8 for 0x40, 0x98 and 0x10
    /// bytes; testdata weak_kernel_shared).
    pub(crate) fn size_weak_kernel_shared(&mut self) {
        // Output section → (input sections, object bytes, largest alignment).
        let mut merged: HashMap<OutSec, (u32, u64, u64)> = HashMap::new();
        for (oi, o) in crate::object::enumerated(self.p.objects) {
            for (si, s) in o.sections_of(crate::object::SectionKind::Other) {
                // (A kernel's, not sm_110's reserved shared memory.)
                if s.sh_type != crate::elf::SHT_CUDA_SHARED || !s.name.starts_with(b".nv.shared.") {
                    continue;
                }
                let Some(placed) = self.p.placed[oi][si] else {
                    continue;
                };
                let objects: u64 = (o.symbols().iter())
                    .filter(|x| {
                        x.section == SymSection::Index(si as u32) && x.st_type != STT_SECTION
                    })
                    .map(|x| x.size)
                    .sum();
                let e = merged.entry(placed.sec).or_insert((0, 0, 1));
                *e = (e.0 + 1, e.1 + objects, e.2.max(s.align));
            }
        }
        for (sec, (inputs, m, d)) in merged {
            if inputs < 2 {
                continue;
            }
            if let Content::NoBits(n) = &mut self.m.sections[sec].content {
                *n = if m <= d { d + m } else { m };
            }
        }
    }

    /// `-r`: every kernel's `.nv.shared.<k>` takes at least the alignment of the merged
    /// `.nv_debug.shared` (its functions' objects), as nvlink's partial link aligns it; a
    /// kernel that does not refer to extern arrays itself has D bytes added below its
    /// objects when its input's are no more than D.
    pub(crate) fn align_partial_kernel_shared(&mut self) {
        let Some(debug) = self.m.section_named(b".nv_debug.shared") else {
            return;
        };
        let d = self.p.partial.debug_align;
        // `.nv_debug.shared` holds its objects unpadded, each at its own value, D-aligned,
        // and follows the rule of kernels' sections: M bytes of objects take D + M when
        // M <= D (where the inputs' sections were laid end to end, losing copies and
        // padding included).
        let m = self.p.partial.debug_objects;
        if d > 0 {
            let sec = &mut self.m.sections[debug];
            sec.align = d;
            if let Content::NoBits(n) = &mut sec.content {
                *n = if m <= d { d.saturating_add(m) } else { m };
            }
        }
        let align = self.m.sections[debug].align;
        for s in self.m.sections.iter_mut() {
            if s.name.starts_with(b".nv.shared.") {
                s.align = s.align.max(align);
            }
        }
        for (node, &(sec, size, objects)) in &self.p.partial.sections {
            if size == 0 || self.p.partial.uses.get(node) == Some(&Use::Direct) {
                continue;
            }
            if let Content::NoBits(n) = &mut self.m.sections[sec].content {
                if size <= d {
                    *n = d.saturating_add(if objects > 0 { objects } else { size });
                }
            }
        }
    }

    /// After placement: sizes and alignments, then the instance symbols (last in the symbol
    /// table, in kernel order).
    pub(crate) fn finish_partial_shared(&mut self) {
        if self.p.partial.uses.is_empty() {
            return;
        }
        for s in self.m.sections.iter_mut() {
            if s.name.starts_with(b".nv.shared.") {
                s.align = s.align.max(16);
            }
        }
        if self.p.policy.debug() {
            self.finish_debug_partial_shared();
            return;
        }
        let mut kernels: Vec<(OutSym, Node)> = Vec::new();
        for (&node, &u) in &self.p.partial.uses {
            if u != Use::Direct {
                continue;
            }
            let (oi, si) = node;
            let Some(f) = self.p.objects[oi].text_function(&self.p.objects[oi].cubin.sections[si])
            else {
                continue;
            };
            if let Some(id) = self.p.out_sym(oi, f) {
                kernels.push((id, node));
            }
        }
        // (in the order of the kernels' code among the inputs, whatever their symbols' order)
        kernels.sort_unstable_by_key(|&(_, node)| node);
        for (_, node) in kernels {
            // (Its objects' sizes added up, not its input section's size, which ptxas may
            // make larger: 0x1c for one 12-byte object beside a callee's pool; black-box,
            // sm_86, testdata partial_instance_objects.)
            let static_size = match self.p.partial.sections.get(&node) {
                Some(&(_, _, objects)) => objects,
                None => 0,
            };
            // (A here is that of the arrays the kernel's own code uses.)
            let a = self
                .p
                .partial
                .extern_align_of
                .get(&node)
                .copied()
                .unwrap_or(1)
                .max(16);
            let d = self.p.partial.debug_align;
            let x = align_up(static_size, a).max(a);
            // A kernel from a partial link keeps its instance's offset (its `.nv.shared.<k>`
            // is already sized for it).
            let kept = self.input_instance_value(node);
            if let Some(&(sec, _, _)) = self.p.partial.sections.get(&node) {
                if let Content::NoBits(n) = &mut self.m.sections[sec].content {
                    *n = direct_size(x, d);
                }
            }
            let id = self.m.add_symbol(OutSymbol {
                name: b"externsharedinstance".to_vec(),
                value: kept.unwrap_or(x),
                size: 0,
                bind: STB_WEAK,
                st_type: STT_CUDA_OBJECT,
                other: STO_CUDA_SHARED | 1,
                section: None,
            });
            self.p.partial.instances.insert(node, id);
        }
    }

    /// `-r -g`: the kernels whose own code refers to the arrays are sized for where the
    /// arrays start in them (`debug_offsets`); no instance symbols.
    fn finish_debug_partial_shared(&mut self) {
        let d = self.p.partial.debug_align;
        for (node, &(sec, static_size, _)) in &self.p.partial.sections {
            if self.p.partial.uses.get(node) != Some(&Use::Direct) || static_size == 0 {
                continue;
            }
            let x = self.p.partial.debug_start.get(node).copied().unwrap_or(0);
            if let Content::NoBits(n) = &mut self.m.sections[sec].content {
                *n = direct_size(x, d);
            }
        }
    }

    /// The value of the instance symbol a kernel's code names in its input (a partial link's
    /// output).
    fn input_instance_value(&self, (oi, si): Node) -> Option<u64> {
        let o = &self.p.objects[oi];
        o.cubin.sections.iter().find_map(|r| {
            if o.kind(r) != crate::object::SectionKind::Reloc || r.info as usize != si {
                return None;
            }
            o.cubin.relocations(r).ok()?.iter().find_map(|x| {
                let s = o.symbols().get(x.sym as usize)?;
                (s.name == shared::INSTANCE && s.section == SymSection::Undefined)
                    .then_some(s.value)
            })
        })
    }
}

impl super::Placement<'_, '_> {
    /// The symbol a reference from text section `text` of object `oi` to `s` (a symbol of
    /// either half) now names: a kernel's own references to extern arrays name its instance.
    pub(crate) fn partial_instance(
        &self,
        oi: ObjectId,
        text: usize,
        s: &Symbol<'_>,
    ) -> Option<OutSym> {
        let id = *self.partial.instances.get(&(oi, text))?;
        (s.section == SymSection::Undefined && s.other & STO_CUDA_SHARED != 0).then_some(id)
    }
}
