//! The validation pass (`src/validate/`): it refuses what is certainly wrong and nothing
//! else.
//!
//! - Conservative: zero errors on every model of `../shared/corpus/omc-flat` and
//!   `../shared/corpus/msl-flat` (1,901 files OpenModelica printed) and on every fixture.
//! - Each reproducer of issue 16 (`fixtures/invalid/`, README there) gets what its row
//!   expects, through the binary: exit code and located diagnostic.
//! - One test per check on small models: what it refuses, and the nearby valid forms it
//!   must accept (omc's flat notations).

mod common;

use mdae_rimis::syntax::{self, SourceFile};
use mdae_rimis::validate::{self, Diagnostic, Kind, Severity};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mo_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "mo")).collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The errors and warnings of the validation of every parsable file of `files`.
fn validate_all(files: &[PathBuf]) -> (usize, Vec<String>, Vec<String>) {
    let (mut checked, mut errors, mut warnings) = (0, Vec::new(), Vec::new());
    for p in files {
        let text = std::fs::read_to_string(p).unwrap();
        let file = SourceFile::new(p.display().to_string(), text);
        let Ok(def) = syntax::parse(&file.text) else { continue };
        checked += 1;
        for d in validate::validate(&def) {
            let line = format!("[{}] {}", d.kind.code(), d.short(&file));
            match d.severity {
                Severity::Error => errors.push(line),
                Severity::Warning => warnings.push(line),
            }
        }
    }
    (checked, errors, warnings)
}

fn summary(lines: &[String]) -> String {
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for l in lines {
        *by_code.entry(l.split(']').next().unwrap_or("")).or_default() += 1;
    }
    format!("{by_code:?}")
}

#[test]
fn no_error_on_any_model_openmodelica_printed_or_any_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in
        ["../shared/corpus/omc-flat", "../shared/corpus/msl-flat", "fixtures", "fixtures/omc-flat", "fixtures/scale"]
    {
        files.extend(mo_files(&root.join(dir)));
    }
    let (checked, errors, warnings) = common::in_big_thread(move || validate_all(&files));
    println!(
        "validated {checked} files: {} errors {}, {} warnings {}",
        errors.len(),
        summary(&errors),
        warnings.len(),
        summary(&warnings)
    );
    for w in &warnings {
        println!("  {w}");
    }
    assert!(errors.is_empty(), "{} errors:\n{}", errors.len(), errors.join("\n"));
}

// ---------------------------------------------------------------- the reproducers

fn invalid(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/invalid").join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdae-rimis")).args(args).output().expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What one reproducer must give: the exit code and the start of the first diagnostic
/// (after the file name), plus text the rendering must contain.
struct Row {
    file: &'static str,
    args: &'static [&'static str],
    exit: i32,
    first: &'static str,
    contains: &'static [&'static str],
}

const ROWS: &[Row] = &[
    Row {
        file: "undeclared_rhs.mo",
        args: &[],
        exit: 1,
        first: ":4:7: error: `y` is not declared",
        contains: &["V-undeclared"],
    },
    Row {
        file: "dup_decl.mo",
        args: &[],
        exit: 1,
        first: ":2:16: error: `x` is declared twice",
        contains: &["first declared here", "V-duplicate"],
    },
    Row {
        file: "bool_assigned_twice.mo",
        args: &[],
        exit: 1,
        first: ":5:3: error: this equation defines `b` again",
        contains: &["4 │   b = time > 1;", "`b` is defined by this equation", "5 │   b = time > 2;"],
    },
    Row {
        file: "bool_no_equation.mo",
        args: &[],
        exit: 0,
        first: ":2:19: warning: no equation defines the Boolean `b`: it is taken as a known input",
        contains: &["declare it `input`"],
    },
    Row {
        file: "declare_time.mo",
        args: &[],
        exit: 1,
        first: ":2:8: error: `time` is the built-in simulation time; it cannot be declared",
        contains: &["V-builtin"],
    },
    Row {
        file: "real_as_condition.mo",
        args: &[],
        exit: 1,
        first: ":5:10: error: the condition `y` is a Real, not a Boolean",
        contains: &["V-type"],
    },
    Row {
        file: "initial_overdetermined.mo",
        args: &[],
        exit: 1,
        first: ":6:3: error: the initial system is overdetermined and inconsistent: `x` = 2 and `x` = 3; 5 equations for 2 unknowns (x, der(x))",
        contains: &[
            "fixed = true: the start value is an initial equation",
            "4 │   x = 2;",
            "5 │   der(x) = 0;",
            "8 │   der(x) = -x;",
        ],
    },
    Row {
        file: "when_bool_and_cont_assign.mo",
        args: &[],
        exit: 1,
        first: ":4:3: error: `b` is defined both by this equation and by a when-equation",
        contains: &["`b` is defined by this when-equation"],
    },
    Row {
        file: "reparse_newline_in_quoted_ident.mo",
        args: &[],
        exit: 1,
        first: ":1:9: error: a quoted identifier cannot contain a line break",
        contains: &[],
    },
    Row { file: "reparse_if128.mo", args: &[], exit: 0, first: "", contains: &[] },
    Row {
        // The main job passes it unchanged without analysing its modes (one analysis fits
        // them all, `fits_a_priori`); the analysis job refuses, located at its first equation.
        file: "unlocated_explicit_40modes.mo",
        args: &["--strategy", "explicit", "--check"],
        exit: 1,
        first: ":5:3: error: the explicit strategy enumerates at most 2^24 modes; this model has 40 mode variables and atoms",
        contains: &["use --strategy implicit"],
    },
];

#[test]
fn every_reproducer_gets_what_its_row_expects() {
    let mut listed: Vec<&str> = ROWS.iter().map(|r| r.file).collect();
    listed.sort();
    let mut present: Vec<String> =
        mo_files(&invalid("")).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    present.sort();
    assert_eq!(listed, present, "one row per file of fixtures/invalid");
    for row in ROWS {
        let path = invalid(row.file);
        let path = path.to_str().unwrap();
        let mut args = row.args.to_vec();
        args.push(path);
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(row.exit), "{}: {err}", row.file);
        if row.first.is_empty() {
            assert!(!err.contains("error") && !err.contains("warning"), "{}: {err}", row.file);
        } else {
            assert!(err.starts_with(&format!("{path}{}", row.first)), "{}:\n{err}", row.file);
        }
        for c in row.contains {
            assert!(err.contains(c), "{}: `{c}` missing in\n{err}", row.file);
        }
        if row.exit == 0 {
            // Every accepted input prints to an output the tool re-reads.
            let dir = tempfile::tempdir().unwrap();
            let o = dir.path().join("out.mo");
            std::fs::write(&o, &out.stdout).unwrap();
            let again = run(&["--emit", "canonical", o.to_str().unwrap()]);
            assert_eq!(
                again.status.code(),
                Some(0),
                "{}: the output does not re-parse: {}",
                row.file,
                text(&again.stderr)
            );
        }
    }
}

// ---------------------------------------------------------------- each check

fn diagnostics(src: &str) -> Vec<Diagnostic> {
    let def = syntax::parse(src).unwrap_or_else(|e| panic!("{}", e.render(&SourceFile::new("t.mo", src))));
    validate::validate(&def)
}

/// The diagnostics as `line:col severity code: message`.
fn found(src: &str) -> Vec<String> {
    let file = SourceFile::new("t.mo", src);
    diagnostics(src)
        .iter()
        .map(|d| {
            let (l, c) = file.line_col(d.span.start as usize);
            let sev = if d.severity == Severity::Error { "error" } else { "warning" };
            format!("{l}:{c} {sev} {}: {}", d.kind.code(), d.message)
        })
        .collect()
}

fn model(body: &str) -> String {
    format!("model M\n{body}\nend M;\n")
}

fn assert_clean(src: &str) {
    let f = found(src);
    assert!(f.is_empty(), "expected no diagnostic for\n{src}\ngot {f:#?}");
}

fn assert_one(src: &str, expected: &str) {
    let f = found(src);
    assert!(f.len() == 1 && f[0].starts_with(expected), "expected `{expected}` for\n{src}\ngot {f:#?}");
}

#[test]
fn names_resolve_through_omc_notations() {
    // Scalarised elements, real arrays, records and their fields, dotted component names,
    // iterators, enumeration literals through type paths, package paths, built-ins.
    let complex = "record Complex\n  Real re;\n  Real im;\nend Complex;\n";
    assert_clean(&format!(
        "{complex}{}",
        model(
            "  Real x[1];\n  Real x[2];\n  Real y[3];\n  Complex v;\n  Real a.b.c;\n  parameter Integer n = 3;\n  \
         enumeration(A, B) e = Modelica.Types.E.B;\n  Real s(stateSelect = StateSelect.prefer);\n  Real w;\n\
         equation\n  x[1] = x[2] + y[2] + sum(y[i] for i in 1:n);\n  x[2] = v.re + a.b.c + Modelica.Constants.pi;\n  \
         v = Complex(time, 0);\n  a.b.c = sin(time) + der(s);\n  for i in 1:3 loop\n    y[i] = i;\n  end for;\n  \
         s = w;\n  w = if e == Modelica.Types.E.A then 1 else 2;",
        )
    ));
    assert_one(&model("  Real x;\nequation\n  x = y;"), "4:7 error V-undeclared: `y` is not declared");
    assert_one(&model("  Real a.b;\n  Real x;\nequation\n  x = a.c;"), "5:7 error V-undeclared: `a.c` is not declared");
    assert_one(
        &model("  Real x(stateSelect = StateSelect.sometimes);\nequation\n  x = 1;"),
        "2:24 error V-literal: the enumeration `StateSelect` has no literal `sometimes`",
    );
    assert_one(
        "type E = enumeration(a, b);\nmodel M\n  E e;\nequation\n  e = E.c;\nend M;\n",
        "5:7 error V-literal: the enumeration `E` has no literal `c`",
    );
    assert_clean("type E = enumeration(a, b);\nmodel M\n  E e;\nequation\n  e = E.b;\nend M;\n");
}

#[test]
fn duplicates_and_time() {
    assert_one(
        &model("  Real x;\n  Real x(start = 1);\nequation\n  x = 1;"),
        "3:8 error V-duplicate: `x` is declared twice",
    );
    assert_clean(&model("  Real x[1];\n  Real x[2];\nequation\n  x[1] = 1;\n  x[2] = 2;"));
    assert_one(&model("  parameter Real time = 1;"), "2:18 error V-builtin: `time` is the built-in simulation time");
}

#[test]
fn functions_are_defined_or_built_in() {
    let f = "function f\n  input Real u;\n  output Real y;\nalgorithm\n  y := u;\nend f;\n";
    assert_clean(&format!("{f}{}", model("  Real x;\nequation\n  x = f(time) + sin(time) + $OMC$PositiveMax(1, 2);")));
    assert_one(
        &format!("{f}{}", model("  Real x;\nequation\n  x = g(time);")),
        "10:7 error V-function: function `g` is neither defined in this file nor a built-in",
    );
    // A file without any function: omc prints some models so; a warning.
    assert_one(&model("  Real x;\nequation\n  x = g(time);"), "4:7 warning V-function: function `g`");
    // An operator of a record the file defines.
    let complex = "record Complex\n  Real re;\n  Real im;\nend Complex;\n";
    assert_clean(&format!(
        "{complex}{}",
        model("  Complex a;\n  Complex b;\nequation\n  a = Complex.'+'(b, b);\n  b = Complex(1, 2);")
    ));
}

#[test]
fn types_of_conditions_equations_and_bindings() {
    assert_one(
        &model("  Real x;\n  Integer k;\nequation\n  x = if k then 1 else 2;\n  k = 1;"),
        "5:10 error V-type: the condition `k` is an Integer",
    );
    assert_one(
        &model("  Real x;\nequation\n  when x then\n    reinit(x, 0);\n  end when;\n  der(x) = 1;"),
        "4:8 error V-type: the condition `x` is a Real",
    );
    assert_one(
        &model("  Integer k;\nequation\n  k = 3.5;"),
        "4:3 error V-type: type mismatch in the equation: `k` is an Integer, `3.5` is a Real",
    );
    assert_one(
        &model("  Boolean b;\nequation\n  b = 1;"),
        "4:3 error V-type: type mismatch in the equation: `b` is a Boolean, `1` is an Integer",
    );
    assert_one(&model("  parameter Integer n = 2.5;"), "2:25 error V-type: type mismatch in the binding of `n`");
    // omc's forms: an Integer compared with a Real, a Real set to an Integer, `k = 2.0`.
    assert_clean(&model(
        "  Real x;\n  Integer k;\n  Integer j;\n  Boolean b;\nequation\n  x = k;\n  k = 2.0;\n  j = integer(x);\n  b = k > x;",
    ));
}

#[test]
fn when_targets_are_variables() {
    assert_one(
        &model("  Real x;\n  Real y;\nequation\n  x = time;\n  when x > 1 then\n    y + 1 = 2;\n  end when;"),
        "7:5 error V-type: the left-hand side `y + 1` of an equation in a when-clause is not a variable",
    );
    assert_one(
        &model("  parameter Real p = 1;\nequation\n  when time > 1 then\n    p = 2;\n  end when;"),
        "5:5 error V-type: a when-clause assigns `p`, which is a parameter or a constant",
    );
    // A clocked when holds any equations.
    assert_clean(&model(
        "  Real x;\n  Real y;\nequation\n  when Clock(0.1) then\n    x + y = 0;\n    x - y = 0;\n  end when;",
    ));
}

#[test]
fn discrete_variables_are_defined_once() {
    // Connections are written both ways: `a = b` defines `b` here.
    assert_clean(&model(
        "  Real x;\n  Boolean a;\n  Boolean b;\n  Integer k;\nequation\n  a = b;\n  a = time > 1;\n  x = if b then 1 else 2;\n  \
         when sample(0, 1) then\n    k = pre(k) + 1;\n  end when;",
    ));
    assert_one(
        &model(
            "  Real x;\n  Integer k;\nequation\n  x = k;\n  when time > 1 then\n    k = 1;\n  end when;\n  when time > 2 then\n    k = 2;\n  end when;",
        ),
        "10:5 error V-discrete: `k` is defined twice: by a when-equation and by a when-equation",
    );
    // A model that is not balanced gets a warning only (omc's front-end tests are such).
    assert_one(
        &model("  Integer k = 2;\nequation\n  k = 3;"),
        "4:3 warning V-discrete: this equation defines `k` again",
    );
}

#[test]
fn parameter_bindings_are_acyclic() {
    assert_one(
        &model("  parameter Real a = 2 * b;\n  parameter Real b = a + c;\n  parameter Real c = 1;"),
        "2:18 error V-cycle: the bindings of `a`, `b` depend on themselves",
    );
    assert_one(&model("  parameter Real p = p + 1;"), "2:18 error V-cycle: the bindings of `p` depend on themselves");
    assert_clean(&model("  parameter Real a[1] = 1;\n  parameter Real a[2] = a[1] * 2;\n  parameter Real b = sum(a);"));
}

#[test]
fn the_initial_system_is_not_overdetermined() {
    // Consistent redundancy: omc drops the redundant equation with a warning.
    assert_one(
        &model("  Real x(start = 1, fixed = true);\ninitial equation\n  x = 1;\nequation\n  der(x) = -x;"),
        "4:3 warning V-initial: the initial system is structurally overdetermined: 2 equations for 1 unknown (x)",
    );
    assert_one(
        &model("  Real x(start = 1, fixed = true);\ninitial equation\n  x = 2;\nequation\n  der(x) = -x;"),
        "2:8 error V-initial: the initial system is overdetermined and inconsistent: `x` = 2 and `x` = 1",
    );
    assert_clean(&model(
        "  Real x(start = 1, fixed = true);\n  Real y;\ninitial equation\n  y = 2;\nequation\n  der(x) = -x + y;\n  der(y) = x;",
    ));
    // A model of index 2 (the pendulum's constraint) is left to the structural analysis.
    assert_clean(&model(
        "  Real x(start = 1, fixed = true);\n  Real y(start = 0, fixed = true);\n  Real vx(start = 0, fixed = true);\n  \
         Real vy(start = 0, fixed = true);\n  Real l;\nequation\n  der(x) = vx;\n  der(y) = vy;\n  der(vx) = l * x;\n  \
         der(vy) = l * y - 9.81;\n  x * x + y * y = 1;",
    ));
}

#[test]
fn every_error_is_at_a_place_of_the_file() {
    for row in ROWS.iter().filter(|r| r.exit == 1 && r.args.is_empty() && !r.file.starts_with("reparse")) {
        let text = std::fs::read_to_string(invalid(row.file)).unwrap();
        let found = diagnostics(&text);
        assert!(found.iter().any(|d| d.severity == Severity::Error), "{}", row.file);
        for d in &found {
            assert!(d.span.end as usize <= text.len() && d.span.start < d.span.end, "{}: {d:?}", row.file);
            assert!(d.related.iter().all(|(s, _)| s.end as usize <= text.len()), "{}", row.file);
        }
    }
    let _ = Kind::Undeclared;
}

#[test]
fn long_chains_need_no_deep_stack() {
    // 10^5 parameters bound in a chain, and the same closed into a cycle: on a test
    // thread's 2 MiB stack (the graph search is iterative, the walks run on a large stack).
    let n = 100_000;
    let mut src = String::from("model M\n  parameter Real p0 = 1;\n");
    for k in 1..n {
        src.push_str(&format!("  parameter Real p{k} = p{} + 1;\n", k - 1));
    }
    let chain = format!("{src}end M;\n");
    assert!(diagnostics(&chain).is_empty());
    let cycle = chain.replace("parameter Real p0 = 1;", &format!("parameter Real p0 = p{};", n - 1));
    let found = diagnostics(&cycle);
    assert_eq!(found.len(), 1, "{:?}", found.iter().map(|d| &d.message).collect::<Vec<_>>());
    assert_eq!(found[0].kind, Kind::Cycle);
    assert!(found[0].message.ends_with("… (100000 parameters in all) depend on themselves"), "{}", found[0].message);
    assert_eq!(found[0].related.len(), 9, "ten named, the first the primary place");
}
