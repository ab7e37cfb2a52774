//! Bipartite matchings over dense indices (equations `0..n_eq`, variables `0..n_var`):
//! maximum cardinality matching (augmenting paths) and maximum-weight perfect matching
//! (Hungarian algorithm, O(n³)). Pure functions; the single-mode Σ-method's primal
//! problem and the Dulmage–Mendelsohn decomposition stand on them.

/// Sparse weighted bipartite graph: `adj[i]` lists `(j, weight)` for equation `i`.
pub type Graph = Vec<Vec<(usize, i64)>>;

/// A maximum cardinality matching: `eq_to_var[i]`, `var_to_eq[j]`.
pub fn maximum_matching(adj: &Graph, n_var: usize) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let n_eq = adj.len();
    let mut eq_to_var = vec![None; n_eq];
    let mut var_to_eq: Vec<Option<usize>> = vec![None; n_var];
    for i in 0..n_eq {
        let mut seen = vec![false; n_var];
        augment(adj, i, &mut seen, &mut eq_to_var, &mut var_to_eq);
    }
    (eq_to_var, var_to_eq)
}

/// Kuhn's augmenting path from equation `start`, iterative (no recursion depth limit).
fn augment(
    adj: &Graph,
    start: usize,
    seen: &mut [bool],
    eq_to_var: &mut [Option<usize>],
    var_to_eq: &mut [Option<usize>],
) -> bool {
    // Stack of (equation, next adjacency index); `via[k]` = variable used to reach stack[k+1].
    let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
    let mut via: Vec<usize> = Vec::new();
    while let Some(&mut (i, ref mut k)) = stack.last_mut() {
        if *k >= adj[i].len() {
            stack.pop();
            via.pop();
            continue;
        }
        let j = adj[i][*k].0;
        *k += 1;
        if seen[j] {
            continue;
        }
        seen[j] = true;
        match var_to_eq[j] {
            None => {
                // Flip the path.
                via.push(j);
                for (level, &(eq, _)) in stack.iter().enumerate() {
                    let v = via[level];
                    eq_to_var[eq] = Some(v);
                    var_to_eq[v] = Some(eq);
                }
                return true;
            }
            Some(next) => {
                via.push(j);
                stack.push((next, 0));
            }
        }
    }
    false
}

/// A maximum-weight perfect matching of a square graph (`n_var == adj.len()`), as
/// `eq_to_var`, or `None` when there is no perfect matching. Every perfect matching is a
/// product of perfect matchings of the fine blocks ([`super::dm::fine_blocks`]), so the
/// assignment problem is solved block by block: O(Σ n_b³) instead of O(n³).
pub fn max_weight_perfect_matching(adj: &Graph) -> Option<Vec<usize>> {
    let n = adj.len();
    if n == 0 {
        return Some(Vec::new());
    }
    let blocks = super::dm::fine_blocks(adj, n)?;
    let mut eqs: Vec<Vec<usize>> = vec![Vec::new(); blocks.count];
    let mut vars: Vec<Vec<usize>> = vec![Vec::new(); blocks.count];
    let mut local = vec![0usize; n];
    for i in 0..n {
        eqs[blocks.eq_block[i]].push(i);
    }
    for j in 0..n {
        let b = &mut vars[blocks.var_block[j]];
        local[j] = b.len();
        b.push(j);
    }
    let mut out = vec![0usize; n];
    for b in 0..blocks.count {
        let sub: Graph = eqs[b]
            .iter()
            .map(|&i| adj[i].iter().filter(|&&(j, _)| blocks.var_block[j] == b).map(|&(j, w)| (local[j], w)).collect())
            .collect();
        let assignment = if sub.len() <= DENSE_MAX { dense_max_weight(&sub) } else { sparse_max_weight(&sub) };
        for (li, lj) in assignment.into_iter().enumerate() {
            out[eqs[b][li]] = vars[b][lj];
        }
    }
    Some(out)
}

/// Blocks up to this size are solved by the dense Hungarian method (O(n³), tiny
/// constants); larger ones by shortest augmenting paths on the sparse graph.
const DENSE_MAX: usize = 64;

/// The maximum-weight perfect matching of a square graph that has one, by successive
/// shortest augmenting paths (Dijkstra on reduced costs with node potentials, costs =
/// −weights): O(n (m + n) log n) on n equations and m edges.
fn sparse_max_weight(adj: &Graph) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = adj.len();
    // Potentials: rows p_row (start 0), columns p_col (start at the least cost into them),
    // so every reduced cost c(i, j) + p_row[i] - p_col[j] is ≥ 0.
    let mut p_row = vec![0i64; n];
    let mut p_col = vec![i64::MAX; n];
    for row in adj {
        for &(j, w) in row {
            p_col[j] = p_col[j].min(-w);
        }
    }
    let mut col_of_row: Vec<Option<usize>> = vec![None; n];
    let mut row_of_col: Vec<Option<usize>> = vec![None; n];
    const INF: i64 = i64::MAX / 4;
    let mut dist_row = vec![INF; n];
    let mut dist_col = vec![INF; n];
    let mut from_col = vec![usize::MAX; n]; // the row a column was reached from
    for s in 0..n {
        let mut touched_rows = vec![s];
        let mut touched_cols = Vec::new();
        dist_row[s] = 0;
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0i64, s)));
        let mut target = None;
        // Nodes on the heap are rows; a column is settled when its matched row is popped.
        while let Some(Reverse((d, i))) = heap.pop() {
            if d > dist_row[i] {
                continue;
            }
            let mut best: Option<(i64, usize)> = None;
            for &(j, w) in &adj[i] {
                let nd = d + (-w) + p_row[i] - p_col[j];
                if nd < dist_col[j] {
                    if dist_col[j] == INF {
                        touched_cols.push(j);
                    }
                    dist_col[j] = nd;
                    from_col[j] = i;
                    match row_of_col[j] {
                        Some(k) => {
                            if nd < dist_row[k] {
                                if dist_row[k] == INF {
                                    touched_rows.push(k);
                                }
                                dist_row[k] = nd;
                                heap.push(Reverse((nd, k)));
                            }
                        }
                        None => {
                            if best.is_none_or(|(b, _)| nd < b) {
                                best = Some((nd, j));
                            }
                        }
                    }
                }
            }
            if let Some((nd, j)) = best {
                if target.is_none_or(|(t, _)| nd < t) {
                    target = Some((nd, j));
                }
            }
            // Every free column reached at distance ≤ the next row's is final.
            let next = heap.peek().map_or(INF, |Reverse((d, _))| *d);
            if let Some((t, _)) = target {
                if t <= next {
                    break;
                }
            }
        }
        let (t, mut j) = target.expect("the graph has a perfect matching");
        // Potentials: every node reached closer than the target moves by (t - dist).
        for &i in &touched_rows {
            if dist_row[i] < t {
                p_row[i] -= t - dist_row[i];
            }
        }
        for &c in &touched_cols {
            if dist_col[c] < t {
                p_col[c] -= t - dist_col[c];
            }
        }
        // Augment along the path ending at the free column j.
        loop {
            let i = from_col[j];
            let prev = col_of_row[i];
            col_of_row[i] = Some(j);
            row_of_col[j] = Some(i);
            match prev {
                Some(pj) if i != s => j = pj,
                _ => break,
            }
        }
        for &i in &touched_rows {
            dist_row[i] = INF;
        }
        for &c in &touched_cols {
            dist_col[c] = INF;
            from_col[c] = usize::MAX;
        }
    }
    col_of_row.into_iter().map(|j| j.expect("perfect")).collect()
}

/// The maximum-weight perfect matching of a square graph that has one (Hungarian method).
fn dense_max_weight(adj: &Graph) -> Vec<usize> {
    let n = adj.len();
    let max_w = adj.iter().flatten().map(|&(_, w)| w.abs()).max().unwrap_or(0);
    let forbidden: i64 = (max_w + 1) * (n as i64 + 1) * 4;
    // cost[i][j] = -weight (minimise), forbidden where there is no edge.
    let mut cost = vec![vec![forbidden; n]; n];
    for (i, row) in adj.iter().enumerate() {
        for &(j, w) in row {
            cost[i][j] = cost[i][j].min(-w);
        }
    }
    let assignment = hungarian(&cost);
    // A perfect matching exists, so the optimum never uses a forbidden entry.
    debug_assert!(assignment.iter().enumerate().all(|(i, &j)| cost[i][j] < forbidden));
    assignment
}

/// Minimum-cost assignment (rows to columns) of a square matrix; `result[row] = col`.
fn hungarian(cost: &[Vec<i64>]) -> Vec<usize> {
    let n = cost.len();
    const INF: i64 = i64::MAX / 4;
    let mut u = vec![0i64; n + 1];
    let mut v = vec![0i64; n + 1];
    let mut p = vec![0usize; n + 1]; // p[col] = row (1-based), 0 = free
    let mut way = vec![0usize; n + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0usize;
        let mut minv = vec![INF; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = INF;
            let mut j1 = 0usize;
            for j in 1..=n {
                if !used[j] {
                    let cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut result = vec![0usize; n];
    for j in 1..=n {
        if p[j] != 0 {
            result[p[j] - 1] = j - 1;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_max(adj: &Graph) -> Option<i64> {
        let n = adj.len();
        let mut best = None;
        let mut perm: Vec<usize> = (0..n).collect();
        permute(&mut perm, 0, &mut |p| {
            let mut total = 0;
            for (i, &j) in p.iter().enumerate() {
                match adj[i].iter().filter(|e| e.0 == j).map(|e| e.1).max() {
                    Some(w) => total += w,
                    None => return,
                }
            }
            best = Some(best.map_or(total, |b: i64| b.max(total)));
        });
        best
    }

    fn permute(p: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
        if k == p.len() {
            f(p);
            return;
        }
        for i in k..p.len() {
            p.swap(k, i);
            permute(p, k + 1, f);
            p.swap(k, i);
        }
    }

    fn weight(adj: &Graph, m: &[usize]) -> i64 {
        m.iter().enumerate().map(|(i, &j)| adj[i].iter().filter(|e| e.0 == j).map(|e| e.1).max().unwrap()).sum()
    }

    #[test]
    fn sparse_and_dense_agree_on_random_graphs_with_a_perfect_matching() {
        let mut seed = 777u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for case in 0..400 {
            let n = 1 + rnd(if case < 300 { 8 } else { 120 }) as usize;
            // A diagonal keeps a perfect matching; extra edges of weights 0..3.
            let adj: Graph = (0..n)
                .map(|i| {
                    let mut row = vec![(i, rnd(3) as i64)];
                    for _ in 0..rnd(4) {
                        let j = rnd(n as u64) as usize;
                        if !row.iter().any(|e| e.0 == j) {
                            row.push((j, rnd(4) as i64));
                        }
                    }
                    row
                })
                .collect();
            let sparse = sparse_max_weight(&adj);
            let mut seen = vec![false; n];
            for &j in &sparse {
                assert!(!seen[j], "a column matched twice: {adj:?}");
                seen[j] = true;
            }
            assert_eq!(weight(&adj, &sparse), weight(&adj, &dense_max_weight(&adj)), "{adj:?}");
        }
    }

    #[test]
    fn hungarian_agrees_with_brute_force_on_random_graphs() {
        let mut seed = 12345u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..500 {
            let n = 1 + rnd(6) as usize;
            let adj: Graph = (0..n)
                .map(|_| (0..n).filter_map(|j| if rnd(3) > 0 { Some((j, rnd(3) as i64)) } else { None }).collect())
                .collect();
            let expected = brute_max(&adj);
            let got = max_weight_perfect_matching(&adj).map(|m| {
                m.iter().enumerate().map(|(i, &j)| adj[i].iter().filter(|e| e.0 == j).map(|e| e.1).max().unwrap()).sum()
            });
            assert_eq!(got, expected, "{adj:?}");
        }
    }
}
