//! Robustness of the syntax stage on random and mutated inputs.
//!
//! Property: on any byte string, decoding (`driver::source_from_bytes`) and parsing
//! (`syntax::parse`) never panic and end either in a parse or in one located error:
//! its span satisfies `start <= end <= input length`, and the rendered diagnostic
//! starts with `fuzz.mo:LINE:COL` naming the line and column of the span's start
//! inside the file. A successful parse must survive the printer: `print(ast)`
//! re-parses, to the same tree modulo spans, and the printer is a fixpoint; and the whole
//! job (validation, analysis, RIMIS) either refuses it with a diagnostic or writes an
//! output that re-parses (issue 16).
//!
//! Inputs: the files of `../shared/corpus/{omc-flat,msl-flat}` (whole when under
//! 10 KB, random windows of at most 10 KB of the larger ones), mutated by
//! truncation, byte flips, deletion of a token range, duplication of a range and
//! insertion of punctuation and keywords; plus random byte strings, random ASCII and
//! random token soups. `PROPTEST_CASES` sets the number of cases (default 3000),
//! `PROPTEST_RNG_SEED` the seed (default fixed, so that CI is reproducible).
//!
//! A second test feeds deterministic extreme inputs (deep nesting, very long
//! chains, unterminated comments and strings).

mod common;

use mdae_rimis::analysis::Strategy as Analysis;
use mdae_rimis::driver::{self, DriverError};
use mdae_rimis::syntax::{self, SourceFile, SyntaxError, SyntaxErrorKind};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Largest input taken from the corpus: smaller files whole, larger ones windowed.
const WINDOW: usize = 10 * 1024;
/// The file name the diagnostics are rendered with.
const NAME: &str = "fuzz.mo";
/// Cases when `PROPTEST_CASES` is not set.
const DEFAULT_CASES: u32 = 3000;

// ---------------------------------------------------------------- corpus

struct CorpusFile {
    name: String,
    bytes: Vec<u8>,
}

static CORPUS: OnceLock<Option<Vec<CorpusFile>>> = OnceLock::new();

/// Every `.mo` file of both corpus folders, read once; `None` if neither exists.
fn corpus() -> Option<&'static [CorpusFile]> {
    CORPUS
        .get_or_init(|| {
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
            let mut files = Vec::new();
            let mut found = false;
            for dir in ["omc-flat", "msl-flat"] {
                let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
                found = true;
                let mut paths: Vec<_> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "mo"))
                    .collect();
                paths.sort();
                for p in paths {
                    if let Ok(bytes) = std::fs::read(&p) {
                        let name = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                        files.push(CorpusFile { name, bytes });
                    }
                }
            }
            (found && !files.is_empty()).then_some(files)
        })
        .as_deref()
}

// ---------------------------------------------------------------- inputs

/// Snippets inserted by [`Mutation::Insert`] and used by token soups.
const SNIPPETS: &[&str] = &[
    "end",
    "(",
    ")",
    ";",
    "if",
    "then",
    "\"",
    "/*",
    "'",
    "*/",
    "//",
    "else",
    "elseif",
    "end if",
    "for",
    "loop",
    "in",
    "when",
    "elsewhen",
    "equation",
    "algorithm",
    "initial",
    "model",
    "class",
    "function",
    "record",
    "within",
    "final",
    "parameter",
    "Real",
    "x",
    "der(",
    "annotation(",
    "connect(",
    "{",
    "}",
    "[",
    "]",
    ",",
    "=",
    ":=",
    ":",
    ".",
    "..",
    "+",
    "-",
    "*",
    "/",
    "^",
    ".^",
    "<",
    "<=",
    "==",
    "<>",
    "and",
    "or",
    "not",
    "1",
    "1e",
    "1.5e-3",
    "0.",
    "\\",
    "'\\",
    "\"\\",
    "\n",
    "\r",
    "\t",
    " ",
    "é",
    "\u{0}",
    "\u{feff}",
    "$",
    "_",
    "constant",
    "input",
    "output",
    "extends",
    "import",
    "type",
    "enumeration(",
    "break",
    "return",
    "while",
    "true",
    "false",
    "time",
    "end for",
    "end when",
    "end x",
    "end M;",
    "pure",
    "impure",
    "operator",
];

/// ASCII punctuation, for single-character insertions.
const PUNCT: &[u8] = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

#[derive(Debug, Clone)]
enum Base {
    /// A corpus file (whole if under [`WINDOW`]) or a window `start..start+len` of it.
    Corpus {
        file: Index,
        start: Index,
        len: Index,
    },
    RandomBytes(Vec<u8>),
    RandomAscii(String),
    Soup(Vec<&'static str>),
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Cut the input at a byte.
    Truncate(Index),
    /// XOR one byte with a non-zero mask (may break UTF-8).
    Flip(Index, u8),
    /// Delete `n` token-ish units starting at the unit containing the byte.
    DeleteTokens(Index, usize),
    /// Insert a copy of `at..at+len` at `to`.
    Duplicate { at: Index, len: usize, to: Index },
    /// Insert a snippet, optionally padded with spaces.
    Insert(Index, &'static str, bool),
    /// Insert one ASCII punctuation character.
    InsertPunct(Index, u8),
}

fn base_strategy() -> impl Strategy<Value = Base> {
    prop_oneof![
        12 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(file, start, len)| Base::Corpus { file, start, len }),
        1 => prop::collection::vec(any::<u8>(), 0..512).prop_map(Base::RandomBytes),
        1 => "[ -~\n\t]{0,512}".prop_map(Base::RandomAscii),
        2 => prop::collection::vec(prop::sample::select(SNIPPETS), 0..200).prop_map(Base::Soup),
    ]
}

fn mutation_strategy() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => any::<Index>().prop_map(Mutation::Truncate),
        3 => (any::<Index>(), 1..=255u8).prop_map(|(i, m)| Mutation::Flip(i, m)),
        3 => (any::<Index>(), 1..8usize).prop_map(|(i, n)| Mutation::DeleteTokens(i, n)),
        2 => (any::<Index>(), 1..256usize, any::<Index>()).prop_map(|(at, len, to)| Mutation::Duplicate { at, len, to }),
        4 => (any::<Index>(), prop::sample::select(SNIPPETS), any::<bool>())
            .prop_map(|(i, s, pad)| Mutation::Insert(i, s, pad)),
        2 => (any::<Index>(), prop::sample::select(PUNCT)).prop_map(|(i, c)| Mutation::InsertPunct(i, c)),
    ]
}

fn input_strategy() -> impl Strategy<Value = (Base, Vec<Mutation>)> {
    (base_strategy(), prop::collection::vec(mutation_strategy(), 0..5))
}

/// The bytes of a base, and where they come from (for failure reports).
fn materialize(base: &Base, corpus: &[CorpusFile]) -> (Vec<u8>, String) {
    match base {
        Base::Corpus { file, start, len } => {
            let f = &corpus[file.index(corpus.len())];
            if f.bytes.len() < WINDOW {
                (f.bytes.clone(), f.name.clone())
            } else {
                let s = start.index(f.bytes.len());
                let n = 1 + len.index(WINDOW);
                let e = (s + n).min(f.bytes.len());
                (f.bytes[s..e].to_vec(), format!("{}[{s}..{e}]", f.name))
            }
        }
        Base::RandomBytes(b) => (b.clone(), "random bytes".into()),
        Base::RandomAscii(s) => (s.as_bytes().to_vec(), "random ASCII".into()),
        Base::Soup(toks) => {
            let mut out = String::new();
            for t in toks {
                out.push_str(t);
                out.push(' ');
            }
            (out.into_bytes(), "token soup".into())
        }
    }
}

/// Byte classes for token-ish units: words, blanks, and single other bytes.
fn class(b: u8) -> u8 {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' | 0x80..=0xff => 0,
        b' ' | b'\t' | b'\n' | b'\r' => 1,
        _ => 2,
    }
}

/// End of the token-ish unit starting at `i`.
fn unit_end(b: &[u8], i: usize) -> usize {
    let c = class(b[i]);
    if c == 2 {
        return i + 1;
    }
    let mut j = i + 1;
    while j < b.len() && class(b[j]) == c {
        j += 1;
    }
    j
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    match *m {
        Mutation::Truncate(i) => bytes.truncate(i.index(len + 1)),
        Mutation::Flip(i, mask) => {
            if len > 0 {
                bytes[i.index(len)] ^= mask;
            }
        }
        Mutation::DeleteTokens(i, n) => {
            if len > 0 {
                let mut s = i.index(len);
                let c = class(bytes[s]);
                if c != 2 {
                    while s > 0 && class(bytes[s - 1]) == c {
                        s -= 1;
                    }
                }
                let mut e = s;
                for _ in 0..n {
                    if e >= len {
                        break;
                    }
                    e = unit_end(bytes, e);
                }
                bytes.drain(s..e);
            }
        }
        Mutation::Duplicate { at, len: n, to } => {
            if len > 0 {
                let s = at.index(len);
                let e = (s + n).min(len);
                let piece = bytes[s..e].to_vec();
                let t = to.index(len + 1);
                bytes.splice(t..t, piece);
            }
        }
        Mutation::Insert(i, s, pad) => {
            let t = i.index(len + 1);
            let piece = if pad { format!(" {s} ") } else { s.to_string() };
            bytes.splice(t..t, piece.into_bytes());
        }
        Mutation::InsertPunct(i, c) => {
            let t = i.index(len + 1);
            bytes.insert(t, c);
        }
    }
}

// ---------------------------------------------------------------- the property

#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    Parsed,
    SyntaxError,
    NotUtf8,
}

/// Line and column (1-based, column in characters) of `offset`, computed
/// independently of `SourceFile::line_col`.
fn expected_line_col(text: &str, offset: usize) -> Result<(usize, usize), String> {
    let before =
        text.get(..offset).ok_or_else(|| format!("error offset {offset} is not a character boundary of the text"))?;
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let col = before[line_start..].chars().count() + 1;
    Ok((line, col))
}

/// The error is located: span inside the input, `NAME:LINE:COL` in the rendering
/// naming a line and column of the file (those of the span's start).
fn check_located(file: &SourceFile, error: &SyntaxError, input_len: usize) -> Result<(), String> {
    let (s, e) = (error.span.start as usize, error.span.end as usize);
    if !(s <= e && e <= input_len) {
        return Err(format!("bad error span {s}..{e} for an input of {input_len} bytes"));
    }
    let rendered = error.render(file);
    let head = rendered.lines().next().unwrap_or("");
    let rest = head
        .strip_prefix(NAME)
        .and_then(|r| r.strip_prefix(':'))
        .ok_or_else(|| format!("rendering does not start with `{NAME}:`: {rendered:?}"))?;
    let mut parts = rest.splitn(3, ':');
    let line: usize = parts.next().and_then(|x| x.parse().ok()).ok_or_else(|| format!("no line in {head:?}"))?;
    let col: usize = parts.next().and_then(|x| x.parse().ok()).ok_or_else(|| format!("no column in {head:?}"))?;
    let lines: Vec<&str> = file.text.split('\n').collect();
    if line == 0 || line > lines.len() {
        return Err(format!("line {line} outside the file's {} lines: {head:?}", lines.len()));
    }
    let width = lines[line - 1].chars().count();
    if col == 0 || col > width + 1 {
        return Err(format!("column {col} outside line {line} of {width} characters: {head:?}"));
    }
    let want = expected_line_col(&file.text, s)?;
    if (line, col) != want {
        return Err(format!("rendered at {line}:{col}, the span starts at {}:{}: {head:?}", want.0, want.1));
    }
    if rendered.contains("could not render the source") {
        return Err(format!("the source snippet could not be rendered: {rendered:?}"));
    }
    Ok(())
}

/// Parses a decoded file; on success checks the tree (`common::check_tree`: spans,
/// print/re-parse round trip, fixpoint) and runs the whole job (validation, analysis,
/// RIMIS): an accepted input's output must re-parse; on failure that the error is located.
fn check_text(file: &SourceFile) -> Result<Outcome, String> {
    match syntax::parse(&file.text) {
        Ok(ast) => {
            common::check_tree(ast, &file.text)?;
            check_job(file)?;
            Ok(Outcome::Parsed)
        }
        Err(e) => {
            check_located(file, &e, file.text.len())?;
            Ok(Outcome::SyntaxError)
        }
    }
}

/// The main job on a parsed input: refused with a diagnostic, or an output that re-parses.
fn check_job(file: &SourceFile) -> Result<(), String> {
    match driver::rimis(file, Analysis::Auto) {
        Ok((text, _)) => {
            ACCEPTED.fetch_add(1, Relaxed);
            syntax::parse(&text).map(drop).map_err(|e| {
                let out = SourceFile::new("<output>", text.clone());
                format!(
                    "the output of an accepted input does not re-parse: {}\n--- output ---\n{}",
                    e.render(&out),
                    common::clip(&text)
                )
            })
        }
        Err(e) => {
            if e.render().trim().is_empty() {
                return Err(format!("a refusal without a diagnostic: {e:?}"));
            }
            Ok(())
        }
    }
}

/// Decodes and parses raw bytes, the CLI's path.
fn check_bytes(bytes: Vec<u8>) -> Result<Outcome, String> {
    let len = bytes.len();
    match driver::source_from_bytes(NAME.into(), bytes) {
        Ok(file) => check_text(&file),
        Err(DriverError::Syntax { file, error }) => {
            if error.kind != SyntaxErrorKind::NotUtf8 {
                return Err(format!("decoding failed with {:?}", error.kind));
            }
            check_located(&file, &error, len)?;
            Ok(Outcome::NotUtf8)
        }
        Err(other) => Err(format!("unexpected driver error: {other}")),
    }
}

/// The input as an escaped string, for failure reports.
fn show(bytes: &[u8]) -> String {
    let s: String = bytes.iter().flat_map(|&b| std::ascii::escape_default(b)).map(char::from).collect();
    common::clip(&s)
}

static CASES: AtomicUsize = AtomicUsize::new(0);
static PARSED: AtomicUsize = AtomicUsize::new(0);
static SYNTAX_ERRORS: AtomicUsize = AtomicUsize::new(0);
static NOT_UTF8: AtomicUsize = AtomicUsize::new(0);
static ACCEPTED: AtomicUsize = AtomicUsize::new(0);

fn cases_from_env() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_CASES)
}

/// Seed when `PROPTEST_RNG_SEED` is not set.
const DEFAULT_SEED: u64 = 20261122;

/// The seed of the run: `PROPTEST_RNG_SEED` when set, else [`DEFAULT_SEED`].
fn seed() -> RngSeed {
    let n = std::env::var("PROPTEST_RNG_SEED").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_SEED);
    RngSeed::Fixed(n)
}

#[test]
fn random_and_mutated_inputs_never_panic() {
    let Some(corpus) = corpus() else {
        println!("skipped: corpus not found");
        return;
    };
    let cases = cases_from_env();
    let t0 = Instant::now();
    let result = common::in_big_thread(move || {
        // No failure persistence: this test writes no files. A fixed seed keeps CI
        // reproducible; `PROPTEST_RNG_SEED` explores others.
        let config = Config { cases, failure_persistence: None, rng_seed: seed(), ..Config::default() };
        let mut runner = TestRunner::new(config);
        runner
            .run(&input_strategy(), |(base, mutations)| {
                let (mut bytes, origin) = materialize(&base, corpus);
                for m in &mutations {
                    apply(&mut bytes, m);
                }
                let shown = show(&bytes);
                let n = bytes.len();
                CASES.fetch_add(1, Relaxed);
                match check_bytes(bytes) {
                    Ok(Outcome::Parsed) => PARSED.fetch_add(1, Relaxed),
                    Ok(Outcome::SyntaxError) => SYNTAX_ERRORS.fetch_add(1, Relaxed),
                    Ok(Outcome::NotUtf8) => NOT_UTF8.fetch_add(1, Relaxed),
                    Err(why) => {
                        return Err(TestCaseError::fail(format!(
                            "{why}\n--- input ({n} bytes, from {origin}, mutations {mutations:?}) ---\n{shown}"
                        )));
                    }
                };
                Ok(())
            })
            .map_err(|e| match e {
                TestError::Fail(why, (base, mutations)) => {
                    let (mut bytes, origin) = materialize(&base, corpus);
                    for m in &mutations {
                        apply(&mut bytes, m);
                    }
                    format!("minimal failing input from {origin}: {}\n{why}", show(&bytes))
                }
                TestError::Abort(why) => format!("aborted: {why}"),
            })
    });
    let (c, p, s, u) = (CASES.load(Relaxed), PARSED.load(Relaxed), SYNTAX_ERRORS.load(Relaxed), NOT_UTF8.load(Relaxed));
    println!(
        "robustness: seed {:?}, {c} cases, {p} parsed ({} accepted by the whole job, their outputs re-parse), {} located errors ({s} syntax, {u} not UTF-8), {} corpus files, {:.2?}",
        seed(),
        ACCEPTED.load(Relaxed),
        s + u,
        corpus.len(),
        t0.elapsed()
    );
    if let Err(msg) = result {
        panic!("{msg}");
    }
}

// ---------------------------------------------------------------- extremes

fn model(equation: &str) -> String {
    format!("model M\n  Real x;\n  Real a;\n  Boolean b;\nequation\n  {equation}\nend M;\n")
}

fn extremes() -> Vec<(&'static str, String)> {
    const N: usize = 10_000;
    const BIG: usize = 100_000;
    let sum = {
        let mut s = String::from("x = a");
        for _ in 1..BIG {
            s.push_str(" + a");
        }
        s.push(';');
        s
    };
    vec![
        ("10,000 nested parentheses", model(&format!("x = {}a{};", "(".repeat(N), ")".repeat(N)))),
        ("10,000 unclosed parentheses", model(&format!("x = {}", "(".repeat(N)))),
        ("10,000 nested braces", model(&format!("x = {}1{};", "{".repeat(N), "}".repeat(N)))),
        ("10,000 nested brackets", model(&format!("x = {}1{};", "[".repeat(N), "]".repeat(N)))),
        ("10,000 nested calls", model(&format!("x = {}a{};", "sin(".repeat(N), ")".repeat(N)))),
        ("10,000 nested subscripts", model(&format!("x = {}1{};", "a[".repeat(N), "]".repeat(N)))),
        ("10,000 nested if-expressions", model(&format!("x = {}a;", "if b then a else ".repeat(N)))),
        ("10,000 nested if-equations", model(&format!("{}x = a;{}", "if b then ".repeat(N), " end if;".repeat(N)))),
        (
            "10,000 nested for-equations",
            model(&format!("{}x = a;{}", "for i in 1:2 loop ".repeat(N), " end for;".repeat(N))),
        ),
        (
            "10,000 nested modifications",
            format!("model M\n  Real x({}z = 1{});\nend M;\n", "y(".repeat(N), ")".repeat(N)),
        ),
        (
            "150 nested modifications",
            format!("model M\n  Real x({}z = 1{});\nend M;\n", "y(".repeat(150), ")".repeat(150)),
        ),
        ("150 nested parentheses", model(&format!("x = {}a{};", "(".repeat(150), ")".repeat(150)))),
        ("2,000-term sum", model(&format!("x = a{};", " + a".repeat(1999)))),
        ("100,000-term sum", model(&sum)),
        ("100,000-term product", model(&format!("x = a{};", " * a".repeat(BIG - 1)))),
        ("100,000-term power chain", model(&format!("x = a{};", " ^ a".repeat(BIG - 1)))),
        ("100,000-term and chain", model(&format!("b = b{};", " and b".repeat(BIG - 1)))),
        ("100,000-term comparison chain", model(&format!("b = a{};", " < a".repeat(BIG - 1)))),
        ("100,000-deep not", model(&format!("b = {}true;", "not ".repeat(BIG)))),
        ("100,000 unary minus", model(&format!("x = {}1;", "- ".repeat(BIG)))),
        ("100,000 unary minus, no spaces", model(&format!("x = {}1;", "-".repeat(BIG)))),
        ("100,000 equations", model(&"x = a;\n  ".repeat(BIG))),
        ("100,000-component name", model(&format!("x = a{};", ".a".repeat(BIG)))),
        ("100,000-element array", model(&format!("x = {{1{}}};", ", 1".repeat(BIG - 1)))),
        ("100,000-digit number", model(&format!("x = {};", "9".repeat(BIG)))),
        ("100,000-digit exponent", model(&format!("x = 1e{};", "9".repeat(BIG)))),
        ("unterminated comment", model("x = a; /* never closed\n  x = a;")),
        ("unterminated comment at start", "/* never closed".into()),
        ("unterminated string", model("x = \"never closed;")),
        ("unterminated string at end", "model M\n  Real x = \"abc".into()),
        ("lone quote", "'".into()),
        ("lone quote in a model", model("x = ';")),
        ("lone double quote", "\"".into()),
        ("lone backslash in a string", model("x = \"\\")),
        ("empty input", String::new()),
        ("only whitespace", " \n\t\r\n ".repeat(1000)),
        ("only a comment", "// c".into()),
        ("100,000 nested comment openers", "/*".repeat(BIG).to_string()),
        ("100,000 semicolons", ";".repeat(BIG)),
        ("100,000 `end`", "end ".repeat(BIG)),
        ("100,000 nested models", format!("{}{}", "model M ".repeat(BIG), "end M; ".repeat(BIG))),
        // Regressions found by the property test: postfix subscripts on a parenthesised
        // reference must keep their parentheses when printed.
        ("regression: (a[2])[1]", model("x = (a[2])[1];")),
        ("regression: (a)[1]", model("x = (a)[1];")),
        ("regression: f + (i)[1]", model("x = f + (i)[1];")),
    ]
}

#[test]
fn extreme_inputs_give_a_parse_or_a_located_error() {
    let mut failures = Vec::new();
    for (what, text) in extremes() {
        let n = text.len();
        let t0 = Instant::now();
        let (outcome, summary) = common::in_big_thread(move || {
            let bytes = text.into_bytes();
            let outcome = check_bytes(bytes.clone());
            let summary = match syntax::parse(std::str::from_utf8(&bytes).unwrap_or("")) {
                Ok(_) => "parsed".to_string(),
                Err(e) => e.short(&SourceFile::new(NAME, String::from_utf8_lossy(&bytes).into_owned())),
            };
            (outcome, summary)
        });
        let dt = t0.elapsed();
        match outcome {
            Ok(o) => println!("extreme: {what} ({n} bytes): {o:?} in {dt:.2?}: {}", common::clip(&summary)),
            Err(why) => {
                println!("extreme: {what} ({n} bytes): FAILED in {dt:.2?}: {}", common::clip(&why));
                failures.push(format!("{what}: {}", common::clip(&why)));
            }
        }
    }
    assert!(failures.is_empty(), "extreme inputs failed:\n{}", failures.join("\n"));
}
