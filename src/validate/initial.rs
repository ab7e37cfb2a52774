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
//!
//! One search does both ([`overdetermined`]): it matches the model's equations with the
//! states' values kept out (index ≤ 1 iff every one is matched), then lets them in and
//! goes on with the initial equations. Only these can be left over then (the model's
//! equations are independent), and which are does not depend on the matching of those
//! before (the greedy basis of the transversal matroid, [`super::matching`]); nor does
//! the overdetermined part. A model without initial equations nor `fixed = true` needs no
//! search (and validation builds no system for it).

use super::continuous::{Origin, System};
use super::diagnostic::{Diagnostic, Kind};
use super::matching::{NONE, Rows, Search, part};
use super::scope::Scope;
use std::collections::BTreeMap;

/// The unknowns named in the message; four times as many equations are shown.
const SHOWN: usize = 10;

/// The overdetermined part of the initial system: its rows and its columns, increasing.
pub(super) struct Part {
    rows: Vec<usize>,
    columns: Vec<usize>,
}

/// The overdetermined part of the initial system of an index ≤ 1 model, if it has one.
pub(super) fn overdetermined(system: &System) -> Option<Part> {
    let n = system.equations();
    if !system.square() {
        return None;
    }
    let rows = &system.rows;
    if rows.len() == n {
        return None; // no initial equation nor `fixed = true`: nothing can be left over
    }
    let mut search = Search::new(rows, system.columns(), true);
    // A state's value is known: only its derivative is an unknown of the model's equations.
    system.state_values().for_each(|v| search.block(v));
    if !(0..n).all(|e| search.augment(e)) {
        return None;
    }
    system.state_values().for_each(|v| search.unblock(v));
    let unmatched: Vec<usize> = (n..rows.len()).filter(|&e| !search.augment(e)).collect();
    if unmatched.is_empty() {
        return None;
    }
    let owner = search.into_owner();
    let (rows, columns) = part(rows, &owner, unmatched);
    Some(Part { rows, columns })
}

/// The diagnostic of the overdetermined `part` of `system` (built with its detail).
pub(super) fn diagnostic(scope: &Scope, system: &System, part: &Part) -> Option<Diagnostic> {
    let span = |e: usize| system.span(e);
    let origin = |e: usize| system.origin(e);
    let value = |e: usize| system.value(e);
    let name = |column: usize| {
        let (d, order) = system.unknown(column);
        let key = scope.key(d);
        if order == 1 { format!("der({key})") } else { key.to_string() }
    };
    // The unknowns in the order the rows first name them.
    let mut first = vec![NONE; system.columns()];
    let mut seen = 0;
    for e in 0..system.rows.len() {
        for &v in system.rows.row(e) {
            if first[v as usize] == NONE {
                first[v as usize] = seen;
                seen += 1;
            }
        }
    }
    let mut vars = part.columns.clone();
    vars.sort_by_key(|&v| first[v]);
    let part = &part.rows;
    let mut names: Vec<String> = vars.iter().take(SHOWN).map(|&v| name(v)).collect();
    if vars.len() > SHOWN {
        names.push("…".into());
    }
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let summary =
        format!("{} for {} ({})", plural(part.len(), "equation"), plural(vars.len(), "unknown"), names.join(", "));
    let conflict = inconsistent(part, value);
    let mut diag = match &conflict {
        Some((unknown, a, b)) => {
            let (va, vb) = (value(*a).map_or(0.0, |v| v.1), value(*b).map_or(0.0, |v| v.1));
            Diagnostic::error(
                Kind::Initial,
                span(*b)?,
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
                span(at)?,
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
        if span(e)? != diag.span {
            diag = diag.with(span(e)?, what);
        }
    }
    Some(diag)
}

/// Two rows of the overdetermined part giving one unknown different constant values (row
/// e reads `value(e)`): the unknown and the two rows (the later one second).
fn inconsistent(part: &[usize], value: impl Fn(usize) -> Option<(usize, f64)>) -> Option<(usize, usize, usize)> {
    let mut seen: BTreeMap<usize, (usize, f64)> = BTreeMap::new();
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
