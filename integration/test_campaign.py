"""The exact-solution campaign in the suite (issue 29 point 3): the generator and its well-posedness
filter on their own, then a fixed seed range rewritten by mdae-rimis, simulated in rumoca and
compared with the exact solution (campaign_run.py). A seed must be `pass` or `unchanged-both-fail`
unless integration/campaign/known_failures.toml lists it with its class; a listed seed that passes,
or whose class changed, fails the test too (a ratchet: the list only shrinks as fixes land).

    CAMPAIGN_SEEDS=10000 .venv/bin/python integration/run_tests.py   # the long campaign: seeds 0..9999
With omc (OMC set, or omc on PATH) the first OMC_SEEDS seeds also run in omc ([omc] of the list).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import campaign_gen as gen  # noqa: E402
import campaign_run as run  # noqa: E402
import harness  # noqa: E402

CI_SEEDS = range(0, 500)    # measured: 175-210 s with 2 jobs on this 2-core machine under the load of other builds
OMC_SEEDS = range(0, 50)
JOBS = 2


def binary() -> str:
    b = os.environ.get("MDAE_RIMIS_BIN")
    if b and Path(b).is_file():
        return b
    target = Path(os.environ.get("CARGO_TARGET_DIR") or run.ROOT / "target")
    subprocess.run(["cargo", "build", "--quiet", "--profile", "ci", "--manifest-path", str(run.ROOT / "Cargo.toml")],
                   check=True)
    return str(target / "ci" / "mdae-rimis")


def seeds() -> range:
    n = os.environ.get("CAMPAIGN_SEEDS")
    return range(0, int(n)) if n else CI_SEEDS


# ---------------------------------------------------------------------------------------------
# The generator and the filter, without the tool
# ---------------------------------------------------------------------------------------------

def to_python(expr: str) -> str:
    """A generated Modelica expression (arithmetic, der, sin/cos/exp, time) as Python over x, dx, t."""
    e = re.sub(r"der\(x(\d+)\)", r"dx[\1]", expr)
    e = re.sub(r"\bx(\d+)\b", r"x[\1]", e)
    return e.replace("time", "t")


ENV = {"sin": math.sin, "cos": math.cos, "exp": math.exp}


def model_of(trajs, slots, modevars, starts=None):
    """A hand-made model (for the filter's tests), visited modes from its mode variables."""
    m = gen.Model(0, "Hand", trajs, modevars, slots, starts or [("none", 0.0)] * len(trajs),
                  gen.visited_modes(modevars, trajs))
    return m


def E(c, i):
    return (c, "E", i, 0)


def D(c, i):
    return (c, "D", i, 0)


def P(c, i, j):
    return (c, "P", i, j)


class Generator(unittest.TestCase):
    def test_same_seed_same_text_in_another_interpreter(self):
        here = {s: gen.generate(s).text() for s in (0, 1, 7, 123, 4567)}
        code = ("import sys, json; sys.path.insert(0, %r); import campaign_gen as g; "
                "print(json.dumps({s: g.generate(s).text() for s in (0, 1, 7, 123, 4567)}))" % str(HERE))
        import json
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout
        there = {int(k): v for k, v in json.loads(out).items()}
        self.assertEqual(here, there)
        self.assertEqual(len(set(here.values())), len(here), "different seeds give different models")

    def test_every_equation_text_vanishes_on_the_exact_solution(self):
        checked = 0
        for seed in range(0, 150):
            m = gen.generate(seed)
            for s in m.slots:
                for br in s.branches:
                    for r in br:
                        for t in (0.0, 0.37, 1.21, 1.9):
                            x = [None] + [tr.value(t) for tr in m.trajs]
                            dx = [None] + [tr.value(t, 1) for tr in m.trajs]
                            v = eval(to_python(gen.residual_text(r, m.trajs)), dict(ENV), {"x": x, "dx": dx, "t": t})
                            self.assertAlmostEqual(v, 0.0, delta=1e-9, msg=f"seed {seed}: {gen.residual_text(r, m.trajs)}")
                            # the text is the structure: off the solution both agree
                            xp = [None] + [xi + 0.1 * k for k, xi in enumerate(x[1:], 1)]
                            dxp = [None] + [d - 0.07 * k for k, d in enumerate(dx[1:], 1)]
                            v = eval(to_python(gen.residual_text(r, m.trajs)), dict(ENV), {"x": xp, "dx": dxp, "t": t})
                            self.assertAlmostEqual(v, r.evaluate(t, xp[1:], dxp[1:], m.trajs), delta=1e-9)
                            if r.explicit_var() is not None:
                                rhs = eval(to_python(gen.explicit_rhs(r, m.trajs)), dict(ENV), {"x": xp, "dx": dxp, "t": t})
                                self.assertAlmostEqual(dxp[r.explicit_var() + 1] - rhs,
                                                       r.evaluate(t, xp[1:], dxp[1:], m.trajs), delta=1e-9)
                            checked += 1
            # the mode variables switch where the generator says
            for mv in m.modevars:
                t = mv.switch_time
                self.assertNotEqual(mv.value(t - 1e-6, m.trajs), mv.value(t + 1e-6, m.trajs), f"seed {seed}")
        print(f"\n  {checked} residual evaluations")

    def test_generator_produces_the_reproducers_shapes(self):
        """The shapes of ../shared/repro/rewrite/*.mo, over the first 300 seeds."""
        need = {
            "ifexpr-der-every-branch",   # DerInIfExpression: 0 = if b then der(x) ... else der(x) ...
            "ifeq2", "coupled-der",       # GroupedConsistencyAssert: 2 equations per branch, der(x2) coupled
            "product", "explicit-der",    # ... 0.5*(x1 - f1)*x1; der(x2) = ...
            "cond-not", "time-event-<",   # NotNot: b = time < 1; if not b
            "global-constraint", "traj-const", "max-index-2",  # InitOnMultiplexed
            "ifexpr", "time-event->=",    # WhenAtStart
            "ifeq1", "traj-lin",          # WrongRootAfterTrivialBlock
            "max-index-3", "states-change", "cond-and", "cond-or", "elseif", "der-equals-ifexpr",
            "state-event->=", "state-event-<", "start-none", "start-guess", "start-exact", "start-fixed",
            "traj-sin1", "traj-cos", "traj-exp", "ifeq3",
        }
        seen = set()
        for seed in range(300):
            seen |= gen.features(gen.generate(seed))
        self.assertEqual(need - seen, set())

    def test_filter_accepts_the_reproducers_own_models(self):
        s1, c, lin, k05 = gen.Traj("sin1"), gen.Traj("cos"), gen.Traj("lin", a=-0.95, b=-0.3), gen.Traj("const", a=0.5)
        b_ge1 = [gen.ModeVar("time", ">=", 1.0, switch_time=1.0)]
        # GroupedConsistencyAssert
        m = model_of([s1, c], [gen.Slot("ifeq", [("var", 0)], [
            [gen.Residual([D(1.0, 0), E(3.0, 0), D(-0.2, 1)]), gen.Residual([E(1.2, 1), P(-0.5, 0, 0)])],
            [gen.Residual([D(1.0, 1), E(2.0, 1)]), gen.Residual([E(1.0, 0)])]])], b_ge1,
            [("none", 0.0), ("fixed", 1.0)])
        info = gen.analyse(m)
        self.assertEqual([f["index"] for f in info["modes"]], [1, 1])
        # InitOnMultiplexed: x1 = 0.5, x2 = 1 + sin, x5 = cos; not b: index 2 (x1 the multiplier)
        m = model_of([k05, s1, c], [
            gen.Slot("eq", [], [[gen.Residual([E(1.0, 1), E(1.4, 2)])]]),
            gen.Slot("ifexpr", [("var", 0)], [[gen.Residual([E(1.0, 2)])],
                                               [gen.Residual([D(1.0, 2), E(3.4, 2)])]]),
            gen.Slot("ifexpr", [("not", ("var", 0))], [[gen.Residual([D(1.0, 1), E(2.5, 1), E(-0.93, 0)])],
                                                        [gen.Residual([E(1.0, 0)])]])], b_ge1,
            [("none", 0.0), ("fixed", 1.0), ("none", 0.0)])
        info = gen.analyse(m)
        self.assertEqual(info["modes"][0]["index"], 2)
        self.assertEqual(info["modes"][0]["dof"], 1)

    def test_filter_rejects_ill_posed_models(self):
        s1, c = gen.Traj("sin1"), gen.Traj("cos")
        b = [gen.ModeVar("time", ">=", 1.0, switch_time=1.0)]
        ok = gen.Residual([D(1.0, 1), E(2.0, 1)])

        def mode_reason(branch_b, branch_nb, trajs=(s1, c)):
            m = model_of(list(trajs), [gen.Slot("ifeq", [("var", 0)], [branch_b, branch_nb])], b)
            with self.assertRaises(gen.Rejected) as cm:
                gen.analyse(m)
            return str(cm.exception)

        # structurally singular in mode b: x2 appears nowhere
        self.assertIn("structurally singular",
                      mode_reason([gen.Residual([E(1.0, 0)]), gen.Residual([D(1.0, 0), E(1.0, 0)])],
                                  [gen.Residual([E(1.0, 0)]), ok]))
        # x2 only through a product (x1 - f1)*x2: structurally regular, numerically singular
        self.assertIn("Jacobian singular",
                      mode_reason([gen.Residual([D(1.0, 0), E(1.0, 0)]), gen.Residual([E(1.0, 0), P(1.0, 0, 1)])],
                                  [gen.Residual([E(1.0, 0)]), ok]))
        # der(x2) - f2' - 0.5*(x2 - f2): the error grows
        self.assertIn("unstable", mode_reason([gen.Residual([E(1.0, 0)]), gen.Residual([D(1.0, 1), E(-0.5, 1)])],
                                              [gen.Residual([E(1.0, 0)]), ok]))
        # x1 - f1 - 0.83*(x1 - f1)*x1 with f1 = 1.2: the other root x1 = 1/0.83 is 0.005 away
        k12 = gen.Traj("const", a=1.2)
        self.assertIn("another root", mode_reason([gen.Residual([E(1.0, 0), P(-0.83, 0, 0)]), ok],
                                                  [gen.Residual([E(1.0, 0)]), ok], trajs=(k12, c)))
        # a condition true in every visited mode: one branch only, not multimode
        m = model_of([s1, c], [gen.Slot("ifeq", [("or", ("var", 0), ("not", ("var", 0)))], [
            [gen.Residual([E(1.0, 0)]), ok], [gen.Residual([D(1.0, 0), E(1.0, 0)]), ok]])], b)
        with self.assertRaises(gen.Rejected) as cm:
            gen.analyse(m)
        self.assertIn("no if-construct", str(cm.exception))
        # an initial system with a fixed algebraic variable: not square
        # (the model starts in `not b1`, the else branch, where x1 is algebraic)
        m = model_of([s1, c], [gen.Slot("ifeq", [("var", 0)], [[gen.Residual([D(1.0, 0), E(1.0, 0)]), ok],
                                                                [gen.Residual([E(1.0, 0)]), ok]])], b,
                     [("fixed", 1.0), ("fixed", 1.0)])
        with self.assertRaises(gen.Rejected) as cm:
            gen.analyse(m)
        self.assertIn("initial system", str(cm.exception))
        m.starts = [("none", 0.0), ("fixed", 1.0)]
        gen.analyse(m)  # x2 alone fixed: regular


# ---------------------------------------------------------------------------------------------
# The campaign against this build of mdae-rimis
# ---------------------------------------------------------------------------------------------

class Campaign(unittest.TestCase):
    def test_known_failures_are_about_these_models(self):
        known = run.load_known()
        self.assertEqual(known["generator"], gen.GENERATOR_VERSION,
                         "known_failures.toml is for another generator version: re-run the campaign and rebuild it")
        self.assertEqual(known["fingerprint"], run.fingerprint(),
                         "the generator's models changed (fingerprint of seeds 0..199): the known failures "
                         "name other models; re-run the campaign and rebuild known_failures.toml")

    def campaign(self, sim: str, seed_range) -> None:
        if sim == "omc":
            try:
                if harness.find_omc() is None:
                    self.skipTest(harness.OMC_NOT_FOUND)
            except harness.HarnessError as e:
                self.fail(str(e))
        known = run.load_known()[sim]
        start = time.monotonic()
        records = run.run_campaign(list(seed_range), binary(), [sim], JOBS, os.environ.get("MDAE_KEEP_OUTPUTS"))
        elapsed = time.monotonic() - start
        print()
        print(run.table_text(records, [sim]))
        problems = run.ratchet(records, known, sim)
        listed = sum(1 for r in records if r["seed"] in known)
        print(f"  campaign {sim}: seeds {seed_range.start}..{seed_range.stop - 1}, {elapsed:.0f} s, "
              f"{listed} listed in known_failures.toml, {len(problems)} problems")
        for p in problems:
            print(f"  PROBLEM {p}")
        self.assertEqual(problems, [], f"{len(problems)} seeds are not as integration/campaign/known_failures.toml says")

    def test_campaign_rumoca(self):
        self.campaign("rumoca", seeds())

    def test_campaign_omc(self):
        self.campaign("omc", OMC_SEEDS if not os.environ.get("CAMPAIGN_SEEDS") else seeds())


if __name__ == "__main__":
    unittest.main(verbosity=2)
