//! Dulmage–Mendelsohn decomposition of a bipartite graph over dense indices (equations ×
//! variables, any shape): the over-determined part (reachable by alternating paths from an
//! unmatched equation), the under-determined part (from an unmatched variable) and the
//! well-determined rest. General on purpose: the single-mode diagnostics use it, and so
//! will the mode-change analysis on systems unfolded over two instants.

use super::matching::{Graph, maximum_matching};

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
pub fn decompose(adj: &Graph, n_var: usize) -> Decomposition {
    let n_eq = adj.len();
    let (eq_to_var, var_to_eq) = maximum_matching(adj, n_var);
    let mut var_adj: Vec<Vec<usize>> = vec![Vec::new(); n_var];
    for (i, row) in adj.iter().enumerate() {
        for &(j, _) in row {
            var_adj[j].push(i);
        }
    }
    // Over-determined: from unmatched equations, eq -> var (any edge) -> matched eq.
    let eq_adj: Vec<Vec<usize>> = adj.iter().map(|row| row.iter().map(|&(j, _)| j).collect()).collect();
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
                if let Some(z) = b_to_a[y] {
                    if !a_seen[z] {
                        a_seen[z] = true;
                        stack.push(z);
                    }
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
}
