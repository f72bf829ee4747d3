//! IR printing.
