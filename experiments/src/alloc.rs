//! The global allocator of the `rill` and `rill-fuzz` binaries: mimalloc, entered through
//! its plain `mi_malloc` family whenever the requested alignment is one mimalloc gives
//! every block of that size anyway.
//!
//! Both architectures allocate many small, short-lived objects, and a size-class allocator
//! serves them faster than the system's, for every architecture alike. The `mimalloc`
//! crate's own `GlobalAlloc` always calls the `_aligned` entry points, which check the
//! alignment and then reach the same size-class fast path through three more calls;
//! almost every Rust allocation asks for an alignment of at most 16, which mimalloc
//! guarantees for every block of at least that size.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment mimalloc gives every block whose size is at least this much
/// (`MI_MAX_ALIGN_SIZE`); smaller blocks are aligned to their size class.
const PLAIN_ALIGN: usize = 16;

/// mimalloc, with its plain entry points for the alignments they already satisfy.
pub struct Allocator;

/// Whether a plain (unaligned) mimalloc call returns memory aligned enough for `layout`:
/// the same rule the standard library's system allocator applies to `malloc`.
#[inline(always)]
fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

/// Zeroed blocks of at least this size are mapped from the kernel instead: its fresh pages
/// are zero already, and a page is only faulted in when it is touched. mimalloc clears a
/// large zeroed block whose memory it had used before, touching every page of it: the
/// query engine's table of the previous session's nodes (64 bytes per node, about 5.6 MB
/// at 100k lines), of which a rebuild touches a few pages, cost 1,400 page faults; at 10k
/// lines (about 0.6 MB) clearing it was a tenth of a leaf edit's rebuild instructions.
const MAPPED_ZEROED: usize = 1 << 18;

/// A block that grows to at least this size (a `Vec` doubling its capacity) is moved to
/// a mapping from the kernel, and from then on grows with `mremap`, which moves its pages
/// without copying them; its pages are given back to the kernel as soon as it is freed.
/// Inside mimalloc each growth copies the whole block into a new one, and the old one's
/// pages stay resident until mimalloc purges them or reuses them for smaller blocks. The
/// query engine's growing tables are such blocks: its nodes (64 bytes each, 8.4 MB of
/// capacity at 100k lines), the memo tables of the most read queries (2.6 MB each) and
/// the edges (2.1 MB). Measured at 100k lines from scratch (medians of 7 runs), the query
/// build's peak RSS went from 86.7 to 83.9 MB persisting its cache and from 81.1 to
/// 76.7 MB in memory, with 0.4 % fewer instructions (the copies); the pipeline's and a
/// no-change rebuild's peaks stayed where they were.
const MAPPED_GROWN: usize = 1 << 20;

/// The size of a page, to which mapped blocks are rounded.
const PAGE: usize = 4096;

extern "C" {
    /// Whether `p` is in memory mimalloc manages (part of every mimalloc build).
    fn mi_is_in_heap_region(p: *const c_void) -> bool;
    /// Collects the calling thread's heap; with `force`, purges the pages of freed blocks
    /// at once (part of every mimalloc build).
    fn mi_collect(force: bool);
    /// Sets and reads an option (`mi_option_e`; part of every mimalloc build).
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    #[cfg(test)]
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}

fn mapped_len(size: usize) -> usize {
    size.div_ceil(PAGE) * PAGE
}

/// A zeroed block of `size` bytes mapped from the kernel (page-aligned), or null.
unsafe fn map_zeroed(size: usize) -> *mut u8 {
    let p = libc::mmap(
        std::ptr::null_mut(),
        mapped_len(size),
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
        -1,
        0,
    );
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p as *mut u8
    }
}

/// Whether a block of `size` bytes at `ptr` was mapped by [`map_zeroed`]: only blocks of
/// that size can be, and mimalloc's own are inside its heap region.
#[inline]
unsafe fn is_mapped(ptr: *mut u8, size: usize) -> bool {
    size >= MAPPED_ZEROED && !mi_is_in_heap_region(ptr as *const c_void)
}

// SAFETY: every entry point forwards to the mimalloc function with the contract
// `GlobalAlloc` asks for; the plain calls are only taken when their guaranteed alignment
// covers the layout's. Blocks mapped by `map_zeroed` (page-aligned, so any alignment up
// to a page) are recognised by `is_mapped` and unmapped, or remapped, with their length.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            mi::mi_malloc(layout.size()) as *mut u8
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= MAPPED_ZEROED && layout.align() <= PAGE {
            return map_zeroed(layout.size());
        }
        if plain(layout.align(), layout.size()) {
            mi::mi_zalloc(layout.size()) as *mut u8
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_mapped(ptr, layout.size()) {
            libc::munmap(ptr as *mut c_void, mapped_len(layout.size()));
            return;
        }
        mi::mi_free(ptr as *mut c_void);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if is_mapped(ptr, layout.size()) {
            if new_size >= MAPPED_ZEROED {
                let p = libc::mremap(
                    ptr as *mut c_void,
                    mapped_len(layout.size()),
                    mapped_len(new_size),
                    libc::MREMAP_MAYMOVE,
                );
                return if p == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    p as *mut u8
                };
            }
            // Shrunk below the threshold: into mimalloc, so that `is_mapped` stays true
            // only of mapped blocks.
            let new = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, new_size);
                libc::munmap(ptr as *mut c_void, mapped_len(layout.size()));
            }
            return new;
        }
        if new_size >= MAPPED_GROWN && new_size > layout.size() && layout.align() <= PAGE {
            // A block growing this large moves to a mapping once, and grows from then on
            // with `mremap` (see `MAPPED_GROWN`).
            let new = map_zeroed(new_size);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size());
                mi::mi_free(ptr as *mut c_void);
                return new;
            }
        }
        if plain(layout.align(), new_size) {
            mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
        } else {
            mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}

/// Keeps this process's heap on 4 KiB pages.
///
/// mimalloc reserves its arena with `madvise(MADV_HUGEPAGE)` and later gives unused
/// ranges back with `MADV_DONTNEED`, so on a kernel whose transparent huge pages are in
/// `madvise` mode each new touch of such a range can fault in, and zero, a whole 2 MiB
/// page. Under virtualisation a fresh 2 MiB page can cost hundreds of microseconds, and
/// whether one is fresh depends on what the rest of the machine did before: measured on a
/// 100k-line program, the same rebuild took 30 ms or 400 ms (0.4 s of it in the kernel
/// zeroing pages) from one run to the next. A compiler process is short-lived and its
/// working set is small enough that huge pages buy nothing back, so both architectures
/// run without them. The call takes effect at the next page fault, whatever was
/// reserved before it; a kernel without the option leaves the process as it was.
///
/// The standard library's start-up allocates before `main` runs, and mimalloc's first
/// segment, faulted in then, would be a 2 MiB page zeroed in the kernel (0.2 to 1.5 ms of
/// every `rill` process, measured with the call in `main` alone): so it also runs as the
/// program is loaded ([`WITHOUT_HUGE_PAGES_AT_LOAD`]), before any allocation.
pub fn without_huge_pages() {
    // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` only sets a flag of this process's
    // address space; it reads and writes no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// `mi_option_purge_delay` and `mi_option_purge_extend_delay`: their places in the enum
/// `mi_option_e` of the mimalloc (v2) that `libmimalloc-sys` builds, which names only some
/// of its options (a test checks both against the linked library's defaults).
#[cfg(test)]
const MI_OPTION_PURGE_DELAY: libc::c_int = 15;
const MI_OPTION_PURGE_EXTEND_DELAY: libc::c_int = 25;

/// Makes mimalloc purge freed pages when its delay (10 ms) has passed, instead of pushing
/// the deadline of a segment's purge 1 ms further for every span freed in it before the
/// deadline (`mi_option_purge_extend_delay`, 1 by default, set to 0 here unless the
/// environment sets `MIMALLOC_PURGE_EXTEND_DELAY`). A build that frees pages faster than
/// one per millisecond, as the query architecture does while it checks files and generates
/// code in turn (releasing each file's syntax, typed bodies and IR as it goes), never
/// reached that deadline: its resident memory grew by some 10 MiB over its freed pages
/// while the heap it used stayed level. Measured at 100k lines from scratch in memory
/// (6 alternated runs): peak RSS 63.5 -> 60.5 MiB, the pipeline's 49.1 -> 49.1; at 1M lines
/// of many small functions 704 -> 681 MiB, the pipeline's 454 -> 453; time (20 paired runs)
/// query 1.007 [0.983-1.016], pipeline 0.999 [0.987-1.020].
pub fn purge_without_extension() {
    if std::env::var_os("MIMALLOC_PURGE_EXTEND_DELAY").is_none() {
        // SAFETY: `mi_option_set` only stores the option's value.
        unsafe { mi_option_set(MI_OPTION_PURGE_EXTEND_DELAY, 0) }
    }
}

/// Gives the pages of mimalloc's blocks freed so far back to the kernel now, rather than
/// 10 ms after they were freed (its default delay): registered with
/// [`backend::link::set_give_back_freed_memory`], it runs before a link from scratch. At
/// 100k lines from scratch, the query architecture's one-build session frees its values
/// right before that link (10 MiB of heap): with a collection there, its peak RSS
/// persisting fell from 68.9 to 64.0 MiB (the same binary with and without it, medians of
/// 8 alternated runs); the pipeline's link follows the freeing of its IR, and its peak
/// fell from 50.8 to 48.0 MiB (10 runs); time 1.004 and 1.010 [0.988-1.033] (20 paired
/// runs).
pub fn give_back_freed_memory() {
    // SAFETY: `mi_collect` only walks and purges mimalloc's own structures.
    unsafe { mi_collect(true) }
}

/// Makes the process end, once `main` has returned (and the standard library has flushed
/// its output) or `std::process::exit` was called, without the C library's teardown after
/// that: mimalloc's collection of every heap at exit, which frees its retired pages and
/// gives its free ranges back to the kernel with `madvise` (a system call per range), and
/// the loader's destructors, moments before the kernel frees the whole address space
/// anyway. A rebuild of a small program is a few milliseconds, of which these were some
/// 23k instructions and half a dozen system calls. The exit status is `main`'s: the
/// handler is registered with `on_exit`, which is handed it, and runs before the handlers
/// registered earlier (mimalloc's and the loader's, at load), the latest first.
pub fn exit_without_teardown() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn on_exit(
                handler: extern "C" fn(libc::c_int, *mut c_void),
                arg: *mut c_void,
            ) -> libc::c_int;
        }
        extern "C" fn end(status: libc::c_int, _: *mut c_void) {
            // SAFETY: `_exit` ends the process; nothing runs after it.
            unsafe { libc::_exit(status) }
        }
        // SAFETY: registers a handler that takes no data; a registration that fails
        // leaves the usual teardown.
        unsafe {
            on_exit(end, std::ptr::null_mut());
        }
    }
}

/// [`without_huge_pages`], run by the loader before `main` (and before the standard
/// library's start-up) in every binary that links this module.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static WITHOUT_HUGE_PAGES_AT_LOAD: extern "C" fn() = {
    extern "C" fn at_load() {
        without_huge_pages();
    }
    at_load
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The options set by their places in mimalloc's enum are the ones meant: the linked
    /// library's defaults (10 ms and 1 ms) are read at those places, unless the
    /// environment sets them; and the purge's extension is 0 once it is turned off.
    #[test]
    fn the_purge_options_are_found_at_their_places() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // SAFETY: reads an option.
            assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 10);
        }
        if std::env::var_os("MIMALLOC_PURGE_EXTEND_DELAY").is_none() {
            // SAFETY: reads an option.
            assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_EXTEND_DELAY) }, 1);
            purge_without_extension();
            // SAFETY: reads an option.
            assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_EXTEND_DELAY) }, 0);
        }
    }

    /// Every size and alignment either path can see is allocated aligned, and keeps its
    /// contents when it grows and shrinks.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let a = Allocator;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [
                1usize,
                3,
                8,
                12,
                16,
                17,
                24,
                31,
                64,
                100,
                1000,
                5000,
                1 << 20,
                (1 << 20) + 1,
                3 << 20,
            ] {
                let layout = Layout::from_size_align(size, align).unwrap();
                for new in [1, size / 2 + 1, size * 3] {
                    unsafe {
                        let p = a.alloc(layout);
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                        for i in 0..size {
                            *p.add(i) = i as u8;
                        }
                        let q = a.realloc(p, layout, new);
                        assert!(!q.is_null());
                        assert_eq!(q as usize % align, 0, "{size} -> {new}, align {align}");
                        assert!((0..size.min(new)).all(|i| *q.add(i) == i as u8));
                        a.dealloc(q, Layout::from_size_align(new, align).unwrap());
                    }
                }
                unsafe {
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
                // A zeroed block (mapped from the kernel when large) grows and shrinks
                // across the mapping threshold with its contents.
                for new in [1, size / 2 + 1, size * 3, MAPPED_ZEROED + 5] {
                    unsafe {
                        let z = a.alloc_zeroed(layout);
                        assert!(!z.is_null());
                        for i in 0..size {
                            *z.add(i) = (i % 251) as u8;
                        }
                        let q = a.realloc(z, layout, new);
                        assert!(!q.is_null());
                        assert_eq!(
                            q as usize % align,
                            0,
                            "zeroed {size} -> {new}, align {align}"
                        );
                        assert!((0..size.min(new)).all(|i| *q.add(i) == (i % 251) as u8));
                        *q.add(new - 1) = 7;
                        a.dealloc(q, Layout::from_size_align(new, align).unwrap());
                    }
                }
            }
        }
    }

    /// A block doubling as a `Vec` does keeps its contents as it moves to a mapping
    /// (`MAPPED_GROWN`) and grows on there, then shrinks back below both thresholds.
    #[test]
    fn a_growing_block_keeps_its_contents_into_a_mapping_and_out() {
        let a = Allocator;
        for align in [8usize, 64, 4096] {
            let mut size = 4096;
            unsafe {
                let mut p = a.alloc(Layout::from_size_align(size, align).unwrap());
                let fill = |p: *mut u8, from: usize, to: usize| {
                    for i in from..to {
                        *p.add(i) = (i % 253) as u8;
                    }
                };
                fill(p, 0, size);
                while size < 8 * MAPPED_GROWN {
                    let new = size * 2;
                    p = a.realloc(p, Layout::from_size_align(size, align).unwrap(), new);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "{size} -> {new}, align {align}");
                    assert!((0..size).all(|i| *p.add(i) == (i % 253) as u8));
                    fill(p, size, new);
                    size = new;
                }
                assert!(is_mapped(p, size));
                for new in [3 * MAPPED_GROWN, MAPPED_ZEROED + 5, 100] {
                    p = a.realloc(p, Layout::from_size_align(size, align).unwrap(), new);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "{size} -> {new}, align {align}");
                    assert!((0..new).all(|i| *p.add(i) == (i % 253) as u8));
                    size = new;
                }
                a.dealloc(p, Layout::from_size_align(size, align).unwrap());
            }
        }
    }
}
