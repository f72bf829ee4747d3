//! `StableHash`: how keys and results are fed to the [`StableHasher`], identically in
//! every process (no pointers, no interned indices, no hash-map iteration order).
//!
//! Impls are written by hand for the standard types; [`crate::impl_stable_hash!`] writes
//! them for a struct from its field list. `HashMap` and `HashSet` have no impl on purpose:
//! their iteration order is not stable (use `BTreeMap`, or sort first).

use crate::fingerprint::Fingerprint;
use crate::hasher::StableHasher;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// A value that can be fingerprinted stably. Implementations must feed everything that
/// makes two values different (so that equal fingerprints mean equal values) and nothing
/// that depends on the process (addresses, interned indices, map order).
///
/// `Cx` is the hashing context: a type of the embedder (its database) under which it may
/// implement `StableHash` for types of other crates (the language's syntax trees, say),
/// which the orphan rule would otherwise forbid. The engine's impls hold for every
/// context; a query's key and value are hashed under its database
/// (`StableHash<Q::Db>`). Plain uses (`StableHash` alone) mean the context `()`.
pub trait StableHash<Cx: ?Sized = ()> {
    /// Feeds `self` to the hasher.
    fn stable_hash(&self, hasher: &mut StableHasher);

    /// The value's fingerprint as a query's key, when the value has one of its own that
    /// is stable and cheaper than hashing it: a stable 128-bit hash already (an id made
    /// by hashing a stable name) is its own, a name may be its text's digest
    /// ([`Fingerprint::of_bytes`]), a tuple of such keys combines theirs. It saves hashing
    /// the key when its node is made. `None` (the default): the key is hashed. Keys of one query are all of one type, and a node is found by
    /// its query and its key's fingerprint, so an id and a hash of another type's value
    /// cannot be taken for each other.
    #[inline]
    fn key_fingerprint(&self) -> Option<Fingerprint> {
        None
    }

    /// Whether a key of this type is hashed in memory by FxHash even though it has a
    /// fingerprint of its own ([`StableHash::key_fingerprint`]), because that fingerprint
    /// costs more than FxHash: a name's is a digest of its text, where FxHash reads its
    /// symbol's index. The in-memory hash is computed on every read of a query, the
    /// fingerprint once, when the key's node is made. A tuple is, if any part is.
    const HASHED_IN_MEMORY_BY_FX: bool = false;

    /// The value's fingerprint as a query's result, when the value has a stable digest of
    /// its own that is cheaper than the hasher: a few fixed-size fields digested at once
    /// ([`Fingerprint::of_bytes`]) instead of fed to the hasher and finished (a file's
    /// stamp, re-executed for every source file in every build). Values of one query are
    /// compared by their fingerprints only, so a query may give some values a digest and
    /// hash the others (a 128-bit digest and a 128-bit hash meet by chance no more than
    /// two hashes do). `None` (the default): the value is hashed.
    #[inline]
    fn value_fingerprint(&self) -> Option<Fingerprint> {
        None
    }

    /// Feeds a slice of values (not its length). Overridden for bytes, which are fed in
    /// one write rather than one call per byte (as `std::hash::Hash::hash_slice`).
    #[inline]
    fn stable_hash_slice(items: &[Self], hasher: &mut StableHasher)
    where
        Self: Sized,
    {
        for x in items {
            StableHash::<Cx>::stable_hash(x, hasher);
        }
    }
}

macro_rules! int_impls {
    ($($t:ty => $w:ident as $as:ty),* $(,)?) => {$(
        impl<Cx: ?Sized> StableHash<Cx> for $t {
            #[inline]
            fn stable_hash(&self, h: &mut StableHasher) {
                h.$w(*self as $as);
            }

            /// Fed as little-endian bytes, a block at a time: the same bytes as one
            /// write per element, in far fewer calls.
            fn stable_hash_slice(items: &[Self], h: &mut StableHasher) {
                const N: usize = std::mem::size_of::<$as>();
                let mut buf = [0u8; 256];
                for chunk in items.chunks(256 / N) {
                    let mut n = 0;
                    for x in chunk {
                        buf[n..n + N].copy_from_slice(&(*x as $as).to_le_bytes());
                        n += N;
                    }
                    h.write_bytes(&buf[..n]);
                }
            }
        }
    )*};
}

impl<Cx: ?Sized> StableHash<Cx> for u8 {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u8(*self);
    }

    #[inline]
    fn stable_hash_slice(items: &[u8], h: &mut StableHasher) {
        h.write_bytes(items);
    }
}

int_impls! {
    i8 => write_u8 as u8,
    u16 => write_u16 as u16, i16 => write_u16 as u16,
    u32 => write_u32 as u32, i32 => write_u32 as u32,
    u64 => write_u64 as u64, i64 => write_u64 as u64,
    u128 => write_u128 as u128, i128 => write_u128 as u128,
    usize => write_u64 as u64, isize => write_u64 as u64,
}

impl<Cx: ?Sized> StableHash<Cx> for bool {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u8(*self as u8);
    }
}

impl<Cx: ?Sized> StableHash<Cx> for char {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u32(*self as u32);
    }
}

impl<Cx: ?Sized> StableHash<Cx> for () {
    #[inline]
    fn stable_hash(&self, _: &mut StableHasher) {}
}

impl<Cx: ?Sized> StableHash<Cx> for str {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_str(self);
    }
}

impl<Cx: ?Sized> StableHash<Cx> for String {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_str(self);
    }
}

impl<Cx: ?Sized> StableHash<Cx> for Path {
    /// Paths are hashed through their platform bytes; the cache is per machine anyway.
    fn stable_hash(&self, h: &mut StableHasher) {
        let bytes = self.as_os_str().as_encoded_bytes();
        h.write_usize(bytes.len());
        h.write_bytes(bytes);
    }

    /// A path is a name: its bytes' digest. Every source file's and directory's stamp is
    /// a node keyed by its path, and a session on a loaded cache checks each such key
    /// against its fingerprint as it decodes it, so the key's hash is paid per file.
    #[inline]
    fn key_fingerprint(&self) -> Option<Fingerprint> {
        Some(Fingerprint::of_bytes(self.as_os_str().as_encoded_bytes()))
    }
}

impl<Cx: ?Sized> StableHash<Cx> for PathBuf {
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(self.as_path(), h);
    }

    #[inline]
    fn key_fingerprint(&self) -> Option<Fingerprint> {
        StableHash::<Cx>::key_fingerprint(self.as_path())
    }
}

impl<Cx: ?Sized> StableHash<Cx> for Fingerprint {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u64(self.0);
        h.write_u64(self.1);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx>> StableHash<Cx> for [T] {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_usize(self.len());
        <T as StableHash<Cx>>::stable_hash_slice(self, h);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx>, const N: usize> StableHash<Cx> for [T; N] {
    fn stable_hash(&self, h: &mut StableHasher) {
        // The length is part of the type: not fed.
        <T as StableHash<Cx>>::stable_hash_slice(self, h);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx>> StableHash<Cx> for Vec<T> {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(self.as_slice(), h);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx>> StableHash<Cx> for Option<T> {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        match self {
            None => h.write_u8(0),
            Some(x) => {
                h.write_u8(1);
                StableHash::<Cx>::stable_hash(x, h);
            }
        }
    }
}

impl<Cx: ?Sized, T: StableHash<Cx>, E: StableHash<Cx>> StableHash<Cx> for Result<T, E> {
    fn stable_hash(&self, h: &mut StableHasher) {
        match self {
            Ok(x) => {
                h.write_u8(0);
                StableHash::<Cx>::stable_hash(x, h);
            }
            Err(e) => {
                h.write_u8(1);
                StableHash::<Cx>::stable_hash(e, h);
            }
        }
    }
}

impl<Cx: ?Sized, T: StableHash<Cx> + ?Sized> StableHash<Cx> for &T {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&**self, h);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx> + ?Sized> StableHash<Cx> for Box<T> {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&**self, h);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx> + ?Sized> StableHash<Cx> for Arc<T> {
    /// The contents, never the pointer.
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&**self, h);
    }
}

impl<Cx: ?Sized, T: StableHash<Cx> + ?Sized> StableHash<Cx> for Rc<T> {
    #[inline]
    fn stable_hash(&self, h: &mut StableHasher) {
        StableHash::<Cx>::stable_hash(&**self, h);
    }
}

impl<Cx: ?Sized, K: StableHash<Cx>, V: StableHash<Cx>> StableHash<Cx> for BTreeMap<K, V> {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_usize(self.len());
        for (k, v) in self {
            StableHash::<Cx>::stable_hash(k, h);
            StableHash::<Cx>::stable_hash(v, h);
        }
    }
}

impl<Cx: ?Sized, T: StableHash<Cx>> StableHash<Cx> for BTreeSet<T> {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_usize(self.len());
        for x in self {
            StableHash::<Cx>::stable_hash(x, h);
        }
    }
}

macro_rules! tuple_impls {
    ($(($($n:tt $t:ident),+))*) => {$(
        impl<Cx: ?Sized, $($t: StableHash<Cx>),+> StableHash<Cx> for ($($t,)+) {
            #[inline]
            fn stable_hash(&self, h: &mut StableHasher) {
                $(StableHash::<Cx>::stable_hash(&self.$n, h);)+
            }

            /// The parts' own key fingerprints combined in order, if each has one.
            #[inline]
            fn key_fingerprint(&self) -> Option<Fingerprint> {
                let fp = Fingerprint::ZERO;
                $(let fp = fp.combine(StableHash::<Cx>::key_fingerprint(&self.$n)?);)+
                Some(fp)
            }

            const HASHED_IN_MEMORY_BY_FX: bool =
                $(<$t as StableHash<Cx>>::HASHED_IN_MEMORY_BY_FX)||+;
        }
    )*};
}

tuple_impls! {
    (0 A)
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
    (0 A, 1 B, 2 C, 3 D, 4 E)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H)
}

/// Implements [`StableHash`] for a struct by hashing the listed fields in order:
/// `impl_stable_hash!(Point { x, y });`. List every field that makes two values differ.
#[macro_export]
macro_rules! impl_stable_hash {
    ($ty:ty { $($field:ident),* $(,)? }) => {
        impl<Cx: ?Sized> $crate::StableHash<Cx> for $ty {
            fn stable_hash(&self, hasher: &mut $crate::StableHasher) {
                $( $crate::StableHash::<Cx>::stable_hash(&self.$field, hasher); )*
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::hasher::{fingerprint_of, HasherKind};

    struct Point {
        x: i32,
        y: i32,
    }
    crate::impl_stable_hash!(Point { x, y });

    #[test]
    fn structure_is_part_of_the_hash() {
        let k = HasherKind::Sip128;
        assert_ne!(
            fingerprint_of(k, &("ab", "c")),
            fingerprint_of(k, &("a", "bc"))
        );
        assert_ne!(
            fingerprint_of(k, &Some(0u8)),
            fingerprint_of(k, &None::<u8>)
        );
        assert_ne!(
            fingerprint_of(k, &Ok::<u8, u8>(1)),
            fingerprint_of(k, &Err::<u8, u8>(1))
        );
        assert_ne!(
            fingerprint_of(k, &vec![vec![1u8], vec![]]),
            fingerprint_of(k, &vec![vec![], vec![1u8]])
        );
        assert_eq!(
            fingerprint_of(k, &std::sync::Arc::new(String::from("x"))),
            fingerprint_of(k, "x")
        );
        assert_ne!(
            fingerprint_of(k, &Point { x: 1, y: 2 }),
            fingerprint_of(k, &Point { x: 2, y: 1 })
        );
        assert_eq!(fingerprint_of(k, &1usize), fingerprint_of(k, &1u64));
        // Bytes in one write hash like bytes one by one.
        let mut h = crate::StableHasher::new(k);
        h.write_usize(3);
        for b in [1u8, 2, 3] {
            h.write_u8(b);
        }
        assert_eq!(fingerprint_of(k, &vec![1u8, 2, 3]), h.finish());
        // Integer slices, fed in blocks, hash like one write per element, for every hasher.
        for kind in crate::HasherKind::ALL {
            let words: Vec<u64> = (0..100u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let mut h = crate::StableHasher::new(kind);
            h.write_usize(words.len());
            for &w in &words {
                h.write_u64(w);
            }
            assert_eq!(fingerprint_of(kind, &words), h.finish(), "{kind:?}");
            let small: Vec<i16> = (0..300).map(|i| i as i16 - 150).collect();
            let mut h = crate::StableHasher::new(kind);
            h.write_usize(small.len());
            for &w in &small {
                h.write_u16(w as u16);
            }
            assert_eq!(fingerprint_of(kind, &small), h.finish(), "{kind:?}");
        }
    }
}
