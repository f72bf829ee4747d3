//! The event log (salsa style): what executed, was marked green or was loaded, in order.
//! Tests assert on it; it is off unless `Options::event_log` is set.
//!
//! An event names its query and its key as `Debug` shows it; an embedder that shows keys
//! its own way (the Rill driver shows an item's id as its def path) gets the typed key of
//! the event's node with [`event_key`].

use crate::dep_graph::NodeId;
use crate::query::{Database, Query};
use std::any::Any;
use std::fmt;

/// What happened to a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The provider ran (a new key, or a memo that could not be re-validated).
    Executed,
    /// The memo was re-validated without executing (red-green).
    Green,
    /// The value was decoded from the on-disk cache.
    Loaded,
    /// A cycle was detected when reading this query.
    Cycle,
    /// Verify mode re-executed a green query and got another fingerprint.
    VerifyMismatch,
}

/// One entry of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The query's name.
    pub query: &'static str,
    /// The key, formatted with `Debug`.
    pub key: String,
    /// The query's node (`None` for a cycle): its typed key is [`event_key`].
    pub node: Option<NodeId>,
}

impl EventKind {
    /// The word the log shows (`executed`, `green`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Executed => "executed",
            EventKind::Green => "green",
            EventKind::Loaded => "loaded",
            EventKind::Cycle => "cycle",
            EventKind::VerifyMismatch => "verify-mismatch",
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}({})", self.kind.as_str(), self.query, self.key)
    }
}

/// The key of the query `event` is about, if its type is `K` (`None` for a key of another
/// type, or an event without a node). The event must come from `db`'s log.
pub fn event_key<Db: Database, K: 'static>(db: &Db, event: &Event) -> Option<K> {
    let node = event.node?;
    let kind = db.runtime().graph.borrow().nodes.get(node.index())?.kind;
    let vtable = Db::KINDS.get(usize::from(kind))?;
    let key = (vtable.key_any)(db, node)?;
    key.downcast::<K>().ok().map(|k| *k)
}

/// The key of `node` (of query `Q`) as a type-erased value (the `key_any` entry of the
/// query's [`crate::KindVTable`]).
pub(crate) fn key_any<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Box<dyn Any>> {
    crate::fetch::key_of::<Q>(db, node).map(|k| Box::new(k) as Box<dyn Any>)
}

/// The events one per line (for snapshot tests).
pub fn format_events(events: &[Event]) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&e.to_string());
        s.push('\n');
    }
    s
}
