//! Name resolution: which scalars a reference stands for.
//!
//! A declared scalar stands for itself. A name that is a prefix of declared scalars is an
//! aggregate: `x` for `x[1]`, `x[2]` (an array when every index of the box 1..n is
//! declared), `v` for `v.re`, `v.im` (a record; its fields in declaration order). A
//! reference with a subscript that is not static (`x[k]`) stands for every element it
//! may select. Aggregates found from the scalars' names are cached in
//! [`FlatModel::aggregates`] beside those a declaration made.

use super::eval::Env;
use super::{Aggregate, FlatModel, VarIndex};
use crate::syntax::ast::{ComponentRef, Expr, ExprKind, Subscript};

impl FlatModel<'_> {
    /// The aggregate named `name` (computed from the scalars' names when no declaration
    /// made it, then cached).
    pub fn aggregate(&mut self, name: &str) -> Option<&Aggregate> {
        if !self.aggregates.contains_key(name) {
            let found = self.find_aggregate(name)?;
            self.aggregates.insert(name.to_string(), found);
        }
        self.aggregates.get(name)
    }

    fn find_aggregate(&mut self, name: &str) -> Option<Aggregate> {
        let open = format!("{name}[");
        let mut tuples: Vec<Vec<usize>> = Vec::new();
        let vars = &self.vars;
        let named =
            self.index.from(&open, |k| vars[k as usize].name.as_str()).map(|k| (vars[k as usize].name.as_str(), k));
        for (key, _) in named.take_while(|(k, _)| k.starts_with(&open)) {
            let inside = &key[open.len()..];
            let close = inside.find(']')?;
            let idx: Option<Vec<usize>> = inside[..close].split(", ").map(|s| s.parse().ok()).collect();
            tuples.push(idx?);
        }
        if !tuples.is_empty() {
            return self.array_from(name, &tuples);
        }
        let dot = format!("{name}.");
        let mut fields: Vec<(VarIndex, String)> = Vec::new();
        let named = self
            .index
            .from(&dot, |k| vars[k as usize].name.as_str())
            .map(|k| (vars[k as usize].name.as_str(), k as VarIndex));
        for (key, k) in named.take_while(|(k, _)| k.starts_with(&dot)) {
            let rest = &key[dot.len()..];
            let end = field_end(rest);
            let field = format!("{dot}{}", &rest[..end]);
            match fields.iter_mut().find(|(_, f)| *f == field) {
                Some(entry) => entry.0 = entry.0.min(k),
                None => fields.push((k, field)),
            }
        }
        if fields.is_empty() {
            return None;
        }
        fields.sort();
        Some(Aggregate::Record { fields: fields.into_iter().map(|(_, f)| f).collect() })
    }

    /// An array aggregate from the index tuples of its scalars, when they fill a box;
    /// rows of a k-dimensional array are cached as aggregates too (`x[1]` of `x[1, 1]`).
    fn array_from(&mut self, name: &str, tuples: &[Vec<usize>]) -> Option<Aggregate> {
        let rank = tuples[0].len();
        if tuples.iter().any(|t| t.len() != rank) {
            return None;
        }
        let sizes: Vec<usize> = (0..rank).map(|d| tuples.iter().map(|t| t[d]).max().unwrap_or(0)).collect();
        let distinct: std::collections::BTreeSet<&Vec<usize>> = tuples.iter().collect();
        if distinct.len() != sizes.iter().product::<usize>() || tuples.iter().any(|t| t.contains(&0)) {
            return None;
        }
        Some(self.rows(name, &sizes, &mut Vec::new()))
    }

    fn rows(&mut self, name: &str, sizes: &[usize], prefix: &mut Vec<usize>) -> Aggregate {
        let depth = prefix.len();
        let mut elements = Vec::with_capacity(sizes[depth]);
        for k in 1..=sizes[depth] {
            prefix.push(k);
            let subs: Vec<String> = prefix.iter().map(|i| i.to_string()).collect();
            let element = format!("{name}[{}]", subs.join(", "));
            if depth + 1 < sizes.len() {
                let row = self.rows(name, sizes, prefix);
                self.aggregates.insert(element.clone(), row);
            }
            elements.push(element);
            prefix.pop();
        }
        Aggregate::Array { sizes: vec![sizes[depth]], elements }
    }

    /// Every scalar a name stands for (itself, or an aggregate's scalars), in order.
    pub fn scalars(&mut self, name: &str) -> Vec<VarIndex> {
        let mut out = Vec::new();
        self.collect(name, &mut out, 0);
        out
    }

    fn collect(&mut self, name: &str, out: &mut Vec<VarIndex>, depth: u32) {
        if let Some(k) = self.find(name) {
            out.push(k);
            return;
        }
        if depth > 32 {
            return;
        }
        let parts: Vec<String> = match self.aggregate(name) {
            Some(Aggregate::Array { elements, .. }) => elements.clone(),
            Some(Aggregate::Record { fields }) => fields.clone(),
            None => return,
        };
        for p in parts {
            self.collect(&p, out, depth + 1);
        }
    }

    /// The names a reference may denote: its static subscripts folded (`x[1 + 1]` is
    /// `x[2]`), each other subscript (`x[k]`, `x[:]`) replaced by every index of its
    /// dimension. `None` when a dimension is not known.
    pub fn names_of(&mut self, e: &Expr, env: &Env) -> Option<Vec<String>> {
        match &e.kind {
            ExprKind::Name(n) => Some(vec![n.as_str().to_string()]),
            ExprKind::Ref(r) => self.names_of_ref(r, env),
            _ => None,
        }
    }

    fn names_of_ref(&mut self, r: &ComponentRef, env: &Env) -> Option<Vec<String>> {
        let mut names = vec![String::new()];
        for (k, part) in r.parts.iter().enumerate() {
            for n in names.iter_mut() {
                if k > 0 {
                    n.push('.');
                }
                n.push_str(&part.ident.text);
            }
            if part.subscripts.is_empty() {
                continue;
            }
            let mut next = Vec::new();
            for n in names {
                next.extend(self.subscripted(&n, &part.subscripts, env)?);
            }
            names = next;
        }
        Some(names)
    }

    /// `base[s1, s2, …]`, every static index folded, the others enumerated.
    fn subscripted(&mut self, base: &str, subs: &[Subscript], env: &Env) -> Option<Vec<String>> {
        let mut names = vec![base.to_string()];
        for s in subs {
            let mut next = Vec::new();
            for n in &names {
                let fixed = match s {
                    Subscript::Expr(x) => env.int(x),
                    Subscript::All(_) => None,
                };
                match fixed {
                    Some(k) => next.push(element(n, k)),
                    None => match self.aggregate(n)? {
                        Aggregate::Array { elements, .. } => next.extend(elements.iter().cloned()),
                        Aggregate::Record { .. } => return None,
                    },
                }
            }
            names = next;
        }
        Some(names)
    }

    /// Every scalar a reference may read (see [`FlatModel::names_of`]).
    pub fn scalars_of_ref(&mut self, e: &Expr, env: &Env) -> Option<Vec<VarIndex>> {
        let names = self.names_of(e, env)?;
        let mut out = Vec::new();
        for n in names {
            out.extend(self.scalars(&n));
        }
        Some(out)
    }
}

/// `x` and 2 → `x[2]`; `x[1]` and 2 → `x[1, 2]`.
pub(super) fn element(name: &str, k: i64) -> String {
    match name.strip_suffix(']') {
        Some(open) if !name.ends_with("']") => format!("{open}, {k}]"),
        _ => format!("{name}[{k}]"),
    }
}

/// Where the first component of a dotted rest ends (`re`, `x[1]` of `x[1].y`, `'a.b'`).
fn field_end(rest: &str) -> usize {
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '.' | '[' if !quoted => return i,
            _ => {}
        }
    }
    rest.len()
}

/// The printed name of a reference with its static subscripts folded, if every one is.
pub(super) fn folded_name(r: &ComponentRef, env: &Env) -> Option<String> {
    let mut out = String::new();
    for (k, part) in r.parts.iter().enumerate() {
        if k > 0 {
            out.push('.');
        }
        out.push_str(&part.ident.text);
        let mut name = std::mem::take(&mut out);
        for s in part.subscripts.iter() {
            let Subscript::Expr(x) = s else { return None };
            name = element(&name, env.int(x)?);
        }
        out = name;
    }
    Some(out)
}
