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
        "encode_ms",
    ] {
        assert!(first["queries"]["typeck"][key].is_number(), "{key}");
    }
    for key in ["hash_ms", "encode_ms"] {
        assert!(first["engine"][key].is_number(), "{key}");
    }
    let again = run(&cache_arg);
    assert_eq!(again["image_hash"], pipeline["image_hash"]);
    assert!(again["totals"]["green"].as_u64().unwrap() > 0);
    // A kind that did nothing is not listed: nothing below the top-level reads was
    // touched (the session found no file changed), so no machine code was compiled or
    // decoded from the cache; the link state is patched.
    let count = |s: &serde_json::Value, kind: &str, what: &str| {
        s["queries"][kind][what].as_u64().unwrap_or(0)
    };
    assert_eq!(count(&again, "codegen", "executed"), 0);
    assert_eq!(count(&again, "codegen", "loaded"), 0);
    assert_eq!(again["link"]["incremental"], true);
    assert_eq!(again["link"]["relinked"], 0);
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

/// Every way to build a program from a path: `run` under each architecture, `check` under
/// both drivers, `emit` of each stage. The path goes right after the subcommand.
const COMMANDS: &[&[&str]] = &[
    &["run", "--arch", "pipeline"],
    &["run", "--arch", "query"],
    &["run", "--arch", "interp"],
    &["check", "--arch", "pipeline"],
    &["check", "--arch", "query"],
    &["emit", "--what", "tokens"],
    &["emit", "--what", "ast"],
    &["emit", "--what", "ir"],
    &["emit", "--what", "asm"],
];

fn rill_on(command: &[&str], path: &Path, extra: &[&str]) -> Output {
    let mut args = vec![command[0], path.to_str().unwrap()];
    args.extend(&command[1..]);
    args.extend(extra);
    rill(&args)
}

/// Runs every command on `path`: each exits with `expected(command)`, never panics, and
/// when it fails names `shown` on stderr, on a first line that all failing commands share.
fn check_path_error(path: &Path, shown: &Path, expected: impl Fn(&[&str]) -> i32) {
    let shown = shown.display().to_string();
    let mut first_lines = Vec::new();
    for command in COMMANDS {
        let out = rill_on(command, path, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!("rill {command:?} on {}:\n{stderr}", path.display());
        assert!(!stderr.contains("panicked"), "{what}");
        assert_eq!(code(&out), expected(command), "{what}");
        if code(&out) != 0 {
            assert!(stderr.contains(&shown), "{what}");
            first_lines.push(stderr.lines().next().unwrap_or("").to_string());
        }
    }
    first_lines.dedup();
    assert_eq!(first_lines.len(), 1, "{first_lines:#?}");
}

/// Whether a file without permissions can still be read (tests running as root).
fn permissions_bypassed(path: &Path) -> bool {
    std::fs::read(path).is_ok()
}

#[cfg(unix)]
fn make_unreadable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o000)).unwrap();
}

#[test]
fn a_root_path_that_cannot_be_read_exits_2_under_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.rs");
    check_path_error(&missing, &missing, |_| 2);
    let subdir = dir.path().join("sub");
    std::fs::create_dir(&subdir).unwrap();
    check_path_error(&subdir, &subdir, |_| 2);
    #[cfg(unix)]
    {
        let locked = program(dir.path(), "locked.rs", "fn main() {}\n");
        make_unreadable(&locked);
        if permissions_bypassed(&locked) {
            eprintln!("note: skipping the unreadable-file case: permissions do not apply (root)");
        } else {
            check_path_error(&locked, &locked, |_| 2);
        }
    }
}

#[test]
fn a_root_file_that_is_not_utf8_is_a_compile_error_under_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.rs");
    std::fs::write(&bad, b"fn main() {}\n\xff\xfe\n").unwrap();
    check_path_error(&bad, &bad, |_| 1);
}

#[test]
fn a_module_file_that_cannot_be_loaded_is_a_compile_error_under_every_command() {
    // `emit --what tokens` lexes the root file alone and never sees the module.
    let tokens_ok = |command: &[&str]| i32::from(command.last() != Some(&"tokens"));
    let dir = tempfile::tempdir().unwrap();

    let not_utf8 = dir.path().join("not_utf8");
    std::fs::create_dir(&not_utf8).unwrap();
    let main = program(&not_utf8, "main.rs", "mod a;\nfn main() { a::f(); }\n");
    std::fs::write(not_utf8.join("a.rs"), b"pub fn f() {}\n\xff\n").unwrap();
    check_path_error(&main, &not_utf8.join("a.rs"), tokens_ok);

    // A directory is not a module file: the module has no file (E0583), as when it is
    // missing; `emit --what ast` prints the root's tree then, as for any missing module.
    let is_dir = dir.path().join("is_dir");
    std::fs::create_dir_all(is_dir.join("a.rs")).unwrap();
    let main = program(&is_dir, "main.rs", "mod a;\nfn main() {}\n");
    check_path_error(&main, &is_dir.join("a.rs"), |command| {
        i32::from(!matches!(command.last(), Some(&"tokens" | &"ast")))
    });
    let out = rill(&["emit", main.to_str().unwrap(), "--what", "ast"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[E0583]"));

    #[cfg(unix)]
    {
        let locked = dir.path().join("locked");
        std::fs::create_dir(&locked).unwrap();
        let main = program(&locked, "main.rs", "mod a;\nfn main() { a::f(); }\n");
        let a = program(&locked, "a.rs", "pub fn f() {}\n");
        make_unreadable(&a);
        if permissions_bypassed(&a) {
            eprintln!("note: skipping the unreadable-module case: permissions do not apply (root)");
        } else {
            check_path_error(&main, &a, tokens_ok);
        }
    }
}

#[test]
fn a_cache_dir_that_is_a_file_exits_2_under_every_architecture() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(dir.path(), "main.rs", "fn main() { println!(\"hi\"); }\n");
    let file = program(dir.path(), "cache", "not a directory\n");
    for command in COMMANDS.iter().filter(|c| c[0] != "emit") {
        let out = rill_on(command, &main, &["--cache-dir", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{command:?}: {stderr}");
        assert_eq!(code(&out), 2, "{command:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "--cache-dir `{}` is not a directory",
                file.display()
            )),
            "{command:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{command:?}");
    }
}

#[test]
fn a_root_file_removed_after_a_cached_build_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let main = program(dir.path(), "main.rs", "fn main() { println!(\"hi\"); }\n");
    let cache = dir.path().join("cache");
    let cache = cache.to_str().unwrap();
    for command in [
        &["run", "--arch", "query"][..],
        &["check", "--arch", "query"],
    ] {
        let out = rill_on(command, &main, &["--cache-dir", cache]);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_file(&main).unwrap();
    for command in [
        &["run", "--arch", "query"][..],
        &["check", "--arch", "query"],
    ] {
        let out = rill_on(command, &main, &["--cache-dir", cache]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(code(&out), 2, "{stderr}");
        assert!(stderr.contains(&main.display().to_string()), "{stderr}");
    }
}

#[test]
fn build_links_without_running_and_leaves_the_image_for_run() {
    let dir = tempfile::tempdir().unwrap();
    // A program that would panic (exit 101) if it ran.
    let main = program(
        dir.path(),
        "main.rs",
        "fn div(a: i32, b: i32) -> i32 { a / b }\nfn main() { println!(\"start\"); println!(\"{}\", div(1, 0)); }\n",
    );
    let cache = dir.path().join("cache");
    let stats = dir.path().join("stats.json");
    let (main_s, cache_s, stats_s) = (
        main.to_str().unwrap(),
        cache.to_str().unwrap(),
        stats.to_str().unwrap(),
    );
    let mut hashes = Vec::new();
    for arch in ["pipeline", "query"] {
        let out = rill(&["build", main_s, "--arch", arch, "--stats-json", stats_s]);
        assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "the program did not run");
        let json = stats_of(&stats);
        assert!(json["phases_ms"].get("link").is_some(), "{arch}: linked");
        hashes.push(json["image_hash"].as_str().expect("image_hash").to_string());
    }
    assert_eq!(
        hashes[0], hashes[1],
        "both architectures link the same program"
    );
    // The query architecture's build keeps the linked image: a `run` after it links
    // nothing again, and runs that image.
    let out = rill(&["build", main_s, "--cache-dir", cache_s]);
    assert_eq!(code(&out), 0);
    let out = rill(&[
        "run",
        main_s,
        "--cache-dir",
        cache_s,
        "--stats-json",
        stats_s,
    ]);
    assert_eq!(code(&out), 101);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "start\n");
    let json = stats_of(&stats);
    assert_eq!(json["image_hash"].as_str(), Some(hashes[0].as_str()));
    assert_eq!(json["link"]["incremental"], true);
    assert_eq!(json["link"]["relinked"], 0);
    assert_eq!(
        json["queries"]["codegen"]["executed"].as_u64().unwrap_or(0),
        0
    );
    // Compile errors exit 1; the interpreter has no image to build.
    let bad = program(dir.path(), "bad.rs", "fn main() { let x: i32 = 5i64; }\n");
    for arch in ["pipeline", "query"] {
        let out = rill(&["build", bad.to_str().unwrap(), "--arch", arch]);
        assert_eq!(code(&out), 1, "{arch}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("error"));
    }
    assert_eq!(code(&rill(&["build", main_s, "--arch", "interp"])), 2);
}
