//! The primal problem of one irreducible block of the union graph by its structural
//! classes: the valid modes are split by the existence χ_E and the order σ of each of the
//! block's edges, so that the block's incidence and weights are constant on each part,
//! and each part is solved once by the single-mode maximum-weight perfect matching
//! ([`max_weight_perfect_matching`]). T_e is the union of the parts where e is matched.
//!
//! Why: the dynamic programme of [`super::optimal`] is exponential in the width of the
//! block at a cut of the variable order (the rows and columns open on both sides). Fluid
//! models of the Standard Library have irreducible blocks of hundreds of equations whose
//! connection sets no order makes narrow (Modelica.Fluid.Examples.HeatingSystem: a block
//! of 701 edges, cut width 180; the programme's levels doubled every few edges and ran
//! for minutes), while their flow-direction atoms change only a few edges each: a handful
//! of structural classes. The paper's families are the opposite (Westinghouse: 2^N classes
//! in one narrow block), so the classes are tried under a budget (after the factored split,
//! [`super::factors`], whose leaves unite classes) and the programme
//! runs where they exceed it.
//!
//! The split refines the parts edge by edge in the block's order: after the last edge the
//! parts are exactly the non-empty classes of (χ_E, σ) vectors, so the number of parts
//! never exceeds the number of classes and the budget is checked as they grow. Before it,
//! [`class_count`] decides from independent parts of the mode space whether the classes
//! exceed the limit (the paper's families: exponentially many in N), so that such a block goes to the
//! programme without 16,384 parts built for nothing.
//! Deterministic: the parts and the matching are functions of the input only. In each
//! part the matching is a maximum-weight one, not necessarily the least in the variable
//! order that the programme keeps; every later step (Pryce's dual, the blocks, their
//! conditions) depends only on the matching being of maximum weight.

use super::class_count;
use super::ops::{and, and_not, or_all};
use super::{Encoding, Stats};
use crate::analysis::matching::{Graph, max_weight_perfect_matching};
use biodivine_lib_bdd::{Bdd, BddVariableSet};
use std::collections::HashMap;

/// At most this many structural classes per block are solved one by one.
pub const CLASS_LIMIT: usize = 16384;

/// (∃E_b.X_b, T_e for each of `edges`) from the structural classes of the block inside
/// the valid modes, or `None` when it has more than [`CLASS_LIMIT`] of them.
pub(super) fn solve_block(enc: &Encoding, edges: &[usize], stats: &mut Stats) -> Option<(Bdd, Vec<Bdd>)> {
    if stats.no_classes {
        return None;
    }
    let set = enc.set();
    let split = split(enc, edges, stats)?;
    // Local indices of the block's equations and variables.
    let mut eqs: Vec<usize> = edges.iter().map(|&k| enc.edges[k].eq).collect();
    let mut vars: Vec<usize> = edges.iter().map(|&k| enc.edges[k].var).collect();
    eqs.sort_unstable();
    eqs.dedup();
    vars.sort_unstable();
    vars.dedup();
    let row = |k: usize| eqs.binary_search(&enc.edges[k].eq).expect("the edge's equation is in the block");
    let col = |k: usize| vars.binary_search(&enc.edges[k].var).expect("the edge's variable is in the block");
    // Per class with a perfect matching: its modes and the positions it matches.
    let mut found: Vec<(&Bdd, Vec<u32>)> = Vec::new();
    for part in &split.parts {
        let sigma = split.sigma(part);
        // The block's graph in this class: the edges that exist, weighted by σ.
        let mut graph: Graph = vec![Vec::new(); eqs.len()];
        let mut at: Vec<Vec<usize>> = vec![Vec::new(); eqs.len()];
        for (p, &k) in edges.iter().enumerate() {
            if let Some(sigma) = sigma[p] {
                graph[row(k)].push((col(k), i64::from(sigma)));
                at[row(k)].push(p);
            }
        }
        if eqs.len() != vars.len() {
            continue;
        }
        let Some(matched) = max_weight_perfect_matching(&graph) else { continue };
        let chosen = matched
            .iter()
            .enumerate()
            .map(|(r, &c)| {
                let i = graph[r].iter().position(|&(j, _)| j == c as usize).expect("a matched edge exists");
                at[r][i] as u32
            })
            .collect();
        found.push((&part.modes, chosen));
    }
    let exists = or_all(found.iter().map(|&(m, _)| m.clone()).collect()).unwrap_or_else(|| set.mk_false());
    let leaves: Vec<(&Bdd, &[u32])> = found.iter().map(|(m, c)| (*m, c.as_slice())).collect();
    let picked = picked(set, edges.len(), &leaves);
    stats.see(&exists);
    stats.see_all(&picked);
    Some((exists, picked))
}

/// T_e per position of a block's `n` edges from its leaves (modes, positions matched):
/// the union of the modes of the leaves that match e. Edges matched by the same leaves
/// share one union (most are matched by every leaf of their sub-block), each union
/// pairwise ([`or_all`]): one union per leaf and matched edge, one by one, was most of
/// the `--check` of a rewritten ThreeTanks output (thousands of classes × its rows) and
/// a sixth of the factored split's time on BatchPlant_StandardWater (1,095 leaves).
pub(super) fn picked(set: &BddVariableSet, n: usize, leaves: &[(&Bdd, &[u32])]) -> Vec<Bdd> {
    let mut leaves_of: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (l, (_, chosen)) in leaves.iter().enumerate() {
        for &p in *chosen {
            leaves_of[p as usize].push(l as u32);
        }
    }
    // Keyed by the list of leaves; the union is a function of the key (deterministic).
    let mut union: HashMap<&[u32], Bdd> = HashMap::new();
    leaves_of
        .iter()
        .map(|ls| {
            union
                .entry(ls.as_slice())
                .or_insert_with(|| {
                    or_all(ls.iter().map(|&l| leaves[l as usize].0.clone()).collect()).unwrap_or_else(|| set.mk_false())
                })
                .clone()
        })
        .collect()
}

/// Valid modes where the block's incidence and orders are constant.
struct Part {
    modes: Bdd,
    /// σ of each distinct signature of the varying edges ([`Split::signature_of`]) in
    /// these modes, `None` where its edges do not exist.
    sigma: Vec<Option<u32>>,
}

/// The structural classes of a block: σ of its edges (by position), `None` where the
/// edge does not exist; the parts give the edges that vary.
struct Split {
    /// σ of each edge in every valid mode; for a varying edge, a placeholder.
    constant: Vec<Option<u32>>,
    /// Positions of the edges whose existence or order varies over the valid modes.
    varying: Vec<usize>,
    /// For each varying edge, its signature: edges with the same existence χ_E and the
    /// same σ by value split every set of modes alike, so the parts are refined once per
    /// signature (a rewritten ThreeTanks output: 1,890 varying edges, 72 signatures).
    signature_of: Vec<usize>,
    parts: Vec<Part>,
}

impl Split {
    /// σ of every edge of the block in `part`.
    fn sigma(&self, part: &Part) -> Vec<Option<u32>> {
        let mut out = self.constant.clone();
        for (&p, &g) in self.varying.iter().zip(&self.signature_of) {
            out[p] = part.sigma[g];
        }
        out
    }
}

/// The non-empty pieces of `modes` by the edge `k`: absent, then present by value of σ.
pub(super) fn pieces(enc: &Encoding, k: usize, values: &[(u32, Bdd)], modes: &Bdd) -> Vec<(Option<u32>, Bdd)> {
    pieces_where(enc, k, values, modes, &|b| !b.is_false())
}

/// [`pieces`] for sets of modes held modulo a care set: a piece is kept if `nonempty`.
pub(super) fn pieces_where(
    enc: &Encoding,
    k: usize,
    values: &[(u32, Bdd)],
    modes: &Bdd,
    nonempty: &dyn Fn(&Bdd) -> bool,
) -> Vec<(Option<u32>, Bdd)> {
    let e = &enc.edges[k];
    let mut out = Vec::new();
    let absent = and_not(modes, &e.active);
    if nonempty(&absent) {
        out.push((None, absent));
    }
    let present = and(modes, &e.active);
    if nonempty(&present) {
        for (s, m) in values {
            let here = and(&present, m);
            if nonempty(&here) {
                out.push((Some(*s), here));
            }
        }
    }
    out
}

/// The structural classes of the block inside the valid modes, or `None` past the limit.
/// Only the edges that vary over the valid modes split parts or are stored per part (on
/// the Westinghouse brake a few per valve: the split gives up after about log2 of the
/// limit valves, in little time and memory).
fn split(enc: &Encoding, edges: &[usize], stats: &mut Stats) -> Option<Split> {
    let set = enc.set();
    let mut constant = Vec::with_capacity(edges.len());
    let mut varying = Vec::new();
    let mut signature_of = Vec::new();
    // One representative edge and its values per signature, numbered in the block's order
    // (the map only finds the number: deterministic).
    let mut signatures: Vec<(usize, Vec<(u32, Bdd)>)> = Vec::new();
    let mut number: HashMap<(Bdd, Vec<(u32, Bdd)>), usize> = HashMap::new();
    for (p, &k) in edges.iter().enumerate() {
        let values = enc.edges[k].sigma.partition(&set.mk_true(), set);
        match pieces(enc, k, &values, &enc.valid).as_slice() {
            [] => constant.push(None),
            [(s, _)] => constant.push(*s),
            _ => {
                constant.push(None);
                varying.push(p);
                let key = (enc.edges[k].active.clone(), values);
                let g = *number.entry(key.clone()).or_insert_with(|| {
                    signatures.push((k, key.1));
                    signatures.len() - 1
                });
                signature_of.push(g);
            }
        }
    }
    if !enc.valid.is_false() && class_count::exceeds(enc, &signatures) {
        return None;
    }
    let mut parts = vec![Part { modes: enc.valid.clone(), sigma: Vec::with_capacity(signatures.len()) }];
    if enc.valid.is_false() {
        parts.clear();
    }
    for (k, values) in &signatures {
        let mut next = Vec::with_capacity(parts.len());
        for mut part in parts {
            let pieces = pieces(enc, *k, values, &part.modes);
            if let [(s, _)] = pieces.as_slice() {
                part.sigma.push(*s);
                next.push(part);
                continue;
            }
            for (s, modes) in pieces {
                stats.see(&modes);
                let mut sigma = part.sigma.clone();
                sigma.push(s);
                next.push(Part { modes, sigma });
            }
            if next.len() > CLASS_LIMIT {
                return None;
            }
        }
        parts = next;
    }
    Some(Split { constant, varying, signature_of, parts })
}
