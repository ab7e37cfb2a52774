//! The explicit strategy's CDG when the structural modes have one valid assignment and it
//! is nonsingular (every model without modes that is): the Σ-method's structure there is
//! the CDG, every condition the regular modes (here the valid ones). Written from the
//! packed structure ([`Packed`]) block by block, without the gathering of
//! `explicit.rs` — no instance held twice, hashed or sorted (issue 15: the gathering
//! peaked at 20 MB over the lowering on a chain of 10^5 equations).
//!
//! The same CDG as the gathering's: its blocks, sorted by their lists, are in the order of
//! their smallest equations (they partition the equations), [`Packed`]'s order; its edges
//! are the dependencies sorted; every condition is the local set of the regular modes.

use super::cdg::{Blocks, Cdg, Edge, ModeValues};
use super::explicit::push_lists;
use super::modes::ModeSpace;
use super::sigma::{Packed, Sigma};
use biodivine_lib_bdd::Bdd;

/// The CDG of the one valid assignment whose Σ-matrix is `sigma` and structure `s`.
pub fn cdg(sigma: Sigma, s: Packed, space: ModeSpace, valid: Bdd) -> Cdg {
    let regular = valid.clone();
    let factored = space.factored(&regular);
    let all = factored.local(&regular);
    let var_block = s.var_block();
    let deps = s.deps(&sigma, &var_block);
    let edges: Vec<Edge> = deps.iter().map(|&(from, to)| Edge { from, to, cond: all.clone() }).collect();
    drop(deps);
    let n = s.block.len();
    // Every equation's row holds its matched entry, which no block reads.
    let mut blocks = Blocks::with_capacity(s.count, n, sigma.entry_count().saturating_sub(n));
    s.for_each_block(&sigma, &var_block, &mut |eqs, writes, reads| {
        push_lists(&mut blocks, all.clone(), eqs, writes, reads);
    });
    blocks.shrink_to_fit();
    drop((sigma, var_block));
    let Packed { c, d, .. } = s;
    Cdg {
        offsets: ModeValues::uniform(all.clone(), c),
        orders: ModeValues::uniform(all, d),
        space,
        valid,
        regular,
        factored,
        singular: Vec::new(),
        blocks,
        edges,
    }
}
