//! Component clauses and their declarations, in the layout a flat model needs.
//!
//! Owns [`Component`] (a clause: prefixes, a type, declarations), [`Clause`] (the same
//! written out, what the parser builds and what a component hands out to change),
//! [`TypeParts`], `Predefined` (private), [`Declaration`] and [`DeclarationParts`].
//!
//! Memory (issue 15): a flat model declares 10^5 `Real x;`, so the common clause is
//! small and everything rare is boxed. A clause with at most two prefixes, a predefined
//! type with nothing written on it and one declaration is 32 bytes inline (the type's
//! span is its start and its keyword's length; the clause's runs from its start to the
//! end of its declaration); any other clause is a boxed [`Clause`]. A declaration whose
//! name is one identifier and which has nothing else written (`x`) is that identifier and
//! an empty pointer (24 bytes); its other parts, a name of several parts (`r[1].v`) and
//! a span other than the name's are boxed together ([`DeclarationParts`]).
//!
//! Invariants: the compact forms are chosen by the constructors ([`Component::new`],
//! [`Declaration::new`]) only when they give back exactly what was built, so readers see
//! no difference (equality and `Debug` go through the accessors); the forms are never
//! mutated into an inconsistent state (declarations change in place, anything else
//! through [`Component::edit`] and `Declaration::edit_name` (for `syntax::visit`, inside
//! an edit of the clause), which choose again).

use super::ast::{ClassMod, Comment, ComponentRef, Expr, Ident, Modification, Prefix, Prefixes, RefPart, Subscript};
use super::ast::{Text, TypeSpec, text};
use super::small_list::{SmallList, ThinList};
use super::span::Span;
use std::borrow::Cow;
use std::sync::LazyLock;

/// The predefined types a compact [`Component`] can have (Modelica Language Spec. 3.6 §4.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Predefined {
    Real,
    Integer,
    Boolean,
    String,
}

/// The predefined types' names, interned once.
static PREDEFINED: LazyLock<[Text; 4]> =
    LazyLock::new(|| [text("Real"), text("Integer"), text("Boolean"), text("String")]);

impl Predefined {
    const ALL: [Predefined; 4] = [Predefined::Real, Predefined::Integer, Predefined::Boolean, Predefined::String];

    /// The type's name.
    fn text(self) -> Text {
        PREDEFINED[self as usize]
    }

    /// The type's name written at `start`.
    fn written_at(self, start: u32) -> Ident {
        Ident { text: self.text(), span: Span { start, end: start + self.text().len() as u32 } }
    }

    /// The predefined type `name` is, if it is one written as such (its span is its text).
    fn of(name: &Ident) -> Option<Predefined> {
        let ty = *Predefined::ALL.iter().find(|p| p.text() == name.text)?;
        (name.span.end.checked_sub(name.span.start) == Some(name.text.len() as u32)).then_some(ty)
    }
}

/// A component clause: prefixes, a type and one or more declarations (`Real x;`,
/// `parameter Real p = 1 "d";`, `input Real(unit = "m")[3] w;`, `Real x, y;`). Read
/// through the accessors; build from a [`Clause`]; change the declarations in place
/// ([`Component::declarations_mut`]), anything else through [`Component::edit`].
#[derive(Clone)]
pub struct Component(Repr);

#[derive(Clone)]
enum Repr {
    /// `Real x;`, `parameter Real p = 1;`, `final parameter Integer n = 3;`: the type
    /// `ty` written at `ty_start`, `lead` bytes after the clause's start (the prefixes).
    Plain {
        ty: Predefined,
        prefixes: [Option<Prefix>; 2],
        lead: u8,
        ty_start: u32,
        declaration: Declaration,
    },
    Full(Box<Clause>),
}

/// A component clause written out: what the parser builds, what [`Component::edit`]
/// changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    pub prefixes: Prefixes,
    pub type_spec: TypeSpec,
    /// What is written on the type besides its name (rare): `None` for `Real x;`.
    pub type_parts: Option<Box<TypeParts>>,
    /// Almost always one (`Real x, y;` is rare in flat models): stored inline then.
    pub declarations: SmallList<Declaration>,
    pub span: Span,
}

/// The parts of a component's type besides its name (rare in flat models).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeParts {
    /// A modification on the type, as omc prints record-constructor inputs:
    /// `input Real(unit = "rad/s")[3] w;` (not standard Modelica; kept as printed).
    pub modification: Option<ClassMod>,
    /// Dimensions written on the type: `Real[3] x`.
    pub dims: Box<[Subscript]>,
}

impl TypeParts {
    /// The parts, boxed; `None` when both are absent.
    pub fn boxed(modification: Option<ClassMod>, dims: Box<[Subscript]>) -> Option<Box<TypeParts>> {
        (modification.is_some() || !dims.is_empty()).then(|| Box::new(TypeParts { modification, dims }))
    }
}

impl Component {
    /// The clause, compact when it can be.
    pub fn new(clause: Clause) -> Component {
        match Component::plain(clause) {
            Ok(plain) => Component(plain),
            Err(clause) => Component(Repr::Full(Box::new(clause))),
        }
    }

    /// The compact form of `c`, or `c` back when it has none.
    fn plain(c: Clause) -> Result<Repr, Clause> {
        let TypeSpec::Name(name) = &c.type_spec else { return Err(c) };
        let Some(ty) = Predefined::of(name) else { return Err(c) };
        let lead = name.span.start.checked_sub(c.span.start).and_then(|l| u8::try_from(l).ok());
        let fits = c.type_parts.is_none()
            && c.prefixes.len() <= 2
            && c.declarations.len() == 1
            && c.declarations[0].span().end == c.span.end;
        let (Some(lead), true) = (lead, fits) else { return Err(c) };
        let ty_start = name.span.start;
        let prefixes = [c.prefixes.first().copied(), c.prefixes.get(1).copied()];
        let declaration = c.declarations.into_one().expect("one declaration");
        Ok(Repr::Plain { ty, prefixes, lead, ty_start, declaration })
    }

    pub fn prefixes(&self) -> Prefixes {
        match &self.0 {
            Repr::Plain { prefixes, .. } => written(prefixes),
            Repr::Full(c) => c.prefixes,
        }
    }

    pub fn has(&self, p: Prefix) -> bool {
        match &self.0 {
            Repr::Plain { prefixes, .. } => prefixes.contains(&Some(p)),
            Repr::Full(c) => c.prefixes.contains(&p),
        }
    }

    /// The type (built on the fly for a predefined one: no allocation).
    pub fn type_spec(&self) -> Cow<'_, TypeSpec> {
        match &self.0 {
            &Repr::Plain { ty, ty_start, .. } => Cow::Owned(TypeSpec::Name(ty.written_at(ty_start))),
            Repr::Full(c) => Cow::Borrowed(&c.type_spec),
        }
    }

    /// The modification written on the type, if any.
    pub fn type_mod(&self) -> Option<&ClassMod> {
        self.type_parts()?.modification.as_ref()
    }

    /// The dimensions written on the type (usually none).
    pub fn type_dims(&self) -> &[Subscript] {
        self.type_parts().map_or(&[], |t| &t.dims)
    }

    fn type_parts(&self) -> Option<&TypeParts> {
        match &self.0 {
            Repr::Plain { .. } => None,
            Repr::Full(c) => c.type_parts.as_deref(),
        }
    }

    pub fn declarations(&self) -> &[Declaration] {
        match &self.0 {
            Repr::Plain { declaration, .. } => std::slice::from_ref(declaration),
            Repr::Full(c) => &c.declarations,
        }
    }

    /// The declarations, to change in place (their spans stay: [`Declaration`]).
    pub fn declarations_mut(&mut self) -> &mut [Declaration] {
        match &mut self.0 {
            Repr::Plain { declaration, .. } => std::slice::from_mut(declaration),
            Repr::Full(c) => &mut c.declarations,
        }
    }

    /// The clause's text without the closing `;`.
    pub fn span(&self) -> Span {
        match &self.0 {
            Repr::Plain { lead, ty_start, declaration, .. } => {
                Span { start: ty_start - u32::from(*lead), end: declaration.span().end }
            }
            Repr::Full(c) => c.span,
        }
    }

    /// The clause written out.
    fn into_clause(self) -> Clause {
        match self.0 {
            Repr::Plain { ty, prefixes, lead, ty_start, declaration } => {
                Component::clause(ty, prefixes, lead, ty_start, declaration)
            }
            Repr::Full(c) => *c,
        }
    }

    /// Changes the clause through `f` (for the walks of `syntax::visit`); the layout is
    /// chosen again.
    pub fn edit(&mut self, f: impl FnOnce(&mut Clause)) {
        // The clause moves out; the placeholder left behind is overwritten below.
        let mut clause = std::mem::replace(self, Component::placeholder()).into_clause();
        f(&mut clause);
        *self = Component::new(clause);
    }

    /// A compact clause that allocates nothing, held while [`Component::edit`] runs.
    fn placeholder() -> Component {
        let ident = Predefined::Real.written_at(0);
        let declaration = Declaration { ident, parts: None };
        Component(Repr::Plain { ty: Predefined::Real, prefixes: [None, None], lead: 0, ty_start: 0, declaration })
    }

    /// A compact clause written out.
    fn clause(ty: Predefined, prefixes: [Option<Prefix>; 2], lead: u8, ty_start: u32, d: Declaration) -> Clause {
        let end = d.span().end;
        Clause {
            prefixes: written(&prefixes),
            type_spec: TypeSpec::Name(ty.written_at(ty_start)),
            type_parts: None,
            declarations: SmallList::one(d),
            span: Span { start: ty_start - u32::from(lead), end },
        }
    }
}

/// The prefixes of a compact clause.
fn written(prefixes: &[Option<Prefix>; 2]) -> Prefixes {
    let mut out = Prefixes::new();
    for &p in prefixes.iter().flatten() {
        out.push(p);
    }
    out
}

impl PartialEq for Component {
    fn eq(&self, other: &Component) -> bool {
        self.prefixes() == other.prefixes()
            && self.type_spec() == other.type_spec()
            && self.type_parts() == other.type_parts()
            && self.declarations() == other.declarations()
            && self.span() == other.span()
    }
}

impl std::fmt::Debug for Component {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Component")
            .field("prefixes", &self.prefixes())
            .field("type_spec", &self.type_spec())
            .field("type_parts", &self.type_parts())
            .field("declarations", &self.declarations())
            .field("span", &self.span())
            .finish()
    }
}

/// One declared name: `x[3](start = 1) = 2 if c "description" annotation(…)`.
/// omc declares flattened names such as `rc.r[1].v`: the name is that reference without
/// its trailing subscripts, which are the array dimensions `dims`.
///
/// A flat model declares 10^5 plain `x`: a name of one identifier is stored as that
/// identifier; the other parts ([`DeclarationParts`]) are boxed, and absent when none is
/// written and the declaration's span is its name's. They read as fields through `Deref`
/// (`decl.dims`, `decl.modification`, …); the name through [`Declaration::name`],
/// [`Declaration::ident`]; build with [`Declaration::new`], change with
/// [`Declaration::parts_mut`] (or, for the walks of `syntax::visit` inside
/// [`Component::edit`], `Declaration::edit_name`).
#[derive(Clone)]
pub struct Declaration {
    /// The name when it is one identifier, else its first identifier (the name is then
    /// in the parts).
    ident: Ident,
    parts: Option<Box<DeclarationParts>>,
}

/// The parts of a [`Declaration`] besides a name of one identifier.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclarationParts {
    pub dims: ThinList<Subscript>,
    pub modification: Option<Box<Modification>>,
    pub condition: Option<Box<Expr>>,
    pub comment: Comment,
    /// The name when it is not one identifier (`r[1].v`).
    name: Option<Box<ComponentRef>>,
    /// The declaration's span.
    span: Span,
}

static NO_PARTS: LazyLock<DeclarationParts> = LazyLock::new(DeclarationParts::default);

/// The one identifier `name` is, if it is one (no subscripts, its span the identifier's).
fn one_ident(name: &ComponentRef) -> Option<&Ident> {
    match &name.parts[..] {
        [p] if p.subscripts.is_empty() && p.ident.span == name.span => Some(&p.ident),
        _ => None,
    }
}

impl Declaration {
    /// The declaration; `name` has at least one part.
    pub fn new(
        name: ComponentRef,
        dims: impl Into<ThinList<Subscript>>,
        modification: Option<Box<Modification>>,
        condition: Option<Box<Expr>>,
        comment: Comment,
        span: Span,
    ) -> Declaration {
        let ident = name.parts.first().expect("a declared name has a part").ident.clone();
        let name = one_ident(&name).is_none().then(|| Box::new(name));
        let parts = DeclarationParts { dims: dims.into(), modification, condition, comment, name, span };
        let mut d = Declaration { ident, parts: Some(Box::new(parts)) };
        d.shrink();
        d
    }

    /// The declared name (built on the fly when it is one identifier: no allocation).
    pub fn name(&self) -> Cow<'_, ComponentRef> {
        match self.parts.as_ref().and_then(|p| p.name.as_deref()) {
            Some(name) => Cow::Borrowed(name),
            None => {
                let part = RefPart { ident: self.ident.clone(), subscripts: ThinList::default() };
                Cow::Owned(ComponentRef { parts: SmallList::one(part), span: self.ident.span })
            }
        }
    }

    /// The name's first identifier: all of it when it has one part (`x`, `a.b.c`).
    pub fn ident(&self) -> &Ident {
        &self.ident
    }

    /// The name when it is not one identifier (a subscripted part: `r[1].v`).
    pub fn compound_name(&self) -> Option<&ComponentRef> {
        self.parts.as_ref()?.name.as_deref()
    }

    /// The name's span.
    pub fn name_span(&self) -> Span {
        self.parts.as_ref().and_then(|p| p.name.as_ref()).map_or(self.ident.span, |n| n.span)
    }

    /// The declaration's text.
    pub fn span(&self) -> Span {
        self.parts.as_ref().map_or(self.ident.span, |p| p.span)
    }

    /// The parts to change, or `None` when all are absent (nothing to change in place).
    pub fn parts_mut(&mut self) -> Option<&mut DeclarationParts> {
        self.parts.as_deref_mut()
    }

    /// Drops the boxed parts if a change left nothing in them but the name's span.
    pub fn shrink(&mut self) {
        let empty = |p: &DeclarationParts| {
            p.dims.is_empty()
                && p.modification.is_none()
                && p.condition.is_none()
                && p.comment.is_empty()
                && p.name.is_none()
                && p.span == self.ident.span
        };
        if self.parts.as_deref().is_some_and(empty) {
            self.parts = None;
        }
    }

    /// Changes the name and the span through `f` (for the walks of `syntax::visit`). Only
    /// inside [`Component::edit`]: a compact clause's span ends where its declaration's
    /// does, so a span changed elsewhere would change the clause's too.
    pub(in crate::syntax) fn edit_name(&mut self, f: impl FnOnce(&mut ComponentRef, &mut Span)) {
        let mut name = self.name().into_owned();
        let mut span = self.span();
        f(&mut name, &mut span);
        self.ident = name.parts.first().expect("a declared name has a part").ident.clone();
        let name = one_ident(&name).is_none().then(|| Box::new(name));
        let parts = self.parts.get_or_insert_with(Box::default);
        parts.name = name;
        parts.span = span;
        self.shrink();
    }
}

impl std::ops::Deref for Declaration {
    type Target = DeclarationParts;
    fn deref(&self) -> &DeclarationParts {
        self.parts.as_deref().unwrap_or(&NO_PARTS)
    }
}

impl PartialEq for Declaration {
    fn eq(&self, other: &Declaration) -> bool {
        self.name() == other.name()
            && self.span() == other.span()
            && self.dims == other.dims
            && self.modification == other.modification
            && self.condition == other.condition
            && self.comment == other.comment
    }
}

impl std::fmt::Debug for Declaration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Declaration")
            .field("name", &self.name())
            .field("dims", &self.dims)
            .field("modification", &self.modification)
            .field("condition", &self.condition)
            .field("comment", &self.comment)
            .field("span", &self.span())
            .finish()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::syntax::ast::{Element, Equation};

    #[test]
    fn a_flat_declaration_is_small() {
        assert_eq!(size_of::<Declaration>(), 24);
        assert_eq!(size_of::<SmallList<Declaration>>(), 24);
        assert_eq!(size_of::<Component>(), 32);
        assert_eq!(size_of::<Element>(), 32);
        assert_eq!(size_of::<Equation>(), 56);
    }

    pub(crate) const SRC: &str = "model M
  Real x;
  parameter  Real p = 1;
  final parameter Integer n(min = 0) = 3 \"d\";
  discrete input output Boolean b;
  Real y, z;
  Real[2] w;
  input Real(unit = \"m\") u;
  E e;
  Real r[2].v;
  String s[3];
equation
  x = (p);
  (x) = p;
  y = 2*(x + 1);
  /* e4: */ z = x \"d\";
  w = {x, y};
end M;
";

    #[test]
    fn the_compact_forms_give_back_what_was_written() {
        let ast = crate::syntax::parse(SRC).expect("parses");
        let mut compact = Vec::new();
        for c in ast.classes[0].components() {
            let written = &SRC[c.span().range()];
            assert_eq!(SRC[c.span().end as usize..].chars().next(), Some(';'), "{written}");
            if let TypeSpec::Name(t) = &*c.type_spec() {
                assert_eq!(&SRC[t.span.range()], t.text.as_str());
            }
            assert!(written.starts_with(c.prefixes().first().map_or("", |p| p.keyword())), "{written}");
            for d in c.declarations() {
                assert_eq!(&SRC[d.ident().span.range()], d.ident().text.as_str());
                assert!(SRC[d.span().range()].starts_with(&SRC[d.name_span().range()]));
            }
            assert_eq!(&Component::new(c.clone().into_clause()), c);
            let mut edited = c.clone();
            edited.edit(|_| {});
            assert_eq!(&edited, c);
            compact.push(matches!(c.0, Repr::Plain { .. }));
        }
        assert_eq!(compact, [true, true, true, false, false, false, false, false, true, true]);
    }

    #[test]
    fn an_edit_chooses_the_layout_again() {
        let ast = crate::syntax::parse(SRC).expect("parses");
        let mut w = ast.classes[0].components().nth(6).expect("Real[2] w").clone();
        assert!(matches!(w.0, Repr::Full(_)));
        w.edit(|c| c.type_parts = None);
        assert!(matches!(w.0, Repr::Plain { .. }));
        assert!(w.type_dims().is_empty());
    }
}
