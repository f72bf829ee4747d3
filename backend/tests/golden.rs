//! Golden tests of emitted code: each case's IR (printed) and the expected listing live in
//! one file, `tests/golden/<case>.txt`. `UPDATE_GOLDEN=1` rewrites the files.

mod common;

use std::path::PathBuf;

use shared_frontend::ir::builder::{fn_def_id, program, FunctionBuilder};
use shared_frontend::ir::{IrBinOp, IrProgram, ScalarTy};

fn check(case: &str, p: &IrProgram) {
    let names: Vec<_> = p
        .functions
        .iter()
        .map(|f| (f.def, f.name.clone()))
        .collect();
    let lookup = |d| names.iter().find(|(x, _)| *x == d).map(|(_, n)| n.clone());
    let mut text = String::from("# IR\n");
    text.push_str(&p.to_string());
    text.push_str("\n# x86-64\n");
    for f in &p.functions {
        let blob = backend::codegen(f);
        text.push_str(&backend::disassemble_with(&f.name, &blob, &lookup));
        text.push('\n');
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{case}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", path.display()));
    if want != text {
        panic!(
            "{} differs (UPDATE_GOLDEN=1 to bless)\n--- got:\n{text}",
            path.display()
        );
    }
}

#[test]
fn fib() {
    check("fib", &common::fib_program(30));
}

/// Immediates at the encoding edges, on 32- and 64-bit operations and stores.
#[test]
fn immediates() {
    let mut f = FunctionBuilder::new("imm");
    f.returns(Some(ScalarTy::I64));
    let x = f.param(ScalarTy::I64);
    let y = f.param(ScalarTy::I32);
    let p = f.param(ScalarTy::Ptr);
    let acc = f.reg(ScalarTy::I64);
    f.assign(acc, x);
    for v in [
        0i64,
        127,
        128,
        -128,
        -129,
        i32::MAX as i64,
        i32::MIN as i64,
        1 << 31,
        -(1 << 31) - 1,
        0x1234_5678_9abc_def0,
    ] {
        let c = f.sconst(ScalarTy::I64, v);
        f.assign_binary(IrBinOp::Add, acc, acc, c);
        f.store(p, 0, c);
    }
    let acc32 = f.reg(ScalarTy::I32);
    f.assign(acc32, y);
    for v in [0i64, 127, 128, -128, -129, i32::MAX as i64, i32::MIN as i64] {
        let c = f.sconst(ScalarTy::I32, v);
        f.assign_binary(IrBinOp::Xor, acc32, acc32, c);
        f.store(p, 8, c);
    }
    let w = f.cast(acc32, ScalarTy::I64);
    let s = f.binary(IrBinOp::Add, acc, w);
    f.ret(Some(s));
    let mut m = FunctionBuilder::new("main");
    let slot = m.slot(16, 8);
    let a = m.slot_addr(slot);
    let (x, y) = (m.iconst(ScalarTy::I64, 1), m.iconst(ScalarTy::I32, 2));
    let r = m
        .call(fn_def_id("imm"), &[x, y, a], Some(ScalarTy::I64))
        .unwrap();
    m.print_int(r);
    m.ret(None);
    check(
        "immediates",
        &program(vec![m.finish(), f.finish()], fn_def_id("main")),
    );
}

/// Fourteen values live at once: low (rax..rdi) and high (r8..r15) registers, and spills.
#[test]
fn registers_low_and_high() {
    let mut f = FunctionBuilder::new("many");
    f.returns(Some(ScalarTy::I64));
    let ps: Vec<_> = (0..8).map(|_| f.param(ScalarTy::I64)).collect();
    let mut vals = ps.clone();
    for i in 0..6 {
        let t = f.binary(IrBinOp::Mul, ps[i], ps[i + 1]);
        vals.push(t);
    }
    let mut acc = vals[0];
    for &v in &vals[1..] {
        acc = f.binary(IrBinOp::Sub, acc, v);
    }
    f.ret(Some(acc));
    let mut m = FunctionBuilder::new("main");
    let args: Vec<_> = (0..8).map(|i| m.iconst(ScalarTy::I64, i + 1)).collect();
    let r = m
        .call(fn_def_id("many"), &args, Some(ScalarTy::I64))
        .unwrap();
    m.print_int(r);
    m.ret(None);
    check(
        "registers",
        &program(vec![m.finish(), f.finish()], fn_def_id("main")),
    );
}

/// A loop over an array with a bounds check, a checked division and prints.
#[test]
fn loop_with_checks() {
    let mut m = FunctionBuilder::new("main");
    let slot = m.slot(40, 8);
    let base = m.slot_addr(slot);
    let i = m.reg(ScalarTy::U64);
    m.assign_const(i, 0);
    let sum = m.reg(ScalarTy::I64);
    m.assign_const(sum, 0);
    let n = m.iconst(ScalarTy::U64, 5);
    let (head, body, exit) = (m.block(), m.block(), m.block());
    m.jump(head);
    m.switch_to(head);
    let c = m.binary(IrBinOp::Lt, i, n);
    m.branch(c, body, exit);
    m.switch_to(body);
    m.bounds_check(i, 5);
    let a = m.elem_addr(base, i, 8);
    let iv = m.cast(i, ScalarTy::I64);
    m.store(a, 0, iv);
    let seven = m.iconst(ScalarTy::I64, 7);
    let q = m.checked_div(IrBinOp::Div, seven, iv);
    m.assign_binary(IrBinOp::Add, sum, sum, q);
    let one = m.iconst(ScalarTy::U64, 1);
    m.assign_binary(IrBinOp::Add, i, i, one);
    m.jump(head);
    m.switch_to(exit);
    m.print_str("sum = ");
    m.print_int(sum);
    m.print_str("\n");
    m.ret(None);
    check("loop_checks", &program(vec![m.finish()], fn_def_id("main")));
}
