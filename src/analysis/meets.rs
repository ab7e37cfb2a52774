//! Whether two sets of modes meet — `a ∧ b ≠ ∅` ([`meets`]) or `a ∧ ¬b ≠ ∅`
//! ([`meets_not`], i.e. a ⊄ b) — without building the conjunction.
//!
//! The library's `and` builds every node of the result, O(|a|·|b|) with its tables
//! allocated per call, for a test that the first common path decides. Here the two BDDs
//! are walked side by side, depth first, and the walk stops at the first pair whose
//! meet is known non-empty: a non-zero node of a reduced BDD always reaches `true`, and
//! a non-terminal node reaches both terminals. Pairs found disjoint are not revisited.
//! Exact: the same answer as `!a.and(b).is_false()` (tested against it). Used by RIMIS
//! where it asks, per equation and per region, which per-mode entries a region meets
//! (issue 15: each such `and` was O(|region|), and regions carry the care set).

use biodivine_lib_bdd::{Bdd, BddPointer};
use rustc_hash::FxHashSet;

/// `a ∧ b` is satisfiable.
pub fn meets(a: &Bdd, b: &Bdd) -> bool {
    walk(a, b, false)
}

/// `a ∧ ¬b` is satisfiable (`a` is not a subset of `b`).
pub fn meets_not(a: &Bdd, b: &Bdd) -> bool {
    walk(a, b, true)
}

fn walk(a: &Bdd, b: &Bdd, negate_b: bool) -> bool {
    let mut stack: Vec<(BddPointer, BddPointer)> = vec![(a.root_pointer(), b.root_pointer())];
    let mut seen: FxHashSet<(BddPointer, BddPointer)> = FxHashSet::default();
    while let Some((x, y)) = stack.pop() {
        if x.is_zero() {
            continue;
        }
        if y.is_terminal() {
            if y.is_one() != negate_b {
                return true;
            }
            continue;
        }
        if x.is_one() {
            return true;
        }
        if !seen.insert((x, y)) {
            continue;
        }
        let (vx, vy) = (a.var_of(x).to_index(), b.var_of(y).to_index());
        let top = vx.min(vy);
        let (xl, xh) = if vx == top { (a.low_link_of(x), a.high_link_of(x)) } else { (x, x) };
        let (yl, yh) = if vy == top { (b.low_link_of(y), b.high_link_of(y)) } else { (y, y) };
        stack.push((xl, yl));
        stack.push((xh, yh));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use biodivine_lib_bdd::BddVariableSet;

    /// Every pair of a family of BDDs over 5 variables (literals, their conjunctions,
    /// disjunctions, parities, constants): the same answer as the library's `and`.
    #[test]
    fn meets_agrees_with_the_conjunction() {
        let set = BddVariableSet::new_anonymous(5);
        let v: Vec<Bdd> = set.variables().into_iter().map(|x| set.mk_var(x)).collect();
        let mut family = vec![set.mk_true(), set.mk_false()];
        for i in 0..5 {
            family.push(v[i].clone());
            family.push(v[i].not());
            for j in i + 1..5 {
                family.push(v[i].and(&v[j]));
                family.push(v[i].or(&v[j].not()));
                family.push(v[i].xor(&v[j]));
                family.push(v[i].and(&v[j]).or(&v[(j + 1) % 5].and(&v[i].not())));
            }
        }
        let mut disjoint = 0;
        for a in &family {
            for b in &family {
                assert_eq!(meets(a, b), !a.and(b).is_false(), "{a:?} {b:?}");
                assert_eq!(meets_not(a, b), !a.and(&b.not()).is_false(), "{a:?} not {b:?}");
                disjoint += usize::from(!meets(a, b));
            }
        }
        assert!(disjoint > 100, "the family has disjoint pairs to tell apart: {disjoint}");
    }
}
