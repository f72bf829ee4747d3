//! Event-log tests of the engine in memory: red-green re-validation, early cutoff,
//! modifiers, durability, cycles and verify mode.

mod common;

use common::{db, log, q, Db, OUTSIDE};
use expect_test::{expect, Expect};
use query::{Cutoff, Database, DatabaseExt, Durability, Verify};
use std::sync::Arc;

fn check(db: &Db, expect: Expect) {
    expect.assert_eq(&log(db));
}

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn first_run_executes_then_everything_is_cached() {
    let mut db = db();
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 11);
    check(
        &db,
        expect![[r#"
        executed double("a")
        executed plus_one("a")
    "#]],
    );
    assert_eq!(db.plus_one(s("a")), 11);
    check(&db, expect![""]);
}

#[test]
fn red_herring_unrelated_input_reexecutes_nothing() {
    let mut db = db();
    db.set_num(s("a"), 5, Durability::Low);
    db.set_num(s("b"), 7, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 11);
    log(&db);
    db.set_num(s("b"), 8, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 11);
    check(
        &db,
        expect![[r#"
        green double("a")
        green plus_one("a")
    "#]],
    );
}

#[test]
fn setting_the_same_value_starts_no_revision() {
    let mut db = db();
    db.set_num(s("a"), 5, Durability::Low);
    let r = db.runtime().revision();
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.runtime().revision(), r);
}

#[test]
fn seed_case_changed_condition_does_not_force_the_other_branch() {
    // choose(k) = if flag(k) { double("a") } else { double("b") }
    let mut db = db();
    db.set_flag(s("k"), true, Durability::Low);
    db.set_num(s("a"), 1, Durability::Low);
    db.set_num(s("b"), 2, Durability::Low);
    assert_eq!(db.choose(s("k")), 2);
    check(
        &db,
        expect![[r#"
        executed double("a")
        executed choose("k")
    "#]],
    );
    // The flag flips: choose re-executes and reads double("b"); double("a") is not forced
    // (it was read under the old condition) and double("b") executes for the first time.
    db.set_flag(s("k"), false, Durability::Low);
    db.set_num(s("a"), 10, Durability::Low);
    assert_eq!(db.choose(s("k")), 4);
    check(
        &db,
        expect![[r#"
        executed double("b")
        executed choose("k")
    "#]],
    );
    // Flip back, with a changed `b`: the walk stops at the flag; double("b") is not forced.
    db.set_flag(s("k"), true, Durability::Low);
    db.set_num(s("b"), 20, Durability::Low);
    assert_eq!(db.choose(s("k")), 20);
    check(
        &db,
        expect![[r#"
        executed double("a")
        executed choose("k")
    "#]],
    );
}

#[test]
fn dependencies_are_walked_in_order_and_forced_when_needed() {
    let mut db = db();
    db.set_flag(s("k"), true, Durability::Low);
    db.set_num(s("a"), 1, Durability::Low);
    assert_eq!(db.choose(s("k")), 2);
    log(&db);
    // Only `a` changed: flag is unchanged, double("a") is forced (re-executed) and changed,
    // so choose re-executes.
    db.set_num(s("a"), 3, Durability::Low);
    assert_eq!(db.choose(s("k")), 6);
    check(
        &db,
        expect![[r#"
        executed double("a")
        executed choose("k")
    "#]],
    );
}

#[test]
fn early_cutoff_stops_at_an_unchanged_intermediate_result() {
    let mut db = db();
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    log(&db);
    db.set_num(s("a"), 6, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    check(
        &db,
        expect![[r#"
        executed sign("a")
        green scaled_sign("a")
    "#]],
    );
    db.set_num(s("a"), -6, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), -100);
    check(
        &db,
        expect![[r#"
        executed sign("a")
        executed scaled_sign("a")
    "#]],
    );
}

#[test]
fn backdating_by_equality_gives_the_same_cutoff_as_fingerprints() {
    for cutoff in [Cutoff::Fingerprint, Cutoff::Equality] {
        let mut db = db();
        db.runtime_mut().set_cutoff(cutoff);
        db.set_num(s("a"), 5, Durability::Low);
        assert_eq!(db.scaled_sign_eq(s("a")), 100);
        assert_eq!(db.scaled_sign(s("a")), 100);
        log(&db);
        db.set_num(s("a"), 7, Durability::Low);
        assert_eq!(db.scaled_sign_eq(s("a")), 100);
        assert_eq!(db.scaled_sign(s("a")), 100);
        check(
            &db,
            expect![[r#"
            executed sign_eq("a")
            green scaled_sign_eq("a")
            executed sign("a")
            green scaled_sign("a")
        "#]],
        );
        // In memory keys are not hashed; equality mode hashes no result either, and
        // fingerprint mode hashes the results it compares (`sign`'s old and new).
        let hashed = db.stats().queries.get("sign").map_or(0, |q| q.hashed_bytes);
        match cutoff {
            Cutoff::Equality => assert_eq!(hashed, 0),
            _ => assert_eq!(hashed, 2 * 8),
        }
    }
}

#[test]
fn cutoff_off_reexecutes_every_dependent() {
    let mut db = db();
    db.runtime_mut().set_cutoff(Cutoff::Off);
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    log(&db);
    db.set_num(s("a"), 6, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    check(
        &db,
        expect![[r#"
        executed sign("a")
        executed scaled_sign("a")
    "#]],
    );
}

#[test]
fn no_hash_results_always_count_as_changed() {
    let mut db = db();
    db.set_num(s("a"), 1, Durability::Low);
    assert_eq!(db.after_nohash(s("a")), 2);
    assert_eq!(db.after_parity(s("a")), 2);
    log(&db);
    // 1 → 3: the parity is the same; the hashed one cuts off, the no_hash one cannot.
    db.set_num(s("a"), 3, Durability::Low);
    assert_eq!(db.after_nohash(s("a")), 2);
    assert_eq!(db.after_parity(s("a")), 2);
    check(
        &db,
        expect![[r#"
        executed parity_nohash("a")
        executed after_nohash("a")
        executed parity("a")
        green after_parity("a")
    "#]],
    );
    // Unchanged input: a no_hash query that is green keeps its dependents green.
    db.set_num(s("b"), 0, Durability::Low);
    assert_eq!(db.after_nohash(s("a")), 2);
    check(
        &db,
        expect![[r#"
        green parity_nohash("a")
        green after_nohash("a")
    "#]],
    );
}

#[test]
fn eval_always_reexecutes_in_each_new_revision_and_cuts_off() {
    let mut db = db();
    OUTSIDE.with(|c| c.set(41));
    assert_eq!(db.outside_tens(()), 4);
    check(
        &db,
        expect![[r#"
        executed outside(())
        executed outside_tens(())
    "#]],
    );
    // Same revision: cached.
    OUTSIDE.with(|c| c.set(45));
    assert_eq!(db.outside_tens(()), 4);
    check(&db, expect![""]);
    // New revision: outside re-executes (45: changed), outside_tens re-executes (still 4).
    db.runtime_mut().new_revision();
    assert_eq!(db.outside_tens(()), 4);
    check(
        &db,
        expect![[r#"
        executed outside(())
        executed outside_tens(())
    "#]],
    );
    // New revision, same outside value: cutoff keeps outside_tens green.
    db.runtime_mut().new_revision();
    assert_eq!(db.outside_tens(()), 4);
    check(
        &db,
        expect![[r#"
        executed outside(())
        green outside_tens(())
    "#]],
    );
}

#[test]
fn durability_skips_the_edge_walk_when_only_lower_inputs_changed() {
    let mut db = db();
    db.set_num(s("cfg"), 5, Durability::High);
    db.set_num(s("x"), 1, Durability::Low);
    assert_eq!(db.plus_one(s("cfg")), 11);
    assert_eq!(db.plus_one(s("x")), 3);
    log(&db);
    db.set_num(s("x"), 2, Durability::Low);
    // plus_one("cfg") read only high-durability inputs: green without visiting double("cfg").
    assert_eq!(db.plus_one(s("cfg")), 11);
    assert_eq!(db.plus_one(s("x")), 5);
    check(
        &db,
        expect![[r#"
        green plus_one("cfg")
        executed double("x")
        executed plus_one("x")
    "#]],
    );
    // A high-durability change is seen.
    db.set_num(s("cfg"), 6, Durability::High);
    assert_eq!(db.plus_one(s("cfg")), 13);
    check(
        &db,
        expect![[r#"
        executed double("cfg")
        executed plus_one("cfg")
    "#]],
    );
}

#[test]
fn lowering_an_inputs_durability_is_seen_by_durable_dependents() {
    let mut db = db();
    db.set_num(s("cfg"), 5, Durability::High);
    assert_eq!(db.plus_one(s("cfg")), 11);
    // Same value, lower durability, then a low change: must not be skipped.
    db.set_num(s("cfg"), 5, Durability::Low);
    assert_eq!(db.plus_one(s("cfg")), 11);
    db.set_num(s("cfg"), 7, Durability::Low);
    assert_eq!(db.plus_one(s("cfg")), 15);
}

#[test]
fn cycle_with_fallback_becomes_an_error_value_naming_the_cycle() {
    let mut db = db();
    db.set_next(s("A"), Some(s("B")), Durability::Low);
    db.set_next(s("B"), Some(s("A")), Durability::Low);
    let err = db.chain_user(s("A")).unwrap_err();
    expect![[r#"
        cycle detected when following a chain `"A"`
        ...which requires following a chain `"B"`...
        ...which again requires following a chain `"A"`, completing the cycle"#]]
    .assert_eq(&err);
    // Every participant gets its fallback, whichever was asked first.
    assert_eq!(db.chain(s("B")), db.chain(s("A")));
    check(
        &db,
        expect![[r#"
        cycle chain("A")
        executed chain("B")
        executed chain("A")
        executed chain_user("A")
    "#]],
    );
    // Breaking the cycle: participants re-execute (they are never green by walking edges).
    db.set_next(s("B"), None, Durability::Low);
    assert_eq!(db.chain_user(s("A")), Ok(2));
    assert_eq!(db.chain(s("B")), Ok(0));
    check(
        &db,
        expect![[r#"
        executed chain("B")
        executed chain("A")
        executed chain_user("A")
    "#]],
    );
}

#[test]
fn cycle_entered_elsewhere_gives_the_same_values() {
    let mut db1 = db();
    let mut db2 = db();
    for db in [&mut db1, &mut db2] {
        db.set_next(s("A"), Some(s("B")), Durability::Low);
        db.set_next(s("B"), Some(s("C")), Durability::Low);
        db.set_next(s("C"), Some(s("A")), Durability::Low);
    }
    let a1 = db1.chain(s("A"));
    let c2 = db2.chain(s("C"));
    assert!(a1.is_err() && c2.is_err());
    for k in ["A", "B", "C"] {
        assert_eq!(db1.chain(s(k)).is_err(), db2.chain(s(k)).is_err());
    }
}

#[test]
fn cycle_without_fallback_is_an_error_at_the_top_and_the_db_stays_usable() {
    let mut db = db();
    db.set_next(s("A"), Some(s("B")), Durability::Low);
    db.set_next(s("B"), Some(s("A")), Durability::Low);
    let cycle = db.try_query::<q::chain_nofb>(s("A")).unwrap_err();
    assert_eq!(cycle.frames.len(), 2);
    assert!(cycle.contains::<q::chain_nofb>(&db, &s("B")));
    assert!(!cycle.contains::<q::chain>(&db, &s("B")));
    assert_eq!(
        cycle.to_string(),
        "cycle: chain_nofb -> chain_nofb -> chain_nofb"
    );
    // The frames are typed: each gives back its key, and only as the query it is.
    let keys: Vec<_> = cycle
        .frames
        .iter()
        .map(|f| f.key::<q::chain_nofb>(&db))
        .collect();
    assert_eq!(keys, [Some(s("A")), Some(s("B"))]);
    assert_eq!(db.key_of::<q::chain>(cycle.frames[0].node), None);
    assert_eq!(
        db.key_of::<q::chain_nofb>(cycle.frames[1].node),
        Some(s("B"))
    );
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.chain_nofb(s("A"))));
    assert!(panic.is_err());
    db.set_next(s("B"), None, Durability::Low);
    assert_eq!(db.chain_nofb(s("A")), 1);
}

#[test]
fn verify_mode_catches_an_untracked_read() {
    let mut db = db();
    db.runtime_mut().set_verify(Verify::All);
    OUTSIDE.with(|c| c.set(0));
    db.set_num(s("a"), 1, Durability::Low);
    assert_eq!(db.sneaky(s("a")), 1);
    OUTSIDE.with(|c| c.set(100));
    db.set_num(s("unrelated"), 1, Durability::Low);
    // Green (its only tracked input did not change), but wrong: verify re-executes it.
    assert_eq!(db.sneaky(s("a")), 1);
    let m = db.runtime().verify_mismatches();
    assert_eq!(m.len(), 1);
    assert_eq!((m[0].query, m[0].key.as_str()), ("sneaky", "\"a\""));
    assert!(db
        .runtime()
        .warnings()
        .iter()
        .any(|w| w.contains("untracked")));
    // An honest query verifies cleanly.
    assert_eq!(db.plus_one(s("a")), 3);
    db.set_num(s("unrelated"), 2, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 3);
    assert_eq!(db.runtime().verify_mismatches().len(), 1);
    assert!(db.stats().queries["plus_one"].verified >= 1);
}

#[test]
fn statistics_count_executions_and_green_marks() {
    let mut db = db();
    db.set_names((), Arc::new(vec![s("a"), s("b")]), Durability::Low);
    db.set_num(s("a"), 1, Durability::Low);
    db.set_num(s("b"), 2, Durability::Low);
    assert_eq!(db.sum(()), 6);
    db.set_num(s("b"), 3, Durability::Low);
    assert_eq!(db.sum(()), 8);
    let stats = db.stats();
    let json = serde_json::to_value(&stats).unwrap();
    assert_eq!(json["totals"]["executed"], 8);
    assert_eq!(json["totals"]["green"], 2);
    assert_eq!(json["queries"]["double"]["executed"], 3);
    assert_eq!(json["queries"]["double"]["green"], 1);
    assert!(json["queries"]["double"]["hashed_bytes"].as_u64().unwrap() > 0);
    assert!(json["queries"]["sum"]["provider_ms"].as_f64().is_some());
}

#[test]
fn deep_dependency_chains_do_not_overflow_the_stack() {
    let mut db = db();
    db.runtime_mut().set_event_log(false);
    let n = 50_000;
    for i in 0..n {
        db.set_next(
            format!("k{i}"),
            (i + 1 < n).then(|| format!("k{}", i + 1)),
            Durability::Low,
        );
    }
    assert_eq!(db.chain(s("k0")), Ok(n as i64 - 1));
    // Re-validation walks the same depth.
    db.set_next(s("unrelated"), None, Durability::Low);
    assert_eq!(db.chain(s("k0")), Ok(n as i64 - 1));
    db.set_next(format!("k{}", n - 1), Some(s("end")), Durability::Low);
    db.set_next(s("end"), None, Durability::Low);
    assert_eq!(db.chain(s("k0")), Ok(n as i64));
}

#[test]
fn no_timing_reads_no_clock_but_counts() {
    let mut db = common::Db::new(query::Options {
        no_timing: true,
        ..query::Options::default()
    });
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 11);
    // A result is hashed when a re-execution compares it.
    db.set_num(s("a"), 6, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 13);
    let stats = db.stats();
    assert_eq!(stats.totals.executed, 4);
    assert_eq!(stats.queries["plus_one"].provider_ms, 0.0);
    assert!(stats.queries["plus_one"].hashed_bytes > 0);
}

/// Without a cache directory nothing is hashed when it executes (no key, no result): a
/// result's fingerprint is computed when a re-execution compares it, from the old value,
/// and early cutoff is what hashing every result gave. With a cache (or verify mode)
/// results are hashed as they execute, to be saved (or checked), and keys (with a cache)
/// when the save needs them.
#[test]
fn in_memory_a_result_is_hashed_only_when_a_re_execution_compares_it() {
    let mut db = db();
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    log(&db);
    let hashed = |db: &Db, q: &str| db.stats().queries.get(q).map_or(0, |q| q.hashed_bytes);
    assert_eq!((hashed(&db, "sign"), hashed(&db, "scaled_sign")), (0, 0));
    // Same sign: `sign` re-executes and compares its old and new results (8 bytes each),
    // and `scaled_sign` is cut off, never re-executed nor hashed.
    db.set_num(s("a"), 7, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    check(
        &db,
        expect![[r#"
        executed sign("a")
        green scaled_sign("a")
    "#]],
    );
    assert_eq!((hashed(&db, "sign"), hashed(&db, "scaled_sign")), (16, 0));
    // Another sign: `sign` changed, its dependent re-executes and compares its own.
    db.set_num(s("a"), -7, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), -100);
    check(
        &db,
        expect![[r#"
        executed sign("a")
        executed scaled_sign("a")
    "#]],
    );
    // `sign`'s last fingerprint was kept from its comparison: only the new one is hashed.
    assert_eq!((hashed(&db, "sign"), hashed(&db, "scaled_sign")), (24, 16));

    let dir = tempfile::tempdir().unwrap();
    let mut db = common::db_in(dir.path());
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.scaled_sign(s("a")), 100);
    // The result, hashed as it executed; the key "a" (length and byte), once the save
    // needs it.
    assert_eq!(hashed(&db, "sign"), 8);
    assert!(db.save().saved);
    assert_eq!(hashed(&db, "sign"), 8 + 8 + 1);
}

#[test]
fn a_panicking_provider_leaves_the_database_usable() {
    let mut db = db();
    db.set_num(s("a"), 13, Durability::Low);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.fragile(s("a"))));
    assert!(r.is_err());
    check(
        &db,
        expect![[r#"
        executed double("a")
        executed plus_one("a")
    "#]],
    );
    db.set_num(s("a"), 1, Durability::Low);
    assert_eq!(db.fragile(s("a")), 3);
    check(
        &db,
        expect![[r#"
        executed double("a")
        executed plus_one("a")
        executed fragile("a")
    "#]],
    );
}

#[test]
fn reading_an_unset_input_is_an_embedder_bug_that_panics() {
    let db = db();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.num(s("nope"))));
    let msg = r
        .unwrap_err()
        .downcast::<String>()
        .map(|b| *b)
        .unwrap_or_default();
    assert_eq!(msg, "the input `num(\"nope\")` was read before it was set");
}

/// A table whose cycle descriptions show keys through `describe_key`.
mod described {
    use query::{define_queries, Cycle};

    define_queries! {
        pub struct Db;
        pub mod q;
        input [] fn next(u32) -> Option<u32>, "naming the next node", set_next;
        query [cycle_fallback(walk_cycle), describe_key(node_name)] fn walk(u32) -> Result<u32, String>, concat!("walking from", " node"), walk;
    }

    fn node_name(db: &Db, key: &u32) -> String {
        format!("#{key} (next {:?})", db.next(*key))
    }

    fn walk_cycle(db: &Db, cycle: &Cycle, _: &u32) -> Result<u32, String> {
        Err(cycle.render(db))
    }

    fn walk(db: &Db, key: u32) -> Result<u32, String> {
        match db.next(key) {
            Some(n) => db.walk(n).map(|v| v + 1),
            None => Ok(0),
        }
    }
}

#[test]
fn cycle_descriptions_show_keys_through_describe_key() {
    let mut db = described::Db::new(query::Options::default());
    db.set_next(1, Some(2), Durability::Low);
    db.set_next(2, Some(1), Durability::Low);
    expect![[r#"
        cycle detected when walking from node `#1 (next Some(2))`
        ...which requires walking from node `#2 (next Some(1))`...
        ...which again requires walking from node `#1 (next Some(2))`, completing the cycle"#]]
    .assert_eq(&db.walk(1).unwrap_err());
}

#[test]
fn an_event_gives_back_its_typed_key() {
    let mut db = db();
    db.set_num(s("a"), 5, Durability::Low);
    assert_eq!(db.plus_one(s("a")), 11);
    db.outside(());
    let events = db.runtime().take_events();
    let keys: Vec<_> = events
        .iter()
        .map(|e| {
            (
                e.query,
                query::event_key::<Db, String>(&db, e),
                query::event_key::<Db, ()>(&db, e).is_some(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("double", Some(s("a")), false),
            ("plus_one", Some(s("a")), false),
            ("outside", None, true),
        ]
    );
}

#[test]
fn modifiers_tell_which_queries_execute_in_every_session() {
    use query::{Flags, Query};
    assert!(<q::outside as Query>::FLAGS.executes_every_session());
    assert!(<q::parity_nohash as Query>::FLAGS.executes_every_session());
    assert!(!<q::parity as Query>::FLAGS.executes_every_session());
    assert!(!<q::sum as Query>::FLAGS.executes_every_session());
    assert!(!Flags::NO_HASH
        .with(Flags::CACHE_ON_DISK)
        .executes_every_session());
    let stats = db_with_outside().stats();
    assert!(stats.queries["outside"].flags.contains(Flags::EVAL_ALWAYS));
}

fn db_with_outside() -> Db {
    let db = db();
    db.outside(());
    db
}
