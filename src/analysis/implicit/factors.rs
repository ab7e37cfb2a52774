//! The primal problem of one irreducible block of the union graph by its structural
//! classes taken factor by factor: where [`super::classes`] enumerates the classes of the
//! whole block (the product of every varying edge's choices), this splits the valid modes
//! one signature at a time and decomposes again after each split, so that sub-blocks that
//! have become independent are split on their own and their choices are never multiplied.
//!
//! Why: a block that is irreducible over the union of all modes falls apart in each mode.
//! The rewritten output of a model is the extreme case: each block part is guarded by its
//! condition (`if c then f(x) = 0 else x = 0`) and a multiplexer reads the replicates of
//! every writer, so over all modes the parts close one large cycle, while under a fixed
//! condition the parts outside it are trivial and the rest decouples. A rewritten
//! TanksWithOverflow: one block of 236 equations, 680 edges, 32 signatures over 18 mode
//! variables, more than 16,384 classes (`classes` gives up) and a dynamic programme over
//! its budget (`optimal`): 22 mode variables and atoms refused at `--check`.
//!
//! Exactness, at each node (a set of modes M and a set S of edges of the block): every
//! perfect matching of a mode of M uses only edges of S that exist somewhere in M, so it is
//! a perfect matching of the union graph H_M of those edges. By Dulmage–Mendelsohn the
//! perfect matchings of H_M are the products of those of its irreducible blocks, and the
//! edges between blocks are in none (the argument of [`super::primal`], on M instead of all
//! modes). Hence in every mode of M the maximum-weight perfect matchings of S are the
//! products of those of the sub-blocks, each solved on its own: a sub-block whose edges
//! all have a constant existence and order on M is one matching problem
//! ([`min_cost_assignment`] on the negated weights); otherwise M is split by the pieces of one of its
//! signatures (existence, then σ by value: the split of `classes`) and each piece is solved
//! again. If H_M has no perfect matching, no mode of M has one. The leaves partition the
//! modes per sub-block, so ∃E_b.X_b is the conjunction over sub-blocks of the union of
//! their leaves that have a matching, and T_e the union of the leaves where e is matched.
//!
//! Modulo the valid modes ([`super::modulo`]): the sets of modes M are held without the
//! valid modes conjoined (O(N) nodes on the compressible building, where the split gives
//! up only after 16 visits per edge: each of them held the pieces of every signature, 357
//! MB at N = 300 and 4.8 GB at N = 1000); every piece is tested for a valid mode exactly,
//! so the nodes, splits and leaves are those of the split inside the valid modes.
//!
//! Deterministic: the split signature is the one with the most varying edges in the
//! sub-block (the first in the block's order on ties); the sub-blocks are taken in the
//! order of their first equation. Under a budget of leaves, of edges visited and of nested
//! splits ([`LEAF_LIMIT`]; [`Budget::first`]: [`VISIT_LIMIT`] per edge of the block,
//! [`FIRST_DEPTH`]); past it the block goes to the programme of [`super::optimal`]. Where
//! that is over its trial budget too, the split makes a last attempt with more visits but a
//! bounded depth of nested splits ([`Budget::last_resort`]) before the model is refused: a
//! block whose splits never make it fall apart (the paper's families) is one of 2^depth
//! leaves, one whose choices are few is decided (BatchPlant_StandardWater: 1,095 leaves,
//! 1.5·10^6 visits, about 1 s).

use super::classes::{picked, pieces_where};
use super::modulo::CareSet;
use super::ops::{and, or};
use super::{Encoding, Stats};
use crate::analysis::dm::fine_blocks;
use crate::analysis::matching::{Graph, min_cost_assignment};
use biodivine_lib_bdd::Bdd;
use std::collections::HashMap;

/// At most this many leaves (single matching problems) per block.
pub const LEAF_LIMIT: usize = 16384;

/// At most this many edges visited per edge of the block, summed over the nodes (each
/// node builds the graph of its edges and decomposes it), before the programme of
/// [`super::optimal`] is tried. A block that never falls apart (the Westinghouse brake,
/// where each valve's two branches close cycles along the whole train) gives up after
/// about this many nodes of the whole block, a few microseconds per edge each: with
/// 2·10^6 visits in all, Westinghouse N = 50 spent 8 s here before the programme (1.4 s)
/// decided it. The rewritten outputs this is for take one node (TanksWithOverflow,
/// HeatLosses).
pub const VISIT_LIMIT: usize = 16;

/// The deepest nesting of splits the first attempt follows. A block that never falls
/// apart is split along its first path until the visits run out, each node the whole
/// block: 16 nested splits on the Westinghouse brake and the compressible building at any
/// N (at N = 1000, 2.2 s of the building's 18 s analysis before the programme decides).
/// Every first attempt that succeeds on the fixtures, the corpus and the campaign's
/// 10,000 models nests at most 4 splits (3,071 blocks: 3,048 with none); so this limit
/// changes no verdict there and gives such blocks up after 7 nodes.
pub const FIRST_DEPTH: usize = 6;

/// The visits allowed to the last attempt, made where the programme is over its own
/// budget and the model would otherwise be refused (whatever the block's size; at least
/// [`VISIT_LIMIT`] per edge).
pub const RESORT_VISITS: usize = 4_000_000;

/// The deepest nesting of splits the last attempt follows: a split that does not make
/// the block fall apart leaves it whole in each piece, so a path of d such splits is
/// one of up to 2^d leaves (Westinghouse and the building of paper 002: one split per
/// valve or door along the first path, d ≈ N). BatchPlant_StandardWater: 9 nested
/// binary splits of its block of 2,087 edges (71 signatures), 1,095 leaves.
pub const DEPTH_LIMIT: usize = 14;

/// How much of the factored split one block may take.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    /// Edges visited, summed over the nodes.
    visits: usize,
    /// Nested splits on one path.
    depth: usize,
}

impl Budget {
    /// Before the programme: [`VISIT_LIMIT`] per edge of the block, [`FIRST_DEPTH`] nested
    /// splits.
    pub fn first(edges: usize) -> Self {
        Budget { visits: VISIT_LIMIT * edges, depth: FIRST_DEPTH }
    }

    /// After the programme is over its budget, before the model is refused:
    /// [`RESORT_VISITS`] and [`DEPTH_LIMIT`].
    pub fn last_resort(edges: usize) -> Self {
        Budget { visits: RESORT_VISITS.max(VISIT_LIMIT * edges), depth: DEPTH_LIMIT }
    }
}

/// The value of an edge on a set of modes: absent, or present with σ.
type Value = Option<u32>;

/// (∃E_b.X_b, T_e for each of `edges`), both modulo the valid modes, or `None` past
/// the budget.
pub(super) fn solve_block(
    enc: &Encoding,
    edges: &[usize],
    budget: Budget,
    stats: &mut Stats,
) -> Option<(Bdd, Vec<Bdd>)> {
    if stats.no_classes {
        return None;
    }
    let mut solver = Solver::new(enc, edges, budget);
    let all: Vec<usize> = (0..edges.len()).collect();
    let fixed = vec![None; solver.signatures.len()];
    let exists = solver.solve(&enc.set().mk_true(), &all, fixed, 0, stats)?;
    let picked = solver.picked();
    stats.see(&exists);
    stats.see_all(&picked);
    Some((exists, picked))
}

struct Solver<'a> {
    enc: &'a Encoding<'a>,
    edges: &'a [usize],
    /// Per position: the constant value over the valid modes, or the signature.
    kind: Vec<Kind>,
    /// Per signature: a representative edge and σ by value (over all modes).
    signatures: Vec<(usize, Vec<(u32, Bdd)>)>,
    /// Per position: the rank of its equation and of its variable among the block's
    /// (by index), so that local rows and columns keep the order of the indices.
    rank: Vec<(u32, u32)>,
    /// Scratch of [`Solver::local`]: per rank, its local row and column.
    slot: (Vec<u32>, Vec<u32>),
    /// Per leaf: its modes and the positions of the edges it matches.
    found: Vec<(Bdd, Vec<u32>)>,
    budget: Budget,
    leaves: usize,
    visited: usize,
    /// The valid modes: every set of modes here is held modulo them ([`super::modulo`]),
    /// so a piece is as small as the edges it splits by, not O(N) like the valid modes.
    valid: CareSet,
}

#[derive(Clone, Copy)]
enum Kind {
    Constant(Value),
    Varying(usize),
}

impl<'a> Solver<'a> {
    fn new(enc: &'a Encoding<'a>, edges: &'a [usize], budget: Budget) -> Self {
        let set = enc.set();
        let mut kind = Vec::with_capacity(edges.len());
        let mut signatures: Vec<(usize, Vec<(u32, Bdd)>)> = Vec::new();
        // The map only finds a signature's number (numbered in the block's order).
        let mut number: HashMap<(Bdd, Vec<(u32, Bdd)>), usize> = HashMap::new();
        let valid = CareSet::new(&enc.valid);
        for &k in edges {
            let values = enc.edges[k].sigma.partition(&set.mk_true(), set);
            match pieces_where(enc, k, &values, &set.mk_true(), &|b| valid.meets(b)).as_slice() {
                [] => kind.push(Kind::Constant(None)),
                [(s, _)] => kind.push(Kind::Constant(*s)),
                _ => {
                    let key = (enc.edges[k].active.clone(), values);
                    let g = *number.entry(key.clone()).or_insert_with(|| {
                        signatures.push((k, key.1));
                        signatures.len() - 1
                    });
                    kind.push(Kind::Varying(g));
                }
            }
        }
        let ranks = |of: &dyn Fn(usize) -> usize| -> (Vec<u32>, usize) {
            let mut sorted: Vec<usize> = edges.iter().map(|&k| of(k)).collect();
            sorted.sort_unstable();
            sorted.dedup();
            let rank = edges.iter().map(|&k| sorted.binary_search(&of(k)).expect("listed") as u32).collect();
            (rank, sorted.len())
        };
        let (rows, n_rows) = ranks(&|k| enc.edges[k].eq);
        let (cols, n_cols) = ranks(&|k| enc.edges[k].var);
        let rank = rows.into_iter().zip(cols).collect();
        let slot = (vec![0; n_rows], vec![0; n_cols]);
        Solver { enc, edges, kind, signatures, rank, slot, found: Vec::new(), budget, leaves: 0, visited: 0, valid }
    }

    /// The modes of `modes` where the edges `sub` (positions) have a perfect matching,
    /// recording the matched edges of every leaf in `found`; `fixed[g]`: the value of
    /// signature g on `modes` where a split above fixed it; `depth`: the splits above.
    /// `None` past the budget.
    fn solve(
        &mut self,
        modes: &Bdd,
        sub: &[usize],
        mut fixed: Vec<Option<Value>>,
        depth: usize,
        stats: &mut Stats,
    ) -> Option<Bdd> {
        self.visited += sub.len();
        if self.visited > self.budget.visits || depth > self.budget.depth || stats.over_limit {
            return None;
        }
        // The value of every edge on `modes` (`None` in `varying`: it still varies).
        let mut pieces_of: HashMap<usize, Vec<(Value, Bdd)>> = HashMap::new();
        let mut value: Vec<Option<Value>> = Vec::with_capacity(sub.len());
        for &p in sub {
            value.push(match self.kind[p] {
                Kind::Constant(v) => Some(v),
                Kind::Varying(g) => {
                    if fixed[g].is_none() && !pieces_of.contains_key(&g) {
                        let (k, values) = &self.signatures[g];
                        let ps = pieces_where(self.enc, *k, values, modes, &|b| self.valid.meets(b));
                        match ps.as_slice() {
                            [(v, _)] => fixed[g] = Some(*v),
                            [] => fixed[g] = Some(None),
                            _ => drop(pieces_of.insert(g, ps)),
                        }
                    }
                    fixed[g]
                }
            });
        }
        // H_M: the edges present somewhere in `modes`.
        let present: Vec<usize> = (0..sub.len()).filter(|&q| value[q] != Some(None)).collect();
        let set = self.enc.set();
        let blocks = if present.len() == sub.len() {
            // `sub` is an irreducible block of the graph above (or the whole block): the
            // same graph, the same single block.
            vec![present]
        } else {
            // Rows and columns of every edge of `sub`: one with no edge left on `modes`
            // leaves the graph without a perfect matching.
            let (at, n_rows, n_cols) = self.local(sub);
            let mut graph: Graph = vec![Vec::new(); n_rows];
            for &q in &present {
                graph[at[q].0].push((at[q].1, 0));
            }
            let Some(fine) = fine_blocks(&graph, n_cols) else { return Some(set.mk_false()) };
            let mut blocks: Vec<Vec<usize>> = vec![Vec::new(); fine.count];
            for &q in &present {
                let (r, c) = at[q];
                if fine.eq_block[r] == fine.var_block[c] {
                    blocks[fine.eq_block[r]].push(q);
                }
            }
            blocks.sort_by_key(|b| b.first().copied());
            blocks
        };
        let mut exists = modes.clone();
        for block in blocks.iter().filter(|b| !b.is_empty()) {
            self.leaves += usize::from(block.len() > 1);
            if self.leaves > LEAF_LIMIT {
                return None;
            }
            let here = match self.robust(modes, block, sub, &value, &pieces_of) {
                Ok(here) => here,
                Err(g) => {
                    let mut here = set.mk_false();
                    let ps = pieces_of.get(&g).expect("a varying signature has pieces").clone();
                    let inner: Vec<usize> = block.iter().map(|&q| sub[q]).collect();
                    for (v, piece) in ps {
                        let mut fixed = fixed.clone();
                        fixed[g] = Some(v);
                        let found = self.solve(&piece, &inner, fixed, depth + 1, stats)?;
                        here = or(&here, &found);
                        stats.see(&here);
                    }
                    here
                }
            };
            exists = and(&exists, &here);
            if !self.valid.meets(&exists) {
                break;
            }
        }
        Some(exists)
    }

    /// A matching of `block` that is of maximum weight in every mode of `modes`: one of
    /// maximum weight on the union of the block's edges over `modes`, each weighted by its
    /// largest σ there, that uses only edges present with one σ in all of `modes` (then in
    /// every mode its weight is the union's optimum, which bounds every matching of the
    /// mode). Among the union's optima the one with the most such edges is sought; if it
    /// still uses a varying edge, `Err` names the signature to split by: of the matched
    /// varying edges, the signature with the most varying edges in the block (the first on
    /// ties).
    fn robust(
        &mut self,
        modes: &Bdd,
        block: &[usize],
        sub: &[usize],
        value: &[Option<Value>],
        pieces_of: &HashMap<usize, Vec<(Value, Bdd)>>,
    ) -> Result<Bdd, usize> {
        let inner: Vec<usize> = block.iter().map(|&q| sub[q]).collect();
        let (local, n_rows, _) = self.local(&inner);
        let scale = n_rows as i64 + 1;
        let mut graph: Graph = vec![Vec::new(); n_rows];
        let mut at: Vec<Vec<usize>> = vec![Vec::new(); n_rows];
        let mut count: Vec<usize> = vec![0; self.signatures.len()];
        for (&q, &(r, c)) in block.iter().zip(&local) {
            let weight = match (value[q], self.kind[sub[q]]) {
                (Some(v), _) => i64::from(v.expect("an edge of a block is present")) * scale + 1,
                (None, Kind::Varying(g)) => {
                    count[g] += 1;
                    let ps = &pieces_of[&g];
                    i64::from(ps.iter().filter_map(|(v, _)| *v).max().expect("present in some mode")) * scale
                }
                (None, Kind::Constant(_)) => unreachable!("a constant edge has its value"),
            };
            graph[r].push((c, weight));
            at[r].push(q);
        }
        // The block is irreducible: one assignment problem (what `max_weight_perfect_matching`
        // solves per irreducible block), rows by column, costs the negated weights.
        let mut costs: Vec<Vec<(usize, i64)>> = Vec::with_capacity(n_rows);
        for (row, at) in graph.iter().zip(&mut at) {
            let mut both: Vec<((usize, i64), usize)> = row.iter().copied().zip(at.iter().copied()).collect();
            both.sort_unstable_by_key(|&((c, w), _)| (c, -w));
            costs.push(both.iter().map(|&((c, w), _)| (c, -w)).collect());
            *at = both.iter().map(|&(_, q)| q).collect();
        }
        let matched = min_cost_assignment(&costs).expect("a block of the union has a perfect matching");
        let chosen: Vec<usize> = matched
            .iter()
            .enumerate()
            .map(|(r, &c)| at[r][costs[r].iter().position(|&(j, _)| j == c as usize).expect("a matched edge exists")])
            .collect();
        let split = chosen
            .iter()
            .filter_map(|&q| match (value[q], self.kind[sub[q]]) {
                (None, Kind::Varying(g)) => Some(g),
                _ => None,
            })
            .max_by_key(|&g| (count[g], std::cmp::Reverse(g)));
        if let Some(g) = split {
            return Err(g);
        }
        self.found.push((modes.clone(), chosen.iter().map(|&q| sub[q] as u32).collect()));
        Ok(modes.clone())
    }

    /// T_e per position ([`super::classes::picked`]).
    fn picked(&self) -> Vec<Bdd> {
        let leaves: Vec<(&Bdd, &[u32])> = self.found.iter().map(|(m, c)| (m, c.as_slice())).collect();
        picked(self.enc.set(), self.edges.len(), &leaves)
    }

    /// Local (row, column) of each edge of `positions`, rows and columns numbered in the
    /// order of the indices of their equations and variables, and the numbers of rows
    /// and of columns.
    fn local(&mut self, positions: &[usize]) -> (Vec<(usize, usize)>, usize, usize) {
        let mut rows: Vec<u32> = positions.iter().map(|&p| self.rank[p].0).collect();
        let mut cols: Vec<u32> = positions.iter().map(|&p| self.rank[p].1).collect();
        for (ranks, slot) in [(&mut rows, &mut self.slot.0), (&mut cols, &mut self.slot.1)] {
            ranks.sort_unstable();
            ranks.dedup();
            for (k, &r) in ranks.iter().enumerate() {
                slot[r as usize] = k as u32;
            }
        }
        let (row, col) = &self.slot;
        let at = positions
            .iter()
            .map(|&p| {
                let (r, c) = self.rank[p];
                (row[r as usize] as usize, col[c as usize] as usize)
            })
            .collect();
        (at, rows.len(), cols.len())
    }
}
