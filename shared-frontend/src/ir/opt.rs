//! Optimizations.
