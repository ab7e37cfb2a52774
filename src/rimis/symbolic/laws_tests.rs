//! Property tests of algebraic laws on random expressions, checked by numeric
//! evaluation: `simplify` keeps the value and is idempotent; `time_derivative`
//! agrees with a central difference quotient along x(t) = t² + 1, y(t) = cos t.
//! Also: deep expressions (parser height bound) on a default test thread.

use super::build::{num_value, positional};
use super::*;
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string as show;
use proptest::prelude::*;

/// Value of `e` at time t (NaN when undefined here).
fn eval(e: &Expr, t: f64) -> f64 {
    let x = |k: u32| match k {
        0 => t * t + 1.0,
        1 => 2.0 * t,
        2 => 2.0,
        _ => 0.0,
    };
    let y = |k: u32| match k % 4 {
        0 => t.cos(),
        1 => -t.sin(),
        2 => -t.cos(),
        _ => t.sin(),
    };
    fn order(e: &Expr) -> Option<(u32, &str)> {
        match &e.kind {
            ExprKind::Name(n) => Some((0, n.as_str())),
            ExprKind::Call(c) if c.function.text == "der" => order(positional(c)?.first()?).map(|(k, n)| (k + 1, n)),
            _ => None,
        }
    }
    if let Some(n) = num_value(e) {
        return n.as_f64();
    }
    if let Some((k, n)) = order(e) {
        return match n {
            "x" => x(k),
            "y" => y(k),
            "time" if k == 0 => t,
            "time" if k == 1 => 1.0,
            "p" if k == 0 => 0.3,
            _ => 0.0,
        };
    }
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, a) => -eval(a, t),
        ExprKind::Binary(op, xs) => {
            let (a, b) = (eval(&xs[0], t), eval(&xs[1], t));
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Pow => a.powf(b),
                _ => f64::NAN,
            }
        }
        ExprKind::Call(c) => {
            let a = positional(c).and_then(|a| a.first()).map_or(f64::NAN, |a| eval(a, t));
            match c.function.text.as_str() {
                "sin" => a.sin(),
                "cos" => a.cos(),
                "exp" => a.exp(),
                "log" => a.ln(),
                "sqrt" => a.sqrt(),
                _ => f64::NAN,
            }
        }
        ExprKind::If(x) => {
            let (c, v) = &x.branches[0];
            let ExprKind::Binary(BinOp::Gt, ab) = &c.kind else { return f64::NAN };
            if eval(&ab[0], t) > eval(&ab[1], t) { eval(v, t) } else { eval(&x.else_value, t) }
        }
        _ => f64::NAN,
    }
}

fn expr_strategy() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("y".to_string()),
        Just("p".to_string()),
        Just("time".to_string()),
        (0u8..4).prop_map(|k| ["0", "1", "2", "0.5"][k as usize].to_string()),
    ];
    leaf.prop_recursive(5, 40, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone(), 0u8..5)
                .prop_map(|(a, b, k)| { format!("({a} {} {b})", ["+", "-", "*", "/", "^"][k as usize]) }),
            inner.clone().prop_map(|a| format!("(-{a})")),
            (inner.clone(), 0u8..3).prop_map(|(a, k)| format!("{}({a})", ["sin", "cos", "exp"][k as usize])),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| format!("(if {c} > 0.5 then {a} else {b})")),
        ]
    })
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    !a.is_finite() || !b.is_finite() || (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn ctx_test<R>(f: impl FnOnce(&DiffContext) -> R) -> R {
    let fns = Functions::default();
    f(&DiffContext { functions: &fns, is_constant: &|n| n == "p" })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]

    #[test]
    fn simplify_keeps_value_and_is_idempotent(src in expr_strategy(), t in 0.1f64..2.0) {
        let e = super::testutil::parse_expr(&src);
        let s = simplify(&e);
        prop_assert_eq!(show(&simplify(&s)), show(&s));
        prop_assert!(close(eval(&e, t), eval(&s, t), 1e-9), "{} -> {}", src, show(&s));
    }

    #[test]
    fn derivative_matches_difference_quotient(src in expr_strategy(), t in 0.1f64..2.0) {
        let e = super::testutil::parse_expr(&src);
        let d = ctx_test(|ctx| time_derivative(&e, ctx)).unwrap();
        let h = 1e-5;
        let (lo, hi) = (eval(&e, t - h), eval(&e, t + h));
        let numeric = (hi - lo) / (2.0 * h);
        let exact = eval(&d, t);
        // Skip points near a kink (if-switch) or where the quotient is ill-conditioned.
        let smooth = close(eval(&e, t), (hi + lo) / 2.0, 1e-6) && numeric.abs() < 1e6;
        prop_assert!(!smooth || close(numeric, exact, 1e-3), "{} -> {}: {} vs {}", src, show(&d), numeric, exact);
    }
}

#[test]
fn deep_expressions_do_not_overflow() {
    let sum = vec!["x * y"; 1500].join(" + ");
    let e = super::testutil::parse_expr(&sum);
    let d = ctx_test(|ctx| time_derivative(&e, ctx)).unwrap();
    assert!(show(&d).starts_with("der(x) * y + x * der(y) + "));
    let nested = format!("{}x{}", "sin(".repeat(150), ")".repeat(150));
    let e = super::testutil::parse_expr(&nested);
    assert!(ctx_test(|ctx| time_derivative(&e, ctx)).is_ok());
    assert_eq!(show(&simplify(&e)), nested);
}
