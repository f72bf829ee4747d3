//! Property: random well-formed IR programs print the same and end the same under the JIT
//! as under the interpreter. Cases from `RILL_PROPTEST_CASES` (default 256).

mod common;

use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("RILL_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn jit_matches_interpreter(seed in any::<u64>()) {
        let p = common::gen::random_program(seed);
        common::check_same(&p);
    }
}

/// `RILL_SEED=<n>` replays one generated program, printing its listings first.
#[test]
fn replay_seed_from_env() {
    let Some(seed) = std::env::var("RILL_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    else {
        return;
    };
    let p = common::gen::random_program(seed);
    for f in &p.functions {
        println!("{}", backend::disassemble(&f.name, &backend::codegen(f)));
    }
    common::check_same(&p);
}
