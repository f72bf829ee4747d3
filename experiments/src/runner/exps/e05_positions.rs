//! E5: an edit at the top of the largest file: do positions cascade?

use super::measure::{interleave, row_from, IncrementalRun, Runs};
use super::SEED;
use crate::runner::workload::{self, Shape};
use crate::runner::{Ctx, Outcome};

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E5", 1);
    let dir = ctx.dir("e5");
    let program = ctx.program(Shape::Default, size, SEED);
    let (moved, path) = workload::insert_at_top_of_largest_file(
        &program,
        "// A comment added at the top.\n\n// Every item below moves down three lines.\n",
    );
    // The no-change rebuild and the edit with relative spans (rill's default) and with
    // absolute ones, in the same rounds.
    let configs = [
        ("noop", None, "query-relative"),
        ("relative", None, "query-relative"),
        ("absolute", Some("absolute"), "query-absolute"),
    ];
    let sides = configs
        .iter()
        .map(|&(work, spans, _)| {
            let run = IncrementalRun::new(ctx, dir.join(work), &program).spans(spans);
            if work == "noop" {
                run
            } else {
                run.edited(&moved)
            }
            .side()
        })
        .collect();
    let [noop, rel, abs]: [Runs; 3] = interleave(ctx, ctx.profile.reps, sides)
        .try_into()
        .map_err(|_| "E5: not three series".to_string())?;
    o.rows
        .push(row_from(ctx, "no-change", "query-relative", size, &noop));
    for ((_, _, arch), runs) in configs[1..].iter().zip([&rel, &abs]) {
        let mut row = row_from(ctx, "top-of-file", arch, size, runs);
        row.note = format!("3 lines inserted at the top of {path}");
        o.rows.push(row);
    }
    ctx.step();
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    o.value("e5.size", Some(size as f64));
    o.text("e5.file", path);
    values(&mut o, size, &rel, &abs);
    Ok(o)
}

/// The paper values of E5, from its rows and the rebuilds after the edit with relative
/// and absolute spans.
fn values(o: &mut Outcome, size: usize, rel: &Runs, abs: &Runs) {
    for (how, arch) in [
        ("relative", "query-relative"),
        ("absolute", "query-absolute"),
    ] {
        o.median_value(&format!("e5.{how}_ms"), ("top-of-file", arch, size));
    }
    o.median_value("e5.noop_ms", ("no-change", "query-relative", size));
    o.paired_ratio_value(
        "e5.absolute_over_relative",
        ("top-of-file", "query-absolute", size),
        ("top-of-file", "query-relative", size),
    );
    for (how, arch) in [
        ("relative", "query-relative"),
        ("absolute", "query-absolute"),
    ] {
        let row = ("top-of-file", arch, size);
        o.counter_value(&format!("e5.{how}_codegen"), row, |r| r.codegen_executed);
        o.counter_value(&format!("e5.{how}_executed"), row, |r| r.executed);
    }
    // Queries of one kind executed in the last rebuild.
    let kind = |runs: &Runs, k: &str| {
        runs.as_ref()
            .ok()?
            .last()?
            .stats
            .as_ref()?
            .executed_of(k)
            .map(|n| n as f64)
    };
    o.value("e5.relative_typeck", kind(rel, "typeck"));
    o.value("e5.absolute_typeck", kind(abs, "typeck"));
    o.value("e5.relative_item_ast", kind(rel, "item_ast"));
    o.value("e5.absolute_item_ast", kind(abs, "item_ast"));
}
