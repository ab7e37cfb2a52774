#!/usr/bin/env python3
"""omc's build time of the bench models and of their mdae-rimis outputs (issue 32, point 1).

For each model of the pipeline bench's generators (`cargo bench --bench pipeline --
--write-models`), the original and the output are built and simulated by omc (1 s,
omc's defaults; the fastest of `--runs`), and the table prints the size in lines and omc's build time,
timeBackend + timeSimCode + timeTemplates + timeCompile of omc's `simulate` result, per
phase and as the ratio output / original (issue 32: at most 1.2 where the original builds).
omc's own per-module times (`-d=execstat`, `translateModel` only) give the equations it
matches and its costliest backend modules, so the next step is chosen from a measurement.

The original as written is omc's build of one structure only: omc analyses it as if it had one
mode (the one its matching takes, here the valves or doors closed), and the index-reduced systems
of the other mode, which any model that simulates through the mode change must carry, are not in
it. So each original is also built with its structural modes fixed (`--single-modes`: every
equation `<prefix>i = <expr>;` of the original made `<prefix>i = true;`, then `= false;`): omc's
own build of each single-mode model, index reduction included. The last ratio column compares the
output with the costlier of those builds (a reference no correct multimode output can be cheaper
than by much), beside the issue's ratio against the original as written.

    OMC=... .venv/bin/python benches/omc_build.py [--models westinghouse:10,100 building-compressible:10,100]
        [--bin target/release/mdae-rimis] [--runs 2] [--results benches/results/omc_build.md]
        [--single-modes open_]

Without omc (no `OMC`, no `omc` on PATH) it prints that it skipped and exits 0: nothing is
measured, nothing is written.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "integration"))
import harness  # noqa: E402

BUILD = ("timeBackend", "timeSimCode", "timeTemplates", "timeCompile")
MARK = "<!-- table: written by benches/omc_build.py -->"
END = "<!-- /table -->"


def write_models(series: str, sizes: list[int], into: Path) -> None:
    cmd = ["cargo", "bench", "--offline", "--bench", "pipeline", "--", "--series", series,
           "--sizes", ",".join(map(str, sizes)), "--write-models", str(into)]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)


def single_mode(original: Path, prefix: str, value: bool, into: Path) -> Path | None:
    """The original with every mode equation `<prefix>i = <expr>;` made `<prefix>i = <value>;`
    (None where it has none)."""
    text = original.read_text(encoding="utf-8")
    pattern = re.compile(rf"^(\s*{re.escape(prefix)}\d+\s*=)[^;]*;", re.M)
    fixed, n = pattern.subn(rf"\g<1> {'true' if value else 'false'};", text)
    if n == 0:
        return None
    into.mkdir()
    out = into / original.name
    out.write_text(fixed, encoding="utf-8")
    return out


def model_name(path: Path) -> str:
    m = re.search(r"^model\s+(\w+)", path.read_text(encoding="utf-8"), re.M)
    if not m:
        raise SystemExit(f"omc_build: no model in {path}")
    return m.group(1)


def execstat(omc: str, path: Path, model: str) -> tuple[int | None, list[tuple[float, str]]]:
    """omc's matching size (simulation system) and its costliest modules, from `-d=execstat`."""
    with tempfile.TemporaryDirectory(prefix="mdae-omc-stat-") as tmp:
        mos = Path(tmp) / "t.mos"
        mos.write_text(
            f'loadFile("{path}"); getErrorString();\nsetCommandLineOptions("-d=execstat");\n'
            f"translateModel({model}); getErrorString();\n",
            encoding="utf-8",
        )
        out = subprocess.run([omc, str(mos)], cwd=tmp, capture_output=True, text=True, timeout=1800).stdout
    phases = []
    for m in re.finditer(r"Performance of ([^:]+?): time ([0-9.e+-]+)", out):
        phases.append((float(m.group(2)), m.group(1).strip()))
    n = re.search(r"matching and sorting \(n=(\d+)\)(?! \(initialization)", out)
    return (int(n.group(1)) if n else None), sorted(phases, reverse=True)


def build_time(rec: dict) -> float | None:
    t = rec.get("omc_times") or {}
    return sum(t.get(k, 0.0) for k in BUILD) if all(k in t for k in BUILD) else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["westinghouse:10,100", "building-compressible:10,100"])
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "mdae-rimis"))
    ap.add_argument("--results", default=None, help="write the table into this markdown file")
    ap.add_argument("--note", default="", help="a line printed under the table")
    ap.add_argument("--runs", type=int, default=2, help="omc runs per model; the table keeps the fastest build")
    ap.add_argument("--single-modes", default="open_", metavar="PREFIX",
                    help="also build each original with its mode equations `PREFIX<i> = ...` fixed to true, "
                         "then false (omc's build of each single mode); '' to skip")
    args = ap.parse_args()
    omc = harness.find_omc()
    if omc is None:
        print("omc_build: skipped: omc not found (set OMC=/path/to/omc); nothing measured")
        return 0
    version = subprocess.run([omc, "--version"], capture_output=True, text=True).stdout.strip()
    rows, details = [], []
    with tempfile.TemporaryDirectory(prefix="mdae-omc-build-") as tmp:
        work = Path(tmp)
        for spec in args.models:
            series, sizes = spec.split(":")
            ns = [int(n) for n in sizes.split(",")]
            write_models(series, ns, work)
            for n in ns:
                original = work / f"{series}{n}.mo"
                model = model_name(original)
                folder = work / f"{series}{n}-out"
                folder.mkdir()
                output = folder / f"{model}.mo"
                t0 = time.monotonic()
                job = subprocess.run([args.bin, str(original), "-o", str(output)], capture_output=True, text=True)
                job_time = time.monotonic() - t0
                if job.returncode != 0:
                    raise SystemExit(f"omc_build: mdae-rimis failed on {original}: {job.stderr[:400]}")
                row = {"model": series, "n": n, "job": job_time, "parts": ["original", "output"]}
                parts = [("original", original), ("output", output)]
                if args.single_modes:
                    for value in (True, False):
                        fixed = single_mode(original, args.single_modes, value,
                                            work / f"{series}{n}-{args.single_modes}{str(value).lower()}")
                        if fixed is not None:
                            label = f"original, `{args.single_modes}i = {str(value).lower()}`"
                            parts.append((label, fixed))
                            row["parts"].append(label)
                # omc's build varies by a third from run to run, and the machine's speed drifts
                # over minutes: the parts' runs interleaved (each round builds every part once),
                # and of each part the fastest build of `--runs` (the one least disturbed).
                recs = {part: [] for part, _ in parts}
                for _ in range(args.runs):
                    for part, path in parts:
                        recs[part].append(harness.simulate_omc(path, model, 1.0, [1.0], 0.01, timeout=1800))
                for part, path in parts:
                    rec = min(recs[part], key=lambda r: build_time(r) or float("inf"))
                    matched, phases = execstat(omc, path, model)
                    row[part] = {
                        "lines": len(path.read_text(encoding="utf-8").splitlines()),
                        "status": rec["status"],
                        "times": rec.get("omc_times") or {},
                        "build": build_time(rec),
                        "matched": matched,
                        "phases": phases[:4],
                    }
                    print(f"{series} {n} {part}: {row[part]['lines']} lines, omc {rec['status']}, "
                          f"build {row[part]['build']}, matched {matched}", flush=True)
                rows.append(row)
    header = ("| model | N | part | lines | omc equations matched | backend | simcode | templates | compile | "
              "build | output / original | output / costlier single mode | omc simulates |\n"
              "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
    table = header
    for r in rows:
        ratio = (r["output"]["build"] / r["original"]["build"]) if r["original"]["build"] and r["output"]["build"] else None
        singles = [r[p]["build"] for p in r["parts"][2:] if r[p]["build"] is not None]
        single = (r["output"]["build"] / max(singles)) if singles and r["output"]["build"] else None
        for part in r["parts"]:
            p = r[part]
            t = p["times"]
            cells = [f"{t.get(k, float('nan')):.2f} s" for k in BUILD]
            b = f"{p['build']:.2f} s" if p["build"] is not None else "-"
            rat = f"{ratio:.2f}" if part == "output" and ratio is not None else ""
            srat = f"{single:.2f}" if part == "output" and single is not None else ""
            table += (f"| {r['model']} | {r['n']} | {part} | {p['lines']} | {p['matched'] or '-'} | "
                      + " | ".join(cells) + f" | {b} | {rat} | {srat} | {p['status']} |\n")
        details.append(
            f"- {r['model']} N = {r['n']}: costliest omc modules, original: "
            + ", ".join(f"{name} {s:.2f} s" for s, name in r["original"]["phases"])
            + "; output: "
            + ", ".join(f"{name} {s:.2f} s" for s, name in r["output"]["phases"])
        )
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = (f"{MARK}\nomc {version}, {stamp}; build = timeBackend + timeSimCode + timeTemplates + timeCompile "
            f"of omc's `simulate` (the fastest of {args.runs} runs each, 1 s, omc's defaults); equations matched: omc's "
            f"`matching and sorting (n=…)` of the simulation system (`-d=execstat`).\n\n{table}\n"
            + "\n".join(details) + "\n" + (f"\n{args.note}\n" if args.note else "") + f"{END}\n")
    print(body)
    if args.results:
        path = Path(args.results)
        old = path.read_text(encoding="utf-8") if path.exists() else "# omc's build time (`benches/omc_build.py`)\n\n"
        if MARK in old and END in old:
            new = old[: old.index(MARK)] + body + old[old.index(END) + len(END) + 1:]
        else:
            new = old + "\n" + body
        path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
