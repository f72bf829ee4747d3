//! The start of a session on a loaded cache: what changed outside is found first, and the
//! change is pushed along the previous session's reverse edges, stopping where a
//! re-executed query keeps its fingerprint — so that validating a rebuild costs what the
//! edit costs, not what the program costs.
//!
//! Everything loaded from the cache was valid when it was saved. Between two processes
//! only two things can have changed: the inputs the embedder sets, and what the
//! `eval_always` queries read from the outside world. So when a session starts (at the
//! first top-level read, once the embedder has set its inputs):
//!
//! 1. every loaded input that was set to another value, or not set at all, is a *seed*;
//! 2. every loaded `eval_always` node is re-executed (a file's metadata, say); one whose
//!    fingerprint changed is a seed. If there is no seed, nothing loaded is stale and the
//!    whole previous graph is valid as it is: no edge is walked;
//! 3. otherwise the dependents of the seeds (by the reverse of the loaded edges) are put in
//!    a queue ordered by node index — the file is in dependency order, so a node comes
//!    after everything it read — and taken out lowest first. Each is brought up to date the
//!    usual way (marked green by its edges, or re-executed), and only a node whose value
//!    changed puts its own dependents in the queue (early cutoff stops the push).
//!
//! The *clean rule* makes the rest O(1): while the queue is worked off, the cursor is the
//! index last taken out, and a loaded node below the cursor that was not brought up to
//! date is valid — each of its dependencies is below it, so had one changed, the node
//! would have been queued and already taken out. When the queue is empty the cursor is
//! the number of loaded nodes, and every loaded node not re-validated is valid. A node
//! at or above the cursor that a re-execution reads out of turn is validated by walking
//! its edges (those below the cursor cost one comparison each); if its value changed, it
//! queues its dependents at that moment ([`note_changed`]), so nothing is missed.
//!
//! The rule holds only in the revision in which the session started; a later revision
//! of the same process (a new input value, [`crate::Runtime::new_revision`]) validates
//! by walking edges, as before.

use crate::dep_graph::{flags, NodeId, UNKNOWN_KIND};
use crate::durability::Durability;
use crate::execute::is_input;
use crate::query::{Database, Flags, Query};
use crate::revision::Revision;
use crate::runtime::Runtime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// The unwind payload of a read of an input that is not set, during a re-execution the
/// session's start made on its own (see [`force_at_top`]).
pub(crate) struct UnsetInput;

/// The queue of loaded nodes to re-validate, while a session's changes are pushed.
pub(crate) struct Push {
    /// (order, node), lowest order first.
    queue: BinaryHeap<Reverse<(u32, u32)>>,
    /// One bit per loaded node: queued at some point in this session.
    queued: Vec<u64>,
}

impl Push {
    /// Queues the loaded dependents of loaded node `node` (from the cache file's reverse
    /// edges, checked by `start` before the push begins).
    fn dependents_of(&mut self, rt: &Runtime, node: NodeId) {
        let Some(dependents) = rt.prev.as_ref().and_then(|p| p.dependents(node.0)) else {
            return;
        };
        for d in dependents {
            let (word, bit) = (d as usize / 64, 1u64 << (d % 64));
            if let Some(w) = self.queued.get_mut(word) {
                if *w & bit == 0 {
                    *w |= bit;
                    crate::cache_dir::ensure(rt, NodeId(d));
                    let order = rt.graph.borrow().node(NodeId(d)).order;
                    self.queue.push(Reverse((order, d)));
                }
            }
        }
    }
}

/// The state of the session's start, in [`Runtime`].
#[derive(Default)]
pub(crate) struct SessionState {
    /// Nodes loaded from the previous session: they are nodes `0..loaded`.
    pub loaded: u32,
    /// The loaded inputs, `eval_always` nodes and nodes of unknown kinds (collected at
    /// load, consumed by [`start`]).
    pub volatile: Vec<NodeId>,
    /// Whether [`start`] ran.
    pub started: bool,
    /// The revision in which the clean rule holds.
    pub clean_rev: Option<Revision>,
    /// Loaded nodes below this order not verified in `clean_rev` are valid.
    pub clean_below: u32,
    /// The queue, while changes are pushed.
    pub push: Option<Push>,
    /// Nodes whose record a save must write: executed, set, newly a root, or dropped
    /// (with repeats; only while a cache is loaded).
    pub dirty: Vec<NodeId>,
    /// Set while the session's start re-executes a node on its own.
    pub speculative: bool,
    /// Loaded nodes taken out of the queue, and seeds (for statistics and tests).
    pub pushed: u64,
    pub seeds: u64,
}

impl Runtime {
    /// Whether a loaded node of order `order`, verified at `verified_at`, is valid by the clean rule
    /// (see the module documentation).
    #[inline]
    pub(crate) fn is_clean(&self, order: u32, verified_at: Revision) -> bool {
        if verified_at != Revision::PREVIOUS_SESSION {
            return false;
        }
        let s = self.session.borrow();
        s.clean_rev == Some(self.revision.get()) && order < s.clean_below
    }
}

/// Records that `node`'s record must be saved again (see `SessionState::dirty`).
#[inline]
pub(crate) fn note_dirty(rt: &Runtime, node: NodeId) {
    let mut s = rt.session.borrow_mut();
    if s.loaded > 0 {
        s.dirty.push(node);
    }
}

/// Records that `node` changed in this revision: while changes are being pushed, a
/// loaded node's dependents are queued.
#[inline]
pub(crate) fn note_changed(rt: &Runtime, node: NodeId) {
    let mut s = rt.session.borrow_mut();
    if node.0 < s.loaded {
        if let Some(push) = s.push.as_mut() {
            push.dependents_of(rt, node);
        }
    }
}

/// Starts the session, once, before the first top-level read (see the module
/// documentation).
pub(crate) fn start<Db: Database>(db: &Db) {
    let rt = db.runtime();
    let (loaded, volatile) = {
        let mut s = rt.session.borrow_mut();
        if s.started {
            return;
        }
        s.started = true;
        (s.loaded, std::mem::take(&mut s.volatile))
    };
    if loaded == 0 {
        return;
    }
    let rev = rt.revision.get();
    let mut seeds: Vec<NodeId> = Vec::new();
    let mut lc = rt.last_changed.get();
    for &id in &volatile {
        crate::cache_dir::ensure(rt, id);
    }
    for &id in &volatile {
        let (kind, nflags, changed_at, durability) = {
            let g = rt.graph.borrow();
            let n = g.node(id);
            (n.kind, n.flags, n.changed_at, n.durability)
        };
        if kind == UNKNOWN_KIND {
            // A query that no longer exists: whatever read it must re-execute.
            seeds.push(id);
            lc.record(Durability::MAX, rev);
        } else if is_input(rt, kind) {
            if !nflags.contains(flags::INPUT_SET) {
                // Not set again in this session: it counts as changed.
                seeds.push(id);
                lc.record(durability, rev);
            } else if changed_at > Revision::PREVIOUS_SESSION {
                // Set to another value (already recorded by `set_input`).
                seeds.push(id);
            }
        }
    }
    // While the outside world is re-read, the memos of low durability are not trusted
    // by durability alone (an `eval_always` query may read another query).
    let before = lc;
    lc.record(Durability::Low, rev);
    rt.last_changed.set(lc);
    // Once a seed is found, the push will need the reverse edges: their check starts
    // on a second thread while the rest of the outside world is re-read.
    let mut reverse_checked = false;
    for &id in &volatile {
        if !reverse_checked && !seeds.is_empty() {
            reverse_checked = true;
            if let Some(prev) = rt.prev.as_ref() {
                prev.store.check_reverse_ahead();
            }
        }
        let kind = rt.graph.borrow().node(id).kind;
        let eval_always = rt
            .kind_flags
            .get(kind as usize)
            .is_some_and(|f| f.contains(Flags::EVAL_ALWAYS));
        if !eval_always || rt.graph.borrow().node(id).verified_at == rev {
            continue;
        }
        if !speculatively(db, || force(db, id)) {
            rt.graph.borrow_mut().node_mut(id).flags.remove(flags::MEMO);
            note_dirty(rt, id);
            seeds.push(id);
        } else if rt.graph.borrow().node(id).changed_at == rev {
            seeds.push(id);
        }
    }
    {
        let mut s = rt.session.borrow_mut();
        s.seeds = seeds.len() as u64;
        s.clean_rev = Some(rev);
    }
    if seeds.is_empty() {
        // Nothing outside changed: everything loaded is valid as it was saved.
        rt.last_changed.set(before);
        rt.session.borrow_mut().clean_below = u32::MAX;
        return;
    }
    if !rt.prev.as_ref().is_some_and(|p| p.store.reverse_intact()) {
        // Without the reverse edges a change cannot be pushed: every loaded memo is
        // validated by walking its edges instead, as if everything had changed.
        rt.warn(
            "query cache: the reverse edges are damaged; validating every memo by its edges"
                .to_string(),
        );
        let mut all = rt.last_changed.get();
        all.record(Durability::MAX, rev);
        rt.last_changed.set(all);
        let mut s = rt.session.borrow_mut();
        s.clean_rev = None;
        return;
    }
    let mut push = Push {
        queue: BinaryHeap::new(),
        queued: vec![0u64; (loaded as usize).div_ceil(64)],
    };
    for &s in &seeds {
        push.dependents_of(rt, s);
    }
    rt.session.borrow_mut().push = Some(push);
    loop {
        let next = {
            let mut s = rt.session.borrow_mut();
            let next = s.push.as_mut().and_then(|p| p.queue.pop());
            if let Some(Reverse((order, _))) = next {
                s.clean_below = order;
                s.pushed += 1;
            }
            next
        };
        let Some(Reverse((_, i))) = next else { break };
        let id = NodeId(i);
        crate::cache_dir::ensure(rt, id);
        if rt.graph.borrow().node(id).verified_at == rev {
            // Brought up to date out of turn; if it changed, it queued its dependents.
            continue;
        }
        let up_to_date = speculatively(db, || {
            crate::execute::ensure_sufficient_stack(|| {
                crate::maybe_changed_after::try_mark_green(db, id)
            }) || force(db, id)
        });
        if !up_to_date {
            rt.graph.borrow_mut().node_mut(id).flags.remove(flags::MEMO);
            note_dirty(rt, id);
            // Cannot be re-executed here (its key is lost, or it is on a cycle without
            // a fallback): it stays unverified, and what read it must re-execute.
            let push = rt.session.borrow_mut().push.take();
            if let Some(mut p) = push {
                p.dependents_of(rt, id);
                rt.session.borrow_mut().push = Some(p);
            }
        }
    }
    let mut s = rt.session.borrow_mut();
    s.push = None;
    s.clean_below = u32::MAX;
}

/// The loaded `eval_always` nodes of `Q`, in the order [`start`] re-executes them, with
/// their keys not decoded yet (see `DatabaseExt::volatile_nodes`).
pub(crate) fn volatile_nodes<Q: Query>(db: &Q::Db) -> VolatileNodes<Q> {
    let rt = db.runtime();
    let none = VolatileNodes {
        ids: Vec::new(),
        query: std::marker::PhantomData,
    };
    if !Q::FLAGS.contains(Flags::EVAL_ALWAYS) {
        return none;
    }
    let ids = {
        let s = rt.session.borrow();
        if s.started {
            return none;
        }
        s.volatile.clone()
    };
    let ids: Vec<NodeId> = ids
        .into_iter()
        .filter(|&id| {
            crate::cache_dir::ensure(rt, id);
            rt.graph.borrow().node(id).kind == Q::KIND
        })
        .collect();
    VolatileNodes {
        ids,
        query: std::marker::PhantomData,
    }
}

/// The loaded `eval_always` nodes of a query, in the order the session's start
/// re-executes them, before their keys are decoded: how many there are is known first, and
/// each key can be handed on as soon as it is decoded
/// (`DatabaseExt::volatile_nodes`).
pub struct VolatileNodes<Q: Query> {
    ids: Vec<NodeId>,
    query: std::marker::PhantomData<fn() -> Q>,
}

impl<Q: Query> VolatileNodes<Q> {
    /// How many nodes (an upper bound of the keys [`VolatileNodes::decode`] gives: a key
    /// that cannot be decoded is left out).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Decodes the keys (and checks them) as the session's start would, in order, and
    /// gives each to `each`; a key that cannot be decoded is skipped.
    pub fn decode(self, db: &Q::Db, mut each: impl FnMut(Q::Key)) {
        {
            // Each key decoded here gets a slot: room for all of them at once, instead of
            // the slots (key and value inline) being moved each time the storage grows.
            let mut st = Q::storage(db).inner.borrow_mut();
            st.slots.reserve(self.ids.len());
            st.map.reserve(self.ids.len());
        }
        for id in self.ids {
            if let Some(key) = crate::fetch::key_of::<Q>(db, id) {
                each(key);
            }
        }
    }
}

/// Re-executes loaded node `id` (rustc's "force"); `false` if its key is lost.
fn force<Db: Database>(db: &Db, id: NodeId) -> bool {
    let kind = db.runtime().graph.borrow().node(id).kind;
    Db::KINDS
        .get(kind as usize)
        .is_some_and(|vt| (vt.force)(db, id))
}

/// Runs `f` at the top level for the session's start, which re-executes nodes the
/// embedder did not ask for. `false` if `f` could not finish: it met a cycle without a
/// fallback, or a read of an input this session no longer sets (which unwinds with
/// [`UnsetInput`] here instead of panicking). The caller then drops the node's memo, so
/// that a later read executes it and reports the embedder's error if it is one.
fn speculatively<Db: Database>(db: &Db, f: impl FnOnce() -> bool) -> bool {
    let rt = db.runtime();
    rt.session.borrow_mut().speculative = true;
    let r = catch_unwind(AssertUnwindSafe(|| crate::fetch::top_level(db, f)));
    rt.session.borrow_mut().speculative = false;
    match r {
        Ok(r) => r.unwrap_or(false),
        Err(payload) if payload.is::<UnsetInput>() => false,
        Err(payload) => resume_unwind(payload),
    }
}

/// Whether every memo loaded from the cache is known valid or was brought up to date in
/// the current revision: the session started on a loaded cache, pushed every change, no
/// loaded record was found damaged (a change could not be pushed past it), and nothing
/// changed since.
pub(crate) fn complete(rt: &Runtime) -> bool {
    let s = rt.session.borrow();
    s.started
        && s.loaded > 0
        && s.push.is_none()
        && !rt.damaged_record.get()
        && s.clean_rev == Some(rt.revision.get())
}

/// What the session's start did, for statistics.
pub(crate) fn counts(rt: &Runtime) -> (u64, u64) {
    let s = rt.session.borrow();
    (s.seeds, s.pushed)
}
