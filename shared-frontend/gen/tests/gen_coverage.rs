//! Across a modest number of seeds, generated programs use every construct of LANGUAGE.md
//! (checked on the text), and the proptest strategies produce what they promise.

use rill_gen::{generate, GenConfig, Program};

fn corpus() -> (Vec<Program>, String) {
    let mut programs = Vec::new();
    for seed in 0..40 {
        let cfg = GenConfig {
            seed,
            target_lines: 300 + (seed as usize % 5) * 150,
            ..GenConfig::default()
        };
        programs.push(generate(&cfg));
    }
    let text: String = programs
        .iter()
        .flat_map(|p| p.files.iter())
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (programs, text)
}

/// Is some `<< n` or `>> n` with `n` at least `min` (a shift amount at or above the width)?
fn has_big_shift(text: &str, min: u64) -> bool {
    ["<< ", ">> "].iter().any(|op| {
        text.match_indices(op).any(|(i, _)| {
            let rest = &text[i + 3..];
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse::<u64>().is_ok_and(|n| n >= min) && !rest.starts_with("0x")
        })
    })
}

/// `let x = x …` or `let x: T = x …`: a binding that shadows a variable it reads.
fn has_shadowing(text: &str) -> bool {
    text.lines().any(|l| {
        let Some(rest) = l.trim_start().strip_prefix("let ") else {
            return false;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            return false;
        }
        match rest.find(" = ") {
            Some(eq) => rest[eq + 3..].starts_with(&format!("{name} ")),
            None => false,
        }
    })
}

/// `Name { field, …`: a struct literal using the field shorthand.
fn has_shorthand(text: &str) -> bool {
    text.match_indices(" { ").any(|(i, _)| {
        let before = text[..i]
            .rsplit(|c: char| !c.is_alphanumeric() && c != '_')
            .next()
            .unwrap_or("");
        let after = &text[i + 3..];
        let ident: String = after
            .chars()
            .take_while(|c| c.is_ascii_lowercase())
            .collect();
        before.starts_with(|c: char| c.is_ascii_uppercase())
            && !ident.is_empty()
            && (after[ident.len()..].starts_with(", ") || after[ident.len()..].starts_with(" }"))
            && !after[ident.len()..].starts_with(": ")
    })
}

#[test]
fn every_construct_appears() {
    let (programs, text) = corpus();
    let paths: Vec<&str> = programs
        .iter()
        .flat_map(|p| p.files.iter())
        .map(|f| f.path.as_str())
        .collect();
    let mut missing = Vec::new();
    let mut check = |name: &str, ok: bool| {
        if !ok {
            missing.push(name.to_string());
        }
    };
    // Modules and files.
    check(
        "file module x.rs",
        paths
            .iter()
            .any(|p| *p != "main.rs" && !p.ends_with("/mod.rs")),
    );
    check(
        "file module x/mod.rs",
        paths.iter().any(|p| p.ends_with("/mod.rs")),
    );
    check(
        "nested directories",
        paths.iter().any(|p| p.matches('/').count() >= 2),
    );
    check(
        "mod x;",
        text.contains("mod ")
            && text
                .lines()
                .any(|l| l.trim_start().starts_with("mod ") && l.ends_with(';')),
    );
    check(
        "inline mod",
        text.lines().any(|l| {
            l.trim_start()
                .trim_start_matches("pub ")
                .starts_with("mod ")
                && l.ends_with('{')
        }),
    );
    check("pub mod", text.contains("pub mod "));
    // Imports and paths.
    check("use", text.contains("\nuse "));
    check(
        "use as",
        text.lines()
            .any(|l| l.contains("use ") && l.contains(" as ")),
    );
    check(
        "use braces",
        text.lines()
            .any(|l| l.contains("use ") && l.contains("::{")),
    );
    check("use {self}", text.contains("::{self"));
    check(
        "use sub::d in braces",
        text.lines().any(|l| {
            l.contains("use ")
                && l.contains("::{")
                && l.split("::{").nth(1).is_some_and(|r| r.contains("::"))
        }),
    );
    check("pub use", text.contains("pub use "));
    check("crate:: path", text.contains("crate::"));
    check("super:: path", text.contains("super::"));
    check("self:: path", text.contains("self::"));
    // Items and privacy.
    check("pub fn", text.contains("pub fn "));
    check(
        "private fn",
        text.lines()
            .any(|l| l.trim_start().starts_with("fn ") && !l.contains("fn main")),
    );
    check("pub const", text.contains("pub const "));
    check(
        "private const",
        text.lines().any(|l| l.trim_start().starts_with("const ")),
    );
    check("pub struct", text.contains("pub struct "));
    check(
        "private struct",
        text.lines().any(|l| l.trim_start().starts_with("struct ")),
    );
    check(
        "private field",
        text.lines().any(|l| {
            let t = l.trim_start();
            !t.starts_with("pub ")
                && t.ends_with(',')
                && t.contains(": ")
                && l.starts_with("    ")
                && !t.contains('(')
                && !t.contains('=')
                && !t.starts_with("let")
        }),
    );
    check("type alias", text.contains("type "));
    check(
        "derive(Clone, Copy)",
        text.contains("#[derive(Clone, Copy)]"),
    );
    check(
        "derive(Copy, Clone)",
        text.contains("#[derive(Copy, Clone)]"),
    );
    check("struct trailing comma", text.contains(",\n}"));
    // Constants.
    check(
        "const block",
        text.lines()
            .any(|l| l.contains("const ") && l.ends_with("= {")),
    );
    check(
        "const if",
        text.lines()
            .any(|l| l.contains("const ") && l.contains("= if ")),
    );
    check(
        "const loop/while",
        text.contains("const ") && text.contains("loop {") && text.contains("while "),
    );
    check(
        "const array",
        text.lines()
            .any(|l| l.contains("const ") && l.contains(": [")),
    );
    check(
        "const struct",
        text.lines().any(|l| {
            l.trim_start().starts_with("const ") || l.trim_start().starts_with("pub const ")
        }) && text.lines().any(|l| {
            (l.contains("const "))
                && l.contains(" = ")
                && l.split(" = ").nth(1).is_some_and(|r| {
                    r.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && r.contains(" { ")
                })
        }),
    );
    check("MAX/MIN", text.contains("::MAX") && text.contains("::MIN"));
    check(
        "array length constant",
        text.contains("; LEN_") || text.contains("::LEN_"),
    );
    check("array length N * 2", text.contains(" * 2]"));
    // Types and values.
    for t in ["i32", "i64", "u64", "usize", "bool"] {
        check(&format!("type {t}"), text.contains(&format!(": {t}")));
        if t != "bool" {
            check(&format!("cast to {t}"), text.contains(&format!("as {t}")));
            check(
                &format!("suffix {t}"),
                text.contains(&format!("0{t}"))
                    || text.contains(&format!("_{t}"))
                    || text.contains(&format!("1{t}")),
            );
        }
    }
    check(
        "bool to int cast",
        text.contains("true as ") || text.contains("false as "),
    );
    check("hex literal", text.contains("0x"));
    check("binary literal", text.contains("0b"));
    check("octal literal", text.contains("0o"));
    check("leading zeros", text.contains(" 00"));
    check("underscores", text.contains("_000"));
    check(
        "minimum literal",
        text.contains("2147483648") || text.contains("9223372036854775808"),
    );
    // Arrays and structs.
    check("array literal", text.contains("= [") && text.contains(", "));
    check(
        "array repeat",
        text.contains("; 3]") || text.contains("; 2]") || text.contains("; 4]"),
    );
    check("nested array", text.contains("[["));
    check("indexing", text.contains("]["));
    check(
        "element assignment",
        text.lines()
            .any(|l| l.contains("] = ") || l.contains("] += ") || l.contains("] ^= ")),
    );
    check(
        "field assignment",
        text.lines().any(|l| {
            let t = l.trim_start();
            t.split(' ')
                .next()
                .is_some_and(|lhs| lhs.contains('.') && !lhs.contains('('))
                && (t.contains(" = ") || t.contains("= "))
                && !t.starts_with("let")
        }),
    );
    check(
        "field access",
        text.contains(").")
            || text
                .lines()
                .any(|l| l.contains(".x") || l.contains(".y") || l.contains(".w")),
    );
    check("struct shorthand", has_shorthand(&text));
    // Operators.
    for op in [
        " + ", " - ", " * ", " / ", " % ", " << ", " >> ", " & ", " | ", " ^ ", " == ", " != ",
        " < ", " > ", " <= ", " >= ", " && ", " || ",
    ] {
        check(&format!("operator{op}"), text.contains(op));
    }
    for op in [
        " += ", " -= ", " *= ", " /= ", " %= ", " &= ", " |= ", " ^= ", " <<= ", " >>= ",
    ] {
        check(&format!("compound{op}"), text.contains(op));
    }
    check("unary minus", text.contains("= -") || text.contains("(-"));
    check("unary not", text.contains("!("));
    check("shift by at least the width", has_big_shift(&text, 64));
    check(
        "shift by a negative amount",
        text.contains("<< -") || text.contains(">> -"),
    );
    check(
        "bool comparison",
        [
            "true == ",
            "false != ",
            "true < ",
            "false < ",
            "true >= ",
            "false == ",
            "true != ",
        ]
        .iter()
        .any(|s| text.contains(s)),
    );
    // Control flow.
    check("if expression", text.contains("= if "));
    check("else if", text.contains("else if "));
    check(
        "block expression",
        text.contains("= {\n") || text.contains("({"),
    );
    check(
        "for ..",
        text.lines()
            .any(|l| l.contains("for ") && l.contains("..") && !l.contains("..=")),
    );
    check("for ..=", text.contains("..="));
    check(
        "for near MAX",
        text.contains("::MAX - ")
            && text
                .lines()
                .any(|l| l.contains("for ") && l.contains("::MAX {")),
    );
    check("for mut", text.contains("for mut "));
    check("while", text.contains("while "));
    check("loop", text.contains("loop {"));
    check(
        "label",
        text.contains("'outer: ") || text.contains("'scan: ") || text.contains("'inner: "),
    );
    check("break label", text.contains("break '"));
    check("continue label", text.contains("continue '"));
    check(
        "break value",
        text.lines().any(|l| {
            let t = l.trim();
            t.starts_with("break ") && !t.starts_with("break '") && !t.starts_with("break;")
        }),
    );
    check("return", text.contains("return "));
    check(
        "diverging branch",
        text.contains("else { return") || text.contains("{ return"),
    );
    check(
        "function ending in return",
        text.lines()
            .zip(text.lines().skip(1))
            .any(|(a, b)| a.trim_start().starts_with("return ") && b == "}"),
    );
    check("let _", text.contains("let _ = "));
    check("shadowing", has_shadowing(&text));
    check("let mut", text.contains("let mut "));
    check(
        "mut parameter",
        text.contains("(mut ") || text.contains(", mut "),
    );
    // Output.
    check(
        "println holes",
        text.contains("println!(\"") && text.contains("{}"),
    );
    check(
        "println escapes",
        text.contains("{{") && text.contains("}}"),
    );
    check("println trailing comma", text.contains(",);"));
    check("println!()", text.contains("println!();"));
    // Comments.
    check("doc comment", text.contains("/// "));
    check("inner doc comment", text.contains("//! "));
    check("block comment", text.contains("/* "));
    check("nested block comment", text.contains("/* nested */"));
    check("four slashes", text.contains("//// "));
    // Recursion.
    check(
        "recursion",
        text.contains(" - 1, ") || text.contains(" - 1)"),
    );
    assert!(
        missing.is_empty(),
        "constructs never generated: {missing:#?}"
    );
}

#[test]
fn panicking_configs_contain_a_deliberate_panic() {
    let p = generate(&GenConfig {
        seed: 3,
        target_lines: 100,
        panicking: true,
        ..GenConfig::default()
    });
    assert!(p.files[0].text.contains("about to fail"));
    let q = generate(&GenConfig {
        seed: 3,
        target_lines: 100,
        ..GenConfig::default()
    });
    assert!(!q.files[0].text.contains("about to fail"));
}

#[cfg(feature = "proptest")]
mod strategies {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    use rill_gen::{strategies, EditKind};

    fn runner() -> TestRunner {
        TestRunner::new_with_rng(
            Config {
                cases: 8,
                ..Config::default()
            },
            proptest::test_runner::TestRng::deterministic_rng(
                proptest::test_runner::RngAlgorithm::ChaCha,
            ),
        )
    }

    #[test]
    fn strategies_produce_their_values() {
        let mut r = runner();
        r.run(&strategies::small_program(), |p| {
            prop_assert!(p.total_lines() >= 20 && p.is_editable());
            Ok(())
        })
        .unwrap();
        r.run(&strategies::program(), |p| {
            prop_assert!(p.files[0].path == "main.rs");
            Ok(())
        })
        .unwrap();
        r.run(&strategies::edit_history(5), |(_, h)| {
            prop_assert_eq!(h.len(), 5);
            let pending = h.iter().fold(false, |pending, e| match e.kind {
                EditKind::IntroduceError => true,
                EditKind::FixError => false,
                _ => pending,
            });
            prop_assert!(!pending);
            Ok(())
        })
        .unwrap();
        r.run(&strategies::ill_formed(), |m| {
            prop_assert!(m.description.contains(':'));
            Ok(())
        })
        .unwrap();
    }
}
