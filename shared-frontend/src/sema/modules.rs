//! The module tree.
