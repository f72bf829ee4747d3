//! Property-based fuzzing of both drivers, in process: source text (arbitrary bytes and
//! mutations of generated programs) and the query driver's cache file (damaged between
//! two builds). `RILL_FUZZ_CASES` sets the number of cases per property (small by
//! default; see README "Robustness campaigns" for the long runs).
//!
//! Properties: the pipeline and the query driver never panic and agree on every source
//! (same rendered diagnostics, same image hash); a build on a damaged cache equals a
//! from-scratch build and warns when the damage is visible.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use rill_gen::{self as gen, GenConfig};
use shared_frontend::sema::modules::MemLoader;

fn cases() -> u32 {
    std::env::var("RILL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

/// What a build shows: rendered diagnostics and the image hash.
#[derive(Debug, PartialEq, Eq)]
struct Shown {
    diagnostics: String,
    image: Option<u128>,
}

fn pipeline_build(bytes: &[u8]) -> Shown {
    pipeline_build_files(&[("main.rs", bytes)])
}

/// A build of several files (the root is `main.rs`).
fn pipeline_build_files(files: &[(&str, &[u8])]) -> Shown {
    let loader = MemLoader::new(files.iter().copied());
    let c = pipeline::compile(&loader, Path::new("main.rs"), pipeline::Until::Image);
    Shown {
        diagnostics: shared_frontend::diag::render(&c.diagnostics, &c.sources, false),
        image: c.image.map(|i| i.hash()),
    }
}

fn query_build(bytes: &[u8], cache: Option<&Path>) -> (Shown, Vec<String>) {
    query_build_files(&[("main.rs", bytes)], cache)
}

fn query_build_files(files: &[(&str, &[u8])], cache: Option<&Path>) -> (Shown, Vec<String>) {
    let loader = MemLoader::new(files.iter().copied());
    let b = query_driver::build(
        Arc::new(loader),
        Path::new("main.rs"),
        query_driver::Goal::Image,
        query_driver::BuildOptions {
            cache_dir: cache.map(Path::to_path_buf),
            ..query_driver::BuildOptions::default()
        },
    );
    (
        Shown {
            diagnostics: shared_frontend::diag::render(&b.diagnostics, &b.sources, false),
            image: b.image.map(|i| i.hash()),
        },
        b.warnings,
    )
}

/// Valid one-file programs to mutate.
fn seeds() -> Vec<String> {
    (0..6)
        .map(|seed| {
            gen::generate(&GenConfig {
                seed,
                target_lines: 60,
                fns_per_module: 1000,
                ..GenConfig::default()
            })
            .files[0]
                .text
                .clone()
        })
        .collect()
}

fn mutated_source() -> impl Strategy<Value = Vec<u8>> {
    let seeds = seeds();
    (
        0..seeds.len(),
        proptest::collection::vec((any::<prop::sample::Index>(), 0u8..5, any::<u8>()), 1..6),
    )
        .prop_map(move |(i, muts)| {
            let mut b = seeds[i].clone().into_bytes();
            for (at, op, x) in muts {
                if b.is_empty() {
                    break;
                }
                let at = at.index(b.len());
                match op {
                    0 => b[at] ^= x | 1,
                    1 => {
                        let end = (at + x as usize % 32).min(b.len());
                        b.drain(at..end);
                    }
                    2 => b.insert(at, x),
                    3 => {
                        let tok: &[u8] = match x % 6 {
                            0 => b"(",
                            1 => b"}",
                            2 => b"mod m {",
                            3 => b"-",
                            4 => b"[0i64; 1 << 40]",
                            _ => b"99999999999999999999",
                        };
                        b.splice(at..at, tok.iter().copied());
                    }
                    _ => b.truncate(at),
                }
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Arbitrary bytes: both drivers end in diagnostics or success, and agree.
    #[test]
    fn arbitrary_bytes_both_drivers_agree(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let p = pipeline_build(&bytes);
        let (q, _) = query_build(&bytes, None);
        prop_assert_eq!(p, q);
    }

    /// Mutations of generated programs: both drivers agree.
    #[test]
    fn mutated_programs_both_drivers_agree(bytes in mutated_source()) {
        let p = pipeline_build(&bytes);
        let (q, _) = query_build(&bytes, None);
        prop_assert_eq!(p, q);
    }

    /// A damaged cache file between two builds: the second build equals a from-scratch
    /// build (and warns when the file can no longer be used, or uses a damaged part).
    #[test]
    fn damaged_cache_file_gives_a_correct_build(
        seed in 0u64..4,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..4),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        edit in any::<bool>(),
    ) {
        let program = gen::generate(&GenConfig {
            seed,
            target_lines: 80,
            fns_per_module: 1000,
            ..GenConfig::default()
        });
        // Every file of the program; the edit goes to the root file.
        let other: Vec<(&str, &[u8])> = program.files[1..]
            .iter()
            .map(|f| (f.path.as_str(), f.text.as_bytes()))
            .collect();
        fn with_root<'a>(root: &'a str, other: &[(&'a str, &'a [u8])]) -> Vec<(&'a str, &'a [u8])> {
            let mut files = vec![("main.rs", root.as_bytes())];
            files.extend(other.iter().copied());
            files
        }
        assert_eq!(program.files[0].path, "main.rs");
        let v0 = program.files[0].text.clone();
        let dir = tempfile::tempdir().unwrap();
        let (first, w) = query_build_files(&with_root(&v0, &other), Some(dir.path()));
        prop_assert!(first.image.is_some(), "{:?}", first);
        let file = dir.path().join("image").join("query-cache.bin");
        let good = std::fs::read(&file).unwrap_or_else(|e| panic!("{e}: {w:?}"));
        let mut bad = good.clone();
        // Whether the damage is in what a build checks when it opens the file (the
        // header and the index, the first 64 and last 208 bytes): then the file is
        // ignored, with a warning. Elsewhere a damaged record or value is found when a
        // build uses it (a warning) and is harmless otherwise.
        let mut checked_at_open = false;
        for (at, x) in &flips {
            let i = at.index(bad.len());
            bad[i] ^= x;
            checked_at_open |= i < 64 || i >= bad.len() - 208;
        }
        if let Some(at) = cut {
            bad.truncate(at.index(bad.len()));
        }
        std::fs::write(&file, &bad).unwrap();
        // Optionally the source changes too (a one-line edit: a new function).
        let v1 = if edit { format!("{v0}\nfn fuzz_added() -> i64 {{ 41 + 1 }}\n") } else { v0 };
        let (got, warnings) = query_build_files(&with_root(&v1, &other), Some(dir.path()));
        let scratch = pipeline_build_files(&with_root(&v1, &other));
        prop_assert_eq!(&got, &scratch);
        if !edit {
            prop_assert_eq!(&got, &first);
        }
        if bad.len() != good.len() || checked_at_open {
            prop_assert!(
                warnings.iter().any(|w| w.contains("ignored")),
                "no warning for a damaged cache: {:?}", warnings
            );
        }
        prop_assert!(
            warnings.iter().all(|w| w.starts_with("query cache:") || w.starts_with("link state:")),
            "{:?}", warnings
        );
        // The cache is valid again afterwards.
        let (again, warnings) = query_build_files(&with_root(&v1, &other), Some(dir.path()));
        prop_assert_eq!(&again, &scratch);
        prop_assert!(
            warnings.iter().all(|w| !w.contains("ignored")),
            "{:?}", warnings
        );
    }
}
