//! Diagnostics for the singular modes (valid modes without a perfect matching), without
//! enumerating them: pick one singular mode, run the Dulmage–Mendelsohn decomposition
//! there, and report it for every singular mode in which each incidence touching its
//! over-determined equations or under-determined variables is as in that mode (the same
//! Hall violation holds throughout); repeat on the singular modes left.

use super::Encoding;
use super::primal::Primal;
use crate::analysis::cdg::Singular;
use crate::analysis::dm::decompose;
use crate::analysis::explicit::sigma_in_mode;
use crate::mdae::{EqId, ModeId, VarId};

/// Most groups reported; further singular modes join the last group's condition.
const MAX_GROUPS: usize = 64;

pub(super) fn diagnose(enc: &Encoding, primal: &Primal) -> Vec<Singular> {
    let space = &enc.space;
    let mut rest = enc.valid.and_not(&primal.regular);
    let mut out: Vec<Singular> = Vec::new();
    while !rest.is_false() {
        let Some(example) = space.example(&rest) else { break };
        let holds = |m: ModeId| example[m.index()].1;
        let dm = decompose(&sigma_in_mode(enc.mdae, &holds), enc.mdae.vars.len());
        let mut group = rest.clone();
        for e in enc.mdae.eq_ids() {
            let i = e.index();
            for inc in enc.mdae.incidence(e) {
                if dm.over_eqs.contains(&i) || dm.under_vars.contains(&inc.var.index()) {
                    let w = space.cond(inc.when);
                    group = if inc.when.eval(&holds) { group.and(&w) } else { group.and_not(&w) };
                }
            }
        }
        if out.len() + 1 == MAX_GROUPS {
            group = rest.clone();
        }
        rest = rest.and_not(&group);
        out.push(Singular {
            cond: group,
            example,
            overdetermined: dm.over_eqs.iter().map(|&i| EqId(i as u32)).collect(),
            underdetermined: dm.under_vars.iter().map(|&j| VarId(j as u32)).collect(),
        });
    }
    out
}
