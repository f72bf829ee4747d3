//! The linker: places the blobs of all functions in one mapping, in the given order
//! (each at a 16-byte aligned offset), patches their relocations and protects the code
//! read+execute. After the code, on its own read-write (never executable) page, comes the
//! run context: the stack-limit word, the run-state pointer and the runtime entry points'
//! indirection table. All relocations are PC-relative, so the code bytes do not depend on
//! where the image is mapped or where the runtime lives: [`Image::hash`] hashes them (and
//! the entry offset), never the context page.

use std::fmt;
use std::hash::Hasher;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use rustc_stable_hash::hashers::SipHasher128Hash;
use rustc_stable_hash::{FromStableHash, StableSipHasher128};
use shared_frontend::sema::def::DefId;

use crate::blob::{CodeBlob, RelocTarget, RuntimeFn};

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
    /// The operating system refused the mapping.
    Map(String),
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
            LinkError::Map(e) => write!(f, "cannot map the image: {e}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// A linked program, ready to run ([`Image::run`]).
pub struct Image {
    pub(crate) mem: *mut u8,
    pub(crate) len: usize,
    pub(crate) code_len: usize,
    pub(crate) context: usize,
    pub(crate) main: usize,
    /// Function start offsets, in link order.
    pub(crate) offsets: Vec<(DefId, usize)>,
    hash: u128,
    /// One run at a time (the context page belongs to the run).
    pub(crate) run_lock: Mutex<()>,
}

// SAFETY: the raw pointer is the image's own mapping (no other value refers to it, and
// it is unmapped only by `Drop`), so moving the image to another thread moves the
// mapping with it.
unsafe impl Send for Image {}
// SAFETY: through `&Image` the code part is only read (it is read+execute after `link`
// returns), and the context page is written only by `Image::run`, which holds `run_lock`
// for the whole run, so two threads never write it at once.
unsafe impl Sync for Image {}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: `mem`/`len` is the mapping `link` made, unmapped only here; no run is in
        // progress (`run` borrows the image) and `code` slices borrow it too.
        unsafe {
            libc::munmap(self.mem as *mut libc::c_void, self.len);
        }
    }
}

struct Hash128(u128);

impl FromStableHash for Hash128 {
    type Hash = SipHasher128Hash;
    fn from(SipHasher128Hash(h): SipHasher128Hash) -> Self {
        Hash128(h[0] as u128 | ((h[1] as u128) << 64))
    }
}

impl Image {
    /// A stable hash of the linked code and data (not of the run context).
    pub fn hash(&self) -> u128 {
        self.hash
    }

    /// The linked code and data.
    pub fn code(&self) -> &[u8] {
        // SAFETY: the first `code_len` bytes of the mapping are the code and data, mapped
        // readable for as long as the image lives and never written after `link`.
        unsafe { std::slice::from_raw_parts(self.mem, self.code_len) }
    }

    /// Offset of each function's code in [`Image::code`], in link order.
    pub fn function_offsets(&self) -> &[(DefId, usize)] {
        &self.offsets
    }

    pub(crate) fn context_ptr(&self) -> *mut u64 {
        // SAFETY: `context` (page-aligned, below `len`) is the offset of the context page
        // in the mapping.
        unsafe { self.mem.add(self.context) as *mut u64 }
    }
}

fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

/// Links `blobs` (in this order) into an image whose entry point is `main`.
pub fn link(blobs: &[(DefId, Arc<CodeBlob>)], main: DefId) -> Result<Image, LinkError> {
    let mut index: FxHashMap<DefId, usize> = FxHashMap::default();
    index.reserve(blobs.len());
    let mut offsets = Vec::with_capacity(blobs.len());
    let mut cur = 0usize;
    for (i, (def, blob)) in blobs.iter().enumerate() {
        if index.insert(*def, i).is_some() {
            return Err(LinkError::DuplicateFunction(*def));
        }
        cur = align_up(cur, 16);
        offsets.push((*def, cur));
        cur += blob.bytes.len();
        if cur > MAX_IMAGE {
            return Err(LinkError::TooLarge);
        }
    }
    let Some(&main_idx) = index.get(&main) else {
        return Err(LinkError::NoMain(main));
    };
    if blobs[main_idx].1.params != 0 {
        return Err(LinkError::MainTakesParameters(main));
    }
    let code_len = cur;
    let context = align_up(code_len.max(1), PAGE);
    let context_bytes = 8 * (CONTEXT_WORDS + RuntimeFn::ALL.len());
    let len = context + align_up(context_bytes, PAGE);

    // Check every relocation before mapping anything, resolving each call's callee (its
    // index in `blobs`, in relocation order) once for the patching below.
    let mut callees: Vec<u32> = Vec::new();
    for (def, blob) in blobs {
        for r in &blob.relocations {
            if r.offset as usize + 4 > blob.bytes.len() {
                return Err(LinkError::BadRelocation(*def));
            }
            if let RelocTarget::Function { callee, args } = r.target {
                let Some(&j) = index.get(&callee) else {
                    return Err(LinkError::UnresolvedFunction {
                        caller: *def,
                        callee,
                    });
                };
                if blobs[j].1.params != args {
                    return Err(LinkError::ArityMismatch {
                        caller: *def,
                        callee,
                        args,
                        params: blobs[j].1.params,
                    });
                }
                callees.push(j as u32);
            }
        }
    }

    // SAFETY: a new anonymous private mapping at an address of the kernel's choice (a null
    // hint) replaces nothing; the result is checked for `MAP_FAILED` below.
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
        return Err(LinkError::Map(std::io::Error::last_os_error().to_string()));
    }
    let mem = mem as *mut u8;
    // From here the image owns the mapping (Drop unmaps it on every path).
    let mut image = Image {
        mem,
        len,
        code_len,
        context,
        main: offsets[main_idx].1,
        offsets,
        hash: 0,
        run_lock: Mutex::new(()),
    };
    // SAFETY: the whole mapping just made, read-write, zero-filled and referred to by
    // nothing else until `image` is returned; `buf` is last used before the `mprotect`
    // below.
    let buf = unsafe { std::slice::from_raw_parts_mut(mem, len) };
    let mut callees = callees.into_iter();
    for (i, (_, blob)) in blobs.iter().enumerate() {
        let base = image.offsets[i].1;
        buf[base..base + blob.bytes.len()].copy_from_slice(&blob.bytes);
        for r in &blob.relocations {
            let p = base + r.offset as usize;
            let s = match r.target {
                RelocTarget::Function { .. } => {
                    image.offsets[callees.next().unwrap_or_default() as usize].1
                }
                RelocTarget::Runtime(f) => context + 8 * (CONTEXT_WORDS + runtime_index(f)),
                RelocTarget::Context(c) => context + 8 * c.index(),
            };
            let v = s as i64 + r.addend as i64 - p as i64;
            buf[p..p + 4].copy_from_slice(&(v as i32).to_le_bytes());
        }
    }
    let mut h = StableSipHasher128::new();
    h.write(&buf[..code_len]);
    h.write_u64(image.main as u64);
    image.hash = h.finish::<Hash128>().0;
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
        return Err(LinkError::Map(std::io::Error::last_os_error().to_string()));
    }
    Ok(image)
}

pub(crate) fn runtime_index(f: RuntimeFn) -> usize {
    RuntimeFn::ALL.iter().position(|&g| g == f).unwrap_or(0)
}
