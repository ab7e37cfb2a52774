//! Writers of a [`Cdg`]: the readable `--check` report, the JSON report (a stable schema
//! other tools read; see the README) and the Graphviz CDG of `--dot` (vertices
//! `p: R -- E -> W` as in Figure 11 of paper 002, edges labelled by their condition).
//! Every condition is minimised with the invalid modes as don't-cares.

use super::cdg::{Block, Cdg};
use super::modes::domains_of;
use crate::mdae::{Mdae, ModeKind, VarId};
use biodivine_lib_bdd::Bdd;
use serde::Serialize;
use std::fmt::Write;

/// Name with primes for its derivative order: `x`, `x'`, `x''`.
fn primed(name: &str, order: u32) -> String {
    let mut s = name.to_string();
    (0..order).for_each(|_| s.push('\''));
    s
}

/// `p: R -- E -> W`, `p:` omitted when p is true, `R --` when R is empty.
pub fn block_label(mdae: &Mdae, cdg: &Cdg, b: &Block) -> String {
    let cond = cdg.text(b.cond);
    let eqs: Vec<String> = b.eqs.iter().map(|&(e, c)| primed(&mdae.label(e).to_string(), c)).collect();
    let writes: Vec<String> = b.writes.iter().map(|&(v, d)| primed(&mdae.var(v).name, d)).collect();
    let reads: Vec<String> = b.reads.iter().map(|&(v, d)| primed(&mdae.var(v).name, d)).collect();
    let mut s = String::new();
    if cond != "true" {
        s.push_str(&cond);
        s.push_str(": ");
    }
    if !reads.is_empty() {
        s.push_str(&reads.join(" "));
        s.push_str(" -- ");
    }
    s.push_str(&eqs.join(" "));
    s.push_str(" -> ");
    s.push_str(&writes.join(" "));
    s
}

#[derive(Serialize)]
pub struct JsonReport {
    pub model: String,
    pub modes: JsonModes,
    pub equations: Vec<JsonEquation>,
    pub singular: Vec<JsonSingular>,
    pub variables: Vec<JsonVariable>,
    pub blocks: Vec<JsonBlock>,
    pub edges: Vec<JsonEdge>,
    /// One structural analysis of every mode's incidences at once is right in every mode
    /// ([`super::oblivious`]): the main job passes the model unchanged.
    pub one_analysis_fits: bool,
    /// Algebraic loops through discrete variables (`analysis::causal`); set by the
    /// caller, which has the model's source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discrete_loops: Option<super::causal::report::JsonCausal>,
    /// The mode changes that need a restart and their impulse analysis (paper 000 §6);
    /// set by the caller, which runs the RIMIS stage that finds the restart systems.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_changes: Option<Vec<super::impulse::ModeChange>>,
    /// The initial system in every mode the model may start in ([`super::initial`]); set
    /// by the caller, which has the parsed model (its initial sections).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_system: Option<super::initial::InitialSystem>,
}

#[derive(Serialize)]
pub struct JsonModes {
    pub variables: Vec<String>,
    pub atoms: Vec<JsonAtom>,
    /// One-hot modes `k == v` of Integer/enumeration mode variables (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<JsonValueMode>,
    pub invariant: String,
    pub valid_count: String,
}

#[derive(Serialize)]
pub struct JsonValueMode {
    pub name: String,
    pub var: String,
    pub value: String,
}

#[derive(Serialize)]
pub struct JsonAtom {
    pub name: String,
    pub expr: String,
}

#[derive(Serialize)]
pub struct JsonEquation {
    pub id: String,
    pub line: u32,
    pub text: String,
}

#[derive(Serialize)]
pub struct JsonSingular {
    pub when: String,
    pub example: serde_json::Map<String, serde_json::Value>,
    pub overdetermined: Vec<String>,
    pub underdetermined: Vec<String>,
}

#[derive(Serialize)]
pub struct JsonVariable {
    pub name: String,
    pub leading: Vec<JsonWhenOrder>,
    pub state_when: String,
}

#[derive(Serialize)]
pub struct JsonWhenOrder {
    pub order: u32,
    pub when: String,
}

#[derive(Serialize)]
pub struct JsonBlock {
    pub id: usize,
    pub when: String,
    pub equations: Vec<JsonEqOrder>,
    pub writes: Vec<JsonVarOrder>,
    pub reads: Vec<JsonVarOrder>,
}

#[derive(Serialize)]
pub struct JsonEqOrder {
    pub eq: String,
    pub order: u32,
}

#[derive(Serialize)]
pub struct JsonVarOrder {
    pub var: String,
    pub order: u32,
}

#[derive(Serialize)]
pub struct JsonEdge {
    pub from: usize,
    pub to: usize,
    pub when: String,
}

fn var_orders(mdae: &Mdae, list: &[(VarId, u32)]) -> Vec<JsonVarOrder> {
    list.iter().map(|&(v, d)| JsonVarOrder { var: mdae.var(v).name.to_string(), order: d }).collect()
}

/// The JSON report (block ids are 1-based positions in `cdg.blocks`).
pub fn json(mdae: &Mdae, cdg: &Cdg) -> JsonReport {
    let text = |b: &Bdd| cdg.space.text(b, &cdg.valid);
    let modes = JsonModes {
        variables: mdae.modes.iter().filter(|m| m.kind == ModeKind::Variable).map(|m| m.name.clone()).collect(),
        atoms: mdae
            .modes
            .iter()
            .filter_map(|m| match &m.kind {
                ModeKind::Atom { expr } => Some(JsonAtom { name: m.name.clone(), expr: expr.clone() }),
                _ => None,
            })
            .collect(),
        values: mdae
            .modes
            .iter()
            .filter_map(|m| match &m.kind {
                ModeKind::Value { var, value } => {
                    Some(JsonValueMode { name: m.name.clone(), var: var.clone(), value: value.clone() })
                }
                _ => None,
            })
            .collect(),
        invariant: cdg.space.invariant_text(mdae),
        valid_count: cdg.space.count(&cdg.valid),
    };
    let singular = cdg
        .singular
        .iter()
        .map(|s| JsonSingular {
            when: text(&s.cond),
            example: s.example.iter().map(|&(m, v)| (mdae.mode(m).name.clone(), serde_json::Value::Bool(v))).collect(),
            overdetermined: s.overdetermined.iter().map(|&e| mdae.label(e).to_string()).collect(),
            underdetermined: s.underdetermined.iter().map(|&v| mdae.var(v).name.to_string()).collect(),
        })
        .collect();
    let variables = mdae
        .var_ids()
        .map(|v| {
            let orders = cdg.orders.get(v.index());
            let state =
                orders.iter().filter(|(d, _)| *d > 0).fold(cdg.space.mk_false(), |acc, (_, b)| acc.or(&cdg.bdd(b)));
            JsonVariable {
                name: mdae.var(v).name.to_string(),
                leading: orders.iter().map(|(d, b)| JsonWhenOrder { order: *d, when: cdg.text(b) }).collect(),
                state_when: text(&state),
            }
        })
        .collect();
    let blocks = cdg
        .blocks
        .iter()
        .enumerate()
        .map(|(n, b)| JsonBlock {
            id: n + 1,
            when: cdg.text(b.cond),
            equations: b.eqs.iter().map(|&(e, c)| JsonEqOrder { eq: mdae.label(e).to_string(), order: c }).collect(),
            writes: var_orders(mdae, b.writes),
            reads: var_orders(mdae, b.reads),
        })
        .collect();
    let edges = cdg
        .edges
        .iter()
        .map(|e| JsonEdge { from: e.from as usize + 1, to: e.to as usize + 1, when: cdg.text(e.cond) })
        .collect();
    JsonReport {
        model: mdae.name.clone(),
        modes,
        equations: mdae
            .eq_ids()
            .map(|e| JsonEquation { id: mdae.label(e).to_string(), line: mdae.eq(e).line, text: mdae.text(e) })
            .collect(),
        singular,
        variables,
        blocks,
        edges,
        one_analysis_fits: super::oblivious::fits_every_mode(mdae, cdg),
        discrete_loops: None,
        mode_changes: None,
        initial_system: None,
    }
}

/// The CDG in Graphviz dot.
pub fn dot(mdae: &Mdae, cdg: &Cdg) -> String {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut s = format!("digraph \"{}\" {{\n  node [shape=box, fontname=\"monospace\"];\n", esc(&mdae.name));
    for (n, b) in cdg.blocks.iter().enumerate() {
        let _ = writeln!(s, "  b{} [label=\"{}\"];", n + 1, esc(&block_label(mdae, cdg, &b)));
    }
    for e in cdg.edges.iter() {
        let _ = writeln!(s, "  b{} -> b{} [label=\"{}\"];", e.from + 1, e.to + 1, esc(&cdg.text(e.cond)));
    }
    s.push_str("}\n");
    s
}

/// `in every valid mode` for `true`, else `when <cond>`.
pub fn when_phrase(cond: &str) -> String {
    if cond == "true" { "in every valid mode".into() } else { format!("when {cond}") }
}

/// The readable `--check` report.
pub fn check(mdae: &Mdae, cdg: &Cdg) -> String {
    let mut out = Vec::new();
    write_check(mdae, cdg, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the report is UTF-8")
}

/// [`check`], written to `s` as it is made (a model of 10^5 equations has a report of
/// several MB: issue 15).
pub fn write_check(mdae: &Mdae, cdg: &Cdg, s: &mut dyn std::io::Write) -> std::io::Result<()> {
    let text = |b: &Bdd| cdg.space.text(b, &cdg.valid);
    // Boolean mode variables, then Integer/enumeration ones with their domains.
    let mut vars: Vec<String> =
        mdae.modes.iter().filter(|m| m.kind == ModeKind::Variable).map(|m| m.name.clone()).collect();
    for (var, values) in domains_of(mdae) {
        let values: Vec<&str> = values.into_iter().map(|(_, v)| v).collect();
        vars.push(format!("{var} in {{{}}}", values.join(", ")));
    }
    writeln!(s, "model {}: {} equations, {} unknowns", mdae.name, mdae.equations.len(), mdae.vars.len())?;
    writeln!(s, "mode variables: {}", if vars.is_empty() { "none".into() } else { vars.join(", ") })?;
    for m in &mdae.modes {
        if let ModeKind::Atom { expr } = &m.kind {
            writeln!(s, "mode atom {} = {}", m.name, expr)?;
        }
    }
    writeln!(s, "invariant: {}", cdg.space.invariant_text(mdae))?;
    writeln!(s, "valid modes: {}", cdg.space.count(&cdg.valid))?;
    if cdg.singular.is_empty() {
        writeln!(s, "structurally nonsingular in every valid mode")?;
        if !mdae.modes.is_empty() && super::oblivious::fits_every_mode(mdae, cdg) {
            writeln!(
                s,
                "one structural analysis fits every mode (the same equations solved for the same \
                 variables, the same index and states): a tool that analyses once gets it right; \
                 the main job passes it unchanged"
            )?;
        }
    }
    for sg in &cdg.singular {
        let example: Vec<String> = sg.example.iter().map(|&(m, v)| format!("{} = {}", mdae.mode(m).name, v)).collect();
        writeln!(s, "SINGULAR {} (e.g. {}):", when_phrase(&text(&sg.cond)), example.join(", "))?;
        let over: Vec<String> = sg.overdetermined.iter().map(|&e| mdae.label(e).to_string()).collect();
        let under: Vec<&str> = sg.underdetermined.iter().map(|&v| mdae.var(v).name.as_str()).collect();
        writeln!(s, "  overdetermined equations: {}", if over.is_empty() { "none".into() } else { over.join(" ") })?;
        writeln!(s, "  underdetermined variables: {}", if under.is_empty() { "none".into() } else { under.join(" ") })?;
    }
    classes(mdae, cdg, s)?;
    writeln!(s, "blocks ({}):", cdg.blocks.len())?;
    for (n, b) in cdg.blocks.iter().enumerate() {
        writeln!(s, "  {}. {}", n + 1, block_label(mdae, cdg, &b))?;
    }
    writeln!(s, "edges ({}):", cdg.edges.len())?;
    for e in cdg.edges.iter() {
        writeln!(s, "  {} -> {} when {}", e.from + 1, e.to + 1, cdg.text(e.cond))?;
    }
    Ok(())
}

/// Most structure classes listed by `--check`.
const MAX_CLASSES: usize = 32;

/// Partitions the regular modes by the set of active blocks and describes each class.
fn classes(mdae: &Mdae, cdg: &Cdg, s: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut parts: Vec<Bdd> = if cdg.regular.is_false() { Vec::new() } else { vec![cdg.regular.clone()] };
    for b in cdg.blocks.iter() {
        let mut next = Vec::with_capacity(parts.len() * 2);
        for p in &parts {
            // p ⊆ R: p ∧ (g ∧ R) = p ∧ g.
            let (i, o) = (p.and(b.cond.g()), p.and_not(b.cond.g()));
            next.extend([i, o].into_iter().filter(|x| !x.is_false()));
        }
        parts = next;
        if parts.len() > MAX_CLASSES {
            return writeln!(s, "structure classes: more than {MAX_CLASSES} (see --report json for the blocks)");
        }
    }
    writeln!(s, "structure classes ({}):", parts.len())?;
    for p in &parts {
        // One pass over the active blocks; the states as (variable, order), sorted as
        // their names with primes (8 bytes each, not a string: issue 15).
        let (mut count, mut sum_c, mut sum_d, mut index) = (0usize, 0u32, 0u32, 0u32);
        let mut states: Vec<(VarId, u32)> = Vec::new();
        for b in cdg.blocks.iter().filter(|b| crate::analysis::meets::meets(b.cond.g(), p)) {
            count += 1;
            sum_c += b.eqs.iter().map(|e| e.1).sum::<u32>();
            sum_d += b.writes.iter().map(|w| w.1).sum::<u32>();
            index = b.eqs.iter().map(|e| e.1).fold(index, u32::max);
            states.extend(b.writes.iter().flat_map(|&(v, d)| (0..d).map(move |k| (v, k))));
        }
        let name = |&(v, k): &(VarId, u32)| mdae.var(v).name.bytes().chain(std::iter::repeat_n(b'\'', k as usize));
        states.sort_by(|a, b| name(a).cmp(name(b)));
        write!(s, "  when {}: index {}, states ", cdg.space.text(p, &cdg.valid), index)?;
        if states.is_empty() {
            write!(s, "none")?;
        }
        for (n, &(v, k)) in states.iter().enumerate() {
            write!(s, "{}{}", if n == 0 { "" } else { " " }, primed(&mdae.var(v).name, k))?;
        }
        writeln!(s, ", degrees of freedom {}, {} blocks", sum_d as i64 - sum_c as i64, count)?;
    }
    Ok(())
}
