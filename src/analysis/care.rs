//! Minimising a condition against a large care set. Conditions are written as the shortest
//! sum of products on the valid (or regular) modes, a conjunction of the model's invariants
//! over all N rooms or cars: a BDD of O(N) nodes, and every block's condition is itself
//! conjoined with the regular modes. The ISOP then walked O(N) levels with O(N)-node
//! operations: O(N²) per condition, O(N³) per model (issue 15: the compressible building's
//! report and RIMIS). [`localise`] removes what the condition and the care set share.
//!
//! **Factors.** A level boundary of a BDD is a *cut* when every edge crossing it (and the
//! root, if it lies below) leads to the same node (or to `false`): the function is then
//! A(variables above) ∧ B(variables below). Between two boundaries that are cuts of both
//! L = f ∧ care and care, each has a factor; where the two factors are the same function
//! (compared node by node: BDDs are canonical), it is a factor F of both: L = G ∧ F and
//! care = C ∧ F, F over variables G and C do not read.
//!
//! **Why dropping F changes no result.** Minato–Morreale on (L, L ∨ ¬care) = (G ∧ F,
//! H ∨ ¬F) with H = G ∨ ¬C (so G ≤ H): at a variable x of F both one-sided subproblems are
//! empty (G ∧ ¬H = ∅), no literal is added, and it recurses on (G ∧ ∃x.F, H ∨ ¬∃x.F) (F is
//! satisfiable, being a factor of a satisfiable care set); at any other variable it
//! cofactors G and H only, keeping the form. So it returns the same cubes, in the same
//! order, as on (G, H): the conditions in the output are unchanged.

use biodivine_lib_bdd::{Bdd, BddPointer, BddVariable};
use rustc_hash::FxHashSet;

/// (G, C) for L = `lower` ⊆ `care` (module header): both without the factors they share.
pub fn localise(lower: &Bdd, care: &Bdd) -> (Bdd, Bdd) {
    localise_with(lower, care, &Cuts::of(care))
}

/// [`localise`] with the cuts of `care` given (`Cuts::of(care)`, computed once for many
/// conditions on one care set).
pub fn localise_with(lower: &Bdd, care: &Bdd, cc: &Cuts) -> (Bdd, Bdd) {
    if lower.is_false() || care.is_true() || care.is_false() {
        return (lower.clone(), care.clone());
    }
    let cl = Cuts::of(lower);
    // Positions cutting both, in order: a shared boundary p means "variables < p | ≥ p".
    let mut common: Vec<usize> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < cl.ranges.len() && j < cc.ranges.len() {
        let (a, b) = (cl.ranges[i], cc.ranges[j]);
        let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
        if lo <= hi {
            common.push(lo);
        }
        if a.1 < b.1 { i += 1 } else { j += 1 }
    }
    let mut dropped: Vec<(usize, usize)> = Vec::new();
    for w in common.windows(2) {
        let (p, q) = (w[0], w[1]);
        if same_factor(lower, &cl, care, cc, p, q) {
            dropped.push((p, q));
        }
    }
    if dropped.is_empty() {
        return (lower.clone(), care.clone());
    }
    let out = |v: BddVariable| {
        let x = v.to_index();
        let k = dropped.partition_point(|&(p, _)| p <= x);
        k > 0 && x < dropped[k - 1].1
    };
    (lower.exists_trigger(out), care.exists_trigger(out))
}

/// Where a BDD factors: its support `levels` (sorted variable indices), the positions that
/// cut it as inclusive ranges (position p: "variables < p | ≥ p"), and the node each cut
/// boundary leads into.
pub struct Cuts {
    levels: Vec<usize>,
    ranges: Vec<(usize, usize)>,
    /// For boundary r (between levels r − 1 and r) that is a cut: the node below it.
    entry: Vec<BddPointer>,
}

impl Cuts {
    pub fn of(b: &Bdd) -> Cuts {
        let mut levels: Vec<usize> = b.pointers().skip(2).map(|p| b.var_of(p).to_index()).collect();
        levels.sort_unstable();
        levels.dedup();
        let n = levels.len();
        let rank: Vec<usize> = b
            .pointers()
            .map(|p| if p.is_terminal() { n } else { levels.binary_search(&b.var_of(p).to_index()).expect("support") })
            .collect();
        // A node c is crossed into at boundaries lo(c) ..= rank(c), lo(c) one past its
        // highest parent (1 for the root); boundaries are 1..n−1, beyond the last level only
        // `true` remains. A boundary is a cut when at most one node is crossed into there.
        let mut lo = vec![usize::MAX; b.size()];
        let root = b.root_pointer();
        lo[root.to_index()] = 1;
        for p in b.pointers().skip(2) {
            for c in [b.low_link_of(p), b.high_link_of(p)] {
                let l = &mut lo[c.to_index()];
                *l = (*l).min(rank[p.to_index()] + 1);
            }
        }
        // Per boundary: how many nodes are crossed into, and the sum of their indices (the
        // node itself when there is one).
        let (mut count, mut sum) = (vec![0i64; n + 1], vec![0i64; n + 1]);
        for c in b.pointers().filter(|c| !c.is_zero()) {
            let (from, to) = (lo[c.to_index()], rank[c.to_index()].min(n.saturating_sub(1)));
            if from <= to {
                count[from] += 1;
                count[to + 1] -= 1;
                sum[from] += c.to_index() as i64;
                sum[to + 1] -= c.to_index() as i64;
            }
        }
        let mut entry = vec![BddPointer::zero(); n];
        // Positions up to the first level, and after the last one, always cut.
        let mut ranges = vec![(0, levels.first().copied().unwrap_or(usize::MAX - 1))];
        let (mut active, mut id) = (0, 0);
        for r in 1..n {
            active += count[r];
            id += sum[r];
            if active <= 1 {
                entry[r] = if active == 1 { BddPointer::from_index(id as usize) } else { BddPointer::zero() };
                ranges.push((levels[r - 1] + 1, levels[r]));
            }
        }
        if let Some(&last) = levels.last() {
            ranges.push((last + 1, usize::MAX - 1));
        }
        Cuts { levels, ranges, entry }
    }

    /// The first variable index of each factor between consecutive cuts: the first level,
    /// then each level whose boundary above is a cut (none for a constant).
    pub(crate) fn factor_starts(&self) -> Vec<usize> {
        let Some(&first) = self.levels.first() else { return Vec::new() };
        // ranges: up to the first level, one per inner cut (ending at the level below it),
        // past the last level.
        std::iter::once(first).chain(self.ranges[1..self.ranges.len() - 1].iter().map(|r| r.1)).collect()
    }

    /// The support of the BDD, sorted.
    pub(crate) fn levels(&self) -> &[usize] {
        &self.levels
    }

    /// Is position `p` ("variables < p | ≥ p") a cut?
    pub(crate) fn is_cut(&self, p: usize) -> bool {
        let k = self.ranges.partition_point(|r| r.0 <= p);
        k > 0 && p <= self.ranges[k - 1].1
    }

    /// The last cut position ≤ `v` (position 0 always cuts).
    pub(crate) fn cut_at_or_before(&self, v: usize) -> usize {
        let (lo, hi) = self.ranges[self.ranges.partition_point(|r| r.0 <= v) - 1];
        debug_assert!(lo <= v);
        v.min(hi)
    }

    /// The first cut position after the cut position `s` (`usize::MAX`: none).
    pub(crate) fn cut_after(&self, s: usize) -> usize {
        let k = self.ranges.partition_point(|r| r.0 <= s);
        if s < self.ranges[k - 1].1 { s + 1 } else { self.ranges.get(k).map_or(usize::MAX, |r| r.0) }
    }

    /// The node the cut position `p` leads into (`None`: `true`, nothing below).
    pub(crate) fn entry_at(&self, b: &Bdd, p: usize) -> Option<BddPointer> {
        let r = self.levels.partition_point(|&l| l < p);
        if r == 0 {
            Some(b.root_pointer())
        } else if r == self.levels.len() {
            None
        } else {
            Some(self.entry[r])
        }
    }
}

/// Is the factor of `a` over the variables p ≤ x < q the same function as that of `b`
/// (both cut at p and q)? Node by node from the nodes the cut at p leads into, a node at or
/// below q standing for `true`.
pub(crate) fn same_factor(a: &Bdd, ca: &Cuts, b: &Bdd, cb: &Cuts, p: usize, q: usize) -> bool {
    same_factor_in(a, ca, b, cb, (p, q), &mut Scratch::default())
}

/// The pairs [`same_factor`] has met and has still to visit, kept between calls.
#[derive(Default)]
pub(crate) struct Scratch {
    seen: FxHashSet<(BddPointer, BddPointer)>,
    todo: Vec<(Option<BddPointer>, Option<BddPointer>)>,
}

/// [`same_factor`] over the window `(p, q)` with `scratch`'s buffers.
pub(crate) fn same_factor_in(
    a: &Bdd,
    ca: &Cuts,
    b: &Bdd,
    cb: &Cuts,
    (p, q): (usize, usize),
    scratch: &mut Scratch,
) -> bool {
    // `true` of the range, `false`, or a node inside it.
    let class = |bdd: &Bdd, n: Option<BddPointer>| match n {
        None => Err(true),
        Some(x) if x.is_one() => Err(true),
        Some(x) if x.is_zero() => Err(false),
        Some(x) if bdd.var_of(x).to_index() >= q => Err(true),
        Some(x) => Ok(x),
    };
    let Scratch { seen, todo } = scratch;
    seen.clear();
    todo.clear();
    todo.push((ca.entry_at(a, p), cb.entry_at(b, p)));
    while let Some((x, y)) = todo.pop() {
        match (class(a, x), class(b, y)) {
            (Err(u), Err(v)) if u == v => {}
            (Ok(u), Ok(v)) if a.var_of(u) == b.var_of(v) => {
                if seen.insert((u, v)) {
                    todo.push((Some(a.low_link_of(u)), Some(b.low_link_of(v))));
                    todo.push((Some(a.high_link_of(u)), Some(b.high_link_of(v))));
                }
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use biodivine_lib_bdd::BddVariableSet;

    #[test]
    fn shared_factors_are_dropped_from_both() {
        let set = BddVariableSet::new_anonymous(9);
        let vars = set.variables();
        let v: Vec<Bdd> = vars.iter().map(|&x| set.mk_var(x)).collect();
        // Independent factors over (0, 1), (2), (3, 4, 5), (6, 7, 8).
        let a = v[0].or(&v[1].not()).and(&v[2].not());
        let b = v[3].imp(&v[4]).and(&v[5].or(&v[3]));
        let c = v[6].xor(&v[7]).or(&v[8]);
        let care = a.and(&b).and(&c);
        // f reads (3, 4, 5) only: the rest is shared.
        let f = v[4].and(&v[5]);
        let (g, k) = localise(&f.and(&care), &care);
        assert_eq!((g, k), (f.and(&b), b.clone()));
        // A condition already conjoined with the care set: the same.
        let (g, k) = localise(&f.and(&care).and(&care), &care);
        assert_eq!((g, k), (f.and(&b), b.clone()));
        // f reads 0 and 2: f ∧ care = v0 ∧ ¬v2 ∧ b ∧ c shares (2), (3, 4, 5), (6, 7, 8).
        let f = v[0].or(&v[2]);
        let (g, k) = localise(&f.and(&care), &care);
        assert_eq!((g, k), (v[0].clone(), v[0].or(&v[1].not())));
        // f reads 0 and 8: f ∧ care has no cut between them, nothing is shared.
        let f = v[0].or(&v[8]);
        let (g, k) = localise(&f.and(&care), &care);
        assert_eq!((g, k), (f.and(&care), care.clone()));
    }
}
