#!/usr/bin/env python3
"""Seeded generator of impulsive mode-change models with a closed-form exact solution (issue 29:
"mode changes whose restart is known exactly"), a family apart from campaign_gen.py's (whose models,
GENERATOR_VERSION and fingerprint it leaves alone).

    python integration/campaign_impulse.py SEED            # print the model of SEED
    python integration/campaign_impulse.py SEED --info     # ... and its exact solution's segments

Standard library only; independent of the Rust code.

The models: shafts coupled by ideal clutches (family "clutch")
--------------------------------------------------------------
n = 2 or 3 inertias in a chain, clutch c (c = 1..n-1) between shafts c and c+1:

    J_i*der(w_i) = -k_i*w_i + F_i(time) + (torques of the clutches at shaft i)
    0 = if g_c then w_c - w_(c+1) else tau_c          (or an if-equation, or s*(w_(c+1) - w_c))
    g_c = <a formula of time>                          (time events only)

J_i in [0.5, 3], k_i in [0.1, 1.5] (> 0), F_i a constant plus 0..2 sinusoids a*cos(om*time),
b*sin(om*time) (om in 0.5..3). Clutch c transmits tau_c (+tau_c on shaft c, -tau_c on shaft c+1):
either one variable tau_c ("torque" style, as fixtures/ClutchChain.mo), or two, fl_c on shaft c and
fr_c on shaft c+1 with `fl_c + fr_c = 0` ("pair" style, as fixtures/ClutchBasic.mo). The dynamic
equations are written `J*der(w) = ...` or `der(w) = (...)/J`. A clutch is engaged on
  engage          [t1, stop)            g = time >= t1
  engage-release  [t1, t2)              g = time >= t1 and time < t2
  release         [0, t1)               g = time < t1
  release-engage  [0, t1) and [t2, stop) g = time < t1 or time >= t2
with event times in [0.15, 1.85], 0.05 apart at least and 0.01 away from the sample times
0, 0.1, ..., 2. Every model engages some clutch at a t > 0 with a speed jump of at least 0.1 (an
output that does not restart, or restarts wrongly, is off by more than the tolerance). Starts: one
shaft per group of initially engaged shafts gets `fixed = true` at its drawn speed; the others of the
group an exact start, a guessed one (+0.05..0.3) or none; the torques no start.

The exact solution (closed form, piecewise)
-------------------------------------------
Between two consecutive switch times the engaged clutches partition the shafts into groups (the
chain's connected components); a group G turns at one speed W with (sum J) W' = -(sum k) W +
sum F(t), a first-order linear ODE with constant coefficients and a forcing p + sum a cos(om t) +
b sin(om t), solved in closed form: W(t) = Wp(t) + (W(tau) - Wp(tau)) exp(-lam (t - tau)),
lam = sum k / sum J, Wp(t) = p/(lam sum J) + P cos(om t) + Q sin(om t) per sinusoid with
P = (lam a - om b)/((lam^2 + om^2) sum J), Q = (lam b + om a)/((lam^2 + om^2) sum J).
At a switch time: a clutch released leaves every speed continuous (no impulse); groups that merge
(a clutch engaged) restart at their common momentum-conserving speed
    W+ = sum_(i in G) J_i w_i(tau-) / sum_(i in G) J_i
(paper 000 eq. 18; the inelastic restart of paper 000 §5.1, whose velocity jump is along the
constraint's gradient in the metric of the inertias: an ideal clutch conserves the angular momentum).
The torques follow from the shafts' equations: along a group from its left end a, tau_a =
J_a W' + k_a W - F_a, tau_i = tau_(i-1) + J_i W' + k_i W - F_i; a released clutch has tau = 0. The
comparison (campaign_run.py --family impulse) reads every w_i, and every torque, at the sample times
(right limits after an event; no sample is near one).

The models: a point mass entering a rail (family "rail")
--------------------------------------------------------
About 30% of the seeds (the rng draws the family):

    der(x) = u;  der(y) = v;
    m*der(u) = -c*u + Fx(time) + nx*lam;
    m*der(v) = -c*v + Fy(time) + ny*lam;       (Fy's constant in [-8, -1]: a weight)
    0 = if g then nx*x + ny*y - (d) else lam;  (or an if-equation with `lam = 0`)
    g = time >= t1  (or time >= t1 and time < t2: 40% of the models leave the rail again)

m in [0.5, 3], c in [0.1, 1.5], x, y, u, v fixed at t = 0. Off the rail each coordinate's velocity is
the closed form above (lam = c/m, the forcing Fx or Fy) and its position that closed form's integral
(also closed form). d is the free flight's n.p(t1), written with 15 significant digits, so that the
position is on the rail when the constraint is entered (a position does not jump). Entering (index
3 on the rail), the velocity jumps along the constraint's gradient n to its tangential part,
(u, v)+ = tau (tau.(u, v)-), tau = (-ny, nx)/|n| (the inelastic restart of paper 000 eq. 35, for a
mass matrix m*I); the jump is at least 0.1. On the rail the tangential coordinate s = tau.p obeys
m s'' = -c s' + tau.F(t) (closed form), the normal one stays d/|n|, and lam = -n.F(t)/|n|^2 (n.v' = 0
and n.v = 0). Leaving, the velocity is continuous. x, y, u, v and lam are compared.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass, field

IMPULSE_VERSION = 1
STOP_TIME = 2.0
MAX_ATTEMPTS = 200
MIN_JUMP = 0.1
TIMES = [round(k * STOP_TIME / 20, 10) for k in range(21)]
KINDS = ("engage", "engage-release", "release", "release-engage")


def num(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def rnd(rng: random.Random, lo: float, hi: float, digits: int = 2) -> float:
    return round(rng.uniform(lo, hi), digits)


# ---------------------------------------------------------------------------------------------
# Forcing and the closed form of a first-order linear ODE
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Forcing:
    """p + sum a*cos(om*t) + b*sin(om*t) (one entry per sinusoid: (om, a, b))."""
    p: float
    sines: tuple = ()

    def value(self, t: float) -> float:
        return self.p + sum(a * math.cos(om * t) + b * math.sin(om * t) for om, a, b in self.sines)

    def deriv(self, t: float) -> float:
        return sum(om * (-a * math.sin(om * t) + b * math.cos(om * t)) for om, a, b in self.sines)

    def text(self) -> str:
        parts = []
        if self.p != 0:
            parts.append(num(self.p))
        for om, a, b in self.sines:
            arg = "time" if om == 1 else f"{num(om)}*time"
            if a != 0:
                parts.append(f"{num(a)}*cos({arg})")
            if b != 0:
                parts.append(f"{num(b)}*sin({arg})")
        return " + ".join(parts).replace("+ -", "- ")


def add(forcings: list[Forcing]) -> Forcing:
    return Forcing(sum(f.p for f in forcings), tuple(s for f in forcings for s in f.sines))


def scale(f: Forcing, a: float) -> Forcing:
    return Forcing(a * f.p, tuple((om, a * x, a * y) for om, x, y in f.sines))


def particular(lam: float, mass: float, f: Forcing, t: float) -> float:
    """The bounded particular solution of mass*W' = -lam*mass*W + f(t) at t (lam > 0)."""
    v = f.p / (lam * mass)
    for om, a, b in f.sines:
        d = (lam * lam + om * om) * mass
        v += (lam * a - om * b) / d * math.cos(om * t) + (lam * b + om * a) / d * math.sin(om * t)
    return v


def linear_solution(lam: float, mass: float, f: Forcing, t0: float, w0: float, t: float) -> float:
    """mass*W' = -lam*mass*W + f(t), W(t0) = w0, at t."""
    return particular(lam, mass, f, t) + (w0 - particular(lam, mass, f, t0)) * math.exp(-lam * (t - t0))


def particular_integral(lam: float, mass: float, f: Forcing, t: float) -> float:
    """An antiderivative of particular(lam, mass, f, .) at t."""
    v = f.p / (lam * mass) * t
    for om, a, b in f.sines:
        d = (lam * lam + om * om) * mass
        v += (lam * a - om * b) / d * math.sin(om * t) / om - (lam * b + om * a) / d * math.cos(om * t) / om
    return v


def linear_integral(lam: float, mass: float, f: Forcing, t0: float, w0: float, t: float) -> float:
    """The integral from t0 to t of linear_solution(lam, mass, f, t0, w0, .)."""
    k = w0 - particular(lam, mass, f, t0)
    return (particular_integral(lam, mass, f, t) - particular_integral(lam, mass, f, t0)
            + k * (1 - math.exp(-lam * (t - t0))) / lam)


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shaft:
    J: float
    k: float
    F: Forcing
    form: str  # "J*der" | "der="


@dataclass(frozen=True)
class Clutch:
    kind: str
    t1: float
    t2: float | None
    form: str      # "ifexpr" | "ifexpr-scaled" | "ifeq"
    scale: float   # for ifexpr-scaled: 0 = if g then scale*(w_(c+1) - w_c) else tau

    def engaged(self, t: float) -> bool:
        """Engaged on the right of t (the right limit at a switch time)."""
        if self.kind == "engage":
            return t >= self.t1
        if self.kind == "engage-release":
            return self.t1 <= t < self.t2
        if self.kind == "release":
            return t < self.t1
        return t < self.t1 or t >= self.t2

    def switch_times(self) -> list[float]:
        return [self.t1] + ([self.t2] if self.t2 is not None else [])

    def condition(self) -> str:
        t1, t2 = num(self.t1), None if self.t2 is None else num(self.t2)
        return {"engage": f"time >= {t1}", "engage-release": f"time >= {t1} and time < {t2}",
                "release": f"time < {t1}", "release-engage": f"time < {t1} or time >= {t2}"}[self.kind]


@dataclass
class Segment:
    t0: float
    t1: float
    groups: list        # [[shaft indices]] (0-based, consecutive)
    speeds: list        # per group: its speed at t0 (right limit)
    jumps: list = field(default_factory=list)  # at t0: [(group, left limits, W+)] for merged groups


@dataclass
class Model:
    seed: int
    name: str
    family: str
    shafts: list
    clutches: list
    style: str          # "torque" | "pair"
    starts: list        # per shaft: ("fixed"|"exact"|"guess"|"none", value)
    w0: list            # the exact initial speeds
    segments: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    stop_time: float = STOP_TIME

    @property
    def n(self) -> int:
        return len(self.shafts)

    # -- the exact solution ----------------------------------------------------------------

    def switch_times(self) -> list[float]:
        return sorted({t for c in self.clutches for t in c.switch_times()})

    def partition(self, t: float) -> list[list[int]]:
        groups = [[0]]
        for c, cl in enumerate(self.clutches):
            if cl.engaged(t):
                groups[-1].append(c + 1)
            else:
                groups.append([c + 1])
        return groups

    def group_params(self, g: list[int]) -> tuple[float, float, Forcing]:
        mass = sum(self.shafts[i].J for i in g)
        lam = sum(self.shafts[i].k for i in g) / mass
        return lam, mass, add([self.shafts[i].F for i in g])

    def solve(self) -> None:
        """The segments of the exact solution (see the module docstring)."""
        times = [0.0] + self.switch_times() + [self.stop_time]
        segs = []
        for k in range(len(times) - 1):
            t0, t1 = times[k], times[k + 1]
            groups = self.partition(t0)
            speeds, jumps = [], []
            for gi, g in enumerate(groups):
                if k == 0:
                    w = self.w0[g[0]]
                else:
                    left = [self.speed(i, t0, left=True) for i in g]
                    w = sum(self.shafts[i].J * v for i, v in zip(g, left)) / sum(self.shafts[i].J for i in g)
                    if max(left) - min(left) > 1e-12:
                        jumps.append((gi, left, w))
                speeds.append(w)
            segs.append(Segment(t0, t1, groups, speeds, jumps))
            self.segments = segs

    def segment(self, t: float, left: bool = False) -> Segment:
        for s in self.segments:
            if (s.t0 < t <= s.t1) if left else (s.t0 <= t < s.t1):
                return s
        return self.segments[-1]

    def _group(self, s: Segment, i: int) -> int:
        return next(gi for gi, g in enumerate(s.groups) if i in g)

    def speed(self, i: int, t: float, left: bool = False, order: int = 0) -> float:
        """w_i at t (the right limit at a switch time; left=True: the left limit); order 1: w_i'."""
        s = self.segment(t, left)
        gi = self._group(s, i)
        lam, mass, f = self.group_params(s.groups[gi])
        w = linear_solution(lam, mass, f, s.t0, s.speeds[gi], t)
        return w if order == 0 else -lam * w + f.value(t) / mass

    def torque(self, c: int, t: float) -> float:
        """tau_c (on shaft c, the negative on shaft c+1) at t (right limit)."""
        if not self.clutches[c].engaged(t):
            return 0.0
        s = self.segment(t)
        g = s.groups[self._group(s, c)]
        tau = 0.0
        for i in range(g[0], c + 1):
            sh = self.shafts[i]
            tau += sh.J * self.speed(i, t, order=1) + sh.k * self.speed(i, t) - sh.F.value(t)
        return tau

    def variables(self) -> list[tuple[str, object]]:
        """Every compared variable: (name, exact value at t)."""
        out = [(f"w{i + 1}", (lambda t, i=i: self.speed(i, t))) for i in range(self.n)]
        for c in range(len(self.clutches)):
            if self.style == "torque":
                out.append((f"tau{c + 1}", (lambda t, c=c: self.torque(c, t))))
            else:
                out.append((f"fl{c + 1}", (lambda t, c=c: self.torque(c, t))))
                out.append((f"fr{c + 1}", (lambda t, c=c: -self.torque(c, t))))
        return out

    # -- the text --------------------------------------------------------------------------

    def clutch_terms(self, i: int) -> str:
        """The clutch torques on shaft i, as a text to add (" + tau1 - tau2")."""
        s = ""
        if i >= 1:  # clutch i (1-based i) between shafts i and i+1 ... its right side is shaft i
            s += f" - tau{i}" if self.style == "torque" else f" + fr{i}"
        if i < len(self.clutches):
            s += f" + tau{i + 1}" if self.style == "torque" else f" + fl{i + 1}"
        return s

    def text(self) -> str:
        n = self.n
        lines = [f"// mdae-rimis impulsive-restart campaign (campaign_impulse.py), family {self.family}, "
                 f"version {IMPULSE_VERSION}, seed {self.seed}.",
                 "// Clutches: " + "; ".join(f"{c + 1} ({cl.kind}) between w{c + 1} and w{c + 2}"
                                             for c, cl in enumerate(self.clutches)) + ".",
                 "// Exact solution: piecewise closed form; engaging, the speeds jump to the common "
                 "momentum-conserving speed:"]
        for s in self.segments:
            for gi, left, w in s.jumps:
                g = s.groups[gi]
                lines.append(f"//   t = {num(s.t0)}: " + ", ".join(f"w{i + 1}" for i in g) + " from "
                             + ", ".join(f"{v:.6g}" for v in left) + f" to {w:.6g}")
        lines.append(f"model {self.name}")
        for i, (kind, v) in enumerate(self.starts):
            if kind == "fixed":
                lines.append(f"  Real w{i + 1}(start = {num(v)}, fixed = true);")
            elif kind in ("exact", "guess"):
                lines.append(f"  Real w{i + 1}(start = {num(v)});")
            else:
                lines.append(f"  Real w{i + 1};")
        for c in range(len(self.clutches)):
            if self.style == "torque":
                lines.append(f"  Real tau{c + 1};")
            else:
                lines.append(f"  Real fl{c + 1};")
                lines.append(f"  Real fr{c + 1};")
        for c in range(len(self.clutches)):
            lines.append(f"  Boolean g{c + 1};")
        lines.append("equation")
        for c, cl in enumerate(self.clutches):
            lines.append(f"  g{c + 1} = {cl.condition()};")
        for i, sh in enumerate(self.shafts):
            rhs = f"-{num(sh.k)}*w{i + 1}"
            ft = sh.F.text()
            if ft:
                rhs += " + " + ft
            rhs = (rhs + self.clutch_terms(i)).replace("+ -", "- ")
            if sh.form == "J*der":
                lines.append(f"  {num(sh.J)}*der(w{i + 1}) = {rhs};")
            else:
                lines.append(f"  der(w{i + 1}) = ({rhs})/{num(sh.J)};")
        for c, cl in enumerate(self.clutches):
            a, b = f"w{c + 1}", f"w{c + 2}"
            free = f"tau{c + 1}" if self.style == "torque" else f"fl{c + 1}"
            if cl.form == "ifexpr":
                lines.append(f"  0 = if g{c + 1} then {a} - {b} else {free};")
            elif cl.form == "ifexpr-scaled":
                lines.append(f"  0 = if g{c + 1} then {num(cl.scale)}*({b} - {a}) else {free};")
            else:
                lines += [f"  if g{c + 1} then", f"    {a} = {b};", "  else", f"    {free} = 0;", "  end if;"]
            if self.style == "pair":
                lines.append(f"  fl{c + 1} + fr{c + 1} = 0;")
        lines.append(f"  annotation(experiment(StopTime = {num(STOP_TIME)}));")
        lines.append(f"end {self.name};")
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The rail: a point mass in the plane that enters a straight rail at a known instant
# ---------------------------------------------------------------------------------------------


@dataclass
class RailModel:
    seed: int
    name: str
    m: float
    c: float
    Fx: Forcing
    Fy: Forcing
    nx: float
    ny: float
    t1: float
    t2: float | None
    form: str                 # "ifexpr" | "ifeq"
    p0: tuple                 # (x0, y0, u0, v0), all fixed
    family: str = "rail"
    d: float = 0.0            # the rail n.p = d, through the free flight's position at t1
    segments: list = field(default_factory=list)   # [(t0, t1, on_rail, (x, y, u, v) at t0)]
    jump: tuple = ()          # ((u, v) left limits, (u, v) after the restart) at t1
    info: dict = field(default_factory=dict)

    n = 2  # the plane (for the runner's records)

    def on_rail(self, t: float) -> bool:
        return t >= self.t1 and (self.t2 is None or t < self.t2)

    def switch_times(self) -> list[float]:
        return [self.t1] + ([self.t2] if self.t2 is not None else [])

    def _free(self, st, t0, t):
        lam = self.c / self.m
        x, y, u, v = st
        return (x + linear_integral(lam, self.m, self.Fx, t0, u, t), y + linear_integral(lam, self.m, self.Fy, t0, v, t),
                linear_solution(lam, self.m, self.Fx, t0, u, t), linear_solution(lam, self.m, self.Fy, t0, v, t))

    def _tangent(self):
        r = math.hypot(self.nx, self.ny)
        return -self.ny / r, self.nx / r, r

    def _rail(self, st, t0, t):
        """On the rail from st (on it, the velocity along it) at t0: the tangential coordinate s
        obeys m s'' = -c s' + tau.F(t) (closed form), the normal one stays d/|n|."""
        tx, ty, r = self._tangent()
        x, y, u, v = st
        ft = add([scale(self.Fx, tx), scale(self.Fy, ty)])
        lam = self.c / self.m
        s0, sd0 = tx * x + ty * y, tx * u + ty * v
        s = s0 + linear_integral(lam, self.m, ft, t0, sd0, t)
        sd = linear_solution(lam, self.m, ft, t0, sd0, t)
        nn = self.d / (r * r)
        return (nn * self.nx + s * tx, nn * self.ny + s * ty, sd * tx, sd * ty)

    def solve(self) -> None:
        times = [0.0] + self.switch_times() + [STOP_TIME]
        st = self.p0
        segs = []
        for k in range(len(times) - 1):
            t0, t1 = times[k], times[k + 1]
            on = self.on_rail(t0)
            if k > 0:
                prev = segs[-1]
                st = (self._rail if prev[2] else self._free)(prev[3], prev[0], t0)
                if on:
                    # entering the rail: the position is on it (d was chosen so); the velocity
                    # jumps along the constraint's gradient n to n.v = 0 (the inelastic restart)
                    if not self.d:
                        self.d = self.nx * st[0] + self.ny * st[1]
                    tx, ty, _ = self._tangent()
                    vt = tx * st[2] + ty * st[3]
                    self.jump = ((st[2], st[3]), (vt * tx, vt * ty))
                    st = (st[0], st[1], vt * tx, vt * ty)
            segs.append((t0, t1, on, st))
        self.segments = segs

    def state(self, t: float) -> tuple:
        seg = next((s for s in self.segments if s[0] <= t < s[1]), self.segments[-1])
        return (self._rail if seg[2] else self._free)(seg[3], seg[0], t)

    def multiplier(self, t: float) -> float:
        """lam on the rail: n.v' = 0 and n.v = 0 give 0 = n.F + |n|^2 lam; 0 off it."""
        if not self.on_rail(t):
            return 0.0
        return -(self.nx * self.Fx.value(t) + self.ny * self.Fy.value(t)) / (self.nx ** 2 + self.ny ** 2)

    def variables(self) -> list[tuple[str, object]]:
        return [(name, (lambda t, k=k: self.state(t)[k])) for k, name in enumerate(("x", "y", "u", "v"))] + [
            ("lam", self.multiplier)]

    def d_text(self) -> str:
        return f"{self.d:.15g}"

    def text(self) -> str:
        cond = f"time >= {num(self.t1)}" + ("" if self.t2 is None else f" and time < {num(self.t2)}")
        (ul, vl), (ur, vr) = self.jump
        ctext = f"{num(self.nx)}*x + {num(self.ny)}*y - ({self.d_text()})".replace("+ -", "- ")
        lines = [f"// mdae-rimis impulsive-restart campaign (campaign_impulse.py), family rail, version "
                 f"{IMPULSE_VERSION}, seed {self.seed}.",
                 f"// A point mass enters the rail {ctext} = 0 at t = {num(self.t1)}"
                 + ("" if self.t2 is None else f" and leaves it at t = {num(self.t2)}")
                 + "; its position is on it then.",
                 f"// Exact solution: closed form; entering, (u, v) jumps along the rail's normal from "
                 f"({ul:.6g}, {vl:.6g}) to ({ur:.6g}, {vr:.6g}).",
                 f"model {self.name}"]
        for name, v in zip(("x", "y", "u", "v"), self.p0):
            lines.append(f"  Real {name}(start = {num(v)}, fixed = true);")
        lines += ["  Real lam;", "  Boolean g;", "equation", f"  g = {cond};", "  der(x) = u;", "  der(y) = v;"]
        for var, f, nc in (("u", self.Fx, self.nx), ("v", self.Fy, self.ny)):
            rhs = f"-{num(self.c)}*{var}" + (" + " + f.text() if f.text() else "") + f" + {num(nc)}*lam"
            lines.append(f"  {num(self.m)}*der({var}) = {rhs.replace('+ -', '- ')};")
        if self.form == "ifexpr":
            lines.append(f"  0 = if g then {ctext} else lam;")
        else:
            lines += ["  if g then", f"    0 = {ctext};", "  else", "    lam = 0;", "  end if;"]
        lines.append(f"  annotation(experiment(StopTime = {num(STOP_TIME)}));")
        lines.append(f"end {self.name};")
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------------------------


class Rejected(Exception):
    pass


def draw_rail(rng: random.Random, seed: int) -> RailModel:
    m, c = rnd(rng, 0.5, 3), rnd(rng, 0.1, 1.5)
    fx, fy = draw_forcing(rng), draw_forcing(rng)
    fy = Forcing(rnd(rng, -8, -1), fy.sines)  # a weight
    nx, ny = rnd(rng, -1.5, 1.5), rnd(rng, -1.5, 1.5)
    if math.hypot(nx, ny) < 0.5 or min(abs(nx), abs(ny)) < 0.05:
        raise Rejected("rail normal too short or along an axis")
    release = rng.random() < 0.4
    t1 = draw_time(rng, [], hi=1.5 if release else 1.85)
    t2 = draw_time(rng, [t1], lo=t1 + 0.1) if release else None
    if t1 is None or (release and t2 is None):
        raise Rejected("no room for the event times")
    p0 = (rnd(rng, -1, 1), rnd(rng, -1, 1), rnd(rng, -2, 2), rnd(rng, -2, 2))
    r = RailModel(seed, f"Impulse{seed}", m, c, fx, fy, nx, ny, t1, t2, rng.choice(("ifexpr", "ifeq")), p0)
    r.solve()
    return r


def draw_time(rng: random.Random, taken: list[float], lo: float = 0.15, hi: float = 1.85) -> float | None:
    for _ in range(100):
        t = rnd(rng, lo, hi, 3)
        if abs(t * 10 - round(t * 10)) < 0.1 - 1e-9:  # within 0.01 of a sample time
            continue
        if all(abs(t - u) >= 0.05 for u in taken):
            return t
    return None


def draw_forcing(rng: random.Random) -> Forcing:
    p = rnd(rng, -1, 1) if rng.random() < 0.7 else 0.0
    sines = []
    for _ in range(rng.choice((0, 1, 1, 2))):
        om = 1.0 if rng.random() < 0.4 else rnd(rng, 0.5, 3, 1)
        a = rnd(rng, -1.5, 1.5) if rng.random() < 0.8 else 0.0
        b = rnd(rng, -1.5, 1.5) if rng.random() < 0.5 or a == 0 else 0.0
        sines.append((om, a, b))
    return Forcing(p, tuple(sines))


def draw_candidate(rng: random.Random, seed: int) -> Model:
    n = rng.choice((2, 2, 3))
    shafts = [Shaft(rnd(rng, 0.5, 3), rnd(rng, 0.1, 1.5), draw_forcing(rng), rng.choice(("J*der", "J*der", "der=")))
              for _ in range(n)]
    clutches, taken = [], []
    for _ in range(n - 1):
        kind = rng.choice(KINDS)
        t1 = draw_time(rng, taken, hi=1.85 if kind in ("engage", "release") else 1.5)
        if t1 is None:
            raise Rejected("no room for the event times")
        taken.append(t1)
        t2 = None
        if kind in ("engage-release", "release-engage"):
            t2 = draw_time(rng, taken, lo=t1 + 0.1)
            if t2 is None:
                raise Rejected("no room for the event times")
            taken.append(t2)
        form = rng.choice(("ifexpr", "ifexpr", "ifexpr-scaled", "ifeq"))
        scale = rng.choice((-1, 1)) * rnd(rng, 0.5, 2) if form == "ifexpr-scaled" else 1.0
        clutches.append(Clutch(kind, t1, t2, form, scale))
    style = rng.choice(("torque", "pair"))
    m = Model(seed, f"Impulse{seed}", "clutch", shafts, clutches, style, [], [])
    groups = m.partition(0.0)
    w0, starts = [0.0] * n, [None] * n
    for g in groups:
        v = rnd(rng, -2, 2)
        for j, i in enumerate(g):
            w0[i] = v
            if j == 0:
                starts[i] = ("fixed", v)
            else:
                kind = rng.choice(("exact", "guess", "none"))
                starts[i] = (kind, round(v + rng.choice((-1, 1)) * rnd(rng, 0.05, 0.3), 2) if kind == "guess" else v)
    m.starts, m.w0 = starts, w0
    m.solve()
    return m


def check(m) -> None:
    """Every model restarts impulsively: some engagement at t > 0 with a jump >= MIN_JUMP."""
    if m.family == "rail":
        (ul, vl), (ur, vr) = m.jump
        if math.hypot(ul - ur, vl - vr) < MIN_JUMP:
            raise Rejected(f"a velocity jump under {MIN_JUMP} entering the rail")
        if any(abs(v) > 20 for t in TIMES for v in m.state(t)):
            raise Rejected("values too large")
        return
    jumps = [max(abs(v - w) for v in left) for s in m.segments for _, left, w in s.jumps]
    if not jumps or max(jumps) < MIN_JUMP:
        raise Rejected(f"no speed jump of at least {MIN_JUMP} at an engagement")
    if any(abs(m.speed(i, t)) > 20 for i in range(m.n) for t in (0.5, 1.0, 1.5, 2.0)):
        raise Rejected("speeds too large")


def generate(seed: int) -> Model:
    rng = random.Random(f"mdae-rimis impulse campaign v{IMPULSE_VERSION} seed {seed}")
    reasons = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            m = draw_candidate(rng, seed) if rng.random() < 0.7 else draw_rail(rng, seed)
            check(m)
        except Rejected as e:
            reasons.append(str(e))
            continue
        if m.family == "rail":
            m.info = {"attempts": attempt, "rejected": reasons, "d": m.d,
                      "segments": [{"t0": a, "t1": b, "on_rail": on, "start": list(st)} for a, b, on, st in m.segments],
                      "jump": {"left": list(m.jump[0]), "right": list(m.jump[1])}}
            return m
        m.info = {"attempts": attempt, "rejected": reasons,
                  "segments": [{"t0": s.t0, "t1": s.t1, "groups": [[i + 1 for i in g] for g in s.groups],
                                "speeds": s.speeds,
                                "jumps": [{"group": [i + 1 for i in s.groups[gi]], "left": left, "right": w}
                                          for gi, left, w in s.jumps]} for s in m.segments]}
        return m
    raise RuntimeError(f"seed {seed}: no model in {MAX_ATTEMPTS} attempts")


def features(m) -> set[str]:
    if m.family == "rail":
        return {"rail", f"rail-{m.form}", "rail-release" if m.t2 is not None else "rail-stay"}
    f = {f"n{m.n}", f"style-{m.style}"}
    f |= {f"clutch-{c.kind}" for c in m.clutches} | {f"form-{c.form}" for c in m.clutches}
    f |= {f"shaft-{s.form}" for s in m.shafts} | {f"start-{k}" for k, _ in m.starts}
    if any(len(s.jumps) > 1 or any(len(s.groups[gi]) > 2 for gi, _, _ in s.jumps) for s in m.segments):
        f.add("multi-jump")
    return f


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--info", action="store_true", help="print the exact solution's segments")
    a = ap.parse_args(argv)
    m = generate(a.seed)
    sys.stdout.write(m.text())
    if a.info:
        import json
        print(json.dumps(m.info, indent=1))
        print(sorted(features(m)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
