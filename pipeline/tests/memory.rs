//! The pipeline's peak memory: each stage releases its input once the next stage has it
//! (a function's syntax tree once its body is type-checked; with `Until::ImageOnly`, the
//! item tree and the tables before code generation, and a function's IR once its code
//! exists), so that the peak is about one stage's data, not every stage's at once.
//!
//! The heap is measured by a global allocator (`rill_gen::heap`) that counts the bytes live at every moment
//! and the most ever live. The counts are exact and the same on every run of the same
//! program; the tests of this file take a lock so that none allocates while another
//! measures.

use std::path::Path;
use std::sync::Mutex;

use rill_gen::{self as gen, heap, GenConfig};
use shared_frontend::sema::modules::{load_crate_with, MemLoader};
use shared_frontend::syntax::parser;

#[global_allocator]
static GLOBAL: heap::Counting = heap::Counting;

/// One measurement at a time.
static MEASURING: Mutex<()> = Mutex::new(());

/// A generated program of about `lines` lines, in memory, and its line count.
fn program(lines: usize) -> (MemLoader, usize) {
    let p = gen::generate(&GenConfig {
        seed: 7,
        target_lines: lines,
        editable: false,
        ..GenConfig::default()
    });
    let loader = MemLoader::new(p.files.iter().map(|f| (f.path.clone(), f.text.clone())));
    (loader, p.total_lines())
}

#[test]
fn peak_is_below_the_syntax_and_the_typed_trees_together() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (loader, lines) = program(20_000);
    let root = Path::new("main.rs");
    // What the parsed crate holds (its texts and syntax trees): the pipeline's first stage.
    let (krate, syntax) = heap::peak_during(|| load_crate_with(&loader, root, &parser::parse_file));
    drop(krate);
    let (compiled, peak) =
        heap::peak_during(|| pipeline::compile(&loader, root, pipeline::Until::ImageOnly));
    assert!(compiled.image.is_some() && !compiled.has_errors());
    let per_line = peak / lines;
    eprintln!(
        "{lines} lines: parsed crate {syntax} bytes, peak {peak} bytes ({per_line}/line, {:.2} × the parsed crate)",
        peak as f64 / syntax as f64
    );
    // Typed trees take about as much room as the syntax trees they come from. Were the
    // syntax kept until the end of type checking, the peak would be both (measured on
    // this program: 1.9 × the parsed crate, 760 bytes a line); released as each body is
    // checked, it is the typed trees, the item tree and the tables (1.24 ×, 340 bytes).
    assert!(
        peak < syntax * 3 / 2,
        "peak {peak} bytes, parsed crate {syntax} bytes"
    );
    // Expressions of 32 bytes and typed nodes of 40, their rare large parts in side
    // arrays: with nodes of 56 and 64 bytes the peak was 413 bytes a line here.
    assert!(per_line < 380, "{per_line} bytes a line at the peak");
}

#[test]
fn image_only_keeps_only_the_image_and_it_is_the_same_image() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (loader, _) = program(2_000);
    let root = Path::new("main.rs");
    let (full, full_peak) =
        heap::peak_during(|| pipeline::compile(&loader, root, pipeline::Until::Image));
    let (only, only_peak) =
        heap::peak_during(|| pipeline::compile(&loader, root, pipeline::Until::ImageOnly));
    assert!(full.ir.is_some() && !full.blobs.is_empty());
    assert!(only.ir.is_none() && only.blobs.is_empty() && only.asts.is_empty());
    let hash = |c: &pipeline::Compiled| c.image.as_ref().map(|i| i.hash());
    assert!(hash(&full).is_some());
    assert_eq!(hash(&full), hash(&only));
    assert_eq!(full.diagnostics, only.diagnostics);
    // Keeping every function's IR and code blob costs memory at the end of the run.
    assert!(
        only_peak < full_peak,
        "image only: peak {only_peak} bytes; image with IR and blobs: {full_peak} bytes"
    );
}
