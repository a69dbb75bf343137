//! The global `.nv.info`: the inputs' records in reverse reading order, MAX_STACK_SIZE
//! dropped, kernels' REGCOUNT raised; then MIN_STACK_SIZE per kernel. -r keeps the inputs'
//! MAX_STACK_SIZE records and computes nothing over the call graph.

use super::facts::GlobalFacts;
use super::propagate::Propagated;
use super::records::*;
use crate::elf::nvinfo::{self, Payload, Value};
use crate::elf::*;
use crate::liveness::named_by;
use crate::merge::{Builder, Options};
use crate::output::*;

pub(super) fn emit_global_info(
    b: &mut Builder<'_, '_>,
    opts: &Options,
    global: &GlobalFacts<'_>,
    prop: &Propagated,
    kernels: &[OutSym],
) {
    let named = |k: OutSym| named_by(opts.kernels_used.as_deref(), &b.m.symbols[k].name);
    let mut out_recs: Vec<Rec> = Vec::new();
    for (oi, r) in global.records.iter().rev() {
        if r.attr == nvinfo::EIATTR_MAX_STACK_SIZE && opts.policy.propagates_over_call_graph() {
            continue;
        }
        if let Value::Bytes(p) = r.value {
            if nvinfo::payload_kind(r.attr, p.len()) == Payload::SymbolValue {
                let sym = u32_at(p, 0);
                let Some(out) = b.p.out_sym(*oi, sym) else {
                    continue;
                };
                if !def_is_live(b, *oi, sym) {
                    continue;
                }
                let mut v = u32_at(p, 4);
                if r.attr == nvinfo::EIATTR_REGCOUNT {
                    if let Some(&m) = prop.reg_max.get(&out) {
                        v = m;
                    }
                }
                let mut bytes = vec![r.format, r.attr, 8, 0, 0, 0, 0, 0];
                bytes.extend_from_slice(&v.to_le_bytes());
                out_recs.push(Rec {
                    bytes,
                    slots: vec![(4, out)],
                });
                continue;
            }
        }
        if let Some(rec) = map_record(b, *oi, r) {
            out_recs.push(rec);
        }
    }
    for &k in kernels
        .iter()
        .filter(|&&k| opts.policy.propagates_over_call_graph() && named(k))
    {
        let v = match prop.min_stack[&k] {
            Some(d) => d as u32,
            None => 0xffff_ffff,
        };
        let mut bytes = vec![
            nvinfo::EIFMT_SVAL,
            nvinfo::EIATTR_MIN_STACK_SIZE,
            8,
            0,
            0,
            0,
            0,
            0,
        ];
        bytes.extend_from_slice(&v.to_le_bytes());
        out_recs.push(Rec {
            bytes,
            slots: vec![(4, k)],
        });
    }
    // A module left without functions has no `.nv.info` at all.
    if !out_recs.is_empty() {
        b.add_info_section(OutSection {
            name: b".nv.info".to_vec(),
            sh_type: SHT_CUDA_INFO,
            flags: 0,
            align: 4,
            entsize: 0,
            link: Link::Symtab,
            info: Info::None,
            content: concat(out_recs),
            group: Group::Info,
            section_symbol: None,
        });
    }
}
