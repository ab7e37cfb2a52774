//! Unit tests of the flat stage on small models written as omc prints them.

use super::{FlatEquation, FlatModel, Type, Variability, flatten, move_declaration_equations};
use crate::syntax::printer::equation_to_string;

/// The flat model of `src` (its file leaked: the model borrows from it).
fn flat(src: &str) -> FlatModel<'static> {
    let mut def = crate::syntax::parse(src).unwrap_or_else(|e| panic!("{e:?}"));
    move_declaration_equations(&mut def);
    let def: &'static _ = Box::leak(Box::new(def));
    flatten(def).unwrap_or_else(|e| panic!("{}", e.message))
}

fn refused(src: &str) -> String {
    let mut def = crate::syntax::parse(src).expect("parses");
    move_declaration_equations(&mut def);
    match flatten(&def) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.message,
    }
}

/// The continuous rows as text (`x = y`), blocks as `block: what (rows)`.
fn rows(m: &FlatModel) -> Vec<String> {
    m.equations
        .iter()
        .map(|e| match e {
            FlatEquation::Real { equation } => equation_to_string(equation, 0).trim().trim_end_matches(';').to_string(),
            FlatEquation::Block(b) => format!("block: {} ({})", b.what, b.rows),
        })
        .collect()
}

fn passed(m: &FlatModel) -> Vec<String> {
    m.passed.iter().map(|e| equation_to_string(e, 0).trim().trim_end_matches(';').to_string()).collect()
}

fn unknowns<'m>(m: &'m FlatModel) -> Vec<&'m str> {
    m.vars.iter().filter(|v| v.is_unknown()).map(|v| v.name.as_str()).collect()
}

#[test]
fn scalarised_elements_are_scalars_and_their_equations_stay_as_written() {
    let m = flat(
        "class M\n  Real a.x[1];\n  Real a.x[2];\n  Real 'y'[1];\nequation\n  der(a.x[1]) = -a.x[2];\n  a.x[2] = sin(time);\n  'y'[1] = a.x[1];\nend M;\n",
    );
    assert_eq!(unknowns(&m), ["a.x[1]", "a.x[2]", "'y'[1]"]);
    assert_eq!(rows(&m), ["der(a.x[1]) = -a.x[2]", "a.x[2] = sin(time)", "'y'[1] = a.x[1]"]);
}

#[test]
fn a_single_declaration_with_a_size_is_an_array() {
    let m = flat("model M\n  Real x[3];\n  Real[2] y;\nequation\n  x = {1.0, 2.0, time};\n  der(y) = -y;\nend M;\n");
    assert_eq!(unknowns(&m), ["x[1]", "x[2]", "x[3]", "y[1]", "y[2]"]);
    assert_eq!(rows(&m), ["x[1] = 1.0", "x[2] = 2.0", "x[3] = time", "der(y[1]) = -y[1]", "der(y[2]) = -y[2]"]);
}

#[test]
fn for_equations_reductions_slices_and_products_are_scalarised() {
    let m = flat(
        "model M\n  parameter Integer n = 3;\n  parameter Real A[2, 2] = {{1, 2}, {3, 4}};\n  Real x[3];\n  Real s;\n  Real d;\n  Real v[2];\n  Real w[2];\nequation\n  for i in 1:n loop\n    x[i] = i * time;\n  end for;\n  s = sum(x);\n  d = {1.0, 2.0, 3.0} * x;\n  v = x[2:3];\n  w = A * v;\nend M;\n",
    );
    assert_eq!(
        rows(&m),
        [
            "x[1] = 1 * time",
            "x[2] = 2 * time",
            "x[3] = 3 * time",
            "s = x[1] + x[2] + x[3]",
            "d = 1.0 * x[1] + 2.0 * x[2] + 3.0 * x[3]",
            "v[1] = x[2]",
            "v[2] = x[3]",
            "w[1] = A[1, 1] * v[1] + A[1, 2] * v[2]",
            "w[2] = A[2, 1] * v[1] + A[2, 2] * v[2]",
        ]
    );
}

const COMPLEX: &str = "function Complex \"Automatically generated record constructor for Complex\"\n  input Real re;\n  input Real im;\n  output Complex res;\nend Complex;\n\nfunction Complex.'+' \"Add\"\n  input Complex c1;\n  input Complex c2;\n  output Complex c3;\nalgorithm\n  c3 := Complex(c1.re + c2.re, c1.im + c2.im);\nend Complex.'+';\n\nfunction Complex.'constructor'.fromReal\n  input Real re;\n  input Real im = 0.0;\n  output Complex result;\nalgorithm\nend Complex.'constructor'.fromReal;\n\nfunction absC\n  input Complex c;\n  output Real y;\nalgorithm\n  y := sqrt(c.re ^ 2 + c.im ^ 2);\nend absC;\n\n";

#[test]
fn record_equations_constructors_and_operator_records_are_read_field_by_field() {
    let m = flat(&format!(
        "{COMPLEX}class M\n  Real a.re;\n  Real a.im;\n  Real b.re;\n  Real b.im;\n  Real r;\nequation\n  b = Complex.'constructor'.fromReal(time);\n  Complex.'+'(a, b) = Complex(0.0, 0.0);\n  r = absC(a);\nend M;\n"
    ));
    // `absC(a)` reads the record through its constructor: both fields by name, so that a
    // rewrite can replace them (not a whole read kept as written).
    assert_eq!(
        rows(&m),
        [
            "b.re = time",
            "b.im = 0.0",
            "a.re + b.re = 0.0",
            "a.im + b.im = 0.0",
            "r = absC(Complex(re = a.re, im = a.im))"
        ]
    );
    assert!(!m.aggregate_reads.contains_key("a"), "{:?}", m.aggregate_reads.keys());
}

#[test]
fn selections_of_literal_arrays_in_scalar_arguments_are_folded() {
    // omc unrolls `f(r[{1, 2}[$i]], …) for $i in 1:2` into selections of literal arrays.
    let m = flat(
        "function f\n  input Real a;\n  input Real b;\n  output Real y;\nalgorithm\n  y := a + b;\nend f;\n\nclass M\n  Real r[3];\n  Real m[2];\nequation\n  m = array(f(r[{1, 2}[$i1]], r[{2, 3}[$i1]]) for $i1 in 1:2);\n  r[1] = time;\n  r[2] = 2 * time;\n  r[3] = 3 * time;\nend M;\n",
    );
    assert_eq!(rows(&m)[..2], ["m[1] = f(r[1], r[2])", "m[2] = f(r[2], r[3])"]);
    assert!(m.aggregate_reads.is_empty(), "{:?}", m.aggregate_reads.keys());
}

#[test]
fn a_record_function_that_cannot_be_inlined_is_a_block_passed_as_written() {
    let m = flat(&format!(
        "{COMPLEX}function rot\n  input Complex c;\n  output Complex d;\n  protected Real t;\nalgorithm\n  t := c.re;\n  d := Complex(c.im, t);\nend rot;\n\nclass M\n  Real a.re;\n  Real a.im;\nequation\n  a = rot(Complex(time, 1.0));\nend M;\n"
    ));
    assert_eq!(rows(&m), ["block: equation with a call to `rot` whose value is read as a whole (2)"]);
    assert_eq!(passed(&m), ["a = rot(Complex(time, 1.0))"]);
}

#[test]
fn only_the_continuous_part_is_analysed() {
    let m = flat(
        "model M\n  Real x(start = 1);\n  Real y;\n  discrete Real z;\n  Real w;\n  Boolean b;\n  Integer k;\nequation\n  der(x) = if b then -x else y;\n  b = x > 0.5;\n  k = integer(x * 10);\n  when sample(0, 0.1) then\n    w = x;\n  end when;\n  z = pre(z);\n  if b then\n    y = w + z;\n    assert(x > 0, \"x\");\n  else\n    y = 0;\n    assert(true, \"t\");\n  end if;\nend M;\n",
    );
    assert_eq!(unknowns(&m), ["x", "y"], "w is assigned in a when-clause, z is discrete");
    assert_eq!(m.var("w").map(|v| v.variability), Some(Variability::Discrete));
    assert_eq!(rows(&m), ["der(x) = if b then -x else y", "if b then\n  y = w + z;\nelse\n  y = 0;\nend if"]);
    let p = passed(&m);
    assert_eq!(p[0], "b = x > 0.5");
    assert_eq!(p[1], "k = integer(x * 10)");
    assert!(p[2].starts_with("when sample(0, 0.1) then"), "{p:?}");
    assert_eq!(p[3], "z = pre(z)", "a real equation without a real unknown is no row");
    assert!(p[4].starts_with("if b then\n  assert(x > 0, \"x\");\nelse\n  assert(true, \"t\");"), "{p:?}");
}

#[test]
fn a_clocked_partition_passes_through_and_its_reals_are_known() {
    let m = flat(
        "model M\n  Clock c = Clock(0.1);\n  Real u = sin(time);\n  Real xd(start = 0);\n  Real yd;\n  Real y;\nequation\n  xd = previous(xd) + sample(u, c);\n  yd = 2 * xd;\n  y = hold(yd);\nend M;\n",
    );
    assert_eq!(unknowns(&m), ["u", "y"]);
    assert_eq!(m.var("xd").map(|v| v.variability), Some(Variability::Discrete));
    assert_eq!(rows(&m), ["u = sin(time)", "y = hold(yd)"]);
    assert_eq!(passed(&m)[1..], ["xd = previous(xd) + sample(u, c)", "yd = 2 * xd"]);
}

#[test]
fn algorithm_sections_and_tuple_equations_are_blocks() {
    let m = flat(
        "function f\n  input Real u;\n  output Real a;\n  output Integer k;\nalgorithm\n  a := u;\n  k := 1;\nend f;\n\nmodel M\n  Real x;\n  Real y[2];\n  Real p;\n  Integer q;\nequation\n  der(x) = -p;\n  (p, q) = f(y[1]);\nalgorithm\n  for i in 1:2 loop\n    y[i] := x * i;\n  end for;\n  when x < 0 then\n    q2 := 1;\n  end when;\nend M;\n",
    );
    assert_eq!(rows(&m), ["der(x) = -p", "block: tuple equation (1)", "block: algorithm section (2)"]);
    let FlatEquation::Block(alg) = &m.equations[2] else { panic!() };
    let names: Vec<(&str, u8)> = alg.unknowns.iter().map(|&(k, d)| (m.vars[k].name.as_str(), d)).collect();
    assert_eq!(names, [("y[1]", 0), ("y[2]", 0), ("x", 0)]);
    assert_eq!(passed(&m), ["(p, q) = f(y[1])"]);
}

#[test]
fn top_level_inputs_are_known_unless_bound() {
    let m = flat(
        "model M\n  input Real u;\n  input Real v = 2.0;\n  Real a.u;\n  Real y;\nequation\n  u = a.u;\n  y = v * a.u;\nend M;\n",
    );
    assert_eq!(unknowns(&m), ["v", "a.u", "y"]);
    assert_eq!(m.var("u").map(|v| (v.ty, v.variability)), Some((Type::Real, Variability::Input)));
}

#[test]
fn what_has_no_static_size_is_refused_by_name() {
    let msg = refused("model M\n  Integer n = 3;\n  Real x[n];\nequation\n  x = fill(time, 3);\nend M;\n");
    assert!(msg.contains("the array `x` has a size that is not known statically"), "{msg}");
    let msg = refused("model M\n  Real x[2];\n  Real y[3];\nequation\n  x = y;\nend M;\n");
    assert!(msg.contains("values of different sizes (array of 2 and array of 3)"), "{msg}");
    let msg = refused("model M\n  Real x;\nequation\n  connect(a, b);\nend M;\n");
    assert!(msg.contains("`connect`"), "{msg}");
}

/// An inlined function that hands its array input whole to another function reads
/// the model's array by name only when the input is that whole array (`g(x)`), never
/// for a slice (`x[1:2]` of a longer `x` stays a block).
#[test]
fn an_inlined_input_read_whole_is_the_model_aggregate_only_when_it_is_all_of_it() {
    let functions = "function g\n  input Real v[:];\n  output Real y;\nalgorithm\n  y := 0;\n  for i in 1:size(v, 1) loop\n    y := y + v[i];\n  end for;\nend g;\n\nfunction f\n  input Real v[:];\n  output Real y[1];\nalgorithm\n  y := {2 * g(v)};\nend f;\n\n";
    let m = flat(&format!(
        "{functions}model M\n  Real x[2];\n  Real r[1];\nequation\n  x = {{time, 1.0}};\n  r = f(x);\nend M;\n"
    ));
    assert_eq!(rows(&m)[2], "r[1] = 2 * g(x)");
    let m = flat(&format!(
        "{functions}model M\n  Real x[3];\n  Real r[1];\nequation\n  x = {{time, 1.0, 2.0}};\n  r = f(x[1:2]);\nend M;\n"
    ));
    assert_eq!(rows(&m)[3], "block: equation with a call to `f` whose value is read as a whole (1)");
}

fn variability(m: &FlatModel, name: &str) -> Variability {
    m.var(name).unwrap_or_else(|| panic!("no variable {name}")).variability
}

/// Issue 13: Reals, Booleans and Integers computed from parameters only — by a top-level
/// equation or by an if-equation on such a condition — are parametric, known to the
/// continuous part; their equations pass through, the rest of the if-equation (on `time`)
/// stays a row.
#[test]
fn parameter_equations_and_if_equations_on_them_are_time_invariant() {
    let m = flat(
        "model M\n  parameter Real p = 2.0;\n  constant Real eps = 1e-15;\n  Real aux;\n  Real a;\n  Boolean b;\n  Integer k;\n  Real s;\nequation\n  aux = p / 3.0;\n  if abs(aux) <= eps then\n    a = 0.0;\n    b = false;\n    s = 0.0;\n  else\n    a = sqrt(1.0 / aux);\n    b = a >= aux;\n    if time < a then\n      s = time;\n    else\n      s = a;\n    end if;\n  end if;\n  k = if b then 1 else 2;\n  der(s) = 1.0;\nend M;\n",
    );
    for v in ["aux", "a", "b", "k"] {
        assert_eq!(variability(&m, v), Variability::Parametric, "{v}");
    }
    assert_eq!(unknowns(&m), ["s"]);
    let rows = rows(&m);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[0].starts_with("if abs(aux) <= eps then") && rows[0].contains("s = time"), "{}", rows[0]);
    assert!(!rows[0].contains("a = sqrt"), "{}", rows[0]);
    let passed = passed(&m);
    assert_eq!(passed[0], "aux = p / 3.0");
    assert!(passed[1].contains("a = sqrt(1.0 / aux)") && passed[1].contains("b = a >= aux"), "{}", passed[1]);
}

/// What varies or might: `time`, `der`, `pre`, an impure function, a when-equation, an
/// algorithm, an if-equation without `else` or on `time`, a `fixed` start, an initial
/// equation, an input even with a binding; what has two definitions (then nothing is
/// marked: the analysis reports the singular model as before).
#[test]
fn time_invariance_needs_a_definition_from_parameters_only() {
    let m = flat(
        "impure function f\n  input Real u;\n  output Real y;\nalgorithm\n  y := u;\nend f;\n\nmodel M\n  parameter Real p = 2.0;\n  input Real v = 2.0;\n  Real t;\n  Real d;\n  Real w;\n  Real i;\n  Real g;\n  Real h;\n  Real n;\n  Real x(start = 1.0, fixed = true);\n  Real z;\n  Real ok;\ninitial equation\n  z = 1.0;\nequation\n  t = p * time;\n  d = 2 * p + der(t);\n  when t > 1 then\n    w = p;\n  end when;\n  i = f(p);\n  if p > 1 then\n    g = p;\n  end if;\n  if time > 1 then\n    h = p;\n  else\n    h = 2 * p;\n  end if;\n  x = p;\n  z = p;\n  ok = 2 * p;\nalgorithm\n  n := p;\nend M;\n",
    );
    assert_eq!(variability(&m, "v"), Variability::Continuous, "a bound input stays an unknown");
    for v in ["t", "d", "i", "g", "h", "n", "x", "z"] {
        assert!(m.var(v).is_some_and(|x| x.is_unknown()), "{v} is an unknown");
    }
    assert_eq!(variability(&m, "w"), Variability::Discrete);
    assert_eq!(variability(&m, "ok"), Variability::Parametric);

    let twice = flat(
        "model M\n  parameter Real p = 2.0;\n  Real a;\n  Real b;\nequation\n  a = p;\n  b = 2 * a;\n  b = p;\nend M;\n",
    );
    assert_eq!(unknowns(&twice), ["a", "b"], "a singular parameter subsystem marks nothing");
    let same = flat("model M\n  parameter Real p = 2.0;\n  Real a;\nequation\n  a = p;\n  a = 2 * p;\nend M;\n");
    assert_eq!(unknowns(&same), ["a"]);
}
