//! Stable hashing through `serde::Serialize`: a serializer that feeds every primitive it is
//! given to a [`StableHasher`] instead of writing bytes.
//!
//! Types that already describe themselves to serde (a syntax tree, a typed tree, IR) get a
//! fingerprint without a hand-written [`crate::StableHash`] impl for every node type. The
//! stream is unambiguous the way a binary encoding is: enum variants by index, sequences
//! and maps by length, strings by length and bytes. Only what the value serializes is
//! hashed: a `Serialize` impl that writes a process-local index (an interned symbol's
//! number, a pointer) would break stability, so such types serialize their content (an
//! interned symbol serializes its text). Maps must serialize in a stable order (not a
//! `HashMap` whose order depends on interned indices).

use crate::hasher::StableHasher;
use serde::ser::{self, Serialize};
use std::fmt;

/// Feeds `value`'s serde serialization to `hasher`.
pub fn hash_serde<T: Serialize + ?Sized>(value: &T, hasher: &mut StableHasher) {
    // The serializer itself never fails; a `Serialize` impl that reports an error feeds
    // a marker instead, so the fingerprint still differs from a successful value.
    if value.serialize(HashSer(hasher)).is_err() {
        hasher.write_u64(0xdead_beef_0bad_cafe);
    }
}

/// The serializer: a thin wrapper over the hasher.
struct HashSer<'a>(&'a mut StableHasher);

/// Never produced by [`HashSer`] itself; required by serde for custom errors.
#[derive(Debug)]
struct HashError;

impl fmt::Display for HashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value failed to serialize while being hashed")
    }
}

impl std::error::Error for HashError {}

impl ser::Error for HashError {
    fn custom<T: fmt::Display>(_: T) -> Self {
        HashError
    }
}

type R = Result<(), HashError>;

impl<'a> ser::Serializer for HashSer<'a> {
    type Ok = ();
    type Error = HashError;
    type SerializeSeq = HashSer<'a>;
    type SerializeTuple = HashSer<'a>;
    type SerializeTupleStruct = HashSer<'a>;
    type SerializeTupleVariant = HashSer<'a>;
    type SerializeMap = HashSer<'a>;
    type SerializeStruct = HashSer<'a>;
    type SerializeStructVariant = HashSer<'a>;

    fn serialize_bool(self, v: bool) -> R {
        self.0.write_u8(v as u8);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> R {
        self.0.write_u8(v as u8);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> R {
        self.0.write_u16(v as u16);
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> R {
        self.0.write_u32(v as u32);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> R {
        self.0.write_u64(v as u64);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> R {
        self.0.write_u128(v as u128);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> R {
        self.0.write_u8(v);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> R {
        self.0.write_u16(v);
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> R {
        self.0.write_u32(v);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> R {
        self.0.write_u64(v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> R {
        self.0.write_u128(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> R {
        self.0.write_u32(v.to_bits());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> R {
        self.0.write_u64(v.to_bits());
        Ok(())
    }
    fn serialize_char(self, v: char) -> R {
        self.0.write_u32(v as u32);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> R {
        self.0.write_usize(v.len());
        self.0.write_bytes(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> R {
        self.0.write_usize(v.len());
        self.0.write_bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> R {
        self.0.write_u8(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> R {
        self.0.write_u8(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> R {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> R {
        self.0.write_u32(index);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> R {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> R {
        self.0.write_u32(index);
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, HashError> {
        // Sequences of unknown length are closed with an end marker instead.
        self.0.write_u64(len.map_or(u64::MAX, |l| l as u64));
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, HashError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, HashError> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, HashError> {
        self.0.write_u32(index);
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, HashError> {
        self.0.write_u64(len.map_or(u64::MAX, |l| l as u64));
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, HashError> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, HashError> {
        self.0.write_u32(index);
        Ok(self)
    }
}

impl HashSer<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> R {
        value.serialize(HashSer(self.0))
    }
}

/// The compound serializers: every element (field, key, value) is fed in order; names are
/// not (the shape is fixed by the type).
macro_rules! compound {
    ($($trait:ident :: $method:ident ($($name:ty)?)),* $(,)?) => {$(
        impl ser::$trait for HashSer<'_> {
            type Ok = ();
            type Error = HashError;
            fn $method<T: Serialize + ?Sized>(&mut self, $(_: $name,)? value: &T) -> R {
                self.element(value)
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    )*};
}

compound!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(&'static str),
    SerializeStructVariant::serialize_field(&'static str),
);

impl ser::SerializeMap for HashSer<'_> {
    type Ok = ();
    type Error = HashError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R {
        self.element(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> R {
        self.element(value)
    }
    fn end(self) -> R {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::hash_serde;
    use crate::hasher::{HasherKind, StableHasher};
    use crate::Fingerprint;

    fn fp<T: serde::Serialize>(v: &T) -> Fingerprint {
        let mut h = StableHasher::new(HasherKind::default());
        hash_serde(v, &mut h);
        h.finish()
    }

    #[derive(serde::Serialize)]
    enum E {
        A(u8),
        B(u8),
        C { x: String },
    }

    #[test]
    fn distinguishes_what_a_binary_encoding_distinguishes() {
        // Variant index, string boundaries, sequence lengths and options all count.
        assert_ne!(fp(&E::A(1)), fp(&E::B(1)));
        assert_ne!(fp(&("ab", "c")), fp(&("a", "bc")));
        assert_ne!(
            fp(&(vec![1u8], vec![2u8])),
            fp(&(vec![1u8, 2], Vec::<u8>::new()))
        );
        assert_ne!(fp(&Some(0u8)), fp(&None::<u8>));
        assert_ne!(fp(&E::C { x: "x".into() }), fp(&E::C { x: "y".into() }));
        assert_eq!(fp(&E::C { x: "x".into() }), fp(&E::C { x: "x".into() }));
    }
}
