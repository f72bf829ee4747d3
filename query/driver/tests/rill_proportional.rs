//! Validation in proportion to the edit: after adding an item or changing one item's
//! diagnostics, what the query driver's hubs re-execute does not grow with the program.
//!
//! `def_info` and `def_source` read one shard of the crate's structure (the defs whose
//! ids `shard_of` puts in it), `module_scope` one shard of its scopes, and
//! `crate_diagnostics` one aggregate per file. So adding a function re-executes the
//! projections of the new def's shard (and the `def_source`s of its file, whose ordinals
//! the file's list holds), the scopes of its module's shard, and its file's aggregate;
//! the expected sets are computed from the design and compared with what executed, on a
//! crate of two sizes.
//!
//! Bodies and signatures read scopes one name at a time (`resolve_name`), so a structure
//! edit (a function or a struct added or removed, a `use` added) re-executes, below the
//! crate-wide hubs, exactly the same item-level queries at both sizes: the names looked
//! up in the edited module, the items of its file, and the new or removed item's checks.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use query::{Database, EventKind};
use query_driver::{
    self as rill, shard_count, shard_of, Build, BuildOptions, Goal, RillDb, Session, DEFS_PER_SHARD,
};
use shared_frontend::intern::Symbol;
use shared_frontend::sema::def::{DefId, DefKind, DefPath, DefPathSegment, Namespace};
use shared_frontend::sema::modules::MemLoader;

/// Functions in each module file.
const FNS_PER_MODULE: usize = 20;

/// A crate of `modules` module files, each with a struct, a constant and
/// [`FNS_PER_MODULE`] functions calling one another, and a `main` calling into every
/// module.
fn program(modules: usize) -> Vec<(String, String)> {
    let mut main = String::new();
    for m in 0..modules {
        main.push_str(&format!("mod m{m};\n"));
    }
    main.push_str("\nfn main() {\n    let mut total: i64 = 0;\n");
    for m in 0..modules {
        main.push_str(&format!("    total = total + m{m}::f0(total % 7);\n"));
    }
    main.push_str("    println!(\"{}\", total);\n}\n");
    let mut files = vec![("main.rs".to_string(), main)];
    for m in 0..modules {
        let mut text = format!(
            "#[derive(Clone, Copy)]\npub struct Pair {{\n    pub a: i64,\n    pub b: i64,\n}}\n\npub const STEP: i64 = {};\n",
            m % 5 + 1
        );
        for f in 0..FNS_PER_MODULE {
            let body = if f + 1 < FNS_PER_MODULE {
                format!(
                    "    let p = Pair {{ a: x, b: STEP }};\n    f{}(p.a + p.b)",
                    f + 1
                )
            } else {
                "    x * 2".to_string()
            };
            text.push_str(&format!("\npub fn f{f}(x: i64) -> i64 {{\n{body}\n}}\n"));
        }
        files.push((format!("m{m}.rs"), text));
    }
    files
}

struct Project {
    files: Vec<(String, String)>,
    cache: tempfile::TempDir,
}

impl Project {
    fn new(modules: usize) -> Project {
        Project {
            files: program(modules),
            cache: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn edit(&mut self, file: &str, f: impl FnOnce(&str) -> String) {
        let entry = self
            .files
            .iter_mut()
            .find(|(p, _)| p == file)
            .expect("file");
        entry.1 = f(&entry.1);
    }

    fn loader(&self) -> Arc<MemLoader> {
        Arc::new(MemLoader::new(
            self.files.iter().map(|(p, t)| (p.as_str(), t.as_bytes())),
        ))
    }

    /// A check on the persistent cache in a new session, as `rill` runs one; the session
    /// is returned to inspect what executed.
    fn check(&self) -> (Build, Session) {
        let mut options = BuildOptions {
            cache_dir: Some(self.cache.path().to_path_buf()),
            ..BuildOptions::default()
        };
        options.engine.event_log = true;
        let mut session = Session::new(self.loader(), Path::new("main.rs"), Goal::Check, options);
        let mut b = session.build(Goal::Check);
        session.finish(&mut b);
        (b, session)
    }

    /// A check from scratch, for comparison.
    fn scratch(&self) -> Build {
        rill::build(
            self.loader(),
            Path::new("main.rs"),
            Goal::Check,
            BuildOptions::default(),
        )
    }
}

/// Every event of the last build, by query kind: `(kind, key)` of each execution.
fn executions(db: &RillDb) -> Vec<(&'static str, String)> {
    db.runtime()
        .take_events()
        .into_iter()
        .filter(|e| e.kind == EventKind::Executed)
        .map(|e| (e.query, rill::event_key(db, &e)))
        .collect()
}

fn keys_of(executions: &[(&'static str, String)], query: &str) -> BTreeSet<String> {
    executions
        .iter()
        .filter(|(q, _)| *q == query)
        .map(|(_, k)| k.clone())
        .collect()
}

/// The def paths of `defs`.
fn paths(db: &RillDb, defs: impl IntoIterator<Item = DefId>) -> BTreeSet<String> {
    defs.into_iter()
        .map(|d| db.def_info(d).expect("a def").path.to_string())
        .collect()
}

fn def(db: &RillDb, path: &str) -> DefId {
    let defs = db.crate_defs(());
    let found = defs
        .iter()
        .find(|(d, _)| db.def_info(*d).is_some_and(|i| i.path.to_string() == path));
    found.expect("the item exists").0
}

/// A bound on the defs of one shard that the design implies: shards hold at most
/// [`DEFS_PER_SHARD`] defs on average, and ids are hashes, so a shard three times the
/// average does not occur in practice (a Poisson tail below 10^-12).
const SHARD_BOUND: usize = 3 * DEFS_PER_SHARD;

/// Adds a function at the end of `m0.rs` and returns, per hub query, how many executed.
fn add_a_function(modules: usize) -> (usize, usize, usize, usize) {
    let mut p = Project::new(modules);
    let (first, first_session) = p.check();
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    let defs_before = first_session.db.crate_defs(()).len();
    drop(first_session);
    p.edit("m0.rs", |t| {
        format!("{t}\npub fn added(x: i64) -> i64 {{\n    x * 3\n}}\n")
    });
    let (b, session) = p.check();
    let db = &session.db;
    assert!(b.diagnostics.is_empty(), "{:?}", b.diagnostics);
    assert_eq!(b.diagnostics, p.scratch().diagnostics);
    let ran = executions(db);

    let defs = db.crate_defs(());
    assert_eq!(defs.len(), defs_before + 1);
    // The program is far larger than a shard: re-validating every item would exceed the
    // bounds below many times over.
    assert!(defs.len() > 8 * SHARD_BOUND, "{} defs", defs.len());
    let count = db.def_shard_count(());
    assert_eq!(count, shard_count(defs.len()));
    assert_eq!(
        count,
        shard_count(defs_before),
        "the shard count is the same before and after the edit"
    );

    // def_info: the items of the new def's shard (the new def's own is new), no other;
    // all of them but the modules, whose `def_info` a check does not read.
    let added = def(db, "crate::m0::added");
    let shard = shard_of(added, count);
    let in_shard: Vec<(DefId, DefKind)> = defs
        .iter()
        .copied()
        .filter(|&(d, _)| shard_of(d, count) == shard)
        .collect();
    let infos = keys_of(&ran, "def_info");
    assert!(infos.is_subset(&paths(db, in_shard.iter().map(|&(d, _)| d))));
    let items = in_shard.iter().filter(|(_, k)| *k != DefKind::Mod);
    assert!(infos.is_superset(&paths(db, items.map(|&(d, _)| d))));
    assert!(
        in_shard.len() <= SHARD_BOUND,
        "{} defs in the shard",
        in_shard.len()
    );

    // def_source: at most those, and the items of the edited file (the file's list of
    // ordinals changed).
    let in_file = db.file_defs("m0.rs".into());
    let may_source = paths(
        db,
        in_shard
            .iter()
            .map(|&(d, _)| d)
            .chain(in_file.iter().map(|d| d.def)),
    );
    let sources = keys_of(&ran, "def_source");
    assert!(sources.is_subset(&may_source), "{sources:?}");
    assert!(sources.contains("crate::m0::added"));

    // module_scope: at most the modules of the edited module's scope shard (`m0` gained
    // a name).
    let m0 = def(db, "crate::m0");
    let scopes = db.scope_shard_count(());
    let modules_in_shard: Vec<DefId> = defs
        .iter()
        .filter(|(d, k)| *k == DefKind::Mod && shard_of(*d, scopes) == shard_of(m0, scopes))
        .map(|&(d, _)| d)
        .collect();
    let module_scopes = keys_of(&ran, "module_scope");
    assert!(module_scopes.is_subset(&paths(db, modules_in_shard)));
    assert!(module_scopes.contains("crate::m0"));

    // The diagnostics: only the edited file's aggregate; the crate's is unchanged.
    assert_eq!(
        keys_of(&ran, "file_diagnostics"),
        BTreeSet::from(["m0.rs".to_string()])
    );
    assert!(keys_of(&ran, "crate_diagnostics").is_empty());
    (
        keys_of(&ran, "def_info").len(),
        sources.len(),
        module_scopes.len(),
        keys_of(&ran, "def_shard").len(),
    )
}

#[test]
fn adding_a_function_re_executes_one_shard_of_projections_at_any_size() {
    let (info_small, source_small, scope_small, shards_small) = add_a_function(40);
    let (info_large, source_large, scope_large, shards_large) = add_a_function(160);
    // Every shard is looked at again (each a slice of the structure), but the projections
    // that re-execute stay within one shard and one file at both sizes.
    for (info, source, scope) in [
        (info_small, source_small, scope_small),
        (info_large, source_large, scope_large),
    ] {
        assert!(info <= SHARD_BOUND, "{info}");
        assert!(source <= SHARD_BOUND + FNS_PER_MODULE + 3, "{source}");
        assert!(scope <= SHARD_BOUND, "{scope}");
    }
    assert!(shards_large > shards_small);
}

#[test]
fn one_items_diagnostics_re_execute_its_files_aggregate_and_keep_the_canonical_order() {
    // One long-lived session (a build with errors saves no cache, so the builds of an
    // error history run in one process).
    let mut p = Project::new(12);
    let options = BuildOptions {
        engine: query::Options {
            event_log: true,
            ..query::Options::default()
        },
        ..BuildOptions::default()
    };
    let mut session = Session::new(p.loader(), Path::new("main.rs"), Goal::Check, options);
    let clean = session.build(Goal::Check);
    assert!(clean.diagnostics.is_empty(), "{:?}", clean.diagnostics);
    session.db.runtime().take_events();

    // Errors in two files, in a body, in a signature and in a constant: the merge of the
    // files' aggregates must give the canonical order (signatures, main, constant values,
    // bodies), as a build from scratch gives it.
    p.edit("m3.rs", |t| {
        t.replace(
            "pub fn f4(x: i64) -> i64 {\n",
            "pub fn f4(x: i64) -> i64 {\n    let wrong: bool = x;\n",
        )
    });
    p.edit("m7.rs", |t| {
        t.replace("pub fn f2(x: i64) -> i64", "pub fn f2(x: Missing) -> i64")
            .replace("pub const STEP: i64 = 3;", "pub const STEP: i64 = true;")
    });
    session.set_loader(p.loader());
    let broken = session.build(Goal::Check);
    let ran = executions(&session.db);
    assert_eq!(
        keys_of(&ran, "file_diagnostics"),
        BTreeSet::from(["m3.rs".to_string(), "m7.rs".to_string()])
    );
    let scratch = p.scratch();
    assert!(broken.diagnostics.len() >= 3, "{:?}", broken.diagnostics);
    assert_eq!(broken.diagnostics, scratch.diagnostics);
    let render = |b: &Build| shared_frontend::diag::render(&b.diagnostics, &b.sources, false);
    assert_eq!(render(&broken), render(&scratch));

    // Fixing one file's error re-executes that file's aggregate and the merge only.
    p.edit("m3.rs", |t| t.replace("    let wrong: bool = x;\n", ""));
    session.set_loader(p.loader());
    let fixed = session.build(Goal::Check);
    let ran = executions(&session.db);
    assert_eq!(
        keys_of(&ran, "file_diagnostics"),
        BTreeSet::from(["m3.rs".to_string()])
    );
    assert_eq!(keys_of(&ran, "crate_diagnostics").len(), 1);
    let scratch = p.scratch();
    assert_eq!(fixed.diagnostics, scratch.diagnostics);
    assert_eq!(render(&fixed), render(&scratch));
    assert_eq!(fixed.diagnostics.len(), broken.diagnostics.len() - 1);
}

/// The queries that work on one item or one name, below the crate-wide hubs (`def_map`,
/// `crate_structure`, and the shards and per-file lists cut from it, each re-executed
/// once per structure edit and cut off by fingerprint).
const ITEM_LEVEL: [&str; 11] = [
    "resolve_name",
    "item_ast",
    "fn_sig",
    "struct_fields",
    "alias_ty",
    "const_ty",
    "const_value",
    "check_struct",
    "typeck",
    "typeck_diagnostics",
    "file_diagnostics",
];

/// What one structure edit of `m0.rs` re-executed at the item level, by query and key,
/// after `prepare` (built and cached first), on a crate of `modules` modules; the build
/// after the edit equals one from scratch.
fn item_level_after(
    modules: usize,
    prepare: impl Fn(&str) -> String,
    edit: impl Fn(&str) -> String,
) -> (Vec<(&'static str, BTreeSet<String>)>, Session) {
    let mut p = Project::new(modules);
    p.edit("m0.rs", prepare);
    let (first, _) = p.check();
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    p.edit("m0.rs", edit);
    let (b, session) = p.check();
    assert!(b.diagnostics.is_empty(), "{:?}", b.diagnostics);
    assert_eq!(b.diagnostics, p.scratch().diagnostics);
    let ran = executions(&session.db);
    let by_query = ITEM_LEVEL.iter().map(|q| (*q, keys_of(&ran, q))).collect();
    (by_query, session)
}

/// The same structure edit on a crate of 40 and of 160 modules: the item-level queries
/// that re-execute are exactly the same ones, query by query and key by key; none is
/// outside `m0` (a removed item's keys show as its id), and the bodies type-checked
/// again are `expect_typeck`.
fn proportional(
    prepare: impl Fn(&str) -> String + Copy,
    edit: impl Fn(&str) -> String + Copy,
    expect_typeck: &[String],
) -> Vec<(&'static str, BTreeSet<String>)> {
    let (small, _) = item_level_after(40, prepare, edit);
    let (large, session) = item_level_after(160, prepare, edit);
    assert_eq!(small, large, "the crate is four times larger");
    let get = |q: &str| &large.iter().find(|(k, _)| *k == q).expect("a query").1;
    let expected: BTreeSet<String> = expect_typeck.iter().cloned().collect();
    assert_eq!(get("typeck"), &expected);
    // Every name looked up again is a name of the edited module (whose scope changed),
    // and every item looked at again is one of its items: the bound is the number of
    // names the program looks up in that module and of the items of its file, whatever
    // the size of the crate.
    for (q, keys) in &large {
        for k in keys {
            assert!(
                k.starts_with("crate::m0::") || k == "m0.rs" || expected.contains(k),
                "{q}({k}) is outside the edited module"
            );
        }
    }
    let names = get("resolve_name").len();
    let in_file = session.db.file_defs("m0.rs".into()).len();
    // `f1` … `f19`, `Pair`, `STEP`, `f0` (from `main`), the primitive `i64` and the
    // locals `x` and `p` (a pattern could name a constant), and a new item's name.
    assert!(
        names <= FNS_PER_MODULE + 6,
        "{names} names: {:?}",
        get("resolve_name")
    );
    // The items of the edited file, and a removed one.
    assert!(
        get("item_ast").len() <= in_file + 1,
        "{:?}",
        get("item_ast")
    );
    large
}

const ADDED_FN: &str = "\npub fn added(x: i64) -> i64 {\n    x * 3\n}\n";

/// How the event log shows the key of `crate::m0::<name>` once the item is gone: its id.
fn removed_key(ns: Namespace, name: &str) -> String {
    let segment = |ns, name| DefPathSegment {
        ns,
        name: Symbol::intern(name),
        disambiguator: 0,
    };
    let path = DefPath {
        segments: vec![segment(Namespace::Type, "m0"), segment(ns, name)],
    };
    format!("{:?}", path.hash())
}

/// The keys `query` executed on, from [`proportional`]'s result.
fn ran_on(ran: &[(&'static str, BTreeSet<String>)], query: &str) -> BTreeSet<String> {
    ran.iter()
        .find(|(k, _)| *k == query)
        .map(|(_, keys)| keys.clone())
        .unwrap_or_default()
}

#[test]
fn adding_a_function_re_checks_it_alone_at_any_size() {
    let added = ["crate::m0::added".to_string()];
    let ran = proportional(|t| t.to_string(), |t| format!("{t}{ADDED_FN}"), &added);
    assert_eq!(ran_on(&ran, "fn_sig"), BTreeSet::from(added.clone()));
    assert!(ran_on(&ran, "struct_fields").is_empty());
    assert!(ran_on(&ran, "const_value").is_empty());
}

#[test]
fn removing_a_function_re_checks_nothing_else_at_any_size() {
    // The removed function's own queries run once more and find it gone.
    let removed = [removed_key(Namespace::Value, "added")];
    let ran = proportional(
        |t| format!("{t}{ADDED_FN}"),
        |t| t.replace(ADDED_FN, ""),
        &removed,
    );
    assert_eq!(ran_on(&ran, "fn_sig"), BTreeSet::from(removed.clone()));
}

#[test]
fn adding_a_struct_re_checks_no_body_at_any_size() {
    let ran = proportional(
        |t| t.to_string(),
        |t| format!("{t}\n#[derive(Clone, Copy)]\npub struct Added {{\n    pub v: i64,\n}}\n"),
        &[],
    );
    assert_eq!(
        ran_on(&ran, "struct_fields"),
        BTreeSet::from(["crate::m0::Added".to_string()])
    );
    assert!(ran_on(&ran, "fn_sig").is_empty());
}

#[test]
fn adding_a_use_at_the_top_re_checks_no_body_at_any_size() {
    // Every item of the file moves one ordinal down: their syntax is found again (equal
    // texts, cut off there), and no body or signature is checked again.
    let ran = proportional(
        |t| t.to_string(),
        |t| format!("use crate::m1::Pair as OtherPair;\n{t}"),
        &[],
    );
    assert!(ran_on(&ran, "fn_sig").is_empty());
    assert!(ran_on(&ran, "struct_fields").is_empty());
}

#[test]
fn a_name_that_starts_to_resolve_re_checks_the_bodies_that_use_it() {
    // `m0` imports `crate::m1::later` and calls it: unresolved until `later` is added to
    // `m1`. The body's check depends on the name's binding in `m0` (an import of a name
    // of `m1`), so adding an item to another module reaches it; and the diagnostics are
    // those of a build from scratch at every step.
    let mut p = Project::new(12);
    p.edit("m0.rs", |t| {
        format!("use crate::m1::later;\n{t}\npub fn caller(x: i64) -> i64 {{\n    later(x)\n}}\n")
    });
    let options = BuildOptions {
        engine: query::Options {
            event_log: true,
            ..query::Options::default()
        },
        ..BuildOptions::default()
    };
    let mut session = Session::new(p.loader(), Path::new("main.rs"), Goal::Check, options);
    let broken = session.build(Goal::Check);
    assert_eq!(broken.diagnostics, p.scratch().diagnostics);
    assert!(
        broken.diagnostics.iter().any(|d| d.code == Some("E0432")),
        "{:?}",
        broken.diagnostics
    );
    session.db.runtime().take_events();

    p.edit("m1.rs", |t| {
        format!("{t}\npub fn later(x: i64) -> i64 {{\n    x\n}}\n")
    });
    session.set_loader(p.loader());
    let fixed = session.build(Goal::Check);
    assert!(fixed.diagnostics.is_empty(), "{:?}", fixed.diagnostics);
    assert_eq!(fixed.diagnostics, p.scratch().diagnostics);
    let ran = executions(&session.db);
    assert_eq!(
        keys_of(&ran, "typeck"),
        BTreeSet::from([
            "crate::m0::caller".to_string(),
            "crate::m1::later".to_string()
        ])
    );
    assert!(keys_of(&ran, "resolve_name").contains("crate::m0::later"));

    // Adding an item named like the import collides with it (E0255), as from scratch.
    p.edit("m0.rs", |t| format!("{t}\nfn later() {{}}\n"));
    session.set_loader(p.loader());
    let clash = session.build(Goal::Check);
    assert_eq!(clash.diagnostics, p.scratch().diagnostics);
    assert!(
        clash.diagnostics.iter().any(|d| d.code == Some("E0255")),
        "{:?}",
        clash.diagnostics
    );
}
