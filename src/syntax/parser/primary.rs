//! Primaries: literals, component references, calls (with positional, named and
//! reduction arguments), `(…)` lists, `{…}` arrays and comprehensions, `[…; …]`
//! matrices, `end`, the built-in calls spelled with keywords (`der`, `initial`,
//! `pure`), partial applications `function f(a = e)`, and omc's boxed values `#(e)`. Also subscripts and `for` indices, which reductions and loops share.

use super::expr::H;
use super::lex::cut;
use super::{PError, PResult, Parser};
use crate::syntax::ast::*;
use crate::syntax::span::Span;
use nom::Err;

impl<'s> Parser<'s> {
    pub(crate) fn primary(&self, i: &'s str) -> PResult<'s, H> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let leaf = |r: &'s str, kind: ExprKind| Ok((r, (Expr::new(kind, self.span_from(start, r)), 1)));
        let Some(&c) = i.as_bytes().first() else {
            return Err(Err::Error(PError::expected(i, "an expression", false)));
        };
        match c {
            b'0'..=b'9' => {
                let (r, text) = self.number(i)?;
                leaf(r, ExprKind::Number(text.into()))
            }
            b'"' => {
                let (r, s) = self.string(i)?;
                leaf(r, ExprKind::String(s.raw))
            }
            b'(' => self.postfix(self.paren_list(i)?),
            b'{' => self.postfix(self.braces(i)?),
            b'[' => self.matrix(i),
            b'#' => self.boxed(i, start),
            b'-' | b'+' => {
                // Lenient: a signed factor where the grammar wants a primary (`a * -b`).
                // It counts two levels: the printer writes it in parentheses (`a * (-b)`),
                // which the parser counts, so the print of any accepted input is accepted.
                let _g = self.enter(i)?;
                let _parens = self.enter(i)?;
                let op = if c == b'-' { UnOp::Neg } else { UnOp::Plus };
                let (r, (e, h)) = self.factor(&i[1..]).map_err(cut)?;
                let span = Span::new(start, e.span.end as usize);
                Ok((r, (Expr::new(ExprKind::Unary(op, Box::new(e)), span), h + 1)))
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'\'' | b'.' => self.word_primary(i, start),
            _ => Err(Err::Error(PError::expected(i, "an expression", false))),
        }
    }

    fn word_primary(&self, i: &'s str, start: usize) -> PResult<'s, H> {
        let leaf = |r: &'s str, kind: ExprKind| Ok((r, (Expr::new(kind, self.span_from(start, r)), 1)));
        match self.peek_word(i)? {
            "true" => leaf(&i[4..], ExprKind::Bool(true)),
            "false" => leaf(&i[5..], ExprKind::Bool(false)),
            "end" => leaf(&i[3..], ExprKind::End),
            "function" => self.partial_application(i, start),
            w @ ("der" | "initial" | "pure") if self.at_sym(&i[w.len()..], "(")? => {
                let function = Ident { text: w.into(), span: Span::new(start, start + w.len()) };
                self.call_rest(&i[w.len()..], function)
            }
            _ => {
                let (r, (cref, hs)) = self.component_ref_h(i)?;
                if self.at_sym(r, "(")? && cref.parts.len() == 1 && cref.parts[0].subscripts.is_empty() {
                    let function = cref.parts.into_one().expect("one part").ident;
                    return self.call_rest(r, function);
                }
                Ok((r, (cref_expr(cref), hs + 1)))
            }
        }
    }

    /// `function f(a = e, …)` (a partial application, spec §12.4.2.1) or omc's
    /// `function f(#(e), …)`.
    fn partial_application(&self, i: &'s str, start: usize) -> PResult<'s, H> {
        let _g = self.enter(i)?;
        let (i, _) = self.kw(i, "function")?;
        let (i, function) = self.name(i).map_err(cut)?;
        if !self.at_sym(i, "(")? {
            return Err(Err::Failure(PError::expected(i, "`(`", false)));
        }
        let (i, (args, h)) = self.function_args(i)?;
        let span = self.span_from(start, i);
        Ok((i, (Expr::new(ExprKind::Partial(Box::new(Call { function, args })), span), h + 1)))
    }

    /// omc's boxed value `#(e)`.
    fn boxed(&self, i: &'s str, start: usize) -> PResult<'s, H> {
        let _g = self.enter(i)?;
        let (i, _) = self.sym(i, "#")?;
        let (i, _) = self.expect_sym(i, "(")?;
        let (i, (e, h)) = self.expr_h(i).map_err(cut)?;
        let (i, _) = self.expect_sym(i, ")")?;
        let span = self.span_from(start, i);
        Ok((i, (Expr::new(ExprKind::Boxed(Box::new(e)), span), h + 1)))
    }

    /// `a.b[1].c` — consecutive parts without subscripts merge into one dotted identifier.
    pub(crate) fn component_ref(&self, i: &'s str) -> PResult<'s, ComponentRef> {
        let (i, (cref, _)) = self.component_ref_h(i)?;
        Ok((i, cref))
    }

    /// A component reference and the height of its tallest subscript.
    pub(crate) fn component_ref_h(&self, i: &'s str) -> PResult<'s, (ComponentRef, u32)> {
        let mut h = 0;
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let (mut i, first) = self.name(i)?;
        let mut parts = vec![RefPart { ident: first, subscripts: Default::default() }];
        loop {
            if self.at_sym(i, "[")? {
                let (r, (subs, hs)) = self.subscripts_h(i)?;
                h = h.max(hs);
                parts.last_mut().expect("non-empty").subscripts = subs.into();
                i = r;
            }
            let (r, ()) = self.ws(i)?;
            let Some(r) = r
                .strip_prefix('.')
                .filter(|r| r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '\''))
            else {
                break;
            };
            let (r, next) = self.name(r).map_err(cut)?;
            let last = parts.last_mut().expect("non-empty");
            if last.subscripts.is_empty() {
                last.ident.text = text(&format!("{}.{}", last.ident.text, next.text));
                last.ident.span = last.ident.span.to(next.span);
            } else {
                parts.push(RefPart { ident: next, subscripts: Default::default() });
            }
            i = r;
        }
        let span = self.span_from(start, i);
        Ok((i, (ComponentRef { parts: parts.into(), span }, h)))
    }

    /// `[s1, s2, …]` where each is `:` or an expression.
    pub(crate) fn subscripts(&self, i: &'s str) -> PResult<'s, Box<[Subscript]>> {
        let (i, (subs, _)) = self.subscripts_h(i)?;
        Ok((i, subs))
    }

    /// Subscripts and the height of the tallest.
    pub(crate) fn subscripts_h(&self, i: &'s str) -> PResult<'s, (Box<[Subscript]>, u32)> {
        let mut h = 0;
        let (i, _) = self.sym(i, "[")?;
        let (i, subs) = self.comma_list(i, |i| {
            let (r, ()) = self.ws(i)?;
            let colon = r.strip_prefix(':').filter(|x| x.trim_start().starts_with([',', ']']));
            if let Some(x) = colon {
                let s = self.pos(r);
                return Ok((x, Subscript::All(Span::new(s, s + 1))));
            }
            let (x, (e, he)) = self.expr_h(r).map_err(cut)?;
            h = h.max(he);
            Ok((x, Subscript::Expr(e)))
        })?;
        let (i, _) = self.expect_sym(i, "]")?;
        Ok((i, (subs.into_boxed_slice(), h)))
    }

    /// The argument list of a call, after its name.
    fn call_rest(&self, i: &'s str, function: Ident) -> PResult<'s, H> {
        let start = function.span.start as usize;
        let (i, (args, h)) = self.function_args(i)?;
        let span = self.span_from(start, i);
        self.postfix((i, (Expr::new(ExprKind::Call(Box::new(Call { function, args })), span), h + 1)))
    }

    /// Subscripts after a call, a parenthesised expression or an array: `f(x)[1]`.
    fn postfix(&self, (i, (base, h)): (&'s str, H)) -> PResult<'s, H> {
        if !self.at_sym(i, "[")? {
            return Ok((i, (base, h)));
        }
        let (i, (subscripts, hs)) = self.subscripts_h(i)?;
        let span = self.span_from(base.span.start as usize, i);
        let e = Expr::new(ExprKind::Subscripted(Box::new(Subscripted { base, subscripts })), span);
        Ok((i, (e, h.max(hs) + 1)))
    }

    /// `( … )`: positional, then named arguments, or `e for i in r`.
    pub(crate) fn function_args(&self, i: &'s str) -> PResult<'s, (FunctionArgs, u32)> {
        let (mut i, _) = self.sym(i, "(")?;
        let (mut positional, mut named, mut h) = (Vec::new(), Vec::new(), 0);
        if let Ok((r, _)) = self.sym(i, ")") {
            return Ok((r, (FunctionArgs::List { positional: SmallList::default(), named: ThinList::default() }, 0)));
        }
        loop {
            if let Some((r, name)) = self.named_arg_start(i)? {
                let (r, (value, hv)) = self.expr_h(r).map_err(cut)?;
                h = h.max(hv);
                named.push(NamedArg { name, value });
                i = r;
            } else if !named.is_empty() {
                return Err(Err::Failure(PError::expected(i, "a named argument `name = value`", false)));
            } else {
                let (r, (e, he)) = self.expr_h(i).map_err(cut)?;
                h = h.max(he);
                if positional.is_empty() && self.at_kw(r, "for")? {
                    let (r, _) = self.kw(r, "for")?;
                    let (r, (indices, hi)) = self.for_indices(r)?;
                    let (r, _) = self.expect_sym(r, ")")?;
                    let c = Comprehension { expr: e, indices };
                    return Ok((r, (FunctionArgs::Comprehension(Box::new(c)), h.max(hi))));
                }
                positional.push(e);
                i = r;
            }
            match self.sym(i, ",") {
                Ok((r, _)) => i = r,
                Err(_) => break,
            }
        }
        let (i, _) = self.expect_sym(i, ")")?;
        let positional = positional.into();
        Ok((i, (FunctionArgs::List { positional, named: named.into() }, h)))
    }

    /// `name =` (not `==`) at the start of a named argument.
    fn named_arg_start(&self, i: &'s str) -> Result<Option<(&'s str, Ident)>, Err<PError>> {
        let Ok((r, name)) = self.ident(i) else { return Ok(None) };
        let (r, ()) = self.ws(r)?;
        match r.strip_prefix('=') {
            Some(r2) if !r2.starts_with('=') => Ok(Some((r2, name))),
            _ => Ok(None),
        }
    }

    /// `i in r, j in s` (the range may be omitted: `for i loop`).
    pub(crate) fn for_indices(&self, i: &'s str) -> PResult<'s, (Vec<ForIndex>, u32)> {
        let mut h = 0;
        let (i, out) = self.comma_list(i, |i| {
            let (r, name) = self.ident(i).map_err(cut)?;
            match self.kw(r, "in") {
                Ok((r, _)) => {
                    let (r, (e, he)) = self.expr_h(r).map_err(cut)?;
                    h = h.max(he);
                    Ok((r, ForIndex { name, range: Some(e) }))
                }
                Err(_) => Ok((r, ForIndex { name, range: None })),
            }
        })?;
        Ok((i, (out, h)))
    }

    /// `( e )` is `e`; `()`, `(a, b)` and `(a, , c)` are tuples (output expression lists).
    fn paren_list(&self, i: &'s str) -> PResult<'s, H> {
        let (i, open) = self.sym(i, "(")?;
        let mut items: Vec<Option<Expr>> = Vec::new();
        let mut i = i;
        let mut h = 0;
        let mut commas = 0;
        loop {
            if self.at_sym(i, ",")? || self.at_sym(i, ")")? {
                items.push(None);
            } else {
                let (r, (e, he)) = self.expr_h(i).map_err(cut)?;
                h = h.max(he);
                items.push(Some(e));
                i = r;
            }
            match self.sym(i, ",") {
                Ok((r, _)) => {
                    commas += 1;
                    i = r;
                }
                Err(_) => break,
            }
        }
        let (i, _) = self.expect_sym(i, ")")?;
        if commas == 0 {
            if let Some(Some(_)) = items.first() {
                let e = items.pop().flatten().expect("one item");
                return Ok((i, (e, h)));
            }
            items.clear();
        }
        items.shrink_to_fit();
        let span = self.span_from(open.start as usize, i);
        Ok((i, (Expr::new(ExprKind::Tuple(Box::new(items)), span), h + 1)))
    }

    /// `{a, b}`, `{}` or `{e for i in r}`.
    fn braces(&self, i: &'s str) -> PResult<'s, H> {
        let (i, open) = self.sym(i, "{")?;
        let start = open.start as usize;
        if let Ok((r, _)) = self.sym(i, "}") {
            return Ok((r, (Expr::new(ExprKind::Array(Box::default()), self.span_from(start, r)), 1)));
        }
        let (mut i, (first, mut h)) = self.expr_h(i).map_err(cut)?;
        if let Ok((r, _)) = self.kw(i, "for") {
            let (r, (indices, hi)) = self.for_indices(r)?;
            let (r, _) = self.expect_sym(r, "}")?;
            let c = Comprehension { expr: first, indices };
            return Ok((
                r,
                (Expr::new(ExprKind::ArrayComprehension(Box::new(c)), self.span_from(start, r)), h.max(hi) + 1),
            ));
        }
        let mut items = vec![first];
        if let Ok((r, _)) = self.sym(i, ",") {
            let (r, rest) = self.comma_list(r, |i| {
                let (i, (e, he)) = self.expr_h(i).map_err(cut)?;
                h = h.max(he);
                Ok((i, e))
            })?;
            items.extend(rest);
            i = r;
        }
        let (i, _) = self.expect_sym(i, "}")?;
        items.shrink_to_fit();
        Ok((i, (Expr::new(ExprKind::Array(Box::new(items)), self.span_from(start, i)), h + 1)))
    }

    /// `[a, b; c, d]`
    fn matrix(&self, i: &'s str) -> PResult<'s, H> {
        let (i, open) = self.sym(i, "[")?;
        let h = std::cell::Cell::new(0);
        let cell = |i| {
            let (i, (e, he)) = self.expr_h(i).map_err(cut)?;
            h.set(h.get().max(he));
            Ok((i, e))
        };
        let (i, rows) = self.separated(i, ";", |i| self.comma_list(i, cell))?;
        let h = h.get();
        let (i, _) = self.expect_sym(i, "]")?;
        Ok((i, (Expr::new(ExprKind::Matrix(Box::new(rows)), self.span_from(open.start as usize, i)), h + 1)))
    }
}

/// The smaller expression form of a reference: [`ExprKind::Name`] when it has no subscripts.
pub(crate) fn cref_expr(cref: ComponentRef) -> Expr {
    let span = cref.span;
    if cref.parts.len() == 1 && cref.parts[0].subscripts.is_empty() {
        let part = cref.parts.into_iter().next().expect("one part");
        Expr::new(ExprKind::Name(part.ident.text), span)
    } else {
        Expr::new(ExprKind::Ref(Box::new(cref)), span)
    }
}
