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
use super::local::Local;
use super::matching::{Graph, Rows, has_perfect_matching, max_weight_perfect_matching};
use super::modes::ModeSpace;
use super::sigma::{offsets_of, structure_of};
use crate::mdae::{EqId, Mdae};
use biodivine_lib_bdd::Bdd;
use std::collections::BTreeMap;

/// Whether one structural analysis of the union Σ-matrix is right in every regular mode
/// of `cdg` (see the module header; its singular modes are left out: the output stops
/// there). False for models with equations active in some modes only.
pub fn fits_every_mode(mdae: &Mdae, cdg: &Cdg) -> bool {
    if cdg.regular.is_false() || !mdae.always_active() {
        return false;
    }
    let n = mdae.equations.len();
    if n != mdae.vars.len() {
        return false;
    }
    // Per equation: variable → (union order σ_ij, the modes where an incidence of that order holds).
    let entries: Vec<BTreeMap<usize, (i64, Bdd)>> = mdae
        .eq_ids()
        .map(|e| {
            let mut row: BTreeMap<usize, (i64, Bdd)> = BTreeMap::new();
            for inc in mdae.incidence(e) {
                let (order, when) = (inc.order as i64, cdg.space.cond(inc.when));
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
    if !(0..n).all(|i| everywhere(&entries[i][&(matching[i] as usize)].1)) {
        return false;
    }
    let s = structure_of(&union, matching);
    let agrees =
        |per_mode: &[(u32, Local)], value: u32| per_mode.iter().any(|(v, m)| *v == value && cdg.factored.covers(m));
    (0..n).all(|i| agrees(&cdg.offsets.get(i), s.c[i])) && (0..n).all(|j| agrees(&cdg.orders.get(j), s.d[j]))
}

/// Why [`fits_a_priori`] lets a model pass unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum APriori {
    /// Every incidence is present at its order in every valid mode (a model without
    /// modes, or whose modes change only coefficients).
    SameIncidence,
    /// The incidences vary, but one analysis of their union is right in every valid mode.
    OneAnalysisFits,
}

/// Whether one structural analysis of the union Σ-matrix is right in every valid mode,
/// decided without analysing the modes (no CDG): a sufficient condition for
/// [`fits_every_mode`], linear in the model but for two single-mode Σ-methods.
///
/// Let Σ_u be the union (σ_u,ij: the highest order of x_j in equation i in any mode) and
/// Σ_c the core (the entries present in every valid mode, σ_c,ij: the highest order that
/// every valid mode reaches). In every valid mode m, Σ_c ≤ Σ_m ≤ Σ_u entrywise. Take a
/// highest-value transversal T of Σ_u inside Σ_c with σ_c = σ_u on T, and the union's
/// smallest offsets (c_u, d_u). Then d_j − c_i ≥ σ_u,ij ≥ σ_m,ij with equality on T: T is
/// of highest value in Σ_m (duality), so every valid mode is structurally nonsingular.
/// Pryce's fixpoint map c ↦ (max_k σ_k,T(i) + c_k) − σ_i,T(i) is monotone in c and in Σ,
/// so its least fixpoints are ordered, c_c ≤ c_m ≤ c_u: where the core's smallest offsets
/// equal the union's, they are every mode's. `None` otherwise (the exact analysis
/// decides), or when an equation is active in some modes only or no mode is valid.
pub fn fits_a_priori(mdae: &Mdae) -> Option<APriori> {
    let n = mdae.equations.len();
    if n != mdae.vars.len() || !mdae.always_active() {
        return None;
    }
    let space = ModeSpace::of_modes(mdae);
    let valid = space.valid(mdae);
    if valid.is_false() {
        return None;
    }
    let everywhere = |modes: &Bdd| modes.is_true() || valid.imp(modes).is_true();
    // Every entry at its union order in every valid mode (a model without modes): the
    // core is the union, and one matching of it decides: every transversal of the union is
    // in the core at the union's order, so a highest-value one exists iff a perfect
    // matching does (found on the incidence in place: no graph of 10^5 rows, issue 15).
    let in_every_mode = |e: EqId| {
        let row = mdae.incidence(e);
        row.iter().all(|inc| {
            let top = row.iter().filter(|x| x.var == inc.var).map(|x| x.order).max();
            top != Some(inc.order) || everywhere(&space.cond(inc.when))
        })
    };
    if mdae.eq_ids().all(in_every_mode) {
        return has_perfect_matching(&Incidences(mdae), n).then_some(APriori::SameIncidence);
    }
    // Per equation: (variable, union order, core order or -1 where the entry is not in
    // every valid mode).
    let mut union: Graph = Vec::with_capacity(n);
    let mut core: Graph = Vec::with_capacity(n);
    let mut same = true;
    for e in mdae.eq_ids() {
        let mut incs: Vec<(usize, i64, Bdd)> =
            mdae.incidence(e).iter().map(|inc| (inc.var.index(), inc.order as i64, space.cond(inc.when))).collect();
        // By variable, the highest order first.
        incs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let (mut u_row, mut c_row) = (Vec::new(), Vec::new());
        for same_var in incs.chunk_by(|a, b| a.0 == b.0) {
            let (j, top) = (same_var[0].0, same_var[0].1);
            u_row.push((j, top));
            // The highest order reached in every valid mode: the modes of order ≥ o, growing.
            let mut reached = space.mk_false();
            let mut core_order = None;
            for (_, o, when) in same_var {
                reached = reached.or(when);
                if everywhere(&reached) {
                    core_order = Some(*o);
                    break;
                }
            }
            same &= core_order == Some(top) && everywhere(&same_var[0].2);
            if let Some(o) = core_order {
                c_row.push((j, o));
            }
        }
        union.push(u_row);
        core.push(c_row);
    }
    // Of the highest-value transversals of the union, one with the most entries of the core
    // at the union's order: weight σ·(n + 1) + [in the core at σ].
    let scale = n as i64 + 1;
    let preferring: Graph = union
        .iter()
        .zip(&core)
        .map(|(u, c)| u.iter().map(|&(j, o)| (j, o * scale + i64::from(c.contains(&(j, o))))).collect())
        .collect();
    let matching = max_weight_perfect_matching(&preferring)?;
    if !(0..n).all(|i| {
        let j = matching[i] as usize;
        let top = union[i].iter().find(|e| e.0 == j).map(|e| e.1);
        top.is_some_and(|o| core[i].contains(&(j, o)))
    }) {
        return None;
    }
    if same {
        return Some(APriori::SameIncidence);
    }
    (offsets_of(&core, &matching) == offsets_of(&union, &matching)).then_some(APriori::OneAnalysisFits)
}

/// The variables of each equation's incidence entries, for a cardinality matching.
struct Incidences<'m, 'a>(&'m Mdae<'a>);

impl Rows for Incidences<'_, '_> {
    fn len(&self) -> usize {
        self.0.equations.len()
    }
    fn degree(&self, i: usize) -> usize {
        self.0.incidence(EqId(i as u32)).len()
    }
    fn var(&self, i: usize, k: usize) -> usize {
        self.0.incidence(EqId(i as u32)).get(k).var.index()
    }
}

/// The union Σ-matrix of `mdae`: per equation, each variable at the highest order it has
/// in any mode (as a tool that analyses once sees the model).
pub fn union_sigma(mdae: &Mdae) -> Graph {
    mdae.eq_ids()
        .map(|e| {
            let mut row: BTreeMap<usize, i64> = BTreeMap::new();
            for inc in mdae.incidence(e) {
                let o = row.entry(inc.var.index()).or_insert(inc.order as i64);
                *o = (*o).max(inc.order as i64);
            }
            row.into_iter().collect()
        })
        .collect()
}

/// The part of the equations of blocks merged into one system (`rimis/merge.rs`), under
/// the first block of the group (`emit::block_of_lines`).
pub const MERGED: usize = usize::MAX;

/// Paper 000 §4.2 on a rewritten output (`mdae`, lowered from it): one structural analysis
/// of the union of its modes' incidences is nonsingular, needs no index reduction (every
/// offset c is 0), and the equations emitted for each of the input CDG's `n_blocks`
/// blocks (`block_of`: an equation's line → its block number and part, 0 for a block
/// emitted whole) form one block of that analysis's triangular form — or, for a block
/// emitted in parts (one per region of its condition, `rimis/split.rs`), each part does —
/// so a tool that analyses once (omc, Dymola) builds it and solves each block as the CDG
/// does in each of its modes. A block whose emitted equations are all time-invariant in
/// the output (`solved_once`: no rows of Σ, passed through; omc solves them once, as
/// parameter equations) meets it too. `Err` says what fails, naming an equation.
///
/// Blocks merged into one system (`rimis/merge.rs`: `merged` lists each group, its
/// equations under its first block with part [`MERGED`]) meet it where the
/// group's equations are a union of blocks of the output's triangular form: each of those
/// is then nonsingular in every mode where the exact check of every mode
/// (`every_mode`, the driver's next check) and the merge's own check say so.
pub fn meets_the_guarantee(
    mdae: &Mdae,
    n_blocks: usize,
    block_of: &dyn Fn(u32) -> Option<(usize, usize)>,
    solved_once: &dyn Fn(usize) -> bool,
    merged: &[Vec<usize>],
) -> Result<(), String> {
    let union = union_sigma(mdae);
    let s = match super::sigma::analyse(&union, mdae.vars.len()) {
        super::sigma::SingleMode::Singular(_) => {
            return Err("one structural analysis of the union of its modes is singular".into());
        }
        super::sigma::SingleMode::Nonsingular(s) => s,
    };
    if let Some(i) = s.c.iter().position(|&c| c != 0) {
        return Err(format!(
            "it still needs index reduction: equation `{}` has offset {}",
            mdae.text(crate::mdae::EqId(i as u32)),
            s.c[i]
        ));
    }
    // Per block, per part (0: the block whole), its equations.
    let mut emitted: Vec<BTreeMap<usize, Vec<usize>>> = vec![BTreeMap::new(); n_blocks];
    for (i, e) in mdae.equations.iter().enumerate() {
        if let Some((k, part)) = block_of(e.line).filter(|(k, _)| (1..=n_blocks).contains(k)) {
            emitted[k - 1].entry(part).or_default().push(i);
        }
    }
    let blocks: Vec<Vec<usize>> = s
        .blocks
        .iter()
        .map(|b| {
            let mut eqs: Vec<usize> = b.eqs.iter().map(|e| e.0 as usize).collect();
            eqs.sort_unstable();
            eqs
        })
        .collect();
    let blt: std::collections::BTreeSet<&Vec<usize>> = blocks.iter().collect();
    let within: std::collections::BTreeSet<usize> = merged.iter().flat_map(|g| g.iter().skip(1).copied()).collect();
    // Per equation, its block of the output's triangular form.
    let mut blt_of = vec![usize::MAX; mdae.equations.len()];
    for (b, eqs) in blocks.iter().enumerate() {
        eqs.iter().for_each(|&i| blt_of[i] = b);
    }
    for (k, parts) in emitted.iter().enumerate() {
        if parts.is_empty() {
            if solved_once(k + 1) || within.contains(&(k + 1)) {
                continue;
            }
            return Err(format!("no equation is emitted for block {}", k + 1));
        }
        if parts.len() > 1 && parts.contains_key(&0) {
            return Err(format!("block {} is emitted both whole and in parts", k + 1));
        }
        for (part, eqs) in parts {
            if *part == MERGED {
                // A union of the triangular form's blocks: every block it meets, whole.
                let set: std::collections::BTreeSet<usize> = eqs.iter().copied().collect();
                if let Some(&i) = eqs.iter().find(|&&i| blocks[blt_of[i]].iter().any(|j| !set.contains(j))) {
                    return Err(format!(
                        "the blocks merged from block {} share a block of the output's triangular form with other equations (`{}`)",
                        k + 1,
                        mdae.text(crate::mdae::EqId(i as u32))
                    ));
                }
                continue;
            }
            if !blt.contains(eqs) {
                let which = if *part == 0 { String::new() } else { format!(", part {part},") };
                return Err(format!(
                    "block {}{which} (`{}`…) is not one block of the output's triangular form",
                    k + 1,
                    mdae.text(crate::mdae::EqId(eqs[0] as u32))
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::fits_every_mode;
    use crate::analysis::{Strategy, analyse};
    use crate::syntax::span::SourceFile;

    fn fits(src: &str) -> bool {
        fits_both(src).0
    }

    /// (the exact verdict `fits_every_mode`, the a-priori one); the a-priori verdict is a
    /// sufficient condition: it never says yes where the exact analysis says no.
    fn fits_both(src: &str) -> (bool, Option<super::APriori>) {
        let file = SourceFile::new("m.mo", src);
        let mut def = crate::syntax::parser::parse(src).expect("parses");
        crate::flat::move_declaration_equations(&mut def);
        let mdae = crate::mdae::lower(&def, &file).expect("lowers");
        let cdg = analyse(&mdae, Strategy::Auto).expect("analyses");
        let (exact, a_priori) = (fits_every_mode(&mdae, &cdg), super::fits_a_priori(&mdae));
        assert!(exact || a_priori.is_none(), "a priori yes, exact no: {src}");
        (exact, a_priori)
    }

    #[test]
    fn the_a_priori_verdict_needs_no_multimode_analysis() {
        use super::APriori::{OneAnalysisFits, SameIncidence};
        // Only a coefficient depends on the mode.
        let same = "model M Boolean g = time < 0.5; Real x(start = 1); \
                    equation der(x) = if g then -x else -2 * x; end M;";
        assert_eq!(fits_both(same), (true, Some(SameIncidence)));
        // What y reads varies; y is solved from the same equation at the same order.
        let reads = "model M Real x(start = 1); Real y; Real z; equation der(x) = -y; z = time; \
                     y = if noEvent(x > 0.5) then 2*x else z; end M;";
        assert_eq!(fits_both(reads), (true, Some(OneAnalysisFits)));
        // The index changes with the mode: the core's offsets are not the union's.
        let index = "model M Boolean c = time > 0.5; Real x(start = 1); Real v(start = 0); Real f; \
                     equation der(x) = v; der(v) = -1 + f; 0 = if c then x else f; end M;";
        assert_eq!(fits_both(index), (false, None));
        // The matching changes with the mode: no transversal of the union is in the core.
        let matching = "model M Boolean g = time < 0.5; Real x; Real y; \
                        equation x + y = 1; 0 = if g then x - 2 else y - 3; end M;";
        assert_eq!(fits_both(matching), (false, None));
    }

    #[test]
    fn a_preferred_transversal_of_the_union_is_found_a_priori_too() {
        // Two transversals of the union: {e1 -> x, e2 -> y} is in the core.
        let both = "model M Boolean g = time < 0.5; Real x; Real y; equation x + y = 0; \
                    y = if g then x else 1; end M;";
        assert_eq!(fits_both(both), (true, Some(super::APriori::OneAnalysisFits)));
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
