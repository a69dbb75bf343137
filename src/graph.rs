//! Strongly connected components of a directed graph over dense node ids, so that
//! "over everything reachable" questions (register maximum, stack depth, inherited
//! attributes) are answered in one linear pass over the condensed DAG instead of one
//! traversal per kernel.

/// The SCCs of `succ`, sinks first (every SCC comes after all SCCs it reaches), and the SCC
/// of each node. Iterative Tarjan: deep call chains cannot overflow the stack.
pub struct Sccs {
    pub comps: Vec<Vec<usize>>,
    pub comp_of: Vec<usize>,
}

pub fn sccs(succ: &[Vec<usize>]) -> Sccs {
    let n = succ.len();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut comp_of = vec![UNSEEN; n];
    let mut next = 0usize;
    // (node, position in its successor list)
    let mut work: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        work.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp_of[w] = comps.len();
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(comp);
            }
        }
    }
    Sccs { comps, comp_of }
}

impl Sccs {
    /// True when the component recurses: several nodes, or one that calls itself.
    pub fn is_cyclic(&self, comp: usize, succ: &[Vec<usize>]) -> bool {
        let c = &self.comps[comp];
        c.len() > 1 || succ[c[0]].contains(&c[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_sinks_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3
        let g = vec![vec![1, 3], vec![2], vec![1], vec![]];
        let s = sccs(&g);
        assert_eq!(s.comp_of[1], s.comp_of[2]);
        assert!(s.comp_of[0] > s.comp_of[1] && s.comp_of[0] > s.comp_of[3]);
        assert!(s.is_cyclic(s.comp_of[1], &g));
        assert!(!s.is_cyclic(s.comp_of[3], &g));
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let n = 200_000;
        let g: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let s = sccs(&g);
        assert_eq!(s.comps.len(), n);
        assert_eq!(s.comps[0], vec![n - 1]);
    }
}
