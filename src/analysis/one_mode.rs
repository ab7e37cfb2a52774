//! The explicit strategy's CDG when the structural modes have one valid assignment and it
//! is nonsingular (every model without modes that is): the Σ-method's structure there is
//! the CDG, every condition the regular modes (here the valid ones). Written from the
//! packed structure ([`Packed`]) without the gathering of `explicit.rs` — no instance
//! held twice, hashed or sorted (issue 15: the gathering peaked at 20 MB over the lowering
//! on a chain of 10^5 equations).
//!
//! The same CDG as the gathering's: its blocks, sorted by their lists, are in the order of
//! their smallest equations (they partition the equations), [`Packed`]'s order; its edges
//! are the dependencies sorted; every condition is the local set of the regular modes,
//! held once for all ([`Blocks::uniform`], [`Edges::uniform`]).
//!
//! Memory (issue 15: the CDG of a model without modes is held to the end of `--check`):
//! the blocks' lists are filled in place, the equations grouped by a counting sort, the
//! writes from the matching, which is freed before the reads; a block's reads are its
//! equations' incidences in the mode, read from the model (the Σ-matrix is freed before the
//! blocks are found: its row is the incidence, each variable at its highest order); the
//! edges are the reads at their variable's order d_j (a saturated entry: σ_ij + c_i = d_j,
//! and no entry is above d_j).

use super::cdg::{BlockLists, Blocks, Cdg, Edges, ModeValues};
use super::modes::ModeSpace;
use super::sigma::Packed;
use crate::mdae::{EqId, Mdae, ModeId, VarId};
use biodivine_lib_bdd::Bdd;

/// The CDG of the one valid assignment of the structural modes, the modes where `holds`
/// (an incidence entry is in the Σ-matrix where its guard holds), whose structure is `s`.
pub fn cdg(mdae: &Mdae, holds: &dyn Fn(ModeId) -> bool, s: Packed, space: ModeSpace, valid: Bdd) -> Cdg {
    let regular = valid.clone();
    let factored = space.factored(&regular);
    let all = factored.local(&regular);
    let var_block = s.var_block();
    let Packed { matching, c, d, block, count } = s;
    let (at, eqs) = grouped(&block, count, &c);
    drop(block);
    let mut writes: Vec<(VarId, u32)> = eqs
        .iter()
        .map(|&(e, _)| {
            let j = matching[e.index()];
            (VarId(j), d[j as usize])
        })
        .collect();
    drop(matching);
    let (vb, ats): (&[u32], &[u32]) = (&var_block, &at);
    let range = move |b: usize| if ats.is_empty() { b..b + 1 } else { ats[b] as usize..ats[b + 1] as usize };
    if !at.is_empty() {
        (0..count).for_each(|b| writes[range(b)].sort_unstable());
    }
    // Each block's reads: its equations' entries on the variables of other blocks, each
    // variable once at its highest order (σ_ij + c_i); counted first.
    let eqs_ref: &[(EqId, u32)] = &eqs;
    let outside = move |b: usize| {
        eqs_ref[range(b)].iter().flat_map(move |&(e, ci)| {
            mdae.incidence(e)
                .iter()
                .filter(move |inc| inc.when.eval(holds) && vb[inc.var.index()] as usize != b)
                .map(move |inc| (inc.var, u32::from(inc.order) + ci))
        })
    };
    let mut reads: Vec<(VarId, u32)> = Vec::with_capacity((0..count).map(|b| outside(b).count()).sum());
    let mut read_at: Vec<u32> = Vec::with_capacity(count + 1);
    read_at.push(0);
    for b in 0..count {
        let from = reads.len();
        reads.extend(outside(b));
        reads[from..].sort_unstable();
        // Each read variable once, at its highest order (the last after sorting).
        let mut kept = from;
        for k in from..reads.len() {
            if reads.get(k + 1).is_none_or(|next| next.0 != reads[k].0) {
                reads[kept] = reads[k];
                kept += 1;
            }
        }
        reads.truncate(kept);
        read_at.push(u32::try_from(reads.len()).expect("fewer than 2^32 block reads"));
    }
    reads.shrink_to_fit();
    // The edges: a read at its variable's order d_j is a saturated entry.
    let deps = || {
        (0..count).flat_map(|b| {
            reads[read_at[b] as usize..read_at[b + 1] as usize]
                .iter()
                .filter(|&&(j, o)| o == d[j.index()])
                .map(move |&(j, _)| (vb[j.index()], b as u32))
        })
    };
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(deps().count());
    pairs.extend(deps());
    drop(var_block);
    pairs.sort_unstable();
    pairs.dedup();
    pairs.shrink_to_fit();
    Cdg {
        blocks: Blocks::uniform(all.clone(), BlockLists { at, eqs, writes, read_at, reads }),
        edges: Edges::uniform(all.clone(), pairs),
        offsets: ModeValues::uniform(all.clone(), c),
        orders: ModeValues::uniform(all, d),
        space,
        valid,
        regular,
        factored,
        singular: Vec::new(),
    }
}

/// The equations with their offsets grouped by block (a counting sort, in place: each
/// group increasing) and where each group starts and ends, `at` (empty when every block
/// has one equation: block b's is `b`).
fn grouped(block: &[u32], count: usize, c: &[u32]) -> (Vec<u32>, Vec<(EqId, u32)>) {
    let mut eqs = vec![(EqId(0), 0); block.len()];
    if count == block.len() {
        for (i, &b) in block.iter().enumerate() {
            eqs[b as usize] = (EqId(i as u32), c[i]);
        }
        return (Vec::new(), eqs);
    }
    // at[b + 1]: block b's size, then where it ends; at[b] the next place of block b's
    // list while it is filled, so its end after; shifted, where it starts.
    let mut at = vec![0u32; count + 1];
    for &b in block {
        at[b as usize + 1] += 1;
    }
    for b in 0..count {
        at[b + 1] += at[b];
    }
    for (i, &b) in block.iter().enumerate() {
        eqs[at[b as usize] as usize] = (EqId(i as u32), c[i]);
        at[b as usize] += 1;
    }
    at.copy_within(0..count, 1);
    at[0] = 0;
    (at, eqs)
}

#[cfg(test)]
mod tests {
    use super::super::{explicit, report};
    use super::*;
    use crate::syntax::SourceFile;

    fn lower(text: &str) -> crate::mdae::Mdae<'static> {
        crate::driver::lower(&SourceFile::new("t.mo", text)).expect("lowers")
    }

    /// Models of `n` variables, each equation reading its own variable (or its derivative)
    /// and up to three others at order 0 or 1, from a fixed generator: chains, loops,
    /// states, singular ones.
    fn random_models(mut seed: u64) -> Vec<String> {
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        (0..300)
            .map(|k| {
                let n = 1 + rnd(12) as usize;
                let mut s = format!("model M{k}\n");
                (0..n).for_each(|i| s.push_str(&format!("  Real x{i};\n")));
                s.push_str("equation\n");
                for i in 0..n {
                    let own = if rnd(3) == 0 { i } else { rnd(n as u64) as usize };
                    let mut terms = vec![own];
                    terms.extend((0..rnd(4)).map(|_| rnd(n as u64) as usize));
                    let terms: Vec<String> = terms
                        .iter()
                        .map(|&j| if rnd(3) == 0 { format!("der(x{j})") } else { format!("x{j}") })
                        .collect();
                    s.push_str(&format!("  0 = {} + sin(time);\n", terms.join(" * ")));
                }
                s.push_str(&format!("end M{k};\n"));
                s
            })
            .collect()
    }

    /// The pendulum (index 3) and a chain of algebraic loops.
    fn examples() -> Vec<String> {
        let mut loops = String::from("model Loops\n");
        (0..20).for_each(|i| loops.push_str(&format!("  Real x{i};\n  Real y{i};\n")));
        loops.push_str("equation\n  der(x0) = -x0;\n  y0 = x0;\n");
        for i in 1..20 {
            let h = i - 1;
            loops.push_str(&format!("  x{i} + y{i} = y{h};\n  x{i} - y{i} = 2*x{h};\n"));
        }
        loops.push_str("end Loops;\n");
        let pendulum = "model P\n  Real x;\n  Real y;\n  Real l;\nequation\n  der(der(x)) = -l*x;\n  \
                        der(der(y)) = -l*y - 9.81;\n  x^2 + y^2 = 1;\nend P;\n";
        vec![loops, pendulum.to_string()]
    }

    /// The same CDG, condition by condition, and the same report.
    fn assert_same(m: &crate::mdae::Mdae, a: &Cdg, b: &Cdg) {
        assert!(a.valid == b.valid && a.regular == b.regular, "{}", m.name);
        assert_eq!(a.singular.len(), b.singular.len(), "{}", m.name);
        let values = |c: &Cdg, v: &ModeValues| -> Vec<Vec<(u32, Bdd)>> {
            v.iter().map(|l| l.iter().map(|(x, modes)| (*x, c.bdd(modes))).collect()).collect()
        };
        assert!(values(a, &a.offsets) == values(b, &b.offsets), "{}: offsets", m.name);
        assert!(values(a, &a.orders) == values(b, &b.orders), "{}: orders", m.name);
        let blocks = |c: &Cdg| -> Vec<_> {
            c.blocks.iter().map(|x| (x.eqs.to_vec(), x.writes.to_vec(), x.reads.to_vec(), c.bdd(x.cond))).collect()
        };
        assert!(blocks(a) == blocks(b), "{}: blocks", m.name);
        let edges = |c: &Cdg| -> Vec<_> { c.edges.iter().map(|e| (e.from, e.to, c.bdd(e.cond))).collect() };
        assert!(edges(a) == edges(b), "{}: edges", m.name);
        assert_eq!(report::check(m, a), report::check(m, b));
    }

    #[test]
    fn one_mode_is_the_gathering() {
        let mut nonsingular = 0;
        for text in random_models(7).iter().chain(&examples()) {
            let m = lower(text);
            let (a, b) = (explicit::explicit(&m).expect("analysed"), explicit::gathered(&m).expect("analysed"));
            nonsingular += usize::from(a.singular.is_empty());
            assert_same(&m, &a, &b);
        }
        assert!(nonsingular > 50, "the sample has nonsingular models: {nonsingular}");
    }
}
