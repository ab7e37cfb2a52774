//! Output size of the RIMIS transformation on the scalable models of paper 002 §5
//! (`benches/gen`): lines of output / lines of input, and the time of the whole job
//! (parse, lower, analyse, transform, emit), for growing N. §4.7 of paper 000 expects
//! linear growth. Prints a table and writes `benches/results/rimis_size.md`.
//!
//! `cargo bench --bench rimis_size [-- --limit SECONDS]`: a series stops at the first N
//! whose job takes longer than the limit (default 20 s; the analysis, not the
//! transformation, bounds N: see `benches/results/scale.md`).

#[path = "gen/mod.rs"]
mod r#gen;

use mdae_rimis::analysis::Strategy;
use mdae_rimis::driver;
use mdae_rimis::syntax::SourceFile;
use std::fmt::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit: f64 = args.iter().position(|a| a == "--limit").and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(20.0);
    let series: [(&str, fn(usize) -> String, &[usize]); 3] = [
        ("Westinghouse", r#gen::westinghouse, &[1, 2, 5, 10, 20, 30, 40, 50, 60, 80, 100]),
        ("building (compressible)", |n| r#gen::building(n, r#gen::Variant::Compressible), &[1, 2, 5, 10, 15, 20, 30]),
        ("building (incompressible)", |n| r#gen::building(n, r#gen::Variant::Incompressible), &[1, 2, 4, 6, 8, 10]),
    ];
    let mut table = String::from("| model | N | input lines | output lines | output / input | job time |\n|---|---|---|---|---|---|\n");
    for (name, make, ns) in series {
        for &n in ns {
            let text = make(n);
            let t0 = Instant::now();
            let file = SourceFile::new(format!("{name}{n}.mo"), text.clone());
            let result = driver::rimis(&file, Strategy::Auto);
            let secs = t0.elapsed().as_secs_f64();
            let (lin, lout) = (text.lines().count(), result.as_ref().map(|r| r.0.lines().count()).unwrap_or(0));
            let row = match &result {
                Ok(_) => format!("| {name} | {n} | {lin} | {lout} | {:.2} | {secs:.2} s |\n", lout as f64 / lin as f64),
                Err(e) => format!("| {name} | {n} | {lin} | refused: {} | | {secs:.2} s |\n", e.to_string().lines().next().unwrap_or("")),
            };
            print!("{row}");
            table.push_str(&row);
            if secs > limit {
                let _ = writeln!(table, "| {name} | larger N | | | | not run: the job took over {limit} s |");
                break;
            }
        }
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results/rimis_size.md");
    let doc = format!("# RIMIS output size (`cargo bench --bench rimis_size`)\n\n{table}");
    std::fs::write(&out, doc).expect("writes the results");
    println!("written {}", out.display());
}
