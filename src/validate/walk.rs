//! A read-only walk over every expression position of the model class — declarations
//! (dimensions, modifications, bindings, conditions; not annotations), equations and
//! algorithms — with the names bound by enclosing `for` loops and reductions. A [`Sink`]
//! says what to do at each name, call, condition, equation, assignment and binding.

use crate::syntax::ast::*;

/// Where an item sits.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ctx<'a> {
    /// The condition of the innermost enclosing `when` (equation or statement).
    pub when: Option<&'a Expr>,
    /// In an `initial equation`/`initial algorithm` section.
    pub initial: bool,
}

/// What a walk does; every method defaults to nothing.
pub(super) trait Sink<'a> {
    /// A name used as a value (`x`, `a.b`, `x[i].y`), with the iterators in scope.
    fn name(&mut self, _e: &'a Expr, _iterators: &[Text]) {}
    fn call(&mut self, _c: &'a Call, _e: &'a Expr, _iterators: &[Text]) {}
    /// An expression that must be Boolean: a condition of an if, when or while.
    fn condition(&mut self, _c: &'a Expr, _iterators: &[Text]) {}
    fn equation(&mut self, _eq: &'a Equation, _lhs: &'a Expr, _rhs: &'a Expr, _ctx: Ctx<'a>, _iterators: &[Text]) {}
    fn assignment(&mut self, _st: &'a Statement, _target: &'a Expr, _value: &'a Expr, _iterators: &[Text]) {}
    /// A declaration's binding `= value`.
    fn binding(&mut self, _c: &'a Component, _d: &'a Declaration, _value: &'a Expr) {}
}

pub(super) struct Walk<'s, 'a> {
    pub sink: &'s mut dyn Sink<'a>,
    iterators: Vec<Text>,
}

impl<'s, 'a> Walk<'s, 'a> {
    pub fn new(sink: &'s mut dyn Sink<'a>) -> Self {
        Walk { sink, iterators: Vec::new() }
    }

    /// Walks the model class's declarations, equations and algorithms.
    pub fn model(&mut self, comp: &'a Composition) {
        for part in &comp.parts {
            match part {
                ClassPart::Elements { elements, .. } => {
                    for e in elements {
                        if let Element::Component(c) = e {
                            self.component(c);
                        }
                    }
                }
                ClassPart::Equations { initial, equations, .. } => {
                    let ctx = Ctx { when: None, initial: *initial };
                    equations.iter().for_each(|eq| self.equation(eq, ctx));
                }
                ClassPart::Algorithm { initial, statements, .. } => {
                    let ctx = Ctx { when: None, initial: *initial };
                    statements.iter().for_each(|s| self.statement(s, ctx));
                }
                // omc's state machine dump: refused by name in the flat stage.
                ClassPart::StateMachine(_) => {}
            }
        }
    }

    fn component(&mut self, c: &'a Component) {
        self.subscripts(c.type_dims());
        if let Some(m) = c.type_mod() {
            self.class_mod(m);
        }
        for d in c.declarations() {
            for part in d.compound_name().iter().flat_map(|n| n.parts.iter()) {
                self.subscripts(&part.subscripts);
            }
            self.subscripts(&d.dims);
            if let Some(m) = &d.modification {
                if let Some(cm) = &m.class_mod {
                    self.class_mod(cm);
                }
                if let Some(v) = &m.value {
                    self.expr(&v.expr);
                    self.sink.binding(c, d, &v.expr);
                }
            }
            if let Some(cond) = &d.condition {
                self.expr(cond);
            }
        }
    }

    fn class_mod(&mut self, m: &'a ClassMod) {
        for a in m.args.iter() {
            if let Some(v) = &a.value {
                self.expr(v);
            }
            if let Some(cm) = a.class_mod() {
                self.class_mod(cm);
            }
        }
    }

    fn subscripts(&mut self, subs: &'a [Subscript]) {
        for s in subs {
            if let Subscript::Expr(e) = s {
                self.expr(e);
            }
        }
    }

    /// Binds `indices` (their ranges walked outside the scope) while `f` runs.
    fn scoped(&mut self, indices: &'a [ForIndex], f: impl FnOnce(&mut Self)) {
        for ix in indices {
            if let Some(r) = &ix.range {
                self.expr(r);
            }
        }
        let n = self.iterators.len();
        self.iterators.extend(indices.iter().map(|ix| ix.name.text));
        f(self);
        self.iterators.truncate(n);
    }

    pub fn equation(&mut self, eq: &'a Equation, ctx: Ctx<'a>) {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                self.expr(lhs);
                self.expr(rhs);
                self.sink.equation(eq, lhs, rhs, ctx, &self.iterators);
            }
            EquationKind::If { branches, else_branch } => {
                for (c, body) in branches {
                    self.expr(c);
                    self.sink.condition(c, &self.iterators);
                    body.iter().for_each(|e| self.equation(e, ctx));
                }
                else_branch.iter().flatten().for_each(|e| self.equation(e, ctx));
            }
            EquationKind::For { indices, body } => {
                self.scoped(indices, |w| body.iter().for_each(|e| w.equation(e, ctx)));
            }
            EquationKind::When { branches } => {
                for (c, body) in branches {
                    self.expr(c);
                    self.sink.condition(c, &self.iterators);
                    let inner = Ctx { when: Some(c), ..ctx };
                    body.iter().for_each(|e| self.equation(e, inner));
                }
            }
            EquationKind::Connect(ab) => {
                for r in ab.iter() {
                    for part in r.parts.iter() {
                        self.subscripts(&part.subscripts);
                    }
                }
            }
            EquationKind::Call(c) => self.call_args(c),
        }
    }

    fn statement(&mut self, st: &'a Statement, ctx: Ctx<'a>) {
        match &st.kind {
            StatementKind::Assign { target, value } => {
                self.expr(target);
                self.expr(value);
                self.sink.assignment(st, target, value, &self.iterators);
            }
            StatementKind::Call(c) => self.call_args(c),
            StatementKind::If { branches, else_branch } => {
                for (c, body) in branches {
                    self.expr(c);
                    self.sink.condition(c, &self.iterators);
                    body.iter().for_each(|s| self.statement(s, ctx));
                }
                else_branch.iter().flatten().for_each(|s| self.statement(s, ctx));
            }
            StatementKind::For { indices, body } => {
                self.scoped(indices, |w| body.iter().for_each(|s| w.statement(s, ctx)));
            }
            StatementKind::While { condition, body } => {
                self.expr(condition);
                self.sink.condition(condition, &self.iterators);
                body.iter().for_each(|s| self.statement(s, ctx));
            }
            StatementKind::When { branches } => {
                for (c, body) in branches {
                    self.expr(c);
                    self.sink.condition(c, &self.iterators);
                    let inner = Ctx { when: Some(c), ..ctx };
                    body.iter().for_each(|s| self.statement(s, inner));
                }
            }
            StatementKind::Return(value) => value.iter().for_each(|x| self.expr(x)),
            StatementKind::Break => {}
        }
    }

    /// The arguments of a call equation or statement (the call itself is not a value).
    fn call_args(&mut self, c: &'a Call) {
        match &c.args {
            FunctionArgs::List { positional, named } => {
                positional.iter().for_each(|a| self.expr(a));
                named.iter().for_each(|a| self.expr(&a.value));
            }
            FunctionArgs::Comprehension(x) => self.scoped(&x.indices, |w| w.expr(&x.expr)),
        }
    }

    pub fn expr(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
            ExprKind::Name(_) => self.sink.name(e, &self.iterators),
            ExprKind::Ref(r) => {
                self.sink.name(e, &self.iterators);
                for part in r.parts.iter() {
                    self.subscripts(&part.subscripts);
                }
            }
            ExprKind::Call(c) => {
                self.sink.call(c, e, &self.iterators);
                self.call_args(c);
            }
            ExprKind::Unary(_, x) => self.expr(x),
            ExprKind::Binary(_, xs) => xs.iter().for_each(|x| self.expr(x)),
            ExprKind::If(x) => {
                for (c, v) in &x.branches {
                    self.expr(c);
                    self.sink.condition(c, &self.iterators);
                    self.expr(v);
                }
                self.expr(&x.else_value);
            }
            ExprKind::Range(r) => {
                self.expr(&r.start);
                if let Some(s) = &r.step {
                    self.expr(s);
                }
                self.expr(&r.stop);
            }
            ExprKind::Array(items) => items.iter().for_each(|x| self.expr(x)),
            ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| self.expr(x)),
            ExprKind::ArrayComprehension(c) => self.scoped(&c.indices, |w| w.expr(&c.expr)),
            ExprKind::Tuple(items) => items.iter().flatten().for_each(|x| self.expr(x)),
            ExprKind::Subscripted(x) => {
                self.expr(&x.base);
                self.subscripts(&x.subscripts);
            }
            // A partial application names a function (not a value); its bound arguments are.
            ExprKind::Partial(c) => self.call_args(c),
            ExprKind::Boxed(x) => self.expr(x),
        }
    }
}
