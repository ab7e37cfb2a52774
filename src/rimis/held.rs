//! What a §4.7-guarded block holds outside its modes (issue 29, class 5).
//!
//! A nonlinear (or partial) conditional block is written `if cond then eqs else w = …`
//! (`sections::guarded`). Entering its modes, the simulator solves the block starting
//! from the values it held just before; held at 0, the solve may land on another root
//! (WrongRootAfterTrivialBlock: x2 jumped by 0.58, silently), where the original's solver
//! would have gone on from the variable's current value. So outside cond(b) each written
//! replicate ρ_b(u^(k)) holds the value of u^(k) there: the replicate of the other
//! writers of u^(k) under their conditions (`x2_2 = x2_1`), one directly, several through
//! a multiplexer on their conditions.
//!
//! Input: the [`Plan`] with its parts. Output: per written variable, the expression to
//! hold, or `None` (then 0, as before).
//!
//! Invariant: no algebraic loop in the output's single-mode structure. Reading another
//! writer p adds the dependency p → b. Where p writes a higher derivative of u, its
//! ρ_p(u^(k)) is a state replicate (integrated by DIFF): known, no dependency. Otherwise
//! p is read only if b does not already reach p in the output's part graph (an edge w → r
//! when r reads, within the instant, what w writes: through a replicate, a read
//! multiplexer or the source, as `split.rs` builds it for blocks, plus the edges this pass
//! adds), so the graph stays acyclic; the other writers are left out (the multiplexer's
//! last branch then covers their modes), and with none left the value is 0. The
//! multiplexed source u itself is never read: it is written from ρ_b.

use super::plan::{Plan, Role};
use crate::analysis::local::Local;
use crate::mdae::VarId;
use crate::syntax::ast::Expr;

/// The output's part graph (module header): `succ[w]` holds the parts that read what
/// part w writes within the instant.
pub(crate) struct Held {
    succ: Vec<Vec<usize>>,
}

impl Held {
    /// The part graph of the plan's parts before any §4.7 guard reads another writer.
    pub(crate) fn new(plan: &Plan) -> Held {
        let n = plan.part_block.len();
        let mut succ = vec![Vec::new(); n];
        for r in 0..n {
            let cond = plan.cond(plan.part_cond[r]).clone();
            for &(u, i) in plan.cdg.blocks.get(plan.part_block[r]).reads {
                if plan.roles[u.index()] != Role::Varying && !plan.leading_in(u, i, &cond) {
                    continue; // a kept state: known
                }
                for (w, k) in plan.def_in(u, i, &cond) {
                    if k == i && w != r {
                        succ[w].push(r);
                    }
                }
            }
        }
        Held { succ }
    }

    /// What part `b`'s replicate of u^(k) holds outside cond(b) (module header).
    pub(crate) fn value(&mut self, plan: &mut Plan, b: usize, u: VarId, k: u32) -> Option<Expr> {
        if plan.roles[u.index()] == (Role::Untouched { d: k }) {
            return None; // its only writer: no other value to hold
        }
        let outside = plan.factored.and_not(&plan.care_local, plan.cond(plan.part_cond[b]));
        if plan.factored.is_false(&outside) {
            return None;
        }
        let others: Vec<(usize, u32)> = plan.def_in(u, k, &outside).into_iter().filter(|&(p, _)| p != b).collect();
        let mut branches: Vec<(Local, Expr)> = Vec::new();
        for (p, kp) in others {
            let instantaneous = kp == k;
            if instantaneous && self.reaches(b, p) {
                continue;
            }
            if instantaneous {
                self.succ[p].push(b);
            }
            branches.push((plan.cond_local(plan.part_cond[p]), plan.written(p, u, k)));
        }
        match branches.as_slice() {
            [] => None,
            [(_, e)] => Some(e.clone()),
            _ => Some(plan.case(&branches, &outside)),
        }
    }

    /// Is `to` reachable from `from` in the part graph?
    fn reaches(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.succ.len()];
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            if x == to {
                return true;
            }
            if !std::mem::replace(&mut seen[x], true) {
                stack.extend(self.succ[x].iter().copied());
            }
        }
        false
    }
}
