//! The rows the initial system adds to the model's equations: the initial equations
//! (guarded incidence as the lowering computes it for the model's equations: `der` raises
//! the order, an if-expression guards its branches, `pre` and the event operators read
//! known values; an if-equation's branches are rows active under their conditions, read by
//! [`AtStart::read`], with any counts) and one row `x = start` per variable declared
//! `fixed = true`.
//!
//! Input: the model class's parts, the [`Mdae`] (its unknowns by name), [`AtStart`].
//! Output: [`Row`]s, or why the initial sections are not modelled (a for-equation, a tuple
//! or array equation, an unknown read as a whole array or record, an initial algorithm
//! assigning an unknown): the check then gives no verdict rather than a wrong one. Rows
//! without an unknown (discrete initial equations, `pre(b) = false`) are not rows of the
//! continuous initial system and are left out.

use super::decls::Decls;
use super::start::{AtStart, name_of};
use crate::mdae::{Cond, Mdae, VarId};
use crate::syntax::SourceFile;
use crate::syntax::ast::{ClassPart, Equation, EquationKind, Expr, ExprKind, FunctionArgs, Prec, Statement};
use crate::syntax::ast::{StatementKind, Subscript};
use std::collections::BTreeMap;

/// An equation of the initial system besides the model's.
pub(crate) struct Row {
    pub origin: Origin,
    /// Where it is an equation: an if-equation's branch holds where its condition does.
    pub active: Cond,
    /// (unknown, derivative order, where it appears); none stored for a `fixed` start,
    /// whose one entry is its unknown's value ([`Row::each`]).
    entries: Vec<(VarId, u8, Cond)>,
}

impl Row {
    /// Calls `f` on each entry (unknown, order, guard).
    pub(crate) fn each(&self, f: &mut dyn FnMut(VarId, u8, &Cond)) {
        static TRUE: Cond = Cond::True;
        match self.origin {
            Origin::Fixed(v) => f(v, 0, &TRUE),
            Origin::Initial { .. } => self.entries.iter().for_each(|(v, o, c)| f(*v, *o, c)),
        }
    }
}

/// Where a [`Row`] comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The k-th row of the initial equations starting on `line` (named `i<line>`,
    /// `i<line>_<k>` like the model's `e<line>`).
    Initial { line: u32, k: u32 },
    /// `fixed = true` on the unknown: `x = start`.
    Fixed(VarId),
}

/// The unknowns of the mDAE by name (sorted: an array's elements follow its name).
type Names<'m> = BTreeMap<&'m str, VarId>;

struct Reader<'r, 'm> {
    names: &'r Names<'m>,
    at: &'r mut AtStart<'m>,
    file: &'r SourceFile,
    rows: Vec<Row>,
    /// How many rows each line has given.
    lines: BTreeMap<u32, u32>,
}

/// The initial equations' rows and the `fixed` starts of the model (module header).
pub(crate) fn read<'m>(
    mdae: &'m Mdae<'m>,
    decls: &Decls,
    parts: &[ClassPart],
    at: &mut AtStart<'m>,
    file: &SourceFile,
) -> Result<Vec<Row>, String> {
    let fixed = decls.fixed();
    let initial = parts.iter().any(|p| matches!(p, ClassPart::Equations { initial: true, .. }));
    let algorithm = parts.iter().any(|p| matches!(p, ClassPart::Algorithm { initial: true, .. }));
    if fixed.is_empty() && !initial && !algorithm {
        return Ok(Vec::new()); // no name table for a model without initial conditions
    }
    let names: Names = mdae.vars.iter().enumerate().map(|(k, v)| (v.name.as_str(), VarId(k as u32))).collect();
    let mut r = Reader { names: &names, at, file, rows: Vec::new(), lines: BTreeMap::new() };
    for part in parts {
        match part {
            ClassPart::Equations { initial: true, equations, .. } => r.equations(equations, &Cond::True)?,
            ClassPart::Algorithm { initial: true, statements, .. } => r.algorithm(statements)?,
            _ => {}
        }
    }
    for f in fixed {
        let vars: Vec<VarId> = if f.array {
            let prefix = format!("{}[", f.name);
            names.range(prefix.as_str()..).take_while(|(n, _)| n.starts_with(&prefix)).map(|(_, &v)| v).collect()
        } else {
            names.get(f.name.as_str()).copied().into_iter().collect()
        };
        for v in vars {
            r.rows.push(Row { origin: Origin::Fixed(v), active: Cond::True, entries: Vec::new() });
        }
    }
    Ok(r.rows)
}

impl Reader<'_, '_> {
    /// The rows of `eqs`, active where `active`.
    fn equations(&mut self, eqs: &[Equation], active: &Cond) -> Result<(), String> {
        for eq in eqs {
            let line = self.file.line_col(eq.span().start as usize).0 as u32;
            match &eq.kind {
                EquationKind::Simple { lhs, .. } if matches!(lhs.kind, ExprKind::Tuple(_)) => {
                    return Err(format!("the initial equation on line {line} is a tuple equation"));
                }
                EquationKind::Simple { lhs, rhs } => {
                    let mut entries = Vec::new();
                    self.incidence(lhs, &Cond::True, 0, &mut entries, line)?;
                    self.incidence(rhs, &Cond::True, 0, &mut entries, line)?;
                    if entries.is_empty() {
                        continue;
                    }
                    merge(&mut entries);
                    let k = self.lines.entry(line).or_insert(0);
                    *k += 1;
                    let origin = Origin::Initial { line, k: *k };
                    self.rows.push(Row { origin, active: active.clone(), entries });
                }
                EquationKind::If { branches, else_branch } => {
                    let mut rest = active.clone();
                    for (c, body) in branches {
                        let c = self.at.read(c);
                        self.equations(body, &Cond::and(rest.clone(), c.clone()))?;
                        rest = Cond::and(rest, Cond::not(c));
                    }
                    if let Some(body) = else_branch {
                        self.equations(body, &rest)?;
                    }
                }
                EquationKind::For { .. } => {
                    return Err(format!("the initial equation on line {line} is a for-equation"));
                }
                EquationKind::When { .. } | EquationKind::Connect(_) => {
                    return Err(format!("the initial equation on line {line} is not modelled"));
                }
                EquationKind::Call(_) => {} // assert, terminate: no unknown determined
            }
        }
        Ok(())
    }

    /// An initial algorithm: refused when it assigns an unknown, else nothing.
    fn algorithm(&mut self, statements: &[Statement]) -> Result<(), String> {
        for s in statements {
            let inner: Vec<&[Statement]> = match &s.kind {
                StatementKind::Assign { target, .. } => {
                    if let Some(n) = name_of(target).filter(|n| self.names.contains_key(n.as_str())) {
                        let line = self.file.line_col(s.span.start as usize).0;
                        return Err(format!("the initial algorithm on line {line} assigns the unknown `{n}`"));
                    }
                    Vec::new()
                }
                StatementKind::If { branches, else_branch } => {
                    branches.iter().map(|(_, b)| b.as_slice()).chain(else_branch.as_deref()).collect()
                }
                StatementKind::For { body, .. } | StatementKind::While { body, .. } => vec![body.as_slice()],
                StatementKind::When { branches } => branches.iter().map(|(_, b)| b.as_slice()).collect(),
                _ => Vec::new(),
            };
            for body in inner {
                self.algorithm(body)?;
            }
        }
        Ok(())
    }

    /// Appends the guarded incidence of `e` (at derivative order `order`, under `guard`).
    fn incidence(
        &mut self,
        e: &Expr,
        guard: &Cond,
        order: u8,
        out: &mut Vec<(VarId, u8, Cond)>,
        line: u32,
    ) -> Result<(), String> {
        let each = |r: &mut Self, x: &Expr, order: u8, out: &mut Vec<_>| r.incidence(x, guard, order, out, line);
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                let Some(name) = name_of(e) else { return Ok(()) };
                if let Some(&v) = self.names.get(name.as_str()) {
                    out.push((v, order, guard.clone()));
                } else if self.whole(&name) {
                    return Err(format!(
                        "the initial equation on line {line} reads `{name}` as a whole (an array or record)"
                    ));
                }
                if let ExprKind::Ref(r) = &e.kind {
                    for sub in r.parts.iter().flat_map(|p| p.subscripts.iter()) {
                        if let Subscript::Expr(x) = sub {
                            each(self, x, order, out)?;
                        }
                    }
                }
            }
            ExprKind::Call(c) => match c.function.text.as_str() {
                "pre" | "delay" | "initial" | "terminal" | "sample" | "edge" | "change" | "spatialDistribution" => {}
                f => {
                    let order = if f == "der" { order.saturating_add(1) } else { order };
                    match &c.args {
                        FunctionArgs::List { positional, named } => {
                            for x in positional.iter().chain(named.iter().map(|n| &n.value)) {
                                each(self, x, order, out)?;
                            }
                        }
                        FunctionArgs::Comprehension(_) => {
                            return Err(format!("the initial equation on line {line} holds a comprehension"));
                        }
                    }
                }
            },
            ExprKind::Unary(_, x) => each(self, x, order, out)?,
            ExprKind::Binary(op, xs) => {
                // A relation or `and`/`or` inside a real expression is a condition.
                if op.prec() >= Prec::Additive {
                    each(self, &xs[0], order, out)?;
                    each(self, &xs[1], order, out)?;
                }
            }
            ExprKind::If(ife) => {
                let mut rest = guard.clone();
                for (c, v) in &ife.branches {
                    let c = self.at.read(c);
                    let here = Cond::and(rest.clone(), c.clone());
                    if here != Cond::False {
                        self.incidence(v, &here, order, out, line)?;
                    }
                    rest = Cond::and(rest, Cond::not(c));
                }
                if rest != Cond::False {
                    self.incidence(&ife.else_value, &rest, order, out, line)?;
                }
            }
            ExprKind::Boxed(x) => each(self, x, order, out)?,
            // `f(x)[1]`: what the call reads (its subscripts are constant or read too).
            ExprKind::Subscripted(x) => {
                each(self, &x.base, order, out)?;
                for sub in x.subscripts.iter() {
                    if let Subscript::Expr(i) = sub {
                        each(self, i, order, out)?;
                    }
                }
            }
            ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
            _ => return Err(format!("the initial equation on line {line} holds an array or range expression")),
        }
        Ok(())
    }

    /// Is `name` an array or record of unknowns (their names start with `name[` or `name.`)?
    fn whole(&self, name: &str) -> bool {
        let below = |sep: char| {
            let prefix = format!("{name}{sep}");
            self.names.range(prefix.as_str()..).next().is_some_and(|(n, _)| n.starts_with(&prefix))
        };
        below('[') || below('.')
    }
}

/// Merges the entries of one unknown at one order (their conditions or-ed), in order of
/// first appearance.
fn merge(entries: &mut Vec<(VarId, u8, Cond)>) {
    let mut out: Vec<(VarId, u8, Cond)> = Vec::with_capacity(entries.len());
    for (v, k, c) in entries.drain(..) {
        match out.iter_mut().find(|(w, j, _)| *w == v && *j == k) {
            Some((_, _, d)) => *d = Cond::or(std::mem::replace(d, Cond::False), c),
            None => out.push((v, k, c)),
        }
    }
    *entries = out;
}
