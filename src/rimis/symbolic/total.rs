//! Is an expression defined for every value of its variables (issue 17)? RIMIS computes
//! the replicate of a block in every mode unless the block is guarded (paper 000 §4.7);
//! the input evaluated the same expression only in its modes, behind its if-condition.
//! `abs(Psi / i)` under `abs(i) > eps`, or `(0)^(-1.5)`, is then evaluated where the
//! input never evaluated it: omc stops ("Invalid root", division by zero) or its
//! initialisation drifts. [`is_total`] says an expression cannot fail that way:
//! arithmetic without division by a non-literal, integer powers, and the builtins that
//! are defined everywhere. Everything else (division, other powers, `sqrt`, `log`,
//! user functions, …) is partial, and its block is guarded.

use crate::syntax::ast::{BinOp, Expr, ExprKind, FunctionArgs};

/// Builtins defined for every argument (and returning a finite value for a finite one,
/// up to overflow of the arithmetic itself).
const TOTAL_CALLS: &[&str] = &[
    "abs",
    "sign",
    "sin",
    "cos",
    "atan",
    "tanh",
    "min",
    "max",
    "noEvent",
    "smooth",
    "homotopy",
    "pre",
    "der",
    "integer",
    "floor",
    "ceil",
    "semiLinear",
    "initial",
    "terminal",
    "edge",
    "change",
];

/// True when `e` is defined wherever its variables are finite. A division by, or a
/// power of, what `constant` accepts (parameters: the input divides by them in every
/// mode) counts as total.
pub fn is_total(e: &Expr, constant: &dyn Fn(&str) -> bool) -> bool {
    let total = |x: &Expr| is_total(x, constant);
    let fixed = |x: &Expr| only_constants(x, constant);
    match &e.kind {
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::Name(_) | ExprKind::Ref(_) => true,
        ExprKind::Binary(BinOp::Div, xs) => total(&xs[0]) && total(&xs[1]) && fixed(&xs[1]),
        ExprKind::Binary(BinOp::Pow, xs) => {
            total(&xs[0]) && (is_natural(&xs[1]) || (fixed(&xs[0]) && fixed(&xs[1]) && total(&xs[1])))
        }
        ExprKind::Binary(_, xs) => total(&xs[0]) && total(&xs[1]),
        ExprKind::Unary(_, x) => total(x),
        ExprKind::If(x) => x.branches.iter().all(|(c, v)| total(c) && total(v)) && total(&x.else_value),
        ExprKind::Call(c) if TOTAL_CALLS.contains(&c.function.text.as_str()) => match &c.args {
            FunctionArgs::List { positional, named } => {
                positional.iter().all(total) && named.iter().all(|n| total(&n.value))
            }
            FunctionArgs::Comprehension(_) => false,
        },
        _ => false,
    }
}

/// Literals and names `constant` accepts, combined by operators.
fn only_constants(e: &Expr, constant: &dyn Fn(&str) -> bool) -> bool {
    match &e.kind {
        ExprKind::Number(_) => true,
        ExprKind::Name(n) => constant(n.as_str()),
        ExprKind::Ref(_) => constant(&crate::syntax::printer::expr_to_string(e)),
        ExprKind::Binary(_, xs) => only_constants(&xs[0], constant) && only_constants(&xs[1], constant),
        ExprKind::Unary(_, x) => only_constants(x, constant),
        _ => false,
    }
}

/// A literal natural number: `2`, `3.0`.
fn is_natural(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(t) => t.parse::<f64>().is_ok_and(|v| v >= 0.0 && v.fract() == 0.0 && v < 1e6),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_total;
    use crate::rimis::symbolic::testutil::parse_expr as expr;

    #[test]
    fn division_other_powers_and_partial_functions_are_not_total() {
        let parameter = |n: &str| n.starts_with('p');
        for total in [
            "a + b * c",
            "x ^ 2",
            "abs(x) - sin(y)",
            "x / 2.0",
            "if c > 0 then x else -x",
            "max(a, b)",
            "x / p1",
            "p1 ^ 0.5",
        ] {
            assert!(is_total(&expr(total), &parameter), "{total}");
        }
        for partial in
            ["psi / i", "x ^ (-1.5)", "x ^ 0.5", "sqrt(x)", "log(x)", "f(x)", "a + 1 / b", "abs(q / i)", "x / (p1 - y)"]
        {
            assert!(!is_total(&expr(partial), &parameter), "{partial}");
        }
    }
}
