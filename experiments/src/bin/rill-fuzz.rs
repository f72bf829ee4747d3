//! `rill-fuzz`: long robustness campaigns (README "Robustness campaigns").
//!
//! ```text
//! rill-fuzz diff    [--cases N] [--histories N] [--seed S] [--out DIR] [--lines L]
//!                   [--via library|process]
//! rill-fuzz source  [--cases N] [--seed S] [--out DIR]
//! ```
//!
//! `diff` runs generated programs (`rill_gen`) through what `rill run` does
//! with `--arch interp`, `--arch pipeline`, `--arch query` from scratch, and `--arch query
//! --cache-dir` on a persistent cache: by default with the same library calls inside this
//! process (`--via library`, several times faster), or through the `rill` command next
//! to this binary, one process per build (`--via process`); then edit histories
//! (`gen::edit_history`), each version built incrementally on one cache and from scratch.
//! It compares stdout, exit status, diagnostics (stderr, cache warnings removed) and the
//! `image_hash` of the stats JSON, stops at the first divergence, minimizes the program
//! (deleting line ranges while the divergence persists) and writes the reproducer to
//! `DIR` (files, the command lines and both outputs). A divergence inside an edit
//! history is minimized as a history: the versions first (the shortest suffix that still
//! diverges, then each earlier version dropped in turn), then the lines of each version,
//! each candidate replayed on a fresh cache; the reproducer keeps the versions `v0..vN`.
//!
//! `source` feeds generated, mutated, truncated and random crates to both drivers in
//! process (pipeline and query, both to an image) and checks that each ends in
//! diagnostics or success, never a panic. The crates are one file or several (modules in
//! their own files); one file's bytes are mutated, and sometimes a module file is dropped
//! or made ambiguous. A panic writes the crate to `DIR/crash-N/`. (A stack overflow
//! aborts the process: the crate being compiled is always in `DIR/current/`.)

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;

use experiments::shown::{read_stats, Shown};
use rill_gen::{self as gen, GenConfig, Program, SourceFile};
use shared_frontend::sema::modules::MemLoader;

/// The allocator `rill` uses, so in-process builds behave as the command's do.
#[global_allocator]
static GLOBAL: experiments::alloc::Allocator = experiments::alloc::Allocator;

struct Args {
    cases: u64,
    histories: u64,
    seed: u64,
    lines: usize,
    out: PathBuf,
    via: Via,
}

/// How `diff` runs a build: through the `rill` command (a process per build, what a user
/// runs) or through the same library calls inside this process (several times faster,
/// for long campaigns).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Via {
    Process,
    Library,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        cases: 100,
        histories: 10,
        seed: 1,
        lines: 200,
        out: PathBuf::from("fuzz-out"),
        via: Via::Library,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("`{flag}` needs a value"))?;
        let num = || {
            v.parse::<u64>()
                .map_err(|_| format!("bad value `{v}` for `{flag}`"))
        };
        match flag.as_str() {
            "--cases" => a.cases = num()?,
            "--histories" => a.histories = num()?,
            "--seed" => a.seed = num()?,
            "--lines" => a.lines = num()? as usize,
            "--out" => a.out = PathBuf::from(v),
            "--via" => {
                a.via = match v.as_str() {
                    "process" => Via::Process,
                    "library" => Via::Library,
                    _ => return Err(format!("bad value `{v}` for `--via` (process, library)")),
                }
            }
            _ => return Err(format!("unknown option `{flag}`")),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    experiments::alloc::without_huge_pages();
    experiments::alloc::purge_without_extension();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: rill-fuzz diff|source [--cases N] [--histories N] [--seed S] [--lines L] [--out DIR] [--via library|process]";
    let Some(cmd) = args.first() else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let a = match parse(&args[1..]) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{usage}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: cannot create `{}`: {e}", a.out.display());
        return ExitCode::from(2);
    }
    let found = match cmd.as_str() {
        "diff" => diff(&a),
        "source" => source(&a),
        _ => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    if found {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

// ---- Differential mode ----

fn rill_exe() -> PathBuf {
    let me = std::env::current_exe().unwrap_or_default();
    me.with_file_name("rill")
}

fn run_rill(args: &[&str], stats: Option<&Path>) -> Shown {
    let mut cmd = Command::new(rill_exe());
    cmd.args(args).env("NO_COLOR", "1");
    if let Some(s) = stats {
        cmd.arg("--stats-json").arg(s);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            return Shown {
                code: None,
                stdout: String::new(),
                diagnostics: format!("cannot run rill: {e}"),
                image_hash: None,
            }
        }
    };
    let stats = stats.map_or(serde_json::Value::Null, read_stats);
    Shown::from_output(&out, &stats).0
}

/// The architectures `diff` compares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arch {
    Pipeline,
    Query,
    Interp,
}

/// Runs the program rooted at `main` with `arch` (and `cache` as the persistent cache of
/// the query architecture), through the `rill` command or in process.
fn observe(via: Via, arch: Arch, main: &Path, cache: Option<&Path>) -> Shown {
    match via {
        Via::Process => {
            let m = main.to_str().unwrap_or_default();
            let stats = main.with_extension("stats.json");
            let mut args = vec!["run", m];
            match arch {
                Arch::Pipeline => args.extend(["--arch", "pipeline"]),
                Arch::Query => args.extend(["--arch", "query"]),
                Arch::Interp => args.extend(["--arch", "interp", "--fuel", "200000000"]),
            }
            if arch != Arch::Interp {
                args.extend(["--time-limit", "10"]);
            }
            let c = cache.and_then(Path::to_str).unwrap_or_default();
            if cache.is_some() {
                args.extend(["--cache-dir", c]);
            }
            let _ = std::fs::remove_file(&stats);
            run_rill(&args, (arch != Arch::Interp).then_some(stats.as_path()))
        }
        Via::Library => observe_in_process(arch, main, cache),
    }
}

/// What `rill run` would print and return, from the library calls it makes.
fn observe_in_process(arch: Arch, main: &Path, cache: Option<&Path>) -> Shown {
    let mut obs = Shown {
        code: Some(0),
        stdout: String::new(),
        diagnostics: String::new(),
        image_hash: None,
    };
    let (diagnostics, sources, image, ir) = match arch {
        Arch::Query => {
            let options = query_driver::BuildOptions {
                cache_dir: cache.map(Path::to_path_buf),
                engine: query::Options::from_env(),
                granularity: query_driver::Granularity::Item,
                spans: query_driver::SpanMode::Relative,
                change_detection: query_driver::ChangeDetection::Stat,
                exit_after: false,
            };
            let build = query_driver::build_path(main, query_driver::Goal::Image, options);
            for w in &build.warnings {
                if !w.contains("no cache at") && !w.starts_with("query cache") {
                    obs.diagnostics.push_str(&format!("warning: {w}\n"));
                }
            }
            if let Some(fatal) = &build.fatal {
                obs.diagnostics.push_str(&format!("error: {fatal}\n"));
                obs.code = Some(2);
                return obs;
            }
            (build.diagnostics, build.sources, build.image, None)
        }
        Arch::Pipeline | Arch::Interp => {
            let until = if arch == Arch::Interp {
                pipeline::Until::Ir
            } else {
                pipeline::Until::Image
            };
            let mut c = pipeline::compile_path(main, until);
            if let Some(fatal) = &c.fatal {
                obs.diagnostics.push_str(&format!("error: {fatal}\n"));
                obs.code = Some(2);
                return obs;
            }
            (
                std::mem::take(&mut c.diagnostics),
                std::mem::take(&mut c.sources),
                c.image.take(),
                c.ir.take(),
            )
        }
    };
    if !diagnostics.is_empty() {
        obs.diagnostics.push_str(&shared_frontend::diag::render(
            &diagnostics,
            &sources,
            false,
        ));
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if arch != Arch::Interp {
        obs.image_hash = image.as_ref().map(|i| format!("{:032x}", i.hash()));
    }
    if errors > 0 {
        let s = if errors == 1 { "" } else { "s" };
        obs.diagnostics.push_str(&format!(
            "error: could not compile due to {errors} previous error{s}\n"
        ));
        obs.code = Some(1);
        return obs;
    }
    let outcome = match (arch, &image, &ir) {
        (Arch::Interp, _, Some(program)) => {
            let limits = shared_frontend::ir::interp::InterpLimits {
                fuel: Some(200_000_000),
                ..Default::default()
            };
            shared_frontend::ir::interp::run(program, &limits)
        }
        (Arch::Pipeline | Arch::Query, Some(image), _) => {
            let limits = backend::RunLimits {
                timeout: Some(std::time::Duration::from_secs(10)),
                ..Default::default()
            };
            let run = image.run(&limits);
            shared_frontend::ir::interp::InterpOutcome {
                stdout: run.stdout,
                status: run.status,
            }
        }
        _ => {
            obs.code = Some(1);
            return obs;
        }
    };
    obs.stdout = String::from_utf8_lossy(&outcome.stdout).into_owned();
    if outcome.status != shared_frontend::ir::interp::ExitStatus::Finished {
        obs.diagnostics.push_str(&format!("{}\n", outcome.status));
    }
    obs.code = Some(outcome.status.exit_code());
    obs
}

/// Runs `program` (written to `dir`) through every architecture; `cache` is the persistent
/// cache directory of the incremental build. Returns a description of the first
/// divergence and the outputs.
fn check_program(via: Via, dir: &Path, cache: &Path, program: &Program) -> Option<String> {
    check_program_rounds(via, dir, cache, program, false)
}

/// [`check_program`], then (with `warm`) the incremental build once more on the cache
/// the first one left, compared with the same pipeline result.
fn check_program_rounds(
    via: Via,
    dir: &Path,
    cache: &Path,
    program: &Program,
    warm: bool,
) -> Option<String> {
    let _ = std::fs::remove_dir_all(dir);
    if program.write_to(dir).is_err() {
        return Some("cannot write the program".into());
    }
    let main = dir.join("main.rs");
    let base = observe(via, Arch::Pipeline, &main, None);
    if !matches!(base.code, Some(0 | 1 | 101)) {
        return Some(format!(
            "pipeline exit status {:?}\n{}",
            base.code, base.diagnostics
        ));
    }
    let mut results = vec![
        ("query", observe(via, Arch::Query, &main, None)),
        (
            "query incremental",
            observe(via, Arch::Query, &main, Some(cache)),
        ),
        ("interp", observe(via, Arch::Interp, &main, None)),
    ];
    if let Some(d) = first_divergence(&base, &results) {
        return Some(d);
    }
    if warm {
        results = vec![(
            "query incremental (warm cache)",
            observe(via, Arch::Query, &main, Some(cache)),
        )];
        return first_divergence(&base, &results);
    }
    None
}

/// The first of `results` that differs from the pipeline's `base`, described.
fn first_divergence(base: &Shown, results: &[(&str, Shown)]) -> Option<String> {
    for (name, r) in results {
        let mut what = Vec::new();
        if r.code != base.code {
            what.push(format!("exit {:?} vs {:?}", r.code, base.code));
        }
        if r.stdout != base.stdout {
            what.push("stdout".to_string());
        }
        // The interpreter reports runtime failures in its own words; compare its
        // diagnostics only for compile errors.
        if r.diagnostics != base.diagnostics && (*name != "interp" || base.code == Some(1)) {
            what.push("diagnostics".to_string());
        }
        if *name != "interp" && r.image_hash != base.image_hash {
            what.push(format!(
                "image_hash {:?} vs {:?}",
                r.image_hash, base.image_hash
            ));
        }
        if !what.is_empty() {
            return Some(format!(
                "{name} differs from pipeline: {}\n--- pipeline ---\n{base:#?}\n--- {name} ---\n{r:#?}\n",
                what.join(", ")
            ));
        }
    }
    None
}

/// Deletes line ranges of every file while `still_fails` holds (ddmin-like: halving
/// chunk sizes down to single lines).
fn minimize(program: &Program, still_fails: &mut dyn FnMut(&Program) -> bool) -> Program {
    let mut best = Program::from_files(program.files.clone());
    for fi in 0..best.files.len() {
        let mut chunk = best.files[fi].text.lines().count().div_ceil(2).max(1);
        loop {
            let mut start = 0;
            loop {
                let lines: Vec<&str> = best.files[fi].text.lines().collect();
                if start >= lines.len() {
                    break;
                }
                let end = (start + chunk).min(lines.len());
                let text: String = lines[..start]
                    .iter()
                    .chain(&lines[end..])
                    .map(|l| format!("{l}\n"))
                    .collect();
                let mut files = best.files.clone();
                files[fi] = SourceFile {
                    path: files[fi].path.clone(),
                    text,
                };
                let candidate = Program::from_files(files);
                if still_fails(&candidate) {
                    best = candidate;
                } else {
                    start = end;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
    }
    best
}

/// Replays a history on a fresh cache: every version but the last is built incrementally
/// (`run --arch query --cache-dir`, to fill the cache), and the last is checked against
/// every architecture. Returns the divergence of the last version, if any.
fn replay(via: Via, dir: &Path, cache: &Path, versions: &[Program]) -> Option<String> {
    let _ = std::fs::remove_dir_all(cache);
    let (last, earlier) = versions.split_last()?;
    for v in earlier {
        let _ = std::fs::remove_dir_all(dir);
        if v.write_to(dir).is_err() {
            return None;
        }
        observe(via, Arch::Query, &dir.join("main.rs"), Some(cache));
    }
    check_program(via, dir, cache, last)
}

/// Shrinks a diverging edit history while `fails` holds: first the versions (the last,
/// where the divergence shows, always stays: the shortest suffix that still diverges,
/// then each earlier version dropped in turn), then the lines of each version's files
/// ([`minimize`], each version with the others fixed), until a pass changes nothing.
fn minimize_history(
    versions: Vec<Program>,
    fails: &mut dyn FnMut(&[Program]) -> bool,
) -> Vec<Program> {
    let mut h = versions;
    if h.len() > 1 {
        let last = h.len() - 1;
        // The last version alone, then with more and more of its predecessors.
        if let Some(from) = (0..=last).rev().find(|&k| fails(&h[k..])) {
            h.drain(..from);
        }
        let mut j = 0;
        while j + 1 < h.len() {
            let mut c = h.clone();
            c.remove(j);
            if fails(&c) {
                h = c;
            } else {
                j += 1;
            }
        }
    }
    loop {
        let before: Vec<usize> = h.iter().map(program_len).collect();
        for j in 0..h.len() {
            let mut fails_with = |p: &Program| {
                let mut c = h.clone();
                c[j] = Program::from_files(p.files.clone());
                fails(&c)
            };
            let small = minimize(&h[j], &mut fails_with);
            h[j] = small;
        }
        // Identical neighbours are one version.
        let mut j = 0;
        while j + 1 < h.len() {
            if h[j].files == h[j + 1].files {
                let mut c = h.clone();
                c.remove(j);
                if fails(&c) {
                    h = c;
                    continue;
                }
            }
            j += 1;
        }
        if h.iter().map(program_len).collect::<Vec<_>>() == before {
            return h;
        }
    }
}

fn program_len(p: &Program) -> usize {
    p.files.iter().map(|f| f.text.len()).sum()
}

fn write_reproducer(out: &Path, name: &str, versions: &[&Program], report: &str) -> PathBuf {
    let dir = out.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (i, p) in versions.iter().enumerate() {
        let _ = p.write_to(&dir.join(format!("v{i}")));
    }
    let how = format!(
        "Reproduce: for each version vN in order, run\n  rill run vN/main.rs --arch query --cache-dir CACHE\nand compare with\n  rill run vN/main.rs --arch pipeline\n\n{report}"
    );
    let _ = std::fs::write(dir.join("REPORT.txt"), how);
    dir
}

fn diff(a: &Args) -> bool {
    let work = tempfile_dir(&a.out, "work");
    let mut programs = 0u64;
    let mut builds = 0u64;
    for case in 0..a.cases {
        let cfg = GenConfig {
            seed: a.seed.wrapping_add(case),
            target_lines: a.lines,
            panicking: case % 7 == 3,
            editable: false,
            ..GenConfig::default()
        };
        let program = gen::generate(&cfg);
        // A fresh cache per program: a cold persistent build, then a warm one.
        let cache = work.join("cache");
        let _ = std::fs::remove_dir_all(&cache);
        let dir = work.join("p");
        builds += 5;
        if let Some(report) = check_program_rounds(a.via, &dir, &cache, &program, true) {
            eprintln!(
                "divergence on generated program seed {}:\n{report}",
                cfg.seed
            );
            let mut still = |p: &Program| {
                let _ = std::fs::remove_dir_all(&cache);
                check_program_rounds(a.via, &dir, &cache, p, true).is_some()
            };
            let small = minimize(&program, &mut still);
            let _ = std::fs::remove_dir_all(&cache);
            let report = check_program_rounds(a.via, &dir, &cache, &small, true).unwrap_or(report);
            let at = write_reproducer(
                &a.out,
                &format!("diff-seed-{}", cfg.seed),
                &[&small],
                &report,
            );
            eprintln!("minimized reproducer written to {}", at.display());
            return true;
        }
        programs += 1;
        if programs % 100 == 0 {
            eprintln!("{programs} programs, {builds} builds: no divergence");
        }
    }
    let mut histories = 0u64;
    let mut edits = 0u64;
    for h in 0..a.histories {
        let seed = a.seed.wrapping_add(1_000_000 + h);
        let program = gen::generate(&GenConfig {
            seed,
            target_lines: a.lines,
            ..GenConfig::default()
        });
        let history = gen::edit_history(&program, 8, seed);
        let cache = work.join("hcache");
        let _ = std::fs::remove_dir_all(&cache);
        let dir = work.join("h");
        let mut versions: Vec<&Program> = vec![&program];
        versions.extend(history.iter().map(|e| &e.program));
        for (i, v) in versions.iter().enumerate() {
            builds += 4;
            if let Some(report) = check_program(a.via, &dir, &cache, v) {
                let what = if i == 0 {
                    "the initial program".to_string()
                } else {
                    format!("edit {i} ({})", history[i - 1].description)
                };
                eprintln!("divergence in edit history seed {seed} at {what}:\n{report}");
                eprintln!("minimizing the history, then its programs...");
                let mut fails = |h: &[Program]| replay(a.via, &dir, &cache, h).is_some();
                let diverging: Vec<Program> = versions[..=i].iter().map(|p| (*p).clone()).collect();
                let small = minimize_history(diverging, &mut fails);
                let report = replay(a.via, &dir, &cache, &small).unwrap_or(report);
                let kept: Vec<&Program> = small.iter().collect();
                let at = write_reproducer(
                    &a.out,
                    &format!("history-seed-{seed}"),
                    &kept,
                    &format!("{what} (minimized to {} versions)\n{report}", small.len()),
                );
                eprintln!("reproducer written to {}", at.display());
                return true;
            }
            edits += 1;
        }
        histories += 1;
        if histories % 50 == 0 {
            eprintln!("{histories} edit histories ({edits} versions): no divergence");
        }
    }
    println!(
        "diff: {programs} programs, {histories} edit histories ({edits} versions), {builds} rill runs: no divergence"
    );
    false
}

fn tempfile_dir(out: &Path, name: &str) -> PathBuf {
    let d = out.join(name);
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::create_dir_all(&d);
    d
}

// ---- Source mode ----

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The `i`-th fuzzed source: a mutation of a generated program (byte flips, deletions,
/// duplications, token splices, truncation), an ill-formed mutation, or random bytes.
/// A fuzzed crate: `(path, text)` per file, the root (`main.rs`) first.
type Files = Vec<(String, Vec<u8>)>;

/// A fuzzed crate from one of `seeds`: random bytes as a one-file crate (1 in 20), or a
/// seed with one file's bytes mutated, and sometimes a file dropped or renamed (so `mod`
/// declarations meet missing and unexpected files).
fn fuzzed_crate(seeds: &[Files], rng: &mut Rng) -> Files {
    if rng.below(20) == 0 {
        let len = rng.below(400);
        return vec![(
            "main.rs".into(),
            (0..len).map(|_| rng.next() as u8).collect(),
        )];
    }
    let mut files = seeds[rng.below(seeds.len())].clone();
    let at = rng.below(files.len());
    files[at].1 = mutate_bytes(std::mem::take(&mut files[at].1), rng);
    if files.len() > 1 && rng.below(8) == 0 {
        let victim = 1 + rng.below(files.len() - 1);
        if rng.below(2) == 0 {
            files.remove(victim);
        } else {
            let other = rng.below(files.len());
            files[victim].0 = format!("{}/mod.rs", files[other].0.trim_end_matches(".rs"));
        }
    }
    files
}

/// Applies one to six random byte-level mutations to `b`.
fn mutate_bytes(mut b: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    const TOKENS: &[&str] = &[
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ";",
        "::",
        "-",
        "!",
        "*",
        "&",
        "mod m {",
        "fn f() {",
        "loop {",
        "1 << 62",
        "i64::MIN",
        "as u8",
        "let",
        "const",
        "struct",
        "\"",
        "'",
        "/*",
        "\0",
        "\u{feff}",
        "0x",
        "99999999999999999999999",
        "[0; 1 << 40]",
    ];
    for _ in 0..1 + rng.below(6) {
        if b.is_empty() {
            break;
        }
        let at = rng.below(b.len());
        match rng.below(6) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => {
                let end = (at + rng.below(40)).min(b.len());
                b.drain(at..end);
            }
            2 => {
                let end = (at + rng.below(40)).min(b.len());
                let chunk = b[at..end].to_vec();
                let to = rng.below(b.len());
                b.splice(to..to, chunk);
            }
            3 => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                b.splice(at..at, t.iter().copied());
            }
            4 => b.truncate(at),
            _ => {
                let t = TOKENS[rng.below(TOKENS.len())].repeat(1 + rng.below(300));
                b.splice(at..at, t.bytes());
            }
        }
    }
    b
}

fn compile_both(files: &Files) {
    let loader = MemLoader::new(files.iter().map(|(p, t)| (p.as_str(), t.as_slice())));
    let root = Path::new("main.rs");
    let p = pipeline::compile(&loader, root, pipeline::Until::Image);
    let _ = shared_frontend::diag::render(&p.diagnostics, &p.sources, false);
    let q = query_driver::build(
        Arc::new(loader),
        root,
        query_driver::Goal::Image,
        query_driver::BuildOptions::default(),
    );
    let _ = shared_frontend::diag::render(&q.diagnostics, &q.sources, false);
}

/// Writes a fuzzed crate under `dir` (replacing what was there).
fn write_crate(dir: &Path, files: &Files) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    for (path, text) in files {
        let at = dir.join(path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(at, text)?;
    }
    Ok(())
}

fn source(a: &Args) -> bool {
    // Sixteen one-file crates and eight of several files (modules in their own files),
    // half of each replaced by an ill-formed mutation.
    let seeds: Vec<Files> = (0..24)
        .map(|s| {
            let p = gen::generate(&GenConfig {
                seed: a.seed.wrapping_add(s),
                target_lines: if s < 16 { 80 } else { 160 },
                fns_per_module: if s < 16 { 1000 } else { 4 },
                editable: true,
                ..GenConfig::default()
            });
            let p = match gen::mutate_ill_formed(&p, s) {
                Some(m) if s % 2 == 0 => m.program,
                _ => p,
            };
            p.files
                .iter()
                .map(|f| (f.path.clone(), f.text.clone().into_bytes()))
                .collect()
        })
        .collect();
    eprintln!(
        "{} seed crates, {} files in all",
        seeds.len(),
        seeds.iter().map(Vec::len).sum::<usize>()
    );
    let mut rng = Rng(a.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let current = a.out.join("current");
    // Silence the default hook: panics are reported here, once, with their source.
    std::panic::set_hook(Box::new(|_| {}));
    for case in 0..a.cases {
        let files = fuzzed_crate(&seeds, &mut rng);
        let _ = write_crate(&current, &files);
        let r = std::panic::catch_unwind(|| compile_both(&files));
        if let Err(payload) = r {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let path = a.out.join(format!("crash-{case}"));
            let _ = write_crate(&path, &files);
            eprintln!(
                "case {case}: the compiler panicked: {msg}\nsource written to {}",
                path.display()
            );
            return true;
        }
        if (case + 1) % 10_000 == 0 {
            eprintln!("{} sources: no panic", case + 1);
        }
    }
    let _ = std::fs::remove_dir_all(&current);
    println!(
        "source: {} sources through pipeline and query: no panic",
        a.cases
    );
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(lines: &[&str]) -> Program {
        Program::from_files(vec![SourceFile {
            path: "main.rs".to_string(),
            text: lines.iter().map(|l| format!("{l}\n")).collect(),
        }])
    }

    #[test]
    fn a_history_shrinks_to_the_versions_and_lines_that_diverge() {
        // "Diverges" when some earlier version has a line `cache` and the last one a line
        // `bug` (a stand-in for a stale-cache bug needing a warm cache).
        let filler: Vec<String> = (0..40).map(|i| format!("fn f{i}() {{}}")).collect();
        let with = |extra: &[&str]| {
            let mut l: Vec<&str> = filler.iter().map(String::as_str).collect();
            l.extend_from_slice(extra);
            version(&l)
        };
        let history = vec![
            with(&[]),
            with(&["cache"]),
            with(&["x"]),
            with(&["y"]),
            with(&["bug", "z"]),
        ];
        let mut calls = 0;
        let mut fails = |h: &[Program]| {
            calls += 1;
            let has = |p: &Program, l: &str| p.files[0].text.lines().any(|x| x == l);
            let (last, earlier) = h.split_last().unwrap();
            has(last, "bug") && earlier.iter().any(|p| has(p, "cache"))
        };
        let small = minimize_history(history, &mut fails);
        let texts: Vec<&str> = small.iter().map(|p| p.files[0].text.as_str()).collect();
        assert_eq!(texts, ["cache\n", "bug\n"]);
        assert!(calls < 2000, "{calls} replays");
    }

    #[test]
    fn a_divergence_from_scratch_keeps_one_version() {
        let history = vec![version(&["a", "b"]), version(&["a", "bug", "c"])];
        let mut fails = |h: &[Program]| h.last().unwrap().files[0].text.contains("bug");
        let small = minimize_history(history, &mut fails);
        assert_eq!(small.len(), 1);
        assert_eq!(small[0].files[0].text, "bug\n");
    }
}
