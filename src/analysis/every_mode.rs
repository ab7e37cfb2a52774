//! Is every valid mode structurally nonsingular? The exact analysis's verdict on
//! singularity (its `singular` groups are empty exactly when the Σ-graph of each valid mode
//! has a perfect matching), without its offsets, blocks or BDD conditions.
//!
//! Input: an [`Mdae`]. Output: [`EveryMode`]. Used by the main job's self-check of a
//! rewritten output (`driver::self_check`): one analysis of the union of the modes'
//! incidences ([`super::oblivious::meets_the_guarantee`]) can be nonsingular while a mode
//! is not (issue 13: a replicate that no block writes in its mode, Rotational's LossyGear),
//! which `--check` on the output reports.
//!
//! Per irreducible block of the union graph (paper 002 §4, as `implicit/primal.rs`): a
//! mode's graph is a subgraph of the union, so each of its perfect matchings is one of the
//! union's, a product of perfect matchings of the union's fine blocks
//! ([`super::dm::fine_blocks`]); a mode is regular exactly when every block, restricted to
//! the edges present in that mode, has a perfect matching. A block depends only on the
//! modes its edges' guards mention, so it is checked in each valid assignment of those
//! (χ_M projected on them: each extends to a valid mode), with one maximum matching each.
//! Affordable when the assignments times the block's edges, summed over the blocks, stay
//! within [`MAX_WORK`]; beyond, no verdict ([`EveryMode::NotChecked`]), never a guess.

use super::dm::fine_blocks;
use super::explicit::sigma_in_mode;
use super::matching::{Graph, maximum_matching};
use super::modes::ModeSpace;
use super::oblivious::union_sigma;
use super::sigma::{SingleMode, analyse};
use crate::mdae::{Cond, EqId, Mdae, ModeId, ModeKind};
use biodivine_lib_bdd::{Bdd, BddPartialValuation, BddVariable};
use std::collections::BTreeMap;

/// The most Σ (valid assignments of a block's modes × the block's edges) the check does:
/// at most about 0.4 s on this machine (ActuatorWithNoise's output: 2·10^7 took 4 s).
pub const MAX_WORK: u64 = 2_000_000;

/// The most modes one block's edges may mention (2^this assignments at most).
const MAX_BLOCK_MODES: usize = 20;

/// The verdict of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EveryMode {
    /// Every valid mode is structurally nonsingular.
    Regular,
    /// A valid mode is singular: the modes of a block without a perfect matching there (an
    /// atom by its condition) with their values, and the overdetermined equations and
    /// underdetermined variables of the whole model in one such valid mode, by name.
    Singular { mode: Vec<(String, bool)>, over: Vec<String>, under: Vec<String> },
    /// Not decided: the union graph has no perfect matching (every mode is then singular:
    /// the union check says so), an equation is active in some modes only, or there are
    /// too many assignments to enumerate within [`MAX_WORK`].
    NotChecked,
}

/// One irreducible block of the union graph: its equations, its variables (dense local
/// indices), its edges with their guards, and the modes those mention.
struct Block {
    eqs: Vec<usize>,
    /// Per local equation: (local variable, guard of the edge).
    edges: Vec<Vec<(usize, Cond)>>,
    modes: Vec<ModeId>,
}

/// Checks every valid mode of `mdae` for a perfect matching (see the module header); the
/// first singular block found, in block order, gives the mode returned.
pub fn check(mdae: &Mdae) -> EveryMode {
    if !mdae.always_active() {
        return EveryMode::NotChecked;
    }
    let Some(blocks) = blocks_of(mdae) else { return EveryMode::NotChecked };
    let space = ModeSpace::of_modes(mdae);
    let valid = space.valid(mdae);
    let mut work = 0u64;
    // χ_M projected on a block's modes, and its number of assignments: blocks often share
    // their modes (every block of one switch's two modes). Only the variables χ_M reads
    // are quantified (∃ over another is the identity): the Westinghouse's blocks each
    // mention one of N modes, and χ_M = true reads none, where quantifying the N - 1
    // others per block was quadratic (issue 15).
    let mut support: Vec<BddVariable> = valid.support_set().into_iter().collect();
    support.sort();
    let mut projections: BTreeMap<&[ModeId], (Bdd, u64)> = BTreeMap::new();
    for b in &blocks {
        if b.modes.len() > MAX_BLOCK_MODES {
            return EveryMode::NotChecked;
        }
        let (_, count) = projections.entry(&b.modes).or_insert_with(|| {
            let own: Vec<BddVariable> = b.modes.iter().map(|m| space.mode_vars[m.index()]).collect();
            let others: Vec<BddVariable> = support.iter().filter(|v| !own.contains(v)).copied().collect();
            let p = valid.exists(&others);
            let free = space.set.num_vars() as usize - b.modes.len();
            let count = (p.exact_cardinality() >> free).try_into().unwrap_or(u64::MAX);
            (p, count)
        });
        let edges: u64 = b.edges.iter().map(|r| r.len() as u64).sum();
        work = work.saturating_add(count.saturating_mul(edges + 1));
        if work > MAX_WORK {
            return EveryMode::NotChecked;
        }
    }
    for b in &blocks {
        let (p, _) = &projections[b.modes.as_slice()];
        if let Some(cube) = singular_assignment(&space, b, p) {
            return witness(mdae, &space, &valid, b, &cube);
        }
    }
    EveryMode::Regular
}

/// The union graph's irreducible blocks that have a guarded edge (the others are the same
/// in every mode, and have a perfect matching since the union has one), or `None` when the
/// union has no perfect matching.
fn blocks_of(mdae: &Mdae) -> Option<Vec<Block>> {
    let union: Graph = union_sigma(mdae);
    let fine = fine_blocks(&union, mdae.vars.len())?;
    let mut blocks: Vec<Block> =
        (0..fine.count).map(|_| Block { eqs: Vec::new(), edges: Vec::new(), modes: Vec::new() }).collect();
    let mut local_var = vec![0usize; mdae.vars.len()];
    let mut n_vars = vec![0usize; fine.count];
    for (j, &k) in fine.var_block.iter().enumerate() {
        local_var[j] = n_vars[k];
        n_vars[k] += 1;
    }
    for e in mdae.eq_ids() {
        let k = fine.eq_block[e.index()];
        let mut row: Vec<(usize, Cond)> = Vec::new();
        for inc in mdae.incidence(e).iter().filter(|inc| fine.var_block[inc.var.index()] == k) {
            let j = local_var[inc.var.index()];
            match row.iter_mut().find(|(v, _)| *v == j) {
                Some((_, c)) => *c = Cond::or(c.clone(), inc.when.clone()),
                None => row.push((j, inc.when.clone())),
            }
        }
        let b = &mut blocks[k];
        for (_, c) in &row {
            c.modes(&mut b.modes);
        }
        b.eqs.push(e.index());
        b.edges.push(row);
    }
    for b in &mut blocks {
        b.modes.sort();
        b.modes.dedup();
    }
    Some(blocks.into_iter().filter(|b| !b.modes.is_empty()).collect())
}

/// A valid assignment of `b`'s modes (a path of `projected`, χ_M on them, with its free
/// modes set) where `b` has no perfect matching, as a partial valuation of the modes.
fn singular_assignment(space: &ModeSpace, b: &Block, projected: &Bdd) -> Option<BddPartialValuation> {
    let vars: Vec<BddVariable> = b.modes.iter().map(|m| space.mode_vars[m.index()]).collect();
    for path in projected.sat_clauses() {
        let free: Vec<usize> = (0..vars.len()).filter(|&i| path.get_value(vars[i]).is_none()).collect();
        for bits in 0u64..(1u64 << free.len()) {
            let mut cube = path.clone();
            for (f, &i) in free.iter().enumerate() {
                cube.set_value(vars[i], bits >> f & 1 == 1);
            }
            let holds = |m: ModeId| cube.get_value(space.mode_vars[m.index()]).unwrap_or(false);
            let graph: Graph = b
                .edges
                .iter()
                .map(|row| row.iter().filter(|(_, c)| c.eval(&holds)).map(|&(j, _)| (j, 0)).collect())
                .collect();
            let (eq_to_var, _) = maximum_matching(&graph, b.eqs.len());
            if eq_to_var.iter().any(Option::is_none) {
                return Some(cube);
            }
        }
    }
    None
}

/// `b`'s modes as `cube` sets them, and the Dulmage–Mendelsohn diagnosis of the whole
/// model in a valid mode inside `cube`.
fn witness(mdae: &Mdae, space: &ModeSpace, valid: &Bdd, b: &Block, cube: &BddPartialValuation) -> EveryMode {
    let Some(mode) = space.example(&valid.and(&space.set.mk_conjunctive_clause(cube))) else {
        return EveryMode::NotChecked; // not reached: the cube is a path of χ_M's projection
    };
    let holds = |m: ModeId| mode.iter().any(|&(n, v)| n == m && v);
    let (over, under) = match analyse(&sigma_in_mode(mdae, &holds), mdae.vars.len()) {
        SingleMode::Singular(dm) => (
            dm.over_eqs.iter().map(|&i| mdae.label(EqId(i as u32)).to_string()).collect(),
            dm.under_vars.iter().map(|&j| mdae.vars[j].name.to_string()).collect(),
        ),
        SingleMode::Nonsingular(_) => (Vec::new(), Vec::new()), // not reached: a block has no matching
    };
    let value = |m: ModeId| cube.get_value(space.mode_vars[m.index()]).unwrap_or(false);
    EveryMode::Singular { mode: b.modes.iter().map(|&m| (mode_text(mdae, m), value(m))).collect(), over, under }
}

/// A mode as the model writes it: a variable by name, an atom by its condition.
fn mode_text(mdae: &Mdae, m: ModeId) -> String {
    let mode = &mdae.modes[m.index()];
    match &mode.kind {
        ModeKind::Atom { expr } => expr.clone(),
        _ => mode.name.clone(),
    }
}
