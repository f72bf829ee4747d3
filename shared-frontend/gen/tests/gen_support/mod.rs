//! Helpers shared by the generator tests: rustc as the oracle, running binaries with a
//! timeout, temporary directories, and case counts from the environment.

#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rill_gen::Program;

/// The number of cases for a randomized test: `RILL_GEN_CASES` if set, else `default`.
pub fn cases(default: u64) -> u64 {
    std::env::var("RILL_GEN_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("rill-gen-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compiles `p` with rustc and the flags of LANGUAGE.md ("The reference implementation").
/// `Ok(binary)` if rustc accepts it, `Err(stderr)` if it rejects it. The binary lives in
/// `dir`.
pub fn rustc(p: &Program, dir: &TempDir) -> Result<PathBuf, String> {
    let src = dir.0.join("src");
    p.write_to(&src).expect("write program");
    let bin = dir.0.join("prog");
    let out = Command::new("rustc")
        .args([
            "--edition",
            "2021",
            "-C",
            "overflow-checks=off",
            "-A",
            "warnings",
        ])
        .args(["-A", "arithmetic_overflow", "-A", "unconditional_panic"])
        .arg("-o")
        .arg(&bin)
        .arg(src.join("main.rs"))
        .output()
        .expect("run rustc");
    if out.status.success() {
        Ok(bin)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Only type-checks `p` (`--emit=metadata`): faster, for accept/reject questions.
pub fn rustc_accepts(p: &Program) -> Result<(), String> {
    let dir = TempDir::new("check");
    let src = dir.0.join("src");
    p.write_to(&src).expect("write program");
    let out = Command::new("rustc")
        .args([
            "--edition",
            "2021",
            "-C",
            "overflow-checks=off",
            "-A",
            "warnings",
        ])
        .args(["-A", "arithmetic_overflow", "-A", "unconditional_panic"])
        .args(["--crate-type", "bin", "--emit=metadata", "--out-dir"])
        .arg(&dir.0)
        .arg(src.join("main.rs"))
        .output()
        .expect("run rustc");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

pub struct RunResult {
    pub code: Option<i32>,
    pub stdout: String,
    pub elapsed: Duration,
}

/// Runs `bin`, killing it after `timeout`; panics on a timeout.
pub fn run(bin: &Path, timeout: Duration) -> RunResult {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn program");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} did not finish within {timeout:?}", bin.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = reader.join().expect("reader thread");
    RunResult {
        code: status.code(),
        stdout,
        elapsed: start.elapsed(),
    }
}

/// Writes a failing program somewhere it survives the test, for inspection.
pub fn keep_failure(p: &Program, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rill-gen-failure-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    p.write_to(&dir).expect("write failing program");
    dir
}

/// The program's text as a sequence of whitespace-separated runs with comments removed:
/// equal for two programs that differ only in whitespace and comments (as long as no
/// whitespace was added or removed inside a line, which those edits never do).
pub fn token_runs(p: &Program) -> Vec<(String, Vec<String>)> {
    p.files
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                strip_comments(&f.text)
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            )
        })
        .collect()
}

/// Removes `//` comments and nested `/* */` comments (string literals in generated
/// programs never contain comment markers).
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        if in_str {
            out.push(b[i] as char);
            if b[i] == b'"' {
                in_str = false;
            }
            i += 1;
        } else if b[i] == b'"' {
            in_str = true;
            out.push('"');
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}
