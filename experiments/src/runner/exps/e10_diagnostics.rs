//! E10: time to the first diagnostic after an edit that introduces an error.

use rill_gen::EditKind;

use super::measure::{build_side, interleave, pipeline_build, row_from, IncrementalRun, Runs};
use super::SEED;
use crate::runner::rill::Mode;
use crate::runner::stats::spread;
use crate::runner::table::Row;
use crate::runner::workload::{self, OnDisk, Shape};
use crate::runner::{Ctx, Outcome};

/// A row of the time from spawning the builds to their first byte on stderr.
fn first_diag_row(ctx: &Ctx, scenario: &str, arch: &str, size: usize, runs: &Runs) -> Row {
    let mut row = row_from(ctx, scenario, arch, size, runs);
    if let Ok(r) = runs {
        let first: Vec<f64> = r.iter().filter_map(|b| b.proc.first_stderr_ms).collect();
        row = row.with_spread(spread(&first), "ms");
        row.note = "spawn to the first byte on stderr".to_string();
    }
    row
}

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E10", 3);
    let dir = ctx.dir("e10");
    let program = ctx.program(Shape::Default, size, SEED);
    let bad =
        workload::edit(&program, EditKind::IntroduceError, SEED).ok_or("no error edit possible")?;
    let fixed =
        workload::edit(&bad.program, EditKind::FixError, SEED).ok_or("no fix edit possible")?;
    let bad_disk = OnDisk::create(&dir.join("bad"), bad.program.clone())?;
    let fixed_disk = OnDisk::create(&dir.join("fixed"), fixed.program.clone())?;
    // Each pair (pipeline, query) in the same rounds.
    let (bad_root, fixed_root) = (bad_disk.root(), fixed_disk.root());
    for (mode, m) in [(Mode::Check, "check"), (Mode::Run, "run")] {
        let scenario = format!("first-diagnostic-{m}");
        let sides = vec![
            build_side(ctx, pipeline_build(ctx, mode, &bad_root), &[1]),
            IncrementalRun::new(ctx, dir.join(format!("q-{m}")), &program)
                .edited(&bad.program)
                .expect_exit(&[1])
                .mode(mode)
                .side(),
        ];
        let runs = interleave(ctx, ctx.profile.reps, sides);
        for (arch, runs) in ["pipeline", "query"].iter().zip(&runs) {
            o.rows
                .push(first_diag_row(ctx, &scenario, arch, size, runs));
        }
        ctx.step();
    }
    // The complete build once the error is fixed.
    let sides = vec![
        build_side(ctx, pipeline_build(ctx, Mode::Run, &fixed_root), &[0]),
        IncrementalRun::new(ctx, dir.join("q-fix"), &program)
            .then_built(&bad.program, &[1])
            .edited(&fixed.program)
            .side(),
    ];
    let runs = interleave(ctx, ctx.profile.reps, sides);
    o.rows
        .push(row_from(ctx, "build-after-fix", "pipeline", size, &runs[0]));
    let mut row = row_from(ctx, "build-after-fix", "query", size, &runs[1]);
    row.note = "cache of a good build, then the build with the error".to_string();
    o.rows.push(row);
    ctx.step();
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    o.value("e10.size", Some(size as f64));
    o.text("e10.error", bad.description.clone());
    for arch in ["pipeline", "query"] {
        o.median_value(
            &format!("e10.{arch}_first_check_ms"),
            ("first-diagnostic-check", arch, size),
        );
        o.median_value(
            &format!("e10.{arch}_first_run_ms"),
            ("first-diagnostic-run", arch, size),
        );
        o.median_value(
            &format!("e10.{arch}_fix_build_ms"),
            ("build-after-fix", arch, size),
        );
    }
    // The query driver over the pipeline, paired by round: time to the first diagnostic
    // (check and run) and the build after the fix.
    for (key, scenario) in [
        ("first_check", "first-diagnostic-check"),
        ("first_run", "first-diagnostic-run"),
    ] {
        o.ratio_of(
            &format!("e10.query_over_pipeline_{key}"),
            ((scenario, "query", size), |s| s.first_stderr_ms),
            ((scenario, "pipeline", size), |s| s.first_stderr_ms),
        );
    }
    o.paired_ratio_value(
        "e10.query_over_pipeline_fix_build",
        ("build-after-fix", "query", size),
        ("build-after-fix", "pipeline", size),
    );
    Ok(o)
}
