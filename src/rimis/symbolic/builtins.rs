//! Time derivatives of the math builtins (Modelica 3.6 §3.7), by the chain rule.
//!
//! Owns: [`builtin_name`] (which called names are builtins: `sin`, `Modelica.Math.sin`,
//! `.Modelica.Math.sin`, `'Modelica.Math.sin'`) and [`derivative`]: d/dt f(u…) from
//! the arguments and a callback giving the derivative of an argument (asked only
//! when needed: `sign`, `floor`… have derivative 0 without looking at theirs).

use super::build::*;
use super::diff::SymError;
use super::simplify::{add, div, mul, neg, pow, sub};
use crate::syntax::Span;
use crate::syntax::ast::*;

const BUILTINS: [&str; 24] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "log", "log10", "sqrt", "abs",
    "sign", "floor", "ceil", "integer", "div", "mod", "rem", "max", "min",
];

/// The builtin that `name` calls, if any: a builtin name bare or under `Modelica.Math.`.
pub(crate) fn builtin_name(name: &str) -> Option<&'static str> {
    let bare = name.strip_prefix('\'').and_then(|n| n.strip_suffix('\'')).unwrap_or(name);
    let bare = bare.strip_prefix('.').unwrap_or(bare);
    let base = match bare.rsplit_once('.') {
        Some(("Modelica.Math", f)) | Some(("Modelica.Math.Special", f)) => f,
        Some(_) => return None,
        None => bare,
    };
    BUILTINS.iter().copied().find(|b| *b == base)
}

type Deriv<'a> = dyn FnMut(&Expr) -> Result<Expr, SymError> + 'a;

/// d/dt `f(args)` for the builtin `f`; `None` when the arity does not fit.
pub(crate) fn derivative(f: &str, args: &[Expr], d: &mut Deriv) -> Result<Option<Expr>, SymError> {
    let c = |g: &str, x: &Expr| call(g, vec![x.clone()]);
    let sq = |x: &Expr| pow(x.clone(), int(2));
    let r = match (f, args) {
        ("sign" | "floor" | "ceil" | "integer" | "div", _) => zero(),
        ("sin", [u]) => mul(c("cos", u), d(u)?),
        ("cos", [u]) => neg(mul(c("sin", u), d(u)?)),
        ("tan", [u]) => div(d(u)?, sq(&c("cos", u))),
        ("asin", [u]) => div(d(u)?, c("sqrt", &sub(one(), sq(u)))),
        ("acos", [u]) => neg(div(d(u)?, c("sqrt", &sub(one(), sq(u))))),
        ("atan", [u]) => div(d(u)?, add(one(), sq(u))),
        ("atan2", [y, x]) => div(sub(mul(x.clone(), d(y)?), mul(y.clone(), d(x)?)), add(sq(x), sq(y))),
        ("sinh", [u]) => mul(c("cosh", u), d(u)?),
        ("cosh", [u]) => mul(c("sinh", u), d(u)?),
        ("tanh", [u]) => div(d(u)?, sq(&c("cosh", u))),
        ("exp", [u]) => mul(c("exp", u), d(u)?),
        ("log", [u]) => div(d(u)?, u.clone()),
        ("log10", [u]) => div(d(u)?, mul(u.clone(), c("log", &int(10)))),
        ("sqrt", [u]) => div(d(u)?, mul(int(2), c("sqrt", u))),
        ("abs", [u]) => mul(c("sign", u), d(u)?),
        // mod(x, y) = x - floor(x / y) * y, rem(x, y) = x - div(x, y) * y
        ("mod", [x, y]) => sub(d(x)?, mul(c("floor", &div(x.clone(), y.clone())), d(y)?)),
        ("rem", [x, y]) => sub(d(x)?, mul(call("div", vec![x.clone(), y.clone()]), d(y)?)),
        // max(x, y)' = x' where x > y, y' elsewhere (the one-sided derivative at a tie,
        // like abs' = sign · u'); noEvent: the derivative adds no event of its own.
        ("max" | "min", [x, y]) => {
            let op = if f == "max" { BinOp::Gt } else { BinOp::Lt };
            let test = call("noEvent", vec![bin_raw(op, x.clone(), y.clone())]);
            if_raw(vec![(test, d(x)?)], d(y)?, Span::DUMMY)
        }
        _ => return Ok(None),
    };
    Ok(Some(r))
}
