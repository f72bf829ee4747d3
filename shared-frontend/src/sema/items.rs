//! The item tree.
