"""The exact-solution campaign in the suite (issue 29 point 3): the generator and its well-posedness
filter on their own, then a fixed seed range rewritten by mdae-rimis, simulated in rumoca and
compared with the exact solution (campaign_run.py). A seed must be `pass`, `unchanged-both-fail` or
a `simulator-limit` its per-mode control proves (a control that fails or is wrong in rumoca where
the output does) unless integration/campaign/known_failures.toml lists it with its class; a listed
seed that is now accepted, or whose class changed, fails the test too (a ratchet: the list only
shrinks as fixes land). The per-mode controls are tested on their own (Controls).

    CAMPAIGN_SEEDS=10000 .venv/bin/python integration/run_tests.py   # the long campaign: seeds 0..9999
With omc (OMC set, or omc on PATH) the first OMC_SEEDS seeds also run in omc ([omc] of the list).
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
# The per-mode controls (campaign_gen.control, campaign_run.run_control)
# ---------------------------------------------------------------------------------------------

# Seeds whose every visited mode's control passes in rumoca 0.10.2 (measured): modes from t = 0 and
# from later switch times, index 0..2, with and without differentiated equations.
CONTROLS_PASS = (1, 5, 9, 12, 13)


class Controls(unittest.TestCase):
    def test_control_is_the_mode_alone_from_exact_starts(self):
        """Without a simulator: the control's equations are the mode's (each vanishes on the exact
        solution, no if, no Boolean), every start is the exact value at t0, DOF values are fixed and
        the initial system with them is regular."""
        checked = 0
        for seed in range(0, 60):
            m = gen.generate(seed)
            for k, (assign, t0, t1) in enumerate(m.modes):
                c = gen.control(m, k)
                self.assertEqual((c.t0, c.t1), (t0, t1))
                body = c.text[c.text.index("\nmodel "):]
                self.assertNotRegex(body, r"\b(if|Boolean|b\d)\b", f"seed {seed} mode {k + 1}")
                starts = [float(v) for v in re.findall(r"start = ([-0-9.e]+)", c.text)]
                self.assertEqual(len(starts), m.n)
                for j, v in enumerate(starts):
                    self.assertAlmostEqual(v, m.trajs[j].value(t0), delta=1e-10)
                eqs = [ln.strip().rstrip(";") for ln in body.split("\nequation\n", 1)[1].splitlines()
                       if "=" in ln and "annotation" not in ln]
                self.assertEqual(len(eqs), m.n)
                for t in (t0, (t0 + t1) / 2, t1):
                    x = [None] + [tr.value(t) for tr in m.trajs]
                    dx = [None] + [tr.value(t, 1) for tr in m.trajs]
                    for e in eqs:
                        lhs, rhs = e.split(" = ", 1)
                        v = eval(f"({to_python(lhs)}) - ({to_python(rhs)})", dict(ENV), {"x": x, "dx": dx, "t": t})
                        self.assertAlmostEqual(v, 0.0, delta=1e-9, msg=f"seed {seed} mode {k + 1}: {e}")
                res = m.residuals(assign)
                info = m.info["modes"][k]
                self.assertEqual(len(c.fixed), info["dof"])
                init = body.split("initial equation")[1].split("\nequation")[0] if "initial equation" in body else ""
                self.assertEqual(body.count("fixed = true") + init.count("der(x"), info["dof"])
                cols = [(j, l) for j in range(m.n) for l in range(info["d"][j] + 1)]
                jac = gen.initial_jacobian(res, info["c"], info["d"], [], t0, m.trajs)
                jac += [[1.0 if col == f else 0.0 for col in cols] for f in c.fixed]
                self.assertEqual(len(jac), len(cols))
                self.assertGreaterEqual(gen.scaled_det(jac), gen.CONTROL_JAC_MIN)
                self.assertEqual(c.differentiated, max(info["c"]) > 0)
                checked += 1
        print(f"\n  {checked} controls")

    def test_no_control_when_the_mode_is_not_well_posed_all_along(self):
        """A control proves nothing of a mode that is singular between the filter's 7 times (0, 0.1,
        0.3, ..., 0.9 and 1 on [0, 1)): a hand-made mode the filter accepts, whose Jacobian is
        singular at t = 0.4 only, is refused on the control's finer grid."""
        lin = gen.Traj("lin", a=-1.0, b=2.5)   # f1 = -1 + 2.5*time crosses 0 at t = 0.4
        s1 = gen.Traj("sin1")
        # mode not b1: der(x1) = f1' - (x1 - f1), 0 = (x1 - f1) + (x2 - f2)*x1: the x2 column of the
        # Jacobian is x1 = f1, zero at 0.4 and at least 0.25 at the filter's times
        b = [gen.ModeVar("time", ">=", 1.0, switch_time=1.0)]
        m = model_of([lin, s1], [gen.Slot("ifeq", [("var", 0)], [
            [gen.Residual([E(1.0, 0)]), gen.Residual([D(1.0, 1), E(2.0, 1)])],
            [gen.Residual([D(1.0, 0), E(1.0, 0)]), gen.Residual([E(1.0, 0), P(1.0, 1, 0)])]])], b,
            [("fixed", -1.0), ("none", 0.0)])
        self.assertEqual((gen.assign_text(m.modes[0][0]), m.modes[0][1:]), ("[not b1]", (0.0, 1.0)))
        gen.analyse(m)  # the filter accepts it
        with self.assertRaises(gen.NoControl) as cm:
            gen.control(m, 0)
        self.assertIn("not well-posed", str(cm.exception))

    def test_rumoca_starts_time_at_start_time(self):
        """The controls run from a mode's t0 > 0 with `time` unshifted: rumoca 0.10.2 starts time
        there (simulate(t=(t0, t1))), in the initial system too."""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "StartTime.mo"
            path.write_text("model StartTime\n  Real x(start = 0);\n  Real y;\ninitial equation\n"
                            "  x = 1 + sin(time);\nequation\n  der(x) = cos(time);\n  y = time;\nend StartTime;\n")
            rec = harness.simulate(path, "StartTime", 1.5, [1.0, 1.5], simulator="rumoca", dt=0.01, start_time=1.0)
        self.assertEqual(rec["status"], "ok", rec["message"])
        self.assertAlmostEqual(rec["values"]["y"][0], 1.0, delta=1e-9)
        for k, t in enumerate((1.0, 1.5)):
            self.assertAlmostEqual(rec["values"]["x"][k], 1 + math.sin(t), delta=1e-4)

    def test_controls_compile_and_pass_where_rumoca_is_fine(self):
        with tempfile.TemporaryDirectory() as tmp:
            for seed in CONTROLS_PASS + (7, 20):
                m = gen.generate(seed)
                for k in range(len(m.modes)):
                    c = run.run_control(m, k, Path(tmp))
                    self.assertNotIn(c["status"], ("refused", "no-control", "incomplete"), f"seed {seed}: {c}")
                    if seed in CONTROLS_PASS:
                        self.assertEqual(c["status"], "pass", f"seed {seed} mode {k + 1}: {run.control_text(c)}")
        self.assertTrue(any(t0 > 0 for s in CONTROLS_PASS for _, t0, _ in gen.generate(s).modes))

    def test_control_can_fail(self):
        """Seed 3919's mode `not b1`: 0 = e1 - 0.95*e1*x1 (e1 = x1 - f1), regular along f1, and rumoca
        0.10.2 jumps near t = 0.4 to the other root x1 = 1/0.95."""
        m = gen.generate(3919)
        self.assertEqual(gen.assign_text(m.modes[0][0]), "[not b1, not b2]")
        with tempfile.TemporaryDirectory() as tmp:
            c = run.run_control(m, 0, Path(tmp))
        self.assertEqual(c["status"], "wrong", run.control_text(c))
        self.assertIs(c["differentiated"], False)
        self.assertEqual(c["first"]["var"], "x1")
        self.assertAlmostEqual(c["first"]["value"], 1 / 0.95, delta=1e-3)
        self.assertTrue(0.2 <= c["first"]["time"] <= 0.6, c["first"])

    def test_high_index_controls_prove_nothing(self):
        """Seed 6235's mode 2 (index 3) is structurally singular for rumoca 0.10.2 as a plain model,
        while the output, index-reduced by mdae-rimis, fails on its own consistency check."""
        m = gen.generate(6235)
        with tempfile.TemporaryDirectory() as tmp:
            c = run.run_control(m, 1, Path(tmp))
        self.assertEqual(c["status"], "failed")
        self.assertIs(c["differentiated"], True)
        c["explains"] = "in the same window"
        self.assertFalse(run.proves(c))

    def test_a_differentiated_control_proves_only_with_the_same_wrong_values(self):
        """A control of a mode that needs an equation differentiated proves a simulator limit only
        when it runs and is wrong with the output's own wrong values; its failure, or a wrong run
        merely in the same window, proves nothing (the control is not index-reduced)."""
        same = f"{run.SAME_VALUES} at t = 1.1"
        self.assertTrue(run.proves({"status": "wrong", "differentiated": True, "explains": same}))
        self.assertFalse(run.proves({"status": "failed", "differentiated": True, "explains": same}))
        self.assertFalse(run.proves({"status": "wrong", "differentiated": True, "explains": "in the same window"}))
        self.assertTrue(run.proves({"status": "wrong", "differentiated": False, "explains": "in the same window"}))
        self.assertFalse(run.proves({"status": "wrong", "differentiated": True, "explains": None}))

    def test_seed_refresh_proves_only_a_right_output(self):
        """Seed 7480's output is wrong in rumoca 0.10.2 (its guarded nonlinear block finds the other
        root before the time event at t = 1: rumoca_defects/FrozenNewtonSeed.mo) and right with a
        do-nothing event every 0.01 s: simulator-limit. The same output with one coefficient
        changed is wrong with the events too, and stays wrong."""
        m = gen.generate(7480)
        with tempfile.TemporaryDirectory() as tmp:
            src, out = Path(tmp) / f"{m.name}.mo", Path(tmp) / "out" / f"{m.name}.mo"
            src.write_text(m.text())
            out.parent.mkdir()
            text = subprocess.run([binary(), str(src)], capture_output=True, text=True, check=True).stdout
            out.write_text(text)
            plain = harness.simulate(out, m.name, gen.STOP_TIME, run.TIMES, dt=run.DT, **run.opts("rumoca"))
            self.assertIsNotNone(run.compare(m, plain), "rumoca 0.10.2 still runs the output wrong")
            r = {"class": "wrong", "detail": "off"}
            run.apply_seed_refresh(m, r, out, Path(tmp))
            self.assertEqual(r["class"], "simulator-limit", r)
            self.assertTrue(run.proven(r))
            self.assertIn("do-nothing event", run.group_message(r))
            self.assertIn("x1_p_1 = 0.21 - 1.46", text)
            out.write_text(text.replace("x1_p_1 = 0.21 - 1.46", "x1_p_1 = 0.25 - 1.46"))
            r = {"class": "wrong", "detail": "off"}
            run.apply_seed_refresh(m, r, out, Path(tmp))
            self.assertEqual(r["class"], "wrong", r)
            self.assertEqual(r["seed_refresh"]["status"], "ok")
            self.assertFalse(run.proven(r))

    def test_a_control_wrong_under_an_if_proves_a_passing_mode(self):
        """Seed 2685's mode [b1, b2] (two nonlinear equations and x3' = …): its control passes in
        rumoca 0.10.2, and the same equations under `if time < 1e9` (as the output writes its
        blocks) go to the other root of the block at t ≈ 0.65 (rumoca_defects/FrozenNewtonSeed.mo):
        the output's failure is rumoca's. A control that passes under the `if` too proves nothing,
        nor does a mode whose control needs an equation differentiated."""
        m = gen.generate(2685)
        self.assertEqual(gen.assign_text(m.modes[1][0]), "[b1, b2]")
        with tempfile.TemporaryDirectory() as tmp:
            plain = run.run_control(m, 1, Path(tmp))
            self.assertEqual(plain["status"], "pass", run.control_text(plain))
            self.assertIs(plain["differentiated"], False)
            r = {"class": "sim-fails", "detail": "projection", "control": {"modes": [plain]}}
            run.apply_wrapped_controls(m, r, Path(tmp))
            self.assertEqual(r["class"], "simulator-limit", r)
            self.assertEqual(r["wrapped_control"]["status"], "wrong")
            self.assertTrue(run.proven(r))
            self.assertIn("under an `if`", run.group_message(r))
            # seed 4113: every mode's control passes under the `if` too: no proof (the entered
            # control proves it: test_a_control_wrong_where_it_is_entered_proves_a_passing_mode).
            m = gen.generate(4113)
            modes = [run.run_control(m, k, Path(tmp)) for k in range(len(m.modes))]
            r = {"class": "sim-fails", "detail": "projection", "control": {"modes": modes}}
            run.apply_wrapped_controls(m, r, Path(tmp))
            self.assertEqual(r["class"], "sim-fails", r)
            self.assertFalse(run.proven(r))
            r = {"class": "sim-fails", "detail": "x", "control": {"modes": [{**plain, "differentiated": True}]}}
            run.apply_wrapped_controls(gen.generate(2685), r, Path(tmp))
            self.assertEqual(r["class"], "sim-fails")
        text = run.under_if("model M\n  Real x;\nequation\n  x = time;\n  annotation(experiment(StopTime = 2));\nend M;\n")
        self.assertIn("  if time < 1e9 then\n  x = time;\n  else\n  x = time;\n  end if;\n", text)

    def test_a_control_wrong_where_it_is_entered_proves_a_passing_mode(self):
        """Seed 4113's algebraic modes 3 and 4: their controls pass in rumoca 0.10.2, and the same
        equations entered at their first instant from the exact solution (one if-equation on a
        time event) land on the other root of the block (rumoca_defects/ConditionalBlockEntered.mo):
        the output's failure at t = 1.79 is rumoca's. A mode with states, or the first mode, is
        not entered (no proof), and a control that fails to begin with proves nothing here."""
        m = gen.generate(4113)
        with tempfile.TemporaryDirectory() as tmp:
            modes = [run.run_control(m, k, Path(tmp)) for k in range(len(m.modes))]
            self.assertEqual([c["status"] for c in modes], ["pass"] * 4)
            r = {"class": "sim-fails", "detail": "projection", "control": {"modes": modes}}
            run.apply_entered_controls(m, r, Path(tmp))
            self.assertEqual(r["class"], "simulator-limit", r)
            self.assertEqual((r["entered_control"]["k"], r["entered_control"]["status"]), (3, "wrong"))
            self.assertTrue(run.proven(r))
            self.assertIn("entered at its first instant", run.group_message(r))
            self.assertEqual(run.run_control(m, 0, Path(tmp), entered=True)["status"], "no-control", "the first mode")
            m2 = gen.generate(2685)
            self.assertEqual(run.run_control(m2, 1, Path(tmp), entered=True)["status"], "no-control", "a mode with states")
            r = {"class": "sim-fails", "detail": "x", "control": {"modes": [{**modes[2], "status": "failed"}]}}
            run.apply_entered_controls(m, r, Path(tmp))
            self.assertEqual(r["class"], "sim-fails")
            self.assertFalse(run.proven(r))
        text = run.entered_at("model M\n  Real x1(start = 1, fixed = true);\nequation\n  0 = x1 - 1 - sin(time);\n"
                              "  annotation(experiment(StartTime = 0.5, StopTime = 2));\nend M;\n", 0.5, m)
        self.assertIn("  if time >= 0.5 then\n    0 = x1 - 1 - sin(time);\n  else\n    x1 = 1 + sin(time);\n", text)
        self.assertNotIn("fixed", text)
        self.assertIn("annotation(experiment(StopTime = 2));", text)
        self.assertIsNone(run.entered_at("model M\n  Real x;\nequation\n  der(x) = 1;\n  annotation(experiment(StopTime = 2));\nend M;\n", 0.5, m))

    def test_explains_needs_the_same_trouble(self):
        m = gen.generate(3919)
        wrong_vals = {"x1": [1 / 0.95], "x2": [-1.82 / (1 - 0.58 * (1 / 0.95 - m.trajs[0].value(0.6)))]}
        ctl = {"status": "wrong", "differentiated": False, "times": [0.6], "values": wrong_vals,
               "trouble": {"good": 0.3, "bad": 0.4, "off": True}}
        # the output off in the same window
        out = {"trouble": {"good": 0.3, "bad": 0.4, "off": True}, "values": {}}
        self.assertEqual(run.explains(m, ctl, out), "in the same window")
        # right at 0.4 and 0.5, off at 0.6 with other values: it got past rumoca's failure
        vals = {n: [None] * len(run.TIMES) for n in ("x1", "x2")}
        vals["x1"][6], vals["x2"][6] = 5.0, 5.0
        out = {"trouble": {"good": 0.5, "bad": 0.6, "off": True}, "values": vals}
        self.assertIsNone(run.explains(m, ctl, out))
        # ... off at 0.6 with the control's wrong values: the same failure
        vals["x1"][6], vals["x2"][6] = wrong_vals["x1"][0], wrong_vals["x2"][0]
        self.assertIn("wrong values", run.explains(m, ctl, out))
        # two failures in the same window: only with the same message
        ctl = {"status": "failed", "differentiated": False, "message": "SimulationError: A at t=1",
               "trouble": {"good": None, "bad": 0.01, "off": False}}
        out = {"trouble": {"good": None, "bad": 0.01, "off": False}, "message": "SimulationError: A at t=2"}
        self.assertEqual(run.explains(m, ctl, out), "in the same window")
        out["message"] = "SimulationError: B"
        self.assertIsNone(run.explains(m, ctl, out))
        # a failure not located (a timeout) is explained by nothing
        out = {"trouble": {"good": None, "bad": None, "off": False}, "message": "SimulationError: A"}
        self.assertIsNone(run.explains(m, ctl, out))


class Ratchet(unittest.TestCase):
    """campaign_run.ratchet on hand-made records (no simulator)."""

    def rec(self, seed, cls, control=None, **extra):
        s = {"class": cls, "detail": f"{cls} detail", **extra}
        if control is not None:
            s["control"] = control
        return {"seed": seed, "sims": {"rumoca": s}}

    PROOF = {"modes": [], "proof": {"status": "wrong", "differentiated": False, "explains": "in the same window"}}

    def test_simulator_limit_accepted_only_with_its_proof(self):
        recs = [self.rec(1, "simulator-limit", self.PROOF, output_class="wrong"),
                self.rec(2, "simulator-limit", {"modes": [], "proof": None}),
                self.rec(3, "simulator-limit"),  # no control record at all
                self.rec(4, "simulator-limit", {"modes": [], "proof": {**self.PROOF["proof"], "differentiated": True}}),
                self.rec(5, "simulator-limit", {"modes": [], "proof": {**self.PROOF["proof"], "status": "timeout"}}),
                self.rec(6, "simulator-limit", {"modes": [], "proof": {**self.PROOF["proof"], "explains": None}})]
        problems = run.ratchet(recs, {}, "rumoca")
        self.assertEqual([p.split(":")[0] for p in problems], [f"seed {s}" for s in (2, 3, 4, 5, 6)])
        self.assertTrue(all("without a failing control" in p for p in problems))
        # listed as anything, an unproven simulator-limit is still a problem
        self.assertEqual(len(run.ratchet(recs[1:2], {2: {"class": "simulator-limit"}}, "rumoca")), 1)

    def test_listed_seed_now_simulator_limit_or_back(self):
        # a listed sim-fails that is now a proven simulator-limit: shrink the list
        p = run.ratchet([self.rec(112, "simulator-limit", self.PROOF)], {112: {"class": "sim-fails"}}, "rumoca")
        self.assertEqual(len(p), 1)
        self.assertIn("remove the entry", p[0])
        # controls that all pass: the seed stays sim-fails, as listed
        ok = {"modes": [{"status": "pass"}], "proof": None}
        self.assertEqual(run.ratchet([self.rec(112, "sim-fails", ok)], {112: {"class": "sim-fails"}}, "rumoca"), [])
        self.assertEqual(len(run.ratchet([self.rec(112, "sim-fails", ok)], {}, "rumoca")), 1)
        self.assertEqual(len(run.ratchet([self.rec(112, "wrong", ok)], {112: {"class": "sim-fails"}}, "rumoca")), 1)

    def test_old_records_without_controls(self):
        """--from-json of runs made before the controls: summaries and the ratchet as before."""
        recs = [self.rec(1, "pass"), self.rec(2, "sim-fails"), self.rec(3, "wrong", kind="drift"),
                self.rec(4, "unchanged-both-fail")]
        text = run.table_text(recs, ["rumoca"])
        self.assertIn("sim-fails", text)
        self.assertIn("counted apart: unchanged-both-fail 1, simulator-limit 0", text)
        self.assertEqual(len(run.ratchet(recs, {2: {"class": "sim-fails"}, 3: {"class": "wrong"}}, "rumoca")), 0)
        self.assertIn("2 = {", run.known_draft(recs, ["rumoca"]))


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
