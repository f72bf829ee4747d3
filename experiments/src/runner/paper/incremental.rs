//! The goals for incremental rebuilds, each beside today's measured value: the table
//! `incremental.table` and, per goal, `incremental.goal.ID` (`met`, `not met`, `not
//! measured`, `not measured in this profile`), with `incremental.met`,
//! `incremental.measured` and `incremental.total`.
//!
//! Every value is one the suite already measures (`values.json`). A goal stated at a
//! program size is read at that size only: from the values per size of E6
//! (`e6.*.at_<size>`), or from a headline whose experiment ran at that size (`e3.size`,
//! `e6.size`). A size that no experiment of the run measured (a million lines in the quick
//! profile) is "not measured in this profile"; a value that is missing at a measured size
//! is "not measured". The scaling profile's values (`scaling.*`, see `runner::scaling`)
//! stand in at the sizes the suite's own run did not build.

use super::{format_number, format_sig, num, Tables, Values};
use crate::runner::scaling::sizes_of as scaling_sizes;

/// How a goal's value is compared with its bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    /// A fraction, shown as a percentage.
    Percent,
    /// A ratio, shown as a number.
    Ratio,
    /// A factor of growth, shown as `N×`.
    Times,
}

/// A goal: the measured value must be at most `bound`.
pub struct IncrementalGoal {
    /// Its key suffix: `incremental.goal.ID`.
    pub id: &'static str,
    pub what: &'static str,
    /// The program size (nominal lines) the goal is stated at, if any.
    pub size: Option<usize>,
    pub bound: f64,
    pub unit: Unit,
    /// Where the value comes from: see [`measure`].
    pub source: Source,
}

/// Where a goal's value comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// The first of these that has a number: `(key, size key)`, where the key is read at
    /// the goal's size. A key with `{size}` names its size itself; a key without is
    /// measured at the size its size key (`e6.size`) gives, and is read only when that is
    /// the goal's size. A key without either is read whatever the size.
    First(&'static [(&'static str, Option<&'static str>)]),
    /// The largest of these keys (each with its interval), all measured at the size of
    /// the size key: the dearer of two kinds of edit.
    Worst(&'static [&'static str], &'static str),
    /// The growth from size `from` to size `to`: the scaling profile's `fitted` growth
    /// (with its interval) when that profile's sizes run from `from` to `to`, else the
    /// first of `keys` (`{size}` in each) measured at both sizes.
    Growth {
        fitted: &'static str,
        keys: &'static [&'static str],
        from: usize,
        to: usize,
    },
}

/// The goals of the incremental rebuilds, in the order of the paper's table.
pub const GOALS: &[IncrementalGoal] = &[
    IncrementalGoal {
        id: "noop_100k",
        what: "no-change rebuild / pipeline from scratch",
        size: Some(100_000),
        bound: 0.02,
        unit: Unit::Percent,
        source: Source::First(&[
            ("e6.noop_over_pipeline.at_{size}", None),
            ("e6_noop_over_pipeline", Some("e6.size")),
        ]),
    },
    IncrementalGoal {
        id: "noop_1m",
        what: "no-change rebuild / pipeline from scratch",
        size: Some(1_000_000),
        bound: 0.005,
        unit: Unit::Percent,
        source: Source::First(&[
            ("e6.noop_over_pipeline.at_{size}", None),
            ("e6_noop_over_pipeline", Some("e6.size")),
            (
                "scaling.e6.no_change.query.default.at_{size}.over_pipeline",
                None,
            ),
        ]),
    },
    IncrementalGoal {
        id: "leaf_100k",
        what: "leaf-body edit / pipeline",
        size: Some(100_000),
        bound: 0.03,
        unit: Unit::Percent,
        source: Source::First(&[
            ("e3_leaf_edit_over_pipeline", Some("e3.size")),
            ("e6.leaf_over_pipeline.at_{size}", None),
            ("e6.leaf_over_pipeline", Some("e6.size")),
        ]),
    },
    IncrementalGoal {
        id: "leaf_1m",
        what: "leaf-body edit / pipeline",
        size: Some(1_000_000),
        bound: 0.01,
        unit: Unit::Percent,
        source: Source::First(&[
            ("e3_leaf_edit_over_pipeline", Some("e3.size")),
            ("e6.leaf_over_pipeline.at_{size}", None),
            ("e6.leaf_over_pipeline", Some("e6.size")),
            (
                "scaling.e3.leaf_body.query.default.at_{size}.over_pipeline",
                None,
            ),
            (
                "scaling.e6.leaf_body.query.default.at_{size}.over_pipeline",
                None,
            ),
        ]),
    },
    IncrementalGoal {
        id: "add_remove_fn_100k",
        what: "add or remove a function / pipeline (the dearer of the two)",
        size: Some(100_000),
        bound: 0.05,
        unit: Unit::Percent,
        source: Source::Worst(
            &["e3.add_fn_over_pipeline", "e3.remove_fn_over_pipeline"],
            "e3.size",
        ),
    },
    IncrementalGoal {
        id: "interface_100k",
        what: "signature or struct-field edit / pipeline (the dearer of the two)",
        size: Some(100_000),
        bound: 0.10,
        unit: Unit::Percent,
        source: Source::Worst(
            &["e3.signature_over_pipeline", "e3.struct_field_over_pipeline"],
            "e3.size",
        ),
    },
    IncrementalGoal {
        id: "leaf_growth",
        what: "growth of a leaf edit's rebuild from 10k to 1M lines",
        size: None,
        bound: 3.0,
        unit: Unit::Times,
        source: Source::Growth {
            fitted: "scaling.e6.leaf_body.query.default.growth",
            keys: &[
                "e6.leaf_ms.at_{size}",
                "scaling.e6.leaf_body.query.default.at_{size}.ms",
            ],
            from: 10_000,
            to: 1_000_000,
        },
    },
    IncrementalGoal {
        id: "scratch",
        what: "query from scratch / pipeline",
        size: None,
        bound: 1.10,
        unit: Unit::Ratio,
        source: Source::First(&[("e1_query_over_pipeline", None)]),
    },
    IncrementalGoal {
        id: "rebuild_memory",
        what: "peak memory of a rebuild / pipeline from scratch (the larger of no-change and leaf-body)",
        size: None,
        bound: 0.25,
        unit: Unit::Ratio,
        source: Source::First(&[("e6.rebuild_rss_over_pipeline", None)]),
    },
    IncrementalGoal {
        id: "scratch_memory",
        what: "peak memory of a query build from scratch / pipeline (the larger of in memory and persisting its cache)",
        size: None,
        bound: 1.3,
        unit: Unit::Ratio,
        source: Source::Worst(
            &["e1.memory_rss_over_pipeline", "e1.disk_rss_over_pipeline"],
            "e1.size",
        ),
    },
    IncrementalGoal {
        id: "cache_size",
        what: "cache size / source size (on disk)",
        size: None,
        bound: 3.0,
        unit: Unit::Ratio,
        source: Source::First(&[("e7.cache_over_source", None)]),
    },
];

/// A goal's measured value: the value, its interval and repetitions where the results
/// carry them, and the key it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub value: f64,
    pub interval: Option<(f64, f64)>,
    pub n: Option<f64>,
    pub key: String,
    /// The size it was measured at, where the goal states none and the results say.
    pub size: Option<f64>,
}

/// The value `key` with its interval, if it has a number.
fn read(values: &Values, key: &str) -> Option<Measured> {
    let value = num(values, key)?;
    let lo = num(values, &format!("{key}_low"));
    let hi = num(values, &format!("{key}_high"));
    Some(Measured {
        value,
        interval: lo.zip(hi),
        n: num(values, &format!("{key}_n")),
        key: key.to_string(),
        size: None,
    })
}

/// The experiment's size that headline keys of `key`'s experiment are measured at
/// (`e1.size` for `e1_...` and `e1....`).
fn size_of(values: &Values, key: &str) -> Option<f64> {
    let exp: String = key
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    num(values, &format!("{exp}.size"))
}

/// The value of `goal` in `values`, if measured.
pub fn measure(goal: &IncrementalGoal, values: &Values) -> Option<Measured> {
    let at = |key: &str, size: usize| key.replace("{size}", &size.to_string());
    let at_size = |size_key: &str| match goal.size {
        Some(s) => num(values, size_key) == Some(s as f64),
        None => true,
    };
    match goal.source {
        Source::First(keys) => keys.iter().find_map(|(key, size_key)| {
            let m = if key.contains("{size}") {
                read(values, &at(key, goal.size?))
            } else if size_key.map_or(true, at_size) {
                read(values, key)
            } else {
                None
            }?;
            let size = match goal.size {
                None => size_of(values, key),
                Some(_) => None,
            };
            Some(Measured { size, ..m })
        }),
        Source::Worst(keys, size_key) => {
            if !at_size(size_key) {
                return None;
            }
            // Every kind must be measured for the dearer one to be known.
            let all: Option<Vec<Measured>> = keys.iter().map(|k| read(values, k)).collect();
            let worst = all?
                .into_iter()
                .reduce(|a, b| if b.value > a.value { b } else { a })?;
            // A goal without a size of its own is at the size the results measured.
            let size = match goal.size {
                None => num(values, size_key),
                Some(_) => None,
            };
            Some(Measured { size, ..worst })
        }
        Source::Growth {
            fitted,
            keys,
            from,
            to,
        } => {
            let scaling = scaling_sizes(values);
            if scaling.first() == Some(&from) && scaling.last() == Some(&to) {
                if let Some(m) = read(values, fitted) {
                    return Some(m);
                }
            }
            keys.iter().find_map(|key| {
                let (a, b) = (read(values, &at(key, from))?, read(values, &at(key, to))?);
                (a.value > 0.0).then(|| Measured {
                    value: b.value / a.value,
                    interval: None,
                    n: None,
                    key: format!("{} / {}", b.key, a.key),
                    size: None,
                })
            })
        }
    }
}

/// The sizes a goal needs measured: its own, or both ends of a growth.
fn sizes_needed(goal: &IncrementalGoal) -> Vec<usize> {
    match goal.source {
        Source::Growth { from, to, .. } => vec![from, to],
        _ => goal.size.into_iter().collect(),
    }
}

/// The program sizes the run measured: those of the rows of every table and the sizes of
/// the experiments (`eN.size`).
fn measured_sizes(values: &Values, tables: &Tables) -> Vec<usize> {
    let mut v: Vec<usize> = tables
        .values()
        .flatten()
        .map(|r| r.size)
        .filter(|s| *s > 0)
        .collect();
    v.extend(
        values
            .iter()
            .filter(|(k, _)| k.starts_with('e') && k.ends_with(".size"))
            .filter_map(|(_, x)| x.as_f64())
            .map(|x| x as usize),
    );
    v.extend(scaling_sizes(values));
    v.sort_unstable();
    v.dedup();
    v
}

fn show(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Percent => format!("{} %", format_sig(v * 100.0)),
        Unit::Ratio => format_sig(v),
        Unit::Times => format!("{}×", format_sig(v)),
    }
}

/// A bound as the goal states it: `2 %`, `0.5 %`, `1.1`, `3×`.
fn show_bound(unit: Unit, v: f64) -> String {
    let exact = |x: f64| format!("{}", (x * 1e6).round() / 1e6);
    match unit {
        Unit::Percent => format!("{} %", exact(v * 100.0)),
        Unit::Ratio => exact(v),
        Unit::Times => format!("{}×", exact(v)),
    }
}

pub(super) fn show_size(n: usize) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => format_number(n as f64),
    }
}

/// Adds the table and the verdicts of [`GOALS`] to `values` (see the module comment).
pub fn derive(values: &mut Values, tables: &Tables) {
    let sizes = measured_sizes(values, tables);
    let mut table = String::from(
        "| goal | at | bound | measured | 95 % interval | n | verdict |\n\
         |---|---|---:|---:|---:|---:|---|\n",
    );
    let (mut met, mut measured) = (0, 0);
    for g in GOALS {
        let m = measure(g, values);
        let in_profile = sizes_needed(g).iter().all(|s| sizes.contains(s));
        let status = match &m {
            Some(m) if m.value <= g.bound => "met",
            Some(_) => "not met",
            None if !in_profile => "not measured in this profile",
            None => "not measured",
        };
        if let Some(m) = &m {
            measured += 1;
            if m.value <= g.bound {
                met += 1;
            }
        }
        values.insert(format!("incremental.goal.{}", g.id), status.into());
        values.insert(
            format!("incremental.value.{}", g.id),
            m.as_ref()
                .map_or(serde_json::Value::Null, |m| m.value.into()),
        );
        let at = match (g.size, &g.source, m.as_ref().and_then(|m| m.size)) {
            (Some(s), _, _) => format!("{} lines", show_size(s)),
            (None, Source::Growth { from, to, .. }, _) => {
                format!("{} → {} lines", show_size(*from), show_size(*to))
            }
            (None, _, Some(s)) => format!("{} lines (largest measured)", show_size(s as usize)),
            (None, _, None) => "–".to_string(),
        };
        let (value, interval, n) = match &m {
            Some(m) => (
                format!("{} (`{}`)", show(g.unit, m.value), m.key),
                m.interval.map_or("–".to_string(), |(l, h)| {
                    format!("{}–{}", show(g.unit, l), show(g.unit, h))
                }),
                m.n.map_or("–".to_string(), format_number),
            ),
            None => (status.to_string(), "–".to_string(), "–".to_string()),
        };
        // A verdict whose interval reaches across the bound says so.
        let straddles = m
            .as_ref()
            .and_then(|m| m.interval)
            .is_some_and(|(l, h)| (l <= g.bound) != (h <= g.bound));
        let verdict = if straddles {
            format!("{status} (the interval contains the bound)")
        } else {
            status.to_string()
        };
        table.push_str(&format!(
            "| {} | {} | ≤ {} | {} | {} | {} | {} |\n",
            g.what,
            at,
            show_bound(g.unit, g.bound),
            value,
            interval,
            n,
            verdict
        ));
    }
    values.insert("incremental.table".into(), table.into());
    values.insert("incremental.met".into(), met.into());
    values.insert("incremental.measured".into(), measured.into());
    values.insert("incremental.total".into(), GOALS.len().into());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, f64)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
            .collect()
    }

    fn status(v: &Values, id: &str) -> String {
        v[&format!("incremental.goal.{id}")]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn verdicts_follow_the_values() {
        // A quick profile: sizes to 100k, the headlines at 100k.
        let mut v = values(&[
            ("e3.size", 100_000.0),
            ("e6.size", 100_000.0),
            ("e6.noop_over_pipeline.at_100000", 0.015),
            ("e6.noop_over_pipeline.at_100000_low", 0.012),
            ("e6.noop_over_pipeline.at_100000_high", 0.025),
            ("e6.noop_over_pipeline.at_100000_n", 10.0),
            ("e3_leaf_edit_over_pipeline", 0.19),
            ("e3.add_fn_over_pipeline", 0.04),
            ("e3.remove_fn_over_pipeline", 0.06),
            ("e3.signature_over_pipeline", 0.08),
            ("e3.struct_field_over_pipeline", 0.09),
            ("e6.leaf_ms.at_10000", 20.0),
            ("e6.leaf_ms.at_100000", 39.0),
            ("e1_query_over_pipeline", 1.05),
            ("e1.size", 100_000.0),
            ("e6.rebuild_rss_over_pipeline", 0.9),
            ("e1.memory_rss_over_pipeline", 1.34),
            ("e1.disk_rss_over_pipeline", 1.2),
            ("e7.cache_over_source", 2.5),
        ]);
        derive(&mut v, &Tables::new());
        assert_eq!(status(&v, "noop_100k"), "met");
        assert_eq!(status(&v, "noop_1m"), "not measured in this profile");
        assert_eq!(status(&v, "leaf_100k"), "not met");
        assert_eq!(status(&v, "leaf_1m"), "not measured in this profile");
        // The dearer of the two kinds decides.
        assert_eq!(status(&v, "add_remove_fn_100k"), "not met");
        assert_eq!(v["incremental.value.add_remove_fn_100k"], 0.06);
        assert_eq!(status(&v, "interface_100k"), "met");
        assert_eq!(status(&v, "leaf_growth"), "not measured in this profile");
        assert_eq!(status(&v, "scratch"), "met");
        assert_eq!(status(&v, "rebuild_memory"), "not met");
        assert_eq!(status(&v, "scratch_memory"), "not met");
        assert_eq!(status(&v, "cache_size"), "met");
        assert_eq!(v["incremental.met"], 4);
        assert_eq!(v["incremental.measured"], 8);
        let table = v["incremental.table"].as_str().unwrap();
        assert!(
            table.contains(
                "| no-change rebuild / pipeline from scratch | 100k lines | ≤ 2 % | 1.50 % \
                 (`e6.noop_over_pipeline.at_100000`) | 1.20 %–2.50 % | 10 | met (the interval \
                 contains the bound) |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| 1M lines | ≤ 0.5 % | not measured in this profile |"),
            "{table}"
        );
        assert!(
            table.contains("| 100k lines (largest measured) | ≤ 1.1 | 1.05"),
            "{table}"
        );
    }

    #[test]
    fn the_peak_memory_from_scratch_is_the_larger_of_in_memory_and_persisting() {
        for (memory, disk, verdict) in [(1.2, 1.45, "not met"), (1.25, 1.1, "met")] {
            let mut v = values(&[
                ("e1.size", 100_000.0),
                ("e1.memory_rss_over_pipeline", memory),
                ("e1.disk_rss_over_pipeline", disk),
            ]);
            derive(&mut v, &Tables::new());
            assert_eq!(status(&v, "scratch_memory"), verdict);
            assert_eq!(v["incremental.value.scratch_memory"], memory.max(disk));
            let table = v["incremental.table"].as_str().unwrap();
            assert!(
                table.contains(&format!(
                    "| 100k lines (largest measured) | ≤ 1.3 | {}",
                    memory.max(disk)
                )),
                "{table}"
            );
        }
        // Without the persisting build's number the goal is not measured.
        let mut v = values(&[("e1.size", 100_000.0), ("e1.memory_rss_over_pipeline", 1.2)]);
        derive(&mut v, &Tables::new());
        assert_eq!(status(&v, "scratch_memory"), "not measured");
    }

    #[test]
    fn values_are_read_at_the_goals_size_only() {
        // A full profile: the headlines at 1M, values per size below.
        let mut v = values(&[
            ("e3.size", 100_000.0),
            ("e6.size", 1_000_000.0),
            ("e6_noop_over_pipeline", 0.004),
            ("e6.leaf_over_pipeline", 0.02),
            ("e3_leaf_edit_over_pipeline", 0.025),
            ("e6.leaf_ms.at_10000", 20.0),
            ("e6.leaf_ms.at_1000000", 70.0),
        ]);
        derive(&mut v, &Tables::new());
        // The headline is at 1M: not taken for the goal at 100k, which has no value.
        assert_eq!(status(&v, "noop_100k"), "not measured");
        assert_eq!(status(&v, "noop_1m"), "met");
        assert_eq!(status(&v, "leaf_100k"), "met");
        assert_eq!(v["incremental.value.leaf_100k"], 0.025);
        assert_eq!(status(&v, "leaf_1m"), "not met");
        assert_eq!(status(&v, "leaf_growth"), "not met");
        assert_eq!(v["incremental.value.leaf_growth"], 3.5);
        // A kind of edit without a number leaves the dearer unknown.
        assert_eq!(status(&v, "add_remove_fn_100k"), "not measured");
        let mut v = values(&[("e3.size", 100_000.0), ("e3.add_fn_over_pipeline", 0.01)]);
        v.insert("e3.remove_fn_over_pipeline".into(), serde_json::Value::Null);
        derive(&mut v, &Tables::new());
        assert_eq!(status(&v, "add_remove_fn_100k"), "not measured");
    }

    #[test]
    fn the_scaling_profile_stands_in_at_the_sizes_the_suite_did_not_build() {
        // A quick run to 100k, and a scaling run of 10k, 100k and 1M.
        let mut v = values(&[
            ("e3.size", 100_000.0),
            ("e6.size", 100_000.0),
            ("e6.noop_over_pipeline.at_100000", 0.015),
            ("e6.leaf_ms.at_10000", 5.0),
            ("e6.leaf_ms.at_100000", 7.0),
            (
                "scaling.e6.no_change.query.default.at_100000.over_pipeline",
                0.5,
            ),
            (
                "scaling.e6.no_change.query.default.at_1000000.over_pipeline",
                0.004,
            ),
            (
                "scaling.e6.no_change.query.default.at_1000000.over_pipeline_low",
                0.003,
            ),
            (
                "scaling.e6.no_change.query.default.at_1000000.over_pipeline_high",
                0.006,
            ),
            (
                "scaling.e3.leaf_body.query.default.at_1000000.over_pipeline",
                0.02,
            ),
            ("scaling.e6.leaf_body.query.default.growth", 4.0),
            ("scaling.e6.leaf_body.query.default.growth_low", 3.5),
            ("scaling.e6.leaf_body.query.default.growth_high", 4.5),
        ]);
        v.insert("scaling.sizes".into(), "10000, 100000, 1000000".into());
        derive(&mut v, &Tables::new());
        // The suite's own value comes first where it has one.
        assert_eq!(status(&v, "noop_100k"), "met");
        assert_eq!(v["incremental.value.noop_100k"], 0.015);
        assert_eq!(status(&v, "noop_1m"), "met");
        assert_eq!(status(&v, "leaf_1m"), "not met");
        assert_eq!(v["incremental.value.leaf_1m"], 0.02);
        // The fitted growth, with its interval, over the profile's 10k to 1M.
        assert_eq!(status(&v, "leaf_growth"), "not met");
        assert_eq!(v["incremental.value.leaf_growth"], 4.0);
        let table = v["incremental.table"].as_str().unwrap();
        assert!(table.contains("3.50×–4.50×"), "{table}");
        // A scaling run of other sizes does not stand in for 10k to 1M.
        v.insert("scaling.sizes".into(), "1000, 1000000".into());
        derive(&mut v, &Tables::new());
        assert_eq!(status(&v, "leaf_growth"), "not measured in this profile");
    }
}
