//! Builtin functions on arrays, evaluated to [`Val`]s where every size is known:
//! elementwise builtins applied to arrays (`der(x)`, `abs(v)`, `smooth(0, x)`), the
//! reductions `sum`, `product`, `min`/`max` of one array, `size`, `ndims`, the
//! constructors `fill`, `zeros`, `ones`, `cat`, `array`, `identity`, `diagonal`,
//! `linspace`, and `vector`, `scalar`, `matrix`, `promote`, `transpose`, `cross`, `skew`,
//! `outerProduct`;
//! vector and matrix products. A builtin whose arguments are all scalars is rebuilt
//! as written.

use super::expand::{Expander, Res, Val, int};
use crate::syntax::ast::{BinOp, Call, Expr, ExprKind, FunctionArgs, Ident, NamedArg, text};

/// Builtins applied element by element to array arguments (scalar arguments broadcast).
const ELEMENTWISE: &[&str] = &[
    "der",
    "pre",
    "noEvent",
    "abs",
    "sign",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "log",
    "log10",
    "floor",
    "ceil",
    "integer",
    "edge",
    "change",
    "smooth",
    "delay",
    "homotopy",
    "atan2",
    "div",
    "mod",
    "rem",
    "semiLinear",
    "previous",
    "hold",
];

/// The value of a builtin call, or `None` when `c` is not a builtin handled here.
pub(super) fn builtin(x: &mut Expander, e: &Expr, c: &Call) -> Res<Option<Val>> {
    let f = c.function.text.as_str();
    let FunctionArgs::List { positional, named } = &c.args else {
        return match f {
            "sum" | "product" | "array" | "min" | "max" => {
                let FunctionArgs::Comprehension(comp) = &c.args else { unreachable!() };
                x.changed = true;
                let values = x.comprehension(comp)?;
                Ok(Some(reduce(f, Val::Array(values), e)?))
            }
            _ => Ok(None),
        };
    };
    let one_array = positional.len() == 1 && named.is_empty();
    let v = match f {
        _ if ELEMENTWISE.contains(&f) || (matches!(f, "min" | "max") && positional.len() == 2) => {
            return elementwise(x, e, c, positional, named).map(Some);
        }
        "sum" | "product" | "min" | "max" if one_array => {
            let a = x.value(&positional[0])?;
            if matches!(a, Val::Scalar(_)) && f != "sum" && f != "product" {
                return Ok(Some(a));
            }
            reduce(f, a, e)?
        }
        "size" | "ndims" if !positional.is_empty() => {
            let a = x.value(&positional[0])?;
            let sizes = sizes(&a);
            match (f, positional.get(1)) {
                ("ndims", _) => Val::Scalar(int(sizes.len() as i64, e)),
                (_, Some(k)) => {
                    let k = x.env().int(k).ok_or("`size` with a dimension that is not static")?;
                    let s = usize::try_from(k - 1)
                        .ok()
                        .and_then(|k| sizes.get(k))
                        .ok_or("`size` of a missing dimension")?;
                    Val::Scalar(int(*s as i64, e))
                }
                _ => Val::Array(sizes.iter().map(|&s| Val::Scalar(int(s as i64, e))).collect()),
            }
        }
        "fill" | "zeros" | "ones" if named.is_empty() => {
            let (value, dims) = match f {
                "fill" => (x.value(positional.first().ok_or("`fill` without a value")?)?, &positional[1..]),
                "zeros" => (Val::Scalar(number("0", e)), &positional[..]),
                _ => (Val::Scalar(number("1", e)), &positional[..]),
            };
            let env = x.env();
            let dims: Vec<usize> = dims
                .iter()
                .map(|d| env.int(d).and_then(|k| usize::try_from(k).ok()))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("`{f}` with a size that is not known statically"))?;
            filled(&value, &dims)
        }
        "cat" if positional.len() >= 2 && named.is_empty() => {
            let k = x.env().int(&positional[0]).ok_or("`cat` along a dimension that is not static")?;
            let parts: Vec<Val> = positional[1..].iter().map(|p| x.value(p)).collect::<Res<_>>()?;
            cat(k, parts)?
        }
        "array" if named.is_empty() => Val::Array(positional.iter().map(|p| x.value(p)).collect::<Res<_>>()?),
        "vector" | "scalar" | "transpose" | "skew" | "diagonal" if one_array => {
            let a = x.value(&positional[0])?;
            match f {
                "vector" => Val::Array(leaves(a).into_iter().map(Val::Scalar).collect()),
                "scalar" => {
                    let mut ls = leaves(a);
                    if ls.len() != 1 {
                        return Err("`scalar` of an array with more than one element".into());
                    }
                    Val::Scalar(ls.remove(0))
                }
                "transpose" => transpose(a)?,
                "skew" => skew(a, e)?,
                _ => diagonal(a, e)?,
            }
        }
        "promote" | "matrix" if named.is_empty() && !positional.is_empty() => {
            let a = x.value(&positional[0])?;
            let n = match (f, positional.get(1)) {
                ("matrix", _) => 2,
                (_, Some(k)) => x.env().int(k).ok_or("`promote` to a number of dimensions that is not static")?,
                _ => return Err("`promote` without a number of dimensions".into()),
            };
            let rank = sizes(&a).len() as i64;
            promote(a, n - rank)
        }
        "identity" if one_array => {
            let n = x.env().int(&positional[0]).ok_or("`identity` of a size that is not static")?;
            let n = usize::try_from(n).map_err(|_| "`identity` of a negative size")?;
            let ones = Val::Array((0..n).map(|_| Val::Scalar(number("1", e))).collect());
            diagonal(ones, e)?
        }
        "cross" | "outerProduct" if positional.len() == 2 && named.is_empty() => {
            let (a, b) = (leaves(x.value(&positional[0])?), leaves(x.value(&positional[1])?));
            if f == "cross" {
                cross(&a, &b, e)?
            } else {
                Val::Array(
                    a.iter()
                        .map(|ai| Val::Array(b.iter().map(|bj| Val::Scalar(bin(BinOp::Mul, ai, bj, e))).collect()))
                        .collect(),
                )
            }
        }
        "linspace" if positional.len() == 3 && named.is_empty() => {
            let n = x.env().int(&positional[2]).ok_or("`linspace` with a size that is not static")?;
            let (a, b) = (&positional[0], &positional[1]);
            let step = bin(BinOp::Div, &bin(BinOp::Sub, b, a, e), &int(n - 1, e), e);
            Val::Array(
                (0..n).map(|k| Val::Scalar(bin(BinOp::Add, a, &bin(BinOp::Mul, &int(k, e), &step, e), e))).collect(),
            )
        }
        _ => return Ok(None),
    };
    x.changed = true;
    Ok(Some(v))
}

/// An elementwise builtin: rebuilt as written on scalars, applied element by element
/// (scalars broadcast) when an argument is an array.
fn elementwise(x: &mut Expander, e: &Expr, c: &Call, positional: &[Expr], named: &[NamedArg]) -> Res<Val> {
    let mut args: Vec<Val> = positional.iter().map(|p| x.value(p)).collect::<Res<_>>()?;
    for n in named {
        args.push(x.value(&n.value)?);
    }
    if args.iter().any(Val::is_opaque) {
        return Ok(Val::Opaque);
    }
    let names: Vec<Ident> = named.iter().map(|n| n.name.clone()).collect();
    apply(&c.function, positional.len(), &names, args, e)
}

fn apply(f: &Ident, npos: usize, names: &[Ident], args: Vec<Val>, e: &Expr) -> Res<Val> {
    let len = args.iter().find_map(|a| match a {
        Val::Array(xs) => Some(xs.len()),
        _ => None,
    });
    let Some(len) = len else {
        let mut scalars = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Val::Scalar(s) => scalars.push(s),
                _ => return Err(format!("`{}` of a record", f.text.as_str())),
            }
        }
        let named: crate::syntax::ast::ThinList<NamedArg> =
            names.iter().zip(scalars.split_off(npos)).map(|(n, v)| NamedArg { name: n.clone(), value: v }).collect();
        let call = Call { function: f.clone(), args: FunctionArgs::List { positional: scalars.into(), named } };
        return Ok(Val::Scalar(Expr::new(ExprKind::Call(Box::new(call)), e.span)));
    };
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let ith: Vec<Val> = args
            .iter()
            .map(|a| match a {
                Val::Array(xs) if xs.len() == len => Ok(xs[i].clone()),
                Val::Array(_) => Err(format!("arguments of `{}` with different sizes", f.text.as_str())),
                other => Ok(other.clone()),
            })
            .collect::<Res<_>>()?;
        out.push(apply(f, npos, names, ith, e)?);
    }
    Ok(Val::Array(out))
}

/// `sum`, `product`, `min`, `max` of every element, `array` of the values.
fn reduce(f: &str, v: Val, e: &Expr) -> Res<Val> {
    if f == "array" {
        return Ok(v);
    }
    if v.is_opaque() {
        return Ok(Val::Opaque);
    }
    let mut ls = leaves(v).into_iter();
    let Some(first) = ls.next() else {
        return match f {
            "sum" => Ok(Val::Scalar(number("0", e))),
            "product" => Ok(Val::Scalar(number("1", e))),
            _ => Err(format!("`{f}` of an empty array")),
        };
    };
    Ok(Val::Scalar(ls.fold(first, |acc, y| match f {
        "sum" => bin(BinOp::Add, &acc, &y, e),
        "product" => bin(BinOp::Mul, &acc, &y, e),
        _ => call(f, vec![acc, y], e),
    })))
}

/// Vector and matrix products: v·w, M v, v M, M N.
pub(super) fn product(xs: Vec<Val>, ys: Vec<Val>, e: &Expr) -> Res<Val> {
    let rank = |v: &[Val]| if v.iter().all(|x| matches!(x, Val::Scalar(_))) { 1 } else { 2 };
    let rows = |v: Vec<Val>| -> Res<Vec<Vec<Expr>>> {
        v.into_iter()
            .map(|r| match r {
                Val::Array(xs) => xs
                    .into_iter()
                    .map(|x| match x {
                        Val::Scalar(s) => Ok(s),
                        _ => Err("a product of arrays of more than two dimensions".to_string()),
                    })
                    .collect(),
                _ => Err("a product of a matrix with ragged rows".to_string()),
            })
            .collect()
    };
    let scalars = |v: Vec<Val>| -> Vec<Expr> { leaves(Val::Array(v)) };
    let dot = |a: &[Expr], b: &[Expr]| -> Res<Expr> {
        if a.len() != b.len() || a.is_empty() {
            return Err(format!("a product of sizes {} and {}", a.len(), b.len()));
        }
        let mut terms = a.iter().zip(b).map(|(x, y)| bin(BinOp::Mul, x, y, e));
        let first = terms.next().expect("non-empty");
        Ok(terms.fold(first, |acc, t| bin(BinOp::Add, &acc, &t, e)))
    };
    let column = |m: &[Vec<Expr>], j: usize| -> Vec<Expr> { m.iter().map(|r| r[j].clone()).collect() };
    match (rank(&xs), rank(&ys)) {
        (1, 1) => Ok(Val::Scalar(dot(&scalars(xs), &scalars(ys))?)),
        (2, 1) => {
            let (m, v) = (rows(xs)?, scalars(ys));
            Ok(Val::Array(m.iter().map(|r| dot(r, &v).map(Val::Scalar)).collect::<Res<_>>()?))
        }
        (1, 2) => {
            let (v, m) = (scalars(xs), rows(ys)?);
            let width = m.first().map_or(0, Vec::len);
            Ok(Val::Array((0..width).map(|j| dot(&v, &column(&m, j)).map(Val::Scalar)).collect::<Res<_>>()?))
        }
        _ => {
            let (a, b) = (rows(xs)?, rows(ys)?);
            let width = b.first().map_or(0, Vec::len);
            let mut out = Vec::with_capacity(a.len());
            for r in &a {
                let row = (0..width).map(|j| dot(r, &column(&b, j)).map(Val::Scalar)).collect::<Res<_>>()?;
                out.push(Val::Array(row));
            }
            Ok(Val::Array(out))
        }
    }
}

/// The rows of a part of a matrix constructor: a scalar is 1×1, a vector a column.
pub(super) fn as_matrix(v: Val) -> Res<Vec<Val>> {
    Ok(match v {
        Val::Array(xs) if xs.iter().all(|x| matches!(x, Val::Array(_))) => xs,
        Val::Array(xs) => xs.into_iter().map(|x| Val::Array(vec![x])).collect(),
        Val::Opaque => return Err("a matrix built from a call whose size is not known".into()),
        other => vec![Val::Array(vec![other])],
    })
}

/// The scalars of a value, in row-major order.
pub(super) fn leaves(v: Val) -> Vec<Expr> {
    let mut out = Vec::new();
    fn go(v: Val, out: &mut Vec<Expr>) {
        match v {
            Val::Scalar(s) => out.push(s),
            Val::Array(xs) => xs.into_iter().for_each(|x| go(x, out)),
            Val::Record(fs) => fs.into_iter().for_each(|(_, x)| go(x, out)),
            Val::Opaque => {}
        }
    }
    go(v, &mut out);
    out
}

fn sizes(v: &Val) -> Vec<usize> {
    match v {
        Val::Array(xs) => {
            let mut s = vec![xs.len()];
            if let Some(first) = xs.first() {
                s.extend(sizes(first));
            }
            s
        }
        _ => Vec::new(),
    }
}

/// Adds `extra` trailing dimensions of size 1 (`promote({a, b}, 2)` = `{{a}, {b}}`).
fn promote(v: Val, extra: i64) -> Val {
    match v {
        Val::Array(xs) if extra > 0 => Val::Array(xs.into_iter().map(|x| promote(x, extra)).collect()),
        other => (0..extra).fold(other, |acc, _| Val::Array(vec![acc])),
    }
}

fn filled(v: &Val, dims: &[usize]) -> Val {
    match dims.split_first() {
        None => v.clone(),
        Some((n, rest)) => Val::Array((0..*n).map(|_| filled(v, rest)).collect()),
    }
}

fn cat(k: i64, parts: Vec<Val>) -> Res<Val> {
    if k == 1 {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Val::Array(xs) => out.extend(xs),
                _ => return Err("`cat` of a value that is not an array".into()),
            }
        }
        return Ok(Val::Array(out));
    }
    let mut rows: Option<Vec<Vec<Val>>> = None;
    for p in parts {
        let Val::Array(xs) = p else { return Err("`cat` of a value that is not an array".into()) };
        match &mut rows {
            None => rows = Some(xs.into_iter().map(|x| vec![x]).collect()),
            Some(rs) if rs.len() == xs.len() => rs.iter_mut().zip(xs).for_each(|(r, x)| r.push(x)),
            Some(_) => return Err("`cat` of arrays of different sizes".into()),
        }
    }
    let rows = rows.unwrap_or_default();
    Ok(Val::Array(rows.into_iter().map(|r| cat(k - 1, r)).collect::<Res<_>>()?))
}

fn transpose(v: Val) -> Res<Val> {
    let Val::Array(rows) = v else { return Err("`transpose` of a value that is not a matrix".into()) };
    let rows: Vec<Vec<Val>> = rows
        .into_iter()
        .map(|r| match r {
            Val::Array(xs) => Ok(xs),
            _ => Err("`transpose` of a value that is not a matrix".to_string()),
        })
        .collect::<Res<_>>()?;
    let width = rows.first().map_or(0, Vec::len);
    if rows.iter().any(|r| r.len() != width) {
        return Err("`transpose` of a ragged matrix".into());
    }
    Ok(Val::Array((0..width).map(|j| Val::Array(rows.iter().map(|r| r[j].clone()).collect())).collect()))
}

fn diagonal(v: Val, e: &Expr) -> Res<Val> {
    let d = leaves(v);
    let n = d.len();
    Ok(Val::Array(
        (0..n)
            .map(|i| {
                Val::Array((0..n).map(|j| Val::Scalar(if i == j { d[i].clone() } else { number("0", e) })).collect())
            })
            .collect(),
    ))
}

fn cross(a: &[Expr], b: &[Expr], e: &Expr) -> Res<Val> {
    if a.len() != 3 || b.len() != 3 {
        return Err("`cross` of vectors that do not have 3 elements".into());
    }
    let term =
        |i: usize, j: usize| bin(BinOp::Sub, &bin(BinOp::Mul, &a[i], &b[j], e), &bin(BinOp::Mul, &a[j], &b[i], e), e);
    Ok(Val::Array(vec![Val::Scalar(term(1, 2)), Val::Scalar(term(2, 0)), Val::Scalar(term(0, 1))]))
}

fn skew(v: Val, e: &Expr) -> Res<Val> {
    let a = leaves(v);
    if a.len() != 3 {
        return Err("`skew` of a vector that does not have 3 elements".into());
    }
    let zero = || Val::Scalar(number("0", e));
    let neg =
        |x: &Expr| Val::Scalar(Expr::new(ExprKind::Unary(crate::syntax::ast::UnOp::Neg, Box::new(x.clone())), e.span));
    let pos = |x: &Expr| Val::Scalar(x.clone());
    Ok(Val::Array(vec![
        Val::Array(vec![zero(), neg(&a[2]), pos(&a[1])]),
        Val::Array(vec![pos(&a[2]), zero(), neg(&a[0])]),
        Val::Array(vec![neg(&a[1]), pos(&a[0]), zero()]),
    ]))
}

fn number(t: &str, at: &Expr) -> Expr {
    Expr::new(ExprKind::Number(text(t)), at.span)
}

fn bin(op: BinOp, a: &Expr, b: &Expr, at: &Expr) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new([a.clone(), b.clone()])), at.span)
}

fn call(f: &str, args: Vec<Expr>, at: &Expr) -> Expr {
    let call = Call {
        function: Ident { text: text(f), span: at.span },
        args: FunctionArgs::List { positional: args.into(), named: Default::default() },
    };
    Expr::new(ExprKind::Call(Box::new(call)), at.span)
}
