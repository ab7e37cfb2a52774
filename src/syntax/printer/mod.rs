//! The canonical Modelica printer: one layout for every input (two-space indents,
//! one element/equation/statement per line, sections at the class's indent, a blank
//! line between top-level classes), close to omc's own. `parse(print(ast)) == ast`
//! modulo spans; labels `/* e1: */` and description strings are kept.

pub mod expr;

pub use expr::{expr_to_string, write_call, write_cref, write_expr, write_subscripts};

use crate::syntax::ast::*;
use expr::{write_indices, write_list};

/// Prints a whole file (on a thread with a large stack, see [`crate::syntax::stack`]).
pub fn print(def: &StoredDefinition) -> String {
    crate::syntax::stack::with_stack(|| print_here(def))
}

fn print_here(def: &StoredDefinition) -> String {
    let mut p = Printer { out: String::with_capacity(4096), indent: 0 };
    if let Some(h) = &def.base_header {
        p.out.push_str("//! ");
        p.out.push_str(h);
        p.out.push('\n');
    }
    if let Some(w) = &def.within {
        p.out.push_str("within");
        if let Some(n) = &w.name {
            p.out.push(' ');
            p.out.push_str(&n.text);
        }
        p.out.push_str(";\n");
    }
    for (k, c) in def.classes.iter().enumerate() {
        if k > 0 || def.within.is_some() {
            p.out.push('\n');
        }
        p.class(c);
        p.out.push_str(";\n");
    }
    p.out
}

/// One element (component, class, …) at `indent` levels, with its `;` and newline.
pub fn element_to_string(e: &Element, indent: usize) -> String {
    let mut p = Printer { out: String::new(), indent };
    p.element(e);
    p.out
}

/// One equation (simple, if, when, …) at `indent` levels, with its `;` and newline.
pub fn equation_to_string(eq: &Equation, indent: usize) -> String {
    let mut p = Printer { out: String::new(), indent };
    p.equation(eq);
    p.out
}

/// One class part (`equation …`, `algorithm …`) at `indent` levels.
pub fn part_to_string(part: &ClassPart, indent: usize) -> String {
    let mut p = Printer { out: String::new(), indent };
    p.class_part(part);
    p.out
}

/// One class definition at `indent` levels, with its `;` and newline.
pub fn class_to_string(c: &ClassDef, indent: usize) -> String {
    let mut p = Printer { out: String::new(), indent };
    p.line_start();
    p.class(c);
    p.out.push_str(";\n");
    p.out
}

struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn prefixes(&mut self, ps: &[Prefix]) {
        for p in ps {
            self.out.push_str(p.keyword());
            self.out.push(' ');
        }
    }

    fn class(&mut self, c: &ClassDef) {
        self.prefixes(&c.prefixes);
        self.out.push_str(c.kind.keyword());
        self.out.push(' ');
        self.out.push_str(&c.name.text);
        match &c.body {
            ClassBody::Long(comp) => self.composition(comp),
            ClassBody::Short { prefixes, base, dims, modification, comment } => {
                self.out.push_str(" = ");
                self.prefixes(prefixes);
                self.out.push_str(&base.text);
                write_subscripts(&mut self.out, dims);
                if let Some(m) = modification {
                    self.class_mod(m);
                }
                self.comment(comment);
            }
            ClassBody::Enumeration { literals, colon, comment } => {
                self.out.push_str(" = ");
                self.enumeration(literals, *colon);
                self.comment(comment);
            }
            ClassBody::Der { function, vars, comment } => {
                self.out.push_str(" = der(");
                self.out.push_str(&function.text);
                for v in vars {
                    self.out.push_str(", ");
                    self.out.push_str(&v.text);
                }
                self.out.push(')');
                self.comment(comment);
            }
        }
    }

    fn enumeration(&mut self, literals: &[EnumLiteral], colon: bool) {
        self.out.push_str("enumeration(");
        if colon {
            self.out.push(':');
        }
        for (k, l) in literals.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&l.name.text);
            self.comment(&l.comment);
        }
        self.out.push(')');
    }

    fn composition(&mut self, comp: &Composition) {
        self.strings(&comp.description);
        self.out.push('\n');
        // The parser reads `annotation(…);` as the class annotation after an equation or
        // algorithm section or the external clause, but as an element inside an element
        // section: without an external clause, it goes after the last section that is not
        // an element section.
        let annotation_after = match (&comp.annotation, &comp.external) {
            (Some(_), None) => comp.parts.iter().rposition(|p| !matches!(p, ClassPart::Elements { .. })),
            _ => None,
        };
        for (k, part) in comp.parts.iter().enumerate() {
            self.class_part(part);
            if annotation_after == Some(k) {
                self.class_annotation(comp);
            }
        }
        self.indent += 1;
        if let Some(ext) = &comp.external {
            self.line_start();
            self.external(ext);
        }
        self.indent -= 1;
        if annotation_after.is_none() {
            self.class_annotation(comp);
        }
        self.line_start();
        self.out.push_str("end ");
        self.out.push_str(&comp.end_name.text);
    }

    fn class_annotation(&mut self, comp: &Composition) {
        if let Some(a) = &comp.annotation {
            self.indent += 1;
            self.line_start();
            self.annotation(a);
            self.out.push_str(";\n");
            self.indent -= 1;
        }
    }

    fn external(&mut self, ext: &External) {
        self.out.push_str("external");
        if let Some(l) = &ext.language {
            self.out.push(' ');
            self.string(l);
        }
        if let Some(call) = &ext.call {
            self.out.push(' ');
            if let Some(o) = &call.output {
                // A leading string would be read as the language (`external "C" …`).
                let at = self.out.len();
                write_expr(&mut self.out, o, Prec::If);
                if ext.language.is_none() && self.out[at..].starts_with('"') {
                    self.out.insert(at, '(');
                    self.out.push(')');
                }
                self.out.push_str(" = ");
            }
            self.out.push_str(&call.function.text);
            self.out.push('(');
            write_list(&mut self.out, &call.args);
            self.out.push(')');
        }
        if let Some(a) = &ext.annotation {
            self.out.push(' ');
            self.annotation(a);
        }
        self.out.push_str(";\n");
    }

    fn class_part(&mut self, part: &ClassPart) {
        let header = match part {
            ClassPart::Elements { visibility: Visibility::Implicit, .. } => None,
            ClassPart::Elements { visibility: Visibility::Public, .. } => Some("public"),
            ClassPart::Elements { visibility: Visibility::Protected, .. } => Some("protected"),
            ClassPart::Equations { initial: true, .. } => Some("initial equation"),
            ClassPart::Equations { initial: false, .. } => Some("equation"),
            ClassPart::Algorithm { initial: true, .. } => Some("initial algorithm"),
            ClassPart::Algorithm { initial: false, .. } => Some("algorithm"),
            ClassPart::StateMachine(sm) => return self.state_machine(sm),
        };
        if let Some(h) = header {
            self.line_start();
            self.out.push_str(h);
            self.out.push('\n');
        }
        self.indent += 1;
        match part {
            ClassPart::Elements { elements, .. } => elements.iter().for_each(|e| self.element(e)),
            ClassPart::Equations { equations, .. } => equations.iter().for_each(|e| self.equation(e)),
            ClassPart::Algorithm { statements, .. } => statements.iter().for_each(|s| self.statement(s)),
            ClassPart::StateMachine(_) => unreachable!("printed above"),
        }
        self.indent -= 1;
    }

    /// omc's layout: states at +1, their elements at +3 and `equation` at +2, the
    /// machine's own `equation` at +1, `end` at the machine's indent.
    fn state_machine(&mut self, sm: &StateMachine) {
        self.line_start();
        self.out.push_str("stateMachine ");
        self.out.push_str(&sm.name.text);
        self.out.push('\n');
        let base = self.indent;
        for (k, st) in sm.states.iter().enumerate() {
            if k > 0 {
                self.out.push('\n');
            }
            self.indent = base + 1;
            self.line_start();
            self.out.push_str("state ");
            self.out.push_str(&st.name.text);
            self.out.push('\n');
            self.indent = base + 3;
            st.elements.iter().for_each(|e| self.element(e));
            if !st.equations.is_empty() {
                self.indent = base + 2;
                self.line_start();
                self.out.push_str("equation\n");
                self.indent = base + 3;
                st.equations.iter().for_each(|e| self.equation(e));
            }
            self.indent = base + 1;
            self.line_start();
            self.out.push_str("end ");
            self.out.push_str(&st.name.text);
            self.out.push_str(";\n");
        }
        if !sm.equations.is_empty() {
            self.indent = base + 1;
            self.line_start();
            self.out.push_str("equation\n");
            self.indent = base + 2;
            sm.equations.iter().for_each(|e| self.equation(e));
        }
        self.indent = base;
        self.line_start();
        self.out.push_str("end ");
        self.out.push_str(&sm.name.text);
        self.out.push_str(";\n");
    }

    fn element(&mut self, e: &Element) {
        self.line_start();
        match e {
            Element::Component(c) => self.component(c),
            Element::Class(c) => self.class(c),
            Element::Extends(x) => {
                self.out.push_str("extends ");
                self.out.push_str(&x.name.text);
                if let Some(m) = &x.modification {
                    self.class_mod(m);
                }
                if let Some(a) = &x.annotation {
                    self.out.push(' ');
                    self.annotation(a);
                }
            }
            Element::Import(im) => self.import(im),
            Element::Annotation(a) => self.annotation(a),
        }
        self.out.push_str(";\n");
    }

    fn import(&mut self, im: &Import) {
        self.out.push_str("import ");
        if let Some(a) = &im.alias {
            self.out.push_str(&a.text);
            self.out.push_str(" = ");
        }
        self.out.push_str(&im.name.text);
        if im.wildcard {
            self.out.push_str(".*");
        } else if !im.list.is_empty() {
            self.out.push_str(".{");
            let names: Vec<&str> = im.list.iter().map(|n| n.text.as_str()).collect();
            self.out.push_str(&names.join(", "));
            self.out.push('}');
        }
        self.comment(&im.comment);
    }

    fn component(&mut self, c: &Component) {
        self.prefixes(&c.prefixes());
        match &*c.type_spec() {
            TypeSpec::Name(n) => self.out.push_str(&n.text),
            TypeSpec::Enumeration(e) => self.enumeration(&e.literals, e.colon),
        }
        if let Some(m) = c.type_mod() {
            self.class_mod(m);
        }
        write_subscripts(&mut self.out, c.type_dims());
        for (k, d) in c.declarations().iter().enumerate() {
            self.out.push_str(if k == 0 { " " } else { ", " });
            write_cref(&mut self.out, &d.name());
            write_subscripts(&mut self.out, &d.dims);
            if let Some(m) = &d.modification {
                self.modification(m);
            }
            if let Some(c) = d.condition.as_deref() {
                self.out.push_str(" if ");
                write_expr(&mut self.out, c, Prec::If);
            }
            self.comment(&d.comment);
        }
    }

    fn modification(&mut self, m: &Modification) {
        if let Some(cm) = &m.class_mod {
            self.class_mod(cm);
        }
        if let Some(v) = &m.value {
            self.out.push_str(if v.assign { " := " } else { " = " });
            write_expr(&mut self.out, &v.expr, Prec::If);
        }
    }

    fn class_mod(&mut self, m: &ClassMod) {
        self.out.push('(');
        for (k, a) in m.args.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            if a.each() {
                self.out.push_str("each ");
            }
            if a.is_final() {
                self.out.push_str("final ");
            }
            self.out.push_str(&a.name.text);
            if let Some(cm) = a.class_mod() {
                self.class_mod(cm);
            }
            if let Some(v) = &a.value {
                self.out.push_str(if a.assign() { " := " } else { " = " });
                write_expr(&mut self.out, v, Prec::If);
            }
            self.strings(a.description());
        }
        self.out.push(')');
    }

    fn annotation(&mut self, a: &ClassMod) {
        self.out.push_str("annotation");
        self.class_mod(a);
    }

    fn string(&mut self, s: &StringLit) {
        self.out.push('"');
        self.out.push_str(&s.raw);
        self.out.push('"');
    }

    /// ` "a" + "b"` (nothing when empty).
    fn strings(&mut self, ss: &[StringLit]) {
        for (k, s) in ss.iter().enumerate() {
            self.out.push_str(if k == 0 { " " } else { " + " });
            self.string(s);
        }
    }

    fn comment(&mut self, c: &Comment) {
        self.strings(&c.strings);
        if let Some(a) = &c.annotation {
            self.out.push(' ');
            self.annotation(a);
        }
    }

    fn opt_comment(&mut self, c: &Option<Box<Comment>>) {
        if let Some(c) = c {
            self.comment(c);
        }
    }

    fn equation(&mut self, eq: &Equation) {
        self.line_start();
        if let Some(l) = eq.label() {
            self.out.push_str("/* ");
            self.out.push_str(&l.text);
            self.out.push_str(": */ ");
        }
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                self.item_start(|out| write_expr(out, lhs, Prec::If));
                self.out.push_str(" = ");
                write_expr(&mut self.out, rhs, Prec::If);
            }
            EquationKind::If { branches, else_branch } => {
                self.if_block(branches, else_branch.as_deref(), Printer::equation);
            }
            EquationKind::For { indices, body } => self.for_block("for", indices, body, Printer::equation),
            EquationKind::When { branches } => self.when_block(branches, Printer::equation),
            EquationKind::Connect(ab) => {
                self.out.push_str("connect(");
                write_cref(&mut self.out, &ab[0]);
                self.out.push_str(", ");
                write_cref(&mut self.out, &ab[1]);
                self.out.push(')');
            }
            EquationKind::Call(c) => self.item_start(|out| write_call(out, c)),
        }
        if let Some(c) = eq.comment() {
            self.comment(c);
        }
        self.out.push_str(";\n");
    }

    fn statement(&mut self, st: &Statement) {
        self.line_start();
        match &st.kind {
            StatementKind::Assign { target, value } => {
                self.item_start(|out| write_expr(out, target, Prec::If));
                self.out.push_str(" := ");
                write_expr(&mut self.out, value, Prec::If);
            }
            StatementKind::Call(c) => self.item_start(|out| write_call(out, c)),
            StatementKind::If { branches, else_branch } => {
                self.if_block(branches, else_branch.as_deref(), Printer::statement);
            }
            StatementKind::For { indices, body } => self.for_block("for", indices, body, Printer::statement),
            StatementKind::While { condition, body } => {
                self.out.push_str("while ");
                write_expr(&mut self.out, condition, Prec::If);
                self.out.push_str(" loop\n");
                self.body(body, Printer::statement);
                self.line_start();
                self.out.push_str("end while");
            }
            StatementKind::When { branches } => self.when_block(branches, Printer::statement),
            StatementKind::Return(None) => self.out.push_str("return"),
            StatementKind::Return(Some(e)) => {
                self.out.push_str("return ");
                write_expr(&mut self.out, e, Prec::If);
            }
            StatementKind::Break => self.out.push_str("break"),
        }
        self.opt_comment(&st.comment);
        self.out.push_str(";\n");
    }

    /// The expression that starts an equation or statement, parenthesised when its first
    /// word would make the parser read something else (an if-expression on the left-hand
    /// side would start an if-equation, `initial()` would end the section).
    fn item_start(&mut self, write: impl FnOnce(&mut String)) {
        let at = self.out.len();
        write(&mut self.out);
        let first = &self.out[at..];
        let n = first.bytes().take_while(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$').count();
        if crate::syntax::parser::diverts_item(&first[..n]) {
            self.out.insert(at, '(');
            self.out.push(')');
        }
    }

    fn body<T>(&mut self, items: &[T], each: fn(&mut Self, &T)) {
        self.indent += 1;
        for x in items {
            each(self, x);
        }
        self.indent -= 1;
    }

    fn if_block<T>(&mut self, branches: &[(Expr, Vec<T>)], else_branch: Option<&[T]>, each: fn(&mut Self, &T)) {
        for (k, (c, items)) in branches.iter().enumerate() {
            if k > 0 {
                self.line_start();
            }
            self.out.push_str(if k == 0 { "if " } else { "elseif " });
            write_expr(&mut self.out, c, Prec::If);
            self.out.push_str(" then\n");
            self.body(items, each);
        }
        if let Some(items) = else_branch {
            self.line_start();
            self.out.push_str("else\n");
            self.body(items, each);
        }
        self.line_start();
        self.out.push_str("end if");
    }

    fn when_block<T>(&mut self, branches: &[(Expr, Vec<T>)], each: fn(&mut Self, &T)) {
        for (k, (c, items)) in branches.iter().enumerate() {
            if k > 0 {
                self.line_start();
            }
            self.out.push_str(if k == 0 { "when " } else { "elsewhen " });
            write_expr(&mut self.out, c, Prec::If);
            self.out.push_str(" then\n");
            self.body(items, each);
        }
        self.line_start();
        self.out.push_str("end when");
    }

    fn for_block<T>(&mut self, kw: &str, indices: &[ForIndex], body: &[T], each: fn(&mut Self, &T)) {
        self.out.push_str(kw);
        self.out.push(' ');
        write_indices(&mut self.out, indices);
        self.out.push_str(" loop\n");
        self.body(body, each);
        self.line_start();
        self.out.push_str("end for");
    }
}
