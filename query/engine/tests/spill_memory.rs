//! A database that will save its cache keeps each persisted value's encoding (made once,
//! when the value is computed, and fingerprinted by it) for the save: in a file of the
//! cache directory, which no one else sees, not as a second copy in memory. What it holds
//! before the save is what the same database holds without a cache, but a buffer; the
//! values can be dropped before the save, which writes those bytes, and a later session
//! reads the values back.
//!
//! The heap is counted by this test binary's allocator (one test, so that nothing else
//! allocates while it measures).

use query::{define_queries, CacheOptions, DatabaseExt, Durability, Options};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counter is only
// arithmetic on the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

define_queries! {
    /// The test database.
    pub struct Db;
    /// Marker types.
    pub mod q;

    /// A seed per key (input).
    input [] fn seed(u32) -> u64, "reading a seed", set_seed;
    /// A block of bytes made from the seed: persisted, fingerprinted by its encoding.
    query [cache_on_disk] fn block(u32) -> Vec<u8>, "making a block", block;
}

const BLOCK: usize = 8 << 10;
const KEYS: u32 = 256;

fn block(db: &Db, key: u32) -> Vec<u8> {
    let s = db.seed(key);
    (0..BLOCK).map(|i| (s as usize + i * 13) as u8).collect()
}

fn db(cache: Option<&Path>) -> Db {
    let cache = cache.map(|dir| {
        let mut c = CacheOptions::new(dir, "test-build-1");
        c.fsync = false;
        c
    });
    Db::new(Options {
        cache,
        ..Options::default()
    })
}

/// The bytes a database holds after computing every block, and the database.
fn computed(cache: Option<&Path>) -> (usize, Db) {
    let before = LIVE.load(Ordering::Relaxed);
    let mut d = db(cache);
    for k in 0..KEYS {
        d.set_seed(k, u64::from(k) * 7, Durability::Low);
    }
    for k in 0..KEYS {
        assert_eq!(d.block(k).len(), BLOCK);
    }
    (LIVE.load(Ordering::Relaxed) - before, d)
}

#[test]
fn the_encodings_kept_for_the_save_are_not_held_in_memory_and_are_saved() {
    let dir = tempfile::tempdir().unwrap();
    let (in_memory, d) = computed(None);
    drop(d);
    let (persisting, mut d) = computed(Some(dir.path()));
    let encoded = KEYS as usize * BLOCK;
    assert!(in_memory >= encoded, "{in_memory}");
    assert!(
        persisting < in_memory + encoded / 8,
        "{persisting} bytes held persisting, {in_memory} without a cache ({encoded} bytes of encodings)"
    );
    // Only the cache's own files show.
    let names = |dir: &Path| {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert!(names(dir.path()).iter().all(|n| !n.contains("tmp")));

    // The values themselves can go before the save: it writes the kept bytes.
    let live = LIVE.load(Ordering::Relaxed);
    assert_eq!(d.release_unsaved_values(), KEYS as usize);
    let freed = live.saturating_sub(LIVE.load(Ordering::Relaxed));
    assert!(freed >= encoded, "{freed} bytes freed of {encoded}");
    assert_eq!(d.stats().queries["block"].released, u64::from(KEYS));
    // A released value read again is computed again, equal.
    assert_eq!(d.block(3), block_of(3));
    assert_eq!(d.stats().queries["block"].recomputed, 1);

    let report = d.save();
    assert!(report.saved, "{:?}", report.warnings);
    assert!(report.bytes as usize > encoded, "{}", report.bytes);
    assert!(names(dir.path()).iter().all(|n| !n.contains("tmp")));
    drop(d);

    // A later session finds every block in the cache, equal, without computing it.
    let mut again = db(Some(dir.path()));
    for k in 0..KEYS {
        again.set_seed(k, u64::from(k) * 7, Durability::Low);
    }
    for k in 0..KEYS {
        assert_eq!(again.block(k), block_of(k));
    }
    let stats = again.stats();
    assert_eq!(stats.totals.executed, 0, "{stats:?}");
}

fn block_of(key: u32) -> Vec<u8> {
    let s = u64::from(key) * 7;
    (0..BLOCK).map(|i| (s as usize + i * 13) as u8).collect()
}
