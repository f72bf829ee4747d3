//! The query engine: memoized, dependency-tracked, fingerprinted, persisted, re-validated
//! red-green queries.
//!
//! The engine is generic: it knows nothing of Rill, and its crate depends on neither the
//! frontend nor the backend (the Rill driver is the crate `query-driver`, beside it). A database is declared with
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
//! # Model
//!
//! * **Revisions and sessions.** A database starts at revision 1; setting an input to a
//!   different value (by fingerprint, or `==` under equality cutoff) starts a new
//!   revision. Memos loaded from the cache directory count as verified at revision 0 (the
//!   previous session): each is re-validated (or re-executed) on first use. An input of
//!   the previous session that is not set again counts as changed; reading an input that
//!   was never set panics (an embedder bug).
//! * **Red-green.** A memo is valid if its dependencies, walked in the order they were
//!   read and brought up to date recursively, did not change after it was verified; a
//!   dependency that cannot be marked green is re-executed (forced). A node loaded from
//!   disk can be forced by index because keys are persisted (serde), never interned.
//! * **Early cutoff.** A re-executed query whose result has the old fingerprint keeps its
//!   old `changed_at`, so its dependents stay green. [`Cutoff::Equality`] compares values
//!   with `==` instead (salsa's backdating; values are then hashed only to be persisted or
//!   verified), `backdate_eq` does so for one query, and [`Cutoff::Off`] disables cutoff.
//! * **Durability** applies within a session: after a change of low-durability inputs
//!   only, a memo that read only higher-durability inputs is valid without an edge walk.
//!   In a new session every loaded memo is walked once (the embedder may have changed any
//!   input between processes).
//! * **Persistence** ([`DatabaseExt::save`]): the memos valid at the current revision, in
//!   dependency order, with key and result fingerprints, edges, persisted keys and the
//!   values of `cache_on_disk` queries; memos not reached in the session are dropped
//!   (they would be stale). Loading never fails: a missing, damaged or incompatible file
//!   is a warning and an empty graph (see `cache_dir` for the lock and promotion).
//! * **Released values** (`release_after(q, ...)`): a value is dropped once the queries
//!   that consume it are up to date for its key; the memo stays, and a later read
//!   re-executes the provider without counting as a change (see `release`).
//! * **Cycles** become values through `cycle_fallback` (see [`Cycle`]).
//! * **Verify mode** ([`Verify`], `RILL_VERIFY`) re-executes green queries and reports
//!   fingerprint mismatches ([`Runtime::verify_mismatches`]).
//! * **Deep chains**: providers and re-validation grow the stack on the heap when it runs
//!   low (`stacker`), so a 50k-deep chain of queries does not overflow.
//!
//! Single-threaded by design (`RefCell` inside): the drivers are single-threaded.

mod backdate;
mod cache_dir;
mod changes;
mod chunked;
mod cycle;
mod delta;
mod dep_graph;
mod depth;
mod durability;
mod event;
mod execute;
mod fetch;
mod fingerprint;
mod hasher;
mod macros;
mod maybe_changed_after;
mod on_disk;
mod pieces;
mod query;
mod release;
mod revision;
mod runtime;
mod serde_hash;
mod session;
mod spill;
mod stable_hash;
mod stack;
mod stats;
mod verify;

pub use cache_dir::{
    checked_record as cache_checked_record, file_replaced_whole as cache_file_replaced_whole,
    SaveReport,
};
pub use cycle::{Cycle, CycleFrame};
pub use dep_graph::NodeId;
pub use depth::MAX_DECODE_DEPTH;
pub use durability::Durability;
pub use event::{event_key, format_events, Event, EventKind};
pub use fetch::{fetch, set_input, try_query};
pub use fingerprint::Fingerprint;
pub use hasher::{fingerprint_of, HasherKind, StableHasher, BLOB_DIGEST_MIN};
#[doc(hidden)]
pub use macros::{__hash_value, __value_fingerprint};
pub use on_disk::FORMAT_VERSION;
pub use pieces::{InPieces, WRITE_PIECE};
pub use query::{
    codec_decode, codec_encode, codec_encode_into, Codec, ConsumedFn, Database, Flags, KindVTable,
    Query, QueryStorage,
};
#[doc(hidden)]
pub use release::__consumer_done;
pub use revision::Revision;
pub use runtime::{CacheOptions, Cutoff, OnLocked, Options, Runtime, WarningSink};
pub use serde_hash::hash_serde;
pub use session::VolatileNodes;
pub use stable_hash::StableHash;
pub use stats::{EngineStats, QueryStats, StatsSnapshot, Totals};
pub use verify::{Verify, VerifyMismatch};

/// Operations every database has (implemented for every [`Database`]).
pub trait DatabaseExt: Database {
    /// The statistics so far.
    fn stats(&self) -> StatsSnapshot {
        let rt = self.runtime();
        let kinds: Vec<_> = Self::KINDS.iter().map(|k| (k.name, k.flags)).collect();
        let clock = rt.profiler.borrow().clock();
        let mut snap = rt.stats.borrow().snapshot(&kinds, rt.node_count(), clock);
        (snap.engine.session_seeds, snap.engine.session_pushed) = session::counts(rt);
        snap
    }

    /// Whether this session read a cache and executed no query but those that execute in
    /// every session ([`Flags::executes_every_session`]): the counts of
    /// [`DatabaseExt::stats`], read without making its snapshot (a map of every kind's
    /// counters under its name), which a build that only asks this need not pay for.
    fn executed_only_every_session(&self) -> bool {
        let stats = self.runtime().stats.borrow();
        stats.cache_bytes_read > 0
            && stats
                .kinds
                .iter()
                .zip(Self::KINDS)
                .all(|(c, k)| c.executed == 0 || k.flags.executes_every_session())
    }

    /// Writes the dependency graph, fingerprints and `cache_on_disk` values to the cache
    /// directory (atomically). Never panics: problems become warnings in the report.
    fn save(&mut self) -> SaveReport {
        cache_dir::save(self, &mut |_| ())
    }

    /// [`DatabaseExt::save`], calling `during` once on this thread with the generation of
    /// the cache being saved while the save is under way (a new cache file's bytes are
    /// written on a second thread meanwhile): room for work that belongs to that
    /// generation, such as encoding a file kept beside the cache. Nothing that names the
    /// generation may be published before the report says it was saved
    /// ([`SaveReport::generation`]). `during` is not called when nothing is saved, and may
    /// be called for a save that then fails.
    fn save_with(&mut self, during: &mut dyn FnMut(u64)) -> SaveReport {
        cache_dir::save(self, during)
    }

    /// The value of query `Q` for `key` (same as the generated method).
    fn query<Q: Query<Db = Self>>(&self, key: Q::Key) -> Q::Value {
        fetch::<Q>(self, key)
    }

    /// Like [`DatabaseExt::query`], but a cycle without a fallback is an error.
    fn try_query<Q: Query<Db = Self>>(&self, key: Q::Key) -> Result<Q::Value, Cycle> {
        try_query::<Q>(self, key)
    }

    /// The generation of the cache file this database loaded (`None` when it loaded
    /// none): a new number at every save ([`SaveReport::generation`]), so that a file
    /// kept beside the cache can record which cache it belongs to.
    fn loaded_generation(&self) -> Option<u64> {
        Some(self.runtime().prev.as_ref()?.generation())
    }

    /// Whether the save will find every persisted value's encoding without the value: kept
    /// in the cache directory's spill file since its execution (every write to it
    /// succeeded), or nothing to save. Until then, releasing a persisted value
    /// ([`DatabaseExt::release`]) before the save keeps it out of the cache.
    fn encodings_kept(&self) -> bool {
        !self.runtime().persists() || cache_dir::spill_intact(self.runtime())
    }

    /// Releases every value that a save would not read from memory, for a session whose
    /// only work left is to save its cache (or, without a cache, to end): the values of
    /// queries that are not persisted, and those whose encoding the cache directory's
    /// spill file keeps (all of them, or none if one was lost: see
    /// [`DatabaseExt::encodings_kept`]); every value, in a database that saves nothing.
    /// The save then writes the kept bytes, and its own memory comes on top of less. A
    /// later read of a released value executes its provider again. Returns how many
    /// values were released.
    fn release_unsaved_values(&self) -> usize {
        let persists = self.runtime().persists();
        if persists && !self.encodings_kept() {
            // Only the values of queries without a codec would go: not worth a walk.
            return 0;
        }
        Self::KINDS
            .iter()
            .map(|vt| (vt.release_unsaved)(self, !persists))
            .sum()
    }

    /// Lets the process stop holding the pages of the loaded cache file it has read so
    /// far (they stay in the system's file cache): for a caller done with most reads of
    /// the cache, before work that needs memory of its own (a rebuild's link). A later
    /// read of the cache maps its page again; nothing changes but the resident memory.
    fn release_cache_pages(&self) {
        if let Some(prev) = &self.runtime().prev {
            prev.store.release_pages();
        }
    }

    /// The keys of query `Q` whose value changed in this session: executed with a
    /// different fingerprint than before (or, without one, unequal or unhashed), or for
    /// the first time. Each key once, in the order of its first change; the cost grows
    /// with the number of changes, not with the number of keys.
    fn changed_keys<Q: Query<Db = Self>>(&self) -> Vec<Q::Key> {
        changes::changed_keys::<Q>(self, Revision::PREVIOUS_SESSION)
    }

    /// Like [`DatabaseExt::changed_keys`], counting only changes in revisions after
    /// `after` (the revision of an earlier build of the same session).
    fn changed_keys_since<Q: Query<Db = Self>>(&self, after: Revision) -> Vec<Q::Key> {
        changes::changed_keys::<Q>(self, after)
    }

    /// Whether every memo loaded from the cache is known valid or was brought up to date
    /// in the current revision (the session's start pushed every change, see `session`,
    /// and no input changed since). Then [`DatabaseExt::changed_keys`] lists every change
    /// of a loaded memo without each being brought up to date first (keys the cache did
    /// not have are not listed: they are new).
    fn changes_are_complete(&self) -> bool {
        session::complete(self.runtime())
    }

    /// The loaded `eval_always` nodes of query `Q`, in the order the session's start will
    /// re-execute them; none once it started, or without a loaded cache. How many there are
    /// is known first; [`VolatileNodes::decode`] then decodes (and checks) each key as the
    /// start would and gives it on at once, so that the embedder can prepare their reads on
    /// another thread, starting on the first keys while the rest are decoded.
    fn volatile_nodes<Q: Query<Db = Self>>(&self) -> VolatileNodes<Q> {
        session::volatile_nodes::<Q>(self)
    }

    /// Brings `Q(key)` up to date without reading its value when it is green (rustc's
    /// `ensure`): a value persisted on disk stays undecoded. Only at the top level (not
    /// inside a provider, where a read must be recorded: there it is a plain read).
    fn ensure<Q: Query<Db = Self>>(&self, key: Q::Key) {
        changes::ensure::<Q>(self, key)
    }

    /// Releases the value of `Q(key)` now, as `release_after` does once its consumers
    /// are up to date (see `release`): the memo stays, and a later read re-executes the
    /// provider without counting as a change. For values whose last readers are of other
    /// keys or queries, which only the embedder knows to be done (a file's syntax once
    /// every item of the file was checked). Only a memo up to date in the current revision
    /// is released; whether this one was. At the top level only (not inside a provider).
    fn release<Q: Query<Db = Self>>(&self, key: &Q::Key) -> bool {
        debug_assert!(
            self.runtime().stack.borrow().is_empty(),
            "`release` is called at the top level"
        );
        release::release_key::<Q>(self, key)
    }

    /// Ends the database without freeing its memos one by one, for a process about to
    /// exit (freeing them would only delay the exit): only the cache file it loaded is
    /// closed, its mapping and journal dropped, so that the rest of the process does not
    /// hold the pages of the file it read.
    fn leak(mut self) {
        self.runtime_mut().prev = None;
        std::mem::forget(self);
    }

    /// The key of `node` if it is a node of query `Q` (a [`CycleFrame`]'s node); `None`
    /// for a node of another query or one whose key cannot be recovered.
    fn key_of<Q: Query<Db = Self>>(&self, node: NodeId) -> Option<Q::Key> {
        cycle::key_of::<Q>(self, node)
    }
}

impl<Db: Database> DatabaseExt for Db {}
