//! The paper: `paper/template.md` with its placeholders filled from `results/`, written
//! to `paper/paper.md`. No number is typed by hand: every one comes from a placeholder, and
//! every sentence whose truth depends on the numbers is chosen by them or checked against
//! them (the template language is described in [`template`]; a claim the results
//! contradict makes generation fail).
//!
//! Values: `results/values.json`, the headline keys of `results/summary.json` (a number,
//! or `{ "value", "low", "high", "n" }`, which becomes `KEY`, `KEY_low`, `KEY_high`,
//! `KEY_n`), `meta.*` from `results/meta.json`, `why.KEY` (the reason a headline is
//! missing), values derived from the CSVs (`derived.*`, see [`derived`]; `derived.phases.*`
//! from E6's phase breakdown, `derived.e8.phases.*` from E8's and rustc's), and verdicts on the goals of the issues (`goal.KEY`,
//! `verdict.KEY`, `goals.table`), derived from the headline numbers, and on the goals of
//! the incremental rebuilds (`incremental.*`, see [`incremental`]), so the prose reads
//! right whether a goal is met or not; the scaling profile's tables (`scaling.*`, see
//! [`scaling`]).

mod derived;
pub mod incremental;
mod scaling;
mod template;

pub use self::derived::actual_lines;
pub use self::template::{fill, Condition};

use std::collections::BTreeMap;
use std::path::Path;

use super::table::{self, Row};

/// Formats a number for prose: whole numbers exactly, with thousands separators (counts,
/// sizes); other numbers to three significant digits, so that no figure claims more
/// precision than a median of a few repetitions has.
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    if v.fract() == 0.0 && v.abs() >= 1.0 {
        return thousands(v);
    }
    format_sig(v)
}

/// Formats a measured number to three significant digits (thousands separators from
/// 1,000 on), whole or not.
pub fn format_sig(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".to_string();
    }
    let magnitude = a.log10().floor() as i32;
    if magnitude >= 3 {
        let unit = 10f64.powi(magnitude - 2);
        return thousands((v / unit).round() * unit);
    }
    let digits = (2 - magnitude).max(0) as usize;
    format!("{v:.digits$}")
}

/// The number `k` of `values`, if it is one and finite.
fn num(values: &Values, k: &str) -> Option<f64> {
    values
        .get(k)
        .and_then(|v| v.as_f64())
        .filter(|x| x.is_finite())
}

/// An integer with thousands separators.
fn thousands(v: f64) -> String {
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
            if r.is_default_shape() {
                r.scenario.replace('|', "/")
            } else {
                format!("{} ({})", r.scenario.replace('|', "/"), r.shape)
            },
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

/// The Markdown table of experiment `id` for `{{table:eNN}}`: E8's comparison table
/// ([`e8_table`]), every other experiment's rows ([`markdown_table`]).
pub fn experiment_table(id: &str, rows: &[Row]) -> String {
    match id {
        "e8" => e8_table(rows),
        _ => markdown_table(rows),
    }
}

/// E8's rows side by side: per size and scenario (the rebuild after each edit by the
/// edit's name), the median wall time of rustc, of Rill's query build detecting changes
/// by content and by metadata, and the ratios of E8 (each compiler's to its own full
/// build, Rill's to rustc's), each with its 95 % interval and rounds.
pub fn e8_table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| size (lines) | scenario | rustc (ms) | rustc / its full build | Rill (ms) | Rill / its full build | Rill / rustc | Rill, stat (ms) |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let ms = |scenario: &str, arch: &str, size: usize| {
        table::find(rows, scenario, arch, size)
            .filter(|r| r.is_ok())
            .and_then(|r| r.median)
            .map_or("–".to_string(), format_sig)
    };
    let ratio = |what: &str, scenario: &str, size: usize| {
        let scenario = super::exps::ratio_scenario(what, scenario);
        match table::find(rows, &scenario, "ratio", size) {
            Some(r) if r.is_ok() => match (r.median, r.low, r.high) {
                (Some(v), Some(l), Some(h)) => format!(
                    "{} ({}–{}, n = {})",
                    format_sig(v),
                    format_sig(l),
                    format_sig(h),
                    r.repetitions
                ),
                (Some(v), _, _) => format_sig(v),
                _ => "–".to_string(),
            },
            _ => "–".to_string(),
        }
    };
    let sizes = super::exps::rustc_sizes(rows);
    for size in sizes {
        let lines = rows
            .iter()
            .find(|r| r.size == size && r.lines.is_some())
            .and_then(|r| r.lines)
            .map_or(String::new(), |n| {
                format!(" ({} actual)", format_number(n as f64))
            });
        let mut seen: Vec<&str> = Vec::new();
        for r in rows
            .iter()
            .filter(|r| r.size == size && r.architecture == "rustc")
        {
            let sc = r.scenario.as_str();
            if seen.contains(&sc) {
                continue;
            }
            seen.push(sc);
            let name = sc
                .strip_prefix("incr-patched:")
                .map_or(sc.to_string(), |e| format!("edit: {e}"));
            let own = |what: &str| {
                if sc == "full" {
                    "1".to_string()
                } else {
                    ratio(what, sc, size)
                }
            };
            s.push_str(&format!(
                "| {}{lines} | {name} | {} | {} | {} | {} | {} | {} |\n",
                format_number(size as f64),
                ms(sc, "rustc", size),
                own("rustc/full"),
                ms(sc, "rill-query", size),
                own("rill/full"),
                ratio("rill/rustc", sc, size),
                ms(sc, "rill-query-stat", size),
            ));
        }
    }
    s
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
        what: "share of the query build spent hashing (without encoding values for the cache)",
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
            format!("{} %", format_sig(v * 100.0))
        } else {
            format_sig(v)
        }
    };
    let bound = |g: &Goal| {
        if g.percent {
            format!("{} %", format_number(g.bound * 100.0))
        } else {
            format_number(g.bound)
        }
    };
    let meets = |g: &Goal, x: f64| (g.at_most && x <= g.bound) || (!g.at_most && x >= g.bound);
    let mut table = String::from(
        "| goal | bound | measured | 95 % interval | n | verdict |\n|---|---:|---:|---:|---:|---|\n",
    );
    let (mut met, mut missed) = (0, Vec::new());
    for g in GOALS {
        let v = num(values, g.key);
        let lo = num(values, &format!("{}_low", g.key));
        let hi = num(values, &format!("{}_high", g.key));
        // With an interval, a goal is met or missed only when the whole interval is on
        // one side of the bound.
        let undecided = match (lo, hi) {
            (Some(l), Some(h)) => meets(g, l) != meets(g, h),
            _ => false,
        };
        let (status, verdict) = match v {
            Some(_) if undecided => (
                "undecided",
                "neither clearly meets nor clearly misses the goal (its 95 % interval contains the bound)",
            ),
            Some(x) if meets(g, x) => {
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
        let interval = match (lo, hi) {
            (Some(l), Some(h)) => format!("{}–{}", show(g, l), show(g, h)),
            _ => "–".to_string(),
        };
        let n = num(values, &format!("{}_n", g.key)).map_or("–".to_string(), format_number);
        table.push_str(&format!(
            "| {} (`{}`) | {} {} | {} | {} | {} | {} |\n",
            g.what,
            g.key,
            if g.at_most { "≤" } else { "≥" },
            bound(g),
            v.map_or("n/a".to_string(), |x| show(g, x)),
            interval,
            n,
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
        (Some(a), Some(b)) => format_number((a - 1.0) / (1.0 - b)),
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
            if k == "null_reasons" {
                if let serde_json::Value::Object(r) = v {
                    for (k, why) in r {
                        values.insert(format!("why.{k}"), why);
                    }
                }
            } else if let serde_json::Value::Object(h) = v {
                // A headline with its interval: `{ "value", "low", "high", "n" }`.
                let field = |f: &str| h.get(f).cloned().unwrap_or(serde_json::Value::Null);
                values.insert(k.clone(), field("value"));
                for f in ["low", "high", "n"] {
                    values.entry(format!("{k}_{f}")).or_insert_with(|| field(f));
                }
            } else {
                values.insert(k, v);
            }
        }
    }
    if let Ok(serde_json::Value::Object(m)) = read("meta.json") {
        flatten("meta", &serde_json::Value::Object(m), &mut values);
    }
    // Recorded since a later version of the runner (and absent on a machine without it):
    // unknown in an older `meta.json`.
    for k in ["page_reporting_order", "reported_mib_during_run"] {
        values
            .entry(format!("meta.machine.free_page_reporting.{k}"))
            .or_insert(serde_json::Value::Null);
    }
    // The CSV of each experiment (the phase breakdowns, `eNN-phases.csv`, have other
    // columns and are read below).
    let mut tables = BTreeMap::new();
    for e in super::exps::ALL {
        let p = results.join(super::exps::csv_name(e));
        if p.is_file() {
            tables.insert(e.id.to_string(), table::read_csv(&p)?);
        }
    }
    derive(&mut values);
    derived::derive(&mut values, &tables);
    let phases = super::phases::read_csv(&results.join(super::phases::csv_name("e6")));
    derived::phase_values(&mut values, &phases);
    derived::e8_phase_values(
        &mut values,
        &super::exps::read_passes_csv(&results.join("e08-rustc-phases.csv")),
        &super::phases::read_csv(&results.join(super::phases::csv_name("e8"))),
    );
    let e8_samples = super::exps::ALL
        .iter()
        .find(|e| e.id == "e8")
        .and_then(|e| {
            super::samples::read_csv(&results.join("samples").join(super::exps::csv_name(e))).ok()
        });
    derived::e8_fault_values(&mut values, &e8_samples.unwrap_or_default());
    incremental::derive(&mut values, &tables);
    scaling::derive(&mut values);
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
            let text: Vec<String> = a.iter().map(|x| template::render_value(x, false)).collect();
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

    /// The paper's own template, filled from the committed results, fails when a value
    /// contradicts a claim it states.
    #[test]
    fn the_template_fails_on_results_that_contradict_its_claims() {
        let root = super::super::workspace_root();
        let template = std::fs::read_to_string(root.join("paper/template.md")).unwrap();
        let (mut values, tables) = load_results(&root.join("results")).unwrap();
        let filled = fill(&template, &values, &tables);
        assert!(filled.is_ok(), "{filled:?}");
        // E5 states that machine code carries no positions: no function is re-generated.
        values.insert("e5.absolute_codegen".into(), 12.into());
        let e = fill(&template, &values, &tables).unwrap_err();
        assert!(
            e.contains("contradict") && e.contains("e5.absolute_codegen = 12"),
            "{e}"
        );
        // Interface edits are described by the numbers, not by a fixed sentence.
        values.insert("e5.absolute_codegen".into(), 0.into());
        for (x, words) in [
            (0.22, "far from the cost of a full"),
            (0.8, "approach the cost of a full build"),
        ] {
            values.insert("derived.e3.interface_over_pipeline".into(), x.into());
            let text = fill(&template, &values, &tables).unwrap();
            assert!(text.contains(words), "{x}: {words}");
        }
    }

    #[test]
    fn the_e8_table_puts_the_compilers_side_by_side() {
        let row = |scenario: &str, arch: &str, ms: f64| {
            let mut r = Row::new(scenario, arch, 10_000);
            r.median = Some(ms);
            r.repetitions = 10;
            r.lines = Some(9_475);
            r
        };
        let leaf = "incr-patched:leaf-body";
        let mut ratio = row(
            &crate::runner::exps::ratio_scenario("rustc/full", leaf),
            "ratio",
            0.72,
        );
        (ratio.low, ratio.high) = (Some(0.7), Some(0.74));
        let rows = vec![
            row("full", "rustc", 500.0),
            row("full", "rill-query", 31.0),
            row(leaf, "rustc", 360.0),
            row(leaf, "rill-query", 5.9),
            row(leaf, "rill-query-stat", 5.2),
            Row::new(leaf, "rustc", 100_000).without_number("failed: rustc failed"),
            ratio,
        ];
        let t = experiment_table("e8", &rows);
        assert!(
            t.contains("| 10,000 (9,475 actual) | full | 500 | 1 | 31.0 | 1 | – | – |"),
            "{t}"
        );
        assert!(
            t.contains("| 10,000 (9,475 actual) | edit: leaf-body | 360 | 0.720 (0.700–0.740, n = 10) | 5.90 | – | – | 5.20 |"),
            "{t}"
        );
        assert!(t.contains("| 100,000 | edit: leaf-body | – |"), "{t}");
        // The other experiments' tables are their rows.
        assert_eq!(experiment_table("e1", &rows), markdown_table(&rows));
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(format_number(448230.15), "448,000");
        assert_eq!(format_number(1_637_991.9), "1,640,000");
        assert_eq!(format_number(93250.0), "93,250");
        assert_eq!(format_number(212.782), "213");
        assert_eq!(format_number(22.037), "22.0");
        assert_eq!(format_number(1.5766), "1.58");
        assert_eq!(format_number(0.0582), "0.0582");
        assert_eq!(format_number(0.0), "0");
        assert_eq!(format_number(f64::NAN), "n/a");
    }

    #[test]
    fn headlines_with_intervals_are_read_from_the_summary() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("summary.json"),
            r#"{"e1_query_over_pipeline": {"value": 1.5, "low": 1.4, "high": 1.62, "n": 5},
               "e2_hash_share": 0.05, "null_reasons": {"e9_jit_over_rustc_o0": "no rustc"}}"#,
        )
        .unwrap();
        let (v, _) = load_results(dir.path()).unwrap();
        assert_eq!(v["e1_query_over_pipeline"], 1.5);
        assert_eq!(v["e1_query_over_pipeline_low"], 1.4);
        assert_eq!(v["e1_query_over_pipeline_n"], 5);
        assert_eq!(v["e2_hash_share"], 0.05);
        assert_eq!(v["why.e9_jit_over_rustc_o0"], "no rustc");
        let s = fill("{{ci:e1_query_over_pipeline}}", &v, &Tables::new()).unwrap();
        assert_eq!(s, "1.50 (95 % CI 1.40–1.62, n = 5)");
    }

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
        assert_eq!(s("derived.break_even_edits"), "0.510");
        assert!(s("goals.table").contains("| 1.50 | – | – | missed |"));
        // With an interval, a goal is decided only when the interval is on one side.
        v.insert("e1_query_over_pipeline".to_string(), 1.05.into());
        v.insert("e1_query_over_pipeline_low".to_string(), 1.0.into());
        v.insert("e1_query_over_pipeline_high".to_string(), 1.2.into());
        v.insert("e1_query_over_pipeline_n".to_string(), 5.into());
        derive(&mut v);
        assert_eq!(v["goal.e1_query_over_pipeline"], "undecided");
        assert!(v["goals.table"]
            .as_str()
            .unwrap()
            .contains("| 1.05 | 1.00–1.20 | 5 | undecided |"));
        v.insert("e1_query_over_pipeline_high".to_string(), 1.08.into());
        derive(&mut v);
        assert_eq!(v["goal.e1_query_over_pipeline"], "met");
    }
}
