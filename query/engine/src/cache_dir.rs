//! The cache directory: the lock that makes concurrent builds safe, loading the previous
//! session's graph, and saving this session's (atomically, with promotion).
//!
//! Files: `query-cache.bin` (see [`crate::on_disk`] for its format), `query-cache.lock`
//! (an advisory lock held from opening until the database is dropped) and, while saving,
//! `query-cache.bin.tmp.<pid>` (renamed over `query-cache.bin` once complete, so a reader
//! sees the old file or the new one, never half of one), and `query-cache.checked`: the
//! cache file's metadata once its reverse section was found intact, written by a save
//! that keeps the file (not when the metadata was racy); a later load that finds the
//! file with the same metadata does not hash that section again.
//!
//! Concurrency: the first build to open the directory takes the lock. A second build
//! either waits for it (`OnLocked::Wait`) or, by default (`OnLocked::ReadOnly`), proceeds
//! at once: it loads the cache as it is (always a whole file, thanks to the rename) and
//! does not save, with a warning. Temporary files left by a crashed build are removed by
//! the next build that holds the lock.
//!
//! Promotion: a `cache_on_disk` value that was green in this session but never decoded is
//! copied byte for byte into the new file, so the cache does not shrink. Every value that
//! did not change (decoded or not) and every key of the previous file are copied the same
//! way rather than encoded again.

use crate::dep_graph::{flags, Node, NodeId, PrevIndex, UNKNOWN_KIND};
use crate::durability::{Durability, LastChanged};
use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::on_disk::{
    disk_flags, reverse_section, table_hash, table_section, Bytes, DiskFlags, Expected, FpSet,
    GraphSections, NodeOut, ReverseLengths, Store, Writer, HEADER_LEN,
};
use crate::query::{Database, Flags};
use crate::revision::Revision;
use crate::runtime::{CacheOptions, OnLocked, Runtime};
use crate::spill::{Spill, SpillRef};
use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub(crate) const CACHE_FILE: &str = "query-cache.bin";
const LOCK_FILE: &str = "query-cache.lock";
pub(crate) const TMP_PREFIX: &str = "query-cache.bin.tmp";
/// The metadata of the cache file whose reverse section was found intact (see
/// [`checked_record`]).
const CHECKED_FILE: &str = "query-cache.checked";

/// Whether a build never writes the file `name` of a cache directory in place: the cache
/// file, of which every save that does not append to the journal writes a new file and
/// renames it over the old one. Such a file keeps the bytes it had when it was made for as
/// long as it exists, so a hard link to it is a snapshot of it that no later build
/// changes. The journal, the record of the checked file and the lock are written in
/// place.
pub fn file_replaced_whole(name: &std::ffi::OsStr) -> bool {
    name == CACHE_FILE
}

/// An open cache directory.
pub(crate) struct CacheDir {
    dir: PathBuf,
    /// The lock file, if this database holds its lock (dropping it releases the lock).
    lock: Option<File>,
    build_id: String,
    fsync: bool,
    writer_thread_min: usize,
    /// The record of the loaded cache file's metadata ([`checked_record`]), to write once
    /// its reverse section is found intact; `None` when it is trusted already, racy, or
    /// replaced.
    unrecorded: std::cell::RefCell<Option<Vec<u8>>>,
    /// The encoded values kept for the save ([`keep_encoded`]); made on first use, and
    /// `Err` once it could not be.
    spill: std::cell::RefCell<Option<Result<Spill, ()>>>,
}

impl CacheDir {
    pub(crate) fn owns_lock(&self) -> bool {
        self.lock.is_some()
    }
}

/// Keeps `bytes`, a value's encoding, for the save, in the cache directory's spill file
/// (see [`crate::spill`]); `None` when there is none or it cannot take them (the save
/// then encodes the value again).
pub(crate) fn keep_encoded(rt: &Runtime, bytes: &[u8]) -> Option<SpillRef> {
    let cache = rt.cache_dir.as_ref()?;
    let mut spill = cache.spill.borrow_mut();
    let spill = spill.get_or_insert_with(|| {
        Spill::create(&cache.dir).map_err(|e| {
            rt.warn(spill_warning(&cache.dir, "keep", e));
        })
    });
    let spill = spill.as_mut().ok()?;
    let r = spill.push(bytes);
    if let Some(e) = spill.take_error() {
        rt.warn(spill_warning(&cache.dir, "keep", e));
    }
    r
}

/// Whether every encoding [`keep_encoded`] was given is in the spill file.
pub(crate) fn spill_intact(rt: &Runtime) -> bool {
    rt.cache_dir
        .as_ref()
        .is_none_or(|c| match &*c.spill.borrow() {
            None => true,
            Some(Ok(s)) => s.intact(),
            Some(Err(())) => false,
        })
}

/// Appends the bytes [`keep_encoded`] put at `r` to `out`; false if they cannot be read.
pub(crate) fn read_spilled(rt: &Runtime, r: SpillRef, out: &mut Vec<u8>) -> bool {
    let Some(cache) = rt.cache_dir.as_ref() else {
        return false;
    };
    let mut spill = cache.spill.borrow_mut();
    let Some(Ok(spill)) = spill.as_mut() else {
        return false;
    };
    let read = spill.read_into(r, out);
    if let Some(e) = spill.take_error() {
        rt.warn(spill_warning(&cache.dir, "read back", e));
    }
    read
}

/// The warning for a spill file that failed: the save still writes every value (it
/// encodes again those whose bytes were not kept), so the cache stays whole.
fn spill_warning(dir: &Path, what: &str, e: std::io::Error) -> String {
    format!(
        "query cache: cannot {what} the encoded values in `{}`: {e}; the save encodes them again",
        dir.display()
    )
}

/// What [`crate::DatabaseExt::save`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveReport {
    /// Whether a new cache file was written.
    pub saved: bool,
    /// Nodes written.
    pub nodes: usize,
    /// `cache_on_disk` values written (encoded or promoted).
    pub values: usize,
    /// Values carried over from the previous file without being decoded.
    pub promoted: usize,
    /// Size of the file written.
    pub bytes: u64,
    /// The generation of the file written (when `saved`).
    pub generation: Option<u64>,
    /// Why nothing (or less) was saved.
    pub warnings: Vec<String>,
}

/// Opens the cache directory and loads the previous session's graph into `rt`.
pub(crate) fn open<Db: Database>(rt: &mut Runtime, opts: &CacheOptions) {
    if let Err(e) = fs::create_dir_all(&opts.dir) {
        rt.warn(format!(
            "query cache: cannot create `{}`: {e}; nothing will be saved",
            opts.dir.display()
        ));
        return;
    }
    let lock = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(opts.dir.join(LOCK_FILE))
    {
        Ok(f) => {
            let locked = match opts.on_locked {
                OnLocked::Wait => f.lock().map_err(|e| e.to_string()),
                OnLocked::ReadOnly => f.try_lock().map_err(|e| match e {
                    fs::TryLockError::WouldBlock => "another build holds it".to_string(),
                    fs::TryLockError::Error(e) => e.to_string(),
                }),
            };
            match locked {
                Ok(()) => Some(f),
                Err(e) => {
                    rt.warn(format!(
                        "query cache: cannot lock `{}` ({e}); this build reads the cache but will not save it",
                        opts.dir.display()
                    ));
                    None
                }
            }
        }
        Err(e) => {
            rt.warn(format!(
                "query cache: cannot open the lock file in `{}`: {e}; nothing will be saved",
                opts.dir.display()
            ));
            None
        }
    };
    if lock.is_some() {
        remove_stale_temp_files(&opts.dir);
    }
    rt.cache_dir = Some(CacheDir {
        dir: opts.dir.clone(),
        lock,
        build_id: opts.build_id.clone(),
        fsync: opts.fsync,
        writer_thread_min: opts.writer_thread_min,
        unrecorded: Default::default(),
        spill: Default::default(),
    });
    load::<Db>(rt, &opts.dir.join(CACHE_FILE), &opts.build_id);
}

fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// What `query-cache.checked` holds for a cache file of metadata `meta`: its size, times,
/// inode and device. The cache file is never written in place (a save appends to the
/// journal or writes a new file), so a file with the same record has the bytes that were
/// checked, unless the metadata was racy when read ([`racy`]). `None` where the metadata
/// has no inode (no record is written there). The one statement of the format: loads and
/// saves use it, and so do the tests that forge or compare a record.
#[cfg(unix)]
pub fn checked_record(meta: &fs::Metadata) -> Option<Vec<u8>> {
    use std::os::unix::fs::MetadataExt;
    let mut r = b"rill query-cache checked 1\n".to_vec();
    for x in [
        meta.len() as i64,
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino() as i64,
        meta.dev() as i64,
    ] {
        r.extend(x.to_le_bytes());
    }
    Some(r)
}

#[cfg(not(unix))]
pub fn checked_record(_: &fs::Metadata) -> Option<Vec<u8>> {
    None
}

/// Whether metadata read at `now` or later is too recent to stand for the file's bytes
/// (the driver's rule for source files): its newest time is within 100 ms before `now`
/// (3 s when the file system keeps whole seconds), or after it; a write after it then
/// leaves a later change time.
#[cfg(unix)]
fn racy(meta: &fs::Metadata, now: std::time::SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    let (m, c) = (
        ns(meta.mtime(), meta.mtime_nsec()),
        ns(meta.ctime(), meta.ctime_nsec()),
    );
    let whole_seconds = meta.mtime_nsec() == 0 && meta.ctime_nsec() == 0;
    let window = if whole_seconds {
        3_000_000_000
    } else {
        100_000_000
    };
    let now = match now.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(_) => return true,
    };
    m.max(c) > now - window
}

#[cfg(not(unix))]
fn racy(_: &fs::Metadata, _: std::time::SystemTime) -> bool {
    true
}

/// Maps the cache file: a file that is not there, cannot be read or fails the checks
/// made at open (see [`crate::on_disk`]) is a warning and an empty graph. With the store,
/// the file's [`checked_record`] and whether it was [`racy`].
fn map_cache_file(
    path: &Path,
    build_id: &str,
    hasher: HasherKind,
) -> Result<(Store, Option<Vec<u8>>, bool), String> {
    let f = File::open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("no cache at `{}`; building from scratch", path.display())
        } else {
            format!(
                "cannot read `{}`: {e}; building from scratch",
                path.display()
            )
        }
    })?;
    // The time first, then the metadata: the file is read after both.
    let now = std::time::SystemTime::now();
    let meta = f.metadata().map_err(|e| {
        format!(
            "cannot read `{}`: {e}; building from scratch",
            path.display()
        )
    })?;
    let len = meta.len();
    let bytes = if len < HEADER_LEN as u64 {
        Bytes::Owned(std::fs::read(path).unwrap_or_default())
    } else {
        // SAFETY: the cache file is never written in place: every save writes a new file
        // and renames it over this one, which leaves this mapping on the old file. (A
        // process that truncates the file in place while this build runs could make a
        // read of the mapping fault; nothing of ours does.)
        match unsafe { memmap2::Mmap::map(&f) } {
            Ok(m) => Bytes::Mapped(m),
            Err(e) => {
                return Err(format!(
                    "cannot map `{}`: {e}; building from scratch",
                    path.display()
                ))
            }
        }
    };
    let store = Store::open(bytes, build_id, hasher)
        .map_err(|e| format!("`{}` ignored: {e}; building from scratch", path.display()))?;
    Ok((store, checked_record(&meta), racy(&meta, now)))
}

fn load<Db: Database>(rt: &mut Runtime, path: &Path, build_id: &str) {
    let start = Instant::now();
    let store = match map_cache_file(path, build_id, rt.options.hasher) {
        Ok((s, record, racy)) => {
            // A file recorded with the same metadata after its reverse section was found
            // intact is not read again for that check (the other checks stay). Verify mode
            // re-checks what the record lets a build skip: it checks the section anyway.
            if let Some(record) = record {
                let trust = rt.options.verify == crate::verify::Verify::Off;
                if trust && fs::read(path.with_file_name(CHECKED_FILE)).is_ok_and(|r| r == record) {
                    s.trust_reverse();
                } else if !racy {
                    if let Some(c) = &rt.cache_dir {
                        *c.unrecorded.borrow_mut() = Some(record);
                    }
                }
            }
            s
        }
        Err(w) => {
            rt.warn(format!("query cache: {w}"));
            return;
        }
    };
    let kind_map: Vec<u16> = store
        .kinds
        .iter()
        .map(|name| {
            Db::KINDS
                .iter()
                .position(|k| k.name == name)
                .map_or(UNKNOWN_KIND, |i| i as u16)
        })
        .collect();
    let mut disk_kind = vec![None; Db::KINDS.len()];
    for (d, &k) in kind_map.iter().enumerate() {
        if let Some(slot) = disk_kind.get_mut(k as usize) {
            *slot = Some(d as u16);
        }
    }
    let delta_path = path.with_file_name(crate::delta::DELTA_FILE);
    let delta = match fs::read(&delta_path) {
        Ok(bytes) => {
            let len = bytes.len() as u64;
            match crate::delta::read(bytes, &store, build_id, rt.options.hasher) {
                Ok(d) => {
                    if d.valid_len < len {
                        rt.warn(format!(
                            "query cache: the last {} bytes of `{}` are incomplete or damaged; ignored",
                            len - d.valid_len,
                            delta_path.display()
                        ));
                    }
                    d
                }
                // Another cache file's journal: left over from a save interrupted after
                // it wrote a new cache file; the next save removes it.
                Err(crate::delta::DeltaError::Stale) => Default::default(),
                Err(crate::delta::DeltaError::Damaged) => {
                    rt.warn(format!(
                        "query cache: `{}` ignored: its header is damaged",
                        delta_path.display()
                    ));
                    Default::default()
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Default::default(),
        // The cache file alone is a state a save completed: the journal's changes are
        // recomputed, and the next save writes a new journal for the file.
        Err(e) => {
            rt.warn(format!(
                "query cache: cannot read `{}`: {e}; its changes are ignored",
                delta_path.display()
            ));
            Default::default()
        }
    };
    let count = store.len().max(delta.count);
    let len = store.file_len() + delta.bytes.len() as u64;
    *rt.graph.get_mut() = crate::dep_graph::Graph::loaded(count);
    {
        let volatile_kind = |disk: u16| {
            Db::KINDS
                .get(kind_map[usize::from(disk)] as usize)
                .is_none_or(|k| k.flags.intersects(Flags::INPUT.with(Flags::EVAL_ALWAYS)))
        };
        let s = rt.session.get_mut();
        s.loaded = count;
        s.volatile = store.volatile.iter().map(|&i| NodeId(i)).collect();
        let mut added: Vec<u32> = delta
            .nodes
            .iter()
            .filter(|(&i, n)| i >= store.len() && volatile_kind(n.kind))
            .map(|(&i, _)| i)
            .collect();
        added.sort_unstable();
        s.volatile.extend(added.into_iter().map(NodeId));
    }
    rt.prev = Some(Loaded {
        store,
        delta,
        kind_map,
        disk_kind,
        filled: Filled::new(count as usize),
    });
    // Everything loaded was valid when it was saved; the session's start finds what
    // changed since (see `session`).
    rt.last_changed.set(LastChanged::unchanged());
    let stats = rt.stats.get_mut();
    stats.cache_load += start.elapsed();
    stats.cache_bytes_read += len;
}

/// The previous session's cache, opened, with the map between its query kinds and ours.
pub(crate) struct Loaded {
    pub store: Store,
    /// The journal of the cache file (empty without one).
    pub delta: crate::delta::Delta,
    /// Our kind of each of the file's kinds (`UNKNOWN_KIND` for a query that is gone).
    kind_map: Vec<u16>,
    /// The file's kind of each of ours.
    disk_kind: Vec<Option<u16>>,
    /// Which loaded nodes [`ensure`] has filled in.
    filled: Filled,
}

/// One bit per loaded node: set once [`ensure`] has filled the node in, that is, exactly
/// when the node has [`flags::PRESENT`] (only `ensure` puts a node at a loaded index, and
/// nothing takes the flag away). `ensure` asks this rather than the node, so that the first
/// access to a page of the zeroed placeholders is the write that fills a node in. Reading
/// a page of them first maps the kernel's shared zero page, and the write that follows
/// faults a second time to copy it, flushing the TLB of every processor the process's
/// threads have run on (the link state's checker and the file stamps' reader run beside
/// the main thread): at 1M lines those second faults were a fifth of the main thread's
/// time in a no-change rebuild. The bits take 1/512 of the nodes' memory, written when
/// made, so their own pages fault once each.
struct Filled {
    bits: Box<[AtomicU64]>,
    /// How many nodes were loaded (those of this session come after them).
    nodes: usize,
}

impl Filled {
    fn new(nodes: usize) -> Filled {
        Filled {
            bits: (0..nodes.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            nodes,
        }
    }

    /// The word and the bit of loaded node `i`; `None` for a node that was not loaded.
    #[inline]
    fn bit(&self, i: u32) -> Option<(&AtomicU64, u64)> {
        if i as usize >= self.nodes {
            return None;
        }
        Some((&self.bits[i as usize / 64], 1 << (i % 64)))
    }

    /// Whether loaded node `i` was filled in; `None` for a node that was not loaded.
    #[inline]
    fn get(&self, i: u32) -> Option<bool> {
        let (word, bit) = self.bit(i)?;
        Some(word.load(Ordering::Relaxed) & bit != 0)
    }

    /// Records that loaded node `i` was filled in.
    #[inline]
    fn set(&self, i: u32) {
        if let Some((word, bit)) = self.bit(i) {
            // One thread fills nodes in (the graph is behind a `RefCell`): no read-modify-
            // write instruction is needed.
            word.store(word.load(Ordering::Relaxed) | bit, Ordering::Relaxed);
        }
    }
}

impl Loaded {
    pub(crate) fn key_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        match self.delta.nodes.get(&prev.get()) {
            Some(n) => self.delta.bytes.get(n.key.clone()),
            None => self.store.key_bytes(prev.get()),
        }
    }

    /// [`Loaded::key_bytes`] of a node whose record was checked when it was loaded,
    /// without checking it again (see `Store::loaded_key_bytes`).
    pub(crate) fn loaded_key_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        match self.delta.nodes.get(&prev.get()) {
            Some(n) => self.delta.bytes.get(n.key.clone()),
            None => self.store.loaded_key_bytes(prev.get()),
        }
    }

    pub(crate) fn value_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        self.value(prev)?.ok()
    }

    /// The value's bytes: `None` without one, an error if they are damaged.
    pub(crate) fn value(&self, prev: PrevIndex) -> Option<Result<&[u8], crate::on_disk::Damaged>> {
        match self.delta.nodes.get(&prev.get()) {
            Some(n) if n.flags.contains(disk_flags::HAS_VALUE) && !n.tombstone => {
                // Checked with its segment when the journal was read.
                self.delta.bytes.get(n.value.clone()).map(Ok)
            }
            Some(_) => None,
            None => self.store.value(prev.get()),
        }
    }

    /// The loaded dependents of loaded node `i`: the cache file's (if its reverse edges
    /// are intact), then the journal's.
    pub(crate) fn dependents(&self, i: u32) -> Option<impl Iterator<Item = u32> + '_> {
        let from_file = if i < self.store.len() {
            Some(self.store.dependents(i)?)
        } else {
            None
        };
        Some(
            from_file
                .into_iter()
                .flatten()
                .chain(crate::delta::dependents(&self.delta, i).iter().copied()),
        )
    }

    /// Whether loaded node `i`'s record has these edges, cycle and root flags and
    /// durability (then a save need not write it again).
    pub(crate) fn same_record(
        &self,
        i: u32,
        deps: &[u32],
        flags: DiskFlags,
        durability: u8,
    ) -> bool {
        let mask = disk_flags::CYCLIC | disk_flags::ROOT;
        if let Some(d) = self.delta.nodes.get(&i) {
            return !d.tombstone
                && d.deps == deps
                && d.flags & mask == flags & mask
                && d.durability == durability;
        }
        // The node was loaded from this record, which was checked then (a damaged one
        // leaves a node of no known kind, which a save never compares).
        self.store.record_links(i).is_some_and(|r| {
            r.flags & mask == flags & mask
                && r.durability == durability
                && r.deps().eq(deps.iter().copied())
        })
    }

    /// The roots of the loaded graph; `None` if the cache file's roots section is damaged.
    pub(crate) fn roots(&self) -> Option<Vec<u32>> {
        let mut roots = self.store.roots()?;
        roots.extend(
            self.delta
                .nodes
                .iter()
                .filter(|(_, n)| n.flags.contains(disk_flags::ROOT) && !n.tombstone)
                .map(|(&i, _)| i),
        );
        Some(roots)
    }

    /// The generation of the cache as loaded: the last save's.
    pub(crate) fn generation(&self) -> u64 {
        self.delta
            .generation
            .unwrap_or(self.store.header.generation)
    }
}

/// Fills in loaded node `id` from its record if it is still a placeholder: the journal's
/// record if a later save wrote one, else the cache file's. A damaged record is a
/// warning, and the node has no memo (whatever read it re-executes).
pub(crate) fn ensure(rt: &Runtime, id: NodeId) {
    // A loaded node is asked of `filled`, not read (see `Filled`); a node of this session
    // is always present.
    let present = match rt.prev.as_ref().and_then(|p| p.filled.get(id.0)) {
        Some(filled) => filled,
        None => rt.graph.borrow().node(id).has(flags::PRESENT),
    };
    if present {
        return;
    }
    let mut n = Node::new(UNKNOWN_KIND);
    let mut key_fp = Fingerprint::ZERO;
    // A damaged record keeps its place in the order (what read it comes after it).
    n.order = id.0;
    let mut deps: Vec<NodeId> = Vec::new();
    let prev = rt.prev.as_ref();
    if let Some((p, d)) = prev.and_then(|p| Some((p, p.delta.nodes.get(&id.0)?))) {
        let head = RecordHead {
            kind: d.kind,
            key_fp: d.key_fp,
            durability: d.durability,
            flags: d.flags,
            fp: d.fp,
        };
        head.fill(&mut n, p, id, d.order, !d.tombstone);
        key_fp = head.key_fp;
        deps.extend(d.deps.iter().map(|&x| NodeId(x)));
    } else if let Some((p, r)) = prev.and_then(|p| Some((p, p.store.record(id.0)?))) {
        let head = RecordHead {
            kind: r.kind,
            key_fp: r.key_fp,
            durability: r.durability,
            flags: r.flags,
            fp: r.fp,
        };
        head.fill(&mut n, p, id, id.0, true);
        key_fp = head.key_fp;
        // Checked by `Store::record`: edges point to earlier nodes.
        deps.extend(r.deps().map(NodeId));
    } else {
        rt.warn(format!(
            "query cache: the record of node {} is damaged; recomputing what used it",
            id.0
        ));
        rt.damaged_record.set(true);
    }
    let mut g = rt.graph.borrow_mut();
    let start = g.edges.len() as u32;
    g.edges.extend_from_slice(&deps);
    n.deps_start = start;
    n.deps_len = deps.len() as u32;
    *g.node_mut(id) = n;
    g.set_loaded_key_fp(id, key_fp);
    if let Some(p) = prev {
        p.filled.set(id.0);
    }
}

/// What a node's record says of it besides its edges, in the cache file or the journal.
struct RecordHead {
    /// The cache file's kind index.
    kind: u16,
    key_fp: Fingerprint,
    durability: u8,
    flags: DiskFlags,
    fp: Fingerprint,
}

impl RecordHead {
    /// Fills `n` (new: verified and changed in the previous session), the node of loaded
    /// index `id`, at `order` in the dependency order; `memo`: the record holds a result
    /// (not a tombstone).
    fn fill(&self, n: &mut Node, p: &Loaded, id: NodeId, order: u32, memo: bool) {
        n.kind = p.kind_map[usize::from(self.kind)];
        n.durability = Durability::from_u8(self.durability).unwrap_or(Durability::Low);
        n.prev = Some(PrevIndex::from_index(id.index()));
        n.order = order;
        if n.kind != UNKNOWN_KIND && memo {
            n.flags.insert(flags::MEMO);
        }
        if self.flags.contains(disk_flags::HAS_FP) {
            n.flags.insert(flags::HAS_FP);
            n.fingerprint = self.fp;
        }
        n.flags
            .set(flags::CYCLIC, self.flags.contains(disk_flags::CYCLIC));
        n.flags
            .set(flags::ROOT, self.flags.contains(disk_flags::ROOT));
    }
}

/// The loaded node of query kind `kind` with key fingerprint `key_fp` that has no slot
/// yet, filled in; `None` if the cache has none.
pub(crate) fn lookup(rt: &Runtime, kind: u16, key_fp: Fingerprint) -> Option<NodeId> {
    let p = rt.prev.as_ref()?;
    let disk_kind = (*p.disk_kind.get(kind as usize)?)?;
    let added = p.delta.keys.get(&(disk_kind, key_fp)).copied();
    for c in added
        .into_iter()
        .chain(p.store.candidates(disk_kind, key_fp))
    {
        let id = NodeId(c);
        ensure(rt, id);
        let g = rt.graph.borrow();
        let n = g.node(id);
        if n.kind == kind && g.key_fp(id) == key_fp && n.slot.is_none() {
            return Some(id);
        }
    }
    None
}

/// Saves the session's graph (see the module documentation), calling `during` with the
/// generation of what is saved while the save is under way (see
/// [`crate::DatabaseExt::save_with`]).
pub(crate) fn save<Db: Database>(db: &mut Db, during: &mut dyn FnMut(u64)) -> SaveReport {
    let db = &*db;
    let rt = db.runtime();
    let mut report = SaveReport::default();
    let Some(cache) = rt.cache_dir.as_ref() else {
        report
            .warnings
            .push("no cache directory: nothing to save".to_string());
        return report;
    };
    if !cache.owns_lock() {
        report
            .warnings
            .push("the cache directory is locked by another build: not saved".to_string());
        return report;
    }
    let mismatches = rt.verify_mismatches().len();
    if mismatches > 0 {
        // Verify mode re-executed green memos and got other results: something the graph
        // does not track changed (a file whose metadata did not move, say), so neither the
        // loaded cache nor this session's graph can be trusted. Drop both: the next build
        // starts from scratch. The cache file goes first; a journal left without it is
        // ignored (its header names a generation no cache file has).
        let _ = std::fs::remove_file(cache.dir.join(CACHE_FILE));
        let _ = std::fs::remove_file(cache.dir.join(crate::delta::DELTA_FILE));
        let _ = std::fs::remove_file(cache.dir.join(CHECKED_FILE));
        report.warnings.push(format!(
            "verify: {mismatches} green result(s) differ when re-executed: the cache is discarded"
        ));
        return report;
    }
    let start = Instant::now();
    // What is valid is known once the session has started (a session that read nothing
    // has not): the loaded memos the start finds valid are saved again.
    crate::session::start(db);
    key_fps_of_new_nodes(db);
    let generation = new_generation(rt);
    if append::<Db>(db, cache, generation, &mut report).is_some() {
        during(generation);
        // The cache file stays: recorded once its reverse section was found intact.
        if rt.prev.as_ref().is_some_and(|p| p.store.reverse_checked()) {
            if let Some(record) = cache.unrecorded.borrow_mut().take() {
                // A record cut short names no file: the section is checked again.
                let _ = fs::write(cache.dir.join(CHECKED_FILE), record);
            }
        }
        let mut stats = rt.stats.borrow_mut();
        stats.cache_save += start.elapsed();
        stats.cache_bytes_written += report.bytes;
        return report;
    }
    match write_cache_file::<Db>(db, cache, generation, &mut report, during) {
        Ok(len) => {
            report.saved = true;
            report.bytes = len;
            report.generation = Some(generation);
            // The journal belonged to the file just replaced (a reader that still sees it
            // ignores it: its header names the old file's generation).
            let _ = fs::remove_file(cache.dir.join(crate::delta::DELTA_FILE));
            // So did the record of its check.
            cache.unrecorded.borrow_mut().take();
            let _ = fs::remove_file(cache.dir.join(CHECKED_FILE));
        }
        Err(e) => {
            let w = format!(
                "query cache: cannot write `{}`: {e}; not saved",
                cache.dir.display()
            );
            rt.warn(w.clone());
            report.warnings.push(w);
        }
    }
    let mut stats = rt.stats.borrow_mut();
    stats.cache_save += start.elapsed();
    stats.cache_bytes_written += report.bytes;
    report
}

/// Computes the key fingerprints of the nodes created since they were last computed, from
/// their keys (see `Graph::nodes_without_key_fp`): once a build is done compiling, when
/// what it held to compile has been released, rather than 16 bytes a node held through
/// the compilation. (The loaded nodes' come from their records.)
fn key_fps_of_new_nodes<Db: Database>(db: &Db) {
    let rt = db.runtime();
    let missing = rt.graph.borrow().nodes_without_key_fp();
    rt.graph.borrow_mut().reserve_key_fps();
    for i in missing {
        let kind = rt.graph.borrow().node(NodeId(i)).kind;
        let fp = Db::KINDS
            .get(usize::from(kind))
            .and_then(|vt| (vt.key_fp)(db, NodeId(i)))
            .unwrap_or(Fingerprint::ZERO);
        rt.graph.borrow_mut().push_key_fp(fp);
    }
}

/// Appends what this session changed to the cache's journal (see [`crate::delta`]).
/// `None` when a whole new cache file must be written instead: no cache was loaded, the
/// session ran more than one revision (its memos are not all known valid), the journal
/// would pass a quarter of the cache file (then a new file drops its dead records: the
/// cache's garbage collection), or a node that now reads a node added after it would have
/// to move in the dependency order while something unchanged still reads it.
fn append<Db: Database>(
    db: &Db,
    cache: &CacheDir,
    generation: u64,
    report: &mut SaveReport,
) -> Option<()> {
    use crate::delta::{RecordOut, SegmentWriter};
    use rustc_hash::{FxHashMap, FxHashSet};
    let rt = db.runtime();
    let p = rt.prev.as_ref()?;
    if !crate::session::complete(rt) {
        return None;
    }
    let loaded = rt.session.borrow().loaded;
    // The sets and maps below are made at their final size: a session that re-executed
    // every file's stamp has thousands of members at a million lines, and growing a
    // table rehashes what it holds.
    let dirty: Vec<NodeId> = {
        let s = rt.session.borrow();
        let mut seen = FxHashSet::with_capacity_and_hasher(s.dirty.len(), Default::default());
        s.dirty
            .iter()
            .copied()
            .filter(|&d| seen.insert(d))
            .collect()
    };
    // What the segment rewrites: the dirty nodes, and the unchanged readers of a node that
    // moves up the order (added, with their own readers if they move, until none is
    // missing; a reach past a bound writes a new cache file instead).
    let limit = 4 * dirty.len() + 4096;
    // A loaded node that reads nothing and was re-executed to the same result (each
    // file's stamp, in every session) keeps its record: it is left out here rather than
    // found standing below, after the search's tables (at a million lines, 1,572 stamps
    // went through them in each rebuild for a segment of a few records).
    let mut members: Vec<NodeId> = dirty
        .into_iter()
        .filter(|&id| !record_stands(rt, p, loaded, id))
        .collect();
    let (seg, nodes, values) = loop {
        let in_segment: FxHashSet<NodeId> = members.iter().copied().collect();
        let dirty = &members;
        // Dependencies first, within the members.
        let mut topo = Vec::with_capacity(dirty.len());
        let mut state: FxHashMap<NodeId, u8> =
            FxHashMap::with_capacity_and_hasher(dirty.len(), Default::default());
        for &root in dirty {
            if state.contains_key(&root) {
                continue;
            }
            state.insert(root, 1);
            let mut stack = vec![(root, 0u32)];
            while let Some(&mut (id, ref mut next)) = stack.last_mut() {
                let dep = rt.graph.borrow().dep(id, *next);
                match dep {
                    Some(d) => {
                        *next += 1;
                        if in_segment.contains(&d) && !state.contains_key(&d) {
                            state.insert(d, 1);
                            stack.push((d, 0));
                        }
                    }
                    None => {
                        topo.push(id);
                        stack.pop();
                    }
                }
            }
        }
        let mut disk_id: FxHashMap<NodeId, u32> = FxHashMap::default();
        let mut new_order: FxHashMap<NodeId, u32> =
            FxHashMap::with_capacity_and_hasher(topo.len(), Default::default());
        let mut next_id = loaded;
        let mut next_order = p.delta.next_order.max(p.store.len());
        let mut seg = SegmentWriter::new();
        let (mut nodes, mut values) = (0usize, 0usize);
        let mut missing: Vec<NodeId> = Vec::new();
        for id in topo {
            let n = rt.graph.borrow().node(id).clone();
            let is_loaded = id.0 < loaded;
            let disk_kind = (*p.disk_kind.get(n.kind as usize)?)?;
            if !n.has(flags::MEMO) || !is_current(rt, &n) {
                if !is_loaded {
                    // Never saved; anything that read it is caught below (its edge has no
                    // place on disk).
                    continue;
                }
                // A loaded memo that is no longer valid: its record is dropped.
                seg.push(&RecordOut {
                    node: id.0,
                    order: n.order,
                    kind: disk_kind,
                    flags: DiskFlags::EMPTY,
                    durability: n.durability as u8,
                    tombstone: true,
                    key_fp: rt.graph.borrow().key_fp(id),
                    fp: Fingerprint::ZERO,
                    deps: &[],
                    key: &[],
                    value: &[],
                });
                nodes += 1;
                continue;
            }
            let mut deps = Vec::with_capacity(n.deps_len as usize);
            let mut max_dep: Option<u32> = None;
            let dep_ids: Vec<NodeId> = rt.graph.borrow().deps(id).to_vec();
            for d in dep_ids {
                ensure(rt, d);
                let on_disk = if d.0 < loaded { d.0 } else { *disk_id.get(&d)? };
                let (order, ok) = {
                    let g = rt.graph.borrow();
                    let dn = g.node(d);
                    (
                        new_order.get(&d).copied().unwrap_or(dn.order),
                        dn.has(flags::MEMO) && is_current(rt, dn),
                    )
                };
                if !ok {
                    return None;
                }
                deps.push(on_disk);
                max_dep = Some(max_dep.map_or(order, |m| m.max(order)));
            }
            let node = if is_loaded {
                id.0
            } else {
                let x = next_id;
                next_id += 1;
                disk_id.insert(id, x);
                x
            };
            let order = if is_loaded && max_dep.is_none_or(|m| m < n.order) {
                n.order
            } else {
                let o = next_order;
                next_order = next_order.checked_add(1).filter(|&o| o < u32::MAX)?;
                o
            };
            if is_loaded && order != n.order {
                // It moves up the order: whatever still reads it must move too.
                missing.extend(
                    p.dependents(id.0)?
                        .map(NodeId)
                        .filter(|y| !in_segment.contains(y)),
                );
            }
            new_order.insert(id, order);
            let mut dflags = graph_flags(&n);
            if is_loaded
                && order == n.order
                && n.changed_at == Revision::PREVIOUS_SESSION
                && p.same_record(id.0, &deps, dflags, n.durability as u8)
            {
                // Re-executed to the same value, reading the same: its record stands (the
                // file stamps of every session, say).
                continue;
            }
            let payload = payload(db, Some(p), id, &n)?;
            let (key, fp) = (payload.key, payload.fp);
            dflags.set(disk_flags::HAS_FP, fp.is_some());
            let mut value: Cow<'_, [u8]> = Cow::Borrowed(&[]);
            if let Some(v) = payload.value {
                dflags.insert(disk_flags::HAS_VALUE);
                value = v;
                values += 1;
            }
            seg.push(&RecordOut {
                node,
                order,
                kind: disk_kind,
                flags: dflags,
                durability: n.durability as u8,
                tombstone: false,
                key_fp: rt.graph.borrow().key_fp(id),
                fp: fp.unwrap_or(Fingerprint::ZERO),
                deps: &deps,
                key: &key,
                value: &value,
            });
            nodes += 1;
        }
        if missing.is_empty() {
            break (seg, nodes, values);
        }
        missing.sort_unstable();
        missing.dedup();
        if members.len() + missing.len() > limit {
            return None;
        }
        for &m in &missing {
            ensure(rt, m);
        }
        members.extend(missing);
    };
    let bytes = seg.finish(generation);
    let threshold = (p.store.file_len() / 4).max(64 << 10);
    if p.delta.valid_len + bytes.len() as u64 > threshold {
        return None;
    }
    let path = cache.dir.join(crate::delta::DELTA_FILE);
    let written = if p.delta.valid_len >= crate::delta::HEADER_LEN as u64 {
        // The journal of the loaded file: cut what a killed save may have left after its
        // last whole segment, then append.
        (|| {
            let mut f = OpenOptions::new().write(true).open(&path)?;
            f.set_len(p.delta.valid_len)?;
            f.seek(std::io::SeekFrom::Start(p.delta.valid_len))?;
            f.write_all(&bytes)?;
            if cache.fsync {
                f.sync_all()?;
            }
            Ok::<(), std::io::Error>(())
        })()
    } else {
        // A new journal, put in place whole.
        let mut file = crate::delta::header(
            p.store.header.generation,
            &cache.build_id,
            rt.options.hasher,
        )
        .to_vec();
        file.extend_from_slice(&bytes);
        write_file_atomically(&cache.dir, &path, &file, cache.fsync)
    };
    if let Err(e) = written {
        let w = format!(
            "query cache: cannot append to `{}`: {e}; not saved",
            path.display()
        );
        rt.warn(w.clone());
        report.warnings.push(w);
        return Some(());
    }
    report.saved = true;
    report.bytes = bytes.len() as u64;
    report.generation = Some(generation);
    report.nodes = nodes;
    report.values = values;
    Some(())
}

/// The flags of node `n`'s record that the graph decides (the others say what the record
/// holds).
fn graph_flags(n: &Node) -> DiskFlags {
    let mut f = DiskFlags::EMPTY;
    f.set(disk_flags::CYCLIC, n.has(flags::CYCLIC));
    f.set(disk_flags::ROOT, n.has(flags::ROOT));
    f
}

/// Whether loaded node `id` (below `loaded`) reads nothing, is valid, was re-executed to
/// the same result and has the record it would be given: then a journal segment need not
/// hold it (what [`append`] finds for such a node after ordering the segment).
fn record_stands(rt: &Runtime, p: &Loaded, loaded: u32, id: NodeId) -> bool {
    if id.0 >= loaded {
        return false;
    }
    let g = rt.graph.borrow();
    let n = g.node(id);
    n.has(flags::MEMO)
        && n.changed_at == Revision::PREVIOUS_SESSION
        && g.deps(id).is_empty()
        && p.disk_kind
            .get(n.kind as usize)
            .copied()
            .flatten()
            .is_some()
        && is_current(rt, n)
        && p.same_record(id.0, &[], graph_flags(n), n.durability as u8)
}

/// Writes `bytes` to a temporary file in `dir` and renames it to `path`.
fn write_file_atomically(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    fsync: bool,
) -> std::io::Result<()> {
    let tmp = dir.join(format!("{TMP_PREFIX}.{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        if fsync {
            f.sync_all()?;
        }
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Whether a node's memo is valid at the current revision (and so may be persisted).
fn is_current(rt: &Runtime, n: &Node) -> bool {
    if n.kind == UNKNOWN_KIND || n.has(flags::IN_PROGRESS) {
        return false;
    }
    if rt.kind_flags[n.kind as usize].contains(Flags::INPUT) {
        return n.has(flags::INPUT_SET);
    }
    let rev = rt.revision.get();
    n.has(flags::MEMO)
        && (n.verified_at == rev
            || n.verified_at >= Revision::START
                && rt
                    .last_changed
                    .get()
                    .unchanged_since(n.durability, n.verified_at)
            || rt.is_clean(n.order, n.verified_at))
}

/// The roots of what is saved: what the embedder read at the top level (in this session,
/// or in an earlier one and still valid) and the inputs it set. A memo that no root
/// reaches any more (a deleted item's) is dropped.
fn is_root(n: &Node) -> bool {
    n.has(flags::ROOT) || n.has(flags::INPUT_SET)
}

/// What a saved record holds besides the graph.
struct Payload<'a> {
    key: Cow<'a, [u8]>,
    /// The result's fingerprint (`None` for a query that is not hashed).
    fp: Option<Fingerprint>,
    /// The value's bytes (`cache_on_disk` queries, when it can be encoded).
    value: Option<Cow<'a, [u8]>>,
}

/// The key, fingerprint and value of node `id` for saving (see [`key_bytes`] and
/// [`value_bytes`]). `None` if the key cannot be encoded.
fn payload<'a, Db: Database>(
    db: &Db,
    prev: Option<&'a Loaded>,
    id: NodeId,
    n: &Node,
) -> Option<Payload<'a>> {
    let mut key = Vec::new();
    let key = match key_bytes(db, prev, id, n, &mut key)? {
        Found::Copied(k) => Cow::Borrowed(k),
        Found::Encoded => Cow::Owned(key),
    };
    let mut value = Vec::new();
    let value = value_bytes(db, prev, id, n, &mut value).map(|(v, _)| match v {
        Found::Copied(v) => Cow::Borrowed(v),
        Found::Encoded => Cow::Owned(value),
    });
    Some(Payload {
        key,
        fp: result_fp(db, id, n),
        value,
    })
}

/// The result's fingerprint of node `id` (`None` for a query that is not hashed).
fn result_fp<Db: Database>(db: &Db, id: NodeId, n: &Node) -> Option<Fingerprint> {
    match n.fp() {
        Some(fp) => Some(fp),
        None if Db::KINDS[n.kind as usize].has_hash => {
            (Db::KINDS[n.kind as usize].hash_value)(db, id)
        }
        None => None,
    }
}

/// Bytes to save: the loaded cache's, or encoded at the end of a buffer.
enum Found<'a> {
    Copied(&'a [u8]),
    Encoded,
}

/// The key bytes of node `id`: a node of the loaded cache has the same key bytes (same
/// kind and key fingerprint), copied rather than encoded again; otherwise they are
/// encoded at the end of `buf`. `None` if the key cannot be encoded.
fn key_bytes<'a, Db: Database>(
    db: &Db,
    prev: Option<&'a Loaded>,
    id: NodeId,
    n: &Node,
    buf: &mut Vec<u8>,
) -> Option<Found<'a>> {
    if let Some(k) = prev.zip(n.prev).and_then(|(p, i)| p.key_bytes(i)) {
        return Some(Found::Copied(k));
    }
    (Db::KINDS[n.kind as usize].encode_key)(db, id, buf).then_some(Found::Encoded)
}

/// The value bytes of node `id` (`cache_on_disk` queries, when it can be encoded) and
/// whether they were promoted (copied from the loaded cache without ever being decoded).
/// A value that did not change in this session has the bytes of the loaded cache:
/// copied rather than encoded again at the end of `buf`.
fn value_bytes<'a, Db: Database>(
    db: &Db,
    prev: Option<&'a Loaded>,
    id: NodeId,
    n: &Node,
    buf: &mut Vec<u8>,
) -> Option<(Found<'a>, bool)> {
    let vt = &Db::KINDS[n.kind as usize];
    if !vt.has_codec {
        return None;
    }
    let unchanged = n.changed_at == Revision::PREVIOUS_SESSION;
    let start = buf.len();
    let (value, promoted) = match prev
        .zip(n.prev)
        .and_then(|(p, i)| p.value_bytes(i))
        .filter(|_| unchanged)
    {
        Some(bytes) => (Found::Copied(bytes), !(vt.has_value)(db, id)),
        None => (
            (vt.encode_value)(db, id, buf).then_some(Found::Encoded)?,
            false,
        ),
    };
    let len = match &value {
        Found::Copied(b) => b.len(),
        Found::Encoded => buf.len() - start,
    };
    if len >= u32::MAX as usize {
        buf.truncate(start);
        return None;
    }
    Some((value, promoted))
}

/// A generation number for a new cache file: never 0, different from the loaded file's,
/// and from any other save's in practice (time, process, a counter and the previous
/// generation, hashed).
fn new_generation(rt: &Runtime) -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let prev = rt.prev.as_ref().map_or(0, Loaded::generation);
    let mut b = Vec::with_capacity(40);
    b.extend_from_slice(&now.to_le_bytes());
    b.extend_from_slice(&std::process::id().to_le_bytes());
    b.extend_from_slice(&prev.to_le_bytes());
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    b.extend_from_slice(&n.to_le_bytes());
    let g = xxhash_rust::xxh3::xxh3_64(&b);
    if g == prev || g == 0 {
        g.wrapping_add(1).max(1)
    } else {
        g
    }
}

/// Writes a new cache file: to a temporary file in the directory, renamed over the cache
/// file once complete. Gives the file's length.
fn write_cache_file<Db: Database>(
    db: &Db,
    cache: &CacheDir,
    generation: u64,
    report: &mut SaveReport,
    during: &mut dyn FnMut(u64),
) -> std::io::Result<u64> {
    let rt = db.runtime();
    let tmp = cache
        .dir
        .join(format!("{TMP_PREFIX}.{}", std::process::id()));
    let result = (|| {
        let file = File::create(&tmp)?;
        let kinds: Vec<&str> = Db::KINDS.iter().map(|k| k.name).collect();
        let order = DependencyOrder::new(rt);
        let expect = order.expect();
        let w = Writer::new(
            // In pieces: the sections the writer writes in one write each are read a few
            // entries at a time through a mapping (see `InPieces`).
            BufWriter::with_capacity(1 << 16, crate::InPieces(file)),
            &kinds,
            &cache.build_id,
            rt.options.hasher,
            generation,
            expect,
        )?;
        let (out, len) = write_nodes(
            db,
            order,
            w,
            report,
            during,
            generation,
            cache.writer_thread_min,
        )?;
        let file = out.into_inner().map_err(|e| e.into_error())?.0;
        if cache.fsync {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(&tmp, cache.dir.join(CACHE_FILE))?;
        Ok(len)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The nodes from which a save writes its file on a thread of its own ([`write_nodes`]),
/// by default (`CacheOptions::writer_thread_min`): below, starting the thread (some 30 µs)
/// costs more than it saves.
pub(crate) const WRITER_THREAD_MIN: usize = 2048;

/// A batch of what the walk of the graph hands to the [`Writer`] ([`write_nodes`]): keys
/// (each the first time it is met) and nodes, in the order they are written, with the
/// bytes of the keys and values back to back and the nodes' edges (as indices in the new
/// file) back to back.
struct Batch {
    items: Vec<Item>,
    bytes: Vec<u8>,
    deps: Vec<u32>,
}

/// The node count or byte size at which a [`Batch`] goes to the writer. A few batches are
/// alive at once (the one being filled, those in the channel, the one being written, those
/// given back), each with room for a full one: small batches keep that small.
const BATCH_NODES: usize = 256;
const BATCH_BYTES: usize = 64 << 10;

/// One entry of a [`Batch`].
enum Item {
    /// Key `index` (the next one), of fingerprint `fp`: its next `len` bytes.
    Key {
        index: u32,
        fp: Fingerprint,
        len: u32,
    },
    /// Node `index` (the next one), its next `deps` edges and its next `value` bytes.
    Node {
        index: u32,
        kind: u16,
        flags: DiskFlags,
        durability: u8,
        key: u32,
        fp: Fingerprint,
        deps: u32,
        value: u32,
    },
}

impl Batch {
    /// An empty batch with room for a full one's nodes and bytes.
    fn new() -> Batch {
        Batch {
            items: Vec::with_capacity(BATCH_NODES),
            bytes: Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 2)),
            deps: Vec::with_capacity(8 * BATCH_NODES),
        }
    }

    fn full(&self) -> bool {
        self.items.len() >= BATCH_NODES || self.bytes.len() >= BATCH_BYTES
    }

    fn clear(&mut self) {
        self.items.clear();
        self.bytes.clear();
        self.deps.clear();
    }
}

/// Gives a batch's keys and nodes to the writer, checking that they get the indices the
/// walk gave them.
fn write_batch<W: Write + Seek>(w: &mut Writer<W>, b: &Batch) -> std::io::Result<()> {
    let (mut bytes, mut deps_left) = (&b.bytes[..], &b.deps[..]);
    let out_of_order = || std::io::Error::other("the save's batches are out of order");
    for item in &b.items {
        match *item {
            Item::Key { index, fp, len } => {
                if w.add_key(fp, split_off(&mut bytes, len))? != index {
                    return Err(out_of_order());
                }
            }
            Item::Node {
                index,
                kind,
                flags,
                durability,
                key,
                fp,
                deps,
                value,
            } => {
                let edges = split_off(&mut deps_left, deps);
                let value_bytes = split_off(&mut bytes, value);
                let i = w.node(&NodeOut {
                    kind,
                    flags,
                    durability,
                    key,
                    fp,
                    deps: edges,
                    value: value_bytes,
                })?;
                if i != index {
                    return Err(out_of_order());
                }
            }
        }
    }
    Ok(())
}

/// The first `len` items of `rest`, which keeps the others.
fn split_off<'a, T>(rest: &mut &'a [T], len: u32) -> &'a [T] {
    let (head, tail) = rest.split_at(len as usize);
    *rest = tail;
    head
}

/// What the writer's thread is sent: a batch; the end of the nodes (the writer then
/// writes their sections and says so, and only then does the walk's thread make the table
/// and the reverse edges); the end (the volatile nodes, the roots, and those sections).
enum ToWriter {
    Batch(Batch),
    NodesDone,
    End(Vec<u32>, Vec<u32>, GraphSections),
}

/// Writes the nodes to persist (current ones whose dependencies are persisted too), in
/// dependency order, with their keys and values, then the rest of the file; calls
/// `during` with `generation` once every node is handed over. From
/// `thread_min` nodes ([`WRITER_THREAD_MIN`] by default; the graph's node count decides,
/// the persisted ones are not counted before they are written) the work is split in two:
/// this thread finds the order a piece at a time and walks each piece as it is found,
/// gathering each node's edges, key and value bytes in batches ([`walk`]), and a second
/// thread writes them ([`write_batch`]: the records, their checksums, the file's
/// writes), then the sections of the nodes (keys, fingerprints, offsets), which frees
/// what it kept of them; then this thread makes the table and the reverse edges from the
/// graph ([`graph_sections`]), which the writer writes with the rest while this thread
/// runs `during`. (The graph's sections are made only once the writer freed its own:
/// made beside them, they raised the save's peak.) The writer is given the same nodes in
/// the same order either way, so the bytes are the same.
fn write_nodes<Db: Database, W: Write + Seek + Send>(
    db: &Db,
    order: DependencyOrder,
    w: Writer<W>,
    report: &mut SaveReport,
    during: &mut dyn FnMut(u64),
    generation: u64,
    thread_min: usize,
) -> std::io::Result<(W, u64)> {
    if order.graph_nodes() < thread_min {
        return write_nodes_here(db, order, w, report, during, generation);
    }
    std::thread::scope(|s| {
        let (to_writer, batches) = std::sync::mpsc::sync_channel::<ToWriter>(2);
        let (give_writer, writer_in) = std::sync::mpsc::sync_channel::<Writer<W>>(1);
        let (spent, spent_batches) = std::sync::mpsc::channel::<Batch>();
        let (ended, nodes_ended) = std::sync::mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("query-cache-write".to_string())
            .spawn_scoped(s, move || -> std::io::Result<(W, u64)> {
                let stopped = || std::io::Error::other("the save's walk stopped");
                let mut w = writer_in.recv().map_err(|_| stopped())?;
                for msg in batches {
                    match msg {
                        ToWriter::Batch(mut b) => {
                            write_batch(&mut w, &b)?;
                            b.clear();
                            let _ = spent.send(b);
                        }
                        ToWriter::NodesDone => {
                            w.end_nodes()?;
                            let _ = ended.send(());
                        }
                        ToWriter::End(volatile, roots, graph) => {
                            return w.finish(&volatile, &roots, graph)
                        }
                    }
                }
                Err(stopped())
            });
        let Ok(thread) = thread else {
            // No thread to be had: the writing is done here.
            return write_nodes_here(db, order, w, report, during, generation);
        };
        let stopped = || std::io::Error::other("the save's writer stopped");
        let walked = give_writer
            .send(w)
            .map_err(|_| stopped())
            .and_then(|()| {
                walk(db, order, report, &mut |b| {
                    to_writer.send(ToWriter::Batch(b)).map_err(|_| stopped())?;
                    Ok(spent_batches.try_recv().unwrap_or_else(|_| Batch::new()))
                })
            })
            .and_then(|walked| {
                to_writer.send(ToWriter::NodesDone).map_err(|_| stopped())?;
                nodes_ended.recv().map_err(|_| stopped())?;
                // Every batch was written and given back: freed before the graph's
                // sections, the largest allocations after the walk.
                while spent_batches.try_recv().is_ok() {}
                let graph = graph_sections(db.runtime(), walked.new_index)?;
                to_writer
                    .send(ToWriter::End(walked.volatile, walked.roots, graph))
                    .map_err(|_| stopped())
            });
        drop(to_writer);
        drop(spent_batches);
        if walked.is_ok() {
            during(generation);
        }
        // The writer's own error, if it stopped, says more than the walk's.
        let written = thread
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the save's writer panicked")));
        walked.and(written)
    })
}

/// [`write_nodes`] on this thread alone.
fn write_nodes_here<Db: Database, W: Write + Seek>(
    db: &Db,
    order: DependencyOrder,
    mut w: Writer<W>,
    report: &mut SaveReport,
    during: &mut dyn FnMut(u64),
    generation: u64,
) -> std::io::Result<(W, u64)> {
    let walked = walk(db, order, report, &mut |mut b| {
        write_batch(&mut w, &b)?;
        b.clear();
        Ok(b)
    })?;
    w.end_nodes()?;
    let graph = graph_sections(db.runtime(), walked.new_index)?;
    during(generation);
    w.finish(&walked.volatile, &walked.roots, graph)
}

/// The table and the reverse edges of the nodes a [`walk`] persisted, made from the graph
/// (the writer keeps no copy of the edges): `new_index` gives each graph node's index in
/// the file (`u32::MAX`: not persisted). The nodes' kinds and key fingerprints are read
/// again for the table, and their edges, in the file's order, mapped to the file's indices
/// as the walk mapped them, twice: to count the byte lengths of the reverse lists
/// ([`ReverseLengths`]), and to write them. Made once the walk's and the writer's tables
/// are freed, these take less than those did.
fn graph_sections(rt: &Runtime, new_index: Vec<u32>) -> std::io::Result<GraphSections> {
    let g = rt.graph.borrow();
    let n = new_index.iter().filter(|&&at| at != u32::MAX).count();
    // Each persisted node by its index in the file.
    let mut ids = vec![u32::MAX; n];
    for (id, &at) in new_index.iter().enumerate() {
        if at != u32::MAX {
            *ids.get_mut(at as usize)
                .ok_or_else(|| std::io::Error::other("a node index past the walk's"))? = id as u32;
        }
    }
    if ids.contains(&u32::MAX) {
        return Err(std::io::Error::other("a node index the walk did not give"));
    }
    // In the graph's order, which reads its nodes one after the other.
    let table = table_section(
        n,
        new_index
            .iter()
            .enumerate()
            .filter(|&(_, &at)| at != u32::MAX)
            .map(|(id, &at)| {
                let id = NodeId(id as u32);
                (at, table_hash(g.node(id).kind, g.key_fp(id)))
            }),
    )?;
    let new_index = &new_index[..];
    let mut lengths = ReverseLengths::new(n);
    let mut deps = Vec::new();
    for &id in &ids {
        deps.clear();
        deps.extend(g.deps(NodeId(id)).iter().map(|d| new_index[d.index()]));
        lengths.push(&deps)?;
    }
    let edges = ids.iter().enumerate().flat_map(|(at, &id)| {
        g.deps(NodeId(id))
            .iter()
            .map(move |d| (at as u32, new_index[d.index()]))
    });
    let reverse = reverse_section(lengths, edges)?;
    Ok(GraphSections { table, reverse })
}

/// The nodes [`walk`] takes from the [`DependencyOrder`] at a time: few enough that the
/// writer's first batch goes out soon after the search starts (the search is a fifth of
/// the save's work on this thread), enough that the graph is borrowed once per many nodes.
const ORDER_PIECE: usize = 256;

/// What a [`walk`] gives: the new file's volatile nodes and roots, and each graph node's
/// index in the file (`u32::MAX`: not persisted).
struct Walked {
    volatile: Vec<u32>,
    roots: Vec<u32>,
    new_index: Vec<u32>,
}

/// Walks the nodes of `order`, a piece at a time as the search finds them, gathering in
/// batches what the writer is given of each node that is persisted (see
/// [`write_nodes`]), each batch handed to `emit` (which gives back an empty one) once
/// full, and the last one at the end. Key and node indices are given here, in the order
/// the writer will give them.
fn walk<Db: Database>(
    db: &Db,
    mut order: DependencyOrder,
    report: &mut SaveReport,
    emit: &mut dyn FnMut(Batch) -> std::io::Result<Batch>,
) -> std::io::Result<Walked> {
    let rt = db.runtime();
    let mut volatile = Vec::new();
    let mut roots = Vec::new();
    // Each persisted node's index in the new file, by node id (`u32::MAX`: not persisted,
    // or not walked yet: a node's dependencies come before it in the order).
    let mut new_index = vec![u32::MAX; rt.graph.borrow().nodes.len()];
    // Each key written, by fingerprint: its index, and the first node that has it (whose
    // key fingerprint the set compares). The only such table: the writer keeps none, and
    // the file holds each key once. (At a million lines, a map of fingerprints took 17 MiB
    // of the save's peak for 235k keys; this takes under 4.)
    let mut keys = FpSet::new(order.graph_nodes() / 4);
    // (Room for a little more than a graph usually has, a key for about four nodes: a
    // vector that grows holds its old copy until the allocator gives it back.)
    let mut key_nodes: Vec<NodeId> = Vec::with_capacity(order.graph_nodes() / 3);
    let mut deps_buf = Vec::new();
    let mut written = 0u32;
    let mut b = Batch::new();
    let prev = rt.prev.as_ref();
    let too_big = |what: &str| std::io::Error::other(format!("{what} too large for the cache"));
    let mut piece = Vec::with_capacity(ORDER_PIECE);
    loop {
        order.next_piece(rt, &mut piece, ORDER_PIECE);
        if piece.is_empty() {
            break;
        }
        for &id in &piece {
            let n = {
                let g = rt.graph.borrow();
                deps_buf.clear();
                deps_buf.extend(g.deps(id).iter().map(|d| new_index[d.index()]));
                g.node(id).clone()
            };
            if deps_buf.contains(&u32::MAX) {
                continue;
            }
            let key_fp = rt.graph.borrow().key_fp(id);
            let found = {
                let g = rt.graph.borrow();
                keys.find(key_fp, |k| g.key_fp(key_nodes[k as usize]))
            };
            let key = match found {
                Ok(k) => k,
                Err(slot) => {
                    let start = b.bytes.len();
                    match key_bytes(db, prev, id, &n, &mut b.bytes) {
                        Some(Found::Copied(k)) => b.bytes.extend_from_slice(k),
                        Some(Found::Encoded) => {}
                        None => continue,
                    }
                    let len = u32::try_from(b.bytes.len() - start).map_err(|_| too_big("a key"))?;
                    let index = keys.len();
                    if index == u32::MAX - 1 {
                        return Err(too_big("the keys"));
                    }
                    key_nodes.push(id);
                    let g = rt.graph.borrow();
                    keys.push(slot, |k| g.key_fp(key_nodes[k as usize]));
                    drop(g);
                    b.items.push(Item::Key {
                        index,
                        fp: key_fp,
                        len,
                    });
                    index
                }
            };
            let fp = result_fp(db, id, &n);
            let mut dflags = graph_flags(&n);
            dflags.set(disk_flags::HAS_FP, fp.is_some());
            let start = b.bytes.len();
            if let Some((found, promoted)) = value_bytes(db, prev, id, &n, &mut b.bytes) {
                if promoted {
                    report.promoted += 1;
                    rt.stats.borrow_mut().kinds[n.kind as usize].promoted += 1;
                }
                dflags.insert(disk_flags::HAS_VALUE);
                report.values += 1;
                if let Found::Copied(v) = found {
                    b.bytes.extend_from_slice(v);
                }
            }
            // (`value_bytes` keeps a value under 4 GiB.)
            let value = (b.bytes.len() - start) as u32;
            let at = written;
            b.items.push(Item::Node {
                index: at,
                kind: n.kind,
                flags: dflags,
                durability: n.durability as u8,
                key,
                fp: fp.unwrap_or(Fingerprint::ZERO),
                deps: deps_buf.len() as u32,
                value,
            });
            b.deps.extend_from_slice(&deps_buf);
            written = written
                .checked_add(1)
                .ok_or_else(|| too_big("the node count"))?;
            new_index[id.index()] = at;
            if Db::KINDS[n.kind as usize]
                .flags
                .intersects(Flags::INPUT.with(Flags::EVAL_ALWAYS))
            {
                volatile.push(at);
            }
            if n.has(flags::ROOT) {
                roots.push(at);
            }
            if b.full() {
                b = emit(b)?;
            }
        }
    }
    if !b.items.is_empty() {
        emit(b)?;
    }
    report.nodes = written as usize;
    Ok(Walked {
        volatile,
        roots,
        new_index,
    })
}

/// The current roots and the current nodes they reach, in post-order (dependencies
/// first), by an iterative depth-first search; nodes reachable only through non-current
/// ones are left out by `collect`. The order is given a piece at a time
/// ([`DependencyOrder::next_piece`]), so that a save walks and writes the first nodes
/// while the search goes on.
struct DependencyOrder {
    /// Each node's state: 0 not visited, 1 on the stack, 2 done.
    state: Vec<u8>,
    /// The nodes given before any root's search ([`DependencyOrder::volatile_first`]), and
    /// how many of them were given.
    early: Vec<NodeId>,
    next_early: usize,
    /// The search's path, each node with the index of its next edge.
    stack: Vec<(NodeId, u32)>,
    /// The next node to look at as a root once the stack is empty.
    next_root: usize,
}

impl DependencyOrder {
    /// A search of the graph of `rt`, the loaded roots filled in first (the others are
    /// reached through edges).
    fn new(rt: &Runtime) -> DependencyOrder {
        if let Some(p) = rt.prev.as_ref() {
            match p.roots() {
                Some(roots) => {
                    for r in roots {
                        ensure(rt, NodeId(r));
                    }
                }
                // Without them a loaded memo that this session did not reach is not
                // written: it is recomputed when next read, as after any lost record.
                None => rt.warn(
                    "query cache: the roots section is damaged; keeping only what this \
                     session's reads reach"
                        .to_string(),
                ),
            }
        }
        DependencyOrder {
            state: vec![0u8; rt.graph.borrow().nodes.len()],
            early: Self::volatile_first(rt),
            next_early: 0,
            stack: Vec::new(),
            next_root: 0,
        }
    }

    /// The `eval_always` nodes that read nothing (the file and directory stamps), to be
    /// written first, back to back. Every session's start reads each of them (their keys
    /// and fingerprints) before anything else: in the order of the search they would lie
    /// all over the file, each next to the first node that read it, and reading them
    /// would touch a page of the mapped file for each (at a million lines, 1,572 stamps
    /// touched some 730 pages, most of a no-change rebuild's page faults). Reading
    /// nothing, a stamp can come before everything without breaking the order.
    ///
    /// Only a stamp that something read is written: one of this session, or a loaded
    /// one that a node of the loaded cache reads. A stamp whose readers are all gone (a
    /// file no longer in the crate) is left to the search, which drops it unless a root
    /// still reaches it; one whose readers are dropped by this save is written once more
    /// and dropped by the next new file.
    fn volatile_first(rt: &Runtime) -> Vec<NodeId> {
        let g = rt.graph.borrow();
        let loaded = rt.session.borrow().loaded;
        let prev = rt.prev.as_ref();
        let mut early = Vec::new();
        for (i, n) in g.nodes.iter().enumerate() {
            if n.kind == UNKNOWN_KIND
                || !n.has(flags::PRESENT)
                || !rt.kind_flags[n.kind as usize].contains(Flags::EVAL_ALWAYS)
            {
                continue;
            }
            let id = NodeId(i as u32);
            if !g.deps(id).is_empty() || !is_current(rt, n) {
                continue;
            }
            let read = match prev {
                Some(p) if id.0 < loaded => {
                    p.dependents(id.0).is_some_and(|mut d| d.next().is_some())
                }
                _ => true,
            };
            if read {
                early.push(id);
            }
        }
        early
    }

    /// The graph's node count: at least the number of nodes in the order.
    fn graph_nodes(&self) -> usize {
        self.state.len()
    }

    /// What a writer of the order can expect: at most the graph's nodes.
    fn expect(&self) -> Expected {
        Expected {
            nodes: self.graph_nodes(),
        }
    }

    /// The next nodes of the order, at most `max` of them, into `out` (cleared first);
    /// none once the order is complete.
    fn next_piece(&mut self, rt: &Runtime, out: &mut Vec<NodeId>, max: usize) {
        out.clear();
        let n = self.state.len();
        let state = &mut self.state;
        // One borrow of the graph for the piece, let go only to fill in a loaded node.
        let mut g = rt.graph.borrow();
        while let Some(&id) = self.early.get(self.next_early) {
            self.next_early += 1;
            if state[id.index()] == 0 {
                state[id.index()] = 2;
                out.push(id);
                if out.len() >= max {
                    return;
                }
            }
        }
        loop {
            while let Some(&mut (id, ref mut next)) = self.stack.last_mut() {
                match g.dep(id, *next) {
                    Some(dep) => {
                        *next += 1;
                        if state[dep.index()] == 0 {
                            if !g.node(dep).has(flags::PRESENT) {
                                drop(g);
                                ensure(rt, dep);
                                g = rt.graph.borrow();
                            }
                            if is_current(rt, g.node(dep)) {
                                state[dep.index()] = 1;
                                self.stack.push((dep, 0));
                            }
                        }
                    }
                    None => {
                        state[id.index()] = 2;
                        out.push(id);
                        self.stack.pop();
                        if out.len() >= max {
                            return;
                        }
                    }
                }
            }
            // The next root not reached yet.
            loop {
                if self.next_root >= n {
                    return;
                }
                let root = NodeId(self.next_root as u32);
                self.next_root += 1;
                let rn = g.node(root);
                if state[root.index()] == 0 && is_root(rn) && is_current(rt, rn) {
                    state[root.index()] = 1;
                    self.stack.push((root, 0));
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Filled;

    #[test]
    fn filled_bits_are_set_once_per_node_and_none_past_the_loaded_nodes() {
        let f = Filled::new(130);
        assert_eq!(f.bits.len(), 3);
        for i in 0..130 {
            assert_eq!(f.get(i), Some(false), "node {i}");
        }
        for i in [0, 63, 64, 127, 129] {
            f.set(i);
        }
        let set: Vec<u32> = (0..130).filter(|&i| f.get(i) == Some(true)).collect();
        assert_eq!(set, [0, 63, 64, 127, 129]);
        // A node of this session (past the loaded ones, even within the last word) has no
        // bit: the node itself says.
        for i in [130, 191, 192] {
            assert_eq!(f.get(i), None, "node {i}");
            f.set(i);
            assert_eq!(f.get(i), None, "node {i}");
        }
        assert_eq!(Filled::new(0).get(0), None);
    }
}
