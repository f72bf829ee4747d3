//! Reading an experiment's rows and samples back for the paper: medians, counters,
//! ratios with their bootstrap intervals, and the reason a number is missing.

use crate::runner::samples::{self, Sample};
use crate::runner::stats::{self, Interval};
use crate::runner::table::{self, Row};
use crate::runner::Outcome;

/// A row's key: scenario, architecture, program size.
pub type Key<'a> = (&'a str, &'a str, usize);

/// What a ratio divides: a quantity of the samples of one configuration.
pub type Quantity = fn(&Sample) -> Option<f64>;

/// Wall time, the default quantity.
pub fn wall(s: &Sample) -> Option<f64> {
    Some(s.wall_ms)
}

/// Peak resident memory.
pub fn peak_rss(s: &Sample) -> Option<f64> {
    s.peak_rss_kb.map(|k| k as f64)
}

/// The median of the `ok` row of `key`.
pub fn median(rows: &[Row], (scenario, arch, size): Key<'_>) -> Option<f64> {
    table::median_of(rows, scenario, arch, size)
}

/// A counter (`executed`, `codegen_executed`, ...) of the `ok` row of `key`.
pub fn counter(
    rows: &[Row],
    (scenario, arch, size): Key<'_>,
    of: fn(&Row) -> Option<u64>,
) -> Option<f64> {
    table::find(rows, scenario, arch, size)
        .filter(|r| r.is_ok())
        .and_then(of)
        .map(|c| c as f64)
}

/// Why the first of `keys` without a number has none.
pub fn first_error(rows: &[Row], keys: &[Key<'_>]) -> String {
    for (s, a, n) in keys {
        match table::find(rows, s, a, *n) {
            Some(r) if !r.is_ok() => return format!("{s}/{a} at {n} lines: {}", r.status),
            None => return format!("{s}/{a} at {n} lines: not measured"),
            _ => {}
        }
    }
    "not measured".to_string()
}

/// The pairs `(num of the sample of num_key, den of the sample of den_key)`, by round.
pub fn pairs(
    samples: &[Sample],
    (ns, na, nn): Key<'_>,
    num: Quantity,
    (ds, da, dn): Key<'_>,
    den: Quantity,
) -> Vec<(f64, f64)> {
    let a: Vec<&Sample> = samples::of_config(samples, ns, na, nn).collect();
    let b: Vec<&Sample> = samples::of_config(samples, ds, da, dn).collect();
    samples::paired(&a, &b, num, den)
}

impl Outcome {
    /// The paper value `key`: the median of the row of `row`.
    pub(super) fn median_value(&mut self, key: &str, row: Key<'_>) {
        let v = median(&self.rows, row);
        self.value(key, v);
    }

    /// The ratio row `ratio:KEY` (unit `ratio`, `low`/`high` its interval, repetitions the
    /// paired rounds) of a statistic of paired rounds.
    pub(super) fn ratio_row(&mut self, key: &str, size: usize, iv: Option<Interval>, note: &str) {
        let mut row = Row::new(format!("ratio:{key}"), "ratio", size).with_interval(iv, "ratio");
        row.note = note.to_string();
        self.rows.push(row);
    }

    /// The ratio of wall-time medians of the configurations `num` and `den` over the
    /// rounds in which both were built, with its interval: the value `key` (and
    /// `KEY_low`, `KEY_high`, `KEY_n`) and a ratio row; `None` when there is no pair.
    pub(super) fn paired_ratio_value(
        &mut self,
        key: &str,
        num: Key<'_>,
        den: Key<'_>,
    ) -> Option<Interval> {
        self.instruction_ratio(key, num, den);
        self.ratio_of(key, (num, wall), (den, wall))
    }

    /// As [`Outcome::paired_ratio_value`], of any quantities of the samples.
    pub(super) fn ratio_of(
        &mut self,
        key: &str,
        num: (Key<'_>, Quantity),
        den: (Key<'_>, Quantity),
    ) -> Option<Interval> {
        let iv = self.paired_value(key, num, den);
        let note = format!(
            "median {}/{} over median {}/{}, paired by round; low/high: bootstrap 95 % interval",
            num.0 .0, num.0 .1, den.0 .0, den.0 .1
        );
        self.ratio_row(key, num.0 .2, iv, &note);
        iv
    }

    /// The value `key` (with `KEY_low`, `KEY_high`, `KEY_n`): the ratio of the medians of
    /// quantities of the samples of `num` and `den` over the rounds in which both were
    /// built, without a row of its own (for values per size that the paper reads but the
    /// tables need not repeat).
    pub(super) fn paired_value(
        &mut self,
        key: &str,
        (num, nq): (Key<'_>, Quantity),
        (den, dq): (Key<'_>, Quantity),
    ) -> Option<Interval> {
        let iv = stats::paired_ratio(&pairs(&self.samples, num, nq, den, dq));
        self.interval_value(key, iv);
        iv
    }

    /// The headline key `key`: the ratio of wall-time medians of the rows `num` and `den`
    /// over their paired rounds, with its interval, or why it is missing.
    pub(super) fn ratio_headline(&mut self, key: &str, num: Key<'_>, den: Key<'_>) {
        let iv = self.paired_ratio_value(key, num, den);
        let why = first_error(&self.rows, &[num, den]);
        self.headline(key, iv, why);
    }

    /// The paper value `key`: a counter of the row of `row`.
    pub(super) fn counter_value(&mut self, key: &str, row: Key<'_>, of: fn(&Row) -> Option<u64>) {
        let v = counter(&self.rows, row, of);
        self.value(key, v);
    }

    /// `KEY_instructions`: the ratio of the instruction counts of `num` and `den` (each
    /// counted once under callgrind, `--instructions`), when both were counted.
    pub(super) fn instruction_ratio(&mut self, key: &str, num: Key<'_>, den: Key<'_>) {
        let count = |rows: &[Row], (s, a, n): Key<'_>| {
            table::find(rows, s, a, n).and_then(|r| r.instructions)
        };
        let (a, b) = (count(&self.rows, num), count(&self.rows, den));
        if a.is_some() || b.is_some() {
            let v = stats::ratio(a.map(|x| x as f64), b.map(|x| x as f64));
            self.value(&format!("{key}_instructions"), v);
        }
    }
}
