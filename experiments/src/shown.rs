//! What one `rill` process showed, as the cross-architecture tests and `rill-fuzz`
//! compare it: exit code, stdout, stderr without cache warnings, and the `image_hash` of
//! its `--stats-json`.

use std::path::Path;
use std::process::Output;

/// The prefix of the warnings `rill` prints about a cache it could not use; they say
/// nothing about the program, so comparisons leave them out.
pub const CACHE_WARNING: &str = "warning: query cache";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub code: Option<i32>,
    pub stdout: String,
    /// stderr without cache warnings.
    pub diagnostics: String,
    pub image_hash: Option<String>,
}

impl Shown {
    /// What a finished `rill` process showed; `stats` is its parsed `--stats-json`
    /// ([`read_stats`]). Also returns the cache warnings taken out of the diagnostics.
    pub fn from_output(out: &Output, stats: &serde_json::Value) -> (Shown, Vec<String>) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let (warnings, rest): (Vec<&str>, Vec<&str>) =
            stderr.lines().partition(|l| l.starts_with(CACHE_WARNING));
        let shown = Shown {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            diagnostics: rest.iter().map(|l| format!("{l}\n")).collect(),
            image_hash: stats
                .get("image_hash")
                .and_then(|h| h.as_str())
                .map(str::to_string),
        };
        (shown, warnings.into_iter().map(str::to_string).collect())
    }
}

/// A `--stats-json` file, parsed; `Null` when it is missing or not JSON (`rill` failed
/// before writing it).
pub fn read_stats(path: &Path) -> serde_json::Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null)
}
