//! Layout: fixes the final section order and indices, the symbol order (locals first), file
//! offsets and program headers. Nothing changes size after this pass.

mod order;
mod strtab;

pub use order::{header_order, header_order_with_empty, is_param_bank, late_param_bank};

use crate::elf::*;
use crate::output::{Content, Group, Module, SecId, SymId};

pub struct Layout {
    /// Output sections in header order (index 0 of the ELF section table is the null
    /// section, so ELF index = position + 1).
    pub order: Vec<SecId>,
    /// ELF section index of each output section.
    pub sec_index: Vec<u32>,
    /// Symbol ids in symbol-table order (ELF index = position + 1).
    pub sym_order: Vec<SymId>,
    pub sym_index: Vec<u32>,
    pub first_global: u32,
    /// File offset of each output section (by SecId).
    pub offset: Vec<u64>,
    /// Size of each output section (by SecId), including derived tables.
    pub size: Vec<u64>,
    pub strtab: Vec<u8>,
    pub sym_name_offset: Vec<u32>,
    pub shstrtab: Vec<u8>,
    pub sec_name_offset: Vec<u32>,
    pub shoff: u64,
    pub phoff: u64,
    pub phdrs: Vec<Phdr>,
    pub file_size: u64,
    /// What to add to each prototype id (sm_100+: the prototype strings follow the names).
    pub prototype_shift: u32,
    /// sm_100+: how many symbols `.nv.merc.symtab` lists (a prefix of `sym_order`), their
    /// names' offsets (by SymId), and its sh_info.
    pub merc_count: usize,
    pub merc_sym_name_offset: Vec<u32>,
    pub merc_first_global: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct Phdr {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub filesz: u64,
    pub memsz: u64,
}

/// `v` rounded up to a multiple of `a` (saturating: damaged inputs can ask for absurd values,
/// which the size check before writing then refuses).
pub fn align_up(v: u64, a: u64) -> u64 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a).saturating_mul(a)
    }
}

pub fn layout(m: &Module) -> Layout {
    let n = m.sections.len();
    // Relocation sections left with no entries are not written.
    let order = header_order(m);
    let mut sec_index = vec![0u32; n];
    for (pos, &s) in order.iter().enumerate() {
        sec_index[s as usize] = pos as u32 + 1;
    }

    // sm_100+ lists the kernels' parameter-bank section symbols after the globals; sh_info
    // then counts up to the last local.
    let (sym_order, first_global) = if m.mercury {
        let late = |i: SymId| {
            let s = &m.symbols[i as usize];
            s.st_type == STT_SECTION && s.section.is_some_and(|sec| late_param_bank(m, sec))
        };
        let all = 0..m.symbols.len() as SymId;
        let mut order: Vec<SymId> = all
            .clone()
            .filter(|&i| m.listed_as_local(i) && !late(i))
            .collect();
        // Parameter banks with texture/surface slots close the locals (in header order).
        let mut slotted_syms: Vec<SymId> = order
            .iter()
            .copied()
            .filter(|&i| {
                let s = &m.symbols[i as usize];
                s.st_type == STT_SECTION
                    && s.section
                        .is_some_and(|sec| m.slotted_param_banks.contains(&sec))
            })
            .collect();
        order.retain(|i| !slotted_syms.contains(i));
        slotted_syms.sort_by_key(|&i| m.symbols[i as usize].section.map(|s| sec_index[s as usize]));
        order.extend(slotted_syms);
        // Locals listed among the globals come first there.
        order.extend(
            all.clone()
                .filter(|&i| m.locals_listed_as_global.contains(&i)),
        );
        order.extend(
            all.clone()
                .filter(|&i| !m.listed_as_local(i) && !m.locals_listed_as_global.contains(&i)),
        );
        // (in their banks' header order)
        let mut late_syms: Vec<SymId> = all.filter(|&i| m.listed_as_local(i) && late(i)).collect();
        late_syms.sort_by_key(|&i| m.symbols[i as usize].section.map(|s| sec_index[s as usize]));
        order.extend(late_syms);
        let last_local = order.iter().rposition(|&i| m.listed_as_local(i));
        (order, last_local.map_or(1, |p| p as u32 + 2))
    } else {
        let mut order: Vec<SymId> = (0..m.symbols.len() as SymId)
            .filter(|&i| m.listed_as_local(i))
            .collect();
        let first_global = order.len() as u32 + 1;
        order.extend((0..m.symbols.len() as SymId).filter(|&i| !m.listed_as_local(i)));
        (order, first_global)
    };
    let mut sym_index = vec![0u32; m.symbols.len()];
    for (pos, &s) in sym_order.iter().enumerate() {
        sym_index[s as usize] = pos as u32 + 1;
    }

    let names = strtab::names(m, &order, &sym_order);

    let mut size = vec![0u64; n];
    for (i, s) in m.sections.iter().enumerate() {
        size[i] = match &s.content {
            Content::Symtab => (m.symbols.len() as u64 + 1) * 24,
            Content::SymtabShndx => (m.symbols.len() as u64 + 1) * 4,
            Content::Strtab => names.strtab.len() as u64,
            Content::Shstrtab => names.shstrtab.len() as u64,
            Content::MercSymtab => (names.merc_count as u64 + 1) * 24,
            c => c.size(),
        };
    }

    let mut offset = vec![0u64; n];
    let mut pos = 64u64;
    for &s in &order {
        let sec = &m.sections[s as usize];
        if let Content::Alias(of) = sec.content {
            offset[s as usize] = offset[of as usize];
            size[s as usize] = size[of as usize];
            continue;
        }
        pos = align_up(pos, sec.align);
        offset[s as usize] = pos;
        if !matches!(sec.content, Content::NoBits(_)) {
            pos = pos.saturating_add(size[s as usize]);
        }
    }
    let shoff = align_up(pos, 8);
    let sh_end = shoff.saturating_add((order.len() as u64 + 1) * 64);

    let mut phdrs = Vec::new();
    let mut phoff = 0;
    if m.program_headers {
        phoff = sh_end;
        // (offset, file size, memory size) spanned by the sections `wanted` picks.
        let span = |wanted: &dyn Fn(SecId) -> bool| -> Option<(u64, u64, u64)> {
            let secs: Vec<SecId> = order.iter().copied().filter(|&s| wanted(s)).collect();
            let first = *secs.first()?;
            let start = offset[first as usize];
            let mut file_end = start;
            let mut mem_end = start;
            for &s in &secs {
                let end = offset[s as usize] + size[s as usize];
                if !matches!(m.sections[s as usize].content, Content::NoBits(_)) {
                    file_end = file_end.max(end);
                }
                mem_end = mem_end.max(end);
            }
            Some((start, file_end - start, mem_end - start))
        };
        let range = |groups: &[Group]| span(&|s| groups.contains(&m.sections[s as usize].group));
        let mut loads = Vec::new();
        // sm_100+ maps the user constant banks read-only before the code, the code alone,
        // and the parameter banks read-only, last.
        // (Parameter banks with texture/surface slots sit with the user banks.)
        let constants = |params: bool| {
            span(&|s| {
                m.sections[s as usize].group == Group::Constants && late_param_bank(m, s) == params
            })
        };
        let read_only = |(o, f, mm): (u64, u64, u64)| Phdr {
            p_type: 1,
            flags: 4,
            offset: o,
            filesz: f,
            memsz: mm,
        };
        if m.mercury {
            loads.extend(constants(false).map(read_only));
        }
        let code: &[Group] = if m.mercury {
            &[Group::Text]
        } else {
            &[Group::Constants, Group::Text]
        };
        if let Some((o, f, mm)) = range(code) {
            loads.push(Phdr {
                p_type: 1,
                flags: 5,
                offset: o,
                filesz: f,
                memsz: mm,
            });
        }
        // Shared memory is mapped with the global data (between the initialized and the
        // zero-filled part) when there is any, else alone.
        let has_data = range(&[Group::Data, Group::Bss]).is_some();
        let writable = [
            Group::Data,
            Group::Shared,
            Group::Bss,
            Group::ReservedShared,
        ];
        if let Some((o, _, mm)) = range(&writable) {
            // The file part runs up to where the last zero-filled section sits (they follow
            // the initialized data, each aligned, at nearly one offset).
            let bss_start = order
                .iter()
                .filter(|&&s| {
                    matches!(
                        m.sections[s as usize].group,
                        Group::Bss | Group::Shared | Group::ReservedShared
                    )
                })
                .map(|&s| offset[s as usize])
                .max();
            let f = match bss_start {
                Some(b) => b - o,
                None => mm,
            };
            let filesz = if has_data { f } else { 0 };
            // The memory size counts every zero-filled section after the file part, one after
            // the other (aligned), though they all share one file offset (as nvlink counts).
            let memsz = order
                .iter()
                .map(|&s| &m.sections[s as usize])
                .filter(|s| writable.contains(&s.group) && s.flags & SHF_ALLOC != 0)
                .filter_map(|s| match s.content {
                    Content::NoBits(n) => Some((s.align.max(1), n)),
                    _ => None,
                })
                .fold(filesz, |run, (align, n)| align_up(run, align) + n);
            loads.push(Phdr {
                p_type: 1,
                flags: 6,
                offset: o,
                filesz,
                memsz,
            });
        }
        if m.mercury {
            loads.extend(constants(true).map(read_only));
        }
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
        phdrs.push(self_phdr);
        if m.mercury {
            phdrs.push(self_load);
            phdrs.extend(loads);
        } else {
            phdrs.extend(loads);
            phdrs.push(self_load);
        }
    }
    let file_size = if m.program_headers {
        phoff + phdrs.len() as u64 * 56
    } else {
        sh_end
    };
    Layout {
        order,
        sec_index,
        sym_order,
        sym_index,
        first_global,
        offset,
        size,
        strtab: names.strtab,
        sym_name_offset: names.sym_name_offset,
        shstrtab: names.shstrtab,
        sec_name_offset: names.sec_name_offset,
        shoff,
        phoff,
        phdrs,
        file_size,
        prototype_shift: names.prototype_shift,
        merc_count: names.merc_count,
        merc_sym_name_offset: names.merc_sym_name_offset,
        merc_first_global: names.merc_first_global,
    }
}
