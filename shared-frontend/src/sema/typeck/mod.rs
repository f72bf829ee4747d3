//! Type checking: signatures, struct fields and bodies, as rustc types them.
//!
//! The entry points work on one item at a time and see other items only through
//! [`SemaEnv`] (DESIGN.md invariant 3):
//! - [`fn_sig`], [`struct_fields`], [`alias_ty`], [`const_ty`] lower the types written in
//!   an item's signature, and [`check_main_sig`] checks `main`'s (`sig.rs`);
//! - [`check_struct()`] rejects structs of infinite or too large size (`check_struct.rs`);
//! - [`typeck_fn`] and [`typeck_const`] check a body and produce its [`Thir`]: `expr.rs`
//!   checks expressions and statements, `flow.rs` control flow, `aggregate.rs` calls,
//!   fields, indexing, aggregates and `println!`, `ops.rs` operators and casts, `place.rs`
//!   assignments, `infer.rs` holds the type variables, and `finish.rs` resolves them and
//!   runs the checks that need final types;
//! - [`thir_to_string`] prints a typed body compactly (`print.rs`), for tests and `emit`.
//!
//! Typing follows LANGUAGE.md ("Typing"), which follows rustc: expected types flow down
//! (into literals, through parentheses, unary operators and block tails, not into binary
//! operands), integer literals without one get integer variables that default to `i32`,
//! `!` coerces to anything (a `NeverToAny` node in the THIR), and every error yields
//! `Ty::Error`, which unifies with everything, so that one mistake is reported once.

mod aggregate;
mod check_struct;
mod expr;
mod finish;
mod flow;
mod infer;
mod ops;
mod place;
mod print;
mod sig;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::thir::Thir;
use crate::syntax::ast::{ConstDef, FnDef};

pub use check_struct::check_struct;
pub use print::thir_to_string;
pub use sig::{alias_ty, check_main_sig, const_ty, fn_sig, struct_fields};

/// A checked body: its typed tree and what was wrong with it. A body with errors still
/// has a tree (with `Error` nodes), but must not be lowered or evaluated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeckResult {
    pub thir: Arc<Thir>,
    pub diagnostics: Vec<Diagnostic>,
}

impl TypeckResult {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Type-checks the body of function `id`, written in module `module`. Errors in the
/// signature are reported by [`fn_sig`], not here; their types are `Ty::Error` here.
pub fn typeck_fn(env: &dyn SemaEnv, id: DefId, module: DefId, def: &FnDef) -> TypeckResult {
    expr::check_fn_body(env, id, module, def)
}

/// Type-checks a constant's initializer against its declared type. Errors in the type
/// are reported by [`const_ty`], not here.
pub fn typeck_const(env: &dyn SemaEnv, module: DefId, def: &ConstDef) -> TypeckResult {
    expr::check_const_body(env, module, def)
}
