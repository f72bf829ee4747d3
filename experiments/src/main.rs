//! The main job: the experiment suite (DESIGN.md E1–E10).
//!
//! ```text
//! cargo run --release -p experiments [-- [SUBCOMMAND...] [--profile tiny|quick|full] [--results DIR] [--instructions]]
//! cargo run --release -p experiments -- stability --runs K [e1 ...] [--profile ...]
//! cargo run --release -p experiments -- scaling [--sizes N,N,...] [--reps R]
//! ```
//!
//! Without a subcommand: the corpus check, then E1–E10 (quick profile), rewriting
//! `results/` and its figures and regenerating `paper/paper.md`. Subcommands: `e1` … `e10`
//! (one or more experiments; their results are merged into `results/`), `corpus` (the
//! corpus table only), `paper` (regenerate the paper from `results/`), `figures` (redraw
//! from the CSVs), `gen --lines N [--seed S] [--shape default|small-fns|big-fns] --out DIR` (write a generated program of one of the measured shapes),
//! `stability --runs K [e1 ...]` (the headline experiments, or those named, K times into
//! directories of their own; `results/stability.csv` and `stability.*` values hold each
//! headline's spread over the runs, and the paper is regenerated), `scaling` (the scaling profile: E1 and E6 at 10k, 100k
//! and 1M lines and E3's goal edits at each, into `results/scaling/`, with exponents
//! fitted on the actual line counts and `scaling.*` values; about 20 minutes here). `--instructions` also counts the instructions of
//! every measured configuration once under `valgrind --tool=callgrind`, where valgrind is
//! installed (skipped with a note where it is not).

use std::path::PathBuf;
use std::process::ExitCode;

use experiments::runner::{self, exps, Ctx, Profile};

const USAGE: &str = "usage: experiments [all | e1..e10 ... | corpus | paper | figures | gen --lines N [--seed S] [--shape S] --out DIR | stability --runs K [e1..e10 ...] | scaling [--sizes N,N,...] [--reps R]] [--profile tiny|quick|full] [--results DIR] [--instructions]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("gen") {
        return generate(&args[1..]);
    }
    let mut profile = Profile::quick();
    let mut results = runner::workspace_root().join("results");
    let mut selected: Vec<String> = Vec::new();
    let mut instructions = false;
    let mut stability_runs: Option<usize> = None;
    let mut scaling: Option<Profile> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--profile" => match it.next().and_then(|p| Profile::by_name(p)) {
                Some(p) => profile = p,
                None => return usage("--profile takes tiny, quick or full"),
            },
            "--instructions" => instructions = true,
            "stability" => {
                stability_runs.get_or_insert(0);
            }
            "--runs" => match it.next().and_then(|k| k.parse::<usize>().ok()) {
                Some(k) if k >= 2 => stability_runs = Some(k),
                _ => return usage("--runs takes a number of runs, at least 2"),
            },
            "scaling" => {
                scaling.get_or_insert_with(runner::scaling::profile);
            }
            "--sizes" => {
                let sizes: Option<Vec<usize>> = it
                    .next()
                    .map(|v| v.split(',').map(|s| s.trim().parse().ok()).collect())
                    .unwrap_or(None);
                match (sizes, scaling.as_mut()) {
                    (Some(s), Some(p)) if s.len() >= 2 && s.iter().all(|&n| n > 0) => {
                        p.sizes = s;
                    }
                    (_, None) => return usage("--sizes goes after `scaling`"),
                    _ => return usage("--sizes takes two or more sizes, e.g. 10000,100000"),
                }
            }
            "--reps" => match (
                it.next().and_then(|r| r.parse::<usize>().ok()),
                scaling.as_mut(),
            ) {
                (Some(r), Some(p)) if r >= 2 => p.reps = r,
                (_, None) => return usage("--reps goes after `scaling`"),
                _ => return usage("--reps takes a number of rounds, at least 2"),
            },
            "--results" => match it.next() {
                Some(d) => results = PathBuf::from(d),
                None => return usage("--results takes a directory"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            s if s == "all" || s == "corpus" || s == "paper" || s == "figures" => {
                selected.push(s.to_string())
            }
            s if exps::ALL.iter().any(|e| e.id == s) => selected.push(s.to_string()),
            s => return usage(&format!("unknown argument `{s}`")),
        }
    }
    let paper_dir = runner::workspace_root().join("paper");
    if let Some(k) = stability_runs {
        if k == 0 {
            return usage("stability needs --runs K");
        }
        return stability(profile, k, &selected, &results, &paper_dir, instructions);
    }
    if let Some(p) = scaling {
        return run_scaling(&p, &results, &paper_dir);
    }
    if selected == ["corpus"] {
        return match runner::corpus_check::run(true) {
            Ok(r) if r.failed == 0 => ExitCode::SUCCESS,
            Ok(_) => ExitCode::from(1),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    if selected == ["paper"] {
        return regenerate_paper(&paper_dir, &results);
    }
    if selected == ["figures"] {
        return match runner::redraw(&results) {
            Ok(n) => {
                println!(
                    "{n} figures redrawn under {}",
                    results.join("figures").display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        };
    }
    let whole = selected.is_empty() || selected.iter().any(|s| s == "all");
    let ids: Vec<String> = if whole {
        exps::ALL.iter().map(|e| e.id.to_string()).collect()
    } else {
        selected
            .iter()
            .filter(|s| s.starts_with('e'))
            .cloned()
            .collect()
    };
    let (rill, work) = match rill_and_work() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "profile {}: sizes {:?}, {} rounds after {} warm-up; rill = {}; work dir {}",
        profile.name,
        profile.sizes,
        profile.reps,
        profile.warmup,
        rill.display(),
        work.display()
    );
    let mut ctx = Ctx::new(profile, rill, work, results.clone(), paper_dir);
    if instructions {
        count_instructions(&mut ctx);
    }
    let report = match runner::run_suite(
        &ctx,
        &ids,
        whole || selected.iter().any(|s| s == "corpus"),
        true,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!("summary ({}):", results.join("summary.json").display());
    println!(
        "{}",
        serde_json::to_string_pretty(&report.summary).unwrap_or_default()
    );
    if let Some(w) = report.paper_words {
        println!("paper/paper.md regenerated ({w} words)");
    }
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if report.paper_words.is_none() {
        // The paper could not be generated: a value it needs is missing, or the results
        // contradict a claim it states (the warning above says which).
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The `rill` binary (built first under `cargo run`) and the runner's work directory.
fn rill_and_work() -> Result<(PathBuf, PathBuf), String> {
    let rill = runner::rill::locate_rill()?;
    let work = rill
        .parent()
        .map(|d| d.join("rill-experiments"))
        .unwrap_or_else(|| std::env::temp_dir().join("rill-experiments"));
    Ok((rill, work))
}

/// `--instructions`: counts instructions under callgrind, or says why not.
fn count_instructions(ctx: &mut Ctx) {
    match ctx.count_instructions() {
        Ok(v) => eprintln!("instructions: counted under {v} (callgrind), once per configuration"),
        Err(why) => eprintln!("note: --instructions skipped: {why}"),
    }
}

/// `stability --runs K [experiments]`: the experiments `k` times, each run into a
/// directory of its own under the work directory; the spread into `results`.
fn stability(
    profile: Profile,
    k: usize,
    selected: &[String],
    results: &std::path::Path,
    paper_dir: &std::path::Path,
    instructions: bool,
) -> ExitCode {
    let ids: Vec<String> = if selected.iter().any(|s| s.starts_with('e')) {
        selected
            .iter()
            .filter(|s| s.starts_with('e'))
            .cloned()
            .collect()
    } else {
        runner::stability::HEADLINE_EXPERIMENTS
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let (rill, work) = match rill_and_work() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Every headline of E8 is at `rustc_size`; its other sizes only add rows the check
    // does not compare, and most of its time (rustc's builds at 100k lines).
    let mut profile = profile;
    profile.rustc_sizes = vec![profile.rustc_size];
    let mut summaries = Vec::new();
    for run in 1..=k {
        let dir = work.join("stability").join(format!("run-{run}"));
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!(
            "stability: run {run} of {k} ({}) -> {}",
            ids.join(" "),
            dir.display()
        );
        let mut ctx = Ctx::new(
            profile.clone(),
            rill.clone(),
            work.clone(),
            dir.clone(),
            paper_dir.to_path_buf(),
        );
        if instructions {
            count_instructions(&mut ctx);
        }
        if let Err(e) = runner::run_suite(&ctx, &ids, false, false) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        match runner::stability::read_summary(&dir) {
            Ok(s) => summaries.push(s),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let rows = runner::stability::analyze(&summaries);
    // The code the runs measured, as the first run's `meta.json` names it.
    let commit = std::fs::read_to_string(work.join("stability").join("run-1").join("meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|m| m.get("commit").and_then(|c| c.as_str()).map(str::to_string));
    if let Err(e) = runner::stability::write(results, &rows, k, commit.as_deref()) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    for r in rows.iter().filter(|r| r.run == 1 && r.min.is_some()) {
        eprintln!(
            "  {}: {} to {} over {k} runs (max/min - 1 = {:.3})",
            r.key,
            runner::paper::format_number(r.min.unwrap_or(f64::NAN)),
            runner::paper::format_number(r.max.unwrap_or(f64::NAN)),
            r.spread.unwrap_or(f64::NAN)
        );
    }
    println!("{} written", results.join("stability.csv").display());
    // The paper quotes the spread: regenerated, as after the suite and the scaling profile.
    regenerate_paper(paper_dir, results)
}

/// `scaling`: the scaling profile into `results/scaling/`, then the paper regenerated.
fn run_scaling(
    profile: &Profile,
    results: &std::path::Path,
    paper_dir: &std::path::Path,
) -> ExitCode {
    let (rill, work) = match rill_and_work() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "scaling: sizes {:?}, {} rounds after {} warm-up; E1 and E6 over the sizes, E3 ({}) at each",
        profile.sizes,
        profile.reps,
        profile.warmup,
        runner::scaling::E3_KINDS.join(", ")
    );
    let warnings = match runner::scaling::run(profile, &rill, &work, results, paper_dir) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let dir = results.join(runner::scaling::DIR);
    println!(
        "{} and {} written",
        dir.join("ratios.csv").display(),
        dir.join("fits.csv").display()
    );
    regenerate_paper(paper_dir, results)
}

/// `paper/paper.md` regenerated from `results`.
fn regenerate_paper(paper_dir: &std::path::Path, results: &std::path::Path) -> ExitCode {
    match runner::paper::regenerate(paper_dir, results) {
        Ok(words) => {
            println!("paper/paper.md regenerated ({words} words)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n{USAGE}");
    ExitCode::from(2)
}

/// `experiments gen --lines N [--seed S] [--shape default|small-fns|big-fns] --out DIR`:
/// writes a generated workload program of one of the shapes the experiments measure.
fn generate(args: &[String]) -> ExitCode {
    const GEN_USAGE: &str =
        "usage: experiments gen --lines N [--seed S] [--shape default|small-fns|big-fns] --out DIR";
    let defaults = rill_gen::GenConfig::default();
    let (mut lines, mut seed, mut shape) = (
        defaults.target_lines,
        defaults.seed,
        runner::workload::Shape::Default,
    );
    let mut out = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next();
        let taken = match (flag.as_str(), value) {
            ("--lines", Some(v)) => v.parse().ok().map(|n| lines = n),
            ("--seed", Some(v)) => v.parse().ok().map(|n| seed = n),
            ("--shape", Some(v)) => runner::workload::Shape::by_name(v).map(|s| shape = s),
            ("--out", Some(v)) => {
                out = Some(std::path::PathBuf::from(v));
                Some(())
            }
            _ => None,
        };
        if taken.is_none() {
            eprintln!("{GEN_USAGE}");
            return ExitCode::from(2);
        }
    }
    let Some(out) = out else {
        eprintln!("{GEN_USAGE}");
        return ExitCode::from(2);
    };
    let program = runner::workload::generate_shaped(shape, lines, seed);
    if let Err(e) = program.write_to(&out) {
        eprintln!("error: cannot write to `{}`: {e}", out.display());
        return ExitCode::from(2);
    }
    println!(
        "{} lines in {} files written to {}",
        program.total_lines(),
        program.files.len(),
        out.display()
    );
    ExitCode::SUCCESS
}
