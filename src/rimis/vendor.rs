//! Vendor annotations of the output (MLS §18.1: `__OpenModelica_…`): the tool options an
//! output carries so that a tool's known defect does not change its meaning. Other tools
//! ignore them; what the model means is in its equations alone.
//!
//! omc's post-optimisation module `constantLinearSystem` solves a linear system of constant
//! coefficients and right-hand side at compile time and rebuilds the equation system it
//! belongs to without that system's removed equations (OpenModelica at ea251558d2, the omc
//! of `../shared/tools/omc`: `BackendDAEOptimize.constantLinearSystem2` makes a new system
//! from the ordered variables and equations only). omc keeps a `when` whose body is only
//! `reinit`s among those removed equations, so every such `when` of that partition is lost
//! silently: its states are never re-initialised. Campaign seed 1371: the REINIT of `x1_1`
//! and `x4_1` entering `b1` at t = 1.31 vanished from omc's code because the block of
//! `not b1` (`-0.85 x3' - 1.12 (x2' + 0.77) = 0`, `x2' + 0.77 - 0.87 x3' = 0`) is such a
//! system; omc then ran on from the replicate's stale value (x1 1.22 against 1.985 at
//! t = 1.4). An output that re-initialises a state therefore turns the module off.

use super::RimisModel;
use crate::syntax::ast::Ident;
use crate::syntax::visit::{self, Visitor};

/// The option and why the output carries it.
const NO_CONSTANT_LINEAR_SYSTEM: (&str, &str) = (
    "--postOptModules-=constantLinearSystem",
    "omc's constantLinearSystem drops the reinit-only when-equations of the equation system it rewrites",
);

/// `out` with the omc options its equations need: `NO_CONSTANT_LINEAR_SYSTEM` where any
/// equation or algorithm of the output calls `reinit`.
pub(crate) fn add_omc_options(out: &mut RimisModel) {
    if reinitialises(out) {
        let (option, why) = NO_CONSTANT_LINEAR_SYSTEM;
        out.omc_options.push((option.to_string(), why.to_string()));
    }
}

/// Whether the output calls `reinit` anywhere (its sections, kept equations and parts).
fn reinitialises(out: &mut RimisModel) -> bool {
    let mut find = FindsReinit(false);
    for s in &mut out.sections {
        for item in &mut s.items {
            visit::walk_equation(&mut item.equation, &mut find);
        }
        for e in &mut s.kept {
            visit::walk_equation(e, &mut find);
        }
    }
    for p in &mut out.kept_parts {
        visit::walk_part(p, &mut find);
    }
    find.0
}

struct FindsReinit(bool);

impl Visitor for FindsReinit {
    fn call_name(&mut self, function: &mut Ident) {
        self.0 |= function.text.as_str() == "reinit";
    }
}
