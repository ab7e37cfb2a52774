//! INIT (paper 000 §4.6.3) and consistent initialisation in the initial mode (issue 14,
//! point 1; issue 29 classes 3 and 4): the output's initial system is determined in every
//! mode the model may start in, and selects the mode the input starts in.
//!
//! - [`init_states`]: the state replicates ρ^i of varying variables; ρ^0 takes the
//!   source's `start`/`fixed` (the source itself, now a multiplexer, loses `fixed`).
//!   [`starts_fixed`]: a state replicate that nothing else sets at t = 0 (no consistency
//!   equation absorbs it, its source is not `fixed`, no user initial equation mentions it)
//!   is `fixed` at its start value — where its mode is not the initial one REINIT sets it
//!   on entry, where it is the input leaves the value free too — so that every state has
//!   exactly one initial condition in every mode.
//! - [`init_consistency`]: in the modes where an equation e has offset c > j, RIMIS
//!   integrates e^(c), so e^(j) must hold at the start. The initial mode is known only at
//!   run time, so each e^(j) is an initial equation selected by its region R_j (the modes
//!   where c > j): `if R_j then e^(j) else s = start;`, with the same count in every
//!   branch; where the condition at t = 0 is a constant, the branch it takes alone. e^(j)
//!   is written on the variables of R_j (the replicate of the only writer there), which
//!   rumoca's initialisation projects onto, not on the multiplexed sources — where every
//!   mode variable of the condition starts from its value at t = 0 (a declared start, or
//!   [`mode_starts`]); otherwise on the sources (rumoca plans its initialisation in the mode
//!   the start values give and refuses equations on another mode's replicates). Each e^(j)
//!   *absorbs* one state s that appears in it (a source kept as a state,
//!   or the state replicate of the only writer over R_j), one state per equation (a
//!   maximum matching): a state whose start is only a guess first, else, for an equation of
//!   some modes only, one declared `fixed` (the last declared: the clutch engaged at t = 0
//!   holds the second inertia at the first's speed), which then loses `fixed` — in R_j the
//!   equation sets it, elsewhere its start value does. Where R_j is every mode the equation
//!   is written alone, on the sources, as the input's initial system has it. The condition
//!   reads the mode variables as they are at t = 0, not the discrete variables themselves,
//!   which rumoca's initialisation does not read: a level mode variable through its guard,
//!   a switch through its `when initial()` guard where that is decided before the mode is
//!   ([`initial_mode`]), else through its start value. A state that a user's initial
//!   equation mentions is not taken. An e^(j) with no state to absorb it is not written
//!   (listed in the header, as before; the region's consistency checks then stop a run
//!   that starts inconsistent), nor one reading a derivative the output does not name
//!   (a warning).
//! - [`mode_starts`]: mode variables whose guard reads only `time` and parameters start
//!   from its value at t = 0, so that `pre(m)` at t = 0 is m's initial value in rumoca as
//!   in omc.

use super::exprs::{self, name, rewrite, simple};
use super::plan::{Plan, Role, primed};
use super::sections::sides_under_in;
use super::source::Source;
use super::symbolic::{self, DiffContext};
use super::{Item, RimisError};
use crate::analysis::local::Local;
use crate::mdae::VarId;
use crate::syntax::ast::{EquationKind, Expr};
use std::collections::{BTreeMap, BTreeSet};

/// The state replicates of varying variables: every ρ^i (i < k) of a writer of leading
/// order k, with its (u, i). ρ^0 takes the source's `start`/`fixed` (the source itself,
/// now a multiplexer, loses `fixed`); see [`starts_fixed`] for the others.
pub(crate) fn init_states(plan: &mut Plan) -> BTreeMap<String, (VarId, u32)> {
    let mut out = BTreeMap::new();
    for u in plan.mdae.var_ids() {
        if plan.roles[u.index()] != Role::Varying {
            continue;
        }
        for (b, k) in plan.writers[u.index()].clone() {
            for i in 0..k {
                if let crate::syntax::ast::ExprKind::Name(n) = plan.written(b, u, i).kind {
                    out.insert(n.as_str().to_string(), (u, i));
                }
            }
        }
    }
    out
}

/// Is the state replicate `name` of u^(i) declared `fixed`? The output's initial system
/// must be determined in every mode the model may start in (issue 29 class 3): each state
/// replicate is set at t = 0 by exactly one of
/// - the consistency equation that absorbs it ([`init_consistency`]: `if R then e else
///   ρ = start`), then not fixed;
/// - its `fixed` start: ρ^0 of a source declared `fixed`;
/// - the user's initial equations, where they mention u (not fixed: they set it in the
///   modes where it is u);
/// - otherwise its start value, `fixed`: where its mode is not the initial one the value is
///   never read (REINIT sets it when the mode is entered), and where it is, the input leaves
///   u's value free too and its start value is what a simulator takes (omc's "initial
///   conditions are not fully specified"); without it rumoca refuses the output and omc
///   guesses.
pub(crate) fn starts_fixed(
    src: &Source,
    user: &BTreeSet<String>,
    absorbed: &BTreeSet<String>,
    name: &str,
    (source, i): (&str, u32),
) -> bool {
    let by_user = user.contains(source) || user.contains(name);
    !absorbed.contains(name) && (i == 0 && src.is_fixed(source) || !by_user)
}

/// The value at t = 0 of the switch `mode` (a mode equation rewritten on left limits) as
/// the initial equations select on it (issue 29 class 4); second, the constant the switch
/// takes at t = 0 and is declared with, if any; third, whether that is a guess the assert
/// at t = 0 checks ([`initial_mode_assert`]).
/// - Decided before the initial mode is (through the output's instantaneous dependencies,
///   `reached`, states being leaves, g⁰ reaches no state but those whose value at t = 0 is
///   their `fixed` start, which the consistency equations do not set when their condition
///   reads them, [`init_consistency`]): g⁰ at those starts where it reads them directly
///   (exact, unchecked; [`at_fixed_starts`]), else g⁰ itself, the `when initial()` branch.
/// - Otherwise g⁰ reads values the initial system computes in the mode it selects (a
///   tension defined only once the rope is known taut, through a speed the consistency
///   equations set), and a simulator may settle on a wrong mode that is consistent with
///   itself: the mode variable's start value, its left limit at t = 0 (`pre`), where
///   declared; else the input's `guard` at the start values of what it reads (`time` = 0;
///   a simulator's first iterate, from which the input's initialisation decides the mode
///   too), `false` if that is no constant, checked (campaign seeds 51, 66: `false`, the
///   default, started the output in a mode whose guard was true at the start values and
///   at the exact solution; g⁰ reads the replicates of the mode entered, which do not hold
///   the initial state when the model starts in it, seed 238).
pub(crate) fn initial_mode(
    plan: &Plan,
    src: &Source,
    states: &(BTreeMap<String, (VarId, u32)>, BTreeSet<String>),
    reached: &BTreeSet<String>,
    mode: &str,
    initial: &Expr,
    guard: &Expr,
) -> (Expr, Option<bool>, bool) {
    if decided(plan, src, states, reached) {
        // g⁰ read only at fixed starts, `time` and parameters is a constant: the switch takes
        // it at t = 0 and is declared with it, so that the consistency equations are written
        // on that mode's replicates (campaign seed 1029: `x1_2 < 1.2796` with x1_2 fixed at
        // 1.9; written on the multiplexed sources under that condition, rumoca's
        // initialisation did not project them).
        if let Some(v) = at_fixed_starts(plan, src, states, initial) {
            return (exprs::boolean(v), Some(v), false);
        }
        // Where it reads algebraic variables that those decide, at their declared start
        // values, checked at t = 0 (campaign seed 2722: `b1 = x1 >= 0.9066`, x1 = 1.5 -
        // 0.42*time with start 1.5; g⁰ left to the initialisation, rumoca planned it in the
        // other mode and x4 started off by 0.04).
        if src.modifier(mode, "start").is_none()
            && let Some(v) = guess_at_starts(plan, src, guard, Reads::Declared)
        {
            return (exprs::boolean(v), Some(v), true);
        }
        // Otherwise not guessed from start values: g⁰ reads values the initial system
        // computes exactly (MSL SimpleGearShift: `brake.free = brake.fn <= 0` with fn =
        // fn_max·f_normalized of a ramp, 0 only as a start value; a guess stopped the run at
        // its assert in rumoca).
        return (initial.clone(), None, false);
    }
    if let Some(start) = src.modifier(mode, "start") {
        return (start.clone(), None, false);
    }
    // The guard at the start values: of the states first; where it reads algebraic
    // variables too, of those (their start is the simulator's first iterate); `false`, the
    // default left limit, where that is no constant. Always checked by the assert at t = 0:
    // the consistency equations are written for that mode (campaign seed 2683: `x2 - x1 <
    // 0.0804` with x1 algebraic; g⁰ at t = 0 and equations written for `false` on the
    // multiplexed sources, which rumoca's initialisation did not project).
    let v = guess_at_starts(plan, src, guard, Reads::States)
        .or_else(|| guess_at_starts(plan, src, guard, Reads::Starts))
        .unwrap_or(false);
    (exprs::boolean(v), Some(v), true)
}

/// g⁰ (on the output's names) where it reads only `time` (0), parameters and states fixed at a
/// start that is a parameter expression (a state replicate of u^(0), a kept state), if that
/// is a constant: the exact value of the guard at t = 0.
fn at_fixed_starts(
    plan: &Plan,
    src: &Source,
    states: &(BTreeMap<String, (VarId, u32)>, BTreeSet<String>),
    g: &Expr,
) -> Option<bool> {
    let (replicas, kept) = states;
    let modes: BTreeSet<&str> = plan.mdae.modes.iter().map(|m| m.name.as_str()).collect();
    // u^(0) at its fixed start: a state replicate of it, or a multiplexer of those (seed 785).
    let fixed_replica = |n: &str| match replicas.get(n) {
        Some(&(u, 0)) if src.is_fixed(&plan.mdae.var(u).name) => Some(u),
        _ => None,
    };
    let exact = super::guards::names_in(g).iter().all(|n| {
        n == "time"
            || src.is_parameter(n)
            || (kept.contains(n) && src.is_fixed(n))
            || fixed_replica(n).is_some()
            || plan.muxes.iter().find(|m| &m.target == n).is_some_and(|m| {
                let read = super::guards::names_in(&plan.case(&m.branches, &m.care));
                let of: BTreeSet<Option<VarId>> =
                    read.iter().filter(|r| !modes.contains(r.as_str())).map(|r| fixed_replica(r)).collect();
                of.len() == 1 && of.iter().all(Option::is_some)
            })
    });
    if !exact {
        return None;
    }
    match symbolic::simplify(&at_start_values(plan, src, g)).kind {
        crate::syntax::ast::ExprKind::Bool(v) => Some(v),
        _ => None,
    }
}

/// Whether what a guard reaches through the output's instantaneous dependencies (`reached`,
/// states being leaves) holds no state but those whose value at t = 0 is their `fixed`
/// start: its value at t = 0 is then decided by `time`, parameters and those starts, not by
/// what the initial system computes.
pub(crate) fn decided(
    plan: &Plan,
    src: &Source,
    states: &(BTreeMap<String, (VarId, u32)>, BTreeSet<String>),
    reached: &BTreeSet<String>,
) -> bool {
    let (replicas, kept) = states;
    reached.iter().all(|n| match replicas.get(n) {
        Some(&(u, i)) => i == 0 && src.is_fixed(&plan.mdae.var(u).name),
        None => !kept.contains(n) || src.is_fixed(n),
    })
}

/// What [`guess_at_starts`] may read at its start value besides `time` and parameters.
#[derive(Clone, Copy)]
pub(crate) enum Reads {
    /// States only (a state replicate, a source state).
    States,
    /// Any variable, 0 where it has no start value (a simulator's first iterate).
    Starts,
    /// States, and algebraic variables with a declared start value (the modeller's).
    Declared,
}

/// The assert at t = 0 of a mode variable `m` whose initial mode was taken from its guard
/// `g` at the start values (`v`): the run stops at t = 0, with what to do, where the
/// initial state gives the other mode, instead of going on from consistency equations
/// written for a mode the model is not in.
pub(crate) fn initial_mode_assert(m: &str, g: &Expr, v: bool) -> Item {
    // In the equations, at t = 0 only (rumoca evaluates an initial equation's assert at
    // every step).
    let holds = if v { g.clone() } else { exprs::not(g.clone()) };
    let holds = exprs::binary(crate::syntax::ast::BinOp::Or, exprs::not(exprs::call("initial", Vec::new())), holds);
    let message = format!(
        "mdae-rimis: the output starts where `{m}` is {v}, its guard at the start values of what it reads, but the initial state gives `{m}` = {}: declare `{m}` with the start value of its initial mode",
        !v
    );
    let mut item = Item::new(exprs::assert(holds, &message));
    item.comment = Some(format!("initial mode: `{m}` = {v}, from the start values"));
    item
}

/// The value of the guard `g` at the start values of what it reads ([`at_start_values`]),
/// if that is a constant: the initial mode a simulator's first iterate takes. Only for a
/// guard that reads states (a state in some mode; a replicate of one), `time` and
/// parameters: an algebraic variable's start is a guess at what the initial system
/// computes from them (MSL SimpleGearShift: `brake.free = brake.fn <= 0` with fn = fn_max ·
/// f_normalized of a ramp, 0 only as a start value; guessed, the run stopped at its assert).
pub(crate) fn guess_at_starts(plan: &Plan, src: &Source, g: &Expr, reads: Reads) -> Option<bool> {
    let replicas: BTreeMap<&str, VarId> =
        plan.declared.iter().filter_map(|(n, _, v)| v.map(|(u, _)| (n.as_str(), u))).collect();
    let state = |u: VarId| match plan.roles[u.index()] {
        Role::Untouched { d } | Role::Shared { d } => d > 0,
        Role::Varying => plan.writers[u.index()].iter().any(|&(_, k)| k > 0),
    };
    let var = |n: &str| replicas.get(n).or_else(|| plan.by_name.get(n)).copied();
    let allowed = super::guards::names_in(g).iter().all(|n| {
        n == "time"
            || src.is_parameter(n)
            || match reads {
                Reads::States => var(n).is_some_and(state),
                Reads::Starts => true,
                Reads::Declared => {
                    var(n).is_some_and(|u| state(u) || src.modifier(&plan.mdae.var(u).name, "start").is_some())
                }
            }
    });
    if !allowed {
        return None;
    }
    match symbolic::simplify(&at_start_values(plan, src, g)).kind {
        crate::syntax::ast::ExprKind::Bool(v) => Some(v),
        _ => None,
    }
}

/// `e` at the start values of the output's variables: `time` = 0, a source its `start`, a
/// replicate of u its source's (u^(i), i > 0: 0), `pre(x)` as x; a variable without a start
/// value 0, as a simulator's first iterate (literal and parameter starts only: others
/// are left as they are).
fn at_start_values(plan: &Plan, src: &Source, e: &Expr) -> Expr {
    use crate::syntax::ast::ExprKind;
    let replicas: BTreeMap<&str, (VarId, u32)> =
        plan.declared.iter().filter_map(|(n, _, v)| v.map(|v| (n.as_str(), v))).collect();
    let value = |n: &str| -> Option<Expr> {
        if n == "time" {
            return Some(exprs::number("0"));
        }
        if src.is_parameter(n) {
            return None;
        }
        let source = match replicas.get(n) {
            Some(&(_, i)) if i > 0 => return Some(exprs::number("0")),
            Some(&(u, _)) => plan.mdae.var(u).name.to_string(),
            // A variable of the input, also one the lowering made time-invariant.
            None if plan.by_name.contains_key(n) || src.declaration(n).is_some() => n.to_string(),
            None => return None,
        };
        let start = src.modifier(&source, "start").cloned().unwrap_or_else(|| exprs::number("0"));
        let mut constant = true;
        exprs::for_each(&start, &mut |x| {
            if matches!(x.kind, ExprKind::Name(_) | ExprKind::Ref(_)) {
                constant &= exprs::var_name(x).is_some_and(|v| src.is_parameter(&v));
            }
        });
        constant.then_some(start)
    };
    rewrite(e, &mut |x| match &x.kind {
        ExprKind::Call(c) if c.function.text.as_str() == "pre" => {
            let crate::syntax::ast::FunctionArgs::List { positional, .. } = &c.args else { return None };
            let [arg] = &positional[..] else { return None };
            value(&exprs::var_name(arg)?)
        }
        ExprKind::Name(_) | ExprKind::Ref(_) => value(&exprs::var_name(x)?),
        _ => None,
    })
}

/// The output's states as [`initial_mode`] reads them: the state replicates with their
/// (u, i) ([`init_states`]) and the kept source states.
pub(crate) fn output_states(plan: &mut Plan) -> (BTreeMap<String, (VarId, u32)>, BTreeSet<String>) {
    (init_states(plan), kept_states(plan).into_iter().collect())
}

/// Start values for the mode variables defined by a level equation `m = g` whose guard
/// reads only `time`, declared parameters and constants, and kept states whose value at
/// t = 0 is their `fixed` start (`fixed_states`: name → start, a parameter expression): g at
/// t = 0 (`time` and those states replaced by their values), a parameter expression (issue
/// 29 class 4; campaign seed 54: `b3 = x1 >= 0.0211` with `x1(start = 1, fixed = true)`,
/// where rumoca refused the consistency equations written on the multiplexed sources). A mode variable's start value is its left
/// limit at t = 0: omc's `pre(m)` after the initialisation is m's initial value, rumoca's is
/// the start value (false when absent), so without it rumoca starts a model whose mode is
/// true at t = 0 with `pre(m)` false (the if-equations of the initialisation and the `pre` of
/// the multiplexers read in the other mode). A declared start value is kept (the input's);
/// switches (`fixpoints`) start from their `when initial()` branch; a guard that reads an
/// unknown is decided by the initial system (REINIT and RESTART do not fire at t = 0 for
/// those either: [`super::exprs::entered`]).
pub(crate) fn mode_starts(
    src: &Source,
    mode_eqs: &[(String, Expr)],
    fixpoints: &[String],
    fixed_states: &BTreeMap<String, Expr>,
) -> BTreeMap<String, Expr> {
    use crate::syntax::ast::ExprKind;
    let mut out = BTreeMap::new();
    for (m, g) in mode_eqs {
        if fixpoints.contains(m) {
            continue;
        }
        let mut decidable = true;
        exprs::for_each(g, &mut |x| match &x.kind {
            ExprKind::Call(c) => {
                let f = c.function.text.as_str();
                decidable &= !matches!(f, "pre" | "edge" | "change" | "initial" | "terminal" | "sample" | "delay");
            }
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                let n = exprs::var_name(x).map(|n| n.into_owned()).unwrap_or_default();
                // Declared parameters only: a time-invariant unknown (omc's parameter equations)
                // is computed at run time, and rumoca refuses a start value that reads it.
                decidable &= n == "time" || src.is_parameter(&n) || fixed_states.contains_key(&n);
            }
            _ => {}
        });
        if decidable {
            let at_zero = rewrite(g, &mut |x| {
                let n = exprs::var_name(x)?;
                if n == "time" { Some(exprs::number("0")) } else { fixed_states.get(&*n).cloned() }
            });
            // A constant folded (`sin(1.0) > 0`: a door schedule of a clock state fixed at 0,
            // the building of paper 002): a literal is an initial mode, so the consistency
            // equations are written for it alone. Under a condition read at run time, omc
            // matched the initial if-equation to the variable of its other branch and
            // divided by a mass it had not set (the compressible building, N = 10).
            let at_zero = symbolic::simplify(&at_zero);
            let bindings = std::collections::HashMap::new();
            let value = match (crate::flat::eval::Env { bindings: &bindings }).eval(&at_zero) {
                Some(crate::flat::eval::Value::Bool(v)) => exprs::boolean(v),
                _ => at_zero,
            };
            out.insert(m.clone(), value);
        }
    }
    out
}

/// The states of the output that are sources: u^(i), i < d, of the variables kept as
/// states (untouched or shared), as the output names them.
fn kept_states(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for u in plan.mdae.var_ids() {
        let (Role::Untouched { d } | Role::Shared { d }) = plan.roles[u.index()] else { continue };
        for i in 0..d {
            if let Some(crate::syntax::ast::ExprKind::Name(n)) = plan.existing_source(u, i).map(|e| e.kind) {
                out.push(n.as_str().to_string());
            }
        }
    }
    out
}

/// The kept states whose value at t = 0 is their declared start: `fixed`, with a start
/// that reads only literals and declared parameters, and not mentioned by the input's
/// initial equations (`user`); name → start. [`mode_starts`] decides the guards that read
/// them, and [`init_consistency`] does not let a consistency equation set them (`protected`).
pub(crate) fn fixed_kept_states(plan: &Plan, src: &Source, user: &BTreeSet<String>) -> BTreeMap<String, Expr> {
    use crate::syntax::ast::ExprKind;
    let mut out = BTreeMap::new();
    for n in kept_states(plan) {
        if !src.is_fixed(&n) || user.contains(&n) {
            continue;
        }
        let Some(start) = src.modifier(&n, "start") else { continue };
        let mut constant = true;
        exprs::for_each(start, &mut |x| match &x.kind {
            ExprKind::Call(_) => constant = false,
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                constant &= exprs::var_name(x).is_some_and(|v| src.is_parameter(&v));
            }
            _ => {}
        });
        if constant {
            out.insert(n, start.clone());
        }
    }
    out
}

/// What [`init_consistency`] writes, and what it leaves out.
pub(crate) struct InitConsistency {
    pub items: Vec<Item>,
    /// States that lose `fixed` (the consistency equations set them where they hold).
    pub freed: Vec<String>,
    /// Every state a consistency equation sets (fixed or not).
    pub absorbed: BTreeSet<String>,
    /// Consistency equations with no state to absorb them (not written).
    pub conditional: Vec<String>,
    /// Consistency equations reading a derivative the output does not name.
    pub unnamed: Vec<String>,
}

/// One consistency equation e^(j) to write: its label, region, equation on the sources,
/// and the states it can absorb.
struct Entry {
    label: String,
    region: Local,
    /// The region's condition number: its text and condition are made once per region.
    region_c: usize,
    everywhere: bool,
    equation: crate::syntax::ast::Equation,
    candidates: Vec<State>,
}

/// What is known of the modes at t = 0, for [`init_consistency`].
pub(crate) struct AtStart<'a> {
    /// Each mode variable's value at t = 0, as an expression without discrete variables.
    pub values: &'a BTreeMap<String, Expr>,
    /// The kept states fixed at their start that decide a guard: no equation sets them.
    pub protected: &'a BTreeSet<String>,
    /// The mode variables whose value at t = 0 is a constant: the initial modes.
    pub initial_modes: &'a [(crate::mdae::ModeId, bool)],
}

/// INIT, consistency: every consistency equation e^(j), selected by its region (module
/// header). `user` holds the names the input's own initial equations mention; `start` what
/// is known of the modes at t = 0.
pub(crate) fn init_consistency(
    plan: &mut Plan,
    src: &Source,
    user: &BTreeSet<String>,
    start: &AtStart,
    ctx: &DiffContext,
) -> Result<InitConsistency, RimisError> {
    let AtStart { values: at_start, protected, initial_modes } = *start;
    let mut out = InitConsistency {
        items: Vec::new(),
        freed: Vec::new(),
        absorbed: BTreeSet::new(),
        conditional: Vec::new(),
        unnamed: Vec::new(),
    };
    let mut entries: Vec<Entry> = Vec::new();
    // The modes the model may start in, as far as the mode variables' values at t = 0 are
    // constants (`initial_modes`): each e^(j) is written for them, on their replicates.
    // As local sets (`analysis::local`): the regions' whole sets were O(N) nodes each, for
    // every consistency equation (the compressible building N = 1000: 2 s).
    let fz = &plan.factored.clone();
    let initial = match initial_modes {
        [] => plan.care_local.clone(),
        _ => plan.modes_where(initial_modes).0,
    };
    for e in plan.mdae.eq_ids() {
        let live: Vec<(u32, Local)> =
            plan.cdg.offsets.get(e.index()).iter().filter(|(c, m)| *c > 0 && !fz.is_false(m)).cloned().collect();
        let top = live.iter().map(|x| x.0).max().unwrap_or(0);
        for j in 0..top {
            let region = live.iter().filter(|(c, _)| *c > j).fold(fz.none(), |acc, (_, m)| fz.or(&acc, m));
            // An equation of every mode the model may start in holds at the start as it is.
            let everywhere = !fz.meets_not(&initial, &region);
            // Narrowed to the initial modes (campaign seed 52: an equation of every mode,
            // `0 = if b1 then … else …` on the multiplexed sources, which rumoca's
            // initialisation does not project onto the initial mode). Where the model cannot
            // start in the region, e^(j) is not needed at t = 0: nothing is written, and the
            // region's state replicates start from their start values ([`starts_fixed`]).
            // Canonical (`Plan::canonical`): its texts and expressions are made from it. (The
            // initial modes are: `modes_where` numbers them so. Where a mode variable of every
            // door has a start value they read every window, and so does their intersection
            // with a region: its canonical form is O(|R|), built only where it is new.)
            let region = if everywhere {
                initial.clone()
            } else {
                let region = fz.and(&region, &initial);
                if fz.is_false(&region) {
                    continue;
                }
                plan.canonical(&region)
            };
            let on_sources = fz.covers(&region);
            let (eq, id) = (plan.mdae.eq(e), plan.mdae.label(e));
            let label = primed(id, j);
            let (l, r) = sides_under_in(plan, &eq.body, &region);
            let diff = |x: &Expr| {
                symbolic::differentiate_n(x, j, ctx)
                    .map_err(|err| RimisError::new(eq.span, format!("equation {id}: {err}")))
            };
            let (dl, dr) = (diff(&l)?, diff(&r)?);
            let region_c = plan.cond_number_canonical(&region);
            // On the region's replicates, also where a mode variable of its condition has no
            // start value (campaign seed 523: `not b2` with b2 decided at t = 0 by its guard;
            // on the multiplexed sources, rumoca's initialisation found a row outside its
            // planned unknowns). Seeds 15 and 66, for which the sources had been chosen
            // there, now have equations of every initial mode, written as they are.
            let Some(equation) = on_region(plan, &dl, &dr, region_c, on_sources) else {
                out.unnamed.push(label);
                continue;
            };
            let mut condition = super::guards::names_in(&at_time_zero(&plan.expr(&region), at_start));
            condition.extend(protected.iter().cloned());
            let candidates = states_in(plan, src, user, &condition, &region, &dl, &dr);
            // The plan's copy of the region (numbered above), not one more.
            entries.push(Entry {
                label,
                region: plan.cond_local(region_c),
                region_c,
                everywhere,
                equation,
                candidates,
            });
        }
    }
    let absorbed = absorb(&entries);
    let mut region_forms: BTreeMap<usize, (Expr, String)> = BTreeMap::new();
    for (k, entry) in entries.into_iter().enumerate() {
        let state = absorbed[k].map(|c| &entry.candidates[c]);
        out.absorbed.extend(state.map(|s| s.name.clone()));
        match (state, entry.everywhere) {
            (state, true) => {
                // Everywhere: the equation alone (a fixed state it absorbs loses `fixed`).
                if let Some(s) = state.filter(|s| s.fixed) {
                    out.freed.push(s.name.clone());
                }
                let mut item = Item::new(entry.equation);
                item.comment = Some(format!("consistency: {} holds at the start", entry.label));
                out.items.push(item);
            }
            (Some(s), false) => {
                if s.fixed {
                    out.freed.push(s.name.clone());
                }
                let start = s.start.clone().unwrap_or_else(|| exprs::number("0.0"));
                let elsewhere = simple(name(&s.name), start);
                // Decided before the run where the condition at t = 0 is a constant (a mode
                // variable's start value): the branch taken, alone.
                // Once per region (the building at N = 100: 250 entries over a few regions of
                // 100 literals each, whose minimised forms took seconds).
                let (condition, region) = region_forms
                    .entry(entry.region_c)
                    .or_insert_with(|| {
                        (
                            symbolic::simplify(&at_time_zero(&plan.expr(&entry.region), at_start)),
                            plan.text(&entry.region),
                        )
                    })
                    .clone();
                let label = &entry.label;
                let (equation, comment) = match condition.kind {
                    crate::syntax::ast::ExprKind::Bool(true) => (
                        entry.equation,
                        format!("consistency: {label} holds at the start (the model starts where `{region}`)"),
                    ),
                    crate::syntax::ast::ExprKind::Bool(false) => (
                        elsewhere,
                        format!(
                            "consistency: {label} holds where `{region}`, where the model does not start: {} starts from its start value",
                            s.name
                        ),
                    ),
                    _ => (
                        exprs::equation(EquationKind::If {
                            branches: vec![(condition, vec![entry.equation])],
                            else_branch: Some(Box::new([elsewhere])),
                        }),
                        format!(
                            "consistency: {label} holds at the start where `{region}` (elsewhere {} starts from its start value)",
                            s.name
                        ),
                    ),
                };
                let mut item = Item::new(equation);
                item.comment = Some(comment);
                out.items.push(item);
            }
            (None, false) => out.conditional.push(entry.label),
        }
    }
    Ok(out)
}

/// For each entry, the candidate state it absorbs: a maximum matching of entries to
/// states, first over the states whose start is only a guess (what the equations set
/// costs nothing), then augmented through `fixed` ones for the entries of some modes only
/// (an equation of every mode holds in the input's initial system too, as it is).
fn absorb(entries: &[Entry]) -> Vec<Option<usize>> {
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    let mut pick: Vec<Option<usize>> = vec![None; entries.len()];
    for allow_fixed in [false, true] {
        for k in 0..entries.len() {
            if pick[k].is_none() && (!allow_fixed || !entries[k].everywhere) {
                let mut seen = BTreeSet::new();
                augment(entries, k, allow_fixed, &mut owner, &mut pick, &mut seen);
            }
        }
    }
    pick
}

/// Kuhn's augmenting path from entry `k` (entries are few: recursion is fine).
fn augment(
    entries: &[Entry],
    k: usize,
    allow_fixed: bool,
    owner: &mut BTreeMap<String, usize>,
    pick: &mut [Option<usize>],
    seen: &mut BTreeSet<String>,
) -> bool {
    // The last declared first (the second inertia follows the first).
    for (c, s) in entries[k].candidates.iter().enumerate().rev() {
        let usable = !s.fixed || (allow_fixed && !entries[k].everywhere);
        if !usable || !seen.insert(s.name.clone()) {
            continue;
        }
        let free = match owner.get(&s.name) {
            None => true,
            Some(&other) => augment(entries, other, allow_fixed, owner, pick, seen),
        };
        if free {
            owner.insert(s.name.clone(), k);
            pick[k] = Some(c);
            return true;
        }
    }
    false
}

/// `c` with each mode variable replaced by its value at t = 0 (`at_start`, a few levels
/// deep), so that the initial equation's condition reads no discrete variable.
fn at_time_zero(c: &Expr, at_start: &BTreeMap<String, Expr>) -> Expr {
    let mut c = c.clone();
    for _ in 0..4 {
        c = rewrite(&c, &mut |x| match &x.kind {
            crate::syntax::ast::ExprKind::Name(_) | crate::syntax::ast::ExprKind::Ref(_) => {
                exprs::var_name(x).and_then(|n| at_start.get(&*n).cloned())
            }
            crate::syntax::ast::ExprKind::Call(f) if f.function.text.as_str() == "pre" => Some(x.clone()),
            _ => None,
        });
    }
    c
}

/// `l = r` as it holds at t = 0 if the model starts in the region `region_c`: every u^(i)
/// named as the region reads it where the output has that name (the replicate of its only
/// writer there, §4.6.4; a kept state as its source), else as its source (no read
/// replicate is made for an equation that may not be written): the variables the states it
/// absorbs belong to — not the multiplexed sources, which rumoca's initialisation does
/// not project onto the initial mode (issue 29 class 3: "initial variable projection did
/// not satisfy the complete residual system"). An equation of every mode (`on_sources`:
/// the initial modes are not known) is written on the sources, as the input's initial
/// system has it. A derivative the
/// output does not name as a variable is read from the source (`der(x)` of a kept
/// state); `None` if it has no name there either.
fn on_region(
    plan: &mut Plan,
    l: &Expr,
    r: &Expr,
    region_c: usize,
    on_sources: bool,
) -> Option<crate::syntax::ast::Equation> {
    let mut missing = false;
    let mut map = |x: &Expr, plan: &mut Plan| {
        rewrite(x, &mut |y| {
            let (n, i) = exprs::occurrence(y)?;
            let u = *plan.by_name.get(&*n)?;
            let plain = |e: Expr| exprs::occurrence(&e).is_some_and(|(_, k)| k == 0).then_some(e);
            let found = if on_sources {
                plan.existing_source(u, i).or_else(|| plain(plan.read(u, i, region_c)))
            } else {
                // No read replicate made for an equation that may not be written.
                plan.read_existing(u, i, region_c).and_then(plain).or_else(|| plan.existing_source(u, i))
            };
            missing |= found.is_none();
            found
        })
    };
    let l = map(l, plan);
    let r = map(r, plan);
    let eq = simple(symbolic::simplify(&l), symbolic::simplify(&r));
    (!missing).then_some(eq)
}

/// A state a consistency equation can set at the start.
struct State {
    name: String,
    fixed: bool,
    start: Option<Expr>,
}

/// The states e^(j) (`l = r`) can set over `region`: for each u^(i) it reads, the state
/// that holds it there — the source itself or its dummy-derivative variable where u is
/// kept as a state (i < d), the state replicate ρ^i of the only writer over the region
/// where u is varying — unless the user's initial equations mention it or the region's
/// condition at t = 0 reads it (the mode would then depend on what it decides); in
/// declaration order, lower orders first.
fn states_in(
    plan: &mut Plan,
    src: &Source,
    user: &BTreeSet<String>,
    condition: &BTreeSet<String>,
    region: &Local,
    l: &Expr,
    r: &Expr,
) -> Vec<State> {
    let mut occurrences: Vec<(VarId, u32)> = Vec::new();
    for side in [l, r] {
        exprs::for_each(side, &mut |x| {
            if let Some((n, i)) = exprs::occurrence(x)
                && let Some(&u) = plan.by_name.get(&*n)
                && !occurrences.contains(&(u, i))
            {
                occurrences.push((u, i));
            }
        });
    }
    occurrences.sort_by_key(|&(u, i)| (i, u));
    let mut states = Vec::new();
    for (u, i) in occurrences {
        let source = plan.mdae.var(u).name.to_string();
        let state = match plan.roles[u.index()] {
            Role::Untouched { d } | Role::Shared { d } if i < d => match plan.existing_source(u, i).map(|e| e.kind) {
                Some(crate::syntax::ast::ExprKind::Name(n)) => n.as_str().to_string(),
                _ => continue,
            },
            Role::Varying => {
                let covering: Vec<(usize, u32)> =
                    plan.def_in(u, i, region).into_iter().filter(|&(_, k)| k > i).collect();
                let [(b, _)] = covering.as_slice() else { continue };
                if plan.factored.meets_not(region, plan.cond(plan.part_cond[*b])) {
                    continue;
                }
                match plan.written(*b, u, i).kind {
                    crate::syntax::ast::ExprKind::Name(n) => n.as_str().to_string(),
                    _ => continue,
                }
            }
            _ => continue,
        };
        if user.contains(&source) || user.contains(&state) || condition.contains(&state) || condition.contains(&source)
        {
            continue;
        }
        // Only u itself carries the input's `start`/`fixed` (copied to ρ^0 by INIT).
        let (fixed, start) =
            if i == 0 { (src.is_fixed(&source), src.modifier(&source, "start").cloned()) } else { (false, None) };
        states.push(State { name: state, fixed, start });
    }
    states
}

/// The names the input's own initial equations and initial algorithms mention.
pub(crate) fn names_in_initial_sections(parts: &[crate::syntax::ast::ClassPart]) -> BTreeSet<String> {
    use crate::syntax::ast::{ClassPart, Text};
    use crate::syntax::visit::{Visitor, walk_part};
    struct Names(BTreeSet<String>);
    impl Visitor for Names {
        fn name(&mut self, name: &mut Text) {
            self.0.insert(name.as_str().to_string());
        }
    }
    let mut names = Names(BTreeSet::new());
    for p in parts {
        if matches!(p, ClassPart::Equations { initial: true, .. } | ClassPart::Algorithm { initial: true, .. }) {
            walk_part(&mut p.clone(), &mut names);
        }
    }
    names.0
}

/// A variable declared `fixed` whose output source is a multiplexer holds its start at
/// t = 0 in the mode the model starts in, also where it is algebraic there (issue 30: the
/// compressible building's corridor temperature `Tc_4(start = 293.15, fixed = true)`, a
/// state replicate where the door is open, was left free where it starts closed, and the
/// output's initial system had two unknowns more than the input's). Written as the one
/// equation of its writer there with the replicate at its start (`Ec_4 = Mc_4 * cp *
/// 293.15`), on what it reads besides (kept states, parameters; not where it reads another
/// replicate, which INIT may fix already): rumoca's initialisation refused `Tc_4_57 =
/// 293.15` itself (a row outside its planned unknowns). Only where the initial mode is decided
/// (`at`, each mode variable's value at t = 0), the only writer there writes u itself, alone
/// and by one equation (`part_eqs`, as REPL writes it; a state replicate takes `fixed`
/// already, [`starts_fixed`]), no consistency equation sets its replicate, and the user's
/// initial equations do not mention u.
pub(crate) fn fixed_starts_in_initial_mode(
    plan: &mut Plan,
    src: &Source,
    user: &BTreeSet<String>,
    at: &[(crate::mdae::ModeId, bool)],
    absorbed: &BTreeSet<String>,
    part_eqs: &[Vec<crate::syntax::ast::Equation>],
) -> Vec<Item> {
    let mut out = Vec::new();
    if at.is_empty() {
        return out;
    }
    let valuation = plan.valuation(at);
    let Some(valuation) = valuation.as_ref().as_ref() else { return out };
    for u in plan.mdae.var_ids() {
        let source = plan.mdae.var(u).name.to_string();
        if plan.roles[u.index()] != Role::Varying || !src.is_fixed(&source) || user.contains(&source) {
            continue;
        }
        let Some(start) = src.modifier(&source, "start").cloned() else { continue };
        let writers = plan.def_at(u, 0, Some(valuation));
        let [(b, 0)] = writers.as_slice() else { continue };
        let block = plan.cdg.blocks.get(plan.part_block[*b]);
        if block.writes.len() != 1 {
            continue;
        }
        let rho = plan.written(*b, u, 0);
        let Some(n) = exprs::var_name(&rho).map(|n| n.into_owned()) else { continue };
        let [eq] = part_eqs[*b].as_slice() else { continue };
        let EquationKind::Simple { lhs, rhs } = &eq.kind else { continue };
        if absorbed.contains(&n) || user.contains(&n) {
            continue;
        }
        // Only on what the initial system leaves to it: an equation that also reads another
        // replicate (a state replicate INIT may fix, an algebraic one) is not written.
        let mut other = false;
        for side in [lhs, rhs] {
            exprs::for_each(side, &mut |x| {
                other |= exprs::var_name(x).is_some_and(|m| m != n.as_str() && plan.is_replicate(&m))
            });
        }
        if other {
            continue;
        }
        let at_start = |e: &Expr| {
            rewrite(e, &mut |x| (exprs::var_name(x).is_some_and(|m| m == n.as_str())).then(|| start.clone()))
        };
        let mut item = Item::new(simple(symbolic::simplify(&at_start(lhs)), symbolic::simplify(&at_start(rhs))));
        item.comment = Some(format!(
            "{source} starts at its fixed start value where the model starts (its writer there, {n} at {})",
            crate::syntax::printer::expr_to_string(&start)
        ));
        out.push(item);
    }
    out
}
