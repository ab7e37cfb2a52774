//! Class definitions (long, short `type T = …`, enumerations) and the whole file:
//! Base Modelica header, `within`, and the top-level classes in order.

use super::lex::cut;
use super::{PError, PResult, Parser};
use crate::syntax::ast::*;
use nom::Err;

impl<'s> Parser<'s> {
    pub(crate) fn stored_definition(&self, i: &'s str) -> PResult<'s, StoredDefinition> {
        let base_header = i
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .strip_prefix("//!")
            .map(|r| r[..r.find('\n').unwrap_or(r.len())].trim().into());
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let (mut i, within) = match self.kw(i, "within") {
            Ok((r, s)) => {
                let (r, name) = match self.name(r) {
                    Ok((r, n)) => (r, Some(n)),
                    Err(Err::Error(_)) => (r, None),
                    Err(e) => return Err(e),
                };
                let (r, _) = self.expect_sym(r, ";")?;
                (r, Some(Within { name, span: self.span_from(s.start as usize, r) }))
            }
            Err(_) => (i, None),
        };
        let mut classes = Vec::new();
        loop {
            let (r, ()) = self.ws(i)?;
            if r.is_empty() {
                break;
            }
            let s = self.pos(r);
            let (r, prefixes) = self.prefixes(r)?;
            if !super::element::starts_class(self.peek_word(r)?) {
                return Err(Err::Failure(PError::expected(self.skip(r)?, "a class definition", false)));
            }
            let (r, class) = self.class_def(r, prefixes, s)?;
            let (r, _) = self.expect_sym(r, ";")?;
            classes.push(class);
            i = r;
        }
        classes.shrink_to_fit();
        if classes.is_empty() {
            return Err(Err::Failure(PError::expected(i, "a class definition", false)));
        }
        let span = self.span_from(start, i);
        Ok((i, StoredDefinition { base_header, within, classes, span }))
    }

    /// A class definition after its prefixes; `start` is where the prefixes began.
    pub(crate) fn class_def(&self, i: &'s str, prefixes: Prefixes, start: usize) -> PResult<'s, ClassDef> {
        let _g = self.enter(i)?;
        let (i, kind) = self.class_kind(i)?;
        let (i, name) = self.name(i).map_err(cut)?;
        let (i, body) = if let Ok((r, _)) = self.sym(i, "=") {
            self.short_class(r)?
        } else {
            let (i, c) = self.composition(i, &name)?;
            (i, ClassBody::Long(Box::new(c)))
        };
        let span = self.span_from(start, i);
        Ok((i, ClassDef { prefixes, kind, name, body, span }))
    }

    fn class_kind(&self, i: &'s str) -> PResult<'s, ClassKind> {
        let two = |i, a, b, k| -> PResult<'s, ClassKind> {
            let (i, _) = self.kw(i, a)?;
            let (i, _) = self.expect_kw(i, b)?;
            Ok((i, k))
        };
        match self.peek_word(i)? {
            "expandable" => two(i, "expandable", "connector", ClassKind::ExpandableConnector),
            "impure" => two(i, "impure", "function", ClassKind::ImpureFunction),
            "pure" => two(i, "pure", "function", ClassKind::PureFunction),
            "operator" => {
                let (r, _) = self.kw(i, "operator")?;
                match self.peek_word(r)? {
                    "record" => Ok((self.kw(r, "record")?.0, ClassKind::OperatorRecord)),
                    "function" => Ok((self.kw(r, "function")?.0, ClassKind::OperatorFunction)),
                    _ => Ok((r, ClassKind::Operator)),
                }
            }
            w => {
                let kind = match w {
                    "class" => ClassKind::Class,
                    "model" => ClassKind::Model,
                    "block" => ClassKind::Block,
                    "connector" => ClassKind::Connector,
                    "record" => ClassKind::Record,
                    "type" => ClassKind::Type,
                    "package" => ClassKind::Package,
                    "function" => ClassKind::Function,
                    _ => {
                        return Err(Err::Failure(PError::expected(
                            self.skip(i)?,
                            "a class kind (`model`, `class`, `function`, …)",
                            false,
                        )));
                    }
                };
                Ok((self.kw(i, kind.keyword())?.0, kind))
            }
        }
    }

    /// After `=`: `enumeration(…)` or `[prefixes] Name[dims](mods)`, then a comment.
    fn short_class(&self, i: &'s str) -> PResult<'s, ClassBody> {
        if self.at_kw(i, "enumeration")? {
            let (i, _) = self.kw(i, "enumeration")?;
            let (i, (literals, colon)) = self.enum_literals(i)?;
            let (i, comment) = self.comment(i)?;
            return Ok((i, ClassBody::Enumeration { literals, colon, comment }));
        }
        if self.at_kw(i, "der")? && self.at_sym(&self.skip(i)?[3..], "(")? {
            let (i, _) = self.kw(i, "der")?;
            let (i, _) = self.expect_sym(i, "(")?;
            let (mut i, function) = self.name(i).map_err(cut)?;
            let mut vars = Vec::new();
            while let Ok((r, _)) = self.sym(i, ",") {
                let (r, v) = self.ident(r).map_err(cut)?;
                vars.push(v);
                i = r;
            }
            let (i, _) = self.expect_sym(i, ")")?;
            let (i, comment) = self.comment(i)?;
            return Ok((i, ClassBody::Der { function, vars, comment }));
        }
        let (i, prefixes) = self.prefixes(i)?;
        let (i, base) = self.name(i).map_err(cut)?;
        let (i, dims) = if self.at_sym(i, "[")? { self.subscripts(i)? } else { (i, Box::default()) };
        let (i, modification) = self.opt_class_mod(i)?;
        let (i, comment) = self.comment(i)?;
        Ok((i, ClassBody::Short { prefixes, base, dims, modification, comment }))
    }

    /// The body of a long class, through `end Name` (the `;` is left to the caller).
    fn composition(&self, i: &'s str, name: &Ident) -> PResult<'s, Composition> {
        let (i, description) = self.string_comment(i)?;
        let (i, ()) = self.ws(i)?;
        let first_start = self.pos(i);
        let (mut i, first) = self.elements(i)?;
        let mut parts = Vec::new();
        if let (Some(a), Some(b)) = (first.first(), first.last()) {
            let span = element_span(a).to(element_span(b));
            debug_assert!(span.start as usize >= first_start);
            parts.push(ClassPart::Elements { visibility: Visibility::Implicit, elements: first, span });
        }
        let (mut external, mut annotation) = (None, None);
        loop {
            let (r, ()) = self.ws(i)?;
            let start = self.pos(r);
            let w = self.peek_word(r)?;
            let (r, part) = match w {
                "public" | "protected" => {
                    let (r, _) = self.kw(r, if w == "public" { "public" } else { "protected" })?;
                    let (r, elements) = self.elements(r)?;
                    let visibility = if w == "public" { Visibility::Public } else { Visibility::Protected };
                    (r, ClassPart::Elements { visibility, elements, span: self.span_from(start, r) })
                }
                "equation" | "algorithm" | "initial" => {
                    let (r, initial) = match self.kw(r, "initial") {
                        Ok((r, _)) => (r, true),
                        Err(_) => (r, false),
                    };
                    if let Ok((r, _)) = self.kw(r, "equation") {
                        let (r, equations) = self.equations(r)?;
                        (r, ClassPart::Equations { initial, equations, span: self.span_from(start, r) })
                    } else {
                        let (r, _) = self.expect_kw(r, "algorithm")?;
                        let (r, statements) = self.statements(r)?;
                        (r, ClassPart::Algorithm { initial, statements, span: self.span_from(start, r) })
                    }
                }
                "stateMachine" => {
                    let (r, sm) = self.state_machine(r, start)?;
                    (r, ClassPart::StateMachine(Box::new(sm)))
                }
                "external" if external.is_none() => {
                    let (r, ext) = self.external(r)?;
                    external = Some(ext);
                    i = r;
                    continue;
                }
                "annotation" if annotation.is_none() => {
                    let (r, a) = self.annotation(r)?;
                    let (r, _) = self.expect_sym(r, ";")?;
                    annotation = Some(a);
                    i = r;
                    continue;
                }
                _ => break,
            };
            parts.push(part);
            i = r;
        }
        parts.shrink_to_fit();
        let (i, _) = self.expect_kw(i, "end")?;
        let (i, end_name) = self.name(i).map_err(cut)?;
        if end_name.text != name.text {
            let at = &self.src[end_name.span.start as usize..];
            return Err(Err::Failure(PError::other(
                at,
                format!("`end {}` closes class `{}`", end_name.text, name.text),
            )));
        }
        Ok((i, Composition { description, parts, external, annotation, end_name }))
    }

    /// `external ["C"] [out =] f(args) [annotation(…)];`
    fn external(&self, i: &'s str) -> PResult<'s, External> {
        let (i, start) = self.kw(i, "external")?;
        let (i, language) = match self.string(i) {
            Ok((r, s)) => (r, Some(s)),
            Err(_) => (i, None),
        };
        let (i, call) = if self.at_kw(i, "annotation")? || self.at_sym(i, ";")? {
            (i, None)
        } else {
            let (r, first) = self.expr(i).map_err(cut)?;
            let (r, output, call) = match self.sym(r, "=") {
                Ok((r, _)) => {
                    let (r, call) = self.expr(r).map_err(cut)?;
                    (r, Some(first), call)
                }
                Err(_) => (r, None, first),
            };
            let ExprKind::Call(c) = call.kind else {
                return Err(Err::Failure(PError::expected(
                    &self.src[call.span.start as usize..],
                    "an external function call",
                    false,
                )));
            };
            let Call { function, args } = *c;
            let FunctionArgs::List { positional, named } = args else {
                return Err(Err::Failure(PError::expected(
                    &self.src[function.span.start as usize..],
                    "external call arguments",
                    false,
                )));
            };
            if !named.is_empty() {
                return Err(Err::Failure(PError::expected(
                    &self.src[named[0].name.span.start as usize..],
                    "a positional argument",
                    false,
                )));
            }
            (r, Some(ExternalCall { output, function, args: positional.into_vec() }))
        };
        let (i, annotation) = self.opt_annotation(i)?;
        let span = self.span_from(start.start as usize, i);
        let (i, _) = self.expect_sym(i, ";")?;
        Ok((i, External { language, call, annotation, span }))
    }
}

/// The span of an element (its text without the closing `;`).
fn element_span(e: &Element) -> crate::syntax::span::Span {
    match e {
        Element::Component(c) => c.span(),
        Element::Class(c) => c.span,
        Element::Extends(x) => x.span,
        Element::Import(x) => x.span,
        Element::Annotation(m) => m.span,
    }
}

impl<'s> Parser<'s> {
    /// omc's flat state machine: `stateMachine s {state t … end t;} [equation …] end s;`.
    fn state_machine(&self, i: &'s str, start: usize) -> PResult<'s, StateMachine> {
        let (i, _) = self.kw(i, "stateMachine")?;
        let (mut i, name) = self.ident(i).map_err(cut)?;
        let mut states = Vec::new();
        while self.at_kw(i, "state")? {
            let (r, ()) = self.ws(i)?;
            let state_start = self.pos(r);
            let (r, _) = self.kw(r, "state")?;
            let (r, state_name) = self.ident(r).map_err(cut)?;
            let (r, elements) = self.elements(r)?;
            let (r, equations) = self.opt_equations(r)?;
            let r = self.end_of_machine(r, &state_name)?;
            states.push(State { name: state_name, elements, equations, span: self.span_from(state_start, r) });
            i = r;
        }
        let (i, equations) = self.opt_equations(i)?;
        let i = self.end_of_machine(i, &name)?;
        Ok((i, StateMachine { name, states, equations, span: self.span_from(start, i) }))
    }

    /// `equation …` if present.
    fn opt_equations(&self, i: &'s str) -> PResult<'s, Vec<Equation>> {
        match self.kw(i, "equation") {
            Ok((r, _)) => self.equations(r),
            Err(_) => Ok((i, Vec::new())),
        }
    }

    /// `end name;` closing `name`.
    fn end_of_machine(&self, i: &'s str, name: &Ident) -> Result<&'s str, Err<PError>> {
        let (i, _) = self.expect_kw(i, "end")?;
        let (i, end_name) = self.ident(i).map_err(cut)?;
        if end_name.text != name.text {
            let at = &self.src[end_name.span.start as usize..];
            return Err(Err::Failure(PError::other(at, format!("`end {}` closes `{}`", end_name.text, name.text))));
        }
        Ok(self.expect_sym(i, ";")?.0)
    }
}
