//! E8: rustc on the same programs and edits.
//!
//! rustc reads and hashes every source file in every build, so Rill's query rows compared
//! with it (`rill-query`) find changed files the same way (`--change-detection hash`).
//! The rows `rill-query-stat` are the incremental rebuilds with Rill's default, which
//! reads only the files whose metadata changed (`--change-detection stat`).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rill_gen::Edit;

use super::measure::{
    interleave, process_side, row_from, scratch_side, IncrementalRun, Side, NO_LEAF_EDIT,
};
use super::readout::median;
use super::SEED;
use crate::runner::process::{self, ProcRun};
use crate::runner::rill::{Mode, NoMeasurement};
use crate::runner::workload::{OnDisk, Shape};
use crate::runner::{copy_dir, Ctx, Outcome};

/// The oracle's rustc flags, for the runner and the oracle test (LANGUAGE.md "The reference
/// implementation").
pub const RUSTC_FLAGS: &[&str] = &[
    "--edition",
    "2021",
    "-C",
    "overflow-checks=off",
    "-A",
    "warnings",
    "-A",
    "arithmetic_overflow",
    "-A",
    "unconditional_panic",
];

/// One rustc build of `root` into `out`, incremental in `incr` if given; timed.
pub fn rustc_build(
    root: &Path,
    out: &Path,
    incr: Option<&Path>,
    opt: &str,
    timeout: Option<Duration>,
) -> Result<ProcRun, String> {
    let mut cmd = Command::new("rustc");
    cmd.args(RUSTC_FLAGS)
        .arg("-C")
        .arg(format!("opt-level={opt}"))
        .arg(root)
        .arg("-o")
        .arg(out);
    if let Some(dir) = incr {
        cmd.arg("-C").arg(format!("incremental={}", dir.display()));
    }
    let r = process::run(&mut cmd, timeout)?;
    match r.exit {
        Some(0) => Ok(r),
        _ => Err(format!("rustc failed: {}", r.stderr_line())),
    }
}

/// The scenarios of E8, in order: from scratch, incremental on an empty cache, after no
/// change, after the leaf-body edit.
const SCENARIOS: [&str; 4] = ["full", "incr-full", "incr-unchanged", "incr-patched"];

/// Rill's configurations, in the order of its sides: (scenario, architecture).
/// `rill-query` detects changes by content as rustc does; `rill-query-stat` by metadata.
const RILL: [(&str, &str); 7] = [
    ("full", "rill-pipeline"),
    ("full", "rill-query"),
    ("incr-full", "rill-query"),
    ("incr-unchanged", "rill-query"),
    ("incr-patched", "rill-query"),
    ("incr-unchanged", "rill-query-stat"),
    ("incr-patched", "rill-query-stat"),
];

/// The options of Rill's query builds compared with rustc.
const HASH: &[&str] = &["--change-detection", "hash"];

/// The scenarios measured with both change detections.
const DETECTED: [&str; 2] = ["incr-unchanged", "incr-patched"];

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let mut o = Outcome::default();
    let size = ctx.profile.rustc_size;
    ctx.start_progress("E8", 1);
    let dir = ctx.dir("e8");
    let program = ctx.program(Shape::Default, size, SEED);
    let leaf = ctx.leaf_edits(Shape::Default, size, SEED);
    let edit = &leaf.changing.as_ref().ok_or(NO_LEAF_EDIT)?.0;
    let disk = OnDisk::create(&dir.join("prog"), program.clone())?;
    let rill_root = dir.join("rill-prog");
    let rill_disk = OnDisk::create(&rill_root, program.clone())?;
    let rill_root = rill_disk.root();
    // rustc's four scenarios and rill's seven configurations, all in the same rounds.
    // The incremental histories are built once their files are settled (not racy), as a
    // program saved before it is built is, so that the stat rows measure a rebuild after
    // no change rather than after the program was written.
    ctx.set_message("rustc and rill");
    let cache = dir.join("rill-cache");
    let mut sides = rustc_sides(ctx, &dir, disk, edit);
    let incremental = |name: &str, edited: bool, detection: &'static str| {
        let run = IncrementalRun::new(ctx, dir.join(name), &program).change_detection(detection);
        if edited {
            run.edited(&edit.program).side()
        } else {
            run.side()
        }
    };
    sides.extend([
        scratch_side(ctx, Mode::Run, &rill_root, "pipeline", None, &[]),
        scratch_side(ctx, Mode::Run, &rill_root, "query", None, HASH),
        scratch_side(ctx, Mode::Run, &rill_root, "query", Some(&cache), HASH),
        incremental("rill-unchanged", false, "hash"),
        incremental("rill-patched", true, "hash"),
        incremental("rill-unchanged-stat", false, "stat"),
        incremental("rill-patched-stat", true, "stat"),
    ]);
    let runs = interleave(ctx, ctx.profile.reps, sides);
    let configs = SCENARIOS.iter().map(|s| (*s, "rustc")).chain(RILL);
    for ((scenario, arch), runs) in configs.zip(&runs) {
        let mut row = row_from(ctx, scenario, arch, size, runs);
        if scenario == "incr-patched" {
            row.note = edit.description.clone();
        }
        o.rows.push(row);
    }
    ctx.step();
    ctx.finish_progress();
    o.samples = ctx.take_samples();
    values(&mut o, size);
    Ok(o)
}

/// rustc's sides for the program in `disk`, in the order of [`SCENARIOS`]: from scratch,
/// incremental on an empty directory, incremental after no change and after `edit`
/// (both on a copy of the directory an incremental build of the program left).
fn rustc_sides<'s>(ctx: &'s Ctx, dir: &Path, mut disk: OnDisk, edit: &'s Edit) -> Vec<Side<'s>> {
    let program = disk.program.clone();
    let root = disk.root();
    let exe = dir.join("prog.bin");
    let t = ctx.timeout();
    let snap = dir.join("incr-snapshot");
    let _ = std::fs::remove_dir_all(&snap);
    let snapshot = rustc_build(&root, &exe, Some(&snap), "0", t).map(drop);
    let from_snapshot = |name: &str| -> Side<'s> {
        if let Err(e) = &snapshot {
            return Err(NoMeasurement::Failed(e.clone()));
        }
        let (snap, incr) = (snap.clone(), dir.join(name));
        let (root, exe) = (root.clone(), exe.clone());
        process_side(move || {
            copy_dir(&snap, &incr).map_err(|e| format!("incremental snapshot: {e}"))?;
            rustc_build(&root, &exe, Some(&incr), "0", t)
        })
    };
    let unchanged = from_snapshot("incr-unchanged");
    let patched = if snapshot.is_ok() {
        let (snap, incr) = (snap.clone(), dir.join("incr-patched"));
        let exe = exe.clone();
        process_side(move || {
            copy_dir(&snap, &incr).map_err(|e| format!("incremental snapshot: {e}"))?;
            let root = disk.root();
            disk.replace(edit.program.clone())?;
            let r = rustc_build(&root, &exe, Some(&incr), "0", t);
            disk.replace(program.clone())?;
            r
        })
    } else {
        from_snapshot("incr-patched")
    };
    let incr = dir.join("incr-full");
    let (root2, exe2) = (root.clone(), exe.clone());
    vec![
        process_side(move || rustc_build(&root, &exe, None, "0", t)),
        process_side(move || {
            let _ = std::fs::remove_dir_all(&incr);
            rustc_build(&root2, &exe2, Some(&incr), "0", t)
        }),
        unchanged,
        patched,
    ]
}

/// The headline keys and paper values of E8.
fn values(o: &mut Outcome, size: usize) {
    o.ratio_headline(
        "e8_rustc_patched_over_full",
        ("incr-patched", "rustc", size),
        ("full", "rustc", size),
    );
    o.ratio_headline(
        "e8_rill_patched_over_full",
        ("incr-patched", "rill-query", size),
        ("full", "rill-query", size),
    );
    o.value("e8.size", Some(size as f64));
    for s in SCENARIOS {
        let k = s.replace('-', "_");
        for (compiler, arch) in [("rustc", "rustc"), ("rill", "rill-query")] {
            o.median_value(&format!("e8.{compiler}_{k}_ms"), (s, arch, size));
            o.paired_ratio_value(
                &format!("e8.{compiler}_{k}_ratio"),
                (s, arch, size),
                ("full", arch, size),
            );
        }
    }
    // Rill's rebuilds with its default change detection, beside the rows compared with
    // rustc: the time, and its ratio to the same rebuild detecting by content.
    for s in DETECTED {
        let k = s.replace('-', "_");
        o.median_value(
            &format!("e8.rill_stat_{k}_ms"),
            (s, "rill-query-stat", size),
        );
        o.paired_ratio_value(
            &format!("e8.rill_stat_{k}_ratio"),
            (s, "rill-query-stat", size),
            ("full", "rill-query", size),
        );
        o.paired_ratio_value(
            &format!("e8.rill_stat_over_hash_{k}"),
            (s, "rill-query-stat", size),
            (s, "rill-query", size),
        );
    }
    o.median_value("e8.pipeline_full_ms", ("full", "rill-pipeline", size));
    let lps = median(&o.rows, ("full", "rustc", size)).map(|ms| size as f64 / (ms / 1e3));
    o.value("e8.rustc_lines_per_s", lps);
    o.paired_ratio_value(
        "e8.rustc_over_pipeline",
        ("full", "rustc", size),
        ("full", "rill-pipeline", size),
    );
}
