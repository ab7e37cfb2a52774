//! Calls whose value is a record or an array: record constructors and record-valued
//! functions (operator records: `Complex.'+'(a, b)`, `Complex.'constructor'.fromReal(re,
//! im)`, `Modelica.ComplexMath.conj(c)`), read field by field.
//!
//! omc prints a record type only as its constructor, `function Complex "Automatically
//! generated record constructor" input Real re; input Real im; output Complex res; end
//! Complex;`: a record's fields are the inputs of the function of the same name (or the
//! components of a `record` class when the file has one). A function with an empty body
//! whose inputs are named like the fields of its output record is a constructor
//! (`'constructor'.fromReal`, whose output modifiers omc does not print); a function whose
//! body is one assignment to its output is inlined. Any other record- or array-valued
//! function is opaque: its equation is a block.

use super::expand::{Expander, Res, Val};
use super::types::Classes;
use crate::syntax::Span;
use crate::syntax::ast::{
    Call, ClassBody, ClassDef, ClassKind, ClassPart, Component, Expr, ExprKind, FunctionArgs, Ident, NamedArg, Prefix,
    StatementKind, TypeSpec, text,
};
use std::collections::HashMap;

/// How deep inlined functions may nest.
const MAX_INLINE: usize = 16;

/// The value of a call to a record- or array-valued function of the file, or `None`
/// when `c` calls something else.
pub(super) fn call(x: &mut Expander, c: &Call) -> Res<Option<Val>> {
    let f = c.function.text.as_str();
    let Some(func) = x.classes.function(f) else { return Ok(None) };
    let Some(output) = func.components().find(|c| c.has(Prefix::Output)) else { return Ok(None) };
    let record = type_name(output).and_then(|t| record_fields(x.classes, &qualified(x.classes, f, t)));
    let array = !output.type_dims().is_empty() || output.declarations().iter().any(|d| !d.dims.is_empty());
    if record.is_none() && !array {
        return Ok(None);
    }
    x.changed = true;
    let opaque = |x: &mut Expander| {
        x.opaque.get_or_insert_with(|| f.to_string());
        Ok(Some(Val::Opaque))
    };
    let ClassBody::Long(comp) = &func.body else { return opaque(x) };
    let local_variables = func.components().any(|c| !c.has(Prefix::Input) && !c.has(Prefix::Output));
    if x.locals.len() >= MAX_INLINE || comp.external.is_some() || local_variables {
        return opaque(x);
    }
    let Some(scope) = arguments(x, func, c)? else { return opaque(x) };
    let out_name = output.declarations().first().map(|d| d.ident().text.as_str().to_string());
    let body = statements(func);
    let value = match (body.as_slice(), &record) {
        ([], Some(fields)) if !array && fields.iter().all(|f| scope.contains_key(f)) => {
            Val::Record(fields.iter().map(|f| (f.clone(), scope[f].clone())).collect())
        }
        ([one], _) => {
            let StatementKind::Assign { target, value } = &one.kind else { return opaque(x) };
            if !matches!(&target.kind, ExprKind::Name(n) if Some(n.as_str()) == out_name.as_deref()) {
                return opaque(x);
            }
            x.locals.push(scope);
            let v = x.value(value);
            x.locals.pop();
            v?
        }
        _ => return opaque(x),
    };
    if value.is_opaque() {
        return opaque(x);
    }
    Ok(Some(value))
}

/// `c` with every argument that is a whole record of the model (`f(state)` for the scalars
/// `state.p`, `state.T`) written as its record's constructor on those scalars
/// (`f(R(p = state.p, T = state.T))`), so that the equation reads the scalars by name and
/// a rewrite can replace them; `None` when no argument is one, or its input's record type
/// is not known. `c` calls a scalar-valued function of the file.
pub(super) fn with_record_arguments(x: &mut Expander, c: &Call) -> Res<Option<Call>> {
    let f = c.function.text.as_str();
    let Some(func) = x.classes.function(f) else { return Ok(None) };
    let FunctionArgs::List { positional, named } = &c.args else { return Ok(None) };
    // (name, type, scalar: no dimensions)
    let inputs: Vec<(&str, Option<&str>, bool)> = func
        .components()
        .filter(|c| c.has(Prefix::Input))
        .flat_map(|c| {
            c.declarations()
                .iter()
                .map(move |d| (d.ident().text.as_str(), type_name(c), c.type_dims().is_empty() && d.dims.is_empty()))
        })
        .collect();
    let mut changed = false;
    let mut arg = |x: &mut Expander, e: &Expr, input: Option<&(&str, Option<&str>, bool)>| -> Res<Expr> {
        let Some(&(_, Some(ty), scalar)) = input else { return Ok(e.clone()) };
        let ty = qualified(x.classes, f, ty);
        let record = record_fields(x.classes, &ty).is_some();
        if scalar && !record && has_subscript_expression(e) {
            // `rhos[{1, 2}[1]]` (omc's comprehensions, unrolled): the scalar it names.
            return match x.value(&fold_selections(e))? {
                Val::Scalar(s) => {
                    changed = true;
                    Ok(s)
                }
                _ => Ok(e.clone()),
            };
        }
        if !matches!(e.kind, ExprKind::Name(_) | ExprKind::Ref(_)) {
            return Ok(e.clone());
        }
        if !scalar || !record {
            return Ok(e.clone());
        }
        let v = x.value(e)?;
        match constructor(x.classes, &ty, &v) {
            Some(built) => {
                changed = true;
                Ok(built)
            }
            None => Ok(e.clone()),
        }
    };
    let mut new_positional = Vec::with_capacity(positional.len());
    for (k, e) in positional.iter().enumerate() {
        new_positional.push(arg(x, e, inputs.get(k))?);
    }
    let mut new_named = Vec::with_capacity(named.len());
    for n in named.iter() {
        let input = inputs.iter().find(|i| i.0 == n.name.text.as_str());
        new_named.push(NamedArg { name: n.name.clone(), value: arg(x, &n.value, input)? });
    }
    if !changed {
        return Ok(None);
    }
    let args = FunctionArgs::List { positional: new_positional.into(), named: new_named.into() };
    Ok(Some(Call { function: c.function.clone(), args }))
}

/// `e` with every selection of a literal array at a literal index (`{1, 2}[2]`) replaced
/// by the element (`2`).
fn fold_selections(e: &Expr) -> Expr {
    super::walk::map(e, &mut |x| {
        let ExprKind::Subscripted(s) = &x.kind else { return None };
        let (ExprKind::Array(items), [crate::syntax::ast::Subscript::Expr(k)]) = (&s.base.kind, &*s.subscripts) else {
            return None;
        };
        let ExprKind::Number(n) = &k.kind else { return None };
        let k: usize = n.as_str().parse().ok()?;
        items.get(k.checked_sub(1)?).map(fold_selections)
    })
}

/// Does `e` hold a subscript that is not an integer literal or a name?
fn has_subscript_expression(e: &Expr) -> bool {
    let mut found = false;
    super::walk::visit(e, &mut |x| {
        if let ExprKind::Ref(r) = &x.kind {
            found |= r.parts.iter().flat_map(|p| p.subscripts.iter()).any(|s| match s {
                crate::syntax::ast::Subscript::Expr(i) => !matches!(i.kind, ExprKind::Number(_) | ExprKind::Name(_)),
                _ => false,
            });
        }
        if let ExprKind::Subscripted(_) = &x.kind {
            found = true;
        }
        !found
    });
    found
}

/// The record value `v` of type `ty` as a constructor call on its scalars, fields named
/// (`R(p = …, T = …)`); nested records by their field's type; `None` where a field is not
/// known scalar by scalar or its type is not a known record.
fn constructor(classes: &Classes, ty: &str, v: &Val) -> Option<Expr> {
    match v {
        Val::Scalar(e) => Some(e.clone()),
        Val::Array(xs) => {
            let items = xs.iter().map(|x| constructor(classes, ty, x)).collect::<Option<Vec<_>>>()?;
            Some(Expr::new(ExprKind::Array(items.into()), Span::DUMMY))
        }
        Val::Record(fields) => {
            let class = classes.get(ty)?;
            let types: HashMap<&str, &str> = class
                .components()
                .flat_map(|c| c.declarations().iter().map(move |d| (d.ident().text.as_str(), type_name(c))))
                .filter_map(|(n, t)| Some((n, t?)))
                .collect();
            let mut named = Vec::with_capacity(fields.len());
            for (name, value) in fields {
                let field_ty = types.get(name.as_str()).map(|t| qualified(classes, ty, t)).unwrap_or_default();
                let value = match value {
                    Val::Scalar(e) => e.clone(),
                    other => constructor(classes, &field_ty, other)?,
                };
                named.push(NamedArg { name: Ident { text: text(name), span: Span::DUMMY }, value });
            }
            let args = FunctionArgs::List { positional: Vec::new().into(), named: named.into() };
            let call = Call { function: Ident { text: text(ty), span: Span::DUMMY }, args };
            Some(Expr::new(ExprKind::Call(Box::new(call)), Span::DUMMY))
        }
        Val::Opaque => None,
    }
}

/// The inputs of `func` bound to the call's arguments (defaults where missing), as
/// values in the caller's scope; `None` when an input has no value.
fn arguments(x: &mut Expander, func: &ClassDef, c: &Call) -> Res<Option<HashMap<String, Val>>> {
    let FunctionArgs::List { positional, named } = &c.args else { return Ok(None) };
    let inputs: Vec<(&str, Option<&Expr>)> = func
        .components()
        .filter(|c| c.has(Prefix::Input))
        .flat_map(|c| c.declarations().iter())
        .map(|d| {
            let default = d.modification.as_ref().and_then(|m| m.value.as_ref()).map(|v| &v.expr);
            (d.ident().text.as_str(), default)
        })
        .collect();
    if positional.len() > inputs.len() {
        return Ok(None);
    }
    let mut scope = HashMap::new();
    for (k, (name, default)) in inputs.iter().enumerate() {
        let arg = positional.get(k).or_else(|| named.iter().find(|n| n.name.text.as_str() == *name).map(|n| &n.value));
        let v = match (arg, default) {
            (Some(a), _) => x.value(a)?,
            (None, Some(d)) => {
                // A default may read the inputs before it.
                x.locals.push(scope.clone());
                let v = x.value(d);
                x.locals.pop();
                v?
            }
            (None, None) => return Ok(None),
        };
        scope.insert(name.to_string(), v);
    }
    Ok(Some(scope))
}

/// The fields of the record type `name`: the components of a `record` class, or the
/// inputs of its constructor function.
pub(super) fn record_fields(classes: &Classes, name: &str) -> Option<Vec<String>> {
    let c = classes.get(name)?;
    let fields = match c.kind {
        ClassKind::Record | ClassKind::OperatorRecord => {
            c.components().flat_map(|c| c.declarations().iter()).collect::<Vec<_>>()
        }
        _ if classes.function(name).is_some() => {
            // omc writes the constructor's output type unqualified: `function A.B.R … output R res;`.
            let output = c.components().find(|c| c.has(Prefix::Output))?;
            let out_type = type_name(output)?;
            let last = |n: &str| n.trim_matches('\'').rsplit('.').next().unwrap_or(n).to_string();
            if out_type != name && last(out_type) != last(name) {
                return None;
            }
            c.components().filter(|c| c.has(Prefix::Input)).flat_map(|c| c.declarations().iter()).collect()
        }
        _ => return None,
    };
    Some(fields.iter().map(|d| d.ident().text.as_str().to_string()).collect())
}

/// A type name as written inside the class `scope` (`Orientation` in `A.B.Orientation`'s
/// constructor), qualified by the innermost enclosing package that defines it.
fn qualified(classes: &Classes, scope: &str, name: &str) -> String {
    if classes.get(name).is_some() {
        return name.to_string();
    }
    let mut prefix = scope.trim_matches('\'');
    while let Some((outer, _)) = prefix.rsplit_once('.') {
        let candidate = format!("{outer}.{name}");
        if classes.get(&candidate).is_some() {
            return candidate;
        }
        prefix = outer;
    }
    name.to_string()
}

fn type_name(c: &Component) -> Option<&str> {
    match &*c.type_spec() {
        TypeSpec::Name(n) => Some(n.text.as_str()),
        TypeSpec::Enumeration(_) => None,
    }
}

fn statements(c: &ClassDef) -> Vec<&crate::syntax::ast::Statement> {
    let ClassBody::Long(comp) = &c.body else { return Vec::new() };
    comp.parts
        .iter()
        .flat_map(|p| match p {
            ClassPart::Algorithm { statements, .. } => statements.as_slice(),
            _ => &[],
        })
        .collect()
}
