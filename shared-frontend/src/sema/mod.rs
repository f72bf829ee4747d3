//! Semantic analysis: from syntax trees to typed bodies and constant values.

pub mod consteval;
pub mod def;
pub mod entry;
pub mod env;
pub mod items;
pub mod modules;
pub mod recipe;
pub mod resolve;
#[cfg(test)]
pub(crate) mod test_driver;
pub mod thir;
pub mod ty;
pub mod typeck;
