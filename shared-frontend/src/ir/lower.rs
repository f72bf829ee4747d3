//! Lowering.
