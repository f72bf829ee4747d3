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
    #[serde(with = "reloc_stream")]
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

/// Relocations as one byte buffer of variable-length entries (a `CodeBlob`'s serialized
/// form, what the query cache stores, and each slot's relocations in the link state),
/// where serde's derive would spend a struct, an enum and a variant per relocation to
/// encode, decode and fingerprint them, and fixed records 32 bytes on what is mostly 2.
/// An entry:
///
/// - a head byte: the target kind in bits 0–1 (0 function, 1 runtime entry, 2 context
///   word), the runtime entry's or context word's index in bits 2–5 (0 for a function),
///   bit 6 set when the addend is not -4 (the addend of every field code generation
///   writes), bit 7 zero;
/// - the offset, as the zigzag LEB128 varint of its difference from the previous entry's
///   offset (the first: from 0); relocations come in increasing order, so this is the
///   gap, mostly one byte;
/// - with bit 6, the addend as a zigzag varint;
/// - for a function: the call's argument count (varint), then the callee's def-path hash
///   (u128, little-endian).
///
/// Varints are canonical (no trailing zero groups) and in range, and the head byte's
/// unused bits are zero: anything else fails to decode, so every value has one encoding.
pub(crate) mod reloc_stream {
    use super::{ContextField, RelocTarget, Relocation, RuntimeFn};
    use serde::{de, Deserializer, Serializer};
    use shared_frontend::sema::def::DefPathHash;

    /// The addend that needs no bytes.
    const USUAL_ADDEND: i32 = -4;
    /// Head bit: an explicit addend follows the offset.
    const OTHER_ADDEND: u8 = 1 << 6;

    fn put_varint(out: &mut Vec<u8>, mut x: u64) {
        while x >= 0x80 {
            out.push(x as u8 | 0x80);
            x >>= 7;
        }
        out.push(x as u8);
    }

    fn zigzag(x: i64) -> u64 {
        ((x << 1) ^ (x >> 63)) as u64
    }

    fn unzigzag(x: u64) -> i64 {
        (x >> 1) as i64 ^ -((x & 1) as i64)
    }

    /// Reads a canonical LEB128 varint of at most 64 bits at `*at`, advancing it.
    fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *b.get(*at)?;
            *at += 1;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return None;
            }
            x |= bits << shift;
            if byte & 0x80 == 0 {
                // A last group of zero after others would be a second encoding.
                return (byte != 0 || shift == 0).then_some(x);
            }
        }
        None
    }

    /// Appends the entries of `relocs` to `out`.
    pub(crate) fn encode(relocs: &[Relocation], out: &mut Vec<u8>) {
        let mut prev = 0i64;
        for r in relocs {
            let (kind, index) = match r.target {
                RelocTarget::Function { .. } => (0u8, 0u8),
                RelocTarget::Runtime(f) => {
                    let i = RuntimeFn::ALL.iter().position(|&x| x == f).unwrap_or(0);
                    (1, i as u8)
                }
                RelocTarget::Context(c) => (2, c.index() as u8),
            };
            let other = r.addend != USUAL_ADDEND;
            out.push(kind | index << 2 | if other { OTHER_ADDEND } else { 0 });
            put_varint(out, zigzag(i64::from(r.offset) - prev));
            prev = i64::from(r.offset);
            if other {
                put_varint(out, zigzag(i64::from(r.addend)));
            }
            if let RelocTarget::Function { callee, args } = r.target {
                put_varint(out, u64::from(args));
                out.extend_from_slice(&{ callee.0 }.to_le_bytes());
            }
        }
    }

    /// The relocations of a buffer written by [`encode`]; `None` if it is malformed.
    pub(crate) fn decode(b: &[u8]) -> Option<Vec<Relocation>> {
        let mut out = Vec::new();
        let mut at = 0;
        let mut prev = 0i64;
        while at < b.len() {
            let head = b[at];
            at += 1;
            if head & 0x80 != 0 {
                return None;
            }
            let offset = prev.checked_add(unzigzag(varint(b, &mut at)?))?;
            let offset = u32::try_from(offset).ok()?;
            prev = i64::from(offset);
            let addend = if head & OTHER_ADDEND != 0 {
                let a = i32::try_from(unzigzag(varint(b, &mut at)?)).ok()?;
                // The usual addend has no explicit form.
                (a != USUAL_ADDEND).then_some(a)?
            } else {
                USUAL_ADDEND
            };
            let index = (head >> 2) & 0xf;
            let target = match head & 3 {
                0 if index == 0 => {
                    let args = u32::try_from(varint(b, &mut at)?).ok()?;
                    let callee = b.get(at..at.checked_add(16)?)?;
                    at += 16;
                    let mut x = [0u8; 16];
                    x.copy_from_slice(callee);
                    RelocTarget::Function {
                        callee: DefPathHash(u128::from_le_bytes(x)),
                        args,
                    }
                }
                1 => RelocTarget::Runtime(*RuntimeFn::ALL.get(index as usize)?),
                2 => RelocTarget::Context(match index {
                    0 => ContextField::Limit,
                    1 => ContextField::State,
                    _ => return None,
                }),
                _ => return None,
            };
            out.push(Relocation {
                offset,
                target,
                addend,
            });
        }
        Some(out)
    }

    pub fn serialize<S: Serializer>(relocs: &[Relocation], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(relocs.len() * 4);
        encode(relocs, &mut out);
        s.serialize_bytes(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Relocation>, D::Error> {
        let bytes = super::byte_buf::deserialize(d)?;
        decode(&bytes).ok_or_else(|| de::Error::custom("malformed relocations"))
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
    fn usual_relocations_take_a_few_bytes() {
        let relocs = [
            Relocation {
                offset: 10,
                target: RelocTarget::Context(ContextField::Limit),
                addend: -4,
            },
            Relocation {
                offset: 30,
                target: RelocTarget::Runtime(RuntimeFn::PrintI64),
                addend: -4,
            },
            Relocation {
                offset: 50,
                target: RelocTarget::Function {
                    callee: DefPathHash(u128::MAX - 1),
                    args: 2,
                },
                addend: -4,
            },
        ];
        let mut b = Vec::new();
        reloc_stream::encode(&relocs, &mut b);
        assert_eq!(b.len(), 2 + 2 + (2 + 1 + 16));
        assert_eq!(reloc_stream::decode(&b).as_deref(), Some(&relocs[..]));
    }

    #[test]
    fn malformed_relocations_do_not_decode() {
        #[derive(Serialize, Deserialize, Debug)]
        struct Relocs(#[serde(with = "reloc_stream")] Vec<Relocation>);
        let mut good = Vec::new();
        reloc_stream::encode(&blob().relocations, &mut good);
        assert_eq!(
            reloc_stream::decode(&good).as_deref(),
            Some(&blob().relocations[..])
        );
        let encoded = bincode::serde::encode_to_vec(Relocs(blob().relocations), config()).unwrap();
        let decode = |b: &[u8]| bincode::serde::decode_from_slice::<Relocs, _>(b, config());
        assert_eq!(decode(&encoded).unwrap().0 .0, blob().relocations);
        let bad: &[&[u8]] = &[
            // The head's high bit, kind 3, runtime entry 9, context word 2, a function
            // with an index.
            &[0x80, 0],
            &[3, 0],
            &[1 | 9 << 2, 0],
            &[2 | 2 << 2, 0],
            &[1 << 2, 0, 0],
            // An overlong offset, an offset below 0, one past u32, a cut varint.
            &[2, 0x80, 0],
            &[2, 1],
            &[2, 0x80, 0x80, 0x80, 0x80, 0x20],
            &[2, 0x80],
            // The usual addend written out, an addend past i32.
            &[2 | 1 << 6, 0, 7],
            &[2 | 1 << 6, 0, 0x80, 0x80, 0x80, 0x80, 0x10],
            // A function whose callee is cut short.
            &[0, 0, 0, 1, 2, 3],
        ];
        for b in bad {
            assert!(reloc_stream::decode(b).is_none(), "{b:?}");
        }
        // One good entry of each kind decodes.
        for b in [&[2u8, 0][..], &[1 | 8 << 2, 4], &[2 | 1 << 6, 2, 3]] {
            assert!(reloc_stream::decode(b).is_some(), "{b:?}");
        }
    }
}
