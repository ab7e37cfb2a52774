//! Which Reals are discrete, known to the continuous part: those assigned in a
//! when-equation or a `when` statement, and every variable of a clocked partition
//! (Modelica Language Specification §16.7: the equations connected through their
//! variables to a clock operator — `previous`, `sample(u, c)`, `subSample`, `interval`,
//! `firstTick`, `Clock(…)`, a `when` on a clock —, where `hold(…)` and the sampled
//! argument of `sample` cross between partitions and do not connect). A Real `input`
//! with a declaration equation (moved into the equations with its span) is an unknown.
//!
//! Output: the variabilities updated, and [`FlatModel::clocked`], the spans of the
//! equations of clocked partitions (they pass through untouched).

use super::eval::Env;
use super::walk::{ref_name, visit};
use super::{FlatModel, Type, VarIndex, Variability};
use crate::syntax::ast::{
    ClassPart, Composition, Equation, EquationKind, Expr, ExprKind, FunctionArgs, Statement, StatementKind,
};
use crate::syntax::visit::call_args;
use std::collections::HashSet;

/// Marks the discrete variables of the model (see the module header).
pub(super) fn mark(m: &mut FlatModel, comp: &Composition) {
    let bindings = std::mem::take(&mut m.bindings);
    let env = Env { bindings: &bindings };
    let mut targets = Vec::new();
    for part in &comp.parts {
        match part {
            ClassPart::Equations { initial: false, equations, .. } => {
                for eq in equations {
                    when_targets(m, &env, eq, false, &mut targets);
                }
            }
            ClassPart::Algorithm { initial: false, statements, .. } => {
                statement_targets(m, &env, statements, false, &mut targets);
            }
            _ => {}
        }
    }
    targets.extend(clocked(m, &env, comp));
    for k in targets {
        let v = &mut m.vars[k];
        if v.variability == Variability::Continuous {
            v.variability = Variability::Discrete;
        }
    }
    defined_inputs(m, comp);
    m.bindings = bindings;
}

/// The scalars assigned inside when-equations.
fn when_targets(m: &mut FlatModel, env: &Env, eq: &Equation, in_when: bool, out: &mut Vec<VarIndex>) {
    match &eq.kind {
        EquationKind::Simple { lhs, .. } if in_when => assigned(m, env, lhs, out),
        EquationKind::If { branches, else_branch } => {
            for eq in branches.iter().flat_map(|(_, b)| b).chain(else_branch.iter().flatten()) {
                when_targets(m, env, eq, in_when, out);
            }
        }
        EquationKind::For { body, .. } => body.iter().for_each(|eq| when_targets(m, env, eq, in_when, out)),
        EquationKind::When { branches } => {
            for eq in branches.iter().flat_map(|(_, b)| b) {
                when_targets(m, env, eq, true, out);
            }
        }
        _ => {}
    }
}

/// The scalars a left-hand side or an assignment target names (each of a tuple).
pub(super) fn assigned(m: &mut FlatModel, env: &Env, target: &Expr, out: &mut Vec<VarIndex>) {
    match &target.kind {
        ExprKind::Tuple(xs) => xs.iter().flatten().for_each(|x| assigned(m, env, x, out)),
        _ => out.extend(m.scalars_of_ref(target, env).unwrap_or_default()),
    }
}

/// The scalars assigned inside `when` statements.
fn statement_targets(m: &mut FlatModel, env: &Env, stmts: &[Statement], in_when: bool, out: &mut Vec<VarIndex>) {
    for s in stmts {
        match &s.kind {
            StatementKind::Assign { target, .. } if in_when => assigned(m, env, target, out),
            StatementKind::If { branches, else_branch } => {
                for (_, b) in branches {
                    statement_targets(m, env, b, in_when, out);
                }
                if let Some(b) = else_branch {
                    statement_targets(m, env, b, in_when, out);
                }
            }
            StatementKind::For { body, .. } | StatementKind::While { body, .. } => {
                statement_targets(m, env, body, in_when, out)
            }
            StatementKind::When { branches } => {
                for (_, b) in branches {
                    statement_targets(m, env, b, true, out);
                }
            }
            _ => {}
        }
    }
}

/// A Real input with a declaration equation (`input Real u = 1.0;`, moved into the
/// equations with the declaration's span) is an unknown that equation defines; any
/// other input is known (a connection `u = a.u` then defines `a.u`).
fn defined_inputs(m: &mut FlatModel, comp: &Composition) {
    for part in &comp.parts {
        let ClassPart::Equations { initial: false, equations, .. } = part else { continue };
        for eq in equations {
            let EquationKind::Simple { lhs, .. } = &eq.kind else { continue };
            let Some(k) = ref_name(lhs).and_then(|n| m.find(n.as_str())) else { continue };
            let v = &mut m.vars[k];
            if v.ty == Type::Real && v.variability == Variability::Input && v.span == eq.span() {
                v.variability = Variability::Continuous;
            }
        }
    }
}

const CLOCK_OPERATORS: &[&str] =
    &["previous", "interval", "firstTick", "subSample", "superSample", "shiftSample", "backSample", "noClock", "Clock"];

/// The variables of the clocked partitions; records the spans of their equations.
fn clocked(m: &mut FlatModel, env: &Env, comp: &Composition) -> Vec<VarIndex> {
    let clocks: Vec<VarIndex> = (0..m.vars.len()).filter(|&k| m.vars[k].ty == Type::Clock).collect();
    // A model without a Clock variable nor a clocked equation has no clocked partition:
    // nothing is built for it (issue 15: a table of every equation would be held).
    let seed = |m: &FlatModel, eq: &Equation| match &eq.kind {
        EquationKind::When { branches } => branches.iter().any(|(c, _)| is_clock(m, c)),
        _ => has_clock_operator(m, eq),
    };
    let equations = || {
        comp.parts.iter().flat_map(|part| match part {
            ClassPart::Equations { initial: false, equations, .. } => equations.as_slice(),
            _ => &[],
        })
    };
    if clocks.is_empty() && !equations().any(|eq| seed(m, eq)) {
        return Vec::new();
    }
    let mut units: Vec<(&Equation, bool, Vec<VarIndex>)> = equations()
        .filter_map(|eq| match &eq.kind {
            EquationKind::When { branches } if !branches.iter().any(|(c, _)| is_clock(m, c)) => None,
            _ => Some((eq, seed(m, eq), Vec::new())),
        })
        .collect();
    for (eq, _, vars) in units.iter_mut() {
        let mut refs = Vec::new();
        equation_refs(eq, &mut refs);
        for r in refs {
            vars.extend(m.scalars_of_ref(r, env).unwrap_or_default().into_iter().filter(|&k| !m.vars[k].is_fixed()));
        }
    }
    let mut parent: Vec<usize> = (0..m.vars.len()).collect();
    for (_, _, vars) in &units {
        for w in vars.windows(2) {
            union(&mut parent, w[0], w[1]);
        }
    }
    let mut clocked_roots: HashSet<usize> = HashSet::new();
    for (_, seed, vars) in &units {
        if *seed {
            for &v in vars {
                clocked_roots.insert(find(&mut parent, v));
            }
        }
    }
    for &c in &clocks {
        clocked_roots.insert(find(&mut parent, c));
    }
    let mut spans = Vec::new();
    for (eq, seed, vars) in &units {
        if *seed || vars.iter().any(|&v| clocked_roots.contains(&find(&mut parent, v))) {
            spans.push(eq.span());
        }
    }
    m.clocked.extend(spans);
    (0..m.vars.len()).filter(|&v| clocked_roots.contains(&find(&mut parent, v))).collect()
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

/// A clock expression: a Clock variable or a clock operator's result.
fn is_clock(m: &FlatModel, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => {
            ref_name(e).and_then(|n| m.var(&n)).is_some_and(|v| v.ty == Type::Clock)
        }
        ExprKind::Call(c) => {
            CLOCK_OPERATORS.contains(&c.function.text.as_str()) && c.function.text.as_str() != "previous"
        }
        _ => false,
    }
}

/// Does the equation apply a clock operator (`sample` with a clock, or without a period)?
fn has_clock_operator(m: &FlatModel, eq: &Equation) -> bool {
    let mut found = false;
    crate::syntax::visit::equation_exprs(eq, &mut |e| {
        visit(e, &mut |x| {
            if let ExprKind::Call(c) = &x.kind {
                let f = c.function.text.as_str();
                found |= CLOCK_OPERATORS.contains(&f) || (f == "sample" && clocked_sample(m, &c.args));
            }
            !found
        })
    });
    found
}

/// `sample(u)` or `sample(u, c)` with a clock `c` (not the event `sample(start, period)`).
fn clocked_sample(m: &FlatModel, args: &FunctionArgs) -> bool {
    match args {
        FunctionArgs::List { positional, .. } => match positional.len() {
            1 => true,
            2 => is_clock(m, &positional[1]),
            _ => false,
        },
        FunctionArgs::Comprehension(_) => false,
    }
}

/// Every reference of an equation that connects partitions: not inside `hold(…)` nor in
/// the sampled argument of `sample(…)`.
fn equation_refs<'e>(eq: &'e Equation, out: &mut Vec<&'e Expr>) {
    crate::syntax::visit::equation_exprs(eq, &mut |e| collect_refs(e, out));
}

fn collect_refs<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => out.push(e),
        ExprKind::Call(c) if matches!(c.function.text.as_str(), "hold" | "sample") => {}
        ExprKind::Call(c) => {
            for x in call_args(c) {
                collect_refs(x, out);
            }
        }
        _ => direct_children(e, &mut |x| collect_refs(x, out)),
    }
}

/// Calls `f` on each direct child expression of `e`.
fn direct_children<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    match &e.kind {
        ExprKind::Unary(_, x) => f(x),
        ExprKind::Binary(_, xs) => {
            f(&xs[0]);
            f(&xs[1]);
        }
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                f(c);
                f(v);
            }
            f(&x.else_value);
        }
        ExprKind::Array(xs) => xs.iter().for_each(|x| f(x)),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| f(x)),
        ExprKind::Tuple(xs) => xs.iter().flatten().for_each(|x| f(x)),
        ExprKind::Subscripted(s) => f(&s.base),
        ExprKind::Range(r) => {
            f(&r.start);
            f(&r.stop);
        }
        ExprKind::ArrayComprehension(c) => f(&c.expr),
        ExprKind::Call(c) => call_args(c).into_iter().for_each(f),
        _ => {}
    }
}
