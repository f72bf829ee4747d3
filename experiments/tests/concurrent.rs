//! Concurrent builds through the `rill` command (issue 6, "Concurrency"): several
//! `rill run --arch query --cache-dir D` (and `rill check`) processes at once on one cache
//! directory — the same program, different programs, versions of one program under edit —
//! each gives the output of `--arch pipeline` (stdout, exit code, `image_hash`), none
//! panics, and the directory is valid afterwards: the next build is right and warns about
//! nothing, and a no-change rebuild after it executes nothing but the file reads (as in
//! `query/driver/tests/rill_minimality.rs`). Builds also run while another compacts the
//! cache, its renames and removals slowed down under `strace` (skipped, with a message,
//! without it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use experiments::shown::{read_stats, Shown};
use rill_gen::{self as gen, GenConfig, Program};

struct Finished {
    shown: Shown,
    stderr: String,
    stats: serde_json::Value,
}

fn spawn(args: &[&str], stats: &Path) -> Child {
    let _ = std::fs::remove_file(stats);
    Command::new(env!("CARGO_BIN_EXE_rill"))
        .args(args)
        .arg("--stats-json")
        .arg(stats)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rill starts")
}

fn finish(child: Child, stats: &Path) -> Finished {
    let out = child.wait_with_output().expect("rill ends");
    let stats = read_stats(stats);
    let (shown, _) = Shown::from_output(&out, &stats);
    Finished {
        shown,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stats,
    }
}

fn rill(args: &[&str], stats: &Path) -> Finished {
    finish(spawn(args, stats), stats)
}

/// One build to run: `run` or `check` of a program's root.
struct Job {
    sub: &'static str,
    main: PathBuf,
}

impl Job {
    fn args<'a>(&'a self, arch: &'a str, cache: Option<&'a str>) -> Vec<&'a str> {
        let mut a = vec![self.sub, self.main.to_str().unwrap(), "--arch", arch];
        if let Some(c) = cache {
            a.extend(["--cache-dir", c]);
        }
        if self.sub == "run" {
            a.extend(["--time-limit", "20"]);
        }
        a
    }
}

/// Runs every job at once on `cache` and checks each against the pipeline; returns how
/// many found the cache locked by another (and so did not save).
fn at_once(jobs: &[Job], cache: &Path, tmp: &Path, expected: &[Shown]) -> usize {
    let mut locked = 0;
    let c = cache.to_str().unwrap();
    let children: Vec<(Child, PathBuf)> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let stats = tmp.join(format!("stats-{i}.json"));
            (spawn(&j.args("query", Some(c)), &stats), stats)
        })
        .collect();
    for ((child, stats), (job, want)) in children.into_iter().zip(jobs.iter().zip(expected)) {
        let got = finish(child, &stats);
        assert!(
            !got.stderr.contains("panicked"),
            "{} {}: {}",
            job.sub,
            job.main.display(),
            got.stderr
        );
        assert_eq!(
            &got.shown,
            want,
            "{} {} differs from the pipeline; stderr:\n{}",
            job.sub,
            job.main.display(),
            got.stderr
        );
        locked += usize::from(got.stderr.contains("cannot lock"));
    }
    println!(
        "{} builds at once: {locked} found the cache locked",
        jobs.len()
    );
    locked
}

fn expected(jobs: &[Job], tmp: &Path) -> Vec<Shown> {
    jobs.iter()
        .map(|j| rill(&j.args("pipeline", None), &tmp.join("pipeline.json")).shown)
        .collect()
}

/// After the concurrent builds: the next build of `job` is right and warns about
/// nothing; a no-change rebuild then executes only the file reads (and the list of code
/// blobs handed to the linker, never persisted).
///
/// The concurrent builds may have stamped the program's files while they were still
/// racy (younger than `query_driver::stamp`'s window), which makes the stamps hold the
/// content. The check waits until the files are older than the window; the first build
/// then replaces those stamps (reading each such file once more, as a file that stops
/// being racy is), and the second is the no-change rebuild.
fn valid_afterwards(job: &Job, cache: &Path, tmp: &Path, want: &Shown) {
    settle(job.main.parent().expect("a program directory"));
    let c = cache.to_str().unwrap();
    let stats = tmp.join("after.json");
    let next = rill(&job.args("query", Some(c)), &stats);
    assert_eq!(&next.shown, want);
    assert!(
        !next.stderr.contains("warning"),
        "the build after the concurrent ones warned:\n{}",
        next.stderr
    );
    let again = rill(&job.args("query", Some(c)), &stats);
    assert_eq!(&again.shown, want);
    assert!(!again.stderr.contains("warning"), "{}", again.stderr);
    let executed = |kind: &str| {
        again.stats["queries"][kind]["executed"]
            .as_u64()
            .unwrap_or(0)
    };
    let total = again.stats["totals"]["executed"].as_u64().expect("totals");
    // Only the queries that execute in every session by their modifiers (the file reads
    // and the list of code) may run in a no-change rebuild.
    let every_session: u64 = <query_driver::RillDb as query::Database>::KINDS
        .iter()
        .filter(|k| k.flags.executes_every_session())
        .map(|k| executed(k.name))
        .sum();
    assert!(every_session > 0, "a rebuild reads the files again");
    assert_eq!(
        total, every_session,
        "a no-change rebuild executed more than what runs in every session: {}",
        again.stats["queries"]
    );
}

/// Waits until no file under `dir` is racy (at most ten seconds).
fn settle(dir: &Path) {
    use query_driver::stamp::is_racy;
    use shared_frontend::sema::modules::{system_time_ns, FileStat};
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    files(dir, &mut all);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        let now = system_time_ns(std::time::SystemTime::now());
        let racy = all
            .iter()
            .any(|p| is_racy(&FileStat::from_metadata(std::fs::metadata(p)), now));
        if !racy {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!(
        "the files under {} stayed racy for ten seconds",
        dir.display()
    );
}

fn program(seed: u64) -> Program {
    gen::generate(&GenConfig {
        seed,
        target_lines: 300,
        ..GenConfig::default()
    })
}

fn write(program: &Program, dir: &Path) -> PathBuf {
    program.write_to(dir).unwrap();
    dir.join("main.rs")
}

#[test]
fn the_same_program_built_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let main = write(&program(11), &tmp.path().join("p"));
    let jobs: Vec<Job> = (0..6)
        .map(|i| Job {
            sub: if i % 3 == 2 { "check" } else { "run" },
            main: main.clone(),
        })
        .collect();
    let want = expected(&jobs, tmp.path());
    assert_eq!(want[0].code, Some(0), "{:?}", want[0]);
    // Cold (no cache yet), then warm.
    for _ in 0..2 {
        at_once(&jobs, &cache, tmp.path(), &want);
    }
    valid_afterwards(&jobs[0], &cache, tmp.path(), &want[0]);
    valid_afterwards(&jobs[2], &cache, tmp.path(), &want[2]);
}

#[test]
fn different_programs_and_edits_built_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    // Two unrelated programs, a program with compile errors, and three versions of one
    // program under edit, each in its own directory.
    let base = program(21);
    let history = gen::edit_history(&base, 2, 21);
    let mut programs = vec![base.clone(), program(22)];
    programs.extend(history.iter().map(|e| e.program.clone()));
    let broken = gen::mutate_ill_formed(&program(23), 23).map(|m| m.program);
    programs.extend(broken);
    let mains: Vec<PathBuf> = programs
        .iter()
        .enumerate()
        .map(|(i, p)| write(p, &tmp.path().join(format!("p{i}"))))
        .collect();
    let jobs: Vec<Job> = mains
        .iter()
        .flat_map(|m| {
            [
                Job {
                    sub: "run",
                    main: m.clone(),
                },
                Job {
                    sub: "check",
                    main: m.clone(),
                },
            ]
        })
        .collect();
    let want = expected(&jobs, tmp.path());
    for round in 0..3 {
        // Rotate the start order so that a different build wins the lock each round.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.rotate_left(round * 3);
        let jobs_r: Vec<Job> = order
            .iter()
            .map(|&i| Job {
                sub: jobs[i].sub,
                main: jobs[i].main.clone(),
            })
            .collect();
        let want_r: Vec<Shown> = order
            .iter()
            .map(|&i| Shown {
                code: want[i].code,
                stdout: want[i].stdout.clone(),
                diagnostics: want[i].diagnostics.clone(),
                image_hash: want[i].image_hash.clone(),
            })
            .collect();
        at_once(&jobs_r, &cache, tmp.path(), &want_r);
    }
    // The cache is valid for each program afterwards (the first one that compiles).
    let ok = want
        .iter()
        .position(|w| w.code == Some(0))
        .expect("a program that compiles");
    valid_afterwards(&jobs[ok], &cache, tmp.path(), &want[ok]);
    let check = jobs
        .iter()
        .zip(&want)
        .position(|(j, w)| j.sub == "check" && w.code == Some(0))
        .expect("a clean check");
    valid_afterwards(&jobs[check], &cache, tmp.path(), &want[check]);
}

/// Whether `strace` is installed and may trace here; says so loudly when not.
fn strace_works() -> bool {
    let works = Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !works {
        // Straight to stderr: the test harness captures `eprintln!`.
        let _ = writeln!(
            std::io::stderr(),
            "\n========================================================================\n\
             WARNING: strace is missing or cannot trace here: the concurrent builds\n\
             during a compaction are SKIPPED (install strace to run them)\n\
             ========================================================================\n"
        );
    }
    works
}

/// Builds of two programs, several at a time, while another build on the same cache
/// directory compacts it: it writes a new cache file and a new link-state base, renames
/// each into place and removes the old journals. That build runs under `strace` with each
/// of those calls delayed, so the others load the cache before, between and after them.
/// Every build shows what the pipeline shows, and the cache is valid afterwards.
#[test]
fn builds_while_another_compacts() {
    if !strace_works() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let c = cache.to_str().unwrap();
    let v0 = program(31);
    let leaf = gen::apply_edit(&v0, gen::EditKind::LeafBody, 31)
        .expect("a leaf edit")
        .program;
    // Another program, large enough that its changes make a new cache file rather than a
    // journal segment.
    let other = gen::generate(&GenConfig {
        seed: 32,
        target_lines: 900,
        ..GenConfig::default()
    });
    let edited = tmp.path().join("edited");
    let main = write(&v0, &edited);
    let job = |main: &Path| Job {
        sub: "run",
        main: main.to_path_buf(),
    };
    // A cache file with a journal (an edit) and a link state with a journal.
    rill(
        &job(&main).args("query", Some(c)),
        &tmp.path().join("s.json"),
    );
    std::thread::sleep(std::time::Duration::from_millis(150));
    write(&leaf, &edited);
    std::thread::sleep(std::time::Duration::from_millis(150));
    rill(
        &job(&main).args("query", Some(c)),
        &tmp.path().join("s.json"),
    );
    assert!(cache.join("image/query-cache.delta").exists());
    assert!(cache.join("image/link-state.jnl").exists());
    let other_main = write(&other, &tmp.path().join("other"));
    std::thread::sleep(std::time::Duration::from_millis(150));
    let readers = [job(&main), job(&other_main)];
    let want = expected(&readers, tmp.path());

    let log = tmp.path().join("strace.log");
    let stats = tmp.path().join("compactor.json");
    let _ = std::fs::remove_file(&stats);
    let mut compactor = Command::new("strace")
        .args(["-f", "-o"])
        .arg(&log)
        .args([
            "-e",
            "trace=flock,rename,unlink,write",
            "-e",
            "inject=rename:delay_enter=400ms",
            "-e",
            "inject=unlink:delay_enter=200ms",
            "-e",
            "inject=write:delay_enter=100ms",
            env!("CARGO_BIN_EXE_rill"),
        ])
        .args(job(&other_main).args("query", Some(c)))
        .arg("--stats-json")
        .arg(&stats)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strace starts");
    // The others start once the compacting build holds the lock.
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .any(|l| l.contains("flock(") && l.ends_with("= 0"))
    {
        assert!(
            start.elapsed().as_secs() < 60,
            "the compacting build never locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // Waves of builds until the compacting build has ended, and one after.
    let mut waves = 0;
    loop {
        let ended = compactor.try_wait().unwrap().is_some();
        at_once(&readers, &cache, tmp.path(), &want);
        if ended {
            break;
        }
        waves += 1;
    }
    let got = finish(compactor, &stats);
    assert_eq!(got.shown, want[1], "the compacting build; {}", got.stderr);
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.lines()
            .any(|l| l.starts_with(|c: char| c.is_ascii_digit())
                && l.contains("rename(")
                && l.contains("query-cache.bin\")")),
        "the build did not compact:\n{log}"
    );
    println!("{waves} waves of builds while the cache was compacted");
    assert!(waves >= 2, "{waves}");
    valid_afterwards(&readers[1], &cache, tmp.path(), &want[1]);
    valid_afterwards(&readers[0], &cache, tmp.path(), &want[0]);
}
