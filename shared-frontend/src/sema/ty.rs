//! Semantic types and the values of constants.

use std::fmt;
use std::sync::Arc;

use crate::intern::Symbol;
use crate::sema::def::{DefId, Vis};

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub enum IntTy {
    I32,
    I64,
    U64,
    /// 64 bits, distinct from `u64`.
    Usize,
}

impl IntTy {
    pub const ALL: [IntTy; 4] = [IntTy::I32, IntTy::I64, IntTy::U64, IntTy::Usize];

    pub fn bits(self) -> u32 {
        match self {
            IntTy::I32 => 32,
            _ => 64,
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(self, IntTy::I32 | IntTy::I64)
    }

    pub fn name(self) -> &'static str {
        match self {
            IntTy::I32 => "i32",
            IntTy::I64 => "i64",
            IntTy::U64 => "u64",
            IntTy::Usize => "usize",
        }
    }

    pub fn min_i128(self) -> i128 {
        match self {
            IntTy::I32 => i32::MIN as i128,
            IntTy::I64 => i64::MIN as i128,
            IntTy::U64 | IntTy::Usize => 0,
        }
    }

    pub fn max_i128(self) -> i128 {
        match self {
            IntTy::I32 => i32::MAX as i128,
            IntTy::I64 => i64::MAX as i128,
            IntTy::U64 | IntTy::Usize => u64::MAX as i128,
        }
    }

    /// Normalizes raw bits to this type's canonical 64-bit form: signed types are
    /// sign-extended from their width, unsigned ones zero-extended.
    pub fn normalize(self, bits: u64) -> u64 {
        match self {
            IntTy::I32 => bits as i32 as i64 as u64,
            _ => bits,
        }
    }

    /// The value of canonical bits as a mathematical integer.
    pub fn to_i128(self, bits: u64) -> i128 {
        if self.is_signed() {
            self.normalize(bits) as i64 as i128
        } else {
            bits as i128
        }
    }
}

/// A fully resolved type. Aliases are expanded; structs are named by their def id.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Int(IntTy),
    Bool,
    Unit,
    /// The type of diverging expressions; never written by the user.
    Never,
    Struct(DefId),
    Array(Arc<Ty>, u64),
    /// A type that could not be determined because of an error already reported;
    /// unifies with everything and silences follow-up errors.
    Error,
}

impl Ty {
    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }
}

/// Renders a type as rustc would print it. Struct names need the item tree, so callers
/// supply them.
pub struct DisplayTy<'a, F: Fn(DefId) -> String> {
    pub ty: &'a Ty,
    pub struct_name: F,
}

impl<F: Fn(DefId) -> String> fmt::Display for DisplayTy<'_, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn go<F: Fn(DefId) -> String>(
            ty: &Ty,
            name: &F,
            f: &mut fmt::Formatter<'_>,
        ) -> fmt::Result {
            match ty {
                Ty::Int(i) => f.write_str(i.name()),
                Ty::Bool => f.write_str("bool"),
                Ty::Unit => f.write_str("()"),
                Ty::Never => f.write_str("!"),
                Ty::Struct(d) => f.write_str(&name(*d)),
                Ty::Array(elem, n) => {
                    f.write_str("[")?;
                    go(elem, name, f)?;
                    write!(f, "; {n}]")
                }
                Ty::Error => f.write_str("{type error}"),
            }
        }
        go(self.ty, &self.struct_name, f)
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnSig {
    pub params: Vec<Ty>,
    pub ret: Ty,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldTy {
    pub name: Symbol,
    pub ty: Ty,
    pub vis: Vis,
}

/// The fields of a struct, in declaration order.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructFields {
    pub fields: Vec<FieldTy>,
}

impl StructFields {
    pub fn index_of(&self, name: Symbol) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// The value of a constant, computed at compile time.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstValue {
    /// Canonical bits (see [`IntTy::normalize`]).
    Int(IntTy, u64),
    Bool(bool),
    Unit,
    Array(Arc<[ConstValue]>),
    /// Field values in declaration order.
    Struct(DefId, Arc<[ConstValue]>),
}
