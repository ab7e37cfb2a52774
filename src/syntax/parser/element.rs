//! Elements of a class: component clauses (prefixes, type, declarations with
//! modifications, bindings, conditions and comments), nested class definitions,
//! `extends`, `import`, and class annotations; also modifications and comments,
//! which annotations share. A modification argument keeps `name = value` inline and
//! boxes the rest ([`ModArgRest`]) only when something of it is written.

use super::lex::cut;
use super::{PError, PResult, Parser};
use crate::syntax::ast::*;
use nom::Err;

fn prefix_of(word: &str) -> Option<Prefix> {
    Some(match word {
        "redeclare" => Prefix::Redeclare,
        "final" => Prefix::Final,
        "inner" => Prefix::Inner,
        "outer" => Prefix::Outer,
        "replaceable" => Prefix::Replaceable,
        "encapsulated" => Prefix::Encapsulated,
        "partial" => Prefix::Partial,
        "flow" => Prefix::Flow,
        "stream" => Prefix::Stream,
        "discrete" => Prefix::Discrete,
        "parameter" => Prefix::Parameter,
        "constant" => Prefix::Constant,
        "input" => Prefix::Input,
        "output" => Prefix::Output,
        _ => return None,
    })
}

/// Words that start a class definition after the prefixes.
pub(crate) fn starts_class(word: &str) -> bool {
    matches!(
        word,
        "class"
            | "model"
            | "block"
            | "connector"
            | "expandable"
            | "record"
            | "type"
            | "package"
            | "function"
            | "impure"
            | "pure"
            | "operator"
    )
}

impl<'s> Parser<'s> {
    /// Prefixes in the order written.
    pub(crate) fn prefixes(&self, mut i: &'s str) -> PResult<'s, Prefixes> {
        let mut out = Prefixes::new();
        while let Some(p) = prefix_of(self.peek_word(i)?) {
            let (r, _) = self.kw(i, p.keyword())?;
            if !out.push(p) {
                return Err(Err::Failure(PError::other(
                    self.skip(i)?,
                    format!("more than {} prefixes", Prefixes::CAPACITY),
                )));
            }
            i = r;
        }
        Ok((i, out))
    }

    /// Elements up to `public`, `protected`, a section keyword or `end` (not consumed).
    pub(crate) fn elements(&self, i: &'s str) -> PResult<'s, Vec<Element>> {
        // `stateMachine` starts omc's flat state machine, which closes the elements.
        let ends = |w: &str| {
            matches!(
                w,
                "public" | "protected" | "equation" | "algorithm" | "initial" | "external" | "end" | "stateMachine"
            )
        };
        self.section_items(i, ends, |p, i| {
            let (i, e) = p.element(i)?;
            let (i, _) = p.expect_sym(i, ";")?;
            Ok((i, e))
        })
    }

    fn element(&self, i: &'s str) -> PResult<'s, Element> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        match self.peek_word(i)? {
            "annotation" => {
                let (i, m) = self.annotation(i)?;
                return Ok((i, Element::Annotation(m)));
            }
            "extends" => {
                let (i, _) = self.kw(i, "extends")?;
                let (i, name) = self.name(i).map_err(cut)?;
                let (i, modification) = self.opt_class_mod(i)?;
                let (i, annotation) = self.opt_annotation(i)?;
                let span = self.span_from(start, i);
                return Ok((i, Element::Extends(Box::new(Extends { name, modification, annotation, span }))));
            }
            "import" => return self.import(i, start),
            _ => {}
        }
        let (i, prefixes) = self.prefixes(i)?;
        if starts_class(self.peek_word(i)?) {
            let (i, class) = self.class_def(i, prefixes, start)?;
            return Ok((i, Element::Class(Box::new(class))));
        }
        let (i, type_spec) = self.type_spec(i)?;
        let (i, type_mod) = self.opt_class_mod(i)?;
        let (i, type_dims) = if self.at_sym(i, "[")? { self.subscripts(i)? } else { (i, Box::default()) };
        let type_parts = TypeParts::boxed(type_mod, type_dims);
        let (i, declarations) = self.comma_list(i, |i| self.declaration(i))?;
        let declarations = declarations.into();
        let span = self.span_from(start, i);
        Ok((i, Element::Component(Component::new(Clause { prefixes, type_spec, type_parts, declarations, span }))))
    }

    fn type_spec(&self, i: &'s str) -> PResult<'s, TypeSpec> {
        if self.at_kw(i, "enumeration")? {
            let (i, start) = self.kw(i, "enumeration")?;
            let (i, (literals, colon)) = self.enum_literals(i)?;
            let span = self.span_from(start.start as usize, i);
            return Ok((i, TypeSpec::Enumeration(Box::new(InlineEnumeration { literals, colon, span }))));
        }
        let (i, name) = self.name(i).map_err(|e| match e {
            Err::Error(p) => Err::Failure(PError {
                kind: super::SyntaxErrorKind::Expected(super::Expected::Thing("a declaration or a section keyword")),
                ..p
            }),
            other => other,
        })?;
        if let Some(r) = self.skip(i)?.strip_prefix("<function>") {
            return self.function_type(r, name);
        }
        Ok((i, TypeSpec::Name(name)))
    }

    /// omc's type of a functional input, after `name<function>`: `(#Real u, #Real v) =>
    /// #Real` or `=> (#Real, #Real)`; one type name in canonical spelling.
    fn function_type(&self, i: &'s str, name: Ident) -> PResult<'s, TypeSpec> {
        let start = name.span.start as usize;
        let boxed = |i: &'s str| -> PResult<'s, String> {
            let (i, _) = self.expect_sym(i, "#")?;
            let (i, t) = self.name(i).map_err(cut)?;
            Ok((i, format!("#{}", t.text)))
        };
        let (mut i, _) = self.expect_sym(i, "(")?;
        let mut inputs = Vec::new();
        if let Ok((r, _)) = self.sym(i, ")") {
            i = r;
        } else {
            let (r, list) = self.comma_list(i, |i| {
                let (i, ty) = boxed(i)?;
                let (i, n) = self.ident(i).map_err(cut)?;
                Ok((i, format!("{ty} {}", n.text)))
            })?;
            inputs = list;
            i = self.expect_sym(r, ")")?.0;
        }
        let (i, _) = self.expect_sym(i, "=>")?;
        let (i, outputs) = if let Ok((r, _)) = self.sym(i, "(") {
            let (r, list) = self.comma_list(r, boxed)?;
            (self.expect_sym(r, ")")?.0, format!("({})", list.join(", ")))
        } else {
            boxed(i)?
        };
        let spelled = format!("{}<function>({}) => {outputs}", name.text, inputs.join(", "));
        let span = self.span_from(start, i);
        Ok((i, TypeSpec::Name(Ident { text: text(&spelled), span })))
    }

    /// `(a "d", b)` or `(:)` after `enumeration`.
    pub(crate) fn enum_literals(&self, i: &'s str) -> PResult<'s, (Vec<EnumLiteral>, bool)> {
        let (i, _) = self.expect_sym(i, "(")?;
        if let Ok((r, _)) = self.sym(i, ":") {
            let (r, _) = self.expect_sym(r, ")")?;
            return Ok((r, (Vec::new(), true)));
        }
        let (i, literals) = if self.at_sym(i, ")")? {
            (i, Vec::new())
        } else {
            self.comma_list(i, |i| {
                let (i, name) = self.ident(i).map_err(cut)?;
                let (i, comment) = self.comment(i)?;
                Ok((i, EnumLiteral { name, comment }))
            })?
        };
        let (i, _) = self.expect_sym(i, ")")?;
        Ok((i, (literals, false)))
    }

    fn declaration(&self, i: &'s str) -> PResult<'s, Declaration> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let (i, mut name) = self.component_ref(i).map_err(cut)?;
        // Trailing subscripts are the dimensions; the name's span then ends at its last identifier.
        let last = name.parts.last_mut().expect("non-empty");
        let dims = std::mem::take(&mut last.subscripts).into_vec().into_boxed_slice();
        if !dims.is_empty() {
            name.span.end = last.ident.span.end;
        }
        let (i, modification) = self.opt_modification(i)?;
        let modification = modification.map(Box::new);
        let (i, condition) = match self.kw(i, "if") {
            Ok((r, _)) => {
                let (r, c) = self.expr(r).map_err(cut)?;
                (r, Some(Box::new(c)))
            }
            Err(_) => (i, None),
        };
        let (i, comment) = self.comment(i)?;
        let span = self.span_from(start, i);
        Ok((i, Declaration::new(name, dims, modification, condition, comment, span)))
    }

    /// `(…) [= e]`, `= e` or `:= e`, if present.
    pub(crate) fn opt_modification(&self, input: &'s str) -> PResult<'s, Option<Modification>> {
        let (i, ()) = self.ws(input)?;
        let start = self.pos(i);
        let (i, class_mod) = self.opt_class_mod(i)?;
        let (i, value) = self.opt_mod_value(i)?;
        if class_mod.is_none() && value.is_none() {
            // Nothing consumed: the trivia belongs to whatever follows.
            return Ok((input, None));
        }
        let span = self.span_from(start, i);
        Ok((i, Some(Modification { class_mod, value, span })))
    }

    fn opt_mod_value(&self, i: &'s str) -> PResult<'s, Option<ModValue>> {
        let (t, ()) = self.ws(i)?;
        let (r, assign) = if let Some(r) = t.strip_prefix(":=") {
            (r, true)
        } else if let Some(r) = t.strip_prefix('=').filter(|r| !r.starts_with('=')) {
            (r, false)
        } else {
            // Nothing consumed: the trivia belongs to whatever follows.
            return Ok((i, None));
        };
        let (r, expr) = self.expr(r).map_err(cut)?;
        Ok((r, Some(ModValue { assign, expr })))
    }

    pub(crate) fn opt_class_mod(&self, i: &'s str) -> PResult<'s, Option<ClassMod>> {
        if !self.at_sym(i, "(")? {
            return Ok((i, None));
        }
        let (i, m) = self.class_mod(i)?;
        Ok((i, Some(m)))
    }

    /// `(arg, arg, …)`
    pub(crate) fn class_mod(&self, i: &'s str) -> PResult<'s, ClassMod> {
        let (i, open) = self.sym(i, "(")?;
        let _g = self.enter(i)?;
        let (i, args) = if self.at_sym(i, ")")? { (i, Vec::new()) } else { self.comma_list(i, |i| self.mod_arg(i))? };
        let (i, _) = self.expect_sym(i, ")")?;
        let args = args.into_boxed_slice();
        Ok((i, ClassMod { args, span: self.span_from(open.start as usize, i) }))
    }

    /// `[each] [final] name [modification] ["description"]`
    fn mod_arg(&self, i: &'s str) -> PResult<'s, ModArg> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let (i, each) = match self.kw(i, "each") {
            Ok((r, _)) => (r, true),
            Err(_) => (i, false),
        };
        let (i, is_final) = match self.kw(i, "final") {
            Ok((r, _)) => (r, true),
            Err(_) => (i, false),
        };
        let (i, name) = self.name(i).map_err(cut)?;
        let (i, modification) = self.opt_modification(i)?;
        let (i, description) = self.string_comment(i)?;
        let (class_mod, value) = modification.map_or((None, None), |m| (m.class_mod, m.value));
        let assign = value.as_ref().is_some_and(|v| v.assign);
        let rest = (each || is_final || assign || class_mod.is_some() || !description.is_empty())
            .then(|| Box::new(ModArgRest { each, is_final, assign, class_mod, description }));
        let value = value.map(|v| v.expr);
        Ok((i, ModArg { name, value, rest, span: self.span_from(start, i) }))
    }

    /// `annotation(…)`
    pub(crate) fn annotation(&self, i: &'s str) -> PResult<'s, ClassMod> {
        let (i, _) = self.kw(i, "annotation")?;
        self.class_mod(i).map_err(cut)
    }

    pub(crate) fn opt_annotation(&self, i: &'s str) -> PResult<'s, Option<ClassMod>> {
        match self.annotation(i) {
            Ok((r, m)) => Ok((r, Some(m))),
            Err(Err::Error(_)) => Ok((i, None)),
            Err(e) => Err(e),
        }
    }

    /// `["description" {+ "…"}] [annotation(…)]`
    pub(crate) fn comment(&self, i: &'s str) -> PResult<'s, Comment> {
        let (i, strings) = self.string_comment(i)?;
        let (i, annotation) = self.opt_annotation(i)?;
        Ok((i, Comment { strings, annotation: annotation.map(Box::new) }))
    }

    fn import(&self, i: &'s str, start: usize) -> PResult<'s, Element> {
        let (i, _) = self.kw(i, "import")?;
        let (i, first) = self.name(i).map_err(cut)?;
        let (i, alias, name) = match self.sym(i, "=") {
            Ok((r, _)) => {
                let (r, n) = self.name(r).map_err(cut)?;
                (r, Some(first), n)
            }
            Err(_) => (i, None, first),
        };
        let (i, wildcard, list) = if let Ok((r, _)) = self.sym(i, ".*") {
            (r, true, Vec::new())
        } else if let Ok((r, _)) = self.sym(i, ".{") {
            let (r, list) = self.comma_list(r, |i| self.ident(i).map_err(cut))?;
            let (r, _) = self.expect_sym(r, "}")?;
            (r, false, list)
        } else {
            (i, false, Vec::new())
        };
        let (i, comment) = self.comment(i)?;
        let span = self.span_from(start, i);
        Ok((i, Element::Import(Box::new(Import { alias, name, wildcard, list, comment, span }))))
    }
}
