//! The cache directory: the lock that makes concurrent builds safe, loading the previous
//! session's graph, and saving this session's (atomically, with promotion).
//!
//! Files: `query-cache.bin` (see [`crate::on_disk`] for its format), `query-cache.lock`
//! (an advisory lock held from opening until the database is dropped) and, while saving,
//! `query-cache.bin.tmp.<pid>` (renamed over `query-cache.bin` once complete, so a reader
//! sees the old file or the new one, never half of one).
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
    disk_flags, encode_file, Bytes, DiskFlags, DiskGraph, DiskNode, Extra, Store, HEADER_LEN,
};
use crate::query::{Database, Flags};
use crate::revision::Revision;
use crate::runtime::{CacheOptions, OnLocked, Runtime};
use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub(crate) const CACHE_FILE: &str = "query-cache.bin";
const LOCK_FILE: &str = "query-cache.lock";
const TMP_PREFIX: &str = "query-cache.bin.tmp";

/// An open cache directory.
pub(crate) struct CacheDir {
    dir: PathBuf,
    /// The lock file, if this database holds its lock (dropping it releases the lock).
    lock: Option<File>,
    build_id: String,
    fsync: bool,
}

impl CacheDir {
    pub(crate) fn owns_lock(&self) -> bool {
        self.lock.is_some()
    }
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

/// Maps the cache file: a file that is not there, cannot be read or fails the checks
/// made at open (see [`crate::on_disk`]) is a warning and an empty graph.
fn map_cache_file(path: &Path, build_id: &str, hasher: HasherKind) -> Result<Store, String> {
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
    let len = f
        .metadata()
        .map_err(|e| {
            format!(
                "cannot read `{}`: {e}; building from scratch",
                path.display()
            )
        })?
        .len();
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
    Store::open(bytes, build_id, hasher)
        .map_err(|e| format!("`{}` ignored: {e}; building from scratch", path.display()))
}

fn load<Db: Database>(rt: &mut Runtime, path: &Path, build_id: &str) {
    let start = Instant::now();
    let store = match map_cache_file(path, build_id, rt.options.hasher) {
        Ok(s) => s,
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
    let count = store.len();
    let len = store.file_len();
    *rt.graph.get_mut() = crate::dep_graph::Graph {
        nodes: Node::placeholders(count as usize),
        ..Default::default()
    };
    {
        let s = rt.session.get_mut();
        s.loaded = count;
        s.volatile = store.volatile.iter().map(|&i| NodeId(i)).collect();
    }
    rt.prev = Some(Loaded {
        store,
        kind_map,
        disk_kind,
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
    /// Our kind of each of the file's kinds (`UNKNOWN_KIND` for a query that is gone).
    kind_map: Vec<u16>,
    /// The file's kind of each of ours.
    disk_kind: Vec<Option<u16>>,
}

impl Loaded {
    pub(crate) fn key_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        self.store.key_bytes(prev.get())
    }

    pub(crate) fn value_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        self.store.value_bytes(prev.get())
    }

    /// The value's bytes: `None` without one, an error if they are damaged.
    pub(crate) fn value(&self, prev: PrevIndex) -> Option<Result<&[u8], crate::on_disk::Damaged>> {
        self.store.value(prev.get())
    }
}

/// Fills in loaded node `id` from its record if it is still a placeholder. A damaged
/// record is a warning, and the node has no memo (whatever read it re-executes).
pub(crate) fn ensure(rt: &Runtime, id: NodeId) {
    if rt.graph.borrow().node(id).has(flags::PRESENT) {
        return;
    }
    let mut n = Node::new(UNKNOWN_KIND, Fingerprint::ZERO);
    let mut deps: Vec<NodeId> = Vec::new();
    match rt
        .prev
        .as_ref()
        .and_then(|p| Some((p, p.store.record(id.0)?)))
    {
        Some((p, r)) => {
            n.kind = p.kind_map[usize::from(r.kind)];
            n.key_fp = r.key_fp;
            n.durability = Durability::from_u8(r.durability).unwrap_or(Durability::Low);
            n.verified_at = Revision::PREVIOUS_SESSION;
            n.changed_at = Revision::PREVIOUS_SESSION;
            n.prev = Some(PrevIndex::from_index(id.index()));
            if n.kind != UNKNOWN_KIND {
                n.flags.insert(flags::MEMO);
            }
            if r.flags.contains(disk_flags::HAS_FP) {
                n.flags.insert(flags::HAS_FP);
                n.fingerprint = r.fp;
            }
            n.flags
                .set(flags::CYCLIC, r.flags.contains(disk_flags::CYCLIC));
            n.flags.set(flags::ROOT, r.flags.contains(disk_flags::ROOT));
            // Checked by `Store::record`: edges point to earlier nodes.
            deps.extend(r.deps().map(NodeId));
        }
        None => rt.warn(format!(
            "query cache: the record of node {} is damaged; recomputing what used it",
            id.0
        )),
    }
    let mut g = rt.graph.borrow_mut();
    let start = g.edges.len() as u32;
    g.edges.extend_from_slice(&deps);
    n.deps_start = start;
    n.deps_len = deps.len() as u32;
    *g.node_mut(id) = n;
}

/// The loaded node of query kind `kind` with key fingerprint `key_fp` that has no slot
/// yet, filled in; `None` if the cache has none.
pub(crate) fn lookup(rt: &Runtime, kind: u16, key_fp: Fingerprint) -> Option<NodeId> {
    let p = rt.prev.as_ref()?;
    let disk_kind = (*p.disk_kind.get(kind as usize)?)?;
    for c in p.store.candidates(disk_kind, key_fp) {
        let id = NodeId(c);
        ensure(rt, id);
        let g = rt.graph.borrow();
        let n = g.node(id);
        if n.kind == kind && n.key_fp == key_fp && n.slot.is_none() {
            return Some(id);
        }
    }
    None
}

/// Saves the session's graph (see the module documentation).
pub(crate) fn save<Db: Database>(db: &mut Db) -> SaveReport {
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
    let start = Instant::now();
    // What is valid is known once the session has started (a session that read nothing
    // has not): the loaded memos the start finds valid are saved again.
    crate::session::start(db);
    let (graph, keys, values, volatile, roots) = collect::<Db>(db, &mut report);
    let generation = new_generation(rt);
    let extra = Extra {
        keys: &keys,
        values: &values,
        volatile: &volatile,
        roots: &roots,
        generation,
    };
    let file = match encode_file(&graph, &extra, &cache.build_id, rt.options.hasher) {
        Ok(f) => f,
        Err(e) => {
            let w = format!("query cache: cannot encode the cache: {e}; not saved");
            rt.warn(w.clone());
            report.warnings.push(w);
            return report;
        }
    };
    match write_atomically(&cache.dir, &file, cache.fsync) {
        Ok(()) => {
            report.saved = true;
            report.bytes = file.len() as u64;
            report.generation = Some(generation);
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

fn write_atomically(dir: &Path, bytes: &[u8], fsync: bool) -> std::io::Result<()> {
    let tmp = dir.join(format!("{TMP_PREFIX}.{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        if fsync {
            f.sync_all()?;
        }
        drop(f);
        fs::rename(&tmp, dir.join(CACHE_FILE))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Whether a node's memo is valid at the current revision (and so may be persisted).
fn is_current(rt: &Runtime, id: NodeId, n: &Node) -> bool {
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
            || rt.is_clean(id, n.verified_at))
}

/// The roots of what is saved: what the embedder read at the top level (in this session,
/// or in an earlier one and still valid) and the inputs it set. A memo that no root
/// reaches any more (a deleted item's) is dropped.
fn is_root(n: &Node) -> bool {
    n.has(flags::ROOT) || n.has(flags::INPUT_SET)
}

/// Chooses the nodes to persist (current ones whose dependencies are persisted too), in
/// dependency order, and encodes them with their keys and values.
/// A generation number for a new cache file: never 0, different from the loaded file's,
/// and from any other save's in practice (time, process, a counter and the previous
/// generation, hashed).
fn new_generation(rt: &Runtime) -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let prev = rt.prev.as_ref().map_or(0, |p| p.store.header.generation);
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

/// The graph, keys, values, volatile nodes and roots to save.
type Collected = (DiskGraph, Vec<u8>, Vec<u8>, Vec<u32>, Vec<u32>);

fn collect<Db: Database>(db: &Db, report: &mut SaveReport) -> Collected {
    let rt = db.runtime();
    let order = dependency_order(rt);
    let mut out = DiskGraph {
        kinds: Db::KINDS.iter().map(|k| k.name.to_string()).collect(),
        ..DiskGraph::default()
    };
    let mut keys = Vec::new();
    let mut values = Vec::new();
    let mut volatile = Vec::new();
    let mut roots = Vec::new();
    // Each persisted node's index in the new file, by node id (`u32::MAX`: not persisted).
    let mut new_index = vec![u32::MAX; rt.graph.borrow().nodes.len()];
    let mut deps_buf = Vec::new();
    let prev = rt.prev.as_ref();
    for id in order {
        let n = {
            let g = rt.graph.borrow();
            deps_buf.clear();
            deps_buf.extend(g.deps(id).iter().map(|d| new_index[d.index()]));
            g.node(id).clone()
        };
        if deps_buf.contains(&u32::MAX) {
            continue;
        }
        let vt = &Db::KINDS[n.kind as usize];
        // A node of the previous file has the same key bytes (same kind and key
        // fingerprint) and, if it did not change in this session, the same value bytes:
        // they are copied rather than encoded again.
        let key = match prev.zip(n.prev).and_then(|(p, i)| p.key_bytes(i)) {
            Some(k) => Cow::Borrowed(k),
            None => match (vt.encode_key)(db, id) {
                Some(k) => Cow::Owned(k),
                None => continue,
            },
        };
        let fp = match n.fp() {
            Some(fp) => Some(fp),
            None if vt.has_hash => (vt.hash_value)(db, id),
            None => None,
        };
        let mut dflags = DiskFlags::EMPTY;
        dflags.set(disk_flags::HAS_FP, fp.is_some());
        dflags.set(disk_flags::CYCLIC, n.has(flags::CYCLIC));
        dflags.set(disk_flags::ROOT, n.has(flags::ROOT));
        let mut value_len = 0u32;
        if vt.has_codec {
            let unchanged = n.changed_at == Revision::PREVIOUS_SESSION;
            let value = match prev
                .zip(n.prev)
                .and_then(|(p, i)| p.value_bytes(i))
                .filter(|_| unchanged)
            {
                Some(bytes) => {
                    if !(vt.has_value)(db, id) {
                        report.promoted += 1;
                        rt.stats.borrow_mut().kinds[n.kind as usize].promoted += 1;
                    }
                    Some(Cow::Borrowed(bytes))
                }
                None => (vt.encode_value)(db, id).map(Cow::Owned),
            };
            if let Some(v) = value {
                if v.len() < u32::MAX as usize {
                    value_len = v.len() as u32;
                    values.extend_from_slice(&v);
                    dflags.insert(disk_flags::HAS_VALUE);
                    report.values += 1;
                }
            }
        }
        let fp = fp.unwrap_or(Fingerprint::ZERO);
        // Invariant: the file is in dependency order (edges point to earlier nodes), which
        // `decode_file` checks when it is loaded.
        debug_assert!(deps_buf.iter().all(|&d| (d as usize) < out.nodes.len()));
        out.edges.extend_from_slice(&deps_buf);
        let at = out.nodes.len() as u32;
        new_index[id.index()] = at;
        if vt.flags.intersects(Flags::INPUT.with(Flags::EVAL_ALWAYS)) {
            volatile.push(at);
        }
        if n.has(flags::ROOT) {
            roots.push(at);
        }
        out.nodes.push(DiskNode {
            kind: n.kind,
            flags: dflags,
            durability: n.durability as u8,
            key_fp: (n.key_fp.0, n.key_fp.1),
            fp: (fp.0, fp.1),
            deps_len: deps_buf.len() as u32,
            key_len: key.len() as u32,
            value_len,
        });
        keys.extend_from_slice(&key);
    }
    report.nodes = out.nodes.len();
    (out, keys, values, volatile, roots)
}

/// The current roots and the current nodes they reach, in
/// post-order (dependencies first), by an iterative depth-first search; nodes reachable
/// only through non-current ones are left out by `collect`.
fn dependency_order(rt: &Runtime) -> Vec<NodeId> {
    // The loaded roots are filled in first (the others are reached through edges).
    if let Some(p) = rt.prev.as_ref() {
        for &r in &p.store.roots {
            ensure(rt, NodeId(r));
        }
    }
    let n = rt.graph.borrow().nodes.len();
    // 0: not visited, 1: on the stack, 2: done.
    let mut state = vec![0u8; n];
    let mut order = Vec::new();
    let mut stack: Vec<(NodeId, u32)> = Vec::new();
    for root in 0..n {
        let root = NodeId(root as u32);
        {
            let g = rt.graph.borrow();
            let rn = g.node(root);
            if state[root.index()] != 0 || !is_root(rn) || !is_current(rt, root, rn) {
                continue;
            }
        }
        state[root.index()] = 1;
        stack.push((root, 0));
        while let Some(&mut (id, ref mut next)) = stack.last_mut() {
            let dep = rt.graph.borrow().dep(id, *next);
            match dep {
                Some(dep) => {
                    *next += 1;
                    if state[dep.index()] == 0 {
                        ensure(rt, dep);
                        if is_current(rt, dep, rt.graph.borrow().node(dep)) {
                            state[dep.index()] = 1;
                            stack.push((dep, 0));
                        }
                    }
                }
                None => {
                    state[id.index()] = 2;
                    order.push(id);
                    stack.pop();
                }
            }
        }
    }
    order
}
