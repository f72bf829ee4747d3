//! Snapshot tests of scopes, imports and path resolution.
