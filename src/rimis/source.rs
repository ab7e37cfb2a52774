//! What the transformation keeps from the input: the model class, the classes it needs
//! (functions, records, types; nested in the output model, renamed to plain
//! identifiers so every tool resolves the calls and types), its declarations, the equations that
//! pass through the mDAE (`Mdae::passed`: mode equations, when-equations, asserts, clocked
//! partitions, blocks kept as written), and its initial and algorithm sections; from its
//! declarations, those of the replicates (with the attributes of the variable each
//! replicates, issue 30 point 3) and the start values INIT gives mode variables.

use super::RimisError;
use super::names::Namer;
use crate::mdae::{Mdae, ModeId, ModeKind};
use crate::syntax::Span;
use crate::syntax::ast::{
    ClassBody, ClassDef, ClassKind, ClassMod, ClassPart, Clause, Component, Declaration, Element, Equation,
    EquationKind, Expr, ExprKind, ModArg, Modification, Prefixes, StoredDefinition, ThinList, TypeSpec,
};
use crate::syntax::ast::{Comment, ComponentRef, Ident, RefPart, text};
use crate::syntax::printer::write_cref;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

pub(crate) struct Source<'a> {
    pub class: &'a ClassDef,
    mdae: &'a Mdae<'a>,
    pub classes: Vec<ClassDef>,
    pub elements: Vec<Element>,
    /// Equations of the equation sections that the mDAE does not hold.
    pub kept: Vec<Equation>,
    pub kept_parts: Vec<ClassPart>,
    /// Declared name → (element, declaration) in `elements` ([`Source::declaration`]).
    by_name: std::cell::OnceCell<FxHashMap<String, (usize, usize)>>,
}

impl<'a> Source<'a> {
    pub(crate) fn read(def: &'a StoredDefinition, mdae: &'a Mdae) -> Result<Source<'a>, RimisError> {
        let class = crate::flat::model_class(def)
            .ok_or_else(|| RimisError::new(def.span, "no model or class to transform in this file"))?;
        let classes: Vec<ClassDef> = beside(def, class).into_iter().cloned().collect();
        let ClassBody::Long(comp) = &class.body else {
            return Err(RimisError::new(class.span, "the model must be a long class definition"));
        };
        let mut src = Source {
            class,
            mdae,
            classes,
            elements: Vec::new(),
            kept: mdae.passed.iter().map(|e| e.clone().into_owned()).collect(),
            kept_parts: Vec::new(),
            by_name: std::cell::OnceCell::new(),
        };
        for part in &comp.parts {
            match part {
                ClassPart::Elements { elements, .. } => {
                    src.elements.extend(elements.iter().filter(|e| !matches!(e, Element::Class(_))).cloned());
                }
                ClassPart::Equations { initial: false, .. } => {}
                other => src.kept_parts.push(other.clone()),
            }
        }
        Ok(src)
    }

    /// Every equation of the input's equation sections, in order (pass-through). Copied
    /// only here, at exact length: a model without modes can be large (issue 15: a copy
    /// kept from [`Source::read`] on, then converted, was a quarter of the peak heap).
    pub(crate) fn all_equations(&self) -> Vec<Equation> {
        let ClassBody::Long(comp) = &self.class.body else { return Vec::new() };
        let sections = || {
            comp.parts.iter().filter_map(|p| match p {
                ClassPart::Equations { initial: false, equations, .. } => Some(equations),
                _ => None,
            })
        };
        let mut out = Vec::with_capacity(sections().map(|eqs| eqs.len()).sum());
        out.extend(sections().flatten().cloned());
        out
    }

    /// New plain names for the nested classes ([`class_renames`]).
    pub(crate) fn class_renames(&self, namer: &mut Namer) -> BTreeMap<String, String> {
        class_renames(self.class.name.text.as_str(), &self.classes, namer)
    }

    /// `m = g` for a Boolean mode variable m.
    pub(crate) fn mode_equation(&self, eq: &Equation) -> Option<(ModeId, Expr)> {
        let EquationKind::Simple { lhs, rhs } = &eq.kind else { return None };
        let n = match &lhs.kind {
            ExprKind::Name(n) => n.as_str().to_string(),
            ExprKind::Ref(r) => cref_text(r),
            _ => return None,
        };
        let m = self.mdae.modes.iter().position(|m| m.name == n && m.kind == ModeKind::Variable)?;
        Some((ModeId(m as u32), rhs.clone()))
    }

    /// Every mode equation: (mode variable, guard).
    pub(crate) fn mode_equations(&self) -> Vec<(String, Expr)> {
        self.kept
            .iter()
            .filter_map(|eq| self.mode_equation(eq).map(|(m, g)| (self.mdae.mode(m).name.clone(), g)))
            .collect()
    }

    /// The first declaration of `var` (by an index built on first use: a scan per mode
    /// variable and per state replicate was quadratic on Westinghouse). omc's scalarised
    /// `Real 'x'[1];` declares the scalar `'x'[1]` ([`declared_name`]).
    pub(crate) fn declaration(&self, var: &str) -> Option<&Declaration> {
        let index = self.by_name.get_or_init(|| {
            let mut index = FxHashMap::default();
            for (e, element) in self.elements.iter().enumerate() {
                if let Element::Component(c) = element {
                    for (k, d) in c.declarations().iter().enumerate() {
                        index.entry(declared_name(d)).or_insert((e, k));
                    }
                }
            }
            index
        });
        let &(e, k) = index.get(var)?;
        match &self.elements[e] {
            Element::Component(c) => c.declarations().get(k),
            _ => None,
        }
    }

    pub(crate) fn modifier(&self, var: &str, arg: &str) -> Option<&Expr> {
        let d = self.declaration(var)?;
        let cm = d.modification.as_ref()?.class_mod.as_ref()?;
        let a = cm.args.iter().find(|a| a.name.text.as_str() == arg)?;
        a.value.as_ref()
    }

    /// The start value of a Boolean variable (false when absent or not a literal).
    pub(crate) fn start_of(&self, var: &str) -> bool {
        matches!(self.modifier(var, "start").map(|e| &e.kind), Some(ExprKind::Bool(true)))
    }

    /// The input's elements, `fixed` removed from the declarations of `names`.
    pub(crate) fn elements_without_fixed(&self, names: &[String]) -> Vec<Element> {
        let names: std::collections::BTreeSet<&str> = names.iter().map(String::as_str).collect();
        let mut out = self.elements.clone();
        for e in &mut out {
            let Element::Component(c) = e else { continue };
            for d in c.declarations_mut() {
                if !names.is_empty()
                    && names.contains(declared_name(d).as_str())
                    && let Some(p) = d.parts_mut()
                {
                    p.modification = without(p.modification.take(), "fixed");
                    d.shrink();
                }
            }
        }
        out
    }

    /// The input's elements with `start = value` given to the declarations of `starts`
    /// that have no start value of their own.
    pub(crate) fn add_starts(elements: &mut [Element], starts: &BTreeMap<String, Expr>) {
        if starts.is_empty() {
            return;
        }
        for e in elements {
            let Element::Component(c) = e else { continue };
            let wanted = |d: &Declaration| {
                let has_start = d
                    .modification
                    .as_ref()
                    .and_then(|m| m.class_mod.as_ref())
                    .is_some_and(|cm| cm.args.iter().any(|a| a.name.text.as_str() == "start"));
                (!has_start).then(|| starts.get(&declared_name(d))).flatten()
            };
            if !c.declarations().iter().any(|d| wanted(d).is_some()) {
                continue;
            }
            c.edit(|clause| {
                for d in clause.declarations.iter_mut() {
                    let Some(value) = wanted(d) else { continue };
                    let mut m = d.modification.clone().map(|m| *m).unwrap_or(Modification {
                        class_mod: None,
                        value: None,
                        span: Span::DUMMY,
                    });
                    let mut args: Vec<ModArg> = m.class_mod.as_ref().map(|cm| cm.args.to_vec()).unwrap_or_default();
                    // `x[1]`, an array of one element declared for the mode variable `x[1]`:
                    // its start value is an array (TankPort's `regularFlow[1](start = {…})`).
                    let value = match d.dims.is_empty() {
                        true => value.clone(),
                        false => Expr::new(ExprKind::Array(Box::new(vec![value.clone()])), Span::DUMMY),
                    };
                    args.insert(0, mod_arg("start", value));
                    m.class_mod = Some(ClassMod { args: args.into_boxed_slice(), span: Span::DUMMY });
                    *d = Declaration::new(
                        d.name().into_owned(),
                        d.dims.clone(),
                        Some(Box::new(m)),
                        d.condition.clone(),
                        d.comment.clone(),
                        d.span(),
                    );
                }
            });
        }
    }

    /// Whether `var` is declared a parameter or a constant, known before the simulation
    /// starts (not a parameter computed by the initialisation, `fixed = false`).
    pub(crate) fn is_parameter(&self, var: &str) -> bool {
        use crate::syntax::ast::Prefix;
        let Some((c, _)) = self.component(var) else { return false };
        (c.has(Prefix::Parameter) || c.has(Prefix::Constant))
            && !matches!(self.modifier(var, "fixed").map(|e| &e.kind), Some(ExprKind::Bool(false)))
    }

    /// Whether `var` is declared `fixed = true`.
    pub(crate) fn is_fixed(&self, var: &str) -> bool {
        matches!(self.modifier(var, "fixed").map(|e| &e.kind), Some(ExprKind::Bool(true)))
    }

    /// The declaration of `var` with its component clause.
    fn component(&self, var: &str) -> Option<(&Component, &Declaration)> {
        self.declaration(var)?;
        let &(e, k) = self.by_name.get()?.get(var)?;
        match &self.elements[e] {
            Element::Component(c) => Some((c, c.declarations().get(k)?)),
            _ => None,
        }
    }

    /// DECL: the declaration of the replicate `n`. A replicate of u^(0) (`of` = u) carries
    /// what u's declaration says of its value (issue 30 point 3): u's type when it is a named
    /// type without a modification of its own, and the modifiers [`CARRIED`] — the start value
    /// (the Newton guess of an algebraic replicate, the initial value of a state replicate),
    /// nominal, bounds, units —, never `fixed`, which `fixed` decides (INIT). A replicate of a
    /// derivative carries nothing of u (its unit and scale are not u's).
    pub(crate) fn replicate_decl(&self, n: &str, of: Option<&str>, fixed: bool) -> Element {
        self.carrying_decl(n, of, fixed, false)
    }

    /// `discrete Real n(start = …, fixed = true)` carrying `of`'s attributes: a left limit
    /// sampled in a `when` (`sections::entry_step`), `pre(n)` = its start at t = 0.
    pub(crate) fn sample_decl(&self, n: &str, of: &str) -> Element {
        self.carrying_decl(n, Some(of), true, true)
    }

    fn carrying_decl(&self, n: &str, of: Option<&str>, fixed: bool, discrete: bool) -> Element {
        let source = of.and_then(|v| self.component(v));
        let mut args: Vec<ModArg> = source
            .and_then(|(_, d)| d.modification.as_ref()?.class_mod.as_ref())
            .map(|cm| cm.args.iter().filter(|a| CARRIED.contains(&a.name.text.as_str())).cloned().collect())
            .unwrap_or_default();
        if fixed {
            args.push(mod_arg("fixed", Expr { kind: ExprKind::Bool(true), span: Span::DUMMY }));
        }
        let class_mod = (!args.is_empty()).then(|| ClassMod { args: args.into_boxed_slice(), span: Span::DUMMY });
        let modification =
            class_mod.map(|cm| Box::new(Modification { class_mod: Some(cm), value: None, span: Span::DUMMY }));
        let ident = Ident { text: text(n), span: Span::DUMMY };
        let decl = Declaration::new(
            ComponentRef { parts: vec![RefPart { ident, subscripts: Default::default() }].into(), span: Span::DUMMY },
            ThinList::default(),
            modification,
            None,
            Comment::default(),
            Span::DUMMY,
        );
        // The source's type where it names one plainly (a type of the model's, `Temperature`).
        let type_spec = match source {
            Some((c, _)) if c.type_mod().is_none() && c.type_dims().is_empty() => c.type_spec().into_owned(),
            _ => TypeSpec::Name(Ident { text: text("Real"), span: Span::DUMMY }),
        };
        let mut prefixes = Prefixes::new();
        if discrete {
            prefixes.push(crate::syntax::ast::Prefix::Discrete);
        }
        Element::Component(Component::new(Clause {
            prefixes,
            type_spec,
            type_parts: None,
            declarations: vec![decl].into(),
            span: Span::DUMMY,
        }))
    }
}

/// `name = value` in a class modification.
fn mod_arg(name: &str, value: Expr) -> ModArg {
    ModArg { name: Ident { text: text(name), span: Span::DUMMY }, value: Some(value), rest: None, span: Span::DUMMY }
}

/// The modifiers of a variable that its replicates carry ([`Source::replicate_decl`]): what
/// describes its value, not how it is computed (`fixed` is INIT's; `stateSelect` is left
/// out: DIFF makes the state replicates states, and `never`/`avoid` would contradict it).
const CARRIED: [&str; 6] = ["start", "nominal", "min", "max", "unit", "displayUnit"];

/// The classes of `def` the output nests in its model `class`: the file's other classes
/// (Base Modelica: those of the package the model sits in), then those declared in the
/// model, in order.
pub(crate) fn beside<'a>(def: &'a StoredDefinition, class: &'a ClassDef) -> Vec<&'a ClassDef> {
    let mut out = Vec::new();
    for c in &def.classes {
        if std::ptr::eq(c, class) {
            continue;
        }
        // Base Modelica: the model sits in a package beside its functions and types.
        match &c.body {
            ClassBody::Long(_) if c.kind == ClassKind::Package => {
                out.extend(c.nested_classes().filter(|x| !std::ptr::eq(*x, class)));
            }
            _ => out.push(c),
        }
    }
    out.extend(class.nested_classes());
    out
}

/// The plain name a nested class `c` of the model `model` wants, if its name is dotted
/// or quoted (`WaterTank.inputFlow` → `inputFlow`, `'M.f'` → `f`, `A.B.f` → `A_B_f`): a
/// nested class cannot be declared under a dotted name.
pub(crate) fn plain_name(model: &str, c: &ClassDef) -> Option<String> {
    let model = model.trim_matches('\'');
    let old = c.name.text.as_str();
    let bare = old.trim_matches('\'');
    let bare = bare.strip_prefix(model).and_then(|r| r.strip_prefix('.')).unwrap_or(bare);
    let want = Namer::plain(bare);
    (want != old).then_some(want)
}

/// New plain names for the nested classes of the model `model` ([`plain_name`]).
pub(crate) fn class_renames(model: &str, classes: &[ClassDef], namer: &mut Namer) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for c in classes {
        if let Some(want) = plain_name(model, c) {
            out.insert(c.name.text.as_str().to_string(), namer.fresh(&want));
        }
    }
    out
}

/// The input taken apart without a copy, for a model printed unchanged: what
/// [`Source::read`] and [`Source::all_equations`] copy out of the file, moved out of it
/// (a model without modes can be large: issue 15; its lists move whole).
pub(crate) struct Taken {
    /// The model class's name as written.
    pub name: crate::syntax::ast::Text,
    /// The classes to nest, in [`Source::read`]'s order.
    pub classes: Vec<ClassDef>,
    pub elements: Vec<Element>,
    /// The equations of the equation sections, in order.
    pub equations: Vec<Equation>,
    pub kept_parts: Vec<ClassPart>,
    /// New plain names of the classes ([`class_renames`]).
    pub renames: BTreeMap<String, String>,
}

impl Taken {
    pub(crate) fn from(mut def: StoredDefinition) -> Result<Taken, RimisError> {
        let span = def.span;
        let model = crate::flat::model_class(&def)
            .ok_or_else(|| RimisError::new(span, "no model or class to transform in this file"))?;
        // The namer (every identifier of the file) only when a class is renamed.
        let model_name = model.name.text;
        let renamed = beside(&def, model).into_iter().any(|c| plain_name(&model_name, c).is_some());
        let mut namer = renamed.then(|| Namer::of(&def));
        let class = crate::flat::take_model_class(&mut def)
            .ok_or_else(|| RimisError::new(span, "no model or class to transform in this file"))?;
        let mut classes = Vec::new();
        for c in def.classes {
            match c.body {
                ClassBody::Long(comp) if c.kind == ClassKind::Package => {
                    for part in comp.parts {
                        if let ClassPart::Elements { elements, .. } = part {
                            classes.extend(elements.into_iter().filter_map(|e| match e {
                                Element::Class(x) => Some(*x),
                                _ => None,
                            }));
                        }
                    }
                }
                _ => classes.push(c),
            }
        }
        let ClassBody::Long(comp) = class.body else {
            return Err(RimisError::new(class.span, "the model must be a long class definition"));
        };
        let mut taken = Taken {
            name: class.name.text,
            classes,
            elements: Vec::new(),
            equations: Vec::new(),
            kept_parts: Vec::new(),
            renames: BTreeMap::new(),
        };
        for part in comp.parts {
            match part {
                ClassPart::Elements { elements, .. } if elements.iter().any(|e| matches!(e, Element::Class(_))) => {
                    for e in elements {
                        match e {
                            Element::Class(c) => taken.classes.push(*c),
                            other => taken.elements.push(other),
                        }
                    }
                }
                ClassPart::Elements { elements, .. } => append(&mut taken.elements, elements),
                ClassPart::Equations { initial: false, equations, .. } => append(&mut taken.equations, equations),
                other => taken.kept_parts.push(other),
            }
        }
        if let Some(namer) = &mut namer {
            taken.renames = class_renames(&model_name, &taken.classes, namer);
        }
        Ok(taken)
    }
}

/// `more` after `list`: moved whole when `list` is empty (no copy of a large list).
fn append<T>(list: &mut Vec<T>, mut more: Vec<T>) {
    if list.is_empty() {
        *list = more;
    } else {
        list.append(&mut more);
    }
}

fn without(m: Option<Box<Modification>>, arg: &str) -> Option<Box<Modification>> {
    let mut m = m?;
    if let Some(cm) = &mut m.class_mod {
        let args: Vec<_> = cm.args.iter().filter(|a| a.name.text.as_str() != arg).cloned().collect();
        cm.args = args.into_boxed_slice();
        if cm.args.is_empty() {
            m.class_mod = None;
        }
    }
    (m.class_mod.is_some() || m.value.is_some()).then_some(m)
}

/// Does `d` declare the scalar `var` (`x`, or an element `x[2]` omc scalarised)?
/// The name a declaration is found by: its name, with its subscripts when it has some
/// (omc's scalarised `Real 'x'[1];` is the scalar `'x'[1]`).
pub(crate) fn declared_name(d: &Declaration) -> String {
    let mut name = cref_text(&d.name());
    if !d.dims.is_empty() {
        crate::syntax::printer::expr::write_subscripts(&mut name, &d.dims);
    }
    name
}

fn cref_text(r: &ComponentRef) -> String {
    let mut s = String::new();
    write_cref(&mut s, r);
    s
}

/// `parameter Real name = value "doc";`, a declaration the output adds.
pub(crate) fn real_parameter(name: &str, value: &str, doc: &str) -> Element {
    added_declaration(&format!("parameter Real {name} = {value} \"{doc}\""))
}

/// A declaration the output adds, from its text without the `;`.
pub(crate) fn added_declaration(decl: &str) -> Element {
    let text = format!("model M\n  {decl};\nend M;\n");
    let def = crate::syntax::parse(&text).expect("a generated declaration parses");
    let Some(ClassBody::Long(comp)) = def.classes.into_iter().next().map(|c| c.body) else {
        unreachable!("a long class")
    };
    comp.parts
        .into_iter()
        .find_map(|p| match p {
            ClassPart::Elements { mut elements, .. } => elements.pop(),
            _ => None,
        })
        .expect("one element")
}
