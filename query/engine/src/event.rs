//! The event log (salsa style): what executed, was marked green or was loaded, in order.
//! Tests assert on it; it is off unless `Options::event_log` is set.

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
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            EventKind::Executed => "executed",
            EventKind::Green => "green",
            EventKind::Loaded => "loaded",
            EventKind::Cycle => "cycle",
            EventKind::VerifyMismatch => "verify-mismatch",
        };
        write!(f, "{what} {}({})", self.query, self.key)
    }
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
