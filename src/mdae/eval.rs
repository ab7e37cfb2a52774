//! Static evaluation of constant expressions: literals, constants and parameters whose
//! binding is itself static, arithmetic, relations and `and`/`or`/`not`. Used to decide
//! conditions on constants and literal-bound parameters at lowering time.

use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Num(f64),
    Bool(bool),
}

/// Name → binding of the constants and parameters of the model.
pub(crate) struct Env<'a> {
    pub bindings: HashMap<String, &'a Expr>,
}

impl Env<'_> {
    /// The value of `e`, if it is static; depth-limited so cyclic bindings give `None`.
    pub fn eval(&self, e: &Expr) -> Option<Value> {
        self.eval_at(e, 0)
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
            _ => None,
        }
    }
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
