//! E4: the edits of E3 with early cutoff on and off.

use rill_gen::EditKind;

use super::e03_edits::EditSeries;
use super::readout::median;
use crate::runner::stats;
use crate::runner::{Ctx, Outcome};

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let on = EditSeries {
        label: "E4",
        cutoff: None,
        arch: "query-cutoff",
        with_pipeline: false,
    };
    let off = EditSeries {
        label: "E4off",
        cutoff: Some("off"),
        arch: "query-no-cutoff",
        with_pipeline: false,
    };
    let mut o = on.run(ctx)?;
    o.rows.extend(off.run(ctx)?.rows);
    values(ctx, &mut o);
    Ok(o)
}

/// The paper values of E4.
fn values(ctx: &Ctx, o: &mut Outcome) {
    let size = ctx.profile.main_size;
    o.value("e4.size", Some(size as f64));
    let mut savings = Vec::new();
    for kind in EditKind::ALL {
        let key = kind.name().replace('-', "_");
        let a = median(&o.rows, (kind.name(), "query-cutoff", size));
        let b = median(&o.rows, (kind.name(), "query-no-cutoff", size));
        o.value(&format!("e4.{key}_cutoff_ms"), a);
        o.value(&format!("e4.{key}_nocutoff_ms"), b);
        if let Some(r) = stats::ratio(b, a) {
            savings.push(r);
        }
    }
    o.value("e4.geomean_nocutoff_over_cutoff", stats::geomean(&savings));
    for (arch, key) in [("query-cutoff", "cutoff"), ("query-no-cutoff", "nocutoff")] {
        o.median_value(&format!("e4.noop_{key}_ms"), ("no-change", arch, size));
        o.counter_value(
            &format!("e4.noop_{key}_executed"),
            ("no-change", arch, size),
            |r| r.executed,
        );
    }
}
