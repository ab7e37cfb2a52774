//! Time differentiation δ_k (paper 000 §4.6.3): d/dt of an expression of the model.
//!
//! Owns: [`DiffContext`], [`SymError`], [`time_derivative`], [`differentiate_n`].
//! Rules: `time` → 1; literals and time-invariant names (the caller's `is_constant`)
//! → 0; any other name or subscripted reference `x` → `der(x)`; `der(e)` → `der(der(x))`
//! when e is a name or a `der` chain of one, else δ(δ(e)), so `der` in a result only
//! ever applies to a name or to a nested `der` of a name; `+ - * / ^` (constant
//! exponent n: n·a^(n-1)·a'; general: a^b·(b'·log(a) + b·a'/a)), elementwise operators
//! as their scalar forms (the models are scalar); `if c then a else b` →
//! `if c then a' else b'`; `pre(x)` → 0; `noEvent(e)` → `noEvent(e')`;
//! `smooth(n, e)` → `smooth(n-1, e')`; `homotopy(a, s)` → `homotopy(a', s')`; math
//! builtins (`builtins`); user functions (`functions`): their `derivative` annotation
//! (§12.7.1: the inputs, then the derivatives of the Real inputs without
//! `noDerivative`/`zeroDerivative`), an `external` builtin, or the inlined
//! straight-line body. Relations, Boolean and string values, arrays, `min`/`max`,
//! `delay` and unknown functions are errors. Results are simplified.

use super::build::*;
use super::builtins;
use super::functions::{Body, Function, Functions};
use super::simplify::{add, div, mul, neg, pow, simplify, sub};
use crate::syntax::Span;
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string;

/// What differentiation needs to know about the model.
pub struct DiffContext<'a> {
    pub functions: &'a Functions,
    /// True for a name whose value does not vary continuously in time (parameter,
    /// constant, discrete variable): its derivative is 0. Gets the name as written,
    /// or the printed reference (`x[2]`).
    pub is_constant: &'a dyn Fn(&str) -> bool,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SymError {
    /// A call whose derivative is unknown: no `derivative` annotation, and a body
    /// that is not straight-line (or no definition at all).
    #[error("cannot differentiate a call to `{function}`: {reason}")]
    Function { function: Text, reason: String, span: Span },
    /// A subexpression that has no time derivative (a relation, a Boolean, …).
    #[error("cannot differentiate `{expr}`: {reason}")]
    NotDifferentiable { expr: String, reason: &'static str, span: Span },
}

impl SymError {
    pub fn span(&self) -> Span {
        match self {
            SymError::Function { span, .. } | SymError::NotDifferentiable { span, .. } => *span,
        }
    }
}

/// Nested inlining deeper than this is taken for recursion.
const MAX_INLINE: usize = 32;

/// Products of at least this many factors are differentiated with their repeated factors
/// grouped into powers ([`Diff::long_product`]); shorter ones by the binary rule.
const LONG_PRODUCT: usize = 16;

/// The factors of a product chain `a * b * …` (any nesting), left to right.
fn flatten_product<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::Mul | BinOp::ElemMul, xs) => {
            flatten_product(&xs[0], out);
            flatten_product(&xs[1], out);
        }
        _ => out.push(e),
    }
}

/// d/dt `e`, simplified.
pub fn time_derivative(e: &Expr, ctx: &DiffContext) -> Result<Expr, SymError> {
    Ok(simplify(&Diff { ctx, inlined: 0 }.d(e)?))
}

/// The k-th time derivative of `e` (k = 0: `e` simplified), derivatives of expressions
/// expanded first ([`expand_derivatives`]).
pub fn differentiate_n(e: &Expr, k: u32, ctx: &DiffContext) -> Result<Expr, SymError> {
    let mut r = simplify(&expand_derivatives(e, ctx)?);
    for _ in 0..k {
        r = time_derivative(&r, ctx)?;
    }
    Ok(r)
}

/// `e` with every `der(a)` whose argument is not a variable (nor a `der` chain of one)
/// replaced by δ(a): `der(y * T)` → `der(y) * T + y * der(T)`, `der(time)` → 1. omc prints
/// such derivatives (`der('tank.y' * 'tank.T')`); the analysis counts them as derivatives
/// of every variable inside, and REPL, which replaces each leading `der(x)` by its
/// replicate, must see them as such.
pub fn expand_derivatives(e: &Expr, ctx: &DiffContext) -> Result<Expr, SymError> {
    let d = Diff { ctx, inlined: 0 };
    let mut error = None;
    let out = d.expand(e, &mut error);
    match error {
        Some(err) => Err(err),
        None => Ok(out),
    }
}

struct Diff<'c, 'a> {
    ctx: &'c DiffContext<'a>,
    inlined: usize,
}

fn not_diff(e: &Expr, reason: &'static str) -> SymError {
    SymError::NotDifferentiable { expr: expr_to_string(e), reason, span: e.span }
}

impl Diff<'_, '_> {
    fn d(&self, e: &Expr) -> Result<Expr, SymError> {
        Ok(match &e.kind {
            ExprKind::Number(_) => zero(),
            ExprKind::Name(n) if n.as_str() == "time" => one(),
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                if (self.ctx.is_constant)(&expr_to_string(e)) {
                    zero()
                } else {
                    der(e.clone())
                }
            }
            ExprKind::Unary(UnOp::Neg, x) => neg(self.d(x)?),
            ExprKind::Unary(UnOp::Plus, x) => self.d(x)?,
            ExprKind::Binary(op, xs) => self.binary(*op, &xs[0], &xs[1], e)?,
            ExprKind::If(x) => {
                let mut branches = Vec::with_capacity(x.branches.len());
                for (c, v) in &x.branches {
                    branches.push((c.clone(), self.d(v)?));
                }
                super::simplify::rewrite(if_raw(branches, self.d(&x.else_value)?, e.span))
            }
            ExprKind::Call(c) => self.call(c, e)?,
            ExprKind::Unary(UnOp::Not, _) | ExprKind::Bool(_) => return Err(not_diff(e, "it is Boolean")),
            ExprKind::String(_) => return Err(not_diff(e, "it is a string")),
            _ => return Err(not_diff(e, "arrays, ranges and tuples are not differentiated")),
        })
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, e: &Expr) -> Result<Expr, SymError> {
        use BinOp::*;
        Ok(match op {
            Add | ElemAdd => add(self.d(a)?, self.d(b)?),
            Sub | ElemSub => sub(self.d(a)?, self.d(b)?),
            Mul | ElemMul => match self.long_product(e)? {
                Some(d) => d,
                None => add(mul(self.d(a)?, b.clone()), mul(a.clone(), self.d(b)?)),
            },
            Div | ElemDiv => {
                let (da, db) = (self.d(a)?, self.d(b)?);
                if is_zero(&db) {
                    div(da, b.clone())
                } else {
                    div(sub(mul(da, b.clone()), mul(a.clone(), db)), pow(b.clone(), int(2)))
                }
            }
            Pow | ElemPow => {
                let (da, db) = (self.d(a)?, self.d(b)?);
                if is_zero(&db) {
                    // n·a^(n-1)·a'
                    mul(mul(b.clone(), pow(a.clone(), sub(b.clone(), one()))), da)
                } else {
                    let log_a = call("log", vec![a.clone()]);
                    mul(e.clone(), add(mul(db, log_a), div(mul(b.clone(), da), a.clone())))
                }
            }
            _ => return Err(not_diff(e, "a relation or Boolean operator has no derivative")),
        })
    }

    /// d/dt of a product of at least [`LONG_PRODUCT`] factors in which some factor repeats:
    /// the factors grouped into powers (first occurrence order), then the product rule
    /// over the groups, Σ_g (∏_{h≠g} f_h^{m_h}) · m_g·f_g^(m_g−1)·f_g'. The binary rule on
    /// `x * x * … * x` (n factors) gives n terms of n factors, and n² terms of n factors at
    /// the second derivative (repro `slow_product_x129.mo`: 3.1 MB, 19.9 s); grouped it is
    /// `n * x^(n-1) * der(x)`. `None` for other products: shorter ones keep the binary rule
    /// (and their output as it was).
    fn long_product(&self, e: &Expr) -> Result<Option<Expr>, SymError> {
        let mut factors = Vec::new();
        flatten_product(e, &mut factors);
        if factors.len() < LONG_PRODUCT {
            return Ok(None);
        }
        let mut groups: Vec<(&Expr, i64)> = Vec::new();
        for f in factors {
            match groups.iter_mut().find(|(g, _)| super::build::same(g, f)) {
                Some((_, m)) => *m += 1,
                None => groups.push((f, 1)),
            }
        }
        if groups.iter().all(|g| g.1 == 1) {
            return Ok(None);
        }
        let power = |(f, m): &(&Expr, i64)| if *m == 1 { (*f).clone() } else { pow((*f).clone(), int(*m)) };
        let mut sum = zero();
        for (g, &(f, m)) in groups.iter().enumerate() {
            let df = self.d(f)?;
            if is_zero(&df) {
                continue;
            }
            let others =
                groups.iter().enumerate().filter(|&(h, _)| h != g).fold(one(), |acc, (_, x)| mul(acc, power(x)));
            let own = if m == 1 { df } else { mul(mul(int(m), pow(f.clone(), int(m - 1))), df) };
            sum = add(sum, mul(others, own));
        }
        Ok(Some(sum))
    }

    fn call(&self, c: &Call, e: &Expr) -> Result<Expr, SymError> {
        let name = c.function.text.as_str();
        let args = positional(c);
        let one_arg = args.and_then(|a| if let [x] = a { Some(x) } else { None });
        match (name, one_arg) {
            ("der", Some(x)) => {
                return if self.is_der_chain(x) { Ok(der(e.clone())) } else { self.d(&simplify(&self.d(x)?)) };
            }
            ("pre", Some(_)) => return Ok(zero()),
            ("noEvent", Some(x)) => return Ok(call("noEvent", vec![self.d(x)?])),
            _ => {}
        }
        match (name, args) {
            ("smooth", Some([n, x])) => {
                let dx = self.d(x)?;
                return Ok(match num_value(n) {
                    Some(Num::Int(k)) if k >= 1 => call("smooth", vec![int(k - 1), dx]),
                    _ => dx,
                });
            }
            ("homotopy", Some([a, s])) => return Ok(call("homotopy", vec![self.d(a)?, self.d(s)?])),
            _ => {}
        }
        let fail = |reason: String| SymError::Function { function: c.function.text, reason, span: e.span };
        let Some(f) = self.ctx.functions.get(name) else {
            return match builtins::builtin_name(name) {
                Some(b) => self.builtin(b, c, e),
                None => Err(fail("it is not a differentiable builtin and not defined in the file".to_string())),
            };
        };
        if let Some(r) = self.annotated(f, c).map_err(&fail)? {
            return Ok(r);
        }
        if let Body::External { builtin: Some(b) } = f.body {
            return self.builtin(b, c, e);
        }
        if self.inlined >= MAX_INLINE {
            return Err(fail("inlining nests too deep (a recursive function?)".to_string()));
        }
        let body = f.inline(c).map_err(|why| fail(format!("no derivative annotation and {why}")))?;
        Diff { ctx: self.ctx, inlined: self.inlined + 1 }.d(&body)
    }

    fn builtin(&self, b: &str, c: &Call, e: &Expr) -> Result<Expr, SymError> {
        let args = positional(c).unwrap_or(&[]);
        builtins::derivative(b, args, &mut |x| self.d(x))?.ok_or_else(|| SymError::Function {
            function: c.function.text,
            reason: format!("`{b}` does not take {} positional arguments", args.len()),
            span: e.span,
        })
    }

    /// [`expand_derivatives`]: the first error is kept in `error`.
    fn expand(&self, e: &Expr, error: &mut Option<SymError>) -> Expr {
        if let ExprKind::Call(c) = &e.kind
            && let (true, Some([x])) = (c.function.text == "der", positional(c))
        {
            if self.is_der_chain(x) {
                return e.clone();
            }
            return self.d(x).unwrap_or_else(|err| {
                error.get_or_insert(err);
                e.clone()
            });
        }
        map_children(e, &mut |c| self.expand(c, error))
    }

    /// A name that varies in time, or `der` of such a chain.
    fn is_der_chain(&self, x: &Expr) -> bool {
        match &x.kind {
            ExprKind::Name(n) if n.as_str() == "time" => false,
            ExprKind::Name(_) | ExprKind::Ref(_) => !(self.ctx.is_constant)(&expr_to_string(x)),
            ExprKind::Call(c) if c.function.text == "der" => {
                positional(c).is_some_and(|a| matches!(a, [y] if self.is_der_chain(y)))
            }
            _ => false,
        }
    }

    /// f_der(x…, dx…) from the first usable `derivative` annotation of `f`; `None`
    /// when there is none (or every one has a `zeroDerivative` input that varies).
    fn annotated(&self, f: &Function, c: &Call) -> Result<Option<Expr>, String> {
        if f.derivatives.is_empty() {
            return Ok(None);
        }
        let args = f.bind_args(c)?;
        'annotations: for a in &f.derivatives {
            let mut reals = Vec::new();
            for (p, x) in f.inputs.iter().zip(&args) {
                if a.zero_derivative.contains(&p.name) {
                    if !is_zero(&simplify(&self.d(x).map_err(|e| e.to_string())?)) {
                        continue 'annotations;
                    }
                } else if p.real && !a.no_derivative.contains(&p.name) {
                    reals.push(x);
                }
            }
            // Order k > 1: f already takes derivative inputs; only the highest ones are
            // differentiated again (§12.7.1: h1(x, der_x) → h2(x, der_x, der_2_x)).
            let order = usize::try_from(a.order).unwrap_or(1).max(1);
            let skip = reals.len() - reals.len() / order;
            let mut out = args.clone();
            for x in &reals[skip..] {
                out.push(simplify(&self.d(x).map_err(|e| e.to_string())?));
            }
            return Ok(Some(call(&a.function, out)));
        }
        Ok(None)
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
