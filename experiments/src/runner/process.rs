//! Whole-process timing: one new process per build or run, as a user's edit-compile loop
//! runs it. Wall time from spawn to exit, the time of the first byte on stderr (the first
//! diagnostic), the peak resident memory of the child (`VmHWM`, sampled), and a timeout.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What one process did.
#[derive(Clone, Debug, Default)]
pub struct ProcRun {
    pub wall_ms: f64,
    /// The exit code; `None` if killed by a signal or by the timeout.
    pub exit: Option<i32>,
    pub timed_out: bool,
    /// Milliseconds from spawn to the first byte written to stderr.
    pub first_stderr_ms: Option<f64>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub peak_rss_kb: Option<u64>,
}

impl ProcRun {
    /// The first non-empty line of stderr, for status columns.
    pub fn stderr_line(&self) -> String {
        self.stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .chars()
            .take(160)
            .collect()
    }
}

/// Runs `cmd` to completion (or until `timeout`), timing it as a whole.
pub fn run(cmd: &mut Command, timeout: Option<Duration>) -> Result<ProcRun, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{:?}`: {e}", cmd.get_program()))?;
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().ok_or("no stdout pipe")?;
    let mut err = child.stderr.take().ok_or("no stderr pipe")?;
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut first = None;
        let mut chunk = [0u8; 8192];
        loop {
            match err.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if first.is_none() {
                        first = Some(start.elapsed().as_secs_f64() * 1e3);
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
            }
        }
        (buf, first)
    });
    // Reap the child with wait4 in a thread of its own (for its rusage); the main
    // thread enforces the timeout.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut status: libc::c_int = 0;
        // SAFETY: `rusage` is plain old data, zero is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waits for our own child; the pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let wall = start.elapsed().as_secs_f64() * 1e3;
        let _ = tx.send((r, status, usage.ru_maxrss, wall));
    });
    // The child's own peak memory is sampled from `/proc/PID/status` (`VmHWM`, a high-water
    // mark of the address space the child got at `exec`) while it runs: `wait4`'s
    // `ru_maxrss` also counts the memory of the runner it was forked from.
    let mut timed_out = false;
    let mut hwm_kb: Option<u64> = None;
    let deadline = timeout.map(|t| start + t);
    let received = loop {
        if let Some(kb) = vm_hwm_kb(pid) {
            hwm_kb = Some(hwm_kb.map_or(kb, |h| h.max(kb)));
        }
        match rx.recv_timeout(Duration::from_millis(2)) {
            Ok(v) => break Some(v),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            timed_out = true;
            // SAFETY: signals our own, not yet reaped child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            break rx.recv().ok();
        }
    };
    drop(child);
    let stdout = out_reader.join().unwrap_or_default();
    let (stderr, first) = err_reader.join().unwrap_or_default();
    let Some((r, status, _maxrss, wall_ms)) = received else {
        return Err("the process could not be waited for".to_string());
    };
    if r != pid {
        return Err("wait4 failed".to_string());
    }
    let exit = if libc::WIFEXITED(status) && !timed_out {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    Ok(ProcRun {
        wall_ms,
        exit,
        timed_out,
        // The reader thread may be scheduled only after the child was reaped; the first
        // bytes were written before the child ended, so they came no later than that.
        first_stderr_ms: first.map(|f| f.min(wall_ms)),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        // The sampled high-water mark; none when the child ended before the first sample
        // (`ru_maxrss` would be the runner's own memory, not a bound on the child's).
        peak_rss_kb: hwm_kb,
    })
}

/// `VmHWM` of a running process, in KiB.
fn vm_hwm_kb(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_exit_code_stderr_and_timeout() {
        let r = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            None,
        )
        .unwrap();
        assert_eq!(r.exit, Some(3));
        assert_eq!(r.stdout, b"out\n");
        assert_eq!(r.stderr_line(), "err");
        assert!(r.first_stderr_ms.is_some());
        assert!(r.wall_ms > 0.0 && r.wall_ms >= r.first_stderr_ms.unwrap());
        assert!(r.peak_rss_kb.is_none_or(|kb| kb > 0));
        let r = run(
            Command::new("sh").args(["-c", "exec sleep 5"]),
            Some(Duration::from_millis(100)),
        )
        .unwrap();
        assert!(r.timed_out);
        assert_eq!(r.exit, None);
        assert!(r.wall_ms < 4000.0);
    }
}
