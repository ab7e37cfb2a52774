//! Restart systems at impulsive mode changes (paper 000 §5.1, §6.1.2), for the modes of
//! index ≤ 1: where [`restart`](super::restart) finds that entering a region E of modes
//! does not make a consistency equation true (the engaging clutch: `w1 - w2 = 0`), this
//! module computes the values the states restart from, instead of keeping the values from
//! before the switch.
//!
//! The system is the nonstandard restart system (14) of §5.1.3, in which the previous
//! instant has set the states: E's equations at the switch instant, with every derivative
//! expanded by one Euler step `der(u) = (u⁺ - u) / δ`, the consistency equations
//! removed (Principle 1: what the previous instant did cannot be undone) and replaced by
//! their forward shifts (each state u read as its restart value u⁺). Unknowns: u⁺ for
//! every state of E, and the value at the switch of every algebraic variable of E
//! (possibly impulsive: the clutch's torques grow like 1/δ). It is built here only when E
//! has one structure (each c and d uniform over E) with every c ≤ 1 and d ≤ 1; there the
//! conflicting part of the unfolded system is exactly the consistency equations, so the
//! Dulmage–Mendelsohn step of §5.1.3 reduces to removing them. The result is checked
//! structurally nonsingular with the general DM code ([`crate::analysis::dm`]); its
//! over- and under-determined parts are reported otherwise.
//!
//! It is solved with a small step δ (a parameter of the output, 1e-6 by default) instead
//! of being standardised symbolically: §6.1.2's third method, which converges as δ → 0
//! (the error is O(δ)) and needs neither the impulse orders nor the elimination of the
//! impulsive variables. The restart variables are computed in every step (affine systems
//! with constant coefficients), or only in the modes the entry comes from (otherwise,
//! trivial elsewhere as in §4.7); at the switch, `reinit(u, pre(u⁺))` restarts each state
//! from the value computed just before it, from the left limits. ClutchBasic: w1⁺ = w2⁺ =
//! (j1·w1⁻ + j2·w2⁻)/(j1 + j2) + O(δ).

use super::exprs::{self, binary, call, name, simple};
use super::names::Namer;
use super::plan::{Plan, Role};
use super::restart::Unguaranteed;
use super::sections::{constant_coefficients, guarded, sides_under};
use super::symbolic::{self, DiffContext};
use super::{Item, RimisError};
use crate::analysis::dm;
use crate::mdae::VarId;
use crate::syntax::ast::{BinOp, EquationKind, Expr, ExprKind};
use crate::syntax::printer::expr_to_string;
use biodivine_lib_bdd::Bdd;
use rustc_hash::FxHashSet;
use std::rc::Rc;

/// What the restart systems add to the output.
#[derive(Default)]
pub(crate) struct Restarts {
    /// The restart equations, one commented group per entered region.
    pub equations: Vec<Item>,
    /// `when E then reinit(u, pre(u_plus)); …; elsewhen …` (at most one item).
    pub reinit: Vec<Item>,
    /// The name of the step parameter δ, if a system was built.
    pub step: Option<String>,
    pub notes: Vec<String>,
    /// The consistency equations no system restores.
    pub warnings: Vec<String>,
    /// Their indices in the failures given to [`build`] (checked by `checks.rs`).
    pub unrestored: Vec<usize>,
}

/// Default step of the restart systems, in seconds.
pub(crate) const STEP: &str = "1e-6";

/// Builds a restart system for each region entered with unguaranteed consistency
/// equations; the regions it cannot handle keep their warnings, with the reason.
pub(crate) fn build(plan: &mut Plan, failures: &[Unguaranteed], ctx: &DiffContext) -> Result<Restarts, RimisError> {
    let mut out = Restarts::default();
    let mut regions: Vec<&Bdd> = Vec::new();
    for f in failures {
        if !regions.contains(&&f.entered) {
            regions.push(&f.entered);
        }
    }
    let mut whens: Vec<(Expr, Vec<crate::syntax::ast::Equation>)> = Vec::new();
    // One step parameter for every system; declared only if some system is built.
    let mut step_name: Option<String> = None;
    let shared = Shared::new(plan);
    for region in regions {
        let here: Vec<&Unguaranteed> = failures.iter().filter(|f| &f.entered == region).collect();
        let step = step_name.get_or_insert_with(|| plan.namer.fresh("restart_step")).clone();
        match system(plan, &shared, region, &step, ctx)? {
            Ok(sys) => {
                out.step = Some(step.clone());
                let names: Vec<String> =
                    here.iter().map(|f| format!("{}{}", plan.mdae.eq(f.eq).id, "'".repeat(f.j as usize))).collect();
                let entering = plan.cond_text(region);
                let mut items = sys.items;
                if let Some(first) = items.first_mut() {
                    first.comment = Some(format!(
                        "entering `{entering}` (restores {}): {}",
                        names.join(" "),
                        if sys.guarded { "computed in the modes it is entered from" } else { "computed in every step" }
                    ));
                }
                out.equations.extend(items);
                let reinits =
                    sys.states.iter().map(|(u, plus)| exprs::reinit(name(u), call("pre", vec![name(plus)]))).collect();
                whens.push((plan.cond_expr(region), reinits));
                out.notes.push(format!(
                    "restart computed: entering `{entering}`, the states restart from the restart system of paper 000 §5.1 (one step of {step} = {STEP} s), which makes {} true",
                    names.join(" ")
                ));
            }
            Err(why) => {
                out.warnings.extend(here.iter().map(|f| format!("{}; no restart system: {why}", f.message)));
                out.unrestored.extend((0..failures.len()).filter(|&k| &failures[k].entered == region));
            }
        }
    }
    if !whens.is_empty() {
        let mut item = Item::new(exprs::equation(EquationKind::When { branches: whens }));
        item.comment =
            Some("the states restart from the restart systems, from the values just before the switch".into());
        out.reinit.push(item);
    }
    Ok(out)
}

/// A restart system: its equations, whether they are guarded, and (state, restart
/// variable) for each state to reinitialise.
struct System {
    items: Vec<Item>,
    guarded: bool,
    states: Vec<(String, String)>,
}

/// The single value of a per-mode quantity over `region`, if it has one.
fn uniform(entries: &[(u32, Bdd)], region: &Bdd) -> Option<u32> {
    let mut values = entries.iter().filter(|(_, m)| !m.and(region).is_false()).map(|x| x.0);
    let first = values.next()?;
    values.all(|v| v == first).then_some(first)
}

/// What every region's system shares, computed once per model (issue 15: the systems were
/// checked variable by variable and named in full for every region, O(N²) on Westinghouse).
struct Shared {
    /// Per variable, per equation: the order d, the offset c, where it is the same in every
    /// regular mode (so [`uniform`] over any non-empty region of regular modes gives it).
    d: Vec<Option<u32>>,
    c: Vec<Option<u32>>,
    /// The restart variables' wanted names (`x_plus`), and placeholders for them that no
    /// model name can equal (the names are only made for a system that is built).
    wants: Rc<[String]>,
    placeholders: Vec<Expr>,
}

impl Shared {
    fn new(plan: &Plan) -> Shared {
        let constant = |entries: &[(u32, Bdd)]| {
            let mut live = entries.iter().filter(|(_, m)| !m.and(&plan.care).is_false());
            match (live.next(), live.next()) {
                (Some((v, m)), None) if m.and(&plan.care) == plan.care => Some(*v),
                _ => None,
            }
        };
        let mdae = plan.mdae;
        Shared {
            d: plan.cdg.orders.iter().map(|o| constant(o)).collect(),
            c: plan.cdg.offsets.iter().map(|o| constant(o)).collect(),
            wants: mdae.var_ids().map(|u| Namer::plain(&mdae.var(u).name) + "_plus").collect(),
            placeholders: (0..mdae.vars.len()).map(|u| name(&format!("\u{1}{u}"))).collect(),
        }
    }

    /// The variable a placeholder stands for.
    fn placeholder(x: &Expr) -> Option<usize> {
        match &x.kind {
            ExprKind::Name(n) => n.as_str().strip_prefix('\u{1}')?.parse().ok(),
            _ => None,
        }
    }
}

/// The restart system for entering `region`, or why there is none.
///
/// The restart variables are named only if the system is built; where it fails after the
/// point at which it used to name them, their names are taken all the same
/// ([`Namer::defer`]), so every name in the output is as it was.
fn system(
    plan: &mut Plan,
    shared: &Shared,
    region: &Bdd,
    step: &str,
    ctx: &DiffContext,
) -> Result<Result<System, String>, RimisError> {
    let built = build_system(plan, shared, region, step, ctx)?;
    if built.is_err() && named_before_failing(plan, shared, region) {
        plan.namer.defer(&shared.wants);
    }
    Ok(built)
}

/// Would the system for `region` have named its variables before failing (the orders
/// are uniform and at most 1 there, and no state is replicated per mode)?
fn named_before_failing(plan: &Plan, shared: &Shared, region: &Bdd) -> bool {
    plan.mdae.var_ids().all(|u| {
        let k = shared.d[u.index()].or_else(|| uniform(&plan.cdg.orders[u.index()], region));
        k.is_some_and(|k| k <= 1 && !(k == 1 && plan.roles[u.index()] == Role::Varying))
    })
}

fn build_system(
    plan: &mut Plan,
    shared: &Shared,
    region: &Bdd,
    step: &str,
    ctx: &DiffContext,
) -> Result<Result<System, String>, RimisError> {
    let mdae = plan.mdae;
    let mut d = Vec::new();
    for u in mdae.var_ids() {
        match shared.d[u.index()].or_else(|| uniform(&plan.cdg.orders[u.index()], region)) {
            Some(k) if k <= 1 => d.push(k),
            Some(k) => {
                return Ok(Err(format!(
                    "`{}` has order {k} there; restart systems are built for modes of index ≤ 1 only (paper 000 §5.2 needs transient modes)",
                    mdae.var(u).name
                )));
            }
            None => return Ok(Err(format!("the structure varies inside `{}`", plan.cond_text(region)))),
        }
    }
    for (u, &k) in d.iter().enumerate() {
        if k == 1 && plan.roles[u] == Role::Varying {
            return Ok(Err(format!(
                "`{}` is a state replicated per mode (it is reinitialised by REINIT already)",
                mdae.vars[u].name
            )));
        }
    }
    // The restart variables: u⁺ for a state, the value at the switch for an algebraic one;
    // placeholders until the system is known to be built.
    let var_of = |n: &str| plan.by_name.get(n).copied();
    let mut rows: Vec<(Expr, Expr)> = Vec::new();
    for e in mdae.eq_ids() {
        let Some(c) = shared.c[e.index()].or_else(|| uniform(&plan.cdg.offsets[e.index()], region)) else {
            return Ok(Err(format!("the structure varies inside `{}`", plan.cond_text(region))));
        };
        if c > 1 {
            return Ok(Err(format!(
                "equation {} is differentiated {c} times there; restart systems are built for modes of index ≤ 1 only",
                mdae.eq(e).id
            )));
        }
        let eq = mdae.eq(e);
        let (l, r) = sides_under(plan, &eq.body, region);
        let expand = |x: &Expr| {
            symbolic::expand_derivatives(x, ctx)
                .map_err(|err| RimisError::new(eq.span, format!("equation {}: {err}", eq.id)))
        };
        let (l, r) = (expand(&l)?, expand(&r)?);
        let mut bad = None;
        let mut shift = |x: &Expr| {
            exprs::rewrite(x, &mut |y| {
                if let ExprKind::Call(f) = &y.kind
                    && matches!(f.function.text.as_str(), "pre" | "initial" | "terminal")
                {
                    return Some(y.clone());
                }
                let (n, k) = exprs::occurrence(y)?;
                let u: VarId = var_of(n)?;
                let p = shared.placeholders[u.index()].clone();
                Some(match (c, k, d[u.index()]) {
                    // The shifted consistency equation reads the restart values.
                    (1, 0, _) => p,
                    // An Euler step for a derivative; the state itself is as set before.
                    (0, 1, 1) => binary(BinOp::Div, binary(BinOp::Sub, p, name(n)), name(step)),
                    (0, 0, 1) => y.clone(),
                    (0, 0, 0) => p,
                    _ => {
                        bad = Some(format!("`{}` in equation {}", expr_to_string(y), eq.id));
                        y.clone()
                    }
                })
            })
        };
        let row = (shift(&l), shift(&r));
        if let Some(what) = bad {
            return Ok(Err(format!("{what} does not fit an index-1 restart")));
        }
        rows.push((symbolic::simplify(&row.0), symbolic::simplify(&row.1)));
    }
    // Structural check with the general Dulmage–Mendelsohn decomposition.
    let column = Shared::placeholder;
    let graph: Vec<Vec<(usize, i64)>> = rows
        .iter()
        .map(|(l, r)| {
            let mut cols = std::collections::BTreeSet::new();
            for side in [l, r] {
                exprs::for_each(side, &mut |x| cols.extend(column(x)));
            }
            cols.into_iter().map(|j| (j, 0)).collect()
        })
        .collect();
    let parts = dm::decompose(&graph, mdae.vars.len());
    if !parts.is_perfect() {
        let eqs = |v: &[usize]| v.iter().map(|&i| mdae.equations[i].id.clone()).collect::<Vec<_>>().join(" ");
        let vars = |v: &[usize]| v.iter().map(|&j| mdae.vars[j].name.clone()).collect::<Vec<_>>().join(" ");
        return Ok(Err(format!(
            "the restart system is structurally singular (overdetermined: {}; underdetermined: {})",
            eqs(&parts.over_eqs),
            vars(&parts.under_vars)
        )));
    }
    // The system is built: its variables are named (fresh, so that no name of the model
    // can be taken for one of them).
    let plus: Vec<String> = shared.wants.iter().map(|w| plan.namer.fresh(w)).collect();
    let rename = |x: &Expr| exprs::rewrite(x, &mut |y| Shared::placeholder(y).map(|u| name(&plus[u])));
    let rows: Vec<(Expr, Expr)> = rows.iter().map(|(l, r)| (rename(l), rename(r))).collect();
    // Declarations, then the equations, guarded where they are not affine with constant
    // coefficients in the restart variables.
    for (u, p) in plus.iter().enumerate() {
        let what = if d[u] == 1 { "restart value of" } else { "value at the restart of" };
        let holds = format!("{what} {} entering {}", mdae.vars[u].name, plan.cond_text(region));
        plan.declare(p.clone(), holds, None);
    }
    let names = plus;
    let written: Vec<Expr> = names.iter().map(|n| name(n)).collect();
    let named: FxHashSet<&str> = names.iter().map(String::as_str).collect();
    let is_written = |x: &Expr| matches!(&x.kind, ExprKind::Name(n) if named.contains(n.as_str()));
    let is_real = |x: &Expr| {
        exprs::occurrence(x).is_some_and(|(n, k)| k > 0 || plan.by_name.contains_key(n) || named.contains(n))
    };
    let affine = rows
        .iter()
        .all(|(l, r)| constant_coefficients(&binary(BinOp::Sub, l.clone(), r.clone()), &is_written, &is_real));
    let items = if affine {
        rows.into_iter().map(|(l, r)| Item::new(simple(l, r))).collect()
    } else {
        let from = plan.care.and(&region.not());
        vec![Item::new(guarded(plan.cond_expr(&from), rows, &written))]
    };
    let states = (0..d.len()).filter(|&u| d[u] == 1).map(|u| (mdae.vars[u].name.clone(), names[u].clone())).collect();
    Ok(Ok(System { items, guarded: !affine, states }))
}
