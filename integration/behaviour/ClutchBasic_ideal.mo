model ClutchBasic_ideal
  // Not a RIMIS output: ClutchBasic's expected behaviour written directly (engaged: one shaft,
  // (j1 + j2) w' = -(k1 + k2) w; momentum-conserving restart at t1, paper 000 eq. 18), to check
  // that the numbers of fixtures/ClutchBasic.sim.toml hold on a correct run.
  parameter Real w01=1; parameter Real w02 = 1.5;
  parameter Real j1=1; parameter Real j2 = 2;
  parameter Real k1 = 0.01; parameter Real k2=0.0125;
  parameter Real t1=5; parameter Real t2=7;
  Boolean g;
  Real w1(start = w01, fixed=true);
  Real w2(start = w02, fixed=true);
equation
  g = (time >= t1) and (time <= t2);
  der(w1) = if g then -(k1*w1 + k2*w2)/(j1 + j2) else -k1*w1/j1;
  der(w2) = if g then -(k1*w1 + k2*w2)/(j1 + j2) else -k2*w2/j2;
  when g then
    reinit(w1, (j1*pre(w1) + j2*pre(w2))/(j1 + j2));
    reinit(w2, (j1*pre(w1) + j2*pre(w2))/(j1 + j2));
  end when;
end ClutchBasic_ideal;
