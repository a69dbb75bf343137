//! Kernel resources over the call graph: the register count raised to the heaviest callee's,
//! MIN_STACK_SIZE over call paths (unbounded through recursion), barriers and %ctaid.z use
//! inherited from callees; the launch-bounds error and the stack-size warning.
//! (-r propagates nothing: callees may still be undefined.)

use super::callgraph::CallGraph;
use super::facts::{value_of, GlobalFacts, PerSymbol, Uses};
use crate::elf::nvinfo;
use crate::graph::Succ;
use crate::merge::{Builder, Options};
use crate::output::*;
use hashbrown::HashMap;

/// What propagation found, per kernel.
pub(super) struct Propagated {
    /// The call graph as successor lists by symbol id: direct calls, then the possible
    /// targets of calls through pointers.
    pub succ: Succ,
    /// MIN_STACK_SIZE (None: unbounded, through recursion).
    pub min_stack: HashMap<OutSym, Option<u64>>,
    /// REGCOUNT over everything the kernel reaches.
    pub reg_max: HashMap<OutSym, u32>,
    /// What the kernel's callees bring (`nvinfo::INHERITED`: the barrier count, %ctaid.z
    /// use, ...).
    pub inherited: HashMap<OutSym, Uses>,
}

/// `--resource-usage`: what determined a kernel's figures (those of `KernelFacts`).
pub(crate) struct KernelUsage {
    pub kernel: OutSym,
    pub registers: u32,
    /// From the kernel to the function whose register count it is (the kernel alone where
    /// it is its own).
    pub register_chain: Vec<OutSym>,
    pub barriers: u32,
    /// MIN_STACK_SIZE; None: unbounded (recursion).
    pub stack: Option<u64>,
    /// The deepest call path, each function with its own frame.
    pub stack_chain: Vec<(OutSym, u32)>,
    /// Where that path enters a recursion.
    pub recursion: Option<OutSym>,
}

/// Facts over everything each strongly connected component of the call graph reaches.
struct Components {
    graph: crate::graph::Sccs,
    /// The deepest stack below and in the component (None through recursion).
    depth: Vec<Option<u64>>,
    /// The register maximum and the function holding it, and the inherited records, over
    /// what the component's callees reach (itself excluded unless it recurses).
    below_regs: Vec<(u32, OutSym)>,
    below_uses: Vec<Uses>,
}

/// What `propagate` says: warnings, and link errors (the caller adds them to the link's, in
/// this order, where the pass stands among the others; it reads the builder, so it can run
/// beside another pass that does).
#[derive(Default)]
pub(super) struct Said {
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
}

pub(super) fn propagate(
    b: &Builder<'_, '_>,
    opts: &Options,
    global: &GlobalFacts,
    graph: &CallGraph,
    facts: &super::facts::Facts,
    kernels: &[OutSym],
    roots: &hashbrown::HashSet<OutSym>,
) -> (Propagated, Vec<super::KernelFacts>, Vec<KernelUsage>, Said) {
    let mut said = Said::default();
    let (regs, frame) = (&global.regs, &global.frame);
    let mut kernel_facts = Vec::new();
    let mut usage = Vec::new();

    // Per function: its records kernels take on.
    let own = |f: usize| {
        facts
            .get(&OutSym::from_index(f))
            .map_or(Uses::default(), |x| x.uses)
    };
    let n = b.m.symbols.len();
    let succ = Succ::new(n, |f| {
        graph
            .callees
            .get(OutSym::from_index(f))
            .iter()
            .map(|c| c.index())
    });
    let comps = components(
        &succ,
        |f| value_of(regs, OutSym::from_index(f)),
        |f| value_of(frame, OutSym::from_index(f)),
        own,
    );
    let orphans = orphan_barriers(opts, &succ, facts, kernels);
    let mut reg_max: HashMap<OutSym, u32> = HashMap::new();
    let mut over_limit: Option<String> = None;
    let mut min_stack: HashMap<OutSym, Option<u64>> = HashMap::new();
    let mut inherited: HashMap<OutSym, Uses> = HashMap::new();
    // (-preserve-relocs keeps the kernels -kernels-used does not name or host code does not
    // launch, but neither raises their register counts, in the records or in -v's report,
    // nor computes their stack, as in nvlink.)
    let named = |k: OutSym| roots.contains(&k);
    // -r propagates nothing over the call graph: callees may still be undefined.
    for &k in kernels
        .iter()
        .filter(|_| opts.policy.propagates_over_call_graph())
    {
        let c = comps.graph.comp_of(k.index());
        let own_regs = value_of(regs, k);
        let (callee_regs, heaviest) = if named(k) {
            comps.below_regs[c]
        } else {
            (0, k)
        };
        // A kernel's register limit from its launch bounds (EIATTR_MAXREG_COUNT).
        if let Some(l) = facts.get(&k).and_then(|x| x.maxreg) {
            if callee_regs > l && over_limit.is_none() {
                // Better than nvlink: the calls that reach it.
                let chain: Vec<String> = path(&succ, k, heaviest)
                    .iter()
                    .map(|&f| format!("'{}'", String::from_utf8_lossy(&b.m.symbols[f].name)))
                    .collect();
                over_limit = Some(format!(
                    "entry function '{}' with max regcount of {l} calls function '{}' with regcount of {callee_regs}; call chain: {}",
                    String::from_utf8_lossy(&b.m.symbols[k].name),
                    String::from_utf8_lossy(&b.m.symbols[heaviest].name),
                    chain.join(" -> ")
                ));
            }
        }
        reg_max.insert(k, own_regs.max(callee_regs));
        let below = comps.below_uses[c];
        let below = match orphans {
            0 => below,
            n => below.with(nvinfo::EIATTR_NUM_BARRIERS, u16::from(n)),
        };
        if let Some(e) = sparse_mask_without_own(k, own(k.index()), below, b) {
            said.errors.push(e);
        }
        inherited.insert(k, below);
        let depth = comps.depth[c];
        if depth.is_none() && !opts.suppress_stack_size_warning {
            // Once for each callee through which the stack is unbounded, and at each indirect
            // call site once for each such possible target.
            let unbounded = |g: OutSym| comps.depth[comps.graph.comp_of(g.index())].is_none();
            let direct = graph
                .direct_callees
                .get(k)
                .iter()
                .filter(|&&g| unbounded(g))
                .count();
            let indirect: usize = graph
                .indirect_sites
                .get(k)
                .iter()
                .map(|id| {
                    graph
                        .by_prototype
                        .get(id)
                        .map_or(0, |ts| ts.iter().filter(|&&t| unbounded(t)).count())
                })
                .sum();
            for _ in 0..(direct + indirect).max(1) {
                said.warnings.push(format!(
                    "Stack size for entry function '{}' cannot be statically determined",
                    String::from_utf8_lossy(&b.m.symbols[k].name)
                ));
            }
        }
        min_stack.insert(k, depth);
        let bars = below.barriers().max(own(k.index()).barriers()) as u32;
        let frame_k = value_of(frame, k);
        if opts.resource_usage.is_some() {
            let register_chain = if callee_regs > own_regs {
                path(&succ, k, heaviest)
            } else {
                vec![k]
            };
            let (stack_chain, recursion) = deepest_path(&succ, &comps, frame, k);
            usage.push(KernelUsage {
                kernel: k,
                registers: own_regs.max(callee_regs),
                register_chain,
                barriers: bars,
                stack: depth,
                stack_chain,
                recursion,
            });
        }
        // An unknown stack size reports as 0.
        kernel_facts.push((
            k,
            own_regs.max(callee_regs),
            bars,
            depth.unwrap_or(0),
            frame_k,
        ));
    }
    if let Some(e) = over_limit {
        said.errors.push(e);
    }
    let prop = Propagated {
        succ,
        min_stack,
        reg_max,
        inherited,
    };
    (prop, kernel_facts, usage, said)
}

/// A shortest call path from `from` to `to` (breadth first, callees in order).
fn path(succ: &Succ, from: OutSym, to: OutSym) -> Vec<OutSym> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([from.index()]);
    parent.insert(from.index(), from.index());
    while let Some(f) = queue.pop_front() {
        if f == to.index() {
            break;
        }
        for g in succ.of(f) {
            if let hashbrown::hash_map::Entry::Vacant(e) = parent.entry(g) {
                e.insert(f);
                queue.push_back(g);
            }
        }
    }
    let mut out = vec![to];
    let mut f = to.index();
    while f != from.index() {
        match parent.get(&f) {
            Some(&p) => f = p,
            None => return vec![from, to],
        }
        out.push(OutSym::from_index(f));
    }
    out.reverse();
    out
}

/// The call path that makes `k`'s stack: at each step the callee whose depth is the
/// greatest (the first such); where depths are unbounded, down to the recursion.
fn deepest_path(
    succ: &Succ,
    comps: &Components,
    frame: &PerSymbol,
    k: OutSym,
) -> (Vec<(OutSym, u32)>, Option<OutSym>) {
    let depth = |f: usize| comps.depth[comps.graph.comp_of(f)];
    let frame_of = |f: usize| value_of(frame, OutSym::from_index(f));
    let mut chain = Vec::new();
    let mut f = k.index();
    // (Each step goes down one component: no more steps than functions.)
    for _ in 0..=succ.len() {
        chain.push((OutSym::from_index(f), frame_of(f)));
        let c = comps.graph.comp_of(f);
        if comps.graph.is_cyclic(c, succ) {
            return (chain, Some(OutSym::from_index(f)));
        }
        let deeper = succ
            .of(f)
            .filter(|&g| comps.graph.comp_of(g) != c)
            .reduce(|best, g| match (depth(best), depth(g)) {
                (Some(x), Some(y)) if y > x => g,
                (Some(_), None) => g,
                _ => best,
            });
        match deeper {
            Some(g) => f = g,
            None => break,
        }
    }
    (chain, None)
}

/// -preserve-relocs and -g keep the functions no kernel calls; when the link has one kernel,
/// nvlink gives it their barriers as if it called them (their registers, stack and shared
/// memory not; with two kernels, neither gets them). Black-box, sm_75-sm_120: an uncalled
/// function with __syncthreads() beside a kernel without (testdata orphan_barrier, also
/// linked -g).
fn orphan_barriers(
    opts: &Options,
    succ: &Succ,
    facts: &super::facts::Facts,
    kernels: &[OutSym],
) -> u8 {
    let &[k] = kernels else {
        return 0;
    };
    if opts.policy.removes_dead_code() || !opts.policy.propagates_over_call_graph() {
        return 0;
    }
    let mut reached = hashbrown::HashSet::new();
    let mut stack = vec![k.index()];
    while let Some(f) = stack.pop() {
        if reached.insert(f) {
            stack.extend(succ.of(f));
        }
    }
    facts
        .iter()
        .filter(|(f, _)| !reached.contains(&f.index()))
        .map(|(_, x)| x.uses.barriers())
        .max()
        .unwrap_or(0)
}

/// Facts over everything a function reaches, in one pass over the call graph's strongly
/// connected components (sinks first): the register maximum (and the function holding it),
/// the deepest stack (None through recursion), the inherited records.
/// `regs`, `frame` and `own` (its records kernels take on) give each function's own, by
/// index.
fn components(
    succ: &Succ,
    regs: impl Fn(usize) -> u32,
    frame: impl Fn(usize) -> u32,
    own: impl Fn(usize) -> Uses,
) -> Components {
    let graph = crate::graph::sccs(succ);
    let nc = graph.len();
    let mut c_regs: Vec<(u32, OutSym)> = vec![(0, OutSym::new(0)); nc];
    let mut c_depth: Vec<Option<u64>> = vec![Some(0); nc];
    let mut c_uses: Vec<Uses> = vec![Uses::default(); nc];
    // What each component's callees reach (the component itself excluded unless it recurses).
    let mut below_regs: Vec<(u32, OutSym)> = vec![(0, OutSym::new(0)); nc];
    let mut below_uses: Vec<Uses> = vec![Uses::default(); nc];
    for c in 0..nc {
        let comp = graph.comp(c);
        let cyclic = graph.is_cyclic(c, succ);
        let mut regs_best = (0u32, OutSym::new(0));
        let mut uses = Uses::default();
        let mut deepest = Some(0u64);
        let mut below_r = (0u32, OutSym::new(0));
        let mut below_u = Uses::default();
        for f in comp.clone() {
            let r = regs(f);
            if r > regs_best.0 {
                regs_best = (r, OutSym::from_index(f));
            }
            uses = uses.join(own(f));
            for g in succ.of(f) {
                let gc = graph.comp_of(g);
                if gc == c {
                    continue;
                }
                if c_regs[gc].0 > below_r.0 {
                    below_r = c_regs[gc];
                }
                below_u = below_u.join(c_uses[gc]);
                deepest = match (deepest, c_depth[gc]) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                };
            }
        }
        if cyclic {
            // Inside a cycle every member reaches every other.
            if regs_best.0 > below_r.0 {
                below_r = regs_best;
            }
            below_u = below_u.join(uses);
        }
        below_regs[c] = below_r;
        below_uses[c] = below_u;
        c_regs[c] = if regs_best.0 >= below_r.0 {
            regs_best
        } else {
            below_r
        };
        c_uses[c] = uses.join(below_u);
        c_depth[c] = if cyclic {
            None
        } else {
            deepest.map(|d| d + frame(graph.comp(c).next().unwrap()) as u64)
        };
    }
    Components {
        graph,
        depth: c_depth,
        below_regs,
        below_uses,
    }
}

/// A kernel without EIATTR_SPARSE_MMA_MASK reaching functions with a non-zero one: nvlink
/// fails ("Internal error: entry_info was null"); with zero it writes 0x8000 (black-box,
/// sm_90, crafted records: ptxas gives every sm_80+ function the record).
fn sparse_mask_without_own(
    k: OutSym,
    own: Uses,
    below: Uses,
    b: &Builder<'_, '_>,
) -> Option<String> {
    let v = below.get(nvinfo::EIATTR_SPARSE_MMA_MASK)?;
    (v != 0 && own.get(nvinfo::EIATTR_SPARSE_MMA_MASK).is_none()).then(|| {
        crate::diag::Error::not_implemented(format!(
            "kernel '{}', which has no EIATTR_SPARSE_MMA_MASK record, calling functions whose \
             record is {v:#x} (nvlink fails on it)",
            String::from_utf8_lossy(&b.m.symbols[k].name)
        ))
        .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each function's value by index (the default where `entries` gives none).
    fn map<V: Copy + Default>(entries: &[(u32, V)]) -> impl Fn(usize) -> V {
        let m: HashMap<usize, V> = entries.iter().map(|&(f, v)| (f as usize, v)).collect();
        move |f| m.get(&f).copied().unwrap_or_default()
    }

    /// What function `f`'s callees bring, and its stack depth.
    fn below(c: &Components, f: usize) -> ((u32, OutSym), (u8, bool), Option<u64>) {
        let k = c.graph.comp_of(f);
        let u = c.below_uses[k];
        let ctaidz = u.get(nvinfo::EIATTR_CTAIDZ_USED).is_some();
        (c.below_regs[k], (u.barriers(), ctaidz), c.depth[k])
    }

    /// A function's records: `bars` barriers, %ctaid.z use.
    fn uses(bars: u8, ctaidz: bool) -> Uses {
        let u = Uses::default();
        let u = match bars {
            0 => u,
            n => u.with(nvinfo::EIATTR_NUM_BARRIERS, u16::from(n)),
        };
        match ctaidz {
            true => u.with(nvinfo::EIATTR_CTAIDZ_USED, 1),
            false => u,
        }
    }

    #[test]
    fn a_kernel_gets_the_registers_of_its_heaviest_callee_and_who_holds_them() {
        // 0 calls 1, which calls 2 (the heaviest) and 3.
        let succ = Succ::from(vec![vec![1], vec![2, 3], vec![], vec![]]);
        let regs = map(&[(0, 10), (1, 20), (2, 40), (3, 30)]);
        let c = components(&succ, regs, map(&[]), map(&[]));
        assert_eq!(below(&c, 0).0, (40, OutSym::new(2)));
        assert_eq!(below(&c, 3).0, (0, OutSym::new(0)));
    }

    #[test]
    fn the_stack_is_the_deepest_path_of_frames() {
        // 0 (8 bytes) calls 1 (16) and 2 (32).
        let succ = Succ::from(vec![vec![1, 2], vec![], vec![]]);
        let frame = map(&[(0, 8), (1, 16), (2, 32)]);
        let c = components(&succ, map(&[]), frame, map(&[]));
        assert_eq!(below(&c, 0).2, Some(40));
    }

    #[test]
    fn recursion_leaves_the_stack_unbounded_for_every_caller() {
        // 0 calls 1; 1 and 2 call each other.
        let succ = Succ::from(vec![vec![1], vec![2], vec![1]]);
        let c = components(&succ, map(&[]), map(&[]), map(&[]));
        assert_eq!(below(&c, 0).2, None);
        assert_eq!(below(&c, 1).2, None);
    }

    #[test]
    fn barriers_and_ctaid_z_come_up_from_callees() {
        // 0 calls 1, which calls 2: 1 uses 2 barriers, 2 reads %ctaid.z and uses 1.
        let succ = Succ::from(vec![vec![1], vec![2], vec![]]);
        let own = map(&[(1, uses(2, false)), (2, uses(1, true))]);
        let c = components(&succ, map(&[]), map(&[]), own);
        assert_eq!(below(&c, 0).1, (2, true));
        assert_eq!(below(&c, 1).1, (1, true));
    }

    #[test]
    fn a_function_in_a_cycle_counts_itself_among_what_it_reaches() {
        // 0 and 1 call each other; 1 is the heavier.
        let succ = Succ::from(vec![vec![1], vec![0]]);
        let regs = map(&[(0, 10), (1, 50)]);
        let c = components(&succ, regs, map(&[]), map(&[]));
        assert_eq!(below(&c, 0).0, (50, OutSym::new(1)));
    }
}
