//! Parser benchmark: throughput and peak memory of `mdae_rimis::syntax::parse`.
//!
//! Run with `cargo bench --bench parse` (release build; plain binary, `harness = false`).
//!
//! What it measures (MiB = 2^20 bytes; every number is measured at run time):
//!
//! 1. **msl-flat corpus** — every `../shared/corpus/msl-flat/*.mo` (relative to
//!    `CARGO_MANIFEST_DIR`), read into memory first, then each file parsed once per run;
//!    the parse time is the sum over files of the time inside `parse` (dropping the AST
//!    is not timed), best of [`RUNS`] runs. Files the parser rejects (omc internal
//!    forms that are not Modelica) are timed too and counted. The largest file is
//!    also timed alone (best of [`RUNS`]).
//! 2. **generated model** — [`generate`] writes a deterministic flat model `class Gen`
//!    of [`GEN_EQUATIONS`] equations (≈ 10 MiB) shaped like `omc -i` output: scalarised
//!    dotted declarations with modifiers and descriptions, parameters, `der`,
//!    if-expressions, nested arithmetic, calls and `when sample(…)` blocks. It is parsed
//!    once as a check (the rendered error panics otherwise), then timed, best of [`RUNS`].
//! 3. **peak memory** — measured in a child process so the parent's allocations do not
//!    count: the bench re-executes itself (`std::env::current_exe()`) with
//!    `MDAE_BENCH_CHILD=<path>`; the child reads that file, parses it, keeps the AST
//!    alive and prints `VmHWM` from `/proc/self/status`. With `MDAE_BENCH_CHILD=` (empty)
//!    it only starts and prints its baseline `VmHWM`. Reported: raw peak, peak minus
//!    baseline ("net"), and both as a multiple of the input size. The generated model
//!    goes to a `tempfile` for the child.
//!
//! Targets (last column): parse ≥ 10 MiB/s (stricter than 10 MB/s); raw peak RSS
//! < 10 × input size. Linux only (reads `/proc/self/status`).

use mdae_rimis::syntax::{self, SourceFile, ast};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Timed runs per measurement; the best is reported.
const RUNS: usize = 3;
/// Top-level equations in the generated model.
const GEN_EQUATIONS: usize = 100_000;
/// Environment variable that turns the binary into a memory-measuring child.
const CHILD_ENV: &str = "MDAE_BENCH_CHILD";
/// Throughput target, MiB/s.
const TARGET_MIBS: f64 = 10.0;
/// Peak-memory target, as a multiple of the input size.
const TARGET_RATIO: f64 = 10.0;

const MIB: f64 = (1u64 << 20) as f64;

fn main() {
    // `syntax::parse` runs on its own large-stack thread (only touched pages count in RSS).
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        child(PathBuf::from(path));
    } else {
        parent();
    }
}

// ---------------------------------------------------------------------------------------
// Parent: the measurements and the table
// ---------------------------------------------------------------------------------------

fn parent() {
    let mut table = Table::new();

    // 1. The msl-flat corpus.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/msl-flat");
    let corpus = read_corpus(&dir);
    let total_bytes: usize = corpus.iter().map(|(_, t)| t.len()).sum();
    let (best, rejected) = time_corpus(&corpus);
    let rejected_bytes: usize = rejected.iter().map(|&i| corpus[i].1.len()).sum();
    println!(
        "msl-flat: {} files, {} bytes ({:.2} MiB); {} rejected by the parser ({} bytes, timed anyway):",
        corpus.len(),
        total_bytes,
        total_bytes as f64 / MIB,
        rejected.len(),
        rejected_bytes
    );
    for &i in &rejected {
        println!("  rejected: {}", file_name(&corpus[i].0));
    }
    table.throughput(&format!("msl-flat corpus ({} files)", corpus.len()), total_bytes, best);

    let (largest_path, largest_text) = corpus.iter().max_by_key(|(_, t)| t.len()).expect("empty corpus");
    let best = time_one(largest_text);
    println!("largest msl-flat file: {} ({} bytes)", file_name(largest_path), largest_text.len());
    table.throughput(&format!("largest: {}", short_name(largest_path)), largest_text.len(), best);

    // 2. The generated model.
    let gen_src = generate(GEN_EQUATIONS);
    let gen_ast = syntax::parse(&gen_src).unwrap_or_else(|e| {
        panic!(
            "the generated model does not parse:\n{}",
            e.render(&SourceFile::new("<generated Gen>", gen_src.clone()))
        )
    });
    let gen_eqs = count_equations(&gen_ast);
    assert_eq!(gen_eqs, GEN_EQUATIONS, "the generator wrote a different number of equations");
    drop(gen_ast);
    println!(
        "generated Gen: {} bytes ({:.2} MiB), {} lines, {} top-level equations (counted in the parsed AST)",
        gen_src.len(),
        gen_src.len() as f64 / MIB,
        gen_src.lines().count(),
        gen_eqs
    );
    let best = time_one(&gen_src);
    table.throughput(&format!("generated Gen ({gen_eqs} equations)"), gen_src.len(), best);

    // 3. Peak memory in child processes.
    let baseline = run_child(None);
    table.baseline(baseline);
    let peak = run_child(Some(largest_path));
    table.memory(&format!("peak RSS: {}", short_name(largest_path)), largest_text.len(), peak, baseline);

    let mut tmp = tempfile::Builder::new().prefix("mdae-bench-gen-").suffix(".mo").tempfile().expect("tempfile");
    tmp.write_all(gen_src.as_bytes()).expect("write the generated model");
    tmp.flush().expect("flush the generated model");
    let peak = run_child(Some(tmp.path()));
    table.memory("peak RSS: generated Gen", gen_src.len(), peak, baseline);

    println!();
    table.print();
}

/// Reads every `*.mo` of `dir`, sorted by name.
fn read_corpus(dir: &Path) -> Vec<(PathBuf, String)> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "mo")).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// Best-of-[`RUNS`] total parse time of the corpus, and the indices of rejected files.
fn time_corpus(corpus: &[(PathBuf, String)]) -> (Duration, Vec<usize>) {
    let mut best = Duration::MAX;
    let mut rejected = Vec::new();
    for _ in 0..RUNS {
        rejected.clear();
        let mut total = Duration::ZERO;
        for (i, (_, text)) in corpus.iter().enumerate() {
            let start = Instant::now();
            let result = syntax::parse(black_box(text));
            total += start.elapsed();
            if result.is_err() {
                rejected.push(i);
            }
            drop(black_box(result));
        }
        best = best.min(total);
    }
    (best, rejected)
}

/// Best-of-[`RUNS`] parse time of one text (the AST is dropped outside the timing).
fn time_one(text: &str) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..RUNS {
        let start = Instant::now();
        let result = syntax::parse(black_box(text));
        best = best.min(start.elapsed());
        drop(black_box(result));
    }
    best
}

/// Top-level equations of all equation sections of all classes.
fn count_equations(def: &ast::StoredDefinition) -> usize {
    def.classes
        .iter()
        .filter_map(|c| match &c.body {
            ast::ClassBody::Long(comp) => Some(comp),
            _ => None,
        })
        .flat_map(|comp| comp.parts.iter())
        .map(|part| match part {
            ast::ClassPart::Equations { equations, .. } => equations.len(),
            _ => 0,
        })
        .sum()
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The last two dotted components of a corpus file's class name, e.g. `Spice3BenchmarkFourBitBinaryAdder.FOURBIT`.
fn short_name(p: &Path) -> String {
    let name = file_name(p);
    let stem = name.strip_suffix(".mo").unwrap_or(&name);
    let parts: Vec<&str> = stem.rsplitn(3, '.').collect();
    match parts.as_slice() {
        [last, second, _] => format!("{second}.{last}"),
        _ => stem.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Child process: peak memory of one parse
// ---------------------------------------------------------------------------------------

/// Re-executes this binary; returns the child's `VmHWM` in bytes.
/// `None`: the child only starts (baseline).
fn run_child(path: Option<&Path>) -> u64 {
    let exe = std::env::current_exe().expect("current_exe");
    let value = path.map(|p| p.as_os_str().to_owned()).unwrap_or_default();
    let out = Command::new(exe).env(CHILD_ENV, value).output().expect("spawn the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        panic!(
            "memory child failed ({}) for {:?}:\n{stdout}{}",
            out.status,
            path,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let kb: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM_kB="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM_kB line in the child's output: {stdout}"));
    kb * 1024
}

/// The child: parse the file named by [`CHILD_ENV`] (or nothing), report `VmHWM`.
fn child(path: PathBuf) {
    if path.as_os_str().is_empty() {
        println!("VmHWM_kB={}", vm_hwm_kb());
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ast = match syntax::parse(&text) {
        Ok(ast) => ast,
        Err(e) => {
            let file = SourceFile::new(path.display().to_string(), text);
            eprintln!("{}", e.render(&file));
            std::process::exit(1);
        }
    };
    // The AST and the source are both alive here.
    let hwm = vm_hwm_kb();
    black_box(&ast);
    black_box(&text);
    println!("VmHWM_kB={hwm}");
}

/// `VmHWM` (peak resident set) of this process, in kB, from `/proc/self/status`.
fn vm_hwm_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("no VmHWM in /proc/self/status")
}

// ---------------------------------------------------------------------------------------
// The generated model
// ---------------------------------------------------------------------------------------

/// A deterministic flat model `class Gen … end Gen;` with exactly `equations` top-level
/// equations, in the style of `omc -i`. Unit `i` owns `k{i}` (parameter), `x{i}` (state),
/// `y{i}`, `a{i}.b.c`, one scalarised array element `body[{i}].frame_a.r_0[{j}]` and, every
/// 25th unit, a discrete `z{i}`. Its four equation slots are a `der` equation, an
/// if-expression, a residual form and a position equation; every 25th unit's last slot is
/// a `when sample(…)` block instead.
pub fn generate(equations: usize) -> String {
    const SLOTS: usize = 4;
    let units = equations.div_ceil(SLOTS).max(1);
    let wrap = |n: usize| (n + units - 1) % units + 1; // 1-based cyclic neighbour
    let dim = |i: usize| i % 3 + 1; // which r_0 element unit i owns
    let mut s = String::with_capacity(equations * 110);
    s.push_str("class Gen\n");
    for i in 1..=units {
        let k = 0.5 + (i % 7) as f64 * 0.5;
        let x0 = (i % 11) as f64 * 0.1;
        s.push_str(&format!("  parameter Real k{i} = {k:?};\n"));
        s.push_str(&format!("  Real x{i}(start = {x0:.1}, fixed = true);\n"));
        s.push_str(&format!("  Real y{i};\n"));
        s.push_str(&format!("  Real a{i}.b.c(unit = \"m\");\n"));
        s.push_str(&format!(
            "  Real body[{i}].frame_a.r_0[{j}](start = 0.0, unit = \"m\") \"Position vector\";\n",
            j = dim(i)
        ));
        if i % 25 == 0 {
            s.push_str(&format!("  discrete Real z{i}(start = 0.0, fixed = true);\n"));
        }
    }
    s.push_str("equation\n");
    for e in 0..equations {
        let i = e / SLOTS + 1;
        let (prev, next) = (wrap(i - 1), wrap(i + 1));
        match e % SLOTS {
            0 => s.push_str(&format!("  der(x{i}) = -k{i} * x{i} + sin(time) * y{i};\n")),
            1 => s.push_str(&format!("  y{i} = if x{i} > 0.0 then x{i} ^ 2.0 else -x{i};\n")),
            2 => s.push_str(&format!("  0.0 = a{i}.b.c - 2.0 * (x{next} - x{i}) / (1.0 + abs(x{prev}));\n")),
            _ if i.is_multiple_of(25) => {
                s.push_str(&format!("  when sample(0.0, 0.1) then\n    z{i} = pre(z{i}) + 0.1 * x{i};\n  end when;\n"))
            }
            _ => s.push_str(&format!(
                "  body[{i}].frame_a.r_0[{j}] = a{i}.b.c * cos(time) + 1e-3 * body[{prev}].frame_a.r_0[{jp}];\n",
                j = dim(i),
                jp = dim(prev)
            )),
        }
    }
    s.push_str("end Gen;\n");
    s
}

// ---------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------

const HEADER: [&str; 10] =
    ["measurement", "input MiB", "best s", "MiB/s", "peak MiB", "net MiB", "peak/in", "net/in", "target", "verdict"];

struct Table {
    rows: Vec<[String; 10]>,
}

impl Table {
    fn new() -> Table {
        Table { rows: Vec::new() }
    }

    fn throughput(&mut self, what: &str, bytes: usize, best: Duration) {
        let mibs = bytes as f64 / MIB / best.as_secs_f64();
        self.rows.push([
            what.to_string(),
            format!("{:.2}", bytes as f64 / MIB),
            format!("{:.4}", best.as_secs_f64()),
            format!("{mibs:.1}"),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            format!(">= {TARGET_MIBS} MiB/s"),
            verdict(mibs >= TARGET_MIBS),
        ]);
    }

    fn baseline(&mut self, hwm: u64) {
        let mut row: [String; 10] = std::array::from_fn(|_| "-".to_string());
        row[0] = "child baseline (start only)".into();
        row[4] = format!("{:.2}", hwm as f64 / MIB);
        self.rows.push(row);
    }

    fn memory(&mut self, what: &str, bytes: usize, hwm: u64, baseline: u64) {
        let net = hwm.saturating_sub(baseline);
        let ratio = hwm as f64 / bytes as f64;
        self.rows.push([
            what.to_string(),
            format!("{:.2}", bytes as f64 / MIB),
            "-".into(),
            "-".into(),
            format!("{:.2}", hwm as f64 / MIB),
            format!("{:.2}", net as f64 / MIB),
            format!("{ratio:.2}x"),
            format!("{:.2}x", net as f64 / bytes as f64),
            format!("peak < {TARGET_RATIO}x input"),
            verdict(ratio < TARGET_RATIO),
        ]);
    }

    fn print(&self) {
        let mut width = HEADER.map(str::len);
        for row in &self.rows {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        // Text columns left-aligned, numbers right-aligned.
        let left = |c: usize| c == 0 || c >= 8;
        let line = |cells: &[String]| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(c, s)| if left(c) { format!("{s:<w$}", w = width[c]) } else { format!("{s:>w$}", w = width[c]) })
                .collect();
            println!("{}", parts.join("  ").trim_end());
        };
        line(&HEADER.map(String::from));
        println!("{}", "-".repeat(width.iter().sum::<usize>() + 2 * (width.len() - 1)));
        for row in &self.rows {
            line(row);
        }
    }
}

fn verdict(pass: bool) -> String {
    if pass { "PASS" } else { "FAIL" }.to_string()
}
