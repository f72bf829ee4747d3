//! Property test: random DAGs of pure computations (sum / min / mix of dependency values,
//! with data-dependent branching so that dependencies are dynamic) under random sequences
//! of input changes, in memory and across persistence.
//!
//! Properties, after every step:
//! 1. incremental result == recomputation from scratch, for every node;
//! 2. a node re-executes only if an input it transitively read in the previous step
//!    changed (minimality of red-green re-validation).
//!
//! Cases: `RILL_PROPTEST_CASES` (default 256).

use proptest::prelude::*;
use query::{
    define_queries, CacheOptions, Database, DatabaseExt, Durability, EventKind, Options,
    StableHash, StableHasher,
};
use std::collections::BTreeSet;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ref {
    Input(u32),
    Node(u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Sum,
    Min,
    Mix,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub op: Op,
    /// `refs[0]` is the condition; if its value is even the node reads `refs[1..half]`,
    /// otherwise `refs[half..]`.
    pub refs: Vec<Ref>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub inputs: u32,
    pub nodes: Vec<NodeSpec>,
}

impl<Cx> StableHash<Cx> for Spec {
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&self.inputs, h);
        h.write_usize(self.nodes.len());
        for n in &self.nodes {
            h.write_u8(n.op as u8);
            h.write_usize(n.refs.len());
            for r in &n.refs {
                match *r {
                    Ref::Input(i) => StableHash::<Cx>::stable_hash(&(0u8, i), h),
                    Ref::Node(i) => StableHash::<Cx>::stable_hash(&(1u8, i), h),
                }
            }
        }
    }
}

define_queries! {
    /// The property test's database.
    pub struct Db;
    /// Its queries.
    pub mod q;

    /// The shape of the DAG (rarely changes).
    input [] fn spec(()) -> Arc<Spec>, "reading the spec", set_spec;
    /// An input value.
    input [] fn inp(u32) -> i64, "reading an input", set_inp;
    /// A computed node.
    query [cache_on_disk] fn node(u32) -> i64, "computing a node", node;
}

fn combine(op: Op, vals: &[i64]) -> i64 {
    match op {
        Op::Sum => vals.iter().sum::<i64>().rem_euclid(5),
        Op::Min => vals.iter().copied().min().unwrap_or(0),
        Op::Mix => vals.iter().fold(1i64, |acc, v| (acc * 31 + v) % 7),
    }
}

fn chosen(refs: &[Ref], cond: i64) -> std::ops::Range<usize> {
    let half = refs.len().div_ceil(2).max(1);
    if cond % 2 == 0 {
        1..half
    } else {
        half..refs.len()
    }
}

fn node(db: &Db, i: u32) -> i64 {
    let spec = db.spec(());
    let n = &spec.nodes[i as usize];
    let read = |r: Ref| match r {
        Ref::Input(j) => db.inp(j),
        Ref::Node(j) => db.node(j),
    };
    let cond = read(n.refs[0]);
    let mut vals = vec![cond];
    for &r in &n.refs[chosen(&n.refs, cond)] {
        vals.push(read(r));
    }
    combine(n.op, &vals)
}

/// From-scratch evaluation: each node's value and the inputs it transitively read.
fn reference(spec: &Spec, inputs: &[i64]) -> Vec<(i64, BTreeSet<u32>)> {
    let mut out: Vec<(i64, BTreeSet<u32>)> = Vec::new();
    for n in &spec.nodes {
        let read = |r: Ref, out: &Vec<(i64, BTreeSet<u32>)>, reads: &mut BTreeSet<u32>| match r {
            Ref::Input(j) => {
                reads.insert(j);
                inputs[j as usize]
            }
            Ref::Node(j) => {
                reads.extend(out[j as usize].1.iter().copied());
                out[j as usize].0
            }
        };
        let mut reads = BTreeSet::new();
        let cond = read(n.refs[0], &out, &mut reads);
        let mut vals = vec![cond];
        for &r in &n.refs[chosen(&n.refs, cond)] {
            vals.push(read(r, &out, &mut reads));
        }
        out.push((combine(n.op, &vals), reads));
    }
    out
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    (
        1u32..=5,
        prop::collection::vec((0u8..3, prop::collection::vec(any::<u16>(), 1..=5)), 1..=16),
    )
        .prop_map(|(inputs, raw)| {
            let nodes = raw
                .into_iter()
                .enumerate()
                .map(|(i, (op, targets))| NodeSpec {
                    op: [Op::Sum, Op::Min, Op::Mix][op as usize],
                    refs: targets
                        .into_iter()
                        .map(|t| {
                            let t = u32::from(t) % (inputs + i as u32);
                            if t < inputs {
                                Ref::Input(t)
                            } else {
                                Ref::Node(t - inputs)
                            }
                        })
                        .collect(),
                })
                .collect();
            Spec { inputs, nodes }
        })
}

/// Steps of input changes: (input index modulo the input count, new value).
fn steps_strategy() -> impl Strategy<Value = Vec<Vec<(u32, i64)>>> {
    prop::collection::vec(prop::collection::vec((0u32..5, 0i64..4), 0..=3), 1..=6)
}

fn run(spec: Spec, steps: Vec<Vec<(u32, i64)>>, persist: bool) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let options = || {
        let cache = persist.then(|| {
            let mut c = CacheOptions::new(dir.path(), "proptest");
            c.fsync = false;
            c
        });
        Options {
            event_log: true,
            cache,
            ..Options::default()
        }
    };
    let spec = Arc::new(spec);
    let mut inputs = vec![0i64; spec.inputs as usize];
    let mut db = Db::new(options());
    let mut prev: Option<Vec<(i64, BTreeSet<u32>)>> = None;
    for (s, changes) in std::iter::once(Vec::new()).chain(steps).enumerate() {
        let before = inputs.clone();
        for (j, v) in changes {
            inputs[(j % spec.inputs) as usize] = v;
        }
        if persist && s > 0 {
            let report = db.save();
            prop_assert!(report.saved, "{:?}", report);
            drop(db);
            db = Db::new(options());
            prop_assert!(
                db.runtime().warnings().is_empty(),
                "{:?}",
                db.runtime().warnings()
            );
        }
        if s == 0 || persist {
            db.set_spec((), spec.clone(), Durability::High);
            for (j, &v) in before.iter().enumerate() {
                db.set_inp(j as u32, v, Durability::Low);
            }
        }
        for (j, &v) in inputs.iter().enumerate() {
            db.set_inp(j as u32, v, Durability::Low);
        }
        let expected = reference(&spec, &inputs);
        // Dependents first, so that re-validation walks (and forces) their dependencies.
        for (i, (v, _)) in expected.iter().enumerate().rev() {
            prop_assert_eq!(db.node(i as u32), *v, "node {} at step {}", i, s);
        }
        let changed: BTreeSet<u32> = (0..spec.inputs)
            .filter(|&j| before[j as usize] != inputs[j as usize])
            .collect();
        if let Some(prev) = &prev {
            for e in db.runtime().take_events() {
                if e.kind != EventKind::Executed {
                    continue;
                }
                let i: usize = e.key.parse().unwrap();
                prop_assert!(
                    !prev[i].1.is_disjoint(&changed),
                    "node {} re-executed at step {} but none of its inputs {:?} changed ({:?})",
                    i,
                    s,
                    prev[i].1,
                    changed
                );
            }
        } else {
            db.runtime().take_events();
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
    fn incremental_equals_from_scratch_in_memory(spec in spec_strategy(), steps in steps_strategy()) {
        run(spec, steps, false)?;
    }

    #[test]
    fn incremental_equals_from_scratch_across_persistence(spec in spec_strategy(), steps in steps_strategy()) {
        run(spec, steps, true)?;
    }
}
