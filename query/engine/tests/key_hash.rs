//! Keys whose in-memory hashes collide: a query's storage finds each key by its hash and
//! then by `==`, so distinct keys of one hash keep distinct memos, in one session and
//! when a saved session is loaded again.

use query::{
    define_queries, CacheOptions, DatabaseExt, Durability, Options, StableHash, StableHasher,
};
use std::hash::{Hash, Hasher};
use std::path::Path;

/// A key whose `Hash` is the same for every value (its stable hash, the node's identity
/// across sessions, is that of the number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Colliding(u32);

impl Hash for Colliding {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(7);
    }
}

impl<Cx: ?Sized> StableHash<Cx> for Colliding {
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&self.0, h)
    }
}

/// The test database over keys of type `$Key` (key `i` is `$Key(i)`), with its
/// providers and helpers: one per key type, each in a module of its own.
macro_rules! database_over {
    ($Key:ident) => {
        define_queries! {
            /// The test database.
            pub struct Db;
            /// Marker types.
            pub mod q;

            /// A number per key (input).
            input [] fn base($Key) -> u64, "reading a number", set_base;
            /// The number doubled (persisted, so that a later session loads it rather
            /// than re-executing it).
            query [cache_on_disk] fn double($Key) -> u64, "doubling a number", double;
            /// The sum of the doubled numbers of keys `0..n`.
            query [cache_on_disk] fn total(u32) -> u64, "summing", total;
        }

        fn double(db: &Db, k: $Key) -> u64 {
            db.base(k) * 2
        }

        fn total(db: &Db, n: u32) -> u64 {
            (0..n).map(|i| db.double($Key(i))).sum()
        }

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
                db.set_base($Key(i), v, Durability::Low);
            }
        }

        /// A session on the cache in `dir` (saved with every key unchanged) in which key
        /// 17 changed: its memo re-executes (its key decoded from the cache among keys of
        /// the same in-memory hash), and so does the total; the other keys' values are
        /// loaded, and each key reads its own.
        fn one_key_changed_in_a_loaded_session(dir: &Path) {
            let mut db = db_in(dir);
            set_all(&mut db, Some(17));
            assert_eq!(db.total(KEYS), expected(Some(17)));
            assert_eq!(executed(&db, "double"), 1);
            assert_eq!(executed(&db, "total"), 1);
            assert_eq!(loaded(&db, "double"), u64::from(KEYS) - 1);
            for i in 0..KEYS {
                let v = u64::from(i) + 1 + u64::from(i == 17) * 1000;
                assert_eq!(db.double($Key(i)), 2 * v);
            }
        }
    };
}

database_over!(Colliding);

const KEYS: u32 = 50;

fn executed(db: &impl DatabaseExt, query: &str) -> u64 {
    db.stats().queries.get(query).map_or(0, |s| s.executed)
}

fn loaded(db: &impl DatabaseExt, query: &str) -> u64 {
    db.stats().queries.get(query).map_or(0, |s| s.loaded)
}

/// The expected total with key `changed` (if any) raised by 1000.
fn expected(changed: Option<u32>) -> u64 {
    (0..KEYS)
        .map(|i| 2 * (u64::from(i) + 1 + u64::from(Some(i) == changed) * 1000))
        .sum()
}

#[test]
fn colliding_keys_keep_their_own_memos() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = db_in(dir.path());
    set_all(&mut db, None);
    assert_eq!(db.total(KEYS), expected(None));
    assert_eq!(executed(&db, "double"), u64::from(KEYS));
    for i in 0..KEYS {
        assert_eq!(db.double(Colliding(i)), 2 * (u64::from(i) + 1));
    }
    assert_eq!(
        executed(&db, "double"),
        u64::from(KEYS),
        "every read was cached"
    );
    // One key changes: only its memo re-executes.
    db.set_base(Colliding(3), 1004, Durability::Low);
    assert_eq!(db.total(KEYS), expected(Some(3)));
    assert_eq!(executed(&db, "double"), u64::from(KEYS) + 1);
    assert!(db.save().saved);
}

#[test]
fn colliding_keys_are_found_again_in_a_loaded_session() {
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
        assert_eq!(executed(&db, "double"), 0);
        assert_eq!(executed(&db, "total"), 0);
        assert!(db.save().saved);
    }
    one_key_changed_in_a_loaded_session(dir.path());
}

/// A test, in a module whose database is over keys of type `$Key` (`database_over!`),
/// that distinct keys of one in-memory hash keep their memos in a session and in a
/// session that loads the first one's cache.
macro_rules! memos_kept_in_a_session_and_a_loaded_one {
    ($name:ident, $Key:ident) => {
        #[test]
        fn $name() {
            let dir = tempfile::tempdir().unwrap();
            {
                let mut db = db_in(dir.path());
                set_all(&mut db, None);
                assert_eq!(db.total(KEYS), expected(None));
                assert_eq!(executed(&db, "double"), u64::from(KEYS));
                db.set_base($Key(3), 1004, Durability::Low);
                assert_eq!(db.total(KEYS), expected(Some(3)));
                assert_eq!(executed(&db, "double"), u64::from(KEYS) + 1);
                set_all(&mut db, None);
                assert_eq!(db.total(KEYS), expected(None));
                assert!(db.save().saved);
            }
            one_key_changed_in_a_loaded_session(dir.path());
        }
    };
}

/// Keys with fingerprints of their own (`StableHash::key_fingerprint`), which the storage
/// hashes by their fingerprint's low word: these share it, and differ in the high word.
mod own {
    use super::*;
    use query::Fingerprint;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    pub struct Named(u32);

    impl<Cx: ?Sized> StableHash<Cx> for Named {
        fn stable_hash(&self, h: &mut StableHasher) {
            StableHash::<Cx>::stable_hash(&self.0, h)
        }

        fn key_fingerprint(&self) -> Option<Fingerprint> {
            Some(Fingerprint(7, u64::from(self.0)))
        }
    }

    database_over!(Named);

    memos_kept_in_a_session_and_a_loaded_one!(
        keys_of_one_own_hash_keep_their_memos_in_a_session_and_a_loaded_one,
        Named
    );
}

/// Keys with fingerprints of their own that the storage hashes by FxHash all the same
/// (`StableHash::HASHED_IN_MEMORY_BY_FX`, as names are): these share their FxHash, and
/// their fingerprints differ. A key decoded from the cache is hashed as a key read in the
/// session is, so each finds its own memo.
mod by_fx {
    use super::*;
    use query::Fingerprint;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub struct Named(u32);

    impl Hash for Named {
        fn hash<H: Hasher>(&self, state: &mut H) {
            state.write_u64(7);
        }
    }

    impl<Cx: ?Sized> StableHash<Cx> for Named {
        fn stable_hash(&self, h: &mut StableHasher) {
            StableHash::<Cx>::stable_hash(&self.0, h)
        }

        fn key_fingerprint(&self) -> Option<Fingerprint> {
            Some(Fingerprint(u64::from(self.0) + 1, 7))
        }

        const HASHED_IN_MEMORY_BY_FX: bool = true;
    }

    database_over!(Named);

    memos_kept_in_a_session_and_a_loaded_one!(
        keys_hashed_by_fx_despite_own_fingerprints_keep_their_memos_in_a_session_and_a_loaded_one,
        Named
    );
}
