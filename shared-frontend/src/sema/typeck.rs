//! Type checking.
