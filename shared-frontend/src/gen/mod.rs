//! The random program generator: valid programs, edits and ill-formed mutations.
