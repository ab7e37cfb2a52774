//! Multiplexers that are aliases (issue 32, point 1: what omc would eliminate as aliases
//! not introduced at all): `u = if m then x else y` where the block writing x is guarded by
//! a condition inside `m` (`m`, or `m and …`: the block entered one step late, issue 30)
//! and holds y outside it (`x = y`, or `x = if m then <left limit> else y`, paper 000 §4.7),
//! so that u equals x at every instant — where m holds the multiplexer selects x, elsewhere
//! x holds what the multiplexer selects. Likewise y, where its block is guarded inside
//! `not m` and holds x outside it. The multiplexer goes, and the replicate is renamed u
//! everywhere (its block then writes u; the other side's hold reads u). The compressible
//! building's doors: 10 of each room's 11 multiplexers.
//!
//! Not where the replicate is read under `pre`, `der` or `reinit`, is declared `fixed`,
//! or where its block reads u itself (renaming would close a loop the replicate kept open).

use super::RimisModel;
use super::exprs;
use super::merge::{Index, MULTI, Mux, REPL, element_names, mux_of, name_of, rename, section};
use crate::syntax::ast::{BinOp, Equation, EquationKind, Expr, ExprKind, UnOp};
use crate::syntax::printer::element_to_string;
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, BTreeSet};

/// Removes the multiplexers that are aliases of one of their replicates, renaming it.
pub(crate) fn alias_muxes(out: &mut RimisModel, replicates: &dyn Fn(&str) -> bool) {
    let (Some(multi), Some(repl)) = (section(out, MULTI), section(out, REPL)) else { return };
    let muxes: Vec<(String, Mux)> = out.sections[multi]
        .items
        .iter()
        .enumerate()
        .filter_map(|(k, it)| mux_of(&it.equation, k, replicates))
        .collect();
    if muxes.is_empty() {
        return;
    }
    let wanted: FxHashSet<&str> = muxes.iter().flat_map(|(_, x)| [x.u.as_str(), x.x.as_str(), x.y.as_str()]).collect();
    let index = Index::of(out, &wanted);
    // The block (REPL item) that writes each replicate: its else branch names it.
    let mut writer: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, it) in out.sections[repl].items.iter().enumerate() {
        if let EquationKind::If { branches, else_branch: Some(els) } = &it.equation.kind
            && branches.len() == 1
        {
            for e in els.iter() {
                if let EquationKind::Simple { lhs, .. } = &e.kind
                    && let Some(n) = name_of(lhs)
                    && wanted.contains(n)
                {
                    writer.insert(n, k);
                }
            }
        }
    }
    let fixed: FxHashSet<String> = out
        .replicates
        .iter()
        .filter(|(e, _)| element_to_string(e, 0).contains("fixed = true"))
        .flat_map(|(e, _)| element_names(e))
        .collect();
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut gone: BTreeSet<usize> = BTreeSet::new();
    // A name takes part in one alias at most (a replicate two multiplexers select, a
    // multiplexer's target that is another's replicate: campaign seed 2283).
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, x) in &muxes {
        for n in [&x.u, &x.x, &x.y] {
            *counts.entry(n.as_str()).or_default() += 1;
        }
    }
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for (m, mux) in &muxes {
        if used.contains(mux.u.as_str()) || counts[mux.u.as_str()] > 1 {
            continue;
        }
        let pick = [(mux.x.as_str(), mux.y.as_str(), true), (mux.y.as_str(), mux.x.as_str(), false)].into_iter().find(
            |&(r, other, positive)| {
                let Some(&k) = writer.get(r) else { return false };
                let EquationKind::If { branches, else_branch: Some(els) } = &out.sections[repl].items[k].equation.kind
                else {
                    return false;
                };
                let (g, body) = &branches[0];
                let read_plainly = index.occurrences(std::iter::once(r)).all(|(_, _, _, under)| !under);
                let reads_u = body.iter().any(|e| reads(e, &mux.u));
                inside(g, m, positive)
                    && holds(els, r, other, m, positive)
                    && read_plainly
                    && !reads_u
                    && !fixed.contains(r)
                    && counts[r] == 1
                    && !used.contains(r)
                    && !used.contains(other)
            },
        );
        if let Some((r, other, _)) = pick {
            renames.insert(r.to_string(), mux.u.clone());
            gone.insert(mux.item);
            used.extend([r, other, mux.u.as_str()]);
        }
    }
    if renames.is_empty() {
        return;
    }
    let old = std::mem::take(&mut out.sections[multi].items);
    out.sections[multi].items =
        old.into_iter().enumerate().filter(|(k, _)| !gone.contains(k)).map(|(_, it)| it).collect();
    for s in &mut out.sections {
        for it in &mut s.items {
            it.equation = rename(&it.equation, &renames);
        }
    }
    for it in &mut out.initial {
        it.equation = rename(&it.equation, &renames);
    }
    out.replicates.retain(|(e, _)| element_names(e).iter().all(|n| !renames.contains_key(n)));
    out.sections.retain(|s| !s.items.is_empty() || !s.kept.is_empty());
}

/// Whether the guard `g` implies `m` (`positive`) or `not m`: it is that, or a conjunction
/// with it.
fn inside(g: &Expr, m: &str, positive: bool) -> bool {
    match &g.kind {
        ExprKind::Binary(BinOp::And, xs) => inside(&xs[0], m, positive) || inside(&xs[1], m, positive),
        ExprKind::Unary(UnOp::Not, x) if !positive => name_of(x) == Some(m),
        _ => positive && name_of(g) == Some(m),
    }
}

/// Whether the else branch `els` sets `r` to `other` wherever the multiplexer selects
/// `other` (`not m` for the positive side, `m` for the other): `r = other`, or for the
/// positive side `r = if m then … else other`.
fn holds(els: &[Equation], r: &str, other: &str, m: &str, positive: bool) -> bool {
    els.iter().any(|e| {
        let EquationKind::Simple { lhs, rhs } = &e.kind else { return false };
        if name_of(lhs) != Some(r) {
            return false;
        }
        match &rhs.kind {
            ExprKind::If(x) if positive => {
                matches!(x.branches.as_slice(), [(c, _)] if name_of(c) == Some(m))
                    && name_of(&x.else_value) == Some(other)
            }
            _ => name_of(rhs) == Some(other),
        }
    })
}

/// Whether `e` reads the name `u`.
fn reads(e: &Equation, u: &str) -> bool {
    let mut found = false;
    crate::syntax::visit::equation_exprs(e, &mut |x| {
        exprs::for_each(x, &mut |y| found |= exprs::var_name(y).is_some_and(|n| n == u));
    });
    found
}
