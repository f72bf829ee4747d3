//! How much stack is left, for `execute::ensure_sufficient_stack`.
//!
//! `stacker` finds a thread's stack limit once per thread, on the main thread through
//! `pthread_getattr_np`, which reads and parses `/proc/self/maps` (about 125 thousand
//! instructions, a noticeable part of a small rebuild). On Linux with glibc the main
//! thread's limit is known without it: the stack grows down from the top glibc records
//! (`__libc_stack_end`) by at most the `RLIMIT_STACK` soft limit, which the kernel counts
//! from the top of the stack's mapping, at or above that top (the arguments and the
//! environment lie between them): so the limit found here is at or above the real one.
//! Every other thread, an unlimited stack, and every other platform are left to
//! `stacker`; a stack segment `grow` moves to knows its own limit.

use std::cell::Cell;

/// Not yet found on this thread.
const UNKNOWN: usize = 0;
/// Left to `stacker` on this thread.
const STACKER: usize = 1;
/// Kept free above the limit found (the guard page and then some).
const MARGIN: usize = 64 * 1024;

thread_local! {
    /// The lowest address this thread's current stack may use (or `UNKNOWN`, `STACKER`).
    static LIMIT: Cell<usize> = const { Cell::new(UNKNOWN) };
}

/// An address in the caller's frame.
#[inline(always)]
fn stack_pointer() -> usize {
    let here = 0u8;
    std::hint::black_box(&here) as *const u8 as usize
}

/// The bytes of stack left below the caller, or `None` when `stacker` decides.
#[inline]
pub(crate) fn remaining() -> Option<usize> {
    let mut limit = LIMIT.with(Cell::get);
    if limit == UNKNOWN {
        limit = main_thread_limit().unwrap_or(STACKER);
        LIMIT.with(|l| l.set(limit));
    }
    if limit == STACKER {
        return None;
    }
    Some(stack_pointer().saturating_sub(limit))
}

/// Runs `f` on a new stack segment of `size` bytes, whose limit `remaining` then uses.
pub(crate) fn grow<R>(size: usize, f: impl FnOnce() -> R) -> R {
    /// Puts the outer stack's limit back, also when `f` unwinds.
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(self.0));
        }
    }
    stacker::grow(size, || {
        let outer = LIMIT.with(|l| l.replace(stack_pointer().saturating_sub(size - MARGIN)));
        let _restore = Restore(outer);
        f()
    })
}

/// The main thread's stack limit, when the caller runs on it and it can be found cheaply.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn main_thread_limit() -> Option<usize> {
    extern "C" {
        /// The top of the main thread's stack, as glibc found it at start-up.
        static __libc_stack_end: *const libc::c_void;
    }
    // SAFETY: glibc sets the variable before any code of the program runs.
    let top = unsafe { __libc_stack_end } as usize;
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `rl` is a valid `rlimit` to write.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut rl) } != 0
        || rl.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let size = usize::try_from(rl.rlim_cur).ok()?;
    let here = stack_pointer();
    // On the main thread's stack: just below its top, within the limit.
    if top == 0 || here >= top || top - here >= size {
        return None;
    }
    Some((top - size).saturating_add(MARGIN).max(STACKER + 1))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main_thread_limit() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deep recursion through `ensure_sufficient_stack` moves to new segments instead of
    /// overflowing, on the main thread's stack as on another's, and returns to the
    /// outer stack's limit after each.
    fn depth(n: u32) -> u32 {
        let pad = std::hint::black_box([0u8; 1024]);
        if n == 0 {
            return u32::from(pad[0]);
        }
        crate::execute::ensure_sufficient_stack(|| depth(n - 1)) + 1
    }

    #[test]
    fn deep_recursion_grows_the_stack() {
        let before = LIMIT.with(Cell::get);
        assert_eq!(depth(50_000), 50_000);
        if before != UNKNOWN {
            assert_eq!(LIMIT.with(Cell::get), before);
        }
        let other = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| depth(50_000))
            .unwrap();
        assert_eq!(other.join().unwrap(), 50_000);
    }

    #[test]
    fn the_limit_is_below_the_caller() {
        if let Some(left) = remaining() {
            assert!(left > 0);
        }
    }
}
