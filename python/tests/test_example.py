"""examples/python/loop.py end to end (issue 33): flat model -> rewrite -> rumoca -> the plot
of the original failing at its instant beside the output going on; with omc, a library
model flattened too."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT


def test_the_loop_runs_and_draws(tmp_path):
    out = tmp_path / "loop"
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "loop.py"), "--out", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stderr
    # ClutchBasic: rumoca's run of the original stops at the engagement (t = 5), the output's
    # goes on to t = 10.
    assert "original: fails at t = 5.00" in proc.stdout
    assert "output:   runs to t = 10" in proc.stdout
    png = out / "loop.png"
    assert png.exists() and png.stat().st_size > 10_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "fixed.mo").read_text(encoding="utf-8").startswith("// RIMIS of ClutchBasic")
    if os.environ.get("OMC"):
        assert "omc: flattened Modelica.Electrical.Analog.Examples.Rectifier" in proc.stdout
        assert (out / "library_fixed.mo").exists()
    else:
        assert "omc: skipped the library model" in proc.stdout
