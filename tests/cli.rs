//! The binary as a user runs it: exit codes (0 ok, 1 rejected input, 2 usage or
//! I/O), diagnostics on stderr only, stdin, atomic `-o`, `--help`, `--version`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mdae-rimis"))
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn canonical_print_of_a_fixture() {
    let out = run(&["--emit", "canonical", fixture("omc-flat/WaterTank.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let expected = std::fs::read_to_string(fixture("omc-flat/WaterTank.mo")).unwrap();
    assert_eq!(text(&out.stdout), expected, "omc's own print is already canonical");
}

#[test]
fn the_default_action_prints_the_rimis_model() {
    let out = run(&[fixture("omc-flat/WaterTank.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "the WaterTank needs no warning: {}", text(&out.stderr));
    let o = text(&out.stdout);
    assert!(o.starts_with("// RIMIS of WaterTank"), "{o}");
    assert!(o.contains("  x_p = if bh then x_p_4 elseif bl then x_p_5 else x_p_3;\n"), "{o}");
    let explicit = run(&["--emit", "rimis", fixture("omc-flat/WaterTank.mo").to_str().unwrap()]);
    assert_eq!(explicit.stdout, out.stdout);
    // Warnings go to stderr, the model to stdout.
    let held = run(&[fixture("RestartLowerOrderHeld.mo").to_str().unwrap()]);
    assert_eq!(held.status.code(), Some(0));
    assert!(
        text(&held.stderr).contains("RestartLowerOrderHeld.mo: warning: restart not guaranteed: entering `not b1`")
    );
    assert!(!text(&held.stdout).contains("RestartLowerOrderHeld.mo: warning"));
    let clutch = run(&[fixture("ClutchBasic.mo").to_str().unwrap()]);
    assert_eq!(clutch.status.code(), Some(0));
    assert!(text(&clutch.stderr).contains("ClutchBasic.mo: note: restart computed: entering `g`"));
}

#[test]
fn batch_mode_transforms_every_file_of_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::copy(fixture("TwoEquations.mo"), input.join("TwoEquations.mo")).unwrap();
    std::fs::copy(fixture("WaterTank.mo"), input.join("sub/WaterTank.mo")).unwrap();
    std::fs::write(
        input.join("bad.mo"),
        "model M
  Real x(;
end M;
",
    )
    .unwrap();
    std::fs::write(input.join("notes.txt"), "not a model").unwrap();
    let out_dir = dir.path().join("out");
    let out = run(&["--out-dir", out_dir.to_str().unwrap(), input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "one file failed");
    let o = text(&out.stdout);
    let lines: Vec<&str> = o.lines().collect();
    assert_eq!(lines.len(), 4, "{o}");
    assert!(lines[0].starts_with("ok      ") && lines[0].contains("TwoEquations.mo"), "{o}");
    assert!(lines[1].starts_with("failed  ") && lines[1].contains("bad.mo:2:10: error"), "{o}");
    assert!(lines[2].starts_with("ok      ") && lines[2].contains("WaterTank.mo"), "{o}");
    assert_eq!(lines[3], "3 files: 2 transformed, 1 failed");
    let mut written: Vec<_> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    written.sort();
    assert_eq!(written, ["TwoEquations.mo", "sub"], "the outputs mirror the inputs' folders");
    let single = run(&[fixture("WaterTank.mo").to_str().unwrap()]);
    assert_eq!(std::fs::read(out_dir.join("sub/WaterTank.mo")).unwrap(), single.stdout, "same text as a single run");
    let usage = run(&[fixture("TwoEquations.mo").to_str().unwrap(), fixture("WaterTank.mo").to_str().unwrap()]);
    assert_eq!(usage.status.code(), Some(2), "several files need --out-dir");
}

#[test]
fn reads_stdin_with_dash_and_without_file() {
    let src = std::fs::read(fixture("TwoEquations.mo")).unwrap();
    let a = run_stdin(&["-"], &src);
    let b = run_stdin(&[], &src);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    assert!(text(&a.stdout).starts_with("// RIMIS of TwoEquations (mdae-rimis"), "{}", text(&a.stdout));
}

#[test]
fn syntax_error_is_located_on_stderr_with_exit_1() {
    let out = run_stdin(&["-"], b"model M\n  Real x\nequation\n  x = 1;\nend M;\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let err = text(&out.stderr);
    assert!(err.starts_with("<stdin>:3:1: error: expected `;`, found keyword `equation`"), "{err}");
    assert!(err.contains("3 │ equation"), "shows the source line: {err}");
    assert!(err.contains("^^^^^^^^"), "caret under the token: {err}");
}

#[test]
fn output_file_is_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.mo");
    let ok = run(&[fixture("RLDC2.mo").to_str().unwrap(), "-o", target.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(ok.stdout.is_empty());
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with("// RIMIS of RLDC2"), "{written}");

    // A failing run leaves the previous file untouched and no temporary behind.
    let bad = dir.path().join("bad.mo");
    std::fs::write(&bad, "model M\n  Real x(;\nend M;\n").unwrap();
    let fail = run(&[bad.to_str().unwrap(), "-o", target.to_str().unwrap()]);
    assert_eq!(fail.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), written);
    let fresh = dir.path().join("fresh.mo");
    let fail = run(&[bad.to_str().unwrap(), "-o", fresh.to_str().unwrap()]);
    assert_eq!(fail.status.code(), Some(1));
    assert!(!fresh.exists(), "no partial output");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "only out.mo and bad.mo: {names:?}");
}

#[test]
fn io_and_usage_errors_exit_2() {
    let missing = run(&["/nonexistent/model.mo"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/nonexistent/model.mo"));
    assert!(missing.stdout.is_empty());
    let bad_flag = run(&["--no-such-flag"]);
    assert_eq!(bad_flag.status.code(), Some(2));
    let bad_emit = run(&["--emit", "nonsense", "x.mo"]);
    assert_eq!(bad_emit.status.code(), Some(2));
    let unwritable = run(&[fixture("TwoEquations.mo").to_str().unwrap(), "-o", "/nonexistent/dir/out.mo"]);
    assert_eq!(unwritable.status.code(), Some(2));
}

#[test]
fn help_and_version() {
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let h = text(&help.stdout);
    assert!(h.contains("Examples:") && h.contains("--emit") && h.contains("--output"), "{h}");
    let version = run(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(text(&version.stdout).trim(), format!("mdae-rimis {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn rejected_inputs_exit_1() {
    let cases: [(&[u8], &str); 4] = [
        (b"", "<stdin>:1:1: error: expected a class definition, found end of file"),
        (b"model M\n  Real x = \"\xff\xfe\";\nend M;\n", "<stdin>:2:13: error: the file is not valid UTF-8"),
        (b"model M\n  extends Base;\nend M;\n", "<stdin>:2:3: error: unsupported construct `extends`"),
        (b"model M\n  Real x;\nend N;\n", "<stdin>:3:5: error: `end N` closes class `M`"),
    ];
    for (input, expected) in cases {
        let out = run_stdin(&["-"], input);
        assert_eq!(out.status.code(), Some(1), "{expected}");
        assert!(out.stdout.is_empty());
        let err = text(&out.stderr);
        assert!(err.starts_with(expected), "expected {expected:?}, got:\n{err}");
    }
}

/// Issue 13: the rewrite of the two-tank shape, whose blocks are emitted in parts, is
/// accepted and its own `--check` passes (index 0, every valid mode regular or asserted).
#[test]
fn the_rewrite_of_two_tank_ports_passes_its_check() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("TwoTankPorts.mo");
    let out = run(&[fixture("TwoTankPorts.mo").to_str().unwrap(), "-o", o.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&o).unwrap().contains("// Block 22, part 1 of 3."));
    let check = run(&["--check", o.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}{}", text(&check.stdout), text(&check.stderr));
}

#[test]
fn analysis_reports_and_the_exit_code_of_a_singular_model() {
    let ok = run(&["--check", fixture("omc-flat/WaterTank.mo").to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("blocks (13):"));
    assert!(ok.stderr.is_empty());

    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("cdg.dot");
    let bad =
        run(&["--report", "json", "--dot", dot.to_str().unwrap(), fixture("SingularOneMode.mo").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1), "a singular model is rejected");
    let json: serde_json::Value = serde_json::from_slice(&bad.stdout).expect("the JSON report still goes to stdout");
    assert_eq!(json["singular"][0]["when"], "g");
    assert_eq!(json["singular"][0]["underdetermined"][0], "v");
    let err = text(&bad.stderr);
    assert!(err.contains("SingularOneMode.mo:10:13: equation e2"), "located diagnostics on stderr: {err}");
    assert!(std::fs::read_to_string(&dot).unwrap().starts_with("digraph"));
}

/// Runs the binary under `sh` with `umask` set (the test process's umask is unknown).
fn run_with_umask(umask: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("umask {umask}; exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_mdae-rimis")).args(args);
    cmd.output().expect("runs")
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn output_file_mode_follows_the_umask_or_the_existing_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("TwoEquations.mo");
    let (a, b) = (dir.path().join("a.mo"), dir.path().join("b.mo"));
    let out = run_with_umask("022", &[model.to_str().unwrap(), "-o", a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(mode(&a), 0o644, "a new file: 0666 less the umask 022");
    let out = run_with_umask("077", &[model.to_str().unwrap(), "-o", b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(mode(&b), 0o600, "a new file: 0666 less the umask 077");
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = run_with_umask("000", &[model.to_str().unwrap(), "-o", a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(mode(&a), 0o640, "an existing file keeps its mode");
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o664)).unwrap();
    let out = run_with_umask("077", &[model.to_str().unwrap(), "-o", a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(mode(&a), 0o664, "an existing file keeps its mode whatever the umask");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

#[test]
fn a_rejected_input_writes_nothing_a_singular_model_writes_its_reports() {
    let dir = tempfile::tempdir().unwrap();
    let singular = fixture("SingularOneMode.mo");
    let (o, dot) = (dir.path().join("o.txt"), dir.path().join("g.dot"));
    // The main job on a model singular in every mode: rejected, nothing written.
    let everywhere = fixture("SingularAllModes.mo");
    let out = run(&[everywhere.to_str().unwrap(), "-o", o.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("structurally singular in every valid mode"), "{}", text(&out.stderr));
    assert!(!o.exists(), "the RIMIS job writes nothing for a model singular in every mode");
    // Singular in some modes: written, with an assert that stops the simulation there.
    let out = run(&[singular.to_str().unwrap(), "-o", o.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("warning: model SingularOneMode is structurally singular when g"));
    let written = std::fs::read_to_string(&o).unwrap();
    assert!(written.contains("assert(not g, \"mdae-rimis: model SingularOneMode is structurally singular when g: overdetermined equations [e2, e3]"), "{written}");
    std::fs::remove_file(&o).unwrap();
    // Its analysis reports are its diagnosis: written, exit 1 (--help and README say so).
    for args in [&["--check"][..], &["--report", "json"][..], &["--check", "--report", "json"][..]] {
        let mut all = args.to_vec();
        all.extend([singular.to_str().unwrap(), "-o", o.to_str().unwrap(), "--dot", dot.to_str().unwrap()]);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "the report went to -o");
        let written = std::fs::read_to_string(&o).unwrap();
        if args.contains(&"json") {
            let json: serde_json::Value =
                serde_json::from_str(&written).expect("the JSON alone, with or without --check");
            assert_eq!(json["singular"][0]["when"], "g");
        } else {
            assert!(written.contains("SINGULAR when g"), "{written}");
        }
        assert!(std::fs::read_to_string(&dot).unwrap().starts_with("digraph"));
        std::fs::remove_file(&o).unwrap();
        std::fs::remove_file(&dot).unwrap();
    }
    // A rejected input (here a syntax error) writes neither the report nor the dot file.
    let bad = dir.path().join("bad.mo");
    std::fs::write(&bad, "model M\n  Real x(;\nend M;\n").unwrap();
    let out = run(&["--check", bad.to_str().unwrap(), "-o", o.to_str().unwrap(), "--dot", dot.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!o.exists() && !dot.exists());
    let help = text(&run(&["--help"]).stdout);
    assert!(help.contains("When the input is rejected nothing") && help.contains("they are still written"), "{help}");
}

#[test]
fn check_with_report_json_prints_the_json_alone() {
    let out = run(&["--check", "--report", "json", fixture("TwoEquations.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!(json["model"], "TwoEquations");
}

/// Do no harm: a model whose equations are solved for the same variables in every mode
/// (only what they read changes) is one a tool that analyses once gets right: `--check`
/// and the JSON say so, and the main job passes it unchanged; the papers' models are not.
#[test]
fn a_model_one_analysis_gets_right_is_reported_and_passed_unchanged() {
    let src = "model M\n  Real x(start = 1);\n  Real y;\nequation\n  der(x) = -y;\n  y = if noEvent(x > 0.5) then 2 * x else time;\nend M;\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.mo");
    std::fs::write(&path, src).unwrap();
    let path = path.to_str().unwrap();
    let check = text(&run(&["--check", path]).stdout);
    assert!(check.contains("one structural analysis fits every mode"), "{check}");
    let json: serde_json::Value = serde_json::from_slice(&run(&["--check", "--report", "json", path]).stdout).unwrap();
    assert_eq!(json["one_analysis_fits"], true);
    let out = text(&run(&[path]).stdout);
    assert!(out.contains("// The model is unchanged: one structural analysis") && !out.contains("// REPL"), "{out}");
    for paper in ["TwoEquations.mo", "WaterTank.mo", "ClutchBasic.mo"] {
        let json: serde_json::Value =
            serde_json::from_slice(&run(&["--check", "--report", "json", fixture(paper).to_str().unwrap()]).stdout)
                .unwrap();
        assert_eq!(json["one_analysis_fits"], false, "{paper}");
        assert!(!text(&run(&["--check", fixture(paper).to_str().unwrap()]).stdout).contains("one structural analysis"));
    }
}

#[test]
fn the_explicit_strategy_over_its_limit_names_the_file_and_the_way_out() {
    let mut src = String::from("model Many\n  Real y;\n");
    for k in 0..30 {
        src.push_str(&format!("  Real x{k};\n  Boolean b{k};\n"));
    }
    src.push_str("equation\n  y = time;\n");
    for k in 0..30 {
        src.push_str(&format!("  b{k} = time > {k};\n  x{k} = if b{k} then 1 else y;\n"));
    }
    src.push_str("end Many;\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.mo");
    std::fs::write(&path, src).unwrap();
    let out = run(&["--strategy", "explicit", "--check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    // Located at the model's first equation (line 64: `y = time;`).
    assert!(
        err.starts_with(&format!("{}:64:3: error: the explicit strategy enumerates at most", path.display())),
        "{err}"
    );
    assert!(err.contains("--strategy implicit"), "{err}");
    let ok = run(&["--strategy", "implicit", "--check", path.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
}

/// Issue 13: unknowns that are array and record elements (`r[1,1]`, `s[1].v`, `q[1]`) are
/// renamed in the blocks that write them, so the main job's output passes `--check` (before,
/// the rewrite was refused; on Rotational's LossyGear it was emitted, singular in some modes).
/// The old output of that kind (`check/UnwrittenReplicate.mo`) fails `--check`.
#[test]
fn outputs_with_subscripted_unknowns_pass_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("SubscriptedUnknowns_rimis.mo");
    let job = run(&["-o", out.to_str().unwrap(), fixture("SubscriptedUnknowns.mo").to_str().unwrap()]);
    assert_eq!(job.status.code(), Some(0), "{}", text(&job.stderr));
    let check = run(&["--check", out.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}{}", text(&check.stdout), text(&check.stderr));
    assert!(text(&check.stdout).contains("structurally nonsingular in every valid mode"));

    let old = run(&["--check", fixture("check/UnwrittenReplicate.mo").to_str().unwrap()]);
    assert_eq!(old.status.code(), Some(1), "{}", text(&old.stderr));
    assert!(
        text(&old.stderr).contains("is structurally singular when not p: overdetermined equations"),
        "{}",
        text(&old.stderr)
    );
}

/// Issue 17: `--check` lists the algebraic loops through discrete variables. The RIMIS
/// output of CupAndBall as it was before issue 17 has one through a when-equation (omc
/// refuses to build it): `--check` fails on it and names it; today's output has none;
/// the input has a level one (omc iterates on it): a warning, exit 0.
#[test]
fn check_reports_loops_through_discrete_variables() {
    let old = run(&["--check", fixture("check/CupAndBallWhenLoop.mo").to_str().unwrap()]);
    assert_eq!(old.status.code(), Some(1), "{}", text(&old.stderr));
    let report = text(&old.stdout);
    assert!(
        report.contains("discrete loops (1):\n  ERROR: algebraic loop through discrete variable(s) gamma"),
        "{report}"
    );
    assert!(report.contains("CupAndBallWhenLoop.mo:75:3: if gamma then"), "{report}");
    assert!(text(&old.stderr).contains("has an algebraic loop through a when-equation"), "{}", text(&old.stderr));

    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("CupAndBall_rimis.mo");
    let out = run(&["-o", fixed.to_str().unwrap(), fixture("CupAndBall.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let now = run(&["--check", fixed.to_str().unwrap()]);
    assert_eq!(now.status.code(), Some(0), "{}", text(&now.stderr));
    assert!(text(&now.stdout).ends_with("discrete loops: none\n"), "{}", text(&now.stdout));

    let input = run(&["--check", fixture("CupAndBall.mo").to_str().unwrap()]);
    assert_eq!(input.status.code(), Some(0));
    assert!(text(&input.stdout).contains("  warning: algebraic loop through discrete variable(s) gamma"));

    let json = run(&["--report", "json", fixture("check/CupAndBallWhenLoop.mo").to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["discrete_loops"]["checked"], true);
    assert_eq!(v["discrete_loops"]["loops"][0]["variables"][0], "gamma");
    assert_eq!(v["discrete_loops"]["loops"][0]["through_when"], true);
}

/// Issue 14, point 6: the impulse analysis of paper 000 §6 per mode change, in `--check`
/// and `--report json`: the clutch's torques and the rope's tension are impulsive of
/// order 1 (§5.1, eq. 40), the states whose highest order jumps are listed; a mode change
/// without a restart system says why.
#[test]
fn check_and_json_list_the_impulsive_variables_per_mode_change() {
    let clutch = run(&["--check", fixture("ClutchBasic.mo").to_str().unwrap()]);
    assert_eq!(clutch.status.code(), Some(0), "{}", text(&clutch.stderr));
    let t = text(&clutch.stdout);
    assert!(t.contains("mode changes needing a restart (1):\n  entering g (restores e3; restart computed)\n    impulsive: f1 (order 1), f2 (order 1)\n    jumps: w1 w2\n"), "{t}");
    let cup = run(&["--check", fixture("CupAndBall.mo").to_str().unwrap()]);
    let t = text(&cup.stdout);
    assert!(
        t.contains("entering gamma (restores k1'; restart computed)\n    impulsive: lambda (order 1), s (order 1)\n"),
        "{t}"
    );
    let tank = run(&["--check", fixture("WaterTank.mo").to_str().unwrap()]);
    assert!(text(&tank.stdout).contains("mode changes needing a restart: none\n"), "{}", text(&tank.stdout));
    let json = run(&["--report", "json", fixture("CupAndBall.mo").to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let mc = &v["mode_changes"][0];
    assert_eq!(mc["entering"], "gamma");
    assert_eq!(mc["restores"][0], "k1'");
    assert_eq!(mc["no_restart"], serde_json::Value::Null);
    assert_eq!(mc["impulsive"][0]["variable"], "lambda");
    assert_eq!(mc["impulsive"][0]["order"], 1);
    assert_eq!(mc["jumps"], serde_json::json!(["x'", "y'", "u", "v"]));
    // Not linear in its unknowns (issue 29): solved by Newton's method, and said so.
    let nl = run(&["--report", "json", fixture("RestartNotLinear.mo").to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&nl.stdout).expect("JSON");
    assert_eq!(v["mode_changes"][0]["no_restart"], serde_json::Value::Null, "{v}");
    assert_eq!(v["mode_changes"][0]["iterated"], true, "{v}");
    assert!(cup.status.success());
    let nl_check = run(&["--check", fixture("RestartNotLinear.mo").to_str().unwrap()]);
    assert!(
        text(&nl_check.stdout).contains("entering gamma (restores k1'; restart computed by Newton's method, checked)"),
        "{}",
        text(&nl_check.stdout)
    );
    assert!(!text(&cup.stdout).contains("by Newton's method"), "CupAndBall's restart is linear");
    assert_eq!(
        v["mode_changes"][0]["unbalanced"],
        serde_json::json!(["e1", "e2"]),
        "sinh of an impulse has infinite order (eq. 46)"
    );
}

/// Issue 14, point 4: the brake's valve opens exactly when `Pr_i - Pt_i` crosses 0 (the guard
/// `F1*(Pr_i - Pt_i) + fv_i > 0` with `fv_i = 0` before): the switch makes the open mode's
/// consistency equation true (parameter coefficients compared at generic values), so no
/// restart is needed and none is reported missing.
#[test]
fn westinghouse_valves_open_on_their_consistency_surface() {
    let out = run(&[fixture("scale/Westinghouse2.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("restart not guaranteed"), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("CHECK:"), "no consistency assert is needed");
    let check = run(&["--check", fixture("scale/Westinghouse2.mo").to_str().unwrap()]);
    assert!(text(&check.stdout).contains("mode changes needing a restart: none\n"), "{}", text(&check.stdout));
}

/// Issue 14, point 3: an impact law declared by the user in a `when` on the entered mode
/// (paper 000 §5.2.4) is kept and honoured: no default restart system fights it at the same
/// event (rumoca refuses two reinitialisations of w1), and the region's consistency is still
/// asserted after the switch.
#[test]
fn an_impact_law_declared_by_the_user_replaces_the_default_restart() {
    let out = run(&[fixture("ClutchUserLaw.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let model = text(&out.stdout);
    assert!(model.contains("when g then\n    reinit(w1, pre(w2));\n  end when;"), "{model}");
    assert!(!model.contains("restart_system"), "no default restart: {model}");
    assert_eq!(model.matches("reinit(").count(), 1, "{model}");
    assert!(model.contains("assert(not g or noEvent(abs(w2 - w1)"), "{model}");
    assert!(text(&out.stderr).contains("impact law of the input's `when g`"), "{}", text(&out.stderr));
    let check = run(&["--check", fixture("ClutchUserLaw.mo").to_str().unwrap()]);
    assert!(
        text(&check.stdout).contains("entering g (restores e3; no restart: the impact law"),
        "{}",
        text(&check.stdout)
    );
}

/// Issue 14, point 4: entering `ga`, the impulse through shaft 2 reaches clutch b, engaged
/// or not: one restart system per part of the region where that structure is uniform, each
/// with its own impulse analysis (the torque of clutch b is impulsive only where it is
/// engaged), instead of no restart.
#[test]
fn a_region_whose_structure_varies_gets_a_restart_per_part() {
    let out = run(&[fixture("ClutchChain.mo").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("restart not guaranteed"), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("CHECK:"), "every entry restarts: no assert");
    assert!(text(&out.stdout).contains("reinit(w3, if ga and not gb then restart_system(3,"), "{}", text(&out.stdout));
    let check = text(&run(&["--check", fixture("ClutchChain.mo").to_str().unwrap()]).stdout);
    assert!(
        check.contains(
            "  entering ga and not gb (restores ea; restart computed)\n    impulsive: fa (order 1)\n    jumps: w1 w2\n"
        ),
        "{check}"
    );
    assert!(check.contains("  entering ga and gb (restores ea; restart computed)\n    impulsive: fa (order 1), fb (order 1)\n    jumps: w1 w2 w3\n"), "{check}");
}

/// Issue 13 (KinematicPTP): Reals computed from parameters only, partly in an if-equation
/// on a condition of them, are known to the continuous part: the analysis sees the 4
/// unknowns of the motion (not the 10 parameter equations, whose differentiation left the
/// rewrite of every KinematicPTP user with index reduction), the model passes through
/// unchanged without warnings, and its equations are emitted as written.
#[test]
fn reals_computed_from_parameters_only_are_known_and_pass_through() {
    let model = fixture("ParameterEquations.mo");
    let check = run(&["--check", model.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let report = text(&check.stdout);
    assert!(report.starts_with("model ParameterEquations: 4 equations, 4 unknowns"), "{report}");
    assert!(report.contains("structure classes (1):"), "{report}");
    let out = run(&[model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("its structure does not depend on the mode") && !err.contains("warning"), "{err}");
    let emitted = text(&out.stdout);
    for eq in ["aux1 = q_end / qd_max;", "Ta1 = sqrt(1.0 / sdd_max);", "noWphase = Ta2 >= Ta1;"] {
        assert!(emitted.contains(eq), "`{eq}` passes through: {emitted}");
    }
}

/// Issue 29 point 4: `--check` of an output reports its initial system in every mode the
/// model may start in, `--report json` under `initial_system`; an output with a `fixed`
/// removed gets a warning on stderr, and the exit code stays 0 (an input's incomplete
/// initial system is only reported: omc completes it from start values).
#[test]
fn check_reports_the_initial_system_of_every_mode_the_model_may_start_in() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("ClutchAnglesReleased.mo");
    let out = run(&[fixture("ClutchAnglesReleased.mo").to_str().unwrap(), "-o", o.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let path = o.to_str().unwrap();
    let check = run(&["--check", path]);
    assert_eq!(check.status.code(), Some(0));
    assert!(
        text(&check.stdout).contains(
            "initial system: the model may start where g (at t = 0: g = true (`time < 0.5` at t = 0))\n  determined in every mode it may start in\n"
        ),
        "{}",
        text(&check.stdout)
    );
    assert!(check.stderr.is_empty(), "{}", text(&check.stderr));
    let json: serde_json::Value = serde_json::from_slice(&run(&["--report", "json", path]).stdout).unwrap();
    assert_eq!(json["initial_system"]["verdict"], "determined", "{json}");
    assert_eq!(json["initial_system"]["starts_in"], "g");
    let written = std::fs::read_to_string(&o).unwrap();
    std::fs::write(&o, written.replace("Real phi1_1(start = 0, fixed = true);", "Real phi1_1(start = 0);")).unwrap();
    let check = run(&["--check", path]);
    assert_eq!(check.status.code(), Some(0), "no exit code of its own");
    assert!(
        text(&check.stdout)
            .contains("  not determined in every mode it may start in: underdetermined by 1 in [phi1_1]\n"),
        "{}",
        text(&check.stdout)
    );
    assert!(
        text(&check.stderr).contains("warning: the initial system of model ClutchAnglesReleased is not determined")
    );
    let json: serde_json::Value = serde_json::from_slice(&run(&["--report", "json", path]).stdout).unwrap();
    assert_eq!(json["initial_system"]["verdict"], "not_determined", "{json}");
    assert_eq!(json["initial_system"]["failures"][0]["underdetermined"][0], "phi1_1");
    // An input leaving a state without an initial value: reported, nothing on stderr.
    let input = dir.path().join("M.mo");
    std::fs::write(&input, "model M\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend M;\n").unwrap();
    let check = run(&["--check", input.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0));
    assert!(text(&check.stdout).contains("underdetermined by 1 in [x, der(x)]"), "{}", text(&check.stdout));
    assert!(check.stderr.is_empty(), "{}", text(&check.stderr));
}

/// Issue 31 point 4: `--check` and `--report json` say where an impact law of the user makes
/// the mode entered a transient one, and how the output simulates it; not without a law.
#[test]
fn check_reports_a_transient_mode_change() {
    let path = fixture("BouncingBallComesToRest.mo");
    let printed = text(&run(&["--check", path.to_str().unwrap()]).stdout);
    assert!(
        printed.contains("  entering contact (restores e19'; restart computed)\n    transient mode: the impact law of `when contact` applies, and the mode is left at once"),
        "{printed}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["--check", "--report", "json", path.to_str().unwrap()]).stdout).unwrap();
    let how = json["mode_changes"][0]["transient"].as_str().unwrap_or_default();
    assert!(how.contains("left at once") && how.contains("at rest"), "{json}");
    let json: serde_json::Value = serde_json::from_slice(
        &run(&["--check", "--report", "json", fixture("CupAndBall.mo").to_str().unwrap()]).stdout,
    )
    .unwrap();
    let changes = json["mode_changes"].as_array().unwrap();
    assert!(!changes.is_empty() && changes.iter().all(|c| c.get("transient").is_none()), "{json}");
}
