//! One huge file: an edit inside one of its items costs what that item costs.
//!
//! A file is split into its items by their tokens (`file_split`), the items' texts are
//! compared chunk by chunk (`split_chunk`), and only a chunk whose texts changed is parsed
//! again (`chunk_parse`, one item at a time); the file's skeleton is assembled from the
//! chunks' skeletons, which an edit inside a body leaves as they were. So a leaf edit
//! executes the same item-level queries in a file of N items as in one of 4N: only the
//! comparison of the chunks' texts grows with the file.
//!
//! Files under 32 KiB are parsed whole. Where the split is unsure (a comment or string left open, an unbalanced brace, an item
//! that does not parse cleanly alone) the file's parse decides, and the diagnostics and
//! images are those of a build from scratch and of the pipeline: checked along random
//! edits of a big file.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use query_driver::{self as rill, Build, BuildOptions, Goal, Session};
use shared_frontend::diag;
use shared_frontend::sema::modules::MemLoader;

/// A single-file crate: `fns` small functions at the top level and as many again in
/// inline modules of 25 functions each, a struct and a constant per module, and a `main`
/// calling into each module.
fn program(fns: usize) -> String {
    let mut text = String::from("//! A big file.\n\nconst BASE: i64 = 3;\n\n");
    for f in 0..fns {
        text.push_str(&format!(
            "/// Function {f}.\nfn f{f}(x: i64) -> i64 {{\n    let y = x * {} + BASE;\n    if y > 100 {{ y - 7 }} else {{ y + {f} }}\n}}\n\n",
            f % 9 + 1
        ));
    }
    let modules = fns / 25;
    for m in 0..modules {
        text.push_str(&format!(
            "mod m{m} {{\n    #[derive(Clone, Copy)]\n    pub struct Pair {{\n        pub a: i64,\n        pub b: i64,\n    }}\n\n    pub const STEP: i64 = {};\n",
            m % 5 + 1
        ));
        for f in 0..25 {
            text.push_str(&format!(
                "\n    pub fn g{f}(x: i64) -> i64 {{\n        let p = Pair {{ a: x, b: STEP }};\n        p.a * {} + p.b // step\n    }}\n",
                f % 7 + 2
            ));
        }
        text.push_str("}\n\n");
    }
    text.push_str("fn main() {\n    let mut total: i64 = 0;\n");
    for m in 0..modules {
        text.push_str(&format!(
            "    total = total + m{m}::g{}(total % 11);\n",
            m % 25
        ));
    }
    text.push_str(&format!("    total = total + f{}(total % 13);\n", fns / 2));
    text.push_str("    println!(\"{}\", total);\n}\n");
    text
}

fn loader(text: &str) -> Arc<MemLoader> {
    Arc::new(MemLoader::new([("main.rs", text.as_bytes())]))
}

/// A build on the persistent cache in `cache`, in a new session, as `rill` runs one.
fn cached_build(text: &str, cache: &Path) -> Build {
    let options = BuildOptions {
        cache_dir: Some(cache.to_path_buf()),
        ..BuildOptions::default()
    };
    let mut session = Session::new(loader(text), Path::new("main.rs"), Goal::Image, options);
    let mut b = session.build(Goal::Image);
    session.finish(&mut b);
    b
}

/// Executions per query kind (kinds that executed nothing are absent).
fn executed(b: &Build) -> BTreeMap<String, u64> {
    b.stats
        .queries
        .iter()
        .filter(|(_, q)| q.executed > 0)
        .map(|(k, q)| (k.clone(), q.executed))
        .collect()
}

/// What a literal edit inside the body of the middle top-level function executes.
fn leaf_edit(fns: usize) -> BTreeMap<String, u64> {
    let cache = tempfile::tempdir().expect("temp dir");
    let text = program(fns);
    let first = cached_build(&text, cache.path());
    assert!(first.image.is_some() && first.diagnostics.is_empty());
    let f = fns / 2;
    let from = format!("    if y > 100 {{ y - 7 }} else {{ y + {f} }}\n");
    let to = format!("    if y > 100 {{ y - 8 }} else {{ y + {f} }}\n");
    assert_eq!(text.matches(&from).count(), 1);
    let edited = text.replace(&from, &to);
    let b = cached_build(&edited, cache.path());
    assert_eq!(judge(&b), judge(&scratch(&edited)));
    executed(&b)
}

#[test]
fn a_leaf_edit_executes_the_same_item_queries_in_a_file_four_times_as_big() {
    let (small, big) = (leaf_edit(400), leaf_edit(1600));
    // The file is not parsed, and the items' texts are compared in chunks: the only work
    // that grows with the file (and the file's own queries, once each).
    for b in [&small, &big] {
        assert_eq!(b.get("parse_file"), None, "{b:?}");
        assert_eq!(b.get("chunk_parse"), Some(&1), "{b:?}");
        assert_eq!(b.get("item_ast").copied().unwrap_or(0) as u32, 8, "{b:?}");
        for q in ["typeck", "optimize", "codegen"] {
            assert_eq!(b.get(q), Some(&1), "{q}: {b:?}");
        }
        for q in ["file_split", "file_chunk_count", "file_text", "file_status"] {
            assert_eq!(b.get(q), Some(&1), "{q}: {b:?}");
        }
    }
    let chunks = |b: &BTreeMap<String, u64>| b.get("split_chunk").copied().unwrap_or(0);
    assert!(chunks(&big) > 3 * chunks(&small), "{small:?}\n{big:?}");
    let without_chunks = |b: &BTreeMap<String, u64>| {
        let mut b = b.clone();
        b.remove("split_chunk");
        b
    };
    assert_eq!(without_chunks(&small), without_chunks(&big));
}

/// What a build is judged by: rendered diagnostics and the image's hash.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    diagnostics: String,
    image: Option<u128>,
}

fn judge(b: &Build) -> Outcome {
    Outcome {
        diagnostics: diag::render(&b.diagnostics, &b.sources, false),
        image: b.image.as_ref().map(backend::Image::hash),
    }
}

fn scratch(text: &str) -> Build {
    rill::build(
        loader(text),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions::default(),
    )
}

fn pipeline(text: &str) -> Outcome {
    let c = pipeline::compile(&*loader(text), Path::new("main.rs"), pipeline::Until::Image);
    Outcome {
        diagnostics: diag::render(&c.diagnostics, &c.sources, false),
        image: c.image.as_ref().map(backend::Image::hash),
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A random position in `text` where `pattern` occurs (or any position).
fn somewhere(rng: &mut Rng, text: &str, pattern: &str) -> usize {
    let at: Vec<usize> = text.match_indices(pattern).map(|(i, _)| i).collect();
    match at.len() {
        0 => rng.below(text.len()),
        n => at[rng.below(n)],
    }
}

/// One random edit of the kinds a huge file sees: a literal inside a body, a deletion
/// across item boundaries, a comment or string opened that swallows the items after
/// it (closed further on, or never), a brace deleted or added, an item added or removed.
fn edit(rng: &mut Rng, text: &str) -> String {
    let mut t = text.to_string();
    match rng.below(9) {
        0 | 1 => {
            let at = somewhere(rng, &t, "* ");
            t.replace_range(at..at + 2, &format!("* {} + ", rng.below(50)));
        }
        2 => {
            let at = somewhere(rng, &t, "}\n\n");
            let end = (at + 3 + rng.below(200)).min(t.len());
            t.replace_range(at..end, "");
        }
        3 => {
            let at = somewhere(rng, &t, "\n    let");
            t.insert_str(at, "/*");
            if rng.below(2) == 0 {
                let close = (at + 2 + rng.below(2000)).min(t.len());
                let close = t[close..].find('\n').map_or(t.len(), |i| close + i);
                t.insert_str(close, "*/");
            }
        }
        4 => {
            let at = somewhere(rng, &t, " + ");
            t.insert_str(at, " \"");
        }
        5 => {
            let at = somewhere(rng, &t, "}");
            t.replace_range(at..at + 1, "");
        }
        6 => {
            let at = somewhere(rng, &t, "{");
            t.insert(at, '{');
        }
        7 => {
            let at = somewhere(rng, &t, "\nfn ");
            t.insert_str(
                at,
                &format!("\nfn extra{}() -> i64 {{ 1 }}\n", rng.below(1000)),
            );
        }
        _ => {
            let at = somewhere(rng, &t, "// step");
            t.insert_str(at, "/* open */ ");
        }
    }
    t
}

#[test]
fn random_edits_of_a_big_file_build_as_from_scratch_and_as_the_pipeline() {
    let cases: u64 = std::env::var("RILL_BIG_FILE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    for seed in 1..=cases {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ seed.wrapping_mul(0x9e37_79b9));
        let cache = tempfile::tempdir().expect("temp dir");
        // Big enough to be split (a file of under 32 KiB is parsed whole).
        let original = program(300);
        let mut text = original.clone();
        let first = cached_build(&text, cache.path());
        assert!(executed(&first).get("chunk_parse").is_some_and(|&n| n > 1));
        for step in 0..12 {
            // Mostly on top of the previous edits; sometimes back to the clean program.
            text = if rng.below(4) == 0 {
                original.clone()
            } else {
                edit(&mut rng, &text)
            };
            let incremental = judge(&cached_build(&text, cache.path()));
            let from_scratch = judge(&scratch(&text));
            assert_eq!(incremental, from_scratch, "seed {seed}, step {step}");
            assert_eq!(from_scratch, pipeline(&text), "seed {seed}, step {step}");
        }
    }
}
