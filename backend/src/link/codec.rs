//! The link state on disk: a 48-byte header, then the state as bincode.
//!
//! ```text
//! 0   magic "RILLLNK\x01"     16  body length u64
//! 8   format version u32      24  checksum of the body (SipHasher128, 16 bytes)
//! 12  4 zero bytes            40  8 zero bytes
//! ```
//!
//! The body holds the code buffer, the slots (def-id, offset, length, capacity, parameter
//! count, relocations as the blobs' fixed records, hash part), the entry point and the
//! context page's offset; the index, the reverse index and the hash are rebuilt and every
//! slot checked on decoding ([`LinkState::from_parts`]). Decoding never panics: damaged
//! bytes fail the checksum, and a body that passes it is still decoded with a bound on
//! what bincode may allocate and checked as a whole.

use std::fmt;
use std::hash::Hasher;

use rustc_stable_hash::hashers::SipHasher128Hash;
use rustc_stable_hash::{FromStableHash, StableSipHasher128};
use serde::{Deserialize, Serialize};
use shared_frontend::sema::def::DefId;

use super::state::{LinkState, Slot};
use crate::blob::Relocation;

const MAGIC: [u8; 8] = *b"RILLLNK\x01";
/// The version of the format; bump it when the layout or meaning of a field changes.
const VERSION: u32 = 1;
const HEADER: usize = 48;

/// Why stored link state bytes were not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    TooShort,
    BadMagic,
    Version(u32),
    Length,
    Checksum,
    Body(String),
    Invalid(&'static str),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::TooShort => write!(f, "truncated"),
            DecodeError::BadMagic => write!(f, "not a link state"),
            DecodeError::Version(v) => write!(f, "format version {v}, expected {VERSION}"),
            DecodeError::Length => write!(f, "truncated or extended"),
            DecodeError::Checksum => write!(f, "checksum mismatch"),
            DecodeError::Body(e) => write!(f, "cannot decode: {e}"),
            DecodeError::Invalid(what) => write!(f, "inconsistent: {what}"),
        }
    }
}

impl std::error::Error for DecodeError {}

#[derive(Serialize, Deserialize)]
struct StoredSlot {
    #[serde(with = "crate::blob::def_id_bits")]
    def: DefId,
    offset: u32,
    len: u32,
    cap: u32,
    params: u32,
    #[serde(with = "crate::blob::reloc_records")]
    relocs: Vec<Relocation>,
    hash: u128,
}

#[derive(Serialize)]
struct StoredRef<'a> {
    #[serde(with = "crate::blob::byte_buf")]
    code: &'a [u8],
    slots: Vec<StoredSlotRef<'a>>,
    #[serde(with = "crate::blob::def_id_bits")]
    main: DefId,
    context: u64,
}

#[derive(Serialize)]
struct StoredSlotRef<'a> {
    #[serde(with = "crate::blob::def_id_bits")]
    def: DefId,
    offset: u32,
    len: u32,
    cap: u32,
    params: u32,
    #[serde(with = "crate::blob::reloc_records")]
    relocs: &'a [Relocation],
    hash: u128,
}

#[derive(Deserialize)]
struct Stored {
    #[serde(with = "crate::blob::byte_buf")]
    code: Vec<u8>,
    slots: Vec<StoredSlot>,
    #[serde(with = "crate::blob::def_id_bits")]
    main: DefId,
    context: u64,
}

struct Hash128(u128);

impl FromStableHash for Hash128 {
    type Hash = SipHasher128Hash;
    fn from(SipHasher128Hash(h): SipHasher128Hash) -> Self {
        Hash128(h[0] as u128 | ((h[1] as u128) << 64))
    }
}

fn checksum(bytes: &[u8]) -> u128 {
    let mut h = StableSipHasher128::new();
    h.write(bytes);
    h.finish::<Hash128>().0
}

impl LinkState {
    /// The state as bytes ([`LinkState::decode`] reads them back).
    pub fn encode(&self) -> Vec<u8> {
        let stored = StoredRef {
            code: &self.code,
            slots: self
                .slots
                .iter()
                .map(|s| StoredSlotRef {
                    def: s.def,
                    offset: s.offset,
                    len: s.len,
                    cap: s.cap,
                    params: s.params,
                    relocs: &s.relocs,
                    hash: s.hash,
                })
                .collect(),
            main: self.main,
            context: self.context as u64,
        };
        let mut out = vec![0u8; HEADER];
        // Encoding plain data into a vector cannot fail.
        let _ =
            bincode::serde::encode_into_std_write(&stored, &mut out, bincode::config::standard());
        let body_len = (out.len() - HEADER) as u64;
        let sum = checksum(&out[HEADER..]);
        out[0..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&VERSION.to_le_bytes());
        out[16..24].copy_from_slice(&body_len.to_le_bytes());
        out[24..40].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a state [`LinkState::encode`] wrote; any damage is an error.
    pub fn decode(bytes: &[u8]) -> Result<LinkState, DecodeError> {
        let Some((header, body)) = bytes.split_first_chunk::<HEADER>() else {
            return Err(DecodeError::TooShort);
        };
        if header[0..8] != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if version != VERSION {
            return Err(DecodeError::Version(version));
        }
        if header[12..16] != [0; 4] || header[40..48] != [0; 8] {
            return Err(DecodeError::Checksum);
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&header[16..24]);
        if u64::from_le_bytes(len) != body.len() as u64 {
            return Err(DecodeError::Length);
        }
        let mut sum = [0u8; 16];
        sum.copy_from_slice(&header[24..40]);
        if u128::from_le_bytes(sum) != checksum(body) {
            return Err(DecodeError::Checksum);
        }
        let (stored, read) = decode_bounded(body).map_err(|e| DecodeError::Body(e.to_string()))?;
        if read != body.len() {
            return Err(DecodeError::Invalid("bytes after the state"));
        }
        let slots = stored
            .slots
            .into_iter()
            .map(|s| Slot {
                def: s.def,
                offset: s.offset,
                len: s.len,
                cap: s.cap,
                params: s.params,
                relocs: s.relocs,
                hash: s.hash,
            })
            .collect();
        let context =
            usize::try_from(stored.context).map_err(|_| DecodeError::Invalid("context"))?;
        LinkState::from_parts(stored.code, slots, stored.main, context)
            .map_err(DecodeError::Invalid)
    }
}

/// Decodes with a limit on what bincode may claim (and so allocate) that grows with the
/// input: a valid encoding of `n` bytes claims at most `16 n` (a `u128` per varint byte),
/// and the limit is the first of 1 MiB, 64 MiB, 1 GiB and 64 GiB that covers that.
fn decode_bounded(body: &[u8]) -> Result<(Stored, usize), bincode::error::DecodeError> {
    use bincode::serde::decode_from_slice as decode;
    let c = bincode::config::standard();
    let need = body.len().saturating_mul(16).saturating_add(64);
    if need <= 1 << 20 {
        decode(body, c.with_limit::<{ 1 << 20 }>())
    } else if need <= 1 << 26 {
        decode(body, c.with_limit::<{ 1 << 26 }>())
    } else if need <= 1 << 30 {
        decode(body, c.with_limit::<{ 1 << 30 }>())
    } else {
        decode(body, c.with_limit::<{ 1 << 36 }>())
    }
}
