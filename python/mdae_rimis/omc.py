"""omc's flat model from Python: `flatten` runs OpenModelica's `instantiateModel`, the
input mdae-rimis reads (`omc -i=Model file.mo`). omc is found as $OMC, else `omc` on PATH;
OMPython is not needed."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable, Optional, Sequence, Tuple, Union

__all__ = ["OmcNotFound", "OmcError", "find_omc", "flatten"]


class OmcNotFound(RuntimeError):
    """omc (OpenModelica's compiler) is not installed where flatten looks."""


class OmcError(RuntimeError):
    """omc ran but gave no flat model: its messages."""


def find_omc(omc: Optional[str] = None) -> str:
    """The omc executable: `omc` if given, else $OMC, else `omc` on PATH."""
    for candidate, source in ((omc, "the omc argument"), (os.environ.get("OMC"), "$OMC")):
        if candidate:
            if shutil.which(candidate) or Path(candidate).is_file():
                return candidate
            raise OmcNotFound(f"omc not found: {source} names {candidate!r}, which is not an executable")
    found = shutil.which("omc")
    if found is None:
        raise OmcNotFound(
            "omc (OpenModelica's compiler) not found: it is not on PATH and $OMC is not set. "
            "Install OpenModelica (https://openmodelica.org) or set OMC=/path/to/omc; "
            "or flatten elsewhere (`omc -i=Model file.mo > flat.mo`) and read the file")
    return found


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


Library = Union[str, Tuple[str, str]]


def flatten(model: str, files: Iterable[Union[str, os.PathLike]] = (),
            libraries: Sequence[Library] = (), omc: Optional[str] = None, timeout: float = 600.0) -> str:
    """omc's flat model of `model` (a class name, e.g. "Modelica.Electrical.Analog.Examples.Rectifier"
    or "WaterTank"): loads the `libraries` (names, e.g. "Modelica", or (name, version)
    pairs) and the `files`, then runs `instantiateModel`. Raises OmcNotFound without omc,
    OmcError with omc's messages when it gives no flat model."""
    exe = find_omc(omc)
    lines = []
    for lib in libraries:
        name, version = (lib, None) if isinstance(lib, str) else lib
        args = name if version is None else f"{name}, {{{_string(version)}}}"
        lines.append(f"if not loadModel({args}) then print(\"mdae-rimis: loadModel({name}) failed\\n\"); end if;")
    for f in files:
        path = Path(f).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"flatten: {path} does not exist")
        lines.append(f"if not loadFile({_string(str(path))}) then print(\"mdae-rimis: loadFile failed\\n\"); end if;")
    lines.append(f"writeFile(\"flat.mo\", instantiateModel({model}));")
    lines.append("print(getErrorString());")
    with tempfile.TemporaryDirectory(prefix="mdae-rimis-omc-") as tmp:
        script = Path(tmp) / "flatten.mos"
        script.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            proc = subprocess.run([exe, script.name], cwd=tmp, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OmcError(f"omc did not flatten {model} within {timeout:g} s") from None
        flat = Path(tmp) / "flat.mo"
        text = flat.read_text(encoding="utf-8") if flat.exists() else ""
    if not text.strip():
        messages = "\n".join(p for p in (proc.stdout.strip(), proc.stderr.strip()) if p)
        raise OmcError(f"omc gave no flat model of {model} (exit {proc.returncode}):\n{messages}")
    return text
