//! The time-invariant subsystem: variables declared without `parameter` whose equations
//! compute them from parameters and constants only (omc's "parameter equations"; the
//! Standard Library's KinematicPTP computes `aux1 = p_deltaq / p_qd_max`, `sd_max`,
//! `Ta1`, `noWphase = Ta2 >= Ta1`, … so, partly in an if-equation on such a condition).
//! They become [`Variability::Parametric`]: known to the continuous part like
//! parameters (derivative zero), so their equations are no rows of the Σ-matrix and pass
//! through untouched. Analysed as unknowns, their equations would be differentiated like
//! a state's and the rewrite would be left with index reduction to do.
//!
//! **Rule.** Known from the start: parameters and constants. A *leaf* is a scalar
//! equation of a top-level equation section, alone or inside if-equations; it is
//! *varying* when it applies `der`, `pre`, `edge`, `change`, `sample`, `delay`,
//! `initial`, `terminal`, a clock operator or any function that is neither a pure
//! built-in nor a function or record of the file not declared `impure` (an external
//! function without `pure`/`impure` counts as pure, as omc evaluates it), reads `time`,
//! or has a reference whose scalars are not known statically. A candidate (a Real,
//! Boolean or Integer declared without a prefix, so never an input, a discrete or
//! when-assigned variable, or a variable of a clocked partition) is *defined* by
//! - a leaf at top level that is not varying and whose only scalar not yet known is it;
//! - an if-equation with an `else` whose conditions are not varying and read only known
//!   scalars, when each of its branches defines it exactly once (a leaf or a nested such
//!   if-equation);
//!
//! and becomes known when exactly one of these defines it; repeated to a fixpoint.
//!
//! **Justification.** A leaf whose only unknown is `v` must be matched to `v` in every
//! perfect matching of its configuration (the conditions, known, fix the branch for the
//! whole simulation); by induction over the fixpoint, every variable found is a function
//! of parameters, constants and earlier variables found: its value never changes, and
//! its equations are solved once, as omc's parameter equations are.
//!
//! **Conservative exclusions** (the variable stays an unknown, analysed as today):
//! a variable declared `input` (even with a binding: an input is set from outside), with
//! a `fixed` modifier that is not `false` (its start value is an initial condition), read
//! in an initial equation or initial algorithm (the initial system stays as analysed),
//! assigned in an algorithm section, or read by an equation this pass does not read
//! scalar by scalar (a for-equation, a tuple or array equation, a `for` in an if-equation).
//! **Bail-out**: if a candidate is defined twice in one configuration, or a leaf that
//! reads a variable found is left without an unknown without being its definition, the
//! model is structurally singular; nothing is marked, so the analysis reports it as before.

use super::eval::Env;
use super::types::Classes;
use super::walk::visit;
use super::{FlatModel, Type, VarIndex, Variability};
use crate::syntax::Span;
use crate::syntax::ast::{
    ClassDef, ClassKind, ClassMod, ClassPart, Composition, Element, Equation, EquationKind, Expr, ExprKind, Prefix,
    Statement, StatementKind,
};
use crate::syntax::visit::{call_args, equation_exprs};
use std::collections::{BTreeMap, HashSet};

/// Built-in functions whose value depends on their arguments only.
const PURE_BUILTINS: &[&str] = &[
    "abs",
    "sign",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "log",
    "log10",
    "floor",
    "ceil",
    "integer",
    "Integer",
    "div",
    "mod",
    "rem",
    "min",
    "max",
    "sum",
    "product",
    "size",
    "ndims",
    "scalar",
    "vector",
    "matrix",
    "identity",
    "diagonal",
    "zeros",
    "ones",
    "fill",
    "linspace",
    "transpose",
    "outerProduct",
    "symmetric",
    "cross",
    "skew",
    "cat",
    "array",
    "promote",
    "noEvent",
    "smooth",
    "homotopy",
    "semiLinear",
    "String",
    "cardinality",
    "getInstanceName",
];

/// The leaves: scalar equations and conditions, each with the scalars it reads (sorted)
/// and whether it varies in time by itself, whether it is a condition, and whether it is
/// a unit by itself (an equation at top level). Packed, the reads of all in one list (a
/// flat model has 10^5 of them, read while the lowering runs at the main job's peak; a
/// `Vec` of reads a leaf and a node a unit took about 150 bytes an equation; issue 15).
#[derive(Default)]
struct Leaves {
    /// Where each leaf's reads end in `reads`.
    ends: Vec<u32>,
    reads: Vec<u32>,
    /// Per leaf: [`VARYING`], [`CONDITION`], [`TOP`].
    flags: Vec<u8>,
}

const VARYING: u8 = 1;
const CONDITION: u8 = 2;
const TOP: u8 = 4;

impl Leaves {
    /// Adds a leaf reading `reads` (sorted, no repeats); its number.
    fn push(&mut self, reads: &[VarIndex], flags: u8) -> usize {
        self.reads.extend(reads.iter().map(|&v| u32::try_from(v).expect("too many scalars")));
        self.ends.push(u32::try_from(self.reads.len()).expect("too many reads"));
        self.flags.push(flags);
        self.flags.len() - 1
    }

    fn len(&self) -> usize {
        self.flags.len()
    }

    /// The scalars leaf `k` reads.
    fn reads(&self, k: usize) -> impl Iterator<Item = VarIndex> + '_ {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        self.reads[start..self.ends[k] as usize].iter().map(|&v| v as VarIndex)
    }

    fn is(&self, k: usize, flag: u8) -> bool {
        self.flags[k] & flag != 0
    }
}

/// A leaf inside an if-equation, or an if-equation (its conditions as leaves, its
/// branches, the `else` last).
enum Node {
    Leaf(usize),
    If { conds: Vec<usize>, branches: Vec<Vec<Node>>, complete: bool },
}

/// Singular: a candidate defined twice in one configuration.
struct Singular;

/// The leaves of one definition: one per branch of an if-equation.
type Definitions = Vec<(VarIndex, Vec<usize>)>;

/// Marks the time-invariant variables of the model (see the module header).
pub(super) fn mark<'c>(m: &mut FlatModel<'c>, comp: &Composition, classes: &Classes<'c>) {
    let bindings = std::mem::take(&mut m.bindings);
    let env = Env { bindings: &bindings };
    let mut r =
        Reader { m, env: &env, classes, leaves: Leaves::default(), candidate: Vec::new(), excluded: HashSet::new() };
    r.candidate =
        r.m.vars.iter().map(|v| is_candidate_type(v.ty) && v.variability == Variability::Continuous).collect();
    r.exclude_declarations(comp);
    let ifs = r.units(comp);
    let (leaves, candidate) = (std::mem::take(&mut r.leaves), std::mem::take(&mut r.candidate));
    let mut known: Vec<bool> = m.vars.iter().map(|v| v.is_fixed()).collect();
    if let Some(found) = fixpoint(&ifs, &leaves, &candidate, &mut known) {
        for k in found {
            m.vars[k].variability = Variability::Parametric;
        }
    }
    m.bindings = bindings;
}

fn is_candidate_type(t: Type) -> bool {
    matches!(t, Type::Real | Type::Boolean | Type::Integer)
}

/// The variables found, or `None` when the model is singular on them (see the header).
/// The units are the leaves marked [`TOP`] and the if-equations `ifs`.
fn fixpoint(ifs: &[Node], leaves: &Leaves, candidate: &[bool], known: &mut [bool]) -> Option<Vec<VarIndex>> {
    let mut found = Vec::new();
    let mut definitions: HashSet<usize> = HashSet::new();
    loop {
        let mut defined: BTreeMap<VarIndex, Vec<Vec<usize>>> = BTreeMap::new();
        let top = (0..leaves.len()).filter(|&k| leaves.is(k, TOP)).map(|k| defines_leaf(k, leaves, candidate, known));
        for d in top.chain(ifs.iter().map(|u| defines(u, leaves, candidate, known).ok())) {
            for (v, ls) in d? {
                defined.entry(v).or_default().push(ls);
            }
        }
        if defined.is_empty() {
            break;
        }
        for (v, mut sites) in defined {
            if sites.len() > 1 {
                return None;
            }
            known[v] = true;
            found.push(v);
            definitions.extend(sites.pop().unwrap_or_default());
        }
    }
    let newly: HashSet<VarIndex> = found.iter().copied().collect();
    let left_over = (0..leaves.len()).any(|k| {
        !leaves.is(k, CONDITION)
            && !definitions.contains(&k)
            && leaves.reads(k).any(|v| newly.contains(&v))
            && leaves.reads(k).all(|v| known[v])
    });
    found.sort_unstable();
    (!left_over).then_some(found)
}

/// The candidate leaf `k` defines, with it.
fn defines_leaf(k: usize, leaves: &Leaves, candidate: &[bool], known: &[bool]) -> Option<Definitions> {
    if leaves.is(k, VARYING) {
        return Some(Vec::new());
    }
    let mut unknown = leaves.reads(k).filter(|&v| !known[v]);
    Some(match (unknown.next(), unknown.next()) {
        (Some(v), None) if candidate[v] => vec![(v, vec![k])],
        _ => Vec::new(),
    })
}

/// The candidates `node` defines, each with its defining leaves.
fn defines(node: &Node, leaves: &Leaves, candidate: &[bool], known: &[bool]) -> Result<Definitions, Singular> {
    match node {
        Node::Leaf(k) => Ok(defines_leaf(*k, leaves, candidate, known).unwrap_or_default()),
        Node::If { conds, branches, complete } => {
            let fixed = conds.iter().all(|&c| !leaves.is(c, VARYING) && leaves.reads(c).all(|v| known[v]));
            if !complete || !fixed {
                return Ok(Vec::new());
            }
            let mut per_branch: Vec<BTreeMap<VarIndex, Vec<usize>>> = Vec::new();
            for body in branches {
                let mut here: BTreeMap<VarIndex, Vec<usize>> = BTreeMap::new();
                for n in body {
                    for (v, ls) in defines(n, leaves, candidate, known)? {
                        if here.insert(v, ls).is_some() {
                            return Err(Singular);
                        }
                    }
                }
                per_branch.push(here);
            }
            let Some((first, rest)) = per_branch.split_first() else { return Ok(Vec::new()) };
            Ok(first
                .iter()
                .filter(|(v, _)| rest.iter().all(|b| b.contains_key(v)))
                .map(|(v, ls)| {
                    let mut all = ls.clone();
                    rest.iter().for_each(|b| all.extend(&b[v]));
                    (*v, all)
                })
                .collect())
        }
    }
}

/// Reads the model's equations into leaves and nodes, excluding candidates on the way.
struct Reader<'m, 'e, 'c> {
    m: &'m mut FlatModel<'c>,
    env: &'e Env<'e>,
    classes: &'m Classes<'c>,
    leaves: Leaves,
    candidate: Vec<bool>,
    /// The references already excluded, by name.
    excluded: HashSet<String>,
}

impl Reader<'_, '_, '_> {
    /// Inputs and declarations with a `fixed` modifier that is not `false`.
    fn exclude_declarations(&mut self, comp: &Composition) {
        let mut spans: HashSet<Span> = HashSet::new();
        for part in &comp.parts {
            let ClassPart::Elements { elements, .. } = part else { continue };
            for e in elements {
                let Element::Component(c) = e else { continue };
                for d in c.declarations() {
                    let fixed = d.modification.as_ref().and_then(|m| m.class_mod.as_ref()).is_some_and(sets_fixed);
                    if c.has(Prefix::Input) || fixed {
                        spans.insert(d.span());
                    }
                }
            }
        }
        for (k, v) in self.m.vars.iter().enumerate() {
            if spans.contains(&v.span) {
                self.candidate[k] = false;
            }
        }
    }

    /// The top-level equations as leaves marked [`TOP`] and the if-equations among them
    /// as nodes (returned); excludes what initial sections read, what algorithms assign
    /// and what equations not read scalar by scalar mention.
    fn units(&mut self, comp: &Composition) -> Vec<Node> {
        let mut units = Vec::new();
        for part in &comp.parts {
            match part {
                ClassPart::Equations { initial: true, equations, .. } => {
                    equations.iter().for_each(|eq| self.exclude_equation(eq));
                }
                ClassPart::Algorithm { initial: true, statements, .. } => {
                    let mut refs = Vec::new();
                    statement_exprs(statements, &mut |e| refs.push(e.clone()));
                    refs.iter().for_each(|e| self.exclude_refs(e));
                }
                ClassPart::Algorithm { initial: false, statements, .. } => {
                    let mut targets = Vec::new();
                    assigned(statements, &mut targets);
                    targets.iter().for_each(|e| self.exclude_refs(e));
                }
                ClassPart::Equations { initial: false, equations, .. } => {
                    for eq in equations {
                        if !self.m.clocked.contains(&eq.span()) {
                            units.extend(self.node(eq, TOP));
                        }
                    }
                }
                _ => {}
            }
        }
        units
    }

    /// A node for a scalar or if-equation; `None` for when-equations and calls (they
    /// define no candidate), for what is excluded, and for a scalar equation at top level
    /// (`top` is [`TOP`]: its leaf is marked so).
    fn node(&mut self, eq: &Equation, top: u8) -> Option<Node> {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } if self.is_scalar(lhs, rhs) => {
                let k = self.leaf(&[lhs, rhs], top);
                (top == 0).then_some(Node::Leaf(k))
            }
            EquationKind::If { branches, else_branch } => {
                let conds = branches.iter().map(|(c, _)| self.leaf(&[c], CONDITION)).collect();
                let mut bodies: Vec<Vec<Node>> =
                    branches.iter().map(|(_, b)| b.iter().filter_map(|e| self.node(e, 0)).collect()).collect();
                if let Some(b) = else_branch {
                    bodies.push(b.iter().filter_map(|e| self.node(e, 0)).collect());
                }
                Some(Node::If { conds, branches: bodies, complete: else_branch.is_some() })
            }
            EquationKind::When { .. } | EquationKind::Call(_) => None,
            _ => {
                self.exclude_equation(eq);
                None
            }
        }
    }

    /// A scalar equation: a side is a reference to one scalar, or no side has an array
    /// constructor or a reference to several scalars.
    fn is_scalar(&mut self, lhs: &Expr, rhs: &Expr) -> bool {
        let one = |r: &mut Self, e: &Expr| {
            matches!(e.kind, ExprKind::Name(_) | ExprKind::Ref(_))
                && r.m.scalars_of_ref(e, r.env).is_some_and(|s| s.len() == 1)
        };
        if one(self, lhs) || one(self, rhs) {
            return true;
        }
        let mut refs = Vec::new();
        let mut arrays = false;
        for side in [lhs, rhs] {
            visit(side, &mut |x| {
                match &x.kind {
                    ExprKind::Name(_) | ExprKind::Ref(_) => refs.push(x.clone()),
                    ExprKind::Array(_)
                    | ExprKind::Matrix(_)
                    | ExprKind::Range(_)
                    | ExprKind::ArrayComprehension(_)
                    | ExprKind::Tuple(_) => arrays = true,
                    _ => {}
                }
                true
            });
        }
        !arrays && refs.iter().all(|r| self.m.scalars_of_ref(r, self.env).is_some_and(|s| s.len() <= 1))
    }

    /// The leaf of the expressions of one scalar equation or condition (`flags`:
    /// [`CONDITION`] or [`TOP`] or neither).
    fn leaf(&mut self, exprs: &[&Expr], flags: u8) -> usize {
        let mut refs = Vec::new();
        let mut varying = false;
        for e in exprs {
            visit(e, &mut |x| {
                match &x.kind {
                    ExprKind::Name(n) if n.as_str() == "time" => varying = true,
                    ExprKind::Name(_) | ExprKind::Ref(_) => refs.push(x.clone()),
                    ExprKind::Call(c) => varying |= !self.is_pure(c.function.text.as_str()),
                    ExprKind::Partial(_) | ExprKind::Boxed(_) => varying = true,
                    _ => {}
                }
                !varying
            });
        }
        let mut reads = Vec::new();
        for r in &refs {
            match self.m.scalars_of_ref(r, self.env) {
                Some(s) => reads.extend(s),
                None => varying = true,
            }
        }
        reads.sort_unstable();
        reads.dedup();
        self.leaves.push(&reads, flags | if varying { VARYING } else { 0 })
    }

    /// A pure built-in, or a function or record constructor of the file not declared
    /// `impure`.
    fn is_pure(&self, f: &str) -> bool {
        PURE_BUILTINS.contains(&f)
            || self.classes.get(f).is_some_and(|c: &ClassDef| {
                matches!(
                    c.kind,
                    ClassKind::Function | ClassKind::PureFunction | ClassKind::OperatorFunction | ClassKind::Record
                )
            })
    }

    fn exclude_equation(&mut self, eq: &Equation) {
        let mut refs = Vec::new();
        equation_exprs(eq, &mut |e| refs.push(e.clone()));
        refs.iter().for_each(|e| self.exclude_refs(e));
    }

    /// No candidate that `e` reads (or may read) is time-invariant.
    fn exclude_refs(&mut self, e: &Expr) {
        let mut refs = Vec::new();
        visit(e, &mut |x| {
            if matches!(x.kind, ExprKind::Name(_) | ExprKind::Ref(_)) {
                refs.push(x.clone());
            }
            true
        });
        for r in &refs {
            // Each reference once (a for-equation's body reads the same ones again).
            let Some(name) = super::walk::ref_name(r) else { continue };
            if !self.excluded.insert(name.clone()) {
                continue;
            }
            let scalars = match self.m.scalars_of_ref(r, self.env) {
                Some(s) => s,
                None if self.excluded.insert(base(&name).to_string()) => self.m.scalars(base(&name)),
                None => Vec::new(),
            };
            scalars.into_iter().for_each(|k| self.candidate[k] = false);
        }
    }
}

/// A name without its trailing subscripts (`x` of `x[k]`).
fn base(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// Does a modification set `fixed` to anything but `false` (at any depth)?
fn sets_fixed(cm: &ClassMod) -> bool {
    cm.args.iter().any(|a| {
        (a.name.text.as_str() == "fixed" && !matches!(a.value.as_ref().map(|v| &v.kind), Some(ExprKind::Bool(false))))
            || a.rest.as_ref().and_then(|r| r.class_mod.as_ref()).is_some_and(sets_fixed)
    })
}

/// Every expression of a statement list.
fn statement_exprs(stmts: &[Statement], f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        match &s.kind {
            StatementKind::Assign { target, value } => {
                f(target);
                f(value);
            }
            StatementKind::Call(c) => call_args(c).into_iter().for_each(&mut *f),
            StatementKind::If { branches, else_branch } => {
                for (c, b) in branches {
                    f(c);
                    statement_exprs(b, f);
                }
                if let Some(b) = else_branch {
                    statement_exprs(b, f);
                }
            }
            StatementKind::When { branches } => {
                for (c, b) in branches {
                    f(c);
                    statement_exprs(b, f);
                }
            }
            StatementKind::For { indices, body } => {
                indices.iter().filter_map(|i| i.range.as_ref()).for_each(&mut *f);
                statement_exprs(body, f);
            }
            StatementKind::While { condition, body } => {
                f(condition);
                statement_exprs(body, f);
            }
            StatementKind::Return(Some(x)) => f(x),
            StatementKind::Return(None) | StatementKind::Break => {}
        }
    }
}

/// The targets of every assignment in a statement list.
fn assigned(stmts: &[Statement], out: &mut Vec<Expr>) {
    for s in stmts {
        match &s.kind {
            StatementKind::Assign { target, .. } => out.push(target.clone()),
            StatementKind::If { branches, else_branch } => {
                branches.iter().for_each(|(_, b)| assigned(b, out));
                if let Some(b) = else_branch {
                    assigned(b, out);
                }
            }
            StatementKind::When { branches } => branches.iter().for_each(|(_, b)| assigned(b, out)),
            StatementKind::For { body, .. } | StatementKind::While { body, .. } => assigned(body, out),
            _ => {}
        }
    }
}
