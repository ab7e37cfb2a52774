//! Parameter bindings are acyclic: the value of a parameter or constant cannot depend on
//! itself through the bindings (`parameter Real a = b; parameter Real b = 2 * a;`), since
//! parameters are computed from their bindings in order (Modelica 3.6 §4.5). The bindings
//! form a graph (an edge from each parameter to the parameters its binding reads); every
//! strongly connected component with a cycle is an error naming its parameters
//! (petgraph's iterative Kosaraju).
//!
//! Conservative: a reference to an array as a whole or with a non-literal subscript reads
//! every element declared one by one except the parameter itself; a field of a record
//! parameter reads the record.

use super::diagnostic::{Diagnostic, Kind};
use super::scope::{Resolved, Scope, cref_names};
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string;
use petgraph::algo::kosaraju_scc;
use petgraph::graph::DiGraph;

/// The parameters of a cycle named in its diagnostic (the others are counted).
const SHOWN: usize = 10;

pub(super) fn check(scope: &Scope) -> Vec<Diagnostic> {
    let bound: Vec<(usize, &Expr)> = (0..scope.len())
        .filter(|&d| scope.decls[d].is_fixed_value())
        .filter_map(|d| Some((d, &scope.decl(d).modification.as_ref()?.value.as_ref()?.expr)))
        .collect();
    let mut graph = DiGraph::<usize, ()>::new();
    let nodes: std::collections::BTreeMap<usize, _> = bound.iter().map(|&(d, _)| (d, graph.add_node(d))).collect();
    for &(d, value) in &bound {
        let mut reads = Vec::new();
        names(value, &mut reads);
        for r in reads {
            for target in read_decls(scope, r, d) {
                if let Some(&to) = nodes.get(&target) {
                    graph.update_edge(nodes[&d], to, ());
                }
            }
        }
    }
    let mut out = Vec::new();
    // Kosaraju's algorithm is iterative: a chain of 10^5 bindings needs no deep stack.
    for mut scc in kosaraju_scc(&graph) {
        let cyclic = scc.len() > 1 || graph.contains_edge(scc[0], scc[0]);
        if !cyclic {
            continue;
        }
        scc.sort_by_key(|&n| scope.decl(graph[n]).span().start);
        let decls: Vec<usize> = scc.iter().map(|&n| graph[n]).collect();
        let mut names: Vec<String> = decls.iter().take(SHOWN).map(|&d| format!("`{}`", scope.key(d))).collect();
        if decls.len() > SHOWN {
            names.push(format!("… ({} parameters in all)", decls.len()));
        }
        let mut diag = Diagnostic::error(
            Kind::Cycle,
            scope.decl(decls[0]).span(),
            format!("the bindings of {} depend on themselves", names.join(", ")),
        )
        .help("a parameter's value is computed from its binding before the simulation: break the cycle");
        for &d in decls.iter().take(SHOWN).skip(1) {
            let decl = scope.decl(d);
            let value = decl.modification.as_ref().and_then(|m| m.value.as_ref()).map(|v| expr_to_string(&v.expr));
            diag = diag.with(decl.span(), format!("`{}` = {}", scope.key(d), value.unwrap_or_default()));
        }
        out.push(diag);
    }
    out
}

/// The declarations a reference reads (not `me`, unless it names `me` exactly).
fn read_decls(scope: &Scope, e: &Expr, me: usize) -> Vec<usize> {
    let (base, key) = match &e.kind {
        ExprKind::Name(n) => (n.as_str().to_string(), n.as_str().to_string()),
        ExprKind::Ref(r) => cref_names(r),
        _ => return Vec::new(),
    };
    match scope.resolve(&base) {
        Some(Resolved::Var(ds)) => match ds.iter().find(|&&d| scope.key(d as usize) == key) {
            Some(&d) => vec![d as usize],
            None => ds.iter().map(|&d| d as usize).filter(|&d| d != me).collect(),
        },
        Some(Resolved::Field(ds)) => ds.iter().map(|&d| d as usize).collect(),
        _ => Vec::new(),
    }
}

/// The references in `e` (also inside subscripts and call arguments).
fn names<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Name(_) => out.push(e),
        ExprKind::Ref(r) => {
            out.push(e);
            for p in r.parts.iter() {
                subscripts(&p.subscripts, out);
            }
        }
        ExprKind::Call(c) => match &c.args {
            FunctionArgs::List { positional, named } => {
                positional.iter().for_each(|a| names(a, out));
                named.iter().for_each(|a| names(&a.value, out));
            }
            FunctionArgs::Comprehension(x) => {
                names(&x.expr, out);
                x.indices.iter().filter_map(|i| i.range.as_ref()).for_each(|r| names(r, out));
            }
        },
        ExprKind::Unary(_, x) => names(x, out),
        ExprKind::Binary(_, xs) => xs.iter().for_each(|x| names(x, out)),
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                names(c, out);
                names(v, out);
            }
            names(&x.else_value, out);
        }
        ExprKind::Range(r) => {
            names(&r.start, out);
            r.step.iter().for_each(|s| names(s, out));
            names(&r.stop, out);
        }
        ExprKind::Array(items) => items.iter().for_each(|x| names(x, out)),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| names(x, out)),
        ExprKind::ArrayComprehension(c) => {
            names(&c.expr, out);
            c.indices.iter().filter_map(|i| i.range.as_ref()).for_each(|r| names(r, out));
        }
        ExprKind::Tuple(items) => items.iter().flatten().for_each(|x| names(x, out)),
        ExprKind::Subscripted(x) => {
            names(&x.base, out);
            subscripts(&x.subscripts, out);
        }
        ExprKind::Partial(c) => match &c.args {
            FunctionArgs::List { positional, named } => {
                positional.iter().for_each(|a| names(a, out));
                named.iter().for_each(|a| names(&a.value, out));
            }
            FunctionArgs::Comprehension(x) => names(&x.expr, out),
        },
        ExprKind::Boxed(x) => names(x, out),
        ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
    }
}

fn subscripts<'e>(subs: &'e [Subscript], out: &mut Vec<&'e Expr>) {
    for s in subs {
        if let Subscript::Expr(e) = s {
            names(e, out);
        }
    }
}
