//! Generated programs are valid: rustc compiles them, they run to completion quickly with
//! bounded output, twice with the same output, and generation is deterministic.

mod gen_support;

use std::time::Duration;

use gen_support::*;
use rill_gen::{generate, GenConfig, Program};

fn check_runs(p: &Program, tag: &str, expect_code: i32) -> String {
    let dir = TempDir::new(tag);
    let bin = match rustc(p, &dir) {
        Ok(bin) => bin,
        Err(e) => {
            let kept = keep_failure(p, tag);
            panic!("rustc rejected {tag} (kept in {}):\n{e}", kept.display());
        }
    };
    let a = run(&bin, Duration::from_secs(10));
    let b = run(&bin, Duration::from_secs(10));
    if a.code != Some(expect_code) {
        let kept = keep_failure(p, tag);
        panic!(
            "{tag} exited with {:?}, expected {expect_code} (kept in {})",
            a.code,
            kept.display()
        );
    }
    assert_eq!(a.stdout, b.stdout, "{tag}: output differs between two runs");
    eprintln!(
        "{tag}: {} lines, ran in {:?}, printed {} lines",
        p.total_lines(),
        a.elapsed,
        a.stdout.lines().count()
    );
    assert!(
        a.stdout.lines().count() <= 2000,
        "{tag}: {} lines of output",
        a.stdout.lines().count()
    );
    a.stdout
}

#[test]
fn small_programs_compile_and_run() {
    let n = cases(24);
    for seed in 0..n {
        let cfg = GenConfig {
            seed,
            target_lines: 60 + (seed as usize * 37) % 400,
            ..GenConfig::default()
        };
        let p = generate(&cfg);
        check_runs(&p, &format!("small-{seed}"), 0);
    }
}

#[test]
fn generation_is_deterministic() {
    for seed in [0, 1, 99, 12345] {
        let cfg = GenConfig {
            seed,
            target_lines: 2_000,
            ..GenConfig::default()
        };
        let a = generate(&cfg);
        let b = generate(&cfg);
        assert_eq!(a, b, "seed {seed}");
    }
    // Different seeds give different programs.
    let a = generate(&GenConfig {
        seed: 1,
        ..GenConfig::default()
    });
    let b = generate(&GenConfig {
        seed: 2,
        ..GenConfig::default()
    });
    assert_ne!(a, b);
}

#[test]
fn larger_programs_compile_and_run() {
    let n = cases(3);
    for seed in 0..n {
        let cfg = GenConfig {
            seed: 1000 + seed,
            target_lines: [2_000, 5_000, 12_000][seed as usize % 3],
            ..GenConfig::default()
        };
        let p = generate(&cfg);
        assert!(p.files.len() > 1);
        check_runs(&p, &format!("large-{seed}"), 0);
    }
}

#[test]
fn panicking_programs_print_then_panic() {
    let n = cases(9);
    for seed in 0..n {
        let cfg = GenConfig {
            seed: 500 + seed,
            target_lines: 150,
            panicking: true,
            ..GenConfig::default()
        };
        let p = generate(&cfg);
        let out = check_runs(&p, &format!("panic-{seed}"), 101);
        assert!(
            out.contains("about to fail"),
            "seed {seed}: nothing printed before the panic"
        );
    }
}

/// With `RILL_GEN_BIG=1`: a 100,000-line program also compiles and runs (rustc needs
/// several seconds for it).
#[test]
fn big_program_compiles_and_runs() {
    if std::env::var("RILL_GEN_BIG").is_err() {
        return;
    }
    let p = generate(&GenConfig {
        seed: 42,
        target_lines: 100_000,
        ..GenConfig::default()
    });
    check_runs(&p, "big", 0);
}

/// Calls nested in call arguments are bounded: this configuration once recursed through a
/// struct literal, an array field and a call argument building the same struct until the
/// stack overflowed. The program it makes now is valid like any other.
#[test]
fn calls_nested_in_arguments_end() {
    let cfg = GenConfig {
        seed: 5573,
        target_lines: 200,
        editable: false,
        ..GenConfig::default()
    };
    let p = generate(&cfg);
    check_runs(&p, "nested-calls", 0);
}
