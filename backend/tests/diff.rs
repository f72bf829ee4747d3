//! Differential tests over hand-built IR: every operation and type at edge values, casts,
//! memory widths, calls (stack arguments, `sret`, aggregates), register pressure, loops,
//! deep recursion and panics — the JIT must print and end exactly as the interpreter.

mod common;

use common::gen::{edge_values, ALL_TYS, INT_TYS};
use common::{check_same, stdout};
use shared_frontend::ir::builder::{fn_def_id, is_comparison, program, FunctionBuilder};
use shared_frontend::ir::interp::ExitStatus;
use shared_frontend::ir::{IrBinOp, IrProgram, IrUnOp, PanicKind, ScalarTy, Terminator};

const BINOPS: [IrBinOp; 16] = [
    IrBinOp::Add,
    IrBinOp::Sub,
    IrBinOp::Mul,
    IrBinOp::Div,
    IrBinOp::Rem,
    IrBinOp::And,
    IrBinOp::Or,
    IrBinOp::Xor,
    IrBinOp::Shl,
    IrBinOp::Shr,
    IrBinOp::Eq,
    IrBinOp::Ne,
    IrBinOp::Lt,
    IrBinOp::Le,
    IrBinOp::Gt,
    IrBinOp::Ge,
];

fn valid(op: IrBinOp, ty: ScalarTy) -> bool {
    ty != ScalarTy::Bool
        || matches!(op, IrBinOp::And | IrBinOp::Or | IrBinOp::Xor)
        || is_comparison(op)
}

/// Whether the interpreter's checks would panic (the IR requires them before Div/Rem).
fn traps(op: IrBinOp, ty: ScalarTy, a: u64, b: u64) -> bool {
    if !matches!(op, IrBinOp::Div | IrBinOp::Rem) {
        return false;
    }
    let b = shared_frontend::ir::interp::scalar::canon(ty, b);
    let a = shared_frontend::ir::interp::scalar::canon(ty, a);
    b == 0
        || (ty.is_signed()
            && b as i64 == -1
            && a == shared_frontend::ir::interp::scalar::signed_min(ty))
}

fn print_any(b: &mut FunctionBuilder, v: shared_frontend::ir::VReg) {
    if b.ty(v) == ScalarTy::Bool {
        b.print_bool(v);
    } else {
        b.print_int(v);
    }
    b.print_str("\n");
}

/// `main` applying `op` to all pairs of edge values three ways: through a function's
/// parameters (registers), on constants (immediates), and register with constant.
fn binop_program(op: IrBinOp, ty: ScalarTy, rty: ScalarTy) -> IrProgram {
    let res_ty = if is_comparison(op) {
        ScalarTy::Bool
    } else {
        ty
    };
    let mut f = FunctionBuilder::new("apply");
    f.returns(Some(res_ty));
    let a = f.param(ty);
    let b = f.param(rty);
    let r = f.binary(op, a, b);
    f.ret(Some(r));

    let mut m = FunctionBuilder::new("main");
    for &x in &edge_values(ty) {
        for &y in &edge_values(rty) {
            if traps(op, ty, x, y) {
                continue;
            }
            let (cx, cy) = (m.iconst(ty, x), m.iconst(rty, y));
            let r1 = m.call(fn_def_id("apply"), &[cx, cy], Some(res_ty)).unwrap();
            print_any(&mut m, r1);
            let r2 = m.binary(op, cx, cy);
            print_any(&mut m, r2);
            // A register (x, reassigned so it is no constant) with a constant.
            let rx = m.reg(ty);
            m.assign_const(rx, x);
            m.assign(rx, r1);
            m.assign_const(rx, x);
            let r3 = m.binary(op, rx, cy);
            print_any(&mut m, r3);
            let ry = m.reg(rty);
            m.assign_const(ry, y);
            m.assign_const(ry, y);
            let r4 = m.binary(op, cx, ry);
            print_any(&mut m, r4);
        }
    }
    m.ret(None);
    program(vec![m.finish(), f.finish()], fn_def_id("main"))
}

#[test]
fn binary_ops_at_edge_values() {
    let mut lines = 0;
    for op in BINOPS {
        for ty in ALL_TYS {
            if !valid(op, ty) {
                continue;
            }
            let rtys: Vec<ScalarTy> = if matches!(op, IrBinOp::Shl | IrBinOp::Shr) {
                INT_TYS.to_vec()
            } else {
                vec![ty]
            };
            for rty in rtys {
                let o = check_same(&binop_program(op, ty, rty));
                assert_eq!(o.status, ExitStatus::Finished);
                lines += stdout(&o).lines().count();
            }
        }
    }
    assert!(lines > 10_000, "{lines}");
}

#[test]
fn unary_ops_and_casts_at_edge_values() {
    let mut f = FunctionBuilder::new("main");
    for ty in ALL_TYS {
        for &x in &edge_values(ty) {
            let c = f.iconst(ty, x);
            let r = f.reg(ty);
            f.assign_const(r, x);
            f.assign_const(r, x);
            for src in [c, r] {
                let n = f.unary(IrUnOp::Not, src);
                print_any(&mut f, n);
                if ty != ScalarTy::Bool {
                    let n = f.unary(IrUnOp::Neg, src);
                    print_any(&mut f, n);
                }
                for to in [
                    ScalarTy::I32,
                    ScalarTy::I64,
                    ScalarTy::U64,
                    ScalarTy::Bool,
                    ScalarTy::Ptr,
                ] {
                    let c = f.cast(src, to);
                    if to == ScalarTy::Ptr {
                        let u = f.cast(c, ScalarTy::U64);
                        print_any(&mut f, u);
                    } else {
                        print_any(&mut f, c);
                    }
                }
            }
        }
    }
    f.ret(None);
    let o = check_same(&program(vec![f.finish()], fn_def_id("main")));
    assert_eq!(o.status, ExitStatus::Finished);
}

#[test]
fn loads_and_stores_of_every_width() {
    let mut f = FunctionBuilder::new("main");
    let s = f.slot(32, 8);
    let a = f.slot_addr(s);
    let big = f.iconst(ScalarTy::U64, 0x8877_6655_4433_2211);
    f.store(a, 0, big);
    let neg = f.sconst(ScalarTy::I64, -2);
    f.store(a, 8, neg);
    let small = f.sconst(ScalarTy::I32, -5);
    f.store(a, 16, small);
    let t = f.bconst(true);
    f.store(a, 20, t);
    let r = f.reg(ScalarTy::I32);
    f.assign_const(r, 0x7fff_0001);
    f.assign_const(r, 0x7fff_0001);
    f.store(a, 24, r);
    for off in [0, 4, 8, 12, 16, 24] {
        let v = f.load(ScalarTy::I32, a, off);
        print_any(&mut f, v);
    }
    for off in [0, 8, 16, 24] {
        for ty in [ScalarTy::I64, ScalarTy::U64] {
            let v = f.load(ty, a, off);
            print_any(&mut f, v);
        }
    }
    let b = f.load(ScalarTy::Bool, a, 20);
    print_any(&mut f, b);
    f.ret(None);
    let o = check_same(&program(vec![f.finish()], fn_def_id("main")));
    assert_eq!(o.status, ExitStatus::Finished);
}

/// A callee with `n` parameters of mixed types printing them all and returning a sum.
fn many_args_program(n: usize) -> IrProgram {
    let tys = [ScalarTy::I64, ScalarTy::I32, ScalarTy::U64, ScalarTy::Bool];
    let mut f = FunctionBuilder::new("many");
    f.returns(Some(ScalarTy::I64));
    let ps: Vec<_> = (0..n).map(|i| f.param(tys[i % 4])).collect();
    let mut acc = f.iconst(ScalarTy::I64, 0);
    for &p in &ps {
        print_any(&mut f, p);
        let w = f.cast(p, ScalarTy::I64);
        acc = f.binary(IrBinOp::Add, acc, w);
    }
    f.ret(Some(acc));
    let mut m = FunctionBuilder::new("main");
    let args: Vec<_> = (0..n)
        .map(|i| {
            m.iconst(
                tys[i % 4],
                if tys[i % 4] == ScalarTy::Bool {
                    1
                } else {
                    (i as u64 + 1) * 1_000_000_007
                },
            )
        })
        .collect();
    let r = m
        .call(fn_def_id("many"), &args, Some(ScalarTy::I64))
        .unwrap();
    print_any(&mut m, r);
    m.ret(None);
    program(vec![m.finish(), f.finish()], fn_def_id("main"))
}

#[test]
fn calls_with_stack_arguments() {
    for n in [0, 1, 5, 6, 7, 8, 13, 20] {
        check_same(&many_args_program(n));
    }
}

#[test]
fn sret_and_aggregate_arguments() {
    // struct P { x: i64, y: i32, ok: bool } built by `make(x, y) -> P` (sret), swapped by
    // `swap(p: P) -> P` which receives the address of the caller's copy and writes into it.
    let mut mk = FunctionBuilder::new("make");
    let out = mk.sret();
    let x = mk.param(ScalarTy::I64);
    let y = mk.param(ScalarTy::I32);
    mk.store(out, 0, x);
    mk.store(out, 8, y);
    let t = mk.bconst(true);
    mk.store(out, 12, t);
    mk.ret(None);

    let mut sw = FunctionBuilder::new("swap");
    let out = sw.sret();
    let p = sw.param(ScalarTy::Ptr);
    let x = sw.load(ScalarTy::I64, p, 0);
    let y = sw.load(ScalarTy::I32, p, 8);
    let y64 = sw.cast(y, ScalarTy::I64);
    let x32 = sw.cast(x, ScalarTy::I32);
    let zero = sw.iconst(ScalarTy::I64, 0);
    sw.store(p, 0, zero); // the callee owns the copy
    sw.store(out, 0, y64);
    sw.store(out, 8, x32);
    let ok = sw.load(ScalarTy::Bool, p, 12);
    let nok = sw.unary(IrUnOp::Not, ok);
    sw.store(out, 12, nok);
    sw.ret(None);

    let mut m = FunctionBuilder::new("main");
    let s1 = m.slot(16, 8);
    let s2 = m.slot(16, 8);
    let s3 = m.slot(16, 8);
    let a1 = m.slot_addr(s1);
    let x = m.sconst(ScalarTy::I64, -7_000_000_000);
    let y = m.sconst(ScalarTy::I32, 123);
    m.call(fn_def_id("make"), &[a1, x, y], None);
    let a2 = m.slot_addr(s2);
    m.mem_copy(a2, a1, 16);
    let a3 = m.slot_addr(s3);
    m.call(fn_def_id("swap"), &[a3, a2], None);
    for (a, _) in [(a1, 0), (a2, 0), (a3, 0)] {
        let x = m.load(ScalarTy::I64, a, 0);
        print_any(&mut m, x);
        let y = m.load(ScalarTy::I32, a, 8);
        print_any(&mut m, y);
        let b = m.load(ScalarTy::Bool, a, 12);
        print_any(&mut m, b);
    }
    m.ret(None);
    let o = check_same(&program(
        vec![m.finish(), mk.finish(), sw.finish()],
        fn_def_id("main"),
    ));
    assert_eq!(
        stdout(&o),
        "-7000000000\n123\ntrue\n0\n123\ntrue\n123\n1589934592\nfalse\n"
    );
}

#[test]
fn big_copies_and_over_aligned_slots() {
    let mut m = FunctionBuilder::new("main");
    let n = 50u32;
    let src = m.slot(8 * n, 8);
    let dst = m.slot(8 * n + 3, 8);
    let odd = m.slot(8, 64);
    let sa = m.slot_addr(src);
    for k in 0..n {
        let v = m.iconst(ScalarTy::I64, (k as u64 + 1) * 0x0101_0101);
        m.store(sa, 8 * k, v);
    }
    let da = m.slot_addr(dst);
    m.mem_copy(da, sa, 8 * n);
    let la = m.slot_addr(odd);
    m.mem_copy(la, sa, 7);
    let sum = m.reg(ScalarTy::I64);
    m.assign_const(sum, 0);
    for k in 0..n {
        let v = m.load(ScalarTy::I64, da, 8 * k);
        m.assign_binary(IrBinOp::Add, sum, sum, v);
    }
    print_any(&mut m, sum);
    let x = m.load(ScalarTy::I32, la, 0);
    print_any(&mut m, x);
    // The over-aligned slot's address is a multiple of 64.
    let a = m.cast(la, ScalarTy::U64);
    let c63 = m.iconst(ScalarTy::U64, 63);
    let low = m.binary(IrBinOp::And, a, c63);
    print_any(&mut m, low);
    m.ret(None);
    let o = check_same(&program(vec![m.finish()], fn_def_id("main")));
    assert_eq!(o.status, ExitStatus::Finished);
}

/// More than 16 values live at once, across calls and in a loop.
#[test]
fn register_pressure_spills() {
    let mut id = FunctionBuilder::new("id");
    id.returns(Some(ScalarTy::I64));
    let p = id.param(ScalarTy::I64);
    id.ret(Some(p));

    let mut m = FunctionBuilder::new("main");
    let k = 40;
    let vals: Vec<_> = (0..k)
        .map(|i| {
            let r = m.reg(if i % 3 == 0 {
                ScalarTy::I32
            } else {
                ScalarTy::I64
            });
            m.assign_const(r, (i as u64 * 7919) ^ 0x55);
            r
        })
        .collect();
    let i = m.reg(ScalarTy::I64);
    m.assign_const(i, 0);
    let lim = m.iconst(ScalarTy::I64, 10);
    let (head, body, exit) = (m.block(), m.block(), m.block());
    m.jump(head);
    m.switch_to(head);
    let c = m.binary(IrBinOp::Lt, i, lim);
    m.branch(c, body, exit);
    m.switch_to(body);
    for w in 0..k {
        let (a, b) = (vals[w], vals[(w + 1) % k]);
        let t = if m.ty(a) == m.ty(b) {
            m.binary(IrBinOp::Add, a, b)
        } else {
            let bb = m.cast(b, m.ty(a));
            m.binary(IrBinOp::Xor, a, bb)
        };
        m.assign(a, t);
        if w % 10 == 0 {
            let wide = m.cast(a, ScalarTy::I64);
            let r = m
                .call(fn_def_id("id"), &[wide], Some(ScalarTy::I64))
                .unwrap();
            let back = m.cast(r, m.ty(a));
            m.assign(a, back);
        }
    }
    let one = m.iconst(ScalarTy::I64, 1);
    m.assign_binary(IrBinOp::Add, i, i, one);
    m.jump(head);
    m.switch_to(exit);
    for &v in &vals {
        print_any(&mut m, v);
    }
    m.ret(None);
    let p = program(vec![m.finish(), id.finish()], fn_def_id("main"));
    let o = check_same(&p);
    assert_eq!(stdout(&o).lines().count(), k);
    let listing = backend::disassemble("main", &backend::codegen(&p.functions[0]));
    assert!(listing.contains("mov [rsp+"), "expected spills:\n{listing}");
}

/// `rec(n) = if n == 0 { 0 } else { rec(n - 1) + n % 7 }`, with a division by `d - n`
/// at each level (so `d` chooses the depth where it divides by zero).
fn recursion_program(depth: u64, zero_at: Option<u64>) -> IrProgram {
    let mut r = FunctionBuilder::new("rec");
    r.returns(Some(ScalarTy::I64));
    let n = r.param(ScalarTy::I64);
    let d = r.param(ScalarTy::I64);
    let zero = r.iconst(ScalarTy::I64, 0);
    let is0 = r.binary(IrBinOp::Eq, n, zero);
    let (base, step) = (r.block(), r.block());
    r.branch(is0, base, step);
    r.switch_to(base);
    r.ret(Some(zero));
    r.switch_to(step);
    let one = r.iconst(ScalarTy::I64, 1);
    let n1 = r.binary(IrBinOp::Sub, n, one);
    let sub = r
        .call(fn_def_id("rec"), &[n1, d], Some(ScalarTy::I64))
        .unwrap();
    let dn = r.binary(IrBinOp::Sub, d, n);
    let q = r.checked_div(IrBinOp::Div, n, dn);
    let s = r.binary(IrBinOp::Add, sub, q);
    r.ret(Some(s));

    let mut m = FunctionBuilder::new("main");
    let nn = m.iconst(ScalarTy::I64, depth);
    let dd = m.iconst(ScalarTy::I64, zero_at.unwrap_or(u64::MAX >> 1));
    m.print_str("start\n");
    let v = m
        .call(fn_def_id("rec"), &[nn, dd], Some(ScalarTy::I64))
        .unwrap();
    print_any(&mut m, v);
    m.ret(None);
    program(vec![m.finish(), r.finish()], fn_def_id("main"))
}

#[test]
fn deep_recursion_finishes() {
    let o = check_same(&recursion_program(200_000, None));
    assert_eq!(o.status, ExitStatus::Finished);
}

#[test]
fn division_by_zero_deep_in_calls_panics_cleanly() {
    let o = check_same(&recursion_program(100_000, Some(50_000)));
    assert_eq!(
        o.status,
        ExitStatus::Panicked("attempt to divide by zero".to_string())
    );
    assert_eq!(stdout(&o), "start\n");
}

#[test]
fn runaway_recursion_overflows_the_stack_cleanly() {
    // Recursion without a base case.
    let mut r = FunctionBuilder::new("down");
    let n = r.param(ScalarTy::I64);
    let one = r.iconst(ScalarTy::I64, 1);
    let n1 = r.binary(IrBinOp::Add, n, one);
    r.call(fn_def_id("down"), &[n1], None);
    r.ret(None);
    let mut m = FunctionBuilder::new("main");
    let z = m.iconst(ScalarTy::I64, 0);
    m.print_str("before\n");
    m.call(fn_def_id("down"), &[z], None);
    m.ret(None);
    let p = program(vec![m.finish(), r.finish()], fn_def_id("main"));
    let o = check_same(&p);
    assert_eq!(o.status, ExitStatus::StackOverflow);
    assert_eq!(stdout(&o), "before\n");
    assert_eq!(o.status.exit_code(), 134);
}

#[test]
fn thousands_of_panicking_programs_in_one_process() {
    let p = recursion_program(30, Some(10));
    let image = backend::compile_program(&p).unwrap();
    for _ in 0..3000 {
        let o = image.run(&backend::RunLimits::default());
        assert_eq!(
            o.status,
            ExitStatus::Panicked("attempt to divide by zero".to_string())
        );
        assert_eq!(o.stdout, b"start\n");
    }
    // And fresh images, also overflowing the stack.
    for i in 0..200 {
        let p = recursion_program(10 + i, Some(5));
        let o = backend::run_program(&p, &backend::RunLimits::default()).unwrap();
        assert_eq!(o.status.exit_code(), 101);
    }
}

#[test]
fn index_out_of_bounds_and_other_panics() {
    for (ty, idx) in [
        (ScalarTy::U64, 7u64),
        (ScalarTy::I64, u64::MAX),
        (ScalarTy::U64, u64::MAX),
    ] {
        let mut m = FunctionBuilder::new("main");
        let i = m.iconst(ty, idx);
        let r = m.reg(ty);
        m.assign(r, i);
        m.assign(r, i);
        m.print_str("x\n");
        m.terminate(Terminator::Panic(PanicKind::IndexOutOfBounds {
            index: r,
            len: 5,
        }));
        let o = check_same(&program(vec![m.finish()], fn_def_id("main")));
        assert!(matches!(o.status, ExitStatus::Panicked(_)));
    }
    for kind in [
        PanicKind::DivByZero,
        PanicKind::RemByZero,
        PanicKind::DivOverflow,
        PanicKind::RemOverflow,
    ] {
        let mut m = FunctionBuilder::new("main");
        m.panic(kind);
        let o = check_same(&program(vec![m.finish()], fn_def_id("main")));
        assert_eq!(o.status, ExitStatus::Panicked(kind.message().to_string()));
    }
}

#[test]
fn unreachable_is_an_internal_error_like_the_interpreter() {
    let mut m = FunctionBuilder::new("main");
    let b = m.block();
    m.jump(b);
    m.switch_to(b);
    m.print_str("here\n");
    m.terminate(Terminator::Unreachable);
    let o = check_same(&program(vec![m.finish()], fn_def_id("main")));
    assert_eq!(
        o.status,
        ExitStatus::InternalError("crate::main: block 1: reached Unreachable".to_string())
    );
}

#[test]
fn infinite_loop_times_out() {
    let mut m = FunctionBuilder::new("main");
    let b = m.block();
    m.jump(b);
    m.switch_to(b);
    m.jump(b);
    let p = program(vec![m.finish()], fn_def_id("main"));
    let limits = backend::RunLimits {
        timeout: Some(std::time::Duration::from_millis(50)),
        ..Default::default()
    };
    let o = backend::run_program(&p, &limits).unwrap();
    assert_eq!(o.status, ExitStatus::OutOfFuel);
}

#[test]
fn link_errors() {
    let mut m = FunctionBuilder::new("main");
    m.call(fn_def_id("missing"), &[], None);
    m.ret(None);
    let p = program(vec![m.finish()], fn_def_id("main"));
    assert!(matches!(
        backend::compile_program(&p),
        Err(backend::LinkError::UnresolvedFunction { .. })
    ));
    let mut m = FunctionBuilder::new("main");
    m.ret(None);
    let p = program(vec![m.finish()], fn_def_id("other"));
    assert!(matches!(
        backend::compile_program(&p),
        Err(backend::LinkError::NoMain(_))
    ));
}
