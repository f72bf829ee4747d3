//! The query engine (memoized, dependency-tracked, fingerprinted, persisted, re-validated
//! red-green) and the query-based driver.
//!
//! The engine is generic: it knows nothing of Rill. A database is declared with
//! [`define_queries!`] (one table: each query's key, value, modifiers and provider); a
//! provider is a plain function `fn(&Db, Key) -> Value` that reads other queries through
//! the database, which records each read as a dependency edge in invocation order.
//!
//! One file per step, as in salsa: [`fetch`](fetch()) (cached read, then cold path),
//! `maybe_changed_after` (red-green `try_mark_green`), `execute` (run a provider),
//! `backdate` (early cutoff), `cycle`, `verify`, `durability`, `revision`, `dep_graph`;
//! persistence in `on_disk` (the file format) and `cache_dir` (lock, atomic replace,
//! load, save with promotion); `stable_hash`/`hasher`/`fingerprint` for fingerprints;
//! `stats` and `event` for measurement and tests.
//!
//! Single-threaded by design (`RefCell` inside): the drivers are single-threaded.

mod backdate;
mod cache_dir;
mod cycle;
mod dep_graph;
mod durability;
mod event;
mod execute;
mod fetch;
mod fingerprint;
mod hasher;
mod macros;
mod maybe_changed_after;
mod on_disk;
mod query;
mod revision;
mod runtime;
mod stable_hash;
mod stats;
mod verify;

pub use cache_dir::SaveReport;
pub use cycle::{Cycle, CycleFrame};
pub use dep_graph::NodeId;
pub use durability::Durability;
pub use event::{format_events, Event, EventKind};
pub use fetch::{fetch, set_input, try_query};
pub use fingerprint::Fingerprint;
pub use hasher::{fingerprint_of, HasherKind, StableHasher};
#[doc(hidden)]
pub use macros::__hash_value;
pub use on_disk::FORMAT_VERSION;
pub use query::{
    codec_decode, codec_encode, Codec, Database, Flags, KindVTable, Query, QueryStorage,
};
pub use revision::Revision;
pub use runtime::{CacheOptions, Cutoff, OnLocked, Options, Runtime, WarningSink};
pub use stable_hash::StableHash;
pub use stats::{EngineStats, QueryStats, StatsSnapshot, Totals};
pub use verify::{Verify, VerifyMismatch};

/// Operations every database has (implemented for every [`Database`]).
pub trait DatabaseExt: Database {
    /// The statistics so far.
    fn stats(&self) -> StatsSnapshot {
        let rt = self.runtime();
        let names: Vec<&'static str> = Self::KINDS.iter().map(|k| k.name).collect();
        rt.stats.borrow().snapshot(&names, rt.node_count())
    }

    /// Writes the dependency graph, fingerprints and `cache_on_disk` values to the cache
    /// directory (atomically). Never panics: problems become warnings in the report.
    fn save(&mut self) -> SaveReport {
        cache_dir::save(self)
    }

    /// The value of query `Q` for `key` (same as the generated method).
    fn query<Q: Query<Db = Self>>(&self, key: Q::Key) -> Q::Value {
        fetch::<Q>(self, key)
    }

    /// Like [`DatabaseExt::query`], but a cycle without a fallback is an error.
    fn try_query<Q: Query<Db = Self>>(&self, key: Q::Key) -> Result<Q::Value, Cycle> {
        try_query::<Q>(self, key)
    }
}

impl<Db: Database> DatabaseExt for Db {}
