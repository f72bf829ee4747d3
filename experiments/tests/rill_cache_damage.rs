//! Damaged Rill caches through the `rill` command (issue 6, "Damaged caches"): the real
//! cache files a build leaves under `--cache-dir D` (one per goal: `D/image/` for `run`,
//! `D/check/` for `check`) are truncated, bit-flipped, replaced by garbage or emptied,
//! given another format version, or removed, between two builds; the next build must warn
//! and show exactly the from-scratch result (stdout, exit code, diagnostics, `image_hash`
//! of `--stats-json`), and the build after it must find a valid cache (no warning).

use std::path::{Path, PathBuf};
use std::process::Command;

use experiments::shown::{read_stats, Shown};
use rill_gen::{self as gen, GenConfig};

/// Runs `rill SUB MAIN --arch query [--cache-dir D]`; returns what it showed and its
/// cache warnings.
fn rill(sub: &str, main: &Path, cache: Option<&Path>, stats: &Path) -> (Shown, Vec<String>) {
    let _ = std::fs::remove_file(stats);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rill"));
    cmd.args([
        sub,
        main.to_str().unwrap(),
        "--arch",
        "query",
        "--stats-json",
    ])
    .arg(stats)
    .env("NO_COLOR", "1");
    if let Some(c) = cache {
        cmd.arg("--cache-dir").arg(c);
    }
    if sub == "run" {
        cmd.args(["--time-limit", "20"]);
    }
    let out = cmd.output().expect("rill runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "rill {sub} panicked:\n{stderr}"
    );
    Shown::from_output(&out, &read_stats(stats))
}

/// The ways a cache file is damaged, and whether the damage is in what a build checks
/// when it opens the file (then the file is ignored, with a warning). A bit flipped in the
/// body is found when a build uses the damaged record or value (a warning), and is
/// harmless otherwise: the result is right either way.
fn damages(good: &[u8]) -> Vec<(String, Option<Vec<u8>>, bool)> {
    let n = good.len();
    let mut out: Vec<(String, Option<Vec<u8>>)> = vec![
        ("removed".into(), None),
        ("empty".into(), Some(Vec::new())),
        ("garbage".into(), Some(b"not a cache at all\n".repeat(100))),
        (
            "random bytes of the same length".into(),
            Some(
                (0..n as u64)
                    .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 7) as u8)
                    .collect(),
            ),
        ),
        ("doubled".into(), Some([good, good].concat())),
    ];
    for cut in [1, 64, 65, n / 2, n - 1] {
        out.push((format!("truncated to {cut}"), Some(good[..cut].to_vec())));
    }
    for at in [0, 12, 20, 33, 45, 70, n / 2, n - 1] {
        let mut b = good.to_vec();
        b[at] ^= 0x10;
        out.push((format!("bit flipped at {at}"), Some(b)));
    }
    let mut v = good.to_vec();
    v[8..12].copy_from_slice(&(query::FORMAT_VERSION + 1).to_le_bytes());
    out.push(("another format version".into(), Some(v)));
    out.into_iter()
        .map(|(what, bytes)| {
            let in_body = what
                .strip_prefix("bit flipped at ")
                .and_then(|at| at.parse::<usize>().ok())
                .is_some_and(|at| (64..n - 192).contains(&at));
            (what, bytes, !in_body)
        })
        .collect()
}

fn cache_file(cache: &Path, sub: &str) -> PathBuf {
    let goal = if sub == "run" { "image" } else { "check" };
    cache.join(goal).join("query-cache.bin")
}

/// For each damage of each goal's cache file: the next build (of `next`, after building
/// `first`) warns and equals from scratch; the build after it warns about nothing.
fn check(first: &Path, next: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let stats = tmp.path().join("stats.json");
    for sub in ["run", "check"] {
        let (scratch, _) = rill(sub, next, None, &stats);
        let cache = tmp.path().join(format!("cache-{sub}"));
        let (warm, _) = rill(sub, first, Some(&cache), &stats);
        let file = cache_file(&cache, sub);
        let good = std::fs::read(&file).expect("a cache file after a build");
        for (what, bytes, checked_at_open) in damages(&good) {
            // Restore the good cache of `first`, then damage it.
            match &bytes {
                Some(b) => std::fs::write(&file, b).unwrap(),
                None => std::fs::remove_file(&file).unwrap(),
            }
            let (got, warnings) = rill(sub, next, Some(&cache), &stats);
            assert_eq!(got, scratch, "rill {sub} on a cache {what}");
            if bytes.is_some() && checked_at_open {
                assert!(
                    warnings.iter().any(|w| w.contains("ignored")),
                    "rill {sub} on a cache {what}: no warning: {warnings:?}"
                );
            }
            let (again, warnings) = rill(sub, next, Some(&cache), &stats);
            assert_eq!(again, scratch, "rill {sub} after a cache {what}");
            // A build with errors keeps the previous cache: nothing to assert about it.
            if scratch.code == Some(0) {
                assert!(
                    warnings.is_empty(),
                    "rill {sub} after a cache {what}: {warnings:?}"
                );
            }
            std::fs::write(&file, &good).unwrap();
        }
        if first == next {
            assert_eq!(warm, scratch);
        }
    }
}

fn write(p: &gen::Program, dir: &Path) -> PathBuf {
    p.write_to(dir).unwrap();
    dir.join("main.rs")
}

#[test]
fn a_damaged_cache_of_the_same_program() {
    let tmp = tempfile::tempdir().unwrap();
    let p = gen::generate(&GenConfig {
        seed: 5,
        target_lines: 150,
        ..GenConfig::default()
    });
    let main = write(&p, &tmp.path().join("p"));
    check(&main, &main);
}

#[test]
fn a_damaged_cache_and_an_edit() {
    let tmp = tempfile::tempdir().unwrap();
    let v0 = gen::generate(&GenConfig {
        seed: 6,
        target_lines: 150,
        ..GenConfig::default()
    });
    let v1 = gen::edit_history(&v0, 1, 6).remove(0).program;
    // Both versions are written to the same directory, in turn, as an editor would.
    let dir = tmp.path().join("v");
    let put = |p: &gen::Program| {
        let _ = std::fs::remove_dir_all(&dir);
        write(p, &dir)
    };
    let stats = tmp.path().join("stats.json");
    for sub in ["run", "check"] {
        let main = put(&v1);
        let (scratch, _) = rill(sub, &main, None, &stats);
        let cache = tmp.path().join(format!("cache-{sub}"));
        for what in ["bit flipped", "truncated", "garbage"] {
            let _ = std::fs::remove_dir_all(&cache);
            put(&v0);
            rill(sub, &main, Some(&cache), &stats);
            let file = cache_file(&cache, sub);
            let mut b = std::fs::read(&file).unwrap();
            match what {
                "bit flipped" => {
                    // In the header: checked when the file is opened.
                    b[20] ^= 1;
                }
                "truncated" => b.truncate(b.len() / 2),
                _ => b = b"garbage".to_vec(),
            }
            std::fs::write(&file, &b).unwrap();
            put(&v1);
            let (got, warnings) = rill(sub, &main, Some(&cache), &stats);
            assert_eq!(got, scratch, "rill {sub}: cache {what}, then an edit");
            assert!(
                warnings.iter().any(|w| w.contains("ignored")),
                "{warnings:?}"
            );
        }
    }
}

#[test]
fn a_damaged_cache_of_a_program_with_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let p = gen::generate(&GenConfig {
        seed: 7,
        target_lines: 100,
        ..GenConfig::default()
    });
    let broken = gen::mutate_ill_formed(&p, 7).expect("an ill-formed mutation");
    let ok = write(&p, &tmp.path().join("ok"));
    let bad = write(&broken.program, &tmp.path().join("bad"));
    // The cache of the good program, damaged, then the broken program (exit 1).
    check(&ok, &bad);
}
