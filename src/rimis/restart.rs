//! Restarts RIMIS cannot guarantee (issue 4, point 3). In the modes where an equation
//! has offset c > 0, its lower derivatives π(δ_j e), j < c, are **consistency
//! equations**: RIMIS integrates e^(c) and relies on them holding when the mode is
//! entered. They hold when they held before the switch (see [`warnings`]), or, for e
//! itself, when the mode is entered by a guard of a mode equation (rewritten on left
//! limits) whose crossing surface is e: the WaterTank enters `bh` exactly when
//! `x - xmax` crosses 0.
//! Each way into the region is checked on its own (see [`warnings`]). Every entry that
//! does not make them true (the engaging clutch: `w1 - w2 = 0` needs an impulse, paper
//! 000 §5) is reported: the output simulates but keeps the pre-switch values.

use super::exprs;
use super::guards::resolve;
use super::plan::{Plan, primed};
use super::sections::sides_under_in;
use super::symbolic;
use crate::analysis::local::Local;
use crate::mdae::{EqId, ModeId};
use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::syntax::printer::expr_to_string;
use biodivine_lib_bdd::Bdd;
use std::collections::BTreeMap;

/// A mode variable rewritten on left limits, with its guard in source names.
pub(crate) struct Switch {
    pub mode: ModeId,
    pub guard: Expr,
}

/// A consistency equation e^(j) that an entry into the modes `entered` does not make true.
pub(crate) struct Unguaranteed {
    pub eq: EqId,
    pub j: u32,
    pub entered: Bdd,
    /// `entered` as the local set `Factored::local` makes of its whole set (`Plan::canonical`).
    pub entered_local: Local,
    /// The warning, if nothing restores it (`restart_system` may).
    pub message: String,
}

/// Every consistency equation e^(j) (j < c in a region of modes) that some entry into
/// the region does not make true. The entries considered:
///
/// - a **switch** (a mode variable rewritten on left limits) flips alone: its guard
///   crosses while every other mode variable keeps its value (two guards crossing at the
///   same instant is not generic, and is not considered);
/// - any change of the other mode variables (atoms, time events, when-defined modes),
///   together, from any valid mode outside the region.
///
/// An entry from the modes P into the part E of the region makes e^(j) true (a) when
/// j = 0, c = 1 and it is a switch whose crossing surface, computed in P, is e in E, or
/// (b) when e^(j) held just before in every mode of P (the same equation there,
/// differentiated more than j times, or j = 0): the state replicates restart from the
/// values before the switch, so what held still holds.
pub(crate) fn unguaranteed(plan: &Plan, switches: &[Switch]) -> Vec<Unguaranteed> {
    let space = &plan.cdg.space;
    let fz = &plan.factored;
    let switch_var = |s: &Switch| space.mode_vars[s.mode.index()];
    let mut others: Vec<_> =
        space.mode_vars.iter().copied().filter(|v| !switches.iter().any(|s| switch_var(s) == *v)).collect();
    others.sort_unstable_by_key(|v| v.to_index());
    // The sets are held as local sets (`Factored`), each whole set built only for an entry
    // reported: per region, the whole sets (O(N) nodes on the building) were 9% of the
    // compressible building N = 1000.
    let literal = |v, value: bool| fz.local_modulo(&space.set.mk_literal(v, value));
    let mut out = Vec::new();
    for e in plan.mdae.eq_ids() {
        for (c, modes) in plan.cdg.offsets.get(e.index()).iter() {
            if *c == 0 {
                continue;
            }
            let region = modes;
            if fz.is_false(region) || fz.covers(region) {
                continue;
            }
            // The entries into `region`: (changed variables, the values they have before
            // and after, the switch that changes them).
            let mut entries: Vec<(Vec<_>, Local, Local, Option<&Switch>)> = Vec::new();
            // A switch whose variable the region does not read cannot enter it alone (the
            // modes it comes from would be in the region already): skipped, not tried.
            let support = fz.support_of(region);
            for s in switches.iter().filter(|s| support.binary_search(&switch_var(s).to_index()).is_ok()) {
                let v = switch_var(s);
                entries.push((vec![v], literal(v, false), literal(v, true), Some(s)));
                entries.push((vec![v], literal(v, true), literal(v, false), Some(s)));
            }
            if !others.is_empty() {
                entries.push((others.clone(), fz.all(), fz.all(), None));
            }
            for j in 0..*c {
                let failed = entries.iter().find_map(|(vars, before, after, switch)| {
                    let target = fz.and(region, after);
                    let left = fz.and(&fz.and_not(&plan.care_local, region), before);
                    let from = fz.and(&left, &fz.exists_in(&target, vars));
                    if fz.is_false(&from) {
                        return None;
                    }
                    // Canonical (`Plan::canonical`): texts and expressions are made from it.
                    let entered = plan.canonical(&fz.and(&target, &fz.exists_in(&from, vars)));
                    let by_switch = j == 0 && switch.is_some_and(|s| guaranteed(plan, e, &entered, s));
                    (!by_switch && !held_before(plan, e, j, &from, &entered)).then_some(entered)
                });
                let Some(entered) = failed else { continue };
                let eq = plan.mdae.eq(e);
                let (l, r) = sides_under_in(plan, &eq.body, &entered);
                let name = primed(plan.mdae.label(e), j);
                let what = if j == 0 {
                    format!("`{} = {}`", expr_to_string(&l), expr_to_string(&r))
                } else {
                    format!("the {} derivative of `{} = {}`", ordinal(j), expr_to_string(&l), expr_to_string(&r))
                };
                let message = format!(
                    "restart not guaranteed: entering `{}`, consistency equation {name} ({what}) is not made true by the mode switch; an impulse may be needed (paper 000 §5), and without a restart the states keep their values from before the switch",
                    plan.text(&entered),
                );
                out.push(Unguaranteed { eq: e, j, entered: fz.exact(&entered), entered_local: entered, message });
            }
        }
    }
    out
}

/// Did e^(j), as it reads in `entered`, hold in every mode of `from` just before?
fn held_before(plan: &Plan, e: EqId, j: u32, from: &Local, entered: &Local) -> bool {
    let fz = &plan.factored;
    let body = &plan.mdae.eq(e).body;
    let text = |(l, r): (Expr, Expr)| (expr_to_string(&l), expr_to_string(&r));
    let here = text(sides_under_in(plan, body, entered));
    plan.cdg.offsets.get(e.index()).iter().all(|(c2, m2)| {
        let before = fz.and(m2, from);
        fz.is_false(&before)
            || (text(sides_under_in(plan, body, &plan.canonical(&before))) == here && (*c2 > j || j == 0))
    })
}

fn ordinal(j: u32) -> String {
    match j {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        n => format!("{n}th"),
    }
}

/// Is `e` itself made true by entering `region` through switch `s` (its residual is the
/// guard's crossing surface, up to a factor)?
fn guaranteed(plan: &Plan, e: EqId, region: &Local, s: &Switch) -> bool {
    let (fz, v) = (&plan.factored, plan.cdg.space.mode_vars[s.mode.index()]);
    let var = plan.cdg.space.set.mk_var(v);
    let value = if !fz.meets(region, &fz.local_modulo(&var.not())) {
        true
    } else if !fz.meets(region, &fz.local_modulo(&var)) {
        false
    } else {
        return false;
    };
    // Entering m = value happens on the guard computed in the other mode.
    let before = plan.factored.local(&if value { var.not() } else { var });
    let Some(surface) = surface(&resolve(plan, &s.guard, &[(s.mode, !value)], &before)) else { return false };
    let (l, r) = sides_under_in(plan, &plan.mdae.eq(e).body, region);
    let residual = exprs::binary(BinOp::Sub, l, r);
    let invariant = |n: &str| plan.mdae.time_invariant.contains(n);
    match (affine(&surface, &invariant), affine(&residual, &invariant)) {
        (Some(a), Some(b)) => proportional(&a, &b),
        _ => {
            let text = |x: Expr| expr_to_string(&symbolic::simplify(&x));
            let s = text(surface.clone());
            s == text(residual.clone()) || s == text(exprs::binary(BinOp::Sub, exprs::number("0"), residual))
        }
    }
}

/// `a - b` for a guard that is one relation `a op b`.
fn surface(g: &Expr) -> Option<Expr> {
    match &g.kind {
        ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, xs) => {
            Some(exprs::binary(BinOp::Sub, xs[0].clone(), xs[1].clone()))
        }
        ExprKind::Unary(UnOp::Not, x) => surface(x),
        _ => None,
    }
}

type Affine = (BTreeMap<String, f64>, f64);

/// `e` as Σ coefficient·term + constant over names and `der(…)`, if it is affine with
/// coefficients that are numbers or expressions of time-invariant names (parameters,
/// constants: the brake's `F1*(Pr_1 - Pt_1)`). Such a name stands for a generic value
/// fixed by its spelling (a hash into [1, 2)): two coefficients that differ as expressions
/// differ there except on a set of measure zero (the Schwartz–Zippel argument), so
/// proportionality is decided for the parameters' generic values, whatever they are set to.
fn affine(e: &Expr, invariant: &dyn Fn(&str) -> bool) -> Option<Affine> {
    let affine = |x: &Expr| affine(x, invariant);
    let scale = |(m, c): Affine, k: f64| -> Affine { (m.into_iter().map(|(n, v)| (n, v * k)).collect(), c * k) };
    match &e.kind {
        ExprKind::Number(t) => Some((BTreeMap::new(), t.parse().ok()?)),
        ExprKind::Name(_) | ExprKind::Ref(_) if exprs::var_name(e).is_some_and(|n| invariant(&n)) => {
            Some((BTreeMap::new(), generic_value(&expr_to_string(e))))
        }
        ExprKind::Name(_) | ExprKind::Ref(_) | ExprKind::Call(_) if exprs::occurrence(e).is_some() => {
            Some((BTreeMap::from([(expr_to_string(e), 1.0)]), 0.0))
        }
        ExprKind::Unary(UnOp::Neg, x) => affine(x).map(|a| scale(a, -1.0)),
        ExprKind::Unary(UnOp::Plus, x) => affine(x),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), xs) => {
            let (mut m, c) = affine(&xs[0])?;
            let k = if *op == BinOp::Add { 1.0 } else { -1.0 };
            let (m2, c2) = scale(affine(&xs[1])?, k);
            for (n, v) in m2 {
                *m.entry(n).or_insert(0.0) += v;
            }
            Some((m, c + c2))
        }
        ExprKind::Binary(BinOp::Mul, xs) => {
            let (a, b) = (affine(&xs[0])?, affine(&xs[1])?);
            match (a.0.is_empty(), b.0.is_empty()) {
                (true, _) => Some(scale(b, a.1)),
                (_, true) => Some(scale(a, b.1)),
                _ => None,
            }
        }
        ExprKind::Binary(BinOp::Div, xs) => {
            let b = affine(&xs[1])?;
            (b.0.is_empty() && b.1 != 0.0).then(|| affine(&xs[0]).map(|a| scale(a, 1.0 / b.1)))?
        }
        _ => None,
    }
}

/// A generic value in [1, 2) for a time-invariant name, fixed by its spelling (FNV-1a).
fn generic_value(name: &str) -> f64 {
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    1.0 + (h >> 11) as f64 / (1u64 << 53) as f64
}

/// a = k·b for some k ≠ 0 (terms with zero coefficients ignored), a not constant.
fn proportional(a: &Affine, b: &Affine) -> bool {
    let nz = |m: &BTreeMap<String, f64>| {
        m.iter().filter(|(_, v)| **v != 0.0).map(|(n, v)| (n.clone(), *v)).collect::<Vec<_>>()
    };
    let (ma, mb) = (nz(&a.0), nz(&b.0));
    if ma.is_empty() || ma.len() != mb.len() || ma.iter().zip(&mb).any(|(x, y)| x.0 != y.0) {
        return false;
    }
    let k = ma[0].1 / mb[0].1;
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + x.abs().max(y.abs()));
    ma.iter().zip(&mb).all(|(x, y)| close(x.1, k * y.1)) && close(a.1, k * b.1)
}
