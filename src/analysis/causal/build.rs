//! A [`CausalModel`] from the AST: the model's declarations classify every name (known:
//! parameter, constant, top-level input, state; unknown: a Real, or a discrete variable:
//! Boolean, Integer, enumeration, String, a Real assigned in a `when`), then every
//! equation becomes rows:
//!
//! - `lhs = rhs` on a discrete variable: one [`EqKind::Discrete`] row solvable for it,
//!   reading the right-hand side; any other `lhs = rhs`: one continuous row;
//! - an if-equation: its branches paired row by row (the i-th equation of each
//!   branch), reading the conditions;
//! - a `when`-equation: one row per target, reading every condition and every
//!   right-hand side (`reinit`, `assert`, `terminate` define nothing);
//! - a tuple equation and an algorithm section: one row per target, each solvable for
//!   all of them (one block);
//! - `assert`/`terminate` calls: no row.
//!
//! Names under `pre`, `delay` and the derivative's lower orders are known. What cannot be
//! checked this way is returned as [`Unchecked`] with its span: real arrays (a
//! declaration with a size that is not omc's scalarised element `x[1]`), records,
//! for-equations and `connect`.

use super::{CausalEq, CausalModel, EqKind, Unknown};
use crate::syntax::Span;
use crate::syntax::ast::{
    BinOp, ClassBody, ClassDef, ClassKind, ClassPart, ComponentRef, Element, Equation, EquationKind, Expr, ExprKind,
    Prefix, Statement, StatementKind, StoredDefinition, Subscript, TypeSpec, UnOp,
};
use crate::syntax::ast::{Text, text};
use crate::syntax::printer::{equation_to_string, write_cref, write_subscripts};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

/// A construct the causal check does not model, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unchecked {
    pub span: Span,
    pub what: String,
}

/// What a declared name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Known,
    Real,
    Discrete,
}

/// What the rows are made from: the declarations, the equations (a row's `origin` is the
/// index of its equation, or `equations.len() + k` for the k-th algorithm section) and
/// the classes that resolve declared type names.
#[derive(Default)]
pub struct Sections<'a> {
    pub elements: Vec<&'a Element>,
    pub equations: Vec<&'a Equation>,
    pub algorithms: Vec<(Span, &'a [Statement])>,
    pub classes: Vec<&'a ClassDef>,
}

impl<'a> Sections<'a> {
    /// The sections of the model class of `def` (the class the lowering analyses), with
    /// every class of the file to resolve type names; `None` when the file has no model
    /// class.
    pub fn of_file(def: &'a StoredDefinition) -> Option<Sections<'a>> {
        let class = crate::flat::model_class(def)?;
        let mut classes: Vec<&ClassDef> = def.classes.iter().collect();
        classes.extend(def.classes.iter().flat_map(ClassDef::nested_classes));
        Some(Sections::of_class(class, &classes))
    }

    /// The sections of `class` (its equation and algorithm sections; initial ones are not
    /// part of the simulation's causalisation); `classes` resolves declared type names.
    pub fn of_class(class: &'a ClassDef, classes: &[&'a ClassDef]) -> Sections<'a> {
        let ClassBody::Long(comp) = &class.body else { return Sections::default() };
        let mut s = Sections { classes: classes.to_vec(), ..Sections::default() };
        for part in &comp.parts {
            match part {
                ClassPart::Elements { elements: es, .. } => {
                    // At their number: a model of 10^5 declarations (issue 15).
                    s.elements.reserve(es.len());
                    for e in es {
                        match e {
                            Element::Class(c) => s.classes.push(c),
                            other => s.elements.push(other),
                        }
                    }
                }
                ClassPart::Equations { initial: false, equations: eqs, .. } => s.equations.extend(eqs.iter()),
                ClassPart::Algorithm { initial: false, statements, span } => {
                    s.algorithms.push((*span, statements.as_slice()))
                }
                _ => {}
            }
        }
        s
    }

    /// The rows (the sections are dropped as they are read: the declarations once
    /// classified, before the rows are made; issue 15).
    pub fn rows(self) -> Result<CausalModel, Unchecked> {
        let Sections { elements, equations, algorithms, classes } = self;
        rows_of(elements, &equations, &algorithms, &classes, true).map(|m| m.expect("the rows are kept"))
    }

    /// The rows if some unknown is discrete; `None` when none is (no Boolean, Integer,
    /// enumeration, String or discrete Real is declared, no Real is assigned in a `when`):
    /// such a model has no discrete loop, and its rows are made to be checked, not kept
    /// (issue 15: a model without modes of 10^5 equations).
    pub fn rows_if_discrete(self) -> Result<Option<CausalModel>, Unchecked> {
        let Sections { elements, equations, algorithms, classes } = self;
        rows_of(elements, &equations, &algorithms, &classes, false)
    }

    /// The span and text of the rows of `origin`, for messages: its equation's and the
    /// first line of it, or the algorithm section's and `algorithm section`.
    pub fn source(&self, origin: usize) -> (Span, String) {
        match self.equations.get(origin) {
            Some(eq) => (eq.span(), first_line(eq)),
            None => (self.algorithms[origin - self.equations.len()].0, "algorithm section".to_string()),
        }
    }
}

/// The rows of the model class of `def` ([`Sections::of_file`]).
pub fn of_file(def: &StoredDefinition) -> Option<Result<CausalModel, Unchecked>> {
    Some(Sections::of_file(def)?.rows())
}

/// The rows of `class` ([`Sections::of_class`]).
pub fn of_class(class: &ClassDef, classes: &[&ClassDef]) -> Result<CausalModel, Unchecked> {
    Sections::of_class(class, classes).rows()
}

/// The rows of `equations` and `algorithms` over the names declared by `elements`. A
/// row's `origin` is the index of its equation, or `equations.len() + k` for the k-th
/// algorithm section.
pub fn of_equations(
    elements: &[&Element],
    equations: &[&Equation],
    algorithms: &[(Span, &[Statement])],
    classes: &[&ClassDef],
) -> Result<CausalModel, Unchecked> {
    rows_of(elements.to_vec(), equations, algorithms, classes, true).map(|m| m.expect("the rows are kept"))
}

/// The rows, or `None` when no unknown is discrete and `always` is false (the rows are
/// made, so that what cannot be checked is found, but not kept).
fn rows_of(
    elements: Vec<&Element>,
    equations: &[&Equation],
    algorithms: &[(Span, &[Statement])],
    classes: &[&ClassDef],
    always: bool,
) -> Result<Option<CausalModel>, Unchecked> {
    let types: HashMap<&str, &ClassDef> = classes.iter().map(|c| (c.name.text.as_str(), *c)).collect();
    let mut when_targets = BTreeSet::new();
    for eq in equations {
        when_assigned(eq, false, &mut when_targets);
    }
    for (_, statements) in algorithms {
        statements_assigned(statements, true, &mut when_targets);
    }
    let names = declarations(&elements, &types, &when_targets)?;
    drop((elements, types, when_targets));
    let keep = always || names.values().any(|d| d.class() == Class::Discrete);
    let mut b = Builder { names, keep, ..Builder::default() };
    if keep {
        b.model.unknowns.reserve(b.names.len());
        b.model.equations.reserve(equations.len() + algorithms.len());
        b.model.ends.reserve(equations.len() + algorithms.len());
    }
    for eq in equations {
        b.orders_in_equation(eq);
    }
    for (_, statements) in algorithms {
        b.orders_in_statements(statements);
    }
    for (k, eq) in equations.iter().enumerate() {
        b.equation(k, eq)?;
    }
    for (k, (_, statements)) in algorithms.iter().enumerate() {
        b.algorithm(equations.len() + k, statements);
    }
    Ok(keep.then_some(b.model))
}

/// Classifies every declared name.
fn declarations(
    elements: &[&Element],
    types: &HashMap<&str, &ClassDef>,
    when_targets: &BTreeSet<String>,
) -> Result<FxHashMap<Text, Decl>, Unchecked> {
    // How many declarations share the name of one with dimensions (`x[1]`, `x[2]`: omc's
    // scalarised elements); counted only for those (a model of 10^5 scalars has none).
    let declared = || {
        elements.iter().filter_map(|e| match e {
            Element::Component(c) => Some(c.declarations().iter()),
            _ => None,
        })
    };
    let mut bases: HashMap<Cow<'static, str>, usize> =
        declared().flatten().filter(|d| !d.dims.is_empty()).map(|d| (cref_str(&d.name()), 0)).collect();
    if !bases.is_empty() {
        for d in declared().flatten() {
            if let Some(n) = bases.get_mut(&cref_str(&d.name())) {
                *n += 1;
            }
        }
    }
    let mut names = FxHashMap::with_capacity_and_hasher(declared().flatten().count(), Default::default());
    for e in elements {
        let c = match e {
            Element::Component(c) => c,
            Element::Extends(x) => return Err(Unchecked { span: x.span, what: "`extends`".into() }),
            _ => continue,
        };
        let known = c.has(Prefix::Parameter) || c.has(Prefix::Constant) || c.has(Prefix::Input);
        for d in c.declarations() {
            let mut name = cref_str(&d.name());
            if !c.type_dims().is_empty() {
                if known {
                    continue;
                }
                return Err(Unchecked { span: d.span(), what: format!("array variable `{name}`") });
            }
            if !d.dims.is_empty() {
                // omc's scalarised element `x[1]` (declared one by one), else a real array.
                let literal = d.dims.iter().all(|s| matches!(s, Subscript::Expr(e) if is_integer(e)));
                let element = literal && (bases[&name] > 1 || d.dims.iter().all(is_one));
                if !element {
                    if known {
                        continue;
                    }
                    return Err(Unchecked { span: d.span(), what: format!("array variable `{name}`") });
                }
                write_subscripts(name.to_mut(), &d.dims);
            }
            let class = if known {
                Class::Known
            } else {
                match type_class(&c.type_spec(), types, 0) {
                    Some(Class::Real) if c.has(Prefix::Discrete) || when_targets.contains(name.as_ref()) => {
                        Class::Discrete
                    }
                    Some(class) => class,
                    None => {
                        return Err(Unchecked {
                            span: d.span(),
                            what: format!("variable `{name}` of a record or unknown type"),
                        });
                    }
                }
            };
            // Interned: mostly the declared identifier itself (the lowering interns the
            // others as its variables' names).
            let key = match name {
                Cow::Borrowed(n) => match d.compound_name() {
                    None => d.ident().text,
                    Some(_) => text(n),
                },
                Cow::Owned(n) => text(&n),
            };
            names.insert(key, Decl::new(class));
        }
    }
    Ok(names)
}

/// A reference's name as written; borrowed when it is one identifier (interned text).
fn cref_str(r: &ComponentRef) -> Cow<'static, str> {
    match &r.parts[..] {
        [p] if p.subscripts.is_empty() => Cow::Borrowed(p.ident.text.as_str()),
        _ => {
            let mut s = String::new();
            write_cref(&mut s, r);
            Cow::Owned(s)
        }
    }
}

fn is_integer(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Number(t) if t.bytes().all(|b| b.is_ascii_digit()))
}

fn is_one(s: &Subscript) -> bool {
    matches!(s, Subscript::Expr(Expr { kind: ExprKind::Number(t), .. }) if t.as_str() == "1")
}

/// Real, discrete, or `None` (a record, a connector, an array type, an unknown name).
fn type_class(t: &TypeSpec, types: &HashMap<&str, &ClassDef>, depth: usize) -> Option<Class> {
    let name = match t {
        TypeSpec::Enumeration(_) => return Some(Class::Discrete),
        TypeSpec::Name(n) => n.text.as_str(),
    };
    match name {
        "Real" => return Some(Class::Real),
        "Integer" | "Boolean" | "String" | "StateSelect" | "AssertionLevel" => return Some(Class::Discrete),
        // Clocks belong to the synchronous partitions, not to this causalisation.
        "Clock" => return Some(Class::Known),
        _ => {}
    }
    let c = types.get(name)?;
    match &c.body {
        ClassBody::Enumeration { .. } => Some(Class::Discrete),
        ClassBody::Short { base, dims, .. } if dims.is_empty() && depth < 16 && c.kind == ClassKind::Type => {
            type_class(&TypeSpec::Name(base.clone()), types, depth + 1)
        }
        _ => None,
    }
}

/// Targets of `when`-equations (inside any nesting).
fn when_assigned(eq: &Equation, inside: bool, out: &mut BTreeSet<String>) {
    match &eq.kind {
        EquationKind::Simple { lhs, .. } if inside => targets(lhs, out),
        EquationKind::When { branches } => {
            branches.iter().flat_map(|(_, b)| b).for_each(|e| when_assigned(e, true, out));
        }
        EquationKind::If { branches, else_branch } => {
            branches.iter().flat_map(|(_, b)| b).chain(else_branch.iter().flatten()).for_each(|e| {
                when_assigned(e, inside, out);
            });
        }
        _ => {}
    }
}

/// Targets assigned by `statements`; with `when_only`, only those inside a
/// when-statement (the discrete ones).
fn statements_assigned(statements: &[Statement], when_only: bool, out: &mut BTreeSet<String>) {
    for s in statements {
        match &s.kind {
            StatementKind::Assign { target, .. } if !when_only => targets(target, out),
            StatementKind::If { branches, else_branch } => {
                for b in branches.iter().map(|(_, b)| b).chain(else_branch.iter()) {
                    statements_assigned(b, when_only, out);
                }
            }
            StatementKind::For { body, .. } | StatementKind::While { body, .. } => {
                statements_assigned(body, when_only, out)
            }
            StatementKind::When { branches } => {
                for (_, b) in branches {
                    statements_assigned(b, false, out);
                }
            }
            _ => {}
        }
    }
}

/// The names a target expression assigns (`x`, `x[1]`, `(a, b)`).
fn targets(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Tuple(xs) => xs.iter().flatten().for_each(|x| targets(x, out)),
        _ => {
            if let Some(n) = ref_text(e) {
                out.insert(n.into_owned());
            }
        }
    }
}

/// A reference's name as written (borrowed from the interned text when it is a name).
fn ref_text(e: &Expr) -> Option<Cow<'static, str>> {
    match &e.kind {
        ExprKind::Name(n) => Some(Cow::Borrowed(n.as_str())),
        ExprKind::Ref(r) => {
            let mut s = String::new();
            write_cref(&mut s, r);
            Some(Cow::Owned(s))
        }
        _ => None,
    }
}

/// Where an occurrence sits: where a row can be solved for it, or only read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    Solvable,
    Read,
}

/// A declared name: its highest derivative order anywhere in the model, what it is (the
/// two high bits) and its unknown (the others; at that order, a discrete variable's at
/// order 0), once made. 8 bytes: the map holds every declared name (issue 15).
#[derive(Clone, Copy)]
struct Decl {
    top: u32,
    bits: u32,
}

/// No unknown made yet (the low 30 bits of [`Decl::bits`]).
const NO_UNKNOWN: u32 = (1 << 30) - 1;

impl Decl {
    fn new(class: Class) -> Decl {
        let tag = match class {
            Class::Known => 0,
            Class::Real => 1,
            Class::Discrete => 2,
        };
        Decl { top: 0, bits: tag << 30 | NO_UNKNOWN }
    }

    fn class(self) -> Class {
        match self.bits >> 30 {
            0 => Class::Known,
            1 => Class::Real,
            _ => Class::Discrete,
        }
    }

    fn unknown(self) -> Option<usize> {
        let u = self.bits & NO_UNKNOWN;
        (u != NO_UNKNOWN).then_some(u as usize)
    }

    fn set_unknown(&mut self, u: usize) {
        let u = u32::try_from(u).ok().filter(|&u| u < NO_UNKNOWN).expect("fewer than 2^30 - 1 unknowns");
        self.bits = (self.bits & !NO_UNKNOWN) | u;
    }
}

#[derive(Default)]
struct Builder {
    /// Every declared name (keyed by interned text, queried by `&str`).
    names: FxHashMap<Text, Decl>,
    /// The unknowns of a real variable above its highest order seen by name (`der(x + y)`
    /// differentiates `x` once more): rare.
    above: HashMap<(Text, u32), usize>,
    /// Whether the rows and unknowns are kept in `model` (else only counted: none is
    /// discrete, [`Sections::rows_if_discrete`]).
    keep: bool,
    /// How many unknowns were made.
    made: usize,
    model: CausalModel,
}

/// The occurrences of one row under construction.
#[derive(Default)]
struct Occurrences {
    solvable: BTreeSet<usize>,
    reads: BTreeSet<usize>,
}

impl Builder {
    fn orders_in_equation(&mut self, eq: &Equation) {
        let mut f = |e: &Expr| self.orders_in(e);
        crate::syntax::visit::equation_exprs(eq, &mut f);
    }

    fn orders_in_statements(&mut self, statements: &[Statement]) {
        let mut f = |e: &Expr| self.orders_in(e);
        for s in statements {
            for_each_statement_expr(s, &mut f);
        }
    }

    fn orders_in(&mut self, e: &Expr) {
        visit(e, &mut |x| {
            if let Some((n, k)) = derivative(x) {
                // Only a declared name's order is ever asked for.
                if let Some(d) = self.names.get_mut(n.as_ref()) {
                    d.top = d.top.max(k);
                }
                return false;
            }
            true
        });
    }

    /// The unknown standing for `name` differentiated `k` times, if it is one.
    fn unknown(&mut self, name: &str, k: u32) -> Option<usize> {
        let (&base, &d) = self.names.get_key_value(name)?;
        let discrete = match d.class() {
            Class::Known => return None,
            Class::Discrete if k == 0 => true,
            Class::Discrete => return None,
            Class::Real if k < d.top => return None,
            Class::Real => false,
        };
        if discrete || k == d.top {
            if let Some(i) = d.unknown() {
                return Some(i);
            }
            let i = self.new_unknown(Unknown { base, order: k, discrete });
            self.names.get_mut(name).expect("declared").set_unknown(i);
            return Some(i);
        }
        if let Some(&i) = self.above.get(&(base, k)) {
            return Some(i);
        }
        let i = self.new_unknown(Unknown { base, order: k, discrete });
        self.above.insert((base, k), i);
        Some(i)
    }

    fn new_unknown(&mut self, u: Unknown) -> usize {
        if self.keep {
            self.model.unknowns.push(u);
        }
        self.made += 1;
        self.made - 1
    }

    /// Whether unknown `u` is discrete (none is when they are not kept).
    fn discrete(&self, u: usize) -> bool {
        self.model.unknowns.get(u).is_some_and(|x| x.discrete)
    }

    fn scan(&mut self, e: &Expr, pos: Pos, occ: &mut Occurrences) {
        if let Some((n, k)) = derivative(e) {
            if let Some(u) = self.unknown(&n, k) {
                if pos == Pos::Solvable && !self.discrete(u) {
                    occ.solvable.insert(u);
                } else {
                    occ.reads.insert(u);
                }
            }
            return;
        }
        match &e.kind {
            ExprKind::Call(c) => {
                let f = c.function.text.as_str();
                if matches!(f, "pre" | "delay" | "initial" | "terminal" | "previous") {
                    return;
                }
                let inner = match f {
                    "der" => {
                        // der of an expression: its unknowns at one order more.
                        let mut names = Vec::new();
                        args(c).iter().for_each(|a| {
                            visit(a, &mut |x| match derivative(x) {
                                Some((n, k)) => {
                                    names.push((n, k + 1));
                                    false
                                }
                                None => true,
                            })
                        });
                        for (n, k) in names {
                            if let Some(u) = self.unknown(&n, k) {
                                if pos == Pos::Solvable {
                                    occ.solvable.insert(u)
                                } else {
                                    occ.reads.insert(u)
                                };
                            }
                        }
                        return;
                    }
                    "edge" | "change" | "sample" | "hold" | "subSample" | "superSample" | "shiftSample"
                    | "backSample" => Pos::Read,
                    _ => pos,
                };
                for a in args(c) {
                    self.scan(a, inner, occ);
                }
            }
            ExprKind::Binary(op, xs) => {
                let inner = match op {
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => {
                        Pos::Read
                    }
                    _ => pos,
                };
                self.scan(&xs[0], inner, occ);
                self.scan(&xs[1], inner, occ);
            }
            ExprKind::Unary(UnOp::Not, x) => self.scan(x, Pos::Read, occ),
            ExprKind::Unary(_, x) => self.scan(x, pos, occ),
            ExprKind::If(x) => {
                for (c, v) in &x.branches {
                    self.scan(c, Pos::Read, occ);
                    self.scan(v, pos, occ);
                }
                self.scan(&x.else_value, pos, occ);
            }
            ExprKind::Array(xs) => xs.iter().for_each(|x| self.scan(x, pos, occ)),
            ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| self.scan(x, pos, occ)),
            ExprKind::Tuple(xs) => xs.iter().flatten().for_each(|x| self.scan(x, pos, occ)),
            _ => {}
        }
    }

    fn push(&mut self, origin: usize, kind: EqKind, occ: Occurrences) {
        if !self.keep {
            return;
        }
        let origin = u32::try_from(origin).expect("fewer than 2^32 equations");
        self.model.push(CausalEq { origin, kind }, occ.solvable, occ.reads);
    }

    fn equation(&mut self, origin: usize, eq: &Equation) -> Result<(), Unchecked> {
        match &eq.kind {
            EquationKind::Simple { .. } | EquationKind::If { .. } => {
                for (kind, occ) in self.rows_of(eq, &mut Vec::new())? {
                    self.push(origin, kind, occ);
                }
            }
            EquationKind::When { branches } => {
                // One row per target: it reads every condition and its own right-hand sides.
                let mut conds = Occurrences::default();
                let mut rhs: Vec<(String, Occurrences)> = Vec::new();
                for (c, body) in branches {
                    self.scan(c, Pos::Read, &mut conds);
                    for e in body {
                        self.when_body(e, &[], &mut rhs);
                    }
                }
                for (t, occ) in rhs {
                    let Some(u) = self.unknown(&t, 0) else { continue };
                    let mut reads = conds.reads.clone();
                    reads.extend(occ.reads);
                    let occ = Occurrences { solvable: [u].into(), reads };
                    self.push(origin, EqKind::When, occ);
                }
            }
            EquationKind::For { .. } => return Err(Unchecked { span: eq.span(), what: "for-equation".into() }),
            EquationKind::Connect(_) => return Err(Unchecked { span: eq.span(), what: "`connect`".into() }),
            EquationKind::Call(_) => {}
        }
        Ok(())
    }

    /// The targets of an equation inside a `when`, each with what its right-hand sides
    /// and the if-conditions above them read (`reinit`, `assert`, `terminate` define
    /// nothing).
    fn when_body(&mut self, e: &Equation, conds: &[&Expr], out: &mut Vec<(String, Occurrences)>) {
        match &e.kind {
            EquationKind::Simple { lhs, rhs } => {
                let mut ts = BTreeSet::new();
                targets(lhs, &mut ts);
                for t in ts {
                    let k = match out.iter().position(|(n, _)| *n == t) {
                        Some(k) => k,
                        None => {
                            out.push((t, Occurrences::default()));
                            out.len() - 1
                        }
                    };
                    let mut occ = std::mem::take(&mut out[k].1);
                    self.scan(rhs, Pos::Read, &mut occ);
                    for c in conds {
                        self.scan(c, Pos::Read, &mut occ);
                    }
                    out[k].1 = occ;
                }
            }
            EquationKind::If { branches, else_branch } => {
                let mut above: Vec<&Expr> = conds.to_vec();
                for (c, body) in branches {
                    above.push(c);
                    body.iter().for_each(|x| self.when_body(x, &above, out));
                }
                else_branch.iter().flatten().for_each(|x| self.when_body(x, &above, out));
            }
            _ => {}
        }
    }

    /// The rows of a simple or if-equation: one per equation, an if-equation's branches
    /// paired row by row (each row also reads the conditions above it).
    fn rows_of(&mut self, eq: &Equation, conds: &mut Vec<Expr>) -> Result<Vec<(EqKind, Occurrences)>, Unchecked> {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                let mut occ = Occurrences::default();
                for c in conds.iter() {
                    self.scan(c, Pos::Read, &mut occ);
                }
                let discrete_lhs = ref_text(lhs).and_then(|n| self.unknown(&n, 0)).filter(|&u| self.discrete(u));
                if let Some(u) = discrete_lhs {
                    occ.solvable.insert(u);
                    self.scan(rhs, Pos::Read, &mut occ);
                    return Ok(vec![(EqKind::Discrete, occ)]);
                }
                if let ExprKind::Tuple(xs) = &lhs.kind {
                    // `(a, b) = f(x)`: one block, one row per output.
                    let mut ts = BTreeSet::new();
                    xs.iter().flatten().for_each(|x| targets(x, &mut ts));
                    let outs: BTreeSet<usize> = ts.iter().filter_map(|t| self.unknown(t, 0)).collect();
                    self.scan(rhs, Pos::Read, &mut occ);
                    let kind =
                        if outs.iter().any(|&u| self.discrete(u)) { EqKind::Discrete } else { EqKind::Continuous };
                    return Ok(outs
                        .iter()
                        .map(|_| (kind, Occurrences { solvable: outs.clone(), reads: occ.reads.clone() }))
                        .collect());
                }
                self.scan(lhs, Pos::Solvable, &mut occ);
                self.scan(rhs, Pos::Solvable, &mut occ);
                Ok(vec![(EqKind::Continuous, occ)])
            }
            EquationKind::If { branches, else_branch } => {
                let mut columns: Vec<Vec<(EqKind, Occurrences)>> = Vec::new();
                let bodies =
                    branches.iter().map(|(c, b)| (Some(c), &b[..])).chain(else_branch.iter().map(|b| (None, &b[..])));
                for (c, body) in bodies {
                    let mut column = Vec::new();
                    for e in body {
                        if let Some(c) = c {
                            conds.push(c.clone());
                        }
                        let rows = self.rows_of(e, conds);
                        if c.is_some() {
                            conds.pop();
                        }
                        column.extend(rows?);
                    }
                    columns.push(column);
                }
                // Every row also reads every condition of the if-equation.
                let mut all_conds = Occurrences::default();
                for (c, _) in branches {
                    self.scan(c, Pos::Read, &mut all_conds);
                }
                let n = columns.iter().map(Vec::len).max().unwrap_or(0);
                if columns.iter().any(|c| c.len() != n) && else_branch.is_some() {
                    return Err(Unchecked {
                        span: eq.span(),
                        what: "an if-equation whose branches have different numbers of equations".into(),
                    });
                }
                let mut out: Vec<(EqKind, Occurrences)> = Vec::with_capacity(n);
                for i in 0..n {
                    let mut occ = Occurrences { solvable: BTreeSet::new(), reads: all_conds.reads.clone() };
                    let mut kind = EqKind::Continuous;
                    for col in &columns {
                        if let Some((k, o)) = col.get(i) {
                            if *k != EqKind::Continuous {
                                kind = *k;
                            }
                            occ.solvable.extend(o.solvable.iter().copied());
                            occ.reads.extend(o.reads.iter().copied());
                        }
                    }
                    out.push((kind, occ));
                }
                Ok(out)
            }
            EquationKind::Call(_) => Ok(Vec::new()),
            EquationKind::For { .. } => Err(Unchecked { span: eq.span(), what: "for-equation".into() }),
            EquationKind::Connect(_) => Err(Unchecked { span: eq.span(), what: "`connect`".into() }),
            EquationKind::When { .. } => {
                Err(Unchecked { span: eq.span(), what: "a when-equation inside an if-equation".into() })
            }
        }
    }

    /// An algorithm section: one row per assigned unknown, each solvable for all of them.
    fn algorithm(&mut self, origin: usize, statements: &[Statement]) {
        let mut assigned = BTreeSet::new();
        statements_assigned(statements, false, &mut assigned);
        let outs: BTreeSet<usize> = assigned.iter().filter_map(|t| self.unknown(t, 0)).collect();
        let mut occ = Occurrences::default();
        let mut with_when = false;
        let mut f = |e: &Expr, b: &mut Builder| b.scan(e, Pos::Read, &mut occ);
        for s in statements {
            with_when |= has_when(s);
            statement_exprs(s, self, &mut f);
        }
        let reads: BTreeSet<usize> = occ.reads.into_iter().filter(|u| !outs.contains(u)).collect();
        let kind = EqKind::Algorithm { when: with_when };
        for _ in &outs {
            self.push(origin, kind, Occurrences { solvable: outs.clone(), reads: reads.clone() });
        }
    }
}

fn has_when(s: &Statement) -> bool {
    match &s.kind {
        StatementKind::When { .. } => true,
        StatementKind::If { branches, else_branch } => {
            branches.iter().flat_map(|(_, b)| b).chain(else_branch.iter().flatten()).any(has_when)
        }
        StatementKind::For { body, .. } | StatementKind::While { body, .. } => body.iter().any(has_when),
        _ => false,
    }
}

/// Calls `f` on every expression a statement reads (assignment targets excluded).
fn statement_exprs(s: &Statement, b: &mut Builder, f: &mut dyn FnMut(&Expr, &mut Builder)) {
    match &s.kind {
        StatementKind::Assign { value, .. } => f(value, b),
        StatementKind::Call(c) => args(c).iter().for_each(|a| f(a, b)),
        StatementKind::If { branches, else_branch } => {
            for (c, body) in branches {
                f(c, b);
                body.iter().for_each(|x| statement_exprs(x, b, f));
            }
            else_branch.iter().flatten().for_each(|x| statement_exprs(x, b, f));
        }
        StatementKind::When { branches } => {
            for (c, body) in branches {
                f(c, b);
                body.iter().for_each(|x| statement_exprs(x, b, f));
            }
        }
        StatementKind::For { indices, body } => {
            indices.iter().filter_map(|i| i.range.as_ref()).for_each(|r| f(r, b));
            body.iter().for_each(|x| statement_exprs(x, b, f));
        }
        StatementKind::While { condition, body } => {
            f(condition, b);
            body.iter().for_each(|x| statement_exprs(x, b, f));
        }
        StatementKind::Return(value) => value.iter().for_each(|x| f(x, b)),
        StatementKind::Break => {}
    }
}

/// The positional and named arguments of a call.
use crate::syntax::visit::call_args as args;

/// `x` → (x, 0), `der(x)` → (x, 1), `der(der(x))` → (x, 2); else `None`.
fn derivative(e: &Expr) -> Option<(Cow<'static, str>, u32)> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Ref(_) => ref_text(e).map(|n| (n, 0)),
        ExprKind::Call(c) if c.function.text.as_str() == "der" => match args(c).as_slice() {
            [x] => derivative(x).map(|(n, k)| (n, k + 1)),
            _ => None,
        },
        _ => None,
    }
}

/// Visits `e` top-down; `f` returns whether to descend into the node's children.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr) -> bool) {
    if !f(e) {
        return;
    }
    match &e.kind {
        ExprKind::Call(c) => args(c).into_iter().for_each(|a| visit(a, f)),
        ExprKind::Unary(_, x) => visit(x, f),
        ExprKind::Binary(_, xs) => xs.iter().for_each(|x| visit(x, f)),
        ExprKind::If(x) => {
            for (c, v) in &x.branches {
                visit(c, f);
                visit(v, f);
            }
            visit(&x.else_value, f);
        }
        ExprKind::Array(xs) => xs.iter().for_each(|x| visit(x, f)),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| visit(x, f)),
        ExprKind::Tuple(xs) => xs.iter().flatten().for_each(|x| visit(x, f)),
        _ => {}
    }
}

fn for_each_statement_expr(s: &Statement, f: &mut dyn FnMut(&Expr)) {
    match &s.kind {
        StatementKind::Assign { target, value } => {
            f(target);
            f(value);
        }
        StatementKind::Call(c) => args(c).into_iter().for_each(&mut *f),
        StatementKind::If { branches, else_branch } => {
            for (c, body) in branches {
                f(c);
                body.iter().for_each(|x| for_each_statement_expr(x, f));
            }
            else_branch.iter().flatten().for_each(|x| for_each_statement_expr(x, f));
        }
        StatementKind::When { branches } => {
            for (c, body) in branches {
                f(c);
                body.iter().for_each(|x| for_each_statement_expr(x, f));
            }
        }
        StatementKind::For { body, .. } | StatementKind::While { body, .. } => {
            body.iter().for_each(|x| for_each_statement_expr(x, f))
        }
        StatementKind::Return(value) => value.iter().for_each(|x| f(x)),
        StatementKind::Break => {}
    }
}

/// The first line of an equation's canonical text (for messages).
fn first_line(eq: &Equation) -> String {
    let s = equation_to_string(eq, 0);
    let line = s.lines().next().unwrap_or("").trim();
    let mut out: String = line.chars().take(100).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}
