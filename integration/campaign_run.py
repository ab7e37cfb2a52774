#!/usr/bin/env python3
"""Exact-solution campaign (issue 29 point 3): for each seed, generate a well-posed random multimode
model with a known solution (campaign_gen.py), rewrite it with mdae-rimis, simulate the output (and
the original, as information) and compare every real variable of the original with its exact
solution at 21 times (t = 0, 0.1, ..., 2), within 1e-3*(1 + |exact|).

    .venv/bin/python integration/campaign_run.py --seeds 0..999 --jobs 2 \\
        --results integration/results/campaign.md --keep /tmp/campaign-failures
    .venv/bin/python integration/campaign_run.py --seeds 17..17 --simulator both -v

Binary: --bin, else $MDAE_RIMIS_BIN, else target/ci/mdae-rimis. omc: $OMC or `omc` on PATH.
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
Exit status: 0 (the classes are the result; the suite's ratchet is test_campaign.py).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import datetime
import json
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

CLASSES = ["pass", "unchanged-both-fail", "rejected", "tool-crash", "output-not-modelica", "sim-fails", "wrong"]
OK_CLASSES = ("pass", "unchanged-both-fail")
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
    for j, traj in enumerate(model.trajs):
        name = f"x{j + 1}"
        vals = rec.get("values", {}).get(name)
        for k, t in enumerate(TIMES):
            exact = traj.value(t)
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
    if t == 0:
        fixed = model.starts[int(var[1:]) - 1][0] == "fixed"
        return "off from t = 0: a fixed start value not honoured" if fixed else "off from t = 0: initial values"
    before = [mv.switch_time for mv in model.modevars if mv.switch_time < t]
    if before and t - max(before) <= gen.STOP_TIME / 20 + 1e-9:
        kind = "state" if any(mv.kind == "state" and mv.switch_time == max(before) for mv in model.modevars) else "time"
        return f"off from the first sample after a mode switch ({kind} event)"
    return "off later inside a mode (drift)"


def compile_refused(sim: str, rec: dict) -> bool:
    msg = rec.get("message") or ""
    if sim == "rumoca":
        return msg.startswith(("ParseError", "CompileError", "StructuralParamError"))
    return bool(OMC_NOT_MODELICA.search(msg))


def run_seed(seed: int, binary: str, simulators: list[str], keep: str | None) -> dict:
    """Everything about one seed (runs in its own process, see --one)."""
    import harness

    start = time.monotonic()
    model = gen.generate(seed)
    text = model.text()
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
            rec["sims"][sim] = r
        if keep and any(r["class"] not in OK_CLASSES for r in rec["sims"].values()):
            d = Path(keep) / f"seed{seed}"
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, d / f"{model.name}.mo")
            if out.exists():
                shutil.copyfile(out, d / f"{model.name}_out.mo")
            (d / "record.json").write_text(json.dumps(rec, indent=1, default=str))
    rec["elapsed_s"] = round(time.monotonic() - start, 3)
    return rec


def run_one_subprocess(seed: int, binary: str, simulators: list[str], keep: str | None) -> dict:
    """run_seed in a fresh interpreter (a simulator crash or hang costs this seed only)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(seed), "--bin", binary,
           "--simulator", "both" if len(simulators) == 2 else simulators[0]]
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
                 keep: str | None = None, progress=None) -> list[dict]:
    records = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run_one_subprocess, s, binary, simulators, keep): s for s in seeds}
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
            key = (s["class"], normalise(s["detail"]) if s["class"] != "wrong" else s.get("kind", "?"))
            groups[key].append(r)
    return {"counts": counts, "groups": groups}


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
        lines.append(f"  (originals in {sim}: " + ", ".join(f"{k} {v}" for k, v in sorted(orig.items())) + ")")
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


def results_markdown(records: list[dict], sims: list[str], seeds_spec: str, binary: str, elapsed: float) -> str:
    import harness  # noqa: F401  (the versions)
    versions = {}
    for sim in sims:
        if sim == "rumoca":
            import rumoca
            versions[sim] = f"rumoca {rumoca.version()}"
        else:
            versions[sim] = "omc (" + (harness.find_omc() or "?") + ")"
    n = len(records)
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
        "is simulated too, as information.",
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
                        f"- original in {sim}: {s.get('orig_status')}"
                        + (f" ({(s.get('orig_message') or '')[:200]})" if s.get("orig_status") != "ok" else ""),
                        "", "```modelica", gen.generate(r["seed"]).text().rstrip(), "```", ""]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Known failures (the suite's ratchet, test_campaign.py)
# ---------------------------------------------------------------------------------------------

KNOWN_FAILURES = HERE / "campaign" / "known_failures.toml"
FINGERPRINT_SEEDS = range(0, 200)


def fingerprint(seeds=FINGERPRINT_SEEDS) -> str:
    """sha256 (16 hex digits) of the model texts of `seeds`: the known failures are about these texts."""
    import hashlib
    h = hashlib.sha256()
    for s in seeds:
        h.update(gen.generate(s).text().encode())
    return h.hexdigest()[:16]


def load_known(path: Path = KNOWN_FAILURES) -> dict:
    import tomllib
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return {"generator": data.get("generator"), "fingerprint": data.get("fingerprint"),
            "rumoca": {int(k): v for k, v in data.get("rumoca", {}).items()},
            "omc": {int(k): v for k, v in data.get("omc", {}).items()}}


def ratchet(records: list[dict], known: dict[int, dict], sim: str) -> list[str]:
    """What the suite fails on: a seed neither pass/unchanged-both-fail nor listed with its class;
    a listed seed that now passes (shrink the list); a listed seed whose class changed."""
    problems = []
    for r in records:
        s = r["sims"].get(sim)
        if s is None or s["class"] == "skipped":
            continue
        listed = known.get(r["seed"])
        cls = s["class"]
        if cls in OK_CLASSES:
            if listed:
                problems.append(f"seed {r['seed']}: listed as {listed['class']} in known_failures.toml [{sim}] but "
                                f"now {cls}: remove the entry (the list only shrinks)")
        elif listed is None:
            problems.append(f"seed {r['seed']}: {cls}: {s['detail'][:300]}")
        elif listed["class"] != cls:
            problems.append(f"seed {r['seed']}: listed as {listed['class']} but now {cls}: {s['detail'][:200]} "
                            f"(update the entry)")
    return problems


def known_draft(records: list[dict], sims: list[str]) -> str:
    """TOML entries for the seeds that are not pass/unchanged-both-fail (to review, not to paste blindly)."""
    out = [f"generator = {gen.GENERATOR_VERSION}", f'fingerprint = "{fingerprint()}"', ""]
    for sim in sims:
        out.append(f"[{sim}]")
        for r in records:
            s = r["sims"].get(sim)
            if s and s["class"] not in OK_CLASSES and s["class"] != "skipped":
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
        rec = run_seed(a.one, binary, sims, a.keep)
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
        sims = [s for s in ("rumoca", "omc") if any(s in r["sims"] for r in records)]
        spec = f"{records[0]['seed']}..{records[-1]['seed']}" if records else ""
        print(table_text(records, sims))
        if a.known_failures_draft:
            Path(a.known_failures_draft).write_text(known_draft(records, sims))
        if a.results:
            text = results_markdown(records, sims, spec, binary, None)
            text = text.replace(f"`integration/campaign_run.py --seeds {spec}`",
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
            print(f"seed {rec['seed']:6} {cls:30} {det}", flush=True)
        elif done % 50 == 0 or done == total:
            print(f"  {done}/{total} seeds, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)

    records = run_campaign(seeds, binary, sims, a.jobs, a.keep, progress)
    elapsed = time.monotonic() - start
    print(table_text(records, sims))
    print(f"campaign: {len(records)} seeds, {elapsed:.0f} s")
    if a.json:
        Path(a.json).write_text(json.dumps(records, indent=0, default=str))
    if a.known_failures_draft:
        Path(a.known_failures_draft).write_text(known_draft(records, sims))
        print(f"wrote {a.known_failures_draft}")
    if a.results:
        Path(a.results).write_text(results_markdown(records, sims, a.seeds, binary, elapsed))
        print(f"wrote {a.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
