//! Expression types, as far as they are certain: [`Ty::Unknown`] whenever a type depends
//! on something the validation does not model (arrays, record fields, iterators, functions
//! it cannot see). Every type check errs only on two *known* types that do not fit, so an
//! unknown type never raises a diagnostic.

use super::builtins::{self, Ret};
use super::scope::{Resolved, Scope, cref_names};
use crate::syntax::ast::*;

/// The type of a scalar expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Real,
    Integer,
    Boolean,
    String,
    Enum,
    Record,
    Unknown,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::Real => "Real",
            Ty::Integer => "Integer",
            Ty::Boolean => "Boolean",
            Ty::String => "String",
            Ty::Enum => "enumeration",
            Ty::Record => "record",
            Ty::Unknown => "unknown",
        }
    }

    /// Real or Integer.
    pub fn is_numeric(self) -> bool {
        matches!(self, Ty::Real | Ty::Integer)
    }

    /// The type of `a op b` for `+ - *`, `max(a, b)`, the branches of an if-expression.
    fn join(a: Ty, b: Ty) -> Ty {
        match (a, b) {
            _ if a == b => a,
            (Ty::Real, Ty::Integer) | (Ty::Integer, Ty::Real) => Ty::Real,
            _ => Ty::Unknown,
        }
    }
}

/// Types expressions of the model; `iterators` are the names bound by enclosing loops.
pub(super) struct Typer<'s, 'a> {
    pub scope: &'s Scope<'a>,
}

impl Typer<'_, '_> {
    pub fn of(&self, e: &Expr, iterators: &[Text]) -> Ty {
        match &e.kind {
            ExprKind::Number(t) => {
                if t.bytes().all(|b| b.is_ascii_digit()) {
                    Ty::Integer
                } else {
                    Ty::Real
                }
            }
            ExprKind::String(_) => Ty::String,
            ExprKind::Bool(_) => Ty::Boolean,
            ExprKind::End => Ty::Integer,
            ExprKind::Name(n) => self.name(n.as_str(), None, iterators),
            ExprKind::Ref(r) => {
                let (base, key) = cref_names(r);
                self.name(&base, Some(&key), iterators)
            }
            ExprKind::Unary(UnOp::Not, _) => Ty::Boolean,
            ExprKind::Unary(_, x) => match self.of(x, iterators) {
                t if t.is_numeric() => t,
                _ => Ty::Unknown,
            },
            ExprKind::Binary(op, xs) => self.binary(*op, &xs[0], &xs[1], iterators),
            ExprKind::If(x) => {
                let mut t = self.of(&x.else_value, iterators);
                for (_, v) in &x.branches {
                    t = Ty::join(t, self.of(v, iterators));
                }
                t
            }
            ExprKind::Call(c) => self.call(c, iterators),
            _ => Ty::Unknown,
        }
    }

    /// A reference by base name; `key` (with its subscripts) for a subscripted one.
    fn name(&self, base: &str, key: Option<&str>, iterators: &[Text]) -> Ty {
        if iterators.iter().any(|i| i.as_str() == base) {
            return Ty::Unknown;
        }
        match self.scope.resolve(base) {
            Some(Resolved::Var(ds)) => {
                let d = match key {
                    // A subscripted reference: only an element declared one by one.
                    Some(k) => match ds.iter().find(|&&d| self.scope.key(d as usize) == k) {
                        Some(&d) => d as usize,
                        None => return Ty::Unknown,
                    },
                    None if ds.len() == 1 && !self.scope.decls[ds[0] as usize].array => ds[0] as usize,
                    None => return Ty::Unknown,
                };
                self.scope.decls[d].ty
            }
            Some(Resolved::Literal) => Ty::Enum,
            Some(Resolved::Builtin) => Ty::Real,
            _ => Ty::Unknown,
        }
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, iterators: &[Text]) -> Ty {
        match op {
            BinOp::And | BinOp::Or | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                Ty::Boolean
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let (ta, tb) = (self.of(a, iterators), self.of(b, iterators));
                match Ty::join(ta, tb) {
                    Ty::String if op == BinOp::Add => Ty::String,
                    t if t.is_numeric() => t,
                    _ => Ty::Unknown,
                }
            }
            BinOp::Div if self.of(a, iterators).is_numeric() && self.of(b, iterators).is_numeric() => Ty::Real,
            _ => Ty::Unknown,
        }
    }

    fn call(&self, c: &Call, iterators: &[Text]) -> Ty {
        let name = c.function.text.as_str();
        let name = name.strip_prefix('.').unwrap_or(name);
        let args: &[Expr] = match &c.args {
            FunctionArgs::List { positional, named } if named.is_empty() => positional,
            FunctionArgs::List { .. } => &[],
            FunctionArgs::Comprehension(_) => return Ty::Unknown,
        };
        if let Some(ret) = builtins::function(name) {
            let ret = match name {
                "max" | "min" if args.len() == 2 => Ret::Numeric,
                "sample" => Ret::Unknown,
                _ => ret,
            };
            return match ret {
                Ret::Is(t) => t,
                Ret::Arg(k) => args.get(k).map_or(Ty::Unknown, |a| self.of(a, iterators)),
                Ret::Numeric if !args.is_empty() => args
                    .iter()
                    .map(|a| self.of(a, iterators))
                    .reduce(Ty::join)
                    .filter(|t| t.is_numeric())
                    .unwrap_or(Ty::Unknown),
                _ => Ty::Unknown,
            };
        }
        let Some(class) = self.scope.classes.get(name) else { return Ty::Unknown };
        match (&class.kind, &class.body) {
            (ClassKind::Record | ClassKind::OperatorRecord, _) => Ty::Record,
            (ClassKind::Function | ClassKind::ImpureFunction | ClassKind::PureFunction, ClassBody::Long(comp)) => {
                self.first_output(comp)
            }
            _ => Ty::Unknown,
        }
    }

    /// The type of a function's first output, if it is a scalar.
    fn first_output(&self, comp: &Composition) -> Ty {
        for part in &comp.parts {
            let ClassPart::Elements { elements, .. } = part else { continue };
            for e in elements {
                let Element::Component(c) = e else { continue };
                if !c.has(Prefix::Output) {
                    continue;
                }
                let scalar = c.type_dims().is_empty() && c.declarations().iter().all(|d| d.dims.is_empty());
                return if scalar { self.scope.type_of(&c.type_spec()) } else { Ty::Unknown };
            }
        }
        Ty::Unknown
    }
}

/// The value of a constant numeric expression written with literals (`3.5`, `-7/2`).
pub(super) fn constant(e: &Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Number(t) => t.parse().ok(),
        ExprKind::Unary(UnOp::Neg, x) => constant(x).map(|v| -v),
        ExprKind::Unary(UnOp::Plus, x) => constant(x),
        ExprKind::Binary(op, xs) => {
            let (a, b) = (constant(&xs[0])?, constant(&xs[1])?);
            let v = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => return None,
            };
            v.is_finite().then_some(v)
        }
        _ => None,
    }
}

/// What an equation `lhs = rhs` is, by the types of its sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EqType {
    /// A side is Real (the other Real, Integer, a record or unknown): a continuous equation.
    Real,
    /// Both sides Boolean, Integer, String or enumeration.
    Discrete,
    /// Anything else (unknown types on both sides, a type error).
    Unclear,
}

pub(super) fn is_discrete(t: Ty) -> bool {
    matches!(t, Ty::Boolean | Ty::Integer | Ty::String | Ty::Enum)
}

pub(super) fn equation_type(a: Ty, b: Ty) -> EqType {
    let real_or_open = |t: Ty| matches!(t, Ty::Real | Ty::Integer | Ty::Record | Ty::Unknown);
    if (a == Ty::Real && real_or_open(b)) || (b == Ty::Real && real_or_open(a)) {
        EqType::Real
    } else if is_discrete(a) && is_discrete(b) {
        EqType::Discrete
    } else {
        EqType::Unclear
    }
}
