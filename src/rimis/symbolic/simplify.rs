//! Algebraic simplification of expressions (the clean-up after π_q and δ_k).
//!
//! Owns: [`simplify`] and the local rewrite rules it applies bottom-up, also used as
//! smart constructors ([`add`], [`sub`], [`mul`], [`div`], [`pow`], [`neg`]) by the
//! differentiation. Rules: constant folding of numeric literals (integer arithmetic
//! when both literals are integers, otherwise reals printed in their shortest exact
//! form), neutral and absorbing elements (`0 + a`, `a - 0`, `0 - a`, `1 * a`,
//! `0 * a`, `a / 1`, `0 / a`, `a ^ 1`, `a ^ 0`), signs (`-(-a)`, `a - (-b)`,
//! `a + (-b)`, `(-a) * b` → `-(a * b)`, `-(a - b)` → `b - a`), `a - a` → `0`, literal
//! factors moved left and merged (`2 * (3 * x)` → `6 * x`), Boolean constants in
//! `not`/`and`/`or`, literal relations, decided or redundant if-branches, and
//! `der(literal)` → `0`. Dropping a subexpression (`0 * a`) is allowed unless it
//! calls an operator with an effect (`assert`, `terminate`, `print`, `reinit`):
//! Modelica functions are pure. Invariant: `simplify(simplify(e)) == simplify(e)`
//! (iterated to a fixpoint); never panics; deterministic.

use super::build::*;
use crate::syntax::Span;
use crate::syntax::ast::*;

/// `e` simplified to a fixpoint of the rules above.
pub fn simplify(e: &Expr) -> Expr {
    let mut cur = simplify_once(e);
    // Each pass is bottom-up with normalising constructors, so one pass almost always
    // reaches the fixpoint; the bound only guards against a missed rule interaction.
    for _ in 0..8 {
        let next = simplify_once(&cur);
        if same(&next, &cur) {
            return next;
        }
        cur = next;
    }
    cur
}

fn simplify_once(e: &Expr) -> Expr {
    rewrite(map_children(e, &mut simplify_once))
}

/// Applies the local rules to a node whose children are already simplified.
pub(crate) fn rewrite(e: Expr) -> Expr {
    let span = e.span;
    match e.kind {
        ExprKind::Unary(UnOp::Plus, x) => *x,
        ExprKind::Unary(UnOp::Neg, x) => neg_at(*x, span),
        ExprKind::Unary(UnOp::Not, x) => match x.kind {
            ExprKind::Bool(b) => Expr::new(ExprKind::Bool(!b), span),
            ExprKind::Unary(UnOp::Not, y) => *y,
            kind => Expr::new(ExprKind::Unary(UnOp::Not, Box::new(Expr::new(kind, x.span))), span),
        },
        ExprKind::Binary(op, xs) => {
            let [a, b] = *xs;
            binary(op, a, b, span)
        }
        ExprKind::If(x) => if_rule(*x, span),
        ExprKind::Call(c)
            if c.function.text == "der"
                && positional(&c).is_some_and(|a| a.len() == 1 && num_value(&a[0]).is_some()) =>
        {
            Expr::new(ExprKind::Number(text("0")), span)
        }
        kind => Expr::new(kind, span),
    }
}

pub(crate) fn add(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Add, a, b, Span::default())
}

pub(crate) fn sub(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Sub, a, b, Span::default())
}

pub(crate) fn mul(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Mul, a, b, Span::default())
}

pub(crate) fn div(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Div, a, b, Span::default())
}

pub(crate) fn pow(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Pow, a, b, Span::default())
}

pub(crate) fn neg(a: Expr) -> Expr {
    neg_at(a, Span::default())
}

fn neg_at(x: Expr, span: Span) -> Expr {
    match x.kind {
        ExprKind::Unary(UnOp::Neg, y) => *y,
        ExprKind::Binary(BinOp::Sub, xs) => {
            let [a, b] = *xs;
            binary(BinOp::Sub, b, a, span)
        }
        _ if is_zero(&x) => x,
        kind => Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(Expr::new(kind, x.span))), span),
    }
}

fn unneg(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, x) => Some(x),
        _ => None,
    }
}

/// True when `e` may be dropped: no call of an operator with an effect.
pub(crate) fn droppable(e: &Expr) -> bool {
    !any_sub(e, &|x| {
        matches!(&x.kind, ExprKind::Call(c)
            if matches!(c.function.text.as_str(), "assert" | "terminate" | "print" | "reinit"))
    })
}

fn binary(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    // Neutral elements first, so a literal operand keeps its spelling (`1e-06 * 1`).
    let (na, nb) = (num_value(&a), num_value(&b));
    let is = |n: Option<Num>, v: f64| n.is_some_and(|n| n.as_f64() == v);
    match op {
        BinOp::Add if is(na, 0.0) => return b,
        BinOp::Add | BinOp::Sub if is(nb, 0.0) => return a,
        BinOp::Mul if is(na, 1.0) => return b,
        BinOp::Mul | BinOp::Div | BinOp::Pow if is(nb, 1.0) => return a,
        _ => {}
    }
    if let (Some(x), Some(y)) = (na, nb)
        && let Some(folded) = fold(op, x, y)
    {
        return Expr { span, ..folded };
    }
    match (op, unneg(&a), unneg(&b)) {
        (BinOp::Add, _, Some(y)) => binary(BinOp::Sub, a.clone(), y.clone(), span),
        (BinOp::Add, Some(x), _) => binary(BinOp::Sub, b.clone(), x.clone(), span),
        (BinOp::Sub, _, _) if is(na, 0.0) => neg_at(b, span),
        (BinOp::Sub, _, Some(y)) => binary(BinOp::Add, a.clone(), y.clone(), span),
        (BinOp::Sub, _, _) if same(&a, &b) && droppable(&a) => Expr { span, ..zero() },
        (BinOp::Mul, _, _) => product(a, b, span),
        (BinOp::Div, _, _) if is(na, 0.0) && droppable(&b) => a,
        (BinOp::Div, Some(x), _) => neg_at(binary(op, x.clone(), b.clone(), span), span),
        (BinOp::Div, _, Some(y)) => neg_at(binary(op, a.clone(), y.clone(), span), span),
        (BinOp::Pow, _, _) if is(nb, 0.0) && droppable(&a) => Expr { span, ..one() },
        (BinOp::Pow, _, _) if is(na, 1.0) && droppable(&b) => a,
        (BinOp::And | BinOp::Or, _, _) => logic(op, a, b, span),
        _ => raw(op, a, b, span),
    }
}

fn raw(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr { span, ..bin_raw(op, a, b) }
}

/// `a * b`: absorbing zero, neutral one, signs out, literal factors left and merged.
fn product(a: Expr, b: Expr, span: Span) -> Expr {
    let (na, nb) = (num_value(&a), num_value(&b));
    if na.is_some_and(Num::is_zero) && droppable(&b) {
        return a;
    }
    if nb.is_some_and(Num::is_zero) && droppable(&a) {
        return b;
    }
    if na.is_some_and(Num::is_one) {
        return b;
    }
    if nb.is_some_and(Num::is_one) {
        return a;
    }
    if let Some(x) = unneg(&a) {
        return neg_at(product(x.clone(), b, span), span);
    }
    if let Some(y) = unneg(&b) {
        return neg_at(product(a, y.clone(), span), span);
    }
    if nb.is_some() && na.is_none() {
        return product(b, a, span);
    }
    if let Some(x) = na
        && let Some(scaled) = scale_leftmost(&b, x)
    {
        return scaled;
    }
    raw(BinOp::Mul, a, b, span)
}

/// `x * b` when the leftmost factor of the product chain `b` is a literal y: the
/// chain with `x * y` in its place (`3 * (2 * x * y)` → `6 * x * y`).
fn scale_leftmost(b: &Expr, x: Num) -> Option<Expr> {
    let ExprKind::Binary(BinOp::Mul, ys) = &b.kind else { return None };
    match num_value(&ys[0]) {
        Some(y) => Some(product(fold(BinOp::Mul, x, y)?, ys[1].clone(), b.span)),
        None => Some(raw(BinOp::Mul, scale_leftmost(&ys[0], x)?, ys[1].clone(), b.span)),
    }
}

fn logic(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    let absorbing = op == BinOp::Or; // `true or x` = true, `false and x` = false
    match (&a.kind, &b.kind) {
        (ExprKind::Bool(x), _) if *x != absorbing => b,
        (_, ExprKind::Bool(y)) if *y != absorbing => a,
        (ExprKind::Bool(_), _) if droppable(&b) => a,
        (_, ExprKind::Bool(_)) if droppable(&a) => b,
        _ => raw(op, a, b, span),
    }
}

/// Folds `x op y`; `None` when not foldable (overflowing integers fall back to reals,
/// division by zero, NaN or infinite results are kept unfolded).
fn fold(op: BinOp, x: Num, y: Num) -> Option<Expr> {
    use BinOp::*;
    if let (Num::Int(i), Num::Int(j)) = (x, y) {
        let exact = match op {
            Add | ElemAdd => i.checked_add(j),
            Sub | ElemSub => i.checked_sub(j),
            Mul | ElemMul => i.checked_mul(j),
            _ => None,
        };
        if let Some(k) = exact {
            return num_expr(Num::Int(k));
        }
    }
    let (a, b) = (x.as_f64(), y.as_f64());
    let real = |r: f64| num_expr(Num::Real(r));
    match op {
        Add | ElemAdd => real(a + b),
        Sub | ElemSub => real(a - b),
        Mul | ElemMul => real(a * b),
        Div | ElemDiv if b != 0.0 => real(a / b),
        Pow | ElemPow => real(a.powf(b)),
        Lt => Some(boolean(a < b)),
        Le => Some(boolean(a <= b)),
        Gt => Some(boolean(a > b)),
        Ge => Some(boolean(a >= b)),
        Eq => Some(boolean(a == b)),
        Ne => Some(boolean(a != b)),
        _ => None,
    }
}

/// Drops branches whose condition is `false`, cuts the chain at a `true` condition,
/// and drops trailing branches whose value equals the else value.
fn if_rule(x: IfExpr, span: Span) -> Expr {
    let mut branches = Vec::with_capacity(x.branches.len());
    let mut else_value = x.else_value;
    for (c, v) in x.branches {
        match c.kind {
            ExprKind::Bool(false) => {}
            ExprKind::Bool(true) => {
                else_value = v;
                break;
            }
            _ => branches.push((c, v)),
        }
    }
    while branches.last().is_some_and(|(c, v)| same(v, &else_value) && droppable(c)) {
        branches.pop();
    }
    if branches.is_empty() { else_value } else { if_raw(branches, else_value, span) }
}

#[cfg(test)]
#[path = "simplify_tests.rs"]
mod tests;
