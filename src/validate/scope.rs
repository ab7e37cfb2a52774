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

use super::bases::Bases;
use super::builtins;
use super::types::Ty;
use crate::syntax::ast::*;
use crate::syntax::printer::expr::{write_cref, write_subscripts};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// One declaration of the model: positions into the AST and the type (16 bytes: a flat
/// model declares 10^5 names, held at validation's peak, issue 15). The name is the
/// declaration's identifier when it is plain (`x`: no subscripts, dimensions, quotes or
/// dots), else in [`Scope::named`]; read through [`Scope::key`] and [`Scope::base`].
pub(super) struct Decl<'a> {
    pub component: &'a Component,
    /// The declaration's position in the component; with [`NAMED`], the position in
    /// [`Scope::named`] instead.
    at: u32,
    pub ty: Ty,
    /// Declared with dimensions (on the type or the name).
    pub array: bool,
}

/// [`Decl::at`] is a position in [`Scope::named`].
const NAMED: u32 = 1 << 31;

/// The names of a declaration that is not plain.
struct Named {
    /// The declaration's position in its component.
    at: u32,
    /// The name with literal subscripts and dimensions as printed: `a.b[2].c[3]`.
    key: Text,
    /// Every subscript dropped, quotes read as paths: `a.b.c`.
    base: Text,
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
pub(super) enum Resolved<'s> {
    /// Declared: the declarations with this base name (several for scalarised elements).
    Var(&'s [u32]),
    /// A prefix of declared names: a record or component taken as a whole.
    Aggregate,
    /// A field of the declared record variable(s) with this base name.
    Field(&'s [u32]),
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
    /// The names of the declarations that are not plain (few in a flat model).
    named: Vec<Named>,
    /// The declarations by base name.
    bases: Bases,
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

impl<'a> Scope<'a> {
    pub fn new(def: &'a StoredDefinition, model: &'a ClassDef) -> Scope<'a> {
        let mut s = Scope {
            decls: Vec::new(),
            named: Vec::new(),
            bases: Bases::default(),
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
                        for (k, d) in c.declarations().iter().enumerate() {
                            s.add_decl(c, k, d);
                        }
                    }
                }
            }
        }
        s.named.shrink_to_fit();
        let bases = Bases::new(s.decls.len(), |d| s.base(d as usize).as_str());
        s.bases = bases;
        s
    }

    /// The number of declarations.
    pub fn len(&self) -> usize {
        self.decls.len()
    }

    /// Declaration `d` as written.
    pub fn decl(&self, d: usize) -> &'a Declaration {
        let decl = &self.decls[d];
        let at = if decl.at & NAMED == 0 { decl.at } else { self.named[(decl.at & !NAMED) as usize].at };
        &decl.component.declarations()[at as usize]
    }

    /// The name of declaration `d` with literal subscripts and dimensions as printed:
    /// `a.b[2].c[3]`.
    pub fn key(&self, d: usize) -> Text {
        let decl = &self.decls[d];
        match decl.at & NAMED {
            0 => decl.component.declarations()[decl.at as usize].ident().text,
            _ => self.named[(decl.at & !NAMED) as usize].key,
        }
    }

    /// The name of declaration `d` with every subscript dropped: `a.b.c`.
    pub fn base(&self, d: usize) -> Text {
        let decl = &self.decls[d];
        match decl.at & NAMED {
            0 => decl.component.declarations()[decl.at as usize].ident().text,
            _ => self.named[(decl.at & !NAMED) as usize].base,
        }
    }

    /// The declarations whose key an earlier declaration has, each with the first one of
    /// that key: `(later, first)`, in order of the later.
    pub fn redeclared(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        // Declarations of one key have one base: a key is its base with subscripts.
        for group in self.bases.shared() {
            let mut by_key = group.to_vec();
            by_key.sort_by(|&a, &b| self.key(a as usize).as_str().cmp(self.key(b as usize).as_str()));
            for run in by_key.chunk_by(|&a, &b| self.key(a as usize) == self.key(b as usize)) {
                out.extend(run[1..].iter().map(|&later| (later, run[0])));
            }
        }
        out.sort_unstable();
        out
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

    /// The `k`-th declaration `d` of the component `c`.
    fn add_decl(&mut self, c: &'a Component, k: usize, d: &'a Declaration) {
        self.add_inline_enum(&c.type_spec());
        let k = u32::try_from(k).ok().filter(|&k| k < NAMED).expect("fewer than 2^31 declarations");
        let at = match &d.name().parts[..] {
            // A plain declared name (almost all of a flat model's): its identifier.
            [p] if p.subscripts.is_empty() && d.dims.is_empty() && !p.ident.text.contains(['\'', '.']) => {
                self.decl_counts.insert(1);
                k
            }
            _ => {
                let (base, mut key) = cref_names(&d.name());
                write_subscripts(&mut key, &d.dims);
                let base = normalize(&base);
                self.decl_counts.insert(part_count(&base));
                self.named.push(Named { at: k, key: text(&key), base: text(&base) });
                NAMED | (self.named.len() - 1) as u32
            }
        };
        let ty = self.type_of(&c.type_spec());
        let array = !c.type_dims().is_empty() || !d.dims.is_empty();
        self.decls.push(Decl { component: c, at, ty, array });
    }

    /// The declarations with the base name `base`, in order.
    fn with_base(&self, base: &str) -> Option<&[u32]> {
        self.bases.find(base, |d| self.base(d as usize).as_str())
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
    pub fn resolve(&self, name: &str) -> Option<Resolved<'_>> {
        // Without quotes a name is its own path (no allocation: 10^5 names, issue 15).
        let normal = if name.contains('\'') { Cow::Owned(normalize(name)) } else { Cow::Borrowed(name) };
        let base = normal.strip_prefix('.').unwrap_or(&normal);
        if let Some(ds) = self.with_base(base) {
            return Some(Resolved::Var(ds));
        }
        if self.bases.any_below(&format!("{base}."), |d| self.base(d as usize).as_str()) {
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
