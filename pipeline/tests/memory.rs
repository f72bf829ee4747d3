//! The pipeline's peak memory: each stage releases its input once the next stage has it
//! (a function's syntax tree once its body is type-checked; with `Until::ImageOnly`, the
//! item tree and the tables before code generation, and a function's IR once its code
//! exists), so that the peak is about one stage's data, not every stage's at once.
//!
//! The heap is measured by a global allocator that counts the bytes live at every moment
//! and the most ever live. The counts are exact and the same on every run of the same
//! program; the tests of this file take a lock so that none allocates while another
//! measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rill_gen::{self as gen, GenConfig};
use shared_frontend::sema::modules::{load_crate_with, MemLoader};
use shared_frontend::syntax::parser;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One measurement at a time.
static MEASURING: Mutex<()> = Mutex::new(());

/// The most bytes live while `f` runs, above what was live when it started.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.load(Ordering::Relaxed);
    PEAK.store(start, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - start)
}

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
    let (krate, syntax) = peak_during(|| load_crate_with(&loader, root, &parser::parse_file));
    drop(krate);
    let (compiled, peak) =
        peak_during(|| pipeline::compile(&loader, root, pipeline::Until::ImageOnly));
    assert!(compiled.image.is_some() && !compiled.has_errors());
    let per_line = peak / lines;
    eprintln!(
        "{lines} lines: parsed crate {syntax} bytes, peak {peak} bytes ({per_line}/line, {:.2} × the parsed crate)",
        peak as f64 / syntax as f64
    );
    // Typed trees take about as much room as the syntax trees they come from. Were the
    // syntax kept until the end of type checking, the peak would be both (measured on
    // this program: 1.9 × the parsed crate, 760 bytes a line); released as each body is
    // checked, it is the typed trees, the item tree and the tables (1.15 ×, 460 bytes).
    assert!(
        peak < syntax * 3 / 2,
        "peak {peak} bytes, parsed crate {syntax} bytes"
    );
    assert!(per_line < 600, "{per_line} bytes a line at the peak");
}

#[test]
fn image_only_keeps_only_the_image_and_it_is_the_same_image() {
    let _lock = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (loader, _) = program(2_000);
    let root = Path::new("main.rs");
    let (full, full_peak) =
        peak_during(|| pipeline::compile(&loader, root, pipeline::Until::Image));
    let (only, only_peak) =
        peak_during(|| pipeline::compile(&loader, root, pipeline::Until::ImageOnly));
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
