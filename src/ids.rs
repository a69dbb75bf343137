//! Typed dense ids, and the vectors they index. An id is a position in one collection, so a
//! section id cannot index the symbols by mistake, and a signature says which collection its
//! numbers point into.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A dense index into one kind of collection.
pub trait Id: Copy + Eq + std::hash::Hash {
    fn from_index(i: usize) -> Self;
    fn index(self) -> usize;
}

/// Declares a `u32` newtype id with [`Id`] and the conversions its users need.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// Past every real id (a sort key for "none", last).
            pub const MAX: Self = $name(u32::MAX);

            pub const fn new(i: u32) -> Self {
                $name(i)
            }
            pub const fn get(self) -> u32 {
                self.0
            }
            pub const fn index(self) -> usize {
                self.0 as usize
            }
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect(concat!(stringify!($name), " past u32")))
            }
        }

        impl Id for $name {
            fn from_index(i: usize) -> Self {
                $name::from_index(i)
            }
            fn index(self) -> usize {
                $name::index(self)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
    };
}

id!(
    /// An output section: its place in `output::Module::sections` (creation order, not the
    /// final ELF index, which only layout fixes).
    OutSec
);
id!(
    /// An output symbol: its place in `output::Module::symbols` (creation order).
    OutSym
);

id!(
    /// An input object: its place in the link's input order (the position in `load`'s
    /// object list, and `InputObject::id`).
    ObjectId
);
id!(
    /// A global name of the link: its place in `resolve::Resolution::globals` (the order
    /// names are first met, inputs in order).
    GlobalId
);

/// A vector indexed by one kind of id; reads as a slice otherwise.
#[derive(Clone, PartialEq, Eq)]
pub struct IdVec<I, T> {
    items: Vec<T>,
    _id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    pub fn new() -> Self {
        IdVec {
            items: Vec::new(),
            _id: PhantomData,
        }
    }

    /// `n` copies of `t`, for ids `0..n`.
    pub fn filled(t: T, n: usize) -> Self
    where
        T: Clone,
    {
        vec![t; n].into()
    }

    /// Room for `n` more items.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }

    /// The room reserved beyond the items: the address of the next item's place and the
    /// bytes up to the end of the room (until a push outgrows it).
    pub fn spare_room(&self) -> (usize, usize) {
        let size = std::mem::size_of::<T>();
        let next = self.items.as_ptr() as usize + self.items.len() * size;
        (next, (self.items.capacity() - self.items.len()) * size)
    }

    /// Appends and returns the new item's id.
    pub fn push(&mut self, t: T) -> I {
        self.items.push(t);
        I::from_index(self.items.len() - 1)
    }

    pub fn get(&self, i: I) -> Option<&T> {
        self.items.get(i.index())
    }

    /// The ids with their items, in order.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + '_ {
        self.items
            .iter()
            .enumerate()
            .map(|(i, t)| (I::from_index(i), t))
    }

    /// The id of the first item for which `pred` holds.
    pub fn position(&self, pred: impl FnMut(&T) -> bool) -> Option<I> {
        self.items.iter().position(pred).map(I::from_index)
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + use<I, T> {
        (0..self.items.len()).map(I::from_index)
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// The items in id order, to work on in parallel (position = id).
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items
    }
}

impl<I: Id, T> Default for IdVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I, T> std::ops::Deref for IdVec<I, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<I: Id, T> Index<I> for IdVec<I, T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.items[i.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.items[i.index()]
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<I, T> From<Vec<T>> for IdVec<I, T> {
    fn from(items: Vec<T>) -> Self {
        IdVec {
            items,
            _id: PhantomData,
        }
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(it: It) -> Self {
        IdVec {
            items: it.into_iter().collect(),
            _id: PhantomData,
        }
    }
}

impl<'a, I, T> IntoIterator for &'a IdVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<'a, I, T> IntoIterator for &'a mut IdVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter_mut()
    }
}

/// `items` grouped by a dense key below `n` (counting, not sorting: one pass to count, one to
/// place), each group in the items' order: group `k` is `values[start[k]..start[k + 1]]`,
/// `value` of each item.
pub fn grouped_by<P, T: Copy>(
    n: usize,
    items: &[P],
    key: impl Fn(&P) -> usize,
    value: impl Fn(&P) -> T,
) -> (Vec<T>, Vec<u32>) {
    grouped(n, items, key, |_, p| value(p))
}

/// `grouped_by` listing each item by its index in `items`.
pub fn grouped_indices<P>(
    n: usize,
    items: &[P],
    key: impl Fn(&P) -> usize,
) -> (Vec<u32>, Vec<u32>) {
    grouped(n, items, key, |i, _| i as u32)
}

fn grouped<P, T: Copy>(
    n: usize,
    items: &[P],
    key: impl Fn(&P) -> usize,
    value: impl Fn(usize, &P) -> T,
) -> (Vec<T>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    let Some(first) = items.first() else {
        return (Vec::new(), start);
    };
    for p in items {
        start[key(p) + 1] += 1;
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut values = vec![value(0, first); items.len()];
    for (i, p) in items.iter().enumerate() {
        let at = &mut next[key(p)];
        values[*at as usize] = value(i, p);
        *at += 1;
    }
    (values, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_by_key_keeps_each_groups_items_in_their_order() {
        let items = [(2, 'a'), (0, 'b'), (2, 'c'), (0, 'd')];
        let (values, start) = grouped_by(4, &items, |p| p.0, |p| p.1);
        assert_eq!(values, ['b', 'd', 'a', 'c']);
        assert_eq!(start, [0, 2, 2, 4, 4]);
        assert_eq!(
            grouped_by(2, &[] as &[(usize, char)], |p| p.0, |p| p.1),
            (vec![], vec![0, 0, 0])
        );
    }

    #[test]
    fn grouping_indices_lists_each_item_by_its_place() {
        let items = [(2, 'a'), (0, 'b'), (2, 'c'), (0, 'd')];
        let (values, start) = grouped_indices(3, &items, |p| p.0);
        assert_eq!(values, [1, 3, 0, 2]);
        assert_eq!(start, [0, 2, 2, 4]);
    }

    #[test]
    fn push_returns_the_id_that_indexes_the_item() {
        let mut v: IdVec<OutSec, &str> = IdVec::new();
        let a = v.push("a");
        let b = v.push("b");
        assert_eq!((a.get(), b.get()), (0, 1));
        assert_eq!((v[a], v[b]), ("a", "b"));
        assert_eq!(v.ids().collect::<Vec<_>>(), vec![a, b]);
    }
}
