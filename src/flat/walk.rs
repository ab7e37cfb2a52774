//! Read-only and rewriting walks over expressions, and the printed name of a reference.

use crate::syntax::Span;
use crate::syntax::ast::{
    Call, ComponentRef, Comprehension, Equation, EquationKind, Expr, ExprKind, ForIndex, FunctionArgs, Ident, IfExpr,
    NamedArg, RangeExpr, RefPart, Subscript, Subscripted, text,
};
use crate::syntax::printer::expr::write_cref;

/// The name `e` refers to, as printed (`x`, `a.b[1].c`), if it is a reference.
pub fn ref_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.as_str().to_string()),
        ExprKind::Ref(r) => Some(cref_text(r)),
        _ => None,
    }
}

/// A component reference as printed.
pub fn cref_text(r: &ComponentRef) -> String {
    let mut s = String::new();
    write_cref(&mut s, r);
    s
}

/// Calls `f` on `e` and every expression inside it (subscripts, arguments, branches),
/// parents first; `f` returns false to skip an expression's children.
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr) -> bool) {
    if !f(e) {
        return;
    }
    match &e.kind {
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::Name(_) | ExprKind::End => {}
        ExprKind::Ref(r) => visit_subscripts(r.parts.iter().flat_map(|p| p.subscripts.iter()), f),
        ExprKind::Call(c) => visit_args(&c.args, f),
        ExprKind::Unary(_, x) => visit(x, f),
        ExprKind::Binary(_, xs) => {
            visit(&xs[0], f);
            visit(&xs[1], f);
        }
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                visit(c, f);
                visit(v, f);
            }
            visit(&x.else_value, f);
        }
        ExprKind::Range(r) => {
            visit(&r.start, f);
            if let Some(s) = &r.step {
                visit(s, f);
            }
            visit(&r.stop, f);
        }
        ExprKind::Array(xs) => xs.iter().for_each(|x| visit(x, f)),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| visit(x, f)),
        ExprKind::ArrayComprehension(c) => visit_comprehension(c, f),
        ExprKind::Tuple(xs) => xs.iter().flatten().for_each(|x| visit(x, f)),
        ExprKind::Subscripted(s) => {
            visit(&s.base, f);
            visit_subscripts(s.subscripts.iter(), f);
        }
        ExprKind::Partial(c) => visit_args(&c.args, f),
        ExprKind::Boxed(x) => visit(x, f),
    }
}

fn visit_subscripts<'a>(subs: impl Iterator<Item = &'a Subscript>, f: &mut dyn FnMut(&Expr) -> bool) {
    for s in subs {
        if let Subscript::Expr(x) = s {
            visit(x, f);
        }
    }
}

/// [`visit`] over a call's arguments.
pub fn visit_args(args: &FunctionArgs, f: &mut dyn FnMut(&Expr) -> bool) {
    match args {
        FunctionArgs::List { positional, named } => {
            positional.iter().for_each(|x| visit(x, f));
            named.iter().for_each(|n| visit(&n.value, f));
        }
        FunctionArgs::Comprehension(c) => visit_comprehension(c, f),
    }
}

fn visit_comprehension(c: &Comprehension, f: &mut dyn FnMut(&Expr) -> bool) {
    visit(&c.expr, f);
    for i in &c.indices {
        if let Some(r) = &i.range {
            visit(r, f);
        }
    }
}

/// Rebuilds `e` top-down: where `f` returns a replacement it is used as is, elsewhere the
/// children are rewritten.
pub fn map(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    if let Some(x) = f(e) {
        return x;
    }
    let kind = match &e.kind {
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::Name(_) | ExprKind::End => {
            e.kind.clone()
        }
        ExprKind::Ref(r) => ExprKind::Ref(Box::new(map_cref(r, f))),
        ExprKind::Call(c) => {
            ExprKind::Call(Box::new(Call { function: c.function.clone(), args: map_args(&c.args, f) }))
        }
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(map(x, f))),
        ExprKind::Binary(op, xs) => ExprKind::Binary(*op, Box::new([map(&xs[0], f), map(&xs[1], f)])),
        ExprKind::If(x) => ExprKind::If(Box::new(IfExpr {
            branches: x.branches.iter().map(|(c, v)| (map(c, f), map(v, f))).collect(),
            else_value: map(&x.else_value, f),
        })),
        ExprKind::Range(r) => ExprKind::Range(Box::new(RangeExpr {
            start: map(&r.start, f),
            step: r.step.as_ref().map(|s| map(s, f)),
            stop: map(&r.stop, f),
        })),
        ExprKind::Array(xs) => ExprKind::Array(Box::new(xs.iter().map(|x| map(x, f)).collect())),
        ExprKind::Matrix(rows) => {
            ExprKind::Matrix(Box::new(rows.iter().map(|r| r.iter().map(|x| map(x, f)).collect()).collect()))
        }
        ExprKind::ArrayComprehension(c) => ExprKind::ArrayComprehension(Box::new(map_comprehension(c, f))),
        ExprKind::Tuple(xs) => ExprKind::Tuple(Box::new(xs.iter().map(|x| x.as_ref().map(|x| map(x, f))).collect())),
        ExprKind::Subscripted(s) => ExprKind::Subscripted(Box::new(Subscripted {
            base: map(&s.base, f),
            subscripts: map_subscripts(&s.subscripts, f),
        })),
        ExprKind::Partial(c) => {
            ExprKind::Partial(Box::new(Call { function: c.function.clone(), args: map_args(&c.args, f) }))
        }
        ExprKind::Boxed(x) => ExprKind::Boxed(Box::new(map(x, f))),
    };
    Expr::new(kind, e.span)
}

/// [`map`] over the subscripts of a reference.
pub fn map_cref(r: &ComponentRef, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> ComponentRef {
    let parts: Vec<RefPart> = r
        .parts
        .iter()
        .map(|p| RefPart { ident: p.ident.clone(), subscripts: map_subscripts(&p.subscripts, f).into() })
        .collect();
    ComponentRef { parts: parts.into(), span: r.span }
}

fn map_subscripts(subs: &[Subscript], f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Box<[Subscript]> {
    subs.iter()
        .map(|s| match s {
            Subscript::All(sp) => Subscript::All(*sp),
            Subscript::Expr(x) => Subscript::Expr(map(x, f)),
        })
        .collect()
}

/// [`map`] over a call's arguments.
pub fn map_args(args: &FunctionArgs, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> FunctionArgs {
    match args {
        FunctionArgs::List { positional, named } => FunctionArgs::List {
            positional: positional.iter().map(|x| map(x, f)).collect::<Vec<_>>().into(),
            named: named.iter().map(|n| NamedArg { name: n.name.clone(), value: map(&n.value, f) }).collect(),
        },
        FunctionArgs::Comprehension(c) => FunctionArgs::Comprehension(Box::new(map_comprehension(c, f))),
    }
}

fn map_comprehension(c: &Comprehension, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Comprehension {
    Comprehension {
        expr: map(&c.expr, f),
        indices: c
            .indices
            .iter()
            .map(|i| ForIndex { name: i.name.clone(), range: i.range.as_ref().map(|r| map(r, f)) })
            .collect(),
    }
}

/// The reference expression for a scalar or aggregate name (`x`, `a.b[1, 2].c`), built as
/// the parser builds it: consecutive parts without subscripts merged.
pub fn name_expr(name: &str, span: Span) -> Expr {
    let mut parts: Vec<RefPart> = Vec::new();
    let mut pending = String::new();
    let bytes = name.as_bytes();
    let mut i = 0;
    let mut quoted = false;
    let mut start = 0;
    while i <= bytes.len() {
        let c = bytes.get(i).copied();
        match c {
            Some(b'\'') => quoted = !quoted,
            Some(b'[') if !quoted => {
                let close = name[i..].find(']').map_or(bytes.len(), |k| i + k);
                push_ident(&mut pending, &name[start..i]);
                let subs: Box<[Subscript]> = name[i + 1..close]
                    .split(", ")
                    .map(|s| Subscript::Expr(Expr::new(ExprKind::Number(text(s.trim())), span)))
                    .collect();
                parts.push(RefPart { ident: Ident { text: text(&pending), span }, subscripts: subs.into() });
                pending.clear();
                i = close + 1;
                if bytes.get(i) == Some(&b'.') {
                    i += 1;
                }
                start = i;
                continue;
            }
            Some(b'.') if !quoted => {
                push_ident(&mut pending, &name[start..i]);
                start = i + 1;
            }
            None => push_ident(&mut pending, &name[start..i]),
            _ => {}
        }
        i += 1;
    }
    if parts.is_empty() {
        return Expr::new(ExprKind::Name(text(&pending)), span);
    }
    if !pending.is_empty() {
        parts.push(RefPart { ident: Ident { text: text(&pending), span }, subscripts: Default::default() });
    }
    Expr::new(ExprKind::Ref(Box::new(ComponentRef { parts: parts.into(), span })), span)
}

fn push_ident(pending: &mut String, part: &str) {
    if part.is_empty() {
        return;
    }
    if !pending.is_empty() {
        pending.push('.');
    }
    pending.push_str(part);
}

/// [`map`] over every expression of an equation (sides, conditions, ranges, arguments).
pub fn map_equation(eq: &Equation, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Equation {
    let body = |eqs: &[Equation], f: &mut dyn FnMut(&Expr) -> Option<Expr>| -> Vec<Equation> {
        eqs.iter().map(|e| map_equation(e, f)).collect()
    };
    let kind = match &eq.kind {
        EquationKind::Simple { lhs, rhs } => EquationKind::Simple { lhs: map(lhs, f), rhs: map(rhs, f) },
        EquationKind::If { branches, else_branch } => EquationKind::If {
            branches: branches.iter().map(|(c, b)| (map(c, f), body(b, f))).collect(),
            else_branch: else_branch.as_ref().map(|b| body(b, f).into()),
        },
        EquationKind::For { indices, body: b } => EquationKind::For {
            indices: indices
                .iter()
                .map(|i| ForIndex { name: i.name.clone(), range: i.range.as_ref().map(|r| map(r, f)) })
                .collect(),
            body: body(b, f),
        },
        EquationKind::When { branches } => {
            EquationKind::When { branches: branches.iter().map(|(c, b)| (map(c, f), body(b, f))).collect() }
        }
        EquationKind::Connect(c) => EquationKind::Connect(c.clone()),
        EquationKind::Call(c) => {
            EquationKind::Call(Box::new(Call { function: c.function.clone(), args: map_args(&c.args, f) }))
        }
    };
    eq.with_kind(kind)
}
