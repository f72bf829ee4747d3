//! Source text to syntax tree: the lexer and the parser.

pub mod ast;
pub mod dump;
pub mod lexer;
pub mod parser;
