//! Blocks: equation systems solved as a whole (Modelica Language Specification §11.1:
//! an algorithm section is an equation system whose unknowns are the variables it
//! assigns; §8.3.1: a tuple equation `(a, b) = f(x)` has one equation per output).
//! A block's rows are its real unknowns (assigned outside `when` statements, or the
//! scalars of the tuple's outputs; for an equation with an opaque call, the scalars of
//! its other side), each reading every real unknown the block reads or writes.

use super::discrete::assigned;
use super::expand::{Expander, substitute};
use super::split::Out;
use super::walk::visit;
use super::{Block, FlatEquation, VarIndex};
use crate::syntax::Span;
use crate::syntax::ast::{Equation, EquationKind, Expr, ExprKind, FunctionArgs, Statement, StatementKind};

/// How many loop iterations an algorithm's targets are unrolled for (beyond: every
/// element the target may name).
const MAX_UNROLL: usize = 100_000;

/// The block of an algorithm section, if it assigns a real unknown.
pub(super) fn algorithm(x: &mut Expander, stmts: &[Statement], span: Span) -> Option<Block> {
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let mut budget = MAX_UNROLL;
    statements(x, stmts, &mut Vec::new(), &mut writes, &mut reads, &mut budget);
    block(x, "algorithm section".into(), span, writes, reads, None)
}

/// A tuple equation: a block, passed through as written.
pub(super) fn tuple<'e>(x: &mut Expander, eq: &'e Equation) -> Out<'e> {
    let EquationKind::Simple { lhs, rhs } = &eq.kind else { unreachable!("a tuple equation") };
    let env = x.env();
    let mut writes = Vec::new();
    assigned(x.m, &env, lhs, &mut writes);
    let mut reads = Vec::new();
    unknown_reads(x, rhs, 0, &mut reads);
    match block(x, "tuple equation".into(), eq.span(), writes, reads, None) {
        Some(b) => Out { rows: vec![FlatEquation::Block(Box::new(b))], ..Out::passed(eq) },
        None => Out::passed(eq),
    }
}

/// An equation with an opaque call: `rows` equations reading every real unknown in it.
pub(super) fn equation_block(x: &mut Expander, eq: &Equation, what: String, rows: usize) -> Option<Block> {
    let EquationKind::Simple { lhs, rhs } = &eq.kind else { return None };
    let mut reads = Vec::new();
    unknown_reads(x, lhs, 0, &mut reads);
    unknown_reads(x, rhs, 0, &mut reads);
    block(x, what, eq.span(), Vec::new(), reads, Some(rows))
}

fn block(
    x: &Expander,
    what: String,
    span: Span,
    writes: Vec<VarIndex>,
    reads: Vec<(VarIndex, u8)>,
    rows: Option<usize>,
) -> Option<Block> {
    let mut unknowns: Vec<(VarIndex, u8)> = Vec::new();
    let mut at: std::collections::HashMap<VarIndex, usize> = std::collections::HashMap::new();
    let mut add = |k: VarIndex, d: u8| match at.get(&k) {
        Some(&i) => unknowns[i].1 = unknowns[i].1.max(d),
        None => {
            at.insert(k, unknowns.len());
            unknowns.push((k, d));
        }
    };
    let mut written = std::collections::HashSet::new();
    for k in writes {
        if x.m.vars[k].is_unknown() && written.insert(k) {
            add(k, 0);
        }
    }
    for (k, d) in reads {
        if x.m.vars[k].is_unknown() {
            add(k, d);
        }
    }
    let rows = rows.unwrap_or(written.len());
    (rows > 0 && !unknowns.is_empty()).then_some(Block { what, span, rows, unknowns })
}

/// The real unknowns `e` reads, with the derivative order (`der(x)` reads x at 1).
fn unknown_reads(x: &mut Expander, e: &Expr, order: u8, out: &mut Vec<(VarIndex, u8)>) {
    let mut found: Vec<(Expr, u8)> = Vec::new();
    collect(e, order, &mut found);
    let env = x.env();
    for (r, d) in found {
        for k in x.m.scalars_of_ref(&r, &env).unwrap_or_default() {
            out.push((k, d));
        }
    }
}

fn collect(e: &Expr, order: u8, out: &mut Vec<(Expr, u8)>) {
    visit(e, &mut |y| match &y.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => {
            out.push((y.clone(), order));
            true
        }
        ExprKind::Call(c) if c.function.text.as_str() == "der" => {
            if let FunctionArgs::List { positional, .. } = &c.args {
                positional.iter().for_each(|a| collect(a, order.saturating_add(1), out));
            }
            false
        }
        _ => true,
    });
}

/// Targets (outside `when` statements) and reads of statements; `loops` holds the
/// values of the enclosing for-indices that are unrolled.
fn statements(
    x: &mut Expander,
    stmts: &[Statement],
    loops: &mut Vec<(String, i64)>,
    writes: &mut Vec<VarIndex>,
    reads: &mut Vec<(VarIndex, u8)>,
    budget: &mut usize,
) {
    for s in stmts {
        match &s.kind {
            StatementKind::Assign { target, value } => {
                let mut t = target.clone();
                for (n, v) in loops.iter() {
                    t = substitute(&t, n, *v);
                }
                let env = x.env();
                assigned(x.m, &env, &t, writes);
                unknown_reads(x, value, 0, reads);
            }
            StatementKind::Call(c) => {
                let e = Expr::new(ExprKind::Call(c.clone()), s.span);
                unknown_reads(x, &e, 0, reads);
            }
            StatementKind::If { branches, else_branch } => {
                for (c, b) in branches {
                    unknown_reads(x, c, 0, reads);
                    statements(x, b, loops, writes, reads, budget);
                }
                if let Some(b) = else_branch {
                    statements(x, b, loops, writes, reads, budget);
                }
            }
            StatementKind::While { condition, body } => {
                unknown_reads(x, condition, 0, reads);
                statements(x, body, loops, writes, reads, budget);
            }
            StatementKind::For { indices, body } => {
                let values = match indices.as_slice() {
                    [i] => i.range.as_ref().and_then(|r| x.range(r)).filter(|v| v.len() <= *budget),
                    _ => None,
                };
                match values {
                    Some(values) => {
                        *budget -= values.len();
                        for v in values {
                            loops.push((indices[0].name.text.as_str().to_string(), v));
                            statements(x, body, loops, writes, reads, budget);
                            loops.pop();
                        }
                    }
                    None => statements(x, body, loops, writes, reads, budget),
                }
            }
            StatementKind::When { .. } | StatementKind::Return(_) | StatementKind::Break => {}
        }
    }
}
