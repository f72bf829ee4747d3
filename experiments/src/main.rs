//! The main job: the experiment suite (DESIGN.md E1–E10).
//!
//! ```text
//! cargo run --release -p experiments [-- [SUBCOMMAND...] [--profile quick|full] [--results DIR]]
//! ```
//!
//! Without a subcommand: the corpus check, then E1–E10 (quick profile), rewriting
//! `results/` and its figures and regenerating `paper/paper.md`. Subcommands: `e1` … `e10`
//! (one or more experiments; their results are merged into `results/`), `corpus` (the
//! corpus table only), `paper` (regenerate the paper from `results/`), `figures` (redraw
//! from the CSVs), `gen --lines N [--seed S] --out DIR` (write a generated program).

use std::path::PathBuf;
use std::process::ExitCode;

use experiments::runner::{self, exps, Ctx, Profile};

const USAGE: &str = "usage: experiments [all | e1..e10 ... | corpus | paper | figures | gen --lines N [--seed S] --out DIR] [--profile quick|full] [--results DIR]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("gen") {
        return generate(&args[1..]);
    }
    let mut profile = Profile::quick();
    let mut results = runner::workspace_root().join("results");
    let mut selected: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--profile" => match it.next().and_then(|p| Profile::by_name(p)) {
                Some(p) => profile = p,
                None => return usage("--profile takes quick or full"),
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
        return match runner::paper::regenerate(&paper_dir, &results) {
            Ok(words) => {
                println!("paper/paper.md regenerated ({words} words)");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        };
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
    let rill = match runner::rill::locate_rill() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let work = rill
        .parent()
        .map(|d| d.join("rill-experiments"))
        .unwrap_or_else(|| std::env::temp_dir().join("rill-experiments"));
    eprintln!(
        "profile {}: sizes {:?}, {} repetitions; rill = {}; work dir {}",
        profile.name,
        profile.sizes,
        profile.reps,
        rill.display(),
        work.display()
    );
    let ctx = Ctx::new(profile, rill, work, results.clone(), paper_dir);
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

fn usage(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n{USAGE}");
    ExitCode::from(2)
}

/// `experiments gen --lines N [--seed S] --out DIR`: writes a generated workload program.
fn generate(args: &[String]) -> ExitCode {
    let mut cfg = rill_gen::GenConfig::default();
    let mut out = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next();
        match (flag.as_str(), value) {
            ("--lines", Some(v)) if v.parse::<usize>().is_ok() => {
                cfg.target_lines = v.parse().unwrap_or(1000)
            }
            ("--seed", Some(v)) if v.parse::<u64>().is_ok() => cfg.seed = v.parse().unwrap_or(0),
            ("--out", Some(v)) => out = Some(std::path::PathBuf::from(v)),
            _ => {
                eprintln!("usage: experiments gen --lines N [--seed S] --out DIR");
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out else {
        eprintln!("usage: experiments gen --lines N [--seed S] --out DIR");
        return ExitCode::from(2);
    };
    let program = rill_gen::generate(&cfg);
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
