//! E2: hashing: time and bytes per query kind, three hashers, fingerprint vs equality.

use super::measure::{fill_counters, row_from, scratch, IncrementalRun, NO_LEAF_EDIT};
use super::readout::{counter, first_error, median};
use super::SEED;
use crate::runner::rill::{BuildRun, Mode};
use crate::runner::stats::spread;
use crate::runner::table::{self, Row};
use crate::runner::workload::OnDisk;
use crate::runner::{Ctx, Outcome};

/// The hashers of the query engine (`--hasher`).
const HASHERS: [&str; 3] = ["sip128", "xxh3", "blake3"];

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E2", 5);
    let dir = ctx.dir("e2");
    let program = ctx.program(size, SEED);
    let disk = OnDisk::create(&dir.join("prog"), program.clone())?;
    let root = disk.root();
    let pipe = scratch(ctx, Mode::Run, "pipeline", &root, None, &[]);
    o.rows.push(row_from("scratch", "pipeline", size, &pipe));
    ctx.step();
    for hasher in HASHERS {
        ctx.set_message(hasher);
        let args = ["--hasher", hasher];
        let cache = dir.join(format!("cache-{hasher}"));
        let runs = scratch(ctx, Mode::Run, "query", &root, Some(&cache), &args);
        let arch = format!("query-{hasher}");
        o.rows.push(row_from("scratch", &arch, size, &runs));
        match &runs {
            Ok(r) => hash_rows(&mut o.rows, r, &arch, size),
            Err(e) => o
                .rows
                .push(Row::new("hash-share", &arch, size).without_number(e.status())),
        }
        ctx.step();
    }
    // Fingerprint against equality cutoff, on a leaf-body edit.
    ctx.set_message("cutoff by equality");
    let leaf = ctx.leaf_edits(size, SEED);
    let edit = &leaf.changing.as_ref().ok_or(NO_LEAF_EDIT)?.0;
    for (cutoff, arch) in [
        ("fingerprint", "query-fingerprint"),
        ("equality", "query-equality"),
    ] {
        let runs = IncrementalRun::new(ctx, dir.join(format!("cut-{cutoff}")), &program)
            .edited(&edit.program)
            .cutoff(cutoff)
            .run();
        o.rows.push(row_from("leaf-body", arch, size, &runs));
    }
    ctx.step();
    ctx.finish_progress();
    values(&mut o, size);
    Ok(o)
}

/// The share of hashing in the builds `r` of `arch` (of the wall time and of the
/// compiler's own time), and the hash time of every query kind.
fn hash_rows(rows: &mut Vec<Row>, r: &[BuildRun], arch: &str, size: usize) {
    let shares: Vec<f64> = r
        .iter()
        .filter_map(|b| b.stats.as_ref())
        .filter(|s| s.total_ms > 0.0)
        .map(|s| 100.0 * s.hash_ms() / s.total_ms)
        .collect();
    let mut share = Row::new("hash-share", arch, size).with_spread(spread(&shares), "percent");
    fill_counters(&mut share, r);
    let wall: Vec<f64> = r
        .iter()
        .filter_map(|b| Some(100.0 * b.stats.as_ref()?.hash_ms() / b.proc.wall_ms))
        .collect();
    let mut w = Row::new("hash-share-of-wall", arch, size).with_spread(spread(&wall), "percent");
    w.note = "engine.hash_ms / wall time of the whole process".to_string();
    rows.push(w);
    share.note =
        "engine.hash_ms / total_ms (the compiler's whole build: cache load, check, codegen, link, cache save)"
            .to_string();
    rows.push(share);
    let Some(last) = r.iter().rev().find_map(|b| b.stats.as_ref()) else {
        return;
    };
    for (kind, q) in &last.queries {
        let ms: Vec<f64> = r
            .iter()
            .filter_map(|b| b.stats.as_ref()?.queries.get(kind).map(|q| q.hash_ms))
            .collect();
        let mut row = Row::new(format!("kind:{kind}"), arch, size).with_spread(spread(&ms), "ms");
        row.executed = Some(q.executed);
        row.green = Some(q.green);
        row.loaded = Some(q.loaded);
        row.hashed_bytes = Some(q.hashed_bytes);
        row.hash_ms = Some(q.hash_ms);
        row.note = format!(
            "hash time of kind `{kind}`; provider {:.2} ms",
            q.provider_ms
        );
        rows.push(row);
    }
}

/// The headline key and paper values of E2.
fn values(o: &mut Outcome, size: usize) {
    let share = median(&o.rows, ("hash-share", "query-sip128", size)).map(|p| p / 100.0);
    o.headline(
        "e2_hash_share",
        share,
        first_error(&o.rows, &[("hash-share", "query-sip128", size)]),
    );
    o.value("e2.size", Some(size as f64));
    for h in HASHERS {
        let arch = format!("query-{h}");
        o.median_value(&format!("e2.{h}_ms"), ("scratch", &arch, size));
        o.median_value(
            &format!("e2.{h}_share_percent"),
            ("hash-share", &arch, size),
        );
        o.median_value(
            &format!("e2.{h}_wall_share_percent"),
            ("hash-share-of-wall", &arch, size),
        );
        o.value(
            &format!("e2.{h}_hash_ms"),
            table::find(&o.rows, "hash-share", &arch, size)
                .filter(|r| r.is_ok())
                .and_then(|r| r.hash_ms),
        );
    }
    o.median_value("e2.pipeline_ms", ("scratch", "pipeline", size));
    let bytes = counter(&o.rows, ("hash-share", "query-sip128", size), |r| {
        r.hashed_bytes
    });
    o.value("e2.hashed_mib", bytes.map(|b| b / (1024.0 * 1024.0)));
    o.median_value(
        "e2.fingerprint_leaf_ms",
        ("leaf-body", "query-fingerprint", size),
    );
    o.median_value("e2.equality_leaf_ms", ("leaf-body", "query-equality", size));
}
