//! The command-line job: read the input (file or stdin), run the requested stage,
//! write the result (stdout, or atomically to `-o`). Owns [`Cli`] (clap) and
//! [`DriverError`] with its exit code; `main.rs` only parses and maps.

mod batch;
mod cli;
mod located;
mod output;

pub use cli::{Cli, Emit, Report, StrategyArg};
pub use located::Located;

use crate::analysis::{self, AnalysisError, Strategy};
use crate::mdae::{self, LowerError};
use crate::syntax::{self, SourceFile, Span, SyntaxError, SyntaxErrorKind};
use crate::validate::{self, Diagnostic, Severity};
use std::io::Read;

/// Everything that stops a run, with its exit code.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{}", .error.short(.file))]
    Syntax { file: Box<SourceFile>, error: SyntaxError },
    /// The validation found errors (at least one; in source order).
    #[error("{}", .errors[0].short(.file))]
    Invalid { file: Box<SourceFile>, errors: Vec<Diagnostic> },
    #[error("{}", .error.short(.file))]
    Lower { file: Box<SourceFile>, error: LowerError },
    /// Located at the model's first equation (`at`: line and column), if it has one.
    #[error("{}: error: {error}{}", place(.file, .at), analysis_hint(.error))]
    Analysis { file: String, at: Option<(u32, u32)>, error: AnalysisError },
    #[error("{}", .error.short(.file))]
    Rimis { file: Box<SourceFile>, error: crate::rimis::RimisError },
    /// The analysis found valid modes in which the model is structurally singular; the
    /// report has been written, the message lists the modes.
    #[error("{0}")]
    Singular(String),
    #[error("{0}")]
    Usage(String),
}

impl DriverError {
    /// 1: the input is rejected; 2: usage or I/O error.
    pub fn exit_code(&self) -> i32 {
        match self {
            DriverError::Syntax { .. }
            | DriverError::Invalid { .. }
            | DriverError::Lower { .. }
            | DriverError::Analysis { .. }
            | DriverError::Rimis { .. }
            | DriverError::Singular(_) => 1,
            DriverError::Io { .. } | DriverError::Usage(_) => 2,
        }
    }

    /// The diagnostic for stderr, with source context where there is a source.
    pub fn render(&self) -> String {
        match self {
            DriverError::Syntax { file, error } => error.render(file),
            DriverError::Invalid { file, errors } => errors.iter().map(|e| e.render(file)).collect(),
            DriverError::Lower { file, error } => error.render(file),
            DriverError::Rimis { file, error } => error.render(file),
            DriverError::Singular(message) => message.clone(),
            DriverError::Analysis { .. } => format!("{self}\n"),
            other => format!("error: {other}\n"),
        }
    }
}

/// The command line, from its arguments (the program's name first) to its exit code:
/// arguments parsed (a usage error, `--help`, `--version`: printed by clap, its code), the
/// job run, a failure's diagnostic printed to stderr. `main.rs` and the Python package's
/// `mdae-rimis` command both run it.
pub fn cli_main<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::Parser;
    use std::io::Write;
    let code = match Cli::try_parse_from(args) {
        Err(e) => {
            let _ = e.print();
            e.exit_code()
        }
        Ok(cli) => match run(&cli) {
            Ok(()) => 0,
            Err(e) => {
                eprint!("{}", e.render());
                e.exit_code()
            }
        },
    };
    let _ = std::io::stdout().flush();
    code
}

/// Runs the job described by `cli`; on success the result has been written.
pub fn run(cli: &Cli) -> Result<(), DriverError> {
    if let Some(dir) = &cli.out_dir {
        return batch::run(cli, dir);
    }
    if cli.paths.len() > 1 {
        return Err(DriverError::Usage("several input files need --out-dir DIR".into()));
    }
    let file = read_input(cli.file())?;
    if cli.check || cli.report.is_some() || cli.dot.is_some() {
        return analysis_job(cli, &file);
    }
    let out = match cli.emit {
        Emit::Canonical => Output::Text(canonical(&file)?),
        Emit::Rimis => {
            let (out, messages) = rimis_output(&file, strategy(cli))?;
            for m in messages {
                eprintln!("{m}");
            }
            out
        }
    };
    drop(file);
    out.write(cli.output.as_deref())
}

/// What the main job writes: the text, or a model passed unchanged, printed as it is
/// written (a large model without modes is not held twice: issue 15).
pub enum Output {
    Text(String),
    Unchanged(Box<crate::rimis::RimisModel>),
}

impl Output {
    /// The whole text.
    pub fn text(self) -> String {
        match self {
            Output::Text(text) => text,
            Output::Unchanged(m) => crate::emit::emit(&m),
        }
    }

    /// Writes it to stdout or, atomically, to `path` ([`output::write`]).
    pub fn write(&self, path: Option<&std::path::Path>) -> Result<(), DriverError> {
        match self {
            Output::Text(text) => output::write(path, text),
            Output::Unchanged(m) => output::write_with(path, &|w| crate::emit::write(m, w)),
        }
    }
}

fn strategy(cli: &Cli) -> Strategy {
    match cli.strategy {
        StrategyArg::Implicit => Strategy::Implicit,
        StrategyArg::Explicit => Strategy::Explicit,
        StrategyArg::Auto => Strategy::Auto,
    }
}

/// The main job: parse, lower, analyse (unless [`analysis::oblivious::fits_a_priori`]
/// shows the model needs no rewrite), transform, emit. Returns the model text and
/// the messages for stderr (`file: warning: …`, `file: note: …`).
pub fn rimis(file: &SourceFile, strategy: Strategy) -> Result<(String, Vec<String>), DriverError> {
    rimis_output(file, strategy).map(|(out, messages)| (out.text(), messages))
}

/// [`rimis`], a model passed unchanged not yet printed.
pub fn rimis_output(file: &SourceFile, strategy: Strategy) -> Result<(Output, Vec<String>), DriverError> {
    let (out, found) = rewrite(file, strategy)?;
    Ok((out, found.messages(file)))
}

/// What the main job found beside its output: the validation's warnings, the rewrite's
/// warnings and notes (unlocated), and whether the model was changed.
pub struct Findings {
    pub validation: Vec<Diagnostic>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
    pub changed: bool,
}

impl Findings {
    /// The messages for stderr, in this order: the validation's warnings (with source
    /// context), then `file: warning: …`, then `file: note: …`.
    pub fn messages(&self, file: &SourceFile) -> Vec<String> {
        let validation = self.validation.iter().map(|w| w.render(file).trim_end().to_string());
        let warnings = self.warnings.iter().map(|w| format!("{}: warning: {w}", file.name));
        validation.chain(warnings).chain(self.notes.iter().map(|n| format!("{}: note: {n}", file.name))).collect()
    }
}

/// The main job: parse, lower, analyse (unless [`analysis::oblivious::fits_a_priori`]
/// shows the model needs no rewrite), transform, emit; the output and what was found.
pub fn rewrite(file: &SourceFile, strategy: Strategy) -> Result<(Output, Findings), DriverError> {
    let (def, validation) = parse_checked(file)?;
    let mut model =
        mdae::lower(&def, file).map_err(|error| DriverError::Lower { file: Box::new(file.clone()), error })?;
    // A model one structural analysis fits in every mode passes unchanged without the
    // exact analysis (linear; the exact analysis of a large block can be exponential).
    let rimis_error = |error| DriverError::Rimis { file: Box::new(file.clone()), error };
    let findings = |out: &crate::rimis::RimisModel, changed: bool| Findings {
        validation: validation.clone(),
        warnings: out.warnings.clone(),
        notes: out.notes.clone(),
        changed,
    };
    match analysis::oblivious::fits_a_priori(&model) {
        Some(why) => {
            // Unchanged: no self-check. The mDAE is not needed to print it, and the
            // file's parts move into the output.
            let name = std::mem::take(&mut model.name);
            drop(model);
            let out = crate::rimis::unchanged(def, &name, why).map_err(rimis_error)?;
            let found = findings(&out, false);
            Ok((Output::Unchanged(Box::new(out)), found))
        }
        None => {
            let cdg = analyse(file, &model, strategy)?;
            let out = crate::rimis::transform(&def, &model, &cdg).map_err(rimis_error)?;
            let n_blocks = cdg.blocks.len();
            let at = first_equation(&model);
            drop(cdg);
            drop(model);
            drop(def);
            let text = crate::emit::emit(&out);
            let changed = !out.header.iter().any(|h| h.starts_with("The model is unchanged"));
            if changed {
                check_output(file, at, &text, n_blocks)?;
            }
            Ok((Output::Text(text), findings(&out, changed)))
        }
    }
}

/// A rewritten output must meet paper 000 §4.2 ([`analysis::oblivious::meets_the_guarantee`])
/// — the check stands in for omc, which is not in CI: a rewrite that does not is refused,
/// located at the model, never emitted.
pub fn self_check(file: &SourceFile, model: &mdae::Mdae, text: &str, n_blocks: usize) -> Result<(), DriverError> {
    check_output(file, first_equation(model), text, n_blocks)
}

/// Where a refused rewrite is located: the model's first equation.
fn first_equation(model: &mdae::Mdae) -> Span {
    model.equations.first().map(|e| e.span).unwrap_or(syntax::Span::DUMMY)
}

/// [`self_check`], the refusal located at `span`.
fn check_output(file: &SourceFile, span: Span, text: &str, n_blocks: usize) -> Result<(), DriverError> {
    let refuse = |why: String| {
        let message = format!(
            "unsupported: the rewrite of this model does not meet the guarantee of paper 000 §4.2 ({why}); refused rather than emitted"
        );
        DriverError::Rimis { file: Box::new(file.clone()), error: crate::rimis::RimisError::new(span, message) }
    };
    let out = SourceFile::new(file.name.clone(), text.to_string());
    // Parsed and lowered as any input, without the validation pass (the output is ours;
    // what the check needs is the flat stage and the lowering).
    let mut def =
        syntax::parse(text).map_err(|e| refuse(format!("its output does not read back: {}", e.render(&out).trim())))?;
    crate::flat::move_declaration_equations(&mut def);
    let m = mdae::lower(&def, &out).map_err(|e| refuse(format!("its output does not lower: {}", e.short(&out))))?;
    let lines = crate::emit::block_of_lines(text);
    let block_of = |line: u32| lines.get((line as usize).wrapping_sub(1)).copied().flatten();
    // Equations of a block that pass through in the output are time-invariant there
    // (`flat::invariant`): solved once.
    let once: std::collections::BTreeSet<usize> = m
        .passed
        .iter()
        .filter_map(|e| block_of(out.line_col(e.span().start as usize).0 as u32).map(|(k, _)| k))
        .collect();
    let merged = crate::emit::merged_blocks(text);
    analysis::oblivious::meets_the_guarantee(&m, n_blocks, &block_of, &|k| once.contains(&k), &merged)
        .map_err(refuse)?;
    no_singular_mode(&m).map_err(refuse)
}

/// The output is structurally nonsingular in every valid mode (the input's singular modes
/// are invalid in it: it asserts they are never entered, `rimis::singular`), where the
/// modes are few enough to enumerate ([`analysis::every_mode`]): the union analysis of
/// [`analysis::oblivious::meets_the_guarantee`] can be nonsingular while a mode is not,
/// which `--check` on the output would report (issue 13).
fn no_singular_mode(m: &mdae::Mdae) -> Result<(), String> {
    match analysis::every_mode::check(m) {
        analysis::every_mode::EveryMode::Singular { mode, over, under } => {
            let mode: Vec<String> = mode.iter().map(|(n, v)| if *v { n.clone() } else { format!("not {n}") }).collect();
            Err(format!(
                "its output is structurally singular when {} (overdetermined equations [{}], underdetermined variables [{}])",
                mode.join(" and "),
                over.join(", "),
                under.join(", ")
            ))
        }
        _ => Ok(()),
    }
}

/// [`parse_valid`] without the warnings.
pub fn parse_model(file: &SourceFile) -> Result<syntax::ast::StoredDefinition, DriverError> {
    parse_valid(file).map(|(def, _)| def)
}

/// Parses, checks and validates `file` ([`crate::validate`]: errors refuse it), then moves
/// the declaration equations of its model into its equations
/// ([`crate::flat::move_declaration_equations`]): the form every later stage reads. Also returns
/// the validation's warnings, rendered for stderr.
pub fn parse_valid(file: &SourceFile) -> Result<(syntax::ast::StoredDefinition, Vec<String>), DriverError> {
    let (def, warnings) = parse_checked(file)?;
    Ok((def, warnings.iter().map(|w| w.render(file).trim_end().to_string()).collect()))
}

/// [`parse_valid`], the warnings as the validation's diagnostics.
pub fn parse_checked(file: &SourceFile) -> Result<(syntax::ast::StoredDefinition, Vec<Diagnostic>), DriverError> {
    let rejected = |error| DriverError::Syntax { file: Box::new(file.clone()), error };
    let mut def = syntax::parse(&file.text).map_err(rejected)?;
    syntax::check::refuse_unsupported(&def).map_err(rejected)?;
    let (errors, warnings): (Vec<Diagnostic>, Vec<Diagnostic>) =
        validate::validate(&def).into_iter().partition(|d| d.severity == Severity::Error);
    if !errors.is_empty() {
        return Err(DriverError::Invalid { file: Box::new(file.clone()), errors });
    }
    crate::flat::move_declaration_equations(&mut def);
    Ok((def, warnings))
}

/// Parses and prints the canonical form.
pub fn canonical(file: &SourceFile) -> Result<String, DriverError> {
    let rejected = |error| DriverError::Syntax { file: Box::new(file.clone()), error };
    let def = syntax::parse(&file.text).map_err(rejected)?;
    syntax::check::refuse_unsupported(&def).map_err(rejected)?;
    Ok(syntax::print(&def))
}

/// `--check`, `--report`, `--dot`: analyse, write the requested outputs, then fail with
/// exit code 1 if some valid mode is structurally singular.
fn analysis_job(cli: &Cli, file: &SourceFile) -> Result<(), DriverError> {
    let (def, warnings) = parse_valid(file)?;
    for w in warnings {
        eprintln!("{w}");
    }
    // The causal check first: its rows are dropped but for the loops it shows before the
    // mDAE and the CDG are built (issue 15: the peak of a large model).
    let causal = analysis::causal::report::CausalCheck::of(&def);
    let model = mdae::lower(&def, file).map_err(|error| DriverError::Lower { file: Box::new(file.clone()), error })?;
    let cdg = analyse(file, &model, strategy(cli))?;
    // The mode changes that need a restart and their impulse analysis: found where the
    // restart systems are built, by the RIMIS stage (not run on a singular model).
    let changes = (cdg.singular.is_empty() && (cli.check || cli.report.is_some()))
        .then(|| crate::rimis::mode_changes(&def, &model, &cdg));
    // The initial system in every mode the model may start in (issue 29 point 4).
    let initial = (cli.check || cli.report.is_some()).then(|| analysis::initial::check(&def, file, &model, &cdg));
    // With --report json the JSON is alone on stdout (or in -o), so that it parses.
    let (changes, json) = match cli.report {
        Some(Report::Json) => (None, Some(json_report(file, &model, &cdg, &causal, changes, initial.clone()))),
        None => (changes, None),
    };
    if let Some(path) = &cli.dot {
        output::write(Some(path), &analysis::report::dot(&model, &cdg))?;
    }
    // Written as it is made (the report of a model of 10^5 equations is several MB).
    output::write_with(cli.output.as_deref(), &|w| {
        if cli.check && json.is_none() {
            analysis::report::write_check(&model, &cdg, w)?;
            if let Some(initial) = &initial {
                w.write_all(analysis::initial::text(initial).as_bytes())?;
            }
            match &changes {
                Some(Ok(c)) => w.write_all(analysis::impulse::text(c).as_bytes())?,
                Some(Err(e)) => writeln!(w, "mode changes: not analysed ({})", e.message)?,
                None => {}
            }
            w.write_all(causal.text(file).as_bytes())?;
        }
        if let Some(report) = &json {
            serde_json::to_writer_pretty(&mut *w, report)
                .map_err(|e| std::io::Error::other(format!("cannot write the JSON report: {e}")))?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    if let Some(message) = initial.as_ref().and_then(|i| initial_message(file, &model.name, i)) {
        eprintln!("{message}");
    }
    match singular_message(file, &model, &cdg, &causal) {
        None => Ok(()),
        Some(message) => Err(DriverError::Singular(message)),
    }
}

/// The `--report json` report of an analysed model.
fn json_report(
    file: &SourceFile,
    model: &mdae::Mdae,
    cdg: &analysis::Cdg,
    causal: &analysis::causal::report::CausalCheck,
    changes: Option<Result<Vec<analysis::impulse::ModeChange>, crate::rimis::RimisError>>,
    initial: Option<analysis::initial::InitialSystem>,
) -> analysis::report::JsonReport {
    let mut report = analysis::report::json(model, cdg);
    report.discrete_loops = Some(causal.json(file));
    report.mode_changes = changes.and_then(Result::ok);
    report.initial_system = initial;
    report
}

/// The `--report json` report of the model in `file` ([`analysis_job`]'s, as a value) and,
/// where some valid mode is structurally singular or a discrete loop runs through a
/// when-equation, the message `--check` exits 1 with.
pub fn report(
    file: &SourceFile,
    strategy: Strategy,
) -> Result<(analysis::report::JsonReport, Option<String>), DriverError> {
    let (def, _) = parse_checked(file)?;
    let causal = analysis::causal::report::CausalCheck::of(&def);
    let model = mdae::lower(&def, file).map_err(|error| DriverError::Lower { file: Box::new(file.clone()), error })?;
    let cdg = analyse(file, &model, strategy)?;
    let changes = cdg.singular.is_empty().then(|| crate::rimis::mode_changes(&def, &model, &cdg));
    let initial = analysis::initial::check(&def, file, &model, &cdg);
    let message = singular_message(file, &model, &cdg, &causal);
    Ok((json_report(file, &model, &cdg, &causal, changes, Some(initial)), message))
}

/// The Graphviz dot text of the model's conditional dependency graph (`--dot`).
pub fn dot(file: &SourceFile, strategy: Strategy) -> Result<String, DriverError> {
    let (def, _) = parse_checked(file)?;
    let model = mdae::lower(&def, file).map_err(|error| DriverError::Lower { file: Box::new(file.clone()), error })?;
    let cdg = analyse(file, &model, strategy)?;
    Ok(analysis::report::dot(&model, &cdg))
}

/// What `--check` fails with: the modes in which the model is structurally singular and
/// a discrete loop through a when-equation, each located; None if neither.
fn singular_message(
    file: &SourceFile,
    model: &mdae::Mdae,
    cdg: &analysis::Cdg,
    causal: &analysis::causal::report::CausalCheck,
) -> Option<String> {
    if cdg.singular.is_empty() && !causal.fatal() {
        return None;
    }
    let mut message = String::new();
    if causal.fatal() {
        message.push_str(&format!(
            "{}: error: model {} has an algebraic loop through a when-equation (omc refuses to build it); see the report's discrete loops\n",
            file.name, model.name
        ));
    }
    for s in &cdg.singular {
        let over: Vec<String> = s.overdetermined.iter().map(|&e| model.label(e).to_string()).collect();
        let under: Vec<&str> = s.underdetermined.iter().map(|&v| model.var(v).name.as_str()).collect();
        message.push_str(&format!(
            "{}: error: model {} is structurally singular {}: overdetermined equations [{}], underdetermined variables [{}]\n",
            file.name,
            model.name,
            analysis::report::when_phrase(&cdg.space.text(&s.cond, &cdg.valid)),
            over.join(", "),
            under.join(", ")
        ));
        for &e in &s.overdetermined {
            let eq = model.eq(e);
            let (l, c) = file.line_col(eq.span.start as usize);
            message.push_str(&format!("  {}:{l}:{c}: equation {}: {}\n", file.name, model.label(e), model.text(e)));
        }
        for &v in &s.underdetermined {
            let var = model.var(v);
            let (l, c) = file.line_col(var.span.start as usize);
            message.push_str(&format!("  {}:{l}:{c}: variable {}\n", file.name, var.name));
        }
    }
    Some(message)
}

/// The stderr warning of a RIMIS output whose initial system is not determined (or not
/// checked): the rewrite promises a determined one. None for any other model: an input's
/// incomplete initial system is common (omc completes it from start values), the report's
/// section says it. Never an exit code of its own.
fn initial_message(file: &SourceFile, model: &str, initial: &analysis::initial::InitialSystem) -> Option<String> {
    use analysis::initial::Verdict;
    if !file.text.starts_with("// RIMIS of ") {
        return None;
    }
    let what = match &initial.verdict {
        Verdict::Determined { .. } => return None,
        Verdict::NotChecked { reason } => format!("is not checked ({reason})"),
        Verdict::NotDetermined { .. } => "is not determined in some mode the model may start in (see the report's initial system): a simulator guesses the missing initial values or drops equations".into(),
    };
    Some(format!("{}: warning: the initial system of model {model} {what}", file.name))
}

/// Runs the analysis; its errors name the file.
fn analyse(file: &SourceFile, model: &mdae::Mdae, strategy: Strategy) -> Result<analysis::Cdg, DriverError> {
    // Located at the model's first equation: the analysis concerns the whole model.
    let at = model.equations.first().map(|e| file.line_col(e.span.start as usize)).map(|(l, c)| (l as u32, c as u32));
    analysis::analyse(model, strategy).map_err(|error| DriverError::Analysis { file: file.name.clone(), at, error })
}

/// `file:line:column`, or `file` without a place.
fn place(file: &str, at: &Option<(u32, u32)>) -> String {
    at.map_or_else(|| file.to_string(), |(l, c)| format!("{file}:{l}:{c}"))
}

/// What to do about an analysis error, for its message.
fn analysis_hint(error: &AnalysisError) -> &'static str {
    match error {
        AnalysisError::TooManyModes { .. } => {
            "; use --strategy implicit (all modes at once, with BDDs) or --strategy auto"
        }
        AnalysisError::Unsupported(_) | AnalysisError::TooLarge { .. } | AnalysisError::TooMuchMemory { .. } => "",
    }
}

/// The initial system of the model in `file` in every mode it may start in, as `--check`
/// reports it ([`analysis::initial`]).
pub fn initial_system(file: &SourceFile, strategy: Strategy) -> Result<analysis::initial::InitialSystem, DriverError> {
    let def = parse_model(file)?;
    let model = mdae::lower(&def, file).map_err(|error| DriverError::Lower { file: Box::new(file.clone()), error })?;
    let cdg = analyse(file, &model, strategy)?;
    Ok(analysis::initial::check(&def, file, &model, &cdg))
}

/// Parses, checks and lowers `file` to an mDAE (owning its expressions: the file's tree
/// is dropped).
pub fn lower(file: &SourceFile) -> Result<mdae::Mdae<'static>, DriverError> {
    let def = parse_model(file)?;
    let model = mdae::lower(&def, file).map_err(|error| DriverError::Lower { file: Box::new(file.clone()), error })?;
    Ok(model.into_owned())
}

/// Reads FILE, or stdin for `-` or no FILE. Invalid UTF-8 is a located syntax error.
pub fn read_input(path: Option<&std::path::Path>) -> Result<SourceFile, DriverError> {
    let (name, bytes) = match path {
        None => read_stdin()?,
        Some(p) if p.as_os_str() == "-" => read_stdin()?,
        Some(p) => {
            let name = p.display().to_string();
            let bytes = std::fs::read(p).map_err(|source| DriverError::Io { path: name.clone(), source })?;
            (name, bytes)
        }
    };
    source_from_bytes(name, bytes)
}

fn read_stdin() -> Result<(String, Vec<u8>), DriverError> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|source| DriverError::Io { path: "<stdin>".into(), source })?;
    Ok(("<stdin>".into(), bytes))
}

/// Decodes UTF-8; on failure the error points at the first invalid byte.
pub fn source_from_bytes(name: String, bytes: Vec<u8>) -> Result<SourceFile, DriverError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile::new(name, text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let error = SyntaxError { span: Span::new(at, at + 1), kind: SyntaxErrorKind::NotUtf8 };
            Err(DriverError::Syntax { file: Box::new(SourceFile::new(name, text)), error })
        }
    }
}
