//! First end-to-end checks: small programs give the interpreter's output and status.

use backend::{run_program, RunLimits};
use shared_frontend::ir::builder::{fn_def_id, program, FunctionBuilder};
use shared_frontend::ir::interp::{self, InterpLimits};
use shared_frontend::ir::{IrBinOp, IrProgram, ScalarTy};

fn same(p: &IrProgram) -> String {
    let want = interp::run(p, &InterpLimits::default());
    let got = run_program(p, &RunLimits::default()).expect("links");
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout)
    );
    assert_eq!(got.status, want.status);
    String::from_utf8_lossy(&got.stdout).into_owned()
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
    let mut f = FunctionBuilder::new("fib");
    f.returns(Some(ScalarTy::I64));
    let n = f.param(ScalarTy::I64);
    let two = f.iconst(ScalarTy::I64, 2);
    let small = f.binary(IrBinOp::Lt, n, two);
    let base = f.block();
    let rec = f.block();
    f.branch(small, base, rec);
    f.switch_to(base);
    f.ret(Some(n));
    f.switch_to(rec);
    let one = f.iconst(ScalarTy::I64, 1);
    let a = f.binary(IrBinOp::Sub, n, one);
    let b1 = f.binary(IrBinOp::Sub, n, two);
    let fa = f.call(fn_def_id("fib"), &[a], Some(ScalarTy::I64)).unwrap();
    let fb = f
        .call(fn_def_id("fib"), &[b1], Some(ScalarTy::I64))
        .unwrap();
    let s = f.binary(IrBinOp::Add, fa, fb);
    f.ret(Some(s));

    let mut m = FunctionBuilder::new("main");
    let k = m.iconst(ScalarTy::I64, 20);
    let r = m.call(fn_def_id("fib"), &[k], Some(ScalarTy::I64)).unwrap();
    m.print_int(r);
    m.print_str("\n");
    m.ret(None);
    let p = program(vec![m.finish(), f.finish()], fn_def_id("main"));
    assert_eq!(same(&p), "6765\n");
}
