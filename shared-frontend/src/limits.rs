//! Implementation limits (LANGUAGE.md "Implementation limits"). Each is documented in the
//! README with its value; exceeding one yields a diagnostic that names the limit.

/// Nesting depth of expressions, blocks, types and patterns in one item.
pub const MAX_NESTING: u32 = 256;
/// Nesting depth of modules.
pub const MAX_MODULE_DEPTH: u32 = 64;
/// Length of an identifier, in bytes.
pub const MAX_IDENT_LEN: usize = 1024;
/// Length of an integer literal, in bytes (digits, underscores and suffix).
pub const MAX_LITERAL_LEN: usize = 1024;
/// Size of one array or struct value, in bytes.
pub const MAX_VALUE_SIZE: u64 = 1 << 24;
/// Size of one source file, in bytes.
pub const MAX_FILE_SIZE: usize = 1 << 30;
/// Steps (loop iterations and block evaluations) of one constant's evaluation.
pub const MAX_CONST_EVAL_STEPS: u64 = 2_000_000;
/// Memory one constant's evaluation may hold (its variables, operands and the values of
/// the constants it reads), in bytes.
pub const MAX_CONST_EVAL_MEMORY: u64 = 1 << 28;
