//! The initial system's verdict in every mode it is checked in: a perfect matching of its
//! rows (the model's equations, the initial equations active there, the `fixed` starts)
//! and its unknowns (every real unknown, and each derivative up to the highest order that
//! an active row reads: `der(x)` is an unknown of its own where x is a state), else the
//! Dulmage–Mendelsohn diagnosis: the unknowns left free (underdetermined) and the
//! equations left over (overdetermined).
//!
//! Per connected component of the union graph (every row, every entry whatever its guard;
//! all orders of one unknown in one component): a mode's graph restricted to a component
//! depends only on the modes the component's guards and activity conditions mention, so
//! each component is checked once per assignment of those — the care set (the modes the
//! model may start in) projected on them, each extending to a mode of the care set —
//! times every value of its free choices. Affordable when those assignments times the
//! component's entries, summed over the components, stay within [`MAX_WORK`]; beyond, no
//! verdict, never a guess. A model without modes is one matching per component.

use super::rows::{Origin, Row};
use super::start::AtStart;
use super::{Failure, Verdict};
use crate::analysis::Cdg;
use crate::analysis::dm::decompose;
use crate::analysis::matching::{FREE, Rows, hopcroft_karp};
use crate::analysis::meets::meets;
use crate::analysis::modes::ModeSpace;
use crate::mdae::{Cond, EqId, Mdae, ModeId, VarId};
use biodivine_lib_bdd::{Bdd, BddPartialValuation, BddVariable};
use std::collections::BTreeMap;

/// The most (assignments × entries) the check enumerates (as `every_mode::MAX_WORK`).
pub const MAX_WORK: u64 = 2_000_000;

/// The most modes, and the most free choices, one component may mention.
const MAX_MODES: usize = 20;

/// The most failures listed (the others are counted).
const MAX_LISTED: usize = 20;

/// The initial system: the model's equations, then `extra`.
pub(super) struct System<'s, 'm> {
    pub mdae: &'s Mdae<'m>,
    pub extra: &'s [Row],
    pub at: &'s AtStart<'m>,
}

impl System<'_, '_> {
    fn n_rows(&self) -> usize {
        self.mdae.equations.len() + self.extra.len()
    }

    /// Row `r`'s activity condition.
    fn active(&self, r: usize) -> &Cond {
        match r.checked_sub(self.mdae.equations.len()) {
            None => self.mdae.active(EqId(r as u32)),
            Some(k) => &self.extra[k].active,
        }
    }

    /// Calls `f` on each entry (unknown, order, guard) of row `r`.
    fn entries(&self, r: usize, f: &mut dyn FnMut(VarId, u8, &Cond)) {
        match r.checked_sub(self.mdae.equations.len()) {
            None => self.mdae.incidence(EqId(r as u32)).iter().for_each(|i| f(i.var, i.order, i.when)),
            Some(k) => self.extra[k].each(f),
        }
    }

    /// Row `r`'s name: the model's equation label, `i<line>` for an initial equation,
    /// `fixed(x)` for a `fixed` start.
    fn row_name(&self, r: usize) -> String {
        match r.checked_sub(self.mdae.equations.len()) {
            None => self.mdae.label(EqId(r as u32)).to_string(),
            Some(k) => match &self.extra[k].origin {
                Origin::Initial { line, k: 1 } => format!("i{line}"),
                Origin::Initial { line, k } => format!("i{line}_{k}"),
                Origin::Fixed(v) => format!("fixed({})", self.mdae.var(*v).name),
            },
        }
    }
}

/// A component of the union graph: its unknowns and rows, increasing.
struct Component {
    vars: Vec<u32>,
    rows: Vec<u32>,
}

/// The verdict over the modes of `care` (module header).
pub(super) fn verdict(sys: &System, cdg: &Cdg, care: &Bdd) -> Verdict {
    let n_modes = sys.at.n_modes();
    let components = components(sys);
    // The care set projected on a component's modes, with its assignments (components
    // often share their modes).
    let mut projections: BTreeMap<Vec<ModeId>, (Bdd, Vec<Vec<bool>>)> = BTreeMap::new();
    let mut work = 0u64;
    let mut plans = Vec::with_capacity(components.len());
    for c in &components {
        let mut modes = Vec::new();
        let mut entries = 0u64;
        for &r in &c.rows {
            sys.active(r as usize).modes(&mut modes);
            sys.entries(r as usize, &mut |_, _, when| {
                when.modes(&mut modes);
                entries += 1;
            });
        }
        modes.sort();
        modes.dedup();
        let (real, free): (Vec<ModeId>, Vec<ModeId>) = modes.into_iter().partition(|m| m.index() < n_modes);
        if real.len() > MAX_MODES || free.len() > MAX_MODES {
            let reason = format!(
                "a part of the initial system depends on {} modes and {} conditions read as free choices (at most {MAX_MODES} each)",
                real.len(),
                free.len()
            );
            return Verdict::NotChecked { reason };
        }
        let (_, assignments) = projections.entry(real.clone()).or_insert_with(|| assignments(&cdg.space, care, &real));
        let count = (assignments.len() as u64).saturating_mul(1 << free.len());
        work = work.saturating_add(count.saturating_mul(entries + c.rows.len() as u64 + 1));
        if work > MAX_WORK {
            let reason = format!("too many modes to enumerate (more than {MAX_WORK} assignments × entries)");
            return Verdict::NotChecked { reason };
        }
        plans.push((real, free));
    }
    let mut failures = Vec::new();
    let (mut checks, mut unlisted) = (0u64, 0usize);
    let mut scratch = Scratch { local: vec![u32::MAX; sys.mdae.vars.len()] };
    for (c, (real, free)) in components.iter().zip(&plans) {
        let (projected, assignments) = &projections[real];
        // Per diagnosis (and values of the free choices): the assignments that give it.
        let mut found: Vec<(Failure, Bdd)> = Vec::new();
        for a in assignments {
            let cube = cube(&cdg.space, real, a);
            let offsets = offsets(sys, cdg, c, &cube.and(care));
            for bits in 0u64..(1 << free.len()) {
                let holds = |m: ModeId| match real.binary_search(&m) {
                    Ok(k) => a[k],
                    Err(_) => free.binary_search(&m).is_ok_and(|k| bits >> k & 1 == 1),
                };
                checks += 1;
                let Some(mut failure) = scratch.check(sys, c, &offsets, &holds) else { continue };
                failure.when = choices(sys, free, &holds);
                match found.iter_mut().find(|(f, _)| *f == failure) {
                    Some((_, modes)) => *modes = modes.or(&cube),
                    None => found.push((failure, cube.clone())),
                }
            }
        }
        for (mut failure, modes) in found {
            if failures.len() == MAX_LISTED {
                unlisted += 1;
                continue;
            }
            let mut when = if modes == *projected { String::new() } else { cdg.space.text(&modes, projected) };
            if !failure.when.is_empty() {
                when = if when.is_empty() { failure.when } else { format!("{when} and {}", failure.when) };
            }
            failure.when = if when.is_empty() { "true".into() } else { when };
            failures.push(failure);
        }
    }
    if failures.is_empty() { Verdict::Determined { checks } } else { Verdict::NotDetermined { failures, unlisted } }
}

/// The modes of `real` with the values `a`, as a BDD.
fn cube(space: &ModeSpace, real: &[ModeId], a: &[bool]) -> Bdd {
    let lits: Vec<(BddVariable, bool)> = real.iter().zip(a).map(|(m, &v)| (space.mode_vars[m.index()], v)).collect();
    space.set.mk_conjunctive_clause(&BddPartialValuation::from_values(&lits))
}

/// The offset c of each of the component's rows in the modes `modes` (within the regular
/// ones): the Σ-method's, where the model's equation is differentiated c times; 0 for the
/// rows the initial system adds. The component's structure, hence its offsets, is the same
/// in every mode of `modes` (they fix the modes it depends on).
fn offsets(sys: &System, cdg: &Cdg, c: &Component, modes: &Bdd) -> Vec<u32> {
    let n_eq = sys.mdae.equations.len();
    c.rows
        .iter()
        .map(|&r| {
            let r = r as usize;
            if r >= n_eq {
                return 0;
            }
            let values = cdg.offsets.get(r);
            match values.as_ref() {
                [(c, _)] => *c,
                many => many.iter().find(|(_, m)| meets(&cdg.bdd(m), modes)).map_or(0, |(c, _)| *c),
            }
        })
        .collect()
}

/// The free choices' values, as a conjunction (empty without free choices).
fn choices(sys: &System, free: &[ModeId], holds: &dyn Fn(ModeId) -> bool) -> String {
    let parts: Vec<String> =
        free.iter().map(|&m| if holds(m) { sys.at.name(m) } else { format!("not {}", sys.at.name(m)) }).collect();
    parts.join(" and ")
}

/// The connected components of the union graph, in order of their first unknown or row.
fn components(sys: &System) -> Vec<Component> {
    let nv = sys.mdae.vars.len();
    let mut parent: Vec<u32> = (0..(nv + sys.n_rows()) as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for r in 0..sys.n_rows() {
        let node = (nv + r) as u32;
        sys.entries(r, &mut |v, _, _| {
            let (a, b) = (find(&mut parent, node), find(&mut parent, v.0));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        });
    }
    let mut index: Vec<u32> = vec![u32::MAX; parent.len()];
    let mut out: Vec<Component> = Vec::new();
    for x in 0..parent.len() as u32 {
        let root = find(&mut parent, x) as usize;
        if index[root] == u32::MAX {
            index[root] = out.len() as u32;
            out.push(Component { vars: Vec::new(), rows: Vec::new() });
        }
        let c = &mut out[index[root] as usize];
        match (x as usize).checked_sub(nv) {
            None => c.vars.push(x),
            Some(r) => c.rows.push(r as u32),
        }
    }
    out
}

/// `care` projected on `modes`, and its assignments of them (each extends to a mode of
/// `care`).
fn assignments(space: &ModeSpace, care: &Bdd, modes: &[ModeId]) -> (Bdd, Vec<Vec<bool>>) {
    let vars: Vec<BddVariable> = modes.iter().map(|m| space.mode_vars[m.index()]).collect();
    let projected = care.exists_trigger(|v| !vars.contains(&v));
    let mut out = Vec::new();
    for path in projected.sat_clauses() {
        let free: Vec<usize> = (0..vars.len()).filter(|&i| path.get_value(vars[i]).is_none()).collect();
        for bits in 0u64..(1 << free.len()) {
            let mut a: Vec<bool> = vars.iter().map(|&v| path.get_value(v).unwrap_or(false)).collect();
            for (f, &i) in free.iter().enumerate() {
                a[i] = bits >> f & 1 == 1;
            }
            out.push(a);
        }
    }
    out.sort();
    (projected, out)
}

/// Reused buffers of the per-assignment check.
struct Scratch {
    /// A component's unknown → its position in the component.
    local: Vec<u32>,
}

/// Packed rows over dense columns.
struct Packed {
    ends: Vec<u32>,
    cols: Vec<u32>,
}

impl Rows for Packed {
    fn len(&self) -> usize {
        self.ends.len()
    }
    fn degree(&self, i: usize) -> usize {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        (self.ends[i] - start) as usize
    }
    fn var(&self, i: usize, k: usize) -> usize {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.cols[start as usize + k] as usize
    }
}

impl Scratch {
    /// The component's system where `holds`, each model equation with its derivatives up
    /// to its offset (`offsets`, by the component's rows): `None` when it has a perfect
    /// matching, else its diagnosis (`when` left for the caller).
    fn check(
        &mut self,
        sys: &System,
        c: &Component,
        offsets: &[u32],
        holds: &dyn Fn(ModeId) -> bool,
    ) -> Option<Failure> {
        for (k, &v) in c.vars.iter().enumerate() {
            self.local[v as usize] = k as u32;
        }
        // The highest order of each unknown in an active entry of an active row.
        let mut top = vec![0u32; c.vars.len()];
        // (row, derivative j ≤ its offset), the equations of the initial system.
        let active: Vec<(u32, u32)> = c
            .rows
            .iter()
            .zip(offsets)
            .filter(|(r, _)| sys.active(**r as usize).eval(holds))
            .flat_map(|(&r, &c)| (0..=c).map(move |j| (r, j)))
            .collect();
        for &(r, j) in &active {
            sys.entries(r as usize, &mut |v, order, when| {
                let t = &mut top[self.local[v.index()] as usize];
                if u32::from(order) + j > *t && when.eval(holds) {
                    *t = u32::from(order) + j;
                }
            });
        }
        let mut base = Vec::with_capacity(c.vars.len() + 1);
        let mut n = 0u32;
        for &t in &top {
            base.push(n);
            n += t + 1;
        }
        let mut packed = Packed { ends: Vec::with_capacity(active.len()), cols: Vec::new() };
        let mut row = Vec::new();
        for &(r, j) in &active {
            sys.entries(r as usize, &mut |v, order, when| {
                if when.eval(holds) {
                    row.push(base[self.local[v.index()] as usize] + u32::from(order) + j);
                }
            });
            row.sort_unstable();
            row.dedup();
            packed.cols.append(&mut row);
            packed.ends.push(packed.cols.len() as u32);
        }
        let n = n as usize;
        let (eq_to_var, var_to_eq) = hopcroft_karp(&packed, n);
        let left_over = eq_to_var.iter().filter(|&&j| j == FREE).count();
        let free = var_to_eq.iter().filter(|&&i| i == FREE).count();
        if left_over == 0 && free == 0 {
            return None;
        }
        let dm = decompose(&packed, n);
        let over = dm
            .over_eqs
            .iter()
            .map(|&i| {
                let (r, j) = active[i];
                (0..j).fold(sys.row_name(r as usize), |s, _| s + "'")
            })
            .collect();
        let column = |j: usize| {
            let k = base.partition_point(|&b| b as usize <= j) - 1;
            let name = sys.mdae.var(VarId(c.vars[k])).name.to_string();
            (0..j - base[k] as usize).fold(name, |s, _| format!("der({s})"))
        };
        let under = dm.under_vars.iter().map(|&j| column(j)).collect();
        Some(Failure { when: String::new(), left_over, free, overdetermined: over, underdetermined: under })
    }
}
