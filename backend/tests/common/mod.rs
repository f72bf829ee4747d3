//! Shared helpers of the backend's integration tests: running a program under the JIT
//! and the interpreter, a small recursive program, and a generator of random
//! well-formed IR programs.

#![allow(dead_code)]

pub mod gen;

use backend::{run_program, RunLimits};
use shared_frontend::ir::builder::{fn_def_id, program, FunctionBuilder};
use shared_frontend::ir::interp::{self, InterpLimits, InterpOutcome};
use shared_frontend::ir::{IrBinOp, IrProgram, ScalarTy};

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

/// `fib(n) = if n < 2 { n } else { fib(n - 1) + fib(n - 2) }` on `i64`, and a `main`
/// that prints `fib(n)` and a newline.
pub fn fib_program(n: u64) -> IrProgram {
    let mut f = FunctionBuilder::new("fib");
    f.returns(Some(ScalarTy::I64));
    let x = f.param(ScalarTy::I64);
    let two = f.iconst(ScalarTy::I64, 2);
    let small = f.binary(IrBinOp::Lt, x, two);
    let (base, rec) = (f.block(), f.block());
    f.branch(small, base, rec);
    f.switch_to(base);
    f.ret(Some(x));
    f.switch_to(rec);
    let one = f.iconst(ScalarTy::I64, 1);
    let a = f.binary(IrBinOp::Sub, x, one);
    let b = f.binary(IrBinOp::Sub, x, two);
    let fa = f.call(fn_def_id("fib"), &[a], Some(ScalarTy::I64)).unwrap();
    let fb = f.call(fn_def_id("fib"), &[b], Some(ScalarTy::I64)).unwrap();
    let s = f.binary(IrBinOp::Add, fa, fb);
    f.ret(Some(s));
    let mut m = FunctionBuilder::new("main");
    let k = m.iconst(ScalarTy::I64, n);
    let r = m.call(fn_def_id("fib"), &[k], Some(ScalarTy::I64)).unwrap();
    m.print_int(r);
    m.print_str("\n");
    m.ret(None);
    program(vec![m.finish(), f.finish()], fn_def_id("main"))
}

/// A file holding `bytes`, opened for reading and already unlinked (as a cache file is
/// mapped by the driver).
pub fn unlinked_file(bytes: &[u8]) -> std::fs::File {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "rill-backend-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    file
}
