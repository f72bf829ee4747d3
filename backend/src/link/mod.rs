//! The linker: places the blobs of all functions in one code buffer (each at a 16-byte
//! aligned offset), patches their relocations and maps the result as an [`Image`]: the
//! code read+execute and, after it on its own read-write (never executable) page, the run
//! context: the stack-limit word, the run-state pointer and the runtime entry points'
//! indirection table. An image of a link state read from a file maps the code from the
//! file instead of copying it ([`LinkState::image`]). All relocations are PC-relative, so the code bytes do not depend on
//! where the image is mapped or where the runtime lives.
//!
//! Linking is incremental ([`LinkState`], in `state`): the buffer keeps a slot per
//! function, and a patch rewrites only the changed functions and the call sites of those
//! that moved. [`link`] is a link from scratch.
//!
//! [`Image::hash`] is defined over what the program is, not over where its parts were
//! placed (`hash`): a wrapping sum of one stable hash per function (its def-id and its
//! blob as code generation produced it) and one of the entry point, so link order,
//! placement and patching do not change it, and a patch updates it per function.

mod codec;
mod hash;
mod state;

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use shared_frontend::sema::def::DefId;

use crate::blob::{CodeBlob, RuntimeFn};

pub use codec::DecodeError;
pub use codec::{BaseBytes, MappedFile, JOURNAL_HEADER};
pub use hash::{entry_hash, function_hash};
pub use state::{Layout, LeanPlan, LinkState, PatchStats, SavePlan, CHECK_AHEAD_MIN};

const PAGE: usize = 4096;
/// Words of the context page before the runtime table.
pub(crate) const CONTEXT_WORDS: usize = 2;
/// Images are limited so that every rel32 reaches.
const MAX_IMAGE: usize = 1 << 30;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    DuplicateFunction(DefId),
    /// The entry point is missing.
    NoMain(DefId),
    /// `main` must take no parameters.
    MainTakesParameters(DefId),
    /// A call of a function that is not linked.
    UnresolvedFunction {
        caller: DefId,
        callee: DefId,
    },
    /// A call passes a different number of arguments than the callee takes.
    ArityMismatch {
        caller: DefId,
        callee: DefId,
        args: u32,
        params: u32,
    },
    /// A relocation outside its blob's bytes.
    BadRelocation(DefId),
    TooLarge,
    /// A layout given to [`LinkState::link_at`] does not hold the functions.
    BadLayout,
    /// The operating system refused the mapping.
    Map(String),
    /// A part of a stored link state failed its check when first used.
    Damaged(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::DuplicateFunction(d) => write!(f, "two functions with def-id {d}"),
            LinkError::NoMain(d) => write!(f, "no main function {d}"),
            LinkError::MainTakesParameters(d) => write!(f, "main function {d} takes parameters"),
            LinkError::UnresolvedFunction { caller, callee } => {
                write!(f, "{caller} calls unknown function {callee}")
            }
            LinkError::ArityMismatch {
                caller,
                callee,
                args,
                params,
            } => write!(
                f,
                "{caller} calls {callee} with {args} arguments, expected {params}"
            ),
            LinkError::BadRelocation(d) => write!(f, "bad relocation in {d}"),
            LinkError::TooLarge => write!(f, "image larger than 1 GiB"),
            LinkError::BadLayout => write!(f, "the layout does not hold the functions"),
            LinkError::Map(e) => write!(f, "cannot map the image: {e}"),
            LinkError::Damaged(e) => write!(f, "damaged link state: {e}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// Makes the list of function offsets of an image (reading a stored state's slots, which
/// may turn out damaged).
pub(crate) type OffsetList = Box<dyn FnOnce() -> Result<Vec<(DefId, usize)>, LinkError> + Send>;

/// A linked program, ready to run ([`Image::run`]).
pub struct Image {
    pub(crate) mem: *mut u8,
    pub(crate) len: usize,
    pub(crate) code_len: usize,
    pub(crate) context: usize,
    pub(crate) main: usize,
    /// Function start offsets, in address order, made on first use by `list_offsets`.
    offsets: OnceLock<Result<Vec<(DefId, usize)>, LinkError>>,
    list_offsets: Mutex<Option<OffsetList>>,
    hash: u128,
    /// One run at a time (the context page belongs to the run).
    pub(crate) run_lock: Mutex<()>,
}

// SAFETY: the raw pointer is the image's own mapping (no other value refers to it, and
// it is unmapped only by `Drop`), so moving the image to another thread moves the
// mapping with it.
unsafe impl Send for Image {}
// SAFETY: through `&Image` the code part is only read (it is read+execute once the image
// is made), and the context page is written only by `Image::run`, which holds `run_lock`
// for the whole run, so two threads never write it at once.
unsafe impl Sync for Image {}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: `mem`/`len` is the mapping `Image::map` made, unmapped only here; no run
        // is in progress (`run` borrows the image) and `code` slices borrow it too.
        unsafe {
            libc::munmap(self.mem as *mut libc::c_void, self.len);
        }
    }
}

impl Image {
    /// The program's hash: of every function's def-id and blob and of the entry point,
    /// independent of placement (see the module documentation).
    pub fn hash(&self) -> u128 {
        self.hash
    }

    /// The linked code and data.
    pub fn code(&self) -> &[u8] {
        // SAFETY: the first `code_len` bytes of the mapping are the code and data, mapped
        // readable for as long as the image lives and never written after `map`.
        unsafe { std::slice::from_raw_parts(self.mem, self.code_len) }
    }

    /// Offset of each function's code in [`Image::code`], in address order. Made on
    /// first use: for an image of a stored link state, from its slots, whose blocks are
    /// checked then (a damaged one is an error; the image's code was checked when it was
    /// made).
    pub fn function_offsets(&self) -> Result<&[(DefId, usize)], LinkError> {
        let offsets = self.offsets.get_or_init(|| {
            let list = self.list_offsets.lock().ok().and_then(|mut l| l.take());
            list.map_or_else(|| Ok(Vec::new()), |f| f())
        });
        offsets.as_deref().map_err(Clone::clone)
    }

    pub(crate) fn context_ptr(&self) -> *mut u64 {
        // SAFETY: `context` (page-aligned, below `len`) is the offset of the context page
        // in the mapping.
        unsafe { self.mem.add(self.context) as *mut u64 }
    }

    /// Maps `code_len` bytes of code (already patched for a context page at offset
    /// `context`, page-aligned and at least `code_len`): the first `source.len` bytes
    /// mapped from the file when there is a `source` (private, so that writing a page
    /// copies that page only), the rest zeros, all of which `fill` then checks and
    /// completes. Fills the runtime table and protects the code read+execute.
    fn map(
        code_len: usize,
        source: Option<CodeSource>,
        fill: impl FnOnce(&mut [u8]) -> Result<(), LinkError>,
        context: usize,
        main: usize,
        offsets: OffsetList,
        hash: u128,
    ) -> Result<Image, LinkError> {
        debug_assert!(context % PAGE == 0 && context >= code_len && context > 0);
        let context_bytes = 8 * (CONTEXT_WORDS + RuntimeFn::ALL.len());
        let len = context + align_up(context_bytes, PAGE);
        let os_error = || LinkError::Map(std::io::Error::last_os_error().to_string());
        // SAFETY: a new anonymous private mapping at an address of the kernel's choice (a
        // null hint) replaces nothing; the result is checked for `MAP_FAILED` below.
        let mem = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if mem == libc::MAP_FAILED {
            return Err(os_error());
        }
        let mem = mem as *mut u8;
        // From here the image owns the mapping (Drop unmaps it on every path).
        let image = Image {
            mem,
            len,
            code_len,
            context,
            main,
            offsets: OnceLock::new(),
            list_offsets: Mutex::new(Some(offsets)),
            hash,
            run_lock: Mutex::new(()),
        };
        if let Some(source) = source.filter(|s| s.len > 0) {
            image.map_file(&source)?;
        }
        // SAFETY: the whole mapping just made, read-write, referred to by nothing else
        // until `image` is returned; `buf` is last used before the `mprotect` below.
        let buf = unsafe { std::slice::from_raw_parts_mut(mem, len) };
        fill(&mut buf[..code_len])?;
        for (k, &f) in RuntimeFn::ALL.iter().enumerate() {
            let addr = crate::runtime::entry_point(f) as u64;
            let w = context + 8 * (CONTEXT_WORDS + k);
            buf[w..w + 8].copy_from_slice(&addr.to_le_bytes());
        }
        // SAFETY: the first `context` bytes (whole pages) of our mapping, the code, which
        // nothing writes any more.
        let rc = unsafe {
            libc::mprotect(
                mem as *mut libc::c_void,
                context,
                libc::PROT_READ | libc::PROT_EXEC,
            )
        };
        if rc != 0 {
            return Err(os_error());
        }
        Ok(image)
    }

    /// Maps `source.len` bytes of the file over the start of the image's mapping,
    /// private and read-write: reading them shares the file's cached pages, and writing
    /// a page copies that page alone. The pages are not mapped in ahead (no
    /// `MAP_POPULATE`): the checks of the code usually run on the link state's own mapping
    /// of the file, so a page of the image is first touched when it is patched, checked
    /// here, or run, and a program that runs a small part of its code does not pay for
    /// the page tables of all of it.
    fn map_file(&self, source: &CodeSource) -> Result<(), LinkError> {
        use std::os::fd::AsRawFd;
        let refused = |e: std::io::Error| LinkError::Map(e.to_string());
        // SAFETY: `sysconf` reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let offset = libc::off_t::try_from(source.offset).map_err(|_| refused(einval()))?;
        if page != PAGE as libc::c_long || source.offset % PAGE as u64 != 0 {
            return Err(refused(einval()));
        }
        let n = align_up(source.len, PAGE);
        if n > self.context {
            return Err(refused(einval()));
        }
        // SAFETY: replaces (MAP_FIXED) the first `n` bytes of the image's own mapping,
        // which nothing refers to yet, with a private read-only mapping of the file;
        // the result is checked.
        let p = unsafe {
            libc::mmap(
                self.mem as *mut libc::c_void,
                n,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                source.file.as_raw_fd(),
                offset,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(refused(std::io::Error::last_os_error()));
        }
        // SAFETY: the pages just mapped, part of the image's mapping.
        let rc = unsafe { libc::mprotect(p, n, libc::PROT_READ | libc::PROT_WRITE) };
        if rc != 0 {
            return Err(refused(std::io::Error::last_os_error()));
        }
        Ok(())
    }
}

/// The start of an image's code as a file holds it: `len` bytes at `offset`
/// (page-aligned), which are never written in place.
pub(crate) struct CodeSource<'a> {
    pub file: &'a std::fs::File,
    pub offset: u64,
    pub len: usize,
}

fn einval() -> std::io::Error {
    std::io::Error::from_raw_os_error(libc::EINVAL)
}

fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

/// What gives the memory a process freed back to the system (see
/// [`set_give_back_freed_memory`]).
static GIVE_BACK_FREED_MEMORY: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets what gives the memory the process freed back to the system at once (the `rill`
/// command sets its allocator's purge). It is called at the start of every link from
/// scratch ([`LinkState::link`], through which [`link`] goes), the largest allocation of a
/// build, which each architecture makes right after freeing in bulk what it no longer
/// reads (the pipeline its tables and IR, the query architecture's one-build session its
/// values): pages an allocator would otherwise keep a while for reuse are not held beside
/// the link's. Set once; a later call is ignored.
pub fn set_give_back_freed_memory(f: fn()) {
    let _ = GIVE_BACK_FREED_MEMORY.set(f);
}

/// Calls what [`set_give_back_freed_memory`] set, if anything.
pub(crate) fn give_back_freed_memory() {
    if let Some(f) = GIVE_BACK_FREED_MEMORY.get() {
        f();
    }
}

/// Links `blobs` (placed in this order) into an image whose entry point is `main`.
pub fn link(blobs: &[(DefId, Arc<CodeBlob>)], main: DefId) -> Result<Image, LinkError> {
    LinkState::link(blobs, main)?.image()
}

pub(crate) fn runtime_index(f: RuntimeFn) -> usize {
    RuntimeFn::ALL.iter().position(|&g| g == f).unwrap_or(0)
}
