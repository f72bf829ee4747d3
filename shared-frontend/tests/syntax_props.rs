//! Properties of the lexer and parser on arbitrary input: no panic, progress, token
//! lengths that cover the input, relative spans inside items, and the nesting limit on
//! deeply nested input (checked on a thread with a small stack).
//!
//! The number of proptest cases comes from `RILL_PROPTEST_CASES` (default 256).

use std::sync::Arc;

use proptest::prelude::*;
use shared_frontend::diag::Diagnostic;
use shared_frontend::syntax::ast::{Item, ItemKind, ModDef};
use shared_frontend::syntax::lexer::tokenize;
use shared_frontend::syntax::parser::parse_file;

fn cases() -> u32 {
    std::env::var("RILL_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

/// Checks what must hold for any input, and returns the diagnostics.
fn parse_checked(text: &str) -> Vec<Diagnostic> {
    let tokens = tokenize(text);
    let total: usize = tokens.iter().map(|t| t.len as usize).sum();
    assert_eq!(total, text.len());
    assert!(tokens.iter().all(|t| t.len > 0));
    let (ast, diags) = parse_file(text);
    for d in &diags {
        for l in &d.labels {
            assert!(l.file.is_none());
            assert!(l.span.lo <= l.span.hi, "{d:?}");
            assert!(l.span.hi as usize <= text.len(), "{d:?}");
        }
    }
    for item in &ast.items {
        assert!(item.offset as usize + item.span.hi as usize <= text.len());
    }
    // Progress: errors are bounded by the input, not by a runaway loop.
    assert!(
        diags.len() <= tokens.len() * 3 + 4,
        "{} diagnostics",
        diags.len()
    );
    diags
}

/// Items with every `offset` (also of items in inline modules) set to zero.
fn without_offsets(items: &[Item]) -> Vec<Item> {
    items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            item.offset = 0;
            if let ItemKind::Mod(m) = &item.kind {
                if let Some(inner) = &m.items {
                    item.kind = ItemKind::Mod(Arc::new(ModDef {
                        name: m.name,
                        items: Some(without_offsets(inner)),
                    }));
                }
            }
            item
        })
        .collect()
}

fn check_relative(src: &str) {
    let (a, da) = parse_file(src);
    let shifted = format!("\n\n{src}");
    let (b, db) = parse_file(&shifted);
    assert_eq!(
        without_offsets(&a.items),
        without_offsets(&b.items),
        "{src:?}"
    );
    for (x, y) in a.items.iter().zip(&b.items) {
        assert_eq!(x.offset + 2, y.offset);
    }
    assert_eq!(da.len(), db.len());
    for (x, y) in da.iter().zip(&db) {
        let xs: Vec<_> = x.labels.iter().map(|l| l.span.shift(2)).collect();
        let ys: Vec<_> = y.labels.iter().map(|l| l.span).collect();
        assert_eq!(xs, ys, "diagnostic spans are absolute");
        assert_eq!(x.message, y.message);
    }
}

const ALPHABET: &[&str] = &[
    "fn",
    "main",
    "x",
    "y",
    "S",
    "i32",
    "u64",
    "usize",
    "let",
    "mut",
    "const",
    "struct",
    "type",
    "mod",
    "use",
    "pub",
    "crate",
    "self",
    "super",
    "if",
    "else",
    "while",
    "loop",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "as",
    "true",
    "false",
    "impl",
    "match",
    "try",
    "'a",
    "'a:",
    "println!",
    "vec!",
    "#[derive(Clone, Copy)]",
    "#",
    "#!",
    "!",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ".",
    "..",
    "..=",
    ":",
    "::",
    "->",
    "=>",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "<<",
    ">>",
    "<-",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "&&",
    "|",
    "||",
    "^",
    "+=",
    "<<=",
    "?",
    "_",
    "0",
    "1",
    "42",
    "0xff",
    "1_000i64",
    "1e3",
    "1.5",
    "0x",
    "\"a {} b\"",
    "\"{\"",
    "\"}\"",
    "'c'",
    "\"unterminated",
    "/* c */",
    "/* open",
    "// line\n",
    "/// doc\n",
    "//! inner\n",
    "/** d */",
    "\0",
    "€",
    "r#x",
    "\n",
];

fn rustish() -> impl Strategy<Value = String> {
    prop::collection::vec((0..ALPHABET.len(), prop::bool::ANY), 0..80).prop_map(|parts| {
        let mut s = String::new();
        for (i, space) in parts {
            s.push_str(ALPHABET[i]);
            if space {
                s.push(' ');
            }
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        parse_checked(&text);
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,200}") {
        parse_checked(&text);
    }

    #[test]
    fn rustish_token_soup_never_panics(text in rustish()) {
        parse_checked(&text);
        check_relative(&text);
    }
}

const PROGRAM: &str = r#"//! A program.
/// Doc.
#[derive(Clone, Copy)]
pub struct P { pub x: i64, y: [i32; 4] }
const N: usize = 2 * 3;
type A = [P; N];
mod m {
    pub fn g(a: i32) -> i32 { if a < 0 { -a } else { a } }
    mod n { use super::g; fn h() { let x = 1; } }
}
use m::{g, self as mm};
fn main() {
    let mut s = 0i64;
    'l: for i in 0..=10 { s += i as i64; if s > 20 { break 'l; } }
    let p = P { x: s, y: [1; 4] };
    println!("{} {}", p.x, p.y[0]);
    while s > 0 { s -= 1; }
    let q = loop { break 5; };
}
fn bad() { let x = ; f(1 2); }
"#;

#[test]
fn spans_inside_items_are_relative() {
    check_relative(PROGRAM);
    check_relative("fn f() {}\n\nfn g() { 1 + }\nstruct S { a: i32 }");
}

/// Runs `f` on a thread with a 2 MiB stack: deep input must not need more.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("parser overflowed the stack or panicked");
}

fn assert_limit(text: String, limit: &'static str) {
    on_small_stack(move || {
        let diags = parse_checked(&text);
        assert!(
            diags.iter().any(|d| d.message.contains(limit)),
            "no {limit} diagnostic among {:?}",
            diags.iter().map(|d| &d.message).take(5).collect::<Vec<_>>()
        );
        // One report per item, not one per level.
        assert!(
            diags.len() < 20,
            "{} diagnostics: {:?}",
            diags.len(),
            diags.iter().map(|d| &d.message).take(3).collect::<Vec<_>>()
        );
    });
}

const DEPTH: usize = 100_000;

fn nested(open: &str, middle: &str, close: &str) -> String {
    let mut s = String::with_capacity(DEPTH * (open.len() + close.len()) + middle.len());
    for _ in 0..DEPTH {
        s.push_str(open);
    }
    s.push_str(middle);
    for _ in 0..DEPTH {
        s.push_str(close);
    }
    s
}

fn in_fn(body: String) -> String {
    format!("fn f() {{ let x = {body}; }}\nfn after() {{}}")
}

#[test]
fn deep_parens() {
    assert_limit(in_fn(nested("(", "1", ")")), "MAX_NESTING");
    assert_limit(in_fn(nested("(", "1", "")), "MAX_NESTING");
}

#[test]
fn deep_blocks() {
    assert_limit(format!("fn f() {}", nested("{", "", "}")), "MAX_NESTING");
    assert_limit(format!("fn f() {}", nested("{", "", "")), "MAX_NESTING");
}

#[test]
fn deep_unary() {
    assert_limit(in_fn(nested("-", "1", "")), "MAX_NESTING");
    assert_limit(in_fn(nested("!", "x", "")), "MAX_NESTING");
    // A run of `&` builds no nesting: reported once as unsupported.
    assert_limit(in_fn(nested("&", "x", "")), "unsupported: references");
}

#[test]
fn deep_arrays_and_types() {
    assert_limit(in_fn(nested("[", "1", "]")), "MAX_NESTING");
    assert_limit(
        format!("type T = {};", nested("[", "i32", "; 1]")),
        "MAX_NESTING",
    );
    assert_limit(
        format!("type T = {};", nested("(", "i32", ")")),
        "MAX_NESTING",
    );
}

#[test]
fn deep_modules() {
    assert_limit(nested("mod m { ", "fn f() {}", "}"), "MAX_MODULE_DEPTH");
    assert_limit(nested("mod m { ", "", ""), "MAX_MODULE_DEPTH");
}

#[test]
fn long_chains() {
    assert_limit(in_fn(nested("", "1", " + 1")), "MAX_NESTING");
    assert_limit(in_fn(nested("", "a", ".b")), "MAX_NESTING");
    assert_limit(in_fn(nested("", "a", "[0]")), "MAX_NESTING");
    assert_limit(in_fn(nested("", "f", "()")), "MAX_NESTING");
    assert_limit(in_fn(nested("", "x", " as i32")), "MAX_NESTING");
    assert_limit(in_fn(nested("a = ", "1", "")), "MAX_NESTING");
    assert_limit(in_fn(nested("return ", "1", "")), "MAX_NESTING");
    assert_limit(
        in_fn(nested("if c { 1 } else ", "{ 2 }", "")),
        "MAX_NESTING",
    );
    assert_limit(in_fn(nested("loop { ", "", "}")), "MAX_NESTING");
    assert_limit(
        format!("fn f() {{ {} }}", nested("fn g() { ", "", "}")),
        "MAX_NESTING",
    );
    assert_limit(format!("use {};", nested("a::{", "b", "}")), "MAX_NESTING");
}

#[test]
fn long_identifiers_and_literals() {
    let ident = "a".repeat(2000);
    let diags = parse_checked(&format!("fn {ident}() {{}}"));
    assert!(diags.iter().any(|d| d.message.contains("MAX_IDENT_LEN")));
    let lit = "1".repeat(2000);
    let diags = parse_checked(&format!("const C: i32 = {lit};"));
    assert!(diags.iter().any(|d| d.message.contains("MAX_LITERAL_LEN")));
}

#[test]
fn huge_flat_input() {
    // Many items and statements: breadth is not limited.
    let mut src = String::new();
    for i in 0..20_000 {
        src.push_str(&format!("fn f{i}() {{ let x = {i}; }}\n"));
    }
    let diags = parse_checked(&src);
    assert!(diags.is_empty());
    let (ast, _) = parse_file(&src);
    assert_eq!(ast.items.len(), 20_000);
}
