//! The initial system is not structurally overdetermined (the Σ-method on the initial
//! system, Modelica 3.6 §8.6): its unknowns are the Real unknowns and the derivatives of
//! the states; its equations the model's equations, the initial equations and `x = start`
//! for each state with `fixed = true`. A maximum matching leaves equations over; the
//! overdetermined part (Dulmage–Mendelsohn) is reported with its equations, as omc does.
//!
//! As omc: when the overdetermined part gives one unknown two different constant values
//! (`x = 2; x = 3;`, or `x = 2` with `x(start = 1, fixed = true)`), the initial system is
//! inconsistent: an error. Otherwise omc drops the redundant equations if they hold: a
//! warning. Only for models whose equations determine the derivatives of the states and
//! the algebraic unknowns (a perfect matching: index ≤ 1); others are left to the
//! structural analysis.

use super::continuous::{Origin, System, Unknown, columns};
use super::diagnostic::{Diagnostic, Kind};
use super::matching::{NONE, maximum, overdetermined};
use super::scope::Scope;
use std::collections::BTreeMap;

/// The unknowns named in the message; four times as many equations are shown.
const SHOWN: usize = 10;

pub(super) fn check(scope: &Scope, system: &System) -> Option<Diagnostic> {
    // Also run without initial equations, where nothing can be left over: skipping it
    // lowered no peak of the job on a chain of 10^5 equations (the lowering's is as high)
    // and raised the CLI's max RSS by 10 MB (measured, glibc; issue 15).
    if !index_at_most_one(system, scope.decls.len()) {
        return None;
    }
    // Row e: the model's equations, then the initial ones.
    let (eqs, init) = (&system.equations, &system.initial);
    let n = eqs.len();
    let size = (n + init.len(), eqs.all().chain(init.all()).map(<[_]>::len).sum(), {
        system.vars.len() + system.states.len()
    });
    let (cols, unknowns) = columns(eqs.all().chain(init.all()).map(|r| r.iter().copied()), scope.decls.len(), size);
    let assignment = maximum(&cols, unknowns.len());
    let (part, vars) = overdetermined(&cols, &assignment, unknowns.len());
    drop((cols, assignment));
    if part.is_empty() {
        return None;
    }
    let span = |e: usize| if e < n { eqs.span(e) } else { init.span(e - n) };
    let origin = |e: usize| if e < n { eqs.origin(e) } else { init.origin(e - n) };
    let value = |e: usize| if e < n { eqs.value(e) } else { init.value(e - n) };
    let name = |(d, order): Unknown| {
        let key = &scope.decls[d as usize].key;
        if order == 1 { format!("der({key})") } else { key.to_string() }
    };
    let mut names: Vec<String> = vars.iter().take(SHOWN).map(|&v| name(unknowns[v])).collect();
    if vars.len() > SHOWN {
        names.push("…".into());
    }
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let summary =
        format!("{} for {} ({})", plural(part.len(), "equation"), plural(vars.len(), "unknown"), names.join(", "));
    let conflict = inconsistent(&part, value);
    let mut diag = match &conflict {
        Some((unknown, a, b)) => {
            let (va, vb) = (value(*a).map_or(0.0, |v| v.1), value(*b).map_or(0.0, |v| v.1));
            Diagnostic::error(
                Kind::Initial,
                span(*b),
                format!(
                    "the initial system is overdetermined and inconsistent: `{}` = {va} and `{}` = {vb}; {summary}",
                    name(*unknown),
                    name(*unknown)
                ),
            )
            .help("remove the initial equations in excess (or `fixed = true`): omc refuses an inconsistent initial system")
        }
        None => {
            let at = part.iter().copied().find(|&e| origin(e) != Origin::Equation).unwrap_or(part[0]);
            Diagnostic::warning(
                Kind::Initial,
                span(at),
                format!("the initial system is structurally overdetermined: {summary}"),
            )
            .help("omc drops redundant initial equations when they are consistent; remove the ones in excess")
        }
    };
    for &e in part.iter().take(4 * SHOWN) {
        let what = match origin(e) {
            Origin::Equation => "equation",
            Origin::Initial => "initial equation",
            Origin::Fixed => "fixed = true: the start value is an initial equation",
        };
        if span(e) != diag.span {
            diag = diag.with(span(e), what);
        }
    }
    Some(diag)
}

/// The model's equations determine the derivatives of its states and its algebraic
/// unknowns: one each (a perfect matching, structural index ≤ 1). `decls`: the number
/// of declarations.
fn index_at_most_one(system: &System, decls: usize) -> bool {
    if system.equations.len() != system.vars.len() {
        return false;
    }
    // A state's value is known: only its derivative is an unknown.
    let mut unknown = vec![true; 2 * decls];
    for d in system.states.iter() {
        unknown[2 * d] = false;
    }
    let eqs = &system.equations;
    let rows = eqs.all().map(|r| r.iter().copied().filter(|&(d, o)| unknown[2 * d as usize + o as usize]));
    let size = (eqs.len(), eqs.all().map(<[_]>::len).sum(), system.vars.len() + system.states.len());
    let (cols, names) = columns(rows, decls, size);
    names.len() == eqs.len() && !maximum(&cols, names.len()).contains(&NONE)
}

/// Two rows of the overdetermined part giving one unknown different constant values (row
/// e reads `value(e)`): the unknown and the two rows (the later one second).
fn inconsistent(part: &[usize], value: impl Fn(usize) -> Option<(Unknown, f64)>) -> Option<(Unknown, usize, usize)> {
    let mut seen: BTreeMap<Unknown, (usize, f64)> = BTreeMap::new();
    for &e in part {
        let Some((unknown, v)) = value(e) else { continue };
        match seen.get(&unknown) {
            Some(&(first, w)) if (v - w).abs() > 1e-12 * v.abs().max(w.abs()).max(1.0) => {
                return Some((unknown, first, e));
            }
            Some(_) => {}
            None => {
                seen.insert(unknown, (e, v));
            }
        }
    }
    None
}
