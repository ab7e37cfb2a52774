// A defect of rumoca 0.10.2's default (BDF) integrator, in a model of no tool (issue 29,
// campaign seeds 4672 and 8043): after the time event at t = 1.25 freezes the only state, the
// nonlinear algebraic equation (roots v = 1 and v = exp(-1.8*time), which falls below the
// relation's threshold 0.2374 after t = 0.7989) is solved at every step while `c` watches it;
// rumoca then takes steps of ~1e-6 s until its wall-time limit. Its rk-like integrator runs the
// model in 0.1 s to its solution: x = 2 - min(time, 1.25), v = 1, c = true.
// Checked by integration/test_harness.py: the day rumoca runs it with BDF, that test
// fails, and the harness's retry (harness.bdf_defect) can go.
model BdfStall
  Real x(start = 2, fixed = true);
  Real v(start = 0.5);
  Boolean c;
equation
  der(x) = if time >= 1.25 then 0 else -1;
  0 = (v - exp(-1.8*time))*(v - 1);
  c = v >= 0.2374;
end BdfStall;
