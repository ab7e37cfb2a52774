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
        let edges = |c: &Cdg| -> Vec<_> { c.edges.iter().map(|e| (e.from, e.to, c.bdd(&e.cond))).collect() };
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
