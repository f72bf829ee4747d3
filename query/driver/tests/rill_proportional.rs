//! Validation in proportion to the edit: after a structure edit (an item or a `use` added
//! or removed) or a change of one item's diagnostics, what the query driver executes and
//! re-validates does not grow with the program.
//!
//! The def map is built per file module (`module_items`, from the file's skeleton), the
//! module tree from the files' `mod` items only, imports by one query that reads items one
//! name at a time (`item_binding`), and a def's module is found through the shard of its
//! id (`def_home`). So a structure edit of one file re-executes that file's item tree, the
//! few whole-crate lists assembled from the files' lists (`crate_defs`, `def_homes`, each
//! reading every file module's `module_defs`, green), every shard of the def index (each
//! cut off unless it holds an added or removed def), and below that the same queries on
//! the same keys at every size: the projections of the edited file's items and of the
//! changed shard's, the names looked up in the edited module, and the new or removed
//! item's checks and code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use query::{Database, EventKind};
use query_driver::{self as rill, Build, BuildOptions, Goal, RillDb, Session, DEFS_PER_SHARD};
use shared_frontend::intern::Symbol;
use shared_frontend::sema::def::{DefPath, DefPathSegment, Namespace};
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
        self.build(Goal::Check)
    }

    /// A build up to `goal` on the persistent cache in a new session.
    fn build(&self, goal: Goal) -> (Build, Session) {
        let mut options = BuildOptions {
            cache_dir: Some(self.cache.path().to_path_buf()),
            ..BuildOptions::default()
        };
        options.engine.event_log = true;
        let mut session = Session::new(self.loader(), Path::new("main.rs"), goal, options);
        let mut b = session.build(goal);
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

/// Executed and green counts per query of one build (kinds that did nothing are absent).
fn counts(b: &Build) -> BTreeMap<String, (u64, u64)> {
    b.stats
        .queries
        .iter()
        .filter(|(_, q)| q.executed + q.green > 0)
        .map(|(k, q)| (k.clone(), (q.executed, q.green)))
        .collect()
}

/// What a structure edit of `m0.rs` (after `prepare`, built and cached first) costs on a
/// crate of `modules` modules, with `goal`: per query, executions and green memos; and the
/// numbers the whole-crate steps scale with (stamped paths, def shards, file modules). The
/// build after the edit equals one from scratch.
fn cost_of(
    modules: usize,
    goal: Goal,
    prepare: &dyn Fn(&mut Project),
    edit: &dyn Fn(&mut Project),
) -> (BTreeMap<String, (u64, u64)>, (u64, u64, u64)) {
    let mut p = Project::new(modules);
    prepare(&mut p);
    let (first, _) = p.build(goal);
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    edit(&mut p);
    let (b, session) = p.build(goal);
    assert!(b.diagnostics.is_empty(), "{:?}", b.diagnostics);
    assert_eq!(b.diagnostics, p.scratch().diagnostics);
    let db = &session.db;
    let files = db.crate_files(()).len() as u64;
    let shards = u64::from(db.def_shard_count(()));
    let file_modules = db.module_tree(()).modules.len() as u64;
    (counts(&b), (files, shards, file_modules))
}

/// The whole-crate steps a structure edit re-runs and the bound of each, in the numbers
/// `cost_of` returns (`files` stamped paths, `shards` def shards, `file_modules`): the
/// stamps taken every session (each a `stat`), the def index's shards re-hashed when a def
/// is added or removed (at most `DEFS_PER_SHARD` on average each; cut off but for the
/// changed one), the file modules' lists read by the crate's list and index (green), and,
/// when the imports are resolved again, every module's `use` items (green) and the
/// imports of every module that has some (`module_imports`, cut off per module). And one step
/// that does not grow but is not the same at two sizes: the defs of the changed shard
/// find their module again (`def_home`), as many as that shard holds; ids are hashes, so
/// a shard three times the average does not occur in practice (a Poisson tail below
/// 10^-12). `def_home` is not persisted: a def whose reader re-executes finds its module
/// again too, and reads its shard from the cache (green), one per `def_home` executed at
/// most, so no more green shards than that bound.
fn whole_crate_bound(
    query: &str,
    (files, shards, file_modules): (u64, u64, u64),
) -> Option<(u64, u64)> {
    match query {
        // A stamp per file and per candidate path of each `mod` item (`x.rs`, `x/mod.rs`).
        "file_stamp" => Some((2 * files, 0)),
        "def_shard" => Some((shards, shards.min(3 * DEFS_PER_SHARD as u64))),
        "module_defs" => Some((1, file_modules)),
        "module_uses" => Some((1, file_modules)),
        "module_imports" => Some((file_modules, file_modules)),
        "def_home" => Some((3 * DEFS_PER_SHARD as u64, 3 * DEFS_PER_SHARD as u64)),
        _ => None,
    }
}

/// The structure edit at 40 and at 160 modules: every query outside the whole-crate steps
/// executes and is re-validated exactly as often at both sizes; those steps stay within
/// their bounds.
fn same_cost_at_two_sizes(
    goal: Goal,
    prepare: &dyn Fn(&mut Project),
    edit: &dyn Fn(&mut Project),
) -> BTreeMap<String, (u64, u64)> {
    let (small, small_n) = cost_of(40, goal, prepare, edit);
    let (large, large_n) = cost_of(160, goal, prepare, edit);
    assert!(
        large_n.0 > 3 * small_n.0 && large_n.1 > small_n.1,
        "{small_n:?} {large_n:?}"
    );
    let local = |c: &BTreeMap<String, (u64, u64)>| -> BTreeMap<String, (u64, u64)> {
        c.iter()
            .filter(|(q, _)| whole_crate_bound(q, (0, 0, 0)).is_none())
            .map(|(q, n)| (q.clone(), *n))
            .collect()
    };
    assert_eq!(
        local(&small),
        local(&large),
        "the crate is four times larger"
    );
    for (c, n) in [(&small, small_n), (&large, large_n)] {
        for (q, &(executed, green)) in c {
            if let Some((max_executed, max_green)) = whole_crate_bound(q, n) {
                assert!(
                    executed <= max_executed && green <= max_green,
                    "{q}: {executed} executed, {green} green; bound {max_executed}, {max_green}"
                );
            }
        }
    }
    // The whole-crate lists are assembled once.
    for q in ["crate_defs", "def_homes"] {
        assert!(
            large.get(q).is_none_or(|&(e, _)| e <= 1),
            "{q}: {:?}",
            large.get(q)
        );
    }
    large
}

fn add_fn(p: &mut Project) {
    p.edit("m0.rs", |t| format!("{t}{ADDED_FN}"));
}

fn remove_fn(p: &mut Project) {
    p.edit("m0.rs", |t| t.replace(ADDED_FN, ""));
}

fn nothing(_: &mut Project) {}

#[test]
fn adding_or_removing_a_function_costs_the_same_at_two_sizes() {
    let added = same_cost_at_two_sizes(Goal::Image, &nothing, &add_fn);
    // Its own code only: no other function's `codegen` is looked at.
    assert_eq!(added.get("codegen"), Some(&(1, 0)), "{added:?}");
    assert_eq!(added.get("typeck"), Some(&(1, 0)), "{added:?}");
    let removed = same_cost_at_two_sizes(Goal::Image, &add_fn, &remove_fn);
    assert_eq!(removed.get("codegen").map_or(0, |c| c.1), 0, "{removed:?}");
    assert!(
        removed.get("typeck").is_none_or(|c| c.1 == 0),
        "{removed:?}"
    );
}

#[test]
fn adding_a_struct_or_a_use_costs_the_same_at_two_sizes() {
    let add_struct = |p: &mut Project| {
        p.edit("m0.rs", |t| {
            format!("{t}\n#[derive(Clone, Copy)]\npub struct Added {{\n    pub v: i64,\n}}\n")
        })
    };
    let ran = same_cost_at_two_sizes(Goal::Check, &nothing, &add_struct);
    assert_eq!(ran.get("struct_fields").map(|c| c.0), Some(1), "{ran:?}");
    let add_use = |p: &mut Project| {
        p.edit("m0.rs", |t| {
            format!("use crate::m1::Pair as OtherPair;\n{t}")
        })
    };
    let ran = same_cost_at_two_sizes(Goal::Check, &nothing, &add_use);
    assert_eq!(ran.get("imports").map(|c| c.0), Some(1), "{ran:?}");
    assert!(ran.get("typeck").is_none_or(|c| c.0 == 0), "{ran:?}");
}

#[test]
fn removing_an_item_an_import_names_costs_the_same_at_two_sizes() {
    // `m1` imports `Both` from `m0`, a struct and a function of that name; removing the
    // function re-resolves the imports (one of them looked the name up) and re-checks
    // the body in `m1` that uses the name.
    let prepare = |p: &mut Project| {
        p.edit("m0.rs", |t| {
            format!("{t}\n#[derive(Clone, Copy)]\npub struct Both {{\n    pub v: i64,\n}}\n\npub fn Both(x: i64) -> i64 {{\n    x\n}}\n")
        });
        p.edit("m1.rs", |t| {
            format!("use crate::m0::Both;\n{t}\npub fn uses_both(x: i64) -> i64 {{\n    let b = Both {{ v: x }};\n    b.v\n}}\n")
        });
    };
    let edit = |p: &mut Project| {
        p.edit("m0.rs", |t| {
            t.replace("\npub fn Both(x: i64) -> i64 {\n    x\n}\n", "")
        })
    };
    let ran = same_cost_at_two_sizes(Goal::Check, &prepare, &edit);
    assert_eq!(ran.get("imports").map(|c| c.0), Some(1), "{ran:?}");
    assert_eq!(ran.get("typeck").map(|c| c.0), Some(2), "{ran:?}");
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

/// The queries that work on one item or one name, below the file's item tree and the
/// crate-wide lists assembled from the files' (each re-executed once per structure edit
/// and cut off by fingerprint).
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
    let m0 = session
        .db
        .module_tree(())
        .file_modules(Path::new("m0.rs"))
        .next()
        .expect("m0");
    let in_file = session.db.module_defs(m0).len();
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
