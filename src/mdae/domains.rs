//! Finite domains of Integer and enumeration mode variables (issue 3, point 5).
//!
//! A non-parameter Integer or enumeration variable `k` has a finite domain when every
//! definition of it is a tree of if-expressions whose leaves are literals (`1`, `-2`,
//! `E.a`), static parameters, or `pre(k)`/`k` itself: `Integer state = if time <= 0.5 then
//! 1 else 2`, `when c then k = 2; end when;`. Definitions: its binding, its `start`
//! modifier, the equations `k = …` (also inside if- and when-equations) and the algorithm
//! assignments `k := …`. A variable assigned only inside when-clauses starts at its
//! `start` value; without one, an Integer starts at 0 and an enumeration has no domain
//! (its first literal is not known here). Any other definition (`k = pre(k) + 1`, an
//! input without definition) leaves `k` without a domain: its comparisons stay atoms.
//!
//! The lowering encodes a domain one-hot: one mode `k == v` per value, with the
//! exclusivity invariant "exactly one of them" in χ_M.

use crate::flat::eval::{Env, Value};
use crate::syntax::ast::{
    ClassPart, Composition, Element, Equation, EquationKind, Expr, ExprKind, FunctionArgs, Statement, StatementKind,
    UnOp,
};
use crate::syntax::printer::expr::write_cref;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// One value of a domain: integers ordered numerically, enumeration literals by text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DomainValue {
    Int(i64),
    Literal(String),
}

impl DomainValue {
    pub fn text(&self) -> String {
        match self {
            DomainValue::Int(v) => v.to_string(),
            DomainValue::Literal(s) => s.clone(),
        }
    }
}

/// What the inference needs to know about the model's names.
pub(super) struct Names<'n, 'a> {
    /// Non-parameter Integer variables.
    pub integers: &'n HashSet<crate::syntax::ast::Text>,
    /// Non-parameter enumeration variables.
    pub enumerations: &'n HashSet<crate::syntax::ast::Text>,
    /// Every declared component (so a name that is not one is an enumeration literal).
    pub declared: &'n dyn Fn(&str) -> bool,
    pub env: &'n Env<'a>,
}

/// The domain of every candidate variable that has one (values sorted, at least one).
pub(super) fn infer(comp: &Composition, names: &Names) -> BTreeMap<String, Vec<DomainValue>> {
    // var → (values so far or None when not finite, defined outside when-clauses).
    let mut defs: BTreeMap<String, (Option<BTreeSet<DomainValue>>, bool)> = BTreeMap::new();
    let is_candidate = |n: &str| names.integers.contains(n) || names.enumerations.contains(n);
    let mut add = |var: &str, e: &Expr, continuous: bool| {
        let entry = defs.entry(var.to_string()).or_insert((Some(BTreeSet::new()), false));
        entry.1 |= continuous;
        let vals = values(e, var, names);
        entry.0 = match (entry.0.take(), vals) {
            (Some(mut acc), Some(v)) => {
                acc.extend(v);
                Some(acc)
            }
            _ => None,
        };
    };
    let mut starts: BTreeMap<String, &Expr> = BTreeMap::new();
    for part in &comp.parts {
        match part {
            ClassPart::Elements { elements, .. } => {
                for el in elements {
                    let Element::Component(c) = el else { continue };
                    for d in c.declarations() {
                        let mut name = String::new();
                        write_cref(&mut name, &d.name());
                        if !is_candidate(&name) {
                            continue;
                        }
                        let Some(m) = &d.modification else { continue };
                        if let Some(v) = &m.value {
                            add(&name, &v.expr, true);
                        }
                        let args = m.class_mod.iter().flat_map(|cm| cm.args.iter());
                        for a in args.filter(|a| a.name.text.as_str() == "start") {
                            if let Some(v) = &a.value {
                                starts.insert(name.clone(), v);
                            }
                        }
                    }
                }
            }
            ClassPart::Equations { initial: false, equations, .. } => {
                walk_equations(equations, false, &mut |lhs, e, continuous| {
                    if let ExprKind::Name(var) = &lhs.kind
                        && is_candidate(var.as_str())
                    {
                        add(var.as_str(), e, continuous)
                    }
                });
            }
            ClassPart::Equations { initial: true, .. } => {}
            ClassPart::Algorithm { statements, initial: false, .. } => {
                walk_statements(statements, false, &mut |var, e, continuous| {
                    if is_candidate(var) {
                        add(var, e, continuous)
                    }
                });
            }
            ClassPart::Algorithm { initial: true, .. } => {}
            ClassPart::StateMachine(_) => {}
        }
    }
    let mut out = BTreeMap::new();
    for (var, (vals, continuous)) in defs {
        let Some(mut vals) = vals else { continue };
        if !continuous {
            match (starts.get(&var), names.integers.contains(var.as_str())) {
                (Some(s), _) => match values(s, &var, names) {
                    Some(v) => vals.extend(v),
                    None => continue,
                },
                (None, true) => {
                    vals.insert(DomainValue::Int(0));
                }
                (None, false) => continue,
            }
        }
        let ints = vals.iter().filter(|v| matches!(v, DomainValue::Int(_))).count();
        let consistent = if names.integers.contains(var.as_str()) { ints == vals.len() } else { ints == 0 };
        if consistent && !vals.is_empty() {
            out.insert(var, vals.into_iter().collect());
        }
    }
    out
}

/// The literal values `e` can take as a definition of `var`, or `None` if not finite.
fn values(e: &Expr, var: &str, names: &Names) -> Option<Vec<DomainValue>> {
    match &e.kind {
        ExprKind::Name(n) if n.as_str() == var => Some(Vec::new()),
        ExprKind::Name(n) if !(names.declared)(n.as_str()) => Some(vec![DomainValue::Literal(n.as_str().to_string())]),
        ExprKind::Call(c) if c.function.text.as_str() == "pre" => match &c.args {
            FunctionArgs::List { positional, named } if named.is_empty() && positional.len() == 1 => {
                matches!(&positional[0].kind, ExprKind::Name(n) if n.as_str() == var).then(Vec::new)
            }
            _ => None,
        },
        ExprKind::If(x) => {
            let mut out = Vec::new();
            for (_, branch) in &x.branches {
                out.extend(values(branch, var, names)?);
            }
            out.extend(values(&x.else_value, var, names)?);
            Some(out)
        }
        ExprKind::Number(_) | ExprKind::Name(_) | ExprKind::Unary(UnOp::Neg | UnOp::Plus, _) => {
            match names.env.eval(e)? {
                Value::Num(v) if v.fract() == 0.0 && v.abs() < 1e15 => Some(vec![DomainValue::Int(v as i64)]),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Calls `def(lhs, rhs, continuous)` for every equation `lhs = rhs`, also inside if- and
/// when-equations (continuous = not inside a when). The lowering uses it too, to find the
/// reals assigned in when-equations.
pub(super) fn walk_equations(eqs: &[Equation], in_when: bool, def: &mut dyn FnMut(&Expr, &Expr, bool)) {
    for eq in eqs {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => def(lhs, rhs, !in_when),
            EquationKind::If { branches, else_branch } => {
                for (_, b) in branches {
                    walk_equations(b, in_when, def);
                }
                if let Some(b) = else_branch {
                    walk_equations(b, in_when, def);
                }
            }
            EquationKind::When { branches } => {
                for (_, b) in branches {
                    walk_equations(b, true, def);
                }
            }
            _ => {}
        }
    }
}

/// [`walk_equations`] for algorithm statements `var := rhs`.
fn walk_statements(stmts: &[Statement], in_when: bool, def: &mut dyn FnMut(&str, &Expr, bool)) {
    for s in stmts {
        match &s.kind {
            StatementKind::Assign { target: Expr { kind: ExprKind::Name(n), .. }, value } => {
                def(n.as_str(), value, !in_when)
            }
            StatementKind::If { branches, else_branch } => {
                for (_, b) in branches {
                    walk_statements(b, in_when, def);
                }
                if let Some(b) = else_branch {
                    walk_statements(b, in_when, def);
                }
            }
            StatementKind::When { branches } => {
                for (_, b) in branches {
                    walk_statements(b, true, def);
                }
            }
            StatementKind::For { body, .. } | StatementKind::While { body, .. } => walk_statements(body, in_when, def),
            _ => {}
        }
    }
}
