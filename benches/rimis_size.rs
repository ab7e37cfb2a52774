//! Output size of the RIMIS transformation on the scalable models of paper 002 §5
//! (`benches/gen`): lines of output / lines of input, the number of CDG blocks, lines of
//! output per block, and the time of the whole job (parse, lower, analyse, transform,
//! emit), for growing N. §4.7 of paper 000 argues that the output is linear in the CDG,
//! hence linear in the input whenever the number of blocks is (Westinghouse, compressible
//! building); the incompressible building is paper 002's counter-example (Figure 14: 2^N
//! blocks), so its output grows with its blocks. Prints a table and writes
//! `benches/results/rimis_size.md`.
//!
//! `cargo bench --bench rimis_size [-- --limit SECONDS]`: a series stops at the first N
//! whose job takes longer than the limit (default 20 s).

#[path = "gen/mod.rs"]
mod r#gen;

use mdae_rimis::analysis::{self, Strategy};
use mdae_rimis::syntax::SourceFile;
use mdae_rimis::{driver, emit, mdae, rimis};
use std::fmt::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit: f64 = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20.0);
    let series: [(&str, fn(usize) -> String, &[usize]); 3] = [
        ("Westinghouse", r#gen::westinghouse, &[1, 2, 5, 10, 20, 30, 40, 50, 60, 80, 100]),
        (
            "building (compressible)",
            |n| r#gen::building(n, r#gen::Variant::Compressible),
            &[1, 2, 5, 10, 20, 30, 40, 50, 60, 80, 100],
        ),
        ("building (incompressible)", |n| r#gen::building(n, r#gen::Variant::Incompressible), &[1, 2, 4, 6, 8]), // 2^N blocks (paper 002, Figure 14): N = 10 takes minutes
    ];
    let mut table = String::from(
        "| model | N | input lines | CDG blocks | output lines | output / input | output lines / block | job time |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, make, ns) in series {
        for &n in ns {
            let text = make(n);
            let t0 = Instant::now();
            let file = SourceFile::new(format!("{name}{n}.mo"), text.clone());
            let result = job(&file);
            let secs = t0.elapsed().as_secs_f64();
            let lin = text.lines().count();
            let row = match &result {
                Ok((out, blocks)) => {
                    let lout = out.lines().count();
                    format!(
                        "| {name} | {n} | {lin} | {blocks} | {lout} | {:.2} | {:.1} | {secs:.2} s |\n",
                        lout as f64 / lin as f64,
                        lout as f64 / *blocks as f64
                    )
                }
                Err(e) => format!("| {name} | {n} | {lin} | | refused: {e} | | | {secs:.2} s |\n"),
            };
            print!("{row}");
            table.push_str(&row);
            if secs > limit {
                let _ = writeln!(table, "| {name} | larger N | | | | | | not run: the job took over {limit} s |");
                break;
            }
        }
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results/rimis_size.md");
    let doc = format!("# RIMIS output size (`cargo bench --bench rimis_size`)\n\n{table}");
    std::fs::write(&out, doc).expect("writes the results");
    println!("written {}", out.display());
}

/// The whole job, as `mdae-rimis FILE` runs it; returns the output and the number of CDG blocks.
fn job(file: &SourceFile) -> Result<(String, usize), String> {
    let def = driver::parse_model(file).map_err(|e| e.to_string())?;
    let model = mdae::lower(&def, file).map_err(|e| format!("{e:?}"))?;
    let cdg = analysis::analyse(&model, Strategy::Auto).map_err(|e| format!("{e:?}"))?;
    let out = rimis::transform(&def, &model, &cdg).map_err(|e| format!("{e:?}"))?;
    Ok((emit::emit(&out), cdg.blocks.len()))
}
