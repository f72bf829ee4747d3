//! Every edit kind applies and keeps the program valid (rustc accepts it and it runs),
//! except `IntroduceError`, which rustc rejects until `FixError`. Whitespace and comment
//! edits change no tokens; body edits that keep the result keep the output.

mod gen_support;

use std::time::Duration;

use gen_support::*;
use rill_gen::{apply_edit, edit_history, generate, EditKind, GenConfig, Program};

fn program(seed: u64, lines: usize) -> Program {
    generate(&GenConfig {
        seed,
        target_lines: lines,
        ..GenConfig::default()
    })
}

/// Compiles and runs `p`, returning its output; panics (keeping the program) on failure.
fn run_ok(p: &Program, tag: &str) -> String {
    let dir = TempDir::new(tag);
    match rustc(p, &dir) {
        Ok(bin) => {
            let r = run(&bin, Duration::from_secs(10));
            if r.code != Some(0) {
                let kept = keep_failure(p, tag);
                panic!("{tag}: exit code {:?} (kept in {})", r.code, kept.display());
            }
            r.stdout
        }
        Err(e) => {
            let kept = keep_failure(p, tag);
            panic!(
                "{tag}: rustc rejected the edited program (kept in {}):\n{e}",
                kept.display()
            );
        }
    }
}

fn check_kind(kind: EditKind, n: u64) {
    let mut applied = 0;
    for seed in 0..n {
        let p = program(100 + seed, 150 + 60 * (seed as usize % 5));
        let Some(edit) = apply_edit(&p, kind, seed) else {
            continue;
        };
        applied += 1;
        let tag = format!("{}-{seed}", kind.name());
        assert_eq!(edit.kind, kind);
        assert!(!edit.description.is_empty());
        assert_ne!(edit.program, p, "{tag}: the edit changed nothing");
        match kind {
            EditKind::IntroduceError => {
                if rustc_accepts(&edit.program).is_ok() {
                    let kept = keep_failure(&edit.program, &tag);
                    panic!(
                        "{tag}: rustc accepted the introduced error {} (kept in {})",
                        edit.description,
                        kept.display()
                    );
                }
                let fixed = apply_edit(&edit.program, EditKind::FixError, seed)
                    .expect("a pending error can be fixed");
                assert_eq!(
                    fixed.program, p,
                    "{tag}: FixError does not restore the program"
                );
                assert!(apply_edit(&fixed.program, EditKind::FixError, seed).is_none());
            }
            EditKind::FixError => unreachable!(),
            _ => {
                let before = run_ok(&p, &format!("{tag}-before"));
                let after = run_ok(&edit.program, &tag);
                if matches!(kind, EditKind::Whitespace | EditKind::Comment) {
                    assert_eq!(
                        token_runs(&p),
                        token_runs(&edit.program),
                        "{tag}: tokens changed"
                    );
                }
                if matches!(
                    kind,
                    EditKind::Whitespace
                        | EditKind::Comment
                        | EditKind::BodyUnchangedResult
                        | EditKind::AddFn
                ) {
                    assert_eq!(
                        before, after,
                        "{tag}: output changed ({})",
                        edit.description
                    );
                }
            }
        }
    }
    assert!(
        applied * 2 >= n,
        "{}: applied to only {applied} of {n} programs",
        kind.name()
    );
}

#[test]
fn whitespace() {
    check_kind(EditKind::Whitespace, cases(6));
}

#[test]
fn comment() {
    check_kind(EditKind::Comment, cases(6));
}

#[test]
fn leaf_body() {
    check_kind(EditKind::LeafBody, cases(6));
}

#[test]
fn body_unchanged_result() {
    check_kind(EditKind::BodyUnchangedResult, cases(6));
}

#[test]
fn signature() {
    check_kind(EditKind::Signature, cases(6));
}

#[test]
fn const_value() {
    check_kind(EditKind::ConstValue, cases(6));
}

#[test]
fn const_type() {
    check_kind(EditKind::ConstType, cases(6));
}

#[test]
fn struct_field() {
    check_kind(EditKind::StructField, cases(6));
}

#[test]
fn add_fn() {
    check_kind(EditKind::AddFn, cases(6));
}

#[test]
fn remove_fn() {
    check_kind(EditKind::RemoveFn, cases(6));
}

#[test]
fn introduce_and_fix_error() {
    check_kind(EditKind::IntroduceError, cases(6));
}

#[test]
fn names_are_distinct() {
    let names: std::collections::HashSet<&str> = EditKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names.len(), EditKind::ALL.len());
}

#[test]
fn histories_stay_valid() {
    let n = cases(2);
    for seed in 0..n {
        let p = program(300 + seed, 400);
        let len = 16;
        let hist = edit_history(&p, len, seed);
        assert_eq!(hist.len(), len);
        let kinds: std::collections::HashSet<EditKind> = hist.iter().map(|e| e.kind).collect();
        assert!(
            kinds.len() >= 8,
            "seed {seed}: only {} kinds in a history of {len}",
            kinds.len()
        );
        let mut pending = false;
        for (i, e) in hist.iter().enumerate() {
            let tag = format!("history-{seed}-{i}-{}", e.kind.name());
            match e.kind {
                EditKind::IntroduceError => pending = true,
                EditKind::FixError => pending = false,
                _ => {}
            }
            if pending {
                assert!(
                    rustc_accepts(&e.program).is_err(),
                    "{tag}: an error is pending but rustc accepts"
                );
            } else {
                run_ok(&e.program, &tag);
            }
        }
        assert!(
            !pending,
            "seed {seed}: the history ends with an error pending"
        );
    }
}

#[test]
fn edits_on_a_large_program() {
    // Edits re-render only the files they touch; they must still be fast and valid.
    let p = program(77, 20_000);
    let start = std::time::Instant::now();
    let hist = edit_history(&p, 12, 5);
    eprintln!(
        "12 edits of a {}-line program in {:?}",
        p.total_lines(),
        start.elapsed()
    );
    let last = &hist.last().expect("edits").program;
    run_ok(last, "large-history");
}
