//! Dulmage–Mendelsohn decomposition of a bipartite graph over dense indices (equations ×
//! variables, any shape): the over-determined part (reachable by alternating paths from an
//! unmatched equation), the under-determined part (from an unmatched variable) and the
//! well-determined rest; and the fine decomposition of a square graph with a perfect matching
//! into irreducible blocks, which says which edges can belong to a perfect matching at all
//! ([`fine_blocks`]). General on purpose: the single-mode diagnostics use it, and so
//! will the mode-change analysis on systems unfolded over two instants.

use super::matching::{Graph, Rows, maximum_matching};
use super::scc::components;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decomposition {
    pub over_eqs: Vec<usize>,
    pub over_vars: Vec<usize>,
    pub under_eqs: Vec<usize>,
    pub under_vars: Vec<usize>,
    pub well_eqs: Vec<usize>,
    pub well_vars: Vec<usize>,
}

impl Decomposition {
    pub fn is_perfect(&self) -> bool {
        self.over_eqs.is_empty() && self.under_vars.is_empty()
    }
}

/// Decomposes `adj` (equation → variables; weights ignored) with `n_var` variables.
pub fn decompose<R: Rows + ?Sized>(adj: &R, n_var: usize) -> Decomposition {
    let n_eq = adj.len();
    let (eq_to_var, var_to_eq) = maximum_matching(adj, n_var);
    // Over-determined: from unmatched equations, eq -> var (any edge) -> matched eq.
    let eq_adj: Vec<Vec<usize>> = (0..n_eq).map(|i| (0..adj.degree(i)).map(|k| adj.var(i, k)).collect()).collect();
    let mut var_adj: Vec<Vec<usize>> = vec![Vec::new(); n_var];
    for (i, row) in eq_adj.iter().enumerate() {
        for &j in row {
            var_adj[j].push(i);
        }
    }
    let (eq_over, var_over) = alternating_reach(&eq_adj, &eq_to_var, &var_to_eq);
    // Under-determined: the same from unmatched variables, var -> eq -> matched var.
    let (var_under, eq_under) = alternating_reach(&var_adj, &var_to_eq, &eq_to_var);
    let pick = |flags: &[bool]| (0..flags.len()).filter(|&k| flags[k]).collect::<Vec<_>>();
    let well_eqs = (0..n_eq).filter(|&i| !eq_over[i] && !eq_under[i]).collect();
    let well_vars = (0..n_var).filter(|&j| !var_over[j] && !var_under[j]).collect();
    Decomposition {
        over_eqs: pick(&eq_over),
        over_vars: pick(&var_over),
        under_eqs: pick(&eq_under),
        under_vars: pick(&var_under),
        well_eqs,
        well_vars,
    }
}

/// The fine decomposition: the irreducible block of every equation and of every variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FineBlocks {
    pub eq_block: Vec<usize>,
    pub var_block: Vec<usize>,
    pub count: usize,
}

/// The fine (irreducible) decomposition of a square bipartite graph, or `None` when the
/// graph has no perfect matching. With any perfect matching
/// M, direct equation i → M⁻¹(j) for every edge (i, j); the blocks are the strongly
/// connected components. An edge (i, j) lies in some perfect matching exactly when i and
/// M⁻¹(j) share a block (Dulmage–Mendelsohn), so every perfect matching is a product of
/// perfect matchings of the blocks, and the edges between blocks are in none.
pub fn fine_blocks(adj: &Graph, n_var: usize) -> Option<FineBlocks> {
    if adj.len() != n_var {
        return None;
    }
    let (eq_to_var, var_to_eq) = maximum_matching(adj, n_var);
    if eq_to_var.iter().any(Option::is_none) {
        return None;
    }
    Some(fine_blocks_with(adj, &eq_to_var, &var_to_eq))
}

/// [`fine_blocks`] from a given perfect matching (the blocks are the same for every one;
/// their numbering is not).
pub fn fine_blocks_with(adj: &Graph, eq_to_var: &[Option<usize>], var_to_eq: &[Option<usize>]) -> FineBlocks {
    let n_var = var_to_eq.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); adj.len()];
    for (i, row) in adj.iter().enumerate() {
        for &(j, _) in row {
            let k = var_to_eq[j].expect("perfect matching");
            if k != i {
                succ[i].push(k);
            }
        }
    }
    let sccs = components(&succ);
    let mut eq_block = vec![0; adj.len()];
    for (b, scc) in sccs.iter().enumerate() {
        for &i in scc {
            eq_block[i] = b;
        }
    }
    let var_block = eq_to_var.iter().enumerate().fold(vec![0; n_var], |mut vb, (i, j)| {
        vb[j.expect("perfect matching")] = eq_block[i];
        vb
    });
    FineBlocks { eq_block, var_block, count: sccs.len() }
}

/// From every unmatched node of side A: A -> B along any edge, B -> A along the matching.
/// Returns the reached (A, B) nodes as flags.
fn alternating_reach(
    a_adj: &[Vec<usize>],
    a_to_b: &[Option<usize>],
    b_to_a: &[Option<usize>],
) -> (Vec<bool>, Vec<bool>) {
    let mut a_seen = vec![false; a_adj.len()];
    let mut b_seen = vec![false; b_to_a.len()];
    let mut stack: Vec<usize> = (0..a_adj.len()).filter(|&x| a_to_b[x].is_none()).collect();
    stack.iter().for_each(|&x| a_seen[x] = true);
    while let Some(x) = stack.pop() {
        for &y in &a_adj[x] {
            if !b_seen[y] {
                b_seen[y] = true;
                if let Some(z) = b_to_a[y]
                    && !a_seen[z]
                {
                    a_seen[z] = true;
                    stack.push(z);
                }
            }
        }
    }
    (a_seen, b_seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_equations_in_one_variable_are_over_determined() {
        // e0: x, e1: x, e2: y z  (3 equations, 3 variables)
        let adj: Graph = vec![vec![(0, 0)], vec![(0, 0)], vec![(1, 0), (2, 0)]];
        let d = decompose(&adj, 3);
        assert_eq!(d.over_eqs, vec![0, 1]);
        assert_eq!(d.over_vars, vec![0]);
        assert_eq!(d.under_eqs, vec![2]);
        assert_eq!(d.under_vars, vec![1, 2]);
        assert!(d.well_eqs.is_empty() && d.well_vars.is_empty());
    }

    #[test]
    fn a_perfect_matching_is_well_determined() {
        let adj: Graph = vec![vec![(0, 0), (1, 0)], vec![(1, 0)]];
        let d = decompose(&adj, 2);
        assert!(d.is_perfect());
        assert_eq!(d.well_eqs, vec![0, 1]);
    }

    /// Every perfect matching of a small square graph, by brute force.
    fn perfect_matchings(adj: &Graph) -> Vec<Vec<usize>> {
        fn go(adj: &Graph, i: usize, used: &mut Vec<bool>, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if i == adj.len() {
                out.push(cur.clone());
                return;
            }
            for &(j, _) in &adj[i] {
                if !used[j] {
                    used[j] = true;
                    cur.push(j);
                    go(adj, i + 1, used, cur, out);
                    cur.pop();
                    used[j] = false;
                }
            }
        }
        let mut out = Vec::new();
        go(adj, 0, &mut vec![false; adj.len()], &mut Vec::new(), &mut out);
        out
    }

    #[test]
    fn fine_blocks_admit_exactly_the_edges_of_some_perfect_matching() {
        // Deterministic pseudo-random square graphs of 1..6 equations.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut with_matching, mut split) = (0, 0);
        for _ in 0..500 {
            let n = (next() % 6 + 1) as usize;
            let adj: Graph = (0..n).map(|_| (0..n).filter(|_| next() % 3 == 0).map(|j| (j, 0)).collect()).collect();
            let all = perfect_matchings(&adj);
            match fine_blocks(&adj, n) {
                None => assert!(all.is_empty(), "{adj:?}"),
                Some(fine) => {
                    with_matching += 1;
                    for (i, row) in adj.iter().enumerate() {
                        for &(j, _) in row {
                            let admissible = all.iter().any(|m| m[i] == j);
                            assert_eq!(fine.eq_block[i] == fine.var_block[j], admissible, "{adj:?} edge ({i}, {j})");
                            split += usize::from(!admissible);
                        }
                    }
                }
            }
        }
        assert!(with_matching > 50 && split > 20, "the sample exercises both cases: {with_matching} {split}");
    }
}
