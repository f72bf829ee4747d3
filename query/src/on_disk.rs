//! The on-disk cache format (one file, as rustc's `on_disk_cache.rs` plus its dep-graph
//! file):
//!
//! ```text
//! header (64 bytes)  magic "RILLQRY\x01" · format version u32 · hasher u8 · 3 zero bytes
//!                    · build-id fingerprint (16) · file length u64 · checksum (16) · 8 zero
//! graph              bincode 2 (serde): query kind names, nodes in dependency order
//!                    (kind, flags, durability, key and result fingerprints, edge count,
//!                    key and value lengths), all edges as indices of earlier nodes
//! keys               each node's key, bincode-encoded, back to back
//! values             each `cache_on_disk` node's value, bincode-encoded, back to back
//! index (64 bytes)   offsets and lengths of the three sections, node count, magic
//! ```
//!
//! All integers are little-endian. The checksum (xxh3-128) covers everything after the
//! header. The graph is decoded at load time; keys and values stay as bytes and are
//! decoded on first use (values) or when a node must be re-executed by index (keys).
//! A file that fails any check is ignored as a whole.

use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::query::{bincode_config, decode_bounded, Query};
use crate::NodeId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The version of the file format; bump it when the layout or the meaning of a field
/// changes.
pub const FORMAT_VERSION: u32 = 1;
pub(crate) const MAGIC: [u8; 8] = *b"RILLQRY\x01";
const FOOTER_MAGIC: [u8; 8] = *b"RILLIDX\x01";
pub(crate) const HEADER_LEN: usize = 64;
const FOOTER_LEN: usize = 64;

/// Node flags on disk.
pub(crate) mod disk_flags {
    pub const HAS_FP: u8 = 1 << 0;
    pub const CYCLIC: u8 = 1 << 1;
    pub const HAS_VALUE: u8 = 1 << 2;
}

/// One node on disk.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct DiskNode {
    pub kind: u16,
    pub flags: u8,
    pub durability: u8,
    pub key_fp: (u64, u64),
    pub fp: (u64, u64),
    pub deps_len: u32,
    pub key_len: u32,
    pub value_len: u32,
}

/// The decoded graph section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
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
    pub(crate) fn key_bytes(&self, prev: u32) -> Option<&[u8]> {
        let &(off, len) = self.key_ranges.get(prev as usize)?;
        let start = self.keys_off + off as usize;
        self.bytes.get(start..start + len as usize)
    }

    pub(crate) fn value_bytes(&self, prev: u32) -> Option<&[u8]> {
        let &(off, len) = self.value_ranges.get(prev as usize)?;
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
    Decode(String),
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
            LoadError::Decode(e) => write!(f, "cannot decode the dependency graph: {e}"),
            LoadError::Invalid(what) => write!(f, "inconsistent dependency graph: {what}"),
        }
    }
}

pub(crate) fn build_id_fingerprint(build_id: &str) -> Fingerprint {
    Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(build_id.as_bytes()))
}

fn checksum(bytes: &[u8]) -> Fingerprint {
    Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(bytes))
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

/// Writes a whole cache file.
pub(crate) fn encode_file(
    graph: &DiskGraph,
    keys: &[u8],
    values: &[u8],
    build_id: &str,
    hasher: HasherKind,
) -> Result<Vec<u8>, String> {
    let graph_bytes =
        bincode::serde::encode_to_vec(graph, bincode_config()).map_err(|e| e.to_string())?;
    let mut out =
        Vec::with_capacity(HEADER_LEN + graph_bytes.len() + keys.len() + values.len() + FOOTER_LEN);
    out.resize(HEADER_LEN, 0);
    let graph_off = out.len() as u64;
    out.extend_from_slice(&graph_bytes);
    let keys_off = out.len() as u64;
    out.extend_from_slice(keys);
    let values_off = out.len() as u64;
    out.extend_from_slice(values);
    for x in [
        graph_off,
        graph_bytes.len() as u64,
        keys_off,
        keys.len() as u64,
        values_off,
        values.len() as u64,
        graph.nodes.len() as u64,
    ] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.extend_from_slice(&FOOTER_MAGIC);
    let total = out.len() as u64;
    let sum = checksum(&out[HEADER_LEN..]);
    let h = &mut out[..HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12] = hasher.tag();
    h[16..32].copy_from_slice(&build_id_fingerprint(build_id).to_le_bytes());
    h[32..40].copy_from_slice(&total.to_le_bytes());
    h[40..56].copy_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Checks the header of a cache file of `file_len` bytes (everything but the checksum),
/// so that a file that cannot be used is rejected before it is read whole.
pub(crate) fn check_header(
    h: &[u8],
    file_len: u64,
    build_id: &str,
    hasher: HasherKind,
) -> Result<(), LoadError> {
    if h.len() < HEADER_LEN || file_len < (HEADER_LEN + FOOTER_LEN) as u64 {
        return Err(if h.len() >= 8 && h[..8] != MAGIC {
            LoadError::BadMagic
        } else {
            LoadError::TooShort
        });
    }
    let h = &h[..HEADER_LEN];
    if h[0..8] != MAGIC {
        return Err(LoadError::BadMagic);
    }
    let version = u32_at(h, 8);
    if version != FORMAT_VERSION {
        return Err(LoadError::Version(version));
    }
    if h[12] != hasher.tag() {
        return Err(LoadError::Hasher);
    }
    if h[13..16] != [0, 0, 0] || h[56..64] != [0; 8] {
        return Err(LoadError::Checksum);
    }
    if fp_at(h, 16) != build_id_fingerprint(build_id) {
        return Err(LoadError::BuildId);
    }
    let total = u64_at(h, 32);
    if total != file_len {
        return Err(LoadError::Length {
            header: total,
            actual: file_len,
        });
    }
    Ok(())
}

/// Checks and decodes a cache file; the keys and values stay undecoded in the result.
pub(crate) fn decode_file(
    bytes: Vec<u8>,
    build_id: &str,
    hasher: HasherKind,
) -> Result<(DiskGraph, PrevCache), LoadError> {
    check_header(&bytes, bytes.len() as u64, build_id, hasher)?;
    let h = &bytes[..HEADER_LEN];
    if fp_at(h, 40) != checksum(&bytes[HEADER_LEN..]) {
        return Err(LoadError::Checksum);
    }
    let f = &bytes[bytes.len() - FOOTER_LEN..];
    if f[56..64] != FOOTER_MAGIC {
        return Err(LoadError::Invalid("index magic"));
    }
    let field = |i: usize| u64_at(f, i * 8) as usize;
    let (graph_off, graph_len, keys_off, keys_len, values_off, values_len, count) = (
        field(0),
        field(1),
        field(2),
        field(3),
        field(4),
        field(5),
        field(6),
    );
    let body_end = bytes.len() - FOOTER_LEN;
    let in_body = |off: usize, len: usize| {
        off >= HEADER_LEN && off.checked_add(len).is_some_and(|e| e <= body_end)
    };
    if !in_body(graph_off, graph_len)
        || !in_body(keys_off, keys_len)
        || !in_body(values_off, values_len)
    {
        return Err(LoadError::Invalid("section offsets"));
    }
    let graph: DiskGraph = match decode_bounded(&bytes[graph_off..graph_off + graph_len]) {
        Ok((g, n)) if n == graph_len => g,
        Ok(_) => return Err(LoadError::Invalid("trailing bytes after the graph")),
        Err(e) => return Err(LoadError::Decode(e.to_string())),
    };
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
        if n.flags & disk_flags::HAS_VALUE != 0 {
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
    let slot = rt.graph.borrow().node(node).slot;
    if slot == crate::dep_graph::NO_SLOT {
        return None;
    }
    let st = Q::storage(db).inner.borrow();
    crate::query::codec_encode(&st.slots[slot as usize].key).ok()
}

/// The value of `node`, encoded for the cache (from memory, `cache_on_disk` only).
pub(crate) fn encode_value<Q: Query>(db: &Q::Db, node: NodeId) -> Option<Vec<u8>> {
    let codec = Q::CODEC.as_ref()?;
    let rt = crate::Database::runtime(db);
    let slot = rt.graph.borrow().node(node).slot;
    if slot == crate::dep_graph::NO_SLOT {
        return None;
    }
    let st = Q::storage(db).inner.borrow();
    let v = st.slots[slot as usize].value.as_ref()?;
    (codec.encode)(v).ok()
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
                    flags: 1,
                    durability: 0,
                    key_fp: (1, 2),
                    fp: (3, 4),
                    deps_len: 0,
                    key_len: 2,
                    value_len: 0,
                },
                DiskNode {
                    kind: 1,
                    flags: 1 | disk_flags::HAS_VALUE,
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
        encode_file(&graph, b"kkK", b"vvv", "build-1", HasherKind::Sip128).unwrap()
    }

    #[test]
    fn round_trip() {
        let (g, prev) = decode_file(sample(), "build-1", HasherKind::Sip128).unwrap();
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(prev.key_bytes(0), Some(&b"kk"[..]));
        assert_eq!(prev.key_bytes(1), Some(&b"K"[..]));
        assert_eq!(prev.value_bytes(0), None);
        assert_eq!(prev.value_bytes(1), Some(&b"vvv"[..]));
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
            Some("format version 9, expected 1")
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
