//! Tests of the interpreter: instruction semantics at edge values against Rust's own
//! operators, calls and the calling convention, memory, panics, limits, malformed IR.

use expect_test::{expect, Expect};

use super::*;
use crate::ir::builder::{fn_def_id, program, FunctionBuilder};
use crate::ir::{
    CallInst, Inst, IrBinOp, IrFunction, IrUnOp, PanicKind, ScalarTy, Terminator, VReg,
};
use ScalarTy::*;

fn run_fns(fns: Vec<IrFunction>) -> InterpOutcome {
    run(&program(fns, fn_def_id("main")), &InterpLimits::default())
}

fn render(o: &InterpOutcome) -> String {
    format!(
        "{}-- {:?} (exit {})",
        String::from_utf8_lossy(&o.stdout),
        o.status,
        o.status.exit_code()
    )
}

/// Runs the functions (`crate::main` among them) and compares stdout and status.
fn check(fns: Vec<IrFunction>, expect: Expect) {
    expect.assert_eq(&render(&run_fns(fns)));
}

fn main_builder() -> FunctionBuilder {
    FunctionBuilder::new("main")
}

fn finish_main(mut b: FunctionBuilder) -> Vec<IrFunction> {
    b.ret(None);
    vec![b.finish()]
}

const I32_EDGES: &[i64] = &[
    0,
    1,
    -1,
    2,
    -2,
    7,
    -7,
    31,
    32,
    33,
    63,
    64,
    i32::MIN as i64,
    i32::MIN as i64 + 1,
    i32::MAX as i64,
];
const I64_EDGES: &[i64] = &[
    0,
    1,
    -1,
    7,
    -7,
    31,
    32,
    63,
    64,
    i32::MAX as i64 + 1,
    i64::MIN,
    i64::MIN + 1,
    i64::MAX,
];
const U64_EDGES: &[u64] = &[
    0,
    1,
    2,
    7,
    31,
    32,
    63,
    64,
    i64::MAX as u64,
    i64::MIN as u64,
    u64::MAX - 1,
    u64::MAX,
];

/// Edge values of a type as raw bits.
fn edges(ty: ScalarTy) -> Vec<u64> {
    match ty {
        I32 => I32_EDGES.iter().map(|&v| v as u64).collect(),
        I64 => I64_EDGES.iter().map(|&v| v as u64).collect(),
        U64 | Ptr => U64_EDGES.to_vec(),
        Bool => vec![0, 1],
    }
}

/// Rust's own result of `a op b` on `ty` (b of type `rty`), printed as Rill prints it;
/// `None` where Rust panics.
fn native_binary(op: IrBinOp, ty: ScalarTy, a: u64, b: u64) -> Option<String> {
    use IrBinOp::*;
    // A shift amount of any type: rustc masks its low bits.
    let amount = b as u32;
    macro_rules! int {
        ($t:ty) => {{
            let (x, y) = (a as $t, b as $t);
            Some(match op {
                Add => x.wrapping_add(y).to_string(),
                Sub => x.wrapping_sub(y).to_string(),
                Mul => x.wrapping_mul(y).to_string(),
                Div => x.checked_div(y)?.to_string(),
                Rem => x.checked_rem(y)?.to_string(),
                And => (x & y).to_string(),
                Or => (x | y).to_string(),
                Xor => (x ^ y).to_string(),
                Shl => x.wrapping_shl(amount).to_string(),
                Shr => x.wrapping_shr(amount).to_string(),
                Eq => (x == y).to_string(),
                Ne => (x != y).to_string(),
                Lt => (x < y).to_string(),
                Le => (x <= y).to_string(),
                Gt => (x > y).to_string(),
                Ge => (x >= y).to_string(),
            })
        }};
    }
    match ty {
        I32 => int!(i32),
        I64 => int!(i64),
        U64 | Ptr => int!(u64),
        Bool => {
            let (x, y) = (a != 0, b != 0);
            Some(
                match op {
                    And => x & y,
                    Or => x | y,
                    Xor => x ^ y,
                    Eq => x == y,
                    Ne => x != y,
                    Lt => !x & y,
                    Le => x <= y,
                    Gt => x & !y,
                    Ge => x >= y,
                    _ => return None,
                }
                .to_string(),
            )
        }
    }
}

const ALL_BINOPS: &[IrBinOp] = &[
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

fn print_value(b: &mut FunctionBuilder, r: VReg) {
    if b.ty(r) == Bool {
        b.print_bool(r);
    } else {
        b.print_int(r);
    }
    b.print_str("\n");
}

#[test]
fn binary_ops_match_rust_at_edge_values() {
    let mut cases = 0;
    for &op in ALL_BINOPS {
        for ty in [I32, I64, U64, Bool] {
            let is_shift = matches!(op, IrBinOp::Shl | IrBinOp::Shr);
            let rtys: &[ScalarTy] = if is_shift { &[I32, I64, U64] } else { &[ty] };
            for &rty in rtys {
                if ty == Bool && native_binary(op, Bool, 0, 0).is_none() {
                    continue;
                }
                // One program per (op, types): every non-panicking pair, in order.
                let mut b = main_builder();
                let mut expected = String::new();
                for &x in &edges(ty) {
                    for &y in &edges(rty) {
                        let Some(want) = native_binary(op, ty, x, y) else {
                            continue;
                        };
                        let (l, r) = (b.iconst(ty, x), b.iconst(rty, y));
                        let d = b.binary(op, l, r);
                        print_value(&mut b, d);
                        expected.push_str(&want);
                        expected.push('\n');
                        cases += 1;
                    }
                }
                let o = run_fns(finish_main(b));
                assert_eq!(o.status, ExitStatus::Finished, "{op:?} {ty:?} {rty:?}");
                assert_eq!(
                    String::from_utf8_lossy(&o.stdout),
                    expected,
                    "{op:?} {ty:?} {rty:?}"
                );
            }
        }
    }
    assert!(cases > 4000, "{cases}");
}

#[test]
fn constants_are_truncated_to_the_register_width() {
    let mut b = main_builder();
    // Only the destination's width of a constant's bits counts.
    for (ty, bits) in [
        (I32, 0x1_0000_0005u64),
        (I32, 0xffff_ffffu64),
        (I32, 0x8000_0000u64),
        (Bool, 3),
        (Bool, 2),
        (I64, u64::MAX),
        (U64, u64::MAX),
    ] {
        let r = b.iconst(ty, bits);
        print_value(&mut b, r);
    }
    check(
        finish_main(b),
        expect![[r#"
            5
            -1
            -2147483648
            true
            false
            -1
            18446744073709551615
            -- Finished (exit 0)"#]],
    );
}

#[test]
fn unary_ops_match_rust() {
    let mut b = main_builder();
    let mut expected = String::new();
    for ty in [I32, I64, U64] {
        for &x in &edges(ty) {
            let r = b.iconst(ty, x);
            let neg = b.unary(IrUnOp::Neg, r);
            let not = b.unary(IrUnOp::Not, r);
            print_value(&mut b, neg);
            print_value(&mut b, not);
            let (n, t) = match ty {
                I32 => (
                    (x as i32).wrapping_neg().to_string(),
                    (!(x as i32)).to_string(),
                ),
                I64 => (
                    (x as i64).wrapping_neg().to_string(),
                    (!(x as i64)).to_string(),
                ),
                _ => (x.wrapping_neg().to_string(), (!x).to_string()),
            };
            expected += &format!("{n}\n{t}\n");
        }
    }
    for x in [false, true] {
        let r = b.bconst(x);
        let not = b.unary(IrUnOp::Not, r);
        print_value(&mut b, not);
        expected += &format!("{}\n", !x);
    }
    let o = run_fns(finish_main(b));
    assert_eq!(o.status, ExitStatus::Finished);
    assert_eq!(String::from_utf8_lossy(&o.stdout), expected);
}

#[test]
fn casts_match_rust_between_all_types() {
    let mut b = main_builder();
    let mut expected = String::new();
    for src_ty in [I32, I64, U64, Bool] {
        for &x in &edges(src_ty) {
            let r = b.iconst(src_ty, x);
            for dst_ty in [I32, I64, U64] {
                let c = b.cast(r, dst_ty);
                print_value(&mut b, c);
                // Rust's `as`, from the source type to the destination type.
                let v: i128 = match src_ty {
                    I32 => x as i32 as i128,
                    I64 => x as i64 as i128,
                    U64 => x as i128,
                    _ => (x != 0) as i128,
                };
                let s = match dst_ty {
                    I32 => (v as i32).to_string(),
                    I64 => (v as i64).to_string(),
                    _ => (v as u64).to_string(),
                };
                expected += &s;
                expected.push('\n');
            }
        }
    }
    let o = run_fns(finish_main(b));
    assert_eq!(o.status, ExitStatus::Finished);
    assert_eq!(String::from_utf8_lossy(&o.stdout), expected);
}

#[test]
fn division_checks_panic_with_rustc_messages() {
    let cases: &[(IrBinOp, ScalarTy, i64, i64)] = &[
        (IrBinOp::Div, I32, 5, 0),
        (IrBinOp::Rem, I32, 5, 0),
        (IrBinOp::Div, I32, i32::MIN as i64, -1),
        (IrBinOp::Rem, I32, i32::MIN as i64, -1),
        (IrBinOp::Div, I64, i64::MIN, -1),
        (IrBinOp::Rem, I64, i64::MIN, -1),
        (IrBinOp::Div, U64, 5, 0),
        (IrBinOp::Div, I32, i32::MIN as i64, 1),
        (IrBinOp::Rem, I64, -7, 2),
    ];
    let mut got = String::new();
    for &(op, ty, x, y) in cases {
        let mut b = main_builder();
        b.print_str("before\n");
        let (l, r) = (b.sconst(ty, x), b.sconst(ty, y));
        let d = b.checked_div(op, l, r);
        print_value(&mut b, d);
        got += &format!(
            "{op:?} {ty:?} {x} {y}: {}\n",
            render(&run_fns(finish_main(b)))
        );
    }
    expect![[r#"
        Div I32 5 0: before
        -- Panicked("attempt to divide by zero") (exit 101)
        Rem I32 5 0: before
        -- Panicked("attempt to calculate the remainder with a divisor of zero") (exit 101)
        Div I32 -2147483648 -1: before
        -- Panicked("attempt to divide with overflow") (exit 101)
        Rem I32 -2147483648 -1: before
        -- Panicked("attempt to calculate the remainder with overflow") (exit 101)
        Div I64 -9223372036854775808 -1: before
        -- Panicked("attempt to divide with overflow") (exit 101)
        Rem I64 -9223372036854775808 -1: before
        -- Panicked("attempt to calculate the remainder with overflow") (exit 101)
        Div U64 5 0: before
        -- Panicked("attempt to divide by zero") (exit 101)
        Div I32 -2147483648 1: before
        -2147483648
        -- Finished (exit 0)
        Rem I64 -7 2: before
        -1
        -- Finished (exit 0)
    "#]]
    .assert_eq(&got);
}

#[test]
fn unchecked_division_by_zero_is_an_internal_error() {
    let mut b = main_builder();
    let (l, r) = (b.iconst(I64, 1), b.iconst(I64, 0));
    b.binary(IrBinOp::Div, l, r);
    check(
        finish_main(b),
        expect![[
            r#"-- InternalError("crate::main: division with a zero divisor or overflow reached (unchecked)") (exit 70)"#
        ]],
    );
}

#[test]
fn print_formats_integers_bools_and_text() {
    let mut b = main_builder();
    for (ty, v) in [
        (I32, i32::MIN as u64),
        (I32, i32::MAX as u64),
        (I64, i64::MIN as u64),
        (U64, u64::MAX),
        (I64, 0),
    ] {
        let r = b.iconst(ty, v);
        b.print_int(r);
        b.print_str(" ");
    }
    let t = b.bconst(true);
    let f = b.bconst(false);
    b.print_bool(t);
    b.print_bool(f);
    b.print_str("\n{}\u{e9}\n");
    check(
        finish_main(b),
        expect![[r#"
            -2147483648 2147483647 -9223372036854775808 18446744073709551615 0 truefalse
            {}é
            -- Finished (exit 0)"#]],
    );
}

#[test]
fn loads_and_stores_of_every_width() {
    let mut b = main_builder();
    let slot = b.slot(24, 8);
    let p = b.slot_addr(slot);
    let v64 = b.iconst(U64, 0x0102_0304_0506_0708);
    b.store(p, 0, v64);
    let v32 = b.sconst(I32, -2);
    b.store(p, 8, v32);
    let t = b.bconst(true);
    b.store(p, 12, t);
    // Reads of each field, and of the parts of the u64 through narrower types.
    for (ty, off) in [(U64, 0), (I32, 8), (Bool, 12), (I32, 0), (I32, 4), (I64, 8)] {
        let r = b.load(ty, p, off);
        print_value(&mut b, r);
    }
    check(
        finish_main(b),
        expect![[r#"
            72623859790382856
            -2
            true
            84281096
            16909060
            8589934590
            -- Finished (exit 0)"#]],
    );
}

#[test]
fn const_data_is_read_through_elem_addr_with_bounds_checks() {
    // A `const T: [i32; 3] = [10, -20, 30];` read at indices 0..4.
    let mut b = main_builder();
    let bytes: Vec<u8> = [10i32, -20, 30]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let d = b.data(&bytes);
    let base = b.data_addr(d);
    for i in 0..4 {
        let idx = b.iconst(U64, i);
        b.bounds_check(idx, 3);
        let a = b.elem_addr(base, idx, 4);
        let v = b.load(I32, a, 0);
        print_value(&mut b, v);
    }
    check(
        finish_main(b),
        expect![[r#"
            10
            -20
            30
            -- Panicked("index out of bounds: the len is 3 but the index is 3") (exit 101)"#]],
    );
}

#[test]
fn stores_to_read_only_data_and_stray_addresses_are_internal_errors() {
    let mut b = main_builder();
    let d = b.data(b"abcdefgh");
    let p = b.data_addr(d);
    let v = b.iconst(I64, 1);
    b.store(p, 0, v);
    check(
        finish_main(b),
        expect![[
            r#"-- InternalError("crate::main: store of 8 bytes at 0x1000, outside live memory") (exit 70)"#
        ]],
    );
    let mut b = main_builder();
    let slot = b.slot(8, 8);
    let p = b.slot_addr(slot);
    // Past the frame (slot sizes are rounded up to 16 per frame).
    b.load(I64, p, 16);
    let o = run_fns(finish_main(b));
    assert!(matches!(o.status, ExitStatus::InternalError(_)), "{o:?}");
    let mut b = main_builder();
    let p = b.iconst(Ptr, 0);
    b.load(I32, p, 0);
    let o = run_fns(finish_main(b));
    assert!(matches!(o.status, ExitStatus::InternalError(_)), "{o:?}");
}

/// `struct P { a: i32, b: i64 }` (size 16, align 8).
fn make_p(b: &mut FunctionBuilder, a: i32, bb: i64) -> VReg {
    let s = b.slot(16, 8);
    let p = b.slot_addr(s);
    let va = b.sconst(I32, a as i64);
    let vb = b.sconst(I64, bb);
    b.store(p, 0, va);
    b.store(p, 8, vb);
    p
}

#[test]
fn calls_pass_scalars_aggregates_by_address_and_return_through_sret() {
    // fn swap(mut p: P, k: i64) -> P { p.b = p.b + k; P { a: p.a + 1, b: p.b } }
    let mut f = FunctionBuilder::new("swap");
    let sret = f.sret();
    let p = f.param(Ptr);
    let k = f.param(I64);
    let pb = f.load(I64, p, 8);
    let nb = f.binary(IrBinOp::Add, pb, k);
    f.store(p, 8, nb); // writes the caller's copy
    let pa = f.load(I32, p, 0);
    let one = f.iconst(I32, 1);
    let na = f.binary(IrBinOp::Add, pa, one);
    f.store(sret, 0, na);
    f.store(sret, 8, nb);
    f.ret(None);

    let mut b = main_builder();
    let orig = make_p(&mut b, i32::MAX, 40);
    let copy_slot = b.slot(16, 8);
    let copy = b.slot_addr(copy_slot);
    b.mem_copy(copy, orig, 16);
    let res_slot = b.slot(16, 8);
    let res = b.slot_addr(res_slot);
    let two = b.iconst(I64, 2);
    let r = b.call(fn_def_id("swap"), &[res, copy, two], None);
    assert!(r.is_none());
    for (p, off, ty) in [(res, 0, I32), (res, 8, I64), (orig, 8, I64), (copy, 8, I64)] {
        let v = b.load(ty, p, off);
        print_value(&mut b, v);
    }
    let mut fns = finish_main(b);
    fns.push(f.finish());
    check(
        fns,
        expect![[r#"
            -2147483648
            42
            40
            42
            -- Finished (exit 0)"#]],
    );
}

/// `fn fib(n: u64) -> u64`, naively recursive, and a main printing `fib(n)`.
fn fib_program(n: u64) -> Vec<IrFunction> {
    let mut f = FunctionBuilder::new("fib");
    f.returns(Some(U64));
    let n_reg = f.param(U64);
    let two = f.iconst(U64, 2);
    let small = f.binary(IrBinOp::Lt, n_reg, two);
    let (base, rec) = (f.block(), f.block());
    f.branch(small, base, rec);
    f.switch_to(base);
    f.ret(Some(n_reg));
    f.switch_to(rec);
    let one = f.iconst(U64, 1);
    let n1 = f.binary(IrBinOp::Sub, n_reg, one);
    let n2 = f.binary(IrBinOp::Sub, n_reg, two);
    let a = f.call(fn_def_id("fib"), &[n1], Some(U64)).unwrap();
    let c = f.call(fn_def_id("fib"), &[n2], Some(U64)).unwrap();
    let s = f.binary(IrBinOp::Add, a, c);
    f.ret(Some(s));
    let mut b = main_builder();
    let nn = b.iconst(U64, n);
    let r = b.call(fn_def_id("fib"), &[nn], Some(U64)).unwrap();
    print_value(&mut b, r);
    let mut fns = finish_main(b);
    fns.push(f.finish());
    fns
}

#[test]
fn recursion_returns_values() {
    check(
        fib_program(20),
        expect![[r#"
            6765
            -- Finished (exit 0)"#]],
    );
}

/// `fn down(n: u64) -> u64 { if n == 0 { 0 } else { 1 + down(n - 1) } }` with a small
/// slot per frame, and a main printing `down(n)`.
fn deep_program(n: u64) -> Vec<IrFunction> {
    let mut f = FunctionBuilder::new("down");
    f.returns(Some(U64));
    let n_reg = f.param(U64);
    let s = f.slot(16, 8);
    let p = f.slot_addr(s);
    f.store(p, 0, n_reg);
    let zero = f.iconst(U64, 0);
    let is0 = f.binary(IrBinOp::Eq, n_reg, zero);
    let (base, rec) = (f.block(), f.block());
    f.branch(is0, base, rec);
    f.switch_to(base);
    f.ret(Some(zero));
    f.switch_to(rec);
    let one = f.iconst(U64, 1);
    let m = f.binary(IrBinOp::Sub, n_reg, one);
    let r = f.call(fn_def_id("down"), &[m], Some(U64)).unwrap();
    let back = f.load(U64, p, 0);
    let same = f.binary(IrBinOp::Sub, back, n_reg);
    let r1 = f.binary(IrBinOp::Add, r, one);
    let r2 = f.binary(IrBinOp::Add, r1, same);
    f.ret(Some(r2));
    let mut b = main_builder();
    let nn = b.iconst(U64, n);
    let r = b.call(fn_def_id("down"), &[nn], Some(U64)).unwrap();
    print_value(&mut b, r);
    let mut fns = finish_main(b);
    fns.push(f.finish());
    fns
}

#[test]
fn deep_recursion_runs_and_deeper_overflows_cleanly() {
    let (o, stats) = run_with_stats(
        &program(deep_program(200_000), fn_def_id("main")),
        &InterpLimits::default(),
    );
    assert_eq!(render(&o), "200000\n-- Finished (exit 0)");
    assert_eq!(stats.max_depth, 200_002);
    let o = run_fns(deep_program(10_000_000));
    expect![[r#"-- StackOverflow (exit 134)"#]].assert_eq(&render(&o));
    // The frame limit counts main.
    let limits = InterpLimits {
        max_frames: 12,
        fuel: None,
    };
    let p = program(deep_program(10), fn_def_id("main"));
    assert_eq!(run(&p, &limits).status, ExitStatus::Finished);
    let p = program(deep_program(11), fn_def_id("main"));
    assert_eq!(run(&p, &limits).status, ExitStatus::StackOverflow);
}

#[test]
fn big_frames_overflow_by_memory() {
    // 64 MiB of slots per frame: MAX_STACK_BYTES allows 15 such frames.
    let mut f = FunctionBuilder::new("big");
    let n = f.param(U64);
    f.slot(64 << 20, 8);
    let zero = f.iconst(U64, 0);
    let is0 = f.binary(IrBinOp::Eq, n, zero);
    let (base, rec) = (f.block(), f.block());
    f.branch(is0, base, rec);
    f.switch_to(base);
    f.ret(None);
    f.switch_to(rec);
    let one = f.iconst(U64, 1);
    let m = f.binary(IrBinOp::Sub, n, one);
    f.call(fn_def_id("big"), &[m], None);
    f.ret(None);
    let big = f.finish();
    for (depth, want) in [(10, ExitStatus::Finished), (20, ExitStatus::StackOverflow)] {
        let mut b = main_builder();
        let d = b.iconst(U64, depth);
        b.call(fn_def_id("big"), &[d], None);
        let mut fns = finish_main(b);
        fns.push(big.clone());
        assert_eq!(run_fns(fns).status, want);
    }
}

#[test]
fn fuel_counts_instructions_block_by_block() {
    // Entry: 3 instructions + jump (4); loop block: 1 instruction + jump (2), forever.
    let mut b = main_builder();
    let x = b.iconst(I32, 1);
    b.print_int(x);
    b.print_str("\n");
    let l = b.block();
    b.jump(l);
    b.switch_to(l);
    b.print_int(x);
    b.jump(l);
    let fns = vec![b.finish()];
    let p = program(fns, fn_def_id("main"));
    for fuel in [3, 4, 5, 6, 9] {
        let limits = InterpLimits {
            max_frames: 10,
            fuel: Some(fuel),
        };
        let (o, stats) = run_with_stats(&p, &limits);
        assert_eq!(o.status, ExitStatus::OutOfFuel);
        assert_eq!(o.status.exit_code(), OUT_OF_FUEL_EXIT_CODE);
        let printed = String::from_utf8_lossy(&o.stdout).into_owned();
        let want = match fuel {
            3 => "",
            4 | 5 => "1\n",
            6 | 7 => "1\n1",
            _ => "1\n11",
        };
        assert_eq!(printed, want, "fuel {fuel}");
        assert!(stats.instructions <= fuel);
    }
    // A finishing program with exactly enough fuel.
    let mut b = main_builder();
    let x = b.iconst(I32, 1);
    b.print_int(x);
    let fns = finish_main(b);
    let p = program(fns, fn_def_id("main"));
    let exact = InterpLimits {
        max_frames: 10,
        fuel: Some(3),
    };
    assert_eq!(run(&p, &exact).status, ExitStatus::Finished);
    let short = InterpLimits {
        max_frames: 10,
        fuel: Some(2),
    };
    assert_eq!(run(&p, &short).status, ExitStatus::OutOfFuel);
}

#[test]
fn output_before_a_panic_is_kept() {
    let mut b = main_builder();
    b.print_str("a\n");
    let i = b.iconst(U64, 7);
    b.bounds_check(i, 5);
    b.print_str("never\n");
    check(
        finish_main(b),
        expect![[r#"
            a
            -- Panicked("index out of bounds: the len is 5 but the index is 7") (exit 101)"#]],
    );
}

#[test]
fn malformed_ir_is_an_internal_error_not_a_panic() {
    let bad = |edit: &dyn Fn(&mut IrFunction)| {
        let mut b = main_builder();
        let x = b.iconst(I32, 1);
        b.print_int(x);
        let mut f = finish_main(b).pop().unwrap();
        edit(&mut f);
        render(&run_fns(vec![f]))
    };
    let got = [
        bad(&|f| {
            f.blocks[0].insts.push(Inst::Copy {
                dst: VReg(0),
                src: VReg(99),
            })
        }),
        bad(&|f| f.blocks[0].term = Terminator::Jump(crate::ir::BlockId(5))),
        bad(&|f| f.blocks[0].term = Terminator::Unreachable),
        bad(&|f| f.blocks[0].term = Terminator::Return(Some(VReg(0)))),
        bad(&|f| f.blocks.clear()),
        bad(&|f| {
            f.vregs.push(I64);
            f.blocks[0].insts.push(Inst::Binary {
                op: IrBinOp::Add,
                dst: VReg(1),
                lhs: VReg(0),
                rhs: VReg(1),
            })
        }),
        bad(&|f| {
            f.blocks[0].insts.push(Inst::Call(Box::new(CallInst {
                dst: None,
                callee: fn_def_id("nowhere"),
                args: vec![],
            })))
        }),
        bad(&|f| {
            f.blocks[0].insts.push(Inst::Call(Box::new(CallInst {
                dst: None,
                callee: fn_def_id("main"),
                args: vec![VReg(0)],
            })))
        }),
        bad(&|f| f.params.push(VReg(0))),
        bad(&|f| f.def = fn_def_id("other")),
    ];
    expect![[r#"
        -- InternalError("crate::main: block 0: register %99 out of range") (exit 70)
        -- InternalError("crate::main: block 0: block 5 out of range") (exit 70)
        1-- InternalError("crate::main: block 0: reached Unreachable") (exit 70)
        -- InternalError("crate::main: block 0: Return(Some(VReg(0))) in a function returning None") (exit 70)
        -- InternalError("crate::main: no blocks") (exit 70)
        -- InternalError("crate::main: block 0: Add of I32 and I64") (exit 70)
        1-- InternalError("crate::main: call of unknown function d316c1243fd5799a998f1af8d3da2aa9") (exit 70)
        -- InternalError("crate::main: block 0: call of crate::main with 1 arguments, expected 0") (exit 70)
        -- InternalError("crate::main: main takes parameters") (exit 70)
        -- InternalError("no main function 46bfe3a94c0fe4b0a260ba485005c6df") (exit 70)"#]]
    .assert_eq(&got.join("\n"));
}

#[test]
fn exit_codes() {
    assert_eq!(ExitStatus::Finished.exit_code(), 0);
    assert_eq!(ExitStatus::Panicked(String::new()).exit_code(), 101);
    assert_eq!(ExitStatus::StackOverflow.exit_code(), 134);
    assert_eq!(
        ExitStatus::Panicked("attempt to divide by zero".into()).to_string(),
        "thread 'main' panicked:\nattempt to divide by zero"
    );
}

#[test]
fn panic_in_callee_index_reports_signed_and_unsigned_indices() {
    let mut b = main_builder();
    let i = b.sconst(I64, -3);
    b.terminate(Terminator::Panic(PanicKind::IndexOutOfBounds {
        index: i,
        len: 2,
    }));
    check(
        vec![b.finish()],
        expect![[
            r#"-- Panicked("index out of bounds: the len is 2 but the index is -3") (exit 101)"#
        ]],
    );
}
