"""Differential check on a few corpus models that mdae-rimis rewrites and that simulate in rumoca
both before and after: the output must agree with the original (corpus_diff.diff_pair: every
variable present in both within 1e-6 + 1e-4*|x| at 21 sample times). The whole corpus:
`integration/corpus_diff.py` (results in integration/results/corpus_diff.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus_diff  # noqa: E402

# Rewritten (a `  // REPL:` line) and `agree` in integration/results/corpus_diff.md, each under
# ~2 s; the MSL ones need omc_notation's adaptation (tables, enumerations, String() arguments).
MODELS = [
    "omc-flat/flattening__modelica__others__Switch.mo",
    "msl-flat/Modelica.Electrical.Analog.Examples.InvertingAmp.mo",
    "msl-flat/Modelica.Mechanics.Rotational.Examples.OneWayClutch.mo",
    "msl-flat/Modelica.Mechanics.Rotational.Examples.SimpleGearShift.mo",
    "msl-flat/Modelica.Mechanics.Translational.Examples.Brake.mo",
    "msl-flat/Modelica.Mechanics.Translational.Examples.HeatLosses.mo",
]

# MSL examples that omc simulates and whose structure one analysis gets right in every mode
# (analysis/oblivious.rs): they pass through unchanged. Each was rewritten before, and in omc
# the rewrite deviated (Backlash, ElastoGap, PumpAndValve) or behaved differently (TwoMass,
# PumpDropOut, ParallelPumpDropOut, SaturatedInductor) or failed (HeatingMOSInverter,
# ThyristorBehaviourTest; issue 17).
UNCHANGED = [
    "msl-flat/Modelica.Blocks.Examples.SlewRateLimiter.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.IndirectCooling.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.ParallelCooling.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.PumpDropOut.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.ParallelPumpDropOut.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.SimpleCooling.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.TwoTanks.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.TwoMass.mo",
    "msl-flat/Modelica.Thermal.FluidHeatFlow.Examples.PumpAndValve.mo",
    "msl-flat/Modelica.Mechanics.Rotational.Examples.Backlash.mo",
    "msl-flat/Modelica.Mechanics.Translational.Examples.ElastoGap.mo",
    "msl-flat/Modelica.Magnetic.FluxTubes.Examples.Utilities.TranslatoryArmatureAndStopper.mo",
    "msl-flat/Modelica.Magnetic.FluxTubes.Examples.BasicExamples.SaturatedInductor.mo",
    "msl-flat/Modelica.Magnetic.FluxTubes.Examples.BasicExamples.ToroidalCoreQuadraticCrossSection.mo",
    "msl-flat/Modelica.Electrical.Analog.Examples.ThyristorBehaviourTest.mo",
    "msl-flat/Modelica.Electrical.Analog.Examples.HeatingMOSInverter.mo",
]


def binary() -> list[str]:
    """$MDAE_RIMIS_BIN (tests/simulation.rs sets it), else target/release, else `cargo run`."""
    b = os.environ.get("MDAE_RIMIS_BIN") or str(corpus_diff.ROOT / "target" / "release" / "mdae-rimis")
    if Path(b).is_file():
        return [b]
    return ["cargo", "run", "--quiet", "--profile", "ci", "--manifest-path", str(corpus_diff.ROOT / "Cargo.toml"), "--"]


class CorpusDiff(unittest.TestCase):
    def test_rewritten_corpus_models_agree_with_their_originals(self):
        print()
        start, checked, problems = time.monotonic(), 0, []
        for rel in MODELS:
            original = corpus_diff.CORPUS / rel
            if not original.is_file():
                print(f"  skipped: {rel}: not found in {corpus_diff.CORPUS}")
                continue
            with tempfile.TemporaryDirectory(prefix="corpus-test-") as tmp:
                out = Path(tmp) / original.name
                proc = subprocess.run(binary() + ["-o", str(out), str(original)], capture_output=True, text=True,
                                      timeout=600)
                if proc.returncode != 0:
                    problems.append(f"{rel}: mdae-rimis exit {proc.returncode}: {proc.stderr.strip()[:300]}")
                    continue
                if not corpus_diff.is_rewritten(out.read_text(encoding="utf-8")):
                    problems.append(f"{rel}: no longer rewritten (no `  // REPL:` line): update MODELS")
                    continue
                row = corpus_diff.diff_pair(original, out)
            checked += 1
            print(f"  {row['verdict']:10} {row['model']}: worst {row['deviation']} ({row.get('note', '')})")
            if row["verdict"] != "agree":
                problems.append(f"{rel}: {row['verdict']}: {row['deviation']}; {row.get('note', '')}")
        print(f"  corpus diff: {checked} of {len(MODELS)} models compared, {len(problems)} problems, "
              f"{time.monotonic() - start:.1f} s")
        if checked == 0 and not problems:
            self.skipTest(f"no corpus file found under {corpus_diff.CORPUS}")
        self.assertFalse(problems, "\n".join(problems))

    def test_models_one_analysis_gets_right_pass_through_unchanged(self):
        """Do no harm: these need no rewrite, so the output is the input (reprinted)."""
        missing, problems = 0, []
        for rel in UNCHANGED:
            original = corpus_diff.CORPUS / rel
            if not original.is_file():
                missing += 1
                print(f"  skipped: {rel}: not found in {corpus_diff.CORPUS}")
                continue
            proc = subprocess.run(binary() + [str(original)], capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                problems.append(f"{rel}: mdae-rimis exit {proc.returncode}: {proc.stderr.strip()[:300]}")
            elif "The model is unchanged:" not in proc.stdout or corpus_diff.is_rewritten(proc.stdout):
                problems.append(f"{rel}: rewritten, although one analysis fits every mode before")
        if missing == len(UNCHANGED):
            self.skipTest(f"no corpus file found under {corpus_diff.CORPUS}")
        self.assertFalse(problems, "\n".join(problems))


if __name__ == "__main__":
    unittest.main()
