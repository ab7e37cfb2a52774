//! Differential test of the two strategies: on every fixture and on random multimode DAEs
//! (up to 10 equations, 4 mode variables, random guarded incidences, orders up to 2,
//! sometimes a mode invariant), the implicit result evaluated in each valid mode equals
//! the explicit per-mode result: same singular modes, same c and d, same blocks (as
//! (equations, orders), (written variables, orders) and reads), same dependencies.

use mdae_rimis::analysis::local::Local;
use mdae_rimis::analysis::{self, Cdg, Strategy};
use mdae_rimis::driver;
use mdae_rimis::mdae::{Body, Cond, EqId, Incidence, Invariant, Label, Mdae, Mode, ModeId, ModeKind, VarId, Variable};
use mdae_rimis::syntax::ast::{Expr, ExprKind, text};
use mdae_rimis::syntax::{SourceFile, Span};
use std::borrow::Cow;
use std::collections::BTreeSet;

type Key = (Vec<(EqId, u32)>, Vec<(VarId, u32)>, Vec<(VarId, u32)>);

#[derive(Debug, PartialEq)]
struct ModeView {
    singular: bool,
    c: Vec<Option<u32>>,
    d: Vec<Option<u32>>,
    blocks: BTreeSet<Key>,
    deps: BTreeSet<(Key, Key)>,
}

fn view(cdg: &Cdg, bits: u64) -> ModeView {
    // A condition is a local set of the regular modes: compared as the whole set.
    let holds = |c: &Local| cdg.space.contains(&cdg.bdd(c), bits);
    let at = |list: &[(u32, Local)]| list.iter().find(|(_, b)| holds(b)).map(|x| x.0);
    let key = |n: usize| {
        let b = cdg.blocks.get(n);
        (b.eqs.to_vec(), b.writes.to_vec(), b.reads.to_vec())
    };
    ModeView {
        singular: cdg.singular.iter().any(|s| cdg.space.contains(&s.cond, bits)),
        c: cdg.offsets.iter().map(|l| at(&l)).collect(),
        d: cdg.orders.iter().map(|l| at(&l)).collect(),
        blocks: (0..cdg.blocks.len()).filter(|&n| holds(cdg.blocks.get(n).cond)).map(key).collect(),
        deps: cdg.edges.iter().filter(|e| holds(e.cond)).map(|e| (key(e.from as usize), key(e.to as usize))).collect(),
    }
}

/// Number of modes where the strategies disagree (printed).
fn compare(m: &Mdae, what: &str) -> usize {
    let ex = analysis::analyse(m, Strategy::Explicit).unwrap();
    let im = analysis::analyse(m, Strategy::Implicit).unwrap();
    // The implicit strategy solves small blocks by their structural classes; the BDD
    // programme that solves the others is compared too.
    let mut no_classes = analysis::implicit::Stats::default();
    no_classes.no_classes = true;
    let programme = analysis::implicit::implicit_with_stats(m, Default::default(), &mut no_classes).unwrap();
    // Blocks past the classes' budget are solved factor by factor (`factors.rs`): compared
    // on every block here.
    let mut factors_only = analysis::implicit::Stats::default();
    factors_only.factors_only = true;
    let factored = analysis::implicit::implicit_with_stats(m, Default::default(), &mut factors_only).unwrap();
    // The factored split comes first; the structural classes of whole blocks are compared
    // on every block they can solve here.
    let mut classes_first = analysis::implicit::Stats::default();
    classes_first.classes_first = true;
    let by_classes = analysis::implicit::implicit_with_stats(m, Default::default(), &mut classes_first).unwrap();
    // Every condition of a result lies inside its regular modes and holds in one of them
    // (the implicit strategy computes modulo them, tests emptiness on them and conjoins
    // them where a condition enters the CDG).
    let strategies = [
        (&ex, "explicit"),
        (&im, "implicit"),
        (&programme, "programme"),
        (&factored, "factored"),
        (&by_classes, "classes"),
    ];
    for (cdg, name) in strategies {
        let offsets = cdg.offsets.iter().chain(cdg.orders.iter()).flat_map(|v| v.to_vec()).map(|(_, b)| b);
        let conds =
            offsets.chain(cdg.blocks.iter().map(|b| b.cond.clone())).chain(cdg.edges.iter().map(|e| e.cond.clone()));
        for cond in conds.map(|c| cdg.bdd(&c)) {
            assert!(cond.and_not(&cdg.regular).is_false(), "{what}: a {name} condition outside the regular modes");
            assert!(!cond.is_false(), "{what}: a {name} condition without a mode");
        }
    }
    let mut mismatches = 0;
    for bits in 0u64..(1 << m.modes.len()) {
        let holds = |id: ModeId| bits >> id.0 & 1 == 1;
        let valid = m.invariants.iter().all(|i| i.cond.eval(&holds));
        assert_eq!(ex.space.contains(&ex.valid, bits), valid);
        assert_eq!(im.space.contains(&im.valid, bits), valid);
        if !valid {
            continue;
        }
        let (a, b, c) = (view(&ex, bits), view(&im, bits), view(&programme, bits));
        let (f, k) = (view(&factored, bits), view(&by_classes, bits));
        if a != b || a != c || a != f || a != k {
            mismatches += 1;
            eprintln!(
                "MISMATCH {what}, mode {bits:b}:\n explicit {a:?}\n implicit {b:?}\n programme {c:?}\n factored {f:?}\n classes {k:?}"
            );
        }
    }
    mismatches
}

#[test]
fn strategies_agree_on_every_fixture() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files: Vec<_> = ["", "omc-flat", "scale"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(dir.join(sub)).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mo"))
        .collect();
    files.sort();
    let mut total = 0;
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        let m = match driver::lower(&SourceFile::new(p.display().to_string(), text)) {
            Ok(m) => m,
            Err(e) => panic!("{}", e.render()),
        };
        total += compare(&m, &p.display().to_string());
    }
    println!("differential: {} fixtures, {total} mismatching modes", files.len());
    assert_eq!(total, 0);
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn random_literal(r: &mut Rng, modes: usize) -> Cond {
    let m = Cond::Mode(ModeId(r.below(modes as u64) as u32));
    if r.below(2) == 0 { m } else { Cond::not(m) }
}

fn random_mdae(r: &mut Rng) -> Mdae<'static> {
    let n = 1 + r.below(10) as usize;
    let k = 1 + r.below(4) as usize;
    let zero = Expr::new(ExprKind::Number(text("0")), Span::new(0, 1));
    let mut m = Mdae::default();
    m.name = "Random".into();
    m.modes = (0..k).map(|i| Mode { name: format!("g{i}"), kind: ModeKind::Variable }).collect();
    m.vars = (0..n).map(|j| Variable { name: format!("v{j}").into(), span: Span::new(0, 1) }).collect();
    for i in 0..n {
        // A diagonal entry (mostly unguarded) keeps many modes nonsingular.
        let diagonal = if r.below(5) < 3 { Cond::True } else { random_literal(r, k) };
        let mut incidence = vec![(VarId(i as u32), r.below(3) as u8, diagonal)];
        for _ in 0..r.below(4) {
            let when = match r.below(4) {
                0 | 1 => Cond::True,
                2 => random_literal(r, k),
                _ => Cond::and(random_literal(r, k), random_literal(r, k)),
            };
            incidence.push((VarId(r.below(n as u64) as u32), r.below(3) as u8, when));
        }
        let body = Body::simple(Cow::Owned(zero.clone()), Cow::Owned(zero.clone()));
        let incidence = incidence.iter().map(|(var, order, when)| Incidence { var: *var, order: *order, when });
        m.push_equation(Label::Written(format!("q{i}").into()), i as u32 + 1, Span::new(0, 1), body, incidence);
    }
    if k >= 2 && r.below(3) == 0 {
        let cond = Cond::not(Cond::and(Cond::Mode(ModeId(0)), Cond::Mode(ModeId(1))));
        m.invariants.push(Invariant { cond, span: Span::new(0, 1) });
    }
    m
}

#[test]
fn strategies_agree_on_random_multimode_daes() {
    let cases: u64 = std::env::var("DIFFERENTIAL_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut r = Rng(0x5eed);
    let (mut modes, mut singular_cases, mut total, mut regular) = (0u64, 0u64, 0usize, 0u64);
    for case in 0..cases {
        let m = random_mdae(&mut r);
        modes += 1 << m.modes.len();
        let ex = analysis::analyse(&m, Strategy::Explicit).unwrap();
        singular_cases += u64::from(!ex.singular.is_empty());
        regular += (0u64..1 << m.modes.len()).filter(|&b| ex.space.contains(&ex.regular, b)).count() as u64;
        total += compare(&m, &format!("random case {case}: {m:?}"));
    }
    println!(
        "differential: {cases} random mDAEs ({modes} modes, {regular} of them nonsingular; {singular_cases} mDAEs with singular modes), {total} mismatching modes"
    );
    assert_eq!(total, 0);
}
