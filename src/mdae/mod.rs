//! Stage 2, the multimode DAE (mDAE) IR: what the structural analysis reads.
//!
//! Input: the continuous part of a [`crate::flat::FlatModel`] (scalar equations, blocks,
//! the equations that pass through). Output: [`Mdae`]:
//! the real unknowns (arena `vars`, handle [`VarId`]), the real equations as residuals
//! (arena `equations`, handle [`EqId`]) with their guarded incidence (for each
//! (equation, variable) the highest derivative order σ as a function of the mode), and
//! the mode space (arena `modes`, handle [`ModeId`]): mode variables and mode atoms, with
//! the mode invariants χ_M read from `assert`s. Conditions are [`Cond`] formulas over
//! modes; the analysis turns them into BDDs.
//!
//! Invariants: every [`Incidence`] names an unknown of `vars`; conditions mention only
//! `modes`; the discrete part (mode equations, when-equations, asserts, clocked
//! partitions) is in `passed`, never analysed; equations the output must keep as the
//! input writes them are in the side table `as_written`.

pub mod cond;
mod domains;
mod error;
mod implied;
mod incidence;
pub(crate) mod lower;

pub use cond::Cond;
pub use error::LowerError;
pub use lower::{lower, lower_flat};

use crate::syntax::Span;
use crate::syntax::ast::Expr;
use std::collections::{BTreeMap, BTreeSet};

/// Handle of a real unknown in [`Mdae::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub u32);

/// Handle of a real equation in [`Mdae::equations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EqId(pub u32);

/// Handle of a mode variable or mode atom in [`Mdae::modes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ModeId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl EqId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl ModeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A multimode DAE.
#[derive(Clone, Debug, Default)]
pub struct Mdae {
    /// The model's name (the class that was lowered).
    pub name: String,
    pub vars: Vec<Variable>,
    pub equations: Vec<Equation>,
    pub modes: Vec<Mode>,
    /// χ_M: every valid mode satisfies all of these.
    pub invariants: Vec<Invariant>,
    /// The equations outside the continuous structure, emitted as they are (from the
    /// flat model, in source order).
    pub passed: Vec<crate::syntax::ast::Equation>,
    /// Equations whose output form is constrained, by id (a side table; most have none).
    pub as_written: BTreeMap<EqId, AsWritten>,
    /// Every condition met in a real equation, by canonical text, as a [`Cond`] (the
    /// RIMIS transformation partially evaluates if-expressions with them).
    pub conditions: BTreeMap<String, Cond>,
    /// Names whose time derivative is zero: parameters, constants, discrete and
    /// when-assigned variables.
    pub time_invariant: BTreeSet<String>,
    /// The expression each mode atom stands for (`time >= t1`).
    pub atom_exprs: BTreeMap<ModeId, Expr>,
}

/// A real unknown (not a parameter, constant, input or discrete variable).
#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub span: Span,
}

/// A mode variable (a Boolean variable used in a condition) or a mode atom (any other
/// condition, e.g. `time >= t1`, `x > 0`), both free Boolean dimensions of the mode space.
#[derive(Clone, Debug)]
pub struct Mode {
    /// The variable's name, or the atom's generated name `a1`, `a2`, …
    pub name: String,
    pub kind: ModeKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModeKind {
    /// A Boolean variable of the model.
    Variable,
    /// An atom standing for this condition (canonical Modelica text).
    Atom { expr: String },
    /// `var == value` for an Integer or enumeration variable with a finite domain
    /// (one-hot: exactly one value of `var` holds, an invariant of χ_M); named so.
    Value { var: String, value: String },
}

/// A mode invariant read from `assert(c, …)` whose condition involves only modes.
#[derive(Clone, Debug)]
pub struct Invariant {
    pub cond: Cond,
    pub span: Span,
}

/// A real equation as a residual, possibly multimode.
#[derive(Clone, Debug)]
pub struct Equation {
    /// The paper's label (`/* e1: */`) or `e<line>` (`e8`, `e8_2`, …).
    pub id: String,
    /// 1-based line where the equation starts.
    pub line: u32,
    pub span: Span,
    /// Canonical text of the source equation.
    pub text: String,
    /// χ_I: the modes in which the equation is active (always `true` for Modelica input).
    pub active: Cond,
    /// Guarded incidence: σ(m, e, v) = max order over the entries for v whose `when` holds in m.
    pub incidence: Vec<Incidence>,
    pub body: Body,
}

/// One guarded incidence entry: `var` appears with derivative order `order` when `when`.
#[derive(Clone, Debug, PartialEq)]
pub struct Incidence {
    pub var: VarId,
    pub order: u8,
    pub when: Cond,
}

/// The equation's expressions: `lhs = rhs`, or the arms of a paired if-equation
/// (mutually exclusive guards covering every mode).
#[derive(Clone, Debug)]
pub enum Body {
    Simple { lhs: Expr, rhs: Expr },
    Arms(Vec<Arm>),
}

#[derive(Clone, Debug)]
pub struct Arm {
    pub when: Cond,
    pub lhs: Expr,
    pub rhs: Expr,
}

/// How the RIMIS output may rewrite an equation (see [`Mdae::as_written`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsWritten {
    /// A row of a block the flat model keeps whole (an algorithm section, a tuple
    /// equation, an equation with an opaque call): its body is a placeholder; the output
    /// keeps the block as written, so it must stay where it is in every mode.
    Block { what: String, span: Span },
    /// It reads unknowns through a whole array or record or a variable subscript
    /// (`f(x)`, `abs(v)`, `x[k]`): the output may rename what it writes, but must read
    /// those unknowns from their source variables.
    /// The unknowns it reads that way (sorted): its other reads are by name.
    ReadsWhole(Vec<VarId>),
}

impl Mdae {
    pub fn var(&self, v: VarId) -> &Variable {
        &self.vars[v.index()]
    }
    pub fn eq(&self, e: EqId) -> &Equation {
        &self.equations[e.index()]
    }
    pub fn mode(&self, m: ModeId) -> &Mode {
        &self.modes[m.index()]
    }
    pub fn var_ids(&self) -> impl Iterator<Item = VarId> + use<> {
        (0..self.vars.len() as u32).map(VarId)
    }
    pub fn eq_ids(&self) -> impl Iterator<Item = EqId> + use<> {
        (0..self.equations.len() as u32).map(EqId)
    }
}
