//! Driving the `rill` binary: one process per build, `--stats-json` parsed into
//! [`BuildStats`], and an architecture that this build of `rill` does not offer reported
//! as unavailable (exit code 2 with a message) rather than as a number.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::{self, ProcRun};

/// Per-kind query statistics from the stats JSON.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryKindStats {
    pub executed: u64,
    pub green: u64,
    pub loaded: u64,
    pub hashed_bytes: u64,
    pub provider_ms: f64,
    /// Time hashing (without the encoding of `encode_ms`).
    pub hash_ms: f64,
    /// Time encoding values, when executed, for the cache (the bytes are fingerprinted
    /// and saved as they are); zero in the statistics of a compiler that did not report it.
    pub encode_ms: f64,
    /// Time spent loading this kind's values from the cache (lazily).
    pub load_ms: f64,
}

/// The stats JSON of DESIGN.md's command-line contract.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildStats {
    pub arch: String,
    pub total_ms: f64,
    pub phases_ms: Vec<(String, f64)>,
    pub image_hash: Option<String>,
    pub executed: u64,
    pub green: u64,
    pub loaded: u64,
    pub queries: BTreeMap<String, QueryKindStats>,
    /// The whole object, for fields this runner does not name (options echoed, cache sizes).
    pub raw: serde_json::Value,
}

impl BuildStats {
    /// Parses the stats JSON; unknown fields are kept in `raw`, missing ones are zero.
    pub fn parse(text: &str) -> Result<BuildStats, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("bad stats JSON: {e}"))?;
        let obj = v.as_object().ok_or("stats JSON is not an object")?;
        let f = |v: Option<&serde_json::Value>| v.and_then(|x| x.as_f64()).unwrap_or(0.0);
        let u = |v: Option<&serde_json::Value>| v.and_then(|x| x.as_u64()).unwrap_or(0);
        let phases_ms = obj
            .get("phases_ms")
            .and_then(|p| p.as_object())
            .map(|p| {
                p.iter()
                    .map(|(k, v)| (k.clone(), v.as_f64().unwrap_or(0.0)))
                    .collect()
            })
            .unwrap_or_default();
        let totals = obj.get("totals");
        let queries = obj
            .get("queries")
            .and_then(|q| q.as_object())
            .map(|q| {
                q.iter()
                    .map(|(k, s)| {
                        (
                            k.clone(),
                            QueryKindStats {
                                executed: u(s.get("executed")),
                                green: u(s.get("green")),
                                loaded: u(s.get("loaded")),
                                hashed_bytes: u(s.get("hashed_bytes")),
                                provider_ms: f(s.get("provider_ms")),
                                hash_ms: f(s.get("hash_ms")),
                                encode_ms: f(s.get("encode_ms")),
                                load_ms: f(s.get("load_ms")),
                            },
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(BuildStats {
            arch: obj
                .get("arch")
                .and_then(|a| a.as_str())
                .unwrap_or("")
                .to_string(),
            total_ms: f(obj.get("total_ms")),
            phases_ms,
            image_hash: obj
                .get("image_hash")
                .and_then(|h| h.as_str())
                .map(str::to_string),
            executed: u(totals.and_then(|t| t.get("executed"))),
            green: u(totals.and_then(|t| t.get("green"))),
            loaded: u(totals.and_then(|t| t.get("loaded"))),
            queries,
            raw: v,
        })
    }

    /// Whether these are the query architecture's statistics (it reports the engine).
    pub fn is_query(&self) -> bool {
        self.raw.get("engine").is_some() || !self.queries.is_empty() || self.executed > 0
    }

    /// Values carried into the new cache without being decoded, over all kinds.
    pub fn promoted(&self) -> u64 {
        self.raw
            .get("queries")
            .and_then(|q| q.as_object())
            .map_or(0, |q| {
                q.values().filter_map(|k| k.get("promoted")?.as_u64()).sum()
            })
    }

    /// Total hashing time over all query kinds.
    pub fn hash_ms(&self) -> f64 {
        self.engine_total_ms("hash_ms", |q| q.hash_ms)
    }

    /// Total time encoding values for the cache when they were executed (the encoding
    /// the fingerprints of persisted values are of, not counted in [`BuildStats::hash_ms`]).
    pub fn encode_ms(&self) -> f64 {
        self.engine_total_ms("encode_ms", |q| q.encode_ms)
    }

    /// The engine's own total `key` when it reports one, else the sum over kinds of
    /// `per_kind`.
    fn engine_total_ms(&self, key: &str, per_kind: fn(&QueryKindStats) -> f64) -> f64 {
        self.raw
            .get("engine")
            .and_then(|e| e.get(key))
            .and_then(|v| v.as_f64())
            .unwrap_or_else(|| self.queries.values().map(per_kind).sum())
    }

    /// A counter of the engine's statistics (`engine.cache_bytes_written`, ...).
    pub fn engine_u64(&self, key: &str) -> Option<u64> {
        self.raw.get("engine")?.get(key)?.as_u64()
    }

    /// Cache load time: the engine's graph load plus the values it loaded lazily; the
    /// `load` phases when the engine reports neither.
    pub fn load_ms(&self) -> Option<f64> {
        let graph = self
            .raw
            .get("engine")
            .and_then(|e| e.get("cache_load_ms"))
            .and_then(|v| v.as_f64());
        match graph {
            Some(g) => Some(g + self.queries.values().map(|q| q.load_ms).sum::<f64>()),
            None => self.phase_ms("load"),
        }
    }

    pub fn hashed_bytes(&self) -> u64 {
        self.queries.values().map(|q| q.hashed_bytes).sum()
    }

    /// `codegen` queries executed (machine code rebuilt).
    pub fn codegen_executed(&self) -> Option<u64> {
        self.executed_of("codegen")
    }

    /// Queries of `kind` executed: 0 for a query build whose statistics do not list the
    /// kind (they list only the kinds the build used), `None` for a pipeline build.
    pub fn executed_of(&self, kind: &str) -> Option<u64> {
        match self.queries.get(kind) {
            Some(q) => Some(q.executed),
            None => self.is_query().then_some(0),
        }
    }

    /// The sum of the phases whose name contains `needle`.
    pub fn phase_ms(&self, needle: &str) -> Option<f64> {
        let v: Vec<f64> = self
            .phases_ms
            .iter()
            .filter(|(k, _)| k.contains(needle))
            .map(|(_, v)| *v)
            .collect();
        (!v.is_empty()).then(|| v.iter().sum())
    }
}

/// `rill check` (through type checking), `rill build` (to a linked image) or `rill run` (to a
/// linked image, then run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Check,
    /// Compile and link without running the program (`rill build`): what E8 compares with
    /// rustc's builds, which do not run theirs.
    Build,
    Run,
}

/// One build request.
#[derive(Clone, Debug)]
pub struct Build<'a> {
    pub mode: Mode,
    pub arch: &'a str,
    pub root: &'a Path,
    pub cache_dir: Option<&'a Path>,
    /// Extra options of the query architecture (`--hasher xxh3`, `--cutoff off`, ...).
    pub args: &'a [&'a str],
    pub timeout: Option<Duration>,
}

/// The result of one build: the process, and its stats when it wrote them.
#[derive(Clone, Debug)]
pub struct BuildRun {
    pub proc: ProcRun,
    pub stats: Option<BuildStats>,
    /// Instructions of one extra build of the same configuration under callgrind (the
    /// same on every repetition; `--instructions` only).
    pub instructions: Option<u64>,
}

/// Why a build yielded no measurement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoMeasurement {
    /// This `rill` does not offer the architecture or option (exit code 2).
    Unavailable(String),
    /// The build failed otherwise (crash, unexpected exit code, timeout).
    Failed(String),
}

impl NoMeasurement {
    pub fn status(&self) -> String {
        match self {
            NoMeasurement::Unavailable(m) => format!("unavailable: {m}"),
            NoMeasurement::Failed(m) => format!("failed: {m}"),
        }
    }
}

/// The `rill` binary.
#[derive(Clone, Debug)]
pub struct Rill {
    pub exe: PathBuf,
    /// Where stats files go (one per build, overwritten).
    pub scratch: PathBuf,
}

impl Rill {
    /// Runs one build. `expect_exit` lists the exit codes that count as a measurement
    /// (0 normally; 1 for a build whose program has an error on purpose).
    pub fn build(&self, b: &Build<'_>, expect_exit: &[i32]) -> Result<BuildRun, NoMeasurement> {
        std::fs::create_dir_all(&self.scratch)
            .map_err(|e| NoMeasurement::Failed(format!("scratch dir: {e}")))?;
        let stats_path = self.scratch.join("stats.json");
        let _ = std::fs::remove_file(&stats_path);
        let mut cmd = Command::new(&self.exe);
        cmd.arg(match b.mode {
            Mode::Check => "check",
            Mode::Build => "build",
            Mode::Run => "run",
        })
        .arg(b.root)
        .arg("--arch")
        .arg(b.arch)
        .arg("--stats-json")
        .arg(&stats_path);
        if let Some(dir) = b.cache_dir {
            cmd.arg("--cache-dir").arg(dir);
        }
        cmd.args(b.args);
        let proc = process::run(&mut cmd, b.timeout).map_err(NoMeasurement::Failed)?;
        if proc.timed_out {
            return Err(NoMeasurement::Failed("timeout".to_string()));
        }
        match proc.exit {
            Some(2) => return Err(NoMeasurement::Unavailable(proc.stderr_line())),
            Some(code) if expect_exit.contains(&code) => {}
            Some(code) => {
                return Err(NoMeasurement::Failed(format!(
                    "exit code {code}: {}",
                    proc.stderr_line()
                )))
            }
            None => {
                return Err(NoMeasurement::Failed(format!(
                    "killed by a signal: {}",
                    proc.stderr_line()
                )))
            }
        }
        let stats = match std::fs::read_to_string(&stats_path) {
            Ok(text) => Some(BuildStats::parse(&text).map_err(NoMeasurement::Failed)?),
            Err(_) => None,
        };
        Ok(BuildRun {
            proc,
            stats,
            instructions: None,
        })
    }
}

/// Locates `rill` next to the running executable (cargo builds both into one directory).
/// Under `cargo run` (which builds only the `experiments` binary), first brings `rill` and
/// `rill-time` (which starts every timed process) up to date with the same cargo, profile
/// and target directory, so a fresh clone works and an edited compiler is never measured
/// through a stale binary.
pub fn locate_rill() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current executable: {e}"))?;
    let dir = exe.parent().ok_or("the executable has no directory")?;
    if let Some(cargo) = std::env::var_os("CARGO") {
        build_rill(&cargo, dir)?;
    }
    locate_bin("rill")
}

/// The binary `name` of this package next to the running executable; test binaries live
/// in `deps/`, the binaries one level up.
pub fn locate_bin(name: &str) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current executable: {e}"))?;
    let dir = exe.parent().ok_or("the executable has no directory")?;
    for d in [dir, dir.parent().unwrap_or(dir)] {
        let candidate = d.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(format!(
        "no `{name}` binary next to `{}`: build it with `cargo build --release -p experiments`",
        exe.display()
    ))
}

/// `cargo build -p experiments --bin rill --bin rill-time` into the directory `bin_dir`
/// (`<target>/<profile>`) of the running executable.
fn build_rill(cargo: &std::ffi::OsStr, bin_dir: &std::path::Path) -> Result<(), String> {
    let (Some(profile), Some(target)) = (bin_dir.file_name(), bin_dir.parent()) else {
        return Ok(());
    };
    // Test binaries live in `<target>/<profile>/deps`: nothing to build from there.
    if profile == "deps" {
        return Ok(());
    }
    let status = std::process::Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "experiments",
            "--bin",
            "rill",
            "--bin",
            "rill-time",
            "--profile",
        ])
        .arg(if profile == "debug" {
            "dev".as_ref()
        } else {
            profile
        })
        .arg("--target-dir")
        .arg(target)
        .status()
        .map_err(|e| format!("cannot run cargo to build rill: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("building rill failed ({status})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_contract() {
        let s = BuildStats::parse(
            r#"{"arch":"query","total_ms":12.5,"phases_ms":{"parse":1.0,"cache_load":2.0},
            "image_hash":"ab","totals":{"executed":10,"green":5,"loaded":3},
            "queries":{"codegen":{"executed":2,"green":1,"loaded":0,"hashed_bytes":100,
            "provider_ms":1.5,"hash_ms":0.25,"encode_ms":0.125},"typeck":{"executed":1,"hash_ms":0.5,"hashed_bytes":7}}}"#,
        )
        .unwrap();
        assert_eq!(s.arch, "query");
        assert_eq!(s.total_ms, 12.5);
        assert_eq!(s.image_hash.as_deref(), Some("ab"));
        assert_eq!((s.executed, s.green, s.loaded), (10, 5, 3));
        assert_eq!(s.codegen_executed(), Some(2));
        assert_eq!(
            s.executed_of("optimize"),
            Some(0),
            "a kind the build did not use"
        );
        let pipeline = BuildStats::parse(r#"{"arch":"pipeline","total_ms":3.0}"#).unwrap();
        assert_eq!(pipeline.codegen_executed(), None);
        assert_eq!(s.hash_ms(), 0.75);
        assert_eq!(
            s.encode_ms(),
            0.125,
            "summed over kinds, a kind without it zero"
        );
        assert_eq!(s.queries["codegen"].encode_ms, 0.125);
        let engine = BuildStats::parse(
            r#"{"arch":"query","total_ms":1.0,"engine":{"hash_ms":0.5,"encode_ms":0.25}}"#,
        )
        .unwrap();
        assert_eq!((engine.hash_ms(), engine.encode_ms()), (0.5, 0.25));
        assert_eq!(s.hashed_bytes(), 107);
        assert_eq!(s.phase_ms("load"), Some(2.0));
        assert_eq!(s.phase_ms("nothing"), None);
        assert!(BuildStats::parse("[1]").is_err());
        assert!(BuildStats::parse("{").is_err());
    }
}
