//! Whether a block has more structural classes than [`CLASS_LIMIT`], decided by parts of
//! the mode space that are independent, before [`classes`](super::classes) splits the valid
//! modes class by class. Input: the encoding and the signatures of the block's varying
//! edges (a representative edge and σ by value); output: the verdict of the split.
//!
//! Why (issue 15): on the paper's families the split runs until it exceeds the limit and
//! gives the block to the dynamic programme (Westinghouse and the compressible building:
//! exponentially many classes in N) after refining 16,384 parts, each a BDD of the valid modes χ_M (O(N)
//! nodes on the building): 0.5 s at Westinghouse N = 1000, 1.6–3 s at building N = 100,
//! all of it thrown away.
//!
//! Exact: the mode variables fall into components linked by an invariant of χ_M (a
//! conjunct of it) or by the existence and σ of one signature. χ_M is the conjunction of
//! its components' invariants χ_c, over disjoint variables, and a signature reads one
//! component only; so a valid mode's class is the tuple of its classes per component and
//! the number of classes is the product of the numbers per component, each counted by the
//! same refinement inside χ_c (small BDDs). Refinement never lowers a count, so the split
//! exceeds the limit exactly when this product does.
//!
//! Budget: a block refused here charges nothing to `Stats::work`, where the split it
//! replaces charged its parts until the limit (8.2 M of the 44.5 M node-work of the
//! building at N = 100; the limit is 400 M): the one change of behaviour, toward accepting.

use super::Encoding;
use super::classes::{CLASS_LIMIT, pieces};
use super::ops::and;
use biodivine_lib_bdd::Bdd;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Does the block with these `signatures` (representative edge, σ by value) have more
/// than [`CLASS_LIMIT`] classes inside the valid modes? The caller has checked that the
/// valid modes are not empty.
pub(super) fn exceeds(enc: &Encoding, signatures: &[(usize, Vec<(u32, Bdd)>)]) -> bool {
    // Each signature splits a part into at most 1 + (its values) pieces.
    let most = signatures
        .iter()
        .try_fold(1usize, |acc, (_, values)| acc.checked_mul(1 + values.len()).filter(|&n| n <= CLASS_LIMIT));
    if most.is_some() {
        return false;
    }
    let mut links = Links::default();
    let factors: Vec<Bdd> = enc.mdae.invariants.iter().map(|inv| enc.space.cond(&inv.cond)).collect();
    for f in &factors {
        links.join(f);
    }
    for (k, values) in signatures {
        links.join(&enc.edges[*k].active);
        values.iter().for_each(|(_, m)| links.join(m));
    }
    // The components that some signature reads, each with its invariants and signatures.
    let mut components: BTreeMap<u32, (Vec<&Bdd>, Vec<usize>)> = BTreeMap::new();
    for (g, (k, values)) in signatures.iter().enumerate() {
        // A varying edge reads some mode: its existence or one of its σ pieces.
        let read = std::iter::once(&enc.edges[*k].active).chain(values.iter().map(|(_, m)| m));
        if let Some(root) = read.filter_map(|b| links.component(b)).next() {
            components.entry(root).or_default().1.push(g);
        }
    }
    for f in &factors {
        if let Some((invariants, _)) = links.component(f).and_then(|root| components.get_mut(&root)) {
            invariants.push(f);
        }
    }
    let mut product = 1usize;
    for (invariants, members) in components.values() {
        let valid = invariants.iter().fold(enc.space.mk_true(), |acc, f| and(&acc, f));
        let mut parts = vec![valid];
        for &g in members {
            let (k, values) = &signatures[g];
            parts = parts.iter().flat_map(|modes| pieces(enc, *k, values, modes)).map(|(_, m)| m).collect();
            if product.saturating_mul(parts.len()) > CLASS_LIMIT {
                return true;
            }
        }
        product *= parts.len();
    }
    false
}

/// Union–find over the BDD variables that the joined BDDs read.
#[derive(Default)]
struct Links {
    parent: FxHashMap<u32, u32>,
}

impl Links {
    fn root(&mut self, v: u32) -> u32 {
        let mut r = v;
        while let Some(&p) = self.parent.get(&r).filter(|&&p| p != r) {
            r = p;
        }
        // Path compression.
        let mut x = v;
        while x != r {
            let next = self.parent[&x];
            self.parent.insert(x, r);
            x = next;
        }
        r
    }

    /// Puts every variable `b` reads in one component.
    fn join(&mut self, b: &Bdd) {
        let mut vars: Vec<u32> = b.support_set().into_iter().map(|v| v.to_index() as u32).collect();
        vars.sort_unstable();
        let Some(&first) = vars.first() else { return };
        self.parent.entry(first).or_insert(first);
        for v in vars {
            self.parent.entry(v).or_insert(v);
            let (a, b) = (self.root(first), self.root(v));
            if a != b {
                self.parent.insert(a.max(b), a.min(b));
            }
        }
    }

    /// The component of the variables `b` reads (after every join), `None` for a constant.
    fn component(&mut self, b: &Bdd) -> Option<u32> {
        let first = b.support_set().into_iter().map(|v| v.to_index() as u32).min()?;
        Some(self.root(first))
    }
}

#[cfg(test)]
mod tests {
    use super::super::classes::pieces;
    use super::super::{Order, encode};
    use super::*;
    use crate::mdae::{Body, Cond, Incidence, Invariant, Label, Mdae, Mode, ModeId, ModeKind, VarId, Variable};
    use crate::syntax::Span;
    use crate::syntax::ast::{Expr, ExprKind, text};
    use std::borrow::Cow;

    /// An mDAE of one equation per entry of `edges`: `v_i` always, and `w_i` of order 0 or
    /// 1 under each of the entry's conditions (two incidences of `w_i`: σ varies).
    fn model(modes: usize, edges: &[Vec<(Cond, u8)>], invariants: Vec<Cond>) -> Mdae<'static> {
        let zero = Expr::new(ExprKind::Number(text("0")), Span::new(0, 1));
        let mut m = Mdae::default();
        m.name = "Classes".into();
        m.modes = (0..modes).map(|i| Mode { name: format!("g{i}"), kind: ModeKind::Variable }).collect();
        let n = edges.len();
        m.vars = (0..2 * n).map(|j| Variable { name: format!("v{j}").into(), span: Span::new(0, 1) }).collect();
        for (i, conds) in edges.iter().enumerate() {
            let mut incidence = vec![Incidence { var: VarId(i as u32), order: 0, when: &Cond::True }];
            for (when, order) in conds {
                incidence.push(Incidence { var: VarId((n + i) as u32), order: *order, when });
            }
            let body = Body::simple(Cow::Owned(zero.clone()), Cow::Owned(zero.clone()));
            let label = Label::Written(format!("q{i}").into());
            m.push_equation(label, i as u32 + 1, Span::new(0, 1), body, incidence);
        }
        m.invariants = invariants.into_iter().map(|cond| Invariant { cond, span: Span::new(0, 1) }).collect();
        m
    }

    /// (the count's verdict, the verdict of refining the valid modes signature by
    /// signature as the split does).
    fn verdicts(m: &Mdae) -> (bool, bool) {
        let enc = encode(m, Order::default()).expect("a small model encodes");
        let mut signatures = Vec::new();
        for (k, e) in enc.edges.iter().enumerate() {
            let values = e.sigma.partition(&enc.space.mk_true(), enc.set());
            if pieces(&enc, k, &values, &enc.valid).len() > 1 {
                signatures.push((k, values));
            }
        }
        let mut parts = vec![enc.valid.clone()];
        for (k, values) in &signatures {
            parts = parts.iter().flat_map(|modes| pieces(&enc, *k, values, modes)).map(|(_, m)| m).collect();
            if parts.len() > CLASS_LIMIT {
                break;
            }
        }
        (exceeds(&enc, &signatures), parts.len() > CLASS_LIMIT)
    }

    fn mode(i: usize) -> Cond {
        Cond::Mode(ModeId(i as u32))
    }

    fn literal(next: &mut impl FnMut(u64) -> u64, modes: usize) -> Cond {
        let m = mode(next(modes as u64) as usize);
        if next(2) == 0 { m } else { Cond::not(m) }
    }

    #[test]
    fn independent_modes_multiply_up_to_the_limit_exactly() {
        // 2^14 = CLASS_LIMIT classes: not over; 2^15: over.
        for (n, over) in [(14, false), (15, true)] {
            let edges: Vec<_> = (0..n).map(|i| vec![(mode(i), 0)]).collect();
            assert_eq!(verdicts(&model(n, &edges, vec![])), (over, over), "{n} modes");
        }
        // Pairs linked by `a or not c`: 3 classes a pair; 3^8 = 6,561, 3^9 = 19,683.
        for (pairs, over) in [(8, false), (9, true)] {
            let edges: Vec<_> = (0..2 * pairs).map(|i| vec![(mode(i), 0)]).collect();
            let invariants = (0..pairs).map(|p| Cond::or(mode(2 * p), Cond::not(mode(2 * p + 1)))).collect();
            assert_eq!(verdicts(&model(2 * pairs, &edges, invariants)), (over, over), "{pairs} pairs");
        }
    }

    #[test]
    fn the_count_agrees_with_the_split_on_random_mode_spaces() {
        let mut next = super::super::xorshift(0x2545_f491_4f6c_dd1d);
        let mut overs = 0;
        for case in 0..12 {
            let modes = 12 + next(8) as usize;
            let mut edges = Vec::new();
            for _ in 0..modes + next(6) as usize {
                let mut conds = vec![(literal(&mut next, modes), 0)];
                match next(3) {
                    0 => conds.push((literal(&mut next, modes), 1)),
                    1 => conds[0].0 = Cond::and(conds[0].0.clone(), literal(&mut next, modes)),
                    _ => {}
                }
                edges.push(conds);
            }
            let invariants =
                (0..next(5)).map(|_| Cond::or(literal(&mut next, modes), literal(&mut next, modes))).collect();
            let (count, split) = verdicts(&model(modes, &edges, invariants));
            assert_eq!(count, split, "case {case}");
            overs += usize::from(split);
        }
        // Both verdicts occur.
        assert!(overs > 0 && overs < 12, "{overs} of 12 over the limit");
    }
}
