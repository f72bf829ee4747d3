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

unsafe extern "sysv64" {
    fn rill_backend_enter(stack_top: *mut u8, entry: *const u8, host_rsp: *mut u64) -> u64;
    fn rill_backend_escape(host_rsp: u64) -> !;
}

/// Records `status` and returns to the host.
unsafe fn finish(st: *mut RunState, status: ExitStatus) -> ! {
    let rsp = unsafe {
        (*st).status = Some(status);
        (*st).host_rsp
    };
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
    unsafe {
        (*st)
            .stdout
            .extend_from_slice(std::slice::from_raw_parts(ptr, len))
    }
}

extern "sysv64" fn rt_print_i64(st: *mut RunState, v: i64) {
    let out = unsafe { &mut (*st).stdout };
    if v < 0 {
        out.push(b'-');
    }
    write_u64(out, v.unsigned_abs());
}

extern "sysv64" fn rt_print_u64(st: *mut RunState, v: u64) {
    write_u64(unsafe { &mut (*st).stdout }, v);
}

extern "sysv64" fn rt_print_bool(st: *mut RunState, v: u64) {
    let s: &[u8] = if v != 0 { b"true" } else { b"false" };
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
    unsafe { finish(st, ExitStatus::Panicked(k.message().to_string())) }
}

extern "sysv64" fn rt_panic_bounds(st: *mut RunState, index: u64, len: u64, signed: u64) -> ! {
    let index = if signed != 0 {
        (index as i64).to_string()
    } else {
        index.to_string()
    };
    let msg = format!("index out of bounds: the len is {len} but the index is {index}");
    unsafe { finish(st, ExitStatus::Panicked(msg)) }
}

extern "sysv64" fn rt_unreachable(st: *mut RunState, name: *const u8, len: usize, block: u64) -> ! {
    let name = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(name, len)) };
    let msg = format!("{name}: block {block}: reached Unreachable");
    unsafe { finish(st, ExitStatus::InternalError(msg)) }
}

extern "sysv64" fn rt_limit(st: *mut RunState) -> ! {
    let interrupted = unsafe { (*(*st).interrupted).load(Ordering::SeqCst) };
    let status = if interrupted {
        ExitStatus::OutOfFuel
    } else {
        ExitStatus::StackOverflow
    };
    unsafe { finish(st, status) }
}

extern "sysv64" fn rt_internal_error(st: *mut RunState, msg: *const u8, len: usize) -> ! {
    let msg = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(msg, len)) };
    let msg = msg.into_owned();
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
        let rc = unsafe { libc::mprotect(base, GUARD_BYTES, libc::PROT_NONE) };
        (rc == 0).then_some(stack)
    }

    fn top(&self) -> *mut u8 {
        unsafe { self.base.add(self.len) }
    }

    fn limit(&self) -> u64 {
        self.base as u64 + (GUARD_BYTES + HEADROOM_BYTES) as u64
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
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
        // The context page is read-write and only used by this run (run_lock).
        let limit = unsafe { &*(ctx.add(ContextField::Limit.index()) as *const AtomicU64) };
        limit.store(stack.limit(), Ordering::SeqCst);
        unsafe { *ctx.add(ContextField::State.index()) = st as u64 };
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
