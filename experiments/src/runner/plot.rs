//! The figures: SVG through plotters. Line charts over program size (log-log, with
//! min–max bars at every point) and grouped bar charts (log scale, min–max bars). A
//! figure whose data could not be measured still gets drawn, saying so, so that the paper
//! never points at a missing file.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::table::Row;

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

const SIZE: (u32, u32) = (960, 560);

/// One measured point: x, median, min, max.
pub type Point = (f64, f64, f64, f64);

fn err(e: impl std::fmt::Display) -> String {
    format!("plotting: {e}")
}

fn point(r: &Row, x: f64) -> Option<Point> {
    if !r.is_ok() {
        return None;
    }
    let m = r.median?;
    Some((x, m, r.min.unwrap_or(m), r.max.unwrap_or(m)))
}

/// The rows of `scenario` on `arch`, as points over size.
pub fn over_size(rows: &[Row], scenario: &str, arch: &str) -> Vec<Point> {
    let mut v: Vec<Point> = rows
        .iter()
        .filter(|r| r.scenario == scenario && r.architecture == arch)
        .filter_map(|r| point(r, r.size as f64))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The first status that is not `ok` among the rows of `scenario`s, to explain a gap.
fn why_empty(rows: &[Row]) -> String {
    rows.iter()
        .find(|r| !r.is_ok())
        .map(|r| r.status.clone())
        .unwrap_or_else(|| "no rows".to_string())
}

fn message(area: &DrawingArea<SVGBackend, Shift>, title: &str, msg: &str) -> Result<(), String> {
    area.fill(&WHITE).map_err(err)?;
    area.draw(&Text::new(
        title.to_string(),
        (20, 20),
        ("sans-serif", 22).into_font(),
    ))
    .map_err(err)?;
    area.draw(&Text::new(
        format!("No data: {}", msg.chars().take(110).collect::<String>()),
        (20, 70),
        ("sans-serif", 16).into_font(),
    ))
    .map_err(err)?;
    area.present().map_err(err)
}

fn range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let v: Vec<f64> = values.filter(|x| *x > 0.0 && x.is_finite()).collect();
    let lo = v.iter().copied().reduce(f64::min)?;
    let hi = v.iter().copied().reduce(f64::max)?;
    Some((lo / 1.6, hi * 1.6))
}

/// A log-log line chart of named series over size.
pub fn lines(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(String, Vec<Point>)],
    empty_reason: &str,
) -> Result<(), String> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    let all = series.iter().flat_map(|s| s.1.iter());
    let (Some(xr), Some(yr)) = (
        range(all.clone().map(|p| p.0)),
        range(all.flat_map(|p| [p.2, p.3, p.1])),
    ) else {
        return message(&root, title, empty_reason);
    };
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d((xr.0..xr.1).log_scale(), (yr.0..yr.1).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|x| short(*x))
        .y_label_formatter(&|y| short(*y))
        .draw()
        .map_err(err)?;
    for (i, (name, pts)) in series.iter().enumerate() {
        if pts.is_empty() {
            continue;
        }
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                pts.iter()
                    .map(|p| Circle::new((p.0, p.1), 4, color.filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], color.stroke_width(2))),
            )
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    let missing: Vec<&str> = series
        .iter()
        .filter(|s| s.1.is_empty())
        .map(|s| s.0.as_str())
        .collect();
    not_measured(&root, &missing)?;
    root.present().map_err(err)
}

/// A line under the chart naming the series that have no measurement.
fn not_measured(root: &DrawingArea<SVGBackend, Shift>, names: &[&str]) -> Result<(), String> {
    if names.is_empty() {
        return Ok(());
    }
    root.draw(&Text::new(
        format!(
            "not measured (see the status column of the CSV): {}",
            names.join("; ")
        ),
        (20, SIZE.1 as i32 - 18),
        ("sans-serif", 13).into_font().color(&RGBColor(150, 0, 0)),
    ))
    .map_err(err)
}

/// A grouped bar chart (log scale): one group per category, one bar per series, a
/// min–max line on every bar.
pub fn bars(
    path: &Path,
    title: &str,
    y_desc: &str,
    categories: &[String],
    series: &[(String, Vec<Bar>)],
    empty_reason: &str,
) -> Result<(), String> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    let vals = series.iter().flat_map(|s| s.1.iter().flatten());
    let Some(yr) = range(vals.flat_map(|v| [v.0, v.1, v.2])) else {
        return message(&root, title, empty_reason);
    };
    // Room above the tallest bar for the legend.
    let yr = (yr.0, yr.1 * 4.0);
    root.fill(&WHITE).map_err(err)?;
    let n = categories.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(90)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..n, (yr.0..yr.1).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .y_label_formatter(&|y| short(*y))
        .draw()
        .map_err(err)?;
    let k = series.len().max(1) as f64;
    let width = 0.8 / k;
    for (si, (name, values)) in series.iter().enumerate() {
        let color = PALETTE[si % PALETTE.len()];
        let x0 = |ci: usize| ci as f64 + 0.1 + si as f64 * width;
        chart
            .draw_series(values.iter().enumerate().filter_map(|(ci, v)| {
                v.map(|(m, _, _)| {
                    Rectangle::new([(x0(ci), yr.0), (x0(ci) + width * 0.9, m)], color.filled())
                })
            }))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
        chart
            .draw_series(values.iter().enumerate().filter_map(|(ci, v)| {
                v.map(|(_, lo, hi)| {
                    let xc = x0(ci) + width * 0.45;
                    PathElement::new(vec![(xc, lo), (xc, hi)], BLACK.stroke_width(2))
                })
            }))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    // Category names under the axis.
    for (ci, c) in categories.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(ci as f64 + 0.5, yr.0));
        root.draw(&Text::new(
            c.clone(),
            (
                px - 4 * c.len().min(24) as i32,
                py + 10 + (ci % 2) as i32 * 16,
            ),
            ("sans-serif", 13).into_font(),
        ))
        .map_err(err)?;
    }
    let missing: Vec<&str> = series
        .iter()
        .filter(|s| s.1.iter().all(Option::is_none))
        .map(|s| s.0.as_str())
        .collect();
    not_measured(&root, &missing)?;
    root.present().map_err(err)
}

/// `1.2k`, `35`, `0.41`, `2.0M` — axis labels.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 10.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// One bar: median, minimum and maximum; `None` where there is no measurement.
pub type Bar = Option<(f64, f64, f64)>;

/// The bars of `arch` for each scenario of `categories` (any size).
pub fn bar_values(rows: &[Row], categories: &[String], arch: &str) -> Vec<Bar> {
    categories
        .iter()
        .map(|c| {
            rows.iter()
                .find(|r| &r.scenario == c && r.architecture == arch)
                .and_then(|r| point(r, 0.0))
                .map(|p| (p.1, p.2, p.3))
        })
        .collect()
}

/// What one figure plots.
enum Chart {
    /// Log-log lines over program size, a series per (scenario, architecture, label).
    OverSize {
        y_desc: &'static str,
        series: &'static [(&'static str, &'static str, &'static str)],
    },
    /// Grouped bars, a group per scenario of `categories`, a bar per (architecture,
    /// label).
    Bars {
        y_desc: &'static str,
        categories: Vec<String>,
        series: &'static [(&'static str, &'static str)],
    },
}

/// One figure of an experiment: its file under `figures/`, its title and its chart.
struct Figure {
    file: &'static str,
    title: &'static str,
    chart: Chart,
}

impl Figure {
    fn over_size(
        file: &'static str,
        title: &'static str,
        y_desc: &'static str,
        series: &'static [(&'static str, &'static str, &'static str)],
    ) -> Figure {
        Figure {
            file,
            title,
            chart: Chart::OverSize { y_desc, series },
        }
    }

    fn bars(
        file: &'static str,
        title: &'static str,
        y_desc: &'static str,
        categories: Vec<String>,
        series: &'static [(&'static str, &'static str)],
    ) -> Figure {
        Figure {
            file,
            title,
            chart: Chart::Bars {
                y_desc,
                categories,
                series,
            },
        }
    }

    /// Draws the figure from `rows` into `dir` (saying `why` where there is no data).
    fn draw(&self, rows: &[Row], dir: &Path, why: &str) -> Result<(), String> {
        let path = dir.join(self.file);
        match &self.chart {
            Chart::OverSize { y_desc, series } => {
                let series: Vec<(String, Vec<Point>)> = series
                    .iter()
                    .map(|(s, a, label)| (label.to_string(), over_size(rows, s, a)))
                    .collect();
                lines(
                    &path,
                    self.title,
                    "program size (lines)",
                    y_desc,
                    &series,
                    why,
                )
            }
            Chart::Bars {
                y_desc,
                categories,
                series,
            } => {
                let series: Vec<(String, Vec<Bar>)> = series
                    .iter()
                    .map(|(a, label)| (label.to_string(), bar_values(rows, categories, a)))
                    .collect();
                bars(&path, self.title, y_desc, categories, &series, why)
            }
        }
    }
}

/// The scenarios of the rows `pred` selects, in order of first appearance.
fn scenarios(rows: &[Row], pred: impl Fn(&Row) -> bool) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| pred(r)) {
        if !v.contains(&r.scenario) {
            v.push(r.scenario.clone());
        }
    }
    v
}

fn names(scenarios: &[&str]) -> Vec<String> {
    scenarios.iter().map(|s| s.to_string()).collect()
}

fn e1_figures(_: &[Row]) -> Vec<Figure> {
    vec![
        Figure::over_size(
            "e1-scratch.svg",
            "E1: from-scratch build (whole process, median, min–max)",
            "wall time (ms)",
            &[
                ("scratch", "pipeline", "pipeline"),
                ("scratch", "query-memory", "query, in memory"),
                ("scratch", "query-disk", "query, persisting"),
            ],
        ),
        Figure::over_size(
            "e1-throughput.svg",
            "E1: pipeline throughput (compile phases only)",
            "throughput (lines/s)",
            &[("throughput", "pipeline", "pipeline")],
        ),
    ]
}

fn e2_figures(rows: &[Row]) -> Vec<Figure> {
    vec![
        Figure::bars(
            "e2-hashing.svg",
            "E2: hashing time per query kind and hasher (from scratch)",
            "hashing time (ms)",
            scenarios(rows, |r| r.scenario.starts_with("kind:")),
            &[
                ("query-sip128", "SipHasher128"),
                ("query-xxh3", "xxh3-128"),
                ("query-blake3", "blake3"),
            ],
        ),
        Figure::bars(
            "e2-hashers.svg",
            "E2: from-scratch build by hasher",
            "wall time (ms)",
            names(&["scratch"]),
            &[
                ("pipeline", "pipeline"),
                ("query-sip128", "SipHasher128"),
                ("query-xxh3", "xxh3-128"),
                ("query-blake3", "blake3"),
            ],
        ),
    ]
}

fn e3_figures(rows: &[Row]) -> Vec<Figure> {
    let mut categories = names(&["scratch"]);
    categories.extend(scenarios(rows, |r| r.architecture == "query"));
    vec![Figure::bars(
        "e3-edits.svg",
        "E3: rebuild after one edit (whole process, median, min–max)",
        "wall time (ms)",
        categories,
        &[
            ("pipeline", "pipeline (from scratch)"),
            ("query", "query (incremental)"),
        ],
    )]
}

fn e4_figures(rows: &[Row]) -> Vec<Figure> {
    vec![Figure::bars(
        "e4-cutoff.svg",
        "E4: incremental rebuild with and without early cutoff",
        "wall time (ms)",
        scenarios(rows, |r| r.architecture == "query-cutoff"),
        &[
            ("query-cutoff", "early cutoff"),
            ("query-no-cutoff", "no cutoff"),
        ],
    )]
}

fn e5_figures(_: &[Row]) -> Vec<Figure> {
    vec![Figure::bars(
        "e5-positions.svg",
        "E5: lines inserted at the top of the largest file",
        "wall time (ms)",
        names(&["no-change", "top-of-file"]),
        &[
            ("query-relative", "relative spans"),
            ("query-absolute", "absolute spans"),
        ],
    )]
}

fn e6_figures(_: &[Row]) -> Vec<Figure> {
    vec![Figure::over_size(
        "e6-scaling.svg",
        "E6: rebuild cost against program size",
        "wall time (ms)",
        &[
            ("scratch", "pipeline", "pipeline, from scratch"),
            ("no-change", "query", "query, no change"),
            ("leaf-body", "query", "query, one leaf-body edit"),
        ],
    )]
}

fn e7_figures(_: &[Row]) -> Vec<Figure> {
    vec![
        Figure::over_size(
            "e7-cache-size.svg",
            "E7: size of the cache on disk",
            "cache size (bytes)",
            &[
                ("cache-size", "query-item", "per item"),
                ("cache-size", "query-file", "per file"),
            ],
        ),
        Figure::over_size(
            "e7-load-save.svg",
            "E7: cache load and save time",
            "time (ms)",
            &[
                ("load", "query-item", "load, per item"),
                ("save", "query-item", "save, per item"),
                ("load", "query-file", "load, per file"),
                ("save", "query-file", "save, per file"),
            ],
        ),
    ]
}

fn e8_figures(_: &[Row]) -> Vec<Figure> {
    vec![Figure::bars(
        "e8-rustc.svg",
        "E8: rustc and Rill on the same program and edit",
        "wall time (ms)",
        names(&["full", "incr-full", "incr-unchanged", "incr-patched"]),
        &[
            ("rustc", "rustc -C opt-level=0"),
            ("rill-query", "Rill, query"),
            ("rill-pipeline", "Rill, pipeline"),
        ],
    )]
}

fn e9_figures(rows: &[Row]) -> Vec<Figure> {
    vec![Figure::bars(
        "e9-runtime.svg",
        "E9: run time of the benchmark programs (whole process)",
        "wall time (ms)",
        scenarios(rows, |r| r.architecture == "rustc-O0"),
        &[
            ("rustc-O0", "rustc -O0"),
            ("rustc-O3", "rustc -O3"),
            ("jit", "Rill JIT"),
            ("interp", "Rill interpreter"),
        ],
    )]
}

fn e10_figures(rows: &[Row]) -> Vec<Figure> {
    vec![Figure::bars(
        "e10-diagnostics.svg",
        "E10: time to the first diagnostic and to a complete build",
        "time (ms)",
        scenarios(rows, |_| true),
        &[("pipeline", "pipeline"), ("query", "query")],
    )]
}

/// The figures of experiment `id` (none for an unknown one).
fn experiment_figures(id: &str, rows: &[Row]) -> Vec<Figure> {
    match id {
        "e1" => e1_figures(rows),
        "e2" => e2_figures(rows),
        "e3" => e3_figures(rows),
        "e4" => e4_figures(rows),
        "e5" => e5_figures(rows),
        "e6" => e6_figures(rows),
        "e7" => e7_figures(rows),
        "e8" => e8_figures(rows),
        "e9" => e9_figures(rows),
        "e10" => e10_figures(rows),
        _ => Vec::new(),
    }
}

/// Draws the figures of experiment `id` from its rows into `dir`; returns the files.
pub fn figures(id: &str, rows: &[Row], dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let why = why_empty(rows);
    let mut out = Vec::new();
    for f in &experiment_figures(id, rows) {
        f.draw(rows, dir, &why)?;
        out.push(f.file.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_lines_bars_and_empty_figures() {
        let dir = tempfile::tempdir().unwrap();
        let mut rows = Vec::new();
        for (size, ms) in [(1000, 10.0), (10000, 90.0)] {
            let mut r = Row::new("scratch", "pipeline", size);
            r.median = Some(ms);
            r.min = Some(ms * 0.9);
            r.max = Some(ms * 1.2);
            r.repetitions = 3;
            rows.push(r);
        }
        rows.push(Row::new("scratch", "query-disk", 1000).without_number("unavailable: no query"));
        let files = figures("e1", &rows, dir.path()).unwrap();
        assert_eq!(files.len(), 2);
        let svg = std::fs::read_to_string(dir.path().join("e1-scratch.svg")).unwrap();
        assert!(
            svg.contains("<svg")
                && svg.contains("program size (lines)")
                && svg.contains("pipeline")
        );
        // The throughput figure has no data: it says why.
        let svg = std::fs::read_to_string(dir.path().join("e1-throughput.svg")).unwrap();
        assert!(svg.contains("No data"), "{svg}");
        let files = figures("e10", &rows, dir.path()).unwrap();
        let svg = std::fs::read_to_string(dir.path().join(&files[0])).unwrap();
        assert!(svg.contains("<svg"));
        assert_eq!(short(1500.0), "1.5k");
        assert_eq!(short(20000.0), "20k");
    }
}
