//! The ordering policy of the output model: which output sections are written and in what
//! header order (read by layout, and by the Mercury half, which mirrors it).

use crate::output::{Content, Group, Module, OutSec, OutSection};

/// The output sections in header order: by group (sm_100+ ranks some differently), then in
/// creation order. Relocation sections left with no entries are not written (unless kept).
pub fn header_order(m: &Module) -> Vec<OutSec> {
    ordered(m, false)
}

/// `header_order` with the empty relocation sections too (the Mercury half mirrors them).
pub fn header_order_with_empty(m: &Module) -> Vec<OutSec> {
    ordered(m, true)
}

fn ordered(m: &Module, with_empty: bool) -> Vec<OutSec> {
    // sm_100+ writes the parameter banks in their kernels' code order (not in the order the
    // link made them: a library's static kernels can list theirs the other way round).
    // The key is (rank, kernel or self, self). Sections are met in id order, so a rank's
    // bucket is already in key order unless a late parameter bank sorts by its kernel: only
    // those buckets are sorted (a module has a hundred thousand sections and a dozen ranks).
    let mut buckets: Vec<Vec<(OutSec, OutSec)>> = Vec::new();
    let mut unsorted: Vec<bool> = Vec::new();
    for i in m.sections.ids() {
        let s = &m.sections[i];
        let empty_relocs =
            matches!(&s.content, Content::Relocs { entries, .. } if entries.is_empty());
        if empty_relocs && !with_empty && !m.empty_relocs_kept.contains(&i) {
            continue;
        }
        let late = late_param_bank(m, i);
        let sub = match s.info {
            crate::output::Info::Section(t) if late => t,
            _ => i,
        };
        let rank = group_rank(s, m.mercury, late) as usize;
        if rank >= buckets.len() {
            buckets.resize_with(rank + 1, Vec::new);
            unsorted.resize(rank + 1, false);
        }
        unsorted[rank] |= sub != i;
        buckets[rank].push((sub, i));
    }
    let mut order = Vec::with_capacity(buckets.iter().map(Vec::len).sum());
    for (mut bucket, unsorted) in buckets.into_iter().zip(unsorted) {
        if unsorted {
            bucket.sort_unstable();
        }
        order.extend(bucket.into_iter().map(|(_, i)| i));
    }
    order
}

/// sm_100+: a kernel's parameter bank written after everything else of the main half (one
/// with texture/surface slots stays where sm_90 puts it).
pub fn late_param_bank(m: &Module, id: OutSec) -> bool {
    m.mercury && is_param_bank(&m.sections[id]) && !m.slotted_param_banks.contains(&id)
}

/// Where a section goes in the header order, by group. sm_100+ puts the user constant banks
/// before the code, the kernels' parameter banks after everything else of the main half,
/// then the Mercury half.
fn group_rank(s: &OutSection, mercury: bool, late_param_bank: bool) -> u8 {
    let g = s.group;
    // Shared memory and zero-filled data come in the order the link creates them (a kernel's
    // `.nv.shared.<k>` with its code, `.nv.global` with its object's first variable).
    let g = match g {
        Group::ReservedShared | Group::Bss => Group::Shared,
        g => g,
    };
    if !mercury {
        return g as u8;
    }
    match g {
        Group::Constants if late_param_bank => Group::ReservedShared as u8 + 1,
        Group::Mercury => Group::ReservedShared as u8 + 2,
        g => g as u8,
    }
}

/// A kernel's parameter bank, `.nv.constant0.<kernel>`.
pub fn is_param_bank(s: &OutSection) -> bool {
    s.name.starts_with(b".nv.constant0.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{Info, Link, OutReloc};

    fn section(name: &str, group: Group, content: Content) -> OutSection {
        OutSection {
            name: name.as_bytes().to_vec(),
            sh_type: 1,
            flags: 0,
            align: 1,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content,
            group,
            section_symbol: None,
        }
    }

    fn bytes() -> Content {
        Content::Bytes(vec![0; 4])
    }

    fn relocs(n: usize) -> Content {
        Content::Relocs {
            rela: true,
            entries: vec![
                OutReloc {
                    offset: 0,
                    r_type: 1,
                    sym: None,
                    addend: 0,
                };
                n
            ],
        }
    }

    fn names(m: &Module, order: &[OutSec]) -> Vec<String> {
        order
            .iter()
            .map(|&i| String::from_utf8_lossy(&m.sections[i].name).into_owned())
            .collect()
    }

    fn module(mercury: bool, sections: Vec<OutSection>) -> Module {
        Module {
            mercury,
            sections: sections.into(),
            ..Default::default()
        }
    }

    #[test]
    fn sections_go_by_group_then_in_creation_order() {
        let m = module(
            false,
            vec![
                section(".text.b", Group::Text, bytes()),
                section(".nv.info", Group::Info, bytes()),
                section(".text.a", Group::Text, bytes()),
                section(".symtab", Group::Tables, bytes()),
            ],
        );
        assert_eq!(
            names(&m, &header_order(&m)),
            [".symtab", ".nv.info", ".text.b", ".text.a"]
        );
    }

    #[test]
    fn empty_relocation_sections_are_not_written_unless_kept() {
        let mut m = module(
            false,
            vec![
                section(".rela.text.a", Group::Relocs, relocs(0)),
                section(".rela.text.b", Group::Relocs, relocs(1)),
                section(".rela.text.c", Group::Relocs, relocs(0)),
            ],
        );
        m.empty_relocs_kept.insert(OutSec::new(2));
        assert_eq!(
            names(&m, &header_order(&m)),
            [".rela.text.b", ".rela.text.c"]
        );
        assert_eq!(header_order_with_empty(&m).len(), 3);
    }

    #[test]
    fn sm100_writes_parameter_banks_after_the_main_half_and_the_mercury_half_last() {
        let sections = vec![
            section(".nv.merc.text.k", Group::Mercury, bytes()),
            section(".nv.constant0.k", Group::Constants, bytes()),
            section(".text.k", Group::Text, bytes()),
            section(".nv.global", Group::Bss, bytes()),
        ];
        let classic = module(false, sections.clone());
        assert_eq!(
            names(&classic, &header_order(&classic)),
            [
                ".nv.constant0.k",
                ".text.k",
                ".nv.global",
                ".nv.merc.text.k"
            ]
        );
        let sm100 = module(true, sections);
        assert_eq!(
            names(&sm100, &header_order(&sm100)),
            [
                ".text.k",
                ".nv.global",
                ".nv.constant0.k",
                ".nv.merc.text.k"
            ]
        );
    }

    #[test]
    fn sm100_parameter_banks_follow_their_kernels_code_order() {
        let bank = |name: &str, kernel: u32| OutSection {
            info: Info::Section(OutSec::new(kernel)),
            ..section(name, Group::Constants, bytes())
        };
        let m = module(
            true,
            vec![
                section(".text.b", Group::Text, bytes()),
                section(".text.a", Group::Text, bytes()),
                bank(".nv.constant0.a", 1),
                bank(".nv.constant0.b", 0),
            ],
        );
        assert_eq!(
            names(&m, &header_order(&m)),
            [".text.b", ".text.a", ".nv.constant0.b", ".nv.constant0.a"]
        );
    }
}
