//! The primal problem, all modes at once (paper 002 §4.4): X = μ ∧ ν ∧ Υ (perfect
//! matchings), ω (weight), S (maximum-weight perfect matchings, by the bitwise arg-max
//! ω_k^max = ∃E.(S_{k+1} ∧ ω_k), S_k = S_{k+1} ∧ (ω_k ⇔ ω_k^max)), T (one of them per
//! mode: `pick` keeps, for every mode, the least matching in the variable order) and
//! T_e = ∃E.(T ∧ e); `regular` = χ_M ∧ ∃E.X (the complement of the singular modes).
//!
//! Decomposition (ours; the paper's §6 asks for a modular approach): every mode's graph is
//! a subgraph of the all-modes union graph H on the same vertices, so every perfect
//! matching of a mode is one of H. By Dulmage–Mendelsohn ([`fine_blocks`]) the perfect
//! matchings of H are the products of perfect matchings of its irreducible blocks, and the
//! edges between blocks belong to none. Hence X = ∧_b X_b over disjoint edge variables, the
//! weight is ω = Σ_b ω_b, and for a fixed mode the arg-max of the sum is the product of
//! the arg-maxes: S = ∧_b S_b, T = ∧_b T_b. Each block is solved on its own edge variables,
//! so no BDD carries a partial sum across blocks. If H has no perfect matching, no mode
//! has one.
//!
//! Known limit (measured by `benches/scale.rs`): when H is one irreducible block, as on the
//! Westinghouse brake (each valve's two branches close alternating cycles along the whole
//! train), the intermediate S_k of the bitwise arg-max keep every perfect matching with
//! its partial weight: 0.7 M nodes at N = 20, 9 M at N = 50, while X (12 k nodes at
//! N = 20) and the final S (6 k) stay linear. The way out is to avoid sums: select the
//! MWPMs by complementary slackness (S = X ∧ every matched edge tight under optimal
//! mode-dependent duals), or a dynamic programme over a path decomposition of H whose
//! values are normalised at each cut.

use super::bits::BitVec;
use super::{Encoding, Stats};
use crate::analysis::dm::fine_blocks;
use crate::analysis::matching::Graph;
use biodivine_lib_bdd::{Bdd, BddVariable, BddVariableSet};

pub(super) struct Primal {
    /// T_e for every edge (false outside the regular modes).
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

pub(super) fn solve(enc: &Encoding, stats: &mut Stats) -> Primal {
    let set = enc.set();
    let singular_everywhere = || Primal { matched: vec![set.mk_false(); enc.edges.len()], regular: set.mk_false() };
    let union: Graph = enc.rows.iter().map(|row| row.iter().map(|&k| (enc.edges[k].var, 0)).collect()).collect();
    let Some(fine) = fine_blocks(&union, enc.mdae.vars.len()) else {
        return singular_everywhere();
    };
    // The admissible edges of every irreducible block of H.
    let mut block_edges: Vec<Vec<usize>> = vec![Vec::new(); fine.count];
    for (k, e) in enc.edges.iter().enumerate() {
        if fine.eq_block[e.eq] == fine.var_block[e.var] {
            block_edges[fine.eq_block[e.eq]].push(k);
        }
    }
    let mut matched = vec![set.mk_false(); enc.edges.len()];
    let mut regular = enc.valid.clone();
    for edges in &block_edges {
        let (exists, picked) = solve_block(enc, edges, stats);
        regular = regular.and(&exists);
        for (&k, t) in edges.iter().zip(picked) {
            matched[k] = t;
        }
    }
    stats.see(&regular);
    for t in &mut matched {
        *t = t.and(&regular);
    }
    stats.see_all(&matched);
    Primal { matched, regular }
}

/// One irreducible block of H with its admissible `edges`: ∃E_b.X_b and T_e for each edge.
fn solve_block(enc: &Encoding, edges: &[usize], stats: &mut Stats) -> (Bdd, Vec<Bdd>) {
    let set = enc.set();
    let vars: Vec<BddVariable> = edges.iter().map(|&k| enc.edges[k].bdd_var).collect();
    // Rows and columns of the block, each as its edge variables.
    let mut lines: std::collections::BTreeMap<(bool, usize), Vec<BddVariable>> = Default::default();
    for &k in edges {
        let e = &enc.edges[k];
        lines.entry((false, e.eq)).or_default().push(e.bdd_var);
        lines.entry((true, e.var)).or_default().push(e.bdd_var);
    }
    // Constraints, conjoined in the order of their first variable (locality).
    let mut constraints: Vec<(BddVariable, Bdd)> =
        lines.values().map(|line| (*line.iter().min().expect("a line has an edge"), exactly_one(set, line))).collect();
    for &k in edges {
        let e = &enc.edges[k];
        constraints.push((e.bdd_var, set.mk_var(e.bdd_var).imp(&e.active)));
    }
    constraints.sort_by_key(|(v, _)| *v);
    let x = constraints.iter().fold(set.mk_true(), |acc, (_, c)| {
        let x = acc.and(c);
        stats.see(&x);
        x
    });
    let exists = x.exists(&vars);
    // ω_b = Σ_e ite(e, σ_e, 0), on enough bits for the largest matching weight of the block.
    let width = enc.width + (usize::BITS - edges.len().leading_zeros()) as usize;
    let widen = |b: &BitVec| {
        let mut bits = b.bits.clone();
        bits.resize(width, set.mk_false());
        BitVec { bits }
    };
    let mut omega = BitVec::constant(set, width, 0);
    for &k in edges {
        let e = &enc.edges[k];
        omega = BitVec::ite(&set.mk_var(e.bdd_var), &omega.add(&widen(&e.sigma), set), &omega);
    }
    stats.see_all(&omega.bits);
    let mut s = x;
    for k in (0..width).rev() {
        if omega.bits[k].is_false() {
            continue;
        }
        let wmax = s.and(&omega.bits[k]).exists(&vars);
        s = s.and(&omega.bits[k].iff(&wmax));
        stats.see(&s);
    }
    let t = s.pick(&vars);
    stats.see(&t);
    let picked = vars.iter().map(|&v| t.and(&set.mk_var(v)).exists(&vars)).collect();
    (exists, picked)
}
