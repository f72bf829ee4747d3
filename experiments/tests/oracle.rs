//! The rustc oracle: generated programs run by the reference interpreter must print what
//! rustc's build of the same program prints and panic exactly when it panics; generated
//! ill-formed programs must be rejected by both.
//!
//! `RILL_ORACLE_CASES` sets the number of programs (default 200); seeds are fixed, so a
//! failure names the seed that reproduces it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use experiments::runner::exps::RUSTC_FLAGS;
use rill_gen::{self as gen, GenConfig, Program};
use shared_frontend::ir::interp::{self, InterpLimits};

fn cases() -> u64 {
    std::env::var("RILL_ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

struct RustcRun {
    compiled: bool,
    stdout: Vec<u8>,
    exit_code: Option<i32>,
}

/// Compiles and (if it compiled) runs `program` with rustc, in `dir`.
fn rustc(program: &Program, dir: &Path) -> RustcRun {
    program.write_to(dir).expect("write program");
    let exe = dir.join("prog");
    let status = Command::new("rustc")
        .args(RUSTC_FLAGS)
        .arg(dir.join("main.rs"))
        .arg("-o")
        .arg(&exe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("rustc runs");
    if !status.success() {
        return RustcRun {
            compiled: false,
            stdout: Vec::new(),
            exit_code: None,
        };
    }
    let mut child = Command::new(&exe)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("program runs");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).ok();
        buf
    });
    let start = Instant::now();
    let exit_code = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    RustcRun {
        compiled: true,
        stdout: reader.join().unwrap_or_default(),
        exit_code,
    }
}

/// Compiles the program that [`rustc`] wrote to `dir`.
fn rill(dir: &Path) -> pipeline::Compiled {
    pipeline::compile_path(&dir.join("main.rs"), pipeline::Until::Image)
}

fn for_each_case(f: impl Fn(u64) -> Result<(), String> + Sync) {
    let n = cases();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4) as u64;
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let f = &f;
                s.spawn(move || {
                    (0..n)
                        .filter(|i| i % threads == t)
                        .filter_map(|i| f(i).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn generated_programs_behave_as_under_rustc() {
    for_each_case(|i| {
        let seed = 0x5eed_0000 + i;
        let cfg = GenConfig {
            seed,
            target_lines: 60 + (i as usize % 7) * 40,
            ..GenConfig::default()
        };
        let program = gen::generate(&cfg);
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let expected = rustc(&program, dir.path());
        if !expected.compiled {
            return Err(format!(
                "seed {seed:#x}: rustc rejects the generated program (a generator bug)"
            ));
        }
        let compiled = rill(dir.path());
        let Some(ir) = &compiled.ir else {
            let text =
                shared_frontend::diag::render_short(&compiled.diagnostics, &compiled.sources);
            return Err(format!("seed {seed:#x}: rill rejects it:\n{text}"));
        };
        let outcome = interp::run(ir, &InterpLimits::default());
        if outcome.stdout != expected.stdout {
            return Err(format!("seed {seed:#x}: stdout differs from rustc's"));
        }
        let Some(image) = &compiled.image else {
            return Err(format!("seed {seed:#x}: not linked"));
        };
        let jit = image.run(&backend::RunLimits::default());
        if jit.stdout != outcome.stdout || jit.status.exit_code() != outcome.status.exit_code() {
            return Err(format!(
                "seed {seed:#x}: JIT {:?} differs from the interpreter {:?}",
                jit.status, outcome.status
            ));
        }
        let panicked = outcome.status.exit_code() == 101;
        if panicked != (expected.exit_code == Some(101)) {
            return Err(format!(
                "seed {seed:#x}: interp {:?}, rustc exit {:?}",
                outcome.status, expected.exit_code
            ));
        }
        Ok(())
    });
}

#[test]
fn generated_ill_formed_programs_are_rejected_by_both() {
    for_each_case(|i| {
        if i % 2 == 1 {
            return Ok(()); // half as many: each case compiles twice
        }
        let seed = 0xbad_0000 + i;
        let base = gen::generate(&GenConfig {
            seed,
            target_lines: 80,
            ..GenConfig::default()
        });
        let Some(mutation) = gen::mutate_ill_formed(&base, seed) else {
            return Ok(());
        };
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let expected = rustc(&mutation.program, dir.path());
        let compiled = rill(dir.path());
        match (expected.compiled, compiled.has_errors()) {
            (false, true) => Ok(()),
            (true, _) => Err(format!(
                "seed {seed:#x}: rustc accepts the mutation `{}`",
                mutation.description
            )),
            (false, false) => Err(format!(
                "seed {seed:#x}: rill accepts `{}`, rustc rejects it",
                mutation.description
            )),
        }
    });
}
