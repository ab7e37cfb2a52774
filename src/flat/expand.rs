//! The value of an expression as a tree of scalar expressions ([`Val`]): an array is the
//! list of its elements, a record the list of its fields. Equations between arrays or
//! records become one scalar equation per leaf. Every size is known here: aggregates
//! (`x` for `x[1]`, `x[2]`), array constructors `{…}` and `[…; …]`, ranges, slices
//! (`x[:]`, `x[2:3]`), elementwise operators and builtins, scalar × array, vector and
//! matrix products, and the array builtins of `arrays.rs` (`sum`, `size`, `fill`, …).
//! Record constructors and record-valued functions with a one-assignment body are
//! inlined (`records.rs`).
//!
//! What stays as written: a scalar expression without aggregates (the original is used
//! when nothing changed: [`Expander::changed`]); the arguments of a function whose value
//! is a scalar (`interpolate(table, u)`, `abs(v)`: whole arrays and records there are read
//! as a whole and recorded in [`super::FlatModel::aggregate_reads`]); a reference with a
//! subscript that is not static (`x[k]`, recorded the same way). A call whose array or
//! record value cannot be read element by element is [`Val::Opaque`]: its equation is a
//! block.

use super::eval::Env;
use super::names::folded_name;
use super::types::Classes;
use super::walk::{name_expr, ref_name, visit_args};
use super::{Aggregate, FlatModel};
use crate::syntax::ast::{BinOp, Call, Expr, ExprKind, IfExpr, Subscript, UnOp, text};
use std::collections::HashMap;

/// The value of an expression.
#[derive(Clone, Debug)]
pub(super) enum Val {
    Scalar(Expr),
    Array(Vec<Val>),
    /// Fields by name (`re`, `im`), in order.
    Record(Vec<(String, Val)>),
    /// A call whose array or record value is not known element by element.
    Opaque,
}

impl Val {
    /// The number of scalars, if known.
    pub(super) fn leaves(&self) -> Option<usize> {
        match self {
            Val::Scalar(_) => Some(1),
            Val::Array(xs) => xs.iter().map(Val::leaves).sum(),
            Val::Record(fs) => fs.iter().map(|(_, v)| v.leaves()).sum(),
            Val::Opaque => None,
        }
    }

    pub(super) fn is_opaque(&self) -> bool {
        match self {
            Val::Opaque => true,
            Val::Scalar(_) => false,
            Val::Array(xs) => xs.iter().any(Val::is_opaque),
            Val::Record(fs) => fs.iter().any(|(_, v)| v.is_opaque()),
        }
    }
}

pub(super) type Res<T> = Result<T, String>;

/// Evaluates expressions to [`Val`]s for one model.
pub(super) struct Expander<'m, 'c> {
    pub m: &'m mut FlatModel<'c>,
    pub classes: &'m Classes<'c>,
    pub bindings: &'m HashMap<String, crate::syntax::ast::Expr>,
    /// Set when a value differs from its expression as written.
    pub changed: bool,
    /// The function whose call made a value opaque.
    pub opaque: Option<String>,
    /// Inputs of the functions being inlined, innermost last.
    pub locals: Vec<HashMap<String, Val>>,
}

impl<'m, 'c> Expander<'m, 'c> {
    pub(super) fn env(&self) -> Env<'m> {
        Env { bindings: self.bindings }
    }

    pub(super) fn value(&mut self, e: &Expr) -> Res<Val> {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::String(_) | ExprKind::Bool(_) | ExprKind::End => Ok(Val::Scalar(e.clone())),
            ExprKind::Name(_) | ExprKind::Ref(_) => self.reference(e),
            ExprKind::Call(c) => self.call(e, c),
            ExprKind::Unary(op, x) => {
                let v = self.value(x)?;
                Ok(map(v, &mut |s| Expr::new(ExprKind::Unary(*op, Box::new(s)), e.span)))
            }
            ExprKind::Binary(op, xs) => {
                let (a, b) = (self.value(&xs[0])?, self.value(&xs[1])?);
                self.binary(*op, a, b, e)
            }
            ExprKind::If(x) => self.if_value(x, e),
            ExprKind::Range(_) => {
                self.changed = true;
                let values = self.range(e).ok_or("a range whose bounds are not known statically")?;
                Ok(Val::Array(values.into_iter().map(|v| Val::Scalar(int(v, e))).collect()))
            }
            ExprKind::Array(xs) => {
                self.changed = true;
                Ok(Val::Array(xs.iter().map(|x| self.value(x)).collect::<Res<_>>()?))
            }
            ExprKind::Matrix(rows) => {
                self.changed = true;
                self.matrix(rows)
            }
            ExprKind::ArrayComprehension(c) => {
                self.changed = true;
                Ok(Val::Array(self.comprehension(c)?))
            }
            ExprKind::Tuple(_) => Err("a parenthesised list where a value is expected".into()),
            ExprKind::Partial(_) | ExprKind::Boxed(_) => {
                self.record_reads(e);
                Ok(Val::Scalar(e.clone()))
            }
            ExprKind::Subscripted(s) => {
                if !self.static_subscripts(&s.subscripts) {
                    // `{{…}}[k + 1, 1]`: a table read at a variable index stays as written.
                    self.record_reads(e);
                    return Ok(Val::Scalar(e.clone()));
                }
                self.changed = true;
                let base = self.value(&s.base)?;
                self.index(base, &s.subscripts)
            }
        }
    }

    /// The values of a static range or array of integers (`1:n`, `{1, 3}`).
    pub(super) fn range(&self, e: &Expr) -> Option<Vec<i64>> {
        let env = self.env();
        match &e.kind {
            ExprKind::Range(r) => {
                let (a, b) = (env.int(&r.start)?, env.int(&r.stop)?);
                let step = match &r.step {
                    Some(s) => env.int(s)?,
                    None => 1,
                };
                if step == 0 || (b - a) / step > 1_000_000 {
                    return None;
                }
                let mut out = Vec::new();
                let mut k = a;
                while (step > 0 && k <= b) || (step < 0 && k >= b) {
                    out.push(k);
                    k += step;
                }
                Some(out)
            }
            ExprKind::Array(xs) => xs.iter().map(|x| env.int(x)).collect(),
            _ => None,
        }
    }

    /// A reference: a local of an inlined function, a scalar, an aggregate, or a name the
    /// model does not declare (kept as written).
    fn reference(&mut self, e: &Expr) -> Res<Val> {
        if let Some(v) = self.local(e)? {
            return Ok(v);
        }
        let env = self.env();
        let folded = match &e.kind {
            ExprKind::Name(n) => Some(n.as_str().to_string()),
            ExprKind::Ref(r) => folded_name(r, &env),
            _ => None,
        };
        if let Some(name) = folded {
            if self.m.find(name.as_str()).is_some() {
                if ref_name(e).as_deref() != Some(&name) {
                    self.changed = true;
                    return Ok(Val::Scalar(name_expr(&name, e.span)));
                }
                return Ok(Val::Scalar(e.clone()));
            }
            if let Some(v) = self.aggregate_value(&name, e, 0) {
                self.changed = true;
                return Ok(v);
            }
            return Ok(Val::Scalar(e.clone()));
        }
        self.slice(e)
    }

    /// The value of an aggregate named `name` (its scalars as references).
    fn aggregate_value(&mut self, name: &str, at: &Expr, depth: u32) -> Option<Val> {
        if depth > 32 {
            return None;
        }
        match self.m.aggregate(name)?.clone() {
            Aggregate::Array { elements, .. } => {
                let mut out = Vec::with_capacity(elements.len());
                for el in elements {
                    out.push(self.name_value(&el, at, depth + 1)?);
                }
                Some(Val::Array(out))
            }
            Aggregate::Record { fields } => {
                let mut out = Vec::with_capacity(fields.len());
                for f in fields {
                    let short = f[name.len() + 1..].to_string();
                    out.push((short, self.name_value(&f, at, depth + 1)?));
                }
                Some(Val::Record(out))
            }
        }
    }

    fn name_value(&mut self, name: &str, at: &Expr, depth: u32) -> Option<Val> {
        if self.m.find(name).is_some() {
            return Some(Val::Scalar(name_expr(name, at.span)));
        }
        self.aggregate_value(name, at, depth)
    }

    /// Are all subscripts static integers, `:`, ranges or arrays of integers?
    fn static_subscripts(&self, subs: &[Subscript]) -> bool {
        let env = self.env();
        subs.iter().all(|s| match s {
            Subscript::All(_) => true,
            Subscript::Expr(x) => env.int(x).is_some() || self.range(x).is_some(),
        })
    }

    /// A reference with a subscript that is not a static integer: a slice (`:`, a range,
    /// an array of indices) selects elements; any other subscript (`x[k]`) reads the
    /// reference as a whole.
    fn slice(&mut self, e: &Expr) -> Res<Val> {
        let ExprKind::Ref(r) = &e.kind else { return Ok(Val::Scalar(e.clone())) };
        let slicing = r.parts.iter().all(|p| self.static_subscripts(&p.subscripts));
        if !slicing {
            self.record_reads(e);
            return Ok(Val::Scalar(e.clone()));
        }
        self.changed = true;
        let mut prefix = String::new();
        let mut val: Option<Val> = None;
        for (k, part) in r.parts.iter().enumerate() {
            if val.is_some() {
                // A field of every element selected so far.
                let field = part.ident.text.as_str().to_string();
                let v = val.take().expect("set");
                let picked = select_field(v, &field).ok_or_else(|| format!("no field `{field}` in `{}`", prefix))?;
                val = Some(self.index(picked, &part.subscripts)?);
                continue;
            }
            if k > 0 {
                prefix.push('.');
            }
            prefix.push_str(&part.ident.text);
            if part.subscripts.is_empty() {
                continue;
            }
            let base = self
                .aggregate_value(&prefix, e, 0)
                .ok_or_else(|| format!("`{prefix}` is not an array of known size"))?;
            val = Some(self.index(base, &part.subscripts)?);
        }
        val.ok_or_else(|| "a reference without subscripts".to_string())
    }

    /// Selects with subscripts: static indices, `:`, ranges and arrays of indices.
    pub(super) fn index(&mut self, v: Val, subs: &[Subscript]) -> Res<Val> {
        let Some((first, rest)) = subs.split_first() else { return Ok(v) };
        if matches!(v, Val::Opaque) {
            // `f(x)[1]`: omc's first output of a function with several, or an element.
            return Ok(Val::Opaque);
        }
        let Val::Array(xs) = v else {
            return Err("a subscript on a value that is not an array".into());
        };
        let env = self.env();
        let pick = |xs: &[Val], k: i64| -> Res<Val> {
            usize::try_from(k - 1)
                .ok()
                .and_then(|i| xs.get(i))
                .cloned()
                .ok_or_else(|| format!("index {k} out of range"))
        };
        match first {
            Subscript::All(_) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.push(self.index(x, rest)?);
                }
                Ok(Val::Array(out))
            }
            Subscript::Expr(x) => {
                if let Some(k) = env.int(x) {
                    let el = pick(&xs, k)?;
                    return self.index(el, rest);
                }
                let ks = self.range(x).ok_or("a subscript that is not known statically")?;
                let mut out = Vec::with_capacity(ks.len());
                for k in ks {
                    let el = pick(&xs, k)?;
                    out.push(self.index(el, rest)?);
                }
                Ok(Val::Array(out))
            }
        }
    }

    /// Records, in [`FlatModel::aggregate_reads`], the scalars every reference inside `e`
    /// that is not a scalar may read.
    pub(super) fn record_reads(&mut self, e: &Expr) {
        let mut refs = Vec::new();
        super::walk::visit(e, &mut |x| {
            if matches!(x.kind, ExprKind::Name(_) | ExprKind::Ref(_)) {
                refs.push(x.clone());
            }
            true
        });
        let env = self.env();
        for r in refs {
            let Some(text) = ref_name(&r) else { continue };
            if self.m.find(text.as_str()).is_some() || self.m.aggregate_reads.contains_key(&text) {
                continue;
            }
            if let Some(scalars) = self.m.scalars_of_ref(&r, &env)
                && !scalars.is_empty()
            {
                self.m.aggregate_reads.insert(text, scalars);
            }
        }
    }

    /// An inlined function's input, or a field or element of one.
    fn local(&mut self, e: &Expr) -> Res<Option<Val>> {
        if self.locals.is_empty() {
            return Ok(None);
        }
        let env = self.env();
        let name = match &e.kind {
            ExprKind::Name(n) => n.as_str().to_string(),
            ExprKind::Ref(r) => match folded_name(r, &env) {
                Some(n) => n,
                None => return Ok(Some(Val::Opaque)),
            },
            _ => return Ok(None),
        };
        let scope = self.locals.last().expect("non-empty");
        let end = name.find(['.', '[']).unwrap_or(name.len());
        let Some(mut v) = scope.get(&name[..end]).cloned() else { return Ok(None) };
        let mut rest = &name[end..];
        while !rest.is_empty() {
            if matches!(v, Val::Opaque) {
                break;
            }
            if let Some(r) = rest.strip_prefix('.') {
                let end = r.find(['.', '[']).unwrap_or(r.len());
                v = select_field(v, &r[..end]).ok_or_else(|| format!("no field `{}`", &r[..end]))?;
                rest = &r[end..];
            } else if let Some(r) = rest.strip_prefix('[') {
                let close = r.find(']').ok_or("an unclosed subscript")?;
                for k in r[..close].split(", ") {
                    let k: i64 = k.parse().map_err(|_| "a subscript that is not known statically")?;
                    let Val::Array(xs) = v else { return Err("a subscript on a value that is not an array".into()) };
                    v = usize::try_from(k - 1).ok().and_then(|i| xs.into_iter().nth(i)).ok_or("index out of range")?;
                }
                rest = &r[close + 1..];
            } else {
                return Ok(Some(Val::Opaque));
            }
        }
        self.changed = true;
        Ok(Some(v))
    }

    fn if_value(&mut self, x: &IfExpr, e: &Expr) -> Res<Val> {
        let mut conds = Vec::new();
        let mut values = Vec::new();
        let mut last: Option<Val> = None;
        for (c, v) in &x.branches {
            let c = match self.value(c)? {
                Val::Scalar(c) => c,
                _ => return Err("an if-expression whose condition is not a scalar".into()),
            };
            // A static condition picks its branch (`if size(X, 1) == 2 then … else …`
            // in an inlined function): the other branch may not even have the same size.
            match self.env().eval(&c) {
                Some(super::eval::Value::Bool(true)) => {
                    self.changed = true;
                    last = Some(self.value(v)?);
                    break;
                }
                Some(super::eval::Value::Bool(false)) => self.changed = true,
                _ => {
                    conds.push(c);
                    values.push(self.value(v)?);
                }
            }
        }
        let mut acc = match last {
            Some(v) => v,
            None => self.value(&x.else_value)?,
        };
        while let (Some(c), Some(v)) = (conds.pop(), values.pop()) {
            acc = zip(v, acc, &mut |a, b| {
                Expr::new(ExprKind::If(Box::new(IfExpr { branches: vec![(c.clone(), a)], else_value: b })), e.span)
            })?;
        }
        // `if a then x elseif b then y else z` is rebuilt nested; it prints the same.
        Ok(flatten_ifs(acc))
    }

    fn binary(&mut self, op: BinOp, a: Val, b: Val, e: &Expr) -> Res<Val> {
        if a.is_opaque() || b.is_opaque() {
            return Ok(Val::Opaque);
        }
        let mut mk = |x: Expr, y: Expr| Expr::new(ExprKind::Binary(op, Box::new([x, y])), e.span);
        use BinOp::*;
        match (a, b) {
            (Val::Scalar(x), Val::Scalar(y)) => Ok(Val::Scalar(mk(x, y))),
            (Val::Array(xs), Val::Array(ys)) if op == Mul => super::arrays::product(xs, ys, e),
            (Val::Scalar(x), v) if matches!(op, Mul | ElemMul | ElemAdd | ElemSub | ElemDiv | ElemPow) => {
                Ok(map(v, &mut |y| mk(x.clone(), y)))
            }
            (v, Val::Scalar(y)) if matches!(op, Mul | Div | ElemMul | ElemAdd | ElemSub | ElemDiv | ElemPow) => {
                Ok(map(v, &mut |x| mk(x, y.clone())))
            }
            (a, b) if matches!(op, Add | Sub | ElemAdd | ElemSub | ElemMul | ElemDiv | ElemPow | And | Or) => {
                zip(a, b, &mut mk)
            }
            _ => Err(format!("the operator `{}` on arrays or records", op.symbol())),
        }
    }

    /// `[a, b; c, d]`: rows concatenated along the second dimension, then stacked.
    fn matrix(&mut self, rows: &[Vec<Expr>]) -> Res<Val> {
        let mut out: Vec<Val> = Vec::new();
        for row in rows {
            let mut parts = Vec::new();
            for x in row {
                parts.push(super::arrays::as_matrix(self.value(x)?)?);
            }
            let height = parts.first().map_or(0, Vec::len);
            if parts.iter().any(|p| p.len() != height) {
                return Err("a matrix row whose parts have different heights".into());
            }
            for i in 0..height {
                let mut line = Vec::new();
                for p in &parts {
                    match &p[i] {
                        Val::Array(xs) => line.extend(xs.iter().cloned()),
                        other => line.push(other.clone()),
                    }
                }
                out.push(Val::Array(line));
            }
        }
        Ok(Val::Array(out))
    }

    /// `{e for i in r, j in s}`: the values of `e` for every index, the first outermost.
    pub(super) fn comprehension(&mut self, c: &crate::syntax::ast::Comprehension) -> Res<Vec<Val>> {
        self.unroll(&c.expr, &c.indices)
    }

    fn unroll(&mut self, body: &Expr, indices: &[crate::syntax::ast::ForIndex]) -> Res<Vec<Val>> {
        let Some((first, rest)) = indices.split_first() else { return Ok(vec![self.value(body)?]) };
        let range = first.range.as_ref().ok_or("a for-index without a range")?;
        let values = self.range(range).ok_or("a for-index range that is not known statically")?;
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            let b = substitute(body, first.name.text.as_str(), v);
            let rs: Vec<crate::syntax::ast::ForIndex> = rest
                .iter()
                .map(|i| crate::syntax::ast::ForIndex {
                    name: i.name.clone(),
                    range: i.range.as_ref().map(|r| substitute(r, first.name.text.as_str(), v)),
                })
                .collect();
            let vals = self.unroll(&b, &rs)?;
            if rest.is_empty() {
                out.extend(vals);
            } else {
                out.push(Val::Array(vals));
            }
        }
        Ok(out)
    }

    fn call(&mut self, e: &Expr, c: &Call) -> Res<Val> {
        if let Some(v) = super::arrays::builtin(self, e, c)? {
            return Ok(v);
        }
        if let Some(v) = super::records::call(self, c)? {
            return Ok(v);
        }
        // A function whose value is a scalar: its arguments stay as written, but for whole
        // records of the model, read through their constructor.
        if !self.locals.is_empty() {
            return self.with_locals(e);
        }
        if let Some(call) = super::records::with_record_arguments(self, c)? {
            self.changed = true;
            self.argument_reads(&call);
            return Ok(Val::Scalar(Expr::new(ExprKind::Call(Box::new(call)), e.span)));
        }
        self.argument_reads(c);
        Ok(Val::Scalar(e.clone()))
    }

    /// [`Self::record_reads`] of each argument of `c`.
    fn argument_reads(&mut self, c: &Call) {
        let mut inner = Vec::new();
        visit_args(&c.args, &mut |x| {
            inner.push(x.clone());
            false
        });
        for x in &inner {
            self.record_reads(x);
        }
    }

    /// `e` with the inputs of the inlined functions replaced by their scalar values;
    /// opaque when an input that is an array or a record is read as a whole.
    fn with_locals(&mut self, e: &Expr) -> Res<Val> {
        let mut whole = false;
        let mut failed: Option<String> = None;
        let out = super::walk::map(e, &mut |x| match self.local(x) {
            Ok(Some(Val::Scalar(s))) => Some(s),
            // A record or array input read whole: the aggregate it came from, if any.
            Ok(Some(v)) => match aggregate_name(&v).filter(|n| self.is_whole(n, &v)) {
                Some(n) => Some(name_expr(&n, x.span)),
                None => {
                    whole = true;
                    Some(x.clone())
                }
            },
            Ok(None) => None,
            Err(err) => {
                failed = Some(err);
                Some(x.clone())
            }
        });
        if let Some(err) = failed {
            return Err(err);
        }
        if whole {
            return Ok(Val::Opaque);
        }
        self.changed = true;
        self.record_reads(&out);
        Ok(Val::Scalar(out))
    }
}

impl Expander<'_, '_> {
    /// Is `v` the whole of the model's aggregate `n`, every scalar in its place (not a
    /// slice `x[1:2]` of a longer `x`, nor some fields of a larger record)?
    fn is_whole(&mut self, n: &str, v: &Val) -> bool {
        let (locals, changed, opaque) = (std::mem::take(&mut self.locals), self.changed, self.opaque.take());
        let whole = self.value(&name_expr(n, crate::syntax::Span::DUMMY));
        (self.locals, self.changed, self.opaque) = (locals, changed, opaque);
        whole.is_ok_and(|w| leaf_names(&w) == leaf_names(v))
    }
}

/// The names of a value's scalars, in order (`None` for one that is not a name).
fn leaf_names(v: &Val) -> Vec<Option<String>> {
    super::arrays::leaves(v.clone()).iter().map(ref_name).collect()
}

/// The name of the aggregate whose scalars a value is, field by field or element by
/// element (`sat` for {`sat.Tsat`, `sat.psat`}, `x` for {`x[1]`, `x[2]`}).
fn aggregate_name(v: &Val) -> Option<String> {
    match v {
        Val::Scalar(e) => ref_name(e),
        Val::Record(fields) => {
            let mut prefix: Option<String> = None;
            for (f, x) in fields {
                let n = aggregate_name(x)?;
                let p = n.strip_suffix(f.as_str())?.strip_suffix('.')?.to_string();
                match &prefix {
                    Some(q) if *q != p => return None,
                    _ => prefix = Some(p),
                }
            }
            prefix
        }
        Val::Array(xs) => {
            let mut prefix: Option<String> = None;
            for (k, x) in xs.iter().enumerate() {
                let n = aggregate_name(x)?;
                let k = k + 1;
                let p = n
                    .strip_suffix(&format!("[{k}]"))
                    .map(str::to_string)
                    .or_else(|| n.strip_suffix(&format!(", {k}]")).map(|p| format!("{p}]")))?;
                match &prefix {
                    Some(q) if *q != p => return None,
                    _ => prefix = Some(p),
                }
            }
            prefix
        }
        Val::Opaque => None,
    }
}

/// `n` as an integer literal.
pub(super) fn int(n: i64, at: &Expr) -> Expr {
    Expr::new(ExprKind::Number(text(&n.to_string())), at.span)
}

/// Replaces the name `index` by the integer `v` (a for-index).
pub(super) fn substitute(e: &Expr, index: &str, v: i64) -> Expr {
    super::walk::map(e, &mut |x| match &x.kind {
        ExprKind::Name(n) if n.as_str() == index => {
            let lit = int(v.abs(), x);
            Some(if v < 0 { Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(lit)), x.span) } else { lit })
        }
        _ => None,
    })
}

/// Applies `f` to every scalar of `v`.
pub(super) fn map(v: Val, f: &mut dyn FnMut(Expr) -> Expr) -> Val {
    match v {
        Val::Scalar(s) => Val::Scalar(f(s)),
        Val::Array(xs) => Val::Array(xs.into_iter().map(|x| map(x, f)).collect()),
        Val::Record(fs) => Val::Record(fs.into_iter().map(|(n, x)| (n, map(x, f))).collect()),
        Val::Opaque => Val::Opaque,
    }
}

/// Combines two values of the same shape scalar by scalar.
pub(super) fn zip(a: Val, b: Val, f: &mut dyn FnMut(Expr, Expr) -> Expr) -> Res<Val> {
    match (a, b) {
        (Val::Scalar(x), Val::Scalar(y)) => Ok(Val::Scalar(f(x, y))),
        (Val::Array(xs), Val::Array(ys)) if xs.len() == ys.len() => {
            Ok(Val::Array(xs.into_iter().zip(ys).map(|(x, y)| zip(x, y, f)).collect::<Res<_>>()?))
        }
        (Val::Record(xs), Val::Record(ys)) if same_fields(&xs, &ys) => {
            let mut out = Vec::with_capacity(xs.len());
            let mut ys: HashMap<String, Val> = ys.into_iter().collect();
            for (n, x) in xs {
                let y = ys.remove(&n).expect("same fields");
                out.push((n, zip(x, y, f)?));
            }
            Ok(Val::Record(out))
        }
        (Val::Opaque, _) | (_, Val::Opaque) => Ok(Val::Opaque),
        (a, b) => Err(format!("values of different sizes ({} and {})", shape(&a), shape(&b))),
    }
}

fn same_fields(xs: &[(String, Val)], ys: &[(String, Val)]) -> bool {
    xs.len() == ys.len() && xs.iter().all(|(n, _)| ys.iter().any(|(m, _)| m == n))
}

/// A short description of a value's shape for messages: `scalar`, `array of 3`, `record {re, im}`.
pub(super) fn shape(v: &Val) -> String {
    match v {
        Val::Scalar(_) => "scalar".into(),
        Val::Array(xs) => format!("array of {}", xs.len()),
        Val::Record(fs) => format!("record {{{}}}", fs.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")),
        Val::Opaque => "unknown".into(),
    }
}

fn select_field(v: Val, field: &str) -> Option<Val> {
    match v {
        Val::Record(fs) => fs.into_iter().find(|(n, _)| n == field).map(|(_, v)| v),
        Val::Array(xs) => Some(Val::Array(xs.into_iter().map(|x| select_field(x, field)).collect::<Option<_>>()?)),
        _ => None,
    }
}

/// `if a then x else (if b then y else z)` → `if a then x elseif b then y else z`.
fn flatten_ifs(v: Val) -> Val {
    map(v, &mut |e| {
        let ExprKind::If(outer) = e.kind else { return e };
        let mut outer = *outer;
        loop {
            let else_value = std::mem::replace(&mut outer.else_value, Expr::new(ExprKind::End, e.span));
            match else_value.kind {
                ExprKind::If(inner) => {
                    let inner = *inner;
                    outer.branches.extend(inner.branches);
                    outer.else_value = inner.else_value;
                }
                kind => {
                    outer.else_value = Expr::new(kind, else_value.span);
                    break;
                }
            }
        }
        Expr::new(ExprKind::If(Box::new(outer)), e.span)
    })
}
