//! [`Index`]: names looked up by hash, and ranges of them in order, over items numbered
//! `0..n` whose names are elsewhere (the scalars of [`FlatModel::vars`](super::FlatModel::vars);
//! its hash is also that of validation's `Bases`). It holds only positions, `u32`: 14 bytes a name
//! where a `BTreeMap<Text, usize>` took about 32 (a flat model has 10^5 scalars, held
//! through the lowering, at the main job's peak; issue 15), and a lookup is one hash and
//! about one comparison (a binary search over 10^5 names was a third slower than the map).

use super::{Var, VarIndex};

/// Positions sorted by name (ranges), and an open-addressing table of them (lookups).
#[derive(Clone, Debug, Default)]
pub struct Index {
    sorted: Vec<u32>,
    /// Position + 1 per slot (0: empty), linear probing; at least twice as many slots as
    /// names, a power of two.
    slots: Vec<u32>,
}

/// FNV-1a: short names, no state (lookups only: no order depends on it).
pub(crate) fn hash(s: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as usize
}

/// The positions `0..n` sorted by `name`, stably (of equal names, increasing).
pub(crate) fn sorted_by(n: usize, name: impl Fn(u32) -> &'static str) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| name(a).cmp(name(b)));
    order
}

impl Index {
    /// The index of `vars`: of variables with one name, the last.
    pub fn of(vars: &[Var]) -> Index {
        let name = |k: u32| vars[k as usize].name.as_str();
        let mut order = sorted_by(vars.len(), name);
        order.dedup_by(|later, earlier| {
            let same = name(*later) == name(*earlier);
            if same {
                *earlier = *later;
            }
            same
        });
        Index::of_sorted(order, name)
    }

    /// The index of the positions `sorted` (sorted by `name`, no name twice).
    pub(crate) fn of_sorted(mut sorted: Vec<u32>, name: impl Fn(u32) -> &'static str) -> Index {
        sorted.shrink_to_fit();
        let size = (2 * sorted.len()).next_power_of_two();
        let mut slots = vec![0u32; size];
        for &k in &sorted {
            let mut at = hash(name(k)) & (size - 1);
            while slots[at] != 0 {
                at = (at + 1) & (size - 1);
            }
            slots[at] = k + 1;
        }
        Index { sorted, slots }
    }

    /// The position named `key`.
    pub(crate) fn find(&self, key: &str, name: impl Fn(u32) -> &'static str) -> Option<u32> {
        let size = self.slots.len();
        if size == 0 {
            return None;
        }
        let mut at = hash(key) & (size - 1);
        loop {
            let k = self.slots[at].checked_sub(1)?;
            if name(k) == key {
                return Some(k);
            }
            at = (at + 1) & (size - 1);
        }
    }

    /// The positions named from `key` on, in order of name.
    pub(crate) fn from(&self, key: &str, name: impl Fn(u32) -> &'static str) -> impl Iterator<Item = u32> + '_ {
        let at = self.sorted.partition_point(|&k| name(k) < key);
        self.sorted[at..].iter().copied()
    }

    /// Frees the positions in order of name: only lookups from here on ([`Index::from`]
    /// then finds nothing). The lowering reads the flat model so (issue 15).
    pub fn forget_order(&mut self) {
        self.sorted = Vec::new();
    }

    /// The variable of `vars` named `key`.
    pub fn get(&self, vars: &[Var], key: &str) -> Option<VarIndex> {
        self.find(key, |k| vars[k as usize].name.as_str()).map(|k| k as VarIndex)
    }
}
