//! Unit tests of the initial-system check on small models.

use super::{InitialSystem, Verdict};
use crate::analysis::Strategy;
use crate::syntax::SourceFile;

fn check(text: &str) -> InitialSystem {
    crate::driver::initial_system(&SourceFile::new("M.mo", text), Strategy::Auto)
        .unwrap_or_else(|e| panic!("{}", e.render()))
}

/// The failures of a model whose initial system is not determined.
fn failures(s: &InitialSystem) -> &[super::Failure] {
    match &s.verdict {
        Verdict::NotDetermined { failures, .. } => failures,
        other => panic!("expected a failure, got {other:?}"),
    }
}

const DECAY: &str = "model M\n  Real x{X};\n  Real y;\nequation\n  der(x) = -x + y;\n  y = 2 * x;\n{I}end M;\n";

fn decay(x: &str, initial: &str) -> String {
    DECAY.replace("{X}", x).replace("{I}", initial)
}

#[test]
fn a_fixed_state_is_determined() {
    let s = check(&decay("(start = 1, fixed = true)", ""));
    assert!(s.is_determined(), "{s:?}");
    assert_eq!(s.starts_in, "true");
    // An initial equation instead of `fixed`: the same, and on the derivative too (steady
    // state: der(x) = 0 sets x through the model's equations).
    assert!(check(&decay("", "initial equation\n  x = 2;\n")).is_determined());
    assert!(check(&decay("", "initial equation\n  der(x) = 0;\n")).is_determined());
}

#[test]
fn a_state_without_initial_value_is_underdetermined() {
    let s = check(&decay("(start = 1)", ""));
    let f = failures(&s);
    assert_eq!(f.len(), 1, "{s:?}");
    assert_eq!((f[0].free, f[0].left_over), (1, 0));
    assert!(f[0].underdetermined.contains(&"x".to_string()), "{f:?}");
    assert_eq!(f[0].when, "true");
    assert!(super::text(&s).contains("not determined in every mode it may start in: underdetermined by 1"));
}

#[test]
fn an_initial_equation_beside_fixed_is_overdetermined() {
    let s = check(&decay("(start = 1, fixed = true)", "initial equation\n  y = 3;\n"));
    let f = failures(&s);
    assert_eq!((f[0].free, f[0].left_over), (0, 1), "{f:?}");
    // x = start, y = 3 and y = 2 x over x and y; der(x) = -x + y is der(x)'s alone.
    assert_eq!(f[0].overdetermined, ["e6", "i8", "fixed(x)"], "{f:?}");
}

/// y is a state where `not b`, computed from x where `b`; b's guard reads an algebraic
/// value, so the model may start in either mode. The initial if-equation gives y a value
/// only where its condition — `b`'s guard, negated — holds.
const GUARDED: &str = "model M\n  Real x(start = 1, fixed = true);\n  Real y;\n  Real s;\n  Boolean b;\nequation\n  s = x - 0.5;\n  b = s > 0;\n  der(x) = -x;\n  0 = if b then y - x else der(y) + y;\ninitial equation\n  if {C} then\n    y = 0.0;\n  end if;\nend M;\n";

#[test]
fn an_initial_if_equation_is_selected_by_a_guard() {
    for c in ["s <= 0", "not s > 0", "not b"] {
        let s = check(&GUARDED.replace("{C}", c));
        assert!(s.is_determined(), "{c}: {}", super::text(&s));
        assert_eq!(s.starts_in, "true", "{c}");
        assert!(s.free_choices.is_empty(), "{c}");
    }
    // The guard itself: y is set where it is computed, and free where it is a state.
    let s = check(&GUARDED.replace("{C}", "s > 0"));
    let f = failures(&s);
    assert_eq!(f.len(), 2, "{}", super::text(&s));
    assert!(f.iter().any(|f| f.when == "b" && f.left_over == 1), "{f:?}");
    assert!(f.iter().any(|f| f.when == "not b" && f.free == 1), "{f:?}");
}

#[test]
fn a_condition_read_as_no_mode_is_checked_both_ways() {
    let s = check(&GUARDED.replace("{C}", "s > 1"));
    assert_eq!(s.free_choices, vec!["s > 1".to_string()]);
    let text = super::text(&s);
    assert!(text.contains("not read as modes (each value checked): `s > 1`"), "{text}");
    let f = failures(&s);
    assert!(f.iter().any(|f| f.when == "b and (s > 1)"), "{text}");
    assert!(f.iter().any(|f| f.when == "not b and not (s > 1)"), "{text}");
}

/// `b = time >= 1.0` is false at t = 0: the mode b, where y would need an initial value,
/// is not one the model may start in.
#[test]
fn modes_known_at_the_start_restrict_the_check() {
    let text = "model M\n  Real x(start = 1, fixed = true);\n  Real y;\n  Boolean b;\nequation\n  b = time >= 1.0;\n  der(x) = -x;\n  0 = if b then der(y) + y else y - x;\nend M;\n";
    let s = check(text);
    assert!(s.is_determined(), "{}", super::text(&s));
    assert_eq!(s.starts_in, "not b");
    assert_eq!(s.at_start.len(), 1);
    assert!(!s.at_start[0].value && s.at_start[0].from.contains("time >= 1.0"), "{:?}", s.at_start);
    // A guard reading a state `fixed` at its start is decided too; one reading an
    // algebraic value is not.
    let fixed = text.replace("b = time >= 1.0", "b = x > 2");
    assert_eq!(check(&fixed).starts_in, "not b");
    let free = text.replace("b = time >= 1.0", "b = y > 2");
    let s = check(&free);
    assert_eq!(s.starts_in, "true");
    assert_eq!(failures(&s)[0].when, "b", "{}", super::text(&s));
}

/// A switch starts from its `when initial()` guard; an index-2 model's initial system holds
/// its differentiated constraint (the pendulum: two states left of four).
#[test]
fn switches_and_differentiated_equations() {
    let switch = "model M\n  Real x(start = 1, fixed = true);\n  Real y;\n  Boolean b(start = false);\nequation\n  der(x) = -x;\n  0 = if b then der(y) + y else y - x;\n  when initial() then\n    b = 0.0 > 1.0;\n  elsewhen x < 0.5 then\n    b = true;\n  end when;\nend M;\n";
    let s = check(switch);
    assert!(s.is_determined(), "{}", super::text(&s));
    assert_eq!(s.starts_in, "not b");
    let pendulum = "model P\n  Real x(start = 1, fixed = true);\n  Real y;\n  Real u(start = 0, fixed = true);\n  Real v;\n  Real lambda;\nequation\n  der(x) = u;\n  der(y) = v;\n  der(u) = lambda * x;\n  der(v) = lambda * y - 9.81;\n  x ^ 2 + y ^ 2 = 1;\nend P;\n";
    assert!(check(pendulum).is_determined(), "{}", super::text(&check(pendulum)));
    let over = pendulum.replace("Real y;", "Real y(start = 0, fixed = true);");
    let s = check(&over);
    let f = failures(&s);
    assert_eq!(f[0].left_over, 1, "{}", super::text(&s));
}
