//! Red-green re-validation (rustc's `try_mark_green`, salsa's `maybe_changed_after` and
//! `deep_verify_memo`).
//!
//! A memo verified at revision `v` is still valid at the current revision if every
//! dependency, brought up to date in the order it was read, did not change after `v`.
//! A dependency is brought up to date by marking it green the same way (recursively) or,
//! if that fails, by re-executing it, whose early cutoff may still find it unchanged.
//! The walk stops at the first changed dependency: the dependent must then re-execute,
//! and the dependencies after that one are not touched — they were read under a
//! condition that may no longer hold (`if q1() { q2() } else { q3() }`: when `q1`
//! changed, `q3` is not forced).
//!
//! Two shortcuts skip the walk: durability (no input of the memo's durability or higher
//! changed since it was verified) and, for a memo loaded from the cache, the session's
//! clean rule (the start of the session pushed every change that could reach it, and none
//! did: see `session`).

use crate::dep_graph::{flags, NodeId, UNKNOWN_KIND};
use crate::event::EventKind;
use crate::execute::is_input;
use crate::query::{Database, Flags};
use crate::revision::Revision;
use crate::stats::Region;

/// Tries to re-validate the memo of `node` (which has one, verified before the current
/// revision) without executing it. On success the node is green at the current revision.
pub(crate) fn try_mark_green<Db: Database>(db: &Db, node: NodeId) -> bool {
    let rt = db.runtime();
    let rev = rt.revision.get();
    let (kind, nflags, verified_at, durability, order) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        (n.kind, n.flags, n.verified_at, n.durability, n.order)
    };
    if verified_at == rev {
        return nflags.contains(flags::MEMO);
    }
    if kind == UNKNOWN_KIND
        || nflags.intersects(flags::CYCLIC | flags::IN_PROGRESS)
        || !nflags.contains(flags::MEMO)
    {
        return false;
    }
    if rt.kind_flags[kind as usize].contains(Flags::EVAL_ALWAYS) {
        return false;
    }
    // Valid without a walk: nothing it may depend on changed since it was verified (by
    // durability), or it was loaded and the session's start found nothing below it
    // changed (the clean rule, see `session`).
    if !rt
        .last_changed
        .get()
        .unchanged_since(durability, verified_at)
        && !rt.is_clean(order, verified_at)
    {
        let timed = rt.profiler.borrow().top() != Some(Region::Bookkeeping);
        if timed {
            rt.profiler.borrow_mut().enter(Region::Bookkeeping);
        }
        let mut i = 0;
        let all_unchanged = loop {
            let dep = rt.graph.borrow().dep(node, i);
            let Some(dep) = dep else { break true };
            if changed_after(db, dep, verified_at) {
                break false;
            }
            i += 1;
        };
        if timed {
            rt.profiler.borrow_mut().exit(&mut rt.stats.borrow_mut());
        }
        if !all_unchanged {
            return false;
        }
        // Invariant: a memo is green only once each of its dependencies is (inputs: set
        // in this session), so the graph below a green node is up to date.
        debug_assert!(
            {
                let g = rt.graph.borrow();
                g.deps(node).iter().all(|&d| {
                    let dn = g.node(d);
                    if is_input(rt, dn.kind) {
                        dn.has(flags::INPUT_SET)
                    } else {
                        dn.verified_at == rev && dn.has(flags::MEMO)
                    }
                })
            },
            "{:?} is green above a dependency that is not",
            rt.graph.borrow().node(node)
        );
    }
    {
        let mut g = rt.graph.borrow_mut();
        let n = g.node_mut(node);
        n.verified_at = rev;
        n.debug_check();
    }
    rt.stats.borrow_mut().kinds[kind as usize].green += 1;
    if rt.consumes[kind as usize] {
        crate::release::after_consumer(db, node);
    }
    if rt.events_on() {
        rt.node_event(db, EventKind::Green, node);
    }
    crate::verify::after_green(db, node);
    true
}

/// Whether dependency `dep` changed after revision `after`, bringing it up to date first
/// (green, or re-executed: rustc's "force").
fn changed_after<Db: Database>(db: &Db, dep: NodeId, after: Revision) -> bool {
    let rt = db.runtime();
    crate::cache_dir::ensure(rt, dep);
    let rev = rt.revision.get();
    let (kind, nflags, verified_at, changed_at) = {
        let g = rt.graph.borrow();
        let n = g.node(dep);
        (n.kind, n.flags, n.verified_at, n.changed_at)
    };
    if kind == UNKNOWN_KIND || nflags.contains(flags::IN_PROGRESS) {
        return true;
    }
    if is_input(rt, kind) {
        // An input of the previous session that was not set in this one counts as changed.
        return !nflags.contains(flags::INPUT_SET) || changed_at > after;
    }
    if verified_at == rev && nflags.contains(flags::MEMO) {
        return changed_at > after;
    }
    if crate::execute::ensure_sufficient_stack(|| try_mark_green(db, dep)) {
        return rt.graph.borrow().node(dep).changed_at > after;
    }
    if !(Db::KINDS[kind as usize].force)(db, dep) {
        return true;
    }
    rt.graph.borrow().node(dep).changed_at > after
}
