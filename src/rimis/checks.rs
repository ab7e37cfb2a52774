//! Never silently wrong (issue 14, point 5): where a mode change needs a restart that the
//! output does not compute (a consistency equation that the switch does not make true and
//! that no restart system restores, `restart.rs`, `restart_system.rs`), the output checks
//! that consistency equation in the modes it belongs to, so the simulation stops with a
//! message naming the equation and the mode change instead of running on with nonphysical
//! values (the ball flying through the straight rope).
//!
//! In the region E where e has offset c > j, RIMIS integrates e^(c): e^(j) holds in E
//! exactly when it held at the entry, and inside E only drift (the integration error of
//! the states) moves it. The check is the invariant
//! `assert(not E or abs(r) <= tol * S, "…")` on the residual r of e^(j) as it reads in E
//! (the replicates of E, like a block's reads); `tol` is a parameter of the output
//! (`consistency_tolerance`, 1e-4), far above the integration error and far below a
//! missing impulse.
//!
//! The scale S (issue 29, class 2) bounds what the integration error of the states can
//! make of r, so that a correct run is never stopped: r is expanded into monomials
//! c·f1·…·fn (products of sums multiplied out, integer powers up to 4 written as products,
//! divisions by known values kept in c; at most [`MAX_MONOMIALS`], beyond which a product
//! stays one factor), c the known factors (numbers, parameters, functions of time), the
//! f's the factors that read unknowns, and S = Σ |c|·Π (|fi| + νi), νi the declared
//! `nominal` of the variable fi names (1, Modelica's default, when none is declared or
//! fi is another expression of unknowns). An error δ in the states moves each monomial by
//! about |c|·Σ_i δ_i·Π_{k≠i}|fk| ≤ δ·S, whatever cancels between the terms of r:
//! grouped factors that are each of the order of the integration error
//! (`1.2*(x2 - cos(time)) - 0.5*(x1 - (1 + sin(time)))*x1`, which a scale from r's
//! top-level terms made ~1e-7) are multiplied out, and variables crossing zero keep the
//! absolute floor ν (`x - y` with both near 0). A missing impulse moves r by the size of
//! the values themselves (RestartNotLinear: r ≈ 8 against tol·S ≈ 3e-3), so it still stops.
//!
//! Why a continuous assert and not `when E then assert(…)` at the entry only (which drift
//! could not stop): measured with rumoca 0.10.2 and omc 1.28-dev, omc evaluates an
//! assert inside `when E` in the event iteration before the `reinit`s of that event take
//! effect, on the stale replicates (ConsistencyNearZero: a violation logged at t = 1), and
//! only logs it: RestartNotLinear ran on through the impact in omc, where it must stop. The
//! same assert written on the left limits (`pre`) would miss the values an impact law of
//! the user sets (`impact_laws.rs`, CupAndBallElastic). The continuous assert stops both
//! simulators at the impact (omc ignores a violation found during a step that ends at an
//! event) and reads the values after the switch; the drift it may see later inside E is
//! the states' global error, far below tol·S.

use super::exprs::{self, binary, call, name, number, rewrite};
use super::plan::{Plan, primed};
use super::restart::Unguaranteed;
use super::sections::{partial_in, sides_under_in};
use super::symbolic::{self, DiffContext};
use super::{Item, RimisError};
use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::syntax::printer::expr_to_string;

/// Default relative tolerance of the consistency checks.
pub(crate) const TOLERANCE: &str = "1e-4";

/// The asserts for the consistency equations in `failures`, one per equation and
/// region; `tol` names the tolerance parameter. A failure marked `true` is restored by a
/// nonlinear restart system (Newton's method from the left limits): checked all the same,
/// since the iteration may not converge, or converge to another root.
pub(crate) fn consistency_checks(
    plan: &mut Plan,
    failures: &[(&Unguaranteed, bool)],
    tol: &str,
    nominal: &dyn Fn(&str) -> Option<Expr>,
    ctx: &DiffContext,
) -> Result<Vec<Item>, RimisError> {
    let mut items = Vec::new();
    let mut done: Vec<(crate::mdae::EqId, u32, String)> = Vec::new();
    for &(f, iterated) in failures {
        // The region entered, canonical (`Plan::canonical`): its whole set is not built.
        let entered = &f.entered_local;
        let region = plan.text(entered);
        if done.iter().any(|(e, j, r)| *e == f.eq && *j == f.j && *r == region) {
            continue;
        }
        done.push((f.eq, f.j, region.clone()));
        let (eq, id) = (plan.mdae.eq(f.eq), plan.mdae.label(f.eq));
        let label = primed(id, f.j);
        let (l, r) = sides_under_in(plan, &eq.body, entered);
        let diff = |x: &Expr| {
            symbolic::differentiate_n(x, f.j, ctx)
                .map_err(|err| RimisError::new(eq.span, format!("equation {id}: {err}")))
        };
        let residual = symbolic::simplify(&binary(BinOp::Sub, diff(&l)?, diff(&r)?));
        let text = format!("{} = 0", expr_to_string(&residual));
        let cnum = plan.cond_number_canonical(entered);
        let read = partial_in(plan, &residual, entered);
        let unknown = |x: &Expr| exprs::occurrence(x).is_some_and(|(n, _)| plan.by_name.contains_key(&*n));
        let floor = |x: &Expr| match exprs::occurrence(x) {
            Some((n, _)) if plan.by_name.contains_key(&*n) => nominal(&n).map(|v| call("abs", vec![v])),
            _ => None,
        };
        let holds = binary(
            BinOp::Le,
            call("abs", vec![read.clone()]),
            binary(BinOp::Mul, name(tol), scale(&read, &unknown, &floor)),
        );
        let holds = rewrite(&holds, &mut |x| {
            if let ExprKind::Call(c) = &x.kind
                && matches!(c.function.text.as_str(), "pre" | "initial" | "terminal")
            {
                return Some(x.clone());
            }
            let (n, i) = exprs::occurrence(x)?;
            let u = *plan.by_name.get(&*n)?;
            Some(plan.read(u, i, cnum))
        });
        // Under noEvent: the check is an invariant tested at every step, not a crossing to
        // locate; as a relation it would make rumoca stop at an event where it crosses the
        // tolerance in the modes it does not belong to, and re-solve the blocks there from
        // other guesses (campaign seed 5343: a quadratic block jumped to its other root).
        let holds = call("noEvent", vec![holds]);
        let test = binary(BinOp::Or, exprs::not(plan.expr(entered)), holds);
        let (message, why) = if iterated {
            (
                format!(
                    "mdae-rimis: entering `{region}`, consistency equation {label} ({text}) does not hold: the nonlinear restart system (paper 000 §5, Newton's method from the left limits) did not restore it; stopping instead of going on with nonphysical values"
                ),
                "its restart system is nonlinear, solved by Newton's method",
            )
        } else {
            (
                format!(
                    "mdae-rimis: entering `{region}`, consistency equation {label} ({text}) does not hold: the mode change needs an impulse (paper 000 §5) that this output does not compute; stopping instead of going on with nonphysical values"
                ),
                "no restart computed for entering it",
            )
        };
        let mut item = Item::new(exprs::assert(test, &message));
        item.comment = Some(format!("{label} must hold in `{region}` ({why})"));
        items.push(item);
    }
    Ok(items)
}

/// At most this many monomials in the expansion of a residual (a product whose
/// expansion would exceed it stays one factor).
const MAX_MONOMIALS: usize = 64;

/// A term of an expanded residual: known factors (numbers, parameters, functions of time;
/// a divisor as `1 / d`) and factors that read unknowns.
#[derive(Clone, Default)]
struct Monomial {
    known: Vec<Expr>,
    unknown: Vec<Expr>,
}

/// S = Σ |c|·Π (|f| + ν_f) over the monomials c·Π f of `r` (module header); `floor(f)`
/// gives ν_f for an occurrence of an unknown with a declared nominal (1 otherwise).
pub(crate) fn scale(r: &Expr, unknown: &dyn Fn(&Expr) -> bool, floor: &dyn Fn(&Expr) -> Option<Expr>) -> Expr {
    let abs = |x: Expr| call("abs", vec![x]);
    let product = |xs: Vec<Expr>| xs.into_iter().reduce(|a, b| binary(BinOp::Mul, a, b));
    let terms = monomials(r, unknown).into_iter().map(|m| {
        let c = product(m.known).map(|c| match symbolic::simplify(&c) {
            // A literal is its own magnitude (`2`, not `abs(2)`).
            c @ Expr { kind: ExprKind::Number(_), .. } => c,
            Expr { kind: ExprKind::Unary(UnOp::Neg, x), .. } if matches!(x.kind, ExprKind::Number(_)) => *x,
            c => abs(c),
        });
        let fs = m.unknown.into_iter().map(|f| {
            let nu = floor(&f).unwrap_or_else(|| number("1"));
            binary(BinOp::Add, abs(f), nu)
        });
        product(c.into_iter().chain(fs).collect()).unwrap_or_else(|| number("1"))
    });
    let sum = terms.reduce(|a, b| binary(BinOp::Add, a, b)).unwrap_or_else(|| number("1"));
    symbolic::simplify(&sum)
}

/// The monomials of `e` (module header): sums split, products multiplied out, integer
/// powers 2…4 written as products, divisions by known values kept as known factors;
/// anything else that reads an unknown is one factor.
fn monomials(e: &Expr, unknown: &dyn Fn(&Expr) -> bool) -> Vec<Monomial> {
    let mut reads = false;
    exprs::for_each(e, &mut |x| reads |= unknown(x));
    if !reads {
        return vec![Monomial { known: vec![e.clone()], unknown: Vec::new() }];
    }
    let atom = || vec![Monomial { known: Vec::new(), unknown: vec![e.clone()] }];
    let times = |a: Vec<Monomial>, b: &[Monomial]| -> Option<Vec<Monomial>> {
        (a.len() * b.len() <= MAX_MONOMIALS).then(|| {
            a.iter()
                .flat_map(|x| {
                    b.iter().map(move |y| Monomial {
                        known: x.known.iter().chain(&y.known).cloned().collect(),
                        unknown: x.unknown.iter().chain(&y.unknown).cloned().collect(),
                    })
                })
                .collect()
        })
    };
    if unknown(e) {
        return atom();
    }
    match &e.kind {
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, x) => monomials(x, unknown),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, xs) => {
            let mut m = monomials(&xs[0], unknown);
            m.extend(monomials(&xs[1], unknown));
            if m.len() > MAX_MONOMIALS { atom() } else { m }
        }
        ExprKind::Binary(BinOp::Mul, xs) => {
            times(monomials(&xs[0], unknown), &monomials(&xs[1], unknown)).unwrap_or_else(atom)
        }
        ExprKind::Binary(BinOp::Div, xs) if monomials(&xs[1], unknown).iter().all(|m| m.unknown.is_empty()) => {
            let inv = Monomial { known: vec![binary(BinOp::Div, number("1"), xs[1].clone())], unknown: Vec::new() };
            times(monomials(&xs[0], unknown), &[inv]).unwrap_or_else(atom)
        }
        ExprKind::Binary(BinOp::Pow, xs) if matches!(&xs[1].kind, ExprKind::Number(n) if matches!(n.as_str(), "2" | "3" | "4")) =>
        {
            let ExprKind::Number(n) = &xs[1].kind else { unreachable!("matched") };
            let base = monomials(&xs[0], unknown);
            let k: usize = n.as_str().parse().unwrap_or(2);
            (1..k).try_fold(base.clone(), |acc, _| times(acc, &base)).unwrap_or_else(atom)
        }
        _ => atom(),
    }
}

#[cfg(test)]
mod tests {
    use super::scale;
    use crate::rimis::exprs::{call, occurrence};
    use crate::rimis::symbolic::testutil::{parse_expr, show};
    use crate::syntax::ast::Expr;

    fn unknown(e: &Expr) -> bool {
        occurrence(e).is_some_and(|(n, _)| matches!(&*n, "x" | "y" | "x1" | "x2"))
    }

    fn scaled(r: &str, floor: &dyn Fn(&Expr) -> Option<Expr>) -> String {
        show(&scale(&parse_expr(r), &unknown, floor))
    }

    /// Grouped factors are multiplied out, so the scale is the size of the values, not of
    /// the (vanishing) groups: the reproducer's residual (issue 29, class 2).
    #[test]
    fn grouped_factors_are_multiplied_out() {
        assert_eq!(
            scaled("0.5 * (x1 - (1 + sin(time))) * x1 - 1.2 * (x2 - cos(time))", &|_| None),
            "0.5 * (abs(x1) + 1) * (abs(x1) + 1) + abs(0.5 * (1 + sin(time))) * (abs(x1) + 1) + 1.2 * (abs(x2) + 1) + abs(1.2 * cos(time))"
        );
    }

    /// A declared nominal is the floor of its variable; powers, quotients by known values
    /// and calls of unknowns (one factor) are expanded as the module header says.
    #[test]
    fn nominal_floor_powers_and_calls() {
        let floor = |e: &Expr| (show(e) == "x").then(|| call("abs", vec![parse_expr("xn")]));
        assert_eq!(scaled("x - y", &floor), "abs(x) + abs(xn) + (abs(y) + 1)");
        assert_eq!(scaled("x ^ 2 / p", &|_| None), "abs(1 / p) * (abs(x) + 1) * (abs(x) + 1)");
        assert_eq!(scaled("sinh(y) * x", &|_| None), "(abs(sinh(y)) + 1) * (abs(x) + 1)");
    }
}
