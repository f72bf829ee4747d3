//! The corpus check: every program of `experiments/corpus/run` compiled in-process by
//! the staged frontend and run by the reference interpreter, compared with what rustc's
//! build did. The first, quick step of the default suite (and the `corpus` subcommand).

use std::time::Instant;

use shared_frontend::ir::interp::{self, InterpLimits};

use crate::corpus;

/// What the check found.
#[derive(Clone, Debug, Default)]
pub struct CorpusResult {
    pub passed: usize,
    pub failed: usize,
    pub lines: usize,
    pub compile_ms: f64,
}

/// Runs the check; `print` writes one row per program to stdout.
pub fn run(print: bool) -> Result<CorpusResult, String> {
    let programs = corpus::programs("run");
    if programs.is_empty() {
        return Err(format!(
            "no programs under {}",
            corpus::corpus_dir().join("run").display()
        ));
    }
    if print {
        println!(
            "{:<32} {:>6} {:>11} {:>10} {:>6}  result",
            "program", "lines", "compile ms", "run ms", "exit"
        );
    }
    let mut res = CorpusResult::default();
    for program in &programs {
        let lines = program.lines();
        let start = Instant::now();
        let compiled = pipeline::compile_path(&program.root, pipeline::Until::Ir);
        let compile_ms = start.elapsed().as_secs_f64() * 1e3;
        res.lines += lines;
        res.compile_ms += compile_ms;
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
            res.passed += 1;
        } else {
            res.failed += 1;
        }
        if print {
            println!(
                "{:<32} {:>6} {:>11.2} {:>10.2} {:>6}  {verdict}",
                program.name, lines, compile_ms, run_ms, exit
            );
        }
    }
    if print {
        println!();
        println!(
            "{} passed, {} failed; {} lines compiled in {:.1} ms (frontend to optimized IR, in-process)",
            res.passed, res.failed, res.lines, res.compile_ms
        );
    }
    Ok(res)
}
