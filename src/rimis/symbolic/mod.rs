//! The symbolic layer of the RIMIS transformation (paper 000 §4.6.1): expression
//! rewriting on the AST [`Expr`](crate::syntax::ast::Expr) itself.
//!
//! Owns: `simplify` (algebraic clean-up), `partial` (the partial evaluation π_q of
//! if-expressions under a mode condition decided by the caller), `diff` (time
//! differentiation δ_k with the chain rule, builtins and user functions from
//! `functions`), `linear` (is an expression affine in given unknowns, paper 000 §4.7), `total` (is an
//! expression defined everywhere: no division, root, logarithm, user function).
//! Input: expressions of a flattened model (and its `function` classes). Output: new
//! expressions; generated nodes carry `Span::default()` or the span of the node they
//! replace. Invariants: no panics on any input (errors are [`SymError`]), results are
//! a pure function of the input, every result is simplified.

mod build;
mod builtins;
mod diff;
mod dropped;
mod function_body;
mod functions;
mod linear;
mod partial;
mod simplify;
mod total;

#[cfg(test)]
pub(crate) mod testutil;

pub use diff::{DiffContext, SymError, differentiate_n, expand_derivatives, time_derivative};
pub use functions::{Body, DerivativeAnnotation, Function, Functions, Param};
pub use linear::{is_affine_in, solve_affine, unknowns_in};
pub use partial::{Assumption, Decision, partial_eval, partial_eval_in};
pub use simplify::simplify;
pub use total::is_total;

#[cfg(test)]
#[path = "laws_tests.rs"]
mod laws_tests;
