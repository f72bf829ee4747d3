//! First end-to-end checks: small programs give the interpreter's output and status.

mod common;

use shared_frontend::ir::builder::{fn_def_id, program, FunctionBuilder};
use shared_frontend::ir::{IrBinOp, IrProgram, ScalarTy};

/// The JIT's output, checked equal to the interpreter's (with the status).
fn same(p: &IrProgram) -> String {
    common::stdout(&common::check_same(p))
}

#[test]
fn hello() {
    let mut b = FunctionBuilder::new("main");
    let x = b.iconst(ScalarTy::I32, 40);
    let y = b.iconst(ScalarTy::I32, 2);
    let s = b.binary(IrBinOp::Add, x, y);
    b.print_int(s);
    b.print_str("\n");
    b.ret(None);
    let p = program(vec![b.finish()], fn_def_id("main"));
    assert_eq!(same(&p), "42\n");
}

#[test]
fn fib() {
    assert_eq!(same(&common::fib_program(20)), "6765\n");
}
