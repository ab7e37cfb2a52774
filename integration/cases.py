"""Simulation expectations of the fixtures (`fixtures/<Name>.sim.toml`) and their checks.

A sidecar (TOML, read with the standard library's tomllib) declares how to simulate a fixture and
what a correct run looks like; see integration/README.md for the format. This module loads the
sidecars, evaluates their checks on a harness record (harness.simulate(..., trajectory=True)) and
classifies each check as PASS, FAIL, KNOWN FAILURE or UNEXPECTED PASS.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

CHECK_KINDS = ("value", "range", "events")
# (case, part, form, simulator, status, message) of every simulation run, printed by run_tests.py
ROWS: list[tuple] = []
# Per run (model, part, form, simulator): the simulator's version, omc's build times and, for an
# output, the checks that passed of those evaluated; for run_tests.py --omc-table.
RUNS: dict[tuple, dict] = {}
# every KNOWN FAILURE printed during the run, listed again by run_tests.py
KNOWN: list[str] = []
_MATH = {n: getattr(math, n) for n in ("sin", "cos", "tan", "exp", "log", "sqrt", "pi", "e")}
_MATH.update(abs=abs, min=min, max=max)


class SidecarError(Exception):
    pass


@dataclass
class Check:
    name: str
    kind: str
    spec: dict
    known_failure: str | None = None


@dataclass
class Case:
    sidecar: Path
    model: str
    forms: list[Path]
    stop_time: float
    dt: float
    original_expect: str  # "fails" or "simulates"
    original_note: str | None
    reference: Path | None
    reference_model: str | None
    output_known_failure: str | None
    output_may_reject: str | None
    checks: list[Check] = field(default_factory=list)
    # [output] stops_with / stops_between: the output must stop (a clear failure, e.g. the
    # consistency assert of issue 14) with this text in its message (or one of these texts: the
    # simulators word an event iteration that does not settle each in its own way), within this
    # interval.
    output_stops_with: tuple[str, ...] | None = None
    output_stops_between: tuple[float, float] | None = None
    # [output] known_failure_in: the simulators the output's known_failure is for (default: all).
    output_known_in: tuple = ("rumoca", "omc")

    def output_times(self) -> list[float]:
        ts = set()
        for c in self.checks:
            if c.kind == "value":
                ts.update(float(t) for t in _as_list(c.spec["at"]))
        return sorted(ts)

    def solver_tolerance(self) -> float:
        """A relative tolerance for the simulator that fits the checks: 1/100 of the
        tightest value tolerance (1e-8 for 1e-6 checks), within [1e-10, 1e-6]. omc's default
        (1e-6) leaves integration errors of the size of a 1e-6 check (ClutchBasic)."""
        tols = [float(c.spec["tol"]) for c in self.checks if c.kind == "value"]
        if not tols:
            return 1e-6
        return min(1e-6, max(1e-10, min(tols) / 100))


def _as_list(v):
    return v if isinstance(v, list) else [v]


def load_case(path: Path) -> Case:
    with open(path, "rb") as f:
        d = tomllib.load(f)

    def need(key, where=d, ctx=""):
        if key not in where:
            raise SidecarError(f"{path}: {ctx}missing `{key}`")
        return where[key]

    model = need("model")
    forms = [FIXTURES / p for p in need("forms")]
    for p in forms:
        if not p.is_file():
            raise SidecarError(f"{path}: form {p} does not exist")
    original = d.get("original", {})
    expect = original.get("expect", "fails")
    if expect not in ("fails", "simulates"):
        raise SidecarError(f"{path}: original.expect must be \"fails\" or \"simulates\"")
    ref = d.get("reference")
    reference = ROOT / need("file", ref, "reference: ") if ref else None
    if reference is not None and not reference.is_file():
        raise SidecarError(f"{path}: reference {reference} does not exist")
    output = d.get("output", {})
    checks = []
    for i, c in enumerate(d.get("check", [])):
        kind = c.get("kind")
        if kind not in CHECK_KINDS:
            raise SidecarError(f"{path}: check {i + 1}: kind must be one of {CHECK_KINDS}")
        required = {"value": ("expr", "at", "expect", "tol"), "range": ("expr",),
                    "events": ("var", "tol")}[kind]
        for k in required:
            need(k, c, f"check {i + 1}: ")
        if kind == "range" and "min" not in c and "max" not in c:
            raise SidecarError(f"{path}: check {i + 1}: a range needs `min` or `max`")
        if kind == "value" and isinstance(c["expect"], list) and len(c["expect"]) != len(_as_list(c["at"])):
            raise SidecarError(f"{path}: check {i + 1}: `expect` and `at` differ in length")
        checks.append(Check(c.get("name") or f"check {i + 1}", kind, c, c.get("known_failure")))
    between = output.get("stops_between")
    if between is not None and (not isinstance(between, list) or len(between) != 2):
        raise SidecarError(f"{path}: output.stops_between must be [from, to]")
    if between is not None and "stops_with" not in output:
        raise SidecarError(f"{path}: output.stops_between needs output.stops_with")
    stops_with = output.get("stops_with")
    if isinstance(stops_with, str):
        stops_with = (stops_with,)
    elif stops_with is not None:
        if not isinstance(stops_with, list) or not stops_with or not all(isinstance(x, str) for x in stops_with):
            raise SidecarError(f"{path}: output.stops_with must be a text or a list of texts")
        stops_with = tuple(stops_with)
    known_in = tuple(output.get("known_failure_in", ("rumoca", "omc")))
    if not set(known_in) <= {"rumoca", "omc"} or ("known_failure_in" in output and "known_failure" not in output):
        raise SidecarError(f"{path}: output.known_failure_in must list rumoca/omc and needs output.known_failure")
    return Case(path, model, forms, float(need("stop_time")), float(d.get("dt", need("stop_time") / 500)),
                expect, original.get("note"), reference, ref.get("model") if ref else None,
                output.get("known_failure"), output.get("may_reject"), checks,
                stops_with, tuple(float(x) for x in between) if between else None, known_in)


def load_cases(fixtures: Path = FIXTURES) -> list[Case]:
    return [load_case(p) for p in sorted(fixtures.glob("*.sim.toml"))]


# ---------------------------------------------------------------------------------------------
# Evaluating checks
# ---------------------------------------------------------------------------------------------


_OPERATORS = {"and", "or", "not", "True", "False"}
_MO_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+(?:,\s*\d+)*\])*")


class Expr:
    """A check expression: Python syntax over the result's variable names. Names that Python
    cannot use as they are (keywords such as `lambda`, dotted or subscripted names such as
    `body.v[1]`) are renamed internally; `abs`, `sqrt`, `exp`, ... are the usual functions."""

    def __init__(self, text: str):
        self.text = text
        self.names: dict[str, str] = {}  # python name -> variable name

        def sub(m):
            n = m.group(0)
            if n in _MATH or n in _OPERATORS:
                return n
            py = f"v{len(self.names)}_" + re.sub(r"\W", "_", n)
            for k, v in self.names.items():
                if v == n:
                    return k
            self.names[py] = n
            return py

        self.code = compile(_MO_NAME.sub(sub, text), "<check>", "eval")

    def variables(self) -> set[str]:
        return set(self.names.values())

    def __call__(self, lookup) -> float:
        env = {py: lookup(n) for py, n in self.names.items()}
        return eval(self.code, {"__builtins__": {}}, {**_MATH, **env})


def evaluate(check: Check, rec: dict) -> tuple[bool, str]:
    """(passed, detail) for one check on a harness record that holds a trajectory."""
    if rec.get("status") != "ok":
        return False, f"no run to check ({rec.get('status')}: {first_line(rec.get('message'))})"
    s = check.spec
    traj = rec["trajectory"]
    if check.kind == "value":
        code = Expr(s["expr"])
        missing = code.variables() - set(rec["values"])
        if missing:
            return False, f"unknown variable(s) {sorted(missing)} in `{s['expr']}`"
        times = _as_list(s["at"])
        expects = s["expect"] if isinstance(s["expect"], list) else [s["expect"]] * len(times)
        worst, bad = 0.0, []
        for t, want in zip(times, expects):
            i = rec["output_times"].index(float(t))
            if any(rec["values"][n][i] is None for n in code.variables()):
                bad.append(f"{s['expr']}({t}) is not finite")
                continue
            got = code(lambda n: rec["values"][n][i])
            err = abs(got - want)
            worst = max(worst, err)
            if not err <= s["tol"]:
                bad.append(f"{s['expr']}({t}) = {got:.9g}, expected {want:.9g} ± {s['tol']:g}")
        return (not bad), ("; ".join(bad) if bad else f"max error {worst:.3g} (tol {s['tol']:g})")
    if check.kind == "range":
        code = Expr(s["expr"])
        cond = Expr(s["when"]) if "when" in s else None
        missing = (code.variables() | (cond.variables() if cond else set())) - set(traj)
        if missing:
            return False, f"unknown variable(s) {sorted(missing)}"
        lo, hi = s.get("min", -math.inf), s.get("max", math.inf)
        t_from, t_to = s.get("from", -math.inf), s.get("to", math.inf)
        time = traj["time"]
        n_in, worst, where = 0, None, None
        for i, t in enumerate(time):
            if t < t_from or t > t_to:
                continue
            def at(n, i=i):
                return traj[n][i]
            if cond is not None and not cond(at):
                continue
            n_in += 1
            v = code(at)
            excess = max(lo - v, v - hi) if math.isfinite(v) else math.inf
            if worst is None or excess > worst:
                worst, where = excess, (t, v)
        scope = f" while {s['when']}" if cond is not None else ""
        if n_in == 0:
            return False, f"no sample{scope}: the check is vacuous"
        if worst > 0:
            return False, (f"{s['expr']} = {where[1]:.9g} at t = {where[0]:.6g}{scope}, outside "
                           f"[{lo:g}, {hi:g}]")
        return True, f"{n_in} samples{scope} within [{lo:g}, {hi:g}]"
    # events
    var, tol = s["var"], s["tol"]
    if var not in rec["events"]:
        return False, f"{var} is not a Boolean variable of the result"
    evs = rec["events"][var]
    bad = []
    for label, value in (("on", True), ("off", False)):
        want = [float(t) for t in s.get(label, [])]
        got = [e["time"] for e in evs if e["value"] is value]
        if len(got) != len(want):
            bad.append(f"{var} {label} at {_fmt(got)}, expected {_fmt(want)}")
            continue
        for g, w in zip(got, want):
            if abs(g - w) > tol:
                bad.append(f"{var} {label} at {g:.4f}, expected {w:.4f} ± {tol:g}")
    if bad:
        return False, "; ".join(bad)
    return True, f"{len(evs)} events of {var} within {tol:g} s"


def _fmt(ts):
    return "[" + ", ".join(f"{t:.4f}" for t in ts) + "]"


def first_line(s) -> str:
    return (s or "").strip().splitlines()[0] if (s or "").strip() else ""


@dataclass
class Verdict:
    lines: list[str]
    failures: list[str]
    passed: int
    known: int


def judge(case: Case, rec: dict, label: str, allow_known: bool = True) -> Verdict:
    """Run every check of `case` on `rec`; lines to print, and the failures that fail the test.

    A check marked known_failure prints KNOWN FAILURE while it fails (never counted as a pass) and
    makes the test fail with UNEXPECTED PASS once it passes, so the marker gets removed."""
    lines, failures, passed, known = [], [], 0, 0
    for c in case.checks:
        ok, detail = evaluate(c, rec)
        if c.known_failure and allow_known:
            if ok:
                msg = (f"UNEXPECTED PASS {label}: {c.name}: {detail} -- remove its known_failure "
                       f"marker in {case.sidecar.name}")
                lines.append("  !!! " + msg)
                failures.append(msg)
            else:
                known += 1
                KNOWN.append(f"{label}: {c.name}: {c.known_failure}")
                lines.append(f"  KNOWN FAILURE {label}: {c.name}: {c.known_failure} ({detail})")
        elif ok:
            passed += 1
            lines.append(f"  PASS {label}: {c.name}: {detail}")
        else:
            lines.append(f"  FAIL {label}: {c.name}: {detail}")
            failures.append(f"{label}: {c.name}: {detail}")
    return Verdict(lines, failures, passed, known)
