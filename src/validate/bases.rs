//! The model's declarations grouped by base name, for name resolution ([`super::scope`]).
//! Positions only (`u32`; the names are the scope's): a flat model declares 10^5 names
//! and the table is held at validation's peak (issue 15). An open-addressing table holds
//! one slot per base: the declaration itself when it is the only one of its base (almost
//! every declaration of a flat model), else a group of several (scalarised elements
//! `x[1]`, `x[2]`, or a name declared twice) stored apart. The bases with a dot are kept
//! in order apart too, for the one range query (is a name a prefix of declared bases?).
//! Built without sorting the names of a model that has no dotted base.

use crate::flat::index::hash;

/// An empty slot.
const EMPTY: u32 = u32::MAX;
/// A slot holding a group of several declarations: the rest of it is the group's
/// position in [`Bases::groups`].
const GROUP: u32 = 1 << 31;

/// The declarations by base name.
#[derive(Debug, Default)]
pub(super) struct Bases {
    /// Per slot: [`EMPTY`], the only declaration of a base, or [`GROUP`] | p with
    /// `groups[p]` the group's size and its declarations after it, in order. Linear
    /// probing; at least twice as many slots as bases, a power of two.
    slots: Vec<u32>,
    groups: Vec<u32>,
    /// The declarations whose base has a dot, sorted by base (stably).
    dotted: Vec<u32>,
}

impl Bases {
    /// The declarations `0..n` with base `base(d)`.
    pub fn new(n: usize, base: impl Fn(u32) -> &'static str) -> Bases {
        assert!(n < GROUP as usize, "fewer than 2^31 declarations");
        let size = (2 * n).next_power_of_two();
        let mask = size - 1;
        let mut slots = vec![EMPTY; size];
        // (slot, declaration) of the bases declared more than once.
        let mut shared: Vec<(u32, u32)> = Vec::new();
        let mut dotted = Vec::new();
        for d in 0..n as u32 {
            let b = base(d);
            if b.contains('.') {
                dotted.push(d);
            }
            let mut at = hash(b) & mask;
            loop {
                let s = slots[at];
                if s == EMPTY {
                    slots[at] = d;
                    break;
                }
                if base(s & !GROUP) == b {
                    if s & GROUP == 0 {
                        shared.push((at as u32, s));
                        slots[at] = s | GROUP;
                    }
                    shared.push((at as u32, d));
                    break;
                }
                at = (at + 1) & mask;
            }
        }
        shared.sort_unstable();
        let mut groups = Vec::with_capacity(shared.len() + shared.len() / 2);
        for run in shared.chunk_by(|a, b| a.0 == b.0) {
            slots[run[0].0 as usize] = GROUP | groups.len() as u32;
            groups.push(run.len() as u32);
            groups.extend(run.iter().map(|&(_, d)| d));
        }
        groups.shrink_to_fit();
        dotted.sort_by(|&a, &b| base(a).cmp(base(b)));
        dotted.shrink_to_fit();
        Bases { slots, groups, dotted }
    }

    /// The declarations with base `b`, in order.
    pub fn find(&self, b: &str, base: impl Fn(u32) -> &'static str) -> Option<&[u32]> {
        let size = self.slots.len();
        if size == 0 {
            return None;
        }
        let mut at = hash(b) & (size - 1);
        loop {
            let s = self.slots[at];
            if s == EMPTY {
                return None;
            }
            let ds = if s & GROUP == 0 { std::slice::from_ref(&self.slots[at]) } else { self.group(s & !GROUP) };
            if base(ds[0]) == b {
                return Some(ds);
            }
            at = (at + 1) & (size - 1);
        }
    }

    fn group(&self, p: u32) -> &[u32] {
        let p = p as usize;
        &self.groups[p + 1..p + 1 + self.groups[p] as usize]
    }

    /// Whether a base starts with `prefix`, which ends with a dot.
    pub fn any_below(&self, prefix: &str, base: impl Fn(u32) -> &'static str) -> bool {
        let at = self.dotted.partition_point(|&d| base(d) < prefix);
        self.dotted.get(at).is_some_and(|&d| base(d).starts_with(prefix))
    }

    /// The groups of several declarations of one base, each in order.
    pub fn shared(&self) -> impl Iterator<Item = &[u32]> {
        let mut p = 0;
        std::iter::from_fn(move || {
            let group = self.groups.get(p..)?.first().map(|_| self.group(p as u32))?;
            p += 1 + group.len();
            Some(group)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_single_and_shared_bases_in_order() {
        let names: Vec<&'static str> = vec!["x", "a.b", "y", "x", "a.c", "x", "z"];
        let base = |d: u32| names[d as usize];
        let b = Bases::new(names.len(), base);
        assert_eq!(b.find("x", base), Some(&[0, 3, 5][..]));
        assert_eq!(b.find("y", base), Some(&[2][..]));
        assert_eq!(b.find("a.b", base), Some(&[1][..]));
        assert_eq!(b.find("w", base), None);
        assert!(b.any_below("a.", base));
        assert!(!b.any_below("x.", base));
        assert!(!b.any_below("a.b.", base));
        assert_eq!(b.shared().collect::<Vec<_>>(), vec![&[0, 3, 5][..]]);
        let empty = Bases::new(0, base);
        assert_eq!(empty.find("x", base), None);
        assert_eq!(empty.shared().count(), 0);
    }
}
