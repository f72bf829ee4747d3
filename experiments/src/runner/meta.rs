//! `results/meta.json`: the machine, the toolchain, the commit, the date and the profile
//! of a run.

use std::path::Path;
use std::process::Command;

fn command_line(program: &str, args: &[&str], dir: Option<&Path>) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The CPU model from `/proc/cpuinfo`.
fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
}

fn memory_gib() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: f64 = text
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((kb / (1024.0 * 1024.0) * 10.0).round() / 10.0)
}

/// Describes this run. `repo` is the workspace (for the commit).
pub fn collect(repo: &Path, profile: &super::Profile) -> serde_json::Value {
    // What the runner itself rewrites does not count: a run after a run is still clean.
    let dirty = command_line(
        "git",
        &[
            "status",
            "--porcelain",
            "--",
            ".",
            ":(exclude)results",
            ":(exclude)paper/paper.md",
        ],
        Some(repo),
    )
    .map(|s| !s.is_empty())
    .unwrap_or(false);
    serde_json::json!({
        "machine": {
            "cpu": cpu_model(),
            "os": command_line("uname", &["-srm"], None),
            "memory_gib": memory_gib(),
        },
        "cores": std::thread::available_parallelism().map(|n| n.get()).ok(),
        "commit": command_line("git", &["rev-parse", "HEAD"], Some(repo)),
        "commit_dirty": dirty,
        "rustc": command_line("rustc", &["--version"], None),
        "date": command_line("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"], None),
        "profile": profile.name,
        "sizes": profile.sizes,
        "main_size": profile.main_size,
        "rustc_size": profile.rustc_size,
        "repetitions": profile.reps,
        "build_profile": if cfg!(debug_assertions) { "debug" } else { "release" },
    })
}
