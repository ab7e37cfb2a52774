"""mdae-rimis from Python: the exact multimode structural analysis and the RIMIS rewrite of
flattened Modelica models (paper 000 §4), so that OpenModelica, Dymola and rumoca simulate
multimode models they get wrong.

    import mdae_rimis
    result = mdae_rimis.rewrite(flat_text, name="flat.mo")    # Result: text, changed, diagnostics
    report = mdae_rimis.check(flat_text)                      # the `--report json` report (dict)
    svg = mdae_rimis.cdg_svg(flat_text)                       # the CDG drawn by Graphviz
    flat = mdae_rimis.omc.flatten("WaterTank", files=["WaterTank.mo"])   # omc's flat model

Every call is independent (no state between calls) and releases the GIL while the pipeline
runs: two threads rewrite two models at once. A model the tool refuses raises
`MdaeRimisError`, whose `diagnostics` locate it (file, line, column, code, message).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import List, Optional

from . import _native
from . import omc

__version__: str = _native.__version__

__all__ = [
    "Diagnostic", "Result", "MdaeRimisError", "GraphvizNotFound", "Svg",
    "rewrite", "check", "canonical", "cdg_dot", "cdg_svg", "omc", "__version__",
]

DEFAULT_NAME = "<string>"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: where (1-based line and column; None when it concerns the whole run),
    the stage's code (`E-syntax`, `V-…`, `E-mdae`, `E-analysis`, `E-rimis`, `E-singular`,
    `W-rimis`, `N-rimis`, …), the severity (`error`, `warning`, `note`) and the message."""

    file: str
    line: Optional[int]
    column: Optional[int]
    code: str
    severity: str
    message: str

    def __str__(self) -> str:
        place = self.file if self.line is None else f"{self.file}:{self.line}:{self.column}"
        return f"{place}: {self.severity}: {self.message}"


def _diagnostics(text: str) -> List[Diagnostic]:
    return [Diagnostic(**d) for d in json.loads(text)]


class MdaeRimisError(Exception):
    """The tool refused the model (or could not run): `diagnostics` locate why; `str(e)` is
    the command line's diagnostic, with the source line and a caret."""

    def __init__(self, text: str, diagnostics: List[Diagnostic]):
        super().__init__(text)
        self.text = text
        self.diagnostics = diagnostics


class GraphvizNotFound(RuntimeError):
    """`cdg_svg` needs Graphviz's `dot` on PATH."""


@dataclass(frozen=True)
class Result:
    """What `rewrite` returns: the output model (`text`), whether the model was changed
    (False: it needs no rewrite and is printed as it is) and the warnings and notes."""

    text: str
    changed: bool
    diagnostics: List[Diagnostic] = field(default_factory=list)

    @property
    def warnings(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def notes(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "note"]


def _call(f, *args):
    try:
        return f(*args)
    except _native.NativeError as e:
        text, diagnostics = e.args
        raise MdaeRimisError(text, _diagnostics(diagnostics)) from None


def rewrite(text: str, name: Optional[str] = None, strategy: str = "auto") -> Result:
    """The main job on a flattened model's text: the RIMIS model, byte for byte what
    `mdae-rimis FILE` prints. `name` names the input in diagnostics; `strategy` is the
    analysis' (`auto`, `implicit`, `explicit`: `--strategy`)."""
    out, changed, diagnostics = _call(_native.rewrite, text, name or DEFAULT_NAME, strategy)
    return Result(out, changed, _diagnostics(diagnostics))


def check(text: str, name: Optional[str] = None, strategy: str = "auto") -> dict:
    """The multimode structural analysis: the report `mdae-rimis --report json` prints,
    as a dict (its `singular` list names the modes in which the model is structurally
    singular, for which `--check` exits 1)."""
    report, _message = _call(_native.check, text, name or DEFAULT_NAME, strategy)
    return json.loads(report)


def canonical(text: str, name: Optional[str] = None) -> str:
    """The canonical form of the model, untransformed (`--emit canonical`)."""
    return _call(_native.canonical, text, name or DEFAULT_NAME)


def cdg_dot(text: str, name: Optional[str] = None, strategy: str = "auto") -> str:
    """The conditional dependency graph as Graphviz dot (`--dot FILE`)."""
    return _call(_native.dot, text, name or DEFAULT_NAME, strategy)


class Svg(str):
    """An SVG picture (a str): a notebook shows it inline."""

    def _repr_svg_(self) -> str:
        return str(self)


def cdg_svg(text: str, name: Optional[str] = None, strategy: str = "auto", dot: Optional[str] = None) -> Svg:
    """The conditional dependency graph drawn by Graphviz (`dot -Tsvg`); `dot` is its path
    (default: `dot` on PATH). Raises GraphvizNotFound when Graphviz is not installed."""
    exe = dot or shutil.which("dot")
    if exe is None:
        raise GraphvizNotFound(
            "cdg_svg needs Graphviz's `dot`, which is not on PATH: install Graphviz "
            "(e.g. `apt install graphviz`, `brew install graphviz`, `conda install graphviz`), "
            "or take the dot text from cdg_dot()")
    source = cdg_dot(text, name, strategy)
    proc = subprocess.run([exe, "-Tsvg"], input=source, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{exe} -Tsvg failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return Svg(proc.stdout)
