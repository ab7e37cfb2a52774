"""omc's flat notation in a form rumoca 0.10.2 compiles, for the differential check (corpus_diff.py).

`omc -i` prints flat models that are not Modelica: dotted variable names (`Real a.b;`), the class
named by its library path (`class Modelica.X.Y`), scalarised arrays declared element by element
(`Real a.x[1,2];`, `Real a.pin[1].v;`), records only through their fields (`core.mat.Hsat`) and an
"automatically generated record constructor" function in place of the record class, inline
enumeration types (`enumeration(a, b) x = P.b`), `protected` before single declarations. rumoca
refuses each. `adapt(text, cls)` rewrites one file; corpus_diff applies it identically to an
original and its mdae-rimis output, and lists in the table which adaptations a pair needed.

Every rewrite keeps the meaning of the model (same equations over renamed scalars):
- `quoted names`: a declared dotted or subscripted scalar `a.x[1, 2]` becomes the identifier
  `'a.x[1,2]'` (subscript spaces removed), at its declaration and every reference; a dotted class
  or function name is quoted likewise; the simulated class is renamed `CorpusModel`. A reference
  to an array omc scalarised (its elements declared `x[1]` … `x[n]`, every index of a full box)
  becomes the array of its elements `{'x[1]', …}` (slices `x[:, 2]` likewise).
- `record classes`: an "Automatically generated record constructor for R" function (inputs with
  defaults, `output R res`) becomes `record R` with the same fields and defaults, whose implicit
  constructor has that exact signature; a whole-record reference `core.mat` (fields declared one
  by one) becomes that constructor applied to its fields `R('core.mat.Hsat', …)`, when exactly one
  record has exactly those fields.
- `enumerations`: `enumeration(never, …, always)` is `StateSelect`; any other inline enumeration
  type is `Integer` and each literal `P.L` its 1-based position in P's list (P's list taken from a
  declaration `enumeration(…) x = P.L`; a literal whose list is unknown is replaced only when every
  inline enumeration that holds it gives the same position); a named enumeration type used in a
  function is `Integer` too. Comparisons and choices keep their meaning (positions are ordered
  as the literals are).
- `tables`: CombiTable1D calls on a constant matrix of one row, or two rows read linearly, written
  out as the expression they compute (omc_tables.py; rumoca cannot run the external C tables).
- `String() arguments`: omc's positional options of `String(x, 6, 0, true)` named (rumoca
  accepts only named ones; they only format assert messages).
- `protected`: dropped before a declaration of the simulated class (visibility does not change the
  equations; mdae-rimis prints its outputs without it).

Standard library only. Names not found in the tables above are left as they were (rumoca then
reports them, and the pair is counted as failing, never as agreeing).
"""

from __future__ import annotations

import bisect
import itertools
import re

import omc_exprs
import omc_tables

RUMOCA_CLASS = "CorpusModel"
STATE_SELECT = ["never", "avoid", "default", "prefer", "always"]

_SUB = r"\[[^\[\]]*\]"
_CREF = rf"[A-Za-z_]\w*(?:{_SUB})?(?:\.[A-Za-z_]\w*(?:{_SUB})?)*"
_TOKENS = re.compile(
    r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|\'(?:[^\'\\]|\\.)*\'(?:\.[A-Za-z_]\w*|\[[^\[\]]*\])*'
    r"|\benumeration\s*\(([^()]*)\)"
    r"|(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"
    rf"|({_CREF})",
    re.S,
)
_PREFIXES = r"(?:(?:protected|public|final|parameter|constant|discrete|input|output|flow|stream|inner|outer)\s+)*"
_DECL = re.compile(
    rf"^(\s*){_PREFIXES}(enumeration\s*\([^()]*\)|'[^']*'|[A-Za-z_][\w.]*)\s+({_CREF}|'[^']*'(?:{_SUB})?)", re.M
)
_CLASS_HEAD = re.compile(
    r"^\s*(?:(?:partial|encapsulated|final|impure|pure|operator|expandable)\s+)*"
    r"(function|record|type|class|model|block|package|connector)\s+('[^']*'|[A-Za-z_][\w.]*)",
    re.M,
)
_RECORD_CTOR = re.compile(
    r"^(?P<ind>[ \t]*)function (?P<name>[A-Za-z_][\w.]*) \"Automatically generated record constructor for [^\"]*\"\n"
    r"(?P<body>(?:(?P=ind)[ \t]+(?:protected )?input [^\n]*\n)*)"
    r"(?P=ind)[ \t]+output [A-Za-z_][\w.]* res;\n"
    r"(?P=ind)end (?P=name);",
    re.M,
)
_NOT_TYPES = {"function", "record", "end", "type", "model", "class", "block", "package", "connector", "when",
              "if", "elseif", "else", "for", "while", "import", "extends", "annotation", "within", "external"}
_INT = re.compile(r"^\s*\d+\s*$")
_BUILTIN_SCOPES = ("StateSelect", "AssertionLevel", "Connections")


def norm_cref(s: str) -> str:
    """A component reference without the spaces inside its subscripts: `x[1, 2]` -> `x[1,2]`."""
    return re.sub(r"\[([^\[\]]*)\]", lambda m: "[" + re.sub(r"\s+", "", m.group(1)) + "]", s)


def _split_last_sub(key: str) -> tuple[str, list[str] | None]:
    """`a.x[1,2]` -> (`a.x`, ["1", "2"]); a name without a final subscript -> (name, None)."""
    m = re.match(r"^(.*)\[([^\[\]]*)\]$", key)
    return (m.group(1), m.group(2).split(",")) if m else (key, None)


class Adapter:
    """The tables of one file (its declarations, classes, enumerations, records) and the rewrite."""

    def __init__(self, text: str, cls: str):
        self.cls = cls
        self.used: set[str] = set()
        self.records = self._records(text)
        self.defined = {n for _, n in _CLASS_HEAD.findall(text) if not n.startswith("'")}
        idents = set(re.findall(r"[A-Za-z_]\w*", text))
        self.mangled = {}
        for n in sorted(self.defined):
            if "." not in n:
                self.mangled[n] = n
                continue
            m = n.replace(".", "__")
            while m in idents or m in self.mangled.values():
                m += "_"
            self.mangled[n] = m
        self._enumerations(text)
        self._declarations(text)

    # -- tables ---------------------------------------------------------------------------------

    def _records(self, text: str) -> dict[str, list[tuple[str, str]]]:
        """Record name -> its fields (type, name) in order, from omc's generated record constructors."""
        out, bodies = {}, {}
        for m in _RECORD_CTOR.finditer(text):
            out[m.group("name")] = re.findall(r"input (\S+)(?: \S+)*? ([A-Za-z_]\w*)\b(?=[ (=;\"])", m.group("body"))
            bodies.setdefault(" ".join(m.group("body").split()), []).append(m.group("name"))
        # records with the same fields (names, types, defaults) are one type (Modelica's type
        # equivalence of records is structural; rumoca's is by name): the first by name stands for all
        self.canon = {n: min(names) for names in bodies.values() for n in names}
        return {n: f for n, f in out.items() if self.canon[n] == n}

    def _enumerations(self, text: str) -> None:
        self.enum_of: dict[str, list[str]] = {}  # enumeration type path -> literals
        by_literal: dict[str, set[int]] = {}
        for m in re.finditer(r"\benumeration\s*\(([^()]*)\)\s+[^=;]*?=\s*([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)\b", text):
            names = [x.strip() for x in m.group(1).split(",")]
            if m.group(3) in names:
                self.enum_of.setdefault(m.group(2), names)
        for m in re.finditer(r"\btype\s+([A-Za-z_][\w.]*)\s*=\s*enumeration\s*\(([^()]*)\)", text):
            self.enum_of.setdefault(m.group(1), [x.strip() for x in m.group(2).split(",")])
        for m in re.finditer(r"\benumeration\s*\(([^()]*)\)", text):
            names = [re.sub(r'\s*".*', "", x).strip() for x in m.group(1).split(",")]
            for i, n in enumerate(names):
                by_literal.setdefault(n, set()).add(i + 1)
        self.unique_literal = {n: next(iter(s)) for n, s in by_literal.items() if len(s) == 1}

    def _declarations(self, text: str) -> None:
        """Declared names of the simulated class (not of its functions): scalars (omc's elements
        with their subscripts), real arrays (by base name) and the boxes of scalarised arrays."""
        decls: list[str] = []
        for line, in_fn in self._lines(text):
            if in_fn:
                continue
            if re.match(r"^\s*(?:initial\s+)?(?:equation|algorithm)\s*$", line):
                break
            m = _DECL.match(line)
            if m and m.group(2) not in _NOT_TYPES:
                decls.append(norm_cref(m.group(3)))
        groups: dict[str, list[list[str]]] = {}
        for d in decls:
            base, subs = _split_last_sub(d)
            if subs is not None and all(_INT.match(s) for s in subs):
                groups.setdefault(base, []).append(subs)
        self.scalars: set[str] = set()
        self.arrays: dict[str, list[int]] = {}  # base -> sizes, scalarised full boxes only
        for d in decls:
            base, subs = _split_last_sub(d)
            literal = subs is not None and all(_INT.match(s) for s in subs)
            if literal and (len(groups[base]) >= 2 or all(int(s) == 1 for s in subs)):
                self.scalars.add(d)
            else:
                self.scalars.add(base if literal else d)
        for base, idx in groups.items():
            rank = {len(s) for s in idx}
            if len(rank) != 1:
                continue
            tuples = {tuple(int(x) for x in s) for s in idx}
            sizes = [max(t[k] for t in tuples) for k in range(rank.pop())]
            box = set(itertools.product(*[range(1, n + 1) for n in sizes]))
            if tuples == box and all(f"{base}[{','.join(map(str, t))}]" in self.scalars for t in tuples):
                self.arrays[base] = sizes
        self.prefixes: dict[str, set[str]] = {}  # record prefix -> direct children
        for d in self.scalars:
            parts = d.split(".")
            for k in range(1, len(parts)):
                self.prefixes.setdefault(".".join(parts[:k]), set()).add(parts[k])

    def _lines(self, text: str):
        """(line, inside a function or record body) for every line."""
        depth = []
        for line in text.split("\n"):
            m = _CLASS_HEAD.match(line)
            if m and m.group(1) in ("function", "record") and not line.rstrip().endswith(";"):
                depth.append(m.group(2))
                yield line, True
                continue
            if depth and re.match(rf"^\s*end\s+{re.escape(depth[-1])}\s*;", line):
                depth.pop()
                yield line, True
                continue
            yield line, bool(depth)

    # -- the rewrite ----------------------------------------------------------------------------

    def adapt(self, text: str) -> str:
        text = self._record_classes(text)
        text = self._record_equations(text)
        lines = []
        for line, in_fn in self._lines(text):
            if not in_fn and re.match(r"^\s*protected\s+\S", line) and _DECL.match(line):
                line = re.sub(r"^(\s*)protected\s+", r"\1", line)
                self.used.add("protected")
            lines.append((line, in_fn))
        text = "\n".join(line for line, _ in lines)
        # functions as character ranges, so that a token (a string over several lines) is one piece
        spans, pos = [], 0
        for line, in_fn in lines:
            if in_fn:
                spans.append((pos, pos + len(line) + 1))
            pos += len(line) + 1
        starts = [a for a, _ in spans]

        def inside(at: int) -> bool:
            k = bisect.bisect_right(starts, at) - 1
            return k >= 0 and spans[k][0] <= at < spans[k][1]

        return _TOKENS.sub(lambda m: self._token(m, inside(m.start())), text)

    def _record_classes(self, text: str) -> str:
        def rep(m):
            self.used.add("record classes")
            ind, name = m.group("ind"), m.group("name")
            if self.canon.get(name, name) != name:
                return ""
            body = re.sub(r"^([ \t]+)(?:protected )?input ", r"\1", m.group("body"), flags=re.M)
            return f'{ind}record {name} "Automatically generated record"\n{body}{ind}end {name};'

        return _RECORD_CTOR.sub(rep, text)

    def _token(self, m: re.Match, in_fn: bool) -> str:
        if m.group(1) is not None:
            names = [x.strip() for x in m.group(1).split(",")]
            self.used.add("enumerations")
            return "StateSelect" if names == STATE_SELECT else "Integer"
        if m.group(3) is None:
            return m.group(0)
        raw = m.group(3)
        key = norm_cref(raw)
        rep = self._function_cref(key) if in_fn else self._model_cref(key)
        return raw if rep is None else rep

    def _class_name(self, key: str) -> str:
        """A dotted class or function name as a plain identifier: rumoca takes every function
        whose name is quoted for an operator (`'+'`) and refuses it outside an operator record."""
        self.used.add("class names")
        return self.mangled[key]

    def _quote(self, key: str) -> str:
        if "." in key or "[" in key:
            self.used.add("quoted names")
            return f"'{key}'"
        return key

    def _global(self, key: str) -> str | None:
        """Names that mean the same everywhere: the class, defined classes, enumeration literals."""
        if key == self.cls:
            self.used.add("quoted names")
            return RUMOCA_CLASS
        if self.canon.get(key, key) != key:
            self.used.add("record classes")
            return self._class_name(self.canon[key])
        if key.split(".")[0] in _BUILTIN_SCOPES or "." not in key:
            return None
        if key in self.defined:
            return self._class_name(key)
        if key in self.enum_of:
            self.used.add("enumerations")
            return "Integer"
        prefix, last = key.rsplit(".", 1)
        if "[" not in key:
            if prefix in self.enum_of and last in self.enum_of[prefix]:
                self.used.add("enumerations")
                return str(self.enum_of[prefix].index(last) + 1)
            if prefix not in self.prefixes and prefix not in self.scalars and last in self.unique_literal:
                self.used.add("enumerations")
                return str(self.unique_literal[last])
        return None

    def _function_cref(self, key: str) -> str | None:
        return self._global(key)

    def _model_cref(self, key: str) -> str | None:
        if key.split(".")[0] in _BUILTIN_SCOPES:
            return None
        if key in self.scalars:
            return self._quote(key)
        if key in self.arrays:
            return self._array(key, [":"] * len(self.arrays[key]))
        base, subs = _split_last_sub(key)
        if subs is not None and base in self.arrays and len(subs) == len(self.arrays[base]):
            if all(s == ":" or _INT.match(s) for s in subs):
                return self._array(base, subs)
        g = self._global(key)
        if g is not None:
            return g
        if key in self.prefixes:
            r = self._record(key)
            if r is not None:
                return r
        if "." not in key:
            return None
        # unknown: quote the dotted name as before (rumoca then names it)
        if subs is not None:
            return f"{self._quote(base)}[{','.join(subs)}]"
        return self._quote(key)

    def _array(self, base: str, subs: list[str]) -> str:
        """`{'x[1]', …}` for x[subs] (`:` or integer literals) of a scalarised array."""
        self.used.add("quoted names")
        sizes = self.arrays[base]

        def build(k: int, fixed: list[int]) -> str:
            if k == len(sizes):
                return f"'{base}[{','.join(map(str, fixed))}]'"
            if subs[k] == ":":
                return "{" + ", ".join(build(k + 1, fixed + [i]) for i in range(1, sizes[k] + 1)) + "}"
            return build(k + 1, fixed + [int(subs[k])])

        return build(0, [])

    def _record_of(self, prefix: str) -> str | None:
        """The record whose fields are exactly the children of `prefix` (all declared scalars).
        Records with equal fields (name and type, in order) are one type in Modelica (type
        equivalence of records is structural), and stand for one (see _records)."""
        children = self.prefixes.get(prefix, set())
        if not children or any(f"{prefix}.{c}" not in self.scalars for c in children):
            return None
        match = [r for r, fields in self.records.items() if {n for _, n in fields} == children]
        return match[0] if len(match) == 1 and len(self.records[match[0]]) == len(children) else None

    def _record(self, prefix: str) -> str | None:
        """A whole record omc declared field by field, as its constructor call."""
        name = self._record_of(prefix)
        if name is None:
            return None
        self.used.add("record classes")
        args = ", ".join(self._quote(f"{prefix}.{f}") for _, f in self.records[name])
        return f"{self._class_name(name) if name in self.defined else name}({args})"

    def _record_equations(self, text: str) -> str:
        """`r = e;` between whole records (r declared field by field) as one equation per field,
        `r.f = R__get_f(e);`, with a function reading the field (rumoca counts `R(r.a, r.b) = e`
        as one equation)."""
        getters: dict[str, tuple[str, str, str]] = {}
        out = []
        in_equations = False
        for line, in_fn in self._lines(text):
            if not in_fn and re.match(r"^\s*(?:initial\s+)?equation\s*$", line):
                in_equations = True
            m = re.match(rf"^(\s+)({_CREF})\s*=\s*(.*);(\s*\"[^\"]*\")?\s*$", line)
            rec = self._record_of(norm_cref(m.group(2))) if m and in_equations and not in_fn else None
            if rec is None:
                out.append(line)
                continue
            self.used.add("record equations")
            ind, lhs, rhs = m.group(1), m.group(2), m.group(3)
            for ftype, f in self.records[rec]:
                g = f"{rec.replace('.', '__')}__get__{f}"
                getters[g] = (rec, ftype, f)
                out.append(f"{ind}{lhs}.{f} = {g}({rhs});")
        fns = [f"function {g}\n  input {rec} r;\n  output {ftype} y;\nalgorithm\n  y := r.{f};\nend {g};"
               for g, (rec, ftype, f) in sorted(getters.items())]
        # The getters go first inside the model class, where they see the record classes
        # wherever they are declared: at top level (omc's flat file) or nested in the model
        # (an mdae-rimis output nests the classes it uses).
        heads = [k for k, line in enumerate(out) if re.match(r"^(?:model|class|block)\s", line)]
        if fns and heads:
            out[heads[-1] + 1:heads[-1] + 1] = fns
        else:
            out.extend(fns)
        return "\n".join(out)


def needs_adaptation(cls: str) -> bool:
    return "." in cls and not cls.startswith("'")


def adapt(text: str, cls: str) -> tuple[str, list[str]]:
    """The file in a form rumoca compiles (see the module doc) and the adaptations it needed."""
    text, tabled = omc_tables.write_out(text)
    text, used = omc_exprs.rewrite(text)
    a = Adapter(text, cls)
    out = a.adapt(text)
    return out, sorted(a.used | used | ({"tables"} if tabled else set()))
