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
    for _ in 0..bound {
        for (j, col) in enc.cols.iter().enumerate() {
            let mut dj = zero.clone();
            for &k in col {
                let e = &enc.edges[k];
                let here = BitVec::ite(&e.active, &c[e.eq].add(&e.sigma, set), &zero);
                dj = dj.max(&here, set);
            }
            d[j] = BitVec::ite(&primal.regular, &dj, &zero);
        }
        let mut changed = false;
        for (i, row) in enc.rows.iter().enumerate() {
            let mut ci = c[i].clone();
            for &k in row {
                let e = &enc.edges[k];
                ci = BitVec::ite(&primal.matched[k], &d[e.var].sub(&e.sigma, set), &ci);
            }
            let ci = BitVec::ite(&primal.regular, &ci, &zero);
            if !ci.same(&c[i]) {
                changed = true;
                c[i] = ci;
            }
        }
        if !changed {
            return Ok((c, d));
        }
    }
    Err(AnalysisError::Unsupported("the dual fixpoint did not converge (offsets overflow the bit-vectors)".into()))
}
