#!/usr/bin/env python3
"""Seeded generator of random multimode models with an exact solution (the method of manufactured
solutions, issue 29 point 3), and the well-posedness filter that keeps only models every visited
mode of which is structurally regular, numerically non-singular along the solution and stable.

    python integration/campaign_gen.py SEED            # print the model of SEED
    python integration/campaign_gen.py SEED --info     # ... and what the filter found per mode
    python integration/campaign_gen.py SEED --control K  # the control of its K-th visited mode

Standard library only; independent of the Rust code (its own Σ-method, by brute force).

The model
---------
Real unknowns x1..xn (n = 2..6), each with an exact trajectory f_j(t) from a small family:
`1 + sin(time)`, `cos(time)`, `a + b*time`, `exp(-a*time) + c`, a constant `a`. Every residual is
a sum of terms that vanish on that solution: e_j = (x_j - f_j(t)), de_j = (der(x_j) - f_j'(t)),
and products that add incidence e_i*x_j = (x_i - f_i(t))*x_j. So every equation, in every mode,
holds on the same smooth trajectory: the solution is continuous across every switch and no impulse
is needed. Mode variables b1..bm (m = 1..3) are Booleans defined by time events (`b = time >= t1`,
`b = time < t1`) and, in part of the models, by a state event on a known function of the solution
(`b = x3 >= 1.4567`, `b = x2 - x4 < 0.3`: the crossing time is computed from the exact solution).
Equations are top-level (`0 = r`, or `der(x) = ...` when r is `der(x) - f' + ...`), if-expressions
(`0 = if c then r1 elseif c2 then r2 else r3`, or `der(x) = if c then ... else ...` when every
branch is explicit in the same der(x)) and if-equations with 1..3 equations per branch; branch
conditions are formulas over the b's with `not`/`and`/`or`. Branches differ in which variables and
derivatives they hold, so states appear and disappear and some modes have index 2 or 3.
Starts: a variable fixed at t = 0 gets `start = f(0), fixed = true`; every other one gets an exact
start, no start, or a guessed one (f(0) plus a perturbation of 0.05..0.2, never fixed); a variable
that is in a product gets an exact start or one guessed within 0.02..0.05, never none:
(x_i - f_i)*x_j has a second root (at x_j = 0, or where the coefficient of x_i - f_i vanishes), and
the intended solution is the root a solver reaches from the starts (point 3 of the filter keeps the
other roots at least 0.2 away). The variables of a state event's guard start exactly: the initial
mode is the one the guards give on the start values (with no start, x = 0 could select another mode
that is consistent on its own, e.g. one where x is a free state).

The filter (`analyse`): independently of the tool
-------------------------------------------------
1. The visited modes: the switch times of the b's (exact for time events; for a state event the
   crossing of the exact solution, required to be single and transversal) give the sequence of
   assignments of (b1..bm) the simulation goes through; only those modes are checked.
2. Per visited mode, the Σ-matrix (σ_ij = 1 if der(x_j) is in residual i, 0 if only x_j is,
   -inf otherwise) and a maximum-weight transversal by brute force over every permutation (n <= 6);
   none finite: structurally singular, rejected. Pryce's offsets c, d by the fixed-point iteration
   from c = 0 (the smallest offsets); the structural index is max c_i (+1 if some d_j = 0).
3. Pryce's system Jacobian J_ij = ∂r_i/∂x_j^(d_j - c_i) (where d_j - c_i = σ_ij, else 0) evaluated
   on the exact solution at the mode's first instant, 5 times inside its interval and its last
   instant: |det J| / prod(row norms) >= 1e-3, else rejected (a product e_i*x_j adds incidence of x_j
   with a zero derivative on the solution, so a transversal through it is structurally fine and
   numerically singular). The products are the only nonlinearity, quadratic, so the Jacobian is
   Lipschitz with L = max_i sum 2|c| over the products of residual i; ||J^-1|| * L <= 10 (max norm)
   keeps every other root at least 0.2 from the solution (Kantorovich), else rejected: a root
   nearer would make "the" solution depend on the solver's starting point.
4. Stability: the linearisation of the residuals around the solution is M(t) e' + K(t) e = 0; at
   the same 5 times, det(λM + K) (a polynomial of degree Σd - Σc, its coefficients from samples on
   the unit circle) must have that degree, and every root real part <= -0.05 and modulus <= 200.
5. The initial mode's initial system (Pryce: the residuals differentiated c_i times, unknowns x_j
   up to order d_j, plus x_j = f_j(0) for the fixed variables) is square and non-singular at t = 0:
   the generator fixes DOF = Σd - Σc variables among those differentiated (d_j >= 1), trying subsets
   until one is non-singular.
6. At least one if-construct changes branch along the visited modes (the model is multimode).
A seed's rng draws candidates until one passes (at most MAX_ATTEMPTS); the attempt count and the
reasons of the rejected candidates are in the result's `info`.

Per-mode controls (`control`)
-----------------------------
What a simulator must be able to do for any output to be right in a visited mode: that mode as a
plain model (its active equations as the model writes them; no if, no Boolean), every variable
starting at its exact value at the mode's t0, `fixed = true` on DOF = Σd - Σc state values chosen
with the filter's own Σ-method so that the initial system is regular (`control_fixed`; derivatives
through `initial equation der(x) = f'(t0)` only if no set of values will do: never needed on seeds
0..9999), simulated from t0 to t1 (rumoca 0.10.2 starts `time` there, so the text keeps `time`).
The mode is checked again every 0.005 on its interval (regular, no other root near, stable: the
filter looked at 7 times only); otherwise, or without a regular initial system, NoControl: a
control that proves nothing is not written. campaign_run.py runs the controls of the seeds whose
output fails in rumoca.
"""

from __future__ import annotations

import argparse
import cmath
import itertools
import math
import random
import sys
from dataclasses import dataclass, field

GENERATOR_VERSION = 2
STOP_TIME = 2.0
MAX_ATTEMPTS = 400
NEG_INF = float("-inf")

# ---------------------------------------------------------------------------------------------
# Numbers as text
# ---------------------------------------------------------------------------------------------


def num(v: float) -> str:
    """A short, deterministic decimal (the values are drawn rounded)."""
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    if s in ("-0", ""):
        s = "0"
    return s


def needs_parens(text: str) -> bool:
    """A top-level + or - (not a leading sign): the text must be parenthesised as an operand."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and ch in "+-" and i > 0 and text[i - 1] not in "eE(":
            return True
    return text.startswith("-")


def par(text: str) -> str:
    return f"({text})" if needs_parens(text) else text


# ---------------------------------------------------------------------------------------------
# Exact trajectories
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Traj:
    kind: str  # sin1, cos, lin, exp, const
    a: float = 0.0
    b: float = 0.0
    c: float = 0.0

    def value(self, t: float, order: int = 0) -> float:
        k = self.kind
        if k == "sin1":
            return (1.0 if order == 0 else 0.0) + math.sin(t + order * math.pi / 2)
        if k == "cos":
            return math.cos(t + order * math.pi / 2)
        if k == "lin":
            return self.a + self.b * t if order == 0 else (self.b if order == 1 else 0.0)
        if k == "exp":
            return (-self.a) ** order * math.exp(-self.a * t) + (self.c if order == 0 else 0.0)
        if k == "const":
            return self.a if order == 0 else 0.0
        raise ValueError(k)

    def text(self) -> str:
        k = self.kind
        if k == "sin1":
            return "1 + sin(time)"
        if k == "cos":
            return "cos(time)"
        if k == "lin":
            return f"{num(self.a)} {'+' if self.b >= 0 else '-'} {num(abs(self.b))}*time"
        if k == "exp":
            if self.c == 0:
                return f"exp(-{num(self.a)}*time)"
            return f"exp(-{num(self.a)}*time) {'+' if self.c >= 0 else '-'} {num(abs(self.c))}"
        return num(self.a)

    def dtext(self) -> str:
        """f'(t) as text, '0' when constant."""
        k = self.kind
        if k == "sin1":
            return "cos(time)"
        if k == "cos":
            return "-sin(time)"
        if k == "lin":
            return num(self.b)
        if k == "exp":
            return f"-{num(self.a)}*exp(-{num(self.a)}*time)"
        return "0"


def draw_traj(rng: random.Random) -> Traj:
    k = rng.choices(["sin1", "cos", "lin", "exp", "const"], [3, 3, 3, 2, 1])[0]
    if k == "lin":
        b = round(rng.uniform(0.2, 1.0), 2) * rng.choice([-1, 1])
        return Traj("lin", a=round(rng.uniform(-1.5, 2.0), 2), b=b)
    if k == "exp":
        return Traj("exp", a=round(rng.uniform(0.3, 2.0), 1), c=round(rng.uniform(-0.5, 1.0), 1))
    if k == "const":
        return Traj("const", a=round(rng.choice([-1, 1]) * rng.uniform(0.3, 2.0), 2))
    return Traj(k)


# ---------------------------------------------------------------------------------------------
# Residuals: sums of terms that vanish on the exact solution
# ---------------------------------------------------------------------------------------------
# A term is (coef, kind, i, j): kind "E": coef*(x_i - f_i); "D": coef*(der(x_i) - f_i');
# "P": coef*(x_i - f_i)*x_j.


@dataclass
class Residual:
    terms: list  # [(coef, kind, i, j)]

    def incidence(self) -> dict[int, int]:
        """variable -> highest derivative order (0 or 1)."""
        sig: dict[int, int] = {}
        for _, kind, i, j in self.terms:
            if kind == "D":
                sig[i] = 1
            else:
                sig.setdefault(i, 0)
                if kind == "P":
                    sig.setdefault(j, 0)
        return sig

    def evaluate(self, t: float, x: list[float], dx: list[float], trajs: list[Traj]) -> float:
        s = 0.0
        for c, kind, i, j in self.terms:
            if kind == "E":
                s += c * (x[i] - trajs[i].value(t))
            elif kind == "D":
                s += c * (dx[i] - trajs[i].value(t, 1))
            else:
                s += c * (x[i] - trajs[i].value(t)) * x[j]
        return s

    def mk(self, n: int, t: float, trajs: list[Traj], order: int = 0) -> tuple[list[float], list[float]]:
        """Row i of M^(order)(t) and K^(order)(t) of the linearisation M e' + K e at the solution
        (the order-th time derivative of the coefficients)."""
        m, k = [0.0] * n, [0.0] * n
        for c, kind, i, j in self.terms:
            if kind == "E":
                if order == 0:
                    k[i] += c
            elif kind == "D":
                if order == 0:
                    m[i] += c
            else:  # d/dx_i of c*(x_i - f_i)*x_j is c*x_j = c*f_j; d/dx_j is c*(x_i - f_i) = 0
                k[i] += c * trajs[j].value(t, order)
        return m, k

    def explicit_var(self) -> int | None:
        c, kind, i, _ = self.terms[0]
        return i if kind == "D" and c == 1.0 and not any(k == "D" and i2 == i for _, k, i2, _ in self.terms[1:]) else None


def term_text(kind: str, i: int, j: int, trajs: list[Traj], bare: bool) -> str:
    """The atom of a term; bare: without its outer parentheses (the leading term of a sum)."""
    if kind == "E":
        body = f"x{i + 1} - {par(trajs[i].text())}"
    elif kind == "D":
        d = trajs[i].dtext()
        if d == "0":
            return f"der(x{i + 1})"
        body = f"der(x{i + 1}) + {d[1:]}" if d.startswith("-") else f"der(x{i + 1}) - {d}"
    else:
        return f"(x{i + 1} - {par(trajs[i].text())})*x{j + 1}"
    return body if bare else f"({body})"


def sum_text(terms: list, trajs: list[Traj], lead: str = "") -> str:
    """terms as a Modelica sum; `lead` is an already written first operand (no sign)."""
    out = lead
    for c, kind, i, j in terms:
        first = out == ""
        mag = abs(c)
        coef = "" if mag == 1.0 else f"{num(mag)}*"
        atom = term_text(kind, i, j, trajs, bare=first and c > 0 and mag == 1.0 and kind != "P")
        if first:
            out = ("-" if c < 0 else "") + coef + atom
        else:
            out += (" - " if c < 0 else " + ") + coef + atom
    return out or "0"


def residual_text(r: Residual, trajs: list[Traj]) -> str:
    return sum_text(r.terms, trajs)


def explicit_rhs(r: Residual, trajs: list[Traj]) -> str:
    """r = der(x_i) - f_i' + rest: der(x_i) = f_i' - rest."""
    _, _, i, _ = r.terms[0]
    rest = [(-c, kind, a, b) for c, kind, a, b in r.terms[1:]]
    d = trajs[i].dtext()
    return sum_text(rest, trajs, lead="" if d == "0" else d)


# ---------------------------------------------------------------------------------------------
# Conditions over the mode variables
# ---------------------------------------------------------------------------------------------


def cond_eval(c, assign: tuple) -> bool:
    op = c[0]
    if op == "var":
        return assign[c[1]]
    if op == "not":
        return not cond_eval(c[1], assign)
    if op == "and":
        return cond_eval(c[1], assign) and cond_eval(c[2], assign)
    return cond_eval(c[1], assign) or cond_eval(c[2], assign)


def cond_text(c) -> str:
    op = c[0]
    if op == "var":
        return f"b{c[1] + 1}"
    if op == "not":
        inner = cond_text(c[1])
        return f"not {inner}" if c[1][0] == "var" else f"not ({inner})"
    a, b = cond_text(c[1]), cond_text(c[2])
    if op == "and":
        a = f"({a})" if c[1][0] == "or" else a
        b = f"({b})" if c[2][0] == "or" else b
        return f"{a} and {b}"
    return f"{a} or {b}"


def draw_cond(rng: random.Random, m: int, depth: int = 0):
    r = rng.random()
    if depth >= 1 or m == 1 or r < 0.45:
        v = ("var", rng.randrange(m))
        return ("not", v) if rng.random() < 0.3 else v
    if r < 0.55:
        return ("not", draw_cond(rng, m, depth + 1))
    return (rng.choice(["and", "or"]), draw_cond(rng, m, depth + 1), draw_cond(rng, m, depth + 1))


# ---------------------------------------------------------------------------------------------
# Model structure
# ---------------------------------------------------------------------------------------------


@dataclass
class ModeVar:
    kind: str         # "time" or "state"
    op: str           # ">=" or "<"
    threshold: float
    guard: tuple = ()  # state events: (j,) for x_j, (j, k) for x_j - x_k
    switch_time: float = 0.0

    def g(self, t: float, trajs: list[Traj], order: int = 0) -> float:
        if self.kind == "time":
            return t if order == 0 else (1.0 if order == 1 else 0.0)
        v = trajs[self.guard[0]].value(t, order)
        if len(self.guard) == 2:
            v -= trajs[self.guard[1]].value(t, order)
        return v

    def value(self, t: float, trajs: list[Traj]) -> bool:
        g = self.g(t, trajs)
        return g >= self.threshold if self.op == ">=" else g < self.threshold

    def text(self) -> str:
        if self.kind == "time":
            lhs = "time"
        elif len(self.guard) == 1:
            lhs = f"x{self.guard[0] + 1}"
        else:
            lhs = f"x{self.guard[0] + 1} - x{self.guard[1] + 1}"
        thr = num(self.threshold)
        return f"{lhs} {self.op} {thr if self.threshold >= 0 else '(' + thr + ')'}"


@dataclass
class Slot:
    """A top-level equation ("eq"), an if-expression ("ifexpr", one equation per branch) or an
    if-equation ("ifeq", k equations per branch). conds: one per branch but the last (else)."""
    kind: str
    conds: list
    branches: list  # [[Residual, ...], ...]; "eq": one branch
    explicit: list = field(default_factory=list)  # per branch: per equation, write der(x) = ...

    def branch(self, assign: tuple) -> int:
        for bi, c in enumerate(self.conds):
            if cond_eval(c, assign):
                return bi
        return len(self.branches) - 1

    def active(self, assign: tuple) -> list:
        return self.branches[self.branch(assign)]


@dataclass
class Model:
    seed: int
    name: str
    trajs: list
    modevars: list
    slots: list
    starts: list       # per variable: ("fixed"|"exact"|"guess"|"none", value)
    modes: list        # visited: [(assign, t0, t1)]
    info: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.trajs)

    def residuals(self, assign: tuple) -> list:
        return [r for s in self.slots for r in s.active(assign)]

    def text(self) -> str:
        tr = self.trajs
        lines = [f"// mdae-rimis exact-solution campaign, generator v{GENERATOR_VERSION}, seed {self.seed}.",
                 "// Exact solution: " + ", ".join(f"x{j + 1} = {t.text()}" for j, t in enumerate(tr)) + ".",
                 "// Visited modes: " + "; ".join(
                     "[" + ", ".join(f"{'' if v else 'not '}b{i + 1}" for i, v in enumerate(a)) + f"] on [{num(t0)}, {num(t1)})"
                     for a, t0, t1 in self.modes) + ".",
                 f"model {self.name}"]
        for j, (kind, v) in enumerate(self.starts):
            if kind == "fixed":
                lines.append(f"  Real x{j + 1}(start = {num(v)}, fixed = true);")
            elif kind in ("exact", "guess"):
                lines.append(f"  Real x{j + 1}(start = {num(v)});")
            else:
                lines.append(f"  Real x{j + 1};")
        for i in range(len(self.modevars)):
            lines.append(f"  Boolean b{i + 1};")
        lines.append("equation")
        for i, mv in enumerate(self.modevars):
            lines.append(f"  b{i + 1} = {mv.text()};")
        for s in self.slots:
            if s.kind == "eq":
                lines.append("  " + eq_text(s.branches[0][0], s.explicit[0][0], tr) + ";")
            elif s.kind == "ifexpr":
                rs = [b[0] for b in s.branches]
                if all(s.explicit[bi][0] for bi in range(len(rs))):
                    v = rs[0].explicit_var()
                    parts = [explicit_rhs(r, tr) for r in rs]
                    lhs = f"der(x{v + 1})"
                else:
                    parts = [residual_text(r, tr) for r in rs]
                    lhs = "0"
                e = f"if {cond_text(s.conds[0])} then {parts[0]}"
                for c, p in zip(s.conds[1:], parts[1:]):
                    e += f" elseif {cond_text(c)} then {p}"
                e += f" else {parts[-1]}"
                lines.append(f"  {lhs} = {e};")
            else:
                for bi, br in enumerate(s.branches):
                    if bi == 0:
                        lines.append(f"  if {cond_text(s.conds[0])} then")
                    elif bi < len(s.conds):
                        lines.append(f"  elseif {cond_text(s.conds[bi])} then")
                    else:
                        lines.append("  else")
                    for r, ex in zip(br, s.explicit[bi]):
                        lines.append("    " + eq_text(r, ex, tr) + ";")
                lines.append("  end if;")
        lines.append(f"  annotation(experiment(StopTime = {num(STOP_TIME)}));")
        lines.append(f"end {self.name};")
        return "\n".join(lines) + "\n"


def eq_text(r: Residual, explicit: bool, trajs: list[Traj]) -> str:
    if explicit:
        return f"der(x{r.explicit_var() + 1}) = {explicit_rhs(r, trajs)}"
    return f"0 = {residual_text(r, trajs)}"


# ---------------------------------------------------------------------------------------------
# Linear algebra (tiny, complex-capable)
# ---------------------------------------------------------------------------------------------


def det(a: list[list]) -> complex | float:
    a = [row[:] for row in a]
    n = len(a)
    d = 1.0
    for col in range(n):
        p = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[p][col]) == 0:
            return 0.0
        if p != col:
            a[col], a[p] = a[p], a[col]
            d = -d
        d *= a[col][col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                for k in range(col, n):
                    a[r][k] -= f * a[col][k]
    return d


def scaled_det(a: list[list[float]]) -> float:
    """|det a| / prod of the row norms: 1 for orthogonal rows, 0 for singular."""
    if not a:
        return 1.0
    norms = [math.sqrt(sum(v * v for v in row)) for row in a]
    if min(norms) == 0:
        return 0.0
    return abs(det([[v / nr for v in row] for row, nr in zip(a, norms)]))


def inv_norm(a: list[list[float]]) -> float:
    """||a^-1|| in the max norm (max row sum), by Gauss-Jordan; inf if singular."""
    n = len(a)
    m = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        p = max(range(col, n), key=lambda r: abs(m[r][col]))
        if m[p][col] == 0:
            return math.inf
        m[col], m[p] = m[p], m[col]
        piv = m[col][col]
        m[col] = [v / piv for v in m[col]]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col]
                m[r] = [v - f * w for v, w in zip(m[r], m[col])]
    return max(sum(abs(v) for v in row[n:]) for row in m)


def poly_roots(coefs: list[complex]) -> list[complex]:
    """Roots of sum coefs[k] λ^k (leading coefficient non-zero), Durand-Kerner."""
    deg = len(coefs) - 1
    if deg <= 0:
        return []
    lead = coefs[-1]
    c = [v / lead for v in coefs]
    p = lambda z: sum(ck * z ** k for k, ck in enumerate(c))  # noqa: E731
    radius = 1 + max(abs(v) for v in c[:-1])
    roots = [radius * cmath.exp(2j * math.pi * (k + 0.25) / deg) for k in range(deg)]
    for _ in range(500):
        new = []
        for i, z in enumerate(roots):
            den = 1
            for k, w in enumerate(roots):
                if k != i:
                    den *= z - w
            new.append(z - p(z) / den if den != 0 else z + 1e-6)
        delta = max(abs(a - b) for a, b in zip(new, roots))
        roots = new
        if delta < 1e-12 * radius:
            break
    return roots


# ---------------------------------------------------------------------------------------------
# Structural analysis (Pryce's Σ-method by brute force)
# ---------------------------------------------------------------------------------------------


def sigma_matrix(res: list[Residual], n: int) -> list[list[float]]:
    sig = [[NEG_INF] * n for _ in res]
    for i, r in enumerate(res):
        for j, o in r.incidence().items():
            sig[i][j] = o
    return sig


def best_transversal(sig: list[list[float]]):
    """(value, permutation row->column) of a maximum-weight transversal; None if none is finite."""
    n = len(sig)
    best, best_p = NEG_INF, None
    for p in itertools.permutations(range(n)):
        v = 0.0
        for i in range(n):
            s = sig[i][p[i]]
            if s == NEG_INF:
                v = NEG_INF
                break
            v += s
        if v > best:
            best, best_p = v, p
    return (best, best_p) if best_p is not None else None


def offsets(sig: list[list[float]], perm) -> tuple[list[int], list[int]]:
    """Pryce's smallest offsets: c = 0, then d_j = max_i σ_ij + c_i, c_i = d_T(i) - σ_iT(i)."""
    n = len(sig)
    c = [0] * n
    for _ in range(100):
        d = [max(int(sig[i][j]) + c[i] for i in range(n) if sig[i][j] != NEG_INF) for j in range(n)]
        c2 = [d[perm[i]] - int(sig[i][perm[i]]) for i in range(n)]
        if c2 == c:
            return c, d
        c = c2
    raise RuntimeError("offsets did not converge")


def system_jacobian(res, sig, c, d, t, trajs) -> list[list[float]]:
    n = len(res)
    jac = []
    for i, r in enumerate(res):
        m, k = r.mk(n, t, trajs)
        row = []
        for j in range(n):
            o = d[j] - c[i]
            row.append((m[j] if o == 1 else k[j]) if sig[i][j] == o and o in (0, 1) else 0.0)
        jac.append(row)
    return jac


def pencil_poly(res, t, trajs) -> list[complex]:
    """Coefficients of det(λM + K) (degree <= n), from n+1 samples on the unit circle."""
    n = len(res)
    mk = [r.mk(n, t, trajs) for r in res]
    N = n + 1
    samples = []
    for s in range(N):
        lam = cmath.exp(2j * math.pi * s / N)
        samples.append(det([[lam * mk[i][0][j] + mk[i][1][j] for j in range(n)] for i in range(n)]))
    coefs = []
    for k in range(N):
        coefs.append(sum(samples[s] * cmath.exp(-2j * math.pi * s * k / N) for s in range(N)) / N)
    return coefs


def initial_jacobian(res, c, d, fixed, t, trajs) -> list[list[float]]:
    """Rows: r_i differentiated k = 0..c_i times, then x_j = f_j(0) for j in fixed; columns: x_j^(l),
    l = 0..d_j. Entry: coefficient of e_j^(l) in the k-th derivative of the linearisation,
    C(k, l-1) M_ij^(k-l+1) + C(k, l) K_ij^(k-l)."""
    n = len(res)
    cols = [(j, l) for j in range(n) for l in range(d[j] + 1)]
    maxo = max(c) + 2 if c else 2
    rows = []
    for i, r in enumerate(res):
        der = [r.mk(n, t, trajs, o) for o in range(maxo)]
        for k in range(c[i] + 1):
            row = []
            for j, l in cols:
                v = 0.0
                if 0 <= l - 1 <= k:
                    v += math.comb(k, l - 1) * der[k - l + 1][0][j]
                if l <= k:
                    v += math.comb(k, l) * der[k - l][1][j]
                row.append(v)
            rows.append(row)
    for j in fixed:
        rows.append([1.0 if (jj, l) == (j, 0) else 0.0 for jj, l in cols])
    return rows


JAC_MIN = 1e-3
KANTOROVICH = 10.0   # ||J^-1|| * L <= 10: the solution is the only root within 0.2 (max norm) of it
STABILITY_MARGIN = -0.05
MAX_RATE = 200.0


def check_mode(res: list[Residual], n: int, t0: float, t1: float, trajs,
               step: float | None = None) -> tuple[str | None, dict]:
    """None and the mode's facts if the mode is well-posed, else (reason, facts). Checked at the
    mode's first instant, 5 times inside and its last instant; with `step`, on a grid of that step
    instead (the per-mode controls: well-posed between the filter's 7 times too)."""
    if len(res) != n:
        return f"{len(res)} equations for {n} unknowns", {}
    sig = sigma_matrix(res, n)
    bt = best_transversal(sig)
    if bt is None:
        return "structurally singular", {}
    _, perm = bt
    c, d = offsets(sig, perm)
    dof = sum(d) - sum(c)
    index = max(c) + (1 if min(d) == 0 else 0)
    facts = {"c": c, "d": d, "dof": dof, "index": index,
             "states": [j for j in range(n) if d[j] >= 1]}
    # products bound the second derivative of the residuals: |d2 r_i| <= L = max_i sum 2|c|
    lip = max(sum(2 * abs(cf) for cf, kind, _, _ in r.terms if kind == "P") for r in res)
    if step is None:
        times = [t0] + [t0 + (t1 - t0) * (s + 0.5) / 5 for s in range(5)] + [t1 - 1e-6]
    else:
        k = max(1, math.ceil((t1 - t0) / step))
        times = [t0 + (t1 - t0) * s / k for s in range(k)] + [t1 - 1e-6]
    for t in times:
        jac = system_jacobian(res, sig, c, d, t, trajs)
        if scaled_det(jac) < JAC_MIN:
            return f"system Jacobian singular at t = {t:.3f}", facts
        if lip > 0 and inv_norm(jac) * lip > KANTOROVICH:
            return f"another root near the solution at t = {t:.3f}", facts
        coefs = pencil_poly(res, t, trajs)
        scale = max(abs(v) for v in coefs)
        if scale == 0 or abs(coefs[dof]) < 1e-6 * scale or any(abs(v) > 1e-6 * scale for v in coefs[dof + 1:]):
            return f"det(λM + K) has not degree {dof} at t = {t:.3f}", facts
        roots = poly_roots(coefs[:dof + 1])
        worst = max((z.real for z in roots), default=-1.0)
        if worst > STABILITY_MARGIN:
            return f"unstable at t = {t:.3f} (eigenvalue {worst:.3f})", facts
        if any(abs(z) > MAX_RATE for z in roots):
            return f"too stiff at t = {t:.3f}", facts
        facts["max_re"] = max(facts.get("max_re", -1e9), worst)
    return None, facts


# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------


def coef(rng: random.Random, lo: float, hi: float, signed: bool = True) -> float:
    v = round(rng.uniform(lo, hi), 2)
    return -v if signed and rng.random() < 0.5 else v


def draw_residual(rng: random.Random, n: int, primary: int, kind: str) -> Residual:
    others = [j for j in range(n) if j != primary]
    terms = []
    if kind == "dyn":
        terms.append((1.0, "D", primary, 0))
        terms.append((coef(rng, 0.5, 3.5, signed=False), "E", primary, 0))
    elif kind == "alg":
        terms.append((coef(rng, 0.5, 2.0) if rng.random() < 0.5 else 1.0, "E", primary, 0))
    else:  # "prod": a primary error and a product
        terms.append((coef(rng, 0.5, 2.0) if rng.random() < 0.5 else 1.0, "E", primary, 0))
        i = rng.choice(range(n))
        terms.append((coef(rng, 0.2, 1.0), "P", i, rng.choice(range(n))))
    for _ in range(rng.choices([0, 1, 2], [3, 4, 2])[0]):
        if not others:
            break
        q = rng.choice(others)
        r = rng.random()
        if r < 0.6:
            terms.append((coef(rng, 0.1, 1.5), "E", q, 0))
        elif r < 0.8:
            terms.append((coef(rng, 0.1, 0.5), "D", q, 0))
        else:
            terms.append((coef(rng, 0.2, 1.0), "P", q, rng.choice(range(n))))
    # one term per (kind, i, j)
    seen, out = set(), []
    for t in terms:
        if (t[1], t[2], t[3]) not in seen:
            seen.add((t[1], t[2], t[3]))
            out.append(t)
    return Residual(out)


def draw_modevars(rng: random.Random, m: int, trajs: list[Traj]) -> list[ModeVar] | None:
    n = len(trajs)
    mvs: list[ModeVar] = []
    times: list[float] = []
    for _ in range(m):
        for _try in range(20):
            if rng.random() < 0.25:  # state event on the exact solution
                guard = (rng.randrange(n),) if rng.random() < 0.7 or n < 2 else tuple(rng.sample(range(n), 2))
                tc = rng.uniform(0.3, 1.7)
                mv = ModeVar("state", rng.choice([">=", "<"]), 0.0, guard)
                mv.threshold = round(mv.g(tc, trajs), 4)
                tc = crossing(mv, trajs)
                if tc is None:
                    continue
            else:
                tc = round(rng.uniform(0.2, 1.8), 2)
                mv = ModeVar("time", rng.choice([">=", "<"]), tc)
            if all(abs(tc - t) >= 0.15 for t in times):
                mv.switch_time = tc
                mvs.append(mv)
                times.append(tc)
                break
        else:
            return None
    return mvs


def crossing(mv: ModeVar, trajs) -> float | None:
    """The single transversal crossing of g(t) = threshold in (0.2, STOP - 0.2), else None."""
    grid = [STOP_TIME * k / 400 for k in range(401)]
    vals = [mv.g(t, trajs) - mv.threshold for t in grid]
    changes = [k for k in range(400) if (vals[k] >= 0) != (vals[k + 1] >= 0)]
    if len(changes) != 1 or min(abs(v) for v in (vals[0], vals[-1])) < 0.05:
        return None
    lo, hi = grid[changes[0]], grid[changes[0] + 1]
    for _ in range(60):
        mid = (lo + hi) / 2
        if (mv.g(mid, trajs) - mv.threshold >= 0) == (vals[changes[0]] >= 0):
            lo = mid
        else:
            hi = mid
    tc = (lo + hi) / 2
    if not 0.2 <= tc <= STOP_TIME - 0.2 or abs(mv.g(tc, trajs, 1)) < 0.3:
        return None
    return tc


def visited_modes(mvs: list[ModeVar], trajs) -> list[tuple]:
    assign = tuple(mv.value(0.0, trajs) for mv in mvs)
    events = sorted((mv.switch_time, i) for i, mv in enumerate(mvs))
    modes, t0 = [], 0.0
    for t, i in events:
        modes.append((assign, t0, t))
        a = list(assign)
        a[i] = not a[i]
        assign = tuple(a)
        t0 = t
    modes.append((assign, t0, STOP_TIME))
    return modes


def draw_candidate(rng: random.Random, seed: int) -> Model:
    n = rng.randint(2, 6)
    m = rng.choices([1, 2, 3], [4, 4, 2])[0]
    trajs = [draw_traj(rng) for _ in range(n)]
    mvs = draw_modevars(rng, m, trajs)
    if mvs is None:
        raise Rejected("no switch times")
    modes = visited_modes(mvs, trajs)
    # slots: sizes summing to n, at least one conditional
    sizes, remaining = [], n
    while remaining > 0:
        kind = rng.choices(["eq", "ifexpr", "ifeq"], [4, 3, 3])[0]
        k = rng.randint(1, min(3, remaining)) if kind == "ifeq" else 1
        sizes.append((kind, k))
        remaining -= k
    if all(kind == "eq" for kind, _ in sizes):
        i = rng.randrange(len(sizes))
        sizes[i] = (rng.choice(["ifexpr", "ifeq"]), 1)
    rng.shuffle(sizes)
    primaries = list(range(n))
    rng.shuffle(primaries)
    pos = 0
    slots = []
    for kind, k in sizes:
        prim = primaries[pos:pos + k]
        pos += k
        nb = 1 if kind == "eq" else rng.choices([2, 3], [5, 1])[0]
        conds = [draw_cond(rng, m) for _ in range(nb - 1)]
        branches, explicit = [], []
        base_kinds = [rng.choices(["dyn", "alg", "prod"], [5, 3, 2])[0] for _ in prim]
        chain = rng.randrange(nb) if k == 3 and rng.random() < 0.35 else None
        for bi in range(nb):
            br, ex = [], []
            if bi == chain:  # an index-3 chain: a' = g(b), b' = h(c), 0 = a (c is determined twice over)
                a_, b_, c_ = prim
                rs = [Residual([(1.0, "D", a_, 0), (coef(rng, 0.5, 3.0, signed=False), "E", a_, 0),
                                (coef(rng, 0.5, 1.5), "E", b_, 0)]),
                      Residual([(1.0, "D", b_, 0), (coef(rng, 0.5, 3.0, signed=False), "E", b_, 0),
                                (coef(rng, 0.5, 1.5), "E", c_, 0)]),
                      Residual([(coef(rng, 0.5, 2.0) if rng.random() < 0.5 else 1.0, "E", a_, 0)])]
                branches.append(rs)
                explicit.append([rng.random() < 0.5, rng.random() < 0.5, False])
                continue
            for p, bk in zip(prim, base_kinds):
                if bi > 0 and rng.random() < 0.6:  # this branch differs: another primary or form
                    if rng.random() < 0.5:
                        p = rng.randrange(n)
                    bk = rng.choice([x for x in ("dyn", "alg", "prod") if x != bk])
                r = draw_residual(rng, n, p, bk)
                br.append(r)
                ex.append(r.explicit_var() is not None and rng.random() < 0.5)
            branches.append(br)
            explicit.append(ex)
        if kind == "ifexpr":
            # der(x) = if ... only when every branch is explicit in the same der(x)
            vs = {b[0].explicit_var() for b in branches}
            same = len(vs) == 1 and None not in vs and rng.random() < 0.4
            explicit = [[same] for _ in branches]
        slots.append(Slot(kind, conds, branches, explicit))
    return Model(seed, f"Campaign{seed}", trajs, mvs, slots, [], modes)


class Rejected(Exception):
    pass


def analyse(model: Model, rng: random.Random | None = None) -> dict:
    """The filter: raises Rejected(reason) unless every visited mode is well-posed; returns the
    facts per mode. With rng, also chooses the fixed starts (the initial system) and the other
    starts; without, checks the model's own fixed starts."""
    n, trajs = model.n, model.trajs
    facts = []
    changes = False
    prev = None
    for assign, t0, t1 in model.modes:
        res = model.residuals(assign)
        why, f = check_mode(res, n, t0, t1, trajs)
        if why:
            raise Rejected(f"mode {assign_text(assign)}: {why}")
        branches = tuple(s.branch(assign) for s in model.slots)
        if prev is not None and branches != prev:
            changes = True
        prev = branches
        facts.append({"mode": assign_text(assign), "t0": t0, "t1": t1, **f})
    if not changes:
        raise Rejected("no if-construct changes branch along the visited modes")
    assign0 = model.modes[0][0]
    res0 = model.residuals(assign0)
    f0 = facts[0]
    if rng is not None:
        cands = f0["states"]
        subsets = list(itertools.combinations(cands, f0["dof"]))
        rng.shuffle(subsets)
        for fixed in subsets[:40]:
            jac = initial_jacobian(res0, f0["c"], f0["d"], list(fixed), 0.0, trajs)
            if len(jac) == len(jac[0]) and scaled_det(jac) >= JAC_MIN:
                break
        else:
            raise Rejected("no regular initial system")
        # A variable in a product (x_i - f_i)*x_j is in a nonlinear equation with another root
        # (x_j = 0 makes the product vanish): it gets a start near the solution, so that the
        # original's solution is the root its solver finds from the start values.
        in_product = {v for s in model.slots for br in s.branches for r in br
                      for _, kind, i, j in r.terms if kind == "P" for v in (i, j)}
        # A state event's guard decides the initial mode from the initial values: its variables
        # start exactly (the guard is at least 0.05 from its threshold at t = 0), so the mode the
        # guards give on the start values is the one the exact solution is in.
        in_guard = {j for mv in model.modevars if mv.kind == "state" for j in mv.guard}
        starts = []
        for j in range(n):
            v0 = trajs[j].value(0.0)
            if j in fixed:
                starts.append(("fixed", round(v0, 4)))
            elif j in in_guard:
                starts.append(("exact", round(v0, 4)))
            else:
                kind = rng.choices(["exact", "none", "guess"], [2, 0 if j in in_product else 2, 2])[0]
                if kind == "guess":
                    v0 += coef(rng, 0.02, 0.05) if j in in_product else coef(rng, 0.05, 0.2)
                starts.append((kind, round(v0, 4)))
        model.starts = starts
    else:
        fixed = [j for j, (k, _) in enumerate(model.starts) if k == "fixed"]
        jac = initial_jacobian(res0, f0["c"], f0["d"], fixed, 0.0, trajs)
        if len(jac) != len(jac[0]) or scaled_det(jac) < JAC_MIN:
            raise Rejected("initial system not square and regular")
    return {"modes": facts, "fixed": [j for j, (k, _) in enumerate(model.starts) if k == "fixed"]}


def assign_text(assign: tuple) -> str:
    return "[" + ", ".join(f"{'' if v else 'not '}b{i + 1}" for i, v in enumerate(assign)) + "]"


def generate(seed: int) -> Model:
    """The model of `seed`: the first well-posed candidate of the seed's rng (deterministic)."""
    rng = random.Random(f"mdae-rimis-campaign-{GENERATOR_VERSION}-{seed}")
    reasons: dict[str, int] = {}
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            model = draw_candidate(rng, seed)
            facts = analyse(model, rng)
        except Rejected as e:
            key = str(e).split(": ", 1)[-1].split(" at t =")[0].split(" (")[0]
            reasons[key] = reasons.get(key, 0) + 1
            continue
        model.info = {"attempts": attempt, "rejected": reasons, **facts}
        return model
    raise RuntimeError(f"seed {seed}: no well-posed model in {MAX_ATTEMPTS} attempts ({reasons})")


# ---------------------------------------------------------------------------------------------
# Per-mode controls: one visited mode as a plain model
# ---------------------------------------------------------------------------------------------
# A seed's output can fail in a simulator for the simulator's own reasons: rumoca 0.10.2 leaves the
# exact root of seed 3919's mode `not b1` (a plain algebraic system, regular along the solution)
# for the other root of its product. The control of a visited mode is what the simulator must be
# able to do for any output to be right there: the mode's equations alone, on its interval, from
# exact starts and a determined initial system. campaign_run.py runs the controls of a failing
# output and lays the failure on the simulator (simulator-limit) only when a control fails where
# the output does; if none does, the failure stays the tool's.


# The control's initial system only has to be regular: its starts are exact, so there is no root to
# find far from them. The filter's JAC_MIN is a margin on the original's (random) initial system; a
# scaled determinant shrinks with the rows of the differentiated equations (seeds 290, 396 and 839
# have later modes whose only structurally regular choices are at 3e-4 .. 9e-4), while a
# structurally singular choice is exactly 0.
CONTROL_JAC_MIN = 1e-6
CONTROL_STEP = 0.005


class NoControl(Exception):
    """The mode's control cannot be written with a determined, regular initial system (never a proof
    against the simulator)."""


@dataclass
class Control:
    index: int        # the mode's position in model.modes
    mode: str         # assign_text of its assignment
    t0: float
    t1: float
    name: str
    text: str
    fixed: list       # [(j, l)]: x_j^(l) fixed at its exact value at t0 (l = 0: fixed = true;
                      # l = 1: the initial equation der(x_j) = f_j'(t0))
    struct_index: int     # the mode's structural index (Pryce)
    differentiated: bool  # some equation needs differentiating (max c_i > 0): a simulator must
                          # reduce the index of the control, while mdae-rimis's output of that mode
                          # is already reduced, so a failure of the control says nothing of it


def exact_num(v: float) -> str:
    """A value at an arbitrary time, to 12 digits (num's 4 decimals would put a fixed start 5e-5 off)."""
    s = f"{v:.12g}"
    return "0" if s == "-0" else s


def control_fixed(res: list[Residual], c: list[int], d: list[int], t: float, trajs) -> list[tuple[int, int]]:
    """DOF = Σd - Σc of the mode's state values x_j^(l) (l < d_j, Pryce's state space) to fix at
    t so that the initial system (the residuals differentiated c_i times, unknowns x_j^(0..d_j),
    and x_j^(l) = f_j^(l)(t)) is square and regular (scaled determinant >= CONTROL_JAC_MIN).
    Preferred, in order: values of variables whose der() is in the text (Modelica's states:
    fixed = true is the plain start of a state), then other values (fixed = true on a variable
    differentiated only by the index reduction), then derivatives (an initial equation
    der(x) = f'); within a tier the largest scaled determinant (deterministic, and the farthest
    from singular). NoControl if none."""
    n = len(res)
    dof = sum(d) - sum(c)
    in_text = {j for r in res for _, kind, j, _ in r.terms if kind == "D"}
    cols = [(j, l) for j in range(n) for l in range(d[j] + 1)]
    base = initial_jacobian(res, c, d, [], t, trajs)
    values = [(j, 0) for j in range(n) if d[j] >= 1]
    tiers = [[v for v in values if v[0] in in_text], values,
             values + [(j, 1) for j in range(n) if d[j] >= 2]]  # der(der(x)) is not in the texts
    seen = set()
    for cands in tiers:
        best, best_det = None, 0.0
        for fixed in itertools.combinations(cands, dof):
            if fixed in seen:
                continue
            seen.add(fixed)
            jac = base + [[1.0 if col == f else 0.0 for col in cols] for f in fixed]
            if len(jac) != len(cols):
                continue
            sd = scaled_det(jac)
            if sd >= CONTROL_JAC_MIN and sd > best_det:
                best, best_det = list(fixed), sd
        if best is not None:
            return best
    raise NoControl(f"no {dof} state values make the initial system at t = {t:g} regular")


def control(model: Model, k: int) -> Control:
    """The control of the k-th visited mode: a plain single-mode model (the mode's active equations,
    as the model writes them; no if, no Boolean), every variable starting at its exact value at the
    mode's t0, fixed on control_fixed's values, simulated from t0 to t1 (rumoca 0.10.2 starts
    `time` at t0: no shift of the text is needed, test_campaign.py checks it)."""
    assign, t0, t1 = model.modes[k]
    trajs, n = model.trajs, model.n
    res = model.residuals(assign)
    # The filter checked the mode at 7 times; a control that fails proves something only if the mode
    # is regular, has no other root near and is stable all along: checked again every CONTROL_STEP.
    why, facts = check_mode(res, n, t0, t1, trajs, step=CONTROL_STEP)
    if why:
        raise NoControl(f"mode {assign_text(assign)} is not well-posed all along [{t0:g}, {t1:g}): {why}")
    fixed = control_fixed(res, facts["c"], facts["d"], t0, trajs)
    name = f"{model.name}Mode{k + 1}"
    lines = [f"// Control of {model.name} (mdae-rimis exact-solution campaign, generator v{GENERATOR_VERSION}, "
             f"seed {model.seed}): visited mode {k + 1} of {len(model.modes)}, {assign_text(assign)} on "
             f"[{num(t0)}, {num(t1)}).",
             "// The mode's equations alone; every start exact at t0, fixed on a determined initial system.",
             "// Exact solution: " + ", ".join(f"x{j + 1} = {t.text()}" for j, t in enumerate(trajs)) + ".",
             f"model {name}"]
    for j, tr in enumerate(trajs):
        fx = ", fixed = true" if (j, 0) in fixed else ""
        lines.append(f"  Real x{j + 1}(start = {exact_num(tr.value(t0))}{fx});")
    ders = [j for j, l in fixed if l == 1]
    if ders:
        lines.append("initial equation")
        lines += [f"  der(x{j + 1}) = {exact_num(trajs[j].value(t0, 1))};" for j in ders]
    lines.append("equation")
    for s in model.slots:
        bi = s.branch(assign)
        for r, ex in zip(s.branches[bi], s.explicit[bi]):
            lines.append("  " + eq_text(r, ex, trajs) + ";")
    lines.append(f"  annotation(experiment(StartTime = {exact_num(t0)}, StopTime = {exact_num(t1)}));")
    lines.append(f"end {name};")
    return Control(k, assign_text(assign), t0, t1, name, "\n".join(lines) + "\n", fixed,
                   facts["index"], max(facts["c"]) > 0)


def features(model: Model) -> set[str]:
    """What a model exercises (for coverage of the reproducers' shapes)."""
    f = set()
    for s in model.slots:
        f.add(s.kind)
        if s.kind == "ifeq":
            f.add(f"ifeq{len(s.branches[0])}")
        if len(s.branches) > 2:
            f.add("elseif")
        for c in s.conds:
            t = cond_text(c)
            for w in ("not", "and", "or"):
                if f" {w} " in f" {t} ":
                    f.add(f"cond-{w}")
        for bi, br in enumerate(s.branches):
            for r, ex in zip(br, s.explicit[bi]):
                if ex:
                    f.add("explicit-der")
                if any(k == "P" for _, k, _, _ in r.terms):
                    f.add("product")
                if any(k == "D" for _, k, _, _ in r.terms[1:]):
                    f.add("coupled-der")
                if s.kind == "eq" and len([1 for _, k, _, _ in r.terms if k == "E"]) >= 2 and not any(
                        k == "D" for _, k, _, _ in r.terms):
                    f.add("global-constraint")
        if s.kind == "ifexpr" and all(any(k == "D" for _, k, _, _ in b[0].terms) for b in s.branches):
            f.add("ifexpr-der-every-branch")
        if s.kind == "ifexpr" and all(s.explicit[bi][0] for bi in range(len(s.branches))):
            f.add("der-equals-ifexpr")
    for mv in model.modevars:
        f.add(f"{mv.kind}-event-{mv.op}")
    for t in model.trajs:
        f.add(f"traj-{t.kind}")
    for k, _ in model.starts:
        f.add(f"start-{k}")
    idx = max(m["index"] for m in model.info.get("modes", [{"index": 0}]))
    f.add(f"max-index-{idx}")
    states = [set(m["states"]) for m in model.info.get("modes", [])]
    if len(states) > 1 and any(a != b for a, b in zip(states, states[1:])):
        f.add("states-change")
    return f


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--info", action="store_true", help="print the filter's facts per mode")
    ap.add_argument("--control", type=int, metavar="K", help="print the control of visited mode K (1-based) instead")
    a = ap.parse_args(argv)
    m = generate(a.seed)
    if a.control is not None:
        sys.stdout.write(control(m, a.control - 1).text)
        return 0
    sys.stdout.write(m.text())
    if a.info:
        import json
        print(json.dumps(m.info, indent=1))
        print(sorted(features(m)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
