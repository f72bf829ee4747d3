//! Tests of type checking, on whole programs.
//!
//! A [`TestDriver`] plays the driver: it parses one in-memory file, builds the item tree,
//! resolves names with the real resolver, and answers [`SemaEnv`] questions on demand
//! with the frontend's entry points (memoized, with cycles turned into errors).
//! `check` prints the typed body of every function and constant (and any diagnostic of
//! the program); `check_error` prints every diagnostic, `line:col: error[code]: message
//! (label)`. Bless snapshots with `UPDATE_EXPECT=1`.

use std::sync::Arc;

use expect_test::{expect, Expect};
use rustc_hash::FxHashMap;

use super::infer::{ITy, InferCtxt, VarKind};
use super::*;
use crate::diag::Diagnostic;
use crate::sema::env::SemaEnv;
use crate::sema::items::ItemAst;
use crate::sema::recipe::{self, Check, Origin, Step};
use crate::sema::test_driver::{Reporting, TestDriver};
use crate::sema::ty::{IntTy, Ty};
use crate::span::Span;

/// The driver of `src` (one file): its queries record nothing, [`all_diagnostics`]
/// checks every item.
fn driver(src: &str) -> TestDriver {
    TestDriver::new(src, Reporting::Nothing)
}

/// Everything the program's checks report, in the drivers' canonical order
/// ([`recipe::canonical_order`]).
fn all_diagnostics(env: &TestDriver) -> Vec<Diagnostic> {
    let mut found: FxHashMap<Origin, Vec<Diagnostic>> = FxHashMap::default();
    for data in env.tree.defs() {
        let def = data.id;
        let module = env.module_of(def);
        let mut put = |origin: Origin, diags: Vec<Diagnostic>| {
            let diags = diags.into_iter().map(|d| env.anchor(def, d));
            found.entry(origin).or_default().extend(diags);
        };
        let at = |check: Check| Origin::Item(check, def);
        match &data.ast {
            ItemAst::Fn(f) => {
                let (sig, d) = fn_sig(env, module, f);
                put(at(Check::Step(Step::FnSig)), d);
                if data.name.as_str() == "main" && module == env.tree.root {
                    put(
                        Origin::Main,
                        check_main_sig(env, f, &sig).into_iter().collect(),
                    );
                }
                put(
                    at(Check::Typeck),
                    typeck_fn(env, def, module, f).diagnostics,
                );
            }
            ItemAst::Const(c) => {
                put(at(Check::Step(Step::ConstTy)), const_ty(env, module, c).1);
                let mut diags = Vec::new();
                let _ = recipe::const_value(env, def, module, c, &mut |d| diags.extend(d));
                put(at(Check::Step(Step::ConstValue)), diags);
            }
            ItemAst::Struct(s) => {
                put(
                    at(Check::Step(Step::StructFields)),
                    struct_fields(env, module, s).1,
                );
                put(at(Check::CheckStruct), check_struct(env, def, s));
            }
            ItemAst::TypeAlias(a) => {
                put(at(Check::Step(Step::AliasTy)), alias_ty(env, module, a).1)
            }
            ItemAst::Root | ItemAst::Mod(_) | ItemAst::Released => {}
        }
    }
    let mut out = env.front_diagnostics();
    let defs = env.tree.defs().iter().map(|d| (d.id, d.kind));
    for origin in recipe::canonical_order(defs) {
        out.extend(found.remove(&origin).unwrap_or_default());
    }
    out
}

/// `line:col: error[code]: message (label)`, one diagnostic a line.
fn render(env: &TestDriver, diags: &[Diagnostic]) -> String {
    let mut s = String::new();
    for d in diags {
        let pos = match d.labels.first().and_then(|l| l.file.map(|f| (f, l.span))) {
            Some((f, span)) => {
                let (line, col) = env.krate.sources.get(f).line_col(span.lo);
                format!("{line}:{col}: ")
            }
            None => String::new(),
        };
        let code = d.code.map(|c| format!("[{c}]")).unwrap_or_default();
        let label = match d.labels.first() {
            Some(l) if !l.message.is_empty() => format!(" ({})", l.message),
            _ => String::new(),
        };
        s.push_str(&format!("{pos}error{code}: {}{label}\n", d.message));
    }
    s
}

/// Prints the typed body of every function and constant, then any diagnostic.
fn check(src: &str, expect: Expect) {
    let env = driver(src);
    let mut out = String::new();
    for data in env.tree.defs() {
        let module = env.module_of(data.id);
        let result = match &data.ast {
            ItemAst::Fn(f) => typeck_fn(&env, data.id, module, f),
            ItemAst::Const(c) => typeck_const(&env, module, c),
            _ => continue,
        };
        out.push_str(&format!("{} ", env.def_name(data.id)));
        out.push_str(&thir_to_string(&result.thir, &env));
    }
    let diags = all_diagnostics(&env);
    out.push_str(&render(&env, &diags));
    expect.assert_eq(&out);
}

/// Prints every diagnostic of the program.
fn check_error(src: &str, expect: Expect) {
    let env = driver(src);
    let diags = all_diagnostics(&env);
    expect.assert_eq(&render(&env, &diags));
}

// ---- inference variables ----

#[test]
fn integer_variables_unify_with_integers_only_and_default_to_i32() {
    let mut infer = InferCtxt::default();
    let a = infer.new_var(VarKind::Int, Span::DUMMY);
    let b = infer.new_var(VarKind::Int, Span::DUMMY);
    let c = infer.new_var(VarKind::Int, Span::DUMMY);
    assert!(!infer.unify(&a, &ITy::Bool));
    assert!(infer.unify(&a, &b));
    assert!(infer.unify(&b, &ITy::Int(IntTy::U64)));
    assert_eq!(infer.shallow(&a), ITy::Int(IntTy::U64));
    assert!(!infer.unify(&a, &ITy::Int(IntTy::I64)));
    infer.apply_fallback();
    let mut none = |_, _| panic!("no unresolved variables");
    assert_eq!(infer.finalize(&c, &mut none), Ty::Int(IntTy::I32));
}

#[test]
fn general_variables_take_any_type_and_diverging_ones_default_to_unit() {
    let mut infer = InferCtxt::default();
    let g = infer.new_var(VarKind::General, Span::DUMMY);
    let i = infer.new_var(VarKind::Int, Span::DUMMY);
    // A general variable unified with an integer variable becomes an integer variable.
    assert!(infer.unify(&g, &i));
    assert!(!infer.unify(&g, &ITy::Bool));
    let arr = infer.new_var(VarKind::General, Span::DUMMY);
    let elem = infer.new_var(VarKind::Int, Span::DUMMY);
    let elem_array = infer.array(elem, 2);
    assert!(infer.unify(&arr, &elem_array));
    // No infinite types.
    let arr_array = infer.array(arr, 2);
    assert!(!infer.unify(&arr, &arr_array));
    let usize_array = infer.array(ITy::Int(IntTy::Usize), 2);
    assert!(infer.unify(&arr, &usize_array));
    let d = infer.new_diverging_var(Span::DUMMY);
    let lost = infer.new_var(VarKind::General, Span::new(3, 4));
    infer.apply_fallback();
    let mut unresolved = Vec::new();
    let mut report = |_, span| unresolved.push(span);
    assert_eq!(
        infer.finalize(&arr, &mut report),
        Ty::Array(Arc::new(Ty::Int(IntTy::Usize)), 2)
    );
    assert_eq!(infer.finalize(&d, &mut report), Ty::Unit);
    assert_eq!(infer.finalize(&lost, &mut report), Ty::Error);
    assert_eq!(unresolved, vec![Span::new(3, 4)]);
}

// ---- literals ----

#[test]
fn literal_types_flow_from_annotations_and_unification() {
    check(
        r#"
fn main() {
    let x = 5;
    let y: i64 = x;
    let z = 7;
    let a = [1, 2u64];
    let b: [usize; 2] = [3, 4];
    let c = 3000000000 as i64;
    let d = -(5) as i64;
    let e = ({ 3000000000 }) as u64;
}
"#,
        expect![[r#"
            main fn() -> () {
                let x#0: i64 = 5i64;
                let y#1: i64 = x#0;
                let z#2: i32 = 7i32;
                let a#3: [u64; 2] = [1u64, 2u64];
                let b#4: [usize; 2] = [3usize, 4usize];
                let c#5: i64 = (3000000000i64 as i64 [from i64]);
                let d#6: i64 = (-5i64 as i64 [from i64]);
                let e#7: u64 = ({
                    3000000000u64
                }: u64 as u64 [from u64]);
            }: ()
        "#]],
    );
}

#[test]
fn literal_types_flow_from_parameters_returns_fields_and_elements() {
    check(
        r#"
#[derive(Clone, Copy)]
struct P { x: u64, y: [i64; 2] }
fn f(a: usize, b: i64) -> u64 { if a == 0 { 1 } else { 2 } }
fn main() {
    let r = f(1, 2);
    let p = P { x: 3, y: [4, 5] };
    let q: i64 = -7;
    let s: u64 = !0;
    let t: i64 = (((9)));
}
"#,
        expect![[r#"
            f fn(a#0: usize, b#1: i64) -> u64 {
                if<u64> (a#0 == 0usize) {
                    1u64
                }: u64 else {
                    2u64
                }: u64
            }: u64
            main fn() -> () {
                let r#0: u64 = f(1usize, 2i64): u64;
                let p#1: P = P { x: 3u64, y: [4i64, 5i64] };
                let q#2: i64 = -7i64;
                let s#3: u64 = (!0u64);
                let t#4: i64 = 9i64;
            }: ()
        "#]],
    );
}

#[test]
fn binary_operands_get_no_expected_type_but_unify() {
    check(
        r#"
fn main() {
    let a: i64 = 3000000000 + 1;
    let b = (3000000000 + 0) as i64;
    let c = 1u64 << 3000000000;
    let n = 5;
    let m = n as u64;
    let k: u64 = 1 << 2;
}
"#,
        expect![[r#"
            main fn() -> () {
                let a#0: i64 = (3000000000i64 + 1i64);
                let b#1: i64 = ((-1294967296i32 + 0i32) as i64 [from i32]);
                let c#2: u64 = (1u64 << -1294967296i32);
                let n#3: i32 = 5i32;
                let m#4: u64 = (n#3 as u64 [from i32]);
                let k#5: u64 = (1u64 << 2i32);
            }: ()
            4:14: error: literal out of range for `i32`
            5:21: error: literal out of range for `i32`
        "#]],
    );
}

#[test]
fn literal_ranges() {
    check_error(
        r#"
fn main() {
    let a = 2147483647;
    let b = 2147483648;
    let c = -2147483648;
    let d = -(2147483648);
    let e = -2147483649;
    let f = --2147483648;
    let g = -(-2147483648);
    let h = - -(-2147483648);
    let i = 0xFFFF_FFFF;
    let j = -0x8000_0000i32;
    let k = 18446744073709551615u64;
    let l = 18446744073709551616u64;
    let m: usize = 18446744073709551615;
    let n = -9223372036854775808i64;
    let o = 340282366920938463463374607431768211456;
    if false { let dead = 4294967296; }
    let p = 5u8;
}
"#,
        expect![[r#"
            17:13: error: integer literal is too large
            19:13: error: unsupported: integer type `u8`
            4:13: error: literal out of range for `i32`
            7:14: error: literal out of range for `i32`
            8:15: error: literal out of range for `i32`
            9:16: error: literal out of range for `i32`
            11:13: error: literal out of range for `i32`
            14:13: error: literal out of range for `u64`
            18:27: error: literal out of range for `i32`
        "#]],
    );
}

#[test]
fn min_and_max_are_constants_of_their_type() {
    check(
        r#"
type Big = u64;
fn main() {
    let a = i32::MIN;
    let b = i64::MAX;
    let c = Big::MAX;
    let d = usize::MIN;
}
"#,
        expect![[r#"
            main fn() -> () {
                let a#0: i32 = -2147483648i32;
                let b#1: i64 = 9223372036854775807i64;
                let c#2: u64 = 18446744073709551615u64;
                let d#3: usize = 0usize;
            }: ()
        "#]],
    );
}

#[test]
fn inference_through_later_uses() {
    check(
        r#"
fn f() -> u64 { let x = 5; x }
fn main() {
    let mut a = 0;
    a = 5u64;
    let b = [0; 3];
    let c: [i64; 3] = b;
    let x = 1;
    let y = x << 2u64;
    let z: usize = y;
    let p = [1, 2];
    let q = p[0] + 1i64;
    let mut i = 0;
    while i < 3usize { i += 1; }
    for j in 0..i {}
}
"#,
        expect![[r#"
            f fn() -> u64 {
                let x#0: u64 = 5u64;
                x#0
            }: u64
            main fn() -> () {
                let mut a#0: u64 = 0u64;
                a#0 = 5u64;
                let b#1: [i64; 3] = [0i64; 3];
                let c#2: [i64; 3] = b#1;
                let x#3: usize = 1usize;
                let y#4: usize = (x#3 << 2u64);
                let z#5: usize = y#4;
                let p#6: [i64; 2] = [1i64, 2i64];
                let q#7: i64 = (p#6[0usize]: i64 + 1i64);
                let mut i#8: usize = 0usize;
                while@28 (i#8 < 3usize) {
                    i#8 += 1usize;
                }: ();
                for@32 j#9: usize in 0usize..i#8 {
                }: ()
            }: ()
        "#]],
    );
}

#[test]
fn errors_do_not_cascade() {
    check_error(
        r#"
fn main() {
    let x: Missing = 3000000000;
    let y = undefined + 3000000000;
    let z = y * 2;
    let w: i32 = z;
    let v = [undefined; 3];
    let u = v[0].field;
    let t = if undefined { 1 } else { true };
    undefined();
    let s = x.a.b[4];
}
"#,
        expect![[r#"
            3:12: error[E0425]: cannot find type `Missing` in this scope (not found in this scope)
            4:13: error[E0425]: cannot find value `undefined` in this scope (not found in this scope)
            7:14: error[E0425]: cannot find value `undefined` in this scope (not found in this scope)
            9:16: error[E0425]: cannot find value `undefined` in this scope (not found in this scope)
            9:37: error[E0308]: `if` and `else` have incompatible types (expected integer, found `bool`)
            10:5: error[E0425]: cannot find function `undefined` in this scope (not found in this scope)
        "#]],
    );
}

// ---- operators ----

#[test]
fn unary_operators() {
    check_error(
        r#"
#[derive(Clone, Copy)]
struct P { x: i32 }
fn main() {
    let a = -5u64;
    let b = -1 as u64;
    let x = 5;
    let y = -x;
    let z: u64 = y;
    let c = !P { x: 1 };
    let d = -true;
    let e = !true;
    let f = !5u64;
}
"#,
        expect![[r#"
            5:13: error[E0600]: cannot apply unary operator `-` to type `u64` (cannot apply unary operator `-`)
            6:13: error[E0600]: cannot apply unary operator `-` to type `u64` (cannot apply unary operator `-`)
            10:13: error[E0600]: cannot apply unary operator `!` to type `P` (cannot apply unary operator `!`)
            11:13: error[E0600]: cannot apply unary operator `-` to type `bool` (cannot apply unary operator `-`)
            8:13: error[E0277]: the trait bound `u64: Neg` is not satisfied (the trait `Neg` is not implemented for `u64`)
        "#]],
    );
}

#[test]
fn binary_operators_need_one_type() {
    check_error(
        r#"
#[derive(Clone, Copy)]
struct P { x: i32 }
fn main() {
    let a = 1i32 + 1i64;
    let b = true + true;
    let c = 1 + true;
    let d = P { x: 1 } == P { x: 1 };
    let e = [1, 2] == [1, 2];
    let f = () < ();
    let g = 1 == true;
    let h = true << 1;
    let i = 1 << true;
    let j = 5 % false;
    let k = P { x: 1 } & P { x: 2 };
}
"#,
        expect![[r#"
            5:20: error[E0308]: mismatched types (expected `i32`, found `i64`)
            6:13: error[E0369]: cannot add `bool` to `bool`
            7:13: error[E0277]: cannot add `bool` to `{integer}`
            8:13: error: unsupported: comparison of `P`
            9:13: error: unsupported: comparison of `[{integer}; 2]`
            10:13: error: unsupported: comparison of `()`
            11:18: error[E0308]: mismatched types (expected integer, found `bool`)
            12:13: error[E0369]: no implementation for `bool << {integer}`
            13:13: error[E0277]: no implementation for `{integer} << bool`
            14:13: error[E0277]: cannot calculate the remainder of `{integer}` divided by `bool`
            15:13: error[E0369]: no implementation for `P & P`
        "#]],
    );
}

#[test]
fn never_operands_fall_back_to_unit() {
    check_error(
        r#"
fn f() -> i32 {
    let y = 1 + { return 3; };
    let z = { return 4; } * 2u64;
    let w = -return;
    y
}
fn main() {}
"#,
        expect![[r#"
            5:14: error[E0069]: `return;` in a function whose return type is not `()` (return type is not `()`)
            5:13: error[E0600]: cannot apply unary operator `-` to type `!` (cannot apply unary operator `-`)
            3:13: error[E0277]: cannot add `()` to `i32`
            4:13: error[E0277]: cannot multiply `()` by `u64`
        "#]],
    );
}

#[test]
fn outside_the_subset() {
    check_error(
        r#"
fn main() {
    let mut x = 1;
    println!("{}", { x = 5; x });
    let b: u8 = 255;
    let c = u8::MAX;
    let d = 5 as i16;
    let e = Missing { a: 1 };
}
"#,
        expect![[r#"
            4:22: error: unsupported: assignment inside `println!` arguments
            5:12: error: unsupported: the type `u8`
            6:13: error: unsupported: the type `u8`
            7:18: error: unsupported: the type `i16`
            8:13: error[E0422]: cannot find struct, variant or union type `Missing` in this scope (not found in this scope)
        "#]],
    );
}

#[test]
fn operator_types() {
    check(
        r#"
fn main() {
    let a = 1u64 << 2i32;
    let b = 1 << 2u64;
    let c = false < true;
    let d = true & false ^ true | false;
    let e = 1i64 < 2 && 3 >= 4u64 || !false;
    let f = 7 / 2 % 3 - 1 * 4;
}
"#,
        expect![[r#"
            main fn() -> () {
                let a#0: u64 = (1u64 << 2i32);
                let b#1: i32 = (1i32 << 2u64);
                let c#2: bool = (false < true);
                let d#3: bool = (((true & false) ^ true) | false);
                let e#4: bool = (((1i64 < 2i64) && (3u64 >= 4u64)) || (!false));
                let f#5: i32 = (((7i32 / 2i32) % 3i32) - (1i32 * 4i32));
            }: ()
        "#]],
    );
}

#[test]
fn casts() {
    check_error(
        r#"
#[derive(Clone, Copy)]
struct P { x: i32 }
fn main() {
    let a = 1 as bool;
    let b = () as i32;
    let c = P { x: 1 } as i32;
    let d = 1 as P;
    let e = [1] as i32;
    let f = true as bool;
    let g = true as i64;
    let h = 5u64 as i32 as usize;
}
"#,
        expect![[r#"
            5:13: error[E0054]: cannot cast `i32` as `bool`
            6:13: error[E0605]: non-primitive cast: `()` as `i32` (an `as` expression can only be used to convert between primitive types or to coerce to a specific trait object)
            7:13: error[E0605]: non-primitive cast: `P` as `i32` (an `as` expression can only be used to convert between primitive types or to coerce to a specific trait object)
            8:13: error[E0605]: non-primitive cast: `i32` as `P` (an `as` expression can only be used to convert between primitive types or to coerce to a specific trait object)
            9:13: error[E0605]: non-primitive cast: `[i32; 1]` as `i32` (an `as` expression can only be used to convert between primitive types or to coerce to a specific trait object)
            10:13: error: unsupported: cast from `bool` to itself
        "#]],
    );
}

// ---- divergence ----

#[test]
fn diverging_expressions_coerce_to_anything() {
    check(
        r#"
fn a() -> i32 { return 3; }
fn b() -> i32 { loop {} }
fn c() -> i32 { let x: i32 = { return 5; }; x }
fn d(c: bool) -> u64 { if c { return 1; } else { 2 } }
fn e() -> i32 { let x = return 1; }
fn f(c: bool) -> i64 { let v = if c { return 0 } else { 7 }; v }
fn main() {}
"#,
        expect![[r#"
            a fn() -> i32 never_to_any({
                return 3i32;
            }: !): i32
            b fn() -> i32 {
                never_to_any(loop@1<!> {
                }: ()): i32
            }: i32
            c fn() -> i32 {
                let x#0: i32 = never_to_any({
                    return 5i32;
                }: !): i32;
                x#0
            }: i32
            d fn(c#0: bool) -> u64 {
                if<u64> c#0 never_to_any({
                    return 1u64;
                }: !): u64 else {
                    2u64
                }: u64
            }: u64
            e fn() -> i32 never_to_any({
                let x#0: () = never_to_any(return 1i32): ();
            }: !): i32
            f fn(c#0: bool) -> i64 {
                let v#1: i64 = if<i64> c#0 never_to_any({
                    return 0i64
                }: !): i64 else {
                    7i64
                }: i64;
                v#1
            }: i64
            main fn() -> () {
            }: ()
        "#]],
    );
}

#[test]
fn falling_off_the_end_with_unit_is_a_mismatch() {
    check_error(
        r#"
fn f(c: bool) -> i32 { while c { return 1; } }
fn g() -> i32 { }
fn h(c: bool) -> i32 { if c { return 1; } }
fn k() -> i32 { 5; }
fn l() -> i32 { return; }
fn main() {}
"#,
        expect![[r#"
            2:24: error[E0308]: mismatched types (expected `i32`, found `()`)
            3:15: error[E0308]: mismatched types (expected `i32`, found `()`)
            4:24: error[E0317]: `if` may be missing an `else` clause (expected `i32`, found `()`)
            5:15: error[E0308]: mismatched types (expected `i32`, found `()`)
            6:17: error[E0069]: `return;` in a function whose return type is not `()` (return type is not `()`)
        "#]],
    );
}

#[test]
fn loop_values_come_from_breaks() {
    check(
        r#"
fn main() {
    let a = loop { break 5; };
    let b: u64 = loop { break 6; };
    let c = 'outer: loop {
        loop { break 'outer 1i64; }
    };
    let d = loop { break; };
    let mut i = 0;
    while i < 10 { i += 1; if i == 5 { continue; } }
    for j in 0..10u64 { if j == 3 { break; } }
    for k in 1..=3 { let x: usize = k; }
}
"#,
        expect![[r#"
            main fn() -> () {
                let a#0: i32 = loop@3<i32> {
                    break@3 5i32;
                }: !;
                let b#1: u64 = loop@7<u64> {
                    break@7 6u64;
                }: !;
                let c#2: i64 = loop@14<i64> {
                    never_to_any(loop@11<!> {
                        break@14 1i64;
                    }: !): ()
                }: ();
                let d#3: () = loop@17<()> {
                    break@17;
                }: !;
                let mut i#4: i32 = 0i32;
                while@33 (i#4 < 10i32) {
                    i#4 += 1i32;
                    if<()> (i#4 == 5i32) never_to_any({
                        continue@33;
                    }: !): ()
                }: ();
                for@44 j#5: u64 in 0u64..10u64 {
                    if<()> (j#5 == 3u64) never_to_any({
                        break@44;
                    }: !): ()
                }: ();
                for@49 k#6: usize in 1usize..=3usize {
                    let x#7: usize = k#6;
                }: ()
            }: ()
        "#]],
    );
}

#[test]
fn break_and_continue_errors() {
    check_error(
        r#"
fn f1(c: bool) { while c { break 5; } }
fn f2() { for i in 0..3 { break 5; } }
fn f3() { break; }
fn f4() { continue; }
fn f5() { loop { break 'a; } }
fn f6() { 'a: loop { continue 'b; } }
fn f7() { while break {} }
fn f8() { let x: i32 = loop { break; }; }
fn f9() { loop { 5 } }
fn f10() { let x = loop { if true { break 1u64; } else { break true; } }; }
fn main() {}
"#,
        expect![[r#"
            2:28: error[E0571]: `break` with value from a `while` loop (can only break with a value inside `loop` or breakable block)
            3:27: error[E0571]: `break` with value from a `for` loop (can only break with a value inside `loop` or breakable block)
            4:11: error[E0268]: `break` outside of a loop or labeled block (cannot `break` outside of a loop or labeled block)
            5:11: error[E0268]: `continue` outside of a loop (cannot `continue` outside of a loop)
            6:24: error[E0426]: use of undeclared label `'a` (undeclared label `'a`)
            7:31: error[E0426]: use of undeclared label `'b` (undeclared label `'b`)
            8:17: error[E0590]: `break` or `continue` with no label in the condition of a `while` loop (unlabeled `break` in the condition of a `while` loop)
            9:31: error[E0308]: mismatched types (expected `i32`, found `()`)
            10:18: error[E0308]: mismatched types (expected `()`, found integer)
            11:64: error[E0308]: mismatched types (expected `u64`, found `bool`)
        "#]],
    );
}

#[test]
fn if_typing() {
    check_error(
        r#"
fn f1() { let x: i32 = if true { 5 }; }
fn f2() { if true { 5 } }
fn f3() { if true { 5 } else { 6 } let y = 1; }
fn f4() { let x = if true { 1 } else { false }; }
fn f5() { if 1 { } }
fn f6() { let x = if true { 1 }; }
fn main() {}
"#,
        expect![[r#"
            2:24: error[E0317]: `if` may be missing an `else` clause (expected `i32`, found `()`)
            3:21: error[E0308]: mismatched types (expected `()`, found integer)
            4:21: error[E0308]: mismatched types (expected `()`, found integer)
            4:32: error[E0308]: mismatched types (expected `()`, found integer)
            5:38: error[E0308]: `if` and `else` have incompatible types (expected integer, found `bool`)
            6:14: error[E0308]: mismatched types (expected `bool`, found integer)
            7:19: error[E0317]: `if` may be missing an `else` clause (expected integer, found `()`)
        "#]],
    );
}

#[test]
fn block_like_statements_must_be_unit() {
    check_error(
        r#"
fn main() {
    { 5 }
    loop { break; }
    let x = 1;
    {}
    { 6 };
}
"#,
        expect![[r#"
            3:7: error[E0308]: mismatched types (expected `()`, found integer)
        "#]],
    );
}

// ---- locals ----

#[test]
fn shadowing_and_scopes() {
    check(
        r#"
fn x() -> i32 { 1 }
fn main() {
    let x = 1u64;
    let x = x + 1;
    {
        let x = true;
        let y = x;
    }
    let z = x;
    for x in 0..3 { let w = x; }
    let v = x;
}
"#,
        expect![[r#"
            x fn() -> i32 {
                1i32
            }: i32
            main fn() -> () {
                let x#0: u64 = 1u64;
                let x#1: u64 = (x#0 + 1u64);
                {
                    let x#2: bool = true;
                    let y#3: bool = x#2;
                }: ();
                let z#4: u64 = x#1;
                for@12 x#5: i32 in 0i32..3i32 {
                    let w#6: i32 = x#5;
                }: ();
                let v#7: u64 = x#1;
            }: ()
        "#]],
    );
}

#[test]
fn locals_shadow_functions() {
    check_error(
        r#"
const C: i32 = 1;
fn f() {}
fn main() {
    let f = 2;
    f();
    C();
    5();
    let g = f;
}
"#,
        expect![[r#"
            6:5: error[E0618]: expected function, found `{integer}` (call expression requires function)
            7:5: error[E0618]: expected function, found `i32` (call expression requires function)
            8:5: error[E0618]: expected function, found `{integer}` (call expression requires function)
        "#]],
    );
}

#[test]
fn bindings_named_like_constants_are_patterns() {
    check_error(
        r#"
const C: i32 = 1;
const U: () = ();
fn f2(C: i32) {}
fn f3() { for C in 0..3 {} }
fn f4() { let U = (); }
fn f5(x: i32, x: i32) {}
fn main() { let C = 5; }
"#,
        expect![[r#"
            4:7: error[E0005]: refutable pattern in function argument (pattern not covered)
            5:15: error[E0005]: refutable pattern in `for` loop binding (pattern not covered)
            6:15: error: unsupported: binding named like the constant `U`
            7:15: error[E0415]: identifier `x` is bound more than once in this parameter list (used as parameter more than once)
            8:17: error[E0005]: refutable pattern in local binding (pattern not covered)
        "#]],
    );
}

#[test]
fn mutability() {
    check_error(
        r#"
#[derive(Clone, Copy)] struct P { x: i32, a: [Q; 2] }
#[derive(Clone, Copy)] struct Q { y: i32 }
const K: i32 = 1;
fn mk() -> P { P { x: 1, a: [Q { y: 1 }; 2] } }
fn f1() { let x = 1; x = 2; }
fn f2(x: i32) { x = 2; }
fn f3() { for i in 0..3 { i = 2; } }
fn f4(p: P) { p.x = 1; }
fn f5() { let p = mk(); p.a[0].y = 1; }
fn f6() { let a = [1, 2]; (a)[0] = 5; }
fn f7() { let x = 1; x += 2; }
fn f8() { K = 5; K += 1; 5 = 6; mk() = mk(); }
fn f9() { mk().x = 1; }
fn main() {
    let mut p = mk();
    p.a[1].y = 3;
    p.x += 2;
    let mut n = 0u64;
    n <<= 2;
}
"#,
        expect![[r#"
            6:22: error[E0384]: cannot assign twice to immutable variable `x` (cannot assign twice to immutable variable)
            7:17: error[E0384]: cannot assign to immutable argument `x` (cannot assign to immutable argument)
            8:27: error[E0384]: cannot assign twice to immutable variable `i` (cannot assign twice to immutable variable)
            9:15: error[E0594]: cannot assign to `p.x`, as `p` is not declared as mutable (cannot assign)
            10:25: error[E0594]: cannot assign to `p.a[_].y`, as `p` is not declared as mutable (cannot assign)
            11:27: error[E0594]: cannot assign to `a[_]`, as `a` is not declared as mutable (cannot assign)
            12:22: error[E0384]: cannot assign twice to immutable variable `x` (cannot assign twice to immutable variable)
            13:11: error[E0070]: invalid left-hand side of assignment (cannot assign to this expression)
            13:18: error[E0067]: invalid left-hand side of assignment (cannot assign to this expression)
            13:26: error[E0070]: invalid left-hand side of assignment (cannot assign to this expression)
            13:33: error[E0070]: invalid left-hand side of assignment (cannot assign to this expression)
            14:11: error: unsupported: assignment to a field or element of a temporary value
        "#]],
    );
}

#[test]
fn assignments_type() {
    check(
        r#"
#[derive(Clone, Copy)] struct P { x: i64 }
fn main() {
    let mut p = P { x: 0 };
    p.x = 5;
    let mut a = [0; 3];
    a[1] = 7u64;
    let mut s = 1;
    s <<= 3u64;
    s += 2;
}
"#,
        expect![[r#"
            main fn() -> () {
                let mut p#0: P = P { x: 0i64 };
                p#0.x: i64 = 5i64;
                let mut a#1: [u64; 3] = [0u64; 3];
                a#1[1usize]: u64 = 7u64;
                let mut s#2: i32 = 1i32;
                s#2 <<= 3u64;
                s#2 += 2i32;
            }: ()
        "#]],
    );
}

// ---- calls, structs, fields, indexing ----

#[test]
fn calls() {
    check_error(
        r#"
fn two(a: i32, b: i64) -> i32 { a }
fn none() {}
fn main() {
    two(1);
    two(1, 2, 3);
    none(1);
    two(1, true);
    let x: i64 = two(1, 2);
    undefined(1);
}
"#,
        expect![[r#"
            5:5: error[E0061]: this function takes 2 arguments but 1 argument was supplied
            6:5: error[E0061]: this function takes 2 arguments but 3 arguments were supplied
            7:5: error[E0061]: this function takes 0 arguments but 1 argument was supplied
            8:12: error[E0308]: mismatched types (expected `i64`, found `bool`)
            9:18: error[E0308]: mismatched types (expected `i64`, found `i32`)
            10:5: error[E0425]: cannot find function `undefined` in this scope (not found in this scope)
        "#]],
    );
}

#[test]
fn struct_literals_and_fields() {
    check_error(
        r#"
mod m {
    #[derive(Clone, Copy)]
    pub struct P { x: i32, pub y: i32 }
    pub fn mk() -> P { P { x: 1, y: 2 } }
}
#[derive(Clone, Copy)]
struct Q { a: i32, b: i32, c: i32, d: i32, e: i32 }
type A = i32;
type QQ = Q;
fn f1() { let p = m::P { x: 1, y: 2 }; }
fn f2() { let p = m::mk(); let a = p.x; let b = p.z; let c = p.y; }
fn f3() { let q = Q { a: 1, a: 2, z: 3 }; }
fn f4() { let q = Q { a: 1 }; }
fn f5() { let q = Q { a: 1, b: 2 }; }
fn f6() { let q = Q { a: 1, b: 2, c: 3 }; }
fn f7() { let q = Q { a: 1, b: 2, c: 3, d: 4 }; }
fn f8() { let x = A { x: 1 }; let y = i32 { x: 1 }; let z = m { x: 1 }; }
fn f9() { let q = QQ { a: 1, b: 2, c: 3, d: 4, e: 5 }; let x = 5.x; let y = [1].x; let z = q.a.b; }
fn main() {}
"#,
        expect![[r#"
            11:26: error[E0451]: field `x` of struct `m::P` is private (private field)
            12:38: error[E0616]: field `x` of struct `m::P` is private (private field)
            12:51: error[E0609]: no field `z` on type `m::P` (unknown field)
            13:29: error[E0062]: field `a` specified more than once (used more than once)
            13:35: error[E0560]: struct `Q` has no field named `z` (unknown field)
            14:19: error[E0063]: missing fields `b`, `c`, `d` and 1 other field in initializer of `Q` (missing `b`, `c`, `d` and 1 other field)
            15:19: error[E0063]: missing fields `c`, `d` and `e` in initializer of `Q` (missing `c`, `d` and `e`)
            16:19: error[E0063]: missing fields `d` and `e` in initializer of `Q` (missing `d` and `e`)
            17:19: error[E0063]: missing field `e` in initializer of `Q` (missing `e`)
            18:19: error[E0071]: expected struct, variant or union type, found `i32` (not a struct)
            18:39: error[E0574]: expected struct, variant or union type, found builtin type `i32` (not a struct)
            18:61: error[E0574]: expected struct, variant or union type, found module `m` (not a struct)
            19:66: error[E0610]: `{integer}` is a primitive type and therefore doesn't have fields
            19:81: error[E0609]: no field `x` on type `[{integer}; 1]` (unknown field)
            19:96: error[E0610]: `i32` is a primitive type and therefore doesn't have fields
        "#]],
    );
}

#[test]
fn struct_literal_order_and_shorthand() {
    check(
        r#"
#[derive(Clone, Copy)]
struct P { x: i64, y: bool }
type Alias = P;
fn main() {
    let x = 3;
    let p = Alias { y: true, x };
    let q = p.x;
}
"#,
        expect![[r#"
            main fn() -> () {
                let x#0: i64 = 3i64;
                let p#1: P = P { y: true, x: x#0 };
                let q#2: i64 = p#1.x: i64;
            }: ()
        "#]],
    );
}

#[test]
fn indexing() {
    check_error(
        r#"
#[derive(Clone, Copy)] struct P { x: i32 }
fn main() {
    let a = [1, 2, 3];
    let i = 1;
    let b = a[i];
    let c = a[1i32];
    let d = P { x: 1 }[0];
    let e = 5[0];
    let j: usize = i;
}
"#,
        expect![[r#"
            7:15: error[E0277]: the type `[{integer}]` cannot be indexed by `i32` (slice indices are of type `usize`)
            8:13: error[E0608]: cannot index into a value of type `P`
            9:13: error[E0608]: cannot index into a value of type `{integer}`
        "#]],
    );
}

#[test]
fn arrays_and_lengths() {
    check(
        r#"
const N: usize = 3;
const M: usize = N * 2;
fn main() {
    let a = [0u64; 2];
}
fn g(x: [i64; N]) -> [i64; M] { [x[0]; M] }
fn h() { let a: [[bool; 2]; N + 1] = [[true; 2]; 4]; let e: [i32; 0] = []; }
"#,
        expect![[r#"
            N fn() -> usize 3usize
            M fn() -> usize (N: usize * 2usize)
            main fn() -> () {
                let a#0: [u64; 2] = [0u64; 2];
            }: ()
            g fn(x#0: [i64; 3]) -> [i64; 6] {
                [x#0[0usize]: i64; 6]
            }: [i64; 6]
            h fn() -> () {
                let a#0: [[bool; 2]; 4] = [[true; 2]; 4];
                let e#1: [i32; 0] = [];
            }: ()
        "#]],
    );
}

#[test]
fn array_errors() {
    check_error(
        r#"
const N: usize = 3;
const S: i32 = 3;
fn f() -> usize { 1 }
fn main() {
    let n = 3;
    let a = [0; n];
    let b = [];
    let c = [0; S];
    let d = [0; f()];
    let e: [i32; N] = [1, 2];
    let g = [0i64; 1 << 40];
    let h: [i64; 1 << 22] = [0; 1 << 22];
    let i = [[0i64; 1 << 20]; 1 << 20];
    let j = [1, true];
    let k = [0; 2 - 3];
}
"#,
        expect![[r#"
            7:17: error[E0435]: attempt to use a non-constant value in a constant (non-constant value)
            9:17: error[E0308]: mismatched types (expected `usize`, found `i32`)
            10:17: error[E0015]: cannot call non-const function `f` in constants
            11:23: error[E0308]: mismatched types (expected `[i32; 3]`, found `[i32; 2]`)
            13:12: error: values of the type `[i64; 4194304]` are too big: the size of one value is limited to 16777216 bytes (implementation limit `MAX_VALUE_SIZE`)
            15:17: error[E0308]: mismatched types (expected integer, found `bool`)
            16:17: error[E0080]: attempt to compute `2_usize - 3_usize`, which would overflow (evaluation of constant value failed here)
            8:13: error[E0282]: type annotations needed (type must be known at this point)
            12:13: error: values of the type `[i64; 1099511627776]` are too big: the size of one value is limited to 16777216 bytes (implementation limit `MAX_VALUE_SIZE`)
        "#]],
    );
}

// ---- println! ----

#[test]
fn println_arguments() {
    check_error(
        r#"
#[derive(Clone, Copy)] struct P { x: i32 }
fn main() {
    println!("{} {}", 1);
    println!("{}", 1, 2);
    println!("", 1, 2);
    println!("{} {} {}", 1, 2);
    println!("{}");
    println!("{}", P { x: 1 });
    println!("{}", [1, 2]);
    println!("{}", ());
    let mut x = 1;
    println!("{}", x = 2);
    println!("{}", x += 2);
}
"#,
        expect![[r#"
            4:14: error: 2 positional arguments in format string, but there is 1 argument
            5:23: error: argument never used
            6:18: error: multiple unused formatting arguments
            7:14: error: 3 positional arguments in format string, but there are 2 arguments
            8:14: error: 1 positional argument in format string, but no arguments were given
            13:20: error: unsupported: named arguments in `println!`
            9:20: error[E0277]: `P` doesn't implement `std::fmt::Display` (`P` cannot be formatted with the default formatter)
            10:20: error[E0277]: `[{integer}; 2]` doesn't implement `std::fmt::Display` (`[{integer}; 2]` cannot be formatted with the default formatter)
            11:20: error[E0277]: `()` doesn't implement `std::fmt::Display` (`()` cannot be formatted with the default formatter)
            14:20: error: unsupported: assignment inside `println!` arguments
            14:20: error[E0277]: `()` doesn't implement `std::fmt::Display` (`()` cannot be formatted with the default formatter)
        "#]],
    );
}

#[test]
fn println_typing() {
    check(
        r#"
fn main() {
    let x = 5;
    println!("x = {} {{}} {}\n", x, true);
    println!();
    println!("{}", return);
}
"#,
        expect![[r#"
            main fn() -> () never_to_any({
                let x#0: i32 = 5i32;
                println!("x = {} {{}} {}\n", x#0, true);
                println!("");
                println!("{}", never_to_any(return): i32);
            }: !): ()
        "#]],
    );
}

// ---- constants ----

#[test]
fn constant_initializers() {
    check(
        r#"
const A: i64 = 1 << 40;
const B: usize = { let mut s = 0; let mut i = 0; while i < 4 { s += i; i += 1; } s };
const C: [u64; 3] = [A as u64; 3];
const D: i32 = loop { break 7; };
fn main() {}
"#,
        expect![[r#"
            A fn() -> i64 (1i64 << 40i32)
            B fn() -> usize {
                let mut s#0: usize = 0usize;
                let mut i#1: usize = 0usize;
                while@12 (i#1 < 4usize) {
                    s#0 += i#1;
                    i#1 += 1usize;
                }: ();
                s#0
            }: usize
            C fn() -> [u64; 3] [(A: i64 as u64 [from i64]); 3]
            D fn() -> i32 loop@3<i32> {
                break@3 7i32;
            }: !
            main fn() -> () {
            }: ()
        "#]],
    );
}

#[test]
fn constant_initializer_errors() {
    check_error(
        r#"
fn g() -> i32 { 1 }
const A: i32 = g();
const B: i32 = { let mut s = 0; for i in 0..3 { s += i; } s };
const C: i32 = { println!("x"); 1 };
const D: i32 = { return 1; };
const E: i32 = 5u64;
const F: u64 = -1;
fn main() {}
"#,
        expect![[r#"
            3:16: error[E0015]: cannot call non-const function `g` in constants
            4:42: error[E0015]: cannot use `for` loop on `std::ops::Range<i32>` in constants
            5:18: error[E0015]: cannot call non-const function `std::io::_print` in constants
            6:18: error[E0572]: return statement outside of function body
            7:16: error[E0308]: mismatched types (expected `i32`, found `u64`)
            8:16: error[E0600]: cannot apply unary operator `-` to type `u64` (cannot apply unary operator `-`)
        "#]],
    );
}

// ---- signatures and structs ----

#[test]
fn signature_errors() {
    check_error(
        r#"
fn f(x: Missing) -> ! { loop {} }
fn g(x: [i32; 1 << 62]) {}
#[derive(Clone, Copy)]
struct S { a: i32, a: i64 }
type T = m;
mod m {}
fn main() {}
"#,
        expect![[r#"
            2:21: error: unsupported: the never type `!`
            2:9: error[E0425]: cannot find type `Missing` in this scope (not found in this scope)
            3:9: error: values of the type `[i32; 4611686018427387904]` are too big: the size of one value is limited to 16777216 bytes (implementation limit `MAX_VALUE_SIZE`)
            5:20: error[E0124]: field `a` is already declared (field already declared)
            6:10: error[E0573]: expected type, found module `m` (not a type)
        "#]],
    );
}

#[test]
fn recursive_and_huge_structs() {
    check_error(
        r#"
#[derive(Clone, Copy)] struct A { b: B }
#[derive(Clone, Copy)] struct B { a: [A; 2] }
#[derive(Clone, Copy)] struct C { c: C, d: D }
#[derive(Clone, Copy)] struct D { x: i32, d: D }
#[derive(Clone, Copy)] struct E { a: A }
#[derive(Clone, Copy)] struct F { a: [F; 0] }
#[derive(Clone, Copy)] struct G { a: [i64; 1 << 21], b: [i64; 1 << 21] }
#[derive(Clone, Copy)] struct H { g: [i64; 1 << 21] }
fn main() {}
"#,
        expect![[r#"
            2:31: error[E0072]: recursive type `A` has infinite size
            3:31: error[E0072]: recursive type `B` has infinite size
            4:31: error[E0072]: recursive type `C` has infinite size
            5:31: error[E0072]: recursive type `D` has infinite size
            7:31: error[E0072]: recursive type `F` has infinite size
            8:31: error: values of the type `G` are too big: the size of one value is limited to 16777216 bytes (implementation limit `MAX_VALUE_SIZE`)
        "#]],
    );
}

#[test]
fn main_signature() {
    check_error(
        "fn main(x: i32) {}",
        expect![[r#"
        1:9: error[E0580]: `main` function has wrong type (incorrect number of function parameters)
    "#]],
    );
    check_error(
        "fn main() -> i32 { 1 }",
        expect![[r#"
        1:14: error[E0277]: `main` has invalid return type `i32` (`main` can only return types that implement `Termination`)
    "#]],
    );
    check_error("fn main() -> () {}", expect![[r#""#]]);
}

#[test]
fn private_types_in_signatures() {
    check_error(
        r#"
mod m {
    #[derive(Clone, Copy)]
    struct S { a: i32 }
    #[derive(Clone, Copy)]
    pub struct W { pub s: [S; 1], pub v: i32 }
    pub fn mk() -> S { S { a: 1 } }
    pub fn take(s: [S; 2]) {}
    pub fn w() -> W { W { s: [S { a: 1 }], v: 2 } }
    pub const K: S = S { a: 1 };
    fn inside() { let s = mk(); }
}
fn f1() { m::take(loop {}); }
fn f2() { let x = m::w().s; }
fn f3() { let x = m::w().v; let y = m::w(); }
fn f4() { let s = m::mk(); }
fn f5() { let k = m::K; }
fn main() {}
"#,
        expect![[r#"
            13:11: error: type `m::S` is private (private type)
            13:19: error: type `m::S` is private (private type)
            14:19: error: type `m::S` is private (private type)
            16:19: error: type `m::S` is private (private type)
            17:19: error: type `m::S` is private (private type)
        "#]],
    );
}

// ---- hostile input ----

#[test]
fn deep_nesting_and_long_chains_do_not_overflow() {
    // Parentheses, unary minus and blocks each nest one level.
    let levels = (crate::limits::MAX_NESTING as usize - 8) / 3;
    let nested = format!(
        "fn main() {{ let x = {}1{}; }}",
        "(-{".repeat(levels),
        "})".repeat(levels)
    );
    let env = driver(&nested);
    assert!(
        env.krate.diagnostics.is_empty(),
        "{}",
        render(&env, &env.krate.diagnostics)
    );
    assert!(
        all_diagnostics(&env).is_empty(),
        "{}",
        render(&env, &all_diagnostics(&env))
    );

    // The parser limits left-nested chains too.
    let terms = vec!["1"; crate::limits::MAX_NESTING as usize - 20].join(" + ");
    let chain = format!("fn main() {{ let x: i64 = {terms}; }}");
    let env = driver(&chain);
    let diags = all_diagnostics(&env);
    assert!(diags.is_empty(), "{}", render(&env, &diags));
}

#[test]
fn many_locals_in_scope_shadow_and_unshadow() {
    // More bindings than the scope stack scans: the inner `b` shadows the outer one
    // only inside its block, and names from the start stay visible.
    let lets: String = (1..40).map(|i| format!("let a{i} = {i};\n")).collect();
    let src = format!(
        "fn main() {{\nlet b: bool = true;\n{lets}{{ let b: i64 = 5; let c: i64 = b + 1; }}\n\
         let c: bool = b;\nlet d: i64 = b;\nlet e: i32 = a1 + a39;\n}}\n"
    );
    check_error(
        &src,
        expect![[r#"
            44:14: error[E0308]: mismatched types (expected `i64`, found `bool`)
        "#]],
    );
}

#[test]
fn wildcard_for_binding_binds_nothing() {
    // The counter of `for _` is a local named `_` that no path reaches; its type comes
    // from the range as for a named binding (here `u64` from `n`, and `i32` by default),
    // and a constant in scope does not make `_` a pattern.
    check(
        r#"
const C: i32 = 3;
fn f(n: u64) -> u64 {
    let mut s = 0;
    for _ in 0..n { s += 1; }
    for _ in 0..=C {}
    for _ in 0..2 { for _ in 1..3 { s += 2; } }
    s
}
"#,
        expect![[r#"
            C fn() -> i32 3i32
            f fn(n#0: u64) -> u64 {
                let mut s#1: u64 = 0u64;
                for@7 _#2: u64 in 0u64..n#0 {
                    s#1 += 1u64;
                }: ();
                for@11 _#3: i32 in 0i32..=C: i32 {
                }: ();
                for@22 _#4: i32 in 0i32..2i32 {
                    for@20 _#5: i32 in 1i32..3i32 {
                        s#1 += 2u64;
                    }: ()
                }: ();
                s#1
            }: u64
        "#]],
    );
    check_error(
        r#"
fn f() { for _ in 0..true {} }
fn g() { for _ in 0..3 { let y: i32 = _; } }
fn main() {}
"#,
        expect![[r#"
            3:39: error: in expressions, `_` can only be used on the left-hand side of an assignment
            2:22: error[E0308]: mismatched types (expected integer, found `bool`)
        "#]],
    );
}

// ---- child lists ----

/// Every child list of the typed tree is a run of its side array, and the runs tile the
/// array (nested lists, built while an outer one is open, are neither mixed into it nor
/// lost), including where a duplicated field is left out of its literal.
#[test]
fn nested_child_lists_tile_the_side_arrays() {
    use crate::sema::thir::{ListRange, TExprKind};
    let src = r#"
struct P { x: i32, y: [i32; 2] }
fn f(a: i32, b: i32) -> i32 { a + b }
fn main() {
    let p = P { y: [f(1, { let t = f(2, 3); t }), f(f(4, 5), 6)], x: f(7, { 8 }) };
    let q = P { x: 1, x: f(2, 3), y: [{ f(4, 5); 0 }; 2] };
    println!("{} {}", p.x, f({ 9 }, [f(1, 2), q.x][0]));
}
"#;
    let env = driver(src);
    let mut out = String::new();
    for data in env.tree.defs() {
        let module = env.module_of(data.id);
        let ItemAst::Fn(f) = &data.ast else { continue };
        let thir = typeck_fn(&env, data.id, module, f).thir;
        let (mut exprs, mut fields, mut stmts) = (Vec::new(), Vec::new(), Vec::new());
        for e in &thir.exprs {
            match &e.kind {
                TExprKind::Call { args: r, .. }
                | TExprKind::Array(r)
                | TExprKind::Println { args: r, .. } => exprs.push(*r),
                TExprKind::StructLit { fields: r, .. } => fields.push(*r),
                TExprKind::Block { stmts: r, .. } => stmts.push(*r),
                _ => {}
            }
        }
        let tiles = |mut rs: Vec<ListRange>, len: usize| {
            rs.sort_by_key(|r| r.start);
            let mut at = 0;
            for r in rs {
                assert_eq!(r.start as usize, at, "a gap or an overlap");
                at += r.len();
            }
            assert_eq!(at, len, "entries no list owns");
        };
        tiles(exprs, thir.lists.exprs.len());
        tiles(fields, thir.lists.fields.len());
        tiles(stmts, thir.lists.stmts.len());
        out.push_str(&format!("{} ", env.def_name(data.id)));
        out.push_str(&thir_to_string(&thir, &env));
    }
    expect![[r#"
        f fn(a#0: i32, b#1: i32) -> i32 {
            (a#0 + b#1)
        }: i32
        main fn() -> () {
            let p#1: P = P { y: [f(1i32, {
                let t#0: i32 = f(2i32, 3i32): i32;
                t#0
            }: i32): i32, f(f(4i32, 5i32): i32, 6i32): i32], x: f(7i32, {
                8i32
            }: i32): i32 };
            let q#2: P = P { x: 1i32, y: [{
                f(4i32, 5i32): i32;
                0i32
            }: i32; 2] };
            println!("{} {}", p#1.x: i32, f({
                9i32
            }: i32, [f(1i32, 2i32): i32, q#2.x: i32][0usize]: i32): i32);
        }: ()
    "#]]
    .assert_eq(&out);
}

#[test]
fn typed_nodes_stay_small() {
    assert!(std::mem::size_of::<crate::sema::thir::TExpr>() <= 80);
    assert_eq!(std::mem::size_of::<crate::sema::thir::TStmt>(), 12);
}
