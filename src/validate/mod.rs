//! Stage 1½, validation: the model is a well-formed Modelica model before the lowering
//! reads it. Input: a parsed, checked [`StoredDefinition`] (before the declaration
//! equations are moved). Output: [`Diagnostic`]s, errors (the model is refused, exit 1)
//! and warnings (what omc would only warn about; the model goes on), each located at
//! file:line:column with the other places involved.
//!
//! Checks (one module each): [`names`] (declarations unique, `time` not declared, every
//! name and function resolved, enumeration literals existing), [`typecheck`] (Boolean
//! conditions, compatible sides, `when` targets), [`discrete`] (each discrete variable
//! defined once), [`cycles`] (parameter bindings acyclic), [`initial`] (the initial system not overdetermined, on the structure of
//! [`continuous`]). The checks are conservative: they
//! report only what is certainly wrong, so that every model OpenModelica prints (the
//! 1,901 files of `../shared/corpus`) passes without an error (`tests/validate.rs`).
//!
//! Invariants: reads the tree, never changes it; the diagnostics come in source order.

mod bases;
mod builtins;
mod continuous;
mod cycles;
mod diagnostic;
mod discrete;
mod initial;
mod matching;
mod names;
mod scope;
mod typecheck;
mod types;
mod walk;

pub use diagnostic::{Diagnostic, Kind, Severity};

use crate::syntax::ast::*;

/// Validates the model class of `def` (see [`model_class`]); diagnostics in source order.
/// Runs on the syntax stage's large stack: the walks recurse as deep as expressions nest.
pub fn validate(def: &StoredDefinition) -> Vec<Diagnostic> {
    crate::syntax::stack::with_stack(|| validate_here(def))
}

fn validate_here(def: &StoredDefinition) -> Vec<Diagnostic> {
    let Some(model) = model_class(def) else { return Vec::new() };
    let ClassBody::Long(comp) = &model.body else { return Vec::new() };
    // omc's state machine dump declares its states and their variables inside the machine
    // (`activeState(state1)`, `state1.i`): not checked here; the flat stage refuses the
    // model by name.
    if comp.parts.iter().any(|p| matches!(p, ClassPart::StateMachine(_))) {
        return Vec::new();
    }
    let scope = scope::Scope::new(def, model);
    let mut out = Vec::new();
    names::declarations(&scope, &mut out);
    let mut names = names::Names { scope: &scope, out: &mut out, pending: Vec::new(), mark: 0 };
    walk::Walk::new(&mut names).model(comp);
    names.finish();
    let typer = types::Typer { scope: &scope };
    walk::Walk::new(&mut typecheck::Types { typer, out: &mut out }).model(comp);
    // The continuous system's rows only for a model with initial equations (or `fixed =
    // true`): without, no equation is left over. The discrete check asks only whether
    // the continuous part is balanced, and only if the model has discrete unknowns
    // (issue 15: a model of 10^5 Reals builds neither).
    let initial = continuous::has_initial(&scope, comp);
    let system = if initial { continuous::build(&scope, comp, false) } else { None };
    let balanced = || match initial {
        true => system.as_ref().is_some_and(continuous::System::balanced),
        false => continuous::balanced(&scope, comp),
    };
    out.extend(discrete::Discrete::check(&scope, comp, balanced));
    out.extend(cycles::check(&scope));
    // The initial system's search without the scope (10^5 declarations); the rare model
    // it reports is read again for the rows' spans and values.
    drop(scope);
    if let Some(part) = system.as_ref().and_then(initial::overdetermined) {
        drop(system);
        let scope = scope::Scope::new(def, model);
        let detailed = continuous::build(&scope, comp, true);
        out.extend(detailed.and_then(|s| initial::diagnostic(&scope, &s, &part)));
    }
    out.sort_by_key(|d| (d.span.start, d.severity, d.kind));
    out.dedup();
    out
}

/// The class the tool analyses: the last long `model`/`class`/`block` of the file, else
/// (Base Modelica, `package 'M' … model 'M' … end 'M';`) the last one nested in a
/// top-level class. (The lowering picks the same class.)
pub fn model_class(def: &StoredDefinition) -> Option<&ClassDef> {
    let is_model = |c: &ClassDef| {
        matches!(c.kind, ClassKind::Class | ClassKind::Model | ClassKind::Block) && matches!(c.body, ClassBody::Long(_))
    };
    if let Some(c) = def.classes.iter().rev().find(|c| is_model(c)) {
        return Some(c);
    }
    def.classes.iter().rev().find_map(|p| {
        let ClassBody::Long(comp) = &p.body else { return None };
        comp.parts.iter().rev().find_map(|cp| match cp {
            ClassPart::Elements { elements, .. } => elements.iter().rev().find_map(|e| match e {
                Element::Class(c) if is_model(c) => Some(&**c),
                _ => None,
            }),
            _ => None,
        })
    })
}
