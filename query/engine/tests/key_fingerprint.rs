//! Keys with fingerprints of their own (`StableHash::key_fingerprint`: an id that is a
//! stable hash already, a tuple of such): such a key is its node's fingerprint without
//! being hashed, and its memos are found again, loaded and re-executed in a later session
//! like those of any key.

use query::{
    define_queries, CacheOptions, DatabaseExt, Durability, Fingerprint, Options, StableHash,
    StableHasher,
};
use std::path::Path;

/// An id that is a stable 128-bit hash already: its own key fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Id(u128);

impl<Cx: ?Sized> StableHash<Cx> for Id {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u128(self.0)
    }

    fn key_fingerprint(&self) -> Option<Fingerprint> {
        Some(Fingerprint::from_u128(self.0))
    }
}

/// The same id, hashed as a key like any value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Plain(u128);

impl<Cx: ?Sized> StableHash<Cx> for Plain {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u128(self.0)
    }
}

define_queries! {
    /// The test database.
    pub struct Db;
    /// Marker types.
    pub mod q;

    /// A number per key (input).
    input [] fn base(u32) -> u64, "reading a number", set_base;
    /// The number doubled, by id (persisted).
    query [cache_on_disk] fn double(Id) -> u64, "doubling a number", double;
    /// The same, keyed by a hashed id.
    query [cache_on_disk] fn double_plain(Plain) -> u64, "doubling a number", double_plain;
    /// The number of the first id doubled, keyed by a pair of ids (persisted).
    query [cache_on_disk] fn pair((Id, Id)) -> u64, "doubling a number", pair;
    /// The sum of the three doubles of keys `0..n`.
    query [cache_on_disk] fn total(u32) -> u64, "summing", total;
}

/// The id of number `i`: spread over all 128 bits, as a hash is.
fn id(i: u32) -> u128 {
    u128::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) ^ 0x5555
}

fn number(id_bits: u128) -> u32 {
    (0..KEYS)
        .find(|&i| id(i) == id_bits)
        .expect("an id of a key")
}

fn double(db: &Db, k: Id) -> u64 {
    db.base(number(k.0)) * 2
}

fn double_plain(db: &Db, k: Plain) -> u64 {
    db.base(number(k.0)) * 2
}

fn pair(db: &Db, (a, _): (Id, Id)) -> u64 {
    db.base(number(a.0)) * 2
}

fn total(db: &Db, n: u32) -> u64 {
    (0..n)
        .map(|i| {
            db.double(Id(id(i)))
                + db.double_plain(Plain(id(i)))
                + db.pair((Id(id(i)), Id(id((i + 1) % n))))
        })
        .sum()
}

const KEYS: u32 = 40;

fn db_in(dir: &Path) -> Db {
    let mut cache = CacheOptions::new(dir, "test-build-1");
    cache.fsync = false;
    Db::new(Options {
        cache: Some(cache),
        ..Options::default()
    })
}

fn set_all(db: &mut Db, changed: Option<u32>) {
    for i in 0..KEYS {
        let v = u64::from(i) + 1 + u64::from(Some(i) == changed) * 1000;
        db.set_base(i, v, Durability::Low);
    }
}

fn expected(changed: Option<u32>) -> u64 {
    (0..KEYS)
        .map(|i| 6 * (u64::from(i) + 1 + u64::from(Some(i) == changed) * 1000))
        .sum()
}

fn stat(db: &Db, query: &str, f: impl Fn(&query::QueryStats) -> u64) -> u64 {
    db.stats().queries.get(query).map_or(0, f)
}

#[test]
fn a_key_that_is_its_own_fingerprint_is_not_hashed() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = db_in(dir.path());
    set_all(&mut db, None);
    assert_eq!(db.total(KEYS), expected(None));
    // Keys are fingerprinted when the save needs them.
    assert!(db.save().saved);
    // Equal values, equal keys: the hashed query hashed each key's 16 bytes besides.
    let own = stat(&db, "double", |s| s.hashed_bytes);
    let plain = stat(&db, "double_plain", |s| s.hashed_bytes);
    assert_eq!(plain - own, 16 * u64::from(KEYS));
    // A pair of such keys is not hashed either.
    assert_eq!(stat(&db, "pair", |s| s.hashed_bytes), own);
}

#[test]
fn a_tuple_of_keys_combines_their_fingerprints_in_order() {
    let (a, b) = (Id(id(1)), Id(id(2)));
    let fp = |k: &(Id, Id)| StableHash::<()>::key_fingerprint(k).unwrap();
    assert_ne!(fp(&(a, b)), fp(&(b, a)));
    assert_eq!(fp(&(a, b)), fp(&(a, b)));
    // A part without a fingerprint of its own: the tuple is hashed.
    assert_eq!(StableHash::<()>::key_fingerprint(&(a, 7u32)), None);
}

#[test]
fn keys_that_are_their_own_fingerprints_are_found_again_in_a_loaded_session() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = db_in(dir.path());
        set_all(&mut db, None);
        assert_eq!(db.total(KEYS), expected(None));
        assert!(db.save().saved);
    }
    // Nothing changed: every memo is green, nothing executes.
    {
        let mut db = db_in(dir.path());
        set_all(&mut db, None);
        assert_eq!(db.total(KEYS), expected(None));
        assert_eq!(stat(&db, "double", |s| s.executed), 0);
        assert_eq!(stat(&db, "total", |s| s.executed), 0);
        assert!(db.save().saved);
    }
    // One number changed: its memo re-executes (its key decoded from the cache and
    // checked against the fingerprint it is), the others' values are loaded.
    let mut db = db_in(dir.path());
    set_all(&mut db, Some(11));
    assert_eq!(db.total(KEYS), expected(Some(11)));
    for query in ["double", "double_plain", "pair", "total"] {
        assert_eq!(stat(&db, query, |s| s.executed), 1, "{query}");
    }
    assert_eq!(stat(&db, "double", |s| s.loaded), u64::from(KEYS) - 1);
    assert_eq!(stat(&db, "pair", |s| s.loaded), u64::from(KEYS) - 1);
    for i in 0..KEYS {
        let v = u64::from(i) + 1 + u64::from(i == 11) * 1000;
        assert_eq!(db.double(Id(id(i))), 2 * v);
    }
}
