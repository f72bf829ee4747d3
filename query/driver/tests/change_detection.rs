//! Change detection on real files: each build runs in a new session on one cache
//! directory (as `rill` processes do) and must equal a from-scratch build of the files
//! as they are (diagnostics, image hash and the program's output); the stamps decide
//! which files are read (`query_driver::stamp`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use query_driver::stamp::{dir_stat, is_racy};
use query_driver::{Build, BuildOptions, ChangeDetection, Goal, Session};
use shared_frontend::sema::modules::{system_time_ns, FileLoader, FileStat, FsLoader};

const MAIN: &str = "mod a;
mod b;

fn main() {
    println!(\"{}\", a::f() + b::g());
}
";
const A: &str = "pub fn f() -> i64 {
    11
}
";
const B: &str = "pub fn g() -> i64 {
    1000
}
";

/// The file system, counting reads per path; `coarse` truncates times to whole seconds
/// (a file system with 1 s timestamps).
#[derive(Default)]
struct Fs {
    reads: Mutex<BTreeMap<PathBuf, usize>>,
    coarse: bool,
}

impl Fs {
    fn reads(&self) -> usize {
        self.reads.lock().unwrap().values().sum()
    }

    fn reads_of(&self, path: &Path) -> usize {
        self.reads.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

impl FileLoader for Fs {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        *self
            .reads
            .lock()
            .unwrap()
            .entry(path.to_path_buf())
            .or_default() += 1;
        FsLoader.load(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        FsLoader.is_file(path)
    }

    fn stat(&self, path: &Path) -> Option<FileStat> {
        let mut stat = FsLoader.stat(path)?;
        if self.coarse {
            let second = |ns: i128| ns.div_euclid(1_000_000_000) * 1_000_000_000;
            stat.mtime_ns = second(stat.mtime_ns);
            stat.ctime_ns = second(stat.ctime_ns);
        }
        Some(stat)
    }
}

/// A program in a temporary directory, and a cache directory beside it.
struct Project {
    dir: tempfile::TempDir,
    cache: tempfile::TempDir,
    detection: ChangeDetection,
    coarse: bool,
    /// A missing path's absence is implied by its directory's stamp (as in a `rill`
    /// process: `Host::directories`).
    directories: bool,
}

/// One build on the project's cache and what it showed.
struct Built {
    build: Build,
    fs: Arc<Fs>,
    /// For each file of the crate and the paths looked at: whether its stamp holds the
    /// content.
    hashed: BTreeMap<PathBuf, bool>,
    stdout: String,
}

impl Built {
    fn executed(&self, query: &str) -> u64 {
        self.build
            .stats
            .queries
            .get(query)
            .map_or(0, |q| q.executed)
    }
}

/// What must equal a from-scratch build: the rendered diagnostics, the image hash and
/// the program's output.
fn shown(b: &Build) -> (String, Option<u128>, String) {
    let stdout = b.image.as_ref().map_or_else(String::new, |image| {
        String::from_utf8_lossy(&image.run(&backend::RunLimits::default()).stdout).into_owned()
    });
    (
        shared_frontend::diag::render(&b.diagnostics, &b.sources, false),
        b.image.as_ref().map(|i| i.hash()),
        stdout,
    )
}

impl Project {
    fn new() -> Project {
        let p = Project {
            dir: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
            detection: ChangeDetection::Stat,
            coarse: false,
            directories: true,
        };
        p.write("main.rs", MAIN);
        p.write("a.rs", A);
        p.write("b.rs", B);
        p
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, text).unwrap();
    }

    fn mtime(&self, rel: &str) -> SystemTime {
        fs::metadata(self.path(rel)).unwrap().modified().unwrap()
    }

    fn set_mtime(&self, rel: &str, t: SystemTime) {
        fs::File::options()
            .write(true)
            .open(self.path(rel))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    /// Writes `text` (of the same size) into `rel` and puts its mtime back.
    fn edit_keeping_mtime(&self, rel: &str, text: &str) {
        let before = fs::metadata(self.path(rel)).unwrap();
        assert_eq!(before.len(), text.len() as u64, "the edit keeps the size");
        let mtime = before.modified().unwrap();
        self.write(rel, text);
        self.set_mtime(rel, mtime);
        let after = fs::metadata(self.path(rel)).unwrap();
        assert_eq!(after.modified().unwrap(), mtime);
        assert_eq!(after.len(), before.len());
    }

    /// Waits until no file or directory of the project is racy (its times older than the
    /// racy window), but for those whose mtime is in the future.
    fn settle(&self) {
        let mut paths: Vec<PathBuf> = walk(self.dir.path());
        paths.push(self.dir.path().to_path_buf());
        let deadline = SystemTime::now() + Duration::from_secs(10);
        loop {
            let now = system_time_ns(SystemTime::now());
            // A file with a time in the future stays racy: it is compared by content.
            let racy = paths.iter().any(|p| {
                let stat = dir_stat(p);
                stat.mtime_ns <= now && is_racy(&stat, now)
            });
            if !racy {
                return;
            }
            assert!(SystemTime::now() < deadline, "files stay racy");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A build in a new session on the cache, compared with a from-scratch build.
    fn build(&self) -> Built {
        let fs = Arc::new(Fs {
            coarse: self.coarse,
            ..Fs::default()
        });
        let root = self.path("main.rs");
        let options = BuildOptions {
            cache_dir: Some(self.cache.path().to_path_buf()),
            change_detection: self.detection,
            ..BuildOptions::default()
        };
        let mut session = Session::new(fs.clone(), &root, Goal::Image, options);
        session.db.host.directories = self.directories;
        let mut build = session.build(Goal::Image);
        session.finish(&mut build);
        let paths = ["main.rs", "a.rs", "b.rs", "a/mod.rs", "b/mod.rs"];
        let hashed = paths
            .iter()
            .map(|p| {
                let path = self.path(p);
                let stamp = session.db.file_stamp(path.clone());
                (path, stamp.content.is_some())
            })
            .collect();
        let scratch = query_driver::build(
            Arc::new(FsLoader),
            &root,
            Goal::Image,
            BuildOptions::default(),
        );
        let (diagnostics, image, stdout) = shown(&build);
        assert_eq!(
            (diagnostics.clone(), image, stdout.clone()),
            shown(&scratch),
            "the incremental build differs from a build from scratch"
        );
        Built {
            build,
            fs,
            hashed,
            stdout,
        }
    }
}

/// Every file and directory under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
            out.push(path);
        } else {
            out.push(path);
        }
    }
    out
}

const A22: &str = "pub fn f() -> i64 {
    22
}
";

#[test]
fn a_same_size_edit_with_its_mtime_put_back_is_seen_in_the_racy_window() {
    let p = Project::new();
    let first = p.build();
    assert_eq!(first.stdout, "1011\n");
    // Racy now means racy when the build stamped it (earlier).
    let stat = FileStat::from_metadata(fs::metadata(p.path("a.rs")));
    if is_racy(&stat, system_time_ns(SystemTime::now())) {
        assert!(
            first.hashed[&p.path("a.rs")],
            "a file written just now is racy"
        );
    }
    p.edit_keeping_mtime("a.rs", A22);
    let second = p.build();
    assert_eq!(second.stdout, "1022\n");
}

#[test]
fn a_same_size_edit_with_an_old_mtime_put_back_is_seen_by_its_ctime() {
    let p = Project::new();
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    p.set_mtime("a.rs", old);
    p.settle();
    let first = p.build();
    assert_eq!(first.stdout, "1011\n");
    assert!(
        !first.hashed[&p.path("a.rs")],
        "a settled file is stamped by its metadata"
    );
    p.edit_keeping_mtime("a.rs", A22);
    assert_eq!(p.mtime("a.rs"), old);
    let second = p.build();
    assert_eq!(second.stdout, "1022\n");
    assert_eq!(second.fs.reads_of(&p.path("a.rs")), 1);
    assert_eq!(
        second.fs.reads_of(&p.path("b.rs")),
        0,
        "b.rs did not change"
    );
}

#[test]
fn a_same_size_edit_in_the_same_second_is_seen_on_a_coarse_file_system() {
    let mut p = Project::new();
    p.coarse = true;
    let first = p.build();
    assert!(
        first.hashed[&p.path("a.rs")],
        "whole-second times get the coarse window"
    );
    p.edit_keeping_mtime("a.rs", A22);
    assert_eq!(p.build().stdout, "1022\n");
}

#[test]
fn a_touch_without_a_change_reparses_nothing() {
    let p = Project::new();
    p.build();
    p.settle();
    // The files written just before the first build were racy there (unless the
    // machine was slower than the racy window); their stamps drop the content once.
    let settled = p.build();
    assert!(settled.executed("file_text") <= 3);
    let quiet = p.build();
    assert_eq!(quiet.executed("file_text"), 0);
    p.set_mtime("a.rs", SystemTime::now());
    let touched = p.build();
    assert_eq!(touched.executed("file_text"), 1, "a.rs is read again");
    assert_eq!(touched.fs.reads(), 1);
    for query in [
        "parse_file",
        "file_skeleton",
        "file_status",
        "item_ast",
        "typeck",
        "codegen",
    ] {
        assert_eq!(touched.executed(query), 0, "{query}");
    }
}

#[test]
fn a_rename_over_a_file_of_the_same_size_and_times_is_seen() {
    let p = Project::new();
    // b.rs becomes a file of a.rs's size and mtime, holding `g`: the same text with
    // another number. Swapping them by renames keeps sizes and mtimes.
    let a_text = A;
    let b_text = "pub fn g() -> i64 {\n    77\n}\n";
    assert_eq!(a_text.len(), b_text.len());
    p.write("b.rs", b_text);
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_500_000_000);
    p.set_mtime("a.rs", t);
    p.set_mtime("b.rs", t);
    p.write("spare.rs", "pub fn f() -> i64 {\n    33\n}\n");
    p.set_mtime("spare.rs", t);
    p.settle();
    assert_eq!(p.build().stdout, "88\n");
    fs::rename(p.path("a.rs"), p.path("old.rs")).unwrap();
    fs::rename(p.path("spare.rs"), p.path("a.rs")).unwrap();
    let renamed = p.build();
    assert_eq!(renamed.stdout, "110\n");
    assert_eq!(renamed.fs.reads_of(&p.path("b.rs")), 0);
}

#[test]
fn a_deleted_module_file_and_its_return() {
    let p = Project::new();
    p.build();
    fs::remove_file(p.path("b.rs")).unwrap();
    let deleted = p.build();
    assert!(deleted.build.has_errors());
    assert!(
        deleted
            .build
            .diagnostics
            .iter()
            .any(|d| d.code == Some("E0583")),
        "{:?}",
        deleted.build.diagnostics
    );
    p.write("b.rs", B);
    assert_eq!(p.build().stdout, "1011\n");
}

#[test]
fn a_module_file_appears_beside_another_then_replaces_it() {
    let p = Project::new();
    p.build();
    p.write("a/mod.rs", "pub fn f() -> i64 {\n    5\n}\n");
    let both = p.build();
    assert!(
        both.build
            .diagnostics
            .iter()
            .any(|d| d.code == Some("E0761")),
        "{:?}",
        both.build.diagnostics
    );
    fs::remove_file(p.path("a.rs")).unwrap();
    assert_eq!(p.build().stdout, "1005\n");
}

#[test]
fn a_file_replaced_by_a_directory_and_back() {
    let p = Project::new();
    p.build();
    fs::remove_file(p.path("a.rs")).unwrap();
    fs::create_dir(p.path("a.rs")).unwrap();
    let dir = p.build();
    assert!(dir.build.has_errors());
    // `mod a;` then loads `a/mod.rs` (the directory `a.rs` is not a file).
    p.write("a/mod.rs", "pub fn f() -> i64 {\n    5\n}\n");
    assert_eq!(p.build().stdout, "1005\n");
    // An entry added to the directory changes nothing the build reads.
    p.write("a.rs/x.txt", "x");
    let again = p.build();
    assert_eq!(again.fs.reads_of(&p.path("a.rs")), 0);
    fs::remove_dir_all(p.path("a.rs")).unwrap();
    fs::remove_dir_all(p.path("a")).unwrap();
    p.write("a.rs", A22);
    assert_eq!(p.build().stdout, "1022\n");
}

#[cfg(unix)]
#[test]
fn a_symlinked_file_its_target_edited_and_its_link_moved() {
    let p = Project::new();
    p.write("real/one.rs", A);
    p.write("real/two.rs", "pub fn f() -> i64 {\n    44\n}\n");
    fs::remove_file(p.path("a.rs")).unwrap();
    std::os::unix::fs::symlink(p.path("real/one.rs"), p.path("a.rs")).unwrap();
    assert_eq!(p.build().stdout, "1011\n");
    p.edit_keeping_mtime("real/one.rs", A22);
    assert_eq!(p.build().stdout, "1022\n");
    p.settle();
    p.build();
    p.edit_keeping_mtime("real/one.rs", A);
    assert_eq!(p.build().stdout, "1011\n");
    fs::remove_file(p.path("a.rs")).unwrap();
    std::os::unix::fs::symlink(p.path("real/two.rs"), p.path("a.rs")).unwrap();
    assert_eq!(p.build().stdout, "1044\n");
}

#[test]
fn a_file_with_an_mtime_in_the_future_is_compared_by_content() {
    let p = Project::new();
    let future = SystemTime::now() + Duration::from_secs(3_600);
    p.set_mtime("a.rs", future);
    p.settle();
    let first = p.build();
    assert!(
        first.hashed[&p.path("a.rs")],
        "a time in the future is racy"
    );
    let quiet = p.build();
    assert_eq!(quiet.executed("file_text"), 0, "its content did not change");
    assert_eq!(quiet.fs.reads_of(&p.path("a.rs")), 1, "read for its stamp");
    p.edit_keeping_mtime("a.rs", A22);
    let edited = p.build();
    assert_eq!(edited.stdout, "1022\n");
}

#[test]
fn a_no_change_rebuild_reads_no_file_with_stat_and_every_file_with_hash() {
    for detection in [ChangeDetection::Stat, ChangeDetection::Hash] {
        let mut p = Project::new();
        p.detection = detection;
        p.settle();
        let first = p.build();
        // The three files and the two missing candidates `a/mod.rs` and `b/mod.rs`.
        assert_eq!(first.executed("file_text"), 5);
        let second = p.build();
        let stamps = second.executed("file_stamp");
        match detection {
            // The three files, and the project's directory for the missing candidates.
            ChangeDetection::Stat => assert_eq!((stamps, second.executed("dir_stamp")), (3, 1)),
            // Every path looked at, the missing candidates too.
            ChangeDetection::Hash => assert_eq!((stamps, second.executed("dir_stamp")), (5, 0)),
        }
        assert_eq!(second.executed("file_text"), 0, "{detection:?}");
        assert_eq!(second.executed("parse_file"), 0, "{detection:?}");
        match detection {
            ChangeDetection::Stat => assert_eq!(second.fs.reads(), 0),
            // Every path looked at is read and hashed, the missing candidates too.
            ChangeDetection::Hash => {
                assert_eq!(second.fs.reads() as u64, stamps);
                assert!(second.hashed.values().all(|&h| h));
                let bytes: usize = [MAIN, A, B].iter().map(|t| t.len()).sum();
                let hashed = second.build.stats.queries["file_stamp"].hashed_bytes;
                assert!(hashed >= bytes as u64, "{hashed}");
            }
        }
    }
}

/// `a.rs` with a module `inner` below it, whose files are in `a/`.
const A_INNER: &str = "pub mod inner;

pub fn f() -> i64 {
    inner::h()
}
";
const INNER: &str = "pub fn h() -> i64 {
    7
}
";

/// The code of the first diagnostic (the structure error; what follows from it varies).
fn code(b: &Built) -> Option<&'static str> {
    b.build.diagnostics.first().and_then(|d| d.code)
}

#[test]
fn a_directory_that_appears_then_gains_a_candidate_then_disappears() {
    let p = Project::new();
    p.write("a.rs", A_INNER);
    // Neither `a/inner.rs` nor `a/inner/mod.rs`: `a/` itself is missing.
    let missing = p.build();
    assert_eq!(
        code(&missing),
        Some("E0583"),
        "{:?}",
        missing.build.diagnostics
    );
    p.settle();
    let quiet = p.build();
    assert_eq!(code(&quiet), Some("E0583"));
    // The crate's directory and the files; the missing `a/` and what is below it are
    // implied missing by the crate directory's stamp.
    assert_eq!(quiet.executed("dir_stamp"), 1);
    assert_eq!(quiet.executed("file_stamp"), 3);
    // `a/` appears with `a/inner.rs` in it.
    p.write("a/inner.rs", INNER);
    let appeared = p.build();
    assert_eq!(appeared.stdout, "1007\n");
    p.settle();
    // The directories were racy in the last build: their stamps change once more.
    p.build();
    let quiet = p.build();
    assert_eq!(
        quiet.executed("dir_stamp"),
        2,
        "the crate's directory and `a/`"
    );
    assert_eq!(quiet.executed("file_stamp"), 4);
    assert_eq!(quiet.executed("path_stamp"), 0);
    // `a/inner/mod.rs` beside `a/inner.rs`: E0761.
    p.write("a/inner/mod.rs", "pub fn h() -> i64 {\n    8\n}\n");
    let both = p.build();
    assert_eq!(code(&both), Some("E0761"), "{:?}", both.build.diagnostics);
    // `a/inner.rs` removed while `a/inner/mod.rs` exists.
    fs::remove_file(p.path("a/inner.rs")).unwrap();
    assert_eq!(p.build().stdout, "1008\n");
    // The directory `a/inner/` removed.
    fs::remove_dir_all(p.path("a/inner")).unwrap();
    let gone = p.build();
    assert_eq!(code(&gone), Some("E0583"));
    // And `a/` removed, then back with its file.
    fs::remove_dir_all(p.path("a")).unwrap();
    assert_eq!(code(&p.build()), Some("E0583"));
    p.write("a/inner.rs", INNER);
    assert_eq!(p.build().stdout, "1007\n");
}

#[test]
fn a_candidate_appearing_in_a_directory_whose_mtime_is_put_back_is_seen_by_its_ctime() {
    let p = Project::new();
    p.write("a.rs", A_INNER);
    p.write("a/inner.rs", INNER);
    // Removed when `a/inner/` is created, so that `a/` keeps its number of entries (and
    // its size, on file systems that count them).
    p.write("a/spare.txt", "x");
    let dir = p.path("a");
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let set_dir_mtime = |t: SystemTime| {
        fs::File::open(&dir).unwrap().set_modified(t).unwrap();
    };
    set_dir_mtime(old);
    p.settle();
    let settle_dir = || {
        // The directory's ctime, set by each change, leaves the racy window.
        while is_racy(&dir_stat(&dir), system_time_ns(SystemTime::now())) {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    settle_dir();
    assert_eq!(p.build().stdout, "1007\n");
    let before = dir_stat(&dir);
    assert_eq!(before.mtime_ns, system_time_ns(old));

    // `a/inner/mod.rs` appears (and `a/spare.txt` goes), and `a/`'s mtime is put back
    // (`touch -d`): only its ctime tells, which no user can set back.
    p.write("a/inner/mod.rs", "pub fn h() -> i64 {\n    8\n}\n");
    fs::remove_file(p.path("a/spare.txt")).unwrap();
    set_dir_mtime(old);
    settle_dir();
    let after = dir_stat(&dir);
    assert_eq!(
        (after.mtime_ns, after.size, after.inode, after.device),
        (before.mtime_ns, before.size, before.inode, before.device)
    );
    assert_ne!(after.ctime_ns, before.ctime_ns);
    let both = p.build();
    assert_eq!(code(&both), Some("E0761"), "{:?}", both.build.diagnostics);
    assert!(both.executed("path_stamp") > 0);
}

#[test]
fn a_racy_directory_is_looked_into_again_until_it_settles() {
    let p = Project::new();
    p.settle();
    p.build();
    // An entry that the build does not look for: the directory's stamp changes, its
    // missing candidates are looked at again, and nothing else executes.
    p.write("notes.txt", "x");
    let racy = p.build();
    assert_eq!(racy.executed("path_stamp"), 2, "`a/` and `b/`");
    assert_eq!(racy.executed("file_text"), 0);
    assert_eq!(racy.fs.reads(), 0);
    // While the directory is racy its stamp equals no other; once it settles, one more
    // look, then none.
    p.settle();
    let settling = p.build();
    assert_eq!(settling.executed("file_text"), 0);
    let quiet = p.build();
    assert_eq!(quiet.executed("path_stamp"), 0);
    assert_eq!(quiet.executed("dir_stamp"), 1);
}

#[test]
fn without_directory_stamps_every_path_is_stamped_on_its_own() {
    let mut p = Project::new();
    p.directories = false;
    p.settle();
    p.build();
    let second = p.build();
    assert_eq!(second.executed("file_stamp"), 5);
    assert_eq!(second.executed("dir_stamp"), 0);
    p.write("a/mod.rs", "pub fn f() -> i64 {\n    5\n}\n");
    let both = p.build();
    assert_eq!(code(&both), Some("E0761"));
}

#[test]
fn under_hash_a_stamp_keeps_a_digest_and_only_a_changed_file_is_read_again() {
    let mut p = Project::new();
    p.detection = ChangeDetection::Hash;
    p.settle();
    p.build();
    p.write("a.rs", A22);
    let edited = p.build();
    assert_eq!(edited.stdout, "1022\n");
    assert_eq!(edited.executed("file_text"), 1);
    assert_eq!(
        edited.fs.reads_of(&p.path("a.rs")),
        2,
        "digested for its stamp, then read for its text"
    );
    assert_eq!(edited.fs.reads_of(&p.path("b.rs")), 1, "digested only");
    assert_eq!(edited.fs.reads_of(&p.path("main.rs")), 1, "digested only");
}

/// The file system, but for one path the reads from the `from`th on (counting from 1)
/// see `text` instead of the file: an edit that lands between two reads of one build.
struct Racing {
    path: PathBuf,
    from: usize,
    text: &'static str,
    reads: Mutex<usize>,
}

impl FileLoader for Racing {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if path == self.path {
            let mut reads = self.reads.lock().unwrap();
            *reads += 1;
            if *reads >= self.from {
                return Ok(self.text.as_bytes().to_vec());
            }
        }
        FsLoader.load(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        FsLoader.is_file(path)
    }

    fn stat(&self, path: &Path) -> Option<FileStat> {
        FsLoader.stat(path)
    }
}

const A33: &str = "pub fn f() -> i64 {
    33
}
";

#[test]
fn a_file_that_changes_between_its_stamp_and_its_text_is_read_again_in_the_next_build() {
    let p = Project::new();
    let root = p.path("main.rs");
    let a = p.path("a.rs");
    let options = || BuildOptions {
        cache_dir: Some(p.cache.path().to_path_buf()),
        change_detection: ChangeDetection::Hash,
        ..BuildOptions::default()
    };
    let build = |session: &mut Session| {
        let mut b = session.build(Goal::Image);
        session.finish(&mut b);
        b
    };
    let mut session = Session::new(Arc::new(FsLoader), &root, Goal::Image, options());
    assert_eq!(shown(&build(&mut session)).2, "1011\n");
    // `a.rs` now holds A22. Its stamp digests A22 (the first read); by the time its text is
    // read (the second), the file holds A33.
    p.write("a.rs", A22);
    let cache_files = |dir: &Path| -> BTreeMap<PathBuf, Vec<u8>> {
        walk(dir)
            .into_iter()
            .filter(|f| f.is_file())
            .map(|f| {
                let bytes = fs::read(&f).unwrap();
                (f, bytes)
            })
            .collect()
    };
    let before = cache_files(p.cache.path());
    assert!(!before.is_empty());
    session.set_loader(Arc::new(Racing {
        path: a.clone(),
        from: 2,
        text: A33,
        reads: Mutex::new(0),
    }));
    let raced = build(&mut session);
    assert_eq!(shown(&raced).2, "1033\n", "the build uses the text it read");
    assert!(
        raced
            .warnings
            .iter()
            .any(|w| w.contains("changed while it was read")),
        "{:?}",
        raced.warnings
    );
    assert_eq!(cache_files(p.cache.path()), before, "nothing saved");
    // The file goes back to what its stamp read: the next build must not take the text
    // read after the stamp for it.
    session.set_loader(Arc::new(FsLoader));
    let settled = build(&mut session);
    assert_eq!(shown(&settled).2, "1022\n");
    assert!(
        !settled.warnings.iter().any(|w| w.contains("changed while")),
        "{:?}",
        settled.warnings
    );
    // A new session starts from the cache of the last build that saved one.
    let mut next = Session::new(Arc::new(FsLoader), &root, Goal::Image, options());
    let again = build(&mut next);
    assert_eq!(shown(&again).2, "1022\n");
    let scratch = query_driver::build(
        Arc::new(FsLoader),
        &root,
        Goal::Image,
        BuildOptions::default(),
    );
    assert_eq!(shown(&again), shown(&scratch));
}
