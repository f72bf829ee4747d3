//! Verify mode (rustc's `-Zincremental-verify-ich`): re-execute queries that were marked
//! green and compare fingerprints. A mismatch means the provider read something the
//! engine did not see (an untracked read: a missing dependency edge).

use crate::dep_graph::{flags, NodeId};
use crate::event::EventKind;
use crate::fingerprint::Fingerprint;
use crate::query::{Database, Query};
use crate::runtime::Frame;
use crate::Durability;

/// Which green queries verify mode re-executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Verify {
    /// None (the default).
    #[default]
    Off,
    /// Every `n`th green marking.
    Sample(u32),
    /// Every green marking.
    All,
}

impl Verify {
    /// `RILL_VERIFY`: `all`, `sample` (every 8th), `sample=N`, or `off`/unset.
    pub fn from_env() -> Verify {
        std::env::var("RILL_VERIFY")
            .ok()
            .and_then(|s| Verify::parse(&s))
            .unwrap_or_default()
    }

    /// Parses the `RILL_VERIFY` syntax.
    pub fn parse(s: &str) -> Option<Verify> {
        match s {
            "" | "off" | "0" => Some(Verify::Off),
            "all" | "1" => Some(Verify::All),
            "sample" => Some(Verify::Sample(8)),
            _ => s
                .strip_prefix("sample=")
                .and_then(|n| n.parse().ok())
                .filter(|&n: &u32| n > 0)
                .map(Verify::Sample),
        }
    }
}

/// A green query whose re-execution gave another fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyMismatch {
    /// The query's name.
    pub query: &'static str,
    /// The key, formatted with `Debug`.
    pub key: String,
    /// The fingerprint of the memo.
    pub expected: Fingerprint,
    /// The fingerprint of the re-execution.
    pub actual: Fingerprint,
}

/// Called for every node marked green: verifies it if the mode selects it.
pub(crate) fn after_green<Db: Database>(db: &Db, node: NodeId) {
    let rt = db.runtime();
    match rt.options.verify {
        Verify::Off => return,
        Verify::All => {}
        Verify::Sample(n) => {
            let c = rt.verify_counter.get() + 1;
            rt.verify_counter.set(c);
            #[allow(clippy::manual_is_multiple_of)]
            if c % u64::from(n) != 0 {
                return;
            }
        }
    }
    let kind = rt.graph.borrow().node(node).kind;
    if let Some(k) = Db::KINDS.get(kind as usize) {
        (k.verify)(db, node);
    }
}

/// Re-executes the green node `node` of query `Q` and compares fingerprints. `None` when
/// the node cannot be checked (an input, `no_hash`, or an unknown fingerprint).
pub(crate) fn verify_node<Q: Query>(db: &Q::Db, node: NodeId) -> Option<bool> {
    let rt = db.runtime();
    let provider = Q::PROVIDER?;
    Q::HASH?;
    let key = crate::fetch::key_of::<Q>(db, node)?;
    let expected = {
        let fp = rt.graph.borrow().node(node).fp();
        match fp {
            Some(fp) => fp,
            None => crate::execute::hash_value_of::<Q>(db, node)?,
        }
    };
    // Run in a frame of its own so that its reads are not charged to whoever is executing.
    let saved = {
        let mut g = rt.graph.borrow_mut();
        let n = g.node_mut(node);
        let s = n.flags;
        n.flags.insert(flags::IN_PROGRESS);
        s
    };
    let reads_start = rt.reads_end();
    rt.stack.borrow_mut().push(Frame {
        node,
        reads_start,
        durability: Durability::MAX,
        cycle: None,
        saved_flags: saved,
    });
    let value = provider(db, key.clone());
    let popped = rt.stack.borrow_mut().pop();
    if let Some(f) = popped {
        rt.drop_reads(f.reads_start);
    }
    rt.graph.borrow_mut().node_mut(node).flags = saved;
    let (actual, _) = crate::execute::fingerprint_raw::<Q>(rt, &value, false);
    rt.stats.borrow_mut().kinds[Q::KIND as usize].verified += 1;
    if actual == expected {
        return Some(true);
    }
    let key_s = format!("{key:?}");
    rt.warn(format!(
        "verify: `{}({key_s})` was green but re-executing it gives another result: it reads something untracked",
        Q::NAME
    ));
    if rt.events_on() {
        rt.node_event(db, EventKind::VerifyMismatch, node);
    }
    rt.mismatches.borrow_mut().push(VerifyMismatch {
        query: Q::NAME,
        key: key_s,
        expected,
        actual,
    });
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::Verify;

    #[test]
    fn parse() {
        assert_eq!(Verify::parse("all"), Some(Verify::All));
        assert_eq!(Verify::parse("sample"), Some(Verify::Sample(8)));
        assert_eq!(Verify::parse("sample=3"), Some(Verify::Sample(3)));
        assert_eq!(Verify::parse("sample=0"), None);
        assert_eq!(Verify::parse("off"), Some(Verify::Off));
        assert_eq!(Verify::parse("bogus"), None);
    }
}
