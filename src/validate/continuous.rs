//! The continuous part of the model as a structure (Σ-method, order 0 or 1): the Real
//! unknowns, the states (whose derivative appears), the equations with the unknowns and
//! derivatives in them, and the initial equations (the `initial equation` sections and
//! `fixed = true` on a state). Read by the initial-system check ([`super::initial`]) and,
//! as *balanced* (as many equations as unknowns), by the discrete check.
//!
//! Conservative: [`build`] gives `None` — no check — for anything it does not model
//! exactly: arrays or records met as a whole, for-equations, tuple equations, algorithms
//! assigning Reals, if-equations whose branches differ in count, equations mixing a Real
//! and a discrete side, equations without an unknown, second derivatives, parameters with
//! `fixed = false` (unknowns of the initial system).

use super::discrete::when_targets;
use super::matching::Packed;
use super::scope::{Resolved, Scope, cref_names};
use super::types::{EqType, Ty, Typer, constant, equation_type};
use crate::syntax::Span;
use crate::syntax::ast::*;
use std::collections::BTreeSet;

/// Where a row of the system comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    Equation,
    Initial,
    /// `fixed = true` on a state: `x = start`.
    Fixed,
}

/// An unknown: `(declaration, order)`, the declaration's index as `u32` (a row per
/// equation, 10^5 of them).
pub(super) type Unknown = (u32, u8);

/// One equation while it is read: its unknowns and, when it reads `v = constant`
/// (`der(v) = constant`), that value; kept in [`Rows`].
#[derive(Clone, Debug)]
struct Row {
    span: Span,
    origin: Origin,
    /// Sorted, without repetition.
    occ: Vec<Unknown>,
    value: Option<(Unknown, f64)>,
}

/// The rows of a system, one after the other (a model has 10^5 equations: no struct and
/// no list per row; validation's peak, issue 15).
#[derive(Debug)]
pub(super) struct Rows {
    spans: Vec<Span>,
    origins: Vec<Origin>,
    /// Row e's unknowns are `occ[start[e]..start[e + 1]]`, sorted, without repetition.
    start: Vec<u32>,
    occ: Vec<Unknown>,
    /// `(row, unknown, c)` for the rows reading `unknown = c`, by row (few rows do).
    values: Vec<(u32, Unknown, f64)>,
}

impl Rows {
    fn with_capacity(rows: usize) -> Rows {
        let mut start = Vec::with_capacity(rows + 1);
        start.push(0);
        Rows {
            spans: Vec::with_capacity(rows),
            origins: Vec::with_capacity(rows),
            start,
            occ: Vec::new(),
            values: Vec::new(),
        }
    }

    fn push(&mut self, row: Row) {
        if let Some((u, c)) = row.value {
            self.values.push((self.spans.len() as u32, u, c));
        }
        self.spans.push(row.span);
        self.origins.push(row.origin);
        self.occ.extend_from_slice(&row.occ);
        self.start.push(self.occ.len() as u32);
    }

    /// Without the doubling's slack (held through the initial-system check).
    fn shrink_to_fit(&mut self) {
        self.spans.shrink_to_fit();
        self.origins.shrink_to_fit();
        self.start.shrink_to_fit();
        self.occ.shrink_to_fit();
        self.values.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Every row's unknowns in turn.
    pub fn all(&self) -> impl Iterator<Item = &[Unknown]> {
        (0..self.len()).map(|e| self.occ(e))
    }

    pub fn occ(&self, e: usize) -> &[Unknown] {
        &self.occ[self.start[e] as usize..self.start[e + 1] as usize]
    }

    pub fn span(&self, e: usize) -> Span {
        self.spans[e]
    }

    pub fn origin(&self, e: usize) -> Origin {
        self.origins[e]
    }

    /// `(v, c)` when row `e` reads `v = c` with `c` a constant.
    pub fn value(&self, e: usize) -> Option<(Unknown, f64)> {
        let k = self.values.binary_search_by_key(&(e as u32), |v| v.0).ok()?;
        Some((self.values[k].1, self.values[k].2))
    }
}

/// Declaration indices as a sorted list (`u32`): a set of 10^5 in 0.4 MB.
#[derive(Debug, Default)]
pub(super) struct Decls(Vec<u32>);

impl Decls {
    pub fn contains(&self, d: usize) -> bool {
        self.0.binary_search(&(d as u32)).is_ok()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().map(|&d| d as usize)
    }
}

pub(super) struct System {
    /// The Real unknowns (declaration indices).
    pub vars: Decls,
    /// The unknowns whose derivative appears in an equation.
    pub states: Decls,
    pub equations: Rows,
    pub initial: Rows,
}

impl System {
    /// As many equations as unknowns, and some.
    pub fn balanced(&self) -> bool {
        !self.vars.is_empty() && self.equations.len() == self.vars.len()
    }
}

/// Not modelled: no continuous check on this model.
struct Bail;

struct Builder<'s, 'a> {
    typer: Typer<'s, 'a>,
    /// In increasing order.
    vars: Vec<u32>,
}

/// The continuous system of the model, or `None` if it has something not modelled.
pub(super) fn build(scope: &Scope, comp: &Composition) -> Option<System> {
    let mut when_defined = Vec::new();
    for part in &comp.parts {
        if let ClassPart::Equations { initial: false, equations, .. } = part {
            for eq in equations {
                if let EquationKind::When { branches } = &eq.kind {
                    for (_, body) in branches {
                        body.iter().for_each(|e| when_targets(e, &mut when_defined));
                    }
                }
            }
        }
    }
    let mut b = Builder { typer: Typer { scope }, vars: Vec::new() };
    let discrete_reals: BTreeSet<String> = when_defined.iter().map(|e| super::scope::normalize(&base_of(e))).collect();
    for (d, decl) in scope.decls.iter().enumerate() {
        if decl.is_fixed_value() && fixed_attribute(decl.decl) == Some(false) {
            return None;
        }
        let continuous = decl.ty == Ty::Real
            && !decl.is_fixed_value()
            && !decl.has(Prefix::Input)
            && !decl.has(Prefix::Discrete)
            && !discrete_reals.contains(decl.base.as_str());
        if continuous {
            b.vars.push(d as u32);
        }
    }
    b.vars.shrink_to_fit();
    b.system(comp).ok()
}

fn base_of(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.as_str().to_string(),
        ExprKind::Ref(r) => cref_names(r).0,
        _ => String::new(),
    }
}

/// The literal value of a declaration's `fixed` attribute.
fn fixed_attribute(d: &Declaration) -> Option<bool> {
    attribute(d, "fixed").and_then(|v| match v.kind {
        ExprKind::Bool(b) => Some(b),
        _ => None,
    })
}

fn attribute<'d>(d: &'d Declaration, name: &str) -> Option<&'d Expr> {
    let cm = d.modification.as_ref()?.class_mod.as_ref()?;
    cm.args.iter().find(|a| a.name.text.as_str() == name)?.value.as_ref()
}

impl Builder<'_, '_> {
    fn system(&mut self, comp: &Composition) -> Result<System, Bail> {
        // About a row per equation (a model has 10^5: no room for twice as many).
        let mut equations = Rows::with_capacity(
            comp.parts
                .iter()
                .map(|p| match p {
                    ClassPart::Equations { initial: false, equations, .. } => equations.len(),
                    _ => 0,
                })
                .sum(),
        );
        let mut initial = Rows::with_capacity(0);
        for part in &comp.parts {
            match part {
                ClassPart::Elements { elements, .. } => self.bindings(elements, &mut equations)?,
                ClassPart::Equations { initial: init, equations: eqs, .. } => {
                    let (rows, origin) =
                        if *init { (&mut initial, Origin::Initial) } else { (&mut equations, Origin::Equation) };
                    for eq in eqs {
                        self.equation(eq, origin, rows)?;
                    }
                }
                ClassPart::Algorithm { statements, .. } => self.algorithm(statements)?,
                ClassPart::StateMachine(_) => return Err(Bail),
            }
        }
        let mut states: Vec<u32> = equations.occ.iter().filter(|(_, o)| *o == 1).map(|&(d, _)| d).collect();
        states.sort_unstable();
        states.dedup();
        states.shrink_to_fit();
        let states = Decls(states);
        if initial.occ.iter().any(|&(d, o)| o == 1 && !states.contains(d as usize)) {
            return Err(Bail);
        }
        for d in states.iter() {
            let decl = self.typer.scope.decls[d].decl;
            if fixed_attribute(decl) == Some(true) {
                let value = attribute(decl, "start").and_then(constant).map(|v| ((d as u32, 0), v));
                initial.push(Row { span: decl.span(), origin: Origin::Fixed, occ: vec![(d as u32, 0)], value });
            }
        }
        equations.shrink_to_fit();
        initial.shrink_to_fit();
        Ok(System { vars: Decls(std::mem::take(&mut self.vars)), states, equations, initial })
    }

    fn bindings(&mut self, elements: &[Element], rows: &mut Rows) -> Result<(), Bail> {
        for e in elements {
            let Element::Component(c) = e else { continue };
            if c.has(Prefix::Parameter) || c.has(Prefix::Constant) {
                continue;
            }
            for d in c.declarations() {
                let Some(value) = d.modification.as_ref().and_then(|m| m.value.as_ref()) else { continue };
                if d.compound_name().is_some() || !d.dims.is_empty() {
                    if self.typer.scope.type_of(&c.type_spec()) == Ty::Real {
                        return Err(Bail);
                    }
                    continue;
                }
                let lhs = Expr::new(ExprKind::Name(d.ident().text), d.name_span());
                if let Some(row) = self.simple(&lhs, &value.expr, d.span(), Origin::Equation)? {
                    rows.push(row);
                }
            }
        }
        Ok(())
    }

    fn algorithm(&mut self, statements: &[Statement]) -> Result<(), Bail> {
        let mut targets = Vec::new();
        statements.iter().for_each(|s| super::discrete::assigned(s, &mut targets));
        for t in targets {
            if !matches!(self.occ(t), Occ::Known) {
                return Err(Bail);
            }
        }
        Ok(())
    }

    fn equation(&mut self, eq: &Equation, origin: Origin, rows: &mut Rows) -> Result<(), Bail> {
        if let EquationKind::Simple { lhs, rhs } = &eq.kind {
            if let Some(row) = self.simple(lhs, rhs, eq.span(), origin)? {
                rows.push(row);
            }
            return Ok(());
        }
        let mut some = Vec::new();
        self.rows(eq, origin, &mut some)?;
        some.into_iter().for_each(|r| rows.push(r));
        Ok(())
    }

    /// The rows of `eq` (an if-equation's, merged branch by branch).
    fn rows(&mut self, eq: &Equation, origin: Origin, rows: &mut Vec<Row>) -> Result<(), Bail> {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                if let Some(row) = self.simple(lhs, rhs, eq.span(), origin)? {
                    rows.push(row);
                }
            }
            EquationKind::If { branches, else_branch } => {
                let mut arms: Vec<Vec<Row>> = Vec::new();
                for (_, body) in branches {
                    let mut arm = Vec::new();
                    for e in body {
                        self.rows(e, origin, &mut arm)?;
                    }
                    arms.push(arm);
                }
                let mut arm = Vec::new();
                for e in else_branch.iter().flatten() {
                    self.rows(e, origin, &mut arm)?;
                }
                arms.push(arm);
                let n = arms[0].len();
                if arms.iter().any(|a| a.len() != n) {
                    return Err(Bail);
                }
                for k in 0..n {
                    let occ = arms.iter().flat_map(|a| a[k].occ.iter().copied()).collect();
                    rows.push(Row { span: arms[0][k].span, origin, occ: sorted(occ), value: None });
                }
            }
            EquationKind::For { .. } | EquationKind::Connect(_) => return Err(Bail),
            EquationKind::When { .. } | EquationKind::Call(_) => {}
        }
        Ok(())
    }

    /// `lhs = rhs` as a row, `None` if it is a discrete equation.
    fn simple(&mut self, lhs: &Expr, rhs: &Expr, span: Span, origin: Origin) -> Result<Option<Row>, Bail> {
        if matches!(lhs.kind, ExprKind::Tuple(_)) {
            return Err(Bail);
        }
        match equation_type(self.typer.of(lhs, &[]), self.typer.of(rhs, &[])) {
            EqType::Discrete => return Ok(None),
            EqType::Unclear => return Err(Bail),
            EqType::Real => {}
        }
        let mut occ = Vec::new();
        self.incidence(lhs, 0, &mut occ)?;
        self.incidence(rhs, 0, &mut occ)?;
        if occ.is_empty() {
            return Err(Bail);
        }
        let value = self.assigned_value(lhs, rhs).or_else(|| self.assigned_value(rhs, lhs));
        Ok(Some(Row { span, origin, occ: sorted(occ), value }))
    }

    /// `v = c` or `der(v) = c` with `c` a constant: `((v, order), c)`.
    fn assigned_value(&self, side: &Expr, other: &Expr) -> Option<(Unknown, f64)> {
        let c = constant(other)?;
        match &side.kind {
            ExprKind::Call(call) if call.function.text.as_str() == "der" => match &call.args {
                FunctionArgs::List { positional, named } if positional.len() == 1 && named.is_empty() => {
                    match self.occ(&positional[0]) {
                        Occ::Var(d) => Some(((d as u32, 1), c)),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => match self.occ(side) {
                Occ::Var(d) => Some(((d as u32, 0), c)),
                _ => None,
            },
        }
    }

    /// The unknowns in `e` with their derivative order (`pre(…)` excluded).
    fn incidence(&self, e: &Expr, order: u8, out: &mut Vec<Unknown>) -> Result<(), Bail> {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                match self.occ(e) {
                    Occ::Var(d) => out.push((d as u32, order)),
                    Occ::Known => {}
                    Occ::Bail => return Err(Bail),
                }
                if let ExprKind::Ref(r) = &e.kind {
                    for p in r.parts.iter() {
                        self.subscripts(&p.subscripts, out)?;
                    }
                }
            }
            ExprKind::Call(c) => {
                let name = c.function.text.as_str();
                if name == "pre" {
                    return Ok(());
                }
                let order = if name == "der" { order + 1 } else { order };
                if order > 1 {
                    return Err(Bail);
                }
                match &c.args {
                    FunctionArgs::List { positional, named } => {
                        for a in positional.iter().chain(named.iter().map(|n| &n.value)) {
                            self.incidence(a, order, out)?;
                        }
                    }
                    FunctionArgs::Comprehension(_) => return Err(Bail),
                }
            }
            ExprKind::Unary(_, x) => self.incidence(x, order, out)?,
            ExprKind::Binary(_, xs) => {
                for x in xs.iter() {
                    self.incidence(x, order, out)?;
                }
            }
            ExprKind::If(x) => {
                for (c, v) in &x.branches {
                    self.incidence(c, order, out)?;
                    self.incidence(v, order, out)?;
                }
                self.incidence(&x.else_value, order, out)?;
            }
            ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
            _ => return Err(Bail),
        }
        Ok(())
    }

    fn subscripts(&self, subs: &[Subscript], out: &mut Vec<Unknown>) -> Result<(), Bail> {
        for s in subs {
            if let Subscript::Expr(e) = s {
                self.incidence(e, 0, out)?;
            }
        }
        Ok(())
    }

    /// `d` is a Real unknown.
    fn var(&self, d: usize) -> bool {
        self.vars.binary_search(&(d as u32)).is_ok()
    }

    fn occ(&self, e: &Expr) -> Occ {
        let scope = self.typer.scope;
        let (base, key) = match &e.kind {
            ExprKind::Name(n) => (n.as_str().to_string(), n.as_str().to_string()),
            ExprKind::Ref(r) => cref_names(r),
            _ => return Occ::Bail,
        };
        match scope.resolve(&base) {
            Some(Resolved::Var(ds)) => match ds.iter().find(|&&d| scope.decls[d].key == key) {
                Some(&d) if self.var(d) => Occ::Var(d),
                Some(_) => Occ::Known,
                None if ds.iter().any(|&d| self.var(d)) => Occ::Bail,
                None => Occ::Known,
            },
            Some(Resolved::Aggregate | Resolved::Field(_)) => {
                let prefix = super::scope::normalize(&base);
                let under = |d: &u32| {
                    let b = &scope.decls[*d as usize].base;
                    b == &prefix || b.strip_prefix(prefix.as_str()).is_some_and(|r| r.starts_with('.'))
                };
                if self.vars.iter().any(under) { Occ::Bail } else { Occ::Known }
            }
            None => Occ::Bail,
            _ => Occ::Known,
        }
    }
}

enum Occ {
    Var(usize),
    Known,
    Bail,
}

/// `occ` sorted, without repetition.
fn sorted(mut occ: Vec<Unknown>) -> Vec<Unknown> {
    occ.sort_unstable();
    occ.dedup();
    occ
}

/// The unknowns of the equations `rows` in one index space: `(declaration, order)` pairs
/// in order of first appearance. `decls`: the number of declarations (orders are 0 or 1);
/// `size`: at least the number of rows, of their entries, and of unknowns (the arrays are
/// made at that length, never doubled).
pub(super) fn columns<R: IntoIterator<Item = Unknown>>(
    rows: impl Iterator<Item = R>,
    decls: usize,
    size: (usize, usize, usize),
) -> (Packed, Vec<Unknown>) {
    let mut index = vec![u32::MAX; 2 * decls];
    let mut names = Vec::with_capacity(size.2);
    let mut packed = Packed::with_capacity(size.0, size.1);
    for r in rows {
        packed.push(r.into_iter().map(|(d, o)| {
            let at = &mut index[2 * d as usize + o as usize];
            if *at == u32::MAX {
                *at = names.len() as u32;
                names.push((d, o));
            }
            *at
        }));
    }
    (packed, names)
}
