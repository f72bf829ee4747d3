//! The dependency graph in memory: one node per (query kind, key) with its memo's
//! metadata, and the edges to what it read, in the order it read them.
//!
//! Nodes are dense `u32` indices. The previous session's nodes are loaded first (their
//! indices are their positions in the cache file); nodes created in this session follow.
//! The edge lists of all nodes live in one arena: recording a node's edges is one
//! `extend_from_slice`, with no allocation per node.

use crate::durability::Durability;
use crate::fingerprint::Fingerprint;
use crate::revision::Revision;
use rustc_hash::FxHashMap;

/// The index of a node in the dependency graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// The kind of a node loaded from disk whose query no longer exists in the table.
pub(crate) const UNKNOWN_KIND: u16 = u16::MAX;
/// `Node::slot` of a node whose key is not in its query's storage yet.
pub(crate) const NO_SLOT: u32 = u32::MAX;
/// `Node::prev` of a node that was not in the previous session's cache.
pub(crate) const NO_PREV: u32 = u32::MAX;

/// Node flags.
pub(crate) mod flags {
    /// The node has a memo: a result fingerprint (unless `no_hash`) and dependency edges,
    /// valid as of `verified_at`. Without it, the query must execute.
    pub const MEMO: u8 = 1 << 0;
    /// The query is executing (on the active stack): reading it now is a cycle.
    pub const IN_PROGRESS: u8 = 1 << 1;
    /// The last execution was part of a cycle: never green by walking edges, always
    /// re-executed when validated (the cycle may be gone).
    pub const CYCLIC: u8 = 1 << 2;
    /// `fingerprint` holds the result's fingerprint.
    pub const HAS_FP: u8 = 1 << 3;
    /// An input node whose value was set in this session.
    pub const INPUT_SET: u8 = 1 << 4;
}

/// One node: the metadata of one memo.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub kind: u16,
    pub flags: u8,
    pub durability: Durability,
    pub verified_at: Revision,
    pub changed_at: Revision,
    /// The stable hash of the result (valid when `HAS_FP`).
    pub fingerprint: Fingerprint,
    /// The stable hash of the key: with the kind, the node's identity across sessions.
    pub key_fp: Fingerprint,
    pub deps_start: u32,
    pub deps_len: u32,
    /// Where the key and value live in the query's storage (`NO_SLOT` if not yet there).
    pub slot: u32,
    /// The node's record in the previous session's cache (`NO_PREV` if none).
    pub prev: u32,
}

impl Node {
    pub(crate) fn new(kind: u16, key_fp: Fingerprint) -> Node {
        Node {
            kind,
            flags: 0,
            durability: Durability::MAX,
            verified_at: Revision::PREVIOUS_SESSION,
            changed_at: Revision::PREVIOUS_SESSION,
            fingerprint: Fingerprint::ZERO,
            key_fp,
            deps_start: 0,
            deps_len: 0,
            slot: NO_SLOT,
            prev: NO_PREV,
        }
    }

    #[inline]
    pub(crate) fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// The result fingerprint, if it was computed.
    #[inline]
    pub(crate) fn fp(&self) -> Option<Fingerprint> {
        self.has(flags::HAS_FP).then_some(self.fingerprint)
    }
}

/// The graph: nodes, the edge arena and the index of the previous session's nodes.
#[derive(Default)]
pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<NodeId>,
    /// Edges no longer referenced (replaced by a re-execution); the arena is compacted
    /// when they outnumber the live ones.
    pub dead_edges: usize,
    /// (kind, key fingerprint) → node, for nodes loaded from the previous session whose
    /// key has not been looked up yet.
    pub prev_index: FxHashMap<(u16, Fingerprint), NodeId>,
}

impl Graph {
    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    #[inline]
    pub(crate) fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    pub(crate) fn push(&mut self, node: Node) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(node);
        id
    }

    /// The `i`th dependency of `id`, in the order it was read.
    #[inline]
    pub(crate) fn dep(&self, id: NodeId, i: u32) -> Option<NodeId> {
        let n = self.node(id);
        (i < n.deps_len).then(|| self.edges[(n.deps_start + i) as usize])
    }

    pub(crate) fn deps(&self, id: NodeId) -> &[NodeId] {
        let n = self.node(id);
        &self.edges[n.deps_start as usize..(n.deps_start + n.deps_len) as usize]
    }

    /// Replaces the edges of `id` with `deps`.
    pub(crate) fn set_deps(&mut self, id: NodeId, deps: &[NodeId]) {
        let old_len = self.node(id).deps_len as usize;
        self.dead_edges += old_len;
        if self.dead_edges > 1024 && self.dead_edges > self.edges.len() / 2 {
            self.compact_edges();
        }
        let start = self.edges.len();
        self.edges.extend_from_slice(deps);
        let n = self.node_mut(id);
        n.deps_start = start as u32;
        n.deps_len = deps.len() as u32;
    }

    fn compact_edges(&mut self) {
        let mut edges = Vec::with_capacity(self.edges.len() - self.dead_edges);
        for n in &mut self.nodes {
            let start = edges.len();
            edges.extend_from_slice(
                &self.edges[n.deps_start as usize..(n.deps_start + n.deps_len) as usize],
            );
            n.deps_start = start as u32;
        }
        self.edges = edges;
        self.dead_edges = 0;
    }
}
