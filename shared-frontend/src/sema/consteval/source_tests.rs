//! Constant evaluation of whole programs, through the real parser, resolver and type
//! checker.
//!
//! A [`TestDriver`] plays the staged driver for one in-memory `main.rs`: it answers
//! [`SemaEnv`] questions on demand (memoized, cycles turned into errors, a constant's
//! diagnostics and a cycle through it recorded). `check` evaluates every `const` item,
//! used or not, as rustc does, and prints `NAME = value` for each constant in source
//! order, then every diagnostic rendered as rustc renders it, so a
//! snapshot can be compared line by line with rustc's output on the same program (the
//! expectations below were). Bless with `UPDATE_EXPECT=1`.

use expect_test::{expect, Expect};

use super::*;
use crate::sema::env::SemaEnv;
use crate::sema::items::ItemAst;
use crate::sema::test_driver::{Reporting, TestDriver};
use crate::sema::typeck::{check_struct, fn_sig, struct_fields, typeck_fn};

/// Evaluates every constant of `src` and prints `NAME = value` lines, then the
/// diagnostics of the whole program as rustc renders them.
fn check(src: &str, expect: Expect) {
    let driver = TestDriver::new(src, Reporting::ConstValues);
    let mut out = String::new();
    let mut diags = driver.front_diagnostics();
    for data in driver.tree.defs() {
        let def = data.id;
        let module = driver.module_of(def);
        match &data.ast {
            ItemAst::Const(_) => {
                if let Ok(v) = driver.const_value(def) {
                    let name = driver.def_name(def);
                    let v = const_to_string_with(&v, &|d| driver.def_name(d));
                    out.push_str(&format!("{name} = {v}\n"));
                }
            }
            ItemAst::Fn(f) => {
                let mut d = fn_sig(&driver, module, f).1;
                d.extend(typeck_fn(&driver, def, module, f).diagnostics);
                diags.extend(d.into_iter().map(|d| driver.anchor(def, d)));
            }
            ItemAst::Struct(s) => {
                let mut d = struct_fields(&driver, module, s).1;
                d.extend(check_struct(&driver, def, s));
                diags.extend(d.into_iter().map(|d| driver.anchor(def, d)));
            }
            _ => {}
        }
    }
    diags.extend(driver.recorded());
    if !diags.is_empty() {
        out.push_str(crate::diag::render(&diags, &driver.krate.sources, false).trim_end());
    }
    expect.assert_eq(&out);
}

#[test]
fn arithmetic_and_casts() {
    check(
        r#"
const A: i32 = 7 / -2 + 7 % -2 * 100;
const B: u64 = (-1i32) as u64 >> 60;
const C: i32 = 3000000000u64 as i32;
const D: i64 = i64::MIN / 3 + (1 << 62);
const E: usize = !0usize ^ (1 << 63);
const F: bool = -1 < 0 && !(1u64 > 2) || 1 / 0 == 0;
const H: i32 = 1i32 << 31 >> 31;
fn main() {}
"#,
        expect![[r#"
            A = 97
            B = 15
            C = -1294967296
            D = 1537228672809129302
            E = 9223372036854775807
            F = true
            H = -1
        "#]],
    );
}

/// rustc accepts both: a negated literal is one negative literal (typeck folds it, as
/// rustc's THIR does), so nothing is negated. `-i32::MIN` still negates, and fails.
#[test]
fn negated_minimum_literal() {
    check(
        r#"
const G: i32 = -2147483648;
const G2: i64 = -(9223372036854775808);
const G3: i32 = -i32::MIN;
fn main() {}
"#,
        expect![[r#"
            G = -2147483648
            G2 = -9223372036854775808
            error[E0080]: attempt to negate `i32::MIN`, which would overflow
             --> main.rs:4:17
              |
            4 | const G3: i32 = -i32::MIN;
              |                 ^^^^^^^^^ evaluation of `G3` failed here
              |"#]],
    );
}

#[test]
fn errors_are_worded_as_rustc_words_them() {
    check(
        r#"
const A: i32 = i32::MAX + 1;
const B: i32 = 1 / 0;
const C: i32 = { let a = [1, 2, 3]; let i = 5; a[i] };
const D: i32 = 1i32 << 32;
const E: i32 = -i32::MIN;
const F: i32 = i32::MIN / -1;
const G: u64 = 1u64 << 64;
const H: i32 = 1 % 0;
mod m { pub const I: usize = 3 - 5; }
fn main() {}
"#,
        expect![[r#"
            error[E0080]: attempt to compute `i32::MAX + 1_i32`, which would overflow
             --> main.rs:2:16
              |
            2 | const A: i32 = i32::MAX + 1;
              |                ^^^^^^^^^^^^ evaluation of `A` failed here
              |

            error[E0080]: attempt to divide `1_i32` by zero
             --> main.rs:3:16
              |
            3 | const B: i32 = 1 / 0;
              |                ^^^^^ evaluation of `B` failed here
              |

            error[E0080]: index out of bounds: the length is 3 but the index is 5
             --> main.rs:4:48
              |
            4 | const C: i32 = { let a = [1, 2, 3]; let i = 5; a[i] };
              |                                                ^^^^ evaluation of `C` failed here
              |

            error[E0080]: attempt to shift left by `32_i32`, which would overflow
             --> main.rs:5:16
              |
            5 | const D: i32 = 1i32 << 32;
              |                ^^^^^^^^^^ evaluation of `D` failed here
              |

            error[E0080]: attempt to negate `i32::MIN`, which would overflow
             --> main.rs:6:16
              |
            6 | const E: i32 = -i32::MIN;
              |                ^^^^^^^^^ evaluation of `E` failed here
              |

            error[E0080]: attempt to compute `i32::MIN / -1_i32`, which would overflow
             --> main.rs:7:16
              |
            7 | const F: i32 = i32::MIN / -1;
              |                ^^^^^^^^^^^^^ evaluation of `F` failed here
              |

            error[E0080]: attempt to shift left by `64_i32`, which would overflow
             --> main.rs:8:16
              |
            8 | const G: u64 = 1u64 << 64;
              |                ^^^^^^^^^^ evaluation of `G` failed here
              |

            error[E0080]: attempt to calculate the remainder of `1_i32` with a divisor of zero
             --> main.rs:9:16
              |
            9 | const H: i32 = 1 % 0;
              |                ^^^^^ evaluation of `H` failed here
              |

            error[E0080]: attempt to compute `3_usize - 5_usize`, which would overflow
              --> main.rs:10:30
               |
            10 | mod m { pub const I: usize = 3 - 5; }
               |                              ^^^^^ evaluation of `m::I` failed here
               |"#]],
    );
}

#[test]
fn places_and_evaluation_order() {
    check(
        r#"
const A: i32 = { let mut x = 1; x += { x = 10; 1 }; x };
const B: i32 = { let mut a = [1, 2]; a[{ a = [5, 6]; 0 }] };
const C: i32 = { let mut a = [1, 2]; a[{ a = [5, 6]; 0 }] += { a = [7, 8]; 1 }; a[0] };
const D: i32 = { let mut a = [1, 2]; a[5] = 1 / 0; 0 };
const E: i64 = { let mut a = [[1i64; 2]; 3]; a[1][7] = 3; 0 };
const F: i32 = { let mut a = [i32::MAX, 2]; a[0] += 1; 0 };
fn main() {}
"#,
        expect![[r#"
            A = 11
            B = 5
            C = 6
            error[E0080]: attempt to divide `1_i32` by zero
             --> main.rs:5:45
              |
            5 | const D: i32 = { let mut a = [1, 2]; a[5] = 1 / 0; 0 };
              |                                             ^^^^^ evaluation of `D` failed here
              |

            error[E0080]: index out of bounds: the length is 2 but the index is 7
             --> main.rs:6:46
              |
            6 | const E: i64 = { let mut a = [[1i64; 2]; 3]; a[1][7] = 3; 0 };
              |                                              ^^^^^^^ evaluation of `E` failed here
              |

            error[E0080]: attempt to compute `i32::MAX + 1_i32`, which would overflow
             --> main.rs:7:45
              |
            7 | const F: i32 = { let mut a = [i32::MAX, 2]; a[0] += 1; 0 };
              |                                             ^^^^^^^^^ evaluation of `F` failed here
              |"#]],
    );
}

#[test]
fn structs_arrays_and_other_constants() {
    check(
        r#"
#[derive(Clone, Copy)]
struct Point { x: i32, y: i64 }
type P = Point;
const ORIGIN: P = Point { y: 0, x: 0 };
const N: usize = 3;
const CORNERS: [Point; N] = {
    let mut c = [ORIGIN; N];
    let mut i = 0;
    while i < N {
        c[i].x = i as i32 * 10;
        c[i].y = -(i as i64);
        i += 1;
    }
    c
};
const SUM: i64 = CORNERS[1].x as i64 + CORNERS[2].y;
fn main() {}
"#,
        expect![[r#"
            ORIGIN = Point { 0: 0, 1: 0 }
            N = 3
            CORNERS = [Point { 0: 0, 1: 0 }, Point { 0: 10, 1: -1 }, Point { 0: 20, 1: -2 }]
            SUM = 8
        "#]],
    );
}

#[test]
fn loops_with_labels_and_break_values() {
    check(
        r#"
const FIRST_SQUARE_OVER_50: u64 = {
    let mut i = 0u64;
    loop {
        i += 1;
        if i * i > 50 { break i * i; }
    }
};
const PAIRS: i32 = {
    let mut n = 0;
    let mut a = 0;
    'outer: while a < 10 {
        a += 1;
        let mut b = 0;
        loop {
            b += 1;
            if b > a { continue 'outer; }
            if a + b == 12 { break 'outer; }
            n += 1;
        }
    }
    n
};
const TRIANGLE: [u64; 5] = {
    let mut t = [0u64; 5];
    let mut i = 1usize;
    while i < 5 { t[i] = t[i - 1] + i as u64; i += 1; }
    t
};
fn main() {}
"#,
        expect![[r#"
            FIRST_SQUARE_OVER_50 = 64
            PAIRS = 20
            TRIANGLE = [0, 1, 3, 6, 10]
        "#]],
    );
}

#[test]
fn failing_and_cyclic_constants() {
    check(
        r#"
const A: i32 = 1 / 0;
const B: i32 = A + 1;
const C: i32 = D;
const D: i32 = C;
fn main() {}
"#,
        expect![[r#"
            error[E0080]: attempt to divide `1_i32` by zero
             --> main.rs:2:16
              |
            2 | const A: i32 = 1 / 0;
              |                ^^^^^ evaluation of `A` failed here
              |

            error[E0391]: cycle detected when simplifying constant for the type system `C`
             --> main.rs:4:7
              |
            4 | const C: i32 = D;
              |       ^
              |
              = note: ...which requires simplifying constant for the type system `D`...
              = note: ...which again requires simplifying constant for the type system `C`, completing the cycle"#]],
    );
}

#[test]
fn long_running_loop() {
    check(
        r#"
const A: u64 = { let mut i = 0u64; while i < 1999999 { i += 1; } i };
const B: u64 = { let mut i = 0u64; while i < 2000000 { i += 1; } i };
fn main() {}
"#,
        expect![[r#"
            A = 1999999
            error: constant evaluation is taking a long time
             --> main.rs:3:36
              |
            3 | const B: u64 = { let mut i = 0u64; while i < 2000000 { i += 1; } i };
              |                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
              |
              = note: Rill stops a constant's evaluation after 2000000 loop iterations (implementation limit `MAX_CONST_EVAL_STEPS`), as rustc's `long_running_const_eval` lint does"#]],
    );
}
