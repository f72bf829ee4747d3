//! Minimality of the query driver on hand-written edit histories: what re-executes after
//! an edit, build after build on one cache directory (a new session per build, as `rill`
//! processes run).

use std::path::Path;
use std::sync::Arc;

use query_driver::{self as rill, Build, BuildOptions, Goal};
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
        let b = rill::build(
            self.loader(),
            Path::new("main.rs"),
            Goal::Image,
            BuildOptions {
                cache_dir: Some(self.cache.path().to_path_buf()),
                ..BuildOptions::default()
            },
        );
        assert!(!b.has_errors(), "{:?}", b.diagnostics);
        b
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

fn image(b: &Build) -> u128 {
    b.image.as_ref().expect("linked").hash()
}

#[test]
fn no_change_re_executes_nothing_but_the_file_reads() {
    let p = Project::new();
    let first = p.build();
    assert_eq!(executed(&first, "codegen"), 5);
    let again = p.build();
    for (kind, q) in &again.stats.queries {
        let expected = match kind.as_str() {
            // Inputs read from the outside world, and the linker's input list (never
            // hashed, never persisted).
            "file_text" | "program_code" => q.executed,
            _ => 0,
        };
        assert_eq!(q.executed, expected, "{kind} re-executed");
    }
    // The three files, and the module-file candidates that were probed.
    assert!(executed(&again, "file_text") >= 3);
    assert_eq!(image(&again), image(&first));
}

#[test]
fn a_comment_at_the_top_of_a_file_re_executes_no_codegen() {
    let mut p = Project::new();
    let first = p.build();
    p.edit("geometry.rs", |t| format!("// Points and shapes.\n\n{t}"));
    let b = p.build();
    assert_eq!(executed(&b, "codegen"), 0);
    assert_eq!(executed(&b, "typeck"), 0);
    assert_eq!(executed(&b, "fn_sig"), 0);
    // Only the edited file is parsed again.
    assert_eq!(executed(&b, "parse_file"), 1);
    assert_eq!(image(&b), image(&first));
    assert_eq!(image(&b), image(&p.scratch()));
}

#[test]
fn one_function_body_edit_re_executes_exactly_one_codegen() {
    let mut p = Project::new();
    p.build();
    p.edit("geometry.rs", |t| t.replace("p.x * p.y", "p.x * p.y + 1"));
    let b = p.build();
    assert_eq!(executed(&b, "codegen"), 1);
    assert_eq!(executed(&b, "typeck"), 1);
    // The signature is computed again from the edited item and cut off: no caller is
    // checked again.
    assert!(executed(&b, "fn_sig") <= 1);
    assert_eq!(image(&b), image(&p.scratch()));
    assert_ne!(image(&b), image(&Project::new().scratch()));
}

#[test]
fn a_body_edit_that_keeps_the_code_stops_before_codegen() {
    let mut p = Project::new();
    let first = p.build();
    // Longer text, same tokens' meaning: the item moves, its relative spans change, its
    // code does not.
    p.edit("util.rs", |t| t.replace("x * 2", "(x) * 2"));
    let b = p.build();
    assert_eq!(executed(&b, "typeck"), 1);
    assert_eq!(executed(&b, "codegen"), 0);
    assert_eq!(image(&b), image(&first));
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
    let b = p.build();
    // `twice` itself and `main`, its only caller; nothing in geometry.rs.
    assert_eq!(executed(&b, "typeck"), 2);
    assert_eq!(image(&b), image(&p.scratch()));
}

#[test]
fn a_const_value_edit_re_executes_only_its_users() {
    let mut p = Project::new();
    p.build();
    p.edit("util.rs", |t| {
        t.replace("LIMIT: i64 = 100", "LIMIT: i64 = 7")
    });
    let b = p.build();
    assert_eq!(executed(&b, "const_value"), 1);
    // `clamp` and `main` read LIMIT: their bodies are lowered again (values are folded
    // into the code); nobody else's.
    assert_eq!(executed(&b, "optimize"), 2);
    assert_eq!(image(&b), image(&p.scratch()));
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
