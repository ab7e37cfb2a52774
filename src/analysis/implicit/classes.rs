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
//! in one narrow block), so the classes are tried first under a budget and the programme
//! runs where they exceed it.
//!
//! The split refines the parts edge by edge in the block's order: after the last edge the
//! parts are exactly the non-empty classes of (χ_E, σ) vectors, so the number of parts
//! never exceeds the number of classes and the budget is checked as they grow.
//! Deterministic: the parts and the matching are functions of the input only. In each
//! part the matching is a maximum-weight one, not necessarily the least in the variable
//! order that the programme keeps; every later step (Pryce's dual, the blocks, their
//! conditions) depends only on the matching being of maximum weight.

use super::ops::{and, and_not, or};
use super::{Encoding, Stats};
use crate::analysis::matching::{Graph, max_weight_perfect_matching};
use biodivine_lib_bdd::Bdd;

/// At most this many structural classes per block are solved one by one.
pub const CLASS_LIMIT: usize = 512;

/// (∃E_b.X_b, T_e for each of `edges`) from the structural classes of the block inside
/// the valid modes, or `None` when it has more than [`CLASS_LIMIT`] of them.
pub(super) fn solve_block(enc: &Encoding, edges: &[usize], stats: &mut Stats) -> Option<(Bdd, Vec<Bdd>)> {
    let set = enc.set();
    let parts = split(enc, edges, stats)?;
    // Local indices of the block's equations and variables.
    let mut eqs: Vec<usize> = edges.iter().map(|&k| enc.edges[k].eq).collect();
    let mut vars: Vec<usize> = edges.iter().map(|&k| enc.edges[k].var).collect();
    eqs.sort_unstable();
    eqs.dedup();
    vars.sort_unstable();
    vars.dedup();
    let row = |k: usize| eqs.binary_search(&enc.edges[k].eq).expect("the edge's equation is in the block");
    let col = |k: usize| vars.binary_search(&enc.edges[k].var).expect("the edge's variable is in the block");
    let mut exists = set.mk_false();
    let mut picked = vec![set.mk_false(); edges.len()];
    for part in &parts {
        // The block's graph in this class: the edges that exist, weighted by σ.
        let mut graph: Graph = vec![Vec::new(); eqs.len()];
        let mut at: Vec<Vec<usize>> = vec![Vec::new(); eqs.len()];
        for (p, &k) in edges.iter().enumerate() {
            if let Some(sigma) = part.sigma[p] {
                graph[row(k)].push((col(k), i64::from(sigma)));
                at[row(k)].push(p);
            }
        }
        if eqs.len() != vars.len() {
            continue;
        }
        let Some(matched) = max_weight_perfect_matching(&graph) else { continue };
        exists = or(&exists, &part.modes);
        for (r, &c) in matched.iter().enumerate() {
            let p = graph[r].iter().position(|&(j, _)| j == c).map(|i| at[r][i]).expect("a matched edge exists");
            picked[p] = or(&picked[p], &part.modes);
        }
    }
    stats.see(&exists);
    stats.see_all(&picked);
    Some((exists, picked))
}

/// Valid modes where the block's incidence and orders are constant, with σ per edge.
struct Part {
    modes: Bdd,
    /// σ of each edge of the block (by position in `edges`) in these modes, `None` where
    /// the edge does not exist.
    sigma: Vec<Option<u32>>,
}

/// The structural classes of the block inside the valid modes, or `None` past the limit.
fn split(enc: &Encoding, edges: &[usize], stats: &mut Stats) -> Option<Vec<Part>> {
    let set = enc.set();
    let mut parts = vec![Part { modes: enc.valid.clone(), sigma: Vec::with_capacity(edges.len()) }];
    for &k in edges {
        let e = &enc.edges[k];
        // σ by value where the edge exists; 0 where it does not (a constant in most edges).
        let values = e.sigma.partition(&set.mk_true(), set);
        let mut next = Vec::with_capacity(parts.len());
        for mut part in parts {
            // The non-empty pieces of the part: absent, then present by value of σ.
            let mut pieces: Vec<(Option<u32>, Bdd)> = Vec::new();
            let absent = and_not(&part.modes, &e.active);
            if !absent.is_false() {
                pieces.push((None, absent));
            }
            let present = and(&part.modes, &e.active);
            if !present.is_false() {
                for (s, modes) in &values {
                    let here = and(&present, modes);
                    if !here.is_false() {
                        pieces.push((Some(*s), here));
                    }
                }
            }
            if pieces.len() == 1 {
                part.sigma.push(pieces[0].0);
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
    Some(parts)
}
