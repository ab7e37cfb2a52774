//! Never silently wrong (issue 14, point 5): where a mode change needs a restart that the
//! output does not compute (a consistency equation that the switch does not make true and
//! that no restart system restores, `restart.rs`, `restart_system.rs`), the output checks
//! that consistency equation in the modes it belongs to, so the simulation stops with a
//! message naming the equation and the mode change instead of running on with nonphysical
//! values (the ball flying through the straight rope).
//!
//! In the region E where e has offset c > j, RIMIS integrates e^(c): e^(j) holds in E
//! exactly when it held at the entry. The check is the invariant
//! `assert(not E or abs(r) <= tol * (Σ|terms of r| + 1e-10), "…")` on the residual r of
//! e^(j) as it reads in E (the replicates of E, like a block's reads), relative to the
//! size of its terms; `tol` is a parameter of the output (`consistency_tolerance`,
//! 1e-4), far above the integration error and far below a missing impulse.

use super::exprs::{self, binary, call, name, number, rewrite};
use super::plan::{Plan, primed};
use super::restart::Unguaranteed;
use super::sections::{partial, sides_under};
use super::symbolic::{self, DiffContext};
use super::{Item, RimisError};
use crate::syntax::Span;
use crate::syntax::ast::{BinOp, Equation, EquationKind, Expr, ExprKind, UnOp, text as intern};
use crate::syntax::printer::expr_to_string;

/// Default relative tolerance of the consistency checks.
pub(crate) const TOLERANCE: &str = "1e-4";

/// The asserts for the consistency equations in `failures`, one per equation and
/// region; `tol` names the tolerance parameter.
pub(crate) fn consistency_checks(
    plan: &mut Plan,
    failures: &[&Unguaranteed],
    tol: &str,
    ctx: &DiffContext,
) -> Result<Vec<Item>, RimisError> {
    let mut items = Vec::new();
    let mut done: Vec<(crate::mdae::EqId, u32, String)> = Vec::new();
    for f in failures {
        let region = plan.cond_text(&f.entered);
        if done.iter().any(|(e, j, r)| *e == f.eq && *j == f.j && *r == region) {
            continue;
        }
        done.push((f.eq, f.j, region.clone()));
        let (eq, id) = (plan.mdae.eq(f.eq), plan.mdae.label(f.eq));
        let label = primed(id, f.j);
        let (l, r) = sides_under(plan, &eq.body, &f.entered);
        let diff = |x: &Expr| {
            symbolic::differentiate_n(x, f.j, ctx)
                .map_err(|err| RimisError::new(eq.span, format!("equation {id}: {err}")))
        };
        let residual = symbolic::simplify(&binary(BinOp::Sub, diff(&l)?, diff(&r)?));
        let text = format!("{} = 0", expr_to_string(&residual));
        let cnum = plan.cond_number(&f.entered);
        let cond = f.entered.clone();
        let read = partial(plan, &residual, &cond);
        let read = rewrite(&read, &mut |x| {
            if let ExprKind::Call(c) = &x.kind
                && matches!(c.function.text.as_str(), "pre" | "initial" | "terminal")
            {
                return Some(x.clone());
            }
            let (n, i) = exprs::occurrence(x)?;
            let u = *plan.by_name.get(&*n)?;
            Some(plan.read(u, i, cnum))
        });
        let scale =
            terms(&read).into_iter().fold(number("1e-10"), |acc, t| binary(BinOp::Add, acc, call("abs", vec![t])));
        let holds = binary(BinOp::Le, call("abs", vec![read]), binary(BinOp::Mul, name(tol), scale));
        let test = binary(BinOp::Or, exprs::not(plan.cond_expr(&cond)), holds);
        let message = format!(
            "mdae-rimis: entering `{region}`, consistency equation {label} ({text}) does not hold: the mode change needs an impulse (paper 000 §5) that this output does not compute; stopping instead of going on with nonphysical values"
        );
        let assert = call("assert", vec![test, Expr { kind: ExprKind::String(intern(&message)), span: Span::DUMMY }]);
        let ExprKind::Call(c) = assert.kind else { unreachable!("built as a call") };
        let mut item = Item::new(Equation::new(None, EquationKind::Call(c), None, Span::DUMMY));
        item.comment = Some(format!("{label} must hold in `{region}` (no restart computed for entering it)"));
        items.push(item);
    }
    Ok(items)
}

/// The additive terms of `e` (`a - b * c` → `a`, `b * c`), for the scale of a residual.
fn terms(e: &Expr) -> Vec<Expr> {
    match &e.kind {
        ExprKind::Binary(BinOp::Add | BinOp::Sub, xs) => {
            let mut t = terms(&xs[0]);
            t.extend(terms(&xs[1]));
            t
        }
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, x) => terms(x),
        _ => vec![e.clone()],
    }
}
