//! `Query::with_value`: a read that projects the memo by reference is the same read as a
//! fetch: it gives the same value, hits the memo when it is verified, executes the query
//! when it is not, and is recorded as a dependency of the reading query.

use query::{define_queries, Durability, Options, Query};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

define_queries! {
    /// The test database.
    pub struct Db;
    /// Marker types.
    pub mod q;

    /// A list of numbers per key (input).
    input [] fn numbers(u32) -> Arc<Vec<u64>>, "reading numbers", set_numbers;
    /// The numbers, each doubled.
    query [] fn doubled(u32) -> Arc<Vec<u64>>, "doubling numbers", doubled;
    /// The first doubled number, read by projection.
    query [] fn first(u32) -> u64, "taking the first number", first;
}

static DOUBLED_RUNS: AtomicUsize = AtomicUsize::new(0);
static FIRST_RUNS: AtomicUsize = AtomicUsize::new(0);

fn doubled(db: &Db, k: u32) -> Arc<Vec<u64>> {
    DOUBLED_RUNS.fetch_add(1, Ordering::Relaxed);
    Arc::new(db.numbers(k).iter().map(|n| n * 2).collect())
}

fn first(db: &Db, k: u32) -> u64 {
    FIRST_RUNS.fetch_add(1, Ordering::Relaxed);
    q::doubled::with_value(db, k, |v| v.first().copied().unwrap_or(0))
}

#[test]
fn with_value_reads_like_fetch_and_records_the_dependency() {
    let mut db = Db::new(Options::default());
    db.set_numbers(1, Arc::new(vec![3, 4]), Durability::Low);
    db.set_numbers(2, Arc::new(vec![5]), Durability::Low);

    // A projection at the top level executes the query, then hits its memo.
    assert_eq!(q::doubled::with_value(&db, 1, |v| v.len()), 2);
    assert_eq!(DOUBLED_RUNS.load(Ordering::Relaxed), 1);
    assert_eq!(q::doubled::with_value(&db, 1, |v| v[1]), 8);
    assert_eq!(*db.doubled(1), vec![6, 8]);
    assert_eq!(DOUBLED_RUNS.load(Ordering::Relaxed), 1);

    // Inside a provider, the projected read is a dependency.
    assert_eq!(db.first(1), 6);
    assert_eq!(db.first(2), 10);
    assert_eq!(FIRST_RUNS.load(Ordering::Relaxed), 2);
    assert_eq!(DOUBLED_RUNS.load(Ordering::Relaxed), 2);
    assert_eq!(db.first(1), 6);
    assert_eq!(FIRST_RUNS.load(Ordering::Relaxed), 2);

    // Changing what `doubled(1)` read re-executes it and its reader `first(1)`, not
    // `first(2)`.
    db.set_numbers(1, Arc::new(vec![7]), Durability::Low);
    assert_eq!(db.first(1), 14);
    assert_eq!(db.first(2), 10);
    assert_eq!(DOUBLED_RUNS.load(Ordering::Relaxed), 3);
    assert_eq!(FIRST_RUNS.load(Ordering::Relaxed), 3);
}
