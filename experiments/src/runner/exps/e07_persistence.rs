//! E7: persistence: cache size, load and save time; per-item vs per-file granularity.

use std::path::Path;

use super::measure::{interleave, row_from, scratch_side, IncrementalRun, Runs, NO_LEAF_EDIT};
use super::readout::median;
use super::SEED;
use crate::runner::rill::{BuildRun, Mode, NoMeasurement};
use crate::runner::stats::{self, spread};
use crate::runner::table::Row;
use crate::runner::workload::{OnDisk, Shape};
use crate::runner::{dir_size, Ctx, Outcome};

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let sizes = ctx.profile.sizes.clone();
    ctx.start_progress("E7", sizes.len() as u64 * 2);
    let dir = ctx.dir("e7");
    // Per item is rill's default, given as no option.
    const GRANULARITIES: [(&str, Option<&str>, &[&str]); 2] = [
        ("item", None, &[]),
        ("file", Some("file"), &["--granularity", "file"]),
    ];
    for &size in &sizes {
        let program = ctx.program(Shape::Default, size, SEED);
        let disk = OnDisk::create(&dir.join(format!("p{size}")), program.clone())?;
        let root = disk.root();
        o.rows.push(bytes_row(
            "source-size",
            "source",
            size,
            dir_size(&disk.dir),
        ));
        let caches = GRANULARITIES.map(|(g, _, _)| dir.join(format!("cache-{g}-{size}")));
        let leaf = ctx.leaf_edits(Shape::Default, size, SEED);
        // Both granularities' from-scratch builds, no-change rebuilds and leaf-body
        // rebuilds (what the granularity changes), all in the same rounds.
        let mut sides = Vec::new();
        for ((gran, granularity, args), cache) in GRANULARITIES.iter().zip(&caches) {
            sides.push(scratch_side(
                ctx,
                Mode::Run,
                &root,
                "query",
                Some(cache),
                args,
            ));
            let work = dir.join(format!("noop-{gran}-{size}"));
            sides.push(
                IncrementalRun::new(ctx, work, &program)
                    .granularity(*granularity)
                    .side(),
            );
            sides.push(match &leaf.changing {
                Some((e, _)) => {
                    let work = dir.join(format!("leaf-{gran}-{size}"));
                    IncrementalRun::new(ctx, work, &program)
                        .edited(&e.program)
                        .granularity(*granularity)
                        .side()
                }
                None => Err(NoMeasurement::Failed(NO_LEAF_EDIT.to_string())),
            });
        }
        let runs = interleave(ctx, ctx.profile.reps, sides);
        for (((gran, _, _), cache), runs) in GRANULARITIES.iter().zip(&caches).zip(runs.chunks(3)) {
            let [scratch, noop, leaf] = runs else {
                continue;
            };
            let arch = format!("query-{gran}");
            match scratch {
                Ok(r) => {
                    ctx.record("scratch", &arch, size, r);
                    cache_rows(&mut o.rows, r, cache, &arch, size);
                }
                Err(e) => {
                    o.rows
                        .push(Row::new("cache-size", &arch, size).without_number(e.status()));
                    o.rows
                        .push(Row::new("save", &arch, size).without_number(e.status()));
                }
            }
            o.rows.push(row_from(ctx, "no-change", &arch, size, noop));
            o.rows.push(load_row(noop, &arch, size));
            o.rows.push(row_from(ctx, "leaf-body", &arch, size, leaf));
            ctx.step();
        }
    }
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    values(&mut o, &sizes);
    Ok(o)
}

/// The size of the cache the from-scratch builds `r` left in `cache`, and their time to
/// save it.
fn cache_rows(rows: &mut Vec<Row>, r: &[BuildRun], cache: &Path, arch: &str, size: usize) {
    rows.push(bytes_row("cache-size", arch, size, dir_size(cache)));
    let save: Vec<f64> = r
        .iter()
        .filter_map(|b| b.stats.as_ref()?.phase_ms("save"))
        .collect();
    let written = r
        .last()
        .and_then(|b| b.stats.as_ref())
        .and_then(|s| s.engine_u64("cache_bytes_written"));
    let mut row = Row::new("save", arch, size).with_spread(spread(&save), "ms");
    row.note = format!(
        "phases_ms.save_cache of a from-scratch build; {} bytes written",
        written.map_or("?".to_string(), |b| b.to_string())
    );
    if save.is_empty() {
        row = row.without_number("unavailable: no `save` phase in rill's phases_ms");
    }
    rows.push(row);
}

/// A row of a size on disk (one measurement: the size of a directory does not vary).
fn bytes_row(scenario: &str, arch: &str, size: usize, bytes: u64) -> Row {
    let bytes = bytes as f64;
    let mut row = Row::new(scenario, arch, size);
    row.median = Some(bytes);
    row.min = Some(bytes);
    row.max = Some(bytes);
    row.repetitions = 1;
    row.unit = "bytes".to_string();
    row
}

/// The time the no-change rebuilds `noop` took to load the cache.
fn load_row(noop: &Runs, arch: &str, size: usize) -> Row {
    let r = match noop {
        Ok(r) => r,
        Err(e) => return Row::new("load", arch, size).without_number(e.status()),
    };
    let load: Vec<f64> = r
        .iter()
        .filter_map(|b| b.stats.as_ref()?.load_ms())
        .collect();
    let row = Row::new("load", arch, size).with_spread(spread(&load), "ms");
    if load.is_empty() {
        return row.without_number("unavailable: no cache load time in rill's stats");
    }
    Row {
        note: "engine.cache_load_ms (graph) + queries.*.load_ms (values loaded lazily)".to_string(),
        ..row
    }
}

/// The paper values of E7 at the largest size.
fn values(o: &mut Outcome, sizes: &[usize]) {
    let big = *sizes.last().unwrap_or(&0);
    o.value("e7.size", Some(big as f64));
    let cache_bytes = |gran: &str| median(&o.rows, ("cache-size", gran, big));
    let mib = |b: f64| b / (1024.0 * 1024.0);
    let (item_bytes, file_bytes) = (cache_bytes("query-item"), cache_bytes("query-file"));
    o.value("e7.cache_mib", item_bytes.map(mib));
    o.value(
        "e7.cache_bytes_per_line",
        item_bytes.map(|b| b / big.max(1) as f64),
    );
    // The cache against the sources it was built from, both as sizes on disk.
    let source = median(&o.rows, ("source-size", "source", big));
    o.value("e7.source_bytes", source);
    o.value("e7.cache_over_source", stats::ratio(item_bytes, source));
    o.median_value("e7.load_ms", ("load", "query-item", big));
    o.median_value("e7.save_ms", ("save", "query-item", big));
    o.value("e7.file_cache_mib", file_bytes.map(mib));
    o.median_value("e7.file_noop_ms", ("no-change", "query-file", big));
    o.median_value("e7.item_noop_ms", ("no-change", "query-item", big));
    o.paired_ratio_value(
        "e7.file_over_item_noop",
        ("no-change", "query-file", big),
        ("no-change", "query-item", big),
    );
    o.paired_ratio_value(
        "e7.file_over_item_leaf",
        ("leaf-body", "query-file", big),
        ("leaf-body", "query-item", big),
    );
    for gran in ["item", "file"] {
        let arch = format!("query-{gran}");
        let row = ("leaf-body", arch.as_str(), big);
        o.median_value(&format!("e7.{gran}_leaf_ms"), row);
        o.counter_value(&format!("e7.{gran}_leaf_executed"), row, |r| r.executed);
        o.counter_value(&format!("e7.{gran}_leaf_codegen"), row, |r| {
            r.codegen_executed
        });
    }
}
