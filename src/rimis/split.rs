//! Blocks split by the regions of their writers (issue 13), so that one structural analysis
//! of the output finds every CDG block (paper 000 §4.2) where §4.6.3's read multiplexers
//! would join regions of opposite causal orders.
//!
//! Input: the [`Plan`] before any name is made (one part per block). Output: per CDG block,
//! the partition of its condition into parts (one condition: not split), or `None` when
//! nothing needs a split.
//!
//! Why: a block b reads u^(i) through a multiplexer (or the source) over the writers
//! w1 … wn whose conditions meet cond(b), so the output has an edge wj → b from every one
//! of them, although in a mode only one of them precedes b. Edges of different modes can
//! close a cycle that no mode has (Modelica.Fluid's tank ports: `p1 = pa` holds under
//! `regular1 and tank 2 closed, or inFlow1`, read p1 → pa in one region and pa → … → p1
//! through the other in the other), and one analysis of the output merges the blocks of
//! that cycle. The blocks of a cycle of the output's block graph (a strongly connected
//! component) are divided until every part P reads each such u^(i) from one part Q of one
//! writer, with P ⊆ Q. Invariant: then an edge Q → P inside the component has P ⊆ Q, so a
//! cycle of parts has one condition P on all its parts and each of its edges is a
//! dependency of the CDG in every mode of P (a block's reads are the same in all its
//! modes): a cycle of the CDG in a mode, which the per-mode triangular form rules out.
//! Edges into the component and out of it close no new cycle (they closed none before).
//! A component with a block kept as written (`as_written.rs`) is not split; neither is
//! any when the parts would exceed [`MAX_EXTRA_PARTS`]: the driver's self-check then
//! refuses the rewrite, as before.

use super::plan::{Plan, Role};
use crate::analysis::local::{Factored, Local};
use crate::analysis::scc::components;

/// At most this many parts beyond one per block, over the whole model.
const MAX_EXTRA_PARTS: usize = 4096;

/// Per block, the partition of its condition (see the module header); `None`: no split.
pub(crate) fn parts(plan: &Plan) -> Option<Vec<Vec<Local>>> {
    let n = plan.cdg.blocks.len();
    let reads: Vec<Vec<Read>> = (0..n).map(|b| replicate_reads(plan, b)).collect();
    let mut succ = vec![Vec::new(); n];
    for (b, rs) in reads.iter().enumerate() {
        for r in rs {
            r.instantaneous.iter().for_each(|&w| succ[w].push(b));
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut cyclic = Vec::new();
    for c in components(&succ).into_iter().filter(|c| c.len() > 1) {
        if c.iter().any(|&b| kept_as_written(plan, b)) {
            continue;
        }
        c.iter().for_each(|&b| component[b] = cyclic.len());
        cyclic.push(c);
    }
    if cyclic.is_empty() {
        return None;
    }
    let mut parts: Vec<Vec<Local>> = (0..n).map(|b| vec![plan.cond(plan.block_cond[b]).clone()]).collect();
    let mut extra = 0;
    loop {
        let mut changed = false;
        for b in cyclic.iter().flatten().copied() {
            for r in reads[b].iter().filter(|r| r.instantaneous.iter().any(|&w| component[w] == component[b])) {
                let pieces: Vec<Local> = r.writers.iter().flat_map(|&w| parts[w].clone()).collect();
                let refined = refine(&plan.factored, &parts[b], &pieces);
                if refined.len() != parts[b].len() {
                    extra += refined.len() - parts[b].len();
                    if extra > MAX_EXTRA_PARTS {
                        return None;
                    }
                    parts[b] = refined;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for p in parts.iter_mut().filter(|p| p.len() > 1) {
        // The form of a numbered condition (its text is the whole set's).
        *p = p.iter().map(|c| plan.canonical(c)).collect();
        p.sort_by_cached_key(|c| plan.text(c));
    }
    parts.iter().any(|p| p.len() > 1).then_some(parts)
}

/// A read of a block named through the writers' replicates (§4.6.3: a leading variable,
/// or any order of a varying one).
struct Read {
    /// Every writer whose condition meets the block's (Def_cond(b)(u, i)).
    writers: Vec<usize>,
    /// Those that write u^(i) itself, not a higher derivative: the reader depends on them
    /// within the instant (a state replicate is known).
    instantaneous: Vec<usize>,
}

fn replicate_reads(plan: &Plan, b: usize) -> Vec<Read> {
    let cond = plan.cond(plan.block_cond[b]).clone();
    let cond = &cond;
    plan.cdg
        .blocks
        .get(b)
        .reads
        .iter()
        .filter(|&&(u, i)| plan.roles[u.index()] == Role::Varying || plan.leading_in(u, i, cond))
        .map(|&(u, i)| {
            let def = plan.def_in(u, i, cond);
            Read {
                writers: def.iter().map(|&(w, _)| w).collect(),
                instantaneous: def.iter().filter(|&&(w, k)| k == i && w != b).map(|&(w, _)| w).collect(),
            }
        })
        .collect()
}

/// Does block `b` hold an equation kept as the input writes it?
fn kept_as_written(plan: &Plan, b: usize) -> bool {
    plan.cdg.blocks.get(b).eqs.iter().any(|&(e, _)| plan.mdae.as_written.contains_key(&e))
}

/// Each part of `parts` divided by the `pieces` it meets; the modes of a part that no piece
/// covers stay a part of their own.
fn refine(fz: &Factored, parts: &[Local], pieces: &[Local]) -> Vec<Local> {
    let mut out = Vec::new();
    for p in parts {
        let mut rest = p.clone();
        for q in pieces {
            let both = fz.and(&rest, q);
            if !fz.is_false(&both) {
                rest = fz.and_not(&rest, q);
                out.push(both);
            }
        }
        if !fz.is_false(&rest) {
            out.push(rest);
        }
    }
    out
}
