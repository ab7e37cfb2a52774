//! Stage 5, emission: a [`RimisModel`] as Modelica text, laid out by the askama
//! template `templates/model.mo` (header comment, warnings, nested functions,
//! declarations, DECL with what each replicate holds, initial equations, the equation
//! sections in the order of Figures 13 and 15 with a comment on every block). Items are
//! printed by the canonical printer, so the output re-parses; nested classes (functions,
//! records, types) with dotted or quoted names are renamed to plain identifiers
//! everywhere (rumoca refuses `function 'WaterTank.inputFlow'`). Deterministic: a pure function of the model.

use crate::rimis::{Item, RimisModel};
use crate::syntax::ast::{ClassBody, Element, Equation, Ident, Text, text};
use crate::syntax::printer::{class_to_string, element_to_string, equation_to_string, part_to_string};
use crate::syntax::visit::{self, Visitor};
use askama::Template;
use std::collections::BTreeMap;

#[derive(Template)]
#[template(path = "model.mo", escape = "none")]
struct ModelTemplate<'a> {
    header: &'a [String],
    name: &'a str,
    warnings: Vec<String>,
    classes: Vec<String>,
    elements: Printing<'a>,
    replicates: Vec<(String, String)>,
    initial: Vec<String>,
    parts: Vec<String>,
    sections: Vec<SectionText<'a>>,
    /// The omc options of the class annotation (`__OpenModelica_commandLineOptions`), and
    /// why each: `RimisModel::omc_options`.
    omc_options: String,
    omc_why: Vec<&'a str>,
}

struct SectionText<'a> {
    title: String,
    items: Printing<'a>,
}

/// Declarations, then items, then kept equations, each printed as the template comes to
/// it: no list of handles to 10^5 of them is built (issue 15).
#[derive(Clone, Copy)]
struct Printing<'a> {
    elements: &'a [Element],
    items: &'a [Item],
    kept: &'a [Equation],
    renames: &'a Renames<'a>,
}

impl<'a> IntoIterator for &Printing<'a> {
    type Item = Printed<'a>;
    type IntoIter = Printing<'a>;

    fn into_iter(self) -> Printing<'a> {
        *self
    }
}

impl<'a> Iterator for Printing<'a> {
    type Item = Printed<'a>;

    fn next(&mut self) -> Option<Printed<'a>> {
        if let Some((e, rest)) = self.elements.split_first() {
            self.elements = rest;
            return Some(Printed::Element(e, self.renames));
        }
        if let Some((i, rest)) = self.items.split_first() {
            self.items = rest;
            return Some(Printed::Item(i, self.renames));
        }
        let (e, rest) = self.kept.split_first()?;
        self.kept = rest;
        Some(Printed::Equation(e, self.renames))
    }
}

/// A declaration or an equation of the model, printed when the template writes it (a
/// model of 10^5 equations is not held a second time as text: issue 15).
enum Printed<'a> {
    Element(&'a Element, &'a Renames<'a>),
    Item(&'a Item, &'a Renames<'a>),
    Equation(&'a Equation, &'a Renames<'a>),
}

impl std::fmt::Display for Printed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match *self {
            Printed::Element(e, renames) => renamed(e, renames, visit::walk_element, |e| element_to_string(e, 1)),
            Printed::Item(i, renames) => item_text(i, renames),
            Printed::Equation(e, renames) => equation_text(e, renames),
        };
        f.write_str(&text)
    }
}

/// The nested classes' new names (see `rimis::source`), and those of enumeration types,
/// whose literals are names `Old.Lit` too.
struct Renames<'a> {
    classes: &'a BTreeMap<String, String>,
    /// The new names.
    new_names: std::collections::BTreeSet<&'a str>,
    enums: BTreeMap<&'a str, &'a str>,
}

impl<'a> Renames<'a> {
    fn of(m: &'a RimisModel) -> Self {
        let enums = m
            .classes
            .iter()
            .filter(|c| matches!(c.body, ClassBody::Enumeration { .. }))
            .filter_map(|c| m.renames.get_key_value(c.name.text.as_str()))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        Renames { classes: &m.renames, new_names: m.renames.values().map(String::as_str).collect(), enums }
    }
}

/// Renames the nested classes where they are used: calls (functions, record
/// constructors), types, and the literals `Old.Lit` of a renamed enumeration.
struct Renamer<'a, 'b>(&'b Renames<'a>);

impl Renamer<'_, '_> {
    /// The new name of the class `name` means inside the class `scope` (its old name):
    /// `name` itself, else qualified by the packages around `scope`, innermost first
    /// (omc writes a record constructor's output type unqualified: `function A.B.R …
    /// output R res;`).
    fn resolve(&self, name: &str, scope: &str) -> Option<&str> {
        if let Some(n) = self.0.classes.get(name) {
            return Some(n);
        }
        let mut prefix = scope.trim_matches('\'');
        while let Some((outer, _)) = prefix.rsplit_once('.') {
            if let Some(n) = self.0.classes.get(&format!("{outer}.{name}")) {
                return Some(n);
            }
            prefix = outer;
        }
        None
    }
}

impl Visitor for Renamer<'_, '_> {
    fn call_name(&mut self, f: &mut Ident) {
        if let Some(n) = self.0.classes.get(f.text.as_str()) {
            f.text = text(n);
        }
    }

    fn type_name(&mut self, t: &mut Ident) {
        self.call_name(t);
    }

    fn name(&mut self, name: &mut Text) {
        let full = name.as_str();
        let hit = full.rsplit_once('.').and_then(|(ty, lit)| self.0.enums.get(ty).map(|n| format!("{n}.{lit}")));
        if let Some(n) = hit {
            *name = text(&n);
        }
    }
}

/// Renames the types of a nested class written relative to its packages.
struct ScopedTypes<'r, 'a, 'b> {
    renamer: &'r Renamer<'a, 'b>,
    scope: &'r str,
}

impl Visitor for ScopedTypes<'_, '_, '_> {
    fn type_name(&mut self, t: &mut Ident) {
        if self.renamer.0.new_names.contains(t.text.as_str()) {
            return; // already renamed
        }
        if let Some(n) = self.renamer.resolve(t.text.as_str(), self.scope) {
            t.text = text(n);
        }
    }
}

/// The part [`block_of_lines`] gives the equations of blocks merged into one system
/// (`// Blocks k l m merged: …`, `rimis/merge.rs`), under the first block listed.
pub use crate::analysis::oblivious::MERGED;

/// For each line of an emitted model, the CDG block and its part whose `// Block k.` or
/// `// Block k, part j of n.` comment it follows (`(k, 0)` for a block emitted whole,
/// `(k, j)` for its part j; `(k, MERGED)` for the blocks `// Blocks k l m merged:` lists;
/// `None` outside a block's equations).
pub fn block_of_lines(out: &str) -> Vec<Option<(usize, usize)>> {
    let mut current = None;
    out.lines()
        .map(|l| {
            let t = l.trim_start();
            if let Some(rest) = t.strip_prefix("// Blocks ") {
                current = merged_list(rest).and_then(|ks| ks.first().map(|&k| (k, MERGED)));
            } else if let Some(rest) = t.strip_prefix("// Block ") {
                current = rest.split('.').next().and_then(block_and_part);
            } else if t.starts_with("//") || !l.starts_with("  ") || l.starts_with("  // ") {
                current = None;
            }
            current
        })
        .collect()
}

/// The blocks of each `// Blocks k l m merged:` comment of an emitted model.
pub fn merged_blocks(out: &str) -> Vec<Vec<usize>> {
    out.lines().filter_map(|l| l.trim_start().strip_prefix("// Blocks ")).filter_map(merged_list).collect()
}

fn merged_list(rest: &str) -> Option<Vec<usize>> {
    let (list, _) = rest.split_once(" merged:")?;
    list.split(' ').map(|k| k.parse().ok()).collect()
}

/// `k` → (k, 0); `k, part j of n` → (k, j).
fn block_and_part(s: &str) -> Option<(usize, usize)> {
    match s.split_once(", part ") {
        None => Some((s.parse().ok()?, 0)),
        Some((k, rest)) => Some((k.parse().ok()?, rest.split(' ').next()?.parse().ok()?)),
    }
}

/// One line per comment line, `//`-prefixed, at `indent` levels.
fn comment_lines(text: &str, indent: &str) -> String {
    text.lines().map(|l| format!("{indent}// {l}")).collect::<Vec<_>>().join("\n")
}

/// `x` with the nested classes renamed (see [`Renamer`]), printed by `print` (trailing newline dropped).
fn renamed<T: Clone>(
    x: &T,
    renames: &Renames,
    walk: fn(&mut T, &mut dyn Visitor),
    print: impl Fn(&T) -> String,
) -> String {
    let mut text = if renames.classes.is_empty() {
        print(x) // nothing to rename: no copy
    } else {
        let mut x = x.clone();
        walk(&mut x, &mut Renamer(renames));
        print(&x)
    };
    text.truncate(text.trim_end().len());
    text
}

fn equation_text(e: &Equation, renames: &Renames) -> String {
    renamed(e, renames, visit::walk_equation, |e| equation_to_string(e, 1))
}

fn item_text(item: &Item, renames: &Renames) -> String {
    let body = equation_text(&item.equation, renames);
    match &item.comment {
        Some(c) => format!("{}\n{body}", comment_lines(c, "  ")),
        None => body,
    }
}

/// The model as Modelica text.
pub fn emit(m: &RimisModel) -> String {
    let renames = &Renames::of(m);
    let mut out = template(m, renames).render().unwrap_or_else(|e| format!("// emission failed: {e}\n"));
    out.push('\n');
    out
}

/// [`emit`] written to `w` as it is printed (the text is never held whole).
pub fn write(m: &RimisModel, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let renames = &Renames::of(m);
    template(m, renames).write_into(w)?;
    w.write_all(b"\n")
}

/// The template of `m`: the short parts printed, the declarations and equations printed
/// as they are written out.
fn template<'a>(m: &'a RimisModel, renames: &'a Renames<'a>) -> ModelTemplate<'a> {
    let classes = m
        .classes
        .iter()
        .map(|c| {
            let mut c = c.clone();
            visit::walk_class(&mut c, &mut Renamer(renames));
            // Types written relative to the class's packages (omc's record constructors).
            let scope = c.name.text.as_str().to_string();
            let renamer = Renamer(renames);
            visit::walk_class(&mut c, &mut ScopedTypes { renamer: &renamer, scope: &scope });
            if let Some(n) = renames.classes.get(c.name.text.as_str()) {
                c.name.text = text(n);
                if let ClassBody::Long(comp) = &mut c.body {
                    comp.end_name.text = text(n);
                }
            }
            class_to_string(&c, 1).trim_end().to_string()
        })
        .collect();
    let elements = Printing { elements: &m.elements, items: &[], kept: &[], renames };
    let replicates =
        m.replicates.iter().map(|(e, what)| (element_to_string(e, 1).trim_end().to_string(), what.clone())).collect();
    let parts = m.kept_parts.iter().map(|p| renamed(p, renames, visit::walk_part, |p| part_to_string(p, 0))).collect();
    ModelTemplate {
        header: &m.header,
        name: &m.name,
        warnings: m.warnings.iter().map(|w| w.replace('\n', " ")).collect(),
        classes,
        elements,
        replicates,
        initial: m.initial.iter().map(|i| item_text(i, renames)).collect(),
        parts,
        sections: m
            .sections
            .iter()
            .map(|s| SectionText {
                title: s.title.clone(),
                items: Printing { elements: &[], items: &s.items, kept: &s.kept, renames },
            })
            .collect(),
        omc_options: m.omc_options.iter().map(|(o, _)| o.as_str()).collect::<Vec<_>>().join(" "),
        omc_why: m.omc_options.iter().map(|(_, why)| why.as_str()).collect(),
    }
}
