//! E8: rustc on the same programs and edits.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rill_gen::{Edit, Program};

use super::measure::{row_from, scratch_rounds, IncrementalRun, NO_LEAF_EDIT};
use super::readout::median;
use super::SEED;
use crate::runner::process::{self, ProcRun};
use crate::runner::rill::Mode;
use crate::runner::stats::spread;
use crate::runner::table::Row;
use crate::runner::workload::OnDisk;
use crate::runner::{copy_dir, Ctx, Outcome};

/// The oracle's rustc flags (experiments/tests/oracle.rs, LANGUAGE.md "The reference
/// implementation").
pub const RUSTC_FLAGS: &[&str] = &[
    "--edition",
    "2021",
    "-C",
    "overflow-checks=off",
    "-A",
    "warnings",
    "-A",
    "arithmetic_overflow",
    "-A",
    "unconditional_panic",
];

/// One rustc build of `root` into `out`, incremental in `incr` if given; timed.
pub fn rustc_build(
    root: &Path,
    out: &Path,
    incr: Option<&Path>,
    opt: &str,
    timeout: Option<Duration>,
) -> Result<ProcRun, String> {
    let mut cmd = Command::new("rustc");
    cmd.args(RUSTC_FLAGS)
        .arg("-C")
        .arg(format!("opt-level={opt}"))
        .arg(root)
        .arg("-o")
        .arg(out);
    if let Some(dir) = incr {
        cmd.arg("-C").arg(format!("incremental={}", dir.display()));
    }
    let r = process::run(&mut cmd, timeout)?;
    match r.exit {
        Some(0) => Ok(r),
        _ => Err(format!("rustc failed: {}", r.stderr_line())),
    }
}

fn rustc_row(scenario: &str, size: usize, runs: Result<Vec<ProcRun>, String>) -> Row {
    match runs {
        Ok(r) => {
            let wall: Vec<f64> = r.iter().map(|p| p.wall_ms).collect();
            let mut row = Row::new(scenario, "rustc", size).with_spread(spread(&wall), "ms");
            row.peak_rss_kb = r.iter().filter_map(|p| p.peak_rss_kb).max();
            row
        }
        Err(e) => Row::new(scenario, "rustc", size).without_number(format!("failed: {e}")),
    }
}

/// The scenarios of E8, in order: from scratch, incremental on an empty cache, after no
/// change, after the leaf-body edit.
const SCENARIOS: [&str; 4] = ["full", "incr-full", "incr-unchanged", "incr-patched"];

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.rustc_size;
    ctx.start_progress("E8", 9);
    let dir = ctx.dir("e8");
    let program = ctx.program(size, SEED);
    let leaf = ctx.leaf_edits(size, SEED);
    let edit = &leaf.changing.as_ref().ok_or(NO_LEAF_EDIT)?.0;
    let mut disk = OnDisk::create(&dir.join("prog"), program.clone())?;
    rustc_rows(ctx, &mut o.rows, &dir, &mut disk, edit)?;
    rill_rows(ctx, &mut o.rows, &dir, &disk.root(), &program, edit);
    ctx.finish_progress();
    values(&mut o, size);
    Ok(o)
}

/// rustc's builds of the program in `disk` in every scenario, the patched one with `edit`.
fn rustc_rows(
    ctx: &Ctx,
    rows: &mut Vec<Row>,
    dir: &Path,
    disk: &mut OnDisk,
    edit: &Edit,
) -> Result<(), String> {
    let size = ctx.profile.rustc_size;
    let reps = ctx.profile.reps;
    let program = disk.program.clone();
    let root = disk.root();
    let exe = dir.join("prog.bin");
    let incr = dir.join("incr");
    let snap = dir.join("incr-snapshot");
    let t = ctx.timeout();
    ctx.set_message("rustc full");
    let full: Result<Vec<_>, String> = (0..reps)
        .map(|_| rustc_build(&root, &exe, None, "0", t))
        .collect();
    rows.push(rustc_row("full", size, full));
    ctx.step();
    ctx.set_message("rustc incr-full");
    let incr_full: Result<Vec<_>, String> = (0..reps)
        .map(|_| {
            let _ = std::fs::remove_dir_all(&incr);
            rustc_build(&root, &exe, Some(&incr), "0", t)
        })
        .collect();
    let have_incr = incr_full.is_ok();
    rows.push(rustc_row("incr-full", size, incr_full));
    ctx.step();
    if have_incr {
        copy_dir(&incr, &snap).map_err(|e| format!("snapshot: {e}"))?;
    }
    ctx.set_message("rustc incr-unchanged");
    let unchanged: Result<Vec<_>, String> = (0..reps)
        .map(|_| {
            copy_dir(&snap, &incr).map_err(|e| e.to_string())?;
            rustc_build(&root, &exe, Some(&incr), "0", t)
        })
        .collect();
    rows.push(rustc_row("incr-unchanged", size, unchanged));
    ctx.step();
    ctx.set_message("rustc incr-patched");
    let mut patched = Vec::new();
    let mut err = None;
    for _ in 0..reps {
        copy_dir(&snap, &incr).map_err(|e| e.to_string())?;
        disk.replace(edit.program.clone())?;
        let r = rustc_build(&root, &exe, Some(&incr), "0", t);
        disk.replace(program.clone())?;
        match r {
            Ok(r) => patched.push(r),
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let mut row = rustc_row("incr-patched", size, err.map_or(Ok(patched), Err));
    row.note = edit.description.clone();
    rows.push(row);
    ctx.step();
    Ok(())
}

/// Rill's builds of `program` (in `root`) in every scenario: the pipeline, the query
/// architecture without a cache and with one, the patched one with `edit`.
fn rill_rows(
    ctx: &Ctx,
    rows: &mut Vec<Row>,
    dir: &Path,
    root: &Path,
    program: &Program,
    edit: &Edit,
) {
    let size = ctx.profile.rustc_size;
    ctx.set_message("rill");
    let cache = dir.join("rill-cache");
    let [pipe, qfull, qincr] = scratch_rounds(
        ctx,
        Mode::Run,
        root,
        &[("pipeline", None), ("query", None), ("query", Some(&cache))],
        &[],
    );
    for (scenario, arch, runs) in [
        ("full", "rill-pipeline", &pipe),
        ("full", "rill-query", &qfull),
        ("incr-full", "rill-query", &qincr),
    ] {
        rows.push(row_from(scenario, arch, size, runs));
        ctx.step();
    }
    let unchanged = IncrementalRun::new(ctx, dir.join("rill-unchanged"), program).run();
    rows.push(row_from("incr-unchanged", "rill-query", size, &unchanged));
    ctx.step();
    let patched = IncrementalRun::new(ctx, dir.join("rill-patched"), program)
        .edited(&edit.program)
        .run();
    let mut row = row_from("incr-patched", "rill-query", size, &patched);
    row.note = edit.description.clone();
    rows.push(row);
    ctx.step();
}

/// The headline keys and paper values of E8.
fn values(o: &mut Outcome, size: usize) {
    o.ratio_headline(
        "e8_rustc_patched_over_full",
        ("incr-patched", "rustc", size),
        ("full", "rustc", size),
    );
    o.ratio_headline(
        "e8_rill_patched_over_full",
        ("incr-patched", "rill-query", size),
        ("full", "rill-query", size),
    );
    o.value("e8.size", Some(size as f64));
    for s in SCENARIOS {
        let k = s.replace('-', "_");
        for (compiler, arch) in [("rustc", "rustc"), ("rill", "rill-query")] {
            o.median_value(&format!("e8.{compiler}_{k}_ms"), (s, arch, size));
            o.ratio_value(
                &format!("e8.{compiler}_{k}_ratio"),
                (s, arch, size),
                ("full", arch, size),
            );
        }
    }
    o.median_value("e8.pipeline_full_ms", ("full", "rill-pipeline", size));
    let lps = median(&o.rows, ("full", "rustc", size)).map(|ms| size as f64 / (ms / 1e3));
    o.value("e8.rustc_lines_per_s", lps);
    o.ratio_value(
        "e8.rustc_over_pipeline",
        ("full", "rustc", size),
        ("full", "rill-pipeline", size),
    );
}
