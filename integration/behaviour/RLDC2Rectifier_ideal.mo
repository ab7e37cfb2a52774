model RLDC2Rectifier_ideal
  // Not a RIMIS output: fixtures/RLDC2Rectifier.mo's expected behaviour written directly, mode
  // by mode as an ODE in (j1, j2, v1, v2), to check that the numbers of
  // fixtures/RLDC2Rectifier.sim.toml hold on a correct run. V is the node voltage v1 - u1.
  //   both blocking: i1 = i2 = 0, so j2 = -j1 (K1) and (L1 + L2) j1' = e - (R1 + R2) j1;
  //   D1 passing:    u1 = 0, V = v1, i1 = -(j1 + j2);
  //   D2 passing:    u2 = 0, V = -v2, i2 = j1 + j2.
  // D1 starts passing when its reverse voltage u1 = v1 - V falls to 0 and stops when i1 falls
  // below 0; the same for D2 with u2 = V + v2 and i2. (Both passing needs v1 = -v2: not reached.)
  parameter Real E = 20.0; parameter Real f = 1.0;
  parameter Real R1 = 10.0; parameter Real R2 = 15.0;
  parameter Real L1 = 1.0; parameter Real L2 = 1.5;
  parameter Real C1 = 0.10; parameter Real C2 = 0.15;
  parameter Real Rp1 = 10.0; parameter Real Rp2 = 15.0;
  Real e; Real V;
  Real j1(start = 0, fixed = true); Real j2(start = 0, fixed = true);
  Real v1(start = 5, fixed = true); Real v2(start = 5, fixed = true);
  Real i1; Real i2; Real u1; Real u2;
  Real ub1 "u1 as if both were blocking"; Real ub2 "u2 as if both were blocking";
  Boolean g1(start = false, fixed = true); Boolean g2(start = false, fixed = true);
equation
  e = E*sin(2*3.141592653589793*f*time);
  // node voltage in each mode; in the blocking mode V = R2 j2 + L2 j2' with j2' = -j1'
  ub1 = v1 - (-(R2*j1 + L2*(e - (R1 + R2)*j1)/(L1 + L2)));
  ub2 = (-(R2*j1 + L2*(e - (R1 + R2)*j1)/(L1 + L2))) + v2;
  V = if g1 then v1 elseif g2 then -v2 else v1 - ub1;
  der(j1) = if g1 or g2 then (V + e - R1*j1)/L1 else (e - (R1 + R2)*j1)/(L1 + L2);
  der(j2) = if g1 or g2 then (V - R2*j2)/L2 else -(e - (R1 + R2)*j1)/(L1 + L2);
  i1 = if g1 then -(j1 + j2) else 0;
  i2 = if g2 then j1 + j2 else 0;
  u1 = v1 - V;
  u2 = V + v2;
  der(v1) = (i1 - v1/Rp1)/C1;
  der(v2) = (i2 - v2/Rp2)/C2;
  when not pre(g1) and not pre(g2) and ub1 < 0 then
    g1 = true;
  elsewhen pre(g1) and i1 < 0 then
    g1 = false;
  end when;
  when not pre(g1) and not pre(g2) and ub2 < 0 then
    g2 = true;
  elsewhen pre(g2) and i2 < 0 then
    g2 = false;
  end when;
end RLDC2Rectifier_ideal;
