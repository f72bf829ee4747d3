//! Which keys of a query changed in this session, and bringing a query up to date without
//! reading its value (rustc's `ensure`): what an embedder needs to redo only the work
//! downstream of the changes (the Rill driver's incremental linker).
//!
//! A key is recorded when its provider's result counts as changed, where `execute` sets
//! the node's `changed_at`: a different fingerprint (or unequal value) than the memo it
//! replaces, or no memo before. The log is per query kind and grows with the changes
//! only; reading it costs as much.

use crate::cycle::abandon_frames;
use crate::dep_graph::{flags, SlotIndex};
use crate::fetch::{fetch, node_for_key};
use crate::maybe_changed_after::try_mark_green;
use crate::query::{Database, Flags, Query};
use crate::revision::Revision;
use rustc_hash::FxHashSet;
use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// The changes of one query kind: the revision and the key's slot, in order.
#[derive(Default)]
pub(crate) struct ChangeLog(RefCell<Vec<(Revision, SlotIndex)>>);

impl ChangeLog {
    pub(crate) fn record(&self, rev: Revision, slot: SlotIndex) {
        self.0.borrow_mut().push((rev, slot));
    }
}

/// The keys of `Q` that changed in revisions after `after`, each once, in order.
pub(crate) fn changed_keys<Q: Query>(db: &Q::Db, after: Revision) -> Vec<Q::Key> {
    let storage = Q::storage(db);
    let log = storage.changed.0.borrow();
    let inner = storage.inner.borrow();
    // The log is in revision order: skip the older part by binary search.
    let start = log.partition_point(|&(rev, _)| rev <= after);
    let mut seen: FxHashSet<SlotIndex> = FxHashSet::default();
    log[start..]
        .iter()
        .filter(|&&(_, slot)| seen.insert(slot))
        .map(|&(_, slot)| inner.slot(slot).key.clone())
        .collect()
}

/// Brings `Q(key)` up to date; reads (and so decodes or executes) its value only if it is
/// not green.
pub(crate) fn ensure<Q: Query>(db: &Q::Db, key: Q::Key) {
    let rt = db.runtime();
    if Q::FLAGS.contains(Flags::INPUT) || !rt.stack.borrow().is_empty() {
        fetch::<Q>(db, key);
        return;
    }
    crate::session::start(db);
    let node = node_for_key::<Q>(db, &key);
    let (nflags, verified_at) = {
        let g = rt.graph.borrow();
        let n = g.node(node);
        (n.flags, n.verified_at)
    };
    if nflags.contains(flags::MEMO) && !nflags.contains(flags::IN_PROGRESS) {
        let green = verified_at == rt.revision.get()
            || match catch_unwind(AssertUnwindSafe(|| try_mark_green::<Q::Db>(db, node))) {
                Ok(green) => green,
                Err(payload) => {
                    // Leave the database usable, as a top-level read does.
                    abandon_frames(rt, 0);
                    rt.profiler
                        .borrow_mut()
                        .unwind_to(0, &mut rt.stats.borrow_mut());
                    resume_unwind(payload)
                }
            };
        if green {
            // A top-level use: what the saved graph keeps (see `flags::ROOT`).
            let newly = {
                let mut g = rt.graph.borrow_mut();
                let n = g.node_mut(node);
                let newly = !n.has(flags::ROOT);
                n.flags.insert(flags::ROOT);
                newly
            };
            if newly {
                crate::session::note_dirty(rt, node);
            }
            return;
        }
    }
    fetch::<Q>(db, key);
}
