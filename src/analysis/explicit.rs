//! The explicit strategy: enumerate every valid mode, run the single-mode Σ-method
//! ([`super::sigma`]) in each, and gather the results into a [`Cdg`] whose conditions are
//! unions of modes (made local sets of the regular modes at the end). Exponential in the
//! number of modes; it is the reference the implicit strategy is tested against.
//!
//! Only the **structural modes** are enumerated: those some incidence guard or activity
//! condition mentions. The Σ-matrix is the same for every value of the others (a switch's
//! `off` in `v = s*(if off then 1 else R)`, a source's `time < startTime`), so one
//! Σ-method covers the whole cube of modes that agree on the structural ones; the
//! results are the same sets of modes as a full enumeration.
//!
//! One valid assignment (every model without modes) is nonsingular or not: its structure
//! is then the CDG itself, every condition the regular modes, written without the
//! gathering ([`super::one_mode`], issue 15).

use super::AnalysisError;
use super::cdg::{Blocks, Cdg, Edges, ModeValues, Singular};
use super::local::Local;
use super::modes::ModeSpace;
use super::sigma::{BlockInstance, Sigma, SingleMode, analyse};
use crate::mdae::{EqId, Mdae, ModeId, VarId};
use crate::syntax::small_list::SmallList;
use biodivine_lib_bdd::Bdd;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::collections::BTreeMap;
use std::hash::BuildHasher;

/// The most mode dimensions (variables + atoms) the explicit strategy enumerates.
pub const EXPLICIT_MAX_MODES: usize = 24;

/// The Σ-matrix of `mdae` in the mode where `holds(m)` gives each mode's value (its rows
/// the active equations', each variable at its highest order).
pub fn sigma_in_mode(mdae: &Mdae, holds: &dyn Fn(ModeId) -> bool) -> Sigma {
    let active = || mdae.eq_ids().filter(|&e| mdae.active(e).eval(holds));
    let mut sigma = Sigma::with_capacity(active().count(), active().map(|e| mdae.incidence(e).len()).sum());
    let mut row = Vec::new();
    for e in active() {
        row.extend(mdae.incidence(e).iter().filter(|inc| inc.when.eval(holds)).map(|inc| (inc.var.0, inc.order)));
        sigma.push_row(&mut row);
    }
    sigma.shrink_to_fit();
    sigma
}

/// The modes the Σ-matrix depends on: those an incidence guard or an activity condition
/// mentions, in [`ModeId`] order.
pub fn structural_modes(mdae: &Mdae) -> Vec<ModeId> {
    let mut out = Vec::new();
    for e in mdae.eq_ids() {
        mdae.active(e).modes(&mut out);
        for inc in mdae.incidence(e) {
            inc.when.modes(&mut out);
        }
    }
    out.sort();
    out
}

/// How many assignments of the structural modes some valid mode has (what the explicit
/// strategy enumerates), if at most 2^[`EXPLICIT_MAX_MODES`] are tried.
pub fn enumerated_modes(mdae: &Mdae) -> Option<u64> {
    let structural = structural_modes(mdae);
    if structural.len() > EXPLICIT_MAX_MODES {
        return None;
    }
    let space = ModeSpace::of_modes(mdae);
    let others: Vec<_> = (0..mdae.modes.len())
        .filter(|&m| !structural.contains(&ModeId(m as u32)))
        .map(|m| space.mode_vars[m])
        .collect();
    let projected = space.valid(mdae).exists(&others);
    let count = projected.exact_cardinality() >> others.len();
    u64::try_from(count).ok()
}

/// The modes whose structural modes take the values `bits` (bit i: `structural[i]`).
fn cube(space: &ModeSpace, structural: &[ModeId], bits: u64) -> Bdd {
    structural.iter().enumerate().fold(space.mk_true(), |acc, (i, &m)| {
        let lit = space.cond(&crate::mdae::Cond::Mode(m));
        acc.and(&if bits >> i & 1 == 1 { lit } else { lit.not() })
    })
}

pub fn explicit(mdae: &Mdae) -> Result<Cdg, AnalysisError> {
    run(mdae, true)
}

/// [`explicit`] with every result gathered, one valid assignment too (the reference of
/// `one_mode.rs`'s tests).
#[cfg(test)]
pub(crate) fn gathered(mdae: &Mdae) -> Result<Cdg, AnalysisError> {
    run(mdae, false)
}

/// [`explicit`]; `one_mode`: whether one valid assignment that is nonsingular is written
/// straight into the CDG ([`super::one_mode`]).
fn run(mdae: &Mdae, one_mode: bool) -> Result<Cdg, AnalysisError> {
    let structural = structural_modes(mdae);
    let k = structural.len();
    if k > EXPLICIT_MAX_MODES {
        return Err(AnalysisError::TooManyModes { dimensions: k, limit: EXPLICIT_MAX_MODES });
    }
    if !mdae.always_active() {
        return Err(AnalysisError::Unsupported("equations active in some modes only (χ_I ≠ true)".into()));
    }
    let space = ModeSpace::of_modes(mdae);
    let valid = space.valid(mdae);
    let n_var = mdae.vars.len();
    let mode_of = |bits: u64| cube(&space, &structural, bits).and(&valid);
    let structural_ref = &structural;
    let holds_in =
        |bits: u64| move |m: ModeId| structural_ref.iter().position(|&s| s == m).is_some_and(|i| bits >> i & 1 == 1);
    // One valid assignment: if it is nonsingular, its structure is the CDG.
    let mut valid_bits = (0u64..(1u64 << k)).filter(|&bits| !mode_of(bits).is_false());
    if let (true, Some(bits), None) = (one_mode, valid_bits.next(), valid_bits.next()) {
        let holds = holds_in(bits);
        let dm = match super::sigma::packed(sigma_in_mode(mdae, &holds), n_var) {
            Ok(s) => return Ok(super::one_mode::cdg(mdae, &holds, s, space, valid)),
            Err(dm) => dm,
        };
        let mut acc = Acc::new(mdae, 1usize << k);
        acc.gather(bits, &mode_of(bits), SingleMode::Singular(*dm), &space);
        return Ok(acc.finish(space, valid, &structural));
    }
    let mut acc = Acc::new(mdae, 1usize << k);
    for bits in 0u64..(1u64 << k) {
        let mode = mode_of(bits);
        if mode.is_false() {
            continue;
        }
        // The Σ-matrix dropped before the results are gathered.
        let result = analyse(&sigma_in_mode(mdae, &holds_in(bits)), n_var);
        acc.gather(bits, &mode, result, &space);
    }
    Ok(acc.finish(space, valid, &structural))
}

/// The assignments of the structural modes (by number) where a result holds.
type Assignments = Vec<u32>;

/// Adds assignment `at` to the assignments of `value` (a few values per equation or
/// variable, most have one: held inline, the list rebuilt for a new value).
fn push_value(values: &mut SmallList<(u32, Assignments)>, value: u32, at: u32) {
    match values.iter_mut().find(|(v, _)| *v == value) {
        Some((_, a)) => a.push(at),
        None => {
            let mut list = std::mem::take(values).into_vec();
            list.push((value, vec![at]));
            *values = list.into();
        }
    }
}

/// What the assignments gathered so far give. Memory is linear in the model (issue 15: a
/// model without modes of 10^5 equations kept every block instance three times).
struct Acc {
    /// Which assignments some valid mode has.
    valid: Vec<bool>,
    regular: Assignments,
    singular: BTreeMap<(Vec<usize>, Vec<usize>), (Assignments, Vec<(ModeId, bool)>)>,
    offsets: Vec<SmallList<(u32, Assignments)>>,
    orders: Vec<SmallList<(u32, Assignments)>>,
    /// Every block instance once, with its assignments, by id.
    blocks: Vec<(BlockInstance, Assignments)>,
    /// The ids of the instances by their hash (the instances are held once, in `blocks`).
    ids: FxHashMap<u64, SmallList<u32>>,
    /// (from id, to id, assignment) of every dependency in every assignment: 12 bytes
    /// where a map of the pairs took 80 (a B-tree's nodes half full) besides the 4 of the
    /// assignment.
    edges: Vec<(u32, u32, u32)>,
}

impl Acc {
    fn new(mdae: &Mdae, assignments: usize) -> Acc {
        Acc {
            valid: vec![false; assignments],
            regular: Vec::new(),
            singular: BTreeMap::new(),
            offsets: (0..mdae.equations.len()).map(|_| SmallList::default()).collect(),
            orders: (0..mdae.vars.len()).map(|_| SmallList::default()).collect(),
            blocks: Vec::new(),
            ids: FxHashMap::default(),
            edges: Vec::new(),
        }
    }

    /// Adds the result of the valid assignment `bits` (the modes `mode`).
    fn gather(&mut self, bits: u64, mode: &Bdd, result: SingleMode, space: &ModeSpace) {
        let at = bits as u32;
        self.valid[bits as usize] = true;
        match result {
            SingleMode::Singular(dm) => {
                let key = (dm.over_eqs.clone(), dm.under_vars.clone());
                let e =
                    self.singular.entry(key).or_insert_with(|| (Vec::new(), space.example(mode).unwrap_or_default()));
                e.0.push(at);
            }
            SingleMode::Nonsingular(s) => {
                self.regular.push(at);
                for (i, &c) in s.c.iter().enumerate() {
                    push_value(&mut self.offsets[i], c, at);
                }
                for (j, &d) in s.d.iter().enumerate() {
                    push_value(&mut self.orders[j], d, at);
                }
                // Each instance is kept once, under an id; the edges refer to ids. The first
                // mode's instances fill the vector exactly (grown one at a time, it kept up to
                // twice the room through the end).
                if self.blocks.is_empty() {
                    self.blocks.reserve_exact(s.blocks.len());
                }
                let ids: Vec<u32> = s.blocks.into_iter().map(|b| self.block(b, at)).collect();
                self.edges.extend(s.deps.iter().map(|&(a, b)| (ids[a as usize], ids[b as usize], at)));
            }
        }
    }

    /// The id of instance `b`, whose assignments now include `at`.
    fn block(&mut self, b: BlockInstance, at: u32) -> u32 {
        let same = self.ids.entry(FxBuildHasher.hash_one(&b)).or_default();
        if let Some(&id) = same.iter().find(|&&id| self.blocks[id as usize].0 == b) {
            self.blocks[id as usize].1.push(at);
            return id;
        }
        let id = self.blocks.len() as u32;
        let mut ids = std::mem::take(same).into_vec();
        ids.push(id);
        *same = ids.into();
        self.blocks.push((b, vec![at]));
        id
    }

    /// The CDG: blocks sorted by instance, edges by (from, to) in that order (the order of
    /// the instance pairs).
    fn finish(self, space: ModeSpace, valid: Bdd, structural: &[ModeId]) -> Cdg {
        let Acc { valid: flags, regular, singular, offsets, orders, blocks: instances, ids, edges: mut deps } = self;
        drop(ids);
        let sets = Sets::new(&space, &valid, structural, &flags);
        let regular = sets.bdd(&regular);
        // The conditions as local sets of the regular modes (`cdg.rs`).
        let factored = space.factored(&regular);
        let local = |at: &[u32]| factored.local(&sets.bdd(at));
        // The ids in the order of their instances; `rank`: an id's place in it.
        let mut order: Vec<u32> = (0..instances.len() as u32).collect();
        order.sort_unstable_by(|&x, &y| instances[x as usize].0.cmp(&instances[y as usize].0));
        let mut rank = vec![0u32; order.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        let eqs = instances.iter().map(|(b, _)| b.eqs.len()).sum();
        let reads = instances.iter().map(|(b, _)| b.reads.len()).sum();
        let mut blocks = Blocks::with_capacity(order.len(), eqs, reads);
        for &id in &order {
            let (b, at) = &instances[id as usize];
            push_block(&mut blocks, b, local(at));
        }
        drop((order, instances));
        // Each dependency's assignments, increasing (a stable sort of the pairs).
        deps.iter_mut().for_each(|d| (d.0, d.1) = (rank[d.0 as usize], rank[d.1 as usize]));
        deps.sort_by_key(|&(a, b, _)| (a, b));
        let runs = || deps.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1));
        // Counted first: collected from `chunk_by`, the vector would keep up to twice the room.
        let mut edges = Edges::with_capacity(runs().count());
        for run in runs() {
            let at: Assignments = run.iter().map(|d| d.2).collect();
            edges.push(run[0].0, run[0].1, local(&at));
        }
        drop(deps);
        let singular = singular
            .into_iter()
            .map(|((over, under), (at, example))| Singular {
                cond: sets.bdd(&at),
                example,
                overdetermined: over.into_iter().map(|i| EqId(i as u32)).collect(),
                underdetermined: under.into_iter().map(|j| VarId(j as u32)).collect(),
            })
            .collect();
        let flat = |v: Vec<SmallList<(u32, Assignments)>>| {
            ModeValues::new(
                factored.all(),
                v.into_iter().map(|mut m| {
                    m.sort_unstable_by_key(|x| x.0);
                    m.iter().map(|(n, at)| (*n, local(at))).collect()
                }),
            )
        };
        let (offsets, orders) = (flat(offsets), flat(orders));
        drop(sets);
        Cdg { regular, factored, singular, offsets, orders, blocks, edges, space, valid }
    }
}

/// Sets of assignments of the structural modes as BDDs over the whole mode space.
struct Sets<'a> {
    valid: &'a Bdd,
    /// `vars[i]`: the BDD of structural mode i.
    vars: Vec<Bdd>,
    /// `before[n]`: how many valid assignments are numbered below n.
    before: Vec<u32>,
    space: &'a ModeSpace,
}

impl<'a> Sets<'a> {
    fn new(space: &'a ModeSpace, valid: &'a Bdd, structural: &[ModeId], flags: &[bool]) -> Sets<'a> {
        let vars = structural.iter().map(|&m| space.cond(&crate::mdae::Cond::Mode(m))).collect();
        let mut before = Vec::with_capacity(flags.len() + 1);
        let mut n = 0;
        before.push(0);
        for &f in flags {
            n += u32::from(f);
            before.push(n);
        }
        Sets { valid, vars, before, space }
    }

    /// The modes whose structural assignment is in `at` (increasing numbers).
    fn bdd(&self, at: &[u32]) -> Bdd {
        self.build(self.vars.len(), 0, at).and(self.valid)
    }

    /// The assignments numbered `start .. start + 2^level` that are in `at` (those
    /// numbers only), invalid assignments taken as don't-cares.
    fn build(&self, level: usize, start: u32, at: &[u32]) -> Bdd {
        let end = start + (1u32 << level);
        let valid_here = self.before[end as usize] - self.before[start as usize];
        if at.is_empty() {
            return self.space.mk_false();
        }
        if at.len() as u32 == valid_here {
            return self.space.mk_true();
        }
        let mid = start + (1u32 << (level - 1));
        let split = at.partition_point(|&a| a < mid);
        let lo = self.build(level - 1, start, &at[..split]);
        let hi = self.build(level - 1, mid, &at[split..]);
        let v = &self.vars[level - 1];
        v.and(&hi).or(&v.not().and(&lo))
    }
}

/// Appends a dense-index block instance to the CDG's blocks under `cond`.
pub fn push_block(blocks: &mut Blocks, b: &BlockInstance, cond: Local) {
    push_lists(blocks, cond, &b.eqs, &b.writes, &b.reads);
}

/// Appends the block `cond: reads -- eqs -> writes` given by dense indices.
pub fn push_lists(blocks: &mut Blocks, cond: Local, eqs: &[(u32, u32)], writes: &[(u32, u32)], reads: &[(u32, u32)]) {
    let vars = |v: &[(u32, u32)]| v.iter().map(|&(j, d)| (VarId(j), d)).collect::<Vec<_>>();
    blocks.push(cond, eqs.iter().map(|&(i, c)| (EqId(i), c)), vars(writes), vars(reads));
}
