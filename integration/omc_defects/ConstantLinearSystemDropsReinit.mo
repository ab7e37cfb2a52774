// A defect of omc (OpenModelica v1.28.0-dev at ea251558d2, ../shared/tools/omc), in a model of no
// tool (campaign seed 1371, cut down): the post-optimisation module constantLinearSystem solves the
// block of x2_p_2 and x3_p_2 (constant coefficients and right-hand side) at compile time and
// rebuilds that equation system from its ordered equations only (BackendDAEOptimize.
// constantLinearSystem2), losing the system's removed equations, where omc keeps a `when` whose
// body is only `reinit`: the reinit of x1_1 at t = 1.31 is not in the generated code, and x1_1
// runs on from 1.03 instead of 5. With --postOptModules-=constantLinearSystem (what every
// mdae-rimis output that calls reinit carries, src/rimis/vendor.rs) it is re-initialised.
// Checked by integration/test_harness.py: the day omc keeps the reinit, that test fails, and
// the option can go.
model ConstantLinearSystemDropsReinit
  Real x1_1(start = 1.03, fixed = true);
  Real x1_p_1;
  Real x2(start = 1.07, fixed = true);
  Real x2_p;
  Real x2_p_2;
  Real x3_p_2;
  Boolean b1(start = false);
  Real x4_1(start = 0.95, fixed = true);
  Real x4_p_1;
equation
  b1 = time >= 1.31;
  der(x1_1) = x1_p_1;
  der(x2) = x2_p;
  0 = -0.85 * x3_p_2 - 1.12 * (x2_p_2 + 0.77);
  0 = x2_p_2 + 0.77 - 0.87 * x3_p_2;
  if b1 then
    0 = x1_p_1 - cos(time) + 2.16 * (x1_1 - (1 + sin(time))) + 0.19 * (x4_p_1 + sin(time)) - 0.42 * (x2_p + 0.77);
    0 = 0.96 * (x2_p + 0.77) - (0.8 * (x4_p_1 + sin(time)) * x4_1 + 0.8 * (x4_1 - cos(time)) * x4_p_1) - (0.26 * (x1_p_1 - cos(time)) * x2 + 0.26 * (x1_1 - (1 + sin(time))) * x2_p);
  else
    x1_p_1 = 0;
    x2_p = x2_p_2;
  end if;
  der(x4_1) = x4_p_1;
  0 = x4_p_1 + sin(time) + 3.39 * (x4_1 - cos(time));
  when b1 then
    reinit(x1_1, 5.0);
  end when;
end ConstantLinearSystemDropsReinit;
