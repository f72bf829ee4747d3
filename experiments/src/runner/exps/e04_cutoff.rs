//! E4: the edits of E3 with early cutoff on and off, built in the same rounds.

use rill_gen::EditKind;

use super::e03_edits::EditSeries;
use super::readout::{median, pairs, wall};
use crate::runner::stats;
use crate::runner::workload::Shape;
use crate::runner::{Ctx, Outcome};

/// The edits whose rebuilds E4's geometric mean averages: every kind but the fix of an
/// error, whose rebuild (on the cache of the good build and of the build with the error)
/// finds the fixed program equal to the good one, a rebuild without a change.
fn averaged(kind: EditKind) -> bool {
    kind != EditKind::FixError
}

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let series = EditSeries {
        label: "E4",
        variants: &[(None, "query-cutoff"), (Some("off"), "query-no-cutoff")],
        with_pipeline: false,
        shape: Shape::Default,
        only: None,
    };
    let mut o = series.run(ctx)?;
    values(ctx, &mut o);
    Ok(o)
}

/// The paper values of E4.
fn values(ctx: &Ctx, o: &mut Outcome) {
    let size = ctx.profile.main_size;
    o.value("e4.size", Some(size as f64));
    let mut strata = Vec::new();
    let mut kinds = Vec::new();
    for &kind in EditKind::ALL {
        let key = kind.name().replace('-', "_");
        let on = (kind.name(), "query-cutoff", size);
        let off = (kind.name(), "query-no-cutoff", size);
        let a = median(&o.rows, on);
        let b = median(&o.rows, off);
        o.value(&format!("e4.{key}_cutoff_ms"), a);
        o.value(&format!("e4.{key}_nocutoff_ms"), b);
        o.paired_ratio_value(&format!("e4.{key}_nocutoff_over_cutoff"), off, on);
        let p = pairs(&o.samples, off, wall, on, wall);
        if averaged(kind) && !p.is_empty() {
            strata.push(p);
            kinds.push(kind.name());
        }
    }
    let iv = stats::geomean_of_paired_ratios(&strata);
    let note = format!(
        "geometric mean over the kinds {} of median no-cutoff / median cutoff, paired by round; \
         the fix of an error (a rebuild without a change) is left out",
        kinds.join(", ")
    );
    o.ratio_row("e4.geomean_nocutoff_over_cutoff", size, iv, &note);
    o.interval_value("e4.geomean_nocutoff_over_cutoff", iv);
    o.text("e4.geomean_kinds", kinds.join(", "));
    o.value("e4.geomean_kind_count", Some(kinds.len() as f64));
    for (arch, key) in [("query-cutoff", "cutoff"), ("query-no-cutoff", "nocutoff")] {
        o.median_value(&format!("e4.noop_{key}_ms"), ("no-change", arch, size));
        o.counter_value(
            &format!("e4.noop_{key}_executed"),
            ("no-change", arch, size),
            |r| r.executed,
        );
    }
}
