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

#[test]
fn a_blob_keeps_only_the_relocations_it_has() {
    // `fib` calls itself twice (a relocation each) and checks the stack (a runtime call):
    // its room was made for two relocations per call and per block.
    let p = common::fib_program(20);
    for f in &p.functions {
        let blob = backend::codegen(f);
        assert!(!blob.relocations.is_empty(), "{}", f.name);
        assert_eq!(
            blob.relocations.capacity(),
            blob.relocations.len(),
            "{}",
            f.name
        );
    }
}
