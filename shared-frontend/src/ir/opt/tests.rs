//! Snapshot tests of the passes, each also checking that the optimized function behaves
//! as the original under the interpreter and that optimizing again changes nothing.

use std::fmt::Write;

use expect_test::{expect, Expect};

use super::*;
use crate::ir::builder::{fn_def_id, program, FunctionBuilder};
use crate::ir::interp::{run, InterpLimits};
use crate::ir::{Inst, IrBinOp, IrUnOp, PanicKind, PrintArg, ScalarTy::*};

/// A minimal listing (the shared printer lives in `ir/print.rs`).
pub(super) fn listing(f: &IrFunction) -> String {
    let mut s = String::new();
    let r = |v: VReg| format!("%{}", v.0);
    let params: Vec<String> = f
        .params
        .iter()
        .map(|&p| format!("%{}: {:?}", p.0, f.ty(p)))
        .collect();
    let _ = writeln!(
        s,
        "fn {}({}){}{}",
        f.name,
        params.join(", "),
        f.ret.map(|t| format!(" -> {t:?}")).unwrap_or_default(),
        if f.sret { " sret" } else { "" }
    );
    for (i, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(s, "b{i}:");
        for inst in &b.insts {
            let text = match inst {
                Inst::Const { dst, value } => {
                    let v = if f.ty(*dst).is_signed() {
                        (*value as i64).to_string()
                    } else {
                        value.to_string()
                    };
                    format!("{} = const {v}", r(*dst))
                }
                Inst::Copy { dst, src } => format!("{} = {}", r(*dst), r(*src)),
                Inst::Unary { op, dst, src } => format!("{} = {op:?} {}", r(*dst), r(*src)),
                Inst::Binary { op, dst, lhs, rhs } => {
                    format!("{} = {op:?} {}, {}", r(*dst), r(*lhs), r(*rhs))
                }
                Inst::Cast { dst, src } => {
                    format!("{} = {} as {:?}", r(*dst), r(*src), f.ty(*dst))
                }
                Inst::SlotAddr { dst, slot } => format!("{} = slot{}", r(*dst), slot.0),
                Inst::DataAddr { dst, data } => format!("{} = data{}", r(*dst), data.0),
                Inst::Load { dst, addr, offset } => {
                    format!(
                        "{} = load {:?} [{}+{offset}]",
                        r(*dst),
                        f.ty(*dst),
                        r(*addr)
                    )
                }
                Inst::Store { addr, offset, src } => {
                    format!("store [{}+{offset}] = {}", r(*addr), r(*src))
                }
                Inst::ElemAddr {
                    dst,
                    base,
                    index,
                    scale,
                } => format!("{} = {} + {} * {scale}", r(*dst), r(*base), r(*index)),
                Inst::MemCopy { dst, src, size } => {
                    format!("memcopy {} <- {}, {size}", r(*dst), r(*src))
                }
                Inst::Call { dst, callee, args } => {
                    let args: Vec<String> = args.iter().map(|&a| r(a)).collect();
                    let d = dst.map(|d| format!("{} = ", r(d))).unwrap_or_default();
                    format!("{d}call {:.8}({})", callee.to_string(), args.join(", "))
                }
                Inst::Print(PrintArg::Str(d)) => {
                    format!("print {:?}", String::from_utf8_lossy(&f.data[d.0 as usize]))
                }
                Inst::Print(PrintArg::Int(v)) => format!("print int {}", r(*v)),
                Inst::Print(PrintArg::Bool(v)) => format!("print bool {}", r(*v)),
            };
            let _ = writeln!(s, "    {text}");
        }
        let term = match &b.term {
            Terminator::Jump(t) => format!("jump b{}", t.0),
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => format!("branch {}, b{}, b{}", r(*cond), then_block.0, else_block.0),
            Terminator::Return(Some(v)) => format!("return {}", r(*v)),
            Terminator::Return(None) => "return".to_string(),
            Terminator::Panic(PanicKind::IndexOutOfBounds { index, len }) => {
                format!("panic index {} len {len}", r(*index))
            }
            Terminator::Panic(k) => format!("panic {k:?}"),
            Terminator::Unreachable => "unreachable".to_string(),
        };
        let _ = writeln!(s, "    {term}");
    }
    s
}

/// Optimizes `main` (with `others` callable), checks same behaviour and idempotence, and
/// compares the listing of the optimized `main`.
fn check_main(main: IrFunction, others: Vec<IrFunction>, expect: Expect) {
    let opt = optimize(&main);
    assert_eq!(optimize(&opt), opt, "not idempotent:\n{}", listing(&opt));
    let limits = InterpLimits {
        fuel: Some(10_000_000),
        ..InterpLimits::default()
    };
    let mut before = vec![main];
    before.extend(others.iter().cloned());
    let mut after = vec![opt.clone()];
    after.extend(others);
    let (p0, p1) = (
        program(before, fn_def_id("main")),
        program(after, fn_def_id("main")),
    );
    let (o0, o1) = (run(&p0, &limits), run(&p1, &limits));
    assert_eq!(o0, o1);
    expect.assert_eq(&format!(
        "{}-- {}{:?}",
        listing(&opt),
        String::from_utf8_lossy(&o1.stdout),
        o1.status
    ));
}

fn finish(mut b: FunctionBuilder) -> IrFunction {
    b.ret(None);
    b.finish()
}

#[test]
fn folds_arithmetic_with_wrapping_and_masked_shifts() {
    let mut b = FunctionBuilder::new("main");
    let one = b.iconst(I32, 1);
    let k33 = b.iconst(I32, 33);
    let shl = b.binary(IrBinOp::Shl, one, k33); // 1i32 << 33 == 2
    let m16 = b.sconst(I32, -16);
    let k36 = b.iconst(I64, 36);
    let shr = b.binary(IrBinOp::Shr, m16, k36); // -16i32 >> 36 == -1
    let max = b.iconst(I32, i32::MAX as u64);
    let wrap = b.binary(IrBinOp::Add, max, one); // i32::MIN
    let neg = b.unary(IrUnOp::Neg, wrap); // still i32::MIN
    let wide = b.cast(neg, U64);
    let lt = b.binary(IrBinOp::Lt, shr, shl);
    b.print_int(shl);
    b.print_int(shr);
    b.print_int(neg);
    b.print_int(wide);
    b.print_bool(lt);
    check_main(
        finish(b),
        vec![],
        expect![[r#"
            fn crate::main()
            b0:
                %0 = const 2
                %1 = const -1
                %2 = const -2147483648
                %3 = const 18446744071562067968
                %4 = const 1
                print int %0
                print int %1
                print int %2
                print int %3
                print bool %4
                return
            -- 2-1-214748364818446744071562067968trueFinished"#]],
    );
}

#[test]
fn division_by_a_constant_zero_folds_to_the_panic() {
    let mut b = FunctionBuilder::new("main");
    b.print_str("start\n");
    let x = b.iconst(I32, 7);
    let z = b.iconst(I32, 0);
    let q = b.checked_div(IrBinOp::Div, x, z);
    b.print_int(q);
    check_main(
        finish(b),
        vec![],
        expect![[r#"
            fn crate::main()
            b0:
                print "start\n"
                panic DivByZero
            -- start
            Panicked("attempt to divide by zero")"#]],
    );
}

#[test]
fn division_checks_that_pass_fold_away() {
    let mut b = FunctionBuilder::new("main");
    let x = b.sconst(I64, i64::MIN);
    let m1 = b.sconst(I64, -1);
    let two = b.iconst(I64, 2);
    let q = b.checked_div(IrBinOp::Div, x, two);
    let r = b.checked_div(IrBinOp::Rem, q, m1);
    b.print_int(q);
    b.print_int(r);
    // MIN / -1 stays: its overflow check is taken.
    let bad = b.checked_div(IrBinOp::Div, x, m1);
    b.print_int(bad);
    check_main(
        finish(b),
        vec![],
        expect![[r#"
            fn crate::main()
            b0:
                %0 = const -4611686018427387904
                %1 = const 0
                print int %0
                print int %1
                panic DivOverflow
            -- -46116860184273879040Panicked("attempt to divide with overflow")"#]],
    );
}

#[test]
fn unknown_divisor_keeps_its_checks() {
    let mut f = FunctionBuilder::new("div");
    f.returns(Some(I32));
    let a = f.param(I32);
    let d = f.param(I32);
    let q = f.checked_div(IrBinOp::Div, a, d);
    f.ret(Some(q));
    let f = f.finish();
    let opt = optimize(&f);
    assert_eq!(optimize(&opt), opt);
    expect![[r#"
        fn crate::div(%0: I32, %1: I32) -> I32
        b0:
            %2 = const 0
            %3 = Eq %1, %2
            branch %3, b1, b2
        b1:
            panic DivByZero
        b2:
            %4 = const -2147483648
            %5 = const -1
            %6 = Eq %0, %4
            %7 = Eq %1, %5
            %8 = And %6, %7
            branch %8, b3, b4
        b3:
            panic DivOverflow
        b4:
            %9 = Div %0, %1
            return %9
    "#]]
    .assert_eq(&listing(&opt));
}

#[test]
fn constants_flow_through_reassigned_registers_and_loops() {
    // let mut x = 3; let mut i = 0; while i < 4 { x = x * 1 + 0; i = i + 1 }
    // if x == 3 { print "yes" } else { print "no" }; print i
    let mut b = FunctionBuilder::new("main");
    let x = b.iconst(I64, 3);
    let i = b.iconst(I64, 0);
    let four = b.iconst(I64, 4);
    let (head, body, exit, yes, no, end) = (
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
    );
    b.jump(head);
    b.switch_to(head);
    let c = b.binary(IrBinOp::Lt, i, four);
    b.branch(c, body, exit);
    b.switch_to(body);
    let one = b.iconst(I64, 1);
    let zero = b.iconst(I64, 0);
    let t = b.binary(IrBinOp::Mul, x, one);
    let t2 = b.binary(IrBinOp::Add, t, zero);
    b.assign(x, t2);
    b.assign_binary(IrBinOp::Add, i, i, one);
    b.jump(head);
    b.switch_to(exit);
    let three = b.iconst(I64, 3);
    let eq = b.binary(IrBinOp::Eq, x, three);
    b.branch(eq, yes, no);
    b.switch_to(yes);
    b.print_str("yes\n");
    b.jump(end);
    b.switch_to(no);
    b.print_str("no\n");
    b.jump(end);
    b.switch_to(end);
    b.print_int(i);
    check_main(
        finish(b),
        vec![],
        expect![[r#"
            fn crate::main()
            b0:
                %0 = const 0
                %1 = const 4
                jump b1
            b1:
                %2 = Lt %0, %1
                branch %2, b2, b3
            b2:
                %3 = const 1
                %0 = Add %0, %3
                jump b1
            b3:
                print "yes\n"
                print int %0
                return
            -- yes
            4Finished"#]],
    );
}

#[test]
fn copies_propagate_and_dead_code_goes_but_effects_stay() {
    let mut g = FunctionBuilder::new("g");
    g.returns(Some(I32));
    let p = g.param(I32);
    g.print_str("g\n");
    g.ret(Some(p));
    let g = g.finish();

    let mut b = FunctionBuilder::new("main");
    let s = b.slot(8, 8);
    let a = b.slot_addr(s);
    let v = b.iconst(I32, 5);
    let r = b.call(fn_def_id("g"), &[v], Some(I32)).unwrap();
    let c1 = b.copy(r);
    let c2 = b.copy(c1);
    let unused = b.binary(IrBinOp::Mul, c2, c2); // dead
    let _ = b.load(I32, a, 0); // dead
    let _ = unused;
    let next = b.block();
    b.jump(next);
    b.switch_to(next);
    b.store(a, 0, c2);
    let back = b.load(I32, a, 0);
    b.print_int(back);
    b.print_int(c2);
    let _unused_call = b.call(fn_def_id("g"), &[c1], Some(I32));
    check_main(
        finish(b),
        vec![g],
        expect![[r#"
            fn crate::main()
            b0:
                %0 = slot0
                %1 = const 5
                %2 = call 17e3cecb(%1)
                store [%0+0] = %2
                %3 = load I32 [%0+0]
                print int %3
                print int %2
                %4 = call 17e3cecb(%2)
                return
            -- g
            55g
            Finished"#]],
    );
}

#[test]
fn cfg_threads_jumps_merges_chains_and_renumbers() {
    let mut b = FunctionBuilder::new("main");
    let p = b.iconst(I32, 1);
    let k = b.call(fn_def_id("k"), &[], Some(Bool)).unwrap();
    let (e1, e2, t, el, join, dead) = (
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
    );
    b.jump(e1);
    b.switch_to(e1);
    b.jump(e2);
    b.switch_to(e2);
    b.branch(k, t, el);
    b.switch_to(dead);
    b.print_str("dead\n");
    b.jump(join);
    b.switch_to(t);
    b.print_int(p);
    b.jump(join);
    b.switch_to(el);
    b.jump(join);
    b.switch_to(join);
    b.print_str("\n");
    b.ret(None);
    let mut k = FunctionBuilder::new("k");
    k.returns(Some(Bool));
    let tr = k.bconst(true);
    k.ret(Some(tr));
    check_main(
        b.finish(),
        vec![k.finish()],
        expect![[r#"
            fn crate::main()
            b0:
                %0 = const 1
                %1 = call 1b385d47()
                branch %1, b1, b2
            b1:
                print int %0
                jump b2
            b2:
                print "\n"
                return
            -- 1
            Finished"#]],
    );
}

#[test]
fn branch_on_constant_removes_the_other_arm_and_bounds_check() {
    let mut b = FunctionBuilder::new("main");
    let s = b.slot(12, 4);
    let base = b.slot_addr(s);
    let i = b.iconst(U64, 2);
    b.bounds_check(i, 3);
    let a = b.elem_addr(base, i, 4);
    let v = b.sconst(I32, -9);
    b.store(a, 0, v);
    let j = b.iconst(U64, 3);
    b.bounds_check(j, 3);
    b.print_str("unreached\n");
    check_main(
        finish(b),
        vec![],
        expect![[r#"
            fn crate::main()
            b0:
                %0 = slot0
                %1 = const 2
                %2 = %0 + %1 * 4
                %3 = const -9
                store [%2+0] = %3
                %4 = const 3
                panic index %4 len 3
            -- Panicked("index out of bounds: the len is 3 but the index is 3")"#]],
    );
}

#[test]
fn malformed_ir_is_returned_unchanged() {
    let mut b = FunctionBuilder::new("main");
    let x = b.iconst(I32, 1);
    b.print_int(x);
    let mut f = finish(b);
    f.blocks[0].insts.push(Inst::Copy {
        dst: VReg(7),
        src: VReg(0),
    });
    assert_eq!(optimize(&f), f);
    f.blocks[0].insts.pop();
    f.blocks[0].term = Terminator::Jump(crate::ir::BlockId(3));
    assert_eq!(optimize(&f), f);
}

#[test]
fn stats_count_the_rewrites() {
    let mut b = FunctionBuilder::new("main");
    let x = b.iconst(I32, 2);
    let y = b.binary(IrBinOp::Add, x, x);
    let c = b.copy(y);
    b.print_int(c);
    let (_, stats) = optimize_with_stats(&finish(b));
    expect![[r#"
        OptStats {
            rounds: 2,
            folded_insts: 2,
            folded_branches: 0,
            copies_propagated: 0,
            dead_insts: 2,
            jumps_threaded: 0,
            blocks_merged: 0,
            blocks_removed: 0,
        }"#]]
    .assert_eq(&format!("{stats:#?}"));
}
