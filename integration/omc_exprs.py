"""omc's builtin notations inside expressions, as Modelica (used by omc_notation; each is exact).

- `String() arguments`: omc's positional options of `String(x, 6, 0, true)` named (its builtin's
  order: significantDigits, minimumLength, leftJustified; an Integer or Boolean has the last two),
  the only form rumoca accepts. They only format assert messages.
- `stream operators`: omc expands `inStream` into `$OMC$inStreamDiv(e, fallback)` and
  `$OMC$PositiveMax(a, eps)`. omc's backend replaces `$OMC$PositiveMax(a, eps)` by `max(a, eps)`
  and `$OMC$inStreamDiv(e, fallback)` by `e` unless e simplifies to the literal 0/0
  (ExpressionSimplify / BackendDAE simplifyInStreamDiv). Written so here; inStreamDiv only where
  e contains a `$OMC$PositiveMax` (its denominator is then a sum of maxima with eps > 0, never 0/0).
- `first outputs`: omc writes the first output of a function with several outputs as
  `f(...)[1]`; in Modelica a call in an expression is its first output: `f(...)`.
- `literal subscripts`: an array constructor subscripted by an integer literal, `{a, b}[1]`, is
  its element `(a)` (omc writes vectorised expressions so, and index vectors `rhos[{1, 2}[1]]`);
  innermost constructors first.
- `comprehensions`: `array(E for i in a:b)` over integer literal bounds, one iterator, unrolled
  `{E[i:=a], ..., E[i:=b]}` (the iterator replaced where it stands as a whole name).
"""

from __future__ import annotations

import re

import omc_tables


def rewrite(text: str) -> tuple[str, set[str]]:
    used = set()
    for name, step in (("String() arguments", _string_arguments), ("stream operators", _stream_operators),
                       ("comprehensions", _comprehensions), ("first outputs", _first_outputs),
                       ("literal subscripts", _literal_subscripts)):
        text, changed = step(text)
        if changed:
            used.add(name)
    return text, used


def _calls(text: str, pattern: str, rep) -> tuple[str, bool]:
    """Every call `pattern(` whose arguments `rep(args)` rewrites (None: left as it is); inner calls first."""
    changed = True
    any_change = False
    while changed:
        changed = False
        out, i = [], 0
        for m in re.finditer(pattern, text):
            if m.start() < i:
                continue
            call = omc_tables.call_arguments(text, m.end() - 1)
            if call is None:
                continue
            end, args = call
            inner = text[m.end() : end - 1]
            if re.search(pattern, inner):
                continue  # rewritten once the inner calls are
            new = rep(args, inner)
            if new is None:
                continue
            out.append(text[i : m.start()] + new)
            i, changed = end, True
        out.append(text[i:])
        text = "".join(out)
        any_change |= changed
    return text, any_change


_STRING_OPTIONS = {4: ("significantDigits", "minimumLength", "leftJustified"), 3: ("minimumLength", "leftJustified")}


def _string_arguments(text: str) -> tuple[str, bool]:
    def rep(args, _inner):
        names = _STRING_OPTIONS.get(len(args))
        if names is None or any(re.match(r"^[A-Za-z_]\w*\s*=[^=]", a) for a in args[1:]):
            return None
        return f"String({args[0]}, " + ", ".join(f"{n} = {a}" for n, a in zip(names, args[1:])) + ")"

    out, changed, i = [], False, 0
    for m in re.finditer(r"(?<![\w.'])String\(", text):
        if m.start() < i:
            continue
        call = omc_tables.call_arguments(text, m.end() - 1)
        if call is None:
            continue
        end, args = call
        new = rep(args, None)
        if new is None:
            continue
        out.append(text[i : m.start()] + new)
        i, changed = end, True
    out.append(text[i:])
    return "".join(out), changed


def _stream_operators(text: str) -> tuple[str, bool]:
    def div(args, _inner):
        return f"({args[0]})" if len(args) == 2 and "$OMC$PositiveMax(" in args[0] else None

    text, a = _calls(text, r"\$OMC\$inStreamDiv\(", div)
    text, b = _calls(text, r"\$OMC\$PositiveMax\(", lambda args, _: f"max({args[0]}, {args[1]})" if len(args) == 2 else None)
    return text, a or b


def _comprehensions(text: str) -> tuple[str, bool]:
    def rep(args, inner):
        m = re.fullmatch(r"(.*)\sfor\s+(\$?[A-Za-z_]\w*)\s+in\s+(\d+)\s*:\s*(\d+)\s*", inner, re.S)
        if len(args) != 1 or m is None:
            return None
        body, it, lo, hi = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        if hi < lo or hi - lo > 1000:
            return None
        # the iterator as a whole name (not a field `a.i`, not inside a quoted name or a string)
        occurrence = re.compile(rf'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|(?<![\w.$]){re.escape(it)}(?![\w])')
        if "," in body and _top_level_comma(body):
            return None  # several iterators or arguments: left as it is

        def element(k):
            return occurrence.sub(lambda o: str(k) if o.group(0) == it else o.group(0), body.strip())

        return "{" + ", ".join(element(k) for k in range(lo, hi + 1)) + "}"

    return _calls(text, r"(?<![\w.'])array\(", rep)


def _first_outputs(text: str) -> tuple[str, bool]:
    multi = set()
    for m in re.finditer(r"^([ \t]*)(?:impure\s+|pure\s+)?function\s+([A-Za-z_][\w.]*)\b(?![^\n]*;\s*$)(.*?)^\1end\s+\2\s*;",
                         text, re.M | re.S):
        if len(re.findall(r"^\s*output\s", m.group(3), re.M)) >= 2:
            multi.add(m.group(2))
    out, i, changed = [], 0, False
    for m in re.finditer(r"(?<![\w.'])([A-Za-z_][\w.]*)\(", text):
        if m.group(1) not in multi or m.start() < i:
            continue
        call = omc_tables.call_arguments(text, m.end() - 1)
        if call is None:
            continue
        end = call[0]
        sub = re.match(r"\[\s*1\s*\]", text[end:])
        if sub is None:
            continue
        out.append(text[i:end])
        i, changed = end + sub.end(), True
    out.append(text[i:])
    return "".join(out), changed


def _literal_subscripts(text: str) -> tuple[str, bool]:
    changed = False
    while True:
        out, i, step = [], 0, False
        for m in re.finditer(r"\{", text):
            if m.start() < i:
                continue
            call = omc_tables.call_arguments(text, m.start())
            if call is None:
                continue
            end, items = call
            sub = re.match(r"\[\s*(\d+)\s*\]", text[end:])
            if sub is None or not 1 <= int(sub.group(1)) <= len(items) or "{" in text[m.start() + 1 : end - 1] \
                    or re.search(r"\sfor\s", text[m.start() : end]):
                continue
            out.append(text[i : m.start()] + f"({items[int(sub.group(1)) - 1]})")
            i, step = end + sub.end(), True
        out.append(text[i:])
        text = "".join(out)
        if not step:
            return text, changed
        changed = True


def _top_level_comma(body: str) -> bool:
    depth = 0
    for c in body:
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            return True
    return False
