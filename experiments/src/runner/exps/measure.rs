//! Measuring builds: repeated builds into rows, from-scratch builds in rounds, and the
//! incremental rebuild ([`IncrementalRun`]) most experiments time.

use std::path::{Path, PathBuf};

use rill_gen::Program;

use crate::runner::rill::{Build, BuildRun, BuildStats, Mode, NoMeasurement};
use crate::runner::stats::spread;
use crate::runner::table::Row;
use crate::runner::workload::OnDisk;
use crate::runner::{copy_dir, Ctx};

/// The builds of one series, or why there are none.
pub type Runs = Result<Vec<BuildRun>, NoMeasurement>;

/// Why a leaf-body edit could not be measured.
pub const NO_LEAF_EDIT: &str = "no leaf-body edit that changes machine code";

/// A row from repeated builds: wall-time spread, and counters of the last build.
pub fn row_from(scenario: &str, arch: &str, size: usize, runs: &Runs) -> Row {
    let row = Row::new(scenario, arch, size);
    let runs = match runs {
        Ok(r) if !r.is_empty() => r,
        Ok(_) => return row.without_number("failed: no repetition"),
        Err(e) => return row.without_number(e.status()),
    };
    let wall: Vec<f64> = runs.iter().map(|r| r.proc.wall_ms).collect();
    let mut row = row.with_spread(spread(&wall), "ms");
    fill_counters(&mut row, runs);
    row
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

/// `reps` builds, each after `prepare`.
pub fn repeat(
    ctx: &Ctx,
    reps: usize,
    mut prepare: impl FnMut() -> Result<(), String>,
    b: &Build<'_>,
    expect: &[i32],
) -> Runs {
    let mut out = Vec::new();
    for _ in 0..reps.max(1) {
        prepare().map_err(NoMeasurement::Failed)?;
        out.push(ctx.build(b, expect)?);
    }
    Ok(out)
}

/// From-scratch builds of the program in `root` (`arch` = `query` with a cache that is
/// emptied before every build when `cache` is given).
pub fn scratch(
    ctx: &Ctx,
    mode: Mode,
    arch: &str,
    root: &Path,
    cache: Option<&Path>,
    args: &[&str],
) -> Runs {
    let [runs] = scratch_rounds(ctx, mode, root, &[(arch, cache)], args);
    runs
}

/// From-scratch builds of the program in `root` under several configurations
/// (`(arch, cache)` as for [`scratch`]), in rounds: every repetition builds each
/// configuration once, in order, so a burst of load on a shared machine falls on all of
/// them alike and their ratios stay comparable. A configuration that fails is not built
/// again; the others go on.
pub fn scratch_rounds<const N: usize>(
    ctx: &Ctx,
    mode: Mode,
    root: &Path,
    configs: &[(&str, Option<&Path>); N],
    args: &[&str],
) -> [Runs; N] {
    let mut out: [Runs; N] = std::array::from_fn(|_| Ok(Vec::new()));
    for _ in 0..ctx.profile.reps.max(1) {
        for (&(arch, cache), result) in configs.iter().zip(out.iter_mut()) {
            let Ok(runs) = result else { continue };
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
            match ctx.build(&b, &[0]) {
                Ok(run) => runs.push(run),
                Err(e) => *result = Err(e),
            }
        }
    }
    out
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
/// own cutoff, spans and granularity apply ([`cutoff`](Self::cutoff),
/// [`spans`](Self::spans), [`granularity`](Self::granularity)); nothing is built in the
/// same rounds ([`paired_with_pipeline`](Self::paired_with_pipeline)).
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

    /// `rill check` or `rill run` for every build.
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

    fn option(mut self, name: &'a str, value: Option<&'a str>) -> Self {
        if let Some(v) = value {
            self.options.extend([name, v]);
        }
        self
    }

    /// The pipeline building the program in `root` (the edited program, for the ratio
    /// of a rebuild to a build from scratch) once in every repetition, just before the
    /// timed rebuild, expecting the same exit codes: a burst of load on a shared machine
    /// then falls on both alike, and their ratio stays comparable, as with
    /// [`scratch_rounds`].
    pub fn paired_with_pipeline(self, root: &'a Path) -> PairedRun<'a> {
        PairedRun {
            run: self,
            pipeline_root: root,
        }
    }

    /// Builds the history and times the rebuilds.
    pub fn run(self) -> Runs {
        self.measure(None).rebuilds
    }

    /// The history, then the repetitions, each building `pair` (if any) before the timed
    /// rebuild. When the history cannot be built, `pair` is still built its repetitions on
    /// its own.
    fn measure(self, pair: Option<&Build<'_>>) -> PairedRuns {
        let ctx = self.ctx;
        let reps = ctx.profile.reps.max(1);
        let expect_after = self.expect_exit;
        let alone = |why: NoMeasurement| PairedRuns {
            rebuilds: Err(why),
            pipeline: match pair {
                Some(b) => repeat(ctx, reps, || Ok(()), b, expect_after),
                None => Ok(Vec::new()),
            },
        };
        let fail = |e: String| NoMeasurement::Failed(e);
        // `new` gave the history its first program.
        let (first, _) = self.history[0];
        let mut disk = match OnDisk::create(&self.dir.join("prog"), first.clone()) {
            Ok(d) => d,
            Err(e) => return alone(fail(e)),
        };
        let cache = self.dir.join("cache");
        let snapshot = self.dir.join("cache-snapshot");
        let _ = std::fs::remove_dir_all(&cache);
        let root = disk.root();
        let base = Build {
            mode: self.mode,
            arch: "query",
            root: &root,
            cache_dir: Some(&cache),
            args: &self.options,
            timeout: ctx.timeout(),
        };
        for &(program, expect) in &self.history {
            if let Err(e) = disk.replace(program.clone()) {
                return alone(fail(e));
            }
            if let Err(e) = ctx.build(&base, expect) {
                return alone(e);
            }
        }
        let before = disk.program.clone();
        let after = self.edited.unwrap_or(&before);
        if let Err(e) = copy_dir(&cache, &snapshot) {
            return alone(fail(format!("cache snapshot: {e}")));
        }
        let mut out = PairedRuns {
            rebuilds: Ok(Vec::new()),
            pipeline: Ok(Vec::new()),
        };
        for _ in 0..reps {
            if let (Some(b), Ok(runs)) = (pair, &mut out.pipeline) {
                match ctx.build(b, expect_after) {
                    Ok(r) => runs.push(r),
                    Err(e) => out.pipeline = Err(e),
                }
            }
            let Ok(runs) = &mut out.rebuilds else {
                continue;
            };
            let timed = copy_dir(&snapshot, &cache)
                .map_err(|e| fail(format!("cache restore: {e}")))
                .and_then(|()| disk.replace(after.clone()).map(drop).map_err(fail))
                .and_then(|()| {
                    let r = ctx.build(&base, expect_after);
                    disk.replace(before.clone()).map_err(fail)?;
                    r
                });
            match timed {
                Ok(r) => runs.push(r),
                Err(e) => out.rebuilds = Err(e),
            }
        }
        out
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
    /// The pipeline's from-scratch builds, one in every repetition.
    pub pipeline: Runs,
}

impl PairedRun<'_> {
    /// Builds the history and times the rebuilds and the pipeline's builds.
    pub fn run(self) -> PairedRuns {
        let pipeline = pipeline_build(self.run.ctx, Mode::Run, self.pipeline_root);
        self.run.measure(Some(&pipeline))
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
