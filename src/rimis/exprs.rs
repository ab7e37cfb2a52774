//! Expression plumbing of the transformation: constructors of generated AST nodes
//! (spans are [`Span::DUMMY`]), a top-down rewriter, the derivative occurrences
//! `der(der(x))` ↔ (x, 2), and [`Cond`] → Modelica condition.
//!
//! A variable is known by its flat name (`x`, `a.b`, `tank.ports[1].p`), which the input
//! writes as an [`ExprKind::Name`] or, with subscripts, an [`ExprKind::Ref`], and the
//! transformation as a `Name` holding the whole text: [`var_name`] reads both, and every
//! pass finds variables through it (or [`occurrence`]), never by matching `Name` alone.

use std::borrow::Cow;

use crate::mdae::{Cond, ModeId};
use crate::syntax::Span;
use crate::syntax::ast::{
    BinOp, Call, Equation, EquationKind, Expr, ExprKind, FunctionArgs, Ident, IfExpr, NamedArg, UnOp, text,
};
use crate::syntax::printer::write_cref;

pub(crate) fn name(s: &str) -> Expr {
    Expr { kind: ExprKind::Name(text(s)), span: Span::DUMMY }
}

pub(crate) fn number(s: &str) -> Expr {
    Expr { kind: ExprKind::Number(text(s)), span: Span::DUMMY }
}

/// The literal 0 (as written: `0`, `0.0`).
pub(crate) fn is_zero(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Number(n) if n.parse::<f64>() == Ok(0.0))
}

pub(crate) fn boolean(b: bool) -> Expr {
    Expr { kind: ExprKind::Bool(b), span: Span::DUMMY }
}

/// A Boolean literal, or the one element of a `{…}` (the start of a subscripted mode
/// variable, `Boolean inFlow[1](start = {false})`, TankPort).
pub(crate) fn bool_literal(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Bool(v) => Some(*v),
        ExprKind::Array(xs) if xs.len() == 1 => bool_literal(&xs[0]),
        _ => None,
    }
}

pub(crate) fn call(f: &str, args: Vec<Expr>) -> Expr {
    let args = FunctionArgs::List { positional: args.into(), named: Default::default() };
    let c = Call { function: Ident { text: text(f), span: Span::DUMMY }, args };
    Expr { kind: ExprKind::Call(Box::new(c)), span: Span::DUMMY }
}

pub(crate) fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr { kind: ExprKind::Binary(op, Box::new([a, b])), span: Span::DUMMY }
}

pub(crate) fn neg(a: Expr) -> Expr {
    Expr { kind: ExprKind::Unary(UnOp::Neg, Box::new(a)), span: Span::DUMMY }
}

pub(crate) fn not(a: Expr) -> Expr {
    Expr { kind: ExprKind::Unary(UnOp::Not, Box::new(a)), span: Span::DUMMY }
}

pub(crate) fn if_expr(branches: Vec<(Expr, Expr)>, else_value: Expr) -> Expr {
    if branches.is_empty() {
        return else_value;
    }
    Expr { kind: ExprKind::If(Box::new(IfExpr { branches, else_value })), span: Span::DUMMY }
}

pub(crate) fn equation(kind: EquationKind) -> Equation {
    Equation::new(None, kind, None, Span::DUMMY)
}

pub(crate) fn simple(lhs: Expr, rhs: Expr) -> Equation {
    equation(EquationKind::Simple { lhs, rhs })
}

/// `cond and not initial()`: the condition of REINIT's `when`, which acts on *entering*
/// the modes `cond`. The mode a model starts in is not entered: the initial system sets its
/// replicates (issue 29 class 4). Without it rumoca, whose `pre(b)` at t = 0 is b's start
/// value (false when absent) rather than b's initial value, fires the `when` at t = 0 and
/// reads `pre(x)` through the multiplexer in the other mode (omc does not fire it).
/// Measured (rumoca 0.10.2, omc 1.28-dev): with it, omc fires the `when` at t = 0 just after
/// the initialisation and rumoca at the first event after t = 0, each time with the mode
/// active just before, so `reinit(ρ, pre(u))` reads ρ itself: no change in either.
pub(crate) fn entered(cond: Expr) -> Expr {
    binary(BinOp::And, cond, not(call("initial", Vec::new())))
}

/// `c and not pre(c)` for a condition `c` over discrete mode variables (names, `not`,
/// `and`, `or`, `v == k`), `pre` applied to each name; `None` where `c` reads anything else
/// (a relation on continuous variables). `when` on it fires exactly where `when c` does.
/// rumoca 0.10.2 needs it in a `when … elsewhen …` whose conditions fall and rise at the
/// same event (`when b1 then … elsewhen not b1 then …`: "event condition equations did not
/// converge with fixed pre", campaign seed 9863); omc takes both forms.
pub(crate) fn rising(c: &Expr) -> Option<Expr> {
    let before = match pre_of(c)?.kind {
        ExprKind::Unary(UnOp::Not, x) => *x,
        other => not(Expr { kind: other, span: Span::DUMMY }),
    };
    Some(binary(BinOp::And, c.clone(), before))
}

/// `c` on left limits: `pre` applied to each name of a condition over discrete mode
/// variables (as [`rising`]); `None` where it reads anything else.
pub(crate) fn pre_of(c: &Expr) -> Option<Expr> {
    fn pre_of(e: &Expr) -> Option<Expr> {
        Some(match &e.kind {
            ExprKind::Name(_) => call("pre", vec![e.clone()]),
            ExprKind::Number(_) | ExprKind::Bool(_) => e.clone(),
            ExprKind::Unary(UnOp::Not, x) => not(pre_of(x)?),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), xs) => binary(*op, pre_of(&xs[0])?, pre_of(&xs[1])?),
            // `v == k`, k a literal (a number, an enumeration value).
            ExprKind::Binary(BinOp::Eq, xs) if matches!(xs[0].kind, ExprKind::Name(_)) => {
                binary(BinOp::Eq, pre_of(&xs[0])?, xs[1].clone())
            }
            _ => return None,
        })
    }
    pre_of(c)
}

/// `reinit(target, value);`
pub(crate) fn reinit(target: Expr, value: Expr) -> Equation {
    let ExprKind::Call(c) = call("reinit", vec![target, value]).kind else { unreachable!("built as a call") };
    equation(EquationKind::Call(c))
}

/// `assert(test, "message");`, the message escaped as a Modelica string literal, in ASCII:
/// omc truncates a long assert message byte-wise in its log, and a multibyte character
/// cut in two (`§`) made its `simulate` report "Failed to build model" after a successful
/// run (EveryModeEquationAtStart).
pub(crate) fn assert(test: Expr, message: &str) -> Equation {
    let ascii: String = message.replace('§', "section ").chars().map(|c| if c.is_ascii() { c } else { '?' }).collect();
    let literal = ascii.replace('\\', "\\\\").replace('"', "\\\"");
    let message = Expr { kind: ExprKind::String(text(&literal)), span: Span::DUMMY };
    let ExprKind::Call(c) = call("assert", vec![test, message]).kind else { unreachable!("built as a call") };
    equation(EquationKind::Call(c))
}

/// The flat name `e` refers to when it is a reference, `x` or `a[1].b` (as the mDAE
/// names its variables); `None` for any other expression.
pub(crate) fn var_name(e: &Expr) -> Option<Cow<'_, str>> {
    match &e.kind {
        ExprKind::Name(n) => Some(Cow::Borrowed(n.as_str())),
        ExprKind::Ref(r) => {
            let mut s = String::new();
            write_cref(&mut s, r);
            Some(Cow::Owned(s))
        }
        _ => None,
    }
}

/// The name and derivative order of `v`, `der(v)`, `der(der(v))`…, `v` a reference
/// ([`var_name`]); `None` otherwise.
pub(crate) fn occurrence(e: &Expr) -> Option<(Cow<'_, str>, u32)> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => Some((var_name(e)?, 0)),
        ExprKind::Call(c) if c.function.text.as_str() == "der" => match &c.args {
            FunctionArgs::List { positional, named } if positional.len() == 1 && named.is_empty() => {
                occurrence(&positional[0]).map(|(n, k)| (n, k + 1))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Rewrites `e` top-down: where `f` returns a replacement it is used as is (not
/// rewritten further); elsewhere the node is rebuilt from its rewritten children.
pub(crate) fn rewrite(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    if let Some(r) = f(e) {
        return r;
    }
    let kind = match &e.kind {
        ExprKind::Call(c) => {
            let args = match &c.args {
                FunctionArgs::List { positional, named } => FunctionArgs::List {
                    positional: positional.iter().map(|a| rewrite(a, f)).collect(),
                    // Named arguments too: a record read through its constructor
                    // (`f(R(p = state.p))`, `flat/records.rs`) is renamed field by field.
                    named: named
                        .iter()
                        .map(|a| NamedArg { name: a.name.clone(), value: rewrite(&a.value, f) })
                        .collect(),
                },
                other => other.clone(),
            };
            ExprKind::Call(Box::new(Call { function: c.function.clone(), args }))
        }
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(rewrite(x, f))),
        ExprKind::Binary(op, xs) => ExprKind::Binary(*op, Box::new([rewrite(&xs[0], f), rewrite(&xs[1], f)])),
        ExprKind::If(x) => ExprKind::If(Box::new(IfExpr {
            branches: x.branches.iter().map(|(c, v)| (rewrite(c, f), rewrite(v, f))).collect(),
            else_value: rewrite(&x.else_value, f),
        })),
        ExprKind::Array(xs) => ExprKind::Array(Box::new(xs.iter().map(|x| rewrite(x, f)).collect())),
        other => other.clone(),
    };
    Expr { kind, span: e.span }
}

/// Calls `f` on every node of `e` that [`rewrite`] visits, parents first (without
/// rebuilding the tree).
pub(crate) fn for_each(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Call(c) => {
            if let FunctionArgs::List { positional, named } = &c.args {
                positional.iter().for_each(|a| for_each(a, f));
                named.iter().for_each(|a| for_each(&a.value, f));
            }
        }
        ExprKind::Unary(_, x) => for_each(x, f),
        ExprKind::Binary(_, xs) => xs.iter().for_each(|x| for_each(x, f)),
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                for_each(c, f);
                for_each(v, f);
            }
            for_each(&x.else_value, f);
        }
        ExprKind::Array(xs) => xs.iter().for_each(|x| for_each(x, f)),
        _ => {}
    }
}

/// The condition as a Modelica expression; `mode` gives each mode's expression.
pub(crate) fn cond_expr(c: &Cond, mode: &dyn Fn(ModeId) -> Expr) -> Expr {
    let fold = |xs: &[Cond], op: BinOp| {
        let mut it = xs.iter().map(|x| cond_expr(x, mode));
        let first = it.next().unwrap_or_else(|| boolean(op == BinOp::And));
        it.fold(first, |a, b| binary(op, a, b))
    };
    match c {
        Cond::True => boolean(true),
        Cond::False => boolean(false),
        Cond::Mode(m) => mode(*m),
        Cond::Not(x) => not(cond_expr(x, mode)),
        Cond::And(xs) => fold(xs, BinOp::And),
        Cond::Or(xs) => fold(xs, BinOp::Or),
    }
}

/// `not e` with the negation pushed into its relations (`not (a < b)` → `a >= b`, De
/// Morgan through `and`/`or`, into the branches of an if-expression): the same value, but
/// a when-condition written so has one zero-crossing per relation — omc gives `not r` a
/// zero-crossing of its own beside r's (issue 32: the chatter detector's reset).
pub(crate) fn negate(e: Expr) -> Expr {
    let span = e.span;
    match e.kind {
        ExprKind::Bool(b) => boolean(!b),
        ExprKind::Unary(UnOp::Not, x) => *x,
        ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::And | BinOp::Or), xs) => {
            let [a, b] = *xs;
            let flipped = |op| Expr { kind: ExprKind::Binary(op, Box::new([a.clone(), b.clone()])), span };
            match op {
                BinOp::Lt => flipped(BinOp::Ge),
                BinOp::Le => flipped(BinOp::Gt),
                BinOp::Gt => flipped(BinOp::Le),
                BinOp::Ge => flipped(BinOp::Lt),
                BinOp::And => binary(BinOp::Or, negate(a), negate(b)),
                _ => binary(BinOp::And, negate(a), negate(b)),
            }
        }
        ExprKind::If(x) => {
            let IfExpr { branches, else_value } = *x;
            if_expr(branches.into_iter().map(|(c, v)| (c, negate(v))).collect(), negate(else_value))
        }
        kind => not(Expr { kind, span }),
    }
}

/// `if c then a else b` with the if pushed down to where `a` and `b` differ: through
/// operators and calls of pure functions of the same shape, so that two guards alike but
/// for the variables they read (a switch's guard read in each of its modes) make one
/// relation on `if c then x else y` operands instead of two relations. The same value
/// wherever `c` is (`c` is read, not differentiated; `pre`, `der` and the like are never
/// entered, their argument must stay a variable).
pub(crate) fn either(c: &Expr, a: &Expr, b: &Expr) -> Expr {
    use crate::syntax::printer::expr_to_string;
    const PURE: [&str; 9] = ["abs", "sqrt", "exp", "log", "sin", "cos", "tan", "min", "max"];
    if expr_to_string(a) == expr_to_string(b) {
        return a.clone();
    }
    match (&a.kind, &b.kind) {
        (ExprKind::Binary(p, x), ExprKind::Binary(q, y)) if p == q => {
            binary(*p, either(c, &x[0], &y[0]), either(c, &x[1], &y[1]))
        }
        (ExprKind::Unary(p, x), ExprKind::Unary(q, y)) if p == q => {
            Expr { kind: ExprKind::Unary(*p, Box::new(either(c, x, y))), span: Span::DUMMY }
        }
        (ExprKind::Call(f), ExprKind::Call(g))
            if f.function.text == g.function.text && PURE.contains(&f.function.text.as_str()) =>
        {
            match (&f.args, &g.args) {
                (
                    FunctionArgs::List { positional: xs, named: nx },
                    FunctionArgs::List { positional: ys, named: ny },
                ) if nx.is_empty() && ny.is_empty() && xs.len() == ys.len() => {
                    call(&f.function.text, xs.iter().zip(ys.iter()).map(|(x, y)| either(c, x, y)).collect())
                }
                _ => if_expr(vec![(c.clone(), a.clone())], b.clone()),
            }
        }
        _ => if_expr(vec![(c.clone(), a.clone())], b.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::{either, for_each, name, negate, occurrence, rewrite, rising};
    use crate::rimis::symbolic::testutil::{parse_expr, show};

    /// The rising edge of a region over discrete mode variables (seed 9863), and none for a
    /// condition that reads a relation.
    #[test]
    fn rising_edges_of_mode_conditions() {
        let edge = |c: &str| rising(&parse_expr(c)).map(|e| show(&e));
        assert_eq!(edge("b1").as_deref(), Some("b1 and not pre(b1)"));
        assert_eq!(edge("not b1").as_deref(), Some("not b1 and pre(b1)"));
        assert_eq!(edge("b1 and not b2").as_deref(), Some("b1 and not b2 and not (pre(b1) and not pre(b2))"));
        assert_eq!(edge("gear == 2").as_deref(), Some("gear == 2 and not pre(gear) == 2"));
        assert_eq!(edge("x > 0 and b1"), None);
    }

    /// A record read through its constructor (`flat/records.rs`) is renamed field by field:
    /// the rewriter and the walk go into named arguments as into positional ones.
    #[test]
    fn named_arguments_are_rewritten_and_walked() {
        let e = parse_expr("density(State(p = s.p, T = s.T), s.p)");
        let renamed = rewrite(&e, &mut |x| match occurrence(x) {
            Some((n, 0)) if &*n == "s.p" => Some(name("s_p_3")),
            _ => None,
        });
        assert_eq!(show(&renamed), "density(State(p = s_p_3, T = s.T), s_p_3)");
        let mut seen = Vec::new();
        for_each(&e, &mut |x| seen.extend(occurrence(x).map(|(n, _)| n.to_string())));
        assert_eq!(seen.iter().filter(|n| *n == "s.p").count(), 2, "{seen:?}");
        assert!(seen.iter().any(|n| n == "s.T"), "{seen:?}");
    }

    /// A negation goes into the relations (one zero-crossing each in omc), exactly:
    /// the complementary operator, De Morgan, the branches of an if.
    #[test]
    fn negation_is_pushed_into_relations() {
        let neg = |c: &str| show(&negate(parse_expr(c)));
        assert_eq!(neg("abs(x) < w * (1 + abs(x))"), "abs(x) >= w * (1 + abs(x))");
        assert_eq!(neg("x <= 0 or not b"), "x > 0 and b");
        assert_eq!(neg("x > y and z >= 1"), "x <= y or z < 1");
        assert_eq!(neg("if m then x < 0 else y > 0"), "if m then x >= 0 else y <= 0");
        assert_eq!(neg("b"), "not b");
        assert_eq!(neg("x == 1"), "not x == 1");
    }

    /// Two guards alike but for what they read make one relation on if-expressions of
    /// their operands; never inside `pre`/`der` (their argument stays a variable), and
    /// as a whole where the shapes differ.
    #[test]
    fn either_pushes_the_if_down_to_where_the_guards_differ() {
        let e = |a: &str, b: &str| show(&either(&name("m"), &parse_expr(a), &parse_expr(b)));
        assert_eq!(
            e(
                "abs(g * (p - q) + f1) < w * (1 + abs(g * (p - q) + f1))",
                "abs(g * (p - q) + f2) < w * (1 + abs(g * (p - q) + f2))"
            ),
            "abs(g * (p - q) + (if m then f1 else f2)) < w * (1 + abs(g * (p - q) + (if m then f1 else f2)))"
        );
        assert_eq!(e("x < 1", "x < 1"), "x < 1");
        assert_eq!(e("pre(x1) > 0", "pre(x2) > 0"), "(if m then pre(x1) else pre(x2)) > 0");
        assert_eq!(e("x < 0", "x > 0"), "if m then x < 0 else x > 0");
        assert_eq!(e("x < 0 or y < 0", "x < 0"), "if m then x < 0 or y < 0 else x < 0");
    }
}
