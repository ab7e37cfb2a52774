//! The built-in names of Modelica 3.6 that a flattened model may use without declaring
//! them: the variable `time` (§3.6.7), the predefined types and enumerations (§4.9), and
//! the built-in functions and operators (§3.7, §8.3, chapters 10, 12, 16, 17) with what
//! the validation knows of their result types.

use super::types::Ty;

/// The built-in variables.
pub(super) fn is_variable(name: &str) -> bool {
    name == "time"
}

/// The predefined types a declaration may name.
pub(super) fn is_type(name: &str) -> bool {
    matches!(
        name,
        "Real" | "Integer" | "Boolean" | "String" | "StateSelect" | "AssertionLevel" | "ExternalObject" | "Clock"
    )
}

/// The literals of a predefined enumeration type (`StateSelect.prefer`).
pub(super) fn enumeration(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "StateSelect" => Some(&["never", "avoid", "default", "prefer", "always"]),
        "AssertionLevel" => Some(&["error", "warning"]),
        _ => None,
    }
}

/// The result type of a built-in function, as far as the validation relies on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ret {
    Is(Ty),
    /// The type of the argument at this position.
    Arg(usize),
    /// Real if an argument is Real, Integer if all are (`div`, `max(a, b)`).
    Numeric,
    /// Not relied on (arrays, clocks, tuples, no value).
    Unknown,
}

/// A built-in function (or operator spelled as a call), with its result type.
pub(super) fn function(name: &str) -> Option<Ret> {
    use Ret::*;
    Some(match name {
        "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "atan2" | "sinh" | "cosh" | "tanh" | "exp" | "log"
        | "log10" | "sqrt" | "der" | "delay" | "floor" | "ceil" | "semiLinear" | "inStream" | "actualStream"
        | "interval" | "timeInState" => Is(Ty::Real),
        "integer" | "Integer" | "cardinality" | "ndims" | "ticksInState" => Is(Ty::Integer),
        "initial" | "terminal" | "edge" | "change" | "firstTick" | "activeState" | "Connections.isRoot"
        | "Connections.rooted" | "rooted" => Is(Ty::Boolean),
        "String" | "getInstanceName" => Is(Ty::String),
        "abs" | "noEvent" | "pre" | "previous" | "hold" | "pure" | "homotopy" => Arg(0),
        "smooth" => Arg(1),
        "div" | "mod" | "rem" => Numeric,
        "max"
        | "min"
        | "sign"
        | "sum"
        | "product"
        | "size"
        | "scalar"
        | "vector"
        | "matrix"
        | "identity"
        | "diagonal"
        | "zeros"
        | "ones"
        | "fill"
        | "linspace"
        | "transpose"
        | "outerProduct"
        | "symmetric"
        | "cross"
        | "skew"
        | "cat"
        | "array"
        | "promote"
        | "sample"
        | "subSample"
        | "superSample"
        | "shiftSample"
        | "backSample"
        | "noClock"
        | "Clock"
        | "spatialDistribution"
        | "reinit"
        | "assert"
        | "terminate"
        | "transition"
        | "initialState"
        | "Connections.branch"
        | "Connections.root"
        | "Connections.potentialRoot"
        | "Connections.uniqueRoot"
        | "Connections.uniqueRootIndices" => Unknown,
        _ => return None,
    })
}
