//! Per-thread spare buffers: a stage that runs once per function (type checking,
//! lowering, optimizing, code generation) takes its thread's buffers at the start of a
//! call and gives them back at the end, so that many small functions do not allocate
//! them anew each time. A call that finds none (a nested call, or a thread being torn
//! down) starts with new, empty ones. Each user clears what it takes before reading it,
//! so no result depends on what a previous call left.

use std::cell::Cell;
use std::thread::LocalKey;

/// A thread's spare set of buffers. (Boxed, so that taking it out and putting it back
/// moves a pointer.)
pub type Spare<T> = Cell<Option<Box<T>>>;

/// The thread's spare `T`, or a new one when there is none.
#[inline]
pub fn take<T: Default>(key: &'static LocalKey<Spare<T>>) -> Box<T> {
    key.try_with(Cell::take).ok().flatten().unwrap_or_default()
}

/// Gives `bufs` back for the thread's next call.
#[inline]
pub fn give_back<T>(key: &'static LocalKey<Spare<T>>, bufs: Box<T>) {
    let _ = key.try_with(|s| s.set(Some(bufs)));
}
