//! Blocks and the CDG, all modes at once (paper 002 §4.6).
//!
//! 1. ⇝ (§4.6.1): for edges e = (i, j), e' = (i', j) with i ≠ i',
//!    `i ⇝ i'` holds where T_e ∧ Ξ_e' ∧ ¬T_e', Ξ_e' = χ_E(e') ∧ d_j = c_i' + σ_e'.
//! 2. SCCs (§4.6.2): Tarjan on the union of ⇝ over all modes first; the transitive closure
//!    (BDD Floyd–Warshall) only inside each union SCC; `same(a, b)` = a ⇝* b ∧ b ⇝* a.
//! 3. Block instances (our design; the paper leaves it open): equation i is the
//!    representative of its block where no smaller equation of its union SCC is `same`;
//!    that condition is split by membership of every larger equation, then by the offsets
//!    c of the members, the edge each member is matched by (T_e), the order d of every
//!    written variable and the order σ + c of every read variable. Every leaf is a block
//!    instance `cond: reads -- eqs -> writes`; equal instances are merged (conditions or-ed).
//! 4. Edges: between instances b1 ≠ b2, cond(b1) ∧ cond(b2) ∧ ∨(i ⇝ i') over i ∈ b1, i' ∈ b2.

use super::bits::BitVec;
use super::primal::Primal;
use super::{Encoding, Stats};
use crate::analysis::cdg::{Block, Edge};
use crate::analysis::explicit::block;
use crate::analysis::sigma::BlockInstance;
use biodivine_lib_bdd::Bdd;
use petgraph::graph::DiGraph;
use std::collections::{BTreeMap, BTreeSet};

pub(super) struct Graph {
    pub blocks: Vec<Block>,
    pub edges: Vec<Edge>,
}

pub(super) fn build(enc: &Encoding, primal: &Primal, c: &[BitVec], d: &[BitVec], stats: &mut Stats) -> Graph {
    let rel = relation(enc, primal, c, d);
    stats.see_all(rel.values());
    let instances = instances(enc, primal, c, d, &rel, stats);
    stats.see_all(instances.values());
    let index: BTreeMap<&BlockInstance, usize> = instances.keys().enumerate().map(|(n, b)| (b, n)).collect();
    let mut with_eq: BTreeMap<usize, Vec<(usize, &Bdd)>> = BTreeMap::new();
    for (b, cond) in &instances {
        for &(i, _) in &b.eqs {
            with_eq.entry(i).or_default().push((index[b], cond));
        }
    }
    let mut edges: BTreeMap<(usize, usize), Bdd> = BTreeMap::new();
    for (&(i, i2), r) in &rel {
        for &(b1, c1) in with_eq.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
            for &(b2, c2) in with_eq.get(&i2).map(Vec::as_slice).unwrap_or(&[]) {
                if b1 != b2 {
                    let here = c1.and(c2).and(r);
                    if !here.is_false() {
                        let e = edges.entry((b1, b2)).or_insert_with(|| enc.space.mk_false());
                        *e = e.or(&here);
                    }
                }
            }
        }
    }
    Graph {
        blocks: instances.iter().map(|(b, cond)| block(b, cond)).collect(),
        edges: edges.into_iter().map(|((from, to), cond)| Edge { from, to, cond }).collect(),
    }
}

/// `i ⇝ i'` as a map (i, i') → modes, non-false entries only.
fn relation(enc: &Encoding, primal: &Primal, c: &[BitVec], d: &[BitVec]) -> BTreeMap<(usize, usize), Bdd> {
    let set = enc.set();
    let saturated: Vec<Bdd> = enc
        .edges
        .iter()
        .map(|e| e.active.and(&d[e.var].eq(&c[e.eq].add(&e.sigma, set), set)).and(&primal.regular))
        .collect();
    let mut rel: BTreeMap<(usize, usize), Bdd> = BTreeMap::new();
    for col in &enc.cols {
        for &k in col {
            for &k2 in col {
                let (e, e2) = (&enc.edges[k], &enc.edges[k2]);
                if e.eq == e2.eq {
                    continue;
                }
                let r = primal.matched[k].and(&saturated[k2]).and_not(&primal.matched[k2]);
                if !r.is_false() {
                    let entry = rel.entry((e.eq, e2.eq)).or_insert_with(|| enc.space.mk_false());
                    *entry = entry.or(&r);
                }
            }
        }
    }
    rel
}

/// A block instance being split: members and what is fixed so far.
#[derive(Clone, Default)]
struct Leaf {
    members: Vec<usize>,
    c: BTreeMap<usize, u32>,
    /// member equation → matched edge.
    matched: BTreeMap<usize, usize>,
    d: BTreeMap<usize, u32>,
    reads: BTreeMap<usize, u32>,
}

/// What one alternative of a split fixes in a leaf.
#[derive(Clone, Copy)]
enum Fix {
    Nothing,
    Member(usize),
    Offset(usize, u32),
    Matched(usize, usize),
    Order(usize, u32),
    Read(usize, u32),
}

impl Leaf {
    fn apply(&mut self, fix: Fix) {
        match fix {
            Fix::Nothing => {}
            Fix::Member(i) => self.members.push(i),
            Fix::Offset(i, c) => drop(self.c.insert(i, c)),
            Fix::Matched(i, k) => drop(self.matched.insert(i, k)),
            Fix::Order(j, d) => drop(self.d.insert(j, d)),
            Fix::Read(j, o) => {
                let r = self.reads.entry(j).or_insert(o);
                *r = (*r).max(o);
            }
        }
    }
}

/// Splits every leaf by `alternatives(leaf, cond)`: (modes, fix) pairs; empty parts vanish.
fn split(leaves: Vec<(Leaf, Bdd)>, alternatives: &dyn Fn(&Leaf, &Bdd) -> Vec<(Bdd, Fix)>) -> Vec<(Leaf, Bdd)> {
    let mut out = Vec::new();
    for (leaf, cond) in leaves {
        for (modes, fix) in alternatives(&leaf, &cond) {
            let here = cond.and(&modes);
            if !here.is_false() {
                let mut l = leaf.clone();
                l.apply(fix);
                out.push((l, here));
            }
        }
    }
    out
}

/// The alternatives "the value of `v` is x" within `cond`, each fixing `fix(x)`.
fn by_value(v: &BitVec, cond: &Bdd, enc: &Encoding, fix: impl Fn(u32) -> Fix) -> Vec<(Bdd, Fix)> {
    v.partition(cond, enc.set()).into_iter().map(|(x, b)| (b, fix(x))).collect()
}

fn instances(
    enc: &Encoding,
    primal: &Primal,
    c: &[BitVec],
    d: &[BitVec],
    rel: &BTreeMap<(usize, usize), Bdd>,
    stats: &mut Stats,
) -> BTreeMap<BlockInstance, Bdd> {
    let set = enc.set();
    let n = enc.mdae.equations.len();
    let mut g: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<_> = (0..n).map(|i| g.add_node(i)).collect();
    for &(a, b) in rel.keys() {
        g.add_edge(nodes[a], nodes[b], ());
    }
    let mut out: BTreeMap<BlockInstance, Bdd> = BTreeMap::new();
    for scc in petgraph::algo::tarjan_scc(&g) {
        let mut members: Vec<usize> = scc.iter().map(|&x| g[x]).collect();
        members.sort_unstable();
        let same = closure(enc, &members, rel);
        stats.see_all(same.values());
        for (pos, &i) in members.iter().enumerate() {
            let mut rep = primal.regular.clone();
            for &a in &members[..pos] {
                rep = rep.and_not(&same[&(i, a)]);
            }
            if rep.is_false() {
                continue;
            }
            let mut leaves = vec![(Leaf { members: vec![i], ..Leaf::default() }, rep)];
            for &b in &members[pos + 1..] {
                let s = same[&(i, b)].clone();
                leaves = split(leaves, &|_, _| vec![(s.clone(), Fix::Member(b)), (s.not(), Fix::Nothing)]);
            }
            for (leaf, cond) in refine(enc, primal, c, d, leaves) {
                let key = BlockInstance {
                    eqs: leaf.c.iter().map(|(&i, &ci)| (i, ci)).collect(),
                    writes: leaf.d.iter().map(|(&j, &dj)| (j, dj)).collect(),
                    reads: leaf.reads.into_iter().collect(),
                };
                let e = out.entry(key).or_insert_with(|| set.mk_false());
                *e = e.or(&cond);
            }
        }
    }
    out
}

/// `same[(a, b)]` for a, b in one union SCC: the modes where a ⇝* b and b ⇝* a.
fn closure(enc: &Encoding, members: &[usize], rel: &BTreeMap<(usize, usize), Bdd>) -> BTreeMap<(usize, usize), Bdd> {
    let set = enc.set();
    let mut reach: BTreeMap<(usize, usize), Bdd> = BTreeMap::new();
    for &a in members {
        for &b in members {
            let r = if a == b { set.mk_true() } else { rel.get(&(a, b)).cloned().unwrap_or_else(|| set.mk_false()) };
            reach.insert((a, b), r);
        }
    }
    if members.len() > 1 {
        for &k in members {
            for &a in members {
                let ak = reach[&(a, k)].clone();
                if ak.is_false() {
                    continue;
                }
                for &b in members {
                    let via = ak.and(&reach[&(k, b)]);
                    if !via.is_false() {
                        let e = reach.get_mut(&(a, b)).expect("pair of members");
                        *e = e.or(&via);
                    }
                }
            }
        }
    }
    let mut same = BTreeMap::new();
    for &a in members {
        for &b in members {
            same.insert((a, b), reach[&(a, b)].and(&reach[&(b, a)]));
        }
    }
    same
}

/// Splits member sets by offsets, matchings, written orders and read orders.
fn refine(
    enc: &Encoding,
    primal: &Primal,
    c: &[BitVec],
    d: &[BitVec],
    mut leaves: Vec<(Leaf, Bdd)>,
) -> Vec<(Leaf, Bdd)> {
    let set = enc.set();
    let unchanged = || vec![(set.mk_true(), Fix::Nothing)];
    let max_members = leaves.iter().map(|(l, _)| l.members.len()).max().unwrap_or(0);
    for slot in 0..max_members {
        // Offset of the slot-th member, then the edge it is matched by.
        leaves = split(leaves, &|l, cond| match l.members.get(slot) {
            Some(&i) => by_value(&c[i], cond, enc, |v| Fix::Offset(i, v)),
            None => unchanged(),
        });
        leaves = split(leaves, &|l, _| match l.members.get(slot) {
            Some(&i) => enc.rows[i].iter().map(|&k| (primal.matched[k].clone(), Fix::Matched(i, k))).collect(),
            None => unchanged(),
        });
    }
    // Orders of the written variables.
    let max_writes = leaves.iter().map(|(l, _)| l.matched.len()).max().unwrap_or(0);
    for slot in 0..max_writes {
        leaves = split(leaves, &|l, cond| match l.matched.values().nth(slot) {
            Some(&k) => {
                let j = enc.edges[k].var;
                by_value(&d[j], cond, enc, |v| Fix::Order(j, v))
            }
            None => unchanged(),
        });
    }
    // Read variables: every edge of a member to a variable the block does not write.
    let mut result = Vec::new();
    for (leaf, cond) in leaves {
        let written: BTreeSet<usize> = leaf.matched.values().map(|&k| enc.edges[k].var).collect();
        let mut local = vec![(leaf.clone(), cond)];
        for &i in &leaf.members {
            let ci = leaf.c[&i];
            for &k in &enc.rows[i] {
                let e = &enc.edges[k];
                if written.contains(&e.var) {
                    continue;
                }
                local = split(local, &|_, cond| {
                    let mut alts = vec![(e.active.not(), Fix::Nothing)];
                    alts.extend(by_value(&e.sigma, &cond.and(&e.active), enc, |s| Fix::Read(e.var, s + ci)));
                    alts
                });
            }
        }
        result.extend(local);
    }
    result
}
