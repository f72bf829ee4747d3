//! Bad input never crashes the frontend (DESIGN.md invariant 6): arbitrary bytes,
//! truncations and byte mutations of valid programs all end in diagnostics or success,
//! never a panic or a hang; and whatever is accepted runs under the interpreter without an
//! internal error.
//!
//! `RILL_PROPTEST_CASES` sets the number of cases per property (default 256).

use std::path::Path;

use proptest::prelude::*;
use rill_gen::{self as gen, GenConfig};
use shared_frontend::ir::interp::{self, ExitStatus, InterpLimits};
use shared_frontend::sema::modules::MemLoader;

fn cases() -> u32 {
    std::env::var("RILL_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Compiles a one-file program through the whole frontend and, if it is accepted, runs it
/// with a small fuel budget. Panics only on a robustness bug.
fn compile_and_run(bytes: &[u8]) {
    let loader = MemLoader::new([("main.rs", bytes)]);
    let compiled = pipeline::compile(&loader, Path::new("main.rs"), pipeline::Until::Ir);
    // Rendering must cope with every span the stages produced.
    let _ = shared_frontend::diag::render(&compiled.diagnostics, &compiled.sources, false);
    if let Some(ir) = &compiled.ir {
        let outcome = interp::run(
            ir,
            &InterpLimits {
                fuel: Some(200_000),
                ..InterpLimits::default()
            },
        );
        assert!(
            !matches!(outcome.status, ExitStatus::InternalError(_)),
            "accepted program runs into an internal error: {:?}\n{}",
            outcome.status,
            String::from_utf8_lossy(bytes)
        );
    }
}

/// Valid programs to damage: a few generated ones.
fn seeds() -> Vec<String> {
    (0..8)
        .map(|seed| {
            let p = gen::generate(&GenConfig {
                seed,
                target_lines: 60,
                ..GenConfig::default()
            });
            // One file: inline the root only (module files are absent, which is itself an error path).
            p.files[0].text.clone()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_crash(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        compile_and_run(&bytes);
    }

    #[test]
    fn rust_like_token_soup_never_crashes(tokens in proptest::collection::vec(prop::sample::select(vec![
        "fn", "main", "(", ")", "{", "}", "let", "mut", "x", "=", ";", "1", "0x7f", "i64", "u64", ":",
        "+", "-", "*", "/", "%", "<<", ">>", "<", ">", "==", "&&", "||", "!", "as", "if", "else",
        "while", "loop", "for", "in", "..", "..=", "break", "continue", "return", "'a", "[", "]",
        ",", ".", "struct", "S", "const", "C", "mod", "m", "use", "crate", "super", "self", "::",
        "pub", "println!(\"{}\", x)", "#[derive(Clone, Copy)]", "type", "T", "true", "\n", "/*", "*/",
    ]), 0..80)) {
        compile_and_run(tokens.join(" ").as_bytes());
    }

    #[test]
    fn truncated_programs_never_crash(index in 0usize..8, cut in 0.0f64..1.0) {
        let text = &seeds()[index];
        let mut end = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(end) { end -= 1; }
        compile_and_run(&text.as_bytes()[..end]);
    }

    #[test]
    fn mutated_programs_never_crash(index in 0usize..8, edits in proptest::collection::vec((0.0f64..1.0, any::<u8>()), 1..6)) {
        let mut bytes = seeds()[index].clone().into_bytes();
        for (at, byte) in edits {
            let i = ((bytes.len() as f64) * at) as usize;
            if i < bytes.len() { bytes[i] = byte; }
        }
        compile_and_run(&bytes);
    }
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_stack_overflow() {
    // On a small stack, to prove that no stage recurses per nesting level unchecked.
    std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(|| {
            for (open, close) in [("(", ")"), ("{", "}"), ("[", "]"), ("-", ""), ("!", "")] {
                let depth = 100_000;
                let src = format!(
                    "fn main() {{ let x = {}1{}; }}",
                    open.repeat(depth),
                    close.repeat(depth)
                );
                let loader = MemLoader::new([("main.rs", src.as_bytes())]);
                let compiled =
                    pipeline::compile(&loader, Path::new("main.rs"), pipeline::Until::Ir);
                assert!(
                    compiled.has_errors(),
                    "{open}…{close} nested {depth} deep was accepted"
                );
            }
            let modules = format!(
                "{}fn main() {{}}{}",
                "mod m { ".repeat(100_000),
                "}".repeat(100_000)
            );
            let loader = MemLoader::new([("main.rs", modules.as_bytes())]);
            assert!(
                pipeline::compile(&loader, Path::new("main.rs"), pipeline::Until::Ir).has_errors()
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn huge_identifiers_literals_and_arrays_are_diagnostics() {
    let long_ident = format!("fn main() {{ let {} = 1; }}", "a".repeat(1_000_000));
    let long_literal = format!("fn main() {{ let x = {}; }}", "9".repeat(5_000));
    let huge_array = "fn main() { let a = [0i64; 1 << 40]; println!(\"{}\", a[0]); }".to_string();
    for src in [long_ident, long_literal, huge_array] {
        let loader = MemLoader::new([("main.rs", src.as_bytes())]);
        let compiled = pipeline::compile(&loader, Path::new("main.rs"), pipeline::Until::Ir);
        assert!(
            compiled.has_errors(),
            "accepted: {}…",
            &src[..60.min(src.len())]
        );
    }
}
