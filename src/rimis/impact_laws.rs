//! Impact laws declared by the user (paper 000 §5.2.4; issue 14 point 3): a `when C then
//! reinit(x, …); … end when;` of the input whose condition C holds exactly when a region of
//! modes is entered declares how the states restart there — an elastic bounce
//! `reinit(v, -e*pre(v))`, a synchroniser `reinit(w1, pre(w2))`. The law is kept as written
//! (the input's `when` passes through), and for that entry `restart_system` builds no
//! default (inelastic) restart, which would fight it at the same event. The consistency
//! equations of the region are still asserted after the switch (`checks.rs`): a law that
//! leaves them false in a long mode stops the run with a message rather than going on with
//! nonphysical values. Where the mode is a guard fixpoint's switch (`rimis/mod.rs`), it is
//! left at once where the law opens the other mode's guard (a transient mode, §5.2.3:
//! `guards::leaving_rate`), and where it is not (a bounce below the switches' hysteresis),
//! the default restart follows one step later (`restart_system.rs`, `at_rest`): the ball
//! comes to rest.
//!
//! Input: the input's kept equations and the plan. Output: [`Law`]s, each with the modes in
//! which its condition holds and the states it reinitialises.

use super::plan::Plan;
use crate::syntax::ast::{Equation, EquationKind, FunctionArgs};
use crate::syntax::printer::expr_to_string;
use biodivine_lib_bdd::Bdd;

/// A `when` branch of the input that reinitialises states.
pub(crate) struct Law {
    /// The modes where its condition holds.
    pub modes: Bdd,
    /// Its condition as written.
    pub condition: String,
    /// The variables it reinitialises.
    pub targets: Vec<String>,
}

/// The `when` branches of `kept` that reinitialise states and whose condition is a mode
/// condition (a mode variable or a condition the lowering knows).
pub(crate) fn declared(plan: &Plan, kept: &[Equation]) -> Vec<Law> {
    let mut out = Vec::new();
    for eq in kept {
        let EquationKind::When { branches } = &eq.kind else { continue };
        for (cond, body) in branches {
            let targets: Vec<String> = body.iter().filter_map(reinit_target).collect();
            if targets.is_empty() {
                continue;
            }
            let condition = expr_to_string(cond);
            let modes = if let Some(c) = plan.mdae.conditions.get(&condition) {
                plan.cdg.space.cond(c)
            } else if let Some(m) = plan.mdae.modes.iter().position(|m| m.name == condition) {
                plan.cdg.space.set.mk_var(plan.cdg.space.mode_vars[m])
            } else {
                continue;
            };
            out.push(Law { modes: modes.and(&plan.care), condition, targets });
        }
    }
    out
}

fn reinit_target(eq: &Equation) -> Option<String> {
    let EquationKind::Call(c) = &eq.kind else { return None };
    if c.function.text.as_str() != "reinit" {
        return None;
    }
    let FunctionArgs::List { positional, .. } = &c.args else { return None };
    super::exprs::var_name(positional.first()?).map(String::from)
}

/// The law that restarts the entry into `entered` from the other modes: its condition holds
/// in every mode entered and in none left.
pub(crate) fn for_entry<'a>(plan: &Plan, laws: &'a [Law], entered: &Bdd) -> Option<&'a Law> {
    let from = plan.care.and(&entered.not());
    laws.iter().find(|l| entered.and(&plan.care).and(&l.modes.not()).is_false() && from.and(&l.modes).is_false())
}
