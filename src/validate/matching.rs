//! Maximum bipartite matching of equations to unknowns (augmenting paths, Kuhn), and the
//! structurally overdetermined part of a system (Dulmage–Mendelsohn): the equations
//! reachable from an unmatched equation by alternating paths. Over dense `u32` indices;
//! equations are tried in order, so the later of two equations competing for one unknown
//! is the one left unmatched.
//!
//! Two searches: [`matching`] (depth-first in row order: which unknown each equation gets
//! is what the discrete check's messages cite) and the cheap one, [`Search`] with the
//! lookahead (each equation first takes a free unknown of its row if it has one, the
//! "cheap assignment" of Duff's MC21: a chain `x_i = f(x_{i-1})` is matched in linear
//! time, where the plain search walks back along the whole chain from every equation —
//! quadratic, 18 s at 30,000 equations, issue 15), which the initial-system check drives
//! equation by equation. Both leave the same equations unmatched (an equation is left
//! over iff no augmenting path exists when its turn comes, whichever paths were taken
//! before: the greedy basis of the transversal matroid), so the overdetermined part is
//! the same; for the same reason a search may go on from any matching of the equations
//! before (the initial-system check's second step). Tested against brute force and
//! against each other.

/// Each equation's unknowns (indices below the number of unknowns), by equation.
pub(super) trait Rows {
    fn len(&self) -> usize;
    fn row(&self, e: usize) -> &[u32];
}

impl Rows for [Vec<u32>] {
    fn len(&self) -> usize {
        <[Vec<u32>]>::len(self)
    }
    fn row(&self, e: usize) -> &[u32] {
        &self[e]
    }
}

impl Rows for Vec<Vec<u32>> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn row(&self, e: usize) -> &[u32] {
        &self[e]
    }
}

/// Rows stored one after the other, in `u32` (no list per equation: a model has 10^5 of
/// them, and the initial-system check's arrays are at validation's peak, issue 15).
#[derive(Debug, Default)]
pub(super) struct Packed {
    /// Row e is `items[start[e]..start[e + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Packed {
    /// Room for `rows` rows of `items` entries in all (an upper bound: exact length).
    pub(super) fn with_capacity(rows: usize, items: usize) -> Packed {
        let mut start = Vec::with_capacity(rows + 1);
        start.push(0);
        Packed { start, items: Vec::with_capacity(items) }
    }

    /// Appends a row.
    pub(super) fn push(&mut self, row: impl IntoIterator<Item = u32>) {
        self.items.extend(row);
        self.start.push(self.items.len() as u32);
    }

    /// Appends a row to rows that will number about `rows`: the entries grow to the
    /// length the rows so far project (and at least by a quarter), not by doubling (10^5
    /// rows: the doubling's slack would be at validation's peak, issue 15).
    pub(super) fn push_projected(&mut self, row: &[u32], rows: usize) {
        let need = self.items.len() + row.len();
        if need > self.items.capacity() {
            let done = Rows::len(self) as u64 + 1;
            let projected = (need as u64 * (rows as u64).max(done) / done) as usize;
            let cap = self.items.capacity();
            let target = (projected + projected / 16).max(cap + cap / 4).max(need);
            self.items.reserve_exact(target - self.items.len());
        }
        self.items.extend_from_slice(row);
        self.start.push(self.items.len() as u32);
    }

    /// Appends the rows of `other`.
    pub(super) fn append(&mut self, other: &Packed) {
        let offset = self.items.len() as u32;
        self.items.extend_from_slice(&other.items);
        self.start.extend(other.start[1..].iter().map(|&s| s + offset));
    }

    /// Every entry, to change in place.
    pub(super) fn items_mut(&mut self) -> &mut [u32] {
        &mut self.items
    }

    /// Every entry.
    pub(super) fn items(&self) -> &[u32] {
        &self.items
    }

    /// Without the growth's slack.
    pub(super) fn shrink_to_fit(&mut self) {
        self.start.shrink_to_fit();
        self.items.shrink_to_fit();
    }
}

impl Rows for Packed {
    fn len(&self) -> usize {
        self.start.len() - 1
    }
    fn row(&self, e: usize) -> &[u32] {
        &self.items[self.start[e] as usize..self.start[e + 1] as usize]
    }
}

/// No unknown or equation (a `u32` index).
pub(super) const NONE: u32 = u32::MAX;

/// `assignment[e]`: the unknown matched to equation `e`, given each equation's unknowns
/// (indices below `unknowns`).
pub(super) fn matching<R: Rows + ?Sized>(rows: &R, unknowns: usize) -> Vec<Option<usize>> {
    search(rows, unknowns, false).0.into_iter().map(|v| (v != NONE).then_some(v as usize)).collect()
}

/// A maximum matching leaving the same equations unmatched as [`matching`] (possibly
/// matched to other unknowns), in linear time on chains and trees of equations:
/// `assignment[e]`, [`NONE`] where equation `e` is unmatched.
#[cfg(test)]
pub(super) fn maximum<R: Rows + ?Sized>(rows: &R, unknowns: usize) -> Vec<u32> {
    search(rows, unknowns, true).0
}

/// Kuhn's search from every equation in order, with the free-unknown lookahead when
/// `cheap`; also returns the work (row entries looked at).
fn search<R: Rows + ?Sized>(rows: &R, unknowns: usize, cheap: bool) -> (Vec<u32>, usize) {
    let mut s = Search::new(rows, unknowns, cheap);
    for e in 0..rows.len() {
        s.augment(e);
    }
    let work = s.work;
    let owner = s.into_owner();
    let mut assignment = vec![NONE; rows.len()];
    for (v, &e) in owner.iter().enumerate() {
        if e != NONE {
            assignment[e as usize] = v as u32;
        }
    }
    (assignment, work)
}

/// An unknown kept out of the search ([`Search::block`]): its owner, and its stamp
/// (above every equation's).
const BLOCKED: u32 = u32::MAX - 1;

/// Kuhn's search, one equation at a time ([`Search::augment`], in increasing order), over
/// unknowns some of which can be kept out for a while ([`Search::block`]: the initial
/// system's check first matches the model's equations without the states' values).
pub(super) struct Search<'a, R: ?Sized> {
    rows: &'a R,
    /// The equation matched to each unknown, [`NONE`] if free, [`BLOCKED`] if kept out.
    owner: Vec<u32>,
    /// `seen[v] >= stamp`: visited in this search, or kept out (one array for all
    /// searches: O(1) reset; the stamps increase).
    seen: Vec<u32>,
    /// `look[e]`: the next entry of row e the lookahead tries. An unknown once matched
    /// stays matched, so the entries before it never hold a free unknown again (but for
    /// an unknown let in after it was passed: the lookahead misses it, the search not).
    look: Vec<u32>,
    work: usize,
}

impl<'a, R: Rows + ?Sized> Search<'a, R> {
    /// A search over `rows` (unknowns below `unknowns`), with the free-unknown lookahead
    /// when `cheap`.
    pub(super) fn new(rows: &'a R, unknowns: usize, cheap: bool) -> Self {
        Search {
            rows,
            owner: vec![NONE; unknowns],
            seen: vec![0u32; unknowns],
            look: if cheap { vec![0; rows.len()] } else { Vec::new() },
            work: 0,
        }
    }

    /// Keeps the free unknown `v` out of the matching until [`Search::unblock`].
    pub(super) fn block(&mut self, v: usize) {
        self.owner[v] = BLOCKED;
        self.seen[v] = BLOCKED;
    }

    /// Lets the blocked unknown `v` in again.
    pub(super) fn unblock(&mut self, v: usize) {
        self.owner[v] = NONE;
        self.seen[v] = 0;
    }

    /// The equation matched to each unknown ([`NONE`]: free); no unknown blocked.
    pub(super) fn into_owner(self) -> Vec<u32> {
        self.owner
    }

    /// A free unknown of `eq`'s row, by the lookahead (none without it).
    fn free(&mut self, eq: usize) -> Option<usize> {
        let look = self.look.get_mut(eq)?;
        while let Some(&v) = self.rows.row(eq).get(*look as usize) {
            *look += 1;
            self.work += 1;
            if self.owner[v as usize] == NONE {
                return Some(v as usize);
            }
        }
        None
    }

    /// Matches equation `e` (after every equation before it) along an augmenting path
    /// (iterative depth-first search); false if there is none.
    pub(super) fn augment(&mut self, e: usize) -> bool {
        let stamp = e as u32 + 1;
        // Stack of (equation, next position in its row); `via[k]` is the unknown taken at level k.
        let mut stack: Vec<(usize, usize)> = vec![(e, 0)];
        let mut via: Vec<usize> = Vec::new();
        let mut fresh = true;
        loop {
            let Some(&(eq, pos)) = stack.last() else { return false };
            let found = if fresh { self.free(eq) } else { None };
            fresh = false;
            if let Some(v) = found {
                self.seen[v] = stamp;
                via.push(v);
            } else {
                let Some(&v) = self.rows.row(eq).get(pos) else {
                    stack.pop();
                    via.pop();
                    continue;
                };
                let v = v as usize;
                stack.last_mut().expect("not empty").1 += 1;
                self.work += 1;
                if self.seen[v] >= stamp {
                    continue;
                }
                self.seen[v] = stamp;
                via.push(v);
                if self.owner[v] != NONE {
                    stack.push((self.owner[v] as usize, 0));
                    fresh = true;
                    continue;
                }
            }
            // Flip the path: each equation on the stack takes the unknown chosen below it.
            for (level, &(eq, _)) in stack.iter().enumerate() {
                self.owner[via[level]] = eq as u32;
            }
            return true;
        }
    }
}

/// The overdetermined part: the equations reachable from an unmatched equation along
/// alternating paths (equation → one of its unknowns → the equation matched to it), in
/// increasing order, and the unknowns they reach. `assignment` as [`maximum`] gives it.
#[cfg(test)]
pub(super) fn overdetermined<R: Rows + ?Sized>(
    rows: &R,
    assignment: &[u32],
    unknowns: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut owner = vec![NONE; unknowns];
    for (e, &v) in assignment.iter().enumerate() {
        if v != NONE {
            owner[v as usize] = e as u32;
        }
    }
    let unmatched = (0..rows.len()).filter(|&e| assignment[e] == NONE).collect();
    part(rows, &owner, unmatched)
}

/// The overdetermined part of a maximum matching given by `owner` (the equation matched
/// to each unknown, as [`Search::into_owner`] gives it) and its `unmatched` equations.
pub(super) fn part<R: Rows + ?Sized>(rows: &R, owner: &[u32], mut todo: Vec<usize>) -> (Vec<usize>, Vec<usize>) {
    let mut in_eq = vec![false; rows.len()];
    let mut in_var = vec![false; owner.len()];
    for &e in &todo {
        in_eq[e] = true;
    }
    while let Some(e) = todo.pop() {
        for &v in rows.row(e) {
            let v = v as usize;
            if in_var[v] {
                continue;
            }
            in_var[v] = true;
            let next = owner[v] as usize;
            if owner[v] != NONE && !in_eq[next] {
                in_eq[next] = true;
                todo.push(next);
            }
        }
    }
    let eqs = (0..rows.len()).filter(|&e| in_eq[e]).collect();
    let vars = (0..owner.len()).filter(|&v| in_var[v]).collect();
    (eqs, vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn as_u32(a: &[Option<usize>]) -> Vec<u32> {
        a.iter().map(|v| v.map_or(NONE, |v| v as u32)).collect()
    }

    /// The size of a maximum matching by brute force over subsets of equations.
    fn brute(rows: &[Vec<u32>], unknowns: usize) -> usize {
        fn go(k: usize, rows: &[Vec<u32>], used: &mut Vec<bool>) -> usize {
            if k == rows.len() {
                return 0;
            }
            let mut best = go(k + 1, rows, used);
            for &v in &rows[k] {
                let v = v as usize;
                if !used[v] {
                    used[v] = true;
                    best = best.max(1 + go(k + 1, rows, used));
                    used[v] = false;
                }
            }
            best
        }
        go(0, rows, &mut vec![false; unknowns])
    }

    #[test]
    fn maximum_on_small_random_systems() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..500 {
            let (n, m) = (1 + next() % 6, 1 + next() % 6);
            let rows: Vec<Vec<u32>> = (0..n).map(|_| (0..m as u32).filter(|_| next() % 3 == 0).collect()).collect();
            let a = matching(&rows, m);
            let size = a.iter().flatten().count();
            assert_eq!(size, brute(&rows, m), "{rows:?}");
            let mut taken = vec![false; m];
            for (e, v) in a.iter().enumerate() {
                if let Some(v) = v {
                    assert!(rows[e].contains(&(*v as u32)) && !taken[*v], "{rows:?} {a:?}");
                    taken[*v] = true;
                }
            }
        }
    }

    #[test]
    fn the_later_equation_is_left_over_and_the_part_is_reported() {
        // x = 2; x = 3; der(x) = 0; der(x) = -x  over unknowns x (0), der(x) (1)
        let rows: Vec<Vec<u32>> = vec![vec![0], vec![0], vec![1], vec![0, 1]];
        let a = matching(&rows, 2);
        assert_eq!(a, vec![Some(0), None, Some(1), None]);
        let (eqs, vars) = overdetermined(&rows, &as_u32(&a), 2);
        assert_eq!(eqs, vec![0, 1, 2, 3]);
        assert_eq!(vars, vec![0, 1]);
        // A square system has no overdetermined part.
        let rows: Vec<Vec<u32>> = vec![vec![0, 1], vec![1]];
        let a = matching(&rows, 2);
        assert_eq!(overdetermined(&rows, &as_u32(&a), 2), (vec![], vec![]));
    }

    #[test]
    fn the_lookahead_leaves_the_same_equations_and_part() {
        let mut seed = 11u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..2000 {
            let (n, m) = (1 + next() % 9, 1 + next() % 9);
            let rows: Vec<Vec<u32>> = (0..n).map(|_| (0..m as u32).filter(|_| next() % 3 == 0).collect()).collect();
            let (plain, fast) = (matching(&rows, m), maximum(&rows, m));
            let plain = as_u32(&plain);
            let unmatched = |a: &[u32]| a.iter().map(|&v| v == NONE).collect::<Vec<_>>();
            assert_eq!(unmatched(&plain), unmatched(&fast), "{rows:?}");
            let mut taken = vec![false; m];
            for (e, &v) in fast.iter().enumerate() {
                if v != NONE {
                    assert!(rows[e].contains(&v) && !taken[v as usize], "{rows:?} {fast:?}");
                    taken[v as usize] = true;
                }
            }
            assert_eq!(overdetermined(&rows, &plain, m), overdetermined(&rows, &fast, m), "{rows:?}");
        }
    }

    /// The initial-system check's search: the first equations matched with some unknowns
    /// kept out, then the rest with them let in, leaves the same equations unmatched and
    /// the same overdetermined part as one search over all, whenever the first step
    /// matches all its equations.
    #[test]
    fn a_search_goes_on_from_a_matching_of_the_first_equations() {
        let mut seed = 13u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut continued = 0;
        for _ in 0..4000 {
            let (n, m) = (1 + next() % 9, 1 + next() % 9);
            let rows: Vec<Vec<u32>> = (0..n).map(|_| (0..m as u32).filter(|_| next() % 3 == 0).collect()).collect();
            let first = next() % (n + 1);
            let blocked: Vec<usize> = (0..m).filter(|_| next() % 4 == 0).collect();
            let mut s = Search::new(&rows, m, true);
            blocked.iter().for_each(|&v| s.block(v));
            if !(0..first).all(|e| s.augment(e)) {
                continue;
            }
            continued += 1;
            blocked.iter().for_each(|&v| s.unblock(v));
            let unmatched: Vec<usize> = (first..n).filter(|&e| !s.augment(e)).collect();
            let fresh = maximum(&rows, m);
            assert_eq!(unmatched, (0..n).filter(|&e| fresh[e] == NONE).collect::<Vec<_>>(), "{rows:?} {blocked:?}");
            let owner = s.into_owner();
            assert_eq!(part(&rows, &owner, unmatched), overdetermined(&rows, &fresh, m), "{rows:?} {blocked:?}");
        }
        assert!(continued > 1000, "{continued}");
    }

    /// A chain `x_i = f(x_{i-1})` (unknowns in declaration order, the previous one first):
    /// the plain search walks back along the chain from every equation, the lookahead
    /// looks at each entry about once.
    #[test]
    fn the_lookahead_matches_a_chain_in_linear_work() {
        let n = 10_000;
        let rows: Vec<Vec<u32>> = (0..n as u32).map(|i| if i == 0 { vec![0] } else { vec![i - 1, i] }).collect();
        let (a, work) = search(&rows, n, true);
        assert!(a.iter().all(|&v| v != NONE));
        assert!(work <= 2 * (2 * n), "work {work} for {} entries", 2 * n - 1);
        let (_, plain) = search(&rows, n, false);
        assert!(plain > n * n / 4, "the plain search is quadratic here: {plain}");
    }
}
