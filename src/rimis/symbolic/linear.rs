//! Affinity test (paper 000 §4.7): is an expression affine in given unknowns?
//!
//! Owns: [`is_affine_in`]. An expression is affine in the unknowns (the
//! subexpressions flagged by the caller: names or `der(…)` nodes) when it is free of
//! them, is one of them, or is a sum, difference, negation of affine expressions, a
//! product with at most one factor containing unknowns (that factor affine), an
//! affine expression divided by an unknown-free one, or `if c then a else b` with
//! unknown-free conditions and affine branches. Anything else containing an unknown
//! (a call, a power, a relation) is not. Nonlinear blocks get guarded.

use super::build::{any_sub, children};
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
