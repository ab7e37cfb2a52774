//! The result of the exact multimode structural analysis, whatever the strategy: the valid
//! modes, the singular modes with their diagnostics, the offsets c and orders d as
//! functions of the mode, and the conditional dependency graph (CDG): blocks
//! `p: R -- E -> W` and edges labelled by the modes in which the dependency applies.
//! Every condition is a BDD over [`Cdg::space`]; blocks and edges are sorted canonically.

use super::modes::ModeSpace;
use crate::mdae::{EqId, ModeId, VarId};
use biodivine_lib_bdd::Bdd;

pub struct Cdg {
    pub space: ModeSpace,
    /// χ_M: the valid modes.
    pub valid: Bdd,
    /// Valid modes in which the model is structurally nonsingular.
    pub regular: Bdd,
    pub singular: Vec<Singular>,
    /// Per equation: (c, modes where c_i = c), over the regular modes.
    pub offsets: Vec<Vec<(u32, Bdd)>>,
    /// Per variable: (d, modes where d_j = d), over the regular modes.
    pub orders: Vec<Vec<(u32, Bdd)>>,
    pub blocks: Vec<Block>,
    pub edges: Vec<Edge>,
}

/// A conditional block `cond: reads -- eqs -> writes`.
#[derive(Clone, Debug)]
pub struct Block {
    pub cond: Bdd,
    /// (equation, times differentiated).
    pub eqs: Vec<(EqId, u32)>,
    /// (variable, derivative order) solved by the block.
    pub writes: Vec<(VarId, u32)>,
    /// (variable, derivative order) read by the block.
    pub reads: Vec<(VarId, u32)>,
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
    pub cond: Bdd,
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
