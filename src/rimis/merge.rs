//! Merged blocks (issue 32, point 1): a mode variable's replicates written once, on the
//! multiplexed unknowns, where that is the same model.
//!
//! RIMIS (paper 000 §4.6) writes each block of a mode once per condition, on replicates,
//! and multiplexes them: per Westinghouse car, 16 replicate unknowns and 8 multiplexers for
//! the original's 8 unknowns. omc builds such an output at twice the original's cost. Where a
//! mode variable `m` splits a set U of multiplexed unknowns into two sides,
//!
//! - the multiplexers `u = if m then x_u else y_u` (u ∈ U), no other reader of x_u, y_u
//!   than the blocks below, the mode equations (guards, chatter detectors), and the
//!   multiplexer;
//! - one side, H, whose blocks are all §4.7-guarded by its condition (`pre(m)` or `m`, or
//!   their negation) and hold the other side's replicates outside it (`x_u = y_u` for every
//!   u), so that x_u is, at every instant, the value of u in the mode the blocks are
//!   computed in;
//! - the other side, T, whose blocks are guarded by the complementary condition (trivial
//!   outside it) or computed in every mode;
//! - |U| equations on each side;
//!
//! the blocks of both sides become one system on U: the equations both sides write alike,
//! then `if c_H then <H's others> else <T's others>`, and the multiplexers and replicates go.
//! It is the same model: the merged u equals the held side's replicate at every instant
//! (where c_H holds both solve H's equations on the same inputs; elsewhere both hold T's
//! solution, which T's blocks compute there), so the mode equations read u where they read
//! it. Where the blocks read `pre(m)` and the multiplexers `m`, the two differ on the one
//! step of an event iteration where `m` changed and the blocks have not yet: a multiplexed u
//! is then left as merged only where nothing but DIFF reads it (the derivative of a kept
//! state, which no event reads). A T replicate the mode equations read (the entering guard's
//! `fv = 0` of a closed valve) keeps its own block where that block is `t = e` with e free
//! of replicates, and the merged system reads it through `u = t`. Anything else (state
//! replicates, REINIT, checks, initial equations reading a replicate) leaves the group as
//! RIMIS wrote it; so do blocks that read what depends on U through blocks outside the group
//! (the two sides' orders could then close a loop of the union structure through them,
//! campaign seed 5360), an if-equation branch that reads a derivative (rumoca, issue 29
//! class 6), and a merged system with an irreducible block of its union structure singular
//! with either side's equations. The driver's self-check reads each merged group
//! (`// Blocks k l m merged:`) as a union of blocks of the output's triangular form.

use super::exprs;
use super::guards::Deps;
use super::{Item, RimisModel};
use crate::syntax::ast::{Element, Equation, EquationKind, Expr, ExprKind, UnOp};
use crate::syntax::printer::equation_to_string;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet};

const MODES: &str = "mode equations";
pub(super) const MULTI: &str = "MULTI";
pub(super) const REPL: &str = "REPL";
const DIFF: &str = "DIFF";

/// One multiplexer `u = if m then x else y`, by its place in MULTI.
pub(super) struct Mux {
    pub(super) item: usize,
    pub(super) u: String,
    pub(super) x: String,
    pub(super) y: String,
}

/// The condition of a guarded block: the mode variable read on its left limit or not,
/// and on which side.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Guard {
    left_limit: bool,
    positive: bool,
}

enum Writer {
    /// `if c then body else holds`: `held` when the else branch holds the other side's
    /// replicates (`x_u = y_u`), else trivial (constants).
    Guarded { guard: Guard, cond: Expr, body: Vec<Equation>, writes: BTreeSet<String>, held: bool },
    /// An equation of every mode.
    Every(Equation),
}

/// Merges every group it can; the others stay as RIMIS wrote them. Every group is planned
/// on the model as RIMIS wrote it (their names are disjoint), then all are applied at once.
///
/// `deps` (each written name → what its block reads) and `mux_deps` (each multiplexer's
/// target → what it reads) are the output's instantaneous dependencies: a group is merged
/// only where none of what its blocks read depends on what they write through the rest of
/// the model (the sides' orders could then form one loop of the merged system's union
/// structure with blocks outside it, which the replicates kept apart).
pub(crate) fn merge_groups(out: &mut RimisModel, deps: &Deps, mux_deps: &Deps, replicates: &dyn Fn(&str) -> bool) {
    let (Some(multi), Some(repl)) = (section(out, MULTI), section(out, REPL)) else { return };
    let mut groups: BTreeMap<String, Vec<Mux>> = BTreeMap::new();
    for (k, it) in out.sections[multi].items.iter().enumerate() {
        if let Some((m, mux)) = mux_of(&it.equation, k, replicates) {
            groups.entry(m).or_default().push(mux);
        }
    }
    let mut readers: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    for (w, reads) in deps.iter().chain(mux_deps) {
        for r in reads {
            readers.entry(r.as_str()).or_default().push(w.as_str());
        }
    }
    let wanted: FxHashSet<&str> =
        groups.values().flatten().flat_map(|x| [x.u.as_str(), x.x.as_str(), x.y.as_str()]).collect();
    let index = Index::of(out, &wanted);
    let plans: Vec<(Vec<Mux>, GroupPlan)> = groups
        .into_iter()
        .filter_map(|(m, muxes)| {
            let plan = plan_group(out, &index, multi, repl, &m, &muxes, replicates, &readers)?;
            Some((muxes, plan))
        })
        .collect();
    if !plans.is_empty() {
        apply(out, multi, repl, plans);
    }
}

/// Where the groups' names occur: per name, the equations of the output that read it (an
/// item of a section, or an initial equation: section `sections.len()`) and whether under
/// `pre`, `der` or `reinit`. Built in one pass over the output, for the groups' names only
/// (each group then looks up its own, not every equation: 1,000 valves would be quadratic).
pub(super) struct Index {
    at: FxHashMap<String, Vec<(usize, usize, bool)>>,
}

impl Index {
    pub(super) fn of(out: &RimisModel, wanted: &FxHashSet<&str>) -> Index {
        let mut at: FxHashMap<String, Vec<(usize, usize, bool)>> = FxHashMap::default();
        let sections = out.sections.iter().map(|s| &s.items).chain(std::iter::once(&out.initial));
        for (si, items) in sections.enumerate() {
            for (k, it) in items.iter().enumerate() {
                crate::syntax::visit::equation_exprs(&it.equation, &mut |e| {
                    visit(e, false, &mut |n, under| {
                        if wanted.contains(n) {
                            let list = at.entry(n.to_string()).or_default();
                            if !list.contains(&(si, k, under)) {
                                list.push((si, k, under));
                            }
                        }
                    })
                });
            }
        }
        Index { at }
    }

    /// The equations that read any of `names` (ascending).
    fn readers<'a>(&self, names: impl Iterator<Item = &'a str>) -> BTreeSet<(usize, usize)> {
        names.flat_map(|n| self.at.get(n).into_iter().flatten().map(|&(si, k, _)| (si, k))).collect()
    }

    /// Each (name, equation, under) of `names`.
    pub(super) fn occurrences<'a>(
        &'a self,
        names: impl Iterator<Item = &'a str> + 'a,
    ) -> impl Iterator<Item = (&'a str, usize, usize, bool)> + 'a {
        names.flat_map(move |n| self.at.get(n).into_iter().flatten().map(move |&(si, k, u)| (n, si, k, u)))
    }
}

pub(super) fn section(out: &RimisModel, prefix: &str) -> Option<usize> {
    out.sections.iter().position(|s| s.title.starts_with(prefix))
}

pub(super) fn element_names(e: &Element) -> Vec<String> {
    match e {
        Element::Component(c) => c.declarations().iter().map(super::source::declared_name).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn name_of(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.as_str()),
        _ => None,
    }
}

pub(super) fn mux_of(eq: &Equation, item: usize, replicates: &dyn Fn(&str) -> bool) -> Option<(String, Mux)> {
    let EquationKind::Simple { lhs, rhs } = &eq.kind else { return None };
    let ExprKind::If(x) = &rhs.kind else { return None };
    let [(c, a)] = x.branches.as_slice() else { return None };
    let (u, m, a, b) = (name_of(lhs)?, name_of(c)?, name_of(a)?, name_of(&x.else_value)?);
    if !replicates(a) || !replicates(b) || a == b {
        return None;
    }
    Some((m.to_string(), Mux { item, u: u.to_string(), x: a.to_string(), y: b.to_string() }))
}

/// `pre(m)`, `m`, `not pre(m)`, `not m`.
fn guard_of(c: &Expr, m: &str) -> Option<Guard> {
    let (inner, positive) = match &c.kind {
        ExprKind::Unary(UnOp::Not, x) => (&**x, false),
        _ => (c, true),
    };
    if name_of(inner) == Some(m) {
        return Some(Guard { left_limit: false, positive });
    }
    let ExprKind::Call(call) = &inner.kind else { return None };
    let crate::syntax::ast::FunctionArgs::List { positional, named } = &call.args else { return None };
    let ok = call.function.text.as_str() == "pre" && named.is_empty() && positional.len() == 1;
    (ok && name_of(&positional[0]) == Some(m)).then_some(Guard { left_limit: true, positive })
}

/// The names an equation reads, and those it reads under `pre`, `der` or `reinit`.
fn names(eq: &Equation) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut plain = BTreeSet::new();
    let mut under = BTreeSet::new();
    crate::syntax::visit::equation_exprs(eq, &mut |e| collect(e, false, &mut plain, &mut under));
    (plain, under)
}

fn collect(e: &Expr, inside: bool, plain: &mut BTreeSet<String>, under: &mut BTreeSet<String>) {
    visit(e, inside, &mut |n, u| {
        (if u { &mut *under } else { &mut *plain }).insert(n.to_string());
    });
}

/// Calls `f` on each name `e` reads, with whether it is read under `pre`, `der` or `reinit`.
fn visit(e: &Expr, inside: bool, f: &mut dyn FnMut(&str, bool)) {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => {
            if let Some(n) = exprs::var_name(e) {
                f(&n, inside);
            }
        }
        ExprKind::Call(c) => {
            let inside = inside || matches!(c.function.text.as_str(), "pre" | "der" | "reinit");
            if let crate::syntax::ast::FunctionArgs::List { positional, named } = &c.args {
                positional.iter().chain(named.iter().map(|a| &a.value)).for_each(|a| visit(a, inside, f));
            }
        }
        ExprKind::Unary(_, x) => visit(x, inside, f),
        ExprKind::Binary(_, xs) => xs.iter().for_each(|x| visit(x, inside, f)),
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                visit(c, inside, f);
                visit(v, inside, f);
            }
            visit(&x.else_value, inside, f);
        }
        ExprKind::Array(xs) => xs.iter().for_each(|x| visit(x, inside, f)),
        _ => {}
    }
}

pub(super) fn rename(eq: &Equation, to: &BTreeMap<String, String>) -> Equation {
    let f = |e: &Expr| {
        exprs::rewrite(e, &mut |x| match &x.kind {
            ExprKind::Name(n) => {
                to.get(n.as_str()).map(|t| Expr { kind: ExprKind::Name(t.as_str().into()), span: x.span })
            }
            _ => None,
        })
    };
    let body = |b: &[Equation]| b.iter().map(|e| rename(e, to)).collect::<Vec<_>>();
    let kind = match &eq.kind {
        EquationKind::Simple { lhs, rhs } => EquationKind::Simple { lhs: f(lhs), rhs: f(rhs) },
        EquationKind::If { branches, else_branch } => EquationKind::If {
            branches: branches.iter().map(|(c, b)| (f(c), body(b))).collect(),
            else_branch: else_branch.as_ref().map(|b| body(b).into()),
        },
        EquationKind::When { branches } => {
            EquationKind::When { branches: branches.iter().map(|(c, b)| (f(c), body(b))).collect() }
        }
        EquationKind::Call(c) => {
            let e = f(&Expr { kind: ExprKind::Call(c.clone()), span: eq.span() });
            match e.kind {
                ExprKind::Call(c) => EquationKind::Call(c),
                _ => unreachable!("a call renamed is a call"),
            }
        }
        other => other.clone(),
    };
    eq.with_kind(kind)
}

/// What `apply` does to a group.
struct GroupPlan {
    /// REPL items of the group, in order; the merged equations take the first's place.
    items: Vec<usize>,
    /// T replicates that keep their block (by REPL item).
    kept: BTreeSet<usize>,
    merged: Vec<Item>,
    /// Replicates renamed to their multiplexed unknown in the mode equations, and the mode
    /// equations (items) that read them.
    renames: BTreeMap<String, String>,
    renamed: BTreeSet<usize>,
    /// Replicates no longer declared.
    dropped: BTreeSet<String>,
}

#[allow(clippy::too_many_arguments)]
fn plan_group(
    out: &RimisModel,
    index: &Index,
    multi: usize,
    repl: usize,
    m: &str,
    muxes: &[Mux],
    replicates: &dyn Fn(&str) -> bool,
    readers: &FxHashMap<&str, Vec<&str>>,
) -> Option<GroupPlan> {
    let xs: BTreeSet<&str> = muxes.iter().map(|x| x.x.as_str()).collect();
    let ys: BTreeSet<&str> = muxes.iter().map(|x| x.y.as_str()).collect();
    let us: BTreeSet<&str> = muxes.iter().map(|x| x.u.as_str()).collect();
    if !xs.is_disjoint(&ys) || xs.len() != muxes.len() || ys.len() != muxes.len() || us.len() != muxes.len() {
        return None;
    }
    let side_of = |n: &str| {
        if xs.contains(n) {
            Some(true)
        } else if ys.contains(n) {
            Some(false)
        } else {
            None
        }
    };
    let other: BTreeMap<&str, &str> =
        muxes.iter().flat_map(|x| [(x.x.as_str(), x.y.as_str()), (x.y.as_str(), x.x.as_str())]).collect();
    let unknown: BTreeMap<&str, &str> =
        muxes.iter().flat_map(|x| [(x.x.as_str(), x.u.as_str()), (x.y.as_str(), x.u.as_str())]).collect();
    let mux_items: BTreeSet<usize> = muxes.iter().map(|x| x.item).collect();

    // The group's blocks, each on one side.
    let mut items = Vec::new();
    let mut writers: Vec<(bool, Writer)> = Vec::new();
    let candidates = index.readers(xs.iter().chain(&ys).copied());
    for &(_, k) in candidates.iter().filter(|(si, _)| *si == repl) {
        let it = &out.sections[repl].items[k];
        let (plain, under) = names(&it.equation);
        // The side is that of what the block computes in its modes (a held block's else
        // branch reads the other side).
        let (plain, under) = match &it.equation.kind {
            EquationKind::If { branches, .. } if branches.len() == 1 => {
                let mut both = (BTreeSet::new(), BTreeSet::new());
                for e in &branches[0].1 {
                    let (p, u) = names(e);
                    both.0.extend(p);
                    both.1.extend(u);
                }
                both
            }
            _ => (plain, under),
        };
        let sides: BTreeSet<bool> = plain.iter().chain(&under).filter_map(|n| side_of(n)).collect();
        if sides.len() != 1 || under.iter().any(|n| side_of(n).is_some() || us.contains(n.as_str())) {
            return None;
        }
        // A block of the group reads no multiplexed unknown of it (that would be a loop
        // through the multiplexer, which the merged system does not have).
        if plain.iter().any(|n| us.contains(n.as_str())) {
            return None;
        }
        let side = *sides.iter().next().expect("one side");
        let w = match &it.equation.kind {
            EquationKind::Simple { .. } => Writer::Every(it.equation.clone()),
            EquationKind::If { branches, else_branch: Some(els) } if branches.len() == 1 => {
                let (c, body) = &branches[0];
                let guard = guard_of(c, m)?;
                if guard.positive != side {
                    return None;
                }
                let mut writes = BTreeSet::new();
                let mut held = None;
                for e in els.iter() {
                    let EquationKind::Simple { lhs, rhs } = &e.kind else { return None };
                    let s = name_of(lhs).filter(|s| side_of(s) == Some(side))?;
                    let this = match name_of(rhs) {
                        Some(t) if other.get(s) == Some(&t) => true,
                        None if matches!(rhs.kind, ExprKind::Number(_)) => false,
                        _ => return None,
                    };
                    if *held.get_or_insert(this) != this || !writes.insert(s.to_string()) {
                        return None;
                    }
                }
                if body.iter().any(|e| !matches!(e.kind, EquationKind::Simple { .. })) {
                    return None;
                }
                Writer::Guarded { guard, cond: c.clone(), body: body.clone(), writes, held: held? }
            }
            _ => return None,
        };
        items.push(k);
        writers.push((side, w));
    }
    // One side holds the other's replicates in all of its blocks; the other's are trivial
    // outside their modes or computed in every mode.
    let holds = |side: bool| {
        let mine: Vec<&Writer> = writers.iter().filter(|(s, _)| *s == side).map(|(_, w)| w).collect();
        let all_held = mine.iter().all(|w| matches!(w, Writer::Guarded { held: true, .. }));
        let written: BTreeSet<&str> = mine
            .iter()
            .flat_map(|w| match w {
                Writer::Guarded { writes, .. } => writes.iter().map(String::as_str).collect::<Vec<_>>(),
                Writer::Every(_) => Vec::new(),
            })
            .collect();
        let set = if side { &xs } else { &ys };
        !mine.is_empty() && all_held && written == *set
    };
    let h = match (holds(true), holds(false)) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    if writers.iter().any(|(s, w)| *s != h && matches!(w, Writer::Guarded { held: true, .. })) {
        return None;
    }
    let guards: BTreeSet<bool> = writers
        .iter()
        .filter_map(|(_, w)| match w {
            Writer::Guarded { guard, .. } => Some(guard.left_limit),
            Writer::Every(_) => None,
        })
        .collect();
    let [left_limit] = guards.iter().copied().collect::<Vec<_>>()[..] else { return None };
    let count = |side: bool| -> usize {
        writers
            .iter()
            .filter(|(s, _)| *s == side)
            .map(|(_, w)| match w {
                Writer::Guarded { body, .. } => body.len(),
                Writer::Every(_) => 1,
            })
            .sum()
    };
    if count(true) != muxes.len() || count(false) != muxes.len() {
        return None;
    }

    // What depends on U outside the group: none of it may be read by the group.
    let mut reach: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<&str> = us.iter().copied().collect();
    while let Some(n) = stack.pop() {
        for &w in readers.get(n).into_iter().flatten() {
            if side_of(w).is_none() && !us.contains(w) && reach.insert(w) {
                stack.push(w);
            }
        }
    }
    for &k in &items {
        if names(&out.sections[repl].items[k].equation).0.iter().any(|n| reach.contains(n.as_str())) {
            return None;
        }
    }

    // Who else reads the group's names.
    let t_every: BTreeMap<&str, usize> = items
        .iter()
        .zip(&writers)
        .filter_map(|(&k, (s, w))| match w {
            Writer::Every(Equation { kind: EquationKind::Simple { lhs, rhs }, .. }) if *s != h => {
                let t = name_of(lhs)?;
                let (plain, under) = names(&exprs::simple(rhs.clone(), rhs.clone()));
                let free = |n: &String| !replicates(n) && !us.contains(n.as_str()) && !reach.contains(n.as_str());
                (side_of(t) == Some(!h) && plain.iter().chain(&under).all(free)).then_some((t, k))
            }
            _ => None,
        })
        .collect();
    let mut kept: BTreeMap<String, usize> = BTreeMap::new();
    let group_items: BTreeSet<usize> = items.iter().copied().collect();
    let initial = out.sections.len();
    let group_names = xs.iter().chain(&ys).chain(&us).copied();
    for (n, si, k, under) in index.occurrences(group_names) {
        if (si == repl && group_items.contains(&k)) || (si == multi && mux_items.contains(&k)) {
            continue;
        }
        let title = out.sections.get(si).map_or("", |s| s.title.as_str());
        let in_modes = si != initial && title.starts_with(MODES);
        match side_of(n) {
            Some(_) if under || !in_modes => return None,
            Some(side) if side == h => {}
            Some(_) => {
                kept.insert(n.to_string(), *t_every.get(n)?);
            }
            // A multiplexed unknown differs from the merged one on the step where the
            // multiplexers read `m` and the blocks `pre(m)`: read by DIFF only.
            None if left_limit && (under || si == initial || !title.starts_with(DIFF)) => return None,
            None => {}
        }
    }

    // The merged system.
    let mut to: BTreeMap<String, String> = unknown.iter().map(|(r, u)| (r.to_string(), u.to_string())).collect();
    let kept_items: BTreeSet<usize> = kept.values().copied().collect();
    let mut h_eqs = Vec::new();
    let mut t_eqs = Vec::new();
    let mut cond = None;
    for (&k, (side, w)) in items.iter().zip(&writers) {
        let eqs = match w {
            Writer::Guarded { body, cond: c, .. } => {
                if *side == h {
                    cond.get_or_insert_with(|| c.clone());
                }
                body.iter().map(|e| rename(e, &to)).collect()
            }
            Writer::Every(e) if kept_items.contains(&k) => {
                let t = kept.iter().find(|(_, i)| **i == k).map(|(t, _)| t.as_str()).expect("kept by its item");
                vec![exprs::simple(exprs::name(unknown[t]), exprs::name(t))]
            }
            Writer::Every(e) => vec![rename(e, &to)],
        };
        if *side == h { h_eqs.extend(eqs) } else { t_eqs.extend(eqs) }
    }
    let cond = cond?;
    let text = |e: &Equation| equation_to_string(e, 0);
    let mut t_left: Vec<Option<Equation>> = t_eqs.into_iter().map(Some).collect();
    let mut common = Vec::new();
    let mut h_only = Vec::new();
    for e in h_eqs {
        let s = text(&e);
        match t_left.iter_mut().find(|t| t.as_ref().is_some_and(|t| text(t) == s)) {
            Some(t) => {
                *t = None;
                common.push(e);
            }
            None => h_only.push(e),
        }
    }
    let t_only: Vec<Equation> = t_left.into_iter().flatten().collect();
    // rumoca cannot solve a derivative under an if-equation (`0 = if c then der(x) - … else
    // …`, issue 29 class 6): the branches read none (the common equations may).
    if h_only.iter().chain(&t_only).any(|e| !names(e).1.is_empty()) {
        return None;
    }
    if !nonsingular_in_both(&common, &h_only, &t_only, &us) {
        return None;
    }
    let labels: Vec<String> = items
        .iter()
        .filter(|k| !kept_items.contains(k))
        .map(|&k| {
            let c = out.sections[repl].items[k].comment.as_deref()?;
            let label = c.strip_prefix("Block ")?.split('.').next()?;
            // (a block emitted in parts, `split.rs`, stays as it is)
            label.parse::<usize>().ok().map(|n| n.to_string())
        })
        .collect::<Option<_>>()?;
    let mut merged: Vec<Item> = common.into_iter().map(Item::new).collect();
    if !h_only.is_empty() {
        merged.push(Item::new(exprs::equation(EquationKind::If {
            branches: vec![(cond.clone(), h_only)],
            else_branch: Some(t_only.into()),
        })));
    }
    if let Some(first) = merged.first_mut() {
        first.comment = Some(format!(
            "Blocks {} merged: the blocks of `{m}` and of `not {m}` as one system on {} (the replicates of `{}` held the other side's outside it)",
            labels.join(" "),
            muxes.iter().map(|x| x.u.as_str()).collect::<Vec<_>>().join(" "),
            exprs_text(&cond),
        ));
    }
    // The mode equations read the held side's replicates as the unknowns; the kept T
    // replicates stay.
    to.retain(|r, _| side_of(r) == Some(h));
    let modes = section(out, MODES);
    let renamed = index
        .occurrences(to.keys().map(String::as_str))
        .filter(|&(_, si, _, _)| Some(si) == modes)
        .map(|(_, _, k, _)| k)
        .collect();
    let dropped = xs.iter().chain(&ys).filter(|r| !kept.contains_key(**r)).map(|r| r.to_string()).collect();
    Some(GroupPlan { items, kept: kept_items, merged, renames: to, renamed, dropped })
}

fn exprs_text(e: &Expr) -> String {
    crate::syntax::printer::expr::expr_to_string(e)
}

fn apply(out: &mut RimisModel, multi: usize, repl: usize, plans: Vec<(Vec<Mux>, GroupPlan)>) {
    let gone: BTreeSet<usize> = plans.iter().flat_map(|(muxes, _)| muxes.iter().map(|x| x.item)).collect();
    let old = std::mem::take(&mut out.sections[multi].items);
    out.sections[multi].items =
        old.into_iter().enumerate().filter(|(k, _)| !gone.contains(k)).map(|(_, it)| it).collect();
    let mut renames = BTreeMap::new();
    let mut renamed = BTreeSet::new();
    let mut dropped = BTreeSet::new();
    let mut removed = BTreeSet::new();
    let mut at: BTreeMap<usize, Vec<Item>> = BTreeMap::new();
    for (_, plan) in plans {
        removed.extend(plan.items.iter().copied().filter(|k| !plan.kept.contains(k)));
        at.insert(plan.items[0], plan.merged);
        renames.extend(plan.renames);
        renamed.extend(plan.renamed);
        dropped.extend(plan.dropped);
    }
    let old = std::mem::take(&mut out.sections[repl].items);
    for (k, it) in old.into_iter().enumerate() {
        if let Some(merged) = at.remove(&k) {
            out.sections[repl].items.extend(merged);
        }
        if !removed.contains(&k) {
            out.sections[repl].items.push(it);
        }
    }
    if let Some(s) = out.sections.iter_mut().find(|s| s.title.starts_with(MODES)) {
        for &k in &renamed {
            s.items[k].equation = rename(&s.items[k].equation, &renames);
        }
    }
    out.replicates.retain(|(e, _)| element_names(e).iter().all(|n| !dropped.contains(n)));
    out.sections.retain(|s| !s.items.is_empty() || !s.kept.is_empty());
}

/// Each irreducible block of the merged system's union structure (its if-equation's
/// branches paired by position, as the output's lowering and omc pair them) is
/// structurally nonsingular with either side's equations: a tool that analyses the output
/// once then solves, in each mode, a nonsingular system per block (paper 000 §4.2 for the
/// merged group; the driver's self-check verifies it again on the output read back). It
/// follows from each side's equations being nonsingular on U (its CDG blocks): along the
/// union's triangular order a block's rows read only its own and earlier blocks' variables,
/// which a side's perfect matching gives to the earlier rows, so it matches the block's rows
/// onto the block's variables. Checked anyway: a guard against a side that is not square.
fn nonsingular_in_both(common: &[Equation], h: &[Equation], t: &[Equation], us: &BTreeSet<&str>) -> bool {
    use crate::analysis::dm::fine_blocks;
    use crate::analysis::matching::{Graph, has_perfect_matching};
    let index: BTreeMap<&str, usize> = us.iter().enumerate().map(|(k, u)| (*u, k)).collect();
    let row = |eqs: &[&Equation]| -> Vec<(usize, i64)> {
        let mut row = BTreeSet::new();
        for e in eqs {
            row.extend(names(e).0.iter().filter_map(|n| index.get(n.as_str()).copied()));
        }
        row.into_iter().map(|j| (j, 0)).collect()
    };
    let graph = |side: Option<bool>| -> Graph {
        let mut g: Graph = common.iter().map(|e| row(&[e])).collect();
        g.extend(h.iter().zip(t).map(|(a, b)| match side {
            None => row(&[a, b]),
            Some(true) => row(&[a]),
            Some(false) => row(&[b]),
        }));
        g
    };
    let union = graph(None);
    let Some(blocks) = fine_blocks(&union, us.len()) else { return false };
    [graph(Some(true)), graph(Some(false))].iter().all(|g| {
        (0..blocks.count).all(|b| {
            let vars: Vec<usize> = (0..us.len()).filter(|&j| blocks.var_block[j] == b).collect();
            let local: BTreeMap<usize, usize> = vars.iter().enumerate().map(|(k, &j)| (j, k)).collect();
            let rows: Graph = (0..g.len())
                .filter(|&i| blocks.eq_block[i] == b)
                .map(|i| g[i].iter().filter_map(|&(j, w)| local.get(&j).map(|&k| (k, w))).collect())
                .collect();
            has_perfect_matching(&rows, vars.len())
        })
    })
}
