//! Lists keyed by output symbol (callees, EXTERNS, indirect call sites), one after another in
//! one table. The call graph's nodes are the module's symbols — tens of thousands of
//! functions in a large link — and every rule asks "the list of f": a dense table answers
//! that with two loads, where a map of vectors hashed, and allocated, once per function.

use crate::output::OutSym;

/// List `k` is `items[start[k]..start[k + 1]]`; keys past the table have empty lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SymLists<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for SymLists<T> {
    fn default() -> Self {
        SymLists {
            start: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T: Copy> SymLists<T> {
    /// The pairs grouped by key, each list in the pairs' order (keys below `n`).
    pub fn grouped(n: usize, pairs: &[(OutSym, T)]) -> Self {
        if pairs.is_empty() {
            return SymLists::default();
        }
        let n = n.max(pairs.iter().map(|p| p.0.index() + 1).max().unwrap_or(0));
        let (items, start) = crate::ids::grouped_by(n, pairs, |p| p.0.index(), |p| p.1);
        SymLists { start, items }
    }

    /// Key `k`'s list (empty for a key without one).
    pub fn get(&self, k: OutSym) -> &[T] {
        match (self.start.get(k.index()), self.start.get(k.index() + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The items of all the lists together.
    pub fn total(&self) -> usize {
        self.items.len()
    }

    /// Whether key `k` has a non-empty list.
    pub fn has(&self, k: OutSym) -> bool {
        !self.get(k).is_empty()
    }

    /// Each list with only the items `keep` keeps.
    pub fn filtered(&self, mut keep: impl FnMut(T) -> bool) -> Self {
        self.retain_each(|_, v| keep(v))
    }

    /// The keys with non-empty lists, in key order, with their lists.
    pub fn iter(&self) -> impl Iterator<Item = (OutSym, &[T])> + '_ {
        self.start
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0] < w[1])
            .map(|(k, w)| {
                (
                    OutSym::from_index(k),
                    &self.items[w[0] as usize..w[1] as usize],
                )
            })
    }

    /// Each list with only the items `keep` (given the key's index) keeps.
    fn retain_each(&self, mut keep: impl FnMut(usize, T) -> bool) -> Self {
        let mut start = Vec::with_capacity(self.start.len());
        let mut items = Vec::with_capacity(self.items.len());
        start.push(0);
        for (k, w) in self.start.windows(2).enumerate() {
            items.extend(
                self.items[w[0] as usize..w[1] as usize]
                    .iter()
                    .copied()
                    .filter(|&v| keep(k, v)),
            );
            start.push(items.len() as u32);
        }
        SymLists { start, items }
    }
}

impl SymLists<OutSym> {
    /// The pairs grouped by key, each list in the pairs' order with repeats left out (the
    /// first kept).
    pub fn grouped_unique(n: usize, pairs: &[(OutSym, OutSym)]) -> Self {
        let lists = SymLists::grouped(n, pairs);
        let mut seen = Marks::new(lists.items.iter().map(|v| v.index() + 1).max());
        lists.retain_each(|k, v| seen.mark(k, v))
    }

    /// Each of `self`'s lists followed by what `more`'s list for the same key adds to it
    /// (`more`'s lists hold no repeats).
    pub fn extended(&self, more: &SymLists<OutSym>) -> Self {
        let n = (self.start.len()).max(more.start.len()) - 1;
        let mut seen = Marks::new(
            self.items
                .iter()
                .chain(&more.items)
                .map(|v| v.index() + 1)
                .max(),
        );
        let mut start = Vec::with_capacity(n + 1);
        let mut items = Vec::with_capacity(self.items.len() + more.items.len());
        start.push(0);
        for k in 0..n {
            let f = OutSym::from_index(k);
            let own = self.get(f);
            items.extend_from_slice(own);
            for &v in own {
                seen.mark(k, v);
            }
            items.extend(more.get(f).iter().copied().filter(|&v| seen.mark(k, v)));
            start.push(items.len() as u32);
        }
        SymLists { start, items }
    }
}

/// Which values the list being made holds already: a mark per value, set to the list's key,
/// so that no clearing is needed between lists.
struct Marks(Vec<u32>);

impl Marks {
    fn new(values: Option<usize>) -> Marks {
        Marks(vec![u32::MAX; values.unwrap_or(0)])
    }

    /// Marks `v` as in list `k`; `true` if it was not already.
    fn mark(&mut self, k: usize, v: OutSym) -> bool {
        let m = &mut self.0[v.index()];
        let new = *m != k as u32;
        *m = k as u32;
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(i: u32) -> OutSym {
        OutSym::new(i)
    }

    fn pairs(v: &[(u32, u32)]) -> Vec<(OutSym, OutSym)> {
        v.iter().map(|&(a, b)| (s(a), s(b))).collect()
    }

    #[test]
    fn lists_keep_the_order_of_their_pairs() {
        let l = SymLists::grouped(5, &pairs(&[(3, 1), (0, 4), (3, 0), (3, 1)]));
        assert_eq!(l.get(s(3)), &[s(1), s(0), s(1)]);
        assert_eq!(l.get(s(0)), &[s(4)]);
        assert!(l.get(s(1)).is_empty());
    }

    #[test]
    fn keys_past_the_table_have_empty_lists() {
        let l = SymLists::grouped(2, &pairs(&[(1, 0)]));
        assert!(l.get(s(7)).is_empty());
        assert!(!l.has(s(7)));
        assert!(SymLists::<OutSym>::default().get(s(0)).is_empty());
    }

    #[test]
    fn unique_lists_keep_the_first_of_each_value() {
        let l = SymLists::grouped_unique(4, &pairs(&[(2, 1), (2, 3), (0, 1), (2, 1), (0, 1)]));
        assert_eq!(l.get(s(2)), &[s(1), s(3)]);
        assert_eq!(l.get(s(0)), &[s(1)]);
    }

    #[test]
    fn iteration_is_in_key_order_over_non_empty_lists() {
        let l = SymLists::grouped(6, &pairs(&[(4, 0), (1, 2), (4, 3)]));
        let keys: Vec<OutSym> = l.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, [s(1), s(4)]);
    }

    #[test]
    fn extending_adds_only_what_a_list_lacks_and_keeps_its_own_repeats() {
        let own = SymLists::grouped(3, &pairs(&[(0, 5), (0, 5), (1, 6)]));
        let more = SymLists::grouped_unique(3, &pairs(&[(0, 5), (0, 7), (2, 8)]));
        let l = own.extended(&more);
        assert_eq!(l.get(s(0)), &[s(5), s(5), s(7)]);
        assert_eq!(l.get(s(1)), &[s(6)]);
        assert_eq!(l.get(s(2)), &[s(8)]);
    }
}
