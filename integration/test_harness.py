"""Tests of the harness itself: right values on a model that simulates, `failed` with the
simulator's message, `skipped` without omc, NaN classification, folder isolation, the CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

DECAY = """model Decay
  Real x(start=1, fixed=true);
  Boolean low(start=false, fixed=true);
equation
  der(x) = -x;
  low = x < 0.5;
end Decay;
"""

# rumoca 0.10.2: `DAE system is not computable` (examples.md, TwoEquations).
NOT_COMPUTABLE = """model Bad
  Real x(start=0,fixed=true);
  Boolean p(start=false,fixed=true);
equation
  p = (x >= 1);
  1 = if p then x else der(x);
end Bad;
"""


def write(tmp: str, name: str, text: str) -> Path:
    p = Path(tmp) / name
    p.write_text(text)
    return p


class RumocaBackend(unittest.TestCase):
    def test_decay_values_and_event(self):
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "Decay.mo", DECAY), "Decay", 1.0, [0.0, 0.5, 1.0],
                                   dt=0.01, rtol=1e-10, atol=1e-12)
        self.assertEqual(rec["status"], "ok", rec["message"])
        self.assertEqual(rec["simulator_version"], "0.10.2")
        x = rec["values"]["x"]
        self.assertEqual(x[0], 1.0)
        self.assertAlmostEqual(x[1], math.exp(-0.5), delta=1e-6)
        self.assertAlmostEqual(x[2], math.exp(-1.0), delta=1e-6)
        self.assertEqual(rec["values"]["low"], [0.0, 0.0, 1.0])
        ev = rec["events"]["low"]
        self.assertEqual(len(ev), 1)
        self.assertTrue(ev[0]["value"])
        self.assertAlmostEqual(ev[0]["time"], math.log(2), delta=1e-6)
        print(f"  decay: x(1) = {x[2]!r} (exp(-1) = {math.exp(-1)!r}), low on at {ev[0]['time']!r} "
              f"(ln 2 = {math.log(2)!r}), {rec['elapsed_s']} s")

    def test_bdf_stall_is_still_a_defect_of_rumoca(self):
        """rumoca_defects/BdfStall.mo: the default integrator stalls until its wall-time limit
        (the day it does not, this fails and harness.bdf_defect's stall retry can go); rk-like
        runs it to x(2) = 0.75, v = 1."""
        import rumoca

        path = HERE / "rumoca_defects" / "BdfStall.mo"
        with tempfile.TemporaryDirectory() as tmp:
            local = Path(tmp) / path.name
            local.write_text(path.read_text())
            with self.assertRaises(BaseException) as stalled:
                harness._rumoca_run(rumoca, local, "BdfStall", 2.0, 0.01, None, None, 3.0)
            self.assertIn(harness.BDF_STALL, harness._error_message(stalled.exception))
            r = harness._rumoca_run(rumoca, local, "BdfStall", 2.0, 0.01, None, None, 3.0,
                                    solver=harness.RETRY_SOLVER)
            data = r.to_dict()["data"]
            self.assertAlmostEqual(float(data["x"][-1]), 0.75, delta=1e-9)
            self.assertAlmostEqual(float(data["v"][-1]), 1.0, delta=1e-9)

    def test_a_stalled_run_is_repeated_with_the_other_integrator(self):
        rec = harness.simulate(HERE / "rumoca_defects" / "BdfStall.mo", "BdfStall", 2.0, [1.0, 2.0],
                               dt=0.01, max_wall_seconds=3.0)
        self.assertEqual(rec["status"], "ok", rec["message"])
        self.assertEqual(rec["solver_retry"]["solver"], harness.RETRY_SOLVER)
        self.assertEqual(rec["solver_retry"]["defect"], "stalled until the wall-time limit")
        self.assertAlmostEqual(rec["values"]["x"][1], 0.75, delta=1e-9)

    def test_frozen_newton_seed_is_still_a_defect_of_rumoca(self):
        """rumoca_defects/FrozenNewtonSeed.mo: rumoca lands on the block's other root (x1 =
        -1/0.54) from t = 0.947 with no event at all (the day it does not, this fails and the
        campaign's seed-refresh proof can go); with harness.seed_refresh's do-nothing event every
        0.01 s it stays on x1 = 0.21*t - 0.95, x2 = 1 + sin(t), so the proof's variant changes
        nothing of the model's values."""
        path = HERE / "rumoca_defects" / "FrozenNewtonSeed.mo"
        rec = harness.simulate(path, "FrozenNewtonSeed", 2.0, [0.5, 1.0, 2.0], dt=0.01)
        self.assertEqual(rec["status"], "ok", rec["message"])
        self.assertAlmostEqual(rec["values"]["x1"][0], 0.21 * 0.5 - 0.95, delta=1e-6)
        self.assertAlmostEqual(rec["values"]["x1"][2], -1 / 0.54, delta=1e-6, msg="the other root")
        with tempfile.TemporaryDirectory() as tmp:
            text = harness.seed_refresh(path.read_text())
            self.assertIsNotNone(text)
            rec = harness.simulate(write(tmp, "FrozenNewtonSeed.mo", text), "FrozenNewtonSeed", 2.0,
                                   [0.5, 1.0, 2.0], dt=0.01)
        self.assertEqual(rec["status"], "ok", rec["message"])
        for k, t in enumerate([0.5, 1.0, 2.0]):
            self.assertAlmostEqual(rec["values"]["x1"][k], 0.21 * t - 0.95, delta=1e-6)
            self.assertAlmostEqual(rec["values"]["x2"][k], 1 + math.sin(t), delta=1e-6)
        self.assertEqual(rec["values"]["rumoca_seed_tick"][2], 201.0, "an event every 0.01 s")

    def test_conditional_block_entered_is_still_a_defect_of_rumoca(self):
        """rumoca_defects/ConditionalBlockEntered.mo: entering its nonlinear block at the time
        event t = 1.03 from values that are a root of it, rumoca lands on the other root (x1 off
        by 1.32 at t = 1.1) and fails where that root ends, in (1.78, 1.79]; with a do-nothing
        event every 0.01 s too. The day it does not, this fails and the campaign's
        entered-control proof can go."""
        path = HERE / "rumoca_defects" / "ConditionalBlockEntered.mo"
        rec = harness.simulate(path, "ConditionalBlockEntered", 1.5, [1.0, 1.1, 1.5], dt=0.01)
        self.assertEqual(rec["status"], "ok", rec["message"])
        self.assertAlmostEqual(rec["values"]["x1"][0], 1 + math.sin(1.0), delta=1e-6, msg="right before the event")
        self.assertAlmostEqual(rec["values"]["x1"][1] - (1 + math.sin(1.1)), -1.32, delta=0.01, msg="the other root")
        rec = harness.simulate(path, "ConditionalBlockEntered", 2.0, [1.0, 2.0], dt=0.01)
        self.assertEqual(rec["status"], "failed")
        self.assertIn("algebraic projection did not establish coordinate convergence", rec["message"])
        self.assertTrue(1.75 < rec["failure_bracket"][1] < 1.8, rec["failure_bracket"])
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "ConditionalBlockEntered.mo", harness.seed_refresh(path.read_text())),
                                   "ConditionalBlockEntered", 2.0, [1.0, 2.0], dt=0.01)
        self.assertEqual(rec["status"], "failed", "not the frozen Newton seed: events do not help")

    def test_seed_refresh_needs_an_equation_section(self):
        self.assertIsNone(harness.seed_refresh("model M\n  Real x = 1;\nend M;\n"))

    def test_failure_reports_message(self):
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "Bad.mo", NOT_COMPUTABLE), "Bad", 2.0, [1.0], dt=0.01)
        self.assertEqual(rec["status"], "failed")
        self.assertIn("DAE system is not computable", rec["message"])
        self.assertIsNone(rec["time_reached"], "rumoca reports no time")
        self.assertEqual(rec["failure_bracket"], [0.0, 0.01], "fails at the start")
        self.assertEqual(rec["values"], {})

    def test_failure_bracket_in_time(self):
        # Runs while x < 1, fails once x is pinned at 1 (the WaterTank failure, at t ~ 1.065 s).
        tank = (HERE.parent / "fixtures" / "WaterTank.mo").read_text()
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "WaterTank.mo", tank), "WaterTank", 30.0, dt=0.001)
        self.assertEqual(rec["status"], "failed")
        self.assertIn("target=yh", rec["message"])
        lo, hi = rec["failure_bracket"]
        self.assertLessEqual(hi - lo, 1e-3 + 1e-12)
        self.assertTrue(1.0 < lo < 1.065 < hi < 1.07, rec["failure_bracket"])

    def test_syntax_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "S.mo", "model S\n  Real x\nend S;\n"), "S", 1.0)
        self.assertEqual(rec["status"], "failed")
        self.assertTrue(rec["message"].startswith(("ParseError", "CompileError")), rec["message"])
        self.assertIsNone(rec["failure_bracket"])

    def test_nan_is_refused_by_rumoca_itself(self):
        # rumoca 0.10.2 checks every value: sqrt of a negative number is a failure, not a result.
        src = DECAY.replace("Decay", "Neg").replace("der(x) = -x;", "der(x) = -1;") \
                   .replace("low = x < 0.5;", "low = sqrt(x) < 0.5;")
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "Neg.mo", src), "Neg", 2.0, dt=0.01)
        self.assertEqual(rec["status"], "failed")
        self.assertIn("NaN", rec["message"])

    def test_model_is_loaded_alone(self):
        # rumoca reads every .mo of the folder it loads from: a broken neighbour must not matter.
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "Broken.mo", "model Broken\n  Real x\nend Broken;\n")
            rec = harness.simulate(write(tmp, "Decay.mo", DECAY), "Decay", 1.0, [1.0])
        self.assertEqual(rec["status"], "ok", rec["message"])


class Classification(unittest.TestCase):
    """The record built from a sampled trajectory (any simulator)."""

    def base(self, stop=1.0):
        return harness._base("test", Path("m.mo"), "M", stop, 0.5, [0.0, 0.5, 1.0])

    def test_nan_values(self):
        rec = harness.build_record(self.base(), [0.0, 0.5, 1.0], {"x": [1.0, float("nan"), 2.0],
                                   "y": [0.0, 0.0, 0.0]}, {}, [0.0, 0.5, 1.0], False)
        self.assertEqual(rec["status"], "nan")
        self.assertEqual(rec["nonfinite"], ["x"])
        self.assertIn("x", rec["message"])
        text = json.dumps(rec, allow_nan=False)  # strict JSON: the NaN is written as null
        self.assertEqual(json.loads(text)["values"]["x"], [1.0, None, 2.0])

    def test_infinite_values(self):
        rec = harness.build_record(self.base(), [0.0, 1.0], {"x": [1.0, float("inf")]}, {}, [1.0], False)
        self.assertEqual(rec["status"], "nan")

    def test_a_declared_infinity_is_not_a_failure(self):
        # omc writes `inf` for a variable bound to Modelica.Constants.inf: the same infinity at
        # every sample is the model's value; one reached from finite values is still `nan`.
        inf = float("inf")
        rec = harness.build_record(self.base(), [0.0, 1.0], {"x": [1.0, 2.0], "vmax": [inf, inf]}, {},
                                   [1.0], False)
        self.assertEqual((rec["status"], rec["nonfinite"]), ("ok", []))
        rec = harness.build_record(self.base(), [0.0, 1.0], {"x": [inf, -inf]}, {}, [1.0], False)
        self.assertEqual(rec["status"], "nan")

    def test_stopped_early_is_a_failure(self):
        rec = harness.build_record(self.base(stop=2.0), [0.0, 0.5, 1.0], {"x": [0.0, 0.0, 0.0]}, {},
                                   [0.5], False)
        self.assertEqual(rec["status"], "failed")
        self.assertEqual(rec["time_reached"], 1.0)

    def test_value_at(self):
        times = [0.0, 1.0, 1.0, 2.0]  # an event at t = 1: left and right limits
        vals = [0.0, 1.0, 5.0, 6.0]
        self.assertEqual(harness.value_at(times, vals, 1.0, False), 5.0)  # right limit
        self.assertEqual(harness.value_at(times, vals, 0.5, False), 0.5)  # linear
        self.assertEqual(harness.value_at(times, vals, 0.5, True), 0.0)   # Boolean: previous sample
        self.assertEqual(harness.value_at(times, vals, 1.5, False), 5.5)
        self.assertIsNone(harness.value_at(times, vals, 3.0, False))
        self.assertEqual(harness.value_at([0.0, 0.30000000000000004], [0.0, 3.0], 0.3, False), 3.0)

    def test_declared_kinds(self):
        text = ("model M\n  Boolean bh(start=false,fixed=true);\n  Boolean a, b(start=true);\n"
                "  Integer n = if time < 1 then 1 else 2;\n  Real x; // Boolean c;\nend M;")
        self.assertEqual(harness.declared_kinds(text),
                         {"bh": "Boolean", "a": "Boolean", "b": "Boolean", "n": "Integer"})
        self.assertEqual(harness.model_names("function M.f\nend M.f;\nclass M\nend M;"), ["M"])


class OmcBackend(unittest.TestCase):
    def test_skipped_without_omc(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"PATH": tmp}, clear=False):
            os.environ.pop("OMC", None)
            rec = harness.simulate(write(tmp, "Decay.mo", DECAY), "Decay", 1.0, [1.0], simulator="omc")
        self.assertEqual(rec["status"], "skipped")
        self.assertEqual(rec["message"], "omc not found (set OMC=/path/to/omc)")
        self.assertEqual(rec["values"], {})

    def test_bad_omc_variable_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"OMC": str(Path(tmp) / "no-omc")}):
            with self.assertRaises(harness.HarnessError):
                harness.simulate(write(tmp, "Decay.mo", DECAY), "Decay", 1.0, simulator="omc")

    def test_script(self):
        mos = harness.omc_script("WaterTank.mo", "WaterTank", 30.0, 30000)
        self.assertIn('loadFile("WaterTank.mo")', mos)
        self.assertIn("simulate(WaterTank, startTime=0.0, stopTime=30.0, numberOfIntervals=30000", mos)
        self.assertIn('outputFormat="csv"', mos)

    def test_parse_record_text(self):
        # The layout of omc's SimulationResult record as a .mos run prints it (a format sample
        # for the parser, not the output of an omc run).
        out = ('true\n""\nrecord SimulationResult\n    resultFile = "",\n'
               '    simulationOptions = "startTime = 0.0, stopTime = 2.0",\n'
               '    messages = "Simulation execution failed for model: M\nLOG_STDOUT | warning | '
               'Integrator failed at time 1.0000000001. \\"quoted\\"\n",\n'
               '    timeFrontend = 0.01\nend SimulationResult;\n"Warning: something\n"\n')
        p = harness.parse_omc_output(out)
        self.assertEqual(p["resultFile"], "")
        self.assertIn('Integrator failed at time 1.0000000001. "quoted"', p["messages"])
        self.assertIn("Warning: something", p["other"])
        self.assertAlmostEqual(harness.omc_time_reached(p["messages"]), 1.0000000001)

    def test_csv(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = write(tmp, "M_res.csv", '"time","x","b",\n0,1,0,\n0.5,nan,1,\n1,2,1,\n')
            times, data = harness.read_omc_csv(p)
        self.assertEqual(times, [0.0, 0.5, 1.0])
        self.assertTrue(math.isnan(data["x"][1]))
        self.assertEqual(data["b"], [0.0, 1.0, 1.0])

    def omc_or_skip(self):
        """Skips the test, saying so, where omc is not at hand; fails on a bad `OMC`."""
        try:
            omc = harness.find_omc()
        except harness.HarnessError as e:
            self.fail(str(e))
        if omc is None:
            print("  skipped: omc not found (set OMC=/path/to/omc)")
            self.skipTest("omc not found (set OMC=/path/to/omc)")

    def test_decay_in_omc(self):
        self.omc_or_skip()
        with tempfile.TemporaryDirectory() as tmp:
            rec = harness.simulate(write(tmp, "Decay.mo", DECAY), "Decay", 1.0, [1.0], simulator="omc",
                                   dt=0.01, tolerance=1e-10)
        self.assertEqual(rec["status"], "ok", rec["message"])
        self.assertAlmostEqual(rec["values"]["x"][0], math.exp(-1.0), delta=1e-6)
        self.assertAlmostEqual(rec["events"]["low"][0]["time"], math.log(2), delta=0.011)

    def test_constant_linear_system_drops_reinit_is_still_a_defect_of_omc(self):
        """omc_defects/ConstantLinearSystemDropsReinit.mo: omc's constantLinearSystem loses the
        reinit of x1_1 at t = 1.31 (x1_1 runs on from 1.03, its derivative then ~2.4); with the
        option every mdae-rimis output that calls reinit carries (rimis/vendor.rs) x1_1 starts
        again from 5. The day omc keeps the reinit, the first half fails and the option can go."""
        self.omc_or_skip()
        path = HERE / "omc_defects" / "ConstantLinearSystemDropsReinit.mo"
        name = "ConstantLinearSystemDropsReinit"
        option = '  annotation(__OpenModelica_commandLineOptions = "--postOptModules-=constantLinearSystem");\n'
        with tempfile.TemporaryDirectory() as tmp:
            plain = harness.simulate(write(tmp, f"{name}.mo", path.read_text()), name, 1.4, [1.3, 1.4],
                                     simulator="omc", dt=0.01)
        with tempfile.TemporaryDirectory() as tmp:
            text = path.read_text().replace(f"end {name};", option + f"end {name};")
            fixed = harness.simulate(write(tmp, f"{name}.mo", text), name, 1.4, [1.3, 1.4], simulator="omc",
                                     dt=0.01)
        for rec in (plain, fixed):
            self.assertEqual(rec["status"], "ok", rec["message"])
            self.assertAlmostEqual(rec["values"]["x1_1"][0], 1.03, delta=1e-9, msg="held before t = 1.31")
        self.assertLess(plain["values"]["x1_1"][1], 2.0, "omc lost the reinit (its defect)")
        self.assertGreater(fixed["values"]["x1_1"][1], 4.0, "re-initialised to 5 with the option")


class ProcessGroup(unittest.TestCase):
    def test_a_timed_out_run_ends_with_everything_it_started(self):
        # A child that outlives its parent (as omc's simulation executable did): after the
        # timeout, nothing of the group is left running (issue 30, point 6).
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = Path(tmp) / "child.pid"
            cmd = ["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"]
            with self.assertRaises(subprocess.TimeoutExpired):
                harness.run_group(cmd, 0.5)
            child = int(pid_file.read_text())
        time.sleep(0.1)
        self.assertFalse(Path(f"/proc/{child}").exists() and "Z" not in
                         Path(f"/proc/{child}/stat").read_text().split()[2], f"pid {child} still running")

    def test_a_finished_run_returns_its_output(self):
        proc = harness.run_group(["sh", "-c", "echo out; echo err >&2; exit 3"], 10)
        self.assertEqual((proc.returncode, proc.stdout, proc.stderr), (3, "out\n", "err\n"))


class Cli(unittest.TestCase):
    def test_json_on_stdout(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = write(tmp, "Decay.mo", DECAY)
            out = subprocess.run([sys.executable, str(HERE / "harness.py"), str(p), "Decay", "1",
                                  "--at", "0.5", "1", "--dt", "0.01"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        rec = json.loads(out.stdout)
        self.assertEqual(rec["status"], "ok")
        self.assertEqual(rec["output_times"], [0.5, 1.0])
        self.assertAlmostEqual(rec["values"]["x"][1], math.exp(-1.0), delta=1e-6)

    def test_missing_file(self):
        out = subprocess.run([sys.executable, str(HERE / "harness.py"), "/nonexistent.mo", "M", "1"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("no such file", out.stderr)


if __name__ == "__main__":
    unittest.main()
