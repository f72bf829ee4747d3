//! Frontend benchmarks (criterion). Syntax: lexing, and lexing + parsing (with and
//! without freeing the tree), of synthetic programs of about 10k and 100k lines, with
//! throughput in lines per second.
//!
//! Run with `cargo bench -p shared-frontend --bench frontend`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shared_frontend::syntax::lexer::tokenize;
use shared_frontend::syntax::parser::parse_file;

/// A deterministic, valid Rill program of roughly `target_lines` lines: modules of
/// structs, constants and functions with loops, conditionals, arithmetic, arrays, struct
/// literals and `println!`, formatted as rustfmt would.
fn synthetic_program(target_lines: usize) -> String {
    let mut out = String::with_capacity(target_lines * 32);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    out.push_str("//! Synthetic benchmark program.\n\n");
    let mut m = 0;
    let mut counted = 0;
    let mut lines = 0;
    while lines < target_lines {
        out.push_str(&format!("/// Module {m}.\npub mod m{m} {{\n"));
        out.push_str(&format!(
            "    #[derive(Clone, Copy)]\n    pub struct P{m} {{\n        pub x: i64,\n        pub y: i64,\n        data: [i32; 4],\n    }}\n\n"
        ));
        out.push_str(&format!(
            "    pub const LIMIT_{m}: usize = {} * 4;\n\n",
            1 + next(9)
        ));
        for f in 0..8 {
            let k = next(1000);
            out.push_str(&format!(
                "    /// Function {f}.\n    pub fn f{f}(a: i64, mut b: i64) -> i64 {{\n"
            ));
            out.push_str(&format!("        let mut acc: i64 = {k};\n"));
            out.push_str("        let mut arr = [0i32; 8];\n");
            out.push_str(&format!(
                "        for i in 0..LIMIT_{m} {{\n            arr[i % 8] += (i as i32) * {} - 1;\n            acc = acc + a * (b - {}) / 3;\n        }}\n",
                next(7) + 1,
                next(50)
            ));
            out.push_str(&format!(
                "        while b > {} && acc != 0 {{\n            b -= 1;\n            if acc % 2 == 0 {{\n                acc >>= 1;\n            }} else {{\n                acc = acc * 3 + 1;\n            }}\n        }}\n",
                next(10)
            ));
            out.push_str(&format!(
                "        let p = P{m} {{ x: acc, y: b, data: [1, 2, 3, {k}] }};\n"
            ));
            out.push_str("        if p.x < p.y || !(p.data[3] == 0) {\n");
            out.push_str("            println!(\"acc = {}, b = {}\", p.x, p.y);\n        }\n");
            if f > 0 {
                out.push_str(&format!(
                    "        'outer: loop {{\n            acc += f{}(acc & 0xff, b);\n            break 'outer;\n        }}\n",
                    next(f as u64)
                ));
            }
            out.push_str("        acc ^ (b << 2)\n    }\n\n");
        }
        out.push_str("}\n\n");
        m += 1;
        lines += out[counted..].bytes().filter(|&b| b == b'\n').count();
        counted = out.len();
    }
    out.push_str("fn main() {\n    println!(\"{}\", m0::f0(1, 2));\n}\n");
    out
}

fn line_count(text: &str) -> u64 {
    text.bytes().filter(|&b| b == b'\n').count() as u64
}

fn syntax(c: &mut Criterion) {
    for &size in &[10_000usize, 100_000] {
        let text = synthetic_program(size);
        let lines = line_count(&text);
        let (ast, diags) = parse_file(&text);
        assert!(diags.is_empty(), "synthetic program has errors: {diags:?}");
        let expected_items = ast.items.len();

        let mut group = c.benchmark_group(format!("syntax/{}k_lines", size / 1000));
        group.throughput(Throughput::Elements(lines));
        if size >= 100_000 {
            group.sample_size(20);
        }
        group.bench_function("lex", |b| {
            b.iter(|| {
                let tokens = tokenize(black_box(&text));
                assert!(tokens.len() > lines as usize);
                tokens
            })
        });
        // A compiler keeps the tree it parsed: freeing it is measured separately.
        group.bench_function("lex+parse", |b| {
            b.iter_with_large_drop(|| {
                let (ast, diags) = parse_file(black_box(&text));
                assert!(diags.is_empty());
                assert_eq!(ast.items.len(), expected_items);
                ast
            })
        });
        group.bench_function("lex+parse+drop", |b| {
            b.iter(|| {
                let (ast, diags) = parse_file(black_box(&text));
                assert!(diags.is_empty());
                assert_eq!(ast.items.len(), expected_items);
                ast
            })
        });
        group.finish();
    }
}

criterion_group!(benches, syntax);
criterion_main!(benches);
