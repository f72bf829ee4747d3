//! E1: from-scratch builds against size, and the pipeline's throughput; the other
//! program shapes at the largest size.

use std::path::Path;

use super::measure::{image_check, row_from, scratch_rounds};
use super::readout::{first_error, median};
use super::{measure_extra_shapes, ShapeRatio, EXTRA_SHAPES, SEED};
use crate::runner::rill::{BuildRun, Mode};
use crate::runner::stats::{self, spread};
use crate::runner::table::{self, Row};
use crate::runner::workload::{OnDisk, Shape};
use crate::runner::{Ctx, Outcome};

/// The pipeline's stages as the throughput rows of E1 group its `phases_ms`: the
/// front end's checks are one stage (items to type checking), code generation includes
/// linking.
const PIPELINE_STAGES: [(&str, &[&str]); 5] = [
    ("parse", &["parse"]),
    (
        "check",
        &["items", "resolve", "collect", "consteval", "typeck"],
    ),
    ("lower", &["lower"]),
    ("optimize", &["optimize"]),
    ("codegen", &["codegen", "link"]),
];

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let sizes = ctx.profile.sizes.clone();
    let big = *sizes.last().unwrap_or(&0);
    ctx.start_progress("E1", (sizes.len() + EXTRA_SHAPES.len()) as u64);
    let dir = ctx.dir("e1");
    let mut o = Outcome::default();
    measure(ctx, &mut o, &dir, Shape::Default, &sizes)?;
    o.samples = ctx.take_samples();
    values(&mut o, &sizes);
    measure_extra_shapes(
        ctx,
        &mut o,
        big,
        &ShapeRatio {
            key: "e1.query_over_pipeline",
            num: ("scratch", "query-disk"),
            den: ("scratch", "pipeline"),
            headline: "e1_query_over_pipeline",
        },
        |x, shape| measure(ctx, x, &dir, shape, &[big]),
    );
    ctx.finish_progress();
    Ok(o)
}

/// The builds of E1 for the programs of `shape` at `sizes`, into `o.rows` (each row with
/// the actual line count of its program).
fn measure(
    ctx: &Ctx,
    o: &mut Outcome,
    dir: &Path,
    shape: Shape,
    sizes: &[usize],
) -> Result<(), String> {
    let prefix = match shape {
        Shape::Default => String::new(),
        _ => format!("{}-", shape.name()),
    };
    for &size in sizes {
        let program = ctx.program(shape, size, SEED);
        let disk = OnDisk::create(&dir.join(format!("{prefix}p{size}")), program)?;
        let lines = disk.program.total_lines();
        let root = disk.root();
        ctx.set_message(&format!(
            "pipeline and query, {lines} lines ({})",
            shape.name()
        ));
        let cache = dir.join(format!("{prefix}cache{size}"));
        let first = o.rows.len();
        let [pipe, mem, disk_runs] = scratch_rounds(
            ctx,
            Mode::Run,
            &root,
            &[
                ("pipeline", None, &[]),
                ("query", None, &[]),
                ("query", Some(&cache), &[]),
            ],
        );
        o.rows
            .push(row_from(ctx, "scratch", "pipeline", size, &pipe));
        if let Ok(runs) = &pipe {
            throughput_rows(&mut o.rows, runs, size, lines);
        }
        for (arch, runs) in [("query-memory", &mem), ("query-disk", &disk_runs)] {
            o.rows.push(row_from(ctx, "scratch", arch, size, runs));
            let n = o.rows.len() - 1;
            image_check(&mut o.rows, &pipe, runs, n);
        }
        for r in &mut o.rows[first..] {
            r.lines = Some(lines);
        }
        ctx.step();
    }
    Ok(())
}

/// The pipeline's lines per second, end to end (the sum of its phases) and per stage.
fn throughput_rows(rows: &mut Vec<Row>, runs: &[BuildRun], size: usize, lines: usize) {
    // Lines per second of each run, over the phases `counts` selects.
    let lps = |counts: &dyn Fn(&str) -> bool| -> Vec<f64> {
        runs.iter()
            .filter_map(|r| r.stats.as_ref())
            .map(|s| {
                s.phases_ms
                    .iter()
                    .filter(|p| counts(&p.0))
                    .map(|p| p.1)
                    .sum::<f64>()
            })
            .filter(|ms| *ms > 0.0)
            .map(|ms| lines as f64 / (ms / 1e3))
            .collect()
    };
    let all = lps(&|_| true);
    let mut r = Row::new("throughput", "pipeline", size).with_spread(spread(&all), "lines/s");
    if let Some(iv) = stats::median_interval(&all) {
        (r.low, r.high) = (Some(iv.low), Some(iv.high));
    }
    r.note = format!(
        "{lines} lines / sum of phases_ms (parse to link); low/high: bootstrap 95 % interval of the median"
    );
    rows.push(r);
    for (stage, phases) in PIPELINE_STAGES {
        let mut r = Row::new(format!("throughput {stage}"), "pipeline", size)
            .with_spread(spread(&lps(&|p| phases.contains(&p))), "lines/s");
        r.note = format!("{lines} lines / phases_ms of {}", phases.join(", "));
        rows.push(r);
    }
}

/// The headline keys and paper values of E1.
fn values(o: &mut Outcome, sizes: &[usize]) {
    let big = *sizes.last().unwrap_or(&0);
    o.ratio_headline(
        "e1_query_over_pipeline",
        ("scratch", "query-disk", big),
        ("scratch", "pipeline", big),
    );
    // The in-memory query build's wall time over the pipeline's, under a name that says
    // so; `e1.memory_over_pipeline` is the same time ratio under its older, ambiguous
    // name (the paper's text quotes it as a time ratio), and `e1.memory_rss_over_pipeline`
    // the ratio of peak memory.
    let time = o.paired_ratio_value(
        "e1.query_memory_time_over_pipeline",
        ("scratch", "query-memory", big),
        ("scratch", "pipeline", big),
    );
    o.interval_value("e1.memory_over_pipeline", time);
    // Peak memory over the pipeline's, for the query build in memory and for the one
    // persisting its cache (whose save comes on top of the in-memory build's state).
    for (key, arch) in [
        ("e1.memory_rss_over_pipeline", "query-memory"),
        ("e1.disk_rss_over_pipeline", "query-disk"),
    ] {
        o.ratio_of(
            key,
            (("scratch", arch, big), |s| s.peak_rss_kb.map(|k| k as f64)),
            (("scratch", "pipeline", big), |s| {
                s.peak_rss_kb.map(|k| k as f64)
            }),
        );
    }
    let lps = table::find(&o.rows, "throughput", "pipeline", big)
        .filter(|r| r.is_ok())
        .and_then(|r| {
            Some(stats::Interval {
                value: r.median?,
                low: r.low?,
                high: r.high?,
                n: r.repetitions,
            })
        });
    o.headline(
        "pipeline_lines_per_s",
        lps,
        first_error(&o.rows, &[("throughput", "pipeline", big)]),
    );
    for (stage, _) in PIPELINE_STAGES {
        o.median_value(
            &format!("e1.{stage}_lines_per_s"),
            (&format!("throughput {stage}"), "pipeline", big),
        );
    }
    o.value("e1.size", Some(big as f64));
    for arch in ["pipeline", "query-memory", "query-disk"] {
        let key = arch.replace('-', "_");
        o.median_value(&format!("e1.{key}_ms"), ("scratch", arch, big));
        let rss = table::find(&o.rows, "scratch", arch, big)
            .filter(|r| r.is_ok())
            .and_then(|r| r.peak_rss_kb);
        o.value(&format!("e1.{key}_rss_mib"), rss.map(|k| k as f64 / 1024.0));
        o.median_value(
            &format!("e1.{key}_ms_smallest"),
            ("scratch", arch, sizes[0]),
        );
    }
    o.value("e1.smallest_size", Some(sizes[0] as f64));
    let tp: Vec<(f64, f64)> = sizes
        .iter()
        .filter_map(|s| median(&o.rows, ("scratch", "pipeline", *s)).map(|m| (*s as f64, m)))
        .collect();
    o.value("e1.pipeline_slope", stats::loglog_slope(&tp));
}
