//! Sets of modes modulo a care set R (issue 15): the regular modes after the primal
//! problem, the valid modes inside `factors`. Those steps only ever ask about modes of R,
//! so there a set of modes F stands for F ∧ R: ∧, ∨, ¬ (relative to R) and every
//! pointwise operation on bit-vectors commute with ∧ R, so they are computed on the small
//! representatives and R is conjoined once, where a result leaves ([`CareSet::exact`]).
//! What cannot be done on representatives is asked here, exactly: is F ∧ R empty
//! ([`CareSet::meets`]), do F and G differ on R ([`CareSet::differ`]), one mode of F ∧ R
//! ([`CareSet::witness`]).
//!
//! Why: R is a conjunction over every room or car (the compressible building's
//! `open_i or not outgoing_i`, i = 1…N): a BDD of O(N) nodes, and so was every condition
//! conjoined with it — each T_e, bit of c and d, value of ⇝, block leaf, piece of the
//! factored split. Every operation was O(N) and the analysis O(N²) in time and memory
//! (building N = 300: 700 MB).
//!
//! **Factors.** A level boundary of R is a *cut* when every edge crossing it leads to one
//! node (`false` aside): R = A(variables above) ∧ B(variables below); found by
//! [`Cuts`], as for the minimisation (`analysis/care.rs`). Between consecutive
//! cuts R has a factor; the factors read disjoint variables and each is satisfiable (R is
//! not empty). For F reading variables inside factors i…j, the other factors are
//! independent of F, so F ∧ R ≠ ∅ ⇔ F ∧ R_{i..j} ≠ ∅ with R_{i..j} = ∃(variables outside
//! factors i…j).R, the product of those factors: a test as local as F. Where R does not
//! factor (one factor), this is the test on R itself, as before.

use super::bits::BitVec;
use crate::analysis::care::Cuts;
use crate::analysis::meets::meets;
use biodivine_lib_bdd::{Bdd, BddValuation, BddVariableSet};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Cached products of factors are dropped past this many nodes in all.
const SPAN_CACHE_NODES: usize = 1 << 22;

/// Cached R_{i..j} by (i, j), with the nodes they hold in all.
type Spans = (FxHashMap<(usize, usize), Bdd>, usize);

/// R with its factors (module header).
pub(super) struct CareSet {
    /// R itself.
    pub all: Bdd,
    /// The first variable index of each factor, ascending; factor k covers the variable
    /// indices from `starts[k]` up to `starts[k + 1]` (the first also those before it).
    starts: Vec<usize>,
    /// One mode of R (every variable given), `None` if R is empty.
    base: Option<BddValuation>,
    spans: RefCell<Spans>,
}

impl CareSet {
    pub fn new(all: &Bdd) -> CareSet {
        CareSet {
            all: all.clone(),
            starts: Cuts::of(all).factor_starts(),
            base: all.first_valuation(),
            spans: RefCell::new((FxHashMap::default(), 0)),
        }
    }

    /// F ∧ R ≠ ∅.
    pub fn meets(&self, f: &Bdd) -> bool {
        if f.is_false() || self.base.is_none() {
            return false;
        }
        if f.is_true() || self.all.is_true() {
            return true;
        }
        meets(f, &self.span_of(f))
    }

    /// The partition of the regular modes by the value of `v` (representatives): (value,
    /// modes) for every value taken in a regular mode, in increasing order.
    pub fn partition(&self, v: &BitVec, set: &BddVariableSet) -> Vec<(u32, Bdd)> {
        let mut out = Vec::new();
        let mut rest = set.mk_true();
        let max = if v.bits.len() >= 32 { u32::MAX as u64 } else { (1u64 << v.bits.len()) - 1 };
        let mut x = 0u64;
        while x <= max && self.meets(&rest) {
            let here = rest.and(&v.is(x, set));
            if self.meets(&here) {
                rest = rest.and_not(&here);
                out.push((x as u32, here));
            }
            x += 1;
        }
        out
    }

    /// F ∧ R ≠ G ∧ R.
    pub fn differ(&self, f: &Bdd, g: &Bdd) -> bool {
        f != g && self.meets(&f.xor(g))
    }

    /// One mode of F ∧ R (every variable given), `None` if it is empty.
    pub fn witness(&self, f: &Bdd) -> Option<BddValuation> {
        if !self.meets(f) {
            return None;
        }
        let local = f.and(&self.span_of(f));
        let mut w = self.base.clone().expect("R is not empty");
        // One path of F ∧ R_{i..j}: its variables lie inside factors i…j, which R's mode
        // `base` leaves free to change; the other factors keep their values from `base`.
        let mut node = local.root_pointer();
        while !node.is_terminal() {
            let low = local.low_link_of(node);
            let high = low.is_zero();
            w.set_value(local.var_of(node), high);
            node = if high { local.high_link_of(node) } else { low };
        }
        debug_assert!(node.is_one() && f.eval_in(&w) && self.all.eval_in(&w));
        Some(w)
    }

    /// R_{i..j} for the factors i…j that F's variables fall into.
    fn span_of(&self, f: &Bdd) -> Bdd {
        let lo = f.var_of(f.root_pointer()).to_index();
        let hi = f.pointers().filter(|p| !p.is_terminal()).map(|p| f.var_of(p).to_index()).max().unwrap_or(lo);
        let factor = |v: usize| self.starts.partition_point(|&s| s <= v).saturating_sub(1);
        self.span(factor(lo), factor(hi))
    }

    /// R_{i..j}: the product of factors i…j.
    fn span(&self, i: usize, j: usize) -> Bdd {
        if i == 0 && j + 1 >= self.starts.len() {
            return self.all.clone();
        }
        let mut spans = self.spans.borrow_mut();
        if let Some(s) = spans.0.get(&(i, j)) {
            return s.clone();
        }
        let (from, to) =
            (if i == 0 { 0 } else { self.starts[i] }, self.starts.get(j + 1).copied().unwrap_or(usize::MAX));
        let s = self.all.exists_trigger(|v| v.to_index() < from || v.to_index() >= to);
        if spans.1 + s.size() > SPAN_CACHE_NODES {
            *spans = (FxHashMap::default(), 0);
        }
        spans.1 += s.size();
        spans.0.insert((i, j), s.clone());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use biodivine_lib_bdd::BddVariableSet;

    /// On random care sets built as products of random factors over consecutive variables
    /// (with free variables between them), and random small conditions: `meets`, `differ`
    /// and `witness` agree with the conjunction with R, and R factors where it was built.
    #[test]
    fn tests_modulo_r_agree_with_the_conjunction() {
        let mut next = super::super::xorshift(0x9e37_79b9_7f4a_7c15);
        let set = BddVariableSet::new_anonymous(14);
        let v: Vec<Bdd> = set.variables().into_iter().map(|x| set.mk_var(x)).collect();
        let (mut factored, mut empty, mut nonempty) = (0, 0, 0);
        for _ in 0..300 {
            // Factors over blocks of 1–3 consecutive variables, some variables left free.
            let mut r = set.mk_true();
            let mut at = 0;
            let mut blocks = 0;
            while at < 14 {
                let len = (1 + next(3) as usize).min(14 - at);
                if next(4) > 0 {
                    let f = random_function(&mut next, &v[at..at + len]);
                    if !f.is_false() {
                        r = r.and(&f);
                        blocks += 1;
                    }
                }
                at += len;
            }
            let reg = CareSet::new(&r);
            // The factors found multiply back to R.
            let product = (0..reg.starts.len()).fold(set.mk_true(), |acc, k| acc.and(&reg.span(k, k)));
            assert_eq!(product, r, "factors {:?} of {r:?}", reg.starts);
            if blocks > 1 && reg.starts.len() > 1 {
                factored += 1;
            }
            for _ in 0..20 {
                let lo = next(14) as usize;
                let len = (1 + next(4) as usize).min(14 - lo);
                let f = random_function(&mut next, &v[lo..lo + len]);
                let g = random_function(&mut next, &v[lo..lo + len]);
                let exact = f.and(&r);
                assert_eq!(reg.meets(&f), !exact.is_false(), "meets {f:?} in {r:?}");
                assert_eq!(reg.differ(&f, &g), exact != g.and(&r));
                match reg.witness(&f) {
                    Some(w) => {
                        assert!(f.eval_in(&w) && r.eval_in(&w));
                        nonempty += 1;
                    }
                    None => {
                        assert!(exact.is_false());
                        empty += 1;
                    }
                }
            }
        }
        assert!(factored > 100 && empty > 200 && nonempty > 1000, "{factored} {empty} {nonempty}");
    }

    /// A random function of `vars`: a union of random minterms.
    fn random_function(next: &mut impl FnMut(u64) -> u64, vars: &[Bdd]) -> Bdd {
        let set_true = vars[0].or(&vars[0].not());
        (0..1u64 << vars.len()).filter(|_| next(2) == 0).fold(set_true.not(), |acc, m| {
            let cube = vars
                .iter()
                .enumerate()
                .fold(set_true.clone(), |c, (i, x)| c.and(&if m >> i & 1 == 1 { x.clone() } else { x.not() }));
            acc.or(&cube)
        })
    }
}
