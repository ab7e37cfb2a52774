//! The restart systems of [`restart_system`](super::restart_system) in the mini-language
//! of the impulse analysis (paper 000 §6.2, eq. 50; the calculus is
//! [`crate::analysis::impulse`]): what `--check` and `--report json` list per mode change.
//!
//! A row of offset 0 at the switch is translated as written, each occurrence classified:
//! the leading derivative u^(d) of a state is one Euler step U/∂ (U = u⁺ − u^(d-1), the
//! jump), the lower states and everything read before the switch are standard non-zero
//! values, an algebraic variable its value at the switch. A consistency row after the
//! jump, G(X•) = 0, is G(X) + ∇G·U = 0 to first order: the residual R = G(X), finite and
//! non-zero where the switch violates the equation (the unguaranteed ones; zero where it
//! held before), plus one term per unknown it reads (coefficients standard).

use super::plan::primed;
use crate::analysis::impulse::{IExpr, Kind, System};
use crate::syntax::ast::Expr;
use crate::syntax::ast::{BinOp, ExprKind, FunctionArgs, UnOp};
use std::collections::BTreeMap;

/// `x` in the mini-language; `classify` maps an occurrence of a variable (or returns
/// `None` for what is standard: a parameter, a left limit).
pub(crate) fn translate(x: &Expr, classify: &mut dyn FnMut(&Expr) -> Option<IExpr>) -> IExpr {
    if let Some(t) = classify(x) {
        return t;
    }
    let mut tr = |y: &Expr| translate(y, classify);
    match &x.kind {
        ExprKind::Number(t) => {
            if t.parse::<f64>().is_ok_and(|v| v == 0.0) {
                IExpr::Zero
            } else {
                IExpr::Const
            }
        }
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, y) => tr(y),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, xs) => IExpr::Sum(vec![tr(&xs[0]), tr(&xs[1])]),
        ExprKind::Binary(BinOp::Mul, xs) => IExpr::Prod(vec![tr(&xs[0]), tr(&xs[1])]),
        ExprKind::Binary(BinOp::Div, xs) => IExpr::Prod(vec![tr(&xs[0]), IExpr::Pow(Box::new(tr(&xs[1])), -1)]),
        ExprKind::Binary(BinOp::Pow, xs) => match integer(&xs[1]) {
            Some(0) => IExpr::Const,
            Some(n) => IExpr::Pow(Box::new(tr(&xs[0])), n),
            None => IExpr::Series(vec![tr(&xs[0]), tr(&xs[1])]),
        },
        // The branches taken in the modes entered are chosen before (π_q); what remains
        // is bounded by the largest branch (R6).
        ExprKind::If(i) => {
            let mut all: Vec<IExpr> = i.branches.iter().map(|(_, v)| tr(v)).collect();
            all.push(tr(&i.else_value));
            IExpr::Sum(all)
        }
        ExprKind::Call(c) => match &c.args {
            FunctionArgs::List { positional, .. } if c.function.text.as_str() != "pre" => {
                IExpr::Series(positional.iter().map(&mut tr).collect())
            }
            _ => IExpr::Const,
        },
        _ => IExpr::Const,
    }
}

fn integer(x: &Expr) -> Option<i32> {
    match &x.kind {
        ExprKind::Number(t) => t.parse::<f64>().ok().filter(|v| v.fract() == 0.0 && v.abs() < 64.0).map(|v| v as i32),
        ExprKind::Unary(UnOp::Neg, y) => integer(y).map(|n| -n),
        _ => None,
    }
}

/// Builds the system from its parts: `vars` (variable index → (name, kind, name of the
/// state it jumps)), rows as equations.
#[derive(Default)]
pub(crate) struct Builder {
    index: BTreeMap<usize, usize>,
    pub system: System,
    pub jump_names: Vec<String>,
}

impl Builder {
    /// The dependent variable of model variable `u` (its jump if `d` ≥ 1).
    pub fn var(&mut self, u: usize, name: &str, d: u32) -> IExpr {
        if let Some(&k) = self.index.get(&u) {
            return IExpr::Var(k);
        }
        let k = self.system.vars.len();
        let state = primed(name, d.saturating_sub(1));
        let (label, kind) =
            if d == 0 { (name.to_string(), Kind::Algebraic) } else { (format!("U({state})"), Kind::Jump) };
        self.system.vars.push((label, kind));
        self.jump_names.push(state);
        self.index.insert(u, k);
        IExpr::Var(k)
    }

    /// u^(d) at the switch: one Euler step U/∂.
    pub fn leading(&mut self, u: usize, name: &str, d: u32) -> IExpr {
        IExpr::Prod(vec![self.var(u, name, d), IExpr::Pow(Box::new(IExpr::Delta), -1)])
    }
}
