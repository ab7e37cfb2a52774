//! Affinity test (paper 000 §4.7): is an expression affine in given unknowns?
//!
//! Owns: [`is_affine_in`]. An expression is affine in the unknowns (the
//! subexpressions flagged by the caller: names or `der(…)` nodes) when it is free of
//! them, is one of them, or is a sum, difference, negation of affine expressions, a
//! product with at most one factor containing unknowns (that factor affine), an
//! affine expression divided by an unknown-free one, or `if c then a else b` with
//! unknown-free conditions and affine branches. Anything else containing an unknown
//! (a call, a power, a relation) is not. Nonlinear blocks get guarded.

use super::build::{any_sub, children, if_raw, num_value, one, zero};
use super::simplify::{add, div, mul, neg, sub};
use crate::syntax::ast::*;

/// True iff `e` is affine in the subexpressions flagged by `is_unknown`, with
/// coefficients free of unknowns.
pub fn is_affine_in(e: &Expr, is_unknown: &dyn Fn(&Expr) -> bool) -> bool {
    let free = |x: &Expr| !any_sub(x, is_unknown);
    if is_unknown(e) || free(e) {
        return true;
    }
    let affine = |x: &Expr| is_affine_in(x, is_unknown);
    match &e.kind {
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, x) => affine(x),
        ExprKind::Binary(op, xs) => {
            let [a, b] = &**xs;
            match op {
                BinOp::Add | BinOp::Sub | BinOp::ElemAdd | BinOp::ElemSub => affine(a) && affine(b),
                BinOp::Mul | BinOp::ElemMul => (free(a) && affine(b)) || (free(b) && affine(a)),
                BinOp::Div | BinOp::ElemDiv => free(b) && affine(a),
                _ => false,
            }
        }
        ExprKind::If(x) => x.branches.iter().all(|(c, v)| free(c) && affine(v)) && affine(&x.else_value),
        _ => false,
    }
}

/// The value of the target (the subexpression `is_target` flags, e.g. one `der(x)`) that
/// makes `residual` zero, where the residual is affine in it: an if-expression whose
/// conditions are free of it is solved branch by branch (`0 = if b then der(x) - f else
/// 3 * der(x) - g` → `if b then f else g / 3`), any other residual as `a * t + r` with a
/// coefficient a free of every unknown (`is_unknown`) and of if-expressions (never a
/// coefficient that vanishes in some branch), not the literal 0: the value `-r / a`,
/// simplified. `None` where the residual is not of that form.
pub fn solve_affine(
    residual: &Expr,
    is_target: &dyn Fn(&Expr) -> bool,
    is_unknown: &dyn Fn(&Expr) -> bool,
) -> Option<Expr> {
    if let ExprKind::If(x) = &residual.kind {
        let free = |c: &Expr| !any_sub(c, is_target);
        let mut branches = Vec::with_capacity(x.branches.len());
        for (c, v) in &x.branches {
            if !free(c) {
                return None;
            }
            branches.push((c.clone(), solve_affine(v, is_target, is_unknown)?));
        }
        let else_value = solve_affine(&x.else_value, is_target, is_unknown)?;
        return Some(super::simplify(&if_raw(branches, else_value, residual.span)));
    }
    let (a, r) = coefficient(residual, is_target)?;
    let a = super::simplify(&a);
    let plain = !any_sub(&a, is_unknown) && !any_sub(&a, &|x: &Expr| matches!(x.kind, ExprKind::If(_)));
    if !plain || num_value(&a).is_some_and(|n| n.is_zero()) {
        return None;
    }
    Some(super::simplify(&div(neg(r), a)))
}

/// `e` as `a * t + r` (a, r free of the target t); `None` if it is not affine in t.
fn coefficient(e: &Expr, is_target: &dyn Fn(&Expr) -> bool) -> Option<(Expr, Expr)> {
    if is_target(e) {
        return Some((one(), zero()));
    }
    if !any_sub(e, is_target) {
        return Some((zero(), e.clone()));
    }
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, x) => coefficient(x, is_target).map(|(a, r)| (neg(a), neg(r))),
        ExprKind::Unary(UnOp::Plus, x) => coefficient(x, is_target),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), xs) => {
            let (a1, r1) = coefficient(&xs[0], is_target)?;
            let (a2, r2) = coefficient(&xs[1], is_target)?;
            Some(if *op == BinOp::Add { (add(a1, a2), add(r1, r2)) } else { (sub(a1, a2), sub(r1, r2)) })
        }
        ExprKind::Binary(BinOp::Mul, xs) if !any_sub(&xs[0], is_target) => {
            let (a, r) = coefficient(&xs[1], is_target)?;
            Some((mul(xs[0].clone(), a), mul(xs[0].clone(), r)))
        }
        ExprKind::Binary(BinOp::Mul, xs) if !any_sub(&xs[1], is_target) => {
            let (a, r) = coefficient(&xs[0], is_target)?;
            Some((mul(a, xs[1].clone()), mul(r, xs[1].clone())))
        }
        ExprKind::Binary(BinOp::Div, xs) if !any_sub(&xs[1], is_target) => {
            let (a, r) = coefficient(&xs[0], is_target)?;
            Some((div(a, xs[1].clone()), div(r, xs[1].clone())))
        }
        _ => None,
    }
}

/// The unknowns of `e` that `is_unknown` flags, outermost first, in written order.
pub fn unknowns_in<'e>(e: &'e Expr, is_unknown: &dyn Fn(&Expr) -> bool) -> Vec<&'e Expr> {
    if is_unknown(e) {
        return vec![e];
    }
    children(e).into_iter().flat_map(|c| unknowns_in(c, is_unknown)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rimis::symbolic::testutil::{parse_expr, show};

    fn unknown(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(n) => matches!(n.as_str(), "x" | "y"),
            ExprKind::Call(c) => c.function.text == "der" && show(e) == "der(x)",
            _ => false,
        }
    }

    fn affine(src: &str) -> bool {
        is_affine_in(&parse_expr(src), &unknown)
    }

    fn solved(src: &str) -> Option<String> {
        let is_der = |e: &Expr| show(e) == "der(x)";
        solve_affine(&parse_expr(src), &is_der, &unknown).map(|e| show(&e))
    }

    /// A derivative under an if is solved branch by branch (issue 29, class 6: rumoca solves
    /// `der(x) = if b then … else …`, not `0 = if b then der(x) - … else …`).
    #[test]
    fn a_derivative_under_an_if_is_solved_branch_by_branch() {
        assert_eq!(
            solved("if b then der(x) - cos(time) + 2 * x else der(x) + 3 * x").as_deref(),
            Some("if b then cos(time) - 2 * x else -3 * x")
        );
        assert_eq!(solved("if b then der(x) else 3.0 * der(x)").as_deref(), Some("0"));
        assert_eq!(solved("x + der(x) + der(x) - time").as_deref(), Some("(time - x) / 2"));
        assert_eq!(solved("p * der(x) - 1").as_deref(), Some("1 / p"));
    }

    /// Where the target's coefficient is an unknown, may vanish in a branch, or the target
    /// is not affine, nothing is solved.
    #[test]
    fn nothing_is_solved_where_the_coefficient_may_vanish() {
        for src in [
            "x * der(x) - 1",
            "der(x) * (if b then 1 else 0) - 1",
            "sin(der(x))",
            "if der(x) > 0 then 1 else 2",
            "if b then der(x) else x - 1",
            "0 * der(x) + x",
        ] {
            assert_eq!(solved(src), None, "{src}");
        }
    }

    #[test]
    fn affine_forms() {
        for src in [
            "x",
            "p * sin(q)",
            "2 * x + p * y - 3",
            "-(x - y) / (p + 1)",
            "der(x) + x * (p - q)",
            "if b then x else p * y",
            "(x + y) * k * 2",
        ] {
            assert!(affine(src), "{src} is affine");
        }
    }

    #[test]
    fn nonlinear_forms() {
        for src in ["x * y", "x ^ 2", "sin(x)", "p / x", "if x > 0 then x else y", "der(y)", "x * der(x)", "f(x) + 1"] {
            assert!(!affine(src), "{src} is not affine");
        }
    }

    #[test]
    fn lists_unknowns() {
        let e = parse_expr("x + der(x) * y + p");
        let found: Vec<String> = unknowns_in(&e, &unknown).into_iter().map(show).collect();
        assert_eq!(found, ["x", "der(x)", "y"]);
    }
}
