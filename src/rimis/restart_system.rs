//! Restart systems at impulsive mode changes (paper 000 §5.1–5.2, §6.1.2; issue 14): where
//! [`restart`](super::restart) finds that entering a region E of modes does not make a
//! consistency equation true (the engaging clutch: `w1 - w2 = 0`; the rope that becomes
//! straight: the first derivative of `L² = x² + y²`), this module computes the values the
//! states restart from, instead of keeping the values from before the switch.
//!
//! **The system.** The unfolding of paper 000 §5.1.3 at the entry instant, in which the
//! previous instant has set the states (Principle 1: what it did cannot be undone):
//! every state keeps its value except its highest-order state u^(d-1) (d its order in
//! E), which may jump; its value after the jump, u⁺, and the value at the switch of every
//! algebraic variable (possibly impulsive: the clutch's torques, the rope's tension grow
//! like 1/δ) are the unknowns. The equations of E with offset c = 0 hold at the instant
//! with the leading derivative expanded by one Euler step, `u^(d) = (u⁺ - u^(d-1)) / δ`,
//! the other state occurrences read as they were (semi-explicit: the system is linear in
//! its unknowns where the impulsive variables enter linearly, as in both examples); the
//! consistency equations e^(j) (c > j) that read a highest-order state hold after it, on
//! u⁺ (the forward shift); those that read only lower orders held before and are left
//! out (the switch made them true: the rope is straight when it becomes so). For the
//! rope this is eq. (35): the velocity jumps along the constraint's gradient and ends
//! tangent to it (positions continuous, eq. 30); for the clutch eq. (18).
//!
//! **Per region, per block** (point 4). The system is grown from the unguaranteed
//! consistency equations along the unknowns it shares (a breadth-first search over the
//! equations that read them), so it holds only the part of the model the impulse
//! reaches, and the structure needs to be uniform over E only there: a region whose
//! structure varies elsewhere (the other valves of the Westinghouse brake) still gets its
//! restart. The component is checked structurally nonsingular (a perfect matching) and
//! kept whole: downstream of the unguaranteed equations it carries the jump to the other
//! states.
//!
//! **When it is solved.** Only at the entry, inside the `when` that restarts the states: the
//! system is linear in its unknowns (the impulsive variables enter linearly, as in both
//! examples; otherwise there is no restart and the consistency checks stop the run), so it
//! is written as a function of the left limits (`pre(…)` of the states, the parameters)
//! that assembles A w = b and solves it by Gaussian elimination with partial pivoting
//! (a vanishing pivot divides by zero, which stops the simulation with that message: rumoca
//! 0.10.2 refuses an `assert` in a function): `when E then reinit(u, restart_1(k, pre(x),
//! …))`. It need be well posed only at the switch (the rope's system is singular with the
//! ball at the centre), and the values it reads are exactly the left limits. For a state
//! replicated per mode the call replaces REINIT's copy (`sections::reinit`). It is solved
//! with a small step δ (a parameter of the output, 1e-6 by default) instead of being
//! standardised symbolically: §6.1.2's third method, which converges as δ → 0 (error
//! O(δ)) and needs neither the impulse orders nor the elimination of the impulsive
//! variables.

use super::exprs::{self, binary, call, name};
use super::impact_laws::{self, Law};
use super::impulses::{self, Builder};
use super::plan::{Plan, Role, primed};
use super::restart::Unguaranteed;
use super::restart_function::{
    Header, Newton, boolean_reads, function_text, jacobian, linear_parts, newton_text, parse_class,
};
use super::sections::sides_under_in;
use super::symbolic::{self, DiffContext};
use super::{Item, RimisError};
use crate::analysis::cdg::ModeValues;
use crate::analysis::impulse::{IExpr, ModeChange};
use crate::analysis::local::Local;
use crate::analysis::matching::maximum_matching;
use crate::mdae::{EqId, VarId};
use crate::syntax::ast::{BinOp, ClassDef, EquationKind, Expr, ExprKind};
use crate::syntax::printer::expr_to_string;
use biodivine_lib_bdd::Bdd;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What the restart systems add to the output.
#[derive(Default)]
pub(crate) struct Restarts {
    /// One function per system: the k-th unknown of A w = b from the left limits.
    pub functions: Vec<ClassDef>,
    /// `when E then reinit(u, restart_1(k, …)); …; elsewhen …` for the states kept as
    /// sources (at most one item).
    pub reinit: Vec<Item>,
    /// Restart values of state replicates: (region, replicate, value); REINIT uses them.
    pub replicas: Vec<(Local, String, Expr)>,
    /// The name of the step parameter δ, if a system was built.
    pub step: Option<String>,
    pub notes: Vec<String>,
    /// The consistency equations no system restores.
    pub warnings: Vec<String>,
    /// Their indices in the failures given to [`build`] (checked by `checks.rs`).
    pub unrestored: Vec<usize>,
    /// Per region entered, its impulse analysis (paper 000 §6).
    pub mode_changes: Vec<ModeChange>,
    /// The failures restored by a nonlinear system (Newton's method, not guaranteed to
    /// converge to the root the original would take): checked too (`checks.rs`).
    pub iterated: Vec<usize>,
    /// The tolerance parameter, named when a nonlinear system reads it (its gate).
    pub tolerance: Option<String>,
    /// The restarts at rest after an impact law (issue 31 point 3): `c and pre(c)` and its
    /// reinits, to be merged as `elsewhen` branches into the `when`s that reinitialise the
    /// same states (`sections::merge_reinits`: one `when` per state, as Modelica requires).
    pub at_rest: Vec<(Expr, Vec<crate::syntax::ast::Equation>)>,
}

/// Default step of the restart systems, in seconds.
pub(crate) const STEP: &str = "1e-6";

/// Builds a restart system for each region entered with unguaranteed consistency
/// equations; the regions it cannot handle keep their warnings, with the reason.
pub(crate) fn build(
    plan: &mut Plan,
    failures: &[Unguaranteed],
    laws: &[Law],
    transient: &[Bdd],
    ctx: &DiffContext,
) -> Result<Restarts, RimisError> {
    let mut out = Restarts::default();
    let mut regions: Vec<&Bdd> = Vec::new();
    for f in failures {
        if !regions.contains(&&f.entered) {
            regions.push(&f.entered);
        }
    }
    let mut whens: Vec<(Expr, Vec<crate::syntax::ast::Equation>)> = Vec::new();
    let index = Index::new(plan);
    for region in regions {
        let here: Vec<&Unguaranteed> = failures.iter().filter(|f| &f.entered == region).collect();
        // Canonical (`Plan::canonical`, made by `restart::unguaranteed`): the texts and
        // expressions of the region and of its parts are made from their local sets, and no
        // whole set is built (per region, O(N) nodes on the building).
        let region_local = &here[0].entered_local;
        let names: Vec<String> = here.iter().map(|f| primed(plan.mdae.label(f.eq), f.j)).collect();
        // Where the entry may be a transient mode (`guards::leaving_rate`), the law decides
        // whether the mode is left at once; where it is not (a bounce below the switches'
        // hysteresis), the default inelastic restart applies in the next step of the event
        // iteration: the ball comes to rest (issue 31 point 3).
        let mut at_rest = false;
        if let Some(law) = impact_laws::for_entry(plan, laws, region) {
            // Declared by the user (§5.2.4): honoured, no default restart; still checked.
            let why = format!(
                "the impact law of the input's `when {}` (reinit of {}) restarts the states (paper 000 §5.2.4)",
                law.condition,
                law.targets.join(", ")
            );
            out.unrestored.extend((0..failures.len()).filter(|&k| &failures[k].entered == region));
            if !transient.iter().any(|r| region.and(&r.not()).is_false()) {
                out.notes.push(format!(
                    "entering `{}`: {why}, not the default inelastic restart; {} checked after the switch",
                    plan.text(region_local),
                    names.join(" ")
                ));
                out.mode_changes.push(ModeChange::without_restart(plan.text(region_local), names.clone(), why));
                continue;
            }
            out.notes.push(format!(
                "entering `{}`: {why}; the mode is left at once where the law opens the other mode's guard (a transient mode, paper 000 §5.2.3), else the default inelastic restart follows in the next step of the event iteration (at rest); {} checked after the switch",
                plan.text(region_local),
                names.join(" ")
            ));
            at_rest = true;
        }
        let parts = match grow_parts(plan, &index, region_local, region_local, &here, ctx, &mut MAX_PARTS.clone())? {
            Ok(parts) => parts,
            Err(why) => {
                out.warnings.extend(here.iter().map(|f| format!("{}; no restart system: {why}", f.message)));
                out.unrestored.extend((0..failures.len()).filter(|&k| &failures[k].entered == region));
                out.mode_changes.push(ModeChange::without_restart(plan.text(region_local), names.clone(), why));
                continue;
            }
        };
        // What no jump restores is checked, not restarted (`Grown::lower`).
        // So is a row left out of an overdetermined system (`Grown::dropped`).
        let dropped: BTreeSet<(EqId, u32)> = parts.iter().flat_map(|(_, g)| g.dropped.iter().copied()).collect();
        let lower: BTreeSet<(EqId, u32)> =
            parts.iter().flat_map(|(_, g)| g.lower.iter().copied()).chain(dropped.iter().copied()).collect();
        let (here, held): (Vec<&Unguaranteed>, Vec<&Unguaranteed>) =
            here.into_iter().partition(|f| !lower.contains(&(f.eq, f.j)));
        let names: Vec<String> = here.iter().map(|f| primed(plan.mdae.label(f.eq), f.j)).collect();
        for f in &held {
            let why = if dropped.contains(&(f.eq, f.j)) {
                "not restarted: the restart system sets the states it reads from other consistency equations (it would overdetermine them), so it must hold with them"
            } else {
                "not restarted: it reads no highest-order state (a jump of a lower-order state, an impulse of higher order, paper 000 §6), so it must hold by the continuity of the states it reads"
            };
            out.warnings.push(format!("{}; {why}", f.message));
        }
        out.unrestored.extend(
            (0..failures.len())
                .filter(|&k| &failures[k].entered == region && lower.contains(&(failures[k].eq, failures[k].j))),
        );
        let step = out.step.get_or_insert_with(|| plan.namer.fresh("restart_step")).clone();
        let mut built: Vec<(Local, Built)> = Vec::new();
        let mut failed = None;
        for (part, sys) in parts {
            out.mode_changes.push(impulse_analysis(plan, &index, &part, &sys, &here, &names));
            match emit(plan, &part, sys, &step, &mut out.tolerance, &names, ctx) {
                Ok(b) => built.push((part, b)),
                Err(why) => {
                    failed = Some(why);
                    break;
                }
            }
        }
        if let Some(why) = failed {
            out.warnings.extend(here.iter().map(|f| format!("{}; no restart system: {why}", f.message)));
            out.unrestored.extend(
                (0..failures.len())
                    .filter(|&k| &failures[k].entered == region && !lower.contains(&(failures[k].eq, failures[k].j))),
            );
            if let Some(mc) = out.mode_changes.last_mut() {
                mc.no_restart = Some(why);
            }
            continue;
        }
        let entering = plan.text(region_local);
        let per_part = if built.len() > 1 {
            let texts: Vec<String> = built.iter().map(|(p, _)| format!("`{}`", plan.text(p))).collect();
            format!(" (one system per part where the structure the impulse reaches is uniform: {})", texts.join(", "))
        } else {
            String::new()
        };
        // Each jumping state restarts from its part's system (an if-expression over the
        // parts, evaluated at the switch; a state no part restarts keeps its left limit).
        let mut sources: Vec<(String, Vec<(Expr, Expr)>)> = Vec::new();
        let iterated = built.iter().any(|(_, b)| b.iterated);
        if iterated {
            let n = out.mode_changes.len();
            for mc in &mut out.mode_changes[n - built.len()..] {
                mc.iterated = true;
            }
            out.iterated.extend(
                (0..failures.len())
                    .filter(|&k| &failures[k].entered == region && !lower.contains(&(failures[k].eq, failures[k].j))),
            );
        }
        let mut rest_reinits = Vec::new();
        let built_parts = built.len();
        for (part, b) in built {
            out.functions.push(b.function);
            if at_rest {
                rest_reinits.extend(b.replicas.into_iter().map(|(r, v)| exprs::reinit(name(&r), v)));
            } else {
                out.replicas.extend(b.replicas.into_iter().map(|(r, v)| (part.clone(), r, v)));
            }
            let cond = plan.expr(&part);
            for (u, v) in b.sources {
                match sources.iter_mut().find(|(n, _)| *n == u) {
                    Some((_, list)) => list.push((cond.clone(), v)),
                    None => sources.push((u, vec![(cond.clone(), v)])),
                }
            }
        }
        if !sources.is_empty() || !rest_reinits.is_empty() {
            let whole = per_part.is_empty();
            let mut reinits: Vec<crate::syntax::ast::Equation> = sources
                .into_iter()
                .map(|(u, mut list)| {
                    let value =
                        if whole { list.remove(0).1 } else { exprs::if_expr(list, call("pre", vec![name(&u)])) };
                    exprs::reinit(name(&u), value)
                })
                .collect();
            reinits.extend(rest_reinits);
            // Not `exprs::entered`: omc would fire it just after the initialisation, and a
            // restart of a consistent state moves it by O(restart_step) (ClutchReleased:
            // 1.5e-8); the mode variables' start values keep rumoca from firing it at t = 0.
            // At rest after a law: one step after the entry, where the mode is still active.
            let cond = plan.expr(region_local);
            match (at_rest, exprs::pre_of(&cond)) {
                (true, Some(before)) => {
                    out.at_rest.push((exprs::binary(crate::syntax::ast::BinOp::And, cond, before), reinits))
                }
                _ => whens.push((cond, reinits)),
            }
        }
        let how = if iterated {
            ", nonlinear: solved by Newton's method from the left limits where they do not satisfy it already, and checked after the switch"
        } else {
            ""
        };
        if at_rest {
            let law = impact_laws::for_entry(plan, laws, region).map(|l| l.condition.clone()).unwrap_or_default();
            let n = out.mode_changes.len();
            for mc in &mut out.mode_changes[n - built_parts..] {
                mc.transient = Some(format!(
                    "the impact law of `when {law}` applies, and the mode is left at once where it opens the guard of the mode left; where it does not (a bounce below switching_band), this restart follows one step later (at rest)"
                ));
            }
            continue;
        }
        out.notes.push(format!(
            "restart computed: entering `{entering}`, the states restart from the restart system of paper 000 §5.1{per_part} (one step of {step} = {STEP} s{how}), which makes {} true",
            names.join(" ")
        ));
    }
    if whens.len() > 1 {
        // Several regions restart states: their branches as rising edges (`exprs::rising`).
        for (cond, _) in whens.iter_mut() {
            if let Some(edge) = exprs::rising(cond) {
                *cond = edge;
            }
        }
    }
    if !whens.is_empty() {
        let mut item = Item::new(exprs::equation(EquationKind::When { branches: whens }));
        item.comment =
            Some("the states restart from the restart systems, solved at the switch from the left limits".into());
        out.reinit.push(item);
    }
    Ok(out)
}

/// At most this many parts per entered region (one restart system each).
const MAX_PARTS: usize = 16;

/// Why a region has no system; `split`: the parts of the region where what varied is
/// uniform (empty when splitting cannot help).
struct Fail {
    why: String,
    split: Vec<Local>,
}

impl Fail {
    fn new(why: String) -> Fail {
        Fail { why, split: Vec::new() }
    }

    /// The region split by the values of a per-mode quantity (an offset, an order).
    /// (Canonical local sets, `Plan::canonical`: no whole set is built for a part.)
    fn varies(why: String, plan: &Plan, entries: &[(u32, Local)], region: &Local) -> Fail {
        let fz = &plan.factored;
        let split = entries
            .iter()
            .map(|(_, m)| fz.and(m, region))
            .filter(|p| !fz.is_false(p))
            .map(|p| plan.canonical(&p))
            .collect();
        Fail { why, split }
    }
}

/// The restart systems of entering `region`: one, or, where the structure the impulse
/// reaches varies inside the region (a clutch downstream engaged or not), one per part
/// where it is uniform (split again as needed, at most `budget` parts in all). Each part's
/// system stays local: the component of the unfolded system that the impulse reaches.
fn grow_parts(
    plan: &mut Plan,
    index: &Index,
    region: &Local,
    entered: &Local,
    here: &[&Unguaranteed],
    ctx: &DiffContext,
    budget: &mut usize,
) -> Result<Result<Vec<(Local, Grown)>, String>, RimisError> {
    match grow(plan, index, region, entered, here, Jumps::Highest, ctx)? {
        Ok(g) => Ok(Ok(vec![(region.clone(), g)])),
        Err(f) if f.split.len() >= 2 && *budget >= f.split.len() => {
            *budget -= f.split.len();
            let mut all = Vec::new();
            for part in &f.split {
                match grow_parts(plan, index, part, entered, here, ctx, budget)? {
                    Ok(v) => all.extend(v),
                    Err(why) => return Ok(Err(why)),
                }
            }
            Ok(Ok(all))
        }
        // No system where the highest-order states jump: the states that have no left
        // limit may still be set by the consistency equations, the others kept (campaign
        // seed 2007: x3' entering the mode where x3 is a state, next to x1 whose structure
        // varies inside the region).
        Err(f) => match grow(plan, index, region, entered, here, Jumps::None, ctx)? {
            Ok(g) if !g.stale.is_empty() => Ok(Ok(vec![(region.clone(), g)])),
            _ => Ok(Err(f.why)),
        },
    }
}

/// Which states a restart system may move: the highest-order ones (and the stale ones), the
/// unfolding of paper 000 §5.1.3; or only the stale ones, every other state keeping its left
/// limit (a restart without impulse).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Jumps {
    Highest,
    None,
}

/// What every region's system reads from the model, computed once: each variable's
/// equations, and the orders d and offsets c that are the same in every regular mode; the
/// others per mode, as local sets (`analysis::local`: a test per region reads the windows
/// of the region and of the entry only).
struct Index {
    eqs_of: Vec<Vec<EqId>>,
    d: Vec<Option<u32>>,
    c: Vec<Option<u32>>,
    d_by_mode: Vec<Vec<(u32, Local)>>,
    c_by_mode: Vec<Vec<(u32, Local)>>,
}

impl Index {
    fn new(plan: &Plan) -> Index {
        let mut eqs_of = vec![Vec::new(); plan.mdae.vars.len()];
        for e in plan.mdae.eq_ids() {
            for inc in plan.mdae.incidence(e) {
                let list: &mut Vec<EqId> = &mut eqs_of[inc.var.index()];
                if list.last() != Some(&e) {
                    list.push(e);
                }
            }
        }
        let fz = &plan.cdg.factored;
        let constant = |entries: &[(u32, Local)]| {
            let mut live = entries.iter().filter(|(_, m)| !fz.is_false(m));
            match (live.next(), live.next()) {
                (Some((v, m)), None) if fz.covers(m) => Some(*v),
                _ => None,
            }
        };
        let d: Vec<Option<u32>> = plan.cdg.orders.iter().map(|o| constant(&o)).collect();
        let c: Vec<Option<u32>> = plan.cdg.offsets.iter().map(|o| constant(&o)).collect();
        let by_mode = |all: &ModeValues, constant: &[Option<u32>]| {
            all.iter()
                .zip(constant)
                .map(|(o, k)| match k {
                    Some(_) => Vec::new(),
                    None => o.to_vec(),
                })
                .collect()
        };
        let (d_by_mode, c_by_mode) = (by_mode(&plan.cdg.orders, &d), by_mode(&plan.cdg.offsets, &c));
        Index { eqs_of, d, c, d_by_mode, c_by_mode }
    }

    fn d(&self, plan: &Plan, u: VarId, region: &Local) -> Option<u32> {
        self.d[u.index()].or_else(|| uniform(plan, &self.d_by_mode[u.index()], region))
    }

    fn c(&self, plan: &Plan, e: EqId, region: &Local) -> Option<u32> {
        self.c[e.index()].or_else(|| uniform(plan, &self.c_by_mode[e.index()], region))
    }
}

/// The single value of a per-mode quantity over `region`, if it has one.
fn uniform(plan: &Plan, entries: &[(u32, Local)], region: &Local) -> Option<u32> {
    let mut values = entries.iter().filter(|(_, m)| plan.factored.meets(m, region)).map(|x| x.0);
    let first = values.next()?;
    values.all(|v| v == first).then_some(first)
}

/// A row of the restart system: where it comes from, and its sides with the unknowns
/// written as placeholders `\u{1}k` (k a variable's index).
struct Row {
    eq: EqId,
    j: u32,
    lhs: Expr,
    rhs: Expr,
    unknowns: BTreeSet<usize>,
    /// Lower-order states u^(k) the modes left do not compute (stale left limits): unknowns
    /// too, set by the consistency equations (`is_stale`).
    stale: BTreeSet<(usize, u32)>,
    /// Variables whose order varies inside the region (a dry run notes them instead of
    /// failing: the row matters only if it reaches the system).
    uncertain: BTreeSet<usize>,
    /// The sides with derivatives expanded, before the unknowns are placed: a row at the
    /// switch (c = 0), for the impulse analysis; `None` for a consistency row.
    at_switch: Option<(Expr, Expr)>,
}

/// The restart system of a region, before naming: its rows (the component of the
/// unfolded system that holds the unguaranteed ones) and the order d of each variable it
/// solves for.
struct Grown {
    rows: Vec<Row>,
    d: BTreeMap<usize, u32>,
    /// Unguaranteed consistency equations that read no highest-order state (e^(j) with no
    /// unknown): no jump of the system can make them true (that needs an impulse of higher
    /// order, paper 000 §6); left out of it, they must hold by the continuity of the states
    /// they read, and their checks stop a run where they do not (campaign seed 173: `x3 =
    /// 1 + sin(time)` entering a mode where x3 becomes a state, with x3 continuous).
    lower: Vec<(EqId, u32)>,
    /// The stale states solved for, after the highest-order ones (`Row::stale`).
    stale: Vec<(usize, u32)>,
    /// Consistency rows left out of an overdetermined system (two rows setting one stale
    /// state): checked, not restored.
    dropped: Vec<(EqId, u32)>,
}

fn placeholder(u: usize) -> Expr {
    name(&format!("\u{1}{u}"))
}

/// The placeholder of a stale state u^(k) (`Row::stale`).
fn stale_placeholder(u: usize, k: u32) -> Expr {
    name(&format!("\u{1}{u}.{k}"))
}

fn stale_of(x: &Expr) -> Option<(usize, u32)> {
    match &x.kind {
        ExprKind::Name(n) => {
            let (u, k) = n.as_str().strip_prefix('\u{1}')?.split_once('.')?;
            Some((u.parse().ok()?, k.parse().ok()?))
        }
        _ => None,
    }
}

/// Whether u^(k) (k ≥ 1) has no left limit at the entry: some mode of `from` (the modes
/// left) computes no u^(k) (u algebraic there, or of a lower order), so the source holds
/// a stale value (campaign seed 1081: x3' entering the mode where x3 becomes a state of
/// order 3). Its value is then set by the consistency equations, not kept (Principle 1 of
/// paper 000 §5.1.3 keeps what the previous instant set; it did not set this).
fn is_stale(plan: &Plan, u: VarId, k: u32, from: &Local) -> bool {
    let fz = &plan.factored;
    if k == 0 || plan.roles[u.index()] != Role::Varying || fz.is_false(from) {
        return false;
    }
    // The modes left that no writer of u^(k) covers (local sets: no whole set is built).
    let rest = plan
        .def_in(u, k, from)
        .into_iter()
        .fold(from.clone(), |rest, (b, _)| fz.and_not(&rest, plan.cond(plan.part_cond[b])));
    !fz.is_false(&rest)
}

fn placeholder_of(x: &Expr) -> Option<usize> {
    match &x.kind {
        ExprKind::Name(n) => n.as_str().strip_prefix('\u{1}')?.parse().ok(),
        _ => None,
    }
}

/// Grows the system for entering `region` from its unguaranteed consistency equations,
/// or says why there is none. An equation joins when one of its rows reads an unknown
/// of the system (found by a dry run, which reads nothing into the plan); the unknowns
/// it brings make the equations that read them candidates in turn.
fn grow(
    plan: &mut Plan,
    index: &Index,
    region: &Local,
    entered: &Local,
    here: &[&Unguaranteed],
    jumps: Jumps,
    ctx: &DiffContext,
) -> Result<Result<Grown, Fail>, RimisError> {
    let local = region.clone();
    // The modes left, as a local set (the whole set care ∧ ¬region, O(N) nodes per region,
    // and its numbering were a fifth of the compressible building N = 1000).
    let from = plan.factored.and_not(&plan.care_local, &local);
    let seeds: BTreeSet<EqId> = here.iter().map(|f| f.eq).collect();
    let mut d: BTreeMap<usize, u32> = BTreeMap::new();
    let mut added: Vec<(EqId, u32)> = Vec::new();
    let mut is_added: BTreeSet<EqId> = BTreeSet::new();
    let mut lower: Vec<(EqId, u32)> = Vec::new();
    let mut stale: BTreeSet<(usize, u32)> = BTreeSet::new();
    let mut queue: VecDeque<EqId> = seeds.iter().copied().collect();
    while let Some(e) = queue.pop_front() {
        if is_added.contains(&e) {
            continue;
        }
        let Some(c) = index.c(plan, e, &local) else {
            if seeds.contains(&e) {
                return Ok(Err(Fail::varies(
                    format!("the structure of equation {} varies inside `{}`", plan.mdae.label(e), plan.text(region)),
                    plan,
                    &plan.cdg.offsets.get(e.index()),
                    &local,
                )));
            }
            // Its structure varies inside the region: it may join only if it reads none
            // of the unknowns, which the incidence tells without its rows.
            if plan.mdae.incidence(e).iter().any(|i| d.contains_key(&i.var.index())) {
                return Ok(Err(Fail::varies(
                    format!("the structure of equation {} varies inside `{}`", plan.mdae.label(e), plan.text(region)),
                    plan,
                    &plan.cdg.offsets.get(e.index()),
                    &local,
                )));
            }
            continue;
        };
        let at = Entry { region: &local, from: &from, reads: false, jumps };
        let dry = match rows_of(plan, index, at, e, c, ctx)? {
            Ok(r) => r,
            Err(why) => return Ok(Err(Fail::new(why))),
        };
        let reaches = |r: &Row| {
            r.unknowns.iter().chain(&r.uncertain).any(|u| d.contains_key(u))
                || r.stale.iter().any(|s| stale.contains(s))
        };
        if !seeds.contains(&e) && !dry.iter().any(reaches) {
            continue;
        }
        if let Some(u) = dry.iter().flat_map(|r| r.uncertain.iter()).next() {
            return Ok(Err(Fail::varies(
                format!(
                    "the order of `{}` varies inside `{}` (equation {})",
                    plan.mdae.vars[*u].name,
                    plan.text(region),
                    plan.mdae.label(e)
                ),
                plan,
                &plan.cdg.orders.get(*u),
                &local,
            )));
        }
        is_added.insert(e);
        added.push((e, c));
        for row in &dry {
            let unguaranteed = c > 0 && here.iter().any(|f| f.eq == row.eq && f.j == row.j);
            if row.unknowns.is_empty() && row.stale.is_empty() && unguaranteed {
                lower.push((row.eq, row.j));
            }
            for &(u, k) in &row.stale {
                if stale.insert((u, k)) {
                    queue.extend(index.eqs_of[u].iter().copied());
                }
            }
            for &u in &row.unknowns {
                if let std::collections::btree_map::Entry::Vacant(e) = d.entry(u) {
                    let Some(k) = index.d(plan, VarId(u as u32), &local) else {
                        return Ok(Err(Fail::varies(
                            format!("the order of `{}` varies inside `{}`", plan.mdae.vars[u].name, plan.text(region)),
                            plan,
                            &plan.cdg.orders.get(u),
                            &local,
                        )));
                    };
                    e.insert(k);
                    queue.extend(index.eqs_of[u].iter().copied());
                }
            }
        }
    }
    // Only equations that no jump can restore: no system.
    if here.iter().all(|f| lower.contains(&(f.eq, f.j))) {
        let (e, j) = lower[0];
        return Ok(Err(Fail::new(format!(
            "consistency equation {} reads no highest-order state: it needs a jump of a lower-order state (an impulse of higher order, paper 000 §6)",
            primed(plan.mdae.label(e), j)
        ))));
    }
    let mut rows: Vec<Row> = Vec::new();
    for (e, c) in added {
        let at = Entry { region: &local, from: &from, reads: true, jumps };
        match rows_of(plan, index, at, e, c, ctx)? {
            Ok(r) => rows.extend(r.into_iter().filter(|r| !r.unknowns.is_empty() || !r.stale.is_empty())),
            Err(why) => return Ok(Err(Fail::new(why))),
        }
    }
    let unknowns: Vec<usize> = d.keys().copied().collect();
    let stale: Vec<(usize, u32)> = stale.into_iter().collect();
    let n = unknowns.len() + stale.len();
    let col: BTreeMap<usize, usize> = unknowns.iter().enumerate().map(|(k, &u)| (u, k)).collect();
    let scol: BTreeMap<(usize, u32), usize> = stale.iter().enumerate().map(|(k, &s)| (s, unknowns.len() + k)).collect();
    let graph: Vec<Vec<(usize, i64)>> = rows
        .iter()
        .map(|r| r.unknowns.iter().map(|u| (col[u], 0)).chain(r.stale.iter().map(|s| (scol[s], 0))).collect())
        .collect();
    let (eq_to_var, var_to_eq) = maximum_matching(&graph, n);
    // Two consistency rows may set one stale state (seed 1081: e15 and e17' both give
    // x3'): the unmatched ones are left out, and checked.
    let mut dropped = Vec::new();
    if !stale.is_empty() && var_to_eq.iter().all(Option::is_some) {
        let keep: Vec<bool> = (0..rows.len()).map(|i| eq_to_var[i].is_some() || rows[i].at_switch.is_some()).collect();
        let mut i = 0;
        rows.retain(|r| {
            let k = keep[i];
            i += 1;
            if !k {
                dropped.push((r.eq, r.j));
            }
            k
        });
    }
    let graph: Vec<Vec<(usize, i64)>> = rows
        .iter()
        .map(|r| r.unknowns.iter().map(|u| (col[u], 0)).chain(r.stale.iter().map(|s| (scol[s], 0))).collect())
        .collect();
    let (eq_to_var, var_to_eq) = maximum_matching(&graph, n);
    if rows.len() != n || eq_to_var.iter().any(Option::is_none) {
        let over: Vec<String> = (0..rows.len())
            .filter(|&i| eq_to_var[i].is_none())
            .map(|i| primed(plan.mdae.label(rows[i].eq), rows[i].j))
            .collect();
        let under: Vec<String> = (0..n)
            .filter(|&k| var_to_eq[k].is_none())
            .map(|k| match unknowns.get(k) {
                Some(&u) => plan.mdae.vars[u].name.to_string(),
                None => {
                    let (u, o) = stale[k - unknowns.len()];
                    primed(plan.mdae.vars[u].name, o)
                }
            })
            .collect();
        return Ok(Err(Fail::new(format!(
            "the restart system is structurally singular (overdetermined: {}; underdetermined: {})",
            if over.is_empty() { "none".into() } else { over.join(" ") },
            if under.is_empty() { "none".into() } else { under.join(" ") }
        ))));
    }
    // The whole component is kept: what the jump sets upstream of the unguaranteed
    // equations, and downstream what it carries to other states (an impulse in y moves x
    // through der(x) = y).
    // A state replicated per mode restarts through REINIT's reinitialisation on entering
    // its writer's modes, which must be exactly the region entered (of which `region` may
    // be a part: REINIT then selects the part's value, campaign seed 112).
    for (&u, &du) in &d {
        if du > 0 && plan.roles[u] == Role::Varying {
            let v = VarId(u as u32);
            let writer = plan.def_in(v, du - 1, region).into_iter().find(|&(_, k)| k >= du);
            let same = writer.is_some_and(|(b, _)| plan.same(plan.cond(plan.part_cond[b]), entered));
            if !same {
                return Ok(Err(Fail::new(format!(
                    "`{}` is replicated per mode and its writer's modes are not exactly `{}`",
                    plan.mdae.vars[u].name,
                    plan.text(entered)
                ))));
            }
        }
    }
    for &(u, k) in &stale {
        let v = VarId(u as u32);
        let writer = plan.def_in(v, k, region).into_iter().find(|&(_, kk)| kk > k);
        let same = writer.is_some_and(|(b, _)| plan.same(plan.cond(plan.part_cond[b]), entered));
        if !same {
            return Ok(Err(Fail::new(format!(
                "`{}` is replicated per mode and its writer's modes are not exactly `{}`",
                primed(plan.mdae.vars[u].name, k),
                plan.text(entered)
            ))));
        }
    }
    Ok(Ok(Grown { rows, d, lower, stale, dropped }))
}

/// The rows of equation `e` (offset `c` in the region): itself at the instant if c = 0,
/// else its consistency equations e^(j), j < c, after the jump.
/// Where the rows are written: the region entered, the modes left (`from`), whether the
/// rows read left limits (`reads`; not in a dry run), and what may jump.
#[derive(Clone, Copy)]
struct Entry<'a> {
    region: &'a Local,
    from: &'a Local,
    reads: bool,
    jumps: Jumps,
}

fn rows_of(
    plan: &mut Plan,
    index: &Index,
    at: Entry,
    e: EqId,
    c: u32,
    ctx: &DiffContext,
) -> Result<Result<Vec<Row>, String>, RimisError> {
    let Entry { region, from, reads, jumps } = at;
    let eq = plan.mdae.eq(e);
    let (l, r) = sides_under_in(plan, &eq.body, region);
    let span = eq.span;
    let id = plan.mdae.label(e);
    let err = |err: symbolic::SymError| RimisError::new(span, format!("equation {id}: {err}"));
    let mut out = Vec::new();
    let js: Vec<Option<u32>> = match (c, jumps) {
        (0, Jumps::Highest) => vec![None],
        (0, Jumps::None) => Vec::new(),
        _ => (0..c).map(Some).collect(),
    };
    for j in js {
        let (dl, dr) = match j {
            None => (
                symbolic::expand_derivatives(&l, ctx).map_err(err)?,
                symbolic::expand_derivatives(&r, ctx).map_err(err)?,
            ),
            Some(j) => (
                symbolic::differentiate_n(&l, j, ctx).map_err(err)?,
                symbolic::differentiate_n(&r, j, ctx).map_err(err)?,
            ),
        };
        let mut unknowns = BTreeSet::new();
        let mut stale = BTreeSet::new();
        let mut uncertain = BTreeSet::new();
        let mut bad: Option<String> = None;
        let mut map = |x: &Expr, plan: &mut Plan| {
            exprs::rewrite(x, &mut |y| {
                if let ExprKind::Call(f) = &y.kind
                    && matches!(f.function.text.as_str(), "pre" | "initial" | "terminal")
                {
                    return Some(y.clone());
                }
                let (n, k) = exprs::occurrence(y)?;
                let u = *plan.by_name.get(&*n)?;
                if jumps == Jumps::None {
                    // Every state keeps its left limit but the stale ones.
                    return Some(if is_stale(plan, u, k, from) {
                        stale.insert((u.index(), k));
                        stale_placeholder(u.index(), k)
                    } else {
                        old(plan, u, k, reads)
                    });
                }
                let Some(du) = index.d(plan, u, region) else {
                    uncertain.insert(u.index());
                    return Some(y.clone());
                };
                let p = placeholder(u.index());
                Some(match (j, du) {
                    // Algebraic: its value at the instant.
                    (_, 0) => {
                        unknowns.insert(u.index());
                        p
                    }
                    // At the instant: the leading derivative by one Euler step, states as set before.
                    (None, du) if k == du => {
                        unknowns.insert(u.index());
                        let top = old(plan, u, du - 1, reads);
                        binary(BinOp::Div, binary(BinOp::Sub, p, top), name("\u{2}step"))
                    }
                    (None, du) if k < du && is_stale(plan, u, k, from) => {
                        stale.insert((u.index(), k));
                        stale_placeholder(u.index(), k)
                    }
                    (None, du) if k < du => old(plan, u, k, reads),
                    // After the jump: the highest-order state is the unknown, lower ones kept.
                    (Some(_), du) if k + 1 == du => {
                        unknowns.insert(u.index());
                        p
                    }
                    (Some(_), du) if k + 1 < du && is_stale(plan, u, k, from) => {
                        stale.insert((u.index(), k));
                        stale_placeholder(u.index(), k)
                    }
                    (Some(_), du) if k + 1 < du => old(plan, u, k, reads),
                    _ => {
                        bad = Some(format!("`{}` in equation {}", expr_to_string(y), plan.mdae.label(e)));
                        y.clone()
                    }
                })
            })
        };
        let lhs = map(&dl, plan);
        let rhs = map(&dr, plan);
        if let Some(why) = bad {
            return Ok(Err(why));
        }
        out.push(Row {
            eq: e,
            j: j.unwrap_or(0),
            lhs: symbolic::simplify(&lhs),
            rhs: symbolic::simplify(&rhs),
            unknowns,
            stale,
            uncertain,
            at_switch: j.is_none().then(|| (dl.clone(), dr.clone())),
        });
    }
    Ok(Ok(out))
}

/// The impulse analysis of a grown system (paper 000 §6.2, eq. 50; `impulses.rs`).
fn impulse_analysis(
    plan: &Plan,
    index: &Index,
    region: &Local,
    sys: &Grown,
    here: &[&Unguaranteed],
    names: &[String],
) -> ModeChange {
    let mut b = Builder::default();
    let local = region.clone();
    for row in &sys.rows {
        let (lhs, rhs) = match &row.at_switch {
            Some((l, r)) => {
                let mut classify = |y: &Expr| {
                    let (n, k) = exprs::occurrence(y)?;
                    let u = *plan.by_name.get(&*n)?;
                    let du = index.d(plan, u, &local)?;
                    let name = plan.mdae.vars[u.index()].name.as_str();
                    Some(match du {
                        0 => b.var(u.index(), name, 0),
                        du if k >= du => b.leading(u.index(), name, du),
                        _ => IExpr::Const,
                    })
                };
                let l = impulses::translate(l, &mut classify);
                (l, impulses::translate(r, &mut classify))
            }
            None => {
                let violated = here.iter().any(|f| f.eq == row.eq && f.j == row.j);
                let mut terms: Vec<IExpr> = violated.then_some(IExpr::Const).into_iter().collect();
                for &u in &row.unknowns {
                    terms.push(b.var(u, &plan.mdae.vars[u].name, sys.d[&u]));
                }
                (IExpr::Sum(terms), IExpr::Zero)
            }
        };
        let label = primed(plan.mdae.label(row.eq), row.j);
        b.system.equations.push((label, lhs, rhs));
    }
    ModeChange::analysed(plan.text(region), names.to_vec(), &b.system, &b.jump_names)
}

/// u^(k) as it is just before the switch: `pre` of the source, read inside the `when` that
/// restarts (`None` for a dry run, which reads nothing into the plan).
fn old(plan: &mut Plan, u: VarId, k: u32, reads: bool) -> Expr {
    if reads { call("pre", vec![plan.source(u, k)]) } else { name("\u{2}old") }
}

/// A restart function's body before its declarations: A and b, or Newton's texts.
enum Body {
    Linear { a: Vec<String>, b: Vec<String>, start: String, gate: String },
    Newton { start: String, gate: String, jac: Vec<Vec<String>>, minus_f: Vec<String>, f_trial: Vec<String> },
}

/// What a built system adds: its function, and the restart value (a call of it) of each
/// state that jumps, replicated per mode or kept as a source.
struct Built {
    function: ClassDef,
    /// Solved by Newton's method (a nonlinear system): not guaranteed, still checked.
    iterated: bool,
    replicas: Vec<(String, Expr)>,
    sources: Vec<(String, Expr)>,
}

/// Writes the system as a function of the left limits (module header), or says why it
/// cannot (not linear in its unknowns).
fn emit(
    plan: &mut Plan,
    region: &Local,
    sys: Grown,
    step: &str,
    tol: &mut Option<String>,
    names: &[String],
    ctx: &DiffContext,
) -> Result<Built, String> {
    let entering = plan.text(region);
    let unknowns: Vec<usize> = sys.d.keys().copied().collect();
    // The columns: the highest-order unknowns, then the stale states.
    let n = unknowns.len() + sys.stale.len();
    let col: BTreeMap<usize, usize> = unknowns.iter().enumerate().map(|(k, &u)| (u, k)).collect();
    let scol: BTreeMap<(usize, u32), usize> =
        sys.stale.iter().enumerate().map(|(k, &s)| (s, unknowns.len() + k)).collect();
    let column = |x: &Expr| match placeholder_of(x) {
        Some(u) => col.get(&u).copied(),
        None => stale_of(x).and_then(|s| scol.get(&s).copied()),
    };
    let placeholders: Vec<Expr> = unknowns
        .iter()
        .map(|&u| placeholder(u))
        .chain(sys.stale.iter().map(|&(u, k)| stale_placeholder(u, k)))
        .collect();
    let residuals: Vec<Expr> = sys
        .rows
        .iter()
        .map(|r| {
            let res = binary(BinOp::Sub, r.lhs.clone(), r.rhs.clone());
            exprs::rewrite(&res, &mut |y| match &y.kind {
                ExprKind::Name(n) if n.as_str() == "\u{2}step" => Some(name(step)),
                _ => None,
            })
        })
        .collect();
    // What each column solves for: u^(d-1) (an algebraic unknown: u), a stale u^(k).
    let orders: Vec<(usize, u32)> =
        unknowns.iter().map(|&u| (u, sys.d[&u].saturating_sub(1))).chain(sys.stale.iter().copied()).collect();
    // A w = b: each residual split into its coefficients and its constant term; a system
    // that is not linear in its unknowns is solved by Newton's method instead.
    let linear: Option<Vec<(BTreeMap<usize, Expr>, Expr)>> =
        residuals.iter().map(|r| linear_parts(r, &column)).collect();
    let w_in = |x: &Expr, arr: &str| exprs::rewrite(x, &mut |y| column(y).map(|k| name(&format!("{arr}[{}]", k + 1))));
    let w_of = |x: &Expr| w_in(x, "w");
    // The function's inputs: each left limit, parameter or name the entries read.
    let mut inputs: Vec<Expr> = Vec::new();
    let local = |x: &Expr, inputs: &mut Vec<Expr>| {
        exprs::rewrite(x, &mut |y| {
            let external = match &y.kind {
                ExprKind::Call(c) => c.function.text.as_str() == "pre",
                ExprKind::Name(_) => column(y).is_none(),
                ExprKind::Ref(_) => true,
                _ => false,
            };
            if !external {
                return None;
            }
            let text = expr_to_string(y);
            let k = match inputs.iter().position(|i| expr_to_string(i) == text) {
                Some(k) => k,
                None => {
                    inputs.push(y.clone());
                    inputs.len() - 1
                }
            };
            Some(name(&format!("in{}", k + 1)))
        })
    };
    let text_of = |x: &Expr, inputs: &mut Vec<Expr>| expr_to_string(&w_of(&local(x, inputs)));
    let row_text = |row: &[Expr], inputs: &mut Vec<Expr>| {
        format!("{{{}}}", row.iter().map(|x| text_of(x, inputs)).collect::<Vec<_>>().join(", "))
    };
    let fname = plan.namer.fresh("restart_system");
    let solved: Vec<String> = orders.iter().map(|&(u, k)| primed(plan.mdae.vars[u].name, k)).collect();
    let linear_text = linear.as_ref().map(|_| ());
    let mut booleans = BTreeSet::new();
    for r in &residuals {
        boolean_reads(r, &mut booleans);
    }
    // Both kinds start from the left limits and keep them where the consistency equations
    // hold there already (within the checks' tolerance): a consistent state stays where it
    // is, so a guard that has just crossed is not moved back across its surface (campaign
    // seed 4769: the O(restart_step) drift of one implicit step from consistent left limits
    // moved `x2 - x1` back over its threshold at every crossing, an endless event loop).
    let tol = tol.get_or_insert_with(|| plan.namer.fresh("consistency_tolerance")).clone();
    let start: Vec<Expr> = orders.iter().map(|&(u, k)| call("pre", vec![plan.source(VarId(u as u32), k)])).collect();
    let placeholder_or_pre =
        |x: &Expr| column(x).is_some() || matches!(&x.kind, ExprKind::Call(c) if c.function.text.as_str() == "pre");
    let gate: Option<Expr> = sys
        .rows
        .iter()
        .zip(&residuals)
        .filter(|(row, _)| row.at_switch.is_none())
        .map(|(_, r)| {
            let r = symbolic::simplify(r);
            binary(
                BinOp::Le,
                call("abs", vec![r.clone()]),
                binary(BinOp::Mul, name(&tol), super::checks::scale(&r, &placeholder_or_pre, &|_| None)),
            )
        })
        .reduce(|a, b| binary(BinOp::And, a, b));
    let body = match linear {
        Some(parts) => {
            // A first, then b: the inputs are numbered in the order they are read.
            let mut a_text = Vec::with_capacity(parts.len());
            for (coeffs, _) in &parts {
                let row: Vec<Expr> = (0..n)
                    .map(|k| coeffs.get(&k).map(symbolic::simplify).unwrap_or_else(|| exprs::number("0")))
                    .collect();
                a_text.push(row_text(&row, &mut inputs));
            }
            let b_text: Vec<String> = parts
                .into_iter()
                .map(|(_, constant)| text_of(&symbolic::simplify(&exprs::neg(constant)), &mut inputs))
                .collect();
            let start_text = row_text(&start, &mut inputs);
            let gate_text = gate.as_ref().map_or_else(|| "false".to_string(), |g| text_of(g, &mut inputs));
            Body::Linear { a: a_text, b: b_text, start: start_text, gate: gate_text }
        }
        None => {
            let jacobian = jacobian(&residuals, &placeholders, ctx).map_err(|e| {
                format!("the restart system is not linear in its unknowns, and its Jacobian is not known ({e})")
            })?;
            let start_text = row_text(&start, &mut inputs);
            let gate_text = gate.as_ref().map_or_else(|| "false".to_string(), |g| text_of(g, &mut inputs));
            let j_text: Vec<Vec<String>> =
                jacobian.iter().map(|row| row.iter().map(|x| text_of(x, &mut inputs)).collect()).collect();
            let f_text: Vec<String> =
                residuals.iter().map(|r| text_of(&symbolic::simplify(&exprs::neg(r.clone())), &mut inputs)).collect();
            // The same residuals at the trial point of the damped step.
            let trial_text: Vec<String> = residuals
                .iter()
                .map(|r| expr_to_string(&w_in(&local(&symbolic::simplify(r), &mut inputs), "wt")))
                .collect();
            Body::Newton { start: start_text, gate: gate_text, jac: j_text, minus_f: f_text, f_trial: trial_text }
        }
    };
    let h = Header {
        fname: &fname,
        entering: &entering,
        restores: names,
        inputs: &inputs,
        booleans: &booleans,
        solved: &solved,
    };
    let text = match &body {
        Body::Linear { a, b, start, gate } => function_text(&h, a, b, start, gate),
        Body::Newton { start, gate, jac, minus_f, f_trial } => {
            newton_text(&h, &Newton { start, gate, jac, minus_f, f_trial })
        }
    };
    let iterated = linear_text.is_none();
    let function = parse_class(&text)?;
    let call_of = |k: usize| {
        let mut args = vec![exprs::number(&(k + 1).to_string())];
        args.extend(inputs.iter().cloned());
        call(&fname, args)
    };
    // The states that jump: the highest-order state of every unknown of order d ≥ 1.
    let (mut replicas, mut sources) = (Vec::new(), Vec::new());
    for (k, &u) in unknowns.iter().enumerate() {
        let du = sys.d[&u];
        if du == 0 {
            continue;
        }
        let v = VarId(u as u32);
        match plan.roles[u] {
            Role::Varying => {
                let writer = plan.def_in(v, du - 1, region).into_iter().find(|&(_, kk)| kk >= du);
                if let Some((w, _)) = writer
                    && let ExprKind::Name(t) = plan.written(w, v, du - 1).kind
                {
                    replicas.push((t.as_str().to_string(), call_of(k)));
                }
            }
            _ => {
                if let ExprKind::Name(t) = plan.source(v, du - 1).kind {
                    sources.push((t.as_str().to_string(), call_of(k)));
                }
            }
        }
    }
    // The stale states: their replicates in the region start from the system's values.
    for (i, &(u, k)) in sys.stale.iter().enumerate() {
        let v = VarId(u as u32);
        let writer = plan.def_in(v, k, region).into_iter().find(|&(_, kk)| kk > k);
        if let Some((w, _)) = writer
            && let ExprKind::Name(t) = plan.written(w, v, k).kind
        {
            replicas.push((t.as_str().to_string(), call_of(unknowns.len() + i)));
        }
    }
    Ok(Built { function, replicas, sources, iterated })
}
