"""Shared paths for the Python package's tests (issue 33). They run against the installed
package (a wheel in a fresh virtualenv: scripts/test.sh) and compare it with the command
line: the wheel's own `mdae-rimis` command and, when MDAE_RIMIS_BIN names it, the
cargo-built binary."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
REPRO = SHARED / "repro"


def wheel_command() -> str:
    """The `mdae-rimis` the installed package put beside this Python."""
    exe = Path(sys.executable).parent / "mdae-rimis"
    return str(exe) if exe.exists() else shutil.which("mdae-rimis")


def commands() -> list[str]:
    """Every command line to compare the API with."""
    out = [wheel_command()]
    cargo = os.environ.get("MDAE_RIMIS_BIN")
    if cargo:
        out.append(cargo)
    return [c for c in out if c]


def run(cmd: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cmd, *args], capture_output=True, text=True, timeout=300)


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.rglob("*.mo"))


def repro_files() -> list[Path]:
    return sorted(REPRO.rglob("*.mo")) if REPRO.is_dir() else []


needs_shared = pytest.mark.skipif(not REPRO.is_dir(), reason=f"skipped: {REPRO} not found (a clone without ../shared)")
