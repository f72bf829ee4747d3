//! Statistics per query kind (executed, green, loaded, hashed bytes, time in providers,
//! encoding and hashing) and for the engine (dependency bookkeeping, cache load and save), with a
//! serializable snapshot shaped for the stats JSON of DESIGN.md ("Command-line contract").
//!
//! Times are exclusive: a provider's time excludes the queries it executed, their hashing
//! and their validation. A small profiler keeps a stack of timed regions; only cold paths
//! (executions, validations, loads) open regions, so a cached read costs no clock read;
//! an execution costs three (provider, then hashing, then done), and one more when it
//! encodes its value for the cache (provider, then encoding, then hashing, then done: the
//! encoding, whose bytes the save writes as they are, is not counted as hashing). Key hashing (once per
//! key and session) is counted in `hashed_bytes` but its time stays with the caller.
//!
//! The profiler's clock ([`Clock`]) is the processor's time-stamp counter where it runs at
//! a constant rate (x86-64 with an invariant TSC): a read is one instruction, where
//! `Instant::now` is a call into the vDSO and a `Duration` per interval is a normalized
//! pair. Regions are charged in ticks, and ticks become time only in the snapshot, at the
//! rate the counter ran at against `Instant` since the profiler was created (the whole
//! session, so the rate's error is that of two `Instant` reads over the session). Without
//! such a counter the ticks are nanoseconds since the profiler was created.

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
    /// Exclusive time in the provider, in [`Clock`] ticks.
    pub provider: u64,
    /// Time hashing values, in ticks.
    pub hash: u64,
    /// Time encoding values whose bytes are kept for the cache (and fingerprinted), in
    /// ticks.
    pub encode: u64,
    /// Time decoding values from the cache, in ticks.
    pub load: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub kinds: Vec<KindCounters>,
    /// Time walking dependency edges, in [`Clock`] ticks.
    pub bookkeeping: u64,
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
    /// Encoding a value whose bytes are kept to be saved (and fingerprinted).
    Encode(u16),
    Load(u16),
    Bookkeeping,
}

struct Open {
    region: Region,
    start: u64,
    children: u64,
}

/// The profiler's clock: ticks of the time-stamp counter where it runs at a constant rate,
/// otherwise nanoseconds since `origin`; [`Clock::to_duration`] converts ticks to time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: Instant,
    /// The counter at `origin` (0 when `tsc` is false).
    origin_ticks: u64,
    /// Ticks are the time-stamp counter's.
    tsc: bool,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        let tsc = invariant_tsc();
        let origin = Instant::now();
        let origin_ticks = if tsc { read_tsc() } else { 0 };
        Clock {
            origin,
            origin_ticks,
            tsc,
        }
    }

    /// The current tick.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        if self.tsc {
            read_tsc()
        } else {
            self.origin.elapsed().as_nanos() as u64
        }
    }

    /// The time of `ticks` ticks, at the rate the counter ran since the clock was created.
    pub(crate) fn to_duration(&self, ticks: u64) -> Duration {
        if !self.tsc {
            return Duration::from_nanos(ticks);
        }
        let nanos = self.origin.elapsed().as_nanos();
        let elapsed = u128::from(read_tsc().saturating_sub(self.origin_ticks));
        if elapsed == 0 {
            return Duration::ZERO;
        }
        let ns = u128::from(ticks) * nanos / elapsed;
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

/// Whether the time-stamp counter runs at a constant rate in every power state (CPUID
/// leaf 0x8000_0007, EDX bit 8): then its ticks measure time.
#[cfg(target_arch = "x86_64")]
fn invariant_tsc() -> bool {
    use std::arch::x86_64::__cpuid;
    // Leaf 0x8000_0007 is read only when leaf 0x8000_0000 reports it.
    __cpuid(0x8000_0000).eax >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn invariant_tsc() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn read_tsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 processor and has no side effect.
    unsafe { std::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn read_tsc() -> u64 {
    0
}

/// The stack of open regions.
pub(crate) struct Profiler {
    open: Vec<Open>,
    clock: Clock,
    /// No clock reads at all: every time stays zero (`Options::no_timing`).
    disabled: bool,
}

impl Profiler {
    pub(crate) fn new(disabled: bool) -> Profiler {
        Profiler {
            open: Vec::new(),
            clock: Clock::new(),
            disabled,
        }
    }

    /// The clock the regions are timed with (to convert their ticks to time).
    pub(crate) fn clock(&self) -> Clock {
        self.clock
    }

    #[inline]
    pub(crate) fn enter(&mut self, region: Region) {
        if self.disabled {
            return;
        }
        self.open.push(Open {
            region,
            start: self.clock.now(),
            children: 0,
        });
    }

    pub(crate) fn top(&self) -> Option<Region> {
        self.open.last().map(|o| o.region)
    }

    /// Closes the innermost region and charges its exclusive time.
    #[inline]
    pub(crate) fn exit(&mut self, stats: &mut Stats) {
        if self.disabled {
            return;
        }
        let now = self.clock.now();
        self.close(now, stats);
    }

    /// Inlined into every region's exit: it runs twice per execution.
    #[inline(always)]
    fn close(&mut self, now: u64, stats: &mut Stats) {
        let Some(o) = self.open.pop() else { return };
        let total = now.saturating_sub(o.start);
        let own = total.saturating_sub(o.children);
        if let Some(parent) = self.open.last_mut() {
            parent.children += total;
        }
        charge(o.region, own, stats);
    }

    /// Ends the encoding of kind `kind`, the innermost region (`Region::Encode(kind)`),
    /// and times the hashing of the encoded bytes as `Region::Hash(kind)`, with one clock
    /// read: as [`Profiler::switch`] (the same time for each), without taking the region
    /// off the stack. The time charged joins its children's, so that the region's exit
    /// charges the hashing only what came after, and its parent the whole.
    #[inline(always)]
    pub(crate) fn encoded(&mut self, kind: u16, stats: &mut Stats) {
        if self.disabled {
            return;
        }
        let now = self.clock.now();
        let Some(o) = self.open.last_mut() else {
            return;
        };
        debug_assert_eq!(o.region, Region::Encode(kind));
        let total = now.saturating_sub(o.start);
        stats.kinds[kind as usize].encode += total.saturating_sub(o.children);
        o.children = o.children.max(total);
        o.region = Region::Hash(kind);
    }

    /// Closes the innermost region and opens `region`, with one clock read for both.
    #[inline]
    pub(crate) fn switch(&mut self, region: Region, stats: &mut Stats) {
        if self.disabled {
            return;
        }
        let now = self.clock.now();
        self.close(now, stats);
        self.open.push(Open {
            region,
            start: now,
            children: 0,
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

/// Adds `ticks` to the time of `region`.
#[inline(always)]
fn charge(region: Region, ticks: u64, stats: &mut Stats) {
    match region {
        Region::Provider(k) => stats.kinds[k as usize].provider += ticks,
        Region::Hash(k) => stats.kinds[k as usize].hash += ticks,
        Region::Encode(k) => stats.kinds[k as usize].encode += ticks,
        Region::Load(k) => stats.kinds[k as usize].load += ticks,
        Region::Bookkeeping => stats.bookkeeping += ticks,
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
    /// Time hashing keys and values (not the encoding of `encode_ms`).
    pub hash_ms: f64,
    /// Time encoding values, when executed, for the cache: the bytes are fingerprinted
    /// and later saved as they are.
    pub encode_ms: f64,
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
    /// Total time hashing (not the encoding of `encode_ms`).
    pub hash_ms: f64,
    /// Total time encoding values, when executed, for the cache (the bytes are
    /// fingerprinted and later saved as they are).
    pub encode_ms: f64,
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
    /// The snapshot, with each kind's name and modifiers from the query table, and times
    /// converted from the ticks of `clock`.
    pub(crate) fn snapshot(
        &self,
        kinds: &[(&'static str, Flags)],
        nodes: usize,
        clock: Clock,
    ) -> StatsSnapshot {
        let mut snap = StatsSnapshot::default();
        let tick_ms = |ticks: u64| ms(clock.to_duration(ticks));
        let mut hash = 0u64;
        let mut encode = 0u64;
        let mut provider = 0u64;
        for (k, c) in self.kinds.iter().enumerate() {
            snap.totals.executed += c.executed;
            snap.totals.green += c.green;
            snap.totals.loaded += c.loaded;
            snap.engine.hashed_bytes += c.hashed_bytes;
            hash += c.hash;
            encode += c.encode;
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
                    provider_ms: tick_ms(c.provider),
                    hash_ms: tick_ms(c.hash),
                    encode_ms: tick_ms(c.encode),
                    load_ms: tick_ms(c.load),
                    flags,
                },
            );
        }
        snap.engine.bookkeeping_ms = tick_ms(self.bookkeeping);
        snap.engine.cache_load_ms = ms(self.cache_load);
        snap.engine.cache_save_ms = ms(self.cache_save);
        snap.engine.cache_bytes_read = self.cache_bytes_read;
        snap.engine.cache_bytes_written = self.cache_bytes_written;
        snap.engine.hash_ms = tick_ms(hash);
        snap.engine.encode_ms = tick_ms(encode);
        snap.engine.provider_ms = tick_ms(provider);
        snap.engine.nodes = nodes as u64;
        snap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until `ticks` ticks of the profiler's clock have passed.
    fn spin(p: &Profiler, ticks: u64) {
        let start = p.clock.now();
        while p.clock.now().saturating_sub(start) < ticks {}
    }

    #[test]
    fn switching_regions_neither_loses_nor_double_counts_time() {
        const T: u64 = 20_000;
        let mut p = Profiler::new(false);
        let mut stats = Stats::new(1);
        let before = p.clock.now();
        p.enter(Region::Provider(0));
        spin(&p, T);
        p.enter(Region::Bookkeeping);
        spin(&p, T);
        p.exit(&mut stats);
        p.switch(Region::Encode(0), &mut stats);
        spin(&p, T);
        p.encoded(0, &mut stats);
        spin(&p, T);
        // A child after the relabelling is the region's child still.
        p.enter(Region::Load(0));
        spin(&p, T);
        p.exit(&mut stats);
        p.exit(&mut stats);
        let after = p.clock.now();
        assert_eq!(p.depth(), 0);
        let c = stats.kinds[0];
        // Every region got its own time, and no more than the whole: the regions
        // partition the interval from the first enter to the last exit.
        for (name, t) in [
            ("provider", c.provider),
            ("encode", c.encode),
            ("hash", c.hash),
            ("load", c.load),
            ("bookkeeping", stats.bookkeeping),
        ] {
            assert!(t >= T, "{name}: {t}");
        }
        let sum = c.provider + c.encode + c.hash + c.load + stats.bookkeeping;
        assert!(sum <= after - before, "{sum} > {}", after - before);
        assert!(after - before - sum < T, "{sum} of {}", after - before);
    }
}
