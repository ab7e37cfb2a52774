//! Names: declarations unique, `time` not declared, every name used declared (or a
//! built-in, an iterator, an enumeration literal, a class of the file), every called
//! function defined, every enumeration literal existing.

use super::builtins;
use super::diagnostic::{Diagnostic, Kind};
use super::scope::{Scope, cref_names, normalize, parts};
use super::walk::{Ctx, Sink};
use crate::syntax::ast::*;

/// Duplicate declarations and declared built-ins.
pub(super) fn declarations(scope: &Scope, out: &mut Vec<Diagnostic>) {
    let mut redeclared = scope.redeclared().into_iter().peekable();
    for d in 0..scope.len() {
        if scope.base(d) == "time" {
            out.push(
                Diagnostic::error(
                    Kind::Builtin,
                    scope.decl(d).span(),
                    "`time` is the built-in simulation time; it cannot be declared",
                )
                .help("rename the variable (Modelica 3.6 §3.6.7)"),
            );
        }
        if let Some((_, first)) = redeclared.next_if(|&(later, _)| later as usize == d) {
            out.push(
                Diagnostic::error(
                    Kind::Duplicate,
                    scope.decl(d).span(),
                    format!("`{}` is declared twice", scope.key(d)),
                )
                .with(scope.decl(first as usize).span(), "first declared here")
                .help("each name is declared once; remove or rename one of the declarations"),
            );
        }
    }
}

/// Every name and called function of the model resolves. Undeclared names wait in
/// `pending` until their equation is seen: omc declares nothing for an array of size zero
/// and writes `b = {{}, {}};` for it, so a side equated to an empty array is not checked.
pub(super) struct Names<'s, 'a> {
    pub scope: &'s Scope<'a>,
    pub out: &'s mut Vec<Diagnostic>,
    pub pending: Vec<Diagnostic>,
    /// `pending[mark..]` came after the last equation seen (the current one's).
    pub mark: usize,
}

impl Names<'_, '_> {
    pub fn finish(self) {
        self.out.extend(self.pending);
    }

    /// Drops the current equation's pending diagnostics inside `side` when `other` is an
    /// empty array.
    fn empty_array_side(&mut self, side: &Expr, other: &Expr) {
        if is_empty_array(other) {
            let mut k = self.mark;
            while k < self.pending.len() {
                if side.span.contains(self.pending[k].span) {
                    self.pending.remove(k);
                } else {
                    k += 1;
                }
            }
        }
    }
}

/// `{}`, `{{}, {}}`, `fill(…, 0)`: an array without elements.
fn is_empty_array(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Array(items) => items.iter().all(is_empty_array),
        ExprKind::Subscripted(x) => is_empty_array(&x.base),
        ExprKind::Call(c) if c.function.text.as_str() == "fill" => match &c.args {
            FunctionArgs::List { positional, .. } => {
                positional.iter().skip(1).any(|d| matches!(&d.kind, ExprKind::Number(n) if n.as_str() == "0"))
            }
            _ => false,
        },
        _ => false,
    }
}

impl<'a> Sink<'a> for Names<'_, 'a> {
    fn name(&mut self, e: &'a Expr, iterators: &[Text]) {
        let (base, subscripted) = match &e.kind {
            ExprKind::Name(n) => (n.as_str().to_string(), false),
            ExprKind::Ref(r) => (cref_names(r).0, true),
            _ => return,
        };
        let ps = parts(&base);
        if base == "_" || iterators.iter().any(|i| i.as_str() == ps[0]) || self.scope.resolve(&base).is_some() {
            return;
        }
        let (ty, lit) = ps.split_last().map(|(l, init)| (init.join("."), *l)).unwrap_or_default();
        if let Some(lits) = self.scope.enumeration_literals(&ty).filter(|_| !ty.is_empty()) {
            self.out.push(
                Diagnostic::error(
                    Kind::NoSuchLiteral,
                    e.span,
                    format!("the enumeration `{ty}` has no literal `{lit}`"),
                )
                .help(format!("its literals: {}", lits.join(", "))),
            );
            return;
        }
        let path = normalize(&base);
        let first = parts(&path)[0].to_string();
        if first != path {
            // A path whose head is no name of the model is a type's or package's (omc writes
            // `E.one` for a literal of an enumeration it does not print, `A.y` for a constant);
            // a subscripted path below a component may be an element of an array of size zero.
            if self.scope.resolve(&first).is_none() || subscripted {
                return;
            }
        }
        self.pending.push(
            Diagnostic::error(Kind::Undeclared, e.span, format!("`{base}` is not declared"))
                .help("declare it in the model, or correct the name"),
        );
    }

    fn equation(&mut self, _eq: &'a Equation, lhs: &'a Expr, rhs: &'a Expr, _ctx: Ctx<'a>, _iterators: &[Text]) {
        self.empty_array_side(lhs, rhs);
        self.empty_array_side(rhs, lhs);
        self.mark = self.pending.len();
    }

    fn assignment(&mut self, _st: &'a Statement, target: &'a Expr, value: &'a Expr, _iterators: &[Text]) {
        self.empty_array_side(target, value);
        self.empty_array_side(value, target);
        self.mark = self.pending.len();
    }

    fn call(&mut self, c: &'a Call, _e: &'a Expr, iterators: &[Text]) {
        let name = c.function.text.as_str();
        let trimmed = name.strip_prefix('.').unwrap_or(name);
        let known = self.scope.is_function(name)
            || builtins::is_type(trimmed)
            // omc's own functions (`$OMC$PositiveMax`, `$OMC$inStreamDiv`)
            || trimmed.starts_with('$')
            // an operator or constructor of a record the file defines (`Complex.'+'`)
            || self.scope.has_class_prefix(trimmed)
            || iterators.iter().any(|i| i.as_str() == name);
        if known {
            return;
        }
        let message = format!("function `{name}` is neither defined in this file nor a built-in");
        let help = "flattened models carry the functions they call: define it in the file, or correct the name";
        // omc prints some models without the functions they call (its test suite has such
        // outputs); only a file that defines functions is known to be complete.
        self.out.push(if self.scope.defines_functions() {
            Diagnostic::error(Kind::UndefinedFunction, c.function.span, message).help(help)
        } else {
            Diagnostic::warning(Kind::UndefinedFunction, c.function.span, message)
                .help(format!("{help}; the model goes on, but the tool cannot differentiate or inline it"))
        });
    }
}
