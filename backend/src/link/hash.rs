//! The parts of [`Image::hash`](super::Image::hash): one stable 128-bit hash per function
//! and one of the entry point, combined by wrapping addition. Addition is commutative, so
//! link order does not matter, and invertible, so a patch replaces one function's part
//! without looking at the others. Each part hashes a domain tag first, so a function's
//! part never equals the entry point's by construction of the input.

use std::hash::Hasher;

use rustc_stable_hash::hashers::SipHasher128Hash;
use rustc_stable_hash::{FromStableHash, StableSipHasher128};
use shared_frontend::sema::def::DefId;

use crate::blob::{CodeBlob, RelocTarget};

struct Hash128(u128);

impl FromStableHash for Hash128 {
    type Hash = SipHasher128Hash;
    fn from(SipHasher128Hash(h): SipHasher128Hash) -> Self {
        Hash128(h[0] as u128 | ((h[1] as u128) << 64))
    }
}

/// The part of the image hash of function `def` with code `blob`: the def-id and the blob
/// as code generation produced it (its bytes before patching, code length, data ranges,
/// parameter count and symbolic relocations).
pub fn function_hash(def: DefId, blob: &CodeBlob) -> u128 {
    let mut h = StableSipHasher128::new();
    h.write(b"fn");
    h.write_u128(def.0);
    h.write_u64(blob.bytes.len() as u64);
    h.write(&blob.bytes);
    h.write_u32(blob.code_len);
    h.write_u64(blob.data.len() as u64);
    for &(off, len) in &blob.data {
        h.write_u32(off);
        h.write_u32(len);
    }
    h.write_u32(blob.params);
    h.write_u64(blob.relocations.len() as u64);
    for r in &blob.relocations {
        h.write_u32(r.offset);
        h.write_i32(r.addend);
        match r.target {
            RelocTarget::Function { callee, args } => {
                h.write_u8(0);
                h.write_u128(callee.0);
                h.write_u32(args);
            }
            RelocTarget::Runtime(f) => {
                h.write_u8(1);
                h.write_u8(super::runtime_index(f) as u8);
            }
            RelocTarget::Context(c) => {
                h.write_u8(2);
                h.write_u8(c.index() as u8);
            }
        }
    }
    h.finish::<Hash128>().0
}

/// The part of the image hash of the entry point `main`.
pub fn entry_hash(main: DefId) -> u128 {
    let mut h = StableSipHasher128::new();
    h.write(b"main");
    h.write_u128(main.0);
    h.finish::<Hash128>().0
}
