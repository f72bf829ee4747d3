//! Allocations of one pipeline run: how many blocks and bytes the process allocates per
//! source line, up to checking (`check`) or up to the linked image (`image`).
//! `cargo run --release -p pipeline --example alloc_measure -- ROOT.rs [check|image]`
//!
//! The counts come from a global allocator wrapping the system's that counts every
//! allocation and every byte asked for (a `realloc` counts as one allocation of its new
//! size), so they are the same on every run of the same program.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Source lines of every `.rs` file under `dir`.
fn lines_under(dir: &Path) -> usize {
    let mut lines = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            lines += lines_under(&path);
        } else if path.extension().is_some_and(|e| e == "rs") {
            lines += std::fs::read_to_string(&path)
                .map(|t| t.lines().count())
                .unwrap_or(0);
        }
    }
    lines
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(root) = args.get(1) else {
        eprintln!("usage: alloc_measure ROOT.rs [check|image]");
        std::process::exit(2);
    };
    let until = match args.get(2).map(String::as_str) {
        None | Some("check") => pipeline::Until::Check,
        Some("image") => pipeline::Until::Image,
        Some(other) => {
            eprintln!("unknown stage `{other}`: check or image");
            std::process::exit(2);
        }
    };
    let root = Path::new(root);
    let lines = lines_under(root.parent().unwrap_or(Path::new("."))).max(1);
    let (a0, b0) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let compiled = pipeline::compile_path(root, until);
    let (a1, b1) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let (allocs, bytes) = (a1 - a0, b1 - b0);
    println!(
        "{lines} lines, {} diagnostics: {allocs} allocations ({:.2}/line), {bytes} bytes ({:.0}/line)",
        compiled.diagnostics.len(),
        allocs as f64 / lines as f64,
        bytes as f64 / lines as f64,
    );
}
