//! The output of per-function code generation: a [`CodeBlob`] of position-independent
//! machine code followed by the function's read-only data, and the relocations that the
//! linker patches. Everything here is plain data (serde-serializable), so blobs can be
//! cached on disk and compared byte for byte.

use serde::{Deserialize, Serialize};
use shared_frontend::sema::def::DefId;

/// The machine code of one function, then its read-only data blobs (each 16-byte aligned
/// relative to the blob start; the linker places blobs at 16-byte aligned addresses).
///
/// Code refers to its own data RIP-relatively, so data needs no relocation. Everything
/// outside the blob (other functions, runtime entry points, the run context) is reached
/// through a [`Relocation`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CodeBlob {
    #[serde(with = "byte_buf")]
    pub bytes: Vec<u8>,
    /// `bytes[..code_len]` is code, the rest data.
    pub code_len: u32,
    /// Offset and length in `bytes` of the function's data blobs, by `DataId`.
    pub data: Vec<(u32, u32)>,
    /// The number of parameters the function takes (the `sret` address included).
    pub params: u32,
    pub relocations: Vec<Relocation>,
}

/// A 32-bit PC-relative field at `offset` in the blob: the linker writes
/// `S + addend - P` there, where `S` is the target's address and `P` the field's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Relocation {
    pub offset: u32,
    pub target: RelocTarget,
    pub addend: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RelocTarget {
    /// The entry of another function (a `call rel32`), with the number of arguments the
    /// call passes (checked against the callee's parameter count at link time).
    Function {
        #[serde(with = "def_id_bits")]
        callee: DefId,
        args: u32,
    },
    /// The slot of a runtime entry point in the image's indirection table
    /// (`call qword [rip + slot]`).
    Runtime(RuntimeFn),
    /// A word of the run context (`cmp rsp, [rip + limit]`, `mov rdi, [rip + state]`).
    Context(ContextField),
}

/// Runtime entry points (System V calls; the first argument is always the run state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RuntimeFn {
    /// `(state, ptr, len)`
    PrintStr,
    /// `(state, value)`
    PrintI64,
    /// `(state, value)`
    PrintU64,
    /// `(state, value)` prints `true` for non-zero.
    PrintBool,
    /// `(state, kind)` with `kind` from [`panic_code`]; never returns.
    Panic,
    /// `(state, index, len, index_is_signed)`; never returns.
    PanicBounds,
    /// `(state, fn_name_ptr, fn_name_len, block)`; never returns.
    Unreachable,
    /// `(state)`: the stack limit or the interrupt check failed; never returns.
    Limit,
    /// `(state, msg_ptr, msg_len)`: malformed IR; never returns.
    InternalError,
}

impl RuntimeFn {
    pub const ALL: [RuntimeFn; 9] = [
        RuntimeFn::PrintStr,
        RuntimeFn::PrintI64,
        RuntimeFn::PrintU64,
        RuntimeFn::PrintBool,
        RuntimeFn::Panic,
        RuntimeFn::PanicBounds,
        RuntimeFn::Unreachable,
        RuntimeFn::Limit,
        RuntimeFn::InternalError,
    ];

    /// The name listings use (`call [rel rt_print_i64]`).
    pub fn name(self) -> &'static str {
        match self {
            RuntimeFn::PrintStr => "rt_print_str",
            RuntimeFn::PrintI64 => "rt_print_i64",
            RuntimeFn::PrintU64 => "rt_print_u64",
            RuntimeFn::PrintBool => "rt_print_bool",
            RuntimeFn::Panic => "rt_panic",
            RuntimeFn::PanicBounds => "rt_panic_bounds",
            RuntimeFn::Unreachable => "rt_unreachable",
            RuntimeFn::Limit => "rt_limit",
            RuntimeFn::InternalError => "rt_internal_error",
        }
    }
}

/// Words of the run context, a read-write (never executable) page after the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ContextField {
    /// The lowest `rsp` JIT code may run at; `u64::MAX` once an interrupt is requested.
    Limit,
    /// The run state pointer passed to runtime entry points.
    State,
}

impl ContextField {
    pub fn name(self) -> &'static str {
        match self {
            ContextField::Limit => "ctx_stack_limit",
            ContextField::State => "ctx_state",
        }
    }

    /// Index of the word in the context page.
    pub fn index(self) -> usize {
        match self {
            ContextField::Limit => 0,
            ContextField::State => 1,
        }
    }
}

/// The `kind` argument of [`RuntimeFn::Panic`].
pub fn panic_code(kind: &shared_frontend::ir::PanicKind) -> u32 {
    use shared_frontend::ir::PanicKind;
    match kind {
        PanicKind::DivByZero => 0,
        PanicKind::RemByZero => 1,
        PanicKind::DivOverflow => 2,
        PanicKind::RemOverflow => 3,
        PanicKind::IndexOutOfBounds { .. } => 4,
    }
}

/// `Vec<u8>` as serde bytes: one length and one copy, where a sequence of `u8` costs a call
/// per byte to encode, decode and fingerprint. bincode encodes both the same way (a length,
/// then the bytes), and so does the fingerprint stream, so caches and fingerprints written
/// either way agree.
mod byte_buf {
    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct BytesVisitor;

        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = Vec<u8>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte buffer")
            }

            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }

            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }

            /// Formats without a bytes type (JSON, say) write a sequence of numbers.
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(out)
            }
        }

        d.deserialize_byte_buf(BytesVisitor)
    }
}

mod def_id_bits {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use shared_frontend::sema::def::{DefId, DefPathHash};

    pub fn serialize<S: Serializer>(d: &DefId, s: S) -> Result<S::Ok, S::Error> {
        d.0.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DefId, D::Error> {
        u128::deserialize(d).map(DefPathHash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout `CodeBlob` had with its bytes as a plain sequence.
    #[derive(Serialize)]
    struct AsSequence<'a> {
        bytes: &'a Vec<u8>,
        code_len: u32,
        data: &'a Vec<(u32, u32)>,
        params: u32,
        relocations: &'a Vec<Relocation>,
    }

    #[test]
    fn bytes_encode_as_a_sequence_would_and_round_trip() {
        let blob = CodeBlob {
            bytes: (0..1000u32).map(|i| (i * 31 + 7) as u8).collect(),
            code_len: 600,
            data: vec![(608, 16), (624, 300)],
            params: 3,
            relocations: vec![Relocation {
                offset: 12,
                target: RelocTarget::Runtime(RuntimeFn::PrintI64),
                addend: -4,
            }],
        };
        let config = bincode::config::standard();
        let encoded = bincode::serde::encode_to_vec(&blob, config).unwrap();
        let seq = AsSequence {
            bytes: &blob.bytes,
            code_len: blob.code_len,
            data: &blob.data,
            params: blob.params,
            relocations: &blob.relocations,
        };
        assert_eq!(encoded, bincode::serde::encode_to_vec(&seq, config).unwrap());
        let (decoded, read): (CodeBlob, usize) =
            bincode::serde::decode_from_slice(&encoded, config).unwrap();
        assert_eq!(read, encoded.len());
        assert_eq!(decoded, blob);
    }
}
