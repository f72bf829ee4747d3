//! Name resolution.
