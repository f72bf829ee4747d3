//! Cycles: a query that (transitively) reads itself.
//!
//! The design, in salsa's spirit, so that the outcome does not depend on which query of
//! the cycle was asked first (DESIGN.md Invariant 2: incremental equals from scratch):
//!
//! * A read of a query that is executing is a cycle. The frames from that query to the
//!   top of the stack are its participants; each is marked with the [`Cycle`], which lists
//!   them as (query kind, node) in call order: the database gives back each one's typed key
//!   ([`CycleFrame::key`]), and [`Cycle::render`] describes them with the table's
//!   descriptions and `describe_key`.
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

/// One query on a cycle: the query's kind and its node, from which the database gives
/// back the typed key ([`CycleFrame::key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CycleFrame {
    /// The query's index in the table (`Query::KIND`).
    pub kind: u16,
    /// The query's name (`Query::NAME`).
    pub query: &'static str,
    /// The query's node in the dependency graph.
    pub node: NodeId,
}

impl CycleFrame {
    /// Whether the frame is a read of query `Q`.
    pub fn is<Q: Query>(&self) -> bool {
        self.kind == Q::KIND
    }

    /// The frame's key, if the frame is a read of query `Q`.
    pub fn key<Q: Query>(&self, db: &Q::Db) -> Option<Q::Key> {
        if self.is::<Q>() {
            key_of::<Q>(db, self.node)
        } else {
            None
        }
    }

    /// The query's description followed by its key, as the table says to show it
    /// (`describe_key`, else `Debug`): "computing the type of `crate::A`".
    pub fn describe<Db: Database>(&self, db: &Db) -> String {
        match Db::KINDS.get(self.kind as usize) {
            Some(k) => format!("{} `{}`", k.description, (k.describe_key)(db, self.node)),
            None => format!("`{}`", self.query),
        }
    }
}

/// A cycle: the queries on it, starting with the one that was read again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The participants in call order; the last one read the first one.
    pub frames: Vec<CycleFrame>,
}

impl Cycle {
    /// Whether query `Q` with key `key` is on the cycle.
    pub fn contains<Q: Query>(&self, db: &Q::Db, key: &Q::Key) -> bool {
        self.frames
            .iter()
            .any(|f| f.key::<Q>(db).as_ref() == Some(key))
    }

    /// The cycle in rustc's E0391 shape, each query described with its key:
    /// "cycle detected when X", "...which requires Y...", "...which again requires X,
    /// completing the cycle".
    pub fn render<Db: Database>(&self, db: &Db) -> String {
        let Some(first) = self.frames.first() else {
            return "cycle detected".to_string();
        };
        let first = first.describe(db);
        let mut out = format!("cycle detected when {first}");
        for fr in &self.frames[1..] {
            out.push_str(&format!("\n...which requires {}...", fr.describe(db)));
        }
        out.push_str(&format!(
            "\n...which again requires {first}, completing the cycle"
        ));
        out
    }
}

impl fmt::Display for Cycle {
    /// The queries' names without their keys (which only [`Cycle::render`], given the
    /// database, can show): "cycle: a -> b -> a".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle:")?;
        for (i, fr) in self.frames.iter().chain(self.frames.first()).enumerate() {
            write!(f, "{}{}", if i == 0 { " " } else { " -> " }, fr.query)?;
        }
        Ok(())
    }
}

/// The key of `node` if it is a node of query `Q` (`None` for a node of another query, or
/// one whose key cannot be recovered from the previous session's cache).
pub(crate) fn key_of<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Q::Key> {
    let kind = db.runtime().graph.borrow().nodes.get(node.index())?.kind;
    if kind != Q::KIND {
        return None;
    }
    crate::fetch::key_of::<Q>(db, node)
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
    let frames = nodes.iter().map(|&n| frame::<Q::Db>(db, n)).collect();
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

/// The key of `node` (of query `Q`) as a cycle's description shows it.
pub(crate) fn describe_key<Q: Query>(db: &Q::Db, node: NodeId) -> String {
    match (Q::DESCRIBE_KEY, crate::fetch::key_of::<Q>(db, node)) {
        (Some(describe), Some(key)) => describe(db, &key),
        (None, Some(key)) => format!("{key:?}"),
        (_, None) => "<unknown key>".to_string(),
    }
}

fn frame<Db: Database>(db: &Db, node: NodeId) -> CycleFrame {
    let kind = db.runtime().graph.borrow().node(node).kind;
    CycleFrame {
        kind,
        query: Db::KINDS.get(kind as usize).map_or("?", |k| k.name),
        node,
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
        rt.drop_reads(f.reads_start);
    }
}
