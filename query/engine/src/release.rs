//! Releasing values that no one is expected to read again (`release_after` in the query
//! table): salsa's LRU eviction with a rule that needs no capacity. The memo stays — its
//! fingerprint, revisions and edges, so dependents are re-validated as before — and only
//! the value is dropped, once every query the table lists as its consumers is up to date
//! for the same key in the current revision. A query marked so holds its value from its
//! execution to its last consumer's, as a stage's data lives in the pipeline until the
//! next stage has consumed it.
//!
//! A later read of a released value re-executes the provider. When the memo is valid in
//! the current revision, that recomputation gives an equal value (providers are pure and
//! nothing they read changed): it counts as an execution (`executed`, and `recomputed`
//! in the statistics) but not as a change, so nothing downstream re-executes.

use crate::dep_graph::{flags, NodeId};
use crate::query::{Database, Flags, Query};

/// Whether query `C` is up to date for `key` in the current revision (a consumer's
/// entry of [`Query::CONSUMERS`], written by [`crate::define_queries!`]).
#[doc(hidden)]
pub fn __consumer_done<C: Query>(db: &C::Db, key: &C::Key) -> bool {
    let node = {
        let st = C::storage(db).inner.borrow();
        match st.get(key) {
            Some(slot) => st.slot(slot).node,
            None => return false,
        }
    };
    let rt = db.runtime();
    let g = rt.graph.borrow();
    let n = g.node(node);
    n.verified_at == rt.revision.get() && n.has(flags::MEMO) && !n.has(flags::IN_PROGRESS)
}

/// Releases the value of `node` (of query `Q`) if `Q` is marked `release_after` and every
/// consumer is up to date for its key.
pub(crate) fn release_if_consumed<Q: Query>(db: &Q::Db, node: NodeId) {
    if !Q::FLAGS.contains(Flags::RELEASE) || Q::CONSUMERS.is_empty() {
        return;
    }
    release_node::<Q>(db, node, &|db, key| {
        Q::CONSUMERS.iter().all(|done| done(db, key))
    });
}

/// Releases the value of `Q(key)` now, if it has one and its memo is up to date in the
/// current revision ([`crate::DatabaseExt::release`]): the embedder knows that nothing
/// will read it again, for readers of other keys or other queries than a `release_after`
/// list can name.
pub(crate) fn release_key<Q: Query>(db: &Q::Db, key: &Q::Key) -> bool {
    let node = {
        let st = Q::storage(db).inner.borrow();
        match st.get(key) {
            Some(slot) => st.slot(slot).node,
            None => return false,
        }
    };
    let rt = db.runtime();
    if rt.graph.borrow().node(node).verified_at != rt.revision.get() {
        return false;
    }
    release_node::<Q>(db, node, &|_, _| true)
}

/// Releases the value of `node` (of query `Q`) if it has a whole memo with a value and
/// `may(db, key)`; whether it did.
fn release_node<Q: Query>(db: &Q::Db, node: NodeId, may: &dyn Fn(&Q::Db, &Q::Key) -> bool) -> bool {
    let rt = db.runtime();
    let (slot, has_fp) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        if !n.has(flags::MEMO) || n.has(flags::IN_PROGRESS) {
            return false;
        }
        match n.slot {
            Some(slot) => (slot, n.has(flags::HAS_FP)),
            None => return false,
        }
    };
    {
        // The consumers read other queries' storages and the graph, not this storage:
        // the key is passed borrowed, not cloned.
        let st = Q::storage(db).inner.borrow();
        let s = st.slot(slot);
        if s.value.is_none() || !may(db, &s.key) {
            return false;
        }
    }
    let Some(value) = Q::storage(db)
        .inner
        .borrow_mut()
        .slot_mut(slot)
        .value
        .take()
    else {
        return false;
    };
    // Early cutoff by equality compares with the old value; without it, the fingerprint
    // stands for it (computed now if the execution did not hash the value), unless no
    // later revision will compare it (`Options::single_revision`).
    let fp = (Q::HASH.is_some() && !has_fp && !rt.options.single_revision)
        .then(|| crate::execute::hash_value::<Q>(rt, &value));
    {
        let mut g = rt.graph.borrow_mut();
        let n = g.node_mut(node);
        n.flags.insert(flags::RELEASED);
        if let Some(fp) = fp {
            n.fingerprint = fp;
            n.flags.insert(flags::HAS_FP);
        }
    }
    rt.stats.borrow_mut().kinds[Q::KIND as usize].released += 1;
    drop(value);
    true
}

/// Releases every value of `Q` that a save would not read from memory: a value whose
/// encoding is kept in the cache directory's spill file (see [`crate::spill`]), which the
/// save writes instead, or any value when `Q` is not persisted or `all` (nothing will be
/// saved). A value without a fingerprint stays unless no later revision compares it (as
/// [`release_node`] would hash it), and so do inputs' and `eval_always` queries'. Returns
/// how many were released.
pub(crate) fn release_unsaved<Q: Query>(db: &Q::Db, all: bool) -> usize {
    // An input has no provider to compute it again, and a query that reads what is not
    // tracked could compute another value: both stay.
    if Q::FLAGS.contains(Flags::INPUT) || Q::FLAGS.contains(Flags::EVAL_ALWAYS) {
        return 0;
    }
    let rt = db.runtime();
    let single = rt.options.single_revision;
    let any = all || Q::CODEC.is_none();
    // The values are dropped once the storage and the graph are no longer borrowed, as
    // `release_node` drops its one.
    let mut dropped = Vec::new();
    {
        let mut st = Q::storage(db).inner.borrow_mut();
        let mut g = rt.graph.borrow_mut();
        for s in st.slots.iter_mut() {
            if s.value.is_none() || !(any || s.encoded.is_some()) {
                continue;
            }
            let n = g.node_mut(s.node);
            if !n.has(flags::MEMO)
                || n.has(flags::IN_PROGRESS)
                || (!single && Q::HASH.is_some() && !n.has(flags::HAS_FP))
            {
                continue;
            }
            n.flags.insert(flags::RELEASED);
            dropped.extend(s.value.take());
        }
    }
    let released = dropped.len();
    rt.stats.borrow_mut().kinds[Q::KIND as usize].released += released as u64;
    drop(dropped);
    released
}

/// After a consumer executed or was marked green: releases the values among its
/// dependencies (its edges in the graph) whose consumers are now all up to date (an edit
/// cut off below a green consumer leaves the value it would have read unread).
pub(crate) fn after_consumer<Db: Database>(db: &Db, node: NodeId) {
    let rt = db.runtime();
    let mut i = 0;
    loop {
        // (The graph is borrowed only to find the edge: a release writes to it.)
        let (dep, kind) = {
            let g = rt.graph.borrow();
            let Some(dep) = g.dep(node, i) else { break };
            (dep, g.node(dep).kind)
        };
        if rt
            .kind_flags
            .get(kind as usize)
            .is_some_and(|f| f.contains(Flags::RELEASE))
        {
            (Db::KINDS[kind as usize].release)(db, dep);
        }
        i += 1;
    }
}
