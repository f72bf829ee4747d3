//! The experiment runner (`cargo run --release -p experiments [-- SUBCOMMAND]`): runs
//! E1–E10 of DESIGN.md as whole-process builds of the `rill` binary (and of `rustc` for
//! E8 and E9), writes `results/eNN-<name>.csv`, `results/meta.json`,
//! `results/summary.json`, `results/values.json`, the figures under `results/figures/`,
//! and regenerates `paper/paper.md` from `paper/template.md`.
//!
//! Code map: `stats` (median/min/max, fits, bootstrap intervals), `table` (rows and CSV),
//! `samples` (one row per timed build, `results/samples/`), `process` (timing a process:
//! wall and CPU time, peak memory, instruction counts), `rill` (driving `rill`, the stats
//! JSON), `workload` (generated programs of each shape, and edits on disk), `exps` (the experiments, a
//! file each, and the paired rounds they are timed in), `plot` (SVG figures), `paper`
//! (template filling), `meta` (machine, load and toolchain description), `summary`
//! (headline keys), `stability` (the headline numbers over repeated runs), `scaling` (E1,
//! E3 and E6 from 10k to 1M lines, and the exponents fitted on them), `phases` (where each
//! kind of build spends its time, `results/eNN-phases.csv`).

pub mod exps;
pub mod meta;
pub mod paper;
pub mod phases;
pub mod plot;
pub mod process;
pub mod rill;
pub mod samples;
pub mod scaling;
pub mod stability;
pub mod stats;
pub mod summary;
pub mod table;
pub mod workload;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};

use self::rill::{Build, BuildRun, NoMeasurement, Rill};
use self::stats::Interval;
use self::table::Row;
use self::workload::Shape;

/// How much to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub name: String,
    /// Program sizes (lines) of the size sweeps (E1, E6, E7).
    pub sizes: Vec<usize>,
    /// The program size of the single-size experiments (E2–E5, E10).
    pub main_size: usize,
    /// The program size of the comparison with rustc (E8) its headline numbers are taken
    /// at, timed in `reps` rounds.
    pub rustc_size: usize,
    /// Every program size of E8, `rustc_size` among them, ascending.
    pub rustc_sizes: Vec<usize>,
    /// Rounds of E8 at its sizes other than `rustc_size` (rustc takes seconds per build
    /// there, and every round builds every edit kind with both compilers).
    pub rustc_other_reps: usize,
    /// Repetitions (rounds) of each timed build.
    pub reps: usize,
    /// Rounds built before the timed ones and discarded.
    pub warmup: usize,
    /// Repetitions of each run of E9 (rustc binaries and the JIT).
    pub run_reps: usize,
    /// Time limit of one interpreter run in E9, seconds.
    pub interp_timeout_s: u64,
    /// Time limit of one build, seconds.
    pub build_timeout_s: u64,
    /// E9 runs only these benchmark programs (file stems); `None`: all of them.
    pub benchmarks: Option<Vec<String>>,
}

impl Profile {
    /// The default: the whole suite in a few minutes on two cores.
    pub fn quick() -> Profile {
        Profile {
            name: "quick".to_string(),
            sizes: vec![1_000, 10_000, 100_000],
            main_size: 100_000,
            rustc_size: 10_000,
            // At 100,000 lines one round builds the program 14 times with rustc (a build
            // from scratch took 5 s alone on two cores, an incremental one on an empty
            // directory 8 s), so E8 measures that size in 3 rounds after the warm-up.
            rustc_sizes: vec![10_000, 100_000],
            rustc_other_reps: 3,
            reps: 10,
            warmup: 1,
            run_reps: 10,
            interp_timeout_s: 10,
            build_timeout_s: 300,
            benchmarks: None,
        }
    }

    /// Sizes to a million lines, more repetitions.
    pub fn full() -> Profile {
        Profile {
            name: "full".to_string(),
            sizes: vec![1_000, 10_000, 100_000, 1_000_000],
            main_size: 100_000,
            rustc_size: 100_000,
            rustc_sizes: vec![10_000, 100_000],
            rustc_other_reps: 15,
            reps: 15,
            warmup: 2,
            run_reps: 10,
            interp_timeout_s: 120,
            build_timeout_s: 1800,
            benchmarks: None,
        }
    }

    /// A profile for tests: tiny programs, two repetitions, no warm-up.
    pub fn tiny() -> Profile {
        Profile {
            name: "tiny".to_string(),
            sizes: vec![300],
            main_size: 300,
            rustc_size: 300,
            rustc_sizes: vec![300, 600],
            rustc_other_reps: 2,
            reps: 2,
            warmup: 0,
            run_reps: 2,
            interp_timeout_s: 5,
            build_timeout_s: 60,
            benchmarks: Some(vec!["matmul".to_string()]),
        }
    }

    pub fn by_name(name: &str) -> Option<Profile> {
        match name {
            "quick" => Some(Profile::quick()),
            "full" => Some(Profile::full()),
            "tiny" => Some(Profile::tiny()),
            _ => None,
        }
    }
}

/// What one experiment produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub rows: Vec<Row>,
    /// Numbers and words for the paper (`e3.leaf_body_query_ms`, ...); `null` when the
    /// experiment could not measure it.
    pub values: BTreeMap<String, serde_json::Value>,
    /// Headline keys of `summary.json` this experiment sets: value with its interval, or
    /// the reason for null.
    pub summary: Vec<(String, Result<Interval, String>)>,
    /// Warnings to print at the end.
    pub warnings: Vec<String>,
    /// One sample per timed build (see [`Ctx::take_samples`]).
    pub samples: Vec<samples::Sample>,
    /// The phase breakdown of each kind of build, for `eNN-phases.csv` (written when
    /// there is any).
    pub phases: Vec<phases::PhaseRow>,
    /// Further files of `results/` the experiment writes: file name and contents
    /// (`e08-rustc-phases.csv`).
    pub files: Vec<(String, String)>,
}

impl Outcome {
    pub fn value(&mut self, key: &str, v: Option<f64>) {
        self.values.insert(
            key.to_string(),
            v.filter(|x| x.is_finite())
                .map_or(serde_json::Value::Null, serde_json::Value::from),
        );
    }

    pub fn text(&mut self, key: &str, v: impl Into<String>) {
        self.values
            .insert(key.to_string(), serde_json::Value::from(v.into()));
    }

    /// The paper value `key` with its interval: `KEY`, `KEY_low`, `KEY_high`, `KEY_n`.
    pub fn interval_value(&mut self, key: &str, iv: Option<Interval>) {
        self.value(key, iv.map(|i| i.value));
        self.value(&format!("{key}_low"), iv.map(|i| i.low));
        self.value(&format!("{key}_high"), iv.map(|i| i.high));
        self.value(&format!("{key}_n"), iv.map(|i| i.n as f64));
    }

    /// The headline key `key` (`summary.json`, and `values.json` with its interval), or why
    /// it is missing.
    pub fn headline(&mut self, key: &str, iv: Option<Interval>, why_missing: impl Into<String>) {
        let iv = iv.filter(|i| i.value.is_finite());
        self.summary
            .push((key.to_string(), iv.ok_or_else(|| why_missing.into())));
        self.interval_value(key, iv);
    }
}

/// The runner's context: profile, binaries, directories, and what is known about the
/// availability of architectures and options.
pub struct Ctx {
    pub profile: Profile,
    pub rill: Rill,
    /// Scratch space for programs, caches and binaries (under `target/`).
    pub work: PathBuf,
    pub results: PathBuf,
    pub paper_dir: PathBuf,
    /// Why `--arch query` is unavailable, once a build said so.
    pub query_unavailable: RefCell<Option<String>>,
    pub progress: RefCell<Option<ProgressBar>>,
    /// Generated programs by (shape, lines, seed), generated once per run.
    programs: RefCell<BTreeMap<(Shape, usize, u64), rill_gen::Program>>,
    /// Leaf-body edits by (shape, lines, seed), checked against the machine code once per
    /// run.
    leaf_edits: RefCell<BTreeMap<(Shape, usize, u64), std::rc::Rc<workload::LeafEdits>>>,
    /// Samples of the timed builds made into rows since the last [`Ctx::take_samples`].
    samples: RefCell<Vec<samples::Sample>>,
    /// Warnings from measuring (counts that differ between repetitions).
    warnings: RefCell<Vec<String>>,
    /// With `--instructions` and valgrind installed: the callgrind output file.
    callgrind: Option<PathBuf>,
}

impl Ctx {
    pub fn new(
        profile: Profile,
        rill_exe: PathBuf,
        work: PathBuf,
        results: PathBuf,
        paper_dir: PathBuf,
    ) -> Ctx {
        Ctx {
            profile,
            rill: Rill {
                exe: rill_exe,
                scratch: work.join("scratch"),
            },
            work,
            results,
            paper_dir,
            query_unavailable: RefCell::new(None),
            progress: RefCell::new(None),
            programs: RefCell::new(BTreeMap::new()),
            leaf_edits: RefCell::new(BTreeMap::new()),
            samples: RefCell::new(Vec::new()),
            warnings: RefCell::new(Vec::new()),
            callgrind: None,
        }
    }

    /// Also counts the instructions of every configuration once, under callgrind
    /// (`--instructions`); `Err` says why not (valgrind missing) and changes nothing.
    pub fn count_instructions(&mut self) -> Result<String, String> {
        let version = process::valgrind()?;
        self.callgrind = Some(self.work.join("callgrind.out"));
        Ok(version)
    }

    /// The callgrind output file when instructions are counted.
    pub fn callgrind_out(&self) -> Option<PathBuf> {
        self.callgrind.clone()
    }

    /// Records the samples of `runs`, the repetitions of (`scenario`, `arch`, `size`), and
    /// a warning if the engine's counts differ between them.
    pub fn record(&self, scenario: &str, arch: &str, size: usize, runs: &[BuildRun]) {
        let (s, warning) = samples::of_runs(scenario, arch, size, runs);
        self.samples.borrow_mut().extend(s);
        if let Some(w) = warning {
            self.warnings.borrow_mut().push(w);
        }
    }

    /// The samples recorded since the last call.
    pub fn take_samples(&self) -> Vec<samples::Sample> {
        std::mem::take(&mut *self.samples.borrow_mut())
    }

    /// The warnings recorded since the last call.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.borrow_mut())
    }

    /// The generated program of `shape` of about `lines` lines (cached for the run).
    pub fn program(&self, shape: Shape, lines: usize, seed: u64) -> rill_gen::Program {
        self.set_message(&format!("generating {lines} lines ({})", shape.name()));
        self.programs
            .borrow_mut()
            .entry((shape, lines, seed))
            .or_insert_with(|| workload::generate_shaped(shape, lines, seed))
            .clone()
    }

    /// The actual line count of the program of `shape` of about `lines` lines generated
    /// from `seed` in this run, if one was.
    pub fn actual_lines(&self, shape: Shape, lines: usize, seed: u64) -> Option<usize> {
        self.programs
            .borrow()
            .get(&(shape, lines, seed))
            .map(rill_gen::Program::total_lines)
    }

    /// The leaf-body edits of the generated program of `shape` of about `lines` lines: one
    /// that changes machine code, and the generator's first choice when it changes none.
    pub fn leaf_edits(
        &self,
        shape: Shape,
        lines: usize,
        seed: u64,
    ) -> std::rc::Rc<workload::LeafEdits> {
        if let Some(e) = self.leaf_edits.borrow().get(&(shape, lines, seed)) {
            return e.clone();
        }
        let program = self.program(shape, lines, seed);
        self.set_message(&format!("choosing a leaf edit, {lines} lines"));
        let e = std::rc::Rc::new(workload::leaf_edits(&program, seed));
        self.leaf_edits
            .borrow_mut()
            .insert((shape, lines, seed), e.clone());
        e
    }

    /// A fresh directory under the work dir.
    pub fn dir(&self, name: &str) -> PathBuf {
        let d = self.work.join(name);
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::create_dir_all(&d);
        d
    }

    pub fn start_progress(&self, label: &str, steps: u64) {
        let pb = ProgressBar::new(steps);
        pb.set_style(
            ProgressStyle::with_template("{prefix:>5} [{bar:30}] {pos}/{len} {elapsed:>4} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_prefix(label.to_string());
        *self.progress.borrow_mut() = Some(pb);
    }

    pub fn step(&self) {
        if let Some(pb) = &*self.progress.borrow() {
            pb.inc(1);
        }
    }

    pub fn set_message(&self, msg: &str) {
        if let Some(pb) = &*self.progress.borrow() {
            pb.set_message(msg.to_string());
        }
    }

    pub fn finish_progress(&self) {
        if let Some(pb) = self.progress.borrow_mut().take() {
            pb.finish_and_clear();
        }
    }

    /// One build, remembering when the query architecture turns out to be unavailable (so
    /// later query builds are skipped with the same reason instead of being retried).
    pub fn build(&self, b: &Build<'_>, expect_exit: &[i32]) -> Result<BuildRun, NoMeasurement> {
        if b.arch == "query" {
            if let Some(why) = &*self.query_unavailable.borrow() {
                return Err(NoMeasurement::Unavailable(why.clone()));
            }
        }
        let r = self.rill.build(b, expect_exit);
        // Only a build without extra options proves the architecture itself unavailable
        // (an unknown option is unavailable on its own).
        if let (Err(NoMeasurement::Unavailable(why)), "query", true) =
            (&r, b.arch, b.args.is_empty())
        {
            *self.query_unavailable.borrow_mut() = Some(why.clone());
        }
        r
    }

    pub fn timeout(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(self.profile.build_timeout_s))
    }
}

/// Makes the directory `to` hold rill's cache directory `from` as it is: a snapshot of a
/// cache, or its restore before a timed build. A file rill never writes in place
/// ([`query_driver::cache_file_replaced_whole`]: the cache files and the link states'
/// bases) is shared rather than copied: left as it is when `to` holds that very file (the
/// same inode) already, else hard-linked (copied where a link fails). Every other file is
/// copied anew (never written through an old copy, which could be a link), and what `to`
/// holds that `from` does not is removed. Returns how many of the shared files `to` did
/// not hold already.
///
/// A build on one side then never changes the other: it writes a shared file only by
/// renaming a new one over it. And a restore leaves a file shared with the snapshot with
/// its metadata, as the previous build of a user's loop leaves it, so rill's records of
/// files it checked completely (`*.checked`: size, times, inode) still name it. A copy
/// would be a new file with a new inode and change time: every timed build would check
/// the whole of the link state's code and of the cache's reverse edges again, which a
/// user's loop does once after a base is written. (A hard link changes the file's change
/// time too, once: the history of an [`exps::IncrementalRun`] builds after the snapshot
/// is linked, so that the records name the shared files.)
pub fn mirror_cache(from: &Path, to: &Path) -> std::io::Result<usize> {
    use std::os::unix::fs::MetadataExt;
    let mut placed = 0;
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(to)? {
        let entry = entry?;
        let kept = std::fs::symlink_metadata(from.join(entry.file_name()))
            .is_ok_and(|m| m.is_dir() == entry.file_type().is_ok_and(|t| t.is_dir()));
        if !kept {
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(entry.path())?;
            } else {
                std::fs::remove_file(entry.path())?;
            }
        }
    }
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            placed += mirror_cache(&source, &target)?;
            continue;
        }
        let shared = query_driver::cache_file_replaced_whole(&entry.file_name());
        if shared {
            let meta = entry.metadata()?;
            if std::fs::symlink_metadata(&target)
                .is_ok_and(|t| (t.dev(), t.ino()) == (meta.dev(), meta.ino()))
            {
                continue;
            }
            placed += 1;
        }
        match std::fs::remove_file(&target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        if shared && std::fs::hard_link(&source, &target).is_ok() {
            continue;
        }
        std::fs::copy(&source, &target)?;
    }
    Ok(placed)
}

/// The files under the cache directory `dir` that rill never writes in place (see
/// [`mirror_cache`]).
pub fn replaced_whole_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        match entry.file_type() {
            Ok(t) if t.is_dir() => out.extend(replaced_whole_files(&entry.path())),
            Ok(_) if query_driver::cache_file_replaced_whole(&entry.file_name()) => {
                out.push(entry.path())
            }
            _ => {}
        }
    }
    out
}

/// Replaces `to` by a tree of the directories of `from`, each file put in place by
/// `place(file, target)`.
pub fn replace_tree(
    from: &Path,
    to: &Path,
    place: &dyn Fn(&Path, &Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to)?;
    }
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            replace_tree(&entry.path(), &target, place)?;
        } else {
            place(&entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The total size of the files under `dir`, in bytes.
pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}

pub mod corpus_check;

/// The workspace root (for `results/`, `paper/`, the commit).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The values of a `values.json` (none when it is missing or unreadable).
pub fn read_values(path: &Path) -> BTreeMap<String, serde_json::Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// What a suite run produced.
#[derive(Debug, Default)]
pub struct SuiteReport {
    pub summary: serde_json::Value,
    pub warnings: Vec<String>,
    pub paper_words: Option<usize>,
}

/// Runs the experiments `ids` (in suite order), writing their CSVs, figures, values,
/// `meta.json` and `summary.json`; with `corpus`, the corpus check first; with `paper`,
/// regenerates the paper at the end.
pub fn run_suite(
    ctx: &Ctx,
    ids: &[String],
    corpus: bool,
    paper_too: bool,
) -> Result<SuiteReport, String> {
    std::fs::create_dir_all(&ctx.results)
        .map_err(|e| format!("cannot create `{}`: {e}", ctx.results.display()))?;
    let mut report = SuiteReport::default();
    let mut meta = meta::collect(&workspace_root(), &ctx.profile);
    meta["instructions"] = match ctx.callgrind_out() {
        Some(_) => "counted once per configuration under valgrind --tool=callgrind".into(),
        None => "not counted".into(),
    };
    let write_meta = |meta: &serde_json::Value| {
        std::fs::write(
            ctx.results.join("meta.json"),
            serde_json::to_vec_pretty(meta).unwrap_or_default(),
        )
        .map_err(|e| format!("cannot write meta.json: {e}"))
    };
    write_meta(&meta)?;
    let values_path = ctx.results.join("values.json");
    let mut values = read_values(&values_path);
    if corpus {
        match corpus_check::run(true) {
            Ok(c) => {
                values.insert("corpus.passed".into(), c.passed.into());
                values.insert("corpus.failed".into(), c.failed.into());
                values.insert("corpus.programs".into(), (c.passed + c.failed).into());
                if c.failed > 0 {
                    report
                        .warnings
                        .push(format!("corpus: {} programs failed", c.failed));
                }
            }
            Err(e) => report.warnings.push(format!("corpus: {e}")),
        }
    }
    let mut summary_updates = Vec::new();
    let mut loads = Vec::new();
    for e in exps::ALL.iter().filter(|e| ids.iter().any(|i| i == e.id)) {
        eprintln!("{}: {} ...", e.id.to_uppercase(), e.title);
        let start = std::time::Instant::now();
        let load_before = meta::load_average();
        let mut outcome = (e.run)(ctx).unwrap_or_else(|why| {
            ctx.finish_progress();
            let mut o = Outcome::default();
            o.rows
                .push(Row::new("experiment", "-", 0).without_number(format!("failed: {why}")));
            o.warnings.push(format!("{}: {why}", e.id));
            o
        });
        ctx.finish_progress();
        fill_lines(ctx, &mut outcome.rows);
        loads.push(meta::ExperimentLoad {
            id: e.id.to_string(),
            before: load_before,
            after: meta::load_average(),
            seconds: start.elapsed().as_secs_f64(),
        });
        let csv = ctx.results.join(exps::csv_name(e));
        table::write_csv(&csv, &outcome.rows)?;
        outcome.samples.extend(ctx.take_samples());
        for s in &mut outcome.samples {
            s.experiment = e.id.to_string();
        }
        samples::write_csv(
            &ctx.results.join("samples").join(exps::csv_name(e)),
            &outcome.samples,
        )?;
        if !outcome.phases.is_empty() {
            for p in &mut outcome.phases {
                p.experiment = e.id.to_string();
                if p.lines.is_none() && p.shape == table::DEFAULT_SHAPE {
                    p.lines = ctx.actual_lines(Shape::Default, p.size, exps::SEED);
                }
            }
            phases::write_csv(&ctx.results.join(phases::csv_name(e.id)), &outcome.phases)?;
        }
        for (name, text) in &outcome.files {
            let path = ctx.results.join(name);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
        match plot::figures(e.id, &outcome.rows, &ctx.results.join("figures")) {
            Ok(_) => {}
            Err(why) => report.warnings.push(format!("{} figures: {why}", e.id)),
        }
        // Keys this experiment owns are replaced as a whole (stale ones dropped).
        let prefix = format!("{}.", e.id);
        values.retain(|k, _| !k.starts_with(&prefix));
        values.extend(outcome.values.clone());
        summary_updates.extend(outcome.summary.clone());
        let bad = outcome.rows.iter().filter(|r| r.status != "ok").count();
        eprintln!(
            "{}: {} rows ({} without a number), {} samples in {:.1} s -> {}",
            e.id.to_uppercase(),
            outcome.rows.len(),
            bad,
            outcome.samples.len(),
            start.elapsed().as_secs_f64(),
            csv.display()
        );
        for (k, v) in &outcome.summary {
            match v {
                Ok(iv) => eprintln!(
                    "  {k} = {} [{}, {}] (n = {})",
                    paper::format_number(iv.value),
                    paper::format_number(iv.low),
                    paper::format_number(iv.high),
                    iv.n
                ),
                Err(why) => eprintln!("  {k} = null ({why})"),
            }
        }
        if let Some(first) = outcome
            .rows
            .iter()
            .find(|r| r.status.starts_with("unavailable"))
        {
            report.warnings.push(format!("{}: {}", e.id, first.status));
        }
        report.warnings.extend(outcome.warnings);
        report.warnings.extend(
            ctx.take_warnings()
                .into_iter()
                .map(|w| format!("{}: {w}", e.id)),
        );
    }
    meta["experiments"] = meta::loads_json(&loads);
    if let Some(mib) = meta::reported_mib_since(&meta["machine"]["free_page_reporting"]) {
        meta["machine"]["free_page_reporting"]["reported_mib_during_run"] =
            ((mib * 10.0).round() / 10.0).into();
    }
    let (per_core, sentence) = meta::load_values(&loads, meta::cores());
    meta["max_load_per_core"] = per_core.map_or(serde_json::Value::Null, Into::into);
    write_meta(&meta)?;
    values.insert(
        "meta.max_load_per_core".into(),
        per_core.map_or(serde_json::Value::Null, |p| {
            ((p * 100.0).round() / 100.0).into()
        }),
    );
    values.insert("meta.load_sentence".into(), sentence.into());
    values.insert("meta.warmup_rounds".into(), ctx.profile.warmup.into());
    std::fs::write(
        &values_path,
        serde_json::to_vec_pretty(&values).unwrap_or_default(),
    )
    .map_err(|e| format!("cannot write values.json: {e}"))?;
    report.summary = summary::update(&ctx.results.join("summary.json"), &summary_updates)?;
    if paper_too {
        match paper::regenerate(&ctx.paper_dir, &ctx.results) {
            Ok(words) => report.paper_words = Some(words),
            Err(why) => report.warnings.push(format!("paper: {why}")),
        }
    }
    Ok(report)
}

/// Sets the `lines` column of the rows of the default shape that lack it: the actual line
/// count of the program generated for the row's size in this run (every experiment
/// generates from [`exps::SEED`]); rows of sizes no program was generated for keep none.
fn fill_lines(ctx: &Ctx, rows: &mut [Row]) {
    for r in rows.iter_mut().filter(|r| r.lines.is_none() && r.size > 0) {
        if r.is_default_shape() {
            r.lines = ctx.actual_lines(Shape::Default, r.size, exps::SEED);
        }
    }
}

/// Redraws every figure from the CSVs in `results/`.
pub fn redraw(results: &Path) -> Result<usize, String> {
    let mut n = 0;
    for e in exps::ALL {
        let csv = results.join(exps::csv_name(e));
        if csv.is_file() {
            let rows = table::read_csv(&csv)?;
            n += plot::figures(e.id, &rows, &results.join("figures"))?.len();
        }
    }
    Ok(n)
}
