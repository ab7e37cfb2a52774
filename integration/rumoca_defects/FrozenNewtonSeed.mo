// A defect of rumoca 0.10.2, in a model of no tool (issue 29, campaign seeds 7480, 7441, 4444,
// 5853, 7345, 4917): a nonlinear algebraic block under a mode-dependent `if` is solved by
// Newton's method from the values committed at the last event (here: the initialisation), not
// from the last accepted step. Its roots are x1 = 0.21*time - 0.95 (with x2 = 1 + sin(time))
// and x1 = -1/0.54; from t = 0.947 on, Newton from the initial values finds the second, though
// the first moves continuously and never meets it. No event happens at all (time < 5 is true
// to the end). The same model with a do-nothing event every 0.01 s (harness.seed_refresh)
// stays on the first root. Checked by integration/test_harness.py: the day rumoca solves it
// right, that test fails, and the campaign's seed-refresh proof can go.
model FrozenNewtonSeed
  Real x1(start = -0.95);
  Real x2(start = 1);
equation
  if time < 5 then
    0 = x1 - (0.21*time - 0.95) + 0.6*(x2 - (1 + sin(time)))*x1;
    0 = x2 - (1 + sin(time)) - 0.9*(x1 - (0.21*time - 0.95));
  else
    x1 = 0;
    x2 = 0;
  end if;
end FrozenNewtonSeed;
