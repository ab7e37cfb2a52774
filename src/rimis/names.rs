//! The namer: fresh identifiers for replicates, dummy derivatives and renamed
//! functions. Every identifier of the input (and every Modelica keyword) is taken; a
//! wanted name that is taken gets the first free suffix `_1`, `_2`, … Deterministic.

use crate::syntax::ast::{StoredDefinition, Text};
use crate::syntax::parser::is_keyword;
use crate::syntax::visit::{self, Visitor};
use std::collections::BTreeSet;

#[derive(Clone, Debug, Default)]
pub(crate) struct Namer {
    taken: BTreeSet<String>,
}

/// Collects every name, declared identifier, class name and called function of a file.
struct Collect<'a>(&'a mut BTreeSet<String>);

impl Visitor for Collect<'_> {
    fn call_name(&mut self, f: &mut crate::syntax::ast::Ident) {
        insert_parts(self.0, &f.text);
    }
    fn name(&mut self, n: &mut Text) {
        insert_parts(self.0, n);
    }
    fn ident(&mut self, i: &mut crate::syntax::ast::Ident) {
        insert_parts(self.0, &i.text);
    }
}

fn insert_parts(set: &mut BTreeSet<String>, t: &str) {
    set.insert(t.to_string());
    set.insert(t.trim_matches('\'').to_string());
}

impl Namer {
    /// A namer for which every identifier of `def` is taken.
    pub(crate) fn of(def: &StoredDefinition) -> Namer {
        let mut taken = BTreeSet::new();
        let mut copy = def.clone();
        visit::walk(&mut copy, &mut Collect(&mut taken));
        Namer { taken }
    }

    /// `want` if free, else `want_1`, `want_2`, …; the result is taken.
    pub(crate) fn fresh(&mut self, want: &str) -> String {
        let mut n = want.to_string();
        let mut k = 0;
        while self.taken.contains(&n) || is_keyword(&n) {
            k += 1;
            n = format!("{want}_{k}");
        }
        self.taken.insert(n.clone());
        n
    }

    /// A plain identifier for `name`: quotes dropped, every character that cannot be in
    /// an identifier (`.`, `[`, …) replaced by `_`.
    pub(crate) fn plain(name: &str) -> String {
        let s: String = name
            .trim_matches('\'')
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
            .collect();
        if s.starts_with(|c: char| c.is_ascii_digit()) || s.is_empty() { format!("_{s}") } else { s }
    }
}
