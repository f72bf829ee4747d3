//! The engine's state shared by all queries of a database: options, the dependency graph,
//! the stack of executing queries, the revision clock, statistics, the event log,
//! warnings and the on-disk cache this session was loaded from.

use crate::cache_dir::CacheDir;
use crate::cycle::Cycle;
use crate::dep_graph::{flags, Graph, NodeFlags, NodeId};
use crate::durability::{Durability, LastChanged};
use crate::event::{Event, EventKind};
use crate::hasher::HasherKind;
use crate::query::{Database, Flags};
use crate::revision::Revision;
use crate::stats::{Profiler, Stats};
use crate::verify::{Verify, VerifyMismatch};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::sync::Arc;

/// How a re-executed query decides whether its result changed (experiments E2 and E4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Cutoff {
    /// Compare fingerprints (rustc). Queries marked `backdate_eq` compare with `==`.
    #[default]
    Fingerprint,
    /// Compare values with `==` (salsa's backdating) for every query. Values are hashed
    /// only when the cache is persisted or verified.
    Equality,
    /// No early cutoff: a re-executed derived query always counts as changed
    /// (`eval_always` queries, the reads of the outside world, are still compared).
    Off,
}

/// What to do when another build holds the cache directory's lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnLocked {
    /// Load the cache as it is (writers replace it atomically, so it is always whole) but do
    /// not save: the other build's result wins. Never blocks. The default.
    #[default]
    ReadOnly,
    /// Block until the other build is done, then proceed normally.
    Wait,
}

/// Where and how to persist the cache.
#[derive(Clone, Debug)]
pub struct CacheOptions {
    /// The cache directory (created if missing).
    pub dir: PathBuf,
    /// Identifies the compiler build: a cache written by another build is ignored.
    pub build_id: String,
    /// Behaviour when the directory is locked by another build.
    pub on_locked: OnLocked,
    /// `fsync` the new cache file before renaming it into place.
    pub fsync: bool,
    /// The node count from which a new cache file is written on two threads (the same
    /// bytes as on one; below, starting the thread costs more than it saves).
    pub writer_thread_min: usize,
}

impl CacheOptions {
    /// A cache in `dir` for the compiler build `build_id`, with the default policies.
    pub fn new(dir: impl Into<PathBuf>, build_id: impl Into<String>) -> CacheOptions {
        CacheOptions {
            dir: dir.into(),
            build_id: build_id.into(),
            on_locked: OnLocked::default(),
            fsync: true,
            writer_thread_min: crate::cache_dir::WRITER_THREAD_MIN,
        }
    }
}

/// Receives warnings as they happen.
pub type WarningSink = Box<dyn Fn(&str)>;

/// Options of a database.
#[derive(Default)]
pub struct Options {
    /// The fingerprint hasher.
    pub hasher: HasherKind,
    /// The early-cutoff rule.
    pub cutoff: Cutoff,
    /// Re-execute green queries to check their fingerprints.
    pub verify: Verify,
    /// Record an [`Event`] for every execution, green marking and load.
    pub event_log: bool,
    /// Persist to and load from a cache directory; `None` keeps everything in memory.
    pub cache: Option<CacheOptions>,
    /// Read no clock: provider, hashing, load and bookkeeping times stay zero. (Timing
    /// costs three reads of the time-stamp counter per execution, see `stats`.)
    pub no_timing: bool,
    /// Called with every warning (a damaged cache, a verify mismatch) besides collecting it.
    pub on_warning: Option<WarningSink>,
    /// The database is used for one revision only (a build from scratch in a process of
    /// its own): no later revision compares a result with this one's, so a value released
    /// after its consumers (`release_after`) is dropped without being fingerprinted first.
    /// Should a later revision come all the same, a re-executed memo released so counts as
    /// changed: correct, only with less early cutoff.
    pub single_revision: bool,
}

impl Options {
    /// Default options, with `verify` from `RILL_VERIFY` and the hasher from `RILL_HASHER`
    /// (`sip128`, `xxh3`, `blake3`).
    pub fn from_env() -> Options {
        let hasher = std::env::var("RILL_HASHER")
            .ok()
            .and_then(|s| HasherKind::from_name(&s))
            .unwrap_or_default();
        Options {
            hasher,
            verify: Verify::from_env(),
            ..Options::default()
        }
    }
}

/// An executing query.
pub(crate) struct Frame {
    pub node: NodeId,
    /// Where its reads start in [`Stack::reads`]: what it read so far, in order, is
    /// `reads[reads_start..]` (the reads of a query it executed were removed when that
    /// one finished).
    pub reads_start: usize,
    /// The lowest durability of what it read.
    pub durability: Durability,
    /// Set when a cycle through this frame was detected.
    pub cycle: Option<Arc<Cycle>>,
    /// The node's flags before it started, restored if the execution is unwound.
    pub saved_flags: NodeFlags,
}

/// The executing queries, innermost last, and their reads. It dereferences to the
/// frames.
#[derive(Default)]
pub(crate) struct Stack {
    frames: Vec<Frame>,
    /// The reads of every executing query, the innermost one's last (see
    /// [`Frame::reads_start`]): one buffer for all executions, with no vector per
    /// execution and nothing to move when a frame is pushed or popped.
    pub reads: Vec<NodeId>,
}

impl std::ops::Deref for Stack {
    type Target = Vec<Frame>;

    #[inline]
    fn deref(&self) -> &Vec<Frame> {
        &self.frames
    }
}

impl std::ops::DerefMut for Stack {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<Frame> {
        &mut self.frames
    }
}

/// The engine's state. Reached through [`Database::runtime`].
pub struct Runtime {
    pub(crate) options: Options,
    pub(crate) graph: RefCell<Graph>,
    pub(crate) stack: RefCell<Stack>,
    pub(crate) revision: Cell<Revision>,
    pub(crate) last_changed: Cell<LastChanged>,
    pub(crate) stats: RefCell<Stats>,
    pub(crate) profiler: RefCell<Profiler>,
    pub(crate) events: RefCell<Vec<Event>>,
    pub(crate) warnings: RefCell<Vec<String>>,
    pub(crate) mismatches: RefCell<Vec<VerifyMismatch>>,
    pub(crate) verify_counter: Cell<u64>,
    pub(crate) prev: Option<crate::cache_dir::Loaded>,
    pub(crate) cache_dir: Option<CacheDir>,
    /// A reusable buffer for encoding values to fingerprint them.
    pub(crate) encode_buf: RefCell<Vec<u8>>,
    /// A bit per node, all clear between uses: the reads already seen while an
    /// execution's reads are deduplicated.
    pub(crate) seen: RefCell<Vec<u64>>,
    pub(crate) kind_flags: Vec<Flags>,
    /// Per query kind: whether it consumes the values of a query that releases them
    /// (`release_after`), so that its executions look for values to release.
    pub(crate) consumes: Vec<bool>,
    /// The start of the session on a loaded cache (see `session`).
    pub(crate) session: RefCell<crate::session::SessionState>,
    /// A loaded record was found damaged: its node has no memo and its edges are lost, so
    /// the changes pushed along them are not the whole story (`session::complete`).
    pub(crate) damaged_record: Cell<bool>,
}

impl Runtime {
    /// A runtime for database `Db`: opens and loads the cache directory if configured.
    /// A missing, damaged or incompatible cache gives a warning and an empty graph.
    pub fn new<Db: Database>(options: Options) -> Runtime {
        let kinds = Db::KINDS.len();
        let mut rt = Runtime {
            graph: RefCell::new(Graph::default()),
            stack: RefCell::new(Stack::default()),
            revision: Cell::new(Revision::START),
            last_changed: Cell::new(LastChanged::new()),
            stats: RefCell::new(Stats::new(kinds)),
            profiler: RefCell::new(Profiler::new(options.no_timing)),
            events: RefCell::new(Vec::new()),
            warnings: RefCell::new(Vec::new()),
            mismatches: RefCell::new(Vec::new()),
            verify_counter: Cell::new(0),
            prev: None,
            cache_dir: None,
            encode_buf: RefCell::new(Vec::new()),
            seen: RefCell::new(Vec::new()),
            kind_flags: Db::KINDS.iter().map(|k| k.flags).collect(),
            consumes: {
                let mut consumes = vec![false; kinds];
                let released = Db::KINDS
                    .iter()
                    .filter(|k| k.flags.contains(Flags::RELEASE));
                for &c in released.flat_map(|k| k.consumer_kinds) {
                    if let Some(slot) = consumes.get_mut(usize::from(c)) {
                        *slot = true;
                    }
                }
                consumes
            },
            session: RefCell::new(Default::default()),
            damaged_record: Cell::new(false),
            options,
        };
        if let Some(cache) = rt.options.cache.clone() {
            crate::cache_dir::open::<Db>(&mut rt, &cache);
        }
        rt
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Changes the early-cutoff rule (for experiments; takes effect for later executions).
    pub fn set_cutoff(&mut self, cutoff: Cutoff) {
        self.options.cutoff = cutoff;
    }

    /// Changes the verify mode.
    pub fn set_verify(&mut self, verify: Verify) {
        self.options.verify = verify;
    }

    /// Turns the event log on or off.
    pub fn set_event_log(&mut self, on: bool) {
        self.options.event_log = on;
    }

    /// The current revision.
    pub fn revision(&self) -> Revision {
        self.revision.get()
    }

    /// Starts a new revision in which `eval_always` queries re-execute when validated
    /// (something untracked, like the file system, may have changed).
    pub fn new_revision(&mut self) {
        let r = self.revision.get().next();
        self.revision.set(r);
        let mut lc = self.last_changed.get();
        lc.record(Durability::Low, r);
        self.last_changed.set(lc);
    }

    /// The recorded events, oldest first, emptying the log.
    pub fn take_events(&self) -> Vec<Event> {
        std::mem::take(&mut self.events.borrow_mut())
    }

    /// The warnings so far (damaged cache, lock contention, verify mismatches).
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.borrow().clone()
    }

    /// The fingerprint mismatches found by verify mode.
    pub fn verify_mismatches(&self) -> Vec<VerifyMismatch> {
        self.mismatches.borrow().clone()
    }

    /// Whether the cache will be saved by `save` (a cache directory is set and its lock is
    /// held by this database).
    pub fn persists(&self) -> bool {
        self.cache_dir.as_ref().is_some_and(|c| c.owns_lock())
    }

    /// Number of nodes in the dependency graph (loaded and created).
    pub fn node_count(&self) -> usize {
        self.graph.borrow().nodes.len()
    }

    pub(crate) fn warn(&self, message: String) {
        if let Some(f) = &self.options.on_warning {
            f(&message);
        }
        self.warnings.borrow_mut().push(message);
    }

    #[inline]
    pub(crate) fn events_on(&self) -> bool {
        self.options.event_log
    }

    /// Records an event that has no node (a cycle).
    pub(crate) fn event(&self, kind: EventKind, query: &'static str, key: String) {
        self.events.borrow_mut().push(Event {
            kind,
            query,
            key,
            node: None,
        });
    }

    /// Records an event about `node`, with its query's name and its key.
    pub(crate) fn node_event<Db: Database>(&self, db: &Db, kind: EventKind, node: NodeId) {
        let query_kind = self.graph.borrow().node(node).kind;
        let (query, key) = match Db::KINDS.get(usize::from(query_kind)) {
            Some(k) => (k.name, (k.key_debug)(db, node)),
            None => ("?", String::new()),
        };
        self.events.borrow_mut().push(Event {
            kind,
            query,
            key,
            node: Some(node),
        });
    }

    /// Records that the executing query read `node` (consecutive duplicate reads are
    /// recorded once) or, with no query executing, that the embedder did: the node is a
    /// root of what is saved.
    #[inline]
    pub(crate) fn record_read(&self, node: NodeId, durability: Durability) {
        let mut stack = self.stack.borrow_mut();
        let Stack { frames, reads } = &mut *stack;
        let Some(top) = frames.last_mut() else {
            drop(stack);
            return self.record_root(node);
        };
        // (With no read of its own yet, the last read is its caller's.)
        if reads.len() == top.reads_start || reads.last() != Some(&node) {
            reads.push(node);
        }
        if durability < top.durability {
            top.durability = durability;
        }
    }

    /// A read by the embedder (no query executing): marks `node` a root. Out of line, so
    /// that the reads of providers, which are most reads, inline [`Runtime::record_read`].
    #[cold]
    #[inline(never)]
    fn record_root(&self, node: NodeId) {
        let mut g = self.graph.borrow_mut();
        let n = g.node_mut(node);
        if !n.has(flags::ROOT) {
            n.flags.insert(flags::ROOT);
            drop(g);
            crate::session::note_dirty(self, node);
        }
    }

    /// Checks (in debug builds; it walks every node) that with no query executing, no
    /// node is in progress: with the checks where a frame is pushed and popped, a node is
    /// in progress exactly while it has a frame on the stack.
    pub(crate) fn debug_check_idle(&self) {
        if cfg!(debug_assertions) {
            debug_assert!(self.stack.borrow().is_empty());
            let g = self.graph.borrow();
            let stuck = g.nodes.iter().find(|n| n.has(flags::IN_PROGRESS));
            debug_assert!(stuck.is_none(), "in progress off the stack: {stuck:?}");
        }
    }

    /// Where the reads of a frame pushed now start (its [`Frame::reads_start`]).
    #[inline]
    pub(crate) fn reads_end(&self) -> usize {
        self.stack.borrow().reads.len()
    }

    /// Drops the reads of the frame whose reads started at `start` (popped or abandoned):
    /// the reads from there on are that frame's and those of the frames above it.
    #[inline]
    pub(crate) fn drop_reads(&self, start: usize) {
        self.stack.borrow_mut().reads.truncate(start);
    }

    /// Whether values are hashed when executed: when their fingerprints are saved or
    /// verified. Otherwise a fingerprint is computed only when it is compared (a
    /// re-execution's early cutoff, a release; see `execute::finish`): a build that keeps
    /// nothing between runs hashes only what executes twice.
    #[inline]
    pub(crate) fn hash_on_execute(&self) -> bool {
        self.options.cache.is_some() || self.options.verify != Verify::Off
    }

    /// Whether early cutoff of a query with modifiers `flags` compares fingerprints: then
    /// a memo whose fingerprint was not computed when it executed
    /// ([`Runtime::hash_on_execute`]) is hashed from its value when it is compared.
    #[inline]
    pub(crate) fn cutoff_by_fingerprint(&self, flags: Flags) -> bool {
        self.options.cutoff == Cutoff::Fingerprint && !flags.contains(Flags::BACKDATE_EQ)
    }
}
