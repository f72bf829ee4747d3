//! Identity of items: def-paths and their stable 128-bit hashes.
//!
//! An item is named by its def-path (`crate::geometry::area::rect`, with the namespace of
//! each segment), and identified by the 128-bit stable hash of that path. The hash is the
//! same in every process and on every machine, so it can be written to disk and used as
//! the key of cached results (DESIGN.md invariant 4). Within one run it doubles as the
//! item's [`DefId`].

use std::fmt;
use std::hash::Hasher;

use rustc_stable_hash::hashers::{SipHasher128Hash, StableSipHasher128};
use rustc_stable_hash::FromStableHash;

use crate::intern::Symbol;

/// The stable hash of a def-path.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
// Aligned to 8 bytes rather than a `u128`'s 16, so that the types, resolutions and IR
// values holding one stay small.
#[repr(Rust, packed(8))]
pub struct DefPathHash(pub u128);

/// Items are identified by their def-path hash.
pub type DefId = DefPathHash;

impl fmt::Debug for DefPathHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DefPathHash({:032x})", { self.0 })
    }
}

impl fmt::Display for DefPathHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", { self.0 })
    }
}

struct Hash128(u128);

impl FromStableHash for Hash128 {
    type Hash = SipHasher128Hash;
    fn from(SipHasher128Hash(h): SipHasher128Hash) -> Hash128 {
        Hash128(((h[1] as u128) << 64) | h[0] as u128)
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    /// Structs, type aliases, modules (and the primitive types).
    Type,
    /// Functions and constants (and locals, inside bodies).
    Value,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    Mod,
    Fn,
    Const,
    Struct,
    TypeAlias,
}

impl DefKind {
    pub fn namespace(self) -> Namespace {
        match self {
            DefKind::Mod | DefKind::Struct | DefKind::TypeAlias => Namespace::Type,
            DefKind::Fn | DefKind::Const => Namespace::Value,
        }
    }

    /// The word rustc uses for the kind in messages (`function`, `constant`, …).
    pub fn descr(self) -> &'static str {
        match self {
            DefKind::Mod => "module",
            DefKind::Fn => "function",
            DefKind::Const => "constant",
            DefKind::Struct => "struct",
            DefKind::TypeAlias => "type alias",
        }
    }
}

/// One segment of a def-path. The disambiguator tells apart items of one name and
/// namespace in one module (only possible in erroneous programs: duplicates).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DefPathSegment {
    pub ns: Namespace,
    pub name: Symbol,
    pub disambiguator: u32,
}

/// The path of an item from the crate root; empty for the root module.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DefPath {
    pub segments: Vec<DefPathSegment>,
}

impl DefPath {
    pub fn root() -> DefPath {
        DefPath::default()
    }

    pub fn child(&self, segment: DefPathSegment) -> DefPath {
        // Sized for the new segment: a clone then a push would reallocate.
        let mut segments = Vec::with_capacity(self.segments.len() + 1);
        segments.extend_from_slice(&self.segments);
        segments.push(segment);
        DefPath { segments }
    }

    /// The stable hash: SipHasher128 over the namespaces, names (as text) and
    /// disambiguators, never over interned indices.
    pub fn hash(&self) -> DefPathHash {
        let mut h = StableSipHasher128::new();
        h.write(b"crate");
        for seg in &self.segments {
            h.write_u8(match seg.ns {
                Namespace::Type => 0,
                Namespace::Value => 1,
            });
            let name = seg.name.as_str();
            h.write_usize(name.len());
            h.write(name.as_bytes());
            h.write_u32(seg.disambiguator);
        }
        DefPathHash(h.finish::<Hash128>().0)
    }

    /// The path as [`fmt::Display`] writes it, built in one allocation of its exact
    /// length: every function's IR carries its path as its name, and formatting it
    /// segment by segment through `write!` cost some 1,500 instructions a function.
    pub fn text(&self) -> String {
        let len = "crate".len()
            + self
                .segments
                .iter()
                .map(|seg| 2 + seg.name.as_str().len())
                .sum::<usize>();
        let mut out = String::with_capacity(len);
        // Writing to a `String` cannot fail; a disambiguator (duplicates only, an
        // erroneous program) may grow the text.
        let _ = self.write_to(&mut out);
        out
    }

    /// Writes the path piece by piece (the one statement of its text).
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        out.write_str("crate")?;
        for seg in &self.segments {
            out.write_str("::")?;
            out.write_str(seg.name.as_str())?;
            if seg.disambiguator != 0 {
                write!(out, "#{}", seg.disambiguator)?;
            }
        }
        Ok(())
    }
}

/// `crate::geometry::area::rect` (disambiguators shown as `#n` when non-zero).
impl fmt::Display for DefPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// Visibility of an item, a `use` binding or a field, resolved to the module it is
/// restricted to.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vis {
    Public,
    /// Visible in this module and its descendants.
    Restricted(DefId),
}

/// What a path resolves to.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Res {
    Def(DefKind, DefId),
    /// `i32`, `i64`, `u64`, `usize`.
    PrimInt(crate::sema::ty::IntTy),
    /// `bool`
    PrimBool,
    /// `i64::MAX`, `u64::MIN`, … (also through an alias of an integer type).
    IntConst(crate::sema::ty::IntTy, IntConstKind),
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntConstKind {
    Min,
    Max,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn def_path_hash_depends_on_text_and_namespace_only() {
        let seg = |ns, name: &str| DefPathSegment {
            ns,
            name: Symbol::intern(name),
            disambiguator: 0,
        };
        let a = DefPath::root()
            .child(seg(Namespace::Type, "geometry"))
            .child(seg(Namespace::Value, "area"));
        let b = DefPath::root()
            .child(seg(Namespace::Type, "geometry"))
            .child(seg(Namespace::Value, "area"));
        let c = DefPath::root()
            .child(seg(Namespace::Type, "geometry"))
            .child(seg(Namespace::Type, "area"));
        assert_eq!(a.hash(), b.hash());
        assert_ne!(a.hash(), c.hash());
        assert_ne!(DefPath::root().hash(), a.hash());
        assert_eq!(a.to_string(), "crate::geometry::area");
    }

    #[test]
    fn def_path_text_names_every_segment_and_disambiguator() {
        let seg = |name: &str, disambiguator| DefPathSegment {
            ns: Namespace::Value,
            name: Symbol::intern(name),
            disambiguator,
        };
        assert_eq!(DefPath::root().text(), "crate");
        let dup = DefPath::root()
            .child(seg("shapes", 0))
            .child(seg("area", 12));
        assert_eq!(dup.text(), "crate::shapes::area#12");
        assert_eq!(dup.to_string(), dup.text());
        let plain = DefPath::root().child(seg("a", 0)).child(seg("bb", 0));
        let text = plain.text();
        assert_eq!(text, "crate::a::bb");
        // Built in one allocation of the exact length.
        assert_eq!(text.capacity(), text.len());
    }
}
