//! Snapshot tests of lowering.
