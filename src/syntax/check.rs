//! Refusals at the syntax stage: constructs that the parser reads so it can name
//! them, but that mdae-rimis does not accept in a flattened model.
//! `extends` is refused everywhere (a flattened model has none; omc -i flattens
//! inheritance away). `connect` is refused later, by the IR lowering.

use super::ast::*;
use super::error::{SyntaxError, SyntaxErrorKind};

/// The first unsupported construct, if any.
pub fn refuse_unsupported(def: &StoredDefinition) -> Result<(), SyntaxError> {
    def.classes.iter().try_for_each(class)
}

fn class(c: &ClassDef) -> Result<(), SyntaxError> {
    let ClassBody::Long(comp) = &c.body else { return Ok(()) };
    for part in &comp.parts {
        let ClassPart::Elements { elements, .. } = part else { continue };
        for e in elements {
            match e {
                Element::Extends(x) => {
                    return Err(SyntaxError {
                        span: x.span,
                        kind: SyntaxErrorKind::Unsupported(
                            "`extends`: mdae-rimis reads flattened models; flatten inheritance first (`omc -i=Model file.mo`)",
                        ),
                    });
                }
                Element::Class(inner) => class(inner)?,
                _ => {}
            }
        }
    }
    Ok(())
}
