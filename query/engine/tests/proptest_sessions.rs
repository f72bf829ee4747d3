//! Property test: random histories across sessions (one database per session, loaded from
//! the previous session's cache). Each session changes some inputs and some of the
//! outside world (read by an `eval_always` query), sets every input under a random
//! durability, and demands a random subset of the nodes in a random order.
//!
//! Properties, in every session:
//! 1. every demanded node equals its value computed from scratch;
//! 2. a session in which no input and nothing outside changed executes nothing but the
//!    outside reads, and walks no edge (the session's start finds nothing changed);
//! 3. a node executes only if an input or outside value it transitively read as of the
//!    previous session changed, or an input's durability did (minimality of the push).
//!
//! Cases: `RILL_PROPTEST_CASES` (default 256).

use proptest::prelude::*;
use query::{define_queries, CacheOptions, Database, DatabaseExt, Durability, EventKind, Options};
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Where a node's reads go: an input, the outside world, or an earlier node.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ref {
    Input(u32),
    World(u32),
    Node(u32),
}

/// A node: `refs[0]` is the condition; if its value is even the node reads
/// `refs[1..half]`, otherwise `refs[half..]`; it sums what it read modulo 5.
type Spec = Vec<Vec<Ref>>;

const INPUTS: u32 = 3;
const WORLD: u32 = 3;

/// The outside world the `eval_always` query reads.
#[derive(Default)]
pub struct World {
    values: RefCell<Vec<i64>>,
}

define_queries! {
    /// The property test's database.
    pub struct Db { pub world: World };
    /// Its queries.
    pub mod q;

    /// An input value.
    input [] fn inp(u32) -> i64, "reading an input", set_inp;
    /// A value of the outside world, read again in every session.
    query [eval_always] fn outside(u32) -> i64, "reading the outside world", outside;
    /// A computed node (its spec comes from the test's thread-local).
    query [cache_on_disk] fn node(u32) -> i64, "computing a node", node;
}

thread_local! {
    static SPEC: RefCell<Spec> = const { RefCell::new(Vec::new()) };
}

fn outside(db: &Db, j: u32) -> i64 {
    db.world.values.borrow()[j as usize]
}

fn chosen(len: usize, cond: i64) -> std::ops::Range<usize> {
    let half = len.div_ceil(2).max(1);
    if cond % 2 == 0 {
        1..half
    } else {
        half..len
    }
}

fn node(db: &Db, i: u32) -> i64 {
    let refs = SPEC.with(|s| s.borrow()[i as usize].clone());
    let read = |r: Ref| match r {
        Ref::Input(j) => db.inp(j),
        Ref::World(j) => db.outside(j),
        Ref::Node(j) => db.node(j),
    };
    let cond = read(refs[0]);
    let mut sum = cond;
    for &r in &refs[chosen(refs.len(), cond)] {
        sum += read(r);
    }
    sum.rem_euclid(5)
}

/// From-scratch values, and what each node transitively read (inputs as `j`, the world
/// as `INPUTS + j`).
fn reference(spec: &Spec, inputs: &[i64], world: &[i64]) -> Vec<(i64, BTreeSet<u32>)> {
    let mut out: Vec<(i64, BTreeSet<u32>)> = Vec::new();
    for refs in spec {
        let mut reads = BTreeSet::new();
        let mut read = |r: Ref| match r {
            Ref::Input(j) => {
                reads.insert(j);
                inputs[j as usize]
            }
            Ref::World(j) => {
                reads.insert(INPUTS + j);
                world[j as usize]
            }
            Ref::Node(j) => {
                reads.extend(out[j as usize].1.iter().copied());
                out[j as usize].0
            }
        };
        let cond = read(refs[0]);
        let mut sum = cond;
        for &r in &refs[chosen(refs.len(), cond)] {
            sum += read(r);
        }
        out.push((sum.rem_euclid(5), reads));
    }
    out
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    prop::collection::vec(prop::collection::vec(any::<u16>(), 1..=5), 1..=24).prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, targets)| {
                targets
                    .into_iter()
                    .map(|t| {
                        let t = u32::from(t) % (INPUTS + WORLD + i as u32);
                        if t < INPUTS {
                            Ref::Input(t)
                        } else if t < INPUTS + WORLD {
                            Ref::World(t - INPUTS)
                        } else {
                            Ref::Node(t - INPUTS - WORLD)
                        }
                    })
                    .collect()
            })
            .collect()
    })
}

/// One session: changes (index over inputs then world, new value), each input's
/// durability, and the nodes demanded (indices modulo the node count, in this order).
type Session = (Vec<(u32, i64)>, Vec<u8>, Vec<u16>);

fn sessions_strategy() -> impl Strategy<Value = Vec<Session>> {
    prop::collection::vec(
        (
            prop::collection::vec((0..INPUTS + WORLD, 0i64..4), 0..=2),
            prop::collection::vec(0u8..3, INPUTS as usize),
            prop::collection::vec(any::<u16>(), 0..=10),
        ),
        1..=8,
    )
}

fn run(spec: Spec, sessions: Vec<Session>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let n = spec.len();
    SPEC.with(|s| *s.borrow_mut() = spec.clone());
    let mut inputs = vec![0i64; INPUTS as usize];
    let mut world = vec![0i64; WORLD as usize];
    // Each node's value and the inputs and outside values it transitively read, as of the
    // previous session (what a valid memo of it in the cache stands for).
    let mut prev: Option<Vec<(i64, BTreeSet<u32>)>> = None;
    let mut last_durabilities = vec![0u8; INPUTS as usize];
    // The first session demands everything.
    let first: Session = (
        Vec::new(),
        vec![0; INPUTS as usize],
        (0..n as u16).collect(),
    );
    for (s, (changes, durabilities, demands)) in std::iter::once(first).chain(sessions).enumerate()
    {
        let before: Vec<i64> = inputs.iter().chain(&world).copied().collect();
        for (j, v) in changes {
            if j < INPUTS {
                inputs[j as usize] = v;
            } else {
                world[(j - INPUTS) as usize] = v;
            }
        }
        let after: Vec<i64> = inputs.iter().chain(&world).copied().collect();
        let changed: BTreeSet<u32> = (0..INPUTS + WORLD)
            .filter(|&j| before[j as usize] != after[j as usize])
            .collect();
        let mut cache = CacheOptions::new(dir.path(), "sessions");
        cache.fsync = false;
        let mut db = Db::new(Options {
            event_log: true,
            cache: Some(cache),
            ..Options::default()
        });
        *db.world.values.borrow_mut() = world.clone();
        for (j, &v) in inputs.iter().enumerate() {
            let d =
                [Durability::Low, Durability::Medium, Durability::High][durabilities[j] as usize];
            db.set_inp(j as u32, v, d);
        }
        let expected = reference(&spec, &inputs, &world);
        for &i in &demands {
            let i = u32::from(i) % n as u32;
            prop_assert_eq!(
                db.node(i),
                expected[i as usize].0,
                "node {} in session {}",
                i,
                s
            );
        }
        // Saving starts the session if nothing was read (its executions count here too).
        let report = db.save();
        prop_assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let stats = db.stats();
        let executed: Vec<u32> = db
            .runtime()
            .take_events()
            .into_iter()
            .filter(|e| e.kind == EventKind::Executed && e.query == "node")
            .map(|e| e.key.parse().unwrap())
            .collect();
        // Setting an input under another durability counts as a change of the input.
        let durabilities_changed = s > 0 && durabilities != last_durabilities;
        last_durabilities = durabilities.clone();
        if s > 0 && changed.is_empty() && !durabilities_changed {
            prop_assert!(
                executed.is_empty(),
                "session {} changed nothing but executed {:?}",
                s,
                executed
            );
            prop_assert_eq!(stats.engine.session_pushed, 0);
        }
        if let Some(prev) = &prev {
            for &i in &executed {
                let reads = &prev[i as usize].1;
                prop_assert!(
                    !reads.is_disjoint(&changed) || durabilities_changed,
                    "node {} re-executed in session {} but nothing it read ({:?}) changed ({:?})",
                    i,
                    s,
                    reads,
                    changed
                );
            }
        }
        prev = Some(expected);
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("RILL_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn sessions_with_random_demands_and_durabilities_equal_from_scratch(
        spec in spec_strategy(),
        sessions in sessions_strategy(),
    ) {
        run(spec, sessions)?;
    }
}
