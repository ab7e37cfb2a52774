//! The modes at t = 0, as the initial-system check reads them: which modes have a value
//! at t = 0 known before the initialisation (so the model can only start where they have
//! it), and which mode a condition of the initial equations stands for.
//!
//! Input: the model class (`decls`) and the [`Mdae`]. Output: [`AtStart`]: per mode, its
//! value at t = 0 when it is a constant, and [`AtStart::read`], a condition of an initial
//! equation as a [`Cond`] over the modes and *free choices* (conditions the check cannot
//! read as modes, numbered after the modes: `ModeId(n_modes + k)`).
//!
//! **Values at t = 0** are computed by static evaluation (`flat::eval`) with `time` = 0,
//! the parameters and constants at their bindings, every variable declared `fixed = true`
//! at its declared start (the initial system sets it so), and the mode variables already
//! known, to a fixpoint. A mode variable's value at t = 0 is that of its level equation's
//! guard (`b = time >= 1.0` is false), of its `when initial()` branch for a switch, or its
//! declared start (default false) for a variable a `when` defines without such a branch
//! (its `pre` at t = 0). A mode atom's value is its condition's, `initial()` true; `pre(b)` is not decided
//! (rumoca reads b's start value there, omc b's value after the initialisation: both are
//! checked). A mode variable that the initial sections set (`b = …`, `pre(b) = …`) is not
//! decided here.
//!
//! **Conditions** of initial if-equations and if-expressions are read top-down: a constant
//! at t = 0 is that constant; a condition that is syntactically the guard of a mode
//! variable — its level equation's right side, its `when initial()` branch — or the
//! negation of one written as the opposite relation (`s <= 0.5` for the guard `s > 0.5`)
//! is that mode variable (its value at t = 0 is the guard's, by its definition); a
//! condition the lowering met in a real equation is its [`Cond`] (a mode variable, an atom,
//! a value of an Integer mode variable); `not`, `and`, `or` and `noEvent` are read through;
//! anything else is a free choice, one per distinct text (four initial equations selected
//! by the same condition choose together).

use crate::flat::eval::{Env, Value};
use crate::mdae::{Cond, Mdae, ModeId, ModeKind};
use crate::syntax::ast::{BinOp, ClassPart, Equation, EquationKind, Expr, ExprKind, FunctionArgs, UnOp};
use crate::syntax::printer::expr::expr_to_string;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::decls::Decls;

/// How a mode variable is defined, as far as its value at t = 0 goes.
#[derive(Clone, Debug)]
enum Definition {
    /// `b = g`: b is g at every instant.
    Level(Expr),
    /// `when initial() then b = g; elsewhen …`: b is g at t = 0.
    Initial(Expr),
    /// Defined in a `when` without an `initial()` branch: its start value at t = 0.
    Start,
}

/// The modes at t = 0 (module header).
pub(crate) struct AtStart<'m> {
    mdae: &'m Mdae<'m>,
    /// Static bindings at t = 0 (module header).
    bindings: HashMap<String, Expr>,
    /// Per mode: its value at t = 0 when known before the initialisation, and from what.
    pub values: Vec<Option<(bool, String)>>,
    /// The text of a mode variable's guard → the mode variable (and whether the text is
    /// its opposite relation, `not`).
    guards: HashMap<String, ModeId>,
    /// The conditions read as free choices, by text; choice k is `ModeId(n_modes + k)`.
    pub free: Vec<String>,
}

impl<'m> AtStart<'m> {
    /// The modes of `mdae` at t = 0 (`decls`: the model class's declarations, `parts` its
    /// sections).
    pub(crate) fn of(mdae: &'m Mdae<'m>, decls: &Decls, parts: &[ClassPart]) -> AtStart<'m> {
        // The `fixed` starts decide guards: none without modes (a model of 10^5 equations
        // holds no copy of its starts).
        let mut bindings = decls.bindings(!mdae.modes.is_empty());
        bindings.insert("time".into(), number("0"));
        let set_initially = set_in_initial_sections(parts);
        let definitions = definitions(mdae);
        let mut guards = HashMap::new();
        for (name, def) in &definitions {
            let Some(m) = mdae.modes.iter().position(|m| m.name == *name && m.kind == ModeKind::Variable) else {
                continue;
            };
            if let Definition::Level(g) | Definition::Initial(g) = def {
                guards.entry(expr_to_string(g)).or_insert(ModeId(m as u32));
            }
        }
        let mut at = AtStart { mdae, bindings, values: vec![None; mdae.modes.len()], guards, free: Vec::new() };
        // To a fixpoint: a guard may read another mode variable known at t = 0.
        loop {
            let mut changed = false;
            for (name, def) in &definitions {
                if set_initially.contains(name.as_str()) || at.bindings.contains_key(name.as_str()) {
                    continue;
                }
                let (value, why) = match def {
                    Definition::Level(g) => (at.eval(g), format!("`{}` at t = 0", expr_to_string(g))),
                    Definition::Initial(g) => {
                        (at.eval(g), format!("its `when initial()` guard `{}`", expr_to_string(g)))
                    }
                    Definition::Start => (
                        decls.start(name).map_or(Some(Value::Bool(false)), |s| at.eval(s)),
                        "its start value".to_string(),
                    ),
                };
                let Some(value) = value else { continue };
                at.bindings.insert(name.clone(), literal(value));
                at.set(name, value, &why);
                changed = true;
            }
            if !changed {
                break;
            }
        }
        for (m, e) in &mdae.atom_exprs {
            // `initial()` is true in the initial system (a §4.7 guard that waits a step of the
            // event iteration at its entry reads it: `c and (initial() or pre(c))`).
            let value = if fires_initially(e) { Some(Value::Bool(true)) } else { at.eval(e) };
            if let Some(Value::Bool(b)) = value {
                at.values[m.index()] = Some((b, format!("`{}` at t = 0", expr_to_string(e))));
            }
        }
        at
    }

    /// Records the value at t = 0 of the mode variable `name` (or of the one-hot modes of
    /// the Integer or enumeration variable `name`).
    fn set(&mut self, name: &str, value: Value, why: &str) {
        for (m, mode) in self.mdae.modes.iter().enumerate() {
            let v = match (&mode.kind, value) {
                (ModeKind::Variable, Value::Bool(b)) if mode.name == name => b,
                (ModeKind::Value { var, value: w }, Value::Num(x)) if var == name => {
                    let Ok(w) = w.parse::<f64>() else { continue };
                    w == x
                }
                _ => continue,
            };
            self.values[m] = Some((v, why.to_string()));
        }
    }

    /// The static value of `e` at t = 0.
    fn eval(&self, e: &Expr) -> Option<Value> {
        Env { bindings: &self.bindings }.eval(e)
    }

    /// The number of modes of the mDAE (free choices are numbered from it).
    pub(crate) fn n_modes(&self) -> usize {
        self.mdae.modes.len()
    }

    /// A condition of an initial equation as a [`Cond`] over the modes and free choices
    /// (module header).
    pub(crate) fn read(&mut self, c: &Expr) -> Cond {
        if let Some(Value::Bool(b)) = self.eval(c) {
            return if b { Cond::True } else { Cond::False };
        }
        let text = expr_to_string(c);
        if let Some(&m) = self.guards.get(&text) {
            return Cond::Mode(m);
        }
        if let Some(cond) = self.mdae.conditions.get(&text) {
            return cond.clone();
        }
        match &c.kind {
            ExprKind::Unary(UnOp::Not, x) => return Cond::not(self.read(x)),
            ExprKind::Binary(BinOp::And, xs) => return Cond::and(self.read(&xs[0]), self.read(&xs[1])),
            ExprKind::Binary(BinOp::Or, xs) => return Cond::or(self.read(&xs[0]), self.read(&xs[1])),
            ExprKind::Call(call) if call.function.text.as_str() == "noEvent" => {
                if let FunctionArgs::List { positional, named } = &call.args
                    && positional.len() == 1
                    && named.is_empty()
                {
                    return self.read(&positional[0]);
                }
            }
            ExprKind::Binary(op, xs) => {
                if let Some(opposite) = opposite(*op) {
                    let flipped = Expr { kind: ExprKind::Binary(opposite, xs.clone()), span: c.span };
                    if let Some(&m) = self.guards.get(&expr_to_string(&flipped)) {
                        return Cond::not(Cond::Mode(m));
                    }
                }
            }
            ExprKind::Name(n) => {
                if let Some(m) = self.mdae.modes.iter().position(|m| m.name == n.as_str()) {
                    return Cond::Mode(ModeId(m as u32));
                }
            }
            _ => {}
        }
        let k = match self.free.iter().position(|f| *f == text) {
            Some(k) => k,
            None => {
                self.free.push(text);
                self.free.len() - 1
            }
        };
        Cond::Mode(ModeId((self.n_modes() + k) as u32))
    }

    /// A mode or free choice as the report writes it: a mode variable by name, an atom by
    /// its condition, a free choice by its condition in parentheses.
    pub(crate) fn name(&self, m: ModeId) -> String {
        match m.index().checked_sub(self.n_modes()) {
            Some(k) => format!("({})", self.free[k]),
            None => {
                let mode = &self.mdae.modes[m.index()];
                match &mode.kind {
                    ModeKind::Atom { expr } => format!("({expr})"),
                    _ => mode.name.clone(),
                }
            }
        }
    }
}

/// The relation that holds exactly where `op` does not.
fn opposite(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        _ => return None,
    })
}

/// The definitions of the discrete variables among the equations that pass through the
/// mDAE (mode equations, `when`-equations), by name; a variable defined twice (by
/// branches of an if-equation, say) is left out.
fn definitions(mdae: &Mdae) -> BTreeMap<String, Definition> {
    let mut out: BTreeMap<String, Definition> = BTreeMap::new();
    let mut twice = HashSet::new();
    let mut define = |name: String, def: Definition| {
        if out.insert(name.clone(), def).is_some() {
            twice.insert(name);
        }
    };
    for eq in &mdae.passed {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                if let Some(n) = name_of(lhs) {
                    define(n, Definition::Level(rhs.clone()));
                }
            }
            EquationKind::When { branches } => {
                let mut defined: BTreeMap<String, Definition> = BTreeMap::new();
                for (k, (cond, body)) in branches.iter().enumerate() {
                    for (n, g) in assignments(body) {
                        let def =
                            if k == 0 && fires_initially(cond) { Definition::Initial(g) } else { Definition::Start };
                        defined.entry(n).or_insert(def);
                    }
                }
                for (n, def) in defined {
                    define(n, def);
                }
            }
            _ => {}
        }
    }
    out.retain(|n, _| !twice.contains(n));
    out
}

/// `(b, g)` for every `b = g` among `body` (a `when` branch).
fn assignments(body: &[Equation]) -> Vec<(String, Expr)> {
    body.iter()
        .filter_map(|eq| match &eq.kind {
            EquationKind::Simple { lhs, rhs } => Some((name_of(lhs)?, rhs.clone())),
            _ => None,
        })
        .collect()
}

/// `initial()`, or an array of conditions holding it (`{initial(), c}`).
fn fires_initially(c: &Expr) -> bool {
    match &c.kind {
        ExprKind::Call(call) => call.function.text.as_str() == "initial",
        ExprKind::Array(xs) => xs.iter().any(fires_initially),
        _ => false,
    }
}

/// The names the initial sections set: `b` of `b = …` and of `pre(b) = …`.
fn set_in_initial_sections(parts: &[ClassPart]) -> HashSet<String> {
    let mut out = HashSet::new();
    fn walk(eqs: &[Equation], out: &mut HashSet<String>) {
        for eq in eqs {
            match &eq.kind {
                EquationKind::Simple { lhs, .. } => {
                    let inner = match &lhs.kind {
                        ExprKind::Call(c) if c.function.text.as_str() == "pre" => match &c.args {
                            FunctionArgs::List { positional, .. } => positional.first(),
                            _ => None,
                        },
                        _ => Some(lhs),
                    };
                    if let Some(n) = inner.and_then(name_of) {
                        out.insert(n);
                    }
                }
                EquationKind::If { branches, else_branch } => {
                    branches.iter().for_each(|(_, b)| walk(b, out));
                    if let Some(b) = else_branch {
                        walk(b, out);
                    }
                }
                _ => {}
            }
        }
    }
    for part in parts {
        if let ClassPart::Equations { initial: true, equations, .. } = part {
            walk(equations, &mut out);
        }
    }
    out
}

/// The name a reference prints as.
pub(crate) fn name_of(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.as_str().to_string()),
        ExprKind::Ref(r) => {
            let mut s = String::new();
            crate::syntax::printer::expr::write_cref(&mut s, r);
            Some(s)
        }
        _ => None,
    }
}

fn number(text: &str) -> Expr {
    Expr { kind: ExprKind::Number(crate::syntax::ast::text(text)), span: crate::syntax::Span::DUMMY }
}

/// A value as a literal binding.
fn literal(v: Value) -> Expr {
    match v {
        Value::Bool(b) => Expr { kind: ExprKind::Bool(b), span: crate::syntax::Span::DUMMY },
        Value::Num(x) => number(&format!("{x:?}")),
    }
}
