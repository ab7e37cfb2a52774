//! Blocks and the CDG, all modes at once (paper 002 §4.6).
//!
//! 1. ⇝ (§4.6.1): for edges e = (i, j), e' = (i', j) with i ≠ i',
//!    `i ⇝ i'` holds where T_e ∧ Ξ_e' ∧ ¬T_e', Ξ_e' = χ_E(e') ∧ d_j = c_i' + σ_e'.
//! 2. SCCs (§4.6.2): Tarjan on the union of ⇝ over all modes first; inside each union SCC,
//!    the blocks of every mode by their last node ([`blocks_by_last_node`]: elimination,
//!    not the paper's all-pairs closure, which was cubic on the compressible building,
//!    whose union SCC holds every equation, and quadratic in a large block's size).
//! 3. Block instances (our design; the paper leaves it open): equation h is the
//!    representative of its block where it is the block's last node (`last_h`); that
//!    condition is split by membership (in_h) of every node in touch, then by the offsets
//!    c of the members, the edge each member is matched by (T_e), the order d of every
//!    written variable and the order σ + c of every read variable. Every leaf is a block
//!    instance `cond: reads -- eqs -> writes`; equal instances are merged (conditions or-ed).
//!    The splits read c, d and σ by value, partitioned once (not per leaf).
//! 4. Edges: between instances b1 ≠ b2, cond(b1) ∧ cond(b2) ∧ ∨(i ⇝ i') over i ∈ b1, i' ∈ b2.
//!    In a regular mode each equation is in exactly one instance, so each (i ⇝ i') is split
//!    by the instances of i, then of i', through witness modes ([`by_instance`]): one BDD
//!    operation per non-empty part instead of one per pair of instances (incompressible
//!    building N = 10: 45 s to 1.7 s).
//!
//! Every set of modes here is held modulo the regular modes ([`super::modulo`]): the
//! conditions of ⇝, of the leaves, blocks and edges are representatives, tested for
//! emptiness and split by witnesses exactly on the regular modes (the same parts, leaves
//! and instances as with the regular modes conjoined everywhere), and made exact by the
//! caller where they enter the CDG.

use super::bits::BitVec;
use super::closure::blocks_by_last_node;
use super::modulo::CareSet;
use super::primal::Primal;
use super::{Encoding, Stats};
use crate::analysis::scc::components;
use crate::analysis::sigma::BlockInstance;
use biodivine_lib_bdd::Bdd;
use std::collections::{BTreeMap, BTreeSet};

/// The block instances with their conditions, and the edges (from, to, condition) between
/// instances numbered in that order.
pub(super) struct Graph {
    pub blocks: Vec<(BlockInstance, Bdd)>,
    pub edges: Vec<(usize, usize, Bdd)>,
}

/// `c` and `d` as bit-vectors (for ⇝) and by value over the regular modes (`by_c`, `by_d`,
/// for the splits), all modulo the regular modes; the conditions of the blocks and edges
/// returned are representatives too.
pub(super) fn build(
    enc: &Encoding,
    primal: &Primal,
    regular: &CareSet,
    (c, d): (&[BitVec], &[BitVec]),
    (by_c, by_d): (&[Vec<(u32, Bdd)>], &[Vec<(u32, Bdd)>]),
    stats: &mut Stats,
) -> Graph {
    let rel = relation(enc, primal, regular, c, d);
    stats.see_all(rel.values());
    let values =
        Values { c: by_c, d: by_d, sigma: enc.edges.iter().map(|e| e.sigma.partition(&e.active, enc.set())).collect() };
    let instances = instances(enc, primal, regular, &values, &rel, stats);
    stats.see_all(instances.values());
    // Instances are numbered in the map's order (no lookup by key: comparing two large
    // instances costs their size).
    let mut with_eq: BTreeMap<usize, Vec<(usize, &Bdd)>> = BTreeMap::new();
    for (n, (b, cond)) in instances.iter().enumerate() {
        for &(i, _) in &b.eqs {
            with_eq.entry(i as usize).or_default().push((n, cond));
        }
    }
    let mut edges: BTreeMap<(usize, usize), Bdd> = BTreeMap::new();
    let none = Vec::new();
    for (&(i, i2), r) in &rel {
        let (at_i, at_i2) = (with_eq.get(&i).unwrap_or(&none), with_eq.get(&i2).unwrap_or(&none));
        for (b1, from) in by_instance(regular, r, at_i) {
            for (b2, here) in by_instance(regular, &from, at_i2) {
                if b1 != b2 {
                    let e = edges.entry((b1, b2)).or_insert_with(|| enc.space.mk_false());
                    *e = e.or(&here);
                }
            }
        }
    }
    drop(with_eq);
    Graph {
        blocks: instances.into_iter().collect(),
        edges: edges.into_iter().map(|((from, to), cond)| (from, to, cond)).collect(),
    }
}

/// `modes` split by the instances of one equation, (instance, its part) for the parts
/// that are not empty. In every regular mode an equation is in exactly one instance, so
/// the instance of a witness mode is found by evaluation: one BDD operation per part,
/// not per instance.
fn by_instance(regular: &CareSet, modes: &Bdd, instances: &[(usize, &Bdd)]) -> Vec<(usize, Bdd)> {
    let mut rest = modes.clone();
    let mut out = Vec::new();
    while let Some(w) = regular.witness(&rest) {
        let &(b, cond) =
            instances.iter().find(|(_, c)| c.eval_in(&w)).expect("a regular mode puts every equation in one instance");
        out.push((b, rest.and(cond)));
        rest = rest.and_not(cond);
    }
    out
}

/// `i ⇝ i'` as a map (i, i') → modes, non-false entries only.
fn relation(
    enc: &Encoding,
    primal: &Primal,
    regular: &CareSet,
    c: &[BitVec],
    d: &[BitVec],
) -> BTreeMap<(usize, usize), Bdd> {
    let set = enc.set();
    let saturated: Vec<Bdd> =
        enc.edges.iter().map(|e| e.active.and(&d[e.var].eq(&c[e.eq].add(&e.sigma, set), set))).collect();
    let mut rel: BTreeMap<(usize, usize), Bdd> = BTreeMap::new();
    for col in &enc.cols {
        for &k in col {
            for &k2 in col {
                let (e, e2) = (&enc.edges[k], &enc.edges[k2]);
                if e.eq == e2.eq {
                    continue;
                }
                let r = primal.matched[k].and(&saturated[k2]).and_not(&primal.matched[k2]);
                if regular.meets(&r) {
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

/// Splits every leaf by `alternatives(leaf, cond)`: (modes, fix) pairs; parts without a
/// regular mode vanish.
/// A leaf is cloned only for the parts beyond its last one, which takes it over: most
/// splits leave one part, and a leaf of a large block (EngineV6: ~1,000 members) cloned
/// per split made the refinement quadratic in the block's size.
fn split(
    regular: &CareSet,
    leaves: Vec<(Leaf, Bdd)>,
    alternatives: &dyn Fn(&Leaf, &Bdd) -> Vec<(Bdd, Fix)>,
) -> Vec<(Leaf, Bdd)> {
    let mut out = Vec::with_capacity(leaves.len());
    for (mut leaf, cond) in leaves {
        let mut parts: Vec<(Bdd, Fix)> = alternatives(&leaf, &cond)
            .into_iter()
            .filter_map(|(modes, fix)| {
                let here = cond.and(&modes);
                regular.meets(&here).then_some((here, fix))
            })
            .collect();
        let Some((here, fix)) = parts.pop() else { continue };
        for (other, other_fix) in parts {
            let mut l = leaf.clone();
            l.apply(other_fix);
            out.push((l, other));
        }
        leaf.apply(fix);
        out.push((leaf, here));
    }
    out
}

/// c, d (over the regular modes) and σ (over χ_E) by value, each value with its modes.
struct Values<'a> {
    c: &'a [Vec<(u32, Bdd)>],
    d: &'a [Vec<(u32, Bdd)>],
    sigma: Vec<Vec<(u32, Bdd)>>,
}

/// The alternatives "the value is x" of a partition by value, each fixing `fix(x)`.
fn by_value(parts: &[(u32, Bdd)], fix: impl Fn(u32) -> Fix) -> Vec<(Bdd, Fix)> {
    parts.iter().map(|(x, b)| (b.clone(), fix(*x))).collect()
}

fn instances(
    enc: &Encoding,
    primal: &Primal,
    regular: &CareSet,
    values: &Values,
    rel: &BTreeMap<(usize, usize), Bdd>,
    stats: &mut Stats,
) -> BTreeMap<BlockInstance, Bdd> {
    let set = enc.set();
    let n = enc.mdae.equations.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in rel.keys() {
        succ[a].push(b);
    }
    // The encoding's order of the equations (a path decomposition): the elimination order.
    let position: Vec<usize> = enc
        .rows
        .iter()
        .map(|r| r.iter().map(|&k| enc.edges[k].bdd_var.to_index()).min().unwrap_or(usize::MAX))
        .collect();
    let mut out: BTreeMap<BlockInstance, Bdd> = BTreeMap::new();
    for mut members in components(&succ) {
        members.sort_unstable();
        let nonempty = |b: &Bdd| regular.meets(b);
        for last in blocks_by_last_node(set, &members, &|a| position[a], rel, &nonempty) {
            stats.see_all(last.members.iter().map(|(_, b)| b));
            if !regular.meets(&last.last) {
                continue;
            }
            let mut leaves = vec![(Leaf { members: vec![last.node], ..Leaf::default() }, last.last)];
            for (b, s) in &last.members[1..] {
                leaves = split(regular, leaves, &|_, _| vec![(s.clone(), Fix::Member(*b)), (s.not(), Fix::Nothing)]);
            }
            for (leaf, cond) in refine(enc, primal, regular, values, leaves) {
                let key = BlockInstance {
                    eqs: leaf.c.iter().map(|(&i, &ci)| (i as u32, ci)).collect(),
                    writes: leaf.d.iter().map(|(&j, &dj)| (j as u32, dj)).collect(),
                    reads: leaf.reads.into_iter().map(|(j, o)| (j as u32, o)).collect(),
                };
                let e = out.entry(key).or_insert_with(|| set.mk_false());
                *e = e.or(&cond);
            }
        }
    }
    out
}

/// Splits member sets by offsets, matchings, written orders and read orders.
fn refine(
    enc: &Encoding,
    primal: &Primal,
    regular: &CareSet,
    values: &Values,
    mut leaves: Vec<(Leaf, Bdd)>,
) -> Vec<(Leaf, Bdd)> {
    let set = enc.set();
    let unchanged = || vec![(set.mk_true(), Fix::Nothing)];
    let max_members = leaves.iter().map(|(l, _)| l.members.len()).max().unwrap_or(0);
    for slot in 0..max_members {
        // Offset of the slot-th member, then the edge it is matched by.
        leaves = split(regular, leaves, &|l, _| match l.members.get(slot) {
            Some(&i) => by_value(&values.c[i], |v| Fix::Offset(i, v)),
            None => unchanged(),
        });
        leaves = split(regular, leaves, &|l, _| match l.members.get(slot) {
            Some(&i) => enc.rows[i].iter().map(|&k| (primal.matched[k].clone(), Fix::Matched(i, k))).collect(),
            None => unchanged(),
        });
    }
    // Orders of the written variables.
    let max_writes = leaves.iter().map(|(l, _)| l.matched.len()).max().unwrap_or(0);
    for slot in 0..max_writes {
        leaves = split(regular, leaves, &|l, _| match l.matched.values().nth(slot) {
            Some(&k) => {
                let j = enc.edges[k].var;
                by_value(&values.d[j], |v| Fix::Order(j, v))
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
                local = split(regular, local, &|_, _| {
                    let mut alts = vec![(e.active.not(), Fix::Nothing)];
                    alts.extend(by_value(&values.sigma[k], |s| Fix::Read(e.var, s + ci)));
                    alts
                });
            }
        }
        result.extend(local);
    }
    result
}
