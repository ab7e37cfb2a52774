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
}
