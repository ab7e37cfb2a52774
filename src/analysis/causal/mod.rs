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
//! [`DiscreteLoop`]s. A model of 10^5 equations has no loop to show (issue 15): the rows'
//! unknowns and dependencies are packed `u32` lists, unknowns are named by interned text,
//! and a row's text is made only for the rows of a loop that is shown. The rules of what is solvable follow omc: a Real unknown in a
//! real equation, outside conditions and relations; a discrete unknown only by the
//! equation that defines it explicitly (`m = g`, a `when` target, an algorithm's
//! assignment); `pre(·)`, parameters, constants, top-level inputs and states are
//! known (a state's unknown is its derivative).

mod build;
pub mod report;

pub use build::{Sections, Unchecked, of_class, of_equations, of_file};

use crate::analysis::matching::{FREE, Rows, hopcroft_karp};
use crate::syntax::Span;
use crate::syntax::ast::Text;

/// An unknown of the causalisation: a variable, or `der(x)` of a state x (`order` 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// The variable's name as written in references (`x`, `a.x[1]`).
    pub base: Text,
    /// How many times it is differentiated.
    pub order: u32,
    pub discrete: bool,
}

impl Unknown {
    /// `x`, `der(x)`, `der(der(x))`.
    pub fn name(&self) -> String {
        let k = self.order as usize;
        format!("{}{}{}", "der(".repeat(k), self.base, ")".repeat(k))
    }
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

/// A row: where it comes from and what kind it is; what it can be solved for and what
/// it reads are [`CausalModel::solvable`] and [`CausalModel::reads`]. Its span and text
/// are its origin's, not kept (a model of 10^5 equations has no loop to show, issue 15):
/// the caller's [`Sections::source`] gives them.
#[derive(Clone, Copy, Debug)]
pub struct CausalEq {
    /// Index of the source equation (or algorithm section) it was made from.
    pub origin: u32,
    pub kind: EqKind,
}

/// The rows and unknowns of a model.
#[derive(Clone, Debug, Default)]
pub struct CausalModel {
    pub unknowns: Vec<Unknown>,
    pub equations: Vec<CausalEq>,
    /// Every row's unknowns, packed (one list, not one per row: issue 15): row `e`'s
    /// solvable ones are `vars[start(e)..ends[e].0]`, those it reads `vars[ends[e].0..ends[e].1]`.
    vars: Vec<u32>,
    ends: Vec<(u32, u32)>,
}

/// The matching reads the rows' solvable unknowns in place.
impl Rows for CausalModel {
    fn len(&self) -> usize {
        self.equations.len()
    }
    fn degree(&self, e: usize) -> usize {
        self.solvable(e).len()
    }
    fn var(&self, e: usize, k: usize) -> usize {
        self.solvable(e)[k] as usize
    }
}

/// A matching and the dependencies of the matched rows (indices as `u32`, [`FREE`]
/// where unmatched).
pub struct Causalised {
    pub eq_to_var: Vec<u32>,
    /// Row `e`'s dependencies are `deps[dep_start[e]..dep_start[e + 1]]`: the rows that
    /// compute an unknown it needs (sorted, distinct; `e` itself when it reads its own
    /// unknown).
    pub dep_start: Vec<u32>,
    pub deps: Vec<u32>,
}

impl Causalised {
    pub fn deps(&self, e: usize) -> &[u32] {
        &self.deps[self.dep_start[e] as usize..self.dep_start[e + 1] as usize]
    }
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
    /// Appends a row: `solvable` and `reads` sorted and distinct (they may overlap:
    /// `m = not m` reads its own unknown).
    fn push(
        &mut self,
        row: CausalEq,
        solvable: impl IntoIterator<Item = usize>,
        reads: impl IntoIterator<Item = usize>,
    ) {
        let index = |v: usize| u32::try_from(v).expect("fewer than 2^32 unknowns");
        self.vars.extend(solvable.into_iter().map(index));
        let mid = self.vars.len();
        self.vars.extend(reads.into_iter().map(index));
        let at = |n: usize| u32::try_from(n).expect("fewer than 2^32 occurrences");
        self.ends.push((at(mid), at(self.vars.len())));
        self.equations.push(row);
    }

    fn start(&self, e: usize) -> usize {
        if e == 0 { 0 } else { self.ends[e - 1].1 as usize }
    }

    /// The unknowns row `e` can be solved for (sorted, distinct).
    pub fn solvable(&self, e: usize) -> &[u32] {
        &self.vars[self.start(e)..self.ends[e].0 as usize]
    }

    /// The unknowns row `e` reads where it cannot be solved for them: conditions,
    /// relations, a discrete definition's right-hand side (sorted, distinct; may overlap
    /// [`solvable`](Self::solvable): `m = not m` reads its own unknown).
    pub fn reads(&self, e: usize) -> &[u32] {
        &self.vars[self.ends[e].0 as usize..self.ends[e].1 as usize]
    }

    /// One maximum matching (unknowns left over in a singular model stay unmatched)
    /// and the dependency graph of the rows.
    pub fn causalise(&self) -> Causalised {
        let n = self.equations.len();
        let (eq_to_var, var_to_eq) = hopcroft_karp(self, self.unknowns.len());
        let mut dep_start = Vec::with_capacity(n + 1);
        dep_start.push(0u32);
        let mut deps: Vec<u32> = Vec::new();
        for (e, &matched) in eq_to_var.iter().enumerate() {
            let (solvable, reads) = (self.solvable(e), self.reads(e));
            let from = deps.len();
            deps.extend(
                solvable
                    .iter()
                    .chain(reads)
                    .filter(|&&v| matched != v || reads.contains(&v))
                    .map(|&v| var_to_eq[v as usize])
                    .filter(|&f| f != FREE),
            );
            deps[from..].sort_unstable();
            let mut kept = from;
            for k in from..deps.len() {
                if kept == from || deps[kept - 1] != deps[k] {
                    deps[kept] = deps[k];
                    kept += 1;
                }
            }
            deps.truncate(kept);
            dep_start.push(u32::try_from(deps.len()).expect("fewer than 2^32 dependencies"));
        }
        Causalised { eq_to_var, dep_start, deps }
    }

    /// The algebraic loops that hold a discrete variable.
    pub fn discrete_loops(&self) -> Vec<DiscreteLoop> {
        let c = self.causalise();
        let (comp, count) = crate::analysis::scc::component_of(&c.dep_start, &c.deps);
        // The rows of one algorithm section or tuple equation are one block by
        // construction: a loop needs two sources, or a row reading its own unknown.
        // Components are numbered densely; only the cyclic ones holding a discrete
        // unknown are gathered (a model of 10^5 equations has 10^5 components: issue 15).
        const NONE: u32 = u32::MAX;
        let mut origin = vec![NONE; count];
        let mut cyclic = vec![false; count];
        let mut discrete = vec![false; count];
        for (e, &k) in comp.iter().enumerate() {
            let k = k as usize;
            let row = &self.equations[e];
            if origin[k] == NONE {
                origin[k] = row.origin;
            } else if origin[k] != row.origin {
                cyclic[k] = true;
            }
            if c.deps(e).contains(&(e as u32)) {
                cyclic[k] = true;
            }
            if c.eq_to_var[e] != FREE && self.unknowns[c.eq_to_var[e] as usize].discrete {
                discrete[k] = true;
            }
        }
        drop(origin);
        let mut slot = vec![NONE; count];
        let mut loops: Vec<DiscreteLoop> = Vec::new();
        for (e, &k) in comp.iter().enumerate() {
            let k = k as usize;
            if !(cyclic[k] && discrete[k]) {
                continue;
            }
            if slot[k] == NONE {
                slot[k] = loops.len() as u32;
                loops.push(DiscreteLoop { equations: Vec::new(), discrete: Vec::new(), through_when: false });
            }
            let l = &mut loops[slot[k] as usize];
            // Rows visited in increasing order: the loop's rows come sorted.
            l.equations.push(e);
            if c.eq_to_var[e] != FREE && self.unknowns[c.eq_to_var[e] as usize].discrete {
                l.discrete.push(c.eq_to_var[e] as usize);
            }
            l.through_when |= matches!(self.equations[e].kind, EqKind::When | EqKind::Algorithm { when: true });
        }
        for l in &mut loops {
            l.discrete.sort_unstable();
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
                stack.extend(c.deps(e).iter().map(|&f| f as usize).filter(|&f| !seen[f]));
            }
        }
        seen
    }

    /// One line per loop: its discrete variables, its equations (`source` of a row's
    /// origin, its span and text: [`Sections::source`]), what omc does with it.
    pub fn describe(
        &self,
        l: &DiscreteLoop,
        locate: &dyn Fn(Span) -> String,
        source: &dyn Fn(usize) -> (Span, String),
    ) -> String {
        let vars: Vec<String> = l.discrete.iter().map(|&v| self.unknowns[v].name()).collect();
        let what = if l.through_when {
            "a when-equation inside an algebraic loop: omc refuses to build it (non-linear equations within when-equations)"
        } else {
            "omc iterates on discrete variables inside an algebraic loop (tearing with discrete iteration variables)"
        };
        let mut s = format!("algebraic loop through discrete variable(s) {} ({what}):", vars.join(", "));
        let mut origins: Vec<u32> = Vec::new();
        for &e in &l.equations {
            let row = &self.equations[e];
            if origins.contains(&row.origin) {
                continue;
            }
            origins.push(row.origin);
            let (span, text) = source(row.origin as usize);
            s.push_str(&format!("\n  {}: {text}", locate(span)));
        }
        s
    }
}

#[cfg(test)]
mod tests;
