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
//!
//! Memory (issue 15: 10^5 equations, at validation's peak): the rows are one packed list
//! of `u32` columns; what only a diagnostic reads — each row's span and the constant a
//! row gives an unknown — is kept only when asked ([`build`]'s `detail`): the check
//! builds the system again, with them, on the rare model it reports.

use super::discrete::when_targets;
use super::matching::{Packed, Rows};
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

/// The continuous system. Its columns (unknowns): `r` for the value of the Real unknown
/// `vars[r]`, `vars.len() + s` for the derivative of the state `vars[states[s]]`.
pub(super) struct System {
    /// The Real unknowns (declaration indices), increasing.
    vars: Vec<u32>,
    /// The states: positions in `vars`, increasing.
    states: Vec<u32>,
    /// The model's equations, then the initial equations, then `x = start` for each
    /// state with `fixed = true`; each row's columns in the order of their unknowns
    /// (declaration, then derivative order), without repetition.
    pub rows: Packed,
    /// The number of the model's equations and of the initial equations among the rows.
    equations: usize,
    initial: usize,
    detail: Option<Detail>,
}

/// What only a diagnostic reads.
struct Detail {
    /// Each row's span.
    spans: Vec<Span>,
    /// `(row, column, c)` for the rows reading `unknown = c`, by row (few rows do).
    values: Vec<(u32, u32, f64)>,
}

impl System {
    /// As many equations as unknowns, and some.
    pub fn balanced(&self) -> bool {
        !self.vars.is_empty() && self.square()
    }

    /// As many equations as unknowns.
    pub fn square(&self) -> bool {
        self.equations == self.vars.len()
    }

    /// The number of the model's equations (the first rows).
    pub fn equations(&self) -> usize {
        self.equations
    }

    /// The number of unknowns: the columns.
    pub fn columns(&self) -> usize {
        self.vars.len() + self.states.len()
    }

    /// The columns of the states' values.
    pub fn state_values(&self) -> impl Iterator<Item = usize> + '_ {
        self.states.iter().map(|&r| r as usize)
    }

    /// The unknown of a column: (declaration, derivative order).
    pub fn unknown(&self, column: usize) -> (usize, u8) {
        match column.checked_sub(self.vars.len()) {
            None => (self.vars[column] as usize, 0),
            Some(s) => (self.vars[self.states[s] as usize] as usize, 1),
        }
    }

    pub fn origin(&self, e: usize) -> Origin {
        if e < self.equations {
            Origin::Equation
        } else if e < self.equations + self.initial {
            Origin::Initial
        } else {
            Origin::Fixed
        }
    }

    /// Row `e`'s span (a system built with `detail`).
    pub fn span(&self, e: usize) -> Option<Span> {
        Some(self.detail.as_ref()?.spans[e])
    }

    /// `(column, c)` when row `e` reads `unknown = c` with `c` a constant (a system built
    /// with `detail`).
    pub fn value(&self, e: usize) -> Option<(usize, f64)> {
        let values = &self.detail.as_ref()?.values;
        let k = values.binary_search_by_key(&(e as u32), |v| v.0).ok()?;
        Some((values[k].1 as usize, values[k].2))
    }
}

/// The rows of one kind while they are read. An entry is `2 r + order` for the unknown
/// `vars[r]` (the columns are known once every equation is read: [`System`]).
struct Part {
    keep: Keep,
    /// The rows read (also when they are only counted).
    count: usize,
    /// The entries of derivatives, when the rows are only counted.
    derivatives: Vec<u32>,
    rows: Packed,
    /// The rows this part will have about (its growth, [`Packed::push_projected`]).
    expected: usize,
    spans: Vec<Span>,
    values: Vec<(u32, u32, f64)>,
}

/// What a build keeps of the rows it reads.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Keep {
    /// Their number ([`balanced`]).
    Count,
    /// Their columns ([`build`]).
    Rows,
    /// Their columns, spans and values ([`build`] for a diagnostic).
    Detail,
}

impl Part {
    fn new(expected: usize, keep: Keep) -> Part {
        let rows = Packed::with_capacity(if keep == Keep::Count { 0 } else { expected }, 0);
        Part { keep, count: 0, derivatives: Vec::new(), rows, expected, spans: Vec::new(), values: Vec::new() }
    }

    fn push(&mut self, row: &[u32], span: Span, value: Option<(u32, f64)>) {
        let keep = self.keep;
        if keep == Keep::Detail {
            if let Some((u, c)) = value {
                self.values.push((self.count as u32, u, c));
            }
            self.spans.push(span);
        }
        match keep {
            Keep::Count => self.derivatives.extend(row.iter().filter(|&&u| u & 1 == 1)),
            Keep::Rows | Keep::Detail => self.rows.push_projected(row, self.expected),
        }
        self.count += 1;
    }
}

/// Not modelled: no continuous check on this model.
struct Bail;

struct Builder<'s, 'a> {
    typer: Typer<'s, 'a>,
    /// In increasing order.
    vars: Vec<u32>,
    keep: Keep,
    /// The row being read (reused: no list per row).
    occ: Vec<u32>,
}

/// The continuous system of the model, or `None` if it has something not modelled; with
/// each row's span and value when `detail` (for a diagnostic).
pub(super) fn build(scope: &Scope, comp: &Composition, detail: bool) -> Option<System> {
    builder(scope, comp, if detail { Keep::Detail } else { Keep::Rows })?.system(comp).ok()
}

/// Whether the model's continuous part is [`System::balanced`], its rows counted only.
pub(super) fn balanced(scope: &Scope, comp: &Composition) -> bool {
    builder(scope, comp, Keep::Count).and_then(|mut b| b.system(comp).ok()).is_some_and(|s| s.balanced())
}

/// Whether the model has initial equations or a declaration with `fixed = true`. If not,
/// its initial system is its equations, and no equation is left over: no rows to keep.
pub(super) fn has_initial(scope: &Scope, comp: &Composition) -> bool {
    let equations = comp
        .parts
        .iter()
        .any(|p| matches!(p, ClassPart::Equations { initial: true, equations, .. } if !equations.is_empty()));
    equations || (0..scope.len()).any(|d| fixed_attribute(scope.decl(d)) == Some(true))
}

/// The builder of the continuous system: its unknowns; `None` if it has something not
/// modelled.
fn builder<'s, 'a>(scope: &'s Scope<'a>, comp: &Composition, keep: Keep) -> Option<Builder<'s, 'a>> {
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
    let mut b = Builder { typer: Typer { scope }, vars: Vec::new(), keep, occ: Vec::new() };
    let discrete_reals: BTreeSet<String> = when_defined.iter().map(|e| super::scope::normalize(&base_of(e))).collect();
    for (d, decl) in scope.decls.iter().enumerate() {
        if decl.is_fixed_value() && fixed_attribute(scope.decl(d)) == Some(false) {
            return None;
        }
        let continuous = decl.ty == Ty::Real
            && !decl.is_fixed_value()
            && !decl.has(Prefix::Input)
            && !decl.has(Prefix::Discrete)
            && !discrete_reals.contains(scope.base(d).as_str());
        if continuous {
            b.vars.push(d as u32);
        }
    }
    b.vars.shrink_to_fit();
    // Entries are `2 r + order` while the rows are read.
    assert!(b.vars.len() < 1 << 31, "fewer than 2^31 unknowns");
    Some(b)
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

/// A row of an if-equation's branch, while the branches are merged.
struct Row {
    span: Span,
    occ: Vec<u32>,
}

impl Builder<'_, '_> {
    fn system(&mut self, comp: &Composition) -> Result<System, Bail> {
        // About a row per equation (a model has 10^5: no room for twice as many).
        let count = |initial: bool| {
            comp.parts
                .iter()
                .map(|p| match p {
                    ClassPart::Equations { initial: i, equations, .. } if *i == initial => equations.len(),
                    _ => 0,
                })
                .sum()
        };
        let keep = self.keep;
        // Counted, the initial equations are still kept: a derivative in them that is not a
        // state's is not modelled.
        let (mut equations, mut initial) =
            (Part::new(count(false), keep), Part::new(count(true), keep.max(Keep::Rows)));
        for part in &comp.parts {
            match part {
                ClassPart::Elements { elements, .. } => self.bindings(elements, &mut equations)?,
                ClassPart::Equations { initial: init, equations: eqs, .. } => {
                    let rows = if *init { &mut initial } else { &mut equations };
                    for eq in eqs {
                        self.equation(eq, rows)?;
                    }
                }
                ClassPart::Algorithm { statements, .. } => self.algorithm(statements)?,
                ClassPart::StateMachine(_) => return Err(Bail),
            }
        }
        // The states: the unknowns whose derivative a model's equation reads.
        let entries = if keep == Keep::Count { &equations.derivatives[..] } else { equations.rows.items() };
        let mut states: Vec<u32> = entries.iter().filter(|&&u| u & 1 == 1).map(|&u| u >> 1).collect();
        states.sort_unstable();
        states.dedup();
        states.shrink_to_fit();
        let is_state = |r: u32| states.binary_search(&r).is_ok();
        if initial.rows.items().iter().any(|&u| u & 1 == 1 && !is_state(u >> 1)) {
            return Err(Bail);
        }
        let (n, m) = (equations.count, initial.count);
        if keep == Keep::Count {
            let (vars, rows) = (std::mem::take(&mut self.vars), Packed::with_capacity(0, 0));
            return Ok(System { vars, states, rows, equations: n, initial: m, detail: None });
        }
        let mut rows = equations.rows;
        rows.append(&initial.rows);
        drop(initial.rows);
        let mut spans = equations.spans;
        spans.extend_from_slice(&initial.spans);
        let mut values = equations.values;
        values.extend(initial.values.iter().map(|&(e, u, c)| (e + n as u32, u, c)));
        for &r in &states {
            let decl = self.typer.scope.decl(self.vars[r as usize] as usize);
            if fixed_attribute(decl) == Some(true) {
                if keep == Keep::Detail {
                    if let Some(v) = attribute(decl, "start").and_then(constant) {
                        values.push((Rows::len(&rows) as u32, 2 * r, v));
                    }
                    spans.push(decl.span());
                }
                rows.push([2 * r]);
            }
        }
        rows.shrink_to_fit();
        // The columns: a value is its unknown's position, a derivative follows them all.
        let column = |u: u32| match u & 1 {
            0 => u >> 1,
            _ => (self.vars.len() + states.binary_search(&(u >> 1)).expect("a state")) as u32,
        };
        for u in rows.items_mut() {
            *u = column(*u);
        }
        for v in &mut values {
            v.1 = column(v.1);
        }
        let detail = (keep == Keep::Detail).then_some(Detail { spans, values });
        let vars = std::mem::take(&mut self.vars);
        Ok(System { vars, states, rows, equations: n, initial: m, detail })
    }

    fn bindings(&mut self, elements: &[Element], rows: &mut Part) -> Result<(), Bail> {
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
                if let Some(v) = self.simple(&lhs, &value.expr)? {
                    rows.push(&self.occ, d.span(), v);
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

    fn equation(&mut self, eq: &Equation, rows: &mut Part) -> Result<(), Bail> {
        if let EquationKind::Simple { lhs, rhs } = &eq.kind {
            if let Some(v) = self.simple(lhs, rhs)? {
                rows.push(&self.occ, eq.span(), v);
            }
            return Ok(());
        }
        let mut some = Vec::new();
        self.rows(eq, &mut some)?;
        some.into_iter().for_each(|r| rows.push(&r.occ, r.span, None));
        Ok(())
    }

    /// The rows of `eq` (an if-equation's, merged branch by branch).
    fn rows(&mut self, eq: &Equation, rows: &mut Vec<Row>) -> Result<(), Bail> {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                if self.simple(lhs, rhs)?.is_some() {
                    rows.push(Row { span: eq.span(), occ: self.occ.clone() });
                }
            }
            EquationKind::If { branches, else_branch } => {
                let mut arms: Vec<Vec<Row>> = Vec::new();
                for (_, body) in branches {
                    let mut arm = Vec::new();
                    for e in body {
                        self.rows(e, &mut arm)?;
                    }
                    arms.push(arm);
                }
                let mut arm = Vec::new();
                for e in else_branch.iter().flatten() {
                    self.rows(e, &mut arm)?;
                }
                arms.push(arm);
                let n = arms[0].len();
                if arms.iter().any(|a| a.len() != n) {
                    return Err(Bail);
                }
                for k in 0..n {
                    let mut occ: Vec<u32> = arms.iter().flat_map(|a| a[k].occ.iter().copied()).collect();
                    occ.sort_unstable();
                    occ.dedup();
                    rows.push(Row { span: arms[0][k].span, occ });
                }
            }
            EquationKind::For { .. } | EquationKind::Connect(_) => return Err(Bail),
            EquationKind::When { .. } | EquationKind::Call(_) => {}
        }
        Ok(())
    }

    /// `lhs = rhs` as a row in [`Builder::occ`], with the constant it gives an unknown
    /// (`Some(None)` if none); `None` if it is a discrete equation.
    fn simple(&mut self, lhs: &Expr, rhs: &Expr) -> Result<Option<Option<(u32, f64)>>, Bail> {
        if matches!(lhs.kind, ExprKind::Tuple(_)) {
            return Err(Bail);
        }
        match equation_type(self.typer.of(lhs, &[]), self.typer.of(rhs, &[])) {
            EqType::Discrete => return Ok(None),
            EqType::Unclear => return Err(Bail),
            EqType::Real => {}
        }
        let mut occ = std::mem::take(&mut self.occ);
        occ.clear();
        let found = self.incidence(lhs, 0, &mut occ).and_then(|()| self.incidence(rhs, 0, &mut occ));
        occ.sort_unstable();
        occ.dedup();
        self.occ = occ;
        found?;
        if self.occ.is_empty() {
            return Err(Bail);
        }
        let value = match self.keep == Keep::Detail {
            true => self.assigned_value(lhs, rhs).or_else(|| self.assigned_value(rhs, lhs)),
            false => None,
        };
        Ok(Some(value))
    }

    /// `v = c` or `der(v) = c` with `c` a constant: `(2 r + order, c)` for `v = vars[r]`.
    fn assigned_value(&self, side: &Expr, other: &Expr) -> Option<(u32, f64)> {
        let c = constant(other)?;
        match &side.kind {
            ExprKind::Call(call) if call.function.text.as_str() == "der" => match &call.args {
                FunctionArgs::List { positional, named } if positional.len() == 1 && named.is_empty() => {
                    match self.occ(&positional[0]) {
                        Occ::Var(r) => Some((2 * r + 1, c)),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => match self.occ(side) {
                Occ::Var(r) => Some((2 * r, c)),
                _ => None,
            },
        }
    }

    /// The unknowns in `e` with their derivative order (`pre(…)` excluded): `2 r + order`.
    fn incidence(&self, e: &Expr, order: u8, out: &mut Vec<u32>) -> Result<(), Bail> {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                match self.occ(e) {
                    Occ::Var(r) => out.push(2 * r + u32::from(order)),
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

    fn subscripts(&self, subs: &[Subscript], out: &mut Vec<u32>) -> Result<(), Bail> {
        for s in subs {
            if let Subscript::Expr(e) = s {
                self.incidence(e, 0, out)?;
            }
        }
        Ok(())
    }

    /// The position of `d` among the Real unknowns, if it is one.
    fn var(&self, d: usize) -> Option<u32> {
        self.vars.binary_search(&(d as u32)).ok().map(|r| r as u32)
    }

    fn occ(&self, e: &Expr) -> Occ {
        let scope = self.typer.scope;
        let (base, key) = match &e.kind {
            ExprKind::Name(n) => (n.as_str().to_string(), n.as_str().to_string()),
            ExprKind::Ref(r) => cref_names(r),
            _ => return Occ::Bail,
        };
        match scope.resolve(&base) {
            Some(Resolved::Var(ds)) => match ds.iter().map(|&d| d as usize).find(|&d| scope.key(d) == key) {
                Some(d) => self.var(d).map_or(Occ::Known, Occ::Var),
                None if ds.iter().any(|&d| self.var(d as usize).is_some()) => Occ::Bail,
                None => Occ::Known,
            },
            Some(Resolved::Aggregate | Resolved::Field(_)) => {
                let prefix = super::scope::normalize(&base);
                let under = |d: &u32| {
                    let b = scope.base(*d as usize).as_str();
                    b == prefix || b.strip_prefix(prefix.as_str()).is_some_and(|r| r.starts_with('.'))
                };
                if self.vars.iter().any(under) { Occ::Bail } else { Occ::Known }
            }
            None => Occ::Bail,
            _ => Occ::Known,
        }
    }
}

enum Occ {
    /// The Real unknown `vars[r]`.
    Var(u32),
    Known,
    Bail,
}
