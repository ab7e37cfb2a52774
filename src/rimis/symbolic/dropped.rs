//! Derivative annotations that omc's flat output drops, restored for the Modelica
//! Standard Library's table functions and the water property functions of
//! `Modelica.Media.Water.IF97_Utilities`.
//!
//! `omc -i` prints a flattened model's functions without their annotations, but it
//! keeps the functions those annotations name: a model interpolating a
//! `CombiTable1Ds` carries `Modelica.Blocks.Tables.Internal.getTable1DValue` *and*
//! `getDerTable1DValue`, `getDer2Table1DValue`, only because the library says
//! `annotation(derivative = getDerTable1DValue)` (MSL 4, `Blocks/Tables/Internal`).
//! Owns: [`restore`], which gives such a function back the annotation the library
//! declares when (a) it is external and has no `derivative` annotation left, (b) the
//! named derivative function is in the file, and (c) that function's inputs are the
//! original's plus one derivative per differentiated input (paper-free bookkeeping of
//! Modelica 3.6 §12.7.1) — otherwise nothing is restored and differentiation refuses
//! the call by name, as before. The `…NoDer` variants stay without a derivative, as in
//! the library: a model that needs one is refused.
//!
//! The IF97 `…_props_…` functions read one field of their auxiliary record
//! (`rho := properties.rho`), whose value is a call of `waterBaseProp_ph` in the model;
//! the library differentiates them by `derivative(noDerivative = properties) = rho_ph_der`
//! (MSL 4, `Media/Water/IF97_Utilities.mo`). Inlining their body instead could not name
//! the field of a call: [`super::functions::Function::inline`] refuses that.

use super::functions::{Body, DerivativeAnnotation, Function};
use crate::syntax::ast::Text;

/// The library's package of table functions.
const PACKAGE: &str = "Modelica.Blocks.Tables.Internal.";

/// (function, its derivative, the annotation's `order`), from MSL 4's annotations.
const TABLE_DERIVATIVES: &[(&str, &str, i64)] = &[
    ("getTable1DValue", "getDerTable1DValue", 1),
    ("getDerTable1DValue", "getDer2Table1DValue", 2),
    ("getTable1DValueNoDer2", "getDerTable1DValueNoDer", 1),
    ("getTable2DValue", "getDerTable2DValue", 1),
    ("getDerTable2DValue", "getDer2Table2DValue", 2),
    ("getTable2DValueNoDer2", "getDerTable2DValueNoDer", 1),
    ("getTimeTableValue", "getDerTimeTableValue", 1),
    ("getDerTimeTableValue", "getDer2TimeTableValue", 2),
    ("getTimeTableValueNoDer2", "getDerTimeTableValueNoDer", 1),
];

/// The library's water property package.
const IF97: &str = "Modelica.Media.Water.IF97_Utilities.";

/// (function, its derivative), each with `noDerivative` = its auxiliary record input
/// (`properties` or `aux`), from MSL 4's annotations.
const IF97_DERIVATIVES: &[(&str, &str)] = &[
    ("rho_props_ph", "rho_ph_der"),
    ("T_props_ph", "T_ph_der"),
    ("s_props_ph", "s_ph_der"),
    ("rho_props_pT", "rho_pT_der"),
    ("h_props_pT", "h_pT_der"),
];

/// The auxiliary record inputs of the IF97 functions, never differentiated.
const IF97_RECORDS: &[&str] = &["properties", "aux"];

/// Inputs the library's table functions never differentiate: the external table
/// object and the (discrete) time events of a time table.
const NOT_DIFFERENTIATED: &[&str] = &["tableID", "nextTimeEvent", "pre_nextTimeEvent"];

/// The annotation to restore on `f`, if it is one of the library's table or IF97
/// functions and `lookup` finds its derivative with the matching inputs.
pub(crate) fn restore<'a>(f: &Function, lookup: impl Fn(&str) -> Option<&'a Function>) -> Option<DerivativeAnnotation> {
    if !f.derivatives.is_empty() {
        return None;
    }
    let quoted = f.name.as_str().starts_with('\'');
    let bare = f.name.as_str().trim_matches('\'');
    let (package, derivative, order, untouched): (&str, &str, i64, &[&str]) =
        if let Some(short) = bare.strip_prefix(PACKAGE) {
            if !matches!(f.body, Body::External { builtin: None }) {
                return None;
            }
            let &(_, derivative, order) = TABLE_DERIVATIVES.iter().find(|(name, _, _)| *name == short)?;
            (PACKAGE, derivative, order, NOT_DIFFERENTIATED)
        } else {
            let short = bare.strip_prefix(IF97)?;
            let &(_, derivative) = IF97_DERIVATIVES.iter().find(|(name, _)| *name == short)?;
            (IF97, derivative, 1, IF97_RECORDS)
        };
    let full = if quoted { format!("'{package}{derivative}'") } else { format!("{package}{derivative}") };
    let target = lookup(&full)?;
    let no_derivative: Vec<Text> =
        f.inputs.iter().map(|p| p.name).filter(|n| untouched.contains(&n.as_str())).collect();
    if package == IF97 && no_derivative.len() != 1 {
        return None;
    }
    let differentiated = f.inputs.iter().filter(|p| p.real && !no_derivative.contains(&p.name)).count();
    // Order 2: the first derivative's own derivative inputs are the ones differentiated again.
    let appended = if order == 2 { differentiated / 2 } else { differentiated };
    let inputs_match = target.inputs.len() == f.inputs.len() + appended
        && f.inputs.iter().zip(&target.inputs).all(|(a, b)| a.name == b.name)
        && target.outputs.len() == 1;
    inputs_match.then(|| DerivativeAnnotation {
        function: target.name,
        order,
        no_derivative,
        zero_derivative: Vec::new(),
    })
}
