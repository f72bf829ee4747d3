//! Change detection: the stamp that decides whether a source file is read again.
//!
//! `file_stamp(path)` is the only query that looks at the file system in every build
//! (`eval_always`); `file_text(path)` reads the bytes and depends on the stamp, so an
//! unchanged stamp leaves the text green and the file unread. Under
//! [`ChangeDetection::Stat`] the stamp is the loader's metadata (kind, size, mtime, ctime,
//! inode, device), as `git status` compares its index; under [`ChangeDetection::Hash`] it
//! is the content, read and hashed in every build, as rustc does.
//!
//! # Racy files
//!
//! Metadata misses an edit that keeps the size when the edit lands in the same timestamp
//! tick as the stamp taken before it (git's "racy clean" entries). A stamp's time `now`
//! is read *before* the metadata; an edit after that moment gets an mtime and a ctime of
//! at least `now − lag − granularity`, where `lag` is how far the kernel's file clock
//! trails the system clock (Linux stamps files from a coarse clock updated once a jiffy,
//! at most 10 ms at `HZ=100`) and `granularity` is the file system's timestamp resolution.
//! So a file whose newest time (mtime or ctime) is older than `now − window`, with the
//! window at least `lag + granularity`, cannot be changed later without changing its
//! stamp. A file newer than that, or with a time in the future (a clock that went
//! backwards), is *racy*: its content is read and made part of the stamp.
//!
//! The window: [`RACY_WINDOW_FINE_NS`] (100 ms) when a time has a sub-second part, which
//! only a file system with fine timestamps gives (ext4, XFS, btrfs, tmpfs, APFS: 1 ns; NTFS:
//! 100 ns): ten times the largest jiffy. [`RACY_WINDOW_COARSE_NS`] (3 s) when both times
//! are whole seconds, as on file systems with 1 s (ext4 with 128-byte inodes, HFS+) or
//! 2 s (FAT) resolution, plus the same margin. A whole-second time on a fine file system
//! (one chance in a billion) only makes the window longer. A program written a few
//! seconds before a build is therefore not racy on a usual file system, and a
//! no-change rebuild reads none of it. A file that is racy in one build and not in the
//! next changes stamp once (the content leaves it) and is read once more.
//! The rule assumes the file system's clock is this machine's (a network file system
//! whose server clock runs behind can hide an edit, as it can from `make`).
//!
//! The ctime makes an edit visible even when the mtime is put back
//! (`File::set_modified`, `touch -d`, `cp -p`): no user can set it.
//!
//! # Directory stamps
//!
//! Each `mod x;` looks at two paths, `x.rs` and `x/mod.rs`, and one of them is usually
//! missing. A missing path is not stamped on its own: its absence is implied by the stamp
//! of its directory ([`dir_stamp`]: the directory's kind, size, mtime, ctime, inode and
//! device). POSIX sets a directory's mtime and ctime whenever an entry is created,
//! removed or renamed in it, so an entry that was absent from a directory whose stamp is
//! unchanged is still absent; a file written *inside* a directory does not touch it, so
//! every existing file keeps its own stamp. The racy rule is the files' rule: a directory
//! whose newest time is within the racy window (or in the future) has a stamp that equals
//! no other ([`DirStamp::racy`]), and every missing path in it is looked at again in each
//! build until it settles. A directory that does not exist, and the kind of a directory
//! that does, are themselves implied by the parent's stamp (they are entries of it), up to
//! the directory of the crate root, which is stamped on its own; so a directory has a
//! stamp only when a missing path or a directory in it was looked for. The query driver's
//! `path_stamp` puts this together, looking at the path again after its directory's stamp
//! was taken. A directory replaced by a file, a symbolic link or another directory, and a
//! file replaced by a directory, change an entry of the parent (and an existing file's
//! own stamp its kind; a directory's stamp holds its inode). A file system mounted over a
//! directory changes no entry of its parent, but the device of every stamp taken through
//! it, and each path is implied by a stamp taken through its whole path.
//!
//! # Stamps taken ahead
//!
//! The first build on a loaded cache re-executes the stamp of every path the previous
//! session looked at (each module's two candidate files), one after the other, with the
//! engine's work on each node in between. When the loader is the file system's
//! ([`FsLoader`]) and there are many such paths, [`Ahead::start`] reads their metadata on a
//! second thread, in the order the session's start re-executes them, so that the main
//! thread finds most of them read. A stamp taken ahead is the same stamp: its `now` is read
//! on that thread just before its metadata, in this build, and each is used once (a path
//! stamped again, in a later build or by verify mode, is read again). The main thread
//! reads a path itself when the thread has not come to it yet, or is reading it. The
//! directories' stamps ([`dir_stamp`]) are read ahead in the same way, beside the files':
//! the thread takes from both lists in proportion, as the session's start interleaves them.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use query::{StableHash, StableHasher};
use shared_frontend::sema::modules::{system_time_ns, FileKind, FileLoader, FileStat, FsLoader};

use crate::values::{hash_file_stat, ChangeDetection, FileStamp, FileText};
use crate::RillDb;

/// The racy window of a file system with sub-second timestamps (see the module's docs).
pub const RACY_WINDOW_FINE_NS: i128 = 100_000_000;
/// The racy window of a file system with whole-second timestamps.
pub const RACY_WINDOW_COARSE_NS: i128 = 3_000_000_000;

const NS_PER_SEC: i128 = 1_000_000_000;

/// Whether a file's metadata, read at `now_ns` or later, is too recent to stand for its
/// content: its newest time is within the racy window before `now_ns`, or after it.
pub fn is_racy(stat: &FileStat, now_ns: i128) -> bool {
    let whole_seconds =
        stat.mtime_ns.rem_euclid(NS_PER_SEC) == 0 && stat.ctime_ns.rem_euclid(NS_PER_SEC) == 0;
    let window = if whole_seconds {
        RACY_WINDOW_COARSE_NS
    } else {
        RACY_WINDOW_FINE_NS
    };
    stat.mtime_ns.max(stat.ctime_ns) > now_ns.saturating_sub(window)
}

/// Reads a file as `file_text` reports it: the bytes, or the error with the loader's
/// `is_file` (asked only when the read failed).
pub fn read(loader: Option<&dyn FileLoader>, path: &Path) -> FileText {
    match loader {
        Some(loader) => FileText::from_io(loader.load(path), || loader.is_file(path)),
        None => FileText::from_io(Err(std::io::Error::other("no file loader")), || false),
    }
}

/// The stamp of `path`. Reads the metadata (unless `detection` is `Hash`), and the content
/// only when the metadata cannot stand for it: a racy file, `Hash`, or a loader without
/// metadata. Special files (FIFOs, devices) are never read here: reading may block or
/// consume their data, and their metadata changes when they are written.
pub fn stamp(
    loader: Option<&dyn FileLoader>,
    path: &Path,
    detection: ChangeDetection,
) -> FileStamp {
    stamp_with(loader, path, detection, &Ahead::default())
}

/// [`stamp`], with the metadata taken from `ahead` when it read the path in this build.
pub(crate) fn stamp_with(
    loader: Option<&dyn FileLoader>,
    path: &Path,
    detection: ChangeDetection,
    ahead: &Ahead,
) -> FileStamp {
    let stat = match (detection, loader) {
        (ChangeDetection::Stat, Some(loader)) => {
            let (now, stat) = match ahead.take(path) {
                Some((now, stat)) => (now, Some(stat)),
                None => {
                    let now = system_time_ns(SystemTime::now());
                    (now, loader.stat(path))
                }
            };
            stat.map(|stat| (is_racy(&stat, now) && stat.kind == FileKind::File, stat))
        }
        _ => None,
    };
    let (stat, read_it) = match stat {
        Some((racy, stat)) => (Some(stat), racy),
        None => (None, true),
    };
    FileStamp {
        stat,
        text: read_it.then(|| Arc::new(read(loader, path))),
    }
}

/// What [`dir_stamp`] found at a directory's path.
#[derive(Clone, Debug, PartialEq)]
pub struct DirStamp {
    /// The metadata ([`dir_stat`]): for a directory its size, times and identity, which
    /// change whenever an entry is created, removed or renamed in it.
    pub stat: FileStat,
    /// Set, to the time the stamp was taken, when the directory is racy (its newest time
    /// within the racy window, or in the future): the stamp then equals no stamp of
    /// another build, and what it stands for is looked at again.
    pub racy: Option<i128>,
}

impl DirStamp {
    /// Whether a directory is at the path.
    pub fn is_dir(&self) -> bool {
        self.stat.kind == FileKind::Directory
    }
}

impl StableHash<RillDb> for DirStamp {
    fn stable_hash(&self, h: &mut StableHasher) {
        hash_file_stat(&self.stat, h);
        match self.racy {
            None => h.write_u8(0),
            Some(now) => {
                h.write_u8(1);
                h.write_u128(now as u128);
            }
        }
    }
}

/// The metadata of a directory's path (symbolic links followed): a directory's size,
/// mtime, ctime, inode and device, which [`FileStat::from_metadata`] leaves out; what
/// `FileStat::from_metadata` gives for anything else. The empty path is the current
/// directory (the directory of a relative path without one).
pub fn dir_stat(path: &Path) -> FileStat {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => meta,
        other => return FileStat::from_metadata(other),
    };
    FileStat::with_metadata(FileKind::Directory, &meta)
}

/// The stamp of the directory `path` (see the module's docs): its time `now` is read
/// before its metadata, as a file's is.
pub fn dir_stamp(path: &Path) -> DirStamp {
    dir_stamp_with(path, &Ahead::default())
}

/// [`dir_stamp`], with the metadata taken from `ahead` when it read the directory in this
/// build.
pub(crate) fn dir_stamp_with(path: &Path, ahead: &Ahead) -> DirStamp {
    let (now, stat) = ahead.take_dir(path).unwrap_or_else(|| {
        let now = system_time_ns(SystemTime::now());
        (now, dir_stat(path))
    });
    let racy = (stat.kind == FileKind::Directory && is_racy(&stat, now)).then_some(now);
    DirStamp { stat, racy }
}

/// Paths from which [`Ahead::start`] starts a thread (starting one costs some 30 µs, a
/// stat about 1 µs).
pub const AHEAD_MIN_PATHS: usize = 64;

/// How far past the expected path [`Ahead::take`] looks for the one asked for.
const LOOK_AHEAD: usize = 4;

/// An entry not taken by either thread.
const FREE: u8 = 0;
/// An entry the second thread is reading.
const READING: u8 = 1;
/// An entry the second thread read (its metadata is set).
const READ: u8 = 2;
/// An entry used, or claimed by the main thread to read itself.
const USED: u8 = 3;

/// The metadata of the paths a session's start will stamp, read ahead on a second thread
/// (see the module's docs). The default holds nothing.
#[derive(Default)]
pub struct Ahead {
    shared: Option<Arc<AheadPaths>>,
    /// The next file the main thread is expected to stamp: the session's start stamps
    /// them in their order, so a path is found without hashing it.
    next: Cell<usize>,
    /// The next directory (an index into the paths, from `AheadPaths::files`).
    next_dir: Cell<usize>,
}

/// The paths and what was read of each: the files' paths, then the directories'.
pub struct AheadPaths {
    paths: Vec<PathBuf>,
    /// How many of the paths are files' (the rest are directories').
    files: usize,
    entries: Vec<AheadEntry>,
}

struct AheadEntry {
    state: AtomicU8,
    /// The time read just before the metadata, and the metadata.
    stat: OnceLock<(i128, FileStat)>,
}

impl Ahead {
    /// Starts reading the metadata of the files `paths` (with [`FsLoader`]) and of the
    /// directories `dirs` (with [`dir_stat`]) on a thread of its own, each list in its
    /// order, when there are at least [`AHEAD_MIN_PATHS`] in all; else holds nothing.
    pub fn start(mut paths: Vec<PathBuf>, dirs: Vec<PathBuf>) -> Ahead {
        let files = paths.len();
        paths.extend(dirs);
        if paths.len() < AHEAD_MIN_PATHS {
            return Ahead::default();
        }
        let entries = (0..paths.len())
            .map(|_| AheadEntry {
                state: AtomicU8::new(FREE),
                stat: OnceLock::new(),
            })
            .collect();
        let shared = Arc::new(AheadPaths {
            paths,
            files,
            entries,
        });
        let worker = Arc::clone(&shared);
        // A thread that cannot be started leaves every path to the main thread.
        let started = std::thread::Builder::new()
            .name("file-stamps".to_string())
            .spawn(move || worker.read_all());
        Ahead {
            next_dir: Cell::new(files),
            shared: started.is_ok().then_some(shared),
            next: Cell::new(0),
        }
    }

    /// The time and metadata read ahead for the file `path`, once; `None` when it is not
    /// among the next few of the files (a path out of order is read by the caller), was
    /// used already, or the thread has not come to it (then it never will).
    fn take(&self, path: &Path) -> Option<(i128, FileStat)> {
        let files = self.shared.as_ref()?.files;
        self.take_in(path, &self.next, files)
    }

    /// [`Ahead::take`] for the directory `path`.
    fn take_dir(&self, path: &Path) -> Option<(i128, FileStat)> {
        let all = self.shared.as_ref()?.paths.len();
        self.take_in(path, &self.next_dir, all)
    }

    /// The entry for `path` among the next few from `next`, below `limit`, once.
    fn take_in(&self, path: &Path, next: &Cell<usize>, limit: usize) -> Option<(i128, FileStat)> {
        let shared = self.shared.as_ref()?;
        let from = next.get();
        let end = limit.min(from + LOOK_AHEAD);
        let i = from
            + shared.paths[from.min(end)..end]
                .iter()
                .position(|p| p == path)?;
        next.set(i + 1);
        let e = &shared.entries[i];
        match e
            .state
            .compare_exchange(FREE, USED, Ordering::Acquire, Ordering::Acquire)
        {
            // Read by the caller: not come to yet, used already, or being read (the
            // thread may be descheduled, so it is not waited for; what it reads is unused).
            Ok(_) | Err(USED) | Err(READING) => None,
            Err(_) => e
                .state
                .compare_exchange(READ, USED, Ordering::Acquire, Ordering::Relaxed)
                .ok()
                .and_then(|_| e.stat.get().cloned()),
        }
    }

    /// How many paths it was started with (0: no thread).
    pub fn len(&self) -> usize {
        self.shared.as_ref().map_or(0, |s| s.paths.len())
    }

    /// Whether it holds no paths.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl AheadPaths {
    /// The second thread: reads each path the main thread has not claimed, the files and
    /// the directories each in their order, taking next from the list it is least far
    /// through (in proportion to its length).
    fn read_all(&self) {
        let (files, dirs) = (self.files, self.paths.len() - self.files);
        let (mut f, mut d) = (0, 0);
        while f < files || d < dirs {
            // f / files <= d / dirs, without dividing.
            let i = if d == dirs || (f < files && f * dirs <= d * files) {
                f += 1;
                f - 1
            } else {
                d += 1;
                files + d - 1
            };
            self.read(i);
        }
    }

    /// Reads entry `i` unless the main thread claimed it.
    fn read(&self, i: usize) {
        let (path, e) = (&self.paths[i], &self.entries[i]);
        if e.state
            .compare_exchange(FREE, READING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let now = system_time_ns(SystemTime::now());
        let stat = if i < self.files {
            FsLoader.stat(path)
        } else {
            Some(dir_stat(path))
        };
        if let Some(stat) = stat {
            let _ = e.stat.set((now, stat));
            e.state.store(READ, Ordering::Release);
        } else {
            // Not reached with `FsLoader`, which always has metadata.
            e.state.store(USED, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(mtime_ns: i128, ctime_ns: i128) -> FileStat {
        FileStat {
            kind: FileKind::File,
            size: 10,
            mtime_ns,
            ctime_ns,
            inode: 1,
            device: 1,
        }
    }

    const NOW: i128 = 1_700_000_000 * NS_PER_SEC + 500_000_000;

    #[test]
    fn fine_times_are_racy_within_the_fine_window_only() {
        let old = NOW - RACY_WINDOW_FINE_NS - 1;
        assert!(!is_racy(&file(old - 7, old - 7), NOW));
        assert!(is_racy(&file(NOW - 1_000_007, old), NOW), "recent mtime");
        assert!(is_racy(&file(old, NOW - 1_000_007), NOW), "recent ctime");
        // Two seconds old on a fine file system: not racy.
        assert!(!is_racy(
            &file(NOW - 2 * NS_PER_SEC - 3, NOW - 2 * NS_PER_SEC - 3),
            NOW
        ));
    }

    #[test]
    fn whole_second_times_get_the_coarse_window() {
        let t = (NOW / NS_PER_SEC - 2) * NS_PER_SEC;
        assert!(is_racy(&file(t, t), NOW), "2 s old on a 1 s file system");
        let t = (NOW / NS_PER_SEC - 4) * NS_PER_SEC;
        assert!(!is_racy(&file(t, t), NOW));
    }

    #[test]
    fn times_in_the_future_are_racy() {
        assert!(is_racy(
            &file(NOW + 3_600 * NS_PER_SEC + 1, NOW - 3_600 * NS_PER_SEC),
            NOW
        ));
        assert!(is_racy(&file(NOW - 3_600 * NS_PER_SEC, NOW + 1), NOW));
    }

    #[test]
    fn a_directory_stamp_changes_with_its_entries_and_is_racy_while_recent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        let fresh = dir_stamp(path);
        assert!(fresh.is_dir());
        assert!(fresh.racy.is_some(), "a directory created just now is racy");
        assert_ne!(fresh, dir_stamp(path), "a racy stamp equals no other");
        std::thread::sleep(std::time::Duration::from_millis(
            (RACY_WINDOW_FINE_NS / 1_000_000) as u64 + 50,
        ));
        let settled = dir_stamp(path);
        if settled.racy.is_none() {
            // (Not on a file system with whole-second times: still in its window.)
            assert_eq!(settled, dir_stamp(path));
        }
        std::fs::write(path.join("x.rs"), "").unwrap();
        let added = dir_stamp(path);
        assert_ne!(
            added.stat, settled.stat,
            "an entry created changes the directory"
        );
        assert_eq!(dir_stamp(&path.join("x.rs")).stat.kind, FileKind::File);
        assert_eq!(dir_stamp(&path.join("y")).stat.kind, FileKind::Missing);
        assert!(dir_stamp(&path.join("x.rs/z")).stat.kind != FileKind::Directory);
    }

    #[test]
    fn times_before_the_epoch_are_old() {
        assert!(!is_racy(
            &file(-5 * NS_PER_SEC - 1, -5 * NS_PER_SEC - 1),
            NOW
        ));
    }
}
