//! EXTERNS: the still-undefined names (and launched kernels) each function reaches.

use super::callgraph::{place_of, CallGraph, InfoPlaces};
use super::lists::SymLists;
use super::records::*;
use crate::ids::ObjectId;
use crate::merge::Builder;
use crate::output::*;
use hashbrown::HashMap;

/// EXTERNS of each function, as the inputs list them (callees and undefined names), then
/// the callees the call graph adds (a partial link's output lists only what was still
/// undefined, its callees' externs are reached through the calls); and what each function
/// reaches (`ExternClosure`), for a link whose only kernel it is where `sole_kernel`.
pub(super) fn externs(
    b: &Builder<'_, '_>,
    graph: &CallGraph,
    facts: &super::facts::Facts,
    sole_kernel: bool,
) -> (Adjacency, ExternClosure) {
    // (A defined function an EXTERNS record names but the function does not call — ptxas
    // names one whose address only the object's data holds — leads nowhere: nvlink follows
    // calls.)
    let n = b.m.symbols.len();
    // What the lists below ask of each symbol, read once in symbol order (each look-up would
    // read a symbol from anywhere in a table of megabytes: a large link's calls are
    // hundreds of thousands).
    let (placed, kernel): (Vec<bool>, Vec<bool>) =
        b.m.symbols
            .iter()
            .map(|s| (s.section.is_some(), is_kernel(s)))
            .unzip();
    let listed: Vec<(OutSym, OutSym)> = facts
        .iter()
        .flat_map(|(f, x)| {
            let (placed, kernel) = (&placed, &kernel);
            x.externs
                .iter()
                .copied()
                .filter(move |&c| {
                    !placed[c.index()]
                        || kernel[c.index()]
                        || graph.direct_callees.get(f).contains(&c)
                })
                .map(move |c| (f, c))
        })
        .collect();
    let mut called: Vec<(OutSym, OutSym)> = Vec::with_capacity(graph.blocks.calls.len());
    called.extend(
        graph
            .blocks
            .calls
            .iter()
            .copied()
            .filter(|&(_, c)| placed[c.index()]),
    );
    let externs = SymLists::grouped(n, &listed).extended(&SymLists::grouped_unique(n, &called));

    // The still-undefined externs each function reaches, the possible targets of its indirect
    // calls included.
    // A kernel among the possible targets of an indirect call is a launch (the compiler
    // marks the child of a dynamic-parallelism launch so): its externs stay its own.
    // A function with no indirect call site of its own (its calls were devirtualized, or it
    // only stores a vtable) may still list indirect targets in the call graph. nvlink gathers
    // their externs for the link's only kernel (black-box, sm_75: a `delete` through a known
    // type; testdata indirect_listed_targets), and for no kernel of a link of several, whether
    // or not anything calls through a pointer (sm_75–sm_120: a kernel reaching a factory
    // that makes objects whose deleting destructors call free lists malloc alone, next to any
    // other kernel; testdata listed_targets_many_kernels).
    let listed_targets: Vec<(OutSym, OutSym)> = if sole_kernel {
        graph
            .blocks
            .indirect_targets
            .iter()
            .copied()
            .filter(|&(f, t)| !kernel[t.index()] && !graph.indirect_sites.has(f))
            .collect()
    } else {
        Vec::new()
    };
    let indirect_callees = graph
        .indirect_targets
        .filtered(|t| !kernel[t.index()])
        .extended(&SymLists::grouped_unique(n, &listed_targets));
    // Kernels stay in EXTERNS as they are named (a dynamic-parallelism launch needs the
    // child's handle), like undefined names; other defined functions are walked through.
    let defined: Vec<bool> = placed.iter().zip(&kernel).map(|(&p, &k)| p && !k).collect();
    let externs_all =
        ExternClosure::build(n, &externs, &indirect_callees, &defined, &graph.info_place);
    (externs, externs_all)
}

/// The still-undefined names (and launched kernels) each function reaches, for EXTERNS.
///
/// nvlink gathers them function by function in the order of the functions' `.nv.info.<fn>`
/// sections among the inputs, each function's own names in its record's order, over every
/// function reached through calls and the possible targets of indirect calls (black-box,
/// sm_75–sm_120: testdata virtual, externs_callee_before_indirect, indirect_listed_targets,
/// fuzz seeds 2, 18, 29). `externs_by_info` says it plainly; this computes the same once per
/// strongly connected component of the call graph, sinks first: each component keeps, per
/// name, the earliest place it is listed at among what the component reaches — so the work
/// is bounded by the names, not by the functions each kernel reaches.
pub(super) struct ExternClosure {
    graph: crate::graph::Sccs,
    /// Per component: each name reached, with its key (`.nv.info` place, index in the list).
    reached: Vec<Reached>,
}

/// The names a component reaches, each once (none for most: a module's variables are nodes
/// too).
type Reached = Option<Box<[(OutSym, NameKey)]>>;

/// Where a name is first listed: the listing function's `.nv.info` place (object, section;
/// none: after all, by function id), then the name's index in that function's list.
type NameKey = (ObjectId, usize, usize);

impl ExternClosure {
    /// Over the `n` symbols, of which `defined` says which are walked through.
    fn build(
        n: usize,
        externs: &Adjacency,
        indirect: &Adjacency,
        defined: &[bool],
        info_place: &InfoPlaces,
    ) -> Self {
        let is_defined = |x: &OutSym| defined.get(x.index()).copied().unwrap_or(false);
        let succ = crate::graph::Succ::new(n, |i| {
            let f = OutSym::from_index(i);
            indirect
                .get(f)
                .iter()
                .chain(externs.get(f).iter().filter(|x| is_defined(x)))
                .map(|&x| x.index())
        });
        let g = crate::graph::sccs(&succ);
        let mut reached: Vec<Reached> = Vec::with_capacity(g.len());
        // (One table of names and one mark per component, reused: most components reach no
        // name, and a table and a set made for each were a fifth of this pass.)
        let mut names: HashMap<OutSym, NameKey> = HashMap::new();
        // By component: the last component that merged it in.
        let mut merged_into = vec![usize::MAX; g.len()];
        for c in 0..g.len() {
            let mut merge = |x: OutSym, key: NameKey| {
                names
                    .entry(x)
                    .and_modify(|k| *k = (*k).min(key))
                    .or_insert(key);
            };
            for f in g.comp(c) {
                let (o, s) =
                    place_of(info_place, OutSym::from_index(f)).unwrap_or((ObjectId::MAX, f));
                let own = externs.get(OutSym::from_index(f)).iter();
                for (i, &x) in own.filter(|x| !is_defined(x)).enumerate() {
                    merge(x, (o, s, i));
                }
                for t in succ.of(f) {
                    let tc = g.comp_of(t);
                    // (each component it reaches merged once, however many edges lead there)
                    if tc != c && merged_into[tc] != c {
                        merged_into[tc] = c;
                        for &(x, key) in reached[tc].iter().flat_map(|m| m.iter()) {
                            merge(x, key);
                        }
                    }
                }
            }
            if names.is_empty() {
                reached.push(None);
                continue;
            }
            reached.push(Some(names.iter().map(|(&x, &k)| (x, k)).collect()));
            // (Emptying a table costs its capacity: one grown large for a component that
            // reaches many names is not kept for the many that reach few.)
            if names.capacity() > 4 * names.len().max(16) {
                names = HashMap::new();
            } else {
                names.clear();
            }
        }
        ExternClosure { graph: g, reached }
    }

    pub(super) fn get(&self, f: OutSym) -> Vec<OutSym> {
        let Some(Some(names)) =
            (f.index() < self.graph.nodes()).then(|| &self.reached[self.graph.comp_of(f.index())])
        else {
            return Vec::new();
        };
        let mut v: Vec<(NameKey, OutSym)> = names.iter().map(|&(x, k)| (k, x)).collect();
        v.sort_unstable();
        v.into_iter().map(|(_, x)| x).collect()
    }
}

/// The rule `ExternClosure` computes, said plainly (the tests hold the two equal).
/// What `f` reaches through the defined functions its EXTERNS adjacency names and through
/// `indirect` targets, gathered in `.nv.info` order (`info_place`; functions without one last,
/// by id): each reached function's names that are not `defined`, in its own order, once.
#[cfg(test)]
fn externs_by_info(
    f: OutSym,
    externs: &Adjacency,
    indirect: &Adjacency,
    defined: &[bool],
    info_place: &InfoPlaces,
) -> Vec<OutSym> {
    let is_defined = |x: &OutSym| defined.get(x.index()).copied().unwrap_or(false);
    let mut seen: hashbrown::HashSet<OutSym> = hashbrown::HashSet::new();
    let mut stack = vec![f];
    let mut reached = Vec::new();
    while let Some(g) = stack.pop() {
        if !seen.insert(g) {
            continue;
        }
        reached.push(g);
        stack.extend(indirect.get(g).iter().copied());
        stack.extend(externs.get(g).iter().filter(|x| is_defined(x)));
    }
    reached.sort_by_key(|&g| place_of(info_place, g).unwrap_or((ObjectId::MAX, g.index())));
    let mut out = Vec::new();
    let mut listed: hashbrown::HashSet<OutSym> = hashbrown::HashSet::new();
    for g in reached {
        for &x in externs.get(g) {
            if !is_defined(&x) && listed.insert(x) {
                out.push(x);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syms<const N: usize>(v: [u32; N]) -> Vec<OutSym> {
        v.into_iter().map(OutSym::new).collect()
    }
    /// (symbols 0..32)
    const N: usize = 32;
    fn set<const K: usize>(v: [u32; K]) -> Vec<bool> {
        let mut d = vec![false; N];
        for i in v {
            d[i as usize] = true;
        }
        d
    }
    fn adj<const K: usize>(v: [(u32, Vec<u32>); K]) -> Adjacency {
        let pairs: Vec<(OutSym, OutSym)> = v
            .into_iter()
            .flat_map(|(f, l)| l.into_iter().map(move |x| (OutSym::new(f), OutSym::new(x))))
            .collect();
        Adjacency::grouped(N, &pairs)
    }
    fn places<const K: usize>(v: [(u32, (usize, usize)); K]) -> InfoPlaces {
        let mut p = InfoPlaces::filled(None, N);
        for (f, (o, s)) in v {
            p[OutSym::new(f)] = Some((ObjectId::from_index(o), s));
        }
        p
    }

    #[test]
    fn externs_are_gathered_in_info_order_over_everything_reached() {
        // f (0) calls g (1) and may call t (2) through a pointer; f names malloc (10), g names
        // vprintf (12) and free (11), t names free. Their `.nv.info` sections: t, g, f.
        let externs = adj([(0, vec![1, 10]), (1, vec![12, 11]), (2, vec![11])]);
        let indirect = adj([(0, vec![2])]);
        let defined = set([0, 1, 2]);
        let place = places([(2, (0, 1)), (1, (0, 2)), (0, (1, 0))]);
        assert_eq!(
            externs_by_info(OutSym::new(0), &externs, &indirect, &defined, &place),
            syms([11, 12, 10])
        );
    }

    #[test]
    fn externs_of_a_cycle_are_gathered_once() {
        // f (0) and g (1) call each other; each names one undefined name.
        let externs = adj([(0, vec![1, 10]), (1, vec![0, 11])]);
        let defined = set([0, 1]);
        let place = places([(0, (0, 2)), (1, (0, 1))]);
        let none = Adjacency::default();
        assert_eq!(
            externs_by_info(OutSym::new(0), &externs, &none, &defined, &place),
            syms([11, 10])
        );
    }

    #[test]
    fn the_per_component_closure_equals_the_plain_walk() {
        // A small graph with a cycle (1 <-> 2), an indirect edge and shared callees.
        let externs = adj([
            (0, vec![1, 10, 3]),
            (1, vec![2, 11]),
            (2, vec![1, 12, 10]),
            (3, vec![13, 11]),
            (4, vec![12]),
        ]);
        let indirect = adj([(0, vec![4]), (3, vec![4])]);
        let defined = set([0, 1, 2, 3, 4]);
        let place = places([(4, (0, 1)), (2, (0, 5)), (0, (1, 0)), (1, (1, 3))]);
        let c = ExternClosure::build(14, &externs, &indirect, &defined, &place);
        for f in (0..5).map(OutSym::new) {
            assert_eq!(
                c.get(f),
                externs_by_info(f, &externs, &indirect, &defined, &place),
                "function {f:?}"
            );
        }
    }

    #[test]
    fn kernels_named_stay_names() {
        // f (0) launches the kernel k (5): not walked through, listed.
        let externs = adj([(0, vec![5, 10])]);
        let defined = set([0]);
        let none = Adjacency::default();
        assert_eq!(
            externs_by_info(OutSym::new(0), &externs, &none, &defined, &places([])),
            syms([5, 10])
        );
    }
}
