//! The type of a scalar expression, and whether a scalar equation belongs to the
//! continuous part: it does when a side is Real (a real variable, a real literal, `der`,
//! a real function) or of unknown type, neither side is Boolean, String, an enumeration
//! or a clock, and it mentions a real unknown; an Integer equation is discrete.

use super::Type;
use super::expand::Expander;
use super::walk::{ref_name, visit};
use crate::syntax::ast::{BinOp, Expr, ExprKind, FunctionArgs, Prefix, TypeSpec, UnOp};

impl Expander<'_, '_> {
    /// Does `lhs = rhs` (scalar sides) belong to the continuous part? A real equation
    /// without any real unknown (`z = pre(z)` of a discrete `z`) does not: it is no row
    /// of the continuous system.
    pub(super) fn is_continuous(&mut self, lhs: &Expr, rhs: &Expr) -> bool {
        self.is_real_typed(lhs, rhs) && (self.mentions_unknown(lhs) || self.mentions_unknown(rhs))
    }

    fn is_real_typed(&mut self, lhs: &Expr, rhs: &Expr) -> bool {
        let (a, b) = (self.type_of(lhs), self.type_of(rhs));
        let discrete = |t: Option<Type>| {
            matches!(t, Some(Type::Boolean | Type::String | Type::Enumeration | Type::Clock | Type::Other))
        };
        if discrete(a) || discrete(b) {
            return false;
        }
        if a == Some(Type::Real) || b == Some(Type::Real) {
            return true;
        }
        !(a == Some(Type::Integer) || b == Some(Type::Integer))
    }

    fn mentions_unknown(&mut self, e: &Expr) -> bool {
        let mut refs = Vec::new();
        visit(e, &mut |x| {
            if matches!(x.kind, ExprKind::Name(_) | ExprKind::Ref(_)) {
                refs.push(x.clone());
            }
            true
        });
        let env = self.env();
        refs.iter()
            .any(|r| self.m.scalars_of_ref(r, &env).unwrap_or_default().iter().any(|&k| self.m.vars[k].is_unknown()))
    }

    /// The type of a scalar expression, when it is known.
    pub(super) fn type_of(&mut self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Number(t) => Some(if t.as_str().contains(['.', 'e', 'E']) { Type::Real } else { Type::Integer }),
            ExprKind::Bool(_) => Some(Type::Boolean),
            ExprKind::String(_) => Some(Type::String),
            ExprKind::End => Some(Type::Integer),
            ExprKind::Name(_) | ExprKind::Ref(_) => self.reference_type(e),
            ExprKind::Call(c) => self.call_type(c.function.text.as_str(), &c.args),
            ExprKind::Unary(UnOp::Not, _) => Some(Type::Boolean),
            ExprKind::Unary(_, x) => self.type_of(x),
            ExprKind::Binary(op, xs) => match op.prec() {
                crate::syntax::ast::Prec::Relation | crate::syntax::ast::Prec::And | crate::syntax::ast::Prec::Or => {
                    Some(Type::Boolean)
                }
                _ => {
                    let (a, b) = (self.type_of(&xs[0]), self.type_of(&xs[1]));
                    if a == Some(Type::String) || b == Some(Type::String) {
                        Some(Type::String)
                    } else if matches!(op, BinOp::Div | BinOp::ElemDiv | BinOp::Pow | BinOp::ElemPow) {
                        Some(Type::Real)
                    } else {
                        join(a, b)
                    }
                }
            },
            ExprKind::If(x) => {
                let mut t = self.type_of(&x.else_value);
                for (_, v) in &x.branches {
                    t = join(t, self.type_of(v));
                }
                t
            }
            ExprKind::Array(xs) => xs.first().and_then(|x| self.type_of(x)),
            ExprKind::Subscripted(s) => self.type_of(&s.base),
            _ => None,
        }
    }

    fn reference_type(&mut self, e: &Expr) -> Option<Type> {
        let name = ref_name(e)?;
        if let Some(v) = self.m.var(&name) {
            return Some(v.ty);
        }
        if name == "time" {
            return Some(Type::Real);
        }
        if self.classes.is_enumeration_literal(&name) {
            return Some(Type::Enumeration);
        }
        let env = self.env();
        let scalars = self.m.scalars_of_ref(e, &env)?;
        scalars.first().map(|&k| self.m.vars[k].ty)
    }

    fn call_type(&mut self, f: &str, args: &FunctionArgs) -> Option<Type> {
        let positional: Vec<&Expr> = match args {
            FunctionArgs::List { positional, .. } => positional.iter().collect(),
            FunctionArgs::Comprehension(c) => vec![&c.expr],
        };
        let arg = |k: usize| positional.get(k).copied();
        match f {
            "initial" | "terminal" | "edge" | "change" | "firstTick" => Some(Type::Boolean),
            "sample" if positional.len() == 2 => {
                let clocked = matches!(self.type_of(arg(1)?), Some(Type::Clock));
                if clocked { self.type_of(arg(0)?) } else { Some(Type::Boolean) }
            }
            "integer" | "Integer" | "size" | "ndims" => Some(Type::Integer),
            "String" => Some(Type::String),
            "Clock" | "subSample" | "superSample" | "shiftSample" | "backSample" | "noClock" => Some(Type::Clock),
            "der" | "delay" | "interval" | "sqrt" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "atan2"
            | "sinh" | "cosh" | "tanh" | "exp" | "log" | "log10" | "semiLinear" | "homotopy" => Some(Type::Real),
            "pre" | "noEvent" | "previous" | "hold" | "sample" | "abs" | "sum" | "product" | "scalar" => {
                self.type_of(arg(0)?)
            }
            "smooth" => self.type_of(arg(1)?),
            "min" | "max" | "mod" | "rem" | "div" | "sign" | "floor" | "ceil" => {
                let mut t = None;
                for a in &positional {
                    t = join(t, self.type_of(a));
                }
                t
            }
            _ => self.function_type(f),
        }
    }

    /// The type of a function's (first) output.
    fn function_type(&self, f: &str) -> Option<Type> {
        let func = self.classes.function(f)?;
        let crate::syntax::ast::ClassBody::Long(comp) = &func.body else { return None };
        let output = comp.parts.iter().find_map(|p| match p {
            crate::syntax::ast::ClassPart::Elements { elements, .. } => elements.iter().find_map(|e| match e {
                crate::syntax::ast::Element::Component(c) if c.has(Prefix::Output) => Some(c),
                _ => None,
            }),
            _ => None,
        })?;
        match &*output.type_spec() {
            TypeSpec::Name(n) => match self.classes.resolve(n.text.as_str()).0 {
                super::types::Resolved::Builtin(t) => Some(t),
                super::types::Resolved::Record(_) => None,
            },
            TypeSpec::Enumeration(_) => Some(Type::Enumeration),
        }
    }
}

/// Real wins over Integer; otherwise the first known type.
fn join(a: Option<Type>, b: Option<Type>) -> Option<Type> {
    match (a, b) {
        (Some(Type::Real), _) | (_, Some(Type::Real)) => Some(Type::Real),
        (Some(t), _) | (None, Some(t)) => Some(t),
        (None, None) => None,
    }
}
