//! The primal problem, all modes at once (paper 002 §4.4): X = μ ∧ ν ∧ Υ (perfect
//! matchings), S (maximum-weight perfect matchings), T (one of them per mode: for every
//! mode the least in the variable order, as biodivine's `S.pick(E)` keeps) and
//! T_e = ∃E.(T ∧ e); `regular` = χ_M ∧ ∃E.X (the complement of the singular modes).
//!
//! Decomposition (ours; the paper's §6 asks for a modular approach): every mode's graph is
//! a subgraph of the all-modes union graph H on the same vertices, so every perfect
//! matching of a mode is one of H. By Dulmage–Mendelsohn ([`fine_blocks`]) the perfect
//! matchings of H are the products of perfect matchings of its irreducible blocks, and the
//! edges between blocks belong to none. Hence X = ∧_b X_b over disjoint edge variables, the
//! weight is ω = Σ_b ω_b, and for a fixed mode the arg-max of the sum is the product of
//! the arg-maxes: S = ∧_b S_b, T = ∧_b T_b. Each block is solved on its own edge variables.
//! If H has no perfect matching, no mode has one.
//!
//! Inside a block, T_b is first sought factor by factor ([`factors`]: split one
//! signature at a time, decompose again, independent sub-blocks split on their own, one
//! leaf wherever a matching is of maximum weight in every mode of a piece) within its
//! budget; then by structural classes ([`classes`]: the valid modes split by the
//! existence and order of the block's varying edges, one single-mode maximum-weight
//! matching per class) when there are at most `CLASS_LIMIT` of them. The split comes
//! first since its leaves unite classes: the `--check` of a rewritten ThreeTanks output
//! (a block of 883 rows, 11,712 classes) took 40 s by classes, 0.8 s by the split, with
//! the same report (and every output of msl-flat, the fixtures and the repros
//! byte-identical). Otherwise X_b is kept as its local constraints (one per row, column
//! and edge) and [`optimal`] finds T_b by a dynamic programme over the variable order,
//! without the paper's weight ω and bitwise arg-max. Where the programme's levels outgrow
//! a trial budget (wide cuts: the connection sets of fluid models), the factored split
//! makes a last attempt before the programme runs to its full budget ([`solve_block`]).
//! On the Westinghouse brake H is one irreducible block (each valve's two branches close
//! alternating cycles along the whole train) and the intermediate S_k of the bitwise arg-max kept every perfect matching with its partial
//! weight: 9 M nodes and 51 s at N = 50; the programme keeps no BDD wider than a cut (156
//! nodes at N = 100, `benches/scale.rs`).

use super::optimal::Stop;
use super::{Encoding, Stats};
use super::{classes, factors, optimal};
use crate::analysis::dm::fine_blocks;
use crate::analysis::matching::Graph;
use biodivine_lib_bdd::{Bdd, BddVariable, BddVariableSet};

pub(super) struct Primal {
    /// T_e for every edge, modulo the regular modes ([`super::modulo`]: what it holds
    /// outside them is no one's concern; each block's own T_e, never conjoined with the
    /// O(N)-node regular modes).
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
        if stats.over_limit {
            return singular_everywhere();
        }
        regular = regular.and(&exists);
        for (&k, t) in edges.iter().zip(picked) {
            matched[k] = t;
        }
    }
    stats.see(&regular);
    stats.see_all(&matched);
    Primal { matched, regular }
}

/// One irreducible block of H with its admissible `edges`: ∃E_b.X_b and T_e for each edge
/// (on the valid modes: what they hold outside them is no one's concern; all false past
/// the budget, with `stats.over_limit` set). In turn: the factored split within its
/// first budget; the structural classes; the programme within
/// [`optimal::TRIAL_LEVELS`]; the factored split's last attempt
/// ([`factors::Budget::last_resort`]); the programme within [`optimal::LEVELS_LIMIT`].
/// A block the trial programme decides (the paper's families) is never solved by the
/// last attempt; one whose every attempt is over its budget refuses the model.
fn solve_block(enc: &Encoding, edges: &[usize], stats: &mut Stats) -> (Bdd, Vec<Bdd>) {
    let first = |stats: &mut Stats| factors::solve_block(enc, edges, factors::Budget::first(edges.len()), stats);
    if !stats.classes_first
        && let Some(solved) = first(stats)
    {
        return solved;
    }
    if !stats.factors_only
        && let Some(solved) = classes::solve_block(enc, edges, stats)
    {
        return solved;
    }
    if stats.classes_first
        && let Some(solved) = first(stats)
    {
        return solved;
    }
    let set = enc.set();
    let over = |stats: &mut Stats| {
        stats.over_limit = true;
        (set.mk_false(), vec![set.mk_false(); edges.len()])
    };
    match by_programme(enc, edges, optimal::TRIAL_LEVELS, stats) {
        Ok(solved) => return solved,
        Err(Stop::Budget) => return over(stats),
        Err(Stop::Levels) => {}
    }
    if let Some(solved) = factors::solve_block(enc, edges, factors::Budget::last_resort(edges.len()), stats) {
        return solved;
    }
    by_programme(enc, edges, optimal::LEVELS_LIMIT, stats).unwrap_or_else(|_| over(stats))
}

/// [`solve_block`] by the programme of [`optimal`] (X_b kept as its local constraints),
/// holding at most `levels_limit` nodes of levels at a cut.
fn by_programme(
    enc: &Encoding,
    edges: &[usize],
    levels_limit: usize,
    stats: &mut Stats,
) -> Result<(Bdd, Vec<Bdd>), Stop> {
    let set = enc.set();
    // Positions in `edges`, by variable.
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by_key(|&p| enc.edges[edges[p]].bdd_var);
    let vars: Vec<BddVariable> = order.iter().map(|&p| enc.edges[edges[p]].bdd_var).collect();
    let mut bucket = vec![set.mk_true(); vars.len()];
    for (last, c) in constraints(enc, edges) {
        let at = vars.binary_search(&last).expect("a constraint's last variable is an edge of the block");
        bucket[at] = bucket[at].and(&c);
    }
    let sigma: Vec<Vec<(u32, Bdd)>> =
        order.iter().map(|&p| enc.edges[edges[p]].sigma.partition(&set.mk_true(), set)).collect();
    let (exists, steps) = optimal::steps(set, &vars, &bucket, &sigma, levels_limit, stats)?;
    let marginals = optimal::marginals(set, &vars, &steps, stats);
    if stats.over_limit {
        return Err(Stop::Budget);
    }
    let mut picked = vec![set.mk_false(); edges.len()];
    for (&p, t) in order.iter().zip(marginals) {
        picked[p] = t;
    }
    Ok((exists, picked))
}

/// The constraints of X_b, each with its last variable in the order: exactly one edge per
/// row and per column of the block (μ, ν), and an edge only in the modes it exists (Υ).
fn constraints(enc: &Encoding, edges: &[usize]) -> Vec<(BddVariable, Bdd)> {
    let set = enc.set();
    let mut lines: std::collections::BTreeMap<(bool, usize), Vec<BddVariable>> = Default::default();
    for &k in edges {
        let e = &enc.edges[k];
        lines.entry((false, e.eq)).or_default().push(e.bdd_var);
        lines.entry((true, e.var)).or_default().push(e.bdd_var);
    }
    let mut out: Vec<(BddVariable, Bdd)> =
        lines.values().map(|line| (*line.iter().max().expect("a line has an edge"), exactly_one(set, line))).collect();
    for &k in edges {
        let e = &enc.edges[k];
        out.push((e.bdd_var, set.mk_var(e.bdd_var).imp(&e.active)));
    }
    out
}
