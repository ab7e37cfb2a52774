//! Type checks: conditions are Boolean; the two sides of an equation, an assignment or a
//! binding have compatible types (a Boolean, String or enumeration equals only its own
//! kind; an Integer variable is not set to a Real); the left-hand side of an equation in
//! a `when` is a variable that may change (Modelica 3.6 §8.3.5). Only *known* types are
//! compared ([`super::types`]).

use super::diagnostic::{Diagnostic, Kind};
use super::scope::{Resolved, cref_names};
use super::types::{Ty, Typer, constant};
use super::walk::{Ctx, Sink};
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string as printer_text;

pub(super) struct Types<'s, 'a> {
    pub typer: Typer<'s, 'a>,
    pub out: &'s mut Vec<Diagnostic>,
}

/// Whether a side `x` of type `a` and a side `y` of type `b` cannot be equal: two known
/// types of different kinds (a Boolean, String or enumeration equals only its own kind),
/// or an Integer and a Real constant that is no integer (`k = 3.5`; omc converts the
/// Integer side of `k = x` and `k = 2.0` to Real, so those pass).
fn mismatch(a: Ty, b: Ty, y: &Expr) -> bool {
    use Ty::*;
    match (a, b) {
        (Unknown, _) | (_, Unknown) | (Record, _) | (_, Record) => false,
        _ if a == b => false,
        (Integer, Real) => constant(y).is_some_and(|v| v.fract() != 0.0),
        (Real, Integer) => false,
        _ => true,
    }
}

impl Types<'_, '_> {
    fn pair(&mut self, span: crate::syntax::Span, lhs: &Expr, rhs: &Expr, iterators: &[Text], what: &str) {
        let (a, b) = (self.typer.of(lhs, iterators), self.typer.of(rhs, iterators));
        if mismatch(a, b, rhs) || mismatch(b, a, lhs) {
            self.out.push(
                Diagnostic::error(
                    Kind::Type,
                    span,
                    format!(
                        "type mismatch in {what}: `{}` is {} {}, `{}` is {} {}",
                        printer_text(lhs),
                        article(a),
                        a.name(),
                        printer_text(rhs),
                        article(b),
                        b.name()
                    ),
                )
                .help(help(a, b)),
            );
        }
    }
}

fn article(t: Ty) -> &'static str {
    match t {
        Ty::Integer | Ty::Enum => "an",
        _ => "a",
    }
}

fn help(a: Ty, b: Ty) -> &'static str {
    match (a, b) {
        (Ty::Integer, Ty::Real) | (Ty::Real, Ty::Integer) => {
            "an Integer takes whole values: round the value (integer(…)) or declare the variable Real"
        }
        _ => "both sides must have the same type (Modelica 3.6 §8.3.1)",
    }
}

impl<'a> Sink<'a> for Types<'_, 'a> {
    fn condition(&mut self, c: &'a Expr, iterators: &[Text]) {
        let t = self.typer.of(c, iterators);
        if !matches!(t, Ty::Boolean | Ty::Unknown) {
            let text = printer_text(c);
            self.out.push(
                Diagnostic::error(
                    Kind::Type,
                    c.span,
                    format!("the condition `{text}` is {} {}, not a Boolean", article(t), t.name()),
                )
                .help(format!("a condition is Boolean: compare it, e.g. `{text} > 0`")),
            );
        }
    }

    fn equation(&mut self, eq: &'a Equation, lhs: &'a Expr, rhs: &'a Expr, ctx: Ctx<'a>, iterators: &[Text]) {
        // A clocked `when` (`when Clock(0.1) then x + y = 0; …`) holds any equations.
        if ctx.when.is_some_and(|c| !self.is_clock(c)) && !ctx.initial {
            self.when_target(lhs);
        }
        self.pair(eq.span(), lhs, rhs, iterators, "the equation");
    }

    fn assignment(&mut self, st: &'a Statement, target: &'a Expr, value: &'a Expr, iterators: &[Text]) {
        self.pair(st.span, target, value, iterators, "the assignment");
    }

    fn binding(&mut self, c: &'a Component, d: &'a Declaration, value: &'a Expr) {
        if !c.type_dims().is_empty() || !d.dims.is_empty() {
            return;
        }
        let t = self.typer.scope.type_of(&c.type_spec());
        let v = self.typer.of(value, &[]);
        if mismatch(t, v, value) {
            let (base, _) = cref_names(&d.name());
            self.out.push(
                Diagnostic::error(
                    Kind::Type,
                    value.span,
                    format!(
                        "type mismatch in the binding of `{base}`: it is {} {}, `{}` is {} {}",
                        article(t),
                        t.name(),
                        printer_text(value),
                        article(v),
                        v.name()
                    ),
                )
                .with(d.name_span(), "declared here")
                .help(help(t, v)),
            );
        }
    }
}

impl Types<'_, '_> {
    /// A clock (Modelica 3.6 chapter 16): a clock constructor, or a variable of type Clock.
    fn is_clock(&self, c: &Expr) -> bool {
        match &c.kind {
            ExprKind::Call(call) => {
                matches!(
                    call.function.text.as_str(),
                    "Clock" | "subSample" | "superSample" | "shiftSample" | "backSample"
                )
            }
            ExprKind::Name(n) => match self.typer.scope.resolve(n.as_str()) {
                Some(Resolved::Var(ds)) => {
                    ds.iter().any(|&d| self.typer.scope.decls[d as usize].type_name() == "Clock")
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The left-hand side of an equation in a `when`: a variable (or a tuple of them) that
    /// is neither a parameter nor a constant.
    fn when_target(&mut self, lhs: &Expr) {
        let targets: Vec<&Expr> = match &lhs.kind {
            ExprKind::Tuple(items) => items.iter().flatten().collect(),
            _ => vec![lhs],
        };
        for t in targets {
            let base = match &t.kind {
                ExprKind::Name(n) => n.as_str().to_string(),
                ExprKind::Ref(r) => cref_names(r).0,
                _ => {
                    self.out.push(
                        Diagnostic::error(
                            Kind::Type,
                            t.span,
                            format!(
                                "the left-hand side `{}` of an equation in a when-clause is not a variable",
                                printer_text(t)
                            ),
                        )
                        .help("inside `when`, each equation has the form `v = expression` (Modelica 3.6 §8.3.5.1)"),
                    );
                    continue;
                }
            };
            if let Some(Resolved::Var(ds)) = self.typer.scope.resolve(&base)
                && let Some(&d) = ds.iter().find(|&&d| self.typer.scope.decls[d as usize].is_fixed_value())
            {
                let decl = self.typer.scope.decl(d as usize);
                self.out.push(
                    Diagnostic::error(
                        Kind::Type,
                        t.span,
                        format!("a when-clause assigns `{base}`, which is a parameter or a constant"),
                    )
                    .with(decl.span(), "declared here")
                    .help("a when-clause defines variables; declare it without `parameter`/`constant`"),
                );
            }
        }
    }
}
