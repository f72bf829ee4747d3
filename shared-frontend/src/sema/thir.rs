//! The typed tree: one function body (or constant initializer) after type checking.
//!
//! Everything the later stages need is explicit here: every expression has its final
//! type (no inference variables), paths are resolved to locals or items, fields to
//! indices, loop labels to the loop they name, and coercions of `!` are visible. Lowering
//! and constant evaluation read this tree and never the syntax tree. Spans are relative to
//! the item.

use std::sync::Arc;

use crate::sema::def::DefId;
use crate::sema::ty::{IntTy, Ty};
use crate::span::Span;
use crate::syntax::ast::{BinOp, FmtPiece, UnOp};

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct TExprId(pub u32);

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct LocalId(pub u32);

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Local {
    pub name: crate::intern::Symbol,
    pub ty: Ty,
    pub mutable: bool,
    pub span: Span,
}

/// A run of consecutive entries of one of a body's side arrays ([`TLists`]): a node's
/// child list (call or `println!` arguments, array elements, struct literal fields,
/// block statements) without an allocation of its own.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash,
)]
pub struct ListRange {
    pub start: u32,
    pub len: u32,
}

impl ListRange {
    pub const EMPTY: ListRange = ListRange { start: 0, len: 0 };

    pub fn len(self) -> usize {
        self.len as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// The child lists of a body's nodes, each node holding a [`ListRange`] of one array.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TLists {
    /// Call and `println!` arguments, array elements.
    pub exprs: Vec<TExprId>,
    /// Struct literal fields: (declaration index, value).
    pub fields: Vec<(u32, TExprId)>,
    /// Block statements.
    pub stmts: Vec<TStmt>,
    /// The distinct final types of the body's nodes ([`TyId`]).
    pub types: Vec<Ty>,
    /// The items the nodes name ([`DefIdx`]: callees, struct literals' structs, constants),
    /// kept beside the nodes so that a node holds no 128-bit def id.
    pub defs: Vec<DefId>,
    /// The format strings of `println!` nodes ([`PiecesIdx`]).
    pub pieces: Vec<Arc<[FmtPiece]>>,
}

impl TLists {
    pub fn exprs(&self, r: ListRange) -> &[TExprId] {
        &self.exprs[r.range()]
    }

    pub fn fields(&self, r: ListRange) -> &[(u32, TExprId)] {
        &self.fields[r.range()]
    }

    pub fn stmts(&self, r: ListRange) -> &[TStmt] {
        &self.stmts[r.range()]
    }

    /// [`TLists::exprs`], or `None` for a range outside the array (a malformed body).
    pub fn get_exprs(&self, r: ListRange) -> Option<&[TExprId]> {
        self.exprs.get(r.range())
    }

    /// [`TLists::fields`], or `None` for a range outside the array.
    pub fn get_fields(&self, r: ListRange) -> Option<&[(u32, TExprId)]> {
        self.fields.get(r.range())
    }

    /// [`TLists::stmts`], or `None` for a range outside the array.
    pub fn get_stmts(&self, r: ListRange) -> Option<&[TStmt]> {
        self.stmts.get(r.range())
    }

    /// Appends `items` to `exprs` as one list.
    pub fn push_exprs(&mut self, items: &[TExprId]) -> ListRange {
        ListRange {
            start: push_list(&mut self.exprs, items),
            len: items.len() as u32,
        }
    }

    /// Appends `items` to `fields` as one list.
    pub fn push_fields(&mut self, items: &[(u32, TExprId)]) -> ListRange {
        ListRange {
            start: push_list(&mut self.fields, items),
            len: items.len() as u32,
        }
    }

    /// Appends `items` to `stmts` as one list.
    pub fn push_stmts(&mut self, items: &[TStmt]) -> ListRange {
        ListRange {
            start: push_list(&mut self.stmts, items),
            len: items.len() as u32,
        }
    }

    pub fn clear(&mut self) {
        self.exprs.clear();
        self.fields.clear();
        self.stmts.clear();
        self.types.clear();
        self.defs.clear();
        self.pieces.clear();
    }

    /// Gives `def` an index in [`TLists::defs`].
    pub fn push_def(&mut self, def: DefId) -> DefIdx {
        self.defs.push(def);
        DefIdx(self.defs.len() as u32 - 1)
    }

    /// The item `d` stands for.
    #[inline]
    pub fn def(&self, d: DefIdx) -> DefId {
        self.defs[d.0 as usize]
    }

    /// [`TLists::def`], or `None` for an index outside the array (a malformed body).
    pub fn get_def(&self, d: DefIdx) -> Option<DefId> {
        self.defs.get(d.0 as usize).copied()
    }

    /// Gives a format string an index in [`TLists::pieces`].
    pub fn push_pieces(&mut self, pieces: Arc<[FmtPiece]>) -> PiecesIdx {
        self.pieces.push(pieces);
        PiecesIdx(self.pieces.len() as u32 - 1)
    }

    /// The format string `p` stands for.
    #[inline]
    pub fn pieces(&self, p: PiecesIdx) -> &Arc<[FmtPiece]> {
        &self.pieces[p.0 as usize]
    }

    /// Gives `ty` an id (a new one: for bodies built by hand; the checker gives each
    /// distinct type one id).
    pub fn push_ty(&mut self, ty: Ty) -> TyId {
        self.types.push(ty);
        TyId(self.types.len() as u32 - 1)
    }

    /// The type `id` stands for.
    #[inline]
    pub fn ty(&self, id: TyId) -> &Ty {
        &self.types[id.0 as usize]
    }

    /// [`TLists::ty`], or `None` for an id outside the array (a malformed body).
    pub fn get_ty(&self, id: TyId) -> Option<&Ty> {
        self.types.get(id.0 as usize)
    }
}

fn push_list<T: Copy>(to: &mut Vec<T>, items: &[T]) -> u32 {
    let start = to.len() as u32;
    to.extend_from_slice(items);
    start
}

/// A type-checked body.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thir {
    pub exprs: Vec<TExpr>,
    /// The child lists of the nodes of `exprs`.
    pub lists: TLists,
    pub locals: Vec<Local>,
    /// The parameters, in order (empty for a constant).
    pub params: Vec<LocalId>,
    /// The root expression (the body block, or the const initializer).
    pub body: TExprId,
    /// The declared return type (or the const's type).
    pub ret: Ty,
}

impl Thir {
    /// Call or `println!` arguments, or array elements.
    pub fn expr_list(&self, r: ListRange) -> &[TExprId] {
        self.lists.exprs(r)
    }

    /// A struct literal's fields.
    pub fn fields(&self, r: ListRange) -> &[(u32, TExprId)] {
        self.lists.fields(r)
    }

    /// A block's statements.
    pub fn stmts(&self, r: ListRange) -> &[TStmt] {
        self.lists.stmts(r)
    }

    /// The final type of node `e`.
    #[inline]
    pub fn ty(&self, e: TExprId) -> &Ty {
        self.lists.ty(self[e].ty)
    }

    /// The final type of `e`, a node of this body.
    #[inline]
    pub fn ty_of(&self, e: &TExpr) -> &Ty {
        self.lists.ty(e.ty)
    }

    /// The item `d` stands for.
    #[inline]
    pub fn def(&self, d: DefIdx) -> DefId {
        self.lists.def(d)
    }
}

impl std::ops::Index<TExprId> for Thir {
    type Output = TExpr;
    fn index(&self, id: TExprId) -> &TExpr {
        &self.exprs[id.0 as usize]
    }
}

impl std::ops::Index<LocalId> for Thir {
    type Output = Local;
    fn index(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

/// An item named by a body's node, as an index of [`TLists::defs`].
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct DefIdx(pub u32);

/// A `println!` format string of a body, as an index of [`TLists::pieces`].
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct PiecesIdx(pub u32);

/// A type of a body, as an index of its distinct types ([`TLists::types`]): a node holds
/// no type of its own (an array type would be an `Arc` to count and drop per node).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct TyId(pub u32);

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TExpr {
    pub kind: TExprKind,
    /// The final type (see [`Thir::ty`]). `Ty::Never` for diverging expressions that were
    /// not coerced.
    pub ty: TyId,
    pub span: Span,
}

// The pipeline holds every body's typed tree at once (the typed nodes are about half of
// its peak heap): a node names its type, items and format string by index, and holds its
// 64-bit integers 4-byte aligned ([`Bits64`]).
const _: () = assert!(std::mem::size_of::<TExpr>() == 32);

/// A 64-bit integer aligned to 4 bytes rather than a `u64`'s 8 (as `ast::LitValue` is
/// for the syntax tree's 128-bit values), for the typed nodes that hold one (an integer's
/// bits, a repeat count): with a `u64` the node kind would be 8-byte aligned, and the
/// 17-byte payload of a `for` loop would take it from 20 bytes to 24 and a node from 32
/// to 40. Serialized, hashed and printed as the `u64` it holds.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(Rust, packed(4))]
pub struct Bits64(pub u64);

impl Bits64 {
    #[inline]
    pub const fn new(v: u64) -> Bits64 {
        Bits64(v)
    }

    #[inline]
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl From<u64> for Bits64 {
    fn from(v: u64) -> Bits64 {
        Bits64(v)
    }
}

impl std::fmt::Debug for Bits64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&{ self.0 }, f)
    }
}

/// Arithmetic, bitwise and comparison operators (`&&` and `||` are [`TExprKind::LogicalAnd`]
/// / [`TExprKind::LogicalOr`]). The operand type is the left operand's type; for shifts the
/// right operand may have any integer type.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TExprKind {
    /// Canonical bits of an integer of the expression's type (see `IntTy::normalize`).
    Int(Bits64),
    Bool(bool),
    Unit,
    Local(LocalId),
    /// The value of a `const` item.
    ConstRef(DefIdx),
    Unary(UnOp, TExprId),
    Binary(BinOp, TExprId, TExprId),
    LogicalAnd(TExprId, TExprId),
    LogicalOr(TExprId, TExprId),
    /// `place = value`; the place is a `Local`, `Field` or `Index` chain rooted at a local.
    Assign {
        place: TExprId,
        value: TExprId,
    },
    /// `place op= value` (op is arithmetic, bitwise or shift).
    AssignOp {
        op: BinOp,
        place: TExprId,
        value: TExprId,
    },
    /// Integer or bool source (of type `from`), integer target (the expression's type).
    Cast {
        source: TExprId,
        from: CastFrom,
        to: IntTy,
    },
    Call {
        callee: DefIdx,
        /// In [`TLists::exprs`].
        args: ListRange,
    },
    /// Field by index in declaration order.
    Field {
        base: TExprId,
        index: u32,
    },
    Index {
        base: TExprId,
        index: TExprId,
    },
    /// Fields in the order written (that is the evaluation order), with their declaration
    /// index. Every field appears exactly once.
    StructLit {
        def: DefIdx,
        /// In [`TLists::fields`].
        fields: ListRange,
    },
    /// The elements, in [`TLists::exprs`].
    Array(ListRange),
    /// `[value; count]`: `value` is evaluated once, even when `count` is 0.
    Repeat {
        value: TExprId,
        count: Bits64,
    },
    Block {
        /// In [`TLists::stmts`].
        stmts: ListRange,
        tail: Option<TExprId>,
    },
    If {
        cond: TExprId,
        then_branch: TExprId,
        else_branch: Option<TExprId>,
    },
    /// `loop`; its value is given by `break value`.
    Loop {
        body: TExprId,
    },
    While {
        cond: TExprId,
        body: TExprId,
    },
    /// `for binding in start..end` (or `..=`). Both ends are evaluated once, in order.
    For {
        binding: LocalId,
        start: TExprId,
        end: TExprId,
        inclusive: bool,
        body: TExprId,
    },
    /// `target` is the `Loop`/`While`/`For` expression being left.
    Break {
        target: TExprId,
        value: Option<TExprId>,
    },
    Continue {
        target: TExprId,
    },
    Return(Option<TExprId>),
    /// `println!`: `args[i]` fills the i-th hole; each argument is an integer or bool.
    Println {
        /// In [`TLists::pieces`].
        pieces: PiecesIdx,
        /// In [`TLists::exprs`].
        args: ListRange,
    },
    /// An expression of type `!` used where another type is expected.
    NeverToAny(TExprId),
    /// Stands for an expression that had an error; never reaches lowering, since a body
    /// with errors is not lowered.
    Error,
}

/// The type of a cast's source: an integer type or `bool` (a [`Ty`] of those, in a
/// byte or two rather than a whole `Ty`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastFrom {
    Int(IntTy),
    Bool,
}

impl CastFrom {
    /// The source type, if it is an integer type or `bool`.
    pub fn of(ty: &Ty) -> Option<CastFrom> {
        match ty {
            Ty::Int(t) => Some(CastFrom::Int(*t)),
            Ty::Bool => Some(CastFrom::Bool),
            _ => None,
        }
    }

    pub fn ty(self) -> Ty {
        match self {
            CastFrom::Int(t) => Ty::Int(t),
            CastFrom::Bool => Ty::Bool,
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TStmt {
    /// `let` with a binding (`None` for `let _ = init;`, which still evaluates `init`).
    Let {
        local: Option<LocalId>,
        init: TExprId,
    },
    Expr(TExprId),
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A 4-byte aligned 64-bit integer gives back the integer, prints and serializes as
        /// it (the persisted encodings of typed bodies are those of the `u64`).
        #[test]
        fn bits64_is_the_u64_it_holds(v in any::<u64>()) {
            let b = Bits64::new(v);
            prop_assert_eq!(b.get(), v);
            prop_assert_eq!(Bits64::from(v), b);
            prop_assert_eq!(format!("{b:?}"), format!("{v:?}"));
            let config = bincode::config::standard();
            let bytes = bincode::serde::encode_to_vec(b, config).unwrap();
            prop_assert_eq!(&bytes, &bincode::serde::encode_to_vec(v, config).unwrap());
            let (back, read): (Bits64, usize) =
                bincode::serde::decode_from_slice(&bytes, config).unwrap();
            prop_assert_eq!((back, read), (b, bytes.len()));
        }
    }
}
