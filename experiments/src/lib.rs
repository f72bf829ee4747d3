//! The experiments: the corpus, workloads, the experiment runner, plots and the paper.
//! The `rill` command lives in `src/bin/rill.rs`.

pub mod corpus;
