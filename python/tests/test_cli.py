"""The wheel's `mdae-rimis` command is the command line: its exit codes, stdin, -o and
--out-dir behave as the cargo-built binary's (tests/cli.rs checks those in depth)."""

from __future__ import annotations

import subprocess

from conftest import FIXTURES, ROOT, run, wheel_command


def test_the_command_is_installed():
    assert wheel_command(), "the wheel did not install `mdae-rimis`"


def test_exit_codes():
    cmd = wheel_command()
    assert run(cmd, str(FIXTURES / "omc-flat" / "WaterTank.mo")).returncode == 0
    bad = run(cmd, str(FIXTURES / "invalid" / "undeclared_rhs.mo"))
    assert bad.returncode == 1 and ":4:7: error:" in bad.stderr and bad.stdout == ""
    missing = run(cmd, "no/such/file.mo")
    assert missing.returncode == 2 and "no/such/file.mo" in missing.stderr
    usage = run(cmd, "--no-such-flag")
    assert usage.returncode == 2 and "--no-such-flag" in usage.stderr
    assert run(cmd, "--help").returncode == 0


def test_stdin_and_output_file(tmp_path):
    cmd = wheel_command()
    src = (FIXTURES / "omc-flat" / "WaterTank.mo").read_text(encoding="utf-8")
    piped = subprocess.run([cmd, "-"], input=src, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0
    out = tmp_path / "fixed.mo"
    assert run(cmd, str(FIXTURES / "omc-flat" / "WaterTank.mo"), "-o", str(out)).returncode == 0
    assert out.read_text(encoding="utf-8") == piped.stdout


def test_batch_mode(tmp_path):
    cmd = wheel_command()
    r = run(cmd, "--out-dir", str(tmp_path / "out"), str(FIXTURES / "omc-flat"))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "out").rglob("*.mo")) == sorted(
        p.name for p in (FIXTURES / "omc-flat").glob("*.mo"))
