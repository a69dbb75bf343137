//! The global `.nv.info`: the inputs' records in reverse reading order, MAX_STACK_SIZE
//! dropped, kernels' REGCOUNT raised; then MIN_STACK_SIZE per kernel. -r keeps the inputs'
//! MAX_STACK_SIZE records and computes nothing over the call graph.

use super::propagate::Propagated;
use super::records::*;
use crate::elf::nvinfo::{self, Payload, Value};
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::{Builder, Options};
use crate::object::SectionKind;
use crate::output::*;

pub(super) fn emit_global_info(
    b: &mut Builder<'_, '_>,
    opts: &Options,
    prop: &Propagated,
    kernels: &[OutSym],
    roots: &hashbrown::HashSet<OutSym>,
) {
    let named = |k: OutSym| roots.contains(&k);
    // Each object's records are made on their own (in parallel), then laid down in reverse
    // reading order: the objects last to first, each one's records last to first.
    let bb: &Builder<'_, '_> = b;
    let chunks: Vec<RecordBytes> =
        crate::object::par_map(b.p.objects(), |oi| object_records(bb, opts, prop, oi));
    // (Room for all of them and the kernels' records after: made once, on one thread.)
    let mut out = RecordBytes::with_capacity(
        chunks.iter().map(|c| c.bytes.len()).sum::<usize>() + 12 * kernels.len(),
        chunks.iter().map(|c| c.slots.len()).sum::<usize>() + kernels.len(),
    );
    for c in chunks.into_iter().rev() {
        out.append(c);
    }
    for &k in kernels
        .iter()
        .filter(|&&k| opts.policy.propagates_over_call_graph() && named(k))
    {
        let v = match prop.min_stack[&k] {
            Some(d) => d as u32,
            None => 0xffff_ffff,
        };
        out.symbol_value(nvinfo::EIFMT_SVAL, nvinfo::EIATTR_MIN_STACK_SIZE, k, v);
    }
    // A module left without functions has no `.nv.info` at all.
    if !out.bytes.is_empty() {
        b.add_info_section(OutSection {
            name: b".nv.info".to_vec(),
            sh_type: SHT_CUDA_INFO,
            flags: 0,
            align: 4,
            entsize: 0,
            link: Link::Symtab,
            info: Info::None,
            content: out.into_content(),
            group: Group::Info,
            section_symbol: None,
        });
    }
}

/// One object's global records for the output, last to first: MAX_STACK_SIZE dropped where
/// the link computes stacks, records of removed functions dropped, kernels' REGCOUNT raised.
fn object_records(
    b: &Builder<'_, '_>,
    opts: &Options,
    prop: &Propagated,
    oi: ObjectId,
) -> RecordBytes {
    let o = &b.p.objects()[oi];
    // (Every record parses: `facts::global_facts` read them all first.)
    let recs: Vec<nvinfo::Record<'_>> = o
        .sections_of(SectionKind::Info)
        .flat_map(|(_, s)| nvinfo::records(s.bytes()).filter_map(|r| r.ok()))
        .collect();
    // (The output's records are about the input's: room for as many.)
    let size = o
        .sections_of(SectionKind::Info)
        .map(|(_, s)| s.bytes().len())
        .sum();
    let mut out = RecordBytes::with_capacity(size, recs.len());
    for r in recs.iter().rev() {
        if r.attr == nvinfo::EIATTR_MAX_STACK_SIZE && opts.policy.propagates_over_call_graph() {
            continue;
        }
        if let Value::Bytes(p) = r.value {
            if nvinfo::payload_kind(r.attr, p.len()) == Payload::SymbolValue {
                let sym = u32_at(p, 0);
                let Some(sym_out) = b.p.out_sym(oi, sym) else {
                    continue;
                };
                if !def_is_live(b, oi, sym) {
                    continue;
                }
                let mut v = u32_at(p, 4);
                if r.attr == nvinfo::EIATTR_REGCOUNT {
                    if let Some(&m) = prop.reg_max.get(&sym_out) {
                        v = m;
                    }
                }
                out.symbol_value(r.format, r.attr, sym_out, v);
                continue;
            }
        }
        map_record(b, oi, r, &mut out);
    }
    out
}
