//! omc's causalisation of a model, as its backend sees it (issue 17): every equation
//! with the unknowns it can be solved for and the names it only reads, one matching
//! of equations to unknowns, the dependency graph of the matched equations and its
//! strongly connected components (the algebraic loops, `analysis::scc`).
//!
//! A **discrete loop** is a strongly connected component that holds a discrete
//! variable (a Boolean, Integer, enumeration or String unknown, or a Real assigned in
//! a `when`). omc refuses to build one that goes through a `when`-equation ("non-linear
//! equations within when-equations is not supported") and iterates on discrete
//! variables in the others (the tearing warning). mdae-rimis's outputs must have none:
//! the transformation reads the mode variables on their left limits where a switch's
//! own condition depends on them (`rimis/left_limits.rs`), `--check` lists the loops
//! of any model, and the test suite checks every output.
//!
//! Input: a [`CausalModel`] ([`build`] makes one from a model class or from the
//! transformation's equations). Output: [`Causalised`] (matching, dependencies) and
//! [`DiscreteLoop`]s. The rules of what is solvable follow omc: a Real unknown in a
//! real equation, outside conditions and relations; a discrete unknown only by the
//! equation that defines it explicitly (`m = g`, a `when` target, an algorithm's
//! assignment); `pre(·)`, parameters, constants, top-level inputs and states are
//! known (a state's unknown is its derivative).

mod build;
pub mod report;

pub use build::{Unchecked, of_class, of_equations, of_file};

use crate::analysis::matching::{Graph, maximum_matching};
use crate::syntax::Span;

/// An unknown of the causalisation: a variable, or `der(x)` of a state x.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    pub name: String,
    pub discrete: bool,
}

/// What kind of equation a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EqKind {
    /// A real equation (one row of an if-equation's paired branches counts as one).
    Continuous,
    /// `m = g` defining a discrete variable at every instant.
    Discrete,
    /// One target of a `when`-equation.
    When,
    /// One assigned variable of an algorithm section (`when`: it holds a when-statement).
    Algorithm { when: bool },
}

/// A row: where it comes from, what it can be solved for, what it reads.
#[derive(Clone, Debug)]
pub struct CausalEq {
    /// Index of the source equation (or algorithm section) it was made from.
    pub origin: usize,
    pub span: Span,
    /// The first line of the source equation, for messages.
    pub text: String,
    pub kind: EqKind,
    /// Unknowns the row can be solved for (sorted, distinct).
    pub solvable: Vec<usize>,
    /// Unknowns the row reads where it cannot be solved for them: conditions,
    /// relations, a discrete definition's right-hand side (sorted, distinct; may
    /// overlap `solvable`: `m = not m` reads its own unknown).
    pub reads: Vec<usize>,
}

/// The rows and unknowns of a model.
#[derive(Clone, Debug, Default)]
pub struct CausalModel {
    pub unknowns: Vec<Unknown>,
    pub equations: Vec<CausalEq>,
}

/// A matching and the dependencies of the matched rows.
pub struct Causalised {
    pub eq_to_var: Vec<Option<usize>>,
    pub var_to_eq: Vec<Option<usize>>,
    /// `deps[e]`: the rows that compute an unknown row `e` needs (sorted, distinct;
    /// `e` itself when it reads its own unknown).
    pub deps: Vec<Vec<usize>>,
}

/// An algebraic loop that holds a discrete variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscreteLoop {
    /// Rows of the loop, sorted.
    pub equations: Vec<usize>,
    /// Discrete unknowns computed inside it, sorted.
    pub discrete: Vec<usize>,
    /// Whether a `when`-equation (or a when-statement) is part of it: omc cannot build that.
    pub through_when: bool,
}

impl CausalModel {
    /// One maximum matching (unknowns left over in a singular model stay unmatched)
    /// and the dependency graph of the rows.
    pub fn causalise(&self) -> Causalised {
        let adj: Graph = self.equations.iter().map(|e| e.solvable.iter().map(|&v| (v, 0)).collect()).collect();
        let (eq_to_var, var_to_eq) = maximum_matching(&adj, self.unknowns.len());
        let deps = self
            .equations
            .iter()
            .enumerate()
            .map(|(e, row)| {
                let mut d: Vec<usize> = row
                    .solvable
                    .iter()
                    .chain(&row.reads)
                    .filter(|&&v| eq_to_var[e] != Some(v) || row.reads.contains(&v))
                    .filter_map(|&v| var_to_eq[v])
                    .collect();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        Causalised { eq_to_var, var_to_eq, deps }
    }

    /// The algebraic loops that hold a discrete variable.
    pub fn discrete_loops(&self) -> Vec<DiscreteLoop> {
        let c = self.causalise();
        let mut loops = Vec::new();
        for scc in crate::analysis::scc::components(&c.deps) {
            let mut eqs: Vec<usize> = scc;
            eqs.sort_unstable();
            // The rows of one algorithm section or tuple equation are one block by
            // construction: a loop needs two sources, or a row reading its own unknown.
            let origin = self.equations[eqs[0]].origin;
            let cyclic = eqs.iter().any(|&e| self.equations[e].origin != origin || c.deps[e].contains(&e));
            if !cyclic {
                continue;
            }
            let mut discrete: Vec<usize> =
                eqs.iter().filter_map(|&e| c.eq_to_var[e]).filter(|&v| self.unknowns[v].discrete).collect();
            if discrete.is_empty() {
                continue;
            }
            discrete.sort_unstable();
            let through_when =
                eqs.iter().any(|&e| matches!(self.equations[e].kind, EqKind::When | EqKind::Algorithm { when: true }));
            loops.push(DiscreteLoop { equations: eqs, discrete, through_when });
        }
        loops.sort_by(|a, b| a.equations.cmp(&b.equations));
        loops
    }

    /// The rows a row of `roots` depends on, transitively, the roots included.
    pub fn upstream(&self, c: &Causalised, roots: &[usize]) -> Vec<bool> {
        let mut seen = vec![false; self.equations.len()];
        let mut stack: Vec<usize> = roots.to_vec();
        while let Some(e) = stack.pop() {
            if !std::mem::replace(&mut seen[e], true) {
                stack.extend(c.deps[e].iter().copied().filter(|&f| !seen[f]));
            }
        }
        seen
    }

    /// One line per loop: its discrete variables, its equations, what omc does with it.
    pub fn describe(&self, l: &DiscreteLoop, locate: &dyn Fn(Span) -> String) -> String {
        let vars: Vec<&str> = l.discrete.iter().map(|&v| self.unknowns[v].name.as_str()).collect();
        let what = if l.through_when {
            "a when-equation inside an algebraic loop: omc refuses to build it (non-linear equations within when-equations)"
        } else {
            "omc iterates on discrete variables inside an algebraic loop (tearing with discrete iteration variables)"
        };
        let mut s = format!("algebraic loop through discrete variable(s) {} ({what}):", vars.join(", "));
        let mut origins: Vec<usize> = Vec::new();
        for &e in &l.equations {
            let row = &self.equations[e];
            if origins.contains(&row.origin) {
                continue;
            }
            origins.push(row.origin);
            s.push_str(&format!("\n  {}: {}", locate(row.span), row.text));
        }
        s
    }
}

#[cfg(test)]
mod tests;
