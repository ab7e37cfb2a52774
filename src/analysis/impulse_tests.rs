//! The paper's two examples written by hand in the mini-language of Figure 18.

use super::*;
use IExpr::*;

fn over_delta(x: IExpr) -> IExpr {
    Prod(vec![x, Pow(Box::new(Delta), -1)])
}

fn eq(name: &str, lhs: IExpr, rhs: IExpr) -> (String, IExpr, IExpr) {
    (name.to_string(), lhs, rhs)
}

/// The ideal clutch engaging (§5.1): U₁, U₂ the jumps of ω₁, ω₂, τ₁, τ₂ the torques;
/// the residual ω₁ − ω₂ ≠ 0 before the switch.
fn clutch() -> System {
    System {
        vars: vec![
            ("U1".into(), Kind::Jump),
            ("U2".into(), Kind::Jump),
            ("tau1".into(), Kind::Algebraic),
            ("tau2".into(), Kind::Algebraic),
        ],
        equations: vec![
            // j1 (U1/∂) = -k1 w1 + tau1
            eq("e1", Prod(vec![Const, over_delta(Var(0))]), Sum(vec![Const, Var(2)])),
            eq("e2", Prod(vec![Const, over_delta(Var(1))]), Sum(vec![Const, Var(3)])),
            // (w1 + U1) - (w2 + U2) = 0 with w1 - w2 = R: R + U1 - U2 = 0
            eq("e3", Sum(vec![Const, Var(0), Var(1)]), Zero),
            eq("e4", Sum(vec![Var(2), Var(3)]), Zero),
        ],
    }
}

#[test]
fn clutch_torques_have_order_one_and_both_shafts_jump() {
    let s = solve(&clutch());
    assert_eq!(s.orders, vec![Order::Fin(0), Order::Fin(0), Order::Fin(1), Order::Fin(1)]);
    assert!(s.unbalanced.is_empty());
}

#[test]
fn without_the_violated_residual_nothing_is_impulsive() {
    // The clutch already engaged: e3 held before (no residual): U is one Euler step.
    let mut sys = clutch();
    sys.equations[2] = eq("e3", Sum(vec![Var(0), Var(1)]), Zero);
    let s = solve(&sys);
    assert_eq!(s.orders, vec![Order::Fin(-1), Order::Fin(-1), Order::Fin(0), Order::Fin(0)]);
}

/// The cup-and-ball as the rope straightens (eq. 25 with (k1•) violated): Ux', Uy' the
/// jumps of the velocities x', y' and Uu, Uv those of u, v (der(x) = u), λ the tension,
/// s = -λ.
#[test]
fn cup_and_ball_tension_has_order_one() {
    let sys = System {
        vars: vec![
            ("Ux'".into(), Kind::Jump),
            ("Uy'".into(), Kind::Jump),
            ("Uu".into(), Kind::Jump),
            ("Uv".into(), Kind::Jump),
            ("lambda".into(), Kind::Algebraic),
            ("s".into(), Kind::Algebraic),
        ],
        equations: vec![
            eq("e8", Var(0), Var(2)),
            eq("e8_2", Var(1), Var(3)),
            eq("e1", Sum(vec![over_delta(Var(2)), Prod(vec![Var(4), Const])]), Zero),
            eq("e2", Sum(vec![over_delta(Var(3)), Prod(vec![Var(4), Const]), Const]), Zero),
            // x x'• + y y'• = 0 with x x' + y y' = R: R + x Ux' + y Uy' = 0
            eq("k1'", Sum(vec![Const, Prod(vec![Const, Var(0)]), Prod(vec![Const, Var(1)])]), Zero),
            eq("k2", Var(5), Prod(vec![Const, Var(4)])),
        ],
    };
    let s = solve(&sys);
    assert_eq!(s.orders[4], Order::Fin(1), "{:?}", s.orders);
    assert_eq!(s.orders[5], Order::Fin(1));
    assert!(s.orders[..4].iter().all(|&o| o <= Order::Fin(0)));
    assert!(s.orders[..2].contains(&Order::Fin(0)), "a velocity jumps: {:?}", s.orders);
}

#[test]
fn a_series_of_an_impulsive_argument_is_infinite() {
    // x = exp(y/∂) with [y] = 0 (§6.1.2): x cannot be rescaled.
    let sys = System {
        vars: vec![("x".into(), Kind::Algebraic)],
        equations: vec![eq("e", Var(0), Series(vec![over_delta(Const)]))],
    };
    assert_eq!(solve(&sys).orders, vec![Order::PosInf]);
}

#[test]
fn a_jump_the_bounds_forbid_is_unbalanced() {
    // U/∂² = c with [U] ≤ 0 … fine; but R + U·∂ = 0 needs [U] = 1 > 0.
    let sys = System {
        vars: vec![("U".into(), Kind::Jump)],
        equations: vec![eq("k", Sum(vec![Const, Prod(vec![Var(0), Delta])]), Zero)],
    };
    let s = solve(&sys);
    assert_eq!(s.unbalanced, vec!["k".to_string()]);
}

#[test]
fn rules_r1_to_r5() {
    let o = [Order::Fin(2)];
    assert_eq!(order(&Zero, &o), Order::NegInf);
    assert_eq!(order(&Const, &o), Order::Fin(0));
    assert_eq!(order(&Delta, &o), Order::Fin(-1));
    assert_eq!(order(&Pow(Box::new(Var(0)), 3), &o), Order::Fin(6));
    assert_eq!(order(&Prod(vec![Var(0), Delta]), &o), Order::Fin(1));
    assert_eq!(order(&Prod(vec![Zero, Series(vec![Pow(Box::new(Delta), -1)])]), &o), Order::NegInf);
    assert_eq!(order(&Sum(vec![Var(0), Const]), &o), Order::Fin(2));
}
