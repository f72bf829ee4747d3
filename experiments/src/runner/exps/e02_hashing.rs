//! E2: hashing: time and bytes per query kind, three hashers, fingerprint vs equality.

use super::measure::{
    fill_counters, interleave, row_from, scratch_rounds, IncrementalRun, NO_LEAF_EDIT,
};
use super::readout::{counter, first_error};
use super::SEED;
use crate::runner::rill::{BuildRun, BuildStats, Mode};
use crate::runner::samples::{self, Sample};
use crate::runner::stats::{self, spread};
use crate::runner::table::{self, Row};
use crate::runner::workload::{OnDisk, Shape};
use crate::runner::{Ctx, Outcome};

/// The hashers of the query engine (`--hasher`).
const HASHERS: [&str; 3] = ["sip128", "xxh3", "blake3"];

/// The architecture of E2's builds with the engine's default hasher (`query::HasherKind`'s
/// default, xxh3-128): the headline share, the bytes hashed and the per-kind ranking are
/// of these builds; the other hashers are compared with it.
pub const DEFAULT_ARCH: &str = "query-xxh3";

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E2", 5);
    let dir = ctx.dir("e2");
    let program = ctx.program(Shape::Default, size, SEED);
    let disk = OnDisk::create(&dir.join("prog"), program.clone())?;
    let root = disk.root();
    // The pipeline and the three hashers, each persisting its cache, in the same rounds.
    ctx.set_message("pipeline and hashers");
    let caches = HASHERS.map(|h| dir.join(format!("cache-{h}")));
    let args = HASHERS.map(|h| ["--hasher", h]);
    let [pipe, runs @ ..] = scratch_rounds(
        ctx,
        Mode::Run,
        &root,
        &[
            ("pipeline", None, &[]),
            ("query", Some(&caches[0]), &args[0]),
            ("query", Some(&caches[1]), &args[1]),
            ("query", Some(&caches[2]), &args[2]),
        ],
    );
    o.rows
        .push(row_from(ctx, "scratch", "pipeline", size, &pipe));
    ctx.step();
    for (hasher, runs) in HASHERS.iter().zip(&runs) {
        let arch = format!("query-{hasher}");
        o.rows.push(row_from(ctx, "scratch", &arch, size, runs));
        match runs {
            Ok(r) => hash_rows(&mut o.rows, r, &arch, size),
            Err(e) => o
                .rows
                .push(Row::new("hash-share", &arch, size).without_number(e.status())),
        }
        ctx.step();
    }
    // Fingerprint against equality cutoff, on a leaf-body edit, in the same rounds.
    ctx.set_message("cutoff by equality");
    let leaf = ctx.leaf_edits(Shape::Default, size, SEED);
    let edit = &leaf.changing.as_ref().ok_or(NO_LEAF_EDIT)?.0;
    let cutoffs = [
        ("fingerprint", "query-fingerprint"),
        ("equality", "query-equality"),
    ];
    let sides = cutoffs
        .iter()
        .map(|(cutoff, _)| {
            IncrementalRun::new(ctx, dir.join(format!("cut-{cutoff}")), &program)
                .edited(&edit.program)
                .cutoff(*cutoff)
                .side()
        })
        .collect();
    let runs = interleave(ctx, ctx.profile.reps, sides);
    for ((_, arch), runs) in cutoffs.iter().zip(&runs) {
        o.rows.push(row_from(ctx, "leaf-body", arch, size, runs));
    }
    ctx.step();
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    values(&mut o, size);
    Ok(o)
}

/// The share of the compiler's own time (`total_ms`) that `of` is in the builds `r`:
/// the ratio of the medians with its interval; min and max are those of the builds' own
/// shares.
fn share_row(
    r: &[BuildRun],
    scenario: &str,
    arch: &str,
    size: usize,
    of: fn(&BuildStats) -> f64,
) -> Row {
    let built = || r.iter().filter_map(|b| b.stats.as_ref());
    let shares: Vec<f64> = built()
        .filter(|s| s.total_ms > 0.0)
        .map(|s| 100.0 * of(s) / s.total_ms)
        .collect();
    let pairs: Vec<(f64, f64)> = built().map(|s| (of(s), s.total_ms)).collect();
    let mut share = Row::new(scenario, arch, size).with_spread(spread(&shares), "percent");
    if let (Some(iv), true) = (stats::paired_ratio(&pairs), share.is_ok()) {
        share.median = Some(100.0 * iv.value);
        share.low = Some(100.0 * iv.low);
        share.high = Some(100.0 * iv.high);
    }
    share
}

/// Of the compiler's time for the whole build.
const OF_TOTAL: &str = "median total_ms (the compiler's whole build: cache load, check, codegen, link, cache save); min/max: of single builds; low/high: bootstrap 95 % interval";

/// The share of hashing in the builds `r` of `arch` (of the wall time and of the
/// compiler's own time), the shares of the encoding of persisted values and of both
/// together (what the hashing share included before the encoding was timed apart), and
/// the hash time of every query kind.
fn hash_rows(rows: &mut Vec<Row>, r: &[BuildRun], arch: &str, size: usize) {
    let mut share = share_row(r, "hash-share", arch, size, BuildStats::hash_ms);
    fill_counters(&mut share, r);
    let wall: Vec<f64> = r
        .iter()
        .filter_map(|b| Some(100.0 * b.stats.as_ref()?.hash_ms() / b.proc.wall_ms))
        .collect();
    let mut w = Row::new("hash-share-of-wall", arch, size).with_spread(spread(&wall), "percent");
    w.note = "engine.hash_ms / wall time of the whole process".to_string();
    rows.push(w);
    share.note = format!(
        "median engine.hash_ms (hashing only, not the encoding of engine.encode_ms) / {OF_TOTAL}"
    );
    rows.push(share);
    let mut encode = share_row(r, "encode-share", arch, size, BuildStats::encode_ms);
    encode.note = format!(
        "median engine.encode_ms (encoding executed values for the cache; the bytes are fingerprinted and saved as they are) / {OF_TOTAL}"
    );
    rows.push(encode);
    let mut both = share_row(r, "hash-encode-share", arch, size, |s| {
        s.hash_ms() + s.encode_ms()
    });
    both.note = format!(
        "median (engine.hash_ms + engine.encode_ms): the hashing share as measured before the encoding was timed apart / {OF_TOTAL}"
    );
    rows.push(both);
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
            "hash time of kind `{kind}`; encoding for the cache {:.2} ms; provider {:.2} ms",
            q.encode_ms, q.provider_ms
        );
        rows.push(row);
    }
}

/// The headline key and paper values of E2.
fn values(o: &mut Outcome, size: usize) {
    // The ratio of the medians of hashing time and the compiler's time, over the same
    // builds.
    let default = ("scratch", DEFAULT_ARCH, size);
    let share = o.ratio_of(
        "e2.hash_share",
        (default, |s: &Sample| s.hash_ms),
        (default, |s: &Sample| s.compile_ms),
    );
    o.headline(
        "e2_hash_share",
        share,
        first_error(&o.rows, &[("hash-share", DEFAULT_ARCH, size)]),
    );
    // The encoding of persisted values (not hashing: the save writes those bytes), and
    // hashing and encoding together: the hashing share as measured before the split.
    o.ratio_of(
        "e2.encode_share",
        (default, |s: &Sample| s.encode_ms),
        (default, |s: &Sample| s.compile_ms),
    );
    o.ratio_of(
        "e2.hash_encode_share",
        (default, |s: &Sample| Some(s.hash_ms? + s.encode_ms?)),
        (default, |s: &Sample| s.compile_ms),
    );
    let encode_ms: Vec<f64> = samples::of_config(&o.samples, "scratch", DEFAULT_ARCH, size)
        .filter_map(|s| s.encode_ms)
        .collect();
    o.value("e2.xxh3_encode_ms", stats::median(&encode_ms));
    for h in ["sip128", "blake3"] {
        o.paired_ratio_value(
            &format!("e2.{h}_over_xxh3"),
            ("scratch", &format!("query-{h}"), size),
            default,
        );
    }
    o.paired_ratio_value(
        "e2.equality_over_fingerprint",
        ("leaf-body", "query-equality", size),
        ("leaf-body", "query-fingerprint", size),
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
            &format!("e2.{h}_hash_encode_share_percent"),
            ("hash-encode-share", &arch, size),
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
    let bytes = counter(&o.rows, ("hash-share", DEFAULT_ARCH, size), |r| {
        r.hashed_bytes
    });
    o.value("e2.hashed_mib", bytes.map(|b| b / (1024.0 * 1024.0)));
    o.median_value(
        "e2.fingerprint_leaf_ms",
        ("leaf-body", "query-fingerprint", size),
    );
    o.median_value("e2.equality_leaf_ms", ("leaf-body", "query-equality", size));
}
