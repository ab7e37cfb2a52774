//! AST → [`Mdae`]: picks the model class, classifies its components (unknowns, known
//! values, Boolean candidates for mode variables), turns every real equation into a
//! residual with its guarded incidence, pairs if-equations branch by branch, evaluates
//! static conditions, reads mode invariants from `assert`s and keeps the rest aside.
//!
//! Refused by name: `connect`, for-equations, tuple equations, array unknowns,
//! algorithms assigning a real unknown, if-equations whose branches have different
//! numbers of real equations.

use super::domains::{self, DomainValue};
use super::eval::{Env, Value};
use super::incidence::merge;
use super::{
    Arm, Body, Cond, Equation, Incidence, Invariant, Kept, KeptKind, LowerError, Mdae, Mode, ModeId, ModeKind, VarId,
    Variable,
};
use crate::syntax::SourceFile;
use crate::syntax::ast::*;
use crate::syntax::printer::expr::{expr_to_string, write_cref};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What a name in an equation stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NameKind {
    /// A real unknown of the continuous structure.
    Unknown(VarId),
    /// A known real: parameter, constant, top-level input, discrete real.
    Known,
    /// A non-parameter Boolean variable: a mode variable once used in a condition.
    Boolean,
    /// Integer, String or enumeration variables (not analysed).
    Other,
}

pub(super) struct Lowering<'a> {
    file: &'a SourceFile,
    env: Env<'a>,
    pub(super) kinds: HashMap<String, NameKind>,
    modes: HashMap<String, ModeId>,
    out: Mdae,
    ids: HashMap<u32, u32>,
    /// Non-parameter Integer and enumeration variables, candidates for a finite domain.
    integers: HashSet<String>,
    enumerations: HashSet<String>,
    decl_spans: HashMap<String, crate::syntax::Span>,
    /// Finite domains ([`domains`]); the one-hot modes are made at the first comparison.
    domains: BTreeMap<String, Vec<DomainValue>>,
    /// Inside `noEvent(…)` or `smooth(…)`: conditions generate no events there (omc
    /// makes no zero crossing inside either), and their atoms keep `noEvent`.
    pub(super) no_events: u32,
}

/// A residual under construction: mutually exclusive arms covering every mode.
struct Residual<'a> {
    arms: Vec<(Cond, &'a Expr, &'a Expr)>,
    first: &'a crate::syntax::ast::Equation,
}

/// Lowers the model class of `def` (the last non-function class; inside a Base Modelica
/// package, its last model) into an mDAE.
pub fn lower(def: &StoredDefinition, file: &SourceFile) -> Result<Mdae, LowerError> {
    let class =
        model_class(def).ok_or_else(|| LowerError::new(def.span, "no model or class to analyse in this file"))?;
    let ClassBody::Long(comp) = &class.body else {
        return Err(LowerError::new(class.span, "the model must be a long class definition (`model M … end M;`)"));
    };
    let mut l = Lowering {
        file,
        env: Env { bindings: HashMap::new() },
        kinds: HashMap::new(),
        modes: HashMap::new(),
        out: Mdae { name: class.name.text.as_str().trim_matches('\'').to_string(), ..Mdae::default() },
        ids: HashMap::new(),
        integers: HashSet::new(),
        enumerations: HashSet::new(),
        decl_spans: HashMap::new(),
        domains: BTreeMap::new(),
        no_events: 0,
    };
    let discrete = when_assigned(comp);
    for part in &comp.parts {
        if let ClassPart::Elements { elements, .. } = part {
            for e in elements {
                l.element(e, &discrete)?;
            }
        }
    }
    let declared = |n: &str| l.kinds.contains_key(n);
    let names =
        domains::Names { integers: &l.integers, enumerations: &l.enumerations, declared: &declared, env: &l.env };
    l.domains = domains::infer(comp, &names);
    for part in &comp.parts {
        match part {
            ClassPart::Elements { .. } => {}
            ClassPart::Equations { initial: true, span, .. } => l.keep(KeptKind::InitialEquation, *span),
            ClassPart::Equations { initial: false, equations, .. } => {
                for eq in equations {
                    l.equation(eq)?;
                }
            }
            ClassPart::Algorithm { statements, span, .. } => {
                l.algorithm(statements)?;
                l.keep(KeptKind::Algorithm, *span);
            }
        }
    }
    Ok(l.out)
}

pub(crate) fn model_class(def: &StoredDefinition) -> Option<&ClassDef> {
    match model_location(def)? {
        ModelAt::Top(k) => Some(&def.classes[k]),
        ModelAt::Nested { package, part, element } => match &def.classes[package].body {
            ClassBody::Long(comp) => match &comp.parts[part] {
                ClassPart::Elements { elements, .. } => match &elements[element] {
                    Element::Class(c) => Some(&**c),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        },
    }
}

/// [`model_class`], mutable (for the passes that rewrite the model before lowering).
pub(crate) fn model_class_mut(def: &mut StoredDefinition) -> Option<&mut ClassDef> {
    match model_location(def)? {
        ModelAt::Top(k) => Some(&mut def.classes[k]),
        ModelAt::Nested { package, part, element } => match &mut def.classes[package].body {
            ClassBody::Long(comp) => match &mut comp.parts[part] {
                ClassPart::Elements { elements, .. } => match &mut elements[element] {
                    Element::Class(c) => Some(&mut **c),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        },
    }
}

/// Where the model class sits in the file.
enum ModelAt {
    Top(usize),
    Nested { package: usize, part: usize, element: usize },
}

/// The last long `model`/`class`/`block` of the file, else (Base Modelica:
/// `package 'M' … model 'M' … end 'M'; end 'M';`) the last one nested in a top-level class.
fn model_location(def: &StoredDefinition) -> Option<ModelAt> {
    let is_model = |c: &ClassDef| {
        matches!(c.kind, ClassKind::Class | ClassKind::Model | ClassKind::Block) && matches!(c.body, ClassBody::Long(_))
    };
    if let Some(k) = def.classes.iter().rposition(is_model) {
        return Some(ModelAt::Top(k));
    }
    def.classes.iter().enumerate().rev().find_map(|(package, p)| {
        let ClassBody::Long(comp) = &p.body else { return None };
        comp.parts.iter().enumerate().rev().find_map(|(part, cp)| match cp {
            ClassPart::Elements { elements, .. } => elements
                .iter()
                .rposition(|e| matches!(e, Element::Class(c) if is_model(c)))
                .map(|element| ModelAt::Nested { package, part, element }),
            _ => None,
        })
    })
}

/// Names assigned by when-equations: they are discrete.
fn when_assigned(comp: &Composition) -> Vec<String> {
    let mut out = Vec::new();
    for part in &comp.parts {
        if let ClassPart::Equations { equations, .. } = part {
            domains::walk_equations(equations, false, &mut |lhs, _, continuous| {
                if let Some(n) = ref_name(lhs).filter(|_| !continuous) {
                    out.push(n)
                }
            });
        }
    }
    out
}

/// The variable name `e` refers to, if it is a plain or subscripted reference.
pub(super) fn ref_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.as_str().to_string()),
        ExprKind::Ref(r) => {
            let mut s = String::new();
            write_cref(&mut s, r);
            Some(s)
        }
        _ => None,
    }
}

impl<'a> Lowering<'a> {
    fn keep(&mut self, kind: KeptKind, span: crate::syntax::Span) {
        self.out.kept.push(Kept { kind, span });
    }

    fn element(&mut self, e: &'a Element, discrete: &[String]) -> Result<(), LowerError> {
        let c = match e {
            Element::Component(c) => c,
            Element::Class(_) | Element::Import(_) | Element::Annotation(_) => return Ok(()),
            Element::Extends(x) => return Err(LowerError::new(x.span, "unsupported construct `extends`")),
        };
        let type_name = match &c.type_spec {
            TypeSpec::Name(n) => n.text.as_str().to_string(),
            TypeSpec::Enumeration { .. } => "enumeration".to_string(),
        };
        let fixed_value = c.has(Prefix::Parameter) || c.has(Prefix::Constant);
        for d in c.declarations.iter() {
            let mut name = String::new();
            write_cref(&mut name, &d.name);
            let value = d.modification.as_ref().and_then(|m| m.value.as_ref()).map(|v| &v.expr);
            if fixed_value {
                if let Some(v) = value {
                    self.env.bindings.insert(name.clone(), v);
                }
            }
            let kind = match type_name.as_str() {
                "Real" if fixed_value || c.has(Prefix::Discrete) || c.has(Prefix::Input) => NameKind::Known,
                "Real" if discrete.contains(&name) => NameKind::Known,
                "Real" => {
                    if !c.type_dims.is_empty() || !d.dims.is_empty() {
                        return Err(LowerError::new(
                            d.span,
                            format!("unsupported construct: array variable `{name}` (scalarise the model first)"),
                        ));
                    }
                    let id = VarId(self.out.vars.len() as u32);
                    self.out.vars.push(Variable { name: name.clone(), span: d.span });
                    NameKind::Unknown(id)
                }
                "Boolean" if !fixed_value => NameKind::Boolean,
                "Boolean" => NameKind::Known,
                "Integer" if !fixed_value => {
                    self.integers.insert(name.clone());
                    NameKind::Other
                }
                "String" => NameKind::Other,
                _ if !fixed_value && c.type_dims.is_empty() && d.dims.is_empty() => {
                    // An enumeration (inline or named type) or a record; only an
                    // enumeration can have a domain of literals.
                    self.enumerations.insert(name.clone());
                    NameKind::Other
                }
                _ => NameKind::Other,
            };
            if fixed_value || c.has(Prefix::Discrete) || discrete.contains(&name) || type_name != "Real" {
                self.out.time_invariant.insert(name.clone());
            }
            self.decl_spans.insert(name.clone(), d.span);
            self.kinds.insert(name, kind);
        }
        Ok(())
    }

    fn algorithm(&mut self, statements: &[Statement]) -> Result<(), LowerError> {
        for s in statements {
            match &s.kind {
                StatementKind::Assign { target, .. } => {
                    if let Some(n) = ref_name(target) {
                        if let Some(NameKind::Unknown(_)) = self.kinds.get(&n) {
                            return Err(LowerError::new(
                                s.span,
                                format!("unsupported construct: an algorithm section assigns the real unknown `{n}`"),
                            ));
                        }
                    }
                }
                StatementKind::If { branches, else_branch } => {
                    for (_, b) in branches {
                        self.algorithm(b)?;
                    }
                    if let Some(b) = else_branch {
                        self.algorithm(b)?;
                    }
                }
                StatementKind::For { body, .. } | StatementKind::While { body, .. } => self.algorithm(body)?,
                StatementKind::When { branches } => {
                    for (_, b) in branches {
                        self.algorithm(b)?;
                    }
                }
                StatementKind::Call(_) | StatementKind::Return | StatementKind::Break => {}
            }
        }
        Ok(())
    }

    fn equation(&mut self, eq: &'a crate::syntax::ast::Equation) -> Result<(), LowerError> {
        match &eq.kind {
            EquationKind::When { .. } => self.keep(KeptKind::When, eq.span),
            EquationKind::Connect(_) => {
                return Err(LowerError::new(eq.span, "unsupported construct `connect` (flatten the model first)"));
            }
            EquationKind::For { .. } => {
                return Err(LowerError::new(
                    eq.span,
                    "unsupported construct: for-equation (scalarise the model first)",
                ));
            }
            EquationKind::Call(c) => self.call_equation(eq, c)?,
            EquationKind::Simple { lhs, .. } if self.is_mode_equation(lhs) => {
                self.keep(KeptKind::ModeEquation, eq.span)
            }
            EquationKind::Simple { lhs, .. } if matches!(lhs.kind, ExprKind::Tuple(_)) => {
                return Err(LowerError::new(eq.span, "unsupported construct: tuple equation `(a, b) = f(…)`"));
            }
            EquationKind::Simple { .. } | EquationKind::If { .. } => {
                for r in self.residuals(eq)? {
                    self.push_residual(r)?;
                }
            }
        }
        Ok(())
    }

    fn is_mode_equation(&self, lhs: &Expr) -> bool {
        ref_name(lhs).is_some_and(|n| matches!(self.kinds.get(&n), Some(NameKind::Boolean | NameKind::Other)))
    }

    fn call_equation(&mut self, eq: &crate::syntax::ast::Equation, c: &Call) -> Result<(), LowerError> {
        if c.function.text.as_str() == "assert" {
            if let FunctionArgs::List { positional, .. } = &c.args {
                if let Some(cond) = positional.first() {
                    if self.only_mode_variables(cond) {
                        let cond = self.cond(cond)?;
                        self.out.invariants.push(Invariant { cond, span: eq.span });
                        return Ok(());
                    }
                }
            }
        }
        if c.function.text.as_str() == "reinit" {
            return Err(LowerError::new(eq.span, "`reinit` is only allowed inside a when-equation"));
        }
        self.keep(KeptKind::Call, eq.span);
        Ok(())
    }

    /// True when `e` is built from non-parameter Boolean variables with `and`/`or`/`not`.
    fn only_mode_variables(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(n) => self.kinds.get(n.as_str()) == Some(&NameKind::Boolean),
            ExprKind::Unary(UnOp::Not, x) => self.only_mode_variables(x),
            ExprKind::Binary(BinOp::And | BinOp::Or, xs) => xs.iter().all(|x| self.only_mode_variables(x)),
            ExprKind::Bool(_) => true,
            _ => false,
        }
    }

    /// The residuals of a simple or if-equation (an if-equation pairs its branches).
    fn residuals(&mut self, eq: &'a crate::syntax::ast::Equation) -> Result<Vec<Residual<'a>>, LowerError> {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => Ok(vec![Residual { arms: vec![(Cond::True, lhs, rhs)], first: eq }]),
            EquationKind::If { branches, else_branch } => {
                let mut arms: Vec<(Cond, Vec<Residual<'a>>)> = Vec::new();
                let mut rest = Cond::True;
                for (c, body) in branches {
                    let c = self.cond(c)?;
                    let here = Cond::and(rest.clone(), c.clone());
                    rest = Cond::and(rest, Cond::not(c));
                    if here != Cond::False {
                        arms.push((here, self.branch(body)?));
                    }
                    if rest == Cond::False {
                        break;
                    }
                }
                if rest != Cond::False {
                    let body = else_branch.as_deref().unwrap_or(&[]);
                    arms.push((rest, self.branch(body)?));
                }
                self.pair(eq, arms)
            }
            _ => Ok(Vec::new()),
        }
    }

    fn branch(&mut self, body: &'a [crate::syntax::ast::Equation]) -> Result<Vec<Residual<'a>>, LowerError> {
        let mut out = Vec::new();
        for eq in body {
            match &eq.kind {
                EquationKind::Simple { lhs, .. } if self.is_mode_equation(lhs) => {
                    return Err(LowerError::new(
                        eq.span,
                        "unsupported construct: a mode (Boolean) equation inside a multimode if-equation",
                    ));
                }
                EquationKind::Simple { .. } | EquationKind::If { .. } => out.extend(self.residuals(eq)?),
                EquationKind::Call(c) if c.function.text.as_str() == "assert" => {}
                _ => {
                    return Err(LowerError::new(
                        eq.span,
                        "unsupported construct inside a multimode if-equation (only real equations can be paired)",
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Pairs the i-th residual of every branch into one multimode residual.
    fn pair(
        &mut self,
        eq: &'a crate::syntax::ast::Equation,
        arms: Vec<(Cond, Vec<Residual<'a>>)>,
    ) -> Result<Vec<Residual<'a>>, LowerError> {
        let Some(n) = arms.first().map(|(_, rs)| rs.len()) else { return Ok(Vec::new()) };
        if let Some((_, rs)) = arms.iter().find(|(_, rs)| rs.len() != n) {
            let (l, _) = self.file.line_col(eq.span.start as usize);
            return Err(LowerError::new(
                eq.span,
                format!(
                    "the if-equation at line {l} has branches with different numbers of real equations ({n} and {}); \
                     a multimode equation needs the same count in every branch",
                    rs.len()
                ),
            ));
        }
        let mut out: Vec<Residual<'a>> = Vec::with_capacity(n);
        let mut columns: Vec<Vec<Residual<'a>>> = arms.iter().map(|_| Vec::new()).collect();
        let guards: Vec<Cond> = arms.iter().map(|(c, _)| c.clone()).collect();
        for (k, (_, rs)) in arms.into_iter().enumerate() {
            columns[k] = rs;
        }
        for i in 0..n {
            let mut merged = Vec::new();
            let mut first = None;
            for (k, col) in columns.iter().enumerate() {
                let r = &col[i];
                first.get_or_insert(r.first);
                for (g, l, rr) in &r.arms {
                    let g = Cond::and(guards[k].clone(), g.clone());
                    if g != Cond::False {
                        merged.push((g, *l, *rr));
                    }
                }
            }
            out.push(Residual { arms: merged, first: first.unwrap_or(eq) });
        }
        Ok(out)
    }

    fn push_residual(&mut self, r: Residual<'a>) -> Result<(), LowerError> {
        let mut inc: Vec<Incidence> = Vec::new();
        for (g, l, rr) in &r.arms {
            self.incidence(l, g, 0, &mut inc)?;
            self.incidence(rr, g, 0, &mut inc)?;
        }
        let (line, _) = self.file.line_col(r.first.span.start as usize);
        let id = match &r.first.label {
            Some(label) => label.text.as_str().to_string(),
            None => {
                let n = self.ids.entry(line as u32).or_insert(0);
                *n += 1;
                if *n == 1 { format!("e{line}") } else { format!("e{line}_{n}") }
            }
        };
        let (body, text) = if r.arms.len() == 1 && r.arms[0].0 == Cond::True {
            let (_, l, rr) = &r.arms[0];
            (
                Body::Simple { lhs: (*l).clone(), rhs: (*rr).clone() },
                format!("{} = {}", expr_to_string(l), expr_to_string(rr)),
            )
        } else {
            let arms: Vec<Arm> = r
                .arms
                .iter()
                .map(|(g, l, rr)| Arm { when: g.clone(), lhs: (*l).clone(), rhs: (*rr).clone() })
                .collect();
            let text = self.arms_text(&arms);
            (Body::Arms(arms), text)
        };
        let eq = Equation {
            id,
            line: line as u32,
            span: r.first.span,
            text,
            active: Cond::True,
            incidence: merge(inc),
            body,
        };
        self.out.equations.push(eq);
        Ok(())
    }

    fn arms_text(&self, arms: &[Arm]) -> String {
        let name = |m: ModeId| self.out.modes[m.index()].name.clone();
        let mut s = String::new();
        for (k, a) in arms.iter().enumerate() {
            let eq = format!("{} = {}", expr_to_string(&a.lhs), expr_to_string(&a.rhs));
            if k + 1 == arms.len() && k > 0 {
                s.push_str(&format!(" else {eq}"));
            } else {
                let kw = if k == 0 { "if" } else { " elseif" };
                s.push_str(&format!("{kw} {} then {eq}", a.when.to_modelica(&name)));
            }
        }
        if arms.len() > 1 {
            s.push_str(" end if");
        }
        s
    }

    /// A Boolean condition as a [`Cond`]: static parts evaluated, Boolean variables become
    /// mode variables, any other condition a mode atom (shared by its canonical text).
    pub(super) fn cond(&mut self, e: &Expr) -> Result<Cond, LowerError> {
        let c = self.cond_of(e, self.no_events > 0)?;
        self.out.conditions.entry(expr_to_string(e)).or_insert_with(|| c.clone());
        Ok(c)
    }

    /// [`Lowering::cond`] without its bookkeeping. `no_events`: inside `noEvent(…)` (or
    /// `smooth(…)`), where each relation is an atom that keeps `noEvent` (`noEvent(v >= 0)`),
    /// so that the output evaluates it as the input does, without state events: a flow that
    /// reaches exactly zero leaves the mode `v >= 0` in the input, an event-driven `v >= 0`
    /// (with omc's hysteresis) would not.
    fn cond_of(&mut self, e: &Expr, no_events: bool) -> Result<Cond, LowerError> {
        if let Some(Value::Bool(b)) = self.env.eval(e) {
            return Ok(if b { Cond::True } else { Cond::False });
        }
        let sub = |l: &mut Self, x: &Expr| if no_events { l.cond_of(x, true) } else { l.cond(x) };
        Ok(match &e.kind {
            ExprKind::Bool(b) => {
                if *b {
                    Cond::True
                } else {
                    Cond::False
                }
            }
            ExprKind::Unary(UnOp::Not, x) => Cond::not(sub(self, x)?),
            ExprKind::Binary(BinOp::And, xs) => Cond::and(sub(self, &xs[0])?, sub(self, &xs[1])?),
            ExprKind::Binary(BinOp::Or, xs) => Cond::or(sub(self, &xs[0])?, sub(self, &xs[1])?),
            ExprKind::Call(c) if c.function.text.as_str() == "noEvent" => match &c.args {
                FunctionArgs::List { positional, named } if positional.len() == 1 && named.is_empty() => {
                    self.cond_of(&positional[0], true)?
                }
                _ => self.atom(e),
            },
            ExprKind::Name(n) if self.kinds.get(n.as_str()) == Some(&NameKind::Boolean) => {
                Cond::Mode(self.mode(n.as_str(), ModeKind::Variable))
            }
            ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), xs)
                if self.compare(*op, &xs[0], &xs[1]).is_some() =>
            {
                self.compare(*op, &xs[0], &xs[1]).unwrap_or(Cond::False)
            }
            _ if no_events => {
                let args = FunctionArgs::List { positional: vec![e.clone()].into(), named: Box::new([]) };
                let call = Call { function: Ident { text: text("noEvent"), span: e.span }, args };
                self.atom(&Expr { kind: ExprKind::Call(Box::new(call)), span: e.span })
            }
            _ => self.atom(e),
        })
    }

    /// `k op v` or `v op k` for a variable `k` with a finite domain and a static value `v`:
    /// the disjunction of the one-hot modes `k == w` whose value w satisfies the relation.
    /// `None` when the comparison is not of that form (it is then an atom).
    fn compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<Cond> {
        let (var, value, op) = match (self.domain_var(a), self.domain_var(b)) {
            (Some(k), None) => (k, self.literal(b)?, op),
            (None, Some(k)) => {
                let flipped = match op {
                    BinOp::Lt => BinOp::Gt,
                    BinOp::Le => BinOp::Ge,
                    BinOp::Gt => BinOp::Lt,
                    BinOp::Ge => BinOp::Le,
                    other => other,
                };
                (k, self.literal(a)?, flipped)
            }
            _ => return None,
        };
        let ordered = matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
        if ordered && !matches!(value, DomainValue::Int(_)) {
            return None;
        }
        let domain = self.domains[&var].clone();
        let modes = self.domain_modes(&var);
        let holds = |w: &DomainValue| match op {
            BinOp::Eq => *w == value,
            BinOp::Ne => *w != value,
            BinOp::Lt => w < &value,
            BinOp::Le => w <= &value,
            BinOp::Gt => w > &value,
            _ => w >= &value,
        };
        Some(
            domain
                .iter()
                .zip(modes)
                .filter(|(w, _)| holds(w))
                .fold(Cond::False, |acc, (_, m)| Cond::or(acc, Cond::Mode(m))),
        )
    }

    /// The name of a variable with a finite domain, if `e` is one.
    fn domain_var(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(n) if self.domains.contains_key(n.as_str()) => Some(n.as_str().to_string()),
            _ => None,
        }
    }

    /// A static Integer value or an enumeration literal (a name that is not declared).
    fn literal(&self, e: &Expr) -> Option<DomainValue> {
        match &e.kind {
            ExprKind::Name(n) if !self.kinds.contains_key(n.as_str()) => {
                Some(DomainValue::Literal(n.as_str().to_string()))
            }
            _ => match self.env.eval(e)? {
                Value::Num(v) if v.fract() == 0.0 && v.abs() < 1e15 => Some(DomainValue::Int(v as i64)),
                _ => None,
            },
        }
    }

    /// The one-hot modes `k == w` of `var`'s domain, made (with the exclusivity invariant,
    /// exactly one of them) at the first comparison.
    fn domain_modes(&mut self, var: &str) -> Vec<ModeId> {
        let domain = self.domains[var].clone();
        let key = |w: &DomainValue| format!("{var} == {}", w.text());
        if let Some(first) = self.modes.get(&key(&domain[0])) {
            let first = first.index() as u32;
            return (0..domain.len() as u32).map(|k| ModeId(first + k)).collect();
        }
        let ids: Vec<ModeId> = domain
            .iter()
            .map(|w| {
                let id = ModeId(self.out.modes.len() as u32);
                let kind = ModeKind::Value { var: var.to_string(), value: w.text() };
                self.out.modes.push(Mode { name: key(w), kind });
                self.modes.insert(key(w), id);
                id
            })
            .collect();
        self.out.invariants.push(Invariant { cond: Cond::exactly_one(&ids), span: self.decl_spans[var] });
        ids
    }

    fn atom(&mut self, e: &Expr) -> Cond {
        let text = expr_to_string(e);
        if let Some(m) = self.modes.get(&text) {
            return Cond::Mode(*m);
        }
        let n = self.out.modes.iter().filter(|m| matches!(m.kind, ModeKind::Atom { .. })).count() + 1;
        let mut name = format!("a{n}");
        while self.kinds.contains_key(&name) {
            name.push('_');
        }
        let id = ModeId(self.out.modes.len() as u32);
        self.out.modes.push(Mode { name, kind: ModeKind::Atom { expr: text.clone() } });
        self.out.atom_exprs.insert(id, e.clone());
        self.modes.insert(text, id);
        Cond::Mode(id)
    }

    fn mode(&mut self, name: &str, kind: ModeKind) -> ModeId {
        if let Some(m) = self.modes.get(name) {
            return *m;
        }
        let id = ModeId(self.out.modes.len() as u32);
        self.out.modes.push(Mode { name: name.to_string(), kind });
        self.modes.insert(name.to_string(), id);
        id
    }
}
