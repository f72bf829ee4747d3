//! Where a build spends its time: the phase breakdown of each kind of build an experiment
//! times (`results/eNN-phases.csv`, one row per experiment, program size, shape, build
//! kind and phase).
//!
//! The phases are those of the compiler's statistics (`phases_ms`, by name: a phase a
//! newer `rill` reports appears without any change here), each the median over the
//! repetitions of the build, and two more: [`COMPILER_OTHER`], the compiler's own time
//! (`total_ms`) not in any reported phase, and [`PROCESS`], the process's wall time
//! outside the compiler (`wall − total_ms`: start-up, running the program, exit). Each is
//! a median of per-build values, so the phases of a kind sum to about the median wall
//! time of its builds (a sum of medians is not the median of the sums).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::rill::BuildRun;
use super::stats::spread;

/// The compiler's own time outside every phase it reports.
pub const COMPILER_OTHER: &str = "compiler_other";
/// The process's wall time outside the compiler: start-up, running the program, exit.
pub const PROCESS: &str = "process";

/// The phases of both drivers in the order they run; phases not listed here go after
/// them, in the order the compiler reported them.
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

/// One row of a phases CSV: the median time of one phase of one kind of build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseRow {
    /// The experiment (`e3`, `e6`).
    #[serde(default)]
    pub experiment: String,
    /// The shape of the generated program (`workload::Shape`).
    #[serde(default = "default_shape")]
    pub shape: String,
    /// The nominal program size (0 in files written before the column existed).
    #[serde(default)]
    pub size: usize,
    /// The actual line count of the program, where known.
    #[serde(default)]
    pub lines: Option<usize>,
    /// The kind of build, for people: `query, no change`, `pipeline, from scratch`.
    pub build: String,
    /// The kind of build as the experiment's CSV names it: scenario and architecture.
    #[serde(default)]
    pub scenario: String,
    #[serde(default)]
    pub architecture: String,
    pub phase: String,
    /// The median over the repetitions, ms.
    pub ms: f64,
    /// Repetitions the median is over.
    #[serde(default)]
    pub n: usize,
}

fn default_shape() -> String {
    super::table::DEFAULT_SHAPE.to_string()
}

/// The columns of a phases CSV, in order (`build`, `phase` and `ms` are those of the
/// first version of `e06-phases.csv`).
pub const COLUMNS: &[&str] = &[
    "experiment",
    "shape",
    "size",
    "lines",
    "build",
    "scenario",
    "architecture",
    "phase",
    "ms",
    "n",
];

/// The phases CSV of an experiment: `e03-phases.csv`.
pub fn csv_name(id: &str) -> String {
    let n: u32 = id.trim_start_matches('e').parse().unwrap_or(0);
    format!("e{n:02}-phases.csv")
}

/// The kind of build a scenario on an architecture is, for people: `pipeline, from
/// scratch`, `query, no change`, `query, leaf-body edit`.
pub fn build_label(scenario: &str, arch: &str) -> String {
    match scenario {
        "scratch" => format!("{arch}, from scratch"),
        "no-change" => format!("{arch}, no change"),
        s => format!("{arch}, {s} edit"),
    }
}

/// A phase name of any version of the file, as this version names it (the first one
/// named the two rests `compiler, other` and `outside the compiler`).
pub fn canonical(phase: &str) -> &str {
    match phase {
        "compiler, other" => COMPILER_OTHER,
        "outside the compiler" => PROCESS,
        p => p,
    }
}

/// The phase rows of the builds `runs` of `scenario` on `arch` at `size` (program of the
/// default shape, experiment and line count left for the caller): the median of every
/// phase the compiler reported (in the order of [`PHASE_ORDER`]), of the compiler's time
/// outside them and of the process's time outside the compiler. Builds without
/// statistics give no rows.
pub fn of_runs(scenario: &str, arch: &str, size: usize, runs: &[BuildRun]) -> Vec<PhaseRow> {
    let with_stats: Vec<(&BuildRun, &super::rill::BuildStats)> = runs
        .iter()
        .filter_map(|r| Some((r, r.stats.as_ref()?)))
        .collect();
    let mut names: Vec<&str> = Vec::new();
    for (_, s) in &with_stats {
        for (p, _) in &s.phases_ms {
            if !names.contains(&p.as_str()) {
                names.push(p);
            }
        }
    }
    let rank = |p: &str| {
        PHASE_ORDER
            .iter()
            .position(|q| *q == p)
            .unwrap_or(PHASE_ORDER.len())
    };
    // A stable sort keeps the compiler's order among phases not in PHASE_ORDER.
    names.sort_by_key(|p| rank(p));
    let phase = |s: &super::rill::BuildStats, name: &str| -> f64 {
        s.phases_ms
            .iter()
            .filter(|p| p.0 == name)
            .map(|p| p.1)
            .sum()
    };
    let mut parts: Vec<(String, Vec<f64>)> = names
        .iter()
        .map(|n| {
            let v = with_stats.iter().map(|(_, s)| phase(s, n)).collect();
            (n.to_string(), v)
        })
        .collect();
    let other: Vec<f64> = with_stats
        .iter()
        .map(|(_, s)| s.total_ms - names.iter().map(|n| phase(s, n)).sum::<f64>())
        .collect();
    parts.push((COMPILER_OTHER.to_string(), other));
    let process = with_stats
        .iter()
        .map(|(r, s)| r.proc.wall_ms - s.total_ms)
        .collect();
    parts.push((PROCESS.to_string(), process));
    parts
        .into_iter()
        .filter_map(|(phase, v)| {
            let s = spread(&v)?;
            Some(PhaseRow {
                experiment: String::new(),
                shape: default_shape(),
                size,
                lines: None,
                build: build_label(scenario, arch),
                scenario: scenario.to_string(),
                architecture: arch.to_string(),
                phase,
                // A rest of less than zero is rounding between the compiler's clocks.
                ms: s.median.max(0.0),
                n: s.n,
            })
        })
        .collect()
}

/// Writes `rows` as CSV (header included).
pub fn write_csv(path: &Path, rows: &[PhaseRow]) -> Result<(), String> {
    let err = |e: csv::Error| format!("cannot write `{}`: {e}", path.display());
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    if rows.is_empty() {
        w.write_record(COLUMNS).map_err(err)?;
    }
    for r in rows {
        w.serialize(r).map_err(err)?;
    }
    w.flush()
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// Reads a phases CSV of any version (phase names made [`canonical`]); none when the
/// file is absent or unreadable.
pub fn read_csv(path: &Path) -> Vec<PhaseRow> {
    let Ok(mut r) = csv::Reader::from_path(path) else {
        return Vec::new();
    };
    r.deserialize::<PhaseRow>()
        .flatten()
        .map(|mut p| {
            p.phase = canonical(&p.phase).to_string();
            p
        })
        .collect()
}

/// The median ms of `phase` of the kind `build` in `rows` (the first match).
pub fn ms_of(rows: &[PhaseRow], build: &str, phase: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r.build == build && r.phase == phase)
        .map(|r| r.ms)
}

/// The rows of the default shape at the largest size among them, of experiment `id` (or
/// of no named experiment, in files written before the column existed).
pub fn at_largest_size<'a>(rows: &'a [PhaseRow], id: &str) -> Vec<&'a PhaseRow> {
    let of = |r: &&PhaseRow| {
        (r.experiment == id || r.experiment.is_empty()) && r.shape == super::table::DEFAULT_SHAPE
    };
    let big = rows.iter().filter(of).map(|r| r.size).max().unwrap_or(0);
    rows.iter().filter(of).filter(|r| r.size == big).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::process::ProcRun;
    use crate::runner::rill::BuildStats;

    fn build(wall: f64, total: f64, phases: &str) -> BuildRun {
        let stats = BuildStats::parse(&format!(
            r#"{{"arch":"query","total_ms":{total},"phases_ms":{{{phases}}}}}"#
        ))
        .unwrap();
        BuildRun {
            proc: ProcRun {
                wall_ms: wall,
                ..ProcRun::default()
            },
            stats: Some(stats),
            instructions: None,
        }
    }

    #[test]
    fn phases_are_medians_in_order_and_sum_to_the_wall_time() {
        // An unknown phase (`detect_changes`) is kept, after the known ones, in the
        // compiler's order; the rests are the compiler's and the process's.
        let runs = [
            build(
                20.0,
                15.0,
                r#""save_cache":1.0,"detect_changes":2.0,"load_cache":5.0,"check":4.0"#,
            ),
            build(
                22.0,
                16.0,
                r#""save_cache":1.0,"detect_changes":2.0,"load_cache":6.0,"check":4.0"#,
            ),
            build(
                21.0,
                15.5,
                r#""save_cache":1.0,"detect_changes":3.0,"load_cache":5.5,"check":4.0"#,
            ),
        ];
        let rows = of_runs("no-change", "query", 1000, &runs);
        let names: Vec<&str> = rows.iter().map(|r| r.phase.as_str()).collect();
        assert_eq!(
            names,
            [
                "load_cache",
                "check",
                "save_cache",
                "detect_changes",
                COMPILER_OTHER,
                PROCESS
            ]
        );
        assert_eq!(ms_of(&rows, "query, no change", "load_cache"), Some(5.5));
        assert_eq!(ms_of(&rows, "query, no change", PROCESS), Some(5.5));
        assert!(rows.iter().all(|r| r.n == 3 && r.size == 1000));
        let sum: f64 = rows.iter().map(|r| r.ms).sum();
        assert!((sum - 21.0).abs() <= 0.5, "{sum}");
        // A build without statistics (rustc) has no phases.
        let mut bare = build(1.0, 1.0, "");
        bare.stats = None;
        assert!(of_runs("scratch", "rustc", 10, &[bare]).is_empty());
    }

    #[test]
    fn csv_round_trips_and_reads_the_first_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(csv_name("e3"));
        assert!(path.ends_with("e03-phases.csv"));
        let mut rows = of_runs(
            "leaf-body",
            "query",
            300,
            &[build(10.0, 8.0, r#""check":3.0"#)],
        );
        for r in &mut rows {
            r.experiment = "e3".into();
            r.lines = Some(291);
        }
        write_csv(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next().unwrap(), COLUMNS.join(","));
        assert_eq!(read_csv(&path), rows);
        assert_eq!(rows[0].build, "query, leaf-body edit");
        let old = dir.path().join("old.csv");
        std::fs::write(
            &old,
            "build,phase,ms\n\"query, no change\",load_cache,8.9\n\
             \"query, no change\",outside the compiler,3.3\n",
        )
        .unwrap();
        let old = read_csv(&old);
        assert_eq!(old.len(), 2);
        assert_eq!((old[1].phase.as_str(), old[1].ms), (PROCESS, 3.3));
        assert_eq!(at_largest_size(&old, "e6").len(), 2);
    }
}
