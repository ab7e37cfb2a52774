//! Sets of modes relative to a care set that factors (issue 15). The valid (or regular)
//! modes of a model built from bounded parts — the building's rooms, the brake's cars — are
//! a conjunction of independent factors, one per part, each over its own mode variables;
//! every condition RIMIS and the report handle is that care set conjoined with a condition
//! on a few parts. Conjoining the whole care set (O(N) nodes) into every operation made
//! each one O(N) and the stages O(N²). Here each operation reads only the parts involved.
//!
//! **Windows.** The BDD variables are cut into *windows*, consecutive intervals whose
//! boundaries are the cuts of the care set R ([`Cuts`]: every edge crossing the boundary
//! leads to one node, so R = A(above) ∧ B(below)). Then R = ∧_w F_w, F_w R's factor over
//! window w (`true` where R reads no variable of w).
//!
//! **Local sets.** A [`Local`] is a BDD g that reads only the windows W it lists, with
//! g ⊆ F_W (the factors of W); it stands for g ∧ R. R = F_W ∧ F_rest, F_rest the factors
//! of the other windows, satisfiable (R ≠ ∅) and over variables g does not read, so:
//! - (g ∧ R) ∧ (h ∧ R) = (g ∧ h) ∧ R, and (g ∧ R) ∖ (h ∧ R) = (g ∧ F_V ∧ ¬h) ∧ R, V the
//!   windows of h that g does not read;
//! - g ∧ R ≠ ∅ ⟺ g ≠ ∅, and g ∧ h ∧ R ≠ ∅ ⟺ g ∧ h ≠ ∅ (a walk of the two, `meets`);
//! - the shortest condition of x ∧ R on the care set q ∧ R (`ModeSpace::to_cond`) is that
//!   of g_x ∧ g_q ∧ F_W on g_q ∧ F_W, W the windows of both: F_rest is a factor of the two
//!   over variables neither reads, and dropping it changes no cube of the ISOP (the proof
//!   in `care.rs`).
//!
//! Every operation works on BDDs over the windows involved: bounded when the parts are.
//!
//! **From a set.** [`Factored::local`] writes x ∧ R as a local set in one walk of x: the
//! windows where x's factor (between cuts of x at the window's boundaries) is R's own,
//! node for node, are dropped by sending the edges that enter them to the node after them;
//! the windows x does not read are not listed.

use super::care::{Cuts, Scratch, same_factor_in};
use super::meets::{meets, meets_not};
use biodivine_lib_bdd::{Bdd, BddNode, BddPointer, BddVariable, BddVariableSet};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// A care set R cut into windows, with its factor over each (found when first asked).
pub struct Factored {
    care: Bdd,
    cuts: Cuts,
    t: Bdd,
    f: Bdd,
    /// R and ∅ as local sets, shared by the constant ones.
    whole: Local,
    none: Local,
    /// R's factor over the window starting at a position (`None`: `true`).
    factor: RefCell<FxHashMap<usize, Option<Bdd>>>,
    /// The conjunction of the factors of a list of windows, by the list.
    conj: RefCell<FxHashMap<Vec<usize>, Bdd>>,
}

/// The set of modes g ∧ R; g reads only the `windows` (their first positions, sorted,
/// distinct), and g ⊆ their factors. Shared (8 bytes): R and ∅ are held once by the
/// [`Factored`] (most conditions of a model with few modes are R: every block, edge, offset
/// and order of a model without modes, 10^5 of each on a chain of 10^5 equations).
#[derive(Clone, Debug)]
pub struct Local(Rc<Set>);

#[derive(Debug)]
struct Set {
    g: Bdd,
    windows: Box<[usize]>,
}

impl Local {
    fn new(g: Bdd, windows: Vec<usize>) -> Local {
        Local(Rc::new(Set { g, windows: windows.into_boxed_slice() }))
    }

    /// The BDD g (the set is g ∧ R).
    pub fn g(&self) -> &Bdd {
        &self.0.g
    }

    /// The windows of R the set reads (with [`Local::g`], what identifies it in its [`Factored`]).
    pub fn windows(&self) -> &[usize] {
        &self.0.windows
    }

    /// Is `other` this very set (shared, as R and ∅ are by their [`Factored`])?
    pub fn is(&self, other: &Local) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The most windows [`Factored::local_modulo`] conjoins R's factors over (beyond, b ∧ R).
const MODULO_WINDOWS: usize = 8;

impl Factored {
    /// `care` (a BDD over `set`) in factors.
    pub fn new(care: &Bdd, set: &BddVariableSet) -> Factored {
        Factored {
            care: care.clone(),
            cuts: Cuts::of(care),
            t: set.mk_true(),
            f: set.mk_false(),
            whole: Local::new(set.mk_true(), Vec::new()),
            none: Local::new(set.mk_false(), Vec::new()),
            factor: RefCell::default(),
            conj: RefCell::default(),
        }
    }

    /// The window of variable index `v`: [start, end), both cuts of R, none between.
    fn window(&self, v: usize) -> (usize, usize) {
        let start = self.cuts.cut_at_or_before(v);
        (start, self.cuts.cut_after(start).min(self.care.num_vars() as usize))
    }

    /// R's factor over the window [a, b) (`None`: R reads none of its variables).
    fn factor(&self, a: usize) -> Option<Bdd> {
        if let Some(f) = self.factor.borrow().get(&a) {
            return f.clone();
        }
        let f = self.extract(a);
        self.factor.borrow_mut().insert(a, f.clone());
        f
    }

    fn extract(&self, a: usize) -> Option<Bdd> {
        let b = self.window(a).1;
        let entry = self.cuts.entry_at(&self.care, a)?;
        if entry.is_one() || (!entry.is_zero() && self.care.var_of(entry).to_index() >= b) {
            return None;
        }
        let care = &self.care;
        let below =
            |p: BddPointer| if !p.is_terminal() && care.var_of(p).to_index() >= b { BddPointer::one() } else { p };
        Some(self.rebuild(care, entry, &below))
    }

    /// The empty set.
    pub fn none(&self) -> Local {
        self.none.clone()
    }

    /// Is R empty? (Then every local set is.)
    pub fn is_empty(&self) -> bool {
        self.care.is_false()
    }

    /// The whole of R.
    pub fn all(&self) -> Local {
        if self.is_empty() { self.none.clone() } else { self.whole.clone() }
    }

    /// b ∧ R as a local set, the same as `local(&b.and(R))`, without building b ∧ R (O(|R|)
    /// nodes, then a test of each of its windows: O(N) per condition, O(N²) over the CDG of
    /// the compressible building, 38% of N = 1000). Where b reads no variable of a window of
    /// R and one node of b crosses it (b cuts there), b ∧ R is R's factor there, which `local`
    /// drops; elsewhere b ∧ R and b ∧ (R's factors of the other windows) are the same graph.
    /// So `local` of the latter: O(|b|) and the windows b reads or crosses with several nodes.
    pub fn local_modulo(&self, b: &Bdd) -> Local {
        if b.is_false() || self.is_empty() {
            return self.none.clone();
        }
        let cb = Cuts::of(b);
        if cb.levels().is_empty() {
            return self.all(); // `true`
        }
        let mut starts: Vec<usize> = Vec::new();
        let mut prev: Option<usize> = None;
        for &v in cb.levels() {
            let (start, _) = self.window(v);
            if starts.last() == Some(&start) {
                continue;
            }
            // The windows strictly between the previous level's and this one's: crossed by
            // several nodes of b unless b cuts between the two levels.
            if let Some(p) = prev
                && !cb.is_cut(v)
            {
                let mut w = self.window(p).1;
                while w < start {
                    starts.push(w);
                    w = self.window(w).1;
                }
            }
            starts.push(start);
            prev = Some(v);
        }
        // Over many windows the conjunction of their factors, folded, costs more than b ∧ R.
        if starts.len() > MODULO_WINDOWS {
            return self.local(&b.and(&self.care));
        }
        self.local(&b.and(&self.factors(&starts)))
    }

    /// The variables (indices, sorted) the whole set g ∧ R of `a` reads: g's, and R's
    /// outside a's windows (there g ∧ R is R's factors).
    pub fn support_of(&self, a: &Local) -> Vec<usize> {
        if a.g().is_false() {
            return Vec::new();
        }
        let mut out: Vec<usize> = a.g().support_set().into_iter().map(|v| v.to_index()).collect();
        out.extend(self.cuts.levels().iter().copied().filter(|&v| !a.windows().contains(&self.window(v).0)));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// (∃`vars`. g ∧ R) ∧ R for `a`, as a local set; `vars` sorted by index. Only the
    /// variables of a's windows count: outside them g ∧ R is R's factors, which ∃ widens
    /// and R narrows back.
    pub fn exists_in(&self, a: &Local, vars: &[BddVariable]) -> Local {
        let mut inside = Vec::new();
        for &w in a.windows() {
            let end = self.window(w).1;
            let from = vars.partition_point(|v| v.to_index() < w);
            inside.extend(vars[from..].iter().take_while(|v| v.to_index() < end).copied());
        }
        if inside.is_empty() {
            return a.clone();
        }
        self.local_modulo(&a.g().exists(&inside))
    }

    /// x ∧ R as a local set (module header).
    pub fn local(&self, x: &Bdd) -> Local {
        if x.is_false() || self.is_empty() {
            return self.none.clone();
        }
        let cx = Cuts::of(x);
        // The windows x reads, in order (one search per window).
        let mut read: Vec<(usize, usize)> = Vec::new();
        for &v in cx.levels() {
            if read.last().is_none_or(|w| v >= w.1) {
                read.push(self.window(v));
            }
        }
        // Dropped window: its entry in x and the node after it.
        let mut skip: FxHashMap<BddPointer, BddPointer> = FxHashMap::default();
        let mut scratch = Scratch::default();
        read.retain(|&(p, q)| {
            let shared =
                cx.is_cut(p) && cx.is_cut(q) && same_factor_in(x, &cx, &self.care, &self.cuts, (p, q), &mut scratch);
            if shared {
                let from = cx.entry_at(x, p).expect("x reads the window");
                skip.insert(from, cx.entry_at(x, q).unwrap_or(BddPointer::one()));
            }
            !shared
        });
        // A new vector of its own length (collecting in place would keep the capacity of
        // every window x reads: O(N) per local set, O(N²) in the CDG).
        let windows: Vec<usize> = read.iter().map(|w| w.0).collect();
        let g = if skip.is_empty() {
            x.clone()
        } else {
            let map = |mut p: BddPointer| {
                while let Some(&next) = skip.get(&p) {
                    p = next;
                }
                p
            };
            self.rebuild(x, x.root_pointer(), &map)
        };
        self.make(g.and(&self.factors(&windows)), windows)
    }

    /// The local set g over `windows`, shared with `self`'s R or ∅ when it is one of them.
    fn make(&self, g: Bdd, windows: Vec<usize>) -> Local {
        if windows.is_empty() && g.is_true() {
            self.whole.clone()
        } else if windows.is_empty() && g.is_false() {
            self.none.clone()
        } else {
            Local::new(g, windows)
        }
    }

    /// The conjunction of the factors of `windows`.
    fn factors(&self, windows: &[usize]) -> Bdd {
        if let Some(b) = self.conj.borrow().get(windows) {
            return b.clone();
        }
        let b = windows.iter().filter_map(|&w| self.factor(w)).fold(self.t.clone(), |acc, f| acc.and(&f));
        self.conj.borrow_mut().insert(windows.to_vec(), b.clone());
        b
    }

    /// The set `a` stands for, g ∧ R, as one BDD (O(|R|) nodes).
    pub fn exact(&self, a: &Local) -> Bdd {
        a.g().and(&self.care)
    }

    /// Is `a` the whole of R?
    pub fn covers(&self, a: &Local) -> bool {
        !self.meets_not(&self.all(), a)
    }

    /// a ∧ b.
    pub fn and(&self, a: &Local, b: &Local) -> Local {
        self.make(a.g().and(b.g()), union(a.windows(), b.windows()))
    }

    /// a ∨ b: (g_a ∨ g_b) ∧ R, each g widened to the other's windows first (g_a reads
    /// within R's factors of its own windows only, so outside them it may hold where R does
    /// not, and the union would hold there too).
    pub fn or(&self, a: &Local, b: &Local) -> Local {
        self.make(self.widened(a, b.windows()).or(&self.widened(b, a.windows())), union(a.windows(), b.windows()))
    }

    /// a ∖ b.
    pub fn and_not(&self, a: &Local, b: &Local) -> Local {
        self.make(self.widened(a, b.windows()).and_not(b.g()), union(a.windows(), b.windows()))
    }

    /// Is `a` empty?
    pub fn is_false(&self, a: &Local) -> bool {
        a.g().is_false()
    }

    /// a ∧ b ≠ ∅.
    pub fn meets(&self, a: &Local, b: &Local) -> bool {
        meets(a.g(), b.g())
    }

    /// a ⊄ b.
    pub fn meets_not(&self, a: &Local, b: &Local) -> bool {
        meets_not(&self.widened(a, b.windows()), b.g())
    }

    /// (x ∧ care ∧ F_W, care ∧ F_W) over the windows W of both: the pair whose shortest
    /// condition is that of x on `care` (module header).
    pub fn pair(&self, x: &Local, care: &Local) -> (Bdd, Bdd) {
        let c = self.widened(care, x.windows());
        (x.g().and(&c), c)
    }

    /// a.g() ∧ the factors of the `windows` a does not read.
    fn widened(&self, a: &Local, windows: &[usize]) -> Bdd {
        let extra: Vec<usize> = windows.iter().copied().filter(|w| a.windows().binary_search(w).is_err()).collect();
        if extra.is_empty() { a.g().clone() } else { a.g().and(&self.factors(&extra)) }
    }

    /// The BDD rooted at `root` in `x`, every pointer passed through `map` (a pointer that
    /// `map` changes is never visited): a reduced BDD when `map` sends a cut's entry to the
    /// node after the cut, or every node below a cut to `true`; made canonical by the
    /// library's apply.
    fn rebuild(&self, x: &Bdd, root: BddPointer, map: &dyn Fn(BddPointer) -> BddPointer) -> Bdd {
        let root = map(root);
        if root.is_terminal() {
            return if root.is_one() { self.t.clone() } else { self.f.clone() };
        }
        let n = x.num_vars();
        let mut nodes = vec![BddNode::mk_zero(n), BddNode::mk_one(n)];
        let mut new: FxHashMap<BddPointer, BddPointer> =
            FxHashMap::from_iter([(BddPointer::zero(), BddPointer::zero()), (BddPointer::one(), BddPointer::one())]);
        let mut stack = vec![(root, false)];
        while let Some((p, done)) = stack.pop() {
            if new.contains_key(&p) {
                continue;
            }
            let (lo, hi) = (map(x.low_link_of(p)), map(x.high_link_of(p)));
            if !done {
                stack.push((p, true));
                stack.extend([lo, hi].into_iter().filter(|c| !new.contains_key(c)).map(|c| (c, false)));
                continue;
            }
            nodes.push(BddNode::mk_node(x.var_of(p), new[&lo], new[&hi]));
            new.insert(p, BddPointer::from_index(nodes.len() - 1));
        }
        let b = Bdd::from_nodes(&nodes).expect("a rebuilt BDD keeps the variable order");
        b.and(&self.t)
    }
}

fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => unreachable!(),
        };
        out.push(next);
    }
    out
}

/// A seeded xorshift generator for the randomised tests: `rnd(k)` in 0..k.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |k| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random care set over mode variables interleaved with other variables (as the
    /// implicit strategy has them): independent factors over small groups, sometimes a
    /// coupling across groups, sometimes a variable it does not read; random sets x (small
    /// functions of a few modes, alone or conjoined with the care set or a region of it).
    /// Every operation on local sets is the operation on the whole sets.
    #[test]
    fn local_sets_are_the_whole_sets() {
        let n = 9;
        let set = BddVariableSet::new_anonymous(2 * n as u16 + 1);
        let vars = set.variables();
        let modes: Vec<_> = (0..n).map(|m| vars[2 * m + 1]).collect();
        let lit = |m: usize, v: bool| {
            let x = set.mk_var(modes[m]);
            if v { x } else { x.not() }
        };
        let mut rnd = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut dropped, mut kept) = (0, 0);
        for _ in 0..400 {
            let mut care = set.mk_true();
            let mut m = 0;
            while m < n {
                let width = 1 + rnd(3) as usize;
                let group: Vec<usize> = (m..(m + width).min(n)).collect();
                m += width;
                if rnd(4) == 0 {
                    continue; // a group the care set does not read
                }
                let clause = group.iter().fold(set.mk_false(), |acc, &v| acc.or(&lit(v, rnd(2) == 0)));
                care = care.and(&clause);
            }
            if rnd(4) == 0 {
                let (a, b) = (rnd(n as u64) as usize, rnd(n as u64) as usize);
                care = care.and(&lit(a, true).imp(&lit(b, rnd(2) == 0)));
            }
            if care.is_false() {
                continue;
            }
            let small = |rnd: &mut dyn FnMut(u64) -> u64| {
                let vs: Vec<usize> = (0..1 + rnd(3)).map(|_| rnd(n as u64) as usize).collect();
                (0..8).filter(|_| rnd(2) == 0).fold(set.mk_false(), |acc, bits| {
                    let cube =
                        vs.iter().enumerate().fold(set.mk_true(), |c, (i, &v)| c.and(&lit(v, bits >> i & 1 == 1)));
                    acc.or(&cube)
                })
            };
            let pick = |rnd: &mut dyn FnMut(u64) -> u64| match rnd(5) {
                0 => small(rnd),
                1 => small(rnd).and(&care),
                2 => small(rnd).or(&small(rnd)).and(&care),
                // Two far variables: b crosses the windows between them with two nodes.
                3 => lit(rnd(3) as usize, true).xor(&lit(n - 1 - rnd(3) as usize, rnd(2) == 0)),
                _ => small(rnd).and(&care).or(&small(rnd).and(&care)),
            };
            let (a, b) = (pick(&mut rnd), pick(&mut rnd));
            let fz = Factored::new(&care, &set);
            let (la, lb) = (fz.local(&a), fz.local(&b));
            let (and, and_not, or) = (fz.and(&la, &lb), fz.and_not(&la, &lb), fz.or(&la, &lb));
            for l in [&la, &lb, &and, &and_not, &or] {
                assert!(l.g().imp(&fz.factors(l.windows())).is_true(), "g within its windows' factors");
            }
            for (x, l) in [(&a, &la), (&b, &lb)] {
                assert_eq!(l.g().and(&care), x.and(&care), "x {x:?} care {care:?}");
                // Without building x ∧ R, the same local set as from it.
                let (whole, modulo) = (fz.local(&x.and(&care)), fz.local_modulo(x));
                assert_eq!((modulo.g(), modulo.windows()), (whole.g(), whole.windows()), "x {x:?} care {care:?}");
                // What x ∧ R reads, and ∃V. x ∧ R within R, from the local set alone.
                let mut support: Vec<usize> = x.and(&care).support_set().into_iter().map(|v| v.to_index()).collect();
                support.sort_unstable();
                assert_eq!(fz.support_of(l), support, "x {x:?} care {care:?}");
                let mut some: Vec<_> = modes.iter().copied().filter(|_| rnd(2) == 0).collect();
                some.sort_unstable_by_key(|v| v.to_index());
                let exists = fz.exists_in(l, &some);
                assert_eq!(exists.g().and(&care), x.and(&care).exists(&some).and(&care), "x {x:?} care {care:?}");
                for v in l.g().support_set() {
                    assert!(l.windows().contains(&fz.window(v.to_index()).0), "g reads an unlisted window");
                }
                let read: std::collections::BTreeSet<usize> =
                    x.support_set().into_iter().map(|v| fz.window(v.to_index()).0).collect();
                dropped += read.len() - l.windows().len();
                kept += l.windows().len();
            }
            let (wa, wb) = (a.and(&care), b.and(&care));
            assert_eq!(fz.meets(&la, &lb), !wa.and(&wb).is_false());
            assert_eq!(fz.meets_not(&la, &lb), !wa.and_not(&wb).is_false());
            assert_eq!(fz.is_false(&la), wa.is_false());
            assert_eq!(and.g().and(&care), wa.and(&wb));
            assert_eq!(and_not.g().and(&care), wa.and_not(&wb));
            assert_eq!(or.g().and(&care), wa.or(&wb));
            assert_eq!(fz.is_false(&or), wa.or(&wb).is_false());
            assert_eq!(fz.covers(&or), wa.or(&wb) == care);
            let (lower, upper) = fz.pair(&la, &lb);
            assert!(lower.imp(&upper).is_true());
            assert_eq!(fz.local(&lower).g().and(&care), wa.and(&wb));
        }
        assert!(dropped > 200 && kept > 200, "the sample drops and keeps windows: {dropped} {kept}");
    }

    /// Windows: a variable the care set does not read between two cuts is a window of its
    /// own; the factors of a window are the care set's there.
    #[test]
    fn windows_follow_the_cuts() {
        let set = BddVariableSet::new_anonymous(6);
        let v: Vec<Bdd> = set.variables().into_iter().map(|x| set.mk_var(x)).collect();
        // (0 ∨ 1) ∧ (3 ⊕ 5): 2 is free between cuts, 4 is inside the second factor.
        let care = v[0].or(&v[1]).and(&v[3].xor(&v[5]));
        let fz = Factored::new(&care, &set);
        let windows: Vec<(usize, usize)> = (0..6).map(|x| fz.window(x)).collect();
        assert_eq!(windows, [(0, 2), (0, 2), (2, 3), (3, 6), (3, 6), (3, 6)]);
        assert_eq!(fz.factor(0), Some(v[0].or(&v[1])));
        assert_eq!(fz.factor(2), None);
        assert_eq!(fz.factor(3), Some(v[3].xor(&v[5])));
        // The care set conjoined with a condition on 2 is that condition, locally.
        let local = fz.local(&care.and(&v[2]));
        assert_eq!((local.g(), local.windows()), (&v[2], &[2][..]));
    }
}
