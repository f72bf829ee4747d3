//! The on-disk cache: persistence across "processes" (drop the database, open a new one
//! on the same directory), lazy loading, promotion, concurrent builds, and damaged caches
//! (every damage gives a warning and a correct from-scratch result).

mod common;

use common::{db_in, log, Db};
use expect_test::{expect, Expect};
use query::{CacheOptions, Database, DatabaseExt, Durability, OnLocked, Options};
use std::path::Path;
use std::sync::Arc;

fn check(db: &Db, expect: Expect) {
    expect.assert_eq(&log(db));
}

fn s(x: &str) -> String {
    x.to_string()
}

/// Sets the inputs of the "program": names and their numbers.
fn set_inputs(db: &mut Db, names: &[&str], nums: &[(&str, i64)]) {
    db.set_names(
        (),
        Arc::new(names.iter().map(|n| s(n)).collect()),
        Durability::Low,
    );
    for &(k, v) in nums {
        db.set_num(s(k), v, Durability::Low);
    }
}

fn session1(dir: &Path) {
    let mut db = db_in(dir);
    set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 2)]);
    assert_eq!(db.sum(()), 6);
    let report = db.save();
    assert!(report.saved, "{report:?}");
    assert_eq!(report.values, 3); // sum, stored_double(a), stored_double(b)
}

#[test]
fn persistence_across_processes_with_lazy_loading() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let mut db = db_in(dir.path());
    assert!(
        db.runtime().warnings().is_empty(),
        "{:?}",
        db.runtime().warnings()
    );
    set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 2)]);
    assert_eq!(db.sum(()), 6);
    // Everything is green; only the value asked for is decoded.
    check(
        &db,
        expect![[r#"
            green sum(())
            loaded sum(())
        "#]],
    );
    assert_eq!(db.stats().totals.executed, 0);
}

#[test]
fn an_edit_in_a_later_process_reexecutes_only_what_depends_on_it() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let mut db = db_in(dir.path());
    set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 5)]);
    assert_eq!(db.sum(()), 12);
    check(
        &db,
        expect![[r#"
            executed double("b")
            executed stored_double("b")
            green stored_double("a")
            loaded stored_double("a")
            executed sum(())
        "#]],
    );
}

#[test]
fn promotion_keeps_values_that_were_never_loaded() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    // Session 2: only `sum` is loaded; the save appends the records of what the session
    // set or ran (the inputs) to the journal, and no value is written again: the
    // stored_double values stay in the cache file, never decoded.
    {
        let mut db = db_in(dir.path());
        set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 2)]);
        assert_eq!(db.sum(()), 6);
        let report = db.save();
        assert_eq!((report.saved, report.values), (true, 0));
        assert!(dir.path().join("query-cache.delta").exists());
    }
    // A session that saves a whole new file promotes them: copied byte for byte.
    {
        let mut db = db_in(dir.path());
        set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 2)]);
        assert_eq!(db.sum(()), 6);
        db.runtime_mut().new_revision();
        assert_eq!(db.sum(()), 6);
        let report = db.save();
        assert_eq!((report.saved, report.values, report.promoted), (true, 3, 2));
        assert!(!dir.path().join("query-cache.delta").exists());
    }
    // Session 3: `sum` re-executes (names changed) and loads stored_double("a") from disk.
    let mut db = db_in(dir.path());
    set_inputs(&mut db, &["a"], &[("a", 1), ("b", 2)]);
    assert_eq!(db.sum(()), 2);
    check(
        &db,
        expect![[r#"
            green stored_double("a")
            loaded stored_double("a")
            executed sum(())
        "#]],
    );
}

#[test]
fn unreached_nodes_are_dropped_and_reached_ones_survive_several_sessions() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    for _ in 0..3 {
        let mut db = db_in(dir.path());
        set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 2)]);
        assert_eq!(db.sum(()), 6);
        assert_eq!(db.stats().totals.executed, 0);
        assert!(db.save().saved);
    }
}

#[test]
fn an_input_of_the_previous_session_that_is_not_set_counts_as_changed() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let mut db = db_in(dir.path());
    // `b` is no longer a name and its number is never set.
    set_inputs(&mut db, &["a"], &[("a", 1)]);
    assert_eq!(db.sum(()), 2);
    check(
        &db,
        expect![[r#"
            green stored_double("a")
            loaded stored_double("a")
            executed sum(())
        "#]],
    );
}

fn from_scratch_sum(db: &mut Db) -> i64 {
    set_inputs(db, &["a", "b"], &[("a", 1), ("b", 2)]);
    db.sum(())
}

/// Opens a database on a directory whose cache file has the given bytes and checks that
/// it warns and computes the right result.
fn assert_rejected(bytes: &[u8], what: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("query-cache.bin"), bytes).unwrap();
    let mut db = db_in(dir.path());
    let warnings = db.runtime().warnings();
    assert!(
        warnings.iter().any(|w| w.contains("ignored")),
        "{what}: {warnings:?}"
    );
    assert_eq!(from_scratch_sum(&mut db), 6, "{what}");
    assert_eq!(db.stats().totals.loaded, 0, "{what}");
    // The damaged file is replaced by a good one.
    assert!(db.save().saved, "{what}");
}

fn good_cache() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    std::fs::read(dir.path().join("query-cache.bin")).unwrap()
}

#[test]
fn truncated_caches_are_rejected() {
    let good = good_cache();
    for k in 0..16 {
        let len = good.len() * k / 16;
        if len == 0 {
            continue; // an empty file: covered by `garbage`
        }
        assert_rejected(&good[..len], &format!("truncated to {k}/16"));
    }
}

/// A bit flip in the header or the index rejects the file; a flip
/// anywhere else is found when the damaged part is used (a warning) or is harmless: the
/// result is always right, and the next save writes a good cache.
#[test]
fn bit_flips_anywhere_are_rejected_or_harmless() {
    let good = good_cache();
    const INDEX_LEN: usize = 208;
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 1 << (i % 8);
        let what = format!("bit flip at byte {i}");
        if i < 64 || i >= good.len() - INDEX_LEN {
            assert_rejected(&bad, &what);
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("query-cache.bin"), &bad).unwrap();
        let mut db = db_in(dir.path());
        assert_eq!(from_scratch_sum(&mut db), 6, "{what}");
        assert!(db.save().saved, "{what}");
        drop(db);
        let mut db = db_in(dir.path());
        assert!(db.runtime().warnings().is_empty(), "{what}: after a save");
        assert_eq!(from_scratch_sum(&mut db), 6, "{what}");
    }
}

#[test]
fn garbage_is_rejected() {
    assert_rejected(b"", "empty file");
    assert_rejected(b"hello", "short garbage");
    let mut x = 0x1234_5678u32;
    let garbage: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    assert_rejected(&garbage, "random bytes");
    let mut with_magic = garbage.clone();
    with_magic[..8].copy_from_slice(b"RILLQRY\x01");
    assert_rejected(&with_magic, "magic then random bytes");
}

#[test]
fn wrong_version_is_rejected() {
    let mut bad = good_cache();
    bad[8..12].copy_from_slice(&(query::FORMAT_VERSION + 1).to_le_bytes());
    assert_rejected(&bad, "version");
}

#[test]
fn another_build_id_or_hasher_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let mut cache = CacheOptions::new(dir.path(), "test-build-2");
    cache.fsync = false;
    let mut db = Db::new(Options {
        cache: Some(cache.clone()),
        ..Options::default()
    });
    assert!(
        db.runtime().warnings()[0].contains("another compiler build"),
        "{:?}",
        db.runtime().warnings()
    );
    assert_eq!(from_scratch_sum(&mut db), 6);
    drop(db);
    let mut db = Db::new(Options {
        cache: Some(cache),
        hasher: query::HasherKind::Blake3,
        ..Options::default()
    });
    assert!(
        db.runtime().warnings()[0].contains("another"),
        "{:?}",
        db.runtime().warnings()
    );
    assert_eq!(from_scratch_sum(&mut db), 6);
}

#[test]
fn half_written_temporary_file_is_ignored_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let good = std::fs::read(dir.path().join("query-cache.bin")).unwrap();
    let tmp = dir.path().join("query-cache.bin.tmp.99999");
    std::fs::write(&tmp, &good[..good.len() / 2]).unwrap();
    let mut db = db_in(dir.path());
    assert!(
        db.runtime().warnings().is_empty(),
        "{:?}",
        db.runtime().warnings()
    );
    assert!(!tmp.exists());
    assert_eq!(from_scratch_sum(&mut db), 6);
    assert_eq!(db.stats().totals.executed, 0);

    // Only a temporary file, no cache: a warning and a full build.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("query-cache.bin.tmp.4242"), &good[..10]).unwrap();
    let mut db = db_in(dir.path());
    assert!(
        db.runtime().warnings()[0].contains("no cache"),
        "{:?}",
        db.runtime().warnings()
    );
    assert_eq!(from_scratch_sum(&mut db), 6);
}

#[test]
fn a_second_concurrent_build_reads_but_does_not_save() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let mut first = db_in(dir.path());
    let mut second = db_in(dir.path());
    assert!(first.runtime().persists());
    assert!(!second.runtime().persists());
    assert!(second
        .runtime()
        .warnings()
        .iter()
        .any(|w| w.contains("cannot lock")));
    // The second build still uses the (whole) cache file.
    assert_eq!(from_scratch_sum(&mut second), 6);
    assert_eq!(second.stats().totals.executed, 0);
    assert!(!second.save().saved);
    assert_eq!(from_scratch_sum(&mut first), 6);
    assert!(first.save().saved);
    drop(first);
    // Once the first is gone, the lock is free again.
    drop(second);
    let third = db_in(dir.path());
    assert!(third.runtime().persists());
    let mut cache = CacheOptions::new(dir.path(), "test-build-1");
    cache.on_locked = OnLocked::Wait;
    drop(third);
    let waited = Db::new(Options {
        cache: Some(cache),
        ..Options::default()
    });
    assert!(waited.runtime().persists());
}

#[test]
fn a_cycle_survives_persistence() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = db_in(dir.path());
        db.set_next(s("A"), Some(s("B")), Durability::Low);
        db.set_next(s("B"), Some(s("A")), Durability::Low);
        assert!(db.chain_user(s("A")).is_err());
        assert!(db.save().saved);
    }
    let mut db = db_in(dir.path());
    db.set_next(s("A"), Some(s("B")), Durability::Low);
    db.set_next(s("B"), None, Durability::Low);
    assert_eq!(db.chain_user(s("A")), Ok(2));
}

#[test]
fn every_hasher_and_cutoff_mode_round_trips() {
    for hasher in query::HasherKind::ALL {
        for cutoff in [
            query::Cutoff::Fingerprint,
            query::Cutoff::Equality,
            query::Cutoff::Off,
        ] {
            let dir = tempfile::tempdir().unwrap();
            let options = || {
                let mut cache = CacheOptions::new(dir.path(), "test-build-1");
                cache.fsync = false;
                Options {
                    hasher,
                    cutoff,
                    event_log: true,
                    cache: Some(cache),
                    ..Options::default()
                }
            };
            {
                let mut db = Db::new(options());
                set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 2)]);
                assert_eq!(db.sum(()), 6);
                assert!(db.save().saved);
            }
            let mut db = Db::new(options());
            assert!(
                db.runtime().warnings().is_empty(),
                "{hasher:?} {cutoff:?}: {:?}",
                db.runtime().warnings()
            );
            set_inputs(&mut db, &["a", "b"], &[("a", 1), ("b", 3)]);
            assert_eq!(db.sum(()), 8);
            let executed = db.stats().totals.executed;
            // double(b), stored_double(b), sum
            assert_eq!(executed, 3, "{hasher:?} {cutoff:?}");
        }
    }
}

/// A save after an edit appends to the journal; a save killed while appending leaves any
/// prefix of what it wrote. Cut at every offset, the journal gives the right result (the
/// cache file alone, or it and each whole segment), a warning when a tail is ignored, and
/// the next save leaves a clean cache.
#[test]
fn a_journal_cut_at_every_offset_gives_the_right_result() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let journal = dir.path().join("query-cache.delta");
    let mut segments = Vec::new();
    for (a, b) in [(5, 2), (5, 7), (9, 7)] {
        let mut db = db_in(dir.path());
        set_inputs(&mut db, &["a", "b"], &[("a", a), ("b", b)]);
        assert_eq!(db.sum(()), 2 * (a + b));
        let report = db.save();
        assert!(report.saved && report.bytes > 0, "{report:?}");
        segments.push(report.bytes);
        assert!(db.runtime().warnings().is_empty());
    }
    let full = std::fs::read(&journal).unwrap();
    let cache = std::fs::read(dir.path().join("query-cache.bin")).unwrap();
    // Each save appended one segment, in proportion to what it changed (not the cache).
    assert_eq!(full.len() as u64, 48 + segments.iter().sum::<u64>());
    assert!(
        segments.iter().all(|&b| b < cache.len() as u64 / 2),
        "{segments:?}"
    );
    for cut in 0..=full.len() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("query-cache.bin"), &cache).unwrap();
        std::fs::write(d.path().join("query-cache.delta"), &full[..cut]).unwrap();
        let mut db = db_in(d.path());
        set_inputs(&mut db, &["a", "b"], &[("a", 3), ("b", 4)]);
        assert_eq!(db.sum(()), 14, "journal cut at {cut}");
        assert!(db.save().saved, "cut at {cut}");
        drop(db);
        let mut db = db_in(d.path());
        assert!(
            db.runtime().warnings().is_empty(),
            "cut at {cut}: {:?}",
            db.runtime().warnings()
        );
        set_inputs(&mut db, &["a", "b"], &[("a", 3), ("b", 4)]);
        assert_eq!(db.sum(()), 14, "cut at {cut}, then saved");
        assert_eq!(
            db.stats().totals.executed,
            0,
            "cut at {cut}: nothing to redo"
        );
    }
}

/// When the journal passes a quarter of the cache file, a save writes a new cache file
/// instead (which drops what nothing reaches any more) and removes the journal.
#[test]
fn a_long_journal_is_compacted_into_a_new_cache_file() {
    let dir = tempfile::tempdir().unwrap();
    session1(dir.path());
    let journal = dir.path().join("query-cache.delta");
    let mut compacted = false;
    for i in 0..2000 {
        let mut db = db_in(dir.path());
        let names: Vec<String> = (0..8).map(|k| format!("n{}", (i + k) % 50)).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let nums: Vec<(&str, i64)> = refs.iter().map(|&n| (n, i64::from(i))).collect();
        set_inputs(&mut db, &refs, &nums);
        assert_eq!(db.sum(()), 2 * 8 * i64::from(i));
        assert!(db.save().saved);
        if i > 0 && !journal.exists() {
            compacted = true;
            break;
        }
    }
    assert!(compacted, "the journal was never compacted");
}
