//! Minimality of the query driver on hand-written edit histories: what re-executes after
//! an edit, build after build on one cache directory (a new session per build, as `rill`
//! processes run).
//!
//! Each test shows the queries that executed, by kind and key (an item by its def path),
//! as a snapshot (`expect-test`; `UPDATE_EXPECT=1 cargo test` rewrites them), beside the
//! counts it asserts.

use std::path::Path;
use std::sync::Arc;

use expect_test::{expect, Expect};
use query::{Database, EventKind};
use query_driver::{self as rill, Build, BuildOptions, Goal, RillDb, Session};
use shared_frontend::sema::modules::MemLoader;

const MAIN: &str = "mod geometry;
mod util;

use geometry::Point;

fn main() {
    let p = Point { x: 3, y: 4 };
    println!(\"{}\", geometry::area(p));
    println!(\"{}\", util::twice(21));
    println!(\"{}\", util::LIMIT);
}
";

const GEOMETRY: &str = "#[derive(Clone, Copy)]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

pub fn area(p: Point) -> i64 {
    p.x * p.y
}

pub fn perimeter(p: Point) -> i64 {
    2 * (p.x + p.y)
}
";

const UTIL: &str = "pub const LIMIT: i64 = 100;

pub fn twice(x: i64) -> i64 {
    x * 2
}

pub fn clamp(x: i64) -> i64 {
    if x > LIMIT { LIMIT } else { x }
}
";

struct Project {
    files: Vec<(&'static str, String)>,
    cache: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        Project {
            files: vec![
                ("main.rs", MAIN.to_string()),
                ("geometry.rs", GEOMETRY.to_string()),
                ("util.rs", UTIL.to_string()),
            ],
            cache: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn edit(&mut self, file: &str, f: impl FnOnce(&str) -> String) {
        let entry = self
            .files
            .iter_mut()
            .find(|(p, _)| *p == file)
            .expect("file");
        entry.1 = f(&entry.1);
    }

    fn loader(&self) -> Arc<MemLoader> {
        Arc::new(MemLoader::new(
            self.files.iter().map(|(p, t)| (*p, t.as_bytes())),
        ))
    }

    /// A build on the persistent cache.
    fn build(&self) -> Build {
        self.build_logged().0
    }

    /// A build on the persistent cache in a new session, as `rill` runs one, and the
    /// queries that executed in it ([`executed_log`]).
    fn build_logged(&self) -> (Build, String) {
        let mut options = BuildOptions {
            cache_dir: Some(self.cache.path().to_path_buf()),
            ..BuildOptions::default()
        };
        options.engine.event_log = true;
        let mut session = Session::new(self.loader(), Path::new("main.rs"), Goal::Image, options);
        let mut b = session.build(Goal::Image);
        session.finish(&mut b);
        assert!(!b.has_errors(), "{:?}", b.diagnostics);
        let log = executed_log(&session.db);
        (b, log)
    }

    /// A build from scratch, for comparison.
    fn scratch(&self) -> Build {
        rill::build(
            self.loader(),
            Path::new("main.rs"),
            Goal::Image,
            BuildOptions::default(),
        )
    }
}

fn executed(b: &Build, kind: &str) -> u64 {
    b.stats.queries.get(kind).map_or(0, |q| q.executed)
}

/// The queries that executed, one per line as `kind(key)`, in the order of the query table
/// (file stamps first, code last) and by key within a kind, so that the log does not
/// depend on the order in which providers happen to read.
fn executed_log(db: &RillDb) -> String {
    let rank = |query: &str| RillDb::KINDS.iter().position(|k| k.name == query);
    let mut lines: Vec<_> = db
        .runtime()
        .take_events()
        .into_iter()
        .filter(|e| e.kind == EventKind::Executed)
        .map(|e| (rank(e.query), e.query, rill::event_key(db, &e)))
        .collect();
    lines.sort();
    let mut log = String::new();
    for (_, query, key) in lines {
        log.push_str(&format!("{query}({key})\n"));
    }
    log
}

fn check_log(log: &str, expected: Expect) {
    expected.assert_eq(log);
}

fn image(b: &Build) -> u128 {
    b.image.as_ref().expect("linked").hash()
}

#[test]
fn a_build_from_scratch_executes_every_query_once() {
    let p = Project::new();
    let (first, log) = p.build_logged();
    // Five functions: `main`, `area`, `perimeter`, `twice`, `clamp`.
    assert_eq!(executed(&first, "codegen"), 5);
    assert_eq!(executed(&first, "typeck"), 5);
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(geometry.rs)
            file_text(geometry/mod.rs)
            file_text(main.rs)
            file_text(util.rs)
            file_text(util/mod.rs)
            parse_file(geometry.rs)
            parse_file(main.rs)
            parse_file(util.rs)
            file_split(geometry.rs)
            file_split(main.rs)
            file_split(util.rs)
            file_chunk_count(geometry.rs)
            file_chunk_count(main.rs)
            file_chunk_count(util.rs)
            file_split_clean(geometry.rs)
            file_split_clean(main.rs)
            file_split_clean(util.rs)
            file_skeleton(geometry.rs)
            file_skeleton(main.rs)
            file_skeleton(util.rs)
            file_status(geometry.rs)
            file_status(geometry/mod.rs)
            file_status(main.rs)
            file_status(util.rs)
            file_status(util/mod.rs)
            file_modules(geometry.rs)
            file_modules(main.rs)
            file_modules(util.rs)
            module_tree()
            module_items(crate)
            module_items(crate::geometry)
            module_items(crate::util)
            module_defs(crate)
            module_defs(crate::geometry)
            module_defs(crate::util)
            module_uses(crate)
            module_uses(crate::geometry)
            module_uses(crate::util)
            module_item_errors(crate)
            module_item_errors(crate::geometry)
            module_item_errors(crate::util)
            structure_diagnostics()
            crate_fatal()
            crate_files()
            crate_defs()
            def_homes()
            def_shard_count()
            def_shard(0)
            def_home(crate::geometry::Point)
            def_home(crate::geometry::area)
            def_home(crate::geometry::perimeter)
            def_home(crate::main)
            def_home(crate::util::LIMIT)
            def_home(crate::util::clamp)
            def_home(crate::util::twice)
            def_info(crate::geometry::Point)
            def_info(crate::geometry::area)
            def_info(crate::geometry::perimeter)
            def_info(crate::main)
            def_info(crate::util::LIMIT)
            def_info(crate::util::clamp)
            def_info(crate::util::twice)
            def_source(crate::geometry::Point)
            def_source(crate::geometry::area)
            def_source(crate::geometry::perimeter)
            def_source(crate::main)
            def_source(crate::util::LIMIT)
            def_source(crate::util::clamp)
            def_source(crate::util::twice)
            item_binding(crate::Point)
            item_binding(crate::geometry)
            item_binding(crate::geometry::Point)
            item_binding(crate::geometry::area)
            item_binding(crate::geometry::i64)
            item_binding(crate::geometry::p)
            item_binding(crate::main)
            item_binding(crate::p)
            item_binding(crate::util)
            item_binding(crate::util::LIMIT)
            item_binding(crate::util::i64)
            item_binding(crate::util::twice)
            item_binding(crate::util::x)
            imports()
            import_errors()
            module_imports(crate)
            module_imports(crate::geometry)
            module_imports(crate::util)
            resolve_name(crate::Point)
            resolve_name(crate::geometry)
            resolve_name(crate::geometry::Point)
            resolve_name(crate::geometry::area)
            resolve_name(crate::geometry::i64)
            resolve_name(crate::geometry::p)
            resolve_name(crate::main)
            resolve_name(crate::p)
            resolve_name(crate::util)
            resolve_name(crate::util::LIMIT)
            resolve_name(crate::util::i64)
            resolve_name(crate::util::twice)
            resolve_name(crate::util::x)
            item_ast(crate::geometry::Point)
            item_ast(crate::geometry::area)
            item_ast(crate::geometry::perimeter)
            item_ast(crate::main)
            item_ast(crate::util::LIMIT)
            item_ast(crate::util::clamp)
            item_ast(crate::util::twice)
            fn_sig(crate::geometry::area)
            fn_sig(crate::geometry::perimeter)
            fn_sig(crate::main)
            fn_sig(crate::util::clamp)
            fn_sig(crate::util::twice)
            struct_fields(crate::geometry::Point)
            const_ty(crate::util::LIMIT)
            const_value(crate::util::LIMIT)
            check_struct(crate::geometry::Point)
            typeck(crate::geometry::area)
            typeck(crate::geometry::perimeter)
            typeck(crate::main)
            typeck(crate::util::clamp)
            typeck(crate::util::twice)
            typeck_diagnostics(crate::geometry::area)
            typeck_diagnostics(crate::geometry::perimeter)
            typeck_diagnostics(crate::main)
            typeck_diagnostics(crate::util::clamp)
            typeck_diagnostics(crate::util::twice)
            main_fn()
            check_main()
            file_diagnostics(geometry.rs)
            file_diagnostics(main.rs)
            file_diagnostics(util.rs)
            crate_diagnostics()
            optimize(crate::geometry::area)
            optimize(crate::geometry::perimeter)
            optimize(crate::main)
            optimize(crate::util::clamp)
            optimize(crate::util::twice)
            codegen(crate::geometry::area)
            codegen(crate::geometry::perimeter)
            codegen(crate::main)
            codegen(crate::util::clamp)
            codegen(crate::util::twice)
        "#]],
    );
}

#[test]
fn no_change_re_executes_nothing_but_the_file_stamps() {
    let p = Project::new();
    let first = p.build();
    assert_eq!(executed(&first, "codegen"), 5);
    let (again, log) = p.build_logged();
    for (kind, q) in &again.stats.queries {
        // Only queries that execute in every session by their modifiers: the stamps of
        // the files.
        if !q.flags.executes_every_session() {
            assert_eq!(q.executed, 0, "{kind} re-executed");
        }
    }
    // The three files, and the module-file candidates that were probed, are stamped;
    // none is read (the loader has no metadata: their contents are compared).
    assert!(executed(&again, "file_stamp") >= 3);
    assert_eq!(executed(&again, "file_text"), 0);
    assert_eq!(image(&again), image(&first));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
        "#]],
    );
}

#[test]
fn a_comment_at_the_top_of_a_file_re_executes_no_codegen() {
    let mut p = Project::new();
    let first = p.build();
    p.edit("geometry.rs", |t| format!("// Points and shapes.\n\n{t}"));
    let (b, log) = p.build_logged();
    assert_eq!(executed(&b, "codegen"), 0);
    assert_eq!(executed(&b, "typeck"), 0);
    assert_eq!(executed(&b, "fn_sig"), 0);
    // Only the edited file is parsed again.
    assert_eq!(executed(&b, "parse_file"), 1);
    assert_eq!(image(&b), image(&first));
    assert_eq!(image(&b), image(&p.scratch()));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(geometry.rs)
            parse_file(geometry.rs)
            file_split(geometry.rs)
            file_chunk_count(geometry.rs)
            file_skeleton(geometry.rs)
            file_status(geometry.rs)
            item_ast(crate::geometry::Point)
            item_ast(crate::geometry::area)
            item_ast(crate::geometry::perimeter)
        "#]],
    );
}

#[test]
fn whitespace_in_a_body_stops_at_the_optimized_ir() {
    let mut p = Project::new();
    let first = p.build();
    p.edit("geometry.rs", |t| t.replace("p.x * p.y", "p.x  *  p.y"));
    let (b, log) = p.build_logged();
    // The item's text changed: it is checked and lowered again, to the same IR.
    assert_eq!(executed(&b, "typeck"), 1);
    assert_eq!(executed(&b, "optimize"), 1);
    assert_eq!(executed(&b, "codegen"), 0);
    assert_eq!(image(&b), image(&first));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(geometry.rs)
            parse_file(geometry.rs)
            file_split(geometry.rs)
            file_chunk_count(geometry.rs)
            file_skeleton(geometry.rs)
            file_status(geometry.rs)
            item_ast(crate::geometry::Point)
            item_ast(crate::geometry::area)
            item_ast(crate::geometry::perimeter)
            fn_sig(crate::geometry::area)
            typeck(crate::geometry::area)
            typeck_diagnostics(crate::geometry::area)
            optimize(crate::geometry::area)
        "#]],
    );
}

#[test]
fn one_function_body_edit_re_executes_exactly_one_codegen() {
    let mut p = Project::new();
    p.build();
    p.edit("geometry.rs", |t| t.replace("p.x * p.y", "p.x * p.y + 1"));
    let (b, log) = p.build_logged();
    assert_eq!(executed(&b, "codegen"), 1);
    assert_eq!(executed(&b, "typeck"), 1);
    // The signature is computed again from the edited item and cut off: no caller is
    // checked again.
    assert!(executed(&b, "fn_sig") <= 1);
    assert_eq!(image(&b), image(&p.scratch()));
    assert_ne!(image(&b), image(&Project::new().scratch()));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(geometry.rs)
            parse_file(geometry.rs)
            file_split(geometry.rs)
            file_chunk_count(geometry.rs)
            file_skeleton(geometry.rs)
            file_status(geometry.rs)
            item_ast(crate::geometry::Point)
            item_ast(crate::geometry::area)
            item_ast(crate::geometry::perimeter)
            fn_sig(crate::geometry::area)
            typeck(crate::geometry::area)
            typeck_diagnostics(crate::geometry::area)
            optimize(crate::geometry::area)
            codegen(crate::geometry::area)
        "#]],
    );
}

#[test]
fn a_body_edit_in_the_root_file_re_executes_only_that_function() {
    let mut p = Project::new();
    p.build();
    p.edit("main.rs", |t| t.replace("twice(21)", "twice(22)"));
    let (b, log) = p.build_logged();
    assert_eq!(executed(&b, "typeck"), 1);
    assert_eq!(executed(&b, "codegen"), 1);
    assert_eq!(executed(&b, "parse_file"), 1);
    assert_eq!(image(&b), image(&p.scratch()));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(main.rs)
            parse_file(main.rs)
            file_split(main.rs)
            file_chunk_count(main.rs)
            file_skeleton(main.rs)
            file_status(main.rs)
            item_ast(crate::main)
            fn_sig(crate::main)
            typeck(crate::main)
            typeck_diagnostics(crate::main)
            optimize(crate::main)
            codegen(crate::main)
        "#]],
    );
}

#[test]
fn a_body_edit_that_keeps_the_code_stops_before_codegen() {
    let mut p = Project::new();
    let first = p.build();
    // Longer text, same tokens' meaning: the item moves, its relative spans change, its
    // code does not.
    p.edit("util.rs", |t| t.replace("x * 2", "(x) * 2"));
    let (b, log) = p.build_logged();
    assert_eq!(executed(&b, "typeck"), 1);
    assert_eq!(executed(&b, "codegen"), 0);
    assert_eq!(image(&b), image(&first));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(util.rs)
            parse_file(util.rs)
            file_split(util.rs)
            file_chunk_count(util.rs)
            file_skeleton(util.rs)
            file_status(util.rs)
            item_ast(crate::util::LIMIT)
            item_ast(crate::util::clamp)
            item_ast(crate::util::twice)
            fn_sig(crate::util::twice)
            typeck(crate::util::twice)
            typeck_diagnostics(crate::util::twice)
            optimize(crate::util::twice)
        "#]],
    );
}

#[test]
fn a_signature_edit_re_checks_the_callers() {
    let mut p = Project::new();
    p.build();
    p.edit("util.rs", |t| {
        t.replace(
            "pub fn twice(x: i64) -> i64 {\n    x * 2",
            "pub fn twice(x: i32) -> i64 {\n    x as i64 * 2",
        )
    });
    let (b, log) = p.build_logged();
    // `twice` itself and `main`, its only caller; nothing in geometry.rs.
    assert_eq!(executed(&b, "typeck"), 2);
    assert_eq!(image(&b), image(&p.scratch()));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(main.rs)
            file_text(util.rs)
            parse_file(main.rs)
            parse_file(util.rs)
            file_split(util.rs)
            file_chunk_count(util.rs)
            file_skeleton(main.rs)
            file_skeleton(util.rs)
            file_status(util.rs)
            item_binding(crate::util::i32)
            resolve_name(crate::util::i32)
            item_ast(crate::main)
            item_ast(crate::util::LIMIT)
            item_ast(crate::util::clamp)
            item_ast(crate::util::twice)
            fn_sig(crate::util::twice)
            typeck(crate::main)
            typeck(crate::util::twice)
            typeck_diagnostics(crate::main)
            typeck_diagnostics(crate::util::twice)
            file_diagnostics(util.rs)
            optimize(crate::main)
            optimize(crate::util::twice)
            codegen(crate::main)
            codegen(crate::util::twice)
        "#]],
    );
}

#[test]
fn a_const_value_edit_re_executes_only_its_users() {
    let mut p = Project::new();
    p.build();
    p.edit("util.rs", |t| {
        t.replace("LIMIT: i64 = 100", "LIMIT: i64 = 7")
    });
    let (b, log) = p.build_logged();
    assert_eq!(executed(&b, "const_value"), 1);
    // `clamp` and `main` read LIMIT: their bodies are lowered again (values are folded
    // into the code); nobody else's.
    assert_eq!(executed(&b, "optimize"), 2);
    assert_eq!(image(&b), image(&p.scratch()));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(main.rs)
            file_text(util.rs)
            parse_file(main.rs)
            parse_file(util.rs)
            file_split(util.rs)
            file_chunk_count(util.rs)
            file_skeleton(main.rs)
            file_skeleton(util.rs)
            file_status(util.rs)
            item_ast(crate::main)
            item_ast(crate::util::LIMIT)
            item_ast(crate::util::clamp)
            item_ast(crate::util::twice)
            const_ty(crate::util::LIMIT)
            const_value(crate::util::LIMIT)
            typeck(crate::main)
            typeck(crate::util::clamp)
            typeck_diagnostics(crate::main)
            file_diagnostics(util.rs)
            optimize(crate::main)
            optimize(crate::util::clamp)
            codegen(crate::main)
            codegen(crate::util::clamp)
        "#]],
    );
}

#[test]
fn adding_a_function_compiles_it_alone() {
    let mut p = Project::new();
    p.build();
    p.edit("geometry.rs", |t| {
        format!("{t}\npub fn diagonal_sq(p: Point) -> i64 {{\n    p.x * p.x + p.y * p.y\n}}\n")
    });
    let (b, log) = p.build_logged();
    // The crate's structure changed, so every item is looked up again (and cut off).
    // geometry.rs's scope changed, but the bodies read it one name at a time
    // (`resolve_name`): the names they use are bound as before, so only the new function
    // is checked, lowered and compiled.
    assert_eq!(executed(&b, "typeck"), 1);
    assert_eq!(executed(&b, "optimize"), 1);
    assert_eq!(executed(&b, "codegen"), 1);
    assert_eq!(image(&b), image(&p.scratch()));
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(geometry.rs)
            parse_file(geometry.rs)
            file_split(geometry.rs)
            file_chunk_count(geometry.rs)
            file_skeleton(geometry.rs)
            file_status(geometry.rs)
            file_modules(geometry.rs)
            module_items(crate::geometry)
            module_defs(crate::geometry)
            module_uses(crate::geometry)
            module_item_errors(crate::geometry)
            crate_defs()
            def_homes()
            def_shard_count()
            def_shard(0)
            def_home(crate::geometry::Point)
            def_home(crate::geometry::area)
            def_home(crate::geometry::diagonal_sq)
            def_home(crate::geometry::perimeter)
            def_home(crate::main)
            def_home(crate::util::LIMIT)
            def_home(crate::util::clamp)
            def_home(crate::util::twice)
            def_info(crate::geometry::Point)
            def_info(crate::geometry::area)
            def_info(crate::geometry::diagonal_sq)
            def_info(crate::geometry::perimeter)
            def_source(crate::geometry::Point)
            def_source(crate::geometry::area)
            def_source(crate::geometry::diagonal_sq)
            def_source(crate::geometry::perimeter)
            item_binding(crate::geometry::Point)
            item_binding(crate::geometry::area)
            item_binding(crate::geometry::i64)
            item_binding(crate::geometry::p)
            item_ast(crate::geometry::Point)
            item_ast(crate::geometry::area)
            item_ast(crate::geometry::diagonal_sq)
            item_ast(crate::geometry::perimeter)
            fn_sig(crate::geometry::diagonal_sq)
            typeck(crate::geometry::diagonal_sq)
            typeck_diagnostics(crate::geometry::diagonal_sq)
            file_diagnostics(geometry.rs)
            optimize(crate::geometry::diagonal_sq)
            codegen(crate::geometry::diagonal_sq)
        "#]],
    );
}

#[test]
fn removing_a_function_compiles_nothing_again() {
    let mut p = Project::new();
    let first = p.build();
    p.edit("geometry.rs", |t| {
        t.replace(
            "\npub fn perimeter(p: Point) -> i64 {\n    2 * (p.x + p.y)\n}\n",
            "",
        )
    });
    let (b, log) = p.build_logged();
    // As for an addition: no other body used the removed name, so none is checked again,
    // and the removed function's code is no longer linked. The removed function's own
    // `typeck`, `optimize` and `codegen` run once more: the change reaches them, and they
    // find the function gone (no code is generated: the log shows the one `codegen` is
    // the removed function's).
    assert_eq!(executed(&b, "typeck"), 1);
    assert_eq!(executed(&b, "codegen"), 1);
    assert_eq!(image(&b), image(&p.scratch()));
    assert_ne!(image(&b), image(&first), "one function less");
    check_log(
        &log,
        expect![[r#"
            file_stamp(geometry.rs)
            file_stamp(geometry/mod.rs)
            file_stamp(main.rs)
            file_stamp(util.rs)
            file_stamp(util/mod.rs)
            file_text(geometry.rs)
            parse_file(geometry.rs)
            file_split(geometry.rs)
            file_chunk_count(geometry.rs)
            file_skeleton(geometry.rs)
            file_status(geometry.rs)
            file_modules(geometry.rs)
            module_items(crate::geometry)
            module_defs(crate::geometry)
            module_uses(crate::geometry)
            module_item_errors(crate::geometry)
            crate_defs()
            def_homes()
            def_shard_count()
            def_shard(0)
            def_home(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            def_home(crate::geometry::Point)
            def_home(crate::geometry::area)
            def_home(crate::main)
            def_home(crate::util::LIMIT)
            def_home(crate::util::clamp)
            def_home(crate::util::twice)
            def_info(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            def_info(crate::geometry::Point)
            def_info(crate::geometry::area)
            def_source(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            def_source(crate::geometry::Point)
            def_source(crate::geometry::area)
            item_binding(crate::geometry::Point)
            item_binding(crate::geometry::area)
            item_binding(crate::geometry::i64)
            item_binding(crate::geometry::p)
            item_ast(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            item_ast(crate::geometry::Point)
            item_ast(crate::geometry::area)
            fn_sig(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            typeck(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            typeck_diagnostics(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            file_diagnostics(geometry.rs)
            optimize(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
            codegen(DefPathHash(1a3c09eaaf13ddd5605ef7e5b6a2496f))
        "#]],
    );
}

#[test]
fn an_error_introduced_then_fixed_comes_back_to_the_same_image() {
    let mut p = Project::new();
    let first = p.build();
    let good = p.files.clone();
    p.edit("geometry.rs", |t| t.replace("p.x * p.y", "p.x * true"));
    let broken = rill::build(
        p.loader(),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions {
            cache_dir: Some(p.cache.path().to_path_buf()),
            ..BuildOptions::default()
        },
    );
    assert!(broken.has_errors());
    assert!(broken.image.is_none());
    p.files = good;
    let fixed = p.build();
    assert_eq!(image(&fixed), image(&first));
    assert_eq!(
        executed(&fixed, "codegen"),
        0,
        "the old code is still in the cache"
    );
}

#[test]
fn with_absolute_spans_a_comment_at_the_top_re_checks_the_file_but_keeps_the_code() {
    let mut p = Project::new();
    let options = || BuildOptions {
        cache_dir: Some(p.cache.path().to_path_buf()),
        spans: rill::SpanMode::Absolute,
        ..BuildOptions::default()
    };
    let build = |p: &Project, o: BuildOptions| {
        rill::build(p.loader(), Path::new("main.rs"), Goal::Image, o)
    };
    let first = build(&p, options());
    let opts = options();
    p.edit("geometry.rs", |t| format!("// Points and shapes.\n\n{t}"));
    let b = build(&p, opts);
    // Both functions of geometry.rs moved: checked and lowered again, same code.
    assert_eq!(executed(&b, "typeck"), 2);
    assert_eq!(executed(&b, "codegen"), 0);
    assert_eq!(image(&b), image(&first));
}

#[test]
fn a_build_from_scratch_releases_optimized_ir_without_hashing_it() {
    let p = Project::new();
    let optimize = |b: &Build| {
        let q = &b.stats.queries["optimize"];
        (q.executed, q.released, q.hashed_bytes)
    };
    // `build`: one session, one build, no cache: no later revision compares a function's
    // IR, so it is dropped unhashed once its code is generated.
    let scratch = p.scratch();
    assert_eq!(optimize(&scratch), (5, 5, 0));
    // A session that may build again fingerprints it when it releases it.
    let mut session = Session::new(
        p.loader(),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions::default(),
    );
    let mut again = session.build(Goal::Image);
    session.finish(&mut again);
    let (executed, released, hashed) = optimize(&again);
    assert_eq!((executed, released), (5, 5));
    assert!(hashed > 0);
    assert_eq!(image(&scratch), image(&again));
}
