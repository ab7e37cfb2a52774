//! Restarts RIMIS cannot guarantee (issue 4, point 3). In the modes where an equation
//! has offset c > 0, its lower derivatives π(δ_j e), j < c, are **consistency
//! equations**: RIMIS integrates e^(c) and relies on them holding when the mode is
//! entered. They hold when they held before the switch (see [`warnings`]), or, for e
//! itself, when the mode is entered by a guard of a mode equation (rewritten on left
//! limits) whose crossing surface is e: the WaterTank enters `bh` exactly when
//! `x - xmax` crosses 0.
//! Every other entry (the engaging clutch: `w1 - w2 = 0` needs an impulse, paper 000
//! §5) is reported: the output simulates but keeps the pre-switch values.

use super::exprs;
use super::plan::Plan;
use super::guards::resolve;
use super::sections::sides_under;
use super::symbolic;
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

/// One warning per consistency equation e^(j) (j < c in a region of modes) that
/// entering the region does not make true. It is made true (a) when j = 0, c = 1 and a
/// switch enters the region on a guard whose crossing surface is e, or (b) when e^(j)
/// held just before in every mode the region can be entered from (the same equation
/// there, differentiated more than j times or j = 0): the state replicates restart
/// from the values before the switch, so what held still holds.
pub(crate) fn warnings(plan: &Plan, switches: &[Switch]) -> Vec<String> {
    let mut out = Vec::new();
    for e in plan.mdae.eq_ids() {
        for (c, modes) in &plan.cdg.offsets[e.index()] {
            let region = modes.and(&plan.care);
            if *c == 0 || region.is_false() || region == plan.care {
                continue;
            }
            let eq = plan.mdae.eq(e);
            let (l, r) = sides_under(plan, &eq.body, &region);
            let here = (expr_to_string(&l), expr_to_string(&r));
            for j in 0..*c {
                let by_switch = j == 0 && switches.iter().any(|s| guaranteed(plan, e, &region, s));
                let held_before = plan.cdg.offsets[e.index()].iter().all(|(c2, m2)| {
                    let before = m2.and(&plan.care).and(&region.not());
                    if before.is_false() {
                        return true;
                    }
                    let (l2, r2) = sides_under(plan, &eq.body, &before);
                    (expr_to_string(&l2), expr_to_string(&r2)) == here && (*c2 > j || j == 0)
                });
                if by_switch || held_before {
                    continue;
                }
                let name = format!("{}{}", eq.id, "'".repeat(j as usize));
                let what = if j == 0 {
                    format!("`{} = {}`", here.0, here.1)
                } else {
                    format!("the {} derivative of `{} = {}`", ordinal(j), here.0, here.1)
                };
                out.push(format!(
                    "restart not guaranteed: entering `{}`, consistency equation {name} ({what}) is not made true by the mode switch; an impulse may be needed (paper 000 §5): the output simulates but keeps the values from before the switch",
                    plan.cond_text(&region),
                ));
            }
        }
    }
    out
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
fn guaranteed(plan: &Plan, e: EqId, region: &Bdd, s: &Switch) -> bool {
    let var = plan.cdg.space.set.mk_var(plan.cdg.space.mode_vars[s.mode.index()]);
    let value = if region.and(&var.not()).is_false() {
        true
    } else if region.and(&var).is_false() {
        false
    } else {
        return false;
    };
    // Entering m = value happens on the guard computed in the other mode.
    let before = if value { var.not() } else { var }.and(&plan.care);
    let Some(surface) = surface(&resolve(plan, &s.guard, &before)) else { return false };
    let (l, r) = sides_under(plan, &plan.mdae.eq(e).body, region);
    let residual = exprs::binary(BinOp::Sub, l, r);
    match (affine(&surface), affine(&residual)) {
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
/// numeric coefficients.
fn affine(e: &Expr) -> Option<Affine> {
    let scale = |(m, c): Affine, k: f64| -> Affine { (m.into_iter().map(|(n, v)| (n, v * k)).collect(), c * k) };
    match &e.kind {
        ExprKind::Number(t) => Some((BTreeMap::new(), t.parse().ok()?)),
        ExprKind::Name(_) | ExprKind::Call(_) if exprs::occurrence(e).is_some() => {
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

/// a = k·b for some k ≠ 0 (terms with zero coefficients ignored), a not constant.
fn proportional(a: &Affine, b: &Affine) -> bool {
    let nz = |m: &BTreeMap<String, f64>| m.iter().filter(|(_, v)| **v != 0.0).map(|(n, v)| (n.clone(), *v)).collect::<Vec<_>>();
    let (ma, mb) = (nz(&a.0), nz(&b.0));
    if ma.is_empty() || ma.len() != mb.len() || ma.iter().zip(&mb).any(|(x, y)| x.0 != y.0) {
        return false;
    }
    let k = ma[0].1 / mb[0].1;
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + x.abs().max(y.abs()));
    ma.iter().zip(&mb).all(|(x, y)| close(x.1, k * y.1)) && close(a.1, k * b.1)
}
