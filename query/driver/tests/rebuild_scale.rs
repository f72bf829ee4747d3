//! What a rebuild of a program on disk touches, at two program sizes: the same queries on
//! the same number of keys, apart from the one stamp per file and per directory the
//! previous build looked at.
//!
//! A `rill` process (`query_driver::build_path`) re-stamps every file and directory of a
//! loaded cache: each module's file, and each directory that holds a module's candidate
//! files (the missing candidate's absence is implied by its directory's stamp). Those
//! stamps are read ahead on a second thread (`stamp::Ahead`) once there are enough of
//! them, and the checks of the
//! link state's code run on that thread after the stamps (`LinkState::code_check`); the counts here
//! hold whichever thread gets to a path or a chunk first. Both sizes are above
//! `stamp::AHEAD_MIN_PATHS` paths, and both images (with a link state's code of more than
//! `backend::link::CHECK_AHEAD_MIN` bytes at the larger size) are compared with an image
//! linked from scratch.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

use query_driver::{self as rill, stamp, Build, BuildOptions, Goal};

/// Functions in each module file.
const FNS_PER_MODULE: usize = 40;

/// Whether module `m` is written as `m{m}/mod.rs` with a module `m{m}/extra.rs` (one in
/// ten), not `m{m}.rs`.
fn in_own_directory(m: usize) -> bool {
    m % 10 == 3
}

/// How many modules [`write_program`] writes in a directory of their own.
fn own_directories(modules: usize) -> usize {
    (0..modules).filter(|&m| in_own_directory(m)).count()
}

/// Writes a crate of `modules` module files (`m{i}.rs`, or `m{i}/mod.rs` and its module
/// `m{i}/extra.rs` for one in ten, each with a constant and [`FNS_PER_MODULE`] functions
/// calling one another) and a `main` calling into each.
fn write_program(dir: &Path, modules: usize) {
    let mut main = String::new();
    for m in 0..modules {
        main.push_str(&format!("mod m{m};\n"));
    }
    main.push_str("\nfn main() {\n    let mut total: i64 = 0;\n");
    for m in 0..modules {
        main.push_str(&format!("    total = total + m{m}::f0(total % 7);\n"));
    }
    main.push_str("    println!(\"{}\", total);\n}\n");
    fs::write(dir.join("main.rs"), main).unwrap();
    for m in 0..modules {
        let mut text = format!("pub const STEP: i64 = {};\n", m % 5 + 1);
        for f in 0..FNS_PER_MODULE {
            let body = if f + 1 < FNS_PER_MODULE {
                format!("    let y = x + STEP * {f};\n    f{}(y % 1000)", f + 1)
            } else {
                "    x * 2".to_string()
            };
            text.push_str(&format!("\npub fn f{f}(x: i64) -> i64 {{\n{body}\n}}\n"));
        }
        let file = if in_own_directory(m) {
            fs::create_dir_all(dir.join(format!("m{m}"))).unwrap();
            fs::write(
                dir.join(format!("m{m}/extra.rs")),
                "pub fn e(x: i64) -> i64 {\n    x + 1\n}\n",
            )
            .unwrap();
            text = format!("pub mod extra;\n{text}");
            format!("m{m}/mod.rs")
        } else {
            format!("m{m}.rs")
        };
        fs::write(dir.join(file), text).unwrap();
    }
}

/// Waits until every file written so far is older than the racy window, so that a stamp
/// holds metadata only (a racy file's stamp holds its content too).
fn settle() {
    std::thread::sleep(Duration::from_millis(1200));
}

fn build(root: &Path, cache: &Path) -> Build {
    let options = BuildOptions {
        cache_dir: Some(cache.to_path_buf()),
        ..BuildOptions::default()
    };
    let build = rill::build_path(root, Goal::Image, options);
    // (The first build finds no cache.)
    let warnings: Vec<_> = build
        .warnings
        .iter()
        .filter(|w| !w.contains("building from scratch"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(!build.has_errors(), "{:?}", build.diagnostics);
    build
}

/// The queries that look at the file system in every build.
const STAMPS: [&str; 2] = ["file_stamp", "dir_stamp"];

/// Executions per query, without the stamps.
fn executed(build: &Build) -> BTreeMap<String, u64> {
    build
        .stats
        .queries
        .iter()
        .filter(|(name, q)| q.executed > 0 && !STAMPS.contains(&name.as_str()))
        .map(|(name, q)| (name.clone(), q.executed))
        .collect()
}

/// Executions of `file_stamp` and of `dir_stamp`.
fn stamps(build: &Build) -> (u64, u64) {
    let executed = |name| build.stats.queries.get(name).map_or(0, |q| q.executed);
    (executed(STAMPS[0]), executed(STAMPS[1]))
}

fn image_hash(build: &Build) -> u128 {
    build.image.as_ref().expect("an image").hash()
}

/// What the rebuilds of a program of `modules` modules did: the no-change rebuild's
/// stamps and other executions, the leaf edit's, and its link.
#[derive(Debug, PartialEq)]
struct Counts {
    no_change_stamps: (u64, u64),
    no_change_executed: BTreeMap<String, u64>,
    leaf_stamps: (u64, u64),
    leaf_executed: BTreeMap<String, u64>,
    leaf_relinked: usize,
    leaf_rewritten: usize,
}

fn rebuilds(modules: usize) -> Counts {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    write_program(dir.path(), modules);
    let root = dir.path().join("main.rs");
    settle();
    let first = build(&root, cache.path());
    assert!(!executed(&first).is_empty());

    let no_change = build(&root, cache.path());
    assert_eq!(image_hash(&no_change), image_hash(&first));
    let link = no_change.link.expect("linked");
    assert!(link.incremental && link.relinked == 0, "{link:?}");

    // A leaf edit: one integer literal of one function body, in the middle module.
    let leaf = dir.path().join(format!("m{}.rs", modules / 2));
    let text = fs::read_to_string(&leaf).unwrap();
    fs::write(&leaf, text.replacen("STEP * 3;", "STEP * 4;", 1)).unwrap();
    settle();
    let edited = build(&root, cache.path());
    let scratch = rill::build_path(&root, Goal::Image, BuildOptions::default());
    assert_eq!(image_hash(&edited), image_hash(&scratch));
    assert_ne!(image_hash(&edited), image_hash(&first));
    let link = edited.link.expect("linked");
    assert!(link.incremental, "{link:?}");
    Counts {
        no_change_stamps: stamps(&no_change),
        no_change_executed: executed(&no_change),
        leaf_stamps: stamps(&edited),
        leaf_executed: executed(&edited),
        leaf_relinked: link.relinked,
        leaf_rewritten: link.rewritten,
    }
}

#[test]
fn a_rebuild_stamps_each_file_and_directory_once_and_executes_the_same_queries_at_two_sizes() {
    let (small, big) = (70, 160);
    assert!(small + 1 >= stamp::AHEAD_MIN_PATHS);
    let (s, b) = (rebuilds(small), rebuilds(big));
    // Every file once (the root, each module's file, each `extra.rs`), and every
    // directory that holds a missing candidate once: the crate's (it implies that each
    // missing `m.rs` and `m/` is missing, and so `m/mod.rs` too), and each `m/` (it
    // implies that `m/extra/` is missing, and so `m/extra/mod.rs`). No missing path is
    // stamped.
    for (modules, c) in [(small, &s), (big, &b)] {
        let own = own_directories(modules) as u64;
        let stamps = (modules as u64 + 1 + own, own + 1);
        assert_eq!(
            (c.no_change_stamps, c.leaf_stamps),
            (stamps, stamps),
            "{c:?}"
        );
        assert!(c.no_change_executed.is_empty(), "{c:?}");
        assert_eq!((c.leaf_relinked, c.leaf_rewritten), (1, 1), "{c:?}");
    }
    // Below the stamps, the leaf edit executes the same queries at both sizes.
    assert_eq!(s.leaf_executed, b.leaf_executed);
}

/// A module file that appears beside its candidate, or disappears, is noticed by a
/// rebuild whose stamps were read ahead: in the crate's directory (`m7/`, `m7/mod.rs`)
/// and in a module's own (`m13.rs` beside `m13/mod.rs`, then `m13/mod.rs` gone).
#[test]
fn a_module_file_that_appears_or_disappears_is_noticed() {
    let modules = 70;
    assert!(modules + 1 >= stamp::AHEAD_MIN_PATHS);
    assert!(in_own_directory(13) && !in_own_directory(7));
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    write_program(dir.path(), modules);
    let root = dir.path().join("main.rs");
    settle();
    let first = build(&root, cache.path());
    let hash = image_hash(&first);

    // `m7/mod.rs` beside `m7.rs`: both candidates exist (E0761).
    fs::create_dir(dir.path().join("m7")).unwrap();
    fs::write(
        dir.path().join("m7/mod.rs"),
        "pub fn f0(x: i64) -> i64 { x }\n",
    )
    .unwrap();
    settle();
    let options = || BuildOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..BuildOptions::default()
    };
    let both = rill::build_path(&root, Goal::Image, options());
    let codes = |b: &Build| {
        b.diagnostics
            .iter()
            .filter_map(|d| d.code)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        codes(&both).first(),
        Some(&"E0761"),
        "{:?}",
        both.diagnostics
    );
    let scratch = rill::build_path(&root, Goal::Image, BuildOptions::default());
    assert_eq!(codes(&both), codes(&scratch));

    // `m7.rs` gone: `m7/mod.rs` is the module now.
    fs::remove_file(dir.path().join("m7.rs")).unwrap();
    settle();
    let moved = build(&root, cache.path());
    let scratch = rill::build_path(&root, Goal::Image, BuildOptions::default());
    assert_eq!(image_hash(&moved), image_hash(&scratch));
    assert_ne!(image_hash(&moved), hash);

    // And back.
    fs::remove_dir_all(dir.path().join("m7")).unwrap();
    write_program(dir.path(), modules);
    settle();
    let back = build(&root, cache.path());
    assert_eq!(image_hash(&back), hash);

    // `m13.rs` beside `m13/mod.rs` (E0761), then `m13/mod.rs` gone, its directory empty.
    let m13 = fs::read_to_string(dir.path().join("m13/mod.rs")).unwrap();
    fs::write(dir.path().join("m13.rs"), m13.replacen("x * 2", "x * 3", 1)).unwrap();
    settle();
    let both = rill::build_path(&root, Goal::Image, options());
    assert_eq!(
        codes(&both).first(),
        Some(&"E0761"),
        "{:?}",
        both.diagnostics
    );
    fs::remove_file(dir.path().join("m13/mod.rs")).unwrap();
    settle();
    let moved = build(&root, cache.path());
    let scratch = rill::build_path(&root, Goal::Image, BuildOptions::default());
    assert_eq!(image_hash(&moved), image_hash(&scratch));
    assert_ne!(image_hash(&moved), hash);
    fs::remove_file(dir.path().join("m13.rs")).unwrap();
    write_program(dir.path(), modules);
    settle();
    assert_eq!(image_hash(&build(&root, cache.path())), hash);
}
