//! The incremental link gives what a build from scratch gives: the same image hash and
//! the same output, over edit histories in one session and across sessions through the
//! cache directory; a missing, stale or damaged link state is a link from scratch.

use std::path::Path;
use std::sync::Arc;

use backend::RunLimits;
use query_driver::{build, Build, BuildOptions, Goal, LinkStats, Session};
use shared_frontend::sema::modules::MemLoader;

/// A program whose `grow` gets longer at each step (it moves out of its slot) and whose
/// `twice` changes in place; `main` calls both; functions come and go.
fn source(step: usize) -> String {
    let body: String = (0..step * 8)
        .map(|i| format!("    x = x * 3 + {i};\n"))
        .collect();
    let extra = if step % 2 == 1 {
        "fn extra(a: i64) -> i64 { a - 1 }\n"
    } else {
        ""
    };
    let call_extra = if step % 2 == 1 { "extra(5)" } else { "0" };
    format!(
        "fn grow(a: i64) -> i64 {{\n    let mut x = a;\n{body}    x\n}}\n\
         fn twice(a: i64) -> i64 {{ a * {} }}\n{extra}\
         fn main() {{\n    println!(\"{{}} {{}} {{}}\", grow(2), twice(3), {call_extra});\n}}\n",
        step + 2
    )
}

fn loader(step: usize) -> Arc<MemLoader> {
    Arc::new(MemLoader::new([("main.rs", source(step))]))
}

fn outcome(b: &Build) -> (u128, Vec<u8>) {
    assert!(!b.has_errors(), "{:?}", b.diagnostics);
    let image = b.image.as_ref().expect("an image");
    (image.hash(), image.run(&RunLimits::default()).stdout)
}

fn from_scratch(step: usize) -> (u128, Vec<u8>) {
    let b = build(
        loader(step),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions::default(),
    );
    outcome(&b)
}

fn link_stats(b: &Build) -> LinkStats {
    b.link.expect("linked")
}

#[test]
fn an_edit_history_in_one_session_links_as_from_scratch() {
    let mut s = Session::new(
        loader(0),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions::default(),
    );
    let first = s.build(Goal::Image);
    assert!(!link_stats(&first).incremental);
    assert_eq!(outcome(&first), from_scratch(0));
    for step in 1..6 {
        s.set_loader(loader(step));
        let b = s.build(Goal::Image);
        let stats = link_stats(&b);
        assert!(stats.incremental, "step {step}: {stats:?}");
        assert_eq!(outcome(&b), from_scratch(step), "step {step}");
    }
    // No change: nothing read, nothing patched.
    let b = s.build(Goal::Image);
    assert_eq!(link_stats(&b).relinked, 0);
    assert_eq!(outcome(&b), from_scratch(5));
}

fn cached(dir: &Path, step: usize) -> Build {
    let options = BuildOptions {
        cache_dir: Some(dir.to_path_buf()),
        ..BuildOptions::default()
    };
    build(loader(step), Path::new("main.rs"), Goal::Image, options)
}

#[test]
fn an_edit_history_across_sessions_links_as_from_scratch() {
    let dir = tempfile::tempdir().unwrap();
    let first = cached(dir.path(), 0);
    assert!(!link_stats(&first).incremental);
    let state = dir.path().join("image").join("link-state.bin");
    assert!(state.exists());
    for step in 1..6 {
        let b = cached(dir.path(), step);
        assert!(link_stats(&b).incremental, "step {step}");
        assert_eq!(outcome(&b), from_scratch(step), "step {step}");
        assert!(
            b.warnings.iter().all(|w| !w.contains("link state")),
            "{:?}",
            b.warnings
        );
    }
    // A build that saves nothing keeps the state valid.
    let b = cached(dir.path(), 5);
    assert!(link_stats(&b).incremental);
    assert_eq!(link_stats(&b).relinked, 0);
    let b = cached(dir.path(), 5);
    assert!(link_stats(&b).incremental);
}

#[test]
fn a_missing_stale_or_damaged_link_state_links_from_scratch() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("image").join("link-state.bin");
    let journal = dir.path().join("image").join("link-state.jnl");
    cached(dir.path(), 0);
    let old = std::fs::read(&state).unwrap();
    assert!(!journal.exists());
    cached(dir.path(), 1);
    // The patch was appended to the journal of the base of step 0.
    assert_eq!(std::fs::read(&state).unwrap(), old);
    assert!(journal.exists());

    // Stale: the state of an older cache (its base without the journal) is ignored
    // silently.
    std::fs::remove_file(&journal).unwrap();
    let b = cached(dir.path(), 2);
    assert!(!link_stats(&b).incremental);
    assert!(
        b.warnings.iter().all(|w| !w.contains("link state")),
        "{:?}",
        b.warnings
    );
    assert_eq!(outcome(&b), from_scratch(2));

    // Damaged: a warning.
    let mut bad = std::fs::read(&state).unwrap();
    let at = bad.len() / 2;
    bad[at] ^= 0x5a;
    std::fs::write(&state, &bad).unwrap();
    let b = cached(dir.path(), 3);
    assert!(!link_stats(&b).incremental);
    assert!(
        b.warnings.iter().any(|w| w.contains("link state")),
        "{:?}",
        b.warnings
    );
    assert_eq!(outcome(&b), from_scratch(3));

    // Missing.
    std::fs::remove_file(&state).unwrap();
    let b = cached(dir.path(), 4);
    assert!(!link_stats(&b).incremental);
    assert_eq!(outcome(&b), from_scratch(4));
    // And the next build patches again.
    let b = cached(dir.path(), 5);
    assert!(link_stats(&b).incremental);
    assert_eq!(outcome(&b), from_scratch(5));
}

/// Waits until the file at `path` is no longer racy (its metadata stands for its content).
fn wait_until_settled(path: &Path) {
    use query_driver::stamp::is_racy;
    use shared_frontend::sema::modules::{system_time_ns, FileStat};
    for _ in 0..100 {
        let stat = FileStat::from_metadata(std::fs::metadata(path));
        if !is_racy(&stat, system_time_ns(std::time::SystemTime::now())) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("`{}` stays racy", path.display());
}

#[test]
fn a_checked_base_is_recorded_and_a_changed_or_damaged_one_is_checked_again() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("image");
    let (state, record) = (
        image.join("link-state.bin"),
        image.join("link-state.checked"),
    );
    cached(dir.path(), 0);
    // A base just written is racy: no record yet.
    let b = cached(dir.path(), 1);
    assert!(link_stats(&b).incremental);
    let recorded_at_once = record.exists();
    wait_until_settled(&state);
    // The next build that saves checks the whole base and records it.
    let b = cached(dir.path(), 2);
    assert!(link_stats(&b).incremental);
    assert_eq!(outcome(&b), from_scratch(2));
    assert!(record.exists(), "recorded at once: {recorded_at_once}");
    let recorded = std::fs::read(&record).unwrap();
    // Builds on the recorded base patch as before, and leave the record as it is.
    for step in [3, 4] {
        let b = cached(dir.path(), step);
        assert!(link_stats(&b).incremental, "step {step}");
        assert_eq!(outcome(&b), from_scratch(step), "step {step}");
        assert!(b.warnings.iter().all(|w| !w.contains("link state")));
    }
    assert_eq!(std::fs::read(&record).unwrap(), recorded);

    // A damaged record names no file: the base is checked again, and recorded again.
    let mut bad = recorded.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    std::fs::write(&record, &bad).unwrap();
    let b = cached(dir.path(), 5);
    assert!(link_stats(&b).incremental);
    assert_eq!(outcome(&b), from_scratch(5));
    assert_eq!(std::fs::read(&record).unwrap(), recorded);

    // The base damaged after it was recorded: written, so its metadata changed, and the
    // damage is found (a warning, a link from scratch, a new base and no record).
    let mut bytes = std::fs::read(&state).unwrap();
    for at in (bytes.len() / 2..bytes.len()).step_by(512) {
        bytes[at] ^= 0x5a;
    }
    std::fs::write(&state, &bytes).unwrap();
    let b = cached(dir.path(), 6);
    assert!(!link_stats(&b).incremental);
    assert!(
        b.warnings.iter().any(|w| w.contains("link state")),
        "{:?}",
        b.warnings
    );
    assert_eq!(outcome(&b), from_scratch(6));
    assert!(!record.exists());
    let b = cached(dir.path(), 7);
    assert!(link_stats(&b).incremental);
    assert_eq!(outcome(&b), from_scratch(7));
}

/// What `link-state.checked` would hold for the file at `path` as it is now.
fn record_of(path: &Path) -> Vec<u8> {
    query_driver::link_state_checked_record(&std::fs::metadata(path).unwrap())
}

#[test]
fn verify_mode_checks_a_recorded_base_anyway() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("image");
    let (state, record) = (
        image.join("link-state.bin"),
        image.join("link-state.checked"),
    );
    cached(dir.path(), 0);
    cached(dir.path(), 1);
    wait_until_settled(&state);
    cached(dir.path(), 2);
    // The record names the file as it is (so the forged record below is one a save writes).
    assert_eq!(std::fs::read(&record).unwrap(), record_of(&state));

    // Damage that a record still vouches for (bytes changed behind the metadata's back,
    // which a write through the file system cannot do: here the record is rewritten).
    let mut bytes = std::fs::read(&state).unwrap();
    for at in (bytes.len() / 2..bytes.len()).step_by(512) {
        bytes[at] ^= 0x5a;
    }
    std::fs::write(&state, &bytes).unwrap();
    wait_until_settled(&state);
    std::fs::write(&record, record_of(&state)).unwrap();

    let mut options = BuildOptions {
        cache_dir: Some(dir.path().to_path_buf()),
        ..BuildOptions::default()
    };
    options.engine.verify = query::Verify::All;
    let b = build(loader(3), Path::new("main.rs"), Goal::Image, options);
    assert!(
        b.warnings.iter().any(|w| w.contains("link state")),
        "{:?}",
        b.warnings
    );
    assert!(!link_stats(&b).incremental);
    assert_eq!(outcome(&b), from_scratch(3));
}

/// The files `cache_file_replaced_whole` names (the cache file and the link state's base,
/// not the journals, the records or the lock) keep their bytes through every later build,
/// whether it appends to the journals or writes a new file in place of one: a hard link
/// to one is a snapshot of it.
#[test]
fn the_files_never_written_in_place_keep_their_bytes() {
    use query_driver::cache_file_replaced_whole as replaced_whole;
    use std::collections::{BTreeMap, BTreeSet};
    use std::ffi::OsStr;
    use std::os::unix::fs::MetadataExt;
    for name in [
        "query-cache.delta",
        "query-cache.checked",
        "query-cache.lock",
        "link-state.jnl",
        "link-state.checked",
    ] {
        assert!(!replaced_whole(OsStr::new(name)), "{name}");
    }
    let dir = tempfile::tempdir().unwrap();
    let aside = tempfile::tempdir().unwrap();
    let image = dir.path().join("image");
    let mut kept = Vec::new();
    let mut inodes: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    // Enough steps for the journal to pass a quarter of the cache file: a save then writes
    // a new cache file.
    for step in 0..40 {
        if step == 6 {
            // A stale state: the next build links from scratch and writes a new base.
            std::fs::remove_file(image.join("link-state.jnl")).unwrap();
        }
        for e in std::fs::read_dir(&image).into_iter().flatten().flatten() {
            let name = e.file_name();
            if !replaced_whole(&name) {
                continue;
            }
            let name = name.to_string_lossy().to_string();
            inodes
                .entry(name.clone())
                .or_default()
                .insert(e.metadata().unwrap().ino());
            let link = aside.path().join(format!("{step}-{name}"));
            std::fs::hard_link(e.path(), &link).unwrap();
            kept.push((link, std::fs::read(e.path()).unwrap()));
        }
        let b = cached(dir.path(), step);
        assert_eq!(outcome(&b), from_scratch(step), "step {step}");
    }
    for (link, bytes) in &kept {
        assert!(std::fs::read(link).unwrap() == *bytes, "{}", link.display());
    }
    // Both were there, and each was replaced by a new file at least once.
    let names: Vec<&str> = inodes.keys().map(|k| k.as_str()).collect();
    assert_eq!(names, ["link-state.bin", "query-cache.bin"]);
    for (name, seen) in &inodes {
        assert!(seen.len() > 1, "{name}: never replaced");
    }
}
