//! Guarded incidence of a real expression: which unknowns appear, at which derivative
//! order, under which condition. `der(e)` raises the order of everything in `e`;
//! `if c then a else b` puts `a`'s variables under `c` and `b`'s under `not c` (the
//! condition itself is a mode atom, not a real incidence; inside `noEvent` and `smooth` an
//! atom that keeps `noEvent`); `pre`, `delay` and discrete operators read known values
//! and contribute nothing.

use super::lower::{Lowering, NameKind};
use super::{Cond, LowerError, VarId};
use crate::syntax::ast::{Expr, ExprKind, FunctionArgs, Prec, Subscript};
use crate::syntax::printer::expr::write_cref;

impl Lowering<'_, '_> {
    /// Appends the incidence of `e` (at derivative order `order`, under `guard`) to `out`.
    pub(super) fn incidence(
        &mut self,
        e: &Expr,
        guard: &Cond,
        order: u8,
        out: &mut Vec<Entry>,
    ) -> Result<(), LowerError> {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => {}
            ExprKind::Partial(c) => self.args_incidence(&c.args, guard, order, out)?,
            ExprKind::Boxed(x) => self.incidence(x, guard, order, out)?,
            ExprKind::Name(n) => self.name_incidence(n.as_str(), guard, order, out),
            ExprKind::Ref(r) => {
                let mut name = String::new();
                write_cref(&mut name, r);
                self.name_incidence(&name, guard, order, out);
            }
            ExprKind::Call(c) => {
                let f = c.function.text.as_str();
                match f {
                    "der" => self.args_incidence(&c.args, guard, order.saturating_add(1), out)?,
                    "noEvent" | "smooth" => {
                        self.no_events += 1;
                        let r = self.args_incidence(&c.args, guard, order, out);
                        self.no_events -= 1;
                        r?
                    }
                    "pre" | "delay" | "initial" | "terminal" | "sample" | "edge" | "change" | "spatialDistribution" => {
                    }
                    _ => self.args_incidence(&c.args, guard, order, out)?,
                }
            }
            ExprKind::Unary(_, x) => self.incidence(x, guard, order, out)?,
            ExprKind::Binary(op, xs) => {
                if op.prec() >= Prec::Additive {
                    self.incidence(&xs[0], guard, order, out)?;
                    self.incidence(&xs[1], guard, order, out)?;
                }
                // A relation or `and`/`or` inside a real expression is a condition: no real incidence.
            }
            ExprKind::If(ife) => {
                let mut rest = guard.clone();
                for (c, v) in &ife.branches {
                    let c = self.cond(c)?;
                    let here = Cond::and(rest.clone(), c.clone());
                    if here != Cond::False {
                        self.incidence(v, &here, order, out)?;
                    }
                    rest = Cond::and(rest, Cond::not(c));
                }
                if rest != Cond::False {
                    self.incidence(&ife.else_value, &rest, order, out)?;
                }
            }
            ExprKind::Range(r) => {
                self.incidence(&r.start, guard, order, out)?;
                if let Some(s) = &r.step {
                    self.incidence(s, guard, order, out)?;
                }
                self.incidence(&r.stop, guard, order, out)?;
            }
            ExprKind::Array(xs) => {
                for x in xs.iter() {
                    self.incidence(x, guard, order, out)?;
                }
            }
            ExprKind::Matrix(rows) => {
                for x in rows.iter().flatten() {
                    self.incidence(x, guard, order, out)?;
                }
            }
            ExprKind::ArrayComprehension(c) => self.incidence(&c.expr, guard, order, out)?,
            ExprKind::Tuple(xs) => {
                for x in xs.iter().flatten() {
                    self.incidence(x, guard, order, out)?;
                }
            }
            ExprKind::Subscripted(s) => {
                self.incidence(&s.base, guard, order, out)?;
                for sub in s.subscripts.iter() {
                    if let Subscript::Expr(x) = sub {
                        self.incidence(x, guard, order, out)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn args_incidence(
        &mut self,
        args: &FunctionArgs,
        guard: &Cond,
        order: u8,
        out: &mut Vec<Entry>,
    ) -> Result<(), LowerError> {
        match args {
            FunctionArgs::List { positional, named } => {
                for x in positional.iter() {
                    self.incidence(x, guard, order, out)?;
                }
                for n in named.iter() {
                    self.incidence(&n.value, guard, order, out)?;
                }
            }
            FunctionArgs::Comprehension(c) => self.incidence(&c.expr, guard, order, out)?,
        }
        Ok(())
    }

    /// A scalar's incidence, or that of every scalar a whole array or record (or a
    /// reference with a variable subscript) may read.
    fn name_incidence(&mut self, name: &str, guard: &Cond, order: u8, out: &mut Vec<Entry>) {
        match self.kind(name) {
            Some(NameKind::Unknown(v)) => out.push((v, order, guard.clone())),
            Some(_) => {}
            None => {
                let Some(scalars) = self.flat.aggregate_reads.get(name) else { return };
                for &k in scalars {
                    if let Some(NameKind::Unknown(v)) = self.kind(&self.flat.vars[k].name) {
                        self.whole_reads.push(v);
                        out.push((v, order, guard.clone()));
                    }
                }
            }
        }
    }
}

/// An entry found: the unknown, its order, its guard.
pub(super) type Entry = (VarId, u8, Cond);

/// Merges entries with the same variable and order (their conditions are or-ed), keeping
/// the order of first appearance, in place.
pub(super) fn merge(entries: &mut Vec<Entry>) {
    let mut kept = 0;
    for i in 0..entries.len() {
        let (var, order) = (entries[i].0, entries[i].1);
        match entries[..kept].iter().position(|o| o.0 == var && o.1 == order) {
            Some(j) => {
                let when = std::mem::replace(&mut entries[i].2, Cond::False);
                entries[j].2 = Cond::or(std::mem::replace(&mut entries[j].2, Cond::False), when);
            }
            None => {
                entries.swap(kept, i);
                kept += 1;
            }
        }
    }
    entries.truncate(kept);
}
