//! The sections of paper 000 §4.6.3, one function each: REPL (the replicated
//! equations of every block, with the §4.7 guard of nonlinear blocks, which hold outside
//! their modes what `held.rs` gives; an equation that holds its block's written derivative
//! under an if-expression is solved for it where affine, issue 29 class 6), MULTI (the
//! multiplexers), DIFF (`der(ρ^i) = ρ^{i+1}`), REINIT (a state replicate takes the
//! source's value when its mode is entered); INIT is `init.rs`. DECL is the plan's list of
//! declared names.

use super::exprs::{self, binary, call, name, number, rewrite, simple};
use super::held::Held;
use super::plan::{Plan, Role};
use super::symbolic::{self, Decision, DiffContext};
use super::{Item, RimisError};
use crate::analysis::local::Local;
use crate::analysis::report::block_label;
use crate::mdae::{Body, VarId};
use crate::syntax::ast::{BinOp, Equation, EquationKind, Expr, ExprKind};
use crate::syntax::printer::expr_to_string;
use std::borrow::Cow;

/// π_q: partial evaluation of an expression's if-conditions under the modes `q` (a local
/// set, `analysis::local`: each decision reads the windows of the modes it involves only)
/// and, for a nested condition, the enclosing ones (`if p then (if p or r then a else b)
/// else c` is `if p then a else c` whatever q).
pub(crate) fn partial_in(plan: &Plan, e: &Expr, q: &Local) -> Expr {
    let fz = &plan.factored;
    let known =
        |c: &Expr| plan.mdae.conditions.get(&expr_to_string(c)).map(|cond| fz.local(&plan.cdg.space.cond(cond)));
    symbolic::partial_eval_in(e, &mut |path, c: &Expr| {
        let Some(c) = known(c) else { return Decision::Keep(c.clone()) };
        // q and the enclosing conditions that are mode conditions (the others are left out:
        // a weaker assumption, never a wrong verdict).
        let q = path.iter().fold(q.clone(), |acc, (p, side)| match known(p) {
            Some(p) if *side => fz.and(&acc, &p),
            Some(p) => fz.and_not(&acc, &p),
            None => acc,
        });
        if !fz.meets_not(&q, &c) {
            Decision::True
        } else if !fz.meets(&q, &c) {
            Decision::False
        } else {
            let short = plan.cdg.space.to_cond_local(&c, &q, fz);
            Decision::Keep(exprs::cond_expr(&short, &|m| plan.mode_expr(m)))
        }
    })
}

/// An equation's sides under the modes `q` (a local set): its simple body, or the arms of a
/// paired if-equation that `q` allows (one: that arm; several: `0 = if … then l - r else …`).
pub(crate) fn sides_under_in(plan: &Plan, body: &Body, q: &Local) -> (Expr, Expr) {
    let fz = &plan.factored;
    let (lhs, rhs) = match body.sides() {
        Some((lhs, rhs)) => (Cow::Borrowed(lhs), Cow::Borrowed(rhs)),
        None => {
            let arms = body.arms();
            let when = |a: &crate::mdae::Arm| fz.local(&plan.cdg.space.cond(&a.when));
            let live: Vec<_> = arms.iter().filter(|a| fz.meets(&when(a), q)).collect();
            match live.as_slice() {
                [a] => (Cow::Borrowed(&*a.lhs), Cow::Borrowed(&*a.rhs)),
                _ => {
                    let residual = |a: &crate::mdae::Arm| {
                        binary(BinOp::Sub, a.lhs.clone().into_owned(), a.rhs.clone().into_owned())
                    };
                    let (last, rest) = live.split_last().expect("some arm holds in every regular mode");
                    let branches = rest
                        .iter()
                        .map(|a| {
                            let c = plan.cdg.space.to_cond_local(&when(a), q, fz);
                            (exprs::cond_expr(&c, &|m| plan.mode_expr(m)), residual(a))
                        })
                        .collect();
                    (Cow::Owned(number("0")), Cow::Owned(exprs::if_expr(branches, residual(last))))
                }
            }
        }
    };
    (partial_in(plan, &lhs, q), partial_in(plan, &rhs, q))
}

/// Part `b`'s equations as REPL writes them ([`prepare`]), before its §4.7 guard.
pub(crate) struct Prepared {
    out: Vec<(Expr, Expr)>,
    written: Vec<Expr>,
    writes: Vec<(VarId, u32)>,
    label: String,
    local: crate::analysis::local::Local,
    regular: bool,
    /// Written behind the §4.7 guard `if cond then … else w = h` (it reads its
    /// condition's modes); otherwise computed in every mode, as it is.
    pub guarded: bool,
}

/// REPL for part `b` (a block, or a part of one): each (q, k) ∈ Eqs(b) as
/// σ_b(δ_k(π_{cond(b)}(q))), and whether it goes behind the §4.7 guard (conditional and
/// not affine in what it writes, or reading expressions not defined everywhere).
pub(crate) fn prepare(plan: &mut Plan, b: usize, ctx: &DiffContext) -> Result<Prepared, RimisError> {
    let block = plan.cdg.blocks.get(plan.part_block[b]);
    let cnum = plan.part_cond[b];
    let local = plan.cond_local(cnum);
    let mut eqs = Vec::new();
    for &(e, k) in block.eqs {
        if super::as_written::kept_whole(plan, e) {
            continue; // emitted with its block, as written
        }
        let (eq, id) = (plan.mdae.eq(e), plan.mdae.label(e));
        let (lhs, rhs) = sides_under_in(plan, &eq.body, &local);
        let diff = |x: &Expr| {
            symbolic::differentiate_n(x, k, ctx)
                .map_err(|err| RimisError::new(eq.span, format!("equation {id}: {err}")))
        };
        let (lhs, rhs) = (diff(&lhs)?, diff(&rhs)?);
        eqs.push((lhs, rhs));
    }
    let writes: Vec<(VarId, u32)> = block.writes.to_vec();
    let mut out = Vec::new();
    for (lhs, rhs) in eqs {
        let l = substitute(plan, b, &writes, &lhs);
        let r = substitute(plan, b, &writes, &rhs);
        out.push((symbolic::simplify(&l), symbolic::simplify(&r)));
    }
    let written: Vec<Expr> = writes.iter().map(|&(u, k)| plan.written(b, u, k)).collect();
    let label = part_label(plan, b);
    let unconditional = plan.factored.covers(&local);
    let written_text: Vec<String> = written.iter().map(expr_to_string).collect();
    let is_written = |x: &Expr| written_text.contains(&expr_to_string(x));
    let regular = out.iter().all(|(l, r)| {
        let res = binary(BinOp::Sub, l.clone(), r.clone());
        constant_coefficients(&res, &is_written, &|x: &Expr| is_real(plan, x))
    });
    // A conditional block is computed in every mode unless guarded: only where every
    // expression is defined everywhere (the input evaluated it in its modes only).
    let constant = |n: &str| plan.mdae.time_invariant.contains(n);
    let total = out.iter().all(|(l, r)| symbolic::is_total(l, &constant) && symbolic::is_total(r, &constant));
    let guarded = !(unconditional || (regular && total));
    Ok(Prepared { out, written, writes, label, local, regular, guarded })
}

/// REPL for a [`prepare`]d part `b`: its equations, behind the §4.7 guard where it has one,
/// holding outside its modes what `held.rs` gives.
pub(crate) fn repl(plan: &mut Plan, held: &mut Held, b: usize, p: Prepared) -> Vec<Item> {
    let Prepared { out, written, writes, label, local, regular, guarded: is_guarded } = p;
    if !is_guarded {
        let unknown = |x: &Expr| is_real(plan, x);
        let mut items: Vec<Item> =
            out.into_iter().map(|(l, r)| Item::new(solved_derivative(l, r, &written, &unknown))).collect();
        if let Some(first) = items.first_mut() {
            first.comment = Some(label);
        }
        return items;
    }
    // §4.7: outside its modes a nonlinear block, or one whose expressions are not
    // defined everywhere, holds the values of what it replicates there (`held.rs`).
    let holds: Vec<Expr> =
        writes.iter().map(|&(u, k)| held.value(plan, b, u, k).unwrap_or_else(|| number("0"))).collect();
    let outside = if holds.iter().all(exprs::is_zero) {
        "trivial outside its modes"
    } else {
        "outside its modes it holds the other writers' values"
    };
    let cond = plan.expr(&local);
    let reads_reinit = out.iter().any(|(l, r)| {
        let mut found = false;
        for side in [l, r] {
            exprs::for_each(side, &mut |x| found |= matches!(&x.kind, ExprKind::Name(n) if plan.is_reinit_target(n)));
        }
        found
    });
    // A block on a guard fixpoint's loop reads its mode on the left limit (`pre(m)`), which
    // waits that step already.
    let on_fixpoint = super::guards::names_in(&cond).iter().any(|n| {
        plan.mdae.modes.iter().position(|x| x.name.as_str() == n.as_str()).is_some_and(|m| held.is_fixpoint(m))
    });
    let entry = if reads_reinit && !on_fixpoint { entry_step(plan, &cond, &writes, &written, &holds) } else { None };
    let (guard, holds, waits, sample) = match entry {
        Some((guard, holds, sample)) => (guard, holds, true, sample),
        None => (cond, holds, false, None),
    };
    let mut item = Item::new(guarded(guard, out, &written, &holds));
    let why = if regular { "partial: division, root or function" } else { "nonlinear" };
    let waits = if waits {
        "; entered, it waits one step of the event iteration for the reinit of its state replicates"
    } else {
        ""
    };
    item.comment = Some(format!("{label} ({why}: {outside}, paper 000 §4.7{waits})"));
    let mut items = vec![item];
    if let Some(mut sample) = sample {
        sample.comment = Some(format!("{label}: the left limits it holds in that step"));
        items.push(sample);
    }
    items
}

/// A guarded block that reads a state replicate REINIT or RESTART sets when its modes are
/// entered waits one step of the event iteration at the entry (issue 30,
/// HeldByTheBlockEnteredFirst): `reinit` applies at the end of the step in which its
/// `when` fires (Modelica 3.6 §8.3.6), so in that step the state replicate still holds its
/// value from before, and omc's solve of a nonlinear block there may have no real root (the
/// entered block of campaign seed 9155 had none with x1_2 = 1). Its guard becomes
/// `c and (initial() or pre(c))`; in that step each replicate it writes holds the left limit
/// of its source, sampled at the entry (`when c and not initial() then u_left = pre(u)`), so
/// the block's solve in the next step starts where the original's would. `None` where the
/// condition is not over mode variables alone (no `pre` of it to write).
fn entry_step(
    plan: &mut Plan,
    cond: &Expr,
    writes: &[(VarId, u32)],
    written: &[Expr],
    holds: &[Expr],
) -> Option<(Expr, Vec<Expr>, Option<Item>)> {
    let before = exprs::pre_of(cond)?;
    let guard = binary(BinOp::And, cond.clone(), binary(BinOp::Or, call("initial", Vec::new()), before));
    let mut samples = Vec::new();
    let holds = writes
        .iter()
        .zip(written)
        .zip(holds)
        .map(|((&(u, k), w), hold)| {
            if k > 0 || !exprs::var_name(w).is_some_and(|n| plan.is_replicate(&n)) {
                return hold.clone();
            }
            let source = plan.source(u, 0);
            let n = plan.namer.fresh(&format!("{}_left", exprs::var_name(w).unwrap_or_default()));
            let what = format!("{} at the entry of {}", expr_to_string(&source), expr_to_string(cond));
            plan.samples.push((n.clone(), what, u));
            samples.push(simple(name(&n), call("pre", vec![source])));
            exprs::if_expr(vec![(cond.clone(), name(&n))], hold.clone())
        })
        .collect();
    let when = EquationKind::When { branches: vec![(exprs::entered(cond.clone()), samples.clone())] };
    Some((guard, holds, (!samples.is_empty()).then(|| Item::new(exprs::equation(when)))))
}

/// `l = r`, or, where it holds a written derivative `der(x)` under an if-expression and is
/// affine in it, `der(x) = v` (issue 29, class 6): rumoca solves for a derivative only
/// where it stands alone or in an affine product, not under an if
/// (`0 = if b then der(x) - f else der(x) - g` becomes `der(x) = if b then f else g`).
/// An equation that holds several written derivatives, or one not affine in it, stays.
fn solved_derivative(l: Expr, r: Expr, written: &[Expr], unknown: &dyn Fn(&Expr) -> bool) -> Equation {
    let zero = |x: &Expr| matches!(&x.kind, ExprKind::Number(n) if n.parse::<f64>() == Ok(0.0));
    let residual = match (zero(&l), zero(&r)) {
        (true, _) => r.clone(),
        (_, true) => l.clone(),
        _ => binary(BinOp::Sub, l.clone(), r.clone()),
    };
    let ders: Vec<&Expr> = written
        .iter()
        .filter(|w| exprs::occurrence(w).is_some_and(|(_, k)| k > 0) && matches!(w.kind, ExprKind::Call(_)))
        .collect();
    let texts: Vec<String> = ders.iter().map(|d| expr_to_string(d)).collect();
    let held: Vec<usize> = (0..ders.len())
        .filter(|&i| {
            let mut found = false;
            exprs::for_each(&residual, &mut |x| {
                found |= matches!(x.kind, ExprKind::Call(_)) && expr_to_string(x) == texts[i]
            });
            found
        })
        .collect();
    let [d] = held.as_slice() else { return simple(l, r) };
    let target = |x: &Expr| matches!(x.kind, ExprKind::Call(_)) && expr_to_string(x) == texts[*d];
    let mut under_if = false;
    exprs::for_each(&residual, &mut |x| {
        if let ExprKind::If(e) = &x.kind {
            let has = |v: &Expr| {
                let mut found = false;
                exprs::for_each(v, &mut |y| found |= target(y));
                found
            };
            under_if |= e.branches.iter().any(|(_, v)| has(v)) || has(&e.else_value);
        }
    });
    if !under_if {
        return simple(l, r);
    }
    match symbolic::solve_affine(&residual, &target, unknown) {
        Some(v) => simple(ders[*d].clone(), v),
        None => simple(l, r),
    }
}

/// `Block k. cond: reads -- eqs -> writes` (the CDG block), or for a part of a split block
/// `Block k, part j of n. …; this part when c` (`emit::block_of_lines` reads both).
fn part_label(plan: &Plan, p: usize) -> String {
    let b = plan.part_block[p];
    let label = block_label(plan.mdae, plan.cdg, &plan.cdg.blocks.get(b));
    match plan.block_parts[b].as_slice() {
        [_] => format!("Block {}. {label}", b + 1),
        parts => {
            let j = parts.iter().position(|&q| q == p).map_or(0, |j| j + 1);
            let cond = plan.text(plan.cond(plan.part_cond[p]));
            format!("Block {}, part {j} of {}. {label}; this part when {cond}", b + 1, parts.len())
        }
    }
}

/// `if cond then eqs else w = h …`: the equations where `cond` holds, and outside it each
/// written variable, matched to an equation, set to what it holds there (§4.7; `holds`,
/// from `held.rs`: the other writers' value, or 0), so the tool's single-mode analysis
/// solves the same variables with the same equations in both branches.
pub(crate) fn guarded(cond: Expr, eqs: Vec<(Expr, Expr)>, written: &[Expr], holds: &[Expr]) -> Equation {
    let matched = match_block(&eqs, written);
    let then: Vec<_> = eqs.into_iter().map(|(l, r)| simple(l, r)).collect();
    let els: Vec<_> = matched.iter().map(|&w| simple(written[w].clone(), holds[w].clone())).collect();
    exprs::equation(EquationKind::If { branches: vec![(cond, then)], else_branch: Some(els.into()) })
}

/// Is `e` affine in the written variables with coefficients free of every real
/// unknown (so that solving it for them never divides by a value that may vanish
/// outside the block's modes)? Terms without written variables may be anything.
pub(crate) fn constant_coefficients(e: &Expr, written: &dyn Fn(&Expr) -> bool, real: &dyn Fn(&Expr) -> bool) -> bool {
    let mentions = |x: &Expr, p: &dyn Fn(&Expr) -> bool| {
        let mut found = false;
        exprs::for_each(x, &mut |y| found |= p(y));
        found
    };
    if !mentions(e, written) || written(e) {
        return true;
    }
    match &e.kind {
        ExprKind::Unary(_, x) => constant_coefficients(x, written, real),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, xs) => xs.iter().all(|x| constant_coefficients(x, written, real)),
        ExprKind::Binary(BinOp::Mul, xs) => {
            let constant = |x: &Expr| !mentions(x, real);
            (constant(&xs[0]) && constant_coefficients(&xs[1], written, real))
                || (constant(&xs[1]) && constant_coefficients(&xs[0], written, real))
        }
        ExprKind::Binary(BinOp::Div, xs) => !mentions(&xs[1], real) && constant_coefficients(&xs[0], written, real),
        ExprKind::If(x) => {
            x.branches.iter().all(|(c, v)| !mentions(c, written) && constant_coefficients(v, written, real))
                && constant_coefficients(&x.else_value, written, real)
        }
        _ => false,
    }
}

/// Is `x` a real unknown of the output (a source unknown, a replicate, a dummy
/// derivative, or `der` of one)?
fn is_real(plan: &Plan, x: &Expr) -> bool {
    match exprs::occurrence(x) {
        Some((n, k)) => plan.by_name.contains_key(&*n) || plan.is_declared(&n) || k > 0,
        None => false,
    }
}

/// For each equation of a block, the index of a written variable it contains, all
/// distinct (a perfect matching of the block, by augmenting paths). An equation that is
/// solved for a written variable as written (`x = f(…)`, or `f(…) = x`) is matched to it
/// where the matching allows: a tool pairs the rows of the two branches by position and
/// analyses their union, so `x = f(…)` paired with `y = 0` couples x and y in a loop that
/// neither branch has (a rewritten ThreeTanks did not initialise in rumoca for that).
fn match_block(eqs: &[(Expr, Expr)], written: &[Expr]) -> Vec<usize> {
    let texts: Vec<String> = written.iter().map(expr_to_string).collect();
    let contains = |e: usize, w: usize| {
        let mut found = false;
        for side in [&eqs[e].0, &eqs[e].1] {
            exprs::for_each(side, &mut |x| found |= expr_to_string(x) == texts[w]);
        }
        found
    };
    let solved_for = |e: usize| -> Vec<usize> {
        let sides = [expr_to_string(&eqs[e].0), expr_to_string(&eqs[e].1)];
        sides.iter().filter_map(|s| texts.iter().position(|t| t == s)).collect()
    };
    let adj: Vec<Vec<usize>> = (0..eqs.len())
        .map(|e| {
            let first = solved_for(e);
            let rest = (0..written.len()).filter(|w| !first.contains(w) && contains(e, *w));
            first.iter().copied().chain(rest).collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; written.len()];
    // A free variable first, then augmenting paths: a pairing made is only moved when
    // no free variable is left to the equation that needs it.
    fn augment(e: usize, adj: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
        if let Some(&w) = adj[e].iter().find(|&&w| owner[w].is_none() && !seen[w]) {
            seen[w] = true;
            owner[w] = Some(e);
            return true;
        }
        for &w in &adj[e] {
            if !seen[w] {
                seen[w] = true;
                if owner[w].is_none_or(|o| augment(o, adj, owner, seen)) {
                    owner[w] = Some(e);
                    return true;
                }
            }
        }
        false
    }
    let (explicit, implicit): (Vec<usize>, Vec<usize>) = (0..eqs.len()).partition(|&e| !solved_for(e).is_empty());
    for e in explicit.into_iter().chain(implicit) {
        augment(e, &adj, &mut owner, &mut vec![false; written.len()]);
    }
    let mut out: Vec<usize> = (0..eqs.len()).collect();
    let mut free: Vec<usize> = (0..written.len()).filter(|&w| owner[w].is_none()).collect();
    for (w, o) in owner.iter().enumerate() {
        if let Some(e) = o {
            out[*e] = w;
        }
    }
    // Equations left unmatched (not expected in a block) take the remaining variables.
    for e in 0..eqs.len() {
        if owner.iter().all(|o| *o != Some(e)) {
            out[e] = free.pop().unwrap_or(0);
        }
    }
    out
}

/// σ_b: every occurrence (u, i) of a real unknown named as written, read or read state.
fn substitute(plan: &mut Plan, b: usize, writes: &[(VarId, u32)], e: &Expr) -> Expr {
    let cnum = plan.part_cond[b];
    rewrite(e, &mut |x| {
        if let ExprKind::Call(c) = &x.kind
            && matches!(c.function.text.as_str(), "pre" | "initial" | "terminal")
        {
            return Some(x.clone());
        }
        let (n, i) = exprs::occurrence(x)?;
        let u = *plan.by_name.get(&*n)?;
        Some(if writes.iter().any(|&(w, k)| w == u && i <= k) { plan.written(b, u, i) } else { plan.read(u, i, cnum) })
    })
}

/// MULTI, first part: the multiplexers of the sources whose leading derivative (or,
/// for a varying variable, the variable itself) has several writers.
pub(crate) fn multi_sources(plan: &mut Plan) -> Vec<Item> {
    let mut out = Vec::new();
    for u in plan.mdae.var_ids() {
        let top = match plan.roles[u.index()] {
            Role::Untouched { .. } => continue,
            Role::Shared { d } => d,
            Role::Varying => 0,
        };
        let target = plan.source(u, top);
        let writers = plan.writers[u.index()].clone();
        let branches: Vec<(Local, Expr)> =
            writers.iter().map(|&(b, _)| (plan.cond_local(plan.part_cond[b]), plan.written(b, u, top))).collect();
        out.push(Item::new(simple(target, plan.case(&branches, &plan.care_local))));
    }
    out
}

/// MULTI, second part: the multiplexers made while naming reads (read replicates,
/// dummy derivatives of varying variables), in the order they were made.
pub(crate) fn pending_muxes(plan: &mut Plan) -> Vec<Item> {
    let mut out = Vec::new();
    let mut done = 0;
    while done < plan.muxes.len() {
        let m = plan.muxes[done].clone();
        let mut item = Item::new(simple(name(&m.target), plan.case(&m.branches, &m.care)));
        item.comment = Some(m.comment);
        out.push(item);
        done += 1;
    }
    out
}

/// DIFF: `der(u^(i-1)) = u^(i)` for the kept source states, and `der(ρ^i) = ρ^{i+1}`
/// inside every writer of a varying variable.
pub(crate) fn diff(plan: &mut Plan) -> Vec<Item> {
    let mut out = Vec::new();
    for u in plan.mdae.var_ids() {
        match plan.roles[u.index()] {
            Role::Untouched { d } | Role::Shared { d } => {
                let top = if matches!(plan.roles[u.index()], Role::Untouched { .. }) && !plan.names_leading(u) {
                    d.saturating_sub(1)
                } else {
                    d
                };
                for i in 1..=top {
                    let lo = plan.source(u, i - 1);
                    let hi = plan.source(u, i);
                    out.push(Item::new(simple(call("der", vec![lo]), hi)));
                }
            }
            Role::Varying => {
                for (b, k) in plan.writers[u.index()].clone() {
                    for i in 0..k {
                        let lo = plan.written(b, u, i);
                        let hi = plan.written(b, u, i + 1);
                        out.push(Item::new(simple(call("der", vec![lo]), hi)));
                    }
                }
            }
        }
    }
    out
}

/// REINIT: entering a writer's modes, its state replicates take the source's values:
/// `when cond(b) and not initial() then reinit(ρ^i, pre(u^(i))); end when;` (not for the
/// mode the model starts in, [`exprs::entered`]) — or, for a replicate that a
/// restart system restores on entering exactly those modes (`restarts`: region,
/// replicate, value), the restart value, in a `when cond(b)` of its own (as RESTART's).
/// The value a state replicate of writer `entered` takes as its mode is entered: the
/// source u^(i) where the mode left held it, `if pre(c1) then x_1 elseif … else pre(u^(i))`
/// over the other writers, when each of them holds u^(i) as a state (else `pre(u^(i))`).
/// The same left limit as `pre(u^(i))`, but read from the states themselves: where a mode
/// is entered and left in one instant (a transient mode, ContactLeftAtOnce), omc's
/// `pre(u)` in the second step of the event iteration is the multiplexer's value before
/// the first step's `reinit` (the mass lifted off 1 m above the ground it had hit).
fn left_limit(plan: &mut Plan, u: VarId, i: u32, entered: usize) -> Expr {
    let pre = call("pre", vec![plan.source(u, i)]);
    let writers = plan.writers[u.index()].clone();
    if writers.iter().any(|&(_, k)| k <= i) {
        return pre;
    }
    let mut branches = Vec::new();
    for (b, _) in writers.into_iter().filter(|&(b, _)| b != entered) {
        let local = plan.cond_local(plan.part_cond[b]);
        let Some(cond) = exprs::pre_of(&plan.expr(&local)) else { return pre };
        branches.push((cond, plan.written(b, u, i)));
    }
    if branches.is_empty() { pre } else { exprs::if_expr(branches, pre) }
}

pub(crate) fn reinit(plan: &mut Plan, restarts: &[(Local, String, Expr)]) -> Vec<Item> {
    let mut out = Vec::new();
    for u in plan.mdae.var_ids() {
        if plan.roles[u.index()] != Role::Varying {
            continue;
        }
        for (b, k) in plan.writers[u.index()].clone() {
            let mode = plan.cond_local(plan.part_cond[b]);
            // Copies of the left limit, and restart values (kept apart: [`exprs::entered`]).
            let (mut copies, mut restarted) = (Vec::new(), Vec::new());
            for i in 0..k {
                let target = plan.written(b, u, i);
                // The restart values of the replicate: one for the writer's modes, or one per
                // part of them where the restart system was split (selected at the switch).
                let restart: Vec<(&Local, &Expr)> = restarts
                    .iter()
                    .filter(|(_, n, _)| matches!(&target.kind, ExprKind::Name(t) if t.as_str() == n))
                    .map(|(c, _, v)| (c, v))
                    .collect();
                match restart.as_slice() {
                    [] => copies.push(exprs::reinit(target, left_limit(plan, u, i, b))),
                    [(r, v)] if plan.same(r, &mode) => restarted.push(exprs::reinit(target, (*v).clone())),
                    parts => {
                        let branches = parts.iter().map(|(c, v)| (plan.expr(c), (*v).clone())).collect();
                        let value = exprs::if_expr(branches, call("pre", vec![plan.source(u, i)]));
                        restarted.push(exprs::reinit(target, value));
                    }
                }
            }
            // A copy does not fire for the initial mode (`and not initial()`); a restart value
            // is read in a plain `when`, as RESTART's: omc would fire it just after the
            // initialisation and move a consistent state by O(restart_step).
            let cond = plan.expr(&mode);
            for (cond, body) in [(exprs::entered(cond.clone()), copies), (cond, restarted)] {
                if !body.is_empty() {
                    out.push(Item::new(exprs::equation(EquationKind::When { branches: vec![(cond, body)] })));
                }
            }
        }
    }
    out
}

/// Merges reinits into the `when`-equations that already reinitialise the same states, each
/// group as one more `elsewhen` branch (Modelica lets a state be reinitialised in one
/// `when`-equation only; rumoca refuses a second one): the restarts at rest after an impact
/// law (`restart_system::Restarts::at_rest`) go into the user's `when` of the law and into
/// REINIT's `when` of the replicate. What no `when` reinitialises yet is returned, as new
/// `when`-equations.
pub(crate) fn merge_reinits(lists: &mut [&mut Vec<Item>], extra: Vec<(Expr, Vec<Equation>)>) -> Vec<Item> {
    let target = |eq: &Equation| -> Option<String> {
        let EquationKind::Call(c) = &eq.kind else { return None };
        if c.function.text.as_str() != "reinit" {
            return None;
        }
        let crate::syntax::ast::FunctionArgs::List { positional, .. } = &c.args else { return None };
        exprs::var_name(positional.first()?).map(String::from)
    };
    let mut out = Vec::new();
    for (cond, eqs) in extra {
        // (list, item) -> the reinits it takes.
        let mut into: Vec<((usize, usize), Vec<Equation>)> = Vec::new();
        let mut left = Vec::new();
        for eq in eqs {
            let Some(t) = target(&eq) else {
                left.push(eq);
                continue;
            };
            let found = lists.iter().enumerate().find_map(|(l, items)| {
                items
                    .iter()
                    .position(|item| match &item.equation.kind {
                        EquationKind::When { branches } => branches
                            .iter()
                            .any(|(_, body)| body.iter().any(|b| target(b).as_deref() == Some(t.as_str()))),
                        _ => false,
                    })
                    .map(|i| (l, i))
            });
            match found {
                Some(at) => match into.iter_mut().find(|(k, _)| *k == at) {
                    Some((_, list)) => list.push(eq),
                    None => into.push((at, vec![eq])),
                },
                None => left.push(eq),
            }
        }
        for ((l, i), body) in into {
            if let EquationKind::When { branches } = &mut lists[l][i].equation.kind {
                branches.push((cond.clone(), body));
            }
        }
        if !left.is_empty() {
            out.push(Item::new(exprs::equation(EquationKind::When { branches: vec![(cond, left)] })));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::guarded;
    use crate::rimis::exprs::name;
    use crate::rimis::symbolic::testutil::parse_expr;
    use crate::syntax::printer::equation_to_string;

    /// Outside its modes each written variable is set to 0 on the row of the equation
    /// solved for it as written: `rho = f(h)` pairs with `rho = 0`, not `h = 0` (any
    /// perfect matching is correct, but a tool analyses the union of the paired rows).
    #[test]
    fn else_rows_pair_with_the_equation_solved_for_their_variable() {
        let eqs = ["rho", "f(h)", "p", "g(rho)", "h", "k(p)"]
            .chunks(2)
            .map(|s| (parse_expr(s[0]), parse_expr(s[1])))
            .collect();
        let written = [name("rho"), name("p"), name("h")];
        let zeros = vec![crate::rimis::exprs::number("0"); written.len()];
        let text = equation_to_string(&guarded(name("c"), eqs, &written, &zeros), 0);
        let rows: Vec<&str> = text.lines().map(str::trim).collect();
        assert_eq!(
            rows,
            ["if c then", "rho = f(h);", "p = g(rho);", "h = k(p);", "else", "rho = 0;", "p = 0;", "h = 0;", "end if;"],
            "{text}"
        );
    }
}
