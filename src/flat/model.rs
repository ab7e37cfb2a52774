//! Which class of a file is the model: the last long `model`/`class`/`block`, else (Base
//! Modelica: `package 'M' … model 'M' … end 'M'; end 'M';`) the last one nested in a
//! top-level class. Every stage that reads the model finds it here.

use crate::syntax::ast::{ClassBody, ClassDef, ClassKind, ClassPart, Element, StoredDefinition};

/// The model class of `def`.
pub fn model_class(def: &StoredDefinition) -> Option<&ClassDef> {
    match model_location(def)? {
        ModelAt::Top(k) => Some(&def.classes[k]),
        ModelAt::Nested { package, part, element } => match &def.classes[package].body {
            ClassBody::Long(comp) => match &comp.parts[part] {
                ClassPart::Elements { elements, .. } => match &elements[element] {
                    Element::Class(c) => Some(&**c),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        },
    }
}

/// [`model_class`], mutable (for the passes that rewrite the model before lowering).
pub fn model_class_mut(def: &mut StoredDefinition) -> Option<&mut ClassDef> {
    match model_location(def)? {
        ModelAt::Top(k) => Some(&mut def.classes[k]),
        ModelAt::Nested { package, part, element } => match &mut def.classes[package].body {
            ClassBody::Long(comp) => match &mut comp.parts[part] {
                ClassPart::Elements { elements, .. } => match &mut elements[element] {
                    Element::Class(c) => Some(&mut **c),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        },
    }
}

/// [`model_class`] taken out of `def` (the rest of the file stays in order): for a model
/// printed unchanged, whose parts move into the output without a copy.
pub fn take_model_class(def: &mut StoredDefinition) -> Option<ClassDef> {
    match model_location(def)? {
        ModelAt::Top(k) => Some(def.classes.remove(k)),
        ModelAt::Nested { package, part, element } => match &mut def.classes[package].body {
            ClassBody::Long(comp) => match &mut comp.parts[part] {
                ClassPart::Elements { elements, .. } => match elements.remove(element) {
                    Element::Class(c) => Some(*c),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        },
    }
}

/// Where the model class sits in the file.
enum ModelAt {
    Top(usize),
    Nested { package: usize, part: usize, element: usize },
}

fn model_location(def: &StoredDefinition) -> Option<ModelAt> {
    let is_model = |c: &ClassDef| {
        matches!(c.kind, ClassKind::Class | ClassKind::Model | ClassKind::Block) && matches!(c.body, ClassBody::Long(_))
    };
    if let Some(k) = def.classes.iter().rposition(is_model) {
        return Some(ModelAt::Top(k));
    }
    def.classes.iter().enumerate().rev().find_map(|(package, p)| {
        let ClassBody::Long(comp) = &p.body else { return None };
        comp.parts.iter().enumerate().rev().find_map(|(part, cp)| match cp {
            ClassPart::Elements { elements, .. } => elements
                .iter()
                .rposition(|e| matches!(e, Element::Class(c) if is_model(c)))
                .map(|element| ModelAt::Nested { package, part, element }),
            _ => None,
        })
    })
}
