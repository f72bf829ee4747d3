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
//! records            one 88-byte record per node, in dependency order (see [`RECORD`])
//! edges              every node's dependencies as u32 indices of earlier nodes
//! keys, values       each node's key, and each `cache_on_disk` node's value, bincode
//! table              (kind, key fingerprint) → node: open addressing, u32 node + 1 per
//!                    slot (0: empty), a power of two of at least twice the nodes
//! reverse            the reverse edges: u32 start per node and one more, then the
//!                    dependents, each list in increasing order
//! volatile, roots    u32 node indices: the inputs and `eval_always` nodes (what a new
//!                    session re-checks first), and the embedder's top-level reads
//! index (192 bytes)  offset and length (u64 each) of the nine sections above, the node
//!                    count, checksums (xxh3-64) of the kinds, reverse, volatile and roots
//!                    sections, and the magic "RILLIDX\x03"
//! ```
//!
//! All integers are little-endian. What is checked, and when (a file that fails a check
//! at open is ignored as a whole; a record or value that fails its check when used is a
//! warning and a recomputation of that node):
//! - at open: the header (magic, version, hasher, build id, the file's length), the index
//!   (its checksum is in the header), every section's bounds, and the kinds, volatile and
//!   roots sections (small: they are read whole);
//! - a record, when its node is first used: its checksum covers the record and its edges,
//!   which must point to earlier nodes (the file is a DAG by construction);
//! - a value, before it is decoded: its checksum is in its record; a key is hashed again
//!   after decoding and must equal the record's key fingerprint;
//! - the reverse edges, when a session first needs them (a session that found a change).
//!
//! Nothing in the table is trusted: a slot only proposes a node, whose checked record must
//! have the kind and key fingerprint looked for.

use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::query::Query;
use crate::NodeId;
use std::fmt;
use std::ops::Deref;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// The version of the file format; bump it when the layout or the meaning of a field
/// changes.
pub const FORMAT_VERSION: u32 = 3;
pub(crate) const MAGIC: [u8; 8] = *b"RILLQRY\x01";
const INDEX_MAGIC: [u8; 8] = *b"RILLIDX\x03";
pub(crate) const HEADER_LEN: usize = 64;
const SECTIONS: usize = 9;
const INDEX_LEN: usize = SECTIONS * 16 + 8 + 4 * 8 + 8;

/// The size of one node record:
///
/// ```text
/// 0   kind u16 · flags u8 · durability u8     40  first edge u64 (index in the edges)
/// 4   edge count u32                          48  key offset u64 · 56 key length u32
/// 8   key fingerprint (16)                    60  value length u32 · 64 value offset u64
/// 24  result fingerprint (16)                 72  value checksum u64 · 80 record checksum
/// ```
pub(crate) const RECORD: usize = 88;

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
    /// The node's value is in the values section.
    pub const HAS_VALUE: DiskFlags = DiskFlags::bit(2);
    /// The embedder read the node at the top level (see `flags::ROOT`).
    pub const ROOT: DiskFlags = DiskFlags::bit(3);
}

/// One node, as the writer gives it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DiskNode {
    pub kind: u16,
    pub flags: DiskFlags,
    pub durability: u8,
    pub key_fp: (u64, u64),
    pub fp: (u64, u64),
    pub deps_len: u32,
    pub key_len: u32,
    pub value_len: u32,
}

/// The graph the writer gives: nodes in dependency order, their edges back to back.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DiskGraph {
    pub kinds: Vec<String>,
    pub nodes: Vec<DiskNode>,
    pub edges: Vec<u32>,
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
    records: Section,
    edges: Section,
    keys: Section,
    values: Section,
    table: Section,
    reverse: Section,
    volatile: Section,
    roots: Section,
    nodes: u64,
    kinds_sum: u64,
    reverse_sum: u64,
    volatile_sum: u64,
    roots_sum: u64,
}

impl Index {
    fn sections(&self) -> [Section; SECTIONS] {
        [
            self.kinds,
            self.records,
            self.edges,
            self.keys,
            self.values,
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
            self.kinds_sum,
            self.reverse_sum,
            self.volatile_sum,
            self.roots_sum,
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
        let field = |i: usize| u64_at(f, i * 8);
        let s = |i: usize| Section {
            off: field(2 * i),
            len: field(2 * i + 1),
        };
        let n = 2 * SECTIONS;
        Ok(Index {
            kinds: s(0),
            records: s(1),
            edges: s(2),
            keys: s(3),
            values: s(4),
            table: s(5),
            reverse: s(6),
            volatile: s(7),
            roots: s(8),
            nodes: field(n),
            kinds_sum: field(n + 1),
            reverse_sum: field(n + 2),
            volatile_sum: field(n + 3),
            roots_sum: field(n + 4),
        })
    }
}

/// The table slot where the search for (disk kind, key fingerprint) starts.
fn table_start(kind: u16, key_fp: Fingerprint, mask: usize) -> usize {
    let h =
        key_fp.0 ^ key_fp.1.rotate_left(17) ^ u64::from(kind).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h as usize) & mask
}

fn u32s(xs: &[u32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// What [`encode_file`] writes besides the graph.
pub(crate) struct Extra<'a> {
    pub keys: &'a [u8],
    pub values: &'a [u8],
    /// Node indices of inputs and `eval_always` nodes.
    pub volatile: &'a [u32],
    /// Node indices of the embedder's top-level reads.
    pub roots: &'a [u32],
    pub generation: u64,
}

/// Writes a whole cache file.
pub(crate) fn encode_file(
    graph: &DiskGraph,
    extra: &Extra<'_>,
    build_id: &str,
    hasher: HasherKind,
) -> Result<Vec<u8>, String> {
    let n = graph.nodes.len();
    if n >= u32::MAX as usize / 2 {
        return Err("too many nodes for the cache format".to_string());
    }
    let mut out = vec![0u8; HEADER_LEN];
    let mut index = Index {
        nodes: n as u64,
        ..Index::default()
    };
    let section = |out: &mut Vec<u8>, bytes: &[u8]| {
        let off = out.len() as u64;
        out.extend_from_slice(bytes);
        Section {
            off,
            len: bytes.len() as u64,
        }
    };
    // Kinds.
    let mut kinds = Vec::new();
    kinds.extend_from_slice(&(graph.kinds.len() as u32).to_le_bytes());
    for k in &graph.kinds {
        kinds.extend_from_slice(&(k.len() as u32).to_le_bytes());
        kinds.extend_from_slice(k.as_bytes());
    }
    index.kinds = section(&mut out, &kinds);
    index.kinds_sum = xxh3_64(&kinds);
    // Records (their checksums cover their edges).
    let mut records = Vec::with_capacity(n * RECORD);
    let (mut edge, mut key_off, mut value_off) = (0u64, 0u64, 0u64);
    for d in &graph.nodes {
        let mut r = [0u8; RECORD];
        r[0..2].copy_from_slice(&d.kind.to_le_bytes());
        r[2] = d.flags.bits();
        r[3] = d.durability;
        r[4..8].copy_from_slice(&d.deps_len.to_le_bytes());
        r[8..16].copy_from_slice(&d.key_fp.0.to_le_bytes());
        r[16..24].copy_from_slice(&d.key_fp.1.to_le_bytes());
        r[24..32].copy_from_slice(&d.fp.0.to_le_bytes());
        r[32..40].copy_from_slice(&d.fp.1.to_le_bytes());
        r[40..48].copy_from_slice(&edge.to_le_bytes());
        r[48..56].copy_from_slice(&key_off.to_le_bytes());
        r[56..60].copy_from_slice(&d.key_len.to_le_bytes());
        let value = d.flags.contains(disk_flags::HAS_VALUE);
        let value_len = if value { d.value_len } else { 0 };
        r[60..64].copy_from_slice(&value_len.to_le_bytes());
        r[64..72].copy_from_slice(&value_off.to_le_bytes());
        let vbytes = extra
            .values
            .get(value_off as usize..(value_off + u64::from(value_len)) as usize)
            .ok_or("value lengths exceed the values")?;
        r[72..80].copy_from_slice(&xxh3_64(vbytes).to_le_bytes());
        let deps = graph
            .edges
            .get(edge as usize..edge as usize + d.deps_len as usize)
            .ok_or("edge counts exceed the edges")?;
        let sum = record_sum(&r[..80], &u32s(deps));
        r[80..88].copy_from_slice(&sum.to_le_bytes());
        records.extend_from_slice(&r);
        edge += u64::from(d.deps_len);
        key_off += u64::from(d.key_len);
        value_off += u64::from(value_len);
    }
    index.records = section(&mut out, &records);
    drop(records);
    index.edges = section(&mut out, &u32s(&graph.edges));
    index.keys = section(&mut out, extra.keys);
    index.values = section(&mut out, extra.values);
    // Table.
    let cap = (2 * n).max(2).next_power_of_two();
    let mut table = vec![0u32; cap];
    for (i, d) in graph.nodes.iter().enumerate() {
        let mut at = table_start(d.kind, Fingerprint(d.key_fp.0, d.key_fp.1), cap - 1);
        while table[at] != 0 {
            at = (at + 1) & (cap - 1);
        }
        table[at] = i as u32 + 1;
    }
    index.table = section(&mut out, &u32s(&table));
    drop(table);
    // Reverse edges (counting sort: each list in increasing order).
    let mut start = vec![0u32; n + 1];
    for &d in &graph.edges {
        if (d as usize) < n {
            start[d as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut dependents = vec![0u32; graph.edges.len()];
    let mut e = 0usize;
    for (i, d) in graph.nodes.iter().enumerate() {
        for &dep in &graph.edges[e..e + d.deps_len as usize] {
            let at = &mut fill[dep as usize];
            dependents[*at as usize] = i as u32;
            *at += 1;
        }
        e += d.deps_len as usize;
    }
    let mut reverse = u32s(&start);
    reverse.extend_from_slice(&u32s(&dependents));
    index.reverse = section(&mut out, &reverse);
    index.reverse_sum = xxh3_64(&reverse);
    let volatile = u32s(extra.volatile);
    index.volatile = section(&mut out, &volatile);
    index.volatile_sum = xxh3_64(&volatile);
    let roots = u32s(extra.roots);
    index.roots = section(&mut out, &roots);
    index.roots_sum = xxh3_64(&roots);
    let index_bytes = index.encode();
    out.extend_from_slice(&index_bytes);
    let header = Header {
        version: FORMAT_VERSION,
        hasher: hasher.tag(),
        build_id: build_id_fingerprint(build_id),
        file_len: out.len() as u64,
        index_sum: xxh3_64(&index_bytes) ^ extra.generation,
        generation: extra.generation,
    };
    out[..HEADER_LEN].copy_from_slice(&header.encode());
    Ok(out)
}

fn record_sum(record: &[u8], deps: &[u8]) -> u64 {
    xxh3_64_with_seed(deps, xxh3_64(record))
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
    /// The edges, as little-endian u32 indices (each below the node's own).
    pub deps: &'a [u8],
}

impl Record<'_> {
    pub(crate) fn deps(&self) -> impl Iterator<Item = u32> + '_ {
        self.deps.chunks_exact(4).map(|c| u32_at(c, 0))
    }
}

/// The previous session's cache file, opened: sections located, the small ones read.
pub(crate) struct Store {
    bytes: Bytes,
    index: Index,
    pub header: Header,
    /// The writer's query kind names, by disk kind.
    pub kinds: Vec<String>,
    pub volatile: Vec<u32>,
    pub roots: Vec<u32>,
    /// Whether the reverse section's checksum was found right (checked on first use).
    reverse_ok: std::cell::OnceCell<bool>,
}

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
    /// Opens a cache file: checks the header, the index and the small sections (see the
    /// module documentation); the records, keys and values are checked when used.
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
        if n >= u64::from(u32::MAX / 2)
            || index.records.len != n * RECORD as u64
            || index.edges.len % 4 != 0
            || index.table.len % 4 != 0
            || !(index.table.len / 4).is_power_of_two()
            || index.table.len / 4 < 2 * n
            || index.reverse.len < 4 * (n + 1)
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
        let volatile = checked_u32s(&bytes, index.volatile, index.volatile_sum, "volatile")?;
        let roots = checked_u32s(&bytes, index.roots, index.roots_sum, "roots")?;
        if volatile.iter().chain(&roots).any(|&i| u64::from(i) >= n) {
            return Err(LoadError::Invalid("node index out of range"));
        }
        Ok(Store {
            bytes,
            index,
            header,
            kinds,
            volatile,
            roots,
            reverse_ok: std::cell::OnceCell::new(),
        })
    }

    /// The number of nodes.
    pub(crate) fn len(&self) -> u32 {
        self.index.nodes as u32
    }

    /// The size of the file.
    pub(crate) fn file_len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Node `i`'s record, checked; `None` if it is damaged.
    pub(crate) fn record(&self, i: u32) -> Option<Record<'_>> {
        if u64::from(i) >= self.index.nodes {
            return None;
        }
        let at = self.index.records.off as usize + i as usize * RECORD;
        let r = self.bytes.get(at..at + RECORD)?;
        let deps_len = u32_at(r, 4) as usize;
        let first = usize::try_from(u64_at(r, 40)).ok()?;
        let edges = slice(&self.bytes, self.index.edges)?;
        let deps =
            edges.get(first.checked_mul(4)?..first.checked_add(deps_len)?.checked_mul(4)?)?;
        if record_sum(&r[..80], deps) != u64_at(r, 80) {
            return None;
        }
        let record = Record {
            kind: u16_at(r, 0),
            flags: DiskFlags::from_bits_retain(r[2]),
            durability: r[3],
            key_fp: fp_at(r, 8),
            fp: fp_at(r, 24),
            deps,
        };
        if usize::from(record.kind) >= self.kinds.len()
            || crate::Durability::from_u8(record.durability).is_none()
            || record.deps().any(|d| d >= i)
        {
            return None;
        }
        Some(record)
    }

    /// Node `i`'s key bytes (checked by the caller against the key fingerprint).
    pub(crate) fn key_bytes(&self, i: u32) -> Option<&[u8]> {
        let r = self.raw(i)?;
        let off = usize::try_from(u64_at(r, 48)).ok()?;
        let keys = slice(&self.bytes, self.index.keys)?;
        keys.get(off..off.checked_add(u32_at(r, 56) as usize)?)
    }

    /// Node `i`'s value bytes: `None` if it has no value, an error if they are out of
    /// bounds or do not match their checksum.
    pub(crate) fn value(&self, i: u32) -> Option<Result<&[u8], Damaged>> {
        let r = self.raw(i)?;
        if !DiskFlags::from_bits_retain(r[2]).contains(disk_flags::HAS_VALUE) {
            return None;
        }
        let v = (|| {
            let off = usize::try_from(u64_at(r, 64)).ok()?;
            let values = slice(&self.bytes, self.index.values)?;
            let v = values.get(off..off.checked_add(u32_at(r, 60) as usize)?)?;
            (xxh3_64(v) == u64_at(r, 72)).then_some(v)
        })();
        Some(v.ok_or(Damaged))
    }

    /// Node `i`'s value bytes, if it has a value and they are intact.
    #[cfg(test)]
    pub(crate) fn value_bytes(&self, i: u32) -> Option<&[u8]> {
        self.value(i)?.ok()
    }

    /// The raw record of node `i` (its checksum is checked when the node is loaded).
    fn raw(&self, i: u32) -> Option<&[u8]> {
        if u64::from(i) >= self.index.nodes {
            return None;
        }
        let at = self.index.records.off as usize + i as usize * RECORD;
        self.bytes.get(at..at + RECORD)
    }

    /// The nodes the table proposes for (disk kind, key fingerprint), in probe order.
    pub(crate) fn candidates(
        &self,
        kind: u16,
        key_fp: Fingerprint,
    ) -> impl Iterator<Item = u32> + '_ {
        let table = slice(&self.bytes, self.index.table).unwrap_or(&[]);
        let cap = table.len() / 4;
        let mut at = if cap == 0 {
            0
        } else {
            table_start(kind, key_fp, cap - 1)
        };
        let mut left = cap;
        std::iter::from_fn(move || {
            while left > 0 {
                left -= 1;
                let slot = u32_at(table, at * 4);
                at = (at + 1) & (cap - 1);
                if slot == 0 {
                    left = 0;
                    return None;
                }
                if u64::from(slot - 1) < self.index.nodes {
                    return Some(slot - 1);
                }
            }
            None
        })
    }

    /// The dependents of node `i` (in the file), if the reverse section is intact.
    pub(crate) fn dependents(&self, i: u32) -> Option<impl Iterator<Item = u32> + '_> {
        let rev = slice(&self.bytes, self.index.reverse)?;
        let ok = *self
            .reverse_ok
            .get_or_init(|| xxh3_64(rev) == self.index.reverse_sum);
        if !ok {
            return None;
        }
        let n = self.index.nodes as usize;
        let (start, list) = rev.split_at(4 * (n + 1));
        if i as usize >= n {
            return None;
        }
        let s = u32_at(start, 4 * i as usize) as usize;
        let e = u32_at(start, 4 * (i as usize + 1)) as usize;
        let deps = list.get(4 * s..4 * e)?;
        // A dependent comes after what it read, and is a node of the file.
        Some(
            deps.chunks_exact(4)
                .map(|c| u32_at(c, 0))
                .filter(move |&d| d > i && (d as usize) < n),
        )
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

/// The key of `node`, encoded for the cache (from memory).
pub(crate) fn encode_key<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Vec<u8>> {
    let rt = crate::Database::runtime(db);
    let slot = rt.graph.borrow().node(node).slot?;
    let st = Q::storage(db).inner.borrow();
    crate::query::codec_encode(&st.slot(slot).key).ok()
}

/// The value of `node`, encoded for the cache (from memory, `cache_on_disk` only).
pub(crate) fn encode_value<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Vec<u8>> {
    let codec = Q::CODEC.as_ref()?;
    let rt = crate::Database::runtime(db);
    let slot = rt.graph.borrow().node(node).slot?;
    let st = Q::storage(db).inner.borrow();
    let v = st.slot(slot).value.as_ref()?;
    (codec.encode)(v).ok()
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

    fn graph() -> DiskGraph {
        DiskGraph {
            kinds: vec!["a".into(), "é".into()],
            nodes: (0..40u32)
                .map(|i| DiskNode {
                    kind: (i % 2) as u16,
                    flags: if i % 3 == 0 {
                        disk_flags::HAS_FP | disk_flags::HAS_VALUE
                    } else {
                        disk_flags::HAS_FP
                    },
                    durability: (i % 3) as u8,
                    key_fp: (u64::from(i) << 33 | 1, u64::MAX - u64::from(i)),
                    fp: (u64::from(i) * 0x9e37_79b9, 7),
                    deps_len: i.min(3),
                    key_len: 2,
                    value_len: if i % 3 == 0 { 3 } else { 0 },
                })
                .collect(),
            edges: (0..40u32)
                .flat_map(|i| (0..i.min(3)).map(move |d| i - 1 - d))
                .collect(),
        }
    }

    fn file() -> Vec<u8> {
        let g = graph();
        let keys: Vec<u8> = (0..80u8).collect();
        let values: Vec<u8> = (0..14 * 3).map(|x| x as u8 ^ 0x5a).collect();
        let extra = Extra {
            keys: &keys,
            values: &values,
            volatile: &[0, 1],
            roots: &[39],
            generation: 9,
        };
        encode_file(&g, &extra, "build-1", HasherKind::Sip128).unwrap()
    }

    fn open(b: Vec<u8>) -> Result<Store, LoadError> {
        Store::open(Bytes::Owned(b), "build-1", HasherKind::Sip128)
    }

    #[test]
    fn records_keys_values_and_the_table_round_trip() {
        let g = graph();
        let store = open(file()).unwrap();
        assert_eq!(store.len(), 40);
        assert_eq!(store.header.generation, 9);
        assert_eq!(
            (store.volatile.as_slice(), store.roots.as_slice()),
            (&[0, 1][..], &[39][..])
        );
        let mut edge = 0;
        for (i, d) in g.nodes.iter().enumerate() {
            let r = store.record(i as u32).unwrap();
            assert_eq!(
                (r.kind, r.flags, r.durability),
                (d.kind, d.flags, d.durability)
            );
            assert_eq!(r.key_fp, Fingerprint(d.key_fp.0, d.key_fp.1));
            let deps: Vec<u32> = r.deps().collect();
            assert_eq!(deps, g.edges[edge..edge + d.deps_len as usize]);
            edge += d.deps_len as usize;
            assert_eq!(
                store.key_bytes(i as u32).unwrap(),
                &[2 * i as u8, 2 * i as u8 + 1]
            );
            assert_eq!(store.value_bytes(i as u32).is_some(), i % 3 == 0);
            let found = store
                .candidates(d.kind, Fingerprint(d.key_fp.0, d.key_fp.1))
                .any(|c| c == i as u32);
            assert!(found, "node {i} is in the table");
            // The reverse edges hold exactly the edges, reversed.
            for dep in deps {
                assert!(store.dependents(dep).unwrap().any(|x| x == i as u32));
            }
        }
        assert!(store.record(40).is_none());
    }

    #[test]
    fn a_damaged_record_or_value_is_detected_when_used() {
        let good = file();
        let store = open(good.clone()).unwrap();
        let rec_off = HEADER_LEN + store.index.kinds.len as usize;
        // A flipped bit in record 5: only that record is refused.
        let mut b = good.clone();
        b[rec_off + 5 * RECORD + 9] ^= 1;
        let store = open(b).unwrap();
        assert!(store.record(5).is_none());
        assert!(store.record(4).is_some() && store.record(6).is_some());
        // A flipped bit in a value: that value is refused.
        let mut b = good.clone();
        let values_off = open(good.clone()).unwrap().index.values.off as usize;
        b[values_off] ^= 1;
        let store = open(b).unwrap();
        assert!(store.value_bytes(0).is_none());
        assert!(store.value_bytes(3).is_some());
        // A flipped bit in the reverse edges: the section is refused as a whole.
        let mut b = good.clone();
        let rev_off = open(good.clone()).unwrap().index.reverse.off as usize;
        b[rev_off + 2] ^= 1;
        assert!(!open(b).unwrap().reverse_intact());
    }

    #[test]
    fn the_header_the_index_and_the_small_sections_are_checked_at_open() {
        let good = file();
        assert!(open(good.clone()).is_ok());
        for at in (0..HEADER_LEN).chain(good.len() - INDEX_LEN..good.len()) {
            let mut b = good.clone();
            b[at] ^= 0x10;
            assert!(open(b).is_err(), "byte {at}");
        }
        let kinds_off = HEADER_LEN;
        let mut b = good.clone();
        b[kinds_off + 5] ^= 1;
        assert_eq!(open(b).err(), Some(LoadError::Checksum));
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
        b[8] = 9;
        assert_eq!(
            open(b).err().map(|e| e.to_string()),
            Some(format!("format version 9, expected {FORMAT_VERSION}"))
        );
    }
}
