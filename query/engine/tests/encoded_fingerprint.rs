//! How a `cache_on_disk` value is fingerprinted: by the hash of its encoding (encoded once,
//! when it executes, and saved as those bytes), or, with `own_hash`, by its `StableHash`.

use query::{
    define_queries, format_events, CacheOptions, Database, DatabaseExt, Durability, Options,
    StableHash, StableHasher,
};
use std::path::Path;
use std::sync::Arc;

/// A multiset whose encoding keeps the order it was built in, while `==` and its
/// `StableHash` ignore the order: its encoding is not canonical.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Bag(Vec<i64>);

impl Bag {
    fn sorted(&self) -> Vec<i64> {
        let mut v = self.0.clone();
        v.sort_unstable();
        v
    }
}

impl PartialEq for Bag {
    fn eq(&self, other: &Bag) -> bool {
        self.sorted() == other.sorted()
    }
}

impl<Cx: ?Sized> StableHash<Cx> for Bag {
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&self.sorted(), h)
    }
}

define_queries! {
    /// The test database.
    pub struct Db;
    /// Marker types.
    pub mod q;

    /// The items, in the order they were listed (input).
    input [] fn items(()) -> Arc<Vec<i64>>, "listing the items", set_items;
    /// The items as a bag, fingerprinted by its encoding.
    query [cache_on_disk] fn bag(()) -> Bag, "collecting the items", bag;
    /// The same bag, fingerprinted by its own (order-blind) hash.
    query [cache_on_disk, own_hash] fn own_bag(()) -> Bag, "collecting the items", own_bag;
    /// The size of `bag` (persisted, so that a later process need not re-execute it).
    query [cache_on_disk] fn bag_len(()) -> usize, "measuring the bag", bag_len;
    /// The size of `own_bag`.
    query [cache_on_disk] fn own_bag_len(()) -> usize, "measuring the bag", own_bag_len;
}

fn bag(db: &Db, (): ()) -> Bag {
    Bag(db.items(()).to_vec())
}
fn own_bag(db: &Db, (): ()) -> Bag {
    Bag(db.items(()).to_vec())
}
fn bag_len(db: &Db, (): ()) -> usize {
    db.bag(()).0.len()
}
fn own_bag_len(db: &Db, (): ()) -> usize {
    db.own_bag(()).0.len()
}

fn db_in(dir: &Path) -> Db {
    let mut cache = CacheOptions::new(dir, "test-build-1");
    cache.fsync = false;
    Db::new(Options {
        event_log: true,
        cache: Some(cache),
        ..Options::default()
    })
}

fn executed(db: &Db) -> Vec<String> {
    format_events(&db.runtime().take_events())
        .lines()
        .filter(|l| l.starts_with("executed"))
        .map(str::to_string)
        .collect()
}

fn read_all(db: &Db) -> (usize, usize) {
    (db.bag_len(()), db.own_bag_len(()))
}

#[test]
fn an_encoding_in_another_order_is_a_change_unless_the_query_has_its_own_hash() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = db_in(dir.path());
    db.set_items((), Arc::new(vec![1, 2, 3]), Durability::Low);
    assert_eq!(read_all(&db), (3, 3));
    executed(&db);
    // The same bag, listed in another order: its encoding differs, its own hash does not.
    db.set_items((), Arc::new(vec![3, 1, 2]), Durability::Low);
    assert_eq!(read_all(&db), (3, 3));
    assert_eq!(
        executed(&db),
        [
            "executed bag(())",
            "executed bag_len(())",
            "executed own_bag(())"
        ]
    );
    // The same encoding again: cut off in both.
    db.set_items((), Arc::new(vec![3, 2, 1]), Durability::Low);
    read_all(&db);
    executed(&db);
    db.set_items((), Arc::new(vec![3, 2, 1, 4]), Durability::Low);
    db.set_items((), Arc::new(vec![3, 2, 1]), Durability::Low);
    read_all(&db);
    assert_eq!(
        executed(&db),
        ["executed bag(())", "executed own_bag(())"],
        "the bag is back to the bytes it had when it was last read"
    );
}

#[test]
fn the_bytes_fingerprinted_are_the_bytes_saved_and_loaded() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = db_in(dir.path());
        db.set_items((), Arc::new(vec![5, 4]), Durability::Low);
        assert_eq!(read_all(&db), (2, 2));
        let report = db.save();
        assert!(report.saved, "{report:?}");
        assert_eq!(report.values, 4);
    }
    // A new process: both values load as they were encoded, in their order.
    let mut db = db_in(dir.path());
    assert!(
        db.runtime().warnings().is_empty(),
        "{:?}",
        db.runtime().warnings()
    );
    db.set_items((), Arc::new(vec![5, 4]), Durability::Low);
    assert_eq!(db.bag(()).0, [5, 4]);
    assert_eq!(db.own_bag(()).0, [5, 4]);
    assert!(executed(&db).is_empty());
    // Listed in another order: the re-executed `bag` is compared with the fingerprint of
    // the saved bytes, and differs; `own_bag` is cut off.
    let mut db = {
        drop(db);
        db_in(dir.path())
    };
    db.set_items((), Arc::new(vec![4, 5]), Durability::Low);
    assert_eq!(read_all(&db), (2, 2));
    assert_eq!(
        executed(&db),
        [
            "executed bag(())",
            "executed bag_len(())",
            "executed own_bag(())"
        ]
    );
    // The same order as saved: green throughout.
    let mut db = {
        drop(db);
        db_in(dir.path())
    };
    db.set_items((), Arc::new(vec![5, 4]), Durability::Low);
    assert_eq!(read_all(&db), (2, 2));
    assert!(executed(&db).is_empty());
}

#[test]
fn the_encoding_kept_for_the_cache_is_timed_apart_from_the_hashing() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = db_in(dir.path());
    db.runtime_mut().set_event_log(false);
    // Large enough that both the encoding and the hashing take many clock ticks.
    db.set_items((), Arc::new((0..200_000).collect()), Durability::Low);
    assert_eq!(read_all(&db), (200_000, 200_000));
    let stats = db.stats();
    // `bag` is fingerprinted by its encoding, kept to be saved: the encoding is charged to
    // `encode_ms`, the hashing of its bytes to `hash_ms`.
    let bag = &stats.queries["bag"];
    assert!(bag.encode_ms > 0.0, "{bag:?}");
    assert!(bag.hash_ms > 0.0, "{bag:?}");
    // `own_bag` is hashed by its `StableHash` and encoded only when saved: no encoding
    // at execution.
    let own = &stats.queries["own_bag"];
    assert_eq!(own.encode_ms, 0.0, "{own:?}");
    assert!(own.hash_ms > 0.0, "{own:?}");
    let kinds: f64 = stats.queries.values().map(|q| q.encode_ms).sum();
    // (Each time is converted at the counter's rate measured when it is converted.)
    assert!(
        (stats.engine.encode_ms - kinds).abs() <= 1e-2 * kinds,
        "{} against {kinds}",
        stats.engine.encode_ms
    );
    let json = serde_json::to_value(&stats).unwrap();
    assert!(json["queries"]["bag"]["encode_ms"].as_f64().unwrap() > 0.0);
    assert!(json["queries"]["bag"]["hash_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(json["queries"]["own_bag"]["encode_ms"].as_f64(), Some(0.0));
    assert!(json["engine"]["encode_ms"].as_f64().unwrap() > 0.0);

    // Without a cache the encoding is made only to be hashed (when a re-execution compares
    // the result): it is part of the hashing.
    let mut db = Db::new(Options {
        event_log: false,
        ..Options::default()
    });
    db.set_items((), Arc::new((0..200_000).collect()), Durability::Low);
    read_all(&db);
    db.set_items((), Arc::new((1..200_001).collect()), Durability::Low);
    read_all(&db);
    let bag = &db.stats().queries["bag"];
    assert_eq!(bag.encode_ms, 0.0, "{bag:?}");
    assert!(bag.hash_ms > 0.0, "{bag:?}");
}
