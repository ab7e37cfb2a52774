//! Parses every file of `../shared/corpus/{omc-flat,msl-flat}` and round-trips it
//! through the printer: `parse(print(parse(f))) == parse(f)` modulo spans, and the
//! printer is a fixpoint (`print(parse(print(ast))) == print(ast)`).

mod common;

use mdae_rimis::syntax;
use std::path::{Path, PathBuf};

fn corpus_files(dir: &str) -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mo"))
        .collect();
    files.sort();
    Some(files)
}

/// Parses one file, checks its tree (see `common::check_tree`) and that nothing in
/// it is refused.
fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("read: {e}"))?;
    let file = syntax::SourceFile::new(path.display().to_string(), text);
    let ast = syntax::parse(&file.text).map_err(|e| format!("parse: {}", e.short(&file)))?;
    syntax::check::refuse_unsupported(&ast).map_err(|e| format!("refused: {}", e.short(&file)))?;
    common::check_tree(ast, &file.text).map(drop)
}

/// Files whose text is not Modelica: omc prints some internal forms that the
/// Modelica grammar (Modelica Language Spec. 3.6, appendix B) has no rule for. Each
/// must fail, at the construct named, with the message given.
const NOT_MODELICA: &[(&str, &str, &str)] = &[
    // omc's function-type notation for functional inputs: `input f<function>(#Real u) => #Real f;`
    ("flattening__modelica__algorithms-functions__PrefixPartialFunctionApplication.mo", "<function>", "found `<`"),
    ("flattening__modelica__scodeinst__FunctionalArg1.mo", "<function>", "found `<`"),
    ("flattening__modelica__scodeinst__FunctionalArg2.mo", "<function>", "found `<`"),
    ("flattening__modelica__scodeinst__FunctionalArgBinary1.mo", "<function>", "found `<`"),
    ("flattening__modelica__scodeinst__PartialApplication1.mo", "<function>", "found `<`"),
    ("Modelica.Math.Nonlinear.Examples.QuadratureLobatto3.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.MoistAir.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.PsychrometricData.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.ReferenceAir.Inverse_sh_TX.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.ReferenceAir.MoistAir.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.ReferenceAir.MoistAir1.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.ReferenceAir.MoistAir2.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.SolveOneNonlinearEquation.InverseIncompressible_sh_T.mo", "<function>", "found `<`"),
    ("Modelica.Media.Examples.SolveOneNonlinearEquation.Inverse_sine.mo", "<function>", "found `<`"),
    // omc's boxed partial application `function F(#(p), #(h))` as a call argument
    ("Modelica.Fluid.Examples.IncompressibleFluidNetwork.mo", "function F(#(p))", "found keyword `function`"),
    ("Modelica.Fluid.Examples.TraceSubstances.RoomCO2WithControls.mo", "function F(#(p))", "found keyword `function`"),
    // `return g(a);`: a Modelica return statement has no operand
    ("flattening__modelica__algorithms-functions__RecursiveCallExtends.mo", "return g(a)", "found identifier `g`"),
    // omc's flat state-machine dump: `stateMachine`/`state` are not Modelica keywords
    ("flattening__modelica__statemachines__ConferenceTut1.mo", "stateMachine", "found identifier `state`"),
];

fn run_corpus(dir: &str) {
    let Some(files) = corpus_files(dir) else {
        println!("skipped: ../shared/corpus/{dir} not found");
        return;
    };
    let total = files.len();
    let (ok, failures): (usize, Vec<String>) = common::in_big_thread(move || {
        let mut ok = 0;
        let mut failures = Vec::new();
        for p in &files {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let expected = NOT_MODELICA.iter().find(|(f, _, _)| *f == name);
            match (check_file(p), expected) {
                (Ok(()), None) => ok += 1,
                (Ok(()), Some((_, what, _))) => failures.push(format!("{name}: parsed although it holds `{what}`")),
                (Err(e), Some((_, what, msg))) if e.contains(msg) => println!("  not Modelica ({what}): {name}: {e}"),
                (Err(e), _) => failures.push(format!("{name}: {e}")),
            }
        }
        (ok, failures)
    });
    let invalid = total - ok - failures.len();
    println!(
        "corpus {dir}: {ok}/{} valid files parse and round-trip ({invalid} files are not Modelica)",
        total - invalid
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} of {total} files failed in {dir}", failures.len());
}

#[test]
fn omc_flat_corpus_round_trips() {
    run_corpus("omc-flat");
}

#[test]
fn msl_flat_corpus_round_trips() {
    run_corpus("msl-flat");
}
