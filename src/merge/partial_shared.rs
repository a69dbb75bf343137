//! `-r` with extern `__shared__` arrays (sm_75–sm_90), as nvlink's partial link writes them:
//! each kernel whose own code refers to an extern array gets an `externsharedinstance`
//! symbol (WEAK, undefined, INTERNAL|SHARED) whose value is where its extern area starts,
//! `max(align16(static), 0x10)`, and its own references are retargeted to it (device
//! functions keep the array's name); its `.nv.shared.<k>` grows to `max(align16(static),
//! 0x20)`; a kernel that reaches extern arrays only through callees, or not at all, gets a
//! 16-byte `.nv.shared.<k>` of its own; every kernel's `.nv.shared.<k>` is 16-aligned; and the arrays
//! are defined in a 16-byte `.nv_debug.shared`. (Observed on sm_90; the formulas come from
//! kernels with 4 to 512 bytes of static shared memory.)

use super::{shared, Builder};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::output::*;
use hashbrown::{HashMap, HashSet};

type Node = (usize, usize);

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

/// Which kernels (by text section) use extern arrays, and how.
pub(crate) fn kernel_uses(
    b: &Builder<'_, '_>,
    live: &[Vec<bool>],
    kernels: &[Node],
    edges: &HashMap<Node, Vec<Node>>,
) -> HashMap<Node, Use> {
    let direct = shared::code_refs(b.objects(), b.res, live).extern_users;
    let mut out = HashMap::new();
    for &k in kernels {
        if direct.contains(&k) {
            out.insert(k, Use::Direct);
            continue;
        }
        let mut seen: HashSet<Node> = HashSet::new();
        let mut stack = vec![k];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            if n != k && direct.contains(&n) {
                out.insert(k, Use::ThroughCallees);
                break;
            }
            if let Some(es) = edges.get(&n) {
                stack.extend(es.iter().copied());
            }
        }
        if !direct.is_empty() {
            out.entry(k).or_insert(Use::Unused);
        }
    }
    out
}

fn align16(n: u64) -> u64 {
    n.div_ceil(16) * 16
}

impl Builder<'_, '_> {
    /// A kernel without a `.nv.shared.<k>` of its own that uses extern arrays gets one.
    pub(crate) fn partial_kernel_shared(&mut self, node: Node, text: SecId, name: Vec<u8>) {
        let Some(&u) = self.partial_shared.get(&node) else {
            return;
        };
        let size = if u == Use::Direct { 0x20 } else { 0x10 };
        let sh = self.named_section(&name.clone(), || OutSection {
            name,
            sh_type: SHT_CUDA_SHARED,
            flags: SHF_WRITE | SHF_ALLOC | SHF_INFO_LINK,
            align: 16,
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
        self.partial_shared_sections.insert(node, (sh, 0));
    }

    /// The 16-byte `.nv_debug.shared` that defines the extern arrays.
    pub(crate) fn partial_debug_shared(&mut self) -> SecId {
        self.named_section(b".nv_debug.shared", || OutSection {
            name: b".nv_debug.shared".to_vec(),
            sh_type: SHT_CUDA_SHARED,
            flags: SHF_WRITE | SHF_ALLOC,
            align: 16,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::NoBits(0x10),
            group: Group::Shared,
            section_symbol: None,
        })
    }

    /// `-r`: every kernel's `.nv.shared.<k>` takes at least the alignment of the merged
    /// `.nv_debug.shared` (its functions' objects), as nvlink's partial link aligns it.
    pub(crate) fn align_partial_kernel_shared(&mut self) {
        let Some(&debug) = self.by_name.get(&b".nv_debug.shared"[..]) else {
            return;
        };
        let align = self.m.sections[debug as usize].align;
        for s in self.m.sections.iter_mut() {
            if s.name.starts_with(b".nv.shared.") {
                s.align = s.align.max(align);
            }
        }
    }

    /// After placement: sizes and alignments, then the instance symbols (last in the symbol
    /// table, in kernel order).
    pub(crate) fn finish_partial_shared(&mut self) {
        if self.partial_shared.is_empty() {
            return;
        }
        for s in self.m.sections.iter_mut() {
            if s.name.starts_with(b".nv.shared.") {
                s.align = s.align.max(16);
            }
        }
        let mut kernels: Vec<(SymId, Node)> = Vec::new();
        for (&node, &u) in &self.partial_shared {
            if u != Use::Direct {
                continue;
            }
            let (oi, si) = node;
            let Some(f) = self.objects[oi].text_function(&self.objects[oi].cubin.sections[si])
            else {
                continue;
            };
            if let Some(id) = self.out_sym(oi, f) {
                kernels.push((id, node));
            }
        }
        kernels.sort_unstable();
        for (_, node) in kernels {
            let static_size = match self.partial_shared_sections.get(&node) {
                Some(&(_, s)) => s,
                None => 0,
            };
            // A kernel from a partial link keeps its instance's offset (its `.nv.shared.<k>`
            // is already sized for it).
            let kept = self.input_instance_value(node);
            if let Some(&(sec, _)) = self.partial_shared_sections.get(&node) {
                if let Content::NoBits(n) = &mut self.m.sections[sec as usize].content {
                    *n = align16(static_size).max(0x20);
                }
            }
            let id = self.m.add_symbol(OutSymbol {
                name: b"externsharedinstance".to_vec(),
                value: kept.unwrap_or(align16(static_size).max(0x10)),
                size: 0,
                bind: STB_WEAK,
                st_type: STT_CUDA_OBJECT,
                other: STO_CUDA_SHARED | 1,
                section: None,
            });
            self.partial_instances.insert(node, id);
        }
    }

    /// The value of the instance symbol a kernel's code names in its input (a partial link's
    /// output).
    fn input_instance_value(&self, (oi, si): Node) -> Option<u64> {
        let o = &self.objects[oi];
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

    /// The symbol a reference from text section `text` of object `oi` to `s` (a symbol of
    /// either half) now names: a kernel's own references to extern arrays name its instance.
    pub(crate) fn partial_instance(&self, oi: usize, text: usize, s: &Symbol<'_>) -> Option<SymId> {
        let id = *self.partial_instances.get(&(oi, text))?;
        (s.section == SymSection::Undefined && s.other & STO_CUDA_SHARED != 0).then_some(id)
    }
}
