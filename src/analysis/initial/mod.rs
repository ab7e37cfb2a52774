//! The initial system in every mode the model may start in (issue 29 point 4): are the
//! initial unknowns determined — as many equations and fixed starts as unknowns, a perfect
//! matching — so that no simulator has to guess? Reported by `--check` (text) and
//! `--report json` (`initial_system`); the test suite asks it of every output.
//!
//! Input: the parsed model (its initial sections and declarations, which the mDAE does not
//! keep), the [`Mdae`] and its [`Cdg`]. Output: [`InitialSystem`].
//!
//! **The initial system of a mode**: unknowns, every real unknown of the mDAE and the
//! derivatives up to the highest order read there (`der(x)` its own unknown); equations,
//! the model's equations as they hold in that mode (their guarded incidence), the initial
//! equations active there (`rows.rs`: an if-equation's branch by its condition, read as
//! modes by `start.rs`) and `x = start` for every variable declared `fixed = true`.
//! Parameters, constants and discrete variables are known. Structural: a perfect bipartite
//! matching (`solve.rs`), else the unknowns left free (underdetermined) and the equations
//! left over (overdetermined), with their Dulmage–Mendelsohn parts.
//!
//! **The modes checked** are the regular modes (the CDG's) where every mode whose value at
//! t = 0 is known before the initialisation has that value (`start.rs`: a guard of `time`,
//! parameters and `fixed` starts; a switch's `when initial()` branch; the start value of a
//! `when`-defined variable): `b = time >= 1.0` cannot start true, so the modes where it is
//! are not checked. The other modes are all possible at t = 0 (a guard reading a value the
//! initial system computes), each checked. Modes where the model is differentiated (an
//! offset c > 0: index > 1, the tool's initial system holds differentiated equations) are
//! left out and named; outputs are index 0 everywhere. A condition of an initial
//! equation that the check cannot read as modes is a free choice: every value is checked.

mod decls;
mod rows;
mod solve;
mod start;
#[cfg(test)]
mod tests;

use crate::analysis::Cdg;
use crate::mdae::Mdae;
use crate::syntax::SourceFile;
use crate::syntax::ast::{ClassBody, StoredDefinition};
use biodivine_lib_bdd::Bdd;
use serde::Serialize;

pub use solve::MAX_WORK;

/// What [`check`] finds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitialSystem {
    /// The regular modes the model may start in, as a condition (`true`: every one).
    pub starts_in: String,
    /// The modes whose value at t = 0 is known before the initialisation.
    pub at_start: Vec<AtStartValue>,
    /// Conditions of initial equations not read as modes (every value checked).
    pub free_choices: Vec<String>,
    /// `verdict` (`determined`, `not_determined`, `not_checked`) and its fields beside.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// A mode's value at t = 0 and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AtStartValue {
    pub mode: String,
    pub value: bool,
    pub from: String,
}

/// Determined in every mode checked, or not (where, and why), or no verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// A perfect matching in every mode checked (`checks`: the components times the
    /// assignments of their modes).
    Determined { checks: u64 },
    /// Some mode checked has none: the first [`Failure`]s, and how many more.
    NotDetermined { failures: Vec<Failure>, unlisted: usize },
    /// Not decided, and why.
    NotChecked { reason: String },
}

/// A part of the initial system without a perfect matching in some modes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The modes (the part's own; free choices in parentheses), a conjunction.
    pub when: String,
    /// Equations a maximum matching leaves over, unknowns it leaves free.
    pub left_over: usize,
    pub free: usize,
    /// The overdetermined equations (`e<line>` the model's, `i<line>` initial equations,
    /// `fixed(x)` the start of x) and the underdetermined unknowns.
    pub overdetermined: Vec<String>,
    pub underdetermined: Vec<String>,
}

impl InitialSystem {
    /// Determined in every mode checked.
    pub fn is_determined(&self) -> bool {
        matches!(self.verdict, Verdict::Determined { .. })
    }
}

/// The initial system of `mdae` (lowered from `def`, in `file`) in every mode it may
/// start in (module header).
pub fn check(def: &StoredDefinition, file: &SourceFile, mdae: &Mdae, cdg: &Cdg) -> InitialSystem {
    let parts = match crate::flat::model_class(def).map(|c| &c.body) {
        Some(ClassBody::Long(comp)) => comp.parts.as_slice(),
        _ => &[],
    };
    let decls = decls::Decls::of(parts);
    let mut at = start::AtStart::of(mdae, &decls, parts);
    let extra = rows::read(mdae, &decls, parts, &mut at, file);
    let space = &cdg.space;
    let mut starts = cdg.regular.clone();
    let mut at_start = Vec::new();
    for (m, value) in at.values.iter().enumerate() {
        let Some((v, from)) = value else { continue };
        let var = space.set.mk_var(space.mode_vars[m]);
        starts = starts.and(&if *v { var } else { var.not() });
        at_start.push(AtStartValue { mode: mdae.modes[m].name.clone(), value: *v, from: from.clone() });
    }
    let text = |b: &Bdd| space.text(b, &cdg.valid);
    let verdict = match extra {
        _ if !mdae.always_active() => {
            Verdict::NotChecked { reason: "some equations are active in some modes only".into() }
        }
        Err(reason) => Verdict::NotChecked { reason },
        Ok(_) if cdg.regular.is_false() => {
            Verdict::NotChecked { reason: "no mode is regular (the model is structurally singular)".into() }
        }
        Ok(_) if starts.is_false() => {
            Verdict::NotChecked { reason: "no regular mode agrees with the modes' values at t = 0".into() }
        }
        Ok(extra) => solve::verdict(&solve::System { mdae, extra: &extra, at: &at }, cdg, &starts),
    };
    InitialSystem {
        starts_in: if starts.is_false() { "false".into() } else { text(&starts) },
        at_start,
        free_choices: at.free.clone(),
        verdict,
    }
}

/// The `--check` section.
pub fn text(s: &InitialSystem) -> String {
    let mut out = match s.starts_in.as_str() {
        "true" => "initial system: the model may start in any regular mode".to_string(),
        c => format!("initial system: the model may start where {c}"),
    };
    if !s.at_start.is_empty() {
        let known: Vec<String> = s.at_start.iter().map(|a| format!("{} = {} ({})", a.mode, a.value, a.from)).collect();
        out.push_str(&format!(" (at t = 0: {})", known.join(", ")));
    }
    out.push('\n');
    if !s.free_choices.is_empty() {
        let free: Vec<String> = s.free_choices.iter().map(|c| format!("`{c}`")).collect();
        out.push_str(&format!(
            "  conditions of initial equations not read as modes (each value checked): {}\n",
            free.join(", ")
        ));
    }
    match &s.verdict {
        Verdict::Determined { .. } => out.push_str("  determined in every mode it may start in\n"),
        Verdict::NotChecked { reason } => out.push_str(&format!("  not checked: {reason}\n")),
        Verdict::NotDetermined { failures, unlisted } => {
            for f in failures {
                let when =
                    if f.when == "true" { "in every mode it may start in".into() } else { format!("when {}", f.when) };
                let mut what = Vec::new();
                if f.free > 0 {
                    what.push(format!("underdetermined by {} in [{}]", f.free, f.underdetermined.join(", ")));
                }
                if f.left_over > 0 {
                    what.push(format!("overdetermined by {} in [{}]", f.left_over, f.overdetermined.join(", ")));
                }
                out.push_str(&format!("  not determined {when}: {}\n", what.join("; ")));
            }
            if *unlisted > 0 {
                out.push_str(&format!("  … and {unlisted} more\n"));
            }
        }
    }
    out
}
