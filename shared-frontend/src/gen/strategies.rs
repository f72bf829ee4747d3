//! strategies
