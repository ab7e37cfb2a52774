//! Point 5 of the front-end issue, one test each: a located syntax error with the
//! source line and a caret; non-UTF-8 input; an empty file; 10,000 nested
//! parentheses (bounded depth, no stack overflow); a 100 MB file.

mod common;

use mdae_rimis::driver::{self, DriverError};
use mdae_rimis::syntax::{self, SourceFile, SyntaxErrorKind};

fn rendered_error(name: &str, src: &str) -> String {
    let file = SourceFile::new(name, src);
    let err = syntax::parse(src).expect_err("must be rejected");
    assert!(err.span.start <= err.span.end && err.span.end as usize <= src.len());
    err.render(&file)
}

#[test]
fn syntax_error_names_file_line_column_expected_and_shows_a_caret() {
    let r = rendered_error("tank.mo", "model WaterTank\n  Real x;\nequation\n  der(x) = 1 +;\nend WaterTank;\n");
    let mut lines = r.lines();
    assert_eq!(lines.next(), Some("tank.mo:4:15: error: expected an expression, found `;`"));
    assert!(r.contains("┌─ tank.mo:4:15"), "{r}");
    assert!(r.contains("4 │   der(x) = 1 +;"), "{r}");
    let caret = r.lines().find(|l| l.contains('^')).expect("a caret line");
    assert_eq!(caret.find('^'), r.lines().find(|l| l.starts_with("4 │")).unwrap().find(';'), "caret under `;`:\n{r}");
}

#[test]
fn errors_inside_sections_say_what_was_expected() {
    let cases = [
        ("model M\n  Real x\nend M;\n", "3:1: error: expected `;`, found keyword `end`"),
        ("model M\nequation\n  x = if a then 1;\nend M;\n", "3:18: error: expected `else`, found `;`"),
        (
            "model M\nequation\n  when x then y = 1; end if;\nend M;\n",
            "3:26: error: expected `when`, found keyword `if`",
        ),
        ("model M\n  Real x(start = 1;\nend M;\n", "2:19: error: expected `)`, found `;`"),
        ("model M\nequation\n  x = 1 /* never closed\nend M;\n", "3:9: error: comment `/*` is never closed"),
        ("model M\n  String s = \"open;\nend M;\n", "2:14: error: string literal is never closed"),
    ];
    for (src, expected) in cases {
        let r = rendered_error("m.mo", src);
        assert!(r.starts_with(&format!("m.mo:{expected}")), "expected m.mo:{expected}\ngot:\n{r}");
    }
}

#[test]
fn non_utf8_input_is_a_located_error() {
    let mut bytes = b"model M\n  Real x;\nequation\n  x = ".to_vec();
    bytes.extend_from_slice(&[0xC3, 0x28, b'1', b';', b'\n']);
    bytes.extend_from_slice(b"end M;\n");
    match driver::source_from_bytes("latin.mo".into(), bytes) {
        Err(e @ DriverError::Syntax { .. }) => {
            assert_eq!(e.exit_code(), 1);
            let r = e.render();
            assert!(r.starts_with("latin.mo:4:7: error: the file is not valid UTF-8"), "{r}");
        }
        other => panic!("expected a located error, got {other:?}"),
    }
}

#[test]
fn empty_and_comment_only_files_are_rejected() {
    for src in ["", "   \n\n", "// nothing\n/* at all */\n", "within Lib;\n"] {
        let err = syntax::parse(src).expect_err("no class");
        assert_eq!(err.kind, SyntaxErrorKind::Expected(syntax::Expected::Thing("a class definition")), "{src:?}");
        let file = SourceFile::new("e.mo", src);
        assert!(err.render(&file).contains("found end of file"));
    }
}

#[test]
fn ten_thousand_nested_parentheses_hit_the_depth_bound() {
    let n = 10_000;
    let src = format!("model M\nequation\n  x = {}1{};\nend M;\n", "(".repeat(n), ")".repeat(n));
    // Run on a default-sized (2 MiB) test thread on purpose: the bound must protect it.
    let err = syntax::parse(&src).expect_err("too deep");
    assert!(matches!(err.kind, SyntaxErrorKind::TooDeep(_)), "{err:?}");
    let file = SourceFile::new("deep.mo", src.as_str());
    let r = err.render(&file);
    assert!(r.starts_with("deep.mo:3:"), "{r}");
    assert!(r.contains("too deep"), "{r}");
    // Just under the bound parses.
    let ok = format!("model M\nequation\n  x = {}1{};\nend M;\n", "(".repeat(150), ")".repeat(150));
    syntax::parse(&ok).expect("150 levels are fine");
}

#[test]
fn a_hundred_megabyte_file_parses() {
    let mut src = String::with_capacity(101 << 20);
    src.push_str("model Big\n");
    let n = 1_400_000;
    for k in 0..n {
        src.push_str(&format!("  Real x{k}(start = 1.0) \"state {k}\";\n"));
    }
    src.push_str("equation\n");
    for k in 0..n {
        src.push_str(&format!("  der(x{k}) = -0.5 * x{k};\n"));
    }
    src.push_str("end Big;\n");
    assert!(src.len() >= 100_000_000, "{} bytes", src.len());
    let count = common::in_big_thread(move || {
        let def = syntax::parse(&src).expect("parses");
        let syntax::ast::ClassBody::Long(c) = &def.classes[0].body else { panic!() };
        c.parts.len()
    });
    assert_eq!(count, 2);
}

#[test]
fn a_chain_just_under_the_height_bound_round_trips_on_a_default_thread() {
    let n = syntax::parser::MAX_HEIGHT as usize - 100;
    let sum = vec!["a"; n].join(" + ");
    let src = format!("model M\nequation\n  x = {sum};\nend M;\n");
    let ast = syntax::parse(&src).expect("under the bound");
    let printed = syntax::print(&ast);
    assert_eq!(printed, src);
    drop(ast);
    let over = format!("model M\nequation\n  x = {};\nend M;\n", vec!["a"; n + 200].join(" + "));
    let err = syntax::parse(&over).expect_err("over the bound");
    assert!(matches!(err.kind, SyntaxErrorKind::TooDeep(_)), "{err:?}");
}
