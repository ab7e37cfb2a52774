//! Strongly connected components of a directed graph over dense indices, by petgraph's
//! Kosaraju algorithm: iterative (its depth-first searches keep their own stack), so a
//! chain of 10^6 equations needs no deep call stack — petgraph's Tarjan is recursive and
//! overflowed on a chain of 10^5 (issue 15). Pure function; the Σ-method's blocks, the
//! fine Dulmage–Mendelsohn decomposition, the implicit strategy's union SCCs and the
//! causal check use it.

use petgraph::graph::{DiGraph, NodeIndex};

/// The strongly connected components of the graph with successors `succ[v]`, in reverse
/// topological order: a component comes after every component it reaches.
pub fn components(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let edges = succ.iter().map(Vec::len).sum();
    let mut g: DiGraph<(), (), u32> = DiGraph::with_capacity(succ.len(), edges);
    for _ in 0..succ.len() {
        g.add_node(());
    }
    for (v, ws) in succ.iter().enumerate() {
        for &w in ws {
            g.add_edge(NodeIndex::new(v), NodeIndex::new(w), ());
        }
    }
    petgraph::algo::kosaraju_scc(&g).into_iter().map(|c| c.into_iter().map(NodeIndex::index).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reachability by depth-first search (the definition: u and v share a component iff
    /// each reaches the other).
    fn reach(succ: &[Vec<usize>], from: usize) -> Vec<bool> {
        let mut seen = vec![false; succ.len()];
        let mut todo = vec![from];
        while let Some(v) = todo.pop() {
            if !std::mem::replace(&mut seen[v], true) {
                todo.extend(&succ[v]);
            }
        }
        seen
    }

    #[test]
    fn components_are_mutual_reachability_in_reverse_topological_order() {
        let mut seed = 3u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..500 {
            let n = 1 + rnd(12) as usize;
            let succ: Vec<Vec<usize>> =
                (0..n).map(|_| (0..n).filter(|_| rnd(5) == 0).collect::<Vec<usize>>()).collect();
            let sccs = components(&succ);
            let mut comp = vec![usize::MAX; n];
            for (c, members) in sccs.iter().enumerate() {
                members.iter().for_each(|&v| comp[v] = c);
            }
            let reaches: Vec<Vec<bool>> = (0..n).map(|v| reach(&succ, v)).collect();
            for u in 0..n {
                for v in 0..n {
                    assert_eq!(comp[u] == comp[v], reaches[u][v] && reaches[v][u], "{succ:?}");
                    // An edge never goes to a later component.
                    if succ[u].contains(&v) {
                        assert!(comp[v] <= comp[u], "{succ:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_long_chain_needs_no_deep_stack() {
        let n = 1_000_000;
        let succ: Vec<Vec<usize>> = (0..n).map(|v| if v + 1 < n { vec![v + 1] } else { vec![] }).collect();
        let sccs = components(&succ);
        assert_eq!(sccs.len(), n);
        assert_eq!(sccs[0], vec![n - 1]);
    }
}
