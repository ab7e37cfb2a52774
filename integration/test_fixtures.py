"""The fixtures' simulation expectations (fixtures/*.sim.toml), in every available simulator:

- original: every form of the fixture (hand-written and omc-flattened) fails, documenting the bug
  mdae-rimis fixes; if a simulator one day runs it, a NOTICE is printed instead of a failure;
- reference: the hand-made output (integration/reference/) simulates and passes every check,
  which proves the checks can pass;
- output: `mdae-rimis FORM` simulates to the stop time and passes the checks. Skipped, with
  `skipped: mdae-rimis does not transform yet`, while its output is the canonical reprint.

One test method per case, part and simulator (generated from the sidecars). Every run appends a
row to cases.ROWS, printed as a table by run_tests.py.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import harness  # noqa: E402

ROOT = cases.ROOT
SIMS = ("rumoca", "omc")
NOT_TRANSFORMING = "mdae-rimis does not transform yet"


def rel(p: Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def row(case, part, form, sim, rec_or_status, message=""):
    if isinstance(rec_or_status, dict):
        status = rec_or_status["status"]
        message = harness_message(rec_or_status)
    else:
        status = rec_or_status
    cases.ROWS.append((case.model, part, form, sim, status, message))
    run = cases.RUNS.setdefault((case.model, part, form, sim), {})
    run.update(status=status, message=message)
    if isinstance(rec_or_status, dict):
        run.update(version=rec_or_status.get("simulator_version"), omc_times=rec_or_status.get("omc_times"))


def harness_message(rec: dict) -> str:
    """One line: where the run stopped (when known), then the simulator's first message line."""
    where = ""
    if rec.get("time_reached") is not None:
        where = f"[time reached {rec['time_reached']:.6g}] "
    elif rec.get("failure_bracket"):
        lo, hi = rec["failure_bracket"]
        where = f"[fails in t = {lo:.4f}..{hi:.4f}, harness bisection] "
    return where + cases.first_line(rec.get("message"))


def omc_or_skip(test: unittest.TestCase, case, part, paths: list[Path]) -> None:
    try:
        found = harness.find_omc()
    except harness.HarnessError as e:
        test.fail(str(e))
    if found is None:
        print(f"  skipped: {harness.OMC_NOT_FOUND}")
        for p in paths:
            row(case, part, rel(p), "omc", "skipped", harness.OMC_NOT_FOUND)
        test.skipTest(harness.OMC_NOT_FOUND)


def run_sim(case, path: Path, model: str, sim: str) -> dict:
    # omc gets a solver tolerance that fits the checks (its default, 1e-6, is the size of
    # the tightest checks); rumoca keeps its own defaults, which the sidecars were written for.
    options = {"tolerance": case.solver_tolerance()} if sim == "omc" else {}
    rec = harness.simulate(path, model, case.stop_time, case.output_times(), simulator=sim,
                           dt=case.dt, trajectory=True, **options)
    if rec.get("solver_retry"):
        r = rec["solver_retry"]
        print(f"  NOTE: rumoca's default (BDF) integrator {r['defect']} on {rel(path)} "
              f"({cases.first_line(r['default_message'])[:120]}); re-run with its {r['solver']} integrator "
              f"(harness.bdf_defect)")
    return rec


def stop_bracket(case, path: Path, model: str, sim: str, lo: float, hi: float) -> list[float] | None:
    """[lo, hi] if a run that failed without saying when (omc's "too many, i.e. 20, event
    iterations" names no time) reaches `lo` and fails by `hi` (two more runs), else None."""
    options = {"tolerance": case.solver_tolerance()} if sim == "omc" else {}
    reach = lambda stop: harness.simulate(path, model, stop, [], simulator=sim, dt=case.dt, **options)["status"]
    if reach(lo) == "ok" and reach(hi) == "failed":
        print(f"  (the run names no time of its failure: it reaches t = {lo:g} and fails by t = {hi:g})")
        return [lo, hi]
    return None


# ---------------------------------------------------------------------------------------------
# The binary
# ---------------------------------------------------------------------------------------------


def binary() -> list[str]:
    """$MDAE_RIMIS_BIN (tests/simulation.rs sets it to cargo's build), else `cargo run`."""
    b = os.environ.get("MDAE_RIMIS_BIN")
    if b:
        return [b]
    return ["cargo", "run", "--quiet", "--profile", "ci", "--manifest-path", str(ROOT / "Cargo.toml"), "--"]


def run_binary(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(binary() + args, capture_output=True, text=True, timeout=600)


def choose_model(text: str, wanted: str) -> str | None:
    names = harness.model_names(text)
    for n in (wanted, wanted + "_rimis"):
        if n in names:
            return n
    return names[-1] if names else None


# ---------------------------------------------------------------------------------------------
# The three parts
# ---------------------------------------------------------------------------------------------


def check_original(test, case, sim):
    if sim == "omc":
        omc_or_skip(test, case, "original", case.forms)
    for form in case.forms:
        rec = run_sim(case, form, case.model, sim)
        row(case, "original", rel(form), sim, rec)
        if rec["status"] in ("failed", "nan"):
            load = rec["message"].startswith(("ParseError", "CompileError"))
            what = "does not even load (not the multimode failure)" if load else "fails as expected"
            print(f"  {what}: {sim} {rel(form)}: {harness_message(rec)}")
        elif case.original_expect == "fails":
            print(f"  NOTICE: {sim} now simulates the original {rel(form)} ({rec['status']}); "
                  f"expected it to fail ({case.original_note}). Its checks, for information:")
            for line in cases.judge(case, rec, f"{sim} {rel(form)}").lines:
                print("    " + line.strip())
        else:
            v = cases.judge(case, rec, f"{sim} {rel(form)}")
            print("\n".join(v.lines))
            test.assertFalse(v.failures, "\n".join(v.failures))


def check_reference(test, case, sim):
    label = f"{sim} {rel(case.reference)}"
    if sim == "omc":
        omc_or_skip(test, case, "reference", [case.reference])
    rec = run_sim(case, case.reference, case.reference_model, sim)
    row(case, "reference", rel(case.reference), sim, rec)
    test.assertEqual(rec["status"], "ok", f"{label}: {rec['message']}")
    print(f"  simulates: {label} to t = {case.stop_time:g} in {rec['elapsed_s']} s")
    v = cases.judge(case, rec, label)
    print("\n".join(v.lines))
    test.assertFalse(v.failures, "\n".join(v.failures))
    test.assertGreater(v.passed, 0)


def checks_before_stop(case, text: str, model: str, sim: str, lo: float, label: str) -> list[str]:
    """The checks of an output that must stop in [lo, hi], judged on a run of it to `lo` (a
    stopped run has no values): the sidecar puts them all at or before `lo`."""
    early = dataclasses.replace(case, stop_time=lo)
    with tempfile.TemporaryDirectory(prefix="mdae-out-") as tmp:
        path = Path(tmp) / f"{model}.mo"
        path.write_text(text)
        rec = run_sim(early, path, model, sim)
    if rec["status"] != "ok":
        print(f"  FAIL {label}: the run to t = {lo:g}, before its stop, {rec['status']}: {harness_message(rec)}")
        return [f"{label}: the run to t = {lo:g} {rec['status']}: {rec['message']}"]
    v = cases.judge(early, rec, f"{label} (to t = {lo:g})")
    print("\n".join(v.lines))
    return v.failures


def stops_as_designed(case, message: str) -> bool:
    """Whether `message` has one of the texts the output must stop with."""
    return any(text in message for text in case.output_stops_with)


def check_output(test, case, sim):
    if sim == "omc":
        omc_or_skip(test, case, "output", case.forms)
    failures, transformed = [], 0
    for form in case.forms:
        label = f"{sim} {Path(binary()[0]).name if os.environ.get('MDAE_RIMIS_BIN') else 'mdae-rimis'} {rel(form)}"
        out = run_binary([str(form)])
        if out.returncode == 1 and case.output_may_reject and out.stderr.strip():
            print(f"  REJECTED (accepted: {case.output_may_reject}): {label}: {cases.first_line(out.stderr)}")
            row(case, "output", rel(form), sim, "rejected", cases.first_line(out.stderr))
            transformed += 1
            continue
        test.assertEqual(out.returncode, 0, f"{label}: exit {out.returncode}\n{out.stderr}")
        canonical = run_binary(["--emit", "canonical", str(form)])
        if canonical.returncode == 0 and canonical.stdout == out.stdout:
            print(f"  skipped: {NOT_TRANSFORMING} ({label} prints the canonical reprint of its input)")
            row(case, "output", rel(form), sim, "skipped", NOT_TRANSFORMING)
            continue
        transformed += 1
        model = choose_model(out.stdout, case.model)
        test.assertIsNotNone(model, f"{label}: no model in the output")
        with tempfile.TemporaryDirectory(prefix="mdae-out-") as tmp:
            path = Path(tmp) / f"{model}.mo"
            path.write_text(out.stdout)
            rec = run_sim(case, path, model, sim)
            if (case.output_stops_with and rec["status"] == "failed" and not rec.get("failure_bracket")
                    and rec.get("time_reached") is None and stops_as_designed(case, rec.get("message") or "")):
                lo, hi = case.output_stops_between or (0.0, case.stop_time)
                rec["failure_bracket"] = stop_bracket(case, path, model, sim, lo, hi)
            if rec["status"] != "ok" and os.environ.get("MDAE_KEEP_OUTPUTS"):
                keep = Path(os.environ["MDAE_KEEP_OUTPUTS"]) / f"{case.model}-{form.parent.name}.mo"
                keep.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, keep)
        row(case, "output", rel(form), sim, rec)
        if case.output_stops_with:
            # The output must stop, with this message, inside the interval (never run on).
            msg = rec.get("message") or ""
            lo, hi = case.output_stops_between or (0.0, case.stop_time)
            bracket = rec.get("failure_bracket") or ([rec["time_reached"]] * 2 if rec.get("time_reached") is not None else None)
            where_ok = bracket is not None and lo <= bracket[0] and bracket[1] <= hi
            stops = rec["status"] == "failed" and stops_as_designed(case, msg) and where_ok
            cases.RUNS[(case.model, "output", rel(form), sim)]["checks"] = (
                f"stops at its assert in [{lo}, {hi}] as designed" if stops else "FAIL: does not stop as designed")
            if stops:
                print(f"  PASS {label}: stops in [{bracket[0]:.4f}, {bracket[1]:.4f}] with `{' | '.join(case.output_stops_with)}`")
                if case.checks:
                    # What comes before the stop is checked too, on a run to the interval's start.
                    failures.extend(checks_before_stop(case, out.stdout, model, sim, lo, label))
            else:
                print(f"  FAIL {label}: should stop in [{lo}, {hi}] with `{' | '.join(case.output_stops_with)}`: "
                      f"{rec['status']} {bracket} {harness_message(rec)}")
                failures.append(f"{label}: did not stop with `{' | '.join(case.output_stops_with)}` in [{lo}, {hi}]")
            continue
        known = case.output_known_failure if sim in case.output_known_in else None
        if rec["status"] != "ok":
            if known:
                cases.KNOWN.append(f"{label}: reaching t = {case.stop_time:g}: {known}")
                print(f"  KNOWN FAILURE {label}: does not reach t = {case.stop_time:g}: "
                      f"{known} ({harness_message(rec)})")
                continue
            print(f"  FAIL {label}: {rec['status']}: {harness_message(rec)}")
            failures.append(f"{label}: {rec['status']}: {rec['message']}")
            continue
        if known:
            # Reaching the stop time is not success on its own: the checks (with their own
            # known_failure markers) decide.
            print(f"  NOTE {label}: reaches t = {case.stop_time:g} although [output] known_failure allows "
                  f"it to stop early ({known}); the checks decide")
        print(f"  simulates: {label} to t = {case.stop_time:g} in {rec['elapsed_s']} s")
        v = cases.judge(case, rec, label)
        cases.RUNS[(case.model, "output", rel(form), sim)].update(
            checks=f"{v.passed}/{len(case.checks)} pass" + (f", {v.known} known failures" if v.known else "")
            + (f", {len(v.failures)} FAIL" if v.failures else ""))
        print("\n".join(v.lines))
        failures.extend(v.failures)
    test.assertFalse(failures, "\n".join(failures))
    if transformed == 0:
        test.skipTest(NOT_TRANSFORMING)


def _make(fn, case, sim):
    def test(self):
        print()
        fn(self, case, sim)
    return test


class Fixtures(unittest.TestCase):
    """Generated below: test_<Model>_{original,reference,output}_{rumoca,omc}."""


for _case in cases.load_cases():
    for _sim in SIMS:
        setattr(Fixtures, f"test_{_case.model}_original_{_sim}", _make(check_original, _case, _sim))
        if _case.reference is not None:
            setattr(Fixtures, f"test_{_case.model}_reference_{_sim}", _make(check_reference, _case, _sim))
        setattr(Fixtures, f"test_{_case.model}_output_{_sim}", _make(check_output, _case, _sim))


class Sidecars(unittest.TestCase):
    def test_checks_hold_on_the_ideal_behaviour(self):
        """integration/behaviour/<Model>_ideal.mo writes the expected behaviour directly (not a
        RIMIS output): every check of the sidecar, known failures included, holds on it, so the
        sidecars' numbers are right and a correct emitted model can pass them."""
        found = 0
        for case in cases.load_cases():
            ideal = HERE / "behaviour" / f"{case.model}_ideal.mo"
            if not ideal.exists():
                continue
            found += 1
            rec = run_sim(case, ideal, f"{case.model}_ideal", "rumoca")
            label = f"rumoca {rel(ideal)}"
            self.assertEqual(rec["status"], "ok", f"{label}: {rec['message']}")
            v = cases.judge(case, rec, label, allow_known=False)
            print("\n" + "\n".join(v.lines))
            self.assertFalse(v.failures, "\n".join(v.failures))
        self.assertGreaterEqual(found, 2)

    def test_omc_gets_a_tolerance_that_fits_the_checks(self):
        clutch = cases.load_case(cases.FIXTURES / "ClutchBasic.sim.toml")
        self.assertEqual(min(float(c.spec["tol"]) for c in clutch.checks if c.kind == "value"), 1e-6)
        self.assertAlmostEqual(clutch.solver_tolerance(), 1e-8)
        with tempfile.TemporaryDirectory() as tmp, unittest.mock.patch.object(harness, "simulate") as sim:
            sim.return_value = {}
            run_sim(clutch, Path(tmp) / "x.mo", "ClutchBasic", "omc")
            self.assertAlmostEqual(sim.call_args.kwargs["tolerance"], 1e-8)
            run_sim(clutch, Path(tmp) / "x.mo", "ClutchBasic", "rumoca")
            self.assertNotIn("tolerance", sim.call_args.kwargs)

    def test_every_sidecar_loads(self):
        loaded = cases.load_cases()
        names = [c.model for c in loaded]
        print(f"\n  sidecars: {', '.join(names)}")
        self.assertIn("TwoEquations", names)
        self.assertIn("WaterTank", names)

    def test_known_failure_is_never_a_pass(self):
        case = cases.load_case(cases.FIXTURES / "TwoEquations.sim.toml")
        ok_rec = {"status": "ok", "output_times": [0.5, 2.0], "values": {"x": [0.5, 1.0]},
                  "events": {"p": [{"time": 1.0, "value": True}]}, "trajectory": {"time": []}}
        bad_rec = dict(ok_rec, values={"x": [0.4, 0.9]}, events={"p": []})
        for c in case.checks:
            c.known_failure = "testing the marker"
        known_before = len(cases.KNOWN)
        self.addCleanup(lambda: cases.KNOWN.__delitem__(slice(known_before, None)))
        v = cases.judge(case, bad_rec, "t")
        self.assertEqual(v.passed, 0)
        self.assertEqual(len(v.failures), 0)
        self.assertTrue(any(line.strip().startswith("KNOWN FAILURE") for line in v.lines))
        v = cases.judge(case, ok_rec, "t")
        self.assertEqual(v.passed, 0)
        self.assertEqual(len(v.failures), 3)
        self.assertTrue(all("UNEXPECTED PASS" in f for f in v.failures))


if __name__ == "__main__":
    unittest.main()


STUB = '''#!{python}
# A stand-in for mdae-rimis (self-test of the output pipeline): prints {mode} for a fixture and
# the file itself for --emit canonical.
import sys, pathlib
args = sys.argv[1:]
src = pathlib.Path(args[-1])
if "--emit" in args or "{mode}" == "the input":
    sys.stdout.write(src.read_text())
else:
    ref = pathlib.Path({refdir!r}) / (src.stem + "_rimis.mo")
    sys.stdout.write(ref.read_text())
'''


class OutputPipeline(unittest.TestCase):
    """The `output` part on stand-in binaries (not mdae-rimis): one that prints the reference
    outputs must pass the checks, one that reprints its input must be reported as not
    transforming, which is a skip and never a pass."""

    def stub(self, tmp: str, mode: str) -> str:
        p = Path(tmp) / "stub"
        p.write_text(STUB.format(python=sys.executable, mode=mode, refdir=str(HERE / "reference")))
        p.chmod(0o755)
        return str(p)

    def setUp(self):
        self.rows, self.known = len(cases.ROWS), len(cases.KNOWN)

    def tearDown(self):
        del cases.ROWS[self.rows:]  # not part of the fixture table
        del cases.KNOWN[self.known:]

    def test_reference_printing_stub_passes(self):
        for name in ("TwoEquations", "WaterTank"):
            case = cases.load_case(cases.FIXTURES / f"{name}.sim.toml")
            case.forms = case.forms[:1]  # the omc-flat names differ from the reference's stem
            with tempfile.TemporaryDirectory() as tmp, \
                    unittest.mock.patch.dict(os.environ, {"MDAE_RIMIS_BIN": self.stub(tmp, "the reference")}):
                print(f"\n  [stand-in binary printing integration/reference/{name}_rimis.mo]")
                check_output(self, case, "rumoca")

    def test_reprinting_stub_is_skipped(self):
        case = cases.load_case(cases.FIXTURES / "WaterTank.sim.toml")
        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.dict(os.environ, {"MDAE_RIMIS_BIN": self.stub(tmp, "the input")}):
            print("\n  [stand-in binary reprinting its input]")
            with self.assertRaises(unittest.SkipTest):
                check_output(self, case, "rumoca")

    def test_wrong_output_fails(self):
        # A "transformation" that prints the reference of another model fails its checks.
        case = cases.load_case(cases.FIXTURES / "TwoEquations.sim.toml")
        case.forms = case.forms[:1]
        with tempfile.TemporaryDirectory() as tmp:
            stub = Path(tmp) / "stub"
            stub.write_text(f"#!{sys.executable}\nimport sys\nif '--emit' in sys.argv: print('x')\n"
                            f"else: sys.stdout.write(open({str(HERE / 'reference' / 'WaterTank_rimis.mo')!r}).read())\n")
            stub.chmod(0o755)
            with unittest.mock.patch.dict(os.environ, {"MDAE_RIMIS_BIN": str(stub)}):
                print("\n  [stand-in binary printing the wrong model]")
                with self.assertRaises(AssertionError):
                    check_output(self, case, "rumoca")

    def _stub_printing(self, tmp: str, path: Path) -> str:
        stub = Path(tmp) / "stub"
        stub.write_text(f"#!{sys.executable}\nimport sys\nif '--emit' in sys.argv: print('x')\n"
                        f"else: sys.stdout.write(open({str(path)!r}).read())\n")
        stub.chmod(0o755)
        return str(stub)

    def test_known_failure_of_the_run(self):
        # A run that fails while [output] known_failure is set: KNOWN FAILURE, not a failure...
        case = cases.load_case(cases.FIXTURES / "WaterTank.sim.toml")
        case.forms = case.forms[:1]
        case.output_known_failure = "testing the marker"
        with tempfile.TemporaryDirectory() as tmp, unittest.mock.patch.dict(
                os.environ, {"MDAE_RIMIS_BIN": self._stub_printing(tmp, case.forms[0])}):
            print("\n  [stand-in binary printing the failing original; the run marked known_failure]")
            check_output(self, case, "rumoca")
            self.assertTrue(any("testing the marker" in k for k in cases.KNOWN))
        # ...and once it reaches the stop time, the checks decide: here they all pass.
        with tempfile.TemporaryDirectory() as tmp, unittest.mock.patch.dict(
                os.environ, {"MDAE_RIMIS_BIN": self._stub_printing(tmp, HERE / "reference" / "WaterTank_rimis.mo")}):
            print("\n  [stand-in binary printing the reference; the run marked known_failure]")
            check_output(self, case, "rumoca")
        # A check marked known_failure that holds fails the test as UNEXPECTED PASS.
        case.checks[0].known_failure = "testing the marker"
        with tempfile.TemporaryDirectory() as tmp, unittest.mock.patch.dict(
                os.environ, {"MDAE_RIMIS_BIN": self._stub_printing(tmp, HERE / "reference" / "WaterTank_rimis.mo")}):
            print("\n  [stand-in binary printing the reference; its first check marked known_failure]")
            with self.assertRaisesRegex(AssertionError, "UNEXPECTED PASS"):
                check_output(self, case, "rumoca")
