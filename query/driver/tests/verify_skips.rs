//! Verify mode re-checks what a rebuild skipped: a file whose stamp said "unchanged" (so it
//! was not read) and the memos the session's clean rule let through without a walk. A
//! file system whose metadata does not move when a file's content changes makes the
//! stat-based rebuild stale on purpose; verify mode must then report the file, and must
//! report nothing when the stamps are truthful.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use query::Verify;
use query_driver::{BuildOptions, ChangeDetection, Goal};
use shared_frontend::sema::modules::{FileLoader, FileStat, FsLoader};

const MAIN: &str = "mod a;\n\nfn main() {\n    println!(\"{}\", a::f() + 1);\n}\n";
const A: &str = "pub fn f() -> i64 {\n    11\n}\n";
const A_EDITED: &str = "pub fn f() -> i64 {\n    42\n}\n";

/// The real file system, but the stats of the paths in `frozen` are those it first saw:
/// an edit does not show in their metadata.
#[derive(Default)]
struct FrozenStats {
    frozen: Mutex<BTreeMap<PathBuf, FileStat>>,
    freeze: bool,
}

impl FileLoader for FrozenStats {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        FsLoader.load(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        FsLoader.is_file(path)
    }

    fn stat(&self, path: &Path) -> Option<FileStat> {
        let now = FsLoader.stat(path)?;
        if !self.freeze {
            return Some(now);
        }
        Some(
            self.frozen
                .lock()
                .unwrap()
                .entry(path.to_path_buf())
                .or_insert(now)
                .clone(),
        )
    }
}

/// One build (a `rill` process) on `cache`, with verify mode `verify`: the program's
/// output, the number of verify mismatches, the warnings, and what executed.
fn build(
    fs: Arc<FrozenStats>,
    root: &Path,
    cache: &Path,
    verify: Verify,
) -> (String, usize, Vec<String>, u64) {
    let mut options = BuildOptions {
        cache_dir: Some(cache.to_path_buf()),
        change_detection: ChangeDetection::Stat,
        ..BuildOptions::default()
    };
    options.engine.verify = verify;
    let b = query_driver::build(fs, root, Goal::Image, options);
    let out = b.image.as_ref().map_or_else(String::new, |image| {
        String::from_utf8_lossy(&image.run(&backend::RunLimits::default()).stdout).into_owned()
    });
    let executed = b.stats.queries.values().map(|q| q.executed).sum();
    (out, b.verify_mismatches, b.warnings, executed)
}

/// Waits until the files' times are older than the racy window, so that a rebuild trusts
/// their stamps.
fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(
        (query_driver::stamp::RACY_WINDOW_FINE_NS / 1_000_000) as u64 + 50,
    ));
}

#[test]
fn verify_mode_finds_a_change_that_metadata_hid() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let root = dir.path().join("main.rs");
    std::fs::write(&root, MAIN).unwrap();
    std::fs::write(dir.path().join("a.rs"), A).unwrap();
    settle();
    let fs = Arc::new(FrozenStats {
        freeze: true,
        ..FrozenStats::default()
    });
    let (out, mismatches, _, _) = build(fs.clone(), &root, cache.path(), Verify::All);
    assert_eq!(out, "12\n");
    assert_eq!(mismatches, 0, "a from-scratch build has nothing to verify");
    // Nothing changed: verify re-executes what the clean rule and the stamps let
    // through, and all of it agrees.
    let (out, mismatches, warnings, _) = build(fs.clone(), &root, cache.path(), Verify::All);
    assert_eq!(out, "12\n");
    assert_eq!(mismatches, 0, "{warnings:?}");
    // The content changes but the (frozen) metadata does not.
    std::fs::write(dir.path().join("a.rs"), A_EDITED).unwrap();
    settle();
    // Without verify, the rebuild trusts the stamp: it is stale, which is what metadata
    // based detection risks and why verify mode exists.
    let (out, _, _, _) = build(fs.clone(), &root, cache.path(), Verify::Off);
    assert_eq!(out, "12\n", "the frozen stamp hides the edit");
    // With verify, the skipped file is re-read and the difference reported; the cache is
    // discarded and the program rebuilt from scratch, so the output is right.
    let (out, mismatches, warnings, _) = build(fs.clone(), &root, cache.path(), Verify::All);
    assert!(mismatches > 0, "verify mode missed the hidden edit");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("file_text") && w.contains("a.rs")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("cache is discarded")),
        "{warnings:?}"
    );
    assert_eq!(out, "43\n");
    // The cache written by the rebuild from scratch holds the new content: later builds,
    // with or without verify, with frozen or truthful stamps, agree and find nothing.
    for (fs, verify) in [
        (fs.clone(), Verify::Off),
        (fs, Verify::All),
        (Arc::new(FrozenStats::default()), Verify::All),
    ] {
        let (out, mismatches, warnings, _) = build(fs, &root, cache.path(), verify);
        assert_eq!(out, "43\n");
        assert_eq!(mismatches, 0, "{warnings:?}");
    }
}

/// Sampled verification checks a share of the green markings, so a larger sample period
/// re-executes fewer of them: every session still verifies something.
#[test]
fn sampled_verification_checks_a_share() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("main.rs");
    std::fs::write(&root, MAIN).unwrap();
    std::fs::write(dir.path().join("a.rs"), A).unwrap();
    settle();
    let mut executed = Vec::new();
    for verify in [Verify::Off, Verify::Sample(4), Verify::All] {
        let cache = tempfile::tempdir().unwrap();
        let fs = Arc::new(FrozenStats::default());
        build(fs.clone(), &root, cache.path(), Verify::Off);
        let (out, mismatches, warnings, n) = build(fs, &root, cache.path(), verify);
        assert_eq!(out, "12\n");
        assert_eq!(mismatches, 0, "{warnings:?}");
        executed.push(n);
    }
    assert!(
        executed[0] <= executed[1] && executed[1] < executed[2],
        "executed with verify off, sample=4, all: {executed:?}"
    );
}
