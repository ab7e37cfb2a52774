//! The names a flattened model can use: its declarations (keys and types), the classes
//! of the file (functions, records, enumerations, types), the built-ins, and name
//! resolution over them.
//!
//! omc's flat names: a declaration `Real a.b[2].c[3]` declares the name `a.b[2].c` with
//! dimensions `[3]` (omc writes scalarised array elements one by one, `Real x[1]; Real
//! x[2];`, and real arrays `Real x[3]`); references carry any subscripts (`x[i]`, `a[1].b`).
//! Resolution is by the *base* name, every subscript dropped: a reference resolves when
//! its base is declared, when it is a prefix of declared names (a record or a component as
//! a whole: `b.c` with `Real b.c.x` declared), or when a prefix of it is declared (a field
//! of a record variable: `v.re` with `Complex v`). Quoted identifiers are one part each
//! (`'a.b'.c` has two parts).

use super::builtins;
use super::types::Ty;
use crate::flat::index::{Index, sorted_by};
use crate::syntax::ast::*;
use crate::syntax::printer::expr::{write_cref, write_subscripts};
use std::collections::{BTreeMap, BTreeSet};

/// One declared name of the model (names interned: a flat model declares 10^5 of them,
/// mostly plain identifiers the parser has interned already).
pub(super) struct Decl<'a> {
    /// The name with literal subscripts and dimensions as printed: `a.b[2].c[3]`.
    pub key: Text,
    /// Every subscript dropped: `a.b.c`.
    pub base: Text,
    pub ty: Ty,
    /// Declared with dimensions (on the type or the name).
    pub array: bool,
    pub component: &'a Component,
    pub decl: &'a Declaration,
}

impl Decl<'_> {
    pub fn has(&self, p: Prefix) -> bool {
        self.component.has(p)
    }

    /// The type as written (`Real`, `Modelica.Blocks.Types.Init`; `enumeration` for an
    /// inline one).
    pub fn type_name(&self) -> &str {
        match &*self.component.type_spec() {
            TypeSpec::Name(n) => n.text.as_str(),
            TypeSpec::Enumeration(_) => "enumeration",
        }
    }

    /// A parameter or a constant: its value is fixed before the simulation.
    pub fn is_fixed_value(&self) -> bool {
        self.has(Prefix::Parameter) || self.has(Prefix::Constant)
    }
}

/// What a name resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Resolved {
    /// Declared: the declarations with this base name (several for scalarised elements).
    Var(Vec<usize>),
    /// A prefix of declared names: a record or component taken as a whole.
    Aggregate,
    /// A field of the declared record variable(s) with this base name.
    Field(Vec<usize>),
    /// A literal of an enumeration (`E.a`, `StateSelect.prefer`, omc's type path of an
    /// inline enumeration).
    Literal,
    /// A class of the file (a function passed by name, a package constant's path).
    Class,
    Builtin,
}

/// The model's declarations and the file's classes.
pub(super) struct Scope<'a> {
    pub decls: Vec<Decl<'a>>,
    /// The first declaration of each base name, by base name (positions only: a flat
    /// model declares 10^5 names, at validation's peak, issue 15); [`Scope::next`] chains
    /// the others.
    by_base: Index,
    /// The next declaration with the same base name ([`NONE`]: the last).
    next: Vec<u32>,
    /// The part counts of the declared bases and of the class names.
    decl_counts: BTreeSet<usize>,
    class_counts: BTreeSet<usize>,
    /// Every class of the file by its written name and by its qualified names.
    pub classes: BTreeMap<String, &'a ClassDef>,
    /// The literals of every enumeration type of the file (by qualified name) and of
    /// every inline enumeration (under the empty name).
    enums: BTreeMap<String, BTreeSet<String>>,
}

/// The parts of a dotted name; a quoted identifier is one part, a leading dot dropped.
pub(super) fn parts(name: &str) -> Vec<&str> {
    let name = name.strip_prefix('.').unwrap_or(name);
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (k, c) in name.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '\'' => quoted = !quoted,
            '.' if !quoted => {
                out.push(&name[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(&name[start..]);
    out
}

/// A name as a path of plain parts, for resolution: quotes dropped and a quoted part read
/// as the path it spells (omc's Base Modelica writes the field `z` of `'ra1'` as `'ra1.z'`,
/// an element as `'ra1[2]'.…`), subscripts inside quotes dropped.
pub(super) fn normalize(name: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for p in parts(name) {
        match p.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
            Some(inner) => {
                let mut plain = String::new();
                let mut depth = 0u32;
                for c in inner.chars() {
                    match c {
                        '[' => depth += 1,
                        ']' => depth = depth.saturating_sub(1),
                        _ if depth == 0 => plain.push(c),
                        _ => {}
                    }
                }
                out.extend(plain.split('.').filter(|s| !s.is_empty()).map(str::to_string));
            }
            None => out.push(p.to_string()),
        }
    }
    out.join(".")
}

/// The proper prefixes of a dotted name (no leading dot) that have a number of parts in
/// `counts`, longest first: `a.b.c` with counts {1, 2} → `a.b`, `a`. Slices, and only the
/// lengths some name has, so that a name of n parts costs O(n) (not O(n²)).
pub(super) fn prefixes<'n>(name: &'n str, counts: &BTreeSet<usize>) -> Vec<&'n str> {
    let mut dots = Vec::new();
    let (mut quoted, mut escaped) = (false, false);
    for (k, c) in name.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '\'' => quoted = !quoted,
            '.' if !quoted => dots.push(k),
            _ => {}
        }
    }
    counts.iter().rev().filter(|&&c| c >= 1 && c <= dots.len()).map(|&c| &name[..dots[c - 1]]).collect()
}

/// The number of parts of a dotted name.
fn part_count(name: &str) -> usize {
    parts(name).len()
}

/// A reference's base name (every subscript dropped) and its key (as printed).
pub(super) fn cref_names(r: &ComponentRef) -> (String, String) {
    let base: Vec<&str> = r.parts.iter().map(|p| p.ident.text.as_str()).collect();
    let mut key = String::new();
    write_cref(&mut key, r);
    (base.join("."), key)
}

/// The end of a chain of declarations with one base name.
const NONE: u32 = u32::MAX;

impl<'a> Scope<'a> {
    pub fn new(def: &'a StoredDefinition, model: &'a ClassDef) -> Scope<'a> {
        let mut s = Scope {
            decls: Vec::new(),
            by_base: Index::default(),
            next: Vec::new(),
            decl_counts: BTreeSet::new(),
            class_counts: BTreeSet::new(),
            classes: BTreeMap::new(),
            enums: BTreeMap::new(),
        };
        for c in &def.classes {
            s.add_class(c, "");
        }
        if let ClassBody::Long(comp) = &model.body {
            let count = |p: &ClassPart| match p {
                ClassPart::Elements { elements, .. } => elements
                    .iter()
                    .map(|e| if let Element::Component(c) = e { c.declarations().len() } else { 0 })
                    .sum(),
                _ => 0,
            };
            let n: usize = comp.parts.iter().map(count).sum();
            s.decls.reserve_exact(n);
            for part in &comp.parts {
                let ClassPart::Elements { elements, .. } = part else { continue };
                for e in elements {
                    if let Element::Component(c) = e {
                        for d in c.declarations() {
                            s.add_decl(c, d);
                        }
                    }
                }
            }
        }
        s.chain_bases();
        s
    }

    /// [`Scope::by_base`] and [`Scope::next`]: the declarations grouped by base name, in
    /// declaration order within a group.
    fn chain_bases(&mut self) {
        let decls = &self.decls;
        let base = |k: u32| decls[k as usize].base.as_str();
        // Stable: a group's declarations stay in declaration order.
        let mut order = sorted_by(decls.len(), base);
        self.next = vec![NONE; order.len()];
        for pair in order.windows(2) {
            if base(pair[0]) == base(pair[1]) {
                self.next[pair[0] as usize] = pair[1];
            }
        }
        order.dedup_by(|later, earlier| base(*later) == base(*earlier));
        self.by_base = Index::of_sorted(order, base);
    }

    fn add_class(&mut self, c: &'a ClassDef, outer: &str) {
        let name = c.name.text.as_str();
        let name = name.strip_prefix('.').unwrap_or(name);
        let qualified = if outer.is_empty() { name.to_string() } else { format!("{outer}.{name}") };
        for n in [name.to_string(), qualified.clone()] {
            self.class_counts.insert(part_count(&n));
            self.classes.entry(n).or_insert(c);
        }
        match &c.body {
            ClassBody::Enumeration { literals, .. } => {
                let lits: BTreeSet<String> = literals.iter().map(|l| l.name.text.as_str().to_string()).collect();
                for n in [name.to_string(), qualified] {
                    self.enums.entry(n).or_default().extend(lits.iter().cloned());
                }
            }
            ClassBody::Long(comp) => {
                for part in &comp.parts {
                    let ClassPart::Elements { elements, .. } = part else { continue };
                    for e in elements {
                        match e {
                            Element::Class(inner) => self.add_class(inner, &qualified),
                            Element::Component(comp) => self.add_inline_enum(&comp.type_spec()),
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn add_inline_enum(&mut self, t: &TypeSpec) {
        if let TypeSpec::Enumeration(e) = t {
            let lits = self.enums.entry(String::new()).or_default();
            lits.extend(e.literals.iter().map(|l| l.name.text.as_str().to_string()));
        }
    }

    fn add_decl(&mut self, c: &'a Component, d: &'a Declaration) {
        self.add_inline_enum(&c.type_spec());
        let (base, key) = match &d.name().parts[..] {
            // A plain declared name (almost all of a flat model's): already interned.
            [p] if p.subscripts.is_empty() && d.dims.is_empty() && !p.ident.text.contains(['\'', '.']) => {
                (p.ident.text, p.ident.text)
            }
            _ => {
                let (base, mut key) = cref_names(&d.name());
                write_subscripts(&mut key, &d.dims);
                (text(&normalize(&base)), text(&key))
            }
        };
        let ty = self.type_of(&c.type_spec());
        let array = !c.type_dims().is_empty() || !d.dims.is_empty();
        self.decl_counts.insert(part_count(&base));
        self.decls.push(Decl { key, base, ty, array, component: c, decl: d });
    }

    /// The declarations with the base name `base`, in order.
    fn with_base(&self, base: &str) -> Option<Vec<usize>> {
        let first = self.by_base.find(base, |k| self.decls[k as usize].base.as_str())?;
        let mut out = Vec::new();
        let mut k = first;
        while k != NONE {
            out.push(k as usize);
            k = self.next[k as usize];
        }
        Some(out)
    }

    /// The type a type specifier denotes (short classes followed, at most 16 deep).
    pub fn type_of(&self, t: &TypeSpec) -> Ty {
        let TypeSpec::Name(n) = t else { return Ty::Enum };
        let mut name = n.text.as_str().strip_prefix('.').unwrap_or(n.text.as_str()).to_string();
        for _ in 0..16 {
            match name.as_str() {
                "Real" => return Ty::Real,
                "Integer" => return Ty::Integer,
                "Boolean" => return Ty::Boolean,
                "String" => return Ty::String,
                "StateSelect" | "AssertionLevel" => return Ty::Enum,
                _ => {}
            }
            let Some(c) = self.classes.get(&name) else { return Ty::Unknown };
            match &c.body {
                ClassBody::Enumeration { .. } => return Ty::Enum,
                ClassBody::Short { base, .. } => name = base.text.as_str().trim_start_matches('.').to_string(),
                ClassBody::Long(_) if matches!(c.kind, ClassKind::Record | ClassKind::OperatorRecord) => {
                    return Ty::Record;
                }
                _ => return Ty::Unknown,
            }
        }
        Ty::Unknown
    }

    /// Resolves a base name (no subscripts) used as a value. `None`: undeclared.
    pub fn resolve(&self, name: &str) -> Option<Resolved> {
        let normal = normalize(name);
        let base = normal.as_str();
        if let Some(ds) = self.with_base(base) {
            return Some(Resolved::Var(ds));
        }
        let below = format!("{base}.");
        let mut after = self.by_base.from(&below, |k| self.decls[k as usize].base.as_str());
        if after.next().is_some_and(|k| self.decls[k as usize].base.starts_with(&below)) {
            return Some(Resolved::Aggregate);
        }
        if builtins::is_variable(base) {
            return Some(Resolved::Builtin);
        }
        if let Some(ds) = prefixes(base, &self.decl_counts).into_iter().find_map(|p| self.with_base(p)) {
            return Some(Resolved::Field(ds));
        }
        match self.literal(name) {
            Some(true) => return Some(Resolved::Literal),
            // `E.c` with `E` an enumeration type that has no literal `c`.
            Some(false) => return None,
            None => {}
        }
        let trimmed = name.strip_prefix('.').unwrap_or(name);
        if self.classes.contains_key(trimmed) || self.has_class_prefix(trimmed) {
            return Some(Resolved::Class);
        }
        None
    }

    /// Whether a proper prefix of `name` (no leading dot) is a class of the file.
    pub fn has_class_prefix(&self, name: &str) -> bool {
        prefixes(name, &self.class_counts).iter().any(|p| self.classes.contains_key(*p))
    }

    /// Whether `E.c` is an enumeration literal: `Some(true)` if it is, `Some(false)` if `E`
    /// is an enumeration type without the literal `c`, `None` if `E` is no enumeration type
    /// and `c` no literal of the file's inline enumerations.
    pub fn literal(&self, name: &str) -> Option<bool> {
        let ps = parts(name);
        let (&last, init) = ps.split_last()?;
        if init.is_empty() {
            return None;
        }
        let ty = init.join(".");
        if let Some(lits) = builtins::enumeration(&ty) {
            return Some(lits.contains(&last));
        }
        if let Some(lits) = self.enums.get(&ty) {
            return Some(lits.contains(last));
        }
        // omc writes the type path of an inline enumeration's literal
        // (`Modelica.Blocks.Types.Init.SteadyState` for `enumeration(NoInit, SteadyState, …)`).
        self.enums.values().any(|lits| lits.contains(last)).then_some(true)
    }

    /// The enumeration type named by `name`'s prefix, if `name` is `E.c` with `E` a known
    /// enumeration type (for the message of a missing literal).
    pub fn enumeration_literals(&self, ty: &str) -> Option<Vec<String>> {
        if let Some(lits) = builtins::enumeration(ty) {
            return Some(lits.iter().map(|l| l.to_string()).collect());
        }
        self.enums.get(ty).map(|l| l.iter().cloned().collect())
    }

    /// Whether the file defines a function (or a record, whose constructor omc prints as
    /// one): then it carries the functions its model calls.
    pub fn defines_functions(&self) -> bool {
        self.classes.values().any(|c| {
            matches!(
                c.kind,
                ClassKind::Function
                    | ClassKind::ImpureFunction
                    | ClassKind::PureFunction
                    | ClassKind::OperatorFunction
                    | ClassKind::Record
                    | ClassKind::OperatorRecord
            )
        })
    }

    /// Whether `name` is a function (or another class) the file defines, or a built-in.
    pub fn is_function(&self, name: &str) -> bool {
        let trimmed = name.strip_prefix('.').unwrap_or(name);
        builtins::function(trimmed).is_some() || self.classes.contains_key(trimmed)
    }
}
