model CupAndBall_ideal
  // Not a RIMIS output: CupAndBall's expected behaviour for the fixture's start (dropped from
  // rest at the origin) written directly: free fall, inelastic impact when the rope straightens
  // (radial velocity removed, paper 000 eqs. 30, 35), then the rope holds the ball with
  // lambda = g/L. Checks that the numbers of fixtures/CupAndBall.sim.toml hold on a correct run.
  constant Real g = 9.81; constant Real L = 1.0;
  Real x(start=0,fixed=true); Real y(start=0, fixed=true);
  Real u(start=0, fixed=true); Real v(start=0,fixed=true);
  Real lambda;
  Boolean gamma(start=false,fixed=true);
equation
  der(x) = u; der(y) = v;
  der(u) + lambda*x = 0;
  der(v) + lambda*y + g = 0;
  lambda = if gamma then g/L else 0;
  when x^2 + y^2 >= L^2 then
    gamma = true;
    reinit(u, pre(u) - (x*pre(u) + y*pre(v))/L^2*x);
    reinit(v, pre(v) - (x*pre(u) + y*pre(v))/L^2*y);
  end when;
end CupAndBall_ideal;
