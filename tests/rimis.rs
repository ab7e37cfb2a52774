//! The RIMIS transformation (issue 4): one snapshot of the output per fixture and form;
//! the guarantee of paper 000 §4.2 checked on every fixture and on 1,000+ random
//! multimode models: the output re-parses, and its *approximate* structural analysis
//! (one mode, the union of every mode's incidence, as omc and Dymola do) is
//! structurally nonsingular, needs no index reduction (every offset c = 0), and its BLT
//! holds every block of the input's CDG as one block (the equations emitted under the
//! comment `// Block k.`); determinism (two runs, same bytes).

mod common;

use mdae_rimis::analysis::sigma::{self, SingleMode};
use mdae_rimis::analysis::{self, Strategy};
use mdae_rimis::driver::{self, DriverError};
use mdae_rimis::mdae;
use mdae_rimis::syntax::{self, SourceFile};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn fixtures(sub: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(sub);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mo") && !p.to_string_lossy().contains("Singular"))
        .collect();
    v.sort();
    v
}

fn transform(name: &str, text: &str) -> Result<(String, Vec<String>), DriverError> {
    driver::rimis(&SourceFile::new(name, text), Strategy::Auto)
}

/// Checks the §4.2 guarantee on `out`, the RIMIS of a model whose CDG has `n_blocks`
/// blocks. Returns a description of the first violation. A pass-through output (the
/// input unchanged) need only re-parse and be nonsingular: its structure is one mode's.
fn guarantee(out: &str, n_blocks: usize) -> Result<(), String> {
    let file = SourceFile::new("out.mo", out);
    let mut def = syntax::parse(out).map_err(|e| format!("output does not re-parse: {}", e.render(&file)))?;
    mdae_rimis::flat::move_declaration_equations(&mut def);
    let m = mdae::lower(&def, &file).map_err(|e| format!("output does not lower: {}", e.render(&file)))?;
    let lines = mdae_rimis::emit::block_of_lines(out);
    let block_of = |line: u32| lines.get(line as usize - 1).copied().flatten();
    let structure = match sigma::analyse(&mdae_rimis::analysis::oblivious::union_sigma(&m), m.vars.len()) {
        SingleMode::Nonsingular(s) => s,
        SingleMode::Singular(_) => return Err("the approximate analysis of the output is singular".into()),
    };
    let unchanged = out.contains("The model is unchanged:");
    // No algebraic loop through a discrete variable: omc refuses one through a
    // when-equation, and iterates on the others. A pass-through output is the input,
    // whose level loops omc builds; a rewritten output has none.
    match analysis::causal::Sections::of_file(&def).map(analysis::causal::Sections::rows) {
        Some(Ok(causal)) => {
            let new = causal.discrete_loops().into_iter().find(|l| l.through_when || !unchanged);
            if let Some(l) = new.as_ref() {
                let locate = |s: syntax::Span| {
                    let (l, c) = file.line_col(s.start as usize);
                    format!("{l}:{c}")
                };
                return Err(format!(
                    "the output has {}",
                    causal.describe(l, &locate, &|o| {
                        analysis::causal::Sections::of_file(&def).expect("a model class").source(o)
                    })
                ));
            }
        }
        Some(Err(u)) if unchanged => {
            let _ = u; // a pass-through keeps the input's arrays and records
        }
        Some(Err(u)) => return Err(format!("the causal check cannot read the output: {} at {:?}", u.what, u.span)),
        None => return Err("the output has no model class".into()),
    }
    if unchanged {
        return Ok(());
    }
    derivatives_solved(out)?;
    if let Some(i) = structure.c.iter().position(|&c| c != 0) {
        return Err(format!(
            "the output needs index reduction: c = {} for `{}`",
            structure.c[i],
            m.text(mdae::EqId(i as u32))
        ));
    }
    let blt: Vec<BTreeSet<usize>> =
        structure.blocks.iter().map(|b| b.eqs.iter().map(|e| e.0 as usize).collect()).collect();
    // Blocks merged into one system (`rimis/merge.rs`): listed by `// Blocks k l m merged:`,
    // their equations under the first, part MERGED; the others of the list are in it.
    let within: BTreeSet<usize> =
        mdae_rimis::emit::merged_blocks(out).iter().flat_map(|g| g.iter().skip(1).copied()).collect();
    for k in 1..=n_blocks {
        // Per part (0: the block emitted whole; j: part j of a split block), its equations.
        let mut parts: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for i in 0..m.equations.len() {
            if let Some((_, j)) = block_of(m.equations[i].line).filter(|&(b, _)| b == k) {
                parts.entry(j).or_default().insert(i);
            }
        }
        if parts.is_empty() {
            // Time-invariant in the output (flat::invariant): passed through, solved once.
            let once = m
                .passed
                .iter()
                .any(|e| block_of(file.line_col(e.span().start as usize).0 as u32).is_some_and(|(b, _)| b == k));
            if once || within.contains(&k) {
                continue;
            }
            return Err(format!("no equation emitted for block {k}"));
        }
        if parts.len() > 1 && parts.contains_key(&0) {
            return Err(format!("block {k} is emitted both whole and in parts"));
        }
        for (j, eqs) in &parts {
            if *j == mdae_rimis::emit::MERGED {
                // A union of the output's BLT blocks: each block it meets lies in it whole.
                if let Some(b) = blt.iter().find(|b| !b.is_disjoint(eqs) && !b.is_subset(eqs)) {
                    let texts: Vec<String> = b.iter().map(|&i| m.text(mdae::EqId(i as u32))).collect();
                    return Err(format!("the blocks merged from block {k} share a BLT block with others ({texts:?})"));
                }
                continue;
            }
            if !blt.contains(eqs) {
                let texts: Vec<String> = eqs.iter().map(|&i| m.text(mdae::EqId(i as u32))).collect();
                return Err(format!("block {k} part {j} ({texts:?}) is not a block of the output's BLT"));
            }
        }
    }
    Ok(())
}

/// Issue 29, class 6: no equation the output writes for a block holds that block's written
/// derivative `der(x)` under an if-expression unless it is solved for it (`der(x) = …`):
/// rumoca cannot compute `0 = if b then der(x) - … else …`. The block's writes are read
/// from its `// Block k. …: reads -- eqs -> writes` comment (`x'` is der(x)).
fn derivatives_solved(out: &str) -> Result<(), String> {
    let mut writes: Vec<String> = Vec::new();
    for line in out.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("// Block ") {
            let ws = rest.split(" -> ").nth(1).unwrap_or("");
            let ws = ws.split(" (").next().unwrap_or("").split("; this part").next().unwrap_or("");
            writes = ws
                .split_whitespace()
                .filter_map(|w| w.strip_suffix('\'').filter(|v| !v.ends_with('\'')))
                .map(|v| format!("der({v})"))
                .collect();
            continue;
        }
        if line.starts_with("//") {
            writes.clear();
            continue;
        }
        let Some(at) = line.find("if ") else { continue };
        for d in &writes {
            if line[at..].contains(d.as_str()) && !line.starts_with(&format!("{d} =")) {
                return Err(format!("`{line}` holds {d}, which its block writes, under an if (not solved for it)"));
            }
        }
    }
    Ok(())
}

/// What `--check` says of `out`: the exact analysis (not the union analysis of
/// [`guarantee`]) finds every valid mode structurally nonsingular. The input's singular
/// modes are invalid in the output, which asserts they are never entered.
fn regular_in_every_valid_mode(out: &str) -> Result<(), String> {
    let m = driver::lower(&SourceFile::new("out.mo", out)).map_err(|e| e.to_string())?;
    let cdg = analysis::analyse(&m, Strategy::Auto).map_err(|e| e.to_string())?;
    match cdg.singular.first() {
        None => Ok(()),
        Some(s) => Err(format!(
            "the output is structurally singular in some valid mode: underdetermined {:?}",
            s.underdetermined.iter().map(|&v| m.vars[v.index()].name.as_str()).collect::<Vec<_>>()
        )),
    }
}

/// The text of `fixtures/<name>`.
fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)).unwrap()
}

/// The RIMIS output of `fixtures/<name>`, checked against the §4.2 guarantee.
fn rewritten_with_guarantee(name: &str) -> String {
    let text = fixture_text(name);
    let (out, _) = transform(name, &text).unwrap_or_else(|e| panic!("{}", e.render()));
    guarantee(&out, n_blocks(name, &text)).unwrap_or_else(|why| panic!("{why}\n{out}"));
    out
}

fn n_blocks(name: &str, text: &str) -> usize {
    let m = driver::lower(&SourceFile::new(name, text)).unwrap();
    analysis::analyse(&m, Strategy::Auto).unwrap().blocks.len()
}

/// The omc option of `rimis/vendor.rs`: an output that calls `reinit` carries
/// `--postOptModules-=constantLinearSystem` (omc's constantLinearSystem drops the
/// reinit-only when-equations of the system it rewrites, campaign seed 1371) as its class
/// annotation, the last element before `end`; an output without `reinit` carries none.
fn omc_options_where_reinit(out: &str) -> Result<(), String> {
    const ANNOTATION: &str =
        "  annotation(__OpenModelica_commandLineOptions = \"--postOptModules-=constantLinearSystem\");";
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| *l == ANNOTATION);
    let reinit = lines.iter().any(|l| l.contains("reinit("));
    match (reinit, at) {
        (false, None) => Ok(()),
        (false, Some(_)) => Err("carries the omc option without any reinit".into()),
        (true, None) => Err("calls reinit without the omc option".into()),
        (true, Some(k)) if lines.get(k + 1).is_some_and(|l| l.starts_with("end ")) => Ok(()),
        (true, Some(_)) => Err("the omc annotation is not the class's last element".into()),
    }
}

#[test]
fn outputs_of_the_fixtures() {
    let (mut checked, mut to_compile) = (0, Vec::new());
    for sub in ["", "omc-flat", "scale"] {
        for p in fixtures(sub) {
            let text = std::fs::read_to_string(&p).unwrap();
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            let name = if sub.is_empty() { stem.clone() } else { format!("{}_{stem}", sub.replace('-', "_")) };
            let (out, messages) = transform(&name, &text).unwrap_or_else(|e| panic!("{name}: {}", e.render()));
            let again = transform(&name, &text).unwrap().0;
            assert_eq!(out, again, "{name}: two runs differ");
            let blocks = n_blocks(&name, &text);
            if let Err(why) = guarantee(&out, blocks) {
                panic!("{name}: {why}\n{out}");
            }
            if let Err(why) = regular_in_every_valid_mode(&out) {
                panic!("{name}: {why}\n{out}");
            }
            if let Err(why) = initial_determined(&text, &out, INPUT_LEAVES_FREE.contains(&name.as_str())) {
                panic!("{name}: {why}\n{out}");
            }
            if let Err(why) = omc_options_where_reinit(&out) {
                panic!("{name}: {why}\n{out}");
            }
            if sub != "scale" {
                let shown = format!("{}\n// stderr:\n{}", out, messages.join("\n"));
                insta::assert_snapshot!(format!("rimis_{name}"), shown);
            }
            to_compile.push(common::ToCompile { name: format!("{name}.mo"), text: out, original: Some(p.clone()) });
            checked += 1;
        }
    }
    println!("rimis: {checked} fixture outputs re-parse, are index 0 and hold every CDG block in their BLT");
    common::rumoca_compiles("fixture outputs", &to_compile).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn impulsive_mode_changes_get_a_restart_system_or_the_restart_warning() {
    for sub in ["", "omc-flat"] {
        let text = |name: &str| {
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(sub).join(format!("{name}.mo"));
            std::fs::read_to_string(p).unwrap()
        };
        // The engaging clutch: index 1, so its restart system is built (paper 000 §5.1): w1, w2
        // restart from the restart function, solved at the switch from the left limits.
        let (out, messages) = transform("ClutchBasic", &text("ClutchBasic")).unwrap();
        assert!(messages.iter().all(|m| !m.contains("warning")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("note: restart computed: entering `g`")), "{messages:?}");
        for line in [
            "function restart_system",
            "output Real wk \"unknown k: w1 w2 f1 f2\";",
            "reinit(w1, restart_system(1, ",
            "reinit(w2, restart_system(2, ",
            "pre(w1)",
            "when g then",
        ] {
            assert!(out.contains(line), "ClutchBasic: no `{line}` in\n{out}");
        }
        // The cup-and-ball: positions of order 2; the velocities restart (paper 000 §5.2.2,
        // eq. 35), through REINIT's reinitialisation of the velocity replicates.
        let (out, messages) = transform("CupAndBall", &text("CupAndBall")).unwrap();
        assert!(messages.iter().all(|m| !m.contains("warning")), "CupAndBall: {messages:?}");
        assert!(messages.iter().any(|m| m.contains("note: restart computed: entering `gamma`")), "{messages:?}");
        assert!(out.contains("reinit(x_p_2, restart_system(1, "), "CupAndBall:\n{out}");
        assert!(
            out.contains("reinit(x_2, if not pre(gamma) then x_1 else pre(x));"),
            "positions are continuous:\n{out}"
        );
    }
    // Where the restart system is not linear (the tension enters through sinh), it is solved
    // by damped Newton's method from the left limits (issue 29), said in the note, and the
    // output still checks the consistency equation in the mode: the iteration may fail.
    let (out, messages) = transform("RestartNotLinear", &fixture_text("RestartNotLinear.mo")).unwrap();
    assert!(
        messages.iter().any(|m| m.contains("note: restart computed") && m.contains("solved by Newton's method")),
        "{messages:?}"
    );
    assert!(out.contains("by Newton's method from the left limits"), "{out}");
    assert!(out.contains("wk := if done then w[k] else w0[k];"), "not converged: the left limits\n{out}");
    assert!(out.contains("assert(not gamma or noEvent(abs("), "{out}");
    // RLDC2Rectifier: each diode enters blocking when its current crosses 0 and passing when
    // its reverse voltage does, which are the consistency equations Z1, Z2 of the new mode;
    // the simulation suite checks that the complementarity then holds (1e-6).
    for name in ["TwoEquations", "WaterTank", "RLDC2Rectifier", "RLDC2"] {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(format!("{name}.mo"));
        let (_, messages) = transform(name, &std::fs::read_to_string(p).unwrap()).unwrap();
        assert!(messages.is_empty(), "{name} needs no warning: {messages:?}");
    }
}

#[test]
fn a_model_whose_structure_does_not_depend_on_the_mode_passes_through() {
    let text = "model M\n  Real x(start = 1, fixed = true);\n  Boolean b;\nequation\n  b = x > 0.5;\n  der(x) = if b then -x else -2 * x;\nend M;\n";
    let (out, messages) = transform("M.mo", text).unwrap();
    assert!(
        messages.iter().any(|m| m.contains("note: model M: its structure does not depend on the mode")),
        "{messages:?}"
    );
    assert!(out.contains("  der(x) = if b then -x else -2 * x;\n"), "{out}");
    assert!(!out.contains("x_p"), "{out}");
}

// ------------------------------------------------------------- random models

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A random multimode model: n real unknowns, k mode variables defined from time,
/// equations whose terms (a variable, its derivative, a product) may sit in one branch
/// of an if-expression on a mode literal.
fn random_model(r: &mut Rng) -> String {
    let n = 1 + r.below(6) as usize;
    let k = 1 + r.below(3) as usize;
    let mut s = String::from("model R\n");
    for j in 0..n {
        s.push_str(&format!("  Real v{j}(start = {}.5);\n", j));
    }
    for i in 0..k {
        s.push_str(&format!("  Boolean g{i};\n"));
    }
    s.push_str("equation\n");
    for i in 0..k {
        s.push_str(&format!("  g{i} = time > {}.25;\n", i));
    }
    let term = |r: &mut Rng| {
        let v = r.below(n as u64);
        match r.below(5) {
            0 => format!("der(v{v})"),
            1 => format!("v{v} * v{}", r.below(n as u64)),
            2 => format!("sin(v{v})"),
            _ => format!("{}.0 * v{v}", 1 + r.below(3)),
        }
    };
    for i in 0..n {
        let mut terms = vec![format!("v{i}")];
        for _ in 0..r.below(3) {
            terms.push(term(r));
        }
        let body = terms.join(" + ");
        let eq = match r.below(3) {
            0 => format!("  0 = {body} - time;\n"),
            _ => {
                let lit = format!("{}g{}", if r.below(2) == 0 { "not " } else { "" }, r.below(k as u64));
                format!("  0 = if {lit} then {body} else {} - 1.0;\n", term(r))
            }
        };
        s.push_str(&eq);
    }
    s.push_str("end R;\n");
    s
}

#[test]
fn random_models_keep_every_block_in_the_approximate_blt() {
    let mut r = Rng(0x5eed_4);
    let (mut transformed, mut refused, mut tried, mut unchanged) = (0, BTreeMap::<String, usize>::new(), 0, 0);
    let mut determined = 0;
    let mut to_compile = Vec::new();
    while transformed < 1000 && tried < 20_000 {
        tried += 1;
        let text = random_model(&mut r);
        let m = match driver::lower(&SourceFile::new("R.mo", text.clone())) {
            Ok(m) => m,
            Err(e) => panic!("random model does not lower: {}\n{text}", e.render()),
        };
        let cdg = analysis::analyse(&m, Strategy::Auto).unwrap();
        if !cdg.singular.is_empty() {
            *refused.entry("structurally singular".into()).or_default() += 1;
            continue;
        }
        match transform("R.mo", &text) {
            Ok((out, _)) => {
                unchanged += usize::from(out.contains("the model is unchanged"));
                if let Err(why) = guarantee(&out, cdg.blocks.len()) {
                    panic!("{why}\n--- input\n{text}--- output\n{out}");
                }
                match initial_determined(&text, &out, true) {
                    Ok(true) => determined += 1,
                    Ok(false) => {}
                    Err(why) => panic!("{why}\n--- input\n{text}--- output\n{out}"),
                }
                // Every output is Modelica, whatever the input (which holds `der` inside
                // if-expressions that rumoca may not solve, but compiles).
                to_compile.push(common::ToCompile { name: "R.mo".into(), text: out, original: None });
                transformed += 1;
            }
            Err(e) => {
                let why = e.to_string();
                let key = why.split(": ").last().unwrap_or("").chars().take(60).collect();
                *refused.entry(key).or_default() += 1;
            }
        }
    }
    println!(
        "rimis random: {tried} models, {transformed} transformed and checked ({unchanged} passed through unchanged), refused: {refused:?}"
    );
    println!(
        "rimis random: {determined} outputs with a determined initial system, {} no less determined than their input's (states it leaves without an initial value)",
        transformed - determined
    );
    assert!(transformed >= 1000, "only {transformed} random models transformed");
    common::rumoca_compiles("random model outputs", &to_compile).unwrap_or_else(|e| panic!("{e}"));
}

/// A switch makes a consistency equation true only when its crossing surface is that
/// equation: entering `b` when `x - 2` crosses 0 leaves `0 = x - 1` false (so a restart
/// system restores it: x restarts from 1), when `x - 1` crosses 0 it holds.
#[test]
fn a_switch_guarantees_only_its_own_crossing_surface() {
    let model = |surface: &str| {
        format!(
            "model M\n  Real x(start = 0, fixed = true);\n  Real y;\n  Real s;\n  Boolean b(start = false);\nequation\n  der(x) = 1 - y;\n  0 = if b then x - 1 else y;\n  s = if b then y else {surface};\n  b = s >= 0;\nend M;\n"
        )
    };
    let (out, messages) = transform("M.mo", &model("x - 2")).unwrap();
    assert!(
        messages.iter().any(|m| m.contains("note: restart computed: entering `b`") && m.contains("makes e8 true")),
        "{messages:?}"
    );
    // The restart system's first row is e8 after the jump, `0 = x⁺ - 1` (A's row {-1, 0, 0},
    // b = -1: x⁺ = 1), and x restarts from it.
    assert!(out.contains("M := {{-1, 0, 0}, ") && out.contains("r := {-1, "), "{out}");
    assert!(
        out.contains("reinit(x, restart_system(1, restart_step, pre(x), pre(y), pre(s), consistency_tolerance));"),
        "{out}"
    );
    // Where e8 holds at the left limits already (within the checks' tolerance), x keeps its
    // own (w0: the left limits of x, y and s).
    assert!(out.contains("    w0 := {in2, in3, in4};\n"), "{out}");
    assert!(out.contains("    done := abs(1 - w[1]) <= in5 * (1 + (abs(w[1]) + 1));\n"), "{out}");
    assert!(out.contains("    wk := if done then w0[k] else w[k];\n"), "{out}");
    let (out, messages) = transform("M.mo", &model("x - 1")).unwrap();
    assert!(messages.is_empty(), "{messages:?}");
    assert!(!out.contains("RESTART"), "{out}");
}

/// A consistency equation of every mode (`x = y`, differentiated once everywhere: RIMIS
/// integrates `der(x) = der(y)`) is an initial equation of the output, so that y starts
/// from x's start value rather than from 0 (rumoca: x = y = 1 at t = 0 with it, y = 0
/// without). One that holds in some modes only (issue 14) is selected by its modes at
/// t = 0 — the mode variables read through their guards — and sets the state it absorbs
/// there (y, whose start is only a guess); elsewhere that state keeps its start value.
/// Where the mode at t = 0 is known before the run (a guard of `time`), the equation is
/// written alone where the model starts in its modes, and not at all where it cannot
/// (campaign seed 52); where the guard reads a state whose start is only a guess, the model
/// starts in the mode of the guard at the start values, checked by an assert at t = 0
/// (seeds 66, 413). Where the only state is `fixed`, it loses `fixed`
/// (`ClutchReleased`, in the simulation suite: engaged at t = 0, w2 starts at w1's speed).
#[test]
fn consistency_equations_of_every_mode_are_initial_equations() {
    let model = |guard: &str, extra: &str| {
        format!(
            "model M\n  parameter Real s0 = 2;\n  Real x(start = 1, fixed = true);\n  Real y;\n  Real f;\n  Real z; Real w;\n  Real s(start = s0);\n  Boolean b;\nequation\n  b = {guard};\n  der(s) = -s;\n  der(x) = f - x;\n  der(y) = -f - 2 * y;\n  {extra}\n  0 = if b then z - x else w - 1;\n  w + z = 0;\nend M;\n"
        )
    };
    let (out, messages) = transform("M.mo", &model("time > 0.5", "x = y;")).unwrap();
    assert!(messages.is_empty(), "{messages:?}");
    assert!(out.contains("initial equation\n  // consistency: e14 holds at the start\n  x = y;\nequation\n"), "{out}");
    // Only when b, b read through a state whose start is a parameter at t = 0: selected by
    // b's guard.
    let (out, _) = transform("M.mo", &model("s > 0.5", "0 = if b then x - y else f;")).unwrap();
    let expected = "initial equation\n  // consistency: e14 holds at the start where `b` (elsewhere y starts from its start value)\n  if s > 0.5 then\n    0 = x - y;\n  else\n    y = 0.0;\n  end if;\nequation\n";
    assert!(out.contains(expected), "{out}");
    assert!(out.contains("  Real x(start = 1, fixed = true);\n"), "x keeps fixed: y absorbs e14\n{out}");
    // b known true at t = 0: e14 alone; known false: not written, y keeps its start.
    let (out, _) = transform("M.mo", &model("time < 0.5", "0 = if b then x - y else f;")).unwrap();
    assert!(
        out.contains("initial equation\n  // consistency: e14 holds at the start\n  0 = x - y;\nequation\n"),
        "{out}"
    );
    let (out, _) = transform("M.mo", &model("time > 0.5", "0 = if b then x - y else f;")).unwrap();
    assert!(!out.contains("initial equation"), "{out}");
    // b read through a state whose start is a literal (a guess): the mode of the guard at the
    // start values, declared, the equation alone, and an assert at t = 0.
    let (out, _) =
        transform("M.mo", &model("s > 0.5", "0 = if b then x - y else f;").replace("start = s0", "start = 2")).unwrap();
    assert!(out.contains("  Boolean b(start = true);\n"), "{out}");
    assert!(
        out.contains("initial equation\n  // consistency: e14 holds at the start\n  0 = x - y;\nequation\n"),
        "{out}"
    );
    assert!(
        out.contains("  assert(not initial() or s > 0.5, \"mdae-rimis: the output starts where `b` is true"),
        "{out}"
    );
}

/// Issue 13: the rewritten outputs of Modelica.Fluid's TanksWithOverflow and Rotational's
/// HeatLosses have one irreducible block over all modes (680 and 1,685 edges: the block
/// parts, each under its condition, joined by the read multiplexers) with more than 16,384
/// structural classes over 18 and 24 mode variables, where the BDD programme exceeds its
/// budget: `--check` of the output refused them. Solved factor by factor
/// (`analysis/implicit/factors.rs`), the exact analysis decides them: regular in every
/// valid mode. Skipped without `../shared/corpus/msl-flat`.
#[test]
fn outputs_whose_block_has_too_many_classes_are_decided() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/msl-flat");
    for model in
        ["Modelica.Fluid.Examples.Tanks.TanksWithOverflow", "Modelica.Mechanics.Rotational.Examples.HeatLosses"]
    {
        let Ok(text) = std::fs::read_to_string(root.join(format!("{model}.mo"))) else {
            println!("skipped: {model} not found under {}", root.display());
            continue;
        };
        let (out, _) = transform(model, &text).unwrap_or_else(|e| panic!("{model}: {}", e.render()));
        assert!(out.contains("// REPL:"), "{model} is rewritten");
        regular_in_every_valid_mode(&out).unwrap_or_else(|why| panic!("{model}: {why}"));
    }
}

// ------------------------------------------------------------- the corpus

/// Every file of `../shared/corpus/{omc-flat,msl-flat}` (real models as OpenModelica prints
/// them) through the whole job: no panic; each file is either transformed, and then its
/// output is deterministic and keeps the §4.2 guarantee, or refused with a located error
/// (`file:line:col: …`). Prints the counts by outcome.
#[test]
fn corpus_models_are_transformed_with_the_guarantee_or_refused_with_a_location() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut files = Vec::new();
    for dir in ["omc-flat", "msl-flat"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            println!("skipped: corpus folder {} not found", root.join(dir).display());
            return;
        };
        files.extend(
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "mo")),
        );
    }
    files.sort();
    // rumoca compiles the rewritten outputs whose input it compiles; every accepted output
    // (1,459, ~15 min on 2 cores) with MDAE_COMPILE_CORPUS=all.
    let compile_all = std::env::var("MDAE_COMPILE_CORPUS").is_ok_and(|v| v == "all");
    let mut to_compile = Vec::new();
    let (mut transformed, mut refused, mut unreadable) = (0, BTreeMap::<String, usize>::new(), 0);
    let mut rewritten = 0; // not passed through: the structure depends on the mode
    let mut failures = Vec::new();
    for p in &files {
        let Ok(text) = std::fs::read_to_string(p) else {
            unreadable += 1; // not UTF-8: the parser tests cover the located error
            continue;
        };
        let name = p.display().to_string();
        let run = || transform(&name, &text);
        match std::panic::catch_unwind(run) {
            Err(_) => failures.push(format!("{name}: panicked")),
            Ok(Ok((out, _))) => {
                if transform(&name, &text).map(|r| r.0).ok().as_ref() != Some(&out) {
                    failures.push(format!("{name}: two runs differ"));
                }
                // The blocks are checked in rewritten outputs only (an unchanged output is the
                // input): no multimode analysis of a model the main job passed a priori.
                let blocks = if out.contains("The model is unchanged:") {
                    Ok(0)
                } else {
                    driver::lower(&SourceFile::new(name.as_str(), text.as_str())).map_err(|e| e.to_string()).and_then(
                        |m| analysis::analyse(&m, Strategy::Auto).map(|c| c.blocks.len()).map_err(|e| e.to_string()),
                    )
                };
                let is_rewritten = out.contains("// REPL:");
                rewritten += usize::from(is_rewritten);
                match blocks.and_then(|n| guarantee(&out, n)) {
                    Ok(()) => transformed += 1,
                    Err(why) => failures.push(format!("{name}: {why}")),
                }
                if is_rewritten || compile_all {
                    let file = p.file_name().unwrap().to_string_lossy().to_string();
                    to_compile.push(common::ToCompile { name: file, text: out, original: Some(p.clone()) });
                }
            }
            Ok(Err(e)) => {
                let message = e.to_string();
                let located = message
                    .strip_prefix(name.as_str())
                    .and_then(|rest| rest.strip_prefix(':'))
                    .and_then(|rest| rest.split_once(':'))
                    .is_some_and(|(line, rest)| {
                        line.parse::<u32>().is_ok()
                            && rest.split_once(':').is_some_and(|(col, _)| col.parse::<u32>().is_ok())
                    });
                if !located {
                    failures.push(format!("{name}: error without file:line:col: {message}"));
                }
                let kind = message.split(" error: ").nth(1).unwrap_or(&message);
                let kind = kind.split('`').next().unwrap_or(kind).trim().to_string();
                let kind = if kind.starts_with("model ") { "structurally singular".into() } else { kind };
                *refused.entry(kind).or_default() += 1;
            }
        }
    }
    println!(
        "corpus: {} files, {transformed} transformed with the guarantee ({rewritten} rewritten, the others passed through), {unreadable} not UTF-8",
        files.len()
    );
    for (kind, n) in &refused {
        println!("  refused {n:4}: {kind}");
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    let which =
        if compile_all { "corpus outputs" } else { "rewritten corpus outputs (MDAE_COMPILE_CORPUS=all: every one)" };
    common::rumoca_compiles(which, &to_compile).unwrap_or_else(|e| panic!("{e}"));
}

/// Issue 17: a condition the input evaluates without events — under `noEvent`, or inside
/// `smooth` (omc makes no zero crossing in either) — keeps `noEvent` in the output's
/// multiplexers and guards. An event-driven relation would change the simulation: omc's
/// relations have hysteresis, so a flow that reaches exactly zero does not leave the mode
/// `V < 0` (PumpDropOut), and a switch inside a smooth characteristic chatters
/// (ThyristorBehaviourTest: 100 events within 1.1 ms).
#[test]
fn conditions_without_events_keep_no_event() {
    // Alone, each model needs no rewrite (one analysis fits every mode: it passes through
    // unchanged, `noEvent` and all); a part whose matching varies makes the tool rewrite it.
    let varying = |model: &str| {
        model.replacen(
            "equation\n",
            "  Real p; Real q;\nequation\n  0 = if time < 0.3 then p - 2 else q - 3;\n  p + q = 1;\n",
            1,
        )
    };
    // (The fixture has such a part.)
    let (out, _) = transform("FlowDirection", &fixture_text("FlowDirection.mo")).unwrap();
    assert!(out.contains("  dT = if noEvent(V >= 0) then dT_"), "{out}");
    let smooth = "model M\n  Real v;\n  Real w;\n  Real i;\nequation\n  i = sin(time);\n  w = cos(time);\n  i = smooth(1, if v < 0 then 0.001 * v else v + 0.1 * w);\nend M;\n";
    let (out, _) = transform("M.mo", &varying(smooth)).unwrap();
    assert!(out.contains("  v = if noEvent(v < 0) then v_"), "{out}");
    assert!(!out.contains("if v < 0"), "{out}");
}

/// Issue 13: omc writes a scalarised array element as a subscripted name (`s[1]`,
/// `inFlow[1]`), the Modelica.Fluid vessels' port regions among them. The output is the one
/// of the same model with plain names: every written variable is renamed to its replicate
/// (before, `s[1] = …` stayed in each branch's block, its replicates had no equation, and
/// the rewrite was refused: "one structural analysis of the union of its modes is
/// singular"), and the guards, left limits and multiplexers see the subscripted mode
/// variables as they see plain ones.
#[test]
fn subscripted_names_are_rewritten_as_plain_ones() {
    let subscripted = fixture_text("TankPort.mo");
    let plain_names = |t: &str| {
        t.replace("s[1]", "s")
            .replace("s_1__", "s_")
            .replace("regularFlow_1__", "regularFlow_")
            .replace("inFlow_1__", "inFlow_")
            .replace("regularFlow[1]", "regularFlow")
            .replace("inFlow[1]", "inFlow")
            .replace("{false}", "false")
            .replace("{2.0 >= h}", "2.0 >= h")
    };
    let (out, notes) = transform("TankPort", &subscripted).unwrap_or_else(|e| panic!("{}", e.render()));
    let (plain, plain_notes) = transform("TankPort", &plain_names(&subscripted)).unwrap();
    assert!(plain.contains("  s = if ") && plain.contains("  s_1 = m_flow_1;"), "{plain}");
    assert_eq!(plain_names(&out), plain);
    assert_eq!(notes.iter().map(|n| plain_names(n)).collect::<Vec<_>>(), plain_notes);
}

/// Issue 13: the two-tank shape of the Modelica.Fluid tank examples
/// (`fixtures/TwoTankPorts.mo`) has blocks whose condition joins regions of opposite causal
/// orders; read through multiplexers they made a loop across blocks in one structural
/// analysis of the output, and the self-check refused the rewrite. Emitted in parts, one per
/// region of their writers, every part reads each variable from one writer: the rewrite is
/// accepted and each part is one block of the output's triangular form.
#[test]
fn blocks_whose_writers_join_opposite_orders_are_emitted_in_parts() {
    let out = rewritten_with_guarantee("TwoTankPorts.mo");
    // `p1 = pa` (block 19) reads p1 from block 1 when inFlow1 and from block 2 otherwise:
    // one part each, with no multiplexer of p1 between them.
    assert!(out.contains("// Block 19, part 1 of 2.") && out.contains("// Block 19, part 2 of 2."), "{out}");
    assert!(out.contains("  p1_1 = pa_1;\n") && out.contains("  p1_2 = pa_2;\n"), "{out}");
    assert!(!out.contains("p1_19"), "no read multiplexer of p1 under block 19's condition:\n{out}");
    // Block 2 is not split: it reads m1 from one part of block 22.
    assert!(out.contains("// Block 2. ") && out.contains("  p1_2 = level1 - h + R * m1_11;\n"), "{out}");
}

/// Issue 13: the water tanks of BatchPlant_StandardWater (`fixtures/IF97Tank.mo`). Open,
/// the density `rho_ph(p, h, …)` = `rho_props_ph(p, h, waterBaseProp_ph(…))` is
/// differentiated; omc dropped its annotation `derivative(noDerivative = properties) =
/// rho_ph_der`. Inlining `rho_props_ph` instead wrote `der(properties.rho)` — the
/// function's own input — into the output, whose block was then not one block of its
/// triangular form (§4.2), and the rewrite was refused. The derivative is the library's.
#[test]
fn a_water_property_is_differentiated_by_its_library_derivative() {
    let out = rewritten_with_guarantee("IF97Tank.mo");
    // The model's equations (its functions, nested before them, read `properties`).
    let equations = &out[out.rfind("\nequation\n").expect("the model's equations")..];
    assert!(!equations.contains("properties"), "a function's input leaked into the model:\n{equations}");
    let p = "Modelica_Media_Water_IF97_Utilities";
    let derivative = format!("d_p_3 = {p}_rho_ph_der(p_3, h_3, {p}_waterBaseProp_ph(p_3, h_3, 0, 0), p_p_3, h_p_3);");
    assert!(equations.contains(&derivative), "{equations}");
}

/// Issue 13: Modelica.Fluid.Examples.AST_BatchPlant.BatchPlant_StandardWater, one block of
/// 2,087 edges whose structural classes exceed their budget and whose BDD programme
/// exceeds its levels (the connection sets of its seven tanks), is decided by the factored
/// split's last attempt (nine nested splits, 1,095 leaves) and rewritten; its output is
/// regular in every valid mode. It was refused for the analysis budget. Skipped without
/// `../shared/corpus/msl-flat`.
#[test]
fn the_batch_plant_is_decided_and_rewritten() {
    let model = "Modelica.Fluid.Examples.AST_BatchPlant.BatchPlant_StandardWater";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../shared/corpus/msl-flat/{model}.mo"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("skipped: {} not found", path.display());
        return;
    };
    let (out, _) = transform(model, &text).unwrap_or_else(|e| panic!("{model}: {}", e.render()));
    assert!(out.contains("// REPL:"), "{model} is rewritten");
    regular_in_every_valid_mode(&out).unwrap_or_else(|why| panic!("{model}: {why}"));
}

/// Issue 13: an output whose union analysis is nonsingular (§4.2 as
/// `meets_the_guarantee` checks it) but which is singular in a valid mode — a replicate no
/// block writes in its mode, as mdae-rimis wrote before subscripted references were
/// renamed (`fixtures/check/UnwrittenReplicate.mo`) — is refused by the main job's
/// self-check, naming the mode and the unwritten replicate.
#[test]
fn the_self_check_refuses_an_output_singular_in_some_mode() {
    let fixture =
        |rel: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel)).unwrap();
    let old = fixture("check/UnwrittenReplicate.mo");
    // Its input, quoted in the fixture's header.
    let input: String = old.lines().filter_map(|l| l.strip_prefix("//   ")).map(|l| format!("{l}\n")).collect();
    let file = SourceFile::new("V1.mo", input.as_str());
    let model = driver::lower(&file).unwrap();
    let n = analysis::analyse(&model, Strategy::Auto).unwrap().blocks.len();
    // One analysis of the union of the modes fits it: the old self-check let it through.
    let out = driver::lower(&SourceFile::new("out.mo", old.as_str())).unwrap();
    let lines = mdae_rimis::emit::block_of_lines(&old);
    let block_of = |line: u32| lines.get(line as usize - 1).copied().flatten();
    assert_eq!(analysis::oblivious::meets_the_guarantee(&out, n, &block_of, &|_| false, &[]), Ok(()));
    let refused = driver::self_check(&file, &model, &old, n).expect_err("a singular output is refused");
    let message = refused.to_string();
    assert!(message.contains("structurally singular when not p"), "{message}");
    assert!(message.contains("underdetermined variables [r_1__1]"), "{message}");
    // The same input today: `r[1]` renamed where written, the output regular in every mode.
    let (new, _) = transform("V1.mo", &input).unwrap();
    assert!(new.contains("r_1__1 = 1.0;"), "{new}");
    regular_in_every_valid_mode(&new).unwrap();
}

/// Issue 29, class 6: the output of a rewritten model whose block holds der(x) under an
/// if-expression solves it for der(x) (DerUnderIfRewritten), and the check of
/// [`guarantee`] refuses the form rumoca cannot compute (the output before the fix).
#[test]
fn a_derivative_under_an_if_is_solved_in_the_output() {
    let out = rewritten_with_guarantee("DerUnderIfRewritten.mo");
    assert!(out.contains("  der(x) = if b then "), "{out}");
    let before = "  // Block 1. e7 -> x'\n  0 = if b then der(x) - cos(time) else 2 * der(x) - 2 * cos(time);\n  // Block 2. b: x -- e9 -> y\n";
    assert!(derivatives_solved(before).is_err());
    assert!(
        derivatives_solved(&before.replace(
            "0 = if b then der(x) - cos(time) else 2 * der(x) - 2 * cos(time)",
            "der(x) = if b then cos(time) else cos(time)"
        ))
        .is_ok()
    );
}

/// Issue 29, class 5: outside its mode a §4.7-guarded block holds the values of what it
/// replicates there (the other writer's replicate), not 0 (WrongRootAfterTrivialBlock, the
/// reproducer's hand edit). CupAndBall's rope block holds the free-flight values too: the
/// free-flight blocks are written without a guard (affine, computed in every mode), so they
/// do not read `gamma`, and the rope's tension reaching `gamma`'s switch closes no loop
/// (before the held graph knew which parts are guarded it held 0). Of two blocks that
/// would hold each other's values, the one the model does not start in holds
/// (HeldByTheBlockEnteredFirst); `rewritten_with_guarantee` checks that no block merges
/// with another (paper 000 §4.2). A loop through a guard fixpoint read on its left limit
/// closes no loop (HeldThroughGuardFixpoint, HeldZeroWhenEnteredLater), and the fixpoint's
/// switches then take a hysteresis; where the multiplexer over every other writer would
/// close a loop, the state replicate of the mode left (HeldStateReplicateOfModeLeft).
#[test]
fn a_guarded_block_holds_the_other_writers_values_outside_its_mode() {
    let out = rewritten_with_guarantee("WrongRootAfterTrivialBlock.mo");
    assert!(out.contains("    x2 = x2_1;\n    x4 = x4_1;\n"), "{out}");
    let out = rewritten_with_guarantee("CupAndBall.mo");
    assert!(out.contains("    lambda_2 = lambda_1;\n"), "{out}");
    let out = rewritten_with_guarantee("HeldByTheBlockEnteredFirst.mo");
    assert!(out.contains("    x1_p_2 = 0;\n    x2_2 = if not b1 then x2_2_left else x2_1;\n"), "{out}");
    // Where no other writer's value can be read, 0 (not the start value: seed 465).
    assert!(out.contains("    x1 = x1_2;\n    x2_1 = 0;\n"), "{out}");
    let out = rewritten_with_guarantee("HeldZeroWhenEnteredLater.mo");
    assert!(out.contains("    x3_1 = x3_2;\n"), "{out}");
    let out = rewritten_with_guarantee("HeldThroughGuardFixpoint.mo");
    assert!(out.contains("    x2_2 = x2_1;\n    x1_2 = x1_1;\n    x4_2 = x4_1;\n    x3_2 = x3_1;\n"), "{out}");
    assert!(out.contains("elsewhen x2_1 - x1_1 > 2.759 + switching_band * (abs(x2_1 - x1_1) + 2.759) then"), "{out}");
    let out = rewritten_with_guarantee("HeldStateReplicateOfModeLeft.mo");
    assert!(out.contains("    x2_4 = x2_8;\n"), "{out}");
    // No held value read through `bh`'s loop: its switches stay exact.
    let out = rewritten_with_guarantee("WaterTank.mo");
    assert!(out.contains("  elsewhen sh_6 > 0 then\n"), "{out}");
}

// ------------------------------------------------------- the initial system

/// Fixtures whose input leaves states without an initial value (their output's initial
/// system can be no more determined than the input's): the building's room and corridor
/// masses and energies have a start value but no `fixed`.
const INPUT_LEAVES_FREE: &[&str] = &["scale_BuildingCompressible2", "scale_BuildingCompressible4"];

/// The totals of a verdict: unknowns left free and equations left over, summed over its
/// failures (exact where the model starts in one mode).
fn initial_totals(s: &analysis::initial::InitialSystem) -> (usize, usize) {
    match &s.verdict {
        analysis::initial::Verdict::NotDetermined { failures, .. } => {
            (failures.iter().map(|f| f.free).sum(), failures.iter().map(|f| f.left_over).sum())
        }
        _ => (0, 0),
    }
}

/// Issue 29 point 4, what `--check` of the output says: the output's initial system is
/// determined in every mode it may start in (`Ok(true)`). Where the input's own initial
/// system leaves unknowns free (`input_may_leave_free`: start values without `fixed`), the
/// output's may too, but no more than the input's, and without an equation left over that
/// the input has not (`Ok(false)`).
fn initial_determined(input: &str, out: &str, input_may_leave_free: bool) -> Result<bool, String> {
    let of =
        |text: &str| driver::initial_system(&SourceFile::new("M.mo", text), Strategy::Auto).map_err(|e| e.render());
    let output = of(out)?;
    let report = analysis::initial::text(&output);
    match &output.verdict {
        analysis::initial::Verdict::Determined { .. } => return Ok(true),
        analysis::initial::Verdict::NotChecked { reason } => {
            return Err(format!("initial system not checked: {reason}"));
        }
        analysis::initial::Verdict::NotDetermined { .. } if !input_may_leave_free => {
            return Err(format!("the output's initial system is not determined:\n{report}"));
        }
        analysis::initial::Verdict::NotDetermined { .. } => {}
    }
    let input = of(input)?;
    let ((free, over), (in_free, in_over)) = (initial_totals(&output), initial_totals(&input));
    if free > in_free || over > in_over || !matches!(input.verdict, analysis::initial::Verdict::NotDetermined { .. }) {
        return Err(format!(
            "the output's initial system is less determined than the input's ({free} free and {over} left over against {in_free} and {in_over}):\n{report}--- input:\n{}",
            analysis::initial::text(&input)
        ));
    }
    Ok(false)
}

/// The check can fail: a fixture output with a `fixed` removed, or an initial equation
/// (a branch of one) deleted, is not determined, and `--check` names the free unknown.
#[test]
fn the_initial_check_catches_a_missing_start() {
    let out = rewritten_with_guarantee("ClutchAnglesReleased.mo");
    let input = fixture_text("ClutchAnglesReleased.mo");
    assert_eq!(initial_determined(&input, &out, false), Ok(true));
    for (broken, free) in [
        (out.replace("Real phi1_1(start = 0, fixed = true);", "Real phi1_1(start = 0);"), "phi1_1"),
        (out.replace("  0 = phi1_2 - phi2_2;\n", ""), "phi2_2"),
    ] {
        assert_ne!(broken, out, "the mutation applies");
        let why = initial_determined(&input, &broken, false).expect_err("not determined");
        assert!(why.contains("underdetermined by 1 in [") && why.contains(free), "{why}");
    }
    // CupAndBall: the rope's length where `gamma`, read through gamma's `when initial()`
    // guard, else y_2's start; the else branch deleted, where the model starts (gamma is
    // false at t = 0: its guard reads the states at their fixed starts).
    let out = rewritten_with_guarantee("CupAndBall.mo");
    assert_eq!(initial_determined(&fixture_text("CupAndBall.mo"), &out, false), Ok(true));
    let broken = out.replace("    y_2 = 0;\n", "");
    assert_ne!(broken, out, "the mutation applies");
    let why = initial_determined(&fixture_text("CupAndBall.mo"), &broken, false).expect_err("not determined");
    assert!(why.contains("may start where not gamma") && why.contains("underdetermined by 1 in [y_2]"), "{why}");
}

/// Issue 30 (HeldByTheBlockEnteredFirst in omc): a guarded block that reads a state
/// replicate REINIT sets at its entry waits one step of the event iteration (`reinit`
/// applies at the end of the step its `when` fires in), holding there the left limits
/// sampled at the entry; a block whose modes the model starts in is active at t = 0
/// (`initial()`), and one on a guard fixpoint's loop, which reads its mode on the left
/// limit already, is left as it was (CupAndBall).
#[test]
fn a_guarded_block_entered_with_a_reinit_waits_one_step() {
    let out = rewritten_with_guarantee("HeldByTheBlockEnteredFirst.mo");
    assert!(out.contains("  if not b1 and (initial() or not pre(b1)) then\n"), "{out}");
    assert!(out.contains("  when not b1 and not initial() then\n    x2_2_left = pre(x2);\n  end when;\n"), "{out}");
    assert!(out.contains("  discrete Real x2_2_left(start = 1, fixed = true);"), "{out}");
    // The block of `b1` reads no reinitialised state replicate: as before.
    assert!(out.contains("  if b1 then\n"), "{out}");
    let out = rewritten_with_guarantee("CupAndBall.mo");
    assert!(!out.contains("initial() or"), "{out}");
    assert!(!out.contains("_left"), "{out}");
}

/// Issue 30 (the compressible building of paper 002 in omc): a guard decided at t = 0 by
/// a clock state fixed at 0 through an elementary function (`open_1 = sin(w_door * t +
/// 1.0) > 0`) is folded to its value, so the initial consistency equations are written for
/// the initial mode alone. Under the condition read at run time, omc matched the initial
/// if-equation to the variable of its other branch and divided by a corridor mass it had
/// not set (N = 10, at t = 0).
#[test]
fn initial_modes_decided_through_elementary_functions() {
    let out = rewritten_with_guarantee("scale/BuildingCompressible2.mo");
    let initial = out.split("initial equation").nth(1).and_then(|s| s.split("\nequation").next()).unwrap();
    assert!(!initial.contains("if sin("), "{initial}");
    assert!(initial.contains("  Mc_1 = Vc * (p_atm + Pc_1_5) / (r_air * Tc_1_5);\n"), "{initial}");
}

/// Issue 31, point 1: a switch of a guard fixpoint fires at its guard's edge (exact, as
/// before) and also, from the mode it leaves (`pre(m)`), on its guard's level, with a
/// hysteresis of switching_band (1 + |a| + |b|), so a mode entered with its guard false
/// already is left at once: waiting for an edge of its own guard, which had risen while the
/// mass was in the air, kept ContactLeftAtOnce on the ground with a negative contact force.
/// The replicate of the mode entered then starts from the state replicate of the mode left,
/// read after its own `reinit` (omc's `pre(y)` in the second step of the event iteration
/// still held the multiplexer's value before the first).
#[test]
fn a_switch_follows_its_guard_from_the_mode_it_leaves() {
    let out = rewritten_with_guarantee("ContactLeftAtOnce.mo");
    assert!(out.contains("  elsewhen s_1 > 0 then\n    contact = true;\n  elsewhen s_2 < 0 then\n"), "{out}");
    assert!(
        out.contains(
            "  elsewhen not pre(contact) and s_1 > switching_band * (1 + abs(s_1)) then\n    contact = true;\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  elsewhen pre(contact) and s_2 < -switching_band * (1 + abs(s_2)) then\n    contact = false;\n"),
        "{out}"
    );
    assert!(out.contains("    reinit(y_1, if pre(contact) then y_2 else pre(y));\n"), "{out}");
    assert!(out.contains("    reinit(y_2, if not pre(contact) then y_1 else pre(y));\n"), "{out}");
    // A threshold that is not 0: the floor is added to the operands' magnitudes.
    let out = rewritten_with_guarantee("InitialConsistencyOnReplicates.mo");
    assert!(
        out.contains(
            "  elsewhen pre(b2) and x3_1 - x4 > 0.6733 + switching_band * (1 + abs(x3_1 - x4) + 0.6733) then\n"
        ),
        "{out}"
    );
    assert!(out.contains("  elsewhen x3_1 - x4 > 0.6733 then\n"), "{out}");
}

/// Issue 31, point 3: a switch the output writes counts its changes in a row while the
/// guard of the mode it is in stays within chatter_width hysteresis widths of its threshold,
/// and stops at chatter_limit with a message naming the mode (SlidingModeChatters ran on with
/// a change every 0.2 ms). The neighbourhood is the current mode's guard, on that mode's
/// replicates (the other mode's may be held, near their threshold for ever): one relation on
/// `if contact then … else …` operands, its negation written as the complementary relation
/// (issue 32: omc gives `not r` a zero-crossing of its own, and each costs it code).
#[test]
fn a_chattering_switch_stops_naming_its_mode() {
    let out = rewritten_with_guarantee("ContactLeftAtOnce.mo");
    assert!(out.contains("  Integer contact_chatter(start = 0, fixed = true) "), "{out}");
    assert!(out.contains("  parameter Integer chatter_limit = 100 "), "{out}");
    assert!(out.contains("  parameter Real chatter_width = 10 "), "{out}");
    assert!(
        out.contains(
            "  when change(contact) then\n    contact_chatter = pre(contact_chatter) + 1;\n  elsewhen abs(if contact then s_2 else s_1) >= chatter_width * switching_band * (1 + abs(if contact then s_2 else s_1)) then\n    contact_chatter = 0;\n  end when;\n"
        ),
        "{out}"
    );
    assert!(out.contains("  assert(contact_chatter < chatter_limit, \"the mode `contact` chatters: "), "{out}");
    // A guard fixpoint kept as a level equation: its guard as written.
    let out = rewritten_with_guarantee("SlidingModeChatters.mo");
    assert!(
        out.contains(
            "  elsewhen abs(x1) >= chatter_width * switching_band * (1 + abs(x1)) then\n    on_chatter = 0;\n"
        ),
        "{out}"
    );
    assert!(out.contains("  assert(on_chatter < chatter_limit, \"the mode `on` chatters: "), "{out}");
}

/// Issue 31, points 2 and 3: a mode entered through the user's impact law is left at once
/// where, after the law, the other mode's guard moves away from its threshold (a transient
/// mode: the ball bounces), unless that mode would be entered again at once by its level;
/// where it stays (a bounce below the hysteresis), the default inelastic restart follows one
/// step of the event iteration later, as `elsewhen c and pre(c)` branches of the `when`s that
/// already reinitialise those states: Modelica allows one `when` per reinitialised state, and
/// rumoca refused a second one.
#[test]
fn an_impact_law_makes_a_transient_mode_or_comes_to_rest() {
    let out = rewritten_with_guarantee("BouncingBallComesToRest.mo");
    assert!(
        out.contains(
            "  elsewhen pre(contact) and -y_p_1 < -switching_band * (1 + abs(-y_p_1)) and s_1 <= switching_band * (1 + abs(s_1)) then\n    contact = false;\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  when contact then\n    reinit(v, -e * pre(v));\n  elsewhen contact and pre(contact) then\n    reinit(v, restart_system(2, "),
        "{out}"
    );
    assert!(
        out.contains("    reinit(y_p_2, pre(y_p));\n  elsewhen contact and pre(contact) then\n    reinit(y_p_2, restart_system(1, "),
        "{out}"
    );
    assert_eq!(out.matches("reinit(v,").count(), 2, "{out}");
    // Without a transient exit (no guard fixpoint to leave), the law stays alone: no restart.
    let out = rewritten_with_guarantee("ClutchUserLaw.mo");
    assert!(!out.contains("and pre(g) then"), "{out}");
}

/// Issue 32, point 1: each valve of the Westinghouse brake is one system on its unknowns in the
/// output (`rimis/merge.rs`): the blocks of `open_i` and of `not open_i` merged, no replicate
/// or multiplexer of what they write, and the §4.2 guarantee kept (the merged equations are a
/// union of blocks of the output's triangular form, each regular in every mode).
#[test]
fn the_brake_valves_blocks_are_merged_onto_their_unknowns() {
    let text = fixture_text("scale/Westinghouse2.mo");
    let (out, _) = transform("Westinghouse2.mo", &text).unwrap();
    let groups = mdae_rimis::emit::merged_blocks(&out);
    assert_eq!(groups.len(), 2, "one merged system per valve:\n{out}");
    for k in [1, 2] {
        assert!(out.contains(&format!("the blocks of `open_{k}` and of `not open_{k}` as one system")), "{out}");
        assert!(!out.contains(&format!("fv_{k} = if open_{k} then")), "no multiplexer of fv_{k}:\n{out}");
        assert!(!out.contains(&format!("// fcl_{k} if")), "no replicate of fcl_{k}:\n{out}");
        // The closed valve's `fv = 0` stays a block of its own: the entering guard reads it.
        assert!(
            out.contains(&format!("  if pre(open_{k}) then\n    Pr_{k}_p = Pt_{k}_p;\n  else\n    fv_{k} = fv_{k}_")),
            "{out}"
        );
    }
    guarantee(&out, n_blocks("Westinghouse2", &text)).unwrap();
}

/// A group whose blocks read what depends on the unknowns they write, through a block outside
/// (campaign seed 5360: the block of `not b3` reads x1, which the block of `b2` computes from
/// x2, written by the blocks of `b3`), stays replicated: merged, its equations would form one
/// loop of the union's triangular form with that block, which the self-check refuses.
#[test]
fn a_group_that_reads_its_own_unknowns_through_the_model_stays_replicated() {
    let text = "model Campaign5360
  Real x1(start = 1.5, fixed = true);
  Real x2(start = 1);
  Real x3(start = 1.03);
  Real x4(start = 1, fixed = true);
  Real x5(start = 1.8, fixed = true);
  Boolean b1;
  Boolean b2;
  Boolean b3;
equation
  b1 = time >= 0.93;
  b2 = time >= 0.47;
  b3 = time >= 1.3;
  0 = if not b2 then der(x1) + 1.4*exp(-1.4*time) + 2.9*(x1 - (exp(-1.4*time) + 0.5)) elseif not b2 then x2 - cos(time) - 0.35*(x4 - cos(time))*x3 + 0.11*(x4 - cos(time)) else -0.71*(x1 - (exp(-1.4*time) + 0.5)) - 0.51*(x2 - cos(time)) - 0.28*(x4 - cos(time));
  0 = if b3 then -1.63*(x2 - cos(time)) - 0.66*(x2 - cos(time))*x4 - 0.58*(x3 - cos(time)) else 1.67*(x2 - cos(time));
  der(x4) = -sin(time) - 1.71*(x4 - cos(time)) - 0.81*(x1 - (exp(-1.4*time) + 0.5))*x3;
  if b3 and b3 then
    0 = der(x5) + 1.3*exp(-1.3*time) + 0.69*(x5 - (exp(-1.3*time) + 0.8));
    0 = -1.89*(x3 - cos(time)) + 0.33*(x2 - cos(time))*x3 + 0.86*(x4 - cos(time))*x5;
  else
    der(x5) = -1.3*exp(-1.3*time) - 3.21*(x5 - (exp(-1.3*time) + 0.8)) + 0.86*(x1 - (exp(-1.4*time) + 0.5))*x3;
    0 = x3 - cos(time) - 0.24*(x4 - cos(time))*x3 - 1.18*(x4 - cos(time));
  end if;
end Campaign5360;
";
    let (out, _) = transform("Campaign5360.mo", text).unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(mdae_rimis::emit::merged_blocks(&out).is_empty(), "{out}");
    // b3's blocks stay apart (its held block writes x2 and x3 itself: their multiplexers
    // were aliases of its replicates, `rimis/alias.rs`).
    assert!(out.contains("  if not b3 then\n    0 = x3_3 - cos(time)"), "b3's blocks stay apart:\n{out}");
    assert!(out.contains("  else\n    x2 = x2_3;\n    x3 = x3_3;\n"), "{out}");
    guarantee(&out, n_blocks("Campaign5360", text)).unwrap();
}

/// The self-check's reading of a merged group (`analysis::oblivious::meets_the_guarantee`):
/// its equations must be a union of blocks of the output's triangular form; one that shares a
/// block with an equation outside it is refused, naming that equation.
#[test]
fn a_merged_group_that_shares_a_block_with_the_model_is_refused() {
    let out = "model M
  Real x;
  Real y;
  Boolean b;
equation
  b = time > 0.5;
  // Blocks 1 2 merged: the blocks of `b` and of `not b` as one system on x
  if b then
    x = y + 1;
  else
    x = 2 * y;
  end if;
  // Block 3. x -- e3 -> y
  y = 0.5 * x + time;
end M;
";
    let m = driver::lower(&SourceFile::new("out.mo", out)).unwrap();
    let lines = mdae_rimis::emit::block_of_lines(out);
    let block_of = |line: u32| lines.get(line as usize - 1).copied().flatten();
    let merged = mdae_rimis::emit::merged_blocks(out);
    assert_eq!(merged, vec![vec![1, 2]]);
    let refused = analysis::oblivious::meets_the_guarantee(&m, 3, &block_of, &|_| false, &merged).unwrap_err();
    assert!(refused.contains("share a block of the output's triangular form"), "{refused}");
    // Without the loop through block 3, the same group meets it.
    let apart = out.replace("y = 0.5 * x + time;", "y = time;");
    let m = driver::lower(&SourceFile::new("out.mo", apart.as_str())).unwrap();
    let lines = mdae_rimis::emit::block_of_lines(&apart);
    let block_of = |line: u32| lines.get(line as usize - 1).copied().flatten();
    assert_eq!(analysis::oblivious::meets_the_guarantee(&m, 3, &block_of, &|_| false, &merged), Ok(()));
}

/// Issue 32, point 1 (what omc would eliminate as aliases, not introduced): a multiplexer
/// `u = if m then x else y` whose replicate x is written by a block guarded inside `m` that
/// holds y outside it equals x at every instant; it goes, and the block writes u. The
/// compressible building's open door: its block waits one step (`open_1 and (initial() or
/// pre(open_1))`) and holds the closed door's replicates; the closed door's blocks hold the
/// open door's state replicates — 10 of the room's 11 multiplexers go. Not where the block
/// is read on its left limit (`pre(b1)` is not inside `b1`: on the step where b1 changes the
/// multiplexer already selects the other side while the block still computes its own).
#[test]
fn a_multiplexer_of_a_held_replicate_is_an_alias() {
    let out = rewritten_with_guarantee("scale/BuildingCompressible2.mo");
    let multi = out.split("// MULTI: multiplexers\n").nth(1).and_then(|s| s.split("  // REPL").next()).unwrap_or("");
    assert_eq!(multi, "  eta_c_2 = if direction_2 then eta_c_2_37 else eta_c_2_38;\n", "{out}");
    assert!(
        out.contains("  if open_1 and (initial() or pre(open_1)) then\n    Mr_1_p = mu_in_1 - mu_out_1 + mu_door_1;\n"),
        "{out}"
    );
    assert!(out.contains("    Mr_1_p = Mr_1_p_4;\n"), "{out}");
    assert!(out.contains("    mu_door_1 = if open_1 then mu_door_1_5_left else mu_door_1_4;\n"), "{out}");
    assert!(
        out.contains(
            "  if not open_1 then\n    Mr_1 = Vr * (p_atm + Pr_1) / (r_air * Tr_1);\n  else\n    Pr_1 = Pr_1_5;\n"
        ),
        "{out}"
    );
    assert!(!out.contains("Mr_1_p_5") && !out.contains("Pr_1_4"), "{out}");
    // Read on its left limit: the multiplexers stay.
    let out = rewritten_with_guarantee("HeldThroughGuardFixpoint.mo");
    assert!(out.contains("  if pre(b1) then\n"), "{out}");
    assert!(out.contains("  x2 = if b1 then x2_2 else x2_1;\n"), "{out}");
}
