//! The link state on disk: a base file read in place, and a journal of patches.
//!
//! The base is fixed-width tables found from a checked directory, so opening it reads the
//! header and the directory only; each block of a table is checked (xxh3) the first time
//! it is used. All integers are little-endian.
//!
//! ```text
//! header (128 bytes)
//!   0 magic "RILLLNK\x02"   8 version u32, 4 zero bytes   16 tag u64 (the owner's generation)
//!  24 entry point u128       40 image hash u128            56 context page offset u64
//!  64 code length u64        72 live bytes u64             80 slots u64   88 relocation bytes u64
//!  96 edges u64             104 16 zero bytes             120 xxh3 of bytes 0..120 and the directory
//! directory: slot fences (first def-id of each block of 64 slots, 16 bytes each), slot block
//!   checksums (8 each), edge fences and checksums likewise, code chunk checksums (4 KiB chunks)
//! slots (64 bytes each, sorted by def-id): def-id u128, offset u32, length u32, capacity u32,
//!   parameters u32, where its relocations start in the relocation bytes u32, their length in
//!   bytes u32, xxh3 of its relocations u64, hash u128
//! relocations: each slot's as one run of variable-length entries (`CodeBlob`'s serialized
//!   form, `blob::reloc_stream`), in slot order
//! edges (32 bytes each, sorted): callee u128, caller u128, the reverse index
//! zero bytes up to the next multiple of 4 KiB
//! code: the patched buffer, page-aligned in the file so that an image can map it
//! ```
//!
//! The journal (`journal_*`) holds the patches made since the base: a 32-byte header naming
//! the base (its directory checksum), then records, each `[payload length u64][xxh3 u64]
//! [payload]`. A payload moves the state from one tag to the next: the new scalar fields,
//! the code pages written (4 KiB each, whole), the slots written (a slot record followed by
//! its relocations) and the def-ids removed. Records are only appended; a record cut short
//! or damaged ends the journal, and whether what precedes it reaches the wanted tag decides
//! between a usable state and a stale one.
//!
//! Nothing here panics on bad bytes: every length and count is checked against the file's
//! size before it is used.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use shared_frontend::sema::def::{DefId, DefPathHash};
use xxhash_rust::xxh3::xxh3_64;

use super::state::Slot;
use super::{align_up, MAX_IMAGE, PAGE};
use crate::blob::{reloc_stream, RelocTarget};

const MAGIC: [u8; 8] = *b"RILLLNK\x02";
/// The version of the format; bump it when the layout or meaning of a field changes.
const VERSION: u32 = 4;
const HEADER: usize = 128;
/// Records per checked block of a table.
const BLOCK: usize = 64;
/// Bytes per checked chunk of code (a journal page, so a patch checks what it copies).
const CHUNK: usize = JPAGE;
const SLOT: usize = 64;
const EDGE: usize = 32;
const JMAGIC: [u8; 8] = *b"RILLJNL\x01";
/// Length of the journal's header.
pub const JOURNAL_HEADER: usize = 32;
/// Fixed part of a journal payload.
const JFIXED: usize = 96;
/// The granularity of code in the journal.
pub(crate) const JPAGE: usize = 4096;

/// Why stored link state bytes were not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    TooShort,
    BadMagic,
    Version(u32),
    Length,
    Checksum,
    Body(String),
    Invalid(&'static str),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::TooShort => write!(f, "truncated"),
            DecodeError::BadMagic => write!(f, "not a link state"),
            DecodeError::Version(v) => write!(f, "format version {v}, expected {VERSION}"),
            DecodeError::Length => write!(f, "truncated or extended"),
            DecodeError::Checksum => write!(f, "checksum mismatch"),
            DecodeError::Body(e) => write!(f, "cannot decode: {e}"),
            DecodeError::Invalid(what) => write!(f, "inconsistent: {what}"),
        }
    }
}

impl std::error::Error for DecodeError {}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

fn u128_at(b: &[u8], at: usize) -> u128 {
    let mut x = [0u8; 16];
    x.copy_from_slice(&b[at..at + 16]);
    u128::from_le_bytes(x)
}

/// A count or offset from the file as `usize`, bounded by `max`.
fn bounded(x: u64, max: usize) -> Result<usize, DecodeError> {
    usize::try_from(x)
        .ok()
        .filter(|&x| x <= max)
        .ok_or(DecodeError::Length)
}

/// Appends a slot's fixed record to `out` and returns its relocations' bytes, which start
/// at byte `first` of the relocation bytes (or follow the record, in the journal).
fn encode_slot(s: &Slot, first: u32, out: &mut Vec<u8>) -> Vec<u8> {
    let mut relocs = Vec::with_capacity(s.relocs.len() * 4);
    reloc_stream::encode(&s.relocs, &mut relocs);
    out.extend_from_slice(&s.def.0.to_le_bytes());
    for x in [s.offset, s.len, s.cap, s.params, first, relocs.len() as u32] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.extend_from_slice(&xxh3_64(&relocs).to_le_bytes());
    out.extend_from_slice(&s.hash.to_le_bytes());
    relocs
}

/// A slot from its record and its relocations' bytes, checked against the buffer of
/// `code_len` bytes.
fn decode_slot(rec: &[u8], relocs: &[u8], code_len: usize) -> Result<Slot, DecodeError> {
    if xxh3_64(relocs) != u64_at(rec, 40) {
        return Err(DecodeError::Checksum);
    }
    let relocs =
        reloc_stream::decode(relocs).ok_or(DecodeError::Invalid("a malformed relocation"))?;
    let s = Slot {
        def: DefPathHash(u128_at(rec, 0)),
        offset: u32_at(rec, 16),
        len: u32_at(rec, 20),
        cap: u32_at(rec, 24),
        params: u32_at(rec, 28),
        relocs,
        hash: u128_at(rec, 48),
    };
    check_extent(s.offset as usize, s.len as usize, s.cap as usize, code_len)?;
    if s.relocs
        .iter()
        .any(|r| r.offset as usize + 4 > s.len as usize)
    {
        return Err(DecodeError::Invalid("a relocation outside its function"));
    }
    Ok(s)
}

/// Checks that a slot at `offset` of `len` bytes in `cap` lies in a code buffer of
/// `code_len` bytes, aligned as placed.
fn check_extent(offset: usize, len: usize, cap: usize, code_len: usize) -> Result<(), DecodeError> {
    if offset % 16 != 0 || cap % 16 != 0 || len > cap || offset + cap > code_len {
        return Err(DecodeError::Invalid("a slot outside the buffer"));
    }
    Ok(())
}

/// The scalar fields of a state, as the header and every journal record hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scalars {
    pub main: DefId,
    pub hash: u128,
    pub context: usize,
    pub code_len: usize,
    pub live: usize,
    pub count: usize,
}

impl Scalars {
    fn check(&self) -> Result<(), DecodeError> {
        let Scalars {
            context,
            code_len,
            live,
            ..
        } = *self;
        if code_len > MAX_IMAGE + MAX_IMAGE / 4 || context % PAGE != 0 || context < code_len.max(1)
        {
            return Err(DecodeError::Invalid(
                "the buffer or the context page is out of range",
            ));
        }
        if context > 2 * MAX_IMAGE || live > code_len {
            return Err(DecodeError::Invalid("the context page is out of range"));
        }
        Ok(())
    }
}

/// A fixed-width table sorted by its first 16 bytes, checked a block at a time.
#[derive(Debug)]
struct Table {
    at: usize,
    n: usize,
    rec: usize,
    fences: usize,
    sums: usize,
    checked: Box<[AtomicBool]>,
}

impl Table {
    fn blocks(n: usize) -> usize {
        n.div_ceil(BLOCK)
    }
}

/// The bytes of a base file as [`LinkState::open`](super::LinkState::open) reads them: in
/// memory, or a file's mapping ([`MappedFile`]), whose code an image maps rather than
/// copies.
pub trait BaseBytes: AsRef<[u8]> + Send + Sync {
    /// The file these bytes are all of, read-only and never written in place, when they
    /// come from one.
    fn file(&self) -> Option<&std::fs::File> {
        None
    }

    /// Lets the process stop holding the whole pages of bytes `range` (bytes read from a
    /// file stay in the system's file cache, and a later read maps them again): for bytes
    /// read once, so that what a build holds does not grow by them. Does nothing by
    /// default.
    fn release(&self, _range: std::ops::Range<usize>) {}
}

impl BaseBytes for Vec<u8> {}

/// A code chunk not checked yet (or found damaged).
const UNCHECKED: u8 = 0;
/// A code chunk one thread is checking.
const CHECKING: u8 = 1;
/// A code chunk found intact.
const GOOD: u8 = 2;

/// A base file, read in place.
pub(crate) struct Base {
    bytes: Box<dyn BaseBytes>,
    pub tag: u64,
    /// The directory's checksum: what a journal names its base by.
    pub id: u64,
    pub scalars: Scalars,
    slots: Table,
    edges: Table,
    relocs_at: usize,
    n_relocs: usize,
    code_at: usize,
    code_sums: usize,
    /// Each code chunk's state: [`UNCHECKED`], [`CHECKING`] (by the thread that claimed
    /// it, which then sets it) or [`GOOD`]. A chunk found damaged goes back to
    /// `UNCHECKED`: each use checks it again and fails again.
    code_checked: Box<[AtomicU8]>,
    /// Bytes of the file read so far (checked blocks, records, code).
    read: AtomicU64,
}

impl fmt::Debug for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Base")
            .field("tag", &self.tag)
            .field("id", &self.id)
            .field("scalars", &self.scalars)
            .field("slots", &self.slots.n)
            .field("edges", &self.edges.n)
            .finish_non_exhaustive()
    }
}

impl Base {
    /// Reads the header and the directory of `bytes` and checks them.
    pub fn open(bytes: Box<dyn BaseBytes>) -> Result<Base, DecodeError> {
        let b = (*bytes).as_ref();
        if b.len() < HEADER {
            return Err(DecodeError::TooShort);
        }
        if b[0..8] != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        let version = u32_at(b, 8);
        if version != VERSION {
            return Err(DecodeError::Version(version));
        }
        if b[12..16] != [0; 4] || b[104..120] != [0; 16] {
            return Err(DecodeError::Checksum);
        }
        let size = b.len();
        let n_slots = bounded(u64_at(b, 80), size / SLOT)?;
        let n_relocs = bounded(u64_at(b, 88), size)?;
        let n_edges = bounded(u64_at(b, 96), size / EDGE)?;
        let code_len = bounded(u64_at(b, 64), size)?;
        let (sb, eb, cb) = (
            Table::blocks(n_slots),
            Table::blocks(n_edges),
            code_len.div_ceil(CHUNK),
        );
        let dir_len = sb * 24 + eb * 24 + cb * 8;
        let slots_at = HEADER + dir_len;
        let relocs_at = slots_at + n_slots * SLOT;
        let edges_at = relocs_at + n_relocs;
        let edges_end = edges_at + n_edges * EDGE;
        let code_at = align_up(edges_end, PAGE);
        if code_at.checked_add(code_len) != Some(size) {
            return Err(DecodeError::Length);
        }
        // The padding is read here (less than a page), so no byte of the file goes
        // unchecked.
        if b[edges_end..code_at].iter().any(|&x| x != 0) {
            return Err(DecodeError::Invalid("padding that is not zero"));
        }
        let mut sum = xxhash_rust::xxh3::Xxh3::new();
        sum.update(&b[..120]);
        sum.update(&b[HEADER..slots_at]);
        let id = sum.digest();
        if id != u64_at(b, 120) {
            return Err(DecodeError::Checksum);
        }
        let scalars = Scalars {
            main: DefPathHash(u128_at(b, 24)),
            hash: u128_at(b, 40),
            context: bounded(u64_at(b, 56), usize::MAX)?,
            code_len,
            live: bounded(u64_at(b, 72), usize::MAX)?,
            count: n_slots,
        };
        scalars.check()?;
        let table = |at, n, rec, fences| Table {
            at,
            n,
            rec,
            fences,
            sums: fences + Table::blocks(n) * 16,
            checked: (0..Table::blocks(n))
                .map(|_| AtomicBool::new(false))
                .collect(),
        };
        let slots = table(slots_at, n_slots, SLOT, HEADER);
        let edges = table(edges_at, n_edges, EDGE, HEADER + sb * 24);
        let code_sums = HEADER + sb * 24 + eb * 24;
        Ok(Base {
            tag: u64_at(b, 16),
            id,
            scalars,
            slots,
            edges,
            relocs_at,
            n_relocs,
            code_at,
            code_sums,
            code_checked: (0..cb).map(|_| AtomicU8::new(UNCHECKED)).collect(),
            read: AtomicU64::new((slots_at + code_at - edges_end) as u64),
            bytes,
        })
    }

    fn b(&self) -> &[u8] {
        (*self.bytes).as_ref()
    }

    /// Bytes of the file read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    pub fn slot_count(&self) -> usize {
        self.slots.n
    }

    /// Block `k` of table `t`, checked on first use.
    fn block(&self, t: &Table, k: usize) -> Result<&[u8], DecodeError> {
        let start = t.at + k * BLOCK * t.rec;
        let end = t.at + ((k + 1) * BLOCK).min(t.n) * t.rec;
        let bytes = &self.b()[start..end];
        if !t.checked[k].load(Ordering::Relaxed) {
            self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            if xxh3_64(bytes) != u64_at(self.b(), t.sums + 8 * k) {
                return Err(DecodeError::Checksum);
            }
            t.checked[k].store(true, Ordering::Relaxed);
        }
        Ok(bytes)
    }

    /// The index of the first record of `t` whose key is at least `key`, reading the
    /// blocks from the one the fences point at.
    fn lower_bound(&self, t: &Table, key: u128) -> Result<usize, DecodeError> {
        let fence = |k: usize| u128_at(self.b(), t.fences + 16 * k);
        let blocks = Table::blocks(t.n);
        // The last block whose first key is below `key` holds the answer, or it is the
        // first record of the next block.
        let (mut lo, mut hi) = (0, blocks);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if fence(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == 0 {
            return Ok(0);
        }
        let k = lo - 1;
        let block = self.block(t, k)?;
        if u128_at(block, 0) != fence(k) {
            return Err(DecodeError::Invalid(
                "a fence that is not its block's first key",
            ));
        }
        let n = block.len() / t.rec;
        let i = (0..n)
            .position(|i| u128_at(block, i * t.rec) >= key)
            .unwrap_or(n);
        Ok(k * BLOCK + i)
    }

    /// Record `i` of `t`, its block checked.
    fn record(&self, t: &Table, i: usize) -> Result<&[u8], DecodeError> {
        let block = self.block(t, i / BLOCK)?;
        let at = (i % BLOCK) * t.rec;
        Ok(&block[at..at + t.rec])
    }

    /// Slot `i` of the table (in def-id order).
    pub fn slot_at(&self, i: usize) -> Result<Slot, DecodeError> {
        let rec = self.record(&self.slots, i)?;
        let first = u32_at(rec, 32) as usize;
        let count = u32_at(rec, 36) as usize;
        if first.checked_add(count).is_none_or(|e| e > self.n_relocs) {
            return Err(DecodeError::Invalid("relocations outside their bytes"));
        }
        let at = self.relocs_at + first;
        let relocs = &self.b()[at..at + count];
        self.read.fetch_add(relocs.len() as u64, Ordering::Relaxed);
        decode_slot(rec, relocs, self.scalars.code_len)
    }

    /// The def-id, offset and capacity of slot `i`, without its relocations.
    pub fn slot_place(&self, i: usize) -> Result<(DefId, usize, usize), DecodeError> {
        let rec = self.record(&self.slots, i)?;
        Ok((
            DefPathHash(u128_at(rec, 0)),
            u32_at(rec, 16) as usize,
            u32_at(rec, 24) as usize,
        ))
    }

    /// The slot of `def`, if the base has one.
    pub fn find(&self, def: DefId) -> Result<Option<Slot>, DecodeError> {
        let i = self.lower_bound(&self.slots, def.0)?;
        if i >= self.slots.n || u128_at(self.record(&self.slots, i)?, 0) != def.0 {
            return Ok(None);
        }
        self.slot_at(i).map(Some)
    }

    /// The offset and parameter count of `def`'s slot, if the base has one, without
    /// decoding its relocations (nor checking their checksum): what is needed of the
    /// entry point, whose relocations (a call of every function it runs) a build that
    /// does not change it never reads.
    pub fn find_entry(&self, def: DefId) -> Result<Option<(usize, u32)>, DecodeError> {
        let i = self.lower_bound(&self.slots, def.0)?;
        if i >= self.slots.n {
            return Ok(None);
        }
        let rec = self.record(&self.slots, i)?;
        if u128_at(rec, 0) != def.0 {
            return Ok(None);
        }
        let (offset, len, cap) = (u32_at(rec, 16), u32_at(rec, 20), u32_at(rec, 24));
        check_extent(
            offset as usize,
            len as usize,
            cap as usize,
            self.scalars.code_len,
        )?;
        Ok(Some((offset as usize, u32_at(rec, 28))))
    }

    /// The callers of `callee` in the base's reverse index.
    pub fn callers(&self, callee: DefId) -> Result<Vec<DefId>, DecodeError> {
        let mut out = Vec::new();
        let mut i = self.lower_bound(&self.edges, callee.0)?;
        while i < self.edges.n {
            let rec = self.record(&self.edges, i)?;
            if u128_at(rec, 0) != callee.0 {
                break;
            }
            out.push(DefPathHash(u128_at(rec, 16)));
            i += 1;
        }
        Ok(out)
    }

    /// Checks every block of the reverse index.
    pub fn check_edges(&self) -> Result<(), DecodeError> {
        (0..Table::blocks(self.edges.n)).try_for_each(|k| self.block(&self.edges, k).map(drop))
    }

    /// Code bytes `at..at + len`, their chunks checked on first use.
    pub fn code(&self, at: usize, len: usize) -> Result<&[u8], DecodeError> {
        if len == 0 {
            return Ok(&[]);
        }
        let end = at + len;
        if end > self.scalars.code_len {
            return Err(DecodeError::Length);
        }
        for k in at / CHUNK..end.div_ceil(CHUNK) {
            let s = self.code_at + k * CHUNK;
            let e = self.code_at + ((k + 1) * CHUNK).min(self.scalars.code_len);
            self.check_chunk(k, &self.b()[s..e])?;
        }
        Ok(&self.b()[self.code_at + at..self.code_at + end])
    }

    /// Checks `bytes` as code chunk `k` (all of it: [`CHUNK`] bytes, fewer for the last),
    /// unless that chunk was checked already: the bytes of the file's code, read here or
    /// through another mapping of the same file. A chunk that another thread is checking
    /// at that moment ([`Base::check_code`]) is hashed here too rather than waited for (the
    /// other thread may be descheduled), and its state left to that thread.
    pub fn check_chunk(&self, k: usize, bytes: &[u8]) -> Result<(), DecodeError> {
        match self.code_checked[k].compare_exchange(
            UNCHECKED,
            CHECKING,
            Ordering::Acquire,
            Ordering::Acquire,
        ) {
            Ok(_) => self.hash_chunk(k, bytes),
            Err(GOOD) => Ok(()),
            Err(_) => {
                self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                if xxh3_64(bytes) != u64_at(self.b(), self.code_sums + 8 * k) {
                    return Err(DecodeError::Checksum);
                }
                Ok(())
            }
        }
    }

    /// Hashes chunk `k`, which this thread claimed (`CHECKING`), and records the result.
    fn hash_chunk(&self, k: usize, bytes: &[u8]) -> Result<(), DecodeError> {
        self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if xxh3_64(bytes) != u64_at(self.b(), self.code_sums + 8 * k) {
            self.code_checked[k].store(UNCHECKED, Ordering::Release);
            return Err(DecodeError::Checksum);
        }
        self.code_checked[k].store(GOOD, Ordering::Release);
        Ok(())
    }

    /// Checks the code chunks, first to last, through this base's own bytes, skipping
    /// those another thread has claimed; stops at the first damaged one (whoever uses it
    /// checks it again and reports it). Run on a thread of its own
    /// ([`crate::LinkState::check_code_ahead`]) while the build does other work, so that
    /// making the image ([`crate::LinkState::image`], which checks the chunks from last to
    /// first) finds most of them checked.
    ///
    /// The pages of code it has read are released after each MiB ([`BaseBytes::release`]):
    /// the image runs the code through a mapping of its own, and pages held through both
    /// would count twice in what the process holds. All of them from the first: a read
    /// may map the pages around it, before as well as after (the system maps a file's
    /// cached pages a block at a time).
    pub fn check_code(&self) {
        const BATCH: usize = (1 << 20) / CHUNK;
        let code_len = self.scalars.code_len;
        let chunks = self.code_checked.len();
        for first in (0..chunks).step_by(BATCH) {
            let last = (first + BATCH).min(chunks);
            let intact = (first..last).all(|k| self.check_one(k, code_len));
            let end = (last * CHUNK).min(code_len);
            self.bytes.release(self.code_at..self.code_at + end);
            if !intact {
                return;
            }
        }
    }

    /// Checks chunk `k` unless another thread claimed it; false if it is damaged.
    fn check_one(&self, k: usize, code_len: usize) -> bool {
        if self.code_checked[k]
            .compare_exchange(UNCHECKED, CHECKING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return true;
        }
        let s = self.code_at + k * CHUNK;
        let e = self.code_at + ((k + 1) * CHUNK).min(code_len);
        self.hash_chunk(k, &self.b()[s..e]).is_ok()
    }

    /// Marks every code chunk checked without hashing it, for a caller that knows the
    /// bytes to be those a complete check found good: the file is unchanged since (see
    /// `query_driver`'s linker). Called before any check starts.
    pub fn trust_code(&self) {
        for c in self.code_checked.iter() {
            c.store(GOOD, Ordering::Release);
        }
    }

    /// Whether every code chunk has been checked and found good.
    pub fn code_all_checked(&self) -> bool {
        self.code_checked
            .iter()
            .all(|c| c.load(Ordering::Acquire) == GOOD)
    }

    /// The file the base was read from and the offset of its code there (page-aligned),
    /// when it was read from a file.
    pub fn code_file(&self) -> Option<(&std::fs::File, u64)> {
        Some((self.bytes.file()?, self.code_at as u64))
    }
}

/// Writes a base file: `slots` sorted by def-id, the buffer of `code_len` bytes put in
/// place by `fill_code` (given the file's code region, zeroed), so that the code is copied
/// once, straight into the file's bytes; an error of `fill_code` is given back.
pub(crate) fn encode_base<E, S: std::borrow::Borrow<Slot>>(
    tag: u64,
    s: &Scalars,
    slots: &[S],
    code_len: usize,
    fill_code: impl FnOnce(&mut [u8]) -> Result<(), E>,
) -> Result<Vec<u8>, E> {
    let (mut out, sums) = base_head(tag, s, slots, code_len, true);
    let code_at = out.len();
    out.resize(code_at + code_len, 0);
    let (head, code) = out.split_at_mut(code_at);
    fill_code(code)?;
    seal_head(head, sums, code);
    Ok(out)
}

/// The bytes of a base file before its code ([`encode_base`] of the same arguments is
/// these bytes followed by `code`): the file's code can then be written from where it
/// is, without a copy of it held beside the rest.
pub(crate) fn encode_base_head<S: std::borrow::Borrow<Slot>>(
    tag: u64,
    s: &Scalars,
    slots: &[S],
    code: &[u8],
) -> Vec<u8> {
    let (mut out, sums) = base_head(tag, s, slots, code.len(), false);
    seal_head(&mut out, sums, code);
    out
}

/// A base file's bytes before its code (the code's chunk checksums and the id left zero,
/// for [`seal_head`]), with room for the code after them when `room_for_code`; gives them
/// and where the chunk checksums are.
fn base_head<S: std::borrow::Borrow<Slot>>(
    tag: u64,
    s: &Scalars,
    slots: &[S],
    code_len: usize,
    room_for_code: bool,
) -> (Vec<u8>, std::ops::Range<usize>) {
    let mut recs = Vec::with_capacity(slots.len() * SLOT);
    let mut relocs = Vec::new();
    let mut edges: Vec<(u128, u128)> = Vec::new();
    let mut first = 0u32;
    for slot in slots {
        let slot = slot.borrow();
        let bytes = encode_slot(slot, first, &mut recs);
        first += bytes.len() as u32;
        relocs.extend_from_slice(&bytes);
        for r in &slot.relocs {
            if let RelocTarget::Function { callee, .. } = r.target {
                edges.push((callee.0, slot.def.0));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut edge_bytes = Vec::with_capacity(edges.len() * EDGE);
    for (callee, caller) in &edges {
        edge_bytes.extend_from_slice(&callee.to_le_bytes());
        edge_bytes.extend_from_slice(&caller.to_le_bytes());
    }
    let mut out = vec![0u8; HEADER];
    out[0..8].copy_from_slice(&MAGIC);
    out[8..12].copy_from_slice(&VERSION.to_le_bytes());
    out[16..24].copy_from_slice(&tag.to_le_bytes());
    out[24..40].copy_from_slice(&s.main.0.to_le_bytes());
    out[40..56].copy_from_slice(&s.hash.to_le_bytes());
    for (at, x) in [
        (56, s.context),
        (64, code_len),
        (72, s.live),
        (80, slots.len()),
        (88, first as usize),
        (96, edges.len()),
    ] {
        out[at..at + 8].copy_from_slice(&(x as u64).to_le_bytes());
    }
    for (bytes, rec) in [(&recs, SLOT), (&edge_bytes, EDGE)] {
        for block in bytes.chunks(BLOCK * rec) {
            out.extend_from_slice(&block[..16]);
        }
        for block in bytes.chunks(BLOCK * rec) {
            out.extend_from_slice(&xxh3_64(block).to_le_bytes());
        }
    }
    // The code chunks' checksums (filled in once the code is known), the records, the
    // relocations and the edges, then the code from a page boundary: the whole file
    // reserved at once when the code goes into it too.
    let sums_at = out.len();
    let sums_end = sums_at + 8 * code_len.div_ceil(CHUNK);
    let code_at = align_up(
        sums_end + recs.len() + relocs.len() + edge_bytes.len(),
        PAGE,
    );
    let code_room = if room_for_code { code_len } else { 0 };
    out.reserve_exact(code_at + code_room - out.len());
    out.resize(sums_end, 0);
    out.extend_from_slice(&recs);
    out.extend_from_slice(&relocs);
    out.extend_from_slice(&edge_bytes);
    drop((recs, relocs, edge_bytes));
    out.resize(code_at, 0);
    (out, sums_at..sums_end)
}

/// Fills in the code's chunk checksums (at `sums` of `head`, the bytes [`base_head`]
/// gave) from `code`, then the id.
fn seal_head(head: &mut [u8], sums: std::ops::Range<usize>, code: &[u8]) {
    for (sum, chunk) in head[sums.clone()]
        .chunks_exact_mut(8)
        .zip(code.chunks(CHUNK))
    {
        sum.copy_from_slice(&xxh3_64(chunk).to_le_bytes());
    }
    let mut sum = xxhash_rust::xxh3::Xxh3::new();
    sum.update(&head[..120]);
    sum.update(&head[HEADER..sums.end]);
    let id = sum.digest();
    head[120..128].copy_from_slice(&id.to_le_bytes());
}

/// The id of a base file [`encode_base`] wrote.
pub(crate) fn base_id(bytes: &[u8]) -> u64 {
    u64_at(bytes, 120)
}

/// A journal's header for the base `id`.
pub(crate) fn journal_header(id: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(JOURNAL_HEADER);
    out.extend_from_slice(&JMAGIC);
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    let sum = xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// One patch, as a journal record holds it.
pub(crate) struct Record {
    pub prev: u64,
    pub tag: u64,
    pub scalars: Scalars,
    /// Page number and its bytes (`JPAGE` of them, the last page zero-padded).
    pub pages: Vec<(usize, Vec<u8>)>,
    pub slots: Vec<Slot>,
    pub removed: Vec<DefId>,
}

/// A journal record, framed.
pub(crate) fn encode_record(r: &Record) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&r.prev.to_le_bytes());
    p.extend_from_slice(&r.tag.to_le_bytes());
    p.extend_from_slice(&r.scalars.main.0.to_le_bytes());
    p.extend_from_slice(&r.scalars.hash.to_le_bytes());
    for x in [
        r.scalars.context,
        r.scalars.code_len,
        r.scalars.live,
        r.scalars.count,
    ] {
        p.extend_from_slice(&(x as u64).to_le_bytes());
    }
    for x in [r.pages.len(), r.slots.len(), r.removed.len(), 0] {
        p.extend_from_slice(&(x as u32).to_le_bytes());
    }
    for (n, page) in &r.pages {
        p.extend_from_slice(&(*n as u64).to_le_bytes());
        p.extend_from_slice(page);
    }
    for s in &r.slots {
        let relocs = encode_slot(s, 0, &mut p);
        p.extend_from_slice(&relocs);
    }
    for d in &r.removed {
        p.extend_from_slice(&d.0.to_le_bytes());
    }
    let mut out = Vec::with_capacity(16 + p.len());
    out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxh3_64(&p).to_le_bytes());
    out.extend_from_slice(&p);
    out
}

/// Decodes one checked payload.
fn decode_payload(p: &[u8]) -> Result<Record, DecodeError> {
    let short = DecodeError::Invalid("a short journal record");
    if p.len() < JFIXED {
        return Err(short);
    }
    let scalars = Scalars {
        main: DefPathHash(u128_at(p, 16)),
        hash: u128_at(p, 32),
        context: bounded(u64_at(p, 48), usize::MAX)?,
        code_len: bounded(u64_at(p, 56), usize::MAX)?,
        live: bounded(u64_at(p, 64), usize::MAX)?,
        count: bounded(u64_at(p, 72), usize::MAX)?,
    };
    scalars.check()?;
    let (n_pages, n_slots, n_removed) = (
        u32_at(p, 80) as usize,
        u32_at(p, 84) as usize,
        u32_at(p, 88) as usize,
    );
    let mut at = JFIXED;
    let mut take = |n: usize| -> Result<&[u8], DecodeError> {
        let end = at
            .checked_add(n)
            .filter(|&e| e <= p.len())
            .ok_or(short.clone())?;
        let s = &p[at..end];
        at = end;
        Ok(s)
    };
    let mut pages = Vec::with_capacity(n_pages.min(p.len() / JPAGE));
    for _ in 0..n_pages {
        let n = bounded(u64_at(take(8)?, 0), scalars.code_len / JPAGE)?;
        pages.push((n, take(JPAGE)?.to_vec()));
    }
    let mut slots = Vec::with_capacity(n_slots.min(p.len() / SLOT));
    for _ in 0..n_slots {
        let rec = take(SLOT)?;
        let count = u32_at(rec, 36) as usize;
        let relocs = take(count)?;
        slots.push(decode_slot(rec, relocs, scalars.code_len)?);
    }
    let mut removed = Vec::with_capacity(n_removed.min(p.len() / 16));
    for _ in 0..n_removed {
        removed.push(DefPathHash(u128_at(take(16)?, 0)));
    }
    if at != p.len() {
        return Err(DecodeError::Invalid("bytes after a journal record"));
    }
    Ok(Record {
        prev: u64_at(p, 0),
        tag: u64_at(p, 8),
        scalars,
        pages,
        slots,
        removed,
    })
}

/// The records of `journal` for the base `id` that lead from `from` to `to`, and the
/// length of the journal they take (where the next record goes); `Ok(None)` when the
/// journal does not lead there (another base's, or cut short before reaching `to`, as a
/// write that was killed leaves it), an error when a whole record is damaged.
pub(crate) type Journal = (Vec<Record>, usize);

pub(crate) fn read_journal(
    journal: &[u8],
    id: u64,
    from: u64,
    to: u64,
) -> Result<Option<Journal>, DecodeError> {
    let ours = journal.get(..JOURNAL_HEADER) == Some(journal_header(id).as_slice());
    if !ours {
        return Ok((from == to).then(|| (Vec::new(), 0)));
    }
    let mut records = Vec::new();
    let (mut at, mut tag) = (JOURNAL_HEADER, from);
    while tag != to {
        let Some(head) = journal.get(at..at.saturating_add(16)) else {
            return Ok(None);
        };
        let Some(len) = usize::try_from(u64_at(head, 0)).ok() else {
            return Ok(None);
        };
        let Some(payload) = (at + 16)
            .checked_add(len)
            .and_then(|end| journal.get(at + 16..end))
        else {
            return Ok(None);
        };
        if xxh3_64(payload) != u64_at(head, 8) {
            return Err(DecodeError::Checksum);
        }
        let r = decode_payload(payload)?;
        if r.prev != tag {
            return Ok(None);
        }
        tag = r.tag;
        at += 16 + len;
        records.push(r);
    }
    Ok(Some((records, at)))
}

/// A file's bytes mapped read-only (private), for [`LinkState::open`](super::LinkState::open).
/// The link state's files are replaced by renaming, never written in place, so the
/// mapped bytes do not change under it. The file stays open, for an image to map its
/// code from.
pub struct MappedFile {
    ptr: *mut u8,
    len: usize,
    file: std::fs::File,
}

// SAFETY: the mapping is read-only and owned by this value alone (unmapped by `Drop`).
unsafe impl Send for MappedFile {}
// SAFETY: only read through `&MappedFile`.
unsafe impl Sync for MappedFile {}

impl MappedFile {
    /// Maps all of `file`.
    pub fn map(file: std::fs::File) -> std::io::Result<MappedFile> {
        use std::os::fd::AsRawFd;
        let len = usize::try_from(file.metadata()?.len())
            .map_err(|_| std::io::Error::other("file too large"))?;
        if len == 0 {
            return Ok(MappedFile {
                ptr: std::ptr::NonNull::dangling().as_ptr(),
                len,
                file,
            });
        }
        // SAFETY: a new private read-only mapping of an open file at an address of the
        // kernel's choice; the result is checked for `MAP_FAILED`.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(MappedFile {
            ptr: ptr as *mut u8,
            len,
            file,
        })
    }
}

impl BaseBytes for MappedFile {
    fn file(&self) -> Option<&std::fs::File> {
        Some(&self.file)
    }

    fn release(&self, range: std::ops::Range<usize>) {
        let start = align_up(range.start, PAGE);
        let end = range.end.min(self.len) / PAGE * PAGE;
        if start >= end {
            return;
        }
        // SAFETY: whole pages inside our mapping (its start is page-aligned). It is
        // private and read-only, so it holds no copies of its own that this would
        // discard: a later read maps the file's same bytes again (the file is never
        // written in place).
        unsafe {
            libc::madvise(
                self.ptr.add(start) as *mut libc::c_void,
                end - start,
                libc::MADV_DONTNEED,
            );
        }
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr`/`len` is our mapping (or an empty slice), readable while we live.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: the mapping `map` made, unmapped only here.
            unsafe {
                libc::munmap(self.ptr as *mut libc::c_void, self.len);
            }
        }
    }
}
