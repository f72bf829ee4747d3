//! The experiments E1–E10 of DESIGN.md ("Experiments"), each a function from the context
//! to its rows, paper values and headline keys. Every build is a new `rill` (or `rustc`)
//! process.
//! A measurement that cannot be made (an architecture or option this `rill` lacks, a
//! failed build) becomes a row whose `status` says why, with empty numbers.
//!
//! One file per experiment (`e01_scratch` … `e10_diagnostics`; E4 reuses the edit
//! series of E3), and the helpers they share: `measure` (the paired, interleaved rounds
//! every comparison is timed in, their sides, builds into rows, [`IncrementalRun`]) and
//! `readout` (medians, counters, and ratios with bootstrap intervals read back from the
//! rows and samples for the paper).

mod measure;
mod readout;

mod e01_scratch;
mod e02_hashing;
mod e03_edits;
mod e04_cutoff;
mod e05_positions;
mod e06_scaling;
mod e07_persistence;
mod e08_rustc;
mod e09_codegen;
mod e10_diagnostics;

pub use self::e02_hashing::DEFAULT_ARCH as E2_DEFAULT_ARCH;
pub use self::e03_edits::run_kinds as e3_run_kinds;
pub use self::e08_rustc::{
    parse_time_passes, patched, phase_comparison, ratio_scenario, read_passes_csv, rustc_build,
    rustc_sizes, PassRow, GROUPS, LEAF, PASS_COLUMNS, RATIOS, RUSTC_FLAGS,
};
pub use self::e09_codegen::benchmarks;
pub use self::measure::{
    build_side, fill_counters, interleave, process_side, repeat, round_order, row_from, scratch,
    scratch_rounds, scratch_side, IncrementalRun, PairedRun, PairedRuns, Runs, Side,
};

use super::table::Row;
use super::workload::Shape;
use super::{Ctx, Outcome};

/// The seed of every generated workload.
pub const SEED: u64 = 7;

/// The shapes E1, E3 and E6 measure besides [`Shape::Default`]: the default shape keeps
/// every row it had; these add rows of their own, at fewer sizes or scenarios.
pub const EXTRA_SHAPES: [Shape; 2] = [Shape::SmallFns, Shape::BigFns];

/// A ratio measured for every extra shape: `key` of the numerator's and the
/// denominator's (scenario, architecture) rows, and the default shape's headline key.
pub(super) struct ShapeRatio<'a> {
    pub key: &'a str,
    pub num: (&'a str, &'a str),
    pub den: (&'a str, &'a str),
    pub headline: &'a str,
}

/// Measures every extra shape at `size` only (the largest, the headline's, to keep the
/// suite's time in check) with `measure`, and merges each into `o` with its `ratio`. A
/// shape whose measurement fails leaves a row saying why.
pub(super) fn measure_extra_shapes(
    ctx: &Ctx,
    o: &mut Outcome,
    size: usize,
    ratio: &ShapeRatio,
    mut measure: impl FnMut(&mut Outcome, Shape) -> Result<(), String>,
) {
    for shape in EXTRA_SHAPES {
        let mut x = Outcome::default();
        if let Err(why) = measure(&mut x, shape) {
            x.rows.push(
                Row::new("scratch", "pipeline", size).without_number(format!("failed: {why}")),
            );
        }
        x.samples = ctx.take_samples();
        let (n_scenario, n_arch) = ratio.num;
        let (d_scenario, d_arch) = ratio.den;
        x.paired_ratio_value(
            ratio.key,
            (n_scenario, n_arch, size),
            (d_scenario, d_arch, size),
        );
        let scope = format!("shape {}: the largest size only", shape.name());
        merge_shape(ctx, o, shape, x, &scope, &[(ratio.key, ratio.headline)]);
    }
}

/// Adds `extra`, the measurements of `shape` made apart from the default shape's, to `o`:
/// its rows, samples and phase rows tagged with the shape (rows with `note` prefixed by
/// `scope`, what the shape's measurement covers, and rows and phase rows with the actual
/// line count of the shape's program for their size), its warnings, and for each
/// `(KEY, DEFAULT_KEY)` of `keys` its value `KEY` (with its interval) as `KEY.<shape>` and
/// `o`'s value `DEFAULT_KEY` (the default shape's, usually the headline) as `KEY.default`.
pub(super) fn merge_shape(
    ctx: &Ctx,
    o: &mut Outcome,
    shape: Shape,
    mut extra: Outcome,
    scope: &str,
    keys: &[(&str, &str)],
) {
    for mut r in extra.rows {
        r.shape = shape.name().to_string();
        if r.lines.is_none() && r.size > 0 {
            r.lines = ctx.actual_lines(shape, r.size, SEED);
        }
        r.note = if r.note.is_empty() {
            scope.to_string()
        } else {
            format!("{scope}; {}", r.note)
        };
        o.rows.push(r);
    }
    for mut s in extra.samples.drain(..) {
        s.shape = shape.name().to_string();
        o.samples.push(s);
    }
    for mut p in extra.phases.drain(..) {
        p.shape = shape.name().to_string();
        if p.lines.is_none() && p.size > 0 {
            p.lines = ctx.actual_lines(shape, p.size, SEED);
        }
        o.phases.push(p);
    }
    o.warnings.extend(
        extra
            .warnings
            .into_iter()
            .map(|w| format!("{}: {w}", shape.name())),
    );
    for &(key, default_key) in keys {
        for suffix in ["", "_low", "_high", "_n"] {
            let tagged = format!("{key}.{}{suffix}", shape.key());
            let v = extra
                .values
                .get(&format!("{key}{suffix}"))
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            o.values.insert(tagged, v);
            let default = format!("{key}.{}{suffix}", Shape::Default.key());
            let v = o
                .values
                .get(&format!("{default_key}{suffix}"))
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            o.values.insert(default, v);
        }
    }
}

/// One experiment of the suite.
pub struct Experiment {
    pub id: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub run: fn(&Ctx) -> Result<Outcome, String>,
}

/// The suite, in order.
pub const ALL: &[Experiment] = &[
    Experiment {
        id: "e1",
        name: "scratch",
        title: "cost of a from-scratch build",
        run: e01_scratch::run,
    },
    Experiment {
        id: "e2",
        name: "hashing",
        title: "share of hashing",
        run: e02_hashing::run,
    },
    Experiment {
        id: "e3",
        name: "edits",
        title: "rebuilds per kind of edit",
        run: e03_edits::run,
    },
    Experiment {
        id: "e4",
        name: "cutoff",
        title: "early cutoff off",
        run: e04_cutoff::run,
    },
    Experiment {
        id: "e5",
        name: "positions",
        title: "edits at the top of a file",
        run: e05_positions::run,
    },
    Experiment {
        id: "e6",
        name: "scaling",
        title: "rebuild cost against size",
        run: e06_scaling::run,
    },
    Experiment {
        id: "e7",
        name: "persistence",
        title: "cache size, load and save",
        run: e07_persistence::run,
    },
    Experiment {
        id: "e8",
        name: "rustc",
        title: "comparison with rustc",
        run: e08_rustc::run,
    },
    Experiment {
        id: "e9",
        name: "codegen",
        title: "run time of generated code",
        run: e09_codegen::run,
    },
    Experiment {
        id: "e10",
        name: "diagnostics",
        title: "time to first diagnostic",
        run: e10_diagnostics::run,
    },
];

/// The CSV file name of an experiment: `e03-edits.csv`.
pub fn csv_name(e: &Experiment) -> String {
    let n: u32 = e.id[1..].parse().unwrap_or(0);
    format!("e{n:02}-{}.csv", e.name)
}
