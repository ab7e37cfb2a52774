//! Static evaluation of constant expressions: literals, constants and parameters whose
//! binding is itself static (also an element `p[2]` of an array binding `p = {…}`),
//! arithmetic, relations, `and`/`or`/`not`, if-expressions and the integer builtins
//! (`integer`, `div`, `mod`, `abs`, `min`, `max`, `floor`, `ceil`). Used for array
//! sizes, for-ranges and subscripts here, and for conditions on parameters by the
//! lowering.

use super::walk::ref_name;
use crate::syntax::ast::{BinOp, Expr, ExprKind, FunctionArgs, Subscript, UnOp};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Num(f64),
    Bool(bool),
}

impl Value {
    /// The value as an integer, if it is a whole number.
    pub fn int(self) -> Option<i64> {
        match self {
            Value::Num(v) if v.fract() == 0.0 && v.abs() < 1e15 => Some(v as i64),
            _ => None,
        }
    }
}

/// Name → binding of the constants and parameters of the model.
pub struct Env<'a> {
    pub bindings: &'a HashMap<String, Expr>,
}

impl Env<'_> {
    /// The value of `e`, if it is static; depth-limited so cyclic bindings give `None`.
    pub fn eval(&self, e: &Expr) -> Option<Value> {
        self.eval_at(e, 0)
    }

    /// The value of `e` as an integer.
    pub fn int(&self, e: &Expr) -> Option<i64> {
        self.eval(e)?.int()
    }

    fn eval_at(&self, e: &Expr, depth: u32) -> Option<Value> {
        if depth > 64 {
            return None;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Number(t) => t.as_str().parse::<f64>().ok().map(Value::Num),
            ExprKind::Bool(b) => Some(Value::Bool(*b)),
            ExprKind::Name(n) => self.bindings.get(n.as_str()).and_then(|b| self.eval_at(b, d)),
            ExprKind::Ref(_) => self.element(e, d),
            ExprKind::Unary(op, x) => match (op, self.eval_at(x, d)?) {
                (UnOp::Neg, Value::Num(v)) => Some(Value::Num(-v)),
                (UnOp::Plus, Value::Num(v)) => Some(Value::Num(v)),
                (UnOp::Not, Value::Bool(b)) => Some(Value::Bool(!b)),
                _ => None,
            },
            ExprKind::Binary(op, xs) => binary(*op, self.eval_at(&xs[0], d)?, self.eval_at(&xs[1], d)?),
            ExprKind::If(ife) => {
                for (c, v) in &ife.branches {
                    match self.eval_at(c, d)? {
                        Value::Bool(true) => return self.eval_at(v, d),
                        Value::Bool(false) => {}
                        Value::Num(_) => return None,
                    }
                }
                self.eval_at(&ife.else_value, d)
            }
            ExprKind::Call(c) => {
                let FunctionArgs::List { positional, named } = &c.args else { return None };
                if !named.is_empty() {
                    return None;
                }
                let args: Vec<f64> = positional
                    .iter()
                    .map(|a| match self.eval_at(a, d)? {
                        Value::Num(v) => Some(v),
                        Value::Bool(_) => None,
                    })
                    .collect::<Option<_>>()?;
                call(c.function.text.as_str(), &args).map(Value::Num)
            }
            _ => None,
        }
    }

    /// `p[i, j]`: its own binding, else element (i, j) of the array literal bound to `p`.
    fn element(&self, e: &Expr, d: u32) -> Option<Value> {
        let name = ref_name(e)?;
        if let Some(b) = self.bindings.get(&name) {
            return self.eval_at(b, d);
        }
        let ExprKind::Ref(r) = &e.kind else { return None };
        let (last, init) = r.parts.split_last()?;
        let mut base = String::new();
        for p in init {
            if !p.subscripts.is_empty() {
                return None;
            }
            base.push_str(&p.ident.text);
            base.push('.');
        }
        base.push_str(&last.ident.text);
        let mut at = self.bindings.get(&base)?;
        for s in last.subscripts.iter() {
            let Subscript::Expr(x) = s else { return None };
            let k = self.eval_at(x, d)?.int()?;
            at = match &at.kind {
                ExprKind::Array(xs) => xs.get(usize::try_from(k - 1).ok()?)?,
                _ => return None,
            };
        }
        self.eval_at(at, d)
    }
}

fn call(f: &str, a: &[f64]) -> Option<f64> {
    Some(match (f, a) {
        ("integer" | "floor" | "Integer", [x]) => x.floor(),
        ("ceil", [x]) => x.ceil(),
        ("abs", [x]) => x.abs(),
        ("div", [x, y]) if *y != 0.0 => (x / y).trunc(),
        ("mod", [x, y]) if *y != 0.0 => x - (x / y).floor() * y,
        ("rem", [x, y]) if *y != 0.0 => x - (x / y).trunc() * y,
        ("min", [x, y]) => x.min(*y),
        ("max", [x, y]) => x.max(*y),
        // The elementary functions of Modelica 3.6 §3.7.3, where defined and finite.
        ("sin", [x]) => x.sin(),
        ("cos", [x]) => x.cos(),
        ("tan", [x]) => x.tan(),
        ("asin", [x]) if x.abs() <= 1.0 => x.asin(),
        ("acos", [x]) if x.abs() <= 1.0 => x.acos(),
        ("atan", [x]) => x.atan(),
        ("atan2", [y, x]) => y.atan2(*x),
        ("sinh", [x]) => x.sinh(),
        ("cosh", [x]) => x.cosh(),
        ("tanh", [x]) => x.tanh(),
        ("exp", [x]) => x.exp(),
        ("log", [x]) if *x > 0.0 => x.ln(),
        ("log10", [x]) if *x > 0.0 => x.log10(),
        ("sqrt", [x]) if *x >= 0.0 => x.sqrt(),
        _ => return None,
    })
    .filter(|v| v.is_finite())
}

fn binary(op: BinOp, a: Value, b: Value) -> Option<Value> {
    use Value::*;
    Some(match (op, a, b) {
        (BinOp::Or, Bool(x), Bool(y)) => Bool(x || y),
        (BinOp::And, Bool(x), Bool(y)) => Bool(x && y),
        (BinOp::Eq, Bool(x), Bool(y)) => Bool(x == y),
        (BinOp::Ne, Bool(x), Bool(y)) => Bool(x != y),
        (BinOp::Lt, Num(x), Num(y)) => Bool(x < y),
        (BinOp::Le, Num(x), Num(y)) => Bool(x <= y),
        (BinOp::Gt, Num(x), Num(y)) => Bool(x > y),
        (BinOp::Ge, Num(x), Num(y)) => Bool(x >= y),
        (BinOp::Eq, Num(x), Num(y)) => Bool(x == y),
        (BinOp::Ne, Num(x), Num(y)) => Bool(x != y),
        (BinOp::Add | BinOp::ElemAdd, Num(x), Num(y)) => Num(x + y),
        (BinOp::Sub | BinOp::ElemSub, Num(x), Num(y)) => Num(x - y),
        (BinOp::Mul | BinOp::ElemMul, Num(x), Num(y)) => Num(x * y),
        (BinOp::Div | BinOp::ElemDiv, Num(x), Num(y)) if y != 0.0 => Num(x / y),
        (BinOp::Pow | BinOp::ElemPow, Num(x), Num(y)) => Num(x.powf(y)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{Env, Value};
    use crate::syntax::ast::{ClassBody, ClassPart, EquationKind};
    use std::collections::HashMap;

    /// The value of `text`, the right-hand side of a model's one equation.
    fn eval(text: &str) -> Option<Value> {
        let def = crate::syntax::parse(&format!("model M\nequation\n  x = {text};\nend M;\n")).expect("parses");
        let Some(ClassBody::Long(c)) = def.classes.last().map(|c| &c.body) else { panic!("no class") };
        let rhs = c.parts.iter().find_map(|p| match p {
            ClassPart::Equations { equations, .. } => match &equations.first()?.kind {
                EquationKind::Simple { rhs, .. } => Some(rhs.clone()),
                _ => None,
            },
            _ => None,
        });
        Env { bindings: &HashMap::new() }.eval(&rhs.expect("an equation"))
    }

    /// The elementary functions fold where defined and finite (a door schedule decided at
    /// t = 0: `sin(1.0) > 0`), and not outside their domains.
    #[test]
    fn elementary_functions_fold_where_defined() {
        assert_eq!(eval("sin(1.0) > 0"), Some(Value::Bool(true)));
        assert_eq!(eval("sin(4.0) > 0"), Some(Value::Bool(false)));
        assert!(matches!(eval("exp(0) + cos(0)"), Some(Value::Num(v)) if v == 2.0));
        assert_eq!(eval("sqrt(-1)"), None);
        assert_eq!(eval("log(0)"), None);
        assert_eq!(eval("exp(1000)"), None);
    }
}
