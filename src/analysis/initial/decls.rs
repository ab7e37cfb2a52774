//! What the initial-system check reads of the model class's declarations: the bindings of
//! parameters and constants (static evaluation at t = 0), declared start values, and the
//! variables declared `fixed = true` (each one an initial equation `x = start`).
//!
//! Input: the model class's parts (borrowed). Nothing is indexed: the declarations are
//! scanned when asked (the check asks for the bindings and the `fixed` declarations once,
//! and for the start values of a few mode variables), so a model of 10^5 declarations
//! holds no second table of them (issue 15).

use crate::syntax::ast::{ClassMod, ClassPart, Component, Declaration, Element, Expr, ExprKind, Prefix};
use crate::syntax::printer::expr::write_cref;
use std::collections::HashMap;

/// The declarations of the model class.
pub(crate) struct Decls<'a> {
    parts: &'a [ClassPart],
    /// How many declarations of each name carry literal subscripts (`flat::element_groups`),
    /// made when first needed.
    groups: std::cell::OnceCell<HashMap<String, usize>>,
}

/// A declaration with `fixed = true` (or `each fixed = true`) of a variable that is not a
/// parameter or constant.
pub(crate) struct Fixed {
    /// The scalar it declares (omc's scalarised `'x'[1]` included), or the array whose
    /// elements `x[1]`, … it declares (`Real x[3]`, `Real[3] x`), as the flat stage reads
    /// declarations (`flat::declared_name`).
    pub name: String,
    pub array: bool,
}

impl<'a> Decls<'a> {
    pub(crate) fn of(parts: &'a [ClassPart]) -> Decls<'a> {
        Decls { parts, groups: std::cell::OnceCell::new() }
    }

    /// Every component clause.
    fn clauses(&self) -> impl Iterator<Item = &'a Component> + 'a {
        self.parts
            .iter()
            .filter_map(|p| match p {
                ClassPart::Elements { elements, .. } => Some(elements),
                _ => None,
            })
            .flatten()
            .filter_map(|e| match e {
                Element::Component(c) => Some(c),
                _ => None,
            })
    }

    /// Every component declaration, with its clause.
    fn each(&self) -> impl Iterator<Item = (&'a Component, &'a Declaration)> + 'a {
        self.clauses().flat_map(|c| c.declarations().iter().map(move |d| (c, d)))
    }

    /// The scalar or array a declaration declares, as the flat stage reads it, and whether
    /// it is an array (its elements `x[1]`, … are the scalars).
    fn declared(&self, c: &Component, d: &Declaration) -> (String, bool) {
        if d.dims.is_empty() {
            let mut name = String::new();
            write_cref(&mut name, &d.name());
            return (name, !c.type_dims().is_empty());
        }
        let groups = self.groups.get_or_init(|| crate::flat::element_groups(&self.clauses().collect::<Vec<_>>()));
        let (name, element) = crate::flat::declared_name(c, d, groups);
        (name, !element)
    }

    /// Name → value for static evaluation: the bindings of parameters and constants, and
    /// (`fixed_starts`) the start of each variable declared `fixed = true` (its value at
    /// t = 0).
    pub(crate) fn bindings(&self, fixed_starts: bool) -> HashMap<String, Expr> {
        let mut out = HashMap::new();
        for (c, d) in self.each() {
            let known = c.has(Prefix::Parameter) || c.has(Prefix::Constant);
            let value = if known {
                d.modification.as_ref().and_then(|m| m.value.as_ref()).map(|v| &v.expr)
            } else if fixed_starts && is_fixed(d) {
                modifier(d, "start")
            } else {
                None
            };
            if let Some(v) = value {
                out.insert(self.declared(c, d).0, v.clone());
            }
        }
        out
    }

    /// The declared start value of `name`.
    pub(crate) fn start(&self, name: &str) -> Option<&'a Expr> {
        self.each().find(|(c, d)| self.declared(c, d).0 == name).and_then(|(_, d)| modifier(d, "start"))
    }

    /// The declarations with `fixed = true` of variables that are not parameters.
    pub(crate) fn fixed(&self) -> Vec<Fixed> {
        self.each()
            .filter(|(c, d)| !c.has(Prefix::Parameter) && !c.has(Prefix::Constant) && is_fixed(d))
            .map(|(c, d)| {
                let (name, array) = self.declared(c, d);
                Fixed { name, array }
            })
            .collect()
    }
}

/// The value of the modifier `arg` of a declaration (`start`, `fixed`), `each` or not.
fn modifier<'d>(d: &'d Declaration, arg: &str) -> Option<&'d Expr> {
    let cm: &ClassMod = d.modification.as_ref()?.class_mod.as_ref()?;
    cm.args.iter().find(|a| a.name.text.as_str() == arg)?.value.as_ref()
}

/// Declared `fixed = true`.
fn is_fixed(d: &Declaration) -> bool {
    matches!(modifier(d, "fixed").map(|e| &e.kind), Some(ExprKind::Bool(true)))
}
