//! The dependency graph in memory: one node per (query kind, key) with its memo's
//! metadata, and the edges to what it read, in the order it read them.
//!
//! Nodes are dense `u32` indices. The previous session's nodes come first (their indices
//! are their positions in the cache file), as zeroed placeholders filled in from the file
//! when first used; nodes created in this session follow.
//! The edge lists of all nodes live in one arena: recording a node's edges is one
//! `extend_from_slice`, with no allocation per node.

use crate::durability::Durability;
use crate::fingerprint::Fingerprint;
use crate::revision::Revision;

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

/// Declares a set of one-byte flags as the `bitflags` crate would write it: combined with
/// `|`, tested with `contains` and `intersects`, changed with `insert`, `remove` and `set`.
macro_rules! flag_set {
    ($(#[$attr:meta])* $Name:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, Default)]
        pub(crate) struct $Name(u8);

        #[allow(dead_code)]
        impl $Name {
            /// No flag.
            pub const EMPTY: $Name = $Name(0);

            /// The flag of bit `bit`.
            pub(crate) const fn bit(bit: u32) -> $Name {
                $Name(1 << bit)
            }

            /// The flags of the byte `bits`, unknown ones included.
            pub(crate) const fn from_bits_retain(bits: u8) -> $Name {
                $Name(bits)
            }

            /// The flags as a byte.
            pub(crate) const fn bits(self) -> u8 {
                self.0
            }

            /// Whether every flag of `other` is set.
            #[inline]
            pub const fn contains(self, other: $Name) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any flag of `other` is set.
            #[inline]
            pub const fn intersects(self, other: $Name) -> bool {
                self.0 & other.0 != 0
            }

            /// Sets the flags of `other`.
            #[inline]
            pub fn insert(&mut self, other: $Name) {
                self.0 |= other.0;
            }

            /// Clears the flags of `other`.
            #[inline]
            pub fn remove(&mut self, other: $Name) {
                self.0 &= !other.0;
            }

            /// Sets or clears the flags of `other`.
            #[inline]
            pub fn set(&mut self, other: $Name, on: bool) {
                if on {
                    self.insert(other);
                } else {
                    self.remove(other);
                }
            }
        }

        impl std::ops::BitOr for $Name {
            type Output = $Name;
            #[inline]
            fn bitor(self, other: $Name) -> $Name {
                $Name(self.0 | other.0)
            }
        }

        impl std::ops::BitAnd for $Name {
            type Output = $Name;
            #[inline]
            fn bitand(self, other: $Name) -> $Name {
                $Name(self.0 & other.0)
            }
        }

        impl std::ops::Not for $Name {
            type Output = $Name;
            #[inline]
            fn not(self) -> $Name {
                $Name(!self.0)
            }
        }

        impl std::fmt::Debug for $Name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:#07b})", stringify!($Name), self.0)
            }
        }
    };
}
pub(crate) use flag_set;

flag_set! {
    /// A set of node flags (the constants of [`flags`]).
    NodeFlags
}

/// Node flags.
pub(crate) mod flags {
    use super::NodeFlags;

    /// The node has a memo: a result fingerprint (unless `no_hash`) and dependency edges,
    /// valid as of `verified_at`. Without it, the query must execute.
    pub const MEMO: NodeFlags = NodeFlags::bit(0);
    /// The query is executing (on the active stack): reading it now is a cycle.
    pub const IN_PROGRESS: NodeFlags = NodeFlags::bit(1);
    /// The last execution was part of a cycle: never green by walking edges, always
    /// re-executed when validated (the cycle may be gone).
    pub const CYCLIC: NodeFlags = NodeFlags::bit(2);
    /// `fingerprint` holds the result's fingerprint.
    pub const HAS_FP: NodeFlags = NodeFlags::bit(3);
    /// An input node whose value was set in this session.
    pub const INPUT_SET: NodeFlags = NodeFlags::bit(4);
    /// The embedder read the node at the top level (outside any query), in this session or
    /// a previous one whose cache was loaded: what is saved is what these nodes reach.
    pub const ROOT: NodeFlags = NodeFlags::bit(5);
    /// The node's fields are filled in. A node of the previous session's cache is an
    /// all-zero placeholder until its record is first used (`cache_dir::ensure`).
    pub const PRESENT: NodeFlags = NodeFlags::bit(6);
    /// The value was released (`release_after`, see `release`): the memo is whole, and a
    /// read re-executes the provider for the value.
    pub const RELEASED: NodeFlags = NodeFlags::bit(7);
}

/// A `u32` index that is never `u32::MAX`, stored so that `Option` of it takes no more
/// room than the index (the niche is the all-ones pattern).
macro_rules! compact_index {
    ($(#[$attr:meta])* $Name:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) struct $Name(std::num::NonZeroU32);

        impl $Name {
            /// The index `i`; `None` for `u32::MAX`, which has no representation.
            #[inline]
            pub(crate) const fn new(i: u32) -> Option<$Name> {
                match std::num::NonZeroU32::new(!i) {
                    Some(x) => Some($Name(x)),
                    None => None,
                }
            }

            /// The index `i`, which must not be `u32::MAX`.
            #[inline]
            pub(crate) fn from_index(i: usize) -> $Name {
                u32::try_from(i)
                    .ok()
                    .and_then($Name::new)
                    .expect(concat!(stringify!($Name), " out of range"))
            }

            #[inline]
            pub(crate) const fn get(self) -> u32 {
                !self.0.get()
            }

            #[inline]
            #[allow(dead_code)]
            pub(crate) const fn index(self) -> usize {
                self.get() as usize
            }
        }

        impl std::fmt::Debug for $Name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($Name), self.get())
            }
        }
    };
}

compact_index! {
    /// Where a node's key and value live in its query's storage (`QueryStorage::slots`).
    SlotIndex
}

compact_index! {
    /// A node's record in the previous session's cache file (its position there).
    PrevIndex
}

/// One node: the metadata of one memo.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub kind: u16,
    pub flags: NodeFlags,
    pub durability: Durability,
    pub verified_at: Revision,
    pub changed_at: Revision,
    /// The stable hash of the result (valid when `HAS_FP`).
    pub fingerprint: Fingerprint,
    pub deps_start: u32,
    pub deps_len: u32,
    /// Where the key and value live in the query's storage (`None` if not yet there).
    pub slot: Option<SlotIndex>,
    /// The node's record in the previous session's cache (`None` if it had none).
    pub prev: Option<PrevIndex>,
    /// A loaded node's place in the cache's dependency order: above that of everything
    /// it read (its index, unless a later save moved it; `u32::MAX` for a node created
    /// in this session).
    pub order: u32,
}

// Nodes are the bulk of the engine's memory (one per memo): the typed fields take no more
// room than the raw integers they replace.
const _: () = assert!(std::mem::size_of::<Node>() == 48);
const _: () = assert!(std::mem::size_of::<Option<SlotIndex>>() == 4);

impl Node {
    pub(crate) fn new(kind: u16) -> Node {
        Node {
            kind,
            flags: flags::PRESENT,
            durability: Durability::MAX,
            verified_at: Revision::PREVIOUS_SESSION,
            changed_at: Revision::PREVIOUS_SESSION,
            fingerprint: Fingerprint::ZERO,
            deps_start: 0,
            deps_len: 0,
            slot: None,
            prev: None,
            order: u32::MAX,
        }
    }

    /// `count` placeholders of the previous session's nodes, all zero (see
    /// [`flags::PRESENT`]): the memory is zeroed by the allocator, so the pages of nodes
    /// never used are never touched.
    pub(crate) fn placeholders(count: usize) -> Nodes {
        // SAFETY: every field of `Node` is an integer, a field-less enum whose zero is a
        // variant (`Durability::Low`), or an `Option` of a `NonZeroU32` wrapper (zero is
        // `None`), so all-zero bytes are a valid `Node`.
        unsafe { crate::chunked::ChunkedVec::zeroed(count) }
    }

    #[inline]
    pub(crate) fn has(&self, flag: NodeFlags) -> bool {
        self.flags.contains(flag)
    }

    /// The result fingerprint, if it was computed.
    #[inline]
    pub(crate) fn fp(&self) -> Option<Fingerprint> {
        self.has(flags::HAS_FP).then_some(self.fingerprint)
    }

    /// Checks (in debug builds) what holds of every node: a value cannot have changed
    /// after it was last verified.
    #[inline]
    pub(crate) fn debug_check(&self) {
        debug_assert!(
            self.changed_at <= self.verified_at,
            "changed at {:?} after it was verified at {:?}: {self:?}",
            self.changed_at,
            self.verified_at
        );
    }
}

/// The nodes, in chunks of 1 MiB (16,384 nodes): a block that size is one the allocator
/// maps from the kernel rather than clears (glibc's `malloc` above its threshold of
/// 128 KiB, the `rill` binaries' allocator above 256 KiB), so that of the placeholders of
/// a loaded cache ([`Node::placeholders`]) only the pages of the nodes a build uses are
/// ever touched.
pub(crate) type Nodes = crate::chunked::ChunkedVec<Node, { 1 << 20 }>;

/// The graph: nodes, their key fingerprints, and the edge arena.
#[derive(Default)]
pub(crate) struct Graph {
    pub nodes: Nodes,
    /// The key fingerprint (the stable hash of the key: with the kind, a node's identity
    /// across sessions) of each node this session created, by its index past the loaded
    /// ones, computed from the keys when a save needs them (`cache_dir::key_fps_of_new_nodes`):
    /// nothing else reads them, so a build does not hold 16 bytes a node for them while
    /// it compiles, and a session without a cache directory never computes them.
    key_fps: Vec<Fingerprint>,
    /// The key fingerprints of the loaded nodes filled so far (`cache_dir::ensure`), by
    /// index: a rebuild fills few of them, scattered across the graph, where a table by
    /// index would have a page resident for each.
    loaded_key_fps: rustc_hash::FxHashMap<u32, Fingerprint>,
    /// The loaded nodes: the first `loaded` indices.
    loaded: u32,
    pub edges: Vec<NodeId>,
    /// Edges no longer referenced (replaced by a re-execution); the arena is compacted
    /// when they outnumber the live ones.
    pub dead_edges: usize,
}

impl Graph {
    /// The graph of a loaded cache: `count` placeholders of the previous session's nodes
    /// (see [`Node::placeholders`]), whose key fingerprints are zero until they are filled.
    pub(crate) fn loaded(count: u32) -> Graph {
        Graph {
            nodes: Node::placeholders(count as usize),
            loaded: count,
            ..Graph::default()
        }
    }

    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    #[inline]
    pub(crate) fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    pub(crate) fn push(&mut self, node: Node) -> NodeId {
        NodeId(self.nodes.push(node) as u32)
    }

    /// The nodes created since the key fingerprints were last computed (see
    /// [`Graph::push_key_fp`]).
    pub(crate) fn nodes_without_key_fp(&self) -> std::ops::Range<u32> {
        self.loaded + self.key_fps.len() as u32..self.nodes.len() as u32
    }

    /// Room for the key fingerprints of [`Graph::nodes_without_key_fp`], exactly.
    pub(crate) fn reserve_key_fps(&mut self) {
        let n = self.nodes_without_key_fp().len();
        self.key_fps.reserve_exact(n);
    }

    /// Records the key fingerprint of the first of [`Graph::nodes_without_key_fp`].
    pub(crate) fn push_key_fp(&mut self, key_fp: Fingerprint) {
        debug_assert!(!self.nodes_without_key_fp().is_empty(), "a node to take it");
        self.key_fps.push(key_fp);
    }

    /// The key fingerprint of `id`: for a node this session created, once computed (see
    /// [`Graph::nodes_without_key_fp`]); for a loaded node, once filled. Zero otherwise.
    #[inline]
    pub(crate) fn key_fp(&self, id: NodeId) -> Fingerprint {
        let fp = match id.0.checked_sub(self.loaded) {
            Some(at) => {
                debug_assert!(
                    (at as usize) < self.key_fps.len(),
                    "the key fingerprint of {id:?} read before it was computed"
                );
                self.key_fps.get(at as usize)
            }
            None => self.loaded_key_fps.get(&id.0),
        };
        fp.copied().unwrap_or(Fingerprint::ZERO)
    }

    /// Sets the key fingerprint of the loaded node `id` as its record says.
    pub(crate) fn set_loaded_key_fp(&mut self, id: NodeId, key_fp: Fingerprint) {
        debug_assert!(id.0 < self.loaded, "{id:?} is not a loaded node");
        self.loaded_key_fps.insert(id.0, key_fp);
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

    /// Replaces the edges of `id` with what `fill` appends to the end of the edge list
    /// (it must not touch what is there before): the new edges are written once, in place,
    /// instead of being collected elsewhere and copied.
    #[inline]
    pub(crate) fn set_deps_with(&mut self, id: NodeId, fill: impl FnOnce(&mut Vec<NodeId>)) {
        let old_len = self.node(id).deps_len as usize;
        self.dead_edges += old_len;
        if self.dead_edges > 1024 && self.dead_edges > self.edges.len() / 2 {
            self.compact_edges();
        }
        let start = self.edges.len();
        fill(&mut self.edges);
        debug_assert!(self.edges.len() >= start, "`fill` only appends");
        let len = self.edges.len() - start;
        let n = self.node_mut(id);
        n.deps_start = start as u32;
        n.deps_len = len as u32;
    }

    fn compact_edges(&mut self) {
        let mut edges = Vec::with_capacity(self.edges.len() - self.dead_edges);
        for n in self.nodes.iter_mut() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_indices_and_flags() {
        assert_eq!(SlotIndex::new(0).map(SlotIndex::get), Some(0));
        assert_eq!(
            SlotIndex::new(u32::MAX - 1).map(SlotIndex::get),
            Some(u32::MAX - 1)
        );
        assert_eq!(SlotIndex::new(u32::MAX), None);
        assert_eq!(PrevIndex::from_index(7).index(), 7);
        let mut f = flags::MEMO | flags::HAS_FP;
        assert!(f.contains(flags::MEMO) && !f.contains(flags::MEMO | flags::CYCLIC));
        assert!(f.intersects(flags::CYCLIC | flags::HAS_FP));
        f.set(flags::HAS_FP, false);
        f.insert(flags::IN_PROGRESS);
        f.remove(flags::MEMO);
        assert_eq!(f, flags::IN_PROGRESS);
        assert_eq!(f & !flags::IN_PROGRESS, NodeFlags::EMPTY);
    }

    #[test]
    fn key_fingerprints_are_kept_for_new_nodes_once_computed_and_for_loaded_ones_once_filled() {
        let fp = |i: u64| Fingerprint(i, !i);
        // New nodes: none until computed, then by index, those created later missing.
        let mut g = Graph::default();
        let ids: Vec<NodeId> = (0..70_000).map(|_| g.push(Node::new(1))).collect();
        assert_eq!(g.nodes_without_key_fp(), 0..70_000);
        for i in g.nodes_without_key_fp() {
            g.push_key_fp(fp(u64::from(i)));
        }
        assert!(g.nodes_without_key_fp().is_empty());
        assert!(ids.iter().all(|&id| g.key_fp(id) == fp(u64::from(id.0))));
        let later = g.push(Node::new(2));
        assert_eq!(g.nodes_without_key_fp(), 70_000..70_001);
        g.push_key_fp(fp(7));
        assert_eq!(g.key_fp(later), fp(7));
        // Loaded: zero until a record fills them, and only the filled ones kept; the
        // nodes created after them in the table.
        let mut g = Graph::loaded(100_000);
        assert!([0, 3, 99_999]
            .iter()
            .all(|&i| g.key_fp(NodeId(i)) == Fingerprint::ZERO));
        g.set_loaded_key_fp(NodeId(3), fp(9));
        g.set_loaded_key_fp(NodeId(99_999), fp(8));
        let new = g.push(Node::new(2));
        assert_eq!(new, NodeId(100_000));
        assert_eq!(g.nodes_without_key_fp(), 100_000..100_001);
        g.push_key_fp(fp(10));
        assert_eq!(
            [0, 3, 99_999, 100_000].map(|i| g.key_fp(NodeId(i))),
            [Fingerprint::ZERO, fp(9), fp(8), fp(10)]
        );
        assert_eq!((g.loaded_key_fps.len(), g.key_fps.len()), (2, 1));
    }
}
