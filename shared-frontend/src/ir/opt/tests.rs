//! Snapshot tests of the passes, each also checking that the optimized function behaves
//! as the original under the interpreter and that optimizing again changes nothing.

use expect_test::{expect, Expect};

use super::*;
use crate::ir::builder::{fn_def_id, program, FunctionBuilder};
use crate::ir::interp::{run, InterpLimits};
use crate::ir::{Inst, IrBinOp, IrUnOp, ScalarTy::*};

/// The listing of a function, callees named `g` for `crate::g`.
pub(super) fn listing(f: &IrFunction) -> String {
    let names = |d: crate::sema::def::DefId| {
        ["main", "g", "k", "helper"]
            .into_iter()
            .find(|n| fn_def_id(n) == d)
            .map(|n| format!("crate::{n}"))
    };
    f.display_with(&names).to_string()
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
            fn crate::main() {
            bb0:
                v0 = const.i32 2
                v1 = const.i32 -1
                v2 = const.i32 -2147483648
                v3 = const.u64 18446744071562067968
                v4 = const.bool true
                print.i32 v0
                print.i32 v1
                print.i32 v2
                print.u64 v3
                print.bool v4
                return
            }
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
            fn crate::main() {
                data0: "start\n"
            bb0:
                print.str data0 "start\n"
                panic div_by_zero
            }
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
            fn crate::main() {
            bb0:
                v0 = const.i64 -4611686018427387904
                v1 = const.i64 0
                print.i64 v0
                print.i64 v1
                panic div_overflow
            }
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
        fn crate::div(v0: i32, v1: i32) -> i32 {
        bb0:
            v2 = const.i32 0
            v3 = eq.i32 v1, v2
            branch v3, bb1, bb2
        bb1:
            panic div_by_zero
        bb2:
            v4 = const.i32 -2147483648
            v5 = const.i32 -1
            v6 = eq.i32 v0, v4
            v7 = eq.i32 v1, v5
            v8 = and.bool v6, v7
            branch v8, bb3, bb4
        bb3:
            panic div_overflow
        bb4:
            v9 = div.i32 v0, v1
            return v9
        }
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
            fn crate::main() {
                data0: "yes\n"
                data1: [6e 6f 0a]
            bb0:
                v0 = const.i64 0
                v1 = const.i64 4
                jump bb1
            bb1:
                v2 = lt.i64 v0, v1
                branch v2, bb2, bb3
            bb2:
                v3 = const.i64 1
                v0 = add.i64 v0, v3
                jump bb1
            bb3:
                print.str data0 "yes\n"
                print.i64 v0
                return
            }
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
            fn crate::main() {
                slot0: size 8, align 8
            bb0:
                v0 = slot_addr slot0
                v1 = const.i32 5
                v2 = call.i32 crate::g(v1)
                store.i32 [v0], v2
                v3 = load.i32 [v0]
                print.i32 v3
                print.i32 v2
                v4 = call.i32 crate::g(v2)
                return
            }
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
            fn crate::main() {
                data0: [64 65 61 64 0a]
                data1: "\n"
            bb0:
                v0 = const.i32 1
                v1 = call.bool crate::k()
                branch v1, bb1, bb2
            bb1:
                print.i32 v0
                jump bb2
            bb2:
                print.str data1 "\n"
                return
            }
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
            fn crate::main() {
                slot0: size 12, align 4
                data0: [75 6e 72 65 61 63 68 65 64 0a]
            bb0:
                v0 = slot_addr slot0
                v1 = const.u64 2
                v2 = elem_addr v0 + v1 * 4
                v3 = const.i32 -9
                store.i32 [v2], v3
                v4 = const.u64 3
                panic index_out_of_bounds v4, len 3
            }
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

/// An identity's constant is a value of the analysis: `ok = ok | x` keeps `ok` true
/// around the loop (its entry value meets only itself), so the branch after the loop
/// folds, and the loop-carried `or`, read only by itself, dies with it.
#[test]
fn identity_constants_flow_around_loops() {
    // let mut ok = true; let mut i = 0; while i < 3 { ok = ok | (p != i); i += 1 }
    // if ok { print "yes" } else { print "no" }
    let mut b = FunctionBuilder::new("main");
    let p = b.param(I64);
    let ok = b.bconst(true);
    let i = b.iconst(I64, 0);
    let three = b.iconst(I64, 3);
    let (head, body, exit, yes, no) = (b.block(), b.block(), b.block(), b.block(), b.block());
    b.jump(head);
    b.switch_to(head);
    let c = b.binary(IrBinOp::Lt, i, three);
    b.branch(c, body, exit);
    b.switch_to(body);
    let ne = b.binary(IrBinOp::Ne, p, i);
    b.assign_binary(IrBinOp::Or, ok, ok, ne);
    let one = b.iconst(I64, 1);
    b.assign_binary(IrBinOp::Add, i, i, one);
    b.jump(head);
    b.switch_to(exit);
    b.branch(ok, yes, no);
    b.switch_to(yes);
    b.print_str("yes\n");
    b.ret(None);
    b.switch_to(no);
    b.print_str("no\n");
    b.ret(None);
    let f = b.finish();
    if let Err(e) = super::proptests::same_as_every_pass_every_round(&f) {
        panic!("{e}");
    }
    let (opt, stats) = optimize_with_stats(&f);
    expect![[r#"
        fn crate::main(v0: i64) {
            data0: "yes\n"
            data1: [6e 6f 0a]
        bb0:
            v1 = const.i64 0
            v2 = const.i64 3
            jump bb1
        bb1:
            v3 = lt.i64 v1, v2
            branch v3, bb2, bb3
        bb2:
            v4 = const.i64 1
            v1 = add.i64 v1, v4
            jump bb1
        bb3:
            print.str data0 "yes\n"
            return
        }
        OptStats { rounds: 2, folded_insts: 1, folded_branches: 1, copies_propagated: 0, dead_insts: 3, jumps_threaded: 1, blocks_merged: 0, blocks_removed: 2 }"#]].assert_eq(&format!("{}{stats:?}", listing(&opt)));
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

/// Rewrites that let an earlier pass do more in the next round: copy propagation makes a
/// subtraction read one register twice (folding then makes it 0). `optimize` skips
/// passes that cannot change anything, so folding must still run again. (The identity
/// `x * 0` decides its branch in the first folding run.)
#[test]
fn passes_enabled_by_later_ones_run_again() {
    let mut b = FunctionBuilder::new("g");
    b.returns(Some(I32));
    let x = b.param(I32);
    let y = b.copy(x);
    let d = b.binary(IrBinOp::Sub, x, y);
    let zero = b.iconst(I32, 0);
    let m = b.binary(IrBinOp::Mul, x, zero);
    let c = b.binary(IrBinOp::Eq, m, zero);
    let (t, e) = (b.block(), b.block());
    b.branch(c, t, e);
    b.switch_to(t);
    b.print_int(d);
    b.ret(Some(d));
    b.switch_to(e);
    b.ret(Some(x));
    let f = b.finish();
    if let Err(e) = super::proptests::same_as_every_pass_every_round(&f) {
        panic!("{e}");
    }
    let (opt, stats) = optimize_with_stats(&f);
    expect![[r#"
        fn crate::g(v0: i32) -> i32 {
        bb0:
            v1 = const.i32 0
            print.i32 v1
            return v1
        }
        OptStats { rounds: 2, folded_insts: 3, folded_branches: 1, copies_propagated: 1, dead_insts: 4, jumps_threaded: 0, blocks_merged: 1, blocks_removed: 2 }"#]].assert_eq(&format!("{}{stats:?}", listing(&opt)));
}

/// Inside [`optimize`] (exact analyses, [`visit::Scratch::skip_unreachable`]) dead code
/// elimination and copy propagation leave a block unreachable from the entry as it is,
/// since CFG simplification, which runs before them in the round, drops it; run on their
/// own they still clean every block.
#[test]
fn unreachable_blocks_are_left_to_cfg_simplification_inside_optimize() {
    let mut b = FunctionBuilder::new("main");
    let x = b.iconst(I32, 7);
    b.print_int(x);
    b.ret(None);
    let cut_off = b.block();
    b.switch_to(cut_off);
    b.iconst(I32, 1); // never read
    let z = b.copy(x);
    b.print_int(z);
    b.ret(None);
    let f = b.finish();
    let listing_of = |pass: &dyn Fn(&mut IrFunction, &mut visit::Scratch), skip: bool| {
        let mut g = f.clone();
        let mut sc = visit::Scratch {
            superset_classes_ok: skip,
            skip_unreachable: skip,
            ..visit::Scratch::default()
        };
        pass(&mut g, &mut sc);
        listing(&g)
    };
    let dce = |g: &mut IrFunction, sc: &mut visit::Scratch| {
        dce::eliminate_dead_code_unchecked(g, &mut OptStats::default(), sc);
    };
    let copies = |g: &mut IrFunction, sc: &mut visit::Scratch| {
        copyprop::propagate_unchecked(g, &mut OptStats::default(), sc);
    };
    assert_eq!(listing_of(&dce, true), listing(&f));
    assert_eq!(listing_of(&copies, true), listing(&f));
    expect![[r#"
        fn crate::main() {
        bb0:
            v0 = const.i32 7
            print.i32 v0
            return
        bb1:
            v2 = copy.i32 v0
            print.i32 v2
            return
        }
    "#]]
    .assert_eq(&listing_of(&dce, false));
    expect![[r#"
        fn crate::main() {
        bb0:
            v0 = const.i32 7
            print.i32 v0
            return
        bb1:
            v1 = const.i32 1
            v2 = copy.i32 v0
            print.i32 v0
            return
        }
    "#]]
    .assert_eq(&listing_of(&copies, false));
    check_main(
        f,
        vec![],
        expect![[r#"
            fn crate::main() {
            bb0:
                v0 = const.i32 7
                print.i32 v0
                return
            }
            -- 7Finished"#]],
    );
}

/// The buffers [`optimize`] keeps between calls on one thread (folding's per-instruction
/// actions, per-block entry states and branch targets, which are not cleared between
/// functions) leave no trace: a function whose instructions fold, then one whose only
/// rewrite is a branch on a constant, optimize as each does on a fresh thread.
#[test]
fn buffers_reused_between_functions_leave_no_trace() {
    let folding = {
        let mut b = FunctionBuilder::new("main");
        let mut x = b.iconst(I64, 1);
        for _ in 0..8 {
            let one = b.iconst(I64, 1);
            x = b.binary(IrBinOp::Add, x, one);
        }
        let next = b.block();
        b.jump(next);
        b.switch_to(next);
        let y = b.binary(IrBinOp::Mul, x, x);
        b.print_int(y);
        finish(b)
    };
    let branching = {
        let mut b = FunctionBuilder::new("g");
        let p = b.param(I64);
        let mut v = p;
        for _ in 0..8 {
            v = b.binary(IrBinOp::Mul, v, p);
        }
        let yes_cond = b.bconst(true);
        let (yes, no) = (b.block(), b.block());
        b.branch(yes_cond, yes, no);
        b.switch_to(yes);
        b.print_int(v);
        b.ret(None);
        b.switch_to(no);
        b.print_str("no\n");
        b.ret(None);
        b.finish()
    };
    let fresh = |f: &IrFunction| {
        let f = f.clone();
        std::thread::spawn(move || optimize(&f)).join().unwrap()
    };
    let (folding_alone, branching_alone) = (fresh(&folding), fresh(&branching));
    assert!(listing(&branching_alone).contains("mul"));
    assert!(!listing(&branching_alone).contains("no\\n"));
    for _ in 0..2 {
        assert_eq!(optimize(&folding), folding_alone);
        assert_eq!(optimize(&branching), branching_alone);
    }
}

/// The loop of `constants_flow_through_reassigned_registers_and_loops`, its blocks
/// numbered in reverse (`reversed`: the exit before the loop, the loop's body before its
/// head), or in reverse postorder as lowering numbers them.
fn counting_loop(reversed: bool) -> IrFunction {
    let mut b = FunctionBuilder::new("main");
    let x = b.iconst(I64, 3);
    let i = b.iconst(I64, 0);
    let four = b.iconst(I64, 4);
    let mut blocks: Vec<_> = (0..6).map(|_| b.block()).collect();
    if reversed {
        blocks.reverse();
    }
    let [head, body, exit, yes, no, end] = blocks[..] else {
        unreachable!()
    };
    b.jump(head);
    b.switch_to(head);
    let c = b.binary(IrBinOp::Lt, i, four);
    b.branch(c, body, exit);
    b.switch_to(body);
    let one = b.iconst(I64, 1);
    let t = b.binary(IrBinOp::Mul, x, one);
    b.assign(x, t);
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
    finish(b)
}

#[test]
fn folding_finds_the_same_constants_whatever_the_block_order() {
    // Folding visits the blocks in their own order when no reverse postorder is at hand:
    // with the loop's body numbered before its head, and the code after the loop before
    // both, the constant still flows around the loop and the branch on it still folds.
    let (rpo, reversed) = (
        optimize(&counting_loop(false)),
        optimize(&counting_loop(true)),
    );
    let shape = |f: &IrFunction| {
        let mut insts: Vec<String> = f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter().map(|i| format!("{i:?}")))
            .collect();
        insts.sort();
        (f.blocks.len(), insts)
    };
    assert_eq!(shape(&rpo), shape(&reversed));
    check_main(
        counting_loop(true),
        vec![],
        expect![[r#"
            fn crate::main() {
                data0: "yes\n"
                data1: [6e 6f 0a]
            bb0:
                v0 = const.i64 0
                v1 = const.i64 4
                jump bb3
            bb1:
                print.str data0 "yes\n"
                print.i64 v0
                return
            bb2:
                v3 = const.i64 1
                v0 = add.i64 v0, v3
                jump bb3
            bb3:
                v2 = lt.i64 v0, v1
                branch v2, bb2, bb1
            }
            -- yes
            4Finished"#]],
    );
}
