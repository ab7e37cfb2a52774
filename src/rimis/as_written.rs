//! Equations the output keeps as the input writes them ([`AsWritten`]): the rows of a
//! block the flat model keeps whole (an algorithm section, a tuple equation, an
//! equation with an opaque call) are never emitted from their bodies — the block stays
//! as written — and an equation that reads unknowns through a whole array or record
//! (`f(x)`, `abs(v)`) or a variable subscript (`x[k]`) keeps those reads as written.
//! Both are correct only where what they read is the source variable: [`check`]
//! refuses, by name, a model whose rewrite would need more.

use super::RimisError;
use super::plan::{Plan, Role};
use crate::mdae::{AsWritten, EqId, VarId};

/// Is equation `e` a row of a block kept as written (emitted with the block)?
pub(crate) fn kept_whole(plan: &Plan, e: EqId) -> bool {
    matches!(plan.mdae.as_written.get(&e), Some(AsWritten::Block { .. }))
}

/// Refuses a rewrite that would change a block kept whole or a read kept as written.
pub(crate) fn check(plan: &Plan) -> Result<(), RimisError> {
    for (b, block) in plan.cdg.blocks.iter().enumerate() {
        let cond = plan.cond(plan.block_cond[b]);
        for &(e, k) in block.eqs {
            let Some(how) = plan.mdae.as_written.get(&e) else { continue };
            let eq = plan.mdae.eq(e);
            let (what, span) = match how {
                AsWritten::Block { what, span } => (what.clone(), *span),
                AsWritten::ReadsWhole(_) => ("equation reading a whole array or record".to_string(), eq.span),
            };
            let refuse = |why: String| {
                Err(RimisError::new(
                    span,
                    format!(
                        "unsupported construct: the {what} (equation {}) is in a multimode region the rewrite changes: {why}",
                        plan.mdae.label(e)
                    ),
                ))
            };
            if let AsWritten::Block { .. } = how {
                if k > 0 {
                    return refuse(format!("it must be differentiated {k} time(s), and it is kept whole"));
                }
                if !plan.factored.covers(cond) {
                    return refuse(format!("it is solved only when {}, and it is kept whole", plan.text(cond)));
                }
                if let Some(&(u, _)) =
                    block.writes.iter().find(|&&(u, _)| !matches!(plan.roles[u.index()], Role::Untouched { .. }))
                {
                    return refuse(format!(
                        "`{}`, which it writes, has other writers in some modes",
                        plan.mdae.var(u).name
                    ));
                }
            }
            // A block kept whole reads everything as written; an equation only what it
            // reads through a whole array or record (its reads by name are rewritten).
            let as_written = |u: VarId| match how {
                AsWritten::Block { .. } => true,
                AsWritten::ReadsWhole(vars) => vars.binary_search(&u).is_ok(),
            };
            for inc in plan.mdae.incidence(e).iter().filter(|inc| as_written(inc.var)) {
                let written = block.writes.iter().any(|&(u, _)| u == inc.var);
                if !written && !reads_source(plan, inc.var, inc.order as u32 + k, cond) {
                    return refuse(format!(
                        "it reads `{}`, which is computed differently by mode",
                        plan.mdae.var(inc.var).name
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Does a block under `cond` read u^(i) from the source variable (what the input's text
/// names: `u`, or `der(u)` which equals the source derivative)?
fn reads_source(plan: &Plan, u: VarId, i: u32, cond: &crate::analysis::local::Local) -> bool {
    let role = plan.roles[u.index()];
    if i > 0 && role == Role::Varying {
        return false;
    }
    if role != Role::Varying && !plan.leading_in(u, i, cond) {
        return true;
    }
    let def = plan.def_in(u, i, cond);
    if let [(_, _)] = def.as_slice() {
        return match role {
            Role::Untouched { .. } => true,
            Role::Shared { d } => i < d,
            Role::Varying => false,
        };
    }
    def.len() == plan.def_in(u, i, &plan.care_local).len()
}
