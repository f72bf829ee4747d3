//! Which reads become a query's dependencies: its own reads, each once, in the order it
//! first made them; not the reads of the queries it executed; and, for a cycle's
//! fallback, which runs once the participant's frame is gone, the reads of the fallback
//! belong to the participant's caller.

use query::{format_events, Cycle, Database, Durability, Options};

mod reads {
    use super::*;

    query::define_queries! {
        pub struct Db;
        pub mod q;
        input [] fn num(u32) -> u32, "reading a number", set_num;
        input [] fn next(u32) -> Option<u32>, "naming the next node", set_next;
        input [] fn label(()) -> String, "reading the label", set_label;
        query [] fn inner(u32) -> u32, "reading a number through another query", inner;
        query [] fn outer(u32) -> u32, "reading numbers again and again", outer;
        query [cycle_fallback(walk_cycle)] fn walk(u32) -> String, "walking from a node", walk;
        query [] fn start(u32) -> String, "starting a walk", start;
    }

    /// Reads `num(k + 1)` (besides what `outer` reads itself).
    fn inner(db: &Db, k: u32) -> u32 {
        db.num(k + 1)
    }

    /// Reads `num(k)` many times (more than the short lists' 16 reads), before and after
    /// executing `inner(k)`, which reads `num(k + 1)`, and reads `num(k + 1)` itself last.
    fn outer(db: &Db, k: u32) -> u32 {
        let mut sum = 0;
        for _ in 0..20 {
            sum += db.num(k);
        }
        sum += db.inner(k);
        for _ in 0..20 {
            sum += db.num(k);
        }
        sum + db.num(k + 1)
    }

    /// The fallback reads `label`, but its value does not depend on it.
    fn walk_cycle(db: &Db, _: &Cycle, _: &u32) -> String {
        format!("cycle ({} letters in the label)", db.label(()).len().min(1))
    }

    fn walk(db: &Db, key: u32) -> String {
        match db.next(key) {
            Some(n) => db.walk(n),
            None => String::from("end"),
        }
    }

    fn start(db: &Db, key: u32) -> String {
        db.walk(key)
    }
}

use reads::Db;

fn db() -> Db {
    Db::new(Options {
        event_log: true,
        ..Options::default()
    })
}

fn log(db: &Db) -> String {
    format_events(&db.runtime().take_events())
}

#[test]
fn repeated_reads_around_a_nested_execution_are_recorded_once_each() {
    let mut db = db();
    db.set_num(1, 1, Durability::Low);
    db.set_num(2, 2, Durability::Low);
    assert_eq!(db.outer(1), 20 + 2 + 20 + 2);
    log(&db);
    // `outer` depends on `num(1)`, `inner(1)` and `num(2)`: a change of `num(2)`
    // re-executes `inner(1)` and then `outer(1)` (its edges are walked in order).
    db.set_num(2, 3, Durability::Low);
    assert_eq!(db.outer(1), 20 + 3 + 20 + 3);
    expect_test::expect![[r#"
        executed inner(1)
        executed outer(1)
    "#]]
    .assert_eq(&log(&db));
    // And a change of `num(1)` re-executes `outer(1)` alone: `inner(1)` did not read it.
    db.set_num(1, 2, Durability::Low);
    assert_eq!(db.outer(1), 40 + 3 + 40 + 3);
    expect_test::expect![[r#"
        green inner(1)
        executed outer(1)
    "#]]
    .assert_eq(&log(&db));
    // Setting nothing new re-executes nothing.
    db.set_num(1, 2, Durability::Low);
    assert_eq!(db.outer(1), 86);
    assert_eq!(log(&db), "");
}

#[test]
fn a_fallbacks_reads_are_its_callers_dependencies() {
    let mut db = db();
    db.set_next(1, Some(2), Durability::Low);
    db.set_next(2, Some(1), Durability::Low);
    db.set_label((), String::from("cycle"), Durability::Low);
    let value = String::from("cycle (1 letters in the label)");
    assert_eq!(db.start(1), value);
    log(&db);
    // `walk(1)`'s fallback ran after its frame was popped, for its caller `start(1)`: the
    // caller read `label`. The participants re-execute (being on a cycle) with the same
    // value, and `start(1)` re-executes all the same, for the label.
    db.set_label((), String::from("loop"), Durability::Low);
    assert_eq!(db.start(1), value);
    expect_test::expect![[r#"
        cycle walk(1)
        executed walk(2)
        executed walk(1)
        executed start(1)
    "#]]
    .assert_eq(&log(&db));
}
