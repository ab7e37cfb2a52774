from dataclasses import dataclass
from typing import List, Optional

from . import omc as omc

__version__: str
__all__: List[str]

@dataclass(frozen=True)
class Diagnostic:
    file: str
    line: Optional[int]
    column: Optional[int]
    code: str
    severity: str
    message: str

class MdaeRimisError(Exception):
    text: str
    diagnostics: List[Diagnostic]
    def __init__(self, text: str, diagnostics: List[Diagnostic]) -> None: ...

class GraphvizNotFound(RuntimeError): ...

@dataclass(frozen=True)
class Result:
    text: str
    changed: bool
    diagnostics: List[Diagnostic]
    @property
    def warnings(self) -> List[Diagnostic]: ...
    @property
    def notes(self) -> List[Diagnostic]: ...

class Svg(str):
    def _repr_svg_(self) -> str: ...

def rewrite(text: str, name: Optional[str] = None, strategy: str = "auto") -> Result: ...
def check(text: str, name: Optional[str] = None, strategy: str = "auto") -> dict: ...
def canonical(text: str, name: Optional[str] = None) -> str: ...
def cdg_dot(text: str, name: Optional[str] = None, strategy: str = "auto") -> str: ...
def cdg_svg(text: str, name: Optional[str] = None, strategy: str = "auto", dot: Optional[str] = None) -> Svg: ...
