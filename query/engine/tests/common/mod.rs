//! The test database shared by the engine's integration tests: a few inputs and derived
//! queries exercising every modifier, and helpers to read the event log.

#![allow(dead_code)]

use query::{define_queries, format_events, CacheOptions, Cycle, Database, Options};
use std::cell::Cell;
use std::path::Path;
use std::sync::Arc;

thread_local! {
    /// State outside the engine, for `eval_always` and for the deliberate untracked read.
    pub static OUTSIDE: Cell<i64> = const { Cell::new(0) };
}

define_queries! {
    /// The test database.
    pub struct Db;
    /// Marker types of the test queries.
    pub mod q;

    /// A number (input).
    input [] fn num(String) -> i64, "reading a number", set_num;
    /// A flag (input).
    input [] fn flag(String) -> bool, "reading a flag", set_flag;
    /// The list of names summed by `sum` (input).
    input [] fn names(()) -> Arc<Vec<String>>, "listing the names", set_names;
    /// Which key `chain` follows next (input).
    input [] fn next(String) -> Option<String>, "reading a link", set_next;

    /// Twice `num`.
    query [] fn double(String) -> i64, "doubling a number", double;
    /// The sign of `num`: a change of magnitude stops here (early cutoff).
    query [] fn sign(String) -> i64, "taking a sign", sign;
    /// A hundred times `sign`.
    query [] fn scaled_sign(String) -> i64, "scaling a sign", scaled_sign;
    /// `sign`, compared by equality (salsa's backdating).
    query [backdate_eq] fn sign_eq(String) -> i64, "taking a sign (backdated)", sign_eq;
    /// A hundred times `sign_eq`.
    query [] fn scaled_sign_eq(String) -> i64, "scaling a sign", scaled_sign_eq;
    /// `if flag(k) { double("a") } else { double("b") }`: the seed case.
    query [] fn choose(String) -> i64, "choosing a branch", choose;
    /// `double(k) + 1`.
    query [] fn plus_one(String) -> i64, "adding one", plus_one;
    /// The sum of `double` over `names`, persisted.
    query [cache_on_disk] fn sum(()) -> i64, "summing", sum;
    /// `double(k)` persisted.
    query [cache_on_disk] fn stored_double(String) -> i64, "storing a double", stored_double;
    /// The parity of `num`, never hashed: dependents always re-execute after it does.
    query [no_hash] fn parity_nohash(String) -> i64, "taking a parity (no hash)", parity_nohash;
    /// `parity_nohash + 1`.
    query [] fn after_nohash(String) -> i64, "after a parity", after_nohash;
    /// The parity of `num`, hashed.
    query [] fn parity(String) -> i64, "taking a parity", parity;
    /// `parity + 1`.
    query [] fn after_parity(String) -> i64, "after a parity", after_parity;
    /// Reads `OUTSIDE` (untracked): re-executes whenever validated.
    query [eval_always] fn outside(()) -> i64, "reading the outside", outside;
    /// `outside / 10`.
    query [] fn outside_tens(()) -> i64, "dividing", outside_tens;
    /// Reads `OUTSIDE` without telling the engine: a bug verify mode must catch.
    query [] fn sneaky(String) -> i64, "reading sneakily", sneaky;
    /// Follows `next` links and counts them; a loop of links is a cycle with a fallback.
    query [cycle_fallback(chain_cycle)] fn chain(String) -> Result<i64, String>, "following a chain", chain;
    /// Like `chain`, without a fallback.
    query [] fn chain_nofb(String) -> i64, "following a raw chain", chain_nofb;
    /// `plus_one(k)`, but panics when `num(k)` is 13 (a provider bug).
    query [] fn fragile(String) -> i64, "doing something fragile", fragile;
    /// `chain(k)` plus one, or the error.
    query [] fn chain_user(String) -> Result<i64, String>, "using a chain", chain_user;
}

fn double(db: &Db, k: String) -> i64 {
    db.num(k) * 2
}
fn sign(db: &Db, k: String) -> i64 {
    db.num(k).signum()
}
fn scaled_sign(db: &Db, k: String) -> i64 {
    db.sign(k) * 100
}
fn sign_eq(db: &Db, k: String) -> i64 {
    db.num(k).signum()
}
fn scaled_sign_eq(db: &Db, k: String) -> i64 {
    db.sign_eq(k) * 100
}
fn choose(db: &Db, k: String) -> i64 {
    if db.flag(k) {
        db.double("a".into())
    } else {
        db.double("b".into())
    }
}
fn plus_one(db: &Db, k: String) -> i64 {
    db.double(k) + 1
}
fn sum(db: &Db, (): ()) -> i64 {
    db.names(())
        .iter()
        .map(|n| db.stored_double(n.clone()))
        .sum()
}
fn stored_double(db: &Db, k: String) -> i64 {
    db.double(k)
}
fn parity_nohash(db: &Db, k: String) -> i64 {
    db.num(k).rem_euclid(2)
}
fn after_nohash(db: &Db, k: String) -> i64 {
    db.parity_nohash(k) + 1
}
fn parity(db: &Db, k: String) -> i64 {
    db.num(k).rem_euclid(2)
}
fn after_parity(db: &Db, k: String) -> i64 {
    db.parity(k) + 1
}
fn outside(_: &Db, (): ()) -> i64 {
    OUTSIDE.with(|c| c.get())
}
fn outside_tens(db: &Db, (): ()) -> i64 {
    db.outside(()) / 10
}
fn sneaky(db: &Db, k: String) -> i64 {
    db.num(k) + OUTSIDE.with(|c| c.get())
}
fn chain(db: &Db, k: String) -> Result<i64, String> {
    match db.next(k) {
        Some(n) => db.chain(n).map(|v| v + 1),
        None => Ok(0),
    }
}
fn chain_cycle(db: &Db, cycle: &Cycle, _: &String) -> Result<i64, String> {
    Err(cycle.render(db))
}
fn chain_nofb(db: &Db, k: String) -> i64 {
    match db.next(k) {
        Some(n) => db.chain_nofb(n) + 1,
        None => 0,
    }
}
fn fragile(db: &Db, k: String) -> i64 {
    let v = db.plus_one(k.clone());
    assert!(db.num(k) != 13, "fragile: 13");
    v
}
fn chain_user(db: &Db, k: String) -> Result<i64, String> {
    db.chain(k).map(|v| v + 1)
}

/// A database with the event log on, in memory.
pub fn db() -> Db {
    Db::new(Options {
        event_log: true,
        ..Options::default()
    })
}

/// A database with the event log on, persisting to `dir`; warnings are kept in the
/// database (see `Runtime::warnings`).
pub fn db_in(dir: &Path) -> Db {
    let mut cache = CacheOptions::new(dir, "test-build-1");
    cache.fsync = false;
    Db::new(Options {
        event_log: true,
        cache: Some(cache),
        ..Options::default()
    })
}

/// The events since the last call, one per line.
pub fn log(db: &Db) -> String {
    format_events(&db.runtime().take_events())
}
