//! Benchmarks of the query engine: per-query overhead (cached read, green re-validation,
//! fresh execution), each hasher's throughput on 1 KiB and 1 MiB, and saving / loading
//! a cache of about 100k nodes. Results are asserted inside the timed loops.
//!
//! `cargo bench -p query --bench engine`

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use query::{
    define_queries, fingerprint_of, CacheOptions, DatabaseExt, Durability, HasherKind, Options,
};
use std::time::Duration;

define_queries! {
    /// The benchmark database: a tree of trivial queries.
    pub struct Db;
    /// Its queries.
    pub mod q;

    /// An input.
    input [] fn inp(u32) -> u64, "reading an input", set_inp;
    /// Reads one input.
    query [] fn leaf(u32) -> u64, "a leaf", leaf;
    /// Sums ten leaves.
    query [cache_on_disk] fn mid(u32) -> u64, "a middle node", mid;
    /// Sums all middle nodes.
    query [cache_on_disk] fn top(u32) -> u64, "the root", top;
}

const INPUTS: u32 = 64;
/// An input that no query reads (to start a new revision without changing anything).
const UNREAD: u32 = 1_000_000;

fn leaf(db: &Db, i: u32) -> u64 {
    db.inp(i % INPUTS).wrapping_mul(u64::from(i) | 1)
}
fn mid(db: &Db, i: u32) -> u64 {
    (i * 10..i * 10 + 10)
        .map(|j| db.leaf(j))
        .fold(0, u64::wrapping_add)
}
fn top(db: &Db, mids: u32) -> u64 {
    (0..mids).map(|m| db.mid(m)).fold(0, u64::wrapping_add)
}

fn expected(mids: u32) -> u64 {
    (0..mids * 10)
        .map(|i| u64::from(i % INPUTS).wrapping_mul(u64::from(i) | 1))
        .fold(0, u64::wrapping_add)
}

fn new_db(options: Options) -> Db {
    let mut db = Db::new(options);
    for i in 0..INPUTS {
        db.set_inp(i, u64::from(i), Durability::Low);
    }
    db
}

/// Nodes of a tree with `mids` middle nodes: leaves, mids, the root and the inputs.
fn nodes(mids: u32) -> u64 {
    u64::from(mids * 11 + 1 + INPUTS)
}

fn per_query(c: &mut Criterion) {
    let mut g = c.benchmark_group("per_query");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let mids = 1000;
    let want = expected(mids);

    let db = new_db(Options::default());
    assert_eq!(db.top(mids), want);
    g.throughput(Throughput::Elements(1));
    g.bench_function("cached_hit", |b| {
        b.iter(|| assert_eq!(db.leaf(black_box(5)), 5 * 5))
    });

    g.throughput(Throughput::Elements(nodes(mids)));
    g.bench_function("fresh_execution", |b| {
        b.iter_batched(
            || new_db(Options::default()),
            |db| assert_eq!(db.top(mids), want),
            BatchSize::LargeInput,
        )
    });

    g.bench_function("fresh_execution_no_timing", |b| {
        b.iter_batched(
            || {
                new_db(Options {
                    no_timing: true,
                    ..Options::default()
                })
            },
            |db| assert_eq!(db.top(mids), want),
            BatchSize::LargeInput,
        )
    });

    let mut db = new_db(Options::default());
    assert_eq!(db.top(mids), want);
    let mut v = 0;
    g.bench_function("green_revalidation", |b| {
        b.iter(|| {
            v += 1;
            db.set_inp(UNREAD, v, Durability::Low);
            assert_eq!(db.top(mids), want);
        })
    });
    g.finish();
}

fn hashers(c: &mut Criterion) {
    let mut g = c.benchmark_group("hasher");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    for size in [1usize << 10, 1 << 20] {
        let data: Vec<u8> = (0..size).map(|i| (i * 131 + 7) as u8).collect();
        let words: Vec<u64> = (0..size / 8).map(|i| i as u64 * 0x9e37_79b9).collect();
        g.throughput(Throughput::Bytes(size as u64));
        for kind in HasherKind::ALL {
            let reference = fingerprint_of(kind, &data);
            g.bench_function(format!("{}/bytes/{}KiB", kind.name(), size >> 10), |b| {
                b.iter(|| assert_eq!(fingerprint_of(kind, black_box(&data)), reference))
            });
            let reference = fingerprint_of(kind, &words);
            g.bench_function(format!("{}/u64s/{}KiB", kind.name(), size >> 10), |b| {
                b.iter(|| assert_eq!(fingerprint_of(kind, black_box(&words)), reference))
            });
        }
    }
    g.finish();
}

fn cache_options(dir: &std::path::Path) -> Options {
    let mut c = CacheOptions::new(dir, "bench");
    c.fsync = false;
    Options {
        cache: Some(c),
        ..Options::default()
    }
}

/// A cache directory holding the graph of a computed tree with `mids` middle nodes.
fn prepared(mids: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut db = new_db(cache_options(dir.path()));
    assert_eq!(db.top(mids), expected(mids));
    assert!(db.save().saved);
    dir
}

fn cache(c: &mut Criterion) {
    let mut g = c.benchmark_group("cache_100k_nodes");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let mids = 9_000; // 90k leaves + 9k mids + root + inputs ≈ 100k nodes
    let want = expected(mids);
    g.throughput(Throughput::Elements(nodes(mids)));
    g.bench_function("save", |b| {
        let dir = tempfile::tempdir().unwrap();
        let mut db = new_db(cache_options(dir.path()));
        assert_eq!(db.top(mids), want);
        b.iter(|| {
            let r = db.save();
            assert!(r.saved && r.nodes as u64 == nodes(mids), "{r:?}");
        })
    });
    g.bench_function("load", |b| {
        let dir = prepared(mids);
        b.iter(|| {
            let db = Db::new(cache_options(dir.path()));
            assert_eq!(db.runtime_node_count(), nodes(mids) as usize);
        })
    });
    g.bench_function("load_and_revalidate_all", |b| {
        let dir = prepared(mids);
        b.iter(|| {
            let db = new_db(cache_options(dir.path()));
            assert_eq!(db.top(mids), want);
        })
    });
    g.finish();
}

impl Db {
    fn runtime_node_count(&self) -> usize {
        query::Database::runtime(self).node_count()
    }
}

criterion_group!(benches, per_query, hashers, cache);
criterion_main!(benches);
