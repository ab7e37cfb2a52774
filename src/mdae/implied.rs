//! Mode invariants implied by the Boolean equations that pass through: a mode variable
//! defined by `b = g` equals g in every mode the model can be in. Where g is a formula
//! of other mode variables and of conditions that are not modes (relations, `pre(…)`,
//! calls), the invariant is ∃ conditions. (b ⟺ g): `locked = not (ideal or
//! startForward or pre(mode) == 1)` gives `locked ⟹ not ideal and not startForward`,
//! so the analysis does not call a model singular in modes it can never be in
//! (LossyGear: `ideal and locked`). No mode or atom is created here.

use super::lower::{Lowering, ref_name};
use super::{Cond, Invariant, ModeId, ModeKind};
use crate::flat::eval::Value;
use crate::syntax::ast::{BinOp, EquationKind, Expr, ExprKind, FunctionArgs, UnOp};

/// At most this many conditions that are not modes are projected away (2^n cases).
const MAX_HIDDEN: usize = 6;

impl Lowering<'_, '_> {
    /// Adds the invariant ∃ hidden. (b ⟺ g) of every passed equation `b = g` whose
    /// left-hand side is a mode variable.
    pub(super) fn mode_equation_invariants(&mut self) {
        let flat = self.flat;
        for eq in &flat.passed {
            let EquationKind::Simple { lhs, rhs } = &eq.kind else { continue };
            let Some(b) = ref_name(lhs).and_then(|n| self.mode_variable(&n)) else { continue };
            let mut hidden = Vec::new();
            let g = self.formula(rhs, &mut hidden);
            let real = g.modes_of().iter().any(|m| !hidden.contains(m));
            if hidden.len() > MAX_HIDDEN || !real {
                continue;
            }
            let b = Cond::Mode(b);
            let mut inv = Cond::False;
            for bits in 0u32..(1 << hidden.len()) {
                let g = substitute(&g, &hidden, bits);
                let iff = Cond::or(Cond::and(b.clone(), g.clone()), Cond::and(Cond::not(b.clone()), Cond::not(g)));
                inv = Cond::or(inv, iff);
            }
            if inv != Cond::True {
                self.out.invariants.push(Invariant { cond: inv, span: eq.span() });
            }
        }
    }

    /// Adds `not (l1 and l2)` for every two mode literals that a relation of `time` with a
    /// constant defines on time intervals apart by a gap (`b1 = time >= 1.41`, `b2 = time
    /// < 0.29`: `b1 and b2` is a mode the model is never in; campaign seed 8781, whose
    /// replicate state of that mode, integrated off any trajectory, reached 1e10 and
    /// stopped the run). Intervals that touch (`time >= 1`, `time < 1`) are not used: at the
    /// instant both relations are decided, a simulator's relation hysteresis may hold one.
    pub(super) fn time_interval_invariants(&mut self) {
        let flat = self.flat;
        // Per mode variable, the closures of the times where it is true and false.
        let mut spans: Vec<(ModeId, [(f64, f64); 2], crate::syntax::span::Span)> = Vec::new();
        for eq in &flat.passed {
            let EquationKind::Simple { lhs, rhs } = &eq.kind else { continue };
            let Some(b) = ref_name(lhs).and_then(|n| self.mode_variable(&n)) else { continue };
            if let Some(span) = self.time_relation(rhs)
                && !spans.iter().any(|(m, ..)| *m == b)
            {
                spans.push((b, span, eq.span()));
            }
        }
        for (i, (b1, s1, _)) in spans.iter().enumerate() {
            for (b2, s2, at) in &spans[i + 1..] {
                for (v1, (lo1, hi1)) in [true, false].into_iter().zip(s1) {
                    for (v2, (lo2, hi2)) in [true, false].into_iter().zip(s2) {
                        if lo1.max(*lo2) > hi1.min(*hi2) {
                            let lit = |b: ModeId, v: bool| if v { Cond::Mode(b) } else { Cond::not(Cond::Mode(b)) };
                            let cond = Cond::not(Cond::and(lit(*b1, v1), lit(*b2, v2)));
                            self.out.invariants.push(Invariant { cond, span: *at });
                        }
                    }
                }
            }
        }
    }

    /// For `time REL c` (c a constant): the closures of the times where it is true, then
    /// false.
    fn time_relation(&self, e: &Expr) -> Option<[(f64, f64); 2]> {
        let ExprKind::Binary(op, xs) = &e.kind else { return None };
        let is_time = |x: &Expr| ref_name(x).is_some_and(|n| n == "time");
        let constant = |x: &Expr| match self.env.eval(x) {
            Some(Value::Num(c)) if c.is_finite() => Some(c),
            _ => None,
        };
        // Read as `time REL c`.
        let (op, c) = if is_time(&xs[0]) {
            (*op, constant(&xs[1])?)
        } else if is_time(&xs[1]) {
            let flipped = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                _ => return None,
            };
            (flipped, constant(&xs[0])?)
        } else {
            return None;
        };
        let (above, below) = ((c, f64::INFINITY), (f64::NEG_INFINITY, c));
        match op {
            BinOp::Gt | BinOp::Ge => Some([above, below]),
            BinOp::Lt | BinOp::Le => Some([below, above]),
            _ => None,
        }
    }

    /// The mode of an existing Boolean mode variable named `n`.
    fn mode_variable(&self, n: &str) -> Option<ModeId> {
        let m = *self.modes.get(n)?;
        (self.out.modes[m.index()].kind == ModeKind::Variable).then_some(m)
    }

    /// `e` as a formula of existing mode variables; every other condition is a hidden
    /// placeholder (numbered past the modes).
    fn formula(&self, e: &Expr, hidden: &mut Vec<ModeId>) -> Cond {
        if let Some(Value::Bool(b)) = self.env.eval(e) {
            return if b { Cond::True } else { Cond::False };
        }
        match &e.kind {
            ExprKind::Bool(b) => {
                if *b {
                    Cond::True
                } else {
                    Cond::False
                }
            }
            ExprKind::Unary(UnOp::Not, x) => Cond::not(self.formula(x, hidden)),
            ExprKind::Binary(BinOp::And, xs) => Cond::and(self.formula(&xs[0], hidden), self.formula(&xs[1], hidden)),
            ExprKind::Binary(BinOp::Or, xs) => Cond::or(self.formula(&xs[0], hidden), self.formula(&xs[1], hidden)),
            ExprKind::Call(c) if c.function.text.as_str() == "noEvent" => match &c.args {
                FunctionArgs::List { positional, named } if positional.len() == 1 && named.is_empty() => {
                    self.formula(&positional[0], hidden)
                }
                _ => placeholder(hidden, self.out.modes.len()),
            },
            ExprKind::Name(_) | ExprKind::Ref(_) => match ref_name(e).and_then(|n| self.mode_variable(&n)) {
                Some(m) => Cond::Mode(m),
                None => placeholder(hidden, self.out.modes.len()),
            },
            _ => placeholder(hidden, self.out.modes.len()),
        }
    }
}

fn placeholder(hidden: &mut Vec<ModeId>, modes: usize) -> Cond {
    let id = ModeId((modes + hidden.len()) as u32);
    hidden.push(id);
    Cond::Mode(id)
}

/// `g` with each placeholder replaced by bit k of `bits`.
fn substitute(g: &Cond, hidden: &[ModeId], bits: u32) -> Cond {
    match g {
        Cond::Mode(m) => match hidden.iter().position(|h| h == m) {
            Some(k) => {
                if bits >> k & 1 == 1 {
                    Cond::True
                } else {
                    Cond::False
                }
            }
            None => Cond::Mode(*m),
        },
        Cond::Not(x) => Cond::not(substitute(x, hidden, bits)),
        Cond::And(xs) => xs.iter().fold(Cond::True, |acc, x| Cond::and(acc, substitute(x, hidden, bits))),
        Cond::Or(xs) => xs.iter().fold(Cond::False, |acc, x| Cond::or(acc, substitute(x, hidden, bits))),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{Strategy, analyse};
    use crate::syntax::SourceFile;

    /// `locked = not (ideal or x > 0)` makes `ideal and locked` invalid, the only mode in
    /// which this model is singular (y defined twice, v by nothing).
    #[test]
    fn a_boolean_equation_rules_out_the_modes_it_contradicts() {
        let src = "model M\n  Real x(start = 1);\n  Real v;\n  Real y;\n  Boolean ideal;\n  Boolean locked;\nequation\n  ideal = time > 1;\n  locked = not (ideal or x > 0);\n  y = sin(time);\n  der(x) = v;\n  if ideal and locked then\n    y = 1.0;\n  else\n    v = -x;\n  end if;\nend M;\n";
        let m = crate::driver::lower(&SourceFile::new("M.mo", src)).expect("lowers");
        assert_eq!(m.invariants.len(), 1, "{:?}", m.invariants);
        for strategy in [Strategy::Explicit, Strategy::Implicit] {
            let cdg = analyse(&m, strategy).expect("analyses");
            assert!(cdg.singular.is_empty(), "{strategy:?}: singular in {:?}", cdg.singular);
            assert_eq!(cdg.space.count(&cdg.valid), "3");
        }
    }

    /// `b1 = time >= 1.41` and `b2 = time < 0.29` are never both true (campaign seed 8781):
    /// `b1 and b2` is invalid, and the model, singular only there, is regular. Thresholds
    /// that touch (`1.41 > time`) rule out nothing.
    #[test]
    fn time_relations_apart_rule_out_the_modes_between() {
        let model = |g2: &str| {
            format!(
                "model M\n  Real x(start = 1);\n  Real y;\n  Boolean b1;\n  Boolean b2;\nequation\n  b1 = time >= 1.41;\n  b2 = {g2};\n  der(x) = -x;\n  if b1 and b2 then\n    x = 1.0;\n  else\n    y = x;\n  end if;\nend M;\n"
            )
        };
        let m = crate::driver::lower(&SourceFile::new("M.mo", &model("time < 0.29"))).expect("lowers");
        assert_eq!(m.invariants.len(), 1, "{:?}", m.invariants);
        for strategy in [Strategy::Explicit, Strategy::Implicit] {
            let cdg = analyse(&m, strategy).expect("analyses");
            assert!(cdg.singular.is_empty(), "{strategy:?}: singular in {:?}", cdg.singular);
            assert_eq!(cdg.space.count(&cdg.valid), "3");
        }
        let touching = crate::driver::lower(&SourceFile::new("M.mo", &model("1.41 > time"))).expect("lowers");
        assert!(touching.invariants.is_empty(), "{:?}", touching.invariants);
        let cdg = analyse(&touching, Strategy::Implicit).expect("analyses");
        assert!(!cdg.singular.is_empty(), "x set twice and y by nothing where b1 and b2");
    }
}
