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
