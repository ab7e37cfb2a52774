//! The equations of the model split into the continuous part (scalar rows and blocks)
//! and what passes through.
//!
//! A source equation that yields no continuous row passes through as written; one that
//! yields only rows that are the equation itself stays as written; otherwise its rows
//! are generated (one per scalar of an array or record equation, one per index of a
//! for-equation, the continuous skeleton of an if-equation) and its discrete parts pass
//! through as generated equations (the discrete skeleton of the if-equation, with the
//! same conditions). When-equations, clocked partitions, `assert`, `terminate` and other
//! call equations pass through; a tuple equation or an equation with an opaque call is a
//! block and passes through as written.

use super::expand::{Expander, Val, shape, substitute};
use super::types::Classes;
use super::walk::map_equation;
use super::{FlatEquation, FlatError, FlatModel, Source};
use crate::syntax::ast::{ClassPart, Composition, Equation, EquationKind, Expr, ExprKind, ForIndex};
use std::borrow::Cow;

/// What one source equation yields: the equation itself borrowed where it is kept as
/// written, generated equations owned.
#[derive(Default)]
pub(super) struct Out<'e> {
    pub rows: Vec<FlatEquation<'e>>,
    pub passed: Vec<Cow<'e, Equation>>,
    /// The rows are exactly the source equation.
    pub as_written: bool,
}

impl<'e> Out<'e> {
    pub(super) fn passed(eq: &'e Equation) -> Out<'e> {
        Out { rows: Vec::new(), passed: vec![Cow::Borrowed(eq)], as_written: false }
    }

    fn row(eq: &'e Equation) -> Out<'e> {
        Out { rows: vec![FlatEquation::Real { equation: Source::Written(eq) }], passed: Vec::new(), as_written: true }
    }

    /// The same, every equation owned (what a generated equation yields outlives it).
    fn owned<'b>(self) -> Out<'b> {
        let rows = self
            .rows
            .into_iter()
            .map(|r| match r {
                FlatEquation::Real { equation: Source::Written(e) } => {
                    FlatEquation::Real { equation: Source::Generated(Box::new(e.clone())) }
                }
                FlatEquation::Real { equation: Source::Generated(e) } => {
                    FlatEquation::Real { equation: Source::Generated(e) }
                }
                FlatEquation::Block(b) => FlatEquation::Block(b),
            })
            .collect();
        let passed = self.passed.into_iter().map(|e| Cow::Owned(e.into_owned())).collect();
        Out { rows, passed, as_written: self.as_written }
    }
}

/// Fills `m.equations` and `m.passed` from the model's equation and algorithm sections.
pub(super) fn equations<'a>(
    m: &mut FlatModel<'a>,
    comp: &'a Composition,
    classes: &Classes<'a>,
) -> Result<(), FlatError> {
    let bindings = std::mem::take(&mut m.bindings);
    let (rows, passed) = {
        let mut x = Expander { m, classes, bindings: &bindings, changed: false, opaque: None, locals: Vec::new() };
        let mut rows = Vec::new();
        let mut passed = Vec::new();
        for part in &comp.parts {
            match part {
                ClassPart::Equations { initial: false, equations, .. } => {
                    for eq in equations {
                        let out = equation(&mut x, eq)?;
                        rows.extend(out.rows);
                        passed.extend(out.passed);
                    }
                }
                ClassPart::Algorithm { initial: false, statements, span } => {
                    if let Some(b) = super::blocks::algorithm(&mut x, statements, *span) {
                        rows.push(FlatEquation::Block(Box::new(b)));
                    }
                }
                _ => {}
            }
        }
        (rows, passed)
    };
    m.bindings = bindings;
    m.equations = rows;
    m.passed = passed;
    Ok(())
}

fn equation<'e>(x: &mut Expander, eq: &'e Equation) -> Result<Out<'e>, FlatError> {
    if x.m.clocked.contains(&eq.span()) {
        return Ok(Out::passed(eq));
    }
    match &eq.kind {
        EquationKind::When { .. } => Ok(Out::passed(eq)),
        EquationKind::Connect(_) => {
            Err(FlatError::new(eq.span(), "unsupported construct `connect` (flatten the model first)"))
        }
        EquationKind::Call(c) if c.function.text.as_str() == "reinit" => {
            Err(FlatError::new(eq.span(), "`reinit` is only allowed inside a when-equation"))
        }
        EquationKind::Call(_) => Ok(Out::passed(eq)),
        EquationKind::For { indices, body } => for_equation(x, eq, indices, body),
        EquationKind::Simple { lhs, .. } if matches!(lhs.kind, ExprKind::Tuple(_)) => Ok(super::blocks::tuple(x, eq)),
        EquationKind::Simple { lhs, rhs } => simple(x, eq, lhs, rhs),
        EquationKind::If { branches, else_branch } => if_equation(x, eq, branches, else_branch.as_deref()),
    }
}

fn simple<'e>(x: &mut Expander, eq: &'e Equation, lhs: &Expr, rhs: &Expr) -> Result<Out<'e>, FlatError> {
    x.changed = false;
    x.opaque = None;
    let refused = |why: String| FlatError::new(eq.span(), format!("unsupported construct: {why}"));
    let l = x.value(lhs).map_err(refused)?;
    let r = x.value(rhs).map_err(refused)?;
    if l.is_opaque() || r.is_opaque() {
        let f = x.opaque.clone().unwrap_or_default();
        let rows = l
            .leaves()
            .or(r.leaves())
            .ok_or_else(|| refused(format!("an equation between two calls whose values have no known size (`{f}`)")))?;
        let what = format!("equation with a call to `{f}` whose value is read as a whole");
        return Ok(match super::blocks::equation_block(x, eq, what, rows) {
            Some(b) => {
                Out { rows: vec![FlatEquation::Block(Box::new(b))], passed: vec![Cow::Borrowed(eq)], as_written: false }
            }
            None => Out::passed(eq),
        });
    }
    let mut pairs = Vec::new();
    pair(l, r, &mut pairs).map_err(|why| refused(format!("an equation between {why}")))?;
    if !x.changed && pairs.len() == 1 {
        return Ok(if x.is_continuous(lhs, rhs) { Out::row(eq) } else { Out::passed(eq) });
    }
    let single = pairs.len() == 1;
    let mut out = Out::default();
    for (a, b) in pairs {
        let continuous = x.is_continuous(&a, &b);
        let label = if single { eq.label().cloned() } else { None };
        let g = Equation::new(label, EquationKind::Simple { lhs: a, rhs: b }, None, eq.span());
        if continuous {
            out.rows.push(FlatEquation::Real { equation: Source::Generated(Box::new(g)) });
        } else {
            out.passed.push(Cow::Owned(g));
        }
    }
    Ok(if out.rows.is_empty() { Out::passed(eq) } else { out })
}

/// The scalar equations between two values of the same shape.
fn pair(l: Val, r: Val, out: &mut Vec<(Expr, Expr)>) -> Result<(), String> {
    match (l, r) {
        (Val::Scalar(a), Val::Scalar(b)) => out.push((a, b)),
        (Val::Array(xs), Val::Array(ys)) if xs.len() == ys.len() => {
            for (a, b) in xs.into_iter().zip(ys) {
                pair(a, b, out)?;
            }
        }
        (Val::Record(xs), Val::Record(ys)) if xs.len() == ys.len() => {
            let mut ys = ys;
            for (n, a) in xs {
                let k =
                    ys.iter().position(|(m, _)| *m == n).ok_or_else(|| format!("records without the field `{n}`"))?;
                let (_, b) = ys.remove(k);
                pair(a, b, out)?;
            }
        }
        (a, b) => return Err(format!("values of different sizes ({} and {})", shape(&a), shape(&b))),
    }
    Ok(())
}

fn if_equation<'e>(
    x: &mut Expander,
    eq: &'e Equation,
    branches: &[(Expr, Vec<Equation>)],
    else_branch: Option<&[Equation]>,
) -> Result<Out<'e>, FlatError> {
    let mut continuous: Vec<(Expr, Vec<Equation>)> = Vec::new();
    let mut discrete: Vec<(Expr, Vec<Equation>)> = Vec::new();
    let mut as_written = true;
    let mut any_row = false;
    let mut any_passed = false;
    let mut split_body = |x: &mut Expander, body: &[Equation]| -> Result<(Vec<Equation>, Vec<Equation>), FlatError> {
        let (mut rows, mut passed) = (Vec::new(), Vec::new());
        for e in body {
            let out = equation(x, e)?;
            as_written &= out.as_written;
            for r in out.rows {
                match r {
                    FlatEquation::Real { equation: Source::Written(e) } => rows.push(e.clone()),
                    FlatEquation::Real { equation: Source::Generated(e) } => rows.push(*e),
                    FlatEquation::Block(b) => {
                        return Err(FlatError::new(
                            b.span,
                            format!("unsupported construct: a {} inside an if-equation", b.what),
                        ));
                    }
                }
            }
            passed.extend(out.passed.into_iter().map(Cow::into_owned));
        }
        any_row |= !rows.is_empty();
        any_passed |= !passed.is_empty();
        Ok((rows, passed))
    };
    for (c, body) in branches {
        let (r, p) = split_body(x, body)?;
        continuous.push((c.clone(), r));
        discrete.push((c.clone(), p));
    }
    let else_parts = match else_branch {
        Some(body) => Some(split_body(x, body)?),
        None => None,
    };
    if !any_row {
        return Ok(Out::passed(eq));
    }
    if as_written && !any_passed {
        return Ok(Out::row(eq));
    }
    let (else_rows, else_passed) = match else_parts {
        Some((r, p)) => (Some(r), Some(p)),
        None => (None, None),
    };
    let rebuilt = |branches, else_branch: Option<Vec<Equation>>| {
        let else_branch = else_branch.map(Vec::into_boxed_slice);
        Equation::new(None, EquationKind::If { branches, else_branch }, None, eq.span())
    };
    let equation = Source::Generated(Box::new(rebuilt(continuous, else_rows)));
    let mut out = Out { rows: vec![FlatEquation::Real { equation }], ..Out::default() };
    if any_passed {
        out.passed.push(Cow::Owned(rebuilt(discrete, else_passed)));
    }
    Ok(out)
}

/// Unrolls a for-equation over static ranges.
fn for_equation<'e>(
    x: &mut Expander,
    eq: &'e Equation,
    indices: &[ForIndex],
    body: &[Equation],
) -> Result<Out<'e>, FlatError> {
    let mut generated = Vec::new();
    unroll(x, eq, indices, body, &mut generated)?;
    let mut out = Out::default();
    for g in &generated {
        let o = equation(x, g)?.owned();
        out.rows.extend(o.rows);
        out.passed.extend(o.passed);
    }
    Ok(if out.rows.is_empty() { Out::passed(eq) } else { out })
}

fn unroll(
    x: &mut Expander,
    eq: &Equation,
    indices: &[ForIndex],
    body: &[Equation],
    out: &mut Vec<Equation>,
) -> Result<(), FlatError> {
    let Some((first, rest)) = indices.split_first() else {
        out.extend(body.iter().cloned());
        return Ok(());
    };
    let name = first.name.text.as_str();
    let values = first.range.as_ref().and_then(|r| x.range(r)).ok_or_else(|| {
        FlatError::new(
            eq.span(),
            format!("unsupported construct: a for-equation whose range of `{name}` is not known statically"),
        )
    })?;
    for v in values {
        let sub = |e: &Expr| Some(substitute(e, name, v));
        let body: Vec<Equation> = body.iter().map(|b| map_equation(b, &mut |e| sub(e))).collect();
        let rest: Vec<ForIndex> = rest
            .iter()
            .map(|i| ForIndex { name: i.name.clone(), range: i.range.as_ref().map(|r| substitute(r, name, v)) })
            .collect();
        unroll(x, eq, &rest, &body, out)?;
    }
    Ok(())
}
