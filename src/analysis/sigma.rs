//! Pryce's Σ-method for one mode, over dense indices: the primal problem (a
//! maximum-weight perfect matching of the Σ-matrix), the dual fixpoint for the smallest
//! offsets c (equations) and d (variables), the dependency graph on saturated edges and
//! its strongly connected components ([`components`](super::scc::components)), i.e. the blocks in topological order.
//! Paper 002 §3.2–3.3. When no perfect matching exists the result is the
//! Dulmage–Mendelsohn decomposition that explains why.

use super::dm::{Decomposition, decompose};
use super::matching::{Graph, max_weight_perfect_matching};
use super::scc::components;
use crate::syntax::small_list::SmallList;
use std::collections::BTreeSet;

/// One block of one mode: equations with their offsets, written and read (variable, order).
/// One-item lists (most blocks) inline; ordered as the lists.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockInstance {
    pub eqs: SmallList<(usize, u32)>,
    pub writes: SmallList<(usize, u32)>,
    pub reads: SmallList<(usize, u32)>,
}

/// The structure of one nonsingular mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeStructure {
    /// `matching[i]` = the variable equation `i` is solved for.
    pub matching: Vec<usize>,
    pub c: Vec<u32>,
    pub d: Vec<u32>,
    /// Blocks in a topological order of the dependencies.
    pub blocks: Vec<BlockInstance>,
    /// Block dependencies `(from, to)` as indices into `blocks`: `from` writes a leading
    /// variable that `to` reads.
    pub deps: BTreeSet<(usize, usize)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SingleMode {
    Nonsingular(ModeStructure),
    Singular(Decomposition),
}

/// Runs the Σ-method on `sigma` (equation → (variable, σ)) with `n_var` variables.
pub fn analyse(sigma: &Graph, n_var: usize) -> SingleMode {
    let n = sigma.len();
    if n != n_var {
        return SingleMode::Singular(decompose(sigma, n_var));
    }
    let Some(matching) = max_weight_perfect_matching(sigma) else {
        return SingleMode::Singular(decompose(sigma, n_var));
    };
    SingleMode::Nonsingular(structure_of(sigma, matching))
}

/// The structure of `sigma` from `matching`, a highest-value transversal of it (any one:
/// the smallest offsets do not depend on which, Pryce).
pub fn structure_of(sigma: &Graph, matching: Vec<usize>) -> ModeStructure {
    let weight = |i: usize, j: usize| sigma[i].iter().filter(|e| e.0 == j).map(|e| e.1).max().unwrap_or(0);
    let (c, d) = offsets(sigma, &matching, &weight);
    let (blocks, deps) = blocks(sigma, &matching, &c, &d);
    ModeStructure { matching, c, d, blocks, deps }
}

/// The smallest offsets (c, d) of `sigma` from `matching`, a highest-value transversal of
/// it, without the blocks.
pub fn offsets_of(sigma: &Graph, matching: &[usize]) -> (Vec<u32>, Vec<u32>) {
    let weight = |i: usize, j: usize| sigma[i].iter().filter(|e| e.0 == j).map(|e| e.1).max().unwrap_or(0);
    offsets(sigma, matching, &weight)
}

/// Pryce's fixpoint: c = 0; repeat d_j = max_i(σ_ij + c_i); c_i = d_{m(i)} − σ_{i,m(i)}.
fn offsets(sigma: &Graph, matching: &[usize], weight: &dyn Fn(usize, usize) -> i64) -> (Vec<u32>, Vec<u32>) {
    let n = sigma.len();
    let mut c = vec![0i64; n];
    let mut d = vec![0i64; n];
    // Terminates for a maximum-weight perfect matching (Pryce); the bound is a safeguard.
    let bound = 4 * (n + 1) * (sigma.iter().flatten().map(|e| e.1.unsigned_abs() as usize).max().unwrap_or(0) + 1);
    for _ in 0..=bound {
        d.iter_mut().for_each(|x| *x = i64::MIN);
        for (i, row) in sigma.iter().enumerate() {
            for &(j, s) in row {
                d[j] = d[j].max(s + c[i]);
            }
        }
        let next: Vec<i64> = (0..n).map(|i| d[matching[i]] - weight(i, matching[i])).collect();
        if next == c {
            break;
        }
        c = next;
    }
    (c.iter().map(|&x| x.max(0) as u32).collect(), d.iter().map(|&x| x.max(0) as u32).collect())
}

/// Dependency graph on saturated edges (σ_ij + c_i = d_j), directed by the matching, and
/// its SCCs in topological order.
fn blocks(sigma: &Graph, matching: &[usize], c: &[u32], d: &[u32]) -> (Vec<BlockInstance>, BTreeSet<(usize, usize)>) {
    let n = sigma.len();
    let mut solver = vec![0usize; n];
    for (i, &j) in matching.iter().enumerate() {
        solver[j] = i;
    }
    // Equation solver(j) → equation i for every saturated edge (i, j) off the matching.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, row) in sigma.iter().enumerate() {
        for &(j, s) in row {
            if j != matching[i] && s + c[i] as i64 == d[j] as i64 {
                succ[solver[j]].push(i);
            }
        }
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    // components returns the components in reverse topological order.
    let mut sccs = components(&succ);
    sccs.reverse();
    let mut block_of = vec![0usize; n];
    for (b, scc) in sccs.iter().enumerate() {
        scc.iter().for_each(|&i| block_of[i] = b);
    }
    let mut deps = BTreeSet::new();
    for (a, next) in succ.iter().enumerate() {
        for &b in next {
            let (ba, bb) = (block_of[a], block_of[b]);
            if ba != bb {
                deps.insert((ba, bb));
            }
        }
    }
    // The graph dropped before the blocks are built (one component at a time).
    drop((solver, succ, block_of));
    let mut out = Vec::with_capacity(sccs.len());
    for mut eqs in sccs {
        eqs.sort_unstable();
        let writes: BTreeSet<usize> = eqs.iter().map(|&i| matching[i]).collect();
        let mut reads: std::collections::BTreeMap<usize, u32> = Default::default();
        for &i in &eqs {
            for &(j, s) in &sigma[i] {
                if !writes.contains(&j) {
                    let o = (s + c[i] as i64).max(0) as u32;
                    let e = reads.entry(j).or_insert(o);
                    *e = (*e).max(o);
                }
            }
        }
        out.push(BlockInstance {
            eqs: eqs.iter().map(|&i| (i, c[i])).collect(),
            writes: writes.iter().map(|&j| (j, d[j])).collect(),
            reads: reads.into_iter().collect(),
        });
    }
    (out, deps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pendulum_has_index_three() {
        // x'' + x λ = 0; y'' + y λ + g = 0; x² + y² = L²  (vars x y λ)
        let sigma: Graph = vec![vec![(0, 2), (2, 0)], vec![(1, 2), (2, 0)], vec![(0, 0), (1, 0)]];
        let SingleMode::Nonsingular(s) = analyse(&sigma, 3) else { panic!("singular") };
        assert_eq!(s.c, vec![0, 0, 2]);
        assert_eq!(s.d, vec![2, 2, 0]);
        assert_eq!(s.blocks.len(), 1, "one block of three equations: {:?}", s.blocks);
    }
}
