//! The parser.
