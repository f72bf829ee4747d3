//! The `rill` command's contract (DESIGN.md): subcommands, exit codes, stats JSON.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rill(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rill"))
        .args(args)
        .output()
        .expect("rill runs")
}

fn program(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("rill exits normally")
}

#[test]
fn run_interp_prints_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "fn main() { let x: u64 = 7; println!(\"{} {}\", x * 6, x > 3); }\n",
    );
    let out = rill(&["run", main.to_str().unwrap(), "--arch", "interp"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42 true\n");
    assert_eq!(
        code(&out),
        0,
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_panic_exits_101_after_printing() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "fn div(a: i32, b: i32) -> i32 { a / b }\nfn main() { println!(\"before\"); println!(\"{}\", div(1, 0)); }\n",
    );
    for arch in ["interp", "pipeline"] {
        let out = rill(&["run", main.to_str().unwrap(), "--arch", arch]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "before\n");
        assert_eq!(code(&out), 101);
        assert!(String::from_utf8_lossy(&out.stderr).contains("attempt to divide by zero"));
    }
}

#[test]
fn compile_errors_exit_1_with_rustc_like_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "fn main() {\n    let x: i32 = 5i64;\n    let y = z;\n}\n",
    );
    for args in [
        vec!["check", "--arch", "pipeline"],
        vec!["run", "--arch", "interp"],
    ] {
        let mut full = vec![args[0], main.to_str().unwrap()];
        full.extend(&args[1..]);
        let out = rill(&full);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(&out), 1, "{stderr}");
        assert!(
            stderr.contains("error[E0308]: mismatched types"),
            "{stderr}"
        );
        assert!(stderr.contains("main.rs:2:18"), "{stderr}");
        assert!(
            stderr.contains("cannot find value `z` in this scope"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(code(&rill(&["run"])), 2);
    assert_eq!(code(&rill(&["frobnicate", "x.rs"])), 2);
    assert_eq!(
        code(&rill(&[
            "check",
            "/nonexistent/dir/main.rs",
            "--arch",
            "pipeline"
        ])),
        2
    );
    assert_eq!(
        code(&rill(&["emit", "/nonexistent/main.rs", "--what", "tokens"])),
        2
    );
}

#[test]
fn stats_json_follows_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(dir.path(), "main.rs", "fn main() { println!(\"hi\"); }\n");
    let stats = dir.path().join("stats.json");
    let out = rill(&[
        "check",
        main.to_str().unwrap(),
        "--arch",
        "pipeline",
        "--stats-json",
        stats.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert_eq!(json["arch"], "pipeline");
    assert!(json["total_ms"].as_f64().unwrap() >= 0.0);
    let phases = json["phases_ms"].as_object().unwrap();
    for stage in [
        "parse",
        "items",
        "resolve",
        "collect",
        "consteval",
        "typeck",
    ] {
        assert!(phases.contains_key(stage), "no phase {stage} in {phases:?}");
    }
    assert!(json["queries"].as_object().unwrap().is_empty());
    for key in ["executed", "green", "loaded"] {
        assert!(json["totals"][key].is_u64());
    }
}

#[test]
fn emit_shows_every_stage() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "fn add(a: i64, b: i64) -> i64 { a + b }\nfn main() { println!(\"{}\", add(1, 2)); }\n",
    );
    let path = main.to_str().unwrap();
    let tokens = rill(&["emit", path, "--what", "tokens"]);
    assert_eq!(code(&tokens), 0);
    assert!(String::from_utf8_lossy(&tokens.stdout).contains("add"));
    let ast = rill(&["emit", path, "--what", "ast"]);
    assert_eq!(code(&ast), 0);
    assert!(String::from_utf8_lossy(&ast.stdout).contains("add"));
    let ir = rill(&["emit", path, "--what", "ir", "--item", "crate::add"]);
    let text = String::from_utf8_lossy(&ir.stdout);
    assert_eq!(code(&ir), 0, "{}", String::from_utf8_lossy(&ir.stderr));
    assert!(
        text.contains("crate::add") && !text.contains("crate::main"),
        "{text}"
    );
    assert_eq!(
        code(&rill(&[
            "emit",
            path,
            "--what",
            "ir",
            "--item",
            "crate::nope"
        ])),
        2
    );
}

#[test]
fn run_pipeline_uses_the_jit_and_emit_asm_disassembles() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "fn add(a: i64, b: i64) -> i64 { a + b }\nfn div(a: i32, b: i32) -> i32 { a / b }\nfn main() { println!(\"{}\", add(40, 2)); println!(\"{}\", div(1, 0)); }\n",
    );
    let path = main.to_str().unwrap();
    let out = rill(&["run", path, "--arch", "pipeline"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
    assert_eq!(code(&out), 101);
    assert!(String::from_utf8_lossy(&out.stderr).contains("attempt to divide by zero"));
    let asm = rill(&["emit", path, "--what", "asm", "--item", "crate::main"]);
    let text = String::from_utf8_lossy(&asm.stdout);
    assert_eq!(code(&asm), 0, "{}", String::from_utf8_lossy(&asm.stderr));
    assert!(
        text.contains("crate::main") && text.contains("call crate::add"),
        "{text}"
    );
    assert_eq!(
        code(&rill(&[
            "emit",
            path,
            "--what",
            "asm",
            "--item",
            "crate::nope"
        ])),
        2
    );
}

#[test]
fn pipeline_stats_carry_a_stable_image_hash() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "fn sq(x: i64) -> i64 { x * x }\nfn main() { println!(\"{}\", sq(9)); }\n",
    );
    let hash = |name: &str| {
        let stats = dir.path().join(name);
        let out = rill(&[
            "run",
            main.to_str().unwrap(),
            "--arch",
            "pipeline",
            "--stats-json",
            stats.to_str().unwrap(),
        ]);
        assert_eq!(code(&out), 0);
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
        for stage in ["codegen", "link"] {
            assert!(json["phases_ms"].get(stage).is_some(), "no phase {stage}");
        }
        json["image_hash"].as_str().expect("image_hash").to_string()
    };
    let first = hash("a.json");
    assert_eq!(first.len(), 32);
    assert_eq!(
        first,
        hash("b.json"),
        "the same program links to the same bytes in another process"
    );
}

fn stats_of(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn query_is_the_default_and_its_cache_makes_rebuilds_green() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(
        dir.path(),
        "main.rs",
        "mod util;\nfn main() { println!(\"{}\", util::twice(21)); }\n",
    );
    program(
        dir.path(),
        "util.rs",
        "pub fn twice(x: i64) -> i64 { x * 2 }\npub fn thrice(x: i64) -> i64 { x * 3 }\n",
    );
    let cache = dir.path().join("cache");
    let stats = dir.path().join("stats.json");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            main.to_str().unwrap(),
            "--stats-json",
            stats.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = rill(&args);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
        stats_of(&stats)
    };
    let pipeline = run(&["--arch", "pipeline"]);
    let cache_arg = ["--cache-dir", cache.to_str().unwrap()];
    let first = run(&cache_arg);
    assert_eq!(first["arch"], "query");
    assert_eq!(first["image_hash"], pipeline["image_hash"]);
    assert_eq!(first["totals"]["green"], 0);
    assert_eq!(first["queries"]["codegen"]["executed"], 3);
    for key in [
        "executed",
        "green",
        "loaded",
        "hashed_bytes",
        "provider_ms",
        "hash_ms",
    ] {
        assert!(first["queries"]["typeck"][key].is_number(), "{key}");
    }
    let again = run(&cache_arg);
    assert_eq!(again["image_hash"], pipeline["image_hash"]);
    assert!(again["totals"]["green"].as_u64().unwrap() > 0);
    assert_eq!(again["queries"]["codegen"]["executed"], 0);
    assert_eq!(again["queries"]["codegen"]["loaded"], 3);
    // One body edit: one function compiled again.
    program(
        dir.path(),
        "util.rs",
        "pub fn twice(x: i64) -> i64 { x + x }\npub fn thrice(x: i64) -> i64 { x * 3 }\n",
    );
    let edited = run(&cache_arg);
    assert_eq!(edited["queries"]["codegen"]["executed"], 1);
    assert_ne!(edited["image_hash"], pipeline["image_hash"]);
    // A damaged cache is a warning and a correct build.
    for entry in walk(&cache) {
        std::fs::write(&entry, b"garbage").unwrap();
    }
    let out = rill(&[
        "run",
        main.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: query cache"));
}

/// Every file under `dir`, recursively.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if !p.to_string_lossy().ends_with(".lock") {
            out.push(p);
        }
    }
    out
}
