// A defect of rumoca 0.10.2, in a model of no tool (issue 29, campaign seed 4113): a nonlinear
// algebraic block under an `if` entered at a time event is not solved from the values just
// before the event. Both branches hold on x1 = 1 + sin(time), x2 = cos(time), so the values
// before t = 1.03 are exactly a root of the block entered there; rumoca lands on its other
// root at once (x1 - (1 + sin(time)) = -1.27 at t = 1.04), whose branch ends at t = 1.79, where
// the run fails ("algebraic projection did not establish coordinate convergence"); on it the
// guard `b` of seed 4113 never reaches its threshold. With start values at the exact root the
// run fails too, and so it does with a do-nothing event every 0.01 s (harness.seed_refresh):
// not the frozen Newton seed of FrozenNewtonSeed.mo. omc runs seed 4113's output right. Checked
// by integration/test_harness.py: the day rumoca solves it right, that test fails, and the
// campaign's entered-control proof (campaign_run.apply_entered_controls) can go.
model ConditionalBlockEntered
  Real x1(start = 1.03);
  Real x2(start = 1);
  Boolean b(start = true);
equation
  b = 1 + sin(time) - x2 < 1.7506;
  if time >= 1.03 then
    0 = x2 - cos(time) + 0.56*(x1 - (1 + sin(time)))*x2;
    0 = -1.53*(x2 - cos(time)) - 0.97*(x1 - (1 + sin(time)))*x1 - 0.94*(x1 - (1 + sin(time)));
  else
    x1 = 1 + sin(time);
    x2 = cos(time);
  end if;
end ConditionalBlockEntered;
