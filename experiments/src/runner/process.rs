//! Whole-process timing: one new process per build or run, as a user's edit-compile loop
//! runs it. Wall time from spawn to exit, the child's CPU time (user and system, from the
//! `rusage` of `wait4`), the time of the first byte on stderr (the first diagnostic), the
//! peak resident memory of the child, and a timeout. [`under_callgrind`] runs the
//! processes started inside it under `valgrind --tool=callgrind` and counts their
//! instructions.

use std::cell::RefCell;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The number of processes started so far by [`run`]: each run's `seq`.
static STARTED: AtomicU64 = AtomicU64::new(0);

/// What one process did.
#[derive(Clone, Debug, Default)]
pub struct ProcRun {
    pub wall_ms: f64,
    /// CPU time of the child in user mode (and of the children it waited for), from
    /// `wait4`'s `ru_utime`.
    pub cpu_user_ms: f64,
    /// CPU time of the child in the kernel, `ru_stime`.
    pub cpu_sys_ms: f64,
    /// Page faults the child took without reading from disk (`ru_minflt`): mostly fresh
    /// memory it touched. With `cpu_sys_ms` it shows what a fresh page cost the kernel.
    pub minor_faults: u64,
    /// The order in which the runner started its processes (1 for the first): shows the
    /// order of the builds of a round.
    pub seq: u64,
    /// The exit code; `None` if killed by a signal or by the timeout.
    pub exit: Option<i32>,
    pub timed_out: bool,
    /// Milliseconds from spawn to the first byte written to stderr.
    pub first_stderr_ms: Option<f64>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub peak_rss_kb: Option<u64>,
    /// Instructions the child executed, when it ran under [`under_callgrind`].
    pub instructions: Option<u64>,
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
    let callgrind = CALLGRIND.with(|c| c.borrow().clone());
    let Some(out_file) = callgrind else {
        return run_direct(cmd, timeout);
    };
    let mut wrapped = wrap_in_callgrind(cmd, &out_file);
    let _ = std::fs::remove_file(&out_file);
    // Callgrind runs the child some fifty times slower.
    let mut r = run_direct(&mut wrapped, timeout.map(|t| t * 50))?;
    r.instructions = std::fs::read_to_string(&out_file)
        .ok()
        .and_then(|t| callgrind_total(&t));
    Ok(r)
}

thread_local! {
    /// The callgrind output file while [`under_callgrind`] runs.
    static CALLGRIND: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
}

/// Runs `f`, with every process [`run`] starts in it (on this thread) under
/// `valgrind --tool=callgrind`, writing its profile to `out_file`; each [`ProcRun`] then
/// has its `instructions`. Call only when [`valgrind`] found the tool.
pub fn under_callgrind<T>(out_file: &Path, f: impl FnOnce() -> T) -> T {
    CALLGRIND.with(|c| *c.borrow_mut() = Some(out_file.to_path_buf()));
    let r = f();
    CALLGRIND.with(|c| *c.borrow_mut() = None);
    r
}

/// `valgrind --version` when valgrind is installed, else why not.
pub fn valgrind() -> Result<String, String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|e| format!("valgrind not found: {e}"))?;
    if !out.status.success() {
        return Err("`valgrind --version` failed".to_string());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `cmd` as the client of `valgrind --tool=callgrind` (same arguments, directory and
/// environment).
fn wrap_in_callgrind(cmd: &Command, out_file: &Path) -> Command {
    let mut w = Command::new("valgrind");
    let mut out_arg = OsString::from("--callgrind-out-file=");
    out_arg.push(out_file);
    w.args(["--tool=callgrind", "--quiet", "--smc-check=all-non-file"])
        .arg(out_arg)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    if let Some(d) = cmd.get_current_dir() {
        w.current_dir(d);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => w.env(k, v),
            None => w.env_remove(k),
        };
    }
    w
}

/// The instruction count of a callgrind output file: its `summary:` line (or `totals:`),
/// whose first number is the `Ir` event.
pub fn callgrind_total(text: &str) -> Option<u64> {
    let line = text
        .lines()
        .find(|l| l.starts_with("summary:"))
        .or_else(|| text.lines().find(|l| l.starts_with("totals:")))?;
    line.split_once(':')?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// [`run`] without callgrind.
fn run_direct(cmd: &mut Command, timeout: Option<Duration>) -> Result<ProcRun, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let seq = STARTED.fetch_add(1, Ordering::Relaxed) + 1;
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
        let _ = tx.send((r, status, usage, wall));
    });
    // The child's peak memory: `wait4`'s `ru_maxrss` is the larger of the child's own peak
    // and the runner's peak at the moment the child was started (the kernel records the
    // memory of the address space the child leaves at `exec`, the runner's). So it is the
    // child's own peak exactly when it exceeds the runner's high-water mark; otherwise the
    // child's `VmHWM`, sampled from `/proc/PID/status` while it runs, is used.
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
    let Some((r, status, usage, wall_ms)) = received else {
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
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    let maxrss_kb = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    let peak_rss_kb = match own_vm_hwm_kb() {
        Some(own) if maxrss_kb > own => Some(maxrss_kb),
        _ => hwm_kb,
    };
    Ok(ProcRun {
        wall_ms,
        cpu_user_ms: ms(usage.ru_utime),
        cpu_sys_ms: ms(usage.ru_stime),
        minor_faults: u64::try_from(usage.ru_minflt).unwrap_or(0),
        seq,
        exit,
        timed_out,
        // The reader thread may be scheduled only after the child was reaped; the first
        // bytes were written before the child ended, so they came no later than that.
        first_stderr_ms: first.map(|f| f.min(wall_ms)),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        // None only when the child stayed below the runner's own peak and ended before
        // the first sample.
        peak_rss_kb,
        instructions: None,
    })
}

/// The runner's own `VmHWM`, in KiB.
fn own_vm_hwm_kb() -> Option<u64> {
    vm_hwm_of("/proc/self/status")
}

/// `VmHWM` of a running process, in KiB.
fn vm_hwm_kb(pid: libc::pid_t) -> Option<u64> {
    vm_hwm_of(&format!("/proc/{pid}/status"))
}

fn vm_hwm_of(path: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
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

    #[test]
    fn cpu_time_and_peak_memory_come_from_rusage() {
        // A child that burns CPU for some 100 ms.
        let r = run(
            Command::new("sh").args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"]),
            None,
        )
        .unwrap();
        assert_eq!(r.exit, Some(0));
        assert!(r.cpu_user_ms + r.cpu_sys_ms > 0.0, "{r:?}");
        assert!(
            r.cpu_user_ms + r.cpu_sys_ms <= r.wall_ms * 2.5 + 20.0,
            "{r:?}"
        );
        assert!(r.peak_rss_kb.is_some_and(|kb| kb > 0), "{r:?}");
        let before = r.seq;
        let r = run(&mut Command::new("true"), None).unwrap();
        assert!(r.seq > before);
    }

    #[test]
    fn reads_callgrind_totals() {
        let text = "version: 1\nevents: Ir\nfn=main\n1 5\nsummary: 123456\n";
        assert_eq!(callgrind_total(text), Some(123456));
        assert_eq!(callgrind_total("totals: 77 1\n"), Some(77));
        assert_eq!(callgrind_total("events: Ir\n"), None);
    }
}
