//! The maximum-weight perfect matchings of one irreducible block of the union graph, all
//! modes at once, by a dynamic programme over the variable order instead of the paper's
//! bitwise arg-max on the weight ω (paper 002 §4.4), whose intermediate S_k carry every
//! perfect matching with its partial weight (9 M nodes on the Westinghouse brake at N = 50).
//!
//! Input: the block's edge variables x_1 < … < x_n (BDD order), the constraints of X_b in
//! buckets (`bucket[k]`: the constraints whose last variable is x_k: exactly one edge per
//! row and column, x ⇒ χ_E), and σ_k by value. Output: ∃E_b.X_b (the modes with a perfect
//! matching) and the steps P_1 … P_n, each reading x_1 … x_k and modes, whose conjunction
//! is T_b: for every mode, the least maximum-weight perfect matching in the variable order
//! (what biodivine's `S.pick(E)` keeps); and [`marginals`], T_e from the steps.
//!
//! Cost-to-go. J_k(x_1…x_k) is, per mode, the largest weight of the edges after x_k over
//! the perfect matchings that extend x_1…x_k (none: no value); J_{k−1} = max over x_k of
//! x_k·σ_k + J_k. Bucket elimination from x_n down: the constraints are conjoined when
//! their last variable is reached, so J_k reads only the prefix variables of the rows and
//! columns still open at the cut. J_k is held as the partition of its value, shifted per
//! mode so that the best prefix of the mode has 0: `levels[δ]` holds the prefixes whose
//! best completion is δ below the best of their mode. Values are never summed, so no BDD
//! carries a partial weight: on the paper's models the levels stay a few hundred nodes.
//!
//! Arg-max. L_k: the choice x_k attains J_{k−1}. A matching is of maximum weight iff every
//! L_k holds (an optimal matching's every suffix is optimal for its prefix; conversely the
//! L_k chain J_0 = ω). Every prefix satisfying L_1 … L_k extends to one, so choosing x_k
//! false wherever L_k allows it (P_k = `L_k.var_pick(x_k)`) picks, per mode, the least
//! maximum-weight matching in the variable order.

use super::Stats;
use super::ops::{and, and_not, or, or_and};
use crate::analysis::meets::meets_not;
use biodivine_lib_bdd::{Bdd, BddVariable, BddVariableSet};

/// The most nodes the levels of one cut may hold. The levels are a function of the rows
/// and columns open at the cut: exponential in its width, which the variable order keeps
/// small on the paper's families (Westinghouse at any N: 156 nodes; the compressible
/// building: 2,088), not on the connection sets of Standard Library fluid models
/// (BatchPlant_StandardWater: 10^6 nodes and growing after 20 s, one block of 2,087
/// edges and over 10^6 structural classes). Past it the analysis refuses the model.
pub const LEVELS_LIMIT: usize = 100_000;

/// The levels the programme's first run may hold at a cut, seven times the largest the
/// paper's families need (the compressible building: 2,790 at N = 10 and 100; the
/// Westinghouse brake: 226). Past it the factored split makes its last attempt
/// ([`super::factors::Budget::last_resort`]) before the programme runs again up to
/// [`LEVELS_LIMIT`]: BatchPlant_StandardWater's block passes 20,000 nodes at a cut after
/// 1.1·10^6 nodes of work, and [`LEVELS_LIMIT`] after 1.7·10^7 (2 s), where the split
/// decides it.
pub const TRIAL_LEVELS: usize = 20_000;

/// Why the programme stopped short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The levels of a cut grew past the limit it was given.
    Levels,
    /// The run's budget of nodes or work ([`Stats::over_limit`]).
    Budget,
}

/// (∃E_b.X_b, [P_1 … P_n]) for the variables `vars` (sorted) with their constraint
/// buckets and σ by value, holding at most `levels_limit` nodes of levels at a cut.
pub(super) fn steps(
    set: &BddVariableSet,
    vars: &[BddVariable],
    bucket: &[Bdd],
    sigma: &[Vec<(u32, Bdd)>],
    levels_limit: usize,
    stats: &mut Stats,
) -> Result<(Bdd, Vec<Bdd>), Stop> {
    let top = sigma.iter().flat_map(|p| p.iter().map(|&(s, _)| s as usize)).max().unwrap_or(0);
    let mut levels: Vec<Bdd> = vec![set.mk_true()];
    let mut steps: Vec<Bdd> = Vec::with_capacity(vars.len());
    for k in (0..vars.len()).rev() {
        let not_x = set.mk_not_var(vars[k]);
        // x_k ∧ the modes where σ_k takes each value (small: once per variable).
        let on_in: Vec<(usize, Bdd)> =
            sigma[k].iter().map(|(s, modes)| (*s as usize, and(&set.mk_var(vars[k]), modes))).collect();
        // choice[u]: prefixes x_1…x_k whose value is top − u (u ≥ 0, smaller is better).
        let mut choice = vec![set.mk_false(); top + levels.len()];
        for (delta, level) in levels.iter().enumerate() {
            let b = and(level, &bucket[k]);
            choice[top + delta] = or_and(&choice[top + delta], &b, &not_x);
            for (s, on) in &on_in {
                let u = top - s + delta;
                choice[u] = or_and(&choice[u], &b, on);
                stats.see(&choice[u]);
            }
            stats.see(&choice[top + delta]);
            if stats.over_limit {
                return Err(Stop::Budget);
            }
        }
        // best[u]: prefixes x_1…x_{k−1} whose best choice has value top − u; L_k.
        let mut reached = set.mk_false();
        let mut best = Vec::with_capacity(choice.len());
        let mut step = set.mk_false();
        for c in &choice {
            let g = if c.is_false() { c.clone() } else { and_not(&c.var_exists(vars[k]), &reached) };
            // c ∧ g: c itself while nothing better was reached (c ⇒ ∃x_k.c).
            step = if reached.is_false() { or(&step, c) } else { or_and(&step, c, &g) };
            reached = or(&reached, &g);
            stats.see(&step);
            stats.see(&reached);
            if stats.over_limit {
                return Err(Stop::Budget);
            }
            best.push(g);
        }
        // A copy at its exact length: the library grows a result's vector by doubling.
        let step = step.var_pick(vars[k]).clone();
        stats.see(&step);
        steps.push(step);
        levels = normalise(&best, &vars[..k], set, stats);
        stats.see_all(&levels);
        if stats.over_limit {
            return Err(Stop::Budget);
        }
        if levels.iter().map(Bdd::size).sum::<usize>() > levels_limit {
            return Err(Stop::Levels);
        }
    }
    steps.reverse();
    let exists = levels.iter().fold(set.mk_false(), |acc, l| acc.or(l));
    Ok((exists, steps))
}

/// ∃`vars`.`b` for sorted `vars`, without the set biodivine's `exists` builds from the list
/// (O(|vars|) per call: quadratic over a block's edges, issue 15); the same result.
fn exists_sorted(b: &Bdd, vars: &[BddVariable]) -> Bdd {
    b.exists_trigger(|v| vars.binary_search(&v).is_ok())
}

/// Shifts `best` (by u) per mode so that the smallest u of the mode becomes δ = 0.
fn normalise(best: &[Bdd], prefix: &[BddVariable], set: &BddVariableSet, stats: &mut Stats) -> Vec<Bdd> {
    // The modes of each best[u], by quantification; modes(best[u0]) for the first u0 that
    // is not empty is needed anyway.
    let mut modes_of: Vec<Option<Bdd>> = vec![None; best.len()];
    if let Some(u0) = best.iter().position(|g| !g.is_false()) {
        let m0 = exists_sorted(&best[u0], prefix);
        // Most steps shift nothing: every mode with a completion has its best at u0 (no
        // later best[u] reaches a mode outside modes(best[u0]), a walk, not a
        // quantification); then the levels are best[u0..] as they are. (The shift only
        // keeps the levels few: one per mode is uniform, so it changes no comparison of
        // choices and no step.)
        if best[u0 + 1..].iter().all(|g| !meets_not(g, &m0)) {
            // The work counted as if every best[u] had been quantified (the work budget's
            // verdicts do not move; the node budget sees m0, which is what `seen` becomes,
            // and the levels, not the modes of the later best[u]).
            stats.work += best.iter().map(|g| g.size() as u64).sum::<u64>();
            stats.see(&m0);
            let mut levels = best[u0..].to_vec();
            while levels.len() > 1 && levels.last().is_some_and(Bdd::is_false) {
                levels.pop();
            }
            return levels;
        }
        modes_of[u0] = Some(m0);
    }
    // shift[t]: the modes whose smallest u is t.
    let mut seen = set.mk_false();
    let mut shift = Vec::with_capacity(best.len());
    for (g, known) in best.iter().zip(modes_of) {
        let modes = match known {
            Some(m) => m,
            None if g.is_false() => g.clone(),
            None => exists_sorted(g, prefix),
        };
        // The quantification's own work, unseen by `see`: at least one pass over `g` per
        // variable quantified (HeatingSystem spent minutes here below every other limit).
        stats.work += g.size() as u64;
        stats.see(&modes);
        if stats.over_limit {
            return vec![set.mk_false()];
        }
        shift.push(and_not(&modes, &seen));
        seen = or(&seen, &modes);
        stats.see(&seen);
    }
    let mut levels: Vec<Bdd> = (0..best.len())
        .map(|delta| {
            shift.iter().zip(&best[delta..]).filter(|(s, _)| !s.is_false()).fold(set.mk_false(), |acc, (s, g)| {
                let x = or(&acc, &and(s, g));
                stats.see(&x);
                x
            })
        })
        .collect();
    while levels.len() > 1 && levels.last().is_some_and(Bdd::is_false) {
        levels.pop();
    }
    levels
}

/// T_e for every variable of `vars` (sorted), T = ∧_k `steps[k]` where `steps[k]` reads
/// `vars[..=k]` and modes: T_{x_k} = ∃E.(α_k ∧ P_k ∧ x_k) with the forward message α_{k+1} =
/// ∃(the variables no later step reads).(α_k ∧ P_k), so that no BDD is wider than a cut
/// (T itself is never built). No backward message is needed: every prefix satisfying P_1 …
/// P_k extends to an assignment satisfying every step (P_k holds only where the prefix
/// before x_k has a completion and x_k attains its best one, so J_k is finite there and
/// P_{k+1} keeps a choice for x_{k+1}). The backward messages β_k = ∃x_k.(P_k ∧ β_{k+1})
/// this kept beside every step were half of the programme's memory (building N = 300:
/// 125 of 274 MB) and changed no T_e (`t_is_the_least_maximum_weight_matching_in_every_mode`
/// checks T_e against enumeration).
pub(super) fn marginals(set: &BddVariableSet, vars: &[BddVariable], steps: &[Bdd], stats: &mut Stats) -> Vec<Bdd> {
    let n = vars.len();
    // retire[k]: the variables whose last reader is steps[k].
    let mut last_use: Vec<usize> = (0..n).collect();
    for (k, p) in steps.iter().enumerate() {
        for v in p.support_set() {
            if let Ok(at) = vars.binary_search(&v) {
                last_use[at] = last_use[at].max(k);
            }
        }
    }
    let mut retire: Vec<Vec<BddVariable>> = vec![Vec::new(); n];
    for (at, &k) in last_use.iter().enumerate() {
        retire[k].push(vars[at]);
    }
    let mut alpha = set.mk_true();
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let here = and(&alpha, &steps[k]);
        let chosen = and(&here, &set.mk_var(vars[k]));
        let t = exists_sorted(&chosen, vars);
        stats.work += chosen.size() as u64;
        stats.see(&t);
        if stats.over_limit {
            return vec![set.mk_false(); n];
        }
        out.push(t);
        alpha = here.exists(&retire[k]);
        stats.see(&alpha);
        if stats.over_limit {
            return vec![set.mk_false(); n];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use biodivine_lib_bdd::BddValuation;

    /// Exactly one of `vars`, by enumeration (small lines only).
    fn exactly_one(set: &BddVariableSet, vars: &[BddVariable]) -> Bdd {
        vars.iter().fold(set.mk_false(), |acc, &v| {
            let only = vars.iter().filter(|&&o| o != v).fold(set.mk_var(v), |t, &o| t.and_not(&set.mk_var(o)));
            acc.or(&only)
        })
    }

    /// On random 3×3 blocks over 2 mode variables (edges present and σ ∈ 0..3 depending on
    /// a mode literal), T is, in every mode, the least maximum-weight perfect matching in
    /// the variable order, found by enumerating the 6 permutations.
    #[test]
    fn t_is_the_least_maximum_weight_matching_in_every_mode() {
        let mut next = super::super::xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..300 {
            let set = BddVariableSet::new_anonymous(11);
            let all = set.variables();
            let (modes, vars) = (&all[..2], &all[2..]);
            let lit = |r: u64| match r % 5 {
                0 => set.mk_true(),
                1 => set.mk_var(modes[0]),
                2 => set.mk_var(modes[0]).not(),
                3 => set.mk_var(modes[1]),
                _ => set.mk_var(modes[1]).not(),
            };
            let mut active = Vec::new();
            let mut sigma: Vec<Vec<(u32, Bdd)>> = Vec::new();
            for _ in 0..9 {
                active.push(lit(next(7)));
                let (w, a, b) = (lit(next(5)), next(3) as u32, next(3) as u32);
                sigma.push(if a == b { vec![(a, set.mk_true())] } else { vec![(a, w.clone()), (b, w.not())] });
            }
            let mut bucket = vec![set.mk_true(); 9];
            for k in 0..3 {
                let row: Vec<BddVariable> = (0..3).map(|j| vars[3 * k + j]).collect();
                let col: Vec<BddVariable> = (0..3).map(|i| vars[3 * i + k]).collect();
                bucket[6 + k] = bucket[6 + k].and(&exactly_one(&set, &col));
                bucket[3 * k + 2] = bucket[3 * k + 2].and(&exactly_one(&set, &row));
            }
            for (e, a) in active.iter().enumerate() {
                bucket[e] = bucket[e].and(&set.mk_var(vars[e]).imp(a));
            }
            let (exists, steps) =
                steps(&set, vars, &bucket, &sigma, LEVELS_LIMIT, &mut Stats::default()).expect("within the budget");
            let marginals = marginals(&set, vars, &steps, &mut Stats::default());
            for m in 0..4u32 {
                let mut val = BddValuation::all_false(11);
                val.set_value(modes[0], m & 1 == 1);
                val.set_value(modes[1], m & 2 == 2);
                let weight = |e: usize| sigma[e].iter().find(|(_, b)| b.eval_in(&val)).expect("σ has a value").0;
                // (−weight, edge bits as chosen in variable order): the least is the expected T.
                let mut best: Option<(i64, Vec<bool>)> = None;
                for p in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                    let chosen: Vec<usize> = (0..3).map(|i| 3 * i + p[i]).collect();
                    if chosen.iter().all(|&e| active[e].eval_in(&val)) {
                        let w: i64 = chosen.iter().map(|&e| i64::from(weight(e))).sum();
                        let bits: Vec<bool> = (0..9).map(|e| chosen.contains(&e)).collect();
                        let key = (-w, bits);
                        if best.as_ref().is_none_or(|b| key < *b) {
                            best = Some(key);
                        }
                    }
                }
                assert_eq!(exists.eval_in(&val), best.is_some());
                let expected = best.map_or(vec![false; 9], |b| b.1);
                let got: Vec<bool> = marginals.iter().map(|t| t.eval_in(&val)).collect();
                assert_eq!(got, expected, "mode {m}");
            }
        }
    }

    /// `normalise` shifts `best` per mode so that the mode's smallest u becomes level 0 and
    /// keeps every later level of the mode at the same distance, on random `best` over 2
    /// mode and 3 prefix variables; half the draws keep the later best[u] inside the modes
    /// of the first (the shortcut's case), half do not.
    #[test]
    fn levels_are_best_shifted_per_mode_to_its_least_u() {
        let mut next = super::super::xorshift(0x9e37_79b9_7f4a_7c15);
        let set = BddVariableSet::new_anonymous(5);
        let all = set.variables();
        let (modes, prefix) = (&all[..2], &all[2..]);
        let random = |next: &mut dyn FnMut(u64) -> u64| {
            (0..32u32).filter(|_| next(3) == 0).fold(set.mk_false(), |acc, bits| {
                let cube = (0..5).fold(set.mk_true(), |c, i| c.and(&set.mk_literal(all[i], bits >> i & 1 == 1)));
                acc.or(&cube)
            })
        };
        for draw in 0..400 {
            let mut best: Vec<Bdd> = (0..1 + next(4)).map(|_| random(&mut next)).collect();
            if draw % 2 == 0
                && let Some(u0) = best.iter().position(|g| !g.is_false())
            {
                let m0 = best[u0].exists(prefix);
                for g in &mut best[u0 + 1..] {
                    *g = g.and(&m0);
                }
            }
            let levels = normalise(&best, prefix, &set, &mut Stats::default());
            let level = |d: usize| levels.get(d).cloned().unwrap_or_else(|| set.mk_false());
            assert!(levels.len() == 1 || !levels[levels.len() - 1].is_false(), "no empty level last");
            for m in 0..4u32 {
                let mode = set.mk_literal(modes[0], m & 1 == 1).and(&set.mk_literal(modes[1], m & 2 == 2));
                let least = best.iter().position(|g| !g.and(&mode).is_false());
                for d in 0..best.len() + 1 {
                    let expected = least.and_then(|s| best.get(s + d)).map_or(set.mk_false(), |g| g.and(&mode));
                    assert_eq!(level(d).and(&mode), expected, "draw {draw}, mode {m}, level {d}");
                }
            }
        }
    }
}
