//! [`GuardedIncidence`]: the guarded incidence of every equation of an [`Mdae`](super::Mdae),
//! packed in one model-wide table, read a row at a time ([`Row`]) as [`Incidence`]s.
//!
//! Memory (issue 15: a model without modes of 10^5 equations in < 10× its size): an entry
//! is 8 bytes — the unknown, the order and the number of its guard — and the guards that
//! are not `true` (rare outside multimode models) are kept apart; a row is where it ends in
//! the table, 4 bytes. A boxed slice of 24-byte entries per equation took 16 bytes and an
//! allocation per equation plus 24 an entry.

use super::{Cond, VarId};

/// One guarded incidence entry: `var` appears with derivative order `order` when `when`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Incidence<'m> {
    pub var: VarId,
    pub order: u8,
    pub when: &'m Cond,
}

/// An entry as stored: the unknown, and the order (low 8 bits) with the guard's number
/// (the rest: 0 for `true`, else one more than its position in `guards`).
#[derive(Clone, Copy, Debug)]
struct Entry {
    var: VarId,
    order_guard: u32,
}

/// The guard of entries that hold in every mode.
static TRUE: Cond = Cond::True;

/// The rows of the equations `0..n`, in order.
#[derive(Clone, Debug, Default)]
pub struct GuardedIncidence {
    /// Where each row ends in `entries` (it starts where the previous one ends).
    ends: Vec<u32>,
    entries: Vec<Entry>,
    guards: Vec<Cond>,
}

impl GuardedIncidence {
    /// Appends the next equation's row, its entries as given (in order, none merged).
    pub(super) fn push_row(&mut self, row: impl IntoIterator<Item = (VarId, u8, Cond)>) {
        for (var, order, when) in row {
            // An if-equation's arm guards its entries alike: a guard equal to the last one
            // is shared.
            let guard = if when == Cond::True {
                0
            } else {
                if self.guards.last() != Some(&when) {
                    self.guards.push(when);
                }
                self.guards.len() as u32
            };
            assert!(guard < 1 << 24, "too many guarded incidence entries");
            grow(&mut self.entries);
            self.entries.push(Entry { var, order_guard: guard << 8 | u32::from(order) });
        }
        let end = u32::try_from(self.entries.len()).expect("too many incidence entries");
        grow(&mut self.ends);
        self.ends.push(end);
    }

    /// Room for about `rows` more rows of `entries` entries.
    pub(super) fn reserve(&mut self, rows: usize, entries: usize) {
        self.ends.reserve_exact(rows);
        self.entries.reserve_exact(entries);
    }

    /// Without spare room (held to the end of the job).
    pub(super) fn shrink_to_fit(&mut self) {
        self.ends.shrink_to_fit();
        self.entries.shrink_to_fit();
        self.guards.shrink_to_fit();
    }

    /// The row of equation `e` (by index).
    pub(super) fn row(&self, e: usize) -> Row<'_> {
        let start = if e == 0 { 0 } else { self.ends[e - 1] as usize };
        Row { entries: &self.entries[start..self.ends[e] as usize], guards: &self.guards }
    }
}

/// Grows `v` by half when full: the table is built once and kept, so its spare room at
/// the end is at most a third, not half as with doubling.
fn grow<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len() / 2 + 4);
    }
}

/// The guarded incidence of one equation: σ(m, e, v) is the largest order of the entries
/// for v whose `when` holds in m.
#[derive(Clone, Copy, Debug)]
pub struct Row<'m> {
    entries: &'m [Entry],
    guards: &'m [Cond],
}

impl<'m> Row<'m> {
    pub fn len(self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(self) -> bool {
        self.entries.is_empty()
    }

    /// The `k`-th entry.
    pub fn get(self, k: usize) -> Incidence<'m> {
        read(self.entries[k], self.guards)
    }

    pub fn iter(self) -> Entries<'m> {
        Entries { entries: self.entries.iter(), guards: self.guards }
    }
}

fn read(e: Entry, guards: &[Cond]) -> Incidence<'_> {
    let guard = (e.order_guard >> 8) as usize;
    Incidence { var: e.var, order: e.order_guard as u8, when: if guard == 0 { &TRUE } else { &guards[guard - 1] } }
}

/// The entries of a [`Row`], in order.
#[derive(Clone, Debug)]
pub struct Entries<'m> {
    entries: std::slice::Iter<'m, Entry>,
    guards: &'m [Cond],
}

impl<'m> Iterator for Entries<'m> {
    type Item = Incidence<'m>;
    fn next(&mut self) -> Option<Incidence<'m>> {
        self.entries.next().map(|&e| read(e, self.guards))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for Entries<'_> {}

impl<'m> IntoIterator for Row<'m> {
    type Item = Incidence<'m>;
    type IntoIter = Entries<'m>;
    fn into_iter(self) -> Entries<'m> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_as_pushed() {
        assert_eq!(std::mem::size_of::<Entry>(), 8);
        let mut t = GuardedIncidence::default();
        let g = Cond::not(Cond::Mode(crate::mdae::ModeId(0)));
        t.push_row([(VarId(2), 1, Cond::True), (VarId(0), 0, g.clone())]);
        t.push_row([]);
        t.push_row([(VarId(1), 3, Cond::True)]);
        let row = |e| t.row(e).iter().map(|i| (i.var, i.order, i.when.clone())).collect::<Vec<_>>();
        assert_eq!(row(0), vec![(VarId(2), 1, Cond::True), (VarId(0), 0, g)]);
        assert!(t.row(1).is_empty());
        assert_eq!(row(2), vec![(VarId(1), 3, Cond::True)]);
        assert_eq!(t.row(2).get(0).order, 3);
    }
}
