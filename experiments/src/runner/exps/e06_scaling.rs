//! E6: no-change and one-edit rebuilds against size; the other program shapes at the
//! largest size.

use std::path::Path;

use super::measure::{
    build_side, interleave, pipeline_build, row_from, IncrementalRun, Runs, NO_LEAF_EDIT,
};
use super::readout::median;
use super::{measure_extra_shapes, ShapeRatio, EXTRA_SHAPES, SEED};
use crate::runner::plot::{self, PhaseRow};
use crate::runner::rill::{Mode, NoMeasurement};
use crate::runner::stats::{self, spread};
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
    let phases = measure(ctx, &mut o, &dir, Shape::Default, &sizes)?;
    let path = ctx.results.join(plot::PHASES_CSV);
    if let Err(why) = plot::write_phases(&path, &phases) {
        o.warnings.push(format!("e6: {why}"));
    }
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
        |x, shape| measure(ctx, x, &dir, shape, &[big]).map(|_| ()),
    );
    ctx.finish_progress();
    Ok(o)
}

/// The builds of E6 for the programs of `shape` at `sizes`, into `o.rows` (each row with
/// the actual line count of its program); returns the phase rows of the largest size.
fn measure(
    ctx: &Ctx,
    o: &mut Outcome,
    dir: &Path,
    shape: Shape,
    sizes: &[usize],
) -> Result<Vec<PhaseRow>, String> {
    let prefix = match shape {
        Shape::Default => String::new(),
        _ => format!("{}-", shape.name()),
    };
    let mut phases = Vec::new();
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
            ctx.step();
        }
        if Some(&size) == sizes.last() {
            phases = phase_rows(&[
                ("pipeline, from scratch", &runs[0]),
                ("query, no change", &runs[1]),
                ("query, leaf-body edit", &runs[2]),
            ]);
        }
    }
    Ok(phases)
}

/// The phases of both drivers in the order they run (unknown ones go last).
const PHASE_ORDER: [&str; 13] = [
    "load_cache",
    "parse",
    "items",
    "resolve",
    "collect",
    "consteval",
    "typeck",
    "check",
    "lower",
    "optimize",
    "codegen",
    "link",
    "save_cache",
];

/// Where each series of builds spent its time, for the phase figure: the median of each
/// phase of the compiler's statistics (`phases_ms`, in the order the compiler reports
/// them), the rest of the compiler's own time (`total_ms`), and the rest of the process's
/// wall time (start-up, running the program). Series without builds are left out.
fn phase_rows(series: &[(&str, &Runs)]) -> Vec<PhaseRow> {
    let mut out = Vec::new();
    for (build, runs) in series {
        let Ok(runs) = runs else { continue };
        let stats: Vec<_> = runs.iter().filter_map(|r| r.stats.as_ref()).collect();
        let mut names: Vec<&str> = Vec::new();
        for s in &stats {
            for (p, _) in &s.phases_ms {
                if !names.contains(&p.as_str()) {
                    names.push(p);
                }
            }
        }
        // The compiler reports its phases by name; show them in the order they run.
        let rank = |p: &str| {
            PHASE_ORDER
                .iter()
                .position(|q| *q == p)
                .unwrap_or(usize::MAX)
        };
        names.sort_by_key(|p| rank(p));
        let median = |v: Vec<f64>| spread(&v).map(|s| s.median);
        let mut sum = 0.0;
        let mut push = |phase: &str, ms: f64| {
            out.push(PhaseRow {
                build: build.to_string(),
                phase: phase.to_string(),
                ms,
            })
        };
        for name in names {
            let v = stats
                .iter()
                .map(|s| {
                    s.phases_ms
                        .iter()
                        .filter(|p| p.0 == name)
                        .map(|p| p.1)
                        .sum()
                })
                .collect();
            if let Some(ms) = median(v) {
                sum += ms;
                push(name, ms);
            }
        }
        let total = median(stats.iter().map(|s| s.total_ms).collect());
        if let Some(rest) = total.map(|t| t - sum).filter(|r| *r > 0.0) {
            push("compiler, other", rest);
        }
        let outside = runs
            .iter()
            .filter_map(|r| Some(r.proc.wall_ms - r.stats.as_ref()?.total_ms))
            .collect();
        if let Some(rest) = median(outside).filter(|r| *r > 0.0) {
            push("outside the compiler", rest);
        }
    }
    out
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
}
