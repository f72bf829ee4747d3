//! A build of an image from scratch generates code while it checks, once `CODE_BATCH`
//! functions of the files checked so far wait (`Session::set_code_early`, on in
//! `query_driver::build`): the same
//! diagnostics and the same image as a build that generates the code after checking the
//! whole crate, and as the pipeline's; a cycle met by the early code is reported as the
//! canonical order finds it, by building again without early code.

use std::path::Path;
use std::sync::Arc;

use query::{Database, DatabaseExt};
use query_driver::{BuildOptions, Goal, Session, CODE_BATCH};
use shared_frontend::diag;
use shared_frontend::sema::modules::MemLoader;

fn loader(files: &[(&str, &str)]) -> Arc<MemLoader> {
    Arc::new(MemLoader::new(
        files.iter().map(|(p, t)| (p.to_string(), t.to_string())),
    ))
}

/// What a build shows: its rendered diagnostics and its image's hash.
fn shown(b: &query_driver::Build) -> (String, Option<u128>) {
    (
        diag::render(&b.diagnostics, &b.sources, false),
        b.image.as_ref().map(backend::Image::hash),
    )
}

fn pipeline(files: &[(&str, &str)]) -> (String, Option<u128>) {
    let c = pipeline::compile(
        &*loader(files),
        Path::new("main.rs"),
        pipeline::Until::Image,
    );
    (
        diag::render(&c.diagnostics, &c.sources, false),
        c.image.as_ref().map(backend::Image::hash),
    )
}

/// One build of a session of its own, with or without early code.
fn session_build(files: &[(&str, &str)], early: bool) -> (Session, query_driver::Build) {
    let mut s = Session::new(
        loader(files),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions::default(),
    );
    s.set_code_early(early);
    let b = s.build(Goal::Image);
    (s, b)
}

fn executed(s: &Session, query: &str) -> (u64, u64) {
    // (A query that never ran has no entry.)
    let stats = s.db.stats();
    stats
        .queries
        .get(query)
        .map_or((0, 0), |q| (q.executed, q.recomputed))
}

/// `count` small functions (`filler0` ...), each returning its number.
fn fillers(count: usize) -> String {
    (0..count)
        .map(|i| format!("pub fn filler{i}() -> i32 {{ {i} }}\n"))
        .collect()
}

/// `main.rs` reads `a::M` in a body, and has enough functions that their code is generated
/// before `a.rs` is checked: generating `f`'s code evaluates `M` before the canonical order
/// evaluates `a.rs`'s constants, `N` first.
fn cycle() -> Vec<(String, String)> {
    let main = "mod a;\nfn f() -> i32 { a::M }\nfn main() { println!(\"{}\", f()); }\n";
    vec![
        (
            "main.rs".to_string(),
            format!("{main}{}", fillers(CODE_BATCH)),
        ),
        (
            "a.rs".to_string(),
            "pub const N: i32 = M + 1;\npub const M: i32 = N + 1;\n".to_string(),
        ),
    ]
}

fn borrowed(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect()
}

#[test]
fn a_cycle_met_by_early_code_is_reported_by_the_step_the_canonical_order_reads_first() {
    let files = cycle();
    let cycle = borrowed(&files);
    let cycle = cycle.as_slice();
    let expected = pipeline(cycle);
    assert!(
        expected
            .0
            .contains("cycle detected when simplifying constant for the type system `a::N`"),
        "{}",
        expected.0
    );
    // Early code alone meets the cycle at `M`, and says so.
    let (early, b) = session_build(cycle, true);
    assert!(early.early_code_met_cycle());
    let early_shown = shown(&b);
    assert!(early_shown.0.contains("`a::M`\n"), "{}", early_shown.0);
    assert_ne!(early_shown, expected);
    // Without early code, and in a one-build session (which builds again), the step the
    // canonical order reads first reports it.
    let (late, b) = session_build(cycle, false);
    assert!(!late.early_code_met_cycle());
    assert_eq!(shown(&b), expected);
    let b = query_driver::build(
        loader(cycle),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions::default(),
    );
    assert_eq!(shown(&b), expected);
}

#[test]
fn early_code_gives_the_same_image_and_generates_each_function_once() {
    let files: &[(&str, &str)] = &[
        (
            "main.rs",
            "mod geo;\nmod b;\nconst K: i32 = geo::SIDE * 2;\n\
             fn twice(x: i32) -> i32 { x * 2 }\n\
             fn main() { let p = geo::Point { x: K, y: b::three() }; \
             println!(\"{} {}\", twice(geo::area(p)), b::three()); }\n",
        ),
        (
            "geo.rs",
            "pub const SIDE: i32 = 4;\n#[derive(Clone, Copy)]\npub struct Point { pub x: i32, pub y: i32 }\n\
             pub fn area(p: Point) -> i32 { p.x * p.y + super::b::three() }\n",
        ),
        ("b.rs", "pub fn three() -> i32 { super::geo::SIDE - 1 }\n"),
    ];
    let expected = pipeline(files);
    assert!(expected.1.is_some(), "{}", expected.0);
    let (early, b_early) = session_build(files, true);
    let (late, b_late) = session_build(files, false);
    assert!(!early.early_code_met_cycle());
    assert_eq!(shown(&b_early), expected);
    assert_eq!(shown(&b_late), expected);
    for q in ["typeck", "optimize", "codegen"] {
        assert_eq!(executed(&early, q), executed(&late, q), "{q}");
        assert_eq!(executed(&early, q).1, 0, "{q} recomputed");
    }
    assert_eq!(executed(&early, "codegen").0, 4);
    // Every phase is reported, the early code's time in the code phase.
    let names = |b: &query_driver::Build| b.phases.iter().map(|p| p.0).collect::<Vec<_>>();
    assert_eq!(names(&b_early), names(&b_late));
}

#[test]
fn an_error_in_a_later_file_gives_the_same_diagnostics_and_no_image() {
    // `a.rs` has enough functions that their code is generated before `b.rs` is checked.
    let a = format!("pub fn one() -> i32 {{ 1 }}\n{}", fillers(CODE_BATCH));
    let files: &[(&str, &str)] = &[
        (
            "main.rs",
            "mod a;\nmod b;\nfn main() { println!(\"{}\", a::one() + b::two()); }\n",
        ),
        ("a.rs", a.as_str()),
        ("b.rs", "pub fn two() -> i32 { let x: bool = 2; 2 }\n"),
    ];
    let expected = pipeline(files);
    assert!(expected.0.contains("error[E0308]"), "{}", expected.0);
    assert_eq!(expected.1, None);
    let (early, b) = session_build(files, true);
    assert_eq!(shown(&b), expected);
    // The files before the error had their code generated (`main`, `one` and the
    // fillers), none after it; without early code, a build with errors generates none.
    assert_eq!(executed(&early, "codegen").0, 2 + CODE_BATCH as u64);
    let (late, b) = session_build(files, false);
    assert_eq!(shown(&b), expected);
    assert_eq!(executed(&late, "codegen").0, 0);
}

/// The most typed bodies waiting for their code at any moment of a build: function bodies
/// checked (`typeck` executed) and not yet lowered (`optimize` executed), from the
/// engine's log of executions, in order.
fn most_bodies_waiting(s: &Session) -> usize {
    let (mut waiting, mut most) = (0usize, 0usize);
    for e in s.db.runtime().take_events() {
        if e.kind != query::EventKind::Executed {
            continue;
        }
        match e.query {
            "typeck" => waiting += 1,
            "optimize" => waiting -= 1,
            _ => {}
        }
        most = most.max(waiting);
    }
    most
}

#[test]
fn early_code_lowers_the_bodies_checked_so_far_once_a_batch_of_them_waits() {
    let p = rill_gen::generate(&rill_gen::GenConfig {
        seed: 3,
        target_lines: 20_000,
        editable: false,
        ..rill_gen::GenConfig::default()
    });
    let files: Vec<(&str, &str)> = p
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.text.as_str()))
        .collect();
    let logged = |early| {
        let mut s = Session::new(
            loader(&files),
            Path::new("main.rs"),
            Goal::Image,
            BuildOptions::default(),
        );
        s.db.runtime_mut().set_event_log(true);
        s.set_code_early(early);
        let b = s.build(Goal::Image);
        assert!(b.image.is_some(), "{:?}", b.diagnostics);
        s
    };
    let fns = executed(&logged(false), "typeck").0 as usize;
    // Late code checks every body before lowering any.
    assert_eq!(most_bodies_waiting(&logged(false)), fns);
    // Early code never has more waiting than a batch and the file with the most functions.
    let early = logged(true);
    let tree = early.db.module_tree(());
    let largest = early
        .db
        .crate_files(())
        .iter()
        .map(|f| {
            tree.file_modules(f)
                .map(|m| {
                    early
                        .db
                        .module_defs(m)
                        .iter()
                        .filter(|(_, k)| *k == shared_frontend::sema::def::DefKind::Fn)
                        .count()
                })
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    // (Code is generated once `CODE_BATCH` functions wait, after the file that makes
    // them so many.)
    let bound = CODE_BATCH - 1 + largest;
    let most = most_bodies_waiting(&early);
    assert!(largest > 0 && bound < fns, "{largest}, {bound} of {fns}");
    assert!(
        most <= bound,
        "{most} bodies waiting, the largest file has {largest} functions"
    );
}
