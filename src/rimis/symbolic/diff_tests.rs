//! Unit tests of time differentiation: builtins, chain rule, `der` nesting, user
//! functions (inlined, annotated, external builtin, refused).

use super::*;
use crate::rimis::symbolic::testutil::{parse_expr, parse_file, show};

fn constant(n: &str) -> bool {
    matches!(n, "w" | "p" | "k")
}

fn dt_in(fns: &Functions, src: &str) -> Result<String, SymError> {
    let ctx = DiffContext { functions: fns, is_constant: &constant };
    time_derivative(&parse_expr(src), &ctx).map(|e| show(&e))
}

fn dt(src: &str) -> String {
    dt_in(&Functions::default(), src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

#[test]
fn chain_rule_and_operators() {
    assert_eq!(dt("x ^ 2 + y ^ 2"), "2 * x * der(x) + 2 * y * der(y)");
    assert_eq!(dt("sin(w * time)"), "cos(w * time) * w");
    assert_eq!(dt("p * x - 3 * time"), "p * der(x) - 3");
    assert_eq!(dt("x * y"), "der(x) * y + x * der(y)");
    assert_eq!(dt("x / p"), "der(x) / p");
    assert_eq!(dt("x / y"), "(der(x) * y - x * der(y)) / y ^ 2");
    assert_eq!(dt("-cos(x)"), "sin(x) * der(x)");
    assert_eq!(dt("x ^ y"), "x ^ y * (der(y) * log(x) + y * der(x) / x)");
    assert_eq!(dt("p ^ x"), "p ^ x * (der(x) * log(p))");
    assert_eq!(dt("x ^ k"), "k * x ^ (k - 1) * der(x)");
    assert_eq!(dt("sqrt(x)"), "der(x) / (2 * sqrt(x))");
    assert_eq!(dt("abs(x) + sign(x) + floor(y)"), "sign(x) * der(x)");
    assert_eq!(dt("exp(2 * x)"), "exp(2 * x) * (2 * der(x))");
    assert_eq!(dt("atan2(y, x)"), "(x * der(y) - y * der(x)) / (x ^ 2 + y ^ 2)");
    assert_eq!(dt("Modelica.Math.tanh(x)"), "der(x) / cosh(x) ^ 2");
    assert_eq!(dt("p + 2.5 + time"), "1");
    assert_eq!(dt("max(0.0, x - p)"), "if noEvent(0.0 > x - p) then 0 else der(x)");
    assert_eq!(dt("min(x, y)"), "if noEvent(x < y) then der(x) else der(y)");
}

#[test]
fn der_applies_only_to_names() {
    assert_eq!(dt("der(x)"), "der(der(x))");
    assert_eq!(dt("der(der(x))"), "der(der(der(x)))");
    assert_eq!(dt("der(x + p * y)"), "der(der(x)) + p * der(der(y))");
    assert_eq!(dt("der(p)"), "0");
    assert_eq!(dt("der(time)"), "0");
    assert_eq!(dt("pre(x) + x"), "der(x)");
    assert_eq!(dt("noEvent(x * p)"), "noEvent(der(x) * p)");
    assert_eq!(dt("smooth(2, x ^ 3)"), "smooth(1, 3 * x ^ 2 * der(x))");
    assert_eq!(dt("if x > 0 then x ^ 2 else -x"), "if x > 0 then 2 * x * der(x) else -der(x)");
    let ctx = DiffContext { functions: &Functions::default(), is_constant: &constant };
    let e = parse_expr("x ^ 3");
    assert_eq!(show(&differentiate_n(&e, 2, &ctx).unwrap()), "6 * x * der(x) * der(x) + 3 * x ^ 2 * der(der(x))");
    assert_eq!(show(&differentiate_n(&e, 0, &ctx).unwrap()), "x ^ 3");
    // A derivative of an expression (omc prints `der('tank.y' * 'tank.T')`) is expanded
    // even undifferentiated (k = 0), so REPL sees the leading der(T).
    let e = parse_expr("a * der(y * T) + der(x) + der(time) + der(p * x)");
    assert_eq!(show(&differentiate_n(&e, 0, &ctx).unwrap()), "a * (der(y) * T + y * der(T)) + der(x) + 1 + p * der(x)");
    assert_eq!(show(&expand_derivatives(&parse_expr("der(der(x) + x)"), &ctx).unwrap()), "der(der(x)) + der(x)");
    assert!(expand_derivatives(&parse_expr("der(x > 0)"), &ctx).is_err());
}

#[test]
fn booleans_are_refused() {
    let e = dt_in(&Functions::default(), "x > 0").unwrap_err();
    assert!(matches!(e, SymError::NotDifferentiable { .. }), "{e}");
    assert!(dt_in(&Functions::default(), "if b then x else (y and z)").is_err());
    let e = dt_in(&Functions::default(), "1 + g(x)").unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot differentiate a call to `g`: it is not a differentiable builtin and not defined in the file"
    );
    assert!(dt_in(&Functions::default(), "delay(x, p)").is_err());
}

#[test]
fn water_tank_functions_are_inlined() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/omc-flat/WaterTank.mo")).unwrap();
    let fns = Functions::from_ast(&parse_file(&src));
    assert_eq!(dt_in(&fns, "WaterTank.inputFlow(time)").unwrap(), "1.4 * cos(0.7 * time)");
    assert_eq!(dt_in(&fns, "WaterTank.defaultOutputFlow(x)").unwrap(), "0.5 * (cos(x) * der(x))");
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/WaterTank.mo")).unwrap();
    let fns = Functions::from_ast(&parse_file(&src));
    assert_eq!(dt_in(&fns, "inputFlow(time)").unwrap(), "1.4 * cos(0.7 * time)");
    assert_eq!(dt_in(&fns, "WaterTank.inputFlow(2 * time)").unwrap(), "2.8 * cos(1.4 * time)");
}

const FUNCTIONS: &str = r#"
function 'P.f'
  input Real x;
  input Integer n;
  input Real y;
  output Real z;
algorithm
  z := x * y ^ n;
  annotation(derivative = f_der);
end 'P.f';
function 'P.f_der'
  input Real x;
  input Integer n;
  input Real y;
  input Real dx;
  input Real dy;
  output Real dz;
algorithm
  dz := dx * y ^ n + x * n * y ^ (n - 1) * dy;
end 'P.f_der';
function P.g
  input Real u;
  input Real k = 2;
  output Real v;
protected
  Real a;
algorithm
  a := k * u;
  v := a * a;
  annotation(derivative(order = 1, noDerivative = k) = P.g_der);
end P.g;
function P.h
  input Real u;
  output Real v;
algorithm
  if u > 0 then
    v := u;
  else
    v := -u;
  end if;
end P.h;
function P.s
  input Real u;
  input Real k = 3;
  output Real v;
protected
  Real a = k * u;
algorithm
  v := a + u;
end P.s;
function Modelica.Math.cos
  input Real u;
  output Real y;
external "builtin" y = cos(u);
end Modelica.Math.cos;
function P.rec
  input Real u;
  output Real v;
algorithm
  v := P.rec(u);
end P.rec;
model M
  Real x;
equation
  x = 1;
end M;
"#;

#[test]
fn user_functions() {
    let fns = Functions::from_ast(&parse_file(FUNCTIONS));
    let ok = |s: &str| dt_in(&fns, s).unwrap_or_else(|e| panic!("{s}: {e}"));
    assert_eq!(ok("'P.f'(x, 3, time)"), "'P.f_der'(x, 3, time, der(x), 1)");
    assert_eq!(ok("'P.f'(p, 3, y)"), "'P.f_der'(p, 3, y, 0, der(y))");
    assert_eq!(ok("P.g(x)"), "P.g_der(x, 2, der(x))");
    assert_eq!(ok("P.g(x, k = p)"), "P.g_der(x, p, der(x))");
    assert_eq!(ok("P.s(x)"), "3 * der(x) + der(x)");
    assert_eq!(ok("P.s(x, p)"), "p * der(x) + der(x)");
    assert_eq!(ok("Modelica.Math.cos(x)"), "-sin(x) * der(x)");
    let e = dt_in(&fns, "1 + P.h(x)").unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot differentiate a call to `P.h`: no derivative annotation and its algorithm has an if-statement"
    );
    assert!(matches!(&e, SymError::Function { function, .. } if function.as_str() == "P.h"));
    let e = dt_in(&fns, "P.rec(x)").unwrap_err();
    assert!(e.to_string().contains("recursive"), "{e}");
}

#[test]
fn long_products_group_repeated_factors() {
    let ctx = DiffContext { functions: &Functions::default(), is_constant: &constant };
    let product = |n: usize, f: &str| vec![f; n].join(" * ");
    // 129 factors (../shared/repro/slow_product_x129.mo), twice: linear, not n³.
    let e = parse_expr(&product(129, "x"));
    assert_eq!(dt(&product(129, "x")), "129 * x ^ 128 * der(x)");
    let twice = show(&differentiate_n(&e, 2, &ctx).unwrap());
    assert_eq!(twice, "16512 * x ^ 127 * der(x) * der(x) + 129 * x ^ 128 * der(der(x))");
    // Mixed factors, constants kept in place: p is constant, y appears once.
    assert_eq!(dt(&format!("p * {} * y", product(16, "x"))), "p * y * (16 * x ^ 15 * der(x)) + p * x ^ 16 * der(y)");
    // Below the threshold, or without a repeated factor: the binary rule, as before.
    assert_eq!(dt("x * x * x"), "(der(x) * x + x * der(x)) * x + x * x * der(x)");
    let distinct: Vec<String> = (0..16).map(|i| format!("x{i}")).collect();
    assert!(dt(&distinct.join(" * ")).starts_with("((((((((((((((der(x0) * x1"));
}

/// The table functions as `omc -i` prints them: the library's `derivative`
/// annotations dropped, the functions they name kept.
const OMC_TABLES: &str = r#"
function Modelica.Blocks.Tables.Internal.getDer2Table1DValue
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  input Real der_u;
  input Real der2_u;
  output Real der2_y;
  external "C" der2_y = ModelicaStandardTables_CombiTable1D_getDer2Value(tableID, icol, u, der_u, der2_u);
end Modelica.Blocks.Tables.Internal.getDer2Table1DValue;
function Modelica.Blocks.Tables.Internal.getDerTable1DValue
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  input Real der_u;
  output Real der_y;
  external "C" der_y = ModelicaStandardTables_CombiTable1D_getDerValue(tableID, icol, u, der_u);
end Modelica.Blocks.Tables.Internal.getDerTable1DValue;
function Modelica.Blocks.Tables.Internal.getTable1DValue
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  output Real y;
  external "C" y = ModelicaStandardTables_CombiTable1D_getValue(tableID, icol, u);
end Modelica.Blocks.Tables.Internal.getTable1DValue;
function Modelica.Blocks.Tables.Internal.getTable1DValueNoDer
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  output Real y;
  external "C" y = ModelicaStandardTables_CombiTable1D_getValue(tableID, icol, u);
end Modelica.Blocks.Tables.Internal.getTable1DValueNoDer;
function Modelica.Blocks.Tables.Internal.getTable1DValueNoDer2
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  output Real y;
  external "C" y = ModelicaStandardTables_CombiTable1D_getValue(tableID, icol, u);
end Modelica.Blocks.Tables.Internal.getTable1DValueNoDer2;
function Modelica.Blocks.Tables.Internal.getDerTable1DValueNoDer
  input Modelica.Blocks.Types.ExternalCombiTable1D tableID;
  input Integer icol;
  input Real u;
  output Real der_y;
  external "C" der_y = ModelicaStandardTables_CombiTable1D_getDerValue(tableID, icol, u);
end Modelica.Blocks.Tables.Internal.getDerTable1DValueNoDer;
model M
  Real x;
equation
  x = 1;
end M;
"#;

#[test]
fn table_derivatives_omc_drops_are_restored() {
    let fns = Functions::from_ast(&parse_file(OMC_TABLES));
    let p = "Modelica.Blocks.Tables.Internal";
    let ok = |s: &str| dt_in(&fns, s).unwrap_or_else(|e| panic!("{s}: {e}"));
    assert_eq!(ok(&format!("{p}.getTable1DValue(t, 1, x)")), format!("{p}.getDerTable1DValue(t, 1, x, der(x))"));
    assert_eq!(
        ok(&format!("{p}.getDerTable1DValue(t, 1, x, y)")),
        format!("{p}.getDer2Table1DValue(t, 1, x, y, der(y))")
    );
    // The library gives `…NoDer` no derivative: still refused by name.
    let e = dt_in(&fns, &format!("{p}.getTable1DValueNoDer(t, 1, x)")).unwrap_err();
    assert!(e.to_string().contains("no derivative annotation and it is external"), "{e}");
    // A derivative function whose inputs do not match (here one short) is not trusted.
    let e = dt_in(&fns, &format!("{p}.getTable1DValueNoDer2(t, 1, x)")).unwrap_err();
    assert!(e.to_string().contains("no derivative annotation and it is external"), "{e}");
    // Without the derivative function in the file, nothing is restored.
    let alone = OMC_TABLES.split("function Modelica.Blocks.Tables.Internal.getTable1DValue\n").nth(1).unwrap();
    let fns =
        Functions::from_ast(&parse_file(&format!("function Modelica.Blocks.Tables.Internal.getTable1DValue\n{alone}")));
    assert!(dt_in(&fns, &format!("{p}.getTable1DValue(t, 1, x)")).is_err());
}

/// As `omc -i` prints the IF97 density (MSL 4): the annotation
/// `derivative(noDerivative = properties) = rho_ph_der` dropped, both functions kept.
const OMC_IF97: &str = r#"
function Modelica.Media.Water.IF97_Utilities.rho_ph_der
  input Real p;
  input Real h;
  input Modelica.Media.Common.IF97BaseTwoPhase properties;
  input Real p_der;
  input Real h_der;
  output Real rho_der;
algorithm
  rho_der := properties.rho * p_der + properties.vt * h_der;
end Modelica.Media.Water.IF97_Utilities.rho_ph_der;
function Modelica.Media.Water.IF97_Utilities.rho_props_ph
  input Real p;
  input Real h;
  input Modelica.Media.Common.IF97BaseTwoPhase properties;
  output Real rho;
algorithm
  rho := properties.rho;
end Modelica.Media.Water.IF97_Utilities.rho_props_ph;
function Blend
  input Real a;
  input R r;
  output Real y;
algorithm
  y := a * r.k;
end Blend;
"#;

#[test]
fn if97_derivatives_are_restored_and_record_fields_never_leak() {
    let fns = Functions::from_ast(&parse_file(OMC_IF97));
    let p = "Modelica.Media.Water.IF97_Utilities";
    let call = format!("{p}.rho_props_ph(x, h, {p}.waterBaseProp_ph(x, h, 0, 0))");
    assert_eq!(
        dt_in(&fns, &call).unwrap_or_else(|e| panic!("{e}")),
        format!("{p}.rho_ph_der(x, h, {p}.waterBaseProp_ph(x, h, 0, 0), der(x), der(h))")
    );
    // Without its derivative function the body is inlined; `properties.rho` of a call
    // cannot be named, so the call is refused rather than leaking the function's input.
    let alone = OMC_IF97.split("end Modelica.Media.Water.IF97_Utilities.rho_ph_der;").nth(1).unwrap();
    let fns = Functions::from_ast(&parse_file(alone));
    let e = dt_in(&fns, &call).unwrap_err().to_string();
    assert!(e.contains("its body reads `properties.rho`"), "{e}");
    // A field of a record bound to a name is that name's field.
    assert_eq!(dt_in(&fns, "Blend(x, s)").unwrap_or_else(|e| panic!("{e}")), "der(x) * s.k + x * der(s.k)");
}
