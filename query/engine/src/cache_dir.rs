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
use crate::durability::Durability;
use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::on_disk::{
    check_header, decode_file, disk_flags, encode_file, DiskFlags, DiskGraph, DiskNode, LoadError,
    HEADER_LEN,
};
use crate::query::{Database, Flags};
use crate::revision::Revision;
use crate::runtime::{CacheOptions, OnLocked, Runtime};
use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
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
    /// The generation of the cache file loaded (`None` when none was).
    pub(crate) loaded_generation: Option<u64>,
}

impl CacheDir {
    pub(crate) fn owns_lock(&self) -> bool {
        self.lock.is_some()
    }
}

/// A new cache generation: a hash of the time, the process and a counter, never 0 (what
/// files written before generations existed hold) nor `previous`.
fn new_generation(previous: Option<u64>) -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(&nanos.to_le_bytes());
    seed[16..20].copy_from_slice(&std::process::id().to_le_bytes());
    seed[24..].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let g = xxhash_rust::xxh3::xxh3_64(&seed);
    if g == 0 || Some(g) == previous {
        g.wrapping_add(1).max(1)
    } else {
        g
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
        loaded_generation: None,
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

enum ReadError {
    Io(std::io::Error),
    Invalid(LoadError),
}

/// Reads the cache file, checking its header first: a file of another build or version,
/// or whose length is not the one its header records, is rejected without being read
/// whole (it may be huge).
fn read_cache_file(path: &Path, build_id: &str, hasher: HasherKind) -> Result<Vec<u8>, ReadError> {
    let mut f = File::open(path).map_err(ReadError::Io)?;
    let len = f.metadata().map_err(ReadError::Io)?.len();
    let mut header = Vec::with_capacity(HEADER_LEN);
    (&mut f)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut header)
        .map_err(ReadError::Io)?;
    check_header(&header, len, build_id, hasher).map_err(ReadError::Invalid)?;
    let Ok(cap) = usize::try_from(len) else {
        return Err(ReadError::Invalid(LoadError::TooShort));
    };
    let mut bytes = Vec::with_capacity(cap);
    bytes.extend_from_slice(&header);
    f.read_to_end(&mut bytes).map_err(ReadError::Io)?;
    Ok(bytes)
}

fn load<Db: Database>(rt: &mut Runtime, path: &Path, build_id: &str) {
    let start = Instant::now();
    let bytes = match read_cache_file(path, build_id, rt.options.hasher) {
        Ok(b) => b,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            rt.warn(format!(
                "query cache: no cache at `{}`; building from scratch",
                path.display()
            ));
            return;
        }
        Err(ReadError::Io(e)) => {
            rt.warn(format!(
                "query cache: cannot read `{}`: {e}; building from scratch",
                path.display()
            ));
            return;
        }
        Err(ReadError::Invalid(e)) => {
            rt.warn(format!(
                "query cache: `{}` ignored: {e}; building from scratch",
                path.display()
            ));
            return;
        }
    };
    let len = bytes.len() as u64;
    let generation = crate::on_disk::generation_of(&bytes);
    let (graph, prev) = match decode_file(bytes, build_id, rt.options.hasher) {
        Ok(x) => x,
        Err(e) => {
            rt.warn(format!(
                "query cache: `{}` ignored: {e}; building from scratch",
                path.display()
            ));
            return;
        }
    };
    let kind_map: Vec<u16> = graph
        .kinds
        .iter()
        .map(|name| {
            Db::KINDS
                .iter()
                .position(|k| k.name == name)
                .map_or(UNKNOWN_KIND, |i| i as u16)
        })
        .collect();
    {
        let g = rt.graph.get_mut();
        g.nodes.reserve(graph.nodes.len());
        g.edges.reserve(graph.edges.len());
        g.prev_index.reserve(graph.nodes.len());
        let mut edge = 0usize;
        for (i, dn) in graph.nodes.iter().enumerate() {
            let kind = kind_map[dn.kind as usize];
            let mut n = Node::new(kind, Fingerprint(dn.key_fp.0, dn.key_fp.1));
            n.flags = flags::MEMO;
            if dn.flags.contains(disk_flags::HAS_FP) {
                n.flags.insert(flags::HAS_FP);
                n.fingerprint = Fingerprint(dn.fp.0, dn.fp.1);
            }
            n.flags
                .set(flags::CYCLIC, dn.flags.contains(disk_flags::CYCLIC));
            n.durability = Durability::from_u8(dn.durability).unwrap_or(Durability::Low);
            n.verified_at = Revision::PREVIOUS_SESSION;
            n.changed_at = Revision::PREVIOUS_SESSION;
            n.deps_start = g.edges.len() as u32;
            n.deps_len = dn.deps_len;
            n.prev = Some(PrevIndex::from_index(i));
            for &d in &graph.edges[edge..edge + dn.deps_len as usize] {
                // Checked by `decode_file`: the file is in dependency order.
                debug_assert!((d as usize) < i, "an edge to a later node");
                g.edges.push(NodeId(d));
            }
            edge += dn.deps_len as usize;
            let id = g.push(n);
            if kind != UNKNOWN_KIND {
                g.prev_index
                    .insert((kind, Fingerprint(dn.key_fp.0, dn.key_fp.1)), id);
            }
        }
    }
    rt.prev = Some(prev);
    if let Some(cache) = rt.cache_dir.as_mut() {
        cache.loaded_generation = Some(generation);
    }
    let stats = rt.stats.get_mut();
    stats.cache_load += start.elapsed();
    stats.cache_bytes_read += len;
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
    let (graph, keys, values) = collect::<Db>(db, &mut report);
    let generation = new_generation(cache.loaded_generation);
    let file = match encode_file(
        &graph,
        &keys,
        &values,
        &cache.build_id,
        rt.options.hasher,
        generation,
    ) {
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
                    .unchanged_since(n.durability, n.verified_at))
}

/// Chooses the nodes to persist (current ones whose dependencies are persisted too), in
/// dependency order, and encodes them with their keys and values.
fn collect<Db: Database>(db: &Db, report: &mut SaveReport) -> (DiskGraph, Vec<u8>, Vec<u8>) {
    let rt = db.runtime();
    let order = dependency_order(rt);
    let mut out = DiskGraph {
        kinds: Db::KINDS.iter().map(|k| k.name.to_string()).collect(),
        ..DiskGraph::default()
    };
    let mut keys = Vec::new();
    let mut values = Vec::new();
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
        new_index[id.index()] = out.nodes.len() as u32;
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
    (out, keys, values)
}

/// The current nodes in post-order (dependencies first), by an iterative depth-first
/// search; nodes reachable only through non-current ones are left out by `collect`.
fn dependency_order(rt: &Runtime) -> Vec<NodeId> {
    let g = rt.graph.borrow();
    let n = g.nodes.len();
    // 0: not visited, 1: on the stack, 2: done.
    let mut state = vec![0u8; n];
    let mut order = Vec::new();
    let mut stack: Vec<(NodeId, u32)> = Vec::new();
    for root in 0..n {
        let root = NodeId(root as u32);
        if state[root.index()] != 0 || !is_current(rt, g.node(root)) {
            continue;
        }
        state[root.index()] = 1;
        stack.push((root, 0));
        while let Some(&mut (id, ref mut next)) = stack.last_mut() {
            match g.dep(id, *next) {
                Some(dep) => {
                    *next += 1;
                    if state[dep.index()] == 0 && is_current(rt, g.node(dep)) {
                        state[dep.index()] = 1;
                        stack.push((dep, 0));
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
