//! Whole-process timing: one new process per build or run, as a user's edit-compile loop
//! runs it. Every process is started through the small `rill-time` program, which
//! measures it: wall time from spawn to exit, the child's CPU time (user and system, from
//! the `rusage` of `wait4`) and its peak resident memory (`ru_maxrss`, exact because the
//! address space the child leaves at `exec` is `rill-time`'s, not the runner's); the
//! runner adds the time of the first byte on stderr (the first diagnostic) and a timeout. [`under_callgrind`] runs the
//! processes started inside it under `valgrind --tool=callgrind` and counts their
//! instructions.

use std::cell::RefCell;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::OnceLock;
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

/// `cmd` as the client of `valgrind --tool=callgrind`.
fn wrap_in_callgrind(cmd: &Command, out_file: &Path) -> Command {
    let mut out_arg = OsString::from("--callgrind-out-file=");
    out_arg.push(out_file);
    let args = ["--tool=callgrind", "--quiet", "--smc-check=all-non-file"];
    let mut prefix: Vec<OsString> = args.iter().map(OsString::from).collect();
    prefix.push(out_arg);
    wrap("valgrind".as_ref(), &prefix, cmd)
}

/// `program prefix... cmd's-program cmd's-args...`, in `cmd`'s directory and with its
/// environment changes.
fn wrap(program: &std::ffi::OsStr, prefix: &[OsString], cmd: &Command) -> Command {
    let mut w = Command::new(program);
    w.args(prefix).arg(cmd.get_program()).args(cmd.get_args());
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

/// [`run`] without callgrind: `cmd` started through `rill-time` (see that program for
/// why), which reports the child's times and `rusage`.
fn run_direct(cmd: &mut Command, timeout: Option<Duration>) -> Result<ProcRun, String> {
    let helper = time_helper()?;
    let seq = STARTED.fetch_add(1, Ordering::Relaxed) + 1;
    let report = std::env::temp_dir().join(format!("rill-time-{}-{seq}", std::process::id()));
    let _ = std::fs::remove_file(&report);
    let mut wrapped = wrap(helper.as_os_str(), &[report.clone().into_os_string()], cmd);
    wrapped
        // A group of its own, so that a timeout kills the child with its trampoline.
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let start_ns = monotonic_ns();
    let mut child = wrapped
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", helper.display()))?;
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
                        first = Some(monotonic_ns());
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
            }
        }
        (buf, first)
    });
    // Reap the trampoline in a thread of its own; the main thread enforces the timeout.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut status: libc::c_int = 0;
        // SAFETY: waits for our own child; the pointer is valid for the call.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        let _ = tx.send((r, status));
    });
    let mut timed_out = false;
    let received = match timeout {
        None => rx.recv().ok(),
        Some(t) => match rx.recv_timeout(t) {
            Ok(v) => Some(v),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                timed_out = true;
                // SAFETY: signals the process group of our own, not yet reaped child.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                rx.recv().ok()
            }
        },
    };
    let runner_wall_ms = start.elapsed().as_secs_f64() * 1e3;
    drop(child);
    let stdout = out_reader.join().unwrap_or_default();
    let (stderr, first) = err_reader.join().unwrap_or_default();
    let Some((r, _)) = received else {
        return Err("the process could not be waited for".to_string());
    };
    if r != pid {
        return Err("waitpid failed".to_string());
    }
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    if timed_out {
        return Ok(ProcRun {
            wall_ms: runner_wall_ms,
            seq,
            timed_out,
            stdout,
            stderr,
            ..ProcRun::default()
        });
    }
    let t = TimeReport::parse(&text).map_err(|e| {
        let line = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        format!("{e} {line}").trim_end().to_string()
    })?;
    let wall_ms = t.end_ns.saturating_sub(t.start_ns) as f64 / 1e6;
    // The child was started after `start_ns` of this process's clock and of the
    // trampoline's (the same clock), so a first byte is timed from the child's start.
    let first_stderr_ms = first.map(|f| {
        let since = f.saturating_sub(t.start_ns.max(start_ns)) as f64 / 1e6;
        // The reader thread may be scheduled only after the child was reaped; the first
        // bytes were written before the child ended, so they came no later than that.
        since.min(wall_ms)
    });
    let exit = if libc::WIFEXITED(t.status) {
        Some(libc::WEXITSTATUS(t.status))
    } else {
        None
    };
    Ok(ProcRun {
        wall_ms,
        cpu_user_ms: t.utime_us as f64 / 1e3,
        cpu_sys_ms: t.stime_us as f64 / 1e3,
        minor_faults: t.minflt,
        seq,
        exit,
        timed_out,
        first_stderr_ms,
        stdout,
        stderr,
        peak_rss_kb: Some(t.maxrss_kb),
        instructions: None,
    })
}

/// `CLOCK_MONOTONIC` in nanoseconds (the clock `rill-time` reports in).
pub fn monotonic_ns() -> u128 {
    // SAFETY: `timespec` is plain old data; the pointer is valid for the call.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

/// What `rill-time` reports about one child: [`monotonic_ns`] just before the spawn and
/// just after `wait4` returned, `wait4`'s raw status and its `rusage`. In the report
/// file it is one line, `ok START_NS END_NS STATUS UTIME_US STIME_US MAXRSS_KB MINFLT`,
/// or `error MESSAGE` when the child could not be started or waited for.
#[derive(Debug, PartialEq, Eq)]
pub struct TimeReport {
    pub start_ns: u128,
    pub end_ns: u128,
    pub status: libc::c_int,
    pub utime_us: u64,
    pub stime_us: u64,
    pub maxrss_kb: u64,
    pub minflt: u64,
}

impl TimeReport {
    /// The report of a child reaped with `status` and `usage`.
    pub fn new(start_ns: u128, end_ns: u128, status: libc::c_int, usage: &libc::rusage) -> Self {
        let us = |t: libc::timeval| u64::try_from(t.tv_sec * 1_000_000 + t.tv_usec).unwrap_or(0);
        TimeReport {
            start_ns,
            end_ns,
            status,
            utime_us: us(usage.ru_utime),
            stime_us: us(usage.ru_stime),
            maxrss_kb: u64::try_from(usage.ru_maxrss).unwrap_or(0),
            minflt: u64::try_from(usage.ru_minflt).unwrap_or(0),
        }
    }

    /// The report file's line.
    pub fn line(&self) -> String {
        let TimeReport {
            start_ns,
            end_ns,
            status,
            utime_us,
            stime_us,
            maxrss_kb,
            minflt,
        } = self;
        format!("ok {start_ns} {end_ns} {status} {utime_us} {stime_us} {maxrss_kb} {minflt}\n")
    }

    /// The report file's line for a child that could not be run.
    pub fn error_line(msg: &str) -> String {
        format!("error {}\n", msg.replace('\n', " "))
    }

    /// A report file's text: the report, or the error it gives.
    pub fn parse(text: &str) -> Result<TimeReport, String> {
        let line = text.lines().next().unwrap_or("");
        if let Some(msg) = line.strip_prefix("error ") {
            return Err(msg.to_string());
        }
        let bad = || format!("`rill-time` gave no report (`{line}`)");
        let mut f = line.strip_prefix("ok ").ok_or_else(bad)?.split(' ');
        let mut next = || f.next().ok_or_else(bad);
        let num = |s: &str| s.parse::<u128>().map_err(|_| bad());
        Ok(TimeReport {
            start_ns: num(next()?)?,
            end_ns: num(next()?)?,
            status: next()?.parse().map_err(|_| bad())?,
            utime_us: num(next()?)? as u64,
            stime_us: num(next()?)? as u64,
            maxrss_kb: num(next()?)? as u64,
            minflt: num(next()?)? as u64,
        })
    }
}

/// The `rill-time` binary, next to the running executable (or one directory up, from a
/// test binary in `deps/`); [`super::rill::locate_rill`] builds it under `cargo run`.
fn time_helper() -> Result<&'static Path, String> {
    static HELPER: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    HELPER
        .get_or_init(|| super::rill::locate_bin("rill-time"))
        .as_deref()
        .map_err(Clone::clone)
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
        assert!(r.peak_rss_kb.is_some_and(|kb| kb > 0));
        // The timeout kills the child's descendants too: a `sleep` left running would
        // hold the output pipes open, and `run` would wait for it.
        let t = Instant::now();
        let r = run(
            Command::new("sh").args(["-c", "sleep 5; echo late"]),
            Some(Duration::from_millis(100)),
        )
        .unwrap();
        assert!(r.timed_out);
        assert_eq!(r.exit, None);
        assert!(r.wall_ms < 4000.0);
        assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
        assert!(r.stdout.is_empty());
    }

    #[test]
    fn peak_memory_is_the_childs_own_not_the_runners() {
        // The runner's own peak: 96 MB touched.
        let big = vec![1u8; 96 << 20];
        assert_eq!(
            big.iter().step_by(4096).map(|&b| b as usize).sum::<usize>(),
            96 << 8
        );
        // A small child reports its own peak, far below the runner's.
        let r = run(Command::new("sh").args(["-c", "exit 0"]), None).unwrap();
        let small = r.peak_rss_kb.unwrap();
        assert!(small > 0 && small < 48 << 10, "{r:?}");
        // A child that holds 40 MB reports at least that.
        let r = run(
            Command::new("sh").args([
                "-c",
                "x=$(head -c 40000000 /dev/zero | tr '\\0' a); echo ${#x}",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&r.stdout).trim(),
            "40000000",
            "{r:?}"
        );
        assert!(r.peak_rss_kb.unwrap() >= 40_000_000 / 1024, "{r:?}");
        drop(big);
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error() {
        let e = run(&mut Command::new("/nonexistent/program"), None).unwrap_err();
        assert!(e.contains("cannot start `/nonexistent/program`"), "{e}");
    }

    #[test]
    fn reads_time_reports() {
        let r = TimeReport::parse("ok 10 2000010 768 1500 250 4096 77\n").unwrap();
        assert_eq!(
            r,
            TimeReport {
                start_ns: 10,
                end_ns: 2000010,
                status: 768,
                utime_us: 1500,
                stime_us: 250,
                maxrss_kb: 4096,
                minflt: 77,
            }
        );
        assert_eq!(TimeReport::parse(&r.line()), Ok(r));
        let e = TimeReport::error_line("cannot start `x`:\nno such file");
        assert_eq!(
            TimeReport::parse(&e).unwrap_err(),
            "cannot start `x`: no such file"
        );
        assert_eq!(
            TimeReport::parse("error no such file").unwrap_err(),
            "no such file"
        );
        assert!(TimeReport::parse("").is_err());
        assert!(TimeReport::parse("ok 1 2 3").is_err());
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
