//! The namer: fresh identifiers for replicates, dummy derivatives and renamed
//! functions. Every identifier of the input (and every Modelica keyword) is taken; a
//! wanted name that is taken gets the first free suffix `_1`, `_2`, … Deterministic.
//!
//! O(1) amortised per name (issue 15: the linear search of suffixes was 31% of the main
//! job on Westinghouse N = 500): names are never released, so the suffixes below the last
//! one given for a wanted name stay taken, and the search for that name resumes there.
//! Hash sets are fine here: nothing iterates over them.

use crate::syntax::ast::{ClassBody, ClassDef, ClassPart, Composition, Element, StoredDefinition, Text};
use crate::syntax::parser::is_keyword;
use crate::syntax::visit::{self, Visitor};
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, Debug, Default)]
pub(crate) struct Namer {
    taken: FxHashSet<String>,
    /// Per wanted name that was taken: the suffix to try first next time (every smaller
    /// one is taken).
    next: FxHashMap<String, u64>,
}

/// Collects every name, declared identifier, class name and called function of a file.
struct Collect<'a>(&'a mut FxHashSet<String>);

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

/// What `visit::walk_class` visits in `c`, walked piece by piece on copies of one
/// element, equation or part at a time (the walk is mutable; a copy of the whole file
/// doubled the memory of a large model, issue 15).
fn collect_class(c: &ClassDef, v: &mut Collect) {
    let ClassBody::Long(comp) = &c.body else {
        return visit::walk_class(&mut c.clone(), v);
    };
    // The class without its parts (its name, external clause, annotations)…
    let shell = ClassDef {
        prefixes: c.prefixes,
        kind: c.kind,
        name: c.name.clone(),
        body: ClassBody::Long(Box::new(Composition {
            description: comp.description.clone(),
            parts: Vec::new(),
            external: comp.external.clone(),
            annotation: comp.annotation.clone(),
            end_name: comp.end_name.clone(),
        })),
        span: c.span,
    };
    visit::walk_class(&mut { shell }, v);
    // …then each part, item by item.
    for part in &comp.parts {
        match part {
            ClassPart::Elements { elements, .. } => {
                for e in elements {
                    match e {
                        Element::Class(inner) => collect_class(inner, v),
                        other => visit::walk_element(&mut other.clone(), v),
                    }
                }
            }
            ClassPart::Equations { equations, .. } => {
                equations.iter().for_each(|e| visit::walk_equation(&mut e.clone(), v));
            }
            ClassPart::Algorithm { .. } | ClassPart::StateMachine(_) => visit::walk_part(&mut part.clone(), v),
        }
    }
}

fn insert_parts(set: &mut FxHashSet<String>, t: &str) {
    if !set.contains(t) {
        set.insert(t.to_string());
    }
    let bare = t.trim_matches('\'');
    if bare.len() != t.len() && !set.contains(bare) {
        set.insert(bare.to_string());
    }
}

impl Namer {
    /// A namer for which every identifier of `def` is taken.
    pub(crate) fn of(def: &StoredDefinition) -> Namer {
        let mut taken = FxHashSet::default();
        for c in &def.classes {
            collect_class(c, &mut Collect(&mut taken));
        }
        Namer { taken, next: FxHashMap::default() }
    }

    /// `want` if free, else the first free of `want_1`, `want_2`, …; the result is taken.
    pub(crate) fn fresh(&mut self, want: &str) -> String {
        let free = |n: &str, taken: &FxHashSet<String>| !taken.contains(n) && !is_keyword(n);
        if free(want, &self.taken) {
            self.taken.insert(want.to_string());
            return want.to_string();
        }
        let k = self.next.entry(want.to_string()).or_insert(1);
        let mut n = format!("{want}_{k}");
        while !free(&n, &self.taken) {
            *k += 1;
            n = format!("{want}_{k}");
        }
        *k += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: the first free of `want`, `want_1`, `want_2`, … by linear search.
    fn reference(taken: &mut std::collections::BTreeSet<String>, want: &str) -> String {
        let mut n = want.to_string();
        let mut k = 0;
        while taken.contains(&n) || is_keyword(&n) {
            k += 1;
            n = format!("{want}_{k}");
        }
        taken.insert(n.clone());
        n
    }

    #[test]
    fn fresh_gives_the_first_free_suffix_like_a_linear_search() {
        let wants = ["x", "x_1", "x_2", "end", "y", "x_1_1", "x", "x", "end", "x_3", "x", "x_1"];
        let mut seed = 7u64;
        let mut namer = Namer::default();
        let mut taken = std::collections::BTreeSet::new();
        for pre in ["x_2", "x_4", "y"] {
            namer.taken.insert(pre.to_string());
            taken.insert(pre.to_string());
        }
        for _ in 0..2000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let want = wants[(seed >> 33) as usize % wants.len()];
            assert_eq!(namer.fresh(want), reference(&mut taken, want), "want {want}");
        }
    }
}
