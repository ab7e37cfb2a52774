//! Is every valid mode structurally nonsingular? The exact analysis's verdict on
//! singularity (its `singular` groups are empty exactly when the Σ-graph of each valid mode
//! has a perfect matching), without its offsets, blocks or BDD conditions: the valid
//! assignments of the structural modes ([`super::explicit::structural_modes`]; the others
//! do not change the Σ-graph) are enumerated from the projected χ_M, with one maximum
//! matching each.
//!
//! Input: an [`Mdae`]. Output: [`EveryMode`]. Used by the main job's self-check of a
//! rewritten output (`driver::self_check`): one analysis of the union of the modes'
//! incidences ([`super::oblivious::meets_the_guarantee`]) can be nonsingular while a mode
//! is not (issue 13: a replicate that no block writes in its mode, Rotational's LossyGear),
//! which `--check` on the output reports. Affordable only when the assignments times the
//! equations stay within [`MAX_WORK`] (a matching is near-linear in the model); beyond,
//! no verdict ([`EveryMode::NotChecked`]), never a guess.

use super::explicit::{EXPLICIT_MAX_MODES, enumerated_modes, sigma_in_mode, structural_modes};
use super::matching::maximum_matching;
use super::modes::ModeSpace;
use super::sigma::{SingleMode, analyse};
use crate::mdae::{Mdae, ModeId, ModeKind};
use biodivine_lib_bdd::BddVariable;

/// The most (valid structural assignments) × (equations + 1) the check enumerates: about
/// 0.1 s on this machine (the explicit strategy's own bound for `auto`,
/// [`super::AUTO_EXPLICIT_MAX_WORK`], measured to stay below the implicit strategy's time).
pub const MAX_WORK: u64 = super::AUTO_EXPLICIT_MAX_WORK;

/// The verdict of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EveryMode {
    /// Every valid mode is structurally nonsingular.
    Regular,
    /// A valid mode is singular: that mode (the structural modes, an atom by its condition,
    /// with their values; the others are free) and the overdetermined equations and underdetermined variables there, by name.
    Singular { mode: Vec<(String, bool)>, over: Vec<String>, under: Vec<String> },
    /// Too many modes to enumerate within [`MAX_WORK`].
    NotChecked,
}

/// Enumerates the valid modes of `mdae` that differ in structure and checks each for a
/// perfect matching (see the module header); the first singular one found, in the order
/// of the projected χ_M's paths, is returned.
pub fn check(mdae: &Mdae) -> EveryMode {
    let structural = structural_modes(mdae);
    let affordable = structural.len() <= EXPLICIT_MAX_MODES
        && enumerated_modes(mdae).is_some_and(|n| n.saturating_mul(mdae.equations.len() as u64 + 1) <= MAX_WORK);
    if !affordable || mdae.equations.iter().any(|e| e.active != crate::mdae::Cond::True) {
        return EveryMode::NotChecked;
    }
    let space = ModeSpace::of_modes(mdae);
    let others: Vec<BddVariable> = (0..mdae.modes.len())
        .filter(|&m| !structural.contains(&ModeId(m as u32)))
        .map(|m| space.mode_vars[m])
        .collect();
    let projected = space.valid(mdae).exists(&others);
    let vars: Vec<BddVariable> = structural.iter().map(|m| space.mode_vars[m.index()]).collect();
    for path in projected.sat_clauses() {
        // The structural modes the path leaves free take every value.
        let free: Vec<usize> = (0..vars.len()).filter(|&i| path.get_value(vars[i]).is_none()).collect();
        for bits in 0u64..(1u64 << free.len()) {
            let value = |i: usize| match path.get_value(vars[i]) {
                Some(v) => v,
                None => bits >> free.iter().position(|&f| f == i).unwrap_or(0) & 1 == 1,
            };
            let holds = |m: ModeId| structural.iter().position(|&s| s == m).is_some_and(value);
            if let Some(found) = singular_in(mdae, &holds) {
                let mode = structural.iter().enumerate().map(|(i, m)| (mode_text(mdae, *m), value(i)));
                let (over, under) = found;
                return EveryMode::Singular { mode: mode.collect(), over, under };
            }
        }
    }
    EveryMode::Regular
}

/// In the mode `holds`, `None` if the Σ-graph has a perfect matching, else the
/// overdetermined equations and underdetermined variables (Dulmage–Mendelsohn), by name.
fn singular_in(mdae: &Mdae, holds: &dyn Fn(ModeId) -> bool) -> Option<(Vec<String>, Vec<String>)> {
    let sigma = sigma_in_mode(mdae, holds);
    let n_var = mdae.vars.len();
    let (eq_to_var, _) = maximum_matching(&sigma, n_var);
    if sigma.len() == n_var && eq_to_var.iter().all(Option::is_some) {
        return None;
    }
    match analyse(&sigma, n_var) {
        SingleMode::Nonsingular(_) => None,
        SingleMode::Singular(dm) => Some((
            dm.over_eqs.iter().map(|&i| mdae.equations[i].id.clone()).collect(),
            dm.under_vars.iter().map(|&j| mdae.vars[j].name.clone()).collect(),
        )),
    }
}

/// A mode as the model writes it: a variable by name, an atom by its condition.
fn mode_text(mdae: &Mdae, m: ModeId) -> String {
    let mode = &mdae.modes[m.index()];
    match &mode.kind {
        ModeKind::Atom { expr } => expr.clone(),
        _ => mode.name.clone(),
    }
}
