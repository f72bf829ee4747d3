//! The Rill language (see LANGUAGE.md): everything between source text and optimized IR,
//! plus the reference interpreter, diagnostics and the random program generator.
//!
//! Every stage is a pure function over explicit inputs, usable one item at a time, so the
//! staged pipeline and the query engine can both drive it.

pub mod gen;
