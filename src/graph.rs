//! Strongly connected components of a directed graph over dense node ids, so that
//! "over everything reachable" questions (register maximum, stack depth, inherited
//! attributes) are answered in one linear pass over the condensed DAG instead of one
//! traversal per kernel.
//!
//! The call graph's nodes are the module's symbols, of which functions are few (a million
//! variables, a handful of kernels): the tables here are flat arrays of u32, with no
//! allocation per node or per component.

/// Lists of indices one after another in one table (a graph's successor lists, its
/// components' members): list i is `items[start[i]..start[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Lists {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    fn with_capacity(lists: usize, items: usize) -> Lists {
        let mut start = Vec::with_capacity(lists + 1);
        start.push(0);
        Lists {
            start,
            items: Vec::with_capacity(items),
        }
    }

    /// Adds `item` to the list being made.
    fn push(&mut self, item: usize) {
        self.items.push(node(item));
    }

    /// Ends the list being made; the next item begins the next list.
    fn end_list(&mut self) {
        self.start.push(node(self.items.len()));
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn get(&self, i: usize) -> impl ExactSizeIterator<Item = usize> + Clone + '_ {
        self.items[self.start[i] as usize..self.start[i + 1] as usize]
            .iter()
            .map(|&x| x as usize)
    }

    fn nth(&self, i: usize, k: usize) -> Option<usize> {
        let at = self.start[i] as usize + k;
        (at < self.start[i + 1] as usize).then(|| self.items[at] as usize)
    }
}

/// Successor lists of nodes `0..n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Succ(Lists);

impl Succ {
    /// The graph over `0..n` where `succ_of(v)` lists v's successors, in order.
    pub fn new<I: IntoIterator<Item = usize>>(
        n: usize,
        mut succ_of: impl FnMut(usize) -> I,
    ) -> Succ {
        let mut lists = Lists::with_capacity(n, 0);
        for v in 0..n {
            succ_of(v).into_iter().for_each(|w| lists.push(w));
            lists.end_list();
        }
        Succ(lists)
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Node v's successors, in order.
    pub fn of(&self, v: usize) -> impl ExactSizeIterator<Item = usize> + Clone + '_ {
        self.0.get(v)
    }

    /// Node v's i-th successor.
    pub fn nth_of(&self, v: usize, i: usize) -> Option<usize> {
        self.0.nth(v, i)
    }
}

impl From<Vec<Vec<usize>>> for Succ {
    fn from(lists: Vec<Vec<usize>>) -> Succ {
        Succ::new(lists.len(), |v| lists[v].clone())
    }
}

fn node(i: usize) -> u32 {
    u32::try_from(i).expect("more than 4G call-graph nodes or edges")
}

/// The SCCs of a graph, sinks first (every SCC comes after all SCCs it reaches), and the
/// SCC of each node.
pub struct Sccs {
    /// Each component's nodes.
    comps: Lists,
    comp_of: Vec<u32>,
}

impl Sccs {
    /// The number of components.
    pub fn len(&self) -> usize {
        self.comps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Component c's nodes.
    pub fn comp(&self, c: usize) -> impl ExactSizeIterator<Item = usize> + Clone + '_ {
        self.comps.get(c)
    }

    /// The component of node v.
    pub fn comp_of(&self, v: usize) -> usize {
        self.comp_of[v] as usize
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.comp_of.len()
    }

    /// True when the component recurses: several nodes, or one that calls itself.
    pub fn is_cyclic(&self, c: usize, succ: &Succ) -> bool {
        let mut nodes = self.comp(c);
        let first = nodes.next().expect("a component has a node");
        nodes.next().is_some() || succ.of(first).any(|w| w == first)
    }
}

/// Iterative Tarjan: deep call chains cannot overflow the stack.
pub fn sccs(succ: &Succ) -> Sccs {
    let n = succ.len();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut comps = Lists::with_capacity(0, n);
    let mut comp_of = vec![UNSEEN; n];
    let mut next = 0u32;
    // (node, position in its successor list)
    let mut work: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // A node unseen so far without successors is a component of its own: what the walk
        // below would find, without its stacks (most nodes are variables and section symbols:
        // a large link's are hundreds of thousands).
        if succ.of(root).len() == 0 {
            index[root] = next;
            low[root] = next;
            next += 1;
            comp_of[root] = node(comps.len());
            comps.push(root);
            comps.end_list();
            continue;
        }
        work.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(node(root));
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if let Some(w) = succ.nth_of(v, *pos) {
                *pos += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(node(w));
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
                let c = node(comps.len());
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp_of[w as usize] = c;
                    comps.push(w as usize);
                    if w as usize == v {
                        break;
                    }
                }
                comps.end_list();
            }
        }
    }
    Sccs { comps, comp_of }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_sinks_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3
        let g = Succ::from(vec![vec![1, 3], vec![2], vec![1], vec![]]);
        let s = sccs(&g);
        assert_eq!(s.comp_of(1), s.comp_of(2));
        assert!(s.comp_of(0) > s.comp_of(1) && s.comp_of(0) > s.comp_of(3));
        assert!(s.is_cyclic(s.comp_of(1), &g));
        assert!(!s.is_cyclic(s.comp_of(3), &g));
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn a_node_calling_itself_is_a_cycle() {
        let g = Succ::from(vec![vec![0], vec![]]);
        let s = sccs(&g);
        assert!(s.is_cyclic(s.comp_of(0), &g));
        assert!(!s.is_cyclic(s.comp_of(1), &g));
    }

    #[test]
    fn successors_keep_their_order() {
        let g = Succ::from(vec![vec![2, 0, 1], vec![], vec![1]]);
        assert_eq!(g.of(0).collect::<Vec<_>>(), [2, 0, 1]);
        assert_eq!(g.of(1).len(), 0);
        assert_eq!(g.len(), 3);
    }

    #[test]
    fn nodes_without_successors_are_numbered_where_the_walk_meets_them() {
        // 0 -> 2, 1 alone, 2 alone, 3 -> 0: components 2, 0, 1, 3 in that order.
        let g = Succ::from(vec![vec![2], vec![], vec![], vec![0]]);
        let s = sccs(&g);
        let order: Vec<Vec<usize>> = (0..s.len()).map(|c| s.comp(c).collect()).collect();
        assert_eq!(order, [vec![2], vec![0], vec![1], vec![3]]);
        assert_eq!(
            (0..4).map(|v| s.comp_of(v)).collect::<Vec<_>>(),
            [1, 2, 0, 3]
        );
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let n = 200_000;
        let g = Succ::new(n, |i| (i + 1 < n).then_some(i + 1));
        let s = sccs(&g);
        assert_eq!(s.len(), n);
        assert_eq!(s.comp(0).collect::<Vec<_>>(), [n - 1]);
    }
}
