//! `experiments scaling`: the scaling profile. E1 and E6 over every size of the profile
//! (10k, 100k and 1M lines by default), and E3's edit kinds of the incremental goals at
//! each of those sizes, into `results/scaling/` (a result directory of its own: the rows,
//! one sample per timed build, the phase breakdowns, its own `meta.json`), followed by
//! the analysis:
//!
//! - `results/scaling/ratios.csv`: per configuration (experiment, scenario, architecture,
//!   shape) and size, the actual line count, the median wall time with its bootstrap 95 %
//!   interval, and the ratio over the pipeline's from-scratch build of the same rounds
//!   (the edited program's, for an edit of E3), with its interval;
//! - `results/scaling/fits.csv`: per configuration measured at two sizes or more, the
//!   exponent `k` of `time ≈ c · lines^k` fitted by least squares on the *actual* line
//!   counts, and the growth from the smallest to the largest size, each with a bootstrap
//!   interval (the samples of each size resampled on their own);
//! - `scaling.*` values in `results/values.json`, which the paper reads.
//!
//! Everything is computed from the raw samples, so a reader can recompute every interval
//! from `results/scaling/samples/`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stats::{self, Round};
use super::table::{self, Row};
use super::{exps, samples, Ctx, Profile};

/// The experiments run over every size.
pub const SWEEP_EXPERIMENTS: &[&str] = &["e1", "e6"];

/// E3's edit kinds run at every size: those the incremental goals name.
pub const E3_KINDS: &[&str] = &[
    "leaf-body",
    "signature",
    "struct-field",
    "add-fn",
    "remove-fn",
];

/// The sub-directory of `results/` the scaling profile writes.
pub const DIR: &str = "scaling";

/// The fields of a raw sample the analysis reads (`samples::Sample` as written).
#[derive(Clone, Debug, Deserialize)]
pub struct SampleIn {
    pub experiment: String,
    pub scenario: String,
    pub architecture: String,
    pub size: usize,
    pub round: usize,
    pub wall_ms: f64,
    pub shape: String,
}

/// A configuration: experiment, scenario, architecture, shape.
type Config = (String, String, String, String);

/// One row of `ratios.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatioRow {
    pub experiment: String,
    pub scenario: String,
    pub architecture: String,
    pub shape: String,
    pub size: usize,
    pub lines: Option<usize>,
    pub n: usize,
    pub median_ms: f64,
    pub median_low: f64,
    pub median_high: f64,
    /// The denominator of the ratio: `scenario/architecture` of the same rounds.
    pub over: Option<String>,
    pub ratio: Option<f64>,
    pub ratio_low: Option<f64>,
    pub ratio_high: Option<f64>,
}

/// One row of `fits.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitRow {
    pub experiment: String,
    pub scenario: String,
    pub architecture: String,
    pub shape: String,
    /// The sizes fitted (nominal), and their actual line counts.
    pub sizes: String,
    pub lines: String,
    pub exponent: f64,
    pub exponent_low: f64,
    pub exponent_high: f64,
    /// Median at the largest size over the median at the smallest.
    pub growth: f64,
    pub growth_low: f64,
    pub growth_high: f64,
    pub n: usize,
}

/// The scaling profile: 10k, 100k and 1M lines, seven rounds after one warm-up.
pub fn profile() -> Profile {
    Profile {
        name: "scaling".to_string(),
        sizes: vec![10_000, 100_000, 1_000_000],
        main_size: 1_000_000,
        rustc_size: 10_000,
        rustc_sizes: vec![10_000],
        rustc_other_reps: 3,
        reps: 7,
        warmup: 1,
        run_reps: 3,
        interp_timeout_s: 10,
        build_timeout_s: 1800,
        benchmarks: None,
    }
}

/// Runs the scaling profile into `results/scaling/` and merges its values into
/// `results/values.json`. Returns the warnings of the runs.
pub fn run(
    profile: &Profile,
    rill: &Path,
    work: &Path,
    results: &Path,
    paper_dir: &Path,
) -> Result<Vec<String>, String> {
    let out = results.join(DIR);
    let _ = std::fs::remove_dir_all(&out);
    let work = work.join(DIR);
    let ids: Vec<String> = SWEEP_EXPERIMENTS.iter().map(|s| s.to_string()).collect();
    let new_ctx = |p: Profile| {
        Ctx::new(
            p,
            rill.to_path_buf(),
            work.clone(),
            out.clone(),
            paper_dir.to_path_buf(),
        )
    };
    let ctx = new_ctx(profile.clone());
    let report = super::run_suite(&ctx, &ids, false, false)?;
    let mut warnings = report.warnings;
    // E3 at every size, one size at a time (its edits are made on the program of the
    // profile's main size).
    let mut rows: Vec<Row> = Vec::new();
    let mut all_samples = Vec::new();
    for &size in &profile.sizes {
        eprintln!("E3 at {size} lines: {} ...", E3_KINDS.join(", "));
        let p = Profile {
            main_size: size,
            ..profile.clone()
        };
        let ctx = new_ctx(p);
        match exps::e3_run_kinds(&ctx, E3_KINDS) {
            Ok(mut o) => {
                o.samples.extend(ctx.take_samples());
                for s in &mut o.samples {
                    s.experiment = "e3".to_string();
                }
                rows.extend(o.rows);
                all_samples.extend(o.samples);
                warnings.extend(o.warnings);
                warnings.extend(ctx.take_warnings().into_iter().map(|w| format!("e3: {w}")));
            }
            Err(why) => {
                ctx.finish_progress();
                warnings.push(format!("e3 at {size} lines: {why}"));
            }
        }
    }
    table::write_csv(&out.join("e03-edits.csv"), &rows)?;
    samples::write_csv(&out.join("samples").join("e03-edits.csv"), &all_samples)?;
    let values = analyze_dir(&out)?;
    merge_values(results, &out, profile, values)?;
    Ok(warnings)
}

/// Reads the rows and samples of `dir` (a scaling result directory), writes `ratios.csv`
/// and `fits.csv` there, and returns the `scaling.*` values.
pub fn analyze_dir(dir: &Path) -> Result<BTreeMap<String, serde_json::Value>, String> {
    let mut samples = Vec::new();
    let mut lines: BTreeMap<(String, String, usize), usize> = BTreeMap::new();
    for (exp, csv) in [
        ("e1", "e01-scratch.csv"),
        ("e3", "e03-edits.csv"),
        ("e6", "e06-scaling.csv"),
    ] {
        let rows_path = dir.join(csv);
        if !rows_path.is_file() {
            continue;
        }
        for r in table::read_csv(&rows_path)? {
            if let Some(l) = r.lines {
                lines.insert((exp.to_string(), r.shape.clone(), r.size), l);
            }
        }
        let path = dir.join("samples").join(csv);
        let mut rd = csv::Reader::from_path(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        for s in rd.deserialize::<SampleIn>() {
            samples.push(s.map_err(|e| format!("bad sample in `{}`: {e}", path.display()))?);
        }
    }
    let (ratios, fits) = analyze(&samples, &lines);
    write_rows(&dir.join("ratios.csv"), &ratios)?;
    write_rows(&dir.join("fits.csv"), &fits)?;
    Ok(values(&ratios, &fits))
}

fn write_rows<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), String> {
    let err = |e: csv::Error| format!("cannot write `{}`: {e}", path.display());
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    for r in rows {
        w.serialize(r).map_err(err)?;
    }
    w.flush()
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// The ratios and fits of `samples`; `lines` gives the actual line count of each
/// (experiment, shape, size).
pub fn analyze(
    samples: &[SampleIn],
    lines: &BTreeMap<(String, String, usize), usize>,
) -> (Vec<RatioRow>, Vec<FitRow>) {
    // Wall times by configuration and size, by round.
    let mut by: BTreeMap<Config, BTreeMap<usize, BTreeMap<usize, f64>>> = BTreeMap::new();
    for s in samples {
        by.entry((
            s.experiment.clone(),
            s.scenario.clone(),
            s.architecture.clone(),
            s.shape.clone(),
        ))
        .or_default()
        .entry(s.size)
        .or_default()
        .insert(s.round, s.wall_ms);
    }
    let mut ratios = Vec::new();
    for (cfg, sizes) in &by {
        let (exp, scenario, arch, shape) = cfg;
        for (&size, rounds) in sizes {
            let walls: Vec<f64> = rounds.values().copied().collect();
            let Some(median) = stats::median_interval(&walls) else {
                continue;
            };
            let den = denominator(&by, cfg, size);
            let ratio = den.as_ref().and_then(|(_, den_rounds)| {
                let pairs: Vec<(f64, f64)> = rounds
                    .iter()
                    .filter_map(|(r, &a)| den_rounds.get(r).map(|&b| (a, b)))
                    .collect();
                stats::paired_ratio(&pairs)
            });
            ratios.push(RatioRow {
                experiment: exp.clone(),
                scenario: scenario.clone(),
                architecture: arch.clone(),
                shape: shape.clone(),
                size,
                lines: lines.get(&(exp.clone(), shape.clone(), size)).copied(),
                n: walls.len(),
                median_ms: median.value,
                median_low: median.low,
                median_high: median.high,
                over: den.map(|(name, _)| name),
                ratio: ratio.map(|i| i.value),
                ratio_low: ratio.map(|i| i.low),
                ratio_high: ratio.map(|i| i.high),
            });
        }
    }
    let mut fits = Vec::new();
    for (cfg, sizes) in &by {
        let (exp, scenario, arch, shape) = cfg;
        // The sizes with an actual line count, smallest first.
        let points: Vec<(f64, Vec<Round>, usize)> = sizes
            .iter()
            .filter_map(|(&size, rounds)| {
                let l = *lines.get(&(exp.clone(), shape.clone(), size))?;
                let r: Vec<Round> = rounds.values().map(|&w| vec![w]).collect();
                Some((l as f64, r, size))
            })
            .collect();
        if points.len() < 2 {
            continue;
        }
        let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
        let strata: Vec<Vec<Round>> = points.iter().map(|p| p.1.clone()).collect();
        let medians = |s: &[Vec<Round>]| -> Option<Vec<f64>> {
            s.iter()
                .map(|rounds| stats::median(&rounds.iter().map(|r| r[0]).collect::<Vec<_>>()))
                .collect()
        };
        let exponent = stats::bootstrap(&strata, |s| {
            let m = medians(s)?;
            let pts: Vec<(f64, f64)> = xs.iter().copied().zip(m).collect();
            stats::loglog_slope(&pts)
        });
        let growth = stats::bootstrap(&strata, |s| {
            let m = medians(s)?;
            stats::ratio(m.last().copied(), m.first().copied())
        });
        let (Some(e), Some(g)) = (exponent, growth) else {
            continue;
        };
        let join = |v: Vec<String>| v.join(" ");
        fits.push(FitRow {
            experiment: exp.clone(),
            scenario: scenario.clone(),
            architecture: arch.clone(),
            shape: shape.clone(),
            sizes: join(points.iter().map(|p| p.2.to_string()).collect()),
            lines: join(points.iter().map(|p| (p.0 as usize).to_string()).collect()),
            exponent: e.value,
            exponent_low: e.low,
            exponent_high: e.high,
            growth: g.value,
            growth_low: g.low,
            growth_high: g.high,
            n: e.n,
        });
    }
    (ratios, fits)
}

/// What a configuration's rounds at `size` are divided by: the pipeline building the same
/// (edited) program in the same rounds where there is one (E3's edits), else the
/// pipeline's from-scratch build of the same rounds. The pipeline's own builds have none.
fn denominator<'a>(
    by: &'a BTreeMap<Config, BTreeMap<usize, BTreeMap<usize, f64>>>,
    cfg: &Config,
    size: usize,
) -> Option<(String, &'a BTreeMap<usize, f64>)> {
    let (exp, scenario, arch, shape) = cfg;
    if arch == "pipeline" {
        return None;
    }
    [scenario.as_str(), "scratch"].into_iter().find_map(|s| {
        let key = (
            exp.clone(),
            s.to_string(),
            "pipeline".to_string(),
            shape.clone(),
        );
        by.get(&key)
            .and_then(|sizes| sizes.get(&size))
            .map(|rounds| (format!("{s}/pipeline"), rounds))
    })
}

/// The key of a configuration: `scaling.EXP.SCENARIO.ARCH.SHAPE` with `-` as `_`.
pub fn key(exp: &str, scenario: &str, arch: &str, shape: &str) -> String {
    format!("scaling.{exp}.{scenario}.{arch}.{shape}").replace('-', "_")
}

/// The `scaling.*` values: per configuration and size `KEY.at_SIZE.ms` and
/// `KEY.at_SIZE.over_pipeline` (each with `_low`, `_high`, `_n`) and `KEY.at_SIZE.lines`;
/// per fitted configuration `KEY.exponent` and `KEY.growth` (with their intervals).
pub fn values(ratios: &[RatioRow], fits: &[FitRow]) -> BTreeMap<String, serde_json::Value> {
    let mut v = BTreeMap::new();
    let mut put = |k: String, x: Option<f64>| {
        v.insert(
            k,
            x.filter(|x| x.is_finite())
                .map_or(serde_json::Value::Null, Into::into),
        );
    };
    for r in ratios {
        let k = format!(
            "{}.at_{}",
            key(&r.experiment, &r.scenario, &r.architecture, &r.shape),
            r.size
        );
        let n = Some(r.n as f64);
        put(format!("{k}.ms"), Some(r.median_ms));
        put(format!("{k}.ms_low"), Some(r.median_low));
        put(format!("{k}.ms_high"), Some(r.median_high));
        put(format!("{k}.ms_n"), n);
        put(format!("{k}.lines"), r.lines.map(|l| l as f64));
        if r.ratio.is_some() {
            put(format!("{k}.over_pipeline"), r.ratio);
            put(format!("{k}.over_pipeline_low"), r.ratio_low);
            put(format!("{k}.over_pipeline_high"), r.ratio_high);
            put(format!("{k}.over_pipeline_n"), n);
        }
    }
    for f in fits {
        let k = key(&f.experiment, &f.scenario, &f.architecture, &f.shape);
        put(format!("{k}.exponent"), Some(f.exponent));
        put(format!("{k}.exponent_low"), Some(f.exponent_low));
        put(format!("{k}.exponent_high"), Some(f.exponent_high));
        put(format!("{k}.exponent_n"), Some(f.n as f64));
        put(format!("{k}.growth"), Some(f.growth));
        put(format!("{k}.growth_low"), Some(f.growth_low));
        put(format!("{k}.growth_high"), Some(f.growth_high));
        put(format!("{k}.growth_n"), Some(f.n as f64));
    }
    v
}

/// Replaces the `scaling.*` values of `results/values.json` with `values`, and records
/// the profile and the scaling run's commit and load (from its own `meta.json`).
fn merge_values(
    results: &Path,
    out: &Path,
    profile: &Profile,
    values: BTreeMap<String, serde_json::Value>,
) -> Result<(), String> {
    let path = results.join("values.json");
    let mut all = super::read_values(&path);
    all.retain(|k, _| !k.starts_with("scaling."));
    all.extend(values);
    let sizes: Vec<String> = profile.sizes.iter().map(|s| s.to_string()).collect();
    all.insert("scaling.sizes".into(), sizes.join(", ").into());
    all.insert("scaling.reps".into(), profile.reps.into());
    all.insert("scaling.warmup".into(), profile.warmup.into());
    let meta = super::read_values(&out.join("meta.json"));
    for (k, field) in [
        ("scaling.commit", "commit"),
        ("scaling.max_load_per_core", "max_load_per_core"),
    ] {
        all.insert(
            k.into(),
            meta.get(field).cloned().unwrap_or(serde_json::Value::Null),
        );
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&all).unwrap_or_default())
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// The sizes of the scaling run recorded in `values` (`scaling.sizes`, "10000, 100000,
/// ..."); none if no scaling run wrote its values.
pub fn sizes_of(values: &BTreeMap<String, serde_json::Value>) -> Vec<usize> {
    values
        .get("scaling.sizes")
        .and_then(|v| v.as_str())
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(
        exp: &str,
        scenario: &str,
        arch: &str,
        size: usize,
        round: usize,
        wall: f64,
    ) -> SampleIn {
        SampleIn {
            experiment: exp.into(),
            scenario: scenario.into(),
            architecture: arch.into(),
            size,
            round,
            wall_ms: wall,
            shape: "default".into(),
        }
    }

    /// A rebuild that grows as the square root of the actual lines and a pipeline that
    /// grows linearly: the fit recovers both exponents from the actual (not the nominal)
    /// sizes, and the ratios pair rounds.
    #[test]
    fn exponents_are_fitted_on_actual_lines_and_ratios_pair_rounds() {
        let mut samples = Vec::new();
        let mut lines = BTreeMap::new();
        // Nominal sizes 1k, 10k, 100k; actual ones off by different factors.
        let actual = [(1_000, 1_300usize), (10_000, 9_000), (100_000, 93_000)];
        for (size, l) in actual {
            lines.insert(("e6".to_string(), "default".to_string(), size), l);
            for round in 0..8 {
                // The same load in both sides of a round.
                let load = 1.0 + 0.05 * (round % 3) as f64;
                samples.push(sample(
                    "e6",
                    "scratch",
                    "pipeline",
                    size,
                    round,
                    0.002 * l as f64 * load,
                ));
                samples.push(sample(
                    "e6",
                    "no-change",
                    "query",
                    size,
                    round,
                    0.1 * (l as f64).sqrt() * load,
                ));
            }
        }
        let (ratios, fits) = analyze(&samples, &lines);
        let fit = |arch: &str| fits.iter().find(|f| f.architecture == arch).unwrap();
        assert!(
            (fit("pipeline").exponent - 1.0).abs() < 1e-9,
            "{:?}",
            fit("pipeline")
        );
        assert!(
            (fit("query").exponent - 0.5).abs() < 1e-9,
            "{:?}",
            fit("query")
        );
        let q = fit("query");
        assert!(q.exponent_low <= q.exponent && q.exponent <= q.exponent_high);
        assert!(
            (q.growth - (93_000f64 / 1_300.0).sqrt()).abs() < 1e-6,
            "{q:?}"
        );
        assert_eq!(q.lines, "1300 9000 93000");
        // The ratio at 100k is the query's over the pipeline's in the same rounds.
        let r = ratios
            .iter()
            .find(|r| r.architecture == "query" && r.size == 100_000)
            .unwrap();
        assert_eq!(r.over.as_deref(), Some("scratch/pipeline"));
        let want = 0.1 * 93_000f64.sqrt() / (0.002 * 93_000.0);
        assert!((r.ratio.unwrap() - want).abs() < 1e-9, "{r:?}");
        // Paired: the shared load cancels, so the interval is a point.
        assert!(
            (r.ratio_high.unwrap() - r.ratio_low.unwrap()).abs() < 1e-9,
            "{r:?}"
        );
        let v = values(&ratios, &fits);
        assert_eq!(
            v["scaling.e6.no_change.query.default.at_100000.lines"],
            93_000.0
        );
        assert!(v.contains_key("scaling.e6.no_change.query.default.exponent_low"));
        // The pipeline's rows have no ratio.
        assert!(!v.contains_key("scaling.e6.scratch.pipeline.default.at_100000.over_pipeline"));
    }

    /// An edit of E3 is divided by the pipeline building the edited program (its own
    /// scenario), not the unedited one.
    #[test]
    fn an_edit_is_divided_by_the_pipeline_of_its_own_rounds() {
        let mut samples = Vec::new();
        for round in 0..5 {
            samples.push(sample("e3", "scratch", "pipeline", 10_000, round, 100.0));
            samples.push(sample("e3", "add-fn", "pipeline", 10_000, round, 50.0));
            samples.push(sample("e3", "add-fn", "query", 10_000, round, 5.0));
            samples.push(sample("e3", "no-change", "query", 10_000, round, 2.0));
        }
        let (ratios, fits) = analyze(&samples, &BTreeMap::new());
        assert!(
            fits.is_empty(),
            "one size and no line counts: nothing to fit"
        );
        let get = |s: &str| {
            ratios
                .iter()
                .find(|r| r.scenario == s && r.architecture == "query")
                .unwrap()
        };
        assert_eq!(get("add-fn").ratio, Some(0.1));
        assert_eq!(get("add-fn").over.as_deref(), Some("add-fn/pipeline"));
        assert_eq!(get("no-change").ratio, Some(0.02));
        assert_eq!(get("no-change").over.as_deref(), Some("scratch/pipeline"));
    }
}
