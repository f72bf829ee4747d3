//! The cache's journal: what a session changed, appended beside the cache file instead of
//! rewriting it, so that saving costs what the session changed.
//!
//! ```text
//! query-cache.delta
//! header (48 bytes)  magic "RILLDLT\x01" · format version u32 · hasher u8 · 3 zero bytes
//!                    · the cache file's generation u64 · build-id fingerprint (16)
//!                    · 8 zero bytes
//! segments           one per save, back to back:
//!                    body length u64 · body · generation u64 · checksum u64 (xxh3-64 of
//!                    the length, the body and the generation) · magic "RILLSEG\x01"
//! body               record count u32, then records:
//!                    node u32 · order u32 · kind u16 (the cache file's kind index) · flags
//!                    u8 · durability u8 · tombstone u8 · 3 zero bytes · key and result
//!                    fingerprints (16 each) · edge count u32 · key length u32 · value
//!                    length u32 · the edges (u32 each) · the key · the value
//! ```
//!
//! A record replaces the node of the same index (a node the session re-executed, or whose
//! flags changed), or adds the next node (one the session created); a tombstone leaves the
//! node without a memo. Edges go to nodes of lower order (a record's `order` may be above
//! its index: a node that now reads a node added after it moves to the end of the order,
//! which the writer allows only when everything that reads it moves too).
//!
//! A journal belongs to one cache file (its generation): another file's journal is
//! ignored. Segments are read in order up to the first one that is incomplete or fails its
//! checks — a save killed while appending leaves such a tail, which the next save cuts
//! off — so every state a reader can see is one a save completed: the cache file, then
//! each whole segment. The generation of the cache so loaded is the last segment's.

use crate::fingerprint::Fingerprint;
use crate::hasher::HasherKind;
use crate::on_disk::{fp_at, u16_at, u32_at, u64_at};
use rustc_hash::FxHashMap;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

pub(crate) const DELTA_FILE: &str = "query-cache.delta";
const MAGIC: [u8; 8] = *b"RILLDLT\x01";
const SEGMENT_MAGIC: [u8; 8] = *b"RILLSEG\x01";
pub(crate) const HEADER_LEN: usize = 48;
/// The fixed part of a record.
const RECORD_HEAD: usize = 60;

/// A node as a segment holds it.
#[derive(Clone, Debug)]
pub(crate) struct DeltaNode {
    pub order: u32,
    /// The cache file's kind index.
    pub kind: u16,
    pub flags: crate::on_disk::DiskFlags,
    pub durability: u8,
    pub tombstone: bool,
    pub key_fp: Fingerprint,
    pub fp: Fingerprint,
    pub deps: Vec<u32>,
    /// Where the key and the value are in the journal's bytes.
    pub key: Range<usize>,
    pub value: Range<usize>,
}

/// The journal, read: the latest record of each node it holds.
#[derive(Default)]
pub(crate) struct Delta {
    pub bytes: Vec<u8>,
    pub nodes: FxHashMap<u32, DeltaNode>,
    /// Nodes added by the journal: the cache file's node count up to this.
    pub count: u32,
    /// The dependents each node gained through the journal's records.
    pub dependents: FxHashMap<u32, Vec<u32>>,
    /// (kind, key fingerprint) → node, for the nodes the journal added.
    pub keys: FxHashMap<(u16, Fingerprint), u32>,
    /// The order after every order in use.
    pub next_order: u32,
    /// The length of the complete segments (what a writer appends after).
    pub valid_len: u64,
    pub segments: u32,
    /// The generation of the last complete segment.
    pub generation: Option<u64>,
}

impl Delta {
    /// The order of node `i`: its record's, else its index in the cache file.
    fn order_of(&self, i: u32) -> u32 {
        self.nodes.get(&i).map_or(i, |n| n.order)
    }
}

/// The header of a journal for the cache file of `generation`.
pub(crate) fn header(generation: u64, build_id: &str, hasher: HasherKind) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&crate::on_disk::FORMAT_VERSION.to_le_bytes());
    h[12] = hasher.tag();
    h[16..24].copy_from_slice(&generation.to_le_bytes());
    h[24..40].copy_from_slice(&crate::on_disk::build_id_fingerprint(build_id).to_le_bytes());
    h
}

/// A segment being written.
pub(crate) struct SegmentWriter {
    body: Vec<u8>,
    count: u32,
}

/// What a record says (the writer's side).
pub(crate) struct RecordOut<'a> {
    pub node: u32,
    pub order: u32,
    pub kind: u16,
    pub flags: crate::on_disk::DiskFlags,
    pub durability: u8,
    pub tombstone: bool,
    pub key_fp: Fingerprint,
    pub fp: Fingerprint,
    pub deps: &'a [u32],
    pub key: &'a [u8],
    pub value: &'a [u8],
}

impl SegmentWriter {
    pub(crate) fn new() -> SegmentWriter {
        SegmentWriter {
            body: vec![0; 4],
            count: 0,
        }
    }

    pub(crate) fn push(&mut self, r: &RecordOut<'_>) {
        let b = &mut self.body;
        b.extend_from_slice(&r.node.to_le_bytes());
        b.extend_from_slice(&r.order.to_le_bytes());
        b.extend_from_slice(&r.kind.to_le_bytes());
        b.push(r.flags.bits());
        b.push(r.durability);
        b.push(u8::from(r.tombstone));
        b.extend_from_slice(&[0; 3]);
        b.extend_from_slice(&r.key_fp.to_le_bytes());
        b.extend_from_slice(&r.fp.to_le_bytes());
        for x in [r.deps.len(), r.key.len(), r.value.len()] {
            b.extend_from_slice(&(x as u32).to_le_bytes());
        }
        for d in r.deps {
            b.extend_from_slice(&d.to_le_bytes());
        }
        b.extend_from_slice(r.key);
        b.extend_from_slice(r.value);
        self.count += 1;
    }

    /// The segment's bytes, sealed with `generation`.
    pub(crate) fn finish(mut self, generation: u64) -> Vec<u8> {
        self.body[0..4].copy_from_slice(&self.count.to_le_bytes());
        let mut out = Vec::with_capacity(self.body.len() + 32);
        out.extend_from_slice(&(self.body.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.body);
        out.extend_from_slice(&generation.to_le_bytes());
        let sum = xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out.extend_from_slice(&SEGMENT_MAGIC);
        out
    }
}

/// Why a journal was not used (then the cache file alone is).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DeltaError {
    /// Not a journal of this cache file (another generation, build or version): stale.
    Stale,
    /// The header is damaged.
    Damaged,
}

/// Reads a journal of the cache file `store` (`base` nodes, kinds `kinds`). Incomplete
/// or damaged segments at the end are left out (`valid_len` says where they start).
pub(crate) fn read(
    bytes: Vec<u8>,
    store: &crate::on_disk::Store,
    build_id: &str,
    hasher: HasherKind,
) -> Result<Delta, DeltaError> {
    let h = bytes.get(..HEADER_LEN).ok_or(DeltaError::Damaged)?;
    if h[0..8] != MAGIC || h[13..16] != [0; 3] || h[40..48] != [0; 8] {
        return Err(DeltaError::Damaged);
    }
    if u32_at(h, 8) != crate::on_disk::FORMAT_VERSION
        || h[12] != hasher.tag()
        || u64_at(h, 16) != store.header.generation
        || fp_at(h, 24) != crate::on_disk::build_id_fingerprint(build_id)
    {
        return Err(DeltaError::Stale);
    }
    let base = store.len();
    let kinds = store.kinds.len();
    let mut d = Delta {
        count: base,
        next_order: base,
        valid_len: HEADER_LEN as u64,
        ..Delta::default()
    };
    let mut at = HEADER_LEN;
    while let Some(end) = segment_end(&bytes, at) {
        let body = at + 8..at + 8 + u64_at(&bytes, at) as usize;
        // A segment that fails a check is not applied at all (nor anything after it).
        let Some(records) = parse(&d, &bytes, body.clone(), kinds) else {
            break;
        };
        for (node, n) in records {
            if node == d.count {
                d.count += 1;
                d.keys.insert((n.kind, n.key_fp), node);
            }
            for &x in &n.deps {
                d.dependents.entry(x).or_default().push(node);
            }
            d.next_order = d.next_order.max(n.order.saturating_add(1));
            d.nodes.insert(node, n);
        }
        d.generation = Some(u64_at(&bytes, body.end));
        d.segments += 1;
        d.valid_len = end as u64;
        at = end;
    }
    d.bytes = bytes;
    Ok(d)
}

/// The end of the segment at `at`, if it is complete and its checksum is right.
fn segment_end(b: &[u8], at: usize) -> Option<usize> {
    let len = usize::try_from(u64_at(b.get(at..at + 8)?, 0)).ok()?;
    let body_end = at.checked_add(8)?.checked_add(len)?;
    let end = body_end.checked_add(24)?;
    let seg = b.get(at..end)?;
    let sum_at = body_end + 8 - at;
    if seg[end - at - 8..] != SEGMENT_MAGIC || xxh3_64(&seg[..sum_at]) != u64_at(seg, sum_at) {
        return None;
    }
    Some(end)
}

/// The records of one segment, checked against the journal so far; `None` if one is
/// inconsistent.
fn parse(d: &Delta, b: &[u8], body: Range<usize>, kinds: usize) -> Option<Vec<(u32, DeltaNode)>> {
    let count = u32_at(b.get(body.start..body.start + 4)?, 0);
    let mut at = body.start + 4;
    let mut out: Vec<(u32, DeltaNode)> = Vec::new();
    // The orders and the node count as the records so far leave them.
    let mut orders: FxHashMap<u32, u32> = FxHashMap::default();
    let mut total = d.count;
    for _ in 0..count.min(u32::try_from(body.len() / RECORD_HEAD).ok()?) {
        if at + RECORD_HEAD > body.end {
            return None;
        }
        let r = &b[at..at + RECORD_HEAD];
        let node = u32_at(r, 0);
        let order = u32_at(r, 4);
        let kind = u16_at(r, 8);
        let deps_len = u32_at(r, 48) as usize;
        let key_len = u32_at(r, 52) as usize;
        let value_len = u32_at(r, 56) as usize;
        let deps_at = at + RECORD_HEAD;
        let key_at = deps_at.checked_add(deps_len.checked_mul(4)?)?;
        let value_at = key_at.checked_add(key_len)?;
        let end = value_at.checked_add(value_len)?;
        if end > body.end || usize::from(kind) >= kinds || r[12] > 1 || r[13..16] != [0; 3] {
            return None;
        }
        crate::Durability::from_u8(r[11])?;
        if node > total || order == u32::MAX {
            return None;
        }
        let deps: Vec<u32> = b[deps_at..key_at]
            .chunks_exact(4)
            .map(|c| u32_at(c, 0))
            .collect();
        // Edges go to existing nodes of lower order.
        let order_of = |x: u32| orders.get(&x).copied().unwrap_or_else(|| d.order_of(x));
        if deps.iter().any(|&x| x >= total || order_of(x) >= order) {
            return None;
        }
        if node == total {
            total += 1;
        }
        orders.insert(node, order);
        out.push((
            node,
            DeltaNode {
                order,
                kind,
                flags: crate::on_disk::DiskFlags::from_bits_retain(r[10]),
                durability: r[11],
                tombstone: r[12] == 1,
                key_fp: fp_at(r, 16),
                fp: fp_at(r, 32),
                deps,
                key: key_at..value_at,
                value: value_at..end,
            },
        ));
        at = end;
    }
    (out.len() == count as usize && at == body.end).then_some(out)
}

/// The dependents of node `i` that the journal added.
pub(crate) fn dependents(d: &Delta, i: u32) -> &[u32] {
    d.dependents.get(&i).map_or(&[], Vec::as_slice)
}
