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
//! `'a` (a [`Cow`]: generated equations — unrolled, expanded, paired — are owned), an
//! equation's text is printed when asked ([`Mdae::text`]), not stored, an [`Equation`] is
//! 32 bytes (its written label and a χ_I other than `true` in side tables), and the guarded
//! incidence of all equations is one packed table ([`GuardedIncidence`], 8 bytes an entry).

pub mod cond;
mod domains;
mod error;
mod guarded;
mod implied;
mod incidence;
pub(crate) mod lower;

pub use cond::Cond;
pub use error::LowerError;
pub use guarded::{Entries, GuardedIncidence, Incidence, Row};
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
    /// The equations, in order ([`Mdae::push_equation`]).
    pub equations: Vec<Equation<'a>>,
    /// The guarded incidence of `equations`, row by row ([`Mdae::incidence`]).
    incidence: GuardedIncidence,
    /// The written labels (`/* e1: */`) of the equations that have one ([`Mdae::label`]).
    labels: BTreeMap<EqId, Text>,
    /// χ_I of the equations not active in every mode ([`Mdae::active`]; none from a
    /// Modelica input, whose modes are in the arms of its equations).
    activity: BTreeMap<EqId, Cond>,
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

/// A real equation as a residual, possibly multimode: where it is and its body. Its name
/// is [`Mdae::label`], χ_I [`Mdae::active`], its guarded incidence [`Mdae::incidence`]
/// (32 bytes an equation: a model has 10^5 of them, issue 15).
#[derive(Clone, Debug)]
pub struct Equation<'a> {
    pub span: Span,
    /// 1-based line where the equation starts.
    pub line: u32,
    /// The `k` of its name `e<line>_<k>`, 0 when the name is written (in `Mdae::labels`).
    k: u32,
    pub body: Body<'a>,
}

/// The equation's expressions: `lhs = rhs`, or the arms of a paired if-equation
/// (mutually exclusive guards covering every mode); borrowed from the file where the
/// equation is as written. 16 bytes (one pointer a variant).
#[derive(Clone, Debug)]
pub enum Body<'a> {
    /// `lhs = rhs` as the file writes it: its simple equation.
    Written(&'a crate::syntax::ast::Equation),
    /// `lhs = rhs` otherwise: generated (unrolled, expanded), or the one arm of an
    /// if-equation whose other branches never hold.
    Simple(Box<[Cow<'a, Expr>; 2]>),
    /// (a boxed `Vec`, a thin pointer: most equations have no arms)
    #[allow(clippy::box_collection)]
    Arms(Box<Vec<Arm<'a>>>),
}

impl<'a> Body<'a> {
    /// The body `lhs = rhs` of its two sides.
    pub fn simple(lhs: Cow<'a, Expr>, rhs: Cow<'a, Expr>) -> Body<'a> {
        Body::Simple(Box::new([lhs, rhs]))
    }

    /// `(lhs, rhs)` of a simple body, `None` for arms.
    pub fn sides(&self) -> Option<(&Expr, &Expr)> {
        match self {
            Body::Written(eq) => match &eq.kind {
                crate::syntax::ast::EquationKind::Simple { lhs, rhs } => Some((lhs, rhs)),
                _ => unreachable!("a written body is a simple equation"),
            },
            Body::Simple(sides) => Some((&sides[0], &sides[1])),
            Body::Arms(_) => None,
        }
    }

    /// The arms of a paired if-equation (none for a simple body).
    pub fn arms(&self) -> &[Arm<'a>] {
        match self {
            Body::Arms(arms) => arms,
            _ => &[],
        }
    }

    /// The same body owning its expressions.
    fn into_owned(self) -> Body<'static> {
        let owned = |e: Cow<'_, Expr>| Cow::Owned(e.into_owned());
        match self {
            Body::Written(_) => {
                let (l, r) = self.sides().expect("a simple body");
                Body::simple(Cow::Owned(l.clone()), Cow::Owned(r.clone()))
            }
            Body::Simple(sides) => {
                let [l, r] = *sides;
                Body::simple(owned(l), owned(r))
            }
            Body::Arms(arms) => Body::Arms(Box::new(
                arms.into_iter().map(|a| Arm { when: a.when, lhs: owned(a.lhs), rhs: owned(a.rhs) }).collect(),
            )),
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
        let equations = self
            .equations
            .into_iter()
            .map(|e| Equation { span: e.span, line: e.line, k: e.k, body: e.body.into_owned() })
            .collect();
        Mdae {
            name: self.name,
            vars: self.vars,
            equations,
            incidence: self.incidence,
            labels: self.labels,
            activity: self.activity,
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

    /// Appends an equation named `label`, starting at `line`, with its guarded incidence
    /// (the entries as given: none merged); its id.
    pub fn push_equation<'c>(
        &mut self,
        label: Label,
        line: u32,
        span: Span,
        body: Body<'a>,
        incidence: impl IntoIterator<Item = Incidence<'c>>,
    ) -> EqId {
        self.push(label, line, span, body, incidence.into_iter().map(|i| (i.var, i.order, i.when.clone())))
    }

    /// [`Mdae::push_equation`] with owned guards.
    pub(super) fn push(
        &mut self,
        label: Label,
        line: u32,
        span: Span,
        body: Body<'a>,
        incidence: impl IntoIterator<Item = (VarId, u8, Cond)>,
    ) -> EqId {
        let e = EqId(u32::try_from(self.equations.len()).expect("too many equations"));
        let k = match label {
            Label::Written(t) => {
                self.labels.insert(e, t);
                0
            }
            Label::Line { line: l, k } => {
                assert!(l == line && k > 0, "the name of an equation is its line's");
                k
            }
        };
        self.equations.push(Equation { span, line, k, body });
        self.incidence.push_row(incidence);
        e
    }

    /// The paper's label (`/* e1: */`) of equation `e`, or `e<line>` (`e8`, `e8_2`, …).
    pub fn label(&self, e: EqId) -> Label {
        match self.eq(e).k {
            0 => Label::Written(self.labels[&e]),
            k => Label::Line { line: self.eq(e).line, k },
        }
    }

    /// χ_I: the modes in which equation `e` is active.
    pub fn active(&self, e: EqId) -> &Cond {
        static TRUE: Cond = Cond::True;
        self.activity.get(&e).unwrap_or(&TRUE)
    }

    /// Sets χ_I of equation `e` (the paper's equations active in some modes only; the
    /// lowering sets none, the analysis refuses them by name).
    pub fn set_active(&mut self, e: EqId, active: Cond) {
        match active {
            Cond::True => self.activity.remove(&e),
            c => self.activity.insert(e, c),
        };
    }

    /// Whether every equation is active in every mode (χ_I true).
    pub fn always_active(&self) -> bool {
        self.activity.values().all(|c| *c == Cond::True)
    }

    /// The guarded incidence of equation `e`: σ(m, e, v) is the largest order of the
    /// entries for v whose `when` holds in m.
    pub fn incidence(&self, e: EqId) -> Row<'_> {
        self.incidence.row(e.index())
    }

    /// The canonical text of an equation (`lhs = rhs`; `if c then … elseif … end if` for
    /// arms, conditions written with the modes' names; a block's row as in [`Mdae::texts`]).
    pub fn text(&self, e: EqId) -> String {
        if let Some(t) = self.texts.get(&e) {
            return t.clone();
        }
        let side = |l: &Expr, r: &Expr| format!("{} = {}", expr_to_string(l), expr_to_string(r));
        let body = &self.eq(e).body;
        if let Some((lhs, rhs)) = body.sides() {
            return side(lhs, rhs);
        }
        let arms = body.arms();
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

#[cfg(test)]
mod tests {
    /// An mDAE of 10^5 equations holds one `Equation` each (issue 15): the sizes pinned.
    #[test]
    fn an_equation_is_32_bytes() {
        assert_eq!(std::mem::size_of::<super::Equation<'_>>(), 32);
        assert_eq!(std::mem::size_of::<super::Body<'_>>(), 16);
        assert_eq!(std::mem::size_of::<super::Label>(), 16);
    }
}
