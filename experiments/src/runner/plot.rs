//! The figures: SVG through plotters. Two kinds of chart: lines over program size (a log
//! x axis), and dot plots (one row per category, one dot per series, values on the x
//! axis). Every point carries an interval: minimum to maximum of its repetitions for a
//! measured quantity, the 95 % interval for a ratio when the results carry one (see
//! [`Intervals`]). Goals are drawn as dashed reference lines with a label. Axes are linear
//! from zero unless the values span more than a factor of [`LOG_SPAN`], and then
//! logarithmic with ticks chosen so that several labelled ones fall inside the data.
//! Nothing is drawn as a bar on a logarithmic scale. A figure whose data could not be
//! measured still gets drawn, saying so, so that the paper never points at a missing file.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::exps;
use super::phases::{self, PhaseRow};
use super::table::Row;

const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(174, 199, 232),
    RGBColor(255, 187, 120),
];

/// Width of every figure, and the height of one with few rows.
const WIDTH: u32 = 1000;
const HEIGHT: u32 = 560;
/// The legend strip under the title.
const LEGEND_H: u32 = 34;
const TITLE_H: u32 = 40;
/// Values spanning more than this factor get a logarithmic axis.
const LOG_SPAN: f64 = 30.0;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn err(e: impl std::fmt::Display) -> String {
    format!("plotting: {e}")
}

/// A value with its interval (`lo ≤ v ≤ hi`; both `v` when there is none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Val {
    pub v: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Val {
    fn finite(&self) -> bool {
        self.v.is_finite() && self.lo.is_finite() && self.hi.is_finite()
    }
}

/// One measured point over size: x and its value.
pub type Point = (f64, Val);

/// The median of an `ok` row with its minimum and maximum.
fn val(r: &Row) -> Option<Val> {
    if !r.is_ok() {
        return None;
    }
    let m = r.median?;
    Some(Val {
        v: m,
        lo: r.min.unwrap_or(m),
        hi: r.max.unwrap_or(m),
    })
}

fn find<'a>(rows: &'a [Row], scenario: &str, arch: &str, size: usize) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.scenario == scenario && r.architecture == arch && r.size == size)
}

/// The rows of `scenario` on `arch`, as points over size.
pub fn over_size(rows: &[Row], scenario: &str, arch: &str) -> Vec<Point> {
    let mut v: Vec<Point> = rows
        .iter()
        .filter(|r| r.scenario == scenario && r.architecture == arch)
        .filter_map(|r| Some((r.size as f64, val(r)?)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// 95 % intervals of ratios that the results carry: the optional `low` and `high` columns
/// of an experiment's CSV, on rows whose unit is `ratio`, keyed by (scenario,
/// architecture, size). The ratio of two rows is looked up under the numerator's key.
#[derive(Debug, Default)]
pub struct Intervals(BTreeMap<(String, String, usize), Val>);

impl Intervals {
    /// Reads the intervals of the CSV at `path` (none when it has no `low`/`high`).
    pub fn read(path: &Path) -> Intervals {
        let mut out = BTreeMap::new();
        let Ok(mut rd) = csv::Reader::from_path(path) else {
            return Intervals(out);
        };
        let Ok(headers) = rd.headers().cloned() else {
            return Intervals(out);
        };
        let col = |name: &str| headers.iter().position(|h| h == name);
        let (Some(s), Some(a), Some(n), Some(m), Some(u), Some(l), Some(h)) = (
            col("scenario"),
            col("architecture"),
            col("size"),
            col("median"),
            col("unit"),
            col("low"),
            col("high"),
        ) else {
            return Intervals(out);
        };
        for rec in rd.records().flatten() {
            let num = |i: usize| rec.get(i).and_then(|t| t.parse::<f64>().ok());
            if rec.get(u) != Some("ratio") {
                continue;
            }
            if let (Some(v), Some(lo), Some(hi), Some(size)) = (num(m), num(l), num(h), num(n)) {
                let key = (
                    rec.get(s).unwrap_or("").to_string(),
                    rec.get(a).unwrap_or("").to_string(),
                    size as usize,
                );
                out.insert(key, Val { v, lo, hi });
            }
        }
        Intervals(out)
    }

    /// The ratio of the medians of `num` and `den`, with the interval the results carry for
    /// it (none otherwise).
    pub fn ratio(
        &self,
        rows: &[Row],
        num: (&str, &str, usize),
        den: (&str, &str, usize),
    ) -> Option<Val> {
        let key = (num.0.to_string(), num.1.to_string(), num.2);
        if let Some(v) = self.0.get(&key) {
            return Some(*v);
        }
        let a = find(rows, num.0, num.1, num.2).and_then(val)?;
        let b = find(rows, den.0, den.1, den.2).and_then(val)?;
        (b.v > 0.0).then(|| {
            let r = a.v / b.v;
            Val { v: r, lo: r, hi: r }
        })
    }
}

/// A linear coordinate over drawing units with the ticks given (plotters' own
/// `with_key_points` loses the label formatter of `f64` ranges).
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        Ticked { lo, hi, ticks }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let t = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (f64::from(limit.1 - limit.0) * t + 1e-3).floor() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// An axis: its scale and the ticks to label.
#[derive(Clone, Debug)]
struct Axis {
    log: bool,
    /// The range drawn, in data units.
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Axis {
    /// An axis for `values` (and reference lines `refs`): linear from zero when the
    /// values span less than [`LOG_SPAN`] (or `force_log` is false and any is not
    /// positive), logarithmic otherwise or when `force_log`.
    fn fit(values: &[f64], refs: &[f64], force_log: bool) -> Option<Axis> {
        // A forced logarithmic axis shows the positive values only.
        let shown = |v: &f64| v.is_finite() && (!force_log || *v > 0.0);
        let all: Vec<f64> = values.iter().chain(refs).copied().filter(shown).collect();
        if !values.iter().any(shown) {
            return None;
        }
        let min = all.iter().copied().reduce(f64::min)?;
        let max = all.iter().copied().reduce(f64::max)?;
        let positive = min > 0.0;
        if positive && (force_log || max / min > LOG_SPAN) {
            let (lo, hi) = if max / min < 1.5 {
                (min / 1.5, max * 1.5)
            } else {
                (min / 1.3, max * 1.3)
            };
            Some(Axis {
                log: true,
                lo,
                hi,
                ticks: log_ticks(lo, hi),
            })
        } else {
            Some(Axis::linear_over(min, max))
        }
    }

    /// A linear axis from zero for `values` and reference lines `refs`, whatever their
    /// span (lengths that add up, as stacked bars do).
    fn linear(values: &[f64], refs: &[f64]) -> Option<Axis> {
        if !values.iter().any(|v| v.is_finite()) {
            return None;
        }
        let all = values.iter().chain(refs).copied().filter(|v| v.is_finite());
        let min = all.clone().reduce(f64::min)?;
        let max = all.reduce(f64::max)?;
        Some(Axis::linear_over(min, max))
    }

    /// A linear axis from zero (or `min`, if below) past `max`.
    fn linear_over(min: f64, max: f64) -> Axis {
        let lo = min.min(0.0);
        let hi = if max > lo {
            max + (max - lo) * 0.08
        } else {
            lo + 1.0
        };
        let ticks = linear_ticks(lo, hi);
        Axis {
            log: false,
            lo,
            hi,
            ticks,
        }
    }

    /// Whether `v` can be drawn on this axis (a logarithmic one has no place for zero).
    fn shows(&self, v: &Val) -> bool {
        v.finite() && (!self.log || v.lo > 0.0)
    }

    /// Data value to drawing coordinate.
    fn at(&self, v: f64) -> f64 {
        if self.log {
            v.max(f64::MIN_POSITIVE).log10()
        } else {
            v
        }
    }

    fn range(&self) -> (f64, f64) {
        (self.at(self.lo), self.at(self.hi))
    }

    fn key_points(&self) -> Vec<f64> {
        self.ticks.iter().map(|t| self.at(*t)).collect()
    }

    /// Drawing coordinate back to the data value, for labels.
    fn value(&self, c: f64) -> f64 {
        if self.log {
            10f64.powf(c)
        } else {
            c
        }
    }
}

/// Ticks at 1, 2, 5 times powers of ten (every integer multiple when that gives fewer than
/// three), within `lo..hi`.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |mults: &[f64]| {
        let mut v = Vec::new();
        let mut p = 10f64.powi(lo.log10().floor() as i32);
        while p <= hi {
            for m in mults {
                let t = m * p;
                if t >= lo && t <= hi {
                    v.push(t);
                }
            }
            p *= 10.0;
        }
        v
    };
    let v = within(&[1.0, 2.0, 5.0]);
    if v.len() >= 3 {
        return v;
    }
    let v = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    if v.len() >= 2 {
        return v;
    }
    linear_ticks(lo, hi)
}

/// About six ticks at a 1, 2 or 5 step, within `lo..hi`.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if span <= 0.0 || !span.is_finite() {
        return vec![lo];
    }
    let raw = span / 6.0;
    let p = 10f64.powi(raw.log10().floor() as i32);
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let mut v = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi + step * 1e-9 {
        // Snap to the step so that labels do not show rounding noise.
        v.push((t / step).round() * step);
        t += step;
    }
    v
}

/// `1.5k`, `35`, `0.25`, `0.002`, `2M`: axis labels, at most three significant digits.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let sig = |x: f64| {
        if x == 0.0 {
            return "0".to_string();
        }
        let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e9 {
        format!("{}G", sig(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", sig(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", sig(v / 1e3))
    } else {
        sig(v)
    }
}

/// A goal or a reference value: a dashed line with a label.
#[derive(Clone, Debug)]
pub struct RefLine {
    pub value: f64,
    pub label: String,
}

fn reference(value: f64, label: &str) -> RefLine {
    RefLine {
        value,
        label: label.to_string(),
    }
}

/// A named series of points over size; `color` indexes the palette.
pub struct Series {
    pub name: String,
    pub color: usize,
    pub points: Vec<Point>,
}

/// A named series of a dot plot: one value (or none) per category.
pub struct Dots {
    pub name: String,
    pub color: usize,
    pub values: Vec<Option<Val>>,
}

/// One panel of a figure.
enum Panel {
    Lines {
        title: String,
        y_desc: String,
        series: Vec<Series>,
        refs: Vec<RefLine>,
        /// Logarithmic y whatever the span (times over size).
        log_y: bool,
    },
    Dots {
        title: String,
        x_desc: String,
        categories: Vec<String>,
        series: Vec<Dots>,
        refs: Vec<RefLine>,
        /// Logarithmic values whatever the span.
        log: bool,
    },
    /// Horizontal stacked bars (linear): one bar per name, one segment per part, and
    /// vertical reference lines.
    Stacked {
        title: String,
        x_desc: String,
        bars: Vec<(String, Vec<(String, f64)>)>,
        refs: Vec<RefLine>,
    },
}

impl Panel {
    fn is_empty(&self) -> bool {
        match self {
            Panel::Lines { series, .. } => series.iter().all(|s| s.points.is_empty()),
            Panel::Dots { series, .. } => {
                series.iter().all(|s| s.values.iter().all(Option::is_none))
            }
            Panel::Stacked { bars, .. } => bars.iter().all(|b| b.1.is_empty()),
        }
    }

    /// Rows of a dot plot (for the figure's height).
    fn rows(&self) -> usize {
        match self {
            Panel::Dots {
                categories, series, ..
            } => categories.len() * series.len().clamp(1, 3),
            Panel::Stacked { bars, .. } => bars.len() * 2,
            Panel::Lines { .. } => 0,
        }
    }

    /// Names and colors for the legend, and series without any measurement.
    fn legend(&self, out: &mut Vec<(String, RGBColor)>, missing: &mut Vec<String>) {
        let mut add = |name: &str, color: usize, empty: bool| {
            let entry = (name.to_string(), PALETTE[color % PALETTE.len()]);
            if !out.contains(&entry) {
                out.push(entry);
            }
            if empty && !missing.iter().any(|m| m == name) {
                missing.push(name.to_string());
            }
        };
        match self {
            Panel::Lines { series, .. } => {
                for s in series {
                    add(&s.name, s.color, s.points.is_empty());
                }
            }
            Panel::Dots { series, .. } => {
                for s in series {
                    add(&s.name, s.color, s.values.iter().all(Option::is_none));
                }
            }
            Panel::Stacked { bars, .. } => {
                let mut parts: Vec<&str> = Vec::new();
                for (_, segs) in bars {
                    for (p, _) in segs {
                        if !parts.contains(&p.as_str()) {
                            parts.push(p);
                        }
                    }
                }
                for (i, p) in parts.iter().enumerate() {
                    add(p, i, false);
                }
            }
        }
    }

    fn draw(&self, area: &Area<'_>) -> Result<(), String> {
        if self.is_empty() {
            let title = match self {
                Panel::Lines { title, .. }
                | Panel::Dots { title, .. }
                | Panel::Stacked { title, .. } => title,
            };
            area.draw(&Text::new(
                format!("{title}: no data"),
                (20, 20),
                ("sans-serif", 15).into_font(),
            ))
            .map_err(err)?;
            return Ok(());
        }
        match self {
            Panel::Lines {
                title,
                y_desc,
                series,
                refs,
                log_y,
            } => draw_lines(area, title, y_desc, series, refs, *log_y),
            Panel::Dots {
                title,
                x_desc,
                categories,
                series,
                refs,
                log,
            } => draw_dots(area, title, x_desc, categories, series, refs, *log),
            Panel::Stacked {
                title,
                x_desc,
                bars,
                refs,
            } => draw_stacked(area, title, x_desc, bars, refs),
        }
    }
}

fn grid() -> ShapeStyle {
    RGBColor(225, 225, 225).stroke_width(1)
}

/// Draws the reference lines of a panel: horizontal (`horizontal`) at a y value, or
/// vertical at an x value, each dashed and labelled.
fn draw_refs<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    refs: &[RefLine],
    axis: &Axis,
    other: (f64, f64),
    horizontal: bool,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
    DB::ErrorType: 'static,
{
    let color = RGBColor(90, 90, 90);
    for (i, r) in refs.iter().enumerate() {
        let c = axis.at(r.value);
        let (a, b) = if horizontal {
            ((other.0, c), (other.1, c))
        } else {
            ((c, other.0), (c, other.1))
        };
        chart
            .draw_series(std::iter::once(DashedPathElement::new(
                vec![a, b],
                6,
                4,
                color.stroke_width(2),
            )))
            .map_err(err)?;
        let at = if horizontal {
            (other.0 + (other.1 - other.0) * 0.01, c)
        } else {
            (c, other.1 - (other.1 - other.0) * (0.02 + 0.05 * i as f64))
        };
        chart
            .draw_series(std::iter::once(Text::new(
                format!(" {}", r.label),
                at,
                ("sans-serif", 13).into_font().color(&color),
            )))
            .map_err(err)?;
    }
    Ok(())
}

fn draw_lines(
    area: &Area<'_>,
    title: &str,
    y_desc: &str,
    series: &[Series],
    refs: &[RefLine],
    log_y: bool,
) -> Result<(), String> {
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().flat_map(|p| [p.1.v, p.1.lo, p.1.hi]))
        .collect();
    let ref_values: Vec<f64> = refs.iter().map(|r| r.value).collect();
    let (Some(x), Some(y)) = (
        Axis::fit(&xs, &[], true),
        Axis::fit(&ys, &ref_values, log_y),
    ) else {
        return Ok(());
    };
    let (x0, x1) = x.range();
    let (y0, y1) = y.range();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(46)
        .y_label_area_size(70)
        .build_cartesian_2d(
            Ticked::new(x0, x1, x.key_points()),
            Ticked::new(y0, y1, y.key_points()),
        )
        .map_err(err)?;
    let (xa, ya) = (x.clone(), y.clone());
    chart
        .configure_mesh()
        .bold_line_style(grid())
        .light_line_style(TRANSPARENT)
        .x_desc("program size (nominal lines)")
        .y_desc(y_desc)
        .x_label_formatter(&|v| short(xa.value(*v)))
        .y_label_formatter(&|v| short(ya.value(*v)))
        .draw()
        .map_err(err)?;
    draw_refs(&mut chart, refs, &y, (x0, x1), true)?;
    for s in series {
        let color = PALETTE[s.color % PALETTE.len()];
        let pts: Vec<(f64, Val)> = s
            .points
            .iter()
            .filter(|p| y.shows(&p.1))
            .map(|p| (x.at(p.0), p.1))
            .collect();
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, y.at(p.1.v))),
                color.stroke_width(2),
            ))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|p| Circle::new((p.0, y.at(p.1.v)), 4, color.filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(pts.iter().filter(|p| p.1.hi > p.1.lo).map(|p| {
                PathElement::new(
                    vec![(p.0, y.at(p.1.lo)), (p.0, y.at(p.1.hi))],
                    color.stroke_width(2),
                )
            }))
            .map_err(err)?;
    }
    Ok(())
}

fn draw_dots(
    area: &Area<'_>,
    title: &str,
    x_desc: &str,
    categories: &[String],
    series: &[Dots],
    refs: &[RefLine],
    log: bool,
) -> Result<(), String> {
    let vs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.values.iter().flatten().flat_map(|v| [v.v, v.lo, v.hi]))
        .collect();
    let ref_values: Vec<f64> = refs.iter().map(|r| r.value).collect();
    let Some(x) = Axis::fit(&vs, &ref_values, log) else {
        return Ok(());
    };
    let (x0, x1) = x.range();
    let n = categories.len().max(1);
    // The first category at the top.
    let row = |i: usize| (n - 1 - i) as f64;
    let label_w = categories
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(4) as u32
        * 7
        + 16;
    let y_keys: Vec<f64> = (0..n).map(|i| i as f64).collect();
    // Room above the first row for the labels of reference lines.
    let top = n as f64 - 0.4 + if refs.is_empty() { 0.0 } else { 0.5 };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(46)
        .y_label_area_size(label_w.min(300))
        .build_cartesian_2d(
            Ticked::new(x0, x1, x.key_points()),
            Ticked::new(-0.6, top, y_keys),
        )
        .map_err(err)?;
    let xa = x.clone();
    chart
        .configure_mesh()
        .bold_line_style(grid())
        .light_line_style(TRANSPARENT)
        .x_desc(x_desc)
        .x_label_formatter(&|v| short(xa.value(*v)))
        .y_label_formatter(&|v| {
            let i = v.round() as usize;
            categories
                .get(n - 1 - i.min(n - 1))
                .cloned()
                .unwrap_or_default()
        })
        .draw()
        .map_err(err)?;
    draw_refs(&mut chart, refs, &x, (-0.6, top), false)?;
    let k = series.len().max(1) as f64;
    for (si, s) in series.iter().enumerate() {
        let color = PALETTE[s.color % PALETTE.len()];
        // Series side by side within a row, the first at the top.
        let off = if k > 1.0 {
            0.3 - 0.6 * si as f64 / (k - 1.0)
        } else {
            0.0
        };
        let pts: Vec<(f64, Val)> = s
            .values
            .iter()
            .enumerate()
            .filter_map(|(ci, v)| v.filter(|v| x.shows(v)).map(|v| (row(ci) + off, v)))
            .collect();
        chart
            .draw_series(pts.iter().filter(|p| p.1.hi > p.1.lo).flat_map(|(yc, v)| {
                let (a, b) = (x.at(v.lo), x.at(v.hi));
                let cap = 0.08;
                [
                    PathElement::new(vec![(a, *yc), (b, *yc)], color.stroke_width(2)),
                    PathElement::new(vec![(a, yc - cap), (a, yc + cap)], color.stroke_width(2)),
                    PathElement::new(vec![(b, yc - cap), (b, yc + cap)], color.stroke_width(2)),
                ]
            }))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|(yc, v)| Circle::new((x.at(v.v), *yc), 5, color.filled())),
            )
            .map_err(err)?;
    }
    Ok(())
}

fn draw_stacked(
    area: &Area<'_>,
    title: &str,
    x_desc: &str,
    bars: &[(String, Vec<(String, f64)>)],
    refs: &[RefLine],
) -> Result<(), String> {
    let totals: Vec<f64> = bars
        .iter()
        .map(|b| b.1.iter().map(|s| s.1.max(0.0)).sum())
        .collect();
    let ref_values: Vec<f64> = refs.iter().map(|r| r.value).collect();
    let Some(x) = Axis::linear(&totals, &ref_values) else {
        return Ok(());
    };
    let (x0, x1) = x.range();
    let n = bars.len().max(1);
    let mut parts: Vec<&str> = Vec::new();
    for (_, segs) in bars {
        for (p, _) in segs {
            if !parts.contains(&p.as_str()) {
                parts.push(p);
            }
        }
    }
    let label_w = bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(4) as u32 * 7 + 16;
    let y_keys: Vec<f64> = (0..n).map(|i| i as f64).collect();
    // Room above the first bar for the labels of reference lines.
    let top = n as f64 - 0.4 + if refs.is_empty() { 0.0 } else { 0.5 };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(46)
        .y_label_area_size(label_w.min(300))
        .build_cartesian_2d(
            Ticked::new(x0, x1, x.key_points()),
            Ticked::new(-0.6, top, y_keys),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .bold_line_style(grid())
        .light_line_style(TRANSPARENT)
        .x_desc(x_desc)
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| {
            let i = v.round() as usize;
            bars.get(n - 1 - i.min(n - 1))
                .map(|b| b.0.clone())
                .unwrap_or_default()
        })
        .draw()
        .map_err(err)?;
    for (bi, (_, segs)) in bars.iter().enumerate() {
        let yc = (n - 1 - bi) as f64;
        let mut start = 0.0;
        for (p, ms) in segs {
            let ms = ms.max(0.0);
            let ci = parts.iter().position(|q| q == p).unwrap_or(0);
            let color = PALETTE[ci % PALETTE.len()];
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(start, yc - 0.3), (start + ms, yc + 0.3)],
                    color.filled(),
                )))
                .map_err(err)?;
            start += ms;
        }
    }
    draw_refs(&mut chart, refs, &x, (-0.6, top), false)?;
    Ok(())
}

/// A figure: a title, a legend and panels side by side.
pub struct Figure {
    file: String,
    title: String,
    panels: Vec<Panel>,
}

impl Figure {
    fn new(file: &str, title: &str, panels: Vec<Panel>) -> Figure {
        Figure {
            file: file.to_string(),
            title: title.to_string(),
            panels,
        }
    }

    /// Draws the figure into `dir` (saying `why` when no panel has data).
    fn draw(&self, dir: &Path, why: &str) -> Result<(), String> {
        let rows = self.panels.iter().map(Panel::rows).max().unwrap_or(0) as u32;
        let height = HEIGHT.max(TITLE_H + LEGEND_H + 110 + rows * 15);
        let path = dir.join(&self.file);
        let root: Area<'_> = SVGBackend::new(&path, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        if self.panels.iter().all(Panel::is_empty) {
            root.draw(&Text::new(
                self.title.clone(),
                (20, 20),
                ("sans-serif", 22).into_font(),
            ))
            .map_err(err)?;
            root.draw(&Text::new(
                format!("No data: {}", why.chars().take(110).collect::<String>()),
                (20, 70),
                ("sans-serif", 16).into_font(),
            ))
            .map_err(err)?;
            return root.present().map_err(err);
        }
        let mut legend = Vec::new();
        let mut missing = Vec::new();
        for p in &self.panels {
            p.legend(&mut legend, &mut missing);
        }
        // Legend entries left to right, wrapped to the width of the figure.
        let mut placed = Vec::new();
        let (mut x, mut line) = (16, 0);
        for (name, color) in &legend {
            let w = 34 + 7 * name.chars().count() as i32;
            if x + w > WIDTH as i32 - 16 && x > 16 {
                x = 16;
                line += 1;
            }
            placed.push((x, line, name, color));
            x += w;
        }
        let head_h = TITLE_H + LEGEND_H * (line as u32 + 1);
        let (head, body) = root.split_vertically(head_h);
        head.draw(&Text::new(
            self.title.clone(),
            (16, 8),
            ("sans-serif", 21).into_font(),
        ))
        .map_err(err)?;
        for (x, line, name, color) in placed {
            let y = TITLE_H as i32 + 6 + line * LEGEND_H as i32;
            head.draw(&Rectangle::new([(x, y), (x + 14, y + 14)], color.filled()))
                .map_err(err)?;
            head.draw(&Text::new(
                name.clone(),
                (x + 20, y),
                ("sans-serif", 14).into_font(),
            ))
            .map_err(err)?;
        }
        let body = if missing.is_empty() {
            body
        } else {
            let (body, foot) = body.split_vertically(height - head_h - 24);
            foot.draw(&Text::new(
                format!(
                    "not measured (see the status column of the CSV): {}",
                    missing.join("; ")
                ),
                (16, 4),
                ("sans-serif", 13).into_font().color(&RGBColor(150, 0, 0)),
            ))
            .map_err(err)?;
            body
        };
        let cols = self.panels.len().max(1);
        for (p, area) in self.panels.iter().zip(body.split_evenly((1, cols))) {
            p.draw(&area)?;
        }
        root.present().map_err(err)
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

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The values of `arch` for each scenario of `categories` (the first row of any size).
fn dot_values(rows: &[Row], categories: &[String], arch: &str) -> Vec<Option<Val>> {
    categories
        .iter()
        .map(|c| {
            rows.iter()
                .find(|r| &r.scenario == c && r.architecture == arch)
                .and_then(val)
        })
        .collect()
}

fn lines_panel(
    title: &str,
    y_desc: &str,
    series: Vec<Series>,
    refs: Vec<RefLine>,
    log_y: bool,
) -> Panel {
    Panel::Lines {
        title: title.to_string(),
        y_desc: y_desc.to_string(),
        series,
        refs,
        log_y,
    }
}

fn dots_panel(
    title: &str,
    x_desc: &str,
    categories: Vec<String>,
    series: Vec<Dots>,
    refs: Vec<RefLine>,
    log: bool,
) -> Panel {
    Panel::Dots {
        title: title.to_string(),
        x_desc: x_desc.to_string(),
        categories,
        series,
        refs,
        log,
    }
}

fn series(name: &str, color: usize, points: Vec<Point>) -> Series {
    Series {
        name: name.to_string(),
        color,
        points,
    }
}

fn dots(name: &str, color: usize, values: Vec<Option<Val>>) -> Dots {
    Dots {
        name: name.to_string(),
        color,
        values,
    }
}

/// The sizes at which `scenario` was measured on `arch`, ascending.
fn sizes(rows: &[Row], scenario: &str, arch: &str) -> Vec<usize> {
    let mut v: Vec<usize> = rows
        .iter()
        .filter(|r| r.scenario == scenario && r.architecture == arch && r.size > 0)
        .map(|r| r.size)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The ratio of `num` to `den` over the sizes of `den`.
fn ratio_over_size(
    rows: &[Row],
    iv: &Intervals,
    num: (&str, &str),
    den: (&str, &str),
) -> Vec<Point> {
    sizes(rows, den.0, den.1)
        .into_iter()
        .filter_map(|n| {
            iv.ratio(rows, (num.0, num.1, n), (den.0, den.1, n))
                .map(|v| (n as f64, v))
        })
        .collect()
}

fn e1_figures(rows: &[Row], iv: &Intervals) -> Vec<Figure> {
    let archs = [
        ("pipeline", "pipeline", 0),
        ("query-memory", "query, in memory", 1),
        ("query-disk", "query, persisting", 2),
    ];
    let times = archs
        .iter()
        .map(|(a, name, c)| series(name, *c, over_size(rows, "scratch", a)))
        .collect();
    let ratios = archs[1..]
        .iter()
        .map(|(a, name, c)| {
            series(
                name,
                *c,
                ratio_over_size(rows, iv, ("scratch", a), ("scratch", "pipeline")),
            )
        })
        .collect();
    let mut stages = vec![series(
        "parse to link",
        0,
        over_size(rows, "throughput", "pipeline"),
    )];
    for (i, stage) in ["parse", "check", "lower", "optimize", "codegen"]
        .iter()
        .enumerate()
    {
        stages.push(series(
            stage,
            i + 1,
            over_size(rows, &format!("throughput {stage}"), "pipeline"),
        ));
    }
    vec![
        Figure::new(
            "e1-scratch.svg",
            "E1: from-scratch build (whole process)",
            vec![
                lines_panel("wall time", "wall time (ms)", times, vec![], true),
                lines_panel(
                    "ratio to the pipeline",
                    "query build / pipeline build",
                    ratios,
                    vec![reference(1.10, "goal ≤ 1.10")],
                    false,
                ),
            ],
        ),
        Figure::new(
            "e1-throughput.svg",
            "E1: pipeline throughput (compile phases only)",
            vec![lines_panel(
                "throughput per stage",
                "lines per second",
                stages,
                vec![reference(1e6, "goal ≥ 1M lines/s")],
                true,
            )],
        ),
    ]
}

fn e2_figures(rows: &[Row], _: &Intervals) -> Vec<Figure> {
    let hashers = [
        ("query-sip128", "SipHasher128"),
        ("query-xxh3", "xxh3-128"),
        ("query-blake3", "blake3"),
    ];
    // Kinds by their hashing time with the default hasher, the dearest first.
    let mut kinds = scenarios(rows, |r| r.scenario.starts_with("kind:"));
    let time = |k: &str| {
        rows.iter()
            .find(|r| r.scenario == k && r.architecture == crate::runner::exps::E2_DEFAULT_ARCH)
            .and_then(val)
            .map_or(f64::NEG_INFINITY, |v| v.v)
    };
    kinds.sort_by(|a, b| time(b).total_cmp(&time(a)));
    // Kinds that are never hashed (`no_hash`, no key bytes) have no place on the
    // logarithmic axis: the panel names them.
    let (hashed, unhashed): (Vec<String>, Vec<String>) = kinds.into_iter().partition(|k| {
        hashers.iter().any(|(a, _)| {
            rows.iter()
                .find(|r| &r.scenario == k && r.architecture == *a)
                .and_then(val)
                .is_some_and(|v| v.v > 0.0)
        })
    });
    let kinds = hashed;
    let kind_dots = hashers
        .iter()
        .enumerate()
        .map(|(i, (a, name))| dots(name, i, dot_values(rows, &kinds, a)))
        .collect();
    let kind_title = if unhashed.is_empty() {
        "hashing time per kind".to_string()
    } else {
        let names: Vec<&str> = unhashed
            .iter()
            .map(|k| k.trim_start_matches("kind:"))
            .collect();
        format!(
            "hashing time per kind (no time measured: {})",
            names.join(", ")
        )
    };
    let labels: Vec<String> = kinds
        .iter()
        .map(|k| k.trim_start_matches("kind:").to_string())
        .collect();
    let configs: Vec<(&str, &str)> = std::iter::once(("pipeline", "pipeline"))
        .chain(hashers.iter().copied())
        .collect();
    let wall: Vec<Option<Val>> = configs
        .iter()
        .map(|(a, _)| find_any(rows, "scratch", a))
        .collect();
    let share = |scenario: &str| {
        hashers
            .iter()
            .map(|(a, _)| find_any(rows, scenario, a))
            .collect::<Vec<_>>()
    };
    vec![
        Figure::new(
            "e2-hashing.svg",
            "E2: hashing time per query kind and hasher (from scratch)",
            vec![dots_panel(
                &kind_title,
                "hashing time (ms)",
                labels,
                kind_dots,
                vec![],
                true,
            )],
        ),
        Figure::new(
            "e2-hashers.svg",
            "E2: from-scratch build by hasher",
            vec![
                dots_panel(
                    "wall time",
                    "wall time (ms)",
                    configs.iter().map(|c| c.1.to_string()).collect(),
                    vec![dots("wall time", 0, wall)],
                    vec![],
                    false,
                ),
                dots_panel(
                    "hashing share",
                    "hashing time (% of the build)",
                    hashers.iter().map(|c| c.1.to_string()).collect(),
                    vec![
                        dots("% of the compiler's time", 1, share("hash-share")),
                        dots("% of wall time", 2, share("hash-share-of-wall")),
                    ],
                    vec![reference(5.0, "goal ≤ 5 %")],
                    false,
                ),
            ],
        ),
    ]
}

/// The value of the first `ok` row of `scenario` on `arch`, any size.
fn find_any(rows: &[Row], scenario: &str, arch: &str) -> Option<Val> {
    rows.iter()
        .find(|r| r.scenario == scenario && r.architecture == arch)
        .and_then(val)
}

fn e3_figures(rows: &[Row], iv: &Intervals) -> Vec<Figure> {
    let edits = scenarios(rows, |r| r.architecture == "query");
    // The pipeline's build of each edited program ("scratch" for no change).
    let pipeline_of = |e: &str| {
        if rows
            .iter()
            .any(|r| r.scenario == e && r.architecture == "pipeline")
        {
            e.to_string()
        } else {
            "scratch".to_string()
        }
    };
    let pipeline: Vec<Option<Val>> = edits
        .iter()
        .map(|e| find_any(rows, &pipeline_of(e), "pipeline"))
        .collect();
    let ratios: Vec<Option<Val>> = edits
        .iter()
        .map(|e| {
            let size = rows
                .iter()
                .find(|r| &r.scenario == e && r.architecture == "query")
                .map_or(0, |r| r.size);
            iv.ratio(
                rows,
                (e, "query", size),
                (&pipeline_of(e), "pipeline", size),
            )
        })
        .collect();
    vec![Figure::new(
        "e3-edits.svg",
        "E3: rebuild after one edit (whole process)",
        vec![
            dots_panel(
                "wall time",
                "wall time (ms)",
                edits.clone(),
                vec![
                    dots("query (incremental)", 1, dot_values(rows, &edits, "query")),
                    dots("pipeline (from scratch)", 0, pipeline),
                ],
                vec![],
                false,
            ),
            dots_panel(
                "query rebuild / pipeline build",
                "ratio",
                edits,
                vec![dots("ratio", 3, ratios)],
                vec![reference(0.03, "leaf-body goal ≤ 0.03")],
                false,
            ),
        ],
    )]
}

fn e4_figures(rows: &[Row], _: &Intervals) -> Vec<Figure> {
    let edits = scenarios(rows, |r| r.architecture == "query-cutoff");
    vec![Figure::new(
        "e4-cutoff.svg",
        "E4: incremental rebuild with and without early cutoff",
        vec![dots_panel(
            "wall time",
            "wall time (ms)",
            edits.clone(),
            vec![
                dots("early cutoff", 0, dot_values(rows, &edits, "query-cutoff")),
                dots("no cutoff", 1, dot_values(rows, &edits, "query-no-cutoff")),
            ],
            vec![],
            false,
        )],
    )]
}

fn e5_figures(rows: &[Row], _: &Intervals) -> Vec<Figure> {
    let cats = names(&["no-change", "top-of-file"]);
    vec![Figure::new(
        "e5-positions.svg",
        "E5: lines inserted at the top of the largest file",
        vec![dots_panel(
            "wall time",
            "wall time (ms)",
            cats.clone(),
            vec![
                dots(
                    "relative spans",
                    0,
                    dot_values(rows, &cats, "query-relative"),
                ),
                dots(
                    "absolute spans",
                    1,
                    dot_values(rows, &cats, "query-absolute"),
                ),
            ],
            vec![],
            false,
        )],
    )]
}

fn e6_figures(rows: &[Row], iv: &Intervals, phases: &[PhaseRow]) -> Vec<Figure> {
    let times = vec![
        series(
            "pipeline, from scratch",
            0,
            over_size(rows, "scratch", "pipeline"),
        ),
        series("query, no change", 1, over_size(rows, "no-change", "query")),
        series(
            "query, one leaf-body edit",
            2,
            over_size(rows, "leaf-body", "query"),
        ),
    ];
    let ratios = vec![
        series(
            "query, no change",
            1,
            ratio_over_size(rows, iv, ("no-change", "query"), ("scratch", "pipeline")),
        ),
        series(
            "query, one leaf-body edit",
            2,
            ratio_over_size(rows, iv, ("leaf-body", "query"), ("scratch", "pipeline")),
        ),
    ];
    vec![
        Figure::new(
            "e6-scaling.svg",
            "E6: rebuild cost against program size",
            vec![
                lines_panel("wall time", "wall time (ms)", times, vec![], true),
                lines_panel(
                    "ratio to the pipeline",
                    "rebuild / pipeline build",
                    ratios,
                    vec![
                        reference(0.02, "no-change goal ≤ 0.02"),
                        reference(0.03, "leaf-body goal ≤ 0.03"),
                    ],
                    false,
                ),
            ],
        ),
        rebuild_phases_figure(rows, phases),
    ]
}

/// The kinds of build the rebuild-phases figure shows, as the phases CSV names them.
pub const REBUILD_KINDS: [&str; 2] = ["query, no change", "query, leaf-body edit"];

/// Where a no-change rebuild and a leaf-body rebuild spend their time at the largest size
/// of E6 (default shape): stacked bars of their phases (left, linear) and each phase's
/// median (right), against the pipeline's from-scratch build at that size as a dashed
/// line (the median wall time of E6's row).
fn rebuild_phases_figure(rows: &[Row], phases: &[PhaseRow]) -> Figure {
    let at = phases::at_largest_size(phases, "e6");
    let of = |build: &str| -> Vec<(String, f64)> {
        at.iter()
            .filter(|p| p.build == build)
            .map(|p| (p.phase.clone(), p.ms))
            .collect()
    };
    let bars: Vec<(String, Vec<(String, f64)>)> = REBUILD_KINDS
        .iter()
        .map(|b| (b.to_string(), of(b)))
        .filter(|b| !b.1.is_empty())
        .collect();
    // The phases in the order of the bars' segments, first seen first.
    let mut names: Vec<String> = Vec::new();
    for (_, segs) in &bars {
        for (p, _) in segs {
            if !names.contains(p) {
                names.push(p.clone());
            }
        }
    }
    let dot_series: Vec<Dots> = REBUILD_KINDS
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let segs = of(b);
            let values = names
                .iter()
                .map(|n| {
                    segs.iter().find(|s| &s.0 == n).map(|s| Val {
                        v: s.1,
                        lo: s.1,
                        hi: s.1,
                    })
                })
                .collect();
            // Colors after those the phases take in the bars.
            dots(b, names.len() + i, values)
        })
        .collect();
    let big = sizes(rows, "scratch", "pipeline").last().copied();
    let refs: Vec<RefLine> = big
        .and_then(|n| find(rows, "scratch", "pipeline", n))
        .and_then(val)
        .map(|v| reference(v.v, &format!("pipeline from scratch: {} ms", short(v.v))))
        .into_iter()
        .collect();
    let size = at
        .first()
        .map(|p| p.lines.unwrap_or(p.size))
        .filter(|n| *n > 0);
    let n = at.iter().map(|p| p.n).max().filter(|n| *n > 0);
    let title = format!(
        "E6: where a rebuild spends its time{}{}",
        size.map_or(String::new(), |s| format!(" ({} lines)", short(s as f64))),
        n.map_or(String::new(), |n| format!(", medians of n = {n}")),
    );
    Figure::new(
        "e6-phases.svg",
        &title,
        vec![
            Panel::Stacked {
                title: "phases of one rebuild".to_string(),
                x_desc: "time (ms)".to_string(),
                bars,
                refs: refs.clone(),
            },
            // The same line, labelled once (on the left).
            dots_panel(
                "each phase",
                "time (ms)",
                names,
                dot_series,
                refs.iter().map(|r| reference(r.value, "")).collect(),
                false,
            ),
        ],
    )
}

fn e7_figures(rows: &[Row], iv: &Intervals) -> Vec<Figure> {
    vec![
        Figure::new(
            "e7-cache-size.svg",
            "E7: size of the cache on disk",
            vec![
                lines_panel(
                    "per item",
                    "cache size (bytes)",
                    vec![series(
                        "per item",
                        0,
                        over_size(rows, "cache-size", "query-item"),
                    )],
                    vec![],
                    true,
                ),
                lines_panel(
                    "per file relative to per item",
                    "per-file cache / per-item cache",
                    vec![series(
                        "per file / per item",
                        1,
                        ratio_over_size(
                            rows,
                            iv,
                            ("cache-size", "query-file"),
                            ("cache-size", "query-item"),
                        ),
                    )],
                    vec![reference(1.0, "equal size")],
                    false,
                ),
            ],
        ),
        Figure::new(
            "e7-load-save.svg",
            "E7: cache load and save time",
            vec![
                lines_panel(
                    "load (no-change rebuild)",
                    "time (ms)",
                    vec![
                        series("per item", 0, over_size(rows, "load", "query-item")),
                        series("per file", 1, over_size(rows, "load", "query-file")),
                    ],
                    vec![],
                    true,
                ),
                lines_panel(
                    "save (from-scratch build)",
                    "time (ms)",
                    vec![
                        series("per item", 0, over_size(rows, "save", "query-item")),
                        series("per file", 1, over_size(rows, "save", "query-file")),
                    ],
                    vec![],
                    true,
                ),
            ],
        ),
    ]
}

/// E8's ratio `what` (of `exps::RATIOS`) for `scenario` at `size`: the ratio row's median
/// with its interval.
fn e8_ratio(rows: &[Row], what: &str, scenario: &str, size: usize) -> Option<Val> {
    let r = find(rows, &exps::ratio_scenario(what, scenario), "ratio", size)?;
    if !r.is_ok() {
        return None;
    }
    let v = r.median?;
    Some(Val {
        v,
        lo: r.low.unwrap_or(v),
        hi: r.high.unwrap_or(v),
    })
}

/// E8: per scenario (the edits by name), each compiler's time relative to its own full
/// build, and Rill's relative to rustc's, at every size (labelled by actual lines), with
/// their intervals.
fn e8_figures(rows: &[Row], _: &Intervals) -> Vec<Figure> {
    let scenarios = scenarios(rows, |r| r.architecture == "rustc");
    let label = |s: &str| {
        s.strip_prefix("incr-patched:")
            .map_or(s.to_string(), |e| format!("edit: {e}"))
    };
    let categories: Vec<String> = scenarios.iter().map(|s| label(s)).collect();
    let sizes = super::exps::rustc_sizes(rows);
    let at = |what: &str, size: usize| -> Vec<Option<Val>> {
        scenarios
            .iter()
            .map(|s| e8_ratio(rows, what, s, size))
            .collect()
    };
    let mut own = Vec::new();
    let mut across = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        // The actual line count of the program, the nominal size where no row has it.
        let n = rows
            .iter()
            .find(|r| r.size == size && r.architecture == "rustc")
            .and_then(|r| r.lines)
            .map_or(short(size as f64), |n| short(n as f64));
        own.push(dots(
            &format!("rustc, {n} lines"),
            2 * i,
            at("rustc/full", size),
        ));
        own.push(dots(
            &format!("Rill, {n} lines"),
            2 * i + 1,
            at("rill/full", size),
        ));
        across.push(dots(
            &format!("{n} lines"),
            2 * i + 1,
            at("rill/rustc", size),
        ));
    }
    vec![Figure::new(
        "e8-rustc.svg",
        "E8: rustc and Rill on the same programs and edits (95 % intervals)",
        vec![
            dots_panel(
                "relative to the compiler's own full build",
                "rebuild / full build",
                categories.clone(),
                own,
                vec![reference(1.0, "= full build")],
                true,
            ),
            dots_panel(
                "Rill (query, hash detection) relative to rustc",
                "Rill / rustc, same scenario",
                categories,
                across,
                vec![reference(1.0, "= rustc")],
                true,
            ),
        ],
    )]
}

fn e9_figures(rows: &[Row], iv: &Intervals) -> Vec<Figure> {
    let programs = scenarios(rows, |r| r.architecture == "rustc-O0");
    let configs = [
        ("rustc-O3", "rustc -O3", 0),
        ("jit", "Rill JIT", 1),
        ("interp", "Rill interpreter", 2),
    ];
    let ratios = configs
        .iter()
        .map(|(a, name, c)| {
            let v = programs
                .iter()
                .map(|p| {
                    let size = rows
                        .iter()
                        .find(|r| &r.scenario == p && r.architecture == "rustc-O0")
                        .map_or(0, |r| r.size);
                    iv.ratio(rows, (p, a, size), (p, "rustc-O0", size))
                })
                .collect();
            dots(name, *c, v)
        })
        .collect();
    vec![Figure::new(
        "e9-runtime.svg",
        "E9: run time relative to rustc -O0 (whole process)",
        vec![dots_panel(
            "run time / rustc -O0's",
            "ratio to rustc -O0",
            programs,
            ratios,
            vec![reference(1.0, "rustc -O0 (JIT goal ≤ 1)")],
            true,
        )],
    )]
}

fn e10_figures(rows: &[Row], _: &Intervals) -> Vec<Figure> {
    let cats = scenarios(rows, |_| true);
    vec![Figure::new(
        "e10-diagnostics.svg",
        "E10: time to the first diagnostic and to a complete build",
        vec![dots_panel(
            "wall time",
            "time (ms)",
            cats.clone(),
            vec![
                dots("pipeline", 0, dot_values(rows, &cats, "pipeline")),
                dots("query", 1, dot_values(rows, &cats, "query")),
            ],
            vec![],
            false,
        )],
    )]
}

/// The figures of experiment `id` (none for an unknown one). `results` is the directory of
/// the CSVs (for the intervals and E6's phases).
fn experiment_figures(id: &str, rows: &[Row], results: &Path) -> Vec<Figure> {
    let iv = super::exps::ALL
        .iter()
        .find(|e| e.id == id)
        .map(|e| Intervals::read(&results.join(super::exps::csv_name(e))))
        .unwrap_or_default();
    match id {
        "e1" => e1_figures(rows, &iv),
        "e2" => e2_figures(rows, &iv),
        "e3" => e3_figures(rows, &iv),
        "e4" => e4_figures(rows, &iv),
        "e5" => e5_figures(rows, &iv),
        "e6" => e6_figures(
            rows,
            &iv,
            &phases::read_csv(&results.join(phases::csv_name("e6"))),
        ),
        "e7" => e7_figures(rows, &iv),
        "e8" => e8_figures(rows, &iv),
        "e9" => e9_figures(rows, &iv),
        "e10" => e10_figures(rows, &iv),
        _ => Vec::new(),
    }
}

/// The first status that is not `ok` among the rows, to exchart a gap.
fn why_empty(rows: &[Row]) -> String {
    rows.iter()
        .find(|r| !r.is_ok())
        .map(|r| r.status.clone())
        .unwrap_or_else(|| "no rows".to_string())
}

/// Draws the figures of experiment `id` from its rows into `dir` (the directory
/// `figures/` under the results); returns the files.
pub fn figures(id: &str, rows: &[Row], dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    // The figures show the default shape; the other shapes' rows are in the CSVs.
    let rows: Vec<Row> = rows
        .iter()
        .filter(|r| r.is_default_shape())
        .cloned()
        .collect();
    let rows = &rows[..];
    let results = dir.parent().unwrap_or(dir);
    let why = why_empty(rows);
    let mut out = Vec::new();
    for f in &experiment_figures(id, rows, results) {
        f.draw(dir, &why)?;
        out.push(f.file.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scenario: &str, arch: &str, size: usize, ms: f64) -> Row {
        let mut r = Row::new(scenario, arch, size);
        r.median = Some(ms);
        r.min = Some(ms * 0.9);
        r.max = Some(ms * 1.2);
        r.repetitions = 3;
        r
    }

    #[test]
    fn draws_lines_dots_and_empty_figures() {
        let results = tempfile::tempdir().unwrap();
        let dir = results.path().join("figures");
        let mut rows = Vec::new();
        for (size, ms) in [(1000, 10.0), (10000, 90.0)] {
            rows.push(row("scratch", "pipeline", size, ms));
            rows.push(row("scratch", "query-memory", size, ms * 1.3));
        }
        rows.push(Row::new("scratch", "query-disk", 1000).without_number("unavailable: no query"));
        let files = figures("e1", &rows, &dir).unwrap();
        assert_eq!(files.len(), 2);
        let svg = std::fs::read_to_string(dir.join("e1-scratch.svg")).unwrap();
        assert!(svg.contains("<svg") && svg.contains("program size (nominal lines)"));
        // The goal is drawn and labelled, the missing series named.
        assert!(svg.contains("goal ≤ 1.10"), "{svg}");
        assert!(svg.contains("not measured") && svg.contains("query, persisting"));
        // The throughput figure has no data: it says why.
        let svg = std::fs::read_to_string(dir.join("e1-throughput.svg")).unwrap();
        assert!(svg.contains("No data"), "{svg}");
        let files = figures("e10", &rows, &dir).unwrap();
        let svg = std::fs::read_to_string(dir.join(&files[0])).unwrap();
        assert!(svg.contains("<svg"));
    }

    #[test]
    fn e8_shows_ratios_with_intervals_per_edit_and_size() {
        let results = tempfile::tempdir().unwrap();
        let dir = results.path().join("figures");
        let leaf = "incr-patched:leaf-body";
        let mut rows = Vec::new();
        for (size, lines) in [(10_000, 9_475), (100_000, 93_250)] {
            for sc in ["full", leaf] {
                let mut r = row(sc, "rustc", size, 100.0);
                r.lines = Some(lines);
                rows.push(r);
            }
            for (what, v) in [
                ("rustc/full", 0.7),
                ("rill/full", 0.2),
                ("rill/rustc", 0.03),
            ] {
                let mut r = row(&exps::ratio_scenario(what, leaf), "ratio", size, v);
                (r.low, r.high) = (Some(v * 0.9), Some(v * 1.1));
                rows.push(r);
            }
        }
        let v = e8_ratio(&rows, "rill/full", leaf, 100_000).unwrap();
        assert_eq!((v.v, v.lo, v.hi), (0.2, 0.2 * 0.9, 0.2 * 1.1));
        assert!(e8_ratio(&rows, "rill/full", "full", 100_000).is_none());
        let files = figures("e8", &rows, &dir).unwrap();
        assert_eq!(files, ["e8-rustc.svg"]);
        let svg = std::fs::read_to_string(dir.join("e8-rustc.svg")).unwrap();
        // Each edit by name, each size by its actual lines.
        assert!(svg.contains("edit: leaf-body"), "{svg}");
        assert!(svg.contains("Rill, 93.2k lines"), "{svg}");
        assert!(svg.contains("rustc, 9.47k lines"), "{svg}");
    }

    #[test]
    fn ratio_intervals_come_from_the_csv_when_present() {
        let results = tempfile::tempdir().unwrap();
        let rows = vec![
            row("scratch", "pipeline", 1000, 10.0),
            row("scratch", "query-disk", 1000, 15.0),
        ];
        let iv = Intervals::default();
        let r = iv
            .ratio(
                &rows,
                ("scratch", "query-disk", 1000),
                ("scratch", "pipeline", 1000),
            )
            .unwrap();
        assert_eq!((r.v, r.lo, r.hi), (1.5, 1.5, 1.5));
        let csv = results.path().join("e01-scratch.csv");
        std::fs::write(
            &csv,
            "scenario,architecture,size,median,unit,low,high\n\
             scratch,query-disk,1000,1.5,ratio,1.4,1.62\n\
             scratch,pipeline,1000,10,ms,9,11\n",
        )
        .unwrap();
        let iv = Intervals::read(&csv);
        let r = iv
            .ratio(
                &rows,
                ("scratch", "query-disk", 1000),
                ("scratch", "pipeline", 1000),
            )
            .unwrap();
        assert_eq!((r.v, r.lo, r.hi), (1.5, 1.4, 1.62));
        // A CSV without the columns has no intervals.
        assert!(Intervals::read(&results.path().join("absent.csv"))
            .0
            .is_empty());
    }

    #[test]
    fn axes_and_labels() {
        assert_eq!(short(1500.0), "1.5k");
        assert_eq!(short(20000.0), "20k");
        assert_eq!(short(1e6), "1M");
        assert_eq!(short(0.002), "0.002");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(35.0), "35");
        // Log ticks fall inside a narrow range of data.
        let t = log_ticks(20.0, 45.0);
        assert!(
            t.len() >= 2 && t.iter().all(|x| (20.0..=45.0).contains(x)),
            "{t:?}"
        );
        let t = log_ticks(0.0001, 3.0);
        assert!(t.contains(&0.001) && t.contains(&1.0), "{t:?}");
        // Narrow spans are linear from zero; wide ones logarithmic.
        let a = Axis::fit(&[20.0, 400.0], &[], false).unwrap();
        assert!(!a.log && a.lo == 0.0 && a.ticks.len() >= 4);
        let a = Axis::fit(&[0.0001, 3.0], &[], false).unwrap();
        assert!(a.log);
        // A reference line is inside the axis.
        let a = Axis::fit(&[0.1, 0.2], &[1.1], false).unwrap();
        assert!(a.hi > 1.1);
        let t: Vec<String> = linear_ticks(0.0, 1.0).into_iter().map(short).collect();
        assert_eq!(t, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
    }

    #[test]
    fn the_rebuild_phases_figure_shows_both_rebuilds_against_the_pipeline() {
        let results = tempfile::tempdir().unwrap();
        let p = results.path().join(phases::csv_name("e6"));
        let phase = |build: &str, size: usize, phase: &str, ms: f64| PhaseRow {
            experiment: "e6".into(),
            shape: "default".into(),
            size,
            lines: Some(size - 7),
            build: build.into(),
            scenario: String::new(),
            architecture: "query".into(),
            phase: phase.into(),
            ms,
            n: 4,
        };
        let rows = vec![
            phase("query, no change", 1000, "load_cache", 1.0),
            phase("query, no change", 10000, "load_cache", 5.0),
            phase("query, no change", 10000, "detect_changes", 2.0),
            phase("query, leaf-body edit", 10000, "load_cache", 5.5),
            phase("query, leaf-body edit", 10000, "save_cache", 9.0),
            phase("query, leaf-body edit", 10000, "process", 3.0),
        ];
        phases::write_csv(&p, &rows).unwrap();
        let scratch = vec![row("scratch", "pipeline", 10000, 250.0)];
        let files = figures("e6", &scratch, &results.path().join("figures")).unwrap();
        assert!(files.contains(&"e6-phases.svg".to_string()));
        let svg =
            std::fs::read_to_string(results.path().join("figures").join("e6-phases.svg")).unwrap();
        for words in [
            "detect_changes",
            "save_cache",
            "query, leaf-body edit",
            "pipeline from scratch: 250 ms",
            "9.99k lines",
            "n = 4",
        ] {
            assert!(svg.contains(words), "{words}: {svg}");
        }
    }
}
