//! The paper: `paper/template.md` with its placeholders filled from `results/`, written
//! to `paper/paper.md`. No number is typed by hand: every one comes from a placeholder.
//!
//! Placeholders: `{{key}}` (a value of `results/values.json`: a number, formatted, or a
//! text; `null` renders as `n/a`), `{{pct:key}}` (a fraction as a percentage),
//! `{{table:eNN}}` (the rows of `results/eNN-*.csv` as a Markdown table). A key that is
//! absent is an error: the template and the runner disagree. Verdicts on the goals of the
//! issues (`goal.KEY`, `verdict.KEY`, `goals.table`) are derived from the headline
//! numbers, so the prose reads right whether a goal is met or not.

use std::collections::BTreeMap;
use std::path::Path;

use super::table::{self, Row};

/// Formats a number for prose: integers with thousands separators, otherwise three
/// significant digits (at least).
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    let a = v.abs();
    if a >= 1000.0 || (v.fract() == 0.0 && a >= 1.0) {
        let n = v.round() as i64;
        let digits = n.unsigned_abs().to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if n < 0 {
            out.insert(0, '-');
        }
        out
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".to_string()
    } else {
        let digits = (2 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.digits$}")
    }
}

fn render_value(v: &serde_json::Value, pct: bool) -> String {
    match v {
        serde_json::Value::Null => "n/a".to_string(),
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if pct {
                format!("{:.1} %", x * 100.0)
            } else {
                format_number(x)
            }
        }
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A Markdown table of rows.
pub fn markdown_table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| scenario | architecture | size | reps | median | min | max | unit | executed | green | codegen | status |\n|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|\n",
    );
    let num = |v: Option<f64>| v.map(format_number).unwrap_or_else(|| "–".to_string());
    let int = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_else(|| "–".to_string());
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.scenario.replace('|', "/"),
            r.architecture,
            if r.size == 0 {
                "–".to_string()
            } else {
                format_number(r.size as f64)
            },
            r.repetitions,
            num(r.median),
            num(r.min),
            num(r.max),
            r.unit,
            int(r.executed),
            int(r.green),
            int(r.codegen_executed),
            r.status
                .replace('|', "/")
                .chars()
                .take(90)
                .collect::<String>(),
        ));
    }
    s
}

/// Fills `template`. `tables` maps `eNN` to its rows (absent: the experiment has not run).
pub fn fill(
    template: &str,
    values: &BTreeMap<String, serde_json::Value>,
    tables: &BTreeMap<String, Vec<Row>>,
) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() * 2);
    let mut missing = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err("unclosed `{{` in the template".to_string());
        };
        let key = after[..end].trim();
        if let Some(id) = key.strip_prefix("table:") {
            match tables.get(id) {
                Some(rows) => out.push_str(&markdown_table(rows)),
                None => missing.push(key.to_string()),
            }
        } else {
            let (pct, k) = match key.strip_prefix("pct:") {
                Some(k) => (true, k),
                None => (false, key),
            };
            match values.get(k) {
                Some(v) => out.push_str(&render_value(v, pct)),
                None => missing.push(key.to_string()),
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    if missing.is_empty() {
        Ok(out)
    } else {
        missing.sort();
        missing.dedup();
        Err(format!(
            "the template refers to values that results/ lacks: {}",
            missing.join(", ")
        ))
    }
}

/// A measured goal of the issues: a headline key of `summary.json` and its bound.
pub struct Goal {
    pub key: &'static str,
    /// `true`: the value must be at most `bound`; `false`: at least.
    pub at_most: bool,
    pub bound: f64,
    pub what: &'static str,
    /// Render value and bound as percentages.
    pub percent: bool,
}

/// The goals stated in the issues, in the order of the summary.
pub const GOALS: &[Goal] = &[
    Goal {
        key: "e1_query_over_pipeline",
        at_most: true,
        bound: 1.10,
        what: "query build from scratch / pipeline build",
        percent: false,
    },
    Goal {
        key: "e2_hash_share",
        at_most: true,
        bound: 0.05,
        what: "share of the query build spent hashing",
        percent: true,
    },
    Goal {
        key: "e6_noop_over_pipeline",
        at_most: true,
        bound: 0.02,
        what: "no-change rebuild / pipeline build",
        percent: true,
    },
    Goal {
        key: "e3_leaf_edit_over_pipeline",
        at_most: true,
        bound: 0.03,
        what: "rebuild after one leaf-body edit / pipeline build",
        percent: true,
    },
    Goal {
        key: "e9_jit_over_rustc_o0",
        at_most: true,
        bound: 1.0,
        what: "run time of the JIT's code / rustc -O0's",
        percent: false,
    },
    Goal {
        key: "pipeline_lines_per_s",
        at_most: false,
        bound: 1_000_000.0,
        what: "pipeline throughput, lines per second",
        percent: false,
    },
];

/// Values derived from the headline numbers: for every goal `goal.KEY` (`met`, `missed`,
/// `not measured`) and `verdict.KEY` (a phrase for prose), `goals.table` (a Markdown
/// table), `goals.met`, `goals.missed` (how many), `goals.missed_list` (their
/// descriptions, or `none`), and `derived.break_even_edits` (the leaf edits after which
/// the query architecture's first-build overhead is repaid).
pub fn derive(values: &mut BTreeMap<String, serde_json::Value>) {
    let num = |values: &BTreeMap<String, serde_json::Value>, k: &str| {
        values
            .get(k)
            .and_then(|v| v.as_f64())
            .filter(|x| x.is_finite())
    };
    let show = |g: &Goal, v: f64| {
        if g.percent {
            format!("{:.1} %", v * 100.0)
        } else {
            format_number(v)
        }
    };
    let mut table = String::from("| goal | bound | measured | verdict |\n|---|---:|---:|---|\n");
    let (mut met, mut missed) = (0, Vec::new());
    for g in GOALS {
        let v = num(values, g.key);
        let (status, verdict) = match v {
            Some(x) if (g.at_most && x <= g.bound) || (!g.at_most && x >= g.bound) => {
                met += 1;
                ("met", "meets the goal")
            }
            Some(_) => {
                missed.push(g.what);
                ("missed", "misses the goal")
            }
            None => ("not measured", "could not be checked against the goal"),
        };
        values.insert(format!("goal.{}", g.key), status.into());
        values.insert(format!("verdict.{}", g.key), verdict.into());
        table.push_str(&format!(
            "| {} (`{}`) | {} {} | {} | {} |\n",
            g.what,
            g.key,
            if g.at_most { "≤" } else { "≥" },
            show(g, g.bound),
            v.map_or("n/a".to_string(), |x| show(g, x)),
            status
        ));
    }
    values.insert("goals.table".into(), table.into());
    values.insert("goals.met".into(), met.into());
    values.insert("goals.missed".into(), missed.len().into());
    values.insert("goals.total".into(), GOALS.len().into());
    let list = match missed.len() {
        0 => "none".to_string(),
        1 => missed[0].to_string(),
        n => format!("{} and {}", missed[..n - 1].join(", "), missed[n - 1]),
    };
    values.insert("goals.missed_list".into(), list.into());
    let e1 = num(values, "e1_query_over_pipeline");
    let e3 = num(values, "e3_leaf_edit_over_pipeline");
    let be = match (e1, e3) {
        (Some(a), _) if a <= 1.0 => {
            "none (the first query build costs no more than a pipeline build)".to_string()
        }
        (Some(_), Some(b)) if b >= 1.0 => {
            "none ever (a leaf-edit rebuild costs at least a pipeline build)".to_string()
        }
        (Some(a), Some(b)) => format!("{:.2}", (a - 1.0) / (1.0 - b)),
        _ => "n/a".to_string(),
    };
    values.insert("derived.break_even_edits".into(), be.into());
}

/// Named values (`values.json`, `meta.*`, `summary.*` and derived ones).
pub type Values = BTreeMap<String, serde_json::Value>;
/// Each experiment's rows, by `eNN`.
pub type Tables = BTreeMap<String, Vec<Row>>;

/// Reads `results/` (values.json, meta.json, summary.json, the CSVs) into what [`fill`]
/// takes, with the values of [`derive`]. A headline of summary.json gives four values:
/// `KEY` (the value), `KEY_low`, `KEY_high` (its interval) and `KEY_n`.
pub fn load_results(results: &Path) -> Result<(Values, Tables), String> {
    let read = |name: &str| -> Result<serde_json::Value, String> {
        let p = results.join(name);
        let t = std::fs::read_to_string(&p)
            .map_err(|e| format!("cannot read `{}`: {e}", p.display()))?;
        serde_json::from_str(&t).map_err(|e| format!("bad JSON in `{}`: {e}", p.display()))
    };
    let mut values = BTreeMap::new();
    if let Ok(serde_json::Value::Object(m)) = read("values.json") {
        values.extend(m);
    }
    for key in super::summary::KEYS {
        values.insert(format!("why.{key}"), serde_json::Value::from("measured"));
    }
    if let Ok(serde_json::Value::Object(m)) = read("summary.json") {
        for (k, v) in m {
            if k != "null_reasons" {
                // `{value, low, high, n}` (or null) becomes `KEY`, `KEY_low`, `KEY_high`,
                // `KEY_n`.
                let iv = super::summary::from_json(&v);
                let num = |x: Option<f64>| x.map_or(serde_json::Value::Null, Into::into);
                values.insert(format!("{k}_low"), num(iv.map(|i| i.low)));
                values.insert(format!("{k}_high"), num(iv.map(|i| i.high)));
                values.insert(format!("{k}_n"), num(iv.map(|i| i.n as f64)));
                values.insert(k, num(iv.map(|i| i.value)));
            } else if let serde_json::Value::Object(r) = v {
                for (k, why) in r {
                    values.insert(format!("why.{k}"), why);
                }
            }
        }
    }
    if let Ok(serde_json::Value::Object(m)) = read("meta.json") {
        flatten("meta", &serde_json::Value::Object(m), &mut values);
    }
    derive(&mut values);
    let mut tables = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(results) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".csv") {
                let id = stem.split('-').next().unwrap_or("");
                if let Some(n) = id.strip_prefix('e').and_then(|n| n.parse::<u32>().ok()) {
                    tables.insert(format!("e{n}"), table::read_csv(&e.path())?);
                }
            }
        }
    }
    Ok((values, tables))
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, serde_json::Value>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                flatten(&format!("{prefix}.{k}"), v, out);
            }
        }
        serde_json::Value::Array(a) => {
            let text: Vec<String> = a.iter().map(|x| render_value(x, false)).collect();
            out.insert(prefix.to_string(), serde_json::Value::from(text.join(", ")));
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

/// Regenerates `paper/paper.md` from `paper/template.md` and `results/`.
pub fn regenerate(paper_dir: &Path, results: &Path) -> Result<usize, String> {
    let tpl_path = paper_dir.join("template.md");
    let template = std::fs::read_to_string(&tpl_path)
        .map_err(|e| format!("cannot read `{}`: {e}", tpl_path.display()))?;
    let (values, tables) = load_results(results)?;
    let text = fill(&template, &values, &tables)?;
    let out = paper_dir.join("paper.md");
    std::fs::write(&out, &text).map_err(|e| format!("cannot write `{}`: {e}", out.display()))?;
    Ok(text.split_whitespace().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_numbers() {
        let mut v = BTreeMap::new();
        v.insert("e1_query_over_pipeline".to_string(), 1.5.into());
        v.insert("e3_leaf_edit_over_pipeline".to_string(), 0.02.into());
        v.insert("e2_hash_share".to_string(), serde_json::Value::Null);
        v.insert("pipeline_lines_per_s".to_string(), 2_000_000.0.into());
        derive(&mut v);
        let s = |k: &str| v[k].as_str().unwrap().to_string();
        assert_eq!(s("goal.e1_query_over_pipeline"), "missed");
        assert_eq!(s("goal.e3_leaf_edit_over_pipeline"), "met");
        assert_eq!(s("goal.e2_hash_share"), "not measured");
        assert_eq!(s("goal.pipeline_lines_per_s"), "met");
        assert_eq!(s("verdict.e1_query_over_pipeline"), "misses the goal");
        assert_eq!(v["goals.met"], 2);
        assert_eq!(
            s("goals.missed_list"),
            "query build from scratch / pipeline build"
        );
        assert_eq!(s("derived.break_even_edits"), "0.51");
        assert!(s("goals.table").contains("| 1.50 | missed |"));
    }
}
