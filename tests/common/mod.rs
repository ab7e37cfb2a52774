//! Helpers shared by the integration tests.
#![allow(dead_code)]

use mdae_rimis::syntax::ast::StoredDefinition;
use mdae_rimis::syntax::{self, SourceFile, visit};

/// Runs `f` on the syntax stage's large-stack thread: tree comparisons and drops of
/// the tallest trees recurse as deep as parsing does.
pub fn in_big_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    syntax::stack::with_stack(f)
}

/// Every span lies inside the source, is non-empty, and neither starts nor ends in
/// white space (a node's span covers exactly its text).
pub fn check_spans(ast: &mut StoredDefinition, src: &str) -> Result<(), String> {
    let mut bad: Option<String> = None;
    visit::walk_spans(ast, &mut |s| {
        if bad.is_some() {
            return;
        }
        let fits = match src.get(s.range()) {
            Some(t) => !t.is_empty() && !t.starts_with(char::is_whitespace) && !t.ends_with(char::is_whitespace),
            None => false,
        };
        if !fits {
            let text = src.get(s.range()).map(|t| t.chars().take(60).collect::<String>());
            bad = Some(format!("span {s:?} does not fit its text {text:?} (source of {} bytes)", src.len()));
        }
    });
    bad.map_or(Ok(()), Err)
}

/// The front end's contract on a parsed tree of `src`: spans fit their text, the
/// canonical print re-parses to the same tree modulo spans, and printing is a
/// fixpoint. Returns the canonical print.
pub fn check_tree(mut ast: StoredDefinition, src: &str) -> Result<String, String> {
    check_spans(&mut ast, src)?;
    let printed = syntax::print(&ast);
    let mut again = syntax::parse(&printed).map_err(|e| {
        let pf = SourceFile::new("<printed>", printed.clone());
        format!("the canonical print does not re-parse: {}\n--- printed ---\n{}", e.render(&pf), clip(&printed))
    })?;
    if syntax::print(&again) != printed {
        return Err(format!("the printer is not a fixpoint\n--- printed ---\n{}", clip(&printed)));
    }
    visit::erase_spans(&mut ast);
    visit::erase_spans(&mut again);
    if ast != again {
        return Err(format!("parse(print(ast)) != ast modulo spans\n--- printed ---\n{}", clip(&printed)));
    }
    Ok(printed)
}

/// Parses `src` (errors rendered as `name:line:col: …`) and checks [`check_tree`].
pub fn round_trip(name: &str, src: &str) -> Result<String, String> {
    let ast = syntax::parse(src).map_err(|e| e.short(&SourceFile::new(name, src)))?;
    check_tree(ast, src)
}

/// At most 2,000 bytes of `s`, for failure messages.
pub fn clip(s: &str) -> String {
    let mut end = s.len().min(2000);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    if end == s.len() { s.to_string() } else { format!("{} … ({} bytes in all)", &s[..end], s.len()) }
}

/// An output to hand to an independent Modelica front end: its file name, its text, and the
/// input it was made from when the input must compile for the output to have to (the corpus:
/// omc's notation, adapted identically on both sides by `integration/compile_check.py`).
pub struct ToCompile {
    pub name: String,
    pub text: String,
    pub original: Option<std::path::PathBuf>,
}

/// Every output compiled by rumoca 0.10.2 (`integration/compile_check.py`, the project's
/// `.venv`; issue 29: our own parser reads more than the Modelica grammar, so only another
/// front end shows an output that is not Modelica). Prints the checker's summary; `Err` with
/// its failure lines when rumoca refuses an output (whose input it compiles, if one is given).
pub fn rumoca_compiles(what: &str, outputs: &[ToCompile]) -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = venv_python();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut list = Vec::new();
    for (k, o) in outputs.iter().enumerate() {
        let sub = dir.path().join(format!("{k:05}"));
        std::fs::create_dir(&sub).unwrap();
        let path = sub.join(&o.name);
        std::fs::write(&path, &o.text).unwrap();
        list.push(serde_json::json!({"output": path, "original": o.original}));
    }
    let list_path = dir.path().join("list.json");
    std::fs::write(&list_path, serde_json::to_string(&list).unwrap()).unwrap();
    let run = std::process::Command::new(&python)
        .arg(root.join("integration/compile_check.py"))
        .arg(&list_path)
        .current_dir(root)
        .output()
        .expect("runs .venv/bin/python");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let summary = stdout.lines().last().unwrap_or("");
    println!("{what}: {summary}");
    if run.status.success() {
        Ok(())
    } else {
        Err(format!("{what}: rumoca refuses outputs (integration/compile_check.py):\n{stdout}{stderr}"))
    }
}

/// The project's Python with rumoca 0.10.2 (`.venv/bin/python`, made by `bash scripts/test.sh`);
/// a test that needs it fails with that instruction when it is missing.
pub fn venv_python() -> std::path::PathBuf {
    let python = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/test.sh`, which creates .venv with rumoca==0.10.2",
        python.display()
    );
    python
}
