//! The primal problem, all modes at once (paper 002 §4.4): X = μ ∧ ν ∧ Υ (perfect
//! matchings), ω (weight), S (maximum-weight perfect matchings, by the bitwise arg-max
//! ω_k^max = ∃E.(S_{k+1} ∧ ω_k), S_k = S_{k+1} ∧ (ω_k ⇔ ω_k^max)), T (one of them per
//! mode: `pick` keeps, for every mode, the least matching in the variable order) and
//! T_e = ∃E.(T ∧ e); `regular` = χ_M ∧ ∃E.X (the complement of the singular modes).

use super::Encoding;
use super::bits::BitVec;
use biodivine_lib_bdd::{Bdd, BddVariable, BddVariableSet};

pub(super) struct Primal {
    /// T_e for every edge.
    pub matched: Vec<Bdd>,
    /// Valid modes with a perfect matching.
    pub regular: Bdd,
}

/// Exactly one of `vars` is true.
fn exactly_one(set: &BddVariableSet, vars: &[BddVariable]) -> Bdd {
    // none = no variable so far is true; one = exactly one so far; built from the last.
    let mut none = set.mk_true();
    let mut one = set.mk_false();
    for &v in vars.iter().rev() {
        let x = set.mk_var(v);
        one = Bdd::if_then_else(&x, &none, &one);
        none = none.and_not(&x);
    }
    one
}

pub(super) fn solve(enc: &Encoding) -> Primal {
    let set = enc.set();
    let n = enc.mdae.equations.len();
    if n != enc.mdae.vars.len() {
        return Primal { matched: vec![set.mk_false(); enc.edges.len()], regular: set.mk_false() };
    }
    // Constraints, conjoined in the order of their first variable (locality).
    let mut constraints: Vec<(BddVariable, Bdd)> = Vec::new();
    for row in enc.rows.iter().chain(enc.cols.iter()) {
        let vars: Vec<BddVariable> = row.iter().map(|&k| enc.edges[k].bdd_var).collect();
        match vars.iter().min() {
            Some(&first) => constraints.push((first, exactly_one(set, &vars))),
            None => return Primal { matched: vec![set.mk_false(); enc.edges.len()], regular: set.mk_false() },
        }
    }
    for e in &enc.edges {
        constraints.push((e.bdd_var, set.mk_var(e.bdd_var).imp(&e.active)));
    }
    constraints.sort_by_key(|(v, _)| *v);
    let x = constraints.iter().fold(set.mk_true(), |acc, (_, c)| acc.and(c));
    let x = x.and(&enc.valid);
    let regular = x.exists(&enc.edge_vars);
    // ω = Σ_e ite(e, σ_e, 0), on enough bits for the largest matching weight.
    let width = enc.width + (usize::BITS - n.leading_zeros()) as usize;
    let widen = |b: &BitVec| {
        let mut bits = b.bits.clone();
        bits.resize(width, set.mk_false());
        BitVec { bits }
    };
    let zero = BitVec::constant(set, width, 0);
    let mut omega = zero.clone();
    for e in &enc.edges {
        let sel = set.mk_var(e.bdd_var);
        omega = BitVec::ite(&sel, &omega.add(&widen(&e.sigma), set), &omega);
    }
    let mut s = x;
    for k in (0..width).rev() {
        let wmax = s.and(&omega.bits[k]).exists(&enc.edge_vars);
        s = s.and(&omega.bits[k].iff(&wmax));
    }
    let t = s.pick(&enc.edge_vars);
    let matched = enc.edges.iter().map(|e| t.and(&set.mk_var(e.bdd_var)).exists(&enc.edge_vars)).collect();
    Primal { matched, regular }
}
