//! Where a new cache file puts the `eval_always` nodes that read nothing (a build's file
//! stamps): first, back to back, since every session's start reads all of them; a stamp
//! that the session did not read again still leaves the cache.

use query::{define_queries, CacheOptions, Database, DatabaseExt, Durability, EventKind, Options};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

thread_local! {
    /// The "file system" the stamps look at: a number per file name.
    static FILES: RefCell<BTreeMap<String, i64>> = const { RefCell::new(BTreeMap::new()) };
}

define_queries! {
    /// A database with stamps.
    pub struct Db;
    /// Its queries.
    pub mod q;

    /// The files the build reads (input).
    input [] fn wanted(()) -> Arc<Vec<String>>, "listing the files", set_wanted;
    /// A file's stamp: looks outside, so it runs in every session.
    query [eval_always] fn stamp(String) -> i64, "stamping a file", stamp;
    /// A file's "text", read through its stamp.
    query [] fn text(String) -> i64, "reading a file", text;
    /// The texts of the wanted files, added up.
    query [] fn total(()) -> i64, "adding up", total;
}

fn stamp(_: &Db, k: String) -> i64 {
    FILES.with(|f| f.borrow().get(&k).copied().unwrap_or(-1))
}
fn text(db: &Db, k: String) -> i64 {
    db.stamp(k) * 10
}
fn total(db: &Db, (): ()) -> i64 {
    db.wanted(()).iter().map(|k| db.text(k.clone())).sum()
}

fn open(dir: &Path) -> Db {
    let mut cache = CacheOptions::new(dir, "test-build-1");
    cache.fsync = false;
    Db::new(Options {
        event_log: true,
        cache: Some(cache),
        ..Options::default()
    })
}

fn want(db: &mut Db, files: &[&str]) {
    let files = files.iter().map(|f| f.to_string()).collect();
    db.set_wanted((), Arc::new(files), Durability::Low);
}

/// The stamps the session executed, each with its node's id (a loaded node's id is its
/// index in the file), in the order of the log.
fn stamps_executed(db: &Db) -> Vec<(String, String)> {
    db.runtime()
        .take_events()
        .into_iter()
        .filter(|e| e.kind == EventKind::Executed && e.query == "stamp")
        .map(|e| (e.key, format!("{:?}", e.node)))
        .collect()
}

/// Reads `total` in two revisions, so that the save writes a new cache file (a session of
/// more than one revision is never appended to the journal).
fn total_twice(db: &mut Db, files: &[&str], expect: i64) {
    want(db, &files[..files.len() - 1]);
    db.total(());
    want(db, files);
    assert_eq!(db.total(()), expect);
}

#[test]
fn stamps_come_first_in_a_new_cache_file_and_unread_ones_leave_it() {
    let dir = tempfile::tempdir().unwrap();
    FILES.with(|f| {
        let mut f = f.borrow_mut();
        for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
            f.insert(name.to_string(), i as i64 + 1);
        }
    });

    // From scratch: each stamp is read after the input and the text that reads it, and is
    // written before all of them.
    let mut db = open(dir.path());
    want(&mut db, &["a", "b", "c"]);
    assert_eq!(db.total(()), 60);
    assert!(db.save().saved);
    drop(db);
    let mut db = open(dir.path());
    want(&mut db, &["a", "b", "c"]);
    assert_eq!(db.total(()), 60);
    let ids: Vec<String> = stamps_executed(&db).into_iter().map(|(_, id)| id).collect();
    assert_eq!(
        ids,
        ["Some(NodeId(0))", "Some(NodeId(1))", "Some(NodeId(2))"]
    );
    drop(db);

    // `c` is not read in the session's last revision: its stamp (and its text) leave the
    // new file; the others stay first.
    let mut db = open(dir.path());
    total_twice(&mut db, &["a", "b"], 30);
    let report = db.save();
    assert!(report.saved, "{report:?}");
    drop(db);
    let mut db = open(dir.path());
    want(&mut db, &["a", "b"]);
    assert_eq!(db.total(()), 30);
    assert_eq!(
        stamps_executed(&db),
        [
            ("\"a\"".to_string(), "Some(NodeId(0))".to_string()),
            ("\"b\"".to_string(), "Some(NodeId(1))".to_string())
        ]
    );

    // A stamp read again is executed as any new node, and the build is right.
    FILES.with(|f| f.borrow_mut().insert("c".to_string(), 7));
    want(&mut db, &["a", "b", "c"]);
    assert_eq!(db.total(()), 100);
}
