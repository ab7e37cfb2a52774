//! Precedence-aware printing of expressions: parentheses exactly where re-parsing
//! needs them, so `parse(print(e)) == e` (see `ast::Prec`).

use crate::syntax::ast::*;
use std::fmt::Write;

/// Appends `e` to `out`, parenthesised if it binds looser than `min`.
pub fn write_expr(out: &mut String, e: &Expr, min: Prec) {
    let paren = e.prec() < min;
    if paren {
        out.push('(');
    }
    write_bare(out, e);
    if paren {
        out.push(')');
    }
}

/// `e` as a string, at top level.
pub fn expr_to_string(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, Prec::If);
    s
}

fn write_bare(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Number(t) | ExprKind::Name(t) => out.push_str(t),
        ExprKind::String(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Ref(r) => write_cref(out, r),
        ExprKind::End => out.push_str("end"),
        ExprKind::Call(c) => write_call(out, c),
        ExprKind::Unary(op, x) => {
            out.push_str(match op {
                UnOp::Neg => "-",
                UnOp::Plus => "+",
                UnOp::Not => "not ",
            });
            // The operand of `not` is a relation (`logical-factor : [ not ] relation`):
            // `not (not b)`, never `not not b`, which the grammar refuses; a sign's operand
            // is a term (`-a * b` is `-(a * b)`).
            let min = if *op == UnOp::Not { Prec::Relation } else { Prec::Multiplicative };
            write_expr(out, x, min);
        }
        ExprKind::Binary(op, xs) => {
            let p = op.prec();
            let (lmin, rmin) = match p {
                Prec::Relation => (Prec::Additive, Prec::Additive),
                Prec::Power => (Prec::Primary, Prec::Primary),
                Prec::Or => (Prec::Or, Prec::And),
                Prec::And => (Prec::And, Prec::Not),
                Prec::Additive => (Prec::Additive, Prec::Multiplicative),
                _ => (Prec::Multiplicative, Prec::Power),
            };
            write_expr(out, &xs[0], lmin);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            write_expr(out, &xs[1], rmin);
        }
        ExprKind::If(x) => {
            // The grammar takes any expression between `if`/`elseif`/`then`/`else`
            // (`if c then if d then a else b else e`), as omc prints it: no parentheses,
            // which would double the nesting the parser counts.
            for (k, (c, v)) in x.branches.iter().enumerate() {
                out.push_str(if k == 0 { "if " } else { " elseif " });
                write_expr(out, c, Prec::If);
                out.push_str(" then ");
                write_expr(out, v, Prec::If);
            }
            out.push_str(" else ");
            write_expr(out, &x.else_value, Prec::If);
        }
        ExprKind::Range(r) => {
            write_expr(out, &r.start, Prec::Or);
            if let Some(s) = &r.step {
                out.push(':');
                write_expr(out, s, Prec::Or);
            }
            out.push(':');
            write_expr(out, &r.stop, Prec::Or);
        }
        ExprKind::Array(items) => {
            out.push('{');
            write_list(out, items);
            out.push('}');
        }
        ExprKind::Matrix(rows) => {
            out.push('[');
            for (k, row) in rows.iter().enumerate() {
                if k > 0 {
                    out.push_str("; ");
                }
                write_list(out, row);
            }
            out.push(']');
        }
        ExprKind::ArrayComprehension(c) => {
            out.push('{');
            write_comprehension(out, c);
            out.push('}');
        }
        ExprKind::Partial(c) => {
            out.push_str("function ");
            write_call(out, c);
        }
        ExprKind::Boxed(x) => {
            out.push_str("#(");
            write_expr(out, x, Prec::If);
            out.push(')');
        }
        ExprKind::Subscripted(x) => {
            // The parser takes postfix subscripts only after a call, `{…}` or `(…)`;
            // any other base (`(a)[1]`, `(a[2])[1]`, `([1, 2])[1]`) keeps its parentheses.
            let bare = matches!(
                x.base.kind,
                ExprKind::Call(_) | ExprKind::Array(_) | ExprKind::ArrayComprehension(_) | ExprKind::Tuple(_)
            );
            if !bare {
                out.push('(');
            }
            write_expr(out, &x.base, Prec::If);
            if !bare {
                out.push(')');
            }
            write_subscripts(out, &x.subscripts);
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                if let Some(x) = item {
                    write_expr(out, x, Prec::If);
                }
            }
            out.push(')');
        }
    }
}

pub fn write_list(out: &mut String, items: &[Expr]) {
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_expr(out, x, Prec::If);
    }
}

fn write_comprehension(out: &mut String, c: &Comprehension) {
    write_expr(out, &c.expr, Prec::If);
    out.push_str(" for ");
    write_indices(out, &c.indices);
}

pub fn write_indices(out: &mut String, indices: &[ForIndex]) {
    for (k, ix) in indices.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        out.push_str(&ix.name.text);
        if let Some(r) = &ix.range {
            out.push_str(" in ");
            write_expr(out, r, Prec::If);
        }
    }
}

pub fn write_call(out: &mut String, c: &Call) {
    out.push_str(&c.function.text);
    out.push('(');
    match &c.args {
        FunctionArgs::List { positional, named } => {
            write_list(out, positional);
            for (k, n) in named.iter().enumerate() {
                if k > 0 || !positional.is_empty() {
                    out.push_str(", ");
                }
                let _ = write!(out, "{} = ", n.name.text);
                write_expr(out, &n.value, Prec::If);
            }
        }
        FunctionArgs::Comprehension(c) => write_comprehension(out, c),
    }
    out.push(')');
}

pub fn write_cref(out: &mut String, r: &ComponentRef) {
    for (k, part) in r.parts.iter().enumerate() {
        if k > 0 {
            out.push('.');
        }
        out.push_str(&part.ident.text);
        write_subscripts(out, &part.subscripts);
    }
}

pub fn write_subscripts(out: &mut String, subs: &[Subscript]) {
    if subs.is_empty() {
        return;
    }
    out.push('[');
    for (k, s) in subs.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        match s {
            Subscript::All(_) => out.push(':'),
            Subscript::Expr(e) => write_expr(out, e, Prec::If),
        }
    }
    out.push(']');
}
