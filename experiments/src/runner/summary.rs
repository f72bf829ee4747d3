//! `results/summary.json`: the headline numbers, one key each, as
//! `{ "value": v, "low": l, "high": h, "n": n }`: the value, its bootstrap 95 % interval
//! and the number of rounds it rests on (`stats::bootstrap`). A key whose experiment
//! could not measure it is `null`, and `null_reasons` says why; a run of a single
//! experiment updates only that experiment's keys.

use std::path::Path;

use super::stats::Interval;

/// The headline keys, in the order the issue lists them.
pub const KEYS: &[&str] = &[
    "e1_query_over_pipeline",
    "e2_hash_share",
    "e3_leaf_edit_over_pipeline",
    "e6_noop_over_pipeline",
    "e8_rustc_patched_over_full",
    "e8_rill_patched_over_full",
    "e9_jit_over_rustc_o0",
    "pipeline_lines_per_s",
];

/// A headline as `summary.json` holds it.
pub fn to_json(iv: &Interval) -> serde_json::Value {
    serde_json::json!({ "value": iv.value, "low": iv.low, "high": iv.high, "n": iv.n })
}

/// A headline of `summary.json` read back (`null`, or a file of the old shape with a bare
/// number, gives `None`).
pub fn from_json(v: &serde_json::Value) -> Option<Interval> {
    let f = |k: &str| v.get(k)?.as_f64();
    Some(Interval {
        value: f("value")?,
        low: f("low")?,
        high: f("high")?,
        n: v.get("n")?.as_u64()? as usize,
    })
}

/// Merges `updates` into the summary at `path` (every key present; unknown keys of the
/// file, and values of an older shape, are dropped) and writes it back.
pub fn update(
    path: &Path,
    updates: &[(String, Result<Interval, String>)],
) -> Result<serde_json::Value, String> {
    let old: serde_json::Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    let mut out = serde_json::Map::new();
    let mut reasons = serde_json::Map::new();
    for key in KEYS {
        let mut value = old
            .get(*key)
            .and_then(from_json)
            .map_or(serde_json::Value::Null, |iv| to_json(&iv));
        let mut reason = old
            .get("null_reasons")
            .and_then(|r| r.get(*key))
            .cloned()
            .unwrap_or_else(|| serde_json::Value::from("not measured yet"));
        if let Some((_, r)) = updates.iter().rev().find(|(k, _)| k == key) {
            match r {
                Ok(iv) => value = to_json(iv),
                Err(why) => {
                    value = serde_json::Value::Null;
                    reason = serde_json::Value::from(why.clone());
                }
            }
        }
        if value.is_null() {
            reasons.insert(key.to_string(), reason);
        }
        out.insert(key.to_string(), value);
    }
    out.insert(
        "null_reasons".to_string(),
        serde_json::Value::Object(reasons),
    );
    let v = serde_json::Value::Object(out);
    std::fs::write(path, serde_json::to_vec_pretty(&v).unwrap_or_default())
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    Ok(v)
}
