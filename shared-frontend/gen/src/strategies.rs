//! The generator as proptest strategies. Values are produced from a random seed and size,
//! so shrinking shrinks the seed and the size rather than the program's structure (smaller
//! sizes do give smaller programs).

use proptest::prelude::*;

use super::{
    edit_history as history, generate, mutate_ill_formed, Edit, GenConfig, Mutation, Program,
};

fn sized(lines: std::ops::Range<usize>) -> impl Strategy<Value = Program> {
    (any::<u64>(), lines).prop_map(|(seed, target_lines)| {
        generate(&GenConfig {
            seed,
            target_lines,
            ..GenConfig::default()
        })
    })
}

/// Valid programs of 100 to 2,000 lines.
pub fn program() -> impl Strategy<Value = Program> {
    sized(100..2_000)
}

/// Valid programs of 40 to 200 lines.
pub fn small_program() -> impl Strategy<Value = Program> {
    sized(40..200)
}

/// A small program and a history of `len` edits of it (see [`super::edit_history`]).
pub fn edit_history(len: usize) -> impl Strategy<Value = (Program, Vec<Edit>)> {
    (small_program(), any::<u64>()).prop_map(move |(p, seed)| {
        let h = history(&p, len, seed);
        (p, h)
    })
}

/// Ill-formed programs: small programs with one mutation that rustc rejects.
pub fn ill_formed() -> impl Strategy<Value = Mutation> {
    (small_program(), any::<u64>())
        .prop_map(|(p, seed)| mutate_ill_formed(&p, seed).expect("generated programs have a model"))
}
