//! Source-level differential test: every program of `experiments/corpus/run` compiled to
//! IR by the staged driver runs under the JIT with the stdout and exit code rustc gave
//! (its `.stdout` and `.exit` files) and exactly as under the interpreter.

use std::path::{Path, PathBuf};

use backend::{run_program, RunLimits};
use shared_frontend::ir::interp::{self, InterpLimits};

fn corpus_programs() -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/corpus/run");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("corpus directory") {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            out.push((name, path.join("main.rs")));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((name, path));
        }
    }
    out.sort();
    out
}

#[test]
fn corpus_runs_like_rustc_and_the_interpreter() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/corpus/run");
    let mut failures = Vec::new();
    let mut ran = 0;
    for (name, root) in corpus_programs() {
        let compiled = pipeline::compile_path(&root, pipeline::Until::Ir);
        let Some(ir) = compiled.ir else {
            // The frontend does not compile it yet: that is the frontend's test to fail.
            continue;
        };
        let want_stdout = std::fs::read(dir.join(format!("{name}.stdout"))).unwrap_or_default();
        let want_exit: i32 = std::fs::read_to_string(dir.join(format!("{name}.exit")))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        let jit = match run_program(&ir, &RunLimits::default()) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{name}: link error: {e}"));
                continue;
            }
        };
        let int = interp::run(&ir, &InterpLimits::default());
        ran += 1;
        if jit.stdout != int.stdout || jit.status != int.status {
            failures.push(format!(
                "{name}: JIT {:?} vs interpreter {:?}",
                jit.status, int.status
            ));
        }
        if jit.stdout != want_stdout || jit.status.exit_code() != want_exit {
            failures.push(format!(
                "{name}: JIT exit {} (expected {want_exit}), stdout {}",
                jit.status.exit_code(),
                if jit.stdout == want_stdout {
                    "same"
                } else {
                    "differs"
                }
            ));
        }
    }
    eprintln!("{ran} corpus programs ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
