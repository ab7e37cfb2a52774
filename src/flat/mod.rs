//! Stage 2, the flat model: omc's flattened output read as scalar variables and scalar
//! equations, split into the continuous part the structural analysis reads and the
//! discrete part that passes through untouched.
//!
//! Input: a parsed, checked [`StoredDefinition`] whose declaration equations have been
//! moved into the equations ([`move_declaration_equations`]). Output: [`FlatModel`]:
//! - **variables** ([`Var`]): every scalar of the model class with its type and
//!   variability. omc has already scalarised: `Real 'x'[1];` and `Real a.x[1];` declare
//!   scalars named `'x'[1]` and `a.x[1]`; a declared size (`Real[3] x`) is expanded into
//!   such scalars when it is static. Names that stand for several scalars — a whole array
//!   (`x`), a record (`v` for `v.re`, `v.im`) — are **aggregates**;
//! - **equations** ([`FlatEquation`]): the continuous ones, scalar, as written or
//!   generated from an array, record or for-equation (then with the source equation's
//!   span), and the **blocks**: algorithm sections, tuple equations and record equations
//!   with a call that cannot be read field by field, each one equation system whose
//!   unknowns are what it assigns (Modelica Language Specification §11.1, §8.3.1);
//! - **passed**: the equations that are not rows of the Σ-matrix — those defining
//!   Boolean, Integer, enumeration, String and Clock variables, when-equations, clocked
//!   partitions, `assert`/`terminate` — in source order, as they are emitted.
//!
//! Discrete Reals (declared `discrete`, assigned in a when-clause or in a clocked
//! partition), parametric variables (computed from parameters only: `invariant.rs`),
//! parameters, constants and top-level inputs are known to the continuous part. Refused by name: what has no static size, `connect`, and constructs the tool
//! cannot read (see [`FlatError`]). Invariants: every name in a continuous equation
//! that is a declared scalar is in `vars`; an expression that passes through is
//! never rewritten.

mod arrays;
mod bindings;
mod blocks;
mod classify;
mod decls;
mod discrete;
mod error;
pub mod eval;
mod expand;
pub(crate) mod index;
mod invariant;
mod model;
mod names;
mod records;
mod split;
mod types;
mod walk;

pub use bindings::move_declaration_equations;
pub(crate) use decls::{declared_name, element_groups};
pub use error::FlatError;
pub use index::Index;
pub use model::{model_class, model_class_mut, take_model_class};

use crate::syntax::Span;
use crate::syntax::ast::{Equation, Expr, StoredDefinition, Text};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

/// The type of a scalar variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Real,
    Integer,
    Boolean,
    String,
    Enumeration,
    Clock,
    /// A type the file does not define (an external object, …): never analysed.
    Other,
}

/// When a variable's value may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variability {
    Constant,
    Parameter,
    /// A top-level `input`: known to the model.
    Input,
    /// Declared `discrete`, assigned in a when-clause, or in a clocked partition.
    Discrete,
    /// Declared without a prefix but computed from parameters and constants only
    /// (`invariant.rs`): constant in time, its equations solved once.
    Parametric,
    Continuous,
}

/// A scalar variable of the model class.
#[derive(Clone, Debug)]
pub struct Var {
    /// The scalar's name as written in references: `x`, `a.x[1]`, `'x'[2, 1]`, `v.re`
    /// (interned: mostly a declared identifier).
    pub name: Text,
    pub ty: Type,
    pub variability: Variability,
    /// The span of its declaration.
    pub span: Span,
}

impl Var {
    /// A real unknown of the continuous part.
    pub fn is_unknown(&self) -> bool {
        self.ty == Type::Real && self.variability == Variability::Continuous
    }

    /// A parameter or a constant.
    pub fn is_fixed(&self) -> bool {
        matches!(self.variability, Variability::Constant | Variability::Parameter)
    }

    /// Its time derivative is zero: parameters, constants, parametric, discrete and
    /// non-Real variables.
    pub fn is_time_invariant(&self) -> bool {
        self.ty != Type::Real
            || matches!(
                self.variability,
                Variability::Constant | Variability::Parameter | Variability::Parametric | Variability::Discrete
            )
    }
}

/// Index of a variable in [`FlatModel::vars`].
pub type VarIndex = usize;

/// A name standing for several scalars: a whole array or a record.
#[derive(Clone, Debug, PartialEq)]
pub enum Aggregate {
    /// An array: its sizes and its elements, each a scalar or a nested aggregate, in
    /// row-major order (`x[1, 1]`, `x[1, 2]`, …) as names.
    Array { sizes: Vec<usize>, elements: Vec<String> },
    /// A record: its fields' names (`v.re`, `v.im`), each a scalar or an aggregate.
    Record { fields: Vec<String> },
}

/// What a continuous equation is (a word: a flat model has one per scalar equation).
#[derive(Clone, Debug)]
pub enum FlatEquation<'a> {
    /// A scalar real equation, `lhs = rhs` or an if-equation whose branches hold only
    /// such equations (the mDAE pairs them).
    Real { equation: Source<'a> },
    /// An equation system solved as a whole.
    Block(Box<Block>),
}

/// A continuous equation: the source equation itself when it is one as written, else
/// generated (from an array, record or for-equation, with the span of its source
/// equation).
#[derive(Clone, Debug)]
pub enum Source<'a> {
    Written(&'a Equation),
    Generated(Box<Equation>),
}

impl std::ops::Deref for Source<'_> {
    type Target = Equation;
    fn deref(&self) -> &Equation {
        match self {
            Source::Written(e) => e,
            Source::Generated(e) => e,
        }
    }
}

/// An algorithm section, a tuple equation, or an equation with a call whose array or
/// record value cannot be read element by element: one equation system, solved as a
/// whole, with one equation per scalar it defines, each reading every real unknown the
/// block reads or writes. Emitted as written (a tuple or call equation is in
/// [`FlatModel::passed`]; an algorithm section stays a class part).
#[derive(Clone, Debug)]
pub struct Block {
    /// `algorithm section`, `tuple equation`, … (for messages).
    pub what: String,
    pub span: Span,
    /// How many scalar equations it stands for.
    pub rows: usize,
    /// The real unknowns it reads or writes, with the highest derivative order.
    pub unknowns: Vec<(VarIndex, u8)>,
}

/// The model class read as scalars, its continuous equations and what passes through
/// (equations as written are borrowed from the file: a model without modes can be large,
/// issue 15).
#[derive(Clone, Debug, Default)]
pub struct FlatModel<'a> {
    /// The model's name without quotes.
    pub name: String,
    /// The model class's span.
    pub span: Span,
    pub vars: Vec<Var>,
    /// Scalar name → index in `vars` ([`FlatModel::find`]).
    pub index: Index,
    /// Whole arrays and records by name.
    pub aggregates: HashMap<String, Aggregate>,
    /// The bindings of parameters and constants (static evaluation).
    pub bindings: HashMap<String, Expr>,
    /// The continuous equations and blocks, in source order.
    pub equations: Vec<FlatEquation<'a>>,
    /// Equations emitted unchanged and never analysed, in source order.
    pub passed: Vec<Cow<'a, Equation>>,
    /// The scalars read by each reference of a continuous equation that is not itself a
    /// scalar (a whole array or record as a function argument, `x[k]`), by its text.
    pub aggregate_reads: HashMap<String, Vec<VarIndex>>,
    /// The spans of the equations of clocked partitions (they pass through).
    pub clocked: BTreeSet<Span>,
}

impl FlatModel<'_> {
    /// The scalar variable named `name`.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.find(name).map(|k| &self.vars[k])
    }

    /// The index in `vars` of the scalar named `name`.
    pub fn find(&self, name: &str) -> Option<VarIndex> {
        self.index.get(&self.vars, name)
    }
}

/// Reads the model class of `def` (see [`model_class`]) as a [`FlatModel`].
pub fn flatten(def: &StoredDefinition) -> Result<FlatModel<'_>, FlatError> {
    let class =
        model_class(def).ok_or_else(|| FlatError::new(def.span, "no model or class to analyse in this file"))?;
    let crate::syntax::ast::ClassBody::Long(comp) = &class.body else {
        return Err(FlatError::new(class.span, "the model must be a long class definition (`model M … end M;`)"));
    };
    if let Some(sm) = comp.parts.iter().find_map(|p| match p {
        crate::syntax::ast::ClassPart::StateMachine(sm) => Some(sm),
        _ => None,
    }) {
        return Err(FlatError::new(sm.span, "unsupported construct: a state machine (omc's `stateMachine` dump)"));
    }
    let classes = types::Classes::of(def);
    let mut model = decls::declare(class, comp, &classes)?;
    discrete::mark(&mut model, comp);
    invariant::mark(&mut model, comp, &classes);
    split::equations(&mut model, comp, &classes)?;
    // Read by the lowering as it builds the mDAE (the main job's peak on a model without
    // modes, issue 15): without the doubling's slack (the variables' too, `decls.rs`).
    model.equations.shrink_to_fit();
    Ok(model)
}

#[cfg(test)]
mod tests;
