//! E6: no-change and one-edit rebuilds against size; the other program shapes at the
//! largest size.

use std::path::Path;

use super::measure::{
    build_side, interleave, phase_rows, pipeline_build, row_from, IncrementalRun, NO_LEAF_EDIT,
};
use super::readout::{median, peak_rss, wall, Quantity};
use super::{measure_extra_shapes, ShapeRatio, EXTRA_SHAPES, SEED};
use crate::runner::rill::{Mode, NoMeasurement};
use crate::runner::stats;
use crate::runner::table::Row;
use crate::runner::workload::{OnDisk, Shape};
use crate::runner::{Ctx, Outcome};

/// The series whose cost against size E6 fits: (scenario, architecture).
const SERIES: [(&str, &str); 3] = [
    ("scratch", "pipeline"),
    ("no-change", "query"),
    ("leaf-body", "query"),
];

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let sizes = ctx.profile.sizes.clone();
    let big = *sizes.last().unwrap_or(&0);
    ctx.start_progress("E6", (sizes.len() + EXTRA_SHAPES.len()) as u64 * 3);
    let dir = ctx.dir("e6");
    measure(ctx, &mut o, &dir, Shape::Default, &sizes)?;
    o.samples = ctx.take_samples();
    for (scenario, arch) in SERIES {
        let slope = slope_row(&mut o.rows, &sizes, scenario, arch);
        o.value(&format!("e6.slope_{}", scenario.replace('-', "_")), slope);
    }
    values(&mut o, &sizes);
    measure_extra_shapes(
        ctx,
        &mut o,
        big,
        &ShapeRatio {
            key: "e6.noop_over_pipeline",
            num: ("no-change", "query"),
            den: ("scratch", "pipeline"),
            headline: "e6_noop_over_pipeline",
        },
        |x, shape| measure(ctx, x, &dir, shape, &[big]),
    );
    ctx.finish_progress();
    Ok(o)
}

/// The builds of E6 for the programs of `shape` at `sizes`, into `o.rows` (each row with
/// the actual line count of its program) and their phase breakdown into `o.phases`.
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
        let lines = program.total_lines();
        let disk = OnDisk::create(&dir.join(format!("{prefix}p{size}")), program.clone())?;
        let root = disk.root();
        // The pipeline's builds, the no-change rebuilds and the leaf-body rebuilds in the
        // same rounds.
        let edits = ctx.leaf_edits(shape, size, SEED);
        let leaf = match &edits.changing {
            Some((e, _)) => {
                IncrementalRun::new(ctx, dir.join(format!("{prefix}leaf{size}")), &program)
                    .edited(&e.program)
                    .side()
            }
            None => Err(NoMeasurement::Failed(NO_LEAF_EDIT.to_string())),
        };
        let sides = vec![
            build_side(ctx, pipeline_build(ctx, Mode::Run, &root), &[0]),
            IncrementalRun::new(ctx, dir.join(format!("{prefix}noop{size}")), &program).side(),
            leaf,
        ];
        let runs = interleave(ctx, ctx.profile.reps, sides);
        for ((scenario, arch), runs) in SERIES.iter().zip(&runs) {
            let mut row = row_from(ctx, scenario, arch, size, runs);
            row.lines = Some(lines);
            o.rows.push(row);
            for mut p in phase_rows(scenario, arch, size, runs) {
                p.lines = Some(lines);
                o.phases.push(p);
            }
            ctx.step();
        }
    }
    Ok(())
}

/// The row of the exponent of `scenario` on `arch` against size; returns the exponent.
fn slope_row(rows: &mut Vec<Row>, sizes: &[usize], scenario: &str, arch: &str) -> Option<f64> {
    let pts: Vec<(f64, f64)> = sizes
        .iter()
        .filter_map(|s| median(rows, (scenario, arch, *s)).map(|m| (*s as f64, m)))
        .collect();
    let slope = stats::loglog_slope(&pts);
    let mut r = Row::new(format!("slope:{scenario}"), arch, 0);
    r.unit = "exponent".to_string();
    r.repetitions = pts.len();
    r.median = slope;
    if slope.is_none() {
        r.status = "failed: fewer than two sizes measured".to_string();
    }
    r.note = "least-squares slope of log(median ms) against log(lines)".to_string();
    rows.push(r);
    slope
}

/// The headline key and paper values of E6 at the largest size.
fn values(o: &mut Outcome, sizes: &[usize]) {
    let big = *sizes.last().unwrap_or(&0);
    o.ratio_headline(
        "e6_noop_over_pipeline",
        ("no-change", "query", big),
        ("scratch", "pipeline", big),
    );
    o.paired_ratio_value(
        "e6.leaf_over_pipeline",
        ("leaf-body", "query", big),
        ("scratch", "pipeline", big),
    );
    o.value("e6.size", Some(big as f64));
    o.median_value("e6.noop_ms", ("no-change", "query", big));
    o.median_value("e6.leaf_ms", ("leaf-body", "query", big));
    o.median_value("e6.pipeline_ms", ("scratch", "pipeline", big));
    // The goals are stated per size: each rebuild's ratio and time at every size
    // (`KEY.at_<size>`), beside the headline's at the largest.
    for &n in sizes {
        let pipeline = (("scratch", "pipeline", n), wall as Quantity);
        o.paired_value(
            &format!("e6.noop_over_pipeline.at_{n}"),
            (("no-change", "query", n), wall),
            pipeline,
        );
        o.paired_value(
            &format!("e6.leaf_over_pipeline.at_{n}"),
            (("leaf-body", "query", n), wall),
            pipeline,
        );
        o.median_value(&format!("e6.leaf_ms.at_{n}"), ("leaf-body", "query", n));
    }
    // Peak memory of each rebuild over the pipeline's from-scratch build, and the larger
    // of the two: what a rebuild needs at most, against what the pipeline needs.
    let pipeline = (("scratch", "pipeline", big), peak_rss as Quantity);
    let noop = o.paired_value(
        "e6.noop_rss_over_pipeline",
        (("no-change", "query", big), peak_rss),
        pipeline,
    );
    let leaf = o.paired_value(
        "e6.leaf_rss_over_pipeline",
        (("leaf-body", "query", big), peak_rss),
        pipeline,
    );
    let larger = match (noop, leaf) {
        (Some(a), Some(b)) => Some(if b.value > a.value { b } else { a }),
        _ => None,
    };
    o.interval_value("e6.rebuild_rss_over_pipeline", larger);
}
