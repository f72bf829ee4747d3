//! `mutate_ill_formed` yields programs that rustc rejects, across every mutation kind.

mod gen_support;

use std::collections::BTreeMap;

use gen_support::*;
use rill_gen::{generate, mutate_ill_formed, GenConfig, MutationKind, Program};

#[test]
fn mutations_are_rejected_by_rustc() {
    let kinds = MutationKind::ALL.len() as u64;
    // Every kind is tried first by some seed; RILL_GEN_CASES scales the rounds.
    let rounds = cases(1);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for seed in 0..kinds * rounds {
        let p = generate(&GenConfig {
            seed: 700 + seed,
            target_lines: 120 + (seed as usize % 4) * 80,
            ..GenConfig::default()
        });
        let m = mutate_ill_formed(&p, seed).expect("some mutation applies");
        assert!(
            m.description.starts_with(&format!("{}: ", m.kind)),
            "description {:?} does not start with its kind",
            m.description
        );
        *seen.entry(m.kind.name()).or_default() += 1;
        assert_ne!(m.program, p);
        if rustc_accepts(&m.program).is_ok() {
            let kept = keep_failure(&m.program, &format!("mutation-{seed}"));
            panic!(
                "rustc accepted mutation {seed} ({}), kept in {}",
                m.description,
                kept.display()
            );
        }
    }
    let missing: Vec<&str> = MutationKind::ALL
        .iter()
        .map(|k| k.name())
        .filter(|k| !seen.contains_key(k))
        .collect();
    assert!(
        missing.is_empty(),
        "kinds never applied: {missing:?} (seen {seen:?})"
    );
}

#[test]
fn programs_without_a_model_are_not_mutated() {
    let p = generate(&GenConfig {
        seed: 1,
        target_lines: 100,
        ..GenConfig::default()
    });
    let bare = Program::from_files(p.files.clone());
    assert!(mutate_ill_formed(&bare, 0).is_none());
}
