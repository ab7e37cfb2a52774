#!/usr/bin/env python3
"""Corpus coverage: what mdae-rimis does with every model of the corpora, as a readable table.

    python3 integration/corpus_coverage.py [--jobs N] [--timeout S] [DIR ...]

Runs the built binary (`$MDAE_RIMIS`, default `target/ci/mdae-rimis`, relative to the repository
root; build it with `cargo build --profile ci`) once per `.mo` file of each corpus folder (default
`../shared/corpus/msl-flat` and `../shared/corpus/omc-flat`, relative to the repository root; an
absent folder is reported and skipped), one process per file, with a timeout per file. Outcomes:

- `rewritten`: exit 0 and the output's second line is not `// The model is unchanged…`;
- `unchanged`: exit 0 and it is (the model passes through);
- `refused`: exit 1 with an `error:` line on stderr;
- `crashed`: anything else (a panic, a signal, exit 2, exit 1 without an `error:` line);
- `timeout`: still running after the timeout (the process is killed).

A refusal's reason is its first `error:` line generalised so that refusals group: everything up to
`error: ` dropped, backquoted and double-quoted names replaced by `…`, digit runs by `N`. Every
accepted output is checked further: `--check` on it must exit 0, and `--emit canonical` run on it
and then on that canonical form must both succeed and print the same text (the output re-parses
and its canonical form is idempotent).

Writes `integration/results/corpus_coverage.md` (unless `--no-results`) and prints one summary
line per corpus. Python standard library only.
"""

import argparse
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPORA = ["../shared/corpus/msl-flat", "../shared/corpus/omc-flat"]
DEFAULT_RESULTS = ROOT / "integration" / "results" / "corpus_coverage.md"
UNCHANGED_MARK = "// The model is unchanged"
ACCEPTED = ("rewritten", "unchanged")
LIMIT = 300  # characters of a diagnostic shown in a table cell
SOURCES = ["src", "templates", "Cargo.toml", "Cargo.lock"]  # what the binary is built from


@dataclass
class FileResult:
    """What one corpus file gave: the main run, then the checks of an accepted output."""

    name: str  # path relative to its corpus folder
    outcome: str  # rewritten | unchanged | refused | crashed | timeout
    seconds: float
    error_line: str = ""  # first diagnostic line, paths made relative
    reason: str = ""  # error_line generalised (refused and crashed only)
    failures: list = field(default_factory=list)  # (check, first error line) of the output
    input_check: str = ""  # when the output fails --check: what --check says of the input
    diagnosis: str = ""  # a refusal as singular: the overdetermined/underdetermined sets


def first_error_line(stderr, replacements):
    """The first `error:` line of stderr (else the first non-empty line), paths replaced."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    chosen = next((line for line in lines if "error:" in line), lines[0] if lines else "")
    for old, new in replacements:
        chosen = chosen.replace(old, new)
    return chosen


def generalise(line):
    """A diagnostic line without its place and names, so that refusals of one kind group."""
    if "error: " in line:
        line = line.split("error: ", 1)[1]
    line = re.sub(r"`[^`]*`", "`…`", line)
    line = re.sub(r'"[^"]*"', '"…"', line)
    line = re.sub(r"'[^'\s][^']*'", "'…'", line)  # Modelica quoted names
    line = innermost_first(r"\{[^{}]*\}", "\x01", line).replace("\x01", "{…}")  # {'x', 'y'}
    line = innermost_first(r"\[[^\[\]]*\]", "\x02", line).replace("\x02", "[…]")  # [a[1].p]
    line = re.sub(r"\bmodel [^\s:]+(?= is | has |:)", "model …", line)
    line = re.sub(r"\bsingular when [^:]*:", "singular when …:", line)
    return re.sub(r"\d+", "N", line)


def innermost_first(pattern, mark, text):
    """Replace the innermost matches of a bracket pattern by mark until none is left."""
    while True:
        replaced = re.sub(pattern, mark, text)
        if replaced == text:
            return text
        text = replaced


def run(args, stdout, timeout):
    """Run the binary; (exit code or None on timeout, stderr text, wall seconds)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            args, stdout=stdout, stderr=subprocess.PIPE, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return None, "", time.perf_counter() - start
    stderr = proc.stderr.decode("utf-8", errors="replace")
    return proc.returncode, stderr, time.perf_counter() - start


def check_output(binary, out, name, timeout):
    """The failures of an accepted output: `--check`, re-parse, canonical idempotence."""
    failures = []
    shown = [(str(out), f"<output of {name}>")]
    canon1, canon2 = out.with_suffix(".canon1.mo"), out.with_suffix(".canon2.mo")
    shown += [(str(canon1), f"<canonical output of {name}>")]
    code, err, _ = run([binary, "--check", str(out)], subprocess.DEVNULL, timeout)
    if code != 0:
        failures.append(("--check", describe_failure(code, err, shown, timeout)))
    with open(canon1, "wb") as sink:
        code, err, _ = run([binary, "--emit", "canonical", str(out)], sink, timeout)
    if code != 0:
        failures.append(("re-parse", describe_failure(code, err, shown, timeout)))
        return failures
    with open(canon2, "wb") as sink:
        code, err, _ = run([binary, "--emit", "canonical", str(canon1)], sink, timeout)
    if code != 0:
        failures.append(("canonical re-parse", describe_failure(code, err, shown, timeout)))
    elif canon1.read_bytes() != canon2.read_bytes():
        failures.append(("canonical idempotence", first_difference(canon1, canon2)))
    return failures


def describe_failure(code, err, shown, timeout):
    if code is None:
        return f"timeout after {timeout:g} s"
    return first_error_line(err, shown) or f"exit {code}, nothing on stderr"


def first_difference(a, b):
    lines_a = a.read_text(errors="replace").splitlines()
    lines_b = b.read_text(errors="replace").splitlines()
    for number, (x, y) in enumerate(zip(lines_a, lines_b), start=1):
        if x != y:
            return f"line {number} differs: `{x.strip()}` then `{y.strip()}`"
    return f"lengths differ: {len(lines_a)} then {len(lines_b)} lines"


def input_check(binary, path, name, timeout):
    """`--check` on the input, to tell an output defect from a model --check refuses anyway."""
    code, err, _ = run([binary, "--check", str(path)], subprocess.DEVNULL, timeout)
    if code == 0:
        return "exit 0"
    if code is None:
        return f"timeout after {timeout:g} s"
    return f"exit {code}: " + generalise(describe_failure(code, err, [(str(path), name)], timeout))


SINGULAR = "structurally singular"
LISTED = 8  # names shown of a diagnosis's set


def singular_diagnosis(binary, path, timeout):
    """What `--check` finds singular in a refused input (see `describe_singular`)."""
    code, err, _ = run([binary, "--check", str(path)], subprocess.DEVNULL, timeout)
    if code is None:
        return f"--check: timeout after {timeout:g} s"
    return describe_singular(next((x for x in err.splitlines() if "error:" in x), ""), code)


def bracketed(line, start):
    """The comma-separated names from `start` to the `]` that closes the list (names may
    hold subscripts: `v[1]`); an empty list gives none."""
    names, depth, end, first = [], 0, start, start
    while end < len(line) and (line[end] != "]" or depth > 0):
        if line[end] == "," and depth == 0:
            names.append(line[first:end].strip())
            first = end + 1
        depth += {"[": 1, "]": -1}.get(line[end], 0)
        end += 1
    last = line[first:end].strip()
    return names + [last] if names or last else []


def component_note(name):
    """A model of a `Utilities`/`Components` package (or OpAmpCircuits) is a component the
    examples use, not an example: its connectors are left open at the top level."""
    marks = (".Utilities.", ".Components.", ".OpAmpCircuits.")
    return "component model, not an example" if any(m in name for m in marks) else ""


def describe_singular(line, code):
    """The overdetermined equations and underdetermined variables of `--check`'s error line
    (counts, the first names), after the modes it names (`in every valid mode`, `when g`)."""
    parts = []
    for label, key in (("overdetermined", "overdetermined equations ["),
                       ("underdetermined", "underdetermined variables [")):
        start = line.find(key)
        if start < 0:
            continue
        names = bracketed(line, start + len(key))
        shown = ", ".join(names[:LISTED]) + (", …" if len(names) > LISTED else "")
        parts.append(f"{label} {len(names)}" + (f": {shown}" if names else ""))
    if not parts:
        return f"--check exit {code}: no diagnosis on its error line"
    at = line.find(SINGULAR)
    when = line[at + len(SINGULAR):].split(":")[0].strip() if at >= 0 else ""
    return (f"{when}: " if when else "") + "; ".join(parts)


def classify(code, stderr, output):
    """The outcome of a finished main run."""
    if code == 0:
        lines = output.read_text(errors="replace").splitlines()
        if len(lines) >= 2 and lines[1].startswith(UNCHANGED_MARK):
            return "unchanged"
        return "rewritten" if lines else "crashed"
    if code == 1 and "error:" in stderr and "panicked at" not in stderr:
        return "refused"
    return "crashed"


def process(binary, corpus, path, timeout):
    """One corpus file: the main run in its own process, then the checks of its output."""
    name = path.relative_to(corpus).as_posix()
    with tempfile.TemporaryDirectory(prefix="corpus-coverage-") as tmp:
        out = Path(tmp) / path.name
        with open(out, "wb") as sink:
            code, stderr, seconds = run([binary, str(path)], sink, timeout)
        if code is None:
            return FileResult(name, "timeout", seconds, f"timeout after {timeout:g} s")
        outcome = classify(code, stderr, out)
        result = FileResult(name, outcome, seconds)
        if outcome in ACCEPTED:
            result.failures = check_output(binary, out, name, timeout)
            if any(check == "--check" for check, _ in result.failures):
                result.input_check = input_check(binary, path, name, timeout)
            return result
        line = first_error_line(stderr, [(str(path), name)])
        if outcome == "crashed":
            line = f"exit {code}: {line}" if line else f"exit {code}, nothing on stderr"
            if code == 0:
                line = "exit 0 with an empty output"
        result.error_line = line
        result.reason = ("crash: " if outcome == "crashed" else "") + generalise(line)
        if outcome == "refused" and SINGULAR in line:
            result.diagnosis = singular_diagnosis(binary, path, timeout)
        return result


def run_corpus(binary, corpus, jobs, timeout):
    files = sorted(p for p in corpus.rglob("*.mo") if p.is_file())
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda p: process(binary, corpus, p, timeout), files))
    return sorted(results, key=lambda r: r.name)


def summary(results):
    count = {k: 0 for k in ("rewritten", "unchanged", "refused", "crashed", "timeout")}
    for r in results:
        count[r.outcome] += 1
    times = [r.seconds for r in results]
    accepted = count["rewritten"] + count["unchanged"]
    return {
        **count,
        "files": len(results),
        "accepted": accepted,
        "percent": 100.0 * accepted / len(results) if results else 0.0,
        "total": sum(times),
        "median": statistics.median(times) if times else 0.0,
        "max": max(times, default=0.0),
        "check": sum(any(c == "--check" for c, _ in r.failures) for r in results),
        "reparse": sum(any(c != "--check" for c, _ in r.failures) for r in results),
    }


def summary_line(label, s):
    return (
        f"{label}: {s['files']} files, {s['accepted']} accepted ({s['percent']:.1f}%: "
        f"{s['rewritten']} rewritten, {s['unchanged']} unchanged), {s['refused']} refused, "
        f"{s['crashed']} crashed, {s['timeout']} timeouts; outputs failing --check "
        f"{s['check']}, re-parse/idempotence {s['reparse']}; {s['total']:.1f} s in all, "
        f"median {s['median']:.3f} s, max {s['max']:.2f} s"
    )


def cell(text, limit=None):
    if limit is not None and len(text) > limit:
        text = text[:limit].rstrip() + " …"
    return text.replace("|", "\\|")


def corpus_section(label, results):
    s = summary(results)
    out = [f"## {label}", ""]
    out += [
        "| files | accepted (rewritten, unchanged) | refused | crashed | timeouts | % accepted "
        "| total time | median / max per file |",
        "|---|---|---|---|---|---|---|---|",
        f"| {s['files']} | {s['accepted']} ({s['rewritten']}, {s['unchanged']}) | {s['refused']} "
        f"| {s['crashed']} | {s['timeout']} | {s['percent']:.1f}% | {s['total']:.1f} s "
        f"| {s['median']:.3f} s / {s['max']:.2f} s |",
        "",
    ]
    out += failures_tables(results)
    out += reasons_table(results)
    out += refused_files(results)
    out += ["### The 10 slowest files", "", "| file | outcome | time |", "|---|---|---|"]
    slowest = sorted(results, key=lambda r: (-r.seconds, r.name))[:10]
    out += [f"| {cell(r.name)} | {r.outcome} | {r.seconds:.3f} s |" for r in slowest]
    return out + [""]


def failures_tables(results):
    """The accepted outputs failing a check: grouped by check and reason, then one per file."""
    failing = [(r, check, line) for r in results for check, line in r.failures]
    out = [f"### Accepted outputs failing `--check` or re-parse: {len(failing)}", ""]
    if not failing:
        return out
    groups = {}
    for r, check, line in failing:
        groups.setdefault((check, r.outcome, generalise(line), r.input_check), []).append(r)
    out += [
        "| count | check | outcome | reason | `--check` on the input |",
        "|---|---|---|---|---|",
    ]
    for (check, outcome, reason, on_input), members in sorted(
        groups.items(), key=lambda kv: (-len(kv[1]), kv[0])
    ):
        out.append(
            f"| {len(members)} | {check} | {outcome} | {cell(reason, LIMIT)} "
            f"| {cell(on_input or '–', LIMIT)} |"
        )
    out += [
        "",
        "| file | outcome | check | `--check` on the input | first error line |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| {cell(r.name)} | {r.outcome} | {check} | {cell(r.input_check or '–', 60)} "
        f"| {cell(line, LIMIT)} |"
        for r, check, line in failing
    ]
    return out + [""]


def reasons_table(results):
    groups = {}
    for r in results:
        if r.reason:
            groups.setdefault(r.reason, []).append(r)
    out = ["### Refusals by reason", ""]
    if not groups:
        return out + ["None.", ""]
    out += ["| count | reason | example file | its first error line |", "|---|---|---|---|"]
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for reason, members in ordered:
        example = members[0]  # results are sorted by name: the first file of the group
        out.append(
            f"| {len(members)} | {cell(reason)} | {cell(example.name)} "
            f"| {cell(example.error_line, LIMIT)} |"
        )
    return out + [""]


def refused_files(results, most=60):
    """Every refused file with its place and reason, and for a singular model what --check
    finds: its overdetermined equations and underdetermined variables."""
    refused = [r for r in results if r.outcome == "refused"]
    out = [f"### Refused files: {len(refused)}", ""]
    if not refused:
        return out
    if len(refused) > most:
        return out + [f"More than {most}: grouped by reason above, not listed one by one.", ""]
    out += [
        "A model *structurally singular in every valid mode* has no mode in which its equations "
        "determine its unknowns (Σ-method, paper 002): the overdetermined equations and the "
        "underdetermined variables below are `--check`'s diagnosis of the input, at "
        "`file:line:col` in its report.",
        "",
        "| file | reason | place | `--check` diagnosis (singular models) | note |",
        "|---|---|---|---|---|",
    ]
    for r in refused:
        place = r.error_line.split(": error:")[0] if ": error:" in r.error_line else "–"
        place = place.split(":", 1)[1] if ":" in place else place
        out.append(
            f"| {cell(r.name)} | {cell(r.reason, 120)} | {cell(place)} "
            f"| {cell(r.diagnosis or '–', LIMIT)} | {component_note(r.name) or '–'} |"
        )
    return out + [""]


def git_commit():
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
             ":!integration/results"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head}{' (with uncommitted changes)' if dirty else ''}" if head else "unknown"


def stale_sources(binary):
    """Source files changed after the binary was built (empty when it is up to date)."""
    built = binary.stat().st_mtime
    newer = []
    for name in SOURCES:
        top = ROOT / name
        paths = top.rglob("*") if top.is_dir() else [top]
        newer += [p for p in paths if p.is_file() and p.stat().st_mtime > built]
    return sorted(p.relative_to(ROOT).as_posix() for p in newer)


def display(path):
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def resolve(path_text, base):
    path = Path(path_text)
    return path if path.is_absolute() else (base / path).resolve()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help="corpus folders (default: both corpora)")
    parser.add_argument("--jobs", type=int, default=2, help="files run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run (60)")
    parser.add_argument("--results", default=str(DEFAULT_RESULTS), help="markdown file written")
    parser.add_argument("--no-results", action="store_true", help="print only, write no file")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    binary = resolve(os.environ.get("MDAE_RIMIS", "target/ci/mdae-rimis"), ROOT)
    if not os.access(binary, os.X_OK):
        print(f"error: no binary at {binary} (run `cargo build --profile ci`, or set "
              "MDAE_RIMIS)", file=sys.stderr)
        return 2
    stale = stale_sources(binary)
    if stale:
        print(f"warning: {binary} is older than {len(stale)} source files ({stale[0]}, …): "
              "rebuild with `cargo build --profile ci`", file=sys.stderr)
    if args.corpora:
        corpora = [(c, resolve(c, Path.cwd())) for c in args.corpora]
    else:
        corpora = [(c, resolve(c, ROOT)) for c in DEFAULT_CORPORA]

    doc = [
        "# Corpus coverage",
        "",
        "Regenerate with `python3 integration/corpus_coverage.py` (after `cargo build --profile "
        "ci`). One process per file, timeout "
        f"{args.timeout:g} s, {args.jobs} at once; wall times on the machine that ran it. "
        f"Repository at commit {git_commit()}; binary `{display(binary)}`"
        + (f", **older than {len(stale)} source files**." if stale else ", built from it."),
        "",
        "Outcomes: *rewritten* (exit 0, the RIMIS model), *unchanged* (exit 0, second line "
        f"`{UNCHANGED_MARK}`), *refused* (exit 1 with an `error:` line), *crashed* (any other "
        "exit: a panic, a signal, exit 2), *timeout*. Every accepted output is run again with "
        "`--check` (exit 0 expected) and `--emit canonical` twice (it re-parses and its "
        "canonical form is a fixpoint). A refusal's reason is its first `error:` line without "
        "the place, names in quotes as `…` and numbers as `N`; the example is the first file "
        "of the group in name order.",
        "",
    ]
    for label, corpus in corpora:
        name = corpus.name or label
        if not corpus.is_dir():
            line = f"{name}: folder {corpus} absent, skipped"
            print(line, flush=True)
            doc += [f"## {name}", "", f"Folder `{label}` absent ({corpus}): skipped.", ""]
            continue
        results = run_corpus(str(binary), corpus, args.jobs, args.timeout)
        print(summary_line(name, summary(results)), flush=True)
        doc += corpus_section(name, results)
    if not args.no_results:
        target = Path(args.results)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(doc).rstrip("\n") + "\n")
        print(f"written: {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
