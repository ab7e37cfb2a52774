//! The blocks of every mode inside one SCC of the all-modes union of ⇝ (paper 002 §4.6.2),
//! the classes of `same(a, b)` (the modes where a ⇝* b and b ⇝* a), without the transitive
//! closure of every pair. The paper's closure (a BDD Floyd–Warshall over the union SCC) costs k³ operations
//! and k² diagrams for k equations; the compressible building's union SCC holds all 16N + 1
//! equations although every mode's blocks have at most a few (paper 002 Figure 15), so it
//! was cubic in N (issue 15). Here the work follows the blocks:
//!
//! 1. **Elimination** (Gaussian elimination on the Boolean path algebra, one BDD per edge):
//!    the members are eliminated in the order of the encoding (a path decomposition of the
//!    model: equations that interact are close). Eliminating v joins each in-edge u → v to
//!    each out-edge v → w (u ≠ w) into u → w, labelled with the conjunction; v's in- and
//!    out-edges at that moment are its factors L(u, v) and U(v, w): the modes with a path
//!    between them whose inner nodes were all eliminated before v. Locality keeps the
//!    graph as sparse as the model (no fill beyond a band).
//! 2. **Blocks by their last node.** In a mode, let h be the last-eliminated node of a's
//!    block S. Every path inside S runs through nodes no later than h, and reading such a
//!    path by its successive record (latest-so-far) nodes, x ⇝* h is a chain of U factors
//!    climbing from x to h and h ⇝* x a chain of L factors descending to x; every node of
//!    either chain lies in S too. So, for each h, `in_h(x)` (the modes where x and h are
//!    mutually reachable through nodes no later than h) is computed from h downward:
//!    `in_h(h)` = every mode, `in_h(x)` = (∨ U(x, y) ∧ in_h(y)) ∧ (∨ in_h(z) ∧ L(z, x)) over
//!    the later y, z — only nodes next to a node already in touch with h are visited, so
//!    the work per h is bounded by the blocks around it, not by the SCC.
//! 3. **h is the last node of its block** where no later g has in_g(h): `last_h` =
//!    ¬∨_{g > h} in_g(h). In those modes h's block is exactly {x : in_h(x)}, so the blocks of
//!    every mode are the pairs (last_h, in_h) — `same(a, b)` = ∨_h last_h ∧ in_h(a) ∧ in_h(b)
//!    is never built: its k² pairs were quadratic in the size of a large block (EngineV6: a
//!    union SCC of 4,559 equations with blocks of 1,000 in some modes, 1.5 million pairs).
//!
//! Output: [`LastNode`] per node (its `last` modes and the x in touch with it). A test
//! checks `same` derived from them against the Floyd–Warshall closure.

use biodivine_lib_bdd::{Bdd, BddVariableSet};
use std::collections::{BTreeMap, BinaryHeap};

/// One node h as the last node of its block: `last` = the modes where no later node
/// shares its block, `members` = (x, in_h(x)) for the nodes x ≤ h in touch with h, h
/// first (with every mode). In the modes of `last`, h's block is {x : in_h(x)}.
pub(super) struct LastNode {
    pub node: usize,
    pub last: Bdd,
    pub members: Vec<(usize, Bdd)>,
}

/// The blocks of one union SCC by their last node (module header, steps 1–2) for the
/// `members` (equations), given ⇝ as `rel` and the elimination order (`position(a)`,
/// distinct); nodes are the members' own numbers. `nonempty` says whether a set of modes
/// matters (the caller's sets are held modulo the regular modes: an entry that holds in
/// no regular mode is dropped like an empty one). The work and the output follow the
/// blocks' sizes: no pair of members is ever listed (a block of n equations in some
/// mode costs n entries, not n²).
pub(super) fn blocks_by_last_node(
    set: &BddVariableSet,
    members: &[usize],
    position: &dyn Fn(usize) -> usize,
    rel: &BTreeMap<(usize, usize), Bdd>,
    nonempty: &dyn Fn(&Bdd) -> bool,
) -> Vec<LastNode> {
    // Nodes 0..k in elimination order.
    let mut order: Vec<usize> = members.to_vec();
    order.sort_by_key(|&a| position(a));
    let node: BTreeMap<usize, usize> = order.iter().enumerate().map(|(t, &a)| (a, t)).collect();
    let k = order.len();
    let mut out: Vec<BTreeMap<usize, Bdd>> = vec![BTreeMap::new(); k];
    let mut inn: Vec<BTreeMap<usize, Bdd>> = vec![BTreeMap::new(); k];
    for (&a, &t) in &node {
        for ((_, b), r) in rel.range((a, 0)..(a + 1, 0)) {
            if let Some(&u) = node.get(b) {
                out[t].insert(u, r.clone());
                inn[u].insert(t, r.clone());
            }
        }
    }
    let (up, down) = eliminate(&mut out, &mut inn, nonempty);
    // The nodes below each node that have a factor to it.
    let mut below: Vec<Vec<usize>> = vec![Vec::new(); k];
    for x in 0..k {
        for &(y, _) in up[x].iter().chain(&down[x]) {
            below[y].push(x);
        }
    }
    let mut touch: Vec<Option<Bdd>> = vec![None; k];
    let with: Vec<Vec<(usize, Bdd)>> =
        (0..k).map(|h| in_touch(set, h, (&up, &down), &below, &mut touch, nonempty)).collect();
    // x shares a block with a later node where in_g(x) for some g > x.
    let mut later: Vec<Bdd> = vec![set.mk_false(); k];
    for with_h in &with {
        for (x, in_h) in &with_h[1..] {
            later[*x] = later[*x].or(in_h);
        }
    }
    with.into_iter()
        .zip(later)
        .enumerate()
        .map(|(h, (with_h, later_h))| LastNode {
            node: order[h],
            last: later_h.not(),
            members: with_h.into_iter().map(|(x, b)| (order[x], b)).collect(),
        })
        .collect()
}

/// A node's factors: (other node, label), in the order of the other node.
type Factors = Vec<Vec<(usize, Bdd)>>;

/// Eliminates nodes 0, 1, … of the graph (`out[v]`: v → w, `inn[v]`: u → v, both keyed by
/// the other node); returns the factors U (out-edges to later nodes) and L (in-edges from
/// later nodes) of every node at its elimination.
fn eliminate(
    out: &mut [BTreeMap<usize, Bdd>],
    inn: &mut [BTreeMap<usize, Bdd>],
    nonempty: &dyn Fn(&Bdd) -> bool,
) -> (Factors, Factors) {
    let k = out.len();
    let (mut up, mut down) = (Vec::with_capacity(k), Vec::with_capacity(k));
    for v in 0..k {
        let outs: Vec<(usize, Bdd)> = std::mem::take(&mut out[v]).into_iter().collect();
        let ins: Vec<(usize, Bdd)> = std::mem::take(&mut inn[v]).into_iter().collect();
        for (u, _) in &ins {
            out[*u].remove(&v);
        }
        for (w, _) in &outs {
            inn[*w].remove(&v);
        }
        for (u, a) in &ins {
            for (w, b) in &outs {
                if u == w {
                    continue;
                }
                let via = a.and(b);
                if !nonempty(&via) {
                    continue;
                }
                match out[*u].get_mut(w) {
                    Some(e) => *e = e.or(&via),
                    None => drop(out[*u].insert(*w, via.clone())),
                }
                match inn[*w].get_mut(u) {
                    Some(e) => *e = e.or(&via),
                    None => drop(inn[*w].insert(*u, via)),
                }
            }
        }
        up.push(outs);
        down.push(ins);
    }
    (up, down)
}

/// `in_h(x)` for every node x ≤ h with some mode (module header, step 2), h first; `touch`
/// is scratch space, all `None` on entry and on return.
fn in_touch(
    set: &BddVariableSet,
    h: usize,
    (up, down): (&Factors, &Factors),
    below: &[Vec<usize>],
    touch: &mut [Option<Bdd>],
    nonempty: &dyn Fn(&Bdd) -> bool,
) -> Vec<(usize, Bdd)> {
    touch[h] = Some(set.mk_true());
    let mut found = vec![(h, set.mk_true())];
    // Latest first: every later node this one's factors reach is final when it is popped.
    let mut todo: BinaryHeap<usize> = below[h].iter().copied().collect();
    let mut last = usize::MAX;
    while let Some(x) = todo.pop() {
        if x == last {
            continue;
        }
        last = x;
        let join = |factors: &[(usize, Bdd)], forward: bool| {
            factors.iter().fold(set.mk_false(), |acc, (y, f)| match touch.get(*y).and_then(Option::as_ref) {
                Some(t) if *y <= h => acc.or(&if forward { f.and(t) } else { t.and(f) }),
                _ => acc,
            })
        };
        let climbs = join(&up[x], true);
        if !nonempty(&climbs) {
            continue;
        }
        let here = climbs.and(&join(&down[x], false));
        if !nonempty(&here) {
            continue;
        }
        touch[x] = Some(here.clone());
        found.push((x, here));
        todo.extend(below[x].iter().copied());
    }
    for &(x, _) in &found {
        touch[x] = None;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's closure: Floyd–Warshall over all pairs, then both directions.
    fn floyd_warshall(set: &BddVariableSet, k: usize, rel: &BTreeMap<(usize, usize), Bdd>) -> Vec<Vec<Bdd>> {
        let mut reach: Vec<Vec<Bdd>> = (0..k)
            .map(|a| {
                (0..k)
                    .map(|b| if a == b { set.mk_true() } else { rel.get(&(a, b)).cloned().unwrap_or(set.mk_false()) })
                    .collect()
            })
            .collect();
        for m in 0..k {
            for a in 0..k {
                for b in 0..k {
                    let via = reach[a][m].and(&reach[m][b]);
                    reach[a][b] = reach[a][b].or(&via);
                }
            }
        }
        (0..k).map(|a| (0..k).map(|b| reach[a][b].and(&reach[b][a])).collect()).collect()
    }

    /// `same(a, b)` = ∨_h last_h ∧ in_h(a) ∧ in_h(b) (a ≠ b, both orders).
    fn same_from_last_nodes(set: &BddVariableSet, blocks: &[LastNode]) -> BTreeMap<(usize, usize), Bdd> {
        let mut same: BTreeMap<(usize, usize), Bdd> = BTreeMap::new();
        for b in blocks {
            for (p, (x, ix)) in b.members.iter().enumerate() {
                for (y, iy) in &b.members[p + 1..] {
                    let both = b.last.and(ix).and(iy);
                    for key in [(*x, *y), (*y, *x)] {
                        let e = same.entry(key).or_insert_with(|| set.mk_false());
                        *e = e.or(&both);
                    }
                }
            }
        }
        same
    }

    #[test]
    fn blocks_by_last_node_agree_with_the_floyd_warshall_closure() {
        let set = BddVariableSet::new_anonymous(3);
        let v = set.variables();
        let mut seed = 0x51_7cc1_b727_220au64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let (mut pairs, mut conditional) = (0, 0);
        for _ in 0..400 {
            let k = 1 + rnd(9) as usize;
            // Edges labelled by a random function of the 3 mode variables (a random union of
            // minterms), about two per node; banded or not.
            let banded = rnd(2) == 0;
            let mut rel = BTreeMap::new();
            for a in 0..k {
                for b in 0..k {
                    let near = !banded || a.abs_diff(b) <= 2;
                    if a != b && near && rnd(k as u64) < 2 {
                        let label = (0..8).filter(|_| rnd(3) > 0).fold(set.mk_false(), |acc, m| {
                            let cube = (0..3).fold(set.mk_true(), |c, i| {
                                c.and(&if m >> i & 1 == 1 { set.mk_var(v[i]) } else { set.mk_var(v[i]).not() })
                            });
                            acc.or(&cube)
                        });
                        if !label.is_false() {
                            rel.insert((a, b), label);
                        }
                    }
                }
            }
            let members: Vec<usize> = (0..k).collect();
            // A shuffled elimination order.
            let mut position: Vec<usize> = (0..k).collect();
            for i in (1..k).rev() {
                position.swap(i, rnd(i as u64 + 1) as usize);
            }
            let blocks = blocks_by_last_node(&set, &members, &|a| position[a], &rel, &|b| !b.is_false());
            // Every node is in exactly one block (by its last node) in every mode.
            for x in 0..k {
                let mut covered = set.mk_false();
                for b in &blocks {
                    if let Some((_, ix)) = b.members.iter().find(|(y, _)| *y == x) {
                        let here = b.last.and(ix);
                        assert!(covered.and(&here).is_false(), "node {x} in two blocks of {rel:?}");
                        covered = covered.or(&here);
                    }
                }
                assert!(covered.is_true(), "node {x} in no block in some mode of {rel:?}");
            }
            let got = same_from_last_nodes(&set, &blocks);
            let expected = floyd_warshall(&set, k, &rel);
            for a in 0..k {
                for b in 0..k {
                    if a == b {
                        continue;
                    }
                    let g = got.get(&(a, b)).cloned().unwrap_or(set.mk_false());
                    assert_eq!(g, expected[a][b], "pair ({a}, {b}) of {rel:?}");
                    pairs += usize::from(!g.is_false());
                    conditional += usize::from(!g.is_false() && !g.is_true());
                }
            }
        }
        assert!(pairs > 200 && conditional > 100, "the sample has blocks: {pairs} {conditional}");
    }
}
