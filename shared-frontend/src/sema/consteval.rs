//! Constant evaluation.
