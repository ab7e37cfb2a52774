#!/usr/bin/env python3
"""Simulation harness: run one Modelica model in a simulator and describe the run as JSON.

    python integration/harness.py MODEL.mo MODEL_NAME STOP_TIME [--at T ...] [--dt DT]
                                  [--simulator rumoca|omc] [--trajectory] [--no-bracket] [--rtol R] [--atol A]

Importable: ``simulate(path, model, stop_time, output_times, simulator="rumoca", ...)`` returns
the same dict the CLI prints. Standard library only, plus rumoca (imported lazily) for the
rumoca backend. The record:

    {"simulator": "rumoca", "simulator_version": "0.10.2", "file": ..., "model": ...,
     "stop_time": 30.0, "dt": 0.001,
     "status": "ok" | "failed" | "nan" | "skipped",
     "message": null | "the simulator's message",
     "time_reached": null | t,          # only when the simulator itself reports a time
     "failure_bracket": null | [lo, hi],# rumoca only: the harness re-ran shorter simulations;
                                        # it ran to lo and failed before hi (not the simulator's word);
                                        # [0, dt]: fails at the start; null: did not compile
     "output_times": [...], "values": {"x": [value at each output time], ...},
     "events": {"bh": [{"time": t, "value": true}, ...]},   # Boolean variables, from the samples
     "nonfinite": ["y", ...],           # variables with a NaN or infinite sample (not one infinity throughout)
     "elapsed_s": 0.03,
     "trajectory": {"time": [...], "x": [...]}}              # only with trajectory=True

Status: ``ok`` the run reached the stop time with finite values; ``failed`` the simulator raised,
reported a failure, or stopped before the stop time; ``nan`` it "succeeded" but some value is
NaN or infinite (non-finite values are written as null in the JSON); ``skipped`` the simulator
is not available (omc only: neither $OMC nor ``omc`` on PATH). Values at an output time: the
sample at that time (the last one, i.e. the right limit, when an event duplicates the instant),
else linear interpolation for Real variables and the previous sample for Boolean/Integer ones.
Events: for every Boolean variable, each sample whose value differs from the previous sample;
its time is that sample's time (rumoca adds samples at event instants, so this is the event time
to ~1e-13; on a fixed grid it is late by at most one output step).
"""

from __future__ import annotations

import argparse
import bisect
import csv
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time as _time
from pathlib import Path

SIMULATORS = ("rumoca", "omc")
OMC_NOT_FOUND = "omc not found (set OMC=/path/to/omc)"


class HarnessError(Exception):
    """A misuse or misconfiguration of the harness itself (not a simulation outcome)."""


# ---------------------------------------------------------------------------------------------
# Model text helpers
# ---------------------------------------------------------------------------------------------

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DISCRETE_DECL = re.compile(r"\b(Boolean|Integer)\s+([^;]*);")
_NAME = re.compile(r"(?:^|,)\s*([A-Za-z_]\w*)")


def _strip_comments(text: str) -> str:
    return _COMMENT.sub(" ", text)


def _drop_parens(text: str) -> str:
    """Remove parenthesised modifiers, so `a(start=1), b` becomes `a, b`."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def declared_kinds(model_text: str) -> dict[str, str]:
    """Names declared Boolean or Integer in a (flat) model: {"bh": "Boolean", ...}."""
    kinds: dict[str, str] = {}
    for m in _DISCRETE_DECL.finditer(_strip_comments(model_text)):
        decl = _drop_parens(m.group(2)).split("=")[0]
        for part in decl.split(","):
            n = _NAME.match(part.strip())
            if n:
                kinds[n.group(1)] = m.group(1)
    return kinds


def model_names(model_text: str) -> list[str]:
    """The classes a file defines as `model`/`class`/`block`, in order."""
    return re.findall(r"^\s*(?:model|class|block)\s+([A-Za-z_]\w*)", _strip_comments(model_text), re.M)


# ---------------------------------------------------------------------------------------------
# Turning a sampled trajectory into the record
# ---------------------------------------------------------------------------------------------


def _finite(v: float) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def _json_num(v):
    return v if _finite(v) else None


def value_at(times: list[float], values: list[float], t: float, step: bool) -> float | None:
    """The value at time t: exact sample (last one at that instant), else interpolation."""
    if not times:
        return None
    eps = 1e-9 * max(1.0, abs(t))
    if t < times[0] - eps or t > times[-1] + eps:
        return None
    i = bisect.bisect_right(times, t + eps) - 1  # last sample with time <= t (+eps)
    if i < 0:
        return None
    if abs(times[i] - t) <= eps or step or i + 1 >= len(times):
        return values[i]
    t0, t1 = times[i], times[i + 1]
    if t1 == t0:
        return values[i + 1]
    w = (t - t0) / (t1 - t0)
    return values[i] + w * (values[i + 1] - values[i])


def boolean_events(times: list[float], values: list[float]) -> list[dict]:
    events = []
    for i in range(1, len(times)):
        if values[i] != values[i - 1]:
            events.append({"time": times[i], "value": bool(values[i] >= 0.5)})
    return events


def build_record(base: dict, times: list[float], data: dict[str, list[float]], kinds: dict[str, str],
                 output_times: list[float], trajectory: bool) -> dict:
    rec = dict(base)
    # A variable that is the same infinity at every sample is a value the model declares (omc
    # writes `inf` for a variable bound to Modelica.Constants.inf: RoomCO2WithControls), not a
    # run gone wrong; a NaN, or an infinity a finite variable reaches, is.
    def constant_inf(vs):
        return bool(vs) and math.isinf(vs[0]) and all(v == vs[0] for v in vs)

    nonfinite = sorted(n for n, vs in data.items()
                       if not all(_finite(v) for v in vs) and not constant_inf(vs))
    reached = times[-1] if times else None
    stop = rec["stop_time"]
    rec["nonfinite"] = nonfinite
    rec["values"] = {
        n: [_json_num(value_at(times, vs, t, kinds.get(n) is not None)) for t in output_times]
        for n, vs in data.items()
    }
    rec["events"] = {n: boolean_events(times, vs) for n, vs in data.items() if kinds.get(n) == "Boolean"}
    if reached is None or reached < stop - 1e-9 * max(1.0, abs(stop)):
        rec["status"] = "failed"
        rec["message"] = rec.get("message") or f"the run stopped at t = {reached}, before the stop time {stop}"
        if rec.get("time_reached") is None:
            rec["time_reached"] = reached
    elif nonfinite:
        rec["status"] = "nan"
        rec["message"] = rec.get("message") or "non-finite values in: " + ", ".join(nonfinite)
    else:
        rec["status"] = "ok"
    if trajectory:
        rec["trajectory"] = {"time": list(times), **{n: list(vs) for n, vs in data.items()}}
    return rec


def _base(simulator: str, path: Path, model: str, stop_time: float, dt: float,
          output_times: list[float]) -> dict:
    return {
        "simulator": simulator, "simulator_version": None, "file": str(path), "model": model,
        "stop_time": stop_time, "dt": dt, "status": None, "message": None, "time_reached": None,
        "failure_bracket": None, "output_times": list(output_times), "values": {}, "events": {},
        "nonfinite": [], "elapsed_s": None,
    }


# ---------------------------------------------------------------------------------------------
# rumoca
# ---------------------------------------------------------------------------------------------


# rumoca 0.10.2's BDF integrator checks its interpolant against its own previous point after
# every step; near a stop time or a time event it sometimes fails that check on models as plain
# as two decoupled linear ODEs with two unused time events (`integration/results/campaign.md`).
# The failure says nothing about the model: the run is repeated once with rumoca's other
# integrator, and the record says so (`solver_retry`).
BDF_SAMPLER_DEFECT = "accepted-interval left endpoint sampler state"
# The same integrator can also stall: steps of ~1e-6 s until rumoca's wall-time limit, after a
# time event that freezes every state while a nonlinear algebraic block with a second root across
# a relation's threshold moves with time. Four equations of no tool show it
# (`integration/rumoca_defects/BdfStall.mo`, checked by test_harness.py): the BDF run
# times out, rk-like runs it in 0.1 s to its exact solution. A run that reaches the wall-time
# limit is repeated once with rk-like too, and the record says so.
BDF_STALL = "timeout after"
RETRY_SOLVER = "rk-like"


# rumoca 0.10.2 solves a nonlinear algebraic block that depends on a mode (under an `if`, or
# with an if-expression) by Newton's method from the values committed at the last event, not
# from the last accepted step: a root that moves far from there is lost for the other root
# (`integration/rumoca_defects/FrozenNewtonSeed.mo`, checked by test_harness.py: two equations
# under `if time < 5`, no event at all, the other root from t = 0.947). Every event commits a
# new seed, so the same model with a do-nothing event every SEED_REFRESH_PERIOD seconds
# (`seed_refresh`) tracks its root: the proof the campaign asks of an output wrong this way.
SEED_REFRESH_PERIOD = 0.01
SEED_REFRESH_TICK = "rumoca_seed_tick"


def seed_refresh(text: str, period: float = SEED_REFRESH_PERIOD) -> str | None:
    """The model `text` with a do-nothing event every `period` seconds (an Integer counting
    `sample(0, period)`), which changes none of its variables; None if it has no top-level
    `equation` section to put it in."""
    lines = text.split("\n")
    sections = [k for k, l in enumerate(lines) if l in ("equation", "initial equation")]
    if "equation" not in lines:
        return None
    decl = (f"  Integer {SEED_REFRESH_TICK}(start = 0, fixed = true) \"a do-nothing event every {period:g} s "
            f"(harness.seed_refresh)\";")
    tick = f"  when sample(0, {period:g}) then\n    {SEED_REFRESH_TICK} = pre({SEED_REFRESH_TICK}) + 1;\n  end when;"
    at = lines.index("equation")
    lines.insert(at + 1, tick)
    lines.insert(sections[0], decl)
    return "\n".join(lines)


def bdf_defect(message: str) -> str | None:
    """Which defect of rumoca's BDF integrator a failed run's message shows, if any."""
    if BDF_SAMPLER_DEFECT in message:
        return "failed its own interpolation check"
    if BDF_STALL in message:
        return "stalled until the wall-time limit"
    return None


def _rumoca_run(rumoca, file_in_tmp: Path, model: str, stop_time: float, dt: float,
                rtol, atol, max_wall_seconds, start_time: float = 0.0, solver: str | None = None):
    cfg = {}
    if solver is not None:
        cfg["solver"] = solver
    if rtol is not None:
        cfg["rtol"] = rtol
    if atol is not None:
        cfg["atol"] = atol
    if max_wall_seconds is not None:
        cfg["max_wall_seconds"] = max_wall_seconds
    m = rumoca.Session().load(str(file_in_tmp), model=model)
    return m.simulate(t=(start_time, stop_time), dt=dt, config=rumoca.SimConfig(**cfg) if cfg else None)


def _error_message(e: BaseException) -> str:
    msg = str(e).strip() or repr(e)
    return f"{type(e).__name__}: {msg}"


def simulate_rumoca(path: Path, model: str, stop_time: float, output_times: list[float], dt: float,
                    trajectory: bool = False, rtol=None, atol=None, max_wall_seconds: float = 60.0,
                    bracket_failure: bool = True, start_time: float = 0.0) -> dict:
    """start_time: rumoca 0.10.2 starts `time` there (its initial system is solved at start_time;
    the campaign's per-mode controls run from a mode's first instant)."""
    import rumoca  # the project's .venv has rumoca==0.10.2

    rec = _base("rumoca", path, model, stop_time, dt, output_times)
    rec["start_time"] = start_time
    rec["simulator_version"] = rumoca.version()
    text = path.read_text(encoding="utf-8")
    kinds = declared_kinds(text)
    start = _time.monotonic()
    # rumoca loads every .mo in the folder of the file: give it a folder with this file alone.
    with tempfile.TemporaryDirectory(prefix="mdae-sim-") as tmp:
        local = Path(tmp) / path.name
        shutil.copyfile(path, local)

        solver = None

        def attempt(stop):
            try:
                return _rumoca_run(rumoca, local, model, stop, dt, rtol, atol, max_wall_seconds, start_time,
                                   solver), None
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # rumoca errors, and pyo3 panics (BaseException)
                return None, e

        result, err = attempt(stop_time)
        if err is not None and bdf_defect(_error_message(err)):
            rec["solver_retry"] = {"solver": RETRY_SOLVER, "default_message": _error_message(err),
                                   "defect": bdf_defect(_error_message(err))}
            solver = RETRY_SOLVER
            result, err = attempt(stop_time)
        if err is not None:
            rec["status"] = "failed"
            rec["message"] = _error_message(err)
            compile_like = type(err).__name__ in ("ParseError", "CompileError", "StructuralParamError")
            # A run stopped by the wall-time limit is not located in time: no bisection (each
            # of its runs could take the limit again).
            if bracket_failure and not compile_like and BDF_STALL not in rec["message"]:
                rec["failure_bracket"] = _bracket(attempt, stop_time, dt, start_time)
            rec["elapsed_s"] = round(_time.monotonic() - start, 4)
            return rec
    times = [float(t) for t in result.time]
    raw = result.to_dict()["data"]
    data = {n: [float(v) for v in raw[n]] for n in result.names}
    if result.termination:
        rec["message"] = f"termination: {result.termination}"
    rec = build_record(rec, times, data, kinds, output_times, trajectory)
    rec["elapsed_s"] = round(_time.monotonic() - start, 4)
    return rec


def _bracket(attempt, stop_time: float, dt: float, start_time: float = 0.0) -> list[float] | None:
    """[lo, hi]: a run to lo succeeds, a run to hi fails; hi - lo <= max(dt, 1e-3), at most 24 runs.

    Measured by the harness (rumoca's messages carry no time), so it is reported separately from
    time_reached. [start, first] when even a run to one output step fails (a failure at the start)."""
    hi = stop_time
    first = min(stop_time, start_time + max(dt, 1e-6))
    _, e = attempt(first)
    if e is not None:
        return [start_time, first]
    lo = first
    for _ in range(24):
        if hi - lo <= max(dt, 1e-3):
            break
        mid = (lo + hi) / 2
        _, e = attempt(mid)
        if e is None:
            lo = mid
        else:
            hi = mid
    return [lo, hi]


# ---------------------------------------------------------------------------------------------
# omc
# ---------------------------------------------------------------------------------------------


def find_omc() -> str | None:
    """$OMC if set (it must be executable), else `omc` on PATH, else None."""
    env = os.environ.get("OMC")
    if env:
        p = shutil.which(env)
        if p is None:
            raise HarnessError(f"OMC={env!r} is not an executable omc binary")
        return p
    return shutil.which("omc")


def _mos_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def omc_script(file_name: str, model: str, stop_time: float, intervals: int, tolerance=None) -> str:
    tol = f", tolerance={tolerance!r}" if tolerance is not None else ""
    return (
        f"loadFile({_mos_string(file_name)}); getErrorString();\n"
        f"simulate({model}, startTime=0.0, stopTime={float(stop_time)!r}, numberOfIntervals={intervals}"
        f"{tol}, outputFormat=\"csv\", fileNamePrefix={_mos_string(model)}); getErrorString();\n"
    )


OMC_TIMES = ("timeFrontend", "timeBackend", "timeSimCode", "timeTemplates", "timeCompile", "timeSimulation",
             "timeTotal")
_OMC_FIELD = r'{}\s*=\s*"((?:[^"\\]|\\.)*)"'
_OMC_TIME = re.compile(r"\b(?:at|reached)\s+time\s*[=:]?\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def parse_omc_output(stdout: str) -> dict:
    """The fields of omc's SimulationResult record printed by a .mos run, plus its other text."""
    def field(name):
        m = re.search(_OMC_FIELD.format(name), stdout, re.S)
        return m.group(1).replace('\\"', '"').replace("\\\\", "\\") if m else None

    result_file, messages = field("resultFile"), field("messages")
    # omc's own timings of the run (issue 30, point 7: the cost of our rewrite in the tool that
    # compiles it), in seconds; absent fields are left out.
    times = {}
    for name in OMC_TIMES:
        m = re.search(rf"\b{name}\s*=\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)", stdout)
        if m:
            times[name] = float(m.group(1))
    # Everything outside the record: loadFile's true/false and the getErrorString() texts.
    outside = re.sub(r"record SimulationResult.*?end SimulationResult;", " ", stdout, flags=re.S)
    extra = "\n".join(
        line.strip().strip('"').strip() for line in outside.splitlines()
        if line.strip() and line.strip() not in ('true', '""')
    )
    return {"resultFile": result_file, "messages": messages, "other": extra, "times": times}


def omc_time_reached(text: str) -> float | None:
    times = [float(m.group(1)) for m in _OMC_TIME.finditer(text or "")]
    return times[-1] if times else None


def read_omc_csv(path: Path) -> tuple[list[float], dict[str, list[float]]]:
    def num(s: str) -> float:
        s = s.strip().strip('"')
        if s.lower() == "true":
            return 1.0
        if s.lower() == "false":
            return 0.0
        return float(s)

    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = [h.strip().strip('"') for h in rows[0]]
    cols: dict[str, list[float]] = {h: [] for h in header if h}  # omc ends each line with a comma
    for row in rows[1:]:
        if not row:
            continue
        for h, cell in zip(header, row):
            if h:
                cols[h].append(num(cell))
    times = cols.pop("time")
    return times, cols


def run_group(cmd: list[str], timeout: float, cwd=None) -> subprocess.CompletedProcess:
    """`subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)` in a process group of
    its own, killed whole on a timeout or an interruption (issue 30, point 6): omc starts the
    compiled simulation as a child, which outlived `run`'s kill of omc alone (runs that had timed
    out were still computing 40 minutes later). Raises `subprocess.TimeoutExpired` as `run` does."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise
    finally:
        # Whatever the group left behind once its leader is done (a simulation executable
        # omc failed to wait for) goes with it.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def simulate_omc(path: Path, model: str, stop_time: float, output_times: list[float], dt: float,
                 trajectory: bool = False, tolerance=None, timeout: float = 300.0) -> dict:
    rec = _base("omc", path, model, stop_time, dt, output_times)
    omc = find_omc()
    if omc is None:
        rec["status"] = "skipped"
        rec["message"] = OMC_NOT_FOUND
        return rec
    start = _time.monotonic()
    try:
        ver = subprocess.run([omc, "--version"], capture_output=True, text=True, timeout=60)
        rec["simulator_version"] = (ver.stdout or ver.stderr).strip() or None
    except (OSError, subprocess.TimeoutExpired):
        pass
    text = path.read_text(encoding="utf-8")
    kinds = declared_kinds(text)
    intervals = max(1, round(stop_time / dt))
    with tempfile.TemporaryDirectory(prefix="mdae-omc-") as tmp:
        local = Path(tmp) / path.name
        shutil.copyfile(path, local)
        (Path(tmp) / "run.mos").write_text(omc_script(path.name, model, stop_time, intervals, tolerance))
        try:
            proc = run_group([omc, "run.mos"], timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            rec.update(status="failed", message=f"omc did not finish within {timeout} s",
                       elapsed_s=round(_time.monotonic() - start, 4))
            return rec
        parsed = parse_omc_output(proc.stdout)
        rec["omc_times"] = parsed["times"]
        msg_parts = [p for p in (parsed["messages"], parsed["other"], proc.stderr.strip()) if p]
        message = "\n".join(msg_parts) or None
        result_file = parsed["resultFile"]
        csv_path = None
        if result_file:
            csv_path = Path(result_file) if Path(result_file).is_absolute() else Path(tmp) / result_file
        failed_text = (parsed["messages"] or "") + "\n" + (parsed["other"] or "")
        if (proc.returncode != 0 or not result_file or csv_path is None or not csv_path.exists()
                or "Simulation execution failed" in failed_text):
            rec["status"] = "failed"
            rec["message"] = message or f"omc exited with code {proc.returncode} and no result file"
            rec["time_reached"] = omc_time_reached(failed_text)
            rec["elapsed_s"] = round(_time.monotonic() - start, 4)
            return rec
        times, data = read_omc_csv(csv_path)
    rec["message"] = message
    rec = build_record(rec, times, data, kinds, output_times, trajectory)
    rec["elapsed_s"] = round(_time.monotonic() - start, 4)
    return rec


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def simulate(path, model: str, stop_time: float, output_times=(), simulator: str = "rumoca",
             dt: float | None = None, trajectory: bool = False, **options) -> dict:
    """Run `model` from the .mo file `path` from 0 (rumoca: option start_time) to `stop_time`; see the
    module docstring."""
    path = Path(path)
    if not path.is_file():
        raise HarnessError(f"{path}: no such file")
    if stop_time <= options.get("start_time", 0.0):
        raise HarnessError("stop_time must be after the start time")
    if dt is None:
        dt = stop_time / 500
    output_times = [float(t) for t in output_times]
    if simulator == "rumoca":
        return simulate_rumoca(path, model, float(stop_time), output_times, float(dt), trajectory, **options)
    if simulator == "omc":
        return simulate_omc(path, model, float(stop_time), output_times, float(dt), trajectory, **options)
    raise HarnessError(f"unknown simulator {simulator!r} (one of {', '.join(SIMULATORS)})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Simulate a Modelica model and print the run as JSON.")
    ap.add_argument("file", help="the .mo file")
    ap.add_argument("model", help="the model (class) name")
    ap.add_argument("stop_time", type=float)
    ap.add_argument("--at", type=float, nargs="*", default=[], metavar="T", help="output times")
    ap.add_argument("--dt", type=float, default=None, help="output step (default stop_time/500)")
    ap.add_argument("--simulator", choices=SIMULATORS, default="rumoca")
    ap.add_argument("--trajectory", action="store_true", help="include every sample")
    ap.add_argument("--no-bracket", action="store_true",
                    help="rumoca: do not re-run shorter simulations to bracket the failure time")
    ap.add_argument("--rtol", type=float, default=None, help="rumoca: solver relative tolerance")
    ap.add_argument("--atol", type=float, default=None, help="rumoca: solver absolute tolerance")
    ap.add_argument("--tolerance", type=float, default=None, help="omc: the solver tolerance of simulate()")
    ap.add_argument("--max-wall-seconds", type=float, default=None,
                    help="rumoca: its own limit on one simulation's wall time (default 60)")
    args = ap.parse_args(argv)
    opts = {}
    if args.simulator == "rumoca" and args.no_bracket:
        opts["bracket_failure"] = False
    if args.simulator == "omc" and args.tolerance is not None:
        opts["tolerance"] = args.tolerance
    if args.simulator == "rumoca":
        opts.update({k: v for k, v in (("rtol", args.rtol), ("atol", args.atol),
                                        ("max_wall_seconds", args.max_wall_seconds)) if v is not None})
    try:
        rec = simulate(args.file, args.model, args.stop_time, args.at, args.simulator, args.dt,
                       args.trajectory, **opts)
    except HarnessError as e:
        print(f"harness: {e}", file=sys.stderr)
        return 2
    if "trajectory" in rec:
        # Strict JSON: a non-finite sample is null (omc writes `inf` for a variable bound to
        # Modelica.Constants.inf: RoomCO2WithControls).
        rec["trajectory"] = {n: [_json_num(v) for v in vs] for n, vs in rec["trajectory"].items()}
    json.dump(rec, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
