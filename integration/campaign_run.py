#!/usr/bin/env python3
"""Exact-solution campaign (issue 29 point 3): for each seed, generate a well-posed random multimode
model with a known solution (campaign_gen.py), rewrite it with mdae-rimis, simulate the output (and
the original, as information) and compare every real variable of the original with its exact
solution at 21 times (t = 0, 0.1, ..., 2), within 1e-3*(1 + |exact|).

    .venv/bin/python integration/campaign_run.py --seeds 0..999 --jobs 2 \\
        --results integration/results/campaign.md --keep /tmp/campaign-failures
    .venv/bin/python integration/campaign_run.py --seeds 17..17 --simulator both -v

Binary: --bin, else $MDAE_RIMIS_BIN, else target/ci/mdae-rimis. omc: $OMC or `omc` on PATH.

--family impulse runs campaign_impulse.py's models instead (impulsive mode changes whose restart is
known exactly: clutches engaged at known times, a point mass entering a rail at a known time), with
the same classes and tolerance, every compared variable from the model's variables() (no per-mode
controls: a failure stays sim-fails/wrong), records with "family": "impulse", and its own ratchet
campaign/known_failures_impulse.toml (tied to campaign_impulse.IMPULSE_VERSION and a fingerprint of
its seeds 0..199). Without --family nothing changes (the records have no family field).

Classes per seed and simulator:
  pass                 every variable matches the exact solution at every sample time
  rejected             mdae-rimis exit 1 (its first error line)
  tool-crash           mdae-rimis exit status other than 0/1, or a timeout (a bug to report)
  unchanged-both-fail  the tool passed the model unchanged and the original fails in the simulator
                       too, or runs there with the same wrong values (counted apart: not the
                       rewrite's fault)
  output-not-modelica  the simulator refuses to load/compile the output (rumoca: ParseError,
                       CompileError, StructuralParamError; omc: a parse or instantiation error)
  sim-fails            the output's simulation fails, stops early or gives NaN (message; for rumoca
                       the harness's failure bracket [lo, hi])
  wrong                the output simulates but a variable is off (variable, time, value, exact)
  simulator-limit      rumoca only: the output is sim-fails or wrong, and the per-mode control of a
                       visited mode (campaign_gen.control: that mode's equations alone, exact
                       starts, a determined initial system) fails or is wrong in rumoca too, where
                       the output does: between the same two samples (two failures: the same
                       message) or with the same wrong values; a mode that needs an equation
                       differentiated counts only with the same wrong values (see proves()); or rumoca's default (BDF)
                       integrator failed its own interpolation check or stalled until the
                       wall-time limit, and the output passes with its other integrator
                       (harness.bdf_defect); or, no control proving it, the output passes with
                       a do-nothing event every 0.01 s (harness.seed_refresh: rumoca's Newton
                       seed of a mode-dependent block is frozen at the last event,
                       rumoca_defects/FrozenNewtonSeed.mo); or, neither proving it, a visited
                       mode whose control passes (needing no equation differentiated) is wrong or
                       fails in rumoca with its equations under `if time < 1e9` (under_if: the form
                       of the output's blocks; the same frozen seed); or, none of these proving
                       it, a visited algebraic mode after the first whose control passes is wrong
                       or fails in rumoca with its equations entered at its first instant from the
                       exact solution (entered_at: one if-equation on a time event; rumoca lands
                       on another root of the block it enters, rumoca_defects/
                       ConditionalBlockEntered.mo). Counted apart, like
                       unchanged-both-fail. The record keeps the output's class and message
                       (output_class, output_detail) and every control's result (control); when no
                       control proves it the seed stays sim-fails/wrong.
Exit status: 0 (the classes are the result; the suite's ratchet is test_campaign.py).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import campaign_gen as gen  # noqa: E402
import campaign_impulse as imp  # noqa: E402

FAMILIES = ("smooth", "impulse")   # campaign_gen.py (the default), campaign_impulse.py


def generate(seed: int, family: str = "smooth"):
    return imp.generate(seed) if family == "impulse" else gen.generate(seed)


def exact_vars(model) -> list:
    """Every compared variable of a model: (name, exact value at t). campaign_gen: x1..xn from
    their trajectories; campaign_impulse: its variables() (speeds, torques; positions, velocities,
    the multiplier)."""
    if hasattr(model, "variables"):
        return model.variables()
    return [(f"x{j + 1}", traj.value) for j, traj in enumerate(model.trajs)]

CLASSES = ["pass", "unchanged-both-fail", "simulator-limit", "rejected", "tool-crash", "output-not-modelica",
           "sim-fails", "wrong"]
OK_CLASSES = ("pass", "unchanged-both-fail")
APART = ("unchanged-both-fail", "simulator-limit")   # not the rewrite's fault: counted apart
CONTROLLED = ("sim-fails", "wrong")                   # the rumoca classes the per-mode controls may explain
PROOF = ("failed", "wrong")                           # the control results that prove a simulator limit
TIMES = [round(k * gen.STOP_TIME / 20, 10) for k in range(21)]
DT = 0.01
TOOL_TIMEOUT = 120
SEED_TIMEOUT = 900
RUMOCA_WALL = 20.0   # rumoca's own wall-time limit per simulation
OMC_TIMEOUT = 120.0
OMC_NOT_MODELICA = re.compile(r"(?i)syntax error|parse error|no viable alternative|failed to load|"
                              r"failed to instantiate|class .* not found|instantiation of .* failed")


def opts(sim: str) -> dict:
    """rumoca: no failure bracket, RUMOCA_WALL seconds at most (a normal run takes under 1 s)."""
    return {"bracket_failure": False, "max_wall_seconds": RUMOCA_WALL} if sim == "rumoca" else {"timeout": OMC_TIMEOUT}


def tol(exact: float) -> float:
    return 1e-3 * (1 + abs(exact))


def default_binary() -> str:
    return os.environ.get("MDAE_RIMIS_BIN") or str(ROOT / "target" / "ci" / "mdae-rimis")


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def compare(model: gen.Model, rec: dict) -> dict | None:
    """The worst violation {var, time, value, exact, error, first} or None when every sample is
    within tol; `first`: the earliest sample time at which some variable is off, and that variable."""
    worst, worst_ratio, first = None, 1.0, None
    for name, value in exact_vars(model):
        vals = rec.get("values", {}).get(name)
        for k, t in enumerate(TIMES):
            exact = value(t)
            v = vals[k] if vals is not None and k < len(vals) else None
            if v is None:
                return {"var": name, "time": t, "value": None, "exact": exact,
                        "error": "missing" if vals is None else "no value"}
            ratio = abs(v - exact) / tol(exact)
            if ratio > 1.0 and (first is None or t < first[0]):
                first = (t, name)
            if ratio > worst_ratio:
                worst_ratio = ratio
                worst = {"var": name, "time": t, "value": v, "exact": exact, "error": abs(v - exact)}
    if worst is not None:
        worst["first"] = {"time": first[0], "var": first[1]}
    return worst


def wrong_kind(model: gen.Model, w: dict) -> str:
    """Where a wrong output first leaves the solution: at t = 0 (a fixed start not honoured, or the
    free initial values), from the first sample after a mode switch, or later inside a mode."""
    if w["value"] is None:
        return "a variable missing from the results"
    t, var = w["first"]["time"], w["first"]["var"]
    if hasattr(model, "variables"):
        return impulse_wrong_kind(model, t)
    if t == 0:
        fixed = model.starts[int(var[1:]) - 1][0] == "fixed"
        return "off from t = 0: a fixed start value not honoured" if fixed else "off from t = 0: initial values"
    before = [mv.switch_time for mv in model.modevars if mv.switch_time < t]
    if before and t - max(before) <= gen.STOP_TIME / 20 + 1e-9:
        kind = "state" if any(mv.kind == "state" and mv.switch_time == max(before) for mv in model.modevars) else "time"
        return f"off from the first sample after a mode switch ({kind} event)"
    return "off later inside a mode (drift)"


def impulse_wrong_kind(model, t: float) -> str:
    """wrong_kind for campaign_impulse: from t = 0, from the first sample after an engagement (the
    impulsive restart) or a release (no impulse), or later."""
    if t == 0:
        return "off from t = 0"
    before = [u for u in model.switch_times() if u < t]
    if before and t - max(before) <= STOP_SAMPLE + 1e-9:
        u = max(before)
        engaging = model.on_rail(u) if model.family == "rail" else any(
            c.engaged(u) and not c.engaged(u - 1e-9) for c in model.clutches)
        return ("off from the first sample after an engagement (impulsive restart)" if engaging
                else "off from the first sample after a release")
    return "off later inside a mode (drift)"


STOP_SAMPLE = gen.STOP_TIME / 20


def compile_refused(sim: str, rec: dict) -> bool:
    msg = rec.get("message") or ""
    if sim == "rumoca":
        return msg.startswith(("ParseError", "CompileError", "StructuralParamError"))
    return bool(OMC_NOT_MODELICA.search(msg))


# ---------------------------------------------------------------------------------------------
# Per-mode controls (rumoca): is the failure the simulator's?
# ---------------------------------------------------------------------------------------------
# An output can fail for rumoca's own reasons: in seed 3919's mode `not b1`, a plain algebraic
# system regular along the solution, rumoca 0.10.2 leaves the exact root for the other root of a
# product. The control of a visited mode (campaign_gen.control: that mode's equations alone, exact
# starts, a determined initial system) lays a sim-fails/wrong output on rumoca (simulator-limit)
# only when (proves()):
#  - the control fails or is wrong in rumoca (refused, timeout, incomplete and no-control prove
#    nothing: the text, the machine's load, the results or the initial system may be at fault);
#  - the mode needs no equation differentiated (the output of a higher-index mode is already
#    index-reduced, its control is not: seeds 6235 and 1081, whose plain index-3/4 modes rumoca
#    finds structurally singular while their outputs stop on their own consistency checks) --
#    or the control runs and is wrong with the output's own wrong values (seeds 5853, 7345: in
#    `0 = (x2 - cos)*(1 - 0.93*x2) - 1.03*(x4 - g)` rumoca leaves the root x2 = cos(time) for
#    1/0.93 in the control as in the output; a failure of such a control proves nothing);
#  - its trouble is the output's (explains()): both leave the solution or fail between the same
#    two samples (two failures: with the same message), or the output has the control's wrong
#    values where it is first off. An output still right at a sample where the control was
#    already off got past rumoca's failure there (seed 7441: its mode-1 control is off from
#    t = 0.7, the output is right until it has entered mode 2, whose control passes).
# Otherwise the seed stays sim-fails/wrong, with the controls' results in its record.


def control_times(t0: float, t1: float) -> list[float]:
    """A mode's sample times: its first instant and the comparison's times inside [t0, t1) (and the
    stop time for the last mode). A time of TIMES equal to t1 belongs to the next mode (the
    comparison reads right limits there)."""
    return [t0] + [t for t in TIMES if t0 < t < t1 or (t == t1 == gen.STOP_TIME)]


def off_at(model: gen.Model, values: dict, k: int, t: float) -> bool:
    """Some variable is off (or missing) at the k-th sample time t of a run's values."""
    for j, traj in enumerate(model.trajs):
        vals = values.get(f"x{j + 1}")
        v = vals[k] if vals is not None and k < len(vals) else None
        if v is None or abs(v - traj.value(t)) > tol(traj.value(t)):
            return True
    return False


def trouble(model: gen.Model, times: list[float], values: dict | None, end: float | None,
            fallback_good: float | None = None) -> dict:
    """Where a run leaves the solution: {good, bad, off}: its samples are right up to `good` (None:
    at none), it is first known off or failed at `bad` (None: not located), `off` is True when bad
    is a sample off (not the failure itself). values None (unknown): right up to fallback_good."""
    if values is None:
        return {"good": fallback_good, "bad": end, "off": False}
    good = None
    for k, t in enumerate(times):
        if off_at(model, values, k, t):
            return {"good": good, "bad": t, "off": True}
        good = t
    return {"good": good, "bad": end, "off": False}


def prefix(path: Path, name: str, lo: float, times: list[float], start: float) -> tuple[list[float], dict | None]:
    """A run that failed after lo, again to lo: its sample times up to lo and its values there (None
    when that run fails too)."""
    import harness

    ts = [t for t in times if t <= lo]
    if lo <= start or not ts:
        return [], {}
    o = harness.simulate(path, name, lo, ts, simulator="rumoca", dt=DT, start_time=start,
                         max_wall_seconds=RUMOCA_WALL, bracket_failure=False)
    return ts, (o["values"] if o["status"] == "ok" else None)


def failed_trouble(model: gen.Model, path: Path, name: str, times: list[float], start: float,
                   o: dict) -> tuple[dict, dict | None]:
    """A failed run o's trouble and its values: up to the failure bracket's low end (run again to
    there; when that run fails as well, taken as right up to there), then the failure at the
    bracket's high end; a run that stopped early: its own values up to where it stopped; else (a
    NaN) not located."""
    br = o.get("failure_bracket")
    if br:
        ts, vals = prefix(path, name, br[0], times, start)
        return trouble(model, ts, vals, br[1], max(ts) if ts else None), vals
    reached = o.get("time_reached")
    if reached is not None:
        ts = [t for t in times if t <= reached]
        return trouble(model, ts, o.get("values") or None, reached, max(ts) if ts else None), o.get("values")
    return {"good": None, "bad": None, "off": False}, None


def explains(model: gen.Model, c: dict, o: dict) -> str | None:
    """How control result c explains the output's trouble o (None: it does not): the same window
    between two samples, or the same wrong values at the output's first sample off."""
    ct, ot = c["trouble"], o["trouble"]
    if ot["bad"] is None or ct["bad"] is None:
        return None  # a failure not located (a timeout, NaN): nothing to match
    lo = lambda g: -math.inf if g is None else g  # noqa: E731
    if ct["bad"] > lo(ot["good"]) and ot["bad"] > lo(ct["good"]):
        # Two failures (no wrong value) must also be the same failure: rumoca's structural refusals
        # come at the start of any run, and the output holds every mode's equations (seed 20's
        # mode-3 control is "not computable" in rumoca while the output passes).
        if ct["off"] or ot["off"] or normalise(c.get("message") or "") == normalise(o.get("message") or ""):
            return "in the same window"
    t = ot["bad"]
    if ot["off"] and c.get("values") and o.get("values") and t in c["times"]:
        k, ko = c["times"].index(t), TIMES.index(t)
        same = all(c["values"][f"x{j + 1}"][k] is not None and o["values"][f"x{j + 1}"][ko] is not None
                   and abs(c["values"][f"x{j + 1}"][k] - o["values"][f"x{j + 1}"][ko]) <= tol(tr.value(t))
                   for j, tr in enumerate(model.trajs))
        if same and off_at(model, c["values"], k, t):
            return f"{SAME_VALUES} at t = {t:g}"
    return None


def under_if(text: str) -> str:
    """A control's text with its equations under `if time < 1e9 then … else … end if` (both
    branches the same, the condition true to the end): the form of the output's blocks, each
    under its mode's `if` (`wrap_controls`)."""
    a = text.index("equation\n") + len("equation\n")
    b = text.index("  annotation(")
    eqs = text[a:b]
    return text[:a] + "  if time < 1e9 then\n" + eqs + "  else\n" + eqs + "  end if;\n" + text[b:]


def entered_at(text: str, t0: float, model: gen.Model) -> str | None:
    """A control's text with its equations entered at a time event: `if time >= t0 then <the
    mode's equations> else <every unknown = its exact solution> end if`, run from t = 0 (the
    form of an output's block under its mode's `if`, entered at the mode's first instant from
    the exact values before it). None for a mode with a derivative (the else branch would
    make its states algebraic); fixed starts dropped (the else branch decides t = 0)."""
    if "der(" in text or "initial equation" in text:
        return None
    a = text.index("equation\n") + len("equation\n")
    b = text.index("  annotation(")
    eqs = "".join(f"  {line}\n" for line in text[a:b].splitlines())
    exact = "".join(f"    x{j + 1} = {traj.text()};\n" for j, traj in enumerate(model.trajs))
    body = f"  if time >= {t0!r} then\n{eqs}  else\n{exact}  end if;\n"
    head = text[:a].replace(", fixed = true", "")
    tail = re.sub(r"experiment\(StartTime = [^,)]*, ", "experiment(", text[b:])
    return head + body + tail


def run_control(model: gen.Model, k: int, tmp: Path, wrapped: bool = False, entered: bool = False) -> dict:
    """The control of visited mode k in rumoca (from the mode's t0 to its t1), compared with the
    exact solution at the mode's sample times within tol. status: pass; wrong (first and worst:
    var, time, value, exact, error); failed (rumoca raised, stopped early or gave NaN; bracket:
    where); and the results that prove nothing: no-control (campaign_gen.NoControl: no regular
    initial system, or the mode is not well-posed between the filter's times), refused (rumoca
    does not compile the control: the text may be at fault), timeout (the wall-time limit: load
    of the machine, not a wrong answer) and incomplete (a variable missing from rumoca's results).
    index/differentiated: the mode's structure; trouble: where it leaves the solution (trouble())."""
    import harness

    assign, t0, t1 = model.modes[k]
    rec = {"k": k + 1, "mode": gen.assign_text(assign), "t0": t0, "t1": t1}
    start = time.monotonic()
    try:
        ctl = gen.control(model, k)
    except gen.NoControl as e:
        return {**rec, "status": "no-control", "message": str(e)}
    rec["fixed"] = [f"x{j + 1}" if l == 0 else f"der(x{j + 1})" for j, l in ctl.fixed]
    rec["index"], rec["differentiated"] = ctl.struct_index, ctl.differentiated
    text = under_if(ctl.text) if wrapped else ctl.text
    if entered:
        text = entered_at(ctl.text, t0, model)
        if text is None or t0 <= 0.0:
            return {**rec, "status": "no-control", "message": "a mode with states, or the first: not entered at an event"}
    path = tmp / ("controls_entered" if entered else "controls_under_if" if wrapped else "controls") / f"{ctl.name}.mo"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    times = control_times(t0, t1)
    rec["times"] = times
    o = harness.simulate(path, ctl.name, t1, times, simulator="rumoca", dt=DT, start_time=0.0 if entered else t0,
                         max_wall_seconds=RUMOCA_WALL)
    rec["message"] = o["message"]
    if o["status"] == "ok":
        # as compare(): the worst violation, and the first sample off (where the run leaves the solution)
        worst, worst_ratio, first = None, 1.0, None
        for j, traj in enumerate(model.trajs):
            vals = o["values"].get(f"x{j + 1}") or [None] * len(times)
            for t, v in zip(times, vals):
                exact = traj.value(t)
                ratio = math.inf if v is None else abs(v - exact) / tol(exact)
                off = {"var": f"x{j + 1}", "time": t, "value": v, "exact": exact,
                       "error": None if v is None else abs(v - exact)}
                if ratio > 1.0 and (first is None or t < first["time"]):
                    first = off
                if ratio > worst_ratio:
                    worst_ratio, worst = ratio, off
        if any(o["values"].get(f"x{j + 1}") is None for j in range(model.n)):
            rec["status"] = "incomplete"
        elif worst is None:
            rec["status"], rec["worst"] = "pass", None
        else:
            rec["status"], rec["worst"], rec["first"] = "wrong", worst, first
            rec["values"] = {f"x{j + 1}": o["values"][f"x{j + 1}"] for j in range(model.n)}
            rec["trouble"] = trouble(model, times, o["values"], None)
    elif compile_refused("rumoca", o):
        rec["status"] = "refused"
    elif "timeout" in (o["message"] or ""):
        rec["status"] = "timeout"
    else:
        rec["status"] = "failed"
        rec["bracket"] = o.get("failure_bracket")
        rec["trouble"], _ = failed_trouble(model, path, ctl.name, times, t0, o)
    rec["elapsed_s"] = round(time.monotonic() - start, 3)
    return rec


def control_text(c: dict) -> str:
    """One control's result in a sentence."""
    head = f"the control of mode {c['k']} {c['mode']} on [{c['t0']:.4g}, {c['t1']:.4g})"
    if c["status"] == "wrong":
        def off(w):
            return (f"{w['var']} at t = {w['time']:.4g}: {w['value']!r} vs exact {w['exact']:.6g}"
                    + ("" if w["error"] is None else f" (error {w['error']:.3g})"))
        return f"{head} is wrong: first off {off(c['first'])}; worst {off(c['worst'])}"
    where = f" [fails in ({c['bracket'][0]:.4g}, {c['bracket'][1]:.4g}]]" if c.get("bracket") else ""
    return f"{head} {'fails' if c['status'] == 'failed' else c['status']}: {c.get('message') or ''}{where}"


def apply_controls(model: gen.Model, r: dict, o: dict, out: Path, tmp: Path) -> None:
    """Run every visited mode's control for a rumoca sim-fails/wrong record r (o: the output's run,
    out: the output's file) and reclassify r as simulator-limit when a control proves it
    (proves()). Every control's result is kept in r["control"]."""
    if r["class"] == "wrong" and (r.get("worst") or {}).get("value", 0) is None:
        # a variable missing from the output's results is the output's own fault
        r["control"] = {"modes": [], "skipped": "a variable is missing from the output's results"}
        return
    start = time.monotonic()
    results = [run_control(model, k, tmp) for k in range(len(model.modes))]
    outcome = {}
    if any(c["status"] in PROOF and (c.get("differentiated") is False or c["status"] == "wrong") for c in results):
        # where the output leaves the solution (only when a control could explain it: for sim-fails
        # it takes another run of the output, to the low end of its failure bracket)
        if r["class"] == "wrong":
            outcome["trouble"], outcome["values"] = trouble(model, TIMES, o["values"], None), o["values"]
        else:
            outcome["trouble"], outcome["values"] = failed_trouble(model, out, model.name, TIMES, 0.0, o)
            outcome["message"] = o["message"]
        for c in results:
            if c["status"] in PROOF:
                c["explains"] = explains(model, c, outcome)
    proof = next((c for c in results if proves(c)), None)
    r["control"] = {"modes": results, "output_trouble": outcome.get("trouble"), "proof": proof,
                    "elapsed_s": round(time.monotonic() - start, 3)}
    if proof is not None:
        r["output_class"], r["output_detail"] = r["class"], r["detail"]
        r["class"] = "simulator-limit"
        r["detail"] = (f"{control_text(proof)} ({proof['explains']}); "
                       f"the output is {r['output_class']}: {r['output_detail']}")


def apply_seed_refresh(model: gen.Model, r: dict, out: Path, tmp: Path) -> None:
    """A rumoca sim-fails/wrong record r that no control proved: the output run again with a
    do-nothing event every harness.SEED_REFRESH_PERIOD s (harness.seed_refresh). rumoca
    re-seeds its Newton solves of mode-dependent nonlinear blocks at events only (the defect of
    `rumoca_defects/FrozenNewtonSeed.mo`); where that run passes, the output's mathematics is
    right and r is simulator-limit, with the run in r["seed_refresh"]."""
    import harness

    text = harness.seed_refresh(out.read_text(encoding="utf-8"))
    if text is None:
        return
    d = tmp / "seed_refresh"
    d.mkdir(exist_ok=True)
    variant = d / out.name
    variant.write_text(text, encoding="utf-8")
    o = harness.simulate(variant, model.name, gen.STOP_TIME, TIMES, simulator="rumoca", dt=DT, **opts("rumoca"))
    w = compare(model, o) if o["status"] == "ok" else None
    passes = o["status"] == "ok" and w is None
    r["seed_refresh"] = {"period": harness.SEED_REFRESH_PERIOD, "status": "pass" if passes else o["status"],
                         "message": o["message"]}
    if passes:
        r["output_class"], r["output_detail"] = r["class"], r["detail"]
        r["class"] = "simulator-limit"
        r["detail"] = (f"rumoca's Newton seed frozen at the last event (rumoca_defects/FrozenNewtonSeed.mo); "
                       f"the output passes with a do-nothing event every {harness.SEED_REFRESH_PERIOD:g} s; "
                       f"without: {r['output_class']}: {r['output_detail']}")


def apply_wrapped_controls(model: gen.Model, r: dict, tmp: Path) -> None:
    """A rumoca sim-fails/wrong record r that neither a control nor the seed refresh proved:
    each visited mode whose control passes and needs no equation differentiated, run again
    with its equations under an `if` whose condition stays true (`under_if`), the form every
    mode-dependent block of the output has. Where rumoca fails or leaves the solution on it,
    it cannot run that mode's equations as the output must write them (its Newton seed frozen
    at the last event, `rumoca_defects/FrozenNewtonSeed.mo`: campaign seed 2685, whose mode
    [b1, b2] goes to another root of its nonlinear block at t = 0.65 under the `if`): r is
    simulator-limit, with the run in r["wrapped_control"]."""
    prove_by_variant(model, r, tmp, "wrapped_control", lambda c: True, lambda w: (
        "under `if time < 1e9` (rumoca's frozen Newton seed, rumoca_defects/FrozenNewtonSeed.mo)"))


def apply_entered_controls(model: gen.Model, r: dict, tmp: Path) -> None:
    """A rumoca sim-fails/wrong record r that no control, seed refresh or `if` proved: each
    visited mode after the first whose control passes and has no state, run again with its
    equations entered at its first instant from the exact solution before it (`entered_at`: a
    plain Modelica model of one if-equation whose every branch holds on the exact solution).
    Where rumoca fails or leaves the solution on it, it cannot enter that mode's block as the
    output must (rumoca_defects/ConditionalBlockEntered.mo: campaign seed 4113, whose algebraic
    modes 3 and 4 land on another root of their nonlinear block at the time event where they are
    entered, or fail at t = 1.79 where that root ends; omc runs the output right): r is
    simulator-limit, with the run in r["entered_control"]."""
    prove_by_variant(model, r, tmp, "entered_control", lambda c: c.get("t0", 0.0) > 0.0, lambda e: (
        f"entered at t = {e['t0']:.4g} from the exact solution (rumoca_defects/ConditionalBlockEntered.mo)"))


def prove_by_variant(model: gen.Model, r: dict, tmp: Path, key: str, eligible, how) -> None:
    """For apply_wrapped_controls (key "wrapped_control") and apply_entered_controls
    ("entered_control"): each visited mode whose control passed, needs no equation
    differentiated and is `eligible`, run again in that variant; the first that fails or is
    wrong makes r simulator-limit, kept in r[key], the detail saying `how` it was run."""
    plain = (r.get("control") or {}).get("modes") or []
    for c in plain:
        if c.get("status") != "pass" or c.get("differentiated") is not False or not eligible(c):
            continue
        v = run_control(model, c["k"] - 1, tmp, **{key.split("_")[0]: True})
        if v["status"] in PROOF:
            r[key] = {k: v.get(k) for k in ("k", "mode", "t0", "t1", "status", "message", "worst")}
            r["output_class"], r["output_detail"] = r["class"], r["detail"]
            r["class"] = "simulator-limit"
            r["detail"] = (f"the control of mode {v['k']} {v['mode']} passes, and is {v['status']} with its equations "
                           f"{how(v)}; the output is {r['output_class']}: {r['output_detail']}")
            return


SAME_VALUES = "the output has the control's wrong values"


def proves(c: dict) -> bool:
    """A control result that lays the output's failure on the simulator (see above): failed or
    wrong, in a mode that needs no equation differentiated, and its trouble explains the output's;
    or, in a mode that does, wrong with the output's own wrong values."""
    if c.get("status") not in PROOF or not c.get("explains"):
        return False
    return c.get("differentiated") is False or (c["status"] == "wrong" and c["explains"].startswith(SAME_VALUES))


def proven(s: dict) -> bool:
    """A simulator-limit record whose control proves it (proves()), or whose output passes with
    rumoca's other integrator where the default one failed its own check or stalled (`solver_retry`)."""
    p = (s.get("control") or {}).get("proof")
    retried = bool(s.get("solver_retry")) and "passes with" in (s.get("detail") or "")
    refreshed = (s.get("seed_refresh") or {}).get("status") == "pass"
    wrapped = (s.get("wrapped_control") or {}).get("status") in PROOF
    entered = (s.get("entered_control") or {}).get("status") in PROOF
    return s.get("class") == "simulator-limit" and (retried or refreshed or wrapped or entered or (bool(p) and proves(p)))


def accepted(s: dict) -> bool:
    """Not the rewrite's fault: pass, unchanged-both-fail, or a proven simulator-limit."""
    return s["class"] in OK_CLASSES or proven(s)


def run_seed(seed: int, binary: str, simulators: list[str], keep: str | None, family: str = "smooth") -> dict:
    """Everything about one seed (runs in its own process, see --one)."""
    import harness

    start = time.monotonic()
    model = generate(seed, family)
    text = model.text()
    if family == "impulse":
        # no mode variables of campaign_gen's kind, no per-mode controls (below)
        rec = {"seed": seed, "family": "impulse", "kind": model.family, "n": model.n,
               "m": len(model.switch_times()), "lines": text.count("\n"), "chars": len(text),
               "attempts": model.info["attempts"], "max_index": 3 if model.family == "rail" else 2,
               "state_events": 0, "features": sorted(imp.features(model)), "sims": {}}
    else:
        rec = {"seed": seed, "n": model.n, "m": len(model.modevars), "lines": text.count("\n"),
               "chars": len(text), "attempts": model.info["attempts"],
               "max_index": max(m["index"] for m in model.info["modes"]),
               "state_events": sum(mv.kind == "state" for mv in model.modevars),
               "sims": {}}
    with tempfile.TemporaryDirectory(prefix="mdae-campaign-") as tmp:
        src = Path(tmp) / "orig" / f"{model.name}.mo"
        out = Path(tmp) / "out" / f"{model.name}.mo"
        src.parent.mkdir()
        out.parent.mkdir()
        src.write_text(text)
        try:
            proc = subprocess.run([binary, str(src)], capture_output=True, text=True, timeout=TOOL_TIMEOUT)
            rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            rc, stdout, stderr = None, "", f"timeout after {TOOL_TIMEOUT} s"
        rec["tool"] = {"rc": rc, "message": first_error(stderr) if rc != 0 else "",
                       "unchanged": "// The model is unchanged" in "\n".join(stdout.splitlines()[:3])}
        if rc == 0:
            out.write_text(stdout)
        for sim in simulators:
            r = {}
            orig = harness.simulate(src, model.name, gen.STOP_TIME, TIMES, simulator=sim, dt=DT, **opts(sim))
            r["orig_status"] = orig["status"]
            r["orig_message"] = orig["message"]
            r["orig_worst"] = compare(model, orig) if orig["status"] == "ok" else None
            if rc is None or rc not in (0, 1):
                r["class"], r["detail"] = "tool-crash", f"exit {rc}: {stderr.strip()[-400:]}"
            elif rc == 1:
                r["class"], r["detail"] = "rejected", rec["tool"]["message"]
            else:
                o = harness.simulate(out, model.name, gen.STOP_TIME, TIMES, simulator=sim, dt=DT, **opts(sim))
                if (sim == "rumoca" and o["status"] == "failed" and not compile_refused(sim, o)
                        and "timeout" not in (o["message"] or "")):
                    # again, for the harness's failure bracket (not after a timeout: 24 more of those)
                    o = harness.simulate(out, model.name, gen.STOP_TIME, TIMES, simulator=sim, dt=DT,
                                         max_wall_seconds=RUMOCA_WALL)
                r["out_status"], r["out_message"] = o["status"], o["message"]
                r["bracket"] = o.get("failure_bracket")
                r["time_reached"] = o.get("time_reached")
                if o["status"] == "skipped":
                    r["class"], r["detail"] = "skipped", o["message"]
                elif o["status"] == "ok":
                    w = compare(model, o)
                    r["worst"] = w
                    if w is None:
                        r["class"], r["detail"] = "pass", ""
                    elif rec["tool"]["unchanged"] and r["orig_worst"] is not None:
                        w = r["orig_worst"]
                        r["class"] = "unchanged-both-fail"
                        r["detail"] = (f"the original is wrong too: {w['var']} at t = {w['time']:g}: "
                                       f"{w['value']!r} vs exact {w['exact']:.6g}")
                    else:
                        r["class"] = "wrong"
                        r["kind"] = wrong_kind(model, w)
                        r["detail"] = (f"{r['kind']}; worst {w['var']} at t = {w['time']:g}: {w['value']!r} vs exact "
                                       f"{w['exact']:.6g}" + ("" if w["value"] is None else f" (error {w['error']:.3g})")
                                       + f"; first off: {w['first']['var']} at t = {w['first']['time']:g}")
                elif rec["tool"]["unchanged"] and orig["status"] != "ok":
                    r["class"], r["detail"] = "unchanged-both-fail", o["message"] or ""
                elif compile_refused(sim, o):
                    r["class"], r["detail"] = "output-not-modelica", o["message"] or ""
                else:
                    where = ""
                    if r["bracket"]:
                        where = f" [fails in ({r['bracket'][0]:.4g}, {r['bracket'][1]:.4g}]]"
                    elif r["time_reached"] is not None:
                        where = f" [at t = {r['time_reached']:g}]"
                    r["class"], r["detail"] = "sim-fails", (o["message"] or o["status"]) + where
            # (`o` is the output's run: none where the tool refused the model or crashed)
            if sim == "rumoca" and r["class"] == "pass" and o.get("solver_retry"):
                # rumoca's BDF integrator failed its own check (harness.BDF_SAMPLER_DEFECT); the
                # output passes with its other integrator: the simulator's failure, counted apart.
                r["solver_retry"] = o["solver_retry"]
                r["class"] = "simulator-limit"
                r["detail"] = (f"rumoca's BDF integrator {o['solver_retry']['defect']} "
                               f"({normalise(o['solver_retry']['default_message'])[:100]}); the output passes "
                               f"with its {o['solver_retry']['solver']} integrator")
            if sim == "rumoca" and r["class"] in CONTROLLED and family == "smooth":
                apply_controls(model, r, o, out, Path(tmp))
            if sim == "rumoca" and r["class"] in CONTROLLED:
                apply_seed_refresh(model, r, out, Path(tmp))
            if sim == "rumoca" and r["class"] in CONTROLLED and family == "smooth":
                apply_wrapped_controls(model, r, Path(tmp))
            if sim == "rumoca" and r["class"] in CONTROLLED and family == "smooth":
                apply_entered_controls(model, r, Path(tmp))
            rec["sims"][sim] = r
        if keep and any(r["class"] not in OK_CLASSES for r in rec["sims"].values()):
            d = Path(keep) / f"seed{seed}"
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, d / f"{model.name}.mo")
            if out.exists():
                shutil.copyfile(out, d / f"{model.name}_out.mo")
            for ctl in (Path(tmp) / "controls").glob("*.mo"):
                shutil.copyfile(ctl, d / ctl.name)
            (d / "record.json").write_text(json.dumps(rec, indent=1, default=str))
    rec["elapsed_s"] = round(time.monotonic() - start, 3)
    return rec


def run_one_subprocess(seed: int, binary: str, simulators: list[str], keep: str | None,
                       family: str = "smooth") -> dict:
    """run_seed in a fresh interpreter (a simulator crash or hang costs this seed only)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(seed), "--bin", binary,
           "--simulator", "both" if len(simulators) == 2 else simulators[0]]
    if family != "smooth":
        cmd += ["--family", family]
    if keep:
        cmd += ["--keep", keep]
    # Its own process group: what a simulator leaves behind (omc's simulation executable outlives
    # the harness's timeout of omc) is killed with it when the seed is done.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=SEED_TIMEOUT)
    except subprocess.TimeoutExpired:
        stdout, stderr = None, None
    finally:
        try:
            os.killpg(p.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
    if stdout is None:
        p.communicate()
        return crash_record(seed, simulators, f"the seed's run did not finish within {SEED_TIMEOUT} s")
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        return crash_record(seed, simulators, f"runner exit {p.returncode}: {stderr.strip()[-400:]}")
    return json.loads(lines[-1])


def crash_record(seed, simulators, why):
    return {"seed": seed, "sims": {s: {"class": "harness-error", "detail": why} for s in simulators}}


def parse_seeds(spec: str) -> list[int]:
    seeds = []
    for part in spec.split(","):
        if ".." in part:
            a, b = part.split("..")
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def run_campaign(seeds: list[int], binary: str, simulators: list[str], jobs: int = 2,
                 keep: str | None = None, progress=None, family: str = "smooth") -> list[dict]:
    records = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run_one_subprocess, s, binary, simulators, keep, family): s for s in seeds}
        for f in concurrent.futures.as_completed(futs):
            rec = f.result()
            records.append(rec)
            if progress:
                progress(rec, len(records), len(seeds))
    records.sort(key=lambda r: r["seed"])
    return records


# ---------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------

_NORM = [
    (re.compile(r"consistency equation e\d+'* \(.*?\) does not hold"), "consistency equation e# (...) does not hold"),
    (re.compile(r"entering `[^`]*`"), "entering `...`"),
    (re.compile(r"original is wrong too: .*"), "original is wrong too"),
    (re.compile(r"\bx\d+(_p)?(_\d+)?\b"), "x#"),
    (re.compile(r"\bb\d+\b"), "b#"),
    (re.compile(r"\bCampaign\d+\b"), "Campaign#"),
    (re.compile(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?"), "N"),
    (re.compile(r"/tmp/\S+"), "PATH"),
    (re.compile(r"\s+"), " "),
]


def normalise(msg: str) -> str:
    lines = (msg or "").split("\n")
    # omc: the first assertion or error line says more than "Simulation execution failed for model"
    telling = [ln.split('--> "', 1)[1] for ln in lines[1:] if '--> "' in ln]  # an assert's message
    telling = telling or [ln for ln in lines[1:] if re.search(r"LOG_ASSERT.*\| (?!info)|\| error|Error:", ln)]
    msg = lines[0] + (": " + re.sub(r"^\S+\s*\|\s*\w+\s*\|\s*", "", telling[0].strip()) if telling else "")
    msg = re.sub(r" \[(fails in|at t =).*$", "", msg)
    msg = re.sub(r"; worst .*$", "", msg)
    for rx, rep in _NORM:
        msg = rx.sub(rep, msg)
    return msg.strip()[:160]


def summarise(records: list[dict], sim: str) -> dict:
    counts = collections.Counter()
    groups: dict[tuple, list] = collections.defaultdict(list)
    for r in records:
        s = r["sims"].get(sim)
        if s is None:
            continue
        counts[s["class"]] += 1
        if s["class"] != "pass":
            groups[(s["class"], group_message(s))].append(r)
    return {"counts": counts, "groups": groups}


def group_message(s: dict) -> str:
    """A failure's group: wrong by where it leaves the solution; simulator-limit by how its control
    fails and what the output was; the others by their normalised message."""
    if s["class"] == "wrong":
        return s.get("kind", "?")
    if s["class"] == "simulator-limit" and s.get("solver_retry"):
        what = "stall" if "stalled" in (s["solver_retry"].get("defect") or "") else "check"
        return f"rumoca's BDF integrator {what}; output passes with {s['solver_retry']['solver']}"
    if s["class"] == "simulator-limit" and (s.get("seed_refresh") or {}).get("status") == "pass":
        return f"rumoca's Newton seed frozen at the last event; output passes with a do-nothing event every {s['seed_refresh']['period']:g} s"
    if s["class"] == "simulator-limit" and s.get("entered_control"):
        return f"rumoca enters a conditional block at an event on another root; a mode's control passes, and is {s['entered_control']['status']} entered at its first instant"
    if s["class"] == "simulator-limit" and s.get("wrapped_control"):
        return f"rumoca's Newton seed frozen at the last event; a mode's control passes, and is {s['wrapped_control']['status']} under an `if`"
    if s["class"] == "simulator-limit":
        p = (s.get("control") or {}).get("proof") or {}
        how = "wrong" if p.get("status") == "wrong" else normalise(p.get("message") or "?")
        out = s.get("kind") or normalise(s.get("output_detail") or "")
        return f"control {how}; output {s.get('output_class')}: {out}"[:200]
    return normalise(s["detail"])


def apart_line(counts: collections.Counter) -> str:
    """The share of right outputs among the seeds whose failure may be the rewrite's."""
    total = sum(counts.values())
    rest = total - sum(counts[c] for c in APART) - counts["skipped"]
    return ("counted apart: " + ", ".join(f"{c} {counts[c]}" for c in APART)
            + f"; of the other {rest} seeds {counts['pass']} pass ({100 * counts['pass'] / max(rest, 1):.1f}%)")


def table_text(records: list[dict], sims: list[str]) -> str:
    lines = []
    for sim in sims:
        sm = summarise(records, sim)
        total = sum(sm["counts"].values())
        orig = collections.Counter(r["sims"][sim].get("orig_status", "-") for r in records if sim in r["sims"])
        lines.append(f"== {sim}: {total} seeds")
        for c in CLASSES + sorted(set(sm["counts"]) - set(CLASSES)):
            if sm["counts"][c]:
                lines.append(f"  {c:20} {sm['counts'][c]:6}  {100 * sm['counts'][c] / total:5.1f}%")
        lines.append(f"  ({apart_line(sm['counts'])})")
        lines.append(f"  (originals in {sim}: " + ", ".join(f"{k} {v}" for k, v in sorted(orig.items())) + ")")
        ctl = [r["sims"][sim]["control"] for r in records if "control" in r["sims"].get(sim, {})]
        if ctl:
            runs = sum(len(c["modes"]) for c in ctl)
            lines.append(f"  (per-mode controls: {len(ctl)} seeds, {runs} controls, "
                         f"{sum(c.get('elapsed_s', 0) for c in ctl):.1f} s)")
        lines.append(f"  failure groups ({len(sm['groups'])}):")
        for (cls, msg), recs in sorted(sm["groups"].items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ex = ", ".join(str(r["seed"]) for r in sorted(recs, key=size_key)[:3])
            lines.append(f"    {len(recs):5}  {cls:19} {msg}   (e.g. seeds {ex})")
    return "\n".join(lines)


def size_key(r: dict):
    return (r.get("n", 99), r.get("chars", 10 ** 9), r["seed"])


def git_describe() -> str:
    try:
        h = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h", "--", "src", "Cargo.toml"],
                           capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "src"],
                               capture_output=True, text=True).stdout.strip()
        return h + (" (src/ modified)" if dirty else "")
    except OSError:
        return "?"


def results_markdown(records: list[dict], sims: list[str], seeds_spec: str, binary: str, elapsed: float,
                     family: str = "smooth") -> str:
    import harness  # noqa: F401  (the versions)
    versions = {}
    for sim in sims:
        if sim == "rumoca":
            import rumoca
            versions[sim] = f"rumoca {rumoca.version()}"
        else:
            omc = harness.find_omc()
            version = None
            if omc is not None:
                try:  # the version omc prints, as the fixtures' omc table says it
                    ver = subprocess.run([omc, "--version"], capture_output=True, text=True, timeout=60)
                    version = (ver.stdout or ver.stderr).strip() or None
                except (OSError, subprocess.TimeoutExpired):
                    pass
            versions[sim] = f"omc {version or '(version unknown: omc not found)'}"
    n = len(records)
    if family == "impulse":
        return impulse_results_markdown(records, sims, seeds_spec, binary, elapsed, versions)
    out = [
        "# Exact-solution campaign (issue 29 point 3)",
        "",
        f"Generated by `integration/campaign_run.py --seeds {seeds_spec}` on "
        f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}: generator "
        f"v{gen.GENERATOR_VERSION}, mdae-rimis built from src/ at {git_describe()} (`{binary}`), "
        + ", ".join(versions.values()) + (f"; {n} seeds in {elapsed:.0f} s." if elapsed is not None else "."),
        "",
        "Each seed is a random multimode model whose every equation vanishes on a chosen smooth solution "
        "(`campaign_gen.py`; kept only if every visited mode is structurally regular, non-singular along "
        "the solution and stable, checked independently of the tool). Its mdae-rimis output is simulated "
        f"(rumoca at its default tolerances, output step {DT}) and every real variable of the original is "
        "compared with the exact solution at t = 0, 0.1, ..., 2 within 1e-3*(1 + |exact|). The original "
        "is simulated too, as information. A rumoca sim-fails or wrong seed runs the per-mode controls "
        "(each visited mode's equations alone, exact starts, a determined initial system, simulated over the "
        "mode's interval): if the control of a mode that needs no equation differentiated fails or is wrong "
        "where the output does (between the same two samples, two failures with the same message, or with "
        "the output's wrong values), or the control of a mode that needs one is wrong with the output's own "
        "wrong values, the seed is simulator-limit (counted apart, like unchanged-both-fail). So it is, none "
        "of those proving it, where rumoca's default integrator failed its own check or stalled and the output "
        "passes with its other one; where the output passes with a do-nothing event every 0.01 s (rumoca's "
        "Newton seed frozen at the last event, `rumoca_defects/FrozenNewtonSeed.mo`); where a mode whose "
        "control passes is wrong or fails with its equations under `if time < 1e9` (the form of the output's "
        "blocks); or where an algebraic mode whose control passes is wrong or fails with its equations entered "
        "at its first instant from the exact solution, one if-equation on a time event (rumoca lands on "
        "another root of the block it enters, `rumoca_defects/ConditionalBlockEntered.mo`).",
        "",
    ]
    stats = collections.Counter()
    for r in records:
        stats[f"n = {r.get('n')}"] += 1
        stats[f"max index {r.get('max_index')}"] += 1
        if r.get("state_events"):
            stats["with a state event"] += 1
    out.append("Models: " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items())) + ".")
    out.append("")
    for sim in sims:
        sm = summarise(records, sim)
        total = sum(sm["counts"].values())
        out += [f"## {versions[sim]}", "", "| class | seeds | share |", "|---|---:|---:|"]
        for c in CLASSES + sorted(set(sm["counts"]) - set(CLASSES)):
            out.append(f"| {c} | {sm['counts'][c]} | {100 * sm['counts'][c] / max(total, 1):.1f}% |")
        out += ["", apart_line(sm["counts"]).capitalize() + "."]
        orig = collections.Counter(r["sims"][sim].get("orig_status", "-") for r in records if sim in r["sims"])
        orig_pass = sum(1 for r in records if sim in r["sims"] and r["sims"][sim].get("orig_status") == "ok"
                        and r["sims"][sim].get("orig_worst") is None)
        out += ["", f"Originals in {sim} (information): " + ", ".join(f"{k} {v}" for k, v in sorted(orig.items()))
                + f"; {orig_pass} of them match the exact solution.", ""]
        out += ["### Failure groups (class, normalised message: numbers `N`, variables `x#`)", "",
                "| seeds | class | message | smallest examples |", "|---:|---|---|---|"]
        for (cls, msg), recs in sorted(sm["groups"].items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ex = ", ".join(str(r["seed"]) for r in sorted(recs, key=size_key)[:4])
            out.append(f"| {len(recs)} | {cls} | {msg.replace('|', '/')} | {ex} |")
        out += ["", "### Smallest examples per class", ""]
        by_class = collections.defaultdict(list)
        for r in records:
            if sim in r["sims"] and r["sims"][sim]["class"] != "pass":
                by_class[r["sims"][sim]["class"]].append(r)
        for cls in CLASSES + sorted(set(by_class) - set(CLASSES)):
            if cls not in by_class:
                continue
            # the smallest model of each of the class's two largest groups
            groups = sorted(((k, v) for k, v in sm["groups"].items() if k[0] == cls), key=lambda kv: -len(kv[1]))
            picks = [min(v, key=size_key) for _, v in groups[:4 if cls in ("sim-fails", "wrong") else 2]]
            for r in picks:
                s = r["sims"][sim]
                group = next(len(v) for k, v in groups if r in v)
                out += [f"#### {cls}: seed {r['seed']} (n = {r['n']}, {r['m']} mode variables, max index "
                        f"{r['max_index']}; the smallest of a group of {group})", "",
                        f"- what goes wrong: {s['detail'][:600]}",
                        *control_example(r, s),
                        f"- original in {sim}: {s.get('orig_status')}"
                        + (f" ({(s.get('orig_message') or '')[:200]})" if s.get("orig_status") != "ok" else ""),
                        "", "```modelica", gen.generate(r["seed"]).text().rstrip(), "```", ""]
    return "\n".join(out) + "\n"


def impulse_results_markdown(records, sims, seeds_spec, binary, elapsed, versions) -> str:
    """results_markdown for --family impulse (campaign_impulse.py; no per-mode controls)."""
    n = len(records)
    out = [
        "# Impulsive-restart campaign (issue 29: restarts known exactly)",
        "",
        f"Generated by `integration/campaign_run.py --family impulse --seeds {seeds_spec}` on "
        f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}: campaign_impulse.py "
        f"v{imp.IMPULSE_VERSION}, mdae-rimis built from src/ at {git_describe()} (`{binary}`), "
        + ", ".join(versions.values()) + (f"; {n} seeds in {elapsed:.0f} s." if elapsed is not None else "."),
        "",
        "Each seed is a model whose mode changes need an impulse, with a closed-form exact solution "
        "(`campaign_impulse.py`): shafts coupled by ideal clutches engaged and released at known times "
        "(engaging, the speeds jump to the momentum-conserving common speed), or a point mass entering "
        "a straight rail at a known time (its velocity jumps along the rail's normal). The mdae-rimis "
        f"output is simulated (output step {DT}) and every real variable is compared with the exact "
        "solution at t = 0, 0.1, ..., 2 within 1e-3*(1 + |exact|) (no sample is within 0.01 of a switch).",
        "",
        "Models: " + ", ".join(f"{k}: {v}" for k, v in sorted(collections.Counter(
            f"{r.get('kind')} n = {r.get('n')}" for r in records).items())) + ".",
        "",
    ]
    for sim in sims:
        sm = summarise(records, sim)
        total = sum(sm["counts"].values())
        out += [f"## {versions[sim]}", "", "| class | seeds | share |", "|---|---:|---:|"]
        for c in CLASSES + sorted(set(sm["counts"]) - set(CLASSES)):
            out.append(f"| {c} | {sm['counts'][c]} | {100 * sm['counts'][c] / max(total, 1):.1f}% |")
        orig = collections.Counter(r["sims"][sim].get("orig_status", "-") for r in records if sim in r["sims"])
        orig_pass = sum(1 for r in records if sim in r["sims"] and r["sims"][sim].get("orig_status") == "ok"
                        and r["sims"][sim].get("orig_worst") is None)
        out += ["", f"Originals in {sim} (information): " + ", ".join(f"{k} {v}" for k, v in sorted(orig.items()))
                + f"; {orig_pass} of them match the exact solution.", ""]
        if sm["groups"]:
            out += ["| seeds | class | message | smallest examples |", "|---:|---|---|---|"]
            for (cls, msg), recs in sorted(sm["groups"].items(), key=lambda kv: (-len(kv[1]), kv[0])):
                ex = ", ".join(str(r["seed"]) for r in sorted(recs, key=size_key)[:4])
                out.append(f"| {len(recs)} | {cls} | {msg.replace('|', '/')} | {ex} |")
            groups = sorted(sm["groups"].items(), key=lambda kv: -len(kv[1]))
            for (cls, _), recs in groups[:4]:
                r = min(recs, key=size_key)
                out += ["", f"#### {cls}: seed {r['seed']} (the smallest of a group of {len(recs)})", "",
                        f"- what goes wrong: {r['sims'][sim]['detail'][:600]}", "", "```modelica",
                        imp.generate(r["seed"]).text().rstrip(), "```"]
            out.append("")
    return "\n".join(out) + "\n"


def control_example(r: dict, s: dict) -> list[str]:
    """For a simulator-limit example: the control that fails, as rumoca runs it."""
    p = (s.get("control") or {}).get("proof")
    if s["class"] != "simulator-limit" or not p:
        return []
    ctl = gen.control(gen.generate(r["seed"]), p["k"] - 1)
    return [f"- the control (`campaign_gen.py {r['seed']} --control {p['k']}`), simulated from "
            f"{p['t0']:.4g} to {p['t1']:.4g}:", "", "```modelica", ctl.text.rstrip(), "```"]


# ---------------------------------------------------------------------------------------------
# Known failures (the suite's ratchet, test_campaign.py)
# ---------------------------------------------------------------------------------------------

KNOWN_FAILURES = HERE / "campaign" / "known_failures.toml"
KNOWN_FAILURES_IMPULSE = HERE / "campaign" / "known_failures_impulse.toml"
FINGERPRINT_SEEDS = range(0, 200)


def fingerprint(seeds=FINGERPRINT_SEEDS, family: str = "smooth") -> str:
    """sha256 (16 hex digits) of the model texts of `seeds`: the known failures are about these texts."""
    import hashlib
    h = hashlib.sha256()
    for s in seeds:
        h.update(generate(s, family).text().encode())
    return h.hexdigest()[:16]


def generator_version(family: str = "smooth") -> int:
    return imp.IMPULSE_VERSION if family == "impulse" else gen.GENERATOR_VERSION


def load_known(path: Path = KNOWN_FAILURES) -> dict:
    import tomllib
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return {"generator": data.get("generator"), "fingerprint": data.get("fingerprint"),
            "rumoca": {int(k): v for k, v in data.get("rumoca", {}).items()},
            "omc": {int(k): v for k, v in data.get("omc", {}).items()}}


def ratchet(records: list[dict], known: dict[int, dict], sim: str) -> list[str]:
    """What the suite fails on: a seed neither pass/unchanged-both-fail/proven simulator-limit nor
    listed with its class; a listed seed that is now accepted (shrink the list); a listed seed
    whose class changed. A simulator-limit without its proof (a failing control) is never accepted."""
    problems = []
    for r in records:
        s = r["sims"].get(sim)
        if s is None or s["class"] == "skipped":
            continue
        listed = known.get(r["seed"])
        cls = s["class"]
        if cls == "simulator-limit" and not proven(s):
            problems.append(f"seed {r['seed']}: simulator-limit without a failing control: {s['detail'][:300]}")
        elif accepted(s):
            if listed:
                problems.append(f"seed {r['seed']}: listed as {listed['class']} in known_failures.toml [{sim}] but "
                                f"now {cls}: remove the entry (the list only shrinks)")
        elif listed is None:
            problems.append(f"seed {r['seed']}: {cls}: {s['detail'][:300]}")
        elif listed["class"] != cls:
            problems.append(f"seed {r['seed']}: listed as {listed['class']} but now {cls}: {s['detail'][:200]} "
                            f"(update the entry)")
    return problems


def known_draft(records: list[dict], sims: list[str], family: str = "smooth") -> str:
    """TOML entries for the seeds that are not accepted (to review, not to paste blindly)."""
    out = [f"generator = {generator_version(family)}", f'fingerprint = "{fingerprint(family=family)}"', ""]
    for sim in sims:
        out.append(f"[{sim}]")
        for r in records:
            s = r["sims"].get(sim)
            if s and not accepted(s) and s["class"] != "skipped":
                reason = (s.get("kind") or normalise(s["detail"])).replace("\\", "/").replace('"', "'")[:150]
                out.append(f'{r["seed"]} = {{ class = "{s["class"]}", reason = "{reason}" }}')
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--seeds", default="0..99", help="A..B (inclusive), or a comma list of seeds and ranges")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--simulator", choices=["rumoca", "omc", "both"], default="rumoca")
    ap.add_argument("--keep", metavar="DIR", help="keep failing models, outputs and records in DIR/seedN/")
    ap.add_argument("--bin", default=None, help="the mdae-rimis binary (default $MDAE_RIMIS_BIN or target/ci)")
    ap.add_argument("--results", metavar="FILE", help="write the markdown results (e.g. integration/results/campaign.md)")
    ap.add_argument("--json", metavar="FILE", help="write every seed's record as JSON")
    ap.add_argument("--known-failures-draft", metavar="FILE",
                    help="write TOML entries for the failing seeds (a draft of campaign/known_failures.toml)")
    ap.add_argument("--from-json", metavar="FILE", nargs="+",
                    help="run nothing: summarise the records of earlier --json runs (merged per seed, e.g. a "
                         "rumoca run and an omc run) and write --results/--known-failures-draft from them")
    ap.add_argument("--family", choices=FAMILIES, default="smooth",
                    help="smooth: campaign_gen.py (the default); impulse: campaign_impulse.py (impulsive restarts "
                         "known exactly; no per-mode controls; ratchet campaign/known_failures_impulse.toml)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--note", default="", help="a sentence added to the results' header (e.g. the runs' times)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per seed")
    a = ap.parse_args(argv)
    binary = a.bin or default_binary()
    sims = ["rumoca", "omc"] if a.simulator == "both" else [a.simulator]
    if a.one is not None:
        # the worker: JSON on the real stdout, anything the simulators print goes to stderr
        real = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        rec = run_seed(a.one, binary, sims, a.keep, a.family)
        real.write(json.dumps(rec, default=str) + "\n")
        real.flush()
        return 0
    if not Path(binary).is_file():
        print(f"campaign: no binary at {binary} (cargo build --profile ci, or --bin)", file=sys.stderr)
        return 2
    if a.from_json:
        merged: dict[int, dict] = {}
        for f in a.from_json:
            for r in json.loads(Path(f).read_text()):
                m = merged.setdefault(r["seed"], {**r, "sims": {}})
                m["sims"].update(r["sims"])
        records = [merged[k] for k in sorted(merged)]
        if any(r.get("family") == "impulse" for r in records):
            a.family = "impulse"
        sims = [s for s in ("rumoca", "omc") if any(s in r["sims"] for r in records)]
        spec = f"{records[0]['seed']}..{records[-1]['seed']}" if records else ""
        print(table_text(records, sims))
        if a.known_failures_draft:
            Path(a.known_failures_draft).write_text(known_draft(records, sims, a.family))
        if a.results:
            text = results_markdown(records, sims, spec, binary, None, a.family)
            fam = "--family impulse " if a.family == "impulse" else ""
            text = text.replace(f"`integration/campaign_run.py {fam}--seeds {spec}`",
                                "`integration/campaign_run.py --from-json " + " ".join(Path(f).name for f in a.from_json)
                                + "` (" + ", ".join(f"{s}: {sum(1 for r in records if s in r['sims'])} seeds"
                                                     for s in sims) + ")")
            if a.note:
                text = text.replace("\n\nEach seed is", f"\n\n{a.note}\n\nEach seed is", 1)
            Path(a.results).write_text(text)
            print(f"wrote {a.results}")
        return 0
    seeds = parse_seeds(a.seeds)
    start = time.monotonic()

    def progress(rec, done, total):
        if a.verbose:
            cls = " ".join(f"{s}:{v['class']}" for s, v in rec["sims"].items())
            det = "; ".join(v.get("detail", "")[:140] for v in rec["sims"].values() if v["class"] != "pass")
            ctl = (rec["sims"].get("rumoca") or {}).get("control")
            if ctl:  # every visited mode's control: its status, * when it explains the output's
                #   trouble, ^ when the mode needs differentiating (never a proof)
                det += "  [controls: " + " ".join(c["status"] + ("*" if c.get("explains") else "")
                                                  + ("^" if c.get("differentiated") else "")
                                                  for c in ctl["modes"]) + "]"
            print(f"seed {rec['seed']:6} {cls:30} {det}", flush=True)
        elif done % 50 == 0 or done == total:
            print(f"  {done}/{total} seeds, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)

    records = run_campaign(seeds, binary, sims, a.jobs, a.keep, progress, a.family)
    elapsed = time.monotonic() - start
    print(table_text(records, sims))
    print(f"campaign: {len(records)} seeds, {elapsed:.0f} s")
    if a.json:
        Path(a.json).write_text(json.dumps(records, indent=0, default=str))
    if a.known_failures_draft:
        Path(a.known_failures_draft).write_text(known_draft(records, sims, a.family))
        print(f"wrote {a.known_failures_draft}")
    if a.results:
        Path(a.results).write_text(results_markdown(records, sims, a.seeds, binary, elapsed, a.family))
        print(f"wrote {a.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
