//! Mode equations on left limits (issue 4, point 3). A mode equation `m = g` whose
//! guard g depends, through the multiplexers, on m itself is a **guard fixpoint**
//! (`bh = sh >= 0` with `sh = if bh then sh_6 else sh_5`): at the switching instant both
//! values of m can be consistent, and simulators iterate on it forever. The rule:
//!
//! - g⁻ = g with every real read as in mode `not m` (the replicates of that mode), g⁺ =
//!   g read as in mode `m`;
//! - `when strict(g⁻) then m = true; elsewhen strict(not g⁺) then m = false; end when;`
//!   — the system enters m when the guard, computed as in the mode it is in, crosses
//!   into g (strictly: `>=` becomes `>`), and leaves m when the guard computed as in m
//!   crosses out of it. The switch is decided from the left limit, never from the
//!   multiplexed value it changes;
//! - the initial mode is the one the original equation gives at t = 0 from the start
//!   values: a first branch `when initial() then m = g⁰;`, g read in the modes where
//!   every mode variable rewritten this way has its start value (so that no initial
//!   value reads another's result); m loses `fixed`. A when-branch, not an initial
//!   equation: rumoca refuses an initial equation of a discrete variable that reads an
//!   algebraic unknown.
//!
//! A guard that still depends on m after the rewrite (a dependency through a block
//! written in every mode) is reported and left as it was.

use super::exprs::{self, binary, name, not, rewrite, var_name};
use super::plan::Plan;
use super::sections::{partial_in, sides_under_in};
use crate::analysis::local::Local;
use crate::mdae::ModeId;
use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use std::collections::{BTreeMap, BTreeSet};

/// Names each emitted name depends on instantaneously (states depend on nothing).
pub(crate) type Deps = BTreeMap<String, BTreeSet<String>>;

/// The names in `e` (outside `pre(…)`, and not under `der`, which makes a state).
pub(crate) fn names_in(e: &Expr) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    rewrite(e, &mut |x| match &x.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => {
            out.extend(var_name(x).map(String::from));
            None
        }
        ExprKind::Call(c) if matches!(c.function.text.as_str(), "pre" | "der") => Some(x.clone()),
        _ => None,
    });
    out
}

/// Every name `from` reaches in the union of `layers` (`from` included).
pub(crate) fn reachable(layers: &[&Deps], from: &BTreeSet<String>) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<String> = from.iter().cloned().collect();
    while let Some(n) = stack.pop() {
        if seen.insert(n.clone()) {
            for deps in layers {
                if let Some(next) = deps.get(&n) {
                    stack.extend(next.iter().filter(|x| !seen.contains(*x)).cloned());
                }
            }
        }
    }
    seen
}

/// Does any of `from` reach `target` in the union of `layers` (no merged copy; without
/// going through `target`'s own definition)?
pub(crate) fn reaches_in(layers: &[&Deps], from: &BTreeSet<String>, target: &str) -> bool {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<&str> = from.iter().map(String::as_str).collect();
    while let Some(n) = stack.pop() {
        if n == target {
            return true;
        }
        if seen.insert(n) {
            for deps in layers {
                if let Some(next) = deps.get(n) {
                    stack.extend(next.iter().map(String::as_str));
                }
            }
        }
    }
    false
}

/// The guard read in the modes where each mode variable of `at` has its value: every
/// real unknown named as read there; with `explicit`, first replaced by its definition
/// where a one-equation block defines it explicitly there ([`resolve`]; used for the
/// `when initial()` branch, so that it reads no other mode variable's result).
pub(crate) fn guard_under(plan: &mut Plan, g: &Expr, at: &[(ModeId, bool)], explicit: bool) -> Expr {
    let (cond, cnum) = plan.modes_where(at);
    let g = partial_in(plan, g, &cond);
    let g = if explicit { resolve(plan, &g, at, &cond) } else { g };
    read_in(plan, &g, cnum)
}

/// `e` with each unknown (and derivative) named as read in the modes numbered `cnum`
/// (`Plan::read`: their replicates); `pre(…)` left as written.
fn read_in(plan: &mut Plan, e: &Expr, cnum: usize) -> Expr {
    rewrite(e, &mut |x| {
        if let ExprKind::Call(c) = &x.kind
            && c.function.text.as_str() == "pre"
        {
            return Some(x.clone());
        }
        let (n, i) = exprs::occurrence(x)?;
        let u = *plan.by_name.get(&*n)?;
        Some(plan.read(u, i, cnum))
    })
}

/// Replaces each unknown by its explicit definition `u = e` where one one-equation
/// block writes it in the modes `cond` = `modes_where(at)` (a few levels deep), given as a
/// local set: the equation's sides are read under the block's condition and `cond` on
/// the windows of both (the building's and the brake's initial guards ask it under the
/// start values of all N mode variables, once per mode equation: O(N) conjunctions each).
pub(crate) fn resolve(plan: &Plan, g: &Expr, at: &[(ModeId, bool)], cond: &Local) -> Expr {
    let at = plan.valuation(at);
    let at = (*at).as_ref();
    let mut g = g.clone();
    for _ in 0..4 {
        g = rewrite(&g, &mut |x| {
            let n = var_name(x)?;
            let u = *plan.by_name.get(&*n)?;
            let def = plan.def_at(u, 0, at);
            let [(b, 0)] = def.as_slice() else { return None };
            let block = plan.cdg.blocks.get(plan.part_block[*b]);
            let [(eq, 0)] = block.eqs else { return None };
            let here = plan.factored.and(&plan.cond_local(plan.part_cond[*b]), cond);
            let (l, r) = sides_under_in(plan, &plan.mdae.eq(*eq).body, &here);
            if var_name(&l).is_some_and(|a| a == n) {
                Some(r)
            } else if var_name(&r).is_some_and(|a| a == n) {
                Some(l)
            } else {
                None
            }
        });
    }
    g
}

/// `strict(e)` when `positive`, `strict(not e)` otherwise: relations become strict in
/// the direction they hold (`a >= b` → `a > b`; `not (a >= b)` → `a < b`).
pub(crate) fn strict(e: &Expr, positive: bool) -> Expr {
    match &e.kind {
        ExprKind::Unary(UnOp::Not, x) => strict(x, !positive),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), xs) => {
            let op = match (op, positive) {
                (op, true) => *op,
                (BinOp::And, false) => BinOp::Or,
                _ => BinOp::And,
            };
            binary(op, strict(&xs[0], positive), strict(&xs[1], positive))
        }
        ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne), xs) => {
            let op = match (op, positive) {
                (BinOp::Ge | BinOp::Gt, true) | (BinOp::Le | BinOp::Lt, false) => BinOp::Gt,
                (BinOp::Le | BinOp::Lt, true) | (BinOp::Ge | BinOp::Gt, false) => BinOp::Lt,
                (BinOp::Eq, true) | (BinOp::Ne, false) => BinOp::Eq,
                _ => BinOp::Ne,
            };
            binary(op, xs[0].clone(), xs[1].clone())
        }
        _ if positive => e.clone(),
        _ => not(e.clone()),
    }
}

/// `e` with each relation `a op b` that reads an unknown (`varies`) moved by h = `band` ·
/// (1 + |a| + |b|) in favour of the value `keep` (without `floor`, `band` · (|a| + |b|): a
/// width relative to the operands alone, and none against a literal 0): `a >= b` → `a >= b - h` for true, `a >= b + h` for
/// false (under `not`, the other way). A guard fixpoint kept as a level equation is
/// written `m = if pre(m) then sticky(g, true) else sticky(g, false)` (a hysteresis of
/// width 2h): at the switch the block that reads m moves the guard's value by the
/// integration error, and with the exact relation m flips back and forth until the event
/// iteration gives up (campaign seeds 232, 907: 14 of 15 "event update iteration did not
/// converge").
pub(crate) fn sticky(e: &Expr, keep: bool, band: &Expr, varies: &dyn Fn(&Expr) -> bool, floor: bool) -> Expr {
    match &e.kind {
        ExprKind::Unary(UnOp::Not, x) => not(sticky(x, !keep, band, varies, floor)),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), xs) => {
            binary(*op, sticky(&xs[0], keep, band, varies, floor), sticky(&xs[1], keep, band, varies, floor))
        }
        ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), xs) if varies(e) => {
            let [a, b] = &**xs;
            // 1 + |a| + |b|, a literal's magnitude as written.
            let abs = |x: &Expr| match &x.kind {
                ExprKind::Number(_) => x.clone(),
                ExprKind::Unary(UnOp::Neg, n) if matches!(n.kind, ExprKind::Number(_)) => (**n).clone(),
                _ => exprs::call("abs", vec![x.clone()]),
            };
            let terms: Vec<Expr> = [a, b]
                .into_iter()
                .filter(|x| !matches!(&x.kind, ExprKind::Number(n) if n.as_str().parse::<f64>() == Ok(0.0)))
                .map(abs)
                .collect();
            if !floor && terms.len() < 2 {
                // Around a threshold 0, a width relative to the operand alone changes nothing.
                return e.clone();
            }
            let scale = match (floor, terms.split_first()) {
                (false, Some((first, rest))) => {
                    rest.iter().cloned().fold(first.clone(), |acc, x| binary(BinOp::Add, acc, x))
                }
                _ => terms.into_iter().fold(exprs::number("1"), |acc, x| binary(BinOp::Add, acc, x)),
            };
            let h = binary(BinOp::Mul, band.clone(), scale);
            // Moving b down favours `a >= b` (and `a > b`) being true, `a <= b` false.
            let down = matches!(op, BinOp::Gt | BinOp::Ge) == keep;
            let zero = matches!(&b.kind, ExprKind::Number(n) if n.as_str().parse::<f64>() == Ok(0.0));
            let b = match (zero, down) {
                (true, true) => exprs::neg(h),
                (true, false) => h,
                (false, _) => binary(if down { BinOp::Sub } else { BinOp::Add }, b.clone(), h),
            };
            binary(*op, a.clone(), b)
        }
        _ => e.clone(),
    }
}

/// The rewritten mode equation: (when-equation, initial value expression).
pub(crate) struct LeftLimit {
    pub enter: Expr,
    pub leave: Expr,
    pub initial: Expr,
}

/// Rewrites `m = g` on left limits, or `None` when the rewritten guards still depend
/// on m (the fixpoint cannot be broken this way).
pub(crate) fn left_limit(
    plan: &mut Plan,
    deps: &Deps,
    m: ModeId,
    g: &Expr,
    starts: &[(ModeId, bool)],
) -> Option<LeftLimit> {
    let off = guard_under(plan, g, &[(m, false)], false);
    let on = guard_under(plan, g, &[(m, true)], false);
    let mode = plan.mdae.mode(m).name.clone();
    // The multiplexers' dependencies, kept by the plan (not rebuilt per mode equation).
    let layers = [deps, plan.mux_deps()];
    if reaches_in(&layers, &names_in(&off), &mode) || reaches_in(&layers, &names_in(&on), &mode) {
        return None;
    }
    let initial = guard_under(plan, g, starts, true);
    Some(LeftLimit { enter: strict(&off, true), leave: strict(&on, false), initial })
}

/// `m`'s name as an expression (for the when-equation's left-hand sides).
pub(crate) fn target(plan: &Plan, m: ModeId) -> Expr {
    name(&plan.mdae.mode(m).name)
}

/// Where an impact law of the user restarts the entry into a mode (`impact_laws.rs`), the
/// condition under which that mode is a transient one (paper 000 §5.2.3, paper 003 Alg. 11):
/// left at once, because after the law the guard of the other mode, computed as in that mode
/// (its replicates, `at`), moves away from its threshold, so that mode holds on. The guard
/// is `a op b` (or its `not`), resolved through one-equation blocks (`resolve`) and
/// differentiated in time: `d/dt (a - b) > 0` where `a < b` enters the mode (the gap opens),
/// `< 0` where `a > b` does. `holds`: the value of the guard that enters the mode (true for
/// `m = g` entering m, false for `not m`). `None` where the guard is not one relation or
/// does not differentiate. The result is a relation `rate op 0`, to be widened by
/// `sticky` (the rate is exactly 0 where the law leaves the state consistent: a plastic
/// impact, or a bounce too small to leave the mode — the ball comes to rest).
pub(crate) fn leaving_rate(
    plan: &mut Plan,
    g: &Expr,
    at: &[(ModeId, bool)],
    holds: bool,
    ctx: &crate::rimis::symbolic::DiffContext,
) -> Option<Expr> {
    let (cond, cnum) = plan.modes_where(at);
    let g = partial_in(plan, g, &cond);
    let g = resolve(plan, &g, at, &cond);
    // Strip `not`s and `noEvent`: the relation and whether it enters when true.
    let (mut rel, mut enters_when_true) = (g, holds);
    loop {
        match &rel.kind {
            ExprKind::Unary(UnOp::Not, x) => {
                let x = (**x).clone();
                rel = x;
                enters_when_true = !enters_when_true;
            }
            ExprKind::Call(c) if c.function.text.as_str() == "noEvent" => {
                let crate::syntax::ast::FunctionArgs::List { positional, .. } = &c.args else { return None };
                rel = positional.first()?.clone();
            }
            _ => break,
        }
    }
    let ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), xs) = &rel.kind else { return None };
    let diff = binary(BinOp::Sub, xs[0].clone(), xs[1].clone());
    let rate = crate::rimis::symbolic::time_derivative(&diff, ctx).ok()?;
    if matches!(&rate.kind, ExprKind::Number(n) if n.as_str().parse::<f64>() == Ok(0.0)) {
        return None;
    }
    // The mode holds on while the relation keeps the value that does not enter: a - b
    // grows where `a < b` enters, falls where `a > b` does.
    let below_enters = matches!(op, BinOp::Lt | BinOp::Le) == enters_when_true;
    let rate = read_in(plan, &rate, cnum);
    let zero = exprs::number("0");
    Some(binary(if below_enters { BinOp::Gt } else { BinOp::Lt }, rate, zero))
}
