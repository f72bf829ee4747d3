//! Values the paper derives from the CSVs of `results/` (keys `derived.*`): quantities
//! over actual line counts, and the comparisons its prose chooses its claims by.
//!
//! Program sizes in the CSVs (`size`) are nominal: the generator aims at them. The actual
//! line count of each generated program is the `lines` column of the rows; every
//! experiment generates its programs from the same seed, so a nominal size has the same
//! actual line count in all of them. (CSVs written before the column existed carry it in
//! the notes of E1's throughput rows, "93250 lines / ...".) Quantities per line and
//! growth exponents use the actual counts, and are `null` where no row gives the count.
//!
//! Everything here is of the default program shape, except the `derived.eN.*.<shape>`
//! copies of the headline ratios of E1, E3 and E6 per shape and their spread over the
//! shapes (`shape_spread`, the largest over the smallest).

use std::collections::BTreeMap;

use super::{num, Tables, Values};
use crate::runner::stats;
use crate::runner::table::Row;

/// Nominal size to actual line count of the default shape, from the `lines` column of
/// any table, or else from the notes of E1's throughput rows.
pub fn actual_lines(tables: &Tables) -> BTreeMap<usize, usize> {
    let mut out = BTreeMap::new();
    for r in tables.values().flatten() {
        if let (Some(n), true, true) = (r.lines, r.size > 0, r.is_default_shape()) {
            out.entry(r.size).or_insert(n);
        }
    }
    if !out.is_empty() {
        return out;
    }
    for r in tables.get("e1").into_iter().flatten() {
        if !r.scenario.starts_with("throughput") {
            continue;
        }
        let lines = r
            .note
            .split_once(" lines")
            .and_then(|(n, _)| n.trim().parse::<usize>().ok());
        if let Some(n) = lines {
            out.insert(r.size, n);
        }
    }
    out
}

fn ok_row<'a>(rows: &'a [Row], scenario: &str, arch: &str, size: usize) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.scenario == scenario && r.architecture == arch && r.size == size && r.is_ok())
}

fn median(rows: &[Row], scenario: &str, arch: &str, size: usize) -> Option<f64> {
    ok_row(rows, scenario, arch, size).and_then(|r| r.median)
}

/// The share of a build's wall time outside the compiler's own phases (process start-up,
/// running the program): `1 - compile_ms / median`.
fn outside_share(rows: &[Row], scenario: &str, arch: &str, size: usize) -> Option<f64> {
    let r = ok_row(rows, scenario, arch, size)?;
    Some(1.0 - r.compile_ms? / r.median?)
}

/// The exponent of `scenario` on `arch` against actual line counts.
fn slope(rows: &[Row], lines: &BTreeMap<usize, usize>, scenario: &str, arch: &str) -> Option<f64> {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.scenario == scenario && r.architecture == arch && r.is_ok())
        .filter_map(|r| Some((*lines.get(&r.size)? as f64, r.median?)))
        .collect();
    stats::loglog_slope(&pts)
}

fn put(values: &mut Values, k: &str, v: Option<f64>) {
    values.insert(
        k.to_string(),
        v.filter(|x| x.is_finite())
            .map_or(serde_json::Value::Null, serde_json::Value::from),
    );
}

fn min_max(v: impl Iterator<Item = Option<f64>>) -> (Option<f64>, Option<f64>) {
    let v: Vec<f64> = v.flatten().filter(|x| x.is_finite()).collect();
    (
        v.iter().copied().reduce(f64::min),
        v.iter().copied().reduce(f64::max),
    )
}

/// The edits of E3 that change an interface other items read.
pub const INTERFACE_EDITS: [&str; 3] = ["signature", "const-type", "struct-field"];
/// The edits of E3 that change text but not meaning.
pub const TEXT_EDITS: [&str; 3] = ["whitespace", "comment", "body-unchanged-result"];

/// The headline ratios that E1, E3 and E6 report per program shape (`KEY.<shape>`).
pub const SHAPE_RATIOS: [&str; 3] = [
    "e1.query_over_pipeline",
    "e3.leaf_edit_over_pipeline",
    "e6.noop_over_pipeline",
];

/// The program shapes, as key suffixes (`workload::Shape::key`).
const SHAPES: [&str; 3] = ["default", "small_fns", "big_fns"];

/// `derived.KEY.<shape>` for every shape and ratio of [`SHAPE_RATIOS`] (`null` where the
/// results lack it), and `derived.KEY.shape_spread`: the largest over the smallest, `null`
/// unless every shape was measured.
fn shape_values(values: &mut Values) {
    for key in SHAPE_RATIOS {
        let per: Vec<Option<f64>> = SHAPES
            .iter()
            .map(|s| num(values, &format!("{key}.{s}")))
            .collect();
        for (s, v) in SHAPES.iter().zip(&per) {
            put(values, &format!("derived.{key}.{s}"), *v);
        }
        let all: Option<Vec<f64>> = per.into_iter().collect();
        let spread = all.and_then(|v| {
            let lo = v.iter().copied().reduce(f64::min)?;
            let hi = v.iter().copied().reduce(f64::max)?;
            stats::ratio(Some(hi), Some(lo))
        });
        put(values, &format!("derived.{key}.shape_spread"), spread);
    }
}

/// The headlines whose spread over repeated runs of the suite the paper states.
const STABILITY_KEYS: [&str; 4] = [
    "e1_query_over_pipeline",
    "e3_leaf_edit_over_pipeline",
    "e6_noop_over_pipeline",
    "e9_jit_over_rustc_o0",
];

/// `derived.stability.*`: the spread the stability check (`experiments stability`) wrote,
/// or `null` where it has not run, so the template can state it conditionally.
fn stability_values(values: &mut Values) {
    let runs = num(values, "stability.runs");
    put(values, "derived.stability.runs", runs);
    // Runs written before the commit was recorded say so.
    let commit = match values.get("stability.commit").and_then(|c| c.as_str()) {
        Some(c) => format!("`{c}`"),
        None => "not recorded (an earlier commit than this run's)".to_string(),
    };
    values.insert("derived.stability.commit".into(), commit.into());
    for key in STABILITY_KEYS {
        for part in ["min", "max", "spread"] {
            let v = num(values, &format!("stability.{key}_{part}"));
            put(values, &format!("derived.stability.{key}_{part}"), v);
        }
    }
}

/// Adds the `derived.*` values (see the module comment).
pub fn derive(values: &mut Values, tables: &Tables) {
    shape_values(values);
    stability_values(values);
    // The rest is of the default shape.
    let tables: Tables = tables
        .iter()
        .map(|(id, rows)| {
            let rows = rows.iter().filter(|r| r.is_default_shape()).cloned();
            (id.clone(), rows.collect())
        })
        .collect();
    let tables = &tables;
    let lines = actual_lines(tables);
    // Repetitions per point of each experiment, for the captions: `5`, or `1–5`.
    for (id, rows) in tables {
        let (lo, hi) = min_max(
            rows.iter()
                .filter(|r| r.is_ok() && r.unit != "exponent")
                .map(|r| Some(r.repetitions as f64)),
        );
        let n = match (lo, hi) {
            (Some(a), Some(b)) if a == b => format!("{a}"),
            (Some(a), Some(b)) => format!("{a}–{b}"),
            _ => "0".to_string(),
        };
        values.insert(format!("derived.{id}.n"), n.into());
    }
    let empty = Vec::new();
    let rows = |id: &str| tables.get(id).unwrap_or(&empty);
    let size = |values: &Values, id: &str| num(values, &format!("{id}.size")).map(|s| s as usize);
    let actual = |s: Option<usize>| s.and_then(|s| lines.get(&s)).map(|n| *n as f64);

    // E1: the pipeline's exponent, and what start-up weighs at the smallest size.
    let e1 = rows("e1");
    let small = e1.iter().map(|r| r.size).filter(|s| *s > 0).min();
    put(values, "derived.e1.lines", actual(size(values, "e1")));
    put(
        values,
        "derived.e1.pipeline_slope",
        slope(e1, &lines, "scratch", "pipeline"),
    );
    let (lo, _) = min_max(
        ["pipeline", "query-memory", "query-disk"]
            .iter()
            .map(|a| small.and_then(|s| outside_share(e1, "scratch", a, s))),
    );
    put(values, "derived.e1.outside_share_smallest", lo);

    // E2: equality against fingerprint cutoff; which kinds carry the bytes.
    let eq = num(values, "e2.equality_leaf_ms");
    let fp = num(values, "e2.fingerprint_leaf_ms");
    put(
        values,
        "derived.e2.equality_over_fingerprint",
        stats::ratio(eq, fp),
    );
    // Whether the results time the encoding of persisted values apart from hashing (1), or
    // were measured before (0: their hashing share includes that encoding).
    let split = values.contains_key("e2.encode_share");
    put(
        values,
        "derived.e2.encode_timed",
        Some(if split { 1.0 } else { 0.0 }),
    );
    let e2 = rows("e2");
    let s2 = size(values, "e2").unwrap_or(0);
    let range = |arch: &str| ok_row(e2, "leaf-body", arch, s2).and_then(|r| Some((r.min?, r.max?)));
    put(
        values,
        "derived.e2.equality_ranges_overlap",
        match (range("query-fingerprint"), range("query-equality")) {
            (Some(a), Some(b)) => Some(if a.0 <= b.1 && b.0 <= a.1 { 1.0 } else { 0.0 }),
            _ => None,
        },
    );
    let mut kinds: Vec<(&str, u64, f64)> = e2
        .iter()
        .filter(|r| r.architecture == crate::runner::exps::E2_DEFAULT_ARCH && r.is_ok())
        .filter_map(|r| {
            let kind = r.scenario.strip_prefix("kind:")?;
            Some((kind, r.hashed_bytes?, r.median?))
        })
        .collect();
    let total: u64 = kinds.iter().map(|k| k.1).sum();
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    let top: Vec<_> = kinds.iter().take(3).collect();
    let names = |v: &[&(&str, u64, f64)]| {
        v.iter()
            .map(|k| format!("`{}`", k.0))
            .collect::<Vec<_>>()
            .join(", ")
    };
    values.insert("derived.e2.top_bytes_kinds".into(), names(&top).into());
    put(
        values,
        "derived.e2.top_bytes_share",
        (total > 0).then(|| top.iter().map(|k| k.1).sum::<u64>() as f64 / total as f64),
    );
    // Time per byte, among kinds that hashed at least a kilobyte (below that, the
    // per-call cost of a handful of hashes is all there is).
    let mut per_byte: Vec<_> = kinds.iter().filter(|k| k.1 >= 1024).collect();
    per_byte.sort_by(|a, b| (b.2 / b.1 as f64).total_cmp(&(a.2 / a.1 as f64)));
    let top: Vec<_> = per_byte.iter().take(3).copied().collect();
    values.insert(
        "derived.e2.slowest_per_byte_kinds".into(),
        names(&top).into(),
    );

    // E3: the dearest interface edit and the dearest text edit.
    let e3 = rows("e3");
    let s3 = size(values, "e3").unwrap_or(0);
    let over_pipeline = |edit: &str| {
        stats::ratio(
            median(e3, edit, "query", s3),
            median(e3, edit, "pipeline", s3),
        )
    };
    let (lo, hi) = min_max(INTERFACE_EDITS.iter().map(|e| over_pipeline(e)));
    put(values, "derived.e3.interface_min_over_pipeline", lo);
    put(values, "derived.e3.interface_over_pipeline", hi);
    let (_, text_hi) = min_max(TEXT_EDITS.iter().map(|e| median(e3, e, "query", s3)));
    put(values, "derived.e3.text_edit_max_ms", text_hi);
    put(
        values,
        "derived.e3.text_edit_over_leaf",
        stats::ratio(text_hi, median(e3, "leaf-body", "query", s3)),
    );

    // E4: the range of the slowdown without cutoff over the edits.
    let e4 = rows("e4");
    let s4 = size(values, "e4").unwrap_or(0);
    let (lo, hi) = min_max(
        e4.iter()
            .filter(|r| r.architecture == "query-cutoff" && r.scenario != "no-change")
            .map(|r| {
                stats::ratio(
                    median(e4, &r.scenario, "query-no-cutoff", s4),
                    median(e4, &r.scenario, "query-cutoff", s4),
                )
            }),
    );
    put(values, "derived.e4.min_nocutoff_over_cutoff", lo);
    put(values, "derived.e4.max_nocutoff_over_cutoff", hi);

    // E6: exponents over actual lines; start-up at the smallest size.
    let e6 = rows("e6");
    put(values, "derived.e6.lines", actual(size(values, "e6")));
    for (scenario, arch) in [
        ("scratch", "pipeline"),
        ("no-change", "query"),
        ("leaf-body", "query"),
    ] {
        put(
            values,
            &format!("derived.e6.slope_{}", scenario.replace('-', "_")),
            slope(e6, &lines, scenario, arch),
        );
    }
    let sizes: Vec<usize> = {
        let mut v: Vec<usize> = e6.iter().map(|r| r.size).filter(|s| *s > 0).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    put(values, "derived.e6.sizes", Some(sizes.len() as f64));
    let (lo, _) = min_max(
        [
            ("scratch", "pipeline"),
            ("no-change", "query"),
            ("leaf-body", "query"),
        ]
        .iter()
        .map(|(s, a)| sizes.first().and_then(|n| outside_share(e6, s, a, *n))),
    );
    put(values, "derived.e6.outside_share_smallest", lo);

    // E7: bytes per actual line, per-file against per-item cache.
    let e7 = rows("e7");
    let s7 = size(values, "e7");
    let n7 = actual(s7);
    put(values, "derived.e7.lines", n7);
    let cache = |arch: &str| s7.and_then(|s| median(e7, "cache-size", arch, s));
    put(
        values,
        "derived.e7.cache_bytes_per_line",
        stats::ratio(cache("query-item"), n7),
    );
    put(
        values,
        "derived.e7.file_over_item_cache",
        stats::ratio(cache("query-file"), cache("query-item")),
    );

    // E8: rustc's lines per second over the actual line count.
    let s8 = size(values, "e8");
    let n8 = actual(s8);
    put(values, "derived.e8.lines", n8);
    let rustc_s = s8
        .and_then(|s| median(rows("e8"), "full", "rustc", s))
        .map(|ms| ms / 1e3);
    put(
        values,
        "derived.e8.rustc_lines_per_s",
        stats::ratio(n8, rustc_s),
    );
    e8_values(values, rows("e8"), &lines);
}

/// The ratio `what` (of `exps::RATIOS`) of E8 for `scenario` at `size`: value, low,
/// high and rounds of its ratio row.
fn e8_ratio(
    rows: &[Row],
    what: &str,
    scenario: &str,
    size: usize,
) -> Option<(f64, f64, f64, usize)> {
    let r = ok_row(
        rows,
        &crate::runner::exps::ratio_scenario(what, scenario),
        "ratio",
        size,
    )?;
    let v = r.median?;
    Some((v, r.low.unwrap_or(v), r.high.unwrap_or(v), r.repetitions))
}

/// `derived.e8.*` over E8's sizes and edits, from its rows (all `null`, texts `n/a`,
/// without them): `sizes` (the nominal sizes, as text), `other.*` at the largest size
/// besides the headline size `e8.size`
/// (`size`, `lines`, `n` rounds, `rustc_full_ms`, and the leaf-body edit's `rustc_leaf_ratio`,
/// `rill_leaf_ratio`, `rill_over_rustc_leaf` with `_low`, `_high`, `_n`, and the
/// no-change rebuild's `rustc_unchanged_ratio`, `rill_unchanged_ratio`); over every size
/// and edit: `edits` (kinds of edit), `cases` (size and edit pairs with both compilers'
/// ratios), `rill_relative_lower` and `rill_relative_higher` (cases in which Rill's
/// rebuild costs a smaller, or a greater, share of its full build than rustc's, the two
/// intervals apart), `rill_faster` (cases in which Rill's rebuild is faster than rustc's,
/// the interval below 1), and the least and greatest of each ratio (`rustc_ratio_min`,
/// `..._max`, `rill_ratio_*`, `rill_over_rustc_*`).
fn e8_values(values: &mut Values, e8: &[Row], lines: &BTreeMap<usize, usize>) {
    let mut sizes: Vec<usize> = e8
        .iter()
        .filter(|r| r.architecture == "rustc" && r.size > 0 && r.is_ok())
        .map(|r| r.size)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let text: Vec<String> = sizes
        .iter()
        .map(|s| super::format_number(*s as f64))
        .collect();
    let text = match text.len() {
        0 => "n/a".to_string(),
        1 => text[0].clone(),
        n => format!("{} and {}", text[..n - 1].join(", "), text[n - 1]),
    };
    values.insert("derived.e8.sizes".into(), text.into());
    // The largest size besides the headline's.
    let headline = num(values, "e8.size").map(|s| s as usize);
    let large = sizes.iter().rev().copied().find(|s| Some(*s) != headline);
    put(values, "derived.e8.other.size", large.map(|s| s as f64));
    put(
        values,
        "derived.e8.other.lines",
        large.and_then(|s| lines.get(&s)).map(|n| *n as f64),
    );
    put(
        values,
        "derived.e8.other.n",
        large
            .and_then(|s| ok_row(e8, "full", "rustc", s))
            .map(|r| r.repetitions as f64),
    );
    put(
        values,
        "derived.e8.other.rustc_full_ms",
        large.and_then(|s| median(e8, "full", "rustc", s)),
    );
    let leaf = crate::runner::exps::patched(crate::runner::exps::LEAF);
    for (key, what, scenario) in [
        ("rustc_leaf_ratio", "rustc/full", leaf.as_str()),
        ("rill_leaf_ratio", "rill/full", leaf.as_str()),
        ("rill_over_rustc_leaf", "rill/rustc", leaf.as_str()),
        ("rustc_unchanged_ratio", "rustc/full", "incr-unchanged"),
        ("rill_unchanged_ratio", "rill/full", "incr-unchanged"),
    ] {
        let r = large.and_then(|s| e8_ratio(e8, what, scenario, s));
        let k = format!("derived.e8.other.{key}");
        put(values, &k, r.map(|r| r.0));
        put(values, &format!("{k}_low"), r.map(|r| r.1));
        put(values, &format!("{k}_high"), r.map(|r| r.2));
        put(values, &format!("{k}_n"), r.map(|r| r.3 as f64));
    }
    let mut edits: Vec<&str> = Vec::new();
    let (mut cases, mut lower, mut higher, mut faster) = (0, 0, 0, 0);
    let mut all: [Vec<f64>; 3] = Default::default();
    for r in e8.iter().filter(|r| r.architecture == "rustc") {
        let Some(edit) = r.scenario.strip_prefix("incr-patched:") else {
            continue;
        };
        if !edits.contains(&edit) {
            edits.push(edit);
        }
        let ratio = |what: &str| e8_ratio(e8, what, &r.scenario, r.size);
        let (rustc, rill, across) = (ratio("rustc/full"), ratio("rill/full"), ratio("rill/rustc"));
        for (v, out) in [rustc, rill, across].iter().zip(all.iter_mut()) {
            out.extend(v.map(|v| v.0));
        }
        if let (Some(a), Some(b)) = (rustc, rill) {
            cases += 1;
            lower += usize::from(b.2 < a.1);
            higher += usize::from(b.1 > a.2);
            faster += usize::from(across.is_some_and(|x| x.2 < 1.0));
        }
    }
    put(values, "derived.e8.edits", Some(edits.len() as f64));
    put(values, "derived.e8.cases", Some(cases as f64));
    put(values, "derived.e8.rill_relative_lower", Some(lower as f64));
    put(
        values,
        "derived.e8.rill_relative_higher",
        Some(higher as f64),
    );
    put(values, "derived.e8.rill_faster", Some(faster as f64));
    for (name, v) in ["rustc_ratio", "rill_ratio", "rill_over_rustc"]
        .iter()
        .zip(&all)
    {
        let (lo, hi) = min_max(v.iter().map(|x| Some(*x)));
        put(values, &format!("derived.e8.{name}_min"), lo);
        put(values, &format!("derived.e8.{name}_max"), hi);
    }
}

/// `derived.e8.phases.<build>.<compiler>_<group>_share`: where rustc (its `-Z time-passes`
/// breakdown, `passes`) and Rill (E8's phase rows, `rill`) spend the no-change rebuild
/// (`unchanged`) and the leaf-body rebuild (`leaf`) at E8's headline size (`e8.size`),
/// by the groups of `exps::GROUPS` and `other`; `null` where either is missing.
pub fn e8_phase_values(
    values: &mut Values,
    passes: &[crate::runner::exps::PassRow],
    rill: &[crate::runner::phases::PhaseRow],
) {
    use crate::runner::exps::{patched, phase_comparison, GROUPS, LEAF};
    let size = num(values, "e8.size").map(|s| s as usize);
    for (build, scenario) in [
        ("unchanged", "incr-unchanged".to_string()),
        ("leaf", patched(LEAF)),
    ] {
        let [rustc, rill] = match size {
            Some(s) => phase_comparison(passes, rill, &scenario, s),
            None => [None, None],
        };
        for (who, shares) in [("rustc", rustc), ("rill", rill)] {
            for g in GROUPS.iter().map(|g| g.0).chain(["other"]) {
                let share = shares
                    .as_ref()
                    .and_then(|v| v.iter().find(|(n, _)| *n == g).map(|(_, x)| *x));
                put(
                    values,
                    &format!("derived.e8.phases.{build}.{who}_{g}_share"),
                    share,
                );
            }
        }
    }
}

/// The rebuilds whose phases the paper cites, by the key part of their values and the
/// kind of build the phases CSV names.
const PHASE_KINDS: [(&str, &str); 2] = [
    ("noop", "query, no change"),
    ("leaf", "query, leaf-body edit"),
];

/// Phases whose time the paper's text names, when the compiler reports them.
const NAMED_PHASES: [&str; 6] = [
    "load_cache",
    "check",
    "codegen",
    "link",
    "save_cache",
    crate::runner::phases::PROCESS,
];

/// `derived.phases.*`: where a no-change rebuild and a leaf-body rebuild spend their time
/// at the largest size of E6's phase breakdown `phases` (default shape), all `null` (texts
/// `n/a`) when there is none. Per kind (`noop`, `leaf`): `total_ms` (the sum of its
/// phases), `list` (every phase with its time, in order), `top` (the dearest phase),
/// `top_ms`, `top_share`, and `<phase>_ms` and `<phase>_share` for the phases of
/// [`NAMED_PHASES`]. Besides: `size`, `lines`, `n` (repetitions), `pipeline_ms` (the
/// pipeline's from-scratch phases summed), `noop_share_of_leaf`, `leaf_extra_ms` (what
/// the edit adds), and `leaf_extra_phase` with `leaf_extra_phase_ms` (the phase that grows
/// most).
pub fn phase_values(values: &mut Values, phases: &[crate::runner::phases::PhaseRow]) {
    use crate::runner::phases::at_largest_size;
    let at = at_largest_size(phases, "e6");
    let of = |build: &str| -> Vec<(&str, f64)> {
        at.iter()
            .filter(|p| p.build == build)
            .map(|p| (p.phase.as_str(), p.ms))
            .collect()
    };
    let total = |v: &[(&str, f64)]| (!v.is_empty()).then(|| v.iter().map(|p| p.1).sum::<f64>());
    let first = at.first();
    put(
        values,
        "derived.phases.size",
        first.map(|p| p.size as f64).filter(|s| *s > 0.0),
    );
    put(
        values,
        "derived.phases.lines",
        first.and_then(|p| p.lines).map(|n| n as f64),
    );
    put(
        values,
        "derived.phases.n",
        at.iter()
            .map(|p| p.n)
            .max()
            .filter(|n| *n > 0)
            .map(|n| n as f64),
    );
    put(
        values,
        "derived.phases.pipeline_ms",
        total(&of("pipeline, from scratch")),
    );
    let mut totals = Vec::new();
    for (key, build) in PHASE_KINDS {
        let parts = of(build);
        let sum = total(&parts);
        totals.push(sum);
        let k = |name: &str| format!("derived.phases.{key}.{name}");
        put(values, &k("total_ms"), sum);
        let list = parts
            .iter()
            .map(|(p, ms)| format!("`{p}` {} ms", super::format_sig(*ms)))
            .collect::<Vec<_>>()
            .join(", ");
        let text = |s: String| serde_json::Value::from(if s.is_empty() { "n/a".into() } else { s });
        values.insert(k("list"), text(list));
        let top = parts
            .iter()
            .copied()
            .reduce(|a, b| if b.1 > a.1 { b } else { a });
        values.insert(
            k("top"),
            text(top.map_or(String::new(), |t| t.0.to_string())),
        );
        put(values, &k("top_ms"), top.map(|t| t.1));
        put(values, &k("top_share"), stats::ratio(top.map(|t| t.1), sum));
        for phase in NAMED_PHASES {
            let ms = parts.iter().find(|p| p.0 == phase).map(|p| p.1);
            put(values, &k(&format!("{phase}_ms")), ms);
            put(values, &k(&format!("{phase}_share")), stats::ratio(ms, sum));
        }
    }
    put(
        values,
        "derived.phases.noop_share_of_leaf",
        stats::ratio(totals[0], totals[1]),
    );
    put(
        values,
        "derived.phases.leaf_extra_ms",
        totals[0].zip(totals[1]).map(|(a, b)| b - a),
    );
    let (noop, leaf) = (of(PHASE_KINDS[0].1), of(PHASE_KINDS[1].1));
    let growth = leaf
        .iter()
        .map(|(p, ms)| {
            let before = noop.iter().find(|q| q.0 == *p).map_or(0.0, |q| q.1);
            (*p, ms - before)
        })
        .reduce(|a, b| if b.1 > a.1 { b } else { a })
        .filter(|_| !noop.is_empty());
    values.insert(
        "derived.phases.leaf_extra_phase".into(),
        growth.map_or("n/a".to_string(), |g| g.0.to_string()).into(),
    );
    put(
        values,
        "derived.phases.leaf_extra_phase_ms",
        growth.map(|g| g.1),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scenario: &str, arch: &str, size: usize, median: f64) -> Row {
        let mut r = Row::new(scenario, arch, size);
        r.median = Some(median);
        r.repetitions = 3;
        r
    }

    /// E8's ratio row of `what` for `scenario` at `size`, with its interval.
    fn e8_ratio_row(what: &str, scenario: &str, size: usize, v: [f64; 3]) -> Row {
        let scenario = crate::runner::exps::ratio_scenario(what, scenario);
        let mut r = row(&scenario, "ratio", size, v[0]);
        (r.low, r.high) = (Some(v[1]), Some(v[2]));
        r
    }

    #[test]
    fn e8_fault_values_find_the_slow_builds_from_scratch() {
        use crate::runner::samples::Sample;
        let sample =
            |scenario: &str, arch: &str, size: usize, user: f64, sys: f64, faults| Sample {
                scenario: scenario.into(),
                architecture: arch.into(),
                size,
                cpu_user_ms: user,
                cpu_sys_ms: sys,
                minor_faults: faults,
                exit: Some(0),
                ..Sample::default()
            };
        let mut samples = Vec::new();
        // Rill's query build from scratch: three ordinary rounds, one with 40 ms more of
        // system time at the same faults.
        for sys in [2.0, 3.0, 2.5, 42.0] {
            samples.push(sample("full", "rill-query", 10_000, 30.0, sys, Some(5_000)));
        }
        // The pipeline: ordinary. Not counted: rustc, a rebuild, another size, an old
        // sample without faults. Rebuilds are counted apart.
        for sys in [1.0, 2.0, 1.5] {
            samples.push(sample(
                "full",
                "rill-pipeline",
                10_000,
                20.0,
                sys,
                Some(4_000),
            ));
        }
        samples.push(sample("full", "rustc", 10_000, 500.0, 400.0, Some(40_000)));
        samples.push(sample(
            "incr-unchanged",
            "rill-query",
            10_000,
            3.0,
            90.0,
            Some(900),
        ));
        samples.push(sample(
            "full",
            "rill-query",
            100_000,
            300.0,
            90.0,
            Some(30_000),
        ));
        samples.push(sample("incr-full", "rill-query", 10_000, 30.0, 80.0, None));
        for user in [3.0, 3.5, 3.2] {
            samples.push(sample(
                "incr-unchanged",
                "rill-query",
                10_000,
                user,
                0.0,
                Some(900),
            ));
        }
        let mut v = Values::new();
        e8_fault_values(&mut v, &samples);
        assert!(
            v["derived.e8.faults.builds"].is_null(),
            "no headline size: no values"
        );
        v.insert("e8.size".into(), 10_000.into());
        e8_fault_values(&mut v, &samples);
        let n = |k: &str| {
            v[&format!("derived.e8.faults.{k}")]
                .as_f64()
                .unwrap_or(f64::NAN)
        };
        assert_eq!(n("builds"), 7.0);
        assert_eq!(n("sys_ms_median"), 2.0);
        assert_eq!(n("sys_ms_max"), 42.0);
        assert_eq!((n("faults_min"), n("faults_max")), (4_000.0, 5_000.0));
        assert_eq!(n("slow"), 1.0);
        // The slow round took 72 ms against its configuration's median of 32.75.
        assert_eq!(n("slow_extra_ms"), 72.0 - 32.75);
        // Rebuilds: 3.0, 3.2, 3.5 and one of 93 ms.
        assert_eq!((n("rebuilds"), n("rebuild_slow")), (4.0, 1.0));
        e8_fault_values(&mut v, &[]);
        assert!(v["derived.e8.faults.slow"].is_null());
    }

    #[test]
    fn e8_values_count_the_edits_by_their_intervals() {
        let mut e8 = Vec::new();
        for (size, n) in [(10_000, 9_475), (100_000, 93_250)] {
            let mut full = row("full", "rustc", size, 500.0);
            full.lines = Some(n);
            e8.push(full);
            for edit in ["leaf-body", "signature"] {
                e8.push(row(&format!("incr-patched:{edit}"), "rustc", size, 300.0));
            }
        }
        let leaf = "incr-patched:leaf-body";
        let sig = "incr-patched:signature";
        // At 10,000 lines Rill's share is clearly lower for the leaf edit and overlaps
        // rustc's for the signature; at 100,000 lines clearly lower and clearly higher.
        for (what, scenario, size, v) in [
            ("rustc/full", leaf, 10_000, [0.7, 0.65, 0.75]),
            ("rill/full", leaf, 10_000, [0.2, 0.18, 0.22]),
            ("rill/rustc", leaf, 10_000, [0.02, 0.01, 0.03]),
            ("rustc/full", sig, 10_000, [0.8, 0.7, 0.9]),
            ("rill/full", sig, 10_000, [0.85, 0.6, 1.1]),
            ("rill/rustc", sig, 10_000, [0.9, 0.8, 1.2]),
            ("rustc/full", leaf, 100_000, [0.5, 0.45, 0.55]),
            ("rill/full", leaf, 100_000, [0.1, 0.09, 0.11]),
            ("rill/rustc", leaf, 100_000, [0.05, 0.04, 0.06]),
            ("rustc/full", sig, 100_000, [0.3, 0.25, 0.35]),
            ("rill/full", sig, 100_000, [0.6, 0.5, 0.7]),
            ("rill/rustc", sig, 100_000, [0.5, 0.4, 0.6]),
            ("rustc/full", "incr-unchanged", 100_000, [0.4, 0.35, 0.45]),
        ] {
            e8.push(e8_ratio_row(what, scenario, size, v));
        }
        let lines = actual_lines(&[("e8".to_string(), e8.clone())].into_iter().collect());
        let mut v = Values::new();
        v.insert("e8.size".into(), 10_000.into());
        e8_values(&mut v, &e8, &lines);
        let n = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        assert_eq!(v["derived.e8.sizes"], "10,000 and 100,000");
        assert_eq!(n("derived.e8.other.size"), 100_000.0);
        assert_eq!(n("derived.e8.other.lines"), 93_250.0);
        assert_eq!(n("derived.e8.other.n"), 3.0);
        assert_eq!(n("derived.e8.other.rustc_full_ms"), 500.0);
        assert_eq!(n("derived.e8.other.rill_leaf_ratio"), 0.1);
        assert_eq!(n("derived.e8.other.rill_leaf_ratio_high"), 0.11);
        assert_eq!(n("derived.e8.other.rustc_unchanged_ratio"), 0.4);
        assert!(v["derived.e8.other.rill_unchanged_ratio"].is_null());
        assert_eq!(n("derived.e8.edits"), 2.0);
        assert_eq!(n("derived.e8.cases"), 4.0);
        assert_eq!(n("derived.e8.rill_relative_lower"), 2.0);
        assert_eq!(n("derived.e8.rill_relative_higher"), 1.0);
        assert_eq!(n("derived.e8.rill_faster"), 3.0);
        assert_eq!(n("derived.e8.rustc_ratio_min"), 0.3);
        assert_eq!(n("derived.e8.rill_ratio_max"), 0.85);
        assert_eq!(n("derived.e8.rill_over_rustc_max"), 0.9);
        // Without rows: every value there, null or `n/a`.
        let mut v = Values::new();
        e8_values(&mut v, &[], &BTreeMap::new());
        assert_eq!(v["derived.e8.sizes"], "n/a");
        assert!(v["derived.e8.other.rill_leaf_ratio_low"].is_null());
        assert_eq!(v["derived.e8.cases"], 0.0);
    }

    #[test]
    fn e8_phase_values_compare_the_groups_of_both_compilers() {
        use crate::runner::exps::PassRow;
        use crate::runner::phases::PhaseRow;
        let pass = |scenario: &str, pass: &str, ms: f64| PassRow {
            scenario: scenario.into(),
            size: 10_000,
            lines: 9_475,
            pass: pass.into(),
            group: String::new(),
            ms,
        };
        let phase = |phase: &str, ms: f64| PhaseRow {
            experiment: "e8".into(),
            shape: "default".into(),
            size: 10_000,
            lines: Some(9_475),
            build: String::new(),
            scenario: "incr-patched:leaf-body".into(),
            architecture: "rill-query".into(),
            phase: phase.into(),
            ms,
            n: 10,
        };
        let leaf = "incr-patched:leaf-body";
        let passes = [
            pass(leaf, "parse_crate", 10.0),
            pass(leaf, "link_crate", 30.0),
            pass(leaf, "link", 30.0),
            pass(leaf, "total", 100.0),
        ];
        let rill = [
            phase("load_cache", 2.0),
            phase("check", 1.0),
            phase("link", 1.0),
            phase(crate::runner::phases::PROCESS, 50.0),
        ];
        let mut v = Values::new();
        v.insert("e8.size".into(), 10_000.into());
        e8_phase_values(&mut v, &passes, &rill);
        let n = |k: &str| v[k].as_f64().unwrap();
        // Nested passes count once; the rest of `total` is `other`.
        assert!((n("derived.e8.phases.leaf.rustc_link_share") - 0.3).abs() < 1e-9);
        assert!((n("derived.e8.phases.leaf.rustc_frontend_share") - 0.1).abs() < 1e-9);
        assert!((n("derived.e8.phases.leaf.rustc_other_share") - 0.6).abs() < 1e-9);
        // Rill's shares are of the compiler's own time, without the process's.
        assert!((n("derived.e8.phases.leaf.rill_cache_share") - 0.5).abs() < 1e-9);
        assert!((n("derived.e8.phases.leaf.rill_frontend_share") - 0.25).abs() < 1e-9);
        assert!(v["derived.e8.phases.unchanged.rustc_link_share"].is_null());
    }

    #[test]
    fn per_line_values_use_actual_lines() {
        let mut tables = Tables::new();
        let mut e1 = Vec::new();
        for (size, n) in [(1000, 1007), (100_000, 93_250)] {
            let mut r = row("throughput", "pipeline", size, 1e6);
            r.note = format!("{n} lines / sum of phases_ms (parse to link)");
            e1.push(r);
        }
        tables.insert("e1".into(), e1);
        assert_eq!(actual_lines(&tables)[&100_000], 93_250);
        // The `lines` column, where there is one, is the count (and other shapes' rows
        // are not).
        let mut with_column = tables.clone();
        let mut other = row("scratch", "pipeline", 100_000, 1.0);
        other.shape = "small-fns".into();
        other.lines = Some(99_999);
        let mut own = row("scratch", "pipeline", 100_000, 1.0);
        own.lines = Some(93_251);
        with_column.insert("e3".into(), vec![other, own]);
        assert_eq!(actual_lines(&with_column)[&100_000], 93_251);
        tables.insert(
            "e7".into(),
            vec![row("cache-size", "query-item", 100_000, 8_824_601.0)],
        );
        tables.insert(
            "e6".into(),
            vec![
                row("scratch", "pipeline", 1000, 1007.0 * 2.0),
                row("scratch", "pipeline", 100_000, 93_250.0 * 2.0),
            ],
        );
        let mut v = Values::new();
        v.insert("e7.size".into(), 100_000.into());
        v.insert("e8.size".into(), 10_000.into());
        derive(&mut v, &tables);
        let bpl = v["derived.e7.cache_bytes_per_line"].as_f64().unwrap();
        assert!((bpl - 94.63).abs() < 0.01, "{bpl}");
        // Time proportional to actual lines: exponent 1 (nominal sizes would give 0.985).
        let k = v["derived.e6.slope_scratch"].as_f64().unwrap();
        assert!((k - 1.0).abs() < 1e-9, "{k}");
        // E8's size was not measured by E1: no per-line value.
        assert!(v["derived.e8.rustc_lines_per_s"].is_null());
        // No shapes measured: every per-shape value is there, and null.
        assert!(v["derived.e3.leaf_edit_over_pipeline.small_fns"].is_null());
        assert!(v["derived.e3.leaf_edit_over_pipeline.shape_spread"].is_null());
    }

    #[test]
    fn phase_values_describe_the_rebuilds_at_the_largest_size() {
        use crate::runner::phases::PhaseRow;
        let p = |build: &str, size: usize, phase: &str, ms: f64| PhaseRow {
            experiment: "e6".into(),
            shape: "default".into(),
            size,
            lines: Some(size - 10),
            build: build.into(),
            scenario: String::new(),
            architecture: String::new(),
            phase: phase.into(),
            ms,
            n: 5,
        };
        let rows = vec![
            p("query, no change", 1000, "load_cache", 100.0),
            p("query, no change", 10000, "load_cache", 8.0),
            p("query, no change", 10000, "check", 4.0),
            p("query, no change", 10000, "process", 4.0),
            p("query, leaf-body edit", 10000, "load_cache", 8.0),
            p("query, leaf-body edit", 10000, "check", 5.0),
            p("query, leaf-body edit", 10000, "save_cache", 14.0),
            p("query, leaf-body edit", 10000, "process", 3.0),
            p("pipeline, from scratch", 10000, "typeck", 150.0),
            p("pipeline, from scratch", 10000, "process", 50.0),
        ];
        let mut v = Values::new();
        phase_values(&mut v, &rows);
        let n = |k: &str| v[k].as_f64().unwrap();
        assert_eq!(n("derived.phases.size"), 10000.0);
        assert_eq!(n("derived.phases.lines"), 9990.0);
        assert_eq!(n("derived.phases.n"), 5.0);
        assert_eq!(n("derived.phases.pipeline_ms"), 200.0);
        assert_eq!(n("derived.phases.noop.total_ms"), 16.0);
        assert_eq!(n("derived.phases.leaf.total_ms"), 30.0);
        assert_eq!(v["derived.phases.noop.top"], "load_cache");
        assert_eq!(n("derived.phases.noop.top_share"), 0.5);
        assert_eq!(
            v["derived.phases.noop.list"],
            "`load_cache` 8.00 ms, `check` 4.00 ms, `process` 4.00 ms"
        );
        assert_eq!(n("derived.phases.leaf.save_cache_ms"), 14.0);
        assert!(v["derived.phases.noop.save_cache_ms"].is_null());
        assert_eq!(n("derived.phases.leaf_extra_ms"), 14.0);
        assert_eq!(v["derived.phases.leaf_extra_phase"], "save_cache");
        assert_eq!(n("derived.phases.leaf_extra_phase_ms"), 14.0);
        // No breakdown: every value is there, and null or n/a.
        let mut v = Values::new();
        phase_values(&mut v, &[]);
        assert!(v["derived.phases.leaf_extra_ms"].is_null());
        assert_eq!(v["derived.phases.leaf.top"], "n/a");
    }

    #[test]
    fn shape_spread_is_largest_over_smallest() {
        let mut v = Values::new();
        for (s, x) in [("default", 0.2), ("small_fns", 0.5), ("big_fns", 0.25)] {
            v.insert(format!("e6.noop_over_pipeline.{s}"), x.into());
        }
        derive(&mut v, &Tables::new());
        let k = v["derived.e6.noop_over_pipeline.shape_spread"]
            .as_f64()
            .unwrap();
        assert!((k - 2.5).abs() < 1e-9, "{k}");
        assert_eq!(
            v["derived.e6.noop_over_pipeline.big_fns"].as_f64(),
            Some(0.25)
        );
        assert!(v["derived.e1.query_over_pipeline.shape_spread"].is_null());
    }
}

/// `derived.e8.faults.*`: what fresh memory cost E8's Rill builds from scratch (`full`,
/// `incr-full`) at its headline size, from the raw samples (`samples`): their number
/// (`builds`), the median and largest system time (`sys_ms_median`, `sys_ms_max`), the
/// smallest and largest number of page faults (`faults_min`, `faults_max`), and how many
/// took more than 1.5 times the median CPU time of their configuration (`slow`), with
/// the median of what those took beyond it (`slow_extra_ms`); and of Rill's rebuilds at
/// that size, their number (`rebuilds`) and how many were slow by the same rule
/// (`rebuild_slow`). All `null` without samples that carry page faults.
pub fn e8_fault_values(values: &mut Values, samples: &[crate::runner::samples::Sample]) {
    let keys = [
        "builds",
        "sys_ms_median",
        "sys_ms_max",
        "faults_min",
        "faults_max",
        "slow",
        "slow_extra_ms",
        "rebuilds",
        "rebuild_slow",
    ];
    for k in keys {
        put(values, &format!("derived.e8.faults.{k}"), None);
    }
    let Some(size) = num(values, "e8.size").map(|s| s as usize) else {
        return;
    };
    let rill: Vec<_> = samples
        .iter()
        .filter(|s| s.size == size && s.exit == Some(0))
        .filter(|s| s.architecture.starts_with("rill") && s.minor_faults.is_some())
        .collect();
    let (scratch, rebuilds): (Vec<_>, Vec<_>) = rill
        .into_iter()
        .partition(|s| matches!(s.scenario.as_str(), "full" | "incr-full"));
    if scratch.is_empty() {
        return;
    }
    // The builds of each configuration that took more than 1.5 times its median CPU
    // time, by what they took beyond it.
    let slow = |builds: &[&crate::runner::samples::Sample]| {
        let mut configs: BTreeMap<(&str, &str), Vec<f64>> = BTreeMap::new();
        for s in builds {
            configs
                .entry((&s.scenario, &s.architecture))
                .or_default()
                .push(s.cpu_ms());
        }
        let mut extra = Vec::new();
        for cpu in configs.values() {
            let Some(m) = stats::median(cpu) else {
                continue;
            };
            extra.extend(cpu.iter().filter(|c| **c > 1.5 * m).map(|c| c - m));
        }
        extra
    };
    let sys: Vec<f64> = scratch.iter().map(|s| s.cpu_sys_ms).collect();
    let faults = scratch.iter().filter_map(|s| s.minor_faults);
    let extra = slow(&scratch);
    put(
        values,
        "derived.e8.faults.builds",
        Some(scratch.len() as f64),
    );
    put(
        values,
        "derived.e8.faults.sys_ms_median",
        stats::median(&sys),
    );
    put(
        values,
        "derived.e8.faults.sys_ms_max",
        sys.iter().copied().reduce(f64::max),
    );
    put(
        values,
        "derived.e8.faults.faults_min",
        faults.clone().min().map(|f| f as f64),
    );
    put(
        values,
        "derived.e8.faults.faults_max",
        faults.max().map(|f| f as f64),
    );
    put(values, "derived.e8.faults.slow", Some(extra.len() as f64));
    put(
        values,
        "derived.e8.faults.slow_extra_ms",
        stats::median(&extra),
    );
    put(
        values,
        "derived.e8.faults.rebuilds",
        Some(rebuilds.len() as f64),
    );
    put(
        values,
        "derived.e8.faults.rebuild_slow",
        Some(slow(&rebuilds).len() as f64),
    );
}
