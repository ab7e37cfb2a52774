//! Declarations → scalar variables.
//!
//! omc prints a scalarised array element by element, the subscript after the name:
//! `Real a.x[1]; Real a.x[2];` — each declares the scalar named `a.x[1]`. A declaration
//! whose subscripts are integer literals is such an element when another declaration
//! of the same name has them too, or when they are all 1 (`x[1]` is then the same
//! scalar either way); a single `Real x[3];` is an array of three. A declared size
//! (`Real[3] x`, `Real x[n]`, a short class with dimensions) is expanded into elements
//! `x[1]`, `x[2]`, `x[3]` when it is static, and `x` becomes an array aggregate. A
//! record-typed declaration declares its fields (`r.a`, `r.b`), and `r` becomes a record
//! aggregate. Sizes that are not static: refused by name for a continuous Real, else the
//! name is left undeclared (it is known to the continuous part).
//!
//! Also collects the bindings of parameters and constants (for static evaluation).

use super::eval::Env;
use super::types::{Classes, Resolved};
use super::walk::cref_text;
use super::{Aggregate, FlatError, FlatModel, Type, Var, Variability};
use crate::syntax::Span;
use crate::syntax::ast::text;
use crate::syntax::ast::{
    ClassDef, ClassPart, Component, Composition, Declaration, Element, ExprKind, Prefix, Subscript, TypeSpec,
};
use crate::syntax::printer::expr::write_subscripts;
use std::collections::HashMap;

/// Declares every component of the model class.
pub(super) fn declare<'a>(
    class: &ClassDef,
    comp: &Composition,
    classes: &Classes<'a>,
) -> Result<FlatModel<'a>, FlatError> {
    let mut m = FlatModel {
        name: class.name.text.as_str().trim_matches('\'').to_string(),
        span: class.span,
        ..FlatModel::default()
    };
    let mut clauses = Vec::new();
    for part in &comp.parts {
        let ClassPart::Elements { elements, .. } = part else { continue };
        for e in elements {
            match e {
                Element::Component(c) => clauses.push(c),
                Element::Extends(x) => return Err(FlatError::new(x.span, "unsupported construct `extends`")),
                Element::Class(_) | Element::Import(_) | Element::Annotation(_) => {}
            }
        }
    }
    let groups = element_groups(&clauses);
    for c in &clauses {
        if c.has(Prefix::Parameter) || c.has(Prefix::Constant) {
            for d in c.declarations() {
                if let Some(v) = d.modification.as_ref().and_then(|m| m.value.as_ref()) {
                    m.bindings.insert(declared_name(c, d, &groups).0, v.expr.clone());
                }
            }
        }
    }
    let bindings = std::mem::take(&mut m.bindings);
    {
        let mut ctx = Declare { m: &mut m, classes, env: Env { bindings: &bindings } };
        for c in &clauses {
            ctx.clause(c, &groups)?;
        }
    }
    m.bindings = bindings;
    m.vars.shrink_to_fit(); // held through flattening and the lowering: no spare room
    m.index = super::Index::of(&m.vars);
    Ok(m)
}

/// How many declarations of each name carry integer-literal subscripts (elements).
pub(crate) fn element_groups(clauses: &[&Component]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for c in clauses {
        for d in c.declarations() {
            if c.type_dims().is_empty() && !d.dims.is_empty() && literal_subscripts(&d.dims).is_some() {
                *out.entry(cref_text(&d.name())).or_insert(0) += 1;
            }
        }
    }
    out
}

fn literal_subscripts(dims: &[Subscript]) -> Option<Vec<usize>> {
    dims.iter()
        .map(|s| match s {
            Subscript::Expr(e) => match &e.kind {
                ExprKind::Number(t) => t.as_str().parse::<usize>().ok(),
                _ => None,
            },
            Subscript::All(_) => None,
        })
        .collect()
}

/// The name a declaration declares and whether it is an element of a scalarised array.
pub(crate) fn declared_name(c: &Component, d: &Declaration, groups: &HashMap<String, usize>) -> (String, bool) {
    let base = cref_text(&d.name());
    let element = c.type_dims().is_empty()
        && literal_subscripts(&d.dims)
            .is_some_and(|subs| groups.get(&base).copied().unwrap_or(0) >= 2 || subs.iter().all(|&k| k == 1));
    if element {
        let mut name = base;
        write_subscripts(&mut name, &d.dims);
        (name, true)
    } else {
        (base, false)
    }
}

struct Declare<'m, 'c, 'b> {
    m: &'m mut FlatModel<'c>,
    classes: &'m Classes<'c>,
    env: Env<'b>,
}

impl Declare<'_, '_, '_> {
    fn clause(&mut self, c: &Component, groups: &HashMap<String, usize>) -> Result<(), FlatError> {
        let variability = if c.has(Prefix::Constant) {
            Variability::Constant
        } else if c.has(Prefix::Parameter) {
            Variability::Parameter
        } else if c.has(Prefix::Discrete) {
            Variability::Discrete
        } else if c.has(Prefix::Input) {
            Variability::Input
        } else {
            Variability::Continuous
        };
        let (resolved, type_dims) = match &*c.type_spec() {
            TypeSpec::Name(n) => self.classes.resolve(n.text.as_str()),
            TypeSpec::Enumeration(_) => (Resolved::Builtin(Type::Enumeration), Vec::new()),
        };
        for d in c.declarations() {
            let (name, element) = declared_name(c, d, groups);
            let mut dims: Vec<&Subscript> = Vec::new();
            if !element {
                dims.extend(d.dims.iter());
            }
            dims.extend(c.type_dims().iter());
            dims.extend(type_dims.iter().copied());
            self.add(&name, resolved, &dims, variability, d.span(), 0)?;
        }
        Ok(())
    }

    /// Declares `name` of type `resolved` with dimensions `dims`.
    fn add(
        &mut self,
        name: &str,
        resolved: Resolved,
        dims: &[&Subscript],
        variability: Variability,
        span: Span,
        depth: u32,
    ) -> Result<(), FlatError> {
        if depth > 16 {
            return Err(FlatError::new(span, format!("unsupported construct: `{name}` nests records too deeply")));
        }
        if let Some((first, rest)) = dims.split_first() {
            let size = match first {
                Subscript::Expr(e) => self.env.int(e).and_then(|k| usize::try_from(k).ok()),
                Subscript::All(_) => None,
            };
            let Some(size) = size else {
                if matches!(resolved, Resolved::Builtin(Type::Real) | Resolved::Record(_))
                    && variability == Variability::Continuous
                {
                    return Err(FlatError::new(
                        span,
                        format!("unsupported construct: the array `{name}` has a size that is not known statically"),
                    ));
                }
                return Ok(());
            };
            // `x[1]`, `x[2]` or, one dimension further, `x[1, 1]`: element names carry all
            // subscripts of one reference together.
            let elements: Vec<String> = (1..=size).map(|k| super::names::element(name, k as i64)).collect();
            for e in &elements {
                self.add(e, resolved, rest, variability, span, depth + 1)?;
            }
            self.m.aggregates.insert(name.to_string(), Aggregate::Array { sizes: vec![size], elements });
            return Ok(());
        }
        match resolved {
            Resolved::Builtin(ty) => {
                let name = text(name);
                self.m.vars.push(Var { name, ty, variability, span });
            }
            Resolved::Record(rc) => {
                let crate::syntax::ast::ClassBody::Long(comp) = &rc.body else { return Ok(()) };
                let mut fields = Vec::new();
                for part in &comp.parts {
                    let ClassPart::Elements { elements, .. } = part else { continue };
                    for e in elements {
                        let Element::Component(f) = e else { continue };
                        let inner = if f.has(Prefix::Constant) {
                            Variability::Constant
                        } else if f.has(Prefix::Parameter) && variability != Variability::Constant {
                            Variability::Parameter
                        } else {
                            variability
                        };
                        let (r, tdims) = match &*f.type_spec() {
                            TypeSpec::Name(n) => self.classes.resolve(n.text.as_str()),
                            TypeSpec::Enumeration(_) => (Resolved::Builtin(Type::Enumeration), Vec::new()),
                        };
                        for fd in f.declarations() {
                            let field = format!("{name}.{}", cref_text(&fd.name()));
                            let mut d: Vec<&Subscript> = fd.dims.iter().collect();
                            d.extend(f.type_dims().iter());
                            d.extend(tdims.iter().copied());
                            self.add(&field, r, &d, inner, span, depth + 1)?;
                            fields.push(field);
                        }
                    }
                }
                self.m.aggregates.insert(name.to_string(), Aggregate::Record { fields });
            }
        }
        Ok(())
    }
}
