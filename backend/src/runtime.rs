//! The runtime: running an [`Image`] on its own stack, the entry trampoline and the
//! runtime entry points JIT code calls (System V).
//!
//! [`Image::run`] maps a fresh stack (`MAP_NORESERVE`, a guard region at the bottom),
//! writes the stack limit and the run-state pointer into the image's context page and
//! enters `main` through `rill_backend_enter`, which saves the host's callee-saved
//! registers and `rsp` and switches to the JIT stack. Every function that calls
//! (and every frame larger than 64 KiB) compares `rsp` with the limit in its prologue,
//! and every backward jump does too; a failed check calls [`RuntimeFn::Limit`]. Runtime
//! entry points that end the program (panics, the limit, `Unreachable`, internal errors)
//! record the status and leave through `rill_backend_escape`, which restores the host's
//! `rsp` and registers and returns from `rill_backend_enter`: no unwinding through Rust
//! frames, nothing left behind, so one process can run any number of programs.
//!
//! A timeout ([`RunLimits::timeout`]) is a watchdog thread that sets the limit word to
//! `u64::MAX`, so the next prologue or backward jump fails its check; the run then ends
//! with [`ExitStatus::OutOfFuel`]. (Instruction-counting fuel is the interpreter's; the
//! JIT offers the wall-clock limit instead.)

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use shared_frontend::ir::interp::ExitStatus;

use crate::blob::{ContextField, RuntimeFn};
use crate::link::Image;

/// The default JIT stack: 1 GiB of address space (pages are committed when touched).
pub const DEFAULT_STACK_BYTES: usize = 1 << 30;
/// Bytes at the bottom of the stack never mapped accessible.
const GUARD_BYTES: usize = 64 << 10;
/// Room above the limit for runtime calls and frames that skip the check.
const HEADROOM_BYTES: usize = 512 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// Bytes of stack for JIT code (at least 1 MiB is used).
    pub stack_bytes: usize,
    /// Wall-clock limit; `None` for none.
    pub timeout: Option<Duration>,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            stack_bytes: DEFAULT_STACK_BYTES,
            timeout: None,
        }
    }
}

/// What a run printed and how it ended (compare with the interpreter's `InterpOutcome`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    pub stdout: Vec<u8>,
    pub status: ExitStatus,
}

/// The state runtime entry points see (their first argument).
pub(crate) struct RunState {
    stdout: Vec<u8>,
    status: Option<ExitStatus>,
    /// The host's `rsp` saved by the trampoline.
    host_rsp: u64,
    interrupted: *const AtomicBool,
}

std::arch::global_asm!(
    ".text",
    ".p2align 4",
    ".globl rill_backend_enter",
    ".hidden rill_backend_enter",
    "rill_backend_enter:",
    // rdi = stack top (16-aligned), rsi = entry, rdx = &host_rsp
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "mov [rdx], rsp",
    "mov rsp, rdi",
    "push rdx",
    "sub rsp, 8",
    "call rsi",
    "add rsp, 8",
    "pop rdx",
    "mov rsp, [rdx]",
    "xor eax, eax",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    ".p2align 4",
    ".globl rill_backend_escape",
    ".hidden rill_backend_escape",
    "rill_backend_escape:",
    // rdi = the host rsp saved by rill_backend_enter
    "mov rsp, rdi",
    "mov eax, 1",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
);

// SAFETY: these are the two routines of the `global_asm!` above, with the System V
// signatures their register use follows (arguments in rdi, rsi, rdx; result in rax).
unsafe extern "sysv64" {
    /// Saves the host's callee-saved registers and `rsp` (into `*host_rsp`), switches to
    /// `stack_top` and calls `entry`; returns 0 when `entry` returns, 1 when the run left
    /// through [`rill_backend_escape`].
    ///
    /// # Safety
    /// `stack_top` is the 16-byte aligned top of a writable stack large enough for the
    /// run, `entry` the address of executable code that follows the System V convention
    /// and does not unwind, and `host_rsp` valid for writes until this returns.
    fn rill_backend_enter(stack_top: *mut u8, entry: *const u8, host_rsp: *mut u64) -> u64;
    /// Returns from the innermost [`rill_backend_enter`] with 1, abandoning the JIT stack.
    ///
    /// # Safety
    /// `host_rsp` is the value that call saved, and it has not returned yet: everything
    /// on the JIT stack is abandoned without being dropped.
    fn rill_backend_escape(host_rsp: u64) -> !;
}

// The runtime entry points (`rt_*`) are called only by JIT code: their addresses leave
// this module only through [`entry_point`], into an image's runtime table, and code calls
// them only as `call [rip + table entry]` right after `mov rdi, [rip + state word]`. So
// `st` is the state word [`Image::run`] wrote into the context page before entering: a
// pointer to its `RunState`, which lives until the run returns and which nothing else
// touches while JIT code runs. The pointer and length arguments name bytes of the image
// (a string blob, the function's name, an error message), all laid out by `codegen` in
// the blob's data, which the image keeps mapped readable while it runs.

/// Records `status` and returns to the host.
///
/// # Safety
/// `st` is the state of the current run (see the entry points above), and this is
/// called on the JIT stack of that run, whose `rill_backend_enter` (which saved
/// `host_rsp`) has not returned yet. The frames between are abandoned without running
/// destructors, so the caller holds nothing that needs a drop.
unsafe fn finish(st: *mut RunState, status: ExitStatus) -> ! {
    // SAFETY: `st` points to the live `RunState` of this run, and no reference to it is
    // held across this write (the caller's contract).
    let rsp = unsafe {
        (*st).status = Some(status);
        (*st).host_rsp
    };
    // SAFETY: `rsp` is what this run's `rill_backend_enter` saved, and that call is still
    // active; `status` has been moved into the state, and the callers hold nothing that
    // needs a drop (the caller's contract).
    unsafe { rill_backend_escape(rsp) }
}

fn write_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

extern "sysv64" fn rt_print_str(st: *mut RunState, ptr: *const u8, len: usize) {
    // SAFETY: `st` is the running program's state, and `ptr`/`len` a string blob of the
    // image (the entry points' contract above); the two do not overlap.
    unsafe {
        (*st)
            .stdout
            .extend_from_slice(std::slice::from_raw_parts(ptr, len))
    }
}

extern "sysv64" fn rt_print_i64(st: *mut RunState, v: i64) {
    // SAFETY: `st` is the running program's state (the entry points' contract above).
    let out = unsafe { &mut (*st).stdout };
    if v < 0 {
        out.push(b'-');
    }
    write_u64(out, v.unsigned_abs());
}

extern "sysv64" fn rt_print_u64(st: *mut RunState, v: u64) {
    // SAFETY: `st` is the running program's state (the entry points' contract above).
    write_u64(unsafe { &mut (*st).stdout }, v);
}

extern "sysv64" fn rt_print_bool(st: *mut RunState, v: u64) {
    let s: &[u8] = if v != 0 { b"true" } else { b"false" };
    // SAFETY: `st` is the running program's state (the entry points' contract above).
    unsafe { (*st).stdout.extend_from_slice(s) }
}

extern "sysv64" fn rt_panic(st: *mut RunState, kind: u64) -> ! {
    use shared_frontend::ir::PanicKind;
    let k = match kind {
        0 => PanicKind::DivByZero,
        1 => PanicKind::RemByZero,
        2 => PanicKind::DivOverflow,
        _ => PanicKind::RemOverflow,
    };
    // SAFETY: called by JIT code on the run's stack with the run's state (the entry
    // points' contract above); the status is moved into the state, so nothing in this
    // frame is left to drop.
    unsafe { finish(st, ExitStatus::Panicked(k.message().to_string())) }
}

extern "sysv64" fn rt_panic_bounds(st: *mut RunState, index: u64, len: u64, signed: u64) -> ! {
    let msg = {
        let index = if signed != 0 {
            (index as i64).to_string()
        } else {
            index.to_string()
        };
        format!("index out of bounds: the len is {len} but the index is {index}")
    };
    // SAFETY: called by JIT code on the run's stack with the run's state (the entry
    // points' contract above); `msg` is moved into the state, so nothing in this frame
    // is left to drop.
    unsafe { finish(st, ExitStatus::Panicked(msg)) }
}

extern "sysv64" fn rt_unreachable(st: *mut RunState, name: *const u8, len: usize, block: u64) -> ! {
    let msg = {
        // SAFETY: `name`/`len` is the calling function's name in its blob's data (the
        // entry points' contract above).
        let name = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(name, len)) };
        format!("{name}: block {block}: reached Unreachable")
    };
    // SAFETY: called by JIT code on the run's stack with the run's state (the entry
    // points' contract above); `msg` is moved into the state, so nothing in this frame
    // is left to drop.
    unsafe { finish(st, ExitStatus::InternalError(msg)) }
}

extern "sysv64" fn rt_limit(st: *mut RunState) -> ! {
    // SAFETY: `st` is the running program's state (the entry points' contract above), and
    // its `interrupted` points to the flag `Image::run` keeps alive until the run returns.
    let interrupted = unsafe { (*(*st).interrupted).load(Ordering::SeqCst) };
    let status = if interrupted {
        ExitStatus::OutOfFuel
    } else {
        ExitStatus::StackOverflow
    };
    // SAFETY: called by JIT code on the run's stack with the run's state (the entry
    // points' contract above); nothing in this frame needs a drop.
    unsafe { finish(st, status) }
}

extern "sysv64" fn rt_internal_error(st: *mut RunState, msg: *const u8, len: usize) -> ! {
    // SAFETY: `msg`/`len` is the message in an error blob's data (the entry points'
    // contract above).
    let msg = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(msg, len)) };
    let msg = msg.into_owned();
    // SAFETY: called by JIT code on the run's stack with the run's state (the entry
    // points' contract above); the message is moved into the state, so nothing in this
    // frame is left to drop.
    unsafe { finish(st, ExitStatus::InternalError(msg)) }
}

/// The address of a runtime entry point.
pub(crate) fn entry_point(f: RuntimeFn) -> usize {
    match f {
        RuntimeFn::PrintStr => rt_print_str as *const () as usize,
        RuntimeFn::PrintI64 => rt_print_i64 as *const () as usize,
        RuntimeFn::PrintU64 => rt_print_u64 as *const () as usize,
        RuntimeFn::PrintBool => rt_print_bool as *const () as usize,
        RuntimeFn::Panic => rt_panic as *const () as usize,
        RuntimeFn::PanicBounds => rt_panic_bounds as *const () as usize,
        RuntimeFn::Unreachable => rt_unreachable as *const () as usize,
        RuntimeFn::Limit => rt_limit as *const () as usize,
        RuntimeFn::InternalError => rt_internal_error as *const () as usize,
    }
}

/// A JIT stack mapping, unmapped on drop.
struct Stack {
    base: *mut u8,
    len: usize,
}

impl Stack {
    fn new(len: usize) -> Option<Stack> {
        let len = len.max(1 << 20).div_ceil(4096) * 4096 + GUARD_BYTES + HEADROOM_BYTES;
        // SAFETY: a new anonymous private mapping at an address of the kernel's choice
        // (a null hint) replaces nothing; the result is checked for `MAP_FAILED` below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let stack = Stack {
            base: base as *mut u8,
            len,
        };
        // SAFETY: the first `GUARD_BYTES` (a multiple of the page size, less than `len`)
        // of the mapping just made, which nothing refers to yet.
        let rc = unsafe { libc::mprotect(base, GUARD_BYTES, libc::PROT_NONE) };
        (rc == 0).then_some(stack)
    }

    fn top(&self) -> *mut u8 {
        // SAFETY: one past the end of the `len`-byte mapping at `base`, which is in bounds
        // of the same allocation.
        unsafe { self.base.add(self.len) }
    }

    fn limit(&self) -> u64 {
        self.base as u64 + (GUARD_BYTES + HEADROOM_BYTES) as u64
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` is the mapping `Stack::new` made, unmapped only here; the
        // stack is dropped after the run that used it has returned.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}

impl Image {
    /// Runs `main` to its end, a panic, a stack overflow or the timeout.
    pub fn run(&self, limits: &RunLimits) -> RunOutcome {
        let _guard = self.run_lock.lock().unwrap_or_else(|e| e.into_inner());
        let Some(stack) = Stack::new(limits.stack_bytes) else {
            return RunOutcome {
                stdout: Vec::new(),
                status: ExitStatus::InternalError("cannot map the JIT stack".to_string()),
            };
        };
        let interrupted = AtomicBool::new(false);
        let mut state = RunState {
            stdout: Vec::new(),
            status: None,
            host_rsp: 0,
            interrupted: &interrupted,
        };
        let st: *mut RunState = &mut state;
        let ctx = self.context_ptr();
        // SAFETY: the limit word is in the image's context page, which is mapped
        // read-write for the image's lifetime, 8-byte aligned, and only used by this run
        // (`run_lock`); JIT code and the watchdog access it only atomically.
        let limit = unsafe { &*(ctx.add(ContextField::Limit.index()) as *const AtomicU64) };
        limit.store(stack.limit(), Ordering::SeqCst);
        // SAFETY: the state word is in the same read-write context page, and no JIT code
        // runs yet.
        unsafe { *ctx.add(ContextField::State.index()) = st as u64 };
        // SAFETY: `main` is the offset of the entry function's code in the mapping.
        let entry = unsafe { self.mem.add(self.main) };
        let rc = std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel::<()>();
            if let Some(t) = limits.timeout {
                let interrupted = &interrupted;
                s.spawn(move || {
                    if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(t) {
                        interrupted.store(true, Ordering::SeqCst);
                        limit.store(u64::MAX, Ordering::SeqCst);
                    }
                });
            }
            // SAFETY: `stack.top()` is the page-aligned top of a fresh read-write stack
            // that outlives the call, `entry` is `main`'s code, linked and executable,
            // taking no parameters, and `host_rsp` is a field of `state`, which is alive
            // and not otherwise accessed until the call returns. The context page holds
            // the limit and `st` the runtime entry points need.
            let rc = unsafe { rill_backend_enter(stack.top(), entry, &raw mut (*st).host_rsp) };
            drop(tx);
            rc
        });
        drop(stack);
        let status = if rc == 0 {
            ExitStatus::Finished
        } else {
            state
                .status
                .take()
                .unwrap_or_else(|| ExitStatus::InternalError("run ended without status".into()))
        };
        RunOutcome {
            stdout: std::mem::take(&mut state.stdout),
            status,
        }
    }
}
