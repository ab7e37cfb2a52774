//! Reading one `function` class into a [`Function`]: its parameters by causality,
//! its `derivative` annotations (kept in the AST as modifications:
//! `derivative = f_der`, `derivative(order = 2, noDerivative = k) = f_der`, in the
//! class annotation, an element-list annotation or the `external` clause's), and its
//! body classified as straight-line assignments, external, or other with a reason.

use super::builtins::builtin_name;
use super::functions::{Body, DerivativeAnnotation, Function, Param};
use crate::syntax::ast::*;

pub(crate) fn read(c: &ClassDef, comp: &Composition) -> Function {
    let mut f = Function {
        name: c.name.text,
        inputs: Vec::new(),
        outputs: Vec::new(),
        locals: Vec::new(),
        derivatives: Vec::new(),
        body: Body::Assignments(Vec::new()),
        span: c.span,
    };
    let mut annotations: Vec<&ClassMod> = comp.annotation.iter().collect();
    let mut problem: Option<String> = None;
    let mut stmts = Vec::new();
    for part in &comp.parts {
        match part {
            ClassPart::Elements { elements, .. } => {
                for e in elements {
                    match e {
                        Element::Component(k) => params(&mut f, k, &mut problem),
                        Element::Annotation(a) => annotations.push(a),
                        _ => {}
                    }
                }
            }
            ClassPart::Equations { .. } => problem = problem.or(Some("it has equations".to_string())),
            ClassPart::StateMachine(_) => problem = problem.or(Some("it has a state machine".to_string())),
            ClassPart::Algorithm { statements, .. } => {
                for s in statements {
                    match straight(s) {
                        Ok(a) => stmts.push(a),
                        Err(why) => problem = problem.or(Some(why)),
                    }
                }
            }
        }
    }
    if let Some(ext) = &comp.external {
        annotations.extend(ext.annotation.iter());
        let called = ext.call.as_ref().map(|x| x.function.text.as_str());
        let builtin = called.and_then(builtin_name).or_else(|| builtin_name(&c.name.text));
        f.body = Body::External { builtin };
    } else if c.kind == ClassKind::ImpureFunction {
        f.body = Body::Other("it is impure".to_string());
    } else if let Some(why) = problem {
        f.body = Body::Other(why);
    } else {
        f.body = Body::Assignments(stmts);
    }
    f.derivatives = annotations.iter().flat_map(|a| a.args.iter()).filter_map(derivative).collect();
    f
}

fn params(f: &mut Function, k: &Component, problem: &mut Option<String>) {
    let real = match &*k.type_spec() {
        TypeSpec::Name(t) => !matches!(t.text.as_str(), "Integer" | "Boolean" | "String"),
        TypeSpec::Enumeration { .. } => false,
    };
    for d in k.declarations() {
        let name = d.name();
        let [part] = &*name.parts else { continue };
        if !d.dims.is_empty() || !k.type_dims().is_empty() || !part.subscripts.is_empty() {
            *problem = problem.take().or(Some(format!("`{}` is an array", part.ident.text)));
        }
        let default = d.modification.as_ref().and_then(|m| m.value.as_ref()).map(|v| v.expr.clone());
        let p = Param { name: part.ident.text, real, default };
        if k.has(Prefix::Input) {
            f.inputs.push(p);
        } else if k.has(Prefix::Output) {
            f.outputs.push(p);
        } else {
            f.locals.push(p);
        }
    }
}

/// A `name := value` statement, or why the body is not straight-line.
fn straight(s: &Statement) -> Result<(Text, Expr), String> {
    match &s.kind {
        StatementKind::Assign { target, value } => match &target.kind {
            ExprKind::Name(n) => Ok((*n, value.clone())),
            _ => Err("it assigns to a tuple or an array element".to_string()),
        },
        StatementKind::If { .. } => Err("its algorithm has an if-statement".to_string()),
        StatementKind::For { .. } => Err("its algorithm has a for-loop".to_string()),
        StatementKind::While { .. } => Err("its algorithm has a while-loop".to_string()),
        StatementKind::When { .. } => Err("its algorithm has a when-statement".to_string()),
        StatementKind::Call(_) => Err("its algorithm calls a procedure".to_string()),
        StatementKind::Return(_) | StatementKind::Break => Err("its algorithm has a return or break".to_string()),
    }
}

/// `derivative … = f_der` as a modification argument.
fn derivative(arg: &ModArg) -> Option<DerivativeAnnotation> {
    if arg.name.text != "derivative" {
        return None;
    }
    let function = match &arg.value.as_ref()?.kind {
        ExprKind::Name(n) => *n,
        _ => return None,
    };
    let mut d = DerivativeAnnotation { function, order: 1, no_derivative: Vec::new(), zero_derivative: Vec::new() };
    for a in arg.class_mod().iter().flat_map(|cm| cm.args.iter()) {
        let value = a.value.as_ref().map(|v| &v.kind);
        match (a.name.text.as_str(), value) {
            ("order", Some(ExprKind::Number(n))) => d.order = n.parse().ok().filter(|k| *k >= 1)?,
            ("noDerivative", Some(ExprKind::Name(n))) => d.no_derivative.push(*n),
            ("zeroDerivative", Some(ExprKind::Name(n))) => d.zero_derivative.push(*n),
            _ => return None,
        }
    }
    Some(d)
}
