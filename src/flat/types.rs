//! The classes of the file by name, and what a declared type is: a builtin type, a
//! record (its fields are declared one by one), an enumeration, or a type the file
//! does not define. Short classes (`type Voltage = Real(unit = "V")`) resolve to their
//! base, with their dimensions.

use super::Type;
use crate::syntax::ast::{ClassBody, ClassDef, ClassKind, StoredDefinition, Subscript};
use std::collections::HashMap;

/// What a type name stands for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Resolved<'a> {
    Builtin(Type),
    Record(&'a ClassDef),
}

/// Every class of the file by its name as written (and without quotes).
pub(crate) struct Classes<'a> {
    by_name: HashMap<String, &'a ClassDef>,
}

impl<'a> Classes<'a> {
    pub(crate) fn of(def: &'a StoredDefinition) -> Classes<'a> {
        let mut by_name = HashMap::new();
        for c in &def.classes {
            add(&mut by_name, c, 0);
        }
        Classes { by_name }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&'a ClassDef> {
        self.by_name.get(name).or_else(|| self.by_name.get(name.trim_matches('\''))).copied()
    }

    /// The type `name` stands for, with the dimensions its short classes add.
    pub(crate) fn resolve(&self, name: &str) -> (Resolved<'a>, Vec<&'a Subscript>) {
        let mut dims = Vec::new();
        let mut name = name;
        for _ in 0..32 {
            match builtin(name) {
                Some(t) => return (Resolved::Builtin(t), dims),
                None => {
                    let Some(c) = self.get(name) else { break };
                    match &c.body {
                        ClassBody::Short { base, dims: d, .. } => {
                            dims.extend(d.iter());
                            name = base.text.as_str();
                        }
                        ClassBody::Enumeration { .. } => return (Resolved::Builtin(Type::Enumeration), dims),
                        ClassBody::Long(_) if matches!(c.kind, ClassKind::Record | ClassKind::OperatorRecord) => {
                            return (Resolved::Record(c), dims);
                        }
                        _ => break,
                    }
                }
            }
        }
        (Resolved::Builtin(Type::Other), dims)
    }

    /// Is `name` a literal `E.lit` of an enumeration type `E` of the file (or builtin)?
    pub(crate) fn is_enumeration_literal(&self, name: &str) -> bool {
        let Some((ty, _)) = name.rsplit_once('.') else { return false };
        matches!(ty, "StateSelect" | "AssertionLevel" | "Modelica.Blocks.Types.Init")
            || matches!(self.get(ty).map(|c| &c.body), Some(ClassBody::Enumeration { .. }))
    }

    /// The function named `name`, if the file defines it.
    pub(crate) fn function(&self, name: &str) -> Option<&'a ClassDef> {
        self.get(name).filter(|c| {
            matches!(
                c.kind,
                ClassKind::Function | ClassKind::ImpureFunction | ClassKind::PureFunction | ClassKind::OperatorFunction
            )
        })
    }
}

fn add<'a>(by_name: &mut HashMap<String, &'a ClassDef>, c: &'a ClassDef, depth: u32) {
    let name = c.name.text.as_str();
    by_name.insert(name.to_string(), c);
    by_name.entry(name.trim_matches('\'').to_string()).or_insert(c);
    if depth > 4 {
        return;
    }
    for x in c.nested_classes() {
        add(by_name, x, depth + 1);
    }
}

fn builtin(name: &str) -> Option<Type> {
    Some(match name {
        "Real" => Type::Real,
        "Integer" => Type::Integer,
        "Boolean" => Type::Boolean,
        "String" => Type::String,
        "Clock" => Type::Clock,
        "StateSelect" | "AssertionLevel" => Type::Enumeration,
        _ => return None,
    })
}
