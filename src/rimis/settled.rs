//! Switches decide on settled reads (issue 29: campaign seeds 1450 and 191 in omc).
//!
//! A switch (the `when`-equation of a guard fixpoint on left limits, `guards::left_limit`)
//! reads its guard through the replicates of the modes it is in: multiplexers and held
//! blocks selected by the other mode variables. Where another mode variable changes at an
//! event — a time event, say — the step of the event iteration in which it changes already
//! selects the replicates of the mode entered, and a state replicate of that mode holds a
//! stale value until its REINIT applies at the end of the step. A switch that fires on that
//! step (its exact edge, or its level from the mode it leaves) reads the stale value: seed
//! 1450's `b1`, at the time event of `b2` (t = 1.19), left `b1` on a replicate of `x1`
//! frozen since t = 0.23, and the run stopped at a consistency assert. So each switch fires
//! only on a step in which none of the mode variables its reads are selected by changes
//! (`not (change(b2) or …)`): the step after, the reinits have applied and it reads the
//! state as the modes settled; during integration `change` is false and nothing moves. Only
//! mode variables whose own definition does not reach the switch count (else the condition
//! would close a loop through the `when`-equation, which omc refuses); those are settled by
//! the event iteration as before.
//!
//! A condition that held before such a step dips to false on it and rises again after, so
//! its branch fires once more: harmless where the guard still says what the branch sets (a
//! mode entered again that it is in), and otherwise only where the mode was left against its
//! exact edge — inside the hysteresis band, or by a transient mode's impact law — and another
//! mode variable its reads are selected by changes before the edge turns; no fixture or
//! campaign seed does.
//!
//! A guard fixpoint kept as a level equation (`m = if pre(m) then … else …`, with its
//! hysteresis) is held the same way: `m = if change(b1) or … then pre(m) elseif …`. Seed 191
//! cycled in omc's event iteration: when b1 left, b2's level read a state replicate of the
//! mode entered, frozen at its start, and switched on; the step after it read the other
//! mode's value and switched off, and the replicate's REINIT took the stale value again.

use super::exprs;
use super::guards::{Deps, names_in, reachable};
use crate::mdae::{Mdae, ModeId, ModeKind};
use crate::syntax::ast::{BinOp, Expr};
use std::collections::BTreeSet;

/// `change(b) or …` over the mode variables (other than `m`) that what `reads` names reaches
/// through `deps` (blocks, multiplexers, mode equations), leaving out those whose definition
/// reaches `m` in `level`; `None` when there is none, or when `stale` is given and nothing
/// reached is stale. A level equation passes `stale`: only a state replicate that REINIT sets
/// when its mode is entered is stale on the step of the event iteration that enters it; a
/// level equation whose guard reads none is left to the event iteration as it is (the
/// friction state machines of the Standard Library settle there within the instant: holding
/// them made rumoca's event iteration on Rotational.Examples.HeatLosses diverge).
pub(crate) fn unsettled(
    mdae: &Mdae,
    m: ModeId,
    reads: &BTreeSet<String>,
    deps: &[&Deps],
    level: &[&Deps],
    stale: Option<&dyn Fn(&str) -> bool>,
) -> Option<Expr> {
    let reached = reachable(deps, reads);
    if let Some(stale) = stale
        && !reached.iter().any(|n| stale(n))
    {
        return None;
    }
    let target = &mdae.mode(m).name;
    let mut vars: BTreeSet<&str> = BTreeSet::new();
    for mode in &mdae.modes {
        let var = match &mode.kind {
            ModeKind::Variable => mode.name.as_str(),
            ModeKind::Value { var, .. } => var.as_str(),
            ModeKind::Atom { .. } => continue,
        };
        if var == target || !reached.contains(var) {
            continue;
        }
        if reachable(level, &BTreeSet::from([var.to_string()])).contains(target.as_str()) {
            continue;
        }
        vars.insert(var);
    }
    vars.into_iter().map(|v| exprs::call("change", vec![exprs::name(v)])).reduce(|a, b| exprs::binary(BinOp::Or, a, b))
}

/// The names an expression reads, for [`unsettled`].
pub(crate) fn reads(exprs: &[&Expr]) -> BTreeSet<String> {
    exprs.iter().flat_map(|e| names_in(e)).collect()
}
