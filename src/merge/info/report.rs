//! `--dump-callgraph`.

use crate::elf::*;
use crate::merge::{Builder, Options};
use crate::output::*;
use hashbrown::{HashMap, HashSet};

/// nvlink's `--dump-callgraph` text: every function the link met, numbered from 1 (removed
/// ones as empty lines), with `^` for kernels, `&` for address-taken functions, the function's
/// own register count, and the numbers of what it may call: the possible targets of its
/// indirect calls (address-taken functions of the call's prototype, newest first), then its
/// direct callees (newest first). Then, per kernel (last first), a line each time a function
/// met on a depth-first walk raises its register count. (Output identical to nvlink's on
/// every link of the corpus.)
pub(super) fn callgraph_report(
    b: &Builder<'_, '_>,
    opts: &Options,
    graph: &super::callgraph::CallGraph,
    regs: &super::facts::PerSymbol,
    kernels: &[OutSym],
) -> Vec<String> {
    use crate::demangle::demangle;
    let name = |s: OutSym| demangle(&String::from_utf8_lossy(&b.m.symbols[s].name));
    let nodes: Vec<Option<OutSym>> = b.func_nodes.iter().map(|&n| b.p.node_symbol(n)).collect();
    let number: HashMap<OutSym, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(k, s)| s.map(|s| (s, k + 1)))
        .collect();
    let blocks = &graph.blocks;
    let address_taken = &blocks.address_taken;
    let taken: HashSet<OutSym> = address_taken.iter().map(|e| e.0).collect();
    // (each caller's callees newest first, as `.nv.callgraph` lists them)
    let direct = |f: OutSym| graph.direct_callees.get(f).iter().rev().copied();
    let mut out = vec![
        // (the SM, without an 'a' or 'f' suffix)
        format!("callgraph for sm_{}:", opts.policy.sm()),
        "# A: s -> B // s (number A) potentially calls B".to_string(),
        "# s [N]     // s uses N registers".to_string(),
        "# ^s        // s is entry point".to_string(),
        "# &s        // s has address taken".to_string(),
    ];
    for (k, s) in nodes.iter().enumerate() {
        let Some(s) = *s else {
            out.push(format!("{}: ", k + 1));
            continue;
        };
        let sym = &b.m.symbols[s];
        let mut line = format!("{}: ", k + 1);
        if sym.other & STO_CUDA_ENTRY != 0 {
            line.push('^');
        }
        if taken.contains(&s) {
            line.push('&');
        }
        line.push_str(&name(s));
        if sym.section.is_some() {
            line.push_str(&format!(" [{}]", super::facts::value_of(regs, s)));
        }
        line.push_str(" ->");
        for &(caller, proto) in blocks.indirect_sites.iter().filter(|e| e.0 == s) {
            let _ = caller;
            for &(t, p) in address_taken.iter().rev() {
                if p == proto {
                    if let Some(n) = number.get(&t) {
                        line.push_str(&format!(" {n}"));
                    }
                }
            }
        }
        for t in direct(s) {
            if let Some(n) = number.get(&t) {
                line.push_str(&format!(" {n}"));
            }
        }
        out.push(line);
    }
    // Which functions each function may call, in the order nvlink walks them when it
    // propagates register counts: direct callees (newest first), then the possible targets of
    // each indirect call site (address-taken functions of its prototype, oldest first).
    let children = |f: OutSym| -> Vec<OutSym> {
        let mut v: Vec<OutSym> = direct(f).collect();
        for &(_, proto) in blocks.indirect_sites.iter().filter(|e| e.0 == f) {
            v.extend(address_taken.iter().filter(|e| e.1 == proto).map(|e| e.0));
        }
        v
    };
    for &k in kernels.iter().rev() {
        // A depth-first walk from the kernel; every function whose own count exceeds what
        // the kernel has so far raises it, with a line.
        let mut current = super::facts::value_of(regs, k);
        let mut seen: HashSet<OutSym> = HashSet::new();
        seen.insert(k);
        let mut stack: Vec<OutSym> = children(k).into_iter().rev().collect();
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            let r = super::facts::value_of(regs, f);
            if r > current {
                current = r;
                out.push(format!(
                    "regcount {r} for {} propagated to entry {}",
                    name(f),
                    name(k)
                ));
            }
            stack.extend(children(f).into_iter().rev());
        }
    }
    out
}
