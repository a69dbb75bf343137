//! The program headers: what the driver maps, and with which permissions.

use super::{align_up, late_param_bank, Phdr};
use crate::elf::SHF_ALLOC;
use crate::ids::IdVec;
use crate::output::{Content, Group, Module, OutSec};

/// (offset, file size, memory size) of a run of sections.
type Span = (u64, u64, u64);

/// The program header table, placed at `phoff`.
pub(super) fn program_headers(
    m: &Module,
    order: &[OutSec],
    offset: &IdVec<OutSec, u64>,
    size: &IdVec<OutSec, u64>,
    phoff: u64,
) -> Vec<Phdr> {
    // (Each scan below reads the sections' groups: gathered once, in header order, rather
    // than read from the sections five times over.)
    // (In parallel: header order visits the module's sections out of their order.)
    use rayon::prelude::*;
    let (group, nobits) = order
        .par_iter()
        .with_min_len(4096)
        .map(|&s| {
            let sec = &m.sections[s];
            (sec.group, matches!(sec.content, Content::NoBits(_)))
        })
        .unzip();
    let placed = Placed {
        m,
        order,
        group,
        nobits,
        offset,
        size,
    };
    let loads = placed.loads();
    // The table maps itself too: a PHDR entry and a load of the same bytes.
    let count = loads.len() as u64 + 2;
    let self_phdr = Phdr {
        p_type: 6,
        flags: if m.mercury { 4 } else { 5 },
        offset: phoff,
        filesz: count * 56,
        memsz: count * 56,
    };
    let self_load = Phdr {
        p_type: 1,
        ..self_phdr
    };
    let mut phdrs = vec![self_phdr];
    // sm_100+ loads the table before the sections, earlier targets after them.
    if m.mercury {
        phdrs.push(self_load);
        phdrs.extend(loads);
    } else {
        phdrs.extend(loads);
        phdrs.push(self_load);
    }
    phdrs
}

fn read_only((offset, filesz, memsz): Span) -> Phdr {
    Phdr {
        p_type: 1,
        flags: 4,
        offset,
        filesz,
        memsz,
    }
}

/// The sections where layout put them.
struct Placed<'a> {
    m: &'a Module,
    order: &'a [OutSec],
    /// By position in `order`: each section's group, and whether it is zero-filled.
    group: Vec<Group>,
    nobits: Vec<bool>,
    offset: &'a IdVec<OutSec, u64>,
    size: &'a IdVec<OutSec, u64>,
}

impl Placed<'_> {
    /// The loads of the sections, in the order they are listed.
    fn loads(&self) -> Vec<Phdr> {
        let m = self.m;
        let mut loads = Vec::new();
        // sm_100+ maps the user constant banks read-only before the code, the code alone,
        // and the parameter banks read-only, last.
        // (Parameter banks with texture/surface slots sit with the user banks.)
        if m.mercury {
            loads.extend(self.constants(false).map(read_only));
        }
        let code: &[Group] = if m.mercury {
            &[Group::Text]
        } else {
            &[Group::Constants, Group::Text]
        };
        if let Some((o, f, mm)) = self.range(code) {
            loads.push(Phdr {
                p_type: 1,
                flags: 5,
                offset: o,
                filesz: f,
                memsz: mm,
            });
        }
        loads.extend(self.writable());
        if m.mercury {
            loads.extend(self.constants(true).map(read_only));
        }
        loads
    }

    /// The read-write load: shared memory is mapped with the global data (between the
    /// initialized and the zero-filled part) when there is any, else alone.
    fn writable(&self) -> Option<Phdr> {
        let m = self.m;
        let writable = [
            Group::Data,
            Group::Shared,
            Group::Bss,
            Group::ReservedShared,
        ];
        let (o, _, mm) = self.range(&writable)?;
        // The file part runs up to where the last zero-filled section sits (they follow
        // the initialized data, each aligned, at nearly one offset): with no data, the
        // padding a 256-aligned section's offset takes (black-box: testdata
        // extern_shared_r_pad, sm_75 round trip: filesz 0x80 with no data).
        let bss_start = self
            .order
            .iter()
            .zip(&self.group)
            .filter(|(_, g)| matches!(g, Group::Bss | Group::Shared | Group::ReservedShared))
            .map(|(&s, _)| self.offset[s])
            .max();
        let filesz = match bss_start {
            Some(b) => b - o,
            None => mm,
        };
        // The memory size adds to it every zero-filled section, one after the other
        // (aligned, from 0), though they all share one file offset (as nvlink counts).
        let memsz = self
            .order
            .iter()
            .zip(&self.group)
            .filter(|(_, g)| writable.contains(g))
            .map(|(&s, _)| &m.sections[s])
            .filter(|s| s.flags & SHF_ALLOC != 0)
            .filter_map(|s| match s.content {
                Content::NoBits(n) => Some((s.align.max(1), n)),
                _ => None,
            })
            .fold(0, |run, (align, n)| align_up(run, align) + n)
            + filesz;
        Some(Phdr {
            p_type: 1,
            flags: 6,
            offset: o,
            filesz,
            memsz,
        })
    }

    /// sm_100+: the user constant banks (`params` false) or the kernels' parameter banks.
    fn constants(&self, params: bool) -> Option<Span> {
        let m = self.m;
        self.span(|s, g| g == Group::Constants && late_param_bank(m, s) == params)
    }

    /// The sections of the given groups.
    fn range(&self, groups: &[Group]) -> Option<Span> {
        self.span(|_, g| groups.contains(&g))
    }

    /// The sections `wanted` picks, from the first's offset to the furthest end.
    fn span(&self, wanted: impl Fn(OutSec, Group) -> bool) -> Option<Span> {
        let mut secs = (0..self.order.len()).filter(|&i| wanted(self.order[i], self.group[i]));
        let first = secs.next()?;
        let start = self.offset[self.order[first]];
        let mut file_end = start;
        let mut mem_end = start;
        for i in std::iter::once(first).chain(secs) {
            let s = self.order[i];
            let end = self.offset[s] + self.size[s];
            if !self.nobits[i] {
                file_end = file_end.max(end);
            }
            mem_end = mem_end.max(end);
        }
        Some((start, file_end - start, mem_end - start))
    }
}
