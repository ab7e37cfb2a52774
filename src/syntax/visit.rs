//! A mutable walk over a tree: every span (to compare trees modulo spans,
//! `erase_spans`, and to check that spans nest), every called function name and every
//! class named as a type (the RIMIS emission renames the classes it nests). [`Visitor`]
//! says what to do at each. Also the read-only walk over an equation's expressions
//! ([`equation_exprs`]) and a call's arguments ([`call_args`]).

use super::ast::*;
use super::span::Span;

/// What a walk does at each span and each called function name (parents first).
pub trait Visitor {
    fn span(&mut self, _span: &mut Span) {}
    fn call_name(&mut self, _function: &mut Ident) {}
    /// A name used as an expression (`x`, `a.b`).
    fn name(&mut self, _name: &mut Text) {}
    /// A declared or referenced identifier part, and a class's name.
    fn ident(&mut self, _ident: &mut Ident) {}
    /// A class named as a type: a declaration's type, a short class's base, the function
    /// of a `der(f, x)` class (after [`Visitor::span`] on it).
    fn type_name(&mut self, _name: &mut Ident) {}
}

struct SpanFn<'a>(&'a mut dyn FnMut(&mut Span));

impl Visitor for SpanFn<'_> {
    fn span(&mut self, span: &mut Span) {
        (self.0)(span)
    }
}

/// Calls `f` on every span in the tree, parents before children.
pub fn walk_spans(def: &mut StoredDefinition, f: &mut dyn FnMut(&mut Span)) {
    walk(def, &mut SpanFn(f));
}

/// Walks the whole file with `v`.
pub fn walk(def: &mut StoredDefinition, f: &mut dyn Visitor) {
    f.span(&mut def.span);
    if let Some(w) = &mut def.within {
        f.span(&mut w.span);
        if let Some(n) = &mut w.name {
            f.span(&mut n.span);
        }
    }
    for c in &mut def.classes {
        class(c, f);
    }
}

/// Sets every span to [`Span::DUMMY`].
pub fn erase_spans(def: &mut StoredDefinition) {
    walk_spans(def, &mut |s| *s = Span::DUMMY);
}

type F<'a> = &'a mut dyn Visitor;

/// Walks one class definition with `v`.
pub fn walk_class(c: &mut ClassDef, v: &mut dyn Visitor) {
    class(c, v);
}

/// Walks one element with `v`.
pub fn walk_element(e: &mut Element, v: &mut dyn Visitor) {
    element(e, v);
}

/// Walks one class part (elements, equations, algorithm) with `v`.
pub fn walk_part(p: &mut ClassPart, v: &mut dyn Visitor) {
    part(p, v);
}

/// Walks one equation with `v`.
pub fn walk_equation(e: &mut Equation, v: &mut dyn Visitor) {
    equation(e, v);
}

/// Walks one expression with `v`.
pub fn walk_expr(e: &mut Expr, v: &mut dyn Visitor) {
    expr(e, v);
}

fn class(c: &mut ClassDef, f: F) {
    f.ident(&mut c.name);
    f.span(&mut c.span);
    f.span(&mut c.name.span);
    match &mut c.body {
        ClassBody::Long(comp) => {
            strings(&mut comp.description, f);
            for p in &mut comp.parts {
                part(p, f);
            }
            if let Some(e) = &mut comp.external {
                f.span(&mut e.span);
                if let Some(l) = &mut e.language {
                    f.span(&mut l.span);
                }
                if let Some(call) = &mut e.call {
                    if let Some(o) = &mut call.output {
                        expr(o, f);
                    }
                    f.span(&mut call.function.span);
                    call.args.iter_mut().for_each(|a| expr(a, f));
                }
                if let Some(a) = &mut e.annotation {
                    class_mod(a, f);
                }
            }
            if let Some(a) = &mut comp.annotation {
                class_mod(a, f);
            }
            f.span(&mut comp.end_name.span);
        }
        ClassBody::Short { base, dims, modification, comment: c, .. } => {
            f.span(&mut base.span);
            f.type_name(base);
            subs(dims, f);
            if let Some(m) = modification {
                class_mod(m, f);
            }
            comment(c, f);
        }
        ClassBody::Enumeration { literals, comment: c, .. } => {
            enum_lits(literals, f);
            comment(c, f);
        }
        ClassBody::Der { function, vars, comment: c } => {
            f.span(&mut function.span);
            f.type_name(function);
            vars.iter_mut().for_each(|v| f.span(&mut v.span));
            comment(c, f);
        }
    }
}

fn enum_lits(ls: &mut [EnumLiteral], f: F) {
    for l in ls {
        f.span(&mut l.name.span);
        comment(&mut l.comment, f);
    }
}

fn part(p: &mut ClassPart, f: F) {
    match p {
        ClassPart::Elements { elements, span, .. } => {
            f.span(span);
            elements.iter_mut().for_each(|e| element(e, f));
        }
        ClassPart::Equations { equations, span, .. } => {
            f.span(span);
            equations.iter_mut().for_each(|e| equation(e, f));
        }
        ClassPart::Algorithm { statements, span, .. } => {
            f.span(span);
            statements.iter_mut().for_each(|s| statement(s, f));
        }
        ClassPart::StateMachine(sm) => {
            f.span(&mut sm.span);
            f.span(&mut sm.name.span);
            f.ident(&mut sm.name);
            for st in &mut sm.states {
                f.span(&mut st.span);
                f.span(&mut st.name.span);
                f.ident(&mut st.name);
                st.elements.iter_mut().for_each(|e| element(e, f));
                st.equations.iter_mut().for_each(|e| equation(e, f));
            }
            sm.equations.iter_mut().for_each(|e| equation(e, f));
        }
    }
}

fn element(e: &mut Element, f: F) {
    match e {
        Element::Component(c) => c.edit(|c| {
            f.span(&mut c.span);
            match &mut c.type_spec {
                TypeSpec::Name(n) => {
                    f.span(&mut n.span);
                    f.type_name(n);
                }
                TypeSpec::Enumeration(e) => {
                    f.span(&mut e.span);
                    enum_lits(&mut e.literals, f);
                }
            }
            if let Some(t) = &mut c.type_parts {
                if let Some(m) = &mut t.modification {
                    class_mod(m, f);
                }
                subs(&mut t.dims, f);
            }
            for d in &mut c.declarations {
                d.edit_name(|name, span| {
                    f.span(span);
                    cref(name, f);
                });
                let Some(d) = d.parts_mut() else { continue };
                subs(&mut d.dims, f);
                if let Some(m) = &mut d.modification {
                    modification(m, f);
                }
                if let Some(c) = &mut d.condition {
                    expr(c, f);
                }
                comment(&mut d.comment, f);
            }
        }),
        Element::Class(c) => class(c, f),
        Element::Extends(x) => {
            f.span(&mut x.span);
            f.span(&mut x.name.span);
            if let Some(m) = &mut x.modification {
                class_mod(m, f);
            }
            if let Some(a) = &mut x.annotation {
                class_mod(a, f);
            }
        }
        Element::Import(im) => {
            f.span(&mut im.span);
            if let Some(a) = &mut im.alias {
                f.span(&mut a.span);
            }
            f.span(&mut im.name.span);
            im.list.iter_mut().for_each(|n| f.span(&mut n.span));
            comment(&mut im.comment, f);
        }
        Element::Annotation(a) => class_mod(a, f),
    }
}

fn modification(m: &mut Modification, f: F) {
    f.span(&mut m.span);
    if let Some(cm) = &mut m.class_mod {
        class_mod(cm, f);
    }
    if let Some(v) = &mut m.value {
        expr(&mut v.expr, f);
    }
}

fn class_mod(m: &mut ClassMod, f: F) {
    f.span(&mut m.span);
    for a in &mut m.args {
        f.span(&mut a.span);
        f.span(&mut a.name.span);
        if let Some(cm) = a.rest.as_mut().and_then(|r| r.class_mod.as_mut()) {
            class_mod(cm, f);
        }
        if let Some(v) = &mut a.value {
            expr(v, f);
        }
        if let Some(r) = &mut a.rest {
            strings(&mut r.description, f);
        }
    }
}

fn strings(ss: &mut [StringLit], f: F) {
    ss.iter_mut().for_each(|s| f.span(&mut s.span));
}

fn comment(c: &mut Comment, f: F) {
    strings(&mut c.strings, f);
    if let Some(a) = &mut c.annotation {
        class_mod(a, f);
    }
}

fn equation(e: &mut Equation, f: F) {
    let mut span = e.span();
    f.span(&mut span);
    if let Some(l) = e.label_mut() {
        f.span(&mut l.span);
    }
    match &mut e.kind {
        EquationKind::Simple { lhs, rhs } => {
            expr(lhs, f);
            expr(rhs, f);
        }
        EquationKind::If { branches, else_branch } => {
            for (c, body) in branches {
                expr(c, f);
                body.iter_mut().for_each(|e| equation(e, f));
            }
            else_branch.iter_mut().flatten().for_each(|e| equation(e, f));
        }
        EquationKind::For { indices, body } => {
            for_indices(indices, f);
            body.iter_mut().for_each(|e| equation(e, f));
        }
        EquationKind::When { branches } => {
            for (c, body) in branches {
                expr(c, f);
                body.iter_mut().for_each(|e| equation(e, f));
            }
        }
        EquationKind::Connect(ab) => ab.iter_mut().for_each(|r| cref(r, f)),
        EquationKind::Call(c) => call(c, f),
    }
    if let Some(c) = e.comment_mut() {
        comment(c, f);
    }
    e.set_span(span);
}

fn statement(s: &mut Statement, f: F) {
    f.span(&mut s.span);
    match &mut s.kind {
        StatementKind::Assign { target, value } => {
            expr(target, f);
            expr(value, f);
        }
        StatementKind::Call(c) => call(c, f),
        StatementKind::If { branches, else_branch } => {
            for (c, body) in branches {
                expr(c, f);
                body.iter_mut().for_each(|s| statement(s, f));
            }
            else_branch.iter_mut().flatten().for_each(|s| statement(s, f));
        }
        StatementKind::For { indices, body } => {
            for_indices(indices, f);
            body.iter_mut().for_each(|s| statement(s, f));
        }
        StatementKind::While { condition, body } => {
            expr(condition, f);
            body.iter_mut().for_each(|s| statement(s, f));
        }
        StatementKind::When { branches } => {
            for (c, body) in branches {
                expr(c, f);
                body.iter_mut().for_each(|s| statement(s, f));
            }
        }
        StatementKind::Return(Some(e)) => expr(e, f),
        StatementKind::Return(None) | StatementKind::Break => {}
    }
    if let Some(c) = &mut s.comment {
        comment(c, f);
    }
}

fn for_indices(ix: &mut [ForIndex], f: F) {
    for i in ix {
        f.span(&mut i.name.span);
        if let Some(r) = &mut i.range {
            expr(r, f);
        }
    }
}

fn subs(ss: &mut [Subscript], f: F) {
    for s in ss {
        match s {
            Subscript::All(sp) => f.span(sp),
            Subscript::Expr(e) => expr(e, f),
        }
    }
}

fn cref(r: &mut ComponentRef, f: F) {
    f.span(&mut r.span);
    for p in &mut r.parts {
        f.ident(&mut p.ident);
        f.span(&mut p.ident.span);
        subs(&mut p.subscripts, f);
    }
}

fn call(c: &mut Call, f: F) {
    f.call_name(&mut c.function);
    f.span(&mut c.function.span);
    match &mut c.args {
        FunctionArgs::List { positional, named } => {
            positional.iter_mut().for_each(|a| expr(a, f));
            for n in named {
                f.span(&mut n.name.span);
                expr(&mut n.value, f);
            }
        }
        FunctionArgs::Comprehension(c) => {
            expr(&mut c.expr, f);
            for_indices(&mut c.indices, f);
        }
    }
}

fn expr(e: &mut Expr, f: F) {
    f.span(&mut e.span);
    match &mut e.kind {
        ExprKind::Name(n) => f.name(n),
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
        ExprKind::Ref(r) => cref(r, f),
        ExprKind::Call(c) => call(c, f),
        ExprKind::Unary(_, x) => expr(x, f),
        ExprKind::Binary(_, xs) => xs.iter_mut().for_each(|x| expr(x, f)),
        ExprKind::If(x) => {
            for (c, v) in &mut x.branches {
                expr(c, f);
                expr(v, f);
            }
            expr(&mut x.else_value, f);
        }
        ExprKind::Range(r) => {
            expr(&mut r.start, f);
            if let Some(s) = &mut r.step {
                expr(s, f);
            }
            expr(&mut r.stop, f);
        }
        ExprKind::Array(xs) => xs.iter_mut().for_each(|x| expr(x, f)),
        ExprKind::Matrix(rows) => rows.iter_mut().flatten().for_each(|x| expr(x, f)),
        ExprKind::ArrayComprehension(c) => {
            expr(&mut c.expr, f);
            for_indices(&mut c.indices, f);
        }
        ExprKind::Tuple(xs) => xs.iter_mut().flatten().for_each(|x| expr(x, f)),
        ExprKind::Subscripted(x) => {
            expr(&mut x.base, f);
            subs(&mut x.subscripts, f);
        }
        ExprKind::Partial(c) => call(c, f),
        ExprKind::Boxed(x) => expr(x, f),
    }
}

/// A call's argument expressions: positional, then named; a reduction's expression.
pub fn call_args(c: &Call) -> Vec<&Expr> {
    match &c.args {
        FunctionArgs::List { positional, named } => positional.iter().chain(named.iter().map(|n| &n.value)).collect(),
        FunctionArgs::Comprehension(x) => vec![&x.expr],
    }
}

/// Calls `f` on every top-level expression of an equation: sides, conditions, for-ranges,
/// the arguments of a call equation.
pub fn equation_exprs<'e>(eq: &'e Equation, f: &mut dyn FnMut(&'e Expr)) {
    match &eq.kind {
        EquationKind::Simple { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        EquationKind::If { branches, else_branch } => {
            for (c, body) in branches {
                f(c);
                body.iter().for_each(|e| equation_exprs(e, f));
            }
            else_branch.iter().flatten().for_each(|e| equation_exprs(e, f));
        }
        EquationKind::For { indices, body } => {
            indices.iter().filter_map(|i| i.range.as_ref()).for_each(|r| f(r));
            body.iter().for_each(|e| equation_exprs(e, f));
        }
        EquationKind::When { branches } => {
            for (c, body) in branches {
                f(c);
                body.iter().for_each(|e| equation_exprs(e, f));
            }
        }
        EquationKind::Call(c) => call_args(c).into_iter().for_each(f),
        EquationKind::Connect(_) => {}
    }
}
