//! The experiment runner: statistics, CSV files, summary keys, template filling, and a
//! smoke run of the whole suite on tiny programs against the real `rill` binary, whose
//! CSVs must hold real rows and whose values must fill the paper's template.

use std::collections::BTreeMap;
use std::path::PathBuf;

use experiments::runner::paper;
use experiments::runner::phases;
use experiments::runner::stats::{spread, Interval};
use experiments::runner::summary;
use experiments::runner::table::{self, Row};
use experiments::runner::{self, exps, Ctx, Profile};

#[test]
fn spread_is_median_min_max() {
    let s = spread(&[12.0, 10.0, 11.0, 50.0, 9.0]).unwrap();
    assert_eq!((s.median, s.min, s.max, s.n), (11.0, 9.0, 50.0, 5));
}

#[test]
fn csv_round_trips_and_keeps_missing_numbers_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e01-x.csv");
    let mut ok = Row::new("scratch", "pipeline", 1000).with_spread(spread(&[3.0, 1.0, 2.0]), "ms");
    ok.executed = Some(7);
    let gone = Row::new("scratch", "query-disk", 1000).without_number("unavailable: not built");
    table::write_csv(&path, &[ok.clone(), gone.clone()]).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), table::COLUMNS.join(","));
    assert_eq!(
        lines.next().unwrap(),
        "scratch,pipeline,1000,3,2.0,1.0,3.0,ms,7,,,,,,,,ok,,,,,,default,"
    );
    assert_eq!(
        lines.next().unwrap(),
        "scratch,query-disk,1000,0,,,,ms,,,,,,,,,unavailable: not built,,,,,,default,"
    );
    assert_eq!(table::read_csv(&path).unwrap(), vec![ok, gone]);
    // A CSV written before the columns cpu_ms, low, high, instructions, shape and lines
    // still reads (as the default shape, without a line count).
    let old = dir.path().join("e01-old.csv");
    let header = table::COLUMNS[..table::COLUMNS.len() - 6].join(",");
    std::fs::write(
        &old,
        format!("{header}\nscratch,pipeline,1000,3,2.0,1.0,3.0,ms,7,,,,,,,,ok,\n"),
    )
    .unwrap();
    let rows = table::read_csv(&old).unwrap();
    assert_eq!(rows[0].median, Some(2.0));
    assert_eq!(rows[0].low, None);
    assert_eq!((rows[0].shape.as_str(), rows[0].lines), ("default", None));
    assert!(rows[0].is_default_shape());
}

fn iv(value: f64, low: f64, high: f64, n: usize) -> Interval {
    Interval {
        value,
        low,
        high,
        n,
    }
}

#[test]
fn summary_has_every_key_and_reasons_for_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("summary.json");
    summary::update(
        &path,
        &[
            (
                "e1_query_over_pipeline".to_string(),
                Ok(iv(1.25, 1.15, 1.4, 10)),
            ),
            (
                "e2_hash_share".to_string(),
                Err("no query build".to_string()),
            ),
        ],
    )
    .unwrap();
    // A later run of one experiment keeps the other keys.
    let v = summary::update(
        &path,
        &[(
            "pipeline_lines_per_s".to_string(),
            Ok(iv(2e6, 1.9e6, 2.1e6, 10)),
        )],
    )
    .unwrap();
    for key in summary::KEYS {
        assert!(v.get(*key).is_some(), "{key} missing");
    }
    // Every headline is `{value, low, high, n}`.
    assert_eq!(
        v["e1_query_over_pipeline"],
        serde_json::json!({ "value": 1.25, "low": 1.15, "high": 1.4, "n": 10 })
    );
    assert_eq!(v["pipeline_lines_per_s"]["value"], 2e6);
    assert_eq!(
        summary::from_json(&v["e1_query_over_pipeline"]),
        Some(iv(1.25, 1.15, 1.4, 10))
    );
    assert!(v["e2_hash_share"].is_null());
    assert_eq!(v["null_reasons"]["e2_hash_share"], "no query build");
    assert_eq!(
        v["null_reasons"]["e9_jit_over_rustc_o0"],
        "not measured yet"
    );
    assert!(v["null_reasons"].get("e1_query_over_pipeline").is_none());
    // The paper reads a headline as four values.
    let (values, _) = paper::load_results(dir.path()).unwrap();
    assert_eq!(values["e1_query_over_pipeline"], 1.25);
    assert_eq!(values["e1_query_over_pipeline_low"], 1.15);
    assert_eq!(values["e1_query_over_pipeline_high"], 1.4);
    assert_eq!(values["e1_query_over_pipeline_n"], 10.0);
    assert!(values["e2_hash_share"].is_null());
    // The goal (at most 1.10) lies below the whole interval: missed.
    assert_eq!(values["goal.e1_query_over_pipeline"], "missed");
    // A summary of the old shape (bare numbers) is not taken for a headline.
    std::fs::write(&path, r#"{"e1_query_over_pipeline": 1.5}"#).unwrap();
    let v = summary::update(&path, &[]).unwrap();
    assert!(v["e1_query_over_pipeline"].is_null());
}

#[test]
fn template_filling() {
    let mut values = BTreeMap::new();
    values.insert("a".to_string(), serde_json::json!(1234567.0));
    values.insert("r".to_string(), serde_json::json!(1.0523));
    values.insert("s".to_string(), serde_json::json!(0.0342));
    values.insert("n".to_string(), serde_json::Value::Null);
    values.insert("t".to_string(), serde_json::json!("words"));
    let mut tables = BTreeMap::new();
    tables.insert(
        "e1".to_string(),
        vec![Row::new("scratch", "pipeline", 1000).with_spread(spread(&[2.5]), "ms")],
    );
    let out = paper::fill(
        "A {{a}} r {{ r }} s {{s}} p {{pct:s}} n {{n}} t {{t}}\n{{table:e1}}",
        &values,
        &tables,
    )
    .unwrap();
    assert!(
        out.starts_with("A 1,234,567 r 1.05 s 0.0342 p 3.42 % n n/a t words\n| scenario"),
        "{out}"
    );
    assert!(
        out.contains("| scratch | pipeline | 1,000 | 1 | 2.50 |"),
        "{out}"
    );
    let err = paper::fill("{{a}} {{missing}} {{table:e9}}", &values, &tables).unwrap_err();
    assert!(err.contains("missing") && err.contains("table:e9"), "{err}");
    assert!(paper::fill("{{a", &values, &tables).is_err());
}

/// The whole suite on 300-line programs (two rounds, one E9 program): every CSV has
/// rows, the pipeline's rows carry real numbers, rows without numbers say why, and the
/// values fill the real template into a paper of at least 2500 words.
#[test]
fn smoke_run_of_the_suite_fills_the_paper() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let paper_dir = dir.path().join("paper");
    std::fs::create_dir_all(&paper_dir).unwrap();
    let template = runner::workspace_root().join("paper/template.md");
    std::fs::copy(&template, paper_dir.join("template.md")).unwrap();
    let ctx = Ctx::new(
        Profile::tiny(),
        PathBuf::from(env!("CARGO_BIN_EXE_rill")),
        dir.path().join("work"),
        results.clone(),
        paper_dir.clone(),
    );
    let ids: Vec<String> = exps::ALL.iter().map(|e| e.id.to_string()).collect();
    let report = runner::run_suite(&ctx, &ids, false, true).unwrap();
    assert!(
        report.warnings.iter().all(|w| !w.starts_with("paper")),
        "{:?}",
        report.warnings
    );
    for e in exps::ALL {
        let rows = table::read_csv(&results.join(exps::csv_name(e))).unwrap();
        assert!(!rows.is_empty(), "{} has no rows", e.id);
        for r in &rows {
            if r.status == "ok" {
                assert!(r.median.is_some() && r.repetitions >= 1, "{r:?}");
            } else {
                assert!(r.median.is_none(), "{r:?}");
                assert!(
                    r.status.starts_with("unavailable") || r.status.starts_with("failed"),
                    "{r:?}"
                );
            }
        }
    }
    let e1 = table::read_csv(&results.join("e01-scratch.csv")).unwrap();
    let pipe = table::find(&e1, "scratch", "pipeline", 300).unwrap();
    assert_eq!(pipe.status, "ok");
    assert!(pipe.median.unwrap() > 0.0 && pipe.compile_ms.unwrap() > 0.0);
    let end_to_end = table::median_of(&e1, "throughput", "pipeline", 300).unwrap();
    assert!(end_to_end > 1000.0);
    // Each stage takes part of the time of the whole, in every run: its throughput is
    // higher.
    for stage in ["parse", "check", "lower", "optimize", "codegen"] {
        let lps = table::median_of(&e1, &format!("throughput {stage}"), "pipeline", 300)
            .unwrap_or_else(|| panic!("no throughput row for {stage}"));
        assert!(lps >= end_to_end, "{stage}: {lps} < {end_to_end}");
    }
    // E1, E3 and E6 measure every shape; each row of a program carries its actual lines.
    for (csv, scenario) in [
        ("e01-scratch.csv", "scratch"),
        ("e03-edits.csv", "leaf-body"),
        ("e06-scaling.csv", "no-change"),
    ] {
        let rows = table::read_csv(&results.join(csv)).unwrap();
        for shape in ["default", "small-fns", "big-fns"] {
            let r = rows
                .iter()
                .find(|r| r.shape == shape && r.scenario == scenario)
                .unwrap_or_else(|| panic!("{csv}: no {scenario} row of shape {shape}"));
            let lines = r.lines.unwrap_or_else(|| panic!("{csv}: {r:?}"));
            assert!(lines > 100 && lines < 1000, "{csv}: {r:?}");
        }
        let ratio = rows
            .iter()
            .find(|r| r.shape == "small-fns" && r.scenario.starts_with("ratio:"));
        assert!(ratio.is_some(), "{csv}: no ratio row of small-fns");
    }
    // E3 and E6 break each query build kind down into phases: the expected columns, and
    // phases that add up to about the builds' median wall time.
    for (id, kinds) in [
        ("e3", &["no-change", "leaf-body", "add-fn", "signature"][..]),
        ("e6", &["no-change", "leaf-body"][..]),
    ] {
        let path = results.join(phases::csv_name(id));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next().unwrap(), phases::COLUMNS.join(","));
        let rows = phases::read_csv(&path);
        let table = table::read_csv(&results.join(exps::csv_name(
            exps::ALL.iter().find(|e| e.id == id).unwrap(),
        )))
        .unwrap();
        for kind in kinds {
            let of: Vec<&phases::PhaseRow> = rows
                .iter()
                .filter(|r| r.scenario == *kind && r.architecture == "query")
                .filter(|r| r.shape == "default" && r.size == 300)
                .collect();
            let names: Vec<&str> = of.iter().map(|r| r.phase.as_str()).collect();
            for phase in [
                "load_cache",
                "check",
                phases::COMPILER_OTHER,
                phases::PROCESS,
            ] {
                assert!(names.contains(&phase), "{id} {kind}: {names:?}");
            }
            assert!(
                of.iter()
                    .all(|r| r.experiment == id && r.n == 2 && r.lines.is_some()),
                "{id} {kind}: {of:?}"
            );
            // A sum of medians against the median of the sums: close, not equal.
            let sum: f64 = of.iter().map(|r| r.ms).sum();
            let wall = table::median_of(&table, kind, "query", 300).unwrap();
            assert!(
                (sum - wall).abs() <= 0.25 * wall,
                "{id} {kind}: phases {sum} ms, wall {wall} ms"
            );
            let row = table::find(&table, kind, "query", 300).unwrap();
            let driver: f64 = of
                .iter()
                .filter(|r| r.phase != phases::PROCESS)
                .map(|r| r.ms)
                .sum();
            let total = row.compile_ms.unwrap();
            assert!(
                (driver - total).abs() <= 0.25 * total + 0.05,
                "{id} {kind}: phases {driver} ms, total_ms {total} ms"
            );
        }
    }
    assert!(results.join("figures/e6-phases.svg").is_file());
    let e9 = table::read_csv(&results.join("e09-codegen.csv")).unwrap();
    assert!(
        table::median_of(&e9, "matmul", "rustc-O0", 44).is_some(),
        "{e9:?}"
    );
    assert!(
        table::median_of(&e9, "matmul", "jit", 44).is_some(),
        "{e9:?}"
    );
    // E8 builds both sizes of the profile and every edit rustc accepts, rustc and Rill in
    // the same rounds; every row carries the program's actual lines.
    let e8 = table::read_csv(&results.join("e08-rustc.csv")).unwrap();
    let e8_values: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("values.json")).unwrap())
            .unwrap();
    for size in [300, 600] {
        for (scenario, arch) in [
            ("full", "rustc"),
            ("incr-unchanged", "rustc"),
            ("incr-patched:leaf-body", "rustc"),
            ("incr-patched:signature", "rustc"),
            ("incr-patched:struct-field", "rill-query"),
            ("incr-patched:remove-fn", "rill-query-stat"),
            ("full", "rill-pipeline"),
        ] {
            let r = table::find(&e8, scenario, arch, size)
                .unwrap_or_else(|| panic!("e8: no {scenario}/{arch} at {size}"));
            assert_eq!(r.status, "ok", "{r:?}");
            assert_eq!(r.repetitions, 2, "{r:?}");
            assert!(r.lines.is_some_and(|n| n > size / 2), "{r:?}");
        }
        let ratio = table::find(
            &e8,
            &exps::ratio_scenario("rill/rustc", "incr-patched:add-fn"),
            "ratio",
            size,
        )
        .unwrap_or_else(|| panic!("e8: no ratio row at {size}"));
        assert!(
            ratio.low.unwrap() <= ratio.median.unwrap()
                && ratio.median.unwrap() <= ratio.high.unwrap()
        );
        let k = format!("e8.s{size}.incr_patched_add_fn.rill_over_rustc");
        for suffix in ["", "_low", "_high", "_n"] {
            assert!(
                e8_values
                    .get(format!("{k}{suffix}"))
                    .is_some_and(|v| !v.is_null()),
                "{k}{suffix}"
            );
        }
    }
    // rustc cannot take an ill-formed program: the error edits are E3's only.
    assert!(e8.iter().all(|r| !r.scenario.contains("error")), "{e8:?}");
    // The throughput over the actual line count.
    let lines = table::find(&e8, "full", "rustc", 300)
        .unwrap()
        .lines
        .unwrap() as f64;
    let rustc_ms = table::median_of(&e8, "full", "rustc", 300).unwrap();
    let lps = e8_values["e8.rustc_lines_per_s"].as_f64().unwrap();
    assert!((lps - lines / (rustc_ms / 1e3)).abs() < 1e-6 * lps, "{lps}");
    // rustc's breakdown from `-Z time-passes`, one build per scenario of rustc-perf, and
    // Rill's phases of the same scenarios.
    let passes = exps::read_passes_csv(&results.join("e08-rustc-phases.csv"));
    // At the headline size only.
    assert!(passes.iter().all(|p| p.size == 300), "{passes:?}");
    for size in [300] {
        for scenario in [
            "full",
            "incr-full",
            "incr-unchanged",
            "incr-patched:leaf-body",
        ] {
            let of = |pass: &str| {
                passes
                    .iter()
                    .find(|p| p.scenario == scenario && p.size == size && p.pass == pass)
                    .unwrap_or_else(|| panic!("no {pass} in rustc's {scenario} at {size}"))
            };
            assert!(of("total").ms > 0.0);
            assert_eq!(of("link").group, "link");
            assert!(of("link").ms <= of("total").ms);
        }
    }
    let e8_phases = phases::read_csv(&results.join(phases::csv_name("e8")));
    assert!(
        e8_phases
            .iter()
            .any(|p| p.scenario == "incr-patched:leaf-body"
                && p.architecture == "rill-query"
                && p.phase == "load_cache"
                && p.size == 600
                && p.lines.is_some()),
        "{e8_phases:?}"
    );
    let summary = &report.summary;
    assert!(summary["pipeline_lines_per_s"]["value"].as_f64().unwrap() > 0.0);
    assert!(summary["e9_jit_over_rustc_o0"]["value"].as_f64().unwrap() > 0.0);
    for key in summary::KEYS {
        let v = &summary[*key];
        match summary::from_json(v) {
            Some(i) => {
                assert!(i.low <= i.value && i.value <= i.high, "{key}: {v}");
                // The tiny profile times two rounds.
                assert_eq!(i.n, 2, "{key}: {v}");
            }
            None => assert!(
                v.is_null() && summary["null_reasons"][*key].is_string(),
                "{key}: {v}"
            ),
        }
    }
    // Every ratio of values.json has its interval beside it.
    let values: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("values.json")).unwrap())
            .unwrap();
    for key in [
        "e1_query_over_pipeline",
        "e1.memory_over_pipeline",
        "e3_leaf_edit_over_pipeline",
        "e4.geomean_nocutoff_over_cutoff",
        "e6.leaf_over_pipeline",
    ] {
        for suffix in ["", "_low", "_high", "_n"] {
            assert!(
                values.get(format!("{key}{suffix}")).is_some(),
                "{key}{suffix} missing"
            );
        }
    }
    for key in [
        "e1.query_over_pipeline",
        "e3.leaf_edit_over_pipeline",
        "e6.noop_over_pipeline",
    ] {
        for shape in ["default", "small_fns", "big_fns"] {
            let k = format!("{key}.{shape}");
            assert!(values.get(&k).is_some(), "{k} missing");
        }
    }
    // The readouts the goals of incremental rebuilds read.
    for key in [
        "e6.noop_over_pipeline.at_300",
        "e6.leaf_over_pipeline.at_300",
        "e6.rebuild_rss_over_pipeline",
    ] {
        for suffix in ["", "_low", "_high", "_n"] {
            assert!(
                values.get(format!("{key}{suffix}")).is_some(),
                "{key}{suffix} missing"
            );
        }
    }
    assert!(values["e6.leaf_ms.at_300"].as_f64().unwrap() > 0.0);
    assert!(values["e7.cache_over_source"].as_f64().unwrap() > 0.0);
    assert!(!values["e4.geomean_kinds"]
        .as_str()
        .unwrap()
        .contains("fix-error"));
    assert!(values["meta.load_sentence"]
        .as_str()
        .unwrap()
        .contains("load"));
    // One sample per timed build, with the child's CPU time and the engine's counts.
    let samples = std::fs::read_to_string(results.join("samples/e01-scratch.csv")).unwrap();
    let mut lines = samples.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let all: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Three configurations, two rounds, for each shape (the default first).
    assert_eq!(all.len(), 18, "{samples}");
    for shape in ["small-fns", "big-fns"] {
        assert_eq!(all.iter().filter(|r| r[col("shape")] == shape).count(), 6);
    }
    let rows: Vec<&Vec<&str>> = all
        .iter()
        .filter(|r| r[col("shape")] == "default")
        .collect();
    assert_eq!(rows.len(), 6, "{samples}");
    for r in &rows {
        assert_eq!(r[col("experiment")], "e1");
        let cpu: f64 = r[col("cpu_user_ms")].parse::<f64>().unwrap()
            + r[col("cpu_sys_ms")].parse::<f64>().unwrap();
        assert!(cpu > 0.0, "{r:?}");
        assert!(r[col("peak_rss_kb")].parse::<u64>().unwrap() > 0, "{r:?}");
        if r[col("architecture")] != "pipeline" {
            assert!(r[col("executed")].parse::<u64>().unwrap() > 0, "{r:?}");
        }
    }
    // The two rounds build the configurations in alternating order.
    let seq = |round: &str, arch: &str| -> u64 {
        rows.iter()
            .find(|r| r[col("round")] == round && r[col("architecture")] == arch)
            .unwrap()[col("seq")]
        .parse()
        .unwrap()
    };
    assert!(seq("0", "pipeline") < seq("0", "query-disk"));
    assert!(seq("1", "pipeline") > seq("1", "query-memory"));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["warmup_rounds"], 0);
    assert!(meta["experiments"]["e1"]["load_before"].is_array());
    for f in [
        "meta.json",
        "values.json",
        "figures/e1-scratch.svg",
        "figures/e8-rustc.svg",
        "figures/e9-runtime.svg",
    ] {
        assert!(results.join(f).is_file(), "{f} missing");
    }
    let words = report.paper_words.expect("paper regenerated");
    assert!(words >= 2500, "the paper has {words} words");
    let text = std::fs::read_to_string(paper_dir.join("paper.md")).unwrap();
    assert!(!text.contains("{{"));
    // The goals of incremental rebuilds, each with a verdict; a million lines is not a
    // size of this profile.
    assert!(text.contains("#### Where a rebuild spends its time"));
    assert!(
        text.contains("| no-change rebuild / pipeline from scratch | 1M lines | ≤ 0.5 % | not measured in this profile |"),
        "{text}"
    );
}

/// Every file under `dir` and its bytes.
fn tree(dir: &std::path::Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(tree(&e.path()));
        } else {
            out.insert(
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            );
        }
    }
    out
}

/// A cache restored from its snapshot is the snapshot: what a round writes (journals
/// appended in place, a record rewritten, a base renamed over, a file added or removed)
/// reaches neither the snapshot nor the next round. The files rill never writes in place
/// are the snapshot's own, and one a round did not replace is left as it is (its inode
/// and change time), as a user's loop leaves it.
#[test]
fn a_restored_cache_is_its_snapshot_and_a_round_never_writes_into_it() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let (cache, snap) = (dir.path().join("cache"), dir.path().join("snap"));
    let image = cache.join("image");
    std::fs::create_dir_all(&image).unwrap();
    std::fs::create_dir_all(cache.join("check")).unwrap();
    for (name, bytes) in [
        ("image/query-cache.bin", &b"cache file"[..]),
        ("image/query-cache.delta", b"journal"),
        ("image/query-cache.checked", b"record"),
        ("image/link-state.bin", b"base"),
        ("image/link-state.jnl", b"patches"),
        ("check/query-cache.bin", b"check cache"),
    ] {
        std::fs::write(cache.join(name), bytes).unwrap();
    }
    let stat = |p: &std::path::Path| std::fs::metadata(p).unwrap();
    // The three files never written in place are linked, the others copied.
    assert_eq!(runner::mirror_cache(&cache, &snap).unwrap(), 3);
    for (name, shared) in [
        ("image/query-cache.bin", true),
        ("image/link-state.bin", true),
        ("check/query-cache.bin", true),
        ("image/query-cache.delta", false),
        ("image/link-state.jnl", false),
        ("image/query-cache.checked", false),
    ] {
        let same = stat(&cache.join(name)).ino() == stat(&snap.join(name)).ino();
        assert_eq!(same, shared, "{name}");
    }
    let snapshot = tree(&snap);
    assert_eq!(tree(&cache), snapshot);
    let kept = snap.join("image/query-cache.bin");
    let kept_ctime = (stat(&kept).ctime(), stat(&kept).ctime_nsec());

    for round in 0..2 {
        // A round's build: appends to the journals, rewrites a record, writes a new base
        // and renames it over the old one, adds a temporary file, removes a cache.
        use std::io::Write;
        for journal in ["query-cache.delta", "link-state.jnl"] {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(image.join(journal))
                .unwrap();
            f.write_all(b" + round").unwrap();
        }
        std::fs::write(image.join("query-cache.checked"), b"other").unwrap();
        std::fs::write(image.join("link-state.bin.tmp.1"), b"new base").unwrap();
        std::fs::rename(
            image.join("link-state.bin.tmp.1"),
            image.join("link-state.bin"),
        )
        .unwrap();
        std::fs::write(image.join("query-cache.bin.tmp.1"), b"left over").unwrap();
        std::fs::remove_file(cache.join("check/query-cache.bin")).unwrap();
        assert_eq!(tree(&snap), snapshot, "round {round}");
        // The restore links the two files the round replaced or removed again.
        assert_eq!(
            runner::mirror_cache(&snap, &cache).unwrap(),
            2,
            "round {round}"
        );
        assert_eq!(tree(&cache), snapshot, "round {round}");
        assert_eq!(tree(&snap), snapshot, "round {round}");
        // The cache file the round left alone is the snapshot's, untouched.
        let c = stat(&image.join("query-cache.bin"));
        assert_eq!(c.ino(), stat(&kept).ino());
        assert_eq!((c.ctime(), c.ctime_nsec()), kept_ctime, "round {round}");
    }
}

/// An incremental run's timed builds find the cache as a user's loop leaves it: after the
/// history the records of checked files (`*.checked`) name the files the snapshot shares
/// with the cache as they are, so no timed build checks them again; the rounds leave the
/// snapshot as it was, and each round starts from it (its journal appended once, not once
/// per round).
#[test]
fn incremental_rounds_start_from_the_cache_a_users_loop_leaves() {
    use experiments::runner::workload;
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let ctx = Ctx::new(
        Profile::tiny(),
        PathBuf::from(env!("CARGO_BIN_EXE_rill")),
        d.join("work"),
        d.join("results"),
        d.join("paper"),
    );
    let program = workload::generate(300, 7);
    let edits = workload::leaf_edits(&program, 7);
    let (edit, _) = edits.changing.as_ref().expect("a leaf edit");
    let w = d.join("w");
    let mut side = exps::IncrementalRun::new(&ctx, w.clone(), &program)
        .edited(&edit.program)
        .side()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (cache, snap) = (w.join("cache/image"), w.join("cache-snapshot/image"));
    // The records as rill writes them, of the files as they are now.
    let link_record = |p: &std::path::Path| {
        query_driver::link_state_checked_record(&std::fs::metadata(p).unwrap())
    };
    let cache_record =
        |p: &std::path::Path| query::cache_checked_record(&std::fs::metadata(p).unwrap()).unwrap();
    let records_name_the_snapshot = || {
        let read = |n: &str| std::fs::read(snap.join(n)).unwrap_or_default();
        assert_eq!(
            read("link-state.checked"),
            link_record(&snap.join("link-state.bin"))
        );
        assert_eq!(
            read("query-cache.checked"),
            cache_record(&snap.join("query-cache.bin"))
        );
    };
    records_name_the_snapshot();
    let snapshot = tree(&snap);
    let mut journals = Vec::new();
    for _ in 0..3 {
        side().unwrap_or_else(|e| panic!("{e:?}"));
        journals.push(tree(&cache));
        // The files never written in place are the snapshot's.
        for n in ["link-state.bin", "query-cache.bin"] {
            assert_eq!(
                std::fs::metadata(cache.join(n)).unwrap().ino(),
                std::fs::metadata(snap.join(n)).unwrap().ino(),
                "{n}"
            );
        }
    }
    records_name_the_snapshot();
    assert_eq!(tree(&snap), snapshot);
    // Each round appended its patch to the snapshot's journal, not to the last round's.
    let jnl = |t: &BTreeMap<PathBuf, Vec<u8>>| t[&PathBuf::from("link-state.jnl")].len();
    assert!(jnl(&journals[0]) > jnl(&snapshot));
    assert!(journals.iter().all(|t| jnl(t) == jnl(&journals[0])));
}
