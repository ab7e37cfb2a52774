//! [`SmallList`]: an AST list that stores a single item inline; [`ThinList`]: one that is
//! usually empty, in 8 bytes.
//!
//! Flat models are made of one-item lists: a component clause declares one name, a
//! call such as `der(x)` has one argument, a reference such as `body[1].frame_a`
//! has one subscripted part. Stored as a boxed slice, each of them costs an
//! allocation of its own (with the allocator's header and rounding, 32 to 48 bytes
//! beside the item); stored inline it costs nothing beyond the item. Other lengths
//! (none, two or more) are a boxed slice, so the type is the size of its item
//! (or of a boxed slice, 16 bytes, if larger) when the item has a niche for the tag
//! (else 8 bytes more). Reads go through `Deref<Target = [T]>`.
//! Invariant: a one-item list is always stored inline, so equality of the
//! representation is equality of the lists. The explicit analysis holds its one-item
//! lists so too (`analysis::explicit`: an equation's offsets, a variable's orders).

use std::ops::{Deref, DerefMut};

#[derive(Clone)]
pub struct SmallList<T>(Repr<T>);

#[derive(Clone)]
enum Repr<T> {
    One(T),
    /// Never exactly one item.
    Many(Box<[T]>),
}

impl<T> SmallList<T> {
    /// The list of one item.
    pub fn one(item: T) -> SmallList<T> {
        SmallList(Repr::One(item))
    }

    /// The item of a one-item list.
    pub fn into_one(self) -> Option<T> {
        match self.0 {
            Repr::One(item) => Some(item),
            Repr::Many(_) => None,
        }
    }

    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::One(item) => vec![item],
            Repr::Many(items) => items.into_vec(),
        }
    }
}

impl<T> Default for SmallList<T> {
    fn default() -> SmallList<T> {
        SmallList(Repr::Many(Box::default()))
    }
}

impl<T> From<Vec<T>> for SmallList<T> {
    fn from(mut items: Vec<T>) -> SmallList<T> {
        if items.len() == 1 {
            let item = items.pop().expect("one item");
            SmallList::one(item)
        } else {
            SmallList(Repr::Many(items.into_boxed_slice()))
        }
    }
}

impl<T> From<Box<[T]>> for SmallList<T> {
    fn from(items: Box<[T]>) -> SmallList<T> {
        if items.len() == 1 { SmallList::from(items.into_vec()) } else { SmallList(Repr::Many(items)) }
    }
}

impl<T> FromIterator<T> for SmallList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> SmallList<T> {
        SmallList::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Deref for SmallList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::One(item) => std::slice::from_ref(item),
            Repr::Many(items) => items,
        }
    }
}

impl<T> DerefMut for SmallList<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::One(item) => std::slice::from_mut(item),
            Repr::Many(items) => items,
        }
    }
}

/// `for x in &list` and `for x in &mut list` over the slice a list derefs to.
macro_rules! slice_into_iter {
    ($list:ident) => {
        impl<'a, T> IntoIterator for &'a $list<T> {
            type Item = &'a T;
            type IntoIter = std::slice::Iter<'a, T>;
            fn into_iter(self) -> Self::IntoIter {
                self.iter()
            }
        }

        impl<'a, T> IntoIterator for &'a mut $list<T> {
            type Item = &'a mut T;
            type IntoIter = std::slice::IterMut<'a, T>;
            fn into_iter(self) -> Self::IntoIter {
                self.iter_mut()
            }
        }
    };
}

slice_into_iter!(SmallList);

impl<T: PartialEq> PartialEq for SmallList<T> {
    fn eq(&self, other: &SmallList<T>) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for SmallList<T> {}

/// The order of the slices (lexicographic), as `Vec`'s.
impl<T: PartialOrd> PartialOrd for SmallList<T> {
    fn partial_cmp(&self, other: &SmallList<T>) -> Option<std::cmp::Ordering> {
        (**self).partial_cmp(&**other)
    }
}

impl<T: Ord> Ord for SmallList<T> {
    fn cmp(&self, other: &SmallList<T>) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl<T: std::hash::Hash> std::hash::Hash for SmallList<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for SmallList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A list that is usually empty, in 8 bytes (a boxed slice takes 16): `None` when empty,
/// else a boxed `Vec`. A call's named arguments (`der(x)`, `sin(t)` have none: a flat
/// model's 2·10^5 calls are 48 bytes, not 56), the dimensions written on a component's
/// type (`Real[3] x`). Reads go through `Deref<Target = [T]>`.
/// Invariant: never `Some` of an empty vector, so equality of the representation is
/// equality of the lists.
#[derive(Clone, PartialEq)]
pub struct ThinList<T>(Option<Box<Vec<T>>>);

impl<T> ThinList<T> {
    /// The items, as a vector.
    pub fn into_vec(self) -> Vec<T> {
        self.0.map_or_else(Vec::new, |items| *items)
    }
}

impl<T> Default for ThinList<T> {
    fn default() -> ThinList<T> {
        ThinList(None)
    }
}

impl<T> From<Vec<T>> for ThinList<T> {
    fn from(items: Vec<T>) -> ThinList<T> {
        ThinList((!items.is_empty()).then(|| Box::new(items)))
    }
}

impl<T> From<Box<[T]>> for ThinList<T> {
    fn from(items: Box<[T]>) -> ThinList<T> {
        ThinList::from(items.into_vec())
    }
}

impl<T> FromIterator<T> for ThinList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> ThinList<T> {
        ThinList::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Deref for ThinList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl<T> DerefMut for ThinList<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

slice_into_iter!(ThinList);

impl<T: std::fmt::Debug> std::fmt::Debug for ThinList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_item_is_inline_and_lists_compare_as_slices() {
        let one: SmallList<u64> = vec![7].into();
        assert!(matches!(one.0, Repr::One(7)));
        assert_eq!(one, SmallList::one(7));
        assert_eq!(one.clone().into_one(), Some(7));
        assert_eq!(one, SmallList::from(vec![7].into_boxed_slice()));
        let two: SmallList<u64> = [1, 2].into_iter().collect();
        assert_eq!(&*two, &[1, 2]);
        assert!(SmallList::<u64>::default().is_empty());
        assert_eq!(format!("{two:?}"), "[1, 2]");
    }

    #[test]
    fn the_list_is_the_size_of_its_item() {
        use crate::syntax::ast::{Declaration, Expr, RefPart};
        assert_eq!(size_of::<SmallList<Expr>>(), size_of::<Expr>());
        assert_eq!(size_of::<SmallList<RefPart>>(), size_of::<RefPart>());
        assert_eq!(size_of::<ThinList<RefPart>>(), 8);
        // A declaration's identifier leaves room for the boxed slice beside its niche: no
        // tag (24 bytes; the list was 64 while a declaration's name was a reference).
        assert_eq!(size_of::<SmallList<Declaration>>(), size_of::<Declaration>());
    }
}
