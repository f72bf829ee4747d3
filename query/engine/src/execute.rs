//! Executing a query's provider: a new frame on the stack collects the reads in order;
//! afterwards the result is fingerprinted, compared with the old one (early cutoff) and
//! memoized with its dependency edges.

use crate::backdate::{result_changed, OldMemo};
use crate::cycle::{abandon_frames, CycleUnwind};
use crate::dep_graph::{flags, Graph, NodeId};
use crate::event::EventKind;
use crate::fingerprint::Fingerprint;
use crate::hasher::StableHasher;
use crate::query::{Database, Flags, Query};
use crate::runtime::{Frame, Runtime};
use crate::spill::SpillRef;
use crate::stats::Region;
use crate::Durability;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Executes `Q(key)` for `node` and memoizes the result. Returns the value and the
/// node's durability (what a read of it records), so that the caller need not look the
/// node up again.
pub(crate) fn execute<Q: Query>(db: &Q::Db, node: NodeId, key: Q::Key) -> (Q::Value, Durability) {
    let rt = db.runtime();
    let Some(provider) = Q::PROVIDER else {
        panic!(
            "the input `{}({key:?})` was read before it was set",
            Q::NAME
        )
    };
    let saved_flags = {
        let mut g = rt.graph.borrow_mut();
        let n = g.node_mut(node);
        let s = n.flags;
        // Invariant: a node is in progress exactly while it has a frame on the stack (a
        // read of an executing node is a cycle, caught before it gets here).
        debug_assert!(!s.contains(flags::IN_PROGRESS), "{n:?} executes twice");
        n.flags.insert(flags::IN_PROGRESS);
        s
    };
    // An `eval_always` query reads the outside world, which may change in any revision.
    let durability = if Q::FLAGS.contains(Flags::EVAL_ALWAYS) {
        Durability::Low
    } else {
        Durability::MAX
    };
    let profiler_depth = {
        let mut profiler = rt.profiler.borrow_mut();
        profiler.enter(Region::Provider(Q::KIND));
        profiler.depth()
    };
    let depth = {
        let mut stack = rt.stack.borrow_mut();
        let reads_start = stack.reads.len();
        stack.push(Frame {
            node,
            reads_start,
            durability,
            cycle: None,
            saved_flags,
        });
        stack.len() - 1
    };

    // Only a fallback reads the key afterwards: without one the key is moved into the
    // provider instead of cloned (a path, say: one allocation less per execution).
    let (arg, kept) = if Q::FALLBACK.is_some() {
        (key.clone(), Some(key))
    } else {
        (key, None)
    };
    // Providers recurse through queries as deep as the input's dependency chains (a chain
    // of constants): the stack grows on the heap instead of overflowing (rustc's
    // `ensure_sufficient_stack`).
    let run = || ensure_sufficient_stack(|| provider(db, arg));
    let computed = if Q::FALLBACK.is_some() {
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(v) => Some(v),
            Err(payload) => {
                let ours = payload.is::<CycleUnwind>()
                    && rt
                        .stack
                        .borrow()
                        .get(depth)
                        .is_some_and(|f| f.cycle.is_some());
                if !ours {
                    resume_unwind(payload);
                }
                // A participant of this frame's cycle had no fallback: recover here.
                abandon_frames(rt, depth + 1);
                rt.profiler
                    .borrow_mut()
                    .unwind_to(profiler_depth, &mut rt.stats.borrow_mut());
                None
            }
        }
    } else {
        Some(run())
    };

    let frame = rt
        .stack
        .borrow_mut()
        .pop()
        .expect("the executing frame is on the stack");
    debug_assert_eq!(
        frame.node, node,
        "the executing frame is the top of the stack"
    );
    debug_assert!(rt.graph.borrow().node(node).has(flags::IN_PROGRESS));
    let hash_now = Q::HASH.is_some() && rt.hash_on_execute();
    let keep = hash_now && rt.persists();
    if hash_now {
        rt.profiler
            .borrow_mut()
            .switch(fingerprint_region::<Q>(keep), &mut rt.stats.borrow_mut());
    } else {
        rt.profiler.borrow_mut().exit(&mut rt.stats.borrow_mut());
    }
    // A fallback may read queries, and those reads are the caller's (this frame is off the
    // stack): the frame's own reads leave the shared buffer first.
    let falls_back = Q::FALLBACK.is_some() && (frame.cycle.is_some() || computed.is_none());
    let detached = falls_back.then(|| {
        rt.stack
            .borrow_mut()
            .reads
            .drain(frame.reads_start..)
            .collect::<Vec<_>>()
    });
    let value = match (&frame.cycle, Q::FALLBACK, computed) {
        (Some(cycle), Some(fallback), _) => fallback(db, cycle, key_kept(&kept)),
        (_, _, Some(v)) => v,
        (None, Some(fallback), None) => {
            // Unreachable in practice (we only recover for our own cycle); stay total.
            fallback(db, &crate::Cycle { frames: Vec::new() }, key_kept(&kept))
        }
        (Some(_), None, None) | (None, None, None) => {
            resume_unwind(Box::new("query frame lost its value"))
        }
    };
    let (new_fp, encoded) = if hash_now {
        let (fp, encoded) = fingerprint_raw::<Q>(rt, &value, keep);
        rt.profiler.borrow_mut().exit(&mut rt.stats.borrow_mut());
        (Some(fp), encoded)
    } else {
        (None, None)
    };
    finish::<Q>(db, node, frame, detached, value, new_fp, encoded)
}

/// The key kept by an execution of a query with a fallback (its provider got a clone).
fn key_kept<K>(key: &Option<K>) -> &K {
    key.as_ref()
        .expect("a query with a fallback keeps its key for it")
}

/// Memoizes `value` for `node`, whose frame `frame` was popped. Its reads are
/// `reads[frame.reads_start..]` in the runtime's buffer, or `detached` if they were taken
/// out of it. Returns the value and the durability it was memoized with.
fn finish<Q: Query>(
    db: &Q::Db,
    node: NodeId,
    frame: Frame,
    detached: Option<Vec<NodeId>>,
    value: Q::Value,
    mut new_fp: Option<Fingerprint>,
    mut encoded: Option<SpillRef>,
) -> (Q::Value, Durability) {
    let rt = db.runtime();
    let (old_flags, old_fp, old_durability, old_verified, slot) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        (
            frame.saved_flags,
            n.fp(),
            n.durability,
            n.verified_at,
            n.slot,
        )
    };
    let had_memo = old_flags.contains(flags::MEMO);
    let slot = slot.expect("an executing node has a slot (its key)");
    // A released value read again while its memo is valid in this revision: the provider
    // read nothing that changed, so the value is equal to the released one (see `release`).
    let recomputed = had_memo
        && old_flags.contains(flags::RELEASED)
        && old_verified == rt.revision.get()
        && frame.cycle.is_none();
    let changed = if recomputed {
        // A fingerprint that differs all the same (an untracked read) is a change. (The
        // released value was hashed when it was released, see `release`.)
        if new_fp.is_none() {
            new_fp = if Q::HASH.is_some() && old_fp.is_some() && rt.cutoff_by_fingerprint(Q::FLAGS)
            {
                let (fp, bytes) = fingerprint::<Q>(rt, &value, rt.persists());
                encoded = bytes;
                Some(fp)
            } else {
                old_fp
            };
        }
        old_fp.zip(new_fp).is_some_and(|(a, b)| a != b)
    } else {
        let st = Q::storage(db).inner.borrow();
        let old_value = st.slot(slot).value.as_ref();
        let old = had_memo.then_some(OldMemo {
            fingerprint: old_fp,
            durability: old_durability,
            value: old_value,
        });
        let mut fp_on_demand = || {
            if new_fp.is_none() && Q::HASH.is_some() {
                let (fp, bytes) = fingerprint::<Q>(rt, &value, rt.persists());
                (new_fp, encoded) = (Some(fp), bytes);
            }
            new_fp
        };
        result_changed::<Q>(rt, old, &value, frame.durability, &mut fp_on_demand)
    };
    let rev = rt.revision.get();
    let cyclic = frame.cycle.is_some();
    {
        let mut g = rt.graph.borrow_mut();
        match detached {
            Some(deps) => store_deps::<Q>(rt, &mut g, node, &deps),
            None => {
                // The frame was the innermost: the reads from its start on are its own.
                let mut stack = rt.stack.borrow_mut();
                let reads = &mut stack.reads;
                store_deps::<Q>(rt, &mut g, node, &reads[frame.reads_start..]);
                reads.truncate(frame.reads_start);
            }
        }
        let n = g.node_mut(node);
        let mut f = frame.saved_flags;
        f.remove(flags::IN_PROGRESS | flags::RELEASED);
        f.insert(flags::MEMO);
        f.set(flags::CYCLIC, cyclic);
        f.set(flags::HAS_FP, new_fp.is_some());
        n.fingerprint = new_fp.unwrap_or(Fingerprint::ZERO);
        n.flags = f;
        n.durability = frame.durability;
        n.verified_at = rev;
        if changed {
            n.changed_at = rev;
        }
        n.debug_check();
    }
    if changed {
        crate::session::note_changed(rt, node);
    }
    crate::session::note_dirty(rt, node);
    if changed {
        Q::storage(db).changed.record(rev, slot);
    }
    {
        let mut st = Q::storage(db).inner.borrow_mut();
        let s = st.slot_mut(slot);
        s.value = Some(value.clone());
        s.encoded = encoded;
    }
    if rt.consumes[Q::KIND as usize] {
        crate::release::after_consumer(db, node);
    }
    crate::release::release_if_consumed::<Q>(db, node);
    {
        let mut stats = rt.stats.borrow_mut();
        let counters = &mut stats.kinds[Q::KIND as usize];
        counters.executed += 1;
        counters.recomputed += u64::from(recomputed);
    }
    if rt.events_on() {
        rt.node_event(db, EventKind::Executed, node);
    }
    (value, frame.durability)
}

/// Sets the edges of `node` (of query `Q`) to its reads `deps`, deduplicated as they are
/// appended to the edge list.
#[inline(always)]
fn store_deps<Q: Query>(rt: &Runtime, g: &mut Graph, node: NodeId, deps: &[NodeId]) {
    // Invariant: what a provider read is up to date in this revision (it was read through
    // `fetch`), unless it is executing (a read that closed a cycle).
    debug_assert!(
        deps.iter().all(|&d| {
            let dn = g.node(d);
            dn.verified_at == rt.revision.get() || dn.has(flags::IN_PROGRESS)
        }),
        "{} read a dependency that is not up to date",
        Q::NAME
    );
    let nodes = g.nodes.len();
    let mut seen = rt.seen.borrow_mut();
    g.set_deps_with(node, |edges| {
        dedup_in_order(&mut seen, nodes, deps, edges);
    });
}

/// The fingerprint of a value of `Q`, charged to `Q`'s hashing statistics.
pub(crate) fn hash_value<Q: Query>(rt: &Runtime, value: &Q::Value) -> Fingerprint {
    fingerprint::<Q>(rt, value, false).0
}

/// [`fingerprint_raw`], its time charged to `Q`'s hashing statistics (and the encoding
/// of kept bytes to its encoding statistics).
fn fingerprint<Q: Query>(
    rt: &Runtime,
    value: &Q::Value,
    keep: bool,
) -> (Fingerprint, Option<SpillRef>) {
    rt.profiler
        .borrow_mut()
        .enter(fingerprint_region::<Q>(keep));
    let out = fingerprint_raw::<Q>(rt, value, keep);
    rt.profiler.borrow_mut().exit(&mut rt.stats.borrow_mut());
    out
}

/// The region a fingerprint of a value of `Q` starts in: the encoding, for a value whose
/// fingerprint is of its encoding when the bytes are kept (`keep`) to be saved, as the
/// save would encode the value anyway; otherwise the hashing (an encoding made only to be
/// hashed is part of the hashing).
#[inline]
fn fingerprint_region<Q: Query>(keep: bool) -> Region {
    if keep && Q::CODEC.is_some() && Q::FLAGS.hashes_encoding() && Q::HASH.is_some() {
        Region::Encode(Q::KIND)
    } else {
        Region::Hash(Q::KIND)
    }
}

/// The fingerprint of a value of `Q`, counting the bytes (zero for a query that is not
/// hashed). A query whose fingerprint is of its encoding ([`Flags::hashes_encoding`]) is
/// encoded here, and with `keep` the bytes are given back too, to be saved as they are
/// instead of being encoded again. With `keep`, the caller opened the profiler region
/// [`fingerprint_region`] gives, and once the kept bytes are encoded that region goes on
/// as the hashing (one clock read); without, no time is recorded here.
pub(crate) fn fingerprint_raw<Q: Query>(
    rt: &Runtime,
    value: &Q::Value,
    keep: bool,
) -> (Fingerprint, Option<SpillRef>) {
    let Some(hash) = Q::HASH else {
        return (Fingerprint::ZERO, None);
    };
    let encoding = Q::CODEC.as_ref().filter(|_| Q::FLAGS.hashes_encoding());
    if encoding.is_none() {
        if let Some(fp) = (Q::OWN_FINGERPRINT)(value) {
            return (fp, None);
        }
    }
    let mut h = StableHasher::new(rt.options.hasher);
    let mut kept = None;
    match encoding {
        Some(codec) => {
            let mut buf = rt.encode_buf.take();
            buf.clear();
            let ok = (codec.encode)(value, &mut buf).is_ok();
            if keep {
                rt.profiler
                    .borrow_mut()
                    .encoded(Q::KIND, &mut rt.stats.borrow_mut());
            }
            if ok {
                h.write_blob(&buf);
                if keep {
                    kept = crate::cache_dir::keep_encoded(rt, &buf);
                }
            } else {
                // A value that cannot be encoded (a `Serialize` impl that fails) is not
                // saved either; it is still fingerprinted, by its own hash.
                h.write_u64(0x0bad_c0de_0bad_c0de);
                hash(value, &mut h);
            }
            rt.encode_buf.replace(buf);
        }
        None => hash(value, &mut h),
    }
    rt.stats.borrow_mut().kinds[Q::KIND as usize].hashed_bytes += h.bytes_hashed();
    (h.finish(), kept)
}

/// The fingerprint of the value of `node` in memory (for verify mode and saving).
pub(crate) fn hash_value_of<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Fingerprint> {
    Q::HASH?;
    let rt = db.runtime();
    let slot = rt.graph.borrow().node(node).slot?;
    let value = Q::storage(db).inner.borrow().slot(slot).value.clone()?;
    Some(hash_value::<Q>(rt, &value))
}

/// Re-executes `node` (rustc's "force"), for a dependency that could not be marked green.
/// `false` if its key cannot be recovered (then the dependent must re-execute).
pub(crate) fn force<Q: Query>(db: &Q::Db, node: NodeId) -> bool {
    if Q::FLAGS.contains(Flags::INPUT) {
        return false;
    }
    match crate::fetch::key_of::<Q>(db, node) {
        Some(key) => {
            execute::<Q>(db, node, key);
            true
        }
        None => false,
    }
}

/// Whether query kind `kind` is an input.
pub(crate) fn is_input(rt: &Runtime, kind: u16) -> bool {
    rt.kind_flags
        .get(kind as usize)
        .is_some_and(|f| f.contains(Flags::INPUT))
}

/// Runs `f`, first moving to a new stack segment if less than 128 KiB of stack is left.
#[inline]
pub(crate) fn ensure_sufficient_stack<R>(f: impl FnOnce() -> R) -> R {
    const RED_ZONE: usize = 128 * 1024;
    const NEW_SEGMENT: usize = 4 * 1024 * 1024;
    match crate::stack::remaining() {
        Some(left) if left >= RED_ZONE => f(),
        Some(_) => crate::stack::grow(NEW_SEGMENT, f),
        None => stacker::maybe_grow(RED_ZONE, NEW_SEGMENT, f),
    }
}

/// Appends `deps` to `out` without repeated reads, keeping the first of each:
/// re-validation walks each dependency once, in the order it was first read (rustc
/// deduplicates reads the same way). Returns how many were appended. Long lists are
/// checked against `seen`, a bit per node (`nodes` of them), all clear between uses.
/// The kept reads are written straight into `out`'s spare capacity: this runs once per
/// execution, and a `push` per read (a length and capacity check each) or a copy of the
/// kept reads afterwards cost more than the deduplication itself.
fn dedup_in_order(
    seen: &mut Vec<u64>,
    nodes: usize,
    deps: &[NodeId],
    out: &mut Vec<NodeId>,
) -> usize {
    if deps.len() <= 1 {
        out.extend_from_slice(deps);
        return deps.len();
    }
    if deps.len() > 16 && seen.len() < nodes.div_ceil(64) {
        seen.resize(nodes.div_ceil(64), 0);
    }
    out.reserve(deps.len());
    let spare = &mut out.spare_capacity_mut()[..deps.len()];
    let mut kept = 0;
    if deps.len() <= 16 {
        // A bit per node index modulo 64, set for every read so far: a read whose bit is
        // clear was not read before, and only the others are looked for among the
        // earlier reads (a repeat of an earlier read is a repeat of a kept one).
        let mut maybe_read = 0u64;
        for (i, &d) in deps.iter().enumerate() {
            let bit = 1u64 << (d.index() % 64);
            if maybe_read & bit == 0 || !deps[..i].contains(&d) {
                maybe_read |= bit;
                spare[kept].write(d);
                kept += 1;
            }
        }
    } else {
        for &d in deps {
            let (word, bit) = (d.index() / 64, 1u64 << (d.index() % 64));
            let w = &mut seen[word];
            if *w & bit == 0 {
                *w |= bit;
                spare[kept].write(d);
                kept += 1;
            }
        }
    }
    let start = out.len();
    // SAFETY: `spare` is the start of `out`'s spare capacity (reserved above), and its
    // first `kept` elements were written in the loop: they are initialized `NodeId`s.
    unsafe { out.set_len(start + kept) };
    if deps.len() > 16 {
        for d in &out[start..] {
            seen[d.index() / 64] = 0;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dedup(reads: &[u32]) -> (Vec<u32>, Vec<u64>) {
        let mut seen = Vec::new();
        let deps: Vec<NodeId> = reads.iter().map(|&i| NodeId(i)).collect();
        // Appended after what the list holds already, which is left as it is.
        let mut out = vec![NodeId(3), NodeId(1)];
        let kept = dedup_in_order(&mut seen, 200, &deps, &mut out);
        assert_eq!(out.len(), kept + 2);
        assert_eq!(out[..2], [NodeId(3), NodeId(1)]);
        (out[2..].iter().map(|d| d.0).collect(), seen)
    }

    #[test]
    fn repeated_reads_are_kept_once_in_first_read_order() {
        assert_eq!(dedup(&[]).0, Vec::<u32>::new());
        assert_eq!(dedup(&[7]).0, [7]);
        assert_eq!(dedup(&[3, 1, 3, 2, 1, 3]).0, [3, 1, 2]);
        // Indices 64 apart share a bit of the short lists' filter.
        assert_eq!(dedup(&[5, 69, 133, 69, 5, 197, 133]).0, [5, 69, 133, 197]);
        // A long list (past the short lists' 16) goes through the bit set, which is left
        // clear for the next use.
        let long: Vec<u32> = (0..40).map(|i| (i * 7) % 13 + 100).collect();
        let (kept, seen) = dedup(&long);
        let mut expected = Vec::new();
        for &r in &long {
            if !expected.contains(&r) {
                expected.push(r);
            }
        }
        assert_eq!(kept, expected);
        assert_eq!(kept.len(), 13);
        assert!(seen.len() >= 200usize.div_ceil(64) && seen.iter().all(|&w| w == 0));
    }
}
