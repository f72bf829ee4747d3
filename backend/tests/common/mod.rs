//! Shared helpers of the backend's integration tests: running a program under the JIT
//! and the interpreter, and a generator of random well-formed IR programs.

#![allow(dead_code)]

pub mod gen;

use backend::{run_program, RunLimits};
use shared_frontend::ir::interp::{self, InterpLimits, InterpOutcome};
use shared_frontend::ir::IrProgram;

/// Runs `p` under both; panics with both outcomes if they differ. Returns the JIT's.
pub fn check_same(p: &IrProgram) -> InterpOutcome {
    let want = interp::run(p, &InterpLimits::default());
    let got = match run_program(p, &RunLimits::default()) {
        Ok(o) => InterpOutcome {
            stdout: o.stdout,
            status: o.status,
        },
        Err(e) => panic!("link error: {e}\n{p}"),
    };
    if got != want {
        panic!(
            "JIT and interpreter differ\n--- JIT: {:?}\n{}\n--- interpreter: {:?}\n{}\n--- program:\n{p}",
            got.status,
            String::from_utf8_lossy(&got.stdout),
            want.status,
            String::from_utf8_lossy(&want.stdout),
        );
    }
    got
}

pub fn stdout(o: &InterpOutcome) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
