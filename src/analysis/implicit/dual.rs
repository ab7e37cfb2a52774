//! The dual problem, all modes at once (paper 002 §4.5): Pryce's fixpoint on
//! mode-dependent bit-vectors, starting from c = 0:
//! d_j ← max_{e ∈ J⁻¹(j)} (if χ_E(e) then c_{I(e)} + σ_e else 0);
//! c_i ← the e ∈ I⁻¹(i) with T_e gives d_{J(e)} − σ_e.
//!
//! Modulo the regular modes ([`super::modulo`]): every step is pointwise in the mode, so
//! the bit-vectors are computed without the regular modes conjoined (the paper's "0
//! outside them" made every bit O(N) nodes on the compressible building) and a value
//! counts as changed only where it changes in a regular mode. The sweeps and what they
//! recompute are those of the fixpoint on the regular modes alone: on those modes the
//! values are equal sweep by sweep, and the fixpoint stops at the same sweep.

use super::Encoding;
use super::bits::BitVec;
use super::modulo::CareSet;
use super::primal::Primal;
use crate::analysis::AnalysisError;

/// (c, d), each modulo the regular modes.
pub(super) fn solve(
    enc: &Encoding,
    primal: &Primal,
    regular: &CareSet,
) -> Result<(Vec<BitVec>, Vec<BitVec>), AnalysisError> {
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
            if differ(regular, &dj, &d[j]) {
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
            c_changed[i] = differ(regular, &ci, &c[i]);
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

/// Whether a and b differ in some regular mode.
fn differ(regular: &CareSet, a: &BitVec, b: &BitVec) -> bool {
    a.bits.iter().zip(&b.bits).any(|(x, y)| regular.differ(x, y))
}
