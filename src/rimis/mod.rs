//! Stage 4, the RIMIS transformation (paper 000 §4.6): from an mDAE and its CDG to a
//! model whose single-mode (approximate) structural analysis contains every block of
//! the CDG, so that omc, Dymola and rumoca generate code that is correct in every mode.
//!
//! Input: the parsed file, its [`Mdae`] and [`Cdg`]. Output: [`RimisModel`], the new
//! model as AST pieces (declarations, replicates with what they hold, equation
//! sections with their comments), printed by `emit`. Files: `plan` (conditions, roles,
//! names ρ), `sections` (REPL, MULTI, DIFF, REINIT, INIT), `held` (what a §4.7-guarded
//! block holds outside its modes), `checks` (consistency asserts), `guards` (mode equations on
//! left limits), `restart` (warnings for restarts RIMIS cannot guarantee), `source`
//! (what is kept from the input), `symbolic` (simplification, π_q, δ_k), and the last
//! passes on the written output (issue 32): `merge` (the two sides of a mode as one
//! system), `alias` (multiplexers that equal one of their replicates, not written); `vendor`
//! (the omc options an output carries against omc's known defects) on the finished model.

mod alias;
mod as_written;
mod chatter;
mod checks;
mod exprs;
mod guards;
mod held;
mod impact_laws;
mod impulses;
mod init;
mod left_limits;
mod merge;
pub(crate) mod names;
mod plan;
mod restart;
mod restart_function;
mod restart_system;
mod sections;
mod settled;
mod singular;
mod source;
mod split;
pub mod symbolic;
mod vendor;

use crate::analysis::cdg::Cdg;
use crate::analysis::oblivious::APriori;
use crate::mdae::Mdae;
use crate::syntax::ast::{ClassDef, ClassPart, Element, Equation, EquationKind, StoredDefinition};
use crate::syntax::{SourceFile, Span};
use guards::{Deps, names_in};
use names::Namer;
use plan::Plan;
use std::collections::BTreeMap;

/// Default relative width of the hysteresis of a guard fixpoint kept as a level equation
/// (`guards::sticky`): above the integration error that moves the guard at the switch
/// (omc at tolerance 1e-6 still iterated without end at 1e-6, GuardFixpointHysteresis; 1e-5
/// passed), small next to the campaign's and the fixtures' comparison tolerances: the switch
/// comes later by the time the guard takes to cross the band.
const SWITCHING_BAND: &str = "1e-4";

/// An equation of the output with the comment written above it.
#[derive(Clone, Debug)]
pub struct Item {
    pub comment: Option<String>,
    pub equation: Equation,
}

impl Item {
    pub(crate) fn new(equation: Equation) -> Item {
        Item { comment: None, equation }
    }
}

/// A titled group of equations (DIFF, MULTI, REPL, …).
#[derive(Clone, Debug)]
pub struct Section {
    pub title: String,
    pub items: Vec<Item>,
    /// Equations of the input after the items, without comments (a model passed
    /// unchanged: its equation list moved, not converted).
    pub kept: Vec<Equation>,
}

impl Section {
    pub(crate) fn new(title: impl Into<String>, items: Vec<Item>) -> Section {
        Section { title: title.into(), items, kept: Vec::new() }
    }
}

/// The transformed model, ready for emission.
#[derive(Clone, Debug)]
pub struct RimisModel {
    /// The model's name as written in the input.
    pub name: String,
    /// Lines of the header comment.
    pub header: Vec<String>,
    /// Warnings (also written into the output as comments).
    pub warnings: Vec<String>,
    /// Notes for stderr only.
    pub notes: Vec<String>,
    /// Functions and other classes the model needs, nested in it; `renames` gives
    /// each function's new plain name.
    pub classes: Vec<ClassDef>,
    pub renames: BTreeMap<String, String>,
    /// The input's declarations (a varying state loses `fixed`).
    pub elements: Vec<Element>,
    /// DECL: replicates and dummy derivatives, with what each holds.
    pub replicates: Vec<(Element, String)>,
    pub initial: Vec<Item>,
    pub sections: Vec<Section>,
    /// Algorithm sections and initial sections kept from the input.
    pub kept_parts: Vec<ClassPart>,
    /// The mode changes that need a restart, with their impulse analysis (paper 000 §6).
    pub mode_changes: Vec<crate::analysis::impulse::ModeChange>,
    /// omc command-line options the output carries as its class annotation
    /// (`__OpenModelica_commandLineOptions`), each with why ([`vendor`]).
    pub omc_options: Vec<(String, String)>,
}

/// Why the transformation refused a model.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct RimisError {
    pub span: Span,
    pub message: String,
}

impl RimisError {
    pub fn new(span: Span, message: impl Into<String>) -> RimisError {
        RimisError { span, message: message.into() }
    }

    /// `file:line:column: error: message`, the source line and a caret.
    pub fn render(&self, file: &SourceFile) -> String {
        crate::syntax::error::render_located(file, self.span, &self.message, "E-rimis")
    }

    pub fn short(&self, file: &SourceFile) -> String {
        crate::syntax::error::short_located(file, self.span, &self.message)
    }
}

/// The output's frame: header, classes and their renames, kept parts; no equations yet.
fn start(mdae: &Mdae, src: &source::Source, namer: &mut Namer) -> RimisModel {
    RimisModel {
        name: src.class.name.text.as_str().to_string(),
        header: vec![header(&mdae.name)],
        warnings: Vec::new(),
        notes: Vec::new(),
        classes: src.classes.clone(),
        renames: src.class_renames(namer),
        elements: Vec::new(),
        replicates: Vec::new(),
        initial: Vec::new(),
        sections: Vec::new(),
        kept_parts: src.kept_parts.clone(),
        mode_changes: Vec::new(),
        omc_options: Vec::new(),
    }
}

/// The first line of the output's header comment.
fn header(name: &str) -> String {
    format!("RIMIS of {name} (mdae-rimis {}, paper 000 §4.6)", env!("CARGO_PKG_VERSION"))
}

/// `out` with the input's declarations and equations, unchanged, and why.
fn keep_equations(out: RimisModel, src: source::Source, mdae: &Mdae, why: &str) -> RimisModel {
    let mut src = src; // moved, not copied: a model without modes can be large
    let elements = std::mem::take(&mut src.elements);
    let equations = src.all_equations();
    kept(out, &mdae.name, elements, equations, why)
}

/// `out` with `elements` and `equations` of the input (the model `name`), and why they
/// are unchanged.
fn kept(mut out: RimisModel, name: &str, elements: Vec<Element>, equations: Vec<Equation>, why: &str) -> RimisModel {
    out.notes.push(format!("model {name}: {why}; equations kept unchanged"));
    out.header.push(format!("The model is unchanged: {why}."));
    out.elements = elements;
    out.sections.push(Section { title: "equations of the input".into(), items: Vec::new(), kept: equations });
    out
}

/// Why a model is passed unchanged.
const SAME_STRUCTURE: &str = "its structure does not depend on the mode";
const ONE_ANALYSIS_FITS: &str = "one structural analysis (of every mode's incidences at once) is right in every mode: \
     the same equations solved for the same variables, the same index and states";

/// The model of `def` (lowered to an mDAE named `name`) passed unchanged, decided before
/// the exact analysis ([`crate::analysis::oblivious::fits_a_priori`]): what [`transform`]
/// gives such a model, without its CDG. Takes the file apart: its declarations and
/// equations move into the output, uncopied.
pub fn unchanged(def: StoredDefinition, name: &str, why: APriori) -> Result<RimisModel, RimisError> {
    let taken = source::Taken::from(def)?;
    let out = RimisModel {
        name: taken.name.as_str().to_string(),
        header: vec![header(name)],
        warnings: Vec::new(),
        notes: Vec::new(),
        renames: taken.renames,
        classes: taken.classes,
        elements: Vec::new(),
        replicates: Vec::new(),
        initial: Vec::new(),
        sections: Vec::new(),
        kept_parts: taken.kept_parts,
        mode_changes: Vec::new(),
        omc_options: Vec::new(),
    };
    let why = match why {
        APriori::SameIncidence => SAME_STRUCTURE,
        APriori::OneAnalysisFits => ONE_ANALYSIS_FITS,
    };
    let mut out = kept(out, name, taken.elements, taken.equations, why);
    vendor::add_omc_options(&mut out);
    Ok(out)
}

/// The RIMIS transformation of the model of `def` (lowered to `mdae`, analysed to `cdg`).
pub fn transform(def: &StoredDefinition, mdae: &Mdae, cdg: &Cdg) -> Result<RimisModel, RimisError> {
    let src = source::Source::read(def, mdae)?;
    if cdg.regular.is_false() {
        return Err(RimisError::new(
            src.class.name.span,
            format!(
                "model {} is structurally singular in every valid mode (run with --check for the diagnosis)",
                mdae.name
            ),
        ));
    }
    let out = rewrite(def, mdae, cdg, src)?;
    let mut out = guard_singular_modes(out, mdae, cdg);
    vendor::add_omc_options(&mut out);
    Ok(out)
}

/// [`RimisModel::mode_changes`] of [`transform`], without the output when the model passes
/// unchanged (there are none then, and nothing of the file is copied: `--check` of a
/// model without modes).
pub fn mode_changes(
    def: &StoredDefinition,
    mdae: &Mdae,
    cdg: &Cdg,
) -> Result<Vec<crate::analysis::impulse::ModeChange>, RimisError> {
    let long = crate::flat::model_class(def).is_some_and(|c| matches!(c.body, crate::syntax::ast::ClassBody::Long(_)));
    if long && !cdg.regular.is_false() && (uniform(cdg) || crate::analysis::oblivious::fits_every_mode(mdae, cdg)) {
        return Ok(Vec::new());
    }
    transform(def, mdae, cdg).map(|r| r.mode_changes)
}

/// Every block of the CDG is unconditional (in the regular modes).
fn uniform(cdg: &Cdg) -> bool {
    cdg.blocks.iter().all(|b| cdg.factored.covers(b.cond))
}

/// `out` with an assert that stops the simulation in each set of singular modes.
fn guard_singular_modes(mut out: RimisModel, mdae: &Mdae, cdg: &Cdg) -> RimisModel {
    if !cdg.singular.is_empty() {
        out.warnings.extend(singular::warnings(mdae, cdg));
        out.sections.push(Section::new("structurally singular modes", singular::asserts(mdae, cdg)));
    }
    out
}

/// [`transform`] of a model with a regular mode.
fn rewrite(def: &StoredDefinition, mdae: &Mdae, cdg: &Cdg, src: source::Source) -> Result<RimisModel, RimisError> {
    let mut namer = Namer::of(def);
    let mut out = start(mdae, &src, &mut namer);
    let uniform = uniform(cdg);
    if uniform || crate::analysis::oblivious::fits_every_mode(mdae, cdg) {
        let why = if uniform { SAME_STRUCTURE } else { ONE_ANALYSIS_FITS };
        if cdg.singular.is_empty() {
            return Ok(keep_equations(out, src, mdae, why));
        }
        let why = format!("{why} where it is regular (asserts stop the simulation in its singular modes)");
        return Ok(keep_equations(out, src, mdae, &why));
    }
    let functions = symbolic::Functions::from_ast(def);
    let mut plan = Plan::new(mdae, cdg, namer);
    if let Some(parts) = split::parts(&plan) {
        plan.split_blocks(&parts);
    }
    as_written::check(&plan)?;
    plan.name_leading_read_conditionally();
    let is_constant = |n: &str| mdae.time_invariant.contains(n);
    let ctx = symbolic::DiffContext { functions: &functions, is_constant: &is_constant };

    // REPL, block by block, and the instantaneous dependencies of what each writes.
    let mut deps: Deps = BTreeMap::new();
    let mut repl = Vec::new();
    // Every part's equations first: which ones go behind a §4.7 guard (they read their
    // condition's modes) is known before any takes its held values.
    let mut prepared = Vec::with_capacity(plan.part_block.len());
    for b in 0..plan.part_block.len() {
        prepared.push(Some(sections::prepare(&mut plan, b, &ctx)?));
    }
    let guarded: Vec<bool> = prepared.iter().map(|p| p.as_ref().is_some_and(|p| p.guarded)).collect();
    let mut held = held::Held::new(&plan, &src.kept, &guarded);
    // The parts whose modes the model cannot start in take their held values first: two
    // blocks that would hold each other's values (a loop) cannot both, and the one entered
    // first at a mode change is one the model does not start in (campaign seed 9155: the
    // block of `not b1`, entered at t = 1.24, held 0 since the block of `b1` held its value,
    // and its solve landed on another root). Known here: the mode variables whose guard reads
    // only `time` and parameters.
    let mut order: Vec<usize> = (0..plan.part_block.len()).collect();
    // Where the guard reads other unknowns, its value at the start values (a declared start
    // of the mode variable first), as the output's initial mode is guessed later, so the
    // parts of the modes the model starts in take their held values last there too (with
    // held.rs's guard-fixpoint cut, campaign seed 4959: alone it did not fix it).
    let decided = init::mode_starts(&src, &src.mode_equations(), &[], &BTreeMap::new());
    let early: Vec<(crate::mdae::ModeId, bool)> = src
        .mode_equations()
        .iter()
        .filter_map(|(m, g)| {
            let v = match decided.get(m).or_else(|| src.modifier(m, "start")) {
                Some(e) => exprs::bool_literal(e)?,
                None => init::guess_at_starts(&plan, &src, g, init::Reads::Starts)?,
            };
            Some((crate::mdae::ModeId(mdae.modes.iter().position(|x| &x.name == m)? as u32), v))
        })
        .collect();
    if !early.is_empty() {
        let at_start = plan.modes_where(&early).0.g().clone();
        // One intersection test per condition (a walk, no BDD built: a conjunction per part
        // was 3% of Westinghouse N = 1000), shared by the parts under it.
        let mut starts_in: BTreeMap<usize, bool> = BTreeMap::new();
        let keys: Vec<bool> = (0..order.len())
            .map(|b| {
                let c = plan.part_cond[b];
                *starts_in.entry(c).or_insert_with(|| crate::analysis::meets::meets(plan.cond(c).g(), &at_start))
            })
            .collect();
        order.sort_by_key(|&b| keys[b]);
    }
    let mut by_part = vec![Vec::new(); order.len()];
    for &b in &order {
        let p = prepared[b].take().expect("each part is written once");
        by_part[b] = sections::repl(&mut plan, &mut held, b, p);
    }
    // Each part's equations as REPL writes them in its modes (the §4.7 guard's first branch).
    let mut part_eqs: Vec<Vec<crate::syntax::ast::Equation>> = Vec::with_capacity(by_part.len());
    for (b, items) in by_part.into_iter().enumerate() {
        part_eqs.push(
            items
                .iter()
                .flat_map(|it| match &it.equation.kind {
                    EquationKind::Simple { .. } => vec![it.equation.clone()],
                    EquationKind::If { branches, .. } => {
                        branches.first().map(|(_, body)| body.to_vec()).unwrap_or_default()
                    }
                    _ => Vec::new(),
                })
                .collect(),
        );
        let mut used = std::collections::BTreeSet::new();
        for it in &items {
            collect_names(&it.equation, &mut used);
        }
        for &(u, k) in cdg.blocks.get(plan.part_block[b]).writes {
            if let Some((n, _)) = exprs::occurrence(&plan.written(b, u, k)).map(|(n, k)| (n.to_string(), k)) {
                deps.entry(n).or_default().extend(used.iter().cloned());
            }
        }
        repl.extend(items);
    }
    let sources = sections::multi_sources(&mut plan);
    for it in &sources {
        if let EquationKind::Simple { lhs, rhs } = &it.equation.kind
            && let Some((n, _)) = exprs::occurrence(lhs)
        {
            deps.entry(n.to_string()).or_default().extend(names_in(rhs));
        }
    }
    // Mode equations: on left limits where the guard is a fixpoint.
    // A guard fixpoint: the guard reaches its own mode variable, possibly through other
    // mode equations. Those that are rewritten switch on left limits (edges of `when`),
    // so the rewritten guards are checked without them.
    let mode_eqs = src.mode_equations();
    // (Layers searched as their union, `guards::reaches_in`: the whole model's `deps` is
    // never copied; three copies were 5% of Westinghouse N = 1000.)
    let mut mode_layer: Deps = BTreeMap::new();
    for (n, e) in &mode_eqs {
        mode_layer.entry(n.clone()).or_default().extend(names_in(e));
    }
    // The multiplexers made so far count too (a held value's or a derivative's by mode, read
    // through `pre(m)` inside the loop: campaign seeds 606 and 3515, whose `b1 = x6 >= 0.0132`
    // was left a plain level equation, read back across its threshold at every switch).
    let mut mux_layer: Deps = BTreeMap::new();
    for (n, used) in plan.mux_deps() {
        mux_layer.entry(n.clone()).or_default().extend(used.iter().cloned());
    }
    let fixpoints: Vec<String> = mode_eqs
        .iter()
        // (`reaches` never follows the target's own definition: no copy without it.)
        .filter(|(n, g)| guards::reaches_in(&[&deps, &mux_layer, &mode_layer], &names_in(g), n))
        .map(|(n, _)| n.clone())
        .collect();
    for (n, e) in &mode_eqs {
        if !fixpoints.iter().any(|f| f == n) {
            deps.entry(n.clone()).or_default().extend(names_in(e));
        }
    }
    // The initial modes are read at the start values of every rewritten mode variable.
    let starts: Vec<(crate::mdae::ModeId, bool)> = fixpoints
        .iter()
        .filter_map(|n| {
            let m = mdae.modes.iter().position(|x| &x.name == n)?;
            Some((crate::mdae::ModeId(m as u32), src.start_of(n)))
        })
        .collect();
    let mut modes = Vec::new();
    let mut switches = Vec::new();
    // Each mode variable's value at t = 0 as an expression without discrete variables
    // where possible (rumoca's initialisation reads no discrete coordinate): the guard of a
    // level mode equation, the `when initial()` branch of a switch.
    let mut at_start: BTreeMap<String, crate::syntax::ast::Expr> = mode_eqs.iter().cloned().collect();
    let mut unfixed = Vec::new();
    // The output's states, for the switches' initial modes (made once, when first asked).
    let mut output_states = None;
    // Mode variables without a start value whose initial mode is taken from their guard at
    // the start values (switches: `init::initial_mode`; level ones below): declared with it,
    // and checked by an assert at t = 0 where it is a guess (not where the guard reads only
    // fixed starts). Guard, value, and whether it is checked.
    let mut guessed: BTreeMap<String, (crate::syntax::ast::Expr, bool, bool)> = BTreeMap::new();
    // What the switches decided exactly at fixed starts read (`init::initial_mode`): no
    // consistency equation may set those states, or the decision would no longer hold.
    let mut exact_reads: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    // Guard fixpoints kept as level equations, and the parameter of their hysteresis.
    let mut kept_level: Vec<String> = Vec::new();
    let mut switching_band: Option<String> = None;
    let mut band_on_switches = false;
    // The chatter detectors of the switches (`chatter`).
    let mut chatter = chatter::Detectors::default();
    let laws = impact_laws::declared(&plan, &src.kept);
    // The regions entered through an impact law that may be transient modes.
    let mut transient: Vec<biodivine_lib_bdd::Bdd> = Vec::new();
    for eq in &src.kept {
        let Some((m, g)) = src.mode_equation(eq) else {
            modes.push(Item::new(eq.clone()));
            continue;
        };
        let mode_name = mdae.mode(m).name.clone();
        if !fixpoints.contains(&mode_name) {
            modes.push(Item::new(eq.clone()));
            continue;
        }
        match guards::left_limit(&mut plan, &deps, m, &g, &starts) {
            Some(ll) => {
                let target = guards::target(&plan, m);
                let set = |v: bool| vec![exprs::simple(target.clone(), exprs::boolean(v))];
                let reached = guards::reachable(&[&deps, plan.mux_deps()], &names_in(&ll.initial));
                let states = output_states.get_or_insert_with(|| init::output_states(&mut plan));
                let (initial, guess, check) =
                    init::initial_mode(&plan, &src, states, &reached, &mode_name, &ll.initial, &g);
                // A guessed initial mode is the switch's value at t = 0 (checked by an assert).
                let start = match guess {
                    Some(v) => set(v),
                    None => vec![exprs::simple(target.clone(), ll.initial)],
                };
                if let Some(v) = guess {
                    guessed.insert(mode_name.clone(), (g.clone(), v, check));
                    if !check {
                        exact_reads.extend(reached.iter().cloned());
                    }
                }
                at_start.insert(mode_name.clone(), initial);
                // Where a block holds values read through this fixpoint's loop (`held.rs`
                // cuts it), its switches take a hysteresis (`guards::sticky`, against their
                // own edges): the blocks of the mode left hold the entered one's values,
                // continuous with them, so at the entry the condition of the switch back
                // reads the same guard, off only by the integration error (campaign seeds
                // 4959, 6899). The width is relative to the relation's operands, with no
                // absolute floor, so a switch at a threshold 0 stays exact (Westinghouse2:
                // a width of 1e-4 let its valves' small flows change sign). Elsewhere the
                // switches stay exact (WaterTank, CupAndBall).
                let varies =
                    |x: &crate::syntax::ast::Expr| names_in(x).iter().any(|n| n != "time" && !src.is_parameter(n));
                let widened = |band: &crate::syntax::ast::Expr| {
                    (
                        guards::sticky(&ll.enter, false, band, &varies, false),
                        guards::sticky(&ll.leave, false, band, &varies, false),
                    )
                };
                let probe = widened(&exprs::name("switching_band"));
                let banded = probe != (ll.enter.clone(), ll.leave.clone());
                let mut band = || {
                    band_on_switches = true;
                    widened(&exprs::name(switching_band.get_or_insert_with(|| plan.namer.fresh("switching_band"))))
                };
                let (enter, leave) = if held.read_through.contains(&m.index()) && banded {
                    band()
                } else {
                    (ll.enter.clone(), ll.leave.clone())
                };
                // The mode follows its guard at every event, not only at the guard's own edge
                // (issue 31 point 1). The edges of the replicates' guards rise in every mode,
                // so one may have risen while its mode was not active: a mass thrown down
                // against a lift larger than its weight enters contact at the impact with a
                // contact force negative already, and the switch back then had no edge to fire
                // on (ContactLeftAtOnce: it stayed on the ground with f < 0, silently). So each
                // switch also fires on its guard's level from the mode it leaves (`pre(m)`):
                // a mode entered with its guard false is left in the next step of the event
                // iteration (a transient mode). The level carries a hysteresis with a floor,
                // h = switching_band (1 + |a| + |b|) (`guards::sticky`): at a crossing of the
                // guard itself the entered mode's guard sits at its threshold within the
                // integration error (a literal 0 for a complementarity: WaterTank, Westinghouse2),
                // and exact, the level fired back at once (104 of 687 campaign outputs stopped
                // with an event iteration that did not converge). The edges stay exact, so a
                // switch instant does not move; the floor only delays following a guard
                // violated by less than h at an entry until the violation exceeds it. Where
                // the guards contradict each other in every mode, the event iteration does not
                // settle and the simulator stops (ContactGuardsContradict).
                band_on_switches = true;
                let level_band = exprs::name(switching_band.get_or_insert_with(|| plan.namer.fresh("switching_band")));
                let (enter_level, leave_level) = (
                    guards::sticky(&ll.enter, false, &level_band, &varies, true),
                    guards::sticky(&ll.leave, false, &level_band, &varies, true),
                );
                let pre_m = exprs::call("pre", vec![target.clone()]);
                let and = |a, b| exprs::binary(crate::syntax::ast::BinOp::And, a, b);
                // Not on a step of the event iteration that changes what its reads select
                // (`settled.rs`: a state replicate of the mode entered is stale until its REINIT).
                let muxes = plan.mux_deps();
                let unsettled = settled::unsettled(
                    mdae,
                    m,
                    &settled::reads(&[&ll.enter, &ll.leave]),
                    &[&deps, muxes],
                    &[&deps, &mux_layer, &mode_layer, muxes],
                    None,
                );
                let settled = |x: crate::syntax::ast::Expr| match &unsettled {
                    Some(u) => and(x, exprs::not(u.clone())),
                    None => x,
                };
                let mut branches = vec![
                    (exprs::call("initial", Vec::new()), start),
                    (settled(enter), set(true)),
                    (settled(leave), set(false)),
                    (settled(and(exprs::not(pre_m.clone()), enter_level.clone())), set(true)),
                    (settled(and(pre_m.clone(), leave_level.clone())), set(false)),
                ];
                // A mode entered through an impact law of the user is left at once where,
                // after the law, the other mode's guard moves away from its threshold (a
                // transient mode, paper 000 §5.2.3: the elastic bounce). The rate carries
                // the switch levels' hysteresis: a bounce below it stays in the mode (the
                // ball comes to rest).
                let mode_bdd = plan.cdg.space.set.mk_var(plan.cdg.space.mode_vars[m.index()]);
                for entering in [true, false] {
                    let entered = if entering { mode_bdd.clone() } else { mode_bdd.not() };
                    if impact_laws::for_entry(&plan, &laws, &entered).is_none() {
                        continue;
                    }
                    let Some(rate) = guards::leaving_rate(&mut plan, &g, &[(m, !entering)], entering, &ctx) else {
                        continue;
                    };
                    let rate = guards::sticky(&rate, false, &level_band, &varies, true);
                    let from = if entering { pre_m.clone() } else { exprs::not(pre_m.clone()) };
                    // Not where the mode left would be entered again at once by its level
                    // (a crossing missed between two steps near an accumulation of impacts:
                    // the state lies beyond the surface by more than the hysteresis, and the
                    // event iteration cycled in rumoca): the mode stays, at rest.
                    let back = if entering { &enter_level } else { &leave_level };
                    branches.push((settled(and(and(from, rate), exprs::negate(back.clone()))), set(!entering)));
                    transient.push(entered);
                }
                let kind = EquationKind::When { branches };
                let mut item = Item::new(exprs::equation(kind));
                item.comment = Some(format!(
                    "{} on left limits (guard fixpoint of `{}`): enters from the replicates of `not {mode_name}`, leaves from those of `{mode_name}`",
                    mode_name,
                    crate::syntax::printer::equation_to_string(eq, 0).trim_end().trim_end_matches(';')
                ));
                modes.push(item);
                // It stops where it chatters (a sliding mode), reading the guard of the
                // mode it is in.
                if chatter::watched(&ll.enter, &varies) || chatter::watched(&ll.leave, &varies) {
                    let near = |width: &crate::syntax::ast::Expr| {
                        let near =
                            |x| chatter::near(x, width, &level_band, &varies).unwrap_or_else(|| exprs::boolean(false));
                        // (One relation where both guards have the same shape: `exprs::either`.)
                        exprs::either(&target, &near(&ll.leave), &near(&ll.enter))
                    };
                    modes.extend(chatter.watch(&mut plan.namer, &target, &mode_name, &g, near));
                }
                unfixed.push(mode_name.clone());
                switches.push(restart::Switch { mode: m, guard: g.clone() });
            }
            None => {
                let note = format!(
                    "guard fixpoint kept as a level equation: the mode equation of `{mode_name}` depends on `{mode_name}` through a block computed in every mode; the equations of that loop read `{mode_name}` on its left limit (`pre`), so it switches by event iteration"
                );
                out.notes.push(note.clone());
                out.header.push(format!("Note: {note}."));
                // With a hysteresis (`guards::sticky`), so that the event iteration settles.
                let band = exprs::name(switching_band.get_or_insert_with(|| plan.namer.fresh("switching_band")));
                let varies =
                    |x: &crate::syntax::ast::Expr| names_in(x).iter().any(|n| n != "time" && !src.is_parameter(n));
                let target = guards::target(&plan, m);
                let pre = exprs::call("pre", vec![target.clone()]);
                // Held on a step of the event iteration that changes what its guard reads
                // (`settled.rs`; campaign seed 191 cycled in omc's event iteration).
                plan.mux_deps();
                let (plan_now, muxes) = (&plan, plan.mux_deps_ref());
                let stale = |n: &str| plan_now.is_reinit_target(n);
                let unsettled = settled::unsettled(
                    mdae,
                    m,
                    &settled::reads(&[&g]),
                    &[&deps, muxes],
                    &[&deps, &mux_layer, &mode_layer, muxes],
                    Some(&stale),
                );
                let arms: Vec<_> = unsettled.map(|u| (u, pre.clone())).into_iter().collect();
                // Both sides of the hysteresis as one relation where they differ only in
                // their thresholds (`exprs::either`: one zero-crossing in omc, not two).
                let hysteresis = exprs::either(
                    &pre,
                    &guards::sticky(&g, true, &band, &varies, true),
                    &guards::sticky(&g, false, &band, &varies, true),
                );
                let value = exprs::if_expr(arms, hysteresis);
                let mut item = Item::new(exprs::simple(target.clone(), value));
                item.comment = Some(format!(
                    "{mode_name} with a hysteresis of relative width {switching_band_value} around its relations (a guard fixpoint that reads `{mode_name}` through a block of every mode)",
                    switching_band_value = SWITCHING_BAND
                ));
                modes.push(item);
                if chatter::watched(&g, &varies) {
                    let near =
                        |width: &_| chatter::near(&g, width, &band, &varies).unwrap_or_else(|| exprs::boolean(false));
                    modes.extend(chatter.watch(&mut plan.namer, &target, &mode_name, &g, near));
                }
                kept_level.push(mode_name.clone());
            }
        }
    }
    let diff = sections::diff(&mut plan);

    let mut multi = sources;
    let unguaranteed = restart::unguaranteed(&plan, &switches);
    let mut restarts = restart_system::build(&mut plan, &unguaranteed, &laws, &transient, &ctx)?;
    let reinit = sections::reinit(&mut plan, &restarts.replicas);
    // Never silently wrong: what no restart restores is checked in its modes.
    // So is what a nonlinear restart system restores (Newton's method may fail).
    let unrestored: Vec<(&restart::Unguaranteed, bool)> = restarts
        .unrestored
        .iter()
        .map(|&k| (&unguaranteed[k], false))
        .chain(restarts.iterated.iter().map(|&k| (&unguaranteed[k], true)))
        .collect();
    let tolerance = restarts
        .tolerance
        .clone()
        .or_else(|| (!unrestored.is_empty()).then(|| plan.namer.fresh("consistency_tolerance")));
    let checks = match &tolerance {
        Some(tol) => {
            let nominal = |n: &str| src.modifier(n, "nominal").cloned();
            checks::consistency_checks(&mut plan, &unrestored, tol, &nominal, &ctx)?
        }
        None => Vec::new(),
    };
    let user = init::names_in_initial_sections(&src.kept_parts);
    // Mode variables whose start value is their value at t = 0 (declared, or given here).
    // A guard that reads a kept state fixed at its start is decided too; no consistency
    // equation may then set that state.
    let fixed_states = init::fixed_kept_states(&plan, &src, &user);
    let switch_modes: Vec<String> = fixpoints.iter().filter(|m| !kept_level.contains(m)).cloned().collect();
    let mut mode_starts = init::mode_starts(&src, &mode_eqs, &switch_modes, &fixed_states);
    let mut protected: std::collections::BTreeSet<String> = mode_eqs
        .iter()
        .filter(|(m, _)| mode_starts.contains_key(m))
        .flat_map(|(_, g)| names_in(g))
        .filter(|n| fixed_states.contains_key(n))
        .collect();
    protected.extend(exact_reads);
    // A level mode variable without a start value whose guard reads states the initial system
    // computes, like a switch's (`init::initial_mode`): its initial mode is its guard at the
    // start values (a simulator's first iterate), declared so, so that the simulator plans its
    // initialisation in that mode and the consistency equations are written for it, on its
    // replicates (campaign seed 413: `b3 = x2 - x3 < -1.8329` with x2 a state whose start is
    // a guess); an initial assert stops a run whose initial state gives the other mode.
    for (m, g) in &mode_eqs {
        if mode_starts.contains_key(m) || switch_modes.contains(m) || src.modifier(m, "start").is_some() {
            continue;
        }
        // Where the guard reads algebraic variables computed from states the initial system
        // computes too, at their start values (campaign seed 8896: `b2 = x1 < 0.7759` with x1
        // algebraic); where they are decided by `time`, parameters and fixed starts, only at
        // declared start values (campaign seed 2722: `b1 = x1 >= 0.9066` with x1 = 1.5 -
        // 0.42*time and start 1.5; not MSL SimpleGearShift's `brake.free = brake.fn <= 0`
        // with fn = fn_max·f_normalized of a ramp, whose start is no more than the default 0).
        let reached = guards::reachable(&[&deps, plan.mux_deps()], &names_in(g));
        let states = output_states.get_or_insert_with(|| init::output_states(&mut plan));
        let computed = !init::decided(&plan, &src, states, &reached);
        let algebraic = if computed { init::Reads::Starts } else { init::Reads::Declared };
        let guess = init::guess_at_starts(&plan, &src, g, init::Reads::States)
            .or_else(|| init::guess_at_starts(&plan, &src, g, algebraic));
        if let Some(v) = guess {
            guessed.insert(m.clone(), (g.clone(), v, true));
        }
    }
    for (m, (_, v, _)) in &guessed {
        mode_starts.insert(m.clone(), exprs::boolean(*v));
        at_start.insert(m.clone(), exprs::boolean(*v));
    }
    // A value at t = 0 that is a constant, for the initial equations' conditions too (the
    // compressible building: `sin(w_door * t + 1.0) > 0` with the clock fixed at 0).
    for (m, v) in &mode_starts {
        if exprs::bool_literal(v).is_some() {
            at_start.insert(m.clone(), v.clone());
        }
    }
    // The mode variables whose value at t = 0 is a constant: the initial modes, as far as known.
    // `time` is read as 0 here (as in `init::mode_starts`): a run started at another time from
    // a `time` guard's other side gets initial equations written for the wrong mode (open:
    // the experiment's StartTime is not read).
    let initial_modes: Vec<(crate::mdae::ModeId, bool)> = mdae
        .modes
        .iter()
        .enumerate()
        .filter_map(|(k, m)| match mode_starts.get(m.name.as_str()).map(|e| &e.kind) {
            Some(crate::syntax::ast::ExprKind::Bool(v)) => Some((crate::mdae::ModeId(k as u32), *v)),
            _ => None,
        })
        .collect();
    let start = init::AtStart { values: &at_start, protected: &protected, initial_modes: &initial_modes };
    let init = init::init_consistency(&mut plan, &src, &user, &start, &ctx)?;
    out.initial = init.items.clone();
    out.initial.extend(init::fixed_starts_in_initial_mode(
        &mut plan,
        &src,
        &user,
        &initial_modes,
        &init.absorbed,
        &part_eqs,
    ));
    // A guard fixpoint kept as a level equation is read on its left limit (`pre`) by its own
    // equation, by the multiplexers and by the guards of the blocks of its loop. Its initial
    // mode (its start value) is stated as `pre(m) = start`: rumoca 0.10.2 otherwise takes
    // `pre(m)` = false in its first pass of the initial system, whose values of the blocks
    // then held (0) are the next pass's Newton guesses, and a held 0 can be another root of
    // the block (campaign seeds 9167, 6622). omc takes `pre(m)` = start anyway. So is a
    // switch's whose value at t = 0 is a constant (decided or guessed, `mode_starts`): the
    // blocks of its loop are guarded by `pre(m)` too, and rumoca's first pass solved the
    // block of the other mode, which has no real root there (campaign seed 7909).
    for m in kept_level.iter().chain(switch_modes.iter()) {
        if user.contains(m) || src.modifier(m, "fixed").is_some() {
            continue;
        }
        let Some(v) = mode_starts.get(m.as_str()).or_else(|| src.modifier(m, "start")).and_then(exprs::bool_literal)
        else {
            continue;
        };
        let mut item = Item::new(exprs::simple(exprs::call("pre", vec![exprs::name(m)]), exprs::boolean(v)));
        item.comment = Some(format!("initial mode of `{m}` (read on its left limit): its start value"));
        out.initial.push(item);
    }
    let initial_checks: Vec<Item> =
        guessed.iter().filter(|(_, x)| x.2).map(|(m, (g, v, _))| init::initial_mode_assert(m, g, *v)).collect();
    unfixed.extend(init.freed.iter().cloned());
    if !init.conditional.is_empty() {
        out.header.push(format!(
            "Consistency equations of some modes with no state to set at the start, not written as initial equations: {}",
            init.conditional.join(" ")
        ));
    }
    if !init.unnamed.is_empty() {
        out.warnings.push(format!(
            "consistency equations not written as initial equations (they read a derivative the output does not name): {}; the states they relate start from their start values",
            init.unnamed.join(" ")
        ));
    }
    // The restart systems, the checks and INIT read replicates, which may need multiplexers
    // of their own: the pending multiplexers are taken after them.
    multi.extend(sections::pending_muxes(&mut plan));
    out.warnings.extend(
        restarts
            .warnings
            .iter()
            .map(|w| format!("{w}; the output stops with an assert if it does not hold after the switch")),
    );
    out.notes.extend(restarts.notes.iter().cloned());
    out.mode_changes = restarts.mode_changes.clone();
    out.header.extend(restarts.notes);

    // Declarations: the input's, then DECL/INIT.
    let states = init::init_states(&mut plan);
    for (u, role) in plan.roles.iter().enumerate() {
        if *role == plan::Role::Varying {
            unfixed.push(mdae.vars[u].name.to_string());
        }
    }
    out.elements = src.elements_without_fixed(&unfixed);
    source::Source::add_starts(&mut out.elements, &mode_starts);
    if let Some(tol) = &tolerance {
        let doc = if restarts.functions.is_empty() {
            "relative tolerance of the consistency checks after mode changes without a restart (issue 14)"
        } else {
            "relative tolerance of the consistency checks after mode changes (issue 14), and of the test that keeps the left limits where they are consistent already (no restart needed)"
        };
        out.elements.push(source::real_parameter(tol, checks::TOLERANCE, doc));
    }
    if let Some(band) = &switching_band {
        let doc = if band_on_switches {
            "width of the hysteresis of the guard fixpoints, relative to their relations' operands (a switch's level: to 1 + their magnitudes)"
        } else {
            "relative width of the hysteresis of the guard fixpoints kept as level equations"
        };
        out.elements.push(source::real_parameter(band, SWITCHING_BAND, doc));
    }
    out.elements.extend(chatter.declarations());
    out.classes.extend(restarts.functions.iter().cloned());
    if let Some(step) = &restarts.step {
        let doc = "step of the restart systems at impulsive mode changes (s; paper 000 §6.1.2)";
        out.elements.push(source::real_parameter(step, restart_system::STEP, doc));
    }
    for (n, what, var) in &plan.declared {
        // A replicate of u^(0) carries u's attributes; a state replicate is fixed where
        // nothing else sets it at the start (`init::starts_fixed`).
        let of = var.filter(|&(_, i)| i == 0).map(|(u, _)| mdae.var(u).name.to_string());
        let fixed = states
            .get(n)
            .is_some_and(|&(u, i)| init::starts_fixed(&src, &user, &init.absorbed, n, (&mdae.var(u).name, i)));
        out.replicates.push((src.replicate_decl(n, of.as_deref(), fixed), what.clone()));
    }
    for (n, what, u) in &plan.samples {
        out.replicates.push((src.sample_decl(n, &mdae.var(*u).name), what.clone()));
    }
    let mut modes = modes;
    let mut reinit = reinit;
    let mut restart_whens = restarts.reinit;
    let at_rest = std::mem::take(&mut restarts.at_rest);
    let new_whens = sections::merge_reinits(&mut [&mut modes, &mut reinit, &mut restart_whens], at_rest);
    restart_whens.extend(new_whens);
    for (title, items) in [
        ("mode equations", modes),
        ("DIFF: derivatives of the kept states and of the state replicates", diff),
        ("MULTI: multiplexers", multi),
        ("REPL: the blocks of the CDG, each under its condition", repl),
        ("REINIT: a state replicate starts from the source's value when its mode is entered", reinit),
        ("RESTART: reinitialisation", restart_whens),
        (
            "CHECK: consistency after mode changes the output does not restart, or restarts by an iteration (paper 000 §5)",
            checks,
        ),
        ("CHECK: initial modes taken from the start values", initial_checks),
    ] {
        if !items.is_empty() {
            out.sections.push(Section::new(title, items));
        }
    }
    plan.mux_deps();
    merge::merge_groups(&mut out, &deps, plan.mux_deps_ref(), &|n| plan.is_replicate(n));
    for l in left_limits::read_loops_on_left_limits(&mut out) {
        out.warnings.push(format!("{l}; simulators may iterate on it at a switch"));
    }
    // Last: on the guards as the output writes them (a block read on its left limit,
    // `pre(m)`, is not inside `m`).
    alias::alias_muxes(&mut out, &|n| plan.is_replicate(n));
    Ok(out)
}

fn collect_names(eq: &Equation, out: &mut std::collections::BTreeSet<String>) {
    match &eq.kind {
        EquationKind::Simple { lhs, rhs } => {
            out.extend(names_in(lhs));
            out.extend(names_in(rhs));
        }
        EquationKind::If { branches, else_branch } => {
            // The condition of a §4.7 guard is not a data dependency: in its modes the
            // block computes its values whatever the condition's own dependencies.
            for (_, body) in branches {
                body.iter().for_each(|e| collect_names(e, out));
            }
            else_branch.iter().flatten().for_each(|e| collect_names(e, out));
        }
        _ => {}
    }
}
