//! Raw samples: one row per timed build, `results/samples/eNN-<name>.csv`, beside the
//! summary CSVs. A sample belongs to a configuration (scenario, architecture, size) and
//! a round; the builds of one round of a paired measurement share the round number, and
//! `seq` (the order in which the runner started its processes) shows their order.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::rill::{BuildRun, BuildStats};

/// One timed build.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub experiment: String,
    pub scenario: String,
    pub architecture: String,
    pub size: usize,
    /// The round (0-based) of the measurement the build belongs to.
    pub round: usize,
    /// The order in which the runner started the process (1 for its first).
    pub seq: u64,
    pub wall_ms: f64,
    /// Spawn to the first byte on stderr (the first diagnostic), when there was one.
    pub first_stderr_ms: Option<f64>,
    pub cpu_user_ms: f64,
    pub cpu_sys_ms: f64,
    pub peak_rss_kb: Option<u64>,
    /// Page faults served without disk reads (`ProcRun::minor_faults`).
    pub minor_faults: Option<u64>,
    /// The compiler's own time (stats JSON `total_ms`).
    pub compile_ms: Option<f64>,
    /// The engine's hashing time (`engine.hash_ms`: without the encoding of `encode_ms`).
    pub hash_ms: Option<f64>,
    /// The engine's time encoding values, when executed, for the cache (`engine.encode_ms`:
    /// the bytes the fingerprints of persisted values are of, saved as they are).
    pub encode_ms: Option<f64>,
    /// The engine's totals: queries executed, re-validated green, loaded from the cache.
    pub executed: Option<u64>,
    pub green: Option<u64>,
    pub loaded: Option<u64>,
    /// Values carried into the new cache without being decoded (sum over kinds).
    pub promoted: Option<u64>,
    /// Nodes of the dependency graph (`engine.nodes`).
    pub graph_nodes: Option<u64>,
    /// `codegen` queries executed.
    pub codegen_executed: Option<u64>,
    /// Instructions of one extra build of this configuration under callgrind.
    pub config_instructions: Option<u64>,
    pub exit: Option<i32>,
    /// The shape of the generated program (`workload::Shape`), `default` for most.
    pub shape: String,
}

impl Sample {
    /// The sample of build `r`, the `round`-th of its configuration.
    pub fn of(scenario: &str, arch: &str, size: usize, round: usize, r: &BuildRun) -> Sample {
        let st = r.stats.as_ref();
        let engine = st.filter(|s| s.is_query());
        Sample {
            experiment: String::new(),
            scenario: scenario.to_string(),
            architecture: arch.to_string(),
            size,
            round,
            seq: r.proc.seq,
            wall_ms: r.proc.wall_ms,
            first_stderr_ms: r.proc.first_stderr_ms,
            cpu_user_ms: r.proc.cpu_user_ms,
            cpu_sys_ms: r.proc.cpu_sys_ms,
            peak_rss_kb: r.proc.peak_rss_kb,
            minor_faults: Some(r.proc.minor_faults),
            compile_ms: st.map(|s| s.total_ms),
            hash_ms: engine.map(BuildStats::hash_ms),
            encode_ms: engine.map(BuildStats::encode_ms),
            executed: engine.map(|s| s.executed),
            green: engine.map(|s| s.green),
            loaded: engine.map(|s| s.loaded),
            promoted: engine.map(BuildStats::promoted),
            graph_nodes: engine.and_then(|s| s.engine_u64("nodes")),
            codegen_executed: engine.and_then(BuildStats::codegen_executed),
            config_instructions: r.instructions,
            exit: r.proc.exit,
            shape: super::table::DEFAULT_SHAPE.to_string(),
        }
    }

    /// CPU time, user + system.
    pub fn cpu_ms(&self) -> f64 {
        self.cpu_user_ms + self.cpu_sys_ms
    }

    /// The engine's exact counts, which every repetition of the same build must repeat.
    pub fn counts(&self) -> [Option<u64>; 5] {
        [
            self.executed,
            self.green,
            self.loaded,
            self.promoted,
            self.codegen_executed,
        ]
    }
}

/// Samples of `runs` (round = index), and a warning when the engine's counts differ
/// between repetitions of the same build.
pub fn of_runs(
    scenario: &str,
    arch: &str,
    size: usize,
    runs: &[BuildRun],
) -> (Vec<Sample>, Option<String>) {
    let samples: Vec<Sample> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Sample::of(scenario, arch, size, i, r))
        .collect();
    let differ = samples
        .windows(2)
        .find(|w| w[0].counts() != w[1].counts())
        .map(|w| {
            format!(
                "{scenario}/{arch} at {size} lines: the engine's counts differ between \
                 repetitions (executed, green, loaded, promoted, codegen: {:?} in round {}, \
                 {:?} in round {})",
                w[0].counts(),
                w[0].round,
                w[1].counts(),
                w[1].round
            )
        });
    (samples, differ)
}

/// The samples of configuration (`scenario`, `arch`, `size`) by round.
pub fn of_config<'a>(
    samples: &'a [Sample],
    scenario: &str,
    arch: &str,
    size: usize,
) -> impl Iterator<Item = &'a Sample> + 'a {
    let (scenario, arch) = (scenario.to_string(), arch.to_string());
    samples.iter().filter(move |s| {
        s.scenario == scenario
            && s.architecture == arch
            && s.size == size
            && s.shape == super::table::DEFAULT_SHAPE
    })
}

/// Pairs by round: `(num(a), den(b))` for every round in which both configurations have
/// a sample with a value.
pub fn paired(
    a: &[&Sample],
    b: &[&Sample],
    num: fn(&Sample) -> Option<f64>,
    den: fn(&Sample) -> Option<f64>,
) -> Vec<(f64, f64)> {
    a.iter()
        .filter_map(|x| {
            let y = b.iter().find(|y| y.round == x.round)?;
            Some((num(x)?, den(y)?))
        })
        .collect()
}

/// Writes `samples` as CSV (header included).
pub fn write_csv(path: &Path, samples: &[Sample]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    }
    let err = |e: csv::Error| format!("cannot write `{}`: {e}", path.display());
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    if samples.is_empty() {
        w.write_record(COLUMNS).map_err(err)?;
    }
    for s in samples {
        w.serialize(s).map_err(err)?;
    }
    w.flush()
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// Reads a samples CSV [`write_csv`] wrote. Columns added since (absent in an older
/// file) read as `None`.
pub fn read_csv(path: &Path) -> Result<Vec<Sample>, String> {
    let err = |e: csv::Error| format!("cannot read `{}`: {e}", path.display());
    let mut r = csv::Reader::from_path(path).map_err(err)?;
    r.deserialize().map(|s| s.map_err(err)).collect()
}

/// The columns of a samples CSV, in order.
pub const COLUMNS: &[&str] = &[
    "experiment",
    "scenario",
    "architecture",
    "size",
    "round",
    "seq",
    "wall_ms",
    "first_stderr_ms",
    "cpu_user_ms",
    "cpu_sys_ms",
    "peak_rss_kb",
    "minor_faults",
    "compile_ms",
    "hash_ms",
    "encode_ms",
    "executed",
    "green",
    "loaded",
    "promoted",
    "graph_nodes",
    "codegen_executed",
    "config_instructions",
    "exit",
    "shape",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::process::ProcRun;

    fn build(wall: f64, executed: u64) -> BuildRun {
        let stats = BuildStats::parse(&format!(
            r#"{{"arch":"query","total_ms":{wall},"totals":{{"executed":{executed},"green":1,"loaded":0}},
            "queries":{{"codegen":{{"executed":2,"promoted":3}}}},"engine":{{"nodes":9,"hash_ms":0.5,"encode_ms":0.25}}}}"#
        ))
        .unwrap();
        BuildRun {
            proc: ProcRun {
                wall_ms: wall,
                cpu_user_ms: 1.0,
                cpu_sys_ms: 0.5,
                ..ProcRun::default()
            },
            stats: Some(stats),
            instructions: None,
        }
    }

    #[test]
    fn samples_carry_counts_and_flag_differences() {
        let (s, warn) = of_runs("no-change", "query", 300, &[build(3.0, 5), build(4.0, 5)]);
        assert!(warn.is_none());
        assert_eq!(s.len(), 2);
        assert_eq!((s[1].round, s[1].wall_ms, s[1].cpu_ms()), (1, 4.0, 1.5));
        assert_eq!(s[0].counts(), [Some(5), Some(1), Some(0), Some(3), Some(2)]);
        assert_eq!((s[0].graph_nodes, s[0].hash_ms), (Some(9), Some(0.5)));
        assert_eq!(s[0].encode_ms, Some(0.25));
        let (_, warn) = of_runs("no-change", "query", 300, &[build(3.0, 5), build(4.0, 6)]);
        assert!(warn.unwrap().contains("differ"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        write_csv(&path, &s).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next().unwrap(), COLUMNS.join(","));
        assert_eq!(text.lines().count(), 3);
        assert_eq!(read_csv(&path).unwrap(), s);
        // A file from before a column existed reads it as absent.
        let old = dir.path().join("old.csv");
        let cut = |line: &str| {
            let cells: Vec<&str> = line.split(',').collect();
            let at = COLUMNS.iter().position(|c| *c == "minor_faults").unwrap();
            [&cells[..at], &cells[at + 1..]].concat().join(",")
        };
        let old_text: Vec<String> = text.lines().map(cut).collect();
        std::fs::write(&old, old_text.join("\n")).unwrap();
        let read = read_csv(&old).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!((read[1].minor_faults, read[1].wall_ms), (None, 4.0));
    }
}
