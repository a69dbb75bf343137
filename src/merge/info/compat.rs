//! `.nv.compat`: the first input's records, with the attributes only later inputs have
//! inserted before FINALIZER_VERSION, each attribute once, merged as nvlink merges it
//! (`Merge`: the largest ISA class and internal target, an input without the latter counting
//! as 2; the largest finalizer version and
//! the smallest INST_TCGEN05_MMA, each only when every input has it; 0x06 never). Then for
//! the target: the accelerator flag says whether it is an 'a' target; code built for another
//! SM (sm_100 into sm_103) cannot take the finalizer's fast path, and an 'a' target with plain
//! inputs keeps only the first fast-path bit.

use super::records::*;
use crate::elf::nvinfo;
use crate::elf::*;
use crate::merge::{Builder, Options};
use crate::object::InputObject;
use crate::output::*;

pub(super) fn emit_compat(b: &mut Builder<'_, '_>, opts: &Options) {
    let objects = b.p.objects();
    let compat = if objects.is_empty() && !opts.policy.relocatable() && opts.policy.sm() >= 90 {
        Some((target_records(opts), 4))
    } else {
        objects
            .iter()
            .find_map(|o| o.compat_sections().next())
            .map(|first| (merged_records(objects, opts), first.align))
    };
    if let Some((bytes, align)) = compat {
        b.add_info_section(OutSection {
            name: b".nv.compat".to_vec(),
            sh_type: SHT_CUDA_COMPAT_INFO,
            flags: 0,
            align,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::Bytes(bytes),
            group: Group::Info,
            section_symbol: None,
        });
    }
}

/// No code: the target's own records (the fast-path bits nvlink gives each SM).
fn target_records(opts: &Options) -> Vec<u8> {
    // No code: the target's own records (the fast-path bits nvlink gives each SM).
    let mut bytes = vec![
        2,
        nvinfo::EICOMPAT_ACCELERATOR_TARGET,
        opts.accelerated as u8,
        0,
    ];
    if opts.policy.mercury() {
        let fastpath: u32 = match opts.policy.sm() {
            100 => 9,
            120 => 0x50,
            _ => 0,
        };
        bytes.extend_from_slice(&[4, nvinfo::EICOMPAT_CAN_FASTPATH_FINALIZE, 8, 0]);
        bytes.extend_from_slice(&fastpath.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(&[3, nvinfo::EICOMPAT_FINALIZER_VERSION, 0x40, 0x04]);
    }
    bytes
}

/// How the link merges one `.nv.compat` attribute over its inputs (black-box, nvlink 13.5:
/// inputs' records rewritten in place, and sm_100 objects linked with sm_100a ones). An
/// input without `.nv.compat` counts neither way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Merge {
    /// The first input's value; later inputs add the attribute if it is new.
    First,
    /// The largest value (ISA class).
    Largest,
    /// The largest value, an input without the record counting as this value (internal
    /// target: 2; black-box, sm_90: a user object's 0 or 1 with NVSHMEM's prebuilt objects,
    /// which have none, gives 2; 3 gives 3).
    LargestMissingAs(u8),
    /// The largest value, and none unless every input has it (finalizer version).
    LargestOfAll,
    /// The smallest value, and none unless every input has it (tcgen05 MMA use: only
    /// 'a' objects have it).
    SmallestOfAll,
    /// Never in the output (0x06, whatever the inputs say, in every mode).
    Dropped,
}

fn merge_rule(attr: u8) -> Merge {
    match attr {
        nvinfo::EICOMPAT_ISA_CLASS => Merge::Largest,
        nvinfo::EICOMPAT_INTERNAL_TARGET => Merge::LargestMissingAs(2),
        nvinfo::EICOMPAT_FINALIZER_VERSION => Merge::LargestOfAll,
        nvinfo::EICOMPAT_INST_TCGEN05_MMA => Merge::SmallestOfAll,
        nvinfo::EICOMPAT_OPPORTUNISTIC_FINALIZATION => Merge::Dropped,
        _ => Merge::First,
    }
}

/// A record's value as a number (the 1- or 2-byte value of a BVAL or HVAL record).
fn value_of(rec: &[u8]) -> u32 {
    match rec.first() {
        Some(2) if rec.len() >= 3 => u32::from(rec[2]),
        Some(3) if rec.len() >= 4 => u32::from(u16::from_le_bytes([rec[2], rec[3]])),
        _ => 0,
    }
}

/// The inputs' records merged, each attribute once (see `Merge`), then set for the target.
/// (Every input's records parse: `InputObject::new` refuses an object whose `.nv.compat`
/// does not.)
fn merged_records(objects: &[InputObject<'_>], opts: &Options) -> Vec<u8> {
    let cross = objects.iter().any(|o| o.sm != opts.policy.sm());
    let any_plain = objects.iter().any(|o| !o.is_accelerated());
    let mut recs: Vec<(u8, Vec<u8>)> = Vec::new();
    // Attributes some input with records lacks.
    let mut lacking: Vec<u8> = Vec::new();
    let mut inputs = 0;
    for o in objects {
        let Some(cs) = o.compat_sections().next() else {
            continue;
        };
        let Ok(rs) = nvinfo::parse_records(cs.bytes()) else {
            continue;
        };
        let first = inputs == 0;
        inputs += 1;
        for (attr, _) in &recs {
            if !rs.iter().any(|r| r.attr == *attr) && !lacking.contains(attr) {
                lacking.push(*attr);
            }
        }
        for r in &rs {
            let rule = merge_rule(r.attr);
            if rule == Merge::Dropped {
                continue;
            }
            let theirs = encode(r.format, r.attr, &r.value);
            if let Some((_, ours)) = recs.iter_mut().find(|(a, _)| *a == r.attr) {
                let replace = match rule {
                    Merge::Largest | Merge::LargestMissingAs(_) | Merge::LargestOfAll => {
                        value_of(&theirs) > value_of(ours)
                    }
                    Merge::SmallestOfAll => value_of(&theirs) < value_of(ours),
                    _ => false,
                };
                if replace && ours.len() == theirs.len() {
                    *ours = theirs;
                }
                continue;
            }
            if !first && !lacking.contains(&r.attr) {
                // (Earlier inputs lack it.)
                lacking.push(r.attr);
            }
            let at = if first {
                recs.len()
            } else {
                recs.iter()
                    .position(|(a, _)| *a == nvinfo::EICOMPAT_FINALIZER_VERSION)
                    .unwrap_or(recs.len())
            };
            recs.insert(at, (r.attr, theirs));
        }
    }
    recs.retain(|(a, _)| {
        !matches!(merge_rule(*a), Merge::LargestOfAll | Merge::SmallestOfAll)
            || !lacking.contains(a)
    });
    for (attr, rec) in recs.iter_mut() {
        if let Merge::LargestMissingAs(v) = merge_rule(*attr) {
            if lacking.contains(attr) && rec.len() >= 3 && rec[0] == nvinfo::EIFMT_BVAL {
                rec[2] = rec[2].max(v);
            }
        }
    }
    let mut bytes = Vec::new();
    for (attr, mut rec) in recs {
        if attr == nvinfo::EICOMPAT_ACCELERATOR_TARGET && rec.len() >= 3 {
            rec[2] = opts.accelerated as u8;
        }
        if attr == nvinfo::EICOMPAT_CAN_FASTPATH_FINALIZE && rec.len() >= 8 {
            let first = u32_at(&rec, 4);
            let first = if cross {
                0
            } else if opts.accelerated && any_plain {
                first & first.wrapping_neg()
            } else {
                first
            };
            rec[4..8].copy_from_slice(&first.to_le_bytes());
            if cross {
                rec[8..].fill(0);
            }
        }
        bytes.extend_from_slice(&rec);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_isa_class_and_internal_target_win() {
        assert!(merge_rule(nvinfo::EICOMPAT_ISA_CLASS) == Merge::Largest);
        assert!(merge_rule(nvinfo::EICOMPAT_INTERNAL_TARGET) == Merge::LargestMissingAs(2));
    }

    #[test]
    fn the_finalizer_version_and_tcgen05_use_need_every_input() {
        assert!(merge_rule(nvinfo::EICOMPAT_FINALIZER_VERSION) == Merge::LargestOfAll);
        assert!(merge_rule(nvinfo::EICOMPAT_INST_TCGEN05_MMA) == Merge::SmallestOfAll);
    }

    #[test]
    fn opportunistic_finalization_never_reaches_the_output() {
        assert!(merge_rule(nvinfo::EICOMPAT_OPPORTUNISTIC_FINALIZATION) == Merge::Dropped);
    }

    #[test]
    fn a_records_value_is_its_byte_or_half_word() {
        assert_eq!(value_of(&[2, 0x0c, 2, 0]), 2);
        assert_eq!(value_of(&[3, 0x0e, 0x40, 0x04]), 0x440);
        assert_eq!(value_of(&[4, 0x0b, 8, 0]), 0);
    }
}
