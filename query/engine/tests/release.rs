//! `release_after`: a value is released once its consumers are up to date for its key; a
//! later read re-executes the provider, gives an equal value, counts as an execution and a
//! recomputation, and not as a change.

use query::{define_queries, Cutoff, DatabaseExt, Durability, Options};
use std::cell::Cell;
use std::sync::Arc;

define_queries! {
    /// The test database.
    pub struct Db { pub body_runs: Cell<u32> };
    /// Marker types.
    pub mod q;

    /// A function's source, by number (input).
    input [] fn source(u32) -> Arc<str>, "reading a source", set_source;
    /// Another input, read by nothing that `body` feeds.
    input [] fn unrelated(()) -> u32, "reading something else", set_unrelated;
    /// A big intermediate value, never hashed: released once `lower` and `diagnose` have
    /// read it.
    query [no_hash, release_after(lower, diagnose)] fn body(u32) -> Arc<Vec<u32>>, "checking a body", body;
    /// The hashed value built from `body`: released once `emit` has read it.
    query [release_after(emit)] fn lower(u32) -> Arc<Vec<u64>>, "lowering a body", lower;
    /// The diagnostics of a body.
    query [] fn diagnose(u32) -> usize, "diagnosing a body", diagnose;
    /// The last step.
    query [] fn emit(u32) -> u64, "emitting a body", emit;
    /// A late reader of `body` that is not one of its consumers.
    query [] fn inspect(u32) -> usize, "inspecting a body", inspect;
}

fn body(db: &Db, n: u32) -> Arc<Vec<u32>> {
    db.body_runs.set(db.body_runs.get() + 1);
    Arc::new(db.source(n).bytes().map(u32::from).collect())
}
fn lower(db: &Db, n: u32) -> Arc<Vec<u64>> {
    Arc::new(db.body(n).iter().map(|&b| u64::from(b) * 2).collect())
}
fn diagnose(db: &Db, n: u32) -> usize {
    db.body(n).iter().filter(|&&b| b == u32::from(b'!')).count()
}
fn emit(db: &Db, n: u32) -> u64 {
    db.lower(n).iter().sum()
}
fn inspect(db: &Db, n: u32) -> usize {
    db.body(n).len()
}

fn db(cutoff: Cutoff) -> Db {
    let mut db = Db::new(Options {
        cutoff,
        ..Options::default()
    });
    db.set_source(1, Arc::from("fn one() {}"), Durability::Low);
    db.set_source(2, Arc::from("fn two() {}!"), Durability::Low);
    db.set_unrelated((), 0, Durability::Low);
    db
}

/// (executed, released, recomputed) of query `name`.
fn counts(db: &Db, name: &str) -> (u64, u64, u64) {
    db.stats()
        .queries
        .get(name)
        .map_or((0, 0, 0), |s| (s.executed, s.released, s.recomputed))
}

/// Whether the value of `body(n)` is held in memory, seen from outside: reading it
/// re-executes the provider exactly when it is not.
fn body_held(db: &Db, n: u32) -> bool {
    let before = db.body_runs.get();
    db.body(n);
    db.body_runs.get() == before
}

#[test]
fn a_value_is_released_after_its_last_consumer_and_recomputed_equal_on_a_later_read() {
    let db = db(Cutoff::Fingerprint);
    // `diagnose` alone has read it: `lower` still will, so it is kept.
    assert_eq!(db.diagnose(2), 1);
    assert_eq!(counts(&db, "body"), (1, 0, 0));
    let expected_body = db.body(2);
    assert_eq!(counts(&db, "body"), (1, 0, 0), "still held");

    // `emit` reads `lower`, which reads `body`: both consumers of `body` are up to date,
    // then `emit` has consumed `lower`.
    let sum = db.emit(2);
    assert_eq!(counts(&db, "body"), (1, 1, 0));
    assert_eq!(counts(&db, "lower"), (1, 1, 0));
    let changed_before = db.changed_keys::<q::body>();

    // A later read re-executes it: an equal value, counted as an execution and a
    // recomputation, and not as a change. Its consumers are up to date, so the value is
    // not kept: every such read recomputes it.
    assert_eq!(db.inspect(2), expected_body.len());
    assert_eq!(counts(&db, "body"), (2, 2, 1));
    assert_eq!(db.body(2), expected_body);
    assert_eq!(counts(&db, "body"), (3, 3, 2));
    assert!(!body_held(&db, 2));
    assert_eq!(db.changed_keys::<q::body>(), changed_before);
    // The hashed value too: recomputed with the same fingerprint.
    let lowered = db.lower(2);
    assert_eq!(counts(&db, "lower"), (2, 2, 1));
    assert_eq!(lowered.iter().sum::<u64>(), sum);
    assert_eq!(db.emit(2), sum);
    assert_eq!(counts(&db, "emit"), (1, 0, 0), "emit stayed valid");
}

#[test]
fn a_recomputation_is_no_change_for_later_revisions() {
    for cutoff in [Cutoff::Fingerprint, Cutoff::Equality, Cutoff::Off] {
        let mut db = db(cutoff);
        let sum = db.emit(1);
        db.diagnose(1);
        assert_eq!(counts(&db, "body").1, 1, "{cutoff:?}: released");
        db.inspect(1);
        assert_eq!(counts(&db, "body"), (2, 2, 1), "{cutoff:?}");

        // A change elsewhere: everything that read `body` stays green, and nothing
        // re-executes.
        db.set_unrelated((), 1, Durability::Low);
        let executed = db.stats().totals.executed;
        assert_eq!((db.emit(1), db.diagnose(1), db.inspect(1)), (sum, 0, 11));
        assert_eq!(db.stats().totals.executed, executed, "{cutoff:?}");

        // A change of the source: `body` executes as usual (not a recomputation), and is
        // released again once both consumers have read it.
        db.set_source(1, Arc::from("fn one() { 1 }!"), Durability::Low);
        let new_sum = db.emit(1);
        assert_ne!(new_sum, sum);
        assert_eq!(db.diagnose(1), 1);
        assert_eq!(counts(&db, "body"), (3, 3, 1), "{cutoff:?}");
        assert!(!body_held(&db, 1), "{cutoff:?}: released");
        assert_eq!(counts(&db, "body"), (4, 4, 2), "{cutoff:?}");
    }
}

#[test]
fn early_cutoff_on_a_released_value_compares_its_fingerprint() {
    // Under equality cutoff the value is not hashed when it executes; releasing it keeps
    // its fingerprint, so an edit that gives an equal `lower` still stops there.
    let mut db = db(Cutoff::Equality);
    let sum = db.emit(1);
    db.diagnose(1);
    assert_eq!(counts(&db, "lower"), (1, 1, 0));
    // The same bytes, so the same `body` and `lower`: `emit` stays green.
    // (A new durability makes the same text a change of the input.)
    db.set_source(1, Arc::from("fn one() {}"), Durability::High);
    assert_eq!(db.emit(1), sum);
    let s = db.stats();
    assert_eq!(s.queries["emit"].executed, 1, "cut off at `lower`");
    assert_eq!(s.queries["lower"].executed, 2);
}

#[test]
fn a_single_revision_releases_without_fingerprinting_and_later_revisions_stay_correct() {
    let hashed = |db: &Db| db.stats().queries["lower"].hashed_bytes;
    // By default the released `lower` is fingerprinted for a later revision's cutoff.
    let default = db(Cutoff::Fingerprint);
    default.emit(1);
    assert_eq!(counts(&default, "lower"), (1, 1, 0));
    assert!(hashed(&default) > 0, "fingerprinted when released");

    // A database of one revision drops it unhashed.
    let mut one = Db::new(Options {
        single_revision: true,
        ..Options::default()
    });
    one.set_source(1, Arc::from("fn one() {}"), Durability::Low);
    one.set_unrelated((), 0, Durability::Low);
    let sum = one.emit(1);
    assert_eq!(counts(&one, "lower"), (1, 1, 0));
    assert_eq!(hashed(&one), 0, "released without a fingerprint");
    // A recomputation in the same revision is still no change.
    let lowered = one.lower(1);
    assert_eq!(lowered.iter().sum::<u64>(), sum);
    assert_eq!(counts(&one, "lower"), (2, 2, 1));
    assert_eq!(hashed(&one), 0);

    // A later revision all the same: the unhashed memo counts as changed, and the
    // results are those of a build from scratch.
    one.set_source(1, Arc::from("fn one() {}"), Durability::High);
    assert_eq!(one.emit(1), sum);
    assert_eq!(
        counts(&one, "emit").0,
        2,
        "no cutoff without the fingerprint"
    );
    one.set_source(1, Arc::from("fn one() { 2 }"), Durability::High);
    let mut fresh = db(Cutoff::Fingerprint);
    fresh.set_source(1, Arc::from("fn one() { 2 }"), Durability::High);
    assert_eq!(one.emit(1), fresh.emit(1));
    assert_ne!(one.emit(1), sum);
}

#[test]
fn the_embedder_releases_a_value_whose_last_readers_it_knows() {
    for cutoff in [Cutoff::Fingerprint, Cutoff::Equality] {
        let mut db = db(cutoff);
        // `diagnose` alone consumed `body(2)`: `release_after` keeps it for `lower`, but
        // the embedder may release it all the same.
        assert_eq!(db.diagnose(2), 1);
        let expected = db.body(2);
        assert!(db.release::<q::body>(&2), "{cutoff:?}");
        assert_eq!(counts(&db, "body"), (1, 1, 0), "{cutoff:?}");
        // Already released, or never read: nothing to release.
        assert!(!db.release::<q::body>(&2));
        assert!(!db.release::<q::body>(&7));
        // Read again: recomputed equal, and not a change.
        let changed = db.changed_keys::<q::body>();
        assert_eq!(db.body(2), expected);
        assert_eq!(counts(&db, "body"), (2, 1, 1), "{cutoff:?}");
        assert_eq!(db.changed_keys::<q::body>(), changed);

        // Any query's value, not only one with consumers.
        let emitted = db.emit(2);
        assert!(db.release::<q::emit>(&2));
        assert_eq!(counts(&db, "emit"), (1, 1, 0), "{cutoff:?}");
        let changed = db.changed_keys::<q::emit>();
        assert_eq!(db.emit(2), emitted);
        assert_eq!(counts(&db, "emit"), (2, 1, 1), "{cutoff:?}");
        assert_eq!(db.changed_keys::<q::emit>(), changed);

        // A memo of an earlier revision is not released: it is brought up to date first.
        let sum = db.emit(1);
        db.set_unrelated((), 1, Durability::Low);
        assert!(!db.release::<q::emit>(&1), "{cutoff:?}");
        assert_eq!(db.emit(1), sum);
        assert!(db.release::<q::emit>(&1), "{cutoff:?}");
        // In the next revision, an unchanged input leaves the released memo green (read,
        // it is recomputed, and not a change)...
        db.set_unrelated((), 2, Durability::Low);
        let changed = db.changed_keys::<q::emit>();
        assert_eq!(db.emit(1), sum);
        assert_eq!(db.changed_keys::<q::emit>(), changed, "{cutoff:?}");
        // ...and a changed one re-executes it as usual.
        db.set_source(1, Arc::from("fn one() { 1 }"), Durability::Low);
        assert_ne!(db.emit(1), sum);
    }
}
