//! The main job. Until the experiment suite exists, it compiles every program of the
//! corpus with the staged frontend, runs it with the reference interpreter, and prints one
//! row per program: size, compile and run time, and whether stdout and the exit code match
//! what rustc's build of the same program did.

use std::process::ExitCode;
use std::time::Instant;

use experiments::corpus;
use shared_frontend::ir::interp::{self, InterpLimits};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("gen") {
        return generate(&args[1..]);
    }
    let programs = corpus::programs("run");
    if programs.is_empty() {
        eprintln!(
            "error: no programs under {}",
            corpus::corpus_dir().join("run").display()
        );
        return ExitCode::from(2);
    }
    println!(
        "{:<32} {:>6} {:>11} {:>10} {:>6}  result",
        "program", "lines", "compile ms", "run ms", "exit"
    );
    let (mut passed, mut failed) = (0, 0);
    let (mut total_lines, mut total_compile) = (0usize, 0f64);
    for program in &programs {
        let lines = program.lines();
        let start = Instant::now();
        let compiled = pipeline::compile_path(&program.root, pipeline::Until::Ir);
        let compile_ms = start.elapsed().as_secs_f64() * 1e3;
        total_lines += lines;
        total_compile += compile_ms;
        let expected = program.expectation();
        let (exit, run_ms, verdict) = match (&compiled.ir, &expected) {
            (_, Err(e)) => (-1, 0.0, format!("no expectation: {e}")),
            (None, _) => {
                let first = compiled
                    .diagnostics
                    .first()
                    .map(|d| d.message.as_str())
                    .unwrap_or("");
                (1, 0.0, format!("compile error: {first}"))
            }
            (Some(ir), Ok(expected)) => {
                let start = Instant::now();
                let outcome = interp::run(ir, &InterpLimits::default());
                let run_ms = start.elapsed().as_secs_f64() * 1e3;
                let exit = outcome.status.exit_code();
                let verdict = if outcome.stdout != expected.stdout {
                    "stdout differs from rustc".to_string()
                } else if exit != expected.exit_code {
                    format!("exit code differs from rustc ({})", expected.exit_code)
                } else {
                    "ok".to_string()
                };
                (exit, run_ms, verdict)
            }
        };
        if verdict == "ok" {
            passed += 1;
        } else {
            failed += 1;
        }
        println!(
            "{:<32} {:>6} {:>11.2} {:>10.2} {:>6}  {verdict}",
            program.name, lines, compile_ms, run_ms, exit
        );
    }
    println!();
    println!(
        "{passed} passed, {failed} failed; {total_lines} lines compiled in {total_compile:.1} ms ({:.0} lines/s, frontend to optimized IR, debug I/O included)",
        total_lines as f64 / (total_compile / 1e3).max(1e-9)
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `experiments gen --lines N [--seed S] --out DIR`: writes a generated workload program.
fn generate(args: &[String]) -> ExitCode {
    let mut cfg = shared_frontend::gen::GenConfig::default();
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
    let program = shared_frontend::gen::generate(&cfg);
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
