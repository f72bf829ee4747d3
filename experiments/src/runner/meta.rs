//! `results/meta.json`: the machine, the toolchain, the commit, the date, the profile and
//! the method of a run, and the load of the machine before and after every experiment.

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

/// The value of the first `key : value` line of `/proc/cpuinfo` whose key is `key`.
fn cpuinfo_field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_string())
}

/// The CPU model from `/proc/cpuinfo`.
fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpuinfo_field(&text, "model name")
}

/// CPU flags that matter for the measurements (vector units, a hypervisor).
const NOTABLE_FLAGS: &[&str] = &[
    "sse4_2",
    "avx",
    "avx2",
    "avx512f",
    "bmi2",
    "aes",
    "sha_ni",
    "hypervisor",
];

/// What `/proc/cpuinfo` says beyond the model name: family, model, stepping, clock, cache
/// and the notable flags of the first CPU.
fn cpu_details() -> serde_json::Value {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else {
        return serde_json::Value::Null;
    };
    let field = |k: &str| cpuinfo_field(&text, k);
    let flags: Vec<&str> = field("flags")
        .map(|f| {
            let present: Vec<String> = f.split_whitespace().map(str::to_string).collect();
            NOTABLE_FLAGS
                .iter()
                .copied()
                .filter(|n| present.iter().any(|p| p == n))
                .collect()
        })
        .unwrap_or_default();
    serde_json::json!({
        "family": field("cpu family"),
        "model": field("model"),
        "stepping": field("stepping"),
        "mhz": field("cpu MHz").and_then(|m| m.parse::<f64>().ok()),
        "cache": field("cache size"),
        "flags": flags.join(" "),
        "virtualized": flags.contains(&"hypervisor"),
    })
}

/// The load averages over 1, 5 and 15 minutes (`/proc/loadavg`).
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// The number of cores the runner may use.
pub fn cores() -> Option<usize> {
    std::thread::available_parallelism().map(|n| n.get()).ok()
}

/// The load of the machine around one experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct ExperimentLoad {
    pub id: String,
    pub before: Option<[f64; 3]>,
    pub after: Option<[f64; 3]>,
    pub seconds: f64,
}

impl ExperimentLoad {
    /// The higher one-minute load average, before or after.
    pub fn max_load(&self) -> Option<f64> {
        [self.before, self.after]
            .iter()
            .flatten()
            .map(|l| l[0])
            .reduce(f64::max)
    }
}

/// The load above which (per core) a run counts as under load: other processes then
/// compete with the measured build for the cores.
pub const LOADED_PER_CORE: f64 = 0.5;

/// `meta.max_load_per_core` (the highest one-minute load average, before or after an
/// experiment, divided by the cores) and `meta.load_sentence` (a sentence for the paper
/// that says whether the run was under load).
pub fn load_values(loads: &[ExperimentLoad], cores: Option<usize>) -> (Option<f64>, String) {
    let max = loads
        .iter()
        .filter_map(ExperimentLoad::max_load)
        .reduce(f64::max);
    let per_core = max.zip(cores).map(|(l, c)| l / c.max(1) as f64);
    let sentence = match (max, per_core) {
        (Some(l), Some(p)) if p > LOADED_PER_CORE => format!(
            "The machine was under load during this run: the one-minute load average \
             reached {l:.2} on {} cores ({p:.2} per core), so other processes competed with \
             the measured builds for the cores, and single numbers are noisier than they \
             would be on an idle machine.",
            cores.unwrap_or(0)
        ),
        (Some(l), Some(p)) => format!(
            "The machine was otherwise idle during this run: the one-minute load average \
             stayed at or below {l:.2} on {} cores ({p:.2} per core).",
            cores.unwrap_or(0)
        ),
        _ => "The load of the machine during this run was not recorded.".to_string(),
    };
    (per_core, sentence)
}

/// `meta.json`'s record of the experiments of a run.
pub fn loads_json(loads: &[ExperimentLoad]) -> serde_json::Value {
    serde_json::Value::Object(
        loads
            .iter()
            .map(|l| {
                (
                    l.id.clone(),
                    serde_json::json!({
                        "load_before": l.before,
                        "load_after": l.after,
                        "seconds": (l.seconds * 10.0).round() / 10.0,
                    }),
                )
            })
            .collect(),
    )
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

/// The selected value of a kernel setting shown as `a [b] c` (the bracketed word), or the
/// whole text when nothing is bracketed.
fn selected_setting(text: &str) -> String {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
        .unwrap_or(text.trim())
        .to_string()
}

/// The kernel's transparent huge page modes (`enabled`, `defrag`). The `rill` binary turns
/// huge pages off for itself (`experiments::alloc::without_huge_pages`), so they only matter
/// for the runner and for rustc, but they are recorded because they change how much a
/// fresh page costs.
fn transparent_huge_pages() -> serde_json::Value {
    let dir = Path::new("/sys/kernel/mm/transparent_hugepage");
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .ok()
            .map(|t| selected_setting(&t))
    };
    serde_json::json!({ "enabled": read("enabled"), "defrag": read("defrag") })
}

/// The kernel's free page reporting, when it is on (`/sys/module/page_reporting`): a guest
/// of a virtual machine then hands free memory back to its host, and a page it touches
/// again may cost the host a fault and a cleared page, which the guest sees as system
/// time. `null` on a machine without it.
pub fn free_page_reporting() -> serde_json::Value {
    let dir = Path::new("/sys/module/page_reporting/parameters");
    let read = |f: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(f))
            .ok()
            .and_then(|t| t.trim().parse().ok())
    };
    match read("page_reporting_order") {
        None => serde_json::Value::Null,
        Some(order) => serde_json::json!({
            "page_reporting_order": order,
            "min_free_ms": read("min_free_ms"),
            "reported_kib": read("reported_kib"),
        }),
    }
}

/// Memory the kernel reported free to the host between `start` and now (both
/// [`free_page_reporting`]), in MiB; `None` without the counter.
pub fn reported_mib_since(start: &serde_json::Value) -> Option<f64> {
    let kib = |v: &serde_json::Value| v.get("reported_kib").and_then(serde_json::Value::as_u64);
    let (a, b) = (kib(start)?, kib(&free_page_reporting())?);
    Some(b.saturating_sub(a) as f64 / 1024.0)
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
            "cpu_details": cpu_details(),
            "os": command_line("uname", &["-srm"], None),
            "kernel": command_line("uname", &["-srv"], None),
            "memory_gib": memory_gib(),
            "transparent_huge_pages": transparent_huge_pages(),
            "free_page_reporting": free_page_reporting(),
        },
        "cores": cores(),
        "commit": command_line("git", &["rev-parse", "HEAD"], Some(repo)),
        "commit_dirty": dirty,
        "rustc": command_line("rustc", &["--version"], None),
        "date": command_line("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"], None),
        "profile": profile.name,
        "sizes": profile.sizes,
        "main_size": profile.main_size,
        "rustc_size": profile.rustc_size,
        "repetitions": profile.reps,
        "run_repetitions": profile.run_reps,
        "warmup_rounds": profile.warmup,
        "method": METHOD,
        "bootstrap": {
            "resamples": super::stats::BOOTSTRAP_RESAMPLES,
            "seed": super::stats::BOOTSTRAP_SEED,
            "interval": "percentile, 2.5 % to 97.5 %",
        },
        "load_at_start": load_average(),
        "build_profile": if cfg!(debug_assertions) { "debug" } else { "release" },
    })
}

/// The measuring method, as `meta.json` states it.
pub const METHOD: &str = "paired, interleaved rounds: every compared configuration is \
built once per round, the order rotating from round to round; warm-up rounds are built and \
discarded; ratios are ratios of medians over the rounds, with a bootstrap interval \
resampling rounds as pairs";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_setting_reads_as_its_bracketed_word() {
        assert_eq!(selected_setting("always [madvise] never\n"), "madvise");
        assert_eq!(selected_setting("[always] madvise never"), "always");
        assert_eq!(selected_setting("1\n"), "1");
    }

    #[test]
    fn load_sentence_says_whether_the_machine_was_loaded() {
        let l = |id: &str, a: f64, b: f64| ExperimentLoad {
            id: id.to_string(),
            before: Some([a, 0.0, 0.0]),
            after: Some([b, 0.0, 0.0]),
            seconds: 1.0,
        };
        let (p, s) = load_values(&[l("e1", 0.2, 3.0), l("e2", 1.0, 0.5)], Some(2));
        assert_eq!(p, Some(1.5));
        assert!(s.contains("under load") && s.contains("3.00"), "{s}");
        let (p, s) = load_values(&[l("e1", 0.2, 0.4)], Some(2));
        assert_eq!(p, Some(0.2));
        assert!(s.contains("idle"), "{s}");
        let (p, s) = load_values(&[], Some(2));
        assert_eq!(p, None);
        assert!(s.contains("not recorded"));
        assert!(load_average().is_some_and(|l| l[0] >= 0.0));
        let j = loads_json(&[l("e1", 0.2, 0.4)]);
        assert_eq!(j["e1"]["load_after"][0], 0.4);
    }
}
