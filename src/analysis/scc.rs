//! Strongly connected components of a directed graph over dense indices: Tarjan's
//! algorithm with an explicit stack, so its depth is not the program's (petgraph's
//! recursive one overflowed the stack on a chain of 10^5 equations, issue 15). Pure
//! function; the Σ-method's blocks, the fine Dulmage–Mendelsohn decomposition and the
//! implicit strategy's union SCCs use it.

/// The strongly connected components of the graph with successors `succ[v]`, in reverse
/// topological order: a component comes after every component it reaches.
pub fn tarjan_scc(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut t = Tarjan {
        index: vec![UNSEEN; succ.len()],
        low: vec![0; succ.len()],
        on_stack: vec![false; succ.len()],
        stack: Vec::new(),
        call: Vec::new(),
        counter: 0,
    };
    let mut out = Vec::new();
    for root in 0..succ.len() {
        if t.index[root] != UNSEEN {
            continue;
        }
        t.enter(root);
        while let Some(&mut (v, ref mut k)) = t.call.last_mut() {
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if t.index[w] == UNSEEN {
                    t.enter(w);
                } else if t.on_stack[w] {
                    t.low[v] = t.low[v].min(t.index[w]);
                }
                continue;
            }
            t.call.pop();
            if let Some(&(u, _)) = t.call.last() {
                t.low[u] = t.low[u].min(t.low[v]);
            }
            if t.low[v] == t.index[v] {
                let at = t.stack.iter().rposition(|&x| x == v).expect("v is on the stack");
                let component: Vec<usize> = t.stack.drain(at..).collect();
                component.iter().for_each(|&x| t.on_stack[x] = false);
                out.push(component);
            }
        }
    }
    out
}

const UNSEEN: usize = usize::MAX;

/// The search state: DFS number and low link of every node, Tarjan's stack of open
/// nodes, and the call stack (node, next successor to try).
struct Tarjan {
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    call: Vec<(usize, usize)>,
    counter: usize,
}

impl Tarjan {
    fn enter(&mut self, v: usize) {
        self.index[v] = self.counter;
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        self.call.push((v, 0));
    }
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
            let sccs = tarjan_scc(&succ);
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
        let sccs = tarjan_scc(&succ);
        assert_eq!(sccs.len(), n);
        assert_eq!(sccs[0], vec![n - 1]);
    }
}
