//! The mode-oblivious analysis: the model as a tool that analyses its structure once sees
//! it (omc, Dymola: every incidence of every mode at once, the union Σ-matrix), and
//! whether that one analysis is right in every mode.
//!
//! It is, when the union's Σ-method has a highest-value transversal whose entries are
//! present, at the same order, in every regular mode (of the highest-value transversals,
//! one with the most such entries is taken), and its offsets c, d are the
//! offsets of every mode (those of the exact analysis, [`Cdg::offsets`] and
//! [`Cdg::orders`]). Then in each mode the transversal is a perfect matching of the
//! mode's Σ-matrix (every entry of a mode is at most the union's) of the union's value,
//! hence optimal there, and the union's offsets are the mode's: the same equations are
//! differentiated as often, the same derivatives are leading, and every block of the
//! union's triangular form is structurally nonsingular in every mode. The index and the
//! states do not change with the mode, so no mode change needs a restart; only which
//! variables an equation reads does. Such a model needs no rewrite: the pre-build step
//! passes it unchanged (paper 000 §4 rewrites what a single analysis gets wrong).

use super::cdg::Cdg;
use super::matching::{Graph, max_weight_perfect_matching};
use super::sigma::structure_of;
use crate::mdae::{Cond, Mdae};
use biodivine_lib_bdd::Bdd;
use std::collections::BTreeMap;

/// Whether one structural analysis of the union Σ-matrix is right in every regular mode
/// of `cdg` (see the module header). False for models with equations active in some
/// modes only, or singular modes.
pub fn fits_every_mode(mdae: &Mdae, cdg: &Cdg) -> bool {
    if !cdg.singular.is_empty() || mdae.equations.iter().any(|e| e.active != Cond::True) {
        return false;
    }
    let n = mdae.equations.len();
    if n != mdae.vars.len() {
        return false;
    }
    // Per equation: variable → (union order σ_ij, the modes where an incidence of that order holds).
    let entries: Vec<BTreeMap<usize, (i64, Bdd)>> = mdae
        .equations
        .iter()
        .map(|e| {
            let mut row: BTreeMap<usize, (i64, Bdd)> = BTreeMap::new();
            for inc in &e.incidence {
                let (order, when) = (inc.order as i64, cdg.space.cond(&inc.when));
                let entry = row.entry(inc.var.index()).or_insert_with(|| (order, cdg.space.mk_false()));
                if order > entry.0 {
                    *entry = (order, when);
                } else if order == entry.0 {
                    entry.1 = entry.1.or(&when);
                }
            }
            row
        })
        .collect();
    let everywhere = |modes: &Bdd| cdg.regular.imp(modes).is_true();
    let union: Graph = entries.iter().map(|row| row.iter().map(|(&j, (o, _))| (j, *o)).collect()).collect();
    // Of the highest-value transversals of the union, one with the most entries present at
    // their order in every mode: weight σ·(n + 1) + [present everywhere] (the value first).
    let scale = n as i64 + 1;
    let preferring: Graph = entries
        .iter()
        .map(|row| row.iter().map(|(&j, (o, modes))| (j, o * scale + i64::from(everywhere(modes)))).collect())
        .collect();
    let Some(matching) = max_weight_perfect_matching(&preferring) else {
        return false;
    };
    if !(0..n).all(|i| everywhere(&entries[i][&matching[i]].1)) {
        return false;
    }
    let s = structure_of(&union, matching);
    let agrees =
        |per_mode: &[(u32, Bdd)], value: u32| per_mode.iter().any(|(v, modes)| *v == value && everywhere(modes));
    (0..n).all(|i| agrees(&cdg.offsets[i], s.c[i])) && (0..n).all(|j| agrees(&cdg.orders[j], s.d[j]))
}

#[cfg(test)]
mod tests {
    use super::fits_every_mode;
    use crate::analysis::{Strategy, analyse};
    use crate::syntax::span::SourceFile;

    fn fits(src: &str) -> bool {
        let file = SourceFile::new("m.mo", src);
        let mut def = crate::syntax::parser::parse(src).expect("parses");
        crate::flat::move_declaration_equations(&mut def);
        let mdae = crate::mdae::lower(&def, &file).expect("lowers");
        let cdg = analyse(&mdae, Strategy::Auto).expect("analyses");
        fits_every_mode(&mdae, &cdg)
    }

    #[test]
    fn an_equation_that_reads_other_variables_per_mode_fits() {
        // y is solved from the same equation in both modes; only what it reads changes.
        assert!(fits(
            "model M Real x(start = 1); Real y; equation der(x) = -y; \
             y = if noEvent(x > 0.5) then 2*x else x*x; end M;"
        ));
    }

    #[test]
    fn a_transversal_present_in_every_mode_is_preferred() {
        // Two transversals of the union: {e1 -> x, e2 -> y} is present in both modes,
        // {e1 -> y, e2 -> x} only where g holds.
        for (first, second) in [("x + y = 0", "y = if g then x else 1"), ("y = if g then x else 1", "x + y = 0")] {
            assert!(fits(&format!(
                "model M Boolean g = time < 0.5; Real x; Real y; equation {first}; {second}; end M;"
            )));
        }
    }

    #[test]
    fn a_structure_that_varies_does_not_fit() {
        // 0 = if g then w1 - w2 else f1: the equation is solved for another variable per mode.
        assert!(!fits(
            "model M Boolean g = time < 0.5; Real w1(start = 1); Real w2(start = 0); Real f1; \
             equation der(w1) = -f1; der(w2) = f1; 0 = if g then w1 - w2 else f1; end M;"
        ));
    }

    #[test]
    fn a_matching_that_varies_does_not_fit() {
        // Index 0 in both modes (the offsets agree), but the second equation is solved for
        // x in one mode and for y in the other: no one matching is right in both.
        assert!(!fits(
            "model M Boolean g = time < 0.5; Real x; Real y; \
             equation x + y = 1; 0 = if g then x - 2 else y - 3; end M;"
        ));
    }

    #[test]
    fn an_index_that_varies_does_not_fit() {
        // The constraint x = 0 holds in one mode only: index 2 there, an ODE elsewhere.
        assert!(!fits(
            "model M Boolean c = time > 0.5; Real x(start = 1); Real v(start = 0); Real f; \
             equation der(x) = v; der(v) = -1 + f; 0 = if c then x else f; end M;"
        ));
    }
}
