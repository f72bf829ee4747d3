//! Hostile source through the `rill` process (DESIGN.md invariant 6, at the process level):
//! random bytes, invalid UTF-8, NUL bytes, truncations of valid programs, 100 000-deep
//! nesting, million-character identifiers, 5 000-digit literals, arrays too large to
//! allocate, a million-line program — for `--arch pipeline` and `--arch query` (with and
//! without a cache directory). Each ends with exit code 0 or 1 (or 101 for a program that
//! panics), within a time limit, never by a signal, and the compiler never prints
//! "panicked at". Also the runtime's limits: `--time-limit` and `--fuel` stop `loop {}`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What one `rill` process did.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `rill` with a wall-clock limit; a process still running then is killed and the
/// test fails (a hang).
fn rill(args: &[&str], limit: Duration) -> Run {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rill"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rill starts");
    // Drain the pipes on threads so that a chatty process cannot block on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rill {args:?} did not finish within {limit:?} (a hang)");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        status,
        stdout: String::from_utf8_lossy(&t_out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap()).into_owned(),
        elapsed: start.elapsed(),
    }
}

/// The architectures every hostile input goes through: the pipeline, the query driver
/// in memory, and the query driver on a cache directory (twice: cold, then warm).
fn configs(cache: &Path) -> Vec<Vec<String>> {
    let c = cache.to_string_lossy().into_owned();
    vec![
        vec!["--arch".into(), "pipeline".into()],
        vec!["--arch".into(), "query".into()],
        vec![
            "--arch".into(),
            "query".into(),
            "--cache-dir".into(),
            c.clone(),
        ],
        vec!["--arch".into(), "query".into(), "--cache-dir".into(), c],
    ]
}

/// Checks `rill check` and `rill run` on the program at `main` under every architecture:
/// exit 0, 1 or 101, no signal, no compiler panic. Returns the `check` exit codes.
fn survive(main: &Path, what: &str, limit: Duration) -> Vec<i32> {
    let cache = tempfile::tempdir().unwrap();
    let path = main.to_str().unwrap();
    let mut codes = Vec::new();
    for cfg in configs(cache.path()) {
        for sub in ["check", "run"] {
            let mut args = vec![sub, path];
            args.extend(cfg.iter().map(String::as_str));
            if sub == "run" {
                args.extend(["--time-limit", "5"]);
            }
            let r = rill(&args, limit);
            let code = r.status.code();
            assert!(
                matches!(code, Some(0 | 1 | 101)),
                "{what}: rill {args:?} ended with {:?}\nstderr: {}",
                r.status,
                tail(&r.stderr)
            );
            assert!(
                !r.stderr.contains("panicked at") || code == Some(101) && sub == "run",
                "{what}: rill {args:?}: the compiler panicked\nstderr: {}",
                tail(&r.stderr)
            );
            if code == Some(101) {
                // A panicking *program* is fine; a panicking compiler is not.
                assert_eq!(sub, "run", "{what}: rill {args:?} exited 101");
            }
            if sub == "check" {
                codes.push(code.unwrap_or(-1));
            }
        }
    }
    codes
}

fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(2000);
    let start = (start..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[start..]
}

fn write(dir: &Path, bytes: &[u8]) -> PathBuf {
    let p = dir.join("main.rs");
    std::fs::write(&p, bytes).unwrap();
    p
}

const LIMIT: Duration = Duration::from_secs(60);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_bytes_invalid_utf8_and_nul_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut inputs: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), vec![]),
        (
            "invalid utf-8".into(),
            b"fn main() { let x = \xff\xfe; }\n".to_vec(),
        ),
        (
            "a lone continuation byte in a string".into(),
            b"fn main() { println!(\"\x80\"); }\n".to_vec(),
        ),
        (
            "NUL bytes".into(),
            b"fn main() {\0 let x\0 = 1; }\0\n".to_vec(),
        ),
        ("only NULs".into(), vec![0; 10_000]),
        ("BOM".into(), b"\xef\xbb\xbffn main() {}\n".to_vec()),
    ];
    for i in 0..8 {
        let len = (rng.next() % 3000) as usize;
        inputs.push((
            format!("random bytes {i}"),
            (0..len).map(|_| rng.next() as u8).collect(),
        ));
        // Random printable text made of Rill tokens.
        let toks = [
            "fn", "main", "(", ")", "{", "}", "let", "x", "=", "1", ";", "[", "]", "mod", "struct",
            "const", "i64", ":", "->", "+", "*", "if", "else", "while", "loop", "\"s\"", "'", "//",
            "/*", "*/", "r#", "0x", "1e9", "..", "::", "&", "mut", "match", "=>", ",",
        ];
        let text: String = (0..len / 4)
            .map(|_| toks[(rng.next() % toks.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ");
        inputs.push((format!("random tokens {i}"), text.into_bytes()));
    }
    for (what, bytes) in inputs {
        let main = write(dir.path(), &bytes);
        survive(&main, &what, LIMIT);
    }
}

const VALID: &str = r#"
mod geo {
    #[derive(Clone, Copy)]
    pub struct P { pub x: i64, pub y: i64 }
    pub fn dist2(a: P, b: P) -> i64 { let dx = a.x - b.x; let dy = a.y - b.y; dx * dx + dy * dy }
}
const N: usize = 4;
fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
fn main() {
    let mut a = [0i64; N];
    let mut i = 0;
    while i < N { a[i] = (i as i64) * 3; i += 1; }
    let p = geo::P { x: 1, y: 2 };
    let q = geo::P { x: a[3], y: -4 };
    println!("{} {}", geo::dist2(p, q), fib(20));
}
"#;

#[test]
fn truncations_of_a_valid_program() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), VALID.as_bytes());
    assert_eq!(survive(&main, "the valid program", LIMIT), vec![0; 4]);
    let bytes = VALID.as_bytes();
    let step = (bytes.len() / 24).max(1);
    for len in (0..bytes.len()).step_by(step) {
        let main = write(dir.path(), &bytes[..len]);
        survive(&main, &format!("truncated to {len}"), LIMIT);
    }
}

fn nested(open: &str, mid: &str, close: &str, depth: usize) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * depth + mid.len());
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(mid);
    for _ in 0..depth {
        s.push_str(close);
    }
    s
}

#[test]
fn deep_nesting_long_tokens_and_huge_arrays() {
    const DEEP: usize = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, String)> =
        vec![
        (
            "parentheses",
            format!("fn main() {{ let x: i64 = {}; }}\n", nested("(", "1", ")", DEEP)),
        ),
        (
            "blocks",
            format!("fn main() {{ let x: i64 = {}; }}\n", nested("{", "1", "}", DEEP)),
        ),
        (
            "unary minus",
            format!("fn main() {{ let x: i64 = {}1; }}\n", "- ".repeat(DEEP)),
        ),
        (
            "unary not",
            format!("fn main() {{ let x: bool = {}true; }}\n", "!".repeat(DEEP)),
        ),
        (
            "modules",
            format!("{}\nfn main() {{}}\n", nested("mod m { ", "", "} ", DEEP)),
        ),
        (
            "array types",
            format!(
                "fn main() {{ let x: {} = 0; }}\n",
                nested("[", "i64", "; 1]", DEEP)
            ),
        ),
        (
            "if-else chain",
            format!(
                "fn main() {{ let x: i64 = {}; }}\n",
                nested("if true { ", "1", " } else { 0 }", DEEP)
            ),
        ),
        (
            "a million-character identifier",
            format!("fn main() {{ let {}: i64 = 1; }}\n", "a".repeat(1_000_000)),
        ),
        (
            "a million-character function name",
            format!("fn {}() {{}}\nfn main() {{}}\n", "f".repeat(1_000_000)),
        ),
        (
            "a 5000-digit literal",
            format!("fn main() {{ let x: i64 = {}; }}\n", "9".repeat(5000)),
        ),
        (
            "a 5000-digit literal with a suffix",
            format!("fn main() {{ let x = {}u64; }}\n", "1".repeat(5000)),
        ),
        (
            "a 1 << 40 array",
            "fn main() { let a = [0i64; 1 << 40]; println!(\"{}\", a[0]); }\n".into(),
        ),
        (
            "a huge array constant",
            "const A: [i64; 1 << 40] = [0i64; 1 << 40];\nfn main() { println!(\"{}\", A[0]); }\n"
                .into(),
        ),
        (
            "a huge array type in a struct",
            "struct S { a: [[i64; 1 << 20]; 1 << 20] }\nfn main() {}\n".into(),
        ),
        (
            "a huge string literal",
            format!("fn main() {{ println!(\"{}\"); }}\n", "x".repeat(1_000_000)),
        ),
        (
            "an unterminated comment",
            format!("fn main() {{}}\n{}", "/* ".repeat(DEEP)),
        ),
    ];
    for (what, text) in cases {
        let main = write(dir.path(), text.as_bytes());
        let codes = survive(&main, what, LIMIT);
        // None of these is a valid Rill program within the implementation limits.
        assert!(
            codes.iter().all(|&c| c == 1) || what.contains("string") || what.contains("name"),
            "{what}: check exit codes {codes:?}"
        );
    }
}

#[test]
fn a_million_line_program() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = rill_gen::GenConfig {
        seed: 11,
        target_lines: 1_000_000,
        editable: false,
        ..rill_gen::GenConfig::default()
    };
    let program = rill_gen::generate(&cfg);
    assert!(program.total_lines() > 500_000);
    program.write_to(dir.path()).unwrap();
    let main = dir.path().join("main.rs");
    let path = main.to_str().unwrap();
    // One check per architecture (time in CI matters); the query driver with a cache,
    // twice (the second run reuses it).
    let cache = tempfile::tempdir().unwrap();
    let c = cache.path().to_str().unwrap();
    // Generated programs are meant to be valid; whether this one is, both drivers must
    // say the same (exit 0 or 1, same diagnostics), in bounded time.
    let mut seen: Vec<(Option<i32>, String)> = Vec::new();
    for args in [
        vec!["check", path, "--arch", "pipeline"],
        vec!["check", path, "--arch", "query", "--cache-dir", c],
        vec!["check", path, "--arch", "query", "--cache-dir", c],
    ] {
        let r = rill(&args, Duration::from_secs(600));
        assert!(
            matches!(r.status.code(), Some(0 | 1)) && !r.stderr.contains("panicked at"),
            "rill {args:?}: {:?}\n{}",
            r.status,
            tail(&r.stderr)
        );
        println!("rill {:?}: {:.1}s", &args[2..], r.elapsed.as_secs_f64());
        let diags: String = r
            .stderr
            .lines()
            .filter(|l| !l.starts_with("warning: query cache"))
            .collect();
        seen.push((r.status.code(), diags));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
}

#[test]
fn runaway_programs_are_stopped_by_the_time_limit_and_fuel() {
    let dir = tempfile::tempdir().unwrap();
    for (what, text) in [
        ("loop {}", "fn main() { println!(\"start\"); loop {} }\n"),
        (
            "a busy loop",
            "fn main() { let mut i: u64 = 0; loop { i = (i + 1) % 1000; } }\n",
        ),
        (
            "infinite recursion in a loop",
            "fn f(n: u64) -> u64 { if n == 0 { 0 } else { f(n - 1) } }\nfn main() { loop { f(1000); } }\n",
        ),
    ] {
        let main = write(dir.path(), text.as_bytes());
        let path = main.to_str().unwrap();
        for arch in ["pipeline", "query"] {
            let r = rill(
                &["run", path, "--arch", arch, "--time-limit", "0.5"],
                Duration::from_secs(60),
            );
            assert_eq!(
                r.status.code(),
                Some(shared_frontend::ir::interp::OUT_OF_FUEL_EXIT_CODE),
                "{what} ({arch}): {:?} {}",
                r.status,
                r.stderr
            );
            assert!(r.elapsed < Duration::from_secs(30), "{what}: {:?}", r.elapsed);
            if what == "loop {}" {
                assert_eq!(r.stdout, "start\n");
            }
        }
        let r = rill(
            &["run", path, "--arch", "interp", "--fuel", "1000000"],
            Duration::from_secs(60),
        );
        assert_eq!(
            r.status.code(),
            Some(shared_frontend::ir::interp::OUT_OF_FUEL_EXIT_CODE),
            "{what} (interp): {:?} {}",
            r.status,
            r.stderr
        );
        assert!(r.stderr.contains("ran out of fuel"), "{}", r.stderr);
    }
}

/// The regions of this process's memory that are writable and executable at once.
fn wx_regions() -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter(|l| {
            let perms = l.split_whitespace().nth(1).unwrap_or("");
            perms.contains('w') && perms.contains('x')
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn jit_memory_is_never_writable_and_executable() {
    if !Path::new("/proc/self/maps").exists() {
        return;
    }
    let before = wx_regions();
    let dir = tempfile::tempdir().unwrap();
    let main = write(
        dir.path(),
        b"fn f(n: u64) -> u64 { if n < 2 { n } else { f(n - 1) + f(n - 2) } }\nfn main() { println!(\"{}\", f(10)); loop {} }\n",
    );
    // Compile and run on a thread (the program loops until the time limit) while this
    // thread watches the memory map: at no moment may a region be W+X.
    let root = main.clone();
    let runner = std::thread::spawn(move || {
        let compiled = pipeline::compile_path(&root, pipeline::Until::Image);
        let image = compiled.image.expect("the program compiles");
        let limits = backend::RunLimits {
            timeout: Some(Duration::from_millis(1500)),
            ..backend::RunLimits::default()
        };
        image.run(&limits)
    });
    let mut samples = 0;
    while !runner.is_finished() {
        let now = wx_regions();
        let new: Vec<_> = now.iter().filter(|r| !before.contains(r)).collect();
        assert!(new.is_empty(), "W+X memory while the JIT runs: {new:?}");
        samples += 1;
        std::thread::sleep(Duration::from_millis(2));
    }
    let outcome = runner.join().unwrap();
    assert_eq!(String::from_utf8_lossy(&outcome.stdout), "55\n");
    assert!(samples > 10, "only {samples} samples of the memory map");
    assert!(wx_regions().iter().all(|r| before.contains(r)));
}
