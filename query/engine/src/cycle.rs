//! Cycles: a query that (transitively) reads itself.
//!
//! The design, in salsa's spirit, so that the outcome does not depend on which query of
//! the cycle was asked first (DESIGN.md Invariant 2: incremental equals from scratch):
//!
//! * A read of a query that is executing is a cycle. The frames from that query to the
//!   top of the stack are its participants; each is marked with the [`Cycle`], which lists
//!   them as (description, key) in call order.
//! * A query opts into recovery with the modifier `cycle_fallback(f)`, where
//!   `f: fn(&Db, &Cycle, &Key) -> Value` builds an error value (e.g. a diagnostic
//!   "cycle detected when evaluating `A`"). **Every participant that has a fallback gets
//!   its fallback value**, whatever its provider computed.
//! * The read that closed the cycle returns the fallback of the query it read, if that
//!   query has one. Otherwise the engine unwinds (a private panic payload) to the nearest
//!   participant with a fallback; the frames in between are abandoned, not memoized.
//! * Participants are memoized with a `CYCLIC` mark: they are never green by walking
//!   edges but re-execute whenever validated (the cycle may be gone), and early cutoff
//!   spares their dependents if the fallback is the same.
//! * If no participant has a fallback, the cycle reaches the top-level call:
//!   [`crate::try_query`] returns `Err(cycle)`; the generated `db.name(key)` panics with the
//!   cycle's description (a bug in the query table, not in the user's input: give every
//!   query that can be on a cycle a fallback).

use crate::dep_graph::{flags, NodeId};
use crate::event::EventKind;
use crate::query::{Database, Query};
use crate::runtime::Runtime;
use std::fmt;
use std::sync::Arc;

/// One query on a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleFrame {
    /// The query's name.
    pub query: &'static str,
    /// The query's description from the table.
    pub description: &'static str,
    /// The key, formatted with `Debug`.
    pub key: String,
}

/// A cycle: the queries on it, starting with the one that was read again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The participants in call order; the last one read the first one.
    pub frames: Vec<CycleFrame>,
}

impl Cycle {
    /// Whether `query` with the key formatted as `key` is on the cycle.
    pub fn contains(&self, query: &str, key: &str) -> bool {
        self.frames.iter().any(|f| f.query == query && f.key == key)
    }
}

impl fmt::Display for Cycle {
    /// rustc's E0391 shape: "cycle detected when X", "...which requires Y...",
    /// "...which again requires X, completing the cycle".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(first) = self.frames.first() else {
            return write!(f, "cycle detected");
        };
        write!(
            f,
            "cycle detected when {} `{}`",
            first.description, first.key
        )?;
        for fr in &self.frames[1..] {
            write!(f, "\n...which requires {} `{}`...", fr.description, fr.key)?;
        }
        write!(
            f,
            "\n...which again requires {} `{}`, completing the cycle",
            first.description, first.key
        )
    }
}

/// The panic payload that carries a cycle to the participant that recovers from it.
pub(crate) struct CycleUnwind(pub Arc<Cycle>);

/// `node` (of query `Q`, key `key`) was read while executing: builds the cycle, marks its
/// participants, and returns `Q`'s fallback or unwinds.
#[inline(never)]
pub(crate) fn cycle_detected<Q: Query>(db: &Q::Db, node: NodeId, key: &Q::Key) -> Q::Value {
    let rt = db.runtime();
    let nodes: Vec<NodeId> = {
        let stack = rt.stack.borrow();
        let start = stack.iter().rposition(|f| f.node == node).unwrap_or(0);
        stack[start..].iter().map(|f| f.node).collect()
    };
    let frames = nodes.iter().map(|&n| describe::<Q::Db>(db, n)).collect();
    let cycle = Arc::new(Cycle { frames });
    {
        let mut stack = rt.stack.borrow_mut();
        let start = stack.len() - nodes.len();
        for f in &mut stack[start..] {
            f.cycle = Some(cycle.clone());
        }
    }
    if rt.events_on() {
        rt.event(EventKind::Cycle, Q::NAME, format!("{key:?}"));
    }
    match Q::FALLBACK {
        Some(fallback) => fallback(db, &cycle, key),
        None => std::panic::resume_unwind(Box::new(CycleUnwind(cycle))),
    }
}

pub(crate) fn describe<Db: Database>(db: &Db, node: NodeId) -> CycleFrame {
    let kind = db.runtime().graph.borrow().node(node).kind;
    match Db::KINDS.get(kind as usize) {
        Some(k) => CycleFrame {
            query: k.name,
            description: k.description,
            key: (k.key_debug)(db, node),
        },
        None => CycleFrame {
            query: "?",
            description: "?",
            key: String::new(),
        },
    }
}

/// Abandons the frames at `depth` and above after an unwind: their nodes get back the
/// flags they had before they started (so they are not left "in progress").
pub(crate) fn abandon_frames(rt: &Runtime, depth: usize) {
    let abandoned: Vec<_> = {
        let mut stack = rt.stack.borrow_mut();
        if stack.len() <= depth {
            return;
        }
        stack.drain(depth..).collect()
    };
    let mut g = rt.graph.borrow_mut();
    for f in abandoned.into_iter().rev() {
        g.node_mut(f.node).flags = f.saved_flags & !flags::IN_PROGRESS;
        rt.return_dep_vec(f.deps);
    }
}
