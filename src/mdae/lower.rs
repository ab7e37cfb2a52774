//! [`FlatModel`] → [`Mdae`]: the continuous part of the flat model as residuals with
//! their guarded incidence. Classifies the names (real unknowns, known values, Boolean
//! candidates for mode variables, Integer/enumeration candidates for finite domains),
//! turns every continuous equation into a residual, pairs if-equations branch by
//! branch (unequal counts: an error naming the if-equation), gives each block of the
//! flat model (algorithm section, tuple equation, …) one residual per row reading all
//! its unknowns, and reads mode invariants from the `assert`s that pass through;
//! conditions become [`Cond`]s over mode variables (non-parameter Booleans), one-hot
//! domain modes and mode atoms (every other condition, shared by canonical text).

use super::domains::{self, DomainValue};
use super::incidence::merge;
use super::{Arm, AsWritten, Body, Cond, Invariant, Label, LowerError, Mdae, Mode, ModeId, ModeKind, VarId, Variable};
use crate::flat::eval::{Env, Value};
use crate::flat::{self, Block, FlatEquation, FlatModel, Source, Type, Variability};
use crate::syntax::SourceFile;
use crate::syntax::ast::*;
use crate::syntax::printer::expr::{expr_to_string, write_cref};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What a name in an equation stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NameKind {
    /// A real unknown of the continuous structure.
    Unknown(VarId),
    /// A known real: parameter, constant, top-level input, discrete real.
    Known,
    /// A non-parameter Boolean variable: a mode variable once used in a condition.
    Boolean,
    /// Integer, String, enumeration or clock variables (not analysed).
    Other,
}

/// A [`NameKind`] in 4 bytes (one per scalar, 10^5 in a large model, held through the
/// lowering at the main job's peak; issue 15): an unknown's id, or a value above every id.
#[derive(Clone, Copy, Debug)]
pub(super) struct PackedKind(u32);

impl PackedKind {
    const KNOWN: u32 = u32::MAX;
    const BOOLEAN: u32 = u32::MAX - 1;
    const OTHER: u32 = u32::MAX - 2;

    fn of(kind: NameKind) -> PackedKind {
        PackedKind(match kind {
            NameKind::Unknown(v) => {
                assert!(v.0 < Self::OTHER, "too many unknowns");
                v.0
            }
            NameKind::Known => Self::KNOWN,
            NameKind::Boolean => Self::BOOLEAN,
            NameKind::Other => Self::OTHER,
        })
    }

    fn get(self) -> NameKind {
        match self.0 {
            Self::KNOWN => NameKind::Known,
            Self::BOOLEAN => NameKind::Boolean,
            Self::OTHER => NameKind::Other,
            v => NameKind::Unknown(VarId(v)),
        }
    }
}

/// The lowering of a flat model borrowed for `'a` whose equations as written borrow
/// from the file `'d` (so does the mDAE it builds).
pub(super) struct Lowering<'a, 'd> {
    pub(super) file: &'a SourceFile,
    pub(super) flat: &'a FlatModel<'d>,
    pub(super) env: Env<'a>,
    /// What each scalar of `flat.vars` is ([`Lowering::kind`] by name).
    pub(super) kinds: Vec<PackedKind>,
    pub(super) modes: HashMap<String, ModeId>,
    pub(super) out: Mdae<'d>,
    /// How many real unknowns have an id (`out.vars` is made from the flat variables once
    /// the equations are lowered).
    unknowns: u32,
    ids: LineCounts,
    /// The incidence of the equation being lowered (reused: no allocation an equation).
    entries: Vec<super::incidence::Entry>,
    /// Non-parameter Integer and enumeration variables, candidates for a finite domain.
    integers: HashSet<Text>,
    enumerations: HashSet<Text>,
    /// Finite domains ([`domains`]); the one-hot modes are made at the first comparison.
    pub(super) domains: BTreeMap<String, Vec<DomainValue>>,
    /// The unknowns the incidence being computed reads through a whole array or record.
    pub(super) whole_reads: Vec<VarId>,
    /// Inside `noEvent(…)` or `smooth(…)`: conditions generate no events there (omc
    /// makes no zero crossing inside either), and their atoms keep `noEvent`.
    pub(super) no_events: u32,
}

/// How many equations of each line have taken an id (`e8`, `e8_2`, …): a bit per line of
/// the model class for the lines that have one (where a count per line took 4 bytes a
/// line: a model of 10^5 equations, at the main job's peak; issue 15), the counts of the
/// lines with more, and of the lines outside the class, in a map.
struct LineCounts {
    first: usize,
    once: Vec<u64>,
    more: HashMap<u32, u32>,
}

impl LineCounts {
    /// Counts for the lines of `span` in `file`.
    fn over(file: &SourceFile, span: crate::syntax::Span) -> LineCounts {
        let (first, _) = file.line_col(span.start as usize);
        let (last, _) = file.line_col(span.end as usize);
        LineCounts { first, once: vec![0; (last + 1 - first).div_ceil(64)], more: HashMap::new() }
    }

    /// Counts one more equation on `line`: how many have.
    fn next(&mut self, line: u32) -> u32 {
        let k = (line as usize).wrapping_sub(self.first);
        if let Some(bits) = self.once.get_mut(k / 64) {
            let bit = 1 << (k % 64);
            if *bits & bit == 0 {
                *bits |= bit;
                return 1;
            }
            let n = self.more.entry(line).or_insert(1);
            *n += 1;
            return *n;
        }
        let n = self.more.entry(line).or_insert(0);
        *n += 1;
        *n
    }
}

/// A residual under construction: mutually exclusive arms covering every mode.
struct Residual<'r> {
    arms: Vec<(Cond, &'r Expr, &'r Expr)>,
    first: &'r crate::syntax::ast::Equation,
}

/// Lowers the model class of `def`: reads it as a flat model ([`flat::flatten`]), then
/// lowers that.
pub fn lower<'d>(def: &'d StoredDefinition, file: &SourceFile) -> Result<Mdae<'d>, LowerError> {
    let model = flat::flatten(def).map_err(|e| LowerError::new(e.span, e.message))?;
    lower_flat(def, model, file)
}

/// Lowers the continuous part of `model` (read from `def`) into an mDAE, which keeps
/// the model's borrows of `def` (its equations as written) and its passed equations.
/// The flat model is taken apart as it is read (its equations while they are lowered,
/// its variables into the mDAE's last), so that the two are not both held whole (a model
/// of 10^5 equations peaks here in the main job; issue 15).
pub fn lower_flat<'d>(
    def: &StoredDefinition,
    mut model: FlatModel<'d>,
    file: &SourceFile,
) -> Result<Mdae<'d>, LowerError> {
    model.index.forget_order(); // only looked up from here on
    let equations = std::mem::take(&mut model.equations);
    let mut out = lower_equations(def, &model, equations, file)?;
    let FlatModel { vars, passed, .. } = model;
    out.passed = passed;
    out.vars = vars.into_iter().filter(|v| v.is_unknown()).map(|v| Variable { name: v.name, span: v.span }).collect();
    out.vars.shrink_to_fit(); // held to the end of the job: no spare room
    Ok(out)
}

/// [`lower_flat`] but the variables and the passed equations: the continuous equations
/// `equations` of `model` (each dropped once lowered).
fn lower_equations<'d>(
    def: &StoredDefinition,
    model: &FlatModel<'d>,
    equations: Vec<FlatEquation<'d>>,
    file: &SourceFile,
) -> Result<Mdae<'d>, LowerError> {
    let class =
        flat::model_class(def).ok_or_else(|| LowerError::new(def.span, "no model or class to analyse in this file"))?;
    let ClassBody::Long(comp) = &class.body else {
        return Err(LowerError::new(class.span, "the model must be a long class definition (`model M … end M;`)"));
    };
    let mut l = Lowering {
        file,
        flat: model,
        env: Env { bindings: &model.bindings },
        kinds: Vec::with_capacity(model.vars.len()),
        modes: HashMap::new(),
        out: Mdae { name: model.name.clone(), ..Mdae::default() },
        unknowns: 0,
        ids: LineCounts::over(file, class.span),
        entries: Vec::new(),
        integers: HashSet::new(),
        enumerations: HashSet::new(),
        domains: BTreeMap::new(),
        whole_reads: Vec::new(),
        no_events: 0,
    };
    for v in &model.vars {
        l.declare(v);
    }
    let declared = |n: &str| model.find(n).is_some();
    let names =
        domains::Names { integers: &l.integers, enumerations: &l.enumerations, declared: &declared, env: &l.env };
    l.domains = domains::infer(comp, &names);
    // Continuous equations and passed ones, in source order (asserts make invariants).
    let mut passed = model.passed.iter().peekable();
    // Room for one row an equation, one entry an unknown (the rest grows by half).
    l.out.equations.reserve_exact(equations.len());
    l.out.incidence.reserve(equations.len(), l.unknowns as usize);
    for fe in consumed(equations) {
        let start = match &fe {
            FlatEquation::Real { equation } => equation.span().start,
            FlatEquation::Block(b) => b.span.start,
        };
        while let Some(p) = passed.next_if(|p| p.span().start < start) {
            l.passed(p)?;
        }
        match fe {
            // As written: the mDAE borrows its sides from the file.
            FlatEquation::Real { equation: Source::Written(equation) } => {
                for r in l.residuals(equation)? {
                    l.push_residual(r, Cow::Borrowed, Some)?;
                }
            }
            FlatEquation::Real { equation: Source::Generated(equation) } => {
                for r in l.residuals(&equation)? {
                    l.push_residual(r, |e| Cow::Owned(e.clone()), |_| None)?;
                }
            }
            FlatEquation::Block(b) => l.block(&b),
        }
    }
    for p in passed {
        l.passed(p)?;
    }
    l.mode_equation_invariants();
    l.time_interval_invariants();
    l.out.equations.shrink_to_fit();
    l.out.incidence.shrink_to_fit();
    Ok(l.out)
}

/// The items of `v` in order, by value, the room of those taken freed as it goes (by
/// halves): the flat equations are not held whole beside the mDAE they become.
fn consumed<T>(mut v: Vec<T>) -> impl Iterator<Item = T> {
    v.reverse();
    std::iter::from_fn(move || {
        let item = v.pop()?;
        if v.len() < v.capacity() / 2 {
            v.shrink_to_fit();
        }
        Some(item)
    })
}

/// The variable name `e` refers to, if it is a plain or subscripted reference.
pub(super) fn ref_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.as_str().to_string()),
        ExprKind::Ref(r) => {
            let mut s = String::new();
            write_cref(&mut s, r);
            Some(s)
        }
        _ => None,
    }
}

impl<'a, 'd> Lowering<'a, 'd> {
    /// What the scalar `name` is (`None`: not a scalar of the model).
    pub(super) fn kind(&self, name: &str) -> Option<NameKind> {
        self.flat.find(name).map(|k| self.kinds[k].get())
    }

    fn declare(&mut self, v: &flat::Var) {
        let fixed = v.is_fixed();
        let kind = match v.ty {
            Type::Real if v.is_unknown() => {
                self.unknowns += 1;
                NameKind::Unknown(VarId(self.unknowns - 1))
            }
            Type::Real => NameKind::Known,
            Type::Boolean if !fixed => NameKind::Boolean,
            Type::Boolean => NameKind::Known,
            Type::Integer if !fixed => {
                self.integers.insert(v.name);
                NameKind::Other
            }
            Type::Enumeration if !fixed => {
                self.enumerations.insert(v.name);
                NameKind::Other
            }
            _ => NameKind::Other,
        };
        if v.is_time_invariant() {
            self.out.time_invariant.insert(v.name.to_string());
        }
        debug_assert!(v.variability != Variability::Continuous || v.ty != Type::Real || kind != NameKind::Known);
        self.kinds.push(PackedKind::of(kind));
    }

    /// A passed equation: an `assert` on mode variables is a mode invariant.
    fn passed(&mut self, eq: &crate::syntax::ast::Equation) -> Result<(), LowerError> {
        let EquationKind::Call(c) = &eq.kind else { return Ok(()) };
        if c.function.text.as_str() != "assert" {
            return Ok(());
        }
        if let FunctionArgs::List { positional, .. } = &c.args
            && let Some(cond) = positional.first()
            && self.only_mode_variables(cond)
        {
            let cond = self.cond(cond)?;
            self.out.invariants.push(Invariant { cond, span: eq.span() });
        }
        Ok(())
    }

    /// One residual per row of a block, each reading all of the block's unknowns.
    fn block(&mut self, b: &Block) {
        let incidence: Vec<(VarId, u8)> = b
            .unknowns
            .iter()
            .filter_map(|&(k, order)| match self.kind(&self.flat.vars[k].name) {
                Some(NameKind::Unknown(v)) => Some((v, order)),
                _ => None,
            })
            .collect();
        let (line, _) = self.file.line_col(b.span.start as usize);
        let zero = Expr::new(ExprKind::Number(text("0")), b.span);
        for row in 0..b.rows {
            let label = self.fresh_id(line as u32);
            let body = Body::simple(Cow::Owned(zero.clone()), Cow::Owned(zero.clone()));
            let rows = incidence.iter().map(|&(v, order)| (v, order, Cond::True));
            let e = self.out.push(label, line as u32, b.span, body, rows);
            self.out.as_written.insert(e, AsWritten::Block { what: b.what.clone(), span: b.span });
            self.out.texts.insert(e, format!("{} (equation {} of {})", b.what, row + 1, b.rows));
        }
    }

    fn fresh_id(&mut self, line: u32) -> Label {
        Label::Line { line, k: self.ids.next(line) }
    }

    /// True when `e` is built from non-parameter Boolean variables with `and`/`or`/`not`.
    fn only_mode_variables(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Ref(_) => {
                ref_name(e).is_some_and(|n| self.kind(&n) == Some(NameKind::Boolean))
            }
            ExprKind::Unary(UnOp::Not, x) => self.only_mode_variables(x),
            ExprKind::Binary(BinOp::And | BinOp::Or, xs) => xs.iter().all(|x| self.only_mode_variables(x)),
            ExprKind::Bool(_) => true,
            _ => false,
        }
    }

    /// The residuals of a simple or if-equation (an if-equation pairs its branches).
    fn residuals<'r>(&mut self, eq: &'r crate::syntax::ast::Equation) -> Result<Vec<Residual<'r>>, LowerError> {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => Ok(vec![Residual { arms: vec![(Cond::True, lhs, rhs)], first: eq }]),
            EquationKind::If { branches, else_branch } => {
                let mut arms: Vec<(Cond, Vec<Residual<'r>>)> = Vec::new();
                let mut rest = Cond::True;
                for (c, body) in branches {
                    let c = self.cond(c)?;
                    let here = Cond::and(rest.clone(), c.clone());
                    rest = Cond::and(rest, Cond::not(c));
                    if here != Cond::False {
                        arms.push((here, self.branch(body)?));
                    }
                    if rest == Cond::False {
                        break;
                    }
                }
                if rest != Cond::False {
                    let body = else_branch.as_deref().unwrap_or(&[]);
                    arms.push((rest, self.branch(body)?));
                }
                self.pair(eq, arms)
            }
            _ => Ok(Vec::new()),
        }
    }

    fn branch<'r>(&mut self, body: &'r [crate::syntax::ast::Equation]) -> Result<Vec<Residual<'r>>, LowerError> {
        let mut out = Vec::new();
        for eq in body {
            match &eq.kind {
                EquationKind::Simple { .. } | EquationKind::If { .. } => out.extend(self.residuals(eq)?),
                _ => {
                    return Err(LowerError::new(
                        eq.span(),
                        "unsupported construct inside a multimode if-equation (only real equations can be paired)",
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Pairs the i-th residual of every branch into one multimode residual.
    fn pair<'r>(
        &mut self,
        eq: &'r crate::syntax::ast::Equation,
        arms: Vec<(Cond, Vec<Residual<'r>>)>,
    ) -> Result<Vec<Residual<'r>>, LowerError> {
        let Some(n) = arms.first().map(|(_, rs)| rs.len()) else { return Ok(Vec::new()) };
        if let Some((_, rs)) = arms.iter().find(|(_, rs)| rs.len() != n) {
            let (l, _) = self.file.line_col(eq.span().start as usize);
            return Err(LowerError::new(
                eq.span(),
                format!(
                    "the if-equation at line {l} has branches with different numbers of real equations ({n} and {}); \
                     a multimode equation needs the same count in every branch",
                    rs.len()
                ),
            ));
        }
        let mut out: Vec<Residual<'r>> = Vec::with_capacity(n);
        let mut columns: Vec<Vec<Residual<'r>>> = arms.iter().map(|_| Vec::new()).collect();
        let guards: Vec<Cond> = arms.iter().map(|(c, _)| c.clone()).collect();
        for (k, (_, rs)) in arms.into_iter().enumerate() {
            columns[k] = rs;
        }
        for i in 0..n {
            let mut merged = Vec::new();
            let mut first = None;
            for (k, col) in columns.iter().enumerate() {
                let r = &col[i];
                first.get_or_insert(r.first);
                for (g, l, rr) in &r.arms {
                    let g = Cond::and(guards[k].clone(), g.clone());
                    if g != Cond::False {
                        merged.push((g, *l, *rr));
                    }
                }
            }
            out.push(Residual { arms: merged, first: first.unwrap_or(eq) });
        }
        Ok(out)
    }

    /// The residual `r` as an equation of the mDAE, its sides kept by `side` (borrowed
    /// from the file where `r` is as written there), its body the equation itself where
    /// `whole` gives it so (a simple equation as written).
    fn push_residual<'r>(
        &mut self,
        r: Residual<'r>,
        side: impl Fn(&'r Expr) -> Cow<'d, Expr>,
        whole: impl Fn(&'r crate::syntax::ast::Equation) -> Option<&'d crate::syntax::ast::Equation>,
    ) -> Result<(), LowerError> {
        let mut entries = std::mem::take(&mut self.entries);
        entries.clear();
        self.whole_reads.clear();
        for (g, l, rr) in &r.arms {
            self.incidence(l, g, 0, &mut entries)?;
            self.incidence(rr, g, 0, &mut entries)?;
        }
        merge(&mut entries);
        let (line, _) = self.file.line_col(r.first.span().start as usize);
        let label = match r.first.label() {
            Some(label) => Label::Written(label.text),
            None => self.fresh_id(line as u32),
        };
        let body = match r.arms.as_slice() {
            &[(Cond::True, l, rr)] => match (&r.first.kind, whole(r.first)) {
                (EquationKind::Simple { lhs, rhs }, Some(eq)) if std::ptr::eq(lhs, l) && std::ptr::eq(rhs, rr) => {
                    Body::Written(eq)
                }
                _ => Body::simple(side(l), side(rr)),
            },
            arms => Body::Arms(Box::new(
                arms.iter().map(|&(ref g, l, rr)| Arm { when: g.clone(), lhs: side(l), rhs: side(rr) }).collect(),
            )),
        };
        let e = self.out.push(label, line as u32, r.first.span(), body, entries.drain(..));
        self.entries = entries;
        if !self.whole_reads.is_empty() {
            let mut vars = std::mem::take(&mut self.whole_reads);
            vars.sort_unstable();
            vars.dedup();
            self.out.as_written.insert(e, AsWritten::ReadsWhole(vars));
        }
        Ok(())
    }

    /// A Boolean condition as a [`Cond`]: static parts evaluated, Boolean variables become
    /// mode variables, any other condition a mode atom (shared by its canonical text).
    pub(super) fn cond(&mut self, e: &Expr) -> Result<Cond, LowerError> {
        let c = self.cond_of(e, self.no_events > 0)?;
        self.out.conditions.entry(expr_to_string(e)).or_insert_with(|| c.clone());
        Ok(c)
    }

    /// [`Lowering::cond`] without its bookkeeping. `no_events`: inside `noEvent(…)` (or
    /// `smooth(…)`), where each relation is an atom that keeps `noEvent` (`noEvent(v >= 0)`),
    /// so that the output evaluates it as the input does, without state events: a flow that
    /// reaches exactly zero leaves the mode `v >= 0` in the input, an event-driven `v >= 0`
    /// (with omc's hysteresis) would not.
    fn cond_of(&mut self, e: &Expr, no_events: bool) -> Result<Cond, LowerError> {
        if let Some(Value::Bool(b)) = self.env.eval(e) {
            return Ok(if b { Cond::True } else { Cond::False });
        }
        let sub = |l: &mut Self, x: &Expr| if no_events { l.cond_of(x, true) } else { l.cond(x) };
        Ok(match &e.kind {
            ExprKind::Bool(b) => {
                if *b {
                    Cond::True
                } else {
                    Cond::False
                }
            }
            ExprKind::Unary(UnOp::Not, x) => Cond::not(sub(self, x)?),
            ExprKind::Binary(BinOp::And, xs) => Cond::and(sub(self, &xs[0])?, sub(self, &xs[1])?),
            ExprKind::Binary(BinOp::Or, xs) => Cond::or(sub(self, &xs[0])?, sub(self, &xs[1])?),
            ExprKind::Call(c) if c.function.text.as_str() == "noEvent" => match &c.args {
                FunctionArgs::List { positional, named } if positional.len() == 1 && named.is_empty() => {
                    self.cond_of(&positional[0], true)?
                }
                _ => self.atom(e),
            },
            ExprKind::Name(_) | ExprKind::Ref(_)
                if ref_name(e).is_some_and(|n| self.kind(&n) == Some(NameKind::Boolean)) =>
            {
                let n = ref_name(e).expect("a reference");
                Cond::Mode(self.mode(&n, ModeKind::Variable))
            }
            ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), xs)
                if self.compare(*op, &xs[0], &xs[1]).is_some() =>
            {
                self.compare(*op, &xs[0], &xs[1]).unwrap_or(Cond::False)
            }
            _ if no_events => {
                let args = FunctionArgs::List { positional: vec![e.clone()].into(), named: ThinList::default() };
                let call = Call { function: Ident { text: text("noEvent"), span: e.span }, args };
                self.atom(&Expr { kind: ExprKind::Call(Box::new(call)), span: e.span })
            }
            _ => self.atom(e),
        })
    }

    /// `k op v` or `v op k` for a variable `k` with a finite domain and a static value `v`:
    /// the disjunction of the one-hot modes `k == w` whose value w satisfies the relation.
    /// `None` when the comparison is not of that form (it is then an atom).
    fn compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<Cond> {
        let (var, value, op) = match (self.domain_var(a), self.domain_var(b)) {
            (Some(k), None) => (k, self.literal(b)?, op),
            (None, Some(k)) => {
                let flipped = match op {
                    BinOp::Lt => BinOp::Gt,
                    BinOp::Le => BinOp::Ge,
                    BinOp::Gt => BinOp::Lt,
                    BinOp::Ge => BinOp::Le,
                    other => other,
                };
                (k, self.literal(a)?, flipped)
            }
            _ => return None,
        };
        let ordered = matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
        if ordered && !matches!(value, DomainValue::Int(_)) {
            return None;
        }
        let domain = self.domains[&var].clone();
        let modes = self.domain_modes(&var);
        let holds = |w: &DomainValue| match op {
            BinOp::Eq => *w == value,
            BinOp::Ne => *w != value,
            BinOp::Lt => w < &value,
            BinOp::Le => w <= &value,
            BinOp::Gt => w > &value,
            _ => w >= &value,
        };
        Some(
            domain
                .iter()
                .zip(modes)
                .filter(|(w, _)| holds(w))
                .fold(Cond::False, |acc, (_, m)| Cond::or(acc, Cond::Mode(m))),
        )
    }

    /// The name of a variable with a finite domain, if `e` is one.
    fn domain_var(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(n) if self.domains.contains_key(n.as_str()) => Some(n.as_str().to_string()),
            _ => None,
        }
    }

    /// A static Integer value or an enumeration literal (a name that is not declared).
    fn literal(&self, e: &Expr) -> Option<DomainValue> {
        match &e.kind {
            ExprKind::Name(n) if self.flat.find(n.as_str()).is_none() => {
                Some(DomainValue::Literal(n.as_str().to_string()))
            }
            _ => match self.env.eval(e)? {
                Value::Num(v) if v.fract() == 0.0 && v.abs() < 1e15 => Some(DomainValue::Int(v as i64)),
                _ => None,
            },
        }
    }

    /// The one-hot modes `k == w` of `var`'s domain, made (with the exclusivity invariant,
    /// exactly one of them) at the first comparison.
    fn domain_modes(&mut self, var: &str) -> Vec<ModeId> {
        let domain = self.domains[var].clone();
        let key = |w: &DomainValue| format!("{var} == {}", w.text());
        if let Some(first) = self.modes.get(&key(&domain[0])) {
            let first = first.index() as u32;
            return (0..domain.len() as u32).map(|k| ModeId(first + k)).collect();
        }
        let ids: Vec<ModeId> = domain
            .iter()
            .map(|w| {
                let id = ModeId(self.out.modes.len() as u32);
                let kind = ModeKind::Value { var: var.to_string(), value: w.text() };
                self.out.modes.push(Mode { name: key(w), kind });
                self.modes.insert(key(w), id);
                id
            })
            .collect();
        self.out.invariants.push(Invariant {
            cond: Cond::exactly_one(&ids),
            span: self.flat.var(var).expect("a declared variable").span,
        });
        ids
    }

    fn atom(&mut self, e: &Expr) -> Cond {
        let text = expr_to_string(e);
        if let Some(m) = self.modes.get(&text) {
            return Cond::Mode(*m);
        }
        let n = self.out.modes.iter().filter(|m| matches!(m.kind, ModeKind::Atom { .. })).count() + 1;
        let mut name = format!("a{n}");
        while self.flat.find(name.as_str()).is_some() {
            name.push('_');
        }
        let id = ModeId(self.out.modes.len() as u32);
        self.out.modes.push(Mode { name, kind: ModeKind::Atom { expr: text.clone() } });
        self.out.atom_exprs.insert(id, e.clone());
        self.modes.insert(text, id);
        Cond::Mode(id)
    }

    fn mode(&mut self, name: &str, kind: ModeKind) -> ModeId {
        if let Some(m) = self.modes.get(name) {
            return *m;
        }
        let id = ModeId(self.out.modes.len() as u32);
        self.out.modes.push(Mode { name: name.to_string(), kind });
        self.modes.insert(name.to_string(), id);
        id
    }
}
