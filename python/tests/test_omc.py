"""mdae_rimis.omc.flatten: omc's flat model (with omc, from $OMC), and a clear error naming
what is missing without it."""

from __future__ import annotations

import os

import pytest

import mdae_rimis
from mdae_rimis import omc

HAVE_OMC = bool(os.environ.get("OMC"))

SOURCE = """model Tank
  model Valve
    Boolean open;
    Real q;
  equation
    open = time < 1;
    0 = if open then q - 0.5 else q;
  end Valve;
  Valve v;
  Real h(start = 1, fixed = true);
equation
  der(h) = -v.q;
end Tank;
"""


def test_without_omc_the_error_names_what_is_missing(monkeypatch):
    monkeypatch.delenv("OMC", raising=False)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(omc.OmcNotFound, match="omc .*not found.*OMC"):
        omc.flatten("Tank", files=[])
    monkeypatch.setenv("OMC", "/no/such/omc")
    with pytest.raises(omc.OmcNotFound, match="/no/such/omc"):
        omc.flatten("Tank")


@pytest.mark.skipif(not HAVE_OMC, reason="skipped: omc not found (OMC is not set)")
def test_flatten_a_model_file_then_rewrite(tmp_path):
    src = tmp_path / "Tank.mo"
    src.write_text(SOURCE, encoding="utf-8")
    flat = omc.flatten("Tank", files=[src])
    assert "class Tank" in flat and "v.q" in flat
    result = mdae_rimis.rewrite(flat, name="Tank.flat.mo")
    assert "model Tank" in result.text or "class Tank" in result.text


@pytest.mark.skipif(not HAVE_OMC, reason="skipped: omc not found (OMC is not set)")
def test_flatten_reports_omc_errors(tmp_path):
    with pytest.raises(omc.OmcError, match="NoSuchModel"):
        omc.flatten("NoSuchModel")
