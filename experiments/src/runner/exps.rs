//! The experiments E1–E10 of DESIGN.md ("Experiments"), each a function from the context
//! to its rows, paper values and headline keys. Every build is a new `rill` (or `rustc`)
//! process.
//! A measurement that cannot be made (an architecture or option this `rill` lacks, a
//! failed build) becomes a row whose `status` says why, with empty numbers.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rill_gen::{EditKind, Program};

use super::process;
use super::rill::{Build, BuildRun, BuildStats, Mode, NoMeasurement};
use super::stats::{self, spread};
use super::table::{self, Row};
use super::workload::{self, OnDisk};
use super::{copy_dir, dir_size, Ctx, Outcome};

/// The seed of every generated workload.
pub const SEED: u64 = 7;

/// The oracle's rustc flags (experiments/tests/oracle.rs, LANGUAGE.md "The reference
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

/// One experiment of the suite.
pub struct Experiment {
    pub id: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub run: fn(&Ctx) -> Result<Outcome, String>,
}

/// The suite, in order.
pub const ALL: &[Experiment] = &[
    Experiment {
        id: "e1",
        name: "scratch",
        title: "cost of a from-scratch build",
        run: e1,
    },
    Experiment {
        id: "e2",
        name: "hashing",
        title: "share of hashing",
        run: e2,
    },
    Experiment {
        id: "e3",
        name: "edits",
        title: "rebuilds per kind of edit",
        run: e3,
    },
    Experiment {
        id: "e4",
        name: "cutoff",
        title: "early cutoff off",
        run: e4,
    },
    Experiment {
        id: "e5",
        name: "positions",
        title: "edits at the top of a file",
        run: e5,
    },
    Experiment {
        id: "e6",
        name: "scaling",
        title: "rebuild cost against size",
        run: e6,
    },
    Experiment {
        id: "e7",
        name: "persistence",
        title: "cache size, load and save",
        run: e7,
    },
    Experiment {
        id: "e8",
        name: "rustc",
        title: "comparison with rustc",
        run: e8,
    },
    Experiment {
        id: "e9",
        name: "codegen",
        title: "run time of generated code",
        run: e9,
    },
    Experiment {
        id: "e10",
        name: "diagnostics",
        title: "time to first diagnostic",
        run: e10,
    },
];

/// The CSV file name of an experiment: `e03-edits.csv`.
pub fn csv_name(e: &Experiment) -> String {
    let n: u32 = e.id[1..].parse().unwrap_or(0);
    format!("e{n:02}-{}.csv", e.name)
}

// ---------------------------------------------------------------------------------------
// Measurement helpers.

/// A row from repeated builds: wall-time spread, and counters of the last build.
pub fn row_from(
    scenario: &str,
    arch: &str,
    size: usize,
    runs: &Result<Vec<BuildRun>, NoMeasurement>,
) -> Row {
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

/// `reps` builds, each after `prepare`.
pub fn repeat(
    ctx: &Ctx,
    reps: usize,
    mut prepare: impl FnMut() -> Result<(), String>,
    b: &Build<'_>,
    expect: &[i32],
) -> Result<Vec<BuildRun>, NoMeasurement> {
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
) -> Result<Vec<BuildRun>, NoMeasurement> {
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
) -> [Result<Vec<BuildRun>, NoMeasurement>; N] {
    let mut out: [Result<Vec<BuildRun>, NoMeasurement>; N] =
        std::array::from_fn(|_| Ok(Vec::new()));
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

/// An incremental rebuild: a query build of `before` on an empty cache in `dir`, then
/// for every repetition the cache is restored to that state, `after` is written, built
/// (timed) and `before` written back. `after == before` measures a no-change rebuild.
#[allow(clippy::too_many_arguments)]
pub fn incremental(
    ctx: &Ctx,
    dir: &Path,
    before: &Program,
    after: &Program,
    mode: Mode,
    args: &[&str],
    expect_before: &[i32],
    expect_after: &[i32],
) -> Result<Vec<BuildRun>, NoMeasurement> {
    incremental_after(
        ctx,
        dir,
        &[(before, expect_before)],
        after,
        mode,
        args,
        expect_after,
    )
}

/// [`incremental`] after a history: the programs of `history` are built in order on an
/// empty cache (each with its expected exit codes), the cache is snapshotted, and every
/// repetition restores the snapshot and the last program of the history, then builds
/// `after` (timed). A history (good, with an error) measures the build after the fix on
/// the cache the erroneous build left, as a user's loop would.
pub fn incremental_after(
    ctx: &Ctx,
    dir: &Path,
    history: &[(&Program, &[i32])],
    after: &Program,
    mode: Mode,
    args: &[&str],
    expect_after: &[i32],
) -> Result<Vec<BuildRun>, NoMeasurement> {
    incremental_paired(ctx, dir, history, after, mode, args, expect_after, None).0
}

/// A build timed in the same rounds as an incremental rebuild, with its expected exit
/// codes (see [`incremental_paired`]).
pub type Paired<'a> = (&'a Build<'a>, &'a [i32]);

/// [`incremental_after`], and `pair` (typically the pipeline building the same program
/// from scratch) built once in every repetition, just before the timed rebuild: a burst
/// of load on a shared machine then falls on both alike, and their ratio stays
/// comparable, as with [`scratch_rounds`]. The second result holds the paired builds
/// (empty without `pair`); when the incremental builds cannot start, `pair` is still
/// built its repetitions on its own.
#[allow(clippy::too_many_arguments)]
pub fn incremental_paired(
    ctx: &Ctx,
    dir: &Path,
    history: &[(&Program, &[i32])],
    after: &Program,
    mode: Mode,
    args: &[&str],
    expect_after: &[i32],
    pair: Option<Paired<'_>>,
) -> (
    Result<Vec<BuildRun>, NoMeasurement>,
    Result<Vec<BuildRun>, NoMeasurement>,
) {
    let reps = ctx.profile.reps.max(1);
    let alone = |why: NoMeasurement| {
        let paired = match pair {
            Some((b, expect)) => repeat(ctx, reps, || Ok(()), b, expect),
            None => Ok(Vec::new()),
        };
        (Err(why), paired)
    };
    let fail = |e: String| NoMeasurement::Failed(e);
    let Some((first, _)) = history.first() else {
        return alone(fail("empty history".to_string()));
    };
    let mut disk = match OnDisk::create(&dir.join("prog"), (*first).clone()) {
        Ok(d) => d,
        Err(e) => return alone(fail(e)),
    };
    let cache = dir.join("cache");
    let snapshot = dir.join("cache-snapshot");
    let _ = std::fs::remove_dir_all(&cache);
    let root = disk.root();
    let base = Build {
        mode,
        arch: "query",
        root: &root,
        cache_dir: Some(&cache),
        args,
        timeout: ctx.timeout(),
    };
    for (program, expect) in history {
        if let Err(e) = disk.replace((*program).clone()) {
            return alone(fail(e));
        }
        if let Err(e) = ctx.build(&base, expect) {
            return alone(e);
        }
    }
    let before = disk.program.clone();
    if let Err(e) = copy_dir(&cache, &snapshot) {
        return alone(fail(format!("cache snapshot: {e}")));
    }
    let mut out = Ok(Vec::new());
    let mut paired = Ok(Vec::new());
    for _ in 0..reps {
        if let (Some((b, expect)), Ok(runs)) = (pair, &mut paired) {
            match ctx.build(b, expect) {
                Ok(r) => runs.push(r),
                Err(e) => paired = Err(e),
            }
        }
        let Ok(runs) = &mut out else { continue };
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
            Err(e) => out = Err(e),
        }
    }
    (out, paired)
}

fn median(rows: &[Row], scenario: &str, arch: &str, size: usize) -> Option<f64> {
    table::median_of(rows, scenario, arch, size)
}

fn first_error(rows: &[Row], scenarios: &[(&str, &str, usize)]) -> String {
    for (s, a, n) in scenarios {
        match table::find(rows, s, a, *n) {
            Some(r) if !r.is_ok() => return format!("{s}/{a} at {n} lines: {}", r.status),
            None => return format!("{s}/{a} at {n} lines: not measured"),
            _ => {}
        }
    }
    "not measured".to_string()
}

fn ratio_or_reason(
    rows: &[Row],
    num: (&str, &str, usize),
    den: (&str, &str, usize),
) -> (Option<f64>, String) {
    let v = stats::ratio(
        median(rows, num.0, num.1, num.2),
        median(rows, den.0, den.1, den.2),
    );
    (v, first_error(rows, &[num, den]))
}

fn image_check(
    rows: &mut [Row],
    pipeline: &Result<Vec<BuildRun>, NoMeasurement>,
    other: &Result<Vec<BuildRun>, NoMeasurement>,
    idx: usize,
) {
    let hash = |r: &Result<Vec<BuildRun>, NoMeasurement>| {
        r.as_ref().ok()?.last()?.stats.as_ref()?.image_hash.clone()
    };
    if let (Some(a), Some(b)) = (hash(pipeline), hash(other)) {
        if a != b {
            rows[idx].note =
                "image_hash differs from the pipeline's (invariant 1 broken)".to_string();
        } else {
            rows[idx].note = "image_hash equals the pipeline's".to_string();
        }
    }
}

// ---------------------------------------------------------------------------------------
// E1: from-scratch builds against size, and the pipeline's throughput.

/// The pipeline's stages as the throughput rows of E1 group its `phases_ms`: the
/// front end's checks are one stage (items to type checking), code generation includes
/// linking.
const PIPELINE_STAGES: [(&str, &[&str]); 5] = [
    ("parse", &["parse"]),
    (
        "check",
        &["items", "resolve", "collect", "consteval", "typeck"],
    ),
    ("lower", &["lower"]),
    ("optimize", &["optimize"]),
    ("codegen", &["codegen", "link"]),
];

pub fn e1(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let sizes = ctx.profile.sizes.clone();
    ctx.start_progress("E1", sizes.len() as u64);
    let dir = ctx.dir("e1");
    for &size in &sizes {
        let disk = OnDisk::create(&dir.join(format!("p{size}")), ctx.program(size, SEED))?;
        let lines = disk.program.total_lines();
        let root = disk.root();
        ctx.set_message(&format!("pipeline and query, {lines} lines"));
        let cache = dir.join(format!("cache{size}"));
        let [pipe, mem, disk_runs] = scratch_rounds(
            ctx,
            Mode::Run,
            &root,
            &[("pipeline", None), ("query", None), ("query", Some(&cache))],
            &[],
        );
        o.rows.push(row_from("scratch", "pipeline", size, &pipe));
        if let Ok(runs) = &pipe {
            // Lines per second of each run, over the phases `counts` selects.
            let lps = |counts: &dyn Fn(&str) -> bool| -> Vec<f64> {
                runs.iter()
                    .filter_map(|r| r.stats.as_ref())
                    .map(|s| {
                        s.phases_ms
                            .iter()
                            .filter(|p| counts(&p.0))
                            .map(|p| p.1)
                            .sum::<f64>()
                    })
                    .filter(|ms| *ms > 0.0)
                    .map(|ms| lines as f64 / (ms / 1e3))
                    .collect()
            };
            let mut r = Row::new("throughput", "pipeline", size)
                .with_spread(spread(&lps(&|_| true)), "lines/s");
            r.note = format!("{lines} lines / sum of phases_ms (parse to link)");
            o.rows.push(r);
            for (stage, phases) in PIPELINE_STAGES {
                let mut r = Row::new(format!("throughput {stage}"), "pipeline", size)
                    .with_spread(spread(&lps(&|p| phases.contains(&p))), "lines/s");
                r.note = format!("{lines} lines / phases_ms of {}", phases.join(", "));
                o.rows.push(r);
            }
        }
        o.rows.push(row_from("scratch", "query-memory", size, &mem));
        let n = o.rows.len() - 1;
        image_check(&mut o.rows, &pipe, &mem, n);
        o.rows
            .push(row_from("scratch", "query-disk", size, &disk_runs));
        let n = o.rows.len() - 1;
        image_check(&mut o.rows, &pipe, &disk_runs, n);
        ctx.step();
    }
    ctx.finish_progress();
    let big = *sizes.last().unwrap_or(&0);
    let (v, why) = ratio_or_reason(
        &o.rows,
        ("scratch", "query-disk", big),
        ("scratch", "pipeline", big),
    );
    o.headline("e1_query_over_pipeline", v, why);
    let (v, _) = ratio_or_reason(
        &o.rows,
        ("scratch", "query-memory", big),
        ("scratch", "pipeline", big),
    );
    o.value("e1.memory_over_pipeline", v);
    let lps = median(&o.rows, "throughput", "pipeline", big);
    o.headline(
        "pipeline_lines_per_s",
        lps,
        first_error(&o.rows, &[("throughput", "pipeline", big)]),
    );
    for (stage, _) in PIPELINE_STAGES {
        o.value(
            &format!("e1.{stage}_lines_per_s"),
            median(&o.rows, &format!("throughput {stage}"), "pipeline", big),
        );
    }
    o.value("e1.size", Some(big as f64));
    for arch in ["pipeline", "query-memory", "query-disk"] {
        let key = arch.replace('-', "_");
        o.value(
            &format!("e1.{key}_ms"),
            median(&o.rows, "scratch", arch, big),
        );
        let rss = table::find(&o.rows, "scratch", arch, big)
            .filter(|r| r.is_ok())
            .and_then(|r| r.peak_rss_kb);
        o.value(&format!("e1.{key}_rss_mib"), rss.map(|k| k as f64 / 1024.0));
        o.value(
            &format!("e1.{key}_ms_smallest"),
            median(&o.rows, "scratch", arch, sizes[0]),
        );
    }
    o.value("e1.smallest_size", Some(sizes[0] as f64));
    let tp: Vec<(f64, f64)> = sizes
        .iter()
        .filter_map(|s| median(&o.rows, "scratch", "pipeline", *s).map(|m| (*s as f64, m)))
        .collect();
    o.value("e1.pipeline_slope", stats::loglog_slope(&tp));
    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E2: hashing: time and bytes per query kind, three hashers, fingerprint vs equality.

pub fn e2(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E2", 5);
    let dir = ctx.dir("e2");
    let program = ctx.program(size, SEED);
    let disk = OnDisk::create(&dir.join("prog"), program.clone())?;
    let root = disk.root();
    let pipe = scratch(ctx, Mode::Run, "pipeline", &root, None, &[]);
    o.rows.push(row_from("scratch", "pipeline", size, &pipe));
    ctx.step();
    for hasher in ["sip128", "xxh3", "blake3"] {
        ctx.set_message(hasher);
        let args = ["--hasher", hasher];
        let cache = dir.join(format!("cache-{hasher}"));
        let runs = scratch(ctx, Mode::Run, "query", &root, Some(&cache), &args);
        let arch = format!("query-{hasher}");
        o.rows.push(row_from("scratch", &arch, size, &runs));
        match &runs {
            Ok(r) => {
                let shares: Vec<f64> = r
                    .iter()
                    .filter_map(|b| b.stats.as_ref())
                    .filter(|s| s.total_ms > 0.0)
                    .map(|s| 100.0 * s.hash_ms() / s.total_ms)
                    .collect();
                let mut share =
                    Row::new("hash-share", &arch, size).with_spread(spread(&shares), "percent");
                fill_counters(&mut share, r);
                let wall: Vec<f64> = r
                    .iter()
                    .filter_map(|b| Some(100.0 * b.stats.as_ref()?.hash_ms() / b.proc.wall_ms))
                    .collect();
                let mut w = Row::new("hash-share-of-wall", &arch, size)
                    .with_spread(spread(&wall), "percent");
                w.note = "engine.hash_ms / wall time of the whole process".to_string();
                o.rows.push(w);
                share.note =
                    "engine.hash_ms / total_ms (the compiler's whole build: cache load, check, codegen, link, cache save)"
                        .to_string();
                o.rows.push(share);
                if let Some(last) = r.iter().rev().find_map(|b| b.stats.as_ref()) {
                    for (kind, q) in &last.queries {
                        let ms: Vec<f64> = r
                            .iter()
                            .filter_map(|b| b.stats.as_ref()?.queries.get(kind).map(|q| q.hash_ms))
                            .collect();
                        let mut row = Row::new(format!("kind:{kind}"), &arch, size)
                            .with_spread(spread(&ms), "ms");
                        row.executed = Some(q.executed);
                        row.green = Some(q.green);
                        row.loaded = Some(q.loaded);
                        row.hashed_bytes = Some(q.hashed_bytes);
                        row.hash_ms = Some(q.hash_ms);
                        row.note = format!(
                            "hash time of kind `{kind}`; provider {:.2} ms",
                            q.provider_ms
                        );
                        o.rows.push(row);
                    }
                }
            }
            Err(e) => o
                .rows
                .push(Row::new("hash-share", &arch, size).without_number(e.status())),
        }
        ctx.step();
    }
    // Fingerprint against equality cutoff, on a leaf-body edit.
    ctx.set_message("cutoff by equality");
    let leaf = ctx.leaf_edits(size, SEED);
    let edit = &leaf
        .changing
        .as_ref()
        .ok_or("no leaf-body edit that changes machine code")?
        .0;
    for (cutoff, arch) in [
        ("fingerprint", "query-fingerprint"),
        ("equality", "query-equality"),
    ] {
        let args = ["--cutoff", cutoff];
        let runs = incremental(
            ctx,
            &dir.join(format!("cut-{cutoff}")),
            &program,
            &edit.program,
            Mode::Run,
            &args,
            &[0],
            &[0],
        );
        o.rows.push(row_from("leaf-body", arch, size, &runs));
    }
    ctx.step();
    ctx.finish_progress();
    let share = median(&o.rows, "hash-share", "query-sip128", size).map(|p| p / 100.0);
    o.headline(
        "e2_hash_share",
        share,
        first_error(&o.rows, &[("hash-share", "query-sip128", size)]),
    );
    o.value("e2.size", Some(size as f64));
    for h in ["sip128", "xxh3", "blake3"] {
        let arch = format!("query-{h}");
        o.value(
            &format!("e2.{h}_ms"),
            median(&o.rows, "scratch", &arch, size),
        );
        o.value(
            &format!("e2.{h}_share_percent"),
            median(&o.rows, "hash-share", &arch, size),
        );
        o.value(
            &format!("e2.{h}_wall_share_percent"),
            median(&o.rows, "hash-share-of-wall", &arch, size),
        );
        o.value(
            &format!("e2.{h}_hash_ms"),
            table::find(&o.rows, "hash-share", &arch, size)
                .filter(|r| r.is_ok())
                .and_then(|r| r.hash_ms),
        );
    }
    o.value(
        "e2.pipeline_ms",
        median(&o.rows, "scratch", "pipeline", size),
    );
    let bytes = table::find(&o.rows, "hash-share", "query-sip128", size)
        .filter(|r| r.is_ok())
        .and_then(|r| r.hashed_bytes);
    o.value("e2.hashed_mib", bytes.map(|b| b as f64 / (1024.0 * 1024.0)));
    o.value(
        "e2.fingerprint_leaf_ms",
        median(&o.rows, "leaf-body", "query-fingerprint", size),
    );
    o.value(
        "e2.equality_leaf_ms",
        median(&o.rows, "leaf-body", "query-equality", size),
    );
    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E3 and E4: every kind of edit, with and without early cutoff.

/// One edit scenario of E3 and E4: the builds before it (the last one's cache is the
/// starting point), the edited program and its expected exit code.
struct EditCase {
    name: String,
    history: Vec<(Program, [i32; 1])>,
    after: Program,
    expect_after: [i32; 1],
    description: String,
    /// Functions whose machine code the edit changes (leaf-body edits only).
    code_changes: Option<usize>,
}

/// Every kind of edit on `program` (of about `size` lines). The leaf-body edit is one
/// that changes machine code; when the generator's first choice changes none (a folded
/// literal), it is measured as well, as `leaf-body-folded`. The error fix is measured on
/// the cache left by a good build followed by the build with the error.
fn edit_cases(ctx: &Ctx, program: &Program, size: usize) -> Vec<EditCase> {
    let mut out = Vec::new();
    let mut error_program = None;
    let simple = |name: &str, after: Program, ea: i32, description: String| EditCase {
        name: name.to_string(),
        history: vec![(program.clone(), [0])],
        after,
        expect_after: [ea],
        description,
        code_changes: None,
    };
    for &kind in EditKind::ALL {
        match kind {
            EditKind::FixError => {
                let Some(bad) = &error_program else { continue };
                if let Some(e) = workload::edit(bad, EditKind::FixError, SEED) {
                    out.push(EditCase {
                        name: kind.name().to_string(),
                        history: vec![(program.clone(), [0]), (bad.clone(), [1])],
                        after: e.program,
                        expect_after: [0],
                        description: e.description,
                        code_changes: None,
                    });
                }
            }
            EditKind::IntroduceError => {
                if let Some(e) = workload::edit(program, kind, SEED) {
                    error_program = Some(e.program.clone());
                    out.push(simple(kind.name(), e.program, 1, e.description));
                }
            }
            EditKind::LeafBody => {
                let leaf = ctx.leaf_edits(size, SEED);
                if let Some((e, n)) = &leaf.changing {
                    let mut c = simple(kind.name(), e.program.clone(), 0, e.description.clone());
                    c.code_changes = Some(*n);
                    out.push(c);
                }
                if let Some(e) = &leaf.folded {
                    let mut c = simple(
                        "leaf-body-folded",
                        e.program.clone(),
                        0,
                        format!("{} (folded by the optimizer)", e.description),
                    );
                    c.code_changes = Some(0);
                    out.push(c);
                }
            }
            _ => {
                if let Some(e) = workload::edit(program, kind, SEED) {
                    out.push(simple(kind.name(), e.program, 0, e.description));
                }
            }
        }
    }
    out
}

fn edits_experiment(
    ctx: &Ctx,
    label: &str,
    args: &[&str],
    arch: &str,
    with_pipeline: bool,
) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    let program = ctx.program(size, SEED);
    let cases = edit_cases(ctx, &program, size);
    ctx.start_progress(label, cases.len() as u64 + 1);
    let dir = ctx.dir(&label.to_lowercase());
    let disk = OnDisk::create(&dir.join("base"), program.clone())?;
    let base_root = disk.root();
    // With the pipeline, every query series is paired with the pipeline building the same
    // program from scratch, in the same rounds.
    let timeout = ctx.timeout();
    fn pipeline(root: &Path, timeout: Option<std::time::Duration>) -> Build<'_> {
        Build {
            mode: Mode::Run,
            arch: "pipeline",
            root,
            cache_dir: None,
            args: &[],
            timeout,
        }
    }
    let base_pipe = pipeline(&base_root, timeout);
    let (noop, pipe) = incremental_paired(
        ctx,
        &dir.join("noop"),
        &[(&program, &[0])],
        &program,
        Mode::Run,
        args,
        &[0],
        with_pipeline.then_some((&base_pipe, &[0])),
    );
    if with_pipeline {
        o.rows.push(row_from("scratch", "pipeline", size, &pipe));
    }
    o.rows.push(row_from("no-change", arch, size, &noop));
    ctx.step();
    for case in &cases {
        ctx.set_message(&case.name);
        let history: Vec<(&Program, &[i32])> = case
            .history
            .iter()
            .map(|(p, e)| (p, e.as_slice()))
            .collect();
        let pd = if with_pipeline {
            Some(OnDisk::create(
                &dir.join(format!("{}-pipeline", case.name)),
                case.after.clone(),
            )?)
        } else {
            None
        };
        let pd_root = pd.as_ref().map(OnDisk::root);
        let pb = pd_root.as_deref().map(|r| pipeline(r, timeout));
        let (runs, pr) = incremental_paired(
            ctx,
            &dir.join(&case.name),
            &history,
            &case.after,
            Mode::Run,
            args,
            &case.expect_after,
            pb.as_ref().map(|b| (b, case.expect_after.as_slice())),
        );
        let mut row = row_from(&case.name, arch, size, &runs);
        row.note = case.description.clone();
        if let Some(n) = case.code_changes {
            row.note
                .push_str(&format!("; machine code of {n} function(s) changes"));
        }
        if case.history.len() > 1 {
            row.note
                .push_str("; cache of a good build, then the build with the error");
        }
        o.rows.push(row);
        if with_pipeline {
            let mut row = row_from(&case.name, "pipeline", size, &pr);
            row.note =
                "the edited program from scratch, in rounds with the query rebuilds".to_string();
            o.rows.push(row);
        }
        ctx.step();
    }
    ctx.finish_progress();
    Ok(o)
}

pub fn e3(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = edits_experiment(ctx, "E3", &[], "query", true)?;
    let size = ctx.profile.main_size;
    // Each edit's ratio is over the pipeline building the edited program in the same
    // rounds as the query rebuilds.
    let (v, why) = ratio_or_reason(
        &o.rows,
        ("leaf-body", "query", size),
        ("leaf-body", "pipeline", size),
    );
    o.headline("e3_leaf_edit_over_pipeline", v, why);
    o.value("e3.size", Some(size as f64));
    o.value(
        "e3.pipeline_ms",
        median(&o.rows, "scratch", "pipeline", size),
    );
    o.value("e3.noop_ms", median(&o.rows, "no-change", "query", size));
    let names: Vec<&str> = EditKind::ALL
        .iter()
        .map(|k| k.name())
        .chain(["leaf-body-folded"])
        .collect();
    for name in names {
        let key = name.replace('-', "_");
        o.value(
            &format!("e3.{key}_ms"),
            median(&o.rows, name, "query", size),
        );
        let r = table::find(&o.rows, name, "query", size).filter(|r| r.is_ok());
        let (cg, ex) = (
            r.and_then(|r| r.codegen_executed),
            r.and_then(|r| r.executed),
        );
        o.value(&format!("e3.{key}_codegen"), cg.map(|c| c as f64));
        o.value(&format!("e3.{key}_executed"), ex.map(|c| c as f64));
    }
    let leaf = ctx.leaf_edits(size, SEED);
    o.value(
        "e3.leaf_body_code_changes",
        leaf.changing.as_ref().map(|(_, n)| *n as f64),
    );
    o.text(
        "e3.leaf_body_edit",
        leaf.changing
            .as_ref()
            .map_or("none found".to_string(), |(e, _)| e.description.clone()),
    );
    o.text(
        "e3.leaf_body_folded_edit",
        leaf.folded
            .as_ref()
            .map_or("none".to_string(), |e| e.description.clone()),
    );
    let ok: Vec<f64> = EditKind::ALL
        .iter()
        .filter_map(|k| {
            stats::ratio(
                median(&o.rows, k.name(), "query", size),
                median(&o.rows, k.name(), "pipeline", size),
            )
        })
        .collect();
    o.value(
        "e3.worst_over_pipeline",
        ok.iter().copied().reduce(f64::max),
    );
    o.value("e3.best_over_pipeline", ok.iter().copied().reduce(f64::min));
    Ok(o)
}

pub fn e4(ctx: &Ctx) -> Result<Outcome, String> {
    let mut on = edits_experiment(ctx, "E4", &[], "query-cutoff", false)?;
    let off = edits_experiment(ctx, "E4off", &["--cutoff", "off"], "query-no-cutoff", false)?;
    on.rows.extend(off.rows);
    let size = ctx.profile.main_size;
    on.value("e4.size", Some(size as f64));
    let mut savings = Vec::new();
    for kind in EditKind::ALL {
        let key = kind.name().replace('-', "_");
        let a = median(&on.rows, kind.name(), "query-cutoff", size);
        let b = median(&on.rows, kind.name(), "query-no-cutoff", size);
        on.value(&format!("e4.{key}_cutoff_ms"), a);
        on.value(&format!("e4.{key}_nocutoff_ms"), b);
        if let Some(r) = stats::ratio(b, a) {
            savings.push(r);
        }
    }
    on.value("e4.geomean_nocutoff_over_cutoff", stats::geomean(&savings));
    for (arch, key) in [("query-cutoff", "cutoff"), ("query-no-cutoff", "nocutoff")] {
        on.value(
            &format!("e4.noop_{key}_ms"),
            median(&on.rows, "no-change", arch, size),
        );
        let ex = table::find(&on.rows, "no-change", arch, size)
            .filter(|r| r.is_ok())
            .and_then(|r| r.executed)
            .map(|c| c as f64);
        on.value(&format!("e4.noop_{key}_executed"), ex);
    }
    Ok(on)
}

// ---------------------------------------------------------------------------------------
// E5: an edit at the top of the largest file: do positions cascade?

pub fn e5(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E5", 3);
    let dir = ctx.dir("e5");
    let program = ctx.program(size, SEED);
    let (moved, path) = workload::insert_at_top_of_largest_file(
        &program,
        "// A comment added at the top.\n\n// Every item below moves down three lines.\n",
    );
    let noop = incremental(
        ctx,
        &dir.join("noop"),
        &program,
        &program,
        Mode::Run,
        &[],
        &[0],
        &[0],
    );
    o.rows
        .push(row_from("no-change", "query-relative", size, &noop));
    ctx.step();
    let rel = incremental(
        ctx,
        &dir.join("relative"),
        &program,
        &moved,
        Mode::Run,
        &[],
        &[0],
        &[0],
    );
    let mut row = row_from("top-of-file", "query-relative", size, &rel);
    row.note = format!("3 lines inserted at the top of {path}");
    o.rows.push(row);
    ctx.step();
    let abs = incremental(
        ctx,
        &dir.join("absolute"),
        &program,
        &moved,
        Mode::Run,
        &["--spans", "absolute"],
        &[0],
        &[0],
    );
    let mut row = row_from("top-of-file", "query-absolute", size, &abs);
    row.note = format!("3 lines inserted at the top of {path}");
    o.rows.push(row);
    ctx.step();
    ctx.finish_progress();
    o.value("e5.size", Some(size as f64));
    o.text("e5.file", path);
    o.value(
        "e5.relative_ms",
        median(&o.rows, "top-of-file", "query-relative", size),
    );
    o.value(
        "e5.absolute_ms",
        median(&o.rows, "top-of-file", "query-absolute", size),
    );
    o.value(
        "e5.noop_ms",
        median(&o.rows, "no-change", "query-relative", size),
    );
    let cg = |arch: &str| {
        table::find(&o.rows, "top-of-file", arch, size)
            .filter(|r| r.is_ok())
            .and_then(|r| r.codegen_executed)
            .map(|c| c as f64)
    };
    let (a, b) = (cg("query-relative"), cg("query-absolute"));
    o.value("e5.relative_codegen", a);
    o.value("e5.absolute_codegen", b);
    let ex = |arch: &str| {
        table::find(&o.rows, "top-of-file", arch, size)
            .filter(|r| r.is_ok())
            .and_then(|r| r.executed)
            .map(|c| c as f64)
    };
    let (a, b) = (ex("query-relative"), ex("query-absolute"));
    o.value("e5.relative_executed", a);
    o.value("e5.absolute_executed", b);
    let kind = |runs: &Result<Vec<BuildRun>, NoMeasurement>, k: &str| {
        runs.as_ref()
            .ok()?
            .last()?
            .stats
            .as_ref()?
            .queries
            .get(k)
            .map(|q| q.executed as f64)
    };
    o.value("e5.relative_typeck", kind(&rel, "typeck"));
    o.value("e5.absolute_typeck", kind(&abs, "typeck"));
    o.value("e5.relative_item_ast", kind(&rel, "item_ast"));
    o.value("e5.absolute_item_ast", kind(&abs, "item_ast"));

    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E6: no-change and one-edit rebuilds against size.

pub fn e6(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let sizes = ctx.profile.sizes.clone();
    ctx.start_progress("E6", sizes.len() as u64 * 3);
    let dir = ctx.dir("e6");
    for &size in &sizes {
        let program = ctx.program(size, SEED);
        let disk = OnDisk::create(&dir.join(format!("p{size}")), program.clone())?;
        let root = disk.root();
        let b = Build {
            mode: Mode::Run,
            arch: "pipeline",
            root: &root,
            cache_dir: None,
            args: &[],
            timeout: ctx.timeout(),
        };
        // The pipeline's builds go in rounds with the no-change rebuilds (the headline).
        let (noop, pipe) = incremental_paired(
            ctx,
            &dir.join(format!("noop{size}")),
            &[(&program, &[0])],
            &program,
            Mode::Run,
            &[],
            &[0],
            Some((&b, &[0])),
        );
        o.rows.push(row_from("scratch", "pipeline", size, &pipe));
        ctx.step();
        o.rows.push(row_from("no-change", "query", size, &noop));
        ctx.step();
        let leaf = match &ctx.leaf_edits(size, SEED).changing {
            Some((e, _)) => incremental(
                ctx,
                &dir.join(format!("leaf{size}")),
                &program,
                &e.program,
                Mode::Run,
                &[],
                &[0],
                &[0],
            ),
            None => Err(NoMeasurement::Failed(
                "no leaf-body edit that changes machine code".to_string(),
            )),
        };
        o.rows.push(row_from("leaf-body", "query", size, &leaf));
        ctx.step();
    }
    ctx.finish_progress();
    for (scenario, arch) in [
        ("scratch", "pipeline"),
        ("no-change", "query"),
        ("leaf-body", "query"),
    ] {
        let pts: Vec<(f64, f64)> = sizes
            .iter()
            .filter_map(|s| median(&o.rows, scenario, arch, *s).map(|m| (*s as f64, m)))
            .collect();
        let slope = stats::loglog_slope(&pts);
        let mut r = Row::new(format!("slope:{scenario}"), arch, 0);
        r.unit = "exponent".to_string();
        r.repetitions = pts.len();
        r.median = slope;
        if slope.is_none() {
            r.status = "failed: fewer than two sizes measured".to_string();
        }
        r.note = "least-squares slope of log(median ms) against log(lines)".to_string();
        o.rows.push(r);
        o.value(&format!("e6.slope_{}", scenario.replace('-', "_")), slope);
    }
    let big = *sizes.last().unwrap_or(&0);
    let (v, why) = ratio_or_reason(
        &o.rows,
        ("no-change", "query", big),
        ("scratch", "pipeline", big),
    );
    o.headline("e6_noop_over_pipeline", v, why);
    let (v, _) = ratio_or_reason(
        &o.rows,
        ("leaf-body", "query", big),
        ("scratch", "pipeline", big),
    );
    o.value("e6.leaf_over_pipeline", v);
    o.value("e6.size", Some(big as f64));
    o.value("e6.noop_ms", median(&o.rows, "no-change", "query", big));
    o.value("e6.leaf_ms", median(&o.rows, "leaf-body", "query", big));
    o.value(
        "e6.pipeline_ms",
        median(&o.rows, "scratch", "pipeline", big),
    );
    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E7: persistence: cache size, load and save time; per-item vs per-file granularity.

pub fn e7(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let sizes = ctx.profile.sizes.clone();
    ctx.start_progress("E7", sizes.len() as u64 * 2);
    let dir = ctx.dir("e7");
    for &size in &sizes {
        let program = ctx.program(size, SEED);
        let disk = OnDisk::create(&dir.join(format!("p{size}")), program.clone())?;
        for gran in ["item", "file"] {
            let file_args = ["--granularity", "file"];
            let gargs: &[&str] = if gran == "file" { &file_args } else { &[] };
            let arch = format!("query-{gran}");
            let cache = dir.join(format!("cache-{gran}-{size}"));
            let runs = scratch(ctx, Mode::Run, "query", &disk.root(), Some(&cache), gargs);
            match &runs {
                Ok(r) => {
                    let bytes = dir_size(&cache) as f64;
                    let mut row = Row::new("cache-size", &arch, size);
                    row.median = Some(bytes);
                    row.min = Some(bytes);
                    row.max = Some(bytes);
                    row.repetitions = 1;
                    row.unit = "bytes".to_string();
                    o.rows.push(row);
                    let save: Vec<f64> = r
                        .iter()
                        .filter_map(|b| b.stats.as_ref()?.phase_ms("save"))
                        .collect();
                    let written = r
                        .last()
                        .and_then(|b| b.stats.as_ref())
                        .and_then(|s| s.engine_u64("cache_bytes_written"));
                    let mut row = Row::new("save", &arch, size).with_spread(spread(&save), "ms");
                    row.note = format!(
                        "phases_ms.save_cache of a from-scratch build; {} bytes written",
                        written.map_or("?".to_string(), |b| b.to_string())
                    );
                    if save.is_empty() {
                        row =
                            row.without_number("unavailable: no `save` phase in rill's phases_ms");
                    }
                    o.rows.push(row);
                }
                Err(e) => {
                    o.rows
                        .push(Row::new("cache-size", &arch, size).without_number(e.status()));
                    o.rows
                        .push(Row::new("save", &arch, size).without_number(e.status()));
                }
            }
            let noop = incremental(
                ctx,
                &dir.join(format!("noop-{gran}-{size}")),
                &program,
                &program,
                Mode::Run,
                gargs,
                &[0],
                &[0],
            );
            o.rows.push(row_from("no-change", &arch, size, &noop));
            match &noop {
                Ok(r) => {
                    let load: Vec<f64> = r
                        .iter()
                        .filter_map(|b| b.stats.as_ref()?.load_ms())
                        .collect();
                    let mut row = Row::new("load", &arch, size).with_spread(spread(&load), "ms");
                    if load.is_empty() {
                        row = row.without_number("unavailable: no cache load time in rill's stats");
                    } else {
                        row.note = "engine.cache_load_ms (graph) + queries.*.load_ms (values loaded lazily)".to_string();
                    }
                    o.rows.push(row);
                }
                Err(e) => o
                    .rows
                    .push(Row::new("load", &arch, size).without_number(e.status())),
            }
            // What the granularity changes: the work after one leaf-body edit.
            let leaf = match &ctx.leaf_edits(size, SEED).changing {
                Some((e, _)) => incremental(
                    ctx,
                    &dir.join(format!("leaf-{gran}-{size}")),
                    &program,
                    &e.program,
                    Mode::Run,
                    gargs,
                    &[0],
                    &[0],
                ),
                None => Err(NoMeasurement::Failed(
                    "no leaf-body edit that changes machine code".to_string(),
                )),
            };
            o.rows.push(row_from("leaf-body", &arch, size, &leaf));
            ctx.step();
        }
    }
    ctx.finish_progress();
    let big = *sizes.last().unwrap_or(&0);
    o.value("e7.size", Some(big as f64));
    let mib = median(&o.rows, "cache-size", "query-item", big).map(|b| b / (1024.0 * 1024.0));
    o.value("e7.cache_mib", mib);
    o.value(
        "e7.cache_bytes_per_line",
        median(&o.rows, "cache-size", "query-item", big).map(|b| b / big.max(1) as f64),
    );
    o.value("e7.load_ms", median(&o.rows, "load", "query-item", big));
    o.value("e7.save_ms", median(&o.rows, "save", "query-item", big));
    o.value(
        "e7.file_cache_mib",
        median(&o.rows, "cache-size", "query-file", big).map(|b| b / (1024.0 * 1024.0)),
    );
    o.value(
        "e7.file_noop_ms",
        median(&o.rows, "no-change", "query-file", big),
    );
    o.value(
        "e7.item_noop_ms",
        median(&o.rows, "no-change", "query-item", big),
    );
    for gran in ["item", "file"] {
        let arch = format!("query-{gran}");
        let r = table::find(&o.rows, "leaf-body", &arch, big)
            .filter(|r| r.is_ok())
            .cloned();
        let r = r.as_ref();
        o.value(
            &format!("e7.{gran}_leaf_ms"),
            median(&o.rows, "leaf-body", &arch, big),
        );
        o.value(
            &format!("e7.{gran}_leaf_executed"),
            r.and_then(|r| r.executed).map(|c| c as f64),
        );
        o.value(
            &format!("e7.{gran}_leaf_codegen"),
            r.and_then(|r| r.codegen_executed).map(|c| c as f64),
        );
    }
    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E8: rustc on the same programs and edits.

/// One rustc build of `root` into `out`, incremental in `incr` if given; timed.
pub fn rustc_build(
    root: &Path,
    out: &Path,
    incr: Option<&Path>,
    opt: &str,
    timeout: Option<Duration>,
) -> Result<process::ProcRun, String> {
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
    let r = process::run(&mut cmd, timeout)?;
    match r.exit {
        Some(0) => Ok(r),
        _ => Err(format!("rustc failed: {}", r.stderr_line())),
    }
}

fn rustc_row(scenario: &str, size: usize, runs: Result<Vec<process::ProcRun>, String>) -> Row {
    match runs {
        Ok(r) => {
            let wall: Vec<f64> = r.iter().map(|p| p.wall_ms).collect();
            let mut row = Row::new(scenario, "rustc", size).with_spread(spread(&wall), "ms");
            row.peak_rss_kb = r.iter().filter_map(|p| p.peak_rss_kb).max();
            row
        }
        Err(e) => Row::new(scenario, "rustc", size).without_number(format!("failed: {e}")),
    }
}

pub fn e8(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.rustc_size;
    let reps = ctx.profile.reps;
    ctx.start_progress("E8", 9);
    let dir = ctx.dir("e8");
    let program = ctx.program(size, SEED);
    let leaf = ctx.leaf_edits(size, SEED);
    let edit = &leaf
        .changing
        .as_ref()
        .ok_or("no leaf-body edit that changes machine code")?
        .0;
    let mut disk = OnDisk::create(&dir.join("prog"), program.clone())?;
    let root = disk.root();
    let exe = dir.join("prog.bin");
    let incr = dir.join("incr");
    let snap = dir.join("incr-snapshot");
    let t = ctx.timeout();
    // rustc.
    ctx.set_message("rustc full");
    let full: Result<Vec<_>, String> = (0..reps)
        .map(|_| rustc_build(&root, &exe, None, "0", t))
        .collect();
    o.rows.push(rustc_row("full", size, full));
    ctx.step();
    ctx.set_message("rustc incr-full");
    let incr_full: Result<Vec<_>, String> = (0..reps)
        .map(|_| {
            let _ = std::fs::remove_dir_all(&incr);
            rustc_build(&root, &exe, Some(&incr), "0", t)
        })
        .collect();
    let have_incr = incr_full.is_ok();
    o.rows.push(rustc_row("incr-full", size, incr_full));
    ctx.step();
    if have_incr {
        copy_dir(&incr, &snap).map_err(|e| format!("snapshot: {e}"))?;
    }
    ctx.set_message("rustc incr-unchanged");
    let unchanged: Result<Vec<_>, String> = (0..reps)
        .map(|_| {
            copy_dir(&snap, &incr).map_err(|e| e.to_string())?;
            rustc_build(&root, &exe, Some(&incr), "0", t)
        })
        .collect();
    o.rows.push(rustc_row("incr-unchanged", size, unchanged));
    ctx.step();
    ctx.set_message("rustc incr-patched");
    let mut patched = Vec::new();
    let mut err = None;
    for _ in 0..reps {
        copy_dir(&snap, &incr).map_err(|e| e.to_string())?;
        disk.replace(edit.program.clone())?;
        let r = rustc_build(&root, &exe, Some(&incr), "0", t);
        disk.replace(program.clone())?;
        match r {
            Ok(r) => patched.push(r),
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let mut row = rustc_row("incr-patched", size, err.map_or(Ok(patched), Err));
    row.note = edit.description.clone();
    o.rows.push(row);
    ctx.step();
    // Rill: pipeline, query without cache, query with a cache.
    ctx.set_message("rill");
    let cache = dir.join("rill-cache");
    let [pipe, qfull, qincr] = scratch_rounds(
        ctx,
        Mode::Run,
        &root,
        &[("pipeline", None), ("query", None), ("query", Some(&cache))],
        &[],
    );
    o.rows.push(row_from("full", "rill-pipeline", size, &pipe));
    ctx.step();
    o.rows.push(row_from("full", "rill-query", size, &qfull));
    ctx.step();
    o.rows
        .push(row_from("incr-full", "rill-query", size, &qincr));
    ctx.step();
    let qun = incremental(
        ctx,
        &dir.join("rill-unchanged"),
        &program,
        &program,
        Mode::Run,
        &[],
        &[0],
        &[0],
    );
    o.rows
        .push(row_from("incr-unchanged", "rill-query", size, &qun));
    ctx.step();
    let qp = incremental(
        ctx,
        &dir.join("rill-patched"),
        &program,
        &edit.program,
        Mode::Run,
        &[],
        &[0],
        &[0],
    );
    let mut row = row_from("incr-patched", "rill-query", size, &qp);
    row.note = edit.description.clone();
    o.rows.push(row);
    ctx.step();
    ctx.finish_progress();
    let (v, why) = ratio_or_reason(
        &o.rows,
        ("incr-patched", "rustc", size),
        ("full", "rustc", size),
    );
    o.headline("e8_rustc_patched_over_full", v, why);
    let (v, why) = ratio_or_reason(
        &o.rows,
        ("incr-patched", "rill-query", size),
        ("full", "rill-query", size),
    );
    o.headline("e8_rill_patched_over_full", v, why);
    o.value("e8.size", Some(size as f64));
    for s in ["full", "incr-full", "incr-unchanged", "incr-patched"] {
        let k = s.replace('-', "_");
        o.value(
            &format!("e8.rustc_{k}_ms"),
            median(&o.rows, s, "rustc", size),
        );
        o.value(
            &format!("e8.rill_{k}_ms"),
            median(&o.rows, s, "rill-query", size),
        );
        let (r, _) = ratio_or_reason(&o.rows, (s, "rustc", size), ("full", "rustc", size));
        o.value(&format!("e8.rustc_{k}_ratio"), r);
        let (r, _) = ratio_or_reason(
            &o.rows,
            (s, "rill-query", size),
            ("full", "rill-query", size),
        );
        o.value(&format!("e8.rill_{k}_ratio"), r);
    }
    o.value(
        "e8.pipeline_full_ms",
        median(&o.rows, "full", "rill-pipeline", size),
    );
    let lps = median(&o.rows, "full", "rustc", size).map(|ms| size as f64 / (ms / 1e3));
    o.value("e8.rustc_lines_per_s", lps);
    let (v, _) = ratio_or_reason(
        &o.rows,
        ("full", "rustc", size),
        ("full", "rill-pipeline", size),
    );
    o.value("e8.rustc_over_pipeline", v);
    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E9: run time of the benchmark programs.

/// The benchmark programs (`experiments/benchmarks/*.rs`), sorted.
pub fn benchmarks() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn run_binary(exe: &Path, reps: usize, timeout: Duration) -> Result<Vec<process::ProcRun>, String> {
    (0..reps.max(1))
        .map(|_| {
            let r = process::run(&mut Command::new(exe), Some(timeout))?;
            if r.timed_out {
                return Err(format!("timeout (> {} s)", timeout.as_secs()));
            }
            match r.exit {
                Some(0) => Ok(r),
                other => Err(format!("exit {other:?}: {}", r.stderr_line())),
            }
        })
        .collect()
}

pub fn e9(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let programs: Vec<PathBuf> = benchmarks()
        .into_iter()
        .filter(|p| {
            ctx.profile.benchmarks.as_ref().is_none_or(|only| {
                p.file_stem()
                    .is_some_and(|s| only.iter().any(|o| s == o.as_str()))
            })
        })
        .collect();
    if programs.is_empty() {
        return Err("no programs in experiments/benchmarks".to_string());
    }
    ctx.start_progress("E9", programs.len() as u64);
    let dir = ctx.dir("e9");
    let run_timeout = Duration::from_secs(ctx.profile.build_timeout_s);
    let mut jit_ratios = Vec::new();
    let mut interp_ratios = Vec::new();
    let mut o3_ratios = Vec::new();
    for path in &programs {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        ctx.set_message(&name);
        let lines = std::fs::read_to_string(path)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        let mut expected: Option<Vec<u8>> = None;
        let mut medians = std::collections::BTreeMap::new();
        for opt in ["0", "3"] {
            let arch = format!("rustc-O{opt}");
            let exe = dir.join(format!("{name}-O{opt}"));
            let row = match rustc_build(path, &exe, None, opt, Some(run_timeout))
                .and_then(|_| run_binary(&exe, ctx.profile.run_reps, run_timeout))
            {
                Ok(runs) => {
                    if expected.is_none() {
                        expected = runs.last().map(|r| r.stdout.clone());
                    }
                    let wall: Vec<f64> = runs.iter().map(|r| r.wall_ms).collect();
                    let mut row = Row::new(&name, &arch, lines).with_spread(spread(&wall), "ms");
                    row.peak_rss_kb = runs.iter().filter_map(|r| r.peak_rss_kb).max();
                    row
                }
                Err(e) => Row::new(&name, &arch, lines).without_number(format!("failed: {e}")),
            };
            medians.insert(arch, row.median.filter(|_| row.is_ok()));
            o.rows.push(row);
        }
        for (arch, rill_arch, timeout, reps) in [
            ("jit", "pipeline", run_timeout, ctx.profile.run_reps),
            (
                "interp",
                "interp",
                Duration::from_secs(ctx.profile.interp_timeout_s),
                1,
            ),
        ] {
            let b = Build {
                mode: Mode::Run,
                arch: rill_arch,
                root: path,
                cache_dir: None,
                args: &[],
                timeout: Some(timeout),
            };
            let runs = repeat(ctx, reps, || Ok(()), &b, &[0]);
            let runs = match runs {
                Err(NoMeasurement::Failed(m)) if m == "timeout" => Err(NoMeasurement::Failed(
                    format!("timeout (> {} s)", timeout.as_secs()),
                )),
                other => other,
            };
            let mut row = row_from(&name, arch, lines, &runs);
            if let (Ok(r), Some(exp)) = (&runs, &expected) {
                if r.iter().any(|b| &b.proc.stdout != exp) {
                    row = row.without_number("failed: output differs from rustc's");
                } else {
                    row.note =
                        "output equals rustc's; whole process, compile included (compile_ms)"
                            .to_string();
                }
            }
            medians.insert(arch.to_string(), row.median.filter(|_| row.is_ok()));
            o.rows.push(row);
        }
        let o0 = medians.get("rustc-O0").copied().flatten();
        if let Some(r) = stats::ratio(medians.get("jit").copied().flatten(), o0) {
            jit_ratios.push(r);
        }
        if let Some(r) = stats::ratio(medians.get("interp").copied().flatten(), o0) {
            interp_ratios.push(r);
        }
        if let Some(r) = stats::ratio(medians.get("rustc-O3").copied().flatten(), o0) {
            o3_ratios.push(r);
        }
        ctx.step();
    }
    ctx.finish_progress();
    let n = programs.len();
    let jit = if jit_ratios.len() == n {
        stats::geomean(&jit_ratios)
    } else {
        None
    };
    let why = format!(
        "JIT and rustc -O0 both measured on {} of {n} programs",
        jit_ratios.len()
    );
    o.headline("e9_jit_over_rustc_o0", jit, why);
    o.value("e9.programs", Some(n as f64));
    o.value("e9.interp_programs", Some(interp_ratios.len() as f64));
    o.value("e9.interp_over_rustc_o0", stats::geomean(&interp_ratios));
    o.value("e9.o3_over_o0", stats::geomean(&o3_ratios));
    o.value("e9.jit_best", jit_ratios.iter().copied().reduce(f64::min));
    o.value("e9.jit_worst", jit_ratios.iter().copied().reduce(f64::max));
    o.value(
        "e9.interp_timeout_s",
        Some(ctx.profile.interp_timeout_s as f64),
    );
    Ok(o)
}

// ---------------------------------------------------------------------------------------
// E10: time to the first diagnostic after an edit that introduces an error.

fn first_diag_row(
    scenario: &str,
    arch: &str,
    size: usize,
    runs: &Result<Vec<BuildRun>, NoMeasurement>,
) -> Row {
    let mut row = row_from(scenario, arch, size, runs);
    if let Ok(r) = runs {
        let first: Vec<f64> = r.iter().filter_map(|b| b.proc.first_stderr_ms).collect();
        row = row.with_spread(spread(&first), "ms");
        row.note = "spawn to the first byte on stderr".to_string();
    }
    row
}

pub fn e10(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.main_size;
    ctx.start_progress("E10", 6);
    let dir = ctx.dir("e10");
    let program = ctx.program(size, SEED);
    let bad =
        workload::edit(&program, EditKind::IntroduceError, SEED).ok_or("no error edit possible")?;
    let fixed =
        workload::edit(&bad.program, EditKind::FixError, SEED).ok_or("no fix edit possible")?;
    let bad_disk = OnDisk::create(&dir.join("bad"), bad.program.clone())?;
    let fixed_disk = OnDisk::create(&dir.join("fixed"), fixed.program.clone())?;
    for (mode, m) in [(Mode::Check, "check"), (Mode::Run, "run")] {
        let b = Build {
            mode,
            arch: "pipeline",
            root: &bad_disk.root(),
            cache_dir: None,
            args: &[],
            timeout: ctx.timeout(),
        };
        let runs = repeat(ctx, ctx.profile.reps, || Ok(()), &b, &[1]);
        o.rows.push(first_diag_row(
            &format!("first-diagnostic-{m}"),
            "pipeline",
            size,
            &runs,
        ));
        ctx.step();
        let runs = incremental(
            ctx,
            &dir.join(format!("q-{m}")),
            &program,
            &bad.program,
            mode,
            &[],
            &[0],
            &[1],
        );
        o.rows.push(first_diag_row(
            &format!("first-diagnostic-{m}"),
            "query",
            size,
            &runs,
        ));
        ctx.step();
    }
    // The complete build once the error is fixed.
    let b = Build {
        mode: Mode::Run,
        arch: "pipeline",
        root: &fixed_disk.root(),
        cache_dir: None,
        args: &[],
        timeout: ctx.timeout(),
    };
    let runs = repeat(ctx, ctx.profile.reps, || Ok(()), &b, &[0]);
    o.rows
        .push(row_from("build-after-fix", "pipeline", size, &runs));
    ctx.step();
    let runs = incremental_after(
        ctx,
        &dir.join("q-fix"),
        &[(&program, &[0]), (&bad.program, &[1])],
        &fixed.program,
        Mode::Run,
        &[],
        &[0],
    );
    let mut row = row_from("build-after-fix", "query", size, &runs);
    row.note = "cache of a good build, then the build with the error".to_string();
    o.rows.push(row);
    ctx.step();
    ctx.finish_progress();
    o.value("e10.size", Some(size as f64));
    o.text("e10.error", bad.description.clone());
    for arch in ["pipeline", "query"] {
        o.value(
            &format!("e10.{arch}_first_check_ms"),
            median(&o.rows, "first-diagnostic-check", arch, size),
        );
        o.value(
            &format!("e10.{arch}_first_run_ms"),
            median(&o.rows, "first-diagnostic-run", arch, size),
        );
        o.value(
            &format!("e10.{arch}_fix_build_ms"),
            median(&o.rows, "build-after-fix", arch, size),
        );
    }
    Ok(o)
}
