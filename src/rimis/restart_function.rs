//! The functions of the restart systems (`restart_system.rs`), as Modelica text: what a
//! system is solved with at the switch, from its left limits.
//!
//! - **Linear** (the impulsive variables enter linearly, the clutch and the rope of paper
//!   000 §5): A w = b assembled from the inputs, Gaussian elimination with partial pivoting
//!   (every loop bound a literal), the k-th unknown; the left limits where the consistency
//!   equations hold there already (one implicit step of `restart_step` from a consistent
//!   state drifts by O(step) and can move a guard that has just crossed back over it).
//! - **Nonlinear** (issue 29: `0.82*(x1 - f)*x1` in a consistency equation, campaign seed
//!   9533): damped Newton's method on F(w) = 0 from the left limits, each step halved until
//!   |F|₁ decreases (the Armijo condition), skipped where the consistency equations hold at
//!   the left limits already; where it does not converge to finite values it returns the
//!   left limits, so the consistency checks that follow stop the run with their message.
//!   The Jacobian is symbolic (`jacobian`). rumoca 0.10.2 takes no loop inside an `if` of a
//!   function and no `assert` in one: the text is written around both.
//!
//! Also owned here: the split of an affine residual into coefficients ([`linear_parts`]),
//! and the inputs read as Booleans (a mode variable in an if-condition, campaign seed 682),
//! declared `input Boolean`.

use super::exprs::{self, binary, name};
use super::symbolic::{self, DiffContext};
use crate::syntax::ast::{BinOp, ClassDef, Expr, ExprKind};
use crate::syntax::printer::expr_to_string;
use std::collections::{BTreeMap, BTreeSet};

/// What both kinds of function declare: name, documentation and inputs.
pub(super) struct Header<'a> {
    pub fname: &'a str,
    pub entering: &'a str,
    pub restores: &'a [String],
    pub inputs: &'a [Expr],
    pub booleans: &'a BTreeSet<String>,
    pub solved: &'a [String],
}

impl Header<'_> {
    /// `function … input … output … protected <locals> algorithm`, documented with `what`
    /// the function solves.
    fn declarations(&self, what: &str, locals: &str) -> String {
        let esc = |s: &str| s.replace('\\', "/").replace('"', "'");
        let mut t = format!(
            "function {} \"restart system entering `{}` (paper 000 §5.1; restores {}): unknown k of {what}\"\n",
            self.fname,
            esc(self.entering),
            esc(&self.restores.join(" "))
        );
        t.push_str("  input Integer k \"which unknown\";\n");
        for (i, x) in self.inputs.iter().enumerate() {
            t.push_str(&input_decl(i, x, self.booleans, &esc));
        }
        t.push_str(&format!(
            "  output Real wk \"unknown k: {}\";\nprotected\n{locals}algorithm\n",
            esc(&self.solved.join(" "))
        ));
        t
    }
}

/// An affine expression as its coefficients (by unknown) and its constant term; `None`
/// if it is not affine in the unknowns (a product of two, a call of one, …).
pub(super) fn linear_parts(e: &Expr, column: &dyn Fn(&Expr) -> Option<usize>) -> Option<(BTreeMap<usize, Expr>, Expr)> {
    let is_unknown = &|x: &Expr| column(x).is_some();
    use crate::syntax::ast::UnOp;
    let zero = || exprs::number("0");
    let free = |x: &Expr| {
        let mut found = false;
        exprs::for_each(x, &mut |y| found |= is_unknown(y));
        !found
    };
    if let Some(u) = column(e) {
        return Some((BTreeMap::from([(u, exprs::number("1"))]), zero()));
    }
    if free(e) {
        return Some((BTreeMap::new(), e.clone()));
    }
    let map = |(m, c): (BTreeMap<usize, Expr>, Expr), f: &dyn Fn(Expr) -> Expr| {
        (m.into_iter().map(|(u, x)| (u, f(x))).collect::<BTreeMap<_, _>>(), f(c))
    };
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, x) => Some(map(linear_parts(x, column)?, &exprs::neg)),
        ExprKind::Unary(UnOp::Plus, x) => linear_parts(x, column),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), xs) => {
            let (mut m, c) = linear_parts(&xs[0], column)?;
            let (m2, c2) = linear_parts(&xs[1], column)?;
            let op = *op;
            for (u, x) in m2 {
                let prev = m.remove(&u).unwrap_or_else(zero);
                m.insert(u, binary(op, prev, x));
            }
            Some((m, binary(op, c, c2)))
        }
        ExprKind::Binary(BinOp::Mul, xs) if free(&xs[0]) => {
            let k = xs[0].clone();
            Some(map(linear_parts(&xs[1], column)?, &|x| binary(BinOp::Mul, k.clone(), x)))
        }
        ExprKind::Binary(BinOp::Mul, xs) if free(&xs[1]) => {
            let k = xs[1].clone();
            Some(map(linear_parts(&xs[0], column)?, &|x| binary(BinOp::Mul, x, k.clone())))
        }
        ExprKind::Binary(BinOp::Div, xs) if free(&xs[1]) => {
            let k = xs[1].clone();
            Some(map(linear_parts(&xs[0], column)?, &|x| binary(BinOp::Div, x, k.clone())))
        }
        _ => None,
    }
}

/// The text of the restart function: A w = b assembled from its inputs, Gaussian
/// elimination with partial pivoting (every loop bound a literal), the k-th unknown; the
/// left limits `start` where `gate` (the consistency equations at the left limits) holds.
pub(super) fn function_text(h: &Header, a: &[String], b: &[String], start: &str, gate: &str) -> String {
    let n = a.len();
    let locals = format!(
        "  Real M[{n}, {n}];\n  Real r[{n}];\n  Real w[{n}];\n  Real w0[{n}];\n  Integer p;\n  Real t;\n  Boolean done;\n"
    );
    let mut t = h.declarations("A w = b, from the left limits", &locals);
    let fname = h.fname;
    t.push_str(&format!("  w0 := {start};\n  w := w0;\n  done := {gate};\n"));
    t.push_str(&format!("  M := {{{}}};\n  r := {{{}}};\n", a.join(", "), b.join(", ")));
    t.push_str(&elimination_text(n, "w", "  "));
    t.push_str(&format!("  wk := if done then w0[k] else w[k];\nend {fname};\n"));
    t
}

/// ∂F_i/∂w_j of the residuals by the unknowns (placeholders): the time derivative with
/// every name but w_j taken as constant and `time` frozen, then der(w_j) = 1.
pub(super) fn jacobian(
    residuals: &[Expr],
    columns: &[Expr],
    ctx: &DiffContext,
) -> Result<Vec<Vec<Expr>>, symbolic::SymError> {
    const FROZEN_TIME: &str = "\u{3}time";
    let frozen: Vec<Expr> = residuals
        .iter()
        .map(|r| {
            exprs::rewrite(r, &mut |y| match &y.kind {
                ExprKind::Name(n) if n.as_str() == "time" => Some(name(FROZEN_TIME)),
                _ => None,
            })
        })
        .collect();
    let mut out = Vec::with_capacity(residuals.len());
    for r in &frozen {
        let mut row = Vec::with_capacity(columns.len());
        for p in columns {
            let var = expr_to_string(p);
            let is_constant = |n: &str| n != var;
            let by = DiffContext { functions: ctx.functions, is_constant: &is_constant };
            let d = symbolic::time_derivative(r, &by)?;
            let d = exprs::rewrite(&d, &mut |y| match &y.kind {
                ExprKind::Call(c) if c.function.text.as_str() == "der" => Some(exprs::number("1")),
                ExprKind::Name(n) if n.as_str() == FROZEN_TIME => Some(name("time")),
                _ => None,
            });
            row.push(symbolic::simplify(&d));
        }
        out.push(row);
    }
    Ok(out)
}

/// The texts of the expressions read as Booleans in `e` (an if-condition, an operand of
/// `and`/`or`/`not`): a mode variable or its `pre`, passed to the function as a Boolean.
pub(super) fn boolean_reads(e: &Expr, out: &mut BTreeSet<String>) {
    use crate::syntax::ast::UnOp;
    fn atoms(e: &Expr, out: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                out.insert(expr_to_string(e));
            }
            ExprKind::Call(c) if c.function.text.as_str() == "pre" => {
                out.insert(expr_to_string(e));
            }
            ExprKind::Unary(UnOp::Not, x) => atoms(x, out),
            ExprKind::Binary(BinOp::And | BinOp::Or, xs) => {
                atoms(&xs[0], out);
                atoms(&xs[1], out);
            }
            _ => boolean_reads(e, out),
        }
    }
    exprs::for_each(e, &mut |y| match &y.kind {
        ExprKind::If(x) => x.branches.iter().for_each(|(c, _)| atoms(c, out)),
        ExprKind::Unary(UnOp::Not, x) => atoms(x, out),
        ExprKind::Binary(BinOp::And | BinOp::Or, xs) => {
            atoms(&xs[0], out);
            atoms(&xs[1], out);
        }
        _ => {}
    });
}

/// The declaration of input `i` (Boolean where `booleans` holds its text).
fn input_decl(i: usize, x: &Expr, booleans: &BTreeSet<String>, esc: &dyn Fn(&str) -> String) -> String {
    let text = expr_to_string(x);
    let ty = if booleans.contains(&text) { "Boolean" } else { "Real" };
    format!("  input {ty} in{} \"{}\";\n", i + 1, esc(&text))
}

/// Gaussian elimination with partial pivoting of M x = r into `x` (every loop bound a literal).
fn elimination_text(n: usize, x: &str, indent: &str) -> String {
    let body = format!(
        "for c in 1:{n} loop\n  p := c;\n  for i in 1:{n} loop\n    if i > c and abs(M[i, c]) > abs(M[p, c]) then\n      p := i;\n    end if;\n  end for;\n  for j in 1:{n} loop\n    t := M[c, j];\n    M[c, j] := M[p, j];\n    M[p, j] := t;\n  end for;\n  t := r[c];\n  r[c] := r[p];\n  r[p] := t;\n  for i in 1:{n} loop\n    if i > c then\n      t := M[i, c] / M[c, c];\n      for j in 1:{n} loop\n        M[i, j] := M[i, j] - t * M[c, j];\n      end for;\n      r[i] := r[i] - t * r[c];\n    end if;\n  end for;\nend for;\nfor q in 1:{n} loop\n  t := r[{m} - q];\n  for j in 1:{n} loop\n    if j > {m} - q then\n      t := t - M[{m} - q, j] * {x}[j];\n    end if;\n  end for;\n  {x}[{m} - q] := t / M[{m} - q, {m} - q];\nend for;\n",
        m = n + 1
    );
    body.lines().map(|l| format!("{indent}{l}\n")).collect()
}

/// At most this many Newton steps in a nonlinear restart system (quadratic convergence from
/// consistent left limits takes two or three; an impulsive variable far from its left limit,
/// `sinh(lambda)` of RestartNotLinear, a dozen).
const NEWTON_STEPS: usize = 40;

/// At most this many halvings of a Newton step (the damping of [`newton_text`]).
const HALVINGS: usize = 60;

/// The text of a nonlinear restart function: damped Newton's method on F(w) = 0 from the
/// left limits `start` (each step halved until |F|₁ decreases, the Armijo condition),
/// skipped where `gate` (the consistency equations at the left limits) holds. Where it does
/// not converge to finite values it returns the left limits, so the consistency checks stop
/// the run with their message.
/// The Newton iteration's texts: the start w0, the gate, J(w), -F(w) and F(wt).
pub(super) struct Newton<'a> {
    pub start: &'a str,
    pub gate: &'a str,
    pub jac: &'a [Vec<String>],
    pub minus_f: &'a [String],
    pub f_trial: &'a [String],
}

pub(super) fn newton_text(h: &Header, it: &Newton) -> String {
    let Newton { start, gate, jac, minus_f, f_trial } = *it;
    let n = jac.len();
    let locals = format!(
        "  Real M[{n}, {n}];\n  Real r[{n}];\n  Real w[{n}];\n  Real w0[{n}];\n  Real dw[{n}];\n  Real wt[{n}];\n  Integer p;\n  Real t;\n  Real lam;\n  Real n0;\n  Real nt;\n  Boolean done;\n  Boolean acc;\n"
    );
    let mut t = h.declarations("F(w) = 0, by Newton's method from the left limits", &locals);
    let fname = h.fname;
    // rumoca 0.10.2 takes no loop inside an `if` of a function: once done (consistent at
    // the left limits, or converged), a step solves I dw = 0 and is not taken.
    let jac: Vec<String> = jac
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let row: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(j, x)| format!("if done then {} else {x}", if i == j { 1 } else { 0 }))
                .collect();
            format!("{{{}}}", row.join(", "))
        })
        .collect();
    let minus_f: Vec<String> = minus_f.iter().map(|x| format!("if done then 0 else {x}")).collect();
    let norm = |v: &str| (1..=n).map(|i| format!("abs({v}[{i}])")).collect::<Vec<_>>().join(" + ");
    let trial: String = (1..=n).map(|j| format!("        wt[{j}] := w[{j}] + lam * dw[{j}];\n")).collect();
    let trial_norm = f_trial.iter().map(|x| format!("abs({x})")).collect::<Vec<_>>().join(" + ");
    t.push_str(&format!("  w := {start};\n  w0 := w;\n  done := {gate};\n  for step in 1:{NEWTON_STEPS} loop\n"));
    t.push_str(&format!(
        "    M := {{{}}};\n    r := {{{}}};\n    n0 := {};\n",
        jac.join(", "),
        minus_f.join(", "),
        norm("r")
    ));
    t.push_str(&elimination_text(n, "dw", "    "));
    t.push_str(&format!(
        "    lam := 1;\n    acc := done;\n    for h in 1:{HALVINGS} loop\n      if not acc then\n{trial}        nt := {trial_norm};\n        if nt <= (1 - 1e-4 * lam) * n0 then\n          acc := true;\n        else\n          lam := lam / 2;\n        end if;\n      end if;\n    end for;\n"
    ));
    t.push_str(&format!(
        "    if done or not acc then\n      lam := 0;\n    end if;\n    t := 0;\n    for j in 1:{n} loop\n      w[j] := w[j] + lam * dw[j];\n      if abs(lam * dw[j]) > 1e-12 * (1 + abs(w[j])) then\n        t := 1;\n      end if;\n    end for;\n    done := done or acc and t < 0.5;\n  end for;\n"
    ));
    // Not converged, or not finite (NaN fails every comparison): the left limits.
    t.push_str(&format!(
        "  for j in 1:{n} loop\n    if not (abs(w[j]) < 1e300) then\n      done := false;\n    end if;\n  end for;\n  wk := if done then w[k] else w0[k];\nend {fname};\n"
    ));
    t
}

/// The one class of a generated text (an internal error, never a panic, if it does not parse).
pub(super) fn parse_class(text: &str) -> Result<ClassDef, String> {
    let def = crate::syntax::parse(text)
        .map_err(|e| format!("internal error: the restart function does not parse ({e:?})"))?;
    def.classes.into_iter().next().ok_or_else(|| "internal error: no restart function".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rimis::symbolic::testutil::parse_expr;

    /// The Newton text parses as a function, with a Boolean input for the mode variable, and
    /// its iteration is not under an `if` (rumoca 0.10.2 refused `if not done then … for …`:
    /// "requires assignments or nested conditionals in every checked branch"; that it compiles
    /// is checked by the simulation suite, RestartNewtonFromLeftLimits).
    #[test]
    fn newton_text_parses_with_its_iteration_outside_ifs() {
        let inputs = vec![parse_expr("pre(x)"), parse_expr("b1"), parse_expr("time")];
        let booleans = BTreeSet::from(["b1".to_string()]);
        let solved = vec!["x".to_string()];
        let restores = vec!["e1".to_string()];
        let h = Header {
            fname: "restart_system",
            entering: "b1",
            restores: &restores,
            inputs: &inputs,
            booleans: &booleans,
            solved: &solved,
        };
        let jac = vec![vec!["2 * w[1]".to_string()]];
        let minus_f = vec!["in3 - w[1] * w[1]".to_string()];
        let trial = vec!["wt[1] * wt[1] - in3".to_string()];
        let it = Newton { start: "{in1}", gate: "false", jac: &jac, minus_f: &minus_f, f_trial: &trial };
        let text = newton_text(&h, &it);
        assert!(!text.contains("if not done then"), "{text}");
        assert!(text.contains("  for step in 1:40 loop\n    M := {{if done then 1 else 2 * w[1]}};\n"), "{text}");
        assert!(text.contains("  input Boolean in2 \"b1\";\n"), "{text}");
        let f = parse_class(&text).expect("parses");
        assert_eq!(f.name.text.as_str(), "restart_system");
    }

    /// A mode variable read in an if-condition is a Boolean input; a relation's operands are not.
    #[test]
    fn booleans_read_by_a_system() {
        let mut found = BTreeSet::new();
        boolean_reads(&parse_expr("if b2 and not pre(b3) then x else (if y > 0 then 1 else 2)"), &mut found);
        assert_eq!(found, BTreeSet::from(["b2".to_string(), "pre(b3)".to_string()]));
    }
}
