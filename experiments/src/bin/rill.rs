//! `rill`: compile and run Rill programs, inspect every stage (DESIGN.md "Command-line
//! contract"). Exit codes: 0 success, 1 compile errors, 101 the program panicked, 2 usage
//! or I/O error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use shared_frontend::diag;
use shared_frontend::ir::interp::{self, InterpLimits};
use shared_frontend::sema::modules;
use shared_frontend::syntax::{dump, lexer};

/// Both architectures allocate many small, short-lived objects; a size-class allocator
/// serves them faster than the system's, for every architecture alike.
#[global_allocator]
static GLOBAL: experiments::alloc::Allocator = experiments::alloc::Allocator;

#[derive(Parser)]
#[command(
    name = "rill",
    version,
    about = "The Rill compiler: one frontend, one backend, two architectures"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Arch {
    Pipeline,
    Query,
    Interp,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum What {
    Tokens,
    Ast,
    Ir,
    Asm,
}

#[derive(Subcommand)]
enum Command {
    /// Compile the program and run it.
    Run {
        path: PathBuf,
        #[arg(long, value_enum, default_value = "query")]
        arch: Arch,
        #[arg(long)]
        cache_dir: Option<PathBuf>,
        #[arg(long)]
        stats_json: Option<PathBuf>,
        /// Stop the program after this many IR instructions (`--arch interp`).
        #[arg(long)]
        fuel: Option<u64>,
        /// Stop the program after this many seconds of wall time (`--arch pipeline|query`).
        #[arg(long)]
        time_limit: Option<f64>,
        #[command(flatten)]
        query: QueryArgs,
    },
    /// Compile the program to machine code and link it, without running it: what `run`
    /// does before the program starts (with `--cache-dir`, the query architecture keeps
    /// the linked image in the cache for the next build).
    Build {
        path: PathBuf,
        #[arg(long, value_enum, default_value = "query")]
        arch: Arch,
        #[arg(long)]
        cache_dir: Option<PathBuf>,
        #[arg(long)]
        stats_json: Option<PathBuf>,
        #[command(flatten)]
        query: QueryArgs,
    },
    /// Report every compile error without producing code.
    Check {
        path: PathBuf,
        #[arg(long, value_enum, default_value = "query")]
        arch: Arch,
        #[arg(long)]
        cache_dir: Option<PathBuf>,
        #[arg(long)]
        stats_json: Option<PathBuf>,
        #[command(flatten)]
        query: QueryArgs,
    },
    /// Print one stage's view of the program.
    Emit {
        path: PathBuf,
        #[arg(long, value_enum)]
        what: What,
        /// Only this item (a def-path such as `crate::geometry::area`).
        #[arg(long)]
        item: Option<String>,
    },
}

const EXIT_COMPILE_ERROR: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    experiments::alloc::without_huge_pages();
    experiments::alloc::purge_without_extension();
    experiments::alloc::exit_without_teardown();
    backend::link::set_give_back_freed_memory(experiments::alloc::give_back_freed_memory);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match cli.command {
        Command::Run {
            path,
            arch,
            cache_dir,
            stats_json,
            fuel,
            time_limit,
            query,
        } => run(
            &path,
            arch,
            cache_dir.as_deref(),
            stats_json.as_deref(),
            fuel,
            time_limit,
            &query,
        ),
        Command::Build {
            path,
            arch,
            cache_dir,
            stats_json,
            query,
        } => build_or_check(
            &path,
            arch,
            true,
            cache_dir.as_deref(),
            stats_json.as_deref(),
            &query,
        ),
        Command::Check {
            path,
            arch,
            cache_dir,
            stats_json,
            query,
        } => build_or_check(
            &path,
            arch,
            false,
            cache_dir.as_deref(),
            stats_json.as_deref(),
            &query,
        ),
        Command::Emit { path, what, item } => emit(&path, what, item.as_deref()),
    }
}

fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

fn color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// What either driver produced, as `run` and `check` need it.
struct Outcome {
    sources: shared_frontend::span::SourceMap,
    diagnostics: Vec<diag::Diagnostic>,
    image: Option<backend::Image>,
    ir: Option<shared_frontend::ir::IrProgram>,
    phases: Vec<(&'static str, f64)>,
    stats: Option<query::StatsSnapshot>,
    /// What the query driver's link did.
    link: Option<query_driver::LinkStats>,
}

/// Prints the diagnostics; returns whether there were errors.
fn report(out: &Outcome) -> bool {
    report_diagnostics(&out.diagnostics, &out.sources)
}

fn report_compiled(c: &pipeline::Compiled) -> bool {
    report_diagnostics(&c.diagnostics, &c.sources)
}

fn report_diagnostics(
    diagnostics: &[diag::Diagnostic],
    sources: &shared_frontend::span::SourceMap,
) -> bool {
    if !diagnostics.is_empty() {
        let text = diag::render(diagnostics, sources, color());
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        let s = if errors == 1 { "" } else { "s" };
        eprintln!("error: could not compile due to {errors} previous error{s}");
    }
    errors > 0
}

fn write_stats(
    file: Option<&Path>,
    arch: &str,
    total_ms: f64,
    out: &Outcome,
) -> Result<(), ExitCode> {
    let Some(file) = file else { return Ok(()) };
    // Absent when nothing was linked (DESIGN.md).
    let image_hash = out.image.as_ref().map(|i| format!("{:032x}", i.hash()));
    let json = experiments::stats_json::render(
        arch,
        total_ms,
        &out.phases,
        out.stats.as_ref(),
        out.link.as_ref(),
        image_hash.as_deref(),
    );
    // A regular file in the way is removed first rather than truncated: ext4 flushes a
    // file truncated and rewritten when it is closed (`auto_da_alloc`), which made a
    // rebuild of a few milliseconds several milliseconds slower. Anything else (a pipe,
    // `/dev/stdout`, a symlink) is written through as before.
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_file()) {
        let _ = std::fs::remove_file(file);
    }
    std::fs::write(file, json)
        .map_err(|e| usage_error(format!("cannot write `{}`: {e}", file.display())))
}

/// Options of the query architecture, from the command line and the environment
/// (`RILL_HASHER`, `RILL_VERIFY`).
#[derive(clap::Args, Clone, Default)]
struct QueryArgs {
    /// Fingerprint hasher of the query architecture: sip128, xxh3 or blake3.
    #[arg(long)]
    hasher: Option<String>,
    /// Early cutoff of the query architecture: fingerprint, equality or off.
    #[arg(long)]
    cutoff: Option<String>,
    /// Dependency granularity of the query architecture: item or file.
    #[arg(long)]
    granularity: Option<String>,
    /// Spans of the query architecture: relative (to their item, the default) or absolute.
    #[arg(long)]
    spans: Option<String>,
    /// How the query architecture finds changed files: stat (by metadata, the default) or
    /// hash (read and hash every file in every build, as rustc does).
    #[arg(long)]
    change_detection: Option<String>,
}

fn query_options(
    cache_dir: Option<&Path>,
    args: &QueryArgs,
) -> Result<query_driver::BuildOptions, ExitCode> {
    let mut engine = query::Options::from_env();
    if let Some(h) = &args.hasher {
        engine.hasher = query::HasherKind::from_name(h)
            .ok_or_else(|| usage_error(format!("unknown --hasher `{h}` (sip128, xxh3, blake3)")))?;
    }
    if let Some(c) = &args.cutoff {
        engine.cutoff = match c.as_str() {
            "fingerprint" => query::Cutoff::Fingerprint,
            "equality" => query::Cutoff::Equality,
            "off" => query::Cutoff::Off,
            _ => {
                return Err(usage_error(format!(
                    "unknown --cutoff `{c}` (fingerprint, equality, off)"
                )))
            }
        };
    }
    let granularity = match &args.granularity {
        None => query_driver::Granularity::Item,
        Some(g) => query_driver::Granularity::from_name(g)
            .ok_or_else(|| usage_error(format!("unknown --granularity `{g}` (item, file)")))?,
    };
    let spans = match &args.spans {
        None => query_driver::SpanMode::Relative,
        Some(m) => query_driver::SpanMode::from_name(m)
            .ok_or_else(|| usage_error(format!("unknown --spans `{m}` (relative, absolute)")))?,
    };
    let change_detection = match &args.change_detection {
        None => query_driver::ChangeDetection::Stat,
        Some(d) => query_driver::ChangeDetection::from_name(d)
            .ok_or_else(|| usage_error(format!("unknown --change-detection `{d}` (stat, hash)")))?,
    };
    Ok(query_driver::BuildOptions {
        cache_dir: cache_dir.map(Path::to_path_buf),
        engine,
        granularity,
        spans,
        change_detection,
        exit_after: true,
    })
}

/// A `--cache-dir` that exists must be a directory (it is created when missing). Checked
/// for every architecture alike, although only the query architecture uses it.
fn check_cache_dir(cache_dir: Option<&Path>) -> Result<(), ExitCode> {
    match cache_dir {
        Some(dir) if dir.exists() && !dir.is_dir() => Err(usage_error(format!(
            "--cache-dir `{}` is not a directory",
            dir.display()
        ))),
        _ => Ok(()),
    }
}

/// Compiles with the chosen architecture (`interp` compiles with the pipeline, to IR).
fn compile(
    path: &Path,
    arch: Arch,
    image: bool,
    cache_dir: Option<&Path>,
    qargs: &QueryArgs,
) -> Result<Outcome, ExitCode> {
    check_cache_dir(cache_dir)?;
    match arch {
        Arch::Query => {
            let options = query_options(cache_dir, qargs)?;
            let goal = if image {
                query_driver::Goal::Image
            } else {
                query_driver::Goal::Check
            };
            let build = query_driver::build_path(path, goal, options);
            for w in &build.warnings {
                // A first build has no cache: that is not worth a warning.
                if !w.contains("no cache at") {
                    eprintln!("warning: {w}");
                }
            }
            if let Some(fatal) = &build.fatal {
                return Err(usage_error(fatal));
            }
            Ok(Outcome {
                sources: build.sources,
                diagnostics: build.diagnostics,
                image: build.image,
                ir: None,
                phases: build.phases,
                stats: Some(build.stats),
                link: build.link,
            })
        }
        Arch::Pipeline | Arch::Interp => {
            let until = match (arch, image) {
                (Arch::Interp, true) => pipeline::Until::Ir,
                // Only the image is run: the pipeline keeps nothing else.
                (_, true) => pipeline::Until::ImageOnly,
                (_, false) => pipeline::Until::Check,
            };
            let mut compiled = pipeline_compile(path, until)?;
            let out = Outcome {
                sources: std::mem::take(&mut compiled.sources),
                diagnostics: std::mem::take(&mut compiled.diagnostics),
                image: compiled.image.take(),
                ir: compiled.ir.take(),
                phases: std::mem::take(&mut compiled.phases),
                stats: None,
                link: None,
            };
            // The rest (syntax trees, code blobs) lives until the process exits: freeing
            // it piece by piece would only cost time.
            std::mem::forget(compiled);
            Ok(out)
        }
    }
}

fn arch_name(arch: Arch) -> &'static str {
    match arch {
        Arch::Pipeline => "pipeline",
        Arch::Query => "query",
        Arch::Interp => "interp",
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    path: &Path,
    arch: Arch,
    cache_dir: Option<&Path>,
    stats: Option<&Path>,
    fuel: Option<u64>,
    time_limit: Option<f64>,
    qargs: &QueryArgs,
) -> ExitCode {
    let (compiled, failed) = match compile_reported(path, arch, true, cache_dir, stats, qargs) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if failed {
        return ExitCode::from(EXIT_COMPILE_ERROR);
    }
    let outcome = if arch != Arch::Interp {
        let Some(image) = &compiled.image else {
            return ExitCode::from(EXIT_COMPILE_ERROR);
        };
        let mut limits = backend::RunLimits::default();
        if let Some(secs) = time_limit {
            match std::time::Duration::try_from_secs_f64(secs) {
                Ok(d) => limits.timeout = Some(d),
                Err(_) => return usage_error(format!("invalid --time-limit `{secs}`")),
            }
        }
        let run = image.run(&limits);
        interp::InterpOutcome {
            stdout: run.stdout,
            status: run.status,
        }
    } else {
        let Some(program) = &compiled.ir else {
            return ExitCode::from(EXIT_COMPILE_ERROR);
        };
        let limits = InterpLimits {
            fuel,
            ..InterpLimits::default()
        };
        interp::run(program, &limits)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&outcome.stdout);
    let _ = stdout.flush();
    if outcome.status != interp::ExitStatus::Finished {
        eprintln!("{}", outcome.status);
    }
    // The process exits now: freeing the compiler's data one node at a time would only
    // delay it (both architectures alike).
    std::mem::forget(compiled);
    ExitCode::from(outcome.status.exit_code() as u8)
}

/// Compiles (to a linked image if `image`), prints the diagnostics and writes the stats:
/// what every command that compiles does first. The outcome, and whether it has errors.
fn compile_reported(
    path: &Path,
    arch: Arch,
    image: bool,
    cache_dir: Option<&Path>,
    stats: Option<&Path>,
    qargs: &QueryArgs,
) -> Result<(Outcome, bool), ExitCode> {
    let start = Instant::now();
    let compiled = compile(path, arch, image, cache_dir, qargs)?;
    let failed = report(&compiled);
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    write_stats(stats, arch_name(arch), total_ms, &compiled)?;
    Ok((compiled, failed))
}

/// `build` (to a linked image, not run) or `check` (`image` false): compiles and exits,
/// 1 if there were errors.
fn build_or_check(
    path: &Path,
    arch: Arch,
    image: bool,
    cache_dir: Option<&Path>,
    stats: Option<&Path>,
    qargs: &QueryArgs,
) -> ExitCode {
    if arch == Arch::Interp {
        let command = if image { "build" } else { "check" };
        return usage_error(format!("`{command}` takes --arch pipeline or --arch query"));
    }
    let (compiled, failed) = match compile_reported(path, arch, image, cache_dir, stats, qargs) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // A build without errors links an image (as `run` requires).
    let failed = failed || (image && compiled.image.is_none());
    // As in `run`: the process exits now.
    std::mem::forget(compiled);
    ExitCode::from(if failed { EXIT_COMPILE_ERROR } else { 0 })
}

/// The pipeline's full output (for `emit`).
fn pipeline_compile(path: &Path, until: pipeline::Until) -> Result<pipeline::Compiled, ExitCode> {
    let compiled = pipeline::compile_path(path, until);
    if let Some(fatal) = &compiled.fatal {
        return Err(usage_error(fatal));
    }
    Ok(compiled)
}

/// The text of one source file, with the module loader's wording for a file that cannot
/// be read (exit code 2) or is not UTF-8 (a compile error, exit code 1).
fn read_source(path: &Path) -> Result<String, ExitCode> {
    let bytes = std::fs::read(path)
        .map_err(|e| usage_error(format!("couldn't read `{}`: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|_| {
        eprintln!(
            "error: couldn't read `{}`: stream did not contain valid UTF-8",
            path.display()
        );
        ExitCode::from(EXIT_COMPILE_ERROR)
    })
}

fn emit(path: &Path, what: What, item: Option<&str>) -> ExitCode {
    let mut out = String::new();
    // The exit code once `out` is written: `--what ast` prints the files it could load.
    let mut code = ExitCode::SUCCESS;
    match what {
        What::Tokens => {
            let text = match read_source(path) {
                Ok(text) => text,
                Err(code) => return code,
            };
            out = dump::tokens_to_string(&text, &lexer::tokenize(&text));
        }
        What::Ast => {
            // The pipeline's first stage (`pipeline::Until::Parse`): load and parse every
            // file. Syntax errors leave a recovered tree to print; a file that could not
            // be loaded leaves none, which is a compile error.
            let krate = modules::load_crate(&modules::FsLoader, path);
            if krate.root_unreadable {
                let message = krate.diagnostics.first().map(|d| d.message.as_str());
                return usage_error(message.unwrap_or_default());
            }
            for parsed in &krate.files {
                out.push_str(&format!(
                    "// {}\n",
                    krate.sources.get(parsed.file).path.display()
                ));
                out.push_str(&dump::ast_to_string(&parsed.ast));
            }
            report_diagnostics(&krate.diagnostics, &krate.sources);
            if !krate.unloaded.is_empty() {
                code = ExitCode::from(EXIT_COMPILE_ERROR);
            }
        }
        What::Ir => {
            let compiled = match pipeline_compile(path, pipeline::Until::Ir) {
                Ok(c) => c,
                Err(code) => return code,
            };
            if report_compiled(&compiled) {
                return ExitCode::from(EXIT_COMPILE_ERROR);
            }
            let Some(program) = &compiled.ir else {
                return ExitCode::from(EXIT_COMPILE_ERROR);
            };
            let mut found = false;
            for f in &program.functions {
                if item.is_none_or(|i| i == f.name) {
                    found = true;
                    out.push_str(&f.to_string());
                    out.push('\n');
                }
            }
            if let (Some(item), false) = (item, found) {
                return usage_error(format!("no function `{item}` in the program"));
            }
        }
        What::Asm => {
            let compiled = match pipeline_compile(path, pipeline::Until::Image) {
                Ok(c) => c,
                Err(code) => return code,
            };
            if report_compiled(&compiled) {
                return ExitCode::from(EXIT_COMPILE_ERROR);
            }
            let names: std::collections::HashMap<_, _> = compiled
                .blobs
                .iter()
                .map(|(d, name, _)| (*d, name.clone()))
                .collect();
            let mut found = false;
            for (_, name, blob) in &compiled.blobs {
                if item.is_none_or(|i| i == name) {
                    found = true;
                    out.push_str(&backend::disassemble_with(name, blob, &|d| {
                        names.get(&d).cloned()
                    }));
                    out.push('\n');
                }
            }
            if let (Some(item), false) = (item, found) {
                return usage_error(format!("no function `{item}` in the program"));
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    code
}
