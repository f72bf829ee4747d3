//! `StableHasher`: the hasher behind every fingerprint, swappable at run time
//! (xxh3-128 by default, rustc's SipHasher128 or blake3 for experiment E2).
//!
//! Everything is fed in a fixed, platform-independent form (little-endian, `usize` as
//! `u64`), so a fingerprint is the same in every process and on every machine. The hasher
//! counts the bytes it is fed, for the statistics.

use crate::fingerprint::Fingerprint;
use rustc_stable_hash::StableSipHasher128;
use std::hash::Hasher as _;

/// Which hash function computes fingerprints. Part of the on-disk cache header: a cache
/// written with one hasher is not used with another.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum HasherKind {
    /// rustc's SipHasher128 through `rustc-stable-hash`.
    Sip128,
    /// xxh3 with a 128-bit output (`xxhash-rust`); the default. Most fingerprinted
    /// inputs are a few dozen bytes (a key, a small value, a long value's digest), where
    /// one call of the one-shot xxh3-128 costs a fraction of SipHasher128's finalization.
    #[default]
    Xxh3,
    /// blake3, truncated to 128 bits.
    Blake3,
}

impl HasherKind {
    /// Every hasher, in a fixed order (benchmarks iterate over it).
    pub const ALL: [HasherKind; 3] = [HasherKind::Sip128, HasherKind::Xxh3, HasherKind::Blake3];

    /// The name used in options, logs and result files.
    pub fn name(self) -> &'static str {
        match self {
            HasherKind::Sip128 => "sip128",
            HasherKind::Xxh3 => "xxh3",
            HasherKind::Blake3 => "blake3",
        }
    }

    /// Parses [`HasherKind::name`] (for `RILL_HASHER` and command-line options).
    pub fn from_name(name: &str) -> Option<HasherKind> {
        HasherKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The byte stored in the cache header.
    pub(crate) fn tag(self) -> u8 {
        match self {
            HasherKind::Sip128 => 1,
            HasherKind::Xxh3 => 2,
            HasherKind::Blake3 => 3,
        }
    }
}

/// Bytes gathered inline before they are handed to a streaming hasher whose per-call
/// cost is high (blake3 is fast on long inputs and slow on 8-byte writes).
const BUF: usize = 256;

/// From this length on, [`StableHasher::write_blob`] under SipHasher128 and xxh3 feeds a
/// byte string's xxh3-128 digest instead of its bytes (below it, the digest costs more
/// than the bytes it replaces).
pub const BLOB_DIGEST_MIN: usize = 32;

/// Bytes the xxh3 hasher gathers inline: a fingerprint of no more bytes than this is one
/// call of the one-shot xxh3-128 on them, with no streaming state to set up.
const XXH3_INLINE: usize = 128;

/// A streaming hash function fed through [`Buffered`].
trait Sink {
    /// How many bytes to gather (on the heap, past the inline buffer) per update: blake3
    /// needs several 1 KiB chunks at once to use SIMD.
    const CHUNK: usize;
    fn update(&mut self, bytes: &[u8]);
}

impl Sink for blake3::Hasher {
    const CHUNK: usize = 16 * 1024;
    fn update(&mut self, bytes: &[u8]) {
        blake3::Hasher::update(self, bytes);
    }
}

/// Small writes go to an inline buffer (no allocation for small values); past it, bytes
/// are gathered in a heap buffer and handed over `CHUNK` at a time, in order.
struct Buffered<H> {
    hasher: H,
    bytes: [u8; BUF],
    len: usize,
    spill: Vec<u8>,
}

impl<H: Sink> Buffered<H> {
    fn new(hasher: H) -> Box<Self> {
        Box::new(Buffered {
            hasher,
            bytes: [0; BUF],
            len: 0,
            spill: Vec::new(),
        })
    }

    #[inline]
    fn write(&mut self, b: &[u8]) {
        if self.len + b.len() <= BUF {
            self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        } else {
            self.write_cold(b);
        }
    }

    #[inline(never)]
    fn write_cold(&mut self, b: &[u8]) {
        self.spill.extend_from_slice(&self.bytes[..self.len]);
        self.len = 0;
        if b.len() >= H::CHUNK {
            self.hasher.update(&self.spill);
            self.spill.clear();
            self.hasher.update(b);
        } else {
            self.spill.extend_from_slice(b);
            if self.spill.len() >= H::CHUNK {
                self.hasher.update(&self.spill);
                self.spill.clear();
            }
        }
    }

    fn finish(mut self) -> H {
        let spill = std::mem::take(&mut self.spill);
        self.hasher.update(&spill);
        let len = self.len;
        let bytes = self.bytes;
        self.hasher.update(&bytes[..len]);
        self.hasher
    }
}

/// xxh3-128 of everything written: the bytes are gathered inline and hashed at once by
/// the one-shot function; only past [`XXH3_INLINE`] bytes are they handed, in order, to a
/// streaming state made then. Both give the digest of the concatenation, so where the
/// writes fall does not change the result.
struct Xxh3Inline {
    len: usize,
    bytes: [u8; XXH3_INLINE],
    stream: Option<Box<xxhash_rust::xxh3::Xxh3Default>>,
}

impl Xxh3Inline {
    #[inline]
    fn new() -> Self {
        Xxh3Inline {
            len: 0,
            bytes: [0; XXH3_INLINE],
            stream: None,
        }
    }

    #[inline]
    fn write(&mut self, b: &[u8]) {
        if self.len + b.len() <= XXH3_INLINE {
            self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        } else {
            self.write_cold(b);
        }
    }

    #[inline(never)]
    fn write_cold(&mut self, b: &[u8]) {
        let stream = self
            .stream
            .get_or_insert_with(|| Box::new(xxhash_rust::xxh3::Xxh3Default::new()));
        stream.update(&self.bytes[..self.len]);
        self.len = 0;
        if b.len() >= XXH3_INLINE {
            stream.update(b);
        } else {
            self.bytes[..b.len()].copy_from_slice(b);
            self.len = b.len();
        }
    }

    /// The digest of everything written. By reference, so that the buffer is hashed
    /// where it is rather than moved out first.
    #[inline]
    fn digest(&mut self) -> u128 {
        match self.stream.take() {
            None => xxhash_rust::xxh3::xxh3_128(&self.bytes[..self.len]),
            Some(mut stream) => {
                stream.update(&self.bytes[..self.len]);
                stream.digest128()
            }
        }
    }
}

enum State {
    Sip(StableSipHasher128),
    Xxh3(Xxh3Inline),
    Blake3(Box<Buffered<blake3::Hasher>>),
}

/// The stable hasher. Create one with [`StableHasher::new`], feed it through
/// [`crate::StableHash`], and [`StableHasher::finish`] it into a [`Fingerprint`].
pub struct StableHasher {
    state: State,
    bytes_hashed: u64,
}

impl StableHasher {
    /// A fresh hasher of the given kind. (Inlined, as is [`StableHasher::finish`]: under
    /// xxh3 a fingerprint is then a few stores into a buffer in the caller's frame and
    /// one call of the one-shot function.)
    #[inline]
    pub fn new(kind: HasherKind) -> StableHasher {
        let state = match kind {
            HasherKind::Sip128 => State::Sip(StableSipHasher128::new()),
            HasherKind::Xxh3 => State::Xxh3(Xxh3Inline::new()),
            HasherKind::Blake3 => State::Blake3(new_blake3()),
        };
        StableHasher {
            state,
            bytes_hashed: 0,
        }
    }

    /// How many bytes were fed so far.
    pub fn bytes_hashed(&self) -> u64 {
        self.bytes_hashed
    }

    /// Counts `n` bytes that a value hashed itself, into a digest it feeds here instead
    /// (a file stamp digests the content it read as it reads it): they count as this
    /// hashing's bytes, while their time is the value's provider's.
    pub fn count_hashed_elsewhere(&mut self, n: u64) {
        self.bytes_hashed += n;
    }

    /// Feeds raw bytes (no length prefix: see [`StableHasher::write_str`] for that).
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.bytes_hashed += bytes.len() as u64;
        match &mut self.state {
            State::Sip(h) => h.write(bytes),
            State::Xxh3(h) => h.write(bytes),
            State::Blake3(h) => write_blake3(h, bytes),
        }
    }

    /// Feeds a byte string of any length with its length first: a value's encoding, a
    /// file's text. Under [`HasherKind::Sip128`] and [`HasherKind::Xxh3`] a string of
    /// [`BLOB_DIGEST_MIN`] bytes or more is first digested in one call by the one-shot
    /// xxh3-128 (`xxhash-rust`), whose 128-bit digest is fed instead: SipHasher128 costs
    /// about three instructions a byte, and xxh3 would otherwise copy a long string into
    /// its inline buffer or stream it. Shorter strings, and every string under blake3
    /// (fast on long inputs itself), are fed as they are. `bytes_hashed` counts the
    /// string's own length either way.
    #[inline]
    pub fn write_blob(&mut self, bytes: &[u8]) {
        self.write_usize(bytes.len());
        match &mut self.state {
            State::Sip(h) if bytes.len() >= BLOB_DIGEST_MIN => {
                self.bytes_hashed += bytes.len() as u64;
                let d = xxhash_rust::xxh3::xxh3_128(bytes);
                h.write_u64(d as u64);
                h.write_u64((d >> 64) as u64);
            }
            State::Xxh3(h) if bytes.len() >= BLOB_DIGEST_MIN => {
                self.bytes_hashed += bytes.len() as u64;
                h.write(&xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes());
            }
            _ => self.write_bytes(bytes),
        }
    }

    /// Feeds one byte.
    #[inline]
    pub fn write_u8(&mut self, x: u8) {
        match &mut self.state {
            State::Sip(h) => {
                self.bytes_hashed += 1;
                h.write_u8(x)
            }
            _ => self.write_bytes(&[x]),
        }
    }

    /// Feeds a `u16`, little-endian.
    #[inline]
    pub fn write_u16(&mut self, x: u16) {
        match &mut self.state {
            State::Sip(h) => {
                self.bytes_hashed += 2;
                h.write_u16(x)
            }
            _ => self.write_bytes(&x.to_le_bytes()),
        }
    }

    /// Feeds a `u32`, little-endian.
    #[inline]
    pub fn write_u32(&mut self, x: u32) {
        match &mut self.state {
            State::Sip(h) => {
                self.bytes_hashed += 4;
                h.write_u32(x)
            }
            _ => self.write_bytes(&x.to_le_bytes()),
        }
    }

    /// Feeds a `u64`, little-endian.
    #[inline]
    pub fn write_u64(&mut self, x: u64) {
        match &mut self.state {
            State::Sip(h) => {
                self.bytes_hashed += 8;
                h.write_u64(x)
            }
            _ => self.write_bytes(&x.to_le_bytes()),
        }
    }

    /// Feeds a `u128`, little-endian.
    #[inline]
    pub fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }

    /// Feeds a length or index: always 8 bytes, whatever the platform's `usize`.
    #[inline]
    pub fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    /// Feeds a string with its length first, so that `("ab", "c")` and `("a", "bc")` differ.
    #[inline]
    pub fn write_str(&mut self, s: &str) {
        self.write_usize(s.len());
        self.write_bytes(s.as_bytes());
    }

    /// The fingerprint of everything fed.
    #[inline]
    pub fn finish(mut self) -> Fingerprint {
        match self.state {
            State::Xxh3(ref mut h) => Fingerprint::from_u128(h.digest()),
            State::Sip(h) => finish_sip(h),
            State::Blake3(h) => finish_blake3(h),
        }
    }
}

/// SipHasher128's finalization, out of line: [`StableHasher::finish`] is inlined into
/// every fingerprint's caller, and only the default hasher's one-shot digest belongs
/// there.
#[inline(never)]
fn finish_sip(h: StableSipHasher128) -> Fingerprint {
    h.finish::<Fingerprint>()
}

/// blake3's finalization, truncated to 128 bits (out of line, as [`finish_sip`]).
#[inline(never)]
fn finish_blake3(h: Box<Buffered<blake3::Hasher>>) -> Fingerprint {
    let out = (*h).finish().finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&out.as_bytes()[..16]);
    Fingerprint::from_le_bytes(b)
}

/// A blake3 hasher, made out of line (see [`write_blake3`]).
#[inline(never)]
fn new_blake3() -> Box<Buffered<blake3::Hasher>> {
    Buffered::new(blake3::Hasher::new())
}

/// A write under blake3, out of line: every write of a fingerprinted value is inlined
/// into its caller, and only the default hasher's buffering belongs there.
#[inline(never)]
fn write_blake3(h: &mut Buffered<blake3::Hasher>, bytes: &[u8]) {
    h.write(bytes)
}

/// The fingerprint of one value, with the given hasher.
pub fn fingerprint_of<T: crate::StableHash + ?Sized>(kind: HasherKind, value: &T) -> Fingerprint {
    let mut h = StableHasher::new(kind);
    value.stable_hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffering_does_not_change_the_result() {
        // The same bytes fed in many small writes or in one write give the same fingerprint.
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + 3) as u8).collect();
        for kind in HasherKind::ALL {
            let mut a = StableHasher::new(kind);
            // Small writes, then writes around the inline buffer and chunk sizes.
            let mut rest = &data[..];
            for (i, n) in [13, 7, 300, 255, 4096, 5000, 16384, 20000, 1]
                .into_iter()
                .cycle()
                .enumerate()
            {
                if rest.is_empty() {
                    break;
                }
                let n = if i < 400 { 13 } else { n }.min(rest.len());
                a.write_bytes(&rest[..n]);
                rest = &rest[n..];
            }
            let mut b = StableHasher::new(kind);
            b.write_bytes(&data);
            assert_eq!(a.bytes_hashed(), 100_000);
            assert_eq!(a.finish(), b.finish(), "{kind:?}");
        }
    }

    #[test]
    fn xxh3_is_the_one_shot_digest_of_everything_written() {
        // Inline, at the buffer's edge and streamed: the same as xxh3-128 of the
        // concatenation, however the bytes were split into writes.
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 13 + 5) as u8).collect();
        for n in [
            0, 1, 16, 17, 127, 128, 129, 240, 241, 256, 257, 511, 512, 2999,
        ] {
            let want = Fingerprint::from_u128(xxhash_rust::xxh3::xxh3_128(&data[..n]));
            let mut whole = StableHasher::new(HasherKind::Xxh3);
            whole.write_bytes(&data[..n]);
            assert_eq!(whole.finish(), want, "{n} bytes in one write");
            for piece in [1, 7, 100, 255, 300] {
                let mut h = StableHasher::new(HasherKind::Xxh3);
                for c in data[..n].chunks(piece) {
                    h.write_bytes(c);
                }
                assert_eq!(h.finish(), want, "{n} bytes in writes of {piece}");
            }
        }
    }

    #[test]
    fn the_default_is_xxh3() {
        assert_eq!(HasherKind::default(), HasherKind::Xxh3);
    }

    #[test]
    fn kinds_differ_and_are_stable() {
        let fps: Vec<_> = HasherKind::ALL
            .iter()
            .map(|&k| fingerprint_of(k, "rill"))
            .collect();
        assert_ne!(fps[0], fps[1]);
        assert_ne!(fps[1], fps[2]);
        // Stable across processes and machines: these constants must never change.
        expect_test::expect![[r#"
            [
                "ebbf25f53d1fd047a83bc043b8620655",
                "a80b49b54900f682da72cb64dc4f3015",
                "1fb4c7fd48370f09b71443e857c54080",
            ]
        "#]]
        .assert_debug_eq(&fps.iter().map(|f| f.to_hex()).collect::<Vec<_>>());
    }

    #[test]
    fn blobs_are_length_prefixed_and_digested_whole() {
        for kind in HasherKind::ALL {
            let long: Vec<u8> = (0..1000u32).map(|i| (i * 31) as u8).collect();
            let fp = |parts: &[&[u8]]| {
                let mut h = StableHasher::new(kind);
                for p in parts {
                    h.write_blob(p);
                }
                (h.bytes_hashed(), h.finish())
            };
            // Every byte of a long blob counts; where one blob ends and the next begins
            // is part of the input, short or long.
            let mut changed = long.clone();
            changed[999] ^= 1;
            assert_ne!(fp(&[&long]).1, fp(&[&changed]).1, "{kind:?}");
            assert_ne!(
                fp(&[&long[..500], &long[500..]]).1,
                fp(&[&long[..501], &long[501..]]).1
            );
            assert_ne!(fp(&[b"ab", b"c"]).1, fp(&[b"a", b"bc"]).1);
            let short = &long[..BLOB_DIGEST_MIN - 1];
            assert_ne!(fp(&[short]).1, fp(&[&long[..BLOB_DIGEST_MIN]]).1);
            // The count is of the blob's bytes (and its 8-byte length), digested or not.
            assert_eq!(fp(&[&long]).0, 1008, "{kind:?}");
            assert_eq!(fp(&[short]).0, 8 + short.len() as u64, "{kind:?}");
        }
        // Stable across processes and machines: these constants must never change.
        let mut h = StableHasher::new(HasherKind::Sip128);
        h.write_blob(&[7u8; 100]);
        expect_test::expect!["1ad26d0b38ecc524684df73826d162d5"].assert_eq(&h.finish().to_hex());
        let mut h = StableHasher::new(HasherKind::Xxh3);
        h.write_blob(&[7u8; 100]);
        expect_test::expect!["f377573d2f6e2d98f1135b4eaed904dc"].assert_eq(&h.finish().to_hex());
    }

    #[test]
    fn names_round_trip() {
        for k in HasherKind::ALL {
            assert_eq!(HasherKind::from_name(k.name()), Some(k));
        }
        assert_eq!(HasherKind::from_name("md5"), None);
    }
}
