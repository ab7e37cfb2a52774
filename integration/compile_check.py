"""Every output is Modelica: an independent front end compiles it (issue 29, point 2).

Our own parser reads more than the Modelica grammar (omc's notation, `not not b`), so a
round-trip test cannot see an output that is not Modelica. This module hands each output to
rumoca 0.10.2 (`Session().load`: parse, resolve, flatten and compile; no simulation), in a
fresh folder of its own (rumoca reads every `.mo` of the folder it loads from).

Usage (the cargo test `tests/modelica_valid.rs` runs it; standard library + rumoca):

    .venv/bin/python integration/compile_check.py LIST.json

LIST.json is a list of `{"output": PATH, "original": PATH or null, "model": NAME or null}`.
An output with an original is judged against it: both are given to rumoca in the same form
(`omc_notation.adapt` where the class name is omc's dotted notation, applied identically to
both, as `corpus_diff.py` does), and the output must compile wherever the original does; an
original rumoca refuses too is counted apart (`both refused`), never as a pass. An output
without an original must compile. Prints one line per failure and a summary; writes the
records as JSON to stdout's last line when `--json` is given. Exit 1 on any failure.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import omc_notation  # noqa: E402
from corpus_diff import output_model, simulated_class  # noqa: E402


def compile_text(text: str, model: str, name: str) -> str | None:
    """None when rumoca compiles `model` of `text`, else its message (first lines)."""
    import rumoca

    tmp = Path(tempfile.mkdtemp(prefix="mdae-compile-"))
    try:
        path = tmp / name
        path.write_text(text, encoding="utf-8")
        try:
            rumoca.Session().load(str(path), model=model)
        except Exception as e:  # rumoca raises its own error types; any refusal counts
            lines = [l for l in str(e).splitlines() if l.strip()]
            return " | ".join(lines[:3]) or type(e).__name__
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def form(text: str, model: str) -> tuple[str, str]:
    """The text and class rumoca is given: omc's dotted notation adapted, else as written."""
    if omc_notation.needs_adaptation(model):
        adapted, _ = omc_notation.adapt(text, model)
        return adapted, omc_notation.RUMOCA_CLASS
    return text, model


def check_one(entry: dict) -> dict:
    out = Path(entry["output"])
    utext = out.read_text(encoding="utf-8")
    umodel = entry.get("model") or output_model(utext) or simulated_class(utext)
    rec = {"output": str(out), "model": umodel}
    if umodel is None:
        rec.update(verdict="FAIL", message="no model class in the output")
        return rec
    orig = entry.get("original")
    if orig is None:
        msg = compile_text(utext, umodel, out.name)
        rec.update(verdict="ok" if msg is None else "FAIL", message=msg)
        return rec
    otext = Path(orig).read_text(encoding="utf-8")
    omodel = simulated_class(otext) or umodel
    adapt = omc_notation.needs_adaptation(omodel) or omc_notation.needs_adaptation(umodel)
    try:
        if adapt:
            (a, cls), (b, _) = form(otext, omodel), form(utext, umodel)
        else:
            (a, cls), b = (otext, omodel), utext
    except Exception as e:  # the adaptation itself failed on this pair: same for both sides
        rec.update(verdict="both refused", message=f"adaptation: {type(e).__name__}: {e}")
        return rec
    omsg = compile_text(a, cls, Path(orig).name)
    umsg = compile_text(b, cls if adapt else umodel, out.name)
    if umsg is None:
        rec.update(verdict="ok" if omsg is None else "ok (original refused)", message=omsg)
    elif omsg is None:
        rec.update(verdict="FAIL", message=umsg)
    else:
        rec.update(verdict="both refused", message=umsg)
    return rec


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if len(args) != 1:
        print(__doc__)
        return 2
    entries = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    start = time.monotonic()
    records = [check_one(e) for e in entries]
    counts: dict[str, int] = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        if r["verdict"] == "FAIL":
            print(f"FAIL {r['output']} ({r['model']}): rumoca refuses it: {r['message']}")
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    print(f"compiled in rumoca: {len(records)} outputs: {summary} ({time.monotonic() - start:.1f} s)")
    if as_json:
        print(json.dumps(records))
    return 1 if counts.get("FAIL") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
