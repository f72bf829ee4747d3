//! E10: time to the first diagnostic after an edit that introduces an error.

use rill_gen::EditKind;

use super::measure::{pipeline_build, repeat, row_from, IncrementalRun, Runs};
use super::SEED;
use crate::runner::rill::Mode;
use crate::runner::stats::spread;
use crate::runner::table::Row;
use crate::runner::workload::{self, OnDisk};
use crate::runner::{Ctx, Outcome};

/// A row of the time from spawning the builds to their first byte on stderr.
fn first_diag_row(scenario: &str, arch: &str, size: usize, runs: &Runs) -> Row {
    let mut row = row_from(scenario, arch, size, runs);
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
    ctx.start_progress("E10", 6);
    let dir = ctx.dir("e10");
    let program = ctx.program(size, SEED);
    let bad =
        workload::edit(&program, EditKind::IntroduceError, SEED).ok_or("no error edit possible")?;
    let fixed =
        workload::edit(&bad.program, EditKind::FixError, SEED).ok_or("no fix edit possible")?;
    let bad_disk = OnDisk::create(&dir.join("bad"), bad.program.clone())?;
    let fixed_disk = OnDisk::create(&dir.join("fixed"), fixed.program.clone())?;
    for (mode, m) in [(Mode::Check, "check"), (Mode::Run, "run")] {
        let scenario = format!("first-diagnostic-{m}");
        let bad_root = bad_disk.root();
        let b = pipeline_build(ctx, mode, &bad_root);
        let runs = repeat(ctx, ctx.profile.reps, || Ok(()), &b, &[1]);
        o.rows
            .push(first_diag_row(&scenario, "pipeline", size, &runs));
        ctx.step();
        let runs = IncrementalRun::new(ctx, dir.join(format!("q-{m}")), &program)
            .edited(&bad.program)
            .expect_exit(&[1])
            .mode(mode)
            .run();
        o.rows.push(first_diag_row(&scenario, "query", size, &runs));
        ctx.step();
    }
    // The complete build once the error is fixed.
    let fixed_root = fixed_disk.root();
    let b = pipeline_build(ctx, Mode::Run, &fixed_root);
    let runs = repeat(ctx, ctx.profile.reps, || Ok(()), &b, &[0]);
    o.rows
        .push(row_from("build-after-fix", "pipeline", size, &runs));
    ctx.step();
    let runs = IncrementalRun::new(ctx, dir.join("q-fix"), &program)
        .then_built(&bad.program, &[1])
        .edited(&fixed.program)
        .run();
    let mut row = row_from("build-after-fix", "query", size, &runs);
    row.note = "cache of a good build, then the build with the error".to_string();
    o.rows.push(row);
    ctx.step();
    ctx.finish_progress();
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
    Ok(o)
}
