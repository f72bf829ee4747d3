//! E9: run time of the benchmark programs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::e08_rustc::rustc_build;
use super::measure::{repeat, row_from};
use crate::runner::process::{self, ProcRun};
use crate::runner::rill::{Build, Mode, NoMeasurement};
use crate::runner::stats::{self, spread};
use crate::runner::table::Row;
use crate::runner::{Ctx, Outcome};

/// The benchmark programs (`experiments/benchmarks/*.rs`), sorted.
pub fn benchmarks() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn run_binary(exe: &Path, reps: usize, timeout: Duration) -> Result<Vec<ProcRun>, String> {
    (0..reps.max(1))
        .map(|_| {
            let r = process::run(&mut Command::new(exe), Some(timeout))?;
            if r.timed_out {
                return Err(format!("timeout (> {} s)", timeout.as_secs()));
            }
            match r.exit {
                Some(0) => Ok(r),
                other => Err(format!("exit {other:?}: {}", r.stderr_line())),
            }
        })
        .collect()
}

/// The ratios of every program's medians to rustc -O0's.
#[derive(Default)]
struct Ratios {
    jit: Vec<f64>,
    interp: Vec<f64>,
    o3: Vec<f64>,
}

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let programs: Vec<PathBuf> = benchmarks()
        .into_iter()
        .filter(|p| {
            ctx.profile.benchmarks.as_ref().is_none_or(|only| {
                p.file_stem()
                    .is_some_and(|s| only.iter().any(|o| s == o.as_str()))
            })
        })
        .collect();
    if programs.is_empty() {
        return Err("no programs in experiments/benchmarks".to_string());
    }
    ctx.start_progress("E9", programs.len() as u64);
    let dir = ctx.dir("e9");
    let mut ratios = Ratios::default();
    for path in &programs {
        let medians = program_rows(ctx, &mut o.rows, &dir, path);
        let of = |arch: &str| medians.get(arch).copied().flatten();
        let o0 = of("rustc-O0");
        for (arch, into) in [
            ("jit", &mut ratios.jit),
            ("interp", &mut ratios.interp),
            ("rustc-O3", &mut ratios.o3),
        ] {
            if let Some(r) = stats::ratio(of(arch), o0) {
                into.push(r);
            }
        }
        ctx.step();
    }
    ctx.finish_progress();
    values(ctx, &mut o, programs.len(), &ratios);
    Ok(o)
}

/// The rows of the benchmark program `path`: built by rustc -O0 and -O3 and run, run by
/// Rill's JIT and its interpreter (whose output must equal rustc's). Returns the median
/// of every architecture that has one.
fn program_rows(
    ctx: &Ctx,
    rows: &mut Vec<Row>,
    dir: &Path,
    path: &Path,
) -> BTreeMap<String, Option<f64>> {
    let run_timeout = Duration::from_secs(ctx.profile.build_timeout_s);
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    ctx.set_message(&name);
    let lines = std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    let mut expected: Option<Vec<u8>> = None;
    let mut medians = BTreeMap::new();
    for opt in ["0", "3"] {
        let arch = format!("rustc-O{opt}");
        let exe = dir.join(format!("{name}-O{opt}"));
        let row = match rustc_build(path, &exe, None, opt, Some(run_timeout))
            .and_then(|_| run_binary(&exe, ctx.profile.run_reps, run_timeout))
        {
            Ok(runs) => {
                if expected.is_none() {
                    expected = runs.last().map(|r| r.stdout.clone());
                }
                let wall: Vec<f64> = runs.iter().map(|r| r.wall_ms).collect();
                let mut row = Row::new(&name, &arch, lines).with_spread(spread(&wall), "ms");
                row.peak_rss_kb = runs.iter().filter_map(|r| r.peak_rss_kb).max();
                row
            }
            Err(e) => Row::new(&name, &arch, lines).without_number(format!("failed: {e}")),
        };
        medians.insert(arch, row.median.filter(|_| row.is_ok()));
        rows.push(row);
    }
    for (arch, rill_arch, timeout, reps) in [
        ("jit", "pipeline", run_timeout, ctx.profile.run_reps),
        (
            "interp",
            "interp",
            Duration::from_secs(ctx.profile.interp_timeout_s),
            1,
        ),
    ] {
        let b = Build {
            mode: Mode::Run,
            arch: rill_arch,
            root: path,
            cache_dir: None,
            args: &[],
            timeout: Some(timeout),
        };
        let runs = match repeat(ctx, reps, || Ok(()), &b, &[0]) {
            Err(NoMeasurement::Failed(m)) if m == "timeout" => Err(NoMeasurement::Failed(format!(
                "timeout (> {} s)",
                timeout.as_secs()
            ))),
            other => other,
        };
        let mut row = row_from(&name, arch, lines, &runs);
        if let (Ok(r), Some(exp)) = (&runs, &expected) {
            if r.iter().any(|b| &b.proc.stdout != exp) {
                row = row.without_number("failed: output differs from rustc's");
            } else {
                row.note = "output equals rustc's; whole process, compile included (compile_ms)"
                    .to_string();
            }
        }
        medians.insert(arch.to_string(), row.median.filter(|_| row.is_ok()));
        rows.push(row);
    }
    medians
}

/// The headline key and paper values of E9 over its `n` programs.
fn values(ctx: &Ctx, o: &mut Outcome, n: usize, ratios: &Ratios) {
    let jit = if ratios.jit.len() == n {
        stats::geomean(&ratios.jit)
    } else {
        None
    };
    let why = format!(
        "JIT and rustc -O0 both measured on {} of {n} programs",
        ratios.jit.len()
    );
    o.headline("e9_jit_over_rustc_o0", jit, why);
    o.value("e9.programs", Some(n as f64));
    o.value("e9.interp_programs", Some(ratios.interp.len() as f64));
    o.value("e9.interp_over_rustc_o0", stats::geomean(&ratios.interp));
    o.value("e9.o3_over_o0", stats::geomean(&ratios.o3));
    o.value("e9.jit_best", ratios.jit.iter().copied().reduce(f64::min));
    o.value("e9.jit_worst", ratios.jit.iter().copied().reduce(f64::max));
    o.value(
        "e9.interp_timeout_s",
        Some(ctx.profile.interp_timeout_s as f64),
    );
}
