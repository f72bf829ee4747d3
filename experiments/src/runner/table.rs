//! One row per measurement, and the CSV files of `results/` (`eNN-<name>.csv`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stats::Spread;

/// One measurement: a scenario on one architecture at one program size, with the spread
/// of its repetitions and the counters the build reported. `status` is `ok`, or says why
/// there is no number (`unavailable: ...`, `failed: ...`, `timeout`); a row that is not
/// `ok` has empty numeric columns, never a made-up value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub scenario: String,
    pub architecture: String,
    /// Program size in lines (0 where no size applies).
    pub size: usize,
    pub repetitions: usize,
    pub median: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The unit of median/min/max: `ms`, `bytes`, `percent`, `ratio`, `lines/s`.
    pub unit: String,
    /// Queries executed (query architecture), median over repetitions.
    pub executed: Option<u64>,
    pub green: Option<u64>,
    pub loaded: Option<u64>,
    /// `codegen` queries executed: how much machine code was rebuilt.
    pub codegen_executed: Option<u64>,
    pub hashed_bytes: Option<u64>,
    pub hash_ms: Option<f64>,
    /// Compile time reported by the compiler itself (stats JSON `total_ms`), median.
    pub compile_ms: Option<f64>,
    pub peak_rss_kb: Option<u64>,
    pub status: String,
    pub note: String,
    /// CPU time of the child (user + system), median over repetitions, ms.
    #[serde(default)]
    pub cpu_ms: Option<f64>,
    /// The bootstrap 95 % interval of `median` where the row summarizes a ratio (or
    /// another statistic of paired rounds): see `stats::bootstrap`.
    #[serde(default)]
    pub low: Option<f64>,
    #[serde(default)]
    pub high: Option<f64>,
    /// Instructions of one build of this configuration under callgrind (`--instructions`).
    #[serde(default)]
    pub instructions: Option<u64>,
    /// The shape of the generated program (`workload::Shape`): `default`, `small-fns`,
    /// `big-fns`. CSVs written before the column existed read as `default`.
    #[serde(default = "default_shape")]
    pub shape: String,
    /// The actual line count of the generated program (`size` is the generator's target).
    #[serde(default)]
    pub lines: Option<usize>,
}

fn default_shape() -> String {
    DEFAULT_SHAPE.to_string()
}

/// The `shape` of the rows of the default shape.
pub const DEFAULT_SHAPE: &str = "default";

impl Row {
    /// A row for `scenario` on `architecture` with no numbers yet.
    pub fn new(scenario: impl Into<String>, architecture: impl Into<String>, size: usize) -> Row {
        Row {
            scenario: scenario.into(),
            architecture: architecture.into(),
            size,
            unit: "ms".to_string(),
            status: "ok".to_string(),
            shape: default_shape(),
            ..Row::default()
        }
    }

    /// Sets the spread and the repetition count.
    pub fn with_spread(mut self, s: Option<Spread>, unit: &str) -> Row {
        self.unit = unit.to_string();
        match s {
            Some(s) => {
                self.median = Some(s.median);
                self.min = Some(s.min);
                self.max = Some(s.max);
                self.repetitions = s.n;
            }
            None => {
                self.median = None;
                self.min = None;
                self.max = None;
                if self.status == "ok" {
                    self.status = "failed: no sample".to_string();
                }
            }
        }
        self
    }

    /// Sets the value and the bootstrap interval of a statistic (a ratio, unit `ratio`).
    pub fn with_interval(mut self, iv: Option<super::stats::Interval>, unit: &str) -> Row {
        self.unit = unit.to_string();
        match iv {
            Some(iv) => {
                self.median = Some(iv.value);
                self.low = Some(iv.low);
                self.high = Some(iv.high);
                self.repetitions = iv.n;
            }
            None => {
                self.median = None;
                if self.status == "ok" {
                    self.status = "failed: no paired sample".to_string();
                }
            }
        }
        self
    }

    /// Marks the row as having no number, with the reason.
    pub fn without_number(mut self, status: impl Into<String>) -> Row {
        self.status = status.into();
        self.median = None;
        self.min = None;
        self.max = None;
        self.low = None;
        self.high = None;
        self
    }

    pub fn is_ok(&self) -> bool {
        self.status == "ok" && self.median.is_some()
    }

    /// Is the row of the default shape (or of no shape)?
    pub fn is_default_shape(&self) -> bool {
        self.shape == DEFAULT_SHAPE || self.shape.is_empty()
    }
}

/// Writes `rows` as CSV with a header line.
pub fn write_csv(path: &Path, rows: &[Row]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    }
    let mut w = csv::Writer::from_path(path)
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    if rows.is_empty() {
        // The header alone, so a reader still sees the columns.
        w.write_record(COLUMNS)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    for row in rows {
        w.serialize(row)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    w.flush()
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// Reads a CSV written by [`write_csv`].
pub fn read_csv(path: &Path) -> Result<Vec<Row>, String> {
    let mut r = csv::Reader::from_path(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    r.deserialize()
        .map(|row| row.map_err(|e| format!("bad row in `{}`: {e}", path.display())))
        .collect()
}

/// The CSV columns, in order.
pub const COLUMNS: &[&str] = &[
    "scenario",
    "architecture",
    "size",
    "repetitions",
    "median",
    "min",
    "max",
    "unit",
    "executed",
    "green",
    "loaded",
    "codegen_executed",
    "hashed_bytes",
    "hash_ms",
    "compile_ms",
    "peak_rss_kb",
    "status",
    "note",
    "cpu_ms",
    "low",
    "high",
    "instructions",
    "shape",
    "lines",
];

/// Finds the first row of the default shape matching scenario, architecture and size.
pub fn find<'a>(rows: &'a [Row], scenario: &str, arch: &str, size: usize) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.scenario == scenario && r.architecture == arch && r.size == size && r.is_default_shape()
    })
}

/// The median of the matching row, if it is `ok`.
pub fn median_of(rows: &[Row], scenario: &str, arch: &str, size: usize) -> Option<f64> {
    find(rows, scenario, arch, size)
        .filter(|r| r.is_ok())
        .and_then(|r| r.median)
}
