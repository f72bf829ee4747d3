//! The `Query` trait (one implementation per line of a query table, written by
//! [`crate::define_queries!`]), per-query storage, and the type-erased per-kind table the
//! engine uses to reach a query from a bare node index.

use crate::cycle::Cycle;
use crate::dep_graph::{NodeId, SlotIndex};
use crate::fingerprint::Fingerprint;
use crate::hasher::StableHasher;
use crate::runtime::Runtime;
use crate::stable_hash::StableHash;
use rustc_hash::FxBuildHasher;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};

/// Per-query modifiers (see the query table's documentation in [`crate::define_queries!`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Flags(u8);

impl Flags {
    /// No modifier.
    pub const NONE: Flags = Flags(0);
    /// The value is set from outside (`db.set_x(key, value, durability)`).
    pub const INPUT: Flags = Flags(1 << 0);
    /// The provider reads something untracked (the file system): it re-executes whenever it
    /// is validated in a new revision or session; dependents are spared by cutoff.
    pub const EVAL_ALWAYS: Flags = Flags(1 << 1);
    /// The value is never hashed nor compared: when it re-executes it counts as changed.
    pub const NO_HASH: Flags = Flags(1 << 2);
    /// The value itself is persisted (not only its fingerprint) and loaded lazily.
    pub const CACHE_ON_DISK: Flags = Flags(1 << 3);
    /// Early cutoff compares the old and new values with `==` (salsa's backdating) instead
    /// of their fingerprints.
    pub const BACKDATE_EQ: Flags = Flags(1 << 4);
    /// A `cache_on_disk` value is fingerprinted by its [`crate::StableHash`] rather than by
    /// its encoding: for a value whose encoding is not canonical (a map in insertion
    /// order) or whose fingerprint hashes another view of it.
    pub const OWN_HASH: Flags = Flags(1 << 5);
    /// The value is released (the memo stays: fingerprint, revisions, edges) once every
    /// query of `Query::CONSUMERS` is up to date for the same key in the current revision:
    /// what no one is expected to read again. A later read re-executes the provider, which
    /// gives an equal value (see `release_after` in [`crate::define_queries!`]).
    pub const RELEASE: Flags = Flags(1 << 6);

    /// `self` with the flags of `other` added.
    pub const fn with(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any flag of `other` is set.
    pub const fn intersects(self, other: Flags) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether the fingerprint of the value is the hash of its encoding: the value is
    /// persisted (`cache_on_disk`), hashed, and not `own_hash`. Then it is encoded once,
    /// when it is executed, and those bytes are both fingerprinted and saved.
    pub const fn hashes_encoding(self) -> bool {
        self.contains(Flags::CACHE_ON_DISK)
            && !self.intersects(Flags::NO_HASH.with(Flags::OWN_HASH))
    }

    /// Whether the query executes again in every session that needs its value, even when
    /// nothing it depends on changed: it reads the outside world (`EVAL_ALWAYS`), or its
    /// value is neither hashed nor persisted (`NO_HASH` without `CACHE_ON_DISK`), so the
    /// previous session's memo can keep its dependents green but never give the value
    /// back. Such an execution alone says nothing changed since the previous session.
    pub const fn executes_every_session(self) -> bool {
        self.contains(Flags::EVAL_ALWAYS)
            || self.contains(Flags::NO_HASH) && !self.contains(Flags::CACHE_ON_DISK)
    }
}

/// Encoding of a `cache_on_disk` value (bincode 2 through serde).
pub struct Codec<V> {
    /// Value → bytes, appended to the buffer.
    pub encode: fn(&V, &mut Vec<u8>) -> Result<(), String>,
    /// Bytes → value; errors on malformed input, never panics.
    pub decode: fn(&[u8]) -> Result<V, String>,
}

/// A provider: `fn(&Db, Key) -> Value`.
pub type ProviderFn<Db, K, V> = fn(&Db, K) -> V;
/// A cycle fallback: `fn(&Db, &Cycle, &Key) -> Value`.
pub type FallbackFn<Db, K, V> = fn(&Db, &Cycle, &K) -> V;
/// How a cycle's description shows a key: `fn(&Db, &Key) -> String`.
pub type DescribeKeyFn<Db, K> = fn(&Db, &K) -> String;
/// Whether a consumer of a released value is up to date for a key (see
/// [`Query::CONSUMERS`]): `fn(&Db, &Key) -> bool`.
pub type ConsumedFn<Db, K> = fn(&Db, &K) -> bool;

/// One query of a table. Implemented by [`crate::define_queries!`] on a marker type per
/// query; the engine's functions are generic over it.
pub trait Query: 'static {
    /// The database the query belongs to.
    type Db: Database;
    /// The key. It is persisted to disk (serde) and fingerprinted (its stable hash is the
    /// node's identity across sessions), so it must not contain interned indices.
    type Key: Clone
        + Eq
        + Hash
        + Debug
        + StableHash<Self::Db>
        + serde::Serialize
        + serde::de::DeserializeOwned
        + 'static;
    /// The value. Cheap to clone (wrap big values in `Arc`).
    type Value: Clone + PartialEq + 'static;

    /// The query's name (its kind in the statistics and on disk).
    const NAME: &'static str;
    /// A human description, used in cycle errors ("evaluating a constant").
    const DESCRIPTION: &'static str;
    /// The query's index in the table.
    const KIND: u16;
    /// The modifiers.
    const FLAGS: Flags;
    /// How to hash the value (`None` for `no_hash` queries).
    const HASH: Option<fn(&Self::Value, &mut StableHasher)>;
    /// The value's own fingerprint, if it has one ([`StableHash::value_fingerprint`]),
    /// taken instead of hashing it (for hashed queries whose fingerprint is not of their
    /// encoding).
    const OWN_FINGERPRINT: fn(&Self::Value) -> Option<Fingerprint> = |_| None;
    /// How to persist the value (`Some` for `cache_on_disk` queries).
    const CODEC: Option<Codec<Self::Value>>;
    /// The value of a query on a cycle (`cycle_fallback(f)`); see [`crate::cycle`].
    const FALLBACK: Option<FallbackFn<Self::Db, Self::Key, Self::Value>>;
    /// The provider (`None` for inputs).
    const PROVIDER: Option<ProviderFn<Self::Db, Self::Key, Self::Value>>;
    /// How a key is shown in a cycle's description (`describe_key(f)`; `None`: `Debug`).
    const DESCRIBE_KEY: Option<DescribeKeyFn<Self::Db, Self::Key>> = None;
    /// The queries that consume the value (`release_after(q, ...)`, with [`Flags::RELEASE`]):
    /// for each, whether it is up to date for the same key in the current revision.
    const CONSUMERS: &'static [ConsumedFn<Self::Db, Self::Key>] = &[];
    /// The kinds of the queries of [`Query::CONSUMERS`], in the same order.
    const CONSUMER_KINDS: &'static [u16] = &[];

    /// The query's storage in the database.
    fn storage(db: &Self::Db) -> &QueryStorage<Self>;

    /// The value for `key` (read and recorded as [`crate::fetch`] does), given to `f` by
    /// reference: a read that needs a part of the value (a field behind an `Arc`) makes no
    /// clone of the whole. `f` is a projection: it must not read queries (on a memo hit it
    /// runs while the query's storage is borrowed).
    #[inline]
    fn with_value<R>(db: &Self::Db, key: Self::Key, f: impl FnOnce(&Self::Value) -> R) -> R
    where
        Self: Sized,
    {
        crate::fetch::fetch_with::<Self, R>(db, key, f)
    }
}

/// A database: a runtime plus one storage per query, written by [`crate::define_queries!`].
pub trait Database: Sized + 'static {
    /// The table of queries, indexed by `Query::KIND`.
    const KINDS: &'static [KindVTable<Self>];
    /// The engine's state.
    fn runtime(&self) -> &Runtime;
    /// The engine's state, mutably (to set inputs and save).
    fn runtime_mut(&mut self) -> &mut Runtime;
}

pub(crate) struct Slot<Q: Query + ?Sized> {
    pub key: Q::Key,
    pub node: NodeId,
    pub value: Option<Q::Value>,
    /// Where the value's encoding is kept from its execution to be saved as it is (queries
    /// whose fingerprint is of their encoding, in a database that persists its cache): in
    /// the cache directory's spill file, not in memory.
    pub encoded: Option<crate::spill::SpillRef>,
    /// The slot added before this one whose key has the same folded hash ([`map_key`]): a
    /// collision.
    pub next: Option<SlotIndex>,
}

/// The in-memory hash of a key, computed once per read: the storage's map is keyed by
/// it, so a key is hashed once whether it is found, missing or then inserted, and never
/// again when the map grows. A key with a fingerprint of its own
/// ([`StableHash::key_fingerprint`]) is hashed by it: a path's is the digest of its bytes,
/// several times cheaper than std's `Hash` for paths (which walks their components), and
/// a key decoded from the cache has it already ([`key_hash_of`]). Any other key, and a key
/// whose own fingerprint costs more than FxHash
/// ([`StableHash::HASHED_IN_MEMORY_BY_FX`]: a name's): FxHash.
#[inline]
pub(crate) fn key_hash<Q: Query + ?Sized>(key: &Q::Key) -> u64 {
    if !<Q::Key as StableHash<Q::Db>>::HASHED_IN_MEMORY_BY_FX {
        if let Some(fp) = StableHash::<Q::Db>::key_fingerprint(key) {
            return fp.0;
        }
    }
    FxBuildHasher.hash_one(key)
}

/// [`key_hash`] of a key whose stable fingerprint is `key_fp`: no hashing when the
/// fingerprint is the key's own and the in-memory hash.
#[inline]
pub(crate) fn key_hash_of<Q: Query + ?Sized>(key: &Q::Key, key_fp: Fingerprint, own: bool) -> u64 {
    if own && !<Q::Key as StableHash<Q::Db>>::HASHED_IN_MEMORY_BY_FX {
        key_fp.0
    } else {
        FxBuildHasher.hash_one(key)
    }
}

/// The storage map's key for a [`key_hash`]: its two halves folded into 32 bits, so that an
/// entry of the map takes 8 bytes, not 16 (the map has an entry per slot). Keys whose
/// halves agree are chained through [`Slot::next`] as keys of one hash are.
#[inline]
pub(crate) fn map_key(hash: u64) -> u32 {
    (hash ^ (hash >> 32)) as u32
}

/// A hasher for keys that are hashes already ([`map_key`]): passes the bits through.
#[derive(Default)]
pub(crate) struct PassHasher(u64);

impl Hasher for PassHasher {
    #[inline]
    fn write_u32(&mut self, n: u32) {
        // The table takes a bucket from the low bits and a tag from the top seven: the
        // 32 bits in both halves give it independent bits for both.
        self.0 = u64::from(n) | (u64::from(n) << 32);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64`s are hashed with it; stay total for anything else.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

// An entry of a storage's map: 8 bytes (see `map_key`).
const _: () = assert!(std::mem::size_of::<(u32, SlotIndex)>() == 8);

pub(crate) struct StorageInner<Q: Query + ?Sized> {
    /// The most recent slot of each key hash ([`key_hash`], folded by [`map_key`]); older
    /// slots of the same folded hash follow through [`Slot::next`].
    pub map: HashMap<u32, SlotIndex, BuildHasherDefault<PassHasher>>,
    pub slots: crate::chunked::ChunkedVec<Slot<Q>>,
}

impl<Q: Query + ?Sized> StorageInner<Q> {
    #[inline]
    pub(crate) fn slot(&self, slot: SlotIndex) -> &Slot<Q> {
        &self.slots[slot.index()]
    }

    #[inline]
    pub(crate) fn slot_mut(&mut self, slot: SlotIndex) -> &mut Slot<Q> {
        &mut self.slots[slot.index()]
    }

    /// The slot of `key`, whose [`key_hash`] is `hash`.
    #[inline]
    pub(crate) fn find(&self, hash: u64, key: &Q::Key) -> Option<SlotIndex> {
        let mut slot = *self.map.get(&map_key(hash))?;
        loop {
            let s = self.slot(slot);
            if s.key == *key {
                return Some(slot);
            }
            slot = s.next?;
        }
    }

    /// The slot of `key`.
    #[inline]
    pub(crate) fn get(&self, key: &Q::Key) -> Option<SlotIndex> {
        self.find(key_hash::<Q>(key), key)
    }

    /// Adds a slot for `key` (not in the storage yet), whose [`key_hash`] is `hash`,
    /// standing for `node`.
    pub(crate) fn push(&mut self, hash: u64, key: &Q::Key, node: NodeId) -> SlotIndex {
        debug_assert_eq!(hash, key_hash::<Q>(key));
        debug_assert!(self.find(hash, key).is_none(), "a key has one slot");
        let slot = SlotIndex::from_index(self.slots.len());
        let next = self.map.insert(map_key(hash), slot);
        self.slots.push(Slot {
            key: key.clone(),
            node,
            value: None,
            encoded: None,
            next,
        });
        slot
    }
}

/// The memoized keys and values of one query.
pub struct QueryStorage<Q: Query + ?Sized> {
    pub(crate) inner: RefCell<StorageInner<Q>>,
    /// The executions whose value changed, in order (see [`crate::changes`]).
    pub(crate) changed: crate::changes::ChangeLog,
}

impl<Q: Query + ?Sized> Default for QueryStorage<Q> {
    fn default() -> Self {
        QueryStorage {
            inner: RefCell::new(StorageInner {
                map: HashMap::default(),
                slots: Default::default(),
            }),
            changed: Default::default(),
        }
    }
}

impl<Q: Query + ?Sized> QueryStorage<Q> {
    /// How many keys the query has in memory.
    pub fn len(&self) -> usize {
        self.inner.borrow().slots.len()
    }

    /// Whether no key is in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the engine needs to reach a query from a bare node index: its name and modifiers,
/// and monomorphized functions to re-execute it, verify it and persist it.
pub struct KindVTable<Db> {
    /// `Query::NAME`.
    pub name: &'static str,
    /// `Query::DESCRIPTION`.
    pub description: &'static str,
    /// `Query::FLAGS`.
    pub flags: Flags,
    pub(crate) has_hash: bool,
    pub(crate) has_codec: bool,
    /// Re-executes the node's query for its key; `false` if the key cannot be recovered.
    pub(crate) force: fn(&Db, NodeId) -> bool,
    /// Re-executes a green node and compares fingerprints; `None` if not checkable.
    pub(crate) verify: fn(&Db, NodeId) -> Option<bool>,
    /// The node's key, formatted with `Debug`.
    pub(crate) key_debug: fn(&Db, NodeId) -> String,
    /// The node's key as a cycle's description shows it (`Query::DESCRIBE_KEY`).
    pub(crate) describe_key: fn(&Db, NodeId) -> String,
    /// The node's key, type-erased (see [`crate::event_key`]).
    pub(crate) key_any: fn(&Db, NodeId) -> Option<Box<dyn std::any::Any>>,
    /// Appends the node's key, encoded for the cache (`false` if not in memory).
    pub(crate) encode_key: fn(&Db, NodeId, &mut Vec<u8>) -> bool,
    /// The node's key fingerprint, from its key in memory (`None` if not there).
    pub(crate) key_fp: fn(&Db, NodeId) -> Option<crate::Fingerprint>,
    /// Appends the node's value, encoded for the cache (`false` if not in memory or not
    /// persisted).
    pub(crate) encode_value: fn(&Db, NodeId, &mut Vec<u8>) -> bool,
    /// Whether the node's value is in memory.
    pub(crate) has_value: fn(&Db, NodeId) -> bool,
    /// The fingerprint of the node's value in memory (`None` if absent or `no_hash`).
    pub(crate) hash_value: fn(&Db, NodeId) -> Option<crate::Fingerprint>,
    /// Releases the node's value if every consumer is up to date (`release_after`).
    pub(crate) release: fn(&Db, NodeId),
    /// Releases every value of the query a save would not read from memory (any, when
    /// the flag says nothing will be saved); how many.
    pub(crate) release_unsaved: fn(&Db, bool) -> usize,
    /// The kinds of the queries that consume the value (`Query::CONSUMER_KINDS`).
    pub(crate) consumer_kinds: &'static [u16],
}

impl<Db: Database> KindVTable<Db> {
    /// The table entry of query `Q`.
    pub const fn of<Q: Query<Db = Db>>() -> KindVTable<Db> {
        KindVTable {
            name: Q::NAME,
            description: Q::DESCRIPTION,
            flags: Q::FLAGS,
            has_hash: Q::HASH.is_some(),
            has_codec: Q::CODEC.is_some(),
            force: crate::execute::force::<Q>,
            verify: crate::verify::verify_node::<Q>,
            key_debug: crate::fetch::key_debug::<Q>,
            describe_key: crate::cycle::describe_key::<Q>,
            key_any: crate::event::key_any::<Q>,
            encode_key: crate::on_disk::encode_key::<Q>,
            key_fp: crate::fetch::key_fp_of::<Q>,
            encode_value: crate::on_disk::encode_value::<Q>,
            has_value: crate::on_disk::has_value::<Q>,
            hash_value: crate::execute::hash_value_of::<Q>,
            release: crate::release::release_if_consumed::<Q>,
            release_unsaved: crate::release::release_unsaved::<Q>,
            consumer_kinds: Q::CONSUMER_KINDS,
        }
    }
}

/// bincode 2 configuration for everything in the cache (encoding; decoding goes through
/// [`decode_bounded`], which adds a limit).
pub(crate) fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Decodes `bytes` with a limit on what bincode may claim (and so allocate) that grows
/// with the input, so that a corrupted or hostile length prefix in a few bytes cannot make
/// the decoder allocate gigabytes.
///
/// bincode claims a primitive's in-memory size for each one read (at most 16 bytes for one
/// varint byte: a `u128`) and a string's length for its bytes, so a valid encoding of `n`
/// bytes claims at most `16 n`; the limit is the first of 1 MiB, 64 MiB, 1 GiB and 64 GiB
/// that covers that. A hostile input can thus make one decode allocate at most 64 times
/// its own size, or 1 MiB. (Sequences decoded through serde pre-allocate at most 1 MiB
/// whatever their length prefix says.) Nesting is bounded too
/// ([`crate::depth::MAX_DECODE_DEPTH`]), so a forged deeply nested value is an error, not
/// a stack overflow.
pub(crate) fn decode_bounded<V: serde::de::DeserializeOwned>(
    bytes: &[u8],
) -> Result<(V, usize), bincode::error::DecodeError> {
    use bincode::serde::seed_decode_from_slice as decode;
    let c = bincode::config::standard();
    let seed = || crate::depth::LimitedSeed::<V>::new(crate::depth::MAX_DECODE_DEPTH);
    let need = bytes.len().saturating_mul(16).saturating_add(64);
    if need <= 1 << 20 {
        decode(seed(), bytes, c.with_limit::<{ 1 << 20 }>())
    } else if need <= 1 << 26 {
        decode(seed(), bytes, c.with_limit::<{ 1 << 26 }>())
    } else if need <= 1 << 30 {
        decode(seed(), bytes, c.with_limit::<{ 1 << 30 }>())
    } else {
        decode(seed(), bytes, c.with_limit::<{ 1 << 36 }>())
    }
}

/// Encodes a `cache_on_disk` value.
pub fn codec_encode<V: serde::Serialize>(v: &V) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    codec_encode_into(v, &mut out)?;
    Ok(out)
}

/// Encodes a `cache_on_disk` value at the end of `out` (used by the query table): the
/// bytes [`codec_encode`] gives, without a buffer of their own.
pub fn codec_encode_into<V: serde::Serialize>(v: &V, out: &mut Vec<u8>) -> Result<(), String> {
    bincode::serde::encode_into_writer(v, VecWriter(out), bincode_config())
        .map_err(|e| e.to_string())
}

/// A bincode writer that appends to a `Vec`. Bincode's `std::io::Write` adapter counts the
/// bytes written and maps an I/O error (which a `Vec` never gives) for every varint and
/// field, and every persisted query's value is encoded each time it is executed (at 100k
/// lines from scratch, a twelfth of the encoding's instructions). The bytes are the same.
struct VecWriter<'a>(&'a mut Vec<u8>);

impl bincode::enc::write::Writer for VecWriter<'_> {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) -> Result<(), bincode::error::EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// Decodes a `cache_on_disk` value (used by the query table). Trailing bytes are an error;
/// the memory one decode may claim is bounded by the input's size ([`decode_bounded`]).
pub fn codec_decode<V: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<V, String> {
    match decode_bounded::<V>(bytes) {
        Ok((v, n)) if n == bytes.len() => Ok(v),
        Ok((_, n)) => Err(format!("{} trailing bytes", bytes.len() - n)),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::{codec_decode, codec_encode_into};

    /// The `Vec` writer appends exactly bincode's bytes (varints of every width, strings,
    /// sequences, options) after what the buffer held, and they decode back.
    #[test]
    fn encoding_into_a_buffer_appends_bincodes_bytes() {
        type V = (
            u8,
            u32,
            u64,
            u128,
            i64,
            String,
            Vec<(Option<u16>, String)>,
            bool,
        );
        let value: V = (
            7,
            300,
            u64::MAX - 3,
            1 << 100,
            -70_000,
            "geometry".to_string(),
            vec![(Some(65_000), "a".repeat(300)), (None, String::new())],
            true,
        );
        let mut out = b"prefix".to_vec();
        codec_encode_into(&value, &mut out).unwrap();
        let expected = bincode::serde::encode_to_vec(&value, bincode::config::standard()).unwrap();
        assert_eq!(&out[..6], b"prefix");
        assert_eq!(&out[6..], &expected[..]);
        assert_eq!(codec_decode::<V>(&out[6..]).unwrap(), value);
    }
}
