//! The dual problem, all modes at once (paper 002 §4.5): Pryce's fixpoint on
//! mode-dependent bit-vectors, starting from c = 0:
//! d_j ← max_{e ∈ J⁻¹(j)} (if χ_E(e) then c_{I(e)} + σ_e else 0);
//! c_i ← the e ∈ I⁻¹(i) with T_e gives d_{J(e)} − σ_e; both 0 outside the regular modes.

use super::Encoding;
use super::bits::BitVec;
use super::primal::Primal;
use crate::analysis::AnalysisError;

pub(super) fn solve(enc: &Encoding, primal: &Primal) -> Result<(Vec<BitVec>, Vec<BitVec>), AnalysisError> {
    let set = enc.set();
    let zero = BitVec::constant(set, enc.width, 0);
    let n = enc.mdae.equations.len();
    let mut c = vec![zero.clone(); n];
    let mut d = vec![zero.clone(); enc.mdae.vars.len()];
    let bound = 4 * (n + 1) * (1 << enc.width.min(16)) + 4;
    // Jacobi sweeps (d from the last sweep's c, then c from d and its own last value),
    // each recomputing only what can change: d_j when a c of its column changed in the
    // last sweep, c_i when a d of its row changed in this one or c_i itself in the last
    // (the first sweep computes everything). The same sweeps as recomputing all, with
    // work proportional to the changes: offsets reach along a train of N equations one
    // sweep at a time (issue 15).
    let mut c_changed = vec![true; n];
    let mut first = true;
    for _ in 0..bound {
        let mut d_changed = vec![first; d.len()];
        for (j, col) in enc.cols.iter().enumerate() {
            if !first && !col.iter().any(|&k| c_changed[enc.edges[k].eq]) {
                continue;
            }
            let mut dj = zero.clone();
            for &k in col {
                let e = &enc.edges[k];
                let here = BitVec::ite(&e.active, &c[e.eq].add(&e.sigma, set), &zero);
                dj = dj.max(&here, set);
            }
            let dj = BitVec::ite(&primal.regular, &dj, &zero);
            if !dj.same(&d[j]) {
                d_changed[j] = true;
                d[j] = dj;
            }
        }
        let mut changed = false;
        for (i, row) in enc.rows.iter().enumerate() {
            if !first && !c_changed[i] && !row.iter().any(|&k| d_changed[enc.edges[k].var]) {
                continue;
            }
            let mut ci = c[i].clone();
            for &k in row {
                let e = &enc.edges[k];
                ci = BitVec::ite(&primal.matched[k], &d[e.var].sub(&e.sigma, set), &ci);
            }
            let ci = BitVec::ite(&primal.regular, &ci, &zero);
            c_changed[i] = !ci.same(&c[i]);
            if c_changed[i] {
                changed = true;
                c[i] = ci;
            }
        }
        if !changed {
            return Ok((c, d));
        }
        first = false;
    }
    Err(AnalysisError::Unsupported("the dual fixpoint did not converge (offsets overflow the bit-vectors)".into()))
}
