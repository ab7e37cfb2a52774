//! Bipartite matchings over dense indices (equations `0..n_eq`, variables `0..n_var`):
//! maximum cardinality matching (augmenting paths) and maximum-weight perfect matching
//! (per irreducible block of the Dulmage–Mendelsohn fine decomposition, by successive
//! shortest augmenting paths with potentials over the block's edges: sparse, so a model of
//! 10^5 equations in bounded blocks is matched in linear memory and near-linear time; the
//! dense O(n³) Hungarian algorithm on the whole graph needed n² memory, 134 MB at 4,000
//! equations). Pure functions; the single-mode Σ-method's primal problem and the
//! Dulmage–Mendelsohn decomposition stand on them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Sparse weighted bipartite graph: `adj[i]` lists `(j, weight)` for equation `i`.
pub type Graph = Vec<Vec<(usize, i64)>>;

/// A maximum cardinality matching, `eq_to_var[i]`, `var_to_eq[j]`: Hopcroft–Karp after a
/// greedy start, O(E √V) (Kuhn's search from every equation in turn is O(V·E), and a chain
/// of 10^4 equations took seconds). Which maximum matching it returns is unspecified: the
/// callers' results (the Dulmage–Mendelsohn parts, the fine blocks, the Σ-method's offsets
/// and blocks) are the same for every one.
pub fn maximum_matching<R: Rows + ?Sized>(adj: &R, n_var: usize) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let (eq_to_var, var_to_eq) = hopcroft_karp(adj, n_var);
    let opt = |x: u32| (x != FREE).then_some(x as usize);
    (eq_to_var.into_iter().map(opt).collect(), var_to_eq.into_iter().map(opt).collect())
}

/// Whether the equations `rows` (over the variables `0..n_var`) have a perfect matching
/// (every equation and every variable matched), by [`maximum_matching`]'s search. Reads
/// the rows where they are (a model's incidence, issue 15: no graph built).
pub fn has_perfect_matching<R: Rows + ?Sized>(rows: &R, n_var: usize) -> bool {
    rows.len() == n_var && !hopcroft_karp(rows, n_var).0.contains(&FREE)
}

/// The variables of each equation, for the cardinality matching: entry `k` of row `i`
/// (repetitions allowed). A [`Graph`] is one; so is a model's incidence, read in place.
pub trait Rows {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The number of entries of row `i`.
    fn degree(&self, i: usize) -> usize;
    /// The variable of entry `k` of row `i`.
    fn var(&self, i: usize, k: usize) -> usize;
}

impl Rows for Graph {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn degree(&self, i: usize) -> usize {
        self[i].len()
    }
    fn var(&self, i: usize, k: usize) -> usize {
        self[i][k].0
    }
}

/// Rows whose entries have a weight, for the weighted matching and the Σ-method: a
/// [`Graph`], or one mode's packed Σ-matrix ([`Sigma`](super::sigma::Sigma)).
pub trait Weighted: Rows {
    /// The entries (variable, weight) of row `i`, in order.
    fn entries(&self, i: usize) -> impl Iterator<Item = (usize, i64)> + '_;
}

impl Weighted for Graph {
    fn entries(&self, i: usize) -> impl Iterator<Item = (usize, i64)> + '_ {
        self[i].iter().copied()
    }
}

/// No equation or variable (a `u32` index).
pub const FREE: u32 = u32::MAX;

/// [`maximum_matching`] as `u32` indices, [`FREE`] where unmatched (the matching of a
/// model of 10^5 equations without modes is at the main job's peak: issue 15).
pub fn hopcroft_karp<R: Rows + ?Sized>(adj: &R, n_var: usize) -> (Vec<u32>, Vec<u32>) {
    let n_eq = adj.len();
    let mut eq_to_var = vec![FREE; n_eq];
    let mut var_to_eq = vec![FREE; n_var];
    // Greedy start: each equation takes its first free variable.
    for (i, to) in eq_to_var.iter_mut().enumerate() {
        if let Some(j) = (0..adj.degree(i)).map(|k| adj.var(i, k)).find(|&j| var_to_eq[j] == FREE) {
            *to = j as u32;
            var_to_eq[j] = i as u32;
        }
    }
    let mut layer = vec![0u32; n_eq];
    let mut next = vec![0u32; n_eq];
    let mut queue: Vec<u32> = Vec::with_capacity(n_eq);
    loop {
        // BFS from the free equations: layer of every equation on a shortest alternating path.
        queue.clear();
        for i in 0..n_eq {
            layer[i] = if eq_to_var[i] == FREE { 0 } else { FREE };
            if eq_to_var[i] == FREE {
                queue.push(i as u32);
            }
        }
        let mut found = false;
        let mut head = 0;
        while head < queue.len() {
            let i = queue[head] as usize;
            head += 1;
            for j in (0..adj.degree(i)).map(|k| adj.var(i, k)) {
                match var_to_eq[j] {
                    FREE => found = true,
                    k if layer[k as usize] == FREE => {
                        layer[k as usize] = layer[i] + 1;
                        queue.push(k);
                    }
                    _ => {}
                }
            }
        }
        if !found {
            break;
        }
        // DFS along the layers from each free equation, iterative; `next[i]`: the next edge
        // of i to try (an edge that failed once fails for the rest of the phase).
        next.iter_mut().for_each(|x| *x = 0);
        for s in 0..n_eq {
            if eq_to_var[s] != FREE {
                continue;
            }
            let mut stack = vec![s];
            while let Some(&i) = stack.last() {
                if next[i] as usize == adj.degree(i) {
                    layer[i] = FREE; // dead end for this phase
                    stack.pop();
                    continue;
                }
                let j = adj.var(i, next[i] as usize);
                next[i] += 1;
                let k = var_to_eq[j];
                if k == FREE {
                    // Augment along the stack: each equation takes the variable it tried last.
                    for &e in stack.iter().rev() {
                        let v = adj.var(e, next[e] as usize - 1);
                        var_to_eq[v] = e as u32;
                        eq_to_var[e] = v as u32;
                    }
                    break;
                }
                let k = k as usize;
                if layer[k] != FREE && layer[k] == layer[i] + 1 {
                    stack.push(k);
                }
            }
        }
    }
    // The search's arrays freed before the answer is built beside the matching (the peak
    // of the main job on a model without modes is in this matching: issue 15).
    drop((layer, next, queue));
    (eq_to_var, var_to_eq)
}

/// A maximum-weight perfect matching of a square graph (`n_var == adj.len()`), as
/// `eq_to_var` (`u32`, as the model's ids), or `None` when there is no perfect matching.
/// Only the edges inside an irreducible block can be in a perfect matching
/// ([`fine_blocks`](super::dm::fine_blocks)), so the optimum is the union of every block's
/// own optimum; a block of one equation has one perfect matching, the maximum matching's.
///
/// Memory (issue 15: a model of 10^5 equations without modes, whose Σ-matrix is `adj`,
/// is one irreducible block of 70,000 equations, or 10^5 blocks of one): the answer is
/// the maximum matching with the blocks of two equations or more rematched; when the rows
/// are increasing (each variable once, as a [`Sigma`](super::sigma::Sigma)'s), a block's
/// rows are read in place ([`BlockRows`]), else copied sorted ([`CostRows`]); a graph
/// that is one block is read without groups or local indices.
pub fn max_weight_perfect_matching<G: Weighted + ?Sized>(adj: &G) -> Option<Vec<u32>> {
    let n = adj.len();
    let (eq_to_var, var_to_eq) = hopcroft_karp(adj, n);
    if eq_to_var.contains(&FREE) {
        return None;
    }
    let (eq_block, var_block, count) = fine_partition(adj, &eq_to_var, var_to_eq);
    if count == n {
        return Some(eq_to_var);
    }
    let increasing = (0..n).all(|i| {
        let mut row = (0..adj.degree(i)).map(|k| adj.var(i, k));
        let mut last = row.next();
        row.all(|j| last.replace(j) < Some(j))
    });
    if count == 1 {
        drop((eq_to_var, eq_block, var_block));
        return match increasing {
            true => min_cost_assignment(&BlockRows { adj, block: None }),
            false => min_cost_assignment(&CostRows::of(adj, &mut (0..n as u32), &|j| Some(j as u32))),
        };
    }
    // Each block's equations and variables (grouped in one list each: a model of 10^5
    // equations has about as many blocks), with local indices.
    let eqs = Grouped::of(&eq_block, count);
    drop(eq_block);
    let vars = Grouped::of(&var_block, count);
    let mut local_var = vec![0u32; n];
    for b in 0..count {
        for (k, &j) in vars.group(b).iter().enumerate() {
            local_var[j as usize] = k as u32;
        }
    }
    let mut out = eq_to_var;
    for b in 0..count {
        let rows = eqs.group(b);
        if rows.len() == 1 {
            continue;
        }
        let assignment = if increasing {
            let inside = Inside { rows, var_block: &var_block, local_var: &local_var, b: b as u32 };
            min_cost_assignment(&BlockRows { adj, block: Some(inside) })
        } else {
            let col = |j: usize| (var_block[j] as usize == b).then_some(local_var[j]);
            min_cost_assignment(&CostRows::of(adj, &mut rows.iter().copied(), &col))
        }?;
        for (r, &c) in assignment.iter().enumerate() {
            out[rows[r] as usize] = vars.group(b)[c as usize];
        }
    }
    Some(out)
}

/// The irreducible blocks of the fine decomposition under a perfect matching, as the block
/// of each equation and of each variable and their number: the partition of
/// [`fine_blocks_with`](super::dm::fine_blocks_with), numbered otherwise (each block's
/// optimum is its own, so the numbering does not matter here), without a list per block.
/// `var_to_eq` is freed before the components are found.
fn fine_partition<R: Rows + ?Sized>(adj: &R, eq_to_var: &[u32], var_to_eq: Vec<u32>) -> (Vec<u32>, Vec<u32>, usize) {
    // Equation i → the equation matched to each variable of its row (every variable is
    // matched: the matching is perfect).
    let target = |i: usize, j: usize| Some(var_to_eq[j]).filter(|&k| k as usize != i);
    let row = |i: usize| (0..adj.degree(i)).map(move |k| adj.var(i, k));
    let mut start: Vec<u32> = Vec::with_capacity(adj.len() + 1);
    start.push(0);
    for i in 0..adj.len() {
        start.push(start[i] + row(i).filter(|&j| target(i, j).is_some()).count() as u32);
    }
    let mut succ: Vec<u32> = Vec::with_capacity(start[adj.len()] as usize);
    for i in 0..adj.len() {
        succ.extend(row(i).filter_map(|j| target(i, j)));
    }
    let n_var = var_to_eq.len();
    drop(var_to_eq);
    let (eq_block, count) = super::scc::component_of(&start, &succ);
    drop((start, succ));
    let mut var_block = vec![0u32; n_var];
    for (i, &j) in eq_to_var.iter().enumerate() {
        var_block[j as usize] = eq_block[i];
    }
    (eq_block, var_block, count)
}

/// The indices `0..n` grouped by a label `0..count` (a counting sort), each group in
/// increasing order (`u32`: n < 2^32, as the model's ids are).
struct Grouped {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grouped {
    fn of(label: &[u32], count: usize) -> Grouped {
        let mut start = vec![0u32; count + 1];
        for &b in label {
            start[b as usize + 1] += 1;
        }
        for b in 0..count {
            start[b + 1] += start[b];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; label.len()];
        for (i, &b) in label.iter().enumerate() {
            items[next[b as usize] as usize] = i as u32;
            next[b as usize] += 1;
        }
        Grouped { start, items }
    }

    fn group(&self, b: usize) -> &[u32] {
        &self.items[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

/// Minimum-cost perfect assignment of a square sparse graph (row r's entries: (column,
/// cost), sorted by column, no column twice), `result[r] = column`; `None` if there is
/// none. Successive shortest augmenting paths (Dijkstra on reduced costs, Johnson
/// potentials): O(k · E log k) for k rows and E edges, E memory; rows, columns and the
/// search's links as `u32` (a model of 10^5 equations can be one irreducible block).
pub fn min_cost_assignment<G: Weighted + ?Sized>(rows: &G) -> Option<Vec<u32>> {
    let k = rows.len();
    // Potentials: reduced cost of row r → column c is cost + pr[r] − pc[c] ≥ 0, and 0 on
    // the matched edges. Start from pc[c] = min over the rows of the column's cost.
    let mut pc = vec![i64::MAX; k];
    for r in 0..k {
        for (c, w) in rows.entries(r) {
            pc[c] = pc[c].min(w);
        }
    }
    if pc.contains(&i64::MAX) {
        return None;
    }
    let mut pr = vec![0i64; k];
    let mut row_of: Vec<u32> = vec![FREE; k];
    let mut col_of: Vec<u32> = vec![FREE; k];
    // Per search: distance to each column, the row it was reached from, and what to reset.
    let mut dist = vec![i64::MAX; k];
    let mut from = vec![0u32; k];
    let mut done = vec![false; k];
    let mut touched: Vec<u32> = Vec::new();
    for s in 0..k {
        let mut heap: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
        let mut relax = |r: usize, base: i64, heap: &mut BinaryHeap<_>, dist: &mut [i64], from: &mut [u32]| {
            for (c, w) in rows.entries(r) {
                let d = base + w + pr[r] - pc[c];
                if d < dist[c] {
                    if dist[c] == i64::MAX {
                        touched.push(c as u32);
                    }
                    dist[c] = d;
                    from[c] = r as u32;
                    heap.push(Reverse((d, c as u32)));
                }
            }
        };
        relax(s, 0, &mut heap, &mut dist, &mut from);
        // Rows reached, with their distance (the source at 0).
        let mut reached: Vec<(u32, i64)> = vec![(s as u32, 0)];
        let mut target = None;
        while let Some(Reverse((d, c))) = heap.pop() {
            let c = c as usize;
            if done[c] || d > dist[c] {
                continue;
            }
            done[c] = true;
            match row_of[c] {
                FREE => {
                    target = Some((c, d));
                    break;
                }
                r => {
                    reached.push((r, d));
                    relax(r as usize, d, &mut heap, &mut dist, &mut from);
                }
            }
        }
        let (t, total) = target?;
        // New potentials π + min(d, D) (a common shift of every node changes nothing, so
        // only the nodes closer than D move, by d − D).
        for &c in &touched {
            let c = c as usize;
            if done[c] && dist[c] < total {
                pc[c] += dist[c] - total;
            }
        }
        for &(r, d) in &reached {
            pr[r as usize] += d - total;
        }
        // Augment along the path.
        let mut c = t;
        loop {
            let r = from[c] as usize;
            let next = col_of[r];
            row_of[c] = r as u32;
            col_of[r] = c as u32;
            match next {
                FREE => break,
                _ if r == s => break,
                c2 => c = c2 as usize,
            }
        }
        for &c in &touched {
            dist[c as usize] = i64::MAX;
            done[c as usize] = false;
        }
        touched.clear();
    }
    (!col_of.contains(&FREE)).then_some(col_of)
}

/// One irreducible block's rows for [`min_cost_assignment`], packed: row r's entries
/// (local column, cost) are `cols[start[r]..start[r + 1]]` with their `costs`.
struct CostRows {
    start: Vec<u32>,
    cols: Vec<u32>,
    costs: Vec<i64>,
}

impl CostRows {
    /// The rows `rows` of `adj` with their entries whose variable has a local column
    /// (`col`), at it, cost = −weight, sorted by column, of parallel edges the heaviest.
    fn of<G: Weighted + ?Sized>(
        adj: &G,
        rows: &mut dyn ExactSizeIterator<Item = u32>,
        col: &dyn Fn(usize) -> Option<u32>,
    ) -> CostRows {
        let mut block = CostRows { start: Vec::with_capacity(rows.len() + 1), cols: Vec::new(), costs: Vec::new() };
        block.start.push(0);
        let mut row: Vec<(u32, i64)> = Vec::new();
        for i in rows {
            row.extend(adj.entries(i as usize).filter_map(|(j, w)| Some((col(j)?, -w))));
            row.sort_unstable();
            row.dedup_by_key(|e| e.0);
            block.cols.extend(row.iter().map(|e| e.0));
            block.costs.extend(row.iter().map(|e| e.1));
            block.start.push(u32::try_from(block.cols.len()).expect("fewer than 2^32 block entries"));
            row.clear();
        }
        block
    }
}

impl Rows for CostRows {
    fn len(&self) -> usize {
        self.start.len() - 1
    }
    fn degree(&self, i: usize) -> usize {
        (self.start[i + 1] - self.start[i]) as usize
    }
    fn var(&self, i: usize, k: usize) -> usize {
        self.cols[self.start[i] as usize + k] as usize
    }
}

impl Weighted for CostRows {
    fn entries(&self, i: usize) -> impl Iterator<Item = (usize, i64)> + '_ {
        let (p, q) = (self.start[i] as usize, self.start[i + 1] as usize);
        self.cols[p..q].iter().zip(&self.costs[p..q]).map(|(&c, &w)| (c as usize, w))
    }
}

/// One irreducible block's rows for [`min_cost_assignment`] read in place from a graph
/// whose rows are increasing (each variable once): [`CostRows`]'s entries, in its order,
/// without the copy. `block`: where the block is, `None` when the graph is one block.
struct BlockRows<'g, G: ?Sized> {
    adj: &'g G,
    block: Option<Inside<'g>>,
}

/// Block `b` of a graph: its equations, and each variable's block and local column.
#[derive(Clone, Copy)]
struct Inside<'g> {
    rows: &'g [u32],
    var_block: &'g [u32],
    local_var: &'g [u32],
    b: u32,
}

impl<G: Weighted + ?Sized> Weighted for BlockRows<'_, G> {
    fn entries(&self, r: usize) -> impl Iterator<Item = (usize, i64)> + '_ {
        let i = self.block.map_or(r, |x| x.rows[r] as usize);
        self.adj.entries(i).filter_map(move |(j, w)| match self.block {
            None => Some((j, -w)),
            Some(x) => (x.var_block[j] == x.b).then(|| (x.local_var[j] as usize, -w)),
        })
    }
}

impl<G: Weighted + ?Sized> Rows for BlockRows<'_, G> {
    fn len(&self) -> usize {
        self.block.map_or(self.adj.len(), |x| x.rows.len())
    }
    fn degree(&self, r: usize) -> usize {
        self.entries(r).count()
    }
    fn var(&self, r: usize, k: usize) -> usize {
        self.entries(r).nth(k).expect("an entry of the row").0
    }
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

    #[test]
    fn max_weight_matching_agrees_with_brute_force_on_random_graphs() {
        let mut seed = 12345u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let mut perfect = 0;
        for _ in 0..3000 {
            let n = 1 + rnd(7) as usize;
            let density = 2 + rnd(3);
            let adj: Graph = (0..n)
                .map(|_| {
                    (0..n).filter_map(|j| if rnd(density) > 0 { Some((j, rnd(5) as i64 - 1)) } else { None }).collect()
                })
                .collect();
            let expected = brute_max(&adj);
            let got = max_weight_perfect_matching(&adj).map(|m| {
                let mut cols = m.clone();
                cols.sort_unstable();
                cols.dedup();
                assert_eq!(cols.len(), n, "a permutation: {m:?}");
                m.iter()
                    .enumerate()
                    .map(|(i, &j)| adj[i].iter().filter(|e| e.0 == j as usize).map(|e| e.1).max().unwrap())
                    .sum()
            });
            perfect += usize::from(got.is_some());
            assert_eq!(got, expected, "{adj:?}");
        }
        assert!(perfect > 1000, "the sample has perfect matchings: {perfect}");
    }

    /// Kuhn's augmenting paths from each equation in turn (the implementation before
    /// issue 15): the reference.
    fn kuhn(adj: &Graph, n_var: usize) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
        let n_eq = adj.len();
        let mut eq_to_var = vec![None; n_eq];
        let mut var_to_eq: Vec<Option<usize>> = vec![None; n_var];
        let mut seen = vec![0usize; n_var];
        for i in 0..n_eq {
            augment(adj, i, &mut seen, &mut eq_to_var, &mut var_to_eq);
        }
        (eq_to_var, var_to_eq)
    }

    /// Kuhn's augmenting path from equation `start`, iterative (no recursion depth limit);
    /// `seen[j] == start + 1` marks the variables this search has seen.
    fn augment(
        adj: &Graph,
        start: usize,
        seen: &mut [usize],
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
            if seen[j] == start + 1 {
                continue;
            }
            seen[j] = start + 1;
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

    #[test]
    fn hopcroft_karp_finds_a_maximum_matching() {
        let mut seed = 5u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..2000 {
            let (n_eq, n_var) = (1 + rnd(9) as usize, 1 + rnd(9) as usize);
            let mut adj: Graph = vec![Vec::new(); n_eq];
            for row in adj.iter_mut() {
                for j in 0..n_var {
                    if rnd(4) == 0 {
                        row.push((j, 0));
                    }
                }
            }
            let (e2v, v2e) = maximum_matching(&adj, n_var);
            for (i, j) in e2v.iter().enumerate() {
                if let Some(j) = *j {
                    assert!(adj[i].iter().any(|e| e.0 == j) && v2e[j] == Some(i), "{adj:?}");
                }
            }
            let size = |m: &[Option<usize>]| m.iter().flatten().count();
            assert_eq!(size(&e2v), size(&kuhn(&adj, n_var).0), "{adj:?}");
        }
        // A chain, the worst case of Kuhn's search in row order.
        let n = 20_000;
        let chain: Graph = (0..n).map(|i| if i == 0 { vec![(0, 0)] } else { vec![(i - 1, 0), (i, 0)] }).collect();
        assert!(maximum_matching(&chain, n).0.iter().all(Option::is_some));
    }

    #[test]
    fn min_cost_assignment_agrees_with_brute_force_on_dense_blocks() {
        let mut seed = 99u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..500 {
            let n = 1 + rnd(6) as usize;
            let mut rows: Vec<Vec<(usize, i64)>> = vec![Vec::new(); n];
            for row in rows.iter_mut() {
                for j in 0..n {
                    if rnd(4) > 0 {
                        row.push((j, rnd(20) as i64 - 7));
                    }
                }
            }
            let adj: Graph = rows.iter().map(|r| r.iter().map(|&(j, c)| (j, -c)).collect()).collect();
            let got = min_cost_assignment(&rows).map(|m| {
                -m.iter().enumerate().map(|(i, &j)| rows[i].iter().find(|e| e.0 == j as usize).unwrap().1).sum::<i64>()
            });
            assert_eq!(got, brute_max(&adj), "{rows:?}");
        }
    }
}
