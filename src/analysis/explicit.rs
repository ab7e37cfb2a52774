//! The explicit strategy: enumerate every valid mode, run the single-mode Σ-method
//! ([`super::sigma`]) in each, and gather the results into a [`Cdg`] whose conditions are
//! unions of modes. Exponential in the number of modes; it is the reference the implicit
//! strategy is tested against.

use super::AnalysisError;
use super::cdg::{Block, Cdg, Edge, Singular};
use super::matching::Graph;
use super::modes::ModeSpace;
use super::sigma::{BlockInstance, SingleMode, analyse};
use crate::mdae::{EqId, Mdae, ModeId, VarId};
use biodivine_lib_bdd::Bdd;
use std::collections::BTreeMap;

/// The most mode dimensions (variables + atoms) the explicit strategy enumerates.
pub const EXPLICIT_MAX_MODES: usize = 24;

/// The Σ-matrix of `mdae` in the mode where `holds(m)` gives each mode's value.
pub fn sigma_in_mode(mdae: &Mdae, holds: &dyn Fn(ModeId) -> bool) -> Graph {
    mdae.equations
        .iter()
        .filter(|e| e.active.eval(holds))
        .map(|e| {
            let mut row: BTreeMap<usize, i64> = BTreeMap::new();
            for inc in &e.incidence {
                if inc.when.eval(holds) {
                    let o = row.entry(inc.var.index()).or_insert(inc.order as i64);
                    *o = (*o).max(inc.order as i64);
                }
            }
            row.into_iter().collect()
        })
        .collect()
}

pub fn explicit(mdae: &Mdae) -> Result<Cdg, AnalysisError> {
    let k = mdae.modes.len();
    if k > EXPLICIT_MAX_MODES {
        return Err(AnalysisError::TooManyModes { dimensions: k, limit: EXPLICIT_MAX_MODES });
    }
    if mdae.equations.iter().any(|e| e.active != crate::mdae::Cond::True) {
        return Err(AnalysisError::Unsupported("equations active in some modes only (χ_I ≠ true)".into()));
    }
    let space = ModeSpace::of_modes(mdae);
    let valid = space.valid(mdae);
    let n_var = mdae.vars.len();
    let mut acc = Acc::new(&space, mdae);
    for bits in 0u64..(1u64 << k) {
        let holds = |m: ModeId| bits >> m.0 & 1 == 1;
        if !mdae.invariants.iter().all(|inv| inv.cond.eval(&holds)) {
            continue;
        }
        let mode = space.minterm(bits);
        match analyse(&sigma_in_mode(mdae, &holds), n_var) {
            SingleMode::Singular(dm) => {
                let key = (dm.over_eqs.clone(), dm.under_vars.clone());
                let e = acc.singular.entry(key).or_insert_with(|| (space.mk_false(), bits));
                e.0 = e.0.or(&mode);
            }
            SingleMode::Nonsingular(s) => {
                acc.regular = acc.regular.or(&mode);
                for (i, &c) in s.c.iter().enumerate() {
                    or_value(&mut acc.offsets[i], c, &mode);
                }
                for (j, &d) in s.d.iter().enumerate() {
                    or_value(&mut acc.orders[j], d, &mode);
                }
                // Each instance is kept once, under an id; the edges refer to ids.
                let ids: Vec<usize> = s.blocks.into_iter().map(|b| acc.block(b, &mode)).collect();
                for &(a, b) in &s.deps {
                    let e = acc.edges.entry((ids[a], ids[b])).or_insert_with(|| space.mk_false());
                    *e = e.or(&mode);
                }
            }
        }
    }
    Ok(acc.finish(space, valid))
}

/// Adds `mode` to the modes of `value` (a few values per equation or variable: a list).
fn or_value(values: &mut Vec<(u32, Bdd)>, value: u32, mode: &Bdd) {
    match values.iter_mut().find(|(v, _)| *v == value) {
        Some((_, m)) => *m = m.or(mode),
        None => {
            values.reserve_exact(1); // one value is the rule: no room for four (issue 15)
            values.push((value, mode.clone()))
        }
    }
}

/// What the modes gathered so far give. Memory is linear in the model (issue 15: a model
/// without modes of 10^5 equations kept every block instance three times, and a search
/// tree per equation).
struct Acc {
    regular: Bdd,
    singular: BTreeMap<(Vec<usize>, Vec<usize>), (Bdd, u64)>,
    offsets: Vec<Vec<(u32, Bdd)>>,
    orders: Vec<Vec<(u32, Bdd)>>,
    /// The id of every block instance, and the modes of each id.
    ids: BTreeMap<BlockInstance, usize>,
    blocks: Vec<Bdd>,
    edges: BTreeMap<(usize, usize), Bdd>,
}

impl Acc {
    fn new(space: &ModeSpace, mdae: &Mdae) -> Acc {
        Acc {
            regular: space.mk_false(),
            singular: BTreeMap::new(),
            offsets: vec![Vec::new(); mdae.equations.len()],
            orders: vec![Vec::new(); mdae.vars.len()],
            blocks: Vec::new(),
            ids: BTreeMap::new(),
            edges: BTreeMap::new(),
        }
    }

    /// The id of instance `b`, whose modes now include `mode`.
    fn block(&mut self, b: BlockInstance, mode: &Bdd) -> usize {
        if let Some(&id) = self.ids.get(&b) {
            self.blocks[id] = self.blocks[id].or(mode);
            return id;
        }
        let id = self.blocks.len();
        self.ids.insert(b, id);
        self.blocks.push(mode.clone());
        id
    }

    /// The CDG: blocks sorted by instance, edges by (from, to) in that order (the order of
    /// the instance pairs).
    fn finish(self, space: ModeSpace, valid: Bdd) -> Cdg {
        let mut rank = vec![0usize; self.blocks.len()];
        let mut conds = self.blocks;
        let blocks: Vec<Block> = self
            .ids
            .into_iter()
            .enumerate()
            .map(|(r, (b, id))| {
                rank[id] = r;
                into_block(b, std::mem::replace(&mut conds[id], space.mk_false()))
            })
            .collect();
        let mut edges: Vec<Edge> =
            self.edges.into_iter().map(|((a, b), cond)| Edge { from: rank[a], to: rank[b], cond }).collect();
        edges.sort_by_key(|e| (e.from, e.to));
        let bits = |b: u64| (0..space.mode_vars.len()).map(|m| (ModeId(m as u32), b >> m & 1 == 1)).collect();
        let singular = self
            .singular
            .into_iter()
            .map(|((over, under), (cond, ex))| Singular {
                cond,
                example: bits(ex),
                overdetermined: over.into_iter().map(|i| EqId(i as u32)).collect(),
                underdetermined: under.into_iter().map(|j| VarId(j as u32)).collect(),
            })
            .collect();
        let flat = |v: Vec<Vec<(u32, Bdd)>>| {
            v.into_iter()
                .map(|mut m| {
                    m.sort_unstable_by_key(|x| x.0);
                    m
                })
                .collect()
        };
        Cdg {
            space,
            valid,
            regular: self.regular,
            singular,
            offsets: flat(self.offsets),
            orders: flat(self.orders),
            blocks,
            edges,
        }
    }
}

/// A dense-index block instance as a CDG block.
pub fn block(b: &BlockInstance, cond: &Bdd) -> Block {
    into_block(b.clone(), cond.clone())
}

fn into_block(b: BlockInstance, cond: Bdd) -> Block {
    let ids = |v: Vec<(usize, u32)>| v.into_iter().map(|(j, d)| (VarId(j as u32), d)).collect();
    Block {
        cond,
        eqs: b.eqs.into_iter().map(|(i, c)| (EqId(i as u32), c)).collect(),
        writes: ids(b.writes),
        reads: ids(b.reads),
    }
}
