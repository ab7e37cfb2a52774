//! Unit tests of the causal check on small models: the loops omc refuses, the left-limit
//! form that breaks them, and what is known.

use super::*;
use crate::syntax::parse;

fn model(text: &str) -> CausalModel {
    let def = parse(text).unwrap();
    let class = def.classes.last().unwrap();
    of_class(class, &[]).unwrap()
}

fn loops(text: &str) -> Vec<(Vec<String>, bool)> {
    let m = model(text);
    m.discrete_loops()
        .iter()
        .map(|l| (l.discrete.iter().map(|&v| m.unknowns[v].name()).collect(), l.through_when))
        .collect()
}

const CUP: &str = "model M
  Real lambda; Real s; Real x(start = 1); Boolean gamma;
equation
  der(x) = -x;
  when s < 0 then gamma = true; elsewhen s > 1 then gamma = false; end when;
  if gamma then x * lambda = 1; else lambda = 0; end if;
  s = -lambda;
end M;";

#[test]
fn a_when_equation_read_through_a_guard_is_a_loop_omc_refuses() {
    assert_eq!(loops(CUP), vec![(vec!["gamma".to_string()], true)]);
}

#[test]
fn the_guard_on_its_left_limit_breaks_the_loop() {
    assert_eq!(loops(&CUP.replace("if gamma then", "if pre(gamma) then")), vec![]);
}

#[test]
fn a_level_mode_equation_in_a_loop_is_reported_as_iterated() {
    let text = "model M
  Real s; Real y; Boolean g;
equation
  g = s <= 0;
  s = if g then y - 1 else y + 1;
  y = time;
end M;";
    assert_eq!(loops(text), vec![(vec!["g".to_string()], false)]);
    // Without the loop (the guard reads only y): nothing.
    assert_eq!(loops(&text.replace("g = s <= 0", "g = y <= 0")), vec![]);
}

#[test]
fn states_parameters_and_pre_are_known() {
    let m = model(
        "model M
  parameter Real p = 1; Real x; Real v; Boolean b;
equation
  der(x) = v;
  v = if b then p else -p;
  b = x > pre(v);
end M;",
    );
    let names: Vec<String> = m.unknowns.iter().map(Unknown::name).collect();
    assert_eq!(names, vec!["der(x)", "v", "b"]);
    assert!(m.discrete_loops().is_empty());
}

#[test]
fn an_algorithm_is_one_block_and_its_when_counts() {
    let text = "model M
  Real y; Real z; Boolean b;
algorithm
  when z > 1 then b := true; end when;
equation
  z = if b then y else 2 * y;
  y = time;
end M;";
    assert_eq!(loops(text), vec![(vec!["b".to_string()], true)]);
}

#[test]
fn real_arrays_and_records_are_not_checked_but_omc_elements_are() {
    let def = parse("model M Real x[3]; equation x = {1, 2, 3}; end M;").unwrap();
    assert!(of_class(def.classes.last().unwrap(), &[]).is_err());
    let m = model("model M Real a.x[1]; Real a.x[2]; equation a.x[1] = 1; a.x[2] = a.x[1]; end M;");
    assert_eq!(m.unknowns.len(), 2);
}

#[test]
fn the_check_keeps_only_what_its_loops_show_and_shows_the_same() {
    // Two loops after unrelated rows and unknowns: renumbered, they read the same.
    let text = CUP
        .replace("Real lambda;", "Real u1; Real u2; Real u3; Real lambda; Real s2; Real l2; Boolean g2;")
        .replace(
            "equation\n",
            "equation\n  u1 = time; u2 = u1; u3 = u2;\n  g2 = s2 <= 0;\n  s2 = if g2 then l2 - 1 else l2 + 1;\n  l2 = u3;\n",
        );
    let def = parse(&text).unwrap();
    let full = Sections::of_class(def.classes.last().unwrap(), &[]).rows().unwrap();
    let sections = Sections::of_class(def.classes.last().unwrap(), &[]);
    let loops = full.discrete_loops();
    assert_eq!(loops.len(), 2);
    let locate = |s: Span| format!("{}", s.start);
    let shown: Vec<String> = loops.iter().map(|l| full.describe(l, &locate, &|o| sections.source(o))).collect();
    let check = report::CausalCheck::of(&def);
    let Ok((kept, kept_loops)) = &check.result else { panic!("checked") };
    assert!(kept.equations.len() < full.equations.len() && kept.unknowns.len() == 2);
    let again: Vec<String> = kept_loops.iter().map(|l| kept.describe(l, &locate, &|o| check.source(o))).collect();
    assert_eq!(again, shown);
    assert_eq!(kept_loops.iter().map(|l| l.through_when).collect::<Vec<_>>(), vec![false, true]);
}
