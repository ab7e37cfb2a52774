//! The BDD layer (biodivine-lib-bdd): [`ModeSpace`] maps each mode variable / atom of the
//! mDAE to a BDD variable, turns [`Cond`]s into BDDs, evaluates BDDs in a mode, and turns
//! a set of modes back into a short Modelica condition: an irredundant sum of products
//! (Minato–Morreale ISOP) using the invalid modes as a don't-care set; χ_M itself is
//! written as the conjunction of the model's invariants, each minimised on its own.

use super::local::{Factored, Local};
use crate::mdae::{Cond, Mdae, ModeId, ModeKind};
use biodivine_lib_bdd::{Bdd, BddNode, BddPartialValuation, BddValuation, BddVariable, BddVariableSet};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// BDD variables of the modes (and, for the implicit strategy, of the edges).
pub struct ModeSpace {
    pub set: BddVariableSet,
    /// `mode_vars[m]` is the BDD variable of [`ModeId`] `m`.
    pub mode_vars: Vec<BddVariable>,
    /// Mode names, by [`ModeId`].
    pub names: Vec<String>,
    /// The one-hot groups: the modes `k == v` of each Integer/enumeration variable `k`
    /// with a finite domain; exactly one of each group holds in every mode that exists.
    pub groups: Vec<Vec<ModeId>>,
    /// (BDD variable, mode) for every mode, sorted by variable.
    by_var: Vec<(BddVariable, ModeId)>,
    /// Spaces of k variables, by k: [`ModeSpace::to_cond`] computes its ISOP over the
    /// variables it reads, the j-th in BDD order as variable j (biodivine's cofactors
    /// allocate a vector as long as the variable's index: the implicit strategy puts the
    /// modes among 10^4 edge variables, and the compressible building has 3N modes).
    compact: std::cell::RefCell<rustc_hash::FxHashMap<usize, Rc<BddVariableSet>>>,
    /// The care set [`ModeSpace::to_cond`] was last given, that set with the one-hot
    /// constraints in factors (`local.rs`), and the conditions found on it. Callers pass the
    /// same care set (the valid or regular modes, O(N) nodes) for most conditions, and the
    /// same conditions many times (the building's 1,802 blocks and 3,892 edges at N = 100
    /// have 1,191 conditions); each one was O(N) per call (issue 15).
    care_memo: std::cell::RefCell<Option<CareMemo>>,
}

/// [`ModeSpace::care_memo`].
struct CareMemo {
    care: Bdd,
    factored: Rc<Factored>,
    conds: rustc_hash::FxHashMap<Bdd, Cond>,
}

/// The Integer/enumeration mode variables of `mdae` with their one-hot modes and values,
/// in order of first mode.
pub fn domains_of<'m>(mdae: &'m Mdae) -> Vec<(&'m str, Vec<(ModeId, &'m str)>)> {
    let mut domains: Vec<(&str, Vec<(ModeId, &str)>)> = Vec::new();
    for (m, mode) in mdae.modes.iter().enumerate() {
        if let ModeKind::Value { var, value } = &mode.kind {
            let entry = (ModeId(m as u32), value.as_str());
            match domains.iter_mut().find(|(v, _)| v == var) {
                Some((_, ms)) => ms.push(entry),
                None => domains.push((var, vec![entry])),
            }
        }
    }
    domains
}

/// The one-hot groups of `mdae` (see [`ModeSpace::groups`]).
pub fn groups_of(mdae: &Mdae) -> Vec<Vec<ModeId>> {
    domains_of(mdae).into_iter().map(|(_, ms)| ms.into_iter().map(|(m, _)| m).collect()).collect()
}

impl ModeSpace {
    /// A space with one BDD variable per mode, in [`ModeId`] order.
    pub fn of_modes(mdae: &Mdae) -> ModeSpace {
        let names: Vec<String> = mdae.modes.iter().map(|m| m.name.clone()).collect();
        let set = BddVariableSet::new_anonymous(names.len() as u16);
        let mode_vars = set.variables();
        ModeSpace::new(set, mode_vars, names, groups_of(mdae))
    }

    /// A space over `set` in which mode m is `mode_vars[m]`.
    pub fn new(set: BddVariableSet, mode_vars: Vec<BddVariable>, names: Vec<String>, groups: Vec<Vec<ModeId>>) -> Self {
        let mut by_var: Vec<(BddVariable, ModeId)> =
            mode_vars.iter().enumerate().map(|(m, &v)| (v, ModeId(m as u32))).collect();
        by_var.sort_unstable();
        ModeSpace { set, mode_vars, names, groups, by_var, compact: Default::default(), care_memo: Default::default() }
    }

    /// The modes where every one-hot group has exactly one member true.
    pub fn one_hot(&self) -> Bdd {
        self.groups.iter().fold(self.mk_true(), |acc, g| acc.and(&self.cond(&Cond::exactly_one(g))))
    }

    pub fn mk_true(&self) -> Bdd {
        self.set.mk_true()
    }

    pub fn mk_false(&self) -> Bdd {
        self.set.mk_false()
    }

    pub fn cond(&self, c: &Cond) -> Bdd {
        match c {
            Cond::True => self.mk_true(),
            Cond::False => self.mk_false(),
            Cond::Mode(m) => self.set.mk_var(self.mode_vars[m.index()]),
            Cond::Not(x) => self.cond(x).not(),
            Cond::And(xs) => xs.iter().fold(self.mk_true(), |acc, x| acc.and(&self.cond(x))),
            Cond::Or(xs) => xs.iter().fold(self.mk_false(), |acc, x| acc.or(&self.cond(x))),
        }
    }

    /// χ_M: the conjunction of the model's mode invariants.
    pub fn valid(&self, mdae: &Mdae) -> Bdd {
        mdae.invariants.iter().fold(self.mk_true(), |acc, inv| acc.and(&self.cond(&inv.cond)))
    }

    /// χ_M as Modelica text: the conjunction of the invariants, each minimised on its own
    /// (one sum of products for all of them can be exponential: the building's
    /// `open_i or not outgoing_i`, i = 1…N, has 2^N products).
    pub fn invariant_text(&self, mdae: &Mdae) -> String {
        let mut parts: Vec<Cond> = Vec::new();
        for inv in &mdae.invariants {
            let c = self.to_cond(&self.cond(&inv.cond), &self.mk_true());
            if !parts.contains(&c) {
                parts.push(c);
            }
        }
        let all = parts.into_iter().fold(Cond::True, Cond::and);
        all.to_modelica(&|m| self.names[m.index()].clone())
    }

    /// The mode numbered `bits` (bit m = value of mode m) as a BDD.
    pub fn minterm(&self, bits: u64) -> Bdd {
        let lits: Vec<(BddVariable, bool)> =
            self.mode_vars.iter().enumerate().map(|(m, &v)| (v, bits >> m & 1 == 1)).collect();
        self.set.mk_conjunctive_clause(&BddPartialValuation::from_values(&lits))
    }

    /// Does mode `bits` belong to `b`? (Variables other than modes read as false.)
    pub fn contains(&self, b: &Bdd, bits: u64) -> bool {
        let mut val = BddValuation::all_false(self.set.num_vars());
        for (m, &v) in self.mode_vars.iter().enumerate() {
            val.set_value(v, bits >> m & 1 == 1);
        }
        b.eval_in(&val)
    }

    /// One mode of `b` (which must only depend on modes) as (mode, value) pairs.
    pub fn example(&self, b: &Bdd) -> Option<Vec<(ModeId, bool)>> {
        let w = b.sat_witness()?;
        Some(self.mode_vars.iter().enumerate().map(|(m, &v)| (ModeId(m as u32), w.value(v))).collect())
    }

    /// A short condition equivalent to `f` on the `care` set (modes outside `care`, and
    /// assignments that give an Integer/enumeration variable no value or two, are
    /// don't-cares): an irredundant sum of products over mode names, where the literals of
    /// a one-hot group are written as one comparison (`state == 1`, `not state == 2`).
    pub fn to_cond(&self, f: &Bdd, care: &Bdd) -> Cond {
        let factored = self.factored(care);
        let known = |memo: &CareMemo| memo.conds.get(f).cloned();
        if let Some(c) = self.care_memo.borrow().as_ref().and_then(known) {
            return c;
        }
        let c = self.to_cond_local(&factored.local(f), &factored.all(), &factored);
        if let Some(memo) = self.care_memo.borrow_mut().as_mut() {
            memo.conds.insert(f.clone(), c.clone());
        }
        c
    }

    /// [`ModeSpace::to_cond`] of x on `care`, both local sets of `factored` (which must be
    /// [`ModeSpace::factored`] of a set): only the factors of the windows they read take
    /// part (the same condition: `local.rs`).
    pub fn to_cond_local(&self, x: &Local, care: &Local, factored: &Factored) -> Cond {
        let (lower, care) = factored.pair(x, care);
        self.minimised(&lower, &care)
    }

    /// `care` ∧ the one-hot constraints in factors (kept for the next call with `care`).
    pub fn factored(&self, care: &Bdd) -> Rc<Factored> {
        if let Some(memo) = self.care_memo.borrow().as_ref().filter(|m| m.care == *care) {
            return memo.factored.clone();
        }
        let factored = Rc::new(Factored::new(&care.and(&self.one_hot()), &self.set));
        let memo = CareMemo { care: care.clone(), factored: factored.clone(), conds: Default::default() };
        *self.care_memo.borrow_mut() = Some(memo);
        factored
    }

    /// [`ModeSpace::to_cond`] of `lower` ⊆ `care` (the one-hot constraints in `care`).
    fn minimised(&self, lower: &Bdd, care: &Bdd) -> Cond {
        let upper = lower.or(&care.not());
        let mut vars: Vec<BddVariable> = lower.support_set().into_iter().chain(upper.support_set()).collect();
        vars.sort_unstable();
        vars.dedup();
        let compact =
            Compact { set: self.compact_set(vars.len()), modes: vars.iter().map(|&v| self.mode_of(v)).collect() };
        let cubes = compact.isop(&compact.of(lower, &vars), &compact.of(&upper, &vars));
        let mut terms: Vec<Vec<(ModeId, bool)>> = cubes.into_iter().map(|c| self.by_groups(c)).collect();
        terms.iter_mut().for_each(|c| c.sort());
        terms.sort();
        terms.dedup();
        terms.into_iter().fold(Cond::False, |acc, cube| {
            let term = cube.into_iter().fold(Cond::True, |t, (m, pos)| {
                let lit = Cond::Mode(m);
                Cond::and(t, if pos { lit } else { Cond::not(lit) })
            });
            Cond::or(acc, term)
        })
    }

    /// The mode of a BDD variable (which must be a mode's).
    fn mode_of(&self, v: BddVariable) -> ModeId {
        self.by_var[self.by_var.binary_search_by_key(&v, |p| p.0).expect("a mode variable")].1
    }

    /// A space of `k` variables (made once per k).
    fn compact_set(&self, k: usize) -> Rc<BddVariableSet> {
        let mut sets = self.compact.borrow_mut();
        sets.entry(k).or_insert_with(|| Rc::new(BddVariableSet::new_anonymous(k as u16))).clone()
    }

    /// Rewrites the literals of each one-hot group in a cube as the values they allow S:
    /// `k == v` when S = {v}, `not k == u` when only u is excluded, nothing when S is the
    /// whole domain; otherwise the literals stay as they are.
    fn by_groups(&self, cube: Vec<(ModeId, bool)>) -> Vec<(ModeId, bool)> {
        let mut out: Vec<(ModeId, bool)> =
            cube.iter().copied().filter(|(m, _)| !self.groups.iter().any(|g| g.contains(m))).collect();
        for g in &self.groups {
            let lits: Vec<(ModeId, bool)> = cube.iter().copied().filter(|(m, _)| g.contains(m)).collect();
            if lits.is_empty() {
                continue;
            }
            let allowed: Vec<ModeId> =
                g.iter().copied().filter(|&v| lits.iter().all(|&(m, pos)| if pos { m == v } else { m != v })).collect();
            match allowed.len() {
                1 => out.push((allowed[0], true)),
                n if n == g.len() => {}
                n if n + 1 == g.len() => {
                    out.push((*g.iter().find(|v| !allowed.contains(v)).expect("one excluded"), false))
                }
                _ => out.extend(lits),
            }
        }
        out
    }

    /// The condition as Modelica text.
    pub fn text(&self, f: &Bdd, care: &Bdd) -> String {
        self.to_cond(f, care).to_modelica(&|m| self.names[m.index()].clone())
    }
}

/// The variables a minimisation reads, the j-th in BDD order as variable j of `set`, and
/// the mode of each.
struct Compact {
    set: Rc<BddVariableSet>,
    modes: Vec<ModeId>,
}

impl Compact {
    /// `f`, which reads only `vars` (sorted), over `set`: the same nodes in the same order
    /// with each variable renumbered by its rank (an order-preserving renaming, so the
    /// result is canonical and its ISOP is the same).
    fn of(&self, f: &Bdd, vars: &[BddVariable]) -> Bdd {
        let n = BddVariable::from_index(vars.len());
        let rank = |v: BddVariable| BddVariable::from_index(vars.binary_search(&v).expect("a variable it reads"));
        let nodes: Vec<BddNode> = f
            .clone()
            .to_nodes()
            .into_iter()
            .enumerate()
            .map(|(k, node)| BddNode::mk_node(if k < 2 { n } else { rank(node.var) }, node.low_link, node.high_link))
            .collect();
        Bdd::from_nodes(&nodes).expect("an order-preserving renaming of a BDD is a BDD")
    }

    /// Minato–Morreale: cubes c with lower ⊆ ∨c ⊆ upper (both over `set`).
    fn isop(&self, lower: &Bdd, upper: &Bdd) -> Vec<Vec<(ModeId, bool)>> {
        self.isop_bdd(lower, upper, &mut FxHashMap::default()).0
    }

    /// The recursion, with its computed table on (lower, upper): the same pair comes back
    /// along many paths (the compressible building's conditions, N = 300: two thirds of the
    /// main job's time went here without it).
    fn isop_bdd(&self, lower: &Bdd, upper: &Bdd, memo: &mut Memo) -> (Vec<Vec<(ModeId, bool)>>, Bdd) {
        if lower.is_false() {
            return (Vec::new(), self.set.mk_false());
        }
        if upper.is_true() {
            return (vec![Vec::new()], self.set.mk_true());
        }
        let key = (lower.clone(), upper.clone());
        if let Some(done) = memo.get(&key) {
            return done.clone();
        }
        // The top variable: the root's (the nodes are ordered, a terminal's is past the last).
        let top = lower.var_of(lower.root_pointer()).min(upper.var_of(upper.root_pointer()));
        let m = self.modes[top.to_index()];
        let (l0, l1) = (lower.var_restrict(top, false), lower.var_restrict(top, true));
        let (u0, u1) = (upper.var_restrict(top, false), upper.var_restrict(top, true));
        let (c0, f0) = self.isop_bdd(&l0.and_not(&u1), &u0, memo);
        let (c1, f1) = self.isop_bdd(&l1.and_not(&u0), &u1, memo);
        let rest = l0.and_not(&f0).or(&l1.and_not(&f1));
        let (cs, fs) = self.isop_bdd(&rest, &u0.and(&u1), memo);
        let x = self.set.mk_var(top);
        let f = x.not().and(&f0).or(&x.and(&f1)).or(&fs);
        let mut cubes = Vec::with_capacity(c0.len() + c1.len() + cs.len());
        cubes.extend(c0.into_iter().map(|mut c| {
            c.push((m, false));
            c
        }));
        cubes.extend(c1.into_iter().map(|mut c| {
            c.push((m, true));
            c
        }));
        cubes.extend(cs);
        memo.insert(key, (cubes.clone(), f.clone()));
        (cubes, f)
    }
}

/// The computed table of [`Compact::isop_bdd`].
type Memo = FxHashMap<(Bdd, Bdd), (Vec<Vec<(ModeId, bool)>>, Bdd)>;

impl ModeSpace {
    /// Number of modes in `b` (a set of modes; other BDD variables are projected away).
    pub fn count(&self, b: &Bdd) -> String {
        let others: Vec<_> = self.set.variables().into_iter().filter(|v| !self.mode_vars.contains(v)).collect();
        let projected = b.exists(&others);
        let total = projected.exact_cardinality();
        (total >> others.len()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A care set with independent factors (and sometimes a coupling term that joins two of
    /// them), and f sometimes conjoined with it: the minimised condition is the same without
    /// the factors f ∧ care shares with care, and on a region of the care set the same from
    /// the local sets (`local.rs`) as from the whole ones.
    #[test]
    fn minimising_against_the_relevant_care_changes_no_condition() {
        let n = 8;
        // Mode variables interleaved with other BDD variables, as the implicit strategy has them.
        let set = BddVariableSet::new_anonymous(2 * n as u16);
        let all = set.variables();
        let mode_vars: Vec<BddVariable> = (0..n).map(|m| all[2 * m + 1]).collect();
        let space = ModeSpace::new(set, mode_vars.clone(), (0..n).map(|m| format!("m{m}")).collect(), Vec::new());
        let lit = |m: usize, v: bool| {
            let x = space.set.mk_var(mode_vars[m]);
            if v { x } else { x.not() }
        };
        let mut seed = 17u64;
        let mut rnd = |k: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % k
        };
        let mut localised = 0;
        for _ in 0..300 {
            // Factors over consecutive pairs (0,1), (2,3), …: a random clause each.
            let mut care = space.mk_true();
            for p in 0..n / 2 {
                let clause = lit(2 * p, rnd(2) == 0).or(&lit(2 * p + 1, rnd(2) == 0));
                care = care.and(&clause);
            }
            if rnd(3) == 0 {
                let (a, b) = (rnd(n as u64) as usize, rnd(n as u64) as usize);
                care = care.or(&lit(a, true).and(&lit(b, false)));
            }
            // f: a random function of two or three modes.
            let vars: Vec<usize> = (0..1 + rnd(3)).map(|_| rnd(n as u64) as usize).collect();
            let mut f = (0..8).filter(|_| rnd(2) == 0).fold(space.mk_false(), |acc, m| {
                let cube = vars.iter().enumerate().fold(space.mk_true(), |c, (i, &x)| c.and(&lit(x, m >> i & 1 == 1)));
                acc.or(&cube)
            });
            if rnd(2) == 0 {
                f = f.and(&care); // as block conditions are (conjoined with the regular modes)
            }
            let lower = f.and(&care);
            let (g, c) = crate::analysis::care::localise(&lower, &care);
            localised += usize::from(c != care);
            assert_eq!(space.to_cond(&f, &care), space.minimised(&lower, &care), "f {f:?} care {care:?}");
            assert_eq!(space.minimised(&g, &c), space.minimised(&lower, &care), "f {f:?} care {care:?}");
            // On a region q of the care set, both as local sets of its factors.
            let q = care.and(&lit(rnd(n as u64) as usize, rnd(2) == 0).or(&lit(rnd(n as u64) as usize, true)));
            let fz = space.factored(&care);
            let local = space.to_cond_local(&fz.local(&f), &fz.local(&q), &fz);
            assert_eq!(local, space.minimised(&f.and(&q), &q), "f {f:?} q {q:?}");
        }
        assert!(localised > 100, "the sample drops factors: {localised}");
    }
}
