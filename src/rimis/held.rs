//! What a §4.7-guarded block holds outside its modes (issue 29, class 5).
//!
//! A nonlinear (or partial) conditional block is written `if cond then eqs else w = …`
//! (`sections::guarded`). Entering its modes, the simulator solves the block starting
//! from the values it held just before; held at 0, the solve may land on another root
//! (WrongRootAfterTrivialBlock: x2 jumped by 0.58, silently), where the original's solver
//! would have gone on from the variable's current value. So outside cond(b) each written
//! replicate ρ_b(u^(k)) holds the value of u^(k) there: the replicate of the other
//! writers of u^(k) under their conditions (`x2_2 = x2_1`), one directly, several through
//! a multiplexer on their conditions.
//!
//! Input: the [`Plan`] with its parts. Output: per written variable, the expression to
//! hold, or `None` (then 0, as before). Not the variable's declared start instead: tried
//! (campaign seeds 9167, 6622 right from t = 0 with it), it made the solve at an entry land
//! on another root (seed 465, HeldZeroWhenEnteredLater), and, held by a block of the mode
//! the model starts in, it turned the guard that had just entered the next mode back
//! (`x2_1 < 0.5466` false again with x2_1 = 1: rumoca's event iteration did not converge,
//! 8 seeds such as 385); more seeds lost than won, both ways.
//!
//! Invariant: no loop in the output's single-mode structure, algebraic or through a
//! discrete variable. Reading another writer p adds the dependency p → b. Where p writes a
//! higher derivative of u, its ρ_p(u^(k)) is a state replicate (integrated by DIFF): known,
//! no dependency. Otherwise p is read only if b does not already reach p in the output's
//! dependency graph, and a multiplexer over several writers only if b reaches none of the
//! mode variables its conditions read; what would close a loop is left out. Where the
//! multiplexer over all of them would, those that close none even through a guard
//! fixpoint, else the state replicates alone (campaign seed 722), else one writer alone, a
//! state replicate first; with nothing left the value is 0. A guard fixpoint read on its
//! left limit (`pre(m)`) inside its loops closes none: reachability does not go through
//! its mode (`fixpoint`; campaign seeds 4959, 6899), and the fixpoints a held value is read
//! through (`read_through`) get a hysteresis on their switches (`mod.rs`). The graph (built
//! before REPL, so it assumes
//! the worst of what REPL will write, knowing which parts it guards): an edge w → r between
//! parts when r reads, within the instant, what w writes (through a replicate, a read
//! multiplexer or the source, as `split.rs` builds it for blocks); m → r when part r may
//! read mode m (the condition of its §4.7 guard, or the condition of a writer it reads
//! through a multiplexer); w → m when
//! part w writes, as an algebraic value, a variable that m's mode equation or atom reads;
//! m' → m when it reads the mode variable m'; plus the edges this pass adds. So no §4.7
//! guard's else branch closes a loop through a `when`-equation (CupAndBall: the block of
//! the rope holds 0 outside its mode, since its tension reaches `gamma`'s switch, which the
//! free-flight blocks read). The multiplexed source u itself is never read: it is written
//! from ρ_b.

use super::guards::names_in;
use super::plan::{Plan, Role};
use crate::analysis::local::Local;
use crate::mdae::Mode;
use crate::mdae::{ModeKind, VarId};
use crate::syntax::ast::{Equation, EquationKind, Expr};
use std::collections::{BTreeMap, BTreeSet};

/// The most nodes [`Held::reaches_back`] meets before it leaves the question to a search
/// forward.
const BACK_NODES: usize = 256;

/// The output's dependency graph (module header): nodes are the parts, then the modes;
/// `succ[x]` holds what depends on x within the instant.
pub(crate) struct Held {
    succ: Vec<Vec<usize>>,
    /// The reverse of `succ` (made once the graph of the parts and modes is built).
    pred: Vec<Vec<usize>>,
    parts: usize,
    /// The mode of each BDD variable of the mode space.
    mode_of: BTreeMap<biodivine_lib_bdd::BddVariable, usize>,
    /// The modes on a loop of the graph before any value is held: guard fixpoints, whose
    /// loops the output cuts in their real equations (`pre(m)`), so a held value closes no
    /// loop through them (campaign seeds 4959, 6899: the block of the mode entered held 0,
    /// a second root of its nonlinear system, since its writer's value seemed to reach it
    /// through `b1`, a guard fixpoint read on its left limit). Their switching conditions
    /// have a hysteresis (`guards::sticky` in `mod.rs`): held values continuous with the
    /// real ones must not give the condition of the switch back an edge at the entry.
    fixpoint: Vec<bool>,
    /// The guard fixpoints through whose loops a held value was read (only thanks to the
    /// cut): their switches take a hysteresis.
    pub(crate) read_through: BTreeSet<usize>,
}

impl Held {
    /// The graph of the plan's parts and modes before any §4.7 guard reads another writer;
    /// `kept` are the input's equations that are not real mDAE equations (mode equations,
    /// when-equations, asserts).
    pub(crate) fn new(plan: &Plan, kept: &[Equation], guarded: &[bool]) -> Held {
        let n = plan.part_block.len();
        let space = &plan.cdg.space;
        let mode_of = space.mode_vars.iter().enumerate().map(|(m, &v)| (v, m)).collect();
        let mut held = Held {
            succ: vec![Vec::new(); n + space.mode_vars.len()],
            pred: Vec::new(),
            parts: n,
            mode_of,
            fixpoint: vec![false; space.mode_vars.len()],
            read_through: BTreeSet::new(),
        };
        for r in 0..n {
            let cond = plan.cond(plan.part_cond[r]).clone();
            // A part written without the §4.7 guard is computed in every mode: it does not
            // read its condition (campaign seed 9388: the block of `b2` held 0 since its
            // guard's mode seemed to reach the block of `not b2`, written as it is).
            if guarded[r] {
                held.modes_to(plan.cond(plan.part_cond[r]), r);
            }
            for &(u, i) in plan.cdg.blocks.get(plan.part_block[r]).reads {
                if plan.roles[u.index()] != Role::Varying && !plan.leading_in(u, i, &cond) {
                    continue; // a kept state: known
                }
                let def = plan.def_in(u, i, &cond);
                for &(w, k) in &def {
                    if k == i && w != r {
                        held.succ[w].push(r);
                    }
                    if def.len() > 1 {
                        held.modes_to(plan.cond(plan.part_cond[w]), r); // read through a multiplexer
                    }
                }
            }
        }
        // What each mode reads: every name of the kept equations (mode equations, when-
        // equations) that define its variable, or its atom.
        let defs = definitions(kept);
        for (m, mode) in plan.mdae.modes.iter().enumerate() {
            let reads: BTreeSet<String> = match &mode.kind {
                ModeKind::Atom { .. } => {
                    plan.mdae.atom_exprs.get(&crate::mdae::ModeId(m as u32)).map(names_in).unwrap_or_default()
                }
                ModeKind::Variable | ModeKind::Value { .. } => {
                    let var = variable(mode);
                    defs.iter().filter(|(d, _)| d.contains(var)).flat_map(|(_, r)| r.iter().cloned()).collect()
                }
            };
            for name in reads {
                for (m2, mode2) in plan.mdae.modes.iter().enumerate() {
                    if variable(mode2) == name {
                        held.succ[n + m2].push(n + m);
                    }
                }
                if let Some(&u) = plan.by_name.get(&name) {
                    for &(w, k) in &plan.writers[u.index()] {
                        if k == 0 {
                            held.succ[w].push(n + m);
                        }
                    }
                }
            }
        }
        // A mode on a loop: in a strongly connected component with another node, or with
        // an edge to itself.
        let graph = petgraph::graph::DiGraph::<(), ()>::from_edges(
            held.succ.iter().enumerate().flat_map(|(x, ys)| ys.iter().map(move |&y| (x as u32, y as u32))),
        );
        let mut component = vec![usize::MAX; held.succ.len()];
        let mut size = Vec::new();
        for (c, nodes) in petgraph::algo::tarjan_scc(&graph).into_iter().enumerate() {
            size.push(nodes.len());
            for x in nodes {
                component[x.index()] = c;
            }
        }
        held.fixpoint = (0..held.fixpoint.len())
            .map(|m| {
                let x = n + m;
                held.succ[x].contains(&x) || component.get(x).is_some_and(|&c| c != usize::MAX && size[c] > 1)
            })
            .collect();
        held.pred = vec![Vec::new(); held.succ.len()];
        for (x, ys) in held.succ.iter().enumerate() {
            for &y in ys {
                held.pred[y].push(x);
            }
        }
        held
    }

    /// An edge x → y added once the graph is built.
    fn add_edge(&mut self, x: usize, y: usize) {
        self.succ[x].push(y);
        self.pred[y].push(x);
    }

    /// Edges m → `to` from every mode the set `c` reads.
    fn modes_to(&mut self, c: &Local, to: usize) {
        for m in self.modes_of(c) {
            self.succ[self.parts + m].push(to);
        }
    }

    /// The modes a set reads (the support of its BDD).
    fn modes_of(&self, c: &Local) -> Vec<usize> {
        let mut ms: Vec<usize> = c.g().support_set().iter().filter_map(|v| self.mode_of.get(v).copied()).collect();
        ms.sort_unstable();
        ms
    }

    /// Is mode `m` (its index) a guard fixpoint, whose loops the output cuts by `pre(m)`?
    pub(crate) fn is_fixpoint(&self, m: usize) -> bool {
        self.fixpoint[m]
    }

    /// What part `b`'s replicate of u^(k) holds outside cond(b) (module header).
    pub(crate) fn value(&mut self, plan: &mut Plan, b: usize, u: VarId, k: u32) -> Option<Expr> {
        if plan.roles[u.index()] == (Role::Untouched { d: k }) {
            return None; // its only writer: no other value to hold
        }
        let outside = plan.factored.and_not(&plan.care_local, plan.cond(plan.part_cond[b]));
        if plan.factored.is_false(&outside) {
            return None;
        }
        let others: Vec<(usize, u32)> = plan.def_in(u, k, &outside).into_iter().filter(|&(p, _)| p != b).collect();
        // What b reaches, with and without the cut: each node asked searched back from it
        // (`reaches_back`: a few nodes, where b's descendants were half the graph of the
        // building, O(N²) over its blocks), else one search forward per cut for all (the
        // graph changes only below, once the value is chosen).
        let forward: [std::cell::OnceCell<Vec<bool>>; 2] = Default::default();
        let reach = |x: usize, cut: bool| {
            self.reaches_back(b, x, cut)
                .unwrap_or_else(|| forward[usize::from(!cut)].get_or_init(|| self.reached(b, cut))[x])
        };
        let pick = |cut: bool| -> Vec<(usize, bool)> {
            others.iter().map(|&(p, kp)| (p, kp == k)).filter(|&(p, inst)| !(inst && reach(p, cut))).collect()
        };
        let closes = |set: &[(usize, bool)]| self.mux_modes(plan, set).iter().any(|&m| reach(self.parts + m, true));
        // Every other writer that closes no loop (through a guard fixpoint's mode too:
        // its loops are cut by `pre`); where a multiplexer over them would close one through
        // its modes, those that close none even through a fixpoint (the multiplexer reads
        // fewer modes: TwoTankPorts); else the state replicates alone, which depend on
        // nothing within the instant (campaign seed 722: the block entered holds the state
        // replicate of the mode left, the variable's current value, not 0, its other root);
        // else one writer alone, a state replicate first (a value of the variable in a mode,
        // not 0; campaign seed 41).
        let mut chosen = pick(true);
        if closes(&chosen) {
            let uncut = pick(false);
            let states: Vec<(usize, bool)> = chosen.iter().copied().filter(|&(_, inst)| !inst).collect();
            chosen = if !uncut.is_empty() && !closes(&uncut) {
                uncut
            } else if !states.is_empty() && !closes(&states) {
                states
            } else {
                vec![states.first().copied().unwrap_or(chosen[0])]
            };
        }
        let mux_modes = self.mux_modes(plan, &chosen);
        if chosen.is_empty() || mux_modes.iter().any(|&m| reach(self.parts + m, true)) {
            return None;
        }
        // What the cut allowed: the fixpoints `b` reaches without it, where it now reads a
        // writer or a multiplexer's mode that it reaches only through them.
        let through_cut = chosen.iter().any(|&(p, inst)| inst && reach(p, false))
            || mux_modes.iter().any(|&m| reach(self.parts + m, false));
        if through_cut {
            let uncut = forward[1].get_or_init(|| self.reached(b, false));
            let fixpoints: Vec<usize> =
                (0..self.fixpoint.len()).filter(|&m| self.fixpoint[m] && uncut[self.parts + m]).collect();
            self.read_through.extend(fixpoints);
        }
        for &(p, inst) in &chosen {
            if inst {
                self.add_edge(p, b);
            }
        }
        for m in mux_modes {
            self.add_edge(self.parts + m, b);
        }
        let branches: Vec<(Local, Expr)> =
            chosen.iter().map(|&(p, _)| (plan.cond_local(plan.part_cond[p]), plan.written(p, u, k))).collect();
        match branches.as_slice() {
            [(_, e)] => Some(e.clone()),
            _ => Some(plan.case(&branches, &outside)),
        }
    }

    /// The modes a multiplexer over the writers `chosen` reads (none for a single writer).
    fn mux_modes(&self, plan: &Plan, chosen: &[(usize, bool)]) -> Vec<usize> {
        if chosen.len() < 2 {
            return Vec::new();
        }
        let mut ms: Vec<usize> =
            chosen.iter().flat_map(|&(p, _)| self.modes_of(plan.cond(plan.part_cond[p]))).collect();
        ms.sort_unstable();
        ms.dedup();
        ms
    }

    /// Does `from` reach `to` (as [`Held::reached`] says), searched back from `to`; `None`
    /// past [`BACK_NODES`] nodes met (then the search forward answers).
    fn reaches_back(&self, from: usize, to: usize, cut: bool) -> Option<bool> {
        if from == to {
            return Some(true);
        }
        // A node the search forward reaches but does not go through: a guard fixpoint's
        // mode, with the cut (not `from` itself).
        let stops = |x: usize| cut && x != from && x >= self.parts && self.fixpoint[x - self.parts];
        let mut seen: rustc_hash::FxHashSet<usize> = rustc_hash::FxHashSet::default();
        let mut stack = vec![to];
        seen.insert(to);
        while let Some(y) = stack.pop() {
            for &x in &self.pred[y] {
                if x == from {
                    return Some(true);
                }
                if !stops(x) && seen.insert(x) {
                    if seen.len() > BACK_NODES {
                        return None;
                    }
                    stack.push(x);
                }
            }
        }
        Some(false)
    }

    /// What `from` reaches (itself included); with `cut`, not through a guard fixpoint's
    /// mode, read on its left limit inside its loops (`fixpoint`): such a mode is reached,
    /// not gone through.
    fn reached(&self, from: usize, cut: bool) -> Vec<bool> {
        let mut reached = vec![false; self.succ.len()];
        let mut expanded = vec![false; self.succ.len()];
        let mut stack = vec![from];
        reached[from] = true;
        while let Some(x) = stack.pop() {
            let stop = cut && x != from && x >= self.parts && self.fixpoint[x - self.parts];
            if !stop && !std::mem::replace(&mut expanded[x], true) {
                for &y in &self.succ[x] {
                    reached[y] = true;
                    stack.push(y);
                }
            }
        }
        reached
    }
}

/// The variable a mode stands for (a Boolean's name, an Integer's for `k == v`).
fn variable(mode: &Mode) -> &str {
    match &mode.kind {
        ModeKind::Value { var, .. } => var,
        _ => &mode.name,
    }
}

/// Per kept equation, the names it defines (left sides, in every branch) and every name it
/// reads within the instant (conditions and right sides; `pre(…)` is known).
fn definitions(kept: &[Equation]) -> Vec<(BTreeSet<String>, BTreeSet<String>)> {
    fn walk(eq: &Equation, defs: &mut BTreeSet<String>, reads: &mut BTreeSet<String>) {
        let body =
            |cond: Option<&Expr>, eqs: &[Equation], defs: &mut BTreeSet<String>, reads: &mut BTreeSet<String>| {
                reads.extend(cond.map(names_in).unwrap_or_default());
                eqs.iter().for_each(|e| walk(e, defs, reads));
            };
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                defs.extend(names_in(lhs));
                reads.extend(names_in(rhs));
            }
            EquationKind::If { branches, else_branch } => {
                branches.iter().for_each(|(c, b)| body(Some(c), b, defs, reads));
                else_branch.iter().for_each(|b| body(None, b, defs, reads));
            }
            EquationKind::When { branches } => branches.iter().for_each(|(c, b)| body(Some(c), b, defs, reads)),
            EquationKind::For { body: b, .. } => body(None, b, defs, reads),
            EquationKind::Call(_) | EquationKind::Connect(_) => {}
        }
    }
    kept.iter()
        .map(|eq| {
            let (mut defs, mut reads) = (BTreeSet::new(), BTreeSet::new());
            walk(eq, &mut defs, &mut reads);
            (defs, reads)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search back answers as the search forward does, with and without the cut, on
    /// random graphs with loops and guard fixpoints among the modes.
    #[test]
    fn searching_back_agrees_with_searching_forward() {
        let mut rnd = crate::analysis::local::xorshift(0x2545_f491_4f6c_dd1d);
        let (mut met, mut missed) = (0, 0);
        for _ in 0..200 {
            let (parts, modes) = (4 + rnd(20) as usize, 1 + rnd(6) as usize);
            let n = parts + modes;
            let mut succ = vec![Vec::new(); n];
            for _ in 0..rnd(3 * n as u64) {
                succ[rnd(n as u64) as usize].push(rnd(n as u64) as usize);
            }
            let mut pred = vec![Vec::new(); n];
            for (x, ys) in succ.iter().enumerate() {
                ys.iter().for_each(|&y| pred[y].push(x));
            }
            let fixpoint = (0..modes).map(|_| rnd(2) == 0).collect();
            let held = Held { succ, pred, parts, mode_of: BTreeMap::new(), fixpoint, read_through: BTreeSet::new() };
            for from in 0..n {
                for cut in [true, false] {
                    let forward = held.reached(from, cut);
                    for (to, &r) in forward.iter().enumerate() {
                        assert_eq!(held.reaches_back(from, to, cut), Some(r), "{from} -> {to}, cut {cut}");
                        if r { met += 1 } else { missed += 1 }
                    }
                }
            }
        }
        assert!(met > 1000 && missed > 1000, "both answers are tested: {met} {missed}");
    }
}
