//! Discrete variables read on their left limits inside algebraic loops (issue 17;
//! paper 000 §5.3: the current mode is defined by left limits, event iteration settles
//! it at the event).
//!
//! A mode variable is defined by a mode equation (`m = g`, or on left limits the
//! `when`-equation of a switch, `guards.rs`) whose guard reads real values. Where those
//! are computed by equations that read the mode variable — the §4.7 guard of a nonlinear
//! block, a partial multiplexer, a restart system — the output has an algebraic loop
//! through a discrete variable: gamma → lambda_2 → s_2 → gamma in CupAndBall. omc refuses
//! to build one that goes through a `when`-equation ("non-linear equations within
//! when-equations") and iterates on the others. This pass finds the loops on the
//! output's own causalisation (`analysis::causal`) and, inside each, reads its discrete
//! variables as `pre(m)`: the equations a mode equation depends on are computed in the
//! mode before the event, and event iteration recomputes them once the modes have
//! settled (at the fixpoint `pre(m) = m`, so the input's equations hold). Equations
//! outside the loops (the multiplexers of the model's own variables, in general) keep
//! the current mode. During integration `pre(m) = m` and nothing changes.
//!
//! Input: the equation sections of the [`RimisModel`]. Output: the sections rewritten
//! in place, and the loops through discrete variables that remain (none, unless the
//! causalisation cannot read the output; reported as warnings by the caller).

use super::exprs::{call, rewrite, var_name};
use super::{RimisModel, Section};
use crate::analysis::causal::{self, EqKind};
use crate::syntax::Span;
use crate::syntax::ast::{ClassDef, ClassPart, Element, Equation, EquationKind, Expr, ExprKind, Statement};
use std::collections::{BTreeMap, BTreeSet};

/// Reads the discrete variables of every algebraic loop on their left limits inside
/// it. Returns descriptions of the loops through discrete variables left in the output
/// (or why it could not be checked).
pub(crate) fn read_loops_on_left_limits(out: &mut RimisModel) -> Vec<String> {
    // The first round cuts the loops in their real equations (multiplexers, block
    // guards: what the mode equations decide from), so that the mode equations keep
    // reading each other as in the input; a loop of mode equations alone is cut in
    // its mode equations by the next round. A last round only confirms.
    for round in 0..4 {
        let model = match sections(out).rows() {
            Ok(m) => m,
            Err(u) => return vec![format!("the output's causalisation could not be checked: {}", u.what)],
        };
        let loops = model.discrete_loops();
        if loops.is_empty() {
            return Vec::new();
        }
        let mut by_origin: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        for l in &loops {
            let names: Vec<String> = l.discrete.iter().map(|&v| model.unknowns[v].name()).collect();
            for &e in &l.equations {
                if round == 0 && model.equations[e].kind != EqKind::Continuous {
                    continue;
                }
                by_origin.entry(model.equations[e].origin as usize).or_default().extend(names.iter().cloned());
            }
        }
        let mut k = 0;
        for section in &mut out.sections {
            for item in &mut section.items {
                if let Some(names) = by_origin.get(&k) {
                    let names: BTreeSet<&str> = names.iter().map(String::as_str).collect();
                    item.equation = on_left_limits(&item.equation, &names, false);
                }
                k += 1;
            }
        }
    }
    match sections(out).rows() {
        Ok(model) => {
            let locate = |_: Span| String::from("output");
            let made_from = sections(out);
            let source = |o: usize| made_from.source(o);
            model.discrete_loops().iter().map(|l| model.describe(l, &locate, &source)).collect()
        }
        Err(u) => vec![format!("the output's causalisation could not be checked: {}", u.what)],
    }
}

/// What the output's rows are made from: every item of every section, then its
/// algorithm sections.
fn sections(out: &RimisModel) -> causal::Sections<'_> {
    let mut elements: Vec<&Element> = out.elements.iter().collect();
    elements.extend(out.replicates.iter().map(|(e, _)| e));
    let equations: Vec<&Equation> =
        out.sections.iter().flat_map(|s: &Section| s.items.iter().map(|i| &i.equation)).collect();
    let algorithms: Vec<(Span, &[Statement])> = out
        .kept_parts
        .iter()
        .filter_map(|p| match p {
            ClassPart::Algorithm { initial: false, statements, span } => Some((*span, statements.as_slice())),
            _ => None,
        })
        .collect();
    let classes: Vec<&ClassDef> = out.classes.iter().collect();
    causal::Sections { elements, equations, algorithms, classes }
}

/// `e` with every variable `m` of `switches` read as `pre(m)`.
fn read_on_left_limits(e: &Expr, switches: &BTreeSet<&str>) -> Expr {
    rewrite(e, &mut |x| match &x.kind {
        ExprKind::Call(c) if c.function.text.as_str() == "pre" => Some(x.clone()),
        ExprKind::Name(_) | ExprKind::Ref(_) if var_name(x).is_some_and(|n| switches.contains(&*n)) => {
            Some(call("pre", vec![x.clone()]))
        }
        _ => None,
    })
}

/// `eq` with every variable of `switches` read on its left limit; inside a `when` (`in_when`) the
/// targets stay as they are.
fn on_left_limits(eq: &Equation, switches: &BTreeSet<&str>, in_when: bool) -> Equation {
    let ll = |e: &Expr| read_on_left_limits(e, switches);
    let eqs = |body: &[Equation], in_when: bool| -> Vec<Equation> {
        body.iter().map(|e| on_left_limits(e, switches, in_when)).collect()
    };
    let kind = match &eq.kind {
        // The variable a definition `m = g` (or a when's `m = …`) defines stays as it is.
        EquationKind::Simple { lhs, rhs } if in_when || var_name(lhs).is_some() => {
            EquationKind::Simple { lhs: lhs.clone(), rhs: ll(rhs) }
        }
        EquationKind::Simple { lhs, rhs } => EquationKind::Simple { lhs: ll(lhs), rhs: ll(rhs) },
        EquationKind::If { branches, else_branch } => EquationKind::If {
            branches: branches.iter().map(|(c, b)| (ll(c), eqs(b, in_when))).collect(),
            else_branch: else_branch.as_ref().map(|b| eqs(b, in_when).into()),
        },
        EquationKind::When { branches } => {
            EquationKind::When { branches: branches.iter().map(|(c, b)| (ll(c), eqs(b, true))).collect() }
        }
        other => other.clone(),
    };
    eq.with_kind(kind)
}
