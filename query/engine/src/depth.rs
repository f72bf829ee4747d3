//! A nesting limit for decoding: a serde `Deserializer` wrapper that counts how deeply
//! the value being decoded nests and fails past a limit.
//!
//! Cached values are recursive (types of arrays of arrays, constant values, syntax trees
//! of nested modules). bincode is not self-describing, so a forged cache file (its
//! checksum recomputed) can describe a value a million levels deep in a few megabytes;
//! decoding it would recurse a million times and overflow the stack, and even a value
//! decoded on a grown stack would overflow it again when dropped. Every `deserialize_*`
//! call of a value that can contain others (a sequence, map, struct, enum, option or
//! newtype) goes through [`Limited`], which counts the calls in progress, fails with a
//! decode error past [`MAX_DECODE_DEPTH`], and runs the inner call on a grown stack when
//! little is left (so the limit, not the thread's stack size, decides). Leaves are
//! forwarded uncounted: they cannot nest.
//!
//! The wrapper forwards everything else unchanged, so what decodes is exactly what the
//! plain bincode decoder accepts, up to the limit.

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use std::cell::Cell;
use std::fmt;

/// How many `deserialize_*` calls of containers may be in progress at once while decoding
/// one value.
///
/// A level of a Rill type (`[T; N]`) costs one, of a constant value two, of an inline
/// module a few; the language nests at most `MAX_NESTING` (256) levels in an item and 64
/// modules, so valid caches stay far below. (A type built from a chain of more than about
/// 4 000 type aliases would exceed it: its cached value is then recomputed, with a
/// warning, never misread.)
pub const MAX_DECODE_DEPTH: usize = 4096;

/// Decodes a `T` through `inner` with at most `limit` nested `deserialize_*` calls.
pub(crate) fn deserialize_limited<'de, T, D>(inner: D, limit: usize) -> Result<T, D::Error>
where
    T: de::Deserialize<'de>,
    D: Deserializer<'de>,
{
    let depth = Depth {
        now: Cell::new(0),
        limit,
    };
    T::deserialize(Limited {
        inner,
        depth: &depth,
    })
}

/// A seed that decodes a `T` with the nesting limit (for bincode's seed entry point).
pub(crate) struct LimitedSeed<T> {
    pub limit: usize,
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<T> LimitedSeed<T> {
    pub fn new(limit: usize) -> Self {
        LimitedSeed {
            limit,
            marker: std::marker::PhantomData,
        }
    }
}

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for LimitedSeed<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        deserialize_limited(d, self.limit)
    }
}

struct Depth {
    now: Cell<usize>,
    limit: usize,
}

/// How many nesting levels may pass between two stack checks (the red zone of
/// `ensure_sufficient_stack` is 128 KiB; a decoding level uses a few hundred bytes).
const STACK_CHECK_EVERY: usize = 8;

impl Depth {
    /// Runs `f` one level deeper, or fails past the limit.
    fn nest<R, E: de::Error>(&self, f: impl FnOnce() -> Result<R, E>) -> Result<R, E> {
        let now = self.now.get();
        if now >= self.limit {
            return Err(E::custom(format_args!(
                "the value nests more than {} levels deep",
                self.limit
            )));
        }
        self.now.set(now + 1);
        // The stack is checked every `STACK_CHECK_EVERY` levels: a level takes far less
        // than the red zone divided by that, and the check costs more than most levels.
        let r = if now % STACK_CHECK_EVERY == 0 {
            crate::execute::ensure_sufficient_stack(f)
        } else {
            f()
        };
        self.now.set(now);
        r
    }
}

/// A deserializer that counts nesting.
struct Limited<'d, D> {
    inner: D,
    depth: &'d Depth,
}

/// A visitor whose nested deserializers count nesting.
struct LVisitor<'d, V> {
    inner: V,
    depth: &'d Depth,
}

/// A seed whose deserializer counts nesting.
struct LSeed<'d, S> {
    inner: S,
    depth: &'d Depth,
}

/// Sequence, map, enum and variant accesses whose seeds count nesting.
struct LAccess<'d, A> {
    inner: A,
    depth: &'d Depth,
}

macro_rules! forward_deserialize {
    ($($name:ident ( $($arg:ident : $t:ty),* );)*) => {$(
        fn $name<V: Visitor<'de>>(self, $($arg: $t,)* visitor: V) -> Result<V::Value, D::Error> {
            let depth = self.depth;
            let inner = self.inner;
            depth.nest(|| inner.$name($($arg,)* LVisitor { inner: visitor, depth }))
        }
    )*};
}

/// Leaves (numbers, strings, bytes, unit) cannot contain a value: they are forwarded
/// without counting a level or checking the stack, which costs more than decoding them.
/// Their visitor is still wrapped, so that a format that answers a leaf with a sequence or
/// a map counts the levels inside it (a leaf adds at most one uncounted level between
/// counted ones).
macro_rules! forward_leaf {
    ($($name:ident ( $($arg:ident : $t:ty),* );)*) => {$(
        #[inline]
        fn $name<V: Visitor<'de>>(self, $($arg: $t,)* visitor: V) -> Result<V::Value, D::Error> {
            let depth = self.depth;
            self.inner.$name($($arg,)* LVisitor { inner: visitor, depth })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Limited<'_, D> {
    type Error = D::Error;

    forward_leaf! {
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_identifier();
    }

    forward_deserialize! {
        deserialize_any();
        deserialize_option();
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($name:ident ( $t:ty );)*) => {$(
        fn $name<E: de::Error>(self, v: $t) -> Result<V::Value, E> {
            self.inner.$name(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for LVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Limited {
            inner: d,
            depth: self.depth,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Limited {
            inner: d,
            depth: self.depth,
        })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(LAccess {
            inner: seq,
            depth: self.depth,
        })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(LAccess {
            inner: map,
            depth: self.depth,
        })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(LAccess {
            inner: data,
            depth: self.depth,
        })
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for LSeed<'_, S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Limited {
            inner: d,
            depth: self.depth,
        })
    }
}

impl<'d, 'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for LAccess<'d, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.inner.next_element_seed(LSeed {
            inner: seed,
            depth: self.depth,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'d, 'de, A: de::MapAccess<'de>> de::MapAccess<'de> for LAccess<'d, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.inner.next_key_seed(LSeed {
            inner: seed,
            depth: self.depth,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.inner.next_value_seed(LSeed {
            inner: seed,
            depth: self.depth,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'d, 'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for LAccess<'d, A> {
    type Error = A::Error;
    type Variant = LAccess<'d, A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let depth = self.depth;
        let (value, variant) = self.inner.variant_seed(LSeed { inner: seed, depth })?;
        Ok((
            value,
            LAccess {
                inner: variant,
                depth,
            },
        ))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for LAccess<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.inner.newtype_variant_seed(LSeed {
            inner: seed,
            depth: self.depth,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let depth = self.depth;
        self.inner.tuple_variant(
            len,
            LVisitor {
                inner: visitor,
                depth,
            },
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let depth = self.depth;
        self.inner.struct_variant(
            fields,
            LVisitor {
                inner: visitor,
                depth,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    enum Nest {
        Leaf(u64),
        Array(Arc<Nest>, u64),
        List(Vec<Nest>),
        Opt(Option<Box<Nest>>),
        Named { inner: Box<Nest> },
    }

    fn decode(bytes: &[u8], limit: usize) -> Result<Nest, String> {
        bincode::serde::seed_decode_from_slice(
            LimitedSeed::<Nest>::new(limit),
            bytes,
            bincode::config::standard(),
        )
        .map(|(v, _)| v)
        .map_err(|e| e.to_string())
    }

    fn nested(depth: usize) -> Nest {
        let mut v = Nest::Leaf(7);
        for i in 0..depth {
            v = match i % 4 {
                0 => Nest::Array(Arc::new(v), i as u64),
                1 => Nest::List(vec![Nest::Leaf(1), v]),
                2 => Nest::Opt(Some(Box::new(v))),
                _ => Nest::Named { inner: Box::new(v) },
            };
        }
        v
    }

    #[test]
    fn values_within_the_limit_round_trip() {
        let v = nested(200);
        let bytes = bincode::serde::encode_to_vec(&v, bincode::config::standard()).unwrap();
        assert_eq!(decode(&bytes, MAX_DECODE_DEPTH), Ok(v));
    }

    #[test]
    fn deeper_values_are_an_error() {
        let v = nested(200);
        let bytes = bincode::serde::encode_to_vec(&v, bincode::config::standard()).unwrap();
        let err = decode(&bytes, 100).unwrap_err();
        assert!(err.contains("nests more than 100 levels"), "{err}");
    }

    #[test]
    fn a_forged_million_levels_is_an_error_not_a_stack_overflow() {
        // `Array(Array(Array(...)))`: variant 1, then the inner value; never terminated.
        let bytes = vec![1u8; 1_000_000];
        let err = decode(&bytes, MAX_DECODE_DEPTH).unwrap_err();
        assert!(err.contains("nests more than"), "{err}");
    }
}
