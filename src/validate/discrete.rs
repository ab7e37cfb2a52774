//! Discrete variables (Boolean, Integer, String, enumeration; not parameters, constants
//! or inputs) are each defined once: by one equation, or by `when`-equations, or by one
//! algorithm section — never by two of them (Modelica 3.6 §8.4, the single assignment
//! rule §8.3.5.3). A `when` target, an algorithm's assigned variables and a tuple's left
//! side are *fixed*: defined there. The other discrete equations are matched to the
//! discrete unknowns ([`super::matching`]), because omc writes connections both ways
//! (`a.y = b.u` defines `b.u`): an equation left unmatched defines a variable again (an
//! error naming the equations involved); an unknown left unmatched has no equation (a
//! warning: it is taken as a known input).
//!
//! Conservative: a variable met through an array as a whole, a non-literal subscript, a
//! for-loop, a record, or an equation whose type mixes Real and discrete sides is
//! *tainted*: it and every equation it occurs in stay out of the check.

use super::diagnostic::{Diagnostic, Kind};
use super::matching::matching;
use super::scope::{Resolved, Scope, cref_names};
use super::types::{EqType, Ty, Typer, equation_type, is_discrete};
use crate::syntax::Span;
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string;
use std::collections::{BTreeMap, BTreeSet};

/// How an equation defines: where and what it is.
#[derive(Clone, Copy)]
enum Source {
    When(Span),
    Algorithm(Span),
    Tuple(Span),
}

impl Source {
    fn span(self) -> Span {
        match self {
            Source::When(s) | Source::Algorithm(s) | Source::Tuple(s) => s,
        }
    }
    fn what(self) -> &'static str {
        match self {
            Source::When(_) => "when-equation",
            Source::Algorithm(_) => "algorithm section",
            Source::Tuple(_) => "tuple equation",
        }
    }
}

/// A discrete equation: its span and the discrete unknowns in it.
struct DEq {
    span: Span,
    vars: BTreeSet<usize>,
}

pub(super) struct Discrete<'s, 'a> {
    typer: Typer<'s, 'a>,
    /// The discrete unknowns (declaration indices).
    unknowns: BTreeSet<usize>,
    /// Defined where they are assigned: the first definition of each.
    fixed: BTreeMap<usize, Source>,
    /// Bases (and prefixes) of names that keep their variables out of the check.
    taint: Vec<String>,
    eqs: Vec<DEq>,
    out: Vec<Diagnostic>,
    /// Whether the model's continuous part is balanced (see [`Discrete::check`]).
    balanced: bool,
}

/// What a name in an equation is for this check.
enum Occ {
    Unknown(usize),
    Known,
    /// Met in a way the check does not model: this base (or prefix) stays out.
    Taint(String),
}

impl<'s, 'a> Discrete<'s, 'a> {
    /// The diagnostics of the discrete variables. A variable defined twice is an error in a
    /// *complete* model: its continuous part is `balanced` and every discrete unknown has
    /// an equation. In another it is a warning: such a model is not a simulation model yet
    /// (omc's test suite flattens many to test its front end, `Integer x = 2; equation
    /// x = 3;`), and the tool refuses it anyway if its continuous part is singular.
    /// `balanced` is asked only of a model with discrete unknowns.
    pub fn check(scope: &'s Scope<'a>, comp: &'a Composition, balanced: impl FnOnce() -> bool) -> Vec<Diagnostic> {
        let unknowns: BTreeSet<usize> = (0..scope.len())
            .filter(|&d| {
                let decl = &scope.decls[d];
                is_discrete(decl.ty) && !decl.is_fixed_value() && !decl.has(Prefix::Input)
            })
            .collect();
        // Without discrete unknowns nothing is defined twice or left without an equation
        // (a model of Reals: nothing to read, nothing to build).
        if unknowns.is_empty() {
            return Vec::new();
        }
        let balanced = balanced();
        let mut c = Discrete {
            typer: Typer { scope },
            unknowns,
            fixed: BTreeMap::new(),
            taint: Vec::new(),
            eqs: Vec::new(),
            out: Vec::new(),
            balanced,
        };
        c.collect(comp);
        c.conclude();
        c.out
    }

    fn collect(&mut self, comp: &'a Composition) {
        // Fixed definitions first: a when-target read by an equation is known there.
        for part in &comp.parts {
            match part {
                ClassPart::Equations { initial: false, equations, .. } => {
                    for eq in equations {
                        self.fixed_in_equation(eq);
                    }
                }
                ClassPart::Algorithm { initial: false, statements, span } => {
                    let mut targets = Vec::new();
                    statements.iter().for_each(|s| assigned(s, &mut targets));
                    for t in targets {
                        self.define(t, Source::Algorithm(*span));
                    }
                }
                _ => {}
            }
        }
        for part in &comp.parts {
            match part {
                ClassPart::Elements { elements, .. } => self.bindings(elements),
                ClassPart::Equations { initial: false, equations, .. } => {
                    for eq in equations {
                        let found = self.equations_of(eq);
                        self.eqs.extend(found);
                    }
                }
                _ => {}
            }
        }
    }

    /// The bindings of discrete unknowns (`Boolean b = time > 1;`) are equations.
    fn bindings(&mut self, elements: &'a [Element]) {
        for e in elements {
            let Element::Component(c) = e else { continue };
            if c.has(Prefix::Parameter) || c.has(Prefix::Constant) {
                continue;
            }
            for d in c.declarations() {
                let Some(value) = d.modification.as_ref().and_then(|m| m.value.as_ref()) else { continue };
                let lhs = Expr::new(
                    match d.compound_name().is_none() && d.dims.is_empty() {
                        true => ExprKind::Name(d.ident().text),
                        false => {
                            self.taint_expr(&value.expr);
                            continue;
                        }
                    },
                    d.name_span(),
                );
                if let Some(deq) = self.simple(&lhs, &value.expr, d.span()) {
                    self.eqs.push(deq);
                }
            }
        }
    }

    /// Records the targets of a when-equation or a tuple equation as fixed definitions.
    fn fixed_in_equation(&mut self, eq: &'a Equation) {
        match &eq.kind {
            EquationKind::When { branches } => {
                let mut targets = Vec::new();
                for (_, body) in branches {
                    body.iter().for_each(|e| when_targets(e, &mut targets));
                }
                // Each target once per when-equation (its branches assign it in turn).
                let mut seen = BTreeSet::new();
                for t in targets {
                    if seen.insert(expr_to_string(t)) {
                        self.define(t, Source::When(t.span));
                    }
                }
            }
            EquationKind::Simple { lhs, .. } if matches!(lhs.kind, ExprKind::Tuple(_)) => {
                let ExprKind::Tuple(items) = &lhs.kind else { return };
                for t in items.iter().flatten() {
                    self.define(t, Source::Tuple(eq.span()));
                }
            }
            EquationKind::If { branches, else_branch } => {
                for (_, body) in branches {
                    body.iter().for_each(|e| self.fixed_in_equation(e));
                }
                else_branch.iter().flatten().for_each(|e| self.fixed_in_equation(e));
            }
            _ => {}
        }
    }

    /// A fixed definition of the variable `target`; a second one is an error.
    fn define(&mut self, target: &Expr, source: Source) {
        match self.occ(target) {
            Occ::Unknown(d) => match self.fixed.get(&d) {
                Some(first) if !matches!((first, source), (Source::Algorithm(a), Source::Algorithm(b)) if a == &b) => {
                    let name = self.typer.scope.key(d);
                    let message =
                        format!("`{name}` is defined twice: by a {} and by a {}", first.what(), source.what());
                    self.out.push(
                        Diagnostic::error(Kind::Discrete, source.span(), message)
                            .with(first.span(), format!("first defined by this {}", first.what()))
                            .help("a variable is defined by one equation, one when-equation or one algorithm section (Modelica 3.6 §8.4)"),
                    );
                }
                Some(_) => {}
                None => {
                    self.fixed.insert(d, source);
                }
            },
            Occ::Taint(b) => self.taint.push(b),
            Occ::Known => {}
        }
    }

    /// The discrete equations of a (non-when) equation; taints what it cannot model.
    fn equations_of(&mut self, eq: &'a Equation) -> Vec<DEq> {
        match &eq.kind {
            EquationKind::Simple { lhs, .. } if matches!(lhs.kind, ExprKind::Tuple(_)) => Vec::new(),
            EquationKind::Simple { lhs, rhs } => self.simple(lhs, rhs, eq.span()).into_iter().collect(),
            EquationKind::If { branches, else_branch } => {
                let mut arms: Vec<Vec<DEq>> = Vec::new();
                for (_, body) in branches {
                    arms.push(body.iter().flat_map(|e| self.equations_of(e)).collect());
                }
                arms.push(else_branch.iter().flatten().flat_map(|e| self.equations_of(e)).collect());
                let n = arms[0].len();
                if arms.iter().any(|a| a.len() != n) {
                    // Branches with different counts (parameter conditions): out of the check.
                    for a in &arms {
                        for deq in a {
                            let names: Vec<String> =
                                deq.vars.iter().map(|&d| self.typer.scope.base(d).to_string()).collect();
                            self.taint.extend(names);
                        }
                    }
                    return Vec::new();
                }
                // The k-th discrete equation of every branch make one equation.
                (0..n)
                    .map(|k| DEq {
                        span: arms.iter().map(|a| a[k].span).next().unwrap_or(eq.span()),
                        vars: arms.iter().flat_map(|a| a[k].vars.iter().copied()).collect(),
                    })
                    .collect()
            }
            EquationKind::For { body, .. } => {
                body.iter().for_each(|e| self.taint_equation(e));
                Vec::new()
            }
            EquationKind::Connect(ab) => {
                for r in ab.iter() {
                    let e = Expr::new(ExprKind::Ref(Box::new(r.clone())), r.span);
                    self.taint_expr(&e);
                }
                Vec::new()
            }
            EquationKind::When { .. } | EquationKind::Call(_) => Vec::new(),
        }
    }

    /// `lhs = rhs`: a discrete equation when both sides are known to be discrete. A Real
    /// equation defines no Boolean, String or enumeration, but may define an Integer
    /// (converted to Real): its Integer unknowns are tainted. An equation of unclear type
    /// taints all its names.
    fn simple(&mut self, lhs: &Expr, rhs: &Expr, span: Span) -> Option<DEq> {
        let kind = equation_type(self.typer.of(lhs, &[]), self.typer.of(rhs, &[]));
        let mut occs = Vec::new();
        refs(lhs, &mut occs);
        refs(rhs, &mut occs);
        let occs: Vec<Occ> = occs.iter().map(|e| self.occ(e)).collect();
        let tainted = occs.iter().any(|o| matches!(o, Occ::Taint(_)));
        if kind == EqType::Discrete && !tainted {
            let vars = occs.iter().filter_map(|o| if let Occ::Unknown(d) = o { Some(*d) } else { None }).collect();
            return Some(DEq { span, vars });
        }
        for o in occs {
            match o {
                Occ::Taint(b) => self.taint.push(b),
                Occ::Unknown(d) if kind != EqType::Real || self.typer.scope.decls[d].ty == Ty::Integer => {
                    self.taint.push(self.typer.scope.base(d).to_string())
                }
                Occ::Unknown(_) | Occ::Known => {}
            }
        }
        None
    }

    fn taint_equation(&mut self, eq: &Equation) {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                self.taint_expr(lhs);
                self.taint_expr(rhs);
            }
            EquationKind::If { branches, else_branch } => {
                for (_, body) in branches {
                    body.iter().for_each(|e| self.taint_equation(e));
                }
                else_branch.iter().flatten().for_each(|e| self.taint_equation(e));
            }
            EquationKind::For { body, .. } => body.iter().for_each(|e| self.taint_equation(e)),
            EquationKind::When { branches } => {
                for (_, body) in branches {
                    body.iter().for_each(|e| self.taint_equation(e));
                }
            }
            EquationKind::Connect(_) | EquationKind::Call(_) => {}
        }
    }

    fn taint_expr(&mut self, e: &Expr) {
        let mut occs = Vec::new();
        refs(e, &mut occs);
        for r in occs {
            match self.occ(r) {
                Occ::Taint(b) => self.taint.push(b),
                Occ::Unknown(d) => self.taint.push(self.typer.scope.base(d).to_string()),
                Occ::Known => {}
            }
        }
        let base = match &e.kind {
            ExprKind::Name(n) => n.as_str().to_string(),
            ExprKind::Ref(r) => cref_names(r).0,
            _ => return,
        };
        self.taint.push(super::scope::normalize(&base));
    }

    /// What the name `e` is for the check.
    fn occ(&self, e: &Expr) -> Occ {
        let scope = self.typer.scope;
        let (base, key) = match &e.kind {
            ExprKind::Name(n) => (n.as_str().to_string(), n.as_str().to_string()),
            ExprKind::Ref(r) => cref_names(r),
            _ => return Occ::Known,
        };
        match scope.resolve(&base) {
            Some(Resolved::Var(ds)) => match ds.iter().map(|&d| d as usize).find(|&d| scope.key(d) == key) {
                Some(d) if self.unknowns.contains(&d) => Occ::Unknown(d),
                Some(_) => Occ::Known,
                None if ds.iter().any(|&d| self.unknowns.contains(&(d as usize))) => {
                    Occ::Taint(scope.base(ds[0] as usize).to_string())
                }
                None => Occ::Known,
            },
            Some(Resolved::Aggregate) => Occ::Taint(super::scope::normalize(&base)),
            _ => Occ::Known,
        }
    }

    fn is_tainted(&self, d: usize) -> bool {
        let base = self.typer.scope.base(d).as_str();
        self.taint
            .iter()
            .any(|t| base == t.as_str() || base.strip_prefix(t.as_str()).is_some_and(|r| r.starts_with('.')))
    }

    /// Matches the discrete equations to the free unknowns; reports what is left over.
    fn conclude(&mut self) {
        let free: Vec<usize> =
            self.unknowns.iter().copied().filter(|d| !self.fixed.contains_key(d) && !self.is_tainted(*d)).collect();
        let index: BTreeMap<usize, u32> = free.iter().enumerate().map(|(k, &d)| (d, k as u32)).collect();
        let eqs: Vec<&DEq> = self.eqs.iter().filter(|q| !q.vars.iter().any(|&d| self.is_tainted(d))).collect();
        let rows: Vec<Vec<u32>> =
            eqs.iter().map(|q| q.vars.iter().filter_map(|d| index.get(d).copied()).collect()).collect();
        let assignment = matching(&rows, free.len());
        let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
        for (e, a) in assignment.iter().enumerate() {
            if let Some(v) = a {
                owner.insert(free[*v], e);
            }
        }
        let mut out = Vec::new();
        for (e, q) in eqs.iter().enumerate() {
            if assignment[e].is_some() || q.vars.is_empty() {
                continue;
            }
            out.push(self.defined_again(q, &eqs, &owner));
        }
        let mentioned: BTreeSet<usize> = self.eqs.iter().flat_map(|q| q.vars.iter().copied()).collect();
        let complete = self.balanced && free.iter().all(|d| mentioned.contains(d));
        if !complete {
            for d in self.out.iter_mut().chain(out.iter_mut()) {
                d.severity = super::diagnostic::Severity::Warning;
                d.message.push_str(" (a warning only: this model is not balanced, so it is no simulation model yet)");
            }
        }
        for &d in &free {
            if !mentioned.contains(&d) {
                let scope = self.typer.scope;
                out.push(
                    Diagnostic::warning(
                        Kind::Undefined,
                        scope.decl(d).span(),
                        format!(
                            "no equation defines the {} `{}`: it is taken as a known input",
                            scope.decls[d].ty.name(),
                            scope.key(d)
                        ),
                    )
                    .help("declare it `input` if it comes from outside the model, or give it an equation"),
                );
            }
        }
        self.out.extend(out);
    }

    /// The error for a discrete equation that finds no unknown left to define.
    fn defined_again(&self, q: &DEq, eqs: &[&DEq], owner: &BTreeMap<usize, usize>) -> Diagnostic {
        let scope = self.typer.scope;
        let names: Vec<String> = q.vars.iter().map(|&d| format!("`{}`", scope.key(d))).collect();
        let whens: Vec<&str> = q
            .vars
            .iter()
            .filter_map(|d| self.fixed.get(d))
            .filter(|s| matches!(s, Source::When(_)))
            .map(|s| s.what())
            .collect();
        let message = if whens.len() == q.vars.len() {
            format!("{} is defined both by this equation and by a when-equation", names.join(", "))
        } else {
            format!("this equation defines {} again: each discrete variable is defined once", names.join(", "))
        };
        let mut diag = Diagnostic::error(Kind::Discrete, q.span, message)
            .help("remove one of the definitions (Modelica 3.6 §8.4: one equation per variable)");
        for &d in &q.vars {
            let name = scope.key(d);
            if let Some(source) = self.fixed.get(&d) {
                diag = diag.with(source.span(), format!("`{name}` is defined by this {}", source.what()));
            } else if let Some(&e) = owner.get(&d) {
                diag = diag.with(eqs[e].span, format!("`{name}` is defined by this equation"));
            }
        }
        diag
    }
}

/// The names in `e` that an equation may define: every reference outside `pre(…)`.
fn refs<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Name(_) => out.push(e),
        ExprKind::Ref(r) => {
            out.push(e);
            for p in r.parts.iter() {
                subscript_refs(&p.subscripts, out);
            }
        }
        ExprKind::Call(c) if c.function.text.as_str() == "pre" => {}
        ExprKind::Call(c) => match &c.args {
            FunctionArgs::List { positional, named } => {
                positional.iter().for_each(|a| refs(a, out));
                named.iter().for_each(|a| refs(&a.value, out));
            }
            FunctionArgs::Comprehension(x) => refs(&x.expr, out),
        },
        ExprKind::Unary(_, x) => refs(x, out),
        ExprKind::Binary(_, xs) => xs.iter().for_each(|x| refs(x, out)),
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                refs(c, out);
                refs(v, out);
            }
            refs(&x.else_value, out);
        }
        ExprKind::Range(r) => {
            refs(&r.start, out);
            r.step.iter().for_each(|s| refs(s, out));
            refs(&r.stop, out);
        }
        ExprKind::Array(items) => items.iter().for_each(|x| refs(x, out)),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| refs(x, out)),
        ExprKind::ArrayComprehension(c) => refs(&c.expr, out),
        ExprKind::Tuple(items) => items.iter().flatten().for_each(|x| refs(x, out)),
        ExprKind::Subscripted(x) => {
            refs(&x.base, out);
            subscript_refs(&x.subscripts, out);
        }
        ExprKind::Partial(c) => match &c.args {
            FunctionArgs::List { positional, named } => {
                positional.iter().for_each(|a| refs(a, out));
                named.iter().for_each(|a| refs(&a.value, out));
            }
            FunctionArgs::Comprehension(x) => refs(&x.expr, out),
        },
        ExprKind::Boxed(x) => refs(x, out),
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
    }
}

fn subscript_refs<'e>(subs: &'e [Subscript], out: &mut Vec<&'e Expr>) {
    for s in subs {
        if let Subscript::Expr(e) = s {
            refs(e, out);
        }
    }
}

/// The left-hand sides assigned by the equations of a `when` branch.
pub(super) fn when_targets<'e>(eq: &'e Equation, out: &mut Vec<&'e Expr>) {
    match &eq.kind {
        EquationKind::Simple { lhs, .. } => match &lhs.kind {
            ExprKind::Tuple(items) => out.extend(items.iter().flatten()),
            _ => out.push(lhs),
        },
        EquationKind::If { branches, else_branch } => {
            for (_, body) in branches {
                body.iter().for_each(|e| when_targets(e, out));
            }
            else_branch.iter().flatten().for_each(|e| when_targets(e, out));
        }
        EquationKind::For { body, .. } => body.iter().for_each(|e| when_targets(e, out)),
        _ => {}
    }
}

/// The variables an algorithm statement assigns.
pub(super) fn assigned<'e>(st: &'e Statement, out: &mut Vec<&'e Expr>) {
    match &st.kind {
        StatementKind::Assign { target, .. } => match &target.kind {
            ExprKind::Tuple(items) => out.extend(items.iter().flatten()),
            _ => out.push(target),
        },
        StatementKind::If { branches, else_branch } => {
            for (_, body) in branches {
                body.iter().for_each(|s| assigned(s, out));
            }
            else_branch.iter().flatten().for_each(|s| assigned(s, out));
        }
        StatementKind::For { body, .. } | StatementKind::While { body, .. } => {
            body.iter().for_each(|s| assigned(s, out))
        }
        StatementKind::When { branches } => {
            for (_, body) in branches {
                body.iter().for_each(|s| assigned(s, out));
            }
        }
        StatementKind::Call(_) | StatementKind::Return(_) | StatementKind::Break => {}
    }
}
