//! Pipeline benchmark (issue 15): time per stage and peak memory of the main job
//! (`mdae-rimis flat.mo > fixed.mo`: parse → lower → analysis → RIMIS → emit) and of
//! `--check` (parse → lower → analysis → report), on families of growing size:
//!
//! - Westinghouse brake and compressible building (paper 002 §5, `benches/gen/mod.rs`),
//!   N = 10, 30, 100, 300, 1000; the incompressible building (2^N CDG blocks, paper 002
//!   Figure 14) from N = 2 until a point exceeds the cut-off;
//! - models without modes (`benches/gen/families.rs`): the chain
//!   `x_i = 0.5*x_{i-1} + sin(time)*i - cos(x_{i-1})`, independent equations `x_i = i*time`,
//!   a sparse thermal network; 10^3 … 10^5 equations;
//! - the product constraint `0 = x*x*…*x` of k factors (`../shared/repro/slow_product_x129.mo`
//!   for k = 129), differentiated twice;
//! - the largest models of `../shared/corpus/msl-flat` that the tool accepts, and the largest
//!   file of all (refused by the lowering: the stages up to the refusal are timed).
//!
//! Run: `cargo bench --bench pipeline` (plain binary). Options after `--`: `--quick` (small
//! sizes, 10 s cut-off, nothing written: a smoke run), `--series NAME` (only series whose
//! name contains NAME; nothing written), `--limit SECONDS` (cut-off per point, default
//! 120 s), `--sizes N,N,…` (these sizes for every selected series; nothing written),
//! `--write-models DIR` (write every generated input to DIR and exit: for comparing outputs
//! of two builds byte for byte).
//!
//! One point = one child process (the bench re-executes itself with
//! `MDAE_PIPELINE_POINT="<series> <N>"`), killed at the cut-off; a series stops at the first
//! point over it. Time of each stage: the process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`;
//! the job is single-threaded, so on an idle machine it is the wall-clock time, and on a
//! shared one it does not count the time other processes hold the cores), one run (the sizes
//! grow by ~3x, so noise does not hide a trend); the wall-clock time of the whole main job is
//! printed beside it. Peak memory: `VmHWM` of the child (`/proc/self/status`), read after the
//! report (the `--check` job's peak: its stages come first) and at the end (the main job's).
//! Output: the table on stdout; unless partial, `benches/results/pipeline.md` (the part
//! between the `<!-- table -->` markers is replaced, the hand-written rest kept),
//! `benches/results/pipeline.csv` and `benches/results/pipeline.png` (time and peak memory
//! against equations, log-log; needs the DejaVu font, else the PNG is skipped and it says so).
//! Fitted exponent: the least-squares slope of log(time) against log(equations), over the
//! points of a series whose stage takes at least 5 ms.

#[allow(unused_imports, dead_code)]
#[path = "gen/families.rs"]
mod families;
#[allow(unused_imports, dead_code)]
#[path = "gen/mod.rs"]
mod r#gen;

use mdae_rimis::analysis::{self, Strategy, report};
use mdae_rimis::{driver, emit, mdae, rimis};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The binary's allocator (`src/main.rs`): the bench times what the command runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const CHILD_ENV: &str = "MDAE_PIPELINE_POINT";
const STAGES: [&str; 6] = ["parse", "lower", "analysis", "report", "rimis", "emit"];
/// The largest msl-flat models the tool accepts (by file size), then the largest file.
const MSL: [&str; 4] = [
    "Modelica.Electrical.Machines.Examples.DCMachines.DC_CompareCharacteristics.mo",
    "Modelica.Electrical.Machines.Examples.DCMachines.DCPM_Drive.mo",
    "Modelica.Electrical.Analog.Examples.CauerLowPassSC.mo",
    "Modelica.Electrical.Spice3.Examples.Spice3BenchmarkFourBitBinaryAdder.FOURBIT.mo",
];

/// The series and their sizes (full run, quick run).
fn series(quick: bool) -> Vec<(&'static str, Vec<usize>)> {
    let paper = if quick { vec![10, 30] } else { vec![10, 30, 100, 300, 1000] };
    let flat = if quick { vec![1000, 3000] } else { vec![1000, 3000, 10_000, 30_000, 100_000] };
    let net: Vec<usize> = flat.iter().map(|&m: &usize| (m * 2 / 7).div_ceil(4) * 4).collect(); // 3.5n ≈ m
    vec![
        ("westinghouse", paper.clone()),
        ("building-compressible", paper),
        ("building-incompressible", if quick { vec![2, 4] } else { vec![2, 4, 6, 8, 10, 12] }),
        ("chain", flat.clone()),
        ("independent", flat),
        ("network", net),
        ("product", if quick { vec![16, 32] } else { vec![16, 32, 64, 129, 256] }),
        ("msl", (0..MSL.len()).collect()),
    ]
}

/// The input of a point: (file name, text).
fn input(series: &str, n: usize) -> Option<(String, String)> {
    let text = match series {
        "westinghouse" => r#gen::westinghouse(n),
        "building-compressible" => r#gen::building(n, r#gen::Variant::Compressible),
        "building-incompressible" => r#gen::building(n, r#gen::Variant::Incompressible),
        "chain" => families::chain(n),
        "independent" => families::independent(n),
        "network" => families::network(n),
        "product" => families::product(n),
        "msl" => {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/msl-flat").join(MSL[n]);
            return std::fs::read_to_string(path).ok().map(|t| (MSL[n].to_string(), t));
        }
        other => panic!("unknown series {other}"),
    };
    Some((format!("{series}{n}.mo"), text))
}

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

unsafe extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

/// CPU seconds used by this process so far (Linux `CLOCK_PROCESS_CPUTIME_ID`).
fn cpu_seconds() -> f64 {
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a Linux constant.
    let ok = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    assert!(ok, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    t.sec as f64 + t.nsec as f64 * 1e-9
}

/// A `kB` field of `/proc/self/status` (`VmHWM`: peak resident memory, `VmRSS`: current).
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn vm_hwm_kb() -> u64 {
    status_kb("VmHWM")
}

/// In the child: runs the stages, prints `key=value` fields separated by tabs.
fn child(spec: &str) {
    let (series, n) = spec.split_once(' ').expect("series N");
    let (name, text) = input(series, n.parse().expect("N")).expect("input exists");
    let bytes = text.len();
    let file = driver::source_from_bytes(name, text.into_bytes()).expect("UTF-8");
    let mut fields = vec![format!("bytes={bytes}")];
    let wall = Instant::now();
    let mut clock = cpu_seconds();
    // Per stage: CPU seconds, and the resident memory after it (`rss_<stage>`, kB: what
    // the stages so far keep; the CSV has it, for finding where memory goes).
    let mut lap = |fields: &mut Vec<String>, stage: &str| {
        let now = cpu_seconds();
        fields.push(format!("{stage}={:.6}", now - clock));
        fields.push(format!("rss_{stage}={}", status_kb("VmRSS")));
        clock = now;
    };
    let outcome = (|| -> Result<(), String> {
        let def = driver::parse_model(&file).map_err(|e| format!("parse: {e}"))?;
        lap(&mut fields, "parse");
        let model = mdae::lower(&def, &file).map_err(|e| format!("lower: {}", e.short(&file)))?;
        lap(&mut fields, "lower");
        fields.push(format!("equations={}", model.equations.len()));
        let cdg = analysis::analyse(&model, Strategy::Auto).map_err(|e| format!("analysis: {e}"))?;
        lap(&mut fields, "analysis");
        fields.push(format!("blocks={}", cdg.blocks.len()));
        std::hint::black_box(report::check(&model, &cdg));
        lap(&mut fields, "report");
        fields.push(format!("peak_check={}", vm_hwm_kb()));
        let out = rimis::transform(&def, &model, &cdg).map_err(|e| format!("rimis: {}", e.short(&file)))?;
        lap(&mut fields, "rimis");
        let text = emit::emit(&out);
        lap(&mut fields, "emit");
        fields.push(format!("wall={:.6}", wall.elapsed().as_secs_f64()));
        fields.push(format!("output={}", text.len()));
        Ok(())
    })();
    fields.push(format!("peak={}", vm_hwm_kb()));
    if let Err(e) = outcome {
        fields.push(format!("refused={}", e.replace(['\t', '\n'], " ")));
    }
    println!("{}", fields.join("\t"));
}

/// One measured point: the child's fields.
struct Point {
    series: String,
    n: usize,
    fields: std::collections::BTreeMap<String, String>,
}

impl Point {
    fn num(&self, key: &str) -> Option<f64> {
        self.fields.get(key).and_then(|v| v.parse().ok())
    }

    fn secs(&self, stages: &[&str]) -> Option<f64> {
        stages.iter().map(|s| self.num(s)).sum()
    }
}

/// Measures one point in a child killed after `limit` seconds (`None` then).
fn measure(series: &str, n: usize, limit: f64) -> Option<Point> {
    let mut proc = std::process::Command::new(std::env::current_exe().expect("own path"))
        .env(CHILD_ENV, format!("{series} {n}"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the measuring child");
    let start = Instant::now();
    while proc.try_wait().expect("wait").is_none() {
        if start.elapsed().as_secs_f64() > limit {
            let _ = proc.kill();
            let _ = proc.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = proc.wait_with_output().expect("child output");
    let line = String::from_utf8_lossy(&out.stdout);
    let fields = line
        .trim_end()
        .split('\t')
        .filter_map(|f| f.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    Some(Point { series: series.to_string(), n, fields })
}

fn ms(x: Option<f64>) -> String {
    match x {
        Some(s) if s >= 10.0 => format!("{s:.1} s"),
        Some(s) if s >= 1.0 => format!("{s:.2} s"),
        Some(s) => format!("{:.1} ms", s * 1e3),
        None => "—".into(),
    }
}

fn mb(kb: Option<f64>) -> String {
    kb.map_or("—".into(), |k| format!("{:.0} MB", k / 1024.0))
}

fn row(p: &Point) -> String {
    let name = if p.series == "msl" { MSL[p.n].trim_end_matches(".mo").to_string() } else { p.series.clone() };
    let n = if p.series == "msl" { String::new() } else { p.n.to_string() };
    let stages: Vec<String> = STAGES.iter().map(|s| ms(p.num(s))).collect();
    let check = ms(p.secs(&STAGES[..4]));
    let full = ms(p.secs(&["parse", "lower", "analysis", "rimis", "emit"]));
    let refused = p.fields.get("refused").map_or(String::new(), |r| format!(" refused at {r}"));
    format!(
        "| {name} | {n} | {} | {:.0} kB | {} | {check} | {full} | {} | {} | {} | {}{refused} |\n",
        p.fields.get("equations").map_or("—", String::as_str),
        p.num("bytes").unwrap_or(0.0) / 1e3,
        stages.join(" | "),
        ms(p.num("wall")),
        mb(p.num("peak_check")),
        mb(p.num("peak")),
        p.num("output").map_or("—".into(), |o| format!("{:.0} kB", o / 1e3)),
    )
}

const HEADER: &str = "| model | N | equations | input | parse | lower | analysis | report | rimis | emit | `--check` | main job | main job (wall) | peak `--check` | peak main | output |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";

/// Least-squares slope of log(y) against log(x) over the points with y ≥ `floor`.
fn exponent(points: &[(f64, f64)], floor: f64) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points.iter().filter(|p| p.1 >= floor).map(|p| (p.0.ln(), p.1.ln())).collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / k, pts.iter().map(|p| p.1).sum::<f64>() / k);
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The exponent table: per series, per stage, main job, `--check` and peak memory.
fn exponents(points: &[Point]) -> String {
    let mut out = String::from(
        "| series | parse | lower | analysis | report | rimis | emit | `--check` | main job | peak main |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut names: Vec<&str> = points.iter().map(|p| p.series.as_str()).filter(|s| *s != "msl").collect();
    names.dedup();
    for s in names {
        let pts: Vec<&Point> = points.iter().filter(|p| p.series == s && !p.fields.contains_key("refused")).collect();
        let fit = |f: &dyn Fn(&Point) -> Option<f64>, floor: f64| {
            let xy: Vec<(f64, f64)> = pts.iter().filter_map(|p| Some((p.num("equations")?, f(p)?))).collect();
            exponent(&xy, floor).map_or("—".into(), |e| format!("{e:.2}"))
        };
        let mut cells: Vec<String> = STAGES.iter().map(|st| fit(&|p| p.num(st), 5e-3)).collect();
        cells.push(fit(&|p| p.secs(&STAGES[..4]), 5e-3));
        cells.push(fit(&|p| p.secs(&["parse", "lower", "analysis", "rimis", "emit"]), 5e-3));
        // Memory above the process's own baseline (about 2 MB), so small points do not flatten it.
        cells.push(fit(&|p| p.num("peak").map(|k| k - 2048.0), 1024.0));
        let _ = writeln!(out, "| {s} | {} |", cells.join(" | "));
    }
    out
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        child(&spec);
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|k| args.get(k + 1)).cloned();
    let quick = args.iter().any(|a| a == "--quick");
    let only = arg("--series");
    let limit: f64 = arg("--limit").map_or(if quick { 10.0 } else { 120.0 }, |s| s.parse().expect("--limit SECONDS"));
    let mut all = series(quick);
    all.retain(|(s, _)| only.as_ref().is_none_or(|o| s.contains(o.as_str())));
    if let Some(sizes) = arg("--sizes") {
        let sizes: Vec<usize> = sizes.split(',').map(|n| n.parse().expect("--sizes N,N,…")).collect();
        all.iter_mut().for_each(|(_, ns)| *ns = sizes.clone());
    }
    if let Some(dir) = arg("--write-models") {
        write_models(Path::new(&dir), &all);
        return;
    }
    print!("{HEADER}");
    let (mut table, mut points) = (String::from(HEADER), Vec::new());
    for (s, ns) in &all {
        for &n in ns {
            if *s == "msl" && input(s, n).is_none() {
                continue; // the corpus is not there
            }
            let Some(p) = measure(s, n, limit) else {
                let row = format!(
                    "| {s} | {n} | | | over the {limit} s cut-off (killed): series stopped | | | | | | | | | | | |\n"
                );
                print!("{row}");
                table.push_str(&row);
                break;
            };
            let r = row(&p);
            print!("{r}");
            table.push_str(&r);
            points.push(p);
        }
    }
    let fits = exponents(&points);
    println!("\nFitted exponents (time ∝ equations^k):\n{fits}");
    if quick || only.is_some() || arg("--sizes").is_some() {
        println!("(partial run: results not written to benches/results/)");
        return;
    }
    write_results(&table, &fits, &points);
}

/// `--write-models DIR`: every generated input of the selected series, as `DIR/<series><N>.mo`.
fn write_models(dir: &Path, all: &[(&str, Vec<usize>)]) {
    std::fs::create_dir_all(dir).expect("create the directory");
    for (s, ns) in all {
        for &n in ns.iter().filter(|_| *s != "msl") {
            let (name, text) = input(s, n).expect("generated");
            std::fs::write(dir.join(name), text).expect("write a model");
        }
    }
}

fn write_results(table: &str, fits: &str, points: &[Point]) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/results");
    let md = dir.join("pipeline.md");
    let old = std::fs::read_to_string(&md).unwrap_or_default();
    let generated = format!(
        "<!-- table: written by `cargo bench --bench pipeline` -->\n{table}\nFitted exponents (time ∝ equations^k, points of ≥ 5 ms; memory above a 2 MB baseline):\n\n{fits}<!-- /table -->"
    );
    let doc = match (old.find("<!-- table"), old.find("<!-- /table -->")) {
        (Some(a), Some(b)) => format!("{}{generated}{}", &old[..a], &old[b + "<!-- /table -->".len()..]),
        _ => format!("# Pipeline benchmark (`cargo bench --bench pipeline`)\n\n{generated}\n"),
    };
    std::fs::write(&md, doc).expect("write pipeline.md");
    let rss: Vec<String> = STAGES.iter().map(|s| format!("rss_{s}")).collect();
    let columns: Vec<&str> = ["equations", "bytes"]
        .into_iter()
        .chain(STAGES)
        .chain(["wall", "peak_check", "peak", "output"])
        .chain(rss.iter().map(String::as_str))
        .collect();
    let mut csv = String::from("series,n");
    for k in &columns {
        csv.push(',');
        csv.push_str(k);
    }
    csv.push('\n');
    for p in points {
        let mut line = format!("{},{}", p.series, p.n);
        for k in &columns {
            line.push(',');
            line.push_str(p.fields.get(*k).map_or("", String::as_str));
        }
        let _ = writeln!(csv, "{line}");
    }
    std::fs::write(dir.join("pipeline.csv"), csv).expect("write pipeline.csv");
    match std::fs::read(FONT) {
        Ok(font) => {
            plot(&dir.join("pipeline.png"), points, font).expect("draw pipeline.png");
            println!("wrote benches/results/pipeline.{{md,csv,png}}");
        }
        Err(e) => println!("wrote benches/results/pipeline.{{md,csv}}; PNG skipped: cannot read {FONT}: {e}"),
    }
}

/// Two panels against equations (log-log): main-job time, and peak memory.
fn plot(path: &Path, points: &[Point], font: Vec<u8>) -> Result<(), String> {
    use plotters::prelude::*;
    let font: &'static [u8] = Box::leak(font.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, font).map_err(|_| "invalid font".to_string())?;
    let root = BitMapBackend::new(path, (1600, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let panels = root.split_evenly((1, 2));
    let mut names: Vec<&str> = points.iter().map(|p| p.series.as_str()).filter(|s| *s != "msl").collect();
    names.dedup();
    let full = |p: &Point| p.secs(&["parse", "lower", "analysis", "rimis", "emit"]);
    let peak = |p: &Point| p.num("peak").map(|k| k / 1024.0);
    let panels_spec: [(&str, &str, &dyn Fn(&Point) -> Option<f64>); 2] =
        [("main job: time against equations", "seconds", &full), ("main job: peak memory", "MB", &peak)];
    for (area, (caption, unit, value)) in panels.iter().zip(panels_spec) {
        let curves: Vec<(&str, Vec<(f64, f64)>)> = names
            .iter()
            .map(|s| {
                let c = points
                    .iter()
                    .filter(|p| p.series == *s)
                    .filter_map(|p| Some((p.num("equations")?, value(p)?.max(1e-3))))
                    .collect();
                (*s, c)
            })
            .collect();
        let max_x = curves.iter().flat_map(|c| c.1.iter().map(|p| p.0)).fold(10.0, f64::max);
        let max_y = curves.iter().flat_map(|c| c.1.iter().map(|p| p.1)).fold(1.0, f64::max);
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 24))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((10.0..max_x * 1.5).log_scale(), (1e-3..max_y * 2.0).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("equations")
            .y_desc(unit)
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(|e| e.to_string())?;
        for (k, (name, pts)) in curves.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(name.to_string())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}
