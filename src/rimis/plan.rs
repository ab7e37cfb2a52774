//! The naming plan of the transformation (paper 000 §4.6.2): the condition table (each
//! block's condition numbered by its first block, so `x_p_3` is x' under block 3's
//! condition), each variable's role (untouched, shared state, varying), its writers,
//! and the three ways an occurrence (u, i) is named inside a block (or a part of one:
//! `split.rs` may divide a block's condition into parts, each emitted as its own copy of
//! the block; the writers of a variable are parts, and a block not split is one part):
//! - **written** by the block: its replicate ρ^i_{cond(b)}(u) (or the source itself);
//! - **read** where u^(i) is leading in some mode of the block's condition, or u is
//!   varying (its states are replicated too): the replicate of its only writer there
//!   (§4.6.4), the source when every writer is possible, else a read replicate with its
//!   own multiplexer;
//! - **read state** of a kept state: the source variable u^(i) (a dummy-derivative
//!   variable for i ≥ 1).

use super::exprs::{self, binary, call, name, number};
use super::names::Namer;
use crate::analysis::cdg::Cdg;
use crate::analysis::local::{Factored, Local};
use crate::mdae::{Mdae, ModeId, ModeKind, VarId};
use crate::syntax::ast::{BinOp, Expr};
use biodivine_lib_bdd::{Bdd, BddPartialValuation, BddVariable};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// How a variable is transformed, from its leading orders over the regular modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// One writer, in every mode, of the same order d: the source is kept as it is.
    Untouched { d: u32 },
    /// The same order d in every mode, several writers: the source states u … u^(d-1)
    /// are kept, u^(d) is multiplexed from one replicate per writer.
    Shared { d: u32 },
    /// The order differs between modes: every writer gets its own replicates
    /// ρ^0 … ρ^k (states integrated by DIFF, reinitialised by REINIT).
    Varying,
}

/// A multiplexer to emit: `target = case(branches)`.
#[derive(Clone, Debug)]
pub(crate) struct Mux {
    pub target: String,
    pub comment: String,
    pub branches: Vec<(Local, Expr)>,
    /// The modes in which the target is read: conditions are minimised on them.
    pub care: Local,
}

pub(crate) struct Plan<'a> {
    pub mdae: &'a Mdae<'a>,
    pub cdg: &'a Cdg,
    /// The regular modes: every condition is read on this set.
    pub care: Rc<Bdd>,
    /// The regular modes in factors: conditions as local sets (`analysis::local`).
    pub factored: Rc<Factored>,
    /// The regular modes as a local set (`Factored::local` of `care`).
    pub care_local: Local,
    /// Condition numbers: `conds[n - 1]`; blocks' conditions first, by first block. Each
    /// is held as a local set (issue 15: a whole BDD is O(N) nodes on the building, and
    /// the plan numbers O(N) conditions), the one `Factored::local` makes of its whole set.
    pub conds: Vec<Local>,
    /// Per CDG block, its condition number.
    pub block_cond: Vec<usize>,
    /// The writing units: per part, its CDG block and its condition number. Part p is
    /// block p unless [`Plan::split_blocks`] divided some block.
    pub part_block: Vec<usize>,
    pub part_cond: Vec<usize>,
    /// Per CDG block, its parts (in emission order).
    pub block_parts: Vec<Vec<usize>>,
    pub roles: Vec<Role>,
    /// Per variable: (part, leading order written).
    pub writers: Vec<Vec<(usize, u32)>>,
    pub by_name: BTreeMap<String, VarId>,
    pub namer: Namer,
    replicas: BTreeMap<(VarId, u32, usize), String>,
    /// Each replicate's (u, i, condition number), by name.
    replica_of: FxHashMap<String, (VarId, u32, usize)>,
    /// Discrete copies of a source's left limit taken when a mode is entered, to emit as
    /// `discrete` declarations: (name, what it holds, the variable whose attributes it
    /// carries) (`sections::repl`, issue 30: a block entered with a state reinit waits).
    pub samples: Vec<(String, String, VarId)>,
    sources: BTreeMap<(VarId, u32), String>,
    /// Untouched variables whose leading derivative u^(d) the output names (`x_p`, with
    /// `der(x) = x_p` in DIFF) instead of writing `der(x)`: those a conditional part reads
    /// ([`Plan::name_leading_read_conditionally`]).
    named_leading: BTreeSet<VarId>,
    /// Declarations to emit: (name, what it holds, and for a replicate the (u, i) of the
    /// u^(i) it replicates), in creation order ([`Plan::declare`]).
    pub declared: Vec<Declared>,
    declared_names: FxHashSet<String>,
    /// Multiplexers of read replicates and of varying sources, in creation order.
    pub muxes: Vec<Mux>,
    muxed: BTreeMap<String, ()>,
    /// Condition → its number: the blocks' conditions, then those numbered later, by the
    /// hash of the condition's whole BDD (canonical), each candidate checked on the local
    /// sets (an index instead of a scan of every condition per lookup; never iterated).
    numbers: FxHashMap<u64, Vec<usize>>,
    /// The names each multiplexer's right-hand side reads, by target, for the first
    /// `mux_deps_done` multiplexers ([`Plan::mux_deps`]).
    mux_deps: BTreeMap<String, BTreeSet<String>>,
    mux_deps_done: usize,
    /// [`Plan::modes_where`], by its argument.
    where_cache: FxHashMap<Vec<(ModeId, bool)>, usize>,
    /// [`Plan::valuation`], by its argument (a valuation is dense: O(modes) to build).
    valuations: RefCell<FxHashMap<Vec<(ModeId, bool)>, Rc<Option<BddPartialValuation>>>>,
    /// [`Plan::short`], by the local set's BDD and windows (the initial consistency equations
    /// and the multiplexers write the same conditions many times; each is an ISOP).
    shorts: RefCell<FxHashMap<(Bdd, Vec<usize>), crate::mdae::Cond>>,
}

/// A declaration DECL emits: its name, what it holds, and for a replicate of u^(i), (u, i).
pub(crate) type Declared = (String, String, Option<(VarId, u32)>);

fn primes(order: u32) -> String {
    if order == 0 { String::new() } else { format!("_{}", "p".repeat(order as usize)) }
}

/// `name` with `order` primes: a derivative of a variable (`x''`) or of an equation
/// (`e1'`), as the comments, warnings and messages write them.
pub(crate) fn primed(name: impl std::fmt::Display, order: u32) -> String {
    format!("{name}{}", "'".repeat(order as usize))
}

impl<'a> Plan<'a> {
    pub(crate) fn new(mdae: &'a Mdae, cdg: &'a Cdg, namer: Namer) -> Plan<'a> {
        let care = Rc::new(cdg.regular.clone());
        let factored = cdg.factored.clone();
        let mut conds: Vec<Local> = Vec::new();
        let mut block_cond = Vec::new();
        let mut numbers: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        for b in cdg.blocks.iter() {
            // Numbered by its canonical local set (`Factored::local_modulo`: the whole set,
            // O(N) nodes per condition, is never built).
            block_cond.push(number_in(&mut conds, &mut numbers, &factored, factored.local_modulo(b.cond.g())));
        }
        // Condition numbers follow the first block of each condition (paper: x_2 is x
        // under block 2's condition).
        let mut first_block: Vec<usize> = vec![0; conds.len()];
        for (b, &n) in block_cond.iter().enumerate().rev() {
            first_block[n - 1] = b + 1;
        }
        let part_block: Vec<usize> = (0..cdg.blocks.len()).collect();
        let writers = writers_of(cdg, mdae.vars.len(), &part_block);
        let roles = roles_of(cdg, &writers);
        let by_name = mdae.var_ids().map(|v| (mdae.var(v).name.to_string(), v)).collect();
        let care_local = factored.local(&care);
        let mut plan = Plan {
            mdae,
            cdg,
            care,
            factored,
            care_local,
            conds,
            block_cond: block_cond.clone(),
            part_cond: block_cond,
            block_parts: part_block.iter().map(|&b| vec![b]).collect(),
            part_block,
            roles,
            writers,
            by_name,
            namer,
            replicas: BTreeMap::new(),
            sources: BTreeMap::new(),
            named_leading: BTreeSet::new(),
            declared: Vec::new(),
            replica_of: FxHashMap::default(),
            samples: Vec::new(),
            declared_names: FxHashSet::default(),
            muxes: Vec::new(),
            muxed: BTreeMap::new(),
            numbers,
            mux_deps: BTreeMap::new(),
            mux_deps_done: 0,
            where_cache: FxHashMap::default(),
            valuations: RefCell::default(),
            shorts: RefCell::default(),
        };
        plan.renumber(&first_block);
        plan
    }

    /// Renumbers conditions so that condition n is the one of block n when block n is
    /// the first with it (gaps are fine: names only need to be unique).
    fn renumber(&mut self, first_block: &[usize]) {
        // The gaps share one set (no number refers to them).
        let mut conds = vec![self.factored.local(&self.cdg.space.mk_false()); self.cdg.blocks.len()];
        for (k, c) in self.conds.iter().enumerate() {
            conds[first_block[k] - 1] = c.clone();
        }
        for n in self.block_cond.iter_mut().chain(self.part_cond.iter_mut()) {
            *n = first_block[*n - 1];
        }
        for n in self.numbers.values_mut().flatten() {
            *n = first_block[*n - 1];
        }
        self.conds = conds;
    }

    /// Divides each block `b` with several `parts[b]` (a partition of its condition, in
    /// emission order) into one part per condition; the writers and roles follow the parts.
    /// Called before any name is made.
    pub(crate) fn split_blocks(&mut self, parts: &[Vec<Local>]) {
        let (mut part_block, mut part_cond, mut block_parts) = (Vec::new(), Vec::new(), Vec::new());
        for (b, conds) in parts.iter().enumerate() {
            let mut mine = Vec::new();
            if conds.len() <= 1 {
                mine.push(part_block.len());
                part_block.push(b);
                part_cond.push(self.block_cond[b]);
            }
            for c in conds.iter().filter(|_| conds.len() > 1) {
                mine.push(part_block.len());
                part_block.push(b);
                part_cond.push(self.cond_number_local(c));
            }
            block_parts.push(mine);
        }
        self.writers = writers_of(self.cdg, self.mdae.vars.len(), &part_block);
        self.roles = roles_of(self.cdg, &self.writers);
        (self.part_block, self.part_cond, self.block_parts) = (part_block, part_cond, block_parts);
    }

    /// The number of a condition given as a local set, allocated when it is new.
    pub(crate) fn cond_number_local(&mut self, c: &Local) -> usize {
        let l = self.canonical(c);
        number_in(&mut self.conds, &mut self.numbers, &self.factored, l)
    }

    /// The number of a condition given as a canonical local set ([`Plan::canonical`]),
    /// allocated when it is new (no second canonical form: over all windows, O(|R|)).
    pub(crate) fn cond_number_canonical(&mut self, c: &Local) -> usize {
        number_in(&mut self.conds, &mut self.numbers, &self.factored, c.clone())
    }

    /// Are `a` and `b` the same set?
    pub(crate) fn same(&self, a: &Local, b: &Local) -> bool {
        same(&self.factored, a, b)
    }

    /// The regular modes in which every mode of `at` has its value, numbered: one cube,
    /// built once per distinct `at` (the guards ask for the start values of every rewritten
    /// mode variable once per mode equation: N conjunctions each, O(N³) on Westinghouse),
    /// kept as its number only (its whole set is O(N) nodes, and the guards ask one per
    /// switch: O(N²) on the building).
    pub(crate) fn modes_where(&mut self, at: &[(ModeId, bool)]) -> (Local, usize) {
        if let Some(&n) = self.where_cache.get(at) {
            return (self.cond_local(n), n);
        }
        let space = &self.cdg.space;
        let lits: Vec<(BddVariable, bool)> = at.iter().map(|&(m, v)| (space.mode_vars[m.index()], v)).collect();
        // One literal: no dense valuation (O(modes) each, once per mode equation).
        let cube = match lits.as_slice() {
            &[(x, v)] => space.set.mk_literal(x, v),
            _ => match BddPartialValuation::from_values(&lits) {
                // The same variable asked with both values: no mode.
                p if lits.iter().all(|&(x, v)| p.get_value(x) == Some(v)) => space.set.mk_conjunctive_clause(&p),
                _ => space.set.mk_false(),
            },
        };
        let n = number_in(&mut self.conds, &mut self.numbers, &self.factored, self.factored.local_modulo(&cube));
        self.where_cache.insert(at.to_vec(), n);
        (self.cond_local(n), n)
    }

    /// Declares `name` (DECL), holding `what`; `var` = (u, i) for a replicate of u^(i).
    pub(crate) fn declare(&mut self, name: String, what: String, var: Option<(VarId, u32)>) {
        self.declared_names.insert(name.clone());
        self.declared.push((name, what, var));
    }

    /// Is `name` declared by the transformation?
    pub(crate) fn is_declared(&self, name: &str) -> bool {
        self.declared_names.contains(name)
    }

    /// The names read by each multiplexer made so far, by target (the right-hand side as
    /// [`Plan::case`] writes it: its conditions' names too); new ones are added as they come.
    pub(crate) fn mux_deps(&mut self) -> &BTreeMap<String, BTreeSet<String>> {
        while let Some(m) = self.muxes.get(self.mux_deps_done) {
            let names = super::guards::names_in(&self.case(&m.branches, &m.care));
            let target = m.target.clone();
            self.mux_deps.entry(target).or_default().extend(names);
            self.mux_deps_done += 1;
        }
        &self.mux_deps
    }

    /// [`Plan::mux_deps`] as last brought up to date (without the multiplexers made since).
    pub(crate) fn mux_deps_ref(&self) -> &BTreeMap<String, BTreeSet<String>> {
        &self.mux_deps
    }

    /// Condition number `n` as a local set.
    pub(crate) fn cond_local(&self, n: usize) -> Local {
        self.conds[n - 1].clone()
    }

    /// Condition number `n` as a local set (not a copy).
    pub(crate) fn cond(&self, n: usize) -> &Local {
        &self.conds[n - 1]
    }

    /// The local set `Factored::local` makes of the whole set of `c` (the form numbered
    /// conditions are held in: the texts made from it are those of the whole set).
    pub(crate) fn canonical(&self, c: &Local) -> Local {
        self.factored.local_modulo(c.g())
    }

    /// Short Modelica text of a condition given as a local set (invalid and singular modes
    /// are don't-cares).
    pub(crate) fn text(&self, c: &Local) -> String {
        self.short(c).to_modelica(&|m| self.cdg.space.names[m.index()].clone())
    }

    /// A condition, given as a local set, as a Modelica expression.
    pub(crate) fn expr(&self, c: &Local) -> Expr {
        exprs::cond_expr(&self.short(c), &|m| self.mode_expr(m))
    }

    /// `ModeSpace::to_cond(c, care)`, from the local set of c.
    fn short(&self, c: &Local) -> crate::mdae::Cond {
        let key = (c.g().clone(), c.windows().to_vec());
        if let Some(done) = self.shorts.borrow().get(&key) {
            return done.clone();
        }
        let cond = self.cdg.space.to_cond_local(c, &self.factored.all(), &self.factored);
        self.shorts.borrow_mut().insert(key, cond.clone());
        cond
    }

    pub(crate) fn mode_expr(&self, m: ModeId) -> Expr {
        mode_expr(self.mdae, m)
    }

    fn var_name(&self, u: VarId) -> &str {
        &self.mdae.var(u).name
    }

    /// ρ^i_c(u): the replicate of u^(i) under condition number `c` (declared once).
    pub(crate) fn replica(&mut self, u: VarId, i: u32, c: usize) -> String {
        if let Some(n) = self.replicas.get(&(u, i, c)) {
            return n.clone();
        }
        let base = format!("{}{}_{c}", Namer::plain(self.var_name(u)), primes(i));
        let n = self.namer.fresh(&base);
        let what = format!("{} if {}", primed(self.var_name(u), i), self.text(self.cond(c)));
        self.declare(n.clone(), what, Some((u, i)));
        self.replicas.insert((u, i, c), n.clone());
        self.replica_of.insert(n.clone(), (u, i, c));
        n
    }

    /// Is `n` a replicate ρ_c(u^(i))?
    pub(crate) fn is_replicate(&self, n: &str) -> bool {
        self.replica_of.contains_key(n)
    }

    /// Is `n` a state replicate that REINIT or RESTART sets when its mode is entered
    /// (ρ_c(u^(i)) of a varying u below the leading order of a writer under c)?
    pub(crate) fn is_reinit_target(&self, n: &str) -> bool {
        self.replica_of.get(n).is_some_and(|&(u, i, c)| {
            self.roles[u.index()] == Role::Varying
                && self.writers[u.index()].iter().any(|&(b, k)| self.part_cond[b] == c && i < k)
        })
    }

    /// The source u^(i): `u`, a dummy-derivative variable `u_p`, or `der(…)` of the
    /// source below it for the leading order of an untouched variable.
    pub(crate) fn source(&mut self, u: VarId, i: u32) -> Expr {
        if i == 0 {
            return name(self.var_name(u));
        }
        if let Role::Untouched { d } = self.roles[u.index()]
            && i >= d
            && !(i == d && self.named_leading.contains(&u))
        {
            let below = self.source(u, i - 1);
            return call("der", vec![below]);
        }
        if let Some(n) = self.sources.get(&(u, i)) {
            return name(n);
        }
        let base = format!("{}{}", Namer::plain(self.var_name(u)), primes(i));
        let n = self.namer.fresh(&base);
        self.declare(n.clone(), primed(self.var_name(u), i), None);
        self.sources.insert((u, i), n.clone());
        if self.roles[u.index()] == Role::Varying {
            // Defined by a multiplexer over every writer that integrates into u^(i).
            let branches = self.def_in(u, i, &self.care_local.clone()).into_iter().map(|(c, _)| c).collect::<Vec<_>>();
            let branches =
                branches.into_iter().map(|b| (self.cond_local(self.part_cond[b]), self.written(b, u, i))).collect();
            let comment = format!("{} by mode", primed(self.var_name(u), i));
            self.muxes.push(Mux { target: n.clone(), comment, branches, care: self.care_local.clone() });
        }
        name(&n)
    }

    /// The source u^(i) if the output already names it (never declares a new one).
    pub(crate) fn existing_source(&self, u: VarId, i: u32) -> Option<Expr> {
        if i == 0 {
            return Some(name(self.var_name(u)));
        }
        if let Some(n) = self.sources.get(&(u, i)) {
            return Some(name(n));
        }
        match self.roles[u.index()] {
            Role::Untouched { d } if !(i == d && self.named_leading.contains(&u)) => {
                Some(call("der", vec![self.existing_source(u, i - 1)?]))
            }
            _ => None,
        }
    }

    /// Whether the output names u's leading derivative ([`Plan::source`]).
    pub(crate) fn names_leading(&self, u: VarId) -> bool {
        self.named_leading.contains(&u)
    }

    /// Names the leading derivative u^(d) of every untouched variable that a part under a
    /// condition reads (issue 29 class 6: rumoca solves no derivative that an if-branch or
    /// if-expression reads among others, `affine derivative block outputs are not
    /// contiguous`, campaign seed 983; named, it is one more unknown of the algebraic
    /// system, as the tool's other derivatives are). Every equation then reads the name.
    /// The same for the leading derivatives a block solves together with other unknowns
    /// (an implicit system of derivatives, campaign seed 7333: `0 = der(x4) + … +
    /// 0.14*der(x2)` with the derivative of a constraint on x2 and x4).
    pub(crate) fn name_leading_read_conditionally(&mut self) {
        for b in 0..self.part_block.len() {
            let block = self.cdg.blocks.get(self.part_block[b]);
            let conditional = !self.factored.covers(self.cond(self.part_cond[b]));
            let implicit = block.writes.len() > 1;
            let leading =
                |(u, i): (VarId, u32)| matches!(self.roles[u.index()], Role::Untouched { d } if d > 0 && i == d);
            let mut named: Vec<VarId> = Vec::new();
            if conditional {
                named.extend(block.reads.iter().copied().filter(|&r| leading(r)).map(|(u, _)| u));
            }
            if implicit {
                named.extend(block.writes.iter().copied().filter(|&w| leading(w)).map(|(u, _)| u));
            }
            self.named_leading.extend(named);
        }
    }

    /// How part `b`, which writes u up to its leading order, names u^(i).
    pub(crate) fn written(&mut self, b: usize, u: VarId, i: u32) -> Expr {
        match self.roles[u.index()] {
            Role::Untouched { .. } => self.source(u, i),
            Role::Shared { d } if i < d => self.source(u, i),
            Role::Shared { .. } | Role::Varying => {
                let c = self.part_cond[b];
                name(&self.replica(u, i, c))
            }
        }
    }

    /// Def_c(u, i): parts writing u at an order ≥ i whose condition meets `c`.
    pub(crate) fn def_in(&self, u: VarId, i: u32, c: &Local) -> Vec<(usize, u32)> {
        let writers = self.writers[u.index()].iter().copied().filter(|&(_, k)| k >= i);
        writers.filter(|&(b, _)| self.factored.meets(self.cond(self.part_cond[b]), c)).collect()
    }

    /// The values `at` gives the mode variables, as a partial valuation of the BDD
    /// variables (`None`: a mode asked with both values, no mode).
    pub(crate) fn valuation(&self, at: &[(ModeId, bool)]) -> Rc<Option<BddPartialValuation>> {
        if let Some(v) = self.valuations.borrow().get(at) {
            return v.clone();
        }
        let space = &self.cdg.space;
        let lits: Vec<(BddVariable, bool)> = at.iter().map(|&(m, v)| (space.mode_vars[m.index()], v)).collect();
        let valuation = BddPartialValuation::from_values(&lits);
        // No regular mode with these values: none either (`def_at` tests the local sets).
        let v = Rc::new(
            (lits.iter().all(|&(x, v)| valuation.get_value(x) == Some(v))
                && !self.care.restrict_valuation(&valuation).is_false())
            .then_some(valuation),
        );
        // Kept for the cube of start values asked once per mode equation; one literal asked
        // per switch is not kept (O(modes) each: quadratic memory over every switch).
        if at.len() > 1 {
            self.valuations.borrow_mut().insert(at.to_vec(), v.clone());
        }
        v
    }

    /// [`Plan::def_in`] under `modes_where(at)`, given `at` as a [`Plan::valuation`], tested
    /// by restriction: a block's condition (⊆ care) meets care ∧ cube(`at`) iff its
    /// restriction to the values of `at` is not false, O(|condition|); the conjunction
    /// with the cube is O(|at|) (issue 15: the initial guards ask it per name under the
    /// start values of all N mode variables, quadratic on Westinghouse). The same result
    /// as `def(u, i, &modes_where(at))`.
    pub(crate) fn def_at(&self, u: VarId, i: u32, at: Option<&BddPartialValuation>) -> Vec<(usize, u32)> {
        let Some(at) = at else { return Vec::new() };
        self.writers[u.index()]
            .iter()
            .copied()
            .filter(|&(b, k)| k >= i && !self.cond(self.part_cond[b]).g().restrict_valuation(at).is_false())
            .collect()
    }

    /// Is u^(i) a leading variable in some mode of `c`?
    pub(crate) fn leading_in(&self, u: VarId, i: u32, c: &Local) -> bool {
        let orders = self.cdg.orders.get(u.index());
        orders.iter().any(|(d, m)| *d == i && self.factored.meets(m, c))
    }

    /// u^(i) as read under condition number `c` (see the module header).
    pub(crate) fn read(&mut self, u: VarId, i: u32, c: usize) -> Expr {
        let cond = self.cond_local(c);
        if self.roles[u.index()] != Role::Varying && !self.leading_in(u, i, &cond) {
            return self.source(u, i);
        }
        let def = self.def_in(u, i, &cond);
        if let [(b, _)] = def.as_slice() {
            return self.written(*b, u, i);
        }
        if def.len() == self.def_in(u, i, &self.care_local.clone()).len() {
            return self.source(u, i);
        }
        let n = self.replica(u, i, c);
        if self.muxed.insert(n.clone(), ()).is_none() {
            let branches =
                def.iter().map(|&(b, _)| (self.cond_local(self.part_cond[b]), self.written(b, u, i))).collect();
            let comment = format!("{} if {}", primed(self.var_name(u), i), self.text(&cond));
            self.muxes.push(Mux { target: n.clone(), comment, branches, care: cond });
        }
        name(&n)
    }

    /// u^(i) as read under condition number `c` where that names a variable the output
    /// already has — the source where [`Plan::read`] reads it, the replicate of the only
    /// writer over `c` —, `None` where it would need a read replicate of its own.
    pub(crate) fn read_existing(&mut self, u: VarId, i: u32, c: usize) -> Option<Expr> {
        let cond = self.cond_local(c);
        if self.roles[u.index()] != Role::Varying && !self.leading_in(u, i, &cond) {
            return self.existing_source(u, i);
        }
        match self.def_in(u, i, &cond).as_slice() {
            &[(b, _)] => Some(self.written(b, u, i)),
            _ => None,
        }
    }

    /// `case(branches)`: `if c1 then e1 elseif … else en`. The branch with the longest
    /// condition is the default; each condition is written shortest given the
    /// branches before it (Figure 15: `if bh then x_p_6 else if bl then x_p_4 else x_p_7`).
    pub(crate) fn case(&self, branches: &[(Local, Expr)], care: &Local) -> Expr {
        let mut sorted: Vec<(usize, &(Local, Expr))> = branches.iter().map(|b| (self.text(&b.0).len(), b)).collect();
        sorted.sort_by_key(|x| x.0);
        let Some(((_, last), rest)) = sorted.split_last() else { return number("0") };
        let mut care = care.clone();
        let mut arms = Vec::new();
        for (_, (c, e)) in rest {
            let cond = self.cdg.space.to_cond_local(c, &care, &self.factored);
            arms.push((exprs::cond_expr(&cond, &|m| self.mode_expr(m)), e.clone()));
            care = self.factored.and_not(&care, c);
        }
        exprs::if_expr(arms, last.1.clone())
    }
}

/// The number of the set `l` (the local set `Factored::local` makes of its whole set) in
/// `conds`, allocated when new.
fn number_in(conds: &mut Vec<Local>, numbers: &mut FxHashMap<u64, Vec<usize>>, fz: &Factored, l: Local) -> usize {
    let ks = numbers.entry(fingerprint(&l)).or_default();
    if let Some(&k) = ks.iter().find(|&&k| same(fz, &conds[k - 1], &l)) {
        return k;
    }
    conds.push(l);
    ks.push(conds.len());
    conds.len()
}

/// The hash of a local set in the form `Factored::local` makes of a whole set (canonical:
/// one per set, as the whole BDD is).
fn fingerprint(l: &Local) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    l.g().hash(&mut h);
    l.windows().hash(&mut h);
    h.finish()
}

/// Are `a` and `b` the same set?
fn same(fz: &Factored, a: &Local, b: &Local) -> bool {
    !fz.meets_not(a, b) && !fz.meets_not(b, a)
}

/// Per variable, the parts (`part_block`: part → block) that write it, with the order.
fn writers_of(cdg: &Cdg, n_vars: usize, part_block: &[usize]) -> Vec<Vec<(usize, u32)>> {
    let mut writers = vec![Vec::new(); n_vars];
    for (p, &b) in part_block.iter().enumerate() {
        for &(v, k) in cdg.blocks.get(b).writes {
            writers[v.index()].push((p, k));
        }
    }
    writers
}

/// Each variable's role, from its leading orders over the regular modes and its writers.
fn roles_of(cdg: &Cdg, writers: &[Vec<(usize, u32)>]) -> Vec<Role> {
    (0..writers.len())
        .map(|v| {
            let orders: Vec<u32> =
                cdg.orders.get(v).iter().filter(|(_, m)| !cdg.factored.is_false(m)).map(|x| x.0).collect();
            match (orders.as_slice(), writers[v].len()) {
                ([d], 1) => Role::Untouched { d: *d },
                ([d], _) => Role::Shared { d: *d },
                _ => Role::Varying,
            }
        })
        .collect()
}

/// The Modelica expression of mode `m`: its variable, its atom as written, or `var == value`.
pub(crate) fn mode_expr(mdae: &Mdae, m: ModeId) -> Expr {
    let mode = mdae.mode(m);
    match &mode.kind {
        ModeKind::Variable => name(&mode.name),
        ModeKind::Atom { .. } => mdae.atom_exprs.get(&m).cloned().unwrap_or_else(|| name(&mode.name)),
        ModeKind::Value { var, value } => {
            let v = if value.parse::<i64>().is_ok() { number(value) } else { name(value) };
            binary(BinOp::Eq, name(var), v)
        }
    }
}
