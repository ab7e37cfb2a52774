//! Node construction and inspection shared by the symbolic passes.
//!
//! Owns: constructors for generated nodes (all with `Span::default()`), numeric
//! literal values ([`Num`]: integer when the literal text is an integer, real
//! otherwise) and their printing in a short exact form that re-parses as a Modelica
//! number, span-insensitive equality ([`same`]) and the child map used by every walk.

use crate::syntax::Span;
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string;

/// The value of a numeric literal (possibly under unary minus/plus).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
        }
    }

    pub(crate) fn is_zero(self) -> bool {
        self.as_f64() == 0.0
    }

    pub(crate) fn is_one(self) -> bool {
        self.as_f64() == 1.0
    }
}

/// The value of `e` when it is a numeric literal, `-lit` or `+lit`.
pub(crate) fn num_value(e: &Expr) -> Option<Num> {
    match &e.kind {
        ExprKind::Number(t) => parse_num(t),
        ExprKind::Unary(UnOp::Neg, x) => match num_value(x)? {
            Num::Int(i) => i.checked_neg().map(Num::Int),
            Num::Real(r) => Some(Num::Real(-r)),
        },
        ExprKind::Unary(UnOp::Plus, x) => num_value(x),
        _ => None,
    }
}

fn parse_num(t: &str) -> Option<Num> {
    if t.bytes().all(|b| b.is_ascii_digit()) {
        // An integer literal too large for i64 is still a number, just not folded exactly.
        return Some(t.parse::<i64>().map(Num::Int).unwrap_or(Num::Real(t.parse::<f64>().ok()?)));
    }
    t.parse::<f64>().ok().filter(|r| r.is_finite()).map(Num::Real)
}

/// A literal for `n`; `None` for NaN and infinities (never folded).
pub(crate) fn num_expr(n: Num) -> Option<Expr> {
    let (neg, text) = match n {
        Num::Int(i) => (i < 0, i.unsigned_abs().to_string()),
        Num::Real(r) if !r.is_finite() => return None,
        Num::Real(r) => (r < 0.0, real_text(r.abs())),
    };
    let lit = Expr::new(ExprKind::Number(text_of(&text)), Span::default());
    Some(if neg { neg_raw(lit) } else { lit })
}

/// Shortest round-trip text of a finite non-negative real: Rust's `{}` (`2`, `0.5`)
/// unless the scientific form `{:e}` (`1e-7`, `1.5e20`) is shorter. Both forms are
/// Modelica unsigned numbers; an integral value prints without a dot (a Real
/// context converts it).
pub(crate) fn real_text(r: f64) -> String {
    let plain = format!("{}", if r == 0.0 { 0.0 } else { r });
    let sci = format!("{r:e}");
    // Integral values of 16+ digits could overflow the integer range on re-parse.
    if sci.len() + 2 < plain.len() || (!plain.contains('.') && plain.len() > 15) { sci } else { plain }
}

fn text_of(s: &str) -> Text {
    text(s)
}

pub(crate) fn int(i: i64) -> Expr {
    num_expr(Num::Int(i)).unwrap_or_else(|| name("0"))
}

pub(crate) fn zero() -> Expr {
    int(0)
}

pub(crate) fn one() -> Expr {
    int(1)
}

pub(crate) fn is_zero(e: &Expr) -> bool {
    num_value(e).is_some_and(Num::is_zero)
}

pub(crate) fn name(s: &str) -> Expr {
    Expr::new(ExprKind::Name(text(s)), Span::default())
}

pub(crate) fn boolean(b: bool) -> Expr {
    Expr::new(ExprKind::Bool(b), Span::default())
}

/// `f(args)` with positional arguments.
pub(crate) fn call(f: &str, args: Vec<Expr>) -> Expr {
    let function = Ident { text: text(f), span: Span::default() };
    let args = FunctionArgs::List { positional: args.into(), named: ThinList::default() };
    Expr::new(ExprKind::Call(Box::new(Call { function, args })), Span::default())
}

pub(crate) fn der(e: Expr) -> Expr {
    call("der", vec![e])
}

pub(crate) fn bin_raw(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new([a, b])), Span::default())
}

pub(crate) fn neg_raw(a: Expr) -> Expr {
    Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(a)), Span::default())
}

pub(crate) fn if_raw(branches: Vec<(Expr, Expr)>, else_value: Expr, span: Span) -> Expr {
    Expr::new(ExprKind::If(Box::new(IfExpr { branches, else_value })), span)
}

/// The positional arguments of a call without named arguments or reductions.
pub(crate) fn positional(c: &Call) -> Option<&[Expr]> {
    match &c.args {
        FunctionArgs::List { positional, named } if named.is_empty() => Some(positional),
        _ => None,
    }
}

/// Equality modulo spans: the canonical print is a pure function of the tree.
pub(crate) fn same(a: &Expr, b: &Expr) -> bool {
    a.kind == b.kind
        || (std::mem::discriminant(&a.kind) == std::mem::discriminant(&b.kind)
            && expr_to_string(a) == expr_to_string(b))
}

/// Rebuilds `e` with `f` applied to each direct child expression (call arguments,
/// operands, branches and conditions, subscripts, array items), keeping `e`'s span.
pub(crate) fn map_children(e: &Expr, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
    let kind = match &e.kind {
        ExprKind::Call(c) => {
            ExprKind::Call(Box::new(Call { function: c.function.clone(), args: map_args(&c.args, f) }))
        }
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(f(x))),
        ExprKind::Binary(op, xs) => ExprKind::Binary(*op, Box::new([f(&xs[0]), f(&xs[1])])),
        ExprKind::If(x) => ExprKind::If(Box::new(IfExpr {
            branches: x.branches.iter().map(|(c, v)| (f(c), f(v))).collect(),
            else_value: f(&x.else_value),
        })),
        ExprKind::Ref(r) => ExprKind::Ref(Box::new(map_ref(r, f))),
        ExprKind::Range(r) => ExprKind::Range(Box::new(RangeExpr {
            start: f(&r.start),
            step: r.step.as_ref().map(&mut *f),
            stop: f(&r.stop),
        })),
        ExprKind::Array(items) => ExprKind::Array(Box::new(items.iter().map(&mut *f).collect())),
        ExprKind::Matrix(rows) => {
            ExprKind::Matrix(Box::new(rows.iter().map(|r| r.iter().map(&mut *f).collect()).collect()))
        }
        ExprKind::Tuple(items) => ExprKind::Tuple(Box::new(items.iter().map(|x| x.as_ref().map(&mut *f)).collect())),
        ExprKind::Subscripted(x) => {
            ExprKind::Subscripted(Box::new(Subscripted { base: f(&x.base), subscripts: map_subs(&x.subscripts, f) }))
        }
        // Comprehensions bind their indices: left as they are.
        other => other.clone(),
    };
    Expr::new(kind, e.span)
}

fn map_args(args: &FunctionArgs, f: &mut dyn FnMut(&Expr) -> Expr) -> FunctionArgs {
    match args {
        FunctionArgs::List { positional, named } => FunctionArgs::List {
            positional: positional.iter().map(&mut *f).collect(),
            named: named.iter().map(|n| NamedArg { name: n.name.clone(), value: f(&n.value) }).collect(),
        },
        FunctionArgs::Comprehension(c) => FunctionArgs::Comprehension(c.clone()),
    }
}

fn map_ref(r: &ComponentRef, f: &mut dyn FnMut(&Expr) -> Expr) -> ComponentRef {
    let parts = r
        .parts
        .iter()
        .map(|p| RefPart { ident: p.ident.clone(), subscripts: map_subs(&p.subscripts, f).into() })
        .collect();
    ComponentRef { parts, span: r.span }
}

fn map_subs(subs: &[Subscript], f: &mut dyn FnMut(&Expr) -> Expr) -> Box<[Subscript]> {
    subs.iter()
        .map(|s| match s {
            Subscript::All(sp) => Subscript::All(*sp),
            Subscript::Expr(x) => Subscript::Expr(f(x)),
        })
        .collect()
}

/// The direct child expressions of `e`, in written order (comprehension bodies and
/// ranges included).
pub(crate) fn children(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    match &e.kind {
        ExprKind::Call(c) => match &c.args {
            FunctionArgs::List { positional, named } => {
                out.extend(positional.iter());
                out.extend(named.iter().map(|n| &n.value));
            }
            FunctionArgs::Comprehension(c) => comprehension(&mut out, c),
        },
        ExprKind::Unary(_, x) => out.push(x),
        ExprKind::Binary(_, xs) => out.extend(xs.iter()),
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                out.push(c);
                out.push(v);
            }
            out.push(&x.else_value);
        }
        ExprKind::Ref(r) => r.parts.iter().for_each(|p| subscripts(&mut out, &p.subscripts)),
        ExprKind::Range(r) => out.extend([Some(&r.start), r.step.as_ref(), Some(&r.stop)].into_iter().flatten()),
        ExprKind::Array(items) => out.extend(items.iter()),
        ExprKind::Matrix(rows) => out.extend(rows.iter().flatten()),
        ExprKind::ArrayComprehension(c) => comprehension(&mut out, c),
        ExprKind::Tuple(items) => out.extend(items.iter().flatten()),
        ExprKind::Subscripted(x) => {
            out.push(&x.base);
            subscripts(&mut out, &x.subscripts);
        }
        ExprKind::Partial(c) => match &c.args {
            FunctionArgs::List { positional, named } => {
                out.extend(positional.iter());
                out.extend(named.iter().map(|n| &n.value));
            }
            FunctionArgs::Comprehension(c) => comprehension(&mut out, c),
        },
        ExprKind::Boxed(x) => out.push(x),
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::Name(_) | ExprKind::End => {}
    }
    out
}

fn subscripts<'a>(out: &mut Vec<&'a Expr>, ss: &'a [Subscript]) {
    out.extend(ss.iter().filter_map(|s| match s {
        Subscript::Expr(x) => Some(x),
        Subscript::All(_) => None,
    }));
}

fn comprehension<'a>(out: &mut Vec<&'a Expr>, c: &'a Comprehension) {
    out.push(&c.expr);
    out.extend(c.indices.iter().filter_map(|i| i.range.as_ref()));
}

/// True when `p` holds for `e` or any expression inside it.
pub(crate) fn any_sub(e: &Expr, p: &dyn Fn(&Expr) -> bool) -> bool {
    p(e) || children(e).into_iter().any(|c| any_sub(c, p))
}
