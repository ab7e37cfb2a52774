//! [`Cond`]: a propositional formula over mode variables and atoms ([`ModeId`]s), built
//! by the lowering with light simplification (constants folded, nested and/or
//! flattened). The analysis maps it to a BDD; the printer writes it as Modelica.

use super::ModeId;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    True,
    False,
    Mode(ModeId),
    Not(Box<Cond>),
    /// (a boxed `Vec`, a thin pointer: a condition is 16 bytes, one per incidence entry
    /// of the model, and an entry 24)
    And(Box<Vec<Cond>>),
    Or(Box<Vec<Cond>>),
}

impl Cond {
    pub fn mode(m: ModeId) -> Cond {
        Cond::Mode(m)
    }

    pub fn not(c: Cond) -> Cond {
        match c {
            Cond::True => Cond::False,
            Cond::False => Cond::True,
            Cond::Not(inner) => *inner,
            other => Cond::Not(Box::new(other)),
        }
    }

    pub fn and(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::False, _) | (_, Cond::False) => Cond::False,
            (Cond::True, x) | (x, Cond::True) => x,
            (x, y) => Cond::And(Cond::flatten(x, y, |c| if let Cond::And(v) = c { Ok(v) } else { Err(c) })),
        }
    }

    pub fn or(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (Cond::False, x) | (x, Cond::False) => x,
            (x, y) => Cond::Or(Cond::flatten(x, y, |c| if let Cond::Or(v) = c { Ok(v) } else { Err(c) })),
        }
    }

    /// Exactly one of `modes` holds (false for none): the one-hot invariant of a domain.
    pub fn exactly_one(modes: &[ModeId]) -> Cond {
        modes.iter().fold(Cond::False, |any, &m| {
            let only_m =
                modes.iter().filter(|&&o| o != m).fold(Cond::Mode(m), |t, &o| Cond::and(t, Cond::not(Cond::Mode(o))));
            Cond::or(any, only_m)
        })
    }

    /// The operands of `x op y`, splicing in those of an operand that is itself `op`
    /// (`operands` returns them, or gives the condition back).
    #[allow(clippy::box_collection)] // the variants' own type: a thin pointer keeps `Cond` at 16 bytes
    fn flatten(x: Cond, y: Cond, operands: fn(Cond) -> Result<Box<Vec<Cond>>, Cond>) -> Box<Vec<Cond>> {
        let mut out = Vec::new();
        for c in [x, y] {
            match operands(c) {
                Ok(v) => out.extend(*v),
                Err(c) => out.push(c),
            }
        }
        out.shrink_to_fit();
        Box::new(out)
    }

    /// Evaluates under an assignment of every mode.
    pub fn eval(&self, modes: &dyn Fn(ModeId) -> bool) -> bool {
        match self {
            Cond::True => true,
            Cond::False => false,
            Cond::Mode(m) => modes(*m),
            Cond::Not(c) => !c.eval(modes),
            Cond::And(cs) => cs.iter().all(|c| c.eval(modes)),
            Cond::Or(cs) => cs.iter().any(|c| c.eval(modes)),
        }
    }

    /// Every mode the formula mentions, in order of first mention (as a new list).
    pub fn modes_of(&self) -> Vec<ModeId> {
        let mut out = Vec::new();
        self.modes(&mut out);
        out
    }

    /// Every mode the formula mentions, in order of first mention.
    pub fn modes(&self, out: &mut Vec<ModeId>) {
        match self {
            Cond::True | Cond::False => {}
            Cond::Mode(m) => {
                if !out.contains(m) {
                    out.push(*m)
                }
            }
            Cond::Not(c) => c.modes(out),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.modes(out)),
        }
    }

    /// Modelica text, with `name` giving each mode's name.
    pub fn to_modelica(&self, name: &dyn Fn(ModeId) -> String) -> String {
        self.write(name, 0)
    }

    /// `prec`: 0 top, 1 inside `or`, 2 inside `and`, 3 under `not`.
    fn write(&self, name: &dyn Fn(ModeId) -> String, prec: u8) -> String {
        let paren = |s: String, mine: u8| if prec > mine { format!("({s})") } else { s };
        match self {
            Cond::True => "true".into(),
            Cond::False => "false".into(),
            Cond::Mode(m) => name(*m),
            Cond::Not(c) => paren(format!("not {}", c.write(name, 3)), 3),
            Cond::And(cs) => paren(cs.iter().map(|c| c.write(name, 2)).collect::<Vec<_>>().join(" and "), 2),
            Cond::Or(cs) => paren(cs.iter().map(|c| c.write(name, 1)).collect::<Vec<_>>().join(" or "), 1),
        }
    }
}
