//! Test helpers: parse an expression or a whole file, print an expression.

use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string;

/// The right-hand side of `x = <src>;` in a one-equation model.
pub(crate) fn parse_expr(src: &str) -> Expr {
    let def = parse_file(&format!("model M\nequation\n  x = {src};\nend M;\n"));
    let Some(ClassBody::Long(c)) = def.classes.last().map(|c| &c.body) else { panic!("no class") };
    for part in &c.parts {
        if let ClassPart::Equations { equations, .. } = part
            && let Some(EquationKind::Simple { rhs, .. }) = equations.first().map(|e| &e.kind)
        {
            return rhs.clone();
        }
    }
    panic!("no equation in {src}")
}

pub(crate) fn parse_file(src: &str) -> StoredDefinition {
    crate::syntax::parse(src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

pub(crate) fn show(e: &Expr) -> String {
    expr_to_string(e)
}
