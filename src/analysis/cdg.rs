//! The result of the exact multimode structural analysis, whatever the strategy: the valid
//! modes, the singular modes with their diagnostics, the offsets c and orders d as
//! functions of the mode, and the conditional dependency graph (CDG): blocks
//! `p: R -- E -> W` and edges labelled by the modes in which the dependency applies.
//! Blocks and edges are sorted canonically. The valid, regular and singular modes are BDDs
//! over [`Cdg::space`]; the conditions of the offsets, orders, blocks and edges, all sets of
//! regular modes, are local sets of the regular modes ([`Local`], `local.rs`, issue 15):
//! each reads the few rooms or cars it is about, not the regular modes' O(N) nodes, so
//! the result holds O(N) nodes, not O(N²). [`Cdg::bdd`] gives one as a whole BDD.
//!
//! Held packed (issue 15: a model without modes of 10^5 equations has 10^5 blocks, offsets
//! and orders): an offset or order that is one value in every regular mode is that value
//! alone ([`ModeValues`], 4 bytes), the blocks' lists are slices of three lists shared
//! by every block ([`Blocks`], read as [`Block`] views), an edge is its two blocks
//! ([`Edges`], 8 bytes), and the blocks' and edges' conditions are one shared condition
//! when they are all the same (every one of a model without modes: the regular modes).

use super::local::{Factored, Local};
use super::modes::ModeSpace;
use crate::mdae::{EqId, ModeId, VarId};
use biodivine_lib_bdd::Bdd;
use std::rc::Rc;

pub struct Cdg {
    pub space: ModeSpace,
    /// χ_M: the valid modes.
    pub valid: Bdd,
    /// Valid modes in which the model is structurally nonsingular.
    pub regular: Bdd,
    /// The regular modes in factors ([`ModeSpace::factored`]): the conditions below are
    /// its local sets.
    pub factored: Rc<Factored>,
    pub singular: Vec<Singular>,
    /// Per equation: (c, regular modes where c_i = c).
    pub offsets: ModeValues,
    /// Per variable: (d, regular modes where d_j = d).
    pub orders: ModeValues,
    pub blocks: Blocks,
    pub edges: Edges,
}

impl Cdg {
    /// The regular modes of a condition as one BDD over [`Cdg::space`] (O(N) nodes on the
    /// building: for the tests and the uses that need the whole set).
    pub fn bdd(&self, c: &Local) -> Bdd {
        self.factored.exact(c)
    }

    /// A condition as short Modelica text (the invalid modes are don't-cares): from the
    /// local set when the valid modes are the regular ones (the same condition: `local.rs`),
    /// else from the whole set.
    pub fn text(&self, c: &Local) -> String {
        if self.regular != self.valid {
            return self.space.text(&self.bdd(c), &self.valid);
        }
        let cond = self.space.to_cond_local(c, &self.factored.all(), &self.factored);
        cond.to_modelica(&|m| self.space.names[m.index()].clone())
    }
}

/// The values of the offsets (one item per equation) or of the orders (per variable), each
/// with the regular modes where it holds, increasing by value. An item with one value in
/// every regular mode (every item of a model without modes) is held as its value.
pub struct ModeValues {
    /// Item i's value where it is one in every regular mode, else [`VARIES`].
    uniform: Vec<u32>,
    /// The other items, increasing: (item, its values with their modes).
    varying: Vec<(u32, Listed)>,
    /// The regular modes, the condition of a uniform value (the local set of R, shared).
    all: Local,
}

/// An item of [`ModeValues`] whose values are listed.
const VARIES: u32 = u32::MAX;

/// The values of a varying item with their modes.
type Listed = Box<[(u32, Local)]>;

impl ModeValues {
    /// The items' lists in order; `all` is the local set of every regular mode
    /// ([`Factored::all`]): a list `[(v, all)]` is held as `v`.
    pub fn new(all: Local, lists: impl IntoIterator<Item = Vec<(u32, Local)>>) -> ModeValues {
        let lists = lists.into_iter();
        let mut uniform = Vec::with_capacity(lists.size_hint().0);
        let mut varying = Vec::new();
        for list in lists {
            match list.as_slice() {
                [(v, m)] if *v != VARIES && m.is(&all) => uniform.push(*v),
                _ => {
                    varying
                        .push((u32::try_from(uniform.len()).expect("fewer than 2^32 items"), list.into_boxed_slice()));
                    uniform.push(VARIES);
                }
            }
        }
        varying.shrink_to_fit();
        ModeValues { uniform, varying, all }
    }

    /// One value per item, each in every regular mode (`all`, [`Factored::all`]).
    pub fn uniform(all: Local, values: Vec<u32>) -> ModeValues {
        if values.contains(&VARIES) {
            return ModeValues::new(all.clone(), values.into_iter().map(|v| vec![(v, all.clone())]));
        }
        ModeValues { uniform: values, varying: Vec::new(), all }
    }

    pub fn len(&self) -> usize {
        self.uniform.len()
    }

    pub fn is_empty(&self) -> bool {
        self.uniform.is_empty()
    }

    /// Item i's values with their modes.
    pub fn get(&self, i: usize) -> Values<'_> {
        match self.uniform[i] {
            VARIES => {
                let at = self.varying.binary_search_by_key(&(i as u32), |v| v.0).expect("a varying item is listed");
                Values::Many(&self.varying[at].1)
            }
            v => Values::One([(v, self.all.clone())]),
        }
    }

    /// Every item's values, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Values<'_>> + '_ {
        let mut varying = self.varying.iter();
        self.uniform.iter().map(move |&v| match v {
            VARIES => Values::Many(&varying.next().expect("a varying item is listed").1),
            v => Values::One([(v, self.all.clone())]),
        })
    }
}

/// One item's values with their modes: a slice (`Deref`), the one value of a uniform item
/// held here.
pub enum Values<'a> {
    One([(u32, Local); 1]),
    Many(&'a [(u32, Local)]),
}

impl std::ops::Deref for Values<'_> {
    type Target = [(u32, Local)];
    fn deref(&self) -> &[(u32, Local)] {
        match self {
            Values::One(one) => one,
            Values::Many(many) => many,
        }
    }
}

/// The conditions of the items of a list (blocks, edges): each item's own, or one shared
/// by every item (each a local set of the regular modes).
enum Conds {
    Each(Vec<Local>),
    All(Local),
}

impl Conds {
    fn get(&self, k: usize) -> &Local {
        match self {
            Conds::Each(conds) => &conds[k],
            Conds::All(cond) => cond,
        }
    }

    fn push(&mut self, cond: Local) {
        match self {
            Conds::Each(conds) => conds.push(cond),
            Conds::All(_) => panic!("a list of one shared condition takes no other"),
        }
    }
}

/// The blocks, in order: block b's equations (with their offsets) are a slice of one list,
/// the variables they are solved for (as many, in their own order) the same slice of
/// another, and its reads a slice of a third.
pub struct Blocks {
    conds: Conds,
    /// Block b's equations are `eqs[at[b]..at[b + 1]]`, its writes `writes[at[b]..at[b + 1]]`;
    /// empty when every block has one equation (block b's at b).
    at: Vec<u32>,
    eqs: Vec<(EqId, u32)>,
    writes: Vec<(VarId, u32)>,
    /// Block b's reads are `reads[read_at[b]..read_at[b + 1]]`.
    read_at: Vec<u32>,
    reads: Vec<(VarId, u32)>,
}

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks::with_capacity(0, 0, 0)
    }
}

/// The lists of [`Blocks`] as [`Blocks::uniform`] takes them: block b's equations and
/// writes are `eqs[at[b]..at[b + 1]]` and `writes[at[b]..at[b + 1]]` (`at` empty: every
/// block has one, at b), its reads `reads[read_at[b]..read_at[b + 1]]` (`at` and `read_at`
/// start at 0 and end at their lists' lengths).
pub struct BlockLists {
    pub at: Vec<u32>,
    pub eqs: Vec<(EqId, u32)>,
    pub writes: Vec<(VarId, u32)>,
    pub read_at: Vec<u32>,
    pub reads: Vec<(VarId, u32)>,
}

impl Blocks {
    /// Room for `blocks` blocks of `eqs` equations in all and `reads` reads in all.
    pub fn with_capacity(blocks: usize, eqs: usize, reads: usize) -> Blocks {
        let mut at = Vec::with_capacity(blocks + 1);
        let mut read_at = Vec::with_capacity(blocks + 1);
        at.push(0);
        read_at.push(0);
        Blocks {
            conds: Conds::Each(Vec::with_capacity(blocks)),
            at,
            eqs: Vec::with_capacity(eqs),
            writes: Vec::with_capacity(eqs),
            read_at,
            reads: Vec::with_capacity(reads),
        }
    }

    /// The blocks of `lists`, each in the modes `cond` (no block can be pushed after).
    pub fn uniform(cond: Local, lists: BlockLists) -> Blocks {
        let BlockLists { at, eqs, writes, read_at, reads } = lists;
        let blocks = read_at.len() - 1;
        assert!(at.is_empty() || at.len() == read_at.len(), "as many ends of blocks in both lists");
        assert!(at.last().map_or(blocks, |&e| e as usize) == eqs.len(), "the equations end where the list does");
        assert!(eqs.len() == writes.len(), "a block writes as many variables as it has equations");
        assert!(read_at[blocks] as usize == reads.len(), "the reads end where the list does");
        Blocks { conds: Conds::All(cond), at, eqs, writes, read_at, reads }
    }

    /// Appends the block `cond: reads -- eqs -> writes`; a block is square (as many writes
    /// as equations).
    pub fn push(
        &mut self,
        cond: Local,
        eqs: impl IntoIterator<Item = (EqId, u32)>,
        writes: impl IntoIterator<Item = (VarId, u32)>,
        reads: impl IntoIterator<Item = (VarId, u32)>,
    ) {
        self.conds.push(cond);
        self.eqs.extend(eqs);
        self.writes.extend(writes);
        assert_eq!(self.eqs.len(), self.writes.len(), "a block writes as many variables as it has equations");
        self.at.push(u32::try_from(self.eqs.len()).expect("fewer than 2^32 block equations"));
        self.reads.extend(reads);
        self.read_at.push(u32::try_from(self.reads.len()).expect("fewer than 2^32 block reads"));
    }

    pub fn len(&self) -> usize {
        self.read_at.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Block b.
    pub fn get(&self, b: usize) -> Block<'_> {
        let (p, q) = match self.at.is_empty() {
            true => (b, b + 1),
            false => (self.at[b] as usize, self.at[b + 1] as usize),
        };
        Block {
            cond: self.conds.get(b),
            eqs: &self.eqs[p..q],
            writes: &self.writes[p..q],
            reads: &self.reads[self.read_at[b] as usize..self.read_at[b + 1] as usize],
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Block<'_>> + '_ {
        (0..self.len()).map(|b| self.get(b))
    }
}

/// A conditional block `cond: reads -- eqs -> writes` of [`Blocks`].
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    pub cond: &'a Local,
    /// (equation, times differentiated).
    pub eqs: &'a [(EqId, u32)],
    /// (variable, derivative order) solved by the block.
    pub writes: &'a [(VarId, u32)],
    /// (variable, derivative order) read by the block.
    pub reads: &'a [(VarId, u32)],
}

/// The edges, in order: (from, to) pairs of blocks, each with its modes (8 bytes an edge
/// when they share one condition).
pub struct Edges {
    pairs: Vec<(u32, u32)>,
    conds: Conds,
}

impl Default for Edges {
    fn default() -> Edges {
        Edges::with_capacity(0)
    }
}

impl Edges {
    /// Room for `edges` edges.
    pub fn with_capacity(edges: usize) -> Edges {
        Edges { pairs: Vec::with_capacity(edges), conds: Conds::Each(Vec::with_capacity(edges)) }
    }

    /// The edges `pairs`, each in the modes `cond` (no edge can be pushed after).
    pub fn uniform(cond: Local, pairs: Vec<(u32, u32)>) -> Edges {
        Edges { pairs, conds: Conds::All(cond) }
    }

    /// Appends the edge `from -> to` in the modes `cond`.
    pub fn push(&mut self, from: u32, to: u32, cond: Local) {
        self.conds.push(cond);
        self.pairs.push((from, to));
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Edge k.
    pub fn get(&self, k: usize) -> Edge<'_> {
        let (from, to) = self.pairs[k];
        Edge { from, to, cond: self.conds.get(k) }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Edge<'_>> + '_ {
        (0..self.len()).map(|k| self.get(k))
    }
}

/// Block `from` must be solved before block `to` in the modes `cond` (an edge of [`Edges`]).
#[derive(Clone, Copy, Debug)]
pub struct Edge<'a> {
    pub from: u32,
    pub to: u32,
    pub cond: &'a Local,
}

/// Modes in which the model is structurally singular, with one example mode and the
/// Dulmage–Mendelsohn over-/under-determined parts (the same in every mode of `cond`).
#[derive(Clone, Debug)]
pub struct Singular {
    pub cond: Bdd,
    pub example: Vec<(ModeId, bool)>,
    pub overdetermined: Vec<EqId>,
    pub underdetermined: Vec<VarId>,
}
