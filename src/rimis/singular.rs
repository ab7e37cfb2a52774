//! Valid modes that are structurally singular ([`Cdg::singular`]): no rewrite can make a
//! model simulate there (its equations do not determine its unknowns), but they are often
//! modes the model never reaches — two Standard Library tanks whose ports are both above
//! the water (Modelica.Fluid.Examples.Tanks.EmptyTanks): a closed pipe between closed
//! ports leaves its pressure free. omc simulates such a model as long as it stays out of
//! them, and fails on a singular Jacobian if it enters one. The output keeps the regular
//! modes (the transformation treats the singular ones as don't-cares, like the invalid
//! ones) and stops with an `assert` naming the overdetermined equations and the
//! undetermined variables when the simulation enters a singular mode: never a silently
//! wrong simulation. A model with no regular mode is refused.

use super::Item;
use super::exprs;
use super::plan::mode_expr;
use crate::analysis::cdg::Cdg;
use crate::mdae::Mdae;

/// One `assert(not S, "…")` per singular set S of valid modes.
pub(crate) fn asserts(mdae: &Mdae, cdg: &Cdg) -> Vec<Item> {
    cdg.singular
        .iter()
        .map(|s| {
            let when = cdg.space.text(&s.cond, &cdg.valid);
            let cond = cdg.space.to_cond(&s.cond, &cdg.valid);
            let test = exprs::not(exprs::cond_expr(&cond, &|m| mode_expr(mdae, m)));
            let over: Vec<String> = s.overdetermined.iter().map(|&e| mdae.label(e).to_string()).collect();
            let under: Vec<&str> = s.underdetermined.iter().map(|&v| mdae.var(v).name.as_str()).collect();
            let message = format!(
                "mdae-rimis: model {} is structurally singular when {when}: overdetermined equations [{}], undetermined variables [{}]; stopping instead of going on without a solution",
                mdae.name,
                over.join(", "),
                under.join(", ")
            );
            let mut item = Item::new(exprs::assert(test, &message));
            item.comment = Some(format!("structurally singular when {when}: the simulation must not enter it"));
            item
        })
        .collect()
}

/// The warning for stderr: where the output stops.
pub(crate) fn warnings(mdae: &Mdae, cdg: &Cdg) -> Vec<String> {
    cdg.singular
        .iter()
        .map(|s| {
            format!(
                "model {} is structurally singular when {}; the output stops with an assert if the simulation enters these modes",
                mdae.name,
                cdg.space.text(&s.cond, &cdg.valid)
            )
        })
        .collect()
}
