//! Partial evaluation π_q (paper 000 §4.6.1): an expression specialised to a mode
//! condition q.
//!
//! Owns: [`Decision`], [`partial_eval`] and [`partial_eval_in`]. The caller holds q
//! and decides each condition p of an if-expression (with BDDs): `True` when
//! `q and not p` is unsatisfiable, `False` when `q and p` is, else `Keep(r)` with a
//! residual condition r (p and q implies r, r implies p or not q). Following
//! cond_q(p, e_T, e_F), decided branches are dropped and the kept ones are evaluated
//! under `q and p` / `q and not p`: [`partial_eval_in`] passes that path of enclosing
//! conditions to the decision; [`partial_eval`] omits it. An `elseif` branch lies
//! under the negations of the conditions before it. Conditions elsewhere (Boolean
//! subexpressions outside if-conditions) and the conditions themselves are left
//! alone. The result is simplified. free(π_q(e)) ⊆ free(e) when every residual is.

use super::build::map_children;
use super::simplify::simplify;
use crate::syntax::ast::*;

/// The caller's verdict on one if-condition p under the current assumption.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// p always holds: keep the then-branch only.
    True,
    /// p never holds: drop the then-branch.
    False,
    /// Undecided: keep the branch, guarded by this residual condition.
    Keep(Expr),
}

/// One enclosing condition and the side taken (`true`: inside its then-branch).
pub type Assumption = (Expr, bool);

/// π_q(e) where `decide` answers for each if-condition under q.
pub fn partial_eval(e: &Expr, decide: &mut dyn FnMut(&Expr) -> Decision) -> Expr {
    partial_eval_in(e, &mut |_, c| decide(c))
}

/// π_q(e) where `decide(path, p)` answers for p under q and the enclosing `path`
/// (outermost first; the conditions as written, before any residual).
pub fn partial_eval_in(e: &Expr, decide: &mut dyn FnMut(&[Assumption], &Expr) -> Decision) -> Expr {
    let mut path = Vec::new();
    simplify(&pi(e, &mut path, decide))
}

fn pi(e: &Expr, path: &mut Vec<Assumption>, decide: &mut dyn FnMut(&[Assumption], &Expr) -> Decision) -> Expr {
    let ExprKind::If(x) = &e.kind else {
        return map_children(e, &mut |c| pi(c, path, decide));
    };
    let depth = path.len();
    let mut branches = Vec::new();
    let mut chosen = None;
    for (p, v) in &x.branches {
        match decide(path, p) {
            Decision::True => {
                path.push((p.clone(), true));
                chosen = Some(pi(v, path, decide));
                path.pop();
                break;
            }
            Decision::False => {}
            Decision::Keep(r) => {
                path.push((p.clone(), true));
                branches.push((r, pi(v, path, decide)));
                path.pop();
            }
        }
        path.push((p.clone(), false));
    }
    let else_value = match chosen {
        Some(v) => v,
        None => pi(&x.else_value, path, decide),
    };
    path.truncate(depth);
    if branches.is_empty() { else_value } else { super::build::if_raw(branches, else_value, e.span) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rimis::symbolic::testutil::{parse_expr, show};

    fn by_text(answers: &[(&str, Decision)]) -> impl FnMut(&Expr) -> Decision {
        let answers: Vec<(String, Decision)> = answers.iter().map(|(c, d)| (c.to_string(), d.clone())).collect();
        move |c| {
            let c = show(c);
            answers.iter().find(|(t, _)| *t == c).map_or(Decision::Keep(parse_expr(&c)), |(_, d)| d.clone())
        }
    }

    fn pe(src: &str, answers: &[(&str, Decision)]) -> String {
        show(&partial_eval(&parse_expr(src), &mut by_text(answers)))
    }

    #[test]
    fn decided_branches_are_dropped() {
        assert_eq!(pe("if bh then x - 1 else yh", &[("bh", Decision::True)]), "x - 1");
        assert_eq!(pe("if bh then x - 1 else yh", &[("bh", Decision::False)]), "yh");
        assert_eq!(pe("if bh then x - 1.0 else yh", &[]), "if bh then x - 1.0 else yh");
        assert_eq!(pe("2 * (if b then 0 * x else y) + 1", &[("b", Decision::True)]), "1");
    }

    #[test]
    fn elseif_chains_and_residuals() {
        let src = "if a then 1 elseif b then 2 elseif c then 3 else 4";
        assert_eq!(pe(src, &[("a", Decision::False), ("c", Decision::False)]), "if b then 2 else 4");
        assert_eq!(pe(src, &[("a", Decision::False), ("b", Decision::True)]), "2");
        let residual = Decision::Keep(parse_expr("s"));
        assert_eq!(pe(src, &[("a", Decision::False), ("b", residual)]), "if s then 2 elseif c then 3 else 4");
        // Conditions outside if-expressions are not asked about.
        assert_eq!(pe("f(a and b)", &[("a", Decision::True)]), "f(a and b)");
    }

    #[test]
    fn nested_conditions_see_their_path() {
        let e = parse_expr("if p then (if p then a else b) else (if p then c else d)");
        let mut decide = |path: &[Assumption], c: &Expr| match path.iter().find(|(x, _)| show(x) == show(c)) {
            Some((_, side)) => {
                if *side {
                    Decision::True
                } else {
                    Decision::False
                }
            }
            None => Decision::Keep(c.clone()),
        };
        assert_eq!(show(&partial_eval_in(&e, &mut decide)), "if p then a else d");
    }
}
