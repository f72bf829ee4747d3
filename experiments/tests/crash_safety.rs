//! Saves cut short, through the real `rill` process (Invariant 6: a save killed at any
//! write leaves the previous state). A build of `rill run --arch query --cache-dir D` runs
//! under `strace`, which kills it at one call of the write family (`write`, `pwrite64`,
//! `writev`, `fsync`, `fdatasync`, `ftruncate`, `rename*`, `openat`, `mkdir`, `unlink*`),
//! or makes that one call fail with `ENOSPC` or `EIO`; then:
//!
//! - after a kill, the next normal build shows what the pipeline shows (stdout, exit
//!   code, diagnostics, `image_hash`), and the build after it is a real incremental one:
//!   it warns about nothing, executes only what runs in every session, and patches the
//!   link state instead of linking from scratch (the cache was not lost);
//! - after a failed call, the build itself still shows the right output and exits with 0,
//!   with a warning when something was not saved; the previous cache serves the next
//!   build (it executes no more than the build from it did), and the build after that is
//!   incremental as above;
//! - the cache directory holds no stray temporary files afterwards.
//!
//! The builds cut short: a no-change build; a leaf edit (a new journal for the query
//! cache, a record in a new link-state journal); a second edit (a segment appended to the
//! journal, a record to the link state's); a first build (a new cache file and a new
//! link-state base); a change big enough to compact the cache (a new cache file put in
//! place by rename, the journal removed, a new link-state base); the second edit and the
//! compaction again with `RILL_FSYNC=1` (a sync before each rename and after each
//! append). A dry run under `strace` lists the calls each build makes; by default the
//! cases are the calls on files in the cache directory, and with `RILL_KILL_STEPS=all`
//! every call of the family (the source files' opens, the statistics file, stdout) at
//! every invocation number.
//!
//! An unwritable cache directory: `--cache-dir` under a regular file (`ENOTDIR`), and
//! `mkdir` or one `openat` in the cache directory failing with `EACCES` (the tests run as
//! root, where permissions deny nothing). Every build shows the right output with a clear
//! warning, and none panics.
//!
//! Without `strace` (or where it may not trace), the cases that need it are skipped with a
//! loud message on stderr; the rest still run.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::OnceLock;
use std::time::Duration;

use experiments::shown::{read_stats, Shown};
use rill_gen::{self as gen, EditKind, GenConfig, Program};

/// The system calls a save can be cut at.
const WRITE_FAMILY: &[&str] = &[
    "write",
    "pwrite64",
    "writev",
    "fsync",
    "fdatasync",
    "ftruncate",
    "rename",
    "renameat",
    "renameat2",
    "openat",
    "mkdir",
    "unlink",
    "unlinkat",
];

/// The files a cache directory's goal folder may hold between builds.
const CACHE_FILES: &[&str] = &[
    "query-cache.bin",
    "query-cache.delta",
    "query-cache.lock",
    "link-state.bin",
    "link-state.jnl",
    "query-cache.checked",
    "link-state.checked",
];

/// Whether `strace` is installed and may trace here; says so loudly when not.
fn strace_works() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        let works = Command::new("strace")
            .args([
                "-f",
                "-o",
                "/dev/null",
                "-e",
                "inject=getpid:retval=1",
                "true",
            ])
            .status()
            .is_ok_and(|s| s.success());
        if !works {
            // Straight to stderr: the test harness captures `eprintln!`.
            let _ = writeln!(
                std::io::stderr(),
                "\n========================================================================\n\
                 WARNING: strace is missing or cannot trace here: the kill and fault\n\
                 injection cases of crash_safety.rs are SKIPPED (install strace to run them)\n\
                 ========================================================================\n"
            );
        }
        works
    })
}

/// Every invocation of every call (`RILL_KILL_STEPS=all`) rather than the cache's.
fn all_steps() -> bool {
    std::env::var("RILL_KILL_STEPS").is_ok_and(|v| v == "all")
}

/// The source files are older than the racy window when a build stamps them, so that
/// every build of a case reads the same files (and makes the same calls).
fn settle() {
    std::thread::sleep(Duration::from_millis(150));
}

/// What one `rill run` process did.
struct Run {
    status: ExitStatus,
    /// What it showed, cache and link-state warnings left out.
    shown: Shown,
    /// Those warnings.
    warnings: Vec<String>,
    stderr: String,
    stats: serde_json::Value,
    /// The `strace` log (empty without `strace`).
    log: String,
}

impl Run {
    fn executed(&self) -> u64 {
        self.stats["totals"]["executed"].as_u64().unwrap_or(0)
    }
}

/// Where a case's `rill` runs: its program, cache directory and scratch files.
struct Place {
    main: PathBuf,
    cache: PathBuf,
    stats: PathBuf,
    log: PathBuf,
    /// Whether saves sync what they write (`RILL_FSYNC=1`).
    fsync: bool,
}

/// `rill run MAIN --arch ARCH [--cache-dir D]`, under `strace -e inject=INJECT` when
/// `inject` is given (`""`: traced without injecting).
fn rill(place: &Place, arch: &str, cache: Option<&Path>, inject: Option<&str>) -> Run {
    let _ = std::fs::remove_file(&place.stats);
    let _ = std::fs::remove_file(&place.log);
    let rill = env!("CARGO_BIN_EXE_rill");
    let mut cmd = match inject {
        Some(spec) => {
            let mut c = Command::new("strace");
            c.args(["-f", "-y", "-s", "200", "-o"])
                .arg(&place.log)
                .args(["-e", &format!("trace={}", WRITE_FAMILY.join(","))]);
            if !spec.is_empty() {
                c.args(["-e", &format!("inject={spec}")]);
            }
            c.arg(rill);
            c
        }
        None => Command::new(rill),
    };
    cmd.args(["run", place.main.to_str().unwrap(), "--arch", arch])
        .args(["--time-limit", "20", "--stats-json"])
        .arg(&place.stats)
        .env("NO_COLOR", "1")
        .env("RILL_FSYNC", if place.fsync { "1" } else { "0" });
    if let Some(c) = cache {
        cmd.arg("--cache-dir").arg(c);
    }
    let out = cmd.output().expect("rill runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "rill panicked:\n{stderr}");
    let stats = read_stats(&place.stats);
    let (mut shown, mut warnings) = Shown::from_output(&out, &stats);
    let (link, rest): (Vec<&str>, Vec<&str>) = shown
        .diagnostics
        .lines()
        .partition(|l| l.starts_with("warning: link state"));
    warnings.extend(link.into_iter().map(str::to_string));
    shown.diagnostics = rest.iter().map(|l| format!("{l}\n")).collect();
    Run {
        status: out.status,
        shown,
        warnings,
        stderr,
        stats,
        log: std::fs::read_to_string(&place.log).unwrap_or_default(),
    }
}

/// One call of the write family in a `strace` log: its name, its invocation number among
/// the calls of that name (what `when=` counts), and its line.
#[derive(Clone, Debug)]
struct Call {
    name: String,
    n: usize,
    line: String,
}

fn calls(log: &str) -> Vec<Call> {
    let mut counts = std::collections::HashMap::<String, usize>::new();
    let mut out = Vec::new();
    for line in log.lines() {
        // `PID name(args) = result`; signals and exits are `--- ...` and `+++ ...`.
        let text = line
            .split_once(' ')
            .map_or(line, |(_, rest)| rest.trim_start());
        let Some((name, _)) = text.split_once('(') else {
            continue;
        };
        if !WRITE_FAMILY.contains(&name) {
            continue;
        }
        let n = counts.entry(name.to_string()).or_default();
        *n += 1;
        out.push(Call {
            name: name.to_string(),
            n: *n,
            line: text.to_string(),
        });
    }
    out
}

/// Whether a call works on the cache directory `cache`, and writes there (an `openat`
/// only when it creates).
fn writes_cache(call: &Call, cache: &Path) -> bool {
    call.line.contains(cache.to_str().unwrap())
        && (call.name != "openat" || call.line.contains("O_CREAT"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// The cache directory as it was before the build cut short.
fn restore(saved: &Path, cache: &Path) {
    let _ = std::fs::remove_dir_all(cache);
    if saved.exists() {
        copy_dir(saved, cache);
        // The copies are new files: a build that loaded one within the racy window of
        // its change time would not record it as checked (`*.checked`), and one that
        // loaded it later would, so two builds of a case could make different calls
        // depending on how fast they started. Past the window, every build records it.
        settle();
    }
}

/// Files in the cache's goal folder that no build reads (a temporary file left behind).
fn stray_files(cache: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(cache.join("image")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !CACHE_FILES.contains(&n.as_str()))
        .collect()
}

/// The queries that execute in every session by their modifiers (the file reads and the
/// list of code handed to the linker): all a no-change build on a valid cache executes.
fn every_session(run: &Run) -> u64 {
    <query_driver::RillDb as query::Database>::KINDS
        .iter()
        .filter(|k| k.flags.executes_every_session())
        .map(|k| {
            run.stats["queries"][k.name]["executed"]
                .as_u64()
                .unwrap_or(0)
        })
        .sum()
}

/// A build cut short, prepared: the cache directory before it (saved), the program it
/// builds, what the pipeline shows for that program, and the calls of a dry run.
struct Case {
    name: &'static str,
    place: Place,
    saved: PathBuf,
    expected: Shown,
    dry: Run,
}

fn write(p: &Program, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    p.write_to(dir).unwrap();
}

/// Puts `p` in `dir` where `last` was, as an editor saves: only the files that changed are
/// written (the others keep their stamps), and those gone are removed.
fn edit(p: &Program, last: Option<&Program>, dir: &Path) {
    let Some(last) = last else {
        return write(p, dir);
    };
    for f in &p.files {
        if !last.files.contains(f) {
            let path = dir.join(&f.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, &f.text).unwrap();
        }
    }
    for f in &last.files {
        if !p.files.iter().any(|g| g.path == f.path) {
            std::fs::remove_file(dir.join(&f.path)).unwrap();
        }
    }
}

/// Builds each of `before` in turn on a new cache directory (the program in one folder,
/// rewritten, as an editor would), saves the directory, then writes `target` and makes a
/// dry run of its build. `touches`: what the dry run's calls must include (the case's
/// reason to be), as substrings of their lines, with `D` for the cache directory and `N`
/// for every file descriptor.
fn prepare(
    root: &Path,
    name: &'static str,
    (before, target): (&[&Program], &Program),
    fsync: bool,
    touches: &[&str],
) -> Case {
    let base = root.join(name);
    let src = base.join("src");
    let place = Place {
        main: src.join("main.rs"),
        cache: base.join("cache"),
        stats: base.join("stats.json"),
        log: base.join("strace.log"),
        fsync,
    };
    let saved = base.join("saved");
    let _ = std::fs::remove_dir_all(&src);
    let mut last: Option<&Program> = None;
    for &p in before {
        edit(p, last, &src);
        last = Some(p);
        settle();
        let r = rill(&place, "query", Some(&place.cache), None);
        assert!(r.warnings.is_empty(), "{name}: {:?}", r.warnings);
    }
    if place.cache.exists() {
        copy_dir(&place.cache, &saved);
    }
    edit(target, last, &src);
    settle();
    let expected = rill(&place, "pipeline", None, None).shown;
    assert_eq!(expected.code, Some(0), "{name}: {expected:?}");
    restore(&saved, &place.cache);
    let dry = rill(&place, "query", Some(&place.cache), Some(""));
    assert_eq!(dry.shown, expected, "{name}: the dry run");
    let cache = place.cache.to_str().unwrap();
    for t in touches {
        assert!(
            dry.log
                .lines()
                .any(|l| without_fds(&l.replace(cache, "D")).contains(t)),
            "{name}: the build makes no call on `{t}`:\n{}",
            dry.log
        );
    }
    for c in calls(&dry.log)
        .iter()
        .filter(|c| writes_cache(c, &place.cache))
    {
        let line = c.line.replace(cache, "D");
        let short: String = line.chars().take(100).collect();
        println!("{name}: {} #{}: {short}", c.name, c.n);
    }
    Case {
        name,
        place,
        saved,
        expected,
        dry,
    }
}

/// The calls of the dry run to cut at: those on the cache directory, or all of them.
fn chosen(case: &Case) -> Vec<Call> {
    calls(&case.dry.log)
        .into_iter()
        .filter(|c| all_steps() || writes_cache(c, &case.place.cache))
        .collect()
}

/// The build after the one cut short (and the one after it): `recovered` is the next
/// build, which must show the right output; the build after it must be incremental.
fn check_after(case: &Case, what: &str, recovered: &Run) {
    let place = &case.place;
    assert_eq!(
        recovered.shown, case.expected,
        "{}: the build after {what}; stderr:\n{}",
        case.name, recovered.stderr
    );
    let later = rill(place, "query", Some(&place.cache), None);
    assert_eq!(later.shown, case.expected, "{}: after {what}", case.name);
    assert!(
        later.warnings.is_empty(),
        "{}: the second build after {what} warned: {:?}",
        case.name,
        later.warnings
    );
    assert_eq!(
        later.executed(),
        every_session(&later),
        "{}: the second build after {what} executed more than a no-change build does: {}",
        case.name,
        later.stats["queries"]
    );
    assert_eq!(
        later.stats["link"]["incremental"],
        serde_json::Value::Bool(true),
        "{}: the second build after {what} linked from scratch: {}",
        case.name,
        later.stats["link"]
    );
    let stray = stray_files(&place.cache);
    assert!(
        stray.is_empty(),
        "{}: files left in the cache after {what}: {stray:?}",
        case.name
    );
}

/// Kills the build at each chosen call; checks the builds after it.
fn kill_at_every_write(case: &Case) -> usize {
    let place = &case.place;
    let mut cases = 0;
    for call in chosen(case) {
        restore(&case.saved, &place.cache);
        let what = format!("a kill at {} #{} `{}`", call.name, call.n, call.line);
        let spec = format!("{}:signal=KILL:when={}", call.name, call.n);
        let killed = rill(place, "query", Some(&place.cache), Some(&spec));
        assert_eq!(
            killed.status.signal(),
            Some(libc::SIGKILL),
            "{}: {what}: the build was not killed (it made other calls than the dry run); log:\n{}",
            case.name,
            killed.log
        );
        let recovered = rill(place, "query", Some(&place.cache), None);
        check_after(case, &what, &recovered);
        cases += 1;
    }
    cases
}

/// Calls whose failure the build may ignore without a warning: creating a directory that
/// exists (`create_dir_all` looks again), removing a file nothing reads any more, and
/// writing the record of a checked file (`*.checked`: without it the next build checks
/// that file again).
fn failure_may_be_silent(call: &Call) -> bool {
    matches!(call.name.as_str(), "mkdir" | "unlink" | "unlinkat") || call.line.contains(".checked")
}

/// Makes each chosen call on the cache fail with `errno`; checks the build itself and the
/// builds after it.
fn fail_at_every_write(case: &Case, errno: &str) -> usize {
    let place = &case.place;
    let mut cases = 0;
    for call in chosen(case) {
        if !writes_cache(&call, &place.cache) {
            // A failed write to stdout or the statistics file is not the cache's concern.
            continue;
        }
        restore(&case.saved, &place.cache);
        let what = format!("{errno} at {} #{} `{}`", call.name, call.n, call.line);
        let spec = format!("{}:error={errno}:when={}", call.name, call.n);
        let failed = rill(place, "query", Some(&place.cache), Some(&spec));
        let injected: Vec<&str> = failed
            .log
            .lines()
            .filter(|l| l.contains("(INJECTED)"))
            .collect();
        assert!(
            injected.len() == 1 && injected[0].contains(place.cache.to_str().unwrap()),
            "{}: {what}: the failure hit another call: {injected:?}",
            case.name
        );
        assert_eq!(
            failed.status.code(),
            Some(0),
            "{}: {what}: stderr:\n{}",
            case.name,
            failed.stderr
        );
        assert_eq!(
            failed.shown, case.expected,
            "{}: {what}: stderr:\n{}",
            case.name, failed.stderr
        );
        if !failure_may_be_silent(&call) {
            assert!(
                !failed.warnings.is_empty(),
                "{}: {what}: no warning; stderr:\n{}",
                case.name,
                failed.stderr
            );
        }
        let next = rill(place, "query", Some(&place.cache), None);
        if case.saved.exists() {
            assert!(
                next.executed() <= case.dry.executed(),
                "{}: after {what}, the next build executed {} queries, the build from the \
                 previous cache {}: the previous cache was lost",
                case.name,
                next.executed(),
                case.dry.executed()
            );
        }
        check_after(case, &what, &next);
        cases += 1;
    }
    cases
}

fn program(seed: u64, lines: usize) -> Program {
    gen::generate(&GenConfig {
        seed,
        target_lines: lines,
        ..GenConfig::default()
    })
}

/// `line` with every file descriptor strace shows (`(5</path>`) written as `N`, so that
/// what a call must touch does not depend on how many files are open.
fn without_fds(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find('(') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with('<') {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// The builds cut short (see the module documentation).
fn cases(root: &Path) -> Vec<Case> {
    let v0 = program(41, 150);
    let leaf = gen::apply_edit(&v0, EditKind::LeafBody, 41)
        .expect("a leaf edit")
        .program;
    let leaf2 = gen::apply_edit(&leaf, EditKind::LeafBody, 43)
        .expect("a leaf edit")
        .program;
    // Another program altogether, large enough that its journal segment would pass the
    // compaction threshold (64 KiB at least).
    let other = program(42, 900);
    let compacting = ["query-cache.bin\")", "link-state.bin\")"];
    vec![
        prepare(
            root,
            "no-change",
            (&[&v0], &v0),
            false,
            &["query-cache.lock"],
        ),
        prepare(
            root,
            "leaf-edit",
            (&[&v0], &leaf),
            false,
            &["query-cache.delta", "link-state.jnl"],
        ),
        // A journal there already: the segment is appended after its last whole one.
        prepare(
            root,
            "second-edit",
            (&[&v0, &leaf], &leaf2),
            false,
            &[
                "ftruncate(N<D/image/query-cache.delta>",
                "pwrite64(N<D/image/link-state.jnl>",
            ],
        ),
        prepare(root, "first-build", (&[], &v0), false, &compacting),
        prepare(
            root,
            "compaction",
            (&[&v0, &leaf], &other),
            false,
            &compacting,
        ),
        // The same with the cache files synced before they are put in place.
        prepare(
            root,
            "second-edit-fsync",
            (&[&v0, &leaf], &leaf2),
            true,
            &["fsync(N<D/image/query-cache.delta>"],
        ),
        prepare(
            root,
            "compaction-fsync",
            (&[&v0, &leaf], &other),
            true,
            &["fsync(N<D/image/query-cache.bin.tmp"],
        ),
    ]
}

#[test]
fn a_build_killed_at_any_write_keeps_the_cache() {
    if !strace_works() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut total = 0;
    for case in cases(tmp.path()) {
        let n = kill_at_every_write(&case);
        assert!(n > 0, "{}: no call to cut at", case.name);
        println!("{}: killed at {n} calls", case.name);
        total += n;
    }
    println!("{total} kills");
}

#[test]
fn a_full_disk_or_an_io_error_keeps_the_cache() {
    if !strace_works() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for case in cases(tmp.path()) {
        for errno in ["ENOSPC", "EIO"] {
            let n = fail_at_every_write(&case, errno);
            println!("{}: {errno} at {n} calls", case.name);
        }
    }
}

/// `rill run` with `--cache-dir` under a regular file: the right output, exit 0, one
/// warning, twice in a row.
#[test]
fn a_cache_directory_under_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    write(&program(43, 120), &src);
    let file = tmp.path().join("file");
    std::fs::write(&file, "not a directory").unwrap();
    let place = Place {
        main: src.join("main.rs"),
        cache: file.join("cache"),
        stats: tmp.path().join("stats.json"),
        log: tmp.path().join("strace.log"),
        fsync: false,
    };
    let expected = rill(&place, "pipeline", None, None).shown;
    for _ in 0..2 {
        let r = rill(&place, "query", Some(&place.cache), None);
        assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
        assert_eq!(r.shown, expected, "{}", r.stderr);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(
            r.warnings[0].contains("cannot create") && r.warnings[0].contains("Not a directory"),
            "{:?}",
            r.warnings
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

/// `mkdir` failing with `EACCES` (a cache directory that cannot be created), then each
/// `openat` in an existing cache directory failing with `EACCES` (reads and creates):
/// the right output, exit 0, a warning, no panic; the directory serves the build after.
#[test]
fn an_unwritable_cache_directory() {
    if !strace_works() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let v0 = program(44, 150);
    let leaf = gen::apply_edit(&v0, EditKind::LeafBody, 44)
        .expect("a leaf edit")
        .program;

    // A new cache directory that cannot be created.
    let first = prepare(tmp.path(), "mkdir", (&[], &v0), false, &["mkdir("]);
    restore(&first.saved, &first.place.cache);
    let r = rill(
        &first.place,
        "query",
        Some(&first.place.cache),
        Some("mkdir:error=EACCES"),
    );
    assert_eq!(r.status.code(), Some(0), "{}", r.stderr);
    assert_eq!(r.shown, first.expected, "{}", r.stderr);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("cannot create") && r.warnings[0].contains("Permission denied"),
        "{:?}",
        r.warnings
    );
    assert!(!first.place.cache.exists());

    // Each open in an existing cache directory.
    let case = prepare(
        tmp.path(),
        "openat",
        (&[&v0], &leaf),
        false,
        &["query-cache.bin", "query-cache.delta"],
    );
    let opens: Vec<Call> = calls(&case.dry.log)
        .into_iter()
        .filter(|c| c.name == "openat" && c.line.contains(case.place.cache.to_str().unwrap()))
        .collect();
    assert!(opens.len() >= 4, "{opens:?}");
    for call in opens {
        restore(&case.saved, &case.place.cache);
        let what = format!("EACCES at openat #{} `{}`", call.n, call.line);
        let spec = format!("openat:error=EACCES:when={}", call.n);
        let r = rill(&case.place, "query", Some(&case.place.cache), Some(&spec));
        assert_eq!(r.status.code(), Some(0), "{what}: {}", r.stderr);
        assert_eq!(r.shown, case.expected, "{what}: {}", r.stderr);
        // Listing the directory for stale temporary files may fail silently, and so may a
        // record of a checked file (`*.checked`): one that cannot be read or written only
        // means that the next build checks that file again.
        let may_be_silent = call.line.contains("O_DIRECTORY") || failure_may_be_silent(&call);
        assert!(
            (may_be_silent || !r.warnings.is_empty())
                && r.warnings.iter().all(|w| w.contains("Permission denied")),
            "{what}: {:?}",
            r.warnings
        );
        let next = rill(&case.place, "query", Some(&case.place.cache), None);
        check_after(&case, &what, &next);
    }
}
