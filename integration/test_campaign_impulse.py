"""The impulsive-restart campaign in the suite (issue 29: mode changes whose restart is known
exactly; campaign_impulse.py): the generator's closed-form exact solution on its own (every equation
of the model text holds on it, by finite differences; the restarts conserve momentum, or jump along
the rail's normal; fixtures/ClutchBasic's known physics), then IMPULSE_SEEDS rewritten by mdae-rimis,
simulated in rumoca and compared with the exact solution (campaign_run.py --family impulse). A seed
must be `pass` or `unchanged-both-fail` unless integration/campaign/known_failures_impulse.toml lists
it with its class (a ratchet, as test_campaign.py; no per-mode controls in this family).

With omc (OMC set, or omc on PATH) the first IMPULSE_OMC_SEEDS seeds (0..9) also run in omc.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import campaign_impulse as imp  # noqa: E402
import campaign_run as run  # noqa: E402
import harness  # noqa: E402

IMPULSE_SEEDS = range(0, 50)       # measured: about 20 s in rumoca with 2 jobs
IMPULSE_OMC_SEEDS = range(0, 10)   # omc builds each model (original and output) with clang: about 7 s a seed
JOBS = 2
H = 1e-5  # finite-difference step


def binary() -> str:
    import test_campaign
    return test_campaign.binary()


# ---------------------------------------------------------------------------------------------
# The model text as Python, evaluated on the exact solution
# ---------------------------------------------------------------------------------------------

ENV = {"sin": math.sin, "cos": math.cos, "exp": math.exp}


def py(expr: str) -> str:
    """A generated Modelica expression as Python over v (values), dv (derivatives) and t."""
    e = re.sub(r"der\((\w+)\)", r"dv['\1']", expr)
    e = re.sub(r"\b(w\d+|tau\d+|fl\d+|fr\d+|g\d+|x|y|u|v|lam|g)\b(?!')", r"v['\1']", e)
    e = e.replace("time", "t")
    m = re.fullmatch(r"\s*if (.*?) then (.*) else (.*)", e)
    return f"(({m.group(2)}) if ({m.group(1)}) else ({m.group(3)}))" if m else e


def equations(text: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the Boolean definitions, the Real equations as (lhs, rhs) with if-equations resolved into
    `(lhs if cond else lhs2)` form) of a generated model's text."""
    body = text.split("\nequation\n", 1)[1].split("  annotation", 1)[0]
    lines = [ln.strip().rstrip(";") for ln in body.splitlines() if ln.strip()]
    bools, eqs, k = [], [], 0
    while k < len(lines):
        ln = lines[k]
        if ln.startswith("if "):
            cond = ln[3:-5]
            a, b = lines[k + 1].split(" = ", 1), lines[k + 3].split(" = ", 1)
            eqs.append((f"if {cond} then {a[0]} - ({a[1]}) else {b[0]} - ({b[1]})", "0"))
            k += 5
            continue
        lhs, rhs = ln.split(" = ", 1)
        (bools if re.fullmatch(r"g\d*", lhs) else eqs).append((lhs, rhs))
        k += 1
    return bools, eqs


def residuals(m, t: float, text: str | None = None) -> list[float]:
    """Every equation of m's text (or of `text`), lhs - rhs, at t on m's exact solution (derivatives
    by central differences: t must be at least H away from a switch time)."""
    bools, eqs = equations(text or m.text())
    exact = m.variables()
    v = {name: f(t) for name, f in exact}
    dv = {name: (f(t + H) - f(t - H)) / (2 * H) for name, f in exact}
    for name, rhs in bools:
        v[name] = eval(py(rhs), dict(ENV), {"v": v, "dv": dv, "t": t})
    return [eval(f"({py(lhs)}) - ({py(rhs)})", dict(ENV), {"v": v, "dv": dv, "t": t}) for lhs, rhs in eqs]


def sample_times(m) -> list[float]:
    sw = m.switch_times()
    ts = [0.05 + 0.0731 * k for k in range(27)]
    return [t for t in ts if t < imp.STOP_TIME and all(abs(t - u) > 10 * H for u in sw)]


class Generator(unittest.TestCase):
    def test_same_seed_same_text_in_another_interpreter(self):
        here = {s: imp.generate(s).text() for s in (0, 1, 7, 123)}
        code = ("import sys, json; sys.path.insert(0, %r); import campaign_impulse as g; "
                "print(json.dumps({s: g.generate(s).text() for s in (0, 1, 7, 123)}))" % str(HERE))
        import json
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": "4242"}).stdout
        self.assertEqual(here, {int(k): v for k, v in json.loads(out).items()})
        self.assertEqual(len(set(here.values())), len(here))

    def test_the_families_shapes(self):
        seen = set()
        for seed in range(200):
            seen |= imp.features(imp.generate(seed))
        need = {"n2", "n3", "style-torque", "style-pair", "rail", "rail-ifexpr", "rail-ifeq", "rail-release",
                "rail-stay", "multi-jump", "start-fixed", "start-exact", "start-guess", "start-none",
                "shaft-J*der", "shaft-der="} | {f"clutch-{k}" for k in imp.KINDS} | {
                f"form-{f}" for f in ("ifexpr", "ifexpr-scaled", "ifeq")}
        self.assertEqual(need - seen, set())

    def test_every_equation_of_the_text_holds_on_the_exact_solution(self):
        checked = 0
        for seed in range(0, 120):
            m = imp.generate(seed)
            for t in sample_times(m):
                for r in residuals(m, t):
                    # central differences of smooth closed forms: O(H^2) ~ 1e-9 plus rounding ~ 1e-11/H
                    self.assertAlmostEqual(r, 0.0, delta=1e-5, msg=f"seed {seed} at t = {t}")
                    checked += 1
        print(f"\n  {checked} residual evaluations")

    def test_the_residual_check_is_not_vacuous(self):
        """The text of a model against the exact solution of a slightly different one (a shaft's
        inertia, the rail's mass 10% larger): some equation is off."""
        import copy
        for seed in range(0, 10):
            m = imp.generate(seed)
            other = copy.deepcopy(m)
            if m.family == "rail":
                other.m *= 1.1
            else:
                other.shafts[0] = imp.Shaft(m.shafts[0].J * 1.1, m.shafts[0].k, m.shafts[0].F, m.shafts[0].form)
            other.solve()
            worst = max(abs(r) for t in sample_times(m) for r in residuals(other, t, m.text()))
            self.assertGreater(worst, 1e-3, f"seed {seed}")

    def test_restarts_conserve_momentum(self):
        jumps = 0
        for seed in range(0, 200):
            m = imp.generate(seed)
            if m.family == "rail":
                continue
            for s in m.segments:
                for gi, left, w in s.jumps:
                    g = s.groups[gi]
                    J = [m.shafts[i].J for i in g]
                    # the left limits are the closed forms just before the switch
                    for i, l in zip(g, left):
                        self.assertAlmostEqual(l, m.speed(i, s.t0 - 1e-9), delta=1e-7)
                        self.assertAlmostEqual(m.speed(i, s.t0), w, delta=1e-12)
                        self.assertAlmostEqual(m.speed(i, s.t0 + 1e-9), w, delta=1e-7)
                    self.assertAlmostEqual(sum(j * l for j, l in zip(J, left)), sum(J) * w, delta=1e-12)
                    jumps += 1
            # a shaft in no merged group (a release, or an engagement elsewhere) keeps its speed
            for s in m.segments[1:]:
                jumped = {i for gi, _, _ in s.jumps for i in s.groups[gi]}
                for i in set(range(m.n)) - jumped:
                    self.assertAlmostEqual(m.speed(i, s.t0 - 1e-9), m.speed(i, s.t0), delta=1e-7, msg=f"seed {seed}")
        self.assertGreater(jumps, 100)

    def test_rail_restart_is_along_the_normal(self):
        rails = 0
        for seed in range(0, 200):
            m = imp.generate(seed)
            if m.family != "rail":
                continue
            t1 = m.t1
            x, y, u, v = m.state(t1)
            xl, yl, ul, vl = m.state(t1 - 1e-9)
            # the position is continuous and on the rail, as the text writes it
            self.assertAlmostEqual(x, xl, delta=1e-7)
            self.assertAlmostEqual(y, yl, delta=1e-7)
            self.assertAlmostEqual(m.nx * x + m.ny * y - float(m.d_text()), 0.0, delta=1e-12)
            # the velocity after: tangent to the rail; the jump: along its normal n
            self.assertAlmostEqual(m.nx * u + m.ny * v, 0.0, delta=1e-12)
            du, dv = u - ul, v - vl
            self.assertAlmostEqual(du * m.ny - dv * m.nx, 0.0, delta=1e-6)
            self.assertGreaterEqual(math.hypot(du, dv), imp.MIN_JUMP - 1e-6)
            # on the rail the position stays on it
            for t in sample_times(m):
                if m.on_rail(t):
                    x, y, _, _ = m.state(t)
                    self.assertAlmostEqual(m.nx * x + m.ny * y, m.d, delta=1e-10)
            rails += 1
        self.assertGreater(rails, 30)

    def test_clutch_basic_known_physics(self):
        """fixtures/ClutchBasic (J = 1, 2; k = 0.01, 0.0125; no forcing; engaged on [5, 7]): the
        values of its sidecar (ClutchBasic.sim.toml), computed there by hand."""
        zero = imp.Forcing(0.0)
        m = imp.Model(0, "ClutchBasic", "clutch", [imp.Shaft(1, 0.01, zero, "J*der"), imp.Shaft(2, 0.0125, zero, "J*der")],
                      [imp.Clutch("engage-release", 5.0, 7.0, "ifexpr", 1.0)], "torque",
                      [("fixed", 1.0), ("fixed", 1.5)], [1.0, 1.5], stop_time=10.0)
        m.solve()
        self.assertAlmostEqual(m.speed(0, 4.0), 0.960789439, delta=1e-9)
        self.assertAlmostEqual(m.speed(1, 4.0), 1.462964868, delta=1e-9)
        self.assertAlmostEqual(m.speed(0, 5.0), 1.286309709, delta=1e-9)
        self.assertAlmostEqual(m.speed(1, 5.0), 1.286309709, delta=1e-9)
        self.assertAlmostEqual(m.speed(0, 6.0), 1.276698474, delta=1e-9)
        self.assertAlmostEqual(m.speed(0, 7.0), 1.267159053, delta=1e-9)
        self.assertAlmostEqual(m.speed(0, 10.0), 1.229708843, delta=1e-9)
        self.assertAlmostEqual(m.speed(1, 10.0), 1.243621178, delta=1e-9)
        # engaged: the clutch torque keeps both at one speed, 1*w' = -0.01 w + tau
        w, dw = m.speed(0, 6.0), m.speed(0, 6.0, order=1)
        self.assertAlmostEqual(m.torque(0, 6.0), dw + 0.01 * w, delta=1e-12)
        self.assertEqual(m.torque(0, 8.0), 0.0)

    def test_closed_form_against_rk4(self):
        """The closed form of a group's ODE against a fine RK4, with a forcing of several sinusoids."""
        f = imp.Forcing(0.3, ((1.0, 0.5, -0.2), (2.3, -1.1, 0.7)))
        lam, mass, t0, w0 = 0.37, 1.9, 0.4, -0.8
        w, t, h = w0, t0, 1e-3
        rhs = lambda t, w: -lam * w + f.value(t) / mass  # noqa: E731
        y = 0.0  # and its integral
        for _ in range(1600):
            k1 = rhs(t, w); k2 = rhs(t + h / 2, w + h / 2 * k1); k3 = rhs(t + h / 2, w + h / 2 * k2)  # noqa: E702
            k4 = rhs(t + h, w + h * k3)
            y += h / 6 * (w + 2 * (w + h / 2 * k1) + 2 * (w + h / 2 * k2) + (w + h * k3))
            w += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        self.assertAlmostEqual(w, imp.linear_solution(lam, mass, f, t0, w0, t), delta=1e-10)
        self.assertAlmostEqual(y, imp.linear_integral(lam, mass, f, t0, w0, t), delta=1e-6)


# ---------------------------------------------------------------------------------------------
# The campaign against this build of mdae-rimis
# ---------------------------------------------------------------------------------------------

class ImpulseCampaign(unittest.TestCase):
    def test_known_failures_are_about_these_models(self):
        known = run.load_known(run.KNOWN_FAILURES_IMPULSE)
        self.assertEqual(known["generator"], imp.IMPULSE_VERSION)
        self.assertEqual(known["fingerprint"], run.fingerprint(family="impulse"),
                         "campaign_impulse.py's models changed (fingerprint of seeds 0..199): rebuild "
                         "known_failures_impulse.toml (campaign_run.py --family impulse --known-failures-draft)")

    def test_an_output_without_its_restart_is_wrong(self):
        """The comparison sees a missing restart: the output of a clutch seed with its reinit lines
        removed is off from the first sample after the engagement."""
        m = next(imp.generate(s) for s in range(50) if imp.generate(s).family == "clutch"
                 and all(k == "fixed" for k, _ in imp.generate(s).starts))
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "orig" / f"{m.name}.mo"
            out = Path(tmp) / "out" / f"{m.name}.mo"
            src.parent.mkdir()
            out.parent.mkdir()
            src.write_text(m.text())
            text = subprocess.run([binary(), str(src)], capture_output=True, text=True, check=True).stdout
            self.assertIn("reinit(", text)
            out.write_text(text)
            ok = harness.simulate(out, m.name, imp.STOP_TIME, run.TIMES, simulator="rumoca", dt=run.DT, **run.opts("rumoca"))
            self.assertEqual(ok["status"], "ok", ok["message"])
            self.assertIsNone(run.compare(m, ok))
            out.write_text("\n".join(ln for ln in text.splitlines() if "reinit(" not in ln) + "\n")
            bad = harness.simulate(out, m.name, imp.STOP_TIME, run.TIMES, simulator="rumoca", dt=run.DT, **run.opts("rumoca"))
        # (seed 2 with /tmp/mdae-n8: it runs on with the speeds from before the engagement)
        self.assertEqual(bad["status"], "ok", bad["message"])
        w = run.compare(m, bad)
        self.assertIsNotNone(w)
        self.assertIn("after an engagement", run.wrong_kind(m, w))

    def campaign(self, sim: str, seed_range) -> None:
        if sim == "omc":
            try:
                if harness.find_omc() is None:
                    self.skipTest(harness.OMC_NOT_FOUND)
            except harness.HarnessError as e:
                self.fail(str(e))
        known = run.load_known(run.KNOWN_FAILURES_IMPULSE)[sim]
        start = time.monotonic()
        records = run.run_campaign(list(seed_range), binary(), [sim], JOBS, os.environ.get("MDAE_KEEP_OUTPUTS"),
                                   family="impulse")
        elapsed = time.monotonic() - start
        print()
        print(run.table_text(records, [sim]))
        problems = run.ratchet(records, known, sim)
        print(f"  impulse campaign {sim}: seeds {seed_range.start}..{seed_range.stop - 1}, {elapsed:.0f} s, "
              f"{sum(1 for r in records if r['seed'] in known)} listed in known_failures_impulse.toml, "
              f"{len(problems)} problems")
        for p in problems:
            print(f"  PROBLEM {p}")
        self.assertEqual(problems, [], f"{len(problems)} seeds are not as known_failures_impulse.toml says")

    def test_impulse_campaign_rumoca(self):
        n = os.environ.get("IMPULSE_SEEDS")
        self.campaign("rumoca", range(0, int(n)) if n else IMPULSE_SEEDS)

    def test_impulse_campaign_omc(self):
        self.campaign("omc", IMPULSE_OMC_SEEDS)


if __name__ == "__main__":
    unittest.main(verbosity=2)
