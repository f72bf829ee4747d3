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
    #[serde(with = "reloc_records")]
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
pub(crate) mod byte_buf {
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

/// Relocations as one byte buffer of fixed 32-byte records, where serde's derive would
/// spend a struct, an enum and a variant per relocation to encode, decode and fingerprint
/// them. A record: offset (u32), addend (i32), target kind (0 function, 1 runtime entry,
/// 2 context word), the entry's or word's index, two zero bytes, the call's argument count
/// (u32) and the callee's def-path hash (u128), little-endian; fields a kind does not use
/// are zero. Anything else fails to decode.
pub(crate) mod reloc_records {
    use super::{ContextField, RelocTarget, Relocation, RuntimeFn};
    use serde::{de, Deserializer, Serializer};
    use shared_frontend::sema::def::DefPathHash;

    /// The size of one record.
    pub(crate) const RECORD: usize = 32;

    /// Appends `r`'s record to `out`.
    pub(crate) fn encode(r: &Relocation, out: &mut Vec<u8>) {
        let (kind, index, args, callee) = match r.target {
            RelocTarget::Function { callee, args } => (0u8, 0u8, args, callee.0),
            RelocTarget::Runtime(f) => {
                let i = RuntimeFn::ALL.iter().position(|&x| x == f).unwrap_or(0);
                (1, i as u8, 0, 0)
            }
            RelocTarget::Context(c) => (2, c.index() as u8, 0, 0),
        };
        out.extend_from_slice(&r.offset.to_le_bytes());
        out.extend_from_slice(&r.addend.to_le_bytes());
        out.extend_from_slice(&[kind, index, 0, 0]);
        out.extend_from_slice(&args.to_le_bytes());
        out.extend_from_slice(&callee.to_le_bytes());
    }

    /// The relocation of a record of [`RECORD`] bytes; `None` if it is malformed.
    pub(crate) fn decode(b: &[u8]) -> Option<Relocation> {
        let u32_at = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let mut callee = [0u8; 16];
        callee.copy_from_slice(&b[16..32]);
        let callee = u128::from_le_bytes(callee);
        let (args, index) = (u32_at(12), b[9]);
        if b[10..12] != [0, 0] {
            return None;
        }
        let target = match b[8] {
            0 if index == 0 => RelocTarget::Function {
                callee: DefPathHash(callee),
                args,
            },
            1 if args == 0 && callee == 0 => {
                RelocTarget::Runtime(*RuntimeFn::ALL.get(index as usize)?)
            }
            2 if args == 0 && callee == 0 => RelocTarget::Context(match index {
                0 => ContextField::Limit,
                1 => ContextField::State,
                _ => return None,
            }),
            _ => return None,
        };
        Some(Relocation {
            offset: u32_at(0),
            target,
            addend: u32_at(4) as i32,
        })
    }

    pub fn serialize<S: Serializer>(relocs: &[Relocation], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(relocs.len() * RECORD);
        for r in relocs {
            encode(r, &mut out);
        }
        s.serialize_bytes(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Relocation>, D::Error> {
        let bytes = super::byte_buf::deserialize(d)?;
        if bytes.len() % RECORD != 0 {
            return Err(de::Error::custom("relocation records of the wrong length"));
        }
        bytes
            .chunks_exact(RECORD)
            .map(|b| decode(b).ok_or_else(|| de::Error::custom("malformed relocation record")))
            .collect()
    }
}

pub(crate) mod def_id_bits {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use shared_frontend::sema::def::{DefId, DefPathHash};

    pub fn serialize<S: Serializer>(d: &DefId, s: S) -> Result<S::Ok, S::Error> {
        { d.0 }.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DefId, D::Error> {
        u128::deserialize(d).map(DefPathHash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared_frontend::sema::def::DefPathHash;

    fn config() -> bincode::config::Configuration {
        bincode::config::standard()
    }

    #[test]
    fn bytes_encode_as_a_sequence_would() {
        #[derive(Serialize)]
        struct AsBytes<'a>(#[serde(with = "byte_buf")] &'a Vec<u8>);
        #[derive(Serialize)]
        struct AsSequence<'a>(&'a Vec<u8>);
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 31 + 7) as u8).collect();
        assert_eq!(
            bincode::serde::encode_to_vec(AsBytes(&bytes), config()).unwrap(),
            bincode::serde::encode_to_vec(AsSequence(&bytes), config()).unwrap()
        );
    }

    fn blob() -> CodeBlob {
        let mut relocations: Vec<Relocation> = RuntimeFn::ALL
            .iter()
            .enumerate()
            .map(|(i, &f)| Relocation {
                offset: i as u32 * 5,
                target: RelocTarget::Runtime(f),
                addend: -4,
            })
            .collect();
        for (i, c) in [ContextField::Limit, ContextField::State]
            .into_iter()
            .enumerate()
        {
            relocations.push(Relocation {
                offset: 100 + i as u32,
                target: RelocTarget::Context(c),
                addend: i32::MIN,
            });
        }
        relocations.push(Relocation {
            offset: u32::MAX,
            target: RelocTarget::Function {
                callee: DefPathHash(u128::MAX - 12345),
                args: 7,
            },
            addend: i32::MAX,
        });
        CodeBlob {
            bytes: (0..1000u32).map(|i| (i * 31 + 7) as u8).collect(),
            code_len: 600,
            data: vec![(608, 16), (624, 300)],
            params: 3,
            relocations,
        }
    }

    #[test]
    fn blobs_with_every_kind_of_relocation_round_trip() {
        let blob = blob();
        let encoded = bincode::serde::encode_to_vec(&blob, config()).unwrap();
        let (decoded, read): (CodeBlob, usize) =
            bincode::serde::decode_from_slice(&encoded, config()).unwrap();
        assert_eq!(read, encoded.len());
        assert_eq!(decoded, blob);
    }

    #[test]
    fn malformed_relocation_records_do_not_decode() {
        #[derive(Serialize, Deserialize, Debug)]
        struct Relocs(#[serde(with = "reloc_records")] Vec<Relocation>);
        let good = bincode::serde::encode_to_vec(Relocs(blob().relocations), config()).unwrap();
        let decode = |b: &[u8]| bincode::serde::decode_from_slice::<Relocs, _>(b, config());
        assert!(decode(&good).is_ok());
        // The records are the encoding's last bytes, after their length.
        let start = good.len() - blob().relocations.len() * 32;
        for (field, value) in [(8, 3u8), (9, 200), (10, 1), (11, 1)] {
            let mut bad = good.clone();
            bad[start + field] = value;
            assert!(decode(&bad).is_err(), "byte {field} = {value}");
        }
        // A runtime entry with a callee.
        let mut bad = good.clone();
        bad[start + 31] = 1;
        assert!(decode(&bad).is_err());
    }
}
