//! Maximum bipartite matching of equations to unknowns (augmenting paths, Kuhn), and the
//! structurally overdetermined part of a system (Dulmage–Mendelsohn): the equations
//! reachable from an unmatched equation by alternating paths. Pure functions over dense
//! indices; equations are tried in order, so the later of two equations competing for one
//! unknown is the one left unmatched.

/// `assignment[e]`: the unknown matched to equation `e`, given each equation's unknowns
/// (indices below `unknowns`).
pub(super) fn matching(rows: &[Vec<usize>], unknowns: usize) -> Vec<Option<usize>> {
    let mut owner: Vec<Option<usize>> = vec![None; unknowns];
    let mut assignment = vec![None; rows.len()];
    // `seen[v] == stamp`: visited in this search (one array for all searches: O(1) reset).
    let mut seen = vec![0u32; unknowns];
    for e in 0..rows.len() {
        augment(e, rows, &mut owner, &mut seen, e as u32 + 1);
    }
    for (v, o) in owner.iter().enumerate() {
        if let Some(e) = o {
            assignment[*e] = Some(v);
        }
    }
    assignment
}

/// Finds an augmenting path from equation `e` (iterative depth-first search).
fn augment(e: usize, rows: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [u32], stamp: u32) -> bool {
    // Stack of (equation, next position in its row); `via[k]` is the unknown taken at level k.
    let mut stack: Vec<(usize, usize)> = vec![(e, 0)];
    let mut via: Vec<usize> = Vec::new();
    while let Some(&mut (eq, ref mut pos)) = stack.last_mut() {
        let Some(&v) = rows[eq].get(*pos) else {
            stack.pop();
            via.pop();
            continue;
        };
        *pos += 1;
        if seen[v] == stamp {
            continue;
        }
        seen[v] = stamp;
        match owner[v] {
            None => {
                via.push(v);
                // Flip the path: each equation on the stack takes the unknown chosen below it.
                for (level, &(eq, _)) in stack.iter().enumerate() {
                    owner[via[level]] = Some(eq);
                }
                return true;
            }
            Some(next) => {
                via.push(v);
                stack.push((next, 0));
            }
        }
    }
    false
}

/// The overdetermined part: the equations reachable from an unmatched equation along
/// alternating paths (equation → one of its unknowns → the equation matched to it), in
/// increasing order, and the unknowns they reach.
pub(super) fn overdetermined(
    rows: &[Vec<usize>],
    assignment: &[Option<usize>],
    unknowns: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut owner = vec![None; unknowns];
    for (e, a) in assignment.iter().enumerate() {
        if let Some(v) = a {
            owner[*v] = Some(e);
        }
    }
    let mut in_eq = vec![false; rows.len()];
    let mut in_var = vec![false; unknowns];
    let mut todo: Vec<usize> = (0..rows.len()).filter(|&e| assignment[e].is_none()).collect();
    for &e in &todo {
        in_eq[e] = true;
    }
    while let Some(e) = todo.pop() {
        for &v in &rows[e] {
            if in_var[v] {
                continue;
            }
            in_var[v] = true;
            if let Some(next) = owner[v].filter(|&n| !in_eq[n]) {
                in_eq[next] = true;
                todo.push(next);
            }
        }
    }
    let eqs = (0..rows.len()).filter(|&e| in_eq[e]).collect();
    let vars = (0..unknowns).filter(|&v| in_var[v]).collect();
    (eqs, vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of a maximum matching by brute force over subsets of equations.
    fn brute(rows: &[Vec<usize>], unknowns: usize) -> usize {
        fn go(k: usize, rows: &[Vec<usize>], used: &mut Vec<bool>) -> usize {
            if k == rows.len() {
                return 0;
            }
            let mut best = go(k + 1, rows, used);
            for &v in &rows[k] {
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
            let rows: Vec<Vec<usize>> = (0..n).map(|_| (0..m).filter(|_| next() % 3 == 0).collect()).collect();
            let a = matching(&rows, m);
            let size = a.iter().flatten().count();
            assert_eq!(size, brute(&rows, m), "{rows:?}");
            let mut taken = vec![false; m];
            for (e, v) in a.iter().enumerate() {
                if let Some(v) = v {
                    assert!(rows[e].contains(v) && !taken[*v], "{rows:?} {a:?}");
                    taken[*v] = true;
                }
            }
        }
    }

    #[test]
    fn the_later_equation_is_left_over_and_the_part_is_reported() {
        // x = 2; x = 3; der(x) = 0; der(x) = -x  over unknowns x (0), der(x) (1)
        let rows = vec![vec![0], vec![0], vec![1], vec![0, 1]];
        let a = matching(&rows, 2);
        assert_eq!(a, vec![Some(0), None, Some(1), None]);
        let (eqs, vars) = overdetermined(&rows, &a, 2);
        assert_eq!(eqs, vec![0, 1, 2, 3]);
        assert_eq!(vars, vec![0, 1]);
        // A square system has no overdetermined part.
        let rows = vec![vec![0, 1], vec![1]];
        let a = matching(&rows, 2);
        assert_eq!(overdetermined(&rows, &a, 2), (vec![], vec![]));
    }
}
