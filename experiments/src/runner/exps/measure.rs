//! Measuring builds: the paired, interleaved rounds every comparison is timed in
//! ([`interleave`]), the sides they build (a from-scratch build, an incremental rebuild
//! ([`IncrementalRun`]), any process), and rows from the builds.
//!
//! **Method.** Every configuration compared with another is built in the same rounds:
//! each round builds every side once, and the order rotates from round to round (round
//! `r` starts with side `r mod n`, so two sides alternate), so that neither drift nor a
//! burst of load on a shared machine falls on one side, and neither side always runs
//! just after the other. The first `profile.warmup` rounds are built and discarded
//! (caches of the file system and of the CPU, the first start of the binary). A ratio is
//! then the ratio of the medians of the two sides over the rounds, with a bootstrap
//! interval that resamples the rounds as pairs (`stats::bootstrap`).

use std::path::{Path, PathBuf};

use rill_gen::Program;

use crate::runner::phases::{self, PhaseRow};
use crate::runner::process::{self, ProcRun};
use crate::runner::rill::{Build, BuildRun, BuildStats, Mode, NoMeasurement};
use crate::runner::stats::spread;
use crate::runner::table::Row;
use crate::runner::workload::OnDisk;
use crate::runner::{mirror_cache, replaced_whole_files, Ctx};

/// The builds of one series, or why there are none.
pub type Runs = Result<Vec<BuildRun>, NoMeasurement>;

/// Why a leaf-body edit could not be measured.
pub const NO_LEAF_EDIT: &str = "no leaf-body edit that changes machine code";

/// One build of one side of a comparison (with whatever it must prepare first).
pub type BuildOnce<'s> = Box<dyn FnMut() -> Result<BuildRun, NoMeasurement> + 's>;

/// One side of a comparison, or why it cannot be built.
pub type Side<'s> = Result<BuildOnce<'s>, NoMeasurement>;

/// The order in which round `round` builds `n` sides: a rotation starting at
/// `round mod n` (two sides alternate: 0 1, 1 0, 0 1, ...).
pub fn round_order(round: usize, n: usize) -> Vec<usize> {
    (0..n).map(|i| (i + round) % n.max(1)).collect()
}

/// Builds `sides` in `profile.warmup` discarded rounds, then `reps` rounds, each side
/// once per round in the order of [`round_order`]; with `--instructions`, builds each
/// side once more under callgrind and gives its instruction count to every run of the
/// side. A side that fails is not built again; the others go on. Returns the runs of
/// every side, in the order of `sides`: run `i` of every side was built in round `i`.
pub fn interleave(ctx: &Ctx, reps: usize, mut sides: Vec<Side<'_>>) -> Vec<Runs> {
    let n = sides.len();
    let mut out: Vec<Runs> = sides
        .iter()
        .map(|s| match s {
            Ok(_) => Ok(Vec::new()),
            Err(e) => Err(e.clone()),
        })
        .collect();
    let warmup = ctx.profile.warmup;
    for round in 0..warmup + reps.max(1) {
        for i in round_order(round, n) {
            let (Ok(build), Ok(runs)) = (&mut sides[i], &mut out[i]) else {
                continue;
            };
            match build() {
                Ok(r) if round >= warmup => runs.push(r),
                Ok(_) => {}
                Err(e) => out[i] = Err(e),
            }
        }
    }
    if let Some(out_file) = ctx.callgrind_out() {
        for (side, runs) in sides.iter_mut().zip(out.iter_mut()) {
            let (Ok(build), Ok(runs)) = (side, runs) else {
                continue;
            };
            let count = process::under_callgrind(&out_file, build)
                .ok()
                .and_then(|r| r.proc.instructions);
            for r in runs.iter_mut() {
                r.instructions = count;
            }
        }
    }
    out
}

/// A side: `b`, expecting `expect`.
pub fn build_side<'s>(ctx: &'s Ctx, b: Build<'s>, expect: &'s [i32]) -> Side<'s> {
    Ok(Box::new(move || ctx.build(&b, expect)))
}

/// A side: a from-scratch build of the program in `root` (`arch` = `query` with a cache
/// that is emptied before every build when `cache` is given).
pub fn scratch_side<'s>(
    ctx: &'s Ctx,
    mode: Mode,
    root: &'s Path,
    arch: &'s str,
    cache: Option<&'s Path>,
    args: &'s [&'s str],
) -> Side<'s> {
    Ok(Box::new(move || {
        if let Some(c) = cache {
            let _ = std::fs::remove_dir_all(c);
        }
        let b = Build {
            mode,
            arch,
            root,
            cache_dir: cache,
            args,
            timeout: ctx.timeout(),
        };
        ctx.build(&b, &[0])
    }))
}

/// A side: any process, timed as a build without statistics (rustc, a compiled
/// benchmark); `run` fails with its message.
pub fn process_side<'s>(mut run: impl FnMut() -> Result<ProcRun, String> + 's) -> Side<'s> {
    Ok(Box::new(move || {
        run().map_err(NoMeasurement::Failed).map(|proc| BuildRun {
            proc,
            stats: None,
            instructions: None,
        })
    }))
}

/// A row from repeated builds: wall-time spread, CPU time, counters of the last build;
/// the builds' samples are recorded in the context (and a warning when the engine's
/// counts differ between them).
pub fn row_from(ctx: &Ctx, scenario: &str, arch: &str, size: usize, runs: &Runs) -> Row {
    let row = Row::new(scenario, arch, size);
    let runs = match runs {
        Ok(r) if !r.is_empty() => r,
        Ok(_) => return row.without_number("failed: no repetition"),
        Err(e) => return row.without_number(e.status()),
    };
    ctx.record(scenario, arch, size, runs);
    let wall: Vec<f64> = runs.iter().map(|r| r.proc.wall_ms).collect();
    let mut row = row.with_spread(spread(&wall), "ms");
    fill_counters(&mut row, runs);
    row
}

/// The phase breakdown of the builds `runs` of `scenario` on `arch` at `size` (none when
/// there are no builds): see [`phases::of_runs`].
pub fn phase_rows(scenario: &str, arch: &str, size: usize, runs: &Runs) -> Vec<PhaseRow> {
    match runs {
        Ok(r) => phases::of_runs(scenario, arch, size, r),
        Err(_) => Vec::new(),
    }
}

/// Counters and compiler-reported times of builds into a row.
pub fn fill_counters(row: &mut Row, runs: &[BuildRun]) {
    let st: Vec<&BuildStats> = runs.iter().filter_map(|r| r.stats.as_ref()).collect();
    if let Some(last) = st.last() {
        if !last.queries.is_empty() || last.executed > 0 {
            row.executed = Some(last.executed);
            row.green = Some(last.green);
            row.loaded = Some(last.loaded);
            row.codegen_executed = last.codegen_executed();
            row.hashed_bytes = Some(last.hashed_bytes());
            row.hash_ms =
                spread(&st.iter().map(|s| s.hash_ms()).collect::<Vec<_>>()).map(|s| s.median);
        }
        row.compile_ms =
            spread(&st.iter().map(|s| s.total_ms).collect::<Vec<_>>()).map(|s| s.median);
    }
    row.peak_rss_kb = runs.iter().filter_map(|r| r.proc.peak_rss_kb).max();
    let cpu: Vec<f64> = runs
        .iter()
        .map(|r| r.proc.cpu_user_ms + r.proc.cpu_sys_ms)
        .collect();
    row.cpu_ms = spread(&cpu).map(|s| s.median);
    row.instructions = runs.iter().find_map(|r| r.instructions);
}

/// Marks row `idx` with whether `other`'s last build wrote the same image as the
/// pipeline's last build (nothing when either has no image hash).
pub fn image_check(rows: &mut [Row], pipeline: &Runs, other: &Runs, idx: usize) {
    let hash = |r: &Runs| r.as_ref().ok()?.last()?.stats.as_ref()?.image_hash.clone();
    if let (Some(a), Some(b)) = (hash(pipeline), hash(other)) {
        if a != b {
            rows[idx].note =
                "image_hash differs from the pipeline's (invariant 1 broken)".to_string();
        } else {
            rows[idx].note = "image_hash equals the pipeline's".to_string();
        }
    }
}

/// A pipeline build of `root` with the context's time limit.
pub fn pipeline_build<'a>(ctx: &Ctx, mode: Mode, root: &'a Path) -> Build<'a> {
    Build {
        mode,
        arch: "pipeline",
        root,
        cache_dir: None,
        args: &[],
        timeout: ctx.timeout(),
    }
}

/// `reps` builds of `b` alone (after the warm-up rounds), each expecting `expect`.
pub fn repeat(ctx: &Ctx, reps: usize, b: &Build<'_>, expect: &[i32]) -> Runs {
    let b = b.clone();
    let mut out = interleave(ctx, reps, vec![build_side(ctx, b, expect)]);
    out.pop().unwrap_or(Ok(Vec::new()))
}

/// From-scratch builds of the program in `root` (`arch` = `query` with a cache that is
/// emptied before every build when `cache` is given), alone.
pub fn scratch(
    ctx: &Ctx,
    mode: Mode,
    arch: &str,
    root: &Path,
    cache: Option<&Path>,
    args: &[&str],
) -> Runs {
    let [runs] = scratch_rounds(ctx, mode, root, &[(arch, cache, args)]);
    runs
}

/// From-scratch builds of the program in `root` under several configurations
/// (`(arch, cache, args)` as for [`scratch_side`]), interleaved in rounds.
pub fn scratch_rounds<const N: usize>(
    ctx: &Ctx,
    mode: Mode,
    root: &Path,
    configs: &[(&str, Option<&Path>, &[&str]); N],
) -> [Runs; N] {
    let sides = configs
        .iter()
        .map(|&(arch, cache, args)| scratch_side(ctx, mode, root, arch, cache, args))
        .collect();
    let mut it = interleave(ctx, ctx.profile.reps, sides).into_iter();
    std::array::from_fn(|_| it.next().unwrap_or(Ok(Vec::new())))
}

/// An incremental rebuild on the query architecture, timed. The programs of the history
/// are built in order on an empty cache (each expecting its exit codes) and the cache is
/// snapshotted; then every repetition restores the snapshot, writes the edited program,
/// builds it (the timed build) and writes the last program of the history back.
///
/// Defaults, each changed by the option of its name: the history is the program given to
/// [`IncrementalRun::new`], expected to exit 0 ([`then_built`](Self::then_built) adds to
/// it); the timed build is of the last program of the history, a no-change rebuild
/// ([`edited`](Self::edited)); it is expected to exit 0 ([`expect_exit`](Self::expect_exit));
/// every build is `rill run` ([`mode`](Self::mode)); no query options are given, so rill's
/// own cutoff, spans, granularity and change detection apply ([`cutoff`](Self::cutoff),
/// [`spans`](Self::spans), [`granularity`](Self::granularity),
/// [`change_detection`](Self::change_detection)); the history is built once it is
/// written and has settled (see the field `settled`); nothing is built in the same rounds
/// ([`paired_with_pipeline`](Self::paired_with_pipeline)).
#[must_use = "an incremental run measures nothing until it is run"]
pub struct IncrementalRun<'a> {
    ctx: &'a Ctx,
    /// The work directory: the program in `prog/`, the cache in `cache/`, its snapshot in
    /// `cache-snapshot/`.
    dir: PathBuf,
    history: Vec<(&'a Program, &'a [i32])>,
    edited: Option<&'a Program>,
    expect_exit: &'a [i32],
    mode: Mode,
    /// Extra options of every query build (`--cutoff off`, ...), in the order given.
    options: Vec<&'a str>,
    /// Wait before each build of the history until the program's files are older than
    /// rill's racy window (`query_driver::stamp`), as files saved some time before a build
    /// are. A history built right after its files were written would leave racy stamps
    /// (holding the content's fingerprint) in the snapshot, and every timed rebuild under
    /// `--change-detection stat` would find them changed and read every file again: the
    /// cost of a rebuild right after a program was written, not of a rebuild after no
    /// change. Always on; the edited file of a timed build is written just before it, as
    /// an editor would, and read because it changed.
    settled: bool,
}

impl<'a> IncrementalRun<'a> {
    /// A no-change rebuild of `program` (built first on an empty cache, expected to exit
    /// 0), with `dir` as the work directory.
    pub fn new(ctx: &'a Ctx, dir: PathBuf, program: &'a Program) -> Self {
        IncrementalRun {
            ctx,
            dir,
            history: vec![(program, &[0])],
            edited: None,
            expect_exit: &[0],
            mode: Mode::Run,
            options: Vec::new(),
            settled: true,
        }
    }

    /// Builds `program` next in the history, expecting `expect_exit`, on the cache the
    /// builds before it left. A history (good, with an error) followed by the fixed
    /// program as the edit measures the build after the fix as a user's loop would.
    pub fn then_built(mut self, program: &'a Program, expect_exit: &'a [i32]) -> Self {
        self.history.push((program, expect_exit));
        self
    }

    /// The timed build is of `program`, the edited one.
    pub fn edited(mut self, program: &'a Program) -> Self {
        self.edited = Some(program);
        self
    }

    /// The exit codes the timed build must end with.
    pub fn expect_exit(mut self, codes: &'a [i32]) -> Self {
        self.expect_exit = codes;
        self
    }

    /// `rill check`, `rill build` or `rill run` for every build.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// `--cutoff HOW` (`fingerprint`, `equality`, `off`); `None` gives no option.
    pub fn cutoff(self, how: impl Into<Option<&'a str>>) -> Self {
        self.option("--cutoff", how.into())
    }

    /// `--spans HOW` (`relative`, `absolute`); `None` gives no option.
    pub fn spans(self, how: impl Into<Option<&'a str>>) -> Self {
        self.option("--spans", how.into())
    }

    /// `--granularity HOW` (`item`, `file`); `None` gives no option.
    pub fn granularity(self, how: impl Into<Option<&'a str>>) -> Self {
        self.option("--granularity", how.into())
    }

    /// `--change-detection HOW` (`stat`, `hash`); `None` gives no option.
    pub fn change_detection(self, how: impl Into<Option<&'a str>>) -> Self {
        self.option("--change-detection", how.into())
    }

    fn option(mut self, name: &'a str, value: Option<&'a str>) -> Self {
        if let Some(v) = value {
            self.options.extend([name, v]);
        }
        self
    }

    /// The pipeline building the program in `root` (the edited program, for the ratio
    /// of a rebuild to a build from scratch) in the same rounds as the timed rebuild,
    /// expecting the same exit codes (see [`interleave`]).
    pub fn paired_with_pipeline(self, root: &'a Path) -> PairedRun<'a> {
        PairedRun {
            run: self,
            pipeline_root: root,
        }
    }

    /// Builds the history and times the rebuilds, alone.
    pub fn run(self) -> Runs {
        let ctx = self.ctx;
        let mut out = interleave(ctx, ctx.profile.reps, vec![self.side()]);
        out.pop().unwrap_or(Ok(Vec::new()))
    }

    /// Builds the history on an empty cache and snapshots the cache; the side then times
    /// one rebuild per call: restores the snapshot, writes the edited program, builds it
    /// and writes the last program of the history back.
    ///
    /// The snapshot shares the files rill never writes in place with the cache, and each
    /// restore leaves them as the previous build left them ([`mirror_cache`]), so a timed
    /// build finds the cache as a user's loop does. Linking them into the snapshot changes
    /// their change time once, which makes rill's records of files it checked completely
    /// (`*.checked`) name them no more; so the history goes on after the link as a user's
    /// loop would, until the records name the shared files: after its last build without
    /// errors, an edit that changes no item (a blank line at the end of the root file) is
    /// built and undone (see [`steady_state`]) before the history's later builds (with
    /// errors, which save nothing).
    pub fn side(self) -> Side<'a> {
        let ctx = self.ctx;
        let fail = |e: String| NoMeasurement::Failed(e);
        // `new` gave the history its first program.
        let (first, _) = self.history[0];
        let mut disk = OnDisk::create(&self.dir.join("prog"), first.clone()).map_err(fail)?;
        let cache = self.dir.join("cache");
        let snapshot = self.dir.join("cache-snapshot");
        let _ = std::fs::remove_dir_all(&cache);
        let _ = std::fs::remove_dir_all(&snapshot);
        let (root, cache_dir) = (disk.root(), cache.clone());
        let (mode, options, settled) = (self.mode, self.options, self.settled);
        let build = move |expect: &[i32]| {
            let b = Build {
                mode,
                arch: "query",
                root: &root,
                cache_dir: Some(&cache_dir),
                args: &options,
                timeout: ctx.timeout(),
            };
            ctx.build(&b, expect)
        };
        // The last build that saves (a build with errors saves nothing).
        let last_saved = self.history.iter().rposition(|(_, e)| e.contains(&0));
        for (i, &(program, expect)) in self.history.iter().enumerate() {
            disk.replace(program.clone()).map_err(fail)?;
            if settled {
                settle(&disk, &cache);
            }
            build(expect)?;
            if Some(i) == last_saved {
                steady_state(&mut disk, &cache, &snapshot, settled, || build(expect))?;
            }
        }
        mirror_cache(&cache, &snapshot).map_err(|e| fail(format!("cache snapshot: {e}")))?;
        let before = disk.program.clone();
        let after = self.edited.unwrap_or(&before).clone();
        let expect_after = self.expect_exit;
        Ok(Box::new(move || {
            mirror_cache(&snapshot, &cache).map_err(|e| fail(format!("cache restore: {e}")))?;
            disk.replace(after.clone()).map_err(fail)?;
            let r = build(expect_after);
            disk.replace(before.clone()).map_err(fail)?;
            r
        }))
    }
}

/// Links the files of `cache` that rill never writes in place into `snapshot`, then builds
/// (with `build`) the program of `disk` with a blank line added at the end of its root
/// file and the program as it was: a build that saves after the link, so that the records
/// of the checked files name the linked files, and one on that cache, as a user's loop
/// does after an edit. Again if one of those builds wrote a new file in place of a linked
/// one (at most three times: an edit that writes a new file every time leaves the next
/// build a file to check in a user's loop too).
fn steady_state(
    disk: &mut OnDisk,
    cache: &Path,
    snapshot: &Path,
    settled: bool,
    build: impl Fn() -> Result<BuildRun, NoMeasurement>,
) -> Result<(), NoMeasurement> {
    let fail = |e: String| NoMeasurement::Failed(e);
    let link = || mirror_cache(cache, snapshot).map_err(|e| fail(format!("cache snapshot: {e}")));
    let program = disk.program.clone();
    let blank = with_blank_line(&program);
    let mut placed = link()?;
    for _ in 0..3 {
        if placed == 0 {
            break;
        }
        for p in [&blank, &program] {
            disk.replace(p.clone()).map_err(fail)?;
            if settled {
                settle(disk, cache);
            }
            build()?;
        }
        placed = link()?;
    }
    Ok(())
}

/// `p` with a blank line added at the end of its root file: an edit that changes no item,
/// which a build saves.
fn with_blank_line(p: &Program) -> Program {
    let mut out = p.clone();
    if let Some(root) = out.files.iter_mut().find(|f| f.path == "main.rs") {
        root.text.push('\n');
    }
    out
}

/// Waits until no file of `disk`, and no file of `cache` that rill never writes in place,
/// is racy (at most ten seconds; a file whose time is in the future stays racy): a
/// build then finds the program as it finds files saved some time before, and records
/// the cache's files it checks.
fn settle(disk: &OnDisk, cache: &Path) {
    use query_driver::stamp::is_racy;
    use shared_frontend::sema::modules::{system_time_ns, FileStat};
    let paths: Vec<PathBuf> = disk
        .program
        .files
        .iter()
        .map(|f| disk.dir.join(&f.path))
        .chain(replaced_whole_files(cache))
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        let now = system_time_ns(std::time::SystemTime::now());
        let racy = paths.iter().any(|p| {
            let stat = FileStat::from_metadata(std::fs::metadata(p));
            stat.mtime_ns <= now && is_racy(&stat, now)
        });
        if !racy {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// An [`IncrementalRun`] with the pipeline's from-scratch builds in the same rounds (see
/// [`IncrementalRun::paired_with_pipeline`]).
#[must_use = "an incremental run measures nothing until it is run"]
pub struct PairedRun<'a> {
    run: IncrementalRun<'a>,
    pipeline_root: &'a Path,
}

/// What a [`PairedRun`] measured.
pub struct PairedRuns {
    /// The timed incremental rebuilds.
    pub rebuilds: Runs,
    /// The pipeline's from-scratch builds, one in every round.
    pub pipeline: Runs,
}

impl PairedRun<'_> {
    /// Builds the history and times the rebuilds and the pipeline's builds in rounds. When
    /// the history cannot be built, the pipeline is still built its rounds on its own.
    pub fn run(self) -> PairedRuns {
        let ctx = self.run.ctx;
        let pipeline = pipeline_build(ctx, Mode::Run, self.pipeline_root);
        let expect = self.run.expect_exit;
        let sides = vec![build_side(ctx, pipeline, expect), self.run.side()];
        let mut it = interleave(ctx, ctx.profile.reps, sides).into_iter();
        let pipeline = it.next().unwrap_or(Ok(Vec::new()));
        PairedRuns {
            pipeline,
            rebuilds: it.next().unwrap_or(Ok(Vec::new())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{workload, Profile};

    #[test]
    fn incremental_run_defaults_and_named_options() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        let ctx = Ctx::new(
            Profile::tiny(),
            d.join("rill"),
            d.clone(),
            d.clone(),
            d.clone(),
        );
        let (good, other) = (workload::generate(300, 7), workload::generate(300, 8));
        let run = IncrementalRun::new(&ctx, d.join("w"), &good);
        assert_eq!(run.history.len(), 1);
        assert_eq!(run.history[0].1, &[0]);
        assert!(run.edited.is_none());
        assert_eq!(run.expect_exit, &[0]);
        assert_eq!(run.mode, Mode::Run);
        assert!(run.options.is_empty());
        // `None` leaves an option to rill; the others go on the command line in order.
        let run = run
            .then_built(&other, &[1])
            .edited(&other)
            .expect_exit(&[1])
            .mode(Mode::Check)
            .cutoff("off")
            .spans(None)
            .granularity("file");
        assert_eq!(run.history.len(), 2);
        assert_eq!(run.history[1].1, &[1]);
        assert!(run.edited.is_some());
        assert_eq!(run.expect_exit, &[1]);
        assert_eq!(run.mode, Mode::Check);
        assert_eq!(run.options, ["--cutoff", "off", "--granularity", "file"]);
    }

    #[test]
    fn rounds_alternate_and_warm_up_is_discarded() {
        assert_eq!(round_order(0, 2), [0, 1]);
        assert_eq!(round_order(1, 2), [1, 0]);
        assert_eq!(round_order(4, 3), [1, 2, 0]);
        assert_eq!(round_order(3, 1), [0]);
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        let mut profile = Profile::tiny();
        profile.warmup = 1;
        let ctx = Ctx::new(profile, d.join("rill"), d.clone(), d.clone(), d.clone());
        // Each side notes the order of its builds; side 2 fails in its third build.
        let log = std::cell::RefCell::new(Vec::new());
        let side = |name: usize, fail_at: Option<usize>| -> Side<'_> {
            let log = &log;
            let mut calls = 0;
            Ok(Box::new(move || {
                calls += 1;
                log.borrow_mut().push(name);
                if Some(calls) == fail_at {
                    return Err(NoMeasurement::Failed("third".to_string()));
                }
                Ok(BuildRun {
                    proc: ProcRun {
                        wall_ms: calls as f64,
                        ..ProcRun::default()
                    },
                    stats: None,
                    instructions: None,
                })
            }))
        };
        let sides = vec![
            side(0, None),
            side(1, None),
            Err(NoMeasurement::Unavailable("no".to_string())),
            side(3, Some(3)),
        ];
        let runs = interleave(&ctx, 4, sides);
        // Warm-up round 0, then rounds 1..=4, each starting one side later.
        assert_eq!(*log.borrow(), [0, 1, 3, 1, 3, 0, 3, 0, 1, 0, 1, 0, 1]);
        let walls =
            |r: &Runs| -> Vec<f64> { r.as_ref().unwrap().iter().map(|b| b.proc.wall_ms).collect() };
        // The warm-up build (wall 1) is not among the runs.
        assert_eq!(walls(&runs[0]), [2.0, 3.0, 4.0, 5.0]);
        assert_eq!(walls(&runs[1]), [2.0, 3.0, 4.0, 5.0]);
        assert!(matches!(runs[2], Err(NoMeasurement::Unavailable(_))));
        assert!(matches!(&runs[3], Err(NoMeasurement::Failed(m)) if m == "third"));
    }

    #[test]
    fn a_failed_history_still_builds_the_paired_pipeline() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        // No `rill` at this path: every build fails, and says so.
        let ctx = Ctx::new(
            Profile::tiny(),
            d.join("no-rill"),
            d.clone(),
            d.clone(),
            d.clone(),
        );
        let program = workload::generate(300, 7);
        let root = d.join("pipeline.rs");
        let runs = IncrementalRun::new(&ctx, d.join("w"), &program)
            .paired_with_pipeline(&root)
            .run();
        assert!(runs.rebuilds.is_err());
        // `Ok` with no runs would mean the pipeline was never tried.
        assert!(runs.pipeline.is_err());
        assert!(IncrementalRun::new(&ctx, d.join("w"), &program)
            .run()
            .is_err());
    }
}
