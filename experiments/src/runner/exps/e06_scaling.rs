//! E6: no-change and one-edit rebuilds against size.

use super::measure::{
    build_side, interleave, pipeline_build, row_from, IncrementalRun, NO_LEAF_EDIT,
};
use super::readout::median;
use super::SEED;
use crate::runner::rill::{Mode, NoMeasurement};
use crate::runner::stats;
use crate::runner::table::Row;
use crate::runner::workload::OnDisk;
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
    ctx.start_progress("E6", sizes.len() as u64 * 3);
    let dir = ctx.dir("e6");
    for &size in &sizes {
        let program = ctx.program(size, SEED);
        let disk = OnDisk::create(&dir.join(format!("p{size}")), program.clone())?;
        let root = disk.root();
        // The pipeline's builds, the no-change rebuilds and the leaf-body rebuilds in the
        // same rounds.
        let edits = ctx.leaf_edits(size, SEED);
        let leaf = match &edits.changing {
            Some((e, _)) => IncrementalRun::new(ctx, dir.join(format!("leaf{size}")), &program)
                .edited(&e.program)
                .side(),
            None => Err(NoMeasurement::Failed(NO_LEAF_EDIT.to_string())),
        };
        let sides = vec![
            build_side(ctx, pipeline_build(ctx, Mode::Run, &root), &[0]),
            IncrementalRun::new(ctx, dir.join(format!("noop{size}")), &program).side(),
            leaf,
        ];
        let runs = interleave(ctx, ctx.profile.reps, sides);
        for ((scenario, arch), runs) in SERIES.iter().zip(&runs) {
            o.rows.push(row_from(ctx, scenario, arch, size, runs));
            ctx.step();
        }
    }
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    for (scenario, arch) in SERIES {
        let slope = slope_row(&mut o.rows, &sizes, scenario, arch);
        o.value(&format!("e6.slope_{}", scenario.replace('-', "_")), slope);
    }
    values(&mut o, &sizes);
    Ok(o)
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
