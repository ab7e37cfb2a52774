"""The whole loop from Python (issue 33): a flat model (read from a file, or flattened by omc
from a library model) -> mdae_rimis.rewrite -> both simulated in rumoca -> original and output
plotted side by side, the original failing at its instant and the output going on.

    pip install <the mdae-rimis wheel> rumoca==0.10.2 matplotlib
    python examples/python/loop.py                      # fixtures/ClutchBasic.mo
    python examples/python/loop.py --out /tmp/loop      # where fixed.mo and loop.png go

With omc installed (OMC=/path/to/omc, or omc on PATH) it also flattens a library model
itself (--library-model, default Modelica.Electrical.Analog.Examples.Rectifier) and
rewrites it. CI runs this script (python/tests/test_example.py)."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import mdae_rimis
from mdae_rimis import omc

ROOT = Path(__file__).resolve().parents[2]


def simulate(text: str, model: str, stop: float, dt: float):
    """rumoca's run of `text` to `stop`, each model loaded from a folder of its own:
    (times, {variable: values}) or the error."""
    import rumoca

    with tempfile.TemporaryDirectory(prefix="loop-") as tmp:
        path = Path(tmp) / f"{model}.mo"
        path.write_text(text, encoding="utf-8")
        try:
            r = rumoca.Session().load(str(path), model=model).simulate(t=(0.0, stop), dt=dt)
        except Exception as e:  # rumoca's SimulationError and friends
            return None, e
        d = r.to_dict()
        return ([float(t) for t in d["time"]], {n: [float(v) for v in d["data"][n]] for n in d["names"]}), None


def run_until_failure(text: str, model: str, stop: float, dt: float):
    """The run to `stop`; if it fails, the longest run that does not (bisection on the stop
    time to 1e-3 s) and the instant and message of the failure."""
    result, error = simulate(text, model, stop, dt)
    if error is None:
        return result, None, None
    lo, hi, best = 0.0, stop, None
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        r, e = simulate(text, model, mid, dt)
        if e is None:
            lo, best = mid, r
        else:
            hi = mid
    return best, hi, str(error).splitlines()[0]


def model_name(text: str) -> str:
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in ("model", "class", "block"):
            return words[1]
    raise SystemExit("no model in the input")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("flat", nargs="?", default=str(ROOT / "fixtures" / "ClutchBasic.mo"),
                    help="a flattened model (default: the ClutchBasic fixture: two inertias clutched from t = 5 to 7)")
    ap.add_argument("--out", default="loop-output", help="folder for fixed.mo and loop.png")
    ap.add_argument("--stop", type=float, default=10.0)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--variables", default="w1,w2", help="what to plot (comma-separated)")
    ap.add_argument("--library-model", default="Modelica.Electrical.Analog.Examples.Rectifier",
                    help="with omc: a library model to flatten and rewrite too")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    # 1. The flat model: a file here; with omc, a library model flattened as well.
    try:
        exe = omc.find_omc()
    except omc.OmcNotFound as e:
        print(f"omc: skipped the library model ({e})")
    else:
        flat_lib = omc.flatten(args.library_model, libraries=["Modelica"], omc=exe)
        lib = mdae_rimis.rewrite(flat_lib, name=args.library_model)
        (out / "library_fixed.mo").write_text(lib.text, encoding="utf-8")
        print(f"omc: flattened {args.library_model} ({len(flat_lib.splitlines())} lines); rewrite: "
              f"{'changed' if lib.changed else 'unchanged'}, {len(lib.diagnostics)} notes/warnings")
    source = Path(args.flat).read_text(encoding="utf-8")
    name = model_name(source)

    # 2. The rewrite.
    result = mdae_rimis.rewrite(source, name=args.flat)
    (out / "fixed.mo").write_text(result.text, encoding="utf-8")
    for d in result.diagnostics:
        print(d)
    print(f"rewrite: {'changed' if result.changed else 'unchanged'}; output in {out / 'fixed.mo'}")

    # 3. Both simulated.
    original, fails_at, why = run_until_failure(source, name, args.stop, args.dt)
    fixed, fixed_at, fixed_why = run_until_failure(result.text, name, args.stop, args.dt)
    print(f"original: {'fails at t = %.3f: %s' % (fails_at, why) if fails_at is not None else 'runs to the end'}")
    print(f"output:   {'fails at t = %.3f: %s' % (fixed_at, fixed_why) if fixed_at is not None else 'runs to t = %g' % args.stop}")

    # 4. Side by side.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [v.strip() for v in args.variables.split(",") if v.strip()]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, run, at, msg, title in ((axes[0], original, fails_at, why, f"{name}: the original"),
                                    (axes[1], fixed, fixed_at, fixed_why, f"{name}: after mdae-rimis")):
        if run is not None:
            times, data = run
            for v in names:
                if v in data:
                    ax.plot(times, data[v], label=v)
        if at is not None:
            ax.axvline(at, color="red", linestyle="--")
            ax.text(at, ax.get_ylim()[1], f" fails at t = {at:.3f}", color="red", va="top")
            ax.set_title(f"{title}\nrumoca: {msg[:60]}…", fontsize=9)
        else:
            ax.set_title(f"{title}: runs to t = {args.stop:g}", fontsize=9)
        ax.set_xlim(0, args.stop)
        ax.set_xlabel("time [s]")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right")
    fig.tight_layout()
    png = out / "loop.png"
    fig.savefig(png, dpi=100)
    print(f"plot: {png}")
    return 0 if fixed_at is None else 1


if __name__ == "__main__":
    sys.exit(main())
