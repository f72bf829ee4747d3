//! `rill-time REPORT PROGRAM [ARGS...]`: runs PROGRAM with this process's standard
//! streams, waits for it and writes to the file REPORT how it ran, on one line:
//!
//! ```text
//! ok START_NS END_NS STATUS UTIME_US STIME_US MAXRSS_KB MINFLT
//! ```
//!
//! `START_NS` and `END_NS` are `CLOCK_MONOTONIC` readings just before the spawn and just
//! after `wait4` returned; `STATUS` is `wait4`'s raw status; the rest is its `rusage`.
//! When PROGRAM cannot be started the line is `error MESSAGE` and the exit code 127.
//!
//! The experiment runner starts every timed process through this small program because of
//! how the kernel counts a child's peak memory: `wait4`'s `ru_maxrss` is the larger of the
//! child's own peak and the peak of the address space the child left at `exec`, which is
//! its parent's. Started from the runner (which holds generated programs of up to a
//! million lines), a small build would report the runner's peak; started from here, the
//! address space left behind is this program's, smaller than any build's, so `ru_maxrss`
//! is the child's own peak exactly.

use std::io::Write;
use std::process::{Command, ExitCode};

fn monotonic_ns() -> u128 {
    // SAFETY: `timespec` is plain old data; the pointer is valid for the call.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(report), Some(program)) = (args.next(), args.next()) else {
        eprintln!("usage: rill-time REPORT PROGRAM [ARGS...]");
        return ExitCode::from(2);
    };
    let write = |line: String| {
        std::fs::File::create(&report).and_then(|mut f| f.write_all(line.as_bytes()))
    };
    let start = monotonic_ns();
    let child = match Command::new(&program).args(args).spawn() {
        Ok(c) => c,
        Err(e) => {
            let msg = format!("cannot start `{}`: {e}", program.to_string_lossy());
            let _ = write(format!("error {}\n", msg.replace('\n', " ")));
            return ExitCode::from(127);
        }
    };
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain old data, zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = loop {
        // SAFETY: waits for our own child; the pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break r;
    };
    let end = monotonic_ns();
    // The child is reaped: `Child`'s own drop does nothing with it.
    drop(child);
    if r != pid {
        let _ = write(format!(
            "error wait4 failed: {}\n",
            std::io::Error::last_os_error()
        ));
        return ExitCode::from(127);
    }
    let us = |t: libc::timeval| t.tv_sec as i64 * 1_000_000 + t.tv_usec as i64;
    let line = format!(
        "ok {start} {end} {status} {} {} {} {}\n",
        us(usage.ru_utime),
        us(usage.ru_stime),
        usage.ru_maxrss,
        usage.ru_minflt
    );
    match write(line) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rill-time: cannot write the report: {e}");
            ExitCode::from(127)
        }
    }
}
