//! The on-disk cache format (one file, as rustc's `on_disk_cache.rs` plus its dep-graph
//! file), read in place: the file is memory-mapped, a build reads only the records it
//! uses, and each record is checked when it is first used.
//!
//! ```text
//! header (64 bytes)  magic "RILLQRY\x01" · format version u32 · hasher u8 · 3 zero bytes
//!                    · build-id fingerprint (16) · file length u64 · checksum of the
//!                    index XOR the generation u64 · 8 zero bytes · generation u64 (new
//!                    at every save: files kept beside the cache name the one they
//!                    belong to)
//! kinds              query kind names (u32 count, then each as u32 length and UTF-8)
//! bodies             one record per node, in dependency order, back to back (see below)
//! keys               the distinct keys: u32 count, the byte length (u32) of their grouped
//!                    offsets (see below) in the entries, the offsets, then each key as
//!                    its fingerprint (16), a varint length and its bincode bytes (checked
//!                    with the records that use it)
//! fps                the distinct result fingerprints (16 bytes each), in the order the
//!                    records first use them (checked with the records that use them)
//! records            where each node's record starts in the bodies, as grouped offsets
//! table              (kind, key fingerprint) → node: open addressing, 5/4 of the nodes
//!                    and one more slots; each slot a u32 whose low bits hold
//!                    node + 1 (0: empty; as many bits as the node count needs) and whose
//!                    high bits a tag (the low bits of the high half of the slot hash)
//! reverse            the reverse edges: a u32 start per block of [`REVERSE_BLOCK`] nodes
//!                    and one more (byte offsets in the lists), then each node's list: its
//!                    byte length as a varint, then its dependents in increasing order as
//!                    varint gaps (the first from the node itself)
//! volatile, roots    u32 node indices: the inputs and `eval_always` nodes (what a new
//!                    session re-checks first), and the embedder's top-level reads
//! index (208 bytes)  offset and length (u64 each) of the nine sections above, the node
//!                    and key counts, checksums (xxh3-64) of the kinds, reverse, volatile
//!                    and roots sections, 8 zero bytes and the magic "RILLIDX\x06"
//! ```
//!
//! Grouped offsets ([`grouped_offsets`]), of `n` increasing offsets: a u32 per block of
//! [`OFFSET_BLOCK`] entries (the block's first offset), then a u16 per entry (its offset
//! less its block's; `0xffff`: listed as far), then the far entries (the index of the
//! entry and its offset, u32 each) in increasing order of index. Nearly every block spans
//! less than 64 KiB, so an offset takes a little over 2 bytes instead of 4.
//!
//! A node's record (see [`Store::record`]):
//!
//! ```text
//! checksum u32 (see below) · kind varint · flags (low 4 bits) and durability (high 4
//! bits) u8 · key index varint · result fingerprint's index varint (if it has one) · edge
//! count varint · the first edge as the varint (node − 1 − edge), each next one as the
//! zigzag varint of (edge − previous edge) · value length varint and value bytes (if it
//! has a value)
//! ```
//!
//! A key's fingerprint and bytes are stored once for every node of every kind that has
//! that key (the fingerprint identifies the key, as it identifies the node within its
//! kind); a result fingerprint is stored once for every node with that result (many
//! nodes share one: every empty list of diagnostics, every name bound to nothing).
//! Integers are little-endian; varints are LEB128 and at most 32 bits.
//!
//! What is checked, and when (a file that fails a check at open is ignored as a whole;
//! a record that fails its check when used is a warning and a recomputation of that
//! node):
//! - at open: the header (magic, version, hasher, build id, the file's length), the index
//!   (its checksum is in the header), every section's bounds, and the kinds and volatile
//!   sections (small: they are read whole);
//! - the roots section, only when a new file is written from the loaded graph (a session
//!   that appends to the journal never reads it; it grows with the program, a root per
//!   top-level read); damaged, it is a warning, and the new file keeps only what the
//!   session's own reads reach;
//! - a record, when its node is first used (its value is used only through it): its
//!   checksum (the low half of the xxh3-64 of the rest of the record, value included,
//!   seeded with the node's index, then of its key's entry seeded with that, then of its
//!   result fingerprint seeded with that) covers the record, its key and its fingerprint,
//!   and fails for a record offset that points at another node's record; its edges must
//!   point to earlier nodes (the file is a DAG by construction); a key is hashed again
//!   after decoding and must equal its fingerprint;
//! - the reverse edges, when a session first needs them (a session that found a change).
//!
//! Nothing in the table is trusted: a slot only proposes a node, whose checked record must
//! have the kind and key fingerprint looked for.

use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::query::Query;
use crate::NodeId;
use std::fmt;
use std::io::{self, Seek, SeekFrom, Write};
use std::ops::Deref;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed, Xxh3};

/// The version of the file format; bump it when the layout or the meaning of a field
/// changes. (5: the result fingerprint of a `cache_on_disk` query is the hash of its
/// value's encoding, unless the query is `own_hash`. 6: a 32-bit record checksum, the
/// kind as a varint with flags and durability in one byte, the result fingerprints
/// stored once each, table slots of 32 bits. 7: record and key offsets grouped, a table of
/// 5/4 of the nodes and one more slots (not a power of two); the driver's compact value
/// encodings. 8: a key with a fingerprint of its own, `StableHash::key_fingerprint`
/// (a def id, a name's digest, a tuple of such), is not hashed. 9: the driver's file
/// skeletons hold a syntax tree whose paths and format pieces are side arrays of the
/// item's arena. 10: a path's key fingerprint is its bytes' digest; xxh3-128 is the default
/// hasher, and under it a long byte string enters a fingerprint as its digest. 11: a value
/// with a fingerprint of its own, `StableHash::value_fingerprint` (a stamp of metadata), is
/// not hashed. 12: an item's syntax keeps integer literals, `for` loops and struct literals
/// in side arrays of its arena, and a typed body its distinct types in a table its nodes
/// index. 13: an integer literal's value is kept in its expression when it fits in 64
/// bits, in a side array of the arena only when wider.)
pub const FORMAT_VERSION: u32 = 13;
pub(crate) const MAGIC: [u8; 8] = *b"RILLQRY\x01";
const INDEX_MAGIC: [u8; 8] = *b"RILLIDX\x06";
pub(crate) const HEADER_LEN: usize = 64;
const SECTIONS: usize = 9;
const INDEX_LEN: usize = SECTIONS * 16 + 2 * 8 + 4 * 8 + 8 + 8;
/// The size of a node's checksum, at the start of its record.
const RECORD_SUM: usize = 4;
/// The flags of a record are its flags byte's low bits; its durability, the high ones.
const DURABILITY_SHIFT: u32 = 4;
/// The size of a table slot: tag and node + 1.
const SLOT: usize = 4;
/// The size of a fingerprint.
const FP_LEN: usize = 16;
/// The entries of grouped offsets that share one u32 base.
const OFFSET_BLOCK: usize = 16;
/// The u16 of a grouped offset that is listed as far.
const FAR: u16 = u16::MAX;
/// The nodes whose reverse lists share one start offset: a lookup skips at most this
/// many lists less one, by their lengths.
const REVERSE_BLOCK: usize = 16;

crate::dep_graph::flag_set! {
    /// The flags of a node record on disk (the constants of [`disk_flags`]).
    DiskFlags
}

/// Node flags on disk.
pub(crate) mod disk_flags {
    use super::DiskFlags;

    /// The record holds the result's fingerprint.
    pub const HAS_FP: DiskFlags = DiskFlags::bit(0);
    /// The last execution was part of a cycle.
    pub const CYCLIC: DiskFlags = DiskFlags::bit(1);
    /// The record holds the node's value.
    pub const HAS_VALUE: DiskFlags = DiskFlags::bit(2);
    /// The embedder read the node at the top level (see `flags::ROOT`).
    pub const ROOT: DiskFlags = DiskFlags::bit(3);
}

/// Why a cache file was not used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LoadError {
    TooShort,
    BadMagic,
    Version(u32),
    Hasher,
    BuildId,
    Length { header: u64, actual: u64 },
    Checksum,
    Invalid(&'static str),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::TooShort => write!(f, "the file is truncated"),
            LoadError::BadMagic => write!(f, "not a query cache file"),
            LoadError::Version(v) => write!(f, "format version {v}, expected {FORMAT_VERSION}"),
            LoadError::Hasher => write!(f, "written with another fingerprint hasher"),
            LoadError::BuildId => write!(f, "written by another compiler build"),
            LoadError::Length { header, actual } => {
                write!(
                    f,
                    "the file is truncated or extended ({actual} bytes, header says {header})"
                )
            }
            LoadError::Checksum => write!(f, "checksum mismatch (the file is corrupted)"),
            LoadError::Invalid(what) => write!(f, "inconsistent cache file: {what}"),
        }
    }
}

pub(crate) fn build_id_fingerprint(build_id: &str) -> Fingerprint {
    Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(build_id.as_bytes()))
}

pub(crate) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

pub(crate) fn fp_at(b: &[u8], at: usize) -> Fingerprint {
    let mut x = [0u8; 16];
    x.copy_from_slice(&b[at..at + 16]);
    Fingerprint::from_le_bytes(x)
}

/// The file's header: what a reader checks before anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// The writer's [`FORMAT_VERSION`].
    pub version: u32,
    /// The fingerprint hasher ([`HasherKind::tag`]).
    pub hasher: u8,
    /// The fingerprint of the writer's build id ([`build_id_fingerprint`]).
    pub build_id: Fingerprint,
    /// The length of the whole file.
    pub file_len: u64,
    /// The checksum (xxh3-64) of the index, XOR the generation (so that a damaged
    /// generation is caught too).
    pub index_sum: u64,
    /// A number new at every save, which names this file (and what is derived from it).
    pub generation: u64,
}

impl Header {
    pub(crate) fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h[12] = self.hasher;
        h[16..32].copy_from_slice(&self.build_id.to_le_bytes());
        h[32..40].copy_from_slice(&self.file_len.to_le_bytes());
        h[40..48].copy_from_slice(&self.index_sum.to_le_bytes());
        h[56..64].copy_from_slice(&self.generation.to_le_bytes());
        h
    }

    /// Decodes a header of this format version: the magic, the version and the zero
    /// bytes are checked here; what the fields must equal, by the caller.
    pub(crate) fn decode(h: &[u8; HEADER_LEN]) -> Result<Header, LoadError> {
        if h[0..8] != MAGIC {
            return Err(LoadError::BadMagic);
        }
        let version = u32_at(h, 8);
        if version != FORMAT_VERSION {
            return Err(LoadError::Version(version));
        }
        if h[13..16] != [0; 3] || h[48..56] != [0; 8] {
            return Err(LoadError::Checksum);
        }
        Ok(Header {
            version,
            hasher: h[12],
            build_id: fp_at(h, 16),
            file_len: u64_at(h, 32),
            index_sum: u64_at(h, 40),
            generation: u64_at(h, 56),
        })
    }
}
/// Where a section is: offset and length in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Section {
    off: u64,
    len: u64,
}

/// The sections, in the order of the index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Index {
    kinds: Section,
    bodies: Section,
    keys: Section,
    fps: Section,
    records: Section,
    table: Section,
    reverse: Section,
    volatile: Section,
    roots: Section,
    nodes: u64,
    key_count: u64,
    kinds_sum: u64,
    reverse_sum: u64,
    volatile_sum: u64,
    roots_sum: u64,
}

impl Index {
    fn sections(&self) -> [Section; SECTIONS] {
        [
            self.kinds,
            self.bodies,
            self.keys,
            self.fps,
            self.records,
            self.table,
            self.reverse,
            self.volatile,
            self.roots,
        ]
    }

    fn encode(&self) -> [u8; INDEX_LEN] {
        let mut f = [0u8; INDEX_LEN];
        let mut at = 0;
        let mut put = |x: u64| {
            f[at..at + 8].copy_from_slice(&x.to_le_bytes());
            at += 8;
        };
        for s in self.sections() {
            put(s.off);
            put(s.len);
        }
        for x in [
            self.nodes,
            self.key_count,
            self.kinds_sum,
            self.reverse_sum,
            self.volatile_sum,
            self.roots_sum,
            0,
        ] {
            put(x);
        }
        f[INDEX_LEN - 8..].copy_from_slice(&INDEX_MAGIC);
        f
    }

    fn decode(f: &[u8]) -> Result<Index, LoadError> {
        if f.len() != INDEX_LEN || f[INDEX_LEN - 8..] != INDEX_MAGIC {
            return Err(LoadError::Invalid("index magic"));
        }
        if f[INDEX_LEN - 16..INDEX_LEN - 8] != [0; 8] {
            return Err(LoadError::Invalid("index padding"));
        }
        let field = |i: usize| u64_at(f, i * 8);
        let s = |i: usize| Section {
            off: field(2 * i),
            len: field(2 * i + 1),
        };
        let n = 2 * SECTIONS;
        Ok(Index {
            kinds: s(0),
            bodies: s(1),
            keys: s(2),
            fps: s(3),
            records: s(4),
            table: s(5),
            reverse: s(6),
            volatile: s(7),
            roots: s(8),
            nodes: field(n),
            key_count: field(n + 1),
            kinds_sum: field(n + 2),
            reverse_sum: field(n + 3),
            volatile_sum: field(n + 4),
            roots_sum: field(n + 5),
        })
    }
}

/// The hash of (disk kind, key fingerprint) in the table: its low bits choose the slot
/// where the search starts, its high half is the slot's tag.
pub(crate) fn table_hash(kind: u16, key_fp: Fingerprint) -> u64 {
    key_fp.0 ^ key_fp.1.rotate_left(17) ^ u64::from(kind).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The number of table slots for `n` nodes: 5/4 of them and one more, so that a search
/// always ends at an empty slot, and the table is at most 80% full.
fn table_slots(n: usize) -> usize {
    n + n / 4 + 1
}

/// The slot where the search for a hash starts in a table of `cap` slots: its low 32 bits
/// scaled to the table (multiply and shift, as for any table size).
fn table_start(h: u64, cap: usize) -> usize {
    (((h & 0xffff_ffff) * cap as u64) >> 32) as usize
}

/// `offsets` (increasing) as grouped offsets (see the module documentation).
fn grouped_offsets(offsets: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 * offsets.len().div_ceil(OFFSET_BLOCK) + 2 * offsets.len());
    for block in offsets.chunks(OFFSET_BLOCK) {
        out.extend_from_slice(&block[0].to_le_bytes());
    }
    let mut far = Vec::new();
    for (i, &o) in offsets.iter().enumerate() {
        let base = offsets[i / OFFSET_BLOCK * OFFSET_BLOCK];
        match o
            .checked_sub(base)
            .and_then(|d| u16::try_from(d).ok())
            .filter(|&d| d != FAR)
        {
            Some(d) => out.extend_from_slice(&d.to_le_bytes()),
            None => {
                out.extend_from_slice(&FAR.to_le_bytes());
                far.extend_from_slice(&(i as u32).to_le_bytes());
                far.extend_from_slice(&o.to_le_bytes());
            }
        }
    }
    out.extend_from_slice(&far);
    out
}

/// Whether `len` bytes can be grouped offsets of `n` entries (the far list whole).
fn grouped_len_ok(len: u64, n: u64) -> bool {
    let min = 4 * n.div_ceil(OFFSET_BLOCK as u64) + 2 * n;
    len >= min && (len - min).is_multiple_of(8)
}

/// Entry `i` of the grouped offsets `b` of `n` entries; `None` if it is out of range or
/// cannot be found.
fn grouped_offset(b: &[u8], n: usize, i: usize) -> Option<u32> {
    if i >= n {
        return None;
    }
    let blocks = n.div_ceil(OFFSET_BLOCK);
    let base = u32_at(b.get(4 * (i / OFFSET_BLOCK)..)?.get(..4)?, 0);
    let d = u16_at(b.get(4 * blocks + 2 * i..)?.get(..2)?, 0);
    if d != FAR {
        return base.checked_add(u32::from(d));
    }
    // The far list, by binary search on the index.
    let far = b.get(4 * blocks + 2 * n..)?;
    let (mut lo, mut hi) = (0, far.len() / 8);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match (u32_at(far, 8 * mid) as usize).cmp(&i) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(u32_at(far, 8 * mid + 4)),
        }
    }
    None
}

/// The number of low bits of a table slot that hold node + 1, for `n` nodes (fewer than
/// 2^31, so at least one bit is left for the tag).
fn node_bits(n: u64) -> u32 {
    u64::BITS - n.leading_zeros()
}

/// The tag of a slot hash in a table with `bits` node bits, in place (its low bits zero).
fn slot_tag(h: u64, bits: u32) -> u32 {
    ((h >> 32) as u32).checked_shl(bits).unwrap_or(0)
}

/// Appends `x` as a LEB128 varint.
#[inline]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Reads a LEB128 varint of at most 32 bits at `*at`, advancing it; `None` if it runs
/// past the end or does not fit.
#[inline]
pub(crate) fn varint(b: &[u8], at: &mut usize) -> Option<u32> {
    let mut x = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        let bits = u32::from(byte & 0x7f);
        if shift == 28 && bits > 0xf {
            return None;
        }
        x |= bits << shift;
        if byte & 0x80 == 0 {
            return Some(x);
        }
    }
    None
}

/// The varint code of edge `d` of node `node` in its record, after the edge `prev` (the
/// first edge: `None`).
#[inline]
fn edge_code(node: u32, prev: Option<u32>, d: u32) -> u32 {
    match prev {
        None => node - 1 - d,
        Some(p) => {
            let delta = i64::from(d) - i64::from(p);
            // Both are below 2^31: the zigzag code fits in 32 bits.
            ((delta << 1) ^ (delta >> 63)) as u32
        }
    }
}

/// Reads an edge of node `node` written as [`edge_code`]; `None` if it does not point below
/// the node.
#[inline]
fn edge(b: &[u8], at: &mut usize, node: u32, prev: Option<u32>) -> Option<u32> {
    let x = varint(b, at)?;
    let d = match prev {
        None => node.checked_sub(1)?.checked_sub(x)?,
        Some(p) => {
            let delta = i64::from(x >> 1) ^ -i64::from(x & 1);
            u32::try_from(i64::from(p) + delta).ok()?
        }
    };
    (d < node).then_some(d)
}

/// The checksum of node `i`'s record: of its bytes after the checksum, then of its key's
/// entry, then of its result fingerprint (empty without one).
fn record_sum(record: &[u8], key_entry: &[u8], fp: &[u8], i: u32) -> u32 {
    let sum = xxh3_64_with_seed(key_entry, xxh3_64_with_seed(record, u64::from(i)));
    xxh3_64_with_seed(fp, sum) as u32
}

fn too_big(what: &str) -> io::Error {
    io::Error::other(format!("{what} too large for the cache format"))
}

/// One node, as the writer is given it.
pub(crate) struct NodeOut<'a> {
    pub kind: u16,
    pub flags: DiskFlags,
    pub durability: u8,
    /// Its key's index, from [`Writer::add_key`].
    pub key: u32,
    /// The result's fingerprint (written when `flags` has `HAS_FP`).
    pub fp: Fingerprint,
    /// The edges: indices of nodes written before.
    pub deps: &'a [u32],
    /// The value's bytes (written when `flags` has `HAS_VALUE`).
    pub value: &'a [u8],
}

/// What a [`Writer`] is told to expect, so that it reserves its tables once instead of
/// growing them: the number of nodes it will be given (a hint: more or fewer are written
/// all the same).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Expected {
    pub nodes: usize,
}

/// The bytes of a section of u32s go out through a buffer of this size, hashed as they go.
const PIECE: usize = 64 << 10;

/// The records go out in pieces of nearly this size (see [`Writer::node`]): more than the
/// save's `BufWriter` holds (64 KiB), which then hands them to the file without a copy.
const RECORDS_BUF: usize = 128 << 10;

/// A set of distinct fingerprints kept by its owner where it likes (the writer in its own
/// buffers, a save's walk in its graph), by index (0, 1, ...): an open-addressing table of
/// u32 slots (index + 1; 0: empty), at most half full, whose every probe compares the
/// fingerprint the owner gives for the proposed index. Four bytes a slot instead of a
/// hash map's entry of a fingerprint and an index.
pub(crate) struct FpSet {
    slots: Vec<u32>,
    len: u32,
}

impl FpSet {
    /// A set with room for `expected` fingerprints before it grows.
    pub(crate) fn new(expected: usize) -> FpSet {
        FpSet {
            slots: vec![0; (2 * expected).next_power_of_two().max(64)],
            len: 0,
        }
    }

    /// The slot where the search for `fp` starts in a table of `cap` slots (a power of
    /// two): fingerprints are hashes, so their low bits will do.
    fn start(fp: Fingerprint, cap: usize) -> usize {
        (fp.0 ^ fp.1) as usize & (cap - 1)
    }

    /// The index of `fp`, where `fp_of` gives the fingerprint of each index in the set;
    /// otherwise the empty slot where it would go.
    #[inline]
    pub(crate) fn find(
        &self,
        fp: Fingerprint,
        fp_of: impl Fn(u32) -> Fingerprint,
    ) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut at = FpSet::start(fp, self.slots.len());
        loop {
            match self.slots[at] {
                0 => return Err(at),
                s if fp_of(s - 1) == fp => return Ok(s - 1),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The number of fingerprints in the set.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Adds the next index at `slot` (what [`FpSet::find`] gave for its fingerprint, which
    /// `fp_of` now gives too), growing the table once it is half full.
    pub(crate) fn push(&mut self, slot: usize, fp_of: impl Fn(u32) -> Fingerprint) {
        self.len += 1;
        self.slots[slot] = self.len;
        if 2 * self.len as usize > self.slots.len() {
            let cap = 2 * self.slots.len();
            let mut slots = vec![0u32; cap];
            for i in 0..self.len {
                let mut at = FpSet::start(fp_of(i), cap);
                while slots[at] != 0 {
                    at = (at + 1) & (cap - 1);
                }
                slots[at] = i + 1;
            }
            self.slots = slots;
        }
    }
}

/// The byte length of each node's list in the reverse section, counted as the edges come
/// in node order (each gap from the dependent before it, the first from the node itself).
pub(crate) struct ReverseLengths {
    /// For node d: the last dependent of d met so far (d itself before the first), and the
    /// byte length of d's gaps so far (side by side: an edge reads and writes both).
    lists: Vec<[u32; 2]>,
}

impl ReverseLengths {
    /// No nodes yet, with room for `nodes`.
    pub(crate) fn new(nodes: usize) -> ReverseLengths {
        ReverseLengths {
            lists: Vec::with_capacity(nodes),
        }
    }

    /// Adds the next node, of edges `deps` (each to an earlier node).
    #[inline]
    pub(crate) fn push(&mut self, deps: &[u32]) -> io::Result<()> {
        let node = u32::try_from(self.lists.len()).map_err(|_| too_big("the edges"))?;
        let lists = &mut self.lists[..];
        for &d in deps {
            // (An earlier node: one with an entry in `lists`.)
            let Some([last, gaps]) = lists.get_mut(d as usize) else {
                return Err(io::Error::other("an edge points forward"));
            };
            *gaps += varint_len(node - *last - 1) as u32;
            *last = node;
        }
        self.lists.push([node, 0]);
        Ok(())
    }
}

/// The reverse section of the nodes whose lists `lengths` counted (see the module
/// documentation), made in one pass over their `edges` (node, dependency), given in node
/// order, so that each node's dependents come in increasing order: each list's byte length
/// was counted first ([`ReverseLengths`], of the same edges in the same order), so the
/// section is allocated once at its size and each list placed after the block starts; the
/// pass writes the gaps into their places. Besides the section it takes the two u32 per
/// node that counted the lengths.
pub(crate) fn reverse_section(
    lengths: ReverseLengths,
    edges: impl Iterator<Item = (u32, u32)>,
) -> io::Result<Reverse> {
    let n = lengths.lists.len();
    // For node d: its last dependent and the byte length of its gaps; then where its
    // next gap goes and its last dependent so far.
    let mut lists = lengths.lists;
    let heads = 4 * (n.div_ceil(REVERSE_BLOCK) + 1);
    let mut len = heads;
    for &[_, g] in &lists {
        len += varint_len(g) + g as usize;
    }
    // Every offset in the lists (from their start) fits in a u32.
    if len - heads > u32::MAX as usize {
        return Err(too_big("the reverse edges"));
    }
    let mut out = vec![0u8; len];
    let (heads_out, body) = out.split_at_mut(heads);
    let mut pos = 0;
    let mut i = 0u32;
    for (block, head) in lists
        .chunks_mut(REVERSE_BLOCK)
        .zip(heads_out.chunks_exact_mut(4))
    {
        head.copy_from_slice(&(pos as u32).to_le_bytes());
        for l in block {
            let g = l[1];
            put_varint_at(body, &mut pos, g);
            *l = [pos as u32, i];
            pos += g as usize;
            i += 1;
        }
    }
    let block = 4 * n.div_ceil(REVERSE_BLOCK);
    heads_out[block..block + 4].copy_from_slice(&(pos as u32).to_le_bytes());
    let other = || io::Error::other("the reverse lists counted of other edges");
    for (i, d) in edges {
        // An edge to an earlier node whose list has room left for it (the lengths
        // counted these edges): anything else is not written.
        let l = lists
            .get_mut(d as usize)
            .filter(|_| d < i)
            .ok_or_else(other)?;
        let mut p = l[0] as usize;
        let gap = i.checked_sub(l[1] + 1).ok_or_else(other)?;
        if p + varint_len(gap) > body.len() {
            return Err(other());
        }
        put_varint_at(body, &mut p, gap);
        *l = [p as u32, i];
    }
    // Each list must end where its counted length says: one edge more writes past it,
    // one edge fewer leaves it short (a list cut short or run over would be read as
    // other nodes' dependents).
    let mut at = 0;
    for l in &lists {
        let g = varint(body, &mut at).ok_or_else(other)?;
        at += g as usize;
        if l[0] as usize != at {
            return Err(other());
        }
    }
    drop(lists);
    let sum = xxh3_64(&out);
    Ok(Reverse {
        nodes: n,
        bytes: out,
        sum,
    })
}

/// The table section of `n` nodes, from `nodes`: each node (below `n`, each once) with
/// its table hash ([`table_hash`] of its kind and key fingerprint), in any order (the
/// order decides which of two colliding nodes comes first, not what a lookup finds).
pub(crate) fn table_section(
    n: usize,
    nodes: impl Iterator<Item = (u32, u64)>,
) -> io::Result<Vec<u32>> {
    let cap = table_slots(n);
    let bits = node_bits(n as u64);
    let mut table = vec![0u32; cap];
    let mut placed = 0;
    for (i, h) in nodes {
        if i as usize >= n || placed == n {
            return Err(io::Error::other("a table of other nodes"));
        }
        let mut at = table_start(h, cap);
        while table[at] != 0 {
            at = if at + 1 == cap { 0 } else { at + 1 };
        }
        table[at] = slot_tag(h, bits) | (i + 1);
        placed += 1;
    }
    if placed != n {
        return Err(io::Error::other("a table of other nodes"));
    }
    Ok(table)
}

/// The sections of a file made from the whole graph once every node is written (the
/// caller has the graph: the writer keeps none of it): the table and the reverse edges.
pub(crate) struct GraphSections {
    pub table: Vec<u32>,
    pub reverse: Reverse,
}

/// A reverse section, made by [`reverse_section`]: its bytes and checksum.
pub(crate) struct Reverse {
    nodes: usize,
    bytes: Vec<u8>,
    sum: u64,
}

/// Writes a cache file as its nodes are given, in one pass: the records go out as they
/// come (nothing of the size of the values is held in memory), the keys, the result
/// fingerprints and the record offsets once the last node is in ([`Writer::end_nodes`]),
/// the table and the reverse edges as the caller makes them from its graph
/// ([`GraphSections`]: the writer keeps no copy of the edges), and the header last, in
/// place.
pub(crate) struct Writer<W: Write + Seek> {
    out: W,
    /// Bytes written so far.
    pos: u64,
    index: Index,
    /// Each node's record offset in the bodies.
    offsets: Vec<u32>,
    /// The number of nodes, once [`Writer::end_nodes`] wrote the sections of the nodes.
    ended: Option<usize>,
    /// The keys section's entries and where each starts. The caller gives each key once
    /// and keeps their indices (the save's walk, by fingerprint): a set here as well would
    /// only repeat it.
    keys: Vec<u8>,
    key_offsets: Vec<u32>,
    /// The fps section, and each fingerprint's index in it.
    fps: Vec<u8>,
    fp_index: FpSet,
    /// The records not yet handed to `out`: `records[..filled]`; the rest is room, never
    /// cleared, where the next records are written in place (see [`Writer::node`]).
    records: Vec<u8>,
    filled: usize,
    build_id: Fingerprint,
    hasher: u8,
    generation: u64,
}

/// Writes `x` as a LEB128 varint at `*at` of `b` (which has room for it), advancing `*at`.
#[inline(always)]
fn put_varint_at(b: &mut [u8], at: &mut usize, mut x: u32) {
    while x >= 0x80 {
        b[*at] = x as u8 | 0x80;
        *at += 1;
        x >>= 7;
    }
    b[*at] = x as u8;
    *at += 1;
}

/// The length of `x` as a LEB128 varint.
#[inline]
fn varint_len(x: u32) -> usize {
    // 1 + ⌊(bits − 1) / 7⌋ for the significant bits (at least one).
    1 + (31 - (x | 1).leading_zeros() as usize) / 7
}

/// The longest varint of 32 bits.
const MAX_VARINT: usize = 5;

impl<W: Write + Seek> Writer<W> {
    /// Starts a file on `out` (at its start) with the query kinds `kinds`, reserving room
    /// for what it is told to `expect`.
    pub(crate) fn new(
        mut out: W,
        kinds: &[&str],
        build_id: &str,
        hasher: HasherKind,
        generation: u64,
        expect: Expected,
    ) -> io::Result<Writer<W>> {
        out.write_all(&[0u8; HEADER_LEN])?;
        let mut k = Vec::new();
        k.extend_from_slice(&(kinds.len() as u32).to_le_bytes());
        for name in kinds {
            k.extend_from_slice(&(name.len() as u32).to_le_bytes());
            k.extend_from_slice(name.as_bytes());
        }
        out.write_all(&k)?;
        let index = Index {
            kinds: Section {
                off: HEADER_LEN as u64,
                len: k.len() as u64,
            },
            kinds_sum: xxh3_64(&k),
            ..Index::default()
        };
        let pos = (HEADER_LEN + k.len()) as u64;
        Ok(Writer {
            out,
            pos,
            index: Index {
                bodies: Section { off: pos, len: 0 },
                ..index
            },
            offsets: Vec::with_capacity(expect.nodes),
            ended: None,
            // Room for what a graph usually needs, so that these do not grow: a vector
            // that grows holds its old copy until the allocator gives it back (at 100k
            // lines the save's heap peak went from 56 to 53 bytes a node). The generated
            // programs have a key for about four nodes, of 10-11 bytes a node with their
            // fingerprints, and a result fingerprint for about two.
            keys: Vec::with_capacity(expect.nodes * 12),
            key_offsets: Vec::with_capacity(expect.nodes / 3),
            fps: Vec::with_capacity(expect.nodes / 8 * 5 * FP_LEN),
            fp_index: FpSet::new(expect.nodes / 2),
            records: vec![0; RECORDS_BUF],
            filled: 0,
            build_id: build_id_fingerprint(build_id),
            hasher: hasher.tag(),
            generation,
        })
    }

    /// The fingerprint of result fingerprint `i`.
    fn fp_of(fps: &[u8]) -> impl Fn(u32) -> Fingerprint + '_ {
        move |i| fp_at(fps, FP_LEN * i as usize)
    }

    /// Adds a key and gives its index. The caller adds each key once (the file holds
    /// distinct keys) and finds an added key's index itself.
    pub(crate) fn add_key(&mut self, key_fp: Fingerprint, bytes: &[u8]) -> io::Result<u32> {
        let i = u32::try_from(self.key_offsets.len()).map_err(|_| too_big("the keys"))?;
        let off = u32::try_from(self.keys.len()).map_err(|_| too_big("the keys"))?;
        let len = u32::try_from(bytes.len()).map_err(|_| too_big("a key"))?;
        self.key_offsets.push(off);
        self.keys.extend_from_slice(&key_fp.to_le_bytes());
        put_varint(&mut self.keys, len);
        self.keys.extend_from_slice(bytes);
        Ok(i)
    }

    /// The number of nodes written.
    pub(crate) fn len(&self) -> u32 {
        self.offsets.len() as u32
    }

    /// Writes the next node's record; gives its index.
    pub(crate) fn node(&mut self, n: &NodeOut<'_>) -> io::Result<u32> {
        let i = self.len();
        if i as usize >= u32::MAX as usize / 2 {
            return Err(too_big("the node count"));
        }
        if self.ended.is_some() {
            return Err(io::Error::other("a node after the end"));
        }
        let off = self.pos - self.index.bodies.off;
        let off = u32::try_from(off).map_err(|_| too_big("the records"))?;
        if n.flags.bits() >> DURABILITY_SHIFT != 0 || n.durability >> DURABILITY_SHIFT != 0 {
            return Err(io::Error::other("flags or durability out of range"));
        }
        let has_fp = n.flags.contains(disk_flags::HAS_FP);
        let has_value = n.flags.contains(disk_flags::HAS_VALUE);
        let value_len = if has_value {
            u32::try_from(n.value.len()).map_err(|_| too_big("a value"))?
        } else {
            0
        };
        let fp_index = if has_fp {
            Some(match self.fp_index.find(n.fp, Self::fp_of(&self.fps)) {
                Ok(at) => at,
                Err(slot) => {
                    let next = self.fp_index.len;
                    if next == u32::MAX - 1 {
                        return Err(too_big("the fingerprints"));
                    }
                    self.fps.extend_from_slice(&n.fp.to_le_bytes());
                    self.fp_index.push(slot, Self::fp_of(&self.fps));
                    next
                }
            })
        } else {
            None
        };
        let start = *self
            .key_offsets
            .get(n.key as usize)
            .ok_or_else(|| io::Error::other("a key index out of range"))?;
        let end = self
            .key_offsets
            .get(n.key as usize + 1)
            .map_or(self.keys.len(), |&e| e as usize);
        // The record, written in place after the records not yet handed to `out`, in room
        // for its longest form (the checksum, the flags byte, at most five varints besides
        // the edges', and the value); the buffer is never cleared, only overwritten, and
        // goes out in pieces of nearly [`RECORDS_BUF`] bytes.
        let value = if has_value { n.value } else { &[] };
        let room = RECORD_SUM + 1 + MAX_VARINT * (5 + n.deps.len()) + value.len();
        if self.records.len() - self.filled < room {
            self.flush_records()?;
            if self.records.len() < room {
                self.records.resize(room, 0);
            }
        }
        let start_at = self.filled;
        let b = &mut self.records[start_at..];
        let mut at = RECORD_SUM;
        put_varint_at(b, &mut at, u32::from(n.kind));
        b[at] = n.flags.bits() | n.durability << DURABILITY_SHIFT;
        at += 1;
        put_varint_at(b, &mut at, n.key);
        if let Some(fp_index) = fp_index {
            put_varint_at(b, &mut at, fp_index);
        }
        put_varint_at(b, &mut at, n.deps.len() as u32);
        // The file is in dependency order: edges point to earlier nodes (see
        // [`edge_code`]). The first edge is written apart, so that the loop carries no
        // `Option` (one loop over all edges took 6 % more of `node`'s instructions).
        if let Some((&first, rest)) = n.deps.split_first() {
            if first >= i {
                return Err(io::Error::other("an edge points forward"));
            }
            put_varint_at(b, &mut at, edge_code(i, None, first));
            let mut prev = first;
            for &d in rest {
                if d >= i {
                    return Err(io::Error::other("an edge points forward"));
                }
                put_varint_at(b, &mut at, edge_code(i, Some(prev), d));
                prev = d;
            }
        }
        if has_value {
            put_varint_at(b, &mut at, value_len);
            b[at..at + value.len()].copy_from_slice(value);
            at += value.len();
        }
        let b = &mut b[..at];
        let fp = n.fp.to_le_bytes();
        let fp_entry: &[u8] = if has_fp { &fp } else { &[] };
        let sum = record_sum(
            &b[RECORD_SUM..],
            &self.keys[start as usize..end],
            fp_entry,
            i,
        );
        b[..RECORD_SUM].copy_from_slice(&sum.to_le_bytes());
        self.filled = start_at + at;
        self.pos += at as u64;
        self.offsets.push(off);
        Ok(i)
    }

    /// Hands the records written so far to `out`.
    fn flush_records(&mut self) -> io::Result<()> {
        self.out.write_all(&self.records[..self.filled])?;
        self.filled = 0;
        Ok(())
    }

    /// Writes `pieces` back to back as one section; gives where it is.
    fn section_of(&mut self, pieces: &[&[u8]]) -> io::Result<Section> {
        let off = self.pos;
        for p in pieces {
            self.out.write_all(p)?;
            self.pos += p.len() as u64;
        }
        Ok(Section {
            off,
            len: self.pos - off,
        })
    }

    /// Writes a section; gives where it is.
    fn section(&mut self, bytes: &[u8]) -> io::Result<Section> {
        self.section_of(&[bytes])
    }

    /// Writes `xs` as a section of little-endian u32s; gives where it is and its checksum.
    fn u32_section(&mut self, xs: &[u32]) -> io::Result<(Section, u64)> {
        let off = self.pos;
        let mut sum = Xxh3::new();
        self.put_u32s(xs, &mut sum)?;
        let s = Section {
            off,
            len: self.pos - off,
        };
        Ok((s, sum.digest()))
    }

    /// Writes `xs` as little-endian u32s, in pieces of at most [`PIECE`] bytes, each
    /// hashed into `sum`.
    fn put_u32s(&mut self, xs: &[u32], sum: &mut Xxh3) -> io::Result<()> {
        let mut piece = vec![0u8; PIECE.min(4 * xs.len())];
        for chunk in xs.chunks(PIECE / 4) {
            let bytes = &mut piece[..4 * chunk.len()];
            for (b, x) in bytes.chunks_exact_mut(4).zip(chunk) {
                b.copy_from_slice(&x.to_le_bytes());
            }
            sum.update(bytes);
            self.out.write_all(bytes)?;
            self.pos += bytes.len() as u64;
        }
        Ok(())
    }

    /// Writes the sections of the nodes given so far, which are all of the file's: their
    /// keys, result fingerprints and record offsets; frees what the writer kept of them.
    /// Gives the number of nodes. [`Writer::finish`] does it when it was not done.
    pub(crate) fn end_nodes(&mut self) -> io::Result<usize> {
        if let Some(n) = self.ended {
            return Ok(n);
        }
        self.flush_records()?;
        self.records = Vec::new();
        let n = self.offsets.len();
        self.index.nodes = n as u64;
        self.index.bodies.len = self.pos - self.index.bodies.off;
        // Keys: the count, the offsets' length, the offsets, the entries (as they are).
        let offsets = grouped_offsets(&self.key_offsets);
        let count = (self.key_offsets.len() as u32).to_le_bytes();
        let offsets_len = (offsets.len() as u32).to_le_bytes();
        let keys = std::mem::take(&mut self.keys);
        self.index.key_count = self.key_offsets.len() as u64;
        self.index.keys = self.section_of(&[&count, &offsets_len, &offsets, &keys])?;
        drop((keys, offsets, std::mem::take(&mut self.key_offsets)));
        let fps = std::mem::take(&mut self.fps);
        self.index.fps = self.section(&fps)?;
        drop(fps);
        self.fp_index = FpSet::new(0);
        let offsets = grouped_offsets(&std::mem::take(&mut self.offsets));
        self.index.records = self.section(&offsets)?;
        self.ended = Some(n);
        Ok(n)
    }

    /// Writes the sections after the records (the table and the reverse edges from
    /// `graph`, made of the same nodes), the index and the header; gives the output and
    /// the file's length.
    pub(crate) fn finish(
        mut self,
        volatile: &[u32],
        roots: &[u32],
        graph: GraphSections,
    ) -> io::Result<(W, u64)> {
        let n = self.end_nodes()?;
        let GraphSections { table, reverse } = graph;
        if table.len() != table_slots(n) || reverse.nodes != n {
            return Err(io::Error::other(
                "the table or reverse section of other nodes",
            ));
        }
        let (table_section, _) = self.u32_section(&table)?;
        self.index.table = table_section;
        drop(table);
        self.index.reverse = self.section(&reverse.bytes)?;
        self.index.reverse_sum = reverse.sum;
        drop(reverse);
        let (s, sum) = self.u32_section(volatile)?;
        (self.index.volatile, self.index.volatile_sum) = (s, sum);
        let (s, sum) = self.u32_section(roots)?;
        (self.index.roots, self.index.roots_sum) = (s, sum);
        let index = self.index.encode();
        self.section(&index)?;
        let header = Header {
            version: FORMAT_VERSION,
            hasher: self.hasher,
            build_id: self.build_id,
            file_len: self.pos,
            index_sum: xxh3_64(&index) ^ self.generation,
            generation: self.generation,
        };
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&header.encode())?;
        Ok((self.out, self.pos))
    }
}

/// Checks the header of a cache file of `file_len` bytes.
pub(crate) fn check_header(
    h: &[u8],
    file_len: u64,
    build_id: &str,
    hasher: HasherKind,
) -> Result<Header, LoadError> {
    let Some(h) = h
        .first_chunk::<HEADER_LEN>()
        .filter(|_| file_len >= (HEADER_LEN + INDEX_LEN) as u64)
    else {
        return Err(if h.len() >= 8 && h[..8] != MAGIC {
            LoadError::BadMagic
        } else {
            LoadError::TooShort
        });
    };
    let header = Header::decode(h)?;
    if header.hasher != hasher.tag() {
        return Err(LoadError::Hasher);
    }
    if header.build_id != build_id_fingerprint(build_id) {
        return Err(LoadError::BuildId);
    }
    if header.file_len != file_len {
        return Err(LoadError::Length {
            header: header.file_len,
            actual: file_len,
        });
    }
    Ok(header)
}

/// The bytes of a cache file: mapped, or (in tests) owned.
pub(crate) enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    /// Gives the mapped pages back to the system: the process stops holding the pages it
    /// read (they stay in the file cache), and a later read maps them again. What is read
    /// after is the same bytes: the mapping is private and read-only, so it holds no
    /// copies of its own, and the file is never written in place (see `cache_dir`).
    pub(crate) fn release_pages(&self) {
        if let Bytes::Mapped(m) = self {
            // SAFETY: `DontNeed` on a private mapping discards its private copies; this
            // one is read-only and has none, so the bytes read after it are the file's,
            // as before. A failure only leaves the pages mapped.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// A part of the file that failed its check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Damaged;
/// A node's record, checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record<'a> {
    pub kind: u16,
    pub flags: DiskFlags,
    pub durability: u8,
    pub key_fp: Fingerprint,
    pub fp: Fingerprint,
    /// The node's index.
    node: u32,
    /// Its key's index.
    key: u32,
    edge_count: u32,
    /// The edges, as written by [`edge_code`] (each checked to point below the node).
    edges: &'a [u8],
    /// The value's bytes (empty without `HAS_VALUE`).
    value: &'a [u8],
}

impl Record<'_> {
    /// The edges, in the order they were read.
    pub(crate) fn deps(&self) -> impl Iterator<Item = u32> + '_ {
        edges_of(self.edges, self.node, self.edge_count)
    }
}

/// What [`Store::record_links`] reads of a record, unchecked.
pub(crate) struct RecordLinks<'a> {
    pub flags: DiskFlags,
    pub durability: u8,
    node: u32,
    edge_count: u32,
    /// From the first edge to the end of the bodies.
    edges: &'a [u8],
}

impl RecordLinks<'_> {
    /// The node's edges, as far as they can be read.
    pub(crate) fn deps(&self) -> impl Iterator<Item = u32> + '_ {
        edges_of(self.edges, self.node, self.edge_count)
    }
}

/// The `count` edges of node `node` at the start of `b`, as far as they can be read.
fn edges_of(b: &[u8], node: u32, count: u32) -> impl Iterator<Item = u32> + '_ {
    let mut at = 0;
    let mut prev = None;
    (0..count).map_while(move |_| {
        let d = edge(b, &mut at, node, prev)?;
        prev = Some(d);
        Some(d)
    })
}

/// The previous session's cache file, opened: sections located, the small ones read.
pub(crate) struct Store {
    bytes: std::sync::Arc<Bytes>,
    index: Index,
    pub header: Header,
    /// The writer's query kind names, by disk kind.
    pub kinds: Vec<String>,
    pub volatile: Vec<u32>,
    /// Whether the reverse section's checksum was found right (checked on first use).
    reverse_ok: std::cell::OnceCell<bool>,
    /// The check of the reverse section running on a thread of its own
    /// ([`Store::check_reverse_ahead`]), until its first use takes the answer.
    reverse_ahead: std::cell::RefCell<Option<std::thread::JoinHandle<bool>>>,
}

/// The size of a reverse section from which [`Store::check_reverse_ahead`] starts a thread
/// (hashing 1 MiB takes about 0.1 ms, starting a thread some 30 µs).
const REVERSE_AHEAD_MIN: u64 = 1 << 20;

/// A section's bytes, if the index's bounds are right.
fn slice(bytes: &[u8], s: Section) -> Option<&[u8]> {
    let off = usize::try_from(s.off).ok()?;
    let len = usize::try_from(s.len).ok()?;
    bytes.get(off..off.checked_add(len)?)
}

fn checked_u32s(
    bytes: &[u8],
    s: Section,
    sum: u64,
    what: &'static str,
) -> Result<Vec<u32>, LoadError> {
    let b = slice(bytes, s).ok_or(LoadError::Invalid(what))?;
    if b.len() % 4 != 0 || xxh3_64(b) != sum {
        return Err(LoadError::Checksum);
    }
    Ok(b.chunks_exact(4).map(|c| u32_at(c, 0)).collect())
}

impl Store {
    /// See [`Bytes::release_pages`].
    pub(crate) fn release_pages(&self) {
        self.bytes.release_pages();
    }

    /// Opens a cache file: checks the header, the index and the small sections (see the
    /// module documentation); the records are checked when used.
    pub(crate) fn open(
        bytes: Bytes,
        build_id: &str,
        hasher: HasherKind,
    ) -> Result<Store, LoadError> {
        let header = check_header(&bytes, bytes.len() as u64, build_id, hasher)?;
        let index_bytes = &bytes[bytes.len() - INDEX_LEN..];
        if xxh3_64(index_bytes) ^ header.generation != header.index_sum {
            return Err(LoadError::Checksum);
        }
        let index = Index::decode(index_bytes)?;
        let body_end = (bytes.len() - INDEX_LEN) as u64;
        for s in index.sections() {
            if s.off < HEADER_LEN as u64 || s.off.checked_add(s.len).is_none_or(|e| e > body_end) {
                return Err(LoadError::Invalid("section offsets"));
            }
        }
        let n = index.nodes;
        let slots = index.table.len / SLOT as u64;
        if n >= u64::from(u32::MAX / 2)
            || index.bodies.len > u64::from(u32::MAX)
            || !grouped_len_ok(index.records.len, n)
            || index.key_count >= u64::from(u32::MAX / 4)
            || index.table.len % SLOT as u64 != 0
            || index.fps.len % FP_LEN as u64 != 0
            || slots != table_slots(n as usize) as u64
            || index.reverse.len < 4 * (n.div_ceil(REVERSE_BLOCK as u64) + 1)
        {
            return Err(LoadError::Invalid("section lengths"));
        }
        let kb = slice(&bytes, index.kinds).ok_or(LoadError::Invalid("kinds"))?;
        if xxh3_64(kb) != index.kinds_sum {
            return Err(LoadError::Checksum);
        }
        let kinds = decode_kinds(kb)?;
        if kinds.len() >= u16::MAX as usize {
            return Err(LoadError::Invalid("kind count"));
        }
        let keys = slice(&bytes, index.keys).ok_or(LoadError::Invalid("keys"))?;
        if keys.len() < 8
            || u64::from(u32_at(keys, 0)) != index.key_count
            || !grouped_len_ok(u64::from(u32_at(keys, 4)), index.key_count)
            || keys.len() as u64 - 8 < u64::from(u32_at(keys, 4))
        {
            return Err(LoadError::Invalid("keys"));
        }
        let volatile = checked_u32s(&bytes, index.volatile, index.volatile_sum, "volatile")?;
        if volatile.iter().any(|&i| u64::from(i) >= n) {
            return Err(LoadError::Invalid("node index out of range"));
        }
        // The roots are checked when used (`Store::roots`): only a new file's writer reads
        // them, and at a million lines they are some 200 KiB, a page fault per 4 KiB.
        if index.roots.len % 4 != 0 {
            return Err(LoadError::Invalid("roots"));
        }
        Ok(Store {
            bytes: std::sync::Arc::new(bytes),
            index,
            header,
            kinds,
            volatile,
            reverse_ok: std::cell::OnceCell::new(),
            reverse_ahead: std::cell::RefCell::new(None),
        })
    }

    /// The roots, checked against their checksum and the node count; `None` if the
    /// section is damaged.
    pub(crate) fn roots(&self) -> Option<Vec<u32>> {
        let index = &self.index;
        let roots = checked_u32s(&self.bytes, index.roots, index.roots_sum, "roots").ok()?;
        let n = self.index.nodes;
        roots.iter().all(|&i| u64::from(i) < n).then_some(roots)
    }

    /// The number of nodes.
    pub(crate) fn len(&self) -> u32 {
        self.index.nodes as u32
    }

    /// The size of the file.
    pub(crate) fn file_len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The bodies' bytes from node `i`'s record to their end, unchecked; `None` if `i` or
    /// the record's offset is out of range.
    fn record_bytes(&self, i: u32) -> Option<&[u8]> {
        if u64::from(i) >= self.index.nodes {
            return None;
        }
        let records = slice(&self.bytes, self.index.records)?;
        let bodies = slice(&self.bytes, self.index.bodies)?;
        let start = grouped_offset(records, self.index.nodes as usize, i as usize)? as usize;
        bodies.get(start..)
    }

    /// Node `i`'s record, checked; `None` if it is damaged.
    pub(crate) fn record(&self, i: u32) -> Option<Record<'_>> {
        let b = self.record_bytes(i)?;
        let sum = u32_at(b.get(..RECORD_SUM)?, 0);
        let mut at = RECORD_SUM;
        let kind = u16::try_from(varint(b, &mut at)?).ok()?;
        let flags_byte = *b.get(at)?;
        at += 1;
        let flags = DiskFlags::from_bits_retain(flags_byte & ((1 << DURABILITY_SHIFT) - 1));
        let durability = flags_byte >> DURABILITY_SHIFT;
        let key = varint(b, &mut at)?;
        let mut fp_entry: &[u8] = &[];
        if flags.contains(disk_flags::HAS_FP) {
            let fps = slice(&self.bytes, self.index.fps)?;
            let k = varint(b, &mut at)? as usize;
            fp_entry = fps.get(k.checked_mul(FP_LEN)?..)?.get(..FP_LEN)?;
        }
        let edge_count = varint(b, &mut at)?;
        let edges_at = at;
        let mut prev = None;
        for _ in 0..edge_count {
            prev = Some(edge(b, &mut at, i, prev)?);
        }
        let edges = &b[edges_at..at];
        let mut value: &[u8] = &[];
        if flags.contains(disk_flags::HAS_VALUE) {
            let len = varint(b, &mut at)? as usize;
            value = b.get(at..at.checked_add(len)?)?;
            at += len;
        }
        let (key_fp, _, entry) = self.key_entry(key)?;
        if record_sum(&b[RECORD_SUM..at], entry, fp_entry, i) != sum {
            return None;
        }
        let fp = if fp_entry.is_empty() {
            Fingerprint::ZERO
        } else {
            fp_at(fp_entry, 0)
        };
        let record = Record {
            kind,
            flags,
            durability,
            key_fp,
            fp,
            node: i,
            key,
            edge_count,
            edges,
            value,
        };
        if usize::from(record.kind) >= self.kinds.len()
            || crate::Durability::from_u8(record.durability).is_none()
        {
            return None;
        }
        Some(record)
    }

    /// Node `i`'s flags, durability and edges, read from its record without checking it:
    /// for a save comparing a node of the session with the record the session checked
    /// when it loaded the node ([`Store::record`]). Damaged since, the record could at
    /// worst compare equal and be kept as it is, where its checksum fails when it is next
    /// used.
    pub(crate) fn record_links(&self, i: u32) -> Option<RecordLinks<'_>> {
        let b = self.record_bytes(i)?;
        let mut at = RECORD_SUM;
        varint(b, &mut at)?;
        let flags_byte = *b.get(at)?;
        at += 1;
        let flags = DiskFlags::from_bits_retain(flags_byte & ((1 << DURABILITY_SHIFT) - 1));
        varint(b, &mut at)?;
        if flags.contains(disk_flags::HAS_FP) {
            varint(b, &mut at)?;
        }
        let edge_count = varint(b, &mut at)?;
        Some(RecordLinks {
            flags,
            durability: flags_byte >> DURABILITY_SHIFT,
            node: i,
            edge_count,
            edges: &b[at..],
        })
    }

    /// Key `k`'s entry: its fingerprint, its bytes and the whole entry (unchecked: a
    /// record's checksum covers the entry of its key).
    fn key_entry(&self, k: u32) -> Option<(Fingerprint, &[u8], &[u8])> {
        if u64::from(k) >= self.index.key_count {
            return None;
        }
        let keys = slice(&self.bytes, self.index.keys)?;
        let offsets_len = u32_at(keys, 4) as usize;
        let offsets = keys.get(8..8 + offsets_len)?;
        let entries = keys.get(8 + offsets_len..)?;
        let off = grouped_offset(offsets, self.index.key_count as usize, k as usize)? as usize;
        let fp = fp_at(entries.get(off..off.checked_add(16)?)?, 0);
        let mut at = off + 16;
        let len = varint(entries, &mut at)? as usize;
        let end = at.checked_add(len)?;
        Some((fp, entries.get(at..end)?, &entries[off..end]))
    }

    /// Node `i`'s key bytes (checked with its record; the caller checks them against the
    /// key fingerprint after decoding).
    pub(crate) fn key_bytes(&self, i: u32) -> Option<&[u8]> {
        Some(self.key_entry(self.record(i)?.key)?.1)
    }

    /// Node `i`'s key bytes without checking its record again: for a node whose record
    /// was checked when it was loaded (`cache_dir::ensure`), read by a caller that checks
    /// the decoded key against that record's key fingerprint (as `fetch::key_of` does),
    /// so that bytes other than the checked ones cannot pass for its key.
    pub(crate) fn loaded_key_bytes(&self, i: u32) -> Option<&[u8]> {
        let b = self.record_bytes(i)?;
        // The checksum, the kind and the flags byte, then the key's index.
        let mut at = RECORD_SUM;
        varint(b, &mut at)?;
        at += 1;
        let key = varint(b, &mut at)?;
        Some(self.key_entry(key)?.1)
    }

    /// Node `i`'s value bytes: `None` if it has no value, an error if its record is
    /// damaged.
    pub(crate) fn value(&self, i: u32) -> Option<Result<&[u8], Damaged>> {
        match self.record(i) {
            Some(r) if r.flags.contains(disk_flags::HAS_VALUE) => Some(Ok(r.value)),
            Some(_) => None,
            None => Some(Err(Damaged)),
        }
    }

    /// Node `i`'s value bytes, if it has a value and they are intact.
    #[cfg(test)]
    pub(crate) fn value_bytes(&self, i: u32) -> Option<&[u8]> {
        self.value(i)?.ok()
    }

    /// The nodes the table proposes for (disk kind, key fingerprint), in probe order.
    pub(crate) fn candidates(
        &self,
        kind: u16,
        key_fp: Fingerprint,
    ) -> impl Iterator<Item = u32> + '_ {
        let table = slice(&self.bytes, self.index.table).unwrap_or(&[]);
        let cap = table.len() / SLOT;
        let h = table_hash(kind, key_fp);
        let bits = node_bits(self.index.nodes);
        let tag = slot_tag(h, bits);
        let node_mask = (1u64 << bits).wrapping_sub(1) as u32;
        let mut at = if cap == 0 { 0 } else { table_start(h, cap) };
        let mut left = cap;
        std::iter::from_fn(move || {
            while left > 0 {
                left -= 1;
                let slot = u32_at(table, at * SLOT);
                at = if at + 1 == cap { 0 } else { at + 1 };
                if slot == 0 {
                    left = 0;
                    return None;
                }
                let node = slot & node_mask;
                if slot & !node_mask == tag && node != 0 && u64::from(node - 1) < self.index.nodes {
                    return Some(node - 1);
                }
            }
            None
        })
    }

    /// The dependents of node `i` (in the file), if the reverse section is intact.
    pub(crate) fn dependents(&self, i: u32) -> Option<impl Iterator<Item = u32> + '_> {
        let rev = slice(&self.bytes, self.index.reverse)?;
        let ok = *self.reverse_ok.get_or_init(|| {
            let ahead = self.reverse_ahead.borrow_mut().take();
            match ahead.map(std::thread::JoinHandle::join) {
                Some(Ok(ok)) => ok,
                _ => xxh3_64(rev) == self.index.reverse_sum,
            }
        });
        if !ok {
            return None;
        }
        let n = self.index.nodes as usize;
        let (start, list) = rev.split_at(4 * (n.div_ceil(REVERSE_BLOCK) + 1));
        if i as usize >= n {
            return None;
        }
        let block = i as usize / REVERSE_BLOCK;
        let s = u32_at(start, 4 * block) as usize;
        let e = u32_at(start, 4 * (block + 1)) as usize;
        let lists = list.get(s..e)?;
        // Skip the lists of the block's nodes before `i`.
        let mut at = 0;
        for _ in 0..i as usize % REVERSE_BLOCK {
            let len = varint(lists, &mut at)? as usize;
            at = at.checked_add(len)?;
        }
        let len = varint(lists, &mut at)? as usize;
        let gaps = lists.get(at..at.checked_add(len)?)?;
        // A dependent comes after what it read, and is a node of the file.
        let mut at = 0;
        let mut prev = i;
        Some(std::iter::from_fn(move || {
            let gap = varint(gaps, &mut at)?;
            let d = prev.checked_add(gap)?.checked_add(1)?;
            prev = d;
            ((d as usize) < n).then_some(d)
        }))
    }

    /// Takes the reverse section as intact without reading it, for a caller that knows
    /// the file unchanged since a check found it intact (see `cache_dir`'s
    /// `CHECKED_FILE`). Called before any use.
    pub(crate) fn trust_reverse(&self) {
        let _ = self.reverse_ok.set(true);
    }

    /// Whether the reverse section has been checked (or trusted) and found intact.
    pub(crate) fn reverse_checked(&self) -> bool {
        self.reverse_ok.get() == Some(&true)
    }

    /// Starts checking the reverse section on a thread of its own, once, when it is big
    /// enough to be worth one ([`REVERSE_AHEAD_MIN`]) and not checked yet: a session that
    /// found a change needs it ([`Store::dependents`]), and the check, which reads the
    /// whole section, then overlaps the rest of the session's start. The same bytes are
    /// hashed against the same checksum; the first use waits for the answer.
    pub(crate) fn check_reverse_ahead(&self) {
        self.check_reverse_ahead_from(REVERSE_AHEAD_MIN);
    }

    /// [`Store::check_reverse_ahead`] for a section of at least `min` bytes.
    fn check_reverse_ahead_from(&self, min: u64) {
        let s = self.index.reverse;
        if s.len < min || self.reverse_ok.get().is_some() {
            return;
        }
        let mut ahead = self.reverse_ahead.borrow_mut();
        if ahead.is_some() {
            return;
        }
        let (bytes, sum) = (std::sync::Arc::clone(&self.bytes), self.index.reverse_sum);
        // A thread that cannot be started leaves the check to the first use.
        *ahead = std::thread::Builder::new()
            .name("query-cache-check".to_string())
            .spawn(move || slice(&bytes, s).is_some_and(|rev| xxh3_64(rev) == sum))
            .ok();
    }

    /// Whether the reverse section is intact (checked once).
    pub(crate) fn reverse_intact(&self) -> bool {
        self.dependents(0).is_some() || self.index.nodes == 0
    }
}

fn decode_kinds(b: &[u8]) -> Result<Vec<String>, LoadError> {
    let bad = LoadError::Invalid("kinds");
    if b.len() < 4 {
        return Err(bad);
    }
    let count = u32_at(b, 0) as usize;
    let mut at = 4;
    let mut kinds = Vec::new();
    for _ in 0..count {
        let len = b
            .get(at..at + 4)
            .map(|x| u32_at(x, 0) as usize)
            .ok_or(LoadError::Invalid("kinds"))?;
        at += 4;
        let name = b
            .get(at..at.checked_add(len).ok_or(LoadError::Invalid("kinds"))?)
            .and_then(|x| std::str::from_utf8(x).ok())
            .ok_or(LoadError::Invalid("kinds"))?;
        kinds.push(name.to_string());
        at += len;
    }
    if at != b.len() {
        return Err(bad);
    }
    Ok(kinds)
}

/// Appends the key of `node`, encoded for the cache (from memory); `false` if it is not
/// in memory or cannot be encoded.
pub(crate) fn encode_key<Q: Query>(db: &Q::Db, node: NodeId, out: &mut Vec<u8>) -> bool {
    let rt = crate::Database::runtime(db);
    let Some(slot) = rt.graph.borrow().node(node).slot else {
        return false;
    };
    let st = Q::storage(db).inner.borrow();
    let len = out.len();
    let ok = crate::query::codec_encode_into(&st.slot(slot).key, out).is_ok();
    if !ok {
        out.truncate(len);
    }
    ok
}

/// Appends the value of `node`, encoded for the cache (from memory, `cache_on_disk`
/// only); `false` if there is none or it cannot be encoded.
pub(crate) fn encode_value<Q: Query>(db: &Q::Db, node: NodeId, out: &mut Vec<u8>) -> bool {
    let Some(codec) = Q::CODEC.as_ref() else {
        return false;
    };
    let rt = crate::Database::runtime(db);
    let Some(slot) = rt.graph.borrow().node(node).slot else {
        return false;
    };
    let st = Q::storage(db).inner.borrow();
    let s = st.slot(slot);
    // Encoded when it was executed (and fingerprinted by these bytes).
    if let Some(r) = s.encoded {
        if crate::cache_dir::read_spilled(rt, r, out) {
            return true;
        }
    }
    let len = out.len();
    let ok = s
        .value
        .as_ref()
        .is_some_and(|v| (codec.encode)(v, out).is_ok());
    if !ok {
        out.truncate(len);
    }
    ok
}

/// Whether the value of `node` is in memory.
pub(crate) fn has_value<Q: Query>(db: &Q::Db, node: NodeId) -> bool {
    let rt = crate::Database::runtime(db);
    let slot = rt.graph.borrow().node(node).slot;
    slot.is_some_and(|slot| Q::storage(db).inner.borrow().slot(slot).value.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node `i` of the test graph: (kind, flags, durability, key fingerprint, edges).
    fn node(i: u32) -> (u16, DiskFlags, u8, Fingerprint, Vec<u32>) {
        let flags = if i.is_multiple_of(3) {
            disk_flags::HAS_FP | disk_flags::HAS_VALUE
        } else {
            disk_flags::HAS_FP
        };
        // Nodes 2k and 2k + 1 share a key (kinds 0 and 1): the key is stored once.
        let k = u64::from(i / 2);
        let key_fp = Fingerprint(k << 33 | 1, u64::MAX - k);
        // Edges in invocation order: going down, or (every fourth node) up.
        let mut deps: Vec<u32> = (0..i.min(3)).map(|d| i - 1 - d).collect();
        if i % 4 == 0 {
            deps.reverse();
        }
        ((i % 2) as u16, flags, (i % 3) as u8, key_fp, deps)
    }

    fn value(i: u32) -> Vec<u8> {
        (0..i % 7 + 1)
            .map(|x| (x as u8) ^ (i as u8) ^ 0x5a)
            .collect()
    }

    fn key(i: u32) -> Vec<u8> {
        vec![(i / 2) as u8, 0xee]
    }

    /// Node `i`'s result fingerprint: nodes `i` and `i + 5` share one (stored once).
    fn fp(i: u32) -> Fingerprint {
        Fingerprint(u64::from(i % 5) * 0x9e37_79b9, 7)
    }

    fn file() -> Vec<u8> {
        file_expecting(Expected::default())
    }

    /// The graph sections of the nodes (kind, key fingerprint, edges), made as a save
    /// makes them from its graph.
    fn sections(nodes: &[(u16, Fingerprint, Vec<u32>)]) -> GraphSections {
        let mut lengths = ReverseLengths::new(nodes.len());
        for (_, _, deps) in nodes {
            lengths.push(deps).unwrap();
        }
        let edges = nodes
            .iter()
            .enumerate()
            .flat_map(|(i, (_, _, deps))| deps.iter().map(move |&d| (i as u32, d)));
        let hashes = (0..).zip(nodes.iter().map(|&(kind, fp, _)| table_hash(kind, fp)));
        GraphSections {
            table: table_section(nodes.len(), hashes).unwrap(),
            reverse: reverse_section(lengths, edges).unwrap(),
        }
    }

    /// The test file, written by a writer told to expect `expect`, its nodes' sections
    /// ended apart from the rest or not.
    fn file_expecting(expect: Expected) -> Vec<u8> {
        let out = std::io::Cursor::new(Vec::new());
        let mut w =
            Writer::new(out, &["a", "é"], "build-1", HasherKind::Sip128, 9, expect).unwrap();
        // Each key's index, by fingerprint (as the save's walk keeps them).
        let mut keys = std::collections::HashMap::new();
        let mut graph = Vec::new();
        for i in 0..40u32 {
            let (kind, flags, durability, key_fp, deps) = node(i);
            let key = *keys
                .entry(key_fp)
                .or_insert_with(|| w.add_key(key_fp, &key(i)).unwrap());
            let v = value(i);
            let at = w
                .node(&NodeOut {
                    kind,
                    flags,
                    durability,
                    key,
                    fp: fp(i),
                    deps: &deps,
                    value: &v,
                })
                .unwrap();
            assert_eq!(at, i);
            graph.push((kind, key_fp, deps));
        }
        if expect.nodes > 0 {
            assert_eq!(w.end_nodes().unwrap(), 40);
            assert!(w
                .node(&NodeOut {
                    kind: 0,
                    flags: DiskFlags::EMPTY,
                    durability: 0,
                    key: 0,
                    fp: Fingerprint::ZERO,
                    deps: &[],
                    value: &[],
                })
                .is_err());
        }
        let (out, len) = w.finish(&[0, 1], &[39], sections(&graph)).unwrap();
        let bytes = out.into_inner();
        assert_eq!(bytes.len() as u64, len);
        bytes
    }

    fn open(b: Vec<u8>) -> Result<Store, LoadError> {
        Store::open(Bytes::Owned(b), "build-1", HasherKind::Sip128)
    }

    #[test]
    fn varints_round_trip_and_reject_overlong_input() {
        let mut b = Vec::new();
        let xs = [0, 1, 127, 128, 300, 1 << 21, u32::MAX - 1, u32::MAX];
        for x in xs {
            put_varint(&mut b, x);
        }
        let mut at = 0;
        for x in xs {
            assert_eq!(varint(&b, &mut at), Some(x));
        }
        assert_eq!(at, b.len());
        assert_eq!(varint(&b, &mut at), None);
        // Past 32 bits, or never ending.
        assert_eq!(varint(&[0xff, 0xff, 0xff, 0xff, 0x1f], &mut 0), None);
        assert_eq!(varint(&[0x80; 6], &mut 0), None);
    }

    #[test]
    fn varints_written_in_place_match_and_their_lengths_are_exact() {
        let xs = [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            1 << 21,
            1 << 28,
            u32::MAX,
        ];
        for x in xs {
            let mut v = Vec::new();
            put_varint(&mut v, x);
            let mut b = [0u8; MAX_VARINT];
            let mut at = 0;
            put_varint_at(&mut b, &mut at, x);
            assert_eq!((&b[..at], varint_len(x)), (&v[..], v.len()), "{x}");
        }
    }

    #[test]
    fn a_fingerprint_set_finds_each_index_across_growth() {
        // Fingerprints whose low bits collide in pairs, stored as the writer stores them.
        let fps: Vec<Fingerprint> = (0..5000u64)
            .map(|i| Fingerprint((i / 2) << 20, i))
            .collect();
        let mut stored = Vec::new();
        let mut set = FpSet::new(1);
        for (i, &fp) in fps.iter().enumerate() {
            let fp_of = |j: u32| fp_at(&stored, FP_LEN * j as usize);
            let slot = set.find(fp, fp_of).expect_err("not added yet");
            stored.extend_from_slice(&fp.to_le_bytes());
            set.push(slot, |j: u32| fp_at(&stored, FP_LEN * j as usize));
            assert_eq!(set.len as usize, i + 1);
        }
        assert!(set.slots.len() >= 2 * fps.len());
        for (i, &fp) in fps.iter().enumerate() {
            let fp_of = |j: u32| fp_at(&stored, FP_LEN * j as usize);
            assert_eq!(set.find(fp, fp_of), Ok(i as u32));
        }
        let fp_of = |j: u32| fp_at(&stored, FP_LEN * j as usize);
        assert!(set.find(Fingerprint(7, 7), fp_of).is_err());
    }

    /// A writer into memory with one query kind and nothing expected.
    fn writer() -> Writer<std::io::Cursor<Vec<u8>>> {
        let out = std::io::Cursor::new(Vec::new());
        Writer::new(
            out,
            &["a"],
            "build-1",
            HasherKind::Sip128,
            3,
            Expected::default(),
        )
        .unwrap()
    }

    #[test]
    fn the_bytes_do_not_depend_on_what_the_writer_expected() {
        let plain = file();
        for nodes in [1, 40, 1000] {
            assert_eq!(file_expecting(Expected { nodes }), plain);
        }
    }

    /// A file of many nodes with long dependent lists: the reverse section spans several
    /// pieces, and its lists and checksum are those of the edges.
    #[test]
    fn a_reverse_section_of_several_pieces_round_trips() {
        let mut w = writer();
        let n = 40_000u32;
        let mut graph = Vec::new();
        for i in 0..n {
            let key_fp = Fingerprint(u64::from(i), 1);
            let key = w.add_key(key_fp, &i.to_le_bytes()).unwrap();
            // Every node reads the first 8 nodes and its predecessor.
            let mut deps: Vec<u32> = (0..i.min(8)).collect();
            if i > 8 {
                deps.push(i - 1);
            }
            w.node(&NodeOut {
                kind: 0,
                flags: DiskFlags::EMPTY,
                durability: 0,
                key,
                fp: Fingerprint::ZERO,
                deps: &deps,
                value: &[],
            })
            .unwrap();
            graph.push((0, key_fp, deps));
        }
        let (out, _) = w.finish(&[], &[n - 1], sections(&graph)).unwrap();
        let store = open(out.into_inner()).unwrap();
        assert!(store.index.reverse.len > 2 * PIECE as u64);
        assert!(store.reverse_intact());
        assert_eq!(store.dependents(0).unwrap().count(), n as usize - 1);
        assert_eq!(
            store.dependents(100).unwrap().collect::<Vec<_>>(),
            vec![101]
        );
        assert_eq!(
            store.dependents(7).unwrap().take(3).collect::<Vec<_>>(),
            vec![8, 9, 10]
        );
        assert_eq!(store.dependents(n - 1).unwrap().count(), 0);
    }

    /// The reverse section as a counting sort of the edges makes it: every dependent list
    /// gathered first, then each list written after the block starts.
    fn reverse_by_sorting(lists: &[Vec<u32>]) -> Vec<u8> {
        let n = lists.len();
        let mut dependents = vec![Vec::new(); n];
        for (i, deps) in lists.iter().enumerate() {
            for &d in deps {
                dependents[d as usize].push(i as u32);
            }
        }
        let heads = 4 * (n.div_ceil(REVERSE_BLOCK) + 1);
        let mut out = vec![0u8; heads];
        for (i, deps) in dependents.iter().enumerate() {
            if i % REVERSE_BLOCK == 0 {
                let off = (out.len() - heads) as u32;
                out[4 * (i / REVERSE_BLOCK)..][..4].copy_from_slice(&off.to_le_bytes());
            }
            let mut gaps = Vec::new();
            let mut prev = i as u32;
            for &d in deps {
                put_varint(&mut gaps, d - prev - 1);
                prev = d;
            }
            put_varint(&mut out, gaps.len() as u32);
            out.extend_from_slice(&gaps);
        }
        let off = (out.len() - heads) as u32;
        out[4 * n.div_ceil(REVERSE_BLOCK)..][..4].copy_from_slice(&off.to_le_bytes());
        out
    }

    proptest::proptest! {
        /// The reverse section made in two passes over the edges is the one a counting
        /// sort gives, for graphs with far and near edges in any order and lists whose
        /// lengths take more than one byte.
        #[test]
        fn the_reverse_section_is_that_of_a_counting_sort(
            n in 0usize..300,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mut x = seed | 1;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let lists: Vec<Vec<u32>> = (0..n as u32)
                .map(|i| {
                    let mut deps: Vec<u32> = (0..i).filter(|_| next() % 4 == 0).collect();
                    if i > 0 && next() % 2 == 0 && !deps.contains(&0) {
                        deps.push(0);
                    }
                    for k in (1..deps.len()).rev() {
                        deps.swap(k, next() as usize % (k + 1));
                    }
                    deps
                })
                .collect();
            let mut lengths = ReverseLengths::new(0);
            for deps in &lists {
                lengths.push(deps).unwrap();
            }
            let edges = lists
                .iter()
                .enumerate()
                .flat_map(|(i, deps)| deps.iter().map(move |&d| (i as u32, d)));
            let reverse = reverse_section(lengths, edges).unwrap();
            let expected = reverse_by_sorting(&lists);
            proptest::prop_assert_eq!(reverse.nodes, n);
            proptest::prop_assert_eq!(reverse.sum, xxh3_64(&expected));
            proptest::prop_assert!(reverse.bytes == expected);
        }
    }

    /// Edges other than those whose lengths were counted are an error, never a panic or
    /// a section with a list cut short.
    #[test]
    fn a_reverse_section_of_other_edges_is_an_error() {
        let lists: Vec<Vec<u32>> = vec![vec![], vec![0], vec![0, 1], vec![2]];
        let counted = || {
            let mut lengths = ReverseLengths::new(0);
            for deps in &lists {
                lengths.push(deps).unwrap();
            }
            lengths
        };
        let good: Vec<(u32, u32)> = vec![(1, 0), (2, 0), (2, 1), (3, 2)];
        assert!(reverse_section(counted(), good.iter().copied()).is_ok());
        for bad in [
            // One edge more, to a node whose list has no room left.
            vec![(1, 0), (2, 0), (2, 1), (3, 2), (3, 0)],
            // The same edge twice.
            vec![(1, 0), (1, 0), (2, 1), (3, 2)],
            // An edge that points forward, or past the nodes.
            vec![(1, 2), (2, 0), (2, 1), (3, 2)],
            vec![(1, 0), (2, 0), (2, 1), (3, 9)],
        ] {
            assert!(reverse_section(counted(), bad.into_iter()).is_err());
        }
    }

    #[test]
    fn grouped_offsets_round_trip_with_far_entries() {
        // Blocks within 64 KiB, a block that spans more, an offset exactly 0xffff past its
        // block's, and a last partial block.
        let mut offsets: Vec<u32> = (0..20).map(|i| i * 100).collect();
        offsets.extend([70_000, 70_001, 200_000, 70_001 + 0xffff, 300_000]);
        offsets.sort_unstable();
        offsets.extend((0..19).map(|i| 400_000 + i * 5000));
        let b = grouped_offsets(&offsets);
        let n = offsets.len();
        assert!(grouped_len_ok(b.len() as u64, n as u64));
        assert!(!grouped_len_ok(b.len() as u64 - 1, n as u64));
        assert!(
            b.len() > 4 * n.div_ceil(OFFSET_BLOCK) + 2 * n,
            "some entries are far"
        );
        for (i, &o) in offsets.iter().enumerate() {
            assert_eq!(grouped_offset(&b, n, i), Some(o), "entry {i}");
        }
        assert_eq!(grouped_offset(&b, n, n), None);
        assert_eq!(grouped_offset(&[], 0, 0), None);
        // A damaged far list loses only its entries.
        let mut bad = b.clone();
        let far = 4 * n.div_ceil(OFFSET_BLOCK) + 2 * n;
        bad[far] ^= 0x40;
        assert_eq!(grouped_offset(&bad, n, 0), Some(0));
        let found = (0..n)
            .filter(|&i| grouped_offset(&bad, n, i) == Some(offsets[i]))
            .count();
        assert!(found < n);
    }

    #[test]
    fn records_keys_values_and_the_table_round_trip() {
        let store = open(file()).unwrap();
        assert_eq!(store.len(), 40);
        assert_eq!(store.index.key_count, 20, "one key per pair of nodes");
        assert_eq!(
            store.index.fps.len,
            5 * 16,
            "one fingerprint per residue mod 5"
        );
        assert_eq!(store.header.generation, 9);
        assert_eq!(
            (store.volatile.as_slice(), store.roots().unwrap().as_slice()),
            (&[0, 1][..], &[39][..])
        );
        for i in 0..40u32 {
            let (kind, flags, durability, key_fp, deps) = node(i);
            let r = store.record(i).unwrap();
            assert_eq!((r.kind, r.flags, r.durability), (kind, flags, durability));
            assert_eq!(r.key_fp, key_fp);
            assert_eq!(r.fp, fp(i));
            assert_eq!(r.deps().collect::<Vec<_>>(), deps);
            assert_eq!(store.key_bytes(i).unwrap(), key(i));
            assert_eq!(store.loaded_key_bytes(i).unwrap(), key(i));
            assert_eq!(
                store.value_bytes(i),
                i.is_multiple_of(3).then(|| value(i)).as_deref()
            );
            let found = store.candidates(kind, key_fp).any(|c| c == i);
            assert!(found, "node {i} is in the table");
            // The reverse edges hold exactly the edges, reversed.
            for dep in deps {
                assert!(store.dependents(dep).unwrap().any(|x| x == i));
            }
            let dependents: Vec<u32> = store.dependents(i).unwrap().collect();
            let expected: Vec<u32> = (i + 1..40).filter(|&d| node(d).4.contains(&i)).collect();
            assert_eq!(dependents, expected);
        }
        assert!(store.record(40).is_none());
    }

    #[test]
    fn a_damaged_record_is_detected_when_used() {
        let good = file();
        let store = open(good.clone()).unwrap();
        let bodies = store.index.bodies.off as usize;
        let records = store.index.records;
        let record_offsets = slice(&good, records).unwrap();
        let start = |i: usize| bodies + grouped_offset(record_offsets, 40, i).unwrap() as usize;
        // A flipped bit anywhere in record 5 (its value included): only it is refused.
        // (None of these flips gets past the 32-bit checksum.)
        for at in start(5)..start(6) {
            let mut b = good.clone();
            b[at] ^= 1;
            let store = open(b).unwrap();
            assert!(store.record(5).is_none(), "byte {at}");
            assert!(store.record(4).is_some() && store.record(6).is_some());
        }
        // A flipped bit in a key's entry: the records of the nodes with that key (8 and
        // 9) are refused.
        let keys = store.index.keys.off as usize;
        let offsets_len = u32_at(&good, keys + 4) as usize;
        let offsets = &good[keys + 8..keys + 8 + offsets_len];
        let entries = keys + 8 + offsets_len;
        let key4 = entries + grouped_offset(offsets, 20, 4).unwrap() as usize;
        for at in [key4, key4 + 15, key4 + 16, key4 + 17] {
            let mut b = good.clone();
            b[at] ^= 1;
            let store = open(b).unwrap();
            assert!(
                store.record(8).is_none() && store.record(9).is_none(),
                "{at}"
            );
            assert!(store.record(7).is_some() && store.record(10).is_some());
        }
        // A flipped bit in a result fingerprint (the third stored, node 2's): the records
        // of the nodes with that fingerprint (2, 7, 12, ...) are refused.
        let fp2 = store.index.fps.off as usize + 2 * 16;
        for at in [fp2, fp2 + 15] {
            let mut b = good.clone();
            b[at] ^= 1;
            let store = open(b).unwrap();
            for i in 0..40 {
                assert_eq!(store.record(i).is_none(), i % 5 == 2, "node {i}, byte {at}");
            }
        }
        // A value is refused with its record.
        let mut b = good.clone();
        b[start(7) - 1] ^= 1;
        let store = open(b).unwrap();
        assert_eq!(store.value(6), Some(Err(Damaged)));
        assert!(store.value_bytes(3).is_some());
        // A record offset pointing at another node's record.
        let mut b = good.clone();
        // (Nodes 5 and 6 are in the first block: their u16 offsets follow its 3 bases.)
        let rel = records.off as usize + 4 * 3;
        let other = u16_at(&good, rel + 2 * 6);
        b[rel + 2 * 5..rel + 2 * 6].copy_from_slice(&other.to_le_bytes());
        assert!(open(b).unwrap().record(5).is_none());
        // A flipped bit in the reverse edges: the section is refused as a whole.
        let mut b = good.clone();
        let rev_off = store_reverse_off(&good);
        b[rev_off + 2] ^= 1;
        assert!(!open(b.clone()).unwrap().reverse_intact());
        // The same, checked ahead on a thread of its own.
        let damaged = open(b).unwrap();
        damaged.check_reverse_ahead_from(0);
        assert!(damaged.reverse_ahead.borrow().is_some());
        assert!(!damaged.reverse_intact());
        let intact = open(good.clone()).unwrap();
        intact.check_reverse_ahead_from(0);
        assert!(intact.reverse_intact());
        assert!(intact.dependents(3).is_some());
    }

    fn store_reverse_off(good: &[u8]) -> usize {
        open(good.to_vec()).unwrap().index.reverse.off as usize
    }

    #[test]
    fn the_header_the_index_and_the_small_sections_are_checked_at_open_the_roots_when_read() {
        let good = file();
        assert!(open(good.clone()).is_ok());
        for at in (0..HEADER_LEN).chain(good.len() - INDEX_LEN..good.len()) {
            let mut b = good.clone();
            b[at] ^= 0x10;
            assert!(open(b).is_err(), "byte {at}");
        }
        let index = open(good.clone()).unwrap().index;
        for s in [index.kinds, index.volatile] {
            for at in s.off as usize..(s.off + s.len) as usize {
                let mut b = good.clone();
                b[at] ^= 1;
                assert_eq!(open(b).err(), Some(LoadError::Checksum), "byte {at}");
            }
        }
        assert!(open(good.clone()).unwrap().roots().is_some());
        let s = index.roots;
        for at in s.off as usize..(s.off + s.len) as usize {
            let mut b = good.clone();
            b[at] ^= 1;
            assert_eq!(open(b).unwrap().roots(), None, "byte {at}");
        }
        for len in [0, 10, HEADER_LEN, good.len() - 1] {
            assert!(open(good[..len].to_vec()).is_err(), "cut at {len}");
        }
    }

    #[test]
    fn rejects_mismatches() {
        let err = |id: &str, h: HasherKind| {
            Store::open(Bytes::Owned(file()), id, h)
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(
            err("build-2", HasherKind::Sip128).as_deref(),
            Some("written by another compiler build")
        );
        assert_eq!(
            err("build-1", HasherKind::Xxh3).as_deref(),
            Some("written with another fingerprint hasher")
        );
        let mut b = file();
        let other = FORMAT_VERSION + 1;
        b[8..12].copy_from_slice(&other.to_le_bytes());
        assert_eq!(
            open(b).err().map(|e| e.to_string()),
            Some(format!("format version {other}, expected {FORMAT_VERSION}"))
        );
    }
}
