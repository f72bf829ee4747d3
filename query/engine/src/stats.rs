//! Statistics per query kind (executed, green, loaded, hashed bytes, time in providers
//! and hashing) and for the engine (dependency bookkeeping, cache load and save), with a
//! serializable snapshot shaped for the stats JSON of DESIGN.md ("Command-line contract").
//!
//! Times are exclusive: a provider's time excludes the queries it executed, their hashing
//! and their validation. A small profiler keeps a stack of timed regions; only cold paths
//! (executions, validations, loads) open regions, so a cached read costs no clock read;
//! an execution costs three (provider, then hashing, then done). Key hashing (once per
//! key and session) is counted in `hashed_bytes` but its time stays with the caller.

use crate::query::Flags;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KindCounters {
    pub executed: u64,
    pub green: u64,
    pub loaded: u64,
    pub promoted: u64,
    pub verified: u64,
    pub released: u64,
    pub recomputed: u64,
    pub hashed_bytes: u64,
    pub provider: Duration,
    pub hash: Duration,
    pub load: Duration,
}

#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub kinds: Vec<KindCounters>,
    pub bookkeeping: Duration,
    pub cache_load: Duration,
    pub cache_save: Duration,
    pub cache_bytes_read: u64,
    pub cache_bytes_written: u64,
}

impl Stats {
    pub(crate) fn new(kinds: usize) -> Stats {
        Stats {
            kinds: vec![KindCounters::default(); kinds],
            ..Stats::default()
        }
    }
}

/// A timed region's category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    Provider(u16),
    Hash(u16),
    Load(u16),
    Bookkeeping,
}

struct Open {
    region: Region,
    start: Instant,
    children: Duration,
}

/// The stack of open regions.
#[derive(Default)]
pub(crate) struct Profiler {
    open: Vec<Open>,
    /// No clock reads at all: every time stays zero (`Options::no_timing`).
    disabled: bool,
}

impl Profiler {
    pub(crate) fn new(disabled: bool) -> Profiler {
        Profiler {
            open: Vec::new(),
            disabled,
        }
    }

    pub(crate) fn enter(&mut self, region: Region) {
        if self.disabled {
            return;
        }
        self.open.push(Open {
            region,
            start: Instant::now(),
            children: Duration::ZERO,
        });
    }

    pub(crate) fn top(&self) -> Option<Region> {
        self.open.last().map(|o| o.region)
    }

    /// Closes the innermost region and charges its exclusive time.
    pub(crate) fn exit(&mut self, stats: &mut Stats) {
        if self.disabled {
            return;
        }
        self.close(Instant::now(), stats);
    }

    fn close(&mut self, now: Instant, stats: &mut Stats) {
        let Some(o) = self.open.pop() else { return };
        let total = now.saturating_duration_since(o.start);
        let own = total.saturating_sub(o.children);
        if let Some(parent) = self.open.last_mut() {
            parent.children += total;
        }
        match o.region {
            Region::Provider(k) => stats.kinds[k as usize].provider += own,
            Region::Hash(k) => stats.kinds[k as usize].hash += own,
            Region::Load(k) => stats.kinds[k as usize].load += own,
            Region::Bookkeeping => stats.bookkeeping += own,
        }
    }

    /// Closes the innermost region and opens `region`, with one clock read for both.
    pub(crate) fn switch(&mut self, region: Region, stats: &mut Stats) {
        if self.disabled {
            return;
        }
        let now = Instant::now();
        self.close(now, stats);
        self.open.push(Open {
            region,
            start: now,
            children: Duration::ZERO,
        });
    }

    /// Closes every region above depth `depth` (after an unwind).
    pub(crate) fn unwind_to(&mut self, depth: usize, stats: &mut Stats) {
        while self.open.len() > depth {
            self.exit(stats);
        }
    }

    pub(crate) fn depth(&self) -> usize {
        self.open.len()
    }
}

/// Counters and times of one query kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueryStats {
    /// Executions of the provider.
    pub executed: u64,
    /// Memos re-validated without executing.
    pub green: u64,
    /// Values decoded from the on-disk cache.
    pub loaded: u64,
    /// Values carried into the new cache without being decoded.
    pub promoted: u64,
    /// Green memos re-executed by verify mode.
    pub verified: u64,
    /// Values released after their consumers (`release_after`).
    pub released: u64,
    /// Executions (counted in `executed` too) that recomputed a released value of a memo
    /// valid in the current revision.
    pub recomputed: u64,
    /// Bytes fed to the hasher (keys and values).
    pub hashed_bytes: u64,
    /// Exclusive time in the provider.
    pub provider_ms: f64,
    /// Time hashing keys and values.
    pub hash_ms: f64,
    /// Time decoding values from the cache.
    pub load_ms: f64,
    /// The query's modifiers (not part of the stats JSON).
    #[serde(skip)]
    pub flags: Flags,
}

/// The totals of the stats JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Executions.
    pub executed: u64,
    /// Green re-validations.
    pub green: u64,
    /// Loads from disk.
    pub loaded: u64,
}

/// Engine-wide times and sizes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EngineStats {
    /// Time walking dependency edges (red-green), excluding the executions it caused.
    pub bookkeeping_ms: f64,
    /// Time reading, checking and decoding the cache file's graph.
    pub cache_load_ms: f64,
    /// Time encoding and writing the cache file.
    pub cache_save_ms: f64,
    /// Size of the cache file read.
    pub cache_bytes_read: u64,
    /// Size of the cache file written.
    pub cache_bytes_written: u64,
    /// Total bytes hashed.
    pub hashed_bytes: u64,
    /// Total time hashing.
    pub hash_ms: f64,
    /// Total exclusive time in providers.
    pub provider_ms: f64,
    /// Nodes in the dependency graph.
    pub nodes: u64,
    /// At the start of a session on a loaded cache: the inputs and outside reads found
    /// changed (the seeds of the push).
    pub session_seeds: u64,
    /// Loaded nodes the push re-validated (taken out of its queue).
    pub session_pushed: u64,
}

/// A snapshot of the statistics: `queries` and `totals` as in the stats JSON of DESIGN.md
/// ("Command-line contract"), and `engine` for the engine-wide numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StatsSnapshot {
    /// Per query kind (only kinds that did something).
    pub queries: BTreeMap<String, QueryStats>,
    /// Sums over kinds.
    pub totals: Totals,
    /// Engine-wide numbers.
    pub engine: EngineStats,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

impl Stats {
    /// The snapshot, with each kind's name and modifiers from the query table.
    pub(crate) fn snapshot(&self, kinds: &[(&'static str, Flags)], nodes: usize) -> StatsSnapshot {
        let mut snap = StatsSnapshot::default();
        let mut hash = Duration::ZERO;
        let mut provider = Duration::ZERO;
        for (k, c) in self.kinds.iter().enumerate() {
            snap.totals.executed += c.executed;
            snap.totals.green += c.green;
            snap.totals.loaded += c.loaded;
            snap.engine.hashed_bytes += c.hashed_bytes;
            hash += c.hash;
            provider += c.provider;
            if c.executed
                + c.green
                + c.loaded
                + c.promoted
                + c.hashed_bytes
                + c.verified
                + c.released
                == 0
            {
                continue;
            }
            let (name, flags) = kinds[k];
            snap.queries.insert(
                name.to_string(),
                QueryStats {
                    executed: c.executed,
                    green: c.green,
                    loaded: c.loaded,
                    promoted: c.promoted,
                    verified: c.verified,
                    released: c.released,
                    recomputed: c.recomputed,
                    hashed_bytes: c.hashed_bytes,
                    provider_ms: ms(c.provider),
                    hash_ms: ms(c.hash),
                    load_ms: ms(c.load),
                    flags,
                },
            );
        }
        snap.engine.bookkeeping_ms = ms(self.bookkeeping);
        snap.engine.cache_load_ms = ms(self.cache_load);
        snap.engine.cache_save_ms = ms(self.cache_save);
        snap.engine.cache_bytes_read = self.cache_bytes_read;
        snap.engine.cache_bytes_written = self.cache_bytes_written;
        snap.engine.hash_ms = ms(hash);
        snap.engine.provider_ms = ms(provider);
        snap.engine.nodes = nodes as u64;
        snap
    }
}
