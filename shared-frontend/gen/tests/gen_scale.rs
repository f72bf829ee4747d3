//! Program size follows `target_lines`, large programs have many modules and files, and
//! generation is fast. `RILL_GEN_BIG=1` adds a 1,000,000-line program (run it with
//! `--release` to see the real speed).

use std::time::Instant;

mod gen_support;

use gen_support::cases;
use rill_gen::{generate, GenConfig};

fn check_size(target: usize, seed: u64) -> f64 {
    let cfg = GenConfig {
        seed,
        target_lines: target,
        ..GenConfig::default()
    };
    let start = Instant::now();
    let p = generate(&cfg);
    let secs = start.elapsed().as_secs_f64();
    let lines = p.total_lines();
    let rate = lines as f64 / secs;
    eprintln!(
        "target {target}: {lines} lines in {} files, {secs:.3} s, {rate:.0} lines/s",
        p.files.len()
    );
    assert!(
        lines as f64 >= target as f64 * 0.7 && lines as f64 <= target as f64 * 1.4 + 60.0,
        "target {target}, got {lines} lines"
    );
    if target >= 10_000 {
        assert!(
            p.files.len() >= 5,
            "a {target}-line program should span several files"
        );
    }
    rate
}

#[test]
fn size_follows_target() {
    for (i, target) in [50, 200, 1_000, 10_000, 100_000].into_iter().enumerate() {
        check_size(target, i as u64);
    }
}

/// Rendering checks (in debug builds) that every reference has a valid path; many
/// medium-sized programs exercise rare module and re-export configurations.
#[test]
fn many_programs_render_without_internal_errors() {
    for seed in 0..cases(8) {
        let p = generate(&GenConfig {
            seed: 9_000 + seed,
            target_lines: 20_000,
            ..GenConfig::default()
        });
        assert!(p.total_lines() > 10_000);
    }
}

#[test]
fn huge_program() {
    if std::env::var("RILL_GEN_BIG").is_err() {
        return;
    }
    let rate = check_size(1_000_000, 7);
    // A regression guard only: wall-clock rates on a shared machine vary a lot.
    if !cfg!(debug_assertions) {
        assert!(
            rate > 200_000.0,
            "generation is too slow: {rate:.0} lines/s"
        );
    }
}
