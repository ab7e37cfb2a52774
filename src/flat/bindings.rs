//! Declaration equations. `Real y = time;` declares `y` *and* states the equation `y = time`
//! (Modelica Language Specification §4.4.1 and §8.3.1); omc prints such declarations
//! (`Real part.realExpression.y = time "Value of Real output";`). The lowering and the RIMIS
//! transformation read equations from equation sections only, so this pass, run on the
//! parsed model before them, moves the binding of every component of the model class that
//! is neither a `parameter` nor a `constant` into the model's first (non-initial) equation
//! section, as `name = value`, with the declaration's span; a model without an equation
//! section gets one after its last element section. The declaration keeps its modifiers
//! (`start`, `fixed`, `unit`…) and its comment.
//!
//! Invariants: parameters, constants and the classes nested in the model (functions,
//! records) are untouched; the moved equations keep the declarations' order, ahead of the
//! section's own equations; conditional declarations (`… if c`) are left alone (the lowering
//! refuses them by name). A declaration omc scalarised, `Real a.x[1] = e;` (see
//! `decls.rs`), moves as `a.x[1] = e`. The pass is idempotent.

use super::decls::{declared_name, element_groups};
use super::model::model_class_mut;
use super::walk::name_expr;
use crate::syntax::ast::{
    ClassBody, ClassPart, Component, Declaration, Element, Equation, EquationKind, Expr, ExprKind, Prefix,
    StoredDefinition,
};

/// Moves the declaration equations of the model class into its equations; returns how many.
pub fn move_declaration_equations(def: &mut StoredDefinition) -> usize {
    let Some(class) = model_class_mut(def) else { return 0 };
    // The names of the declarations that move, only (a flat model declares 10^5 names and
    // binds few of them, if any: issue 15).
    let moves = |c: &Component, d: &Declaration| {
        !(c.has(Prefix::Parameter) || c.has(Prefix::Constant))
            && d.condition.is_none()
            && d.modification.as_ref().is_some_and(|m| m.value.is_some())
    };
    if !class.components().any(|c| c.declarations().iter().any(|d| moves(c, d))) {
        return 0;
    }
    let groups = element_groups(&class.components().collect::<Vec<_>>());
    let ClassBody::Long(comp) = &mut class.body else { return 0 };
    let mut moved = Vec::new();
    let mut last_elements = None;
    for (k, part) in comp.parts.iter_mut().enumerate() {
        let ClassPart::Elements { elements, .. } = part else { continue };
        last_elements = Some(k);
        for element in elements.iter_mut() {
            let Element::Component(c) = element else { continue };
            for i in 0..c.declarations().len() {
                if !moves(c, &c.declarations()[i]) {
                    continue;
                }
                // `Real a.x[1] = e;` (an element omc scalarised) is `a.x[1] = e`.
                let (name, element) = declared_name(c, &c.declarations()[i], &groups);
                let d = &mut c.declarations_mut()[i];
                let m =
                    d.parts_mut().and_then(|p| p.modification.as_mut()).expect("a declaration that moves has a value");
                let value = m.value.take().expect("a declaration that moves has a value");
                if m.class_mod.is_none() {
                    d.parts_mut().expect("has a modification").modification = None;
                    d.shrink();
                }
                let lhs = if element { name_expr(&name, d.name_span()) } else { reference(&d.name()) };
                moved.push(Equation::new(None, EquationKind::Simple { lhs, rhs: value.expr }, None, d.span()));
            }
        }
    }
    let count = moved.len();
    if count == 0 {
        return 0;
    }
    let section = comp.parts.iter_mut().find_map(|part| match part {
        ClassPart::Equations { initial: false, equations, .. } => Some(equations),
        _ => None,
    });
    match section {
        Some(equations) => {
            moved.append(equations);
            *equations = moved;
        }
        None => {
            let at = last_elements.map_or(0, |k| k + 1);
            let span = moved[0].span();
            comp.parts.insert(at, ClassPart::Equations { initial: false, equations: moved, span });
        }
    }
    count
}

/// The expression form of a declared name, as the parser builds it for a reference.
fn reference(name: &crate::syntax::ast::ComponentRef) -> Expr {
    if name.parts.len() == 1 && name.parts[0].subscripts.is_empty() {
        Expr::new(ExprKind::Name(name.parts[0].ident.text), name.span)
    } else {
        Expr::new(ExprKind::Ref(Box::new(name.clone())), name.span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn moved(src: &str) -> (usize, String) {
        let mut def = syntax::parse(src).expect("parses");
        let n = move_declaration_equations(&mut def);
        (n, syntax::print(&def))
    }

    #[test]
    fn a_binding_of_an_unknown_becomes_the_first_equation() {
        let (n, out) = moved(
            "model M\n  parameter Real p = 2;\n  Real y(start = 1) = p * time \"d\";\n  Boolean g = y > 1;\n  Real x;\nequation\n  der(x) = y;\nend M;\n",
        );
        assert_eq!(n, 2);
        assert!(out.contains("parameter Real p = 2;"), "{out}");
        assert!(out.contains("Real y(start = 1) \"d\";"), "{out}");
        assert!(out.contains("Boolean g;"), "{out}");
        let eqs = &out[out.find("equation").expect("an equation section")..];
        let (y, g, x) = (eqs.find("y = p * time;"), eqs.find("g = y > 1;"), eqs.find("der(x) = y;"));
        assert!(y < g && g < x && x.is_some(), "{out}");
    }

    #[test]
    fn a_model_without_equations_gets_a_section_and_functions_are_untouched() {
        let (n, out) = moved(
            "model M\n  function f\n    input Real u;\n    output Real v = 2 * u;\n  algorithm\n  end f;\n  Real a.b = f(time);\nend M;\n",
        );
        assert_eq!(n, 1);
        assert!(out.contains("output Real v = 2 * u;"), "{out}");
        assert!(out.contains("equation\n  a.b = f(time);"), "{out}");
        let mut again = syntax::parse(&out).expect("re-parses");
        assert_eq!(move_declaration_equations(&mut again), 0, "idempotent");
    }
}
