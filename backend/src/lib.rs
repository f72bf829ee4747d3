//! The x86-64 backend: IR to machine code per function, the linker, the runtime and
//! disassembly. It reads the IR of `shared-frontend` and nothing else of it.
//!
//! - [`codegen`]: one [`IrFunction`](shared_frontend::ir::IrFunction) to a [`CodeBlob`]
//!   (position-independent code, then the function's read-only data, plus relocations).
//!   The same IR gives the same bytes in any process.
//! - [`link`]: blobs to an executable [`Image`] with a stable [`Image::hash`].
//! - [`Image::run`]: runs `main` on a private stack and returns what it printed and how
//!   it ended, as the interpreter's [`ExitStatus`](shared_frontend::ir::interp::ExitStatus).
//! - [`disassemble`]: NASM-syntax listings.
//! - [`compile_program`], [`run_program`]: all of the above for a whole
//!   [`IrProgram`](shared_frontend::ir::IrProgram).
//!
//! # Calling convention (internal, System V compatible)
//! - Arguments in `rdi, rsi, rdx, rcx, r8, r9`, then on the stack (8 bytes each, the 7th
//!   at `[rsp + 8]` on entry); the result in `rax`. An aggregate argument is the address
//!   of the caller's copy; an `sret` function takes the result address as its first
//!   argument and returns nothing (the IR's conventions).
//! - `I32` values use the low 32 bits (the upper bits are unspecified); `Bool` is 0 or 1
//!   in the whole register; `I64`, `U64` and `Ptr` use all 64 bits.
//! - Callee-saved: `rbx, rbp, r12–r15` (and `rsp`); everything else is caller-saved.
//!   `rsp` is 16-byte aligned at every call. Runtime entry points are called with the
//!   same convention (they are `extern "sysv64"` Rust functions).
//!
//! # Frames
//! A function pushes the callee-saved registers it uses, then allocates its frame with
//! one `sub rsp`: outgoing stack arguments at `[rsp]`, then 8-byte spill slots, then the
//! IR's stack slots (aligned; alignments above 16 are applied when the address is
//! taken). No frame pointer. Functions that call (or have a frame above 64 KiB) compare
//! `rsp` with the stack limit after allocating the frame; backward jumps do the same
//! check (see [`runtime`] for what a failed check means).
//!
//! # Registers
//! Linear-scan allocation over live intervals ([`codegen`]'s `analysis`): 12 registers
//! (`rbx, rbp, rsi, rdi, r8–r15`); `rax, rcx, rdx` are scratch. Values live across a call
//! get callee-saved registers or a spill slot. Single-definition constants are not
//! allocated: they become immediates (or are rematerialized) at each use.
//!
//! # Differences from the interpreter
//! Only for malformed IR or resource limits: a read of a register never written yields
//! an unspecified value (the interpreter's registers start at 0); an unchecked division
//! by zero or an out-of-bounds access is not caught; a call of an unknown function or
//! with the wrong number of arguments is a [`LinkError`]; the stack overflows by bytes
//! ([`RunLimits::stack_bytes`]), not by frame count; the run-time limit is a wall-clock
//! timeout ([`RunLimits::timeout`], reported as `OutOfFuel`) rather than counted fuel.

pub mod blob;
pub mod codegen;
pub mod disasm;
pub mod link;
pub mod runtime;

use std::sync::Arc;

use shared_frontend::ir::IrProgram;

pub use blob::{CodeBlob, ContextField, RelocTarget, Relocation, RuntimeFn};
pub use codegen::codegen;
pub use disasm::{disassemble, disassemble_with};
pub use link::{link, Image, Layout, LinkError, LinkState, PatchStats};
pub use runtime::{RunLimits, RunOutcome};

/// Compiles and links every function of `program`, in its order.
pub fn compile_program(program: &IrProgram) -> Result<Image, LinkError> {
    let blobs: Vec<_> = program
        .functions
        .iter()
        .map(|f| (f.def, Arc::new(codegen(f))))
        .collect();
    link(&blobs, program.main)
}

/// Compiles, links and runs `program`.
pub fn run_program(program: &IrProgram, limits: &RunLimits) -> Result<RunOutcome, LinkError> {
    Ok(compile_program(program)?.run(limits))
}
