//! The reference interpreter: runs an [`IrProgram`] with exactly the IR semantics
//! documented in [`crate::ir`], to produce what the program prints and how it ends.
//!
//! The program is first translated ([`code`]) into flat, type-specialized operations with
//! callees, blocks, slots and data resolved to indices and addresses, validating the IR
//! on the way; then run ([`exec`]) with an explicit frame stack, so Rill recursion depth
//! is bounded by [`InterpLimits::max_frames`] and [`MAX_STACK_BYTES`], never by the host
//! stack. Malformed IR yields [`ExitStatus::InternalError`], never a host panic.
//!
//! Memory is one linear byte array: addresses below 4096 are invalid, then come the
//! read-only data blobs of all functions (16-byte aligned), then the frames' slots.
//! Loads may read data and live frames; stores only live frames.

mod code;
mod exec;
pub mod scalar;
#[cfg(test)]
mod tests;

use std::fmt;

use crate::ir::IrProgram;

/// Bytes of slots and registers (8 per register) all live frames may hold together;
/// beyond this a call ends the program with [`ExitStatus::StackOverflow`]. (rustc's main
/// thread has 8 MiB of stack.)
pub const MAX_STACK_BYTES: u64 = 1 << 30;
/// The default [`InterpLimits::max_frames`]: five times what rustc's 8 MiB main thread
/// holds of a small recursive function.
pub const DEFAULT_MAX_FRAMES: usize = 1_000_000;
/// Exit code for [`ExitStatus::OutOfFuel`] (as `timeout(1)` uses for a timeout).
pub const OUT_OF_FUEL_EXIT_CODE: i32 = 124;
/// Exit code for [`ExitStatus::InternalError`] (`EX_SOFTWARE`).
pub const INTERNAL_ERROR_EXIT_CODE: i32 = 70;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterpLimits {
    /// The most frames live at once, `main`'s included.
    pub max_frames: usize,
    /// Instructions to execute at most (terminators count as instructions), `None` for no
    /// limit. Fuel is charged per block on entry: a block starts only if the remaining
    /// fuel covers all of its instructions and its terminator.
    pub fuel: Option<u64>,
}

impl Default for InterpLimits {
    fn default() -> Self {
        InterpLimits {
            max_frames: DEFAULT_MAX_FRAMES,
            fuel: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpOutcome {
    /// Everything printed until the program ended.
    pub stdout: Vec<u8>,
    pub status: ExitStatus,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// `main` returned.
    Finished,
    /// A panic, with rustc's message (`attempt to divide by zero`).
    Panicked(String),
    /// Too many frames or too much stack memory ([`MAX_STACK_BYTES`]).
    StackOverflow,
    /// [`InterpLimits::fuel`] ran out.
    OutOfFuel,
    /// The IR is malformed (an out-of-range register, a type mismatch, an unknown callee,
    /// an unchecked division by zero, an out-of-bounds memory access, ...).
    InternalError(String),
}

impl ExitStatus {
    /// The process exit code a compiled program would end with: 0, 101 for a panic, 134
    /// for a stack overflow (rustc aborts), [`OUT_OF_FUEL_EXIT_CODE`] and
    /// [`INTERNAL_ERROR_EXIT_CODE`].
    pub fn exit_code(&self) -> i32 {
        match self {
            ExitStatus::Finished => 0,
            ExitStatus::Panicked(_) => 101,
            ExitStatus::StackOverflow => 134,
            ExitStatus::OutOfFuel => OUT_OF_FUEL_EXIT_CODE,
            ExitStatus::InternalError(_) => INTERNAL_ERROR_EXIT_CODE,
        }
    }
}

/// What a rustc-compiled program would write to stderr (without the panic location).
impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Finished => Ok(()),
            ExitStatus::Panicked(msg) => write!(f, "thread 'main' panicked:\n{msg}"),
            ExitStatus::StackOverflow => write!(
                f,
                "thread 'main' has overflowed its stack\nfatal runtime error: stack overflow"
            ),
            ExitStatus::OutOfFuel => write!(f, "the interpreter ran out of fuel"),
            ExitStatus::InternalError(msg) => write!(f, "internal error: malformed IR: {msg}"),
        }
    }
}

/// Counters of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterpStats {
    /// Instructions (terminators included) charged, block by block.
    pub instructions: u64,
    /// The most frames live at once.
    pub max_depth: usize,
}

/// Runs `program` from `program.main`.
pub fn run(program: &IrProgram, limits: &InterpLimits) -> InterpOutcome {
    run_with_stats(program, limits).0
}

/// [`run`], also counting what the run did.
pub fn run_with_stats(program: &IrProgram, limits: &InterpLimits) -> (InterpOutcome, InterpStats) {
    let mut stats = InterpStats::default();
    let mut stdout = Vec::new();
    let status = match code::translate(program) {
        Ok(code) => exec::execute(&code, limits, &mut stdout, &mut stats),
        Err(msg) => ExitStatus::InternalError(msg),
    };
    (InterpOutcome { stdout, status }, stats)
}
