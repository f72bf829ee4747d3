//! `experiments stability --runs K [experiments...]`: the headline experiments run K times,
//! each into a result directory of its own, and the spread of every headline number over
//! the runs: `results/stability.csv` (one row per headline and run) and `stability.*`
//! values in `results/values.json`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::stats::Interval;
use super::summary;

/// The experiments that set headline keys: the default of the subcommand.
pub const HEADLINE_EXPERIMENTS: &[&str] = &["e1", "e2", "e3", "e6", "e8", "e9"];

/// One headline in one run, and the headline's spread over all runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StabilityRow {
    pub key: String,
    pub run: usize,
    pub value: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub n: Option<usize>,
    /// Whether this run's value lies in the interval of every other run.
    pub within_others: Option<bool>,
    /// Over the runs with a value: the smallest, the largest, and largest / smallest - 1.
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub spread: Option<f64>,
}

/// The rows of `runs` (each run's headlines by key), for every key of `summary::KEYS`.
pub fn analyze(runs: &[BTreeMap<String, Option<Interval>>]) -> Vec<StabilityRow> {
    let mut out = Vec::new();
    for key in summary::KEYS {
        let ivs: Vec<Option<Interval>> = runs
            .iter()
            .map(|r| r.get(*key).copied().flatten())
            .collect();
        let values: Vec<f64> = ivs.iter().flatten().map(|i| i.value).collect();
        let min = values.iter().copied().reduce(f64::min);
        let max = values.iter().copied().reduce(f64::max);
        let spread = match (min, max) {
            (Some(a), Some(b)) if a > 0.0 => Some(b / a - 1.0),
            _ => None,
        };
        for (run, iv) in ivs.iter().enumerate() {
            let within_others = iv.map(|me| {
                ivs.iter()
                    .enumerate()
                    .filter(|(j, _)| *j != run)
                    .filter_map(|(_, other)| other.as_ref())
                    .all(|other| other.contains(me.value))
            });
            out.push(StabilityRow {
                key: key.to_string(),
                run: run + 1,
                value: iv.map(|i| i.value),
                low: iv.map(|i| i.low),
                high: iv.map(|i| i.high),
                n: iv.map(|i| i.n),
                within_others,
                min,
                max,
                spread,
            });
        }
    }
    out
}

/// The headlines of the `summary.json` in `results`.
pub fn read_summary(results: &Path) -> Result<BTreeMap<String, Option<Interval>>, String> {
    let path = results.join("summary.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("bad `{}`: {e}", path.display()))?;
    Ok(summary::KEYS
        .iter()
        .map(|k| (k.to_string(), v.get(*k).and_then(summary::from_json)))
        .collect())
}

/// Writes `rows` to `results/stability.csv` and their spread into `results/values.json`
/// (`stability.runs`, `stability.commit` (the code the runs measured, when known), and for every headline measured in some run `stability.KEY_min`,
/// `_max`, `_spread` and `_within_others`: the share of the runs whose value lies in every
/// other run's interval).
pub fn write(
    results: &Path,
    rows: &[StabilityRow],
    runs: usize,
    commit: Option<&str>,
) -> Result<(), String> {
    std::fs::create_dir_all(results)
        .map_err(|e| format!("cannot create `{}`: {e}", results.display()))?;
    let path = results.join("stability.csv");
    let err = |e: csv::Error| format!("cannot write `{}`: {e}", path.display());
    let mut w = csv::Writer::from_path(&path).map_err(err)?;
    for r in rows {
        w.serialize(r).map_err(err)?;
    }
    w.flush()
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    let values_path = results.join("values.json");
    let mut values: BTreeMap<String, serde_json::Value> = std::fs::read_to_string(&values_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    values.retain(|k, _| !k.starts_with("stability."));
    values.insert("stability.runs".into(), runs.into());
    values.insert(
        "stability.commit".into(),
        commit.map_or(serde_json::Value::Null, Into::into),
    );
    let num = |x: Option<f64>| x.map_or(serde_json::Value::Null, Into::into);
    for key in summary::KEYS {
        let mine: Vec<&StabilityRow> = rows.iter().filter(|r| r.key == *key).collect();
        let Some(first) = mine.first() else { continue };
        values.insert(format!("stability.{key}_min"), num(first.min));
        values.insert(format!("stability.{key}_max"), num(first.max));
        values.insert(format!("stability.{key}_spread"), num(first.spread));
        let judged: Vec<bool> = mine.iter().filter_map(|r| r.within_others).collect();
        let share = (!judged.is_empty())
            .then(|| judged.iter().filter(|b| **b).count() as f64 / judged.len() as f64);
        values.insert(format!("stability.{key}_within_others"), num(share));
    }
    std::fs::write(
        &values_path,
        serde_json::to_vec_pretty(&values).unwrap_or_default(),
    )
    .map_err(|e| format!("cannot write `{}`: {e}", values_path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(value: f64, low: f64, high: f64) -> Option<Interval> {
        Some(Interval {
            value,
            low,
            high,
            n: 10,
        })
    }

    #[test]
    fn spread_and_overlap_of_runs() {
        let key = "e1_query_over_pipeline".to_string();
        let runs: Vec<BTreeMap<String, Option<Interval>>> = vec![
            [(key.clone(), iv(1.54, 1.40, 1.70))].into(),
            [(key.clone(), iv(1.14, 1.05, 1.60))].into(),
            [(key.clone(), None)].into(),
        ];
        let rows = analyze(&runs);
        let mine: Vec<&StabilityRow> = rows.iter().filter(|r| r.key == key).collect();
        assert_eq!(mine.len(), 3);
        assert_eq!(mine[0].min, Some(1.14));
        assert_eq!(mine[0].max, Some(1.54));
        assert!((mine[0].spread.unwrap() - (1.54 / 1.14 - 1.0)).abs() < 1e-12);
        // 1.54 lies in [1.05, 1.60]; 1.14 does not lie in [1.40, 1.70].
        assert_eq!(mine[0].within_others, Some(true));
        assert_eq!(mine[1].within_others, Some(false));
        assert_eq!(mine[2].within_others, None);
        // Every headline key has rows, measured or not.
        assert_eq!(rows.len(), summary::KEYS.len() * 3);
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &rows, 3, Some("abc123")).unwrap();
        let text = std::fs::read_to_string(dir.path().join("stability.csv")).unwrap();
        assert!(text.starts_with("key,run,value,low,high,n,within_others,min,max,spread\n"));
        let values: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("values.json")).unwrap())
                .unwrap();
        assert_eq!(values["stability.runs"], 3);
        assert_eq!(values["stability.commit"], "abc123");
        assert_eq!(
            values["stability.e1_query_over_pipeline_within_others"],
            0.5
        );
        assert!(values["stability.e2_hash_share_spread"].is_null());
    }
}
