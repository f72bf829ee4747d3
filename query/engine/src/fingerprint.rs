//! `Fingerprint`: the 128-bit stable hash of a query key or result.

use std::fmt;

/// A 128-bit stable hash. Two values with the same fingerprint are taken to be equal (as
/// rustc does); the probability of a collision is negligible at 128 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Fingerprint(pub u64, pub u64);

impl Fingerprint {
    /// The fingerprint of nothing; also the "not computed" marker in the dependency graph.
    pub const ZERO: Fingerprint = Fingerprint(0, 0);

    /// The fingerprint as 16 little-endian bytes (the on-disk form).
    pub fn to_le_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.0.to_le_bytes());
        b[8..].copy_from_slice(&self.1.to_le_bytes());
        b
    }

    /// Inverse of [`Fingerprint::to_le_bytes`].
    pub fn from_le_bytes(b: [u8; 16]) -> Fingerprint {
        let mut lo = [0u8; 8];
        let mut hi = [0u8; 8];
        lo.copy_from_slice(&b[..8]);
        hi.copy_from_slice(&b[8..]);
        Fingerprint(u64::from_le_bytes(lo), u64::from_le_bytes(hi))
    }

    /// The xxh3-128 digest of `bytes`, the same in every process: a key's own
    /// fingerprint for a name (`StableHash::key_fingerprint`).
    pub fn of_bytes(bytes: &[u8]) -> Fingerprint {
        Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(bytes))
    }

    /// `self`, then `other`: a fingerprint of the pair (the order matters), as rustc
    /// combines fingerprints.
    #[inline]
    pub fn combine(self, other: Fingerprint) -> Fingerprint {
        Fingerprint(
            self.0.wrapping_mul(3).wrapping_add(other.0),
            self.1.wrapping_mul(3).wrapping_add(other.1),
        )
    }

    /// Builds a fingerprint from a 128-bit integer (xxh3's output).
    pub fn from_u128(x: u128) -> Fingerprint {
        Fingerprint(x as u64, (x >> 64) as u64)
    }

    /// The fingerprint as lowercase hex (32 digits), for logs and the stats JSON.
    pub fn to_hex(self) -> String {
        format!("{:016x}{:016x}", self.1, self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.to_hex())
    }
}

impl rustc_stable_hash::FromStableHash for Fingerprint {
    type Hash = rustc_stable_hash::SipHasher128Hash;

    fn from(hash: Self::Hash) -> Self {
        let [a, b] = hash.0;
        Fingerprint(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        let f = Fingerprint(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        assert_eq!(Fingerprint::from_le_bytes(f.to_le_bytes()), f);
        assert_eq!(f.to_hex(), "fedcba98765432100123456789abcdef");
        assert_eq!(Fingerprint::from_u128(1 << 64 | 2), Fingerprint(2, 1));
    }
}
