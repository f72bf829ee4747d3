//! Durability (salsa): how likely an input is to change. A query's durability is the
//! lowest durability of what it read; when only inputs of lower durability changed since a
//! memo was verified, the memo is still valid and its dependency edges are not walked.

use crate::revision::Revision;

/// How often an input is expected to change.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum Durability {
    /// Changes often (the files being edited). The default.
    #[default]
    Low = 0,
    /// Changes sometimes (configuration).
    Medium = 1,
    /// Changes rarely (the standard library, build options).
    High = 2,
}

impl Durability {
    /// Number of levels.
    pub(crate) const COUNT: usize = 3;
    /// The durability of a query that read nothing: it can never change.
    pub(crate) const MAX: Durability = Durability::High;

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    pub(crate) fn from_u8(x: u8) -> Option<Durability> {
        match x {
            0 => Some(Durability::Low),
            1 => Some(Durability::Medium),
            2 => Some(Durability::High),
            _ => None,
        }
    }
}

/// For each durability level, the last revision in which an input of that durability or
/// higher changed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LastChanged([Revision; Durability::COUNT]);

impl LastChanged {
    /// At the start of a session everything may have changed since the previous one.
    pub(crate) fn new() -> LastChanged {
        LastChanged([Revision::START; Durability::COUNT])
    }

    /// Nothing changed since the previous session: what a session that loaded a cache
    /// starts from (the session's start records what it finds changed).
    pub(crate) fn unchanged() -> LastChanged {
        LastChanged([Revision::PREVIOUS_SESSION; Durability::COUNT])
    }

    /// An input of durability `d` changed in revision `r`: every level up to `d` changed.
    pub(crate) fn record(&mut self, d: Durability, r: Revision) {
        for slot in &mut self.0[..=d.index()] {
            *slot = r;
        }
    }

    /// Whether a memo of durability `d` verified at `verified_at` is still valid without
    /// looking at its dependencies.
    #[inline]
    pub(crate) fn unchanged_since(&self, d: Durability, verified_at: Revision) -> bool {
        self.0[d.index()] <= verified_at
    }
}
