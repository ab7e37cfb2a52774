//! Equation and algorithm sections: `e = e`, if/for/when/connect and call equations
//! (`reinit`, `assert`, `terminate`, …); statements `:=`, calls, if/for/while/when,
//! `return`, `break`. An equation keeps the papers' label comment `/* e1: */`
//! written immediately before it.

use super::lex::cut;
use super::{PError, PResult, Parser};
use crate::syntax::ast::*;
use crate::syntax::span::Span;
use nom::Err;

/// Words that end an equation or statement list.
fn ends_equations(word: &str) -> bool {
    matches!(
        word,
        "end"
            | "else"
            | "elseif"
            | "elsewhen"
            | "equation"
            | "algorithm"
            | "initial"
            | "public"
            | "protected"
            | "external"
            | "annotation"
    )
}

/// True if an equation or statement that starts with `word` is not read as an
/// expression (`lhs = rhs` or a call): the word ends the list or starts a structured
/// item. The printer parenthesises an expression that would start with such a word
/// (`(if c then a else b) = x;`, `(initial());`).
pub(crate) fn diverts_item(word: &str) -> bool {
    ends_equations(word) || matches!(word, "if" | "for" | "when" | "while" | "connect" | "return" | "break")
}

impl<'s> Parser<'s> {
    /// Equations up to a word that ends the list (not consumed).
    pub(crate) fn equations(&self, i: &'s str) -> PResult<'s, Vec<Equation>> {
        self.section_items(i, ends_equations, Parser::equation)
    }

    pub(crate) fn equation(&self, i: &'s str) -> PResult<'s, Equation> {
        let label = self.label(i);
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let _g = self.enter(i)?;
        let (i, kind) = match self.peek_word(i)? {
            "if" => self.if_equation(i)?,
            "for" => {
                let (i, _) = self.kw(i, "for")?;
                let (i, (indices, _)) = self.for_indices(i)?;
                let (i, _) = self.expect_kw(i, "loop")?;
                let (i, body) = self.equations(i)?;
                let (i, _) = self.end_of(i, "for")?;
                (i, EquationKind::For { indices: indices.into(), body })
            }
            "when" => {
                let (i, branches) = self.when_branches(i, Parser::equations)?;
                (i, EquationKind::When { branches })
            }
            "connect" => {
                let (i, _) = self.kw(i, "connect")?;
                let (i, _) = self.expect_sym(i, "(")?;
                let (i, a) = self.component_ref(i).map_err(cut)?;
                let (i, _) = self.expect_sym(i, ",")?;
                let (i, b) = self.component_ref(i).map_err(cut)?;
                let (i, _) = self.expect_sym(i, ")")?;
                (i, EquationKind::Connect(Box::new([a, b])))
            }
            _ => match self.binding_or_call(i, "=")? {
                (i, Ok((lhs, rhs))) => (i, EquationKind::Simple { lhs, rhs }),
                (i, Err(call)) => (i, EquationKind::Call(call)),
            },
        };
        let (i, (comment, span)) = self.item_end(i, start)?;
        Ok((i, Equation::new(label, kind, comment.map(|c| *c), span)))
    }

    /// `lhs <op> rhs` (`=` in equations, `:=` in algorithms), or a lone call.
    fn binding_or_call(&self, i: &'s str, op: &'static str) -> PResult<'s, Result<(Expr, Expr), Box<Call>>> {
        let (i, lhs) = self.expr(i).map_err(cut)?;
        match self.sym(i, op) {
            Ok((i, _)) => {
                let (i, rhs) = self.expr(i).map_err(cut)?;
                Ok((i, Ok((lhs, rhs))))
            }
            Err(_) => match lhs.kind {
                ExprKind::Call(call) => Ok((i, Err(call))),
                _ => Err(Err::Failure(PError::expected(self.skip(i)?, op, true))),
            },
        }
    }

    /// The description/annotation and `;` ending an equation or statement that began
    /// at `start`: the comment (if any) and the item's span (without the `;`).
    fn item_end(&self, i: &'s str, start: usize) -> PResult<'s, (Option<Box<Comment>>, Span)> {
        let (i, comment) = self.comment(i)?;
        let span = self.span_from(start, i);
        let (i, _) = self.expect_sym(i, ";")?;
        Ok((i, ((!comment.is_empty()).then(|| Box::new(comment)), span)))
    }

    /// The last `/* name: */` comment among the trivia before the next token.
    fn label(&self, mut i: &'s str) -> Option<Ident> {
        let mut label = None;
        loop {
            i = i.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
            if i.starts_with("//") {
                i = &i[i.find('\n').unwrap_or(i.len())..];
            } else if let Some(body) = i.strip_prefix("/*") {
                let end = body.find("*/")?;
                let text = body[..end].trim();
                let name = text.strip_suffix(':').map(str::trim_end);
                label = name.filter(|n| is_plain_ident(n)).map(|n| {
                    let off = self.pos(body) + (n.as_ptr() as usize - body.as_ptr() as usize);
                    Ident { text: n.into(), span: Span::new(off, off + n.len()) }
                });
                i = &body[end + 2..];
            } else {
                return label;
            }
        }
    }

    fn if_equation(&self, i: &'s str) -> PResult<'s, EquationKind> {
        let (i, (branches, else_branch)) = self.if_branches(i, Parser::equations)?;
        let else_branch = else_branch.map(Vec::into_boxed_slice);
        Ok((i, EquationKind::If { branches, else_branch }))
    }

    /// `if c then … {elseif c then …} [else …] end if`, with `body` parsing each list.
    #[allow(clippy::type_complexity)]
    fn if_branches<T>(
        &self,
        i: &'s str,
        body: fn(&Self, &'s str) -> PResult<'s, Vec<T>>,
    ) -> PResult<'s, (Vec<(Expr, Vec<T>)>, Option<Vec<T>>)> {
        let (i, branches) = self.guarded_branches(i, "if", "elseif", body)?;
        let (i, else_branch) = match self.kw(i, "else") {
            Ok((r, _)) => {
                let (r, items) = body(self, r)?;
                (r, Some(items))
            }
            Err(_) => (i, None),
        };
        let (i, _) = self.end_of(i, "if")?;
        Ok((i, (branches, else_branch)))
    }

    /// `first c then … {next c then …}`: the guarded branches of if and when.
    #[allow(clippy::type_complexity)]
    fn guarded_branches<T>(
        &self,
        i: &'s str,
        first: &'static str,
        next: &'static str,
        body: fn(&Self, &'s str) -> PResult<'s, Vec<T>>,
    ) -> PResult<'s, Vec<(Expr, Vec<T>)>> {
        let (mut i, _) = self.kw(i, first)?;
        let mut branches = Vec::new();
        loop {
            let (r, cond) = self.expr(i).map_err(cut)?;
            let (r, _) = self.expect_kw(r, "then")?;
            let (r, items) = body(self, r)?;
            branches.push((cond, items));
            match self.kw(r, next) {
                Ok((r, _)) => i = r,
                Err(_) => {
                    branches.shrink_to_fit();
                    return Ok((r, branches));
                }
            }
        }
    }

    /// `when c then … {elsewhen c then …} end when`
    #[allow(clippy::type_complexity)]
    fn when_branches<T>(
        &self,
        i: &'s str,
        body: fn(&Self, &'s str) -> PResult<'s, Vec<T>>,
    ) -> PResult<'s, Vec<(Expr, Vec<T>)>> {
        let (i, branches) = self.guarded_branches(i, "when", "elsewhen", body)?;
        let (i, _) = self.end_of(i, "when")?;
        Ok((i, branches))
    }

    /// `end <what>` closing a structured equation or statement.
    fn end_of(&self, i: &'s str, what: &'static str) -> PResult<'s, ()> {
        let (i, _) = self.expect_kw(i, "end")?;
        let (i, _) = self.expect_kw(i, what)?;
        Ok((i, ()))
    }

    /// Statements up to a word that ends the list (not consumed).
    pub(crate) fn statements(&self, i: &'s str) -> PResult<'s, Vec<Statement>> {
        self.section_items(i, ends_equations, Parser::statement)
    }

    pub(crate) fn statement(&self, i: &'s str) -> PResult<'s, Statement> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let _g = self.enter(i)?;
        let (i, kind) = match self.peek_word(i)? {
            "if" => {
                let (i, (branches, else_branch)) = self.if_branches(i, Parser::statements)?;
                (i, StatementKind::If { branches, else_branch })
            }
            "for" => {
                let (i, _) = self.kw(i, "for")?;
                let (i, (indices, _)) = self.for_indices(i)?;
                let (i, _) = self.expect_kw(i, "loop")?;
                let (i, body) = self.statements(i)?;
                let (i, _) = self.end_of(i, "for")?;
                (i, StatementKind::For { indices, body })
            }
            "while" => {
                let (i, _) = self.kw(i, "while")?;
                let (i, condition) = self.expr(i).map_err(cut)?;
                let (i, _) = self.expect_kw(i, "loop")?;
                let (i, body) = self.statements(i)?;
                let (i, _) = self.end_of(i, "while")?;
                (i, StatementKind::While { condition, body })
            }
            "when" => {
                let (i, branches) = self.when_branches(i, Parser::statements)?;
                (i, StatementKind::When { branches })
            }
            "return" => {
                // omc prints `return e;` in some functions (not Modelica: a return has no operand).
                let (i, _) = self.kw(i, "return")?;
                // `return "doc";` and `return annotation(…);` are a plain return and its comment.
                if self.at_sym(i, ";")? || self.at_sym(i, "\"")? || self.at_kw(i, "annotation")? {
                    (i, StatementKind::Return(None))
                } else {
                    let (i, e) = self.expr(i).map_err(cut)?;
                    (i, StatementKind::Return(Some(Box::new(e))))
                }
            }
            "break" => (self.kw(i, "break")?.0, StatementKind::Break),
            _ => match self.binding_or_call(i, ":=")? {
                (i, Ok((target, value))) => (i, StatementKind::Assign { target, value }),
                (i, Err(call)) => (i, StatementKind::Call(call)),
            },
        };
        let (i, (comment, span)) = self.item_end(i, start)?;
        Ok((i, Statement { kind, comment, span }))
    }
}

/// An identifier as the papers write labels: `e1`, `eh2`, `K3`.
fn is_plain_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        && !super::lex::is_keyword(s)
}
