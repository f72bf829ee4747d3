//! E9: run time of the benchmark programs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::e08_rustc::rustc_build;
use super::measure::{build_side, interleave, process_side, row_from, Side};
use super::readout::{pairs, wall};
use crate::runner::process;
use crate::runner::rill::{Build, Mode, NoMeasurement};
use crate::runner::stats;
use crate::runner::table::{self, Row};
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

/// A side: runs the compiled program `exe`, which must exit 0 within `timeout`.
fn binary_side<'s>(exe: PathBuf, timeout: Duration) -> Side<'s> {
    process_side(move || {
        let r = process::run(&mut Command::new(&exe), Some(timeout))?;
        if r.timed_out {
            return Err(format!("timeout (> {} s)", timeout.as_secs()));
        }
        match r.exit {
            Some(0) => Ok(r),
            other => Err(format!("exit {other:?}: {}", r.stderr_line())),
        }
    })
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
    let mut names = Vec::new();
    for path in &programs {
        names.push(program_rows(ctx, &mut o.rows, &dir, path));
        ctx.step();
    }
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    values(ctx, &mut o, &names);
    Ok(o)
}

/// The rows of the benchmark program `path`: built by rustc -O0 and -O3, and the two
/// binaries and Rill's JIT run in the same rounds (the JIT's output must equal rustc's);
/// then run once by Rill's interpreter (slow, under its own time limit). Returns the
/// program's (name, lines), its rows' key.
fn program_rows(ctx: &Ctx, rows: &mut Vec<Row>, dir: &Path, path: &Path) -> (String, usize) {
    let run_timeout = Duration::from_secs(ctx.profile.build_timeout_s);
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    ctx.set_message(&name);
    let lines = std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    let mut sides = Vec::new();
    for opt in ["0", "3"] {
        let exe = dir.join(format!("{name}-O{opt}"));
        sides.push(
            match rustc_build(path, &exe, None, opt, Some(run_timeout)) {
                Ok(_) => binary_side(exe, run_timeout),
                Err(e) => Err(NoMeasurement::Failed(e)),
            },
        );
    }
    let jit = Build {
        mode: Mode::Run,
        arch: "pipeline",
        root: path,
        cache_dir: None,
        args: &[],
        timeout: Some(run_timeout),
    };
    sides.push(build_side(ctx, jit, &[0]));
    let runs = interleave(ctx, ctx.profile.run_reps, sides);
    let expected = runs[0]
        .as_ref()
        .ok()
        .and_then(|r| r.last())
        .map(|r| r.proc.stdout.clone());
    for (arch, runs) in ["rustc-O0", "rustc-O3"].iter().zip(&runs) {
        rows.push(row_from(ctx, &name, arch, lines, runs));
    }
    let interp_timeout = Duration::from_secs(ctx.profile.interp_timeout_s);
    let interp = Build {
        mode: Mode::Run,
        arch: "interp",
        root: path,
        cache_dir: None,
        args: &[],
        timeout: Some(interp_timeout),
    };
    let interp = match ctx.build(&interp, &[0]) {
        Err(NoMeasurement::Failed(m)) if m == "timeout" => Err(NoMeasurement::Failed(format!(
            "timeout (> {} s)",
            interp_timeout.as_secs()
        ))),
        other => other.map(|r| vec![r]),
    };
    for (arch, runs) in [("jit", &runs[2]), ("interp", &interp)] {
        let mut row = row_from(ctx, &name, arch, lines, runs);
        if let (Ok(r), Some(exp)) = (runs, &expected) {
            if r.iter().any(|b| &b.proc.stdout != exp) {
                row = row.without_number("failed: output differs from rustc's");
            } else {
                row.note = "output equals rustc's; whole process, compile included (compile_ms)"
                    .to_string();
            }
        }
        rows.push(row);
    }
    (name, lines)
}

/// The headline key and paper values of E9 over its programs (`(name, lines)`): geometric
/// means over the programs of each program's ratio of medians to rustc -O0's (paired by
/// round), with bootstrap intervals (every program's rounds resampled on their own).
fn values(ctx: &Ctx, o: &mut Outcome, programs: &[(String, usize)]) {
    let n = programs.len();
    let strata = |o: &Outcome, arch: &str| -> Vec<Vec<(f64, f64)>> {
        programs
            .iter()
            .filter(|(name, lines)| {
                // A row that failed (output differs from rustc's) has no ratio.
                table::find(&o.rows, name, arch, *lines).is_some_and(|r| r.is_ok())
            })
            .map(|(name, lines)| {
                pairs(
                    &o.samples,
                    (name, arch, *lines),
                    wall,
                    (name, "rustc-O0", *lines),
                    wall,
                )
            })
            .filter(|p| !p.is_empty())
            .collect()
    };
    let (jit, interp, o3) = (strata(o, "jit"), strata(o, "interp"), strata(o, "rustc-O3"));
    let jit_iv = if jit.len() == n {
        stats::geomean_of_paired_ratios(&jit)
    } else {
        None
    };
    let why = format!(
        "JIT and rustc -O0 both measured on {} of {n} programs",
        jit.len()
    );
    o.ratio_row(
        "e9_jit_over_rustc_o0",
        0,
        jit_iv,
        "geometric mean over the programs of median JIT / median rustc -O0, paired by round",
    );
    o.headline("e9_jit_over_rustc_o0", jit_iv, why);
    o.value("e9.programs", Some(n as f64));
    o.value("e9.interp_programs", Some(interp.len() as f64));
    o.interval_value(
        "e9.interp_over_rustc_o0",
        stats::geomean_of_paired_ratios(&interp),
    );
    o.interval_value("e9.o3_over_o0", stats::geomean_of_paired_ratios(&o3));
    let each: Vec<f64> = jit
        .iter()
        .filter_map(|p| stats::paired_ratio(p).map(|iv| iv.value))
        .collect();
    o.value("e9.jit_best", each.iter().copied().reduce(f64::min));
    o.value("e9.jit_worst", each.iter().copied().reduce(f64::max));
    o.value(
        "e9.interp_timeout_s",
        Some(ctx.profile.interp_timeout_s as f64),
    )
}
