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
//!
//! Memory (issue 15: a model without modes of 10^5 equations in < 10× its size): an
//! `Mdae<'a>` borrows the expressions of the equations as written from the parsed file
//! `'a` (a [`Cow`]: generated equations — unrolled, expanded, paired — are owned), and an
//! equation's text is printed when asked ([`Mdae::text`]), not stored.

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
use crate::syntax::ast::{Expr, Text};
use crate::syntax::printer::expr::expr_to_string;
use std::borrow::Cow;
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

/// A multimode DAE, borrowing from the parsed file `'a`.
#[derive(Clone, Debug, Default)]
pub struct Mdae<'a> {
    /// The model's name (the class that was lowered).
    pub name: String,
    pub vars: Vec<Variable>,
    pub equations: Vec<Equation<'a>>,
    pub modes: Vec<Mode>,
    /// χ_M: every valid mode satisfies all of these.
    pub invariants: Vec<Invariant>,
    /// The equations outside the continuous structure, emitted as they are (from the
    /// flat model, in source order).
    pub passed: Vec<Cow<'a, crate::syntax::ast::Equation>>,
    /// Equations whose output form is constrained, by id (a side table; most have none).
    pub as_written: BTreeMap<EqId, AsWritten>,
    /// The text of the equations whose body does not show it (the rows of a block: `what
    /// (equation k of n)`); [`Mdae::text`] prints the others.
    pub texts: BTreeMap<EqId, String>,
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
    /// As the flat model names it (interned).
    pub name: Text,
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

/// An equation's name: the paper's label (`/* e1: */`), or `e<line>` for the first
/// equation of a line and `e<line>_<k>` for the k-th (`e8`, `e8_2`, …). Printed when
/// asked, not stored as text (a model has 10^5 of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Written(Text),
    Line { line: u32, k: u32 },
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Label::Written(t) => f.write_str(&t),
            Label::Line { line, k: 1 } => write!(f, "e{line}"),
            Label::Line { line, k } => write!(f, "e{line}_{k}"),
        }
    }
}

/// A real equation as a residual, possibly multimode.
#[derive(Clone, Debug)]
pub struct Equation<'a> {
    /// The paper's label (`/* e1: */`) or `e<line>` (`e8`, `e8_2`, …).
    pub id: Label,
    /// 1-based line where the equation starts.
    pub line: u32,
    pub span: Span,
    /// χ_I: the modes in which the equation is active (always `true` for Modelica input).
    pub active: Cond,
    /// Guarded incidence: σ(m, e, v) = max order over the entries for v whose `when` holds in m
    /// (exact length, fixed once lowered).
    pub incidence: Box<[Incidence]>,
    pub body: Body<'a>,
}

/// One guarded incidence entry: `var` appears with derivative order `order` when `when`.
#[derive(Clone, Debug, PartialEq)]
pub struct Incidence {
    pub var: VarId,
    pub order: u8,
    pub when: Cond,
}

/// The equation's expressions: `lhs = rhs`, or the arms of a paired if-equation
/// (mutually exclusive guards covering every mode); borrowed from the file where the
/// equation is as written.
#[derive(Clone, Debug)]
pub enum Body<'a> {
    Simple { lhs: Side<'a>, rhs: Side<'a> },
    Arms(Vec<Arm<'a>>),
}

/// One side of a simple equation: borrowed from the file (as written) or owned, boxed (16
/// bytes where a `Cow<Expr>` takes 24: an mDAE of 10^5 equations holds two per equation
/// through the lowering and `fits_a_priori`, issue 15).
#[derive(Clone, Debug)]
pub enum Side<'a> {
    Borrowed(&'a Expr),
    Owned(Box<Expr>),
}

impl std::ops::Deref for Side<'_> {
    type Target = Expr;
    fn deref(&self) -> &Expr {
        match self {
            Side::Borrowed(e) => e,
            Side::Owned(e) => e,
        }
    }
}

impl<'a> From<Cow<'a, Expr>> for Side<'a> {
    fn from(e: Cow<'a, Expr>) -> Side<'a> {
        match e {
            Cow::Borrowed(e) => Side::Borrowed(e),
            Cow::Owned(e) => Side::Owned(Box::new(e)),
        }
    }
}

impl Side<'_> {
    /// The side owning its expression.
    pub fn into_static(self) -> Side<'static> {
        match self {
            Side::Borrowed(e) => Side::Owned(Box::new(e.clone())),
            Side::Owned(e) => Side::Owned(e),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Arm<'a> {
    pub when: Cond,
    pub lhs: Cow<'a, Expr>,
    pub rhs: Cow<'a, Expr>,
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

impl<'a> Mdae<'a> {
    pub fn var(&self, v: VarId) -> &Variable {
        &self.vars[v.index()]
    }
    pub fn eq(&self, e: EqId) -> &Equation<'a> {
        &self.equations[e.index()]
    }

    /// The same mDAE owning every expression (for callers that drop the file first).
    pub fn into_owned(self) -> Mdae<'static> {
        let owned = |e: Cow<'_, Expr>| Cow::Owned(e.into_owned());
        let equations = self
            .equations
            .into_iter()
            .map(|e| Equation {
                body: match e.body {
                    Body::Simple { lhs, rhs } => Body::Simple { lhs: lhs.into_static(), rhs: rhs.into_static() },
                    Body::Arms(arms) => Body::Arms(
                        arms.into_iter().map(|a| Arm { when: a.when, lhs: owned(a.lhs), rhs: owned(a.rhs) }).collect(),
                    ),
                },
                id: e.id,
                line: e.line,
                span: e.span,
                active: e.active,
                incidence: e.incidence,
            })
            .collect();
        Mdae {
            name: self.name,
            vars: self.vars,
            equations,
            modes: self.modes,
            invariants: self.invariants,
            passed: self.passed.into_iter().map(|e| Cow::Owned(e.into_owned())).collect(),
            as_written: self.as_written,
            texts: self.texts,
            conditions: self.conditions,
            time_invariant: self.time_invariant,
            atom_exprs: self.atom_exprs,
        }
    }

    /// The canonical text of an equation (`lhs = rhs`; `if c then … elseif … end if` for
    /// arms, conditions written with the modes' names; a block's row as in [`Mdae::texts`]).
    pub fn text(&self, e: EqId) -> String {
        if let Some(t) = self.texts.get(&e) {
            return t.clone();
        }
        let side = |l: &Expr, r: &Expr| format!("{} = {}", expr_to_string(l), expr_to_string(r));
        let arms = match &self.eq(e).body {
            Body::Simple { lhs, rhs } => return side(lhs, rhs),
            Body::Arms(arms) => arms,
        };
        let name = |m: ModeId| self.modes[m.index()].name.clone();
        let mut s = String::new();
        for (k, a) in arms.iter().enumerate() {
            let eq = side(&a.lhs, &a.rhs);
            if k + 1 == arms.len() && k > 0 {
                s.push_str(&format!(" else {eq}"));
            } else {
                let kw = if k == 0 { "if" } else { " elseif" };
                s.push_str(&format!("{kw} {} then {eq}", a.when.to_modelica(&name)));
            }
        }
        if arms.len() > 1 {
            s.push_str(" end if");
        }
        s
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
