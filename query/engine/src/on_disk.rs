//! The on-disk cache format (one file, as rustc's `on_disk_cache.rs` plus its dep-graph
//! file):
//!
//! ```text
//! header (64 bytes)  magic "RILLQRY\x01" · format version u32 · hasher u8 · 3 zero bytes
//!                    · build-id fingerprint (16) · file length u64 · checksum (16)
//!                    · generation u64 (new at every save, so that files kept beside the
//!                    cache can name the cache they belong to)
//! graph              query kind names (u32 count, then each as u32 length and UTF-8);
//!                    nodes in dependency order (u32 count, then a 48-byte record each:
//!                    kind u16, flags u8, durability u8, key and result fingerprints as
//!                    two u64 each, edge count, key and value lengths as u32); all edges
//!                    as u32 indices of earlier nodes (u32 count, then the indices)
//! keys               each node's key, bincode-encoded, back to back
//! values             each `cache_on_disk` node's value, bincode-encoded, back to back
//! index (64 bytes)   offsets and lengths of the three sections, node count, magic
//! ```
//!
//! All integers are little-endian. The checksum (xxh3-128) covers everything after the
//! header, and the generation (XOR-ed in). The graph is decoded at load time, record by record with bounds checks (fixed
//! widths: no recursion, and no count is trusted before the bytes it claims are there);
//! keys and values stay as bytes and are decoded on first use (values) or when a node
//! must be re-executed by index (keys). A file that fails any check is ignored as a whole.

use crate::dep_graph::PrevIndex;
use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::query::Query;
use crate::NodeId;
use std::fmt;

/// The version of the file format; bump it when the layout or the meaning of a field
/// changes.
pub const FORMAT_VERSION: u32 = 2;
pub(crate) const MAGIC: [u8; 8] = *b"RILLQRY\x01";
const FOOTER_MAGIC: [u8; 8] = *b"RILLIDX\x01";
pub(crate) const HEADER_LEN: usize = 64;
const FOOTER_LEN: usize = 64;

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
}

/// One node on disk.
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

/// The decoded graph section.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DiskGraph {
    pub kinds: Vec<String>,
    pub nodes: Vec<DiskNode>,
    pub edges: Vec<u32>,
}

/// The previous session's cache file, kept in memory for lazy decoding.
pub(crate) struct PrevCache {
    bytes: Vec<u8>,
    keys_off: usize,
    values_off: usize,
    /// Per node: (offset in the keys section, length).
    key_ranges: Vec<(u32, u32)>,
    /// Per node: (offset in the values section, length); length `u32::MAX` for none.
    value_ranges: Vec<(u32, u32)>,
}

impl PrevCache {
    pub(crate) fn key_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        let &(off, len) = self.key_ranges.get(prev.index())?;
        let start = self.keys_off + off as usize;
        self.bytes.get(start..start + len as usize)
    }

    pub(crate) fn value_bytes(&self, prev: PrevIndex) -> Option<&[u8]> {
        let &(off, len) = self.value_ranges.get(prev.index())?;
        if len == u32::MAX {
            return None;
        }
        let start = self.values_off + off as usize;
        self.bytes.get(start..start + len as usize)
    }
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
            LoadError::Invalid(what) => write!(f, "inconsistent dependency graph: {what}"),
        }
    }
}

pub(crate) fn build_id_fingerprint(build_id: &str) -> Fingerprint {
    Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(build_id.as_bytes()))
}

/// The header's checksum: the xxh3-128 of everything after the header, XOR the
/// generation, so that a damaged generation is caught as well (and a file of generation
/// 0, written before generations existed, has the plain checksum).
fn checksum(bytes: &[u8], generation: u64) -> Fingerprint {
    Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(bytes) ^ u128::from(generation))
}

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

fn fp_at(b: &[u8], at: usize) -> Fingerprint {
    let mut x = [0u8; 16];
    x.copy_from_slice(&b[at..at + 16]);
    Fingerprint::from_le_bytes(x)
}

/// The size of one node record in the graph section: kind (2), flags (1), durability (1),
/// two fingerprints (32), edge count, key length and value length (12).
const NODE_RECORD: usize = 48;

/// Encodes the graph section (layout in the module documentation).
fn encode_graph(graph: &DiskGraph) -> Result<Vec<u8>, String> {
    let count = |n: usize, what: &str| {
        u32::try_from(n).map_err(|_| format!("too many {what} for the cache format"))
    };
    let kinds_len: usize = graph.kinds.iter().map(|k| 4 + k.len()).sum();
    let mut out = Vec::with_capacity(
        12 + kinds_len + graph.nodes.len() * NODE_RECORD + graph.edges.len() * 4,
    );
    out.extend_from_slice(&count(graph.kinds.len(), "query kinds")?.to_le_bytes());
    for k in &graph.kinds {
        out.extend_from_slice(&count(k.len(), "bytes in a kind name")?.to_le_bytes());
        out.extend_from_slice(k.as_bytes());
    }
    out.extend_from_slice(&count(graph.nodes.len(), "nodes")?.to_le_bytes());
    for n in &graph.nodes {
        out.extend_from_slice(&n.kind.to_le_bytes());
        out.push(n.flags.bits());
        out.push(n.durability);
        for x in [n.key_fp.0, n.key_fp.1, n.fp.0, n.fp.1] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for x in [n.deps_len, n.key_len, n.value_len] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.extend_from_slice(&count(graph.edges.len(), "edges")?.to_le_bytes());
    for e in &graph.edges {
        out.extend_from_slice(&e.to_le_bytes());
    }
    Ok(out)
}

/// Reads the graph section front to back; every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], LoadError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(LoadError::Invalid("the graph section is truncated"))?;
        let b = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32, LoadError> {
        Ok(u32_at(self.take(4)?, 0))
    }

    /// A count of items of `width` bytes each, checked against the bytes that are left
    /// (so that a forged count cannot make the decoder reserve memory it will not fill).
    fn count(&mut self, width: usize) -> Result<usize, LoadError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(width) > self.bytes.len() - self.pos {
            return Err(LoadError::Invalid("the graph section is truncated"));
        }
        Ok(n)
    }
}

/// Decodes the graph section written by [`encode_graph`].
fn decode_graph(bytes: &[u8]) -> Result<DiskGraph, LoadError> {
    let mut r = Reader { bytes, pos: 0 };
    let n_kinds = r.count(4)?;
    let mut kinds = Vec::with_capacity(n_kinds);
    for _ in 0..n_kinds {
        let len = r.u32()? as usize;
        let name = std::str::from_utf8(r.take(len)?)
            .map_err(|_| LoadError::Invalid("a query kind name is not UTF-8"))?;
        kinds.push(name.to_string());
    }
    let n_nodes = r.count(NODE_RECORD)?;
    let mut nodes = Vec::with_capacity(n_nodes);
    for _ in 0..n_nodes {
        let b = r.take(NODE_RECORD)?;
        nodes.push(DiskNode {
            kind: u16::from_le_bytes([b[0], b[1]]),
            flags: DiskFlags::from_bits_retain(b[2]),
            durability: b[3],
            key_fp: (u64_at(b, 4), u64_at(b, 12)),
            fp: (u64_at(b, 20), u64_at(b, 28)),
            deps_len: u32_at(b, 36),
            key_len: u32_at(b, 40),
            value_len: u32_at(b, 44),
        });
    }
    let n_edges = r.count(4)?;
    let edges = r
        .take(n_edges * 4)?
        .chunks_exact(4)
        .map(|c| u32_at(c, 0))
        .collect();
    if r.pos != bytes.len() {
        return Err(LoadError::Invalid("trailing bytes after the graph"));
    }
    Ok(DiskGraph {
        kinds,
        nodes,
        edges,
    })
}

/// The file's header: what a reader checks before reading the file whole.
///
/// ```text
/// 0   magic "RILLQRY\x01"        16  build-id fingerprint (16)   56  generation u64
/// 8   format version u32         32  file length u64
/// 12  hasher tag u8, 3 zero      40  checksum of the rest (16)
/// ```
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
    /// The checksum (xxh3-128) of everything after the header, XOR the generation.
    pub checksum: Fingerprint,
    /// Identifies this save of the cache (see [`crate::DatabaseExt::loaded_generation`]).
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
        h[40..56].copy_from_slice(&self.checksum.to_le_bytes());
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
        if h[13..16] != [0; 3] {
            return Err(LoadError::Checksum);
        }
        Ok(Header {
            version,
            hasher: h[12],
            build_id: fp_at(h, 16),
            file_len: u64_at(h, 32),
            checksum: fp_at(h, 40),
            generation: u64_at(h, 56),
        })
    }
}

/// The file's index (its last 64 bytes): where the sections are.
///
/// ```text
/// 0  graph offset u64   16  keys offset u64    32  values offset u64   48  node count u64
/// 8  graph length u64   24  keys length u64    40  values length u64   56  magic "RILLIDX\x01"
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Index {
    graph: (u64, u64),
    keys: (u64, u64),
    values: (u64, u64),
    nodes: u64,
}

impl Index {
    fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut f = [0u8; FOOTER_LEN];
        let fields = [
            self.graph.0,
            self.graph.1,
            self.keys.0,
            self.keys.1,
            self.values.0,
            self.values.1,
            self.nodes,
        ];
        for (i, x) in fields.into_iter().enumerate() {
            f[i * 8..i * 8 + 8].copy_from_slice(&x.to_le_bytes());
        }
        f[56..64].copy_from_slice(&FOOTER_MAGIC);
        f
    }

    fn decode(f: &[u8; FOOTER_LEN]) -> Result<Index, LoadError> {
        if f[56..64] != FOOTER_MAGIC {
            return Err(LoadError::Invalid("index magic"));
        }
        let field = |i: usize| u64_at(f, i * 8);
        Ok(Index {
            graph: (field(0), field(1)),
            keys: (field(2), field(3)),
            values: (field(4), field(5)),
            nodes: field(6),
        })
    }
}

/// Writes a whole cache file.
pub(crate) fn encode_file(
    graph: &DiskGraph,
    keys: &[u8],
    values: &[u8],
    build_id: &str,
    hasher: HasherKind,
    generation: u64,
) -> Result<Vec<u8>, String> {
    let graph_bytes = encode_graph(graph)?;
    let mut out =
        Vec::with_capacity(HEADER_LEN + graph_bytes.len() + keys.len() + values.len() + FOOTER_LEN);
    out.resize(HEADER_LEN, 0);
    let section = |out: &mut Vec<u8>, bytes: &[u8]| {
        let off = out.len() as u64;
        out.extend_from_slice(bytes);
        (off, bytes.len() as u64)
    };
    let index = Index {
        graph: section(&mut out, &graph_bytes),
        keys: section(&mut out, keys),
        values: section(&mut out, values),
        nodes: graph.nodes.len() as u64,
    };
    out.extend_from_slice(&index.encode());
    let header = Header {
        version: FORMAT_VERSION,
        hasher: hasher.tag(),
        build_id: build_id_fingerprint(build_id),
        file_len: out.len() as u64,
        checksum: checksum(&out[HEADER_LEN..], generation),
        generation,
    };
    out[..HEADER_LEN].copy_from_slice(&header.encode());
    Ok(out)
}

/// Checks the header of a cache file of `file_len` bytes (everything but the checksum),
/// so that a file that cannot be used is rejected before it is read whole.
pub(crate) fn check_header(
    h: &[u8],
    file_len: u64,
    build_id: &str,
    hasher: HasherKind,
) -> Result<Header, LoadError> {
    let Some(h) = h
        .first_chunk::<HEADER_LEN>()
        .filter(|_| file_len >= (HEADER_LEN + FOOTER_LEN) as u64)
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

/// The generation in the header of a cache file (0 for a file too short to have one).
pub(crate) fn generation_of(bytes: &[u8]) -> u64 {
    bytes
        .first_chunk::<HEADER_LEN>()
        .map_or(0, |h| u64_at(h, 56))
}

/// Checks and decodes a cache file; the keys and values stay undecoded in the result.
pub(crate) fn decode_file(
    bytes: Vec<u8>,
    build_id: &str,
    hasher: HasherKind,
) -> Result<(DiskGraph, PrevCache), LoadError> {
    let header = check_header(&bytes, bytes.len() as u64, build_id, hasher)?;
    if header.checksum != checksum(&bytes[HEADER_LEN..], header.generation) {
        return Err(LoadError::Checksum);
    }
    let body_end = bytes.len() - FOOTER_LEN;
    let footer = bytes[body_end..]
        .first_chunk::<FOOTER_LEN>()
        .ok_or(LoadError::TooShort)?;
    let index = Index::decode(footer)?;
    let section = |(off, len): (u64, u64)| {
        let (off, len) = (usize::try_from(off).ok()?, usize::try_from(len).ok()?);
        (off >= HEADER_LEN && off.checked_add(len).is_some_and(|e| e <= body_end))
            .then_some((off, len))
    };
    let (Some((graph_off, graph_len)), Some((keys_off, keys_len)), Some((values_off, values_len))) = (
        section(index.graph),
        section(index.keys),
        section(index.values),
    ) else {
        return Err(LoadError::Invalid("section offsets"));
    };
    let count = index.nodes as usize;
    let graph = decode_graph(&bytes[graph_off..graph_off + graph_len])?;
    if graph.nodes.len() != count || graph.nodes.len() >= u32::MAX as usize {
        return Err(LoadError::Invalid("node count"));
    }
    // Edges point to earlier nodes (the file is in dependency order: a DAG by construction).
    let mut edge = 0usize;
    let mut key_off = 0u64;
    let mut value_off = 0u64;
    let mut key_ranges = Vec::with_capacity(count);
    let mut value_ranges = Vec::with_capacity(count);
    for (i, n) in graph.nodes.iter().enumerate() {
        if n.kind as usize >= graph.kinds.len() {
            return Err(LoadError::Invalid("kind index"));
        }
        if crate::Durability::from_u8(n.durability).is_none() {
            return Err(LoadError::Invalid("durability"));
        }
        let end = edge + n.deps_len as usize;
        let Some(deps) = graph.edges.get(edge..end) else {
            return Err(LoadError::Invalid("edge count"));
        };
        if deps.iter().any(|&d| d as usize >= i) {
            return Err(LoadError::Invalid("edge order"));
        }
        edge = end;
        key_ranges.push((key_off as u32, n.key_len));
        key_off += u64::from(n.key_len);
        if n.flags.contains(disk_flags::HAS_VALUE) {
            value_ranges.push((value_off as u32, n.value_len));
            value_off += u64::from(n.value_len);
        } else {
            value_ranges.push((0, u32::MAX));
        }
    }
    if edge != graph.edges.len()
        || key_off != keys_len as u64
        || value_off != values_len as u64
        || values_len > u32::MAX as usize
        || keys_len > u32::MAX as usize
    {
        return Err(LoadError::Invalid("section lengths"));
    }
    let prev = PrevCache {
        bytes,
        keys_off,
        values_off,
        key_ranges,
        value_ranges,
    };
    Ok((graph, prev))
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

    fn sample() -> Vec<u8> {
        let graph = DiskGraph {
            kinds: vec!["a".into(), "b".into()],
            nodes: vec![
                DiskNode {
                    kind: 0,
                    flags: disk_flags::HAS_FP,
                    durability: 0,
                    key_fp: (1, 2),
                    fp: (3, 4),
                    deps_len: 0,
                    key_len: 2,
                    value_len: 0,
                },
                DiskNode {
                    kind: 1,
                    flags: disk_flags::HAS_FP | disk_flags::HAS_VALUE,
                    durability: 2,
                    key_fp: (5, 6),
                    fp: (7, 8),
                    deps_len: 1,
                    key_len: 1,
                    value_len: 3,
                },
            ],
            edges: vec![0],
        };
        encode_file(
            &graph,
            b"kkK",
            b"vvv",
            "build-1",
            HasherKind::Sip128,
            0x1234_5678_9abc,
        )
        .unwrap()
    }

    fn graph() -> DiskGraph {
        DiskGraph {
            kinds: vec!["file_text".into(), "".into(), "é".into()],
            nodes: (0..40u32)
                .map(|i| DiskNode {
                    kind: (i % 3) as u16,
                    flags: DiskFlags::from_bits_retain((i % 8) as u8),
                    durability: (i % 3) as u8,
                    key_fp: (u64::from(i) << 33 | 1, u64::MAX - u64::from(i)),
                    fp: (u64::from(i) * 0x9e37_79b9, 7),
                    deps_len: i % 4,
                    key_len: i * 3,
                    value_len: u32::MAX - i,
                })
                .collect(),
            edges: (0..60u32).map(|i| i * 0x0101_0101).collect(),
        }
    }

    #[test]
    fn the_graph_section_round_trips() {
        let g = graph();
        let bytes = encode_graph(&g).unwrap();
        assert_eq!(
            bytes.len(),
            4 + (4 + 9) + 4 + (4 + 2) + 4 + 40 * NODE_RECORD + 4 + 60 * 4
        );
        assert_eq!(decode_graph(&bytes), Ok(g));
    }

    #[test]
    fn a_cut_or_extended_graph_section_is_an_error() {
        let bytes = encode_graph(&graph()).unwrap();
        for len in 0..bytes.len() {
            assert!(decode_graph(&bytes[..len]).is_err(), "cut at {len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_graph(&longer).is_err());
        // A node count far beyond the bytes that follow is rejected before anything is
        // reserved for it.
        let mut forged = encode_graph(&DiskGraph::default()).unwrap();
        forged[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_graph(&forged).is_err());
    }

    #[test]
    fn the_header_and_the_index_round_trip() {
        let header = Header {
            version: FORMAT_VERSION,
            hasher: HasherKind::Xxh3.tag(),
            build_id: build_id_fingerprint("build-1"),
            file_len: 0x0102_0304_0506,
            checksum: Fingerprint(7, 8),
            generation: 0x0a0b_0c0d_0e0f_1011,
        };
        let bytes = header.encode();
        assert_eq!(bytes[..8], MAGIC);
        assert_eq!(Header::decode(&bytes), Ok(header));
        let mut other = bytes;
        other[14] = 1;
        assert_eq!(Header::decode(&other), Err(LoadError::Checksum));
        let index = Index {
            graph: (64, 1),
            keys: (65, 2),
            values: (67, 3),
            nodes: 4,
        };
        assert_eq!(Index::decode(&index.encode()), Ok(index));
        // The header of a written file is the one its fields describe.
        let file = sample();
        let h = check_header(&file, file.len() as u64, "build-1", HasherKind::Sip128).unwrap();
        assert_eq!(h.file_len, file.len() as u64);
        assert_eq!(h.generation, 0x1234_5678_9abc);
        assert_eq!(file[..HEADER_LEN], h.encode());
    }

    #[test]
    fn round_trip() {
        let (g, prev) = decode_file(sample(), "build-1", HasherKind::Sip128).unwrap();
        assert_eq!(g.nodes.len(), 2);
        let at = PrevIndex::from_index;
        assert_eq!(prev.key_bytes(at(0)), Some(&b"kk"[..]));
        assert_eq!(prev.key_bytes(at(1)), Some(&b"K"[..]));
        assert_eq!(prev.value_bytes(at(0)), None);
        assert_eq!(prev.value_bytes(at(1)), Some(&b"vvv"[..]));
    }

    #[test]
    fn rejects_mismatches() {
        let err = |b: Vec<u8>, id: &str, h: HasherKind| {
            decode_file(b, id, h).err().map(|e| e.to_string())
        };
        assert_eq!(
            err(sample(), "build-2", HasherKind::Sip128).as_deref(),
            Some("written by another compiler build")
        );
        assert_eq!(
            err(sample(), "build-1", HasherKind::Xxh3).as_deref(),
            Some("written with another fingerprint hasher")
        );
        let mut b = sample();
        b[8] = 9;
        assert_eq!(
            err(b, "build-1", HasherKind::Sip128).as_deref(),
            Some(format!("format version 9, expected {FORMAT_VERSION}").as_str())
        );
        let mut b = sample();
        let last = b.len() - 70;
        b[last] ^= 1;
        assert_eq!(
            err(b, "build-1", HasherKind::Sip128).as_deref(),
            Some("checksum mismatch (the file is corrupted)")
        );
    }
}
