//! The implicit strategy: paper 002 §4, every mode at once with BDDs
//! (biodivine-lib-bdd). Steps, one file each:
//! - here, the encoding (Table 1): one BDD variable per mode and per edge (equation,
//!   variable) of the all-modes incidence, χ_E and σ per edge, χ_M;
//! - [`primal`]: perfect matchings X = μ ∧ ν ∧ Υ per irreducible block of the union
//!   graph, one maximum-weight perfect matching per mode T (for every mode the matching
//!   that is least in the variable order, what biodivine's `S.pick` keeps) found by the
//!   dynamic programme of [`optimal`] instead of the paper's weight ω and bitwise arg-max,
//!   T_e, and the regular (nonsingular valid) modes;
//! - [`dual`]: Pryce's fixpoint with mode-dependent c_i, d_j ([`bits::BitVec`]);
//! - [`blocks`]: the dependency relation ⇝, its transitive closure restricted to the SCCs
//!   of the all-modes union graph (Tarjan first), the block instances with their
//!   conditions, and the CDG edges;
//! - [`singular`]: diagnostics for the singular modes.
//!
//! After the primal problem every set of modes is held modulo the regular modes
//! ([`modulo`]: the regular modes conjoin every room's or car's invariant, O(N) nodes) and
//! made exact where it enters the [`Cdg`], as a local set of the regular modes (`local.rs`),
//! under the memory budget [`HELD_LIMIT`].
//!
//! Variable order (locality, paper 002 §4.3): [`order`] picks an order of the equations
//! (the narrowest by cut width of source, fine-block and Cuthill–McKee orders); before each
//! equation's edge variables come the mode variables its incidence mentions first.

mod bits;
mod blocks;
mod class_count;
mod classes;
mod closure;
mod dual;
mod factors;
mod modulo;
mod ops;
mod optimal;
mod order;
mod primal;
mod singular;
mod stats;

pub use order::Order;
pub use stats::{HELD_LIMIT, NODE_LIMIT, Stats, WORK_LIMIT};

use super::AnalysisError;
use super::cdg::{Blocks, Cdg, Edges, ModeValues};
use super::explicit::push_block;
use super::local::Local;
use super::modes::ModeSpace;
use crate::mdae::{EqId, Mdae};
use biodivine_lib_bdd::{Bdd, BddVariable, BddVariableSet};
use bits::BitVec;

/// One edge of the all-modes incidence: equation `eq` contains variable `var` in some mode.
pub(super) struct EdgeInfo {
    pub eq: usize,
    pub var: usize,
    pub bdd_var: BddVariable,
    /// χ_E: the modes where the edge exists.
    pub active: Bdd,
    /// σ: the order where the edge exists (0 elsewhere).
    pub sigma: BitVec,
}

pub(super) struct Encoding<'m> {
    pub mdae: &'m Mdae<'m>,
    pub space: ModeSpace,
    pub edges: Vec<EdgeInfo>,
    /// I⁻¹: equation → its edges.
    pub rows: Vec<Vec<usize>>,
    /// J⁻¹: variable → its edges.
    pub cols: Vec<Vec<usize>>,
    pub valid: Bdd,
    /// Width of the bit-vectors of c, d and σ.
    pub width: usize,
}

impl Encoding<'_> {
    pub fn set(&self) -> &BddVariableSet {
        &self.space.set
    }
}

pub fn implicit(mdae: &Mdae) -> Result<Cdg, AnalysisError> {
    implicit_with_stats(mdae, Order::default(), &mut Stats::default())
}

/// [`implicit`] with the variable `order` given, recording phase times and the peak BDD
/// size in `stats`.
pub fn implicit_with_stats(mdae: &Mdae, order: Order, stats: &mut Stats) -> Result<Cdg, AnalysisError> {
    if !mdae.always_active() {
        return Err(AnalysisError::Unsupported("equations active in some modes only (χ_I ≠ true)".into()));
    }
    stats.start();
    let enc = encode(mdae, order)?;
    stats.bdd_vars = enc.set().num_vars() as usize;
    stats.see_all(enc.edges.iter().flat_map(|e| std::iter::once(&e.active).chain(&e.sigma.bits)));
    stats.phase("encode");
    let primal = primal::solve(&enc, stats);
    stats.phase("primal");
    if stats.over_limit {
        return Err(too_large(mdae, stats));
    }
    // From here on, sets of modes are held modulo the regular modes (`modulo`) and made
    // exact where they enter the CDG.
    let regular = modulo::CareSet::new(&primal.regular);
    let (c, d) = dual::solve(&enc, &primal, &regular)?;
    stats.see_all(c.iter().chain(&d).flat_map(|v| &v.bits));
    stats.phase("dual");
    let by_c: Vec<_> = c.iter().map(|ci| regular.partition(ci, enc.set())).collect();
    let by_d: Vec<_> = d.iter().map(|dj| regular.partition(dj, enc.set())).collect();
    stats.phase("partition");
    let graph = blocks::build(&enc, &primal, &regular, (&c, &d), (&by_c, &by_d), stats);
    drop((c, d));
    stats.phase("blocks");
    let singular = singular::diagnose(&enc, &primal);
    stats.phase("singular");
    // The conditions enter the CDG as local sets of the regular modes (`cdg.rs`), each
    // made from its representative without the exact set (`Factored::local_modulo`: O(N)
    // nodes per condition were 20% of the compressible building N = 1000), under the
    // budget of nodes held.
    let factored = enc.space.factored(&primal.regular);
    let mut local = |b: &Bdd| {
        let l = factored.local_modulo(b);
        stats.hold(l.g());
        if stats.over_limit { Err(too_large(mdae, stats)) } else { Ok(l) }
    };
    let by_value = |parts: Vec<Vec<(u32, Bdd)>>, local: &mut dyn FnMut(&Bdd) -> Result<Local, AnalysisError>| {
        let lists = parts
            .into_iter()
            .map(|p| p.into_iter().map(|(v, b)| Ok((v, local(&b)?))).collect())
            .collect::<Result<Vec<Vec<_>>, AnalysisError>>()?;
        Ok::<_, AnalysisError>(ModeValues::new(factored.all(), lists))
    };
    let (offsets, orders) = (by_value(by_c, &mut local)?, by_value(by_d, &mut local)?);
    let mut blocks = Blocks::default();
    for (b, cond) in graph.blocks {
        push_block(&mut blocks, &b, local(&cond)?);
    }
    let mut edges = Edges::with_capacity(graph.edges.len());
    for (from, to, cond) in graph.edges {
        edges.push(from as u32, to as u32, local(&cond)?);
    }
    stats.phase("exact");
    Ok(Cdg {
        valid: enc.valid.clone(),
        regular: primal.regular.clone(),
        factored,
        singular,
        offsets,
        orders,
        blocks,
        edges,
        space: enc.space,
    })
}

/// The refusal of a model whose analysis went past one of its budgets.
fn too_large(mdae: &Mdae, stats: &Stats) -> AnalysisError {
    let held = stats.held_limit();
    if stats.held > held {
        // A node of the library is 12 bytes.
        return AnalysisError::TooMuchMemory { modes: mdae.modes.len(), held, megabytes: held * 12 / 1_000_000 };
    }
    AnalysisError::TooLarge {
        modes: mdae.modes.len(),
        nodes: stats::NODE_LIMIT,
        levels: optimal::LEVELS_LIMIT,
        classes: classes::CLASS_LIMIT,
        work: stats::WORK_LIMIT,
    }
}

/// Builds the BDD variable set (in locality order), χ_E and σ of every edge, χ_M.
fn encode<'m>(mdae: &'m Mdae<'m>, order: Order) -> Result<Encoding<'m>, AnalysisError> {
    enum Slot {
        Mode(usize),
        Edge(usize, usize),
    }
    let mut slots: Vec<Slot> = Vec::new();
    let mut placed = vec![false; mdae.modes.len()];
    let mut edge_keys: Vec<(usize, usize)> = Vec::new();
    for i in order::equations(mdae, order) {
        let e = mdae.incidence(EqId(i as u32));
        let mut ms = Vec::new();
        e.iter().for_each(|inc| inc.when.modes(&mut ms));
        for m in ms {
            if !placed[m.index()] {
                placed[m.index()] = true;
                slots.push(Slot::Mode(m.index()));
            }
        }
        let mut vars: Vec<usize> = e.iter().map(|inc| inc.var.index()).collect();
        vars.sort_unstable();
        vars.dedup();
        for j in vars {
            slots.push(Slot::Edge(i, j));
            edge_keys.push((i, j));
        }
    }
    for (m, p) in placed.iter().enumerate() {
        if !p {
            slots.push(Slot::Mode(m));
        }
    }
    if slots.len() > u16::MAX as usize {
        return Err(AnalysisError::Unsupported(format!("{} BDD variables (at most {})", slots.len(), u16::MAX)));
    }
    let names: Vec<String> = slots
        .iter()
        .map(|s| match s {
            Slot::Mode(m) => format!("m{m}"),
            Slot::Edge(i, j) => format!("e{i}_{j}"),
        })
        .collect();
    let set = BddVariableSet::new(&names.iter().map(String::as_str).collect::<Vec<_>>());
    let all = set.variables();
    let mut mode_vars = Vec::with_capacity(mdae.modes.len());
    let mut edge_vars = Vec::with_capacity(edge_keys.len());
    for (k, s) in slots.iter().enumerate() {
        match s {
            Slot::Mode(m) => mode_vars.push((*m, all[k])),
            Slot::Edge(..) => edge_vars.push(all[k]),
        }
    }
    mode_vars.sort_unstable_by_key(|&(m, _)| m);
    let mode_vars: Vec<BddVariable> = mode_vars.into_iter().map(|(_, v)| v).collect();
    let space = ModeSpace::new(
        set,
        mode_vars,
        mdae.modes.iter().map(|m| m.name.clone()).collect(),
        super::modes::groups_of(mdae),
    );
    let max_order = mdae.eq_ids().flat_map(|e| mdae.incidence(e).iter().map(|i| i.order as u64)).max().unwrap_or(0);
    // c, d ≤ n · max σ (Pryce); two spare bits keep the sums of the fixpoint exact.
    let bound = (mdae.equations.len() as u64 + 1) * (max_order + 1) * 2;
    let width = (64 - bound.leading_zeros() as usize).max(2) + 1;
    let mut edges = Vec::with_capacity(edge_keys.len());
    let mut rows = vec![Vec::new(); mdae.equations.len()];
    let mut cols = vec![Vec::new(); mdae.vars.len()];
    for (k, &(i, j)) in edge_keys.iter().enumerate() {
        let mut active = space.mk_false();
        let mut sigma = BitVec::constant(&space.set, width, 0);
        for inc in mdae.incidence(EqId(i as u32)).iter().filter(|inc| inc.var.index() == j) {
            let when = space.cond(inc.when);
            let here = BitVec::ite(
                &when,
                &BitVec::constant(&space.set, width, inc.order as u64),
                &BitVec::constant(&space.set, width, 0),
            );
            sigma = sigma.max(&here, &space.set);
            active = active.or(&when);
        }
        rows[i].push(k);
        cols[j].push(k);
        edges.push(EdgeInfo { eq: i, var: j, bdd_var: edge_vars[k], active, sigma });
    }
    let valid = space.valid(mdae);
    Ok(Encoding { mdae, space, edges, rows, cols, valid, width })
}

/// A xorshift generator for the tests' random blocks: `next(n)` in 0..n, the same
/// sequence for the same seed.
#[cfg(test)]
fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}
