//! The bytes a save writes: the same build writes the same cache file (but for the
//! generation that names it), whatever its size, and a graph large enough for every
//! section to be written in several pieces loads back whole.

mod common;

use common::{db_in, Db};
use query::{Database, DatabaseExt, Durability};
use std::path::Path;
use std::sync::Arc;

/// The header bytes that differ between two saves of one build: the checksum of the index
/// XOR the generation, and the generation.
const GENERATION_BYTES: [std::ops::Range<usize>; 2] = [40..48, 56..64];

/// `n` names, each with its number, and every name also read by `plus_one` and `parity`
/// (more nodes and edges per key).
fn build(db: &mut Db, n: usize) -> i64 {
    let names: Vec<String> = (0..n).map(|i| format!("name{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        db.set_num(name.clone(), i as i64 - 7, Durability::Low);
    }
    db.set_names((), Arc::new(names.clone()), Durability::Low);
    for name in &names {
        db.plus_one(name.clone());
        db.parity(name.clone());
    }
    db.sum(())
}

/// Builds `n` names from scratch in `dir` and saves; gives the sum and the file's bytes.
fn save(dir: &Path, n: usize) -> (i64, Vec<u8>) {
    let mut db = db_in(dir);
    let sum = build(&mut db, n);
    let report = db.save();
    assert!(report.saved, "{report:?}");
    let bytes = std::fs::read(dir.join("query-cache.bin")).unwrap();
    (sum, bytes)
}

fn without_generation(mut bytes: Vec<u8>) -> Vec<u8> {
    for r in GENERATION_BYTES {
        bytes[r].fill(0);
    }
    bytes
}

#[test]
fn the_same_build_saves_the_same_bytes_but_for_the_generation() {
    for n in [1, 40, 3000] {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (sum_a, bytes_a) = save(a.path(), n);
        let (sum_b, bytes_b) = save(b.path(), n);
        assert_eq!(sum_a, sum_b);
        assert_ne!(
            bytes_a[56..64],
            bytes_b[56..64],
            "each save has a generation of its own"
        );
        assert_eq!(
            without_generation(bytes_a),
            without_generation(bytes_b),
            "{n} names"
        );
    }
}

/// Builds `n` names from scratch in `dir` and saves, writing the file on two threads from
/// `thread_min` nodes; gives the file's bytes.
fn save_with_thread_min(dir: &Path, n: usize, thread_min: usize) -> Vec<u8> {
    let mut cache = query::CacheOptions::new(dir, "test-build-1");
    cache.fsync = false;
    cache.writer_thread_min = thread_min;
    let mut db = Db::new(query::Options {
        cache: Some(cache),
        ..query::Options::default()
    });
    build(&mut db, n);
    let report = db.save();
    assert!(report.saved, "{report:?}");
    std::fs::read(dir.join("query-cache.bin")).unwrap()
}

#[test]
fn a_file_written_on_two_threads_has_the_bytes_of_one_written_on_one() {
    for n in [1, 40, 3000] {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let one = save_with_thread_min(a.path(), n, usize::MAX);
        let two = save_with_thread_min(b.path(), n, 0);
        assert_eq!(
            without_generation(one),
            without_generation(two),
            "{n} names"
        );
    }
}

#[test]
fn a_large_graph_saved_in_pieces_loads_back_whole() {
    // 20,000 names: some 100,000 nodes (written on two threads), whose reverse edges
    // (each `num` read by `double` and `parity`, each `double` by `stored_double` and
    // `plus_one`, every `stored_double` by `sum`) span many blocks.
    let n = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let (sum, bytes) = save(dir.path(), n);
    assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
    let mut db = db_in(dir.path());
    assert!(
        db.runtime().warnings().is_empty(),
        "{:?}",
        db.runtime().warnings()
    );
    assert_eq!(build(&mut db, n), sum);
    // The sum is loaded, not computed, and so nothing it read is computed either (only
    // `cache_on_disk` values are saved: the others are computed again when asked for).
    let stats = db.stats();
    let sum_stats = &stats.queries["sum"];
    assert_eq!(
        (sum_stats.executed, sum_stats.loaded),
        (0, 1),
        "{sum_stats:?}"
    );
    assert!(!stats.queries.contains_key("stored_double"));
    // A change to one number reaches its readers through the reverse edges.
    db.set_num("name123".to_string(), 1000, Durability::Low);
    assert_eq!(db.sum(()), sum + 2 * (1000 - (123 - 7)));
    assert_eq!(db.plus_one("name123".to_string()), 2001);
    assert!(
        db.runtime().warnings().is_empty(),
        "{:?}",
        db.runtime().warnings()
    );
}
