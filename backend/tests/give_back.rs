//! Every link from scratch first calls what `set_give_back_freed_memory` set (the `rill`
//! command's allocator purge), once: the image link of the pipeline and the link state of
//! the query architecture alike. A test binary of its own: the hook is process-wide.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use backend::{codegen, link, LinkState};

static CALLS: AtomicUsize = AtomicUsize::new(0);

fn count() {
    CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn each_link_from_scratch_gives_back_freed_memory_once() {
    let p = common::gen::random_program(7);
    let blobs: Vec<_> = p
        .functions
        .iter()
        .map(|f| (f.def, Arc::new(codegen(f))))
        .collect();
    // The image linked without a hook, which the hook must not change.
    let before = link(&blobs, p.main).expect("links").hash();

    backend::link::set_give_back_freed_memory(count);
    let image = link(&blobs, p.main).expect("links");
    assert_eq!(image.hash(), before);
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
    let state = LinkState::link(&blobs, p.main).expect("links");
    assert_eq!(state.image().expect("an image").hash(), before);
    assert_eq!(CALLS.load(Ordering::SeqCst), 2);

    // Set once: a later hook is ignored.
    backend::link::set_give_back_freed_memory(|| panic!("a second hook is ignored"));
    link(&blobs, p.main).expect("links");
    assert_eq!(CALLS.load(Ordering::SeqCst), 3);
}
