//! Strongly connected components of a directed graph over dense indices, by petgraph's
//! Kosaraju algorithm: iterative (its depth-first searches keep their own stack), so a
//! chain of 10^6 equations needs no deep call stack — petgraph's Tarjan is recursive and
//! overflowed on a chain of 10^5 (issue 15). Pure functions; the fine Dulmage–Mendelsohn
//! decomposition and the implicit strategy's union SCCs use [`components`]; the Σ-method's
//! blocks, the matching's fine partition and the causal check use [`component_of`].

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

/// The strongly connected components of the graph whose successors of `v` are
/// `succ[start[v]..start[v + 1]]`, as each node's component number and the number of
/// components (numbered in reverse topological order, but not necessarily in
/// [`components`]' order among unrelated components). Pearce's variant of Tarjan's
/// algorithm ("A space-efficient algorithm for finding strongly connected components",
/// IPL 2016) with an explicit stack: no deep call stack, no list per component (a model of
/// 10^5 equations in blocks of one has 10^5 of them), and one number per node — its visit
/// index, then its low link, then its component — where Tarjan keeps three (issue 15: the
/// fine partition of a network of 70,000 equations in one block peaked here). The same
/// components in the same order as Tarjan's: the same depth-first search, a component
/// closed when its first node is finished. Nodes, positions and components as `u32`
/// (fewer than 2^31, as the model's ids).
pub fn component_of(start: &[u32], succ: &[u32]) -> (Vec<u32>, usize) {
    let n = start.len().saturating_sub(1);
    assert!(n < 1 << 31 && succ.len() < 1 << 31, "fewer than 2^31 nodes and edges");
    // rindex[v]: 0 before v is visited; then its visit index (from 1), lowered to the
    // smallest one it is seen to reach while its component is open; then DONE − its
    // component, above every visit index.
    const DONE: u32 = u32::MAX;
    // On a path entry's position: no successor of the node has reached an earlier node.
    const ROOT: u32 = 1 << 31;
    let mut rindex = vec![0u32; n];
    let (mut visited, mut count) = (0u32, 0u32);
    // Finished nodes whose component is still open.
    let mut stack: Vec<u32> = Vec::new();
    // The depth-first search's path: (node, position of its next successor in `succ`,
    // with ROOT).
    let mut path: Vec<(u32, u32)> = Vec::new();
    for root in 0..n {
        if rindex[root] != 0 {
            continue;
        }
        visited += 1;
        rindex[root] = visited;
        path.push((root as u32, start[root] | ROOT));
        while let Some(&(v, at)) = path.last() {
            let v = v as usize;
            if at & !ROOT < start[v + 1] {
                let top = path.len() - 1;
                path[top].1 += 1;
                let w = succ[(at & !ROOT) as usize] as usize;
                if rindex[w] == 0 {
                    visited += 1;
                    rindex[w] = visited;
                    path.push((w as u32, start[w] | ROOT));
                } else if rindex[w] < rindex[v] {
                    rindex[v] = rindex[w]; // w's component is open: v is not its root
                    path[top].1 &= !ROOT;
                }
                continue;
            }
            path.pop();
            if at & ROOT != 0 {
                // v is the first node of its component: it and the nodes finished after it.
                let k = DONE - count;
                while let Some(&w) = stack.last()
                    && rindex[v] <= rindex[w as usize]
                {
                    stack.pop();
                    rindex[w as usize] = k;
                }
                rindex[v] = k;
                count += 1;
            } else {
                stack.push(v as u32);
            }
            if let Some((u, at)) = path.last_mut()
                && rindex[v] < rindex[*u as usize]
            {
                rindex[*u as usize] = rindex[v];
                *at &= !ROOT;
            }
        }
    }
    rindex.iter_mut().for_each(|r| *r = DONE - *r);
    (rindex, count as usize)
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

    /// 500 random directed graphs of 1 to 12 nodes (an edge with probability 1/5).
    fn random_graphs(mut seed: u64) -> Vec<Vec<Vec<usize>>> {
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        (0..500)
            .map(|_| {
                let n = 1 + rnd(12) as usize;
                (0..n).map(|_| (0..n).filter(|_| rnd(5) == 0).collect()).collect()
            })
            .collect()
    }

    #[test]
    fn components_are_mutual_reachability_in_reverse_topological_order() {
        for succ in random_graphs(3) {
            let n = succ.len();
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

    /// `succ` as (start, successors).
    fn csr(succ: &[Vec<usize>]) -> (Vec<u32>, Vec<u32>) {
        let mut start = vec![0];
        for ws in succ {
            start.push(start.last().copied().unwrap_or(0) + ws.len() as u32);
        }
        (start, succ.concat().into_iter().map(|v| v as u32).collect())
    }

    /// Tarjan's algorithm with an explicit stack and three numbers per node, as
    /// [`component_of`] was before Pearce's variant: the reference its numbering is tested
    /// against (each node's component number, and the number of components).
    fn tarjan(start: &[u32], succ: &[u32]) -> (Vec<u32>, usize) {
        const NONE: u32 = u32::MAX;
        let n = start.len().saturating_sub(1);
        let (mut index, mut low, mut comp) = (vec![NONE; n], vec![0u32; n], vec![NONE; n]);
        let (mut visited, mut count) = (0u32, 0u32);
        let mut stack: Vec<u32> = Vec::new();
        // The depth-first search's path: (node, position of its next successor in `succ`).
        let mut path: Vec<(u32, u32)> = Vec::new();
        for root in 0..n {
            if index[root] != NONE {
                continue;
            }
            index[root] = visited;
            low[root] = visited;
            visited += 1;
            stack.push(root as u32);
            path.push((root as u32, start[root]));
            while let Some(&(v, at)) = path.last() {
                let v = v as usize;
                if at < start[v + 1] {
                    path.last_mut().expect("not empty").1 += 1;
                    let w = succ[at as usize] as usize;
                    if index[w] == NONE {
                        index[w] = visited;
                        low[w] = visited;
                        visited += 1;
                        stack.push(w as u32);
                        path.push((w as u32, start[w]));
                    } else if comp[w] == NONE {
                        low[v] = low[v].min(index[w]); // w is on the stack
                    }
                    continue;
                }
                path.pop();
                if let Some(&(u, _)) = path.last() {
                    low[u as usize] = low[u as usize].min(low[v]);
                }
                if low[v] == index[v] {
                    loop {
                        let w = stack.pop().expect("v is on the stack") as usize;
                        comp[w] = count;
                        if w == v {
                            break;
                        }
                    }
                    count += 1;
                }
            }
        }
        (comp, count as usize)
    }

    #[test]
    fn component_of_numbers_the_components_as_tarjan() {
        for seed in [5, 6, 7] {
            for succ in random_graphs(seed) {
                let (start, flat) = csr(&succ);
                assert_eq!(component_of(&start, &flat), tarjan(&start, &flat), "{succ:?}");
            }
        }
        // Chains both ways, a cycle, and a chain of cycles of two.
        let n = 1000;
        let graphs: Vec<Vec<Vec<usize>>> = vec![
            (0..n).map(|v| if v + 1 < n { vec![v + 1] } else { vec![] }).collect(),
            (0..n).map(|v| if v > 0 { vec![v - 1] } else { vec![] }).collect(),
            (0..n).map(|v| vec![(v + 1) % n]).collect(),
            (0..n).map(|v| if v % 2 == 0 { vec![v + 1] } else { vec![v - 1, (v + 1) % n] }).collect(),
        ];
        for succ in graphs {
            let (start, flat) = csr(&succ);
            assert_eq!(component_of(&start, &flat), tarjan(&start, &flat));
        }
    }

    #[test]
    fn component_of_gives_the_partition_of_components_in_reverse_topological_order() {
        for succ in random_graphs(5) {
            let n = succ.len();
            let mut reference = vec![usize::MAX; n];
            let sccs = components(&succ);
            for (c, members) in sccs.iter().enumerate() {
                members.iter().for_each(|&v| reference[v] = c);
            }
            let (start, flat) = csr(&succ);
            let (comp, count) = component_of(&start, &flat);
            assert_eq!(count, sccs.len(), "{succ:?}");
            for u in 0..n {
                for v in 0..n {
                    assert_eq!(comp[u] == comp[v], reference[u] == reference[v], "{succ:?}");
                }
                for &v in &succ[u] {
                    assert!(comp[v] <= comp[u], "{succ:?}");
                }
            }
        }
    }

    #[test]
    fn component_of_a_long_chain_needs_no_deep_stack() {
        let n = 1_000_000;
        let succ: Vec<Vec<usize>> = (0..n).map(|v| if v + 1 < n { vec![v + 1] } else { vec![] }).collect();
        let (start, flat) = csr(&succ);
        let (comp, count) = component_of(&start, &flat);
        assert_eq!((count, comp[n - 1] as usize, comp[0] as usize), (n, 0, n - 1));
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
