//! Damaged, hostile and concurrently used caches, at the engine level (DESIGN.md
//! Invariant 6).
//!
//! Every file the engine writes in a cache directory (`query-cache.bin`, the lock file,
//! the temporary file of a save) is damaged in every way we can think of: truncated at
//! every offset, extended, bit-flipped at every position, replaced by garbage or an empty
//! file, written by another format version, build or hasher, left half-written by a
//! process killed during a save, locked by a process that died. Each must give a warning
//! (when the file cannot be used) and a result equal to a from-scratch computation, never a
//! panic, and the next save must produce a valid cache.
//!
//! A *hostile* file has a valid checksum (anyone can compute xxh3) but lies inside: these
//! are checked for "no panic, bounded memory, valid cache afterwards" (a forger can of
//! course make the engine believe a wrong value; how often a resealed random mutation
//! does so is printed, not asserted). Memory is watched by a counting global allocator:
//! no single allocation may exceed [`MAX_ALLOC`] while a damaged cache is loaded.
//!
//! Concurrency: child processes (this test binary, re-run with `RILL_CHILD=...`) build on
//! one directory at once, each with its own inputs, and check their own results; the
//! parent then checks that the cache is valid. `RILL_FUZZ_CASES` scales the random
//! mutation counts (small by default).

mod common;

use common::{db_in, Db};
use query::{CacheOptions, Database, DatabaseExt, Durability, OnLocked, Options, Verify};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest single allocation allowed while a damaged cache is loaded.
const MAX_ALLOC: usize = 64 << 20;

struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LARGEST.fetch_max(new, Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CACHE: &str = "query-cache.bin";

fn s(x: &str) -> String {
    x.to_string()
}

/// Every how many bytes the exhaustive loops damage one (every byte in a long run).
fn stride() -> usize {
    if std::env::var("RILL_FUZZ_CASES").is_ok() {
        1
    } else {
        3
    }
}

fn fuzz_cases(default: usize) -> usize {
    std::env::var("RILL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The "program": inputs derived from `variant`, so that concurrent builds can differ.
fn set_inputs(db: &mut Db, variant: i64, names: usize) {
    let list: Vec<String> = (0..names).map(|i| format!("n{i}")).collect();
    for (i, n) in list.iter().enumerate() {
        db.set_num(n.clone(), i as i64 * 3 - 7 + variant, Durability::Low);
        db.set_flag(n.clone(), (i as i64 + variant) % 3 == 0, Durability::High);
    }
    db.set_names((), Arc::new(list), Durability::Low);
    for k in ["a", "b"] {
        db.set_num(s(k), variant + 1, Durability::Low);
        db.set_flag(s(k), variant % 2 == 0, Durability::Low);
    }
    // A chain a -> b -> c, and a loop x -> y -> x when variant is odd.
    db.set_next(s("a"), Some(s("b")), Durability::Low);
    db.set_next(s("b"), Some(s("c")), Durability::Low);
    db.set_next(s("c"), None, Durability::Low);
    db.set_next(s("x"), Some(s("y")), Durability::Low);
    let y_next = (variant % 2 != 0).then(|| s("x"));
    db.set_next(s("y"), y_next, Durability::Low);
}

/// Everything the workload computes, as text (to compare with a from-scratch run).
fn workload(db: &Db, names: usize) -> String {
    let mut out = format!("sum={}\n", db.sum(()));
    for i in (0..names).step_by(names.div_ceil(8).max(1)) {
        let n = format!("n{i}");
        out += &format!(
            "{n}: choose={} plus_one={} scaled={} scaled_eq={} after_nohash={} after_parity={}\n",
            db.choose(n.clone()),
            db.plus_one(n.clone()),
            db.scaled_sign(n.clone()),
            db.scaled_sign_eq(n.clone()),
            db.after_nohash(n.clone()),
            db.after_parity(n.clone()),
        );
    }
    out += &format!(
        "chain a={} x={}\n",
        cycle_insensitive(db.chain_user(s("a"))),
        cycle_insensitive(db.chain_user(s("x")))
    );
    out
}

/// A chain's result with a cycle error reduced to the set of its participants: which
/// participant a cycle report starts at depends on the order the engine reached them
/// (from scratch: the one asked for; incrementally: the one red-green forced first).
fn cycle_insensitive(r: Result<i64, String>) -> String {
    match r {
        Ok(v) => format!("Ok({v})"),
        Err(e) => {
            let mut keys: Vec<&str> = e.split('`').skip(1).step_by(2).collect();
            keys.sort_unstable();
            keys.dedup();
            format!("cycle{keys:?}")
        }
    }
}

/// The from-scratch answer (in memory, no cache), memoized.
fn expected(variant: i64, names: usize) -> String {
    static MEMO: std::sync::Mutex<Vec<((i64, usize), String)>> = std::sync::Mutex::new(Vec::new());
    if let Some((_, e)) = MEMO
        .lock()
        .unwrap()
        .iter()
        .find(|(k, _)| *k == (variant, names))
    {
        return e.clone();
    }
    let mut db = Db::new(Options::default());
    set_inputs(&mut db, variant, names);
    let e = workload(&db, names);
    MEMO.lock().unwrap().push(((variant, names), e.clone()));
    e
}

fn db_with(dir: &Path, on_locked: OnLocked) -> Db {
    let mut cache = CacheOptions::new(dir, "test-build-1");
    cache.fsync = false;
    cache.on_locked = on_locked;
    Db::new(Options {
        cache: Some(cache),
        ..Options::default()
    })
}

const NAMES: usize = 6;

/// The tests of this file run one at a time: some spawn child processes, and a child
/// shares the parent's open files (the cache lock among them) between `fork` and `exec`,
/// so a parallel test could find its lock briefly held.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A good cache file of the workload (variant 0).
fn good_cache() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut db = db_in(dir.path());
    set_inputs(&mut db, 0, NAMES);
    workload(&db, NAMES);
    assert!(db.save().saved);
    drop(db);
    std::fs::read(dir.path().join(CACHE)).unwrap()
}

/// What happened when a build used a damaged cache.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// A warning, and the right result.
    Warned,
    /// No warning (the damage was invisible or harmless), the right result.
    Silent,
    /// The right result was not computed (only possible with a hostile, resealed file).
    Wrong,
}

/// Opens a build on a directory whose cache file is `bytes`, runs the workload, saves,
/// (Builds wait for the lock: other tests of this process spawn children, and a child
/// briefly shares the parent's open lock file between `fork` and `exec`.)
/// and checks that the next build finds a valid cache. No single allocation may exceed
/// `MAX_ALLOC` while the damaged cache is loaded and used.
fn build_on(bytes: &[u8], variant: i64, what: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CACHE), bytes).unwrap();
    LARGEST.store(0, Ordering::Relaxed);
    let mut db = db_with(dir.path(), OnLocked::Wait);
    set_inputs(&mut db, variant, NAMES);
    let got = workload(&db, NAMES);
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(
        largest <= MAX_ALLOC,
        "{what}: an allocation of {largest} bytes"
    );
    let warned = !db.runtime().warnings().is_empty();
    let report = db.save();
    assert!(report.saved, "{what}: {report:?}");
    drop(db);
    // The next build finds a valid cache and computes the same from it.
    let mut db = db_with(dir.path(), OnLocked::Wait);
    assert!(
        db.runtime().warnings().is_empty(),
        "{what}: after a save: {:?}",
        db.runtime().warnings()
    );
    set_inputs(&mut db, variant, NAMES);
    let again = workload(&db, NAMES);
    assert_eq!(got, again, "{what}: the saved cache changed the result");
    if got != expected(variant, NAMES) {
        Outcome::Wrong
    } else if warned {
        Outcome::Warned
    } else {
        Outcome::Silent
    }
}

/// Damage that the checksum or the header catches: a warning and the right result.
fn assert_detected(bytes: &[u8], what: &str) {
    assert_eq!(build_on(bytes, 0, what), Outcome::Warned, "{what}");
}

/// The layout of a cache file (format 6, see `on_disk.rs`), as a forger reads it.
const INDEX_LEN: usize = 208;
const SECTIONS: usize = 9;

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The sections (offset, length) of a file whose index is intact: kinds, bodies, keys,
/// fps, records, table, reverse, volatile, roots.
fn sections(b: &[u8]) -> [(usize, usize); SECTIONS] {
    let idx = b.len() - INDEX_LEN;
    std::array::from_fn(|i| {
        (
            u64_at(b, idx + 16 * i) as usize,
            u64_at(b, idx + 16 * i + 8) as usize,
        )
    })
}

fn xxh64(b: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(b)
}

/// Reads a LEB128 varint of at most 32 bits.
fn leb(b: &[u8], at: &mut usize) -> Option<u32> {
    let mut x = 0u64;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        x |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return u32::try_from(x).ok();
        }
    }
    None
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().unwrap(),
    ))
}

/// Entry `i` of `n` grouped offsets at `at` (a u32 per block of 16 entries, a u16 per
/// entry from its block's, `0xffff`: in the far list of (entry, offset) pairs after them).
fn grouped_offset(b: &[u8], at: usize, n: usize, i: usize) -> Option<usize> {
    let blocks = n.div_ceil(16);
    let base = u32_at(b, at + 4 * (i / 16))? as usize;
    let rel = at + 4 * blocks + 2 * i;
    let d = u16::from_le_bytes(b.get(rel..rel + 2)?.try_into().unwrap());
    if d != u16::MAX {
        return Some(base + usize::from(d));
    }
    let far = at + 4 * blocks + 2 * n;
    (0..)
        .map(|k| far + 8 * k)
        .take_while(|&p| p + 8 <= b.len())
        .find(|&p| u32_at(b, p) == Some(i as u32))
        .and_then(|p| u32_at(b, p + 4))
        .map(|o| o as usize)
}

/// Key `k`'s entry (fingerprint, length, bytes) in the keys section.
fn key_entry(b: &[u8], k: usize) -> Option<std::ops::Range<usize>> {
    let keys = sections(b)[2];
    let count = u32_at(b, keys.0)? as usize;
    let offsets_len = u32_at(b, keys.0 + 4)? as usize;
    if k >= count {
        return None;
    }
    let entries = keys.0 + 8 + offsets_len;
    let start = entries + grouped_offset(b, keys.0 + 8, count, k)?;
    let mut at = start + 16;
    let len = leb(b, &mut at)? as usize;
    let end = at.checked_add(len)?;
    (end <= keys.0 + keys.1).then_some(start..end)
}

/// Where a record's parts are (see [`record_at`]).
struct RecordAt {
    start: usize,
    value: std::ops::Range<usize>,
    end: usize,
    key: std::ops::Range<usize>,
    /// The result fingerprint's entry (empty without one).
    fp: std::ops::Range<usize>,
}

/// Node `i`'s record: where it starts, where its value is, where it ends, its key's entry
/// and its fingerprint's (`None` if it cannot be parsed).
fn record_at(b: &[u8], i: usize) -> Option<RecordAt> {
    let secs = sections(b);
    let (bodies, fps, records) = (secs[1], secs[3], secs[4]);
    let n = node_count(b);
    if i >= n || records.0 + records.1 > b.len() {
        return None;
    }
    let start = bodies.0 + grouped_offset(&b[..records.0 + records.1], records.0, n, i)?;
    let mut at = start + 4;
    leb(b, &mut at)?;
    let flags = *b.get(at)?;
    at += 1;
    let key = key_entry(b, leb(b, &mut at)? as usize)?;
    let mut fp = 0..0;
    if flags & 1 != 0 {
        let k = leb(b, &mut at)? as usize;
        let s = fps.0.checked_add(k.checked_mul(16)?)?;
        fp = s..s.checked_add(16)?;
        if fp.end > fps.0 + fps.1 {
            return None;
        }
    }
    for _ in 0..leb(b, &mut at)? {
        leb(b, &mut at)?;
    }
    let mut value = at..at;
    if flags & 4 != 0 {
        let len = leb(b, &mut at)? as usize;
        value = at..at.checked_add(len)?;
        at = value.end;
    }
    (at <= bodies.0 + bodies.1).then_some(RecordAt {
        start,
        value,
        end: at,
        key,
        fp,
    })
}

/// The number of nodes in the index.
fn node_count(b: &[u8]) -> usize {
    u64_at(b, b.len() - INDEX_LEN + 16 * SECTIONS) as usize
}

/// Recomputes every checksum of the file (records, sections, index) and its length, as
/// a forger would; a file too damaged to be parsed is returned as it is.
fn reseal(mut b: Vec<u8>) -> Vec<u8> {
    if b.len() < 64 + INDEX_LEN || &b[b.len() - 8..] != b"RILLIDX\x06" {
        return b;
    }
    let len = b.len() as u64;
    b[32..40].copy_from_slice(&len.to_le_bytes());
    let secs = sections(&b);
    let in_bounds = secs
        .iter()
        .all(|&(o, l)| o.checked_add(l).is_some_and(|e| e <= b.len()));
    if in_bounds {
        for i in 0..node_count(&b).min(secs[4].1 / 2) {
            if let Some(r) = record_at(&b, i) {
                use xxhash_rust::xxh3::xxh3_64_with_seed as seeded;
                let sum = seeded(&b[r.key], seeded(&b[r.start + 4..r.end], i as u64));
                let sum = seeded(&b[r.fp], sum) as u32;
                b[r.start..r.start + 4].copy_from_slice(&sum.to_le_bytes());
            }
        }
        let idx = b.len() - INDEX_LEN;
        // The checksums of the kinds, reverse, volatile and roots sections.
        for (field, sec) in [(2usize, 0usize), (3, 6), (4, 7), (5, 8)] {
            let (o, l) = secs[sec];
            let sum = xxh64(&b[o..o + l]);
            let at = idx + 16 * SECTIONS + 8 * field;
            b[at..at + 8].copy_from_slice(&sum.to_le_bytes());
        }
    }
    let idx = b.len() - INDEX_LEN;
    let sum = xxh64(&b[idx..]) ^ u64_at(&b, 56);
    b[40..48].copy_from_slice(&sum.to_le_bytes());
    b
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn the_good_cache_is_used_without_warnings() {
    let _serial = serial();
    let good = good_cache();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CACHE), &good).unwrap();
    let mut db = db_in(dir.path());
    assert!(db.runtime().warnings().is_empty());
    set_inputs(&mut db, 0, NAMES);
    assert_eq!(workload(&db, NAMES), expected(0, NAMES));
    assert!(db.stats().totals.green > 0);
    assert_eq!(build_on(&good, 0, "good"), Outcome::Silent);
    // Another variant: the cache is reused where valid, the result is right.
    assert_eq!(build_on(&good, 3, "good, other inputs"), Outcome::Silent);
}

#[test]
fn truncation_at_every_offset_is_detected() {
    let _serial = serial();
    let good = good_cache();
    for len in (0..good.len()).step_by(stride()) {
        assert_detected(&good[..len], &format!("truncated to {len}"));
    }
}

#[test]
fn extension_is_detected() {
    let _serial = serial();
    let good = good_cache();
    for extra in [&b"\0"[..], b"garbage", &[0xffu8; 4096]] {
        let mut b = good.clone();
        b.extend_from_slice(extra);
        assert_detected(&b, &format!("extended by {} bytes", extra.len()));
    }
}

/// A flip in what is checked at open (the header, the index, the kinds and volatile
/// sections) is a warning; a flip anywhere else (the roots section included, which only
/// a new file's writer reads) is a warning when the build uses the damaged record, value
/// or section, and otherwise harmless — never a wrong result.
#[test]
fn every_bit_flip_is_detected_or_harmless() {
    let _serial = serial();
    let good = good_cache();
    let secs = sections(&good);
    let checked_at_open = |i: usize| {
        i < 64
            || i >= good.len() - INDEX_LEN
            || [0usize, 7]
                .iter()
                .any(|&s| (secs[s].0..secs[s].0 + secs[s].1).contains(&i))
    };
    let (mut warned, mut silent) = (0, 0);
    for i in (0..good.len()).step_by(stride()) {
        let bit = (i * 3) % 8;
        let mut b = good.clone();
        b[i] ^= 1 << bit;
        let what = format!("bit {bit} of byte {i} flipped");
        let outcome = build_on(&b, 0, &what);
        if checked_at_open(i) {
            assert_eq!(outcome, Outcome::Warned, "{what}");
        }
        match outcome {
            Outcome::Warned => warned += 1,
            Outcome::Silent => silent += 1,
            Outcome::Wrong => panic!("{what}: a wrong result"),
        }
    }
    println!("bit flips: {warned} warned, {silent} unused and harmless");
    // A build that uses every record and value: a flip in a record (its value included)
    // or a key it uses is always a warning.
    let (bodies, keys) = (secs[1], secs[2]);
    for i in (bodies.0..bodies.0 + bodies.1)
        .chain(keys.0..keys.0 + keys.1)
        .step_by(7 * stride())
    {
        let mut b = good.clone();
        b[i] ^= 1;
        let what = format!("byte {i} of a record or value, other inputs");
        assert_ne!(build_on(&b, 3, &what), Outcome::Wrong, "{what}");
    }
}

#[test]
fn garbage_and_empty_files_are_detected() {
    let _serial = serial();
    let good = good_cache();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    assert_detected(b"", "empty");
    assert_detected(&[0u8; 4096], "zeros");
    for n in 0..fuzz_cases(32) {
        let len = rng.below(2 * good.len()) + 1;
        let garbage: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert_detected(&garbage, &format!("garbage {n}"));
        // Garbage behind a correct header prefix (magic, version, hasher, build id).
        let mut g = garbage.clone();
        let k = 32.min(g.len());
        g[..k].copy_from_slice(&good[..k]);
        assert_detected(&g, &format!("garbage {n} with a good header prefix"));
    }
    // The good file with its body replaced by zeros or garbage.
    let mut z = good.clone();
    z[64..].iter_mut().for_each(|b| *b = 0);
    assert_detected(&z, "zeroed body");
}

#[test]
fn another_version_build_or_hasher_is_detected() {
    let _serial = serial();
    let good = good_cache();
    for v in [0u32, query::FORMAT_VERSION + 1, u32::MAX] {
        let mut b = good.clone();
        b[8..12].copy_from_slice(&v.to_le_bytes());
        assert_detected(&b, &format!("version {v}"));
        // Even resealed (the checksum does not cover the header).
        assert_detected(&reseal(b), &format!("version {v}, resealed"));
    }
    let mut b = good.clone();
    b[12] ^= 1;
    assert_detected(&b, "hasher tag");
    let mut b = good.clone();
    b[16] ^= 1;
    assert_detected(&b, "build id");
    // Written for real by another build: a warning naming it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CACHE), &good).unwrap();
    let mut cache = CacheOptions::new(dir.path(), "test-build-2");
    cache.fsync = false;
    let db = Db::new(Options {
        cache: Some(cache),
        ..Options::default()
    });
    assert!(
        db.runtime().warnings()[0].contains("another compiler build"),
        "{:?}",
        db.runtime().warnings()
    );
}

/// Mutations with a recomputed checksum: no panic, bounded memory, a valid cache
/// afterwards; how many gave a warning or a wrong result is printed.
#[test]
fn hostile_resealed_mutations_never_panic() {
    let _serial = serial();
    let good = good_cache();
    let mut counts = [0usize; 3];
    let mut record = |o: Outcome| {
        counts[match o {
            Outcome::Warned => 0,
            Outcome::Silent => 1,
            Outcome::Wrong => 2,
        }] += 1
    };
    // Every byte of the body, three bit positions.
    for i in (64..good.len()).step_by(stride()) {
        let bit = (i * 5) % 8;
        let mut b = good.clone();
        b[i] ^= 1 << bit;
        record(build_on(&reseal(b), 0, &format!("resealed flip {i}.{bit}")));
    }
    // Random byte overwrites, insertions and deletions.
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for n in 0..fuzz_cases(100) {
        let mut b = good.clone();
        for _ in 0..1 + rng.below(4) {
            let at = 64 + rng.below(b.len() - 64);
            match rng.below(3) {
                0 => b[at] = rng.next() as u8,
                1 => b.insert(at, rng.next() as u8),
                _ => {
                    b.remove(at);
                }
            }
        }
        record(build_on(
            &reseal(b),
            (n % 4) as i64,
            &format!("resealed mutation {n}"),
        ));
    }
    println!(
        "resealed mutations: {} warned, {} silent and right, {} wrong",
        counts[0], counts[1], counts[2]
    );
}

/// bincode's varint of a length.
fn varint(x: u64) -> Vec<u8> {
    if x < 251 {
        vec![x as u8]
    } else if x <= u16::MAX as u64 {
        let mut v = vec![251];
        v.extend_from_slice(&(x as u16).to_le_bytes());
        v
    } else if x <= u32::MAX as u64 {
        let mut v = vec![252];
        v.extend_from_slice(&(x as u32).to_le_bytes());
        v
    } else {
        let mut v = vec![253];
        v.extend_from_slice(&x.to_le_bytes());
        v
    }
}

#[test]
fn hostile_length_prefixes_do_not_allocate() {
    let _serial = serial();
    let good = good_cache();
    let secs = sections(&good);
    let idx = good.len() - INDEX_LEN;
    let values: Vec<_> = (0..node_count(&good))
        .filter_map(|i| Some(record_at(&good, i)?.value))
        .filter(|v| !v.is_empty())
        .collect();
    assert!(!values.is_empty());
    let huge = [
        1u64 << 20,
        (1 << 30) - 1,
        1 << 30,
        (1 << 36) - 1,
        u32::MAX as u64,
        u64::MAX >> 1,
        u64::MAX,
    ];
    for &n in &huge {
        // Every value's bytes replaced by a huge length prefix, resealed: no panic and no
        // large allocation (a forged value may of course decode to a wrong one).
        let mut b = good.clone();
        let prefix = varint(n);
        for v in &values {
            for (k, x) in b[v.clone()].iter_mut().enumerate() {
                *x = prefix.get(k % 9).copied().unwrap_or(0xff);
            }
        }
        build_on(&reseal(b), 0, &format!("values {n}"));
        // A huge node count, or a huge section length, in the index.
        let mut b = good.clone();
        b[idx + 16 * SECTIONS..idx + 16 * SECTIONS + 8].copy_from_slice(&n.to_le_bytes());
        assert_detected(&reseal(b), &format!("node count {n}"));
        let mut b = good.clone();
        b[idx + 8..idx + 16].copy_from_slice(&n.to_le_bytes());
        assert_detected(&reseal(b), &format!("kinds length {n}"));
        // A kind name of a huge length.
        let mut b = good.clone();
        let k = secs[0].0;
        b[k + 4..k + 8].copy_from_slice(&(n as u32).to_le_bytes());
        assert_detected(&reseal(b), &format!("kind name of length {n}"));
    }
    // Direct decoding of hostile values: an error, never a large allocation.
    for &n in &huge {
        let mut bytes = varint(n);
        bytes.extend_from_slice(b"abc");
        LARGEST.store(0, Ordering::Relaxed);
        assert!(query::codec_decode::<String>(&bytes).is_err());
        assert!(query::codec_decode::<Vec<u8>>(&bytes).is_err());
        assert!(query::codec_decode::<Vec<u64>>(&bytes).is_err());
        assert!(query::codec_decode::<Vec<String>>(&bytes).is_err());
        assert!(query::codec_decode::<Vec<Vec<u128>>>(&bytes).is_err());
        let largest = LARGEST.load(Ordering::Relaxed);
        assert!(largest <= 1 << 20, "length {n}: an allocation of {largest}");
    }
    // Large valid values still decode.
    let big: Vec<String> = (0..100_000).map(|i| format!("value {i}")).collect();
    let bytes = query::codec_encode(&big).unwrap();
    assert_eq!(query::codec_decode::<Vec<String>>(&bytes).unwrap(), big);
    let blob = vec![7u8; 50 << 20];
    let bytes = query::codec_encode(&blob).unwrap();
    assert_eq!(query::codec_decode::<Vec<u8>>(&bytes).unwrap(), blob);
    let wide: Vec<u128> = vec![1; 1 << 20];
    let bytes = query::codec_encode(&wide).unwrap();
    assert_eq!(query::codec_decode::<Vec<u128>>(&bytes).unwrap(), wide);
}

#[test]
fn a_damaged_lock_file_or_temporary_file_is_harmless() {
    let _serial = serial();
    let good = good_cache();
    for lock in [&b""[..], b"garbage", &[0xff; 10_000]] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CACHE), &good).unwrap();
        std::fs::write(dir.path().join("query-cache.lock"), lock).unwrap();
        // Temporary files of dead saves: empty, half of a cache, garbage, a whole cache.
        for (i, t) in [&b""[..], &good[..good.len() / 2], b"xyz", &good[..]]
            .iter()
            .enumerate()
        {
            std::fs::write(
                dir.path()
                    .join(format!("query-cache.bin.tmp.{}", 90000 + i)),
                t,
            )
            .unwrap();
        }
        let mut db = db_in(dir.path());
        assert!(db.runtime().persists());
        assert!(
            db.runtime().warnings().is_empty(),
            "{:?}",
            db.runtime().warnings()
        );
        set_inputs(&mut db, 1, NAMES);
        assert_eq!(workload(&db, NAMES), expected(1, NAMES));
        assert!(db.save().saved);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }
    // The cache path is a directory: a warning, a build, and no save crash.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(CACHE)).unwrap();
    let mut db = db_in(dir.path());
    assert!(!db.runtime().warnings().is_empty());
    set_inputs(&mut db, 0, NAMES);
    assert_eq!(workload(&db, NAMES), expected(0, NAMES));
    let report = db.save();
    assert!(!report.saved && !report.warnings.is_empty(), "{report:?}");
}

/// Waits until the metadata of the file at `path` is no longer racy (newer than 100 ms,
/// or 3 s on a file system of whole seconds), so that it can stand for the file's bytes.
fn wait_until_settled(path: &Path) {
    use std::os::unix::fs::MetadataExt;
    for _ in 0..100 {
        let m = std::fs::metadata(path).unwrap();
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        let newest = ns(m.mtime(), m.mtime_nsec()).max(ns(m.ctime(), m.ctime_nsec()));
        let window = if m.mtime_nsec() == 0 && m.ctime_nsec() == 0 {
            3_100_000_000
        } else {
            150_000_000
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i128;
        if now - newest > window {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("`{}` stays racy", path.display());
}

#[test]
fn a_checked_cache_file_is_recorded_and_a_changed_or_damaged_one_is_checked_again() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (cache, record) = (
        dir.path().join(CACHE),
        dir.path().join("query-cache.checked"),
    );
    let build = |variant: i64| -> Vec<String> {
        let mut db = db_with(dir.path(), OnLocked::Wait);
        set_inputs(&mut db, variant, NAMES);
        assert_eq!(workload(&db, NAMES), expected(variant, NAMES));
        let warnings = db.runtime().warnings().to_vec();
        assert!(db.save().saved);
        warnings
    };
    // From scratch (no cache yet: a warning).
    build(0);
    assert!(!record.exists());
    wait_until_settled(&cache);
    // A change: its push reads the reverse edges, which are checked, and the save, which
    // keeps the cache file (an append to the journal), records the file.
    assert_eq!(build(1), Vec::<String>::new());
    assert!(record.exists());
    let recorded = std::fs::read(&record).unwrap();
    // Later changes push along the same edges without a warning, and the record stays.
    assert!(build(0).is_empty());
    assert!(build(1).is_empty());
    assert_eq!(std::fs::read(&record).unwrap(), recorded);

    // A damaged record names no file: the edges are checked again, and recorded again.
    let mut bad = recorded.clone();
    bad[0] ^= 1;
    std::fs::write(&record, &bad).unwrap();
    assert!(build(0).is_empty());
    assert_eq!(std::fs::read(&record).unwrap(), recorded);

    // The reverse edges damaged after the record was written: the file's metadata
    // changed with the write, so the damage is found (a warning, and the right results).
    let mut bytes = std::fs::read(&cache).unwrap();
    let (at, len) = sections(&bytes)[6];
    assert!(len > 0);
    bytes[at + len / 2] ^= 0x20;
    std::fs::write(&cache, &bytes).unwrap();
    let warnings = build(1);
    assert!(
        warnings.iter().any(|w| w.contains("reverse edges")),
        "{warnings:?}"
    );
}

/// What `query-cache.checked` would hold for the file at `path` as it is now.
fn record_of(path: &Path) -> Vec<u8> {
    query::cache_checked_record(&std::fs::metadata(path).unwrap()).unwrap()
}

#[test]
fn verify_mode_checks_a_recorded_cache_file_anyway() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (cache, record) = (
        dir.path().join(CACHE),
        dir.path().join("query-cache.checked"),
    );
    let build = |variant: i64, verify: Verify| -> Vec<String> {
        let mut c = CacheOptions::new(dir.path(), "test-build-1");
        c.fsync = false;
        let mut db = Db::new(Options {
            cache: Some(c),
            verify,
            ..Options::default()
        });
        set_inputs(&mut db, variant, NAMES);
        assert_eq!(workload(&db, NAMES), expected(variant, NAMES));
        let warnings = db.runtime().warnings().to_vec();
        assert!(db.save().saved);
        warnings
    };
    build(0, Verify::Off);
    wait_until_settled(&cache);
    assert!(build(1, Verify::Off).is_empty());
    // The record names the file as it is (so the forged record below is one a save writes).
    assert_eq!(std::fs::read(&record).unwrap(), record_of(&cache));

    // Damage that a record still vouches for (bytes changed behind the metadata's back,
    // which a write through the file system cannot do: here the record is rewritten).
    let mut bytes = std::fs::read(&cache).unwrap();
    let (at, len) = sections(&bytes)[6];
    assert!(len > 0);
    bytes[at + len / 2] ^= 0x20;
    std::fs::write(&cache, &bytes).unwrap();
    wait_until_settled(&cache);
    std::fs::write(&record, record_of(&cache)).unwrap();
    let warnings = build(0, Verify::All);
    assert!(
        warnings.iter().any(|w| w.contains("reverse edges")),
        "{warnings:?}"
    );
}

// ---- Child processes ----

/// Runs this test binary as a child doing `role` on `dir`.
fn spawn_child(role: &str, dir: &Path, variant: i64) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env("RILL_CHILD", role)
        .env("RILL_CHILD_DIR", dir)
        .env("RILL_CHILD_VARIANT", variant.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_ok(child: Child, what: &str) {
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("child ok"),
        "{what}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Big enough that a save takes a while (to be killed in the middle of one).
const BIG_NAMES: usize = 20_000;

/// The entry point of child processes (does nothing in a normal test run).
#[test]
fn child_entry() {
    let Ok(role) = std::env::var("RILL_CHILD") else {
        return;
    };
    let dir = std::path::PathBuf::from(std::env::var("RILL_CHILD_DIR").unwrap());
    let variant: i64 = std::env::var("RILL_CHILD_VARIANT")
        .unwrap()
        .parse()
        .unwrap();
    match role.as_str() {
        // Saves again and again until killed.
        "saver" => {
            let mut v = variant;
            loop {
                let mut db = db_in(&dir);
                set_inputs(&mut db, v, BIG_NAMES);
                workload(&db, BIG_NAMES);
                db.save();
                v += 1;
                println!("saved {v}");
            }
        }
        // Takes the lock and sleeps until killed.
        "holder" => {
            // The parent's probes take the lock for a moment too: retry until it is ours.
            let start = Instant::now();
            let _db = loop {
                let db = db_in(&dir);
                if db.runtime().persists() {
                    break db;
                }
                drop(db);
                assert!(start.elapsed() < Duration::from_secs(60), "never locked");
                std::thread::sleep(Duration::from_millis(5));
            };
            println!("holding");
            std::thread::sleep(Duration::from_secs(600));
        }
        // One build, read-only if the lock is taken, checked against from scratch.
        "builder" | "waiter" => {
            let on_locked = if role == "waiter" {
                OnLocked::Wait
            } else {
                OnLocked::ReadOnly
            };
            for round in 0..3 {
                let v = variant + round;
                let mut db = db_with(&dir, on_locked);
                for w in db.runtime().warnings() {
                    assert!(
                        w.contains("no cache") || w.contains("cannot lock"),
                        "unexpected warning: {w}"
                    );
                }
                set_inputs(&mut db, v, 500);
                assert_eq!(workload(&db, 500), expected(v, 500), "variant {v}");
                let report = db.save();
                assert_eq!(report.saved, db.runtime().persists(), "{report:?}");
            }
        }
        other => panic!("unknown child role {other}"),
    }
    println!("child ok");
}

/// Kills a saving child at many moments; each time the directory must give a correct
/// build with a valid or absent cache (never a corrupted one) and no temporary file left.
#[test]
fn a_build_killed_during_save_leaves_a_usable_directory() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(42);
    let rounds = fuzz_cases(6);
    for round in 0..rounds {
        let mut child = spawn_child("saver", dir.path(), round as i64);
        std::thread::sleep(Duration::from_millis(150 + rng.below(900) as u64));
        child.kill().unwrap();
        child.wait().unwrap();
        let mut db = db_in(dir.path());
        for w in db.runtime().warnings() {
            // Killed before the first save: no cache yet. Never a damaged one.
            assert!(w.contains("no cache"), "round {round}: {w}");
        }
        let left = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
            .count();
        assert_eq!(left, 0, "round {round}: temporary files left");
        set_inputs(&mut db, 7, BIG_NAMES);
        assert_eq!(workload(&db, BIG_NAMES), expected(7, BIG_NAMES));
        assert!(db.save().saved);
    }
}

/// A lock held by a process that died is free: the next build persists.
#[test]
fn a_lock_of_a_dead_process_is_free() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_child("holder", dir.path(), 0);
    // Wait until it holds the lock.
    let start = Instant::now();
    loop {
        let db = db_in(dir.path());
        if !db.runtime().persists() {
            break;
        }
        drop(db);
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "child never locked"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let db = db_in(dir.path());
    assert!(!db.runtime().persists(), "the lock is held");
    drop(db);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(dir.path().join("query-cache.lock").exists());
    let mut db = db_in(dir.path());
    assert!(db.runtime().persists(), "{:?}", db.runtime().warnings());
    set_inputs(&mut db, 0, NAMES);
    assert_eq!(workload(&db, NAMES), expected(0, NAMES));
    assert!(db.save().saved);
}

/// Several processes build on one directory at once, each with its own inputs: all are
/// right, and the cache is valid afterwards.
#[test]
fn concurrent_builds_are_correct_and_leave_a_valid_cache() {
    let _serial = serial();
    for role in ["builder", "waiter"] {
        let dir = tempfile::tempdir().unwrap();
        let children: Vec<Child> = (0..4)
            .map(|i| spawn_child(role, dir.path(), i * 5))
            .collect();
        for (i, c) in children.into_iter().enumerate() {
            wait_ok(c, &format!("{role} {i}"));
        }
        let mut db = db_in(dir.path());
        assert!(
            db.runtime().warnings().is_empty(),
            "{role}: {:?}",
            db.runtime().warnings()
        );
        set_inputs(&mut db, 2, 500);
        assert_eq!(workload(&db, 500), expected(2, 500));
    }
}

/// A damaged record is not only this build's problem: the build that meets it saves a
/// cache, and later builds with other inputs start on that cache (and on the damaged
/// record again if nothing rewrote it). Each build of such a history, on every record's
/// damage, equals a from-scratch build.
#[test]
fn builds_after_a_damaged_record_stay_correct() {
    let _serial = serial();
    let good = good_cache();
    let n = node_count(&good);
    // Histories of inputs after the damaged build (variant 0, the cache's own inputs).
    let histories: [&[i64]; 3] = [&[0, 3, 0], &[3, 3, 1], &[1, 0, 2, 0]];
    let mut cases = 0;
    for i in (0..n).step_by(stride().min(2)) {
        let Some(r) = record_at(&good, i) else {
            continue;
        };
        for (h, history) in histories.iter().enumerate() {
            // Flip a byte of the record's head, or of its value when it has one.
            let at = if h % 2 == 1 && !r.value.is_empty() {
                r.value.start
            } else {
                r.start + 4
            };
            let mut b = good.clone();
            b[at] ^= 1;
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(CACHE), &b).unwrap();
            for (step, &variant) in history.iter().enumerate() {
                let mut db = db_with(dir.path(), OnLocked::Wait);
                set_inputs(&mut db, variant, NAMES);
                let got = workload(&db, NAMES);
                assert_eq!(
                    got,
                    expected(variant, NAMES),
                    "record {i} damaged at byte {at}, build {step} of history {history:?}"
                );
                assert!(db.save().saved);
            }
            cases += 1;
        }
    }
    assert!(cases > 0);
}
