//! The experiments: the corpus, workloads, the experiment runner, plots and the paper.
//! The `rill` command lives in `src/bin/rill.rs`; the runner's entry is `src/main.rs`.

pub mod alloc;
pub mod corpus;
pub mod runner;
pub mod shown;
pub mod stats_json;
