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
                    or_into(&mut acc.offsets[i], c, &mode, &space);
                }
                for (j, &d) in s.d.iter().enumerate() {
                    or_into(&mut acc.orders[j], d, &mode, &space);
                }
                for b in &s.blocks {
                    or_into(&mut acc.blocks, b.clone(), &mode, &space);
                }
                for &(a, b) in &s.deps {
                    or_into(&mut acc.edges, (s.blocks[a].clone(), s.blocks[b].clone()), &mode, &space);
                }
            }
        }
    }
    Ok(acc.finish(space, valid))
}

fn or_into<K: Ord>(map: &mut BTreeMap<K, Bdd>, key: K, mode: &Bdd, space: &ModeSpace) {
    let e = map.entry(key).or_insert_with(|| space.mk_false());
    *e = e.or(mode);
}

struct Acc {
    regular: Bdd,
    singular: BTreeMap<(Vec<usize>, Vec<usize>), (Bdd, u64)>,
    offsets: Vec<BTreeMap<u32, Bdd>>,
    orders: Vec<BTreeMap<u32, Bdd>>,
    blocks: BTreeMap<BlockInstance, Bdd>,
    edges: BTreeMap<(BlockInstance, BlockInstance), Bdd>,
}

impl Acc {
    fn new(space: &ModeSpace, mdae: &Mdae) -> Acc {
        Acc {
            regular: space.mk_false(),
            singular: BTreeMap::new(),
            offsets: vec![BTreeMap::new(); mdae.equations.len()],
            orders: vec![BTreeMap::new(); mdae.vars.len()],
            blocks: BTreeMap::new(),
            edges: BTreeMap::new(),
        }
    }

    fn finish(self, space: ModeSpace, valid: Bdd) -> Cdg {
        let index: BTreeMap<&BlockInstance, usize> = self.blocks.keys().enumerate().map(|(n, b)| (b, n)).collect();
        let edges =
            self.edges.iter().map(|((a, b), cond)| Edge { from: index[a], to: index[b], cond: cond.clone() }).collect();
        let blocks = self.blocks.iter().map(|(b, cond)| block(b, cond)).collect();
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
        let flat = |v: Vec<BTreeMap<u32, Bdd>>| v.into_iter().map(|m| m.into_iter().collect()).collect();
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
    Block {
        cond: cond.clone(),
        eqs: b.eqs.iter().map(|&(i, c)| (EqId(i as u32), c)).collect(),
        writes: b.writes.iter().map(|&(j, d)| (VarId(j as u32), d)).collect(),
        reads: b.reads.iter().map(|&(j, o)| (VarId(j as u32), o)).collect(),
    }
}
