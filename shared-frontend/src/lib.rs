//! The Rill language (see LANGUAGE.md): everything between source text and optimized IR,
//! plus the reference interpreter and diagnostics. (The random program generator is the
//! crate `rill-gen`, beside this one: the language does not depend on it.)
//!
//! Every stage is a pure function over explicit inputs, usable one item at a time, so the
//! staged pipeline and the query engine can both drive it (DESIGN.md invariant 3):
//! - [`syntax`]: lexing and parsing one file;
//! - [`sema`]: module tree, item tree and def-paths, name resolution, type checking and
//!   constant evaluation, with [`sema::env::SemaEnv`] as the only window on other items;
//! - [`ir`]: lowering one function, optimizing it, and interpreting a program;
//! - [`diag`]: diagnostics and their rustc-like rendering;
//! - [`spare`]: the per-thread buffers the per-function stages reuse.

pub mod diag;
pub mod intern;
pub mod ir;
pub mod limits;
pub mod sema;
pub mod span;
pub mod spare;
pub mod syntax;
