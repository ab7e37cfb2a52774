//! Expressions with Modelica precedence and associativity (Modelica Language
//! Spec. 3.6, grammar B.2.7): if-expression < range < or < and < not < relation <
//! additive < multiplicative < power < primary. Binary chains are left-associative
//! loops; `^` is non-associative. A unary `+`/`-` is also accepted where a factor is
//! expected (`a * -b`, as omc and Dymola accept); the printer parenthesises it.
//!
//! Every function returns the expression with its tree height, so that no tree
//! exceeds [`super::MAX_HEIGHT`] (left-deep chains are built by loops, not recursion).

use super::lex::cut;
use super::{MAX_HEIGHT, PError, PResult, Parser};
use crate::syntax::ast::*;
use crate::syntax::span::Span;
use nom::Err;

/// An expression and its tree height.
pub(crate) type H = (Expr, u32);

type Level<'s> = fn(&Parser<'s>, &'s str) -> PResult<'s, H>;
type OpPeek<'s> = fn(&Parser<'s>, &'s str) -> Result<Option<(BinOp, &'s str)>, Err<PError>>;

impl<'s> Parser<'s> {
    pub(crate) fn expr(&self, i: &'s str) -> PResult<'s, Expr> {
        let (i, (e, _)) = self.expr_h(i)?;
        Ok((i, e))
    }

    pub(crate) fn expr_h(&self, i: &'s str) -> PResult<'s, H> {
        let _g = self.enter(i)?;
        if self.at_kw(i, "if")? {
            return self.if_expr(i);
        }
        self.range_expr(i)
    }

    fn check_height(&self, i: &'s str, h: u32) -> Result<u32, Err<PError>> {
        if h > MAX_HEIGHT { Err(Err::Failure(PError::too_deep(i, "expression"))) } else { Ok(h) }
    }

    fn if_expr(&self, i: &'s str) -> PResult<'s, H> {
        let (mut i, start) = self.kw(i, "if")?;
        let mut branches = Vec::new();
        let mut h = 0;
        loop {
            let (r, (cond, hc)) = self.expr_h(i).map_err(cut)?;
            let (r, _) = self.expect_kw(r, "then")?;
            let (r, (val, hv)) = self.expr_h(r).map_err(cut)?;
            h = h.max(hc).max(hv);
            branches.push((cond, val));
            match self.kw(r, "elseif") {
                Ok((r, _)) => i = r,
                Err(Err::Error(_)) => {
                    i = r;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        branches.shrink_to_fit();
        let (i, _) = self.expect_kw(i, "else")?;
        let (i, (else_value, he)) = self.expr_h(i).map_err(cut)?;
        let h = self.check_height(i, h.max(he) + 1)?;
        let span = start.to(else_value.span);
        Ok((i, (Expr::new(ExprKind::If(Box::new(IfExpr { branches, else_value })), span), h)))
    }

    /// `a`, `a : b`, `a : b : c` (start : step : stop).
    fn range_expr(&self, i: &'s str) -> PResult<'s, H> {
        let (i, (a, ha)) = self.or_expr(i)?;
        let Some(i2) = self.range_colon(i)? else { return Ok((i, (a, ha))) };
        let (i2, (b, hb)) = self.or_expr(i2).map_err(cut)?;
        let (i, step, stop, h) = match self.range_colon(i2)? {
            Some(i3) => {
                let (i3, (c, hc)) = self.or_expr(i3).map_err(cut)?;
                (i3, Some(b), c, ha.max(hb).max(hc))
            }
            None => (i2, None, b, ha.max(hb)),
        };
        let h = self.check_height(i, h + 1)?;
        let span = a.span.to(stop.span);
        Ok((i, (Expr::new(ExprKind::Range(Box::new(RangeExpr { start: a, step, stop })), span), h)))
    }

    /// A `:` that is not `:=`.
    fn range_colon(&self, i: &'s str) -> Result<Option<&'s str>, Err<PError>> {
        let (i, ()) = self.ws(i)?;
        Ok(i.strip_prefix(':').filter(|r| !r.starts_with('=')))
    }

    fn chain(&self, i: &'s str, next: Level<'s>, op: OpPeek<'s>) -> PResult<'s, H> {
        let (i, first) = next(self, i)?;
        self.chain_from(i, first, next, op)
    }

    /// Continues a left-associative chain whose first operand is parsed.
    fn chain_from(&self, mut i: &'s str, first: H, next: Level<'s>, op: OpPeek<'s>) -> PResult<'s, H> {
        let (mut lhs, mut h) = first;
        while let Some((op, r)) = op(self, i)? {
            let (r, (rhs, hr)) = next(self, r).map_err(cut)?;
            h = self.check_height(r, h.max(hr) + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary(op, Box::new([lhs, rhs])), span);
            i = r;
        }
        Ok((i, (lhs, h)))
    }

    fn or_expr(&self, i: &'s str) -> PResult<'s, H> {
        self.chain(i, Parser::and_expr, |p, i| Ok(p.kw(i, "or").ok().map(|(r, _)| (BinOp::Or, r))))
    }

    fn and_expr(&self, i: &'s str) -> PResult<'s, H> {
        self.chain(i, Parser::not_expr, |p, i| Ok(p.kw(i, "and").ok().map(|(r, _)| (BinOp::And, r))))
    }

    fn not_expr(&self, i: &'s str) -> PResult<'s, H> {
        match self.kw(i, "not") {
            Ok((r, start)) => {
                let _g = self.enter(r)?;
                // `not not b` is read, as omc's front end reads it, but the grammar has one
                // `not` per logical factor (`logical-factor : [ not ] relation`): the printer
                // writes `not (not b)`, so a nested `not` counts two levels, for those
                // parentheses, and the print of every accepted input is accepted.
                let _parens = match self.kw(r, "not") {
                    Ok(_) => Some(self.enter(r)?),
                    Err(_) => None,
                };
                let (r, (e, h)) = self.not_expr(r).map_err(cut)?;
                let span = start.to(e.span);
                let h = self.check_height(r, h + 1)?;
                Ok((r, (Expr::new(ExprKind::Unary(UnOp::Not, Box::new(e)), span), h)))
            }
            Err(Err::Error(_)) => self.relation(i),
            Err(e) => Err(e),
        }
    }

    fn relation(&self, i: &'s str) -> PResult<'s, H> {
        let (i, (a, ha)) = self.arith(i)?;
        let (i2, ()) = self.ws(i)?;
        let op = [
            ("<=", BinOp::Le),
            (">=", BinOp::Ge),
            ("==", BinOp::Eq),
            ("<>", BinOp::Ne),
            ("<", BinOp::Lt),
            (">", BinOp::Gt),
        ]
        .into_iter()
        .find(|(s, _)| i2.starts_with(s));
        let Some((s, op)) = op else { return Ok((i, (a, ha))) };
        let (r, (b, hb)) = self.arith(&i2[s.len()..]).map_err(cut)?;
        let h = self.check_height(r, ha.max(hb) + 1)?;
        let span = a.span.to(b.span);
        Ok((r, (Expr::new(ExprKind::Binary(op, Box::new([a, b])), span), h)))
    }

    /// `[+|-] term {(+|-|.+|.-) term}` — a leading unary operator applies to the first term.
    fn arith(&self, i: &'s str) -> PResult<'s, H> {
        let (i, ()) = self.ws(i)?;
        let start = self.pos(i);
        let unary = match i.as_bytes().first() {
            Some(b'-') => Some(UnOp::Neg),
            Some(b'+') => Some(UnOp::Plus),
            _ => None,
        };
        let (i, first) = match unary {
            None => self.term(i)?,
            Some(op) => {
                let _g = self.enter(i)?;
                let (r, (e, h)) = self.term(&i[1..]).map_err(cut)?;
                let h = self.check_height(r, h + 1)?;
                let span = Span::new(start, e.span.end as usize);
                (r, (Expr::new(ExprKind::Unary(op, Box::new(e)), span), h))
            }
        };
        self.chain_from(i, first, Parser::term, |p, i| {
            let (i, ()) = p.ws(i)?;
            Ok([(".+", BinOp::ElemAdd), (".-", BinOp::ElemSub), ("+", BinOp::Add), ("-", BinOp::Sub)]
                .into_iter()
                .find(|(s, _)| i.starts_with(s))
                .map(|(s, op)| (op, &i[s.len()..])))
        })
    }

    fn term(&self, i: &'s str) -> PResult<'s, H> {
        self.chain(i, Parser::factor, |p, i| {
            let (i, ()) = p.ws(i)?;
            Ok([(".*", BinOp::ElemMul), ("./", BinOp::ElemDiv), ("*", BinOp::Mul), ("/", BinOp::Div)]
                .into_iter()
                .find(|(s, _)| i.starts_with(s))
                .map(|(s, op)| (op, &i[s.len()..])))
        })
    }

    /// `primary [(^|.^) primary]`
    pub(crate) fn factor(&self, i: &'s str) -> PResult<'s, H> {
        let (i, (a, ha)) = self.primary(i)?;
        let (i2, ()) = self.ws(i)?;
        let op = if i2.starts_with(".^") {
            Some((BinOp::ElemPow, 2))
        } else if i2.starts_with('^') {
            Some((BinOp::Pow, 1))
        } else {
            None
        };
        let Some((op, n)) = op else { return Ok((i, (a, ha))) };
        let (r, (b, hb)) = self.primary(&i2[n..]).map_err(cut)?;
        let h = self.check_height(r, ha.max(hb) + 1)?;
        let span = a.span.to(b.span);
        Ok((r, (Expr::new(ExprKind::Binary(op, Box::new([a, b])), span), h)))
    }
}
