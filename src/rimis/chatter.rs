//! Chattering switches (issue 31 point 3): a switch the output writes (a guard fixpoint,
//! `guards`) that changes back and forth while its guard stays at its threshold — a sliding
//! mode, where each mode's dynamics drive the state back across the other's guard (paper 000
//! §5.2: no mode is consistent there, and no restart decides one) — stops the simulation
//! with a message naming the mode, instead of running on with an event every few hysteresis
//! widths and values that belong to neither mode (SlidingModeChatters: 5 changes per ms, x2 jumping
//! between its two replicates).
//!
//! Per such switch m: a counter of m's changes in a row, reset when the guard of the mode m
//! is in leaves a neighbourhood of its threshold (`chatter_width` hysteresis widths,
//! h = switching_band (1 + |a| + |b|) per relation a op b), and an assert that the count
//! stays below `chatter_limit`. A switch that moves its guard away between two changes (a
//! rectifier's diode, a clutch, an impact and its bounces while they are higher than the
//! neighbourhood) never counts more than one or two.
//!
//! The reset is written with one relation per relation of the guard (issue 32: each relation
//! of a when-condition is a zero-crossing omc writes into several generated functions; the
//! detectors were a fifth of omc's build of the Westinghouse brake at N = 100): leaving the
//! neighbourhood as the complementary relation (`exprs::negate`, not `not r`, which omc
//! counts as a zero-crossing of its own), and the guards of the two modes, alike but for
//! the replicates they read, as one relation on `if m then … else …` operands
//! (`exprs::either`).

use super::Item;
use super::exprs::{self, binary};
use super::names::Namer;
use super::source::{added_declaration, real_parameter};
use crate::syntax::ast::{BinOp, Element, EquationKind, Expr, ExprKind, UnOp};
use crate::syntax::printer::expr_to_string;

/// Default of `chatter_limit`: changes of one switch in a row near its threshold.
pub(crate) const LIMIT: &str = "100";
/// Default of `chatter_width`: the neighbourhood of a threshold, in hysteresis widths.
pub(crate) const WIDTH: &str = "10";

/// The detectors of one output: the parameters' names (shared), and each switch's counter.
#[derive(Default)]
pub(crate) struct Detectors {
    params: Option<(String, String)>,
    counters: Vec<(String, String)>,
}

impl Detectors {
    /// The counter's when-equation and its assert for the switch `target` of the mode
    /// `mode` (its guard `guard` as the user wrote it, for the message); `near` gives, for
    /// the name of `chatter_width`, the neighbourhood of the threshold of the guard that
    /// decides the mode's next change.
    pub(crate) fn watch(
        &mut self,
        namer: &mut Namer,
        target: &Expr,
        mode: &str,
        guard: &Expr,
        near: impl FnOnce(&Expr) -> Expr,
    ) -> [Item; 2] {
        let (limit, width) =
            self.params.get_or_insert_with(|| (namer.fresh("chatter_limit"), namer.fresh("chatter_width")));
        let near = near(&exprs::name(width));
        let counter = namer.fresh(&format!("{}_chatter", Namer::plain(mode)));
        let n = exprs::name(&counter);
        let branches = vec![
            (
                exprs::call("change", vec![target.clone()]),
                vec![exprs::simple(
                    n.clone(),
                    binary(BinOp::Add, exprs::call("pre", vec![n.clone()]), exprs::number("1")),
                )],
            ),
            (exprs::negate(near), vec![exprs::simple(n.clone(), exprs::number("0"))]),
        ];
        let mut count = Item::new(exprs::equation(EquationKind::When { branches }));
        count.comment = Some(format!(
            "changes of `{mode}` in a row while its guard stays within {width} hysteresis widths of its threshold"
        ));
        let test = binary(BinOp::Lt, n, exprs::name(limit));
        let message = format!(
            "the mode `{mode}` chatters: it changed {limit} times in a row while its guard `{}` stayed at its threshold (a sliding mode: each mode drives the state back into the other); no mode is consistent there",
            expr_to_string(guard)
        );
        self.counters.push((counter, mode.to_string()));
        [count, Item::new(exprs::assert(test, &message))]
    }

    /// The declarations of the parameters and the counters.
    pub(crate) fn declarations(&self) -> Vec<Element> {
        let Some((limit, width)) = &self.params else { return Vec::new() };
        let mut out = vec![
            added_declaration(&format!(
                "parameter Integer {limit} = {LIMIT} \"changes of a switch in a row, its guard at its threshold, that stop the simulation as chattering (a sliding mode)\""
            )),
            real_parameter(
                width,
                WIDTH,
                "the neighbourhood of a guard's threshold in which a switch's changes count as chattering, in widths of its hysteresis (switching_band (1 + |a| + |b|))",
            ),
        ];
        for (counter, mode) in &self.counters {
            out.push(added_declaration(&format!(
                "Integer {counter}(start = 0, fixed = true) \"changes of `{mode}` in a row at its guard's threshold\""
            )));
        }
        out
    }
}

/// Whether `g` has a relation that reads an unknown (`varies`): a switch on it can chatter.
pub(crate) fn watched(g: &Expr, varies: &dyn Fn(&Expr) -> bool) -> bool {
    let one = exprs::number("1");
    near(g, &one, &one, varies).is_some()
}

/// Whether some relation `a op b` of `g` that reads an unknown (`varies`) is within
/// `width` · `band` · (1 + |a| + |b|) of its threshold; `None` when no relation reads one.
pub(crate) fn near(g: &Expr, width: &Expr, band: &Expr, varies: &dyn Fn(&Expr) -> bool) -> Option<Expr> {
    match &g.kind {
        ExprKind::Unary(UnOp::Not, x) => near(x, width, band, varies),
        ExprKind::Binary(BinOp::And | BinOp::Or, xs) => {
            match (near(&xs[0], width, band, varies), near(&xs[1], width, band, varies)) {
                (Some(a), Some(b)) => Some(binary(BinOp::Or, a, b)),
                (a, b) => a.or(b),
            }
        }
        ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, xs) if varies(g) => {
            let [a, b] = &**xs;
            let abs = |x: &Expr| exprs::call("abs", vec![x.clone()]);
            // A literal's magnitude as written (as `guards::sticky` scales its hysteresis).
            let magnitude = |x: &Expr| match &x.kind {
                ExprKind::Number(_) => x.clone(),
                ExprKind::Unary(UnOp::Neg, n) if matches!(n.kind, ExprKind::Number(_)) => (**n).clone(),
                _ => abs(x),
            };
            let distance = if exprs::is_zero(b) { abs(a) } else { abs(&binary(BinOp::Sub, a.clone(), b.clone())) };
            let mut scale = binary(BinOp::Add, exprs::number("1"), magnitude(a));
            if !exprs::is_zero(b) {
                scale = binary(BinOp::Add, scale, magnitude(b));
            }
            let h = binary(BinOp::Mul, binary(BinOp::Mul, width.clone(), band.clone()), scale);
            Some(binary(BinOp::Lt, distance, h))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What reads an unknown: any name but `time` and the parameter `p`.
    fn varies(e: &Expr) -> bool {
        let mut found = false;
        exprs::for_each(e, &mut |x| {
            found |= exprs::var_name(x).is_some_and(|n| n != "time" && n != "p");
        });
        found
    }

    #[test]
    fn the_neighbourhood_is_every_relation_on_an_unknown() {
        let (x, y, p) = (exprs::name("x"), exprs::name("y"), exprs::name("p"));
        let g =
            binary(BinOp::And, binary(BinOp::Gt, x, exprs::number("0")), exprs::not(binary(BinOp::Le, y, p.clone())));
        let near = near(&g, &exprs::name("w"), &exprs::name("h"), &varies).expect("relations on x and y");
        assert_eq!(
            expr_to_string(&near),
            "abs(x) < w * h * (1 + abs(x)) or abs(y - p) < w * h * (1 + abs(y) + abs(p))"
        );
        assert!(watched(&g, &varies));
    }

    #[test]
    fn a_guard_on_time_and_parameters_cannot_chatter() {
        let g = binary(BinOp::Or, binary(BinOp::Ge, exprs::name("time"), exprs::name("p")), exprs::name("b"));
        assert!(!watched(&g, &varies));
        assert!(near(&g, &exprs::name("w"), &exprs::name("h"), &varies).is_none());
    }
}
