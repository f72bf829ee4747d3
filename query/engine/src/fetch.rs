//! Fetching a query's value: the cached fast path, then (cold) red-green re-validation,
//! a lazy load from the on-disk cache, or execution.

use crate::cycle::{abandon_frames, cycle_detected, Cycle, CycleUnwind};
use crate::dep_graph::{flags, Node, NodeId};
use crate::event::EventKind;
use crate::hasher::StableHasher;
use crate::query::{key_hash, key_hash_of, Database, Query};
use crate::stats::Region;
use crate::Durability;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// The value of query `Q` for `key`, recording the read as a dependency of the executing
/// query. Panics only if a cycle has no fallback (see [`crate::cycle`]) or an input is
/// read before it is set: both are bugs of the embedder, not of its input.
#[inline]
pub fn fetch<Q: Query>(db: &Q::Db, key: Q::Key) -> Q::Value {
    let hash = key_hash::<Q>(&key);
    // The hit returns the clone directly, with no `Result` around it to move the value
    // through (values like name bindings are several words).
    let node = {
        let rt = db.runtime();
        let st = Q::storage(db).inner.borrow();
        match cached_slot::<Q>(rt, &st, hash, &key) {
            Ok((v, node, durability)) => {
                let v = v.clone();
                drop(st);
                rt.record_read(node, durability);
                return v;
            }
            Err(node) => node,
        }
    };
    fetch_slow::<Q>(db, hash, node, key)
}

/// Like [`fetch`], but a cycle that no participant recovers from is returned as an error
/// (at the top level; inside a provider it unwinds to the caller's recovery).
pub fn try_query<Q: Query>(db: &Q::Db, key: Q::Key) -> Result<Q::Value, Cycle> {
    let hash = key_hash::<Q>(&key);
    let node = match try_cached::<Q>(db, hash, &key) {
        Ok(v) => return Ok(v),
        Err(node) => node,
    };
    let rt = db.runtime();
    if !rt.stack.borrow().is_empty() {
        return Ok(fetch_cold::<Q>(db, hash, node, key));
    }
    crate::session::start(db);
    let node = node.or_else(|| find_node::<Q>(db, hash, &key));
    top_level(db, || fetch_cold::<Q>(db, hash, node, key))
}

/// Like [`fetch`], but gives `f` a reference to the value instead of a clone of it: a
/// read that only looks at part of a value (a field behind an `Arc`) costs no clone and
/// drop of the whole. On a memo hit `f` runs while the query's storage is borrowed, so it
/// must not read queries (it is a projection of the value).
#[inline]
pub(crate) fn fetch_with<Q: Query, R>(
    db: &Q::Db,
    key: Q::Key,
    f: impl FnOnce(&Q::Value) -> R,
) -> R {
    let hash = key_hash::<Q>(&key);
    let node = {
        let rt = db.runtime();
        let st = Q::storage(db).inner.borrow();
        match cached_slot::<Q>(rt, &st, hash, &key) {
            Ok((v, node, durability)) => {
                rt.record_read(node, durability);
                return f(v);
            }
            Err(node) => node,
        }
    };
    f(&fetch_slow::<Q>(db, hash, node, key))
}

/// The hot path: the key (whose [`key_hash`] is `hash`) is in memory with a value
/// verified in this revision. Otherwise its node if it has one, for the cold path.
#[inline]
fn try_cached<Q: Query>(db: &Q::Db, hash: u64, key: &Q::Key) -> Result<Q::Value, Option<NodeId>> {
    let rt = db.runtime();
    let st = Q::storage(db).inner.borrow();
    let (v, node, durability) = cached_slot::<Q>(rt, &st, hash, key)?;
    let v = v.clone();
    drop(st);
    rt.record_read(node, durability);
    Ok(v)
}

/// The value of the key (whose [`key_hash`] is `hash`) if it is in memory and verified in
/// this revision, with its node and durability; otherwise its node if it has one.
#[inline]
fn cached_slot<'s, Q: Query>(
    rt: &crate::Runtime,
    st: &'s crate::query::StorageInner<Q>,
    hash: u64,
    key: &Q::Key,
) -> Result<(&'s Q::Value, NodeId, Durability), Option<NodeId>> {
    let slot = st.find(hash, key).ok_or(None)?;
    let s = st.slot(slot);
    let Some(v) = s.value.as_ref() else {
        return Err(Some(s.node));
    };
    let g = rt.graph.borrow();
    let n = g.node(s.node);
    if n.verified_at != rt.revision.get() || n.has(flags::IN_PROGRESS) {
        return Err(Some(s.node));
    }
    Ok((v, s.node, n.durability))
}

#[inline(never)]
fn fetch_slow<Q: Query>(db: &Q::Db, hash: u64, node: Option<NodeId>, key: Q::Key) -> Q::Value {
    let rt = db.runtime();
    if !rt.stack.borrow().is_empty() {
        return fetch_cold::<Q>(db, hash, node, key);
    }
    crate::session::start(db);
    // The start of a session may have given loaded nodes their slots: look again.
    let node = node.or_else(|| find_node::<Q>(db, hash, &key));
    match top_level(db, || fetch_cold::<Q>(db, hash, node, key)) {
        Ok(v) => v,
        Err(cycle) => panic!(
            "{}\n(no query on the cycle has a `cycle_fallback`)",
            cycle.render(db)
        ),
    }
}

/// Runs a top-level read, cleaning up after an unwind (a cycle without recovery or a panic
/// in a provider) so that the database stays usable.
pub(crate) fn top_level<Db: Database, T>(db: &Db, f: impl FnOnce() -> T) -> Result<T, Cycle> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => {
            db.runtime().debug_check_idle();
            Ok(v)
        }
        Err(payload) => {
            let rt = db.runtime();
            abandon_frames(rt, 0);
            // Reads of a frame popped before the unwind are no one's.
            rt.drop_reads(0);
            rt.profiler
                .borrow_mut()
                .unwind_to(0, &mut rt.stats.borrow_mut());
            rt.debug_check_idle();
            match payload.downcast::<CycleUnwind>() {
                Ok(c) => Err((*c.0).clone()),
                Err(payload) => resume_unwind(payload),
            }
        }
    }
}

/// The cold path of a read of `Q(key)`, whose [`key_hash`] is `hash`; `node` is its node
/// if the hot path found one (a slot, once made, stays). `None` means the key has no slot:
/// the caller looked it up since anything last made slots.
pub(crate) fn fetch_cold<Q: Query>(
    db: &Q::Db,
    hash: u64,
    node: Option<NodeId>,
    key: Q::Key,
) -> Q::Value {
    let rt = db.runtime();
    let node = match node {
        Some(node) => node,
        None => new_slot::<Q>(db, hash, &key),
    };
    let (nflags, verified_at, durability) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        (n.flags, n.verified_at, n.durability)
    };
    if nflags.contains(flags::IN_PROGRESS) {
        return cycle_detected::<Q>(db, node, &key);
    }
    let rev = rt.revision.get();
    if Q::FLAGS.contains(crate::Flags::INPUT) {
        let value = value_in_slot::<Q>(db, node);
        match value {
            Some(v) if nflags.contains(flags::INPUT_SET) => {
                rt.graph.borrow_mut().node_mut(node).verified_at = rev;
                rt.record_read(node, durability);
                return v;
            }
            _ if rt.session.borrow().speculative => {
                resume_unwind(Box::new(crate::session::UnsetInput))
            }
            _ => panic!(
                "the input `{}({key:?})` was read before it was set",
                Q::NAME
            ),
        }
    }
    let valid = nflags.contains(flags::MEMO)
        && (verified_at == rev || crate::maybe_changed_after::try_mark_green::<Q::Db>(db, node));
    if valid {
        if let Some(v) = value_in_slot::<Q>(db, node) {
            let d = rt.graph.borrow().node(node).durability;
            rt.record_read(node, d);
            return v;
        }
        if let Some(v) = load_from_disk::<Q>(db, node) {
            let d = rt.graph.borrow().node(node).durability;
            rt.record_read(node, d);
            return v;
        }
    }
    let (v, d) = crate::execute::execute::<Q>(db, node, key);
    rt.record_read(node, d);
    v
}

fn value_in_slot<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Q::Value> {
    let slot = db.runtime().graph.borrow().node(node).slot?;
    Q::storage(db).inner.borrow().slot(slot).value.clone()
}

/// The node of `Q(key)`, creating the slot (and the node, unless the previous session had
/// one with the same stable key hash) on first use.
pub(crate) fn node_for_key<Q: Query>(db: &Q::Db, key: &Q::Key) -> NodeId {
    node_for_hashed_key::<Q>(db, key_hash::<Q>(key), key)
}

/// [`node_for_key`] for a key whose [`key_hash`] is `hash`.
fn node_for_hashed_key<Q: Query>(db: &Q::Db, hash: u64, key: &Q::Key) -> NodeId {
    match find_node::<Q>(db, hash, key) {
        Some(node) => node,
        None => new_slot::<Q>(db, hash, key),
    }
}

/// The node of `Q(key)` if the key has a slot; its [`key_hash`] is `hash`.
fn find_node<Q: Query>(db: &Q::Db, hash: u64, key: &Q::Key) -> Option<NodeId> {
    let st = Q::storage(db).inner.borrow();
    st.find(hash, key).map(|slot| st.slot(slot).node)
}

#[inline(never)]
fn new_slot<Q: Query>(db: &Q::Db, hash: u64, key: &Q::Key) -> NodeId {
    let rt = db.runtime();
    // A key's fingerprint finds its node among the loaded ones; a save computes those
    // of the new nodes from their keys (`cache_dir::key_fps_of_new_nodes`).
    let loaded = if rt.prev.is_some() {
        crate::cache_dir::lookup(rt, Q::KIND, hash_key::<Q>(db, key))
    } else {
        None
    };
    let mut g = rt.graph.borrow_mut();
    let node = match loaded {
        Some(id) => id,
        None => g.push(Node::new(Q::KIND)),
    };
    let slot = Q::storage(db).inner.borrow_mut().push(hash, key, node);
    g.node_mut(node).slot = Some(slot);
    node
}

/// The key fingerprint of `node` (of query `Q`), from its key in the storage; `None` if
/// the key is not there.
pub(crate) fn key_fp_of<Q: Query>(db: &Q::Db, node: NodeId) -> Option<crate::Fingerprint> {
    let slot = db.runtime().graph.borrow().node(node).slot?;
    let st = Q::storage(db).inner.borrow();
    Some(hash_key::<Q>(db, &st.slot(slot).key))
}

fn hash_key<Q: Query>(db: &Q::Db, key: &Q::Key) -> crate::Fingerprint {
    if let Some(fp) = crate::StableHash::<Q::Db>::key_fingerprint(key) {
        return fp;
    }
    let rt = db.runtime();
    let mut h = StableHasher::new(rt.options.hasher);
    crate::StableHash::<Q::Db>::stable_hash(key, &mut h);
    rt.stats.borrow_mut().kinds[Q::KIND as usize].hashed_bytes += h.bytes_hashed();
    h.finish()
}

/// The key of `node` (of query `Q`): from the storage, or decoded from the previous
/// session's cache (then put in the storage). `None` if it cannot be recovered.
pub(crate) fn key_of<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Q::Key> {
    let rt = db.runtime();
    let (slot, prev) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        (n.slot, n.prev)
    };
    if let Some(slot) = slot {
        return Some(Q::storage(db).inner.borrow().slot(slot).key.clone());
    }
    // The node's record was checked when it was loaded (that is where `prev` and
    // `key_fp` come from), and the decoded key must hash to the record's key fingerprint.
    let prev = prev?;
    let key_fp = rt.graph.borrow().key_fp(node);
    let bytes = rt.prev.as_ref()?.loaded_key_bytes(prev)?;
    let key: Q::Key = crate::query::codec_decode(bytes).ok()?;
    let own = crate::StableHash::<Q::Db>::key_fingerprint(&key);
    let fp = match own {
        Some(fp) => fp,
        None => hash_key::<Q>(db, &key),
    };
    if fp != key_fp {
        // A damaged cache whose key bytes no longer match the node's identity.
        return None;
    }
    let hash = key_hash_of::<Q>(&key, key_fp, own.is_some());
    let mut st = Q::storage(db).inner.borrow_mut();
    if st.find(hash, &key).is_some() {
        // Another node already stands for this key: this one is a stale duplicate.
        return None;
    }
    let mut g = rt.graph.borrow_mut();
    let slot = st.push(hash, &key, node);
    g.node_mut(node).slot = Some(slot);
    Some(key)
}

/// `Debug` of the key of `node`, for events and cycle errors.
pub(crate) fn key_debug<Q: Query>(db: &Q::Db, node: NodeId) -> String {
    match key_of::<Q>(db, node) {
        Some(k) => format!("{k:?}"),
        None => "<unknown key>".to_string(),
    }
}

/// Decodes the value of a green `cache_on_disk` node from the previous session's cache.
fn load_from_disk<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Q::Value> {
    let codec = Q::CODEC.as_ref()?;
    let rt = db.runtime();
    let (prev, slot, changed_at) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        (n.prev, n.slot, n.changed_at)
    };
    // Only a value never re-executed in this session is the one on disk.
    if changed_at != crate::Revision::PREVIOUS_SESSION {
        return None;
    }
    let bytes = match rt.prev.as_ref()?.value(prev?)? {
        Ok(b) => b,
        Err(_) => {
            rt.warn(format!(
                "query cache: the value of `{}` is damaged; recomputing it",
                Q::NAME
            ));
            return None;
        }
    };
    rt.profiler.borrow_mut().enter(Region::Load(Q::KIND));
    let decoded = (codec.decode)(bytes);
    rt.profiler.borrow_mut().exit(&mut rt.stats.borrow_mut());
    match decoded {
        Ok(v) => {
            let slot = slot.expect("a node with a memo in use has a slot");
            Q::storage(db).inner.borrow_mut().slot_mut(slot).value = Some(v.clone());
            rt.graph
                .borrow_mut()
                .node_mut(node)
                .flags
                .remove(flags::RELEASED);
            rt.stats.borrow_mut().kinds[Q::KIND as usize].loaded += 1;
            if rt.events_on() {
                rt.node_event(db, EventKind::Loaded, node);
            }
            Some(v)
        }
        Err(e) => {
            rt.warn(format!(
                "query cache: cannot decode the value of `{}`: {e}; recomputing it",
                Q::NAME
            ));
            None
        }
    }
}

/// Sets input `Q(key)` to `value`. If the value is the same as before (by fingerprint, or
/// `==` under equality cutoff), nothing changes; otherwise a new revision starts.
pub fn set_input<Q: Query>(db: &mut Q::Db, key: Q::Key, value: Q::Value, durability: Durability) {
    let db = &*db;
    let rt = db.runtime();
    let node = node_for_key::<Q>(db, &key);
    let new_fp = Q::HASH.map(|_| crate::execute::hash_value::<Q>(rt, &value));
    let old_value = value_in_slot::<Q>(db, node);
    let mut g = rt.graph.borrow_mut();
    let n = g.node_mut(node);
    let had_memo = n.has(flags::MEMO);
    // Dependents were validated against the old durability: a change is announced at the
    // higher of the two levels.
    let announce = if had_memo {
        n.durability.max(durability)
    } else {
        durability
    };
    let unchanged = if !had_memo || n.durability != durability {
        false
    } else if let Some(old) = &old_value {
        let eq_mode = rt.options.cutoff == crate::Cutoff::Equality
            || Q::FLAGS.contains(crate::Flags::BACKDATE_EQ);
        if eq_mode || new_fp.is_none() {
            *old == value
        } else {
            n.fp() == new_fp
        }
    } else {
        new_fp.is_some() && n.fp() == new_fp
    };
    let mut rev = rt.revision.get();
    if !unchanged {
        rev = rev.next();
        rt.revision.set(rev);
        let mut lc = rt.last_changed.get();
        lc.record(announce, rev);
        rt.last_changed.set(lc);
        n.changed_at = rev;
    }
    n.verified_at = rev;
    n.durability = durability;
    n.flags.insert(flags::MEMO | flags::INPUT_SET);
    n.flags.set(flags::HAS_FP, new_fp.is_some());
    if let Some(fp) = new_fp {
        n.fingerprint = fp;
    }
    n.debug_check();
    let slot = n.slot.expect("`node_for_key` gives a node with a slot");
    drop(g);
    crate::session::note_dirty(rt, node);
    let mut st = Q::storage(db).inner.borrow_mut();
    let s = st.slot_mut(slot);
    s.value = Some(value);
    s.encoded = None;
}
