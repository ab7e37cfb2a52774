//! Pryce's Σ-method for one mode, over dense indices: the primal problem (a
//! maximum-weight perfect matching of the Σ-matrix), the dual fixpoint for the smallest
//! offsets c (equations) and d (variables), the dependency graph on saturated edges and
//! its strongly connected components ([`component_of`]), i.e. the blocks.
//! Paper 002 §3.2–3.3. When no perfect matching exists the result is the
//! Dulmage–Mendelsohn decomposition that explains why.
//!
//! Packed for a model of 10^5 equations (issue 15): one mode's Σ-matrix is [`Sigma`]
//! (`u32` entries in one list), and [`Packed`] holds the structure as arrays over the
//! equations and variables — each equation's block, the blocks numbered by their smallest
//! equation (the CDG's order). [`ModeStructure`], the same structure as lists for the
//! callers that gather modes (the explicit strategy, `oblivious`), is written from it one
//! block at a time ([`Packed::for_each_block`], [`Packed::deps`]); `one_mode` writes the
//! CDG of a single mode from it directly.

use super::dm::{Decomposition, decompose};
use super::matching::{Rows, Weighted, max_weight_perfect_matching};
use super::scc::component_of;
use crate::syntax::small_list::SmallList;

/// One mode's Σ-matrix, packed: row i's entries (variable, σ), each variable once and
/// increasing, are `vars[start[i]..start[i + 1]]` with their `sigma` (a derivative order,
/// as the model's incidence: 5 bytes an entry; a `Graph` row was a vector of its own, 24
/// bytes, and 16 an entry).
#[derive(Clone, Debug)]
pub struct Sigma {
    start: Vec<u32>,
    vars: Vec<u32>,
    sigma: Vec<u8>,
}

impl Sigma {
    /// Room for `rows` rows of `entries` entries in all.
    pub fn with_capacity(rows: usize, entries: usize) -> Sigma {
        let mut start = Vec::with_capacity(rows + 1);
        start.push(0);
        Sigma { start, vars: Vec::with_capacity(entries), sigma: Vec::with_capacity(entries) }
    }

    /// Appends a row from its (variable, σ) pairs in any order, a variable repeated taken at
    /// its largest σ; `row` is left empty.
    pub fn push_row(&mut self, row: &mut Vec<(u32, u8)>) {
        row.sort_unstable();
        // Sorted by (variable, σ): the last of each variable has its largest σ.
        for (k, &(j, s)) in row.iter().enumerate() {
            if row.get(k + 1).is_none_or(|next| next.0 != j) {
                self.vars.push(j);
                self.sigma.push(s);
            }
        }
        self.start.push(u32::try_from(self.vars.len()).expect("fewer than 2^32 Σ-matrix entries"));
        row.clear();
    }

    /// Frees the room left over.
    pub fn shrink_to_fit(&mut self) {
        self.vars.shrink_to_fit();
        self.sigma.shrink_to_fit();
    }

    /// Row `i`'s entries as positions in `vars` and `sigma`.
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }
}

impl Rows for Sigma {
    fn len(&self) -> usize {
        self.start.len() - 1
    }
    fn degree(&self, i: usize) -> usize {
        (self.start[i + 1] - self.start[i]) as usize
    }
    fn var(&self, i: usize, k: usize) -> usize {
        self.vars[self.start[i] as usize + k] as usize
    }
}

impl Weighted for Sigma {
    fn entries(&self, i: usize) -> impl Iterator<Item = (usize, i64)> + '_ {
        let r = self.range(i);
        self.vars[r.clone()].iter().zip(&self.sigma[r]).map(|(&j, &s)| (j as usize, i64::from(s)))
    }
}

/// A list of (equation or variable, offset or order) pairs.
pub type Entries = [(u32, u32)];

/// One block of one mode: equations with their offsets, written and read (variable, order),
/// each increasing. One-item lists (most blocks) inline; ordered as the lists.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockInstance {
    pub eqs: SmallList<(u32, u32)>,
    pub writes: SmallList<(u32, u32)>,
    pub reads: SmallList<(u32, u32)>,
}

/// The structure of one nonsingular mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeStructure {
    /// `matching[i]` = the variable equation `i` is solved for.
    pub matching: Vec<u32>,
    pub c: Vec<u32>,
    pub d: Vec<u32>,
    /// The blocks, by their smallest equation.
    pub blocks: Vec<BlockInstance>,
    /// Block dependencies `(from, to)` as indices into `blocks`, increasing: `from` writes
    /// a leading variable that `to` reads.
    pub deps: Vec<(u32, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SingleMode {
    Nonsingular(ModeStructure),
    Singular(Decomposition),
}

/// Runs the Σ-method on `sigma` (equation → (variable, σ)) with `n_var` variables.
pub fn analyse<G: Weighted + ?Sized>(sigma: &G, n_var: usize) -> SingleMode {
    if sigma.len() != n_var {
        return SingleMode::Singular(decompose(sigma, n_var));
    }
    match max_weight_perfect_matching(sigma) {
        Some(matching) => SingleMode::Nonsingular(Packed::of(sigma, matching).structure(sigma)),
        None => SingleMode::Singular(decompose(sigma, n_var)),
    }
}

/// [`analyse`] of a Σ-matrix given away, the structure packed: the matrix is freed once
/// the blocks' dependency graph is built, before its components are found (issue 15: what
/// the blocks read is in the model, `one_mode.rs`).
pub fn packed(sigma: Sigma, n_var: usize) -> Result<Packed, Box<Decomposition>> {
    if sigma.len() != n_var {
        return Err(Box::new(decompose(&sigma, n_var)));
    }
    let Some(matching) = max_weight_perfect_matching(&sigma) else {
        return Err(Box::new(decompose(&sigma, n_var)));
    };
    let (c, d) = offsets(&sigma, &matching);
    let graph = dependencies(&sigma, &matching, &c, &d);
    drop(sigma);
    let (block, count) = components(graph);
    Ok(Packed { matching, c, d, block, count })
}

/// The structure of `sigma` from `matching`, a highest-value transversal of it (any one:
/// the smallest offsets do not depend on which, Pryce).
pub fn structure_of<G: Weighted + ?Sized>(sigma: &G, matching: Vec<u32>) -> ModeStructure {
    Packed::of(sigma, matching).structure(sigma)
}

/// The smallest offsets (c, d) of `sigma` from `matching`, a highest-value transversal of
/// it, without the blocks.
pub fn offsets_of<G: Weighted + ?Sized>(sigma: &G, matching: &[u32]) -> (Vec<u32>, Vec<u32>) {
    offsets(sigma, matching)
}

/// The structure of one nonsingular mode as arrays over its equations and variables.
pub struct Packed {
    /// `matching[i]`: the variable equation i is solved for.
    pub matching: Vec<u32>,
    pub c: Vec<u32>,
    pub d: Vec<u32>,
    /// `block[i]`: equation i's block; the blocks numbered by their smallest equation.
    pub block: Vec<u32>,
    /// The number of blocks.
    pub count: usize,
}

impl Packed {
    fn of<G: Weighted + ?Sized>(sigma: &G, matching: Vec<u32>) -> Packed {
        let (c, d) = offsets(sigma, &matching);
        let (block, count) = components(dependencies(sigma, &matching, &c, &d));
        Packed { matching, c, d, block, count }
    }

    /// `var_block[j]`: the block that writes variable j.
    pub fn var_block(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.matching.len()];
        for (i, &j) in self.matching.iter().enumerate() {
            out[j as usize] = self.block[i];
        }
        out
    }

    /// Does equation i's entry (j, σ) lie on the dependency graph: off the matching and
    /// saturated (σ + c_i = d_j)?
    fn saturated(&self, i: usize, j: usize, s: i64) -> bool {
        j != self.matching[i] as usize && s + i64::from(self.c[i]) == i64::from(self.d[j])
    }

    /// The dependencies between blocks, (from, to) increasing and distinct: `from` writes
    /// a variable that `to` reads on a saturated entry (`var_block` from
    /// [`Packed::var_block`]).
    pub fn deps<G: Weighted + ?Sized>(&self, sigma: &G, var_block: &[u32]) -> Vec<(u32, u32)> {
        let dep = |i: usize, (j, s): (usize, i64)| {
            Some((var_block[j], self.block[i])).filter(|(a, b)| a != b && self.saturated(i, j, s))
        };
        // Counted first: the list is filled at its length.
        let count = (0..sigma.len()).map(|i| sigma.entries(i).filter_map(|e| dep(i, e)).count()).sum();
        let mut deps = Vec::with_capacity(count);
        for i in 0..sigma.len() {
            deps.extend(sigma.entries(i).filter_map(|e| dep(i, e)));
        }
        deps.sort_unstable();
        deps.dedup();
        deps
    }

    /// Calls `f(eqs, writes, reads)` for each block in order: its equations with their
    /// offsets, the variables it writes and those it reads with their orders, each list
    /// increasing (`var_block` from [`Packed::var_block`]).
    pub fn for_each_block<G: Weighted + ?Sized>(
        &self,
        sigma: &G,
        var_block: &[u32],
        f: &mut dyn FnMut(&Entries, &Entries, &Entries),
    ) {
        // The equations grouped by block (a counting sort: each group increasing).
        let mut start = vec![0u32; self.count + 1];
        for &b in &self.block {
            start[b as usize + 1] += 1;
        }
        for b in 0..self.count {
            start[b + 1] += start[b];
        }
        let mut members = vec![0u32; self.block.len()];
        let mut next = start.clone();
        for (i, &b) in self.block.iter().enumerate() {
            members[next[b as usize] as usize] = i as u32;
            next[b as usize] += 1;
        }
        drop(next);
        let (mut eqs, mut writes, mut reads) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..self.count {
            for &i in &members[start[b] as usize..start[b + 1] as usize] {
                let i = i as usize;
                eqs.push((i as u32, self.c[i]));
                let j = self.matching[i];
                writes.push((j, self.d[j as usize]));
                for (j, s) in sigma.entries(i) {
                    if var_block[j] as usize != b {
                        reads.push((j as u32, (s + i64::from(self.c[i])).max(0) as u32));
                    }
                }
            }
            writes.sort_unstable();
            // Each read variable once, at its highest order (the last after sorting).
            reads.sort_unstable();
            reads.reverse();
            reads.dedup_by_key(|r| r.0);
            reads.reverse();
            f(&eqs, &writes, &reads);
            eqs.clear();
            writes.clear();
            reads.clear();
        }
    }

    /// The structure as lists.
    pub fn structure<G: Weighted + ?Sized>(self, sigma: &G) -> ModeStructure {
        let var_block = self.var_block();
        let deps = self.deps(sigma, &var_block);
        let mut blocks = Vec::with_capacity(self.count);
        self.for_each_block(sigma, &var_block, &mut |eqs, writes, reads| {
            let list = |l: &[(u32, u32)]| SmallList::from(l.to_vec());
            blocks.push(BlockInstance { eqs: list(eqs), writes: list(writes), reads: list(reads) });
        });
        let Packed { matching, c, d, .. } = self;
        ModeStructure { matching, c, d, blocks, deps }
    }
}

/// Pryce's fixpoint: c = 0; repeat d_j = max_i(σ_ij + c_i); c_i = d_{m(i)} − σ_{i,m(i)}.
fn offsets<G: Weighted + ?Sized>(sigma: &G, matching: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = sigma.len();
    // σ of each equation's matched entry (of parallel entries the largest).
    let matched: Vec<i64> = (0..n)
        .map(|i| {
            let j = matching[i] as usize;
            sigma.entries(i).filter(|e| e.0 == j).map(|e| e.1).max().unwrap_or(0)
        })
        .collect();
    let mut c = vec![0i64; n];
    let mut d = vec![0i64; n];
    // Terminates for a maximum-weight perfect matching (Pryce); the bound is a safeguard.
    let top = (0..n).flat_map(|i| sigma.entries(i)).map(|e| e.1.unsigned_abs() as usize).max().unwrap_or(0);
    let bound = 4 * (n + 1) * (top + 1);
    for _ in 0..=bound {
        d.iter_mut().for_each(|x| *x = i64::MIN);
        for (i, &ci) in c.iter().enumerate() {
            for (j, s) in sigma.entries(i) {
                d[j] = d[j].max(s + ci);
            }
        }
        let mut changed = false;
        for i in 0..n {
            let next = d[matching[i] as usize] - matched[i];
            changed |= next != c[i];
            c[i] = next;
        }
        if !changed {
            break;
        }
    }
    // Made `u32` one at a time, the rest freed first (issue 15).
    drop(matched);
    let as_u32 = |v: Vec<i64>| -> Vec<u32> { v.iter().map(|&x| x.max(0) as u32).collect() };
    let c = as_u32(c);
    (c, as_u32(d))
}

/// The blocks' dependency graph, reversed, as successor lists (`start`, `succ`): equation
/// i → solver(j) for each of its saturated entries (i, j) off the matching (the graph's
/// edges are solver(j) → i).
fn dependencies<G: Weighted + ?Sized>(sigma: &G, matching: &[u32], c: &[u32], d: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = sigma.len();
    let mut solver = vec![0u32; n];
    for (i, &j) in matching.iter().enumerate() {
        solver[j as usize] = i as u32;
    }
    let saturated = |i: usize, j: usize, s: i64| j != matching[i] as usize && s + i64::from(c[i]) == i64::from(d[j]);
    let mut start: Vec<u32> = Vec::with_capacity(n + 1);
    start.push(0);
    for i in 0..n {
        start.push(start[i] + sigma.entries(i).filter(|&(j, s)| saturated(i, j, s)).count() as u32);
    }
    let mut succ: Vec<u32> = Vec::with_capacity(start[n] as usize);
    for i in 0..n {
        succ.extend(sigma.entries(i).filter(|&(j, s)| saturated(i, j, s)).map(|(j, _)| solver[j]));
    }
    (start, succ)
}

/// The blocks: the strongly connected components of the dependency graph
/// ([`dependencies`]: those of the reversed graph are the same), each equation's block,
/// numbered by their smallest equation, and their number.
fn components((start, succ): (Vec<u32>, Vec<u32>)) -> (Vec<u32>, usize) {
    let (mut block, count) = component_of(&start, &succ);
    drop((start, succ));
    // Renumbered by their smallest equation.
    const NONE: u32 = u32::MAX;
    let mut rank = vec![NONE; count];
    let mut next = 0;
    for b in &mut block {
        if rank[*b as usize] == NONE {
            rank[*b as usize] = next;
            next += 1;
        }
        *b = rank[*b as usize];
    }
    (block, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::matching::Graph;

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
