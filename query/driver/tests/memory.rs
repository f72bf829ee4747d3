//! The query driver's memory in a build from scratch: each file's syntax (its items'
//! `item_ast`, its chunks' `chunk_parse`, its `parse_file`) is released once every item of
//! the file was checked, as the pipeline releases a function's syntax once its body is
//! type-checked (`pipeline/tests/memory.rs`), so that the syntax trees and the typed
//! bodies are never all held at once. A released value read again is parsed again,
//! equal, and not a change.
//!
//! The heap is measured by a global allocator (`rill_gen::heap`) that counts the bytes live at every moment
//! and the most ever live; the tests of this file take a lock so that none allocates while
//! another measures.

use std::path::Path;
use std::sync::{Arc, Mutex};

use query::DatabaseExt;
use query_driver::{rq, BuildOptions, Goal, Session};
use rill_gen::{self as gen, heap, GenConfig};
use shared_frontend::sema::def::DefKind;
use shared_frontend::sema::modules::{load_crate_with, MemLoader};
use shared_frontend::syntax::parser;

#[global_allocator]
static GLOBAL: heap::Counting = heap::Counting;

/// One measurement at a time.
static MEASURING: Mutex<()> = Mutex::new(());

/// A generated program of about `lines` lines, in memory.
fn program(lines: usize) -> MemLoader {
    let p = gen::generate(&GenConfig {
        seed: 7,
        target_lines: lines,
        editable: false,
        ..GenConfig::default()
    });
    MemLoader::new(p.files.iter().map(|f| (f.path.clone(), f.text.clone())))
}

/// (executed, released, recomputed) of query `name`.
fn counts(session: &Session, name: &str) -> (u64, u64, u64) {
    let stats = session.db.stats();
    let q = &stats.queries[name];
    (q.executed, q.released, q.recomputed)
}

#[test]
fn the_syntax_is_released_file_by_file_and_parsed_again_only_when_read_again() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let loader = program(20_000);
    let root = Path::new("main.rs");
    // What the parsed crate holds (its texts and syntax trees).
    let start = heap::live();
    let krate = load_crate_with(&loader, root, &parser::parse_file);
    let parsed = heap::live() - start;
    drop(krate);

    let mut session = Session::new(Arc::new(loader), root, Goal::Check, BuildOptions::default());
    let build = session.build(Goal::Check);
    assert!(!build.has_errors(), "{:?}", build.diagnostics);
    // Every parse and every item's syntax was released (a type alias's is kept: paths
    // read it again), and none was read again.
    for name in ["parse_file", "chunk_parse"] {
        let (executed, released, recomputed) = counts(&session, name);
        assert!(executed > 0, "{name}");
        assert_eq!((released, recomputed), (executed, 0), "{name}");
    }
    let defs = session.db.crate_defs(());
    let aliases = defs
        .iter()
        .filter(|(_, k)| *k == DefKind::TypeAlias)
        .count() as u64;
    let (executed, released, recomputed) = counts(&session, "item_ast");
    assert_eq!((released, recomputed), (executed - aliases, 0));

    // Reading every item's syntax again parses the files again: about as much as the
    // parsed crate's syntax comes back (it would cost nothing were it still held).
    let before = heap::live();
    let syntax: Vec<_> = defs
        .iter()
        .filter(|(_, k)| !matches!(k, DefKind::Mod | DefKind::TypeAlias))
        .map(|(d, _)| session.db.item_ast(*d).expect("an item's syntax"))
        .collect();
    let again = heap::live() - before;
    eprintln!("parsed crate {parsed} bytes; the items' syntax read again {again} bytes");
    assert!(
        again > parsed / 2,
        "{again} bytes read again, parsed crate {parsed} bytes"
    );
    let (_, _, recomputed) = counts(&session, "item_ast");
    assert_eq!(recomputed, syntax.len() as u64);
    // Parsed again, not changed: a second build finds everything green and the same
    // diagnostics.
    drop(syntax);
    let changed = session.db.changed_keys::<rq::item_ast>();
    assert_eq!(
        changed.len() as u64,
        executed,
        "each changed once, in the build"
    );
    let typeck_runs = counts(&session, "typeck").0;
    let again = session.build(Goal::Check);
    assert_eq!(again.diagnostics, build.diagnostics);
    assert_eq!(
        counts(&session, "typeck").0,
        typeck_runs,
        "no body checked again"
    );
}

/// The files of a cache directory that the process maps, by name.
fn mapped_cache_files(dir: &Path) -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("the process's mappings");
    let dir = dir.to_string_lossy();
    let mut files: Vec<String> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| p.starts_with(dir.as_ref()))
        .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
        .collect();
    files.dedup();
    files
}

#[test]
#[cfg(target_os = "linux")]
fn a_build_that_ends_its_process_closes_the_cache_files_before_the_program_runs() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let p = gen::generate(&GenConfig {
        seed: 7,
        target_lines: 2_000,
        editable: false,
        ..GenConfig::default()
    });
    let src = tempfile::tempdir().expect("a temporary directory");
    for f in &p.files {
        let path = src.path().join(&f.path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(&path, &f.text).expect("written");
    }
    let cache = tempfile::tempdir().expect("a temporary directory");
    let root = src.path().join("main.rs");
    let build = |exit_after| {
        query_driver::build_path(
            &root,
            Goal::Image,
            BuildOptions {
                cache_dir: Some(cache.path().to_path_buf()),
                exit_after,
                ..BuildOptions::default()
            },
        )
    };
    let first = build(false);
    assert!(
        first.image.is_some() && !first.has_errors(),
        "{:?} {:?}",
        first.diagnostics,
        first.warnings
    );
    drop(first);
    assert_eq!(mapped_cache_files(cache.path()), Vec::<String>::new());

    // A session kept open maps the loaded cache and the link state's base.
    let mut session = Session::new(
        Arc::new(shared_frontend::sema::modules::FsLoader),
        &root,
        Goal::Image,
        BuildOptions {
            cache_dir: Some(cache.path().to_path_buf()),
            ..BuildOptions::default()
        },
    );
    let open = session.build(Goal::Image);
    assert!(open.link.as_ref().is_some_and(|l| l.incremental));
    drop(open);
    let mut mapped = mapped_cache_files(cache.path());
    mapped.sort();
    assert_eq!(mapped, ["link-state.bin", "query-cache.bin"]);
    drop(session);

    // A build that ends its process leaves them closed once its image is gone.
    let mut last = build(true);
    assert!(last.link.as_ref().is_some_and(|l| l.incremental));
    assert!(last.image.is_some());
    last.image = None;
    assert_eq!(mapped_cache_files(cache.path()), Vec::<String>::new());
}

/// The bytes the process holds of the files named `name` under `dir`, through every
/// mapping of them (`Rss` of `/proc/self/smaps`).
#[cfg(target_os = "linux")]
fn resident_bytes(dir: &Path, name: &str) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("the process's mappings");
    let dir = dir.to_string_lossy();
    let mut of_file = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first().is_some_and(|f| f.contains('-')) && fields.len() >= 5 {
            of_file = fields
                .get(5)
                .is_some_and(|p| p.starts_with(dir.as_ref()) && p.rsplit('/').next() == Some(name));
        } else if of_file && fields.first() == Some(&"Rss:") {
            kib += fields[1].parse::<u64>().expect("a size in kB");
        }
    }
    kib * 1024
}

#[test]
#[cfg(target_os = "linux")]
fn a_rebuild_gives_back_the_cache_pages_it_read_before_it_links() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let p = gen::generate(&GenConfig {
        seed: 11,
        target_lines: 4_000,
        editable: true,
        ..GenConfig::default()
    });
    let src = tempfile::tempdir().expect("a temporary directory");
    let write = |p: &gen::Program| {
        for f in &p.files {
            let path = src.path().join(&f.path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
            if std::fs::read_to_string(&path).ok().as_deref() != Some(f.text.as_str()) {
                std::fs::write(&path, &f.text).expect("written");
            }
        }
    };
    write(&p);
    let cache = tempfile::tempdir().expect("a temporary directory");
    let root = src.path().join("main.rs");
    let options = |cache_dir: Option<&Path>| BuildOptions {
        cache_dir: cache_dir.map(Path::to_path_buf),
        ..BuildOptions::default()
    };
    let first = query_driver::build_path(&root, Goal::Image, options(Some(cache.path())));
    assert!(first.image.is_some(), "{:?}", first.diagnostics);
    drop(first);

    let edit = (0..64)
        .find_map(|seed| gen::apply_edit(&p, gen::EditKind::LeafBody, seed))
        .expect("a leaf function to edit");
    write(&edit.program);
    let mut session = Session::new(
        Arc::new(shared_frontend::sema::modules::FsLoader),
        &root,
        Goal::Image,
        options(Some(cache.path())),
    );
    let rebuilt = session.build(Goal::Image);
    assert!(
        rebuilt.link.as_ref().is_some_and(|l| l.incremental),
        "a patched image: {:?}",
        rebuilt.link
    );
    // The cache is still mapped (the session may read it again), but what the rebuild
    // read of it was given back before the link.
    assert!(mapped_cache_files(cache.path()).contains(&"query-cache.bin".to_string()));
    let held = resident_bytes(cache.path(), "query-cache.bin");
    assert!(
        held <= 8 * 1024,
        "{held} bytes of the cache file held after the link"
    );
    // Nothing else changed: the image is the one a build from scratch makes.
    let scratch = query_driver::build_path(&root, Goal::Image, options(None));
    let hash = |b: &query_driver::Build| b.image.as_ref().map(|i| i.hash());
    assert!(hash(&scratch).is_some());
    assert_eq!(hash(&rebuilt), hash(&scratch));
}

#[test]
fn a_build_of_an_image_from_scratch_never_holds_every_typed_body_at_once() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let loader = Arc::new(program(20_000));
    let root = Path::new("main.rs");
    let session = |early| {
        let mut s = Session::new(loader.clone(), root, Goal::Image, BuildOptions::default());
        s.set_code_early(early);
        s
    };
    // What the typed bodies take: a check keeps them all (no code reads them), until
    // they are released.
    let mut check = Session::new(loader.clone(), root, Goal::Check, BuildOptions::default());
    assert!(!check.build(Goal::Check).has_errors());
    let fns: Vec<_> = check
        .db
        .crate_defs(())
        .iter()
        .filter(|(_, k)| *k == DefKind::Fn)
        .map(|(d, _)| *d)
        .collect();
    let before = heap::live();
    for d in &fns {
        assert!(check.db.release::<rq::typeck>(d), "a typed body held");
    }
    let bodies = before - heap::live();
    drop(check);

    // Generating the code after checking the whole crate holds every typed body when the
    // checks end; generating each file's code once its items are checked releases its
    // bodies then.
    let mut late = session(false);
    let (b_late, late_peak) = heap::peak_during(|| late.build(Goal::Image));
    drop(late);
    let mut early = session(true);
    let (b_early, early_peak) = heap::peak_during(|| early.build(Goal::Image));
    eprintln!("typed bodies {bodies} bytes; peak: late code {late_peak}, early code {early_peak}");
    assert!(b_early.image.is_some() && !b_early.has_errors());
    assert_eq!(
        b_early.image.as_ref().map(backend::Image::hash),
        b_late.image.as_ref().map(backend::Image::hash)
    );
    assert!(bodies > 0);
    assert!(
        early_peak < late_peak,
        "early code's peak {early_peak} bytes, late code's {late_peak}, typed bodies {bodies}"
    );
}

/// A save of a new cache file holds, besides the file's records going out, a few tables
/// of a few bytes per node: no copy of the graph's edges and no map of its keys (the
/// table and the reverse edges are made from the graph once the walk's and the writer's
/// own tables are freed). At 100k lines its peak stays under 64 bytes per node of the
/// file besides the key fingerprints it computes (16 bytes a node, which the build does
/// not hold while it compiles); a save that kept each node's edges and table hash, and a
/// map of the keys by fingerprint, took 99 besides them.
#[test]
fn a_save_from_scratch_holds_a_few_bytes_per_node() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let loader = Arc::new(program(100_000));
    let cache = tempfile::tempdir().expect("a temporary directory");
    let options = BuildOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..BuildOptions::default()
    };
    let mut session = Session::new(loader, Path::new("main.rs"), Goal::Image, options);
    let out = session.build(Goal::Image);
    assert!(out.image.is_some() && !out.has_errors());
    let (report, peak) = heap::peak_during(|| session.db.save());
    assert!(report.saved, "{:?}", report.warnings);
    let nodes = report.nodes;
    eprintln!(
        "save: peak {peak} bytes above the build's, {} bytes per node, {nodes} nodes, file {} bytes",
        peak / nodes,
        report.bytes
    );
    assert!(nodes > 50_000);
    assert!(peak < (64 + 16) * nodes, "{peak} bytes for {nodes} nodes");
}

/// A build of a session of one build (`build`: the `rill` command's) next to the same
/// build in a session that may build again (`Session`): the peak of its heap, and its
/// statistics and image.
fn one_build_against_a_session(
    cache: Option<&Path>,
) -> ((usize, query_driver::Build), (usize, query_driver::Build)) {
    let loader = program(20_000);
    let root = Path::new("main.rs");
    let options = || BuildOptions {
        cache_dir: cache.map(Path::to_path_buf),
        ..BuildOptions::default()
    };
    let session = heap::peak_during(|| {
        let mut s = Session::new(Arc::new(loader.clone()), root, Goal::Image, options());
        let mut out = s.build(Goal::Image);
        s.finish(&mut out);
        out
    });
    let after = heap::live();
    if let Some(dir) = cache {
        // The next build starts from scratch too.
        std::fs::remove_dir_all(dir).expect("the cache removed");
    }
    let start = heap::live();
    let (one, peak) =
        heap::peak_during(|| query_driver::build(Arc::new(loader), root, Goal::Image, options()));
    assert!(start <= after + (64 << 10));
    ((peak, one), (session.1, session.0))
}

#[test]
fn a_build_of_one_session_holds_no_value_through_its_link_and_save_that_they_do_not_read() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let cache = tempfile::tempdir().expect("a temporary directory");
    for dir in [None, Some(cache.path().join("c"))] {
        let ((one_peak, one), (session_peak, session)) =
            one_build_against_a_session(dir.as_deref());
        assert!(
            one.image.is_some() && !one.has_errors(),
            "{:?}",
            one.diagnostics
        );
        assert_eq!(
            one.image.as_ref().map(|i| i.hash()),
            session.image.as_ref().map(|i| i.hash())
        );
        let q = &one.stats.queries;
        // Nothing was read once released: no value was computed twice.
        let recomputed: u64 = q.values().map(|k| k.recomputed).sum();
        assert_eq!(recomputed, 0, "{dir:?}");
        // The sources, the item tables, the names and the code went before the link (the
        // code once the link state had copied it). (Persisted values whose fingerprint is
        // not of their encoding, as `def_info`'s, stay for the save to encode.)
        for name in ["file_text", "module_items", "resolve_name", "codegen"] {
            assert_eq!(q[name].released, q[name].executed, "{name} {dir:?}");
        }
        // The session that may build again keeps them.
        assert_eq!(session.stats.queries["module_items"].released, 0);
        // Released before the link from scratch, the peak: at least the sources' bytes
        // lower than the session's.
        let source: usize = gen::generate(&GenConfig {
            seed: 7,
            target_lines: 20_000,
            editable: false,
            ..GenConfig::default()
        })
        .files
        .iter()
        .map(|f| f.text.len())
        .sum();
        eprintln!(
            "{dir:?}: peak {one_peak} bytes, a session's {session_peak}; {source} bytes of source"
        );
        assert!(
            one_peak + source <= session_peak,
            "{one_peak} bytes at the peak, {session_peak} in a session, {source} of source"
        );
    }
    // The cache the one build saved gives the next build everything, from its kept bytes.
    let again = query_driver::build(
        Arc::new(program(20_000)),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions {
            cache_dir: Some(cache.path().join("c")),
            ..BuildOptions::default()
        },
    );
    assert!(
        again.link.as_ref().is_some_and(|l| l.incremental),
        "{:?}",
        again.warnings
    );
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert_eq!(
        again.stats.queries.get("codegen").map_or(0, |q| q.executed),
        0
    );
}
