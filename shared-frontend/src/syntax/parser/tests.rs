//! Parser snapshot tests: `check(input, expect)` prints the tree and the diagnostics.
//! Bless with `UPDATE_EXPECT=1 cargo test -p shared-frontend --lib syntax::parser`.

use expect_test::{expect, Expect};

use super::parse_file;
use crate::diag::Diagnostic;
use crate::syntax::dump::ast_to_string;

fn diag_line(text: &str, d: &Diagnostic) -> String {
    match d.labels.first() {
        Some(l) => {
            let (lo, hi) = (l.span.lo as usize, l.span.hi as usize);
            let snippet = text.get(lo..hi).unwrap_or("");
            format!("error {lo}..{hi} {snippet:?}: {}\n", d.message)
        }
        None => format!("error: {}\n", d.message),
    }
}

fn check(input: &str, expect: Expect) {
    let (ast, diags) = parse_file(input);
    let mut out = ast_to_string(&ast);
    for d in &diags {
        out.push_str(&diag_line(input, d));
    }
    expect.assert_eq(&out);
}

#[test]
fn smoke() {
    check(
        r#"
/// doc
pub fn main(mut x: i32, y: [i64; 2 * N]) -> bool {
    let mut a: u64 = 0x1F_u64;
    a += 1 + 2 * 3 - -x as i64;
    if a < b { a = b = c; } else if c { loop { break 'l 5; } }
    'l: for i in 0..=10 { continue 'l; }
    println!("a {} b {{}}\n", a);
    p.x[1](2);
    S { a: 1, b }
}
"#,
        expect![[r#"
            pub Fn main @1 0..294
              Param mut x 20..30
                Type i32 27..30
              Param y 32..47
                Type [;] 35..47
                  Type i64 36..39
                  Binary * 41..46
                    Int 2 41..42
                    Path N 45..46
              Ret
                Type bool 52..56
              Block 57..294
                Let mut a 63..89
                  Type u64 74..77
                  Int 0x1fu64 80..88
                Semi 94..121
                  AssignOp += 94..120
                    Path a 94..95
                    Binary - 99..120
                      Binary + 99..108
                        Int 1 99..100
                        Binary * 103..108
                          Int 2 103..104
                          Int 3 107..108
                      Cast 111..120
                        Unary - 111..113
                          Path x 112..113
                        Type i64 117..120
                Expr 126..184
                  If 126..184
                    Binary < 129..134
                      Path a 129..130
                      Path b 133..134
                    Block 135..149
                      Semi 137..147
                        Assign 137..146
                          Path a 137..138
                          Assign 141..146
                            Path b 141..142
                            Path c 145..146
                    Else
                      If 155..184
                        Path c 158..159
                        Block 160..184
                          Tail
                            Loop 162..182
                              Block 167..182
                                Semi 169..180
                                  Break 'l 169..179
                                    Int 5 178..179
                Expr 189..225
                  For 'l i ..= 189..225
                    Int 0 202..203
                    Int 10 206..208
                    Block 209..225
                      Semi 211..223
                        Continue 'l 211..222
                Semi 230..259
                  Println "a " {} " b {}\n" 230..258
                    Path a 256..257
                Semi 264..274
                  Call 264..273
                    Index 264..270
                      Field .x 264..267
                        Path p 264..265
                      Int 1 268..269
                    Int 2 271..272
                Tail
                  StructLit S 279..292
                    FieldInit a 283..284
                      Int 1 286..287
                    FieldInit b (shorthand) 289..290
                      Path b 289..290
        "#]],
    );
}

#[test]
fn precedence_and_associativity() {
    check(
        "const C: i32 = 1 | 2 ^ 3 & 4 << 5 + 6 * 7 as i64 == 8 && 9 != 10 || !-11;",
        expect![[r#"
            Const C @0 0..73
              Type i32 9..12
              Binary || 15..72
                Binary && 15..64
                  Binary == 15..53
                    Binary | 15..48
                      Int 1 15..16
                      Binary ^ 19..48
                        Int 2 19..20
                        Binary & 23..48
                          Int 3 23..24
                          Binary << 27..48
                            Int 4 27..28
                            Binary + 32..48
                              Int 5 32..33
                              Binary * 36..48
                                Int 6 36..37
                                Cast 40..48
                                  Int 7 40..41
                                  Type i64 45..48
                    Int 8 52..53
                  Binary != 57..64
                    Int 9 57..58
                    Int 10 62..64
                Unary ! 68..72
                  Unary - 69..72
                    Int 11 70..72
        "#]],
    );
    check(
        "const C: i32 = a - b - c / d / e % f;",
        expect![[r#"
        Const C @0 0..37
          Type i32 9..12
          Binary - 15..36
            Binary - 15..20
              Path a 15..16
              Path b 19..20
            Binary % 23..36
              Binary / 23..32
                Binary / 23..28
                  Path c 23..24
                  Path d 27..28
                Path e 31..32
              Path f 35..36
    "#]],
    );
    check(
        "fn f() { a = b += c -= d; a <<= 1 >> 2; }",
        expect![[r#"
        Fn f @0 0..41
          Block 7..41
            Semi 9..25
              Assign 9..24
                Path a 9..10
                AssignOp += 13..24
                  Path b 13..14
                  AssignOp -= 18..24
                    Path c 18..19
                    Path d 23..24
            Semi 26..39
              AssignOp <<= 26..38
                Path a 26..27
                Binary >> 32..38
                  Int 1 32..33
                  Int 2 37..38
    "#]],
    );
}

#[test]
fn comparison_chains_and_casts() {
    check(
        "fn f() { a < b < c; a == b == c; a < b && b < c; }",
        expect![[r#"
        Fn f @0 0..50
          Block 7..50
            Semi 9..19
              Binary < 9..18
                Binary < 9..14
                  Path a 9..10
                  Path b 13..14
                Path c 17..18
            Semi 20..32
              Binary == 20..31
                Binary == 20..26
                  Path a 20..21
                  Path b 25..26
                Path c 30..31
            Semi 33..48
              Binary && 33..47
                Binary < 33..38
                  Path a 33..34
                  Path b 37..38
                Binary < 42..47
                  Path b 42..43
                  Path c 46..47
        error 15..16 "<": comparison operators cannot be chained
        error 27..29 "==": comparison operators cannot be chained
    "#]],
    );
    check(
        "fn f() { x as i32 < y; x as i32 << y; (x as i32) < y; a<-1; a < -1; }",
        expect![[r#"
        Fn f @0 0..69
          Block 7..69
            Semi 9..22
              Binary < 9..21
                Cast 9..17
                  Path x 9..10
                  Type i32 14..17
                Path y 20..21
            Semi 23..37
              Binary << 23..36
                Cast 23..31
                  Path x 23..24
                  Type i32 28..31
                Path y 35..36
            Semi 38..53
              Binary < 38..52
                Paren 38..48
                  Cast 39..47
                    Path x 39..40
                    Type i32 44..47
                Path y 51..52
            Semi 54..59
              Binary < 54..58
                Path a 54..55
                Unary - 56..58
                  Int 1 57..58
            Semi 60..67
              Binary < 60..66
                Path a 60..61
                Unary - 64..66
                  Int 1 65..66
        error 18..19 "<": `<` is interpreted as a start of generic arguments for `i32`, not a comparison
        error 32..34 "<<": `<<` is interpreted as a start of generic arguments for `i32`, not a shift
        error 55..57 "<-": unexpected token: `<-`
    "#]],
    );
}

#[test]
fn block_like_statements() {
    check(
        "fn f() { {1} + 1; {p}.x; if c {} - 1; loop {}[0]; {f}(1); {p}.x + 1 }",
        expect![[r#"
        Fn f @0 0..69
          Block 7..69
            Expr 9..12
              Block 9..12
                Tail
                  Int 1 10..11
            Semi 13..17
              Int 1 15..16
            Semi 18..24
              Field .x 18..23
                Block 18..21
                  Tail
                    Path p 19..20
            Expr 25..32
              If 25..32
                Path c 28..29
                Block 30..32
            Semi 33..37
              Unary - 33..36
                Int 1 35..36
            Expr 38..45
              Loop 38..45
                Block 43..45
            Semi 45..49
              Array 45..48
                Int 0 46..47
            Expr 50..53
              Block 50..53
                Tail
                  Path f 51..52
            Semi 53..57
              Paren 53..56
                Int 1 54..55
            Tail
              Binary + 58..67
                Field .x 58..63
                  Block 58..61
                    Tail
                      Path p 59..60
                Int 1 66..67
        error 13..14 "+": leading `+` is not supported
    "#]],
    );
    check(
        "fn f() -> i32 { if c { 1 } else { 2 } }",
        expect![[r#"
        Fn f @0 0..39
          Ret
            Type i32 10..13
          Block 14..39
            Tail
              If 16..37
                Path c 19..20
                Block 21..26
                  Tail
                    Int 1 23..24
                Else
                  Block 32..37
                    Tail
                      Int 2 34..35
    "#]],
    );
    check(
        "fn f() { match x { _ => 1 } - 1; unsafe { } * 2 }",
        expect![[r#"
        Fn f @0 0..49
          Block 7..49
            Expr 9..27
              Missing 9..27
            Semi 28..32
              Unary - 28..31
                Int 1 30..31
            Expr 33..43
              Missing 33..43
            Tail
              Missing 44..47
        error 9..27 "match x { _ => 1 }": unsupported: `match` expressions
        error 33..43 "unsafe { }": unsupported: `unsafe` blocks
        error 44..47 "* 2": unsupported: dereference `*`
    "#]],
    );
}

#[test]
fn struct_literal_restriction() {
    check(
        "fn f() { if x == S { a: 1 } {} while a {} for i in 0..n {} if (S { a: 1 }).a {} }",
        expect![[r#"
        Fn f @0 0..81
          Block 7..81
            Expr 9..30
              If 9..30
                Binary == 12..27
                  Path x 12..13
                  StructLit S 17..27
                    FieldInit a 21..22
                      Int 1 24..25
                Block 28..30
            Expr 31..41
              While 31..41
                Path a 37..38
                Block 39..41
            Expr 42..58
              For i .. 42..58
                Int 0 51..52
                Path n 54..55
                Block 56..58
            Tail
              If 59..79
                Field .a 62..76
                  Paren 62..74
                    StructLit S 63..73
                      FieldInit a 67..68
                        Int 1 70..71
                Block 77..79
        error 17..27 "S { a: 1 }": struct literals are not allowed here
    "#]],
    );
}

#[test]
fn items() {
    check(
        r#"//! crate docs
/// A point.
#[derive(Clone, Copy)]
pub struct P { pub x: i64, /** y */ y: [i32; 4], }
#[derive(Copy, Clone,)]
struct Q {}
pub const N: usize = 4;
type A = [[P; N]; 2];
type U = ();
mod m;
pub mod inner { //! inner docs
    pub fn g() {}
    mod deeper { use super::super::P; }
}
use crate::inner::{self, g as h, deeper::{}};
use a::b;
use {x, y::z};
fn f(a: i32, mut b: crate::A) -> U {}
"#,
        expect![[r#"
            pub Struct P @15 0..86
              Field pub x 51..61
                Type i64 58..61
              Field y 63..83
                Type [;] 75..83
                  Type i32 76..79
                  Int 4 81..82
            Struct Q @102 0..35
            pub Const N @138 0..23
              Type usize 13..18
              Int 4 21..22
            TypeAlias A @162 0..21
              Type [;] 9..20
                Type [;] 10..16
                  Type P 11..12
                  Path N 14..15
                Int 2 18..19
            TypeAlias U @184 0..12
              Type () 9..11
            Mod m; @197 0..6
            pub Mod inner @204 0..90
              pub Fn g @239 0..13
                Block 11..13
              Mod deeper @257 0..35
                Use @270 0..20
                  super::super::P 4..19
            Use @295 0..45
              crate::inner::{} 4..44
                self 19..23
                g as h 25..31
                deeper::{} 33..43
            Use @341 0..9
              a::b 4..8
            Use @351 0..14
              {} 4..13
                x 5..6
                y::z 8..12
            Fn f @366 0..37
              Param a 5..11
                Type i32 8..11
              Param mut b 13..28
                Type crate::A 20..28
              Ret
                Type U 33..34
              Block 35..37
        "#]],
    );
}

#[test]
fn doc_comments() {
    check(
        "fn f() {} //! late\nfn g() {}",
        expect![[r#"
        Fn f @0 0..9
          Block 7..9
        Fn g @10 0..18
          Block 16..18
        error 10..18 "//! late": expected outer doc comment
    "#]],
    );
    check(
        "/// dangling",
        expect![[r#"
        error 0..12 "/// dangling": expected item after doc comment
    "#]],
    );
    check(
        "struct S { a: i32, /// nothing\n}",
        expect![[r#"
        Struct S @0 0..32
          Field a 11..17
            Type i32 14..17
        error 19..30 "/// nothing": found a documentation comment that doesn't document anything
        error 0..8 "struct S": unsupported: structs without `#[derive(Clone, Copy)]`
    "#]],
    );
    check(
        "fn f() { //! ok here\n let x = 1; /// doc on stmt\n x; /// dangling\n}",
        expect![[r#"
        Fn f @0 0..67
          Block 7..67
            Let x 22..32
              Int 1 30..31
            Semi 33..52
              Path x 50..51
        error 53..65 "/// dangling": found a documentation comment that doesn't document anything
    "#]],
    );
    check(
        "fn f() { if c { //! not here\n } }",
        expect![[r#"
        Fn f @0 0..33
          Block 7..33
            Tail
              If 9..31
                Path c 12..13
                Block 14..31
        error 16..28 "//! not here": an inner attribute is not permitted in this context
    "#]],
    );
    check(
        "//// plain\n/**/ /*** plain */ fn f() {}",
        expect![[r#"
        Fn f @30 0..9
          Block 7..9
    "#]],
    );
}

#[test]
fn attributes() {
    check(
        "#[derive(Clone, Copy)] fn f() {}",
        expect![[r##"
        Fn f @0 0..32
          Block 30..32
        error 0..22 "#[derive(Clone, Copy)]": unsupported: `#[derive]` on items other than structs
    "##]],
    );
    check(
        "#[derive(Clone)] struct S {}",
        expect![[r##"
        Struct S @0 0..28
        error 0..16 "#[derive(Clone)]": unsupported: attribute `#[derive(Clone)]`
        error 0..25 "#[derive(Clone)] struct S": unsupported: structs without `#[derive(Clone, Copy)]`
    "##]],
    );
    check(
        "#[inline] fn f() {} #![allow(x)] struct T { a: i32 }",
        expect![[r##"
        Fn f @0 0..19
          Block 17..19
        Struct T @20 0..32
          Field a 24..30
            Type i32 27..30
        error 0..9 "#[inline]": unsupported: attribute `#[inline]`
        error 20..32 "#![allow(x)]": unsupported: inner attributes
        error 20..41 "#![allow(x)] struct T": unsupported: structs without `#[derive(Clone, Copy)]`
    "##]],
    );
    check(
        "#![no_std]\n//! docs\nfn f() {}",
        expect![[r##"
        Fn f @20 0..9
          Block 7..9
        error 0..10 "#![no_std]": unsupported: inner attributes
    "##]],
    );
}

/// A `println!` inside another's arguments, and paths in a struct literal's fields or an
/// array type's length, put their pieces and segments in the item's arena after those of
/// the enclosing node, which keep theirs.
#[test]
fn nested_lists_in_the_arena() {
    check(
        r#"fn f() { println!("a{}b", { println!("c{}", x::y); super::z }); let v: [m::T; n::N] = a::S { f: crate::w }; }"#,
        expect![[r#"
            Fn f @0 0..109
              Block 7..109
                Semi 9..63
                  Println "a" {} "b" 9..62
                    Block 26..61
                      Semi 28..50
                        Println "c" {} 28..49
                          Path x::y 44..48
                      Tail
                        Path super::z 51..59
                Let v 64..107
                  Type [;] 71..83
                    Type m::T 72..76
                    Path n::N 78..82
                  StructLit a::S 86..106
                    FieldInit f 93..94
                      Path crate::w 96..104
        "#]],
    );
}

#[test]
fn println() {
    check(
        r#"fn f() { println!(); println!("x"); println!("{} + {} = {}", a, b, a + b,); println!("a{{b}}c\n\t\\\0\'\"\x41\u{1F600}\u{e9} e\
            f"); println!(r"raw {} \n", 1); }"#,
        expect![[r#"
            Fn f @0 0..173
              Block 7..173
                Semi 9..20
                  Println 9..19
                Semi 21..35
                  Println "x" 21..34
                Semi 36..75
                  Println {} " + " {} " = " {} 36..74
                    Path a 61..62
                    Path b 64..65
                    Binary + 67..72
                      Path a 67..68
                      Path b 71..72
                Semi 76..144
                  Println "a{b}c\n\t\\\0'\"A😀é ef" 76..143
                Semi 145..171
                  Println "raw " {} " \\n" 145..170
                    Int 1 168..169
        "#]],
    );
    check(
        r#"fn f() { println!("{x} {:?} { }", a); println!("{", 1); println!("}"); println!("{} {}", 1); println!("{}", 1, 2); println!("", 1, 2); println!("{} {} {}"); println!(x); println!("{}", a = 1); println!("\q\x80\u{110000}\u{}"); }"#,
        expect![[r#"
            Fn f @0 0..228
              Block 7..228
                Semi 9..37
                  Println "  " 9..36
                    Path a 34..35
                Semi 38..55
                  Println 38..54
                    Int 1 52..53
                Semi 56..70
                  Println 56..69
                Semi 71..92
                  Println {} " " {} 71..91
                    Int 1 89..90
                Semi 93..114
                  Println {} 93..113
                    Int 1 108..109
                    Int 2 111..112
                Semi 115..134
                  Println 115..133
                    Int 1 128..129
                    Int 2 131..132
                Semi 135..156
                  Println {} " " {} " " {} 135..155
                Semi 157..169
                  Println 157..168
                Semi 170..192
                  Println {} 170..191
                    Assign 185..190
                      Path a 185..186
                      Int 1 189..190
                Semi 193..226
                  Println 193..225
            error 18..32 "\"{x} {:?} { }\"": unsupported: format specification `{x}`
            error 18..32 "\"{x} {:?} { }\"": unsupported: format specification `{:?}`
            error 18..32 "\"{x} {:?} { }\"": unsupported: format specification `{ }`
            error 47..50 "\"{\"": invalid format string: expected `}` but string was terminated
            error 65..68 "\"}\"": invalid format string: unmatched `}` found
            error 80..87 "\"{} {}\"": 2 positional arguments in format string, but there is 1 argument
            error 111..112 "2": argument never used
            error 128..129 "1": multiple unused formatting arguments
            error 144..154 "\"{} {} {}\"": 3 positional arguments in format string, but no arguments were given
            error 166..167 "x": format argument must be a string literal
            error 185..190 "a = 1": unsupported: named arguments in `println!`
            error 203..205 "\\q": unknown character escape: `q`
            error 205..209 "\\x80": out of range hex escape
            error 209..219 "\\u{110000}": invalid unicode character escape
            error 219..223 "\\u{}": invalid unicode character escape
        "#]],
    );
}

#[test]
fn literals() {
    check(
        "const C: i32 = [0, 010, 1_000, 0xff, 0xFFusize, 0o17, 0b1010_1010i64, 5u64, 7i32, 8u8, 340282366920938463463374607431768211456, 0x_ff_u64];",
        expect![[r#"
            Const C @0 0..139
              Type i32 9..12
              Array 15..138
                Int 0 16..17
                Int 10 19..22
                Int 1000 24..29
                Int 0xff 31..35
                Int 0xffusize 37..46
                Int 15 48..52
                Int 170i64 54..68
                Int 5u64 70..74
                Int 7i32 76..80
                Int 8u8(other) 82..85
                Int <overflow> 87..126
                Int 0xffu64 128..137
        "#]],
    );
    check(
        "fn f() { 1.5; 1e3; 2f32; 'c'; b'x'; \"s\"; b\"s\"; 0x; 0b102; 1u7; 1foo; 0o9; }",
        expect![[r#"
        Fn f @0 0..75
          Block 7..75
            Semi 9..13
              Missing 9..12
            Semi 14..18
              Missing 14..17
            Semi 19..24
              Missing 19..23
            Semi 25..29
              Missing 25..28
            Semi 30..35
              Missing 30..34
            Semi 36..40
              Missing 36..39
            Semi 41..46
              Missing 41..45
            Semi 47..50
              Int 0x0 47..49
            Semi 51..57
              Int 0 51..56
            Semi 58..62
              Int 1 58..61
            Semi 63..68
              Int 1 63..67
            Semi 69..73
              Int 0 69..72
        error 9..12 "1.5": unsupported: floating-point literals
        error 14..17 "1e3": unsupported: floating-point literals
        error 19..23 "2f32": unsupported: floating-point literals
        error 25..28 "'c'": unsupported: character literals
        error 30..34 "b'x'": unsupported: byte literals
        error 36..39 "\"s\"": unsupported: string literals outside `println!`
        error 41..45 "b\"s\"": unsupported: byte string literals
        error 47..49 "0x": no valid digits found for number
        error 51..56 "0b102": invalid digit for a base 2 literal
        error 59..61 "u7": invalid width `7` for integer literal
        error 64..67 "foo": invalid suffix `foo` for number literal
        error 69..72 "0o9": invalid digit for a base 8 literal
    "#]],
    );
}

#[test]
fn keywords_as_identifiers() {
    check("fn try() {} fn f(fn: i32) { let yield = 1; let match = 2; } struct S { type: i32 } const async: i32 = 1;", expect![[r#"
        Fn try @0 0..11
          Block 9..11
        Fn f @12 0..47
          Param fn 5..12
            Type i32 9..12
          Block 14..47
            Let yield 16..30
              Int 1 28..29
            Let match 31..45
              Int 2 43..44
        Struct S @60 0..22
          Field type 11..20
            Type i32 17..20
        error 3..6 "try": expected identifier, found reserved keyword `try`
        error 17..19 "fn": expected identifier, found keyword `fn`
        error 32..37 "yield": expected identifier, found reserved keyword `yield`
        error 47..52 "match": expected identifier, found keyword `match`
        error 71..75 "type": expected identifier, found keyword `type`
        error 60..68 "struct S": unsupported: structs without `#[derive(Clone, Copy)]`
        error 83..88 "const": unsupported: `const fn`
        error 89..94 "async": unsupported: `async` functions
    "#]]);
    check(
        "fn f() { let r#x = 1; }",
        expect![[r#"
        Fn f @0 0..23
          Block 7..23
            Let x 9..21
              Int 1 19..20
        error 13..16 "r#x": unsupported: raw identifiers
    "#]],
    );
}

#[test]
fn unsupported_items() {
    check(
        r#"impl S { fn f(&self) {} }
trait T {}
enum E { A, B }
static X: i32 = 1;
extern "C" { fn g(); }
unsafe fn u() {}
async fn a() {}
const fn c() {}
macro_rules! m { () => {} }
union U { a: i32 }
fn gen<T>(x: T) where T: Copy {}
fn s(self) {}
fn n() -> ! { loop {} }
pub(crate) fn p() {}
#[derive(Clone, Copy)] struct Tup(i32);
#[derive(Clone, Copy)] struct Unit;
fn ok() {}
"#,
        expect![[r#"
            Fn u @95 0..16
              Block 14..16
            Fn a @112 0..15
              Block 13..15
            Fn c @128 0..15
              Block 13..15
            Fn gen @191 0..32
              Param x 10..14
                Type T 13..14
              Block 30..32
            Fn s @224 0..13
              Block 11..13
            Fn n @238 0..23
              Ret
                Type ! 10..11
              Block 12..23
                Tail
                  Loop 14..21
                    Block 19..21
            pub Fn p @262 0..20
              Block 18..20
            Struct Tup @283 0..39
            Struct Unit @323 0..35
            Fn ok @359 0..10
              Block 8..10
            error 0..25 "impl S { fn f(&self) {} }": unsupported: `impl` blocks
            error 26..36 "trait T {}": unsupported: traits
            error 37..52 "enum E { A, B }": unsupported: enums
            error 53..71 "static X: i32 = 1;": unsupported: statics
            error 72..94 "extern \"C\" { fn g(); }": unsupported: `extern` items
            error 95..101 "unsafe": unsupported: `unsafe` functions
            error 112..117 "async": unsupported: `async` functions
            error 128..133 "const": unsupported: `const fn`
            error 144..171 "macro_rules! m { () => {} }": unsupported: macro `macro_rules!`
            error 172..190 "union U { a: i32 }": unsupported: unions
            error 197..200 "<T>": unsupported: generics
            error 207..220 "where T: Copy": unsupported: `where` clauses
            error 229..233 "self": `self` parameter is only allowed in associated functions
            error 248..249 "!": unsupported: the never type `!`
            error 262..272 "pub(crate)": unsupported: restricted visibility
            error 306..322 "struct Tup(i32);": unsupported: tuple structs
            error 346..358 "struct Unit;": unsupported: unit structs
        "#]],
    );
}

#[test]
fn unsupported_expressions() {
    check(
        r#"fn f() {
    let x: ! = return;
    let (a, b) = (1, 2);
    let y: &i32 = &x;
    let z = |a| a + 1;
    let s = "str";
    if let Some(x) = y {}
    while let x = 1 {}
    let c = x.method(1);
    let t = x.0;
    let v = vec![1, 2];
    let q = x?;
    let r = 0..10;
    _ = 5;
    let w = _;
    'b: { }
    for (i, j) in 0..1 {}
    for x in arr {}
    let e;
    let k = 1 else { return; };
    fn inner() {}
    let u: Vec<i32> = Vec::<i32>::new();
    let m = Self::X;
}"#,
        expect![[r#"
            Fn f @0 0..479
              Block 7..479
                Let x 13..31
                  Type ! 20..21
                  Return 24..30
                Let _ 36..56
                  Missing 49..55
                Let y 61..78
                  Type <error> 68..72
                  Missing 75..77
                Let z 83..101
                  Missing 91..100
                Let s 106..120
                  Missing 114..119
                Expr 125..146
                  If 125..146
                    Missing 128..143
                    Block 144..146
                Expr 151..169
                  While 151..169
                    Missing 157..166
                    Block 167..169
                Let c 174..194
                  Missing 182..193
                Let t 199..211
                  Missing 207..210
                Let v 216..235
                  Missing 224..234
                Let q 240..251
                  Missing 248..250
                Let r 256..270
                  Missing 264..269
                Semi 275..281
                  Assign 275..280
                    Missing 275..276
                    Int 5 279..280
                Let w 286..296
                  Missing 294..295
                Expr 301..308
                  Missing 301..308
                Expr 313..334
                  For _ .. 313..334
                    Int 0 327..328
                    Int 1 330..331
                    Block 332..334
                Expr 339..354
                  For x .. 339..354
                    Path arr 348..351
                    Missing 352..352
                    Block 352..354
                Let e 359..365
                  Missing 364..364
                Let k 370..397
                  Int 1 378..379
                Let u 420..456
                  Type <error> 427..435
                  Call 438..455
                    Path Vec::new 438..453
                Let m 461..477
                  Path Self::X 469..476
            error 20..21 "!": unsupported: the never type `!`
            error 40..46 "(a, b)": unsupported: patterns other than `x`, `mut x` and `_` in `let`
            error 49..55 "(1, 2)": unsupported: tuples
            error 68..72 "&i32": unsupported: references
            error 75..77 "&x": unsupported: references
            error 91..100 "|a| a + 1": unsupported: closures
            error 114..119 "\"str\"": unsupported: string literals outside `println!`
            error 128..143 "let Some(x) = y": unsupported: `if let`
            error 157..166 "let x = 1": unsupported: `while let`
            error 184..193 "method(1)": unsupported: method calls
            error 209..210 "0": unsupported: tuple fields
            error 224..234 "vec![1, 2]": unsupported: macro `vec!`
            error 249..250 "?": unsupported: the `?` operator
            error 264..269 "0..10": unsupported: range expressions outside `for` loops
            error 275..278 "_ =": unsupported: assignment to `_`
            error 294..295 "_": in expressions, `_` can only be used on the left-hand side of an assignment
            error 301..308 "'b: { }": unsupported: labeled blocks
            error 317..323 "(i, j)": unsupported: patterns other than identifiers in `for`
            error 348..351 "arr": unsupported: `for` loops over anything but a range `a..b` or `a..=b`
            error 359..365 "let e;": unsupported: `let` without an initializer
            error 380..396 "else { return; }": unsupported: `let`-`else`
            error 402..415 "fn inner() {}": unsupported: items inside function bodies
            error 430..435 "<i32>": unsupported: generic arguments
            error 443..448 "<i32>": unsupported: generic arguments
            error 469..473 "Self": unsupported: `Self`
        "#]],
    );
}

#[test]
fn error_recovery() {
    check(
        r#"fn a() { let x = ; let y = 1 }
fn b( { }
struct S { a: i32 b: i32 }
fn c() { f(1 2); g(,); let z = [1, 2; }
const K: i32 = 1 +;
fn d() -> i32 { 5 }
) }
garbage here
fn e() {}
"#,
        expect![[r#"
            Fn a @0 0..30
              Block 7..30
                Let x 9..18
                  Missing 17..17
                Let y 19..28
                  Int 1 27..28
            Fn b @31 0..9
              Block 6..9
            Struct S @41 0..26
              Field a 11..17
                Type i32 14..17
            Fn c @68 0..39
              Block 7..39
                Semi 9..16
                  Call 9..15
                    Path f 9..10
                    Int 1 11..12
                Semi 17..22
                  Call 17..21
                    Path g 17..18
                    Missing 19..19
                Let z 23..37
                  Array 31..36
                    Int 1 32..33
                    Int 2 35..36
            Const K @108 0..19
              Type i32 9..12
              Binary + 15..18
                Int 1 15..16
                Missing 18..18
            Fn d @128 0..19
              Ret
                Type i32 10..13
              Block 14..19
                Tail
                  Int 5 16..17
            Fn e @165 0..9
              Block 7..9
            error 17..18 ";": expected expression, found `;`
            error 29..30 "}": expected one of `.`, `;`, `?`, `else`, or an operator, found `}`
            error 37..38 "{": expected `)`, found `{`
            error 59..60 "b": expected `,`, or `}`, found `b`
            error 41..49 "struct S": unsupported: structs without `#[derive(Clone, Copy)]`
            error 81..82 "2": expected one of `)`, `,`, `.`, `?`, or an operator, found `2`
            error 87..88 ",": expected expression, found `,`
            error 104..105 ";": expected one of `]`, `,`, `.`, `?`, or an operator, found `;`
            error 126..127 ";": expected expression, found `;`
            error 148..149 ")": unexpected closing delimiter: `)`
            error 150..151 "}": unexpected closing delimiter: `}`
            error 152..159 "garbage": expected item, found `garbage`
        "#]],
    );
    check(
        "fn f() { let x = 1",
        expect![[r#"
        Fn f @0 0..18
          Block 7..18
            Let x 9..18
              Int 1 17..18
        error 18..18 "": expected one of `.`, `;`, `?`, `else`, or an operator, found `<eof>`
    "#]],
    );
    check(
        "fn f() { (",
        expect![[r#"
        Fn f @0 0..10
          Block 7..10
            Expr 9..10
              Paren 9..10
                Missing 10..10
        error 10..10 "": expected expression, found `<eof>`
    "#]],
    );
    check(
        "mod m { fn f() {}",
        expect![[r#"
        Mod m @0 0..17
          Fn f @8 0..9
            Block 7..9
        error 17..17 "": this file contains an unclosed delimiter
    "#]],
    );
    check(
        "const X = 5; const Y: i32; type T; fn g();",
        expect![[r#"
        Const X @0 0..12
          Type <error> 7..7
          Int 5 10..11
        Const Y @13 0..13
          Type i32 9..12
          Missing 12..12
        TypeAlias T @27 0..7
          Type <error> 6..6
        Fn g @35 0..7
          Missing 6..7
        error 7..7 "": missing type for `const` item
        error 13..25 "const Y: i32": free constant item without body
        error 27..33 "type T": free type alias without body
        error 41..42 ";": free function without a body
    "#]],
    );
    check(
        "fn main() { let a = 1 let b = 2; }",
        expect![[r#"
        Fn main @0 0..34
          Block 10..34
            Let a 12..21
              Int 1 20..21
            Let b 22..32
              Int 2 30..31
        error 22..25 "let": expected one of `.`, `;`, `?`, `else`, or an operator, found keyword `let`
    "#]],
    );
}

#[test]
fn labels_and_jumps() {
    check(
        "fn f() -> i32 { 'outer: loop { 'inner: while true { break 'outer 5; } continue 'outer; } return; return 1 + 2; loop { break } 'x while c {} 'y: 5 }",
        expect![[r#"
            Fn f @0 0..147
              Ret
                Type i32 10..13
              Block 14..147
                Expr 16..88
                  Loop 'outer 16..88
                    Block 29..88
                      Expr 31..69
                        While 'inner 31..69
                          Bool true 45..49
                          Block 50..69
                            Semi 52..67
                              Break 'outer 52..66
                                Int 5 65..66
                      Semi 70..86
                        Continue 'outer 70..85
                Semi 89..96
                  Return 89..95
                Semi 97..110
                  Return 97..109
                    Binary + 104..109
                      Int 1 104..105
                      Int 2 108..109
                Expr 111..125
                  Loop 111..125
                    Block 116..125
                      Tail
                        Break 118..123
                Expr 126..145
                  Missing 126..128
            error 126..128 "'x": expected `while`, `for`, `loop` or `{` after a label
            error 129..134 "while": expected `;`, found keyword `while`
        "#]],
    );
}

#[test]
fn lexical_errors() {
    check(
        "fn f() { let x = \"abc; }",
        expect![[r#"
        Fn f @0 0..24
          Block 7..24
            Let x 9..24
              Missing 17..24
        error 17..24 "\"abc; }": unterminated double quote string
        error 24..24 "": expected one of `.`, `;`, `?`, `else`, or an operator, found `<eof>`
    "#]],
    );
    check(
        "fn f() { /* unterminated",
        expect![[r#"
        Fn f @0 0..8
          Block 7..8
        error 9..24 "/* unterminated": unterminated block comment
        error 24..24 "": this file contains an unclosed delimiter
    "#]],
    );
    check(
        "fn f() { let x = € + \0 1; foo\"bar\"; 'a; '1x: loop {} }",
        expect![[r#"
        Fn f @0 0..56
          Block 7..56
            Let x 9..27
              Int 1 25..26
            Expr 28..37
              Path foo 28..31
            Semi 38..41
              Missing 38..40
            Tail
              Loop '1x 42..54
                Block 52..54
        error 17..20 "€": unknown start of token: \u{20ac}
        error 23..24 "\0": unknown start of token: \u{0}
        error 28..31 "foo": prefix `foo` is unknown
        error 42..45 "'1x": lifetimes cannot start with a number
        error 21..22 "+": leading `+` is not supported
        error 31..36 "\"bar\"": expected `;`, found `"bar"`
        error 38..40 "'a": expected `while`, `for`, `loop` or `{` after a label
    "#]],
    );
}

#[test]
fn missing_semicolon_position() {
    // On a new line, rustc points just after the previous token.
    check(
        "fn f() {\n    let a = 1\n    let b = 2;\n    a\n    b\n}",
        expect![[r#"
            Fn f @0 0..51
              Block 7..51
                Let a 13..22
                  Int 1 21..22
                Let b 27..37
                  Int 2 35..36
                Expr 42..43
                  Path a 42..43
                Tail
                  Path b 48..49
            error 22..22 "": expected `;`, found keyword `let`
            error 43..43 "": expected `;`, found `b`
        "#]],
    );
}

#[test]
fn qualified_paths_and_other_expression_starts() {
    check(
        "fn f() { <i64>::MAX; <T as X>::f(); +1; ..5; #[a] 1; let x = let; }",
        expect![[r##"
            Fn f @0 0..67
              Block 7..67
                Semi 9..20
                  Missing 9..19
                Semi 21..35
                  Call 21..34
                    Missing 21..32
                Semi 36..39
                  Int 1 37..38
                Semi 40..44
                  Missing 40..43
                Semi 45..52
                  Int 1 50..51
                Let x 53..65
                  Missing 61..64
            error 9..19 "<i64>::MAX": unsupported: qualified paths `<T>::…`
            error 21..32 "<T as X>::f": unsupported: qualified paths `<T>::…`
            error 36..37 "+": leading `+` is not supported
            error 40..43 "..5": unsupported: range expressions outside `for` loops
            error 45..49 "#[a]": unsupported: attributes on expressions
            error 61..64 "let": expected expression, found `let` statement
        "##]],
    );
}

#[test]
fn runs_of_one_error_are_reported_once() {
    check(
        "fn f() {} ) ) ) pub pub pub fn g(a: i32,,,,) {}",
        expect![[r#"
        Fn f @0 0..9
          Block 7..9
        pub Fn g @24 0..23
          Param a 9..15
            Type i32 12..15
          Block 21..23
        error 10..11 ")": unexpected closing delimiter: `)`
        error 20..23 "pub": expected item, found keyword `pub`
        error 40..41 ",": expected identifier, found `,`
    "#]],
    );
}

#[test]
fn wildcard_for_binding() {
    check(
        r#"fn f() {
    for _ in 0..n {}
    'l: for _ in a()..=b + 1 { for _ in 0..2 { break 'l; } }
    for mut _ in 0..1 {}
    for _x in 0..1 {}
    for _: i32 in 0..1 {}
    let mut _ = 1;
}"#,
        expect![[r#"
            Fn f @0 0..184
              Block 7..184
                Expr 13..29
                  For _ .. 13..29
                    Int 0 22..23
                    Path n 25..26
                    Block 27..29
                Expr 34..90
                  For 'l _ ..= 34..90
                    Call 47..50
                      Path a 47..48
                    Binary + 53..58
                      Path b 53..54
                      Int 1 57..58
                    Block 59..90
                      Tail
                        For _ .. 61..88
                          Int 0 70..71
                          Int 2 73..74
                          Block 75..88
                            Semi 77..86
                              Break 'l 77..85
                Expr 95..115
                  For _ .. 95..115
                    Int 0 108..109
                    Int 1 111..112
                    Block 113..115
                Expr 120..137
                  For _x .. 120..137
                    Int 0 130..131
                    Int 1 133..134
                    Block 135..137
                Expr 142..163
                  For _ .. 142..163
                    Int 0 156..157
                    Int 1 159..160
                    Block 161..163
                Let _ 168..182
                  Int 1 180..181
            error 99..102 "mut": `mut` must be followed by a named binding
            error 146..152 "_: i32": unsupported: patterns other than identifiers in `for`
            error 172..175 "mut": `mut` must be followed by a named binding
        "#]],
    );
}

#[test]
fn an_integer_literal_keeps_its_value_inline_up_to_64_bits() {
    use crate::syntax::ast::{ExprKind, IntSuffix, ItemKind};
    let ast = parse_file(
        "fn f() { g(0, 18446744073709551615u64, 18446744073709551616, \
         0x1234_5678_9abc_def0_1234_5678_9abc_def0, 999999999999999999999999999999999999999999, 7usize); }",
    )
    .0;
    let ItemKind::Fn(f) = &ast.items[0].kind else {
        panic!("not a function");
    };
    let arena = &f.arena;
    let lits: Vec<_> = arena
        .exprs
        .iter()
        .filter_map(|e| match e.kind {
            ExprKind::Int(lit) => Some(arena.int_lit(lit)),
            _ => None,
        })
        .collect();
    let values: Vec<_> = lits.iter().map(|l| l.value.map(|v| v.get())).collect();
    assert_eq!(
        values,
        [
            Some(0),
            Some(u64::MAX as u128),
            Some(1 << 64),
            Some(0x1234_5678_9abc_def0_1234_5678_9abc_def0),
            None,
            Some(7),
        ]
    );
    assert_eq!(lits[1].suffix, Some(IntSuffix::U64));
    assert_eq!(lits[5].suffix, Some(IntSuffix::Usize));
    assert!(lits[3].hex && !lits[2].hex);
    // Only the two values wider than 64 bits take room beside the expressions.
    assert_eq!(arena.wide_ints.len(), 2);
}

#[test]
fn child_lists_live_in_the_item_arena() {
    use crate::syntax::ast::{Expr, ExprKind, ItemKind, StmtKind};
    let ast = parse_file(
        "fn f() { let a = g(1, 2); let s = S { x: a, y: [a, a] }; println!(\"{}\", a); }",
    )
    .0;
    let ItemKind::Fn(f) = &ast.items[0].kind else {
        panic!("not a function");
    };
    let arena = &f.arena;
    let ExprKind::Block(body) = arena[f.body].kind else {
        panic!("body is not a block");
    };
    assert_eq!(arena[body.stmts].len(), 3);
    let StmtKind::Let { init, .. } = arena[arena[body.stmts][0]].kind else {
        panic!("not a let");
    };
    let ExprKind::Call(_, args) = arena[init].kind else {
        panic!("not a call");
    };
    let args: Vec<_> = arena[args].iter().map(|&a| &arena[a].kind).collect();
    assert!(matches!(args[..], [ExprKind::Int(_), ExprKind::Int(_)]));
    let StmtKind::Let { init, .. } = arena[arena[body.stmts][1]].kind else {
        panic!("not a let");
    };
    let ExprKind::StructLit(lit) = &arena[init].kind else {
        panic!("not a struct literal");
    };
    let names: Vec<_> = arena[arena[*lit].fields]
        .iter()
        .map(|f| f.name.name.as_str())
        .collect();
    assert_eq!(names, ["x", "y"]);
    let ExprKind::Array(elems) = arena[arena[arena[*lit].fields][1].value].kind else {
        panic!("not an array");
    };
    assert_eq!(arena[elems].len(), 2);
    // Every list of the item is in the arena's side vectors, nothing else.
    assert_eq!(arena.expr_lists.len(), 2 + 2 + 1);
    assert_eq!(arena.stmt_lists.len(), 3);
    assert_eq!(arena.field_inits.len(), 2);
    // Lists are ranges, so a node is no larger than its widest fixed-size variant.
    assert!(
        std::mem::size_of::<Expr>() <= 64,
        "an expression node takes {} bytes",
        std::mem::size_of::<Expr>()
    );
}

/// The dump and diagnostics of a parse of `text`, for comparing parses.
fn parse_report(text: &str) -> String {
    let (ast, diags) = parse_file(text);
    let mut out = ast_to_string(&ast);
    for d in &diags {
        out.push_str(&diag_line(text, d));
    }
    out
}

#[test]
fn buffers_kept_between_parses_do_not_change_the_tree() {
    // A large item with nested items, lists, struct literals and paths grows the
    // thread's arena pool and scratch stacks; an erroneous one leaves recovery behind.
    let big = "mod m { fn f(a: i64) -> i64 { let p = P { x: [1, 2, 3], y: g(a, b::c, 4) }; \
               fn inner() { h(1, 2, 3); } if a < 0 { m::n::o(a) } else { p.x[0] } } }";
    let broken = "fn g( { let = ; h(1, , 2; }";
    let small = "fn k() -> i64 { let q = [x, y]; s::t(q[0], Z { a: 1 }.a) }";
    // On a fresh thread nothing is kept yet.
    let fresh = std::thread::spawn(move || (parse_report(small), parse_report(broken)))
        .join()
        .unwrap();
    parse_report(big);
    parse_report(broken);
    assert_eq!(parse_report(small), fresh.0);
    parse_report(big);
    assert_eq!(parse_report(broken), fresh.1);
    // The one-item entry point shares the buffers: its item is the same as in a file.
    let item = super::parse_one_item(small).expect("a clean item");
    let (ast, _) = parse_file(small);
    assert_eq!(item, ast.items[0]);
}

/// Binary and assignment operators by Rust's precedence (the Rust reference, "Expression
/// precedence"; LANGUAGE.md "Operators"), tightest first, written here independently of
/// the parser's own table: the reference the tests below check the parser against.
const REFERENCE_LEVELS: &[(&[&str], Assoc)] = &[
    (&["*", "/", "%"], Assoc::Left),
    (&["+", "-"], Assoc::Left),
    (&["<<", ">>"], Assoc::Left),
    (&["&"], Assoc::Left),
    (&["^"], Assoc::Left),
    (&["|"], Assoc::Left),
    (&["==", "!=", "<", ">", "<=", ">="], Assoc::None),
    (&["&&"], Assoc::Left),
    (&["||"], Assoc::Left),
    (
        &[
            "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
        ],
        Assoc::Right,
    ),
];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Assoc {
    Left,
    Right,
    /// Chaining is an error (comparisons).
    None,
}

/// The reference level (index into `REFERENCE_LEVELS`, lower binds tighter) and
/// associativity of `op`.
fn reference_level(op: &str) -> (usize, Assoc) {
    REFERENCE_LEVELS
        .iter()
        .enumerate()
        .find(|(_, (ops, _))| ops.contains(&op))
        .map(|(level, &(_, assoc))| (level, assoc))
        .unwrap_or_else(|| panic!("no reference level for {op}"))
}

fn all_reference_ops() -> Vec<&'static str> {
    REFERENCE_LEVELS
        .iter()
        .flat_map(|(ops, _)| ops.iter().copied())
        .collect()
}

/// Parses `const C: i32 = {expr};` and returns the value fully parenthesized (explicit
/// parentheses are transparent) with the messages of the diagnostics.
fn grouping(expr: &str) -> (String, Vec<String>) {
    use crate::syntax::ast::{Arena, ExprId, ExprKind, ItemKind, PathSegmentKind, UnOp};
    fn show(arena: &Arena, e: ExprId) -> String {
        match &arena[e].kind {
            ExprKind::Path(p) => match arena.path(p).segments[0].kind {
                PathSegmentKind::Name(n) => n.as_str().to_string(),
                _ => panic!("unexpected path"),
            },
            ExprKind::Int(lit) => format!("{}", arena.int_lit(*lit).value.map_or(0, |v| v.0)),
            ExprKind::Paren(inner) => show(arena, *inner),
            ExprKind::Unary(op, inner) => {
                let op = if matches!(op, UnOp::Neg) { "-" } else { "!" };
                format!("({op}{})", show(arena, *inner))
            }
            ExprKind::Cast(inner, _) => format!("({} as i64)", show(arena, *inner)),
            ExprKind::Binary(op, l, r) => {
                format!("({} {} {})", show(arena, *l), op.as_str(), show(arena, *r))
            }
            ExprKind::Assign(l, r) => format!("({} = {})", show(arena, *l), show(arena, *r)),
            ExprKind::AssignOp(op, l, r) => {
                format!("({} {}= {})", show(arena, *l), op.as_str(), show(arena, *r))
            }
            other => panic!("unexpected expression {other:?}"),
        }
    }
    let text = format!("const C: i32 = {expr};");
    let (ast, diags) = parse_file(&text);
    let ItemKind::Const(c) = &ast.items[0].kind else {
        panic!("not a const: {text}");
    };
    let shown = show(&c.arena, c.value);
    (shown, diags.into_iter().map(|d| d.message).collect())
}

/// `a op1 b op2 c` for every ordered pair of binary and assignment operators groups as
/// the reference says; a chain of two comparisons is the chained-comparison error.
#[test]
fn every_operator_pair_groups_as_the_reference() {
    let ops = all_reference_ops();
    for &op1 in &ops {
        for &op2 in &ops {
            let (l1, assoc) = reference_level(op1);
            let (l2, _) = reference_level(op2);
            let left = format!("((a {op1} b) {op2} c)");
            let right = format!("(a {op1} (b {op2} c))");
            let expected = if l1 < l2 || (l1 == l2 && assoc != Assoc::Right) {
                left
            } else {
                right
            };
            let (got, diags) = grouping(&format!("a {op1} b {op2} c"));
            assert_eq!(got, expected, "a {op1} b {op2} c");
            let chained = l1 == l2 && assoc == Assoc::None;
            let want_diags: Vec<String> = if chained {
                vec!["comparison operators cannot be chained".to_string()]
            } else {
                Vec::new()
            };
            assert_eq!(diags, want_diags, "a {op1} b {op2} c");
        }
        // `as` binds tighter than every binary operator, prefix operators tighter still.
        let (got, diags) = grouping(&format!("-a {op1} b as i64"));
        assert_eq!(got, format!("((-a) {op1} (b as i64))"));
        assert!(diags.is_empty(), "-a {op1} b as i64: {diags:?}");
        if op1 != "<" && op1 != "<<" && op1 != "<=" && op1 != "<<=" {
            let (got, diags) = grouping(&format!("!a as i64 {op1} b"));
            assert_eq!(got, format!("(((!a) as i64) {op1} b)"));
            assert!(diags.is_empty(), "!a as i64 {op1} b: {diags:?}");
        }
    }
}

/// Random operator trees, written with only the parentheses the reference's precedence
/// and associativity need, parse back into the same trees without a diagnostic.
#[test]
fn minimally_parenthesized_trees_parse_back() {
    /// A tree of the model, rendered as (minimal text, fully parenthesized text, level).
    fn build(rng: &mut u64, depth: u32, ops: &[&'static str]) -> (String, String, usize) {
        let mut next = |n: u64| {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng % n
        };
        if depth == 0 || next(4) == 0 {
            let leaf = match next(4) {
                0 => format!("{}", next(100)),
                1 => "-x".to_string(),
                _ => ["a", "b", "c", "d"][next(4) as usize].to_string(),
            };
            let full = if leaf == "-x" {
                "(-x)".to_string()
            } else {
                leaf.clone()
            };
            return (leaf, full, 0);
        }
        let op = ops[next(ops.len() as u64) as usize];
        let (level, assoc) = reference_level(op);
        let (lt, lf, ll) = build(rng, depth - 1, ops);
        let (rt, rf, rl) = build(rng, depth - 1, ops);
        // Level 0 is a leaf; operator levels are shifted by one.
        let level = level + 1;
        let left_needs = ll > level || (ll == level && assoc != Assoc::Left);
        let right_needs = rl > level || (rl == level && assoc != Assoc::Right);
        let wrap = |t: String, needs: bool| if needs { format!("({t})") } else { t };
        (
            format!("{} {op} {}", wrap(lt, left_needs), wrap(rt, right_needs)),
            format!("({lf} {op} {rf})"),
            level,
        )
    }
    let ops = all_reference_ops();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..3000 {
        let (text, full, _) = build(&mut rng, 4, &ops);
        let (got, diags) = grouping(&text);
        assert_eq!(got, full, "{text}");
        assert!(diags.is_empty(), "{text}: {diags:?}");
    }
}

/// The parser finds a literal's suffix without lexing it again where it can; everywhere
/// it agrees with the lexer's `literal_suffix_start` on the token the lexer made.
#[test]
fn suffix_starts_agree_with_the_lexer() {
    use crate::syntax::lexer::{literal_suffix_start, tokenize, TokenKind};
    let bodies = [
        "0",
        "7",
        "10",
        "1_000",
        "1__",
        "0_1",
        "00",
        "123456789012345678901234",
    ];
    let tails = [
        "", "u8", "i32", "usize", "_u64", "__", "é", "éa", "foo", "e", "E5", "e+3", ".5", ".x",
        "..2", "x1", "b1", "o7", "_", "u64 + 1", "'a", "#", "\"s\"",
    ];
    let mut checked = 0;
    for body in bodies {
        for tail in tails {
            let text = format!("{body}{tail}");
            let tok = tokenize(&text)[0];
            let TokenKind::Literal { kind } = tok.kind else {
                continue;
            };
            let tok_text = &text[..tok.len as usize];
            assert_eq!(
                super::literals::suffix_start(kind, tok_text),
                literal_suffix_start(tok_text),
                "{tok_text:?} ({kind:?})"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}
