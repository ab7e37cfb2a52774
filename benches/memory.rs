//! Memory benchmark (issue 15: a model without modes of 10^5 equations in < 10× its size):
//! the heap held after each stage of the CLI's main job and of `--check`, and the peak
//! reached inside the stage, counted by a global allocator of this binary only, wrapping
//! the shipped binary's (mimalloc, `src/main.rs`).
//!
//! The stages are the driver's (`src/driver/mod.rs`), called in its order on the same
//! values, each step timed by what it holds when it returns:
//! - main job: read (the `SourceFile`), parse, unsupported, validate, declaration
//!   equations, lower, then either `fits_a_priori` → `rimis::unchanged` (the file moved
//!   into the output) → emit written to a sink, or analysis → RIMIS → emit → self-check;
//! - `--check`: read … declaration equations, the causal (discrete-loop) check, lower,
//!   analysis, mode changes, the report written to a sink as it is made.
//!
//! Run: `cargo bench --bench memory` (plain binary). Options after `--`: `--series
//! chain,independent,network` (default: all three), `--sizes N,N,…` (default 100000; the
//! network is given its number of nodes, 2/7 of it, so that it has about N equations),
//! `--file PATH` (a file instead of generated models). Output: a table per model on
//! stdout (MB = 10^6 bytes), the input's size and the ratios to it. Nothing is written.
//! With `MDAE_MEMORY_STOP=<stage>` the binary exits after the first stage whose name starts
//! so (under `heaptrack`, whose peak is then that stage's: who holds what).

#[allow(unused_imports, dead_code)]
#[path = "gen/families.rs"]
mod families;

use mdae_rimis::analysis::{self, Strategy};
use mdae_rimis::{driver, emit, flat, mdae, rimis, syntax, validate};
use mimalloc::MiMalloc as Inner;
use std::alloc::{GlobalAlloc, Layout};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The binary's allocator (mimalloc), counting the bytes live and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(live, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { Inner.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { Inner.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { Inner.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        let p = unsafe { Inner.realloc(ptr, layout, new) };
        if !p.is_null() {
            if new >= layout.size() {
                grew(new - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The rows of one job's table: (stage, held after it, peak inside it), bytes.
struct Stages {
    rows: Vec<(String, usize, usize)>,
}

impl Stages {
    fn new() -> Stages {
        PEAK.store(LIVE.load(Relaxed), Relaxed);
        Stages { rows: Vec::new() }
    }

    /// Ends the stage `name`: what is live now, the peak since the last stage ended.
    fn lap(&mut self, name: &str) {
        let live = LIVE.load(Relaxed);
        self.rows.push((name.to_string(), live, PEAK.load(Relaxed)));
        PEAK.store(live, Relaxed);
        if std::env::var("MDAE_MEMORY_STOP").is_ok_and(|stop| name.starts_with(stop.as_str())) {
            std::process::exit(0); // the stage's holders at the end of a heap profile
        }
    }

    fn print(&self, job: &str, base: usize, input: usize) {
        let mb = |b: usize| format!("{:.1}", b as f64 / 1e6);
        println!("\n{job} (heap over what was live before it, MB; ×input)\n");
        println!("| stage | held after | peak inside |");
        println!("|---|---:|---:|");
        let mut peak = 0;
        for (name, live, top) in &self.rows {
            let (live, top) = (live.saturating_sub(base), top.saturating_sub(base));
            peak = peak.max(top);
            println!("| {name} | {} | {} |", mb(live), mb(top));
        }
        println!("| **peak of the job** | | **{} ({:.1}×)** |", mb(peak), peak as f64 / input as f64);
    }
}

/// The main job (`mdae-rimis FILE > out`), stage by stage.
fn main_job(name: &str, text: &str) -> Stages {
    let mut s = Stages::new();
    let file = driver::source_from_bytes(name.into(), text.as_bytes().to_vec()).expect("UTF-8");
    s.lap("read");
    let def = front(&file, &mut s);
    let model = mdae::lower(&def, &file).expect("lowers");
    s.lap("lower (flat + mDAE)");
    match analysis::oblivious::fits_a_priori(&model) {
        Some(why) => {
            s.lap("fits a priori");
            let name = model.name.clone();
            drop(model);
            s.lap("mDAE dropped");
            let out = rimis::unchanged(def, &name, why).expect("unchanged");
            s.lap("rimis::unchanged (file moved)");
            emit::write(&out, &mut std::io::sink()).expect("sink");
            s.lap("emit (streamed)");
        }
        None => {
            s.lap("fits a priori (no)");
            let cdg = analysis::analyse(&model, Strategy::Auto).expect("analysis");
            s.lap("analysis");
            let out = rimis::transform(&def, &model, &cdg).expect("rimis");
            s.lap("rimis");
            let n = cdg.blocks.len();
            drop(cdg);
            let text = emit::emit(&out);
            drop(out);
            s.lap("emit (text)");
            driver::self_check(&file, &model, &text, n).expect("self-check");
            s.lap("self-check");
        }
    }
    s
}

/// `--check FILE`, stage by stage.
fn check_job(name: &str, text: &str) -> Stages {
    let mut s = Stages::new();
    let file = driver::source_from_bytes(name.into(), text.as_bytes().to_vec()).expect("UTF-8");
    s.lap("read");
    let def = front(&file, &mut s);
    let causal = analysis::causal::report::CausalCheck::of(&def);
    s.lap("causal check");
    let model = mdae::lower(&def, &file).expect("lowers");
    s.lap("lower (flat + mDAE)");
    let cdg = analysis::analyse(&model, Strategy::Auto).expect("analysis");
    s.lap("analysis");
    let changes = rimis::mode_changes(&def, &model, &cdg);
    s.lap("mode changes");
    // Written as it is made, as the driver does (to a sink here).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
    analysis::report::write_check(&model, &cdg, &mut out).expect("sink");
    if let Ok(c) = &changes {
        out.write_all(analysis::impulse::text(c).as_bytes()).expect("sink");
    }
    out.write_all(causal.text(&file).as_bytes()).expect("sink");
    out.flush().expect("sink");
    drop(out);
    s.lap("report (streamed)");
    s
}

/// Parse, checks, validation and declaration equations, as the driver does them.
fn front(file: &syntax::SourceFile, s: &mut Stages) -> syntax::ast::StoredDefinition {
    let mut def = syntax::parse(&file.text).expect("parses");
    s.lap("parse (AST)");
    syntax::check::refuse_unsupported(&def).expect("supported");
    s.lap("unsupported constructs");
    let diagnostics = validate::validate(&def);
    assert!(diagnostics.iter().all(|d| d.severity != validate::Severity::Error), "valid");
    drop(diagnostics);
    s.lap("validate");
    flat::move_declaration_equations(&mut def);
    s.lap("declaration equations");
    def
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|k| args.get(k + 1)).cloned();
    let mut inputs: Vec<(String, String)> = Vec::new();
    if let Some(path) = arg("--file") {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        inputs.push((path, text));
    } else {
        let series = arg("--series").unwrap_or_else(|| "chain,independent,network".into());
        let sizes = arg("--sizes").unwrap_or_else(|| "100000".into());
        for s in series.split(',') {
            for n in sizes.split(',').map(|n| n.parse::<usize>().expect("--sizes N,N,…")) {
                let text = match s {
                    "chain" => families::chain(n),
                    "independent" => families::independent(n),
                    "network" => families::network((n * 2 / 7).div_ceil(4) * 4),
                    other => panic!("unknown series {other} (chain, independent, network)"),
                };
                inputs.push((format!("{s}{n}.mo"), text));
            }
        }
    }
    for (name, text) in inputs {
        let base = LIVE.load(std::sync::atomic::Ordering::Relaxed);
        println!("\n## {name}: {:.2} MB of input", text.len() as f64 / 1e6);
        main_job(&name, &text).print("main job", base, text.len());
        check_job(&name, &text).print("--check", base, text.len());
    }
}
