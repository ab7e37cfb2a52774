//! The causal check in the reports: a section of `--check` and the `discrete_loops`
//! key of `--report json`. A loop through a `when`-equation is an error (omc refuses to
//! build the model); a loop through level mode equations is a warning (omc iterates).

use super::{CausalModel, DiscreteLoop, Sections, Unchecked};
use crate::syntax::ast::StoredDefinition;
use crate::syntax::{SourceFile, Span};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The causal check of a model: its loops, or why it could not be made.
pub struct CausalCheck {
    /// The loops, and the rows and unknowns they name (renumbered: the model's other
    /// rows are dropped, a model of 10^5 equations has no loop to show; issue 15).
    pub result: Result<(CausalModel, Vec<DiscreteLoop>), Unchecked>,
    /// The span and text of every origin of a shown row (only those are made).
    sources: BTreeMap<u32, (Span, String)>,
}

impl CausalCheck {
    /// The check of the model class of `def` (none: no loop).
    pub fn of(def: &StoredDefinition) -> CausalCheck {
        // A model without discrete unknowns has no discrete loop: its rows are not kept.
        let model = match Sections::of_file(def) {
            Some(sections) => sections.rows_if_discrete(),
            None => Ok(None),
        };
        let result = model.map(|m| match m {
            Some(m) => {
                let loops = m.discrete_loops();
                shown(m, loops)
            }
            None => (CausalModel::default(), Vec::new()),
        });
        let mut sources = BTreeMap::new();
        if let Ok((m, loops)) = &result
            && !loops.is_empty()
        {
            let sections = Sections::of_file(def).expect("the rows' model class");
            for row in &m.equations {
                sources.entry(row.origin).or_insert_with(|| sections.source(row.origin as usize));
            }
        }
        CausalCheck { result, sources }
    }

    /// The span and text of a shown row's origin ([`Sections::source`]).
    pub fn source(&self, origin: usize) -> (Span, String) {
        self.sources[&(origin as u32)].clone()
    }

    /// Whether some loop goes through a `when`-equation (omc cannot build the model).
    pub fn fatal(&self) -> bool {
        matches!(&self.result, Ok((_, loops)) if loops.iter().any(|l| l.through_when))
    }

    /// The `--check` section.
    pub fn text(&self, file: &SourceFile) -> String {
        let mut s = String::new();
        match &self.result {
            Err(u) => {
                let (l, c) = file.line_col(u.span.start as usize);
                let _ = writeln!(s, "discrete loops: not checked ({} at {l}:{c})", u.what);
            }
            Ok((_, loops)) if loops.is_empty() => {
                let _ = writeln!(s, "discrete loops: none");
            }
            Ok((model, loops)) => {
                let _ = writeln!(s, "discrete loops ({}):", loops.len());
                let locate = |span: Span| {
                    let (l, c) = file.line_col(span.start as usize);
                    format!("{}:{l}:{c}", file.name)
                };
                for l in loops {
                    let kind = if l.through_when { "ERROR" } else { "warning" };
                    let _ = writeln!(
                        s,
                        "  {kind}: {}",
                        model.describe(l, &locate, &|o| self.source(o)).replace('\n', "\n  ")
                    );
                }
            }
        }
        s
    }

    /// The JSON value: `{"checked": true, "loops": [...]}` or `{"checked": false, "why": …}`.
    pub fn json(&self, file: &SourceFile) -> JsonCausal {
        match &self.result {
            Err(u) => {
                let (line, _) = file.line_col(u.span.start as usize);
                JsonCausal { checked: false, why: Some(format!("{} (line {line})", u.what)), loops: Vec::new() }
            }
            Ok((model, loops)) => JsonCausal {
                checked: true,
                why: None,
                loops: loops
                    .iter()
                    .map(|l| {
                        let mut origins = Vec::new();
                        let mut equations = Vec::new();
                        for &e in &l.equations {
                            let row = &model.equations[e];
                            if !origins.contains(&row.origin) {
                                origins.push(row.origin);
                                let (span, text) = self.source(row.origin as usize);
                                let (line, _) = file.line_col(span.start as usize);
                                equations.push(JsonLoopEquation { line: line as u32, text });
                            }
                        }
                        JsonLoop {
                            variables: l.discrete.iter().map(|&v| model.unknowns[v].name()).collect(),
                            through_when: l.through_when,
                            equations,
                        }
                    })
                    .collect(),
            },
        }
    }
}

#[derive(Serialize)]
pub struct JsonCausal {
    pub checked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    pub loops: Vec<JsonLoop>,
}

#[derive(Serialize)]
pub struct JsonLoop {
    pub variables: Vec<String>,
    pub through_when: bool,
    pub equations: Vec<JsonLoopEquation>,
}

#[derive(Serialize)]
pub struct JsonLoopEquation {
    pub line: u32,
    pub text: String,
}

/// The rows and unknowns of `m` that `loops` name, the loops renumbered to them (rows keep
/// their origin and kind; what they solve and read is not shown and is dropped).
fn shown(m: CausalModel, mut loops: Vec<DiscreteLoop>) -> (CausalModel, Vec<DiscreteLoop>) {
    if loops.is_empty() {
        return (CausalModel::default(), loops);
    }
    let (mut rows, mut vars) = (vec![None; m.equations.len()], vec![None; m.unknowns.len()]);
    let mut out = CausalModel::default();
    for l in &mut loops {
        for e in &mut l.equations {
            *e = *rows[*e].get_or_insert_with(|| {
                out.push(m.equations[*e], [], []);
                out.equations.len() - 1
            });
        }
        for v in &mut l.discrete {
            *v = *vars[*v].get_or_insert_with(|| {
                out.unknowns.push(m.unknowns[*v]);
                out.unknowns.len() - 1
            });
        }
    }
    (out, loops)
}
