//! The result of the exact multimode structural analysis, whatever the strategy: the valid
//! modes, the singular modes with their diagnostics, the offsets c and orders d as
//! functions of the mode, and the conditional dependency graph (CDG): blocks
//! `p: R -- E -> W` and edges labelled by the modes in which the dependency applies.
//! Blocks and edges are sorted canonically. The valid, regular and singular modes are BDDs
//! over [`Cdg::space`]; the conditions of the offsets, orders, blocks and edges, all sets of
//! regular modes, are local sets of the regular modes ([`Local`], `local.rs`, issue 15):
//! each reads the few rooms or cars it is about, not the regular modes' O(N) nodes, so
//! the result holds O(N) nodes, not O(N²). [`Cdg::bdd`] gives one as a whole BDD.

use super::local::{Factored, Local};
use super::modes::ModeSpace;
use crate::mdae::{EqId, ModeId, VarId};
use crate::syntax::small_list::SmallList;
use biodivine_lib_bdd::Bdd;
use std::rc::Rc;

/// The values of an offset or order with the regular modes where each holds; most have
/// one, held inline (no allocation per equation and per variable).
pub type Values = SmallList<(u32, Local)>;

pub struct Cdg {
    pub space: ModeSpace,
    /// χ_M: the valid modes.
    pub valid: Bdd,
    /// Valid modes in which the model is structurally nonsingular.
    pub regular: Bdd,
    /// The regular modes in factors ([`ModeSpace::factored`]): the conditions below are
    /// its local sets.
    pub factored: Rc<Factored>,
    pub singular: Vec<Singular>,
    /// Per equation: (c, regular modes where c_i = c).
    pub offsets: Vec<Values>,
    /// Per variable: (d, regular modes where d_j = d).
    pub orders: Vec<Values>,
    pub blocks: Vec<Block>,
    pub edges: Vec<Edge>,
}

impl Cdg {
    /// The regular modes of a condition as one BDD over [`Cdg::space`] (O(N) nodes on the
    /// building: for the tests and the uses that need the whole set).
    pub fn bdd(&self, c: &Local) -> Bdd {
        self.factored.exact(c)
    }

    /// A condition as short Modelica text (the invalid modes are don't-cares): from the
    /// local set when the valid modes are the regular ones (the same condition: `local.rs`),
    /// else from the whole set.
    pub fn text(&self, c: &Local) -> String {
        if self.regular != self.valid {
            return self.space.text(&self.bdd(c), &self.valid);
        }
        let cond = self.space.to_cond_local(c, &self.factored.all(), &self.factored);
        cond.to_modelica(&|m| self.space.names[m.index()].clone())
    }
}

/// A conditional block `cond: reads -- eqs -> writes`. The lists of one item (most blocks
/// are one equation solved for one variable) are held inline.
#[derive(Clone, Debug)]
pub struct Block {
    pub cond: Local,
    /// (equation, times differentiated).
    pub eqs: SmallList<(EqId, u32)>,
    /// (variable, derivative order) solved by the block.
    pub writes: SmallList<(VarId, u32)>,
    /// (variable, derivative order) read by the block.
    pub reads: SmallList<(VarId, u32)>,
}

impl Block {
    pub fn key(&self) -> (&[(EqId, u32)], &[(VarId, u32)], &[(VarId, u32)]) {
        (&self.eqs, &self.writes, &self.reads)
    }
}

/// `from` must be solved before `to` in the modes `cond`.
#[derive(Clone, Debug)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub cond: Local,
}

/// Modes in which the model is structurally singular, with one example mode and the
/// Dulmage–Mendelsohn over-/under-determined parts (the same in every mode of `cond`).
#[derive(Clone, Debug)]
pub struct Singular {
    pub cond: Bdd,
    pub example: Vec<(ModeId, bool)>,
    pub overdetermined: Vec<EqId>,
    pub underdetermined: Vec<VarId>,
}
