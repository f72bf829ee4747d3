//! Change detection: the stamp that decides whether a source file is read again.
//!
//! `file_stamp(path)` is the only query that looks at the file system in every build
//! (`eval_always`); `file_text(path)` reads the bytes and depends on the stamp, so an
//! unchanged stamp leaves the text green and the file unread. Under
//! [`ChangeDetection::Stat`] the stamp is the loader's metadata (kind, size, mtime, ctime,
//! inode, device), as `git status` compares its index; under [`ChangeDetection::Hash`] it
//! is the content, read and hashed in every build, as rustc does.
//!
//! Under `Hash` every file is read in every build and few changed, so a stamp reads the
//! file into one buffer its thread reuses and keeps the digest (`StampContent::Digest`),
//! not the text: a build neither holds nor first touches memory of its own for every
//! file. `file_text` then reads a changed file again and checks it against the digest. A
//! file that changed between the two reads was compiled as the second read found it, but
//! its stamp stands for the first: the session counts it (`Host::raced`), every later
//! stamp of it differs from that one (so the file is read again even if it went back to
//! what the stamp read), and the build saves no cache. A racy file's stamp under `Stat`
//! keeps the text it read and hands it to `file_text`.
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
//! The thread starts before the paths are decoded from the cache (the cache gives how many
//! there are first) and is handed them in batches as they are decoded ([`AheadFeed`]), so
//! that it is ahead when the session's start begins. After the paths it runs the link
//! state's code check, if it was given one: the main thread waits for the stamps first.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::SystemTime;

use query::{Fingerprint, HasherKind, StableHash, StableHasher};
use shared_frontend::sema::modules::{system_time_ns, FileKind, FileLoader, FileStat, FsLoader};

use crate::linker::CodeCheck;
use crate::values::{
    hash_file_stat, stat_bytes, text_digest, ChangeDetection, FileStamp, FileText, StampContent,
    STAT_BYTES,
};
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
        Some(loader) => FileText::from_shared(loader.load_shared(path), || loader.is_file(path)),
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
    hasher: HasherKind,
) -> FileStamp {
    stamp_with(loader, path, detection, hasher, &Ahead::default(), 0)
}

/// [`stamp`], with the metadata taken from `ahead` when it read the path in this build.
pub(crate) fn stamp_with(
    loader: Option<&dyn FileLoader>,
    path: &Path,
    detection: ChangeDetection,
    hasher: HasherKind,
    ahead: &Ahead,
    raced: u32,
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
    let content = match stat {
        Some((true, _)) => Some(StampContent::Text(Arc::new(read(loader, path)))),
        Some((false, _)) => None,
        None => Some(digest(loader, path, hasher, raced)),
    };
    FileStamp {
        stat: stat.map(|(_, stat)| stat),
        content,
    }
}

thread_local! {
    /// The buffer every stamp of a thread reads a file's content into (taken for the read
    /// and given back: a stamp taken meanwhile on the thread would read into a new one).
    static CONTENT: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Reads the file at `path` into this thread's buffer and digests it there
/// ([`StampContent::Digest`]); a read that fails is the error `file_text` reports.
fn digest(
    loader: Option<&dyn FileLoader>,
    path: &Path,
    hasher: HasherKind,
    raced: u32,
) -> StampContent {
    let Some(loader) = loader else {
        return StampContent::Text(Arc::new(read(None, path)));
    };
    let mut buf = CONTENT.take();
    let content = match loader.load_into(path, &mut buf) {
        Ok(()) => StampContent::Digest {
            len: buf.len() as u64,
            fingerprint: text_digest(&buf, hasher),
            raced,
        },
        Err(e) => StampContent::Text(Arc::new(FileText::from_io(Err(e), || loader.is_file(path)))),
    };
    CONTENT.set(buf);
    content
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
    /// The digest of the metadata's fields and the racy time, as a file's stamp
    /// (`FileStamp::value_fingerprint`); a path that could not be looked at is hashed.
    #[inline]
    fn value_fingerprint(&self) -> Option<Fingerprint> {
        let mut b = [0u8; STAT_BYTES + 17];
        b[..STAT_BYTES].copy_from_slice(&stat_bytes(&self.stat)?);
        if let Some(now) = self.racy {
            b[STAT_BYTES] = 1;
            b[STAT_BYTES + 1..].copy_from_slice(&now.to_le_bytes());
        }
        Some(Fingerprint::of_bytes(&b))
    }

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

/// How many paths [`AheadFeed`] sets before it hands them on to the thread.
const FEED_BATCH: usize = 16;

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
    /// How many paths were found read, and found not read ([`Ahead::counts`]).
    taken: Cell<usize>,
    missed: Cell<usize>,
}

/// The paths and what was read of each: the files' paths, then the directories'. A path
/// is set by the main thread ([`AheadFeed`]) before the thread is told of it.
pub struct AheadPaths {
    paths: Vec<OnceLock<PathBuf>>,
    /// How many of the paths are files' (the rest are directories').
    files: usize,
    entries: Vec<AheadEntry>,
    /// How far the paths are set.
    fed: Mutex<Fed>,
    /// Signalled when `fed` grows.
    more: Condvar,
}

/// How many of the files' and of the directories' paths are set, and whether the feed
/// ended (the paths left unset stay unset: keys that could not be decoded).
#[derive(Clone, Copy, Default, PartialEq)]
struct Fed {
    files: usize,
    dirs: usize,
    done: bool,
}

struct AheadEntry {
    state: AtomicU8,
    /// The time read just before the metadata, and the metadata.
    stat: OnceLock<(i128, FileStat)>,
}

/// Sets the paths of an [`Ahead`] as they are decoded, each list in its order, and hands
/// them on to its thread in batches, so that the thread starts reading while the rest are
/// decoded. Dropping it ends the feed.
#[derive(Default)]
pub struct AheadFeed {
    shared: Option<Arc<AheadPaths>>,
    fed: Fed,
}

impl Ahead {
    /// Starts a thread of its own that reads the metadata of `files` files' paths (with
    /// [`FsLoader`]) and of `dirs` directories' (with [`dir_stat`]), each list in its
    /// order, as the returned feed gives them, when there are at least
    /// [`AHEAD_MIN_PATHS`] in all; then runs `then` there, when it takes it (when it starts
    /// the thread). Otherwise holds nothing, and the feed drops what it is given.
    pub fn start(files: usize, dirs: usize, then: &mut Option<CodeCheck>) -> (Ahead, AheadFeed) {
        let all = files + dirs;
        if all < AHEAD_MIN_PATHS {
            return (Ahead::default(), AheadFeed::default());
        }
        let shared = Arc::new(AheadPaths {
            paths: (0..all).map(|_| OnceLock::new()).collect(),
            files,
            entries: (0..all)
                .map(|_| AheadEntry {
                    state: AtomicU8::new(FREE),
                    stat: OnceLock::new(),
                })
                .collect(),
            fed: Mutex::new(Fed::default()),
            more: Condvar::new(),
        });
        let worker = Arc::clone(&shared);
        let after = then.take();
        // A thread that cannot be started leaves every path to the main thread (and the
        // code's checks to the image).
        let started = std::thread::Builder::new()
            .name("file-stamps".to_string())
            .spawn(move || {
                worker.read_all();
                if let Some(after) = after {
                    after();
                }
            });
        let shared = started.is_ok().then_some(shared);
        let ahead = Ahead {
            next_dir: Cell::new(files),
            shared: shared.clone(),
            ..Ahead::default()
        };
        let feed = AheadFeed {
            shared,
            fed: Fed::default(),
        };
        (ahead, feed)
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
                .position(|p| p.get().is_some_and(|p| p == path))?;
        next.set(i + 1);
        let e = &shared.entries[i];
        let read = match e
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
        };
        let count = if read.is_some() {
            &self.taken
        } else {
            &self.missed
        };
        count.set(count.get() + 1);
        read
    }

    /// How many paths it was started with (0: no thread).
    pub fn len(&self) -> usize {
        self.shared.as_ref().map_or(0, |s| s.paths.len())
    }

    /// Whether it holds no paths.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Of the paths the main thread stamped and found in their place: how many the
    /// thread had read, and how many the main thread read itself (the thread had not
    /// come to them, or was reading them).
    pub fn counts(&self) -> (usize, usize) {
        (self.taken.get(), self.missed.get())
    }
}

impl AheadFeed {
    /// Sets the next file's path.
    pub fn file(&mut self, path: PathBuf) {
        let Some(shared) = &self.shared else { return };
        if self.fed.files < shared.files {
            let _ = shared.paths[self.fed.files].set(path);
            self.fed.files += 1;
            if self.fed.files.is_multiple_of(FEED_BATCH) {
                self.hand_on();
            }
        }
    }

    /// Sets the next directory's path.
    pub fn dir(&mut self, path: PathBuf) {
        let Some(shared) = &self.shared else { return };
        if shared.files + self.fed.dirs < shared.paths.len() {
            let _ = shared.paths[shared.files + self.fed.dirs].set(path);
            self.fed.dirs += 1;
            if self.fed.dirs.is_multiple_of(FEED_BATCH) {
                self.hand_on();
            }
        }
    }

    /// Tells the thread how far the paths are set.
    fn hand_on(&self) {
        if let Some(shared) = &self.shared {
            *shared.fed.lock().unwrap_or_else(|e| e.into_inner()) = self.fed;
            shared.more.notify_one();
        }
    }
}

impl Drop for AheadFeed {
    fn drop(&mut self) {
        self.fed.done = true;
        self.hand_on();
    }
}

impl AheadPaths {
    /// The second thread: reads each path the main thread has not claimed, the files and
    /// the directories each in their order, taking next from the list it is least far
    /// through (in proportion to its length), or from the other when that one's next path
    /// is not set yet; waits when neither is.
    fn read_all(&self) {
        let (files, dirs) = (self.files, self.paths.len() - self.files);
        let (mut f, mut d) = (0, 0);
        let mut fed = Fed::default();
        while f < files || d < dirs {
            let file_ready = f < files && (f < fed.files || fed.done);
            let dir_ready = d < dirs && (d < fed.dirs || fed.done);
            if !file_ready && !dir_ready {
                fed = self.wait_past(fed);
                continue;
            }
            // f / files <= d / dirs, without dividing.
            let file_next = d == dirs || (f < files && f * dirs <= d * files);
            let i = if (file_next && file_ready) || !dir_ready {
                f += 1;
                f - 1
            } else {
                d += 1;
                files + d - 1
            };
            self.read(i);
        }
    }

    /// Waits until the feed is past `seen`, and returns how far it is.
    fn wait_past(&self, seen: Fed) -> Fed {
        let mut fed = self.fed.lock().unwrap_or_else(|e| e.into_inner());
        while *fed == seen {
            fed = self.more.wait(fed).unwrap_or_else(|e| e.into_inner());
        }
        *fed
    }

    /// Reads entry `i` unless the main thread claimed it or its path was never set.
    fn read(&self, i: usize) {
        let (Some(path), e) = (self.paths[i].get(), &self.entries[i]) else {
            return;
        };
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
    /// `n` files in a fresh directory, old enough not to be racy.
    fn files(n: usize) -> (tempfile::TempDir, Vec<PathBuf>) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..n)
            .map(|i| {
                let p = dir.path().join(format!("f{i}.rs"));
                std::fs::write(&p, format!("fn f{i}() {{}}")).unwrap();
                p
            })
            .collect();
        (dir, paths)
    }

    fn state(ahead: &Ahead, i: usize) -> u8 {
        ahead.shared.as_ref().unwrap().entries[i]
            .state
            .load(Ordering::Acquire)
    }

    /// Waits (up to a minute, on a loaded machine) until `done`.
    fn wait_until(mut done: impl FnMut() -> bool) {
        for _ in 0..60_000 {
            if done() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("the stamps' thread did not get there");
    }

    #[test]
    fn the_thread_reads_the_paths_as_they_are_fed_then_runs_the_code_check() {
        let (_dir, paths) = files(AHEAD_MIN_PATHS + 20);
        let dirs: Vec<PathBuf> = (0..FEED_BATCH).map(|_| _dir.path().to_path_buf()).collect();
        let (tx, rx) = std::sync::mpsc::channel();
        let mut check: Option<CodeCheck> = Some(Box::new(move || tx.send(()).unwrap()));
        let (ahead, mut feed) = Ahead::start(paths.len(), dirs.len(), &mut check);
        assert!(check.is_none(), "the thread runs the check");
        assert_eq!(ahead.len(), paths.len() + dirs.len());
        // One batch fed, the feed still open: the thread reads it, and nothing past it.
        for p in &paths[..FEED_BATCH] {
            feed.file(p.clone());
        }
        wait_until(|| (0..FEED_BATCH).all(|i| state(&ahead, i) == READ));
        assert!((FEED_BATCH..ahead.len()).all(|i| state(&ahead, i) == FREE));
        assert!(rx.try_recv().is_err(), "the check waits for the stamps");
        for p in &paths[FEED_BATCH..] {
            feed.file(p.clone());
        }
        for d in &dirs {
            feed.dir(d.clone());
        }
        drop(feed);
        rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        // The check ran after every path was read.
        assert!((0..ahead.len()).all(|i| state(&ahead, i) == READ));
        let loader = FsLoader;
        for p in &paths {
            let mine = stamp_with(
                Some(&loader),
                p,
                ChangeDetection::Stat,
                HasherKind::default(),
                &ahead,
                0,
            );
            assert_eq!(
                mine.stat,
                stamp(
                    Some(&loader),
                    p,
                    ChangeDetection::Stat,
                    HasherKind::default()
                )
                .stat
            );
        }
        for d in &dirs {
            assert_eq!(dir_stamp_with(d, &ahead).stat, dir_stamp(d).stat);
        }
        assert_eq!(ahead.counts(), (paths.len() + dirs.len(), 0));
        // Each is used once: a path stamped again is read again.
        stamp_with(
            Some(&loader),
            &paths[0],
            ChangeDetection::Stat,
            HasherKind::default(),
            &ahead,
            0,
        );
        assert_eq!(ahead.counts(), (paths.len() + dirs.len(), 0));
    }

    #[test]
    fn a_path_the_thread_was_not_fed_is_read_by_the_main_thread() {
        let (_dir, paths) = files(AHEAD_MIN_PATHS);
        let mut check = None;
        let (ahead, mut feed) = Ahead::start(paths.len(), 0, &mut check);
        let last = paths.len() - 1;
        // Less than a batch set: the thread is not told of them yet, and the main thread
        // claims the first path.
        for p in &paths[..FEED_BATCH - 1] {
            feed.file(p.clone());
        }
        let loader = FsLoader;
        let first = stamp_with(
            Some(&loader),
            &paths[0],
            ChangeDetection::Stat,
            HasherKind::default(),
            &ahead,
            0,
        );
        assert_eq!(
            first.stat,
            stamp(
                Some(&loader),
                &paths[0],
                ChangeDetection::Stat,
                HasherKind::default()
            )
            .stat
        );
        assert_eq!(ahead.counts(), (0, 1));
        // A key that cannot be decoded leaves its path unset: the feed ends early.
        for p in &paths[FEED_BATCH - 1..last] {
            feed.file(p.clone());
        }
        drop(feed);
        wait_until(|| (1..last).all(|i| state(&ahead, i) == READ));
        assert_eq!(state(&ahead, 0), USED, "claimed, not read by the thread");
        assert_eq!(state(&ahead, last), FREE, "never set");
        for p in &paths[1..] {
            stamp_with(
                Some(&loader),
                p,
                ChangeDetection::Stat,
                HasherKind::default(),
                &ahead,
                0,
            );
        }
        // The unset path is not found in its place: read by the main thread, uncounted.
        assert_eq!(ahead.counts(), (last - 1, 1));
    }

    #[test]
    fn few_paths_start_no_thread_and_leave_the_code_check() {
        let mut check: Option<CodeCheck> = Some(Box::new(|| {}));
        let (ahead, mut feed) =
            Ahead::start(AHEAD_MIN_PATHS / 2, AHEAD_MIN_PATHS / 2 - 1, &mut check);
        assert!(ahead.is_empty());
        assert!(check.is_some());
        feed.file(PathBuf::from("a.rs"));
        feed.dir(PathBuf::from("a"));
        assert_eq!(ahead.counts(), (0, 0));
    }
}
