//! Revisions: the logical clock of the database.
//!
//! Revision 0 stands for "the previous session" (everything loaded from the on-disk
//! cache was verified then); a new database starts at revision 1 and every input change
//! starts a new revision. A memo records when it was last verified (`verified_at`) and
//! when its value last changed (`changed_at`); a dependent must re-execute when a
//! dependency's `changed_at` is after the dependent's own `verified_at`.

/// A point in the database's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Revision(pub(crate) u32);

impl Revision {
    /// What everything loaded from the on-disk cache was verified at.
    pub const PREVIOUS_SESSION: Revision = Revision(0);
    /// The first revision of a session.
    pub const START: Revision = Revision(1);

    /// The revision after this one.
    pub(crate) fn next(self) -> Revision {
        Revision(self.0.saturating_add(1))
    }

    /// The revision as a number (for logs).
    pub fn as_u32(self) -> u32 {
        self.0
    }
}
