"""MSL 1-D tables given by a matrix, written out where their value is exact (used by omc_notation).

rumoca 0.10.2 cannot run external C functions, and the MSL's CombiTable1D is an external object
(`ModelicaStandardTables_CombiTable1D_*`). Many MSL components build one from a constant matrix
with one row (a constant friction coefficient, a constant efficiency) or two rows (a straight line).
For those, the value of every call is a closed expression over the matrix entries:
- one row: `getTable1DValue*(id, icol, u)` is `table[1, columns[icol]]` for every u ("If the table
  has only one row, no interpolation is performed and the table values of this row are just
  returned", MSL CombiTable1D documentation; ModelicaStandardTables.c returns row 0 for nRow == 1,
  its derivatives 0);
- two rows, smoothness LinearSegments, extrapolation LastTwoPoints: the straight line through both
  rows, inside (linear interpolation) and outside (extrapolation through the last two points);
  `getDerTable1DValue(id, icol, u, der_u)` its slope times der_u.
Only tables whose constructor call reads `("NoName", "NoName", TABLE, {c1, ...}, smoothness,
extrapolation, ...)` (the matrix in the model, literal columns), whose matrix omc scalarised
element by element (`TABLE[i,j]` declared), and only calls whose column index is a literal are
written out. The table's declaration goes once no call reads it; functions then read by no one
are dropped. Anything else is left as it was (and rumoca then refuses it by name).
"""

from __future__ import annotations

import re

_PATH = r"Modelica[._]Blocks[._]{}"
_T1D = _PATH.format(r"Types[._]ExternalCombiTable1D")
_CREF = r"[A-Za-z_]\w*(?:\[[^\[\]]*\])?(?:\.[A-Za-z_]\w*(?:\[[^\[\]]*\])?)*"
_TABLE_DECL = re.compile(
    rf"^[ \t]*(?:protected\s+)?(?:final\s+)?parameter\s+{_T1D}\s+({_CREF})\s*=\s*{_T1D}[._]constructor\(\s*"
    rf'"NoName",\s*"NoName",\s*({_CREF}),\s*\{{([\d,\s]*)\}},\s*([^,]+?),\s*([^,]+?),[^\n]*\n',
    re.M,
)
_VALUE = re.compile(_PATH.format(r"Tables[._]Internal[._]getTable1DValue(?:NoDer2?)?") + r"\(")
_DER = re.compile(_PATH.format(r"Tables[._]Internal[._]getDerTable1DValue") + r"\(")
_LINEAR = re.compile(_PATH.format(r"Types[._]Smoothness[._]LinearSegments") + r"$")
_LAST_TWO = re.compile(_PATH.format(r"Types[._]Extrapolation[._]LastTwoPoints") + r"$")


def call_arguments(text: str, start: int) -> tuple[int, list[str]] | None:
    """From the `(` at start: (index after the matching `)`, top-level arguments)."""
    depth, args, cur, i = 0, [], [], start
    while i < len(text):
        c = text[i]
        if c == '"':
            j = text.index('"', i + 1)
            while text[j - 1] == "\\":
                j = text.index('"', j + 1)
            cur.append(text[i : j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return i + 1, args
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    return None


def _binding(text: str, name: str) -> str | None:
    m = re.search(rf"^[ \t]*[^\n]*?\s{re.escape(name)}\s*(?:\([^\n]*?\))?\s*=\s*([^\s\";]+)", text, re.M)
    return m.group(1) if m else None


def _rows(text: str, table: str) -> int | None:
    idx = {(int(a), int(b)) for a, b in re.findall(rf"\s{re.escape(table)}\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*[=(\"; ]", text)}
    if not idx:
        return None
    rows, cols = max(i for i, _ in idx), max(j for _, j in idx)
    return rows if len(idx) == rows * cols else None


def write_out(text: str) -> tuple[str, bool]:
    """The text with every exact table call written out; whether anything changed."""
    changed = False
    for m in list(_TABLE_DECL.finditer(text)):
        tid, table, cols = m.group(1), m.group(2), [int(c) for c in m.group(3).split(",") if c.strip()]
        rows = _rows(text, table)
        smooth, extrap = m.group(4).strip(), m.group(5).strip()
        smooth = _binding(text, smooth) or smooth if not _LINEAR.match(smooth) else smooth
        extrap = _binding(text, extrap) or extrap if not _LAST_TWO.match(extrap) else extrap
        linear = rows == 2 and _LINEAR.match(smooth) and _LAST_TWO.match(extrap)
        if rows != 1 and not linear:
            continue
        new = _calls(text, tid, table, cols, rows)
        if new != text:
            changed = True
            text = new
        without = _drop_declaration(text, tid)
        if not re.search(rf"(?<![\w.]){re.escape(tid)}(?![\w\[])", without):
            text = without
    return (_drop_unused_functions(text) if changed else text), changed


def _calls(text: str, tid: str, table: str, cols: list[int], rows: int) -> str:
    out, i = [], 0
    pattern = re.compile(rf"(?:{_VALUE.pattern}|{_DER.pattern})")
    for m in pattern.finditer(text):
        if m.start() < i:
            continue
        call = call_arguments(text, m.end() - 1)
        if call is None:
            continue
        end, args = call
        if not args or args[0] != tid or not re.fullmatch(r"\d+", args[1]) or not 1 <= int(args[1]) <= len(cols):
            continue
        c = cols[int(args[1]) - 1]
        t = lambda r, k: f"{table}[{r},{k}]"  # noqa: E731
        slope = f"({t(2, c)} - {t(1, c)}) / ({t(2, 1)} - {t(1, 1)})"
        if _DER.match(text, m.start()):
            if len(args) != 4:
                continue
            rep = "0.0" if rows == 1 else f"({slope} * ({args[3]}))"
        else:
            if len(args) != 3:
                continue
            rep = t(1, c) if rows == 1 else f"({t(1, c)} + {slope} * (({args[2]}) - {t(1, 1)}))"
        out.append(text[i : m.start()] + rep)
        i = end
    out.append(text[i:])
    return "".join(out)


def _drop_declaration(text: str, tid: str) -> str:
    return re.sub(rf"^[ \t]*(?:protected\s+)?(?:final\s+)?parameter\s+{_T1D}\s+{re.escape(tid)}\s*=[^\n]*\n", "", text,
                  flags=re.M)


def _drop_unused_functions(text: str) -> str:
    """Removes function definitions that no other part of the text names (to a fixpoint)."""
    head = re.compile(r"^([ \t]*)(?:impure\s+|pure\s+)?function\s+([A-Za-z_][\w.]*)\b(?![^\n]*;\s*$)[^\n]*\n", re.M)
    while True:
        for m in head.finditer(text):
            name = m.group(2)
            end = re.compile(rf"^{m.group(1)}end\s+{re.escape(name)}\s*;[^\n]*\n?", re.M).search(text, m.end())
            if end is None:
                continue
            rest = text[: m.start()] + text[end.end() :]
            if not re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", rest):
                text = rest
                break
        else:
            return text
