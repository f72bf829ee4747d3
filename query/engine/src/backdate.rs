//! Early cutoff: deciding whether a re-executed query's result changed. If it did not,
//! its `changed_at` keeps its old revision ("backdating", salsa) so that dependents
//! stay green.

use crate::fingerprint::Fingerprint;
use crate::query::{Flags, Query};
use crate::runtime::{Cutoff, Runtime};
use crate::Durability;

/// The old memo, as it was before the re-execution.
pub(crate) struct OldMemo<'a, V> {
    pub fingerprint: Option<Fingerprint>,
    pub durability: Durability,
    pub value: Option<&'a V>,
}

/// Whether the new result counts as changed. `new_fp` computes the new fingerprint on
/// demand (it may already be known).
pub(crate) fn result_changed<Q: Query>(
    rt: &Runtime,
    old: Option<OldMemo<'_, Q::Value>>,
    new_value: &Q::Value,
    new_durability: Durability,
    new_fp: &mut dyn FnMut() -> Option<Fingerprint>,
) -> bool {
    let Some(old) = old else { return true };
    // `Cutoff::Off` turns early cutoff off for derived queries; an `eval_always` query
    // (a read of the outside world, such as a file) is still compared, or every build
    // would count every input as changed and the experiment would measure full rebuilds.
    let off = rt.options.cutoff == Cutoff::Off && !Q::FLAGS.contains(Flags::EVAL_ALWAYS);
    if Q::FLAGS.contains(Flags::NO_HASH) || off {
        return true;
    }
    // A memo that became less durable must not look unchanged: dependents that skip their
    // edge walk on the old durability would miss later changes (salsa's rule).
    if new_durability < old.durability {
        return true;
    }
    let by_equality =
        rt.options.cutoff == Cutoff::Equality || Q::FLAGS.contains(Flags::BACKDATE_EQ);
    if by_equality {
        if let Some(old_value) = old.value {
            return old_value != new_value;
        }
    }
    // A memo not hashed when it executed (nothing is saved or verified, see
    // `Runtime::hash_on_execute`) is hashed now, from its value: the fingerprint it
    // would have had.
    let old_fp = match (old.fingerprint, old.value) {
        (Some(fp), _) => Some(fp),
        (None, Some(v)) if Q::HASH.is_some() && rt.cutoff_by_fingerprint(Q::FLAGS) => {
            Some(crate::execute::hash_value::<Q>(rt, v))
        }
        (None, _) => None,
    };
    match (old_fp, new_fp()) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}
