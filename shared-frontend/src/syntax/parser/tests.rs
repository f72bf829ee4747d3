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
