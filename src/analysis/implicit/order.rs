//! The variable order of the encoding (locality, paper 002 §4.3): BDD operations are fast
//! when variables that interact sit close together. Each equation brings its edge
//! variables; before them come the mode variables its incidence mentions that are not
//! placed yet; so the order is an order of the equations. Three candidates:
//! - source order (modellers write a room, a car, a component together);
//! - block by block of the fine Dulmage–Mendelsohn decomposition of the all-modes union
//!   graph (no perfect matching crosses two blocks, see `primal`), source order inside;
//! - the same with Cuthill–McKee inside a block (breadth first over "shares a variable",
//!   from an equation of least degree, neighbours by increasing degree): flattened
//!   connection sets, as omc prints them, are scattered in the source.
//!
//! The narrowest wins: the cut width of an order is, over the cuts between consecutive
//! equations, the (maximum, sum) of the unknowns and mode variables used on both sides —
//! what a BDD over that order must remember at the cut. Measured (`benches/scale.rs`,
//! series `implicit-source-order`): Cuthill–McKee cuts MSL ResonanceCircuits from
//! (125, 15253) to (75, 8488) and its analysis from 2.8 s to 0.2 s, but widens the
//! building of paper 002 from (17, 964) to (36, 1663) at N = 5 (0.3 s to over 60 s), where
//! source order is already a path decomposition (times measured with the bitwise arg-max
//! that `optimal` replaced; its programme also runs along this order, so narrow cuts still
//! matter). Ties keep the earlier candidate, so the order is deterministic.

use crate::analysis::dm::fine_blocks;
use crate::analysis::matching::Graph;
use crate::mdae::{EqId, Mdae};
use std::collections::VecDeque;

/// Which order the encoding uses (the scale benchmark measures both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// The narrowest of the candidates by cut width.
    #[default]
    Locality,
    /// Equations in source order.
    Source,
}

/// The equations in encoding order.
pub(super) fn equations(mdae: &Mdae, order: Order) -> Vec<usize> {
    let source: Vec<usize> = (0..mdae.equations.len()).collect();
    match order {
        Order::Source => source,
        Order::Locality => {
            let mut candidates = vec![source];
            candidates.extend(by_blocks(mdae));
            // The first of the narrowest (source order on ties): deterministic.
            candidates.into_iter().min_by_key(|o| cut_width(mdae, o)).expect("source order is a candidate")
        }
    }
}

/// (max, sum) over the cuts between consecutive equations of `order` of the number of
/// unknowns and mode variables used on both sides of the cut.
fn cut_width(mdae: &Mdae, order: &[usize]) -> (usize, usize) {
    let n = order.len();
    let mut span: std::collections::BTreeMap<(bool, usize), (usize, usize)> = Default::default();
    for (p, &i) in order.iter().enumerate() {
        let mut ms = Vec::new();
        for inc in mdae.incidence(EqId(i as u32)) {
            inc.when.modes(&mut ms);
            let e = span.entry((false, inc.var.index())).or_insert((p, p));
            e.1 = p;
        }
        for m in ms {
            let e = span.entry((true, m.index())).or_insert((p, p));
            e.1 = p;
        }
    }
    // +1 where an item opens, −1 where it closes; the running total is the cut's width.
    let mut delta = vec![0i64; n + 1];
    for &(a, b) in span.values() {
        delta[a] += 1;
        delta[b] -= 1;
    }
    let (mut cur, mut max, mut sum) = (0i64, 0i64, 0i64);
    for d in delta.iter().take(n) {
        cur += d;
        max = max.max(cur);
        sum += cur;
    }
    (max as usize, sum as usize)
}

/// The equations block by block of the fine decomposition of the union graph (blocks in
/// the order of their first equation): inside a block in source order, then breadth
/// first (Cuthill–McKee). No candidate without a perfect matching of the union graph.
fn by_blocks(mdae: &Mdae) -> Vec<Vec<usize>> {
    let n = mdae.equations.len();
    let union: Graph = mdae
        .eq_ids()
        .map(|e| {
            let mut vars: Vec<usize> = mdae.incidence(e).iter().map(|inc| inc.var.index()).collect();
            vars.sort_unstable();
            vars.dedup();
            vars.into_iter().map(|j| (j, 0)).collect()
        })
        .collect();
    let Some(fine) = fine_blocks(&union, mdae.vars.len()) else { return Vec::new() };
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); mdae.vars.len()];
    for (i, row) in union.iter().enumerate() {
        for &(j, _) in row {
            users[j].push(i);
        }
    }
    // Neighbours of an equation inside its block, by (degree, index).
    let degree = |i: usize| union[i].iter().map(|&(j, _)| users[j].len()).sum::<usize>();
    let neighbours = |i: usize| {
        let mut ns: Vec<usize> = union[i]
            .iter()
            .flat_map(|&(j, _)| users[j].iter().copied())
            .filter(|&k| k != i && fine.eq_block[k] == fine.eq_block[i])
            .collect();
        ns.sort_unstable_by_key(|&k| (degree(k), k));
        ns.dedup();
        ns
    };
    let mut by_block: Vec<Vec<usize>> = vec![Vec::new(); fine.count];
    for i in 0..n {
        by_block[fine.eq_block[i]].push(i);
    }
    // Blocks in the order of their first equation in the source.
    by_block.sort_unstable_by_key(|b| b[0]);
    let mut placed = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for block in &by_block {
        let mut rest: Vec<usize> = block.clone();
        rest.sort_unstable_by_key(|&i| (degree(i), i));
        for &start in &rest {
            if placed[start] {
                continue;
            }
            placed[start] = true;
            let mut queue = VecDeque::from([start]);
            while let Some(i) = queue.pop_front() {
                out.push(i);
                for k in neighbours(i) {
                    if !placed[k] {
                        placed[k] = true;
                        queue.push_back(k);
                    }
                }
            }
        }
    }
    vec![by_block.concat(), out]
}
