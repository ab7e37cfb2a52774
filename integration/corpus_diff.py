#!/usr/bin/env python3
"""Differential simulation check over the corpus: original vs mdae-rimis output, both in rumoca.

    .venv/bin/python integration/corpus_diff.py [--corpus DIR] [--only SUBSTRING ...] [--jobs 2]
                                                [--timeout 300] [--rtol 1e-4] [--atol 1e-6]
                                                [--keep DIR] [--results FILE | --no-results]

1. Runs the mdae-rimis binary ($MDAE_RIMIS_BIN, else target/release/mdae-rimis) in batch mode
   (`--out-dir`) over ../shared/corpus/{omc-flat,msl-flat} and keeps the outputs that hold a line
   `  // REPL:` (the models actually rewritten; the others are passed through unchanged).
2. For each, simulates the original and the output with rumoca through harness.py's CLI in a
   subprocess (killed after --timeout seconds) from 0 to the stop time of the original's
   `experiment(StopTime = ...)` annotation, else 1.0 s, output step stop/500, with the trajectory.
3. Classifies each pair:
     agree         both ok, every variable present in both within |a-b| <= atol + rtol*max(|a|,|b|)
                   at the 21 sample times k*stop/20 (k = 0..20)
     agree off events   both ok; every deviation beyond the tolerance is at a sample time within
                   one output step of an event instant of either run (rumoca samples events, so
                   an instant shows as a repeated time); the same values compared away from them agree
     MISMATCH      both ok, a deviation beyond the tolerance away from event instants
     fixed         the original fails (or returns NaN), the output simulates
     REGRESSION    the original simulates, the output fails
     both fail     neither simulates (both messages, shortened)
     timeout       a run was killed after --timeout seconds (said which)
   Where the original fails at a time rumoca names (`at t=...`), both are run again to 95% of that
   time and compared there: the note says `before the original fails: agree on [0, t]`, and a
   deviation there makes the verdict MISMATCH.
   Variable names are compared with Base Modelica quotes removed ('a.b' and a.b are one name);
   variables of only one side (the output's replicates, dummy derivatives, ...) are not compared.
4. Prints a table and a summary line, and writes the table as markdown to
   integration/results/corpus_diff.md.

Importable: `diff_pair(original, output, ...)` runs one pair, `find_rewritten(...)` the batch step.
Standard library only (rumoca runs inside harness.py).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
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
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_DIRS = ("omc-flat", "msl-flat")
RESULTS = HERE / "results" / "corpus_diff.md"
HARNESS = HERE / "harness.py"
SAMPLES = 20  # sample times k*stop/SAMPLES, k = 0..SAMPLES
STEPS = 500  # output step stop/STEPS (harness default)

sys.path.insert(0, str(HERE))
import harness  # noqa: E402  (text helpers only; the simulations run in subprocesses)
import omc_notation  # noqa: E402


# ---------------------------------------------------------------------------------------------
# Model text
# ---------------------------------------------------------------------------------------------

_IDENT = r"(?:'(?:[^'\\]|\\.)*'|[A-Za-z_][\w.]*)"
_TOP_CLASS = re.compile(rf"^(?:(?:encapsulated|partial|final)\s+)*(model|class|block|package)\s+({_IDENT})", re.M)
_NESTED_MODEL = re.compile(rf"^\s+(?:model|class|block)\s+({_IDENT})", re.M)
_STOP = re.compile(r"\bexperiment\s*\([^)]*?\bStopTime\s*=\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def _strip_comments(text: str) -> str:
    # comments, but not inside quoted identifiers or strings (good enough for flat files:
    # strings with `//` are rare and only matter if they precede the class line)
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def simulated_class(text: str) -> str | None:
    """The class to simulate in a flat file: the last top-level model/class/block (omc prints the
    functions and records first); for a Base Modelica `package 'P' model 'M'`, `'P'.'M'`."""
    body = _strip_comments(text)
    tops = _TOP_CLASS.findall(body)
    if not tops:
        return None
    kind, name = tops[-1]
    if kind != "package":
        return name
    nested = _NESTED_MODEL.findall(body)
    return f"{name}.{nested[-1]}" if nested else None


def output_model(text: str) -> str | None:
    """The `model X` line of an mdae-rimis output."""
    m = re.search(rf"^model\s+({_IDENT})", text, re.M)
    return m.group(1) if m else None


def stop_time(text: str) -> tuple[float, str]:
    """(stop time, where it comes from): the experiment annotation's StopTime, else 1.0."""
    m = _STOP.search(text)
    if m and float(m.group(1)) > 0:
        return float(m.group(1)), "experiment"
    return 1.0, "default"


def is_rewritten(text: str) -> bool:
    return any(line.startswith("  // REPL:") for line in text.splitlines())


# omc's flat notation (dotted names, scalarised arrays, records by their fields, inline enumerations)
# is not Modelica; for such files both sides are given to rumoca in the form omc_notation.adapt
# writes (meaning-preserving; the table lists the adaptations a pair needed).
RUMOCA_CLASS = omc_notation.RUMOCA_CLASS
needs_adaptation = omc_notation.needs_adaptation


def norm(name: str) -> str:
    """A variable name without Base Modelica quotes: 'a.b' -> a.b."""
    return name[1:-1] if len(name) >= 2 and name[0] == name[-1] == "'" else name


# ---------------------------------------------------------------------------------------------
# The binary
# ---------------------------------------------------------------------------------------------


def binary() -> str:
    b = os.environ.get("MDAE_RIMIS_BIN")
    return b if b else str(ROOT / "target" / "release" / "mdae-rimis")


def find_rewritten(out_dir: Path, corpus: Path = CORPUS, dirs=CORPUS_DIRS, only=None) -> tuple[list[tuple[Path, Path]], str]:
    """Runs the binary in batch mode over the corpus folders into out_dir; returns the
    (original, output) pairs whose output is rewritten, and the batch summary line."""
    paths = [str(corpus / d) for d in dirs if (corpus / d).is_dir()]
    if not paths:
        raise FileNotFoundError(f"no corpus folder {', '.join(str(corpus / d) for d in dirs)}")
    proc = subprocess.run([binary(), "--out-dir", str(out_dir), *paths], capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{binary()} --out-dir: exit {proc.returncode}: {proc.stderr.strip()[:500]}")
    pairs, summary = [], ""
    for line in (proc.stdout + "\n" + proc.stderr).splitlines():
        m = re.match(r"^ok\s+(.*?) -> (.*?)(?: \(\d+ warnings?\))?$", line)
        if m:
            orig, out = Path(m.group(1)), Path(m.group(2))
            if only and not any(s in orig.name for s in only):
                continue
            if out.is_file() and is_rewritten(out.read_text(encoding="utf-8")):
                pairs.append((orig, out))
        elif re.match(r"^\d+ files: ", line):
            summary = line.strip()
    return sorted(pairs), summary


def rimis_one(original: Path, out_path: Path) -> tuple[bool, str]:
    """One file through the binary into out_path; (ok, stderr)."""
    proc = subprocess.run([binary(), "-o", str(out_path), str(original)], capture_output=True, text=True,
                          timeout=600)
    return proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------------------------
# Simulation (harness.py's CLI in a subprocess, so a hang is killed)
# ---------------------------------------------------------------------------------------------


SIM_RTOL, SIM_ATOL = 1e-8, 1e-10  # solver tolerances: at rumoca's defaults, integration error alone
                                  # exceeds the 1e-4 comparison tolerance (SlewRateLimiter: 1.3e-4)


# The simulator of both sides (`--simulator`): rumoca, or omc (issue 30), which reads its own flat
# notation, so no adaptation; omc gets the tolerance SIM_RTOL.
SIMULATOR = "rumoca"


def simulate(path: Path, model: str, stop: float, timeout: float) -> dict:
    """harness record, or {"status": "timeout"} / {"status": "error"} (harness misuse)."""
    dt = stop / STEPS
    times = [stop * k / SAMPLES for k in range(SAMPLES + 1)]
    cmd = [sys.executable, str(HARNESS), str(path), model, repr(stop), "--dt", repr(dt), "--trajectory",
           "--simulator", SIMULATOR]
    if SIMULATOR == "rumoca":
        cmd += ["--no-bracket", "--rtol", repr(SIM_RTOL), "--atol", repr(SIM_ATOL),
                "--max-wall-seconds", repr(max(1.0, timeout - 10.0))]
    else:
        cmd += ["--tolerance", repr(SIM_RTOL)]
    cmd += ["--at", *[repr(t) for t in times]]
    start = time.monotonic()
    try:
        proc = harness.run_group(cmd, timeout)  # the whole process group goes on a timeout
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "message": f"killed after {timeout:g} s", "elapsed_s": timeout}
    if proc.returncode != 0:
        return {"status": "error", "message": (proc.stderr or proc.stdout).strip() or f"exit {proc.returncode}",
                "elapsed_s": round(time.monotonic() - start, 3)}
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        return {"status": "error", "message": f"unreadable harness output: {e}: {proc.stderr.strip()[:300]}",
                "elapsed_s": round(time.monotonic() - start, 3)}


def event_times(rec: dict) -> list[float]:
    """Event instants of a run: times repeated in the sampled trajectory."""
    ts = (rec.get("trajectory") or {}).get("time") or []
    return sorted({ts[i] for i in range(1, len(ts)) if ts[i] == ts[i - 1]})


def near(t: float, events: list[float], window: float) -> bool:
    return any(abs(t - e) <= window for e in events)


def compare(a: dict, b: dict, rtol: float, atol: float) -> dict:
    """Every model variable present in both records (names without quotes) at the common output
    times. rumoca's internal `$…` entries (e.g. `$state_coordinates[3]`, indexed by its own
    state order, which differs between the two models) are not model variables: skipped."""
    va = {norm(k): v for k, v in a["values"].items() if not k.startswith("$")}
    vb = {norm(k): v for k, v in b["values"].items() if not k.startswith("$")}
    common = sorted(set(va) & set(vb))
    times = a["output_times"]
    window = 1.0001 * a.get("dt", 0.0)
    events = sorted(set(event_times(a)) | set(event_times(b)))
    at_event = [near(t, events, window) for t in times]
    worst = {"all": None, "off": None}  # (ratio, var, t, x_orig, x_out)
    for n in common:
        for i, t in enumerate(times):
            x, y = va[n][i], vb[n][i]
            if x is None or y is None:
                ratio = 0.0 if x is None and y is None else math.inf
            else:
                ratio = abs(x - y) / (atol + rtol * max(abs(x), abs(y)))
            cand = (ratio, n, t, x, y)
            for key in ("all", "off"):
                if key == "off" and at_event[i]:
                    continue
                if worst[key] is None or ratio > worst[key][0]:
                    worst[key] = cand
    return {"common": len(common), "only_original": len(set(va) - set(vb)), "only_output": len(set(vb) - set(va)),
            "worst": worst["all"], "worst_off_events": worst["off"], "events": len(events),
            "samples_at_events": sum(at_event)}


# What a rumoca message means for the comparison (checked on the corpus, 2026-11-25): a limit of
# rumoca 0.10.2 or of the adaptation, said in the table before the message itself.
_WHY = [
    (r"ExternalCombiTable1D|ExternalCombiTimeTable", "[rumoca runs no external C function: an MSL table "
     "(ModelicaStandardTables) that omc_tables cannot write out] "),
    (r"impure external function", "[rumoca runs no external function (LAPACK)] "),
    (r"tuple elements in when-equation", "[rumoca: a tuple assignment in a when-equation to an array omc "
     "scalarised] "),
    (r"more than one semantic definition owner", "[rumoca: Boolean alias equations not in solved form] "),
    (r"der\(\.\.\.\) must have exactly one", "[rumoca: der() of an expression] "),
    (r"event condition equations did not converge|event iteration at t=", "[rumoca fails at an event] "),
    (r"missing state mapping for event reinitialization", "[rumoca: internal error at index reduction] "),
    (r"singular in its active branch combination", "[rumoca finds the model singular in a mode] "),
    (r"unexpected `\(`", "[not adapted: omc's partial application `function f(#(x))`] "),
    (r"`algorithm` is a reserved keyword", "[not adapted: omc's array assignment `{a, b} := pre({c, d})`] "),
    (r"timeout after", "[rumoca's wall-time limit] "),
]


def why(msg) -> str:
    for pattern, text in _WHY:
        if msg and re.search(pattern, msg):
            return text
    return ""


def before_failure(a: dict, b: dict, stop: float, run, rtol: float, atol: float) -> tuple[float, dict | None] | None:
    """Where the original fails at a time rumoca names (`... at t=0.0068`) and the output is not
    known to fail earlier: both runs again to 95% of that time and compared there, so that a
    pair whose original rumoca cannot finish is still compared as far as it goes.
    (t, comparison or None when a shorter run failed), or None when not applicable."""
    if a["status"] != "failed" or b["status"] not in ("ok", "failed", "timeout"):
        return None
    m = re.search(r"\bat t=([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)", a.get("message") or "")
    if m is None or not 1e-3 * stop <= float(m.group(1)) < stop:
        return None
    t = 0.95 * float(m.group(1))
    a2, b2 = run(t)
    if a2["status"] != "ok" or b2["status"] != "ok":
        return t, None
    return t, compare(a2, b2, rtol, atol)


def short(msg, n=110) -> str:
    s = " ".join((msg or "").split())
    return s if len(s) <= n else s[: n - 3] + "..."


def fmt_dev(w) -> str:
    if w is None:
        return "-"
    ratio, n, t, x, y = w
    if ratio == 0:
        return "0"
    absd = math.inf if x is None or y is None else abs(x - y)
    return f"{absd:.3g} ({ratio:.3g}x tol) {n} @ t={t:g}: {x!r} vs {y!r}"


def diff_pair(original: Path, output: Path, timeout: float = 60.0, rtol: float = 1e-4, atol: float = 1e-6) -> dict:
    """Simulates both sides of one pair and classifies it (see the module docstring)."""
    otext = original.read_text(encoding="utf-8")
    utext = output.read_text(encoding="utf-8")
    row = {"name": original.name, "folder": original.parent.name, "original": str(original), "output": str(output)}
    omodel, umodel = simulated_class(otext), output_model(utext)
    stop, stop_src = stop_time(otext)
    row.update(model=umodel or omodel or "?", stop=stop, stop_source=stop_src)
    if omodel is None or umodel is None:
        row.update(orig_status="-", out_status="-", verdict="error", deviation="-",
                   note=f"no class found in the {'original' if omodel is None else 'output'}")
        return row
    with tempfile.TemporaryDirectory(prefix="corpus-pair-") as tmp:
        if SIMULATOR == "rumoca" and (needs_adaptation(omodel) or needs_adaptation(umodel)):
            row["adapted"] = True
            pa, pb = Path(tmp) / "original" / original.name, Path(tmp) / "output" / output.name
            pa.parent.mkdir()
            pb.parent.mkdir()
            atext, aused = omc_notation.adapt(otext, omodel)
            btext, bused = omc_notation.adapt(utext, umodel)
            row["adapted"] = sorted(set(aused) | set(bused))
            pa.write_text(atext, encoding="utf-8")
            pb.write_text(btext, encoding="utf-8")
            runs = ((pa, RUMOCA_CLASS), (pb, RUMOCA_CLASS))
        else:
            runs = ((original, omodel), (output, umodel))
        a, b = (simulate(path, model, stop, timeout) for path, model in runs)
        prefix = before_failure(a, b, stop, lambda t: [simulate(p, m, t, timeout) for p, m in runs], rtol, atol)
    build = [sum((r.get("omc_times") or {}).get(k, 0.0) for k in ("timeBackend", "timeSimCode", "timeTemplates",
                                                                   "timeCompile")) for r in (a, b)]
    if a.get("omc_times") and b.get("omc_times"):
        row["build"] = f"{build[0]:.1f} → {build[1]:.1f} s"
    row["simulator_version"] = a.get("simulator_version") or b.get("simulator_version")
    row.update(orig_status=a["status"], out_status=b["status"], orig_message=a.get("message"),
               out_message=b.get("message"), elapsed_s=round((a.get("elapsed_s") or 0) + (b.get("elapsed_s") or 0), 2))
    oa, ob = a["status"] == "ok", b["status"] == "ok"
    row["deviation"] = "-"
    if "timeout" in (a["status"], b["status"]) or "error" in (a["status"], b["status"]):
        which = [s for s, r in (("original", a), ("output", b)) if r["status"] in ("timeout", "error")]
        row["verdict"] = "timeout" if all(r["status"] != "error" for r in (a, b)) else "error"
        row["note"] = "; ".join(f"{w}: {short((a if w == 'original' else b).get('message'), 80)}" for w in which)
        if row["verdict"] == "timeout" and (oa or ob):
            row["note"] += f"; the {'original' if oa else 'output'} simulates"
    elif oa and ob:
        c = compare(a, b, rtol, atol)
        row["compare"] = c
        row["deviation"] = fmt_dev(c["worst"])
        base = (f"{c['common']} vars compared ({c['only_output']} only in output, {c['only_original']} only in "
                f"original), {c['events']} event instants")
        if c["common"] == 0:
            row["verdict"] = "MISMATCH"
            row["note"] = "no variable in common; " + base
        elif c["worst"][0] <= 1.0:
            row["verdict"] = "agree"
            row["note"] = base
        elif c["worst_off_events"] is None or c["worst_off_events"][0] <= 1.0:
            row["verdict"] = "agree off events"
            row["note"] = (f"{base}; beyond tolerance only at sample times within one step of an event "
                           f"({c['samples_at_events']} such samples); off events worst {fmt_dev(c['worst_off_events'])}")
        else:
            row["verdict"] = "MISMATCH"
            row["note"] = base
            if c["worst_off_events"] is not c["worst"]:
                row["note"] += f"; off events worst {fmt_dev(c['worst_off_events'])}"
    elif ob:
        row["verdict"] = "fixed"
        row["note"] = f"original {a['status']}: {why(a.get('message'))}{short(a.get('message'), 90)}"
    elif oa:
        row["verdict"] = "REGRESSION"
        row["note"] = f"output {b['status']}: {why(b.get('message'))}{short(b.get('message'), 90)}"
    else:
        row["verdict"] = "both fail"
        row["note"] = (f"original: {why(a.get('message'))}{short(a.get('message'), 70)} / "
                       f"output: {why(b.get('message'))}{short(b.get('message'), 70)}")
    if prefix is not None:
        t, c = prefix
        if c is None:
            row["note"] += f"; before the original fails: not compared (a run to t={t:.4g} failed)"
        elif c["worst"][0] <= 1.0:
            row["note"] += (f"; before the original fails: agree on [0, {t:.4g}] ({c['common']} vars, worst "
                            f"{fmt_dev(c['worst'])})")
        else:
            row["verdict"] = "MISMATCH"
            row["deviation"] = fmt_dev(c["worst"])
            row["note"] += f"; before the original fails: MISMATCH on [0, {t:.4g}] ({c['common']} vars)"
    if row.get("adapted"):
        row["note"] = f"omc notation adapted ({', '.join(row['adapted'])}); " + row["note"]
    return row


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------

VERDICTS = ("agree", "agree off events", "MISMATCH", "fixed", "REGRESSION", "both fail", "timeout", "error")


def summary_line(rows: list[dict]) -> str:
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    return f"{len(rows)} rewritten models: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n or v in VERDICTS[:6])


def _md(s: str) -> str:
    return str(s).replace("|", "\\|")


def markdown(rows: list[dict], header: list[str]) -> str:
    out = [f"# Differential simulation over the corpus (original vs mdae-rimis output, {SIMULATOR})", ""]
    build = SIMULATOR == "omc"
    out += header + ["", "| model | file | original | output | verdict | worst deviation |"
                     + (" omc build, original → output |" if build else "") + " note |",
                     "|---|---|---|---|---|---|" + ("---|" if build else "") + "---|"]
    for r in rows:
        cells = [r["model"], f"{r['folder']}/{r['name']}", r["orig_status"], r["out_status"], r["verdict"],
                 r["deviation"]] + ([r.get("build", "-")] if build else []) + [r.get("note", "")]
        out.append("| " + " | ".join(_md(x) for x in cells) + " |")
    out += ["", "**Summary:** " + summary_line(rows), ""]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS, help=f"corpus root (default {CORPUS})")
    ap.add_argument("--only", nargs="*", default=None, metavar="SUBSTRING", help="only files whose name contains one")
    ap.add_argument("--jobs", type=int, default=2, help="pairs simulated at once (default 2)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per simulation (default 300)")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--keep", type=Path, default=None, help="copy the rewritten outputs into this folder")
    ap.add_argument("--results", type=Path, default=RESULTS, help=f"markdown table (default {RESULTS.relative_to(ROOT)})")
    ap.add_argument("--no-results", action="store_true", help="do not write the markdown table")
    ap.add_argument("--json", type=Path, default=None, help="also write every row as JSON")
    ap.add_argument("--simulator", choices=("rumoca", "omc"), default="rumoca",
                    help="simulator of both sides (omc: $OMC or omc on PATH; default table corpus_diff_omc.md)")
    args = ap.parse_args(argv)
    global SIMULATOR
    SIMULATOR = args.simulator
    if SIMULATOR == "omc" and args.results == RESULTS:
        args.results = RESULTS.with_name("corpus_diff_omc.md")

    if not Path(binary()).is_file():
        print(f"corpus_diff: no binary at {binary()} (build with `cargo build --release` or set MDAE_RIMIS_BIN)",
              file=sys.stderr)
        return 2
    missing = [d for d in CORPUS_DIRS if not (args.corpus / d).is_dir()]
    if len(missing) == len(CORPUS_DIRS):
        print(f"skipped: corpus not found at {args.corpus}", file=sys.stderr)
        return 2
    for d in missing:
        print(f"skipped: corpus folder {args.corpus / d} not found")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="corpus-diff-") as tmp:
        pairs, batch = find_rewritten(Path(tmp), args.corpus, only=args.only)
        print(f"mdae-rimis batch: {batch}; {len(pairs)} rewritten (a `  // REPL:` line)")
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for _, out in pairs:
                shutil.copyfile(out, args.keep / out.name)
        rows: list[dict] = []
        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(diff_pair, o, u, args.timeout, args.rtol, args.atol): o for o, u in pairs}
            for fut in cf.as_completed(futures):
                r = fut.result()
                rows.append(r)
                print(f"  [{len(rows):3}/{len(pairs)}] {r['verdict']:16} {r['model']}  {r.get('elapsed_s', '-')} s",
                      flush=True)
    elapsed = time.monotonic() - start
    rows.sort(key=lambda r: (VERDICTS.index(r["verdict"]) if r["verdict"] in VERDICTS else 99, r["model"]))

    print()
    w = max((len(r["model"]) for r in rows), default=10)
    print(f"{'model':{w}}  {'original':8} {'output':8} {'verdict':16} worst deviation / note")
    for r in rows:
        print(f"{r['model']:{w}}  {r['orig_status']:8} {r['out_status']:8} {r['verdict']:16} {r['deviation']}")
        if r.get("note"):
            print(f"{'':{w}}  {'':8} {'':8} {'':16} {r['note']}")
    summ = summary_line(rows)
    print(f"\n{summ}; {elapsed:.0f} s")
    import_ver = next((r.get("simulator_version") for r in rows if r.get("simulator_version")), None)
    header = [
        f"Generated by `integration/corpus_diff.py` (see integration/README.md). Binary: mdae-rimis batch "
        f"({batch}); the {len(rows)} outputs with a `  // REPL:` line are compared.",
        f"{SIMULATOR} ({import_ver or 'version not reported'}) via harness.py; stop time from `experiment(StopTime=...)` when the flat file has one, else 1.0 s; "
        f"solver rtol {SIM_RTOL:g}, atol {SIM_ATOL:g}; output step stop/{STEPS}; values compared at t = k*stop/{SAMPLES}, k = 0..{SAMPLES}, with "
        f"|a-b| <= {args.atol:g} + {args.rtol:g}*max(|a|,|b|) on every variable present in both (quotes "
        f"removed); timeout {args.timeout:g} s per simulation. Wall time of this run: {elapsed:.0f} s "
        f"({args.jobs} jobs).",
        "Worst deviation: |a-b| (its ratio to the tolerance) variable @ time: original vs output.",
        "`omc -i` drops the experiment annotation: no msl-flat file has one, so those pairs run 0-1 s. "
        "`omc notation adapted (...)`: the steps of omc_notation.py applied identically to both sides "
        "(each exact; see integration/README.md). A note in [brackets] says what a rumoca message means: "
        "a limit of rumoca 0.10.2 or a notation the adaptation does not cover; such a pair is not compared.",
    ]
    if not args.no_results:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(markdown(rows, header), encoding="utf-8")
        print(f"wrote {args.results}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
