//! Reading an experiment's rows back for the paper: medians, counters, ratios, and the
//! reason a number is missing.

use crate::runner::stats;
use crate::runner::table::{self, Row};
use crate::runner::Outcome;

/// A row's key: scenario, architecture, program size.
pub type Key<'a> = (&'a str, &'a str, usize);

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

/// The ratio of the medians of `num` and `den`, and why it may be missing.
pub fn ratio_or_reason(rows: &[Row], num: Key<'_>, den: Key<'_>) -> (Option<f64>, String) {
    let v = stats::ratio(median(rows, num), median(rows, den));
    (v, first_error(rows, &[num, den]))
}

impl Outcome {
    /// The paper value `key`: the median of the row of `row`.
    pub(super) fn median_value(&mut self, key: &str, row: Key<'_>) {
        let v = median(&self.rows, row);
        self.value(key, v);
    }

    /// The headline key `key`: the ratio of the medians of the rows `num` and `den`, or
    /// why it is missing.
    pub(super) fn ratio_headline(&mut self, key: &str, num: Key<'_>, den: Key<'_>) {
        let (v, why) = ratio_or_reason(&self.rows, num, den);
        self.headline(key, v, why);
    }

    /// The paper value `key`: the ratio of the medians of the rows `num` and `den`.
    pub(super) fn ratio_value(&mut self, key: &str, num: Key<'_>, den: Key<'_>) {
        let v = stats::ratio(median(&self.rows, num), median(&self.rows, den));
        self.value(key, v);
    }

    /// The paper value `key`: a counter of the row of `row`.
    pub(super) fn counter_value(&mut self, key: &str, row: Key<'_>, of: fn(&Row) -> Option<u64>) {
        let v = counter(&self.rows, row, of);
        self.value(key, v);
    }
}
