//! `rill-time REPORT PROGRAM [ARGS...]`: runs PROGRAM with this process's standard
//! streams, waits for it and writes to the file REPORT how it ran, one line of
//! `experiments::runner::process::TimeReport` (the runner reads it with the same type):
//! the spawn and exit times, `wait4`'s status and the child's `rusage`. When PROGRAM
//! cannot be started the line is an error and the exit code 127.
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

use experiments::runner::process::{monotonic_ns, TimeReport};

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
            let _ = write(TimeReport::error_line(&msg));
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
        let msg = format!("wait4 failed: {}", std::io::Error::last_os_error());
        let _ = write(TimeReport::error_line(&msg));
        return ExitCode::from(127);
    }
    match write(TimeReport::new(start, end, status, &usage).line()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rill-time: cannot write the report: {e}");
            ExitCode::from(127)
        }
    }
}
