//! E8: rustc on the same programs and edits, at every size of `profile.rustc_sizes`.
//!
//! At each size, rustc and Rill build the same generated program in the scenarios of
//! rustc-perf: from scratch (`full`), incremental on an empty cache (`incr-full`), after no
//! change (`incr-unchanged`), and after each kind of edit E3 measures that yields a program
//! rustc accepts (`incr-patched:<edit>`, every kind but the introduced and the fixed
//! error; E3's cases, not a generator of their own). All configurations of a size are built in
//! the same rounds ([`interleave`]), the headline size (`profile.rustc_size`) in
//! `profile.reps` rounds, the others in `profile.rustc_other_reps`.
//!
//! rustc's builds compile and link an executable and do not run it, so Rill's builds here
//! compile and link without running the program (`rill build`; the other experiments time
//! `rill run`, the program's short run included).
//!
//! rustc reads and hashes every source file in every build, so Rill's query rows compared
//! with it (`rill-query`) find changed files the same way (`--change-detection hash`).
//! The rows `rill-query-stat` are the incremental rebuilds with Rill's default, which
//! reads only the files whose metadata changed (`--change-detection stat`).
//!
//! rustc's own breakdown: one more, untimed build of each of the four scenarios of
//! rustc-perf (the leaf-body edit as the patch) at the headline size, with `-Z time-passes`
//! (`RUSTC_BOOTSTRAP=1` on a stable toolchain), into `e08-rustc-phases.csv`; Rill's
//! phases of the timed builds go to `e08-phases.csv`. (`-Z self-profile` needs
//! measureme's `summarize` to be read, which the toolchain does not ship.)

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rill_gen::{EditKind, Program};

use super::e03_edits::{edit_cases, EditCase};
use super::measure::{
    interleave, phase_rows, process_side, row_from, scratch_side, IncrementalRun, Side,
};
use super::readout::median;
use super::SEED;
use crate::runner::phases::{self, PhaseRow};
use crate::runner::process::{self, ProcRun};
use crate::runner::rill::{Mode, NoMeasurement};
use crate::runner::table;
use crate::runner::workload::{OnDisk, Shape};
use crate::runner::{Ctx, Outcome};

/// The oracle's rustc flags, for the runner and the oracle test (LANGUAGE.md "The reference
/// implementation").
pub const RUSTC_FLAGS: &[&str] = &[
    "--edition",
    "2021",
    "-C",
    "overflow-checks=off",
    "-A",
    "warnings",
    "-A",
    "arithmetic_overflow",
    "-A",
    "unconditional_panic",
];

/// The rustc command building `root` into `out`, incremental in `incr` if given.
fn rustc_command(root: &Path, out: &Path, incr: Option<&Path>, opt: &str) -> Command {
    let mut cmd = Command::new("rustc");
    cmd.args(RUSTC_FLAGS)
        .arg("-C")
        .arg(format!("opt-level={opt}"))
        .arg(root)
        .arg("-o")
        .arg(out);
    if let Some(dir) = incr {
        cmd.arg("-C").arg(format!("incremental={}", dir.display()));
    }
    cmd
}

/// Runs a rustc command; a failure is an error with rustc's first line of stderr.
fn run_rustc(mut cmd: Command, timeout: Option<Duration>) -> Result<ProcRun, String> {
    let r = process::run(&mut cmd, timeout)?;
    match r.exit {
        Some(0) => Ok(r),
        _ => Err(format!("rustc failed: {}", r.stderr_line())),
    }
}

/// One rustc build of `root` into `out`, incremental in `incr` if given; timed.
pub fn rustc_build(
    root: &Path,
    out: &Path,
    incr: Option<&Path>,
    opt: &str,
    timeout: Option<Duration>,
) -> Result<ProcRun, String> {
    run_rustc(rustc_command(root, out, incr, opt), timeout)
}

/// The scenarios of rustc-perf that do not depend on an edit, in order.
const BASE: [&str; 3] = ["full", "incr-full", "incr-unchanged"];

/// The scenario of the incremental rebuild after the edit `name` (an E3 case).
pub fn patched(name: &str) -> String {
    format!("incr-patched:{name}")
}

/// The edit of the headline numbers and of rustc's breakdown.
pub const LEAF: &str = "leaf-body";

/// The ratios E8 reports for each scenario (as row `ratio:<what>:<scenario>` at the size,
/// and value `e8.s<size>.<scenario>.<key>`): (what, key, numerator's architecture,
/// denominator's architecture, whether the denominator is the `full` scenario).
pub const RATIOS: [(&str, &str, &str, &str, bool); 4] = [
    ("rustc/full", "rustc_ratio", "rustc", "rustc", true),
    ("rill/full", "rill_ratio", "rill-query", "rill-query", true),
    (
        "rill-stat/full",
        "rill_stat_ratio",
        "rill-query-stat",
        "rill-query",
        true,
    ),
    (
        "rill/rustc",
        "rill_over_rustc",
        "rill-query",
        "rustc",
        false,
    ),
];

/// The scenario of the ratio row of `what` (one of [`RATIOS`]) for `scenario`.
pub fn ratio_scenario(what: &str, scenario: &str) -> String {
    format!("ratio:{what}:{scenario}")
}

/// A scenario as part of a value's key: `incr-patched:leaf-body` → `incr_patched_leaf_body`.
fn key_part(scenario: &str) -> String {
    scenario.replace(['-', ':'], "_")
}

/// The options of Rill's query builds compared with rustc.
const HASH: &[&str] = &["--change-detection", "hash"];

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let mut sizes = ctx.profile.rustc_sizes.clone();
    if !sizes.contains(&ctx.profile.rustc_size) {
        sizes.push(ctx.profile.rustc_size);
    }
    sizes.sort_unstable();
    ctx.start_progress("E8", sizes.len() as u64);
    let mut passes = Vec::new();
    let mut failed = Vec::new();
    for &size in &sizes {
        if let Err(why) = measure_size(ctx, size, &mut o, &mut passes) {
            o.rows.push(
                table::Row::new("full", "rustc", size).without_number(format!("failed: {why}")),
            );
            failed.push(format!("{size} lines: {why}"));
        }
        ctx.step();
    }
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    o.warnings.extend(failed);
    let mut cases: Vec<String> = Vec::new();
    for r in &o.rows {
        if r.scenario.starts_with("incr-patched:")
            && r.architecture == "rustc"
            && !cases.contains(&r.scenario)
        {
            cases.push(r.scenario.clone());
        }
    }
    for &size in &sizes {
        size_values(&mut o, size, &cases);
    }
    o.files
        .push(("e08-rustc-phases.csv".to_string(), passes_csv(&passes)?));
    values(ctx, &mut o, ctx.profile.rustc_size, &sizes);
    Ok(o)
}

/// The rows, Rill's phase rows and rustc's passes of one size, all of its configurations
/// in the same rounds.
fn measure_size(
    ctx: &Ctx,
    size: usize,
    o: &mut Outcome,
    passes: &mut Vec<PassRow>,
) -> Result<(), String> {
    let reps = if size == ctx.profile.rustc_size {
        ctx.profile.reps
    } else {
        ctx.profile.rustc_other_reps
    };
    let dir = ctx.dir(&format!("e8-{size}"));
    let program = ctx.program(Shape::Default, size, SEED);
    let lines = program.total_lines();
    // One case per kind of edit (not E3's `leaf-body-folded`, a second leaf-body edit).
    let cases: Vec<EditCase> = edit_cases(ctx, Shape::Default, &program, size)
        .into_iter()
        .filter(|c| c.error_build.is_none() && c.expect_after == [0])
        .filter(|c| EditKind::ALL.iter().any(|k| k.name() == c.name))
        .collect();
    let rustc = RustcProgram::new(ctx, &dir, &program)?;
    let rill_disk = OnDisk::create(&dir.join("rill-prog"), program.clone())?;
    let rill_root = rill_disk.root();
    let cache = dir.join("rill-cache");
    ctx.set_message(&format!("rustc and rill, {size} lines"));
    // The configurations, in the order of their sides: (scenario, architecture).
    let mut configs: Vec<(String, &str)> = BASE.iter().map(|s| (s.to_string(), "rustc")).collect();
    let mut sides: Vec<Side<'_>> = vec![rustc.full(), rustc.incr_full(), rustc.rebuild(None)];
    for c in &cases {
        configs.push((patched(&c.name), "rustc"));
        sides.push(rustc.rebuild(Some(&c.after)));
    }
    configs.extend([
        ("full".to_string(), "rill-pipeline"),
        ("full".to_string(), "rill-query"),
        ("incr-full".to_string(), "rill-query"),
    ]);
    sides.extend([
        scratch_side(ctx, Mode::Build, &rill_root, "pipeline", None, &[]),
        scratch_side(ctx, Mode::Build, &rill_root, "query", None, HASH),
        scratch_side(ctx, Mode::Build, &rill_root, "query", Some(&cache), HASH),
    ]);
    // The incremental histories are built once their files are settled (not racy), as a
    // program saved before it is built is, so that the stat rows measure a rebuild after
    // no change rather than after the program was written.
    for (arch, detection) in [("rill-query", "hash"), ("rill-query-stat", "stat")] {
        let work = dir.join(format!("rill-unchanged-{detection}"));
        configs.push(("incr-unchanged".to_string(), arch));
        sides.push(incremental(ctx, work, &program, None, detection));
        for c in &cases {
            let work = dir.join(format!("rill-{}-{detection}", c.name));
            configs.push((patched(&c.name), arch));
            sides.push(incremental(ctx, work, &program, Some(&c.after), detection));
        }
    }
    let runs = interleave(ctx, reps, sides);
    for ((scenario, arch), runs) in configs.iter().zip(&runs) {
        let mut row = row_from(ctx, scenario, arch, size, runs);
        row.lines = Some(lines);
        if let Some(c) = cases.iter().find(|c| patched(&c.name) == *scenario) {
            row.note = c.description.clone();
        }
        o.rows.push(row);
        if arch.starts_with("rill") {
            for mut p in phase_rows(scenario, arch, size, runs) {
                p.lines = Some(lines);
                p.build = format!("{arch}, {scenario}");
                o.phases.push(p);
            }
        }
    }
    // rustc's breakdown, untimed, after the timed rounds, at the headline size (the paper
    // compares the breakdowns there; at the larger sizes each build takes seconds).
    if size != ctx.profile.rustc_size {
        return Ok(());
    }
    ctx.set_message(&format!("rustc -Z time-passes, {size} lines"));
    let leaf = cases.iter().find(|c| c.name == LEAF);
    let mut breakdown: Vec<(String, Option<&Program>)> =
        BASE.iter().map(|s| (s.to_string(), None)).collect();
    if let Some(c) = leaf {
        breakdown.push((patched(LEAF), Some(&c.after)));
    }
    for (scenario, edited) in breakdown {
        match rustc.passes(&scenario, edited) {
            Ok(p) => passes.extend(p.into_iter().map(|(pass, ms)| PassRow {
                scenario: scenario.clone(),
                size,
                lines,
                group: group_of(&pass).unwrap_or("").to_string(),
                pass,
                ms,
            })),
            Err(why) => o.warnings.push(format!(
                "rustc's breakdown of {scenario} at {size} lines: {why}"
            )),
        }
    }
    Ok(())
}

/// Rill's incremental rebuild of `program` in the work directory `work`, after no change
/// or after writing `edited`, detecting changes by `detection`.
fn incremental<'a>(
    ctx: &'a Ctx,
    work: PathBuf,
    program: &'a Program,
    edited: Option<&'a Program>,
    detection: &'static str,
) -> Side<'a> {
    let run = IncrementalRun::new(ctx, work, program)
        .mode(Mode::Build)
        .change_detection(detection);
    match edited {
        Some(after) => run.edited(after).side(),
        None => run.side(),
    }
}

/// rustc's program of one size: its files (always at the same path, which rustc's
/// incremental cache depends on), the executable every build writes, and the incremental
/// directory an incremental build of the program left, from which every rebuild starts.
struct RustcProgram<'c> {
    ctx: &'c Ctx,
    dir: PathBuf,
    disk: RefCell<OnDisk>,
    root: PathBuf,
    exe: PathBuf,
    snapshot: PathBuf,
    /// Why the snapshot could not be built, if it could not.
    snapshot_failed: Option<String>,
}

impl<'c> RustcProgram<'c> {
    fn new(ctx: &'c Ctx, dir: &Path, program: &Program) -> Result<Self, String> {
        let disk = OnDisk::create(&dir.join("prog"), program.clone())?;
        let root = disk.root();
        let exe = dir.join("prog.bin");
        let snapshot = dir.join("incr-snapshot");
        let _ = std::fs::remove_dir_all(&snapshot);
        let snapshot_failed = rustc_build(&root, &exe, Some(&snapshot), "0", ctx.timeout()).err();
        Ok(RustcProgram {
            ctx,
            dir: dir.to_path_buf(),
            disk: RefCell::new(disk),
            root,
            exe,
            snapshot,
            snapshot_failed,
        })
    }

    /// From scratch, without an incremental directory.
    fn full(&self) -> Side<'_> {
        process_side(move || rustc_build(&self.root, &self.exe, None, "0", self.ctx.timeout()))
    }

    /// Incremental, on an empty directory.
    fn incr_full(&self) -> Side<'_> {
        let incr = self.dir.join("incr-full");
        process_side(move || {
            let _ = std::fs::remove_dir_all(&incr);
            rustc_build(&self.root, &self.exe, Some(&incr), "0", self.ctx.timeout())
        })
    }

    /// Incremental on a restored snapshot, after no change or after writing `edited`
    /// (the program is written back after the build).
    fn rebuild<'s>(&'s self, edited: Option<&'s Program>) -> Side<'s> {
        if let Some(why) = &self.snapshot_failed {
            return Err(NoMeasurement::Failed(why.clone()));
        }
        let incr = self.dir.join("incr-rebuild");
        process_side(move || {
            self.prepare(&incr, edited, |incr| {
                rustc_build(&self.root, &self.exe, Some(incr), "0", self.ctx.timeout())
            })
        })
    }

    /// Restores the snapshot into `incr`, writes `edited` (if any), runs `build`, and
    /// writes the program back.
    fn prepare(
        &self,
        incr: &Path,
        edited: Option<&Program>,
        build: impl FnOnce(&Path) -> Result<ProcRun, String>,
    ) -> Result<ProcRun, String> {
        link_dir(&self.snapshot, incr).map_err(|e| format!("incremental snapshot: {e}"))?;
        let Some(after) = edited else {
            return build(incr);
        };
        let mut disk = self.disk.borrow_mut();
        let before = disk.program.clone();
        disk.replace(after.clone())?;
        let r = build(incr);
        disk.replace(before)?;
        r
    }

    /// One untimed build of `scenario` (one of [`BASE`], or a patched one with the
    /// program `edited`) with `-Z time-passes`: every pass rustc reports, in its order,
    /// with its time in ms.
    fn passes(
        &self,
        scenario: &str,
        edited: Option<&Program>,
    ) -> Result<Vec<(String, f64)>, String> {
        let t = self.ctx.timeout();
        let with_passes = |incr: Option<&Path>| {
            let mut cmd = rustc_command(&self.root, &self.exe, incr, "0");
            cmd.env("RUSTC_BOOTSTRAP", "1").args(["-Z", "time-passes"]);
            run_rustc(cmd, t)
        };
        let run = match scenario {
            "full" => with_passes(None)?,
            "incr-full" => {
                let incr = self.dir.join("incr-passes");
                let _ = std::fs::remove_dir_all(&incr);
                with_passes(Some(&incr))?
            }
            _ => {
                if let Some(why) = &self.snapshot_failed {
                    return Err(why.clone());
                }
                let incr = self.dir.join("incr-passes");
                self.prepare(&incr, edited, |incr| with_passes(Some(incr)))?
            }
        };
        let p = parse_time_passes(&run.stderr);
        if p.is_empty() {
            return Err(format!("no `-Z time-passes` output: {}", run.stderr_line()));
        }
        Ok(p)
    }
}

/// The program sizes E8's rows measured rustc at, smallest first.
pub fn rustc_sizes(rows: &[crate::runner::table::Row]) -> Vec<usize> {
    let mut sizes: Vec<usize> = rows
        .iter()
        .filter(|r| r.architecture == "rustc" && r.size > 0)
        .map(|r| r.size)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Replaces `to` by a copy of the tree `from` made of hard links (a plain copy where a
/// link fails). rustc never writes into a file of its incremental directory: a new
/// session starts from hard links to the previous session's files, and rustc deletes a
/// file before it writes a new one of the same name, so a snapshot restored by links is
/// left intact. (A copy of the directory rustc leaves at 100,000 lines, half a gigabyte,
/// took seconds per build.)
fn link_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    crate::runner::replace_tree(from, to, &|from, to| {
        std::fs::hard_link(from, to).or_else(|_| std::fs::copy(from, to).map(drop))
    })
}

/// The passes of rustc's `-Z time-passes` output on stderr (`time:   0.088; rss: … name`),
/// in order, with their times in ms; other lines are ignored. Passes nest (`link` holds
/// `link_crate`, which holds `link_binary`, ...), and `total` is the whole compilation.
pub fn parse_time_passes(stderr: &str) -> Vec<(String, f64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("time:")?;
            let (secs, _) = rest.split_once(';')?;
            let secs: f64 = secs.trim().parse().ok()?;
            let name = l.split_whitespace().last()?;
            Some((name.to_string(), secs * 1e3))
        })
        .collect()
}

/// The groups in which the two compilers' times are compared, and the outermost passes
/// of rustc's (of `-Z time-passes`) and phases of Rill's that make each. What neither
/// names is `other`: for rustc, among others, loading the previous session's dependency
/// graph and query results, which it does not time as a pass.
pub const GROUPS: [(&str, &[&str], &[&str]); 4] = [
    (
        "frontend",
        &[
            "parse_crate",
            "expand_crate",
            "resolve_crate",
            "misc_checking_1",
            "type_check_crate",
            "MIR_borrow_checking",
            "misc_checking_3",
        ],
        &[
            "parse",
            "items",
            "resolve",
            "collect",
            "consteval",
            "typeck",
            "check",
        ],
    ),
    (
        "codegen",
        &["codegen_crate", "finish_ongoing_codegen"],
        &["lower", "optimize", "codegen"],
    ),
    ("link", &["link"], &["link"]),
    (
        "cache",
        &[
            "incr_comp_prepare_session_directory",
            "incr_comp_garbage_collect_session_directories",
            "serialize_dep_graph",
            "serialize_work_products",
        ],
        &["load_cache", "save_cache"],
    ),
];

/// The group (of [`GROUPS`]) a pass of rustc's counts in, if it is an outermost one.
fn group_of(pass: &str) -> Option<&'static str> {
    GROUPS
        .iter()
        .find(|(_, rustc, _)| rustc.contains(&pass))
        .map(|(g, _, _)| *g)
}

/// One pass of one untimed rustc build with `-Z time-passes`: a row of
/// `e08-rustc-phases.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct PassRow {
    pub scenario: String,
    /// The nominal program size.
    pub size: usize,
    /// The actual line count of the program.
    pub lines: usize,
    /// rustc's name of the pass.
    pub pass: String,
    /// The group of [`GROUPS`] the pass counts in (empty for passes nested in others and
    /// for those no group takes).
    pub group: String,
    pub ms: f64,
}

/// The columns of `e08-rustc-phases.csv`.
pub const PASS_COLUMNS: [&str; 6] = ["scenario", "size", "lines", "pass", "group", "ms"];

/// `e08-rustc-phases.csv`: every pass of every breakdown build, in rustc's order.
fn passes_csv(rows: &[PassRow]) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| format!("e08-rustc-phases.csv: {e}");
    w.write_record(PASS_COLUMNS).map_err(err)?;
    for r in rows {
        w.write_record([
            r.scenario.clone(),
            r.size.to_string(),
            r.lines.to_string(),
            r.pass.clone(),
            r.group.clone(),
            r.ms.to_string(),
        ])
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// Reads `e08-rustc-phases.csv` (nothing when it is missing or unreadable).
pub fn read_passes_csv(path: &Path) -> Vec<PassRow> {
    let Ok(mut rd) = csv::Reader::from_path(path) else {
        return Vec::new();
    };
    rd.records()
        .flatten()
        .filter_map(|r| {
            Some(PassRow {
                scenario: r.get(0)?.to_string(),
                size: r.get(1)?.parse().ok()?,
                lines: r.get(2)?.parse().ok()?,
                pass: r.get(3)?.to_string(),
                group: r.get(4)?.to_string(),
                ms: r.get(5)?.parse().ok()?,
            })
        })
        .collect()
}

/// Where each compiler spends a build of `scenario` at `size`: the shares of the groups
/// of [`GROUPS`] and of `other` in rustc's breakdown build (of its `total` pass) and in
/// Rill's query builds (medians of the phases of `rill`, E8's phase rows, of the
/// compiler's own time, without the process's).
pub fn phase_comparison(
    passes: &[PassRow],
    rill: &[PhaseRow],
    scenario: &str,
    size: usize,
) -> [Option<Vec<(&'static str, f64)>>; 2] {
    let of_rustc: Vec<(String, f64)> = passes
        .iter()
        .filter(|r| r.scenario == scenario && r.size == size)
        .map(|r| (r.pass.clone(), r.ms))
        .collect();
    let total = of_rustc
        .iter()
        .find(|(p, _)| p == "total")
        .map_or(0.0, |(_, ms)| *ms);
    let of_rill: Vec<(String, f64)> = rill
        .iter()
        .filter(|r| r.scenario == scenario && r.architecture == "rill-query" && r.size == size)
        .filter(|r| r.phase != phases::PROCESS)
        .map(|r| (r.phase.clone(), r.ms))
        .collect();
    let rill_total: f64 = of_rill.iter().map(|(_, ms)| ms).sum();
    [
        group_shares(&of_rustc, total, group_of),
        group_shares(&of_rill, rill_total, rill_group_of),
    ]
}

/// Each group's share of a build's time, and the rest's (`other`), from (name, ms) parts
/// and the build's total; `None` without a positive total.
pub fn group_shares(
    parts: &[(String, f64)],
    total: f64,
    of: impl Fn(&str) -> Option<&'static str>,
) -> Option<Vec<(&'static str, f64)>> {
    if total <= 0.0 || !total.is_finite() {
        return None;
    }
    let mut out: Vec<(&'static str, f64)> = GROUPS.iter().map(|(g, _, _)| (*g, 0.0)).collect();
    for (name, ms) in parts {
        if let Some(g) = of(name) {
            if let Some(slot) = out.iter_mut().find(|(n, _)| *n == g) {
                slot.1 += ms;
            }
        }
    }
    let grouped: f64 = out.iter().map(|(_, ms)| ms).sum();
    out.push(("other", (total - grouped).max(0.0)));
    Some(out.into_iter().map(|(g, ms)| (g, ms / total)).collect())
}

/// The group of [`GROUPS`] a phase of Rill's counts in.
fn rill_group_of(phase: &str) -> Option<&'static str> {
    GROUPS
        .iter()
        .find(|(_, _, rill)| rill.contains(&phase))
        .map(|(g, _, _)| *g)
}

/// The values of one size: for every scenario the median of each compiler
/// (`e8.s<size>.<scenario>.rustc_ms`, `rill_ms`, `rill_stat_ms`, `pipeline_ms`) and the
/// ratios of [`RATIOS`] with their intervals (and ratio rows), for the scenarios of
/// rustc-perf and the rebuilds after every edit (`cases`, the patched scenarios). The
/// paper's counts over them are derived from the rows (`paper::derived`).
fn size_values(o: &mut Outcome, size: usize, cases: &[String]) {
    let p = format!("e8.s{size}");
    let scenarios: Vec<String> = BASE
        .iter()
        .map(|s| s.to_string())
        .chain(cases.iter().cloned())
        .collect();
    for s in &scenarios {
        let k = format!("{p}.{}", key_part(s));
        for (arch, what) in [
            ("rustc", "rustc_ms"),
            ("rill-query", "rill_ms"),
            ("rill-query-stat", "rill_stat_ms"),
            ("rill-pipeline", "pipeline_ms"),
        ] {
            if let Some(v) = median(&o.rows, (s, arch, size)) {
                o.value(&format!("{k}.{what}"), Some(v));
            }
        }
        for (what, key, num, den, over_full) in RATIOS {
            if s == "full" && over_full {
                continue;
            }
            let den_scenario = if over_full { "full" } else { s.as_str() };
            // Only configurations that were measured (or tried): Rill's stat rows are
            // incremental rebuilds only.
            let tried = |a: &str, sc: &str| table::find(&o.rows, sc, a, size).is_some();
            if !tried(num, s) || !tried(den, den_scenario) {
                continue;
            }
            let iv = o.paired_value(
                &format!("{k}.{key}"),
                ((s, num, size), super::readout::wall),
                ((den_scenario, den, size), super::readout::wall),
            );
            let note = format!(
                "median {s}/{num} over median {den_scenario}/{den}, paired by round; \
                 low/high: bootstrap 95 % interval"
            );
            // `ratio_row` prefixes `ratio:`: the row's scenario is `ratio_scenario(what, s)`.
            o.ratio_row(&format!("{what}:{s}"), size, iv, &note);
        }
    }
}

/// The headline keys and the paper values of the headline size `size` under the names
/// they had when E8 measured one size and one edit (`e8.rustc_incr_patched_ms` is the
/// leaf-body edit's), and the sizes.
fn values(ctx: &Ctx, o: &mut Outcome, size: usize, sizes: &[usize]) {
    let leaf = patched(LEAF);
    o.ratio_headline(
        "e8_rustc_patched_over_full",
        (&leaf, "rustc", size),
        ("full", "rustc", size),
    );
    o.ratio_headline(
        "e8_rill_patched_over_full",
        (&leaf, "rill-query", size),
        ("full", "rill-query", size),
    );
    o.value("e8.size", Some(size as f64));
    let lines = ctx.actual_lines(Shape::Default, size, SEED);
    o.value("e8.lines", lines.map(|n| n as f64));
    let list: Vec<String> = sizes
        .iter()
        .map(|s| crate::runner::paper::format_number(*s as f64))
        .collect();
    let list = match list.len() {
        0 => "none".to_string(),
        1 => list[0].clone(),
        n => format!("{} and {}", list[..n - 1].join(", "), list[n - 1]),
    };
    o.text("e8.sizes", list);
    o.value("e8.headline_reps", Some(ctx.profile.reps as f64));
    o.value("e8.other_reps", Some(ctx.profile.rustc_other_reps as f64));
    let p = format!("e8.s{size}");
    let alias = |o: &mut Outcome, old: &str, new: &str| {
        for suffix in ["", "_low", "_high", "_n"] {
            let v = o.values.get(&format!("{new}{suffix}")).cloned();
            if suffix.is_empty() || v.is_some() {
                o.values.insert(
                    format!("{old}{suffix}"),
                    v.unwrap_or(serde_json::Value::Null),
                );
            }
        }
    };
    for (old, scenario) in [
        ("full", "full".to_string()),
        ("incr_full", "incr-full".to_string()),
        ("incr_unchanged", "incr-unchanged".to_string()),
        ("incr_patched", leaf.clone()),
    ] {
        let k = format!("{p}.{}", key_part(&scenario));
        alias(o, &format!("e8.rustc_{old}_ms"), &format!("{k}.rustc_ms"));
        alias(o, &format!("e8.rill_{old}_ms"), &format!("{k}.rill_ms"));
        if old == "full" {
            o.value("e8.rustc_full_ratio", Some(1.0));
            o.value("e8.rill_full_ratio", Some(1.0));
            continue;
        }
        alias(
            o,
            &format!("e8.rustc_{old}_ratio"),
            &format!("{k}.rustc_ratio"),
        );
        alias(
            o,
            &format!("e8.rill_{old}_ratio"),
            &format!("{k}.rill_ratio"),
        );
        if old != "incr_full" {
            alias(
                o,
                &format!("e8.rill_stat_{old}_ms"),
                &format!("{k}.rill_stat_ms"),
            );
            alias(
                o,
                &format!("e8.rill_stat_{old}_ratio"),
                &format!("{k}.rill_stat_ratio"),
            );
            o.paired_value(
                &format!("e8.rill_stat_over_hash_{old}"),
                ((&scenario, "rill-query-stat", size), super::readout::wall),
                ((&scenario, "rill-query", size), super::readout::wall),
            );
        }
    }
    o.median_value("e8.pipeline_full_ms", ("full", "rill-pipeline", size));
    // Lines per second over the actual line count of the program.
    let lps = median(&o.rows, ("full", "rustc", size))
        .zip(lines)
        .map(|(ms, n)| n as f64 / (ms / 1e3));
    o.value("e8.rustc_lines_per_s", lps);
    o.paired_value(
        "e8.rustc_over_pipeline",
        (("full", "rustc", size), super::readout::wall),
        (("full", "rill-pipeline", size), super::readout::wall),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_passes_are_parsed_with_their_names_and_groups() {
        let stderr = "time:   0.088; rss:   35MB ->   43MB (   +8MB)\tparse_crate\n\
                      warning: something\n\
                      time:   0.145; rss:  143MB ->  144MB (   +1MB)\tlink_crate\n\
                      time:   0.150; rss:  143MB ->  144MB (   +1MB)\tlink\n\
                      time:   1.000; rss:   28MB ->   86MB (  +58MB)\ttotal\n";
        let p = parse_time_passes(stderr);
        assert_eq!(
            p,
            [
                ("parse_crate".to_string(), 88.0),
                ("link_crate".to_string(), 145.0),
                ("link".to_string(), 150.0),
                ("total".to_string(), 1000.0),
            ]
        );
        // Only outermost passes count in a group: `link_crate` is inside `link`.
        assert_eq!(group_of("link"), Some("link"));
        assert_eq!(group_of("link_crate"), None);
        let shares = group_shares(&p, 1000.0, group_of).unwrap();
        let share = |g: &str| shares.iter().find(|(n, _)| *n == g).unwrap().1;
        assert!((share("frontend") - 0.088).abs() < 1e-9);
        assert!((share("link") - 0.15).abs() < 1e-9);
        assert!((share("other") - 0.762).abs() < 1e-9);
        assert!(group_shares(&p, 0.0, group_of).is_none());
        // Rill's phases fall in the same groups.
        assert_eq!(rill_group_of("load_cache"), Some("cache"));
        assert_eq!(rill_group_of("check"), Some("frontend"));
        assert_eq!(rill_group_of(phases::COMPILER_OTHER), None);
    }

    #[test]
    fn the_passes_csv_has_its_columns() {
        let csv = passes_csv(&[PassRow {
            scenario: patched(LEAF),
            size: 300,
            lines: 290,
            pass: "link".into(),
            group: "link".into(),
            ms: 1.5,
        }])
        .unwrap();
        assert_eq!(
            csv,
            "scenario,size,lines,pass,group,ms\nincr-patched:leaf-body,300,290,link,link,1.5\n"
        );
    }

    #[test]
    fn a_snapshot_restored_by_links_is_a_copy_of_the_tree() {
        let d = tempfile::tempdir().unwrap();
        let (from, to) = (d.path().join("from"), d.path().join("to"));
        std::fs::create_dir_all(from.join("s")).unwrap();
        std::fs::write(from.join("s/a.bin"), b"abc").unwrap();
        std::fs::create_dir_all(to.join("old")).unwrap();
        link_dir(&from, &to).unwrap();
        assert_eq!(std::fs::read(to.join("s/a.bin")).unwrap(), b"abc");
        assert!(!to.join("old").exists());
        // Deleting and rewriting a file, as rustc does, leaves the snapshot as it was.
        std::fs::remove_file(to.join("s/a.bin")).unwrap();
        std::fs::write(to.join("s/a.bin"), b"new").unwrap();
        assert_eq!(std::fs::read(from.join("s/a.bin")).unwrap(), b"abc");
    }
}
