//! The hand-written corpus against the whole frontend and the reference interpreter:
//! `run/` programs must print exactly what rustc's build printed and exit the same way;
//! `fail/` programs must be rejected with their first error on an annotated line, worded
//! as annotated; `unsupported/` programs must be rejected with an `unsupported: …` error
//! on an annotated line.

use experiments::corpus::{self, CorpusProgram, ExpectedError};
use shared_frontend::diag::Diagnostic;
use shared_frontend::ir::interp::{self, InterpLimits};

fn first_error(compiled: &pipeline::Compiled) -> Option<&Diagnostic> {
    compiled.diagnostics.iter().find(|d| d.is_error())
}

/// (file, 1-based line) of a diagnostic's primary label.
fn position(compiled: &pipeline::Compiled, d: &Diagnostic) -> Option<(std::path::PathBuf, usize)> {
    let label = d.labels.first()?;
    let file = compiled.sources.get(label.file?);
    Some((file.path.clone(), file.line_col(label.span.lo).0))
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn check_rejected(program: &CorpusProgram, require_unsupported: bool) -> Result<(), String> {
    let compiled = pipeline::compile_path(&program.root, pipeline::Until::Check);
    let expected = program.expected_errors();
    let Some(first) = first_error(&compiled) else {
        return Err("accepted, but rustc rejects it".to_string());
    };
    let rendered = shared_frontend::diag::render_short(&compiled.diagnostics, &compiled.sources);
    let pos = position(&compiled, first);
    let on_line: Vec<&ExpectedError> = expected
        .iter()
        .filter(|e| {
            pos.as_ref()
                .is_some_and(|(f, l)| *l == e.line && same_file(f, &e.file))
        })
        .collect();
    if on_line.is_empty() {
        return Err(format!(
            "first error is not on an annotated line:\n{rendered}"
        ));
    }
    if require_unsupported {
        if !first.message.starts_with("unsupported") {
            return Err(format!(
                "expected an `unsupported: …` error first:\n{rendered}"
            ));
        }
    } else if !on_line.iter().any(|e| first.message.contains(&e.message)) {
        let wanted: Vec<&str> = on_line.iter().map(|e| e.message.as_str()).collect();
        return Err(format!(
            "first error's message is not {wanted:?}:\n{rendered}"
        ));
    }
    Ok(())
}

fn report(kind: &str, failures: Vec<(String, String)>, total: usize) {
    if failures.is_empty() {
        return;
    }
    let mut text = format!("{} of {total} `{kind}` programs failed:\n", failures.len());
    for (name, why) in &failures {
        text.push_str(&format!("--- {name}: {why}\n"));
    }
    panic!("{text}");
}

#[test]
fn run_programs_behave_as_under_rustc() {
    let programs = corpus::programs("run");
    assert!(
        programs.len() >= 40,
        "the corpus has only {} run programs",
        programs.len()
    );
    let mut failures = Vec::new();
    for program in &programs {
        let expected = program
            .expectation()
            .expect("every run/ program has .stdout and .exit");
        let compiled = pipeline::compile_path(&program.root, pipeline::Until::Image);
        let Some(ir) = &compiled.ir else {
            let rendered =
                shared_frontend::diag::render_short(&compiled.diagnostics, &compiled.sources);
            failures.push((program.name.clone(), format!("rejected:\n{rendered}")));
            continue;
        };
        let outcome = interp::run(ir, &InterpLimits::default());
        // The JIT (staged pipeline + backend) must behave exactly like the interpreter.
        match &compiled.image {
            Some(image) => {
                let jit = image.run(&backend::RunLimits::default());
                if jit.stdout != outcome.stdout
                    || jit.status.exit_code() != outcome.status.exit_code()
                {
                    failures.push((
                        program.name.clone(),
                        format!("JIT differs from the interpreter: {:?}", jit.status),
                    ));
                }
            }
            None => failures.push((program.name.clone(), "not linked".to_string())),
        }
        if outcome.stdout != expected.stdout {
            failures.push((
                program.name.clone(),
                format!(
                    "stdout differs\n  expected: {:?}\n  actual:   {:?}",
                    String::from_utf8_lossy(&expected.stdout),
                    String::from_utf8_lossy(&outcome.stdout)
                ),
            ));
        } else if outcome.status.exit_code() != expected.exit_code {
            failures.push((
                program.name.clone(),
                format!(
                    "exit code {} (expected {}): {}",
                    outcome.status.exit_code(),
                    expected.exit_code,
                    outcome.status
                ),
            ));
        }
    }
    report("run", failures, programs.len());
}

#[test]
fn ill_formed_programs_are_rejected_like_rustc() {
    let programs = corpus::programs("fail");
    assert!(
        programs.len() >= 40,
        "the corpus has only {} fail programs",
        programs.len()
    );
    let failures: Vec<_> = programs
        .iter()
        .filter_map(|p| check_rejected(p, false).err().map(|e| (p.name.clone(), e)))
        .collect();
    report("fail", failures, programs.len());
}

#[test]
fn programs_outside_the_subset_are_unsupported() {
    let programs = corpus::programs("unsupported");
    assert!(
        programs.len() >= 10,
        "the corpus has only {} unsupported programs",
        programs.len()
    );
    let failures: Vec<_> = programs
        .iter()
        .filter_map(|p| check_rejected(p, true).err().map(|e| (p.name.clone(), e)))
        .collect();
    report("unsupported", failures, programs.len());
}
